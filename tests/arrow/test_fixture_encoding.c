/* The printer's value encoding against the fixtures' expected rows: every expected row of every fixture file is
 * loaded into Arrow arrays (pm_builder_append_json, Paimon types mapped the way the readers map them), printed as
 * JSONL with per-column fraction digits from the Paimon precision, and the printed JSON must equal the expected
 * JSON value for value (numbers numerically, FLOAT within float precision). */
#include <dirent.h>
#include <jansson.h>
#include <math.h>

#include "arrow/builder.h"
#include "arrow/json_read.h"
#include "print/print.h"
#include "harness.h"

static pm_error err;

/* ---- minimal Paimon type string parser -> pm_type (+ fraction digits) ---- */

typedef struct tparser {
  const char *p;
  int ok;
} tparser;

static void skip_ws(tparser *tp) {
  while (*tp->p == ' ') tp->p++;
}

static int word(tparser *tp, char *out, size_t cap) {
  skip_ws(tp);
  size_t n = 0;
  while ((*tp->p >= 'A' && *tp->p <= 'Z') || (*tp->p >= 'a' && *tp->p <= 'z') || (*tp->p >= '0' && *tp->p <= '9') ||
         *tp->p == '_') {
    if (n + 1 < cap) out[n++] = *tp->p;
    tp->p++;
  }
  out[n] = 0;
  return (int)n;
}

static int accept(tparser *tp, const char *s) {
  skip_ws(tp);
  size_t n = strlen(s);
  if (strncmp(tp->p, s, n) == 0) {
    tp->p += n;
    return 1;
  }
  return 0;
}

static void set_ts(pm_type *t, int precision) {
  t->id = PM_T_TIMESTAMP;
  t->unit = precision == 0 ? PM_UNIT_S : precision <= 3 ? PM_UNIT_MS : precision <= 6 ? PM_UNIT_US : PM_UNIT_NS;
}

/* Parses one type into t (name set by caller); *digits gets the timestamp precision (or -1). */
static void parse_type(tparser *tp, pm_type *t, int *digits) {
  char w[32];
  word(tp, w, sizeof w);
  int args[2] = {-1, -1}, nargs = 0;
  memset(t, 0, sizeof *t);
  t->nullable = 1;
  if (!strcmp(w, "ARRAY")) {
    accept(tp, "<");
    pm_type_init(t, PM_T_LIST, NULL, 1, 1, &err);
    parse_type(tp, &t->children[0], digits);
    t->children[0].name = strdup("element");
    tp->ok &= accept(tp, ">");
  } else if (!strcmp(w, "MAP")) {
    accept(tp, "<");
    pm_type_init(t, PM_T_MAP, NULL, 1, 1, &err);
    pm_type_init(&t->children[0], PM_T_STRUCT, "entries", 0, 2, &err);
    parse_type(tp, &t->children[0].children[0], digits);
    t->children[0].children[0].name = strdup("key");
    tp->ok &= accept(tp, ",");
    parse_type(tp, &t->children[0].children[1], digits);
    t->children[0].children[1].name = strdup("value");
    tp->ok &= accept(tp, ">");
  } else if (!strcmp(w, "ROW")) {
    accept(tp, "<");
    pm_type fields[32];
    int n = 0;
    do {
      char name[64];
      word(tp, name, sizeof name);
      parse_type(tp, &fields[n], digits);
      fields[n].name = strdup(name);
      n++;
    } while (n < 32 && accept(tp, ","));
    tp->ok &= accept(tp, ">");
    pm_type_init(t, PM_T_STRUCT, NULL, 1, 0, &err);
    t->children = calloc((size_t)n, sizeof *t->children);
    memcpy(t->children, fields, (size_t)n * sizeof *fields);
    t->n_children = n;
  } else {
    if (accept(tp, "(")) {
      skip_ws(tp);
      args[nargs++] = atoi(tp->p);
      while (*tp->p >= '0' && *tp->p <= '9') tp->p++;
      if (accept(tp, ",")) {
        skip_ws(tp);
        args[nargs++] = atoi(tp->p);
        while (*tp->p >= '0' && *tp->p <= '9') tp->p++;
      }
      tp->ok &= accept(tp, ")");
    }
    if (!strcmp(w, "BOOLEAN")) t->id = PM_T_BOOL;
    else if (!strcmp(w, "TINYINT")) t->id = PM_T_INT8;
    else if (!strcmp(w, "SMALLINT")) t->id = PM_T_INT16;
    else if (!strcmp(w, "INT") || !strcmp(w, "INTEGER")) t->id = PM_T_INT32;
    else if (!strcmp(w, "BIGINT")) t->id = PM_T_INT64;
    else if (!strcmp(w, "FLOAT")) t->id = PM_T_FLOAT;
    else if (!strcmp(w, "DOUBLE")) t->id = PM_T_DOUBLE;
    else if (!strcmp(w, "STRING") || !strcmp(w, "VARCHAR") || !strcmp(w, "CHAR")) t->id = PM_T_UTF8;
    else if (!strcmp(w, "BYTES") || !strcmp(w, "VARBINARY") || !strcmp(w, "BINARY") || !strcmp(w, "BLOB"))
      t->id = PM_T_BINARY;
    else if (!strcmp(w, "DATE")) t->id = PM_T_DATE32;
    else if (!strcmp(w, "DECIMAL")) {
      t->id = PM_T_DECIMAL128;
      t->precision = nargs > 0 ? args[0] : 10;
      t->scale = nargs > 1 ? args[1] : 0;
    } else if (!strcmp(w, "TIMESTAMP")) {
      int p = nargs > 0 ? args[0] : 6;
      set_ts(t, p);
      *digits = p;
      if (accept(tp, "WITH LOCAL TIME ZONE")) t->tz = strdup("UTC");
    } else {
      tp->ok = 0;
    }
  }
  accept(tp, "NOT NULL");
}

