/*
 * Crash tests of the write path (issue 11 §5 "Crashes"). The driver process
 * (tests/api/crash_driver.c) writes and commits one batch per commit
 * identifier with a fixed commit user on the fault-injecting fs; it is stopped
 *   - at fs operation N of each kind in turn (the fault fs's _exit before the
 *     operation: "OP:N:exit=42"), and
 *   - by SIGKILL at random times during a run of several commits.
 * After every stop, independently of our reader:
 *   - `paimon-table check --after-crash` passes (orphans / temp files allowed);
 *   - the snapshot files are contiguous, no commit identifier is published
 *     twice, every batch whose commit printed success is published, nothing
 *     else but the in-flight batch (decided by the snapshot's identifier);
 *   - `paimon-table read` returns exactly the rows of the published batches
 *     (so a landed in-flight batch is complete).
 * The next run first retries the interrupted commit with the same user and
 * identifier (filter_committed, or committing the saved messages again), and
 * the final clean run must leave every batch published exactly once.
 * `make test`: >= 30 stop points; PAIMON_LONG_TESTS=1: >= 500.
 */
#include <dirent.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "support/oracle_crash.h"
#include "support/oracle_driver.h"
#include "support/oracle_table.h"

#define USER "crash-user"

static char tmp_root[256];
static int long_mode;
static int total_stops;
static double oracle_seconds, driver_seconds;
static int oracle_calls;

typedef struct crash_table {
  char wh[512], state[512], dir[600];
  long long next;              /* next batch to write */
  od_begun begun; /* every batch any run began committing */
  long long latest_read;       /* latest snapshot id whose read was verified */
  int stops;
} crash_table;

static void ct_init(crash_table *t, const char *name) {
  memset(t, 0, sizeof *t);
  snprintf(t->wh, sizeof t->wh, "%s/%s/wh", tmp_root, name);
  snprintf(t->state, sizeof t->state, "%s/%s/state", tmp_root, name);
  snprintf(t->dir, sizeof t->dir, "%s/db.db/t", t->wh);
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s' '%s'", t->wh, t->state);
  CHECK(system(cmd) == 0);
  t->latest_read = -1;
}

static void ct_run(crash_table *t, const char *rule, int recover_commit, long long from, long long to,
                   double kill_after, od_out *o) {
  char out[700];
  snprintf(out, sizeof out, "%s/../driver.out", t->wh);
  const char *flags[8];
  int n = 0;
  flags[n++] = "--state";
  flags[n++] = t->state;
  flags[n++] = "--user";
  flags[n++] = USER;
  if (recover_commit) {
    flags[n++] = "--recover";
    flags[n++] = "commit";
  }
  flags[n] = NULL;
  if (rule) {
    flags[n++] = "--rule";
    flags[n++] = rule;
    flags[n] = NULL;
  }
  od_run_range(flags, t->wh, from, to, out, kill_after, &t->begun, o);
  driver_seconds += o->seconds;
}

/* Batches with a pending (saved, maybe uncommitted) committable. */
static size_t ct_pending(const crash_table *t, long long *ids, size_t cap) {
  size_t n = 0;
  DIR *d = opendir(t->state);
  struct dirent *de;
  while (d && (de = readdir(d)) != NULL && n < cap) {
    long long k;
    if (sscanf(de->d_name, "pending-%lld.bin", &k) == 1 && strstr(de->d_name, ".bin") &&
        !strstr(de->d_name, ".tmp"))
      ids[n++] = k;
  }
  if (d) closedir(d);
  return n;
}

static int has_schema(const crash_table *t) {
  char p[700];
  snprintf(p, sizeof p, "%s/schema/schema-0", t->dir);
  return access(p, F_OK) == 0;
}

/* Verifies the table after a run (see the file comment); `what` names the stop. final: a clean
 * run ended, so every batch begun must be published and nothing left pending. */
