/* The committer on the fault-injecting fs (SEMANTICS.md 7.5): a failed or lost
 * snapshot create is retried and published once; an error after the snapshot
 * became visible is resolved by the (user, identifier, kind) search; statuses
 * CONFLICT (nothing published) vs UNKNOWN_OUTCOME (maybe published), and a
 * later commit of the same identifier publishes at most once. */
#include "io/fs_fault.h"
#include "support/commit_fixture.h"

static char root[512];
static const int32_t ids[] = {1, 2};
static const char *const names[] = {"a", "b"};

typedef struct env {
  char dir[600];
  pm_fs *fs;
  pm_table *t;
  pm_path_factory pf;
} env;

static void env_open(env *e, const char *name, const char *opts) {
  snprintf(e->dir, sizeof e->dir, "%s/%s", root, name);
  cf_make_table(e->dir, 0, opts);
  pm_error err;
  if (pm_fault_fs_new(pm_fs_local(), &e->fs, &err)) abort();
  e->t = cf_open(e->dir, e->fs);
  pm_path_factory_init(&e->pf, pm_fs_local(), e->t->root);
}

static void env_close(env *e) {
  pm_table_free(e->t);
  pm_fs_unref(e->fs);
}

/* A commit of one new file (data written on the local fs, outside the faults). */
static pm_manifest_committable *one_file(env *e, int64_t identifier) {
  pm_manifest_committable *m = cf_committable(identifier, 1);
  cf_add_file(m, e->t, &e->pf, NULL, ids, names, 2);
  return m;
}

/* Operations of `op` one commit of one file performs on e's table (counted). */
static uint64_t count_ops(env *e, pm_commit *c, pm_fault_op op, int64_t identifier) {
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_manifest_committable *m = one_file(e, identifier);
  pm_fault_fs_disarm(e->fs);
  int64_t sid = 0;
  CHECK_OK(pm_commit_append(c, m, 0, &sid, &err), &err);
  uint64_t n = pm_fault_fs_count(e->fs, op);
  pm_committable_free(m);
  return n;
}

static void arm(env *e, pm_fault_op op, uint64_t nth, uint64_t times, pm_fault_action a) {
  pm_fault_rule r = {op, nth, times, a, 0};
  pm_fault_fs_arm(e->fs, &r);
}

/* The snapshot create fails once (error, then lost): retried, published once. */
static void test_snapshot_create_retried(void) {
  env e;
  env_open(&e, "retry", "\"commit.min-retry-wait\" : \"1 ms\", \"commit.max-retry-wait\" : \"5 ms\"");
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_commit *c = NULL;
  CHECK_OK(pm_commit_open(e.t, "u", 0, &c, &err), &err);
  /* the snapshot is the last create-if-absent of a commit */
  uint64_t n = count_ops(&e, c, PM_FAULT_OP_CREATE_IF_ABSENT, PM_BATCH_COMMIT_IDENTIFIER);
  CHECK(n >= 3);
  pm_fault_action actions[2] = {PM_FAULT_ERROR, PM_FAULT_LOSE};
  for (int k = 0; k < 2; k++) {
    pm_manifest_committable *m = one_file(&e, PM_BATCH_COMMIT_IDENTIFIER);
    arm(&e, PM_FAULT_OP_CREATE_IF_ABSENT, n, 1, actions[k]);
    int64_t sid = 0;
    CHECK_OK(pm_commit_append(c, m, 0, &sid, &err), &err);
    CHECK_EQ_INT(pm_fault_fs_injected(e.fs), 1);
    CHECK_EQ_INT(sid, 2 + k);
    CHECK_EQ_INT(cf_latest_id(e.dir), 2 + k);
    pm_fault_fs_disarm(e.fs);
    pm_committable_free(m);
  }
  CHECK(cf_check(e.dir));
  CHECK(cf_rows_are(e.dir, "1|a|\n1|a|\n1|a|\n2|b|\n2|b|\n2|b|\n"));
  pm_commit_free(c);
  env_close(&e);
}

/* The snapshot create reported done but lost (the read-back does not find it), and every
 * later create too (the retries' manifests: certain failures). The lost snapshot is not
 * proof that nothing was published (it may still appear), so when the retries run out the
 * status is UNKNOWN_OUTCOME (was IO: the wrong classification), none of the first
 * attempt's files are deleted, and a retry of the same commit publishes it once. */
