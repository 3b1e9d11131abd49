/* Import inputs (write.h paimon_table_open_input*): jsonl and csv printed by the
 * reader's printer come back as the same rows; data files stream their rows;
 * bad input names the file, line and column. */
#include <fcntl.h>
#include <unistd.h>

#include "arrow/stream.h"
#include "print/print.h"
#include "harness.h"
#include "paimon/paimon.h"
#include "paimon/write.h"

static char tmp_dir[256];

static char *tmp_file(const char *name, const char *text) {
  static char path[512];
  snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
  FILE *f = fopen(path, "wb");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
  return path;
}

/* Prints a stream (consumed) as jsonl or csv into a malloc'd string; NULL on error (err set). */
static char *print_stream(struct ArrowArrayStream *s, pm_print_format fmt, int64_t *rows, paimon_error *err) {
  struct ArrowSchema schema;
  memset(&schema, 0, sizeof schema);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  pm_print_options po;
  memset(&po, 0, sizeof po);
  po.format = fmt;
  pm_printer *pr = NULL;
  int rc = pm_stream_get_schema(s, &schema, err);
  if (!rc) rc = pm_printer_new(&schema, &po, &pr, err);
  if (rows) *rows = 0;
  while (!rc) {
    struct ArrowArray b;
    memset(&b, 0, sizeof b);
    rc = pm_stream_get_next(s, &b, err);
    if (rc || !b.release) break;
    if (rows) *rows += b.length;
    rc = pm_printer_print(pr, &b, f, err);
    b.release(&b);
  }
  if (!rc) rc = pm_printer_finish_file(pr, f, err);
  pm_printer_free(pr);
  if (schema.release) schema.release(&schema);
  s->release(s);
  fclose(f);
  if (rc) {
    free(text);
    return NULL;
  }
  return text;
}

static paimon_table *open_table(const char *warehouse, const char *id, paimon_catalog **cat) {
  paimon_error err = {0};
  paimon_option o[] = {{"warehouse", warehouse}};
  paimon_table *t = NULL;
  CHECK_OK(paimon_catalog_open(o, 1, cat, &err), &err);
  if (*cat) CHECK_OK(paimon_catalog_get_table(*cat, id, &t, &err), &err);
  return t;
}

static char *read_table(paimon_table *t, pm_print_format fmt) {
  paimon_error err = {0};
  paimon_read_builder *rb = NULL;
  paimon_plan *plan = NULL;
  struct ArrowArrayStream s;
  char *text = NULL;
  CHECK_OK(paimon_read_builder_new(t, NULL, 0, &rb, &err), &err);
  CHECK_OK(paimon_read_builder_plan(rb, &plan, &err), &err);
  CHECK_OK(paimon_read_plan(rb, plan, &s, &err), &err);
  text = print_stream(&s, fmt, NULL, &err);
  CHECK_MSG(text != NULL, "%s", err.message);
  paimon_plan_free(plan);
  paimon_read_builder_free(rb);
  return text;
}

/* The table's rows printed as fmt, read back through open_input, print as jsonl the same. */
static void round_trip(const char *warehouse, const char *id, pm_print_format fmt) {
  paimon_catalog *cat = NULL;
  paimon_table *t = open_table(warehouse, id, &cat);
  if (!t) {
    paimon_catalog_free(cat);
    return;
  }
  char *jsonl = read_table(t, PM_PRINT_JSONL);
  char *text = fmt == PM_PRINT_JSONL ? NULL : read_table(t, fmt);
  const char *path = tmp_file(fmt == PM_PRINT_JSONL ? "in.jsonl" : "in.csv", text ? text : jsonl ? jsonl : "");
  paimon_error err = {0};
  struct ArrowArrayStream s;
  /* From a descriptor (stdin of `table import -`). */
  int fd = open(path, O_RDONLY);
  CHECK(fd >= 0);
  CHECK_OK(paimon_table_open_input_fd(t, fd, NULL, fmt == PM_PRINT_JSONL ? "jsonl" : "csv", &s, &err), &err);
  char *back = err.code ? NULL : print_stream(&s, PM_PRINT_JSONL, NULL, &err);
  CHECK_MSG(back != NULL, "%s: %s", id, err.message);
  if (back && jsonl) CHECK_MSG(!strcmp(back, jsonl), "%s (fd):\nwant %s\ngot  %s", id, jsonl, back);
  free(back);
  close(fd);
  /* From the path, format by extension. */
  CHECK_OK(paimon_table_open_input(t, path, NULL, &s, &err), &err);
  paimon_table_free(t); /* the stream does not need the table */
  int64_t rows = 0;
  back = err.code ? NULL : print_stream(&s, PM_PRINT_JSONL, &rows, &err);
  CHECK_MSG(back != NULL, "%s: %s", id, err.message);
  CHECK_MSG(rows > 0, "%s: no rows", id);
  if (back && jsonl) CHECK_MSG(!strcmp(back, jsonl), "%s:\nwant %s\ngot  %s", id, jsonl, back);
  free(back);
  free(jsonl);
  free(text);
  paimon_catalog_free(cat);
}

