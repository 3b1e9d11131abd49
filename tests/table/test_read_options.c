/*
 * Table read options on Java-written fixtures: projection (reordered, system
 * columns), exact residual filtering after merging, limit, parallel split
 * reads (same rows in the same order), row kinds, and pitfall §12.6 (a null
 * deleteRowCount disables raw reads: the merge path must give the same rows).
 */
#include <jansson.h>

#include "support/fixture_compare.h"
#include "harness.h"
#include "table/read.h"
#include "table/scan.h"
#include "table/table.h"

static pm_error err;

static pm_table *open_fixture(const char *rel, int64_t snapshot) {
  char root[1024];
  snprintf(root, sizeof root, "%s/%s", PM_SHARED("fixtures/warehouse"), rel);
  pm_options dyn;
  pm_options_init(&dyn);
  char buf[32];
  snprintf(buf, sizeof buf, "%lld", (long long)snapshot);
  pm_options_set(&dyn, "scan.snapshot-id", buf, &err);
  pm_table *t = NULL;
  CHECK_OK(pm_table_open_path(root, NULL, NULL, NULL, &dyn, NULL, &t, &err), &err);
  pm_options_clear(&dyn);
  return t;
}

static pm_predicate *parse_filter(pm_table *t, const char *text) {
  size_t n = t->schema->n_fields;
  pm_pred_column *cols = calloc(n, sizeof *cols);
  for (size_t i = 0; i < n; i++) {
    cols[i].name = t->schema->fields[i].name;
    cols[i].index = (int32_t)i;
    cols[i].field_id = t->schema->fields[i].id;
    cols[i].type = t->schema->fields[i].type;
  }
  pm_predicate *p = NULL;
  CHECK_OK(pm_pred_parse(text, cols, n, 1, &p, &err), &err);
  free(cols);
  return p;
}

/* Reads the plan's splits into JSON rows. */
static json_t *read_rows(pm_table *t, pm_plan *plan, const pm_read_options *ro) {
  struct ArrowArrayStream st;
  json_t *rows = json_array();
  int rc = pm_read_splits(t, plan->splits, plan->n_splits, ro, &st, &err);
  CHECK_OK(rc, &err);
  if (rc) return rows;
  struct ArrowSchema sc;
  pm_type ty;
  CHECK(st.get_schema(&st, &sc) == 0);
  CHECK_OK(pm_type_from_schema(&sc, &ty, &err), &err);
  for (;;) {
    struct ArrowArray a;
    int r = st.get_next(&st, &a);
    CHECK_MSG(r == 0, "%s", st.get_last_error(&st));
    if (r || !a.release) break;
    CHECK_OK(fxc_batch_to_json(&ty, &a, NULL, rows, &err), &err);
    a.release(&a);
  }
  pm_type_free(&ty);
  pm_schema_release(&sc);
  st.release(&st);
  return rows;
}

static json_t *parse_rows(const char *text) {
  json_error_t je;
  json_t *j = json_loads(text, 0, &je);
  CHECK(j != NULL);
  return j;
}

static void check_rows(json_t *actual, const char *expected_json) {
  json_t *exp = parse_rows(expected_json);
  char msg[4096];
  int ok = fxc_rows_match(exp, actual, NULL, msg, sizeof msg);
  CHECK_MSG(ok, "%s", msg);
  json_decref(exp);
}

#define PK_MOR "parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor"
#define PK_DV "parquet/pk_dv_index_not_in_data_no_external.db/pk_dv_index_not_in_data_no_external"
#define APPEND_ALTER "parquet/append_table_with_alter_table.db/append_table_with_alter_table"

static void test_projection_and_filter_after_merge(void) {
  pm_table *t = open_fixture(PK_MOR, 5);
  if (!t) return;
  pm_plan *plan = NULL;
  CHECK_OK(pm_scan_plan(t, NULL, -1, &plan, &err), &err);
  pm_predicate *p = parse_filter(t, "f2 = 0 and f3 > 15");
  const char *cols[] = {"f3", "f0"};
  pm_read_options ro;
  pm_read_options_init(&ro);
  ro.columns = cols;
  ro.n_columns = 2;
  ro.filter = p;
  json_t *rows = read_rows(t, plan, &ro);
  check_rows(rows, "[[17.1,\"David\"],[21.1,\"Marco\"],[31.1,\"Marco2\"],[21.0,\"Skye\"],[31.0,\"Skye2\"]]");
  json_decref(rows);
  /* unknown columns are refused */
  const char *bad[] = {"nope"};
  ro.columns = bad;
  ro.n_columns = 1;
  ro.filter = NULL;
  struct ArrowArrayStream st;
  CHECK_EQ_INT(pm_read_splits(t, plan->splits, plan->n_splits, &ro, &st, &err), PAIMON_ERR_NOT_FOUND);
  pm_pred_free(p);
  pm_plan_free(plan);
  pm_table_free(t);
}

