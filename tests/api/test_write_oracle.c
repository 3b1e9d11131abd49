/*
 * The write tests' oracle helpers (tests/support/oracle_table.h) on Java-written
 * fixture tables: paimon-table check passes on a copy and catches a stray
 * temporary file (allowed only with --after-crash); paimon-table read equals
 * the fixture expectation as a multiset and a changed, missing or extra row
 * is reported; the model and the snapshot listing behave as documented.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "support/fixture_copy.h"
#include "support/oracle_table.h"

#define FIX_TABLE "parquet/append_table_with_alter_table.db/append_table_with_alter_table"
#define FIX_EXPECTED "parquet__append_table_with_alter_table__snapshot-2.json"

static char tmp_root[256];

static void copy_fixture(const char *rel, char *dst, size_t cap) {
  snprintf(dst, cap, "%s/t", tmp_root);
  CHECK(fc_copy_fixture(rel, dst) == 0);
}

static json_t *expected_rows(void) {
  json_error_t je;
  json_t *e = json_load_file(PAIMON_SHARED_DIR "/fixtures/expected/" FIX_EXPECTED, 0, &je);
  CHECK(e != NULL);
  if (!e) return json_array();
  json_t *cols = json_object_get(e, "columns");
  const char *names[64];
  size_t n = json_array_size(cols);
  for (size_t i = 0; i < n && i < 64; i++) names[i] = json_string_value(json_array_get(cols, i));
  json_t *rows = ot_rows_from_arrays(json_object_get(e, "rows"), names, n);
  json_decref(e);
  return rows;
}

static void test_check_and_stray_file(void) {
  char dir[512];
  copy_fixture(FIX_TABLE, dir, sizeof dir);
  CHECK(ot_check_ok(dir, OT_ALLOW_OLD, "fixture copy"));
  /* a leftover temporary file: FAIL, unless after a crash */
  char path[600];
  snprintf(path, sizeof path, "%s/snapshot/.snapshot-3.tmp", dir);
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (f) {
    fputs("{", f);
    fclose(f);
  }
  char *rep = NULL;
  CHECK(ot_check(dir, OT_ALLOW_OLD, &rep) == 1);
  CHECK_MSG(rep && strstr(rep, "temporary"), "report: %s", rep ? rep : "");
  free(rep);
  CHECK(ot_check_ok(dir, OT_ALLOW_OLD | OT_AFTER_CRASH, "stray tmp after crash"));
  /* a snapshot whose record count lies: caught */
  snprintf(path, sizeof path, "%s/snapshot/snapshot-2", dir);
  char cmd[1400];
  snprintf(cmd, sizeof cmd, "sed -i 's/\"totalRecordCount\" : 10/\"totalRecordCount\" : 11/' '%s'", path);
  CHECK(system(cmd) == 0);
  CHECK(ot_check(dir, OT_ALLOW_OLD | OT_AFTER_CRASH, NULL) == 1);
}

static void test_read_multiset(void) {
  char dir[512];
  copy_fixture(FIX_TABLE, dir, sizeof dir);
  json_t *exp = expected_rows();
  CHECK(json_array_size(exp) == 10);
  CHECK(ot_read_equals(dir, NULL, exp, "fixture expectation"));
  /* order does not matter */
  json_t *rev = json_array();
  for (size_t i = json_array_size(exp); i-- > 0;) json_array_append(rev, json_array_get(exp, i));
  CHECK(ot_read_equals(dir, NULL, rev, "reversed"));
  json_decref(rev);
  int rc = -1;
  json_t *got = ot_read(dir, NULL, &rc, NULL);
  CHECK_EQ_INT(rc, 0);
  char msg[4096];
  /* one value changed */
  json_t *changed = json_deep_copy(exp);
  json_object_set_new(json_array_get(changed, 3), "k", json_integer(-1));
  CHECK(!ot_rows_match(changed, got, msg, sizeof msg));
  CHECK_MSG(strstr(msg, "missing") && strstr(msg, "unexpected"), "%s", msg);
  /* a row missing / duplicated (a multiset, not a set) */
  json_t *fewer = json_deep_copy(exp);
  json_array_remove(fewer, 0);
  CHECK(!ot_rows_match(fewer, got, msg, sizeof msg));
  json_t *dup = json_deep_copy(exp);
  json_array_append(dup, json_array_get(exp, 0));
  CHECK(!ot_rows_match(dup, got, msg, sizeof msg));
  json_array_remove(dup, 1);
  CHECK(!ot_rows_match(dup, got, msg, sizeof msg));
  /* a null vs a missing key vs 0 */
  json_t *nul = json_deep_copy(exp);
  json_object_set_new(json_array_get(nul, 2), "d", json_integer(0));
  CHECK(!ot_rows_match(nul, got, msg, sizeof msg));
  /* float tolerance: 0.1 as float32 equals 0.1 */
  json_t *a = json_loads("[{\"x\":0.1}]", 0, NULL), *b = json_loads("[{\"x\":0.10000000149011612}]", 0, NULL);
  CHECK(ot_rows_match(a, b, msg, sizeof msg));
  json_t *c = json_loads("[{\"x\":0.11}]", 0, NULL);
  CHECK(!ot_rows_match(a, c, msg, sizeof msg));
  json_decref(a);
  json_decref(b);
  json_decref(c);
  json_decref(changed);
  json_decref(fewer);
  json_decref(dup);
  json_decref(nul);
  json_decref(got);
  json_decref(exp);
}

