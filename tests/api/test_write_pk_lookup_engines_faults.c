/*
 * Injected I/O errors in the lookup compaction of partial-update
 * (changelog-producer = lookup) and of deduplicate with sequence.field under
 * deletion vectors (issue 12 §2 / §4): the looked-up records join the merge
 * as temporary files (kv_lookup_cl.c pm_kv_before_upper_files), so a fault
 * can hit their creation, writes and reads as well as the lookups, the
 * rewrite, the changelog and the commit. The table and model of
 * support/pk_engine_case.h on the fault-injecting fs; committed batches
 * (levels above 0), then one batch written while each fs operation of the
 * write in turn fails (first / middle / last open, read, create, write; the
 * first of the others; all with PAIMON_LONG_TESTS=1). After each case: the
 * write is OK (then committed and checked), or fails naming the file; then no
 * new snapshot, no file left behind (no temporary file either), our reader =
 * the model, and the batch written again commits with the changelog of the
 * model's transitions. paimon-table check + read at the end.
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
#include "support/pk_engine_case.h"

static int long_mode;

/* The files under the table's partitions (sorted, one a line). */
static char *table_files(const char *name) {
  char cmd[1024], *out = NULL;
  snprintf(cmd, sizeof cmd, "cd %s && find . -path './pt=*' -type f | sort", table_dir(name));
  CHECK_EQ_INT(ot_shell(cmd, &out), 0);
  return out ? out : strdup("");
}

typedef struct state {
  paimon_table *t;
  pm_fs *fs;
  const char *name;
  ec_engine e;
  int with_cl;
  json_t *model, *before, *touched, *retired;
  uint64_t seed;
  int64_t del_seq;
  int commit, failed, cases;
} state;

/* One batch written by a batch writer with rule armed (NULL: none) up to the
 * prepare; committed with nothing armed when that works. counts: the armed part's operations. */
static int faulted_write(state *st, const pm_fault_rule *rule, const char *jsonl, unsigned long long *counts,
                         paimon_error *err) {
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  paimon_commit_messages *m = NULL;
  struct ArrowSchema s;
  struct ArrowArray a;
  pkw_batch(COLS, 5, jsonl, &s, &a);
  if (rule) pm_fault_fs_arm(st->fs, rule);
  int rc = paimon_write_builder_new(st->t, 0, NULL, 0, &wb, err);
  if (!rc) rc = paimon_write_builder_new_write(wb, &w, err);
  if (!rc) rc = paimon_table_write_with_row_kind_column(w, "_rk", err);
  if (!rc) rc = paimon_table_write_arrow(w, &s, &a, err);
  if (!rc) rc = paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, err);
  paimon_table_write_free(w);
  for (int op = 0; counts && op < PM_FAULT_OP_COUNT; op++) counts[op] = pm_fault_fs_count(st->fs, (pm_fault_op)op);
  pm_fault_fs_disarm(st->fs);
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

/* The model after a committed batch, checked with its changelog. */
static void committed(state *st, const char *rows, int64_t prev, const char *what) {
  ec_apply(st->model, st->touched, st->retired, rows, st->e);
  json_t *changes = json_array();
  model_changes(st->before, st->model, st->touched, changes, 0, 0);
  json_decref(st->before);
  st->before = json_deep_copy(st->model);
  json_object_clear(st->touched);
  check_commit(st->t, st->name, st->model, changes, prev, st->with_cl, 0, what);
  json_decref(changes);
}

static char *next_rows(state *st) {
  /* the generator retires the keys it deletes: a failed batch is written again as it is */
  return ec_gen(&st->seed, st->e, st->model, st->retired, 40, 120, ++st->commit, &st->del_seq);
}

static void fault_case(state *st, const pm_fault_rule *rule, const char *what) {
  char *rows = next_rows(st);
  char *files0 = table_files(st->name);
  int64_t snap0 = snapshot_count(st->name);
  paimon_error err = {0};
  int rc = faulted_write(st, rule, rows, NULL, &err);
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
    json_decref(want);
    paimon_error e2 = {0};
    CHECK_OK(faulted_write(st, NULL, rows, NULL, &e2), &e2); /* the retry */
  }
  committed(st, rows, snap0, what);
  free(files0);
  free(rows);
}

