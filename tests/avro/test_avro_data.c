/* Avro data files (format/avro/avro_data.h): the Java-written fixture typed
 * by its Paimon schema, projection by field id, row ranges, skipped fields,
 * and a write/read round trip of the data-file writer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arrow/arrow.h"
#include "arrow/type.h"
#include "format/avro/avro_data.h"
#include "harness.h"

#define AVRO_FIXTURE                                                                                  \
  PM_SHARED("fixtures/warehouse/avro/append_with_multiple_ts_precision_and_timezone.db/"             \
            "append_with_multiple_ts_precision_and_timezone/bucket-0/"                              \
            "data-441e233b-529d-4a8f-a0a4-25c2c84fb965-0.avro")

static pm_error err;

static int contains(const pm_buf *b, const char *s) {
  size_t n = strlen(s);
  for (size_t i = 0; i + n <= b->len; i++)
    if (!memcmp(b->data + i, s, n)) return 1;
  return 0;
}

/* the fixture's schema-0 as Arrow: ts_sec .. ts_tz_micro, ids 0..5 (n: how many of them) */
static void fixture_schema(struct ArrowSchema *s, int n) {
  static const char *fmt[6] = {"tss:", "tsm:", "tsu:", "tss:UTC", "tsm:UTC", "tsu:UTC"};
  static const char *name[6] = {"ts_sec", "ts_milli", "ts_micro", "ts_tz_sec", "ts_tz_milli", "ts_tz_micro"};
  CHECK_OK(pm_schema_init(s, "+s", "", 0, n, &err), &err);
  for (int i = 0; i < n; i++) {
    pm_schema_release(s->children[i]);
    CHECK_OK(pm_schema_init(s->children[i], fmt[i], name[i], ARROW_FLAG_NULLABLE, 0, &err), &err);
    char id[8];
    snprintf(id, sizeof id, "%d", i);
    const char *k[1] = {"PARQUET:field_id"}, *v[1] = {id};
    CHECK_OK(pm_schema_set_metadata(s->children[i], 1, k, v, &err), &err);
  }
}

static pm_avro_data_reader *open_fixture(const pm_avro_data_options *o) {
  pm_file *f;
  pm_avro_data_reader *r = NULL;
  CHECK_OK(pm_file_open(AVRO_FIXTURE, &f, &err), &err);
  CHECK_OK(pm_avro_data_open(f, o, &r, &err), &err);
  return r;
}

/* value of column c at row i, or -1 for null */
static int64_t v(const struct ArrowArray *a, int c, int64_t i) {
  const struct ArrowArray *x = a->children[c];
  return pm_array_is_valid(x, i) ? ((const int64_t *)x->buffers[1])[x->offset + i] : -1;
}

static void test_fixture_typed(void) {
  struct ArrowSchema ds;
  fixture_schema(&ds, 6);
  pm_avro_data_options o = {&ds, NULL, 0, 0, NULL, 0};
  pm_avro_data_reader *r = open_fixture(&o);
  if (!r) return;
  struct ArrowSchema s;
  CHECK_OK(pm_avro_data_schema(r, &s, &err), &err);
  CHECK_EQ_INT(s.n_children, 6);
  CHECK_EQ_STR(s.children[0]->format, "tss:");
  CHECK_EQ_STR(s.children[5]->format, "tsu:UTC");
  pm_schema_release(&s);
  struct ArrowArray a;
  CHECK_OK(pm_avro_data_next(r, &a, &err), &err);
  CHECK_EQ_INT(a.length, 3);
  /* expected file: seconds 1, millis 1, micros 1, zoned 2 / 2 / 2; row 1 nulls; row 2 five / six */
  static const int64_t want[3][6] = {{1, 1, 1, 2, 2, 2}, {-1, 3, -1, -1, 4, -1}, {5, -1, 5, 6, -1, 6}};
  for (int i = 0; i < 3 && a.release; i++)
    for (int c = 0; c < 6; c++) CHECK_MSG(v(&a, c, i) == want[i][c], "row %d col %d: %lld", i, c, (long long)v(&a, c, i));
  if (a.release) a.release(&a);
  CHECK_OK(pm_avro_data_next(r, &a, &err), &err);
  CHECK(a.release == NULL);
  pm_avro_data_close(r);
  pm_schema_release(&ds);
}

