/*
 * Injected I/O faults in the write path before the commit (issue 11 §5
 * "Faults"): a catalog on the fault-injecting fs, a partitioned fixed-bucket
 * table (bucket 2) with committed batches; one batch is written with the
 * public table writer (write builder, paimon_table_write_arrow,
 * prepare_commit; target-file-size "1 b": a data file per row, so the writer
 * rolls) while each fs operation of that write fails in turn (an I/O error;
 * a short read for reads). Then:
 *   - the write returns OK, or an error status whose message names the
 *     injected fault (never a crash, never OK with a broken result: OK
 *     messages are committed and must read back exactly);
 *   - after a failure the table is unchanged: same snapshots, our reader and
 *     (every 5th case, all with PAIMON_LONG_TESTS=1) `paimon-table check` +
 *     `read` return exactly the committed batches: nothing uncommitted is
 *     visible;
 *   - the same batch written again with nothing armed commits and reads back.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/api_internal.h"
#include "harness.h"
#include "io/fs_fault.h"
#include "support/oracle_crash.h"
#include "support/oracle_table.h"
#include "support/oracle_write.h"

#define USER "writer-fault-user"

static char tmp_root[256];
static int long_mode;

typedef struct wtable {
  pm_fs *fs;
  paimon_catalog *cat;
  char wh[512], dir[600];
  long long next;
  long long published[4096];
  size_t n_published;
  int cases, failed, oracle_runs;
} wtable;

static json_t *wt_expected(const wtable *t) {
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

/* Writes batch k with the table writer; the rule (NULL: none) armed from the write builder to
 * prepare_commit. Then, when the write succeeded, commits it with nothing armed. counts (may be
 * NULL) get the write's operation counts. Returns the write's status (err set). */
static paimon_status wt_write(wtable *t, const pm_fault_rule *rule, long long k, unsigned long long *counts,
                              paimon_error *err) {
  paimon_table *tbl = NULL;
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  paimon_commit_messages *m = NULL;
  struct ArrowSchema s = {0};
  struct ArrowArray a = {0};
  pm_fault_fs_disarm(t->fs);
  paimon_status st = paimon_catalog_get_table(t->cat, "db.t", &tbl, err);
  char json[4096];
  oc_batch_json(k, 0, -1, json, sizeof json);
  if (!st) st = ow_batch(tbl, json, &s, &a, err);
  paimon_option dyn = {"target-file-size", "1 b"};
  if (!st) {
    if (rule) pm_fault_fs_arm(t->fs, rule);
    st = paimon_write_builder_new(tbl, 1, &dyn, 1, &wb, err);
    if (!st) st = paimon_write_builder_with_commit_user(wb, USER, err);
    if (!st) st = paimon_write_builder_new_write(wb, &w, err);
    if (!st) st = paimon_table_write_arrow(w, &s, &a, err);
    if (!st) st = paimon_table_write_prepare_commit(w, k, &m, err);
    paimon_table_write_free(w); /* on failure: removes what it wrote and did not hand out */
    for (int op = 0; counts && op < PM_FAULT_OP_COUNT; op++) counts[op] = pm_fault_fs_count(t->fs, (pm_fault_op)op);
    pm_fault_fs_disarm(t->fs);
  }
  if (!st) {
    CHECK_EQ_INT(paimon_commit_messages_row_count(m), oc_rows(k, 0));
    paimon_table_commit *c = NULL;
    paimon_error e2 = {0};
    paimon_status cs = paimon_write_builder_new_commit(wb, &c, &e2);
    if (!cs) cs = paimon_table_commit_commit(c, m, k, NULL, &e2);
    CHECK_MSG(cs == PAIMON_OK, "batch %lld: commit after the write: %s %s", k, paimon_status_name(cs), e2.message);
    if (!cs) t->published[t->n_published++] = k;
    paimon_table_commit_free(c);
  }
  if (a.release) a.release(&a);
  if (s.release) s.release(&s);
  paimon_commit_messages_free(m);
  paimon_write_builder_free(wb);
  paimon_table_free(tbl);
  return st;
}

static long long wt_latest(const wtable *t) {
  ot_snapshot *s = NULL;
  size_t gaps = 0, n = ot_snapshots(t->dir, &s, &gaps);
  CHECK_EQ_INT(gaps, 0);
  long long id = n ? s[n - 1].id : 0;
  free(s);
  return id;
}

static void wt_verify(wtable *t, const char *what, int oracle) {
  json_t *exp = wt_expected(t);
  paimon_table *tbl = NULL;
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_get_table(t->cat, "db.t", &tbl, &err), &err);
  json_t *ours = tbl ? ow_read_ours(tbl, &err) : NULL;
  CHECK_MSG(ours != NULL, "%s: our reader: %s", what, err.message);
  if (ours) {
    char msg[8192];
    CHECK_MSG(ot_rows_match(exp, ours, msg, sizeof msg), "%s: our reader: %s", what, msg);
  }
  json_decref(ours);
  paimon_table_free(tbl);
  if (oracle) {
    t->oracle_runs++;
    CHECK(ot_check_ok(t->dir, 0, what));
    CHECK(ot_read_equals(t->dir, NULL, exp, what));
  }
  json_decref(exp);
}

