/*
 * SEMANTICS §12 pitfalls that concern reading, on Java-written tables:
 *  1. level 0 of deletion-vector tables is invisible to batch reads;
 *  3. a lone retraction (-D) survives in the files but disappears at read time
 *     (and is visible as "-D" when row kinds are asked for);
 *  6. a null deleteRowCount disables raw reads (see test_read_options.c);
 *  4 / 10. ordering ties and Java's NaN / unsigned string orders (see test_read_merge.c).
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

static json_t *read_all(pm_table *t, pm_plan *plan, int with_row_kind) {
  pm_read_options ro;
  pm_read_options_init(&ro);
  ro.with_row_kind = with_row_kind;
  struct ArrowArrayStream st;
  json_t *rows = json_array();
  if (pm_read_splits(t, plan->splits, plan->n_splits, &ro, &st, &err)) {
    CHECK_MSG(0, "%s", err.message);
    return rows;
  }
  struct ArrowSchema sc;
  pm_type ty;
  CHECK(st.get_schema(&st, &sc) == 0);
  CHECK_OK(pm_type_from_schema(&sc, &ty, &err), &err);
  for (;;) {
    struct ArrowArray a;
    if (st.get_next(&st, &a)) {
      CHECK_MSG(0, "%s", st.get_last_error(&st));
      break;
    }
    if (!a.release) break;
    CHECK_OK(fxc_batch_to_json(&ty, &a, NULL, rows, &err), &err);
    a.release(&a);
  }
  pm_type_free(&ty);
  pm_schema_release(&sc);
  st.release(&st);
  return rows;
}

static int has_name(json_t *rows, const char *name, const char *kind) {
  for (size_t i = 0; i < json_array_size(rows); i++) {
    json_t *r = json_array_get(rows, i);
    const char *v = json_string_value(json_array_get(r, kind ? 1 : 0)); /* "_row_kind" leads */
    if (!v || strcmp(v, name)) continue;
    if (!kind) return 1;
    const char *k = json_string_value(json_array_get(r, 0));
    if (k && !strcmp(k, kind)) return 1;
  }
  return 0;
}

/* Pitfall 1: with deletion vectors, a batch read sees only level > 0 files. */
static void test_level0_invisible_with_dv(void) {
  pm_table *t = open_fixture("parquet/pk_dv_index_not_in_data_no_external.db/pk_dv_index_not_in_data_no_external", 4);
  if (!t) return;
  pm_plan *plan = NULL;
  CHECK_OK(pm_scan_plan(t, NULL, -1, &plan, &err), &err);
  size_t files = 0;
  for (size_t i = 0; plan && i < plan->n_splits; i++)
    for (size_t f = 0; f < plan->splits[i]->n_data_files; f++) {
      files++;
      CHECK(plan->splits[i]->data_files[f].level > 0);
    }
  CHECK(files > 0);
  /* every split is raw-convertible: level > 0 files read through their DVs, no merge */
  for (size_t i = 0; plan && i < plan->n_splits; i++) CHECK(plan->splits[i]->raw_convertible);
  json_t *rows = read_all(t, plan, 0);
  CHECK_EQ_INT(json_array_size(rows), 8); /* fixture expectation: level-0 rows are not visible */
  json_decref(rows);
  pm_plan_free(plan);
  pm_table_free(t);
}

/* Pitfall 3: a deleted key (lone -D after merging) is dropped at read time. */
static void test_retract_dropped_at_read(void) {
  pm_table *t = open_fixture("parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor", 2);
  if (!t) return;
  pm_plan *plan = NULL;
  CHECK_OK(pm_scan_plan(t, NULL, -1, &plan, &err), &err);
  json_t *rows = read_all(t, plan, 0);
  CHECK_EQ_INT(json_array_size(rows), 8);
  CHECK(!has_name(rows, "Tony", NULL)); /* Tony was deleted in snapshot 2 */
  CHECK(has_name(rows, "Alice", NULL));
  json_t *kinds = read_all(t, plan, 1);
  CHECK(has_name(kinds, "Tony", "-D"));
  json_decref(rows);
  json_decref(kinds);
  pm_plan_free(plan);
  pm_table_free(t);
}

/* Streaming splits are read without merging: every record, retractions included. */
static void test_streaming_split_no_merge(void) {
  pm_table *t = open_fixture("parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor", 2);
  if (!t) return;
  pm_plan *plan = NULL;
  CHECK_OK(pm_scan_plan(t, NULL, -1, &plan, &err), &err);
  json_t *merged = read_all(t, plan, 0);
  int64_t records = 0;
  for (size_t i = 0; plan && i < plan->n_splits; i++) {
    plan->splits[i]->is_streaming = 1;
    for (size_t f = 0; f < plan->splits[i]->n_data_files; f++) records += plan->splits[i]->data_files[f].row_count;
  }
  json_t *raw = read_all(t, plan, 1);
  CHECK_EQ_INT(json_array_size(raw), records); /* one row per physical record */
  CHECK(json_array_size(raw) > json_array_size(merged));
  CHECK(has_name(raw, "Tony", "-D"));
  json_decref(merged);
  json_decref(raw);
  pm_plan_free(plan);
  pm_table_free(t);
}

int main(void) {
  RUN_TEST(test_streaming_split_no_merge);
  RUN_TEST(test_level0_invisible_with_dv);
  RUN_TEST(test_retract_dropped_at_read);
  TEST_MAIN_END();
}
