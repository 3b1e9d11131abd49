/*
 * Data-evolution tables for the compaction tests (test_append_compact_de.c,
 * test_append_compact_de_crash.c): db.<name> (id INT, name STRING, score INT, p STRING) with
 * row-tracking.enabled + data-evolution.enabled, rows appended (id = index in the model, name
 * "n<id>", score 10 id), columns updated by _ROW_ID (ru_update_commit), _ROW_ID /
 * _SEQUENCE_NUMBER read per id, and the two tables the tests compact:
 *   - de_build_u: unpartitioned, 3 appends of 10 rows + 3 column updates = 10 files, 1 task;
 *   - de_build_p: partitioned by p, row ids interleaved (a: 0..7, b: 8..13, a: 14..22) and
 *     2 updates = 9 files, 3 tasks (with compaction.min.file-num=2).
 * Header-only; needs harness.h, support/oracle_write.h, support/rowid_update.h.
 */
#ifndef PM_TESTS_SUPPORT_DE_TABLE_H
#define PM_TESTS_SUPPORT_DE_TABLE_H

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paimon/paimon.h"
#include "support/oracle_table.h"
#include "support/oracle_write.h"
#include "support/rowid_update.h"


typedef struct de_fixture {
  char wh[512], dir[1200], ident[300];
  paimon_catalog *cat;
  paimon_table *t;
} de_fixture;

static inline int de_open(de_fixture *f, const char *root, const char *name, const char *pkeys, const char *const *opts, size_t n_opts) {
  memset(f, 0, sizeof *f);
  snprintf(f->wh, sizeof f->wh, "%s/%s", root, name);
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

static inline void de_refresh(de_fixture *f) {
  paimon_error err = {0};
  paimon_table_free(f->t);
  f->t = NULL;
  CHECK_OK(paimon_catalog_get_table(f->cat, f->ident, &f->t, &err), &err);
}

static inline void de_close(de_fixture *f) {
  paimon_table_free(f->t);
  paimon_catalog_free(f->cat);
}

/* model: rows in id order (id = index) */
static inline void de_append_rows(de_fixture *f, json_t *model, int n, const char *part) {
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
  de_refresh(f);
}

/* id -> [_ROW_ID, _SEQUENCE_NUMBER] by our reader, as an array indexed by id. */
static inline json_t *de_row_ids_of(const paimon_table *t) {
  paimon_error err = {0};
  paimon_read_builder *rb = NULL;
  paimon_plan *plan = NULL;
  struct ArrowArrayStream st = {0};
  const char *cols[3] = {"id", "_ROW_ID", "_SEQUENCE_NUMBER"};
  CHECK_OK(paimon_read_builder_new(t, NULL, 0, &rb, &err), &err);
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

static inline json_t *de_row_ids(de_fixture *f) { return de_row_ids_of(f->t); }

/* Sets column col ("name" or "score") of the rows ids[0, n) to values tagged `tag`; into the model. */
static inline void de_update(de_fixture *f, json_t *model, const char *col, const int64_t *row_ids_of, const int *ids, size_t n,
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
  de_refresh(f);
}

static inline int64_t *de_ids_to_row_ids(const json_t *ids) {
  size_t n = json_array_size(ids);
  int64_t *out = calloc(n + 1, sizeof *out);
  for (size_t i = 0; i < n; i++) out[i] = json_integer_value(json_array_get(json_array_get(ids, i), 0));
  return out;
}

/* Row ids unchanged; sequence numbers: every row seq_all (>= 0), else not compared. */
static inline void de_check_ids(const json_t *before, const json_t *after, int64_t seq_all, const char *what) {
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
static const char *const DE_OPTS_P[] = {"row-tracking.enabled=true", "data-evolution.enabled=true",
                                        "compaction.min.file-num=2"};

/* db.u under root/u: 3 appends of 10 rows (snapshots 1..3), updates of name, score, name
 * (snapshots 4..6): 10 files. *rid (malloc'd): _ROW_ID by id. 0 when the table is not open. */
static inline int de_build_u(de_fixture *f, const char *root, json_t *model, int64_t **rid) {
  *rid = NULL;
  if (!de_open(f, root, "u", NULL, DE_OPTS, 2)) return 0;
  for (int i = 0; i < 3; i++) de_append_rows(f, model, 10, "x");
  json_t *ids0 = de_row_ids(f);
  *rid = de_ids_to_row_ids(ids0);
  json_decref(ids0);
  int a[] = {1, 5, 12, 25}, b[] = {2, 13, 14}, c[] = {3, 22};
  de_update(f, model, "name", *rid, a, 4, 1);  /* files for [0,10) [10,20) [20,30) */
  de_update(f, model, "score", *rid, b, 3, 2); /* [0,10) [10,20) */
  de_update(f, model, "name", *rid, c, 2, 3);  /* [0,10) [20,30) */
  return 1;
}

/* db.p under root/p, partitioned by p: a [0,8), b [8,14), a [14,19), a [19,23), updates of name
 * and score (snapshots 5, 6): 9 files, 3 tasks. */
static inline int de_build_p(de_fixture *f, const char *root, json_t *model, int64_t **rid) {
  *rid = NULL;
  if (!de_open(f, root, "p", "p", DE_OPTS_P, 3)) return 0;
  de_append_rows(f, model, 8, "a"); /* rows 0..7 */
  de_append_rows(f, model, 6, "b"); /* 8..13 */
  de_append_rows(f, model, 5, "a"); /* 14..18: not continuous with 0..7 */
  de_append_rows(f, model, 4, "a"); /* 19..22: continuous with 14..18 */
  json_t *ids0 = de_row_ids(f);
  *rid = de_ids_to_row_ids(ids0);
  json_decref(ids0);
  int a[] = {0, 9, 15}, b[] = {3, 20};
  de_update(f, model, "name", *rid, a, 3, 1);
  de_update(f, model, "score", *rid, b, 2, 2);
  return 1;
}

#endif
