/*
 * Incremental reads with diff semantics (SEMANTICS §5.4, §6.1; Java
 * IncrementalDiffStartingScanner / IncrementalDiffSplitRead).
 *
 * Evidence: the expected full results of two snapshots of the same
 * Java-written fixture table (fixtures/expected/<name>__snapshot-N.json). For a
 * primary-key table the diff (s1, s2] must be exactly the rows of s2 whose key
 * is absent from s1 or whose values differ; with row kinds also a retraction
 * of the s1 row for every key of s1 absent from s2. For an append table whose
 * snapshots in between only appended files, the diff is the multiset s2 - s1.
 * Tables are copied to a temp dir (fixtures are read-only) where tag files
 * are added (a tag file is the snapshot JSON under tag/tag-<name>).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/fixture_compare.h"
#include "harness.h"
#include "data/predicate.h"
#include "meta/snapshot.h"
#include "meta/split.h"
#include "table/read.h"
#include "table/scan.h"
#include "table/table.h"

#define WH PM_SHARED("fixtures/warehouse/parquet")
#define EXPECTED PM_SHARED("fixtures/expected")

static char tmp_root[256];
static int g_parallelism = 1; /* splits read concurrently by read_all */

static const char *const COLS[] = {"f0", "f1", "f2", "f3"};
static const int KINDS[] = {FXC_PLAIN, FXC_PLAIN, FXC_PLAIN, FXC_DOUBLE};
static const int KINDS_RK[] = {FXC_PLAIN, FXC_PLAIN, FXC_PLAIN, FXC_PLAIN, FXC_DOUBLE};

static int copy_table(const char *name) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s/%s.db' && cp -r '%s/%s.db/%s' '%s/%s.db/' && chmod -R u+w '%s/%s.db'",
           tmp_root, name, WH, name, name, tmp_root, name, tmp_root, name);
  return system(cmd);
}

static void table_root(const char *name, char *out, size_t cap) {
  snprintf(out, cap, "%s/%s.db/%s", tmp_root, name, name);
}

/* Writes tag/tag-<tag> holding snapshot `id` of the copied table. */
static int add_tag(const char *name, const char *tag, int64_t id) {
  char root[512];
  table_root(name, root, sizeof root);
  pm_error err;
  pm_error_clear(&err);
  pm_snapshot *s = NULL;
  int rc = pm_snapshot_read(&(pm_snapshot_manager){pm_fs_local(), root, NULL}, id, &s, &err);
  if (!rc) rc = pm_tag_write(&(pm_snapshot_manager){pm_fs_local(), root, NULL}, tag, s, &err);
  pm_snapshot_free(s);
  if (rc) fprintf(stderr, "add_tag %s: %s\n", tag, err.message);
  return rc;
}

static json_t *expected_rows(const char *name, int snap) {
  char path[1024];
  snprintf(path, sizeof path, "%s/parquet__%s__snapshot-%d.json", EXPECTED, name, snap);
  json_error_t je;
  json_t *f = json_load_file(path, 0, &je);
  if (!f) {
    fprintf(stderr, "cannot load %s: %s\n", path, je.text);
    return NULL;
  }
  json_t *rows = json_incref(json_object_get(f, "rows"));
  json_decref(f);
  return rows;
}

static int same_key(const json_t *a, const json_t *b, int n_keys) {
  for (int k = 0; k < n_keys; k++)
    if (!json_equal(json_array_get(a, (size_t)k), json_array_get(b, (size_t)k))) return 0;
  return 1;
}

static json_t *with_kind(const char *kind, const json_t *row) {
  json_t *r = json_array();
  json_array_append_new(r, json_string(kind));
  json_array_extend(r, (json_t *)row);
  return r;
}

/* PK diff computed from two expected results (keys = the first n_keys columns).
 * Row kinds, when requested, are "+" (an added/changed row) or "-" (a removed key). */
