/* Public API end to end on fixture tables, compared with the expected-result JSON files. */
#include <jansson.h>
#include <math.h>

#include "harness.h"
#include "paimon/paimon.h"

#define WH PM_SHARED("fixtures/warehouse/parquet")

typedef struct rowset {
  char **rows;
  size_t n;
} rowset;

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }
static void rowset_add(rowset *r, const char *s) {
  r->rows = realloc(r->rows, (r->n + 1) * sizeof *r->rows);
  r->rows[r->n++] = strdup(s);
}
static void rowset_free(rowset *r) {
  for (size_t i = 0; i < r->n; i++) free(r->rows[i]);
  free(r->rows);
  memset(r, 0, sizeof *r);
}
static int rowset_equal(rowset *a, rowset *b) {
  if (a->n != b->n) return 0;
  qsort(a->rows, a->n, sizeof *a->rows, cmp_str);
  qsort(b->rows, b->n, sizeof *b->rows, cmp_str);
  for (size_t i = 0; i < a->n; i++)
    if (strcmp(a->rows[i], b->rows[i])) return 0;
  return 1;
}

/* pk_09 rows (f0 STRING, f1 INT, f2 INT, f3 DOUBLE) as "f0|f1|f2|f3" strings. */
typedef int (*row_pred)(const char *f0, int f1, int f2, double f3);

static void expected_rows(const char *file, row_pred keep, rowset *out) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", PM_SHARED("fixtures/expected"), file);
  json_error_t je;
  json_t *j = json_load_file(path, 0, &je);
  CHECK(j != NULL);
  json_t *rows = json_object_get(j, "rows");
  for (size_t i = 0; i < json_array_size(rows); i++) {
    json_t *r = json_array_get(rows, i);
    const char *f0 = json_string_value(json_array_get(r, 0));
    int f1 = (int)json_integer_value(json_array_get(r, 1)), f2 = (int)json_integer_value(json_array_get(r, 2));
    double f3 = json_number_value(json_array_get(r, 3));
    if (keep && !keep(f0, f1, f2, f3)) continue;
    char buf[512];
    snprintf(buf, sizeof buf, "%s|%d|%d|%.6g", f0, f1, f2, f3);
    rowset_add(out, buf);
  }
  json_decref(j);
}

static const char *col_str(const struct ArrowArray *a, int64_t i, int *len) {
  const int32_t *off = a->buffers[1];
  int64_t j = a->offset + i;
  *len = off[j + 1] - off[j];
  return (const char *)a->buffers[2] + off[j];
}

static void collect(struct ArrowArrayStream *s, rowset *out) {
  struct ArrowSchema schema;
  CHECK(s->get_schema(s, &schema) == 0);
  if (schema.release) {
    CHECK_EQ_INT(schema.n_children, 4);
    schema.release(&schema);
  }
  for (;;) {
    struct ArrowArray b;
    int rc = s->get_next(s, &b);
    CHECK_MSG(rc == 0, "%s", s->get_last_error(s));
    if (rc || !b.release) break;
    for (int64_t i = 0; i < b.length; i++) {
      int len;
      const char *f0 = col_str(b.children[0], i, &len);
      int32_t f1 = ((const int32_t *)b.children[1]->buffers[1])[b.children[1]->offset + i];
      int32_t f2 = ((const int32_t *)b.children[2]->buffers[1])[b.children[2]->offset + i];
      double f3 = ((const double *)b.children[3]->buffers[1])[b.children[3]->offset + i];
      char buf[512];
      snprintf(buf, sizeof buf, "%.*s|%d|%d|%.6g", len, f0, f1, f2, f3);
      rowset_add(out, buf);
    }
    b.release(&b);
  }
  s->release(s);
}

static paimon_catalog *open_catalog(void) {
  paimon_error err = {0};
  paimon_option o[] = {{"warehouse", WH}};
  paimon_catalog *c = NULL;
  CHECK_OK(paimon_catalog_open(o, 1, &c, &err), &err);
  return c;
}

