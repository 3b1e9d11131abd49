/*
 * Crash and fault tests of the primary-key writer (issue 12 §4). The crash
 * driver (tests/api/crash_driver.c, --layout pk --upsert N) writes batches of
 * upserts and deletes over a few keys into a 2-bucket partitioned primary-key
 * table (write buffer flush at prepare_commit: level-0 key/value files, then
 * the commit), one commit identifier per batch; it is stopped at fs operation
 * N of each kind in turn ("OP:N:exit=42", the operations counted in one
 * batch's flush + commit). After every stop:
 *   - `paimon-table check --after-crash` passes (a stale LATEST hint allowed);
 *   - no identifier is published twice, every batch printed committed is published;
 *   - our reader returns exactly the model (tests/support/pk_model.h) of the
 *     published batches applied in commit order; `paimon-table read` too,
 *     on every 8th changed state and at the end (the oracle costs ~1.5 s a call);
 * and the next run first recovers the interrupted commit (filter_committed).
 * Faults (in process, the fault fs under the catalog): an injected I/O error
 * at each fs operation of a primary-key write + flush (prepare_commit) and of
 * its commit gives a failed status naming the fault and the table unchanged
 * (commit: PAIMON_ERR_IO = nothing published; UNKNOWN_OUTCOME = maybe, decided
 * by the snapshots), the batch written again then commits.
 * make test: 34 stop points (>= 30 stop); PAIMON_LONG_TESTS=1: every operation of a batch.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "io/fs_fault.h"
#include "support/oracle_crash.h"
#include "support/oracle_driver.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/oracle_table.h"
#include "support/oracle_write.h"
#include "support/pk_model.h"

#define USER "crash-user"
#define N_KEYS 12
#define ROWS 6

static char tmp_root[256];
static int long_mode;
static int oracle_calls;

/* The expected rows: the published batches in commit (= identifier) order through the model. */
static json_t *expected_rows(const long long *ids, size_t n) {
  static const pkm_column cols[3] = {
      {"dt", PKM_STRING, PKM_AGG_DEFAULT, 0, -1}, {"id", PKM_INT, PKM_AGG_DEFAULT, 0, -1},
      {"name", PKM_STRING, PKM_AGG_DEFAULT, 0, -1}};
  pkm_config cfg = {PKM_DEDUPLICATE, 3, cols, 2, 0, 0, 0, 0, NULL};
  pkm_model *m = pkm_new(&cfg);
  long long *sorted = malloc((n + 1) * sizeof *sorted);
  memcpy(sorted, ids, n * sizeof *ids);
  for (size_t i = 1; i < n; i++)
    for (size_t j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
      long long x = sorted[j];
      sorted[j] = sorted[j - 1];
      sorted[j - 1] = x;
    }
  for (size_t k = 0; k < n; k++) {
    long long b = sorted[k];
    for (int del = 0; del < 2; del++)
      for (int i = 0; i < oc_rows(b, ROWS); i++) {
        if (oc_upsert_is_delete(b, i) != del) continue;
        int id = oc_upsert_id(b, i, N_KEYS);
        char dt[16], name[32];
        snprintf(dt, sizeof dt, "part%d", id % 2);
        snprintf(name, sizeof name, "b%lld-%d", b, i);
        pkm_value v[3] = {pkm_str(dt), pkm_int(id), pkm_str(name)};
        CHECK(pkm_add(m, del ? PKM_DELETE : PKM_INSERT, v) == 0);
      }
    pkm_flush(m);
  }
  json_t *rows = pkm_rows(m);
  pkm_free(m);
  free(sorted);
  return rows;
}

static json_t *read_ours(const char *wh, paimon_error *err) {
  paimon_option o[] = {{"warehouse", wh}};
  paimon_catalog *cat = NULL;
  paimon_table *t = NULL;
  json_t *rows = NULL;
  if (!paimon_catalog_open(o, 1, &cat, err) && !paimon_catalog_get_table(cat, "db.t", &t, err))
    rows = ow_read_ours(t, err);
  paimon_table_free(t);
  paimon_catalog_free(cat);
  return rows;
}