#define WH(f) PM_SHARED("fixtures/warehouse/" f)

static void test_jsonl_round_trip(void) {
  round_trip(WH("parquet"), "append_09.append_09", PM_PRINT_JSONL);
  round_trip(WH("avro"), "append_with_multiple_ts_precision_and_timezone.append_with_multiple_ts_precision_and_timezone",
             PM_PRINT_JSONL);
  round_trip(WH("orc"), "append_complex_build_in_fieldid.append_complex_build_in_fieldid", PM_PRINT_JSONL);
}

static void test_csv_round_trip(void) {
  round_trip(WH("parquet"), "append_09.append_09", PM_PRINT_CSV);
  round_trip(WH("avro"), "append_with_multiple_ts_precision_and_timezone.append_with_multiple_ts_precision_and_timezone",
             PM_PRINT_CSV);
  round_trip(WH("orc"), "append_complex_build_in_fieldid.append_complex_build_in_fieldid", PM_PRINT_CSV);
}

/* Opens text input for append_09 (f0 STRING, f1 INT, f2 INT, f3 DOUBLE) and drains it; returns the status. */
static int drain_text(const char *name, const char *text, const char *format, int64_t *rows, char **jsonl,
                      paimon_error *err) {
  paimon_catalog *cat = NULL;
  paimon_table *t = open_table(WH("parquet"), "append_09.append_09", &cat);
  struct ArrowArrayStream s;
  int rc = t ? (int)paimon_table_open_input(t, tmp_file(name, text), format, &s, err) : -1;
  char *out = rc ? NULL : print_stream(&s, PM_PRINT_JSONL, rows, err);
  if (!rc && !out) rc = err->code;
  if (jsonl) *jsonl = out;
  else free(out);
  paimon_table_free(t);
  paimon_catalog_free(cat);
  return rc;
}

static void test_text_details(void) {
  paimon_error err = {0};
  int64_t rows = 0;
  char *out = NULL;
  /* Missing keys are null, blank lines skipped, a last line without newline read. */
  CHECK_OK(drain_text("a.jsonl", "{\"f0\":\"x\",\"f1\":1}\n\n{\"f3\":\"NaN\",\"f2\":null}", NULL, &rows, &out, &err),
           &err);
  CHECK_EQ_INT(rows, 2);
  if (out)
    CHECK_EQ_STR(out, "{\"f0\":\"x\",\"f1\":1,\"f2\":null,\"f3\":null}\n{\"f0\":null,\"f1\":null,\"f2\":null,\"f3\":\"NaN\"}\n");
  free(out);
  /* CSV: any column order, CRLF, quoted commas / quotes / newlines, "" = empty string, empty = null. */
  CHECK_OK(drain_text("b.csv", "f3,f0,f1\r\n1.5,\"a,\"\"b\"\"\nc\",7\r\n,\"\",\r\n-Infinity,,-2", "csv", &rows, &out, &err),
           &err);
  CHECK_EQ_INT(rows, 3);
  if (out)
    CHECK_EQ_STR(out, "{\"f0\":\"a,\\\"b\\\"\\nc\",\"f1\":7,\"f2\":null,\"f3\":1.5}\n"
                      "{\"f0\":\"\",\"f1\":null,\"f2\":null,\"f3\":null}\n"
                      "{\"f0\":null,\"f1\":-2,\"f2\":null,\"f3\":\"-Infinity\"}\n");
  free(out);
  /* More rows than one batch: every row arrives. */
  size_t cap = 20000 * 24 + 16, n = 0;
  char *big = malloc(cap);
  n += (size_t)snprintf(big, cap, "f1,f0\n");
  for (int i = 0; i < 20000; i++) n += (size_t)snprintf(big + n, cap - n, "%d,r%d\n", i, i);
  CHECK_OK(drain_text("big.csv", big, NULL, &rows, NULL, &err), &err);
  CHECK_EQ_INT(rows, 20000);
  free(big);
}

