/*
 * Injected I/O errors in the changelog compactions of the primary-key writer
 * (issue 12 §2 / §4): a catalog on the fault-injecting fs, the changelog table
 * of tests/support/pk_changelog.h (partitioned, 2 buckets) with
 * changelog-producer = lookup, then = full-compaction; committed batches,
 * then one batch written by a batch writer (the flush, the compaction with
 * its lookup / full-compaction changelog files, the prepare) while each fs
 * operation of that write fails in turn (an I/O error). After each case:
 *   - the write returns OK (then it commits and is checked as a retry), or an
 *     error whose message names the file of the injected fault;
 *   - after a failure the table is as committed: no new snapshot, no file
 *     left behind (the data and changelog files as before), our reader = the
 *     model; `paimon-table check` at the end (and at every 6th case with
 *     PAIMON_LONG_TESTS=1);
 *   - the same batch written again with nothing armed commits, and the
 *     table and its changelog read (incremental, changelog mode) are the
 *     model's (pk_changelog.h check_commit).
 * make test: about 14 cases per producer (first / middle / last open, read,
 * create and write, the first of every other kind); PAIMON_LONG_TESTS=1:
 * every operation.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/api_internal.h"
#include "arrow/arrow.h"
#include "arrow/json_read.h"
#include "arrow/type.h"
#include "harness.h"
#include "io/fs_fault.h"
#include "paimon/write.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/oracle_table.h"
#include "support/oracle_write.h"
#include "support/pk_write.h"

static char wh[256];

#include "support/pk_changelog.h"

static int long_mode;

/* The data and changelog files of the table (sorted, one a line). */
static char *table_files(const char *name) {
  char cmd[1024], *out = NULL;
  snprintf(cmd, sizeof cmd, "cd %s && find . -path './pt=*' -type f | sort", table_dir(name));
  CHECK_EQ_INT(ot_shell(cmd, &out), 0);
  return out ? out : strdup("");
}

/* One batch (row-kind column _rk) written with a batch writer, the rule armed from the
 * builder to prepare_commit; when that works, committed with nothing armed. counts (may be
 * NULL): the armed part's operations. */
static int faulted_write(paimon_table *t, pm_fs *fs, const pm_fault_rule *rule, const char *jsonl,
                         unsigned long long *counts, paimon_error *err) {
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  paimon_commit_messages *m = NULL;
  struct ArrowSchema s;
  struct ArrowArray a;
  pkw_batch(COLS, 5, jsonl, &s, &a);
  if (rule) pm_fault_fs_arm(fs, rule);
  int rc = paimon_write_builder_new(t, 0, NULL, 0, &wb, err);
  if (!rc) rc = paimon_write_builder_new_write(wb, &w, err);
  if (!rc) rc = paimon_table_write_with_row_kind_column(w, "_rk", err);
  if (!rc) rc = paimon_table_write_arrow(w, &s, &a, err);
  if (!rc) rc = paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, err);
  paimon_table_write_free(w); /* a failed write removes what it wrote */
  for (int op = 0; counts && op < PM_FAULT_OP_COUNT; op++) counts[op] = pm_fault_fs_count(fs, (pm_fault_op)op);
  pm_fault_fs_disarm(fs);
  if (!rc) {
    paimon_table_commit *c = NULL;
    paimon_error e2 = {0};
    int cs = paimon_write_builder_new_commit(wb, &c, &e2);
    if (!cs) cs = paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, NULL, &e2);
    CHECK_MSG(cs == 0, "commit after the write: %s", e2.message);
    paimon_table_commit_free(c);
  }
  a.release(&a);
  s.release(&s);
  paimon_commit_messages_free(m);
  paimon_write_builder_free(wb);
  return rc;
}

typedef struct state {
  paimon_table *t;
  pm_fs *fs;
  const char *name;
  json_t *model, *before, *touched;
  uint64_t seed;
  int commit, oracle_runs, failed, cases;
} state;