static void test_lost_publish_unknown(void) {
  env e;
  env_open(&e, "lost", "\"commit.min-retry-wait\" : \"1 ms\", \"commit.max-retry-wait\" : \"2 ms\", "
                       "\"commit.max-retries\" : \"3\"");
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_commit *c = NULL;
  CHECK_OK(pm_commit_open(e.t, "u", 0, &c, &err), &err);
  uint64_t n = count_ops(&e, c, PM_FAULT_OP_CREATE_IF_ABSENT, PM_BATCH_COMMIT_IDENTIFIER);
  int manifests_before = cf_count_files(e.dir, "manifest", "*");
  int data_before = cf_count_files(e.dir, ".", "data-*");
  pm_manifest_committable *m = one_file(&e, PM_BATCH_COMMIT_IDENTIFIER);
  CHECK_EQ_INT(cf_count_files(e.dir, ".", "data-*"), data_before + 1);
  arm(&e, PM_FAULT_OP_CREATE_IF_ABSENT, n, 0, PM_FAULT_LOSE);
  int64_t sid = 0;
  CHECK_EQ_INT(pm_commit_append(c, m, 0, &sid, &err), PAIMON_ERR_UNKNOWN_OUTCOME);
  CHECK_MSG(strstr(err.message, "may or may not be published") != NULL, "%s", err.message);
  CHECK_EQ_INT(sid, -1);
  CHECK(pm_fault_fs_injected(e.fs) >= 4);
  pm_fault_fs_disarm(e.fs);
  CHECK_EQ_INT(cf_latest_id(e.dir), 1);
  /* nothing of the lost publication deleted: its manifest, delta and base lists (3 files)
   * stay, the data file stays; the retries' own (certainly unpublished) files are removed */
  CHECK_EQ_INT(cf_count_files(e.dir, "manifest", "*"), manifests_before + 3);
  CHECK_EQ_INT(cf_count_files(e.dir, ".", "data-*"), data_before + 1);
  CHECK(cf_check_after_crash(e.dir));
  CHECK(cf_rows_are(e.dir, "1|a|\n2|b|\n"));
  /* the same commit again (same committer: user, identifier): published exactly once */
  CHECK_OK(pm_commit_append(c, m, 0, &sid, &err), &err);
  CHECK_EQ_INT(sid, 2);
  CHECK_EQ_INT(cf_latest_id(e.dir), 2);
  CHECK(cf_check_after_crash(e.dir));
  CHECK(cf_rows_are(e.dir, "1|a|\n1|a|\n2|b|\n2|b|\n"));
  pm_committable_free(m);
  pm_commit_free(c);
  env_close(&e);
}

/* The same for a stream commit with one retry: UNKNOWN_OUTCOME; a restarted committer of
 * the same user (filter_committed: not committed) publishes it once, and again finds it. */
static void test_lost_publish_restart(void) {
  env e;
  env_open(&e, "lost2", "\"commit.min-retry-wait\" : \"1 ms\", \"commit.max-retry-wait\" : \"2 ms\", "
                        "\"commit.max-retries\" : \"1\"");
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_commit *c = NULL;
  CHECK_OK(pm_commit_open(e.t, "u", 1, &c, &err), &err);
  uint64_t n = count_ops(&e, c, PM_FAULT_OP_CREATE_IF_ABSENT, 1);
  pm_manifest_committable *m = one_file(&e, 2);
  arm(&e, PM_FAULT_OP_CREATE_IF_ABSENT, n, 0, PM_FAULT_LOSE);
  int64_t sid = 0;
  CHECK_EQ_INT(pm_commit_append(c, m, 0, &sid, &err), PAIMON_ERR_UNKNOWN_OUTCOME);
  pm_fault_fs_disarm(e.fs);
  pm_commit_free(c);
  CHECK_EQ_INT(cf_latest_id(e.dir), 1);
  pm_commit *c2 = NULL;
  CHECK_OK(pm_commit_open(e.t, "u", 1, &c2, &err), &err);
  int committed = -1;
  int64_t idv = 2;
  CHECK_OK(pm_commit_filter_committed(c2, &idv, 1, &committed, &err), &err);
  CHECK_EQ_INT(committed, 0);
  CHECK_OK(pm_commit_append(c2, m, 0, &sid, &err), &err);
  CHECK_EQ_INT(sid, 2);
  CHECK_OK(pm_commit_append(c2, m, 0, &sid, &err), &err);
  CHECK_EQ_INT(sid, 2);
  CHECK_EQ_INT(cf_latest_id(e.dir), 2);
  CHECK(cf_check_after_crash(e.dir));
  CHECK(cf_rows_are(e.dir, "1|a|\n1|a|\n2|b|\n2|b|\n"));
  pm_commit_free(c2);
  pm_committable_free(m);
  env_close(&e);
}