static json_t *pk_diff(const json_t *s1, const json_t *s2, int n_keys, int with_row_kind) {
  json_t *out = json_array();
  for (size_t i = 0; i < json_array_size(s2); i++) {
    const json_t *r2 = json_array_get(s2, i);
    const json_t *r1 = NULL;
    for (size_t j = 0; j < json_array_size(s1) && !r1; j++)
      if (same_key(json_array_get(s1, j), r2, n_keys)) r1 = json_array_get(s1, j);
    if (r1 && json_equal((json_t *)r1, (json_t *)r2)) continue;
    json_array_append_new(out, with_row_kind ? with_kind("+", r2) : json_deep_copy(r2));
  }
  for (size_t j = 0; with_row_kind && j < json_array_size(s1); j++) {
    const json_t *r1 = json_array_get(s1, j);
    int found = 0;
    for (size_t i = 0; i < json_array_size(s2) && !found; i++) found = same_key(r1, json_array_get(s2, i), n_keys);
    if (!found) json_array_append_new(out, with_kind("-", r1));
  }
  return out;
}

/* Multiset s2 - s1. */
static json_t *multiset_minus(const json_t *s2, const json_t *s1) {
  json_t *out = json_deep_copy((json_t *)s2);
  for (size_t j = 0; j < json_array_size(s1); j++)
    for (size_t i = 0; i < json_array_size(out); i++)
      if (json_equal(json_array_get(out, i), json_array_get(s1, j))) {
        json_array_remove(out, i);
        break;
      }
  return out;
}

/* Opens the copied table with up to three dynamic options (NULL-terminated pairs). */
static pm_table *open_with(const char *name, const char *k1, const char *v1, const char *k2, const char *v2,
                           const char *k3, const char *v3) {
  char root[512];
  table_root(name, root, sizeof root);
  pm_error err;
  pm_error_clear(&err);
  pm_options dyn;
  pm_options_init(&dyn);
  if (k1) pm_options_set(&dyn, k1, v1, &err);
  if (k2) pm_options_set(&dyn, k2, v2, &err);
  if (k3) pm_options_set(&dyn, k3, v3, &err);
  pm_table *t = NULL;
  int rc = pm_table_open_path(root, NULL, NULL, NULL, &dyn, NULL, &t, &err);
  pm_options_clear(&dyn);
  if (rc) fprintf(stderr, "open %s: %s\n", root, err.message);
  return t;
}

/* Drains a stream into JSON rows; the row-kind column becomes "+" / "-". */
static int drain(struct ArrowArrayStream *st, int with_row_kind, json_t *rows, pm_error *err) {
  struct ArrowSchema schema = {0};
  pm_type type = {0};
  int rc = st->get_schema(st, &schema) ? pm_errorf(err, PAIMON_ERR_IO, "get_schema failed") : 0;
  if (!rc) rc = pm_type_from_schema(&schema, &type, err);
  while (!rc) {
    struct ArrowArray a;
    if (st->get_next(st, &a)) {
      const char *m = st->get_last_error(st);
      rc = pm_errorf(err, PAIMON_ERR_IO, "get_next: %s", m ? m : "?");
      break;
    }
    if (!a.release) break;
    rc = fxc_batch_to_json(&type, &a, NULL, rows, err);
    a.release(&a);
  }
  for (size_t i = 0; with_row_kind && i < json_array_size(rows); i++) {
    json_t *r = json_array_get(rows, i);
    const char *k = json_string_value(json_array_get(r, 0));
    json_array_set_new(r, 0, json_string(k && (!strcmp(k, "+I") || !strcmp(k, "+U")) ? "+" : "-"));
  }
  pm_type_free(&type);
  if (schema.release) schema.release(&schema);
  return rc;
}

