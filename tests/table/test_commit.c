/* The committer's APPEND path: snapshots, manifests, hints, record counts,
 * watermark, properties, empty commits, restart recovery and abort; every
 * table checked by paimon-table (check + read) and by our reader. */
#include "support/commit_fixture.h"

static char root[512];

static const int32_t ids_a[] = {1, 2, 3};
static const char *const names_a[] = {"a", "b", NULL};
static const int32_t ids_b[] = {10, 11};
static const char *const names_b[] = {"x", "y"};

static void test_append_two_commits(void) {
  char dir[600];
  snprintf(dir, sizeof dir, "%s/append", root);
  cf_make_table(dir, 0, NULL);
  pm_table *t = cf_open(dir, NULL);
  pm_path_factory pf;
  pm_path_factory_init(&pf, t->fs, t->root);
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_commit *c = NULL;
  CHECK_OK(pm_commit_open(t, "user-1", 0, &c, &err), &err);

  pm_manifest_committable *m1 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 2);
  cf_add_file(m1, t, &pf, NULL, ids_a, names_a, 3);
  cf_add_file(m1, t, &pf, NULL, ids_b, names_b, 2);
  m1->has_watermark = 1;
  m1->watermark = 1000;
  int64_t sid = 0;
  CHECK_OK(pm_commit_append(c, m1, 0, &sid, &err), &err);
  CHECK_EQ_INT(sid, 1);

  pm_options props;
  pm_options_init(&props);
  pm_options_set(&props, "k", "v", &err);
  CHECK_OK(pm_commit_set_properties(c, &props, &err), &err);
  pm_options_clear(&props);
  pm_manifest_committable *m2 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  static const int32_t ids_c[] = {20};
  static const char *const names_c[] = {"z"};
  cf_add_file(m2, t, &pf, NULL, ids_c, names_c, 1);
  m2->has_watermark = 1;
  m2->watermark = 500; /* lower: the snapshot keeps the max */
  CHECK_OK(pm_commit_append(c, m2, 0, &sid, &err), &err);
  CHECK_EQ_INT(sid, 2);

  pm_snapshot *s1 = cf_snapshot(dir, 1), *s2 = cf_snapshot(dir, 2);
  CHECK(s1 && s2);
  if (s1 && s2) {
    CHECK_EQ_STR(s1->commit_kind, "APPEND");
    CHECK_EQ_STR(s1->commit_user, "user-1");
    CHECK_EQ_INT(s1->commit_identifier, PM_BATCH_COMMIT_IDENTIFIER);
    CHECK_EQ_INT(s1->total_record_count, 5);
    CHECK_EQ_INT(s1->delta_record_count, 5);
    CHECK_EQ_INT(s1->watermark, 1000);
    CHECK_EQ_INT(s1->next_row_id, 0);
    CHECK(s1->has_next_row_id);
    CHECK_EQ_INT(s1->properties.n, 0);
    CHECK_EQ_INT(s2->total_record_count, 6);
    CHECK_EQ_INT(s2->delta_record_count, 1);
    CHECK_EQ_INT(s2->watermark, 1000);
    CHECK_EQ_STR(pm_options_get(&s2->properties, "k"), "v");
    CHECK(!s2->changelog_manifest_list && !s2->index_manifest && !s2->operation && !s2->uuid);
  }
  pm_snapshot_free(s1);
  pm_snapshot_free(s2);

  /* hints: bare ids, no newline */
  char p[700];
  snprintf(p, sizeof p, "%s/snapshot/LATEST", dir);
  char *latest = cf_read_text(p);
  snprintf(p, sizeof p, "%s/snapshot/EARLIEST", dir);
  char *earliest = cf_read_text(p);
  CHECK_EQ_STR(latest, "2");
  CHECK_EQ_STR(earliest, "1");
  free(latest);
  free(earliest);
  /* key order of the JSON as Java writes it */
  snprintf(p, sizeof p, "%s/snapshot/snapshot-2", dir);
  char *json = cf_read_text(p);
  const char *order[] = {"\"version\"", "\"id\"", "\"schemaId\"", "\"baseManifestList\"", "\"baseManifestListSize\"",
                         "\"deltaManifestList\"", "\"deltaManifestListSize\"", "\"commitUser\"",
                         "\"commitIdentifier\"", "\"commitKind\"", "\"timeMillis\"", "\"totalRecordCount\"",
                         "\"deltaRecordCount\"", "\"watermark\"", "\"properties\"", "\"nextRowId\""};
  const char *prev = json;
  for (size_t i = 0; json && i < sizeof order / sizeof *order; i++) {
    const char *at = strstr(json, order[i]);
    CHECK_MSG(at && at >= prev, "%s out of order", order[i]);
    if (at) prev = at;
  }
  free(json);

  CHECK(cf_check(dir));
  CHECK(cf_rows_are(dir, "10|x|\n11|y|\n1|a|\n20|z|\n2|b|\n3||\n"));
  pm_committable_free(m1);
  pm_committable_free(m2);
  pm_commit_free(c);
  pm_table_free(t);
}

