/* Parquet writer: the flat all-types batch under other codecs, page versions and
 * with dictionary off; each file must decode to the same canonical rows (same
 * sha256 from parquet-check) as the default file, whose rows test_write_flat
 * compares with hand-computed values. */
#include "support/test_write_flat_data.h"

static int write_file(const char *p, const pm_pq_write_options *o) {
  struct ArrowSchema s;
  struct ArrowArray a;
  build_flat(&s, &a);
  pm_error err;
  pm_pq_writer *w = NULL;
  int ok = 0;
  CHECK_OK(pm_pq_writer_open(p, &s, o, &w, &err), &err);
  if (w) {
    /* two batches: rows 0-1 then rows 2-3 (through the ArrowArray offset) */
    struct ArrowArray head = a, tail = a;
    head.length = 2;
    tail.offset = 2;
    tail.length = 2;
    CHECK_OK(pm_pq_writer_write(w, &head, &err), &err);
    CHECK_OK(pm_pq_writer_write(w, &tail, &err), &err);
    int rc = pm_pq_writer_close(w, &err);
    CHECK_OK(rc, &err);
    ok = rc == 0;
    pm_pq_writer_free(w);
  }
  pm_schema_release(&s);
  pm_array_release(&a);
  return ok ? 0 : 1;
}

/* Other codecs and page versions, written in two batches. */
static void test_flat_codecs(void) {
  static const struct { pm_codec codec; int v2; int dict; const char *name; } cases[] = {
      {PM_CODEC_NONE, 1, 1, "none_v2.parquet"},
      {PM_CODEC_SNAPPY, 0, 0, "snappy_plain.parquet"},
      {PM_CODEC_GZIP, 1, 0, "gzip_v2.parquet"},
      {PM_CODEC_LZ4_RAW, 0, 1, "lz4.parquet"},
  };
  char ref_sha[80] = "";
  const char *ref = tw_path("default.parquet");
  if (write_file(ref, NULL) || !tw_check(ref)) {
    CHECK(0);
    return;
  }
  snprintf(ref_sha, sizeof ref_sha, "%s", tw_last_sha);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    pm_pq_write_options o;
    pm_pq_write_options_default(&o);
    o.codec = cases[i].codec;
    o.data_page_v2 = cases[i].v2;
    o.dictionary = cases[i].dict;
    const char *p = tw_path(cases[i].name);
    if (write_file(p, &o)) continue;
    CHECK_MSG(tw_check(p), "%s", cases[i].name);
    CHECK_MSG(strcmp(tw_last_sha, ref_sha) == 0, "%s: sha %s, default file %s", cases[i].name, tw_last_sha, ref_sha);
  }
}

int main(void) {
  RUN_TEST(test_flat_codecs);
  tw_cleanup();
  TEST_MAIN_END();
}
