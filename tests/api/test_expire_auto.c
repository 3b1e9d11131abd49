/*
 * Automatic expiry after commits (paimon/expire.h paimon_table_commit_expire_result; Java's
 * TableCommitImpl maintenance) through the public write API: snapshot.num-retained.min/max and
 * snapshot.expire.limit applied after each commit, write-only disables it, the default options
 * expire nothing on a young table, snapshot.clean-empty-directories removes the directory of a
 * dropped partition, truncate commits expire too, and a failing expiry (a damaged consumer
 * file) leaves the commit successful and reports the failure through the committer. Rows: an
 * append table whose snapshot k holds batches 1..k (a model independent of both readers);
 * every retained snapshot is read with paimon-table and ours and compared with the model;
 * paimon-table check passes (no orphans, no missing files).
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

static char tmp_root[256];
static paimon_catalog *cat;
static int last_maint;           /* paimon_table_commit_maintenance_status of the last commit */
static char last_maint_msg[1024];

static paimon_table *make_table(const char *name, const char *const *opts, size_t n_opts, char *dir, size_t cap) {
  paimon_error err = {0};
  CHECK_OK(ow_create_table(cat, "db", name, "id INT NOT NULL, dt STRING", "dt", opts, n_opts, 0, &err), &err);
  char ident[128];
  snprintf(ident, sizeof ident, "db.%s", name);
  paimon_table *t = NULL;
  CHECK_OK(paimon_catalog_get_table(cat, ident, &t, &err), &err);
  snprintf(dir, cap, "%s/wh/db.db/%s", tmp_root, name);
  return t;
}

/* Rows of batch b: ids 10b, 10b+1 in partition dt. */
static void batch_rows(int b, const char *dt, char *out, size_t cap) {
  snprintf(out, cap, "{\"id\":%d,\"dt\":\"%s\"}\n{\"id\":%d,\"dt\":\"%s\"}\n", b * 10, dt, b * 10 + 1, dt);
}

/* One batch commit through the public API; returns the commit's status, *expire the automatic
 * expiry's status (its result in *r, its message in *eerr). */
static int commit_batch(paimon_table *t, int b, const char *dt, int *expire, paimon_expire_result *r,
                        paimon_error *eerr) {
  char rows[256];
  batch_rows(b, dt, rows, sizeof rows);
  paimon_error err = {0};
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  paimon_commit_messages *m = NULL;
  paimon_table_commit *c = NULL;
  struct ArrowSchema s = {0};
  struct ArrowArray a = {0};
  int64_t snap = -1;
  paimon_status st = paimon_write_builder_new(t, 0, NULL, 0, &wb, &err);
  if (!st) st = paimon_write_builder_new_write(wb, &w, &err);
  if (!st) st = ow_batch(t, rows, &s, &a, &err);
  if (!st) st = paimon_table_write_arrow(w, &s, &a, &err);
  if (!st) st = paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, &err);
  if (!st) st = paimon_write_builder_new_commit(wb, &c, &err);
  if (!st) st = paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, &snap, &err);
  if (!st) *expire = paimon_table_commit_expire_result(c, r, eerr);
  if (!st) {
    paimon_error me = {0};
    last_maint = paimon_table_commit_maintenance_status(c, &me);
    snprintf(last_maint_msg, sizeof last_maint_msg, "%s", me.message);
  }
  CHECK_MSG(st == PAIMON_OK, "commit of batch %d: %s", b, err.message);
  if (a.release) a.release(&a);
  if (s.release) s.release(&s);
  paimon_table_commit_free(c);
  paimon_commit_messages_free(m);
  paimon_table_write_free(w);
  paimon_write_builder_free(wb);
  return st;
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

static int snapshot_exists(const char *dir, int64_t id) {
  char p[1400];
  snprintf(p, sizeof p, "%s/snapshot/snapshot-%lld", dir, (long long)id);
  return access(p, F_OK) == 0;
}

/* The model rows of snapshot k: batches 1..k (partition of batch b: dts[b]). */
static json_t *model(int k, const char *const *dts) {
  json_t *rows = json_array();
  for (int b = 1; b <= k; b++)
    for (int i = 0; i < 2; i++) json_array_append_new(rows, json_pack("{s:i,s:s}", "id", b * 10 + i, "dt", dts[b]));
  return rows;
}

