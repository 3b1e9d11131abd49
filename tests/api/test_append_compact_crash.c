/*
 * Crash and fault tests of append-table compaction (issue 13 §5; paimon/compact.h):
 * two tables written by us, an unaware-bucket one (two partitions of small
 * files: two tasks) and a fixed-bucket one (bucket 2: one task per bucket),
 * each kept as a template that every case copies.
 *   - Crashes: a child process runs paimon_table_compact on a catalog over the
 *     fault-injecting fs armed to _exit(42) at the Nth operation of one kind
 *     (the kinds and counts of an unarmed run enumerated; make test: 10 stops
 *     per table spread over them, PAIMON_LONG_TESTS=1: every one up to 500). After each
 *     stop `paimon-table check --after-crash` passes, our reader returns the
 *     rows written (the model; `paimon-table read` too on every 6th stop), the
 *     latest snapshot is the old one or one COMPACT snapshot on top; the
 *     compaction run again completes with the same rows.
 *   - Faults: in process, an injected I/O error at an operation (make test: 10
 *     per table spread over all; long mode: every one up to 500):
 *     the call fails with PAIMON_ERR_IO (nothing published: the latest
 *     snapshot unchanged) or PAIMON_ERR_UNKNOWN_OUTCOME (published or not,
 *     never half), or succeeds when the failed operation was not needed (a
 *     cleanup delete); the rows never change and the table checks.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api/api_internal.h"
#include "harness.h"
#include "io/fs_fault.h"
#include "paimon/compact.h"
#include "table/catalog.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/compact_crash.h"
#include "support/compact_table.h"

static char root[256];
static int long_mode;

typedef struct layout_case {
  const char *name;
  const char *const *opts;
  size_t n_opts;
  json_t *rows; /* the model */
  int64_t latest;
} layout_case;