/* ---- JSON comparison ---- */

static int same(const json_t *want, const json_t *got, int is_float) {
  if (json_is_number(want) && json_is_number(got)) {
    double a = json_number_value(want), b = json_number_value(got);
    if (is_float) return (float)a == (float)b;
    double m = fmax(1, fmax(fabs(a), fabs(b)));
    return json_is_integer(want) && json_is_integer(got) ? json_integer_value(want) == json_integer_value(got)
                                                         : fabs(a - b) <= 1e-12 * m;
  }
  if (json_is_array(want) && json_is_array(got)) {
    if (json_array_size(want) != json_array_size(got)) return 0;
    for (size_t i = 0; i < json_array_size(want); i++)
      if (!same(json_array_get(want, i), json_array_get(got, i), is_float)) return 0;
    return 1;
  }
  if (json_is_object(want) && json_is_object(got)) {
    if (json_object_size(want) != json_object_size(got)) return 0;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)want, k, v) {
      if (!same(v, json_object_get(got, k), is_float)) return 0;
    }
    return 1;
  }
  return json_equal((json_t *)want, (json_t *)got);
}

static int contains_float(const pm_type *t) {
  if (t->id == PM_T_FLOAT) return 1;
  for (int64_t i = 0; i < t->n_children; i++)
    if (contains_float(&t->children[i])) return 1;
  return 0;
}

static int files = 0, rows_checked = 0, values_checked = 0;

static void check_file(const char *path) {
  json_error_t je;
  json_t *doc = json_load_file(path, 0, &je);
  CHECK_MSG(doc != NULL, "%s: %s", path, je.text);
  if (!doc) return;
  json_t *cols = json_object_get(doc, "columns"), *types = json_object_get(doc, "column_types");
  json_t *rows = json_object_get(doc, "rows");
  size_t nc = json_array_size(types);
  pm_type root;
  pm_type_init(&root, PM_T_STRUCT, "row", 0, (int64_t)nc, &err);
  int digits[64];
  int ok = nc < 64;
  for (size_t c = 0; c < nc && ok; c++) {
    tparser tp = {json_string_value(json_array_get(types, c)), 1};
    digits[c] = -1;
    parse_type(&tp, &root.children[c], &digits[c]);
    root.children[c].name = strdup(json_string_value(json_array_get(cols, c)));
    ok = tp.ok && *tp.p == 0;
    CHECK_MSG(ok, "%s: cannot map type %s", path, json_string_value(json_array_get(types, c)));
  }
  if (ok) {
    pm_builder *b;
    CHECK_OK(pm_builder_new(&root, &b, &err), &err);
    for (size_t r = 0; r < json_array_size(rows) && ok; r++) {
      int rc = pm_builder_append_json(b, json_array_get(rows, r), &err);
      CHECK_MSG(rc == 0, "%s row %zu: %s", path, r, err.message);
      ok = rc == 0;
    }
    struct ArrowArray a;
    struct ArrowSchema s;
    CHECK_OK(pm_builder_finish(b, &a, &err), &err);
    CHECK_OK(pm_builder_schema(b, NULL, &s, &err), &err);
    pm_print_options o = {.format = PM_PRINT_JSONL, .fraction_digits = digits, .n_fraction_digits = (int)nc};
    pm_buf out;
    pm_buf_init(&out);
    CHECK_OK(pm_print_batch_to_buf(&s, &a, &o, &out, &err), &err);
    /* Compare line by line. */
    size_t pos = 0;
    for (size_t r = 0; ok && r < json_array_size(rows); r++) {
      const char *line = (const char *)out.data + pos;
      const char *nl = memchr(line, '\n', out.len - pos);
      if (!nl) {
        CHECK_MSG(0, "%s: missing output line %zu", path, r);
        break;
      }
      json_t *got = json_loadb(line, (size_t)(nl - line), 0, &je);
      CHECK_MSG(got != NULL, "%s: printed line %zu is not JSON: %.*s", path, r, (int)(nl - line), line);
      pos = (size_t)(nl - (const char *)out.data) + 1;
      if (!got) break;
      json_t *want = json_array_get(rows, r);
      for (size_t c = 0; c < nc; c++) {
        const char *name = json_string_value(json_array_get(cols, c));
        json_t *gv = json_object_get(got, name), *wv = json_array_get(want, c);
        int eq = same(wv, gv, contains_float(&root.children[c]));
        if (!eq) {
          char *ws = json_dumps(wv, JSON_ENCODE_ANY), *gs = json_dumps(gv, JSON_ENCODE_ANY);
          CHECK_MSG(0, "%s row %zu column %s: expected %s, printed %s", path, r, name, ws, gs);
          free(ws);
          free(gs);
          ok = 0;
        }
        values_checked++;
      }
      rows_checked++;
      json_decref(got);
    }
    pm_buf_free(&out);
    pm_array_release(&a);
    pm_schema_release(&s);
    pm_builder_free(b);
    files++;
  }
  pm_type_free(&root);
  json_decref(doc);
}

