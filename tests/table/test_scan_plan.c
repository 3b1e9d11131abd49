/* Scan planning on the fixture tables: row counts of planned files vs the expected results,
 * time-travel selectors and their errors, partition and bucket pruning, damaged tables. */
#include <jansson.h>
#include <unistd.h>

#include "harness.h"
#include "io/file.h"
#include "meta/split.h"
#include "table/catalog.h"
#include "table/read.h"
#include "table/scan.h"

#define WH_PARQUET PM_SHARED("fixtures/warehouse/parquet")

static pm_table *open_table_in(const char *wh, const char *ident, const char *k1, const char *v1, const char *k2,
                               const char *v2) {
  pm_error err = {0};
  pm_options o, d;
  pm_options_init(&o);
  pm_options_init(&d);
  pm_options_set(&o, "warehouse", wh, &err);
  if (k1) pm_options_set(&d, k1, v1, &err);
  if (k2) pm_options_set(&d, k2, v2, &err);
  pm_catalog *c = NULL;
  pm_table *t = NULL;
  CHECK_OK(pm_catalog_open(&o, &c, &err), &err);
  if (c) CHECK_OK(pm_catalog_get_table(c, ident, &d, &t, &err), &err);
  pm_catalog_free(c);
  pm_options_clear(&o);
  pm_options_clear(&d);
  return t;
}

static pm_predicate *parse(pm_table *t, const char *text) {
  pm_pred_column cols[64];
  size_t n = t->schema->n_fields;
  for (size_t i = 0; i < n && i < 64; i++) {
    cols[i].name = t->schema->fields[i].name;
    cols[i].index = (int32_t)i;
    cols[i].field_id = t->schema->fields[i].id;
    cols[i].type = t->schema->fields[i].type;
  }
  pm_error err = {0};
  pm_predicate *p = NULL;
  CHECK_OK(pm_pred_parse(text, cols, n, 1, &p, &err), &err);
  return p;
}

static int64_t plan_rows(const pm_plan *p, int *dv_unknown) {
  int64_t rows = 0;
  for (size_t i = 0; i < p->n_splits; i++) {
    const pm_data_split *s = p->splits[i];
    for (size_t f = 0; f < s->n_data_files; f++) {
      rows += s->data_files[f].row_count;
      if (s->deletion_files && s->deletion_files[f].path) {
        if (s->deletion_files[f].cardinality < 0) *dv_unknown = 1;
        else rows -= s->deletion_files[f].cardinality;
      }
    }
  }
  return rows;
}

static size_t plan_files(const pm_plan *p) {
  size_t n = 0;
  for (size_t i = 0; i < p->n_splits; i++) n += p->splits[i]->n_data_files;
  return n;
}

/* For every expected result of an append (non data-evolution) or deletion-vector table (Avro
 * or ORC manifests), the planned files must hold exactly the expected number of rows. */
static void test_row_counts_match_expected(void) {
  pm_error err = {0};
  json_error_t je;
  json_t *all = json_load_file(PM_SHARED("fixtures/fixtures.json"), 0, &je);
  CHECK(all != NULL);
  size_t checked = 0;
  for (size_t i = 0; all && i < json_array_size(all); i++) {
    json_t *fx = json_array_get(all, i);
    const char *table = json_string_value(json_object_get(fx, "table"));
    const char *kind = json_string_value(json_object_get(fx, "kind"));
    json_t *feats = json_object_get(fx, "features");
    int skip = 0;
    int dv = 0;
    for (size_t k = 0; k < json_array_size(feats); k++) {
      const char *f = json_string_value(json_array_get(feats, k));
      if (strstr(f, "data-evolution") || strstr(f, "partial-update") || strstr(f, "sequence.field")) skip = 1;
      if (strstr(f, "deletion-vectors")) dv = 1;
    }
    if (!strcmp(kind, "primary-key") && !dv) skip = 1; /* merge-on-read: rows collapse by key */
    if (skip) continue;
    json_t *exps = json_object_get(fx, "expected");
    for (size_t k = 0; k < json_array_size(exps); k++) {
      char path[1024];
      snprintf(path, sizeof path, "%s/%s", PM_SHARED("fixtures/expected"), json_string_value(json_array_get(exps, k)));
      json_t *ex = json_load_file(path, 0, &je);
      if (!ex) continue;
      json_t *snap = json_object_get(ex, "snapshot");
      const char *branch = json_string_value(json_object_get(ex, "branch"));
      char root[1024], sid[32];
      snprintf(root, sizeof root, "%s/%s", PM_SHARED("fixtures/warehouse"), table);
      pm_table *t = NULL;
      pm_options d;
      pm_options_init(&d);
      if (json_is_integer(snap)) {
        snprintf(sid, sizeof sid, "%lld", (long long)json_integer_value(snap));
        pm_options_set(&d, "scan.snapshot-id", sid, &err);
      }
      CHECK_OK(pm_table_open_path(root, NULL, NULL, branch, &d, NULL, &t, &err), &err);
      pm_options_clear(&d);
      pm_plan *p = NULL;
      if (t) CHECK_OK(pm_scan_plan(t, NULL, -1, &p, &err), &err);
      if (p) {
        int unknown = 0;
        int64_t rows = plan_rows(p, &unknown);
        if (!unknown) {
          CHECK_MSG(rows == (int64_t)json_array_size(json_object_get(ex, "rows")), "%s: planned %lld rows, expected %zu",
                    path, (long long)rows, json_array_size(json_object_get(ex, "rows")));
          checked++;
        }
        if (json_is_integer(snap)) CHECK_EQ_INT(p->snapshot_id, json_integer_value(snap));
        else CHECK(!p->has_snapshot && p->n_splits == 0);
      }
      pm_plan_free(p);
      pm_table_free(t);
      json_decref(ex);
    }
  }
  CHECK_MSG(checked >= 40, "%zu checked", checked);
  json_decref(all);
}

