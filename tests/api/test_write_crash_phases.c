/*
 * Crash stops in every phase of the public write path (issue 11 §5 "Crashes"):
 * the crash driver (tests/api/crash_driver.c) creates the table with
 * paimon_catalog_create_table, writes each batch with paimon_table_write
 * (target-file-size "1 b": a data file per row, so a batch rolls over several
 * files), commits it as an APPEND or an OVERWRITE of the partitions it touches
 * and adds a column before batch OC_ALTER_AT (support/oracle_crash.h "mix"),
 * all on the fault-injecting fs. The driver reports the fs operations of each
 * phase (ddl, write, commit, alter, recover); a first clean run counts them,
 * then the driver is stopped (_exit) at chosen operations of each phase
 * (--at PHASE --rule OP:N:exit): a quota of points per phase (long_quota with
 * PAIMON_LONG_TESTS=1: >= 500 over both layouts; quota in `make test`); plus SIGKILL at
 * random times. Layouts: partitioned + fixed buckets (bucket 2, bucket-key id)
 * and unpartitioned unaware-bucket (bucket -1).
 *
 * After every stop:
 *   - `paimon-table check --after-crash` passes (a LATEST hint one commit behind
 *     is accepted until the final clean run);
 *   - the snapshots are contiguous, all by our commit user, each identifier
 *     once, with the kind the schedule gives it; every batch whose commit
 *     printed success is published;
 *   - `paimon-table read --schema-id <latest>` and our reader both return
 *     exactly the rows the published batches make (appends, overwrites,
 *     the added column null in older rows).
 * The next run (a new process) retries the interrupted commit with the same
 * commit user and identifier after filter_committed; the final clean run must
 * leave every begun batch published exactly once.
 */
#include <dirent.h>
#include <jansson.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "paimon/paimon.h"
#include "support/oracle_crash.h"
#include "support/oracle_driver.h"
#include "support/oracle_table.h"
#include "support/oracle_write.h"

#define USER "phase-user"
#define TARGET_FILE_SIZE "1 b"

static char tmp_root[256];
static int long_mode;
static int total_stops, total_kills;
static double oracle_seconds;
static int oracle_calls;

/* ------------------------------------------------------------ phases */

enum { PH_DDL, PH_WRITE, PH_COMMIT, PH_WRITE_OW, PH_COMMIT_OW, PH_ALTER, PH_RECOVER, PH_COUNT };
static const char *const ph_label[PH_COUNT] = {"ddl", "write", "commit", "write(overwrite)", "commit(overwrite)",
                                               "alter", "recover"};
static const char *const ph_at[PH_COUNT] = {"ddl", "write", "commit", "write", "commit", "alter", "recover"};

static int ph_of(const char *name, const char *kind) {
  int ow = !strcmp(kind, "overwrite");
  if (!strcmp(name, "ddl")) return PH_DDL;
  if (!strcmp(name, "write")) return ow ? PH_WRITE_OW : PH_WRITE;
  if (!strcmp(name, "commit")) return ow ? PH_COMMIT_OW : PH_COMMIT;
  if (!strcmp(name, "alter")) return PH_ALTER;
  if (!strcmp(name, "recover")) return PH_RECOVER;
  return -1;
}

typedef struct phase_counts {
  unsigned long long lo[PH_COUNT][PM_FAULT_OP_COUNT], hi[PH_COUNT][PM_FAULT_OP_COUNT];
  int seen[PH_COUNT];
  int stops[PH_COUNT], tried[PH_COUNT];
} phase_counts;

/* The operation counts stop points are chosen from: the smallest seen (short mode: every point
 * is reached), or the largest (long mode: every operation any run of the phase made). */
static const unsigned long long *pc_counts(const phase_counts *pc, int ph) { return long_mode ? pc->hi[ph] : pc->lo[ph]; }

/* Reads the driver's "phase NAME K KIND op=n..." lines: the smallest and largest count per
 * (phase, op); the ddl phase only from a run that created the table (first_ddl), write and commit
 * not from batch 0 (the first commit reads nothing). */
