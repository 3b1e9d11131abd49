/*
 * Data-evolution compaction (issue 13 §1; Java's DataEvolutionCompactCoordinator /
 * DataEvolutionNormalCompactTask; append_compact.h):
 *   - the plan on made-up files: continuous row-id runs, groups of one range, bins over
 *     target-file-size, a heavy group alone, compaction.min.file-num, open-file-cost, a group
 *     of different ranges refused;
 *   - tables we write (appends + update by _ROW_ID of several column sets): paimon_table_compact
 *     merges each run's base and column files into one file; before and after, our reader and
 *     `paimon-table read` return the model and `paimon-table check` passes; every row keeps its
 *     _ROW_ID (id -> _ROW_ID read before and after) and gets the inputs' max sequence number;
 *     the manifest (avro-dump) lists the new file with _FIRST_ROW_ID = the run's first, its row
 *     count, _FILE_SOURCE COMPACT, _WRITE_COLS null, min / max sequence of the inputs; metrics
 *     count tasks, files and rows; updates after compaction and a second compaction work;
 *   - partitioned, row ids interleaved between partitions: one task per continuous run;
 *   - refusals: row tracking without data evolution.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "paimon/compact.h"
#include "support/compact_table.h"
#include "support/oracle_table.h"
#include "support/oracle_write.h"
#include "support/rowid_update.h"
#include "support/de_table.h"

static char tmp_root[256];

/* ------------------------------------------------------------ the plan */

typedef struct fake_file {
  int64_t first, rows, size;
  int part;
} fake_file;

static void fake_de(ct_fake *f, const fake_file *ff, size_t n) {
  int64_t sizes[32];
  int parts[32];
  for (size_t i = 0; i < n; i++) sizes[i] = ff[i].size, parts[i] = ff[i].part;
  ct_fake_init(f, sizes, parts, n);
  for (size_t i = 0; i < n; i++) {
    pm_data_file_meta *m = &f->live.items[i].file;
    m->first_row_id = ff[i].first;
    m->has_first_row_id = 1;
    m->row_count = ff[i].rows;
  }
}

static void plan_of(const fake_file *ff, size_t n, int64_t target, int64_t open_cost, int64_t min_files,
                    const char *want, int want_rc) {
  ct_fake f;
  fake_de(&f, ff, n);
  pm_append_compact_opts o;
  memset(&o, 0, sizeof o);
  o.target_file_size = target;
  o.open_file_cost = open_cost;
  o.min_file_num = min_files;
  pm_append_compact_plan p;
  pm_error err;
  pm_error_clear(&err);
  int rc = pm_append_compact_plan_de(NULL, &f.live, NULL, &o, &p, &err);
  CHECK_MSG(rc == want_rc, "plan: status %d (%s), want %d", rc, err.message, want_rc);
  if (!rc) {
    char got[512] = "", buf[256];
    for (size_t i = 0; i < p.n_tasks; i++) {
      if (i) strcat(got, " | ");
      strcat(got, ct_task_names(&p.tasks[i], buf, sizeof buf));
    }
    CHECK_MSG(!strcmp(got, want), "plan: got '%s', want '%s'", got, want);
    pm_append_compact_plan_free(&p);
  }
  ct_fake_free(&f);
}

static void test_plan(void) {
  /* groups [0,10) f0 f1 f4, [10,20) f2 f5, [20,30) f3; a gap; [40,50) f6 f7 */
  fake_file a[] = {{0, 10, 100, 0},  {0, 10, 50, 0},  {10, 10, 100, 0}, {20, 10, 100, 0},
                   {0, 10, 50, 0},   {10, 10, 50, 0}, {40, 10, 100, 0}, {40, 10, 60, 0}};
  plan_of(a, 8, 1000, 0, 2, "f0,f1,f4,f2,f5,f3 | f6,f7", 0);
  plan_of(a, 8, 1000, 0, 3, "f0,f1,f4,f2,f5,f3", 0); /* the second run has 2 files */
  /* bins end once heavier than the target: 250 (group 0), +150 = 400 > 300 */
  plan_of(a, 8, 300, 0, 2, "f0,f1,f4,f2,f5 | f6,f7", 0); /* f3 alone: 1 file */
  /* a group heavier than the target ends the bin and is its own */
  fake_file b[] = {{0, 5, 10, 0}, {0, 5, 10, 0}, {5, 5, 400, 0}, {5, 5, 400, 0}, {10, 5, 10, 0}, {10, 5, 10, 0}};
  plan_of(b, 6, 500, 0, 2, "f0,f1 | f2,f3 | f4,f5", 0);
  /* open-file-cost weighs small files: 6 x 200 */
  plan_of(b, 6, 500, 200, 2, "f0,f1 | f2,f3 | f4,f5", 0);
  plan_of(b, 6, 1000, 200, 2, "f0,f1,f2,f3 | f4,f5", 0);
  /* partitions apart, in order of first appearance; adjacent ranges of one partition join */
  fake_file c[] = {{0, 10, 10, 1}, {20, 10, 10, 0}, {10, 10, 10, 1}, {30, 10, 10, 0}, {0, 10, 10, 1}};
  plan_of(c, 5, 1000, 0, 2, "f0,f4,f2 | f1,f3", 0);
  /* rows of another partition in between: no run */
  fake_file c2[] = {{0, 10, 10, 1}, {10, 10, 10, 0}, {20, 10, 10, 1}, {30, 10, 10, 0}, {0, 10, 10, 1}};
  plan_of(c2, 5, 1000, 0, 2, "f0,f4", 0);
  /* overlapping files of different ranges */
  fake_file d[] = {{0, 10, 10, 0}, {5, 10, 10, 0}};
  plan_of(d, 2, 1000, 0, 1, "", PAIMON_ERR_CORRUPT);
}