static void make_template(layout_case *lc) {
  char wh[512];
  snprintf(wh, sizeof wh, "%s/tpl-%s", root, lc->name);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", wh);
  CHECK(system(cmd) == 0);
  paimon_catalog *cat = cc_open_plain(wh);
  paimon_table *t = ct_append_table(cat, "t", "p", lc->opts, lc->n_opts);
  lc->rows = json_array();
  for (int i = 0; i < 6; i++) ct_append(t, i * 10, i * 10 + 10, "a", lc->rows);
  for (int i = 0; i < 5; i++) ct_append(t, 500 + i * 10, 500 + i * 10 + 10, "b", lc->rows);
  char dir[600];
  snprintf(dir, sizeof dir, "%s/d.db/t", wh);
  lc->latest = ct_files_in(dir, NULL, -1).latest_id;
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* A fresh copy of the template as warehouse wh (table dir in dir). */
static void copy_template(const layout_case *lc, const char *tag, char *wh, size_t cap_wh, char *dir, size_t cap_dir) {
  snprintf(wh, cap_wh, "%s/%s-%s", root, lc->name, tag);
  snprintf(dir, cap_dir, "%s/d.db/t", wh);
  char cmd[1400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -a '%s/tpl-%s' '%s'", wh, root, lc->name, wh);
  CHECK(system(cmd) == 0);
}

/* paimon_table_compact (full) of d.t through catalog cat. */
static int run_compact(paimon_catalog *cat, paimon_compact_result *r, paimon_error *err) {
  memset(r, 0, sizeof *r);
  r->snapshot_id = -1;
  paimon_table *t = NULL;
  int rc = paimon_catalog_get_table(cat, "d.t", &t, err);
  paimon_compact_options o;
  paimon_compact_options_init(&o);
  o.full = 1;
  if (!rc) rc = paimon_table_compact(t, &o, r, err);
  paimon_table_free(t);
  return rc;
}

static int run_cb(paimon_catalog *cat, void *ctx, paimon_error *err) { return run_compact(cat, ctx, err); }

/* Rows of the table equal the model (ours; the oracle with oracle); check (after-crash). */
/* After a stop the LATEST hint may lag (the snapshot was published, the hint not yet written). */
static const char *const stale_hint[] = {"snapshot/LATEST: says "};

static void check_state(const layout_case *lc, const char *wh, const char *dir, int oracle, const char *what) {
  paimon_catalog *cat = cc_open_plain(wh);
  paimon_table *t = NULL;
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_get_table(cat, "d.t", &t, &err), &err);
  if (t) ct_check_rows(t, dir, lc->rows, 0, what);
  if (oracle) CHECK_MSG(ot_read_equals(dir, NULL, lc->rows, what), "%s", what);
  CHECK_MSG(ot_check_ok_allowing(dir, OT_AFTER_CRASH, stale_hint, 1, what), "%s", what);
  ct_layout l = ct_files_in(dir, NULL, -1);
  CHECK_MSG(l.latest_id == lc->latest || (l.latest_id == lc->latest + 1 && !strcmp(l.latest_kind, "COMPACT")),
            "%s: latest %lld %s (before %lld)", what, (long long)l.latest_id, l.latest_kind, (long long)lc->latest);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* Operation counts of one unarmed compaction of a copy. */
static void count_ops(const layout_case *lc, uint64_t counts[PM_FAULT_OP_COUNT]) {
  char wh[512], dir[600];
  copy_template(lc, "count", wh, sizeof wh, dir, sizeof dir);
  paimon_compact_result r;
  paimon_error err = {0};
  CHECK_OK(cc_count_ops(wh, run_cb, &r, counts, &err), &err);
  CHECK_MSG(r.metrics.tasks >= 2, "%s: %lld tasks", lc->name, (long long)r.metrics.tasks);
}

static void test_crashes(layout_case *lc) {
  uint64_t counts[PM_FAULT_OP_COUNT];
  count_ops(lc, counts);
  cc_stop *st = NULL;
  size_t n = cc_stops_of(counts, long_mode ? 500 : 10, &st);
  int stopped = 0;
  for (size_t i = 0; i < n; i++) {
    char wh[512], dir[600], what[160];
    copy_template(lc, "crash", wh, sizeof wh, dir, sizeof dir);
    snprintf(what, sizeof what, "%s: stop at %s #%llu", lc->name, pm_fault_op_name(st[i].op),
             (unsigned long long)st[i].nth);
    paimon_compact_result cr;
    int code = cc_crash_run(wh, st[i], run_cb, &cr);
    CHECK_MSG(code == 42 || code == 0, "%s: child exit %d", what, code);
    stopped += code == 42;
    check_state(lc, wh, dir, i % 6 == 0, what);
    /* the compaction again completes */
    paimon_catalog *cat = cc_open_plain(wh);
    paimon_compact_result r;
    paimon_error err = {0};
    CHECK_OK(run_compact(cat, &r, &err), &err);
    paimon_catalog_free(cat);
    paimon_table *t = NULL;
    cat = cc_open_plain(wh);
    CHECK_OK(paimon_catalog_get_table(cat, "d.t", &t, &err), &err);
    if (t) ct_check_rows(t, dir, lc->rows, 0, what);
    if (i + 1 == n) { /* a rerun with nothing left to do leaves a lagging hint as it was */
      CHECK_MSG(ot_check_ok_allowing(dir, OT_AFTER_CRASH, stale_hint, 1, what), "%s", what);
      CHECK_MSG(ot_read_equals(dir, NULL, lc->rows, what), "%s", what);
    }
    CHECK_MSG(ct_files_in(dir, "a", -1).files < 6, "%s: rerun compacted nothing", what);
    paimon_table_free(t);
    paimon_catalog_free(cat);
  }
  CHECK_MSG(stopped >= (int)n - 1, "%s: %d of %zu runs stopped", lc->name, stopped, n);
  fprintf(stderr, "%s: %zu crash stops\n", lc->name, n);
  free(st);
}

static void test_faults(layout_case *lc) {
  uint64_t counts[PM_FAULT_OP_COUNT];
  count_ops(lc, counts);
  cc_stop *st = NULL;
  size_t n = cc_stops_of(counts, long_mode ? 500 : 10, &st);
  int by[3] = {0, 0, 0};
  for (size_t i = 0; i < n; i++) {
    char wh[512], dir[600], what[160];
    copy_template(lc, "fault", wh, sizeof wh, dir, sizeof dir);
    snprintf(what, sizeof what, "%s: I/O error at %s #%llu", lc->name, pm_fault_op_name(st[i].op),
             (unsigned long long)st[i].nth);
    paimon_compact_result r;
    paimon_error err = {0};
    int rc = cc_fault_run(wh, st[i], run_cb, &r, &err);
    ct_layout l = ct_files_in(dir, NULL, -1);
    if (!rc) {
      by[0]++;
    } else if (rc == PAIMON_ERR_UNKNOWN_OUTCOME) {
      by[2]++;
    } else {
      by[1]++;
      CHECK_MSG(rc == PAIMON_ERR_IO, "%s: status %s: %s", what, paimon_status_name((paimon_status)rc), err.message);
      CHECK_MSG(strstr(err.message, "injected") != NULL, "%s: %s", what, err.message);
      CHECK_MSG(l.latest_id == lc->latest, "%s: failed (%s) but snapshot %lld published", what, err.message,
                (long long)l.latest_id);
      CHECK_MSG(r.snapshot_id == -1, "%s: failed (%s) with snapshot %lld", what, err.message,
                (long long)r.snapshot_id);
    }
    if (!rc) CHECK_EQ_INT(r.snapshot_id, lc->latest + 1);
    /* our reader each time, the oracle's check (and read) every 8th */
    if (i % 8 == 0 || i + 1 == n) check_state(lc, wh, dir, i + 1 == n, what);
    else {
      paimon_catalog *c2 = cc_open_plain(wh);
      paimon_table *t = NULL;
      CHECK_OK(paimon_catalog_get_table(c2, "d.t", &t, &err), &err);
      if (t) ct_check_rows(t, dir, lc->rows, 0, what);
      paimon_table_free(t);
      paimon_catalog_free(c2);
    }
  }
  fprintf(stderr, "%s: %zu faults: %d ok, %d io, %d unknown outcome\n", lc->name, n, by[0], by[1], by[2]);
  CHECK(by[1] > 0);
  free(st);
}

int main(void) {
  if (!ot_available()) TEST_MAIN_END(); /* the oracle judges every state */
  long_mode = getenv("PAIMON_LONG_TESTS") && atoi(getenv("PAIMON_LONG_TESTS")) > 0;
  snprintf(root, sizeof root, "/tmp/pm_append_compact_crash_XXXXXX");
  if (!mkdtemp(root)) return 1;
  static const char *fixed_opts[] = {"bucket=2", "bucket-key=id"};
  layout_case cases[] = {{"unaware", NULL, 0, NULL, 0}, {"fixed", fixed_opts, 2, NULL, 0}};
  for (size_t i = 0; i < 2; i++) make_template(&cases[i]);
  test_crashes(&cases[0]);
  test_crashes(&cases[1]);
  test_faults(&cases[0]);
  test_faults(&cases[1]);
  for (size_t i = 0; i < 2; i++) json_decref(cases[i].rows);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  if (!pm_test_failures && !getenv("PM_KEEP") && system(cmd)) return 1;
  TEST_MAIN_END();
}
