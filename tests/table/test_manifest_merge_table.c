/* Manifest merging through the committer: a partitioned table with small manifest options
 * (manifest.target-file-size, manifest.merge-min-count, manifest.full-compaction-threshold-size)
 * takes many single-file commits and partition overwrites (DELETE entries); paimon-table check
 * (strict: Java 2.0.0 writer schemas, metas = files, the live set of every snapshot = the
 * previous one + its delta) passes, both readers return exactly the rows written, and the
 * base manifest list stays short (merging happened, minor and full). */
#include "support/commit_fixture.h"

static char root[200];

typedef struct row_model {
  char **lines;
  size_t n, cap;
} row_model;

static void model_add(row_model *m, int32_t id, const char *name, const char *dt) {
  char line[128];
  snprintf(line, sizeof line, "%d|%s|%s", id, name, dt);
  if (m->n == m->cap) m->lines = realloc(m->lines, (m->cap = m->cap ? 2 * m->cap : 64) * sizeof *m->lines);
  m->lines[m->n++] = strdup(line);
}

static void model_drop_partition(row_model *m, const char *dt) {
  size_t k = 0;
  char suffix[64];
  snprintf(suffix, sizeof suffix, "|%s", dt);
  for (size_t i = 0; i < m->n; i++) {
    size_t l = strlen(m->lines[i]), sl = strlen(suffix);
    if (l >= sl && !strcmp(m->lines[i] + l - sl, suffix)) free(m->lines[i]);
    else m->lines[k++] = m->lines[i];
  }
  m->n = k;
}

static char *model_text(const row_model *m) {
  char **copy = malloc((m->n + 1) * sizeof *copy);
  for (size_t i = 0; i < m->n; i++) copy[i] = strdup(m->lines[i]);
  return cf_join_sorted(copy, m->n);
}

/* Manifests in a snapshot's base list (and how many of them delete files). */
static size_t base_manifests(const char *dir, int64_t id, size_t *with_deletes) {
  pm_snapshot *s = cf_snapshot(dir, id);
  *with_deletes = 0;
  if (!s) return 0;
  char path[1024];
  snprintf(path, sizeof path, "%s/manifest/%s", dir, s->base_manifest_list);
  pm_manifest_file_metas v;
  pm_manifest_file_metas_init(&v);
  pm_error err;
  memset(&err, 0, sizeof err);
  CHECK_OK(pm_manifest_list_read(pm_fs_local(), path, &v, &err), &err);
  size_t n = v.n;
  for (size_t i = 0; i < v.n; i++) *with_deletes += v.items[i].num_deleted_files > 0;
  pm_manifest_file_metas_clear(&v);
  pm_snapshot_free(s);
  return n;
}

static void test_many_commits_merged(void) {
  char dir[300];
  snprintf(dir, sizeof dir, "%s/merged", root);
  cf_make_table(dir, 1,
                "\"manifest.target-file-size\" : \"2500 b\", \"manifest.merge-min-count\" : \"6\", "
                "\"manifest.full-compaction-threshold-size\" : \"6 kb\"");
  pm_table *t = cf_open(dir, NULL);
  pm_path_factory pf;
  pm_path_factory_init(&pf, t->fs, t->root);
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_commit *c = NULL;
  CHECK_OK(pm_commit_open(t, "merge-user", 0, &c, &err), &err);
  row_model md = {0};
  const char *parts[] = {"d0", "d1", "d2", "d3"};
  int commits = 0, max_base = 0, saw_deletes_in_base = 0, deletes_cleared = 0;
  for (int k = 0; k < 40; k++) {
    /* the first commit brings 40 files (one manifest above the target size), then one file each */
    int files = k == 0 ? 40 : 1;
    const char *dt = parts[k % 4];
    pm_manifest_committable *m = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, (size_t)files);
    int32_t ids[2];
    char n0[16], n1[16];
    for (int f = 0; f < files; f++) {
      int r = k * 100 + f * 2;
      if (files > 1) dt = parts[f % 4];
      ids[0] = r;
      ids[1] = r + 1;
      snprintf(n0, sizeof n0, "r%d", r);
      snprintf(n1, sizeof n1, "r%d", r + 1);
      const char *names[2] = {n0, n1};
      cf_add_file(m, t, &pf, dt, ids, names, 2);
      if (files > 1) {
        model_add(&md, ids[0], n0, dt);
        model_add(&md, ids[1], n1, dt);
      }
    }
    int64_t sid = -1;
    if (k % 9 == 8) { /* overwrite the partition: DELETE entries for its live files */
      const char *keys[1] = {"dt"}, *vals[1] = {dt};
      pm_partition_spec spec = {keys, vals, 1};
      CHECK_OK(pm_commit_overwrite(c, &spec, m, &sid, &err), &err);
      model_drop_partition(&md, dt);
    } else {
      CHECK_OK(pm_commit_append(c, m, 0, &sid, &err), &err);
    }
    if (files == 1) {
      model_add(&md, ids[0], n0, dt);
      model_add(&md, ids[1], n1, dt);
    }
    pm_committable_free(m);
    commits++;
    CHECK_EQ_INT(sid, commits);
    size_t wd = 0;
    size_t nb = base_manifests(dir, sid, &wd);
    if (getenv("MM_DEBUG")) fprintf(stderr, "commit %d: base %zu manifests, %zu with deletes\n", commits, nb, wd);
    if ((int)nb > max_base) max_base = (int)nb;
    if (wd) saw_deletes_in_base = 1;
    else if (saw_deletes_in_base) deletes_cleared = 1; /* a full compaction removed them */
  }
  /* unmerged, the base list would hold one manifest per commit */
  CHECK_MSG(max_base <= 12, "base list grew to %d manifests after %d commits", max_base, commits);
  CHECK(saw_deletes_in_base && deletes_cleared);
  CHECK(cf_check(dir));
  char *want = model_text(&md);
  CHECK(cf_rows_are(dir, want));
  free(want);
  for (size_t i = 0; i < md.n; i++) free(md.lines[i]);
  free(md.lines);
  pm_commit_free(c);
  pm_table_free(t);
}

int main(void) {
  snprintf(root, sizeof root, "/tmp/pm_mmerge_table_%d", (int)getpid());
  char cmd[600];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", root);
  if (system(cmd) != 0) return 1;
  RUN_TEST(test_many_commits_merged);
  if (!pm_test_failures) {
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
  }
  tw_cleanup();
  TEST_MAIN_END();
}
