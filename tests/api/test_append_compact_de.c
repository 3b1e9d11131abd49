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

typedef struct fixture {
  char wh[512], dir[1200], ident[300];
  paimon_catalog *cat;
  paimon_table *t;
} fixture;

static int open_fixture(fixture *f, const char *name, const char *pkeys, const char *const *opts, size_t n_opts) {
  memset(f, 0, sizeof *f);
  snprintf(f->wh, sizeof f->wh, "%s/%s", tmp_root, name);
  snprintf(f->dir, sizeof f->dir, "%s/db.db/%s", f->wh, name);
  snprintf(f->ident, sizeof f->ident, "db.%s", name);
  char cmd[700];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", f->wh);
  CHECK(system(cmd) == 0);
  paimon_option wo = {"warehouse", f->wh};
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_open(&wo, 1, &f->cat, &err), &err);
  if (!f->cat) return 0;
  CHECK_OK(ow_create_table(f->cat, "db", name, "id INT, name STRING, score INT, p STRING", pkeys, opts, n_opts, 0,
                           &err),
           &err);
  CHECK_OK(paimon_catalog_get_table(f->cat, f->ident, &f->t, &err), &err);
  return f->t != NULL;
}

static void refresh(fixture *f) {
  paimon_error err = {0};
  paimon_table_free(f->t);
  f->t = NULL;
  CHECK_OK(paimon_catalog_get_table(f->cat, f->ident, &f->t, &err), &err);
}

static void close_fixture(fixture *f) {
  paimon_table_free(f->t);
  paimon_catalog_free(f->cat);
}

/* model: rows in id order (id = index) */
static void append_rows(fixture *f, json_t *model, int n, const char *part) {
  char *lines = malloc(128 * (size_t)n + 1);
  size_t len = 0;
  lines[0] = 0;
  for (int i = 0; i < n; i++) {
    int id = (int)json_array_size(model);
    json_t *o = json_pack("{s:i, s:s+, s:i, s:s}", "id", id, "name", "n", "", "score", id * 10, "p", part);
    char nm[32];
    snprintf(nm, sizeof nm, "n%d", id);
    json_object_set_new(o, "name", json_string(nm));
    char *s = json_dumps(o, JSON_COMPACT);
    len += (size_t)snprintf(lines + len, 128 * (size_t)n + 1 - len, "%s\n", s);
    free(s);
    json_array_append_new(model, o);
  }
  paimon_error err = {0};
  CHECK_OK(ow_write_commit(f->t, NULL, 0, 0, lines, NULL, 0, 0, NULL, &err), &err);
  free(lines);
  refresh(f);
}

/* id -> [_ROW_ID, _SEQUENCE_NUMBER] by our reader, as an array indexed by id. */
static json_t *row_ids(fixture *f) {
  paimon_error err = {0};
  paimon_read_builder *rb = NULL;
  paimon_plan *plan = NULL;
  struct ArrowArrayStream st = {0};
  const char *cols[3] = {"id", "_ROW_ID", "_SEQUENCE_NUMBER"};
  CHECK_OK(paimon_read_builder_new(f->t, NULL, 0, &rb, &err), &err);
  CHECK_OK(paimon_read_builder_with_projection(rb, cols, 3, &err), &err);
  CHECK_OK(paimon_read_builder_plan(rb, &plan, &err), &err);
  CHECK_OK(paimon_read_plan(rb, plan, &st, &err), &err);
  json_t *out = json_array();
  for (;;) {
    struct ArrowArray a;
    if (!st.release || st.get_next(&st, &a) || !a.release) break;
    const int32_t *ids = a.children[0]->buffers[1];
    const int64_t *rid = a.children[1]->buffers[1], *seq = a.children[2]->buffers[1];
    for (int64_t r = 0; r < a.length; r++) {
      size_t id = (size_t)ids[a.children[0]->offset + r];
      while (json_array_size(out) <= id) json_array_append_new(out, json_null());
      json_array_set_new(out, id,
                         json_pack("[I,I]", (json_int_t)rid[a.children[1]->offset + r],
                                   (json_int_t)seq[a.children[2]->offset + r]));
    }
    a.release(&a);
  }
  if (st.release) st.release(&st);
  paimon_plan_free(plan);
  paimon_read_builder_free(rb);
  return out;
}

static void verify_with(fixture *f, const json_t *model, const char *what, int oracle) {
  ct_check_rows(f->t, f->dir, model, oracle, what);
}

static void verify(fixture *f, const json_t *model, const char *what) { verify_with(f, model, what, 1); }

