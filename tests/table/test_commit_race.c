/* Committers racing on one table (SEMANTICS.md 7.5): 3 processes and 3
 * threads x 5 commits each. Every commit is published exactly once, snapshot
 * ids are contiguous, paimon-table check passes and both readers return every
 * row once. Also two overwriters of one partition: the table always shows
 * one complete overwrite. */
#include <pthread.h>
#include <sys/wait.h>

#include "support/commit_fixture.h"

#define WORKERS 3
#define COMMITS 5

static char root[512];
static char dir[600];

/* Worker k commits rows k*100 + i, i = 0..COMMITS-1, one row each, as user who-k. */
static int run_worker(const char *who, int k) {
  pm_table *t = cf_open(dir, NULL);
  pm_path_factory pf;
  pm_path_factory_init(&pf, t->fs, t->root);
  pm_error err;
  memset(&err, 0, sizeof err);
  char user[64];
  snprintf(user, sizeof user, "%s-%d", who, k);
  pm_commit *c = NULL;
  int failures = 0;
  if (pm_commit_open(t, user, 0, &c, &err)) failures++;
  for (int i = 0; c && i < COMMITS; i++) {
    int32_t id = k * 100 + i + (who[0] == 'p' ? 5000 : 0);
    char name[64];
    snprintf(name, sizeof name, "%s", user);
    const char *names[1] = {name};
    pm_manifest_committable *m = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
    cf_add_file(m, t, &pf, NULL, &id, names, 1);
    int64_t sid = 0;
    if (pm_commit_append(c, m, 0, &sid, &err)) {
      fprintf(stderr, "%s commit %d: %s\n", user, i, err.message);
      failures++;
    }
    pm_committable_free(m);
  }
  pm_commit_free(c);
  pm_table_free(t);
  return failures;
}

typedef struct thread_arg {
  int k, failures;
} thread_arg;

static void *thread_main(void *p) {
  thread_arg *a = p;
  a->failures = run_worker("thr", a->k);
  return NULL;
}

