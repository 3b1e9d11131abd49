/*
 * Snapshot expiry (table/expire.h) and the file deletion it is built on
 * (table/snapshot_deletion.h), on tables written by us. Before each expiry
 * every snapshot and tag is read by paimon-table and by our reader (they must
 * agree); afterwards every retained snapshot and every tag reads exactly as
 * before with both, `paimon-table check` passes and reports no orphan file,
 * every file still referenced (walker over all snapshots, tags, branches)
 * exists and every file no longer referenced is gone.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "meta/consumer.h"
#include "support/expire_check.h"
#include "table/expire.h"
#include "table/snapshot_deletion.h"

static char tmp_root[256];
static paimon_catalog *cat;

static paimon_table *make_table(const char *name, char *dir, size_t cap) {
  paimon_error err = {0};
  const char *opts[] = {"bucket=-1"};
  CHECK_OK(ow_create_table(cat, "db", name, "id INT NOT NULL, name STRING, dt STRING", "dt", opts, 1, 0, &err), &err);
  char ident[128];
  snprintf(ident, sizeof ident, "db.%s", name);
  paimon_table *t = NULL;
  CHECK_OK(paimon_catalog_get_table(cat, ident, &t, &err), &err);
  snprintf(dir, cap, "%s/wh/db.db/%s", tmp_root, name);
  return t;
}

/* Batch b: 2 rows in partition dt; overwrite: replaces partition dt. */
static void commit_batch(paimon_table *t, int b, const char *dt, int overwrite) {
  char rows[512];
  snprintf(rows, sizeof rows, "{\"id\":%d,\"name\":\"b%d\",\"dt\":\"%s\"}\n{\"id\":%d,\"name\":\"b%d'\",\"dt\":\"%s\"}\n",
           b * 10, b, dt, b * 10 + 1, b, dt);
  paimon_option spec = {"dt", dt};
  paimon_error err = {0};
  int64_t snap = 0;
  CHECK_OK(ow_write_commit(t, NULL, 0, 0, rows, &spec, overwrite ? 1 : 0, overwrite, &snap, &err), &err);
}

static void make_tag(paimon_table *t, const char *name, int64_t snap) {
  pm_snapshot_manager sm = pm_table_snapshots(t->t);
  pm_snapshot *s = NULL;
  pm_error err = {0};
  CHECK_OK(pm_snapshot_read(&sm, snap, &s, &err), &err);
  if (s) CHECK_OK(pm_tag_write(&sm, name, s, &err), &err);
  pm_snapshot_free(s);
}

static pm_expire_config config(int retain_min, int retain_max) {
  pm_expire_config c;
  memset(&c, 0, sizeof c);
  c.retain_min = retain_min;
  c.retain_max = retain_max;
  c.time_retained_ms = 0;
  c.max_deletes = 1000;
  c.changelog_retain_min = retain_min;
  c.changelog_retain_max = retain_max;
  return c;
}

static int64_t earliest_hint(const char *dir) {
  char p[4200];
  snprintf(p, sizeof p, "%s/snapshot/EARLIEST", dir);
  FILE *f = fopen(p, "r");
  long long v = -1;
  if (f) {
    if (fscanf(f, "%lld", &v) != 1) v = -1;
    fclose(f);
  }
  return v;
}