static void test_limit_parallel_rowkind(void) {
  pm_table *t = open_fixture(PK_MOR, 5);
  if (!t) return;
  pm_plan *plan = NULL;
  CHECK_OK(pm_scan_plan(t, NULL, -1, &plan, &err), &err);
  pm_read_options ro;
  pm_read_options_init(&ro);
  ro.batch_rows = 2;
  json_t *seq = read_rows(t, plan, &ro);
  CHECK_EQ_INT(json_array_size(seq), 11);
  CHECK(plan->n_splits >= 2);
  ro.parallelism = 3;
  json_t *par = read_rows(t, plan, &ro);
  CHECK(json_equal(seq, par)); /* same rows, same order */
  ro.limit = 3;
  json_t *lim = read_rows(t, plan, &ro);
  CHECK_EQ_INT(json_array_size(lim), 3);
  for (size_t i = 0; i < json_array_size(lim); i++) CHECK(json_equal(json_array_get(lim, i), json_array_get(seq, i)));
  ro.limit = -1;
  ro.parallelism = 1;
  ro.with_row_kind = 1;
  const char *cols[] = {"f0", "_SEQUENCE_NUMBER"};
  ro.columns = cols;
  ro.n_columns = 2;
  json_t *rk = read_rows(t, plan, &ro);
  /* asking for row kinds keeps the merged retractions: the 11 live rows plus deleted keys */
  int adds = 0, retracts = 0;
  for (size_t i = 0; i < json_array_size(rk); i++) {
    json_t *r = json_array_get(rk, i);
    CHECK_EQ_INT(json_array_size(r), 3);
    CHECK(json_is_integer(json_array_get(r, 2)));
    const char *k = json_string_value(json_array_get(r, 0)); /* "_row_kind" comes first */
    CHECK(k != NULL);
    if (!k) continue;
    if (!strcmp(k, "+I") || !strcmp(k, "+U")) adds++;
    else if (!strcmp(k, "-U") || !strcmp(k, "-D")) retracts++;
    else CHECK_MSG(0, "bad row kind %s", k);
  }
  CHECK_EQ_INT(adds, 11);
  CHECK(retracts > 0);
  json_decref(seq);
  json_decref(par);
  json_decref(lim);
  json_decref(rk);
  pm_plan_free(plan);
  pm_table_free(t);
}

/* Pitfall 12.6: with a null deleteRowCount a split is merge-read (DVs still applied). */
static void test_null_delete_row_count_forces_merge(void) {
  const char *tables[2] = {PK_DV, PK_MOR};
  int64_t snaps[2] = {4, 5};
  for (int k = 0; k < 2; k++) {
    pm_table *t = open_fixture(tables[k], snaps[k]);
    if (!t) return;
    pm_plan *plan = NULL;
    CHECK_OK(pm_scan_plan(t, NULL, -1, &plan, &err), &err);
    pm_read_options ro;
    pm_read_options_init(&ro);
    json_t *raw = read_rows(t, plan, &ro);
    int any_raw = 0;
    for (size_t i = 0; i < plan->n_splits; i++) {
      any_raw |= plan->splits[i]->raw_convertible;
      for (size_t f = 0; f < plan->splits[i]->n_data_files; f++) plan->splits[i]->data_files[f].has_delete_row_count = 0;
    }
    if (k == 0) CHECK(any_raw); /* the DV table is read raw normally */
    json_t *merged = read_rows(t, plan, &ro);
    char msg[4096];
    CHECK_MSG(fxc_rows_match(raw, merged, NULL, msg, sizeof msg), "%s: %s", tables[k], msg);
    json_decref(raw);
    json_decref(merged);
    pm_plan_free(plan);
    pm_table_free(t);
  }
}

