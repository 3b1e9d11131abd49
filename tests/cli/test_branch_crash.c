/* Branch create (from a tag), fast-forward and delete stopped at each mutating fs operation in
 * turn (fault fs, _exit in a forked child), on copies of a Java-written primary-key table with a
 * tag t3 and a branch b (from t3, one more commit, a tag of its own): afterwards paimon-table
 * check --after-crash passes (a missing snapshot hint accepted: Java's readers list then, and a
 * commit stopped before its hint leaves the same), main's latest snapshot reads as before or, for
 * fast-forward, as the branch's snapshot of that id when the file is the branch's (never a mix),
 * and rerunning completes the operation (create: after deleting the partial branch, as the API
 * says). Injected I/O errors at each operation: the call fails IO, the table still checks, and a
 * rerun completes. Normal mode judges a spread of the stops with the oracle (every stop runs);
 * PAIMON_LONG_TESTS=1 judges all of them and reads every snapshot. */
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "io/fs_fault.h"
#include "meta/branch.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/cli_fixture.h"

#define T "pk_table_scan_and_read_mor"
#define TT T "." T

static cf_fixture fx;
static char work[1024];
static json_t *b_rows[6]; /* paimon-table read of branch b's snapshots 3 and 4 */

static void fresh_copy(void) {
  char cmd[3000];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '%s' '%s'", work, fx.dir, work);
  CHECK(system(cmd) == 0);
}

static int exists_rel(const char *rel) {
  char p[1400];
  snprintf(p, sizeof p, "%s/%s", work, rel);
  return access(p, F_OK) == 0;
}

static int same_rel(const char *a, const char *b) {
  char pa[1400], pb[1400];
  snprintf(pa, sizeof pa, "%s/%s", work, a);
  snprintf(pb, sizeof pb, "%s/%s", work, b);
  char cmd[3000];
  snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", pa, pb);
  return system(cmd) == 0;
}

static int op_create(pm_fs *fs) {
  pm_error err = {0};
  return pm_branch_create(fs, work, NULL, "c", "t3", -1, 0, NULL, &err);
}
static int op_ff(pm_fs *fs) {
  pm_error err = {0};
  return pm_branch_fast_forward(fs, work, NULL, "b", &err);
}
static int op_delete(pm_fs *fs) {
  pm_error err = {0};
  return pm_branch_delete(fs, work, "b", &err);
}

/* Rerun after a stop or an error: create removes the partial branch first (the API's recovery). */
static int rerun(int (*op)(pm_fs *)) {
  pm_error err = {0};
  if (op == op_create && exists_rel("branch/branch-c")) {
    int rc = pm_branch_delete(pm_fs_local(), work, "c", &err);
    if (rc) return rc;
  }
  if (op == op_delete && !exists_rel("branch/branch-b")) return 0;
  return op(pm_fs_local());
}

/* Main's snapshots read as before (fast-forward: as b's where the file is b's). Normal mode:
 * the highest snapshot only. */
static void main_reads(const char *what) {
  int longm = getenv("PAIMON_LONG_TESTS") != NULL, hi = 0;
  for (int id = 1; id <= 5; id++) {
    char rel[64];
    snprintf(rel, sizeof rel, "snapshot/snapshot-%d", id);
    if (exists_rel(rel)) hi = id;
  }
  CHECK_MSG(hi >= 2, "%s: main lost its snapshots (highest %d)", what, hi);
  for (int id = longm ? 1 : hi; id <= hi; id++) {
    char rel[64], brel[96], extra[32];
    snprintf(rel, sizeof rel, "snapshot/snapshot-%d", id);
    snprintf(brel, sizeof brel, "branch/branch-b/snapshot/snapshot-%d", id);
    if (!exists_rel(rel)) continue;
    const json_t *want = id >= 3 && id <= 4 && exists_rel(brel) && same_rel(rel, brel) ? b_rows[id] : fx.rows[id];
    snprintf(extra, sizeof extra, "--snapshot %d", id);
    CHECK(ot_read_equals(work, extra, want, what));
  }
}

static const char *const ALLOWED[] = {"hint file missing", "no schema-N files", "no schema/ directory"};

static void check_done(int (*op)(pm_fs *), int judge, const char *what) {
  if (judge) CHECK_MSG(ot_check_ok(work, OT_ALLOW_OLD | OT_AFTER_CRASH, what), "%s", what);
  if (op == op_create) {
    CHECK_MSG(same_rel("snapshot/snapshot-3", "branch/branch-c/snapshot/snapshot-3") &&
                  same_rel("tag/tag-t3", "branch/branch-c/tag/tag-t3") && exists_rel("branch/branch-c/snapshot/LATEST"),
              "%s: branch c incomplete", what);
    if (judge) CHECK(ot_read_equals(work, "--branch c", fx.rows[3], what));
  } else if (op == op_ff) {
    CHECK_MSG(!exists_rel("snapshot/snapshot-5") && same_rel("snapshot/snapshot-4", "branch/branch-b/snapshot/snapshot-4") &&
                  exists_rel("tag/tag-bt") && same_rel("snapshot/snapshot-1", "snapshot/snapshot-1"),
              "%s: fast-forward incomplete", what);
    if (judge) CHECK(ot_read_equals(work, NULL, b_rows[4], what));
  } else {
    CHECK_MSG(!exists_rel("branch/branch-b"), "%s: branch b left", what);
  }
}

static const pm_fault_op MUTATING[] = {PM_FAULT_OP_CREATE, PM_FAULT_OP_PUBLISH, PM_FAULT_OP_CREATE_IF_ABSENT,
                                       PM_FAULT_OP_DELETE, PM_FAULT_OP_RENAME};

