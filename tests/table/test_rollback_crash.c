/* Rollback and tag delete stopped at each mutating fs operation in turn (fault fs, _exit in a
 * forked child), on copies of a Java-written primary-key table with tags: afterwards
 * paimon-table check --after-crash passes, the snapshots the rollback keeps read as before
 * (paimon-table read), and rerunning the operation completes it (check OK, later snapshots and
 * tags gone). Injected I/O errors at each operation: the call fails IO, the table still checks,
 * and a rerun completes. */
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "io/fs_fault.h"
#include "meta/tag.h"
#include "table/rollback.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/oracle_table.h"

#define T "pk_table_scan_and_read_mor"

static char base[256], work[512];
static json_t *rows[6];

static void fresh_copy(void) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '%s/t' '%s'", work, base, work);
  CHECK(system(cmd) == 0);
}

static int op_rollback(pm_fs *fs) {
  pm_snapshot_manager m = pm_snapshot_manager_of(fs, work, NULL);
  pm_error err = {0};
  return pm_rollback_to_snapshot(&m, 3, &err);
}

static int op_tag_delete(pm_fs *fs) {
  pm_snapshot_manager m = pm_snapshot_manager_of(fs, work, NULL);
  pm_error err = {0};
  return pm_tag_delete_file(&m, "t4", &err);
}

static int exists_rel(const char *rel) {
  char p[1024];
  snprintf(p, sizeof p, "%s/%s", work, rel);
  return access(p, F_OK) == 0;
}

/* flags < 0: only the file set (normal mode, after an injected error: the crash stops judged the
 * same states with the oracle). */
static void check_done(int (*op)(pm_fs *), int flags, const char *what) {
  if (flags < 0 && getenv("PAIMON_LONG_TESTS")) flags = 0;
  if (flags >= 0) CHECK_MSG(ot_check_ok(work, OT_ALLOW_OLD | flags, what), "%s", what);
  if (op == op_rollback) {
    CHECK_MSG(!exists_rel("snapshot/snapshot-4") && !exists_rel("snapshot/snapshot-5") && !exists_rel("tag/tag-t4"),
              "%s: later snapshots / tags left", what);
    if (flags >= 0) CHECK(ot_read_equals(work, NULL, rows[3], what));
  } else {
    CHECK_MSG(!exists_rel("tag/tag-t4") && exists_rel("tag/tag-t2"), "%s", what);
  }
}

/* A stop between moving LATEST and deleting the snapshot above it: the hint one behind, the
 * state a commit stopped between its snapshot and its hint leaves (test_write_crash allows it). */
static const char *const ONE_BEHIND[] = {"snapshot/LATEST: says 4 but highest snapshot is 5",
                                         "snapshot/LATEST: says 3 but highest snapshot is 4"};

static const pm_fault_op MUTATING[] = {PM_FAULT_OP_CREATE, PM_FAULT_OP_PUBLISH, PM_FAULT_OP_CREATE_IF_ABSENT,
                                       PM_FAULT_OP_DELETE, PM_FAULT_OP_RENAME};

static void run_stops(int (*op)(pm_fs *), const char *name) {
  pm_error err = {0};
  pm_fs *ff = NULL;
  CHECK_EQ_INT(pm_fault_fs_new(pm_fs_local(), &ff, &err), 0);
  fresh_copy();
  pm_fault_fs_disarm(ff);
  CHECK_EQ_INT(op(ff), 0);
  uint64_t counts[5];
  int stops = 0, faults = 0;
  for (int k = 0; k < 5; k++) counts[k] = pm_fault_fs_count(ff, MUTATING[k]);
  for (int k = 0; k < 5; k++)
    for (uint64_t n = 1; n <= counts[k]; n++) {
      char what[160];
      /* a crash before the nth operation of this kind */
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
      snprintf(what, sizeof what, "%s stopped at %s #%llu", name, pm_fault_op_name(MUTATING[k]),
               (unsigned long long)n);
      CHECK_MSG(ot_check_ok_allowing(work, OT_AFTER_CRASH | OT_ALLOW_OLD, ONE_BEHIND, 2, what), "%s", what);
      for (int id = getenv("PAIMON_LONG_TESTS") ? 1 : 3; id <= 3; id++) {
        char extra[32];
        snprintf(extra, sizeof extra, "--snapshot %d", id);
        CHECK(ot_read_equals(work, extra, rows[id], what));
      }
      pm_fault_fs_disarm(ff);
      int want = op == op_tag_delete && !exists_rel("tag/tag-t4") ? PAIMON_ERR_NOT_FOUND : 0;
      CHECK_EQ_INT(op(pm_fs_local()), want);
      snprintf(what, sizeof what, "%s rerun after a stop at %s #%llu", name, pm_fault_op_name(MUTATING[k]),
               (unsigned long long)n);
      check_done(op, OT_AFTER_CRASH, what);
      stops++;
      /* an injected I/O error at the same operation */
      fresh_copy();
      pm_fault_rule e = {MUTATING[k], n, 1, PM_FAULT_ERROR, 0};
      pm_fault_fs_arm(ff, &e);
      CHECK_EQ_INT(op(ff), PAIMON_ERR_IO);
      pm_fault_fs_disarm(ff);
      snprintf(what, sizeof what, "%s failed at %s #%llu", name, pm_fault_op_name(MUTATING[k]),
               (unsigned long long)n);
      CHECK_MSG(ot_check_ok_allowing(work, OT_ALLOW_OLD, ONE_BEHIND, 2, what), "%s", what);
      CHECK_EQ_INT(op(pm_fs_local()), 0);
      check_done(op, -1, what);
      faults++;
    }
  printf("%s: %d crash stops, %d injected errors\n", name, stops, faults);
  CHECK(stops >= 1);
  pm_fs_unref(ff);
}

static void test_rollback_crash(void) { run_stops(op_rollback, "rollback to snapshot 3"); }
static void test_tag_delete_crash(void) { run_stops(op_tag_delete, "tag delete t4"); }

int main(void) {
  snprintf(base, sizeof base, "/tmp/pm_rollback_crash_XXXXXX");
  if (!mkdtemp(base)) return 1;
  snprintf(work, sizeof work, "%s/w", base);
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "cp -r '%s/fixtures/warehouse/parquet/" T ".db/" T "' '%s/t' && chmod -R u+w '%s'",
           PAIMON_SHARED_DIR, base, base);
  if (system(cmd)) return 1;
  if (!ot_available()) {
    printf("SKIP: paimon-table oracle not available\n");
    return 0;
  }
  char t[600];
  snprintf(t, sizeof t, "%s/t", base);
  pm_snapshot_manager m = pm_snapshot_manager_of(pm_fs_local(), t, NULL);
  pm_error err = {0};
  CHECK_EQ_INT(pm_tag_create(&m, "t2", 2, -1, 0, NULL, &err), 0);
  CHECK_EQ_INT(pm_tag_create(&m, "t4", 4, 86400000, 0, NULL, &err), 0);
  for (int id = 1; id <= 3; id += 2) { /* the snapshots the stops read back */
    char extra[32];
    snprintf(extra, sizeof extra, "--snapshot %d", id);
    int rc = 0;
    rows[id] = ot_read(t, extra, &rc, NULL);
  }
  ot_cache_enable(1); /* repeated states (a stop and an error at one operation) judged once */
  RUN_TEST(test_rollback_crash);
  RUN_TEST(test_tag_delete_crash);
  for (int i = 0; i < 6; i++) json_decref(rows[i]);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
  if (!pm_test_failures && system(cmd)) return 1;
  TEST_MAIN_END();
}