static void test_empty_commits(void) {
  char dir[600];
  snprintf(dir, sizeof dir, "%s/empty", root);
  cf_make_table(dir, 0, NULL);
  pm_table *t = cf_open(dir, NULL);
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_commit *batch = NULL, *stream = NULL;
  CHECK_OK(pm_commit_open(t, "u-batch", 0, &batch, &err), &err);
  CHECK_OK(pm_commit_open(t, "u-stream", 1, &stream, &err), &err);
  pm_manifest_committable *e = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 0);
  int64_t sid = 0;
  /* batch: an empty commit writes nothing */
  CHECK_OK(pm_commit_append(batch, e, 0, &sid, &err), &err);
  CHECK_EQ_INT(sid, -1);
  CHECK_EQ_INT(cf_latest_id(dir), 0);
  /* stream: the identifier is recorded in an empty APPEND snapshot */
  pm_manifest_committable *e7 = cf_committable(7, 0);
  CHECK_OK(pm_commit_append(stream, e7, 0, &sid, &err), &err);
  CHECK_EQ_INT(sid, 1);
  pm_snapshot *s = cf_snapshot(dir, 1);
  CHECK(s && s->commit_identifier == 7 && !strcmp(s->commit_kind, "APPEND") && s->delta_record_count == 0 &&
        s->total_record_count == 0);
  pm_snapshot_free(s);
  /* restart recovery: 7 is committed by u-stream, 8 is not; u-batch committed nothing */
  int64_t ids[2] = {7, 8};
  int committed[2] = {-1, -1};
  CHECK_OK(pm_commit_filter_committed(stream, ids, 2, committed, &err), &err);
  CHECK(committed[0] == 1 && committed[1] == 0);
  CHECK_OK(pm_commit_filter_committed(batch, ids, 2, committed, &err), &err);
  CHECK(committed[0] == 0 && committed[1] == 0);
  CHECK(cf_check(dir));
  CHECK(cf_rows_are(dir, ""));
  pm_committable_free(e);
  pm_committable_free(e7);
  pm_commit_free(batch);
  pm_commit_free(stream);
  pm_table_free(t);

  /* snapshot.ignore-empty-commit = false: a batch empty commit writes a snapshot too */
  snprintf(dir, sizeof dir, "%s/empty2", root);
  cf_make_table(dir, 0, "\"snapshot.ignore-empty-commit\" : \"false\"");
  t = cf_open(dir, NULL);
  CHECK_OK(pm_commit_open(t, "u", 0, &batch, &err), &err);
  e = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 0);
  CHECK_OK(pm_commit_append(batch, e, 0, &sid, &err), &err);
  CHECK_EQ_INT(sid, 1);
  CHECK(cf_check(dir));
  pm_committable_free(e);
  pm_commit_free(batch);
  pm_table_free(t);
}

static int file_exists(pm_table *t, const char *name) {
  char *b = NULL;
  pm_error err;
  if (pm_table_bucket_path(t, "", 0, &b, &err)) return -1;
  char p[1200];
  snprintf(p, sizeof p, "%s/%s", b, name);
  free(b);
  return access(p, F_OK) == 0;
}

