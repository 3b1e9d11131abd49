/*
 * Lookup compaction options (issue 12 §2; Java's CoreOptions, ForceUpLevel0Compaction,
 * ValueEqualiserSupplier.fromIgnoreFields), on the table and model of
 * support/pk_changelog.h (random upserts / deletes in several commits, our
 * reader = the model after every commit, paimon-table read = the model and
 * paimon-table check at the end, the changelog of each commit = the
 * model's transitions, the changelog files read by DuckDB = all of them):
 *  - changelog-producer.row-deduplicate-ignore-fields: an upsert changing
 *    only an ignored column logs no -U/+U (the rows repeat two values of v
 *    and keep n, so with v ignored every update of a live key is silent);
 *  - lookup-compact = gentle with lookup-compact.max-interval: one writer for
 *    streaming commits 1..8; with the default trigger (5 sorted runs) and
 *    max-interval 2 (raised to the trigger, as Java) the level-0 files stay
 *    until commit 5 (5 runs: the universal size-amplification pick), commit
 *    6 forces them up (the 5th empty pick), commits 7 and 8 compact nothing;
 *    each compaction's changelog = the transitions since the previous one
 *    (under the default, radical, every commit compacts: test_write_pk_lookup.c).
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
#include "paimon/write.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/oracle_table.h"
#include "support/oracle_write.h"
#include "support/pk_write.h"

static char wh[256];

#include "support/pk_changelog.h"

/* ------------------------------------------------------------ row-deduplicate-ignore-fields */

static void test_row_dedup_ignore_fields(void) {
  const char *opts[] = {"changelog-producer=lookup", "changelog-producer.row-deduplicate=true",
                        "changelog-producer.row-deduplicate-ignore-fields=v", "target-file-size=2 kb",
                        "num-sorted-run.compaction-trigger=3"};
  run_case_ignoring(&(cl_case){"lkig", opts, 5, 0, 1, 5, 150, 60, 1, 29, 0, 1}, "v");
}

/* full-compaction changelog honours the ignored fields too (Java's FullChangelogMergeFunctionWrapper) */
static void test_full_row_dedup_ignore_fields(void) {
  const char *opts[] = {"changelog-producer=full-compaction", "changelog-producer.row-deduplicate=true",
                        "changelog-producer.row-deduplicate-ignore-fields=v"};
  run_case_ignoring(&(cl_case){"fcig", opts, 3, 0, 1, 4, 100, 40, 1, 31, 0, 1}, "v");
}

/* ------------------------------------------------------------ lookup-compact = gentle */

static const char *commit_kind(const char *name) {
  static char kind[32];
  json_t *s = NULL;
  latest_snapshot(name, &s);
  const char *k = s ? json_string_value(json_object_get(s, "commitKind")) : NULL;
  snprintf(kind, sizeof kind, "%s", k ? k : "?");
  json_decref(s);
  return kind;
}

/* Streaming commits 1..n_commits through one writer; compacts[c] = whether
 * commit c+1 must compact (its last snapshot COMPACT, with the changelog of
 * the keys touched since the previous compaction). */
static void run_one_writer(const char *name, const char *const *opts, size_t n_opts, int n_commits,
                           const int *compacts) {
  paimon_catalog *cat = pkw_open_catalog(wh);
  paimon_table *t = make_table(cat, name, opts, n_opts);
  paimon_error err = {0};
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  CHECK_OK(paimon_write_builder_new(t, 1, NULL, 0, &wb, &err), &err);
  CHECK_OK(paimon_write_builder_new_write(wb, &w, &err), &err);
  CHECK_OK(paimon_table_write_with_row_kind_column(w, "_rk", &err), &err);
  json_t *model = json_object(), *all = json_array(), *before = json_object(), *touched = json_object();
  uint64_t seed = 37;
  for (int c = 0; c < n_commits; c++) {
    char *rows = gen_commit(&seed, 60, 40, 0, c, 0);
    int64_t prev = snapshot_count(name);
    struct ArrowSchema s;
    struct ArrowArray a;
    pkw_batch(COLS, 5, rows, &s, &a);
    CHECK_OK(paimon_table_write_arrow(w, &s, &a, &err), &err);
    if (a.release) a.release(&a);
    if (s.release) s.release(&s);
    paimon_commit_messages *m = NULL;
    paimon_table_commit *tc = NULL;
    CHECK_OK(paimon_table_write_prepare_commit(w, c + 1, &m, &err), &err);
    CHECK_OK(paimon_write_builder_new_commit(wb, &tc, &err), &err);
    CHECK_OK(paimon_table_commit_commit(tc, m, c + 1, NULL, &err), &err);
    paimon_commit_messages_free(m);
    paimon_table_commit_free(tc);
    model_apply(model, touched, rows, 0);
    json_t *changes = json_array();
    char what[128];
    snprintf(what, sizeof what, "%s commit %d", name, c + 1);
    const char *kind = commit_kind(name);
    CHECK_MSG(!strcmp(kind, compacts[c] ? "COMPACT" : "APPEND"), "%s: last snapshot %s", what, kind);
    if (compacts[c]) {
      model_changes(before, model, touched, changes, 0, 0);
      json_decref(before);
      before = json_deep_copy(model);
      json_object_clear(touched);
    }
    check_commit(t, name, model, changes, prev, 1, c == n_commits - 1, what);
    json_array_extend(all, changes);
    json_decref(changes);
    free(rows);
  }
  check_changelog_files(name, all);
  json_decref(before);
  json_decref(touched);
  json_decref(all);
  json_decref(model);
  paimon_table_write_free(w);
  paimon_write_builder_free(wb);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

static void test_gentle(void) {
  const char *opts[] = {"changelog-producer=lookup", "lookup-compact=gentle", "lookup-compact.max-interval=2"};
  const int compacts[] = {0, 0, 0, 0, 1, 1, 0, 0};
  run_one_writer("gentle", opts, 3, 8, compacts);
}

int main(void) {
  snprintf(wh, sizeof wh, "/tmp/pm_write_pk_lookup_modes_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  RUN_TEST(test_row_dedup_ignore_fields);
  RUN_TEST(test_full_row_dedup_ignore_fields);
  RUN_TEST(test_gentle);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && system(cmd)) return 1;
  TEST_MAIN_END();
}