static void ct_verify(crash_table *t, const od_out *o, const char *what, int final) {
  if (!has_schema(t)) {
    CHECK_MSG(o->n_committed == 0, "%s: committed without a schema", what);
    return;
  }
  ot_snapshot *s = NULL;
  size_t gaps = 0;
  size_t n = ot_snapshots(t->dir, &s, &gaps);
  CHECK_MSG(gaps == 0, "%s: %zu snapshot ids missing below the highest", what, gaps);
  long long *ids = calloc(n + 1, sizeof *ids);
  size_t ni = 0;
  for (size_t i = 0; i < n; i++) {
    CHECK_MSG(!strcmp(s[i].commit_user, USER), "%s: snapshot %lld by '%s'", what, s[i].id, s[i].commit_user);
    CHECK_MSG(!strcmp(s[i].commit_kind, "APPEND"), "%s: snapshot %lld is %s", what, s[i].id, s[i].commit_kind);
    long long k = s[i].commit_identifier;
    CHECK_MSG(!od_has(ids, ni, k), "%s: batch %lld published twice (again in snapshot %lld)", what, k, s[i].id);
    CHECK_MSG(od_has(t->begun.ids, t->begun.n, k), "%s: snapshot %lld has identifier %lld that no run began", what,
              s[i].id, k);
    if (!od_has(ids, ni, k)) ids[ni++] = k;
  }
  for (size_t i = 0; i < o->n_committed; i++)
    CHECK_MSG(od_has(ids, ni, o->committed[i]), "%s: batch %lld printed committed but is not published", what,
              o->committed[i]);
  for (size_t i = 0; i < o->n_recovered; i++)
    CHECK_MSG(od_has(ids, ni, o->recovered[i]), "%s: batch %lld recovered as committed but is not published",
              what, o->recovered[i]);
  /* a stop between the snapshot and its LATEST hint leaves the hint behind: Java's readers (and
   * paimon-table read) look past it, paimon-table check calls it FAIL; the final clean run must
   * leave it right */
  static const char *const stale_hint[] = {"snapshot/LATEST: says "};
  double t0 = od_now();
  if (final) CHECK(ot_check_ok(t->dir, OT_AFTER_CRASH, what));
  else CHECK(ot_check_ok_allowing(t->dir, OT_AFTER_CRASH, stale_hint, 1, what));
  oracle_calls++;
  long long latest = n ? s[n - 1].id : 0;
  if (latest != t->latest_read || final) {
    json_t *expected = json_array();
    for (size_t i = 0; i < ni; i++) {
      char buf[4096];
      oc_batch_json(ids[i], 0, -1, buf, sizeof buf);
      json_t *rows = ot_parse_lines(buf, NULL);
      ot_model_append(&(ot_model){expected}, rows);
      json_decref(rows);
    }
    int ok = ot_read_equals(t->dir, NULL, expected, what);
    oracle_calls++;
    CHECK(ok);
    if (ok) t->latest_read = latest;
    json_decref(expected);
  }
  oracle_seconds += od_now() - t0;
  /* the next batch: after everything published, pending or printed */
  for (size_t i = 0; i < ni; i++)
    if (ids[i] + 1 > t->next) t->next = ids[i] + 1;
  long long pend[64];
  size_t np = ct_pending(t, pend, 64);
  for (size_t i = 0; i < np; i++)
    if (pend[i] + 1 > t->next) t->next = pend[i] + 1;
  if (final) {
    CHECK_MSG(np == 0, "%s: %zu pending commits left after a clean run", what, np);
    for (size_t i = 0; i < t->begun.n; i++)
      CHECK_MSG(od_has(ids, ni, t->begun.ids[i]), "%s: batch %lld began but was never published", what, t->begun.ids[i]);
  }
  free(ids);
  free(s);
}

/* One stop: run with the rule (or kill), classify, verify. */
static int ct_stop(crash_table *t, const char *rule, int recover_commit, long long n_batches, double kill_after) {
  od_out o;
  long long from = t->next;
  ct_run(t, rule, recover_commit, from, from + n_batches - 1, kill_after, &o);
  char what[256];
  snprintf(what, sizeof what, "%s%s batches %lld..%lld", rule ? rule : "kill",
           recover_commit ? " (recover by commit)" : "", from, from + n_batches - 1);
  int stopped = o.status == OC_EXIT_FAULT || o.status == 128 + SIGKILL;
  CHECK_MSG(o.status == 0 || stopped, "%s: driver exit %d: %s", what, o.status, o.fail_line);
  if (o.status == 0) CHECK_EQ_INT(o.n_committed >= (size_t)n_batches, 1);
  ct_verify(t, &o, what, 0);
  if (stopped) {
    t->stops++;
    total_stops++;
  }
  return stopped;
}

