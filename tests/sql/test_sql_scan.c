/* Scans with read options through SQL: the typed form db.t('scan.snapshot-id=1', ...) (hidden
 * paimon_optionN columns) and paimon_scan('db.t', 'k=v', ...) (row_json). A table with three
 * snapshots and a tag: snapshot-id, tag-name, timestamp-millis and incremental-between return
 * the rows of the C API read with the same options and of `paimon-table read --snapshot N`;
 * options apply to their scan only; pushdown still shows in EXPLAIN QUERY PLAN; a primary-key
 * table; a copy of the Java fixture append_09 (5 snapshots); errors; Debian's sqlite3 shell. */
#include "paimon/paimon.h"
#include "sql/sql_write_util.h"

static char WH[256], TDIR[512];

/* The first column of the first row of sql ("" for none, "ERR:msg" for an error). */
static void q1(sqlite3 *db, const char *sql, char *out, size_t cap) {
  sqlite3_stmt *st = NULL;
  out[0] = 0;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) snprintf(out, cap, "%s", sqlite3_column_text(st, 0) ? (const char *)sqlite3_column_text(st, 0) : "");
  else if (rc != SQLITE_DONE) snprintf(out, cap, "ERR:%s", sqlite3_errmsg(db));
  sqlite3_finalize(st);
}

#define EXPECT(db, sql, want)                                                     \
  do {                                                                            \
    char got_[4096];                                                              \
    q1(db, sql, got_, sizeof got_);                                               \
    if (strcmp(got_, want)) fprintf(stderr, "query: %s\n", sql);                  \
    CHECK_EQ_STR(got_, want);                                                     \
  } while (0)

/* Error text of sql; checks it has `needle` and no doubled prefix. */
static void expect_error(sqlite3 *db, const char *sql, const char *needle) {
  char got[4096];
  q1(db, sql, got, sizeof got);
  CHECK_MSG(!strncmp(got, "ERR:", 4) && strstr(got, needle), "%s -> %s (want %s)", sql, got, needle);
  CHECK_MSG(!strstr(got, "paimon: paimon") && !strstr(got, "paimon_scan: paimon"), "doubled prefix: %s", got);
}

