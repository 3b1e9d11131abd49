/* Parquet writer edge cases: empty files, values larger than a page, NaN,
 * oversized statistics, unsupported types, discard without close, and
 * no-overwrite. */
#include <math.h>

#include "format/parquet/parquet_meta.h"
#include "io/file.h"
#include "support/test_write_util.h"

static pm_pq_meta *read_meta(const char *p, pm_file **f) {
  pm_error err;
  pm_pq_meta *m = NULL;
  *f = NULL;
  if (pm_file_open(p, f, &err)) return NULL;
  if (pm_pq_meta_read(*f, &m, &err)) {
    fprintf(stderr, "%s\n", err.message);
    return NULL;
  }
  return m;
}

static void test_empty_file(void) {
  struct ArrowSchema s;
  tw_schema(&s, "+s", NULL, 0, 2);
  tw_schema(s.children[0], "i", "a", 1, 0);
  tw_schema(s.children[1], "+l", "b", 1, 1);
  tw_schema(s.children[1]->children[0], "u", "item", 1, 0);
  struct ArrowArray a;
  pm_error err;
  if (pm_array_init(&a, 0, 1, 2, &err)) abort();
  tw_prim(a.children[0], 0, "", 4, NULL);
  int32_t off[1] = {0};
  tw_list(a.children[1], 0, off, NULL);
  const char *none[1] = {NULL};
  tw_str(a.children[1]->children[0], 0, none, NULL);
  const char *p = tw_path("empty.parquet");
  pm_pq_writer *w = NULL;
  CHECK_OK(pm_pq_writer_open(p, &s, NULL, &w, &err), &err);
  if (w) {
    CHECK_OK(pm_pq_writer_write(w, &a, &err), &err); /* zero rows */
    CHECK_OK(pm_pq_writer_close(w, &err), &err);
    const pm_pq_write_result *r = pm_pq_writer_result(w);
    CHECK(r && r->num_rows == 0 && r->num_row_groups == 0 && r->columns[0].has_min_max == 0);
    pm_pq_writer_free(w);
  }
  CHECK(tw_check(p));
  CHECK(tw_canon_equals(p, ""));
  pm_schema_release(&s);
  pm_array_release(&a);
}

static void test_big_values_nan_and_stats_limit(void) {
  enum { N = 5 };
  struct ArrowSchema s;
  tw_schema(&s, "+s", NULL, 0, 3);
  tw_schema(s.children[0], "u", "big", 1, 0);
  tw_schema(s.children[1], "g", "nan", 1, 0);
  tw_schema(s.children[2], "z", "mid", 0, 0);
  struct ArrowArray a;
  pm_error err;
  if (pm_array_init(&a, N, 1, 3, &err)) abort();
  /* 1.5 MiB strings: each value is larger than the 1 MiB page */
  size_t big = 3u << 19;
  char *b0 = malloc(big), *b1 = malloc(big);
  memset(b0, 'a', big);
  memset(b1, 'b', big);
  const char *bigs[N] = {b0, "x", NULL, b1, "y"};
  size_t lens[N] = {big, 1, 0, big, 1};
  tw_str(a.children[0], N, bigs, lens);
  double d[N] = {1.0, NAN, -3.0, NAN, 2.0};
  tw_prim(a.children[1], N, d, 8, "11101");
  /* min+max of 2100+2100 bytes >= 4096: parquet-mr writes no statistics at all */
  char *m0 = malloc(2100), *m1 = malloc(2100);
  memset(m0, 'm', 2100);
  memset(m1, 'n', 2100);
  const char *mids[N] = {m0, m1, m0, m1, m0};
  size_t ml[N] = {2100, 2100, 2100, 2100, 2100};
  tw_str(a.children[2], N, mids, ml);
  const char *p = tw_path("big.parquet");
  pm_pq_writer *w = NULL;
  CHECK_OK(pm_pq_writer_open(p, &s, NULL, &w, &err), &err);
  if (w) {
    CHECK_OK(pm_pq_writer_write(w, &a, &err), &err);
    CHECK_OK(pm_pq_writer_close(w, &err), &err);
    const pm_pq_write_result *r = pm_pq_writer_result(w);
    CHECK(r && r->num_rows == N);
    if (r) {
      CHECK(r->columns[1].has_min_max && r->columns[1].min_f64 == -3.0 && r->columns[1].max_f64 == 2.0);
      CHECK_EQ_INT(r->columns[1].null_count, 1);
      /* results keep exact bounds even when the footer cannot */
      CHECK(r->columns[0].has_min_max && r->columns[0].min_len == big && r->columns[0].min[0] == 'a');
      CHECK(r->columns[0].max_len == 1 && r->columns[0].max[0] == 'y');
    }
    pm_pq_writer_free(w);
  }
  CHECK(tw_check(p));
  pm_file *f;
  pm_pq_meta *m = read_meta(p, &f);
  CHECK(m != NULL);
  if (m && m->n_row_groups == 1) {
    const pm_pq_column_chunk *c = m->row_groups[0].columns;
    /* big: min ('a' x 1.5 MiB) + max is over 4096 bytes: no statistics; the column index is truncated */
    CHECK(!c[0].has_statistics && c[0].has_column_index);
    CHECK(c[0].column_index_length < 400);
    /* NaN: min/max ignore NaN; no column index (as parquet-mr) */
    CHECK(c[1].has_statistics && c[1].statistics.has_min && !c[1].has_column_index);
    double mn = 0;
    if (c[1].statistics.has_min) memcpy(&mn, c[1].statistics.min.p, 8);
    CHECK(mn == -3.0);
    /* oversized statistics dropped entirely, column index still present (truncated to 64 bytes) */
    CHECK(!c[2].has_statistics && c[2].has_column_index && c[2].column_index_length < 200);
  }
  pm_pq_meta_free(m);
  pm_file_close(f);
  free(b0);
  free(b1);
  free(m0);
  free(m1);
  pm_schema_release(&s);
  pm_array_release(&a);
}

