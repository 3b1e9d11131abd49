/* Row-id conflicts of a data-evolution table (row-tracking.enabled +
 * data-evolution.enabled; Java's DataEvolutionConflictDetection): two committers
 * prepare against the same snapshot, the first commits, then
 *   1. a compaction of rows 0..3 planned before a concurrent column update of rows
 *      2..3 would drop the update: CONFLICT (overlapping, different row ranges);
 *   2. a column update of rows 0..1 planned before a concurrent compaction of rows
 *      0..3: CONFLICT (no live file holds rows 0..1 as planned);
 *   3. a column update matching a live file's rows exactly commits.
 * Losers are aborted; `paimon-table check` passes and both readers return the rows
 * the winners leave after each step. */
#include "support/commit_fixture.h"

static char root[512];

static void commit_ok(pm_commit *c, pm_manifest_committable *m, int64_t expect, const char *dir) {
  pm_error err;
  memset(&err, 0, sizeof err);
  int64_t sid = 0;
  CHECK_OK(pm_commit_append(c, m, 1, &sid, &err), &err);
  CHECK_EQ_INT(sid, expect);
  CHECK_EQ_INT(cf_latest_id(dir), expect);
  CHECK(cf_check(dir));
}

static void commit_conflict(pm_commit *c, pm_table *t, pm_manifest_committable *m, int64_t latest, const char *dir,
                            const char *file, const char *what) {
  pm_error err;
  memset(&err, 0, sizeof err);
  int64_t sid = 0;
  CHECK_EQ_INT(pm_commit_append(c, m, 1, &sid, &err), PAIMON_ERR_CONFLICT);
  CHECK_MSG(strstr(err.message, file) != NULL && strstr(err.message, what) != NULL, "%s", err.message);
  CHECK_EQ_INT(cf_latest_id(dir), latest);
  CHECK_OK(pm_commit_abort(t, m, &err), &err);
  CHECK(cf_check(dir));
}

static void test_rowid_races(void) {
  char dir[600];
  snprintf(dir, sizeof dir, "%s/de", root);
  cf_make_table(dir, 0, "\"row-tracking.enabled\" : \"true\", \"data-evolution.enabled\" : \"true\"");
  pm_table *t = cf_open(dir, NULL);
  pm_path_factory pf;
  pm_path_factory_init(&pf, t->fs, t->root);
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_commit *a = NULL, *b = NULL;
  CHECK_OK(pm_commit_open(t, "writer-a", 0, &a, &err), &err);
  CHECK_OK(pm_commit_open(t, "writer-b", 0, &b, &err), &err);
  static const int32_t i12[] = {1, 2}, i34[] = {3, 4}, i1234[] = {1, 2, 3, 4};
  static const char *const n12[] = {"a", "b"}, *const n34[] = {"c", "d"}, *const nCD[] = {"C", "D"},
                           *const nAB[] = {"A", "B"}, *const nabCD[] = {"a", "b", "C", "D"},
                           *const nabcd[] = {"a", "b", "c", "d"}, *const nwxyz[] = {"w", "x", "y", "z"};
  pm_manifest_committable *m1 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 2);
  cf_add_file(m1, t, &pf, NULL, i12, n12, 2);
  cf_add_file(m1, t, &pf, NULL, i34, n34, 2);
  commit_ok(a, m1, 1, dir);
  /* the files as snapshot 1 holds them: rows 0..1 and 2..3 */
  pm_data_file_meta f[3] = {m1->messages[0].new_files.items[0], m1->messages[1].new_files.items[0]};
  f[0].first_row_id = 0, f[0].has_first_row_id = 1, f[0].min_sequence_number = f[0].max_sequence_number = 1;
  f[1].first_row_id = 2, f[1].has_first_row_id = 1, f[1].min_sequence_number = f[1].max_sequence_number = 1;
  CHECK(cf_rows_are(dir, "1|a|\n2|b|\n3|c|\n4|d|\n"));

  /* 1. b updates rows 2..3 first; a's compaction of rows 0..3 (planned without it) conflicts */
  pm_manifest_committable *ma = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  pm_manifest_committable *mb = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  cf_rowid_compaction(ma, t, &pf, f, 2, i1234, nabcd, 4, 0);
  f[2] = *cf_rowid_update(mb, t, &pf, i34, nCD, 2, 3, 2);
  commit_ok(b, mb, 2, dir);
  CHECK(cf_rows_are(dir, "1|a|\n2|b|\n3|C|\n4|D|\n"));
  commit_conflict(a, t, ma, 2, dir, "rows 2..3", "overlap with different ranges");
  CHECK(cf_rows_are(dir, "1|a|\n2|b|\n3|C|\n4|D|\n"));

  /* 2. a compacts everything (rows 0..3) first; b's update of rows 0..1 (planned on f1) conflicts */
  f[2].min_sequence_number = f[2].max_sequence_number = 2;
  pm_manifest_committable *ma2 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  pm_manifest_committable *mb2 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  cf_rowid_compaction(ma2, t, &pf, f, 3, i1234, nabCD, 4, 0);
  cf_rowid_update(mb2, t, &pf, i12, nAB, 2, 3, 0);
  commit_ok(a, ma2, 3, dir);
  CHECK(cf_rows_are(dir, "1|a|\n2|b|\n3|C|\n4|D|\n"));
  commit_conflict(b, t, mb2, 3, dir, "rows 0..1", "no live file holds");
  CHECK(cf_rows_are(dir, "1|a|\n2|b|\n3|C|\n4|D|\n"));

  /* 3. an update of exactly the compacted file's rows commits */
  pm_manifest_committable *mb3 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  cf_rowid_update(mb3, t, &pf, i1234, nwxyz, 4, 3, 0);
  commit_ok(b, mb3, 4, dir);
  CHECK(cf_rows_are(dir, "1|w|\n2|x|\n3|y|\n4|z|\n"));

  pm_committable_free(mb3);
  pm_committable_free(ma2);
  pm_committable_free(mb2);
  pm_committable_free(ma);
  pm_committable_free(mb);
  pm_committable_free(m1);
  pm_commit_free(a);
  pm_commit_free(b);
  pm_table_free(t);
}

int main(void) {
  snprintf(root, sizeof root, "/tmp/pm_test_commit_conflict_rowid_%d", (int)getpid());
  RUN_TEST(test_rowid_races);
  if (!pm_test_failures) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
  }
  tw_cleanup();
  TEST_MAIN_END();
}
