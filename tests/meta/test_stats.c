/* Value-stats lookup with dense stats / _VALUE_STATS_COLS / _WRITE_COLS (fixture data_evolution_with_dense_stats,
 * values as avro-dump shows them) and key stats of parquet/pk_09. */
#include "harness.h"
#include "meta/manifest.h"
#include "meta/schema.h"
#include "meta/snapshot.h"
#include "meta/stats.h"

#define DE PM_SHARED("fixtures/warehouse/parquet/data_evolution_with_dense_stats.db/data_evolution_with_dense_stats")

static void test_dense_stats(void) {
  pm_error err = {0};
  pm_table_schema *s = NULL;
  CHECK_OK(pm_schema_read(DE, NULL, 0, &s, &err), &err);
  pm_snapshot *snap = NULL;
  CHECK_OK(pm_snapshot_read_latest(DE, NULL, &snap, &err), &err);
  if (!s || !snap) return;
  char path[1024];
  snprintf(path, sizeof path, "%s/manifest/%s", DE, snap->delta_manifest_list);
  pm_manifest_file_metas lists;
  pm_manifest_file_metas_init(&lists);
  /* collect all entries of base + delta */
  pm_manifest_entries e;
  pm_manifest_entries_init(&e);
  const char *ls[2] = {snap->base_manifest_list, snap->delta_manifest_list};
  for (int k = 0; k < 2; k++) {
    snprintf(path, sizeof path, "%s/manifest/%s", DE, ls[k]);
    CHECK_OK(pm_manifest_list_read(path, &lists, &err), &err);
  }
  for (size_t i = 0; i < lists.n; i++) {
    snprintf(path, sizeof path, "%s/manifest/%s", DE, lists.items[i].file_name);
    CHECK_OK(pm_manifest_read(path, NULL, NULL, &e, &err), &err);
  }
  int seen_full = 0, seen_dense = 0;
  for (size_t i = 0; i < e.n; i++) {
    const pm_data_file_meta *f = &e.items[i].file;
    pm_col_stats cs;
    if (!strcmp(f->file_name, "data-0a232b78-5051-451a-bdec-2aadffe6b2f0-0.parquet")) {
      seen_full = 1;
      CHECK_OK(pm_value_stats_lookup(f, s, 0, &cs, &err), &err); /* f0 */
      CHECK(cs.min.kind == PM_V_STRING && cs.min.u.bytes.len == 5 && !memcmp(cs.min.u.bytes.data, "Alice", 5));
      CHECK(cs.max.kind == PM_V_STRING && cs.max.u.bytes.len == 4 && !memcmp(cs.max.u.bytes.data, "Lily", 4));
      CHECK_EQ_INT(cs.null_count, 0);
      CHECK_OK(pm_value_stats_lookup(f, s, 2, &cs, &err), &err); /* f2 */
      CHECK(cs.min.u.i64 == 12 && cs.max.u.i64 == 14);
      CHECK_EQ_INT(pm_value_stats_lookup(f, s, 3, &cs, &err), PAIMON_ERR_NOT_FOUND); /* f3 not written */
    }
    if (!strcmp(f->file_name, "data-e2b40cb0-e953-45da-87d9-56951efbb4e3-0.parquet")) {
      seen_dense = 1;
      CHECK_OK(pm_value_stats_lookup(f, s, 2, &cs, &err), &err);
      CHECK(cs.min.u.i64 == 102 && cs.max.u.i64 == 104 && cs.null_count == 0);
      CHECK_EQ_INT(pm_value_stats_lookup(f, s, 3, &cs, &err), PAIMON_ERR_NOT_FOUND); /* stats mode none */
      CHECK_EQ_INT(pm_value_stats_lookup(f, s, 0, &cs, &err), PAIMON_ERR_NOT_FOUND);
    }
  }
  CHECK(seen_full && seen_dense);
  pm_manifest_entries_clear(&e);
  pm_manifest_file_metas_clear(&lists);
  pm_snapshot_free(snap);
  pm_schema_free(s);
}

static void test_key_stats(void) {
  pm_error err = {0};
  pm_manifest_entries e;
  pm_manifest_entries_init(&e);
  CHECK_OK(pm_manifest_read(PM_SHARED("fixtures/warehouse/parquet/pk_09.db/pk_09/manifest/manifest-8cf79434-32e4-4029-bf8e-befe856d268f-0"),
                            NULL, NULL, &e, &err), &err);
  if (!e.n) return;
  pm_data_type str = {.root = PM_DT_VARCHAR, .nullable = 1, .length = PM_DT_MAX_LENGTH};
  pm_data_type i32 = {.root = PM_DT_INT, .nullable = 1};
  pm_col_stats cs;
  CHECK_OK(pm_key_stats_get(&e.items[0].file, 0, &str, &cs, &err), &err);
  CHECK(cs.min.u.bytes.len == 5 && !memcmp(cs.min.u.bytes.data, "Alice", 5));
  CHECK(cs.max.u.bytes.len == 16 && !memcmp(cs.max.u.bytes.data, "Two roads diverh", 16)); /* truncate(16) max */
  CHECK_OK(pm_key_stats_get(&e.items[0].file, 1, &i32, &cs, &err), &err);
  CHECK(cs.min.u.i64 == 1 && cs.max.u.i64 == 1);
  CHECK_EQ_INT(pm_key_stats_get(&e.items[0].file, 2, &i32, &cs, &err), PAIMON_ERR_NOT_FOUND);
  pm_manifest_entries_clear(&e);
}

int main(void) {
  RUN_TEST(test_dense_stats);
  RUN_TEST(test_key_stats);
  TEST_MAIN_END();
}
