/* Reads every ORC file of the Java-written fixtures (data files and ORC
 * manifests) and checks decoded values against the expected rows of simple
 * append tables. */
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <sys/stat.h>

#include "arrow/arrow.h"
#include "print/print.h"
#include "arrow/validate.h"
#include "format/orc/orc_reader.h"
#include "harness.h"

typedef struct name_list {
  char **v;
  size_t n, cap;
} name_list;

static void push(name_list *l, const char *s) {
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 64;
    l->v = realloc(l->v, l->cap * sizeof *l->v);
  }
  l->v[l->n++] = strdup(s);
}

static void free_list(name_list *l) {
  for (size_t i = 0; i < l->n; i++) free(l->v[i]);
  free(l->v);
  memset(l, 0, sizeof *l);
}

static int is_orc(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  char m[3] = {0};
  size_t n = fread(m, 1, 3, f);
  fclose(f);
  return n == 3 && memcmp(m, "ORC", 3) == 0;
}

static void walk(const char *dir, name_list *out) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(path, &st)) continue;
    if (S_ISDIR(st.st_mode)) walk(path, out);
    else if (is_orc(path)) push(out, path);
  }
  closedir(d);
}

/* Reads a whole file; returns rows read or -1. Optionally prints JSON lines into out. */
static int64_t read_file(const char *path, int64_t batch_size, pm_buf *json, pm_error *err) {
  pm_file *f = NULL;
  pm_orc_reader *r = NULL;
  struct ArrowSchema s;
  memset(&s, 0, sizeof s);
  int64_t rows = -1;
  if (pm_file_open(path, &f, err)) return -1;
  pm_orc_read_options o;
  pm_orc_read_options_init(&o);
  o.batch_size = batch_size;
  if (pm_orc_reader_open(f, &o, &r, err) || pm_orc_reader_schema(r, &s, err)) goto done;
  rows = 0;
  for (;;) {
    struct ArrowArray a;
    if (pm_orc_reader_next(r, &a, err)) {
      rows = -1;
      break;
    }
    if (!a.release) break;
    int bad = pm_arrow_validate(&s, &a, err);
    if (!bad && json) bad = pm_print_batch_to_buf(&s, &a, NULL, json, err);
    rows += a.length;
    a.release(&a);
    if (bad) {
      rows = -1;
      break;
    }
  }
  if (rows >= 0 && (uint64_t)rows != pm_orc_reader_num_rows(r)) {
    pm_errorf(err, PAIMON_ERR_INTERNAL, "%s: read %lld rows, footer says %llu", path, (long long)rows,
              (unsigned long long)pm_orc_reader_num_rows(r));
    rows = -1;
  }
done:
  pm_schema_release(&s);
  pm_orc_reader_close(r);
  pm_file_close(f);
  return rows;
}

static void test_read_every_fixture_file(void) {
  name_list files = {0};
  walk(PM_SHARED("fixtures/warehouse"), &files);
  CHECK_MSG(files.n >= 400, "found only %zu ORC files", files.n);
  size_t manifests = 0;
  for (size_t i = 0; i < files.n; i++) {
    pm_error err;
    pm_error_clear(&err);
    if (strstr(files.v[i], "/manifest/")) manifests++;
    int64_t a = read_file(files.v[i], 0, NULL, &err);
    CHECK_MSG(a >= 0, "%s", err.message);
    int64_t b = read_file(files.v[i], 3, NULL, &err); /* small batches cross stripe/run boundaries */
    CHECK_MSG(b == a, "%s: %s", files.v[i], err.message);
  }
  CHECK_MSG(manifests > 100, "only %zu ORC manifests", manifests);
  free_list(&files);
}

/* ---- value comparison with the expected JSON ---- */

static void norm_ts(const char *s, char *out, size_t cap) {
  snprintf(out, cap, "%s", s);
  size_t n = strlen(out);
  int z = n > 0 && out[n - 1] == 'Z';
  if (z) out[--n] = 0;
  char *dot = strchr(out, '.');
  if (dot && strchr(out, 'T')) {
    while (n > 0 && out[n - 1] == '0') out[--n] = 0;
    if (n > 0 && out[n - 1] == '.') out[--n] = 0;
  }
  if (z && n + 1 < cap) {
    out[n] = 'Z';
    out[n + 1] = 0;
  }
}

