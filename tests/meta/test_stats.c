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
  CHECK_OK(pm_schema_read(&(pm_schema_manager){pm_fs_local(), DE, NULL}, 0, &s, &err), &err);
  pm_snapshot *snap = NULL;
  CHECK_OK(pm_snapshot_read_latest(&(pm_snapshot_manager){pm_fs_local(), DE, NULL}, &snap, &err), &err);
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
    CHECK_OK(pm_manifest_list_read(pm_fs_local(), path, &lists, &err), &err);
  }
  for (size_t i = 0; i < lists.n; i++) {
    snprintf(path, sizeof path, "%s/manifest/%s", DE, lists.items[i].file_name);
    CHECK_OK(pm_manifest_read(pm_fs_local(), path, NULL, NULL, &e, &err), &err);
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
  CHECK_OK(pm_manifest_read(pm_fs_local(), PM_SHARED("fixtures/warehouse/parquet/pk_09.db/pk_09/manifest/manifest-8cf79434-32e4-4029-bf8e-befe856d268f-0"),
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

static void hexb(const char *hex, uint8_t *out, size_t *n) {
  size_t k = 0;
  for (const char *p = hex; *p; p += 2) {
    unsigned v;
    sscanf(p, "%2x", &v);
    out[k++] = (uint8_t)v;
  }
  *n = k;
}

/* Rebuild the value stats of pk_09's first data file (truncate(16)) byte for byte. */
static void test_collector_matches_java(void) {
  pm_error err = {0};
  pm_table_schema *s = NULL;
  CHECK_OK(pm_schema_read(&(pm_schema_manager){pm_fs_local(), PM_SHARED("fixtures/warehouse/parquet/pk_09.db/pk_09"), NULL}, 0, &s, &err), &err);
  if (!s) return;
  pm_stats_collector *c = NULL;
  CHECK_OK(pm_stats_collector_new(s->fields, s->n_fields, NULL, &c, &err), &err);
  const char *long_s = "Two roads diverged in a wood, and I took the one less traveled by, And that has made all the difference.";
  const char *names[2] = {"Alice", long_s};
  double f3[2] = {11.0, 11.1};
  for (int r = 0; r < 2; r++) {
    pm_value v = {.kind = PM_V_STRING};
    v.u.bytes.data = (const uint8_t *)names[r];
    v.u.bytes.len = strlen(names[r]);
    CHECK_OK(pm_stats_collector_add(c, 0, &v, &err), &err);
    pm_value i = {.kind = PM_V_INT};
    i.u.i64 = 10;
    CHECK_OK(pm_stats_collector_add(c, 1, &i, &err), &err);
    i.u.i64 = 1;
    CHECK_OK(pm_stats_collector_add(c, 2, &i, &err), &err);
    pm_value d = {.kind = PM_V_DOUBLE};
    d.u.f64 = f3[r];
    CHECK_OK(pm_stats_collector_add(c, 3, &d, &err), &err);
  }
  pm_arena a;
  pm_arena_init(&a);
  pm_simple_stats st;
  pm_str_list cols;
  CHECK_OK(pm_stats_collector_finish(c, 1, &a, &st, &cols, &err), &err);
  uint8_t emin[64], emax[96];
  size_t nmin, nmax;
  hexb("000000040000000000000000416c6963650000850a0000000000000001000000000000000000000000002640", emin, &nmin);
  hexb("00000004000000000000000010000000280000000a000000000000000100000000000000333333333333264054776f20726f61647320646976657268",
       emax, &nmax);
  CHECK(st.min_values.len == nmin && !memcmp(st.min_values.data, emin, nmin));
  CHECK(st.max_values.len == nmax && !memcmp(st.max_values.data, emax, nmax));
  CHECK(st.n_null_counts == 4 && st.null_counts[0] == 0 && st.null_counts[3] == 0);
  CHECK(cols.is_null);
  pm_stats_collector_free(c);

  /* dense: f3 with mode none is dropped and the kept names are listed */
  pm_stats_mode modes[4] = {{PM_STATS_FULL, 0}, {PM_STATS_COUNTS, 0}, {PM_STATS_TRUNCATE, 16}, {PM_STATS_NONE, 0}};
  CHECK_OK(pm_stats_collector_new(s->fields, s->n_fields, modes, &c, &err), &err);
  pm_value v = {.kind = PM_V_STRING};
  v.u.bytes.data = (const uint8_t *)long_s;
  v.u.bytes.len = strlen(long_s);
  CHECK_OK(pm_stats_collector_add(c, 0, &v, &err), &err);
  pm_value nul = {.kind = PM_V_NULL};
  CHECK_OK(pm_stats_collector_add(c, 1, &nul, &err), &err);
  CHECK_OK(pm_stats_collector_finish(c, 1, &a, &st, &cols, &err), &err);
  CHECK(!cols.is_null && cols.n == 3 && !strcmp(cols.items[2], "f2"));
  pm_binary_row row;
  CHECK_OK(pm_binary_row_open_serialized(st.max_values.data, st.max_values.len, "max", &row, &err), &err);
  CHECK_EQ_INT(row.arity, 3);
  pm_value got;
  CHECK_OK(pm_binary_row_get(&row, 0, s->fields[0].type, &got, &err), &err);
  CHECK(got.u.bytes.len == strlen(long_s)); /* full mode: not truncated */
  CHECK(pm_binary_row_is_null(&row, 1));      /* counts mode: no max */
  CHECK(st.null_counts[1] == 1);
  pm_stats_collector_free(c);
  pm_arena_free(&a);
  pm_schema_free(s);

  /* truncation edge cases */
  uint8_t out[64];
  size_t ol = 0;
  CHECK_EQ_INT(pm_stats_truncate_utf8_max((const uint8_t *)"Whether I shall turn out", 24, 16, out, &ol), 0);
  CHECK(ol == 16 && !memcmp(out, "Whether I shall!", 16));
  const uint8_t ff[4] = {0x61, 0xff, 0xff, 0xff};
  CHECK_EQ_INT(pm_stats_truncate_bytes_max(ff, 4, 3, out, &ol), 0);
  CHECK(ol == 1 && out[0] == 0x62);
  const uint8_t allff[3] = {0xff, 0xff, 0xff};
  CHECK_EQ_INT(pm_stats_truncate_bytes_max(allff, 3, 2, out, &ol), 1);
  /* U+10FFFF cannot be incremented: the previous code point is */
  const uint8_t maxcp[] = {'a', 0xF4, 0x8F, 0xBF, 0xBF, 'z'};
  CHECK_EQ_INT(pm_stats_truncate_utf8_max(maxcp, sizeof maxcp, 2, out, &ol), 0);
  CHECK(ol == 1 && out[0] == 'b');
  CHECK_EQ_INT(pm_stats_truncate_utf8_min((const uint8_t *)"\xc3\xa9t\xc3\xa9", 5, 2), 3);
  pm_stats_mode m;
  CHECK_OK(pm_stats_mode_parse("truncate(128)", &m, &err), &err);
  CHECK(m.kind == PM_STATS_TRUNCATE && m.length == 128);
  CHECK_EQ_INT(pm_stats_mode_parse("truncate(x)", &m, &err), PAIMON_ERR_INVALID_ARGUMENT);
}

int main(void) {
  RUN_TEST(test_dense_stats);
  RUN_TEST(test_key_stats);
  RUN_TEST(test_collector_matches_java);
  TEST_MAIN_END();
}