/* Filters see evolved columns: a column added later reads as null in old files. */
static void test_filter_on_evolved_column(void) {
  pm_table *t = open_fixture(APPEND_ALTER, 2);
  if (!t) return;
  pm_plan *plan = NULL;
  CHECK_OK(pm_scan_plan(t, NULL, -1, &plan, &err), &err);
  pm_predicate *p = parse_filter(t, "d is null");
  const char *cols[] = {"k"};
  pm_read_options ro;
  pm_read_options_init(&ro);
  ro.columns = cols;
  ro.n_columns = 1;
  ro.filter = p;
  json_t *rows = read_rows(t, plan, &ro);
  check_rows(rows, "[[16],[26],[36],[46],[56]]");
  json_decref(rows);
  pm_pred_free(p);
  pm_plan_free(plan);
  pm_table_free(t);
}

/* Nested projection: "f3.f1" selects a struct member as its own column. */
static void test_nested_projection(void) {
  pm_table *t = open_fixture("parquet/append_complex_build_in_fieldid.db/append_complex_build_in_fieldid", 1);
  if (!t) return;
  pm_plan *plan = NULL;
  CHECK_OK(pm_scan_plan(t, NULL, -1, &plan, &err), &err);
  const char *cols[] = {"f3.f1", "f6", "f3"};
  pm_read_options ro;
  pm_read_options_init(&ro);
  ro.columns = cols;
  ro.n_columns = 3;
  struct ArrowSchema sc;
  CHECK_OK(pm_read_schema(t, &ro, &sc, &err), &err);
  if (sc.release) {
    CHECK_EQ_STR(sc.children[0]->name, "f3.f1");
    CHECK_EQ_STR(sc.children[0]->format, "l");
    pm_schema_release(&sc);
  }
  json_t *rows = read_rows(t, plan, &ro);
  CHECK(json_array_size(rows) > 0);
  for (size_t i = 0; i < json_array_size(rows); i++) {
    json_t *r = json_array_get(rows, i);
    json_t *member = json_object_get(json_array_get(r, 2), "f1");
    CHECK(member && json_equal(member, json_array_get(r, 0)));
  }
  json_decref(rows);
  pm_plan_free(plan);
  pm_table_free(t);
}

/* Filter pushdown into the format readers only prunes: results equal the unpushed read. */
static void test_filter_pushdown_is_only_a_hint(void) {
  static const struct {
    const char *table;
    int64_t snapshot;
    const char *filter;
  } cases[] = {
      {"append_with_bitmap_multi_stripes.db/append_with_bitmap_multi_stripes", 1, "f0 = 'Bob'"},
      {"append_with_bitmap_multi_stripes.db/append_with_bitmap_multi_stripes", 1, "f2 > 0 and f1 >= 10"},
      {"orc/append_09.db/append_09", 5, "f0 in ('Alice', 'Tony', 'nobody') and f2 <= 0"},
      {"orc/pk_dv_index_not_in_data_no_external.db/pk_dv_index_not_in_data_no_external", 4, "f0 < 'Bob' and f3 is not null"},
      {PK_DV, 4, "f1 = 20"},
      {"parquet/append_09.db/append_09", 5, "f0 >= 'Emily' and f1 is not null"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    pm_table *t = open_fixture(cases[i].table, cases[i].snapshot);
    if (!t) continue;
    pm_plan *plan = NULL;
    CHECK_OK(pm_scan_plan(t, NULL, -1, &plan, &err), &err);
    pm_predicate *p = parse_filter(t, cases[i].filter);
    pm_read_options ro;
    pm_read_options_init(&ro);
    ro.filter = p;
    json_t *pushed = read_rows(t, plan, &ro);
    ro.no_filter_pushdown = 1;
    json_t *plain = read_rows(t, plan, &ro);
    char msg[4096];
    CHECK_MSG(fxc_rows_match(plain, pushed, NULL, msg, sizeof msg), "%s [%s]: %s", cases[i].table, cases[i].filter,
              msg);
    CHECK(json_array_size(plain) > 0);
    json_decref(pushed);
    json_decref(plain);
    pm_pred_free(p);
    pm_plan_free(plan);
    pm_table_free(t);
  }
}

int main(void) {
  RUN_TEST(test_filter_pushdown_is_only_a_hint);
  RUN_TEST(test_nested_projection);
  RUN_TEST(test_projection_and_filter_after_merge);
  RUN_TEST(test_limit_parallel_rowkind);
  RUN_TEST(test_null_delete_row_count_forces_merge);
  RUN_TEST(test_filter_on_evolved_column);
  TEST_MAIN_END();
}