static void wt_case(wtable *t, const pm_fault_rule *rule, const char *what) {
  long long k = t->next++;
  long long before = wt_latest(t);
  paimon_error err = {0};
  paimon_status st = wt_write(t, rule, k, NULL, &err);
  t->cases++;
  if (st != PAIMON_OK) {
    t->failed++;
    CHECK_MSG(strstr(err.message, "injected") != NULL, "%s: status %s without the fault's message: %s", what,
              paimon_status_name(st), err.message);
    CHECK_MSG(wt_latest(t) == before, "%s: a failed write changed the snapshots", what);
  }
  wt_verify(t, what, long_mode || t->cases % 5 == 0);
  if (st != PAIMON_OK) {
    /* the same batch again, nothing armed */
    paimon_error e2 = {0};
    CHECK_OK(wt_write(t, NULL, k, NULL, &e2), &e2);
  }
}

static void test_writer_faults(void) {
  wtable t;
  memset(&t, 0, sizeof t);
  snprintf(t.wh, sizeof t.wh, "%s/wh", tmp_root);
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
  const oc_layout *l = oc_layout_find("fixed");
  paimon_error err = {0};
  CHECK_OK(ow_create_table(t.cat, "db", "t", OC_COLUMNS, l->partition_keys, l->options, 2, 0, &err), &err);
  /* two plain batches, then the counting write (batch 2: three rows, three files) */
  for (int i = 0; i < 2; i++) CHECK_OK(wt_write(&t, NULL, t.next++, NULL, &err), &err);
  unsigned long long counts[PM_FAULT_OP_COUNT] = {0};
  pm_fault_rule never = {PM_FAULT_OP_OPEN, UINT64_MAX, 1, PM_FAULT_ERROR, 0};
  CHECK_OK(wt_write(&t, &never, t.next++, counts, &err), &err);
  wt_verify(&t, "plain writes", 1);
  unsigned long long total = 0;
  for (int op = 0; op < PM_FAULT_OP_COUNT; op++) total += counts[op];
  fprintf(stderr, "  one write of 3 rows = %llu fs operations (create %llu, publish %llu)\n", total,
          counts[PM_FAULT_OP_CREATE], counts[PM_FAULT_OP_PUBLISH]);
  CHECK(counts[PM_FAULT_OP_CREATE] >= 3); /* rolled: a file per row */
  int cases = 0;
  for (int op = 0; op < PM_FAULT_OP_COUNT && pm_test_failures <= 30; op++) {
    size_t na = op == PM_FAULT_OP_READ ? 2 : 1;
    for (size_t ai = 0; ai < na; ai++) {
      /* batch 2 + 3j has 3 rows: the writes of the cases differ only by their rows */
      unsigned long long c = counts[op], stride = !long_mode && c > 2 ? c / 2 : 1;
      for (unsigned long long n = 1; n <= c && pm_test_failures <= 30; n += stride) {
        while (oc_rows(t.next, 0) != 3) {
          CHECK_OK(wt_write(&t, NULL, t.next++, NULL, &err), &err);
        }
        pm_fault_rule r = {(pm_fault_op)op, n, 1, ai ? PM_FAULT_SHORT_READ : PM_FAULT_ERROR, 0};
        char what[128];
        snprintf(what, sizeof what, "write: %s #%llu %s", pm_fault_op_name((pm_fault_op)op), n, ai ? "short" : "error");
        wt_case(&t, &r, what);
        cases++;
      }
    }
  }
  /* every create fails: the write fails, nothing visible */
  pm_fault_rule every = {PM_FAULT_OP_CREATE, 1, 0, PM_FAULT_ERROR, 0};
  wt_case(&t, &every, "write: every create fails");
  wt_verify(&t, "after the writer faults", 1);
  fprintf(stderr, "  %d writer fault cases, %d failed writes, %d oracle runs\n", cases, t.failed, t.oracle_runs);
  CHECK(cases >= 12);
  CHECK(t.failed >= 10);
  paimon_catalog_free(t.cat);
  pm_fs_unref(t.fs);
}

int main(void) {
  if (!ot_available()) TEST_MAIN_END();
  long_mode = getenv("PAIMON_LONG_TESTS") && atoi(getenv("PAIMON_LONG_TESTS")) > 0;
  snprintf(tmp_root, sizeof tmp_root, "/tmp/pm_test_write_faults_writer_XXXXXX");
  if (!mkdtemp(tmp_root)) return 1;
  RUN_TEST(test_writer_faults);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (!getenv("PM_KEEP") && !pm_test_failures && system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
  TEST_MAIN_END();
}
