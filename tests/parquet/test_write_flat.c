/* Parquet writer: flat columns of every Arrow type, nullable and required,
 * checked by the oracle readers (parquet-check, parquet-dump --canon). */
#include "support/test_write_flat_data.h"

static void test_flat_all_types(void) {
  struct ArrowSchema s;
  struct ArrowArray a;
  build_flat(&s, &a);
  pm_error err;
  pm_pq_writer *w = NULL;
  const char *p = tw_path("flat.parquet");
  CHECK_OK(pm_pq_writer_open(p, &s, NULL, &w, &err), &err);
  if (!w) return;
  CHECK_OK(pm_pq_writer_write(w, &a, &err), &err);
  CHECK_OK(pm_pq_writer_close(w, &err), &err);
  const pm_pq_write_result *r = pm_pq_writer_result(w);
  CHECK(r != NULL);
  if (r) {
    CHECK_EQ_INT(r->num_rows, 4);
    CHECK_EQ_INT(r->num_row_groups, 1);
    CHECK_EQ_INT(r->num_columns, 27);
    const pm_pq_write_column_stats *c = &r->columns[0];
    CHECK_EQ_STR(c->path, "i32");
    CHECK_EQ_INT(c->null_count, 1);
    CHECK(c->has_min_max && c->min_i64 == -4 && c->max_i64 == 3);
    c = &r->columns[2];
    CHECK(c->has_min_max && c->min_len == 0 && c->max_len == 3 && memcmp(c->max, "ccc", 3) == 0);
    c = &r->columns[3];
    CHECK(c->has_min_max && c->min_f64 == -2.25 && c->max_f64 == 1.5);
    CHECK(!r->columns[17].has_min_max); /* INT96 */
    CHECK(r->columns[26].has_min_max && r->columns[26].max_i64 == 4294967295LL);
    FILE *f = fopen(p, "rb");
    CHECK(f != NULL);
    if (f) {
      fseek(f, 0, SEEK_END);
      CHECK_EQ_INT(ftell(f), (long)r->file_size);
      fclose(f);
    }
  }
  pm_pq_writer_free(w);
  CHECK(tw_check(p));
  CHECK(tw_canon_equals(p, flat_expected));
  pm_schema_release(&s);
  pm_array_release(&a);
}

int main(void) {
  RUN_TEST(test_flat_all_types);
  tw_cleanup();
  TEST_MAIN_END();
}