/* 7 commits over two partitions with overwrites, tag t3 at snapshot 3; expire to 2 snapshots. */
static void test_expire_with_tag(void) {
  char dir[1024];
  paimon_table *t = make_table("tagged", dir, sizeof dir);
  if (!t) return;
  commit_batch(t, 1, "a", 0);
  commit_batch(t, 2, "b", 0);
  commit_batch(t, 3, "a", 0);
  make_tag(t, "t3", 3);
  commit_batch(t, 4, "a", 1); /* drops b1, b3 (pinned by t3) */
  commit_batch(t, 5, "b", 0);
  commit_batch(t, 6, "b", 1); /* drops b2 (pinned), b5 (not) */
  commit_batch(t, 7, "a", 0);
  ec_record rec;
  ec_record_all(t, dir, tmp_root, &rec);
  CHECK_EQ_INT((int)rec.n, 8);
  ec_files before, after;
  ec_files_collect(t->t, &before);

  pm_expire_config c = config(2, 2);
  pm_expire_result r;
  pm_error err = {0};
  CHECK_OK(pm_expire_snapshots(t->t, &c, NULL, NULL, &r, &err), &err);
  CHECK_EQ_INT((int)r.snapshots_expired, 5);
  CHECK_EQ_INT((int)earliest_hint(dir), 6);
  size_t expired = 0;
  size_t kept = ec_verify(t, dir, tmp_root, &rec, &expired, "after expiry");
  CHECK_EQ_INT((int)kept, 3);
  CHECK_EQ_INT((int)expired, 5);
  ec_files_collect(t->t, &after);
  size_t dropped = ec_files_compare(&before, &after, 1, "expire with tag");
  /* the snapshot files are in `dropped` too */
  CHECK_EQ_INT((int)dropped, (int)(r.files.data_deleted + r.files.meta_deleted + r.snapshots_expired));
  CHECK_MSG(r.files.data_deleted == 1, "data files deleted: %lld (b5 wrote one)", (long long)r.files.data_deleted);
  CHECK_EQ_INT((int)r.files.failed, 0);
  CHECK(ec_check_no_orphans_needed(dir, 0, &after, "expire with tag"));

  /* a second run has nothing to do */
  CHECK_OK(pm_expire_snapshots(t->t, &c, NULL, NULL, &r, &err), &err);
  CHECK_EQ_INT((int)r.snapshots_expired, 0);
  ec_files_free(&before);
  ec_files_free(&after);

  /* the tag deleted: expiring now has no pin (snapshot_deletion reused as tag deletion would) */
  char p[1200];
  snprintf(p, sizeof p, "%s/tag/tag-t3", dir);
  ec_files_collect(t->t, &before);
  pm_snapshot_manager sm = pm_table_snapshots(t->t);
  pm_snapshot *tag = NULL, *keep = NULL;
  CHECK_OK(pm_tag_read(&sm, "t3", &tag, &err), &err);
  CHECK_OK(pm_snapshot_read(&sm, 6, &keep, &err), &err);
  if (tag && keep) {
    pm_file_deletion d;
    pm_fdel_init(&d, t->t);
    pm_name_set live, skip;
    pm_name_set_init(&live);
    pm_name_set_init(&skip);
    CHECK_OK(pm_fdel_skip_live_data(t->t, keep, &live, &err), &err);
    CHECK_OK(pm_fdel_skip_manifests(t->t, keep, &skip, &err), &err);
    /* the tag's data files that snapshot 6 does not use: via a plan of its live files */
    pm_manifest_entries es;
    pm_manifest_entries_init(&es);
    CHECK_OK(pm_scan_live_files(t->t, tag, NULL, &es, &err), &err);
    size_t n_tag_only = 0;
    for (size_t i = 0; i < es.n; i++) {
      char *pdir = NULL, *bpath = NULL, *fpath = NULL;
      pm_scan_partition_dir(t->t, es.items[i].partition.data, es.items[i].partition.len, &pdir, &err);
      pm_table_bucket_path(t->t, pdir, es.items[i].bucket, &bpath, &err);
      pm_table_data_file_path(t->t, bpath, es.items[i].file.file_name, NULL, &fpath, &err);
      if (!pm_name_set_has(&live, fpath)) n_tag_only++;
      free(pdir);
      free(bpath);
      free(fpath);
    }
    pm_manifest_entries_clear(&es);
    CHECK_EQ_INT((int)n_tag_only, 3); /* b1, b3 of a; b2 of b (one file each) */
    CHECK_OK(pm_fdel_plan_unused_data(&d, tag, &live, &err), &err);
    CHECK_EQ_INT((int)d.data.n, 3);
    CHECK_OK(pm_fdel_plan_manifests(&d, tag, &skip, 1, 1, 1, &err), &err);
    CHECK_MSG(d.meta.n > 0, "the tag's own manifests are planned");
    CHECK(unlink(p) == 0);
    pm_fdel_stats st;
    CHECK_OK(pm_fdel_execute(&d, NULL, NULL, &st, &err), &err);
    CHECK_EQ_INT((int)st.meta_deleted, (int)d.meta.n);
    CHECK_EQ_INT((int)st.data_deleted, 3);
    pm_fdel_clear(&d);
    pm_name_set_clear(&live);
    pm_name_set_clear(&skip);
  }
  pm_snapshot_free(tag);
  pm_snapshot_free(keep);
  ec_files_collect(t->t, &after);
  ec_files_compare(&before, &after, 1, "tag deleted");
  CHECK(ec_check_no_orphans_needed(dir, 0, &after, "tag deleted"));
  ec_files_free(&before);
  ec_files_free(&after);
  ec_record_free(&rec);
  paimon_table_free(t);
}