static void test_errors_and_discard(void) {
  pm_error err;
  struct ArrowSchema s;
  tw_schema(&s, "+s", NULL, 0, 1);
  tw_schema(s.children[0], "e", "half", 1, 0);
  const char *p = tw_path("bad.parquet");
  pm_pq_writer *w = NULL;
  int rc = pm_pq_writer_open(p, &s, NULL, &w, &err);
  CHECK_EQ_INT(rc, PAIMON_ERR_UNSUPPORTED);
  CHECK(w == NULL && strstr(err.message, "half") != NULL);
  CHECK(!pm_path_exists(p));
  pm_schema_release(&s);

  /* not closed: nothing under the final name */
  tw_schema(&s, "+s", NULL, 0, 1);
  tw_schema(s.children[0], "i", "a", 1, 0);
  struct ArrowArray a;
  if (pm_array_init(&a, 2, 1, 1, &err)) abort();
  int32_t v[2] = {1, 2};
  tw_prim(a.children[0], 2, v, 4, NULL);
  const char *q = tw_path("discard.parquet");
  CHECK_OK(pm_pq_writer_open(q, &s, NULL, &w, &err), &err);
  if (w) {
    CHECK_OK(pm_pq_writer_write(w, &a, &err), &err);
    pm_pq_writer_free(w);
  }
  CHECK(!pm_path_exists(q));
  /* batch with a different column count */
  struct ArrowArray wrong;
  if (pm_array_init(&wrong, 1, 1, 2, &err)) abort();
  CHECK_OK(pm_pq_writer_open(q, &s, NULL, &w, &err), &err);
  if (w) {
    CHECK_EQ_INT(pm_pq_writer_write(w, &wrong, &err), PAIMON_ERR_INVALID_ARGUMENT);
    pm_pq_writer_free(w);
  }
  pm_array_release(&wrong);
  /* no_overwrite */
  pm_pq_write_options o;
  pm_pq_write_options_default(&o);
  o.no_overwrite = 1;
  const char *r = tw_path("once.parquet");
  for (int i = 0; i < 2; i++) {
    CHECK_OK(pm_pq_writer_open(r, &s, &o, &w, &err), &err);
    if (!w) break;
    CHECK_OK(pm_pq_writer_write(w, &a, &err), &err);
    rc = pm_pq_writer_close(w, &err);
    CHECK_EQ_INT(rc, i == 0 ? 0 : PAIMON_ERR_CONFLICT);
    pm_pq_writer_free(w);
  }
  CHECK(tw_check(r));
  pm_schema_release(&s);
  pm_array_release(&a);
}

int main(void) {
  RUN_TEST(test_empty_file);
  RUN_TEST(test_big_values_nan_and_stats_limit);
  RUN_TEST(test_errors_and_discard);
  tw_cleanup();
  TEST_MAIN_END();
}