static void ct_finish(crash_table *t, const char *what) {
  od_out o;
  ct_run(t, NULL, 0, t->next, t->next, -1, &o);
  CHECK_MSG(o.status == 0, "%s: final run exit %d: %s", what, o.status, o.fail_line);
  ct_verify(t, &o, what, 1);
}

/* Operation kinds that must be hit at every occurrence; the others are sampled. */
static int must_hit(pm_fault_op op) {
  return op == PM_FAULT_OP_CREATE_IF_ABSENT || op == PM_FAULT_OP_PUBLISH || op == PM_FAULT_OP_RENAME ||
         op == PM_FAULT_OP_FSYNC || op == PM_FAULT_OP_CREATE || op == PM_FAULT_OP_DELETE ||
         op == PM_FAULT_OP_MKDIRS;
}

typedef struct point {
  pm_fault_op op;
  unsigned long long n;
} point;

/* Stop points from one run's counts: every must-hit occurrence, plus `extra` spread over the rest. */
static size_t make_points(const unsigned long long *counts, size_t extra, int all, point *pts, size_t cap) {
  size_t np = 0;
  unsigned long long rest = 0;
  for (int op = 0; op < PM_FAULT_OP_COUNT; op++) {
    if (all || must_hit((pm_fault_op)op)) {
      for (unsigned long long n = 1; n <= counts[op] && np < cap; n++) pts[np++] = (point){(pm_fault_op)op, n};
    } else {
      rest += counts[op];
    }
  }
  if (all || !rest) return np;
  /* every (rest/extra)-th occurrence of the sampled kinds, in op order */
  unsigned long long stride = rest / (extra ? extra : 1);
  if (stride == 0) stride = 1;
  unsigned long long idx = 0;
  for (int op = 0; op < PM_FAULT_OP_COUNT; op++) {
    if (must_hit((pm_fault_op)op)) continue;
    for (unsigned long long n = 1; n <= counts[op]; n++, idx++)
      if (idx % stride == stride / 2 && np < cap) pts[np++] = (point){(pm_fault_op)op, n};
  }
  return np;
}

/* Stops at fs operations in turn on one growing table; every stop verified, then recovered. */
static void test_stop_at_each_operation(void) {
  crash_table t;
  ct_init(&t, "ops");
  od_out o;
  /* dry runs: the first creates the table; the second gives a steady commit's counts */
  ct_run(&t, NULL, 0, 0, 0, -1, &o);
  CHECK_MSG(o.status == 0 && o.have_counts, "dry run 0: exit %d %s", o.status, o.fail_line);
  ct_verify(&t, &o, "dry run 0", 0);
  ct_run(&t, NULL, 0, t.next, t.next, -1, &o);
  CHECK_MSG(o.status == 0 && o.have_counts, "dry run 1: exit %d %s", o.status, o.fail_line);
  ct_verify(&t, &o, "dry run 1", 0);
  if (o.status != 0) return;
  unsigned long long total = 0;
  for (int op = 0; op < PM_FAULT_OP_COUNT; op++) {
    total += o.counts[op];
    fprintf(stderr, "  one commit: %s=%llu\n", pm_fault_op_name((pm_fault_op)op), o.counts[op]);
  }
  CHECK(total > 0);
  static point pts[8192];
  size_t np = make_points(o.counts, 12, long_mode, pts, 8192);
  int target = long_mode ? 440 : 24;
  int stops_here = 0;
  for (size_t round = 0; stops_here < target && round < 50; round++) {
    int any = 0;
    for (size_t i = 0; i < np && stops_here < target; i++) {
      char rule[96];
      snprintf(rule, sizeof rule, "%s:%llu:exit=%d", pm_fault_op_name(pts[i].op), pts[i].n, OC_EXIT_FAULT);
      int s = ct_stop(&t, rule, 0, 1, -1);
      stops_here += s;
      any |= s;
      if (pm_test_failures > 20) return;
    }
    if (!any) break;
  }
  fprintf(stderr, "  %d stop points over %zu distinct operations\n", stops_here, np);
  CHECK(stops_here >= target);
  ct_finish(&t, "after the operation stops");
}

