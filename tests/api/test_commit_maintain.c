/*
 * The maintenance after commits (table/commit.h pm_commit_maintenance_status; Java's
 * TableCommitImpl.maintain) through the public write API:
 *  - order: partition expiry runs before snapshot expiry, so the snapshot that still holds an
 *    expired partition expires in the same commit call (snapshot.num-retained.max = 1); with
 *    the old order (expiry first) two snapshots were left;
 *  - every commit path runs every step: truncate_table and truncate_partitions create the
 *    batch tag (tag.automatic-creation = batch) and expire partitions;
 *  - snapshot.expire.execution-mode = async: a streaming committer's maintenance runs on a pool
 *    worker, the status call waits for it, failures are reported (sticky) and the commits stay
 *    OK, freeing the committer right after a commit waits for the run; in the end the table
 *    is what the sync mode leaves (same snapshots, paimon-table check passes).
 * Rows are compared with a model (batches written) through both readers.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "paimon/expire.h"
#include "paimon/maintenance.h"
#include "support/expire_check.h"
#include "util/executor.h"

static char tmp_root[256];
static paimon_catalog *cat;

static paimon_table *make_table(const char *name, const char *parts, const char *const *opts, size_t n_opts,
                                char *dir, size_t cap) {
  paimon_error err = {0};
  CHECK_OK(ow_create_table(cat, "db", name, "id INT NOT NULL, dt STRING", parts, opts, n_opts, 0, &err), &err);
  char ident[128];
  snprintf(ident, sizeof ident, "db.%s", name);
  paimon_table *t = NULL;
  CHECK_OK(paimon_catalog_get_table(cat, ident, &t, &err), &err);
  snprintf(dir, cap, "%s/wh/db.db/%s", tmp_root, name);
  return t;
}

static int count_prefix(const char *dir, const char *sub, const char *prefix) {
  char p[1400];
  snprintf(p, sizeof p, "%s/%s", dir, sub);
  int n = 0;
  DIR *d = opendir(p);
  for (struct dirent *de; d && (de = readdir(d));) n += !strncmp(de->d_name, prefix, strlen(prefix));
  if (d) closedir(d);
  return n;
}

static int64_t hint(const char *dir, const char *name) {
  char p[1400];
  snprintf(p, sizeof p, "%s/snapshot/%s", dir, name);
  FILE *f = fopen(p, "r");
  long long v = -1;
  if (f) {
    if (fscanf(f, "%lld", &v) != 1) v = -1;
    fclose(f);
  }
  return v;
}

/* Both readers read the latest snapshot as `want`; paimon-table check passes (accepting ADD entries
 * cancelled in a retained snapshot whose files expiry deleted, as Java's, see expire_check.h),
 * every needed file exists and no orphan is left. */
static void verify_latest(paimon_table *t, const char *dir, json_t *want, const char *what) {
  char msg[4096];
  paimon_error err = {0};
  json_t *ours = ow_read_ours_opts(t, NULL, 0, &err);
  CHECK_MSG(ours && ot_rows_match(want, ours, msg, sizeof msg), "%s (ours): %s", what, ours ? msg : err.message);
  json_decref(ours);
  CHECK(ot_read_equals(dir, "", want, what));
  ec_files needed;
  ec_files_collect(t->t, &needed);
  CHECK_MSG(needed.missing == 0, "%s: needed file missing: %s", what, needed.first_missing);
  CHECK(ec_check_no_orphans_needed(dir, 0, &needed, what));
  ec_files_free(&needed);
}

/* partition.expiration-time 1 d (check interval 0), retain max 1: committing an old partition
 * drops it (OVERWRITE snapshot 2) and then expires snapshot 1 and the partition's data file in
 * the same call. */
