/*
 * Snapshot expiry stopped at each mutating fs operation in turn (fault fs, _exit in a forked
 * child) and failed there with an injected I/O error, on copies of a table written by us
 * (partitioned append table, overwrites, a tag, snapshot.clean-empty-directories): after each
 * stop every file a remaining snapshot or tag needs exists (walker over all of them), the
 * retained snapshots and the tag read as before (ours; paimon-table too for sampled stops, all
 * of them with PAIMON_LONG_TESTS=1), paimon-table check --after-crash passes (sampled the same
 * way); rerunning the expiry succeeds and, with orphan cleanup for what the stop left behind,
 * the table holds every file (same bytes) of the uninterrupted run's end state, plus at most
 * unneeded data files whose DELETE entry is in the retained earliest snapshot's delta; the next
 * expiry (retain 1) then ends both byte for byte alike (hidden temporary files aside).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "io/fs_fault.h"
#include "support/expire_check.h"
#include "support/fixture_copy.h"
#include "table/expire.h"
#include "table/orphan_clean.h"

static char tmp_root[256], base[300], work[300];
static paimon_catalog *cat;
static ec_record rec; /* snapshots 6, 7 and tag t3 (both readers) */
static char *final_tree, *final2_tree;

static const pm_fault_op MUTATING[] = {PM_FAULT_OP_CREATE, PM_FAULT_OP_PUBLISH, PM_FAULT_OP_CREATE_IF_ABSENT,
                                       PM_FAULT_OP_DELETE, PM_FAULT_OP_RENAME};

/* A stop after the snapshot files went and before EARLIEST moved: the hint behind, as Java
 * (which deletes snapshot files, then writes the hint) leaves it too. */
static const char *const STALE_EARLIEST[] = {"snapshot/EARLIEST: says "};

static void fresh_copy(void) { CHECK(fc_copy_tree_keep_times(base, work) == 0); }

static char *tree(void) { return fc_tree_digest(work, 1); }

static int g_retain = 2;

static pm_expire_config config(void) {
  pm_expire_config c;
  memset(&c, 0, sizeof c);
  c.retain_min = c.retain_max = g_retain;
  c.max_deletes = 1000;
  c.changelog_retain_min = c.changelog_retain_max = 2;
  return c;
}

static int expire_on(pm_fs *fs) {
  pm_table *t = NULL;
  pm_error err = {0};
  int rc = pm_table_open_fs(fs, work, "db", "t", NULL, NULL, NULL, &t, &err);
  pm_expire_config c = config();
  if (!rc) rc = pm_expire_snapshots(t, &c, NULL, NULL, NULL, &err);
  pm_table_free(t);
  return rc;
}

/* Rerun, then orphan cleanup of the leftovers (every file of the copy is two days old). */
static void complete(const char *what) {
  CHECK_MSG(expire_on(pm_fs_local()) == 0, "%s: rerun failed", what);
  pm_table *t = NULL;
  pm_error err = {0};
  CHECK_OK(pm_table_open_fs(pm_fs_local(), work, "db", "t", NULL, NULL, NULL, &t, &err), &err);
  pm_orphan_options o;
  memset(&o, 0, sizeof o);
  pm_orphan_result r;
  if (t) CHECK_OK(pm_orphan_clean(t, &o, 0, &r, &err), &err);
  pm_table_free(t);
}

/* Every line of `all` is in `part`, and each extra line of `part` names a file that no snapshot or
 * tag needs (data files whose DELETE is in the earliest snapshot's delta: the next expiry, which
 * plans that delta, deletes them). */
static int converges(const char *part, const char *what) {
  int ok = 1;
  for (const char *p = final_tree; p && *p;) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p + 1) : strlen(p);
    char line[2048];
    snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
    if (!strstr(part, line)) {
      fprintf(stderr, "%s: missing after rerun: %s", what, line);
      ok = 0;
    }
    p = nl ? nl + 1 : NULL;
  }
  /* then one more expiry (retain 1) + orphan cleanup on both ends the same */
  g_retain = 1;
  complete(what);
  g_retain = 2;
  char *t = tree();
  if (!t || !final2_tree || strcmp(t, final2_tree)) {
    fprintf(stderr, "%s: the next expiry does not converge:\n%s\n---- want\n%s\n", what, t ? t : "", final2_tree);
    ok = 0;
  }
  free(t);
  return ok;
}