static void parse_phases(const char *out_path, phase_counts *pc, int first_ddl) {
  FILE *f = fopen(out_path, "r");
  char line[4096];
  while (f && fgets(line, sizeof line, f)) {
    char name[32], kind[32];
    long long k;
    if (sscanf(line, "phase %31s %lld %31s", name, &k, kind) != 3) continue;
    int ph = ph_of(name, kind);
    if (ph < 0 || (ph == PH_DDL && !first_ddl) || (k == 0 && ph != PH_DDL)) continue;
    for (int op = 0; op < PM_FAULT_OP_COUNT; op++) {
      char key[64];
      snprintf(key, sizeof key, " %s=", pm_fault_op_name((pm_fault_op)op));
      const char *p = strstr(line, key);
      unsigned long long c = p ? strtoull(p + strlen(key), NULL, 10) : 0;
      if (c > pc->hi[ph][op]) pc->hi[ph][op] = c;
      if (!pc->seen[ph] || c < pc->lo[ph][op]) pc->lo[ph][op] = c;
    }
    pc->seen[ph] = 1;
  }
  if (f) fclose(f);
}

typedef struct point {
  pm_fault_op op;
  unsigned long long n;
} point;

typedef struct queue {
  point p[1024];
  size_t n, next;
} queue;

/* Stop points of one phase, every operation once, in the order they are tried: round-robin over
 * the kinds (publication kinds first), per kind the last, the first, the middle, then the rest
 * (short mode tries them until the phase's quota of stops is reached). */
static void make_queue(const unsigned long long *counts, queue *q) {
  static const pm_fault_op order[] = {PM_FAULT_OP_CREATE_IF_ABSENT, PM_FAULT_OP_PUBLISH, PM_FAULT_OP_RENAME,
                                      PM_FAULT_OP_DELETE,           PM_FAULT_OP_FSYNC,   PM_FAULT_OP_CREATE,
                                      PM_FAULT_OP_WRITE,            PM_FAULT_OP_MKDIRS,  PM_FAULT_OP_OPEN,
                                      PM_FAULT_OP_READ,             PM_FAULT_OP_LIST,    PM_FAULT_OP_STAT};
  enum { NK = sizeof order / sizeof order[0] };
  q->n = q->next = 0;
  size_t cap = sizeof q->p / sizeof q->p[0];
  for (unsigned long long round = 0; q->n < cap; round++) {
    int any = 0;
    for (size_t i = 0; i < NK && q->n < cap; i++) {
      unsigned long long c = counts[order[i]];
      if (round >= c) continue;
      any = 1;
      /* the round-th of: c, 1, mid, then 2..c-1 without mid */
      unsigned long long mid = (c + 1) / 2, n = 0, r = 0;
      unsigned long long seq[3] = {c, 1, mid};
      for (int j = 0; j < 3 && !n; j++) {
        int dup = 0;
        for (int k = 0; k < j; k++) dup |= seq[k] == seq[j];
        if (dup) continue;
        if (r++ == round) n = seq[j];
      }
      for (unsigned long long v = 2; !n && v < c; v++) {
        if (v == mid) continue;
        if (r++ == round) n = v;
      }
      if (n) q->p[q->n++] = (point){order[i], n};
    }
    if (!any) break;
  }
}

/* ------------------------------------------------------------ a table under test */

typedef struct ptable {
  const char *layout;
  char wh[512], state[512], dir[600], out[700];
  long long next;
  od_begun begun;
  long long verified_snapshot;
  long long verified_schema;
} ptable;

static void pt_init(ptable *t, const char *layout, const char *name) {
  memset(t, 0, sizeof *t);
  t->layout = layout;
  snprintf(t->wh, sizeof t->wh, "%s/%s/wh", tmp_root, name);
  snprintf(t->state, sizeof t->state, "%s/%s/state", tmp_root, name);
  snprintf(t->dir, sizeof t->dir, "%s/db.db/t", t->wh);
  snprintf(t->out, sizeof t->out, "%s/%s/driver.out", tmp_root, name);
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s' '%s'", t->wh, t->state);
  CHECK(system(cmd) == 0);
  t->verified_snapshot = t->verified_schema = -1;
}

