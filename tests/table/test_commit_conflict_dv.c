/* Deletion-vector conflicts (Java's ConflictDetection on an unaware-bucket table with
 * deletion-vectors.enabled): two committers prepare against the same snapshot, the
 * first commits, the second must fail with CONFLICT (nothing published) when
 *   1. both gave the same data file a new deletion vector;
 *   3. the first deleted (compacted) a data file whose DV the second changes;
 *   4. the first changed the DV of a data file the second deletes (compacts);
 * and commits when (2.) they change the DVs of different files. After each race the
 * loser's messages are aborted; the table passes `paimon-table check` and both
 * readers return the rows the winners' deletions leave. */
#include "meta/deletion_vector_write.h"
#include "support/commit_fixture.h"

static char root[512];

typedef struct env {
  char dir[600];
  pm_table *t;
  pm_path_factory pf;
  pm_commit *a, *b;
} env;

/* A DV message for data file f: restores its DV from `old` (NULL = none), adds the
 * deleted positions, writes a new DV index file; old becomes a deleted index file. */
static pm_index_file_meta *add_dv(env *e, pm_manifest_committable *m, const pm_data_file_meta *f,
                                  const pm_index_file_meta *old, const int64_t *pos, size_t n_pos) {
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_dv_maintainer *mt = NULL;
  if (old) {
    char sub[512];
    snprintf(sub, sizeof sub, "index/%s", old->file_name);
    char *p = pm_table_root_path(e->t, sub);
    const char *paths[1] = {p};
    CHECK_OK(pm_dv_maintainer_restore(e->t->fs, old, paths, 1, 0, &mt, &err), &err);
    free(p);
  } else {
    CHECK_OK(pm_dv_maintainer_new(0, &mt, &err), &err);
  }
  for (size_t i = 0; i < n_pos; i++) CHECK_OK(pm_dv_maintainer_delete(mt, f->file_name, pos[i], &err), &err);
  char *idir = pm_table_root_path(e->t, "index");
  char cmd[800];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", idir);
  CHECK(system(cmd) == 0);
  free(idir);
  char *path = pm_path_factory_new_index_file(&e->pf);
  pm_index_file_meta *meta = pm_arena_alloc(&m->arena, sizeof *meta);
  memset(meta, 0, sizeof *meta);
  int written = 0;
  CHECK_OK(pm_dv_maintainer_write(mt, e->t->fs, path, &m->arena, meta, &written, &err), &err);
  CHECK(written);
  free(path);
  pm_dv_maintainer_free(mt);
  pm_commit_message *msg = &m->messages[m->n_messages++];
  memset(msg, 0, sizeof *msg);
  msg->partition = cf_partition(&m->arena, NULL, 0);
  msg->total_buckets = e->t->bucket;
  msg->has_total_buckets = 1;
  msg->new_index_files.items = meta;
  msg->new_index_files.n = 1;
  if (old) {
    pm_index_file_meta *o = pm_arena_alloc(&m->arena, sizeof *o);
    *o = *old; /* strings live in the committable that wrote it (kept until the end) */
    msg->deleted_index_files.items = o;
    msg->deleted_index_files.n = 1;
  }
  return meta;
}

/* A compaction of `before` (and its DV `old_dv`, NULL = none) into one file of rows ids/names. */
static void add_compaction(env *e, pm_manifest_committable *m, const pm_data_file_meta *before,
                           const pm_index_file_meta *old_dv, const int32_t *ids, const char *const *names, int n) {
  pm_commit_message *msg = &m->messages[m->n_messages++];
  memset(msg, 0, sizeof *msg);
  msg->partition = cf_partition(&m->arena, NULL, 0);
  msg->total_buckets = e->t->bucket;
  msg->has_total_buckets = 1;
  pm_data_file_meta *b = pm_arena_alloc(&m->arena, sizeof *b);
  *b = *before;
  pm_data_file_meta *after = pm_arena_alloc(&m->arena, sizeof *after);
  cf_data_file(e->t, &e->pf, &m->arena, NULL, ids, names, n, after);
  after->file_source = PM_SOURCE_COMPACT;
  msg->compact_before.items = b;
  msg->compact_before.n = 1;
  msg->compact_after.items = after;
  msg->compact_after.n = 1;
  if (old_dv) {
    pm_index_file_meta *o = pm_arena_alloc(&m->arena, sizeof *o);
    *o = *old_dv;
    msg->compact_deleted_index_files.items = o;
    msg->compact_deleted_index_files.n = 1;
  }
}

/* The loser: CONFLICT naming `file` and `what`, nothing published, then aborted. */
static void loses(env *e, pm_manifest_committable *m, int64_t latest, const char *file, const char *what) {
  pm_error err;
  memset(&err, 0, sizeof err);
  int64_t sid = 0;
  CHECK_EQ_INT(pm_commit_append(e->b, m, 0, &sid, &err), PAIMON_ERR_CONFLICT);
  CHECK_MSG(strstr(err.message, file) != NULL && strstr(err.message, what) != NULL, "%s", err.message);
  CHECK_EQ_INT(cf_latest_id(e->dir), latest);
  CHECK_OK(pm_commit_abort(e->t, m, &err), &err);
  CHECK(cf_check(e->dir));
}

