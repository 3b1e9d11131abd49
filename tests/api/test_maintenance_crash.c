/*
 * Partition expiry and manifest compaction (paimon/maintenance.h) stopped at each mutating fs
 * operation in turn (fault fs, _exit in a forked child), on tables written through the public
 * API: afterwards paimon-table check --after-crash passes and the table reads (our reader at
 * every stop; paimon-table read at the end, and at every stop in long mode) exactly as before
 * or as after the operation; a rerun completes it. The oracle (about a second a call) judges
 * every fourth stop and every fourth injected error in normal mode, every one with
 * PAIMON_LONG_TESTS=1; our reader checks every one. An injected I/O error at each operation:
 * the call fails and the table is as it was (or, when the committer's retry still published,
 * as after), check passes. The expected rows are the rows the test wrote.
 */
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "io/fs_fault.h"
#include "meta/core_options.h"
#include "meta/snapshot.h"
#include "paimon/maintenance.h"
#include "table/manifest_compact.h"
#include "table/partition_expire.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/oracle_table.h"
#include "support/oracle_write.h"

static char wh[256];
static paimon_catalog *cat;
static paimon_error err;
static pm_fs *fault_fs;
static int long_mode;

#define R_OLD1 "{\"id\":1,\"v\":\"a\",\"dt\":\"2020-01-01\"}\n{\"id\":2,\"v\":\"b\",\"dt\":\"2020-01-01\"}\n"
#define R_OLD2 "{\"id\":3,\"v\":\"c\",\"dt\":\"2020-01-02\"}\n"
#define R_NEW "{\"id\":5,\"v\":\"e\",\"dt\":\"2999-01-01\"}\n{\"id\":6,\"v\":\"f\",\"dt\":\"2999-01-01\"}\n"
#define R_ABC "{\"id\":7,\"v\":\"g\",\"dt\":\"abc\"}\n"

static json_t *rows_of(const char *lines) {
  size_t bad = 0;
  return ot_parse_lines(lines, &bad);
}

/* The table the operations run on: <wh>/pe.db/work, a fresh copy of <wh>/pe.db/<src>. */
static char work[512];

static void fresh_copy(const char *src) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '%s/pe.db/%s' '%s'", work, wh, src, work);
  CHECK(system(cmd) == 0);
}

/* Our reader on the latest snapshot of the work table equals a (or b). */
static int reads_as(const json_t *a, const json_t *b) {
  paimon_table *t = NULL;
  paimon_error e = {0};
  if (paimon_catalog_get_table(cat, "pe.work", &t, &e)) return 0;
  json_t *got = ow_read_ours(t, &e);
  paimon_table_free(t);
  char msg[512];
  int ok = got && (ot_rows_match(a, got, msg, sizeof msg) || (b && ot_rows_match(b, got, msg, sizeof msg)));
  json_decref(got);
  return ok;
}

static int op_expire(pm_fs *fs) {
  pm_table *t = NULL;
  pm_error e = {0};
  pm_options dyn;
  pm_options_init(&dyn);
  pm_options_set(&dyn, pm_core_option_key(PM_CO_PARTITION_EXPIRATION_TIME), "1 d", &e);
  int rc = pm_table_open_fs(fs, work, "pe", "work", NULL, &dyn, NULL, &t, &e);
  pm_options_clear(&dyn);
  pm_pexpire_config c;
  if (!rc) rc = pm_pexpire_config_from_table(t, &c, &e);
  pm_commit *commit = NULL;
  if (!rc) rc = pm_commit_open(t, "crash-test-expire", 0, &commit, &e);
  if (!rc) rc = pm_partition_expire_run(t, commit, &c, 0, PM_BATCH_COMMIT_IDENTIFIER, 0, NULL, NULL, &e);
  pm_commit_free(commit);
  pm_table_free(t);
  return rc;
}

