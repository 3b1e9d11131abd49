/*
 * Decoupled changelog lifecycle (table/expire.h; Java's ExpireSnapshotsImpl with
 * changelogDecoupled and ExpireChangelogImpl): snapshots expire sooner than their
 * changelog, which then lives on as changelog/changelog-<id> until the changelog retention
 * expires it. On tables written by us, with a changelog producer (input: the changelog files
 * of the changelog manifests) and without (append table: the changelog is the delta). After
 * each step: every retained snapshot reads as before with both readers (paimon-table and
 * ours), paimon-table check passes, every file still needed (walker over snapshots, tags and
 * long-lived changelogs) exists, the files no longer needed are gone, and rerunning changes
 * nothing.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "support/expire_check.h"
#include "support/fixture_copy.h"
#include "table/expire.h"
#include "table/orphan_clean.h"
#include "table/table_files.h"

static char tmp_root[256];
static paimon_catalog *cat;

static paimon_table *make_table(const char *name, const char *const *opts, size_t n_opts, char *dir, size_t cap) {
  paimon_error err = {0};
  CHECK_OK(ow_create_table(cat, "db", name, "id INT NOT NULL, v STRING", "", opts, n_opts, 0, &err), &err);
  char ident[128];
  snprintf(ident, sizeof ident, "db.%s", name);
  paimon_table *t = NULL;
  CHECK_OK(paimon_catalog_get_table(cat, ident, &t, &err), &err);
  snprintf(dir, cap, "%s/wh/db.db/%s", tmp_root, name);
  return t;
}

static void commit_rows(paimon_table *t, int b, int overwrite) {
  char rows[256];
  snprintf(rows, sizeof rows, "{\"id\":1,\"v\":\"b%d\"}\n{\"id\":%d,\"v\":\"x%d\"}\n", b, b + 1, b);
  paimon_error err = {0};
  CHECK_OK(ow_write_commit(t, NULL, 0, 0, rows, NULL, 0, overwrite, NULL, &err), &err);
}

static pm_expire_config config(int retain, int changelog_retain_max) {
  pm_expire_config c;
  memset(&c, 0, sizeof c);
  c.retain_min = c.retain_max = retain;
  c.max_deletes = 1000;
  c.changelog_retain_min = 1;
  c.changelog_retain_max = changelog_retain_max;
  c.changelog_time_retained_ms = 86400 * 1000LL; /* every changelog young: only the max counts */
  c.changelog_decoupled = 1;
  return c;
}

static int64_t latest_id(paimon_table *t) {
  pm_snapshot_manager sm = pm_table_snapshots(t->t);
  int64_t id = 0;
  pm_error err = {0};
  CHECK_OK(pm_snapshot_latest_id(&sm, &id, &err), &err);
  return id;
}

static int file_exists(const char *dir, const char *fmt, long long id) {
  char rel[128], p[1400];
  snprintf(rel, sizeof rel, fmt, id);
  snprintf(p, sizeof p, "%s/%s", dir, rel);
  return access(p, F_OK) == 0;
}

static char *slurp(const char *dir, const char *fmt, long long id) {
  char rel[128], p[1400];
  snprintf(rel, sizeof rel, fmt, id);
  snprintf(p, sizeof p, "%s/%s", dir, rel);
  FILE *f = fopen(p, "rb");
  if (!f) return NULL;
  char *s = calloc(1, 1 << 16);
  size_t n = s ? fread(s, 1, (1 << 16) - 1, f) : 0;
  (void)n;
  fclose(f);
  return s;
}

/* Files of the table (fc_tree_digest lines) to compare states. */
static char *tree(const char *dir) { return fc_tree_digest(dir, 0); }