static int values_equal(json_t *e, json_t *a) {
  if (json_is_null(e) || json_is_null(a)) return json_is_null(e) && json_is_null(a);
  if (json_is_number(e) && json_is_number(a)) {
    double x = json_number_value(e), y = json_number_value(a);
    double m = fmax(1.0, fmax(fabs(x), fabs(y)));
    return fabs(x - y) <= 1e-6 * m;
  }
  if (json_is_boolean(e) || json_is_boolean(a)) return json_equal(e, a);
  if (json_is_string(e) && json_is_string(a)) {
    char x[256], y[256];
    norm_ts(json_string_value(e), x, sizeof x);
    norm_ts(json_string_value(a), y, sizeof y);
    return strcmp(x, y) == 0;
  }
  if (json_is_array(e) && json_is_array(a)) {
    if (json_array_size(e) != json_array_size(a)) return 0;
    for (size_t i = 0; i < json_array_size(e); i++)
      if (!values_equal(json_array_get(e, i), json_array_get(a, i))) return 0;
    return 1;
  }
  if (json_is_object(e) && json_is_object(a)) {
    if (json_object_size(e) != json_object_size(a)) return 0;
    const char *k;
    json_t *v;
    json_object_foreach(e, k, v) {
      json_t *w = json_object_get(a, k);
      if (!w || !values_equal(v, w)) return 0;
    }
    return 1;
  }
  return 0;
}