static void wins(env *e, pm_commit *c, pm_manifest_committable *m, int64_t expect_sid) {
  pm_error err;
  memset(&err, 0, sizeof err);
  int64_t sid = 0;
  CHECK_OK(pm_commit_append(c, m, 0, &sid, &err), &err);
  CHECK_EQ_INT(sid, expect_sid);
  CHECK_EQ_INT(cf_latest_id(e->dir), expect_sid);
}

static void test_dv_races(void) {
  env e;
  snprintf(e.dir, sizeof e.dir, "%s/dv", root);
  cf_make_table(e.dir, 0, "\"deletion-vectors.enabled\" : \"true\"");
  e.t = cf_open(e.dir, NULL);
  pm_path_factory_init(&e.pf, e.t->fs, e.t->root);
  pm_error err;
  memset(&err, 0, sizeof err);
  CHECK_OK(pm_commit_open(e.t, "writer-a", 0, &e.a, &err), &err);
  CHECK_OK(pm_commit_open(e.t, "writer-b", 0, &e.b, &err), &err);
  static const int32_t i1[] = {1, 2}, i2[] = {3, 4}, i3[] = {5, 6}, i4[] = {4}, i5[] = {5, 6};
  static const char *const n1[] = {"a", "b"}, *const n2[] = {"c", "d"}, *const n3[] = {"e", "f"},
                           *const n4[] = {"d"}, *const n5[] = {"e", "f"};
  pm_manifest_committable *m1 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 3);
  pm_data_file_meta *f1 = cf_add_file(m1, e.t, &e.pf, NULL, i1, n1, 2);
  pm_data_file_meta *f2 = cf_add_file(m1, e.t, &e.pf, NULL, i2, n2, 2);
  pm_data_file_meta *f3 = cf_add_file(m1, e.t, &e.pf, NULL, i3, n3, 2);
  wins(&e, e.a, m1, 1);
  CHECK(cf_check(e.dir));
  static const int64_t p0[] = {0}, p1[] = {1}, p01[] = {0, 1};

  /* 1. both give f1 a first DV: the second would drop the first's deletion */
  pm_manifest_committable *ma = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  pm_manifest_committable *mb = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  pm_index_file_meta *dv1 = add_dv(&e, ma, f1, NULL, p0, 1);
  add_dv(&e, mb, f1, NULL, p1, 1);
  wins(&e, e.a, ma, 2);
  loses(&e, mb, 2, f1->file_name, "no deletion vector");
  CHECK(cf_rows_are(e.dir, "2|b|\n3|c|\n4|d|\n5|e|\n6|f|\n"));

  /* 2. different files: f2 gets a first DV, f1's DV grows (dv1 -> dv1b): both commit */
  pm_manifest_committable *ma2 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  pm_manifest_committable *mb2 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  pm_index_file_meta *dv2 = add_dv(&e, ma2, f2, NULL, p0, 1);
  add_dv(&e, mb2, f1, dv1, p1, 1);
  wins(&e, e.a, ma2, 3);
  wins(&e, e.b, mb2, 4);
  CHECK(cf_check(e.dir));
  CHECK(cf_rows_are(e.dir, "4|d|\n5|e|\n6|f|\n"));

  /* 3. A compacts f2 (dropping dv2) while B grows f2's DV: B's DV names a file no longer live */
  pm_manifest_committable *ma3 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  pm_manifest_committable *mb3 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  add_compaction(&e, ma3, f2, dv2, i4, n4, 1);
  add_dv(&e, mb3, f2, dv2, p01, 2);
  wins(&e, e.a, ma3, 5);
  loses(&e, mb3, 5, f2->file_name, "not previously added");
  CHECK(cf_rows_are(e.dir, "4|d|\n5|e|\n6|f|\n"));

  /* 4. A gives f3 a DV while B compacts f3 planned without it: B would bring row 5 back */
  pm_manifest_committable *ma4 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  pm_manifest_committable *mb4 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  add_dv(&e, ma4, f3, NULL, p0, 1);
  add_compaction(&e, mb4, f3, NULL, i5, n5, 2);
  wins(&e, e.a, ma4, 6);
  loses(&e, mb4, 6, f3->file_name, "no deletion vector");
  CHECK(cf_check(e.dir));
  CHECK(cf_rows_are(e.dir, "4|d|\n6|f|\n"));

  pm_committable_free(ma4);
  pm_committable_free(mb4);
  pm_committable_free(ma3);
  pm_committable_free(mb3);
  pm_committable_free(ma2);
  pm_committable_free(mb2);
  pm_committable_free(ma);
  pm_committable_free(mb);
  pm_committable_free(m1);
  pm_commit_free(e.a);
  pm_commit_free(e.b);
  pm_table_free(e.t);
}

int main(void) {
  snprintf(root, sizeof root, "/tmp/pm_test_commit_conflict_dv_%d", (int)getpid());
  RUN_TEST(test_dv_races);
  if (!pm_test_failures) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
  }
  tw_cleanup();
  TEST_MAIN_END();
}