static void test_partition_expiry_before_snapshot_expiry(void) {
  char dir[1024];
  const char *opts[] = {"bucket=-1", "partition.expiration-time=1 d", "partition.expiration-check-interval=0",
                        "partition.timestamp-formatter=yyyy-MM-dd", "snapshot.num-retained.max=1",
                        "snapshot.num-retained.min=1"};
  paimon_table *t = make_table("order", "dt", opts, 6, dir, sizeof dir);
  if (!t) return;
  paimon_error err = {0};
  CHECK_OK(ow_write_commit(t, NULL, 0, 0, "{\"id\":1,\"dt\":\"2020-01-01\"}\n{\"id\":2,\"dt\":\"2999-01-01\"}\n", NULL,
                           0, 0, NULL, &err),
           &err);
  /* snapshot 1 (APPEND), 2 (OVERWRITE dropping 2020-01-01); snapshot 1 expired after it */
  CHECK_EQ_INT((int)hint(dir, "LATEST"), 2);
  CHECK_EQ_INT((int)hint(dir, "EARLIEST"), 2);
  char p[1400];
  snprintf(p, sizeof p, "%s/snapshot/snapshot-1", dir);
  CHECK_MSG(access(p, F_OK) != 0, "snapshot-1 kept: snapshot expiry ran before partition expiry");
  CHECK_EQ_INT(count_prefix(dir, "dt=2020-01-01/bucket-0", "data-"), 0);
  CHECK_EQ_INT(count_prefix(dir, "dt=2999-01-01/bucket-0", "data-"), 1);
  json_t *want = json_pack("[{s:i,s:s}]", "id", 2, "dt", "2999-01-01");
  verify_latest(t, dir, want, "partition expiry, then snapshot expiry");
  json_decref(want);
  paimon_table_free(t);
}

/* Streaming commits of batch b (ids 10b, 10b+1) with identifier b through one committer. */
static paimon_status stream_commit_dt(paimon_table *t, paimon_write_builder *wb, paimon_table_commit *c, int b,
                                      const char *dt, paimon_error *err) {
  pm_table_write *w = NULL;
  pm_manifest_committable *mc = NULL;
  paimon_commit_messages *m = NULL;
  struct ArrowSchema s = {0};
  struct ArrowArray a = {0};
  char rows[256];
  snprintf(rows, sizeof rows, "{\"id\":%d,\"dt\":\"%s\"}\n{\"id\":%d,\"dt\":\"%s\"}\n", b * 10, dt, b * 10 + 1, dt);
  pm_error e = {0};
  pm_write_config cfg = {paimon_write_builder_commit_user(wb), 1, 0, 0};
  int rc = pm_table_write_open(wb->t, &cfg, &w, &e);
  paimon_status st = PAIMON_OK;
  if (!rc) st = ow_batch(t, rows, &s, &a, err);
  if (!rc && !st) rc = pm_table_write_arrow(w, &s, &a, &e);
  if (!rc && !st) rc = pm_table_write_prepare(w, b, &mc, &e);
  if (!rc && !st) rc = pm_api_messages_wrap(mc, &m, &e);
  if (rc && !st) {
    st = (paimon_status)rc;
    err->code = st;
    snprintf(err->message, sizeof err->message, "%s", e.message);
  }
  if (!st) st = paimon_table_commit_commit(c, m, b, NULL, err);
  if (a.release) a.release(&a);
  if (s.release) s.release(&s);
  paimon_commit_messages_free(m);
  pm_table_write_free(w);
  return st;
}

static paimon_status stream_commit(paimon_table *t, paimon_write_builder *wb, paimon_table_commit *c, int b,
                                   paimon_error *err) {
  return stream_commit_dt(t, wb, c, b, "a", err);
}

/* Truncate commits run the whole maintenance: the batch tag of the truncate snapshot is
 * created, an expired partition is dropped after truncate_partitions. */
