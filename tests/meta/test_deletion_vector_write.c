/* The DV maintainer and index file writer (deletion_vector_write.h): every
 * Java-written DV index file of the fixture warehouses, restored into a
 * maintainer and written again, is byte-identical with the same IndexFileMeta
 * in the original order, and of the same size with every vector's record equal
 * in the maintainer's (Java HashMap) order; deletions / removals / the modified flag as Java's
 * BucketedDvMaintainer; written files read back by our reader (pm_dv_read);
 * 64-bit vectors; the Java HashMap order of names (computeIfAbsent, putAll). */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"
#include "io/file.h"
#include "meta/deletion_vector_write.h"
#include "meta/java_hashmap.h"
#include "meta/manifest.h"

static int n_files, n_identical;

static int visit(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  if (flag != FTW_F || strncmp(path + ftw->base, "index-manifest-", 15) != 0) return 0;
  const char *m = strstr(path, "/manifest/");
  if (!m) return 0;
  pm_index_entries v;
  pm_index_entries_init(&v);
  pm_error err = {0};
  int rc = pm_index_manifest_read(pm_fs_local(), path, &v, &err);
  if (rc) {
    pm_index_entries_clear(&v);
    return 0; /* ORC manifests: not this test's subject */
  }
  for (size_t i = 0; i < v.n; i++) {
    const pm_index_file_meta *im = &v.items[i].index_file;
    if (strcmp(im->index_type, PM_INDEX_TYPE_DV) != 0 || im->external_path) continue;
    char ipath[4096];
    snprintf(ipath, sizeof ipath, "%.*s/index/%s", (int)(m - path), path, im->file_name);
    if (!pm_path_exists(ipath)) continue;
    const char *paths[1] = {ipath};
    pm_dv_maintainer *dm = NULL;
    CHECK_OK(pm_dv_maintainer_restore(pm_fs_local(), im, paths, 1, 0, &dm, &err), &err);
    if (!dm) continue;
    CHECK_EQ_INT(pm_dv_maintainer_count(dm), im->n_dv_ranges);
    CHECK(!pm_dv_maintainer_modified(dm));
    pm_buf image, orig;
    pm_buf_init(&image);
    pm_buf_init(&orig);
    pm_arena arena;
    pm_arena_init(&arena);
    pm_index_file_meta meta;
    CHECK_OK(pm_dv_maintainer_encode(dm, im->file_name, &image, &arena, &meta, &err), &err);
    CHECK_OK(pm_read_file(ipath, &orig, 0, &err), &err);
    n_files++;
    /* the maintainer's (Java HashMap) order: same file size, every vector's record equal */
    CHECK_EQ_INT(meta.file_size, im->file_size);
    CHECK_EQ_INT(meta.row_count, im->row_count);
    CHECK_EQ_INT(meta.n_dv_ranges, im->n_dv_ranges);
    for (int32_t r = 0; r < meta.n_dv_ranges; r++) {
      const pm_dv_range *a = &meta.dv_ranges[r], *b = NULL;
      for (int32_t q = 0; q < im->n_dv_ranges; q++)
        if (!strcmp(im->dv_ranges[q].data_file_name, a->data_file_name)) b = &im->dv_ranges[q];
      CHECK_MSG(b != NULL, "%s: %s not in the original", ipath, a->data_file_name);
      if (!b) continue;
      CHECK_EQ_INT(a->length, b->length);
      if (b->has_cardinality) CHECK_EQ_INT(a->cardinality, b->cardinality);
      size_t rec = (size_t)a->length + (pm_dv_is_bitmap64(pm_dv_maintainer_get(dm, a->data_file_name)) ? 0 : 8);
      CHECK((size_t)a->offset + rec <= image.len && (size_t)b->offset + rec <= orig.len &&
            !memcmp(image.data + a->offset, orig.data + b->offset, rec));
    }
    /* in the original's order: byte-identical, IndexFileMeta identical */
    const char **names = calloc((size_t)im->n_dv_ranges + 1, sizeof *names);
    const pm_deletion_vector **dvs = calloc((size_t)im->n_dv_ranges + 1, sizeof *dvs);
    for (int32_t r = 0; r < im->n_dv_ranges; r++) {
      names[r] = im->dv_ranges[r].data_file_name;
      dvs[r] = pm_dv_maintainer_get(dm, names[r]);
    }
    pm_buf again;
    pm_buf_init(&again);
    pm_index_file_meta m2;
    CHECK_OK(pm_dv_index_file_encode(im->file_name, names, dvs, (size_t)im->n_dv_ranges, &again, &arena, &m2, &err),
             &err);
    int same = again.len == orig.len && !memcmp(again.data, orig.data, orig.len);
    CHECK_MSG(same, "%s: re-encoded DV index file differs (%zu vs %zu bytes)", ipath, again.len, orig.len);
    n_identical += same;
    CHECK_EQ_INT(m2.file_size, im->file_size);
    for (int32_t r = 0; r < m2.n_dv_ranges && r < im->n_dv_ranges; r++) {
      CHECK_EQ_STR(m2.dv_ranges[r].data_file_name, im->dv_ranges[r].data_file_name);
      CHECK_EQ_INT(m2.dv_ranges[r].offset, im->dv_ranges[r].offset);
      CHECK_EQ_INT(m2.dv_ranges[r].length, im->dv_ranges[r].length);
      if (im->dv_ranges[r].has_cardinality) CHECK_EQ_INT(m2.dv_ranges[r].cardinality, im->dv_ranges[r].cardinality);
    }
    pm_buf_free(&again);
    free(names);
    free(dvs);
    pm_arena_free(&arena);
    pm_buf_free(&image);
    pm_buf_free(&orig);
    pm_dv_maintainer_free(dm);
  }
  pm_index_entries_clear(&v);
  return 0;
}