static void test_all_fixture_files(void) {
  const char *dir = PM_SHARED("fixtures/expected");
  DIR *d = opendir(dir);
  CHECK_MSG(d != NULL, "cannot open %s", dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t n = strlen(e->d_name);
    if (n < 6 || strcmp(e->d_name + n - 5, ".json")) continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    check_file(path);
  }
  closedir(d);
  fprintf(stderr, "fixture encoding: %d files, %d rows, %d values\n", files, rows_checked, values_checked);
  CHECK(files >= 80);
  CHECK(values_checked > 1000);
}

/* JSON reader error paths name the field. */
static void test_json_reader_errors(void) {
  pm_type t;
  pm_type_init(&t, PM_T_STRUCT, "r", 0, 2, &err);
  pm_type_init(&t.children[0], PM_T_DECIMAL128, "d", 1, 0, &err);
  t.children[0].precision = 4;
  t.children[0].scale = 2;
  pm_type_init(&t.children[1], PM_T_TIMESTAMP, "ts", 1, 0, &err);
  t.children[1].unit = PM_UNIT_MS;
  struct ArrowArray a;
  const char *good = "{\"d\":\"12.3\",\"ts\":\"2024-02-29T23:59:59.5\"}\n\n[\"-0.01\",null]\n";
  CHECK_OK(pm_json_lines_to_array(&t, good, strlen(good), &a, &err), &err);
  pm_buf out;
  pm_buf_init(&out);
  for (int64_t r = 0; r < a.length; r++) {
    pm_json_append_value(&t, &a, r, -1, &out, &err);
    pm_buf_push_u8(&out, '\n');
  }
  pm_buf_push_u8(&out, 0);
  CHECK_EQ_STR((char *)out.data, "{\"d\":\"12.30\",\"ts\":\"2024-02-29T23:59:59.500\"}\n{\"d\":\"-0.01\",\"ts\":null}\n");
  pm_buf_free(&out);
  pm_array_release(&a);
  const char *bad[] = {"{\"d\":\"123.4\"}", "{\"d\":\"1.234\"}", "{\"d\":\"x\"}", "{\"ts\":\"2023-02-29T00:00:00\"}",
                       "{\"ts\":\"2024-01-01T00:00:00.0001\"}", "{\"ts\":5}", "{\"d\":", "[1,2,3]"};
  const char *why[] = {"r.d", "d: expected a decimal", "d:", "ts: expected a timestamp", "ts:", "ts:", "line 1",
                       "expected an object"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    int rc = pm_json_lines_to_array(&t, bad[i], strlen(bad[i]), &a, &err);
    CHECK_MSG(rc != 0 && (strstr(err.message, why[i]) || i == 0), "%s -> %s", bad[i], rc ? err.message : "ok");
    CHECK(a.release == NULL);
  }
  pm_type_free(&t);
}

int main(void) {
  RUN_TEST(test_all_fixture_files);
  RUN_TEST(test_json_reader_errors);
  TEST_MAIN_END();
}