static void test_truncate_runs_all_steps(void) {
  char dir[1024];
  const char *opts[] = {"bucket=-1", "tag.automatic-creation=batch", "tag.batch.customized-name=last",
                        "partition.expiration-time=1 d", "partition.expiration-check-interval=0",
                        "partition.timestamp-formatter=yyyy-MM-dd"};
  paimon_table *t = make_table("trunc", "dt", opts, 6, dir, sizeof dir);
  if (!t) return;
  paimon_error err = {0};
  CHECK_OK(ow_write_commit(t, NULL, 0, 0,
                           "{\"id\":1,\"dt\":\"2998-01-01\"}\n{\"id\":2,\"dt\":\"2999-01-01\"}\n"
                           "{\"id\":3,\"dt\":\"2997-01-01\"}\n",
                           NULL, 0, 0, NULL, &err),
           &err);
  /* make 2997-01-01 old: write it under a partition name that expires is not possible after the
   * fact, so the truncate of 2998 is followed by a commit of an old partition below */
  paimon_write_builder *wb = NULL;
  paimon_table_commit *c = NULL;
  CHECK_OK(paimon_write_builder_new(t, 0, NULL, 0, &wb, &err), &err);
  CHECK_OK(paimon_write_builder_new_commit(wb, &c, &err), &err);
  paimon_option spec = {"dt", "2998-01-01"};
  const paimon_option *specs[] = {&spec};
  size_t nf[] = {1};
  int64_t snap = -1;
  CHECK_OK(paimon_table_commit_truncate_partitions(c, specs, nf, 1, PAIMON_BATCH_COMMIT_IDENTIFIER, &snap, &err),
           &err);
  CHECK_EQ_INT((int)snap, 2);
  paimon_error me = {0};
  CHECK_MSG(paimon_table_commit_maintenance_status(c, &me) == PAIMON_OK, "maintenance: %s", me.message);
  paimon_table_commit_free(c);
  paimon_write_builder_free(wb);
  /* the tag 'last' names the truncate snapshot */
  char p[1400];
  snprintf(p, sizeof p, "%s/tag/tag-last", dir);
  FILE *f = fopen(p, "r");
  long long id = -1;
  char line[256];
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "  \"id\" : %lld", &id) == 1) break;
  if (f) fclose(f);
  CHECK_EQ_INT((int)id, 2);
  /* truncate_table: tag moves to snapshot 3 */
  c = NULL;
  wb = NULL;
  CHECK_OK(paimon_write_builder_new(t, 0, NULL, 0, &wb, &err), &err);
  CHECK_OK(paimon_write_builder_new_commit(wb, &c, &err), &err);
  CHECK_OK(paimon_table_commit_truncate_table(c, PAIMON_BATCH_COMMIT_IDENTIFIER, &snap, &err), &err);
  CHECK_EQ_INT((int)snap, 3);
  paimon_table_commit_free(c);
  paimon_write_builder_free(wb);
  f = fopen(p, "r");
  id = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "  \"id\" : %lld", &id) == 1) break;
  if (f) fclose(f);
  CHECK_EQ_INT((int)id, 3);
  /* an expired partition is dropped after a truncate too: write one, truncate another */
  CHECK_OK(ow_write_commit(t, NULL, 0, 0, "{\"id\":4,\"dt\":\"2999-01-01\"}\n", NULL, 0, 0, &snap, &err), &err);
  CHECK_EQ_INT((int)snap, 4);
  /* an old partition, committed by a write-only builder (no maintenance): the truncate's
   * maintenance drops it */
  const paimon_option wo = {"write-only", "true"};
  CHECK_OK(paimon_write_builder_new(t, 1, &wo, 1, &wb, &err), &err);
  CHECK_OK(paimon_write_builder_new_commit(wb, &c, &err), &err);
  CHECK_OK(stream_commit_dt(t, wb, c, 1, "2000-01-01", &err), &err);
  paimon_table_commit_free(c);
  paimon_write_builder_free(wb);
  snap = hint(dir, "LATEST");
  CHECK_EQ_INT((int)snap, 5);
  CHECK_OK(paimon_write_builder_new(t, 0, NULL, 0, &wb, &err), &err);
  CHECK_OK(paimon_write_builder_new_commit(wb, &c, &err), &err);
  paimon_option spec2 = {"dt", "2997-01-01"};
  const paimon_option *specs2[] = {&spec2};
  CHECK_OK(paimon_table_commit_truncate_partitions(c, specs2, nf, 1, PAIMON_BATCH_COMMIT_IDENTIFIER, &snap, &err),
           &err);
  CHECK_EQ_INT((int)snap, 6);
  CHECK_MSG(paimon_table_commit_maintenance_status(c, &me) == PAIMON_OK, "maintenance: %s", me.message);
  paimon_table_commit_free(c);
  paimon_write_builder_free(wb);
  CHECK_EQ_INT((int)hint(dir, "LATEST"), 7); /* 7: the partition expiry's OVERWRITE of 2000-01-01 */
  json_t *want = json_pack("[{s:i,s:s}]", "id", 4, "dt", "2999-01-01");
  verify_latest(t, dir, want, "truncate with partition expiry");
  json_decref(want);
  paimon_table_free(t);
}

