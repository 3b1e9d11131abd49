/* ORC manifests (manifest.format = orc, pm_manifest_write_opts.orc):
 *   - every Java-written ORC manifest, manifest list and index manifest of the fixtures,
 *     decoded, written again as ORC and decoded back, has the same content (compared as
 *     the bytes of one Avro encoding with a fixed sync marker, which covers every field);
 *   - our files have Java's ORC layout: the type tree (names, kinds, paimon.id attributes,
 *     _VERSION = -1, derived array element ids), the codec, the compression buffer size
 *     and row index stride of the newest Java file of each kind (Java 2.0.0's index
 *     manifest adds _GLOBAL_INDEX._SOURCE_META, id 5, which that fixture predates);
 *   - the rolling writer rolls ORC manifests at the target size (checked per 1024-row
 *     batch as Java does), every file decodes back to its entries, metas equal the files;
 *   - files are published create-if-absent: an existing name is a CONFLICT, left as it was. */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "format/orc/orc_reader.h"
#include "io/file.h"
#include "meta/manifest.h"
#include "meta/manifest_merge.h"
#include "meta/path_factory.h"

static const uint8_t SYNC[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

typedef enum { K_MANIFEST, K_LIST, K_INDEX } kind_t;

static kind_t kind_of(const char *base) {
  if (!strncmp(base, "manifest-list-", 14)) return K_LIST;
  if (!strncmp(base, "index-manifest-", 15)) return K_INDEX;
  return K_MANIFEST;
}

/* Decodes data (Avro or ORC) of kind k and appends one Avro encoding of its content to avro. */
static int canon(kind_t k, const uint8_t *data, size_t len, const char *name, pm_buf *avro, size_t *n, pm_error *err) {
  pm_manifest_write_opts ao = {PM_CODEC_NONE, 0, SYNC, 0};
  int rc;
  if (k == K_MANIFEST) {
    pm_manifest_entries v;
    pm_manifest_entries_init(&v);
    rc = pm_manifest_decode(data, len, name, NULL, NULL, &v, err);
    if (!rc) rc = pm_manifest_encode(v.items, v.n, &ao, avro, err);
    *n = v.n;
    pm_manifest_entries_clear(&v);
  } else if (k == K_LIST) {
    pm_manifest_file_metas v;
    pm_manifest_file_metas_init(&v);
    rc = pm_manifest_list_decode(data, len, name, &v, err);
    if (!rc) rc = pm_manifest_list_encode(v.items, v.n, &ao, avro, err);
    *n = v.n;
    pm_manifest_file_metas_clear(&v);
  } else {
    pm_index_entries v;
    pm_index_entries_init(&v);
    rc = pm_index_manifest_decode(data, len, name, &v, err);
    if (!rc) rc = pm_index_manifest_encode(v.items, v.n, &ao, avro, err);
    *n = v.n;
    pm_index_entries_clear(&v);
  }
  return rc;
}

/* Writes the content of data (kind k) again as ORC into out. */
static int rewrite_orc(kind_t k, const uint8_t *data, size_t len, const char *name, pm_buf *out, pm_error *err) {
  pm_manifest_write_opts oo = {PM_CODEC_ZSTD, 0, NULL, 1};
  int rc;
  if (k == K_MANIFEST) {
    pm_manifest_entries v;
    pm_manifest_entries_init(&v);
    rc = pm_manifest_decode(data, len, name, NULL, NULL, &v, err);
    if (!rc) rc = pm_manifest_encode(v.items, v.n, &oo, out, err);
    pm_manifest_entries_clear(&v);
  } else if (k == K_LIST) {
    pm_manifest_file_metas v;
    pm_manifest_file_metas_init(&v);
    rc = pm_manifest_list_decode(data, len, name, &v, err);
    if (!rc) rc = pm_manifest_list_encode(v.items, v.n, &oo, out, err);
    pm_manifest_file_metas_clear(&v);
  } else {
    pm_index_entries v;
    pm_index_entries_init(&v);
    rc = pm_index_manifest_decode(data, len, name, &v, err);
    if (!rc) rc = pm_index_manifest_encode(v.items, v.n, &oo, out, err);
    pm_index_entries_clear(&v);
  }
  return rc;
}

/* ---------------- every Java ORC manifest file round-trips ---------------- */

static size_t n_files[3], n_rows[3];

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)ftw;
  if (type != FTW_F || st->st_size < 4) return 0;
  const char *slash = strrchr(path, '/');
  if (!slash || slash - path < 9 || strncmp(slash - 9, "/manifest", 9) != 0) return 0;
  pm_buf raw;
  pm_buf_init(&raw);
  pm_error err = {0};
  if (pm_read_file(path, &raw, 0, &err) != 0 || raw.len < 3 || memcmp(raw.data, "ORC", 3) != 0) {
    pm_buf_free(&raw);
    return 0;
  }
  kind_t k = kind_of(slash + 1);
  pm_buf a, orc, b;
  pm_buf_init(&a);
  pm_buf_init(&orc);
  pm_buf_init(&b);
  size_t n1 = 0, n2 = 0;
  CHECK_OK(canon(k, raw.data, raw.len, path, &a, &n1, &err), &err);
  CHECK_OK(rewrite_orc(k, raw.data, raw.len, path, &orc, &err), &err);
  CHECK_MSG(orc.len > 3 && !memcmp(orc.data, "ORC", 3), "%s: rewritten file is not ORC", path);
  CHECK_OK(canon(k, orc.data, orc.len, "rewritten", &b, &n2, &err), &err);
  CHECK_EQ_INT(n2, n1);
  CHECK_MSG(a.len == b.len && !memcmp(a.data, b.data, a.len), "%s: ORC rewrite changes the content", path);
  n_files[k]++;
  n_rows[k] += n1;
  pm_buf_free(&a);
  pm_buf_free(&orc);
  pm_buf_free(&b);
  pm_buf_free(&raw);
  return 0;
}

