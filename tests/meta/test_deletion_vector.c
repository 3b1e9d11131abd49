/* Deletion vectors: Java wire samples (decode + byte-identical re-encode), every DV of the
 * fixture index manifests (cardinality vs _CARDINALITY), positions/ranges, bad input. */
#define _XOPEN_SOURCE 700
#include <ftw.h>

#include "harness.h"
#include "io/file.h"
#include "meta/deletion_vector.h"
#include "meta/hash_index.h"
#include "meta/manifest.h"

static void check_sample(const char *path, int is64, const int64_t *offsets, const int64_t *lengths,
                         const int64_t *const *expected, const size_t *n_expected) {
  pm_buf b;
  pm_buf_init(&b);
  pm_error err = {0};
  CHECK_OK(pm_read_file(path, &b, 0, &err), &err);
  CHECK(b.len > 0 && b.data[0] == 1);
  pm_buf re;
  pm_buf_init(&re);
  pm_buf_push_u8(&re, 1);
  for (int k = 0; k < 2; k++) {
    pm_deletion_vector *dv = NULL;
    CHECK_OK(pm_dv_read(pm_fs_local(), path, offsets[k], lengths[k], &dv, &err), &err);
    if (!dv) continue;
    CHECK_EQ_INT(pm_dv_is_bitmap64(dv), is64);
    CHECK_EQ_INT(pm_dv_cardinality(dv), n_expected[k]);
    int64_t *pos = NULL;
    size_t np = 0;
    CHECK_OK(pm_dv_positions(dv, &pos, &np, &err), &err);
    CHECK_EQ_INT(np, n_expected[k]);
    for (size_t i = 0; i < np && i < n_expected[k]; i++) CHECK_EQ_INT(pos[i], expected[k][i]);
    for (size_t i = 0; i < n_expected[k]; i++) CHECK(pm_dv_is_deleted(dv, expected[k][i]));
    CHECK(!pm_dv_is_deleted(dv, 0));
    free(pos);
    int32_t ml = 0;
    CHECK_OK(pm_dv_serialize(dv, &re, &ml, &err), &err);
    CHECK_EQ_INT(ml, lengths[k]);
    pm_dv_free(dv);
  }
  CHECK_MSG(re.len == b.len && memcmp(re.data, b.data, b.len) == 0, "%s: re-encoded bytes differ", path);
  pm_buf_free(&re);
  pm_buf_free(&b);
}

static void test_wire_samples(void) {
  static const int64_t a[] = {2, 3}, c[] = {1};
  const int64_t *exp[2] = {a, c};
  size_t n[2] = {2, 1};
  int64_t off32[2] = {1, 33}, len32[2] = {24, 22};
  check_sample(PM_SHARED("fixtures/wire/dvindex-32"), 0, off32, len32, exp, n);
  int64_t off64[2] = {1, 45}, len64[2] = {44, 42};
  check_sample(PM_SHARED("fixtures/wire/dvindex-64"), 1, off64, len64, exp, n);
}

static int n_dvs, n_index_files;

static int visit(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  if (flag != FTW_F || strncmp(path + ftw->base, "index-manifest-", 15) != 0) return 0;
  /* table root = path up to "/manifest/" */
  const char *m = strstr(path, "/manifest/");
  if (!m) return 0;
  pm_index_entries v;
  pm_index_entries_init(&v);
  pm_error err = {0};
  int rc = pm_index_manifest_read(pm_fs_local(), path, &v, &err);
  if (rc == PAIMON_ERR_UNSUPPORTED && strstr(err.message, "ORC")) return 0; /* ORC manifests: see test_manifest */
  CHECK_MSG(rc == 0, "%s", err.message);
  n_index_files++;
  for (size_t i = 0; i < v.n; i++) {
    const pm_index_file_meta *im = &v.items[i].index_file;
    if (strcmp(im->index_type, PM_INDEX_TYPE_DV) != 0 || im->external_path) continue;
    char ipath[4096];
    snprintf(ipath, sizeof ipath, "%.*s/index/%s", (int)(m - path), path, im->file_name);
    if (!pm_path_exists(ipath)) continue; /* index-file-in-data-file-dir tables */
    for (int32_t r = 0; r < im->n_dv_ranges; r++) {
      const pm_dv_range *dr = &im->dv_ranges[r];
      pm_deletion_vector *dv = NULL;
      CHECK_OK(pm_dv_read(pm_fs_local(), ipath, dr->offset, dr->length, &dv, &err), &err);
      if (!dv) continue;
      if (dr->has_cardinality) CHECK_EQ_INT(pm_dv_cardinality(dv), dr->cardinality);
      CHECK(pm_dv_cardinality(dv) > 0);
      n_dvs++;
      pm_dv_free(dv);
    }
  }
  pm_index_entries_clear(&v);
  return 0;
}