/* Reads all data files of a table directory and compares with expected/<expected>.json as a multiset. */
static void check_table(const char *table_dir, const char *expected, const char *skip_substring) {
  char dir[1024], exp_path[1024];
  snprintf(dir, sizeof dir, "%s/%s", PM_SHARED("fixtures/warehouse"), table_dir);
  snprintf(exp_path, sizeof exp_path, "%s/%s.json", PM_SHARED("fixtures/expected"), expected);
  name_list files = {0};
  walk(dir, &files);
  pm_buf out;
  pm_buf_init(&out);
  for (size_t i = 0; i < files.n; i++) {
    if (strstr(files.v[i], "/manifest/") || (skip_substring && strstr(files.v[i], skip_substring))) continue;
    pm_error err;
    CHECK_MSG(read_file(files.v[i], 0, &out, &err) >= 0, "%s", err.message);
  }
  json_error_t jerr;
  json_t *exp = json_load_file(exp_path, 0, &jerr);
  CHECK_MSG(exp != NULL, "%s: %s", exp_path, jerr.text);
  if (!exp) goto done;
  json_t *cols = json_object_get(exp, "columns"), *rows = json_object_get(exp, "rows");
  size_t n_exp = json_array_size(rows);
  json_t *actual = json_array();
  pm_buf_push_u8(&out, 0);
  char *save = NULL;
  for (char *line = strtok_r((char *)out.data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    json_t *obj = json_loads(line, 0, &jerr);
    CHECK_MSG(obj != NULL, "bad json line %s", line);
    if (!obj) continue;
    json_t *row = json_array();
    for (size_t c = 0; c < json_array_size(cols); c++) {
      json_t *v = json_object_get(obj, json_string_value(json_array_get(cols, c)));
      json_array_append(row, v ? v : json_null());
    }
    json_array_append_new(actual, row);
    json_decref(obj);
  }
  CHECK_MSG(json_array_size(actual) == n_exp, "%s: %zu rows, expected %zu", table_dir, json_array_size(actual), n_exp);
  char *used = calloc(json_array_size(actual) + 1, 1);
  size_t unmatched = 0;
  for (size_t i = 0; i < n_exp; i++) {
    json_t *e = json_array_get(rows, i);
    int found = 0;
    for (size_t j = 0; j < json_array_size(actual) && !found; j++)
      if (!used[j] && values_equal(e, json_array_get(actual, j))) used[j] = found = 1;
    if (!found) {
      if (unmatched++ < 3) {
        char *s = json_dumps(e, JSON_COMPACT);
        fprintf(stderr, "%s: expected row not found: %s\n", table_dir, s);
        free(s);
      }
    }
  }
  CHECK_MSG(unmatched == 0, "%s: %zu expected rows not matched", table_dir, unmatched);
  free(used);
  json_decref(actual);
  json_decref(exp);
done:
  pm_buf_free(&out);
  free_list(&files);
}

static void test_expected_values(void) {
  check_table("orc/append_with_multiple_ts_precision_and_timezone.db",
              "orc__append_with_multiple_ts_precision_and_timezone__snapshot-1", "cpp_paimon_write");
  check_table("orc/append_complex_build_in_fieldid.db", "orc__append_complex_build_in_fieldid__snapshot-1", NULL);
  check_table("orc/append_with_bitmap.db", "orc__append_with_bitmap__snapshot-1", NULL);
  check_table("orc/append_with_bsi.db", "orc__append_with_bsi__snapshot-1", NULL);
  check_table("orc/append_with_bloomfilter.db", "orc__append_with_bloomfilter__snapshot-1", NULL);
  check_table("orc/append_with_bsi_bitmap_bloomfilter.db", "orc__append_with_bsi_bitmap_bloomfilter__snapshot-1", NULL);
  check_table("orc/append_10.db", "orc__append_10__snapshot-1", NULL);
  check_table("orc/append_with_empty_partition.db", "orc__append_with_empty_partition__snapshot-1", NULL);
  check_table("orc/append_table_with_first_row_id.db", "orc__append_table_with_first_row_id__snapshot-1", NULL);
  check_table("orc/append_10_stats_dense_store.db", "orc__append_10_stats_dense_store__snapshot-1", NULL);
}

/* Stripe statistics of a Java-written file prune (or keep) stripes. */
static int64_t rows_with(const char *path, const pm_fmt_predicate *p, uint64_t *skipped) {
  pm_error err;
  pm_file *f = NULL;
  pm_orc_reader *r = NULL;
  pm_orc_read_options o;
  pm_orc_read_options_init(&o);
  o.predicates = p;
  o.n_predicates = 1;
  int64_t rows = -1;
  if (pm_file_open(path, &f, &err) == 0 && pm_orc_reader_open(f, &o, &r, &err) == 0) {
    rows = 0;
    for (;;) {
      struct ArrowArray a;
      if (pm_orc_reader_next(r, &a, &err)) {
        rows = -1;
        break;
      }
      if (!a.release) break;
      rows += a.length;
      a.release(&a);
    }
    *skipped = pm_orc_reader_skipped_stripes(r);
  }
  CHECK_MSG(rows >= 0, "%s", err.message);
  pm_orc_reader_close(r);
  pm_file_close(f);
  return rows;
}

static void test_java_stats_pruning(void) {
  const char *path = PM_SHARED("fixtures/warehouse/orc/append_with_bitmap_alter_table.db/append_with_bitmap_alter_table/"
                               "bucket-0/data-68014988-5451-478f-a18a-a1668214cf3d-0.orc");
  /* f0 STRING Alice..Tony, f1 INT 10..20, f2 INT 0..1 with a null, f3 DOUBLE 11.1..18.1 */
  pm_fmt_literal i20 = {PM_FMT_LIT_INT64, 20, 0, NULL, 0}, i15 = {PM_FMT_LIT_INT64, 15, 0, NULL, 0};
  pm_fmt_literal d19 = {PM_FMT_LIT_DOUBLE, 0, 19.0, NULL, 0};
  pm_fmt_literal sz = {PM_FMT_LIT_BYTES, 0, 0, (const uint8_t *)"Zed", 3}, sb = {PM_FMT_LIT_BYTES, 0, 0, (const uint8_t *)"Bob", 3};
  pm_fmt_literal in2[2] = {{PM_FMT_LIT_INT64, 30, 0, NULL, 0}, {PM_FMT_LIT_INT64, 40, 0, NULL, 0}};
  struct {
    const char *col;
    pm_fmt_op op;
    pm_fmt_literal *v;
    size_t n;
    int64_t rows;
  } cases[] = {
      {"f1", PM_FMT_OP_GT, &i20, 1, 0},     {"f1", PM_FMT_OP_GE, &i20, 1, 8},  {"f1", PM_FMT_OP_EQ, &i15, 1, 8},
      {"f1", PM_FMT_OP_LT, &i15, 1, 8},     {"f3", PM_FMT_OP_GE, &d19, 1, 0}, {"f3", PM_FMT_OP_LT, &d19, 1, 8},
      {"f0", PM_FMT_OP_GT, &sz, 1, 0},      {"f0", PM_FMT_OP_EQ, &sb, 1, 8},  {"f1", PM_FMT_OP_IN, in2, 2, 0},
      {"f2", PM_FMT_OP_IS_NULL, NULL, 0, 8}, {"f1", PM_FMT_OP_IS_NULL, NULL, 0, 0}, {"f1", PM_FMT_OP_IS_NOT_NULL, NULL, 0, 8},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    pm_fmt_predicate p;
    memset(&p, 0, sizeof p);
    p.column = cases[i].col;
    p.op = cases[i].op;
    p.values = cases[i].v;
    p.n_values = cases[i].n;
    uint64_t skipped = 0;
    int64_t rows = rows_with(path, &p, &skipped);
    CHECK_MSG(rows == cases[i].rows, "case %zu: %lld rows, expected %lld", i, (long long)rows, (long long)cases[i].rows);
    CHECK_EQ_INT(skipped, cases[i].rows ? 0 : 1);
  }
  /* by field id */
  pm_fmt_predicate p;
  memset(&p, 0, sizeof p);
  p.field_id = 1;
  p.op = PM_FMT_OP_GT;
  p.values = &i20;
  p.n_values = 1;
  uint64_t skipped = 0;
  CHECK_EQ_INT(rows_with(path, &p, &skipped), 0);
}

int main(void) {
  RUN_TEST(test_read_every_fixture_file);
  RUN_TEST(test_expected_values);
  RUN_TEST(test_java_stats_pruning);
  TEST_MAIN_END();
}
