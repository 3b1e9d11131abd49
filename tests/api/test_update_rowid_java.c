/*
 * Row-id column updates (paimon/update.h) on copies of Java-written data-evolution fixtures:
 * data_evolution_with_dense_stats (Parquet and ORC: a range whose columns two files hold) and
 * append_table_alter_table_with_cast_with_data_evolution (Parquet; partitioned, schema evolved
 * with casts and an added column f6 that no file holds). Each update sets columns of some rows;
 * the expected rows are the fixture's expectation (fixtures/expected) with those values put in
 * at their _ROW_ID. After it our reader returns them, and on Parquet copies paimon-table read
 * does too and paimon-table check --allow-old passes (except the Java Parquet profile on the
 * fixture's own paimon-cpp-written files).
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "support/fixture_copy.h"
#include "support/oracle_table.h"
#include "support/oracle_write.h"
#include "support/rowid_update.h"

static char tmp_root[256];

/* Expected rows of a fixture as objects without system columns; row_ids[i] = _ROW_ID of row i. */
static json_t *expected_rows(const char *file, long long *row_ids, size_t cap) {
  char p[1024];
  snprintf(p, sizeof p, "%s/fixtures/expected/%s", PAIMON_SHARED_DIR, file);
  json_t *j = json_load_file(p, 0, NULL);
  CHECK_MSG(j != NULL, "%s not readable", p);
  json_t *out = json_array();
  if (!j) return out;
  json_t *cols = json_object_get(j, "columns");
  size_t i, c;
  json_t *r, *v;
  json_array_foreach(json_object_get(j, "rows"), i, r) {
    json_t *o = json_object();
    json_array_foreach(r, c, v) {
      const char *name = json_string_value(json_array_get(cols, c));
      if (!strcmp(name, "_ROW_ID")) {
        if (i < cap) row_ids[i] = json_integer_value(v);
      } else if (strcmp(name, "_SEQUENCE_NUMBER")) {
        json_object_set(o, name, v);
      }
    }
    json_array_append_new(out, o);
  }
  json_decref(j);
  return out;
}

typedef struct fx_case {
  const char *format, *name, *expected;
  const char *const *cols;
  size_t n_cols;
  const char *fields, *lines;
  /* the values put in: row id, column, JSON value */
  struct {
    long long row_id;
    const char *col, *value;
  } set[4];
  size_t n_set;
} fx_case;

static void run_case(const fx_case *k) {
  char wh[600], dir[1200], rel[600], ident[300], what[300];
  snprintf(wh, sizeof wh, "%s/%s-%s", tmp_root, k->format, k->name);
  snprintf(rel, sizeof rel, "%s/%s.db", k->format, k->name);
  snprintf(dir, sizeof dir, "%s/%s.db/%s", wh, k->name, k->name);
  snprintf(ident, sizeof ident, "%s.%s", k->name, k->name);
  snprintf(what, sizeof what, "%s %s", k->format, k->name);
  char dst[700];
  snprintf(dst, sizeof dst, "%s/%s.db", wh, k->name);
  CHECK_EQ_INT(fc_copy_fixture(rel, dst), 0);
  long long ids[64];
  json_t *want = expected_rows(k->expected, ids, 64);
  for (size_t s = 0; s < k->n_set; s++)
    for (size_t i = 0; i < json_array_size(want) && i < 64; i++)
      if (ids[i] == k->set[s].row_id)
        json_object_set_new(json_array_get(want, i), k->set[s].col, json_loads(k->set[s].value, JSON_DECODE_ANY, NULL));
  paimon_option wo = {"warehouse", wh};
  paimon_catalog *cat = NULL;
  paimon_table *t = NULL;
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_open(&wo, 1, &cat, &err), &err);
  if (cat) CHECK_OK(paimon_catalog_get_table(cat, ident, &t, &err), &err);
  if (t) CHECK_OK(ru_update_commit(t, 0, 0, k->cols, k->n_cols, k->fields, k->lines, NULL, &err), &err);
  paimon_table_free(t);
  t = NULL;
  if (cat) CHECK_OK(paimon_catalog_get_table(cat, ident, &t, &err), &err);
  json_t *ours = t ? ow_read_ours(t, &err) : NULL;
  char msg[8192];
  CHECK_MSG(ours && ot_rows_match(want, ours, msg, sizeof msg), "%s: our reader: %s", what, ours ? msg : err.message);
  if (!strcmp(k->format, "parquet")) {
    CHECK(ot_read_equals(dir, NULL, want, what));
    /* the fixtures' own Parquet files come from paimon-cpp (root "schema"): allowed; ours must pass */
    static const char *const cpp_files[] = {"Parquet root name \"schema\" (Java: paimon_schema)"};
    CHECK(ot_check_ok_allowing(dir, OT_ALLOW_OLD, cpp_files, 1, what));
  }
  json_decref(ours);
  json_decref(want);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

static const char *const F1_F3[] = {"f1", "f3"};
static const char *const F6_F1[] = {"f6", "f1"};

static const fx_case DENSE = {
    "parquet", "data_evolution_with_dense_stats", "parquet__data_evolution_with_dense_stats__snapshot-2.json",
    F1_F3, 2, "_ROW_ID BIGINT NOT NULL, f3 DOUBLE, f1 INT",
    "{\"_ROW_ID\":1,\"f1\":40,\"f3\":9.5}\n{\"_ROW_ID\":0,\"f1\":null,\"f3\":-1.25}\n",
    {{1, "f1", "40"}, {1, "f3", "9.5"}, {0, "f1", "null"}, {0, "f3", "-1.25"}}, 4};

static void test_dense_stats(void) {
  run_case(&DENSE);
  fx_case orc = DENSE;
  orc.format = "orc";
  orc.expected = "orc__data_evolution_with_dense_stats__snapshot-2.json";
  run_case(&orc);
}

static void test_alter_cast(void) {
  static const fx_case k = {
      "parquet", "append_table_alter_table_with_cast_with_data_evolution",
      "parquet__append_table_alter_table_with_cast_with_data_evolution__snapshot-3.json", F6_F1, 2,
      "_ROW_ID BIGINT NOT NULL, f6 INT, f1 STRING",
      "{\"_ROW_ID\":2,\"f6\":7,\"f1\":\"two\"}\n{\"_ROW_ID\":4,\"f6\":null,\"f1\":\"four\"}\n",
      {{2, "f6", "7"}, {2, "f1", "\"two\""}, {4, "f1", "\"four\""}}, 3};
  run_case(&k);
}

int main(void) {
  if (!ot_available()) TEST_MAIN_END();
  snprintf(tmp_root, sizeof tmp_root, "/tmp/pm_test_update_rowid_java_XXXXXX");
  if (!mkdtemp(tmp_root)) return 1;
  RUN_TEST(test_dense_stats);
  RUN_TEST(test_alter_cast);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (!getenv("PM_KEEP") && !pm_test_failures && system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
  TEST_MAIN_END();
}