static void test_fixture_files_reencode(void) {
  CHECK(nftw(PM_SHARED("fixtures/warehouse"), visit, 16, FTW_PHYS) == 0);
  fprintf(stderr, "%d of %d Java DV index files re-encoded byte-identically\n", n_identical, n_files);
  CHECK(n_files >= 5);
}

/* Deletions, removals, modified flag; the written file read back. */
static void test_maintainer_ops(void) {
  char dir[] = "/tmp/pm_dvw_XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  pm_error err = {0};
  pm_dv_maintainer *m = NULL;
  CHECK_OK(pm_dv_maintainer_new(0, &m, &err), &err);
  CHECK(!pm_dv_maintainer_modified(m));
  char path[256];
  snprintf(path, sizeof path, "%s/index-u-0", dir);
  pm_arena arena;
  pm_arena_init(&arena);
  pm_index_file_meta meta;
  int written = -1;
  CHECK_OK(pm_dv_maintainer_write(m, pm_fs_local(), path, &arena, &meta, &written, &err), &err);
  CHECK(written == 0 && !pm_path_exists(path)); /* unmodified: nothing written */
  CHECK_OK(pm_dv_maintainer_delete(m, "data-1.parquet", 3, &err), &err);
  CHECK_OK(pm_dv_maintainer_delete(m, "data-1.parquet", 7, &err), &err);
  CHECK_OK(pm_dv_maintainer_delete(m, "data-2.parquet", 0, &err), &err);
  CHECK_OK(pm_dv_maintainer_delete(m, "data-3.parquet", 100000, &err), &err);
  CHECK(pm_dv_maintainer_modified(m) && pm_dv_maintainer_count(m) == 3);
  pm_dv_maintainer_remove(m, "data-3.parquet");
  pm_dv_maintainer_remove(m, "data-none.parquet");
  CHECK_EQ_INT(pm_dv_maintainer_count(m), 2);
  CHECK_EQ_INT(pm_dv_cardinality(pm_dv_maintainer_get(m, "data-1.parquet")), 2);
  CHECK(pm_dv_maintainer_get(m, "data-3.parquet") == NULL);
  CHECK_OK(pm_dv_maintainer_write(m, pm_fs_local(), path, &arena, &meta, &written, &err), &err);
  CHECK(written == 1 && !pm_dv_maintainer_modified(m));
  CHECK_EQ_STR(meta.file_name, "index-u-0");
  CHECK_EQ_STR(meta.index_type, "DELETION_VECTORS");
  CHECK_EQ_INT(meta.n_dv_ranges, 2);
  CHECK_EQ_INT(meta.row_count, 2);
  pm_file_stat st;
  CHECK_OK(pm_fs_stat(pm_fs_local(), path, &st, &err), &err);
  CHECK_EQ_INT((int64_t)st.size, meta.file_size);
  /* read back as the reader does, and through a restore */
  for (int32_t r = 0; r < meta.n_dv_ranges; r++) {
    pm_deletion_vector *dv = NULL;
    CHECK_OK(pm_dv_read(pm_fs_local(), path, meta.dv_ranges[r].offset, meta.dv_ranges[r].length, &dv, &err), &err);
    if (!dv) continue;
    CHECK_EQ_INT(pm_dv_cardinality(dv), meta.dv_ranges[r].cardinality);
    if (!strcmp(meta.dv_ranges[r].data_file_name, "data-1.parquet"))
      CHECK(pm_dv_is_deleted(dv, 3) && pm_dv_is_deleted(dv, 7) && !pm_dv_is_deleted(dv, 4));
    pm_dv_free(dv);
  }
  /* deleting an already deleted position is no change (checkedDelete) */
  CHECK_OK(pm_dv_maintainer_delete(m, "data-1.parquet", 3, &err), &err);
  CHECK(!pm_dv_maintainer_modified(m));
  const char *paths[1] = {path};
  pm_dv_maintainer *back = NULL;
  CHECK_OK(pm_dv_maintainer_restore(pm_fs_local(), &meta, paths, 1, 0, &back, &err), &err);
  if (back) {
    CHECK_EQ_INT(pm_dv_maintainer_count(back), 2);
    CHECK(pm_dv_is_deleted(pm_dv_maintainer_get(back, "data-2.parquet"), 0));
    /* all removed: an empty file (version byte only) replaces the bucket's DVs, as Java writes it */
    pm_dv_maintainer_remove(back, "data-1.parquet");
    pm_dv_maintainer_remove(back, "data-2.parquet");
    char p2[300];
    snprintf(p2, sizeof p2, "%s/index-u-1", dir);
    pm_index_file_meta m2;
    CHECK_OK(pm_dv_maintainer_write(back, pm_fs_local(), p2, &arena, &m2, &written, &err), &err);
    CHECK(written == 1 && m2.file_size == 1 && m2.n_dv_ranges == 0 && !m2.dv_ranges_is_null && m2.row_count == 0);
    pm_dv_maintainer_free(back);
  }
  /* a bad range or a corrupt file fails the restore naming the file */
  pm_dv_range bad = meta.dv_ranges[0];
  bad.length += 1;
  pm_index_file_meta badm = meta;
  badm.dv_ranges = &bad;
  badm.n_dv_ranges = 1;
  CHECK_EQ_INT(pm_dv_maintainer_restore(pm_fs_local(), &badm, paths, 1, 0, &back, &err), PAIMON_ERR_CORRUPT);
  CHECK(strstr(err.message, "index-u-0") != NULL);
  pm_dv_maintainer_free(m);
  pm_arena_free(&arena);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
}