/* Retention rules: retain max with a long time-retained, the expire limit, a consumer. */
static void test_retention_rules(void) {
  char dir[1024];
  paimon_table *t = make_table("rules", dir, sizeof dir);
  if (!t) return;
  for (int b = 1; b <= 9; b++) commit_batch(t, b, b % 2 ? "a" : "b", b % 3 == 0);
  ec_record rec;
  ec_record_all(t, dir, tmp_root, &rec);
  pm_error err = {0};
  pm_expire_result r;

  /* snapshot.expire.limit = 2: snapshots 1, 2 */
  pm_expire_config c = config(1, 100);
  c.max_deletes = 2;
  CHECK_OK(pm_expire_snapshots(t->t, &c, NULL, NULL, &r, &err), &err);
  CHECK_EQ_INT((int)r.snapshots_expired, 2);
  CHECK_EQ_INT((int)earliest_hint(dir), 3);

  /* a consumer at snapshot 5 pins 5..: only 3, 4 go */
  pm_snapshot_manager sm = pm_table_snapshots(t->t);
  CHECK_OK(pm_consumer_reset(&sm, "job1", 5, &err), &err);
  c = config(1, 100);
  CHECK_OK(pm_expire_snapshots(t->t, &c, NULL, NULL, &r, &err), &err);
  CHECK_EQ_INT((int)r.snapshots_expired, 2);
  CHECK_EQ_INT((int)earliest_hint(dir), 5);
  /* consumer.changelog-only: consumers do not pin snapshots */
  c.consumer_changelog_only = 1;
  c.retain_max = 4; /* time-retained 1 day: only retain-max expires, 9 - 4 + 1 = 6 is kept */
  c.retain_min = 1;
  c.time_retained_ms = 86400 * 1000LL;
  CHECK_OK(pm_expire_snapshots(t->t, &c, NULL, NULL, &r, &err), &err);
  CHECK_EQ_INT((int)r.snapshots_expired, 1);
  CHECK_EQ_INT((int)earliest_hint(dir), 6);
  /* retain min 3 with no time limit: 6 goes, 7.. stay */
  c = config(3, 100);
  CHECK_OK(pm_consumer_delete(&sm, "job1", NULL, &err), &err);
  CHECK_OK(pm_expire_snapshots(t->t, &c, NULL, NULL, &r, &err), &err);
  CHECK_EQ_INT((int)r.snapshots_expired, 1);
  CHECK_EQ_INT((int)earliest_hint(dir), 7);
  /* retain max < retain min is refused, nothing changes */
  c = config(3, 2);
  CHECK_EQ_INT(pm_expire_snapshots(t->t, &c, NULL, NULL, &r, &err), PAIMON_ERR_INVALID_ARGUMENT);
  size_t expired = 0;
  CHECK_EQ_INT((int)ec_verify(t, dir, tmp_root, &rec, &expired, "rules"), 3);
  ec_files needed;
  ec_files_collect(t->t, &needed);
  CHECK_MSG(needed.missing == 0, "rules: needed file missing: %s", needed.first_missing);
  CHECK(ec_check_no_orphans_needed(dir, 0, &needed, "rules"));
  ec_files_free(&needed);
  ec_record_free(&rec);
  paimon_table_free(t);
}

