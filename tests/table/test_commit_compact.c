/* COMPACT snapshots and conflict detection (SEMANTICS.md 7.4, 7.6): a
 * compaction replacing two files, a second compaction of the same files
 * (file deletion conflict), append + compact increments in one commit (two
 * snapshots), a total-buckets change without overwrite, commit.timeout;
 * statistics carried over while the schema id is unchanged. */
#include "io/fs_fault.h"
#include "support/commit_fixture.h"

static char root[512];
static const int32_t a[] = {1, 2}, b[] = {3};
static const char *const na[] = {"a", "b"}, *const nb[] = {"c"};

/* A message compacting `before` into one new file holding rows ids/names. */
static void add_compaction(pm_manifest_committable *m, pm_table *t, pm_path_factory *pf, pm_data_file_meta *before,
                           size_t n_before, const int32_t *ids, const char *const *names, int n) {
  pm_commit_message *msg = &m->messages[m->n_messages++];
  memset(msg, 0, sizeof *msg);
  msg->partition = cf_partition(&m->arena, NULL, 0);
  msg->total_buckets = t->bucket;
  msg->has_total_buckets = 1;
  pm_data_file_meta *after = pm_arena_alloc(&m->arena, sizeof *after);
  cf_data_file(t, pf, &m->arena, NULL, ids, names, n, after);
  after->file_source = PM_SOURCE_COMPACT;
  msg->compact_before.items = before;
  msg->compact_before.n = n_before;
  msg->compact_after.items = after;
  msg->compact_after.n = 1;
}

static void test_compact_and_conflict(void) {
  char dir[600];
  snprintf(dir, sizeof dir, "%s/compact", root);
  cf_make_table(dir, 0, NULL);
  pm_table *t = cf_open(dir, NULL);
  pm_path_factory pf;
  pm_path_factory_init(&pf, t->fs, t->root);
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_commit *c = NULL;
  CHECK_OK(pm_commit_open(t, "u", 0, &c, &err), &err);
  pm_manifest_committable *m1 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 2);
  cf_add_file(m1, t, &pf, NULL, a, na, 2);
  cf_add_file(m1, t, &pf, NULL, b, nb, 1);
  int64_t sid = 0;
  CHECK_OK(pm_commit_append(c, m1, 0, &sid, &err), &err);
  pm_data_file_meta before[2] = {m1->messages[0].new_files.items[0], m1->messages[1].new_files.items[0]};

  static const int32_t all[] = {1, 2, 3};
  static const char *const nall[] = {"a", "b", "c"};
  pm_manifest_committable *m2 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  add_compaction(m2, t, &pf, before, 2, all, nall, 3);
  CHECK_OK(pm_commit_append(c, m2, 0, &sid, &err), &err);
  CHECK_EQ_INT(sid, 2);
  pm_snapshot *s = cf_snapshot(dir, 2);
  CHECK(s && !strcmp(s->commit_kind, "COMPACT") && s->delta_record_count == 0 && s->total_record_count == 3);
  pm_snapshot_free(s);
  CHECK(cf_check(dir));
  CHECK(cf_rows_are(dir, "1|a|\n2|b|\n3|c|\n"));

  /* another committer compacts the same (now deleted) files: conflict, nothing written */
  pm_commit *c2 = NULL;
  CHECK_OK(pm_commit_open(t, "other", 0, &c2, &err), &err);
  pm_manifest_committable *m3 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  add_compaction(m3, t, &pf, before, 2, all, nall, 3);
  CHECK_EQ_INT(pm_commit_append(c2, m3, 0, &sid, &err), PAIMON_ERR_CONFLICT);
  CHECK_MSG(strstr(err.message, "not previously added") != NULL, "%s", err.message);
  CHECK_EQ_INT(cf_latest_id(dir), 2);
  CHECK_OK(pm_commit_abort(t, m3, &err), &err);
  CHECK(cf_check(dir));

  /* new files and a compaction in one commit: APPEND then COMPACT, same identifier */
  pm_manifest_committable *m4 = cf_committable(42, 2);
  pm_data_file_meta *f4 = cf_add_file(m4, t, &pf, NULL, b, nb, 1);
  (void)f4;
  pm_data_file_meta prev = m2->messages[0].compact_after.items[0];
  pm_data_file_meta *keep = pm_arena_alloc(&m4->arena, sizeof *keep);
  *keep = prev;
  add_compaction(m4, t, &pf, keep, 1, all, nall, 3);
  CHECK_OK(pm_commit_append(c2, m4, 0, &sid, &err), &err);
  CHECK_EQ_INT(sid, 4);
  pm_snapshot *s3 = cf_snapshot(dir, 3), *s4 = cf_snapshot(dir, 4);
  CHECK(s3 && !strcmp(s3->commit_kind, "APPEND") && s3->commit_identifier == 42);
  CHECK(s4 && !strcmp(s4->commit_kind, "COMPACT") && s4->commit_identifier == 42 && s4->total_record_count == 4);
  pm_snapshot_free(s3);
  pm_snapshot_free(s4);
  CHECK(cf_check(dir));
  CHECK(cf_rows_are(dir, "1|a|\n2|b|\n3|c|\n3|c|\n"));
  pm_committable_free(m1);
  pm_committable_free(m2);
  pm_committable_free(m3);
  pm_committable_free(m4);
  pm_commit_free(c);
  pm_commit_free(c2);
  pm_table_free(t);
}

