/*
 * Compaction of primary-key tables (issue 12 §2-3; SEMANTICS 3.3-3.5, 3.7,
 * 7.6) through the public write API: the writer compacts by itself after
 * flushes (num-sorted-run.compaction-trigger), paimon_table_write_compact
 * runs a full compaction, full-compaction.delta-commits compacts at each
 * batch commit, write-only never compacts; upgrades keep the file; a COMPACT
 * snapshot follows the APPEND one. After each state both readers
 * (`paimon-table read` and ours) return what a model says (a map key -> row
 * applied in sequence order) and `paimon-table check` passes; the live
 * files' levels / sources are as Java lays them out (no level 0 after a full
 * compaction, retracts dropped at the max level). A compaction racing an
 * overwrite of the same bucket fails with CONFLICT and publishes nothing.
 * Copies of a Java-written primary-key table take new rows and a
 * compaction, then both readers agree with the model.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arrow/arrow.h"
#include "arrow/json_read.h"
#include "arrow/type.h"
#include "harness.h"
#include "meta/snapshot.h"
#include "paimon/write.h"
#include "table/scan.h"
#include "table/table.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/compact_table.h"
#include "support/pk_write.h"

static char wh[256];

static const char *table_dir(const char *name) {
  static char d[512];
  snprintf(d, sizeof d, "%s/d.db/%s", wh, name);
  return d;
}

static paimon_catalog *open_catalog(const char *root) { return pkw_open_catalog(root); }

static paimon_table *get_table(paimon_catalog *c, const char *ident) { return pkw_get_table(c, ident); }

#define TABLE_COLS "id INT NOT NULL, v STRING, n BIGINT"

static paimon_table *make_table(paimon_catalog *cat, const char *name, const char *const *extra, size_t n_extra) {
  const char *opts[16] = {"primary-key=id", "bucket=1"};
  size_t n = 2;
  for (size_t i = 0; i < n_extra && n < 16; i++) opts[n++] = extra[i];
  paimon_error err = {0};
  CHECK_OK(ow_create_table(cat, "d", name, TABLE_COLS, NULL, opts, n, 0, &err), &err);
  char id[128];
  snprintf(id, sizeof id, "d.%s", name);
  return get_table(cat, id);
}

static const char *const COLS[] = {"id:i:notnull", "v:u", "n:l"};
static void batch(const char *jsonl, struct ArrowSchema *s, struct ArrowArray *a) { pkw_batch(COLS, 3, jsonl, s, a); }

/* One write of a commit: rows (JSON lines) of one row kind. */
typedef pkw_part wpart;

/* Writes parts with one batch writer; compact: -1 none, 0 / 1 paimon_table_write_compact(full);
 * commits. *metrics (may be NULL) gets the writer's compaction metrics. */
static int write_commit(paimon_table *t, const wpart *parts, size_t n, int compact, paimon_compact_metrics *metrics,
                        paimon_error *err) {
  pkw_how how = {COLS, 3, NULL, compact, metrics};
  return pkw_write_commit(t, &how, parts, n, err);
}

/* ------------------------------------------------------------ model */

static void model_apply(json_t *model, const char *jsonl, int kind) {
  json_t *rows = ot_parse_lines(jsonl, NULL);
  CHECK(rows != NULL);
  size_t i;
  json_t *r;
  json_array_foreach(rows, i, r) {
    char key[32];
    snprintf(key, sizeof key, "%lld", (long long)json_integer_value(json_object_get(r, "id")));
    if (kind == 1 || kind == 3) {
      json_object_del(model, key);
      continue;
    }
    json_t *row = json_deep_copy(r);
    if (!json_object_get(row, "v")) json_object_set_new(row, "v", json_null());
    if (!json_object_get(row, "n")) json_object_set_new(row, "n", json_null());
    json_object_set_new(model, key, row);
  }
  json_decref(rows);
}

static void check_model(paimon_table *t, const char *dir, const json_t *model, int use_oracle, const char *what) {
  json_t *want = json_array();
  const char *k;
  json_t *v;
  json_object_foreach((json_t *)model, k, v) json_array_append(want, v);
  ct_check_rows(t, dir, want, use_oracle, what);
  json_decref(want);
}