/* ------------------------------------------------------------ crash stops */

typedef struct pk_table {
  char wh[512], state[512], dir[600];
  long long next;
  od_begun begun;
  long long latest_read;
  int changed;
} pk_table;

static void run_driver(pk_table *t, const char *rule, long long from, long long to, od_out *o) {
  char out[700], keys[16], rows[16];
  snprintf(keys, sizeof keys, "%d", N_KEYS);
  snprintf(rows, sizeof rows, "%d", ROWS);
  snprintf(out, sizeof out, "%s/../driver.out", t->wh);
  const char *flags[] = {"--state", t->state, "--user", USER, "--layout", "pk", "--upsert", keys, "--rows", rows,
                         rule ? "--rule" : NULL, rule, NULL};
  od_run_range(flags, t->wh, from, to, out, -1, &t->begun, o);
}

static void verify(pk_table *t, const od_out *o, const char *what, int final) {
  char p[700];
  snprintf(p, sizeof p, "%s/schema/schema-0", t->dir);
  if (access(p, F_OK) != 0) {
    CHECK_MSG(o->n_committed == 0, "%s: committed without a schema", what);
    return;
  }
  ot_snapshot *s = NULL;
  size_t gaps = 0, n = ot_snapshots(t->dir, &s, &gaps);
  CHECK_MSG(gaps == 0, "%s: %zu snapshot ids missing", what, gaps);
  long long *ids = calloc(n + 1, sizeof *ids);
  size_t ni = 0;
  for (size_t i = 0; i < n; i++) {
    long long k = s[i].commit_identifier;
    /* the writer's compaction publishes a COMPACT snapshot with the same identifier */
    if (strcmp(s[i].commit_kind, "APPEND")) continue;
    CHECK_MSG(!od_has(ids, ni, k), "%s: batch %lld published twice", what, k);
    CHECK_MSG(od_has(t->begun.ids, t->begun.n, k), "%s: identifier %lld that no run began", what, k);
    if (!od_has(ids, ni, k)) ids[ni++] = k;
  }
  for (size_t i = 0; i < o->n_committed; i++)
    CHECK_MSG(od_has(ids, ni, o->committed[i]), "%s: batch %lld printed committed, not published", what,
              o->committed[i]);
  static const char *const stale_hint[] = {"snapshot/LATEST: says "};
  if (final) CHECK(ot_check_ok(t->dir, OT_AFTER_CRASH, what));
  else CHECK(ot_check_ok_allowing(t->dir, OT_AFTER_CRASH, stale_hint, 1, what));
  oracle_calls++;
  json_t *want = expected_rows(ids, ni);
  paimon_error err = {0};
  json_t *ours = read_ours(t->wh, &err);
  char msg[8192] = "";
  CHECK_MSG(ours && ot_rows_match(want, ours, msg, sizeof msg), "%s: our reader != model: %s %s", what, msg,
            ours ? "" : err.message);
  json_decref(ours);
  long long latest = n ? s[n - 1].id : 0;
  if (latest != t->latest_read && (final || long_mode || t->changed++ % 8 == 0)) {
    oracle_calls++;
    if (ot_read_equals(t->dir, NULL, want, what)) t->latest_read = latest;
    else CHECK_MSG(0, "%s: paimon-table read != model", what);
  }
  json_decref(want);
  for (size_t i = 0; i < ni; i++)
    if (ids[i] + 1 > t->next) t->next = ids[i] + 1;
  for (size_t i = 0; i < t->begun.n; i++)
    if (t->begun.ids[i] + 1 > t->next) t->next = t->begun.ids[i] + 1;
  if (final)
    for (size_t i = 0; i < t->begun.n; i++)
      CHECK_MSG(od_has(ids, ni, t->begun.ids[i]), "%s: batch %lld began but was never published", what, t->begun.ids[i]);
  free(ids);
  free(s);
}

