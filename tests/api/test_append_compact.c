/*
 * Compaction of unaware-bucket append tables (issue 13 §1; SEMANTICS 3.8;
 * Java's AppendCompactCoordinator / AppendCompactTask):
 *   - the coordinator's plan on synthetic file lists (sizes, open-file cost,
 *     min file num, file-num limit, small-file threshold, partitions) against
 *     bins worked out by hand from Java's algorithm;
 *   - tables written by us with many small files compacted through the
 *     public write API: file counts as planned, COMPACT snapshot, metrics,
 *     `paimon-table check` OK, both readers return the rows written
 *     (the model); a partition spec limits it; a
 *     second compaction has nothing to do and commits nothing;
 *   - a compaction racing an overwrite of the same partition: CONFLICT,
 *     nothing published, aborted files gone, check OK.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "meta/snapshot.h"
#include "paimon/write.h"
#include "table/append_compact.h"
#include "table/scan.h"
#include "table/table.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/oracle_table.h"
#include "support/oracle_write.h"

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

static paimon_table *make_table(paimon_catalog *cat, const char *name, const char *parts, const char *const *opts,
                                size_t n) {
  const char *all[16] = {"bucket=-1"};
  size_t k = 1;
  for (size_t i = 0; i < n && k < 16; i++) {
    if (!strncmp(opts[i], "bucket=", 7)) k = 0; /* a fixed-bucket table: no default */
    all[k++] = opts[i];
  }
  paimon_error err = {0};
  CHECK_OK(ow_create_table(cat, "d", name, "id INT NOT NULL, p STRING, v STRING, n BIGINT", parts, all, k, 0, &err),
           &err);
  char id[128];
  snprintf(id, sizeof id, "d.%s", name);
  paimon_table *t = NULL;
  CHECK_OK(paimon_catalog_get_table(cat, id, &t, &err), &err);
  return t;
}

/* Rows ids [lo, hi) in partition p. */
static char *rows(int lo, int hi, const char *p) {
  size_t cap = (size_t)(hi - lo) * 96 + 16, len = 0;
  char *s = malloc(cap);
  s[0] = 0;
  for (int i = lo; i < hi; i++)
    len += (size_t)snprintf(s + len, cap - len, "{\"id\":%d,\"p\":\"%s\",\"v\":\"value-%d\",\"n\":%d}\n", i, p, i,
                            i * 7);
  return s;
}

/* One commit (one file) of ids [lo, hi) in partition p; the rows are added to model (may be NULL). */
static void append(paimon_table *t, int lo, int hi, const char *p, json_t *model) {
  char *r = rows(lo, hi, p);
  paimon_error err = {0};
  CHECK_OK(ow_write_commit(t, NULL, 0, 0, r, NULL, 0, 0, NULL, &err), &err);
  if (model) {
    json_t *add = ot_parse_lines(r, NULL);
    CHECK(add != NULL);
    if (add) json_array_extend(model, add);
    json_decref(add);
  }
  free(r);
}

static int bucket_files(const char *dir, const char *part, int bucket, int64_t *rows);

typedef struct layout {
  int files, compact_source;
  int64_t rows, latest_id;
  char latest_kind[16];
} layout;

/* Live files of the latest snapshot; part != NULL: only that partition value of column p. */
static layout live_layout(const char *dir, const char *part) {
  layout l;
  memset(&l, 0, sizeof l);
  pm_error err;
  pm_table *t = NULL;
  CHECK_OK(pm_table_open_path(dir, NULL, NULL, NULL, NULL, NULL, &t, &err), &err);
  if (!t) return l;
  pm_snapshot_manager sm = pm_table_snapshots(t);
  pm_snapshot *s = NULL;
  CHECK_OK(pm_snapshot_read_latest_checked(&sm, &s, &err), &err);
  pm_manifest_entries e;
  pm_manifest_entries_init(&e);
  if (s) {
    CHECK_OK(pm_scan_live_files(t, s, NULL, &e, &err), &err);
    l.latest_id = s->id;
    snprintf(l.latest_kind, sizeof l.latest_kind, "%s", s->commit_kind ? s->commit_kind : "?");
  }
  for (size_t i = 0; i < e.n; i++) {
    if (part) {
      const char *k[] = {"p"}, *v[] = {part};
      pm_partition_spec spec = {k, v, 1};
      int match = 0;
      CHECK_OK(pm_append_spec_match(t, &spec, e.items[i].partition, &match, &err), &err);
      if (!match) continue;
    }
    const pm_data_file_meta *f = &e.items[i].file;
    l.files++;
    l.compact_source += f->file_source == PM_SOURCE_COMPACT;
    l.rows += f->row_count;
  }
  pm_manifest_entries_clear(&e);
  pm_snapshot_free(s);
  pm_table_free(t);
  return l;
}