/* The state after a stop or a failure. oracle: also paimon-table (check, reads). */
static void check_state(int oracle, const char *what) {
  paimon_table *t = NULL;
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_get_table(cat, "db.t", &t, &err), &err);
  if (!t) return;
  ec_files needed;
  ec_files_collect(t->t, &needed);
  CHECK_MSG(needed.missing == 0, "%s: %zu needed files missing, first %s", what, needed.missing,
            needed.first_missing);
  for (size_t i = 0; i < rec.n; i++) {
    const ec_state *s = &rec.items[i];
    const char *tag = s->tag[0] ? s->tag : NULL;
    json_t *ours = ec_ours(t, s->snap, tag);
    char msg[4096];
    CHECK_MSG(ours && ot_rows_match(s->rows, ours, msg, sizeof msg), "%s: %s %lld (ours): %s", what,
              tag ? tag : "snapshot", s->snap, ours ? msg : "unreadable");
    json_decref(ours);
  }
  if (oracle) {
    size_t expired = 0;
    ec_verify(t, work, tmp_root, &rec, &expired, what);
    CHECK(ec_check_needed_ex(work, OT_AFTER_CRASH, &needed, 1, STALE_EARLIEST, 1, what));
  }
  ec_files_free(&needed);
  paimon_table_free(t);
}

static void test_expire_crash(void) {
  int long_mode = getenv("PAIMON_LONG_TESTS") != NULL;
  pm_error err = {0};
  pm_fs *ff = NULL;
  CHECK_EQ_INT(pm_fault_fs_new(pm_fs_local(), &ff, &err), 0);
  if (!ff) return;
  /* the uninterrupted run: operation counts and the final state */
  fresh_copy();
  pm_fault_fs_disarm(ff);
  CHECK_EQ_INT(expire_on(ff), 0);
  uint64_t counts[5], total = 0;
  for (int k = 0; k < 5; k++) total += counts[k] = pm_fault_fs_count(ff, MUTATING[k]);
  complete("uninterrupted");
  final_tree = tree();
  check_state(0, "uninterrupted expiry"); /* the oracle judged that end state in api_test_expire */
  g_retain = 1;
  complete("uninterrupted, retain 1");
  g_retain = 2;
  final2_tree = tree();
  int stops = 0, faults = 0;
  uint64_t seq = 0;
  for (int k = 0; k < 5; k++)
    for (uint64_t n = 1; n <= counts[k]; n++, seq++) {
      char what[160];
      fresh_copy();
      pm_fault_rule r = {MUTATING[k], n, 1, PM_FAULT_EXIT, 42};
      pid_t pid = fork();
      if (pid == 0) {
        pm_fault_fs_arm(ff, &r);
        _exit(expire_on(ff) ? 1 : 0);
      }
      int st = 0;
      waitpid(pid, &st, 0);
      CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 42, "stop %s #%llu not reached", pm_fault_op_name(MUTATING[k]),
                (unsigned long long)n);
      snprintf(what, sizeof what, "expiry stopped at %s #%llu", pm_fault_op_name(MUTATING[k]), (unsigned long long)n);
      /* the oracle: every stop in long mode, else one in the middle (snapshot files gone, the
       * files partly deleted); ~1.5 s per oracle call */
      int oracle = long_mode || seq == total / 2;
      check_state(oracle, what);
      complete(what);
      char *t = tree();
      CHECK_MSG(t && converges(t, what), "%s: rerun + orphan cleanup do not end as the uninterrupted run", what);
      free(t);
      stops++;

      fresh_copy();
      pm_fault_rule e = {MUTATING[k], n, 1, PM_FAULT_ERROR, 0};
      pm_fault_fs_arm(ff, &e);
      CHECK_MSG(expire_on(ff) == PAIMON_ERR_IO, "an injected error at %s #%llu is reported",
                pm_fault_op_name(MUTATING[k]), (unsigned long long)n);
      pm_fault_fs_disarm(ff);
      snprintf(what, sizeof what, "expiry failed at %s #%llu", pm_fault_op_name(MUTATING[k]), (unsigned long long)n);
      check_state(long_mode, what);
      complete(what);
      t = tree();
      CHECK_MSG(t && converges(t, what), "%s: rerun + orphan cleanup do not end as the uninterrupted run", what);
      free(t);
      faults++;
    }
  printf("expiry: %d crash stops, %d injected errors (%llu mutating operations)\n", stops, faults,
         (unsigned long long)total);
  CHECK(stops >= 10);
  free(final_tree);
  free(final2_tree);
  pm_fs_unref(ff);
}