/* 64-bit vectors (deletion-vectors.bitmap64): new vectors take the 64-bit form. */
static void test_bitmap64(void) {
  pm_error err = {0};
  pm_dv_maintainer *m = NULL;
  CHECK_OK(pm_dv_maintainer_new(1, &m, &err), &err);
  CHECK_OK(pm_dv_maintainer_delete(m, "f", (int64_t)5 << 32, &err), &err);
  CHECK_OK(pm_dv_maintainer_delete(m, "f", 1, &err), &err);
  CHECK(pm_dv_is_bitmap64(pm_dv_maintainer_get(m, "f")));
  pm_buf image;
  pm_buf_init(&image);
  pm_arena arena;
  pm_arena_init(&arena);
  pm_index_file_meta meta;
  CHECK_OK(pm_dv_maintainer_encode(m, "i", &image, &arena, &meta, &err), &err);
  pm_deletion_vector *dv = NULL;
  CHECK_OK(pm_dv_decode(image.data + 1, image.len - 1, meta.dv_ranges[0].length, "64", &dv, &err), &err);
  if (dv) {
    CHECK(pm_dv_is_bitmap64(dv) && pm_dv_cardinality(dv) == 2 && pm_dv_is_deleted(dv, (int64_t)5 << 32));
    pm_dv_free(dv);
  }
  CHECK_EQ_INT(meta.dv_ranges[0].length, (int64_t)image.len - 1); /* 64-bit: total bytes */
  pm_buf_free(&image);
  pm_arena_free(&arena);
  pm_dv_maintainer_free(m);
}

/* Java HashMap order: String hashes "Aa" and "BB" collide (insertion order
 * kept in a bin); 13 names via computeIfAbsent resize only at the 14th. */
static void test_java_order(void) {
  pm_error err = {0};
  pm_jmap a;
  pm_jmap_init(&a);
  CHECK_OK(pm_jmap_compute_if_absent(&a, "BB", &err), &err);
  CHECK_OK(pm_jmap_compute_if_absent(&a, "Aa", &err), &err);
  const char **o = NULL;
  CHECK_OK(pm_jmap_order(&a, &o, &err), &err);
  CHECK(!strcmp(o[0], "BB") && !strcmp(o[1], "Aa"));
  free(o);
  char name[32];
  for (int i = 0; i < 11; i++) {
    snprintf(name, sizeof name, "data-%d.parquet", i);
    CHECK_OK(pm_jmap_compute_if_absent(&a, name, &err), &err);
  }
  CHECK_EQ_INT(a.n, 13);
  CHECK_EQ_INT(a.table, 16); /* size 13 > threshold 12, but computeIfAbsent resizes before the next insert only */
  CHECK_OK(pm_jmap_compute_if_absent(&a, "x", &err), &err);
  CHECK_EQ_INT(a.table, 32);
  pm_jmap b;
  pm_jmap_init(&b);
  CHECK_OK(pm_jmap_put_all(&b, &a, &err), &err);
  CHECK_EQ_INT(b.table, 32); /* presized: 14 / 0.75 + 1 -> 32 */
  pm_jmap_clear(&a);
  pm_jmap_clear(&b);
}

int main(void) {
  RUN_TEST(test_fixture_files_reencode);
  RUN_TEST(test_maintainer_ops);
  RUN_TEST(test_bitmap64);
  RUN_TEST(test_java_order);
  TEST_MAIN_END();
}