/* Sets column col ("name" or "score") of the rows ids[0, n) to values tagged `tag`; into the model. */
static void update(fixture *f, json_t *model, const char *col, const int64_t *row_ids_of, const int *ids, size_t n,
                   int tag) {
  int score = !strcmp(col, "score");
  char fields[96];
  snprintf(fields, sizeof fields, "_ROW_ID BIGINT NOT NULL, %s %s", col, score ? "INT" : "STRING");
  char lines[4096];
  size_t len = 0;
  for (size_t i = 0; i < n; i++) {
    json_t *row = json_array_get(model, (size_t)ids[i]);
    json_t *v;
    if (score) v = json_integer(tag * 1000 + ids[i]);
    else {
      char s[48];
      snprintf(s, sizeof s, "u%d-%d", tag, ids[i]);
      v = json_string(s);
    }
    json_object_set(row, col, v);
    char *vs = json_dumps(v, JSON_ENCODE_ANY);
    len += (size_t)snprintf(lines + len, sizeof lines - len, "{\"_ROW_ID\":%lld,\"%s\":%s}\n",
                            (long long)row_ids_of[ids[i]], col, vs);
    free(vs);
    json_decref(v);
  }
  paimon_error err = {0};
  const char *cols[1] = {col};
  CHECK_OK(ru_update_commit(f->t, 0, 0, cols, 1, fields, lines, NULL, &err), &err);
  refresh(f);
}

static int64_t *ids_to_row_ids(const json_t *ids) {
  size_t n = json_array_size(ids);
  int64_t *out = calloc(n + 1, sizeof *out);
  for (size_t i = 0; i < n; i++) out[i] = json_integer_value(json_array_get(json_array_get(ids, i), 0));
  return out;
}

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

/* Row ids unchanged; sequence numbers: every row seq_all (>= 0), else not compared. */
static void check_ids(const json_t *before, const json_t *after, int64_t seq_all, const char *what) {
  CHECK_EQ_INT(json_array_size(after), json_array_size(before));
  int bad = 0;
  for (size_t i = 0; i < json_array_size(before); i++) {
    json_t *b = json_array_get(before, i), *a = json_array_get(after, i);
    json_int_t rb = json_integer_value(json_array_get(b, 0)), ra = json_integer_value(json_array_get(a, 0));
    json_int_t sa = json_integer_value(json_array_get(a, 1)), sb = json_integer_value(json_array_get(b, 1));
    if (ra != rb || (seq_all >= 0 && sa != seq_all)) {
      if (!bad++)
        CHECK_MSG(0, "%s: id %zu: _ROW_ID %lld -> %lld, _SEQUENCE_NUMBER %lld -> %lld (want %lld)", what, i,
                  (long long)rb, (long long)ra, (long long)sb, (long long)sa, (long long)seq_all);
    }
  }
}

static const char *const DE_OPTS[] = {"row-tracking.enabled=true", "data-evolution.enabled=true"};