static void test_crash_stops(void) {
  pk_table t;
  memset(&t, 0, sizeof t);
  snprintf(t.wh, sizeof t.wh, "%s/crash/wh", tmp_root);
  snprintf(t.state, sizeof t.state, "%s/crash/state", tmp_root);
  snprintf(t.dir, sizeof t.dir, "%s/db.db/t", t.wh);
  t.latest_read = -1;
  CHECK(oc_mkdirs(t.wh) == 0 && oc_mkdirs(t.state) == 0);
  od_out o;
  run_driver(&t, NULL, 0, 1, &o); /* creates the table, two batches */
  CHECK_MSG(o.status == 0, "first run: exit %d %s", o.status, o.fail_line);
  verify(&t, &o, "first run", 0);
  run_driver(&t, NULL, t.next, t.next, &o); /* a steady batch's operation counts */
  CHECK_MSG(o.status == 0 && o.have_counts, "counting run: exit %d %s", o.status, o.fail_line);
  verify(&t, &o, "counting run", 0);
  if (o.status) return;
  unsigned long long counts[PM_FAULT_OP_COUNT];
  memcpy(counts, o.counts, sizeof counts);
  unsigned long long total = 0;
  for (int op = 0; op < PM_FAULT_OP_COUNT; op++) total += counts[op];
  fprintf(stderr, "  one batch (flush + commit): %llu fs operations\n", total);
  /* every operation in long mode; else every occurrence of the publishing kinds and a sample of
   * the rest, thinned evenly to 34 stop points (the oracle check after each costs ~1.5 s) */
  typedef struct point {
    pm_fault_op op;
    unsigned long long n;
  } point;
  static point pts[4096];
  size_t np = 0;
  for (int op = 0; op < PM_FAULT_OP_COUNT; op++) {
    pm_fault_op k = (pm_fault_op)op;
    int all = long_mode || k == PM_FAULT_OP_CREATE || k == PM_FAULT_OP_CREATE_IF_ABSENT ||
              k == PM_FAULT_OP_PUBLISH || k == PM_FAULT_OP_RENAME || k == PM_FAULT_OP_FSYNC ||
              k == PM_FAULT_OP_DELETE || k == PM_FAULT_OP_MKDIRS;
    unsigned long long stride = all || counts[op] < 4 ? 1 : counts[op] / 4;
    for (unsigned long long n = 1; n <= counts[op] && np < 4096; n += stride) pts[np++] = (point){k, n};
  }
  int stops = 0, target = 30;
  size_t want = long_mode ? np : 34;
  for (size_t j = 0; j < want && j < np && pm_test_failures < 20; j++) {
    const point *pt = &pts[long_mode || np <= want ? j : j * np / want];
    char rule[96], what[160];
    snprintf(rule, sizeof rule, "%s:%llu:exit=%d", pm_fault_op_name(pt->op), pt->n, OC_EXIT_FAULT);
    run_driver(&t, rule, t.next, t.next, &o);
    snprintf(what, sizeof what, "stop %s (batch %lld)", rule, t.next);
    int stopped = o.status == OC_EXIT_FAULT;
    CHECK_MSG(o.status == 0 || stopped, "%s: driver exit %d: %s", what, o.status, o.fail_line);
    verify(&t, &o, what, 0);
    stops += stopped;
  }
  /* a clean run recovers the last interrupted commit */
  run_driver(&t, NULL, t.next, t.next, &o);
  CHECK_MSG(o.status == 0, "final run: exit %d %s", o.status, o.fail_line);
  verify(&t, &o, "after the stops", 1);
  fprintf(stderr, "  %d stop points (%s mode), %d oracle calls\n", stops, long_mode ? "long" : "short",
          oracle_calls);
  CHECK(stops >= target);
}

/* ------------------------------------------------------------ injected I/O errors */

typedef struct ftable {
  pm_fs *fs;
  paimon_catalog *cat;
  char wh[512], dir[600];
  long long next;
  long long published[4096];
  size_t n_published;
} ftable;

static long long latest_snapshot(const ftable *t) {
  ot_snapshot *s = NULL;
  size_t gaps = 0, n = ot_snapshots(t->dir, &s, &gaps);
  long long id = n ? s[n - 1].id : 0;
  free(s);
  return id;
}