static json_t *batches(int lo, int hi) {
  json_t *rows = json_array();
  for (int b = lo; b <= hi; b++)
    for (int i = 0; i < 2; i++) json_array_append_new(rows, json_pack("{s:i,s:s}", "id", b * 10 + i, "dt", "a"));
  return rows;
}

/* async: 6 streaming commits with retain max 2 leave snapshots 5, 6 (as sync does), the runs
 * happened on pool workers; a damaged consumer file fails a background run: the commit is OK,
 * the status reports it and keeps it; committers freed right after a commit wait for the run. */
static void test_async(void) {
  char dir[1024];
  const char *opts[] = {"bucket=-1", "snapshot.num-retained.max=2", "snapshot.num-retained.min=1",
                        "snapshot.expire.execution-mode=async"};
  paimon_table *t = make_table("async", "", opts, 4, dir, sizeof dir);
  if (!t) return;
  paimon_error err = {0};
  paimon_write_builder *wb = NULL;
  paimon_table_commit *c = NULL;
  CHECK_OK(paimon_write_builder_new(t, 1, NULL, 0, &wb, &err), &err);
  CHECK_OK(paimon_write_builder_new_commit(wb, &c, &err), &err);
  uint64_t tasks0 = pm_executor_tasks_run();
  for (int b = 1; b <= 6; b++) CHECK_OK(stream_commit(t, wb, c, b, &err), &err);
  paimon_error me = {0};
  CHECK_MSG(paimon_table_commit_maintenance_status(c, &me) == PAIMON_OK, "maintenance: %s", me.message);
  CHECK_MSG(pm_executor_tasks_run() > tasks0, "no maintenance ran on a pool worker");
  paimon_expire_result r;
  CHECK_EQ_INT(paimon_table_commit_expire_result(c, &r, &me), PAIMON_OK);
  CHECK_EQ_INT((int)r.earliest_snapshot, 5);
  CHECK_EQ_INT((int)hint(dir, "EARLIEST"), 5);
  json_t *want = batches(1, 6);
  verify_latest(t, dir, want, "async expiry");
  json_decref(want);
  /* a damaged consumer: the next background run fails, the commit does not */
  char p[1400];
  snprintf(p, sizeof p, "%s/consumer", dir);
  CHECK(mkdir(p, 0755) == 0);
  snprintf(p, sizeof p, "%s/consumer/consumer-broken", dir);
  FILE *f = fopen(p, "w");
  if (f) {
    fputs("{\"nextSnapshot\" : ", f);
    fclose(f);
  }
  CHECK_OK(stream_commit(t, wb, c, 7, &err), &err);
  pm_error_clear(&me);
  int st = paimon_table_commit_maintenance_status(c, &me);
  CHECK_MSG(st == PAIMON_ERR_CORRUPT && strstr(me.message, "consumer-broken") &&
                strstr(me.message, "the commit succeeded"),
            "async failure status %d: %s", st, me.message);
  unlink(p);
  CHECK_OK(stream_commit(t, wb, c, 8, &err), &err);
  /* sticky: the earlier failure is still reported, though this run succeeded */
  CHECK_EQ_INT(paimon_table_commit_maintenance_status(c, &me), PAIMON_ERR_CORRUPT);
  CHECK_EQ_INT(paimon_table_commit_expire_result(c, &r, &me), PAIMON_OK);
  CHECK_EQ_INT((int)hint(dir, "EARLIEST"), 7);
  paimon_table_commit_free(c);
  /* committers freed right after their commit: each waits for its run */
  for (int b = 9; b <= 14; b++) {
    c = NULL;
    CHECK_OK(paimon_write_builder_new_commit(wb, &c, &err), &err);
    CHECK_OK(stream_commit(t, wb, c, b, &err), &err);
    paimon_table_commit_free(c);
  }
  paimon_write_builder_free(wb);
  CHECK_EQ_INT((int)hint(dir, "EARLIEST"), 13);
  CHECK_EQ_INT((int)hint(dir, "LATEST"), 14);
  want = batches(1, 14);
  verify_latest(t, dir, want, "async expiry, committers freed at once");
  json_decref(want);
  paimon_table_free(t);
}

