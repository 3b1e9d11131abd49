/* The referenced-file walker (table/table_files.h) on copies of every Java-written fixture
 * table: every file it returns exists, and every file a read of any snapshot or tag uses
 * (live data files after the ADD/DELETE merge, their extra files, the index files of the
 * snapshot's index manifest) is in its set. Plus: a referenced manifest that is missing while
 * its snapshot exists stops the walk with an error naming it. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "io/fs.h"
#include "meta/manifest.h"
#include "table/scan.h"
#include "table/table.h"
#include "table/table_files.h"

typedef struct collect {
  pm_name_set paths;
  size_t n_refs, n_missing, n_data;
  char first_missing[4096];
} collect;

static int on_file(void *ctx, const pm_table_file_ref *f, pm_error *err) {
  collect *c = ctx;
  c->n_refs++;
  if (f->kind == PM_TF_DATA_FILE || f->kind == PM_TF_CHANGELOG_FILE) c->n_data++;
  if (access(f->path, F_OK) != 0) {
    if (!c->n_missing) snprintf(c->first_missing, sizeof c->first_missing, "%s (kind %d, from %s)", f->path,
                                (int)f->kind, f->owner);
    c->n_missing++;
  }
  return pm_name_set_add(&c->paths, f->path, NULL, err);
}

/* Every live file of snapshot s (data + extra files) must be in the walker's set. */
static void check_live(pm_table *t, const pm_snapshot *s, const collect *c, const char *what, size_t *n_live) {
  pm_error err = {0};
  pm_manifest_entries live;
  pm_manifest_entries_init(&live);
  int rc = pm_scan_live_files(t, s, NULL, &live, &err);
  CHECK_MSG(rc == 0, "%s: live files: %s", what, err.message);
  for (size_t i = 0; !rc && i < live.n; i++) {
    const pm_manifest_entry *e = &live.items[i];
    char *pdir = NULL, *bpath = NULL, *fpath = NULL;
    CHECK_OK(pm_scan_partition_dir(t, e->partition.data, e->partition.len, &pdir, &err), &err);
    CHECK_OK(pm_table_bucket_path(t, pdir, e->bucket, &bpath, &err), &err);
    CHECK_OK(pm_table_data_file_path(t, bpath, e->file.file_name, e->file.external_path, &fpath, &err), &err);
    if (fpath) {
      CHECK_MSG(pm_name_set_has(&c->paths, fpath), "%s: live data file %s not walked", what, fpath);
      CHECK_MSG(access(fpath, F_OK) == 0, "%s: live data file %s missing", what, fpath);
      (*n_live)++;
    }
    free(pdir);
    free(bpath);
    free(fpath);
  }
  pm_manifest_entries_clear(&live);
  if (s->index_manifest) {
    char sub[1200];
    snprintf(sub, sizeof sub, "manifest/%s", s->index_manifest);
    char *p = pm_table_root_path(t, sub);
    CHECK_MSG(pm_name_set_has(&c->paths, p), "%s: index manifest %s not walked", what, p);
    pm_index_entries ie;
    pm_index_entries_init(&ie);
    CHECK_OK(pm_index_manifest_read(t->fs, p, &ie, &err), &err);
    for (size_t i = 0; i < ie.n; i++) {
      char *pdir = NULL, *bpath = NULL, *ip = NULL;
      pm_scan_partition_dir(t, ie.items[i].partition.data, ie.items[i].partition.len, &pdir, &err);
      pm_table_bucket_path(t, pdir, ie.items[i].bucket, &bpath, &err);
      pm_table_index_file_path(t, bpath, ie.items[i].index_file.file_name, ie.items[i].index_file.external_path, &ip,
                               &err);
      CHECK_MSG(ip && pm_name_set_has(&c->paths, ip), "%s: index file %s not walked", what, ip ? ip : "?");
      free(pdir);
      free(bpath);
      free(ip);
    }
    pm_index_entries_clear(&ie);
    free(p);
  }
}

static void check_branch(pm_table *t, const collect *c, const char *label, size_t *n_snaps, size_t *n_live) {
  pm_error err = {0};
  pm_snapshot_manager sm = pm_table_snapshots(t);
  int64_t *ids = NULL;
  size_t n = 0;
  CHECK_OK(pm_snapshot_list_ids(&sm, &ids, &n, &err), &err);
  for (size_t i = 0; i < n; i++) {
    pm_snapshot *s = NULL;
    CHECK_OK(pm_snapshot_read(&sm, ids[i], &s, &err), &err);
    char what[4200];
    snprintf(what, sizeof what, "%s snapshot %lld", label, (long long)ids[i]);
    if (s) check_live(t, s, c, what, n_live);
    (*n_snaps)++;
    pm_snapshot_free(s);
  }
  free(ids);
  char **tags = NULL;
  size_t nt = 0;
  CHECK_OK(pm_tag_list(&sm, &tags, &nt, &err), &err);
  for (size_t i = 0; i < nt; i++) {
    pm_snapshot *s = NULL;
    CHECK_OK(pm_tag_read(&sm, tags[i], &s, &err), &err);
    char what[4200];
    snprintf(what, sizeof what, "%s tag %s", label, tags[i]);
    if (s) check_live(t, s, c, what, n_live);
    (*n_snaps)++;
    pm_snapshot_free(s);
  }
  pm_free_names(tags, nt);
}

