/*
 * Injected I/O faults in the commit path (issue 11 §5 "Faults"): a catalog on
 * the fault-injecting fs; the commit messages of one batch (a Parquet data
 * file made as support/oracle_messages.h does until the table writer lands)
 * are committed through the public API with each fs operation of the commit
 * failing in turn (error; short read for reads; lost effect), and:
 *   - a commit returns OK (then the batch is there, complete), CONFLICT or
 *     another error (nothing published: no snapshot has the identifier, the
 *     latest snapshot is unchanged; abort works), or UNKNOWN_OUTCOME (the batch
 *     is published completely or not at all; retrying with the same user and
 *     identifier after filter_committed publishes it exactly once);
 *   - the table passes `paimon-table check` and `paimon-table read` returns
 *     exactly the batches published so far (never a half-visible snapshot).
 * The oracle runs after every case whose latest snapshot changed and after
 * every 4th of the others (all of them with PAIMON_LONG_TESTS=1); the snapshot
 * files are inspected after every case.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/api_internal.h"
#include "harness.h"
#include "io/fs_fault.h"
#include "support/oracle_messages.h"
#include "support/oracle_table.h"

#define USER "fault-user"

static char tmp_root[256];
static int long_mode;

typedef struct fault_table {
  pm_fs *fs;
  paimon_catalog *cat;
  char dir[600];
  long long next;        /* next batch / identifier */
  long long published[4096];
  size_t n_published;
  int cases, oracle_runs;
  int by_status[16];
} fault_table;

static void ft_open(fault_table *t, const char *name, const char *const *options, size_t n_options) {
  memset(t, 0, sizeof *t);
  char wh[512];
  snprintf(wh, sizeof wh, "%s/%s", tmp_root, name);
  snprintf(t->dir, sizeof t->dir, "%s/db.db/t", wh);
  CHECK(oc_create_table(wh, "db", "t", options, n_options) == 0);
  pm_error e;
  pm_error_clear(&e);
  CHECK_OK(pm_fault_fs_new(pm_fs_local(), &t->fs, &e), &e);
  pm_options o;
  pm_options_init(&o);
  pm_options_set(&o, "warehouse", wh, &e);
  t->cat = calloc(1, sizeof *t->cat);
  CHECK_OK(pm_catalog_open_with_fs(t->fs, &o, &t->cat->c, &e), &e);
  pm_options_clear(&o);
}

static void ft_close(fault_table *t) {
  paimon_catalog_free(t->cat);
  pm_fs_unref(t->fs);
}

static json_t *ft_expected(const fault_table *t) {
  json_t *rows = json_array();
  for (size_t i = 0; i < t->n_published; i++) {
    char buf[4096];
    oc_batch_json(t->published[i], 0, -1, buf, sizeof buf);
    json_t *b = ot_parse_lines(buf, NULL);
    ot_model_append(&(ot_model){rows}, b);
    json_decref(b);
  }
  return rows;
}

/* Snapshots carrying identifier k (by USER) and the latest snapshot id. */
static int ft_published_count(const fault_table *t, long long k, long long *latest) {
  ot_snapshot *s = NULL;
  size_t gaps = 0, n = ot_snapshots(t->dir, &s, &gaps);
  CHECK_EQ_INT(gaps, 0);
  int c = 0;
  for (size_t i = 0; i < n; i++)
    if (s[i].commit_identifier == k && !strcmp(s[i].commit_user, USER)) c++;
  if (latest) *latest = n ? s[n - 1].id : 0;
  free(s);
  return c;
}

/* Makes the messages of batch k (nothing armed), then commits them with the rule armed (NULL:
 * none). Returns the commit status; *phase = 0 when the messages could not be made. counts (may be
 * NULL) receives the operation counts of the commit. */
