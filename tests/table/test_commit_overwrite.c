/* Overwrite (static partial spec, dynamic partitions, whole table), truncate
 * table, drop / truncate partitions (SEMANTICS.md 7.7): results checked by
 * paimon-table (check + read) and our reader. */
#include "support/commit_fixture.h"

static char root[512];

static const int32_t ids1[] = {1, 2};
static const char *const n1[] = {"a", "b"};
static const int32_t ids2[] = {3};
static const char *const n2[] = {"c"};
static const int32_t ids3[] = {4, 5};
static const char *const n3[] = {"d", "e"};

/* dt=x: 1,2   dt=y: 3   dt=null: 4,5 */
static pm_table *setup(const char *dir, const char *opts, pm_path_factory *pf) {
  cf_make_table(dir, 1, opts);
  pm_table *t = cf_open(dir, NULL);
  pm_path_factory_init(pf, t->fs, t->root);
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_commit *c = NULL;
  CHECK_OK(pm_commit_open(t, "setup", 0, &c, &err), &err);
  pm_manifest_committable *m = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 3);
  cf_add_file(m, t, pf, "x", ids1, n1, 2);
  cf_add_file(m, t, pf, "y", ids2, n2, 1);
  cf_add_file(m, t, pf, NULL, ids3, n3, 2);
  int64_t sid = 0;
  CHECK_OK(pm_commit_append(c, m, 0, &sid, &err), &err);
  CHECK_EQ_INT(sid, 1);
  pm_committable_free(m);
  pm_commit_free(c);
  return t;
}

static void test_static_overwrite(void) {
  char dir[600];
  snprintf(dir, sizeof dir, "%s/static", root);
  pm_path_factory pf;
  pm_table *t = setup(dir, "\"dynamic-partition-overwrite\" : \"false\"", &pf);
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_commit *c = NULL;
  CHECK_OK(pm_commit_open(t, "ow", 0, &c, &err), &err);
  static const int32_t ids[] = {7};
  static const char *const nm[] = {"new"};
  const char *keys[] = {"dt"}, *vals[] = {"x"};
  pm_partition_spec spec = {keys, vals, 1};
  /* a new file outside the spec is refused, nothing written */
  pm_manifest_committable *bad = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  cf_add_file(bad, t, &pf, "y", ids, nm, 1);
  int64_t sid = 0;
  CHECK_EQ_INT(pm_commit_overwrite(c, &spec, bad, &sid, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(err.message, "does not belong") || strstr(err.message, "do not belong"), "%s", err.message);
  CHECK_EQ_INT(cf_latest_id(dir), 1);
  CHECK_OK(pm_commit_abort(t, bad, &err), &err);
  pm_committable_free(bad);

  pm_manifest_committable *m = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  cf_add_file(m, t, &pf, "x", ids, nm, 1);
  CHECK_OK(pm_commit_overwrite(c, &spec, m, &sid, &err), &err);
  CHECK_EQ_INT(sid, 2);
  pm_snapshot *s = cf_snapshot(dir, 2);
  CHECK(s && !strcmp(s->commit_kind, "OVERWRITE") && s->delta_record_count == -1 && s->total_record_count == 4);
  pm_snapshot_free(s);
  CHECK(cf_check(dir));
  CHECK(cf_rows_are(dir, "3|c|y\n4|d|null\n5|e|null\n7|new|x\n"));

  /* static overwrite with no new files still deletes the partition */
  pm_manifest_committable *none = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 0);
  const char *vy[] = {"y"};
  pm_partition_spec sy = {keys, vy, 1};
  CHECK_OK(pm_commit_overwrite(c, &sy, none, &sid, &err), &err);
  CHECK_EQ_INT(sid, 3);
  CHECK(cf_check(dir));
  CHECK(cf_rows_are(dir, "4|d|null\n5|e|null\n7|new|x\n"));

  /* the default partition name selects the null partition */
  const char *vn[] = {"__DEFAULT_PARTITION__"};
  pm_partition_spec sn = {keys, vn, 1};
  CHECK_OK(pm_commit_overwrite(c, &sn, none, &sid, &err), &err);
  CHECK(cf_rows_are(dir, "7|new|x\n"));
  /* whole table */
  pm_manifest_committable *all = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  cf_add_file(all, t, &pf, "z", ids2, n2, 1);
  CHECK_OK(pm_commit_overwrite(c, NULL, all, &sid, &err), &err);
  CHECK_EQ_INT(sid, 5);
  CHECK(cf_check(dir));
  CHECK(cf_rows_are(dir, "3|c|z\n"));
  pm_committable_free(m);
  pm_committable_free(none);
  pm_committable_free(all);
  pm_commit_free(c);
  pm_table_free(t);
}

