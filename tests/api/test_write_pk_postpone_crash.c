/*
 * Crash and fault tests of the postpone-bucket compaction (issue 12 §2;
 * paimon_table_compact of a `bucket` = -2 table): the template has real
 * buckets in partition pa (an earlier compaction) and pending bucket -2 files
 * in pa and in a new partition pc; every case works on a copy.
 *   - Crashes: a child process runs the compaction on a catalog over the
 *     fault-injecting fs armed to _exit(42) at the Nth operation of one kind
 *     (support/compact_crash.h; make test: 12 stops spread over all the
 *     operations of an unarmed run, PAIMON_LONG_TESTS=1: every one up to 500).
 *     After each stop the latest snapshot is the old one (rows: the model
 *     before) or one COMPACT snapshot on top (the model after), by our reader;
 *     `paimon-table check --after-crash` passes on every 6th stop and at the end
 *     (postpone file names allowed, support/postpone_table.h); the compaction run
 *     again completes with the model after.
 *   - Faults: in process, an injected I/O error at an operation (make test: 10
 *     spread over all; long mode: every one up to 500): PAIMON_ERR_IO leaves
 *     the table as it was, PAIMON_ERR_UNKNOWN_OUTCOME either state, success
 *     the state after; the retry completes; the oracle judges the last case.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "meta/snapshot.h"
#include "table/table.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/compact_crash.h"
#include "support/postpone_table.h"

static char root[256];
static int long_mode;
static pkm_model *before, *after;
static int64_t latest_before;

static pkm_model *new_model(void) {
  pkm_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.engine = PKM_DEDUPLICATE;
  cfg.n_cols = 4;
  cfg.cols = PP_MODEL_COLS;
  cfg.n_keys = 2;
  return pkm_new(&cfg);
}

static void rows_of(int c, const char *dt, pp_row *r, char (*vals)[24], int n) {
  for (int i = 0; i < n; i++) {
    snprintf(vals[i], sizeof vals[i], "c%d-%d", c, i);
    r[i] = (pp_row){(c * 3 + i * 7) % 17, dt, vals[i], c * 100 + i, (c + i) % 4 == 3 ? PKM_DELETE : PKM_INSERT};
  }
}

static void make_template(void) {
  char wh[512];
  snprintf(wh, sizeof wh, "%s/tpl", root);
  CHECK(mkdir(wh, 0755) == 0);
  paimon_catalog *cat = cc_open_plain(wh);
  const char *opts[] = {"postpone.default-bucket-num=2"};
  paimon_table *t = pp_create(cat, "t", opts, 1);
  pkm_model *m = new_model();
  paimon_error err = {0};
  pp_row r[20];
  char vals[20][24];
  for (int c = 0; c < 2; c++) {
    rows_of(c, "pa", r, vals, 20);
    CHECK_OK(pp_write(t, NULL, r, 20, m, &err), &err);
  }
  paimon_compact_result res;
  CHECK_OK(paimon_table_compact(t, NULL, &res, &err), &err);
  pkm_flush(m);
  before = pkm_clone(m);
  for (int c = 2; c < 5; c++) {
    rows_of(c, c == 3 ? "pc" : "pa", r, vals, 20);
    CHECK_OK(pp_write(t, NULL, r, 20, m, &err), &err);
  }
  pkm_flush(m);
  after = m;
  latest_before = 6;
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

static void copy_template(const char *tag, char *wh, size_t cap_wh, char *dir, size_t cap_dir) {
  snprintf(wh, cap_wh, "%s/%s", root, tag);
  snprintf(dir, cap_dir, "%s/d.db/t", wh);
  char cmd[1400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -a '%s/tpl' '%s'", wh, root, wh);
  CHECK(system(cmd) == 0);
}

static int run_compact(paimon_catalog *cat, void *ctx, paimon_error *err) {
  paimon_compact_result *r = ctx;
  memset(r, 0, sizeof *r);
  r->snapshot_id = -1;
  paimon_table *t = NULL;
  int rc = paimon_catalog_get_table(cat, "d.t", &t, err);
  if (!rc) rc = paimon_table_compact(t, NULL, r, err);
  paimon_table_free(t);
  return rc;
}

static int64_t latest_of(const char *dir, char *kind, size_t cap) {
  pm_error err;
  pm_table *t = NULL;
  CHECK_OK(pm_table_open_path(dir, NULL, NULL, NULL, NULL, NULL, &t, &err), &err);
  pm_snapshot_manager sm = pm_table_snapshots(t);
  pm_snapshot *s = NULL;
  CHECK_OK(pm_snapshot_read_latest_checked(&sm, &s, &err), &err);
  int64_t id = s ? s->id : -1;
  snprintf(kind, cap, "%s", s && s->commit_kind ? s->commit_kind : "");
  pm_snapshot_free(s);
  pm_table_free(t);
  return id;
}

/* The table reads as `want` (ours; with oracle also `paimon-table read` and check --after-crash). */
static void expect_rows(const char *wh, const char *dir, const pkm_model *want, int oracle, const char *what) {
  paimon_catalog *cat = cc_open_plain(wh);
  paimon_table *t = NULL;
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_get_table(cat, "d.t", &t, &err), &err);
  json_t *w = pkm_rows(want);
  json_t *ours = t ? ow_read_ours(t, &err) : NULL;
  char msg[8192];
  CHECK_MSG(ours && ot_rows_match(w, ours, msg, sizeof msg), "%s: our reader: %s", what, ours ? msg : err.message);
  json_decref(ours);
  if (oracle) {
    CHECK_MSG(pp_check_ok(dir, OT_AFTER_CRASH, what), "%s", what);
    CHECK_MSG(ot_read_equals(dir, NULL, w, what), "%s", what);
  }
  json_decref(w);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* The state after a stop / fault: the old snapshot and rows, or one COMPACT snapshot and the new rows. */