/* Plans (accepting IncrementalSplits) and reads; diff plans are read with the diff reader. */
static int read_all(pm_table *t, int with_row_kind, json_t *rows, size_t *n_incremental, pm_error *err) {
  pm_plan *plan = NULL;
  int rc = pm_scan_plan_ex(t, NULL, -1, 1, &plan, err);
  if (rc) return rc;
  if (n_incremental) *n_incremental = plan->n_incremental_splits;
  pm_read_options ro;
  pm_read_options_init(&ro);
  ro.columns = COLS;
  ro.n_columns = 4;
  ro.with_row_kind = with_row_kind;
  ro.batch_rows = 2; /* small batches exercise the batch boundaries of the key merge */
  ro.parallelism = g_parallelism;
  struct ArrowArrayStream st = {0};
  if (plan->n_incremental_splits)
    rc = pm_read_incremental_splits(t, plan->incremental_splits, plan->n_incremental_splits, &ro, &st, err);
  else
    rc = pm_read_splits(t, plan->splits, plan->n_splits, &ro, &st, err);
  if (!rc) rc = drain(&st, with_row_kind, rows, err);
  if (st.release) st.release(&st);
  pm_plan_free(plan);
  return rc;
}

/* A retraction of a removed key carries the values of the record that removed
 * it (Java emits the after-side -D record), which the expected results do not
 * show: "-" rows are compared by key only. */
static void blank_retract_values(json_t *rows, int n_keys) {
  for (size_t i = 0; i < json_array_size(rows); i++) {
    json_t *r = json_array_get(rows, i);
    if (strcmp(json_string_value(json_array_get(r, 0)), "-")) continue;
    for (size_t c = 1 + (size_t)n_keys; c < json_array_size(r); c++) json_array_set_new(r, c, json_null());
  }
}

static void check_rows(const char *what, const json_t *expected_in, const json_t *actual_in, int with_row_kind) {
  char msg[4096];
  json_t *expected = json_deep_copy((json_t *)expected_in), *actual = json_deep_copy((json_t *)actual_in);
  if (with_row_kind) {
    blank_retract_values(expected, 3);
    blank_retract_values(actual, 3);
  }
  int ok = fxc_rows_match(expected, actual, with_row_kind ? KINDS_RK : KINDS, msg, sizeof msg);
  CHECK_MSG(ok, "%s: %s", what, msg);
  json_decref(expected);
  json_decref(actual);
}

static pm_predicate *parse(pm_table *t, const char *text) {
  pm_pred_column cols[16];
  size_t n = t->schema->n_fields < 16 ? t->schema->n_fields : 16;
  for (size_t i = 0; i < n; i++) {
    cols[i].name = t->schema->fields[i].name;
    cols[i].index = (int32_t)i;
    cols[i].field_id = t->schema->fields[i].id;
    cols[i].type = t->schema->fields[i].type;
  }
  pm_error err;
  pm_error_clear(&err);
  pm_predicate *p = NULL;
  CHECK_OK(pm_pred_parse(text, cols, n, 1, &p, &err), &err);
  return p;
}

/* Plans the diff with a filter, sends every IncrementalSplit through its wire
 * form (SplitSerializer type 2) and reads the decoded splits. */
static int read_via_wire(pm_table *t, const char *where, json_t *rows, size_t *n_splits, pm_error *err) {
  pm_predicate *f = where ? parse(t, where) : NULL;
  pm_plan *plan = NULL;
  int rc = pm_scan_plan_ex(t, f, -1, 1, &plan, err);
  size_t n = rc ? 0 : plan->n_incremental_splits;
  pm_split **decoded = calloc(n + 1, sizeof *decoded);
  for (size_t i = 0; !rc && i < n; i++) {
    pm_buf b;
    pm_buf_init(&b);
    rc = pm_split_encode(plan->incremental_splits[i], &b, err);
    if (!rc) rc = pm_split_decode(b.data, b.len, &decoded[i], err);
    pm_buf_free(&b);
  }
  pm_plan_free(plan); /* the decoded splits stand alone */
  if (n_splits) *n_splits = n;
  pm_read_options ro;
  pm_read_options_init(&ro);
  ro.columns = COLS;
  ro.n_columns = 4;
  ro.filter = f;
  struct ArrowArrayStream st = {0};
  if (!rc) rc = pm_read_incremental_splits(t, decoded, n, &ro, &st, err);
  if (!rc) rc = drain(&st, 0, rows, err);
  if (st.release) st.release(&st);
  for (size_t i = 0; i < n; i++) pm_split_free(decoded[i]);
  free(decoded);
  pm_pred_free(f);
  return rc;
}