/* The table: 7 commits over partitions a, b with overwrites, tag t3; files made two days old. */
static void make_base(void) {
  paimon_error err = {0};
  const char *opts[] = {"bucket=-1", "write-only=true", "snapshot.clean-empty-directories=true"};
  CHECK_OK(ow_create_table(cat, "db", "t", "id INT NOT NULL, name STRING, dt STRING", "dt", opts, 3, 0, &err), &err);
  paimon_table *t = NULL;
  CHECK_OK(paimon_catalog_get_table(cat, "db.t", &t, &err), &err);
  if (!t) return;
  const char *dts[8] = {"", "a", "b", "a", "a", "b", "b", "a"};
  const int ow[8] = {0, 0, 0, 0, 1, 0, 1, 0};
  for (int b = 1; b <= 7; b++) {
    char rows[256];
    snprintf(rows, sizeof rows, "{\"id\":%d,\"name\":\"b%d\",\"dt\":\"%s\"}\n{\"id\":%d,\"name\":\"c%d\",\"dt\":\"%s\"}\n",
             b * 10, b, dts[b], b * 10 + 1, b, dts[b]);
    paimon_option spec = {"dt", dts[b]};
    CHECK_OK(ow_write_commit(t, NULL, 0, 0, rows, &spec, ow[b] ? 1 : 0, ow[b], NULL, &err), &err);
    if (b == 3) {
      pm_snapshot_manager sm = pm_table_snapshots(t->t);
      pm_snapshot *s = NULL;
      pm_error e = {0};
      CHECK_OK(pm_snapshot_read(&sm, 3, &s, &e), &e);
      if (s) CHECK_OK(pm_tag_write(&sm, "t3", s, &e), &e);
      pm_snapshot_free(s);
    }
  }
  /* record what stays: snapshots 6 and 7, tag t3 (both readers must agree) */
  ec_record all;
  memset(&all, 0, sizeof all);
  rec.items = calloc(3, sizeof *rec.items);
  const long long snaps[3] = {6, 7, 3};
  for (int i = 0; i < 3 && rec.items; i++) {
    ec_state *s = &rec.items[rec.n];
    s->snap = snaps[i];
    if (i == 2) snprintf(s->tag, sizeof s->tag, "t3");
    const char *tag = i == 2 ? "t3" : NULL;
    json_t *o = ec_oracle(work, s->snap, tag, tmp_root);
    json_t *ours = ec_ours(t, s->snap, tag);
    char msg[4096];
    CHECK_MSG(o && ours && ot_rows_match(o, ours, msg, sizeof msg), "%s %lld: ours != paimon-table: %s",
              tag ? tag : "snapshot", s->snap, msg);
    json_decref(ours);
    s->rows = o;
    if (o) rec.n++;
  }
  (void)all;
  paimon_table_free(t);
  char cmd[2400];
  snprintf(cmd, sizeof cmd, "touch -d '2 days ago' $(find '%s' -type f) && rm -rf '%s' && cp -rp '%s' '%s'", work,
           base, work, base);
  CHECK(system(cmd) == 0);
}

int main(void) {
  snprintf(tmp_root, sizeof tmp_root, "/tmp/pm_expire_crash_XXXXXX");
  CHECK(mkdtemp(tmp_root) != NULL);
  if (!ot_available()) {
    fprintf(stderr, "paimon-table not available: skipped\n");
    TEST_MAIN_END();
  }
  char wh[280];
  snprintf(wh, sizeof wh, "%s/wh", tmp_root);
  CHECK(mkdir(wh, 0755) == 0);
  snprintf(work, sizeof work, "%s/db.db/t", wh);
  snprintf(base, sizeof base, "%s/base", tmp_root);
  paimon_option o = {"warehouse", wh};
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_open(&o, 1, &cat, &err), &err);
  make_base();
  ot_cache_enable(1); /* repeated states judged once */
  if (rec.n == 3) RUN_TEST(test_expire_crash);
  ec_record_free(&rec);
  paimon_catalog_free(cat);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (!getenv("PM_KEEP_TMP") && !pm_test_failures) CHECK(system(cmd) == 0);
  TEST_MAIN_END();
}