static void test_dynamic_overwrite(void) {
  char dir[600];
  snprintf(dir, sizeof dir, "%s/dynamic", root);
  pm_path_factory pf;
  pm_table *t = setup(dir, NULL, &pf);
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_commit *c = NULL;
  CHECK_OK(pm_commit_open(t, "ow", 0, &c, &err), &err);
  /* no new files: nothing replaced, no snapshot */
  pm_manifest_committable *none = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 0);
  int64_t sid = 0;
  CHECK_OK(pm_commit_overwrite(c, NULL, none, &sid, &err), &err);
  CHECK_EQ_INT(sid, -1);
  CHECK_EQ_INT(cf_latest_id(dir), 1);
  /* only the partitions written are replaced (y and null), x stays */
  pm_manifest_committable *m = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 2);
  static const int32_t ids[] = {8};
  static const char *const nm[] = {"h"};
  cf_add_file(m, t, &pf, "y", ids, nm, 1);
  cf_add_file(m, t, &pf, NULL, ids2, n2, 1);
  CHECK_OK(pm_commit_overwrite(c, NULL, m, &sid, &err), &err);
  CHECK_EQ_INT(sid, 2);
  CHECK(cf_check(dir));
  CHECK(cf_rows_are(dir, "1|a|x\n2|b|x\n3|c|null\n8|h|y\n"));
  pm_committable_free(none);
  pm_committable_free(m);
  pm_commit_free(c);
  pm_table_free(t);
}

static void test_truncate_and_drop(void) {
  char dir[600];
  snprintf(dir, sizeof dir, "%s/drop", root);
  pm_path_factory pf;
  pm_table *t = setup(dir, NULL, &pf);
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_commit *c = NULL;
  CHECK_OK(pm_commit_open(t, "drop", 0, &c, &err), &err);
  const char *keys[] = {"dt"}, *vx[] = {"x"}, *vn[] = {"__DEFAULT_PARTITION__"};
  pm_partition_spec specs[2] = {{keys, vx, 1}, {keys, vn, 1}};
  int64_t sid = 0;
  CHECK_OK(pm_commit_drop_partitions(c, specs, 2, PM_BATCH_COMMIT_IDENTIFIER, &sid, &err), &err);
  CHECK_EQ_INT(sid, 2);
  pm_snapshot *s = cf_snapshot(dir, 2);
  CHECK(s && !strcmp(s->commit_kind, "OVERWRITE") && s->operation && !strcmp(s->operation, "TRUNCATE") &&
        s->total_record_count == 1);
  pm_snapshot_free(s);
  CHECK(cf_check(dir));
  CHECK(cf_rows_are(dir, "3|c|y\n"));
  /* an unknown key is refused */
  const char *bk[] = {"nope"};
  pm_partition_spec bad = {bk, vx, 1};
  CHECK_EQ_INT(pm_commit_drop_partitions(c, &bad, 1, PM_BATCH_COMMIT_IDENTIFIER, &sid, &err),
               PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(err.message, "nope") != NULL, "%s", err.message);
  /* a partition without files: an OVERWRITE snapshot deleting nothing (as Java) */
  CHECK_OK(pm_commit_drop_partitions(c, specs, 1, PM_BATCH_COMMIT_IDENTIFIER, &sid, &err), &err);
  CHECK_EQ_INT(sid, 3);
  CHECK_EQ_INT(pm_commit_drop_partitions(c, &bad, 1, PM_BATCH_COMMIT_IDENTIFIER, &sid, &err),
               PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(cf_latest_id(dir), 3);
  /* truncate table */
  CHECK_OK(pm_commit_drop_partitions(c, NULL, 0, PM_BATCH_COMMIT_IDENTIFIER, &sid, &err), &err);
  CHECK_EQ_INT(sid, 4);
  s = cf_snapshot(dir, 4);
  CHECK(s && s->total_record_count == 0 && s->delta_record_count == -1 && !strcmp(s->operation, "TRUNCATE"));
  pm_snapshot_free(s);
  CHECK(cf_check(dir));
  CHECK(cf_rows_are(dir, ""));
  /* later commits carry no operation */
  pm_manifest_committable *m = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  cf_add_file(m, t, &pf, "x", ids1, n1, 2);
  CHECK_OK(pm_commit_append(c, m, 0, &sid, &err), &err);
  s = cf_snapshot(dir, 5);
  CHECK(s && !s->operation && !strcmp(s->commit_kind, "APPEND"));
  pm_snapshot_free(s);
  CHECK(cf_check(dir));
  CHECK(cf_rows_are(dir, "1|a|x\n2|b|x\n"));
  pm_committable_free(m);
  pm_commit_free(c);
  pm_table_free(t);
}

int main(void) {
  snprintf(root, sizeof root, "/tmp/pm_test_commit_ow_%d", (int)getpid());
  RUN_TEST(test_static_overwrite);
  RUN_TEST(test_dynamic_overwrite);
  RUN_TEST(test_truncate_and_drop);
  if (!pm_test_failures) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
  }
  tw_cleanup();
  TEST_MAIN_END();
}