/* Runs batches from..to (with the rule armed at phase `at` when rule != NULL). */
static void pt_run(ptable *t, const char *at, const char *rule, long long from, long long to, double kill_after,
                   od_out *o) {
  const char *flags[] = {"--mix", "--layout", t->layout, "--target-file-size", TARGET_FILE_SIZE, "--state", t->state,
                         "--user", USER, rule ? "--at" : NULL, at, "--rule", rule, NULL};
  od_run_range(flags, t->wh, from, to, t->out, kill_after, &t->begun, o);
}

static size_t pt_pending(const ptable *t, long long *ids, size_t cap) {
  size_t n = 0;
  DIR *d = opendir(t->state);
  struct dirent *de;
  while (d && (de = readdir(d)) != NULL && n < cap) {
    long long k;
    if (sscanf(de->d_name, "pending-%lld.bin", &k) == 1 && strstr(de->d_name, ".bin") && !strstr(de->d_name, ".tmp"))
      ids[n++] = k;
  }
  if (d) closedir(d);
  return n;
}

static int pt_has_schema(const ptable *t, int id) {
  char p[700];
  snprintf(p, sizeof p, "%s/schema/schema-%d", t->dir, id);
  return access(p, F_OK) == 0;
}

/* The rows the published batches (in snapshot order) must leave. */
static json_t *pt_expected(const ptable *t, const ot_snapshot *s, size_t n, int with_extra) {
  ot_model m;
  ot_model_init(&m);
  int partitioned = oc_layout_find(t->layout)->partition_keys != NULL;
  for (size_t i = 0; i < n; i++) {
    long long b = s[i].commit_identifier;
    char buf[8192], dbuf[32];
    oc_batch_json_extra(b, 0, -1, b >= OC_ALTER_AT, buf, sizeof buf);
    json_t *rows = ot_parse_lines(buf, NULL);
    size_t j;
    json_t *r;
    json_array_foreach(rows, j, r) if (with_extra && !json_object_get(r, OC_EXTRA_COLUMN))
        json_object_set_new(r, OC_EXTRA_COLUMN, json_null());
    if (oc_mix_overwrite(b)) {
      const char *dt = oc_dt(b, -1, dbuf, sizeof dbuf);
      json_t *v = dt ? json_string(dt) : json_null();
      const char *key = OC_PARTITION_KEY;
      const json_t *vals[1] = {v};
      ot_model_overwrite(&m, &key, vals, partitioned ? 1 : 0, rows);
      json_decref(v);
    } else {
      ot_model_append(&m, rows);
    }
    json_decref(rows);
  }
  return m.live;
}

typedef struct check_job {
  const char *dir, *what;
  int final, ok;
} check_job;

static void *check_thread(void *arg) {
  check_job *j = arg;
  static const char *const stale_hint[] = {"snapshot/LATEST: says "};
  j->ok = j->final ? ot_check_ok(j->dir, OT_AFTER_CRASH, j->what)
                   : ot_check_ok_allowing(j->dir, OT_AFTER_CRASH, stale_hint, 1, j->what);
  return NULL;
}

/* Our reader on the table (a fresh catalog on the local fs). */
static json_t *pt_read_ours(const ptable *t, long long *schema_id, paimon_error *err) {
  paimon_option o = {"warehouse", t->wh};
  paimon_catalog *cat = NULL;
  paimon_table *tbl = NULL;
  json_t *rows = NULL;
  paimon_status st = paimon_catalog_open(&o, 1, &cat, err);
  if (!st) st = paimon_catalog_get_table(cat, "db.t", &tbl, err);
  if (!st) {
    *schema_id = paimon_table_schema_id(tbl);
    rows = ow_read_ours(tbl, err);
  }
  paimon_table_free(tbl);
  paimon_catalog_free(cat);
  return rows;
}

