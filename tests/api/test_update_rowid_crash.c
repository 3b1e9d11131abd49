/*
 * Crash and fault tests of a row-id column update and its commit (paimon/update.h) on a
 * data-evolution table we write (two appends of 3 and 4 rows: two row-id ranges), kept as a
 * template that every case copies. The operation updates `name` of rows 0 and 5 (both ranges)
 * and commits.
 *   - Crashes: a child process runs it on a catalog over the fault-injecting fs armed to
 *     _exit(42) at the Nth operation of one kind (kinds and counts of an unarmed run; make
 *     test: 10 stops spread over them, PAIMON_LONG_TESTS=1: every one up to 500). After each
 *     stop the table reads as before or as after (our reader every time; `paimon-table check
 *     --after-crash` every 5th stop, `read` at the end), the latest snapshot is the old one or one more;
 *     the update run again completes with the rows as after.
 *   - Faults: in process, an injected I/O error at an operation (make test: 10; long: all up to
 *     500): PAIMON_ERR_IO leaves the table as before (latest snapshot unchanged),
 *     PAIMON_ERR_UNKNOWN_OUTCOME as before or after, PAIMON_OK as after; the table checks.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/compact_crash.h"
#include "support/compact_table.h"
#include "support/oracle_table.h"
#include "support/oracle_write.h"
#include "support/rowid_update.h"

static char root[256];
static int long_mode;
static json_t *before_rows, *after_rows;
static int64_t latest_before;

static const char *const stale_hint[] = {"snapshot/LATEST: says "};

static void make_template(void) {
  char wh[512];
  snprintf(wh, sizeof wh, "%s/tpl", root);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", wh);
  CHECK(system(cmd) == 0);
  paimon_catalog *cat = cc_open_plain(wh);
  static const char *const opts[] = {"row-tracking.enabled=true", "data-evolution.enabled=true"};
  paimon_error err = {0};
  CHECK_OK(ow_create_table(cat, "d", "t", "id INT, name STRING, score INT", NULL, opts, 2, 0, &err), &err);
  paimon_table *t = NULL;
  before_rows = json_array();
  const char *batches[2] = {"{\"id\":0,\"name\":\"a0\",\"score\":0}\n{\"id\":1,\"name\":\"a1\",\"score\":1}\n"
                            "{\"id\":2,\"name\":\"a2\",\"score\":2}\n",
                            "{\"id\":3,\"name\":\"a3\",\"score\":3}\n{\"id\":4,\"name\":\"a4\",\"score\":4}\n"
                            "{\"id\":5,\"name\":\"a5\",\"score\":5}\n{\"id\":6,\"name\":\"a6\",\"score\":6}\n"};
  for (int b = 0; b < 2; b++) {
    CHECK_OK(paimon_catalog_get_table(cat, "d.t", &t, &err), &err);
    CHECK_OK(ow_write_commit(t, NULL, 0, 0, batches[b], NULL, 0, 0, NULL, &err), &err);
    paimon_table_free(t);
  }
  for (int i = 0; i < 7; i++) {
    char nm[8];
    snprintf(nm, sizeof nm, "a%d", i);
    json_array_append_new(before_rows, json_pack("{s:i, s:s, s:i}", "id", i, "name", nm, "score", i));
  }
  after_rows = json_deep_copy(before_rows);
  json_object_set_new(json_array_get(after_rows, 0), "name", json_string("new0"));
  json_object_set_new(json_array_get(after_rows, 5), "name", json_string("new5"));
  char dir[600];
  snprintf(dir, sizeof dir, "%s/d.db/t", wh);
  latest_before = ct_files_in(dir, NULL, -1).latest_id;
  CHECK_EQ_INT(latest_before, 2);
  paimon_catalog_free(cat);
}

static void copy_template(const char *tag, char *wh, size_t cap_wh, char *dir, size_t cap_dir) {
  snprintf(wh, cap_wh, "%s/%s", root, tag);
  snprintf(dir, cap_dir, "%s/d.db/t", wh);
  char cmd[1400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -a '%s/tpl' '%s'", wh, root, wh);
  CHECK(system(cmd) == 0);
}

static int run_update(paimon_catalog *cat, void *ctx, paimon_error *err) {
  (void)ctx;
  paimon_table *t = NULL;
  int rc = paimon_catalog_get_table(cat, "d.t", &t, err);
  const char *cols[] = {"name"};
  if (!rc)
    rc = ru_update_commit(t, 0, 0, cols, 1, "_ROW_ID BIGINT NOT NULL, name STRING",
                          "{\"_ROW_ID\":5,\"name\":\"new5\"}\n{\"_ROW_ID\":0,\"name\":\"new0\"}\n", NULL, err);
  paimon_table_free(t);
  return rc;
}

/* 0: as before, 1: as after, -1: neither (our reader). */
static int state_of(const char *wh) {
  paimon_catalog *cat = cc_open_plain(wh);
  paimon_table *t = NULL;
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_get_table(cat, "d.t", &t, &err), &err);
  json_t *rows = t ? ow_read_ours(t, &err) : NULL;
  char msg[4096];
  int s = !rows ? -1 : ot_rows_match(before_rows, rows, msg, sizeof msg) ? 0 : ot_rows_match(after_rows, rows, msg, sizeof msg) ? 1 : -1;
  if (s < 0) fprintf(stderr, "rows neither before nor after: %s\n", rows ? msg : err.message);
  json_decref(rows);
  paimon_table_free(t);
  paimon_catalog_free(cat);
  return s;
}