static paimon_status ft_attempt(fault_table *t, const pm_fault_rule *rule, long long k, int *phase,
                                paimon_commit_messages **msgs, unsigned long long *counts, paimon_error *err) {
  paimon_table *tbl = NULL;
  pm_fault_fs_disarm(t->fs);
  *phase = 0;
  *msgs = NULL;
  paimon_status st = paimon_catalog_get_table(t->cat, "db.t", &tbl, err);
  if (!st) st = oc_batch_messages(tbl->t, k, 0, -1, k, msgs, err);
  paimon_write_builder *wb = NULL;
  paimon_table_commit *c = NULL;
  if (!st) st = paimon_write_builder_new(tbl, 1, NULL, 0, &wb, err);
  if (!st) st = paimon_write_builder_with_commit_user(wb, USER, err);
  if (!st) {
    *phase = 1;
    if (rule) pm_fault_fs_arm(t->fs, rule);
    st = paimon_write_builder_new_commit(wb, &c, err);
    if (!st) st = paimon_table_commit_commit(c, *msgs, k, NULL, err);
  }
  for (int op = 0; counts && op < PM_FAULT_OP_COUNT; op++) counts[op] = pm_fault_fs_count(t->fs, (pm_fault_op)op);
  pm_fault_fs_disarm(t->fs);
  paimon_table_commit_free(c);
  paimon_write_builder_free(wb);
  paimon_table_free(tbl);
  return st;
}

/* Commit (or abort, or filter) with nothing armed. */
static paimon_status ft_commit_plain(fault_table *t, const paimon_commit_messages *m, long long k, int abort_it,
                                     int *committed, paimon_error *err) {
  paimon_table *tbl = NULL;
  paimon_write_builder *wb = NULL;
  paimon_table_commit *c = NULL;
  paimon_status st = paimon_catalog_get_table(t->cat, "db.t", &tbl, err);
  if (!st) st = paimon_write_builder_new(tbl, 1, NULL, 0, &wb, err);
  if (!st) st = paimon_write_builder_with_commit_user(wb, USER, err);
  if (!st) st = paimon_write_builder_new_commit(wb, &c, err);
  if (!st && committed) {
    int64_t id = k;
    st = paimon_table_commit_filter_committed(c, &id, 1, committed, err);
  } else if (!st && abort_it) {
    st = paimon_table_commit_abort(c, m, err);
  } else if (!st) {
    st = paimon_table_commit_commit(c, m, k, NULL, err);
  }
  paimon_table_commit_free(c);
  paimon_write_builder_free(wb);
  paimon_table_free(tbl);
  return st;
}

static void ft_case(fault_table *t, const pm_fault_rule *rule, const char *what) {
  long long k = t->next++;
  long long latest_before = 0, latest_after = 0;
  ft_published_count(t, k, &latest_before);
  paimon_error err = {0};
  paimon_commit_messages *m = NULL;
  int phase = 0;
  paimon_status st = ft_attempt(t, rule, k, &phase, &m, NULL, &err);
  t->cases++;
  if (st >= 0 && st < 16) t->by_status[st]++;
  int pub = ft_published_count(t, k, &latest_after);
  CHECK_MSG(pub <= 1, "%s: batch %lld published %d times", what, k, pub);
  int lost = rule && rule->action == PM_FAULT_LOSE;
  if (!phase) {
    CHECK_MSG(0, "%s: the messages could not be made: %s", what, err.message);
  } else if (st == PAIMON_OK) {
    /* also when the fs lost a write: the commit notices and retries, or does not say OK */
    CHECK_MSG(pub == 1, "%s: commit OK but batch %lld not published", what, k);
    if (pub == 1) t->published[t->n_published++] = k;
  } else if (st == PAIMON_ERR_UNKNOWN_OUTCOME) {
    if (pub == 1) t->published[t->n_published++] = k;
    /* restart recovery: filter_committed agrees with the snapshots, then publish exactly once */
    int committed = -1;
    paimon_error e2 = {0};
    CHECK_OK(ft_commit_plain(t, m, k, 0, &committed, &e2), &e2);
    CHECK_MSG(committed == pub, "%s: filter_committed says %d, snapshots say %d", what, committed, pub);
    if (!committed) {
      CHECK_OK(ft_commit_plain(t, m, k, 0, NULL, &e2), &e2);
      pub = ft_published_count(t, k, NULL);
      CHECK_MSG(pub == 1, "%s: retry published batch %lld %d times", what, k, pub);
      if (pub == 1) t->published[t->n_published++] = k;
    }
  } else {
    /* CONFLICT or another error: nothing published */
    CHECK_MSG(pub == 0 && latest_after == latest_before, "%s: commit failed (%s: %s) but published snapshot %lld",
              what, paimon_status_name(st), err.message, latest_after);
    paimon_error e2 = {0};
    CHECK_OK(ft_commit_plain(t, m, k, 1, NULL, &e2), &e2);
  }
  if (st != PAIMON_OK && phase && st != PAIMON_ERR_UNKNOWN_OUTCOME && st != PAIMON_ERR_CONFLICT)
    CHECK_MSG(strstr(err.message, "injected") != NULL, "%s: status %s without the fault's message: %s", what,
              paimon_status_name(st), err.message);
  paimon_commit_messages_free(m);
  if (latest_after != latest_before || long_mode || t->cases % 4 == 0 || lost) {
    t->oracle_runs++;
    CHECK(ot_check_ok(t->dir, lost ? OT_AFTER_CRASH : 0, what));
    json_t *exp = ft_expected(t);
    CHECK(ot_read_equals(t->dir, NULL, exp, what));
    json_decref(exp);
  }
}