static int judge(const char *wh, const char *dir, int oracle, const char *what) {
  char kind[16];
  int64_t id = latest_of(dir, kind, sizeof kind);
  int done = id == latest_before + 1;
  CHECK_MSG(id == latest_before || (done && !strcmp(kind, "COMPACT")), "%s: latest %lld %s", what, (long long)id, kind);
  expect_rows(wh, dir, done ? after : before, oracle, what);
  return done;
}

static void rerun(const char *wh, const char *dir, int oracle, const char *what) {
  paimon_catalog *cat = cc_open_plain(wh);
  paimon_compact_result r;
  paimon_error err = {0};
  CHECK_OK(run_compact(cat, &r, &err), &err);
  paimon_catalog_free(cat);
  expect_rows(wh, dir, after, oracle, what);
}

static size_t stops(size_t max, cc_stop **st) {
  char wh[512], dir[600];
  copy_template("count", wh, sizeof wh, dir, sizeof dir);
  uint64_t counts[PM_FAULT_OP_COUNT];
  paimon_compact_result r;
  paimon_error err = {0};
  CHECK_OK(cc_count_ops(wh, run_compact, &r, counts, &err), &err);
  CHECK_EQ_INT(r.snapshot_id, latest_before + 1);
  CHECK_EQ_INT(r.metrics.files_removed, 3); /* the 3 postpone files (2 level-0 runs a bucket: below the trigger) */
  return cc_stops_of(counts, long_mode ? 500 : max, st);
}

static void test_crashes(void) {
  cc_stop *st = NULL;
  size_t n = stops(12, &st);
  int stopped = 0;
  for (size_t i = 0; i < n; i++) {
    char wh[512], dir[600], what[160];
    copy_template("crash", wh, sizeof wh, dir, sizeof dir);
    snprintf(what, sizeof what, "stop at %s #%llu", pm_fault_op_name(st[i].op), (unsigned long long)st[i].nth);
    paimon_compact_result r;
    int code = cc_crash_run(wh, st[i], run_compact, &r);
    CHECK_MSG(code == 42 || code == 0, "%s: child exit %d", what, code);
    stopped += code == 42;
    judge(wh, dir, ot_available() && i % 6 == 0, what);
    rerun(wh, dir, ot_available() && i + 1 == n, what);
  }
  CHECK_MSG(stopped >= (int)n - 1, "%d of %zu runs stopped", stopped, n);
  fprintf(stderr, "%zu crash stops\n", n);
  free(st);
}

static void test_faults(void) {
  cc_stop *st = NULL;
  size_t n = stops(10, &st);
  int by[3] = {0, 0, 0};
  for (size_t i = 0; i < n; i++) {
    char wh[512], dir[600], what[160];
    copy_template("fault", wh, sizeof wh, dir, sizeof dir);
    snprintf(what, sizeof what, "I/O error at %s #%llu", pm_fault_op_name(st[i].op), (unsigned long long)st[i].nth);
    paimon_compact_result r;
    paimon_error err = {0};
    int rc = cc_fault_run(wh, st[i], run_compact, &r, &err);
    int done = judge(wh, dir, 0, what);
    if (!rc) {
      by[0]++;
      CHECK_MSG(done, "%s: succeeded without a snapshot", what);
    } else if (rc == PAIMON_ERR_UNKNOWN_OUTCOME) {
      by[2]++;
    } else {
      by[1]++;
      CHECK_MSG(rc == PAIMON_ERR_IO && strstr(err.message, "injected"), "%s: status %s: %s", what,
                paimon_status_name((paimon_status)rc), err.message);
      CHECK_MSG(!done && r.snapshot_id == -1, "%s: failed (%s) but published", what, err.message);
    }
    rerun(wh, dir, ot_available() && i + 1 == n, what);
  }
  fprintf(stderr, "%zu faults: %d ok, %d io, %d unknown outcome\n", n, by[0], by[1], by[2]);
  CHECK(by[1] > 0);
  free(st);
}

int main(void) {
  long_mode = getenv("PAIMON_LONG_TESTS") && atoi(getenv("PAIMON_LONG_TESTS")) > 0;
  snprintf(root, sizeof root, "/tmp/pm_pk_postpone_crash_XXXXXX");
  if (!mkdtemp(root)) return 1;
  make_template();
  RUN_TEST(test_crashes);
  RUN_TEST(test_faults);
  pkm_free(before);
  pkm_free(after);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  if (!pm_test_failures && !getenv("PM_KEEP") && system(cmd)) return 1;
  TEST_MAIN_END();
}