static void test_fixture_dvs(void) {
  CHECK(nftw(PM_SHARED("fixtures/warehouse"), visit, 16, FTW_PHYS) == 0);
  fprintf(stderr, "decoded %d deletion vectors from %d index manifests\n", n_dvs, n_index_files);
  CHECK(n_dvs >= 5);
  /* FORMAT.md 7.3 example: pk_09 DV with position 4 at offset 1, length 22 */
  uint8_t ex[] = {0x01, 0x00, 0x00, 0x00, 0x16, 0x5e, 0x43, 0xf2, 0xd0, 0x3a, 0x30, 0x00, 0x00, 0x01, 0x00,
                  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x04, 0x00, 0x87, 0x5c, 0xa5, 0xd7};
  pm_error err = {0};
  pm_deletion_vector *dv = NULL;
  CHECK_OK(pm_dv_decode(ex + 1, sizeof ex - 1, 22, "example", &dv, &err), &err);
  if (dv) {
    CHECK(pm_dv_is_deleted(dv, 4) && !pm_dv_is_deleted(dv, 3));
    int64_t *rg = NULL;
    size_t nr = 0;
    CHECK_OK(pm_dv_kept_ranges(dv, 10, &rg, &nr, &err), &err);
    CHECK(nr == 2 && rg[0] == 0 && rg[1] == 4 && rg[2] == 5 && rg[3] == 10);
    free(rg);
    pm_dv_free(dv);
  }
  /* corruption: CRC, magic, length mismatch, truncation */
  ex[26] ^= 1;
  CHECK_EQ_INT(pm_dv_decode(ex + 1, sizeof ex - 1, 22, "crc", &dv, &err), PAIMON_ERR_CORRUPT);
  CHECK(strstr(err.message, "CRC") != NULL);
  ex[26] ^= 1;
  CHECK_EQ_INT(pm_dv_decode(ex + 1, sizeof ex - 1, 23, "len", &dv, &err), PAIMON_ERR_CORRUPT);
  for (size_t cut = 0; cut < sizeof ex - 1; cut++) CHECK(pm_dv_decode(ex + 1, cut, -1, "cut", &dv, &err) != 0);
  ex[5] = 0;
  CHECK_EQ_INT(pm_dv_decode(ex + 1, sizeof ex - 1, 22, "magic", &dv, &err), PAIMON_ERR_CORRUPT);
}