/* ------------------------------------------------------------ tables */

typedef de_fixture fixture;

static void verify_with(fixture *f, const json_t *model, const char *what, int oracle) {
  ct_check_rows(f->t, f->dir, model, oracle, what);
}

static void verify(fixture *f, const json_t *model, const char *what) { verify_with(f, model, what, 1); }

static paimon_status compact(fixture *f, paimon_compact_result *r, paimon_error *err) {
  paimon_compact_options o;
  paimon_compact_options_init(&o);
  return paimon_table_compact(f->t, &o, r, err);
}

/* The manifest entries (avro-dump) of files with source COMPACT, as "first+rows:seqmin-seqmax:cols;" */
static void compact_files(fixture *f, char *out, size_t cap) {
  char cmd[1600], *text = NULL;
  snprintf(cmd, sizeof cmd,
           "for m in '%s'/manifest/manifest-[0-9a-f]*; do case $m in *manifest-list*) ;; *) %s/tools/avro-dump \"$m\" "
           "--records;; esac; done",
           f->dir, PAIMON_SHARED_DIR);
  CHECK(ot_shell(cmd, &text) == 0);
  json_t *entries = ot_parse_lines(text ? text : "", NULL);
  size_t i, len = 0;
  json_t *e;
  out[0] = 0;
  json_array_foreach(entries, i, e) {
    json_t *file = json_object_get(e, "_FILE");
    if (json_integer_value(json_object_get(e, "_KIND")) != 0 ||
        json_integer_value(json_object_get(file, "_FILE_SOURCE")) != 1)
      continue;
    len += (size_t)snprintf(out + len, cap - len, "%lld+%lld:%lld-%lld:%s;",
                            (long long)json_integer_value(json_object_get(file, "_FIRST_ROW_ID")),
                            (long long)json_integer_value(json_object_get(file, "_ROW_COUNT")),
                            (long long)json_integer_value(json_object_get(file, "_MIN_SEQUENCE_NUMBER")),
                            (long long)json_integer_value(json_object_get(file, "_MAX_SEQUENCE_NUMBER")),
                            json_is_null(json_object_get(file, "_WRITE_COLS")) ? "all" : "some");
  }
  json_decref(entries);
  free(text);
}