static void test_pk09_plan(void) {
  pm_error err = {0};
  pm_table *t = open_table_in(WH_PARQUET, "pk_09.pk_09", NULL, NULL, NULL, NULL);
  if (!t) return;
  pm_plan *p = NULL;
  CHECK_OK(pm_scan_plan(t, NULL, -1, &p, &err), &err);
  if (p) {
    CHECK_EQ_INT(p->snapshot_id, 8);
    /* DV table: only compacted (level > 0) files are visible; one split per (partition, bucket) */
    CHECK_EQ_INT(p->n_splits, 3);
    for (size_t i = 0; i < p->n_splits; i++) {
      CHECK(p->splits[i]->raw_convertible);
      CHECK(p->splits[i]->deletion_files != NULL);
      for (size_t f = 0; f < p->splits[i]->n_data_files; f++) CHECK(p->splits[i]->data_files[f].level > 0);
      CHECK(pm_path_exists(p->splits[i]->bucket_path));
    }
    CHECK(p->explain.entries_pruned_level > 0);
  }
  pm_plan_free(p);
  pm_table_free(t);
}

static int plan_err(const char *k1, const char *v1, const char *k2, const char *v2, pm_error *err) {
  pm_table *t = open_table_in(WH_PARQUET, "pk_09.pk_09", k1, v1, k2, v2);
  if (!t) return -1;
  pm_plan *p = NULL;
  int rc = pm_scan_plan(t, NULL, -1, &p, err);
  int64_t id = p ? p->snapshot_id : -1;
  pm_plan_free(p);
  pm_table_free(t);
  return rc ? -rc : (int)id;
}

static int64_t snapshot_time(int id) {
  char path[512];
  snprintf(path, sizeof path, "%s/pk_09.db/pk_09/snapshot/snapshot-%d", WH_PARQUET, id);
  json_error_t je;
  json_t *j = json_load_file(path, 0, &je);
  int64_t t = j ? json_integer_value(json_object_get(j, "timeMillis")) : -1;
  json_decref(j);
  return t;
}

