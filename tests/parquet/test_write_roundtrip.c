/* Reader -> writer round trips: Java-written fixture files read with our
 * reader and re-written with our writer must give the same rows as the
 * originals (oracle: parquet-dump, both files), and our own files must survive
 * writer -> reader -> writer unchanged (same canonical sha256). */
#include "format/parquet/parquet_reader.h"
#include "support/test_write_util.h"

#define FIX(rel) PM_SHARED("fixtures/warehouse/parquet/" rel)

/* The most varied Java file: all scalar types, MAP<ARRAY<FLOAT>, ROW>, INT96, decimals
 * (test_write_java compares every parquet-mr fixture page by page; this one goes through the oracles). */
static const char *const fixtures[] = {
    FIX("parquet_append_table.db/parquet_append_table/bucket-0/data-9ea62f34-1dca-49c1-bf7a-d37303d8fb76-1.parquet"),
};

/* Reads `in` with our reader and writes `out` with our writer. */
static int convert(const char *in, const char *out, const pm_pq_write_options *o, int64_t batch_rows) {
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_pq_read_options ro;
  pm_pq_read_options_init(&ro);
  ro.batch_rows = batch_rows;
  pm_pq_reader *r = NULL;
  pm_pq_writer *w = NULL;
  struct ArrowSchema s;
  memset(&s, 0, sizeof s);
  int rc = pm_pq_reader_open_path(in, &ro, &r, &err);
  if (!rc) rc = pm_pq_reader_schema(r, &s, &err);
  if (!rc) rc = pm_pq_writer_open(out, &s, o, &w, &err);
  while (!rc) {
    struct ArrowArray b;
    memset(&b, 0, sizeof b);
    rc = pm_pq_reader_next(r, &b, &err);
    if (rc || !b.release) break;
    rc = pm_pq_writer_write(w, &b, &err);
    b.release(&b);
  }
  if (!rc) rc = pm_pq_writer_close(w, &err);
  if (rc) fprintf(stderr, "convert %s: %s\n", in, err.message);
  pm_pq_writer_free(w);
  if (s.release) s.release(&s);
  pm_pq_reader_close(r);
  return rc;
}

static void test_java_fixtures(void) {
  for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
    char name[32];
    snprintf(name, sizeof name, "fix%zu.parquet", i);
    const char *out = tw_path(name);
    CHECK_OK(convert(fixtures[i], out, NULL, 2), &(pm_error){0});
    char *want = tw_dump(fixtures[i], "--canon-hy");
    char *got = tw_dump(out, "--canon-hy");
    CHECK_MSG(want && got && strcmp(want, got) == 0, "%s\n--- java\n%s--- ours\n%s", fixtures[i], want, got);
    free(want);
    free(got);
  }
}

/* Ours -> reader -> writer (other codec, page version, tiny pages): same rows. */
static void test_own_file_twice(void) {
  const char *src = fixtures[0];
  const char *a = tw_path("a.parquet");
  CHECK_OK(convert(src, a, NULL, 1000), &(pm_error){0});
  CHECK(tw_check(a));
  char sha[80];
  snprintf(sha, sizeof sha, "%s", tw_last_sha);
  pm_pq_write_options o;
  pm_pq_write_options_default(&o);
  o.codec = PM_CODEC_SNAPPY;
  o.data_page_v2 = 1;
  o.page_rows = 1;
  o.row_group_rows = 2;
  const char *b = tw_path("b.parquet");
  CHECK_OK(convert(a, b, &o, 1), &(pm_error){0});
  CHECK(tw_check(b));
  CHECK_MSG(strcmp(sha, tw_last_sha) == 0, "%s vs %s", sha, tw_last_sha);
}

int main(void) {
  RUN_TEST(test_java_fixtures);
  RUN_TEST(test_own_file_twice);
  tw_cleanup();
  TEST_MAIN_END();
}