/* Java's deleteTag through the public API: a tag of an expired snapshot takes the files only it
 * used with it (b1, b3, b2 and its own manifests); a tag of a live snapshot only its tag file. */
static void test_tag_delete_cleans(void) {
  char dir[1024];
  paimon_table *t = make_table("tagdel", dir, sizeof dir);
  if (!t) return;
  commit_batch(t, 1, "a", 0);
  commit_batch(t, 2, "b", 0);
  commit_batch(t, 3, "a", 0);
  make_tag(t, "t3", 3);
  commit_batch(t, 4, "a", 1);
  commit_batch(t, 5, "b", 0);
  commit_batch(t, 6, "b", 1);
  commit_batch(t, 7, "a", 0);
  make_tag(t, "t7", 7);
  pm_expire_config c = config(2, 2);
  pm_error err = {0};
  CHECK_OK(pm_expire_snapshots(t->t, &c, NULL, NULL, NULL, &err), &err);
  ec_record rec;
  ec_record_all(t, dir, tmp_root, &rec); /* snapshots 6, 7, tags t3, t7 */
  CHECK_EQ_INT((int)rec.n, 4);
  ec_files before, mid, after;
  ec_files_collect(t->t, &before);
  paimon_error perr = {0};
  /* a live snapshot's tag: only the tag file goes */
  CHECK_OK(paimon_table_delete_tag(t, "t7", &perr), &perr);
  ec_files_collect(t->t, &mid);
  CHECK_EQ_INT((int)ec_files_compare(&before, &mid, 1, "tag t7 deleted"), 1);
  /* the expired snapshot's tag: its own files go too */
  CHECK_OK(paimon_table_delete_tag(t, "t3", &perr), &perr);
  ec_files_collect(t->t, &after);
  size_t dropped = ec_files_compare(&mid, &after, 1, "tag t3 deleted");
  CHECK_MSG(dropped >= 1 + 3 + 2, "tag t3: %zu files dropped (tag, 3 data files, manifests)", dropped);
  CHECK(ec_check_no_orphans_needed(dir, 0, &after, "tag t3 deleted"));
  for (size_t i = 0; i < rec.n; i++) {
    if (rec.items[i].tag[0]) continue;
    json_t *o = ec_oracle(dir, rec.items[i].snap, NULL, tmp_root), *ours = ec_ours(t, rec.items[i].snap, NULL);
    char msg[4096];
    CHECK_MSG(o && ot_rows_match(rec.items[i].rows, o, msg, sizeof msg), "snapshot %lld (paimon-table): %s",
              rec.items[i].snap, msg);
    CHECK_MSG(ours && ot_rows_match(rec.items[i].rows, ours, msg, sizeof msg), "snapshot %lld (ours): %s",
              rec.items[i].snap, msg);
    json_decref(o);
    json_decref(ours);
  }
  CHECK_EQ_INT(paimon_table_delete_tag(t, "t3", &perr), PAIMON_ERR_NOT_FOUND);
  ec_files_free(&before);
  ec_files_free(&mid);
  ec_files_free(&after);
  ec_record_free(&rec);
  paimon_table_free(t);
}

int main(void) {
  snprintf(tmp_root, sizeof tmp_root, "/tmp/pm_expire_XXXXXX");
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
  RUN_TEST(test_expire_with_tag);
  RUN_TEST(test_retention_rules);
  RUN_TEST(test_tag_delete_cleans);
  paimon_catalog_free(cat);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (!getenv("PM_KEEP_TMP")) CHECK(system(cmd) == 0);
  TEST_MAIN_END();
}