static void test_time_travel(void) {
  pm_error err = {0};
  char buf[64];
  CHECK_EQ_INT(plan_err("scan.snapshot-id", "6", NULL, NULL, &err), 6);
  CHECK_EQ_INT(plan_err("scan.version", "3", NULL, NULL, &err), 3);
  snprintf(buf, sizeof buf, "%lld", (long long)snapshot_time(5));
  CHECK_EQ_INT(plan_err("scan.timestamp-millis", buf, NULL, NULL, &err), 5);
  snprintf(buf, sizeof buf, "%lld", (long long)snapshot_time(5) + 1);
  CHECK_EQ_INT(plan_err("scan.timestamp-millis", buf, NULL, NULL, &err), 5);
  snprintf(buf, sizeof buf, "%lld", (long long)snapshot_time(1) - 1);
  CHECK_EQ_INT(plan_err("scan.timestamp-millis", buf, NULL, NULL, &err), -PAIMON_ERR_NOT_FOUND);
  CHECK(strstr(err.message, "scan.timestamp-millis") != NULL);
  CHECK_EQ_INT(plan_err("scan.timestamp", "2000-01-01 00:00:00", NULL, NULL, &err), -PAIMON_ERR_NOT_FOUND);
  CHECK_EQ_INT(plan_err("scan.timestamp", "2999-01-01 00:00:00", NULL, NULL, &err), 8);
  CHECK_EQ_INT(plan_err("scan.timestamp", "yesterday", NULL, NULL, &err), -PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(plan_err("scan.snapshot-id", "99", NULL, NULL, &err), -PAIMON_ERR_NOT_FOUND);
  CHECK(strstr(err.message, "99") != NULL && strstr(err.message, "[1, 8]") != NULL);
  CHECK_EQ_INT(plan_err("scan.snapshot-id", "x", NULL, NULL, &err), -PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(plan_err("scan.tag-name", "nope", NULL, NULL, &err), -PAIMON_ERR_NOT_FOUND);
  CHECK(strstr(err.message, "nope") != NULL);
  CHECK_EQ_INT(plan_err("scan.version", "nope", NULL, NULL, &err), -PAIMON_ERR_NOT_FOUND);
  CHECK_EQ_INT(plan_err("scan.snapshot-id", "1", "scan.tag-name", "t", &err), -PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "only one") != NULL);
  /* snapshot 1 of pk_09 only has level-0 files: nothing visible */
  pm_table *t = open_table_in(WH_PARQUET, "pk_09.pk_09", "scan.snapshot-id", "1", NULL, NULL);
  pm_plan *p = NULL;
  if (t) CHECK_OK(pm_scan_plan(t, NULL, -1, &p, &err), &err);
  if (p) CHECK(p->has_snapshot && p->snapshot_id == 1 && p->n_splits == 0);
  pm_plan_free(p);
  pm_table_free(t);
}

static void test_empty_table(void) {
  pm_error err = {0};
  pm_table *t = open_table_in(PM_SHARED("fixtures/warehouse/orc"), "append_table_with_nested_type.append_table_with_nested_type",
                              NULL, NULL, NULL, NULL);
  pm_plan *p = NULL;
  if (t) CHECK_OK(pm_scan_plan(t, NULL, -1, &p, &err), &err);
  if (p) CHECK(!p->has_snapshot && p->snapshot_id == 0 && p->n_splits == 0);
  pm_plan_free(p);
  if (t) CHECK(pm_scan_plan(t, NULL, -1, &p, &err) == 0 && p);
  pm_plan_free(p);
  pm_table_free(t);
  t = open_table_in(PM_SHARED("fixtures/warehouse/orc"), "append_table_with_nested_type.append_table_with_nested_type",
                    "scan.snapshot-id", "1", NULL, NULL);
  p = NULL;
  if (t) CHECK(pm_scan_plan(t, NULL, -1, &p, &err) == PAIMON_ERR_NOT_FOUND);
  pm_table_free(t);
}

static void test_partition_and_bucket_pruning(void) {
  pm_error err = {0};
  pm_table *t = open_table_in(WH_PARQUET, "pk_table_scan_and_read_mor.pk_table_scan_and_read_mor", NULL, NULL, NULL, NULL);
  if (!t) return;
  pm_plan *all = NULL, *p = NULL;
  CHECK_OK(pm_scan_plan(t, NULL, -1, &all, &err), &err);
  pm_predicate *f = parse(t, "f1 = 10");
  CHECK_OK(pm_scan_plan(t, f, -1, &p, &err), &err);
  if (all && p) {
    size_t in10 = 0;
    for (size_t i = 0; i < all->n_splits; i++) in10 += strstr(all->splits[i]->bucket_path, "/f1=10/") != NULL;
    CHECK(in10 > 0 && in10 < all->n_splits);
    CHECK_EQ_INT(p->n_splits, in10);
    for (size_t i = 0; i < p->n_splits; i++) CHECK(strstr(p->splits[i]->bucket_path, "/f1=10/") != NULL);
    CHECK(p->explain.entries_pruned_partition + p->explain.manifests_pruned_partition > 0);
  }
  pm_plan_free(p);
  pm_pred_free(f);
  /* bucket-key f2 (FORMAT.md 6.3: f2 = 1 hashes to bucket 0 of 2, f2 = 0 to bucket 1) */
  const char *bucket_key = pm_options_get(&t->options, "bucket-key");
  int key_is_f2 = bucket_key && !strcmp(bucket_key, "f2");
  if (!key_is_f2 && t->n_bucket_keys == 1) key_is_f2 = !strcmp(t->bucket_keys[0], "f2");
  if (key_is_f2 && t->bucket == 2) {
    f = parse(t, "f2 = 1");
    p = NULL;
    CHECK_OK(pm_scan_plan(t, f, -1, &p, &err), &err);
    if (p) {
      CHECK(p->n_splits > 0);
      for (size_t i = 0; i < p->n_splits; i++) CHECK_EQ_INT(p->splits[i]->bucket, 0);
      CHECK(p->explain.entries_pruned_bucket > 0);
    }
    pm_plan_free(p);
    pm_pred_free(f);
    f = parse(t, "f2 in (0, 1)");
    p = NULL;
    CHECK_OK(pm_scan_plan(t, f, -1, &p, &err), &err);
    if (p && all) CHECK_EQ_INT(plan_files(p), plan_files(all));
    pm_plan_free(p);
    pm_pred_free(f);
  }
  pm_plan_free(all);
  pm_table_free(t);
}

static void test_value_stats_pruning(void) {
  pm_error err = {0};
  pm_table *t = open_table_in(WH_PARQUET, "append_table_with_alter_table.append_table_with_alter_table", NULL, NULL,
                              NULL, NULL);
  if (!t) return;
  pm_plan *p = NULL;
  pm_predicate *f = parse(t, "k > 2000000000");
  CHECK_OK(pm_scan_plan(t, f, -1, &p, &err), &err);
  if (p) {
    CHECK_EQ_INT(p->n_splits, 0);
    CHECK(p->explain.files_pruned_value_stats > 0);
  }
  pm_plan_free(p);
  pm_pred_free(f);
  /* `e` was added by the second schema: old files hold only nulls for it */
  f = parse(t, "e is null");
  p = NULL;
  CHECK_OK(pm_scan_plan(t, f, -1, &p, &err), &err);
  if (p) CHECK(p->n_splits > 0);
  pm_plan_free(p);
  pm_pred_free(f);
  /* limit pushdown: with limit 1 the first split already covers it */
  p = NULL;
  CHECK_OK(pm_scan_plan(t, NULL, 1, &p, &err), &err);
  if (p) CHECK_EQ_INT(p->n_splits, 1);
  pm_plan_free(p);
  p = NULL;
  CHECK_OK(pm_scan_plan(t, NULL, 0, &p, &err), &err);
  if (p) CHECK_EQ_INT(p->n_splits, 0);
  pm_plan_free(p);
  pm_table_free(t);
}

/* §4.8: a primary-key table without deletion vectors plans only what a small limit needs
 * from non-overlapping buckets; the planned files still hold at least `limit` rows. */
static void test_pk_limit_pushdown(void) {
  pm_error err = {0};
  pm_table *t = open_table_in(WH_PARQUET, "pk_table_scan_and_read_mor.pk_table_scan_and_read_mor", NULL, NULL, NULL,
                              NULL);
  if (!t) return;
  pm_plan *all = NULL, *p = NULL;
  CHECK_OK(pm_scan_plan(t, NULL, -1, &all, &err), &err);
  CHECK_OK(pm_scan_plan(t, NULL, 1, &p, &err), &err);
  if (all && p) {
    int unknown = 0;
    CHECK(plan_files(p) < plan_files(all));
    CHECK(p->n_splits >= 1 && plan_rows(p, &unknown) >= 1);
    CHECK(p->explain.files_pruned_limit + p->explain.splits_pruned_limit > 0);
  }
  pm_plan_free(p);
  /* a value filter disables the pushdown */
  pm_predicate *f = parse(t, "f3 > 0");
  p = NULL;
  CHECK_OK(pm_scan_plan(t, f, 1, &p, &err), &err);
  if (p && all) CHECK_EQ_INT(plan_files(p), plan_files(all));
  pm_plan_free(p);
  pm_pred_free(f);
  pm_plan_free(all);
  pm_table_free(t);
}

static void test_incremental(void) {
  pm_error err = {0};
  pm_table *t = open_table_in(WH_PARQUET, "pk_09.pk_09", "incremental-between", "1,3", NULL, NULL);
  pm_plan *p = NULL;
  if (t) CHECK_OK(pm_scan_plan(t, NULL, -1, &p, &err), &err);
  if (p) {
    CHECK_EQ_INT(p->snapshot_id, 3);
    for (size_t i = 0; i < p->n_splits; i++) CHECK(p->splits[i]->is_streaming);
  }
  pm_plan_free(p);
  pm_table_free(t);
  /* delta mode reads the APPEND snapshots' delta files: their rows add up to the
   * snapshots' deltaRecordCount (9 + 2 + 3 + 1 for snapshots 1, 3, 5, 7 of pk_09) */
  static const struct {
    const char *range;
    int64_t rows;
  } ranges[] = {{"0,8", 15}, {"1,3", 2}, {"2,3", 2}, {"3,4", 0}, {"4,4", 0}};
  for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
    t = open_table_in(WH_PARQUET, "pk_09.pk_09", "incremental-between", ranges[r].range,
                      "incremental-between-scan-mode", "delta");
    p = NULL;
    if (t) CHECK_OK(pm_scan_plan(t, NULL, -1, &p, &err), &err);
    if (p) {
      int unknown = 0;
      CHECK_MSG(plan_rows(p, &unknown) == ranges[r].rows, "range %s", ranges[r].range);
    }
    pm_plan_free(p);
    pm_table_free(t);
  }
  /* timestamps: (latest at or before start, latest at or before end] */
  char tr[64];
  snprintf(tr, sizeof tr, "%lld,%lld", (long long)snapshot_time(1), (long long)snapshot_time(3) + 1);
  t = open_table_in(WH_PARQUET, "pk_09.pk_09", "incremental-between-timestamp", tr, NULL, NULL);
  p = NULL;
  if (t) CHECK_OK(pm_scan_plan(t, NULL, -1, &p, &err), &err);
  if (p) {
    int unknown = 0;
    CHECK_EQ_INT(p->snapshot_id, 3);
    CHECK_EQ_INT(plan_rows(p, &unknown), 2);
  }
  pm_plan_free(p);
  pm_table_free(t);
  /* latest-delta: the APPEND delta of the latest snapshot (8 is a COMPACT: nothing) */
  t = open_table_in(WH_PARQUET, "append_table_with_alter_table.append_table_with_alter_table", "scan.mode",
                    "latest-delta", NULL, NULL);
  p = NULL;
  if (t) CHECK_OK(pm_scan_plan(t, NULL, -1, &p, &err), &err);
  if (p) {
    int unknown = 0;
    CHECK_EQ_INT(p->snapshot_id, 2);
    CHECK_EQ_INT(plan_rows(p, &unknown), 5); /* snapshot-2: APPEND, deltaRecordCount 5 */
  }
  pm_plan_free(p);
  pm_table_free(t);
  /* from-file-creation-time: only files created at or after the given time */
  t = open_table_in(WH_PARQUET, "append_table_with_alter_table.append_table_with_alter_table", "scan.mode",
                    "from-file-creation-time", "scan.file-creation-time-millis", "99999999999999");
  p = NULL;
  if (t) CHECK_OK(pm_scan_plan(t, NULL, -1, &p, &err), &err);
  if (p) CHECK_EQ_INT(p->n_splits, 0);
  pm_plan_free(p);
  pm_table_free(t);
  t = open_table_in(WH_PARQUET, "pk_09.pk_09", "scan.mode", "latest-delta", NULL, NULL);
  p = NULL;
  if (t) CHECK_OK(pm_scan_plan(t, NULL, -1, &p, &err), &err);
  if (p) CHECK_EQ_INT(p->n_splits, 0);
  pm_plan_free(p);
  pm_table_free(t);
  t = open_table_in(WH_PARQUET, "pk_09.pk_09", "incremental-between", "5,2", NULL, NULL);
  if (t) CHECK(pm_scan_plan(t, NULL, -1, &p, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  pm_table_free(t);
  t = open_table_in(WH_PARQUET, "pk_09.pk_09", "incremental-between", "1,42", NULL, NULL);
  if (t) CHECK(pm_scan_plan(t, NULL, -1, &p, &err) == PAIMON_ERR_NOT_FOUND);
  pm_table_free(t);
}

static void test_fallback_branch(void) {
  pm_error err = {0};
  const char *id = "append_table_with_rt_branch.append_table_with_rt_branch";
  pm_table *t = open_table_in(WH_PARQUET, id, NULL, NULL, NULL, NULL);
  pm_plan *p = NULL;
  if (t) CHECK_OK(pm_scan_plan(t, NULL, -1, &p, &err), &err);
  if (p) CHECK(p->explain.fallback_splits > 0);
  pm_plan_free(p);
  pm_table_free(t);
}

/* The fallback branch's table is opened once per table handle: planning and reading (table
 * layer, pm_read_splits_with_fallback) use the handle pm_table_fallback keeps; the rows read are
 * the fixture's expected rows. */
static void test_fallback_handle_once(void) {
  pm_error err = {0};
  const char *id = "append_table_with_rt_branch.append_table_with_rt_branch";
  pm_table *t = open_table_in(WH_PARQUET, id, NULL, NULL, NULL, NULL);
  pm_table *a = NULL, *b = NULL;
  if (t) CHECK_OK(pm_table_fallback(t, &a, &err), &err);
  if (t) CHECK_OK(pm_table_fallback(t, &b, &err), &err);
  CHECK(a != NULL && a == b);
  if (a) CHECK_EQ_STR(a->branch, "rt");
  char path[512];
  snprintf(path, sizeof path, "%s/parquet__append_table_with_rt_branch__snapshot-1.json", PM_SHARED("fixtures/expected"));
  json_error_t je;
  json_t *ex = json_load_file(path, 0, &je);
  CHECK(ex != NULL);
  for (int round = 0; t && a && round < 2; round++) {
    pm_plan *p = NULL;
    CHECK_OK(pm_scan_plan(t, NULL, -1, &p, &err), &err);
    if (!p) break;
    CHECK(p->fallback_start < p->n_splits);
    pm_table *c = NULL;
    CHECK_OK(pm_table_fallback(t, &c, &err), &err);
    CHECK(c == a); /* planning did not open another */
    int *fb = calloc(p->n_splits + 1, sizeof *fb);
    for (size_t i = p->fallback_start; fb && i < p->n_splits; i++) fb[i] = 1;
    struct ArrowArrayStream s;
    int64_t rows = 0;
    if (fb && pm_read_splits_with_fallback(t, p->splits, fb, p->n_splits, NULL, &s, &err) == 0) {
      CHECK_EQ_INT(atomic_load(&a->refs), 2); /* the stream reads with the kept handle */
      struct ArrowArray batch;
      while (s.get_next(&s, &batch) == 0 && batch.release) {
        rows += batch.length;
        batch.release(&batch);
      }
      s.release(&s);
    } else {
      CHECK_MSG(0, "%s", err.message);
    }
    CHECK_EQ_INT(atomic_load(&a->refs), 1);
    CHECK_EQ_INT(rows, (int64_t)json_array_size(json_object_get(ex, "rows")));
    free(fb);
    pm_plan_free(p);
  }
  json_decref(ex);
  pm_table_free(t);
}

/* Splits planned by Java for append_table_with_rt_branch (serialized next to the table):
 * the same (partition dir, bucket, total buckets, files, raw flag, snapshot) as ours. */
static void split_key(const pm_data_split *s, char *buf, size_t cap) {
  const char *rel = strstr(s->bucket_path, "append_table_with_rt_branch/");
  size_t k = (size_t)snprintf(buf, cap, "%lld|%s|%d|%d|%d|", (long long)s->snapshot_id, rel ? rel : s->bucket_path,
                              s->bucket, s->total_buckets, s->raw_convertible);
  for (size_t f = 0; f < s->n_data_files && k < cap; f++)
    k += (size_t)snprintf(buf + k, cap - k, "%s,", s->data_files[f].file_name);
}

static int cmp_strp(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }

static void compare_with_java(const char *branch, const char *pattern, int n_java) {
  pm_error err = {0};
  char root[1024];
  snprintf(root, sizeof root, "%s/append_table_with_rt_branch.db/append_table_with_rt_branch", WH_PARQUET);
  char java[8][1024], ours[8][1024];
  int nj = 0, no = 0;
  for (int i = 0; i < n_java && nj < 8; i++) {
    char path[1200];
    snprintf(path, sizeof path, "%s/data-splits/%s%d", root, pattern, i);
    pm_buf b;
    pm_buf_init(&b);
    CHECK_OK(pm_read_file(path, &b, 0, &err), &err);
    pm_data_split *s = NULL;
    size_t used = 0;
    int version = 0;
    /* the files carry one trailing byte after the split record */
    CHECK_OK(pm_data_split_decode_prefix(b.data, b.len, &s, &used, &version, &err), &err);
    if (s) split_key(s, java[nj++], sizeof java[0]);
    pm_data_split_free(s);
    pm_buf_free(&b);
  }
  pm_table *t = NULL;
  CHECK_OK(pm_table_open_path(root, NULL, NULL, branch, NULL, NULL, &t, &err), &err);
  pm_plan *p = NULL;
  if (t) CHECK_OK(pm_scan_plan(t, NULL, -1, &p, &err), &err);
  for (size_t i = 0; p && i < p->n_splits && no < 8; i++) split_key(p->splits[i], ours[no++], sizeof ours[0]);
  CHECK_EQ_INT(no, nj);
  qsort(java, (size_t)nj, sizeof java[0], cmp_strp);
  qsort(ours, (size_t)no, sizeof ours[0], cmp_strp);
  for (int i = 0; i < nj && i < no; i++) CHECK_EQ_STR(ours[i], java[i]);
  pm_plan_free(p);
  pm_table_free(t);
}

static void test_java_splits(void) {
  compare_with_java(NULL, "data_split-", 3);   /* main + fallback branch rt */
  compare_with_java("rt", "data_split-rt-", 4); /* the rt branch itself (primary-key table) */
}

/* Every split Java serialized next to an ORC fixture table (data_splits/) appears in our
 * plan of the same snapshot: same partition/bucket directory, bucket, files in the same
 * order, raw flag. (Each sample is one split of Java's plan.) */
static void bucket_rel(const char *bucket_path, const char *table, char *out, size_t cap) {
  char needle[256];
  snprintf(needle, sizeof needle, "%s/", table);
  const char *p = strstr(bucket_path, needle);
  snprintf(out, cap, "%s", p ? p + strlen(needle) : bucket_path);
}

static void split_sig(const pm_data_split *s, const char *table, char *buf, size_t cap) {
  char rel[512];
  bucket_rel(s->bucket_path, table, rel, sizeof rel);
  size_t k = (size_t)snprintf(buf, cap, "%s|%d|%d|", rel, s->bucket, s->raw_convertible);
  for (size_t f = 0; f < s->n_data_files && k < cap; f++)
    k += (size_t)snprintf(buf + k, cap - k, "%s@%d,", s->data_files[f].file_name, s->data_files[f].level);
}

static void check_java_sample(const char *table, const char *file) {
  pm_error err = {0};
  char root[1024], path[1200];
  snprintf(root, sizeof root, "%s/%s.db/%s", PM_SHARED("fixtures/warehouse/orc"), table, table);
  snprintf(path, sizeof path, "%s/data_splits/%s", root, file);
  pm_buf b;
  pm_buf_init(&b);
  CHECK_OK(pm_read_file(path, &b, 0, &err), &err);
  pm_data_split *js = NULL;
  size_t used = 0;
  int version = 0;
  CHECK_OK(pm_data_split_decode_prefix(b.data, b.len, &js, &used, &version, &err), &err);
  pm_buf_free(&b);
  if (!js) return;
  char want[4096], got[4096], sid[32];
  split_sig(js, table, want, sizeof want);
  snprintf(sid, sizeof sid, "%lld", (long long)js->snapshot_id);
  pm_options d;
  pm_options_init(&d);
  pm_options_set(&d, "scan.snapshot-id", sid, &err);
  pm_table *t = NULL;
  CHECK_OK(pm_table_open_path(root, NULL, NULL, NULL, &d, NULL, &t, &err), &err);
  pm_options_clear(&d);
  pm_plan *p = NULL;
  if (t) CHECK_OK(pm_scan_plan(t, NULL, -1, &p, &err), &err);
  int found = 0;
  for (size_t i = 0; p && i < p->n_splits && !found; i++) {
    split_sig(p->splits[i], table, got, sizeof got);
    found = !strcmp(got, want);
    if (found && js->deletion_files) CHECK(p->splits[i]->deletion_files != NULL);
  }
  CHECK_MSG(found, "%s/%s (snapshot %s): Java split %s not in our plan", table, file, sid, want);
  pm_plan_free(p);
  pm_table_free(t);
  pm_data_split_free(js);
}

static void test_java_split_samples(void) {
  static const char *samples[][2] = {
      {"pk_09", "data_split-01"}, {"pk_09", "data_split-02"}, {"pk_09", "data_split-03"}, {"pk_09", "data_split-04"},
      {"append_09", "data_split-01"}, {"append_09", "data_split-02"}, {"append_09", "data_split-03"},
      {"append_10", "data_split-01"}, {"append_10_stats_dense_store", "data_split-01"},
      {"pk_dv_index_not_in_data_no_external", "data_split-01"},
      {"pk_dv_index_not_in_data_no_external", "data_split-02"},
      {"pk_dv_index_not_in_data_no_external", "data_split-03"},
      {"pk_dv_index_in_data_with_external", "data_split-01"}, {"pk_dv_index_in_data_with_external", "data_split-03"},
      {"pk_table_with_dv_cardinality", "data_split-01"}, {"append_table_with_first_row_id", "data_split-01"}};
  for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) check_java_sample(samples[i][0], samples[i][1]);
}

/* ---- damaged tables (copies in a temp dir) ---- */

static char tmp_root[256];

static int copy_table(const char *rel) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "rm -rf '%s/w' && mkdir -p '%s/w' && cp -r '%s/%s' '%s/w/' && chmod -R u+w '%s/w'",
           tmp_root, tmp_root, WH_PARQUET, rel, tmp_root, tmp_root);
  return system(cmd);
}