static void test_total_buckets_conflict(void) {
  char dir[600];
  snprintf(dir, sizeof dir, "%s/buckets", root);
  cf_make_table(dir, 0, NULL);
  /* bucket = 2 (fixed): rows are not hashed here, so only the statuses are checked */
  char p[700];
  snprintf(p, sizeof p, "sed -i 's/\"bucket\" : \"-1\"/\"bucket\" : \"2\", \"bucket-key\" : \"id\"/' '%s/schema/schema-0'",
           dir);
  CHECK(system(p) == 0);
  pm_table *t = cf_open(dir, NULL);
  CHECK_EQ_INT(t->bucket, 2);
  pm_path_factory pf;
  pm_path_factory_init(&pf, t->fs, t->root);
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_commit *c = NULL;
  CHECK_OK(pm_commit_open(t, "u", 0, &c, &err), &err);
  pm_manifest_committable *m1 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  cf_add_file(m1, t, &pf, NULL, a, na, 2);
  int64_t sid = 0;
  CHECK_OK(pm_commit_append(c, m1, 0, &sid, &err), &err);
  pm_manifest_committable *m2 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  cf_add_file(m2, t, &pf, NULL, b, nb, 1);
  m2->messages[0].total_buckets = 3;
  CHECK_EQ_INT(pm_commit_append(c, m2, 1, &sid, &err), PAIMON_ERR_CONFLICT);
  CHECK_MSG(strstr(err.message, "total buckets") && strstr(err.message, "from 2 to 3"), "%s", err.message);
  CHECK_EQ_INT(cf_latest_id(dir), 1);
  /* an overwrite may change them */
  CHECK_OK(pm_commit_overwrite(c, NULL, m2, &sid, &err), &err);
  CHECK_EQ_INT(sid, 2);
  pm_committable_free(m1);
  pm_committable_free(m2);
  pm_commit_free(c);
  pm_table_free(t);
}

static void test_timeout(void) {
  char dir[600];
  snprintf(dir, sizeof dir, "%s/timeout", root);
  cf_make_table(dir, 0, "\"commit.timeout\" : \"30 ms\", \"commit.max-retries\" : \"1000\", "
                        "\"commit.min-retry-wait\" : \"5 ms\", \"commit.max-retry-wait\" : \"5 ms\"");
  pm_fs *fs = NULL;
  pm_error err;
  memset(&err, 0, sizeof err);
  CHECK_OK(pm_fault_fs_new(pm_fs_local(), &fs, &err), &err);
  pm_table *t = cf_open(dir, fs);
  pm_path_factory pf;
  pm_path_factory_init(&pf, pm_fs_local(), t->root);
  pm_commit *c = NULL;
  CHECK_OK(pm_commit_open(t, "u", 0, &c, &err), &err);
  pm_manifest_committable *m = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  cf_add_file(m, t, &pf, NULL, a, na, 2);
  pm_fault_rule r = {PM_FAULT_OP_CREATE_IF_ABSENT, 1, 0, PM_FAULT_LOSE, 0};
  pm_fault_fs_arm(fs, &r);
  int64_t sid = 0;
  /* every create lost (found by reading back): nothing published; IO as write.h says */
  CHECK_EQ_INT(pm_commit_append(c, m, 0, &sid, &err), PAIMON_ERR_IO);
  CHECK_MSG(strstr(err.message, "commit.timeout") != NULL, "%s", err.message);
  pm_fault_fs_disarm(fs);
  CHECK_EQ_INT(cf_latest_id(dir), 0);
  pm_committable_free(m);
  pm_commit_free(c);
  pm_table_free(t);
  pm_fs_unref(fs);
}