/* Our reader and (oracle) paimon-table check and read against the published batches s[0..n). */
static void pt_oracle(ptable *t, const ot_snapshot *s, size_t n, const char *what, int final, int oracle) {
  double t0 = od_now();
  /* the oracle's check in a second thread while the reads run */
  check_job job = {t->dir, what, final, 1};
  pthread_t th;
  int threaded = oracle && pthread_create(&th, NULL, check_thread, &job) == 0;
  if (oracle && !threaded) check_thread(&job);
  oracle_calls += oracle;
  paimon_error err = {0};
  long long schema_id = -1;
  json_t *ours = pt_read_ours(t, &schema_id, &err);
  CHECK_MSG(ours != NULL, "%s: our reader: %s %s", what, paimon_status_name(err.code), err.message);
  json_t *expected = pt_expected(t, s, n, schema_id >= 1);
  if (ours) {
    char msg[8192];
    CHECK_MSG(ot_rows_match(expected, ours, msg, sizeof msg), "%s: our reader: %s", what, msg);
  }
  long long latest = n ? s[n - 1].id : 0;
  if (oracle && n && (latest != t->verified_snapshot || schema_id != t->verified_schema || final)) {
    char extra[64];
    snprintf(extra, sizeof extra, "--schema-id %lld", schema_id);
    int ok = ot_read_equals(t->dir, extra, expected, what);
    oracle_calls++;
    CHECK(ok);
    if (ok) {
      t->verified_snapshot = latest;
      t->verified_schema = schema_id;
    }
  }
  if (threaded) pthread_join(th, NULL);
  CHECK(job.ok);
  oracle_seconds += od_now() - t0;
  json_decref(ours);
  json_decref(expected);
}

/* Verifies the table after a run (file comment). final: a clean run ended; light: a run
 * without a stop (snapshot checks and our reader; the oracle runs after the next stop). */