static int damaged_plan(const char *db, const char *k, const char *v, const char *where, pm_error *err) {
  char wh[512], ident[256];
  snprintf(wh, sizeof wh, "%s/w", tmp_root);
  snprintf(ident, sizeof ident, "%s.%s", db, db);
  pm_table *t = open_table_in(wh, ident, k, v, NULL, NULL);
  if (!t) return -1;
  pm_predicate *f = where ? parse(t, where) : NULL;
  pm_plan *p = NULL;
  int rc = pm_scan_plan(t, f, -1, &p, err);
  pm_plan_free(p);
  pm_pred_free(f);
  pm_table_free(t);
  return rc;
}

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
}

static void test_damaged_tables(void) {
  pm_error err = {0};
  char path[1024];
  snprintf(tmp_root, sizeof tmp_root, "/tmp/pm_scan_test_%d", (int)getpid());
  /* missing snapshot file */
  CHECK_EQ_INT(copy_table("pk_09.db"), 0);
  snprintf(path, sizeof path, "%s/w/pk_09.db/pk_09/snapshot/snapshot-8", tmp_root);
  unlink(path);
  CHECK(damaged_plan("pk_09", NULL, NULL, NULL, &err) != 0);
  CHECK_MSG(strstr(err.message, "snapshot-8") || strstr(err.message, "snapshot 8"), "%s", err.message);
  /* LATEST pointing past the last snapshot */
  CHECK_EQ_INT(copy_table("pk_09.db"), 0);
  snprintf(path, sizeof path, "%s/w/pk_09.db/pk_09/snapshot/LATEST", tmp_root);
  write_text(path, "12");
  int rc = damaged_plan("pk_09", NULL, NULL, NULL, &err);
  CHECK_MSG(rc != 0 ? strstr(err.message, "snapshot") != NULL : 1, "%s", err.message);
  /* corrupt manifest: every manifest file overwritten with garbage */
  CHECK_EQ_INT(copy_table("pk_09.db"), 0);
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "for f in '%s/w/pk_09.db/pk_09/manifest/'manifest-[0-9a-f]*; do printf 'garbage!' > \"$f\"; done",
           tmp_root);
  CHECK_EQ_INT(system(cmd), 0);
  CHECK(damaged_plan("pk_09", NULL, NULL, NULL, &err) == PAIMON_ERR_CORRUPT);
  CHECK_MSG(strstr(err.message, "/manifest/manifest-") != NULL, "%s", err.message);
  /* snapshot file that is not JSON */
  CHECK_EQ_INT(copy_table("pk_09.db"), 0);
  snprintf(path, sizeof path, "%s/w/pk_09.db/pk_09/snapshot/snapshot-8", tmp_root);
  write_text(path, "{ not json");
  CHECK(damaged_plan("pk_09", NULL, NULL, NULL, &err) == PAIMON_ERR_CORRUPT);
  CHECK_MSG(strstr(err.message, "snapshot-8") != NULL, "%s", err.message);
  /* manifest lists overwritten / manifests missing */
  CHECK_EQ_INT(copy_table("pk_09.db"), 0);
  snprintf(cmd, sizeof cmd, "for f in '%s/w/pk_09.db/pk_09/manifest/'manifest-list-*; do printf 'Obj' > \"$f\"; done",
           tmp_root);
  CHECK_EQ_INT(system(cmd), 0);
  CHECK(damaged_plan("pk_09", NULL, NULL, NULL, &err) == PAIMON_ERR_CORRUPT);
  CHECK_MSG(strstr(err.message, "/manifest/manifest-list-") != NULL, "%s", err.message);
  CHECK_EQ_INT(copy_table("pk_09.db"), 0);
  snprintf(cmd, sizeof cmd, "rm -f '%s/w/pk_09.db/pk_09/manifest/'manifest-[0-9a-f]*", tmp_root);
  CHECK_EQ_INT(system(cmd), 0);
  CHECK(damaged_plan("pk_09", NULL, NULL, NULL, &err) != 0);
  CHECK_MSG(strstr(err.message, "/manifest/manifest-") != NULL, "%s", err.message);
  /* data files written with a schema that no longer exists */
  CHECK_EQ_INT(copy_table("append_table_with_alter_table.db"), 0);
  snprintf(path, sizeof path, "%s/w/append_table_with_alter_table.db/append_table_with_alter_table/schema/schema-0",
           tmp_root);
  unlink(path);
  CHECK(damaged_plan("append_table_with_alter_table", NULL, NULL, "k > 1", &err) == PAIMON_ERR_CORRUPT);
  CHECK_MSG(strstr(err.message, "schema-0") != NULL && strstr(err.message, "/manifest/manifest-") != NULL, "%s",
            err.message);
  CHECK(damaged_plan("append_table_with_alter_table", NULL, NULL, NULL, &err) == PAIMON_ERR_CORRUPT);
  CHECK_MSG(strstr(err.message, "schema-0") != NULL, "%s", err.message);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  CHECK_EQ_INT(system(cmd), 0);
}

int main(void) {
  RUN_TEST(test_row_counts_match_expected);
  RUN_TEST(test_pk09_plan);
  RUN_TEST(test_time_travel);
  RUN_TEST(test_empty_table);
  RUN_TEST(test_partition_and_bucket_pruning);
  RUN_TEST(test_value_stats_pruning);
  RUN_TEST(test_pk_limit_pushdown);
  RUN_TEST(test_incremental);
  RUN_TEST(test_fallback_branch);
  RUN_TEST(test_fallback_handle_once);
  RUN_TEST(test_java_splits);
  RUN_TEST(test_java_split_samples);
  RUN_TEST(test_damaged_tables);
  TEST_MAIN_END();
}