static void test_fixture_round_trip(void) {
  CHECK(nftw(PM_SHARED("fixtures/warehouse"), visit, 16, FTW_PHYS) == 0);
  fprintf(stderr, "  ORC manifests %zu (%zu entries), lists %zu (%zu), index manifests %zu (%zu)\n", n_files[0],
          n_rows[0], n_files[1], n_rows[1], n_files[2], n_rows[2]);
  CHECK(n_files[K_MANIFEST] >= 50);
  CHECK(n_files[K_LIST] >= 50);
  CHECK(n_files[K_INDEX] >= 5);
}

/* ---------------- layout = Java's ---------------- */

static int open_orc(const uint8_t *data, size_t len, pm_file **f, pm_orc_reader **r) {
  pm_error err = {0};
  *f = NULL;
  *r = NULL;
  CHECK_OK(pm_file_from_memory(data, len, "orc", f, &err), &err);
  pm_orc_read_options o;
  pm_orc_read_options_init(&o);
  if (*f) CHECK_OK(pm_orc_reader_open(*f, &o, r, &err), &err);
  return *r != NULL;
}

/* "name:KIND{attrs}" of column c and its subtree, appended to s. */
static void tree(const pm_orc_reader *r, size_t c, char *s, size_t cap) {
  const pm_orc_column_info *ci = pm_orc_reader_column(r, c);
  size_t l = strlen(s);
  snprintf(s + l, cap - l, "(%s:%s", ci->name, pm_orc_kind_name(ci->kind));
  for (size_t i = 0; i < pm_orc_reader_column_attribute_count(r, c); i++) {
    const char *k, *v;
    pm_orc_reader_column_attribute(r, c, i, &k, &v);
    l = strlen(s);
    snprintf(s + l, cap - l, " %s=%s", k, v);
  }
  for (uint32_t i = 0; i < ci->n_children; i++) tree(r, ci->children[i], s, cap);
  l = strlen(s);
  snprintf(s + l, cap - l, ")");
}