/* Live files of one (partition value of p, bucket) in the latest snapshot; their rows into *rows. */
static int bucket_files(const char *dir, const char *part, int bucket, int64_t *rows) {
  pm_error err;
  pm_table *t = NULL;
  CHECK_OK(pm_table_open_path(dir, NULL, NULL, NULL, NULL, NULL, &t, &err), &err);
  if (!t) return -1;
  pm_snapshot_manager sm = pm_table_snapshots(t);
  pm_snapshot *s = NULL;
  CHECK_OK(pm_snapshot_read_latest_checked(&sm, &s, &err), &err);
  pm_manifest_entries e;
  pm_manifest_entries_init(&e);
  if (s) CHECK_OK(pm_scan_live_files(t, s, NULL, &e, &err), &err);
  int n = 0;
  if (rows) *rows = 0;
  for (size_t i = 0; i < e.n; i++) {
    const char *k[] = {"p"}, *v[] = {part};
    pm_partition_spec spec = {k, v, 1};
    int match = 0;
    CHECK_OK(pm_append_spec_match(t, &spec, e.items[i].partition, &match, &err), &err);
    if (!match || e.items[i].bucket != bucket) continue;
    n++;
    if (rows) *rows += e.items[i].file.row_count;
  }
  pm_manifest_entries_clear(&e);
  pm_snapshot_free(s);
  pm_table_free(t);
  return n;
}

static int compact_ex(paimon_table *t, const paimon_option *spec, size_t n, int32_t bucket, int full,
                      paimon_compact_metrics *mt, int64_t *snap, paimon_error *err);

/* One compaction through the public write API; returns the commit status. */
static int compact(paimon_table *t, const paimon_option *spec, size_t n, paimon_compact_metrics *mt, int64_t *snap,
                   paimon_error *err) {
  return compact_ex(t, spec, n, -1, 0, mt, snap, err);
}

static int compact_ex(paimon_table *t, const paimon_option *spec, size_t n, int32_t bucket, int full,
                      paimon_compact_metrics *mt, int64_t *snap, paimon_error *err) {
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  paimon_commit_messages *m = NULL;
  paimon_table_commit *c = NULL;
  int rc = paimon_write_builder_new(t, 0, NULL, 0, &wb, err);
  if (!rc) rc = paimon_write_builder_new_write(wb, &w, err);
  if (!rc) rc = paimon_table_write_compact(w, spec, n, bucket, full, err);
  if (!rc) rc = paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, err);
  if (!rc) rc = paimon_write_builder_new_commit(wb, &c, err);
  if (!rc) rc = paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, snap, err);
  if (mt) paimon_table_write_compact_metrics(w, mt);
  paimon_table_commit_free(c);
  paimon_commit_messages_free(m);
  paimon_table_write_free(w);
  paimon_write_builder_free(wb);
  return rc;
}

/* Both readers return `want` (the oracle only with use_oracle); paimon-table check passes. */
static void check_rows_ex(paimon_table *t, const char *dir, const json_t *want, int use_oracle, const char *what) {
  paimon_error err = {0};
  json_t *ours = ow_read_ours(t, &err);
  CHECK_MSG(ours != NULL, "%s: our read: %s", what, err.message);
  if (ours) {
    char msg[8192];
    CHECK_MSG(ot_rows_match(want, ours, msg, sizeof msg), "%s: our reader: %s", what, msg);
  }
  json_decref(ours);
  if (!use_oracle) return;
  CHECK_MSG(ot_check_ok(dir, 0, what), "%s", what);
  CHECK_MSG(ot_read_equals(dir, NULL, want, what), "%s", what);
}

