/*
 * Crash and fault tests of data-evolution append compaction (issue 13 §1; paimon/compact.h) on
 * the two tables of support/de_table.h, each kept as a template that every case copies:
 * "u" (unpartitioned, appends + 3 column updates by _ROW_ID: 10 files, 1 task) and "p"
 * (partitioned, interleaved row ids: 9 files, 3 tasks). The operation is paimon_table_compact.
 *   - Stops: a child process runs it on a catalog over the fault-injecting fs armed to _exit(42)
 *     at the Nth operation of one kind (the kinds and counts of an unarmed run; default: 10
 *     stops per table spread over them, PAIMON_LONG_TESTS=1: every one up to 500).
 *   - SIGKILL: a child runs it on a plain catalog and is killed at a random time within the
 *     length of an unarmed run (default 3 per table, long mode 20; seed PM_CRASH_SEED).
 *   - Faults: in process, an injected I/O error at an operation (default 10 per table spread
 *     over all, long mode every one up to 500): the call fails with PAIMON_ERR_IO (nothing
 *     published: the latest snapshot unchanged, result snapshot -1, and NO data file left in
 *     the table directory beyond the template's: the compaction's files were deleted) or
 *     PAIMON_ERR_UNKNOWN_OUTCOME (published or not; files kept), or succeeds when the failed
 *     operation was not needed.
 * After each: our reader returns exactly the model rows, every id keeps its _ROW_ID,
 * `paimon-table check` passes (--after-crash after a stop / kill; a lagging LATEST hint
 * allowed; about 1 s a run, so on the first case of each sweep, every case in long mode) and
 * `paimon-table read` equals the model (after the unarmed run and the last fault's rerun;
 * every case in long mode); the latest snapshot is the
 * template's or one COMPACT on top. Then the compaction run again succeeds and leaves the
 * compacted table (1 or 3 live files, latest COMPACT), rows and _ROW_IDs unchanged.
 */
#include <dirent.h>
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "paimon/compact.h"
#include "support/compact_crash.h"
#include "support/compact_table.h"
#include "support/de_table.h"

static char root[256];
static int long_mode;

/* `paimon-table check` (about a second a run) on every case in long mode, else the first of a sweep */
static int sampled(size_t i) { return long_mode || i == 0; }

static const char *const stale_hint[] = {"snapshot/LATEST: says "};

typedef struct de_case {
  const char *name; /* "u" / "p": table db.<name> */
  int live_after;   /* live files after compaction (one per task) */
  json_t *model;    /* the rows */
  json_t *ids;      /* id -> [_ROW_ID, _SEQUENCE_NUMBER] of the template */
  int64_t latest;   /* the template's latest snapshot */
  int data_files;   /* files in the template's bucket directories */
} de_case;

/* Regular files (any name, temporary ones too) inside bucket-* directories under dir. */
static int count_bucket_files(const char *dir, int in_bucket) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char p[1400];
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    struct stat st;
    if (lstat(p, &st)) continue;
    if (S_ISDIR(st.st_mode)) {
      int bucket = !strncmp(e->d_name, "bucket-", 7);
      if (bucket || (!in_bucket && strchr(e->d_name, '='))) n += count_bucket_files(p, bucket);
    } else if (in_bucket && S_ISREG(st.st_mode)) {
      n++;
    }
  }
  closedir(d);
  return n;
}

static void make_template(de_case *c) {
  char tpl[300];
  snprintf(tpl, sizeof tpl, "%s/tpl", root);
  de_fixture f;
  int64_t *rid = NULL;
  c->model = json_array();
  int ok = !strcmp(c->name, "u") ? de_build_u(&f, tpl, c->model, &rid) : de_build_p(&f, tpl, c->model, &rid);
  CHECK(ok);
  if (!ok) return;
  c->ids = de_row_ids(&f);
  c->latest = ct_files_in(f.dir, NULL, -1).latest_id;
  c->data_files = count_bucket_files(f.dir, 0);
  CHECK_MSG(c->data_files == (!strcmp(c->name, "u") ? 10 : 9), "%s: %d data files", c->name, c->data_files);
  free(rid);
  de_close(&f);
}