static void test_unpartitioned(void) {
  fixture f;
  if (!open_fixture(&f, "u", NULL, DE_OPTS, 2)) return;
  json_t *model = json_array();
  for (int i = 0; i < 3; i++) append_rows(&f, model, 10, "x"); /* snapshots 1..3, rows 0..29 */
  json_t *ids0 = row_ids(&f);
  int64_t *rid = ids_to_row_ids(ids0);
  int a[] = {1, 5, 12, 25}, b[] = {2, 13, 14}, c[] = {3, 22};
  update(&f, model, "name", rid, a, 4, 1);  /* snapshot 4: files for [0,10) [10,20) [20,30) */
  update(&f, model, "score", rid, b, 3, 2); /* snapshot 5: [0,10) [10,20) */
  update(&f, model, "name", rid, c, 2, 3);  /* snapshot 6: [0,10) [20,30) */
  verify(&f, model, "u: before compaction");
  json_t *before = row_ids(&f);
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
  refresh(&f);
  l = ct_files_in(f.dir, NULL, -1);
  CHECK_EQ_INT(l.files, 1);
  CHECK_EQ_INT(l.rows, 30);
  CHECK_EQ_INT(l.compact_source, 1);
  CHECK(!strcmp(l.latest_kind, "COMPACT"));
  verify(&f, model, "u: after compaction");
  json_t *after = row_ids(&f);
  check_ids(before, after, 6, "u: compaction");
  /* an update of the compacted range covers the whole new file; then nothing to compact (2 files) */
  int d[] = {7, 29};
  update(&f, model, "score", rid, d, 2, 4); /* snapshot 8 */
  verify_with(&f, model, "u: update after compaction", 0);
  CHECK_OK(compact(&f, &r, &err), &err);
  CHECK_EQ_INT(r.snapshot_id, -1);
  CHECK_EQ_INT(r.metrics.tasks, 0);
  /* three more appends make a continuous run of 5 files: one task over rows 0..59 */
  for (int i = 0; i < 3; i++) append_rows(&f, model, 10, "x"); /* snapshots 9..11 */
  json_t *ids1 = row_ids(&f);
  CHECK_OK(compact(&f, &r, &err), &err);
  CHECK_EQ_INT(r.snapshot_id, 12);
  CHECK_EQ_INT(r.metrics.tasks, 1);
  CHECK_EQ_INT(r.metrics.files_removed, 5);
  CHECK_EQ_INT(r.metrics.rows_written, 60);
  refresh(&f);
  verify(&f, model, "u: second compaction");
  json_t *ids2 = row_ids(&f);
  check_ids(ids1, ids2, 11, "u: second compaction");
  char files[512]; /* both compactions' files (manifests of every snapshot) */
  compact_files(&f, files, sizeof files);
  CHECK_MSG(strstr(files, "0+30:1-6:all;") && strstr(files, "0+60:1-11:all;") && strlen(files) == 27,
            "u: compact files %s", files);
  l = ct_files_in(f.dir, NULL, -1);
  CHECK_EQ_INT(l.files, 1);
  json_decref(ids0);
  json_decref(ids1);
  json_decref(ids2);
  json_decref(before);
  json_decref(after);
  free(rid);
  json_decref(model);
  close_fixture(&f);
}

static void test_partitioned(void) {
  static const char *const opts[] = {"row-tracking.enabled=true", "data-evolution.enabled=true",
                                     "compaction.min.file-num=2"};
  fixture f;
  if (!open_fixture(&f, "p", "p", opts, 3)) return;
  json_t *model = json_array();
  append_rows(&f, model, 8, "a"); /* rows 0..7 */
  append_rows(&f, model, 6, "b"); /* 8..13 */
  append_rows(&f, model, 5, "a"); /* 14..18: not continuous with 0..7 */
  append_rows(&f, model, 4, "a"); /* 19..22: continuous with 14..18 */
  json_t *ids0 = row_ids(&f);
  int64_t *rid = ids_to_row_ids(ids0);
  int a[] = {0, 9, 15}, b[] = {3, 20};
  update(&f, model, "name", rid, a, 3, 1);
  update(&f, model, "score", rid, b, 2, 2);
  verify(&f, model, "p: before compaction");
  json_t *before = row_ids(&f);
  paimon_compact_result r;
  paimon_error err = {0};
  CHECK_OK(compact(&f, &r, &err), &err);
  /* a: [0,8) base + 2 updates, [14,23) 2 bases + 2 updates; b: [8,14) base + 1 update */
  CHECK_EQ_INT(r.metrics.tasks, 3);
  CHECK_EQ_INT(r.metrics.files_removed, 9);
  CHECK_EQ_INT(r.metrics.files_added, 3);
  CHECK_EQ_INT(r.metrics.rows_written, 23);
  refresh(&f);
  verify(&f, model, "p: after compaction");
  json_t *after = row_ids(&f);
  check_ids(before, after, -1, "p: row ids");
  char files[512];
  compact_files(&f, files, sizeof files);
  CHECK_MSG(strstr(files, "0+8:1-6:all;") && strstr(files, "8+6:2-5:all;") && strstr(files, "14+9:3-6:all;"),
            "p: compact files %s", files);
  json_decref(ids0);
  json_decref(before);
  json_decref(after);
  free(rid);
  json_decref(model);
  close_fixture(&f);
}

static void test_refused(void) {
  static const char *const opts[] = {"row-tracking.enabled=true"};
  fixture f;
  if (!open_fixture(&f, "rt", NULL, opts, 1)) return;
  json_t *model = json_array();
  for (int i = 0; i < 6; i++) append_rows(&f, model, 3, "x");
  paimon_compact_result r;
  paimon_error err = {0};
  CHECK_EQ_INT(compact(&f, &r, &err), PAIMON_ERR_UNSUPPORTED);
  CHECK_MSG(strstr(err.message, "row-tracking.enabled") != NULL, "%s", err.message);
  CHECK_EQ_INT(ct_files_in(f.dir, NULL, -1).latest_id, 6);
  json_decref(model);
  close_fixture(&f);
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