static void test_unpartitioned(void) {
  fixture f;
  json_t *model = json_array();
  int64_t *rid = NULL;
  if (!de_build_u(&f, tmp_root, model, &rid)) {
    json_decref(model);
    return;
  }
  verify(&f, model, "u: before compaction");
  json_t *before = de_row_ids(&f);
  ct_layout l = ct_files_in(f.dir, NULL, -1);
  CHECK_EQ_INT(l.files, 10);
  paimon_compact_result r;
  paimon_error err = {0};
  CHECK_OK(compact(&f, &r, &err), &err);
  CHECK_EQ_INT(r.snapshot_id, 7);
  CHECK_EQ_INT(r.metrics.tasks, 1);
  CHECK_EQ_INT(r.metrics.files_removed, 10);
  CHECK_EQ_INT(r.metrics.files_added, 1);
  CHECK_EQ_INT(r.metrics.rows_written, 30);
  de_refresh(&f);
  l = ct_files_in(f.dir, NULL, -1);
  CHECK_EQ_INT(l.files, 1);
  CHECK_EQ_INT(l.rows, 30);
  CHECK_EQ_INT(l.compact_source, 1);
  CHECK(!strcmp(l.latest_kind, "COMPACT"));
  verify(&f, model, "u: after compaction");
  json_t *after = de_row_ids(&f);
  de_check_ids(before, after, 6, "u: compaction");
  /* an update of the compacted range covers the whole new file; then nothing to compact (2 files) */
  int d[] = {7, 29};
  de_update(&f, model, "score", rid, d, 2, 4); /* snapshot 8 */
  verify_with(&f, model, "u: update after compaction", 0);
  CHECK_OK(compact(&f, &r, &err), &err);
  CHECK_EQ_INT(r.snapshot_id, -1);
  CHECK_EQ_INT(r.metrics.tasks, 0);
  /* three more appends make a continuous run of 5 files: one task over rows 0..59 */
  for (int i = 0; i < 3; i++) de_append_rows(&f, model, 10, "x"); /* snapshots 9..11 */
  json_t *ids1 = de_row_ids(&f);
  CHECK_OK(compact(&f, &r, &err), &err);
  CHECK_EQ_INT(r.snapshot_id, 12);
  CHECK_EQ_INT(r.metrics.tasks, 1);
  CHECK_EQ_INT(r.metrics.files_removed, 5);
  CHECK_EQ_INT(r.metrics.rows_written, 60);
  de_refresh(&f);
  verify(&f, model, "u: second compaction");
  json_t *ids2 = de_row_ids(&f);
  de_check_ids(ids1, ids2, 11, "u: second compaction");
  char files[512]; /* both compactions' files (manifests of every snapshot) */
  compact_files(&f, files, sizeof files);
  CHECK_MSG(strstr(files, "0+30:1-6:all;") && strstr(files, "0+60:1-11:all;") && strlen(files) == 27,
            "u: compact files %s", files);
  l = ct_files_in(f.dir, NULL, -1);
  CHECK_EQ_INT(l.files, 1);
  json_decref(ids1);
  json_decref(ids2);
  json_decref(before);
  json_decref(after);
  free(rid);
  json_decref(model);
  de_close(&f);
}

static void test_partitioned(void) {
  fixture f;
  json_t *model = json_array();
  int64_t *rid = NULL;
  if (!de_build_p(&f, tmp_root, model, &rid)) {
    json_decref(model);
    return;
  }
  verify(&f, model, "p: before compaction");
  json_t *before = de_row_ids(&f);
  paimon_compact_result r;
  paimon_error err = {0};
  CHECK_OK(compact(&f, &r, &err), &err);
  /* a: [0,8) base + 2 updates, [14,23) 2 bases + 2 updates; b: [8,14) base + 1 update */
  CHECK_EQ_INT(r.metrics.tasks, 3);
  CHECK_EQ_INT(r.metrics.files_removed, 9);
  CHECK_EQ_INT(r.metrics.files_added, 3);
  CHECK_EQ_INT(r.metrics.rows_written, 23);
  de_refresh(&f);
  verify(&f, model, "p: after compaction");
  json_t *after = de_row_ids(&f);
  de_check_ids(before, after, -1, "p: row ids");
  char files[512];
  compact_files(&f, files, sizeof files);
  CHECK_MSG(strstr(files, "0+8:1-6:all;") && strstr(files, "8+6:2-5:all;") && strstr(files, "14+9:3-6:all;"),
            "p: compact files %s", files);
  json_decref(before);
  json_decref(after);
  free(rid);
  json_decref(model);
  de_close(&f);
}

static void test_refused(void) {
  static const char *const opts[] = {"row-tracking.enabled=true"};
  fixture f;
  if (!de_open(&f, tmp_root, "rt", NULL, opts, 1)) return;
  json_t *model = json_array();
  for (int i = 0; i < 6; i++) de_append_rows(&f, model, 3, "x");
  paimon_compact_result r;
  paimon_error err = {0};
  CHECK_EQ_INT(compact(&f, &r, &err), PAIMON_ERR_UNSUPPORTED);
  CHECK_MSG(strstr(err.message, "row-tracking.enabled") != NULL, "%s", err.message);
  CHECK_EQ_INT(ct_files_in(f.dir, NULL, -1).latest_id, 6);
  json_decref(model);
  de_close(&f);
}

int main(void) {
  test_plan();
  if (!ot_available()) TEST_MAIN_END(); /* the oracle judges the tables */
  snprintf(tmp_root, sizeof tmp_root, "/tmp/pm_compact_de_XXXXXX");
  if (!mkdtemp(tmp_root)) return 1;
  test_unpartitioned();
  test_partitioned();
  test_refused();
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (!pm_test_failures && !getenv("PM_KEEP") && system(cmd)) return 1;
  TEST_MAIN_END();
}