static void test_abort_and_duplicates(void) {
  char dir[600];
  snprintf(dir, sizeof dir, "%s/abort", root);
  cf_make_table(dir, 0, NULL);
  pm_table *t = cf_open(dir, NULL);
  pm_path_factory pf;
  pm_path_factory_init(&pf, t->fs, t->root);
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_manifest_committable *m = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  pm_data_file_meta *f = cf_add_file(m, t, &pf, NULL, ids_a, names_a, 3);
  CHECK_EQ_INT(file_exists(t, f->file_name), 1);
  CHECK_OK(pm_commit_abort(t, m, &err), &err);
  CHECK_EQ_INT(file_exists(t, f->file_name), 0);
  CHECK_OK(pm_commit_abort(t, m, &err), &err); /* already gone: fine */
  pm_committable_free(m);

  /* the same file committed twice: conflict when checked, dropped with commit.discard-duplicate-files */
  pm_commit *c = NULL;
  CHECK_OK(pm_commit_open(t, "u", 0, &c, &err), &err);
  m = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  cf_add_file(m, t, &pf, NULL, ids_b, names_b, 2);
  int64_t sid = 0;
  CHECK_OK(pm_commit_append(c, m, 0, &sid, &err), &err);
  CHECK_EQ_INT(pm_commit_append(c, m, 1, &sid, &err), PAIMON_ERR_CONFLICT);
  CHECK_MSG(strstr(err.message, "already added") != NULL, "%s", err.message);
  CHECK_EQ_INT(cf_latest_id(dir), 1);
  pm_commit_free(c);
  pm_table_free(t);
  pm_options dyn;
  pm_options_init(&dyn);
  pm_options_set(&dyn, "commit.discard-duplicate-files", "true", &err);
  CHECK_OK(pm_table_open_path(dir, "default", "t", NULL, &dyn, NULL, &t, &err), &err);
  pm_options_clear(&dyn);
  CHECK_OK(pm_commit_open(t, "u", 0, &c, &err), &err);
  CHECK_OK(pm_commit_append(c, m, 0, &sid, &err), &err);
  CHECK_EQ_INT(sid, 2);
  pm_snapshot *s = cf_snapshot(dir, 2);
  CHECK(s && s->delta_record_count == 0 && s->total_record_count == 2);
  pm_snapshot_free(s);
  CHECK(cf_check(dir));
  CHECK(cf_rows_are(dir, "10|x|\n11|y|\n"));
  pm_committable_free(m);
  pm_commit_free(c);
  pm_table_free(t);
}


/* Changelog files get their own manifest list and count; they are not part of the data. */
static void test_changelog_list(void) {
  char dir[600];
  snprintf(dir, sizeof dir, "%s/changelog", root);
  cf_make_table(dir, 0, NULL);
  pm_table *t = cf_open(dir, NULL);
  pm_path_factory pf;
  pm_path_factory_init(&pf, t->fs, t->root);
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_commit *c = NULL;
  CHECK_OK(pm_commit_open(t, "u", 1, &c, &err), &err);
  pm_manifest_committable *m = cf_committable(5, 1);
  pm_data_file_meta *f = cf_add_file(m, t, &pf, NULL, ids_a, names_a, 3);
  pm_data_file_meta *cl = pm_arena_alloc(&m->arena, sizeof *cl);
  cf_data_file(t, &pf, &m->arena, NULL, ids_b, names_b, 2, cl);
  m->messages[0].changelog_files.items = cl;
  m->messages[0].changelog_files.n = 1;
  int64_t sid = 0;
  CHECK_OK(pm_commit_append(c, m, 0, &sid, &err), &err);
  pm_snapshot *s = cf_snapshot(dir, 1);
  CHECK(s && s->changelog_manifest_list && s->has_changelog_manifest_list_size && s->has_changelog_record_count &&
        s->changelog_record_count == 2 && s->total_record_count == 3);
  if (s && s->changelog_manifest_list) {
    char p[1200];
    snprintf(p, sizeof p, "%s/manifest/%s", dir, s->changelog_manifest_list);
    pm_manifest_file_metas metas;
    pm_manifest_file_metas_init(&metas);
    CHECK_OK(pm_manifest_list_read(t->fs, p, &metas, &err), &err);
    CHECK_EQ_INT(metas.n, 1);
    pm_manifest_entries es;
    pm_manifest_entries_init(&es);
    if (metas.n == 1) {
      snprintf(p, sizeof p, "%s/manifest/%s", dir, metas.items[0].file_name);
      CHECK_OK(pm_manifest_read(t->fs, p, NULL, NULL, &es, &err), &err);
    }
    CHECK(es.n == 1 && !strcmp(es.items[0].file.file_name, cl->file_name) && es.items[0].kind == PM_FILE_ADD);
    pm_manifest_entries_clear(&es);
    pm_manifest_file_metas_clear(&metas);
  }
  pm_snapshot_free(s);
  (void)f;
  CHECK(cf_rows_are(dir, "1|a|\n2|b|\n3||\n"));
  pm_committable_free(m);
  pm_commit_free(c);
  pm_table_free(t);
}

int main(void) {
  snprintf(root, sizeof root, "/tmp/pm_test_commit_%d", (int)getpid());
  RUN_TEST(test_append_two_commits);
  RUN_TEST(test_empty_commits);
  RUN_TEST(test_abort_and_duplicates);
  RUN_TEST(test_changelog_list);
  char cmd[600];
  if (!pm_test_failures) {
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
  }
  tw_cleanup();
  TEST_MAIN_END();
}
