/* Reader API on a Java-written file: field-id projection (nested too), field
 * metadata, names, Arrow formats, statistics, predicate pruning with the page index. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow.h"
#include "format/parquet/parquet_meta.h"
#include "format/parquet/parquet_reader.h"
#include "harness.h"
#include "util/buf.h"

#define COMPLEX                                                                                               \
  PM_SHARED("fixtures/warehouse/parquet/append_complex_build_in_fieldid.db/append_complex_build_in_fieldid/" \
            "bucket-0/data-3570e113-9ede-4c86-bf5d-040085424886-0.parquet")

typedef struct table {
  int64_t rows;
  int32_t *f5;  /* date days, INT32_MIN for null */
  int64_t *f31; /* f3.f1, INT64_MIN for null */
} table;

static void read_reference(table *t) {
  pm_error err;
  pm_pq_reader *r;
  memset(t, 0, sizeof *t);
  CHECK_OK(pm_pq_reader_open_path(COMPLEX, NULL, &r, &err), &err);
  if (!r) return;
  t->rows = pm_pq_reader_num_rows(r);
  t->f5 = calloc((size_t)t->rows + 1, sizeof(int32_t));
  t->f31 = calloc((size_t)t->rows + 1, sizeof(int64_t));
  int64_t at = 0;
  for (;;) {
    struct ArrowArray a;
    if (pm_pq_reader_next(r, &a, &err) || !a.release) break;
    int64_t np;
    const int64_t *pos = pm_pq_reader_batch_positions(r, &np);
    CHECK_EQ_INT(np, a.length);
    struct ArrowArray *f5 = a.children[4], *f3 = a.children[2], *f31 = f3->children[1];
    for (int64_t i = 0; i < a.length; i++) {
      CHECK_EQ_INT(pos[i], at + i);
      int v5 = !f5->buffers[0] || pm_bit_get(f5->buffers[0], i);
      t->f5[at + i] = v5 ? ((const int32_t *)f5->buffers[1])[i] : INT32_MIN;
      int v3 = (!f3->buffers[0] || pm_bit_get(f3->buffers[0], i)) && (!f31->buffers[0] || pm_bit_get(f31->buffers[0], i));
      t->f31[at + i] = v3 ? ((const int64_t *)f31->buffers[1])[i] : INT64_MIN;
    }
    at += a.length;
    a.release(&a);
  }
  CHECK_EQ_INT(at, t->rows);
  pm_pq_reader_close(r);
}

static void test_schema_formats(void) {
  pm_error err;
  pm_pq_reader *r;
  CHECK_OK(pm_pq_reader_open_path(COMPLEX, NULL, &r, &err), &err);
  if (!r) return;
  struct ArrowSchema s;
  CHECK_OK(pm_pq_reader_schema(r, &s, &err), &err);
  CHECK_EQ_INT(s.n_children, 6);
  CHECK_EQ_STR(s.children[0]->format, "+m");
  CHECK_EQ_STR(s.children[0]->children[0]->format, "+s");
  CHECK_EQ_STR(s.children[0]->children[0]->children[0]->format, "c");
  CHECK_EQ_STR(s.children[0]->children[0]->children[1]->format, "s");
  CHECK(!(s.children[0]->children[0]->children[0]->flags & ARROW_FLAG_NULLABLE));
  CHECK_EQ_STR(s.children[1]->format, "+l");
  CHECK_EQ_STR(s.children[1]->children[0]->format, "f");
  CHECK_EQ_STR(s.children[2]->format, "+s");
  CHECK_EQ_STR(s.children[3]->format, "tsn:");
  CHECK_EQ_STR(s.children[4]->format, "tdD");
  CHECK_EQ_STR(s.children[5]->format, "d:2,2");
  char *id = pm_schema_metadata_get(s.children[5], "PARQUET:field_id");
  CHECK_EQ_STR(id, "7");
  free(id);
  id = pm_schema_metadata_get(s.children[1]->children[0], "PARQUET:field_id");
  CHECK_EQ_STR(id, "536871936");
  free(id);
  pm_schema_release(&s);
  pm_pq_reader_close(r);
}