/* The snapshot create errors and no retry is left: UNKNOWN_OUTCOME; committing the
 * same identifier again publishes it once. */
static void test_unknown_then_recommit(void) {
  env e;
  env_open(&e, "unknown", "\"commit.max-retries\" : \"0\"");
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_commit *c = NULL;
  CHECK_OK(pm_commit_open(e.t, "u", 1, &c, &err), &err);
  uint64_t n = count_ops(&e, c, PM_FAULT_OP_CREATE_IF_ABSENT, 1);
  pm_manifest_committable *m = one_file(&e, 2);
  arm(&e, PM_FAULT_OP_CREATE_IF_ABSENT, n, 1, PM_FAULT_ERROR);
  int64_t sid = 0;
  CHECK_EQ_INT(pm_commit_append(c, m, 0, &sid, &err), PAIMON_ERR_UNKNOWN_OUTCOME);
  CHECK_MSG(strstr(err.message, "injected") != NULL, "%s", err.message);
  pm_fault_fs_disarm(e.fs);
  CHECK_EQ_INT(cf_latest_id(e.dir), 1);
  CHECK_OK(pm_commit_append(c, m, 0, &sid, &err), &err);
  CHECK_EQ_INT(sid, 2);
  CHECK_EQ_INT(cf_latest_id(e.dir), 2);
  CHECK(cf_check(e.dir));
  CHECK(cf_rows_are(e.dir, "1|a|\n1|a|\n2|b|\n2|b|\n"));
  pm_committable_free(m);
  pm_commit_free(c);
  env_close(&e);
}

/* The snapshot becomes visible but the check after it fails (an error after the
 * write): with retries the search finds it (published once); without, the status is
 * UNKNOWN_OUTCOME and a later commit of the same identifier finds it too. */