static void test_race(void) {
  snprintf(dir, sizeof dir, "%s/race", root);
  cf_make_table(dir, 0, "\"commit.max-retries\" : \"200\", \"commit.min-retry-wait\" : \"1 ms\", "
                        "\"commit.max-retry-wait\" : \"20 ms\"");
  pid_t pids[WORKERS];
  for (int k = 0; k < WORKERS; k++) {
    pids[k] = fork();
    if (pids[k] == 0) _exit(run_worker("proc", k) ? 1 : 0);
  }
  pthread_t th[WORKERS];
  thread_arg args[WORKERS];
  for (int k = 0; k < WORKERS; k++) {
    args[k].k = k;
    args[k].failures = 0;
    pthread_create(&th[k], NULL, thread_main, &args[k]);
  }
  for (int k = 0; k < WORKERS; k++) {
    pthread_join(th[k], NULL);
    CHECK_EQ_INT(args[k].failures, 0);
  }
  for (int k = 0; k < WORKERS; k++) {
    int st = 0;
    waitpid(pids[k], &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  int64_t total = 2 * WORKERS * COMMITS;
  CHECK_EQ_INT(cf_latest_id(dir), total);
  /* contiguous ids, every user exactly COMMITS snapshots */
  int per_user[2][WORKERS];
  memset(per_user, 0, sizeof per_user);
  for (int64_t id = 1; id <= total; id++) {
    pm_snapshot *s = cf_snapshot(dir, id);
    CHECK_MSG(s != NULL, "snapshot %d missing", (int)id);
    if (!s) continue;
    int k = -1;
    char who[8] = "";
    if (sscanf(s->commit_user, "%7[a-z]-%d", who, &k) == 2 && k >= 0 && k < WORKERS)
      per_user[who[0] == 'p'][k]++;
    CHECK_EQ_INT(s->total_record_count, id);
    pm_snapshot_free(s);
  }
  for (int w = 0; w < 2; w++)
    for (int k = 0; k < WORKERS; k++) CHECK_EQ_INT(per_user[w][k], COMMITS);
  CHECK(cf_check(dir));
  /* every row once */
  char **lines = calloc((size_t)total, sizeof *lines);
  size_t n = 0;
  for (int w = 0; w < 2; w++)
    for (int k = 0; k < WORKERS; k++)
      for (int i = 0; i < COMMITS; i++) {
        char l[64];
        snprintf(l, sizeof l, "%d|%s-%d|", k * 100 + i + (w ? 5000 : 0), w ? "proc" : "thr", k);
        lines[n++] = strdup(l);
      }
  char *expected = cf_join_sorted(lines, n);
  CHECK(cf_rows_are(dir, expected));
  free(expected);
}

/* Two processes overwrite partition dt=p with 3 rows each, 4 times: every
 * snapshot shows exactly one writer's complete set. */
static void test_two_overwriters(void) {
  snprintf(dir, sizeof dir, "%s/ow", root);
  cf_make_table(dir, 1, "\"commit.max-retries\" : \"200\", \"commit.min-retry-wait\" : \"1 ms\", "
                        "\"commit.max-retry-wait\" : \"20 ms\"");
  pid_t pids[2];
  for (int k = 0; k < 2; k++) {
    pids[k] = fork();
    if (pids[k] == 0) {
      pm_table *t = cf_open(dir, NULL);
      pm_path_factory pf;
      pm_path_factory_init(&pf, t->fs, t->root);
      pm_error err;
      memset(&err, 0, sizeof err);
      pm_commit *c = NULL;
      int bad = pm_commit_open(t, k ? "ow-1" : "ow-0", 0, &c, &err);
      for (int i = 0; !bad && i < 4; i++) {
        int32_t ids[3] = {k * 10 + 1, k * 10 + 2, k * 10 + 3};
        const char *names[3] = {"r", "r", "r"};
        pm_manifest_committable *m = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 3);
        for (int f = 0; f < 3; f++) cf_add_file(m, t, &pf, "p", &ids[f], &names[f], 1);
        int64_t sid = 0;
        if (pm_commit_overwrite(c, NULL, m, &sid, &err)) {
          fprintf(stderr, "overwrite %d.%d: %s\n", k, i, err.message);
          bad = 1;
        }
        pm_committable_free(m);
      }
      pm_commit_free(c);
      pm_table_free(t);
      _exit(bad);
    }
  }
  for (int k = 0; k < 2; k++) {
    int st = 0;
    waitpid(pids[k], &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  CHECK_EQ_INT(cf_latest_id(dir), 8);
  CHECK(cf_check(dir));
  /* every snapshot's live set = one overwriter's 3 rows */
  pm_table *t = cf_open(dir, NULL);
  pm_error err;
  memset(&err, 0, sizeof err);
  for (int64_t id = 1; id <= 8; id++) {
    pm_snapshot *s = cf_snapshot(dir, id);
    pm_manifest_entries live;
    pm_manifest_entries_init(&live);
    CHECK_OK(pm_scan_live_files(t, s, NULL, &live, &err), &err);
    CHECK_EQ_INT(live.n, 3);
    CHECK_EQ_INT(s->total_record_count, 3);
    pm_manifest_entries_clear(&live);
    pm_snapshot_free(s);
  }
  pm_table_free(t);
  char *ours = cf_read_ours(dir);
  CHECK(ours && (!strcmp(ours, "11|r|p\n12|r|p\n13|r|p\n") || !strcmp(ours, "1|r|p\n2|r|p\n3|r|p\n")));
  char *oracle = cf_read_oracle(dir);
  CHECK(oracle && ours && !strcmp(oracle, ours));
  free(ours);
  free(oracle);
}

int main(void) {
  snprintf(root, sizeof root, "/tmp/pm_test_commit_race_%d", (int)getpid());
  RUN_TEST(test_race);
  RUN_TEST(test_two_overwriters);
  if (!pm_test_failures) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
  }
  tw_cleanup();
  TEST_MAIN_END();
}