static void test_bad_input(void) {
  paimon_error err = {0};
  int64_t rows;
  CHECK_EQ_INT(drain_text("u.jsonl", "{\"f0\":\"x\"}\n{\"f0\":\"y\",\"zz\":1}\n", NULL, &rows, NULL, &err),
               PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(err.message, "u.jsonl: line 2") && strstr(err.message, "'zz'"), "%s", err.message);
  CHECK_EQ_INT(drain_text("v.jsonl", "{\"f1\":\"abc\"}\n", NULL, &rows, NULL, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(err.message, "line 1") && strstr(err.message, "f1"), "%s", err.message);
  CHECK_EQ_INT(drain_text("w.jsonl", "{\"f1\":1\n", NULL, &rows, NULL, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(err.message, "w.jsonl: line 1"), "%s", err.message);
  CHECK_EQ_INT(drain_text("h.csv", "f0,nope\nx,1\n", NULL, &rows, NULL, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(err.message, "h.csv: line 1") && strstr(err.message, "'nope'"), "%s", err.message);
  CHECK_EQ_INT(drain_text("c.csv", "f0,f1\nx,1\ny,2,3\n", NULL, &rows, NULL, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(err.message, "line 3") && strstr(err.message, "3 fields"), "%s", err.message);
  CHECK_EQ_INT(drain_text("d.csv", "f0,f1\n\"x\",1.5\n", NULL, &rows, NULL, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(err.message, "line 2") && strstr(err.message, "'f1'"), "%s", err.message);
  CHECK_EQ_INT(drain_text("e.csv", "f0,f1\n\"x\n", NULL, &rows, NULL, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(err.message, "unterminated quote"), "%s", err.message);
  CHECK_EQ_INT(drain_text("noext", "", NULL, &rows, NULL, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(err.message, "noext") && strstr(err.message, "format"), "%s", err.message);
  CHECK_EQ_INT(drain_text("x.jsonl", "", "xml", &rows, NULL, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(err.message, "'xml'"), "%s", err.message);
  CHECK_EQ_INT(drain_text("empty.csv", "", NULL, &rows, NULL, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(err.message, "header"), "%s", err.message);
}

/* A data file of a fixture table streams its rows, by extension and from a descriptor. */
static void test_data_files(void) {
  paimon_catalog *cat = NULL;
  paimon_table *t = open_table(WH("parquet"), "append_09.append_09", &cat);
  if (!t) {
    paimon_catalog_free(cat);
    return;
  }
  const char *dir = WH("parquet") "/append_09.db/append_09/f1=10/bucket-0";
  char name[512] = "";
  FILE *p = popen("ls " PM_SHARED("fixtures/warehouse/parquet") "/append_09.db/append_09/f1=10/bucket-0 | grep parquet | head -1", "r");
  if (p) {
    if (fgets(name, sizeof name, p)) name[strcspn(name, "\n")] = 0;
    pclose(p);
  }
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  paimon_error err = {0};
  struct ArrowArrayStream s;
  int64_t rows = 0, rows_fd = 0;
  CHECK_OK(paimon_table_open_input(t, path, NULL, &s, &err), &err);
  char *a = err.code ? NULL : print_stream(&s, PM_PRINT_JSONL, &rows, &err);
  CHECK_MSG(a && rows > 0 && strstr(a, "\"f0\""), "%s: %s", path, err.message);
  int fd = open(path, O_RDONLY);
  CHECK_OK(paimon_table_open_input_fd(t, fd, path, "parquet", &s, &err), &err);
  char *b = err.code ? NULL : print_stream(&s, PM_PRINT_JSONL, &rows_fd, &err);
  CHECK_MSG(b && a && !strcmp(a, b), "%s", err.message);
  CHECK_EQ_INT(rows_fd, rows);
  close(fd);
  free(a);
  free(b);
  CHECK_EQ_INT(paimon_table_open_input(t, "/nonexistent/x.parquet", NULL, &s, &err), PAIMON_ERR_NOT_FOUND);
  CHECK_MSG(strstr(err.message, "/nonexistent/x.parquet"), "%s", err.message);
  CHECK_EQ_INT(paimon_table_open_input(t, tmp_file("bad.orc", "not orc"), NULL, &s, &err), PAIMON_ERR_CORRUPT);
  CHECK_MSG(strstr(err.message, "bad.orc"), "%s", err.message);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

int main(void) {
  snprintf(tmp_dir, sizeof tmp_dir, "/tmp/pm_api_input_XXXXXX");
  if (!mkdtemp(tmp_dir)) return 1;
  RUN_TEST(test_jsonl_round_trip);
  RUN_TEST(test_csv_round_trip);
  RUN_TEST(test_text_details);
  RUN_TEST(test_bad_input);
  RUN_TEST(test_data_files);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmp_dir);
  if (system(cmd)) return 1;
  TEST_MAIN_END();
}
