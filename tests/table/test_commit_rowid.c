/* Row tracking at commit (SEMANTICS.md 9.2): sequence stamping with the
 * snapshot id, firstRowId assignment from the latest nextRowId, nextRowId
 * advanced; files carrying a firstRowId or compaction outputs unchanged. */
#include "support/commit_fixture.h"

static char root[512];

static void read_delta(const char *dir, int64_t snap, pm_manifest_entries *out) {
  pm_table *t = cf_open(dir, NULL);
  pm_snapshot *s = cf_snapshot(dir, snap);
  pm_error err;
  memset(&err, 0, sizeof err);
  char p[1200];
  snprintf(p, sizeof p, "%s/manifest/%s", dir, s->delta_manifest_list);
  pm_manifest_file_metas metas;
  pm_manifest_file_metas_init(&metas);
  CHECK_OK(pm_manifest_list_read(t->fs, p, &metas, &err), &err);
  for (size_t i = 0; i < metas.n; i++) {
    snprintf(p, sizeof p, "%s/manifest/%s", dir, metas.items[i].file_name);
    CHECK_OK(pm_manifest_read(t->fs, p, NULL, NULL, out, &err), &err);
  }
  pm_manifest_file_metas_clear(&metas);
  pm_snapshot_free(s);
  pm_table_free(t);
}

static void test_row_ids(void) {
  char dir[600];
  snprintf(dir, sizeof dir, "%s/rt", root);
  cf_make_table(dir, 0, "\"row-tracking.enabled\" : \"true\"");
  pm_table *t = cf_open(dir, NULL);
  pm_path_factory pf;
  pm_path_factory_init(&pf, t->fs, t->root);
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_commit *c = NULL;
  CHECK_OK(pm_commit_open(t, "u", 0, &c, &err), &err);
  static const int32_t a[] = {1, 2, 3}, b[] = {4, 5};
  static const char *const na[] = {"a", "b", "c"}, *const nb[] = {"d", "e"};
  pm_manifest_committable *m1 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 2);
  cf_add_file(m1, t, &pf, NULL, a, na, 3);
  cf_add_file(m1, t, &pf, NULL, b, nb, 2);
  int64_t sid = 0;
  CHECK_OK(pm_commit_append(c, m1, 0, &sid, &err), &err);
  pm_manifest_committable *m2 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 2);
  cf_add_file(m2, t, &pf, NULL, b, nb, 2);
  /* already carries a first row id: kept */
  pm_data_file_meta *kept = cf_add_file(m2, t, &pf, NULL, a, na, 3);
  kept->first_row_id = 100;
  kept->has_first_row_id = 1;
  kept->min_sequence_number = 7;
  kept->max_sequence_number = 9;
  CHECK_OK(pm_commit_append(c, m2, 0, &sid, &err), &err);
  CHECK_EQ_INT(sid, 2);

  pm_snapshot *s1 = cf_snapshot(dir, 1), *s2 = cf_snapshot(dir, 2);
  CHECK(s1 && s1->has_next_row_id && s1->next_row_id == 5);
  CHECK(s2 && s2->has_next_row_id && s2->next_row_id == 7);
  pm_snapshot_free(s1);
  pm_snapshot_free(s2);

  pm_manifest_entries d1, d2;
  pm_manifest_entries_init(&d1);
  pm_manifest_entries_init(&d2);
  read_delta(dir, 1, &d1);
  read_delta(dir, 2, &d2);
  CHECK_EQ_INT(d1.n, 2);
  CHECK_EQ_INT(d2.n, 2);
  if (d1.n == 2 && d2.n == 2) {
    CHECK(d1.items[0].file.has_first_row_id && d1.items[0].file.first_row_id == 0);
    CHECK(d1.items[1].file.has_first_row_id && d1.items[1].file.first_row_id == 3);
    CHECK(d1.items[0].file.min_sequence_number == 1 && d1.items[0].file.max_sequence_number == 1);
    CHECK(d2.items[0].file.first_row_id == 5 && d2.items[0].file.min_sequence_number == 2 &&
          d2.items[0].file.max_sequence_number == 2);
    CHECK(d2.items[1].file.first_row_id == 100 && d2.items[1].file.min_sequence_number == 7 &&
          d2.items[1].file.max_sequence_number == 9);
  }
  pm_manifest_entries_clear(&d1);
  pm_manifest_entries_clear(&d2);
  CHECK(cf_check(dir));
  CHECK(cf_rows_are(dir, "1|a|\n1|a|\n2|b|\n2|b|\n3|c|\n3|c|\n4|d|\n4|d|\n5|e|\n5|e|\n"));
  pm_committable_free(m1);
  pm_committable_free(m2);
  pm_commit_free(c);
  pm_table_free(t);
}

int main(void) {
  snprintf(root, sizeof root, "/tmp/pm_test_commit_rowid_%d", (int)getpid());
  RUN_TEST(test_row_ids);
  if (!pm_test_failures) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
  }
  tw_cleanup();
  TEST_MAIN_END();
}