/* Batch k: write (upserts, deletes) + prepare_commit with `wrule` armed, then the commit with
 * `crule` armed (either may be NULL). Returns the first failing status; *phase = 1 write, 2 commit. */
static paimon_status write_commit(ftable *t, long long k, const pm_fault_rule *wrule, const pm_fault_rule *crule,
                                  unsigned long long *wcounts, unsigned long long *ccounts, int *phase,
                                  paimon_error *err) {
  paimon_table *tbl = NULL;
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  paimon_commit_messages *m = NULL;
  paimon_table_commit *c = NULL;
  *phase = 1;
  pm_fault_fs_disarm(t->fs);
  paimon_status st = paimon_catalog_get_table(t->cat, "db.t", &tbl, err);
  if (!st) st = paimon_write_builder_new(tbl, 1, NULL, 0, &wb, err);
  if (!st) st = paimon_write_builder_with_commit_user(wb, USER, err);
  if (!st && wrule) pm_fault_fs_arm(t->fs, wrule);
  if (!st) st = paimon_write_builder_new_write(wb, &w, err);
  for (int del = 0; !st && del < 2; del++) {
    char json[4096];
    if (!oc_upsert_json(k, ROWS, N_KEYS, del, json, sizeof json)) continue;
    struct ArrowSchema s = {0};
    struct ArrowArray a = {0};
    st = ow_batch(tbl, json, &s, &a, err);
    if (!st) st = paimon_table_write_arrow_kind(w, &s, &a, del ? PAIMON_ROW_KIND_DELETE : PAIMON_ROW_KIND_INSERT, err);
    if (a.release) a.release(&a);
    if (s.release) s.release(&s);
  }
  if (!st) st = paimon_table_write_prepare_commit(w, k, &m, err);
  paimon_table_write_free(w);
  for (int op = 0; wcounts && op < PM_FAULT_OP_COUNT; op++) wcounts[op] = pm_fault_fs_count(t->fs, (pm_fault_op)op);
  pm_fault_fs_disarm(t->fs);
  if (!st) {
    *phase = 2;
    st = paimon_write_builder_new_commit(wb, &c, err);
    if (!st && crule) pm_fault_fs_arm(t->fs, crule);
    if (!st) st = paimon_table_commit_commit(c, m, k, NULL, err);
    for (int op = 0; ccounts && op < PM_FAULT_OP_COUNT; op++)
      ccounts[op] = pm_fault_fs_count(t->fs, (pm_fault_op)op);
    pm_fault_fs_disarm(t->fs);
    if (st == PAIMON_OK) t->published[t->n_published++] = k;
    if (st != PAIMON_OK && st != PAIMON_ERR_UNKNOWN_OUTCOME) {
      paimon_error e2 = {0};
      paimon_table_commit_abort(c, m, &e2);
    }
  }
  paimon_table_commit_free(c);
  paimon_commit_messages_free(m);
  paimon_write_builder_free(wb);
  paimon_table_free(tbl);
  return st;
}

static void fverify(ftable *t, const char *what, int oracle) {
  json_t *want = expected_rows(t->published, t->n_published);
  paimon_table *tbl = NULL;
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_get_table(t->cat, "db.t", &tbl, &err), &err);
  json_t *ours = tbl ? ow_read_ours(tbl, &err) : NULL;
  char msg[8192] = "";
  CHECK_MSG(ours && ot_rows_match(want, ours, msg, sizeof msg), "%s: our reader != model: %s", what, msg);
  json_decref(ours);
  paimon_table_free(tbl);
  if (oracle) {
    CHECK(ot_check_ok(t->dir, 0, what));
    CHECK(ot_read_equals(t->dir, NULL, want, what));
  }
  json_decref(want);
}