static void run_faults(const char *name, const char *const *options, size_t n_options) {
  fault_table t;
  ft_open(&t, name, options, n_options);
  ft_case(&t, NULL, "plain commit 0");
  ft_case(&t, NULL, "plain commit 1");
  /* a counting run: a rule that never fires counts every operation */
  pm_fault_rule never = {PM_FAULT_OP_OPEN, UINT64_MAX, 1, PM_FAULT_ERROR, 0};
  unsigned long long counts[PM_FAULT_OP_COUNT] = {0};
  paimon_error err = {0};
  paimon_commit_messages *m = NULL;
  int phase = 0;
  long long k = t.next++;
  paimon_status st = ft_attempt(&t, &never, k, &phase, &m, counts, &err);
  CHECK_OK(st, &err);
  paimon_commit_messages_free(m);
  if (!st) t.published[t.n_published++] = k;
  unsigned long long total = 0;
  for (int op = 0; op < PM_FAULT_OP_COUNT; op++) total += counts[op];
  fprintf(stderr, "  %s: one commit = %llu fs operations\n", name, total);
  CHECK(total > 0);
  int cases = 0;
  for (int op = 0; op < PM_FAULT_OP_COUNT; op++) {
    /* errors everywhere; short reads */
    pm_fault_action actions[2] = {PM_FAULT_ERROR, PM_FAULT_SHORT_READ};
    size_t na = op == PM_FAULT_OP_READ ? 2 : 1;
    for (size_t ai = 0; ai < na; ai++) {
      /* short mode: every occurrence of the rare kinds, a spread of the frequent ones */
      unsigned long long c = counts[op], stride = 1;
      if (!long_mode && c > 6) stride = c / 6;
      for (unsigned long long n = 1; n <= c; n += stride) {
        pm_fault_rule r = {(pm_fault_op)op, n, 1, actions[ai], 0};
        char what[128];
        snprintf(what, sizeof what, "%s: %s #%llu %s", name, pm_fault_op_name((pm_fault_op)op), n,
                 ai ? "short" : "error");
        ft_case(&t, &r, what);
        cases++;
        if (pm_test_failures > 30) goto done;
      }
    }
  }
  /* a persistent failure (every create-if-absent fails): CONFLICT/IO, never OK, nothing published */
  {
    pm_fault_rule r = {PM_FAULT_OP_CREATE_IF_ABSENT, 1, 0, PM_FAULT_ERROR, 0};
    ft_case(&t, &r, "every create-if-absent fails");
  }
done:
  fprintf(stderr, "  %s: %d fault cases, %d oracle runs; statuses OK=%d CONFLICT=%d IO=%d UNKNOWN=%d\n", name, cases,
          t.oracle_runs, t.by_status[PAIMON_OK], t.by_status[PAIMON_ERR_CONFLICT], t.by_status[PAIMON_ERR_IO],
          t.by_status[PAIMON_ERR_UNKNOWN_OUTCOME]);
  CHECK(cases >= 20);
  ft_close(&t);
}

/* Lost effects (the fs reports success but drops the bytes / publication / rename / delete), each
 * on a fresh copy of a table with two commits: the same rules as above (OK = the batch is published,
 * complete), so a commit never says OK while its snapshot references an empty or missing file. */