static void test_snapshots_listing(void) {
  char dir[512];
  copy_fixture(FIX_TABLE, dir, sizeof dir);
  ot_snapshot *s = NULL;
  size_t gaps = 9;
  size_t n = ot_snapshots(dir, &s, &gaps);
  CHECK_EQ_INT(n, 2);
  CHECK_EQ_INT(gaps, 0);
  if (n == 2) {
    CHECK_EQ_INT(s[1].id, 2);
    CHECK_EQ_INT(s[1].schema_id, 1);
    CHECK_EQ_INT(s[1].commit_identifier, 2);
    CHECK_EQ_INT(s[1].total_record_count, 10);
    CHECK_EQ_STR(s[1].commit_kind, "APPEND");
    CHECK_EQ_STR(s[1].commit_user, "e021334b-d50c-4b4d-b8bb-512f99facb74");
  }
  free(s);
  char cmd[700];
  snprintf(cmd, sizeof cmd, "rm '%s/snapshot/snapshot-1'", dir);
  CHECK(system(cmd) == 0);
  n = ot_snapshots(dir, &s, &gaps);
  CHECK_EQ_INT(n, 1);
  CHECK_EQ_INT(gaps, 1);
  free(s);
}

static void test_model(void) {
  ot_model m;
  ot_model_init(&m);
  json_t *b1 = json_loads("[{\"p\":1,\"v\":\"a\"},{\"p\":2,\"v\":\"b\"},{\"p\":null,\"v\":\"c\"}]", 0, NULL);
  json_t *b2 = json_loads("[{\"p\":1,\"v\":\"d\"}]", 0, NULL);
  ot_model_append(&m, b1);
  CHECK_EQ_INT(json_array_size(m.live), 3);
  const char *keys[1] = {"p"};
  json_t *one = json_integer(1), *nul = json_null();
  const json_t *vals[1] = {one};
  ot_model_overwrite(&m, keys, vals, 1, b2);
  char msg[1024];
  json_t *want = json_loads("[{\"p\":2,\"v\":\"b\"},{\"p\":null,\"v\":\"c\"},{\"p\":1,\"v\":\"d\"}]", 0, NULL);
  CHECK_MSG(ot_rows_match(want, m.live, msg, sizeof msg), "%s", msg);
  vals[0] = nul;
  ot_model_delete_where(&m, keys, vals, 1);
  CHECK_EQ_INT(json_array_size(m.live), 2);
  ot_model_delete_where(&m, NULL, NULL, 0);
  CHECK_EQ_INT(json_array_size(m.live), 0);
  /* batches by id */
  json_t *batches = json_array();
  json_array_append(batches, b1);
  json_array_append(batches, b2);
  long long ids[2] = {1, 0};
  json_t *r = ot_batches_rows(batches, ids, 2);
  CHECK(r && json_array_size(r) == 4);
  json_decref(r);
  long long twice[2] = {1, 1};
  CHECK(ot_batches_rows(batches, twice, 2) == NULL);
  json_decref(batches);
  json_decref(want);
  json_decref(one);
  json_decref(nul);
  json_decref(b1);
  json_decref(b2);
  ot_model_clear(&m);
}

int main(void) {
  RUN_TEST(test_model);
  if (!ot_available()) TEST_MAIN_END();
  snprintf(tmp_root, sizeof tmp_root, "/tmp/pm_test_write_oracle_XXXXXX");
  if (!mkdtemp(tmp_root)) return 1;
  RUN_TEST(test_snapshots_listing);
  RUN_TEST(test_check_and_stray_file);
  RUN_TEST(test_read_multiset);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (!getenv("PM_KEEP") && system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
  TEST_MAIN_END();
}