/* Commits st's next batch (nothing armed) and checks it with its changelog. */
static void committed_write(state *st, const char *rows, const char *what) {
  paimon_error err = {0};
  int64_t prev = snapshot_count(st->name);
  CHECK_OK(faulted_write(st->t, st->fs, NULL, rows, NULL, &err), &err);
  model_apply(st->model, st->touched, rows, 0);
  json_t *changes = json_array();
  model_changes(st->before, st->model, st->touched, changes, 0, 0);
  json_decref(st->before);
  st->before = json_deep_copy(st->model);
  json_object_clear(st->touched);
  check_commit(st->t, st->name, st->model, changes, prev, 1, 0, what);
  json_decref(changes);
}

static void fault_case(state *st, const pm_fault_rule *rule, const char *what) {
  char *rows = gen_commit(&st->seed, 30, 40, 0, ++st->commit, 0);
  char *files0 = table_files(st->name);
  int64_t snap0 = snapshot_count(st->name);
  paimon_error err = {0};
  int rc = faulted_write(st->t, st->fs, rule, rows, NULL, &err);
  st->cases++;
  if (rc) {
    st->failed++;
    CHECK_MSG(strstr(err.message, "injected I/O error") && strstr(err.message, wh),
              "%s: the error names the file: %s", what, err.message);
    CHECK_EQ_INT(snapshot_count(st->name), snap0);
    char *files1 = table_files(st->name);
    CHECK_MSG(!strcmp(files0, files1), "%s: files left behind:\nbefore:\n%s\nafter:\n%s", what, files0, files1);
    free(files1);
    json_t *want = model_rows(st->model), *ours = read_ours(st->t, NULL, 0, 0);
    char msg[4096];
    if (ours) CHECK_MSG(ot_rows_match(want, ours, msg, sizeof msg), "%s: our reader: %s", what, msg);
    json_decref(ours);
    if (long_mode && st->failed % 6 == 0 && ot_available()) {
      st->oracle_runs++;
      CHECK_MSG(ot_check_ok(table_dir(st->name), 0, what), "%s", what);
    }
    json_decref(want);
    /* the retry */
    char w2[160];
    snprintf(w2, sizeof w2, "%s: the retry", what);
    committed_write(st, rows, w2);
  } else {
    /* the fault did not matter: the batch is committed */
    model_apply(st->model, st->touched, rows, 0);
    json_t *changes = json_array();
    model_changes(st->before, st->model, st->touched, changes, 0, 0);
    json_decref(st->before);
    st->before = json_deep_copy(st->model);
    json_object_clear(st->touched);
    check_commit(st->t, st->name, st->model, changes, snap0, 1, 0, what);
    json_decref(changes);
  }
  free(files0);
  free(rows);
}