static int op_compact_manifests(pm_fs *fs) {
  pm_table *t = NULL;
  pm_error e = {0};
  int rc = pm_table_open_fs(fs, work, "pe", "work", NULL, NULL, NULL, &t, &e);
  pm_manifest_compact_result r;
  if (!rc) rc = pm_manifest_compact(t, &r, &e);
  pm_table_free(t);
  return rc;
}

/* A stop between a snapshot and its LATEST hint leaves the hint one behind (test_write_crash
 * allows it too): Java trusts the hint only when the next snapshot is missing. */
static const char *const ONE_BEHIND[] = {"snapshot/LATEST: says 2 but highest snapshot is 3",
                                         "snapshot/LATEST: says 3 but highest snapshot is 4",
                                         "snapshot/LATEST: says 4 but highest snapshot is 5",
                                         "snapshot/LATEST: says 7 but highest snapshot is 8",
                                         "snapshot/LATEST: says 8 but highest snapshot is 9"};
#define N_ONE_BEHIND (sizeof ONE_BEHIND / sizeof ONE_BEHIND[0])

static const pm_fault_op MUTATING[] = {PM_FAULT_OP_CREATE, PM_FAULT_OP_PUBLISH, PM_FAULT_OP_CREATE_IF_ABSENT,
                                       PM_FAULT_OP_DELETE, PM_FAULT_OP_RENAME};

static void run_stops(const char *src, int (*op)(pm_fs *), const char *name, const json_t *before,
                      const json_t *after) {
  char what[200];
  fresh_copy(src);
  pm_fault_fs_disarm(fault_fs);
  CHECK_EQ_INT(op(fault_fs), 0);
  CHECK_MSG(reads_as(after, NULL), "%s: a clean run", name);
  uint64_t counts[5];
  for (int k = 0; k < 5; k++) counts[k] = pm_fault_fs_count(fault_fs, MUTATING[k]);
  int stops = 0, faults = 0;
  for (int k = 0; k < 5; k++)
    for (uint64_t n = 1; n <= counts[k]; n++) {
      fresh_copy(src);
      pm_fault_rule r = {MUTATING[k], n, 1, PM_FAULT_EXIT, 42};
      pid_t pid = fork();
      if (pid == 0) {
        pm_fault_fs_arm(fault_fs, &r);
        _exit(op(fault_fs) ? 1 : 0);
      }
      int st = 0;
      waitpid(pid, &st, 0);
      CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 42, "%s: stop %s #%llu not reached", name,
                pm_fault_op_name(MUTATING[k]), (unsigned long long)n);
      snprintf(what, sizeof what, "%s stopped at %s #%llu", name, pm_fault_op_name(MUTATING[k]), (unsigned long long)n);
      int judge = long_mode || stops % 4 == 0;
      if (judge) CHECK_MSG(ot_check_ok_allowing(work, OT_AFTER_CRASH, ONE_BEHIND, N_ONE_BEHIND, what), "%s", what);
      CHECK_MSG(reads_as(before, after), "%s: reads neither as before nor as after", what);
      if (long_mode) {
        int rc = 0;
        json_t *got = ot_read(work, NULL, &rc, NULL);
        char msg[512];
        CHECK_MSG(got && !rc && (ot_rows_match(before, got, msg, sizeof msg) || ot_rows_match(after, got, msg, sizeof msg)),
                  "%s: paimon-table read", what);
        json_decref(got);
      }
      CHECK_EQ_INT(op(pm_fs_local()), 0); /* a rerun completes it */
      CHECK_MSG(reads_as(after, NULL), "%s: rerun", what);
      if (long_mode) CHECK_MSG(ot_check_ok_allowing(work, OT_AFTER_CRASH, ONE_BEHIND, N_ONE_BEHIND, what), "%s: rerun", what);
      stops++;
      /* an injected I/O error at the same operation */
      fresh_copy(src);
      pm_fault_rule e = {MUTATING[k], n, 1, PM_FAULT_ERROR, 0};
      pm_fault_fs_arm(fault_fs, &e);
      int rc = op(fault_fs);
      pm_fault_fs_disarm(fault_fs);
      snprintf(what, sizeof what, "%s failed at %s #%llu (status %d)", name, pm_fault_op_name(MUTATING[k]),
               (unsigned long long)n, rc);
      if (long_mode || faults % 4 == 1)
        CHECK_MSG(ot_check_ok_allowing(work, 0, ONE_BEHIND, N_ONE_BEHIND, what), "%s", what);
      CHECK_MSG(rc != 0 || reads_as(after, NULL), "%s", what);
      if (rc == 0) CHECK_MSG(reads_as(after, NULL), "%s: OK but not done", what);
      else if (rc == PAIMON_ERR_UNKNOWN_OUTCOME) CHECK_MSG(reads_as(before, after), "%s", what);
      else CHECK_MSG(reads_as(before, NULL), "%s: not as it was", what);
      faults++;
    }
  printf("%s: %d crash stops, %d injected errors\n", name, stops, faults);
  CHECK(stops >= 4);
  /* the last rerun's table, with the independent reader */
  CHECK_MSG(ot_read_equals(work, NULL, after, name), "%s: paimon-table read after the last rerun", name);
}

