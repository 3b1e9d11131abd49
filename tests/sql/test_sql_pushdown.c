/* Pushdown through xBestIndex: every pushable operator returns the same rows with pushdown on and
 * off (paimon_pushdown(0) plans without filters and limits), EXPLAIN QUERY PLAN shows what was
 * pushed (idxStr), and the plan counters (paimon_last_plan()) show the pruning. Over the
 * Java-written fixture tables append_09 (partitioned by f1, 4 files) and append_with_bloomfilter. */
#include "sql/sql_fixture.h"

static sqlite3 *open_db(void) {
  sqlite3 *db = NULL;
  char *err = NULL;
  CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK);
  sqlite3_enable_load_extension(db, 1);
  CHECK_MSG(sqlite3_load_extension(db, SF_EXT, NULL, &err) == SQLITE_OK, "%s", err ? err : "");
  sqlite3_free(err);
  const char *dbs[] = {"append_09", "append_with_bloomfilter", "append_with_multiple_ts_precision_and_timezone"};
  for (int i = 0; i < 3; i++) {
    char *sql = sqlite3_mprintf("SELECT paimon_attach('warehouse=%s', 'database=%s')", PM_SHARED("fixtures/warehouse/parquet"), dbs[i]);
    CHECK_MSG(sqlite3_exec(db, sql, NULL, NULL, &err) == SQLITE_OK, "%s", err ? err : "");
    sqlite3_free(err);
    err = NULL;
    sqlite3_free(sql);
  }
  return db;
}

/* Rows of q as a JSON array of json_array texts (q must select one json_array column). */
static json_t *rows_of(sqlite3 *db, const char *q) {
  json_t *rows = json_array();
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(db, q, -1, &st, NULL);
  CHECK_MSG(rc == SQLITE_OK, "%s: %s", q, sqlite3_errmsg(db));
  while (rc == SQLITE_OK) {
    int s = sqlite3_step(st);
    if (s != SQLITE_ROW) {
      CHECK_MSG(s == SQLITE_DONE, "%s: %s", q, sqlite3_errmsg(db));
      break;
    }
    json_error_t je;
    json_t *v = json_loads((const char *)sqlite3_column_text(st, 0), 0, &je);
    json_array_append_new(rows, v ? v : json_null());
  }
  sqlite3_finalize(st);
  return rows;
}