static void pt_verify_run(ptable *t, const od_out *o, const char *what, int final, int light) {
  if (!pt_has_schema(t, 0)) {
    CHECK_MSG(o->n_committed == 0, "%s: committed without a schema", what);
    CHECK_MSG(!final, "%s: a clean run left no table", what);
    return;
  }
  ot_snapshot *s = NULL;
  size_t gaps = 0;
  size_t n = ot_snapshots(t->dir, &s, &gaps);
  CHECK_MSG(gaps == 0, "%s: %zu snapshot ids missing below the highest", what, gaps);
  long long *ids = calloc(n + 1, sizeof *ids);
  size_t ni = 0;
  for (size_t i = 0; i < n; i++) {
    long long k = s[i].commit_identifier;
    CHECK_MSG(!strcmp(s[i].commit_user, USER), "%s: snapshot %lld by '%s'", what, s[i].id, s[i].commit_user);
    const char *kind = oc_mix_overwrite(k) ? "OVERWRITE" : "APPEND";
    CHECK_MSG(!strcmp(s[i].commit_kind, kind), "%s: snapshot %lld (batch %lld) is %s, not %s", what, s[i].id, k,
              s[i].commit_kind, kind);
    CHECK_MSG(!od_has(ids, ni, k), "%s: batch %lld published twice (again in snapshot %lld)", what, k, s[i].id);
    CHECK_MSG(od_has(t->begun.ids, t->begun.n, k), "%s: snapshot %lld has identifier %lld that no run began", what,
              s[i].id, k);
    if (!od_has(ids, ni, k)) ids[ni++] = k;
  }
  for (size_t i = 0; i < o->n_committed; i++)
    CHECK_MSG(od_has(ids, ni, o->committed[i]), "%s: batch %lld printed committed but is not published", what,
              o->committed[i]);
  for (size_t i = 0; i < o->n_recovered; i++)
    CHECK_MSG(od_has(ids, ni, o->recovered[i]), "%s: batch %lld recovered as committed but is not published", what,
              o->recovered[i]);
  pt_oracle(t, s, n, what, final, !light);
  for (size_t i = 0; i < ni; i++)
    if (ids[i] + 1 > t->next) t->next = ids[i] + 1;
  long long pend[64];
  size_t np = pt_pending(t, pend, 64);
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

static void pt_verify(ptable *t, const od_out *o, const char *what, int final) { pt_verify_run(t, o, what, final, 0); }

/* One stop attempt at `p` of phase ph; 1 when the driver stopped there. */
static int pt_stop(ptable *t, int ph, point p, phase_counts *pc) {
  char rule[96], what[256];
  snprintf(rule, sizeof rule, "%s:%llu:exit=%d", pm_fault_op_name(p.op), p.n, OC_EXIT_FAULT);
  long long from = t->next;
  snprintf(what, sizeof what, "%s: stop in %s at %s (batch %lld)", t->layout, ph_label[ph], rule, from);
  od_out o;
  pt_run(t, ph_at[ph], rule, from, from, -1, &o);
  parse_phases(t->out, pc, 0);
  int stopped = o.status == OC_EXIT_FAULT;
  CHECK_MSG(o.status == 0 || stopped, "%s: driver exit %d: %s", what, o.status, o.fail_line);
  pt_verify(t, &o, what, 0);
  pc->tried[ph]++;
  if (stopped) {
    pc->stops[ph]++;
    total_stops++;
  }
  return stopped;
}

/* A clean run of the next batch; light: without the oracle (a run after a stop that was checked). */
static void pt_finish(ptable *t, const char *what, int light) {
  od_out o;
  pt_run(t, NULL, NULL, t->next, t->next, -1, &o);
  CHECK_MSG(o.status == 0, "%s: final run exit %d: %s", what, o.status, o.fail_line);
  pt_verify_run(t, &o, what, 1, light);
}

/* Short-mode stop points per phase, by layout (index 0: fixed, 1: unaware). */
static const size_t quota[2][PH_COUNT] = {
    /* ddl write commit write-ow commit-ow alter recover */
    {3, 4, 5, 2, 3, 3, 2},
    {0, 2, 2, 1, 1, 1, 1},
};

/* PAIMON_LONG_TESTS=1 stop points per phase, by layout: every operation of the short phases, a
 * spread of the long ones (points in make_queue order), 311 + 272 = 583 >= 500 over both layouts
 * when every point stops. */
static const size_t long_quota[2][PH_COUNT] = {
    /* ddl write commit write-ow commit-ow alter recover */
    {13, 60, 54, 18, 70, 16, 80},
    {13, 18, 52, 13, 70, 16, 90},
};

/* 1 while phase ph wants more stops: points left, and fewer stops than its quota. */
static int want(const queue *q, const phase_counts *pc, int qi, int ph) {
  return q[ph].next < q[ph].n && (size_t)pc->stops[ph] < (long_mode ? long_quota : quota)[qi][ph];
}

static void run_layout(const char *layout, int qi, int kills) {
  char name[64];
  /* 1. the counting run: a fresh table, the whole schedule, nothing armed */
  ptable cnt;
  snprintf(name, sizeof name, "%s-count", layout);
  pt_init(&cnt, layout, name);
  od_out o;
  phase_counts pc;
  memset(&pc, 0, sizeof pc);
  pt_run(&cnt, NULL, NULL, 0, 7, -1, &o);
  CHECK_MSG(o.status == 0, "%s: counting run: exit %d %s", layout, o.status, o.fail_line);
  if (o.status != 0) return;
  parse_phases(cnt.out, &pc, 1);
  pt_verify_run(&cnt, &o, "counting run", 1, 1);
  queue *q = calloc(PH_COUNT, sizeof *q);
  for (int ph = 0; ph < PH_COUNT; ph++) {
    unsigned long long total = 0;
    for (int op = 0; op < PM_FAULT_OP_COUNT; op++) total += pc.hi[ph][op];
    if (ph != PH_RECOVER) CHECK_MSG(pc.seen[ph] && total > 0, "%s: phase %s not seen", layout, ph_label[ph]);
    make_queue(pc_counts(&pc, ph), &q[ph]);
  }

  /* 2. ddl stops, each on a fresh warehouse, then the run that completes it */
  for (size_t i = 0; want(q, &pc, qi, PH_DDL) && pm_test_failures <= 20; i++) {
    ptable d;
    snprintf(name, sizeof name, "%s-ddl-%zu", layout, i);
    pt_init(&d, layout, name);
    if (pt_stop(&d, PH_DDL, q[PH_DDL].p[q[PH_DDL].next++], &pc)) pt_finish(&d, "after a ddl stop", 1);
  }

  /* 3. stops in the other phases on one growing table */
  ptable t;
  snprintf(name, sizeof name, "%s-grow", layout);
  pt_init(&t, layout, name);
  pt_run(&t, NULL, NULL, 0, 0, -1, &o);
  CHECK_MSG(o.status == 0, "%s: first run: exit %d %s", layout, o.status, o.fail_line);
  pt_verify(&t, &o, "first run", 0);
  int recover_built = 0;
  char grow[700], prealter[700], cmd[2300];
  snprintf(grow, sizeof grow, "%s/%s-grow", tmp_root, layout);
  snprintf(prealter, sizeof prealter, "%s/%s-prealter", tmp_root, layout);
  int have_template = 0;
  for (int runs = 0; runs < (long_mode ? 20000 : 400) && pm_test_failures <= 20; runs++) {
    if (!recover_built && pc.seen[PH_RECOVER]) {
      make_queue(pc_counts(&pc, PH_RECOVER), &q[PH_RECOVER]);
      recover_built = 1;
    }
    long long b = t.next, pend[8];
    int has_recover = pt_pending(&t, pend, 8) > 0;
    int has_alter = b == OC_ALTER_AT && !pt_has_schema(&t, 1);
    /* alter stops: each from the same state before the alter (a copy taken the first time) */
    if (has_alter && want(q, &pc, qi, PH_ALTER)) {
      if (!have_template) {
        snprintf(cmd, sizeof cmd, "cp -a '%s' '%s'", grow, prealter);
        CHECK(system(cmd) == 0);
        have_template = 1;
      } else {
        snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -a '%s' '%s'", grow, prealter, grow);
        CHECK(system(cmd) == 0);
        t.verified_snapshot = t.verified_schema = -1;
      }
      pt_stop(&t, PH_ALTER, q[PH_ALTER].p[q[PH_ALTER].next++], &pc);
      continue;
    }
    if (b > OC_ALTER_AT) q[PH_ALTER].next = q[PH_ALTER].n; /* passed (only if the copy could not run) */
    int ow = oc_mix_overwrite(b);
    int wr = ow ? PH_WRITE_OW : PH_WRITE, co = ow ? PH_COMMIT_OW : PH_COMMIT;
    int ph = -1;
    if (has_recover && want(q, &pc, qi, PH_RECOVER)) ph = PH_RECOVER;
    else if (has_alter) ph = -1; /* the alter is done by an unarmed run */
    else if (want(q, &pc, qi, wr) && want(q, &pc, qi, co))
      ph = q[co].n - q[co].next > q[wr].n - q[wr].next ? co : wr;
    else if (want(q, &pc, qi, wr)) ph = wr;
    else if (want(q, &pc, qi, co)) ph = co;
    int left = !recover_built;
    for (int i = 0; i < PH_COUNT; i++)
      if (i != PH_DDL && want(q, &pc, qi, i)) left = 1;
    if (!left) break;
    if (ph < 0 && !has_recover && !has_alter && want(q, &pc, qi, PH_RECOVER) &&
        !(want(q, &pc, qi, PH_WRITE) || want(q, &pc, qi, PH_COMMIT) || want(q, &pc, qi, PH_WRITE_OW) ||
          want(q, &pc, qi, PH_COMMIT_OW))) {
      /* only recovery points left: a stop before the snapshot's publication leaves a pending commit */
      point p = {PM_FAULT_OP_CREATE_IF_ABSENT, pc.lo[co][PM_FAULT_OP_CREATE_IF_ABSENT]};
      pt_stop(&t, co, p, &pc);
      continue;
    }
    if (ph < 0) {
      /* nothing to stop in this run: advance one batch */
      pt_run(&t, NULL, NULL, b, b, -1, &o);
      parse_phases(t.out, &pc, 0);
      CHECK_MSG(o.status == 0, "%s: advancing run: exit %d %s", layout, o.status, o.fail_line);
      pt_verify_run(&t, &o, "advancing run", 0, 1);
      continue;
    }
    pt_stop(&t, ph, q[ph].p[q[ph].next++], &pc);
  }

  /* 4. SIGKILL at random times during runs of several batches */
  if (kills > 0) {
    const long long per_run = 4;
    pt_run(&t, NULL, NULL, t.next, t.next + per_run - 1, -1, &o);
    CHECK_MSG(o.status == 0, "%s: timing run: exit %d %s", layout, o.status, o.fail_line);
    pt_verify(&t, &o, "timing run", 0);
    double span = o.seconds > 0.01 ? o.seconds : 0.01;
    unsigned seed = getenv("PM_CRASH_SEED") ? (unsigned)atoi(getenv("PM_CRASH_SEED"))
                                            : (long_mode ? (unsigned)time(NULL) : 20261202u);
    fprintf(stderr, "  %s: SIGKILL seed %u (PM_CRASH_SEED), %lld batches take %.3f s\n", layout, seed, per_run, span);
    srand(seed);
    int got = 0;
    for (int attempt = 0; got < kills && attempt < kills * 4 && pm_test_failures <= 20; attempt++) {
      double at = span * (double)rand() / RAND_MAX;
      long long from = t.next;
      pt_run(&t, NULL, NULL, from, from + per_run - 1, at, &o);
      char what[128];
      snprintf(what, sizeof what, "%s: SIGKILL after %.3f s (batches %lld..)", layout, at, from);
      int killed = o.status == 128 + SIGKILL;
      CHECK_MSG(o.status == 0 || killed, "%s: driver exit %d: %s", what, o.status, o.fail_line);
      pt_verify(&t, &o, what, 0);
      got += killed;
      total_kills += killed;
    }
    fprintf(stderr, "  %s: %d SIGKILL stops\n", layout, got);
    CHECK(got >= (kills + 1) / 2);
  }
  pt_finish(&t, "after the stops", 0);

  int sum = 0;
  for (int ph = 0; ph < PH_COUNT; ph++) {
    unsigned long long ops = 0;
    for (int op = 0; op < PM_FAULT_OP_COUNT; op++) ops += pc.hi[ph][op];
    fprintf(stderr, "  %s: %-18s %3llu operations, %3zu points tried, %3d stops\n", layout, ph_label[ph], ops,
            (size_t)pc.tried[ph], pc.stops[ph]);
    sum += pc.stops[ph];
    /* every phase is stopped in (recover: at least once the queue was built) */
    if (long_mode) CHECK_MSG(pc.stops[ph] > 0, "%s: no stop in phase %s", layout, ph_label[ph]);
    else CHECK_MSG((size_t)pc.stops[ph] >= quota[qi][ph], "%s: %d stops in phase %s, not %zu", layout, pc.stops[ph],
                   ph_label[ph], quota[qi][ph]);
  }
  fprintf(stderr, "  %s: %d fs stops\n", layout, sum);
  free(q);
}

static void test_fixed_bucket_partitioned(void) { run_layout("fixed", 0, long_mode ? 20 : 2); }
static void test_unaware_bucket_unpartitioned(void) { run_layout("unaware", 1, long_mode ? 20 : 1); }

int main(void) {
  int go = od_test_begin("write_crash_phases", ot_available(), tmp_root, sizeof tmp_root, &long_mode);
  if (go < 0) return 1;
  if (!go) TEST_MAIN_END();
  /* the oracle judges each distinct table state once (support/oracle_table.h verdict cache) */
  ot_cache_enable(!getenv("PM_CRASH_NO_CACHE"));
  double t0 = od_now();
  RUN_TEST(test_fixed_bucket_partitioned);
  RUN_TEST(test_unaware_bucket_unpartitioned);
  fprintf(stderr, "%d fs stops + %d SIGKILLs (%s mode), %.1f s (%d oracle runs %.1f s)\n", total_stops, total_kills,
          long_mode ? "long" : "short", od_now() - t0, oracle_calls, oracle_seconds);
  fprintf(stderr, "oracle: %lu distinct (state, command) runs, %lu cached verdicts reused\n", ot_cache.misses,
          ot_cache.hits);
  /* stop points as the issue counts them: fs operations stopped in turn plus SIGKILLs at random times */
  CHECK_MSG(total_stops + total_kills >= (long_mode ? 500 : 30), "%d fs stops + %d SIGKILLs", total_stops,
            total_kills);
  ot_cache_clear();
  od_test_end(tmp_root, pm_test_failures);
  TEST_MAIN_END();
}