static void test_field_id_projection(void) {
  table t;
  read_reference(&t);
  pm_error err;
  pm_pq_read_options opt;
  pm_pq_read_options_init(&opt);
  int32_t ids[] = {4, 0, 999, 6};
  opt.field_ids = ids;
  opt.n_field_ids = 4;
  opt.batch_rows = 3;
  pm_pq_reader *r;
  CHECK_OK(pm_pq_reader_open_path(COMPLEX, &opt, &r, &err), &err);
  if (!r) return;
  struct ArrowSchema s;
  CHECK_OK(pm_pq_reader_schema(r, &s, &err), &err);
  CHECK_EQ_INT(s.n_children, 3); /* 999 is absent */
  CHECK_EQ_STR(s.children[0]->name, "f1");
  CHECK_EQ_STR(s.children[0]->format, "l");
  CHECK_EQ_STR(s.children[1]->format, "+m");
  CHECK_EQ_STR(s.children[2]->format, "tdD");
  char *id = pm_schema_metadata_get(s.children[0], "PARQUET:field_id");
  CHECK_EQ_STR(id, "4");
  free(id);
  int64_t at = 0;
  for (;;) {
    struct ArrowArray a;
    if (pm_pq_reader_next(r, &a, &err) || !a.release) break;
    CHECK(a.length <= 3);
    for (int64_t i = 0; i < a.length; i++) {
      struct ArrowArray *c0 = a.children[0], *c2 = a.children[2];
      int64_t v = (!c0->buffers[0] || pm_bit_get(c0->buffers[0], i)) ? ((const int64_t *)c0->buffers[1])[i] : INT64_MIN;
      int32_t d = (!c2->buffers[0] || pm_bit_get(c2->buffers[0], i)) ? ((const int32_t *)c2->buffers[1])[i] : INT32_MIN;
      CHECK_EQ_INT(v, t.f31[at + i]);
      CHECK_EQ_INT(d, t.f5[at + i]);
    }
    at += a.length;
    a.release(&a);
  }
  CHECK_EQ_INT(at, t.rows);
  pm_schema_release(&s);
  pm_pq_reader_close(r);
  /* a field inside a list cannot stand alone */
  int32_t inner[] = {536871936};
  opt.field_ids = inner;
  opt.n_field_ids = 1;
  CHECK(pm_pq_reader_open_path(COMPLEX, &opt, &r, &err) == PAIMON_ERR_UNSUPPORTED);
  free(t.f5);
  free(t.f31);
}

static void test_names(void) {
  pm_error err;
  pm_pq_read_options opt;
  pm_pq_read_options_init(&opt);
  const char *cols[] = {"F5", "f3"};
  opt.columns = cols;
  opt.n_columns = 2;
  pm_pq_reader *r;
  CHECK(pm_pq_reader_open_path(COMPLEX, &opt, &r, &err) == PAIMON_ERR_NOT_FOUND);
  CHECK(strstr(err.message, "F5") != NULL);
  opt.case_insensitive = 1;
  CHECK_OK(pm_pq_reader_open_path(COMPLEX, &opt, &r, &err), &err);
  if (!r) return;
  struct ArrowSchema s;
  CHECK_OK(pm_pq_reader_schema(r, &s, &err), &err);
  CHECK_EQ_STR(s.children[0]->name, "f5");
  CHECK_EQ_STR(s.children[1]->name, "f3");
  pm_schema_release(&s);
  const pm_pq_meta *m = pm_pq_reader_meta(r);
  CHECK_EQ_INT(pm_pq_meta_find_leaf(m, "f3.f1", 0), 4);
  CHECK_EQ_INT(pm_pq_meta_find_leaf(m, "F3.F1", 1), 4);
  CHECK_EQ_INT(pm_pq_meta_find_leaf_by_id(m, 6), 6);
  pm_pq_reader_close(r);
  CHECK(pm_pq_reader_open_path("/nonexistent/x.parquet", NULL, &r, &err) != 0);
}

static void test_stats_and_pruning(void) {
  table t;
  read_reference(&t);
  pm_error err;
  pm_pq_reader *r;
  CHECK_OK(pm_pq_reader_open_path(COMPLEX, NULL, &r, &err), &err);
  if (!r) return;
  int32_t mn = INT32_MAX, mx = INT32_MIN;
  int64_t nulls = 0;
  for (int64_t i = 0; i < t.rows; i++) {
    if (t.f5[i] == INT32_MIN) {
      nulls++;
      continue;
    }
    if (t.f5[i] < mn) mn = t.f5[i];
    if (t.f5[i] > mx) mx = t.f5[i];
  }
  pm_pq_column_stats st;
  CHECK_OK(pm_pq_reader_column_stats(r, 6, &st, &err), &err);
  CHECK_EQ_INT(st.kind, PM_FMT_LIT_INT64);
  if (mn <= mx) {
    CHECK(st.has_min_max);
    CHECK_EQ_INT(st.min.i64, mn);
    CHECK_EQ_INT(st.max.i64, mx);
  }
  if (st.has_null_count) CHECK_EQ_INT(st.null_count, nulls);
  pm_pq_reader_close(r);

  /* EQ on f5 (by field id): every matching row survives pruning */
  if (mn <= mx) {
    pm_fmt_literal lit = {PM_FMT_LIT_INT64, mx, 0, NULL, 0};
    pm_fmt_predicate p = {NULL, 6, PM_FMT_OP_EQ, &lit, 1};
    pm_pq_read_options opt;
    pm_pq_read_options_init(&opt);
    opt.predicates = &p;
    opt.n_predicates = 1;
    CHECK_OK(pm_pq_reader_open_path(COMPLEX, &opt, &r, &err), &err);
    int64_t found = 0, expect = 0;
    for (int64_t i = 0; i < t.rows; i++) expect += t.f5[i] == mx;
    for (;;) {
      struct ArrowArray a;
      if (pm_pq_reader_next(r, &a, &err) || !a.release) break;
      int64_t np;
      const int64_t *pos = pm_pq_reader_batch_positions(r, &np);
      for (int64_t i = 0; i < np; i++) found += t.f5[pos[i]] == mx;
      a.release(&a);
    }
    CHECK_EQ_INT(found, expect);
    pm_pq_reader_close(r);
    /* GT max prunes everything */
    p.op = PM_FMT_OP_GT;
    CHECK_OK(pm_pq_reader_open_path(COMPLEX, &opt, &r, &err), &err);
    struct ArrowArray a;
    CHECK_OK(pm_pq_reader_next(r, &a, &err), &err);
    CHECK(a.release == NULL);
    pm_pq_reader_close(r);
    /* IN with a value outside the range and max: keeps the max rows */
    pm_fmt_literal in[2] = {{PM_FMT_LIT_INT64, (int64_t)mx + 100000, 0, NULL, 0}, {PM_FMT_LIT_INT64, mx, 0, NULL, 0}};
    pm_fmt_predicate pin = {"f5", -1, PM_FMT_OP_IN, in, 2};
    opt.predicates = &pin;
    CHECK_OK(pm_pq_reader_open_path(COMPLEX, &opt, &r, &err), &err);
    int64_t rows = 0;
    for (;;) {
      if (pm_pq_reader_next(r, &a, &err) || !a.release) break;
      rows += a.length;
      a.release(&a);
    }
    CHECK(rows >= expect);
    pm_pq_reader_close(r);
  }
  free(t.f5);
  free(t.f31);
}