static void run_stops(int (*op)(pm_fs *), const char *name) {
  pm_error err = {0};
  pm_fs *ff = NULL;
  CHECK_EQ_INT(pm_fault_fs_new(pm_fs_local(), &ff, &err), 0);
  fresh_copy();
  pm_fault_fs_disarm(ff);
  CHECK_EQ_INT(op(ff), 0);
  uint64_t counts[5], total = 0;
  for (int k = 0; k < 5; k++) total += counts[k] = pm_fault_fs_count(ff, MUTATING[k]);
  int longm = getenv("PAIMON_LONG_TESTS") != NULL;
  uint64_t stride = longm || total <= 2 ? 1 : (total + 1) / 2, idx = 0;
  int stops = 0, judged = 0;
  for (int k = 0; k < 5; k++)
    for (uint64_t n = 1; n <= counts[k]; n++, idx++) {
      int judge = idx % stride == 0 || idx + 1 == total;
      char what[200];
      fresh_copy();
      pm_fault_rule r = {MUTATING[k], n, 1, PM_FAULT_EXIT, 42};
      pid_t pid = fork();
      if (pid == 0) {
        pm_fault_fs_arm(ff, &r);
        _exit(op(ff) ? 1 : 0);
      }
      int st = 0;
      waitpid(pid, &st, 0);
      CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 42, "%s: stop %s #%llu not reached", name,
                pm_fault_op_name(MUTATING[k]), (unsigned long long)n);
      snprintf(what, sizeof what, "%s stopped at %s #%llu", name, pm_fault_op_name(MUTATING[k]), (unsigned long long)n);
      if (judge) {
        CHECK_MSG(ot_check_ok_allowing(work, OT_AFTER_CRASH | OT_ALLOW_OLD, ALLOWED, 3, what), "%s", what);
        main_reads(what);
        judged++;
      }
      pm_fault_fs_disarm(ff);
      CHECK_EQ_INT(rerun(op), 0);
      snprintf(what, sizeof what, "%s rerun after a stop at %s #%llu", name, pm_fault_op_name(MUTATING[k]),
               (unsigned long long)n);
      /* the completed table: judged by the oracle once per operation in normal mode */
      check_done(op, longm ? judge : idx + 1 == total, what);
      stops++;
      /* an injected I/O error at the same operation */
      fresh_copy();
      pm_fault_rule e = {MUTATING[k], n, 1, PM_FAULT_ERROR, 0};
      pm_fault_fs_arm(ff, &e);
      CHECK_EQ_INT(op(ff), PAIMON_ERR_IO);
      pm_fault_fs_disarm(ff);
      snprintf(what, sizeof what, "%s failed at %s #%llu", name, pm_fault_op_name(MUTATING[k]), (unsigned long long)n);
      if (judge && longm) CHECK_MSG(ot_check_ok_allowing(work, OT_ALLOW_OLD, ALLOWED, 3, what), "%s", what);
      CHECK_EQ_INT(rerun(op), 0);
      check_done(op, 0, what);
    }
  printf("%s: %d crash stops (%d judged by the oracle), %d injected errors\n", name, stops, judged, stops);
  CHECK(stops >= 3);
  pm_fs_unref(ff);
}

static void test_create_crash(void) { run_stops(op_create, "branch create c --tag t3"); }
static void test_fast_forward_crash(void) { run_stops(op_ff, "fast-forward main to b"); }
static void test_delete_crash(void) { run_stops(op_delete, "branch delete b"); }

static void prepare(void) {
  char *out = NULL, args[3000], path[1200];
  snprintf(path, sizeof path, "%s/row.jsonl", fx.wh);
  FILE *f = fopen(path, "w");
  if (f) {
    fputs("{\"f0\":\"Zed\",\"f1\":10,\"f2\":1,\"f3\":1.5}\n", f);
    fclose(f);
  }
  snprintf(args, sizeof args, "tag create " TT " t3 --snapshot 3 && '%s' -w '%s' branch create " TT " b --tag t3 && '%s' -w '%s' table import '" TT "$branch_b' '%s' && '%s' -w '%s' tag create '" TT "$branch_b' bt",
           CF_CLI, fx.wh, CF_CLI, fx.wh, path, CF_CLI, fx.wh);
  CHECK_MSG(cf_cli(&fx, args, &out) == 0, "%s", out ? out : "");
  free(out);
  for (int id = 3; id <= 4; id++) {
    char extra[64];
    snprintf(extra, sizeof extra, "--branch b --snapshot %d", id);
    int rc = 0;
    b_rows[id] = ot_read(fx.dir, extra, &rc, NULL);
    CHECK(b_rows[id] && !rc);
  }
}

int main(void) {
  if (cf_setup(&fx, "pm_branch_crash", T)) return 1;
  if (!ot_available()) {
    printf("SKIP: paimon-table oracle not available\n");
    return 0;
  }
  snprintf(work, sizeof work, "%s/w", fx.wh);
  CHECK_EQ_INT(cf_record_snapshots(&fx, 1, 5), 0);
  prepare();
  ot_cache_enable(1);
  RUN_TEST(test_create_crash);
  RUN_TEST(test_fast_forward_crash);
  RUN_TEST(test_delete_crash);
  for (int i = 0; i < 6; i++) json_decref(b_rows[i]);
  if (cf_teardown(&fx, !pm_test_failures)) return 1;
  TEST_MAIN_END();
}