/* A fresh copy of the template as warehouse wh (table dir in dir). */
static void copy_template(const de_case *c, const char *tag, char *wh, size_t cap_wh, char *dir, size_t cap_dir) {
  snprintf(wh, cap_wh, "%s/%s-%s", root, c->name, tag);
  snprintf(dir, cap_dir, "%s/db.db/%s", wh, c->name);
  char cmd[1400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -a '%s/tpl/%s' '%s'", wh, root, c->name, wh);
  CHECK(system(cmd) == 0);
}

typedef struct run_ctx {
  const de_case *c;
  paimon_compact_result r;
} run_ctx;

/* paimon_table_compact (defaults) of db.<name> through catalog cat. */
static int run_compact(paimon_catalog *cat, void *ctx, paimon_error *err) {
  run_ctx *rc_ = ctx;
  memset(&rc_->r, 0, sizeof rc_->r);
  rc_->r.snapshot_id = -1;
  char ident[64];
  snprintf(ident, sizeof ident, "db.%s", rc_->c->name);
  paimon_table *t = NULL;
  int rc = paimon_catalog_get_table(cat, ident, &t, err);
  paimon_compact_options o;
  paimon_compact_options_init(&o);
  if (!rc) rc = paimon_table_compact(t, &o, &rc_->r, err);
  paimon_table_free(t);
  return rc;
}

/* Rows and _ROW_IDs as the model (ours), check (after_crash), read (oracle), latest snapshot
 * the template's or one COMPACT on top (compacted: must be the COMPACT one). */
static void check_state(const de_case *c, const char *wh, const char *dir, int check, int oracle, int after_crash,
                        int compacted, const char *what) {
  paimon_catalog *cat = cc_open_plain(wh);
  paimon_table *t = NULL;
  paimon_error err = {0};
  char ident[64];
  snprintf(ident, sizeof ident, "db.%s", c->name);
  CHECK_OK(paimon_catalog_get_table(cat, ident, &t, &err), &err);
  if (t) {
    ct_check_rows(t, dir, c->model, 0, what);
    json_t *ids = de_row_ids_of(t);
    de_check_ids(c->ids, ids, -1, what);
    json_decref(ids);
  }
  if (oracle) CHECK_MSG(ot_read_equals(dir, NULL, c->model, what), "%s", what);
  if (check)
    CHECK_MSG(ot_check_ok_allowing(dir, after_crash ? OT_AFTER_CRASH : 0, stale_hint, after_crash ? 1 : 0, what), "%s",
              what);
  ct_layout l = ct_files_in(dir, NULL, -1);
  int on_top = l.latest_id == c->latest + 1 && !strcmp(l.latest_kind, "COMPACT");
  if (compacted) {
    CHECK_MSG(on_top && l.files == c->live_after, "%s: latest %lld %s with %d files (template %lld)", what,
              (long long)l.latest_id, l.latest_kind, (int)l.files, (long long)c->latest);
  } else {
    CHECK_MSG(l.latest_id == c->latest || on_top, "%s: latest %lld %s (template %lld)", what, (long long)l.latest_id,
              l.latest_kind, (long long)c->latest);
  }
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* The compaction run again succeeds and leaves the compacted table. */
static void rerun(const de_case *c, const char *wh, const char *dir, int check, int after_crash, const char *what) {
  paimon_catalog *cat = cc_open_plain(wh);
  run_ctx rc = {.c = c};
  paimon_error err = {0};
  CHECK_OK(run_compact(cat, &rc, &err), &err);
  paimon_catalog_free(cat);
  char w2[200];
  snprintf(w2, sizeof w2, "%s, rerun", what);
  check_state(c, wh, dir, check, check, after_crash, 1, w2);
}

static void count_ops(const de_case *c, uint64_t counts[PM_FAULT_OP_COUNT], double *secs) {
  char wh[512], dir[600];
  copy_template(c, "count", wh, sizeof wh, dir, sizeof dir);
  run_ctx rc = {.c = c};
  paimon_error err = {0};
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  CHECK_OK(cc_count_ops(wh, run_compact, &rc, counts, &err), &err);
  clock_gettime(CLOCK_MONOTONIC, &b);
  *secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
  CHECK_EQ_INT(rc.r.metrics.tasks, c->live_after);
  CHECK_EQ_INT(rc.r.snapshot_id, c->latest + 1);
  check_state(c, wh, dir, 1, 1, 0, 1, "unarmed run");
  /* the compaction wrote one new file per task, kept the inputs (no expiry) */
  CHECK_EQ_INT(count_bucket_files(dir, 0), c->data_files + c->live_after);
}

/* The sampled stops plus, outside long mode, every CREATE_IF_ABSENT (the commit primitive: the
 * snapshot's publish) and RENAME, so the commit's own outcomes are always among them. */
static size_t stops_for(const uint64_t counts[PM_FAULT_OP_COUNT], size_t max, cc_stop **out) {
  size_t n = cc_stops_of(counts, long_mode ? 500 : max, out);
  if (long_mode) return n;
  static const pm_fault_op commit_ops[] = {PM_FAULT_OP_CREATE_IF_ABSENT, PM_FAULT_OP_RENAME};
  for (size_t k = 0; k < 2; k++)
    for (uint64_t j = 1; j <= counts[commit_ops[k]]; j++) {
      int have = 0;
      for (size_t i = 0; i < n; i++) have |= (*out)[i].op == commit_ops[k] && (*out)[i].nth == j;
      if (have) continue;
      cc_stop *grown = realloc(*out, (n + 1) * sizeof *grown);
      if (!grown) return n;
      *out = grown;
      (*out)[n++] = (cc_stop){commit_ops[k], j};
    }
  return n;
}

static void test_stops(const de_case *c, const uint64_t counts[PM_FAULT_OP_COUNT]) {
  cc_stop *st = NULL;
  size_t n = stops_for(counts, 8, &st);
  int stopped = 0;
  for (size_t i = 0; i < n; i++) {
    char wh[512], dir[600], what[160];
    copy_template(c, "stop", wh, sizeof wh, dir, sizeof dir);
    snprintf(what, sizeof what, "%s: stop at %s #%llu", c->name, pm_fault_op_name(st[i].op),
             (unsigned long long)st[i].nth);
    run_ctx rc = {.c = c};
    int code = cc_crash_run(wh, st[i], run_compact, &rc);
    CHECK_MSG(code == 42 || code == 0, "%s: child exit %d", what, code);
    stopped += code == 42;
    check_state(c, wh, dir, sampled(i), long_mode, 1, 0, what);
    rerun(c, wh, dir, long_mode, 1, what);
  }
  CHECK_MSG(stopped >= (int)n - 1, "%s: %d of %zu runs stopped", c->name, stopped, n);
  fprintf(stderr, "%s: %zu fs stops (%d stopped)\n", c->name, n, stopped);
  free(st);
}

static void test_kills(const de_case *c, double span, unsigned *seed) {
  int n = long_mode ? 20 : 3, killed = 0;
  for (int i = 0; i < n; i++) {
    char wh[512], dir[600], what[160];
    copy_template(c, "kill", wh, sizeof wh, dir, sizeof dir);
    double at = span * (double)(rand_r(seed) % 1000) / 1000.0;
    snprintf(what, sizeof what, "%s: SIGKILL after %.4f s of %.4f", c->name, at, span);
    int pfd[2];
    CHECK(pipe(pfd) == 0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
      close(pfd[0]);
      paimon_catalog *cat = cc_open_plain(wh);
      run_ctx rc = {.c = c};
      paimon_error err = {0};
      if (write(pfd[1], "x", 1) != 1) _exit(4);
      int r = run_compact(cat, &rc, &err);
      _exit(r ? 3 : 0);
    }
    close(pfd[1]);
    char b;
    CHECK(read(pfd[0], &b, 1) == 1);
    close(pfd[0]);
    struct timespec ts = {(time_t)at, (long)((at - (double)(time_t)at) * 1e9)};
    nanosleep(&ts, NULL);
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    int was_killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    CHECK_MSG(was_killed || (WIFEXITED(status) && WEXITSTATUS(status) == 0), "%s: child status %d", what, status);
    killed += was_killed;
    check_state(c, wh, dir, sampled((size_t)i), long_mode, 1, 0, what);
    rerun(c, wh, dir, long_mode, 1, what);
  }
  fprintf(stderr, "%s: %d SIGKILLs (%d killed mid-run), run %.4f s\n", c->name, n, killed, span);
}

static void test_faults(const de_case *c, const uint64_t counts[PM_FAULT_OP_COUNT]) {
  cc_stop *st = NULL;
  size_t n = stops_for(counts, 10, &st);
  int by[3] = {0, 0, 0};
  for (size_t i = 0; i < n; i++) {
    char wh[512], dir[600], what[160];
    copy_template(c, "fault", wh, sizeof wh, dir, sizeof dir);
    snprintf(what, sizeof what, "%s: I/O error at %s #%llu", c->name, pm_fault_op_name(st[i].op),
             (unsigned long long)st[i].nth);
    run_ctx r = {.c = c};
    paimon_error err = {0};
    int rc = cc_fault_run(wh, st[i], run_compact, &r, &err);
    ct_layout l = ct_files_in(dir, NULL, -1);
    int files = count_bucket_files(dir, 0);
    if (!rc) {
      by[0]++;
      CHECK_MSG(r.r.snapshot_id == c->latest + 1, "%s: ok with snapshot %lld", what, (long long)r.r.snapshot_id);
      CHECK_MSG(files == c->data_files + c->live_after, "%s: ok, %d files in buckets (template %d)", what, files,
                c->data_files);
    } else if (rc == PAIMON_ERR_UNKNOWN_OUTCOME) {
      by[2]++; /* its files may be referenced: kept */
      CHECK_MSG(files == c->data_files + c->live_after, "%s: unknown outcome, %d files in buckets (template %d)", what,
                files, c->data_files);
    } else {
      by[1]++;
      CHECK_MSG(rc == PAIMON_ERR_IO, "%s: status %s: %s", what, paimon_status_name((paimon_status)rc), err.message);
      CHECK_MSG(strstr(err.message, "injected") != NULL, "%s: %s", what, err.message);
      CHECK_MSG(l.latest_id == c->latest, "%s: failed (%s) but snapshot %lld published", what, err.message,
                (long long)l.latest_id);
      CHECK_MSG(r.r.snapshot_id == -1, "%s: failed with snapshot %lld", what, (long long)r.r.snapshot_id);
      CHECK_MSG(files == c->data_files, "%s: failed (%s) and left %d new files in the buckets", what, err.message,
                files - c->data_files);
    }
    check_state(c, wh, dir, sampled(i), long_mode, 0, rc == 0, what);
    rerun(c, wh, dir, long_mode || i + 1 == n, 0, what);
  }
  fprintf(stderr, "%s: %zu faults: %d ok, %d io, %d unknown outcome\n", c->name, n, by[0], by[1], by[2]);
  CHECK(by[1] > 0);
  free(st);
}

int main(void) {
  if (!ot_available()) TEST_MAIN_END(); /* the oracle judges every state */
  long_mode = getenv("PAIMON_LONG_TESTS") && atoi(getenv("PAIMON_LONG_TESTS")) > 0;
  unsigned seed = getenv("PM_CRASH_SEED") ? (unsigned)atoi(getenv("PM_CRASH_SEED")) : (unsigned)time(NULL);
  fprintf(stderr, "SIGKILL seed %u (PM_CRASH_SEED)\n", seed);
  snprintf(root, sizeof root, "/tmp/pm_compact_de_crash_XXXXXX");
  if (!mkdtemp(root)) return 1;
  de_case cases[] = {{"u", 1, NULL, NULL, 0, 0}, {"p", 3, NULL, NULL, 0, 0}};
  for (size_t i = 0; i < 2; i++) make_template(&cases[i]);
  for (size_t i = 0; i < 2; i++) {
    uint64_t counts[PM_FAULT_OP_COUNT];
    double span;
    count_ops(&cases[i], counts, &span);
    test_faults(&cases[i], counts);
    test_stops(&cases[i], counts);
    test_kills(&cases[i], span, &seed);
  }
  for (size_t i = 0; i < 2; i++) {
    json_decref(cases[i].model);
    json_decref(cases[i].ids);
  }
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  if (!pm_test_failures && !getenv("PM_KEEP") && system(cmd)) return 1;
  TEST_MAIN_END();
}