static void test_projection_ranges_skipped(void) {
  struct ArrowSchema ds;
  fixture_schema(&ds, 6);
  int32_t ids[2] = {4, 0};
  int64_t ranges[2] = {1, 3}; /* rows 1 and 2 */
  pm_avro_data_options o = {&ds, ids, 2, 1, ranges, 1};
  pm_avro_data_reader *r = open_fixture(&o);
  if (!r) return;
  struct ArrowSchema s;
  CHECK_OK(pm_avro_data_schema(r, &s, &err), &err);
  CHECK_EQ_INT(s.n_children, 2); /* file order: ts_sec, ts_tz_milli */
  CHECK_EQ_STR(s.children[0]->name, "ts_sec");
  CHECK_EQ_STR(s.children[1]->name, "ts_tz_milli");
  pm_schema_release(&s);
  static const int64_t want[2][2] = {{-1, 4}, {5, -1}};
  for (int i = 0; i < 2; i++) {
    struct ArrowArray a;
    CHECK_OK(pm_avro_data_next(r, &a, &err), &err);
    CHECK(a.release && a.length == 1); /* batch_rows 1 */
    if (!a.release) break;
    CHECK_EQ_INT(v(&a, 0, 0), want[i][0]);
    CHECK_EQ_INT(v(&a, 1, 0), want[i][1]);
    a.release(&a);
  }
  pm_avro_data_close(r);
  pm_schema_release(&ds);
  /* fields the data schema does not type are skipped */
  fixture_schema(&ds, 2);
  pm_avro_data_options o2 = {&ds, NULL, 0, 0, NULL, 0};
  r = open_fixture(&o2);
  CHECK_OK(pm_avro_data_schema(r, &s, &err), &err);
  CHECK_EQ_INT(s.n_children, 2);
  pm_schema_release(&s);
  struct ArrowArray a;
  CHECK_OK(pm_avro_data_next(r, &a, &err), &err);
  CHECK_EQ_INT(a.length, 3);
  CHECK_EQ_INT(v(&a, 1, 1), 3);
  a.release(&a);
  pm_avro_data_close(r);
  pm_schema_release(&ds);
}

/* The data-file writer writes what the reader reads, and Java's logical types. */
static void test_writer_roundtrip(void) {
  struct ArrowSchema ds;
  fixture_schema(&ds, 6);
  pm_avro_data_options o = {&ds, NULL, 0, 0, NULL, 0};
  pm_avro_data_reader *r = open_fixture(&o);
  struct ArrowArray a;
  CHECK_OK(pm_avro_data_next(r, &a, &err), &err);
  pm_avro_data_close(r);
  char dir[] = "/tmp/pm_avro_data_XXXXXX", path[256];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/d.avro", dir);
  pm_avro_data_writer *w;
  CHECK_OK(pm_avro_data_writer_open(path, &ds, 0 /* none */, 0, &w, &err), &err);
  CHECK_OK(pm_avro_data_writer_write(w, &a, &err), &err);
  uint64_t size = 0;
  CHECK_OK(pm_avro_data_writer_close(w, &size, &err), &err);
  CHECK(size > 0);
  pm_file *f;
  CHECK_OK(pm_file_open(path, &f, &err), &err);
  pm_avro_data_reader *r2 = NULL;
  CHECK_OK(pm_avro_data_open(f, &o, &r2, &err), &err);
  struct ArrowArray b;
  CHECK_OK(pm_avro_data_next(r2, &b, &err), &err);
  CHECK_EQ_INT(b.length, 3);
  for (int i = 0; i < 3; i++)
    for (int c = 0; c < 6; c++) CHECK_EQ_INT(v(&b, c, i), v(&a, c, i));
  b.release(&b);
  pm_avro_data_close(r2);
  pm_buf text;
  pm_buf_init(&text);
  CHECK_OK(pm_read_file(path, &text, 0, &err), &err);
  CHECK(contains(&text, "\"local-timestamp-micros\""));
  CHECK(contains(&text, "[\"null\",{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}]"));
  pm_buf_free(&text);
  a.release(&a);
  unlink(path);
  rmdir(dir);
  /* unsupported types name the column (nested ones too): lists are written now, a
   * timestamp in ns is not (Java's AvroSchemaConverter refuses TIMESTAMP(7..9)) */
  struct ArrowSchema bad;
  CHECK_OK(pm_schema_init(&bad, "+s", "", 0, 1, &err), &err);
  pm_schema_release(bad.children[0]);
  CHECK_OK(pm_schema_init(bad.children[0], "+l", "tags", ARROW_FLAG_NULLABLE, 1, &err), &err);
  pm_schema_release(bad.children[0]->children[0]);
  CHECK_OK(pm_schema_init(bad.children[0]->children[0], "tsn:", "element", ARROW_FLAG_NULLABLE, 0, &err), &err);
  CHECK(pm_avro_data_writer_open(path, &bad, 0, 0, &w, &err) == PAIMON_ERR_UNSUPPORTED);
  CHECK(strstr(err.message, "tags") != NULL);
  pm_schema_release(&bad);
  pm_schema_release(&ds);
}

int main(void) {
  RUN_TEST(test_fixture_typed);
  RUN_TEST(test_projection_ranges_skipped);
  RUN_TEST(test_writer_roundtrip);
  TEST_MAIN_END();
}