static void test_io_faults(void) {
  ftable t;
  memset(&t, 0, sizeof t);
  snprintf(t.wh, sizeof t.wh, "%s/faults/wh", tmp_root);
  snprintf(t.dir, sizeof t.dir, "%s/db.db/t", t.wh);
  CHECK(oc_mkdirs(t.wh) == 0);
  pm_error e;
  pm_error_clear(&e);
  CHECK_OK(pm_fault_fs_new(pm_fs_local(), &t.fs, &e), &e);
  pm_options o;
  pm_options_init(&o);
  pm_options_set(&o, "warehouse", t.wh, &e);
  t.cat = calloc(1, sizeof *t.cat);
  CHECK_OK(pm_catalog_open_with_fs(t.fs, &o, &t.cat->c, &e), &e);
  pm_options_clear(&o);
  const oc_layout *l = oc_layout_find("pk");
  paimon_error err = {0};
  CHECK_OK(ow_create_table(t.cat, "db", "t", OC_COLUMNS, l->partition_keys, l->options, 2, 0, &err), &err);
  int phase;
  unsigned long long wc[PM_FAULT_OP_COUNT] = {0}, cc[PM_FAULT_OP_COUNT] = {0};
  pm_fault_rule never = {PM_FAULT_OP_OPEN, UINT64_MAX, 1, PM_FAULT_ERROR, 0};
  CHECK_OK(write_commit(&t, t.next++, NULL, NULL, NULL, NULL, &phase, &err), &err);
  CHECK_OK(write_commit(&t, t.next++, &never, &never, wc, cc, &phase, &err), &err);
  fverify(&t, "plain writes", 1);
  int cases = 0, failed = 0, unknown = 0;
  for (int ph = 1; ph <= 2; ph++) {
    const unsigned long long *counts = ph == 1 ? wc : cc;
    for (int op = 0; op < PM_FAULT_OP_COUNT && pm_test_failures < 20; op++) {
      unsigned long long stride = long_mode || counts[op] < 3 ? 1 : counts[op] / 3;
      for (unsigned long long n = 1; n <= counts[op] && pm_test_failures < 20; n += stride) {
        pm_fault_rule r = {(pm_fault_op)op, n, 1, PM_FAULT_ERROR, 0};
        char what[160];
        snprintf(what, sizeof what, "%s: %s #%llu error", ph == 1 ? "write+flush" : "commit",
                 pm_fault_op_name((pm_fault_op)op), n);
        long long k = t.next++, before = latest_snapshot(&t);
        int got_phase;
        paimon_status st = write_commit(&t, k, ph == 1 ? &r : NULL, ph == 2 ? &r : NULL, NULL, NULL, &got_phase, &err);
        cases++;
        if (st == PAIMON_ERR_UNKNOWN_OUTCOME) {
          /* maybe published: the snapshots decide (never aborted) */
          unknown++;
          if (latest_snapshot(&t) != before) t.published[t.n_published++] = k;
        } else if (st != PAIMON_OK) {
          failed++;
          CHECK_MSG(strstr(err.message, "injected") != NULL, "%s: %s without the fault's message: %s", what,
                    paimon_status_name(st), err.message);
          CHECK_MSG(got_phase == 2 || st == PAIMON_ERR_IO || st == PAIMON_ERR_CORRUPT, "%s: status %s", what,
                    paimon_status_name(st));
          CHECK_MSG(latest_snapshot(&t) == before, "%s: a failed %s changed the snapshots", what,
                    got_phase == 1 ? "write" : "commit");
        }
        fverify(&t, what, long_mode);
        if (st != PAIMON_OK && latest_snapshot(&t) == before) {
          paimon_error e2 = {0};
          CHECK_OK(write_commit(&t, k, NULL, NULL, NULL, NULL, &got_phase, &e2), &e2); /* again, nothing armed */
        }
      }
    }
  }
  fverify(&t, "after the faults", 1);
  fprintf(stderr, "  %d fault cases: %d failed, %d unknown outcome\n", cases, failed, unknown);
  CHECK(cases >= 20 && failed >= 10);
  paimon_catalog_free(t.cat);
  pm_fs_unref(t.fs);
}

int main(void) {
  int go = od_test_begin("write_pk_crash", ot_available(), tmp_root, sizeof tmp_root, &long_mode);
  if (go < 0) return 1;
  if (!go) TEST_MAIN_END();
  RUN_TEST(test_crash_stops);
  RUN_TEST(test_io_faults);
  od_test_end(tmp_root, pm_test_failures);
  TEST_MAIN_END();
}