/* Snapshots expire first (changelogs written), then the changelogs beyond their retention. */
static void run_decoupled(const char *name, const char *const *opts, size_t n_opts, int n_commits) {
  char dir[1024];
  paimon_table *t = make_table(name, opts, n_opts, dir, sizeof dir);
  if (!t) return;
  for (int b = 1; b <= n_commits; b++) commit_rows(t, b, 0);
  int64_t L = latest_id(t);
  CHECK(L >= n_commits);
  char *snap_json[64] = {0};
  for (int64_t id = 1; id <= L && id < 64; id++) snap_json[id] = slurp(dir, "snapshot/snapshot-%lld", id);
  ec_record rec;
  ec_record_all(t, dir, tmp_root, &rec);
  ec_files before, mid, after;
  ec_files_collect(t->t, &before);

  /* 1. snapshots: keep 2; the changelog of the others is kept (changelog max 100) */
  pm_expire_config c = config(2, 100);
  pm_expire_result r;
  pm_error err = {0};
  CHECK_OK(pm_expire_snapshots(t->t, &c, NULL, NULL, &r, &err), &err);
  CHECK_EQ_INT((int)r.snapshots_expired, (int)(L - 2));
  CHECK_EQ_INT((int)r.changelogs_written, (int)(L - 2));
  CHECK_EQ_INT((int)r.changelogs_expired, 0);
  CHECK_EQ_INT((int)r.files.failed, 0);
  for (int64_t id = 1; id <= L - 2; id++) {
    CHECK_MSG(!file_exists(dir, "snapshot/snapshot-%lld", id), "%s: snapshot %lld expired", name, (long long)id);
    char *cl = slurp(dir, "changelog/changelog-%lld", id);
    /* the changelog file is the snapshot's JSON, as Java's Changelog(snapshot) writes it */
    CHECK_MSG(cl && snap_json[id] && !strcmp(cl, snap_json[id]), "%s: changelog-%lld = snapshot-%lld", name,
              (long long)id, (long long)id);
    free(cl);
  }
  char *hint = slurp(dir, "changelog/LATEST%.0lld", 0);
  CHECK_MSG(hint && atoll(hint) == L - 2, "%s: changelog/LATEST %s", name, hint ? hint : "(none)");
  free(hint);
  size_t expired = 0;
  CHECK_EQ_INT((int)ec_verify(t, dir, tmp_root, &rec, &expired, name), 2);
  ec_files_collect(t->t, &mid);
  ec_files_compare(&before, &mid, 1, name);
  CHECK(ec_check_no_orphans_needed(dir, 0, &mid, name));

  /* 2. changelogs: retain max 4 (of latest L): L-3 and L-2 stay, 1..L-4 go */
  c = config(2, 4);
  CHECK_OK(pm_expire_changelogs(t->t, &c, &r, &err), &err);
  CHECK_EQ_INT((int)r.changelogs_expired, (int)(L - 4));
  CHECK_EQ_INT((int)r.files.data_deleted, (int)(L - 4)); /* one changelog file per commit (1 bucket) */
  CHECK_EQ_INT((int)r.files.failed, 0);
  for (int64_t id = 1; id <= L - 2; id++)
    CHECK_MSG(file_exists(dir, "changelog/changelog-%lld", id) == (id >= L - 3), "%s: changelog-%lld", name,
              (long long)id);
  hint = slurp(dir, "changelog/EARLIEST%.0lld", 0);
  CHECK_MSG(hint && atoll(hint) == L - 3, "%s: changelog/EARLIEST %s", name, hint ? hint : "(none)");
  free(hint);
  CHECK_EQ_INT((int)ec_verify(t, dir, tmp_root, &rec, &expired, name), 2);
  ec_files_collect(t->t, &after);
  size_t dropped = ec_files_compare(&mid, &after, 1, name);
  CHECK_MSG(dropped > (size_t)(L - 4), "%s: %zu files dropped", name, dropped);
  CHECK(ec_check_no_orphans_needed(dir, 0, &after, name));

  /* 3. a rerun (snapshots and changelogs) changes nothing */
  char *t1 = tree(dir);
  c = config(2, 4);
  CHECK_OK(pm_expire_snapshots(t->t, &c, NULL, NULL, &r, &err), &err);
  CHECK_EQ_INT((int)(r.snapshots_expired + r.changelogs_expired + r.files.data_deleted + r.files.meta_deleted), 0);
  char *t2 = tree(dir);
  CHECK_MSG(t1 && t2 && !strcmp(t1, t2), "%s: a rerun changed files", name);
  free(t1);
  free(t2);

  for (int i = 0; i < 64; i++) free(snap_json[i]);
  ec_files_free(&before);
  ec_files_free(&mid);
  ec_files_free(&after);
  ec_record_free(&rec);
  paimon_table_free(t);
}