static void read_all(paimon_read_builder *rb, rowset *out) {
  paimon_error err = {0};
  paimon_plan *plan = NULL;
  CHECK_OK(paimon_read_builder_plan(rb, &plan, &err), &err);
  struct ArrowArrayStream s;
  if (plan && paimon_read_plan(rb, plan, &s, &err) == 0) collect(&s, out);
  else CHECK_MSG(0, "%s", err.message);
  paimon_plan_free(plan);
}

static void test_catalog_and_table(void) {
  paimon_error err = {0};
  paimon_catalog *c = open_catalog();
  if (!c) return;
  char **names = NULL;
  size_t n = 0;
  CHECK_OK(paimon_catalog_list_databases(c, &names, &n, &err), &err);
  CHECK(n > 20);
  paimon_free_strings(names, n);
  paimon_table *t = NULL;
  CHECK_OK(paimon_catalog_get_table(c, "pk_09.pk_09", &t, &err), &err);
  if (t) {
    CHECK_EQ_STR(paimon_table_identifier(t), "pk_09.pk_09");
    CHECK_EQ_STR(paimon_table_branch(t), "main");
    CHECK_EQ_INT(paimon_table_num_primary_keys(t), 3);
    CHECK_EQ_STR(paimon_table_partition_key(t, 0), "f1");
    CHECK(paimon_table_partition_key(t, 1) == NULL);
    CHECK_EQ_STR(paimon_table_option(t, "bucket"), "2");
    int64_t latest = 0;
    CHECK_OK(paimon_table_latest_snapshot_id(t, &latest, &err), &err);
    CHECK_EQ_INT(latest, 8);
    struct ArrowSchema s;
    CHECK_OK(paimon_table_arrow_schema(t, &s, &err), &err);
    CHECK_EQ_INT(s.n_children, 4);
    CHECK_EQ_STR(s.children[0]->name, "f0");
    s.release(&s);
  }
  paimon_table_free(t);
  CHECK(paimon_catalog_get_table(c, "pk_09.nope", &t, &err) == PAIMON_ERR_NOT_FOUND);
  CHECK(t == NULL);
  CHECK(paimon_catalog_get_table(c, "pk_09.pk_09$snapshots", &t, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(paimon_catalog_open(NULL, 0, NULL, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  paimon_catalog_free(NULL);
  paimon_table_free(NULL);
  paimon_read_builder_free(NULL);
  paimon_plan_free(NULL);
  paimon_predicate_free(NULL);
  paimon_split_free(NULL);
  paimon_catalog_free(c);
}

static int f3_ge_12(const char *f0, int f1, int f2, double f3) { return (void)f0, (void)f1, (void)f2, f3 >= 12.0; }
static int f2_1_and_f3_gt_15(const char *f0, int f1, int f2, double f3) { return (void)f0, (void)f1, f2 == 1 && f3 > 15; }
static int f0_like(const char *f0, int f1, int f2, double f3) {
  return (void)f1, (void)f2, (void)f3, f0[0] == 'A' || (strlen(f0) > 1 && f0[1] == 'a');
}

static void test_reads(void) {
  paimon_error err = {0};
  paimon_catalog *c = open_catalog();
  paimon_table *t = NULL;
  if (c) CHECK_OK(paimon_catalog_get_table(c, "pk_09.pk_09", &t, &err), &err);
  if (!t) {
    paimon_catalog_free(c);
    return;
  }
  /* everything */
  paimon_read_builder *rb = NULL;
  CHECK_OK(paimon_read_builder_new(t, NULL, 0, &rb, &err), &err);
  rowset got = {0}, want = {0};
  read_all(rb, &got);
  expected_rows("parquet__pk_09__snapshot-8.json", NULL, &want);
  CHECK_MSG(rowset_equal(&got, &want), "got %zu rows, want %zu", got.n, want.n);
  rowset_free(&got);
  rowset_free(&want);

  /* predicate builder */
  paimon_predicate *a = NULL, *b = NULL, *both = NULL;
  CHECK_OK(paimon_predicate_equal(rb, "f2", paimon_literal_int64(1), &a, &err), &err);
  CHECK_OK(paimon_predicate_greater_than(rb, "f3", paimon_literal_double(15), &b, &err), &err);
  paimon_predicate *kids[2] = {a, b};
  CHECK_OK(paimon_predicate_and(kids, 2, &both, &err), &err);
  char *text = NULL;
  CHECK_OK(paimon_predicate_to_string(both, &text, &err), &err);
  CHECK(text && strstr(text, "f2 = 1") != NULL);
  paimon_free_string(text);
  CHECK_OK(paimon_read_builder_with_filter(rb, both, &err), &err);
  read_all(rb, &got);
  expected_rows("parquet__pk_09__snapshot-8.json", f2_1_and_f3_gt_15, &want);
  CHECK_MSG(rowset_equal(&got, &want), "filtered: got %zu rows, want %zu", got.n, want.n);
  rowset_free(&got);
  rowset_free(&want);

  /* parsed filter, case-insensitive */
  paimon_read_builder_with_case_sensitive(rb, 0);
  paimon_predicate *p = NULL;
  CHECK_OK(paimon_predicate_parse(rb, "F0 like 'A%' or f0 like '_a%'", &p, &err), &err);
  CHECK_OK(paimon_read_builder_with_filter(rb, p, &err), &err);
  read_all(rb, &got);
  expected_rows("parquet__pk_09__snapshot-8.json", f0_like, &want);
  CHECK_MSG(rowset_equal(&got, &want), "like: got %zu rows, want %zu", got.n, want.n);
  rowset_free(&got);
  rowset_free(&want);

  /* typed literal errors */
  CHECK(paimon_predicate_equal(rb, "f1", paimon_literal_string("abc"), &p, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "f1") != NULL);
  CHECK(paimon_predicate_equal(rb, "nope", paimon_literal_int64(1), &p, &err) == PAIMON_ERR_NOT_FOUND);
  CHECK(paimon_predicate_like(rb, "f1", "a%", &p, &err) == PAIMON_ERR_INVALID_ARGUMENT);

  /* limit 0 reads nothing */
  paimon_read_builder_with_filter(rb, NULL, &err);
  paimon_read_builder_with_limit(rb, 0);
  read_all(rb, &got);
  CHECK_EQ_INT(got.n, 0);
  rowset_free(&got);
  paimon_read_builder_free(rb);

  /* projection + filter through the stream, builder freed while streaming */
  CHECK_OK(paimon_read_builder_new(t, NULL, 0, &rb, &err), &err);
  const char *cols[] = {"f0", "f1", "f2", "f3"};
  CHECK_OK(paimon_read_builder_with_projection(rb, cols, 4, &err), &err);
  const char *bad[] = {"f0", "zz"};
  CHECK(paimon_read_builder_with_projection(rb, bad, 2, &err) == PAIMON_ERR_NOT_FOUND);
  CHECK_OK(paimon_predicate_parse(rb, "f3 >= 12", &p, &err), &err);
  CHECK_OK(paimon_read_builder_with_filter(rb, p, &err), &err);
  paimon_plan *plan = NULL;
  CHECK_OK(paimon_read_builder_plan(rb, &plan, &err), &err);
  struct ArrowArrayStream s;
  int ok = plan && paimon_read_plan(rb, plan, &s, &err) == 0;
  CHECK_MSG(ok, "%s", err.message);
  paimon_plan_free(plan);
  paimon_read_builder_free(rb);
  if (ok) collect(&s, &got);
  expected_rows("parquet__pk_09__snapshot-8.json", f3_ge_12, &want);
  CHECK_MSG(rowset_equal(&got, &want), "f3 >= 12: got %zu rows, want %zu", got.n, want.n);
  rowset_free(&got);
  rowset_free(&want);

  paimon_table_free(t);
  paimon_catalog_free(c);
}

static void test_time_travel_and_splits(void) {
  paimon_error err = {0};
  paimon_catalog *c = open_catalog();
  paimon_table *t = NULL;
  if (c) CHECK_OK(paimon_catalog_get_table(c, "pk_09.pk_09", &t, &err), &err);
  if (!t) {
    paimon_catalog_free(c);
    return;
  }
  paimon_option o6[] = {{"scan.snapshot-id", "6"}};
  paimon_read_builder *rb = NULL;
  CHECK_OK(paimon_read_builder_new(t, o6, 1, &rb, &err), &err);
  paimon_plan *plan = NULL;
  CHECK_OK(paimon_read_builder_plan(rb, &plan, &err), &err);
  int64_t sid = 0;
  CHECK(plan && paimon_plan_snapshot_id(plan, &sid) && sid == 6);
  /* serialize every split, read the copies */
  size_t n = plan ? paimon_plan_num_splits(plan) : 0;
  paimon_split **copies = calloc(n ? n : 1, sizeof *copies);
  for (size_t i = 0; i < n; i++) {
    uint8_t *bytes = NULL;
    size_t len = 0;
    CHECK_OK(paimon_split_serialize(paimon_plan_split(plan, i), &bytes, &len, &err), &err);
    CHECK(len > 8);
    CHECK_OK(paimon_split_deserialize(bytes, len, &copies[i], &err), &err);
    if (copies[i]) {
      CHECK_EQ_INT(paimon_split_num_files(copies[i]), paimon_split_num_files(paimon_plan_split(plan, i)));
      CHECK_EQ_INT(paimon_split_snapshot_id(copies[i]), 6);
    }
    paimon_free_bytes(bytes);
  }
  struct ArrowArrayStream s;
  rowset got = {0}, want = {0};
  if (paimon_table_read_splits(rb, (const paimon_split *const *)copies, n, &s, &err) == 0) collect(&s, &got);
  else CHECK_MSG(0, "%s", err.message);
  expected_rows("parquet__pk_09__snapshot-6.json", NULL, &want);
  CHECK_MSG(rowset_equal(&got, &want), "snapshot 6: got %zu rows, want %zu", got.n, want.n);
  rowset_free(&got);
  rowset_free(&want);
  for (size_t i = 0; i < n; i++) paimon_split_free(copies[i]);
  free(copies);
  char *explain = NULL;
  if (plan) CHECK_OK(paimon_plan_explain(plan, &explain, &err), &err);
  CHECK(explain && strstr(explain, "snapshot: 6") != NULL);
  paimon_free_string(explain);
  paimon_plan_free(plan);
  paimon_read_builder_free(rb);

  /* conflicting selectors fail at planning */
  paimon_option two[] = {{"scan.snapshot-id", "6"}, {"scan.tag-name", "x"}};
  CHECK_OK(paimon_read_builder_new(t, two, 2, &rb, &err), &err);
  plan = NULL;
  CHECK(paimon_read_builder_plan(rb, &plan, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(plan == NULL);
  paimon_read_builder_free(rb);
  paimon_option missing[] = {{"scan.snapshot-id", "77"}};
  CHECK_OK(paimon_read_builder_new(t, missing, 1, &rb, &err), &err);
  CHECK(paimon_read_builder_plan(rb, &plan, &err) == PAIMON_ERR_NOT_FOUND);
  paimon_read_builder_free(rb);
  paimon_table_free(t);

  /* system table */
  struct ArrowArrayStream st;
  int st_rc = paimon_catalog_read_system_table(c, "pk_09.pk_09$snapshots", &st, &err);
  CHECK_EQ_INT(st_rc, 0);
  if (st_rc == 0) {
    struct ArrowArray b;
    int64_t rows = 0;
    while (st.get_next(&st, &b) == 0 && b.release) {
      const int64_t *ids = b.children[0]->buffers[1];
      for (int64_t i = 0; i < b.length; i++) CHECK_EQ_INT(ids[i], rows + i + 1);
      rows += b.length;
      b.release(&b);
    }
    CHECK_EQ_INT(rows, 8);
    st.release(&st);
  }
  CHECK(paimon_catalog_read_system_table(c, "pk_09.pk_09$nope", &st, &err) == PAIMON_ERR_NOT_FOUND);
  /* $files at snapshot 1 (time travel through the builder): its rows sum to that snapshot's total */
  paimon_table *pt = NULL;
  CHECK_OK(paimon_catalog_get_table(c, "pk_09.pk_09", &pt, &err), &err);
  paimon_option s1[] = {{"scan.snapshot-id", "1"}};
  paimon_read_builder *rb1 = NULL;
  if (pt) CHECK_OK(paimon_read_builder_new(pt, s1, 1, &rb1, &err), &err);
  if (rb1 && paimon_read_builder_read_system_table(rb1, "files", &st, &err) == 0) {
    struct ArrowSchema sc;
    int64_t rows = 0;
    int col = -1;
    if (st.get_schema(&st, &sc) == 0) {
      for (int64_t i = 0; i < sc.n_children; i++)
        if (!strcmp(sc.children[i]->name, "record_count")) col = (int)i;
      sc.release(&sc);
    }
    struct ArrowArray b;
    while (col >= 0 && st.get_next(&st, &b) == 0 && b.release) {
      for (int64_t i = 0; i < b.length; i++) rows += ((const int64_t *)b.children[col]->buffers[1])[i];
      b.release(&b);
    }
    st.release(&st);
    CHECK_EQ_INT(rows, 9); /* snapshot-1 of pk_09: totalRecordCount 9 */
  } else {
    CHECK_MSG(0, "%s", err.message);
  }
  paimon_read_builder_free(rb1);
  paimon_table_free(pt);
  paimon_catalog_free(c);
}

static int f3_gt_20(const char *f0, int f1, int f2, double f3) { return (void)f0, (void)f1, (void)f2, f3 > 20; }
static int f3_lt_13(const char *f0, int f1, int f2, double f3) { return (void)f0, (void)f1, (void)f2, f3 < 13; }

/* Merge-on-read table: value-stats pruning must never drop a bucket whose merged rows match. */
static void test_pk_value_filters(void) {
  paimon_error err = {0};
  paimon_catalog *c = open_catalog();
  paimon_table *t = NULL;
  if (c) CHECK_OK(paimon_catalog_get_table(c, "pk_table_scan_and_read_mor.pk_table_scan_and_read_mor", &t, &err), &err);
  static const struct {
    const char *where;
    row_pred keep;
  } cases[] = {{"f3 > 20", f3_gt_20}, {"f3 < 13", f3_lt_13}};
  for (size_t i = 0; t && i < sizeof cases / sizeof cases[0]; i++) {
    paimon_read_builder *rb = NULL;
    CHECK_OK(paimon_read_builder_new(t, NULL, 0, &rb, &err), &err);
    paimon_predicate *p = NULL;
    if (rb) CHECK_OK(paimon_predicate_parse(rb, cases[i].where, &p, &err), &err);
    if (rb) CHECK_OK(paimon_read_builder_with_filter(rb, p, &err), &err);
    rowset got = {0}, want = {0};
    if (rb) read_all(rb, &got);
    expected_rows("parquet__pk_table_scan_and_read_mor__snapshot-5.json", cases[i].keep, &want);
    CHECK_MSG(rowset_equal(&got, &want), "%s: got %zu rows, want %zu", cases[i].where, got.n, want.n);
    rowset_free(&got);
    rowset_free(&want);
    paimon_read_builder_free(rb);
  }
  paimon_table_free(t);
  paimon_catalog_free(c);
}

/* Main branch with scan.fallback-branch = rt (a primary-key branch): partitions only in rt
 * are read through the rt table; the filter applies to both. */
static void test_fallback_read(void) {
  paimon_error err = {0};
  paimon_catalog *c = open_catalog();
  paimon_table *t = NULL;
  if (c) CHECK_OK(paimon_catalog_get_table(c, "append_table_with_rt_branch.append_table_with_rt_branch", &t, &err), &err);
  char path[512];
  snprintf(path, sizeof path, "%s/parquet__append_table_with_rt_branch__snapshot-1.json", PM_SHARED("fixtures/expected"));
  json_error_t je;
  json_t *ex = json_load_file(path, 0, &je);
  CHECK(ex != NULL);
  for (int filtered = 0; t && ex && filtered < 2; filtered++) {
    size_t want = 0;
    json_t *rows = json_object_get(ex, "rows");
    for (size_t i = 0; i < json_array_size(rows); i++)
      if (!filtered || json_integer_value(json_array_get(json_array_get(rows, i), 2)) > 5) want++;
    paimon_read_builder *rb = NULL;
    CHECK_OK(paimon_read_builder_new(t, NULL, 0, &rb, &err), &err);
    if (filtered) {
      paimon_predicate *p = NULL;
      CHECK_OK(paimon_predicate_greater_than(rb, "amount", paimon_literal_int64(5), &p, &err), &err);
      CHECK_OK(paimon_read_builder_with_filter(rb, p, &err), &err);
    }
    paimon_plan *plan = NULL;
    CHECK_OK(paimon_read_builder_plan(rb, &plan, &err), &err);
    struct ArrowArrayStream s;
    int64_t got = 0;
    if (plan && paimon_read_plan(rb, plan, &s, &err) == 0) {
      struct ArrowArray b;
      while (s.get_next(&s, &b) == 0 && b.release) {
        got += b.length;
        b.release(&b);
      }
      s.release(&s);
    } else {
      CHECK_MSG(0, "%s", err.message);
    }
    CHECK_EQ_INT(got, want);
    paimon_plan_free(plan);
    paimon_read_builder_free(rb);
  }
  json_decref(ex);
  paimon_table_free(t);
  paimon_catalog_free(c);
}

/* External data paths recorded as FILE:/tmp/external/... are read through a per-read path rewrite. */
static void test_external_paths(void) {
  paimon_error err = {0};
  paimon_catalog *c = open_catalog();
  paimon_table *t = NULL;
  if (c) CHECK_OK(paimon_catalog_get_table(c, "pk_dv_index_in_data_with_external.pk_dv_index_in_data_with_external", &t, &err), &err);
  if (!t) {
    paimon_catalog_free(c);
    return;
  }
  paimon_option o[] = {{"path-rewrite", "FILE:/tmp/external=" WH "/pk_dv_index_in_data_with_external.db/external"}};
  paimon_read_builder *rb = NULL;
  CHECK_OK(paimon_read_builder_new(t, o, 1, &rb, &err), &err);
  rowset got = {0};
  if (rb) read_all(rb, &got);
  char path[512];
  snprintf(path, sizeof path, "%s/parquet__pk_dv_index_in_data_with_external__snapshot-4.json", PM_SHARED("fixtures/expected"));
  json_error_t je;
  json_t *ex = json_load_file(path, 0, &je);
  CHECK(ex != NULL);
  if (ex) CHECK_EQ_INT(got.n, json_array_size(json_object_get(ex, "rows")));
  json_decref(ex);
  rowset_free(&got);
  paimon_read_builder_free(rb);
  paimon_table_free(t);
  paimon_catalog_free(c);
}

int main(void) {
  RUN_TEST(test_catalog_and_table);
  RUN_TEST(test_reads);
  RUN_TEST(test_time_travel_and_splits);
  RUN_TEST(test_external_paths);
  RUN_TEST(test_pk_value_filters);
  RUN_TEST(test_fallback_read);
  TEST_MAIN_END();
}
