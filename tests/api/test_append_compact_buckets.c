/*
 * Compaction of append tables with fixed buckets or deletion vectors (issue
 * 13 §1; SEMANTICS 3.8; Java's BucketedAppendCompactManager,
 * AppendCompactCoordinator in DV mode, AppendDeleteFileMaintainer):
 *   - the fixed-bucket picks (minor window, full) on synthetic queues against
 *     picks worked out by hand from Java's algorithm;
 *   - a bucket-2 table compacted minor (one bucket, then all), full, by
 *     partition spec: file counts per bucket, rows of both readers, check;
 *   - deletion vectors made as a DELETE would (index files committed by hand
 *     through the committer): unaware buckets (groups per index file, the
 *     touched index files removed, a vector of an uncompacted file moved to a
 *     new index file) and fixed buckets (the bucket's index file rewritten):
 *     the compacted files no longer hold the deleted rows, both readers
 *     return the rows written minus the deleted ones (computed from the
 *     positions, not read back), check OK.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "meta/deletion_vector_write.h"
#include "meta/path_factory.h"
#include "meta/snapshot.h"
#include "paimon/write.h"
#include "table/append_compact.h"
#include "table/commit.h"
#include "table/kv_dv.h"
#include "table/scan.h"
#include "table/table.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/compact_table.h"

static char wh[256];

static const char *table_dir(const char *name) {
  static char d[512];
  snprintf(d, sizeof d, "%s/d.db/%s", wh, name);
  return d;
}

static paimon_catalog *open_catalog(void) {
  paimon_option o[] = {{"warehouse", wh}};
  paimon_catalog *c = NULL;
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_open(o, 1, &c, &err), &err);
  return c;
}

/* Fixed buckets (BucketedAppendCompactManager): the queue by min sequence number. */
static void plan_b(const int64_t *sizes, const int64_t *seqs, const int *buckets, size_t n, int32_t bucket, int full,
                   const pm_append_compact_opts *o, const char *want) {
  ct_fake f;
  ct_fake_init(&f, sizes, NULL, n);
  for (size_t i = 0; i < n; i++) {
    f.live.items[i].file.min_sequence_number = seqs ? seqs[i] : (int64_t)i;
    f.live.items[i].bucket = buckets ? buckets[i] : 0;
  }
  pm_append_compact_plan p;
  pm_error err;
  CHECK_OK(pm_append_compact_plan_bucketed(NULL, &f.live, NULL, bucket, full, o, NULL, NULL, &p, &err), &err);
  char got[512], buf[256];
  size_t k = 0;
  got[0] = 0;
  for (size_t i = 0; i < p.n_tasks; i++)
    k += (size_t)snprintf(got + k, sizeof got - k, "%s%s", i ? "|" : "", ct_task_names(&p.tasks[i], buf, sizeof buf));
  CHECK_EQ_STR(got, want);
  pm_append_compact_plan_free(&p);
  ct_fake_free(&f);
}

static void test_plan_bucketed(void) {
  pm_append_compact_opts o = {100, 70, 5, 5, 100000, 0, 0.2};
  /* minor: five files make a task */
  int64_t a[] = {10, 20, 30, 40, 50};
  plan_b(a, NULL, NULL, 5, -1, 0, &o, "f0,f1,f2,f3,f4");
  plan_b(a, NULL, NULL, 4, -1, 0, &o, ""); /* four: none */
  /* the window drops its oldest once its size reaches 2 * target: 150+60 >= 200 drops f0 */
  int64_t b[] = {150, 60, 10, 10, 10, 10, 10};
  plan_b(b, NULL, NULL, 7, -1, 0, &o, "f1,f2,f3,f4,f5");
  /* the queue is ordered by min sequence number, not by list position */
  int64_t c[] = {1, 2, 3, 4, 5};
  int64_t cs[] = {50, 40, 30, 20, 10};
  plan_b(c, cs, NULL, 5, -1, 0, &o, "f4,f3,f2,f1,f0");
  /* per bucket; a bucket filter */
  int64_t d[] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  int db[] = {0, 1, 0, 1, 0, 1, 0, 1, 0};
  plan_b(d, NULL, db, 9, -1, 0, &o, "f0,f2,f4,f6,f8");
  plan_b(d, NULL, db, 9, 1, 0, &o, "");
  plan_b(d, NULL, db, 9, 0, 0, &o, "f0,f2,f4,f6,f8");
  /* full: leading big files stay; the rest needs >= 3 files with more small than big */
  int64_t e[] = {100, 80, 10, 10};
  plan_b(e, NULL, NULL, 4, -1, 1, &o, "");
  int64_t g[] = {100, 10, 80, 10};
  plan_b(g, NULL, NULL, 4, -1, 1, &o, "f1,f2,f3");
  int64_t h[] = {10, 80, 90, 10};
  plan_b(h, NULL, NULL, 4, -1, 1, &o, ""); /* 2 small, 2 big */
  plan_b(a, NULL, NULL, 2, -1, 1, &o, ""); /* fewer than 3 */
  plan_b(a, NULL, NULL, 3, -1, 1, &o, "f0,f1,f2");
  /* compaction.force-rewrite-all-files: everything, big files too */
  pm_append_compact_opts of = o;
  of.force_rewrite_all = 1;
  int64_t k[] = {100, 100};
  plan_b(k, NULL, NULL, 2, -1, 1, &of, "f0,f1");
  plan_b(k, NULL, NULL, 2, -1, 1, &o, "");
}