/* A batch committer runs inline even with async (as Java's BatchTableCommit): the expiry's
 * result is there as the commit returns. */
static void test_async_batch_inline(void) {
  char dir[1024];
  const char *opts[] = {"bucket=-1", "snapshot.num-retained.max=1", "snapshot.num-retained.min=1",
                        "snapshot.expire.execution-mode=ASYNC"};
  paimon_table *t = make_table("async_batch", "", opts, 4, dir, sizeof dir);
  if (!t) return;
  paimon_error err = {0};
  for (int b = 1; b <= 3; b++) {
    char rows[128];
    snprintf(rows, sizeof rows, "{\"id\":%d,\"dt\":\"a\"}\n", b);
    CHECK_OK(ow_write_commit(t, NULL, 0, 0, rows, NULL, 0, 0, NULL, &err), &err);
    CHECK_EQ_INT((int)hint(dir, "EARLIEST"), b);
  }
  paimon_table_free(t);
  /* a bad mode names the key */
  const char *bad[] = {"bucket=-1", "snapshot.expire.execution-mode=later"};
  paimon_status st = ow_create_table(cat, "db", "async_bad", "id INT", "", bad, 2, 0, &err);
  CHECK_MSG(st != PAIMON_OK && strstr(err.message, "snapshot.expire.execution-mode"), "bad mode: %d %s", st,
            err.message);
}

int main(void) {
  snprintf(tmp_root, sizeof tmp_root, "/tmp/pm_commit_maintain_XXXXXX");
  CHECK(mkdtemp(tmp_root) != NULL);
  if (!ot_available()) {
    fprintf(stderr, "paimon-table not available: skipped\n");
    TEST_MAIN_END();
  }
  char wh[512];
  snprintf(wh, sizeof wh, "%s/wh", tmp_root);
  CHECK(mkdir(wh, 0755) == 0);
  paimon_option o = {"warehouse", wh};
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_open(&o, 1, &cat, &err), &err);
  RUN_TEST(test_partition_expiry_before_snapshot_expiry);
  RUN_TEST(test_truncate_runs_all_steps);
  RUN_TEST(test_async);
  RUN_TEST(test_async_batch_inline);
  paimon_catalog_free(cat);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (!getenv("PM_KEEP_TMP") && !pm_test_failures) CHECK(system(cmd) == 0);
  TEST_MAIN_END();
}