/* Snapshots lo..hi exist (the rest gone), each reads as the model with both readers; check OK. */
static void verify(paimon_table *t, const char *dir, int lo, int hi, const char *const *dts, int oracle,
                   const char *what) {
  for (int id = 1; id <= hi; id++) CHECK_MSG(snapshot_exists(dir, id) == (id >= lo), "%s: snapshot-%d", what, id);
  CHECK_MSG(hint(dir, "EARLIEST") == lo, "%s: EARLIEST %lld, want %d", what, (long long)hint(dir, "EARLIEST"), lo);
  for (int id = lo; id <= hi; id++) {
    json_t *want = model(id, dts);
    char msg[4096];
    json_t *ours = ec_ours(t, id, NULL);
    CHECK_MSG(ours && ot_rows_match(want, ours, msg, sizeof msg), "%s: snapshot %d (ours): %s", what, id, msg);
    json_decref(ours);
    if (oracle) {
      json_t *o = ec_oracle(dir, id, NULL, tmp_root);
      CHECK_MSG(o && ot_rows_match(want, o, msg, sizeof msg), "%s: snapshot %d (paimon-table): %s", what, id, msg);
      json_decref(o);
    }
    json_decref(want);
  }
  if (oracle) {
    ec_files needed;
    ec_files_collect(t->t, &needed);
    CHECK_MSG(needed.missing == 0, "%s: needed file missing: %s", what, needed.first_missing);
    CHECK(ec_check_no_orphans_needed(dir, 0, &needed, what));
    ec_files_free(&needed);
  }
}

/* retain max 3 (min 1), expire limit 2: after each commit at most 3 snapshots are left. */
static void test_retain_max(void) {
  char dir[1024];
  const char *opts[] = {"bucket=-1", "snapshot.num-retained.max=3", "snapshot.num-retained.min=1",
                        "snapshot.expire.limit=2"};
  paimon_table *t = make_table("auto_max", opts, 4, dir, sizeof dir);
  if (!t) return;
  const char *dts[9] = {"", "a", "b", "a", "b", "a", "b", "a", "b"};
  for (int b = 1; b <= 8; b++) {
    int ex = -1;
    paimon_expire_result r;
    paimon_error eerr = {0};
    commit_batch(t, b, dts[b], &ex, &r, &eerr);
    CHECK_MSG(ex == PAIMON_OK, "batch %d: expiry %d %s", b, ex, eerr.message);
    CHECK_EQ_INT((int)r.snapshots_expired, b > 3 ? 1 : 0);
    CHECK_EQ_INT((int)r.earliest_snapshot, b > 3 ? b - 2 : 1);
    CHECK_EQ_INT((int)r.delete_failed, 0);
    char what[64];
    snprintf(what, sizeof what, "retain max, after batch %d", b);
    verify(t, dir, b > 3 ? b - 2 : 1, b, dts, b == 8, what);
  }
  paimon_table_free(t);
}