/* Rows of `rows` whose column col equals v. */
static json_t *rows_where_int(const json_t *rows, size_t col, int64_t v) {
  json_t *out = json_array();
  for (size_t i = 0; i < json_array_size(rows); i++) {
    json_t *r = json_array_get(rows, i);
    if (json_integer_value(json_array_get(r, col)) == v) json_array_append(out, r);
  }
  return out;
}

/* Reads with the given options and compares with `expected`. */
static void check_read(const char *what, const char *name, const char *k1, const char *v1, const char *k2,
                       const char *v2, const char *k3, const char *v3, int with_row_kind, const json_t *expected,
                       int expect_diff_plan) {
  pm_table *t = open_with(name, k1, v1, k2, v2, k3, v3);
  CHECK(t != NULL);
  if (!t) return;
  pm_error err;
  pm_error_clear(&err);
  json_t *rows = json_array();
  size_t n_inc = 0;
  int rc = read_all(t, with_row_kind, rows, &n_inc, &err);
  CHECK_MSG(rc == 0, "%s: %s", what, err.message);
  if (!rc) {
    check_rows(what, expected, rows, with_row_kind);
    if (expect_diff_plan >= 0) CHECK_MSG((n_inc > 0) == expect_diff_plan, "%s: %zu incremental splits", what, n_inc);
  }
  json_decref(rows);
  pm_table_free(t);
}

static int plan_status(const char *name, const char *k1, const char *v1, const char *k2, const char *v2,
                       const char *k3, const char *v3, int accept, char *msg, size_t cap) {
  pm_table *t = open_with(name, k1, v1, k2, v2, k3, v3);
  if (!t) return -1;
  pm_error err;
  pm_error_clear(&err);
  pm_plan *plan = NULL;
  int rc = pm_scan_plan_ex(t, NULL, -1, accept, &plan, &err);
  snprintf(msg, cap, "%s", err.message);
  pm_plan_free(plan);
  pm_table_free(t);
  return rc;
}

/* ---- primary-key table without DVs (merge-on-read): snapshots 2, 4, 5 ---- */

