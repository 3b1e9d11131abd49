/* Shared by the SQL write tests (test_sql_write.c, test_sql_dml.c): a connection with the
 * extension loaded and a warehouse attached, statements run with their error text, file counts
 * and the latest snapshot of a table directory read from the files (no library code). */
#ifndef PM_TESTS_SQL_WRITE_UTIL_H
#define PM_TESTS_SQL_WRITE_UTIL_H

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sql/sql_fixture.h"
#include "support/oracle_table.h"

static inline sqlite3 *sw_open(const char *wh, int create_db) {
  sqlite3 *db = NULL;
  char *err = NULL;
  CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK);
  sqlite3_enable_load_extension(db, 1);
  CHECK_MSG(sqlite3_load_extension(db, SF_EXT, NULL, &err) == SQLITE_OK, "%s", err ? err : "");
  sqlite3_free(err);
  char *sql = sqlite3_mprintf("SELECT paimon_attach('warehouse=%s')", wh);
  CHECK(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK);
  sqlite3_free(sql);
  if (create_db) CHECK(sqlite3_exec(db, "SELECT paimon_create_database('db')", NULL, NULL, NULL) == SQLITE_OK);
  return db;
}

/* Runs sql; msg (may be NULL: errors go to stderr) gets the error text. */
static inline int sw_exec(sqlite3 *db, const char *sql, char *msg, size_t cap) {
  char *err = NULL;
  int rc = sqlite3_exec(db, sql, NULL, NULL, &err);
  if (msg) snprintf(msg, cap, "%s", err ? err : "");
  if (rc && !msg) fprintf(stderr, "%s: %s\n", sql, err ? err : "?");
  sqlite3_free(err);
  return rc;
}

/* Number of files under dir (recursively). */
static inline int sw_count_files(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
    char p[2048];
    if (snprintf(p, sizeof p, "%s/%s", dir, de->d_name) >= (int)sizeof p) continue;
    struct stat st;
    if (stat(p, &st)) continue;
    if (S_ISDIR(st.st_mode)) n += sw_count_files(p);
    else n++;
  }
  closedir(d);
  return n;
}

/* The highest snapshot id of a table directory (0: none); *kind its commit kind. */
static inline long long sw_latest(const char *table_dir, char *kind, size_t cap) {
  ot_snapshot *s = NULL;
  size_t n = ot_snapshots(table_dir, &s, NULL);
  long long id = n ? s[n - 1].id : 0;
  if (kind) snprintf(kind, cap, "%s", n ? s[n - 1].commit_kind : "");
  free(s);
  return id;
}

/* Snapshots of a table directory other than COMPACT ones (writers may compact on their own). */
static inline long long sw_data_snapshots(const char *table_dir) {
  ot_snapshot *s = NULL;
  size_t n = ot_snapshots(table_dir, &s, NULL);
  long long k = 0;
  for (size_t i = 0; i < n; i++) k += strcmp(s[i].commit_kind, "COMPACT") != 0;
  free(s);
  return k;
}

/* The first column of the first row of sql as text ("" for none / NULL). */
static inline void sw_text(sqlite3 *db, const char *sql, char *out, size_t cap) {
  sqlite3_stmt *st = NULL;
  out[0] = 0;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
      sqlite3_column_text(st, 0))
    snprintf(out, cap, "%s", (const char *)sqlite3_column_text(st, 0));
  else if (!st) fprintf(stderr, "%s: %s\n", sql, sqlite3_errmsg(db));
  sqlite3_finalize(st);
}

static inline json_t *sw_json(const char *text) {
  json_error_t je;
  json_t *r = json_loads(text, 0, &je);
  CHECK_MSG(r != NULL, "%s", je.text);
  return r;
}

#endif