static void check_rows(paimon_table *t, const char *dir, const json_t *want, const char *what) {
  check_rows_ex(t, dir, want, 1, what);
}

/* ------------------------------------------------------------ the plan */

typedef struct fake {
  pm_manifest_entries live;
  uint8_t parts[4][16];
} fake;

/* Entries with sizes[i] in partition part_of[i] (0..3: distinct one-field rows). */
static void fake_init(fake *f, const int64_t *sizes, const int *part_of, size_t n) {
  pm_manifest_entries_init(&f->live);
  f->live.items = calloc(n, sizeof *f->live.items);
  f->live.n = n;
  for (int p = 0; p < 4; p++) {
    /* arity 1 BinaryRow of one INT field: 4 bytes arity, 8 bytes null bits, 8 bytes value */
    memset(f->parts[p], 0, sizeof f->parts[p]);
    f->parts[p][3] = 1;
    f->parts[p][12] = (uint8_t)p;
  }
  for (size_t i = 0; i < n; i++) {
    pm_manifest_entry *e = &f->live.items[i];
    e->kind = 0;
    e->partition.data = f->parts[part_of ? part_of[i] : 0];
    e->partition.len = 16;
    e->bucket = 0;
    e->file.file_size = sizes[i];
    char *name = malloc(32);
    snprintf(name, 32, "f%zu", i);
    e->file.file_name = name;
  }
}

static void fake_free(fake *f) {
  for (size_t i = 0; i < f->live.n; i++) free((char *)f->live.items[i].file.file_name);
  free(f->live.items);
}

/* The task's files as "f3,f1,..." into buf. */
static const char *task_names(const pm_append_compact_task *t, char *buf, size_t cap) {
  size_t k = 0;
  buf[0] = 0;
  for (size_t i = 0; i < t->n_files; i++)
    k += (size_t)snprintf(buf + k, cap - k, "%s%s", i ? "," : "", t->files[i]->file.file_name);
  return buf;
}