/* Rows {id, v, n} for ids [lo, hi) with v = tag. */
static char *rows(int lo, int hi, const char *tag) {
  size_t cap = (size_t)(hi - lo) * 64 + 16, len = 0;
  char *s = malloc(cap);
  s[0] = 0;
  for (int i = lo; i < hi; i++) len += (size_t)snprintf(s + len, cap - len, "{\"id\":%d,\"v\":\"%s%d\",\"n\":%d}\n", i, tag, i, i);
  return s;
}

/* ------------------------------------------------------------ layout */

typedef ct_layout layout;

static layout live_layout(const char *dir, int max_level) { return ct_layout_of(dir, max_level, NULL, NULL); }

static int64_t latest_snapshot(const char *dir) { return live_layout(dir, 5).latest_id; }

/* ------------------------------------------------------------ tests */

/* Each commit (one writer) adds one level-0 file. Trigger 3 (4 levels, max
 * level 3) and a size ratio that absorbs any run: the third flush finds 3
 * sorted runs and compacts all into level 3 (APPEND, then COMPACT); the fourth
 * has 2 runs (nothing); the fifth 3 again (compacts). */
static void test_auto_compaction(void) {
  paimon_catalog *cat = open_catalog(wh);
  const char *opts[] = {"num-sorted-run.compaction-trigger=3", "compaction.size-ratio=1000"};
  paimon_table *t = make_table(cat, "auto", opts, 2);
  paimon_error err = {0};
  json_t *model = json_object();
  for (int c = 0; c < 5; c++) {
    char *add = rows(c * 10, c * 10 + 30, c % 2 ? "odd" : "even");
    char del[64];
    snprintf(del, sizeof del, "{\"id\":%d}\n", c * 7 + 1);
    wpart p[] = {{add, 0}, {del, 3}};
    CHECK_OK(write_commit(t, p, 2, -1, NULL, &err), &err);
    model_apply(model, add, 0);
    model_apply(model, del, 3);
    free(add);
    layout l = live_layout(table_dir("auto"), 3);
    char what[64];
    snprintf(what, sizeof what, "auto compaction commit %d", c);
    if (c == 2 || c == 4) {
      CHECK_EQ_STR(l.latest_kind, "COMPACT"); /* the APPEND snapshot, then the COMPACT one */
      CHECK_EQ_INT(l.latest_id, c == 2 ? 4 : 7);
      CHECK_EQ_INT(l.level0, 0);
      CHECK_EQ_INT(l.max_level_files, l.files);
      CHECK_EQ_INT(l.compact_source, l.files);
      CHECK_EQ_INT(l.deletes, 0);
    } else {
      CHECK_EQ_STR(l.latest_kind, "APPEND");
      CHECK_EQ_INT(l.level0, c == 3 ? 1 : c + 1);
    }
    check_model(t, table_dir("auto"), model, c == 2 || c == 4, what);
  }
  json_decref(model);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* Four level-0 runs (below the trigger), then a full compaction through
 * the API: all into the max level (5), retracts dropped, level 0 gone. */
static void test_full_compaction(void) {
  paimon_catalog *cat = open_catalog(wh);
  paimon_table *t = make_table(cat, "full", NULL, 0);
  paimon_error err = {0};
  json_t *model = json_object();
  for (int c = 0; c < 4; c++) {
    char *add = rows(c * 5, c * 5 + 20, "r");
    char del[64];
    snprintf(del, sizeof del, "{\"id\":%d}\n", c * 3);
    wpart p[] = {{add, 0}, {del, 3}};
    CHECK_OK(write_commit(t, p, 2, -1, NULL, &err), &err);
    model_apply(model, add, 0);
    model_apply(model, del, 3);
    free(add);
  }
  layout before = live_layout(table_dir("full"), 5);
  CHECK_EQ_INT(before.level0, 4);
  CHECK_EQ_STR(before.latest_kind, "APPEND");
  paimon_compact_metrics mt;
  CHECK_OK(write_commit(t, NULL, 0, 1, &mt, &err), &err);
  layout after = live_layout(table_dir("full"), 5);
  CHECK_EQ_STR(after.latest_kind, "COMPACT");
  CHECK_EQ_INT(after.latest_id, before.latest_id + 1); /* nothing new to append: one COMPACT snapshot */
  CHECK_EQ_INT(after.level0, 0);
  CHECK_EQ_INT(after.max_level_files, after.files);
  CHECK_EQ_INT(after.compact_source, after.files);
  CHECK_EQ_INT(after.deletes, 0); /* output at the max level with no older data: retracts dropped */
  CHECK_EQ_INT(after.rows, (int64_t)json_object_size(model));
  CHECK_EQ_INT(mt.tasks, 1);
  CHECK_EQ_INT(mt.files_removed, 4);
  CHECK_EQ_INT(mt.files_added, after.files);
  CHECK_EQ_INT(mt.rows_written, (int64_t)json_object_size(model));
  CHECK(mt.bytes_written > 0);
  check_model(t, table_dir("full"), model, 1, "after a full compaction");
  /* a second full compaction: one run already at the max level, nothing to do, no snapshot */
  CHECK_OK(write_commit(t, NULL, 0, 1, &mt, &err), &err);
  CHECK_EQ_INT(mt.tasks, 0);
  CHECK_EQ_INT(latest_snapshot(table_dir("full")), after.latest_id);
  /* new rows on top: a normal compaction request with 2 runs picks nothing (trigger 5) */
  char *add = rows(100, 110, "new");
  wpart p[] = {{add, 0}};
  CHECK_OK(write_commit(t, p, 1, 0, &mt, &err), &err);
  model_apply(model, add, 0);
  free(add);
  CHECK_EQ_INT(mt.tasks, 0);
  layout l = live_layout(table_dir("full"), 5);
  CHECK_EQ_STR(l.latest_kind, "APPEND");
  CHECK_EQ_INT(l.level0, 1);
  check_model(t, table_dir("full"), model, 0, "new rows over the compacted level");
  json_decref(model);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* One file without retracts, big enough (>= target-file-size * small-file-ratio), alone in
 * its key range: a full compaction upgrades it to the max level without rewriting. */
static void test_upgrade(void) {
  paimon_catalog *cat = open_catalog(wh);
  const char *opts[] = {"target-file-size=1 kb"};
  paimon_table *t = make_table(cat, "upgrade", opts, 1);
  paimon_error err = {0};
  json_t *model = json_object();
  char *add = rows(0, 20, "u");
  wpart p[] = {{add, 0}};
  CHECK_OK(write_commit(t, p, 1, -1, NULL, &err), &err);
  model_apply(model, add, 0);
  free(add);
  layout before = live_layout(table_dir("upgrade"), 5);
  CHECK_EQ_INT(before.files, 1);
  paimon_compact_metrics mt;
  CHECK_OK(write_commit(t, NULL, 0, 1, &mt, &err), &err);
  layout after = live_layout(table_dir("upgrade"), 5);
  CHECK_EQ_STR(after.latest_kind, "COMPACT");
  CHECK_EQ_INT(after.files, 1);
  CHECK_EQ_INT(after.max_level_files, 1);
  CHECK_EQ_INT(after.compact_source, 0); /* the same file, still from APPEND */
  CHECK_EQ_INT(mt.files_removed, 1);
  CHECK_EQ_INT(mt.files_added, 1);
  CHECK_EQ_INT(mt.rows_written, 0);
  check_model(t, table_dir("upgrade"), model, 1, "after an upgrade");
  json_decref(model);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* full-compaction.delta-commits = 1: every batch commit ends fully compacted;
 * write-only = true: never a COMPACT snapshot. */
static void test_delta_commits_and_write_only(void) {
  paimon_catalog *cat = open_catalog(wh);
  const char *o1[] = {"full-compaction.delta-commits=1"};
  const char *o2[] = {"write-only=true", "num-sorted-run.compaction-trigger=1"};
  paimon_table *t1 = make_table(cat, "delta", o1, 1), *t2 = make_table(cat, "wonly", o2, 2);
  paimon_error err = {0};
  json_t *model = json_object();
  for (int c = 0; c < 3; c++) {
    char *add = rows(c * 4, c * 4 + 10, "d");
    wpart p[] = {{add, 0}, {"{\"id\":2}\n", 3}};
    CHECK_OK(write_commit(t1, p, 2, -1, NULL, &err), &err);
    CHECK_OK(write_commit(t2, p, 2, -1, NULL, &err), &err);
    model_apply(model, add, 0);
    model_apply(model, "{\"id\":2}\n", 3);
    free(add);
    layout l1 = live_layout(table_dir("delta"), 5), l2 = live_layout(table_dir("wonly"), 5);
    CHECK_EQ_STR(l1.latest_kind, "COMPACT");
    CHECK_EQ_INT(l1.level0, 0);
    CHECK_EQ_INT(l1.max_level_files, l1.files);
    CHECK_EQ_STR(l2.latest_kind, "APPEND");
    CHECK_EQ_INT(l2.level0, c + 1);
    CHECK_EQ_INT(l2.latest_id, c + 1);
  }
  check_model(t1, table_dir("delta"), model, 1, "delta-commits");
  check_model(t2, table_dir("wonly"), model, 0, "write-only");
  /* an explicit compaction of a write-only table does nothing */
  paimon_compact_metrics mt;
  CHECK_OK(write_commit(t2, NULL, 0, 1, &mt, &err), &err);
  CHECK_EQ_INT(mt.tasks, 0);
  CHECK_EQ_INT(latest_snapshot(table_dir("wonly")), 3);
  json_decref(model);
  paimon_table_free(t1);
  paimon_table_free(t2);
  paimon_catalog_free(cat);
}

/* compaction.force-up-level-0 = true on a deduplicate table without lookup:
 * every commit's level-0 file is compacted up at once (ForceUpLevel0Compaction),
 * where the plain universal pick (trigger 5) leaves them at level 0. */
static void test_force_up_level0(void) {
  paimon_catalog *cat = open_catalog(wh);
  const char *o1[] = {"compaction.force-up-level-0=true"};
  paimon_table *t1 = make_table(cat, "forceup", o1, 1), *t2 = make_table(cat, "noforce", NULL, 0);
  paimon_error err = {0};
  json_t *model = json_object();
  for (int c = 0; c < 3; c++) {
    char *add = rows(c * 4, c * 4 + 10, "f");
    wpart p[] = {{add, 0}};
    CHECK_OK(write_commit(t1, p, 1, -1, NULL, &err), &err);
    CHECK_OK(write_commit(t2, p, 1, -1, NULL, &err), &err);
    model_apply(model, add, 0);
    free(add);
    layout l1 = live_layout(table_dir("forceup"), 5), l2 = live_layout(table_dir("noforce"), 5);
    CHECK_EQ_STR(l1.latest_kind, "COMPACT");
    CHECK_EQ_INT(l1.level0, 0);
    CHECK_EQ_INT(l2.level0, c + 1);
  }
  check_model(t1, table_dir("forceup"), model, 1, "force-up-level-0");
  check_model(t2, table_dir("noforce"), model, 0, "no force-up");
  json_decref(model);
  paimon_table_free(t1);
  paimon_table_free(t2);
  paimon_catalog_free(cat);
}

/* A compaction prepared, then an overwrite of the same bucket commits first:
 * the compaction's commit is CONFLICT and publishes nothing. Two compactions
 * of the same files: the second one conflicts too. */
static void test_conflicts(void) {
  paimon_catalog *cat = open_catalog(wh);
  paimon_table *t = make_table(cat, "conflict", NULL, 0);
  paimon_error err = {0};
  for (int c = 0; c < 3; c++) {
    char *add = rows(c * 3, c * 3 + 10, "c");
    wpart p[] = {{add, 0}};
    CHECK_OK(write_commit(t, p, 1, -1, NULL, &err), &err);
    free(add);
  }
  json_t *model = json_object();
  for (int round = 0; round < 2; round++) {
    paimon_write_builder *wb = NULL;
    paimon_table_write *w = NULL;
    paimon_commit_messages *m = NULL;
    paimon_table_commit *c = NULL;
    CHECK_OK(paimon_write_builder_new(t, 0, NULL, 0, &wb, &err), &err);
    CHECK_OK(paimon_write_builder_new_write(wb, &w, &err), &err);
    CHECK_OK(paimon_table_write_compact(w, NULL, 0, -1, 1, &err), &err);
    CHECK_OK(paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, &err), &err);
    if (round == 0) { /* the concurrent overwrite */
      paimon_write_builder *ob = NULL;
      paimon_table_write *ow = NULL;
      paimon_commit_messages *om = NULL;
      paimon_table_commit *oc = NULL;
      /* level 0 kept (no overwrite-upgrade to the max level), so round 1 has files to compact */
      paimon_option no_upgrade = {"overwrite-upgrade", "false"};
      CHECK_OK(paimon_write_builder_new(t, 0, &no_upgrade, 1, &ob, &err), &err);
      CHECK_OK(paimon_write_builder_with_overwrite(ob, NULL, 0, &err), &err);
      CHECK_OK(paimon_write_builder_new_write(ob, &ow, &err), &err);
      char *add = rows(500, 505, "ow");
      struct ArrowSchema s;
      struct ArrowArray a;
      batch(add, &s, &a);
      CHECK_OK(paimon_table_write_arrow(ow, &s, &a, &err), &err);
      a.release(&a);
      s.release(&s);
      model_apply(model, add, 0);
      free(add);
      CHECK_OK(paimon_table_write_prepare_commit(ow, PAIMON_BATCH_COMMIT_IDENTIFIER, &om, &err), &err);
      CHECK_OK(paimon_write_builder_new_commit(ob, &oc, &err), &err);
      CHECK_OK(paimon_table_commit_commit(oc, om, PAIMON_BATCH_COMMIT_IDENTIFIER, NULL, &err), &err);
      paimon_commit_messages_free(om);
      paimon_table_commit_free(oc);
      paimon_table_write_free(ow);
      paimon_write_builder_free(ob);
    } else { /* another full compaction of the same files commits first */
      paimon_compact_metrics mt;
      CHECK_OK(write_commit(t, NULL, 0, 1, &mt, &err), &err);
      CHECK_EQ_INT(mt.tasks, 1);
    }
    int64_t before = latest_snapshot(table_dir("conflict"));
    CHECK_OK(paimon_write_builder_new_commit(wb, &c, &err), &err);
    int rc = paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, NULL, &err);
    CHECK_MSG(rc == PAIMON_ERR_CONFLICT, "round %d: %d %s", round, rc, err.message);
    CHECK_EQ_INT(latest_snapshot(table_dir("conflict")), before);
    paimon_error e2 = {0};
    CHECK_OK(paimon_table_commit_abort(c, m, &e2), &e2);
    /* the aborted upgrade (round 1) must not delete the live file it names */
    check_model(t, table_dir("conflict"), model, 1, round ? "conflict with a compaction" : "conflict with an overwrite");
    paimon_commit_messages_free(m);
    paimon_table_commit_free(c);
    paimon_table_write_free(w);
    paimon_write_builder_free(wb);
  }
  json_decref(model);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

static int count_data_files(const char *bucket_dir) {
  char cmd[700];
  snprintf(cmd, sizeof cmd, "ls '%s' | grep -c '^data-'", bucket_dir);
  FILE *f = popen(cmd, "r");
  int n = -1;
  if (f) {
    if (fscanf(f, "%d", &n) != 1) n = -1;
    pclose(f);
  }
  return n;
}

/* New rows and a compaction in one commit, and a truncate of the table commits
 * first. The data part (APPEND) still publishes: it does not touch the truncated
 * files. The compaction part conflicts (its inputs are gone). The commit has
 * happened, so it returns OK with the APPEND snapshot: a CONFLICT would say
 * nothing was published and invite an abort that deletes the published data
 * files. The compaction is dropped, its output file deleted, and
 * paimon_table_commit_compaction_dropped says CONFLICT. Both readers show
 * exactly the new rows; paimon-table check passes. */
static void test_conflict_after_data(void) {
  paimon_catalog *cat = open_catalog(wh);
  paimon_table *t = make_table(cat, "conflict_data", NULL, 0);
  paimon_error err = {0};
  for (int c = 0; c < 3; c++) {
    char *add = rows(c * 3, c * 3 + 10, "c");
    wpart p[] = {{add, 0}};
    CHECK_OK(write_commit(t, p, 1, -1, NULL, &err), &err);
    free(add);
  }
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  paimon_commit_messages *m = NULL;
  paimon_table_commit *c = NULL;
  CHECK_OK(paimon_write_builder_new(t, 0, NULL, 0, &wb, &err), &err);
  CHECK_OK(paimon_write_builder_new_write(wb, &w, &err), &err);
  char *add = rows(100, 110, "new");
  struct ArrowSchema s;
  struct ArrowArray a;
  batch(add, &s, &a);
  CHECK_OK(paimon_table_write_arrow(w, &s, &a, &err), &err);
  a.release(&a);
  s.release(&s);
  CHECK_OK(paimon_table_write_compact(w, NULL, 0, -1, 1, &err), &err);
  CHECK_OK(paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, &err), &err);
  paimon_compact_metrics mt;
  paimon_table_write_compact_metrics(w, &mt);
  CHECK_MSG(mt.tasks >= 1 && mt.files_added >= 1, "tasks %lld added %lld", (long long)mt.tasks,
            (long long)mt.files_added);

  { /* the concurrent truncate */
    paimon_write_builder *tb = NULL;
    paimon_table_commit *tc = NULL;
    CHECK_OK(paimon_write_builder_new(t, 0, NULL, 0, &tb, &err), &err);
    CHECK_OK(paimon_write_builder_new_commit(tb, &tc, &err), &err);
    CHECK_OK(paimon_table_commit_truncate_table(tc, PAIMON_BATCH_COMMIT_IDENTIFIER, NULL, &err), &err);
    paimon_table_commit_free(tc);
    paimon_write_builder_free(tb);
  }
  char bdir[600];
  snprintf(bdir, sizeof bdir, "%s/bucket-0", table_dir("conflict_data"));
  int files_before = count_data_files(bdir);
  int64_t before = latest_snapshot(table_dir("conflict_data"));
  CHECK_OK(paimon_write_builder_new_commit(wb, &c, &err), &err);
  CHECK_EQ_INT(paimon_table_commit_compaction_dropped(c), PAIMON_OK);
  int64_t sid = -1;
  int rc = paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, &sid, &err);
  CHECK_MSG(rc == PAIMON_OK, "commit: %d %s", rc, err.message);
  CHECK_EQ_INT(sid, before + 1);
  layout l = live_layout(table_dir("conflict_data"), 5);
  CHECK_EQ_INT(l.latest_id, before + 1);
  CHECK_MSG(!strcmp(l.latest_kind, "APPEND"), "latest kind %s", l.latest_kind);
  CHECK_EQ_INT(paimon_table_commit_compaction_dropped(c), PAIMON_ERR_CONFLICT);
  /* the compaction's output files are gone; everything else stays */
  CHECK_EQ_INT(count_data_files(bdir), files_before - (int)mt.files_added);
  json_t *model = json_object();
  model_apply(model, add, 0);
  check_model(t, table_dir("conflict_data"), model, 1, "data published, compaction dropped");
  /* the next commit of the same table works */
  char *more = rows(200, 205, "more");
  wpart p2[] = {{more, 0}};
  CHECK_OK(write_commit(t, p2, 1, -1, NULL, &err), &err);
  model_apply(model, more, 0);
  check_model(t, table_dir("conflict_data"), model, 1, "after the dropped compaction");
  free(more);
  free(add);
  json_decref(model);
  paimon_commit_messages_free(m);
  paimon_table_commit_free(c);
  paimon_table_write_free(w);
  paimon_write_builder_free(wb);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* A copy of a Java-written primary-key table: new rows (updates + new keys), a full
 * compaction, new rows again; both readers = the fixture's rows + the model. */
static void test_java_table(void) {
  char root[512], cmd[2048];
  snprintf(root, sizeof root, "%s/java", wh);
  const char *db = "pk_table_scan_and_read_mor", *tb = "pk_table_scan_and_read_mor";
  snprintf(cmd, sizeof cmd, "mkdir -p '%s/%s.db' && cp -r '%s/fixtures/warehouse/parquet/%s.db/%s' '%s/%s.db/' && "
           "chmod -R u+w '%s'",
           root, db, PAIMON_SHARED_DIR, db, tb, root, db, root);
  CHECK_EQ_INT(system(cmd), 0);
  char dir[1024], ident[256];
  snprintf(dir, sizeof dir, "%s/%s.db/%s", root, db, tb);
  snprintf(ident, sizeof ident, "%s.%s", db, tb);
  paimon_catalog *cat = open_catalog(root);
  paimon_table *t = get_table(cat, ident);
  paimon_error err = {0};
  /* the model: the table's rows as our reader returns them before writing (keys f1, f0, f2) */
  json_t *old = ow_read_ours(t, &err);
  CHECK_MSG(old != NULL, "%s", err.message);
  json_t *model = json_object();
  size_t i;
  json_t *r;
  char key[512];
#define FIXKEY(row)                                                                                           \
  snprintf(key, sizeof key, "%lld/%s/%lld", (long long)json_integer_value(json_object_get(row, "f1")),        \
           json_string_value(json_object_get(row, "f0")), (long long)json_integer_value(json_object_get(row, "f2")))
  json_array_foreach(old, i, r) {
    FIXKEY(r);
    json_object_set(model, key, r);
  }
  const char *news[2] = {"{\"f0\":\"Bob\",\"f1\":10,\"f2\":0,\"f3\":99.5}\n{\"f0\":\"Zed\",\"f1\":10,\"f2\":1,\"f3\":null}\n",
                         "{\"f0\":\"Emily\",\"f1\":10,\"f2\":0,\"f3\":-1.25}\n{\"f0\":\"Yan\",\"f1\":30,\"f2\":7,\"f3\":3.5}\n"};
  for (int round = 0; round < 2; round++) {
    paimon_write_builder *wb = NULL;
    paimon_table_write *w = NULL;
    paimon_commit_messages *m = NULL;
    paimon_table_commit *c = NULL;
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(ow_batch(t, news[round], &s, &a, &err), &err);
    CHECK_OK(paimon_write_builder_new(t, 0, NULL, 0, &wb, &err), &err);
    CHECK_OK(paimon_write_builder_new_write(wb, &w, &err), &err);
    CHECK_OK(paimon_table_write_arrow(w, &s, &a, &err), &err);
    if (a.release) a.release(&a);
    if (s.release) s.release(&s);
    if (round == 0) CHECK_OK(paimon_table_write_compact(w, NULL, 0, -1, 1, &err), &err);
    CHECK_OK(paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, &err), &err);
    CHECK_OK(paimon_write_builder_new_commit(wb, &c, &err), &err);
    CHECK_OK(paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, NULL, &err), &err);
    paimon_commit_messages_free(m);
    paimon_table_commit_free(c);
    paimon_table_write_free(w);
    paimon_write_builder_free(wb);
    json_t *add = ot_parse_lines(news[round], NULL);
    json_array_foreach(add, i, r) {
      FIXKEY(r);
      json_object_set(model, key, r);
    }
    json_decref(add);
    json_t *want = json_array();
    const char *k;
    json_t *v;
    json_object_foreach(model, k, v) json_array_append(want, v);
    json_t *ours = ow_read_ours(t, &err);
    char msg[8192];
    CHECK_MSG(ours && ot_rows_match(want, ours, msg, sizeof msg), "java table round %d: %s", round, ours ? msg : err.message);
    json_decref(ours);
    if (ot_available()) CHECK(ot_read_equals(dir, NULL, want, "java table after compaction"));
    json_decref(want);
  }
  layout l = live_layout(dir, 5);
  CHECK_EQ_STR(l.latest_kind, "APPEND");
  CHECK_EQ_INT(l.level0, 2); /* round 1's new files (2 buckets); round 0's and the old files compacted */
  json_decref(old);
  json_decref(model);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

int main(void) {
  snprintf(wh, sizeof wh, "/tmp/pm_write_pk_compact_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  RUN_TEST(test_auto_compaction);
  RUN_TEST(test_full_compaction);
  RUN_TEST(test_upgrade);
  RUN_TEST(test_delta_commits_and_write_only);
  RUN_TEST(test_force_up_level0);
  RUN_TEST(test_conflicts);
  RUN_TEST(test_conflict_after_data);
  RUN_TEST(test_java_table);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && system(cmd)) return 1;
  TEST_MAIN_END();
}