static void run_faults(const char *name, ec_engine e, const char *const *opts, size_t n_opts, int with_cl) {
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
  state st = {make_table(cat, name, opts, n_opts), fs, name, e, with_cl, json_object(), json_object(), json_object(),
              json_object(), 11, 0, 0, 0, 0};
  paimon_error err = {0};
  for (int c = 0; c < 4; c++) { /* committed state over several levels */
    char *rows = next_rows(&st);
    int64_t prev = snapshot_count(name);
    CHECK_OK(faulted_write(&st, NULL, rows, NULL, &err), &err);
    committed(&st, rows, prev, "setup");
    free(rows);
  }
  CHECK_MSG(ec_live_levels(cat, name) >= 2, "%s: levels above 0 for the lookups", name);
  unsigned long long counts[PM_FAULT_OP_COUNT] = {0};
  pm_fault_rule never = {PM_FAULT_OP_OPEN, UINT64_MAX, 1, PM_FAULT_ERROR, 0};
  {
    char *rows = next_rows(&st);
    int64_t prev = snapshot_count(name);
    CHECK_OK(faulted_write(&st, &never, rows, counts, &err), &err);
    committed(&st, rows, prev, "the counting write");
    free(rows);
  }
  unsigned long long total = 0;
  for (int op = 0; op < PM_FAULT_OP_COUNT; op++) total += counts[op];
  fprintf(stderr, "  %s: one write + lookup compaction = %llu fs operations (open %llu, create %llu)\n", name, total,
          counts[PM_FAULT_OP_OPEN], counts[PM_FAULT_OP_CREATE]);
  for (int op = 0; op < PM_FAULT_OP_COUNT && pm_test_failures <= 30; op++) {
    int main_kind = op == PM_FAULT_OP_OPEN || op == PM_FAULT_OP_READ || op == PM_FAULT_OP_CREATE || op == PM_FAULT_OP_WRITE;
    unsigned long long c = counts[op], stride = long_mode ? 1 : !main_kind ? c + 1 : c > 2 ? (c - 1) / 2 : 1;
    for (unsigned long long n = 1; n <= c && pm_test_failures <= 30; n += stride) {
      pm_fault_rule r = {(pm_fault_op)op, n, 1, PM_FAULT_ERROR, 0};
      char what[128];
      snprintf(what, sizeof what, "%s: %s #%llu", name, pm_fault_op_name((pm_fault_op)op), n);
      fault_case(&st, &r, what);
    }
  }
  if (ot_available()) {
    json_t *want = model_rows(st.model);
    CHECK(ot_check_ok(table_dir(name), 0, name));
    CHECK(ot_read_equals(table_dir(name), NULL, want, name));
    json_decref(want);
  }
  fprintf(stderr, "  %s: %d cases, %d failed writes\n", name, st.cases, st.failed);
  CHECK(st.failed >= 8);
  json_decref(st.model);
  json_decref(st.before);
  json_decref(st.touched);
  json_decref(st.retired);
  paimon_table_free(st.t);
  paimon_catalog_free(cat);
  pm_fs_unref(fs);
}

static void test_partial_update_lookup_faults(void) {
  const char *opts[] = {"changelog-producer=lookup", "merge-engine=partial-update", "target-file-size=2 kb",
                        "num-sorted-run.compaction-trigger=3"};
  run_faults("pu", EC_PARTIAL, opts, 4, 1);
}

static void test_sequence_field_dv_faults(void) {
  const char *opts[] = {"deletion-vectors.enabled=true", "sequence.field=n", "target-file-size=2 kb",
                        "num-sorted-run.compaction-trigger=3"};
  run_faults("sq", EC_SEQ, opts, 4, 0);
}

int main(void) {
  long_mode = getenv("PAIMON_LONG_TESTS") && atoi(getenv("PAIMON_LONG_TESTS")) > 0;
  snprintf(wh, sizeof wh, "/tmp/pm_write_pk_lookup_eng_faults_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  RUN_TEST(test_partial_update_lookup_faults);
  RUN_TEST(test_sequence_field_dv_faults);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && system(cmd)) return 1;
  TEST_MAIN_END();
}
