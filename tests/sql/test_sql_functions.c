/* The catalog / maintenance SQL functions (paimon_create_tag, paimon_compact, paimon_rollback,
 * paimon_create_branch, paimon_expire_snapshots, paimon_remove_orphan_files, paimon_delete_tag,
 * paimon_delete_branch, paimon_alter_table, paimon_drop_database) over a table written through SQL, judged by a fresh
 * connection's system tables and the paimon-table oracle (read, check). */
#include <dirent.h>
#include <unistd.h>

#include "sql/sql_fixture.h"
#include "support/oracle_table.h"

static char *one(sqlite3 *db, const char *q) {
  sqlite3_stmt *st = NULL;
  char *out = NULL;
  int rc = sqlite3_prepare_v2(db, q, -1, &st, NULL);
  if (!rc && sqlite3_step(st) == SQLITE_ROW)
    out = sqlite3_mprintf("%s", sqlite3_column_text(st, 0) ? (const char *)sqlite3_column_text(st, 0) : "NULL");
  else out = sqlite3_mprintf("ERROR %s", sqlite3_errmsg(db));
  sqlite3_finalize(st);
  return out;
}

static sqlite3 *open_db(const char *wh) {
  sqlite3 *db = NULL;
  CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK);
  sqlite3_enable_load_extension(db, 1);
  CHECK(sqlite3_load_extension(db, SF_EXT, NULL, NULL) == SQLITE_OK);
  char *q = sqlite3_mprintf("SELECT paimon_attach('warehouse=%s')", wh);
  CHECK(sqlite3_exec(db, q, NULL, NULL, NULL) == SQLITE_OK);
  sqlite3_free(q);
  return db;
}

#define EXPECT(db, q, want)                                                  \
  do {                                                                      \
    char *got_ = one(db, q);                                                \
    CHECK_MSG(strstr(got_, want) != NULL, "%s: got %s, want %s", q, got_, want); \
    sqlite3_free(got_);                                                     \
  } while (0)

static int count_threads(void) {
  DIR *d = opendir("/proc/self/task");
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));) n += e->d_name[0] != '.';
  if (d) closedir(d);
  return n;
}

int main(void) {
  char wh[] = "/tmp/sql_fn_XXXXXX";
  CHECK(mkdtemp(wh) != NULL);
  char dir[256];
  snprintf(dir, sizeof dir, "%s/db.db/t", wh);
  sqlite3 *db = open_db(wh);
  CHECK(sqlite3_exec(db, "SELECT paimon_create_database('db'); "
                         "CREATE VIRTUAL TABLE db.t USING paimon(id INT NOT NULL, v STRING, PRIMARY KEY (id), WITH ('bucket' = '1')); "
                         "INSERT INTO db.t VALUES (1, 'a'); INSERT INTO db.t VALUES (2, 'b'); INSERT INTO db.t VALUES (1, 'c')",
                     NULL, NULL, NULL) == SQLITE_OK);
  EXPECT(db, "SELECT paimon_create_tag('db.t', 't1', 2)", "created tag t1 of snapshot 2");
  EXPECT(db, "SELECT paimon_create_tag('db.t', 't1', 2)", "ERROR");
  EXPECT(db, "SELECT paimon_compact('db.t', 1)", "compacted: 3 files removed, 1 added, snapshot 4");
  EXPECT(db, "SELECT paimon_create_branch('db.t', 'dev', 't1')", "created branch dev from tag t1");
  sqlite3 *db2 = open_db(wh); /* a fresh attach sees the tag, the branch and the compaction */
  EXPECT(db2, "SELECT group_concat(tag_name) FROM db.\"t$tags\"", "t1");
  EXPECT(db2, "SELECT group_concat(commit_kind) FROM db.\"t$snapshots\"", "APPEND,APPEND,APPEND,COMPACT");
  EXPECT(db2, "SELECT group_concat(id || v) FROM (SELECT * FROM db.\"t$branch_dev\" ORDER BY id)", "1a,2b");
  sqlite3_close(db2);
  /* the module starts no thread of its own (threads=1 by default): writes, compaction and
   * reads above ran on this thread, so closing db2 (which unloads nothing in use) is safe */
  CHECK_EQ_INT(count_threads(), 1);
  EXPECT(db, "SELECT paimon_expire_snapshots('db.t', 1)", "expired 3 snapshots");
  EXPECT(db, "SELECT paimon_rollback('db.t', 't1')", "rolled back to tag t1");
  EXPECT(db, "SELECT paimon_rollback('db.t', 99)", "ERROR paimon_rollback:");
  json_error_t je;
  json_t *want = json_loads("[{\"id\":1,\"v\":\"a\"},{\"id\":2,\"v\":\"b\"}]", 0, &je);
  CHECK(ot_read_equals(dir, "", want, "after the rollback to t1"));
  json_decref(want);
  EXPECT(db, "SELECT paimon_remove_orphan_files('db.t', 0, 1)", "would delete 0 orphan files");
  EXPECT(db, "SELECT paimon_delete_tag('db.t', 't1')", "deleted tag t1");
  EXPECT(db, "SELECT paimon_delete_branch('db.t', 'dev')", "deleted branch dev");
  CHECK(ot_check_ok(dir, 0, "after the maintenance functions"));
  /* paimon_alter_table: the changes in one new schema; a new connection sees and writes the new column */
  EXPECT(db, "SELECT paimon_alter_table('db.t', 'ADD COLUMN c BIGINT', 'RENAME COLUMN v TO name', "
             "'SET snapshot.num-retained.max = 70')",
         "altered db.t: 3 changes");
  EXPECT(db, "SELECT paimon_alter_table('db.t', 'DROP COLUMN nope')", "ERROR paimon_alter_table:");
  EXPECT(db, "SELECT paimon_alter_table('db.t', 'FROB x')", "ERROR paimon_alter_table: change 'FROB x': expected");
  db2 = open_db(wh);
  CHECK(sqlite3_exec(db2, "INSERT INTO db.t VALUES (3, 'c', 30)", NULL, NULL, NULL) == SQLITE_OK);
  EXPECT(db2, "SELECT group_concat(id || name || coalesce(c, '-')) FROM (SELECT * FROM db.t ORDER BY id)", "1a-,2b-,3c30");
  EXPECT(db2, "SELECT value FROM db.\"t$options\" WHERE key = 'snapshot.num-retained.max'", "70");
  sqlite3_close(db2);
  want = json_loads("[{\"id\":1,\"name\":\"a\",\"c\":null},{\"id\":2,\"name\":\"b\",\"c\":null},"
                    "{\"id\":3,\"name\":\"c\",\"c\":30}]",
                    0, &je);
  CHECK(ot_read_equals(dir, "", want, "after paimon_alter_table"));
  json_decref(want);
  CHECK(ot_check_ok(dir, 0, "after paimon_alter_table"));
  EXPECT(db, "SELECT paimon_drop_database('db')", "ERROR"); /* not empty */
  EXPECT(db, "SELECT paimon_drop_database('db', 1)", "dropped database db");
  CHECK(access(dir, F_OK) != 0);
  sqlite3_close(db);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures) CHECK_EQ_INT(system(cmd), 0);
  fprintf(stderr, "%d checks, %d failures\n", pm_test_checks, pm_test_failures);
  return pm_test_failures != 0;
}