/* A fixed-bucket table (bucket 2, bucket-key id): minor compaction picks the
 * first five files of each bucket by sequence number; a bucket filter; full
 * compaction then leaves one file per bucket; rows, buckets and check stay right. */
static void test_fixed_bucket(void) {
  paimon_catalog *cat = open_catalog();
  const char *opts[] = {"bucket=2", "bucket-key=id"};
  paimon_table *t = ct_append_table(cat, "fixed", "p", opts, 2);
  json_t *before = json_array();
  for (int i = 0; i < 8; i++) ct_append(t, i * 20, i * 20 + 20, "a", before);
  for (int i = 0; i < 3; i++) ct_append(t, 500 + i * 20, 500 + i * 20 + 20, "b", before);
  const char *dir = table_dir("fixed");
  int a0 = ct_files_in(dir, "a", 0).files, a1 = ct_files_in(dir, "a", 1).files;
  int b0 = ct_files_in(dir, "b", 0).files, b1 = ct_files_in(dir, "b", 1).files;
  CHECK_MSG(a0 >= 5 && a1 >= 5, "files per bucket of p=a: %d %d", a0, a1);
  paimon_compact_metrics mt;
  paimon_error err = {0};
  int64_t snap = -1;
  /* minor, bucket 1 only */
  CHECK_OK(ct_compact(t, NULL, 0, 1, 0, &mt, &snap, &err), &err);
  CHECK_EQ_INT(mt.tasks, 1);
  CHECK_EQ_INT(mt.files_removed, 5);
  CHECK_EQ_INT(ct_files_in(dir, "a", 1).files, a1 - 5 + 1);
  CHECK_EQ_INT(ct_files_in(dir, "a", 0).files, a0);
  CHECK_EQ_STR(ct_files_in(dir, NULL, -1).latest_kind, "COMPACT");
  ct_check_rows(t, dir, before, 0, "fixed buckets: minor, bucket 1");
  /* minor, every bucket: p=a bucket 0 (a0 >= 5 files) and bucket 1 when it still has 5 */
  a1 = ct_files_in(dir, "a", 1).files;
  CHECK_OK(ct_compact(t, NULL, 0, -1, 0, &mt, &snap, &err), &err);
  CHECK_EQ_INT(mt.tasks, 1 + (a1 >= 5));
  CHECK_EQ_INT(ct_files_in(dir, "a", 0).files, a0 - 5 + 1);
  CHECK_EQ_INT(ct_files_in(dir, "b", 0).files, b0);
  /* full: every bucket with >= 3 small files becomes one file */
  CHECK_OK(ct_compact(t, NULL, 0, -1, 1, &mt, &snap, &err), &err);
  int64_t rows_a = 0;
  for (int b = 0; b < 2; b++) {
    ct_layout l = ct_files_in(dir, "a", b);
    CHECK_EQ_INT(l.files, 1);
    rows_a += l.rows;
  }
  CHECK_EQ_INT(rows_a, 160);
  CHECK_EQ_INT(ct_files_in(dir, "b", 0).files, b0 >= 3 ? 1 : b0);
  CHECK_EQ_INT(ct_files_in(dir, "b", 1).files, b1 >= 3 ? 1 : b1);
  ct_check_rows(t, dir, before, 0, "fixed buckets: full");
  /* again: nothing to do */
  snap = -1;
  CHECK_OK(ct_compact(t, NULL, 0, -1, 1, &mt, &snap, &err), &err);
  CHECK_EQ_INT(snap, -1);
  /* a partition spec */
  for (int i = 0; i < 5; i++) ct_append(t, 900 + i * 20, 900 + i * 20 + 20, "b", before);
  paimon_option spec[] = {{"p", "a"}};
  snap = -1;
  CHECK_OK(ct_compact(t, spec, 1, -1, 1, &mt, &snap, &err), &err);
  CHECK_EQ_INT(snap, -1);
  paimon_option spec_b[] = {{"p", "b"}};
  CHECK_OK(ct_compact(t, spec_b, 1, -1, 1, &mt, &snap, &err), &err);
  CHECK_EQ_INT(ct_files_in(dir, "b", 0).files, 1);
  CHECK_EQ_INT(ct_files_in(dir, "b", 1).files, 1);
  ct_check_rows(t, dir, before, 1, "fixed buckets: p=b");
  json_decref(before);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* ------------------------------------------------------------ deletion vectors */

/* Deletes rows of live files of (partition p=part, bucket) in one APPEND commit
 * of DV index changes, as a DELETE on a DV table would: files[i] (position in
 * the bucket's live list) loses the positions pos[i][0..n_pos[i]). Fixed
 * buckets: the bucket's index file is replaced; unaware: a new index file
 * holds the vectors of these files (none of them may have one yet). */
static void add_dvs(const char *dir, const char *part, int bucket, const int *files, const int64_t *const *pos,
                    const size_t *n_pos, size_t n) {
  pm_error err;
  pm_table *t = NULL;
  CHECK_OK(pm_table_open_path(dir, NULL, NULL, NULL, NULL, NULL, &t, &err), &err);
  if (!t) return;
  pm_snapshot_manager sm = pm_table_snapshots(t);
  pm_snapshot *s = NULL;
  CHECK_OK(pm_snapshot_read_latest_checked(&sm, &s, &err), &err);
  pm_manifest_entries e;
  pm_manifest_entries_init(&e);
  CHECK_OK(pm_scan_live_files(t, s, NULL, &e, &err), &err);
  const pm_manifest_entry **mine = calloc(e.n + 1, sizeof *mine);
  size_t n_mine = 0;
  for (size_t i = 0; i < e.n; i++) {
    const char *k[] = {"p"}, *v[] = {part};
    pm_partition_spec spec = {k, v, 1};
    int match = 0;
    CHECK_OK(pm_append_spec_match(t, &spec, e.items[i].partition, &match, &err), &err);
    if (match && e.items[i].bucket == bucket) mine[n_mine++] = &e.items[i];
  }
  pm_index_entries idx;
  CHECK_OK(pm_kv_dv_index_entries(t, s, &idx, &err), &err);
  pm_dv_maintainer *m = NULL;
  pm_bytes partv = mine[0]->partition;
  if (t->bucket_mode == PM_BUCKET_FIXED) CHECK_OK(pm_kv_dv_restore(t, &idx, partv, bucket, NULL, &m, &err), &err);
  else CHECK_OK(pm_dv_maintainer_new(t->co.dv_bitmap64, &m, &err), &err);
  for (size_t i = 0; i < n; i++) {
    CHECK((size_t)files[i] < n_mine);
    for (size_t j = 0; j < n_pos[i]; j++)
      CHECK_OK(pm_dv_maintainer_delete(m, mine[files[i]]->file.file_name, pos[i][j], &err), &err);
  }
  pm_path_factory pf;
  pm_path_factory_init(&pf, t->fs, t->root);
  pm_manifest_committable c;
  memset(&c, 0, sizeof c);
  pm_arena_init(&c.arena);
  c.identifier = PAIMON_BATCH_COMMIT_IDENTIFIER;
  c.message_version = PM_COMMIT_MESSAGE_VERSION;
  pm_commit_message msg;
  memset(&msg, 0, sizeof msg);
  pm_index_file_meta meta;
  int written = 0;
  CHECK_OK(pm_kv_dv_write(t, m, &pf, NULL, &c.arena, &meta, &written, &err), &err);
  CHECK(written);
  msg.partition = partv;
  msg.bucket = bucket;
  msg.total_buckets = t->bucket;
  msg.has_total_buckets = 1;
  msg.new_index_files.items = &meta;
  msg.new_index_files.n = 1;
  c.messages = &msg;
  c.n_messages = 1;
  pm_commit *cm = NULL;
  CHECK_OK(pm_commit_open(t, "dv-test", 0, &cm, &err), &err);
  int64_t id = -1;
  if (cm) CHECK_OK(pm_commit_append(cm, &c, 0, &id, &err), &err);
  CHECK(id > 0);
  pm_commit_free(cm);
  pm_arena_free(&c.arena);
  pm_dv_maintainer_free(m);
  pm_index_entries_clear(&idx);
  free(mine);
  pm_manifest_entries_clear(&e);
  pm_snapshot_free(s);
  pm_table_free(t);
}

/* The rows of commits k = 0..n-1 (ids base + k*20 + j, j < 20, in partition part) without the deleted
 * (commit k, position j) pairs listed in del (k * 100 + j), as written by ct_append(). */
static json_t *model_without(int base, int n, const char *part, const int *del, size_t n_del) {
  json_t *all = json_array();
  for (int k = 0; k < n; k++)
    for (int j = 0; j < 20; j++) {
      int gone = 0;
      for (size_t d = 0; d < n_del; d++) gone |= del[d] == k * 100 + j;
      if (gone) continue;
      char *r = ct_rows(base + k * 20 + j, base + k * 20 + j + 1, part);
      json_t *one = ot_parse_lines(r, NULL);
      json_array_extend(all, one);
      json_decref(one);
      free(r);
    }
  return all;
}

/* DV index entries of the latest snapshot: count of entries and of vectors. */
static void dv_counts(const char *dir, int *entries, int *vectors) {
  pm_error err;
  pm_table *t = NULL;
  *entries = *vectors = -1;
  CHECK_OK(pm_table_open_path(dir, NULL, NULL, NULL, NULL, NULL, &t, &err), &err);
  if (!t) return;
  pm_snapshot_manager sm = pm_table_snapshots(t);
  pm_snapshot *s = NULL;
  CHECK_OK(pm_snapshot_read_latest_checked(&sm, &s, &err), &err);
  pm_index_entries idx;
  CHECK_OK(pm_kv_dv_index_entries(t, s, &idx, &err), &err);
  *entries = *vectors = 0;
  for (size_t i = 0; i < idx.n; i++) {
    if (!idx.items[i].index_file.index_type || strcmp(idx.items[i].index_file.index_type, PM_INDEX_TYPE_DV)) continue;
    (*entries)++;
    *vectors += idx.items[i].index_file.n_dv_ranges;
  }
  pm_index_entries_clear(&idx);
  pm_snapshot_free(s);
  pm_table_free(t);
}

/* Unaware buckets with deletion vectors: the files with vectors are compacted
 * as one group per index file; the deleted rows are gone from the new file;
 * every touched index file is removed, the vector of a file outside the
 * compaction (beyond compaction.file-num-limit) moves to a new index file. */
static void test_dv_unaware(void) {
  paimon_catalog *cat = open_catalog();
  const char *opts[] = {"deletion-vectors.enabled=true", "compaction.file-num-limit=7"};
  paimon_table *t = ct_append_table(cat, "dvu", "p", opts, 2);
  for (int i = 0; i < 8; i++) ct_append(t, i * 20, i * 20 + 20, "a", NULL);
  const char *dir = table_dir("dvu");
  /* index X: f0 {0,1,2}, f1 {5}; Y: f3 {0..9}; Z: f2 {19}, f7 {0} */
  int64_t p0[] = {0, 1, 2}, p1[] = {5}, p3[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, p2[] = {19}, p7[] = {0};
  int fx[] = {0, 1}, fy[] = {3}, fz[] = {2, 7};
  const int64_t *px[] = {p0, p1}, *py[] = {p3}, *pz[] = {p2, p7};
  size_t nx[] = {3, 1}, ny[] = {10}, nz[] = {1, 1};
  add_dvs(dir, "a", 0, fx, px, nx, 2);
  add_dvs(dir, "a", 0, fy, py, ny, 1);
  add_dvs(dir, "a", 0, fz, pz, nz, 2);
  int del[] = {0, 1, 2, 105, 300, 301, 302, 303, 304, 305, 306, 307, 308, 309, 219, 700};
  json_t *want = model_without(0, 8, "a", del, sizeof del / sizeof *del);
  CHECK_EQ_INT(json_array_size(want), 144);
  ct_check_rows(t, dir, want, 1, "unaware DV table before compaction");
  int ne = 0, nv = 0;
  dv_counts(dir, &ne, &nv);
  CHECK_EQ_INT(ne, 3);
  CHECK_EQ_INT(nv, 5);
  paimon_compact_metrics mt;
  paimon_error err = {0};
  int64_t snap = -1;
  CHECK_OK(ct_compact(t, NULL, 0, -1, 0, &mt, &snap, &err), &err);
  CHECK_EQ_INT(mt.tasks, 1);
  CHECK_EQ_INT(mt.files_removed, 4);             /* f0..f3; f4..f6 are too few without vectors */
  CHECK_EQ_INT(mt.rows_written, 4 * 20 - 3 - 1 - 10 - 1); /* the deleted rows are gone */
  CHECK_EQ_INT(ct_files_in(dir, NULL, -1).files, 5);
  CHECK_EQ_STR(ct_files_in(dir, NULL, -1).latest_kind, "COMPACT");
  dv_counts(dir, &ne, &nv);
  CHECK_EQ_INT(ne, 1); /* X, Y, Z removed; f7's vector in a new file */
  CHECK_EQ_INT(nv, 1);
  ct_check_rows(t, dir, want, 1, "unaware DV table after compaction");
  json_decref(want);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* A fixed-bucket table with deletion vectors: minor compaction of the first
 * five files drops their vectors from the bucket's index file (the sixth
 * keeps its own); full compaction then rewrites everything left with a
 * vector, leaving an index file without vectors. */
static void test_dv_fixed(void) {
  paimon_catalog *cat = open_catalog();
  const char *opts[] = {"bucket=1", "bucket-key=id", "deletion-vectors.enabled=true"};
  paimon_table *t = ct_append_table(cat, "dvf", "p", opts, 3);
  for (int i = 0; i < 6; i++) ct_append(t, i * 20, i * 20 + 20, "a", NULL);
  const char *dir = table_dir("dvf");
  int64_t p1[] = {0, 1, 2, 3, 4}, p4[] = {3}, p5[] = {7, 8};
  int f[] = {1, 4, 5};
  const int64_t *pp[] = {p1, p4, p5};
  size_t np[] = {5, 1, 2};
  add_dvs(dir, "a", 0, f, pp, np, 3);
  int del[] = {100, 101, 102, 103, 104, 403, 507, 508};
  json_t *want = model_without(0, 6, "a", del, sizeof del / sizeof *del);
  ct_check_rows(t, dir, want, 1, "fixed DV table before compaction");
  paimon_compact_metrics mt;
  paimon_error err = {0};
  int64_t snap = -1;
  CHECK_OK(ct_compact(t, NULL, 0, -1, 0, &mt, &snap, &err), &err);
  CHECK_EQ_INT(mt.tasks, 1);
  CHECK_EQ_INT(mt.files_removed, 5);
  CHECK_EQ_INT(mt.rows_written, 100 - 6);
  CHECK_EQ_INT(ct_files_in(dir, "a", 0).files, 2);
  int ne = 0, nv = 0;
  dv_counts(dir, &ne, &nv);
  CHECK_EQ_INT(ne, 1);
  CHECK_EQ_INT(nv, 1);
  ct_check_rows(t, dir, want, 0, "fixed DV table after minor compaction");
  CHECK_OK(ct_compact(t, NULL, 0, -1, 1, &mt, &snap, &err), &err);
  CHECK_EQ_INT(mt.tasks, 1);
  CHECK_EQ_INT(mt.files_removed, 2);
  CHECK_EQ_INT(ct_files_in(dir, "a", 0).files, 1);
  dv_counts(dir, &ne, &nv);
  CHECK_EQ_INT(nv, 0);
  ct_check_rows(t, dir, want, 1, "fixed DV table after full compaction");
  json_decref(want);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}


int main(void) {
  snprintf(wh, sizeof wh, "/tmp/pm_append_compact_b_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  RUN_TEST(test_plan_bucketed);
  if (ot_available()) {
    RUN_TEST(test_fixed_bucket);
    RUN_TEST(test_dv_unaware);
    RUN_TEST(test_dv_fixed);
  }
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && system(cmd)) return 1;
  TEST_MAIN_END();
}
