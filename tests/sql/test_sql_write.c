/* DDL and INSERT through the `paimon` SQLite module, judged by the paimon-table oracle (read and
 * check): CREATE VIRTUAL TABLE ... USING paimon(...), INSERT VALUES / SELECT in implicit and
 * explicit transactions, ROLLBACK leaves no snapshot and no new file, a value that does not fit
 * fails the COMMIT naming the column and publishes nothing, a failed statement inside BEGIN ...
 * COMMIT leaves nothing of its rows, two connections inserting concurrently both land, DROP
 * TABLE drops the table. */
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sql/sql_fixture.h"
#include "support/oracle_table.h"

static char WH[256];
static char TDIR[512];

static sqlite3 *open_db(int create) {
  sqlite3 *db = NULL;
  char *err = NULL;
  CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK);
  sqlite3_enable_load_extension(db, 1);
  CHECK_MSG(sqlite3_load_extension(db, SF_EXT, NULL, &err) == SQLITE_OK, "%s", err ? err : "");
  sqlite3_free(err);
  char *sql = sqlite3_mprintf("SELECT paimon_attach('warehouse=%s')", WH);
  CHECK(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK);
  sqlite3_free(sql);
  if (create) CHECK(sqlite3_exec(db, "SELECT paimon_create_database('db')", NULL, NULL, NULL) == SQLITE_OK);
  return db;
}

static int exec(sqlite3 *db, const char *sql, char *msg, size_t cap) {
  char *err = NULL;
  int rc = sqlite3_exec(db, sql, NULL, NULL, &err);
  if (msg) snprintf(msg, cap, "%s", err ? err : "");
  if (rc && !msg) fprintf(stderr, "%s: %s\n", sql, err ? err : "?");
  sqlite3_free(err);
  return rc;
}

/* Number of files under dir (recursively). */
static int count_files(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
    struct stat st;
    if (stat(p, &st)) continue;
    if (S_ISDIR(st.st_mode)) n += count_files(p);
    else n++;
  }
  closedir(d);
  return n;
}

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

static json_t *rows_json(const char *text) {
  json_error_t je;
  json_t *r = json_loads(text, 0, &je);
  CHECK_MSG(r != NULL, "%s", je.text);
  return r;
}

int main(void) {
  snprintf(WH, sizeof WH, "/tmp/sql_write_XXXXXX");
  CHECK(mkdtemp(WH) != NULL);
  snprintf(TDIR, sizeof TDIR, "%s/db.db/t", WH);
  char msg[2048];
  sqlite3 *db = open_db(1);
  CHECK_EQ_INT(exec(db,
                    "CREATE VIRTUAL TABLE db.t USING paimon(id INT NOT NULL, name STRING, amount DECIMAL(10, 2), "
                    "dt STRING NOT NULL, ts TIMESTAMP(3), tags ARRAY<INT>, b BYTES, PRIMARY KEY (id, dt), "
                    "PARTITIONED BY (dt), WITH ('bucket' = '2'))",
                    NULL, 0),
               0);
  /* implicit transactions: one commit each */
  CHECK_EQ_INT(exec(db,
                    "INSERT INTO db.t VALUES (1, 'a', '12.50', '2024-01-01', '2024-01-01T10:00:00.123', '[1, 2]', x'00ff'), "
                    "(2, 'b', 3, '2024-01-02', NULL, NULL, NULL)",
                    NULL, 0),
               0);
  CHECK_EQ_INT(exec(db, "BEGIN; INSERT INTO db.t SELECT id + 10, upper(name), amount, dt, ts, tags, b FROM db.t; "
                        "INSERT INTO db.t (id, dt, name) VALUES (1, '2024-01-01', 'a2'); COMMIT",
                    NULL, 0),
               0);
  json_t *want = rows_json(
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
  int files = count_files(TDIR);
  /* ROLLBACK: no snapshot, no file */
  CHECK_EQ_INT(exec(db, "BEGIN; INSERT INTO db.t (id, dt) VALUES (50, '2024-01-03'); ROLLBACK", NULL, 0), 0);
  CHECK_EQ_INT(latest_snapshot(db), snap);
  CHECK_EQ_INT(count_files(TDIR), files);
  /* a value that does not fit fails the COMMIT, naming the column; nothing of the transaction lands */
  int rc = exec(db, "BEGIN; INSERT INTO db.t (id, dt) VALUES (60, '2024-01-03'); "
                    "INSERT INTO db.t (id, dt, amount) VALUES (61, '2024-01-03', 'not a number'); COMMIT",
                msg, sizeof msg);
  CHECK(rc != 0);
  CHECK_MSG(strstr(msg, "amount") != NULL, "error does not name the column: %s", msg);
  exec(db, "ROLLBACK", msg, sizeof msg);
  CHECK_EQ_INT(latest_snapshot(db), snap);
  CHECK_EQ_INT(count_files(TDIR), files);
  /* a statement failing half way inside BEGIN ... COMMIT: none of its rows land */
  rc = exec(db, "BEGIN; INSERT INTO db.t (id, dt) VALUES (70, '2024-01-03')", msg, sizeof msg);
  CHECK_EQ_INT(rc, 0);
  rc = exec(db, "INSERT INTO db.t (id, dt) SELECT 71, '2024-01-03' UNION ALL SELECT abs(-9223372036854775807 - 1), '2024-01-03'",
            msg, sizeof msg);
  CHECK(rc != 0);
  CHECK_EQ_INT(exec(db, "COMMIT", NULL, 0), 0);
  CHECK_EQ_INT(latest_snapshot(db), snap + 1);
  {
    sqlite3_stmt *st = NULL;
    CHECK(sqlite3_prepare_v2(db, "SELECT group_concat(id) FROM db.t WHERE dt = '2024-01-03'", -1, &st, NULL) == SQLITE_OK);
    CHECK(sqlite3_step(st) == SQLITE_ROW);
    CHECK_EQ_STR((const char *)sqlite3_column_text(st, 0), "70");
    sqlite3_finalize(st);
  }
  /* two connections inserting concurrently both land */
  sqlite3 *db2 = open_db(0);
  CHECK_EQ_INT(exec(db, "BEGIN; INSERT INTO db.t (id, dt) VALUES (80, '2024-01-04')", NULL, 0), 0);
  CHECK_EQ_INT(exec(db2, "BEGIN; INSERT INTO db.t (id, dt) VALUES (81, '2024-01-04')", NULL, 0), 0);
  CHECK_EQ_INT(exec(db2, "COMMIT", NULL, 0), 0);
  CHECK_EQ_INT(exec(db, "COMMIT", NULL, 0), 0);
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
  /* system tables are read-only; DELETE / UPDATE say so */
  CHECK(exec(db, "INSERT INTO db.\"t$snapshots\" (snapshot_id) VALUES (1)", msg, sizeof msg) != 0);
  CHECK(exec(db, "DELETE FROM db.t WHERE id = 1", msg, sizeof msg) != 0);
  CHECK_MSG(strstr(msg, "not supported") != NULL, "%s", msg);
  /* DROP TABLE drops the Paimon table */
  CHECK_EQ_INT(exec(db, "DROP TABLE db.t", NULL, 0), 0);
  CHECK(access(TDIR, F_OK) != 0);
  sqlite3_close(db);
  json_decref(want);
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", WH);
  if (!pm_test_failures) CHECK_EQ_INT(system(cmd), 0);
  fprintf(stderr, "%d checks, %d failures\n", pm_test_checks, pm_test_failures);
  return pm_test_failures != 0;
}