static void run_producer(const char *name, const char *producer) {
  pm_error perr;
  pm_error_clear(&perr);
  pm_fs *fs = NULL;
  CHECK_OK(pm_fault_fs_new(pm_fs_local(), &fs, &perr), &perr);
  pm_options po;
  pm_options_init(&po);
  pm_options_set(&po, "warehouse", wh, &perr);
  paimon_catalog *cat = calloc(1, sizeof *cat);
  CHECK_OK(pm_catalog_open_with_fs(fs, &po, &cat->c, &perr), &perr);
  pm_options_clear(&po);
  char opt[64];
  snprintf(opt, sizeof opt, "changelog-producer=%s", producer);
  const char *opts[] = {opt, "num-sorted-run.compaction-trigger=3"};
  state st = {make_table(cat, name, opts, 2), fs, name, json_object(), json_object(), json_object(), 7, 0, 0, 0, 0};
  /* committed state: a few batches (levels above 0 for the lookups) */
  for (int c = 0; c < 3; c++) {
    char *rows = gen_commit(&st.seed, 30, 40, 0, ++st.commit, 0);
    committed_write(&st, rows, "setup");
    free(rows);
  }
  /* the operations of one write */
  unsigned long long counts[PM_FAULT_OP_COUNT] = {0};
  pm_fault_rule never = {PM_FAULT_OP_OPEN, UINT64_MAX, 1, PM_FAULT_ERROR, 0};
  {
    char *rows = gen_commit(&st.seed, 30, 40, 0, ++st.commit, 0);
    paimon_error err = {0};
    int64_t prev = snapshot_count(name);
    CHECK_OK(faulted_write(st.t, fs, &never, rows, counts, &err), &err);
    model_apply(st.model, st.touched, rows, 0);
    json_t *changes = json_array();
    model_changes(st.before, st.model, st.touched, changes, 0, 0);
    json_decref(st.before);
    st.before = json_deep_copy(st.model);
    json_object_clear(st.touched);
    check_commit(st.t, name, st.model, changes, prev, 1, 0, "the counting write");
    CHECK_MSG(json_array_size(changes) > 0, "%s: the counting write logged changes", name);
    json_decref(changes);
    free(rows);
  }
  unsigned long long total = 0;
  for (int op = 0; op < PM_FAULT_OP_COUNT; op++) total += counts[op];
  fprintf(stderr, "  %s: one write + compaction = %llu fs operations (open %llu, read %llu, create %llu)\n", producer,
          total, counts[PM_FAULT_OP_OPEN], counts[PM_FAULT_OP_READ], counts[PM_FAULT_OP_CREATE]);
  CHECK(counts[PM_FAULT_OP_OPEN] > 0 && counts[PM_FAULT_OP_CREATE] > 0);
  for (int op = 0; op < PM_FAULT_OP_COUNT && pm_test_failures <= 30; op++) {
    /* make test: the first, middle and last operation of the kinds a compaction does most
     * (open, read, create, write), the first of the others */
    int main_kind = op == PM_FAULT_OP_OPEN || op == PM_FAULT_OP_READ || op == PM_FAULT_OP_CREATE || op == PM_FAULT_OP_WRITE;
    unsigned long long c = counts[op], stride = long_mode ? 1 : !main_kind ? c + 1 : c > 2 ? (c - 1) / 2 : 1;
    for (unsigned long long n = 1; n <= c && pm_test_failures <= 30; n += stride) {
      pm_fault_rule r = {(pm_fault_op)op, n, 1, PM_FAULT_ERROR, 0};
      char what[128];
      snprintf(what, sizeof what, "%s: %s #%llu", producer, pm_fault_op_name((pm_fault_op)op), n);
      fault_case(&st, &r, what);
    }
  }
  pm_fault_rule every = {PM_FAULT_OP_OPEN, 1, 0, PM_FAULT_ERROR, 0};
  fault_case(&st, &every, "every open fails");
  if (ot_available()) {
    st.oracle_runs++;
    json_t *want = model_rows(st.model);
    CHECK(ot_check_ok(table_dir(name), 0, name));
    CHECK(ot_read_equals(table_dir(name), NULL, want, name));
    json_decref(want);
  }
  fprintf(stderr, "  %s: %d cases, %d failed writes, %d oracle runs\n", producer, st.cases, st.failed,
          st.oracle_runs);
  CHECK(st.failed >= 10);
  json_decref(st.model);
  json_decref(st.before);
  json_decref(st.touched);
  paimon_table_free(st.t);
  paimon_catalog_free(cat);
  pm_fs_unref(fs);
}

static void test_lookup_faults(void) { run_producer("lk", "lookup"); }
static void test_full_compaction_faults(void) { run_producer("fc", "full-compaction"); }

int main(void) {
  long_mode = getenv("PAIMON_LONG_TESTS") && atoi(getenv("PAIMON_LONG_TESTS")) > 0;
  snprintf(wh, sizeof wh, "/tmp/pm_write_pk_cl_faults_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  RUN_TEST(test_lookup_faults);
  RUN_TEST(test_full_compaction_faults);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && system(cmd)) return 1;
  TEST_MAIN_END();
}