/* Ids (column `id`, ascending, comma-separated) the C API reads from db.t with one option. */
static void capi_ids(const char *key, const char *value, char *out, size_t cap) {
  paimon_option co[] = {{"warehouse", WH}};
  paimon_catalog *cat = NULL;
  paimon_table *t = NULL;
  paimon_read_builder *rb = NULL;
  paimon_plan *plan = NULL;
  paimon_error e;
  paimon_option o[] = {{key, value}};
  out[0] = 0;
  CHECK(paimon_catalog_open(co, 1, &cat, &e) == PAIMON_OK);
  CHECK(paimon_catalog_get_table(cat, "db.t", &t, &e) == PAIMON_OK);
  CHECK(paimon_read_builder_new(t, o, 1, &rb, &e) == PAIMON_OK);
  const char *cols[] = {"id"};
  CHECK(paimon_read_builder_with_projection(rb, cols, 1, &e) == PAIMON_OK);
  CHECK(paimon_read_builder_plan(rb, &plan, &e) == PAIMON_OK);
  struct ArrowArrayStream s;
  int ids[64], n = 0;
  CHECK(paimon_read_plan(rb, plan, &s, &e) == PAIMON_OK);
  for (;;) {
    struct ArrowArray a;
    memset(&a, 0, sizeof a);
    CHECK(s.get_next(&s, &a) == 0);
    if (!a.release) break;
    const int32_t *v = a.children[0]->buffers[1];
    for (int64_t i = 0; i < a.length && n < 64; i++) ids[n++] = v[a.children[0]->offset + a.offset + i];
    a.release(&a);
  }
  s.release(&s);
  for (int i = 1; i < n; i++) /* insertion sort */
    for (int j = i; j > 0 && ids[j - 1] > ids[j]; j--) {
      int x = ids[j];
      ids[j] = ids[j - 1];
      ids[j - 1] = x;
    }
  size_t len = 0;
  for (int i = 0; i < n; i++) len += (size_t)snprintf(out + len, cap - len, i ? ",%d" : "%d", ids[i]);
  paimon_plan_free(plan);
  paimon_read_builder_free(rb);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* SQL ids of db.t(opt) equal the C API's and (for a snapshot) paimon-table read's. */
static void same_as_capi(sqlite3 *db, const char *key, const char *value, const char *want, long long snapshot) {
  char sql[512], got[1024], api[1024];
  snprintf(sql, sizeof sql, "SELECT group_concat(id) FROM (SELECT id FROM db.t('%s=%s') ORDER BY id)", key, value);
  q1(db, sql, got, sizeof got);
  CHECK_EQ_STR(got, want);
  capi_ids(key, value, api, sizeof api);
  CHECK_EQ_STR(api, want);
  snprintf(sql, sizeof sql, "SELECT group_concat(json_extract(row_json, '$.id')) FROM (SELECT row_json FROM "
                            "paimon_scan('db.t', '%s=%s') ORDER BY json_extract(row_json, '$.id'))", key, value);
  q1(db, sql, got, sizeof got);
  CHECK_EQ_STR(got, want);
  if (snapshot > 0 && ot_available()) {
    char extra[64];
    snprintf(extra, sizeof extra, "--snapshot %lld", snapshot);
    int rc = -1;
    json_t *rows = ot_read(TDIR, extra, &rc, NULL);
    CHECK_EQ_INT(rc, 0);
    size_t n = rows ? json_array_size(rows) : 0;
    long long sum = 0, wsum = 0, wn = 0;
    for (size_t i = 0; i < n; i++) sum += json_integer_value(json_object_get(json_array_get(rows, i), "id"));
    for (const char *p = want; *p;) {
      wsum += strtoll(p, (char **)&p, 10), wn++;
      if (*p == ',') p++;
    }
    CHECK_EQ_INT((long long)n, wn);
    CHECK_EQ_INT(sum, wsum);
    json_decref(rows);
  }
}

static void shell_check(void) {
  char script[] = "/tmp/sql_scan_XXXXXX";
  int fd = mkstemp(script);
  CHECK(fd >= 0);
  FILE *f = fdopen(fd, "w");
  fprintf(f, ".bail on\n.load %s\n.output /dev/null\nSELECT paimon_attach('warehouse=%s');\n.output stdout\n"
             "SELECT group_concat(id) FROM (SELECT id FROM db.t('scan.snapshot-id=2') ORDER BY id);\n"
             "SELECT count(*) FROM paimon_scan('db.t', 'scan.tag-name=t1');\n",
          SF_EXT, WH);
  fclose(f);
  char cmd[1024], *out = NULL;
  snprintf(cmd, sizeof cmd, SF_FOREIGN_ENV "sqlite3 -batch :memory: < %s 2>&1", script);
  CHECK_EQ_INT(ot_shell(cmd, &out), 0);
  CHECK_EQ_STR(out ? out : "", "1,2,3\n3\n");
  free(out);
  unlink(script);
}

static void fixture_copy(void) {
  char dir[] = "/tmp/sql_scan_fx_XXXXXX", cmd[1024];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(cmd, sizeof cmd, "cp -r '%s' '%s/'", PM_SHARED("fixtures/warehouse/parquet/append_09.db"), dir);
  CHECK_EQ_INT(system(cmd), 0);
  sqlite3 *db = sw_open(dir, 0);
  for (int snap = 1; snap <= 5; snap++) {
    char sql[256], got[64], want[64];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM append_09.append_09('scan.snapshot-id=%d')", snap);
    q1(db, sql, got, sizeof got);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM paimon_scan('append_09.append_09', 'scan.snapshot-id=%d')", snap);
    char got2[64];
    q1(db, sql, got2, sizeof got2);
    CHECK_EQ_STR(got, got2);
    /* paimon-table cannot read this table (ORC manifests): the oracle is the attach-wide read
     * option (another path) on a second connection */
    sqlite3 *db2 = NULL;
    CHECK(sqlite3_open(":memory:", &db2) == SQLITE_OK);
    sqlite3_enable_load_extension(db2, 1);
    CHECK(sqlite3_load_extension(db2, SF_EXT, NULL, NULL) == SQLITE_OK);
    snprintf(sql, sizeof sql, "SELECT paimon_attach('warehouse=%s', 'scan.snapshot-id=%d')", dir, snap);
    CHECK_EQ_INT(sw_exec(db2, sql, NULL, 0), 0);
    q1(db2, "SELECT count(*) FROM append_09.append_09", want, sizeof want);
    CHECK_EQ_STR(got, want);
    sqlite3_close(db2);
    if (snap == 5) EXPECT(db, "SELECT count(*) FROM append_09.append_09", want);
  }
  sqlite3_close(db);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK_EQ_INT(system(cmd), 0);
}

int main(void) {
  snprintf(WH, sizeof WH, "/tmp/sql_scan_XXXXXX");
  CHECK(mkdtemp(WH) != NULL);
  snprintf(TDIR, sizeof TDIR, "%s/db.db/t", WH);
  sqlite3 *db = sw_open(WH, 1);
  CHECK_EQ_INT(sw_exec(db, "CREATE VIRTUAL TABLE db.t USING paimon(id INT NOT NULL, name STRING)", NULL, 0), 0);
  CHECK_EQ_INT(sw_exec(db, "INSERT INTO db.t VALUES (1, 'a'), (2, 'b')", NULL, 0), 0);
  CHECK_EQ_INT(sw_exec(db, "INSERT INTO db.t VALUES (3, 'c')", NULL, 0), 0);
  CHECK_EQ_INT(sw_exec(db, "SELECT paimon_create_tag('db.t', 't1', 2)", NULL, 0), 0);
  usleep(20000); /* snapshot 3 strictly later */
  CHECK_EQ_INT(sw_exec(db, "INSERT INTO db.t VALUES (4, 'd')", NULL, 0), 0);
  CHECK_EQ_INT(sw_latest(TDIR, NULL, 0), 3);

  same_as_capi(db, "scan.snapshot-id", "1", "1,2", 1);
  same_as_capi(db, "scan.snapshot-id", "2", "1,2,3", 2);
  same_as_capi(db, "scan.snapshot-id", "3", "1,2,3,4", 3);
  same_as_capi(db, "scan.tag-name", "t1", "1,2,3", 2);
  same_as_capi(db, "incremental-between", "1,3", "3,4", 0);
  {
    /* timestamp-millis = snapshot 2's timeMillis (from its file): the newest snapshot then is 2 */
    char path[600], ms[64] = "";
    snprintf(path, sizeof path, "%s/snapshot/snapshot-2", TDIR);
    json_error_t je;
    json_t *snap = json_load_file(path, 0, &je);
    CHECK(snap != NULL);
    snprintf(ms, sizeof ms, "%lld", (long long)json_integer_value(json_object_get(snap, "timeMillis")));
    json_decref(snap);
    same_as_capi(db, "scan.timestamp-millis", ms, "1,2,3", 2);
  }
  /* the latest without options; options apply to their scan only */
  EXPECT(db, "SELECT group_concat(id) FROM (SELECT id FROM db.t ORDER BY id)", "1,2,3,4");
  EXPECT(db, "SELECT (SELECT count(*) FROM db.t('scan.snapshot-id=1')) || '|' || (SELECT count(*) FROM db.t)", "2|4");
  EXPECT(db, "SELECT count(*) FROM db.t('scan.snapshot-id=1') a JOIN db.t b ON a.id = b.id", "2");
  /* two options, a later key wins; NULL options are skipped */
  EXPECT(db, "SELECT count(*) FROM db.t('scan.snapshot-id=1', 'scan.snapshot-id=2')", "3");
  EXPECT(db, "SELECT count(*) FROM db.t(NULL)", "4");
  /* the hidden columns hold the options */
  EXPECT(db, "SELECT DISTINCT paimon_option1 FROM db.t('scan.snapshot-id=1')", "scan.snapshot-id=1");
  /* pushdown with options: filter, projection, limit */
  {
    char plan[4096] = "";
    sqlite3_stmt *st = NULL;
    CHECK(sqlite3_prepare_v2(db, "EXPLAIN QUERY PLAN SELECT name FROM db.t('scan.snapshot-id=2') WHERE id = 3", -1, &st, NULL) == SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW) snprintf(plan + strlen(plan), sizeof plan - strlen(plan), "%s\n", sqlite3_column_text(st, 3));
    sqlite3_finalize(st);
    CHECK_MSG(strstr(plan, "opt:1") && strstr(plan, "eq:0:id") && strstr(plan, "cols:0,1"), "%s", plan);
    EXPECT(db, "SELECT name FROM db.t('scan.snapshot-id=2') WHERE id = 3", "c");
    EXPECT(db, "SELECT name FROM db.t('scan.snapshot-id=1') WHERE id = 3", "");
    EXPECT(db, "SELECT count(*) FROM (SELECT id FROM db.t('scan.snapshot-id=3') LIMIT 2)", "2");
  }
  /* errors: one message, no doubled prefix */
  expect_error(db, "SELECT * FROM db.t('scan.snapshot-id')", "'scan.snapshot-id' is not key=value");
  expect_error(db, "SELECT * FROM db.t('scan.snapshot-id=99')", "99");
  expect_error(db, "SELECT * FROM db.t('scan.snapshot-id=abc')", "abc");
  expect_error(db, "SELECT * FROM db.t('scan.tag-name=nope')", "nope");
  expect_error(db, "SELECT * FROM paimon_scan('db.nope')", "nope");
  expect_error(db, "SELECT * FROM paimon_scan('nodb.t')", "database nodb is not attached");
  expect_error(db, "SELECT * FROM paimon_scan('t')", "is not db.table");
  expect_error(db, "SELECT * FROM paimon_scan('db.t', '=1')", "'=1' is not key=value");
  expect_error(db, "SELECT * FROM paimon_scan()", "needs a table");
  /* INSERT still takes the table's columns only */
  CHECK_EQ_INT(sw_exec(db, "INSERT INTO db.t VALUES (5, 'e')", NULL, 0), 0);
  EXPECT(db, "SELECT count(*) FROM db.t('scan.snapshot-id=4')", "5");
  if (ot_available()) CHECK(ot_check_ok(TDIR, 0, "after the scans"));

  /* a primary-key table: the snapshot before an update */
  CHECK_EQ_INT(sw_exec(db, "CREATE VIRTUAL TABLE db.p USING paimon(id INT NOT NULL, v STRING, PRIMARY KEY (id), "
                           "WITH ('bucket' = '1'))", NULL, 0), 0);
  CHECK_EQ_INT(sw_exec(db, "INSERT INTO db.p VALUES (1, 'a'), (2, 'b')", NULL, 0), 0);
  CHECK_EQ_INT(sw_exec(db, "UPDATE db.p SET v = 'z' WHERE id = 1", NULL, 0), 0);
  CHECK_EQ_INT(sw_exec(db, "DELETE FROM db.p WHERE id = 2", NULL, 0), 0);
  EXPECT(db, "SELECT group_concat(id || v) FROM (SELECT * FROM db.p('scan.snapshot-id=1') ORDER BY id)", "1a,2b");
  EXPECT(db, "SELECT group_concat(id || v) FROM (SELECT * FROM db.p('scan.snapshot-id=2') ORDER BY id)", "1z,2b");
  EXPECT(db, "SELECT group_concat(id || v) FROM (SELECT * FROM db.p ORDER BY id)", "1z");
  EXPECT(db, "SELECT group_concat(row_json) FROM paimon_scan('db.p', 'scan.snapshot-id=2')", "{\"id\":1,\"v\":\"z\"},{\"id\":2,\"v\":\"b\"}");
  sqlite3_close(db);

  shell_check();
  fixture_copy();

  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", WH);
  if (!pm_test_failures) CHECK_EQ_INT(system(cmd), 0);
  fprintf(stderr, "%d checks, %d failures\n", pm_test_checks, pm_test_failures);
  return pm_test_failures != 0;
}