static void test_plan(void) {
  pm_append_compact_opts o = {100, 70, 5, 5, 100000, 0};
  pm_error err;
  char buf[256];
  /* 1. all small and light: the leftover bin has 6 >= 5 files: one task, in list order */
  {
    int64_t s[] = {10, 3, 7, 1, 2, 9};
    fake f;
    fake_init(&f, s, NULL, 6);
    pm_append_compact_plan p;
    CHECK_OK(pm_append_compact_plan_unaware(NULL, &f.live, NULL, &o, &p, &err), &err);
    CHECK_EQ_INT(p.n_tasks, 1);
    if (p.n_tasks == 1) CHECK_EQ_STR(task_names(&p.tasks[0], buf, sizeof buf), "f0,f1,f2,f3,f4,f5");
    pm_append_compact_plan_free(&p);
    fake_free(&f);
  }
  /* 2. four small files: fewer than compaction.min.file-num, no task; big files (>= 70) never join */
  {
    int64_t s[] = {10, 3, 70, 7, 100, 1};
    fake f;
    fake_init(&f, s, NULL, 6);
    pm_append_compact_plan p;
    CHECK_OK(pm_append_compact_plan_unaware(NULL, &f.live, NULL, &o, &p, &err), &err);
    CHECK_EQ_INT(p.n_tasks, 0);
    pm_append_compact_plan_free(&p);
    fake_free(&f);
  }
  /* 3. weight: sorted by size 40(f1) 45(f3) 50(f0) 60(f2) 65(f4) 69(f5); + cost 5 each:
   * 45, 95, 150, 215 >= 200 -> bin {f1,f3,f0,f2}; then 70, 144: two left (< 5): no task */
  {
    int64_t s[] = {50, 40, 60, 45, 65, 69};
    fake f;
    fake_init(&f, s, NULL, 6);
    pm_append_compact_plan p;
    CHECK_OK(pm_append_compact_plan_unaware(NULL, &f.live, NULL, &o, &p, &err), &err);
    CHECK_EQ_INT(p.n_tasks, 1);
    if (p.n_tasks == 1) CHECK_EQ_STR(task_names(&p.tasks[0], buf, sizeof buf), "f0,f1,f2,f3");
    pm_append_compact_plan_free(&p);
    fake_free(&f);
  }
  /* 4. a single file heavier than 2 * target never makes a bin alone (more than one file) */
  {
    pm_append_compact_opts o2 = {100, 300, 5, 5, 100000, 0};
    int64_t s[] = {250, 10};
    fake f;
    fake_init(&f, s, NULL, 2);
    pm_append_compact_plan p;
    CHECK_OK(pm_append_compact_plan_unaware(NULL, &f.live, NULL, &o2, &p, &err), &err);
    /* sorted: 10 (15), 250 (270 >= 200, 2 files) -> one task */
    CHECK_EQ_INT(p.n_tasks, 1);
    if (p.n_tasks == 1) CHECK_EQ_STR(task_names(&p.tasks[0], buf, sizeof buf), "f0,f1");
    pm_append_compact_plan_free(&p);
    fake_free(&f);
  }
  /* 5. partitions plan apart: partition 1 has 5 files (task), partition 0 has 3 (none);
   * file-num-limit 7 counts candidates in list order: the 8th (partition 1) is not seen */
  {
    pm_append_compact_opts o3 = {100, 70, 5, 5, 7, 0};
    int64_t s[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    int parts[] = {1, 0, 1, 1, 0, 1, 1, 1, 0};
    fake f;
    fake_init(&f, s, parts, 9);
    pm_append_compact_plan p;
    CHECK_OK(pm_append_compact_plan_unaware(NULL, &f.live, NULL, &o3, &p, &err), &err);
    CHECK_EQ_INT(p.n_tasks, 1);
    if (p.n_tasks == 1) CHECK_EQ_STR(task_names(&p.tasks[0], buf, sizeof buf), "f0,f2,f3,f5,f6");
    o3.file_num_limit = 100;
    pm_append_compact_plan_free(&p);
    CHECK_OK(pm_append_compact_plan_unaware(NULL, &f.live, NULL, &o3, &p, &err), &err);
    CHECK_EQ_INT(p.n_tasks, 1);
    if (p.n_tasks == 1) CHECK_EQ_STR(task_names(&p.tasks[0], buf, sizeof buf), "f0,f2,f3,f5,f6,f7");
    pm_append_compact_plan_free(&p);
    fake_free(&f);
  }
}

/* Fixed buckets (BucketedAppendCompactManager): the queue by min sequence number. */
static void plan_b(const int64_t *sizes, const int64_t *seqs, const int *buckets, size_t n, int32_t bucket, int full,
                   const pm_append_compact_opts *o, const char *want) {
  fake f;
  fake_init(&f, sizes, NULL, n);
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
    k += (size_t)snprintf(got + k, sizeof got - k, "%s%s", i ? "|" : "", task_names(&p.tasks[i], buf, sizeof buf));
  CHECK_EQ_STR(got, want);
  pm_append_compact_plan_free(&p);
  fake_free(&f);
}

static void test_plan_bucketed(void) {
  pm_append_compact_opts o = {100, 70, 5, 5, 100000, 0};
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

/* ------------------------------------------------------------ tables */

/* A partitioned table: p=a gets 12 small files, p=b 3. */
static void test_compact_table(void) {
  paimon_catalog *cat = open_catalog();
  paimon_table *t = make_table(cat, "many", "p", NULL, 0);
  json_t *before = json_array(); /* the rows written: the model */
  for (int i = 0; i < 12; i++) append(t, i * 50, i * 50 + 50, "a", before);
  for (int i = 0; i < 3; i++) append(t, 1000 + i * 10, 1000 + i * 10 + 10, "b", before);
  const char *dir = table_dir("many");
  CHECK_EQ_INT(json_array_size(before), 630);
  layout l0 = live_layout(dir, NULL);
  CHECK_EQ_INT(l0.files, 15);
  paimon_compact_metrics mt;
  int64_t snap = -1;
  paimon_error err = {0};
  CHECK_OK(compact(t, NULL, 0, &mt, &snap, &err), &err);
  layout l1 = live_layout(dir, NULL), la = live_layout(dir, "a"), lb = live_layout(dir, "b");
  CHECK_EQ_INT(snap, l0.latest_id + 1);
  CHECK_EQ_STR(l1.latest_kind, "COMPACT");
  CHECK_EQ_INT(la.files, 1); /* 12 small files, one bin (min.file-num 5) */
  CHECK_EQ_INT(la.compact_source, 1);
  CHECK_EQ_INT(la.rows, 600);
  CHECK_EQ_INT(lb.files, 3); /* fewer than 5: left alone */
  CHECK_EQ_INT(lb.compact_source, 0);
  CHECK_EQ_INT(mt.tasks, 1);
  CHECK_EQ_INT(mt.files_removed, 12);
  CHECK_EQ_INT(mt.files_added, 1);
  CHECK_EQ_INT(mt.rows_written, 600);
  CHECK(mt.bytes_written > 0);
  check_rows(t, dir, before, "after compacting p=a");
  /* nothing left to compact: no snapshot */
  snap = -1;
  CHECK_OK(compact(t, NULL, 0, &mt, &snap, &err), &err);
  CHECK_EQ_INT(snap, -1);
  CHECK_EQ_INT(mt.tasks, 0);
  CHECK_EQ_INT(live_layout(dir, NULL).latest_id, l1.latest_id);
  /* two more files in p=b (5 now) and 5 in p=a: a spec p=b compacts only p=b */
  for (int i = 0; i < 2; i++) append(t, 2000 + i * 10, 2000 + i * 10 + 10, "b", before);
  for (int i = 0; i < 5; i++) append(t, 3000 + i * 10, 3000 + i * 10 + 10, "a", before);
  paimon_option spec[] = {{"p", "b"}};
  CHECK_OK(compact(t, spec, 1, &mt, &snap, &err), &err);
  CHECK_EQ_INT(mt.tasks, 1);
  CHECK_EQ_INT(mt.files_removed, 5);
  CHECK_EQ_INT(live_layout(dir, "b").files, 1);
  CHECK_EQ_INT(live_layout(dir, "a").files, 6);
  check_rows_ex(t, dir, before, 0, "after compacting p=b");
  /* then everything: p=a has its compacted file + 5 small ones = 6 small files */
  CHECK_OK(compact(t, NULL, 0, &mt, &snap, &err), &err);
  CHECK_EQ_INT(mt.tasks, 1);
  CHECK_EQ_INT(mt.files_removed, 6);
  CHECK_EQ_INT(live_layout(dir, "a").files, 1);
  check_rows(t, dir, before, "after compacting all");
  json_decref(before);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* A fixed-bucket table (bucket 2, bucket-key id): minor compaction picks the
 * first five files of each bucket by sequence number; a bucket filter; full
 * compaction then leaves one file per bucket; rows, buckets and check stay right. */
static void test_fixed_bucket(void) {
  paimon_catalog *cat = open_catalog();
  const char *opts[] = {"bucket=2", "bucket-key=id"};
  paimon_table *t = make_table(cat, "fixed", "p", opts, 2);
  json_t *before = json_array();
  for (int i = 0; i < 8; i++) append(t, i * 20, i * 20 + 20, "a", before);
  for (int i = 0; i < 3; i++) append(t, 500 + i * 20, 500 + i * 20 + 20, "b", before);
  const char *dir = table_dir("fixed");
  int a0 = bucket_files(dir, "a", 0, NULL), a1 = bucket_files(dir, "a", 1, NULL);
  int b0 = bucket_files(dir, "b", 0, NULL), b1 = bucket_files(dir, "b", 1, NULL);
  CHECK_MSG(a0 >= 5 && a1 >= 5, "files per bucket of p=a: %d %d", a0, a1);
  paimon_compact_metrics mt;
  paimon_error err = {0};
  int64_t snap = -1;
  /* minor, bucket 1 only */
  CHECK_OK(compact_ex(t, NULL, 0, 1, 0, &mt, &snap, &err), &err);
  CHECK_EQ_INT(mt.tasks, 1);
  CHECK_EQ_INT(mt.files_removed, 5);
  CHECK_EQ_INT(bucket_files(dir, "a", 1, NULL), a1 - 5 + 1);
  CHECK_EQ_INT(bucket_files(dir, "a", 0, NULL), a0);
  CHECK_EQ_STR(live_layout(dir, NULL).latest_kind, "COMPACT");
  check_rows_ex(t, dir, before, 0, "fixed buckets: minor, bucket 1");
  /* minor, every bucket: p=a bucket 0 (a0 >= 5 files) and bucket 1 when it still has 5 */
  a1 = bucket_files(dir, "a", 1, NULL);
  CHECK_OK(compact_ex(t, NULL, 0, -1, 0, &mt, &snap, &err), &err);
  CHECK_EQ_INT(mt.tasks, 1 + (a1 >= 5));
  CHECK_EQ_INT(bucket_files(dir, "a", 0, NULL), a0 - 5 + 1);
  CHECK_EQ_INT(bucket_files(dir, "b", 0, NULL), b0);
  /* full: every bucket with >= 3 small files becomes one file */
  CHECK_OK(compact_ex(t, NULL, 0, -1, 1, &mt, &snap, &err), &err);
  int64_t rows_a = 0, r;
  for (int b = 0; b < 2; b++) {
    CHECK_EQ_INT(bucket_files(dir, "a", b, &r), 1);
    rows_a += r;
  }
  CHECK_EQ_INT(rows_a, 160);
  CHECK_EQ_INT(bucket_files(dir, "b", 0, NULL), b0 >= 3 ? 1 : b0);
  CHECK_EQ_INT(bucket_files(dir, "b", 1, NULL), b1 >= 3 ? 1 : b1);
  check_rows_ex(t, dir, before, 0, "fixed buckets: full");
  /* again: nothing to do */
  snap = -1;
  CHECK_OK(compact_ex(t, NULL, 0, -1, 1, &mt, &snap, &err), &err);
  CHECK_EQ_INT(snap, -1);
  /* a partition spec */
  for (int i = 0; i < 5; i++) append(t, 900 + i * 20, 900 + i * 20 + 20, "b", before);
  paimon_option spec[] = {{"p", "a"}};
  snap = -1;
  CHECK_OK(compact_ex(t, spec, 1, -1, 1, &mt, &snap, &err), &err);
  CHECK_EQ_INT(snap, -1);
  paimon_option spec_b[] = {{"p", "b"}};
  CHECK_OK(compact_ex(t, spec_b, 1, -1, 1, &mt, &snap, &err), &err);
  CHECK_EQ_INT(bucket_files(dir, "b", 0, NULL), 1);
  CHECK_EQ_INT(bucket_files(dir, "b", 1, NULL), 1);
  check_rows(t, dir, before, "fixed buckets: p=b");
  json_decref(before);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* Rolling at target-file-size: 20 files, a small target; the output rolls into
 * several files (fewer than the input), every row kept. */
static void test_rolling(void) {
  paimon_catalog *cat = open_catalog();
  const char *opts[] = {"target-file-size=16kb", "source.split.open-file-cost=1b", "compaction.min.file-num=2"};
  paimon_table *t = make_table(cat, "roll", NULL, opts, 3);
  json_t *before = json_array();
  for (int i = 0; i < 20; i++) append(t, i * 200, i * 200 + 200, "x", before);
  const char *dir = table_dir("roll");
  layout l0 = live_layout(dir, NULL);
  CHECK_EQ_INT(l0.files, 20);
  paimon_compact_metrics mt;
  paimon_error err = {0};
  CHECK_OK(compact(t, NULL, 0, &mt, NULL, &err), &err);
  layout l1 = live_layout(dir, NULL);
  CHECK_MSG(l1.files < 20 && l1.files >= 2, "files after: %d (tasks %lld, added %lld)", l1.files,
            (long long)mt.tasks, (long long)mt.files_added);
  CHECK_EQ_INT(l1.rows, 4000);
  CHECK_EQ_INT(mt.rows_written, mt.files_removed * 200);
  check_rows(t, dir, before, "after a rolling compaction");
  json_decref(before);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* A compaction prepared, then an overwrite of its partition commits first: the
 * compaction's commit is CONFLICT, publishes nothing, and its aborted files go. */
static void test_race_overwrite(void) {
  paimon_catalog *cat = open_catalog();
  paimon_table *t = make_table(cat, "race", "p", NULL, 0);
  for (int i = 0; i < 6; i++) append(t, i * 10, i * 10 + 10, "a", NULL);
  const char *dir = table_dir("race");
  paimon_error err = {0};
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  paimon_commit_messages *m = NULL;
  paimon_table_commit *c = NULL;
  CHECK_OK(paimon_write_builder_new(t, 0, NULL, 0, &wb, &err), &err);
  CHECK_OK(paimon_write_builder_new_write(wb, &w, &err), &err);
  CHECK_OK(paimon_table_write_compact(w, NULL, 0, -1, 0, &err), &err);
  CHECK_OK(paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, &err), &err);
  /* the concurrent overwrite of p=a */
  char *r = rows(500, 505, "a");
  paimon_option ow[] = {{"p", "a"}};
  CHECK_OK(ow_write_commit(t, NULL, 0, 0, r, ow, 1, 1, NULL, &err), &err);
  json_t *after_ow = ot_parse_lines(r, NULL);
  free(r);
  CHECK_EQ_INT(json_array_size(after_ow), 5);
  int64_t latest = live_layout(dir, NULL).latest_id;
  CHECK_OK(paimon_write_builder_new_commit(wb, &c, &err), &err);
  int rc = paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, NULL, &err);
  CHECK_MSG(rc == PAIMON_ERR_CONFLICT, "%d %s", rc, err.message);
  CHECK_EQ_INT(live_layout(dir, NULL).latest_id, latest);
  paimon_error e2 = {0};
  CHECK_OK(paimon_table_commit_abort(c, m, &e2), &e2);
  check_rows(t, dir, after_ow, "compaction lost to an overwrite");
  json_decref(after_ow);
  paimon_commit_messages_free(m);
  paimon_table_commit_free(c);
  paimon_table_write_free(w);
  paimon_write_builder_free(wb);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* Compaction results never handed out (the writer freed after compact): their files are deleted. */
static void test_free_deletes(void) {
  paimon_catalog *cat = open_catalog();
  paimon_table *t = make_table(cat, "dropped", NULL, NULL, 0);
  json_t *before = json_array();
  for (int i = 0; i < 5; i++) append(t, i * 10, i * 10 + 10, "z", before);
  const char *dir = table_dir("dropped");
  paimon_error err = {0};
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  CHECK_OK(paimon_write_builder_new(t, 0, NULL, 0, &wb, &err), &err);
  CHECK_OK(paimon_write_builder_new_write(wb, &w, &err), &err);
  CHECK_OK(paimon_table_write_compact(w, NULL, 0, -1, 0, &err), &err);
  paimon_table_write_free(w);
  paimon_write_builder_free(wb);
  char cmd[700];
  snprintf(cmd, sizeof cmd, "test $(ls '%s/bucket-0' | grep -c '^data-') -eq 5", dir);
  CHECK(system(cmd) == 0);
  check_rows_ex(t, dir, before, 0, "compaction never committed");
  json_decref(before);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

int main(void) {
  snprintf(wh, sizeof wh, "/tmp/pm_append_compact_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  RUN_TEST(test_plan);
  RUN_TEST(test_plan_bucketed);
  if (ot_available()) {
    RUN_TEST(test_compact_table);
    RUN_TEST(test_rolling);
    RUN_TEST(test_fixed_bucket);
    RUN_TEST(test_race_overwrite);
    RUN_TEST(test_free_deletes);
  }
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && system(cmd)) return 1;
  TEST_MAIN_END();
}