static void test_pk_mor(void) {
  const char *name = "pk_table_scan_and_read_mor";
  CHECK_EQ_INT(copy_table(name), 0);
  CHECK_EQ_INT(add_tag(name, "t2", 2), 0);
  CHECK_EQ_INT(add_tag(name, "t4", 4), 0);
  CHECK_EQ_INT(add_tag(name, "t5", 5), 0);
  json_t *s2 = expected_rows(name, 2), *s4 = expected_rows(name, 4), *s5 = expected_rows(name, 5);
  CHECK(s2 && s4 && s5);
  if (!s2 || !s4 || !s5) return;
  const char *IB = "incremental-between", *MODE = "incremental-between-scan-mode";
  json_t *d24 = pk_diff(s2, s4, 3, 0), *d45 = pk_diff(s4, s5, 3, 0), *d25 = pk_diff(s2, s5, 3, 0);
  json_t *d24k = pk_diff(s2, s4, 3, 1), *d45k = pk_diff(s4, s5, 3, 1), *d25k = pk_diff(s2, s5, 3, 1);
  CHECK(json_array_size(d24) > 0 && json_array_size(d45) > 0);
  /* 4 -> 5 removes a key: a retraction appears only with row kinds */
  CHECK(json_array_size(d45k) > json_array_size(d45));

  check_read("ids 2,4 diff", name, IB, "2,4", MODE, "diff", NULL, NULL, 0, d24, 1);
  check_read("ids 4,5 diff", name, IB, "4,5", MODE, "diff", NULL, NULL, 0, d45, 1);
  check_read("ids 2,5 diff", name, IB, "2,5", MODE, "diff", NULL, NULL, 0, d25, 1);
  check_read("ids 2,4 diff +kinds", name, IB, "2,4", MODE, "diff", NULL, NULL, 1, d24k, 1);
  check_read("ids 4,5 diff +kinds", name, IB, "4,5", MODE, "diff", NULL, NULL, 1, d45k, 1);
  check_read("ids 2,5 diff +kinds", name, IB, "2,5", MODE, "diff", NULL, NULL, 1, d25k, 1);
  g_parallelism = 2; /* buckets read ahead by worker threads */
  check_read("ids 2,5 diff +kinds, 2 threads", name, IB, "2,5", MODE, "diff", NULL, NULL, 1, d25k, 1);
  g_parallelism = 1;
  /* two tags: diff by default, whatever the scan mode */
  check_read("tags t2,t4", name, IB, "t2,t4", NULL, NULL, NULL, NULL, 0, d24, 1);
  check_read("tags t4,t5 +kinds", name, IB, "t4,t5", NULL, NULL, NULL, NULL, 1, d45k, 1);
  check_read("tags t2,t5 delta mode set", name, IB, "t2,t5", MODE, "delta", NULL, NULL, 0, d25, 1);
  /* timestamps: the snapshots' commit times select the same snapshots */
  {
    char root[512], range[64];
    table_root(name, root, sizeof root);
    pm_error err;
    pm_error_clear(&err);
    pm_snapshot *a = NULL, *b = NULL;
    CHECK_OK(pm_snapshot_read(&(pm_snapshot_manager){pm_fs_local(), root, NULL}, 2, &a, &err), &err);
    CHECK_OK(pm_snapshot_read(&(pm_snapshot_manager){pm_fs_local(), root, NULL}, 4, &b, &err), &err);
    if (a && b) {
      snprintf(range, sizeof range, "%lld,%lld", (long long)a->time_millis, (long long)b->time_millis);
      check_read("timestamps 2,4 diff", name, "incremental-between-timestamp", range, MODE, "diff", NULL, NULL, 0,
                 d24, 1);
      /* a start before the first snapshot (id 1): a batch read of the end snapshot */
      snprintf(range, sizeof range, "0,%lld", (long long)b->time_millis);
      check_read("timestamps 0,4 diff", name, "incremental-between-timestamp", range, MODE, "diff", NULL, NULL, 0, s4,
                 0);
    }
    pm_snapshot_free(a);
    pm_snapshot_free(b);
  }
  /* planned splits survive their wire form; a partition filter applies to both sides */
  {
    pm_table *t = open_with(name, IB, "t2,t5", NULL, NULL, NULL, NULL);
    pm_error err;
    pm_error_clear(&err);
    json_t *rows = json_array(), *rows10 = json_array(), *rows20 = json_array();
    size_t n_all = 0, n10 = 0, n20 = 0;
    CHECK(t != NULL);
    if (t) {
      CHECK_OK(read_via_wire(t, NULL, rows, &n_all, &err), &err);
      check_rows("wire t2,t5", d25, rows, 0);
      CHECK_OK(read_via_wire(t, "f1 = 10", rows10, &n10, &err), &err);
      json_t *e10 = rows_where_int(d25, 1, 10);
      check_rows("wire t2,t5 f1 = 10", e10, rows10, 0);
      CHECK(n10 < n_all);
      json_decref(e10);
      CHECK_OK(read_via_wire(t, "f1 = 20", rows20, &n20, &err), &err);
      /* no row of f1=20 changed between 2 and 5 (its files were compacted: equal rows, no output) */
      CHECK_EQ_INT((int)json_array_size(rows20), 0);
      CHECK(n20 <= n10);
    }
    json_decref(rows);
    json_decref(rows10);
    json_decref(rows20);
    pm_table_free(t);
  }
  /* start == end: nothing */
  json_t *none = json_array();
  check_read("ids 4,4 diff", name, IB, "4,4", MODE, "diff", NULL, NULL, 1, none, 0);
  check_read("tags t4,t4", name, IB, "t4,t4", NULL, NULL, NULL, NULL, 1, none, 0);

  /* tag-to-snapshot = true: the delta path between the tagged snapshot ids */
  {
    pm_table *t = open_with(name, IB, "2,4", MODE, "delta", NULL, NULL);
    json_t *delta = json_array();
    pm_error err;
    pm_error_clear(&err);
    CHECK(t != NULL);
    if (t) CHECK_OK(read_all(t, 1, delta, NULL, &err), &err);
    CHECK(json_array_size(delta) > 0);
    check_read("tags t2,t4 tag-to-snapshot", name, IB, "t2,t4", "incremental-between-tag-to-snapshot", "true", NULL,
               NULL, 1, delta, 0);
    json_decref(delta);
    pm_table_free(t);
  }

  /* errors */
  char msg[1024];
  int rc = plan_status(name, IB, "2,4", MODE, "bogus", NULL, NULL, 1, msg, sizeof msg);
  CHECK_EQ_INT(rc, PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(msg, "bogus") != NULL, "%s", msg);
  rc = plan_status(name, IB, "t2,t4", MODE, "diff", "incremental-between-tag-to-snapshot", "true", 1, msg, sizeof msg);
  CHECK_EQ_INT(rc, PAIMON_ERR_UNSUPPORTED);
  rc = plan_status(name, IB, "t4,t2", NULL, NULL, NULL, NULL, 1, msg, sizeof msg);
  CHECK_EQ_INT(rc, PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(msg, "t4") && strstr(msg, "t2"), "%s", msg);
  rc = plan_status(name, IB, "t2,nosuchtag", NULL, NULL, NULL, NULL, 1, msg, sizeof msg);
  CHECK_EQ_INT(rc, PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(msg, "nosuchtag") != NULL, "%s", msg);
  rc = plan_status(name, IB, "5,2", MODE, "diff", NULL, NULL, 1, msg, sizeof msg);
  CHECK_EQ_INT(rc, PAIMON_ERR_INVALID_ARGUMENT);
  rc = plan_status(name, IB, "2,42", MODE, "diff", NULL, NULL, 1, msg, sizeof msg);
  CHECK_EQ_INT(rc, PAIMON_ERR_NOT_FOUND);
  CHECK_MSG(strstr(msg, "42") != NULL, "%s", msg);
  /* callers that only read DataSplits are told, not given a wrong answer */
  rc = plan_status(name, IB, "t2,t4", NULL, NULL, NULL, NULL, 0, msg, sizeof msg);
  CHECK_EQ_INT(rc, PAIMON_ERR_UNSUPPORTED);
  rc = plan_status(name, IB, "2,4", MODE, "delta", NULL, NULL, 0, msg, sizeof msg);
  CHECK_EQ_INT(rc, 0);

  /* snapshot 1 expired (earliest = 2): a start before it diffs from the earliest snapshot */
  {
    char root[512], cmd[1200], range[64];
    table_root(name, root, sizeof root);
    snprintf(cmd, sizeof cmd, "rm '%s/snapshot/snapshot-1' && printf 2 > '%s/snapshot/EARLIEST'", root, root);
    CHECK_EQ_INT(system(cmd), 0);
    pm_error err;
    pm_error_clear(&err);
    pm_snapshot *b = NULL;
    CHECK_OK(pm_snapshot_read(&(pm_snapshot_manager){pm_fs_local(), root, NULL}, 4, &b, &err), &err);
    if (b) {
      snprintf(range, sizeof range, "0,%lld", (long long)b->time_millis);
      check_read("timestamps 0,4 diff, 1 expired", name, "incremental-between-timestamp", range, MODE, "diff", NULL,
                 NULL, 0, d24, 1);
    }
    pm_snapshot_free(b);
  }

  json_decref(none);
  json_decref(d24);
  json_decref(d45);
  json_decref(d25);
  json_decref(d24k);
  json_decref(d45k);
  json_decref(d25k);
  json_decref(s2);
  json_decref(s4);
  json_decref(s5);
}