static void test_build_64(void) {
  pm_error err = {0};
  pm_deletion_vector *dv = NULL;
  CHECK_OK(pm_dv_new(1, &dv, &err), &err);
  CHECK_OK(pm_dv_add(dv, 5, &err), &err);
  CHECK_OK(pm_dv_add(dv, (int64_t)3 << 32, &err), &err);
  pm_buf b;
  pm_buf_init(&b);
  int32_t ml = 0;
  CHECK_OK(pm_dv_serialize(dv, &b, &ml, &err), &err);
  CHECK_EQ_INT(ml, b.len);
  pm_deletion_vector *back = NULL;
  CHECK_OK(pm_dv_decode(b.data, b.len, ml, "rt64", &back, &err), &err);
  if (back) {
    CHECK_EQ_INT(pm_dv_cardinality(back), 2);
    CHECK(pm_dv_is_deleted(back, (int64_t)3 << 32) && pm_dv_is_deleted(back, 5) && !pm_dv_is_deleted(back, 6));
    pm_dv_free(back);
  }
  pm_buf_free(&b);
  pm_dv_free(dv);
  CHECK_OK(pm_dv_new(0, &dv, &err), &err);
  CHECK_EQ_INT(pm_dv_add(dv, (int64_t)1 << 40, &err), PAIMON_ERR_INVALID_ARGUMENT);
  for (int64_t i = 0; i < 10000; i += 3) pm_dv_add(dv, i, &err);
  pm_buf_init(&b);
  CHECK_OK(pm_dv_serialize(dv, &b, &ml, &err), &err);
  CHECK_EQ_INT(ml, b.len - 8);
  CHECK_OK(pm_dv_decode(b.data, b.len, ml, "rt32", &back, &err), &err);
  if (back) {
    CHECK_EQ_INT(pm_dv_cardinality(back), 3334);
    pm_dv_free(back);
  }
  pm_buf_free(&b);
  pm_dv_free(dv);
}

/* Our DV index file writer reproduces the Java-written 32-bit sample byte for byte. */
static void test_index_file_writer(void) {
  pm_error err = {0};
  pm_deletion_vector *a = NULL, *b = NULL;
  CHECK_OK(pm_dv_new(0, &a, &err), &err);
  CHECK_OK(pm_dv_new(0, &b, &err), &err);
  pm_dv_add(a, 2, &err);
  pm_dv_add(a, 3, &err);
  pm_dv_add(b, 1, &err);
  const char *names[2] = {"data-a.parquet", "data-b.parquet"};
  const pm_deletion_vector *dvs[2] = {a, b};
  pm_buf out;
  pm_buf_init(&out);
  pm_arena arena;
  pm_arena_init(&arena);
  pm_index_file_meta meta;
  CHECK_OK(pm_dv_index_file_encode("index-x-0", names, dvs, 2, &out, &arena, &meta, &err), &err);
  pm_buf sample;
  pm_buf_init(&sample);
  CHECK_OK(pm_read_file(PM_SHARED("fixtures/wire/dvindex-32"), &sample, 0, &err), &err);
  CHECK(out.len == sample.len && !memcmp(out.data, sample.data, out.len));
  CHECK_EQ_STR(meta.index_type, "DELETION_VECTORS");
  CHECK(meta.n_dv_ranges == 2 && meta.dv_ranges[1].offset == 33 && meta.dv_ranges[1].length == 22);
  CHECK(meta.dv_ranges[0].cardinality == 2 && meta.row_count == 2 && meta.file_size == (int64_t)out.len);
  pm_buf_free(&sample);
  pm_buf_free(&out);
  pm_arena_free(&arena);
  pm_dv_free(a);
  pm_dv_free(b);
}

/* HASH index: BE int32 sequence (FORMAT.md 7.2); hash of INT 1 from FORMAT.md 6.3(a). */
static void test_hash_index(void) {
  pm_error err = {0};
  int32_t in[3] = {1465514398, -300363099, 0};
  pm_buf b;
  pm_buf_init(&b);
  CHECK_OK(pm_hash_index_encode(in, 3, &b, &err), &err);
  CHECK(b.len == 12 && b.data[0] == 0x57 && b.data[1] == 0x59 && b.data[2] == 0xf9 && b.data[3] == 0x9e);
  int32_t *out = NULL;
  size_t n = 0;
  CHECK_OK(pm_hash_index_decode(b.data, b.len, "h", &out, &n, &err), &err);
  CHECK(n == 3 && out[0] == in[0] && out[1] == in[1] && out[2] == 0);
  free(out);
  CHECK_EQ_INT(pm_hash_index_decode(b.data, 7, "h", &out, &n, &err), PAIMON_ERR_CORRUPT);
  pm_buf_free(&b);
}

int main(void) {
  RUN_TEST(test_wire_samples);
  RUN_TEST(test_fixture_dvs);
  RUN_TEST(test_build_64);
  RUN_TEST(test_index_file_writer);
  RUN_TEST(test_hash_index);
  TEST_MAIN_END();
}