/* Primary-key table with changelog-producer = input: changelog files in changelog manifests. */
static void test_decoupled_input_producer(void) {
  const char *opts[] = {"primary-key=id", "bucket=1", "changelog-producer=input", "write-only=true"};
  run_decoupled("cl_input", opts, 4, 6);
}

/* Append table without a producer: the changelog is the delta; its APPEND files outlive the
 * snapshot that DELETEd them (snapshot expiry keeps them) until the changelog expires. */
static void test_decoupled_no_producer(void) {
  char dir[1024];
  const char *opts[] = {"bucket=-1"};
  paimon_table *t = make_table("cl_none", opts, 1, dir, sizeof dir);
  if (!t) return;
  /* overwrites delete the files of the commit before: 1 2 | ow 3 | 4 | ow 5 | 6 */
  for (int b = 1; b <= 6; b++) commit_rows(t, b, b == 3 || b == 5);
  pm_error err = {0};
  pm_expire_config c = config(2, 100);
  pm_expire_result r;
  ec_record rec;
  ec_record_all(t, dir, tmp_root, &rec);
  CHECK_OK(pm_expire_snapshots(t->t, &c, NULL, NULL, &r, &err), &err);
  CHECK_EQ_INT((int)r.snapshots_expired, 4);
  CHECK_EQ_INT((int)r.changelogs_written, 4);
  /* files ADDed by the changelogs' deltas are all kept (the overwrites deleted 1, 2, 3, 4) */
  CHECK_EQ_INT((int)r.files.data_deleted, 0);
  ec_files mid;
  ec_files_collect(t->t, &mid);
  CHECK_MSG(mid.missing == 0, "no producer: needed file missing: %s", mid.first_missing);
  size_t expired = 0;
  CHECK_EQ_INT((int)ec_verify(t, dir, tmp_root, &rec, &expired, "no producer"), 2);
  /* changelogs: retain max 3 of latest 6: changelogs 1..3 go (4 stays: the latest long-lived) */
  c = config(2, 3);
  CHECK_OK(pm_expire_changelogs(t->t, &c, &r, &err), &err);
  CHECK_EQ_INT((int)r.changelogs_expired, 3);
  /* files deleted by deltas 2..3 (the overwrite of 3 dropped the files of 1 and 2) go; those of
   * commit 3 are deleted by delta 5, which is a retained snapshot's: kept */
  CHECK_EQ_INT((int)r.files.data_deleted, 2);
  ec_files after;
  ec_files_collect(t->t, &after);
  CHECK_MSG(after.missing == 0, "no producer: needed file missing: %s", after.first_missing);
  CHECK_EQ_INT((int)ec_verify(t, dir, tmp_root, &rec, &expired, "no producer"), 2);
  CHECK(ec_check_no_orphans_needed(dir, 0, &after, "no producer"));
  ec_files_free(&mid);
  ec_files_free(&after);
  ec_record_free(&rec);
  paimon_table_free(t);
}

/* Snapshot expiry (changelog not decoupled) of a tagged snapshot with a changelog, and of the
 * main snapshot a branch was made from: their changelog files, manifests and list go as Java's
 * expiry deletes them (a tag and another branch pin base and delta only); the tag and the
 * branch snapshot keep naming the list. Orphan cleanup then still works (it stopped on the
 * missing list before: "file referenced by tag/tag-t1 ... cannot open") and deletes nothing the
 * tag or the branch reads; both read as before; paimon-table check flags only the dangling
 * changelog pointers (Java leaves the same). */