/* Hand-made ANALYZE snapshot 2 carrying statistics (as Java's commitStatistics). */
static void analyze(const char *dir, int64_t schema_id) {
  pm_snapshot *s1 = cf_snapshot(dir, 1);
  pm_error err;
  memset(&err, 0, sizeof err);
  char p[2400];
  snprintf(p, sizeof p, "mkdir -p '%s/statistics' && printf '{\"snapshotId\" : 1, \"schemaId\" : %d, "
           "\"mergedRecordCount\" : 2, \"mergedRecordSize\" : 100, \"colStats\" : { }}' > '%s/statistics/stats-1'",
           dir, (int)schema_id, dir);
  CHECK(system(p) == 0);
  /* base = s1's base + delta manifests, delta empty */
  pm_manifest_file_metas metas;
  pm_manifest_file_metas_init(&metas);
  const char *lists[2] = {s1->base_manifest_list, s1->delta_manifest_list};
  for (int i = 0; i < 2; i++) {
    snprintf(p, sizeof p, "%s/manifest/%s", dir, lists[i]);
    CHECK_OK(pm_manifest_list_read(pm_fs_local(), p, &metas, &err), &err);
  }
  pm_snapshot *s2 = NULL;
  CHECK_OK(pm_snapshot_copy(s1, &s2, &err), &err);
  free(s2->base_manifest_list);
  free(s2->delta_manifest_list);
  pm_path_factory pf;
  pm_path_factory_init(&pf, pm_fs_local(), dir);
  char *bl = pm_path_factory_new_manifest_list(&pf), *dl = pm_path_factory_new_manifest_list(&pf);
  s2->base_manifest_list = strdup(strrchr(bl, '/') + 1);
  s2->delta_manifest_list = strdup(strrchr(dl, '/') + 1);
  free(bl);
  free(dl);
  snprintf(p, sizeof p, "%s/manifest/%s", dir, s2->base_manifest_list);
  CHECK_OK(pm_manifest_list_write(pm_fs_local(), p, metas.items, metas.n, NULL, &s2->base_manifest_list_size, &err),
           &err);
  snprintf(p, sizeof p, "%s/manifest/%s", dir, s2->delta_manifest_list);
  CHECK_OK(pm_manifest_list_write(pm_fs_local(), p, NULL, 0, NULL, &s2->delta_manifest_list_size, &err), &err);
  s2->id = 2;
  free(s2->commit_kind);
  s2->commit_kind = strdup("ANALYZE");
  s2->delta_record_count = 0;
  s2->statistics = strdup("stats-1");
  pm_snapshot_manager sm = pm_snapshot_manager_of(pm_fs_local(), dir, NULL);
  CHECK_OK(pm_snapshot_commit(&sm, s2, &err), &err);
  pm_manifest_file_metas_clear(&metas);
  pm_snapshot_free(s1);
  pm_snapshot_free(s2);
}

static void test_statistics_carried(void) {
  char dir[600];
  snprintf(dir, sizeof dir, "%s/stats", root);
  cf_make_table(dir, 0, NULL);
  pm_table *t = cf_open(dir, NULL);
  pm_path_factory pf;
  pm_path_factory_init(&pf, t->fs, t->root);
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_commit *c = NULL;
  CHECK_OK(pm_commit_open(t, "u", 0, &c, &err), &err);
  pm_manifest_committable *m = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  cf_add_file(m, t, &pf, NULL, a, na, 2);
  int64_t sid = 0;
  CHECK_OK(pm_commit_append(c, m, 0, &sid, &err), &err);
  analyze(dir, 0);
  pm_manifest_committable *m2 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  cf_add_file(m2, t, &pf, NULL, b, nb, 1);
  CHECK_OK(pm_commit_append(c, m2, 0, &sid, &err), &err);
  CHECK_EQ_INT(sid, 3);
  pm_snapshot *s = cf_snapshot(dir, 3);
  CHECK(s && s->statistics && !strcmp(s->statistics, "stats-1"));
  pm_snapshot_free(s);
  CHECK(cf_check(dir));
  /* a new schema: statistics no longer inherited */
  char p[1400];
  snprintf(p, sizeof p, "sed 's/^  \"id\" : 0,/  \"id\" : 1,/' '%s/schema/schema-0' > '%s/schema/schema-1'", dir, dir);
  CHECK(system(p) == 0);
  pm_manifest_committable *m3 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  cf_add_file(m3, t, &pf, NULL, b, nb, 1);
  CHECK_OK(pm_commit_append(c, m3, 0, &sid, &err), &err);
  s = cf_snapshot(dir, 4);
  CHECK(s && !s->statistics && s->schema_id == 1);
  pm_snapshot_free(s);
  CHECK(cf_rows_are(dir, "1|a|\n2|b|\n3|c|\n3|c|\n"));
  pm_committable_free(m);
  pm_committable_free(m2);
  pm_committable_free(m3);
  pm_commit_free(c);
  pm_table_free(t);
}

int main(void) {
  snprintf(root, sizeof root, "/tmp/pm_test_commit_compact_%d", (int)getpid());
  RUN_TEST(test_compact_and_conflict);
  RUN_TEST(test_total_buckets_conflict);
  RUN_TEST(test_timeout);
  RUN_TEST(test_statistics_carried);
  if (!pm_test_failures) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
  }
  tw_cleanup();
  TEST_MAIN_END();
}