/* ---- primary-key table with deletion vectors: snapshots 6 and 8 ---- */

static void test_pk_dv(void) {
  const char *name = "pk_09";
  CHECK_EQ_INT(copy_table(name), 0);
  CHECK_EQ_INT(add_tag(name, "a", 6), 0);
  CHECK_EQ_INT(add_tag(name, "b", 8), 0);
  json_t *s6 = expected_rows(name, 6), *s8 = expected_rows(name, 8);
  CHECK(s6 && s8);
  if (!s6 || !s8) return;
  json_t *d = pk_diff(s6, s8, 3, 0), *dk = pk_diff(s6, s8, 3, 1);
  CHECK(json_array_size(d) > 0);
  check_read("dv ids 6,8 diff", name, "incremental-between", "6,8", "incremental-between-scan-mode", "diff", NULL,
             NULL, 0, d, 1);
  check_read("dv tags a,b +kinds", name, "incremental-between", "a,b", NULL, NULL, NULL, NULL, 1, dk, 1);
  json_decref(d);
  json_decref(dk);
  json_decref(s6);
  json_decref(s8);
}

/* ---- append table: snapshots 1, 3 (appends) and 5 (full compaction) ---- */

static void test_append(void) {
  const char *name = "append_09";
  CHECK_EQ_INT(copy_table(name), 0);
  CHECK_EQ_INT(add_tag(name, "s1", 1), 0);
  CHECK_EQ_INT(add_tag(name, "s3", 3), 0);
  json_t *s1 = expected_rows(name, 1), *s3 = expected_rows(name, 3), *s5 = expected_rows(name, 5);
  CHECK(s1 && s3 && s5);
  if (!s1 || !s3 || !s5) return;
  /* snapshots 2 and 3 only added files: the files only in 3 hold s3 - s1 */
  json_t *d13 = multiset_minus(s3, s1);
  CHECK_EQ_INT((int)json_array_size(d13), (int)(json_array_size(s3) - json_array_size(s1)));
  check_read("append ids 1,3 diff", name, "incremental-between", "1,3", "incremental-between-scan-mode", "diff", NULL,
             NULL, 0, d13, 1);
  check_read("append tags s1,s3", name, "incremental-between", "s1,s3", NULL, NULL, NULL, NULL, 0, d13, 1);
  /* snapshot 5 compacted files: the rewritten files are only "after", so what
   * is read is part of s5 and never a retraction */
  {
    pm_table *t = open_with(name, "incremental-between", "3,5", "incremental-between-scan-mode", "diff", NULL, NULL);
    json_t *rows = json_array();
    pm_error err;
    pm_error_clear(&err);
    CHECK(t != NULL);
    if (t) CHECK_OK(read_all(t, 1, rows, NULL, &err), &err);
    CHECK(json_array_size(rows) > 0);
    json_t *plain = json_array();
    for (size_t i = 0; i < json_array_size(rows); i++) {
      json_t *r = json_array_get(rows, i);
      CHECK_EQ_STR(json_string_value(json_array_get(r, 0)), "+");
      json_t *p = json_deep_copy(r);
      json_array_remove(p, 0);
      json_array_append_new(plain, p);
    }
    json_t *rest = multiset_minus(s5, plain);
    CHECK_EQ_INT((int)json_array_size(rest), (int)(json_array_size(s5) - json_array_size(plain)));
    json_decref(rest);
    json_decref(plain);
    json_decref(rows);
    pm_table_free(t);
  }
  json_decref(d13);
  json_decref(s1);
  json_decref(s3);
  json_decref(s5);
}

int main(void) {
  snprintf(tmp_root, sizeof tmp_root, "/tmp/pm_incr_diff_XXXXXX");
  if (!mkdtemp(tmp_root)) {
    perror("mkdtemp");
    return 1;
  }
  RUN_TEST(test_pk_mor);
  RUN_TEST(test_pk_dv);
  RUN_TEST(test_append);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmp_root);
  TEST_MAIN_END();
}