static void test_tag_changelog_expired(void) {
  char dir[1024];
  const char *opts[] = {"primary-key=id", "bucket=1", "changelog-producer=input", "write-only=true"};
  paimon_table *t = make_table("cl_tag", opts, 4, dir, sizeof dir);
  if (!t) return;
  paimon_error err = {0};
  commit_rows(t, 1, 0);
  CHECK_OK(paimon_table_create_tag(t, "t1", 1, NULL, 0, &err), &err);
  CHECK_OK(paimon_table_create_branch(t, "b1", NULL, 1, 0, &err), &err);
  for (int b = 2; b <= 4; b++) commit_rows(t, b, 0);
  ec_record rec;
  ec_record_all(t, dir, tmp_root, &rec);
  pm_expire_config c = config(2, 2);
  c.changelog_decoupled = 0;
  pm_expire_result r;
  pm_error e = {0};
  CHECK_OK(pm_expire_snapshots(t->t, &c, NULL, NULL, &r, &e), &e);
  CHECK_EQ_INT((int)r.snapshots_expired, 2);
  pm_snapshot_manager sm = pm_table_snapshots(t->t);
  pm_snapshot *tag = NULL;
  CHECK_OK(pm_tag_read(&sm, "t1", &tag, &e), &e);
  char list[1400] = "";
  if (tag && tag->changelog_manifest_list) snprintf(list, sizeof list, "%s/manifest/%s", dir, tag->changelog_manifest_list);
  CHECK_MSG(*list && access(list, F_OK) != 0, "the tagged snapshot's changelog list is deleted as Java does: %s", list);
  pm_snapshot_free(tag);
  /* every file written so far is older than now - 1 ms */
  usleep(3000);
  pm_orphan_options oo;
  memset(&oo, 0, sizeof oo);
  oo.older_than_millis = pm_expire_now_ms() - 1;
  pm_orphan_result orr;
  CHECK_OK(pm_orphan_clean(t->t, &oo, 0, &orr, &e), &e);
  size_t expired = 0;
  CHECK_EQ_INT((int)ec_verify(t, dir, tmp_root, &rec, &expired, "tag changelog expired"), 3); /* 3, 4, t1 */
  ec_files after;
  ec_files_collect(t->t, &after);
  CHECK_MSG(after.missing == 0, "tag changelog expired: needed file missing: %s", after.first_missing);
  ec_files_free(&after);
  paimon_table *bt = NULL;
  CHECK_OK(paimon_catalog_get_table(cat, "db.cl_tag$branch_b1", &bt, &err), &err);
  json_t *want = NULL;
  for (size_t i = 0; i < rec.n; i++)
    if (!strcmp(rec.items[i].tag, "t1")) want = rec.items[i].rows;
  json_t *got = bt ? ec_ours(bt, 1, NULL) : NULL;
  char msg[2048];
  CHECK_MSG(got && want && ot_rows_match(want, got, msg, sizeof msg), "branch b1 snapshot 1: %s", got ? msg : "unreadable");
  json_decref(got);
  paimon_table_free(bt);
  const char *dangling[] = {"tag/tag-t1: references manifest-list ", "branch/branch-b1/snapshot/snapshot-1: references manifest-list "};
  CHECK(ot_check_ok_allowing(dir, 0, dangling, 2, "tag changelog expired"));
  ec_record_free(&rec);
  paimon_table_free(t);
}

int main(void) {
  snprintf(tmp_root, sizeof tmp_root, "/tmp/pm_expire_cl_XXXXXX");
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
  RUN_TEST(test_decoupled_input_producer);
  RUN_TEST(test_decoupled_no_producer);
  RUN_TEST(test_tag_changelog_expired);
  paimon_catalog_free(cat);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (!getenv("PM_KEEP_TMP") && !pm_test_failures) CHECK(system(cmd) == 0);
  TEST_MAIN_END();
}