static void test_lost_effects(void) {
  fault_table base;
  ft_open(&base, "lose-base", NULL, 0);
  ft_case(&base, NULL, "plain commit 0");
  ft_case(&base, NULL, "plain commit 1");
  pm_fault_rule never = {PM_FAULT_OP_OPEN, UINT64_MAX, 1, PM_FAULT_ERROR, 0};
  unsigned long long counts[PM_FAULT_OP_COUNT] = {0};
  paimon_error err = {0};
  paimon_commit_messages *m = NULL;
  int phase = 0;
  /* count on a throw-away copy */
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "cp -r '%s/lose-base' '%s/lose-count'", tmp_root, tmp_root);
  CHECK(system(cmd) == 0);
  fault_table ct;
  ft_open(&ct, "lose-count", NULL, 0);
  CHECK_OK(ft_attempt(&ct, &never, 2, &phase, &m, counts, &err), &err);
  paimon_commit_messages_free(m);
  ft_close(&ct);
  static const pm_fault_op ops[] = {PM_FAULT_OP_WRITE, PM_FAULT_OP_PUBLISH, PM_FAULT_OP_CREATE_IF_ABSENT,
                                    PM_FAULT_OP_RENAME, PM_FAULT_OP_DELETE, PM_FAULT_OP_MKDIRS};
  int broken = 0, cases = 0;
  char broken_list[2048] = "";
  for (size_t oi = 0; oi < sizeof ops / sizeof ops[0]; oi++) {
    unsigned long long c = counts[ops[oi]], stride = !long_mode && c > 4 ? c / 4 : 1;
    for (unsigned long long n = 1; n <= c; n += stride) {
      char name[64], what[128];
      snprintf(name, sizeof name, "lose-%s-%llu", pm_fault_op_name(ops[oi]), n);
      snprintf(what, sizeof what, "%s #%llu lost", pm_fault_op_name(ops[oi]), n);
      snprintf(cmd, sizeof cmd, "cp -r '%s/lose-base' '%s/%s'", tmp_root, tmp_root, name);
      CHECK(system(cmd) == 0);
      fault_table t;
      ft_open(&t, name, NULL, 0);
      memcpy(t.published, base.published, sizeof base.published);
      t.n_published = base.n_published;
      t.next = base.next;
      pm_fault_rule r = {ops[oi], n, 1, PM_FAULT_LOSE, 0};
      int before = pm_test_failures;
      ft_case(&t, &r, what);
      cases++;
      if (pm_test_failures != before) {
        broken++;
        size_t l = strlen(broken_list);
        snprintf(broken_list + l, sizeof broken_list - l, "%s%s", l ? ", " : "", what);
      }
      ft_close(&t);
    }
  }
  fprintf(stderr, "  %d lost-effect cases, %d leave a broken or wrong table%s%s\n", cases, broken,
          broken ? ": " : "", broken_list);
  CHECK_MSG(broken == 0, "a lost write/publication was not noticed in %d cases: %s", broken, broken_list);
  CHECK(cases >= 10);
  ft_close(&base);
}

static void test_faults_default_options(void) { run_faults("default", NULL, 0); }

/* small manifests merged on every commit: the merge's reads and writes fail too */
static void test_faults_with_manifest_merging(void) {
  const char *opts[] = {"\"manifest.merge-min-count\" : \"2\"", "\"manifest.target-file-size\" : \"1 kb\""};
  run_faults("merging", opts, 2);
}

int main(void) {
  if (!ot_available()) TEST_MAIN_END();
  long_mode = getenv("PAIMON_LONG_TESTS") && atoi(getenv("PAIMON_LONG_TESTS")) > 0;
  snprintf(tmp_root, sizeof tmp_root, "/tmp/pm_test_write_faults_XXXXXX");
  if (!mkdtemp(tmp_root)) return 1;
  RUN_TEST(test_faults_default_options);
  RUN_TEST(test_faults_with_manifest_merging);
  RUN_TEST(test_lost_effects);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (!getenv("PM_KEEP") && !pm_test_failures && system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
  TEST_MAIN_END();
}