/* Batches stay valid after the reader is closed, and after later batches. */
static void test_batch_lifetime(void) {
  pm_error err;
  pm_pq_read_options opt;
  pm_pq_read_options_init(&opt);
  opt.batch_rows = 2;
  pm_pq_reader *r;
  CHECK_OK(pm_pq_reader_open_path(COMPLEX, &opt, &r, &err), &err);
  if (!r) return;
  struct ArrowArray a, b;
  CHECK_OK(pm_pq_reader_next(r, &a, &err), &err);
  CHECK_OK(pm_pq_reader_next(r, &b, &err), &err);
  CHECK(a.release && b.release);
  int32_t first = ((const int32_t *)a.children[4]->buffers[1])[0];
  if (a.release) a.release(&a); /* back to the pool */
  struct ArrowArray c;
  CHECK_OK(pm_pq_reader_next(r, &c, &err), &err); /* may reuse a's buffers */
  pm_pq_reader_close(r);
  if (b.release) {
    CHECK(b.length == 1); /* the file has 3 rows */
    (void)((const int32_t *)b.children[4]->buffers[1])[0];
    b.release(&b);
  }
  if (c.release) c.release(&c);
  (void)first;
}

/* Page CRC verification accepts the CRCs Java writes (and files without them). */
static void test_verify_crc(void) {
  pm_error err;
  pm_pq_read_options opt;
  pm_pq_read_options_init(&opt);
  opt.verify_crc = 1;
  pm_pq_reader *r;
  CHECK_OK(pm_pq_reader_open_path(COMPLEX, &opt, &r, &err), &err);
  if (!r) return;
  int64_t rows = 0;
  for (;;) {
    struct ArrowArray a;
    int rc = pm_pq_reader_next(r, &a, &err);
    CHECK_OK(rc, &err);
    if (rc || !a.release) break;
    rows += a.length;
    a.release(&a);
  }
  CHECK_EQ_INT(rows, pm_pq_reader_num_rows(r));
  const pm_pq_meta *m = pm_pq_reader_meta(r);
  const pm_pq_column_chunk *cc = &m->row_groups[0].columns[6];
  uint64_t last = (uint64_t)cc->data_page_offset + (uint64_t)cc->total_compressed_size - 1;
  pm_pq_reader_close(r);
  /* a flipped byte in page data is caught by the CRC */
  pm_buf b;
  pm_buf_init(&b);
  CHECK_OK(pm_read_file(COMPLEX, &b, 0, &err), &err);
  CHECK(last < b.len);
  b.data[last] ^= 0x40;
  pm_file *f;
  CHECK_OK(pm_file_from_memory(b.data, b.len, "flipped.parquet", &f, &err), &err);
  CHECK_OK(pm_pq_reader_open(f, &opt, &r, &err), &err);
  int rc = 0;
  for (;;) {
    struct ArrowArray a;
    rc = pm_pq_reader_next(r, &a, &err);
    if (rc || !a.release) break;
    a.release(&a);
  }
  CHECK(rc == PAIMON_ERR_CORRUPT);
  CHECK(strstr(err.message, "CRC") != NULL && strstr(err.message, "flipped.parquet") != NULL);
  pm_pq_reader_close(r);
  pm_buf_free(&b);
}

int main(void) {
  RUN_TEST(test_batch_lifetime);
  RUN_TEST(test_verify_crc);
  RUN_TEST(test_schema_formats);
  RUN_TEST(test_field_id_projection);
  RUN_TEST(test_names);
  RUN_TEST(test_stats_and_pruning);
  TEST_MAIN_END();
}