static void test_error_after_write(void) {
  env e;
  env_open(&e, "after", "\"commit.min-retry-wait\" : \"1 ms\", \"commit.max-retry-wait\" : \"2 ms\"");
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_commit *c = NULL;
  CHECK_OK(pm_commit_open(e.t, "u", 1, &c, &err), &err);
  count_ops(&e, c, PM_FAULT_OP_READ, 1);
  /* a commit's last reads: the snapshot read back after its create, then LATEST read back
   * (count_ops' one_file adds no read) */
  uint64_t n = count_ops(&e, c, PM_FAULT_OP_READ, 2);
  CHECK(n >= 2);
  pm_manifest_committable *m = one_file(&e, 3);
  arm(&e, PM_FAULT_OP_READ, n - 1, 1, PM_FAULT_ERROR);
  int64_t sid = 0;
  CHECK_OK(pm_commit_append(c, m, 0, &sid, &err), &err);
  CHECK_EQ_INT(pm_fault_fs_injected(e.fs), 1);
  CHECK_EQ_INT(sid, 3);
  CHECK_EQ_INT(cf_latest_id(e.dir), 3);
  pm_fault_fs_disarm(e.fs);
  pm_committable_free(m);
  pm_commit_free(c);
  pm_table_free(e.t);

  pm_options dyn;
  pm_options_init(&dyn);
  pm_options_set(&dyn, "commit.max-retries", "0", &err);
  CHECK_OK(pm_table_open_fs(e.fs, e.dir, "default", "t", NULL, &dyn, NULL, &e.t, &err), &err);
  pm_options_clear(&dyn);
  CHECK_OK(pm_commit_open(e.t, "u", 1, &c, &err), &err);
  /* a fresh committer's first commit does more reads than later ones: warm it up so the
   * armed read is the same one as above (the snapshot read back after the create) */
  CHECK_EQ_INT(count_ops(&e, c, PM_FAULT_OP_READ, 4), n);
  m = one_file(&e, 5);
  arm(&e, PM_FAULT_OP_READ, n - 1, 1, PM_FAULT_ERROR);
  CHECK_EQ_INT(pm_commit_append(c, m, 0, &sid, &err), PAIMON_ERR_UNKNOWN_OUTCOME);
  pm_fault_fs_disarm(e.fs);
  CHECK_EQ_INT(cf_latest_id(e.dir), 5); /* it did land */
  CHECK_OK(pm_commit_append(c, m, 0, &sid, &err), &err);
  CHECK_EQ_INT(sid, 5);
  CHECK_EQ_INT(cf_latest_id(e.dir), 5); /* ...once */
  /* another committer of the same user (a restarted process) does not publish it again */
  pm_commit *c2 = NULL;
  CHECK_OK(pm_commit_open(e.t, "u", 1, &c2, &err), &err);
  CHECK_OK(pm_commit_append(c2, m, 0, &sid, &err), &err);
  CHECK_EQ_INT(sid, 5);
  pm_manifest_committable *older = cf_committable(3, 0);
  CHECK_OK(pm_commit_append(c2, older, 0, &sid, &err), &err);
  CHECK_EQ_INT(sid, 5);
  CHECK_EQ_INT(cf_latest_id(e.dir), 5);
  pm_committable_free(older);
  pm_commit_free(c2);
  CHECK(cf_check(e.dir));
  CHECK(cf_rows_are(e.dir, "1|a|\n1|a|\n1|a|\n1|a|\n1|a|\n2|b|\n2|b|\n2|b|\n2|b|\n2|b|\n"));
  pm_committable_free(m);
  pm_commit_free(c);
  env_close(&e);
}

/* An I/O error before the snapshot write (a manifest): that status, nothing published,
 * the manifests of the attempt deleted. */
static void test_error_before_publish(void) {
  env e;
  env_open(&e, "before", NULL);
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_commit *c = NULL;
  CHECK_OK(pm_commit_open(e.t, "u", 0, &c, &err), &err);
  uint64_t n = count_ops(&e, c, PM_FAULT_OP_CREATE_IF_ABSENT, PM_BATCH_COMMIT_IDENTIFIER);
  for (uint64_t k = 1; k < n; k++) {
    pm_manifest_committable *m = one_file(&e, PM_BATCH_COMMIT_IDENTIFIER);
    arm(&e, PM_FAULT_OP_CREATE_IF_ABSENT, k, 1, PM_FAULT_ERROR);
    int64_t sid = 0;
    CHECK_EQ_INT(pm_commit_append(c, m, 0, &sid, &err), PAIMON_ERR_IO);
    pm_fault_fs_disarm(e.fs);
    CHECK_EQ_INT(cf_latest_id(e.dir), 1);
    CHECK_OK(pm_commit_abort(e.t, m, &err), &err);
    pm_committable_free(m);
  }
  /* no orphan manifests: exactly the files of snapshot 1 (base list, delta list, one manifest) */
  char p[700];
  snprintf(p, sizeof p, "ls '%s/manifest' | wc -l", e.dir);
  FILE *f = popen(p, "r");
  int files = -1;
  if (f) {
    if (fscanf(f, "%d", &files) != 1) files = -1;
    pclose(f);
  }
  CHECK_EQ_INT(files, 3);
  CHECK(cf_check(e.dir));
  CHECK(cf_rows_are(e.dir, "1|a|\n2|b|\n"));
  pm_commit_free(c);
  env_close(&e);
}

int main(void) {
  snprintf(root, sizeof root, "/tmp/pm_test_commit_faults_%d", (int)getpid());
  RUN_TEST(test_snapshot_create_retried);
  RUN_TEST(test_lost_publish_unknown);
  RUN_TEST(test_lost_publish_restart);
  RUN_TEST(test_unknown_then_recommit);
  RUN_TEST(test_error_after_write);
  RUN_TEST(test_error_before_publish);
  if (!pm_test_failures) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
  }
  tw_cleanup();
  TEST_MAIN_END();
}
