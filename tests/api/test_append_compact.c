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
#include "paimon/compact.h"
#include "paimon/write.h"
#include "table/append_compact.h"
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

/* ------------------------------------------------------------ the plan */

static void test_plan(void) {
  pm_append_compact_opts o = {100, 70, 5, 5, 100000, 0, 0.2};
  pm_error err;
  char buf[256];
  /* 1. all small and light: the leftover bin has 6 >= 5 files: one task, in list order */
  {
    int64_t s[] = {10, 3, 7, 1, 2, 9};
    ct_fake f;
    ct_fake_init(&f, s, NULL, 6);
    pm_append_compact_plan p;
    CHECK_OK(pm_append_compact_plan_unaware(NULL, &f.live, NULL, &o, &p, &err), &err);
    CHECK_EQ_INT(p.n_tasks, 1);
    if (p.n_tasks == 1) CHECK_EQ_STR(ct_task_names(&p.tasks[0], buf, sizeof buf), "f0,f1,f2,f3,f4,f5");
    pm_append_compact_plan_free(&p);
    ct_fake_free(&f);
  }
  /* 2. four small files: fewer than compaction.min.file-num, no task; big files (>= 70) never join */
  {
    int64_t s[] = {10, 3, 70, 7, 100, 1};
    ct_fake f;
    ct_fake_init(&f, s, NULL, 6);
    pm_append_compact_plan p;
    CHECK_OK(pm_append_compact_plan_unaware(NULL, &f.live, NULL, &o, &p, &err), &err);
    CHECK_EQ_INT(p.n_tasks, 0);
    pm_append_compact_plan_free(&p);
    ct_fake_free(&f);
  }
  /* 3. weight: sorted by size 40(f1) 45(f3) 50(f0) 60(f2) 65(f4) 69(f5); + cost 5 each:
   * 45, 95, 150, 215 >= 200 -> bin {f1,f3,f0,f2}; then 70, 144: two left (< 5): no task */
  {
    int64_t s[] = {50, 40, 60, 45, 65, 69};
    ct_fake f;
    ct_fake_init(&f, s, NULL, 6);
    pm_append_compact_plan p;
    CHECK_OK(pm_append_compact_plan_unaware(NULL, &f.live, NULL, &o, &p, &err), &err);
    CHECK_EQ_INT(p.n_tasks, 1);
    if (p.n_tasks == 1) CHECK_EQ_STR(ct_task_names(&p.tasks[0], buf, sizeof buf), "f0,f1,f2,f3");
    pm_append_compact_plan_free(&p);
    ct_fake_free(&f);
  }
  /* 4. a single file heavier than 2 * target never makes a bin alone (more than one file) */
  {
    pm_append_compact_opts o2 = {100, 300, 5, 5, 100000, 0, 0.2};
    int64_t s[] = {250, 10};
    ct_fake f;
    ct_fake_init(&f, s, NULL, 2);
    pm_append_compact_plan p;
    CHECK_OK(pm_append_compact_plan_unaware(NULL, &f.live, NULL, &o2, &p, &err), &err);
    /* sorted: 10 (15), 250 (270 >= 200, 2 files) -> one task */
    CHECK_EQ_INT(p.n_tasks, 1);
    if (p.n_tasks == 1) CHECK_EQ_STR(ct_task_names(&p.tasks[0], buf, sizeof buf), "f0,f1");
    pm_append_compact_plan_free(&p);
    ct_fake_free(&f);
  }
  /* 5. partitions plan apart: partition 1 has 5 files (task), partition 0 has 3 (none);
   * file-num-limit 7 counts candidates in list order: the 8th (partition 1) is not seen */
  {
    pm_append_compact_opts o3 = {100, 70, 5, 5, 7, 0, 0.2};
    int64_t s[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    int parts[] = {1, 0, 1, 1, 0, 1, 1, 1, 0};
    ct_fake f;
    ct_fake_init(&f, s, parts, 9);
    pm_append_compact_plan p;
    CHECK_OK(pm_append_compact_plan_unaware(NULL, &f.live, NULL, &o3, &p, &err), &err);
    CHECK_EQ_INT(p.n_tasks, 1);
    if (p.n_tasks == 1) CHECK_EQ_STR(ct_task_names(&p.tasks[0], buf, sizeof buf), "f0,f2,f3,f5,f6");
    o3.file_num_limit = 100;
    pm_append_compact_plan_free(&p);
    CHECK_OK(pm_append_compact_plan_unaware(NULL, &f.live, NULL, &o3, &p, &err), &err);
    CHECK_EQ_INT(p.n_tasks, 1);
    if (p.n_tasks == 1) CHECK_EQ_STR(ct_task_names(&p.tasks[0], buf, sizeof buf), "f0,f2,f3,f5,f6,f7");
    pm_append_compact_plan_free(&p);
    ct_fake_free(&f);
  }
}

/* ------------------------------------------------------------ tables */

/* A partitioned table: p=a gets 12 small files, p=b 3. */
static void test_compact_table(void) {
  paimon_catalog *cat = open_catalog();
  paimon_table *t = ct_append_table(cat, "many", "p", NULL, 0);
  json_t *before = json_array(); /* the rows written: the model */
  for (int i = 0; i < 12; i++) ct_append(t, i * 50, i * 50 + 50, "a", before);
  for (int i = 0; i < 3; i++) ct_append(t, 1000 + i * 10, 1000 + i * 10 + 10, "b", before);
  const char *dir = table_dir("many");
  CHECK_EQ_INT(json_array_size(before), 630);
  ct_layout l0 = ct_files_in(dir, NULL, -1);
  CHECK_EQ_INT(l0.files, 15);
  paimon_compact_metrics mt;
  int64_t snap = -1;
  paimon_error err = {0};
  CHECK_OK(ct_compact(t, NULL, 0, -1, 0, &mt, &snap, &err), &err);
  ct_layout l1 = ct_files_in(dir, NULL, -1), la = ct_files_in(dir, "a", -1), lb = ct_files_in(dir, "b", -1);
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
  ct_check_rows(t, dir, before, 1, "after compacting p=a");
  /* nothing left to compact: no snapshot */
  snap = -1;
  CHECK_OK(ct_compact(t, NULL, 0, -1, 0, &mt, &snap, &err), &err);
  CHECK_EQ_INT(snap, -1);
  CHECK_EQ_INT(mt.tasks, 0);
  CHECK_EQ_INT(ct_files_in(dir, NULL, -1).latest_id, l1.latest_id);
  /* two more files in p=b (5 now) and 5 in p=a: a spec p=b compacts only p=b */
  for (int i = 0; i < 2; i++) ct_append(t, 2000 + i * 10, 2000 + i * 10 + 10, "b", before);
  for (int i = 0; i < 5; i++) ct_append(t, 3000 + i * 10, 3000 + i * 10 + 10, "a", before);
  paimon_option spec[] = {{"p", "b"}};
  CHECK_OK(ct_compact(t, spec, 1, -1, 0, &mt, &snap, &err), &err);
  CHECK_EQ_INT(mt.tasks, 1);
  CHECK_EQ_INT(mt.files_removed, 5);
  CHECK_EQ_INT(ct_files_in(dir, "b", -1).files, 1);
  CHECK_EQ_INT(ct_files_in(dir, "a", -1).files, 6);
  ct_check_rows(t, dir, before, 0, "after compacting p=b");
  /* then everything: p=a has its compacted file + 5 small ones = 6 small files */
  CHECK_OK(ct_compact(t, NULL, 0, -1, 0, &mt, &snap, &err), &err);
  CHECK_EQ_INT(mt.tasks, 1);
  CHECK_EQ_INT(mt.files_removed, 6);
  CHECK_EQ_INT(ct_files_in(dir, "a", -1).files, 1);
  ct_check_rows(t, dir, before, 1, "after compacting all");
  json_decref(before);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* The compaction API (paimon/compact.h): a partition predicate (the read
 * filter format), several specs (OR), the progress callback, the commit user,
 * a predicate on a non-partition column refused before anything is written. */
typedef struct progress_log {
  int compacting, committing;
  uint64_t last_done, last_total;
} progress_log;

static void log_progress(void *ctx, const char *phase, uint64_t done, uint64_t total) {
  progress_log *l = ctx;
  if (!strcmp(phase, "compacting")) {
    l->compacting++;
    l->last_done = done;
    l->last_total = total;
  } else if (!strcmp(phase, "committing")) {
    l->committing++;
  }
}

static void test_api(void) {
  paimon_catalog *cat = open_catalog();
  paimon_table *t = ct_append_table(cat, "api", "p", NULL, 0);
  json_t *before = json_array();
  const char *parts[] = {"a", "b", "c"};
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < 5; i++) ct_append(t, k * 1000 + i * 10, k * 1000 + i * 10 + 10, parts[k], before);
  const char *dir = table_dir("api");
  paimon_error err = {0};
  paimon_read_builder *rb = NULL;
  CHECK_OK(paimon_read_builder_new(t, NULL, 0, &rb, &err), &err);
  /* a non-partition column: refused, nothing written */
  paimon_predicate *bad = NULL;
  CHECK_OK(paimon_predicate_parse(rb, "id > 3", &bad, &err), &err);
  paimon_compact_options o;
  paimon_compact_options_init(&o);
  o.partition_filter = bad;
  paimon_compact_result r;
  int64_t latest = ct_files_in(dir, NULL, -1).latest_id;
  CHECK_EQ_INT(paimon_table_compact(t, &o, &r, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(err.message, "partition columns only") != NULL, "%s", err.message);
  CHECK_EQ_INT(r.snapshot_id, -1);
  CHECK_EQ_INT(ct_files_in(dir, NULL, -1).latest_id, latest);
  paimon_predicate_free(bad);
  /* p <> 'a' and spec p=b or p=a: only p=b */
  paimon_predicate *f = NULL;
  CHECK_OK(paimon_predicate_parse(rb, "p <> 'a'", &f, &err), &err);
  paimon_option sa[] = {{"p", "a"}}, sb[] = {{"p", "b"}};
  paimon_partition_spec specs[] = {{sa, 1}, {sb, 1}};
  progress_log log;
  memset(&log, 0, sizeof log);
  paimon_compact_options_init(&o);
  o.partition_filter = f;
  o.partitions = specs;
  o.n_partitions = 2;
  o.commit_user = "nightly";
  o.progress = log_progress;
  o.ctx = &log;
  CHECK_OK(paimon_table_compact(t, &o, &r, &err), &err);
  CHECK_EQ_INT(r.snapshot_id, latest + 1);
  CHECK_EQ_INT(r.metrics.tasks, 1);
  CHECK_EQ_INT(r.metrics.files_removed, 5);
  CHECK_EQ_INT(r.metrics.rows_written, 50);
  CHECK_EQ_INT(ct_files_in(dir, "a", -1).files, 5);
  CHECK_EQ_INT(ct_files_in(dir, "b", -1).files, 1);
  CHECK_EQ_INT(ct_files_in(dir, "c", -1).files, 5);
  CHECK_EQ_INT(log.compacting, 1);
  CHECK_EQ_INT(log.last_done, 1);
  CHECK_EQ_INT(log.last_total, 1);
  CHECK_EQ_INT(log.committing, 2);
  pm_error e;
  pm_table *pt = NULL;
  CHECK_OK(pm_table_open_path(dir, NULL, NULL, NULL, NULL, NULL, &pt, &e), &e);
  pm_snapshot_manager sm = pm_table_snapshots(pt);
  pm_snapshot *snap = NULL;
  CHECK_OK(pm_snapshot_read_latest_checked(&sm, &snap, &e), &e);
  CHECK_MSG(snap && snap->commit_user && !strncmp(snap->commit_user, "nightly-compact-", 16), "user %s",
            snap && snap->commit_user ? snap->commit_user : "?");
  pm_snapshot_free(snap);
  pm_table_free(pt);
  paimon_predicate_free(f);
  /* everything else with the default options (o = NULL) */
  CHECK_OK(paimon_table_compact(t, NULL, &r, &err), &err);
  CHECK_EQ_INT(r.metrics.tasks, 2);
  CHECK_EQ_INT(ct_files_in(dir, NULL, -1).files, 3);
  ct_check_rows(t, dir, before, 1, "compaction API");
  paimon_read_builder_free(rb);
  json_decref(before);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* Rolling at target-file-size: 20 files, a small target; the output rolls into
 * several files (fewer than the input), every row kept. */
static void test_rolling(void) {
  paimon_catalog *cat = open_catalog();
  const char *opts[] = {"target-file-size=16kb", "source.split.open-file-cost=1b", "compaction.min.file-num=2"};
  paimon_table *t = ct_append_table(cat, "roll", NULL, opts, 3);
  json_t *before = json_array();
  for (int i = 0; i < 20; i++) ct_append(t, i * 200, i * 200 + 200, "x", before);
  const char *dir = table_dir("roll");
  ct_layout l0 = ct_files_in(dir, NULL, -1);
  CHECK_EQ_INT(l0.files, 20);
  paimon_compact_metrics mt;
  paimon_error err = {0};
  CHECK_OK(ct_compact(t, NULL, 0, -1, 0, &mt, NULL, &err), &err);
  ct_layout l1 = ct_files_in(dir, NULL, -1);
  CHECK_MSG(l1.files < 20 && l1.files >= 2, "files after: %d (tasks %lld, added %lld)", l1.files,
            (long long)mt.tasks, (long long)mt.files_added);
  CHECK_EQ_INT(l1.rows, 4000);
  CHECK_EQ_INT(mt.rows_written, mt.files_removed * 200);
  ct_check_rows(t, dir, before, 1, "after a rolling compaction");
  json_decref(before);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* A compaction prepared, then an overwrite of its partition commits first: the
 * compaction's commit is CONFLICT, publishes nothing, and its aborted files go. */
static void test_race_overwrite(void) {
  paimon_catalog *cat = open_catalog();
  paimon_table *t = ct_append_table(cat, "race", "p", NULL, 0);
  for (int i = 0; i < 6; i++) ct_append(t, i * 10, i * 10 + 10, "a", NULL);
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
  char *r = ct_rows(500, 505, "a");
  paimon_option ow[] = {{"p", "a"}};
  CHECK_OK(ow_write_commit(t, NULL, 0, 0, r, ow, 1, 1, NULL, &err), &err);
  json_t *after_ow = ot_parse_lines(r, NULL);
  free(r);
  CHECK_EQ_INT(json_array_size(after_ow), 5);
  int64_t latest = ct_files_in(dir, NULL, -1).latest_id;
  CHECK_OK(paimon_write_builder_new_commit(wb, &c, &err), &err);
  int rc = paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, NULL, &err);
  CHECK_MSG(rc == PAIMON_ERR_CONFLICT, "%d %s", rc, err.message);
  CHECK_EQ_INT(ct_files_in(dir, NULL, -1).latest_id, latest);
  paimon_error e2 = {0};
  CHECK_OK(paimon_table_commit_abort(c, m, &e2), &e2);
  ct_check_rows(t, dir, after_ow, 1, "compaction lost to an overwrite");
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
  paimon_table *t = ct_append_table(cat, "dropped", NULL, NULL, 0);
  json_t *before = json_array();
  for (int i = 0; i < 5; i++) ct_append(t, i * 10, i * 10 + 10, "z", before);
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
  ct_check_rows(t, dir, before, 0, "compaction never committed");
  json_decref(before);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

int main(void) {
  snprintf(wh, sizeof wh, "/tmp/pm_append_compact_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  RUN_TEST(test_plan);
  if (ot_available()) {
    RUN_TEST(test_compact_table);
    RUN_TEST(test_rolling);
    RUN_TEST(test_api);
    RUN_TEST(test_race_overwrite);
    RUN_TEST(test_free_deletes);
  }
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && system(cmd)) return 1;
  TEST_MAIN_END();
}