static pm_table *open_copy(const char *root, const char *db_dir) {
  pm_error err = {0};
  pm_options cat;
  pm_options_init(&cat);
  char rule[8192];
  snprintf(rule, sizeof rule, "FILE:/tmp/external=%s/external", db_dir);
  pm_options_set(&cat, "path-rewrite", rule, &err);
  pm_table *t = NULL;
  int rc = pm_table_open_path(root, NULL, NULL, NULL, NULL, &cat, &t, &err);
  CHECK_MSG(rc == 0, "open %s: %s", root, err.message);
  pm_options_clear(&cat);
  return t;
}

static size_t n_tables_walked, total_snaps, total_live, total_refs;

static void test_fixture_table(const char *root) {
  char db_dir[4096];
  snprintf(db_dir, sizeof db_dir, "%s", root);
  char *sl = strrchr(db_dir, '/');
  if (sl) *sl = 0;
  pm_table *t = open_copy(root, db_dir);
  if (!t) return;
  pm_error err = {0};
  collect c;
  memset(&c, 0, sizeof c);
  pm_name_set_init(&c.paths);
  int rc = pm_table_files_walk(t, on_file, &c, &err);
  CHECK_MSG(rc == 0, "walk %s: %s", root, err.message);
  CHECK_MSG(c.n_missing == 0, "%s: %zu walked files missing, first %s", root, c.n_missing, c.first_missing);
  size_t n_snaps = 0, n_live = 0;
  check_branch(t, &c, root, &n_snaps, &n_live);
  char **branches = NULL;
  size_t nb = 0;
  CHECK_OK(pm_branch_list(t->fs, t->root, &branches, &nb, &err), &err);
  for (size_t i = 0; i < nb; i++) {
    pm_table *bt = NULL;
    CHECK_OK(pm_table_reopen(t, branches[i], NULL, &bt, &err), &err);
    if (bt) check_branch(bt, &c, branches[i], &n_snaps, &n_live);
    pm_table_free(bt);
  }
  pm_free_names(branches, nb);
  if (n_snaps) CHECK_MSG(c.n_refs > 0, "%s: nothing walked", root);
  n_tables_walked++;
  total_snaps += n_snaps;
  total_live += n_live;
  total_refs += c.n_refs;
  pm_name_set_clear(&c.paths);
  pm_table_free(t);
}

/* A manifest of an existing snapshot is gone: the walk fails naming it; a snapshot file
 * gone with its files (expired meanwhile) is skipped. */
static void test_missing_manifest(const char *tmp) {
  char root[4096], cmd[16384];
  snprintf(root, sizeof root, "%s/parquet/append_09.db/append_09", tmp);
  pm_table *t = open_copy(root, tmp);
  if (!t) return;
  pm_error err = {0};
  pm_snapshot_manager sm = pm_table_snapshots(t);
  pm_snapshot *s = NULL;
  CHECK_OK(pm_snapshot_read_latest(&sm, &s, &err), &err);
  if (!s) {
    pm_table_free(t);
    return;
  }
  snprintf(cmd, sizeof cmd, "%s/manifest/%s", root, s->delta_manifest_list);
  CHECK(unlink(cmd) == 0);
  collect c;
  memset(&c, 0, sizeof c);
  pm_name_set_init(&c.paths);
  int rc = pm_table_files_walk(t, on_file, &c, &err);
  CHECK_EQ_INT(rc, PAIMON_ERR_NOT_FOUND);
  CHECK_MSG(strstr(err.message, s->delta_manifest_list) != NULL, "error names the list: %s", err.message);
  CHECK_MSG(strstr(err.message, "snapshot-") != NULL, "error names the snapshot: %s", err.message);
  pm_name_set_clear(&c.paths);
  /* the snapshot itself expired meanwhile: skipped, the walk completes */
  char *sp = pm_snapshot_path(&sm, s->id);
  CHECK(unlink(sp) == 0);
  free(sp);
  pm_name_set_init(&c.paths);
  memset(&err, 0, sizeof err);
  rc = pm_table_files_walk(t, on_file, &c, &err);
  CHECK_MSG(rc == 0, "walk after expiry: %s", err.message);
  pm_name_set_clear(&c.paths);
  pm_snapshot_free(s);
  pm_table_free(t);
}

int main(void) {
  char tmp[] = "/tmp/pm_table_files_XXXXXX";
  CHECK(mkdtemp(tmp) != NULL);
  char cmd[16384];
  snprintf(cmd, sizeof cmd, "cp -r '%s'/* '%s' && chmod -R u+w '%s'", PM_SHARED("fixtures/warehouse"), tmp, tmp);
  CHECK(system(cmd) == 0);
  snprintf(cmd, sizeof cmd, "find '%s' -type d -name schema | grep -v '/branch/branch-' | sort", tmp);
  FILE *p = popen(cmd, "r");
  CHECK(p != NULL);
  char line[4096];
  while (p && fgets(line, sizeof line, p)) {
    line[strcspn(line, "\n")] = 0;
    char *sl = strrchr(line, '/');
    if (!sl) continue;
    *sl = 0; /* table root */
    test_fixture_table(line);
  }
  if (p) pclose(p);
  fprintf(stderr, "%zu fixture tables: %zu snapshots/tags, %zu live files checked, %zu references walked\n",
          n_tables_walked, total_snaps, total_live, total_refs);
  CHECK_MSG(n_tables_walked >= 60, "walked %zu fixture tables", n_tables_walked);
  test_missing_manifest(tmp);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
  CHECK(system(cmd) == 0);
  TEST_MAIN_END();
}