static void make_table(const char *name, const char *const *batches, size_t n) {
  char ident[128];
  snprintf(ident, sizeof ident, "pe.%s", name);
  CHECK_OK(ow_create_table(cat, "pe", name, "id INT, v STRING, dt STRING", "dt", NULL, 0, 0, &err), &err);
  paimon_table *t = NULL;
  CHECK_OK(paimon_catalog_get_table(cat, ident, &t, &err), &err);
  for (size_t i = 0; t && i < n; i++) CHECK_OK(ow_write_commit(t, NULL, 0, 0, batches[i], NULL, 0, 0, NULL, &err), &err);
  paimon_table_free(t);
}

static void test_expire_crash(void) {
  const char *batches[] = {R_OLD2 R_NEW, R_OLD1 R_ABC};
  make_table("pexp", batches, 2);
  json_t *before = rows_of(R_OLD2 R_NEW R_OLD1 R_ABC), *after = rows_of(R_NEW R_ABC);
  run_stops("pexp", op_expire, "expire-partitions", before, after);
  json_decref(before);
  json_decref(after);
}

static void test_compact_manifests_crash(void) {
  /* six appends and an overwrite of one partition (DELETE entries whose ADDs live in other
   * manifests, the paimon-rust #400 case) */
  const char *batches[] = {R_OLD1, R_OLD2, R_NEW, R_ABC, "{\"id\":9,\"v\":\"i\",\"dt\":\"2020-01-02\"}\n", R_OLD1};
  make_table("cm", batches, 6);
  paimon_table *t = NULL;
  CHECK_OK(paimon_catalog_get_table(cat, "pe.cm", &t, &err), &err);
  paimon_option spec = {"dt", "2020-01-01"};
  if (t)
    CHECK_OK(ow_write_commit(t, NULL, 0, 0, "{\"id\":10,\"v\":\"j\",\"dt\":\"2020-01-01\"}\n", &spec, 1, 1, NULL, &err),
             &err);
  paimon_table_free(t);
  json_t *rows = rows_of("{\"id\":10,\"v\":\"j\",\"dt\":\"2020-01-01\"}\n" R_OLD2 R_NEW R_ABC
                         "{\"id\":9,\"v\":\"i\",\"dt\":\"2020-01-02\"}\n");
  char dir[512];
  snprintf(dir, sizeof dir, "%s/pe.db/cm", wh);
  CHECK(ot_read_equals(dir, NULL, rows, "cm before compaction"));
  run_stops("cm", op_compact_manifests, "compact-manifests", rows, rows);
  /* the compacted work table: one COMPACT snapshot on top, fewer manifests, same records */
  pm_snapshot_manager m = pm_snapshot_manager_of(pm_fs_local(), work, NULL);
  pm_snapshot *s7 = NULL, *s8 = NULL;
  pm_error e = {0};
  CHECK_OK(pm_snapshot_read(&m, 7, &s7, &e), &e);
  CHECK_OK(pm_snapshot_read(&m, 8, &s8, &e), &e);
  if (s7 && s8) {
    CHECK_EQ_STR(s8->commit_kind, "COMPACT");
    CHECK_EQ_INT(s8->total_record_count, s7->total_record_count);
    CHECK_EQ_INT(s8->delta_record_count, 0);
    CHECK(s8->changelog_manifest_list == NULL);
  }
  pm_snapshot_free(s7);
  pm_snapshot_free(s8);
  paimon_table *wt = NULL;
  CHECK_OK(paimon_catalog_get_table(cat, "pe.work", &wt, &err), &err);
  paimon_compact_manifests_result r;
  CHECK_OK(paimon_table_compact_manifests(wt, &r, &err), &err); /* again: nothing to do */
  CHECK_EQ_INT(r.snapshot_id, -1);
  CHECK_EQ_INT(r.manifests_before, 1);
  paimon_table_free(wt);
  /* on the original: the counts, and every earlier snapshot reads as before */
  CHECK_OK(paimon_catalog_get_table(cat, "pe.cm", &wt, &err), &err);
  json_t *snap_rows[8] = {0}; /* our reader here; test_cli_compact_manifests reads fixture snapshots with the oracle */
  for (int id = 1; wt && id <= 7; id++) {
    char v[32];
    snprintf(v, sizeof v, "%d", id);
    paimon_option so = {"scan.snapshot-id", v};
    snap_rows[id] = ow_read_ours_opts(wt, &so, 1, &err);
  }
  CHECK_OK(paimon_table_compact_manifests(wt, &r, &err), &err);
  CHECK_EQ_INT(r.snapshot_id, 8);
  CHECK_EQ_INT(r.manifests_before, 7);
  CHECK_EQ_INT(r.manifests_after, 1);
  paimon_table_free(wt);
  CHECK(ot_check_ok(dir, 0, "cm after compaction"));
  CHECK_OK(paimon_catalog_get_table(cat, "pe.cm", &wt, &err), &err);
  for (int id = 1; wt && id <= 7; id++) {
    char v[32], msg[512];
    snprintf(v, sizeof v, "%d", id);
    paimon_option so = {"scan.snapshot-id", v};
    json_t *got = ow_read_ours_opts(wt, &so, 1, &err);
    CHECK_MSG(got && snap_rows[id] && ot_rows_match(snap_rows[id], got, msg, sizeof msg),
              "snapshot %d after compact-manifests: %s", id, msg);
    json_decref(got);
    json_decref(snap_rows[id]);
  }
  paimon_table_free(wt);
  CHECK(ot_read_equals(dir, "--snapshot 8", rows, "the COMPACT snapshot"));
  json_decref(rows);
}

int main(void) {
  if (!ot_available()) TEST_MAIN_END();
  long_mode = getenv("PAIMON_LONG_TESTS") != NULL;
  snprintf(wh, sizeof wh, "/tmp/pm_maint_crash_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  snprintf(work, sizeof work, "%s/pe.db/work", wh);
  paimon_option o = {"warehouse", wh};
  CHECK_OK(paimon_catalog_open(&o, 1, &cat, &err), &err);
  pm_error e = {0};
  CHECK_EQ_INT(pm_fault_fs_new(pm_fs_local(), &fault_fs, &e), 0);
  ot_cache_enable(1); /* repeated states (a failed call that left the table as it was) judged once */
  RUN_TEST(test_expire_crash);
  RUN_TEST(test_compact_manifests_crash);
  pm_fs_unref(fault_fs);
  paimon_catalog_free(cat);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && system(cmd)) return 1;
  TEST_MAIN_END();
}