static char *scalar(sqlite3 *db, const char *q) {
  sqlite3_stmt *st = NULL;
  char *out = NULL;
  if (sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    out = sqlite3_mprintf("%s", sqlite3_column_text(st, 0) ? (const char *)sqlite3_column_text(st, 0) : "");
  sqlite3_finalize(st);
  return out;
}

static char *plan_of(sqlite3 *db, const char *q) {
  char *eqp = sqlite3_mprintf("EXPLAIN QUERY PLAN %s", q);
  sqlite3_stmt *st = NULL;
  char *out = sqlite3_mprintf("");
  if (sqlite3_prepare_v2(db, eqp, -1, &st, NULL) == SQLITE_OK)
    while (sqlite3_step(st) == SQLITE_ROW) {
      char *n = sqlite3_mprintf("%s%s\n", out, (const char *)sqlite3_column_text(st, 3));
      sqlite3_free(out);
      out = n;
    }
  sqlite3_finalize(st);
  sqlite3_free(eqp);
  return out;
}

typedef struct pcase {
  const char *where; /* on table T */
  const char *pushed; /* token expected in idxStr (NULL: none) */
  int64_t rows;       /* expected row count (-1: not checked) */
} pcase;

#define T9 "append_09.append_09"
#define TB "append_with_bloomfilter.append_with_bloomfilter"
#define TS "append_with_multiple_ts_precision_and_timezone.append_with_multiple_ts_precision_and_timezone"

static void check_case(sqlite3 *db, const char *table, const pcase *c) {
  char *q = sqlite3_mprintf("SELECT json_array(*) FROM %s WHERE %s", table, c->where);
  /* json_array(*) is not valid: list the columns */
  sqlite3_free(q);
  char *cols = NULL;
  {
    char *pq = sqlite3_mprintf("SELECT group_concat('\"' || name || '\"', ', ') FROM pragma_table_info('%s', '%.*s')",
                               strchr(table, '.') + 1, (int)(strchr(table, '.') - table), table);
    cols = scalar(db, pq);
    sqlite3_free(pq);
  }
  q = sqlite3_mprintf("SELECT json_array(%s) FROM %s WHERE %s", cols ? cols : "1", table, c->where);
  sqlite3_exec(db, "SELECT paimon_pushdown(1)", NULL, NULL, NULL);
  json_t *on = rows_of(db, q);
  char *plan = plan_of(db, q);
  sqlite3_exec(db, "SELECT paimon_pushdown(0)", NULL, NULL, NULL);
  json_t *off = rows_of(db, q);
  sqlite3_exec(db, "SELECT paimon_pushdown(1)", NULL, NULL, NULL);
  char msg[4096] = "";
  CHECK_MSG(fxc_rows_match(off, on, NULL, msg, sizeof msg), "%s WHERE %s: pushdown changes rows: %s", table, c->where, msg);
  if (c->rows >= 0)
    CHECK_MSG((int64_t)json_array_size(on) == c->rows, "%s WHERE %s: %zu rows, want %lld", table, c->where,
              json_array_size(on), (long long)c->rows);
  if (c->pushed) CHECK_MSG(strstr(plan, c->pushed) != NULL, "WHERE %s: plan %s lacks %s", c->where, plan, c->pushed);
  else CHECK_MSG(strstr(plan, ";") == NULL, "WHERE %s: plan %s pushed something", c->where, plan);
  json_decref(on);
  json_decref(off);
  sqlite3_free(plan);
  sqlite3_free(q);
  sqlite3_free(cols);
}

static int64_t counter(const char *plan, const char *line, const char *what) {
  const char *l = strstr(plan, line);
  const char *w = l ? strstr(l, what) : NULL;
  if (!w) return -1;
  /* the number before `what` */
  const char *p = w;
  while (p > l && p[-1] == ' ') p--;
  while (p > l && p[-1] >= '0' && p[-1] <= '9') p--;
  return strtoll(p, NULL, 10);
}

int main(void) {
  sqlite3 *db = open_db();
  /* append_09 rows (f0, f1 partition, f2, f3): compare counts with the fixture's expectation */
  const pcase c9[] = {
      {"f1 = 10", "eq:1:f1", -1},
      {"f1 < 20", "lt:1:f1", -1},
      {"f1 <= 10", "le:1:f1", -1},
      {"f1 > 10", "gt:1:f1", -1},
      {"f1 >= 20", "ge:1:f1", -1},
      {"f1 != 10", "ne:1:f1", -1},
      {"f1 IN (10, 30)", "in:1:f1", -1},
      {"f1 IN (SELECT 20)", "in:1:f1", -1},
      {"f0 IS NULL", "null:0:f0", 0},
      {"f0 IS NOT NULL", "notnull:0:f0", -1},
      {"f0 LIKE 'A%'", NULL, -1},          /* letters: SQLite's LIKE ignores case, not pushed */
      {"f0 GLOB 'A*'", "prefix:0:f0", -1}, /* GLOB is case-sensitive: pushed */
      {"f0 LIKE '1%'", "prefix:0:f0", -1},
      {"f3 > 12.5", "gt:3:f3", -1},
      {"f3 > 12", "gt:3:f3", -1},
      {"f1 = '10'", "eq:1:f1", -1}, /* text literal: pushed slot, value left to SQLite */
      {"f1 = NULL", "eq:1:f1", 0},
      {"f0 = 'Alice' COLLATE NOCASE", NULL, -1},
      {"f1 = 10 AND f2 = 0", "eq:2:f2", -1},
  };
  for (size_t i = 0; i < sizeof c9 / sizeof *c9; i++) check_case(db, T9, &c9[i]);
  const pcase cb[] = {
      {"f1 = 20", "eq:1:f1", 1},
      {"f1 IS NULL", "null:1:f1", 1},
      {"f1 IN (100, 500, 7)", "in:1:f1", 3},
      {"f4 > '2025-04-25T01:00:00.000000000'", "gt:4:f4", -1},
      {"f4 > '2025-04-25 01:00:00'", "gt:4:f4", -1}, /* other text shape: value left to SQLite */
  };
  for (size_t i = 0; i < sizeof cb / sizeof *cb; i++) check_case(db, TB, &cb[i]);
  /* LIMIT / OFFSET */
  {
    char *plan = plan_of(db, "SELECT f0 FROM " T9 " LIMIT 2 OFFSET 1");
    CHECK_MSG(strstr(plan, "limit") && strstr(plan, "offset"), "%s", plan);
    sqlite3_free(plan);
    json_t *r = rows_of(db, "SELECT json_array(f0) FROM " T9 " LIMIT 2 OFFSET 1");
    CHECK_EQ_INT(json_array_size(r), 2);
    json_decref(r);
    /* the same rows (the read order is the plan's) with the limit pushed and not */
    const char *lq[] = {"SELECT json_array(f0, f1, f2, f3) FROM " T9 " LIMIT 3",
                        "SELECT json_array(f0, f1, f2, f3) FROM " T9 " LIMIT 3 OFFSET 2",
                        "SELECT json_array(f0, f1, f2, f3) FROM " T9 " WHERE f1 >= 20 LIMIT 2 OFFSET 1"};
    for (size_t i = 0; i < sizeof lq / sizeof *lq; i++) {
      json_t *on = rows_of(db, lq[i]);
      sqlite3_exec(db, "SELECT paimon_pushdown(0)", NULL, NULL, NULL);
      json_t *off = rows_of(db, lq[i]);
      sqlite3_exec(db, "SELECT paimon_pushdown(1)", NULL, NULL, NULL);
      CHECK_MSG(json_equal(on, off) && json_array_size(on) > 0, "%s: rows differ with the limit pushed", lq[i]);
      json_decref(on);
      json_decref(off);
    }
    char *n = scalar(db, "SELECT count(*) FROM (SELECT f0 FROM " T9 " LIMIT 100 OFFSET 1)");
    char *all = scalar(db, "SELECT count(*) - 1 FROM " T9);
    CHECK(n && all && !strcmp(n, all));
    sqlite3_free(n);
    sqlite3_free(all);
  }
  /* projection: only the used columns are read */
  {
    char *plan = plan_of(db, "SELECT f2 FROM " T9);
    CHECK_MSG(strstr(plan, "cols:2") != NULL, "%s", plan);
    sqlite3_free(plan);
  }
  /* the plan counters show the pruning: f1 = 10 reads one partition of append_09 */
  {
    char *all = scalar(db, "SELECT count(*) FROM " T9);
    char *p_all = scalar(db, "SELECT paimon_last_plan()");
    char *one = scalar(db, "SELECT count(*) FROM " T9 " WHERE f1 = 10");
    char *p_one = scalar(db, "SELECT paimon_last_plan()");
    CHECK(all && one && p_all && p_one);
    if (p_all && p_one) {
      int64_t planned_all = counter(p_all, "files:", "planned");
      int64_t planned_one = counter(p_one, "files:", "planned");
      int64_t pruned = counter(p_one, "entries:", "pruned by partition");
      fprintf(stderr, "append_09: files planned %lld unfiltered, %lld with f1 = 10 (%lld entries pruned by partition)\n",
              (long long)planned_all, (long long)planned_one, (long long)pruned);
      CHECK(planned_all > planned_one && planned_one >= 1);
      CHECK(pruned >= 1);
    }
    sqlite3_free(all);
    sqlite3_free(one);
    sqlite3_free(p_all);
    sqlite3_free(p_one);
  }
  sqlite3_close(db);
  fprintf(stderr, "%d checks, %d failures\n", pm_test_checks, pm_test_failures);
  return pm_test_failures != 0;
}