static void compare_layout(const char *rel, const char *extra_tail) {
  char path[2048];
  snprintf(path, sizeof path, "%s/%s", PAIMON_SHARED_DIR, rel);
  pm_buf raw, ours;
  pm_buf_init(&raw);
  pm_buf_init(&ours);
  pm_error err = {0};
  CHECK_OK(pm_read_file(path, &raw, 0, &err), &err);
  const char *base = strrchr(rel, '/') + 1;
  CHECK_OK(rewrite_orc(kind_of(base), raw.data, raw.len, rel, &ours, &err), &err);
  pm_file *fj, *fo;
  pm_orc_reader *rj, *ro;
  if (open_orc(raw.data, raw.len, &fj, &rj) & open_orc(ours.data, ours.len, &fo, &ro)) {
    char tj[8192] = "", to[8192] = "";
    tree(rj, 0, tj, sizeof tj);
    tree(ro, 0, to, sizeof to);
    CHECK(strlen(tj) > 200 && strstr(tj, "paimon.id=-1") != NULL);
    if (extra_tail) {
      /* Java 2.0.0 adds a field the fixture's writer did not have yet: it ends the struct */
      char *p = strstr(to, extra_tail);
      CHECK_MSG(p != NULL, "%s: our layout lacks %s", rel, extra_tail);
      if (p) memmove(p, p + strlen(extra_tail), strlen(p + strlen(extra_tail)) + 1);
    }
    CHECK_MSG(!strcmp(tj, to), "%s: ORC layout differs\n  java: %s\n  ours: %s", rel, tj, to);
    CHECK_EQ_STR(pm_orc_reader_compression_name(ro), pm_orc_reader_compression_name(rj));
    CHECK_EQ_INT(pm_orc_reader_compression_block_size(ro), pm_orc_reader_compression_block_size(rj));
    CHECK_EQ_INT(pm_orc_reader_row_index_stride(ro), pm_orc_reader_row_index_stride(rj));
    CHECK_EQ_INT(pm_orc_reader_num_rows(ro), pm_orc_reader_num_rows(rj));
    CHECK_EQ_INT(pm_orc_reader_num_stripes(ro), 1);
  }
  pm_orc_reader_close(rj);
  pm_orc_reader_close(ro);
  pm_file_close(fj);
  pm_file_close(fo);
  pm_buf_free(&raw);
  pm_buf_free(&ours);
}

static void test_java_layout(void) {
  /* newest Java ORC files of each kind: manifests with _FIRST_ROW_ID/_WRITE_COLS, lists with row-id ranges */
  compare_layout("fixtures/warehouse/orc/append_table_row_tracking_with_compact.db/append_table_row_tracking_with_compact/"
                 "manifest/manifest-5f113925-24b7-4304-a97f-19bae3c9e250-2",
                 NULL);
  compare_layout("fixtures/warehouse/orc/append_with_global_index.db/append_with_global_index/manifest/"
                 "manifest-list-2bccccf8-9f5e-48f2-b706-5b33f8c3bfc0-0",
                 NULL);
  compare_layout("fixtures/warehouse/orc/append_with_global_index.db/append_with_global_index/manifest/"
                 "manifest-65b0d403-a1bc-4157-b242-bff73c46596d-0",
                 NULL);
  compare_layout("fixtures/warehouse/orc/append_with_global_index.db/append_with_global_index/manifest/"
                 "index-manifest-795a9d8a-60bf-401d-ab02-6f13f8ca1098-0",
                 "(_SOURCE_META:BINARY paimon.id=5)");
}

/* ---------------- rolling + create-if-absent ---------------- */

static char tmp[256];