static void check_oracle(const char *dir, int state, int read, const char *what) {
  CHECK_MSG(ot_check_ok_allowing(dir, OT_AFTER_CRASH, stale_hint, 1, what), "%s", what);
  if (read) CHECK_MSG(ot_read_equals(dir, NULL, state ? after_rows : before_rows, what), "%s", what);
}

static size_t stops(cc_stop **st) {
  char wh[512], dir[600];
  copy_template("count", wh, sizeof wh, dir, sizeof dir);
  uint64_t counts[PM_FAULT_OP_COUNT];
  paimon_error err = {0};
  CHECK_OK(cc_count_ops(wh, run_update, NULL, counts, &err), &err);
  return cc_stops_of(counts, long_mode ? 500 : 10, st);
}

static void test_crashes(void) {
  cc_stop *st = NULL;
  size_t n = stops(&st);
  int stopped = 0, after = 0;
  for (size_t i = 0; i < n; i++) {
    char wh[512], dir[600], what[160];
    copy_template("crash", wh, sizeof wh, dir, sizeof dir);
    snprintf(what, sizeof what, "stop at %s #%llu", pm_fault_op_name(st[i].op), (unsigned long long)st[i].nth);
    int code = cc_crash_run(wh, st[i], run_update, NULL);
    CHECK_MSG(code == 42 || code == 0, "%s: child exit %d", what, code);
    stopped += code == 42;
    int s = state_of(wh);
    CHECK_MSG(s >= 0, "%s: the table is neither as before nor as after", what);
    after += s == 1;
    ct_layout l = ct_files_in(dir, NULL, -1);
    CHECK_MSG(l.latest_id == latest_before + (s == 1), "%s: latest %lld, rows as %s", what, (long long)l.latest_id,
              s == 1 ? "after" : "before");
    if (i % 5 == 0) check_oracle(dir, s, long_mode, what);
    if (s == 0) { /* again: completes */
      paimon_catalog *cat = cc_open_plain(wh);
      paimon_error err = {0};
      CHECK_OK(run_update(cat, NULL, &err), &err);
      paimon_catalog_free(cat);
      CHECK_MSG(state_of(wh) == 1, "%s: the rerun did not update", what);
      if (i + 1 == n) check_oracle(dir, 1, 1, what);
    }
  }
  CHECK_MSG(stopped >= (int)n - 1, "%d of %zu runs stopped", stopped, n);
  fprintf(stderr, "%zu crash stops (%d left the update published)\n", n, after);
  free(st);
}

static void test_faults(void) {
  cc_stop *st = NULL;
  size_t n = stops(&st);
  int by[3] = {0, 0, 0};
  for (size_t i = 0; i < n; i++) {
    char wh[512], dir[600], what[160];
    copy_template("fault", wh, sizeof wh, dir, sizeof dir);
    snprintf(what, sizeof what, "I/O error at %s #%llu", pm_fault_op_name(st[i].op), (unsigned long long)st[i].nth);
    paimon_error err = {0};
    int rc = cc_fault_run(wh, st[i], run_update, NULL, &err);
    int s = state_of(wh);
    ct_layout l = ct_files_in(dir, NULL, -1);
    if (!rc) {
      by[0]++;
      CHECK_MSG(s == 1, "%s: ok but the rows are not updated", what);
    } else if (rc == PAIMON_ERR_UNKNOWN_OUTCOME) {
      by[2]++;
      CHECK_MSG(s >= 0, "%s: unknown outcome, rows half updated", what);
    } else {
      by[1]++;
      CHECK_MSG(rc == PAIMON_ERR_IO, "%s: status %s: %s", what, paimon_status_name((paimon_status)rc), err.message);
      CHECK_MSG(strstr(err.message, "injected") != NULL, "%s: %s", what, err.message);
      CHECK_MSG(s == 0 && l.latest_id == latest_before, "%s: failed (%s) but published", what, err.message);
    }
    if (i == 0 || i + 1 == n) check_oracle(dir, s == 1, i + 1 == n || long_mode, what);
  }
  fprintf(stderr, "%zu faults: %d ok, %d io, %d unknown outcome\n", n, by[0], by[1], by[2]);
  CHECK(by[1] > 0);
  free(st);
}

int main(void) {
  if (!ot_available()) TEST_MAIN_END();
  long_mode = getenv("PAIMON_LONG_TESTS") && atoi(getenv("PAIMON_LONG_TESTS")) > 0;
  snprintf(root, sizeof root, "/tmp/pm_update_rowid_crash_XXXXXX");
  if (!mkdtemp(root)) return 1;
  make_template();
  test_crashes();
  test_faults();
  json_decref(before_rows);
  json_decref(after_rows);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  if (!getenv("PM_KEEP") && !pm_test_failures && system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
  TEST_MAIN_END();
}
