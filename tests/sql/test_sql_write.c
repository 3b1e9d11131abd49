/* DDL and INSERT through the `paimon` SQLite module, judged by the paimon-table oracle (read and
 * check): CREATE VIRTUAL TABLE ... USING paimon(...), INSERT VALUES / SELECT in implicit and
 * explicit transactions, ROLLBACK leaves no snapshot and no new file, a value that does not fit
 * fails the COMMIT naming the column and publishes nothing, a failed statement inside BEGIN ...
 * COMMIT makes the transaction commit nothing, two connections inserting concurrently both land, DROP
 * TABLE drops the table. */
#include "sql/sql_write_util.h"

static char WH[256];
static char TDIR[512];

static sqlite3 *open_db(int create) { return sw_open(WH, create); }

static int64_t latest_snapshot(sqlite3 *db) {
  sqlite3_stmt *st = NULL;
  int64_t v = -1;
  /* a fresh connection sees the table's system tables */
  if (sqlite3_prepare_v2(db, "SELECT coalesce(max(snapshot_id), 0) FROM db.\"t$snapshots\"", -1, &st, NULL) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return v;
}

int main(void) {
  snprintf(WH, sizeof WH, "/tmp/sql_write_XXXXXX");
  CHECK(mkdtemp(WH) != NULL);
  snprintf(TDIR, sizeof TDIR, "%s/db.db/t", WH);
  char msg[2048];
  sqlite3 *db = open_db(1);
  CHECK_EQ_INT(sw_exec(db,
                    "CREATE VIRTUAL TABLE db.t USING paimon(id INT NOT NULL, name STRING, amount DECIMAL(10, 2), "
                    "dt STRING NOT NULL, ts TIMESTAMP(3), tags ARRAY<INT>, b BYTES, PRIMARY KEY (id, dt), "
                    "PARTITIONED BY (dt), WITH ('bucket' = '2'))",
                    NULL, 0),
               0);
  /* implicit transactions: one commit each */
  CHECK_EQ_INT(sw_exec(db,
                    "INSERT INTO db.t VALUES (1, 'a', '12.50', '2024-01-01', '2024-01-01T10:00:00.123', '[1, 2]', x'00ff'), "
                    "(2, 'b', 3, '2024-01-02', NULL, NULL, NULL)",
                    NULL, 0),
               0);
  CHECK_EQ_INT(sw_exec(db, "BEGIN; INSERT INTO db.t SELECT id + 10, upper(name), amount, dt, ts, tags, b FROM db.t; "
                        "INSERT INTO db.t (id, dt, name) VALUES (1, '2024-01-01', 'a2'); COMMIT",
                    NULL, 0),
               0);
  json_t *want = sw_json(
      "[{\"id\":1,\"name\":\"a2\",\"amount\":null,\"dt\":\"2024-01-01\",\"ts\":null,\"tags\":null,\"b\":null},"
      "{\"id\":2,\"name\":\"b\",\"amount\":\"3.00\",\"dt\":\"2024-01-02\",\"ts\":null,\"tags\":null,\"b\":null},"
      "{\"id\":11,\"name\":\"A\",\"amount\":\"12.50\",\"dt\":\"2024-01-01\",\"ts\":\"2024-01-01T10:00:00.123\",\"tags\":[1,2],\"b\":\"AP8=\"},"
      "{\"id\":12,\"name\":\"B\",\"amount\":\"3.00\",\"dt\":\"2024-01-02\",\"ts\":null,\"tags\":null,\"b\":null}]");
  CHECK(ot_read_equals(TDIR, "", want, "after the inserts"));
  /* what SQL reads back agrees */
  {
    sqlite3_stmt *st = NULL;
    CHECK(sqlite3_prepare_v2(db, "SELECT count(*), sum(id), group_concat(name, '') FROM (SELECT * FROM db.t ORDER BY id)", -1, &st, NULL) == SQLITE_OK);
    CHECK(sqlite3_step(st) == SQLITE_ROW);
    CHECK_EQ_INT(sqlite3_column_int64(st, 0), 4);
    CHECK_EQ_INT(sqlite3_column_int64(st, 1), 26);
    CHECK_EQ_STR((const char *)sqlite3_column_text(st, 2), "a2bAB");
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  db = open_db(0);
  int64_t snap = latest_snapshot(db);
  CHECK_EQ_INT(snap, 2);
  int files = sw_count_files(TDIR);
  /* ROLLBACK: no snapshot, no file */
  CHECK_EQ_INT(sw_exec(db, "BEGIN; INSERT INTO db.t (id, dt) VALUES (50, '2024-01-03'); ROLLBACK", NULL, 0), 0);
  CHECK_EQ_INT(latest_snapshot(db), snap);
  CHECK_EQ_INT(sw_count_files(TDIR), files);
  /* a value that does not fit fails the COMMIT, naming the column; nothing of the transaction lands */
  int rc = sw_exec(db, "BEGIN; INSERT INTO db.t (id, dt) VALUES (60, '2024-01-03'); "
                    "INSERT INTO db.t (id, dt, amount) VALUES (61, '2024-01-03', 'not a number'); COMMIT",
                msg, sizeof msg);
  CHECK(rc != 0);
  CHECK_MSG(strstr(msg, "amount") != NULL, "error does not name the column: %s", msg);
  sw_exec(db, "ROLLBACK", msg, sizeof msg);
  CHECK_EQ_INT(latest_snapshot(db), snap);
  CHECK_EQ_INT(sw_count_files(TDIR), files);
  /* a statement failing half way inside BEGIN ... COMMIT: the transaction commits nothing (its
   * COMMIT fails and rolls back), neither the earlier statement's rows nor the failed one's */
  rc = sw_exec(db, "BEGIN; INSERT INTO db.t (id, dt) VALUES (70, '2024-01-03')", msg, sizeof msg);
  CHECK_EQ_INT(rc, 0);
  rc = sw_exec(db, "INSERT INTO db.t (id, dt) SELECT 71, '2024-01-03' UNION ALL SELECT abs(-9223372036854775807 - 1), '2024-01-03'",
            msg, sizeof msg);
  CHECK(rc != 0);
  rc = sw_exec(db, "COMMIT", msg, sizeof msg);
  CHECK(rc != 0);
  CHECK_MSG(strstr(msg, "commits nothing") != NULL, "%s", msg);
  sw_exec(db, "ROLLBACK", msg, sizeof msg);
  CHECK_EQ_INT(latest_snapshot(db), snap);
  CHECK_EQ_INT(sw_count_files(TDIR), files);
  /* an autocommit statement after it lands alone */
  CHECK_EQ_INT(sw_exec(db, "INSERT INTO db.t (id, dt) VALUES (70, '2024-01-03')", NULL, 0), 0);
  CHECK_EQ_INT(latest_snapshot(db), snap + 1);
  /* two connections inserting concurrently both land */
  sqlite3 *db2 = open_db(0);
  CHECK_EQ_INT(sw_exec(db, "BEGIN; INSERT INTO db.t (id, dt) VALUES (80, '2024-01-04')", NULL, 0), 0);
  CHECK_EQ_INT(sw_exec(db2, "BEGIN; INSERT INTO db.t (id, dt) VALUES (81, '2024-01-04')", NULL, 0), 0);
  CHECK_EQ_INT(sw_exec(db2, "COMMIT", NULL, 0), 0);
  CHECK_EQ_INT(sw_exec(db, "COMMIT", NULL, 0), 0);
  sqlite3_close(db2);
  CHECK_EQ_INT(latest_snapshot(db), snap + 3);
  CHECK(ot_check_ok(TDIR, 0, "after the SQL writes"));
  {
    int orc = 0;
    char *e = NULL;
    json_t *rows = ot_read(TDIR, "", &orc, &e);
    CHECK_EQ_INT(orc, 0);
    CHECK_EQ_INT(json_array_size(rows), 7); /* 1, 2, 11, 12, 70, 80, 81 */
    json_decref(rows);
    free(e);
  }
  /* system tables are read-only */
  CHECK(sw_exec(db, "INSERT INTO db.\"t$snapshots\" (snapshot_id) VALUES (1)", msg, sizeof msg) != 0);
  CHECK_MSG(strstr(msg, "read-only") != NULL, "%s", msg);
  /* DROP TABLE drops the Paimon table */
  CHECK_EQ_INT(sw_exec(db, "DROP TABLE db.t", NULL, 0), 0);
  CHECK(access(TDIR, F_OK) != 0);
  sqlite3_close(db);
  json_decref(want);
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", WH);
  if (!pm_test_failures) CHECK_EQ_INT(system(cmd), 0);
  fprintf(stderr, "%d checks, %d failures\n", pm_test_checks, pm_test_failures);
  return pm_test_failures != 0;
}