static void test_rolling_orc(void) {
  pm_error err = {0};
  pm_arena arena;
  pm_arena_init(&arena);
  enum { N = 5000 };
  pm_manifest_entry *e = calloc(N, sizeof *e);
  for (size_t i = 0; i < N; i++) {
    char name[96];
    snprintf(name, sizeof name, "data-1b0e2e5c-9a6f-4d3e-8c11-%012zx-0.orc", i * 7919);
    e[i].kind = PM_FILE_ADD;
    e[i].partition.data = PM_EMPTY_ROW_BYTES;
    e[i].partition.len = 12;
    e[i].bucket = (int32_t)(i % 4);
    e[i].total_buckets = 4;
    pm_data_file_meta *f = &e[i].file;
    f->file_name = pm_arena_strdup(&arena, name);
    f->file_size = 1000 + (int64_t)i;
    f->row_count = 10;
    f->min_key = f->max_key = e[i].partition;
    pm_simple_stats_empty(&f->key_stats);
    pm_simple_stats_empty(&f->value_stats);
    f->min_sequence_number = f->max_sequence_number = (int64_t)i;
    f->has_creation_time = 1;
    f->creation_time_millis = 1764600000000LL + (int64_t)i * 1000;
    f->has_delete_row_count = 1;
    f->file_source = PM_SOURCE_APPEND;
    f->value_stats_cols.is_null = 1;
    f->write_cols.is_null = 1;
    f->write_cols_sequences_is_null = 1;
    f->has_first_row_id = 1;
    f->first_row_id = (int64_t)i * 10;
  }
  char root[512];
  snprintf(root, sizeof root, "%s/t", tmp);
  CHECK_OK(pm_mkdirs(root, &err), &err);
  char mdir[600];
  snprintf(mdir, sizeof mdir, "%s/manifest", root);
  CHECK_OK(pm_mkdirs(mdir, &err), &err);
  pm_path_factory pf;
  pm_path_factory_init(&pf, pm_fs_local(), root);
  pm_manifest_merge_options o;
  memset(&o, 0, sizeof o);
  o.target_file_size = 40 * 1024;
  o.merge_min_count = 30;
  o.full_compaction_size = 16 << 20;
  o.write.codec = PM_CODEC_ZSTD;
  o.write.orc = 1;
  pm_manifest_file_metas out;
  pm_manifest_file_metas_init(&out);
  CHECK_OK(pm_manifest_write_rolling(pm_fs_local(), &pf, e, N, &o, &out, &err), &err);
  fprintf(stderr, "  %d entries -> %zu ORC manifests at target %lld\n", N, out.n, (long long)o.target_file_size);
  CHECK(out.n >= 2);
  CHECK(out.n < N / 1024 + 2); /* at most one file per batch */
  size_t seen = 0;
  for (size_t k = 0; k < out.n; k++) {
    const pm_manifest_file_meta *m = &out.items[k];
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", mdir, m->file_name);
    struct stat st;
    CHECK(stat(p, &st) == 0 && st.st_size == m->file_size);
    pm_manifest_entries v;
    pm_manifest_entries_init(&v);
    CHECK_OK(pm_manifest_read(pm_fs_local(), p, NULL, NULL, &v, &err), &err);
    CHECK_EQ_INT(m->num_added_files, (long long)v.n);
    if (k + 1 < out.n) CHECK_EQ_INT(v.n % 1024, 0); /* rolled at a batch boundary */
    CHECK(m->has_row_id_range);
    CHECK_EQ_INT(m->min_row_id, (long long)seen * 10);
    CHECK_EQ_INT(m->max_row_id, (long long)(seen + v.n) * 10 - 1);
    for (size_t i = 0; i < v.n && seen + i < N; i++) {
      const pm_data_file_meta *a = &v.items[i].file, *b = &e[seen + i].file;
      CHECK_EQ_STR(a->file_name, b->file_name);
      CHECK_EQ_INT(v.items[i].bucket, e[seen + i].bucket);
      CHECK_EQ_INT(a->creation_time_millis, b->creation_time_millis);
      CHECK_EQ_INT(a->first_row_id, b->first_row_id);
      CHECK(a->value_stats_cols.is_null && a->write_cols.is_null && !a->has_embedded_index && !a->external_path);
    }
    seen += v.n;
    pm_manifest_entries_clear(&v);
  }
  CHECK_EQ_INT(seen, N);

  /* create-if-absent: writing a list over an existing name fails and keeps the file */
  char lp[1024];
  snprintf(lp, sizeof lp, "%s/%s", mdir, out.items[0].file_name);
  struct stat before, after;
  CHECK(stat(lp, &before) == 0);
  int64_t sz = 0;
  CHECK_EQ_INT(pm_manifest_list_write(pm_fs_local(), lp, out.items, out.n, &o.write, &sz, &err), PAIMON_ERR_CONFLICT);
  CHECK(stat(lp, &after) == 0 && after.st_size == before.st_size);
  /* a fresh list name works and reads back */
  snprintf(lp, sizeof lp, "%s/manifest-list-test-0", mdir);
  CHECK_OK(pm_manifest_list_write(pm_fs_local(), lp, out.items, out.n, &o.write, &sz, &err), &err);
  pm_manifest_file_metas back;
  pm_manifest_file_metas_init(&back);
  CHECK_OK(pm_manifest_list_read(pm_fs_local(), lp, &back, &err), &err);
  CHECK_EQ_INT(back.n, out.n);
  for (size_t k = 0; k < back.n && k < out.n; k++) {
    CHECK_EQ_STR(back.items[k].file_name, out.items[k].file_name);
    CHECK_EQ_INT(back.items[k].file_size, out.items[k].file_size);
    CHECK_EQ_INT(back.items[k].max_row_id, out.items[k].max_row_id);
    CHECK_EQ_INT(back.items[k].has_level_range, 1);
  }
  pm_manifest_file_metas_clear(&back);
  pm_manifest_file_metas_clear(&out);
  free(e);
  pm_arena_free(&arena);
}

int main(void) {
  snprintf(tmp, sizeof tmp, "/tmp/pm_test_orc_manifest_XXXXXX");
  if (!mkdtemp(tmp)) return 1;
  RUN_TEST(test_fixture_round_trip);
  RUN_TEST(test_java_layout);
  RUN_TEST(test_rolling_orc);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
  if (!pm_test_failures && system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
  TEST_MAIN_END();
}