/* The interrupted commit retried by committing the saved messages again (no filter_committed):
 * the API says a retry with the same user and identifier publishes at most once. */
static void test_retry_by_commit_again(void) {
  crash_table t;
  ct_init(&t, "again");
  od_out o;
  ct_run(&t, NULL, 0, 0, 0, -1, &o);
  CHECK_MSG(o.status == 0, "first run: exit %d %s", o.status, o.fail_line);
  ct_verify(&t, &o, "first run", 0);
  /* the publication itself, and operations after it */
  const char *rules[] = {"create-if-absent:1:exit=42", "create-if-absent:2:exit=42", "publish:1:exit=42",
                         "rename:1:exit=42"};
  for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
    ct_stop(&t, rules[i], 0, 1, -1);
    /* the retry run (by commit again) */
    ct_run(&t, NULL, 1, t.next, t.next, -1, &o);
    CHECK_MSG(o.status == 0, "retry after %s: exit %d %s", rules[i], o.status, o.fail_line);
    char what[128];
    snprintf(what, sizeof what, "commit-again retry after %s", rules[i]);
    ct_verify(&t, &o, what, 0);
  }
  ct_finish(&t, "after commit-again retries");
}

/* SIGKILL at random times during runs of several commits. */
static void test_sigkill_random(void) {
  crash_table t;
  ct_init(&t, "kill");
  od_out o;
  const long long per_run = 6;
  ct_run(&t, NULL, 0, 0, per_run - 1, -1, &o);
  CHECK_MSG(o.status == 0, "timing run: exit %d %s", o.status, o.fail_line);
  ct_verify(&t, &o, "timing run", 0);
  double span = o.seconds > 0.01 ? o.seconds : 0.01;
  unsigned seed = getenv("PM_CRASH_SEED") ? (unsigned)atoi(getenv("PM_CRASH_SEED"))
                                          : (long_mode ? (unsigned)time(NULL) : 20261201u);
  fprintf(stderr, "  SIGKILL seed %u (PM_CRASH_SEED), run of %lld commits takes %.3f s\n", seed, per_run, span);
  srand(seed);
  int target = long_mode ? 60 : 6, kills = 0;
  for (int attempt = 0; kills < target && attempt < target * 4; attempt++) {
    double at = span * (double)rand() / RAND_MAX;
    kills += ct_stop(&t, NULL, 0, per_run, at);
    if (pm_test_failures > 20) return;
  }
  fprintf(stderr, "  %d SIGKILL stops\n", kills);
  CHECK(kills >= target / 2);
  ct_finish(&t, "after SIGKILLs");
}

int main(void) {
  int go = od_test_begin("write_crash", ot_available(), tmp_root, sizeof tmp_root, &long_mode);
  if (go < 0) return 1;
  if (!go) TEST_MAIN_END();
  /* the oracle judges each distinct table state once (support/oracle_table.h verdict cache) */
  ot_cache_enable(!getenv("PM_CRASH_NO_CACHE"));
  double t0 = od_now();
  RUN_TEST(test_stop_at_each_operation);
  RUN_TEST(test_retry_by_commit_again);
  RUN_TEST(test_sigkill_random);
  fprintf(stderr, "%d stops in total (%s mode), %.1f s (driver runs %.1f s, %d oracle runs %.1f s)\n", total_stops,
          long_mode ? "long" : "short", od_now() - t0, driver_seconds, oracle_calls, oracle_seconds);
  fprintf(stderr, "oracle: %lu distinct (state, command) runs, %lu cached verdicts reused\n", ot_cache.misses,
          ot_cache.hits);
  CHECK(total_stops >= (long_mode ? 500 : 30));
  ot_cache_clear();
  od_test_end(tmp_root, pm_test_failures);
  TEST_MAIN_END();
}