/* write-only: nothing expires; then the table's defaults (min 10, 1 h) expire nothing either. */
static void test_write_only_and_defaults(void) {
  char dir[1024];
  const char *opts[] = {"bucket=-1", "snapshot.num-retained.max=2", "snapshot.num-retained.min=1", "write-only=true"};
  paimon_table *t = make_table("auto_wo", opts, 4, dir, sizeof dir);
  const char *opts2[] = {"bucket=-1"};
  char dir2[1024];
  paimon_table *t2 = make_table("auto_def", opts2, 1, dir2, sizeof dir2);
  if (!t || !t2) return;
  const char *dts[13] = {"", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a"};
  for (int b = 1; b <= 12; b++) {
    int ex = -1;
    paimon_expire_result r;
    paimon_error eerr = {0};
    if (b <= 4) {
      commit_batch(t, b, dts[b], &ex, &r, &eerr);
      CHECK_EQ_INT(ex, PAIMON_OK);
      CHECK_EQ_INT((int)r.snapshots_expired, 0);
    }
    commit_batch(t2, b, dts[b], &ex, &r, &eerr);
    CHECK_EQ_INT(ex, PAIMON_OK);
    CHECK_EQ_INT((int)r.snapshots_expired, 0);
  }
  verify(t, dir, 1, 4, dts, 0, "write-only");
  verify(t2, dir2, 1, 12, dts, 0, "defaults");
  paimon_table_free(t);
  paimon_table_free(t2);
}

/* A damaged consumer file makes the expiry fail: the commit still succeeds (its snapshot is
 * published and readable), the committer reports the expiry's error naming the file; once
 * the consumer is fixed the next commit expires what was due. */
static void test_failure_keeps_commit(void) {
  char dir[1024];
  const char *opts[] = {"bucket=-1", "snapshot.num-retained.max=2", "snapshot.num-retained.min=1"};
  paimon_table *t = make_table("auto_fail", opts, 3, dir, sizeof dir);
  if (!t) return;
  const char *dts[6] = {"", "a", "a", "a", "a", "a"};
  int ex = -1;
  paimon_expire_result r;
  paimon_error eerr = {0};
  commit_batch(t, 1, dts[1], &ex, &r, &eerr);
  commit_batch(t, 2, dts[2], &ex, &r, &eerr);
  char p[1400];
  snprintf(p, sizeof p, "%s/consumer", dir);
  CHECK(mkdir(p, 0755) == 0);
  snprintf(p, sizeof p, "%s/consumer/consumer-broken", dir);
  FILE *f = fopen(p, "w");
  if (f) {
    fputs("{\"nextSnapshot\" : ", f);
    fclose(f);
  }
  CHECK_EQ_INT(commit_batch(t, 3, dts[3], &ex, &r, &eerr), PAIMON_OK);
  CHECK_MSG(ex == PAIMON_ERR_CORRUPT && strstr(eerr.message, "consumer-broken") &&
                strstr(eerr.message, "the commit succeeded"),
            "expiry status %d: %s", ex, eerr.message);
  CHECK_EQ_INT((int)r.snapshots_expired, 0);
  CHECK_MSG(last_maint == PAIMON_ERR_CORRUPT && strstr(last_maint_msg, "consumer-broken"),
            "maintenance status %d: %s", last_maint, last_maint_msg);
  verify(t, dir, 1, 3, dts, 0, "after a failed expiry");
  /* fixed: a consumer at snapshot 3 pins 3.. : snapshots 1, 2 go with the next commit */
  f = fopen(p, "w");
  if (f) {
    fputs("{\n  \"nextSnapshot\" : 3\n}", f);
    fclose(f);
  }
  CHECK_EQ_INT(commit_batch(t, 4, dts[4], &ex, &r, &eerr), PAIMON_OK);
  CHECK_MSG(ex == PAIMON_OK, "expiry: %s", eerr.message);
  CHECK_EQ_INT((int)r.snapshots_expired, 2);
  verify(t, dir, 3, 4, dts, 1, "after the consumer was fixed");
  paimon_table_free(t);
}

/* A failing automatic tag step (tag.automatic-creation = batch; a regular file where the tag
 * directory belongs) leaves the published commit OK (an error would invite an abort that deletes
 * its files) and is reported by paimon_table_commit_maintenance_status; once the obstacle is gone
 * the next batch commit creates its tag. */
static void test_tag_failure_keeps_commit(void) {
  char dir[1024];
  const char *opts[] = {"bucket=-1", "tag.automatic-creation=batch"};
  paimon_table *t = make_table("auto_tag_fail", opts, 2, dir, sizeof dir);
  if (!t) return;
  const char *dts[3] = {"", "a", "a"};
  int ex = -1;
  paimon_expire_result r;
  paimon_error eerr = {0};
  char p[1400];
  snprintf(p, sizeof p, "%s/tag", dir);
  FILE *f = fopen(p, "w");
  CHECK(f != NULL);
  if (f) fclose(f);
  CHECK_EQ_INT(commit_batch(t, 1, dts[1], &ex, &r, &eerr), PAIMON_OK);
  CHECK_MSG(last_maint != PAIMON_OK && strstr(last_maint_msg, "automatic tags after the commit (the commit succeeded)"),
            "maintenance status %d: %s", last_maint, last_maint_msg);
  verify(t, dir, 1, 1, dts, 0, "after a failed tag step");
  CHECK(unlink(p) == 0);
  CHECK_EQ_INT(commit_batch(t, 2, dts[2], &ex, &r, &eerr), PAIMON_OK);
  CHECK_MSG(last_maint == PAIMON_OK, "maintenance: %s", last_maint_msg);
  size_t tags = 0;
  DIR *d = opendir(p);
  for (struct dirent *de; d && (de = readdir(d));) tags += !strncmp(de->d_name, "tag-", 4);
  if (d) closedir(d);
  CHECK_EQ_INT((int)tags, 1);
  paimon_table_free(t);
}

/* snapshot.clean-empty-directories: truncating partition b and expiring the snapshots that
 * held it removes the directory dt=b; truncate commits run the expiry too. */
static void test_clean_empty_directories(void) {
  char dir[1024];
  const char *opts[] = {"bucket=-1", "snapshot.num-retained.max=1", "snapshot.num-retained.min=1",
                        "snapshot.clean-empty-directories=true"};
  paimon_table *t = make_table("auto_dirs", opts, 4, dir, sizeof dir);
  if (!t) return;
  int ex = -1;
  paimon_expire_result r;
  paimon_error eerr = {0};
  commit_batch(t, 1, "a", &ex, &r, &eerr);
  commit_batch(t, 2, "b", &ex, &r, &eerr);
  char p[1400];
  snprintf(p, sizeof p, "%s/dt=b", dir);
  CHECK(access(p, F_OK) == 0);
  paimon_write_builder *wb = NULL;
  paimon_table_commit *c = NULL;
  paimon_error err = {0};
  CHECK_OK(paimon_write_builder_new(t, 0, NULL, 0, &wb, &err), &err);
  CHECK_OK(paimon_write_builder_new_commit(wb, &c, &err), &err);
  paimon_option spec = {"dt", "b"};
  const paimon_option *specs[] = {&spec};
  size_t nf[] = {1};
  int64_t snap = -1;
  CHECK_OK(paimon_table_commit_truncate_partitions(c, specs, nf, 1, PAIMON_BATCH_COMMIT_IDENTIFIER, &snap, &err),
           &err);
  CHECK_EQ_INT((int)snap, 3);
  CHECK_EQ_INT(paimon_table_commit_expire_result(c, &r, &eerr), PAIMON_OK);
  CHECK_EQ_INT((int)r.snapshots_expired, 1); /* snapshot 1 expired with commit 2 already */
  CHECK_EQ_INT((int)r.data_files_deleted, 1); /* batch 2's file: deleted by the truncate */
  CHECK_MSG(r.dirs_deleted >= 1, "dirs deleted %llu", (unsigned long long)r.dirs_deleted);
  CHECK_MSG(access(p, F_OK) != 0, "dt=b still there");
  snprintf(p, sizeof p, "%s/dt=a", dir);
  CHECK(access(p, F_OK) == 0);
  paimon_table_commit_free(c);
  paimon_write_builder_free(wb);
  const char *dts[2] = {"", "a"};
  json_t *want = model(1, dts);
  json_t *o = ec_oracle(dir, 3, NULL, tmp_root);
  char msg[4096];
  CHECK_MSG(o && ot_rows_match(want, o, msg, sizeof msg), "after truncate (paimon-table): %s", msg);
  json_decref(o);
  json_t *ours = ec_ours(t, 3, NULL);
  CHECK_MSG(ours && ot_rows_match(want, ours, msg, sizeof msg), "after truncate (ours): %s", msg);
  json_decref(ours);
  json_decref(want);
  ec_files needed;
  ec_files_collect(t->t, &needed);
  CHECK(ec_check_no_orphans_needed(dir, 0, &needed, "clean empty directories"));
  ec_files_free(&needed);
  paimon_table_free(t);
}

int main(void) {
  snprintf(tmp_root, sizeof tmp_root, "/tmp/pm_expire_auto_XXXXXX");
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
  RUN_TEST(test_retain_max);
  RUN_TEST(test_write_only_and_defaults);
  RUN_TEST(test_failure_keeps_commit);
  RUN_TEST(test_tag_failure_keeps_commit);
  RUN_TEST(test_clean_empty_directories);
  paimon_catalog_free(cat);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (!getenv("PM_KEEP_TMP") && !pm_test_failures) CHECK(system(cmd) == 0);
  TEST_MAIN_END();
}
