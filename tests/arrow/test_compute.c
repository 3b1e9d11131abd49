/* take / filter / concat / zero-copy slice on nested types, with sliced and dictionary sources. */
#include "arrow/builder.h"
#include "arrow/compute.h"
#include "support/arrow_test_util.h"
#include "harness.h"

static pm_error err;

static const char *SPEC = "r:+s{i:i;s:u;l:+l{item:+s{k:l;m:+m{entries:+s{key:u;value:b}}}};f:+w:2{item:i};"
                          "b:b;z:w:2;n:n;t:tsu:}";

/* Row r of the reference batch as JSON (what take/filter must reproduce). */
static void build(pm_type *t, struct ArrowArray *a, int rows) {
  tu_type(SPEC, t);
  pm_builder *b;
  pm_builder_new(t, &b, &err);
  for (int r = 0; r < rows; r++) {
    if (r % 5 == 4) {
      pm_builder_append_null(b, &err);
      continue;
    }
    if (r % 3 == 1)
      pm_builder_append_null(pm_builder_child(b, 0), &err);
    else
      pm_builder_append_int(pm_builder_child(b, 0), r, &err);
    char s[16];
    snprintf(s, sizeof s, "s%d", r);
    pm_builder_append_str(pm_builder_child(b, 1), s, &err);
    pm_builder *bl = pm_builder_child(b, 2), *st = pm_builder_child(bl, 0);
    if (r % 7 == 3) {
      pm_builder_append_null(bl, &err);
    } else {
      for (int j = 0; j < r % 3; j++) {
        pm_builder_append_int(pm_builder_child(st, 0), r * 10 + j, &err);
        pm_builder *bm = pm_builder_child(st, 1), *be = pm_builder_child(bm, 0);
        for (int k = 0; k <= j; k++) {
          pm_builder_append_str(pm_builder_child(be, 0), k ? "b" : "a", &err);
          if (k == 1)
            pm_builder_append_null(pm_builder_child(be, 1), &err);
          else
            pm_builder_append_bool(pm_builder_child(be, 1), (r + k) & 1, &err);
          pm_builder_append_valid(be, &err);
        }
        pm_builder_append_valid(bm, &err);
        pm_builder_append_valid(st, &err);
      }
      pm_builder_append_valid(bl, &err);
    }
    pm_builder *bf = pm_builder_child(b, 3);
    if (r % 4 == 2) {
      pm_builder_append_null(bf, &err);
    } else {
      pm_builder_append_int(pm_builder_child(bf, 0), r, &err);
      pm_builder_append_int(pm_builder_child(bf, 0), -r, &err);
      pm_builder_append_valid(bf, &err);
    }
    pm_builder_append_bool(pm_builder_child(b, 4), r % 3 == 0, &err);
    char z[2] = {(char)('A' + r % 26), (char)('a' + r % 26)};
    pm_builder_append_bytes(pm_builder_child(b, 5), z, 2, &err);
    pm_builder_append_null(pm_builder_child(b, 6), &err);
    pm_builder_append_int(pm_builder_child(b, 7), (int64_t)r * 1000001, &err);
    CHECK_OK(pm_builder_append_valid(b, &err), &err);
  }
  CHECK_OK(pm_builder_finish(b, a, &err), &err);
  pm_builder_free(b);
}

/* JSON of single row i of a. */
static void row_json(const pm_type *t, const struct ArrowArray *a, int64_t i, char *buf, size_t cap) {
  pm_buf out;
  pm_buf_init(&out);
  if (i < 0)
    pm_buf_append(&out, "null", 4);
  else
    pm_json_append_value(t, a, i, -1, &out, &err);
  size_t n = out.len < cap - 1 ? out.len : cap - 1;
  memcpy(buf, out.data, n);
  buf[n] = 0;
  pm_buf_free(&out);
}

static int rows_equal(const pm_type *t, const struct ArrowArray *a, int64_t i, const struct ArrowArray *b,
                      int64_t j) {
  char x[2048], y[2048];
  row_json(t, a, i, x, sizeof x);
  row_json(t, b, j, y, sizeof y);
  if (strcmp(x, y) != 0) fprintf(stderr, "row mismatch:\n  %s\n  %s\n", x, y);
  return strcmp(x, y) == 0;
}

static void test_take(void) {
  pm_type t;
  struct ArrowArray a;
  build(&t, &a, 40);
  /* Slice the source by offset, then take in random order with repeats and nulls. */
  struct ArrowArray view = a;
  view.offset = 3;
  view.length = 37;
  view.null_count = -1;
  int64_t idx[64];
  for (int i = 0; i < 64; i++) idx[i] = (i * 17 + 5) % 37;
  idx[10] = -1;
  idx[11] = 36;
  idx[12] = 0;
  struct ArrowArray out;
  CHECK_OK(pm_take(&t, &view, idx, 64, &out, &err), &err);
  CHECK_EQ_INT(out.length, 64);
  int ok = 1;
  for (int i = 0; i < 64; i++) ok &= rows_equal(&t, &view, idx[i], &out, i);
  CHECK(ok);
  /* Null count is exact: nulls come from idx -1 and source null rows (r % 5 == 4). */
  int64_t nulls = 0;
  for (int i = 0; i < 64; i++) nulls += idx[i] < 0 || (idx[i] + 3) % 5 == 4;
  CHECK_EQ_INT(out.null_count, nulls);
  pm_array_release(&out);
  /* Take on one nested column directly. */
  const pm_type *lt = &t.children[2];
  int64_t li[3] = {9, 8, 1};
  CHECK_OK(pm_take(lt, a.children[2], li, 3, &out, &err), &err);
  CHECK_EQ_STR(tu_json(lt, &out),
               "[null,[{\"k\":80,\"m\":[[\"a\",false]]},{\"k\":81,\"m\":[[\"a\",false],[\"b\",null]]}],"
               "[{\"k\":10,\"m\":[[\"a\",true]]}]]");
  pm_array_release(&out);
  /* Out of range index. */
  int64_t bad = 37;
  CHECK(pm_take(&t, &view, &bad, 1, &out, &err) == PAIMON_ERR_CORRUPT || err.code != 0);
  CHECK(out.release == NULL);
  pm_array_release(&a);
  pm_type_free(&t);
}

static void test_filter(void) {
  pm_type t;
  struct ArrowArray a;
  build(&t, &a, 100);
  uint8_t sel[16] = {0};
  int64_t kept[100], nk = 0;
  for (int i = 0; i < 97; i++) /* selection bits start at offset 3 */
    if ((i * 7) % 11 < 5 || (i > 40 && i < 60)) {
      pm_bit_set(sel, i + 3);
      kept[nk++] = i;
    }
  struct ArrowArray view = a;
  view.offset = 3;
  view.length = 97;
  struct ArrowArray out;
  CHECK_EQ_INT(pm_filter_count(sel, 3, 97), nk);
  CHECK_OK(pm_filter(&t, &view, sel, 3, &out, &err), &err);
  CHECK_EQ_INT(out.length, nk);
  int ok = 1;
  for (int64_t i = 0; i < nk; i++) ok &= rows_equal(&t, &view, kept[i], &out, i);
  CHECK(ok);
  pm_array_release(&out);
  pm_array_release(&a);
  pm_type_free(&t);
}

static void test_concat_and_slice(void) {
  pm_type t;
  struct ArrowArray a, b;
  build(&t, &a, 23);
  pm_type t2;
  build(&t2, &b, 9); /* same type, separate build */
  pm_type_free(&t2);
  struct ArrowArray bview = b;
  bview.offset = 2;
  bview.length = 7;
  const struct ArrowArray *parts[3] = {&a, &bview, &a};
  struct ArrowArray out;
  CHECK_OK(pm_concat(&t, parts, 3, &out, &err), &err);
  CHECK_EQ_INT(out.length, 23 + 7 + 23);
  int ok = 1;
  for (int i = 0; i < 23; i++) ok &= rows_equal(&t, &a, i, &out, i) && rows_equal(&t, &a, i, &out, 30 + i);
  for (int i = 0; i < 7; i++) ok &= rows_equal(&t, &bview, i, &out, 23 + i);
  CHECK(ok);

  /* Zero-copy slices of the concatenation: share, slice twice, release in any order. */
  pm_shared_array *sh;
  CHECK_OK(pm_shared_array_new(&out, &sh, &err), &err);
  CHECK(out.release == NULL);
  struct ArrowArray s1, s2;
  CHECK_OK(pm_shared_array_slice(sh, 20, 10, &s1, &err), &err);
  CHECK_OK(pm_shared_array_slice(sh, 0, 53, &s2, &err), &err);
  CHECK(pm_shared_array_slice(sh, 50, 4, &out, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  const struct ArrowArray *whole = pm_shared_array_get(sh);
  CHECK(s1.buffers[0] == whole->buffers[0] && s1.children[1]->buffers[2] == whole->children[1]->buffers[2]);
  ok = 1;
  for (int i = 0; i < 10; i++) ok &= rows_equal(&t, whole, 20 + i, &s1, i);
  CHECK(ok);
  int64_t nulls = 0;
  for (int i = 20; i < 30; i++) nulls += !pm_array_is_valid(whole, i);
  CHECK_EQ_INT(s1.null_count, nulls);
  pm_shared_array_release(sh); /* views keep the data alive */
  /* Consumer moves a child out of a view, releases the view, then the child. */
  struct ArrowArray moved;
  pm_array_move(s1.children[2], &moved);
  pm_array_release(&s1);
  CHECK_EQ_STR(tu_json(&t.children[2], &moved) != NULL ? "ok" : "", "ok");
  pm_array_release(&moved);
  /* Slice of a slice via pm_slice (consumes s2). */
  struct ArrowArray s3;
  CHECK_OK(pm_slice(&s2, 30, 5, &s3, &err), &err);
  CHECK(s2.release == NULL);
  ok = 1;
  for (int i = 0; i < 5; i++) ok &= rows_equal(&t, &a, i, &s3, i); /* out rows 30.. = a rows 0.. */
  CHECK(ok);
  pm_array_release(&s3);
  pm_array_release(&a);
  pm_array_release(&b);
  pm_type_free(&t);
}

static void test_take_multi(void) {
  pm_type t, t2;
  struct ArrowArray a, b;
  build(&t, &a, 30);
  build(&t2, &b, 12);
  pm_type_free(&t2);
  struct ArrowArray bview = b;
  bview.offset = 2;
  bview.length = 10;
  const struct ArrowArray *srcs[2] = {&a, &bview};
  /* Runs from each source, single rows, a null row, a backwards step. */
  int32_t si[12] = {0, 0, 0, 1, 1, -1, 0, 1, 1, 0, 0, 1};
  int64_t ri[12] = {5, 6, 7, 0, 1, 0, 29, 9, 8, 3, 4, 4};
  struct ArrowArray out;
  CHECK_OK(pm_take_multi(&t, srcs, 2, si, ri, 12, &out, &err), &err);
  CHECK_EQ_INT(out.length, 12);
  int ok = 1;
  for (int i = 0; i < 12; i++) {
    if (si[i] < 0)
      ok &= !pm_array_is_valid(&out, i);
    else
      ok &= rows_equal(&t, srcs[si[i]], ri[i], &out, i);
  }
  CHECK(ok);
  pm_array_release(&out);
  int32_t bad_src = 2;
  int64_t row0 = 0;
  CHECK(pm_take_multi(&t, srcs, 2, &bad_src, &row0, 1, &out, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  int32_t src1 = 1;
  int64_t row10 = 10;
  CHECK(pm_take_multi(&t, srcs, 2, &src1, &row10, 1, &out, &err) != 0);
  pm_array_release(&a);
  pm_array_release(&b);
  pm_type_free(&t);
}

static void test_take_dictionary_source(void) {
  /* int16 indices into a utf8 dictionary, output is plain utf8. */
  struct ArrowSchema s;
  pm_schema_init(&s, "s", "d", ARROW_FLAG_NULLABLE, 0, &err);
  pm_schema_init_dictionary(&s, &err);
  pm_schema_init(s.dictionary, "u", NULL, 0, 0, &err);
  pm_type t;
  pm_type_from_schema(&s, &t, &err);
  struct ArrowArray a;
  pm_array_init(&a, 4, 2, 0, &err);
  int16_t *ix = pm_aligned_alloc(8);
  ix[0] = 2;
  ix[1] = 0;
  ix[2] = 7; /* null row, value ignored */
  ix[3] = 1;
  uint8_t *v = pm_aligned_alloc(1);
  v[0] = 0xB;
  pm_array_set_buffer(&a, 0, v);
  pm_array_set_buffer(&a, 1, ix);
  a.null_count = 1;
  pm_array_alloc_dictionary(&a, &err);
  pm_builder *b;
  pm_builder_new(t.dict, &b, &err);
  pm_builder_append_str(b, "x", &err);
  pm_builder_append_str(b, "y", &err);
  pm_builder_append_str(b, "z", &err);
  pm_builder_finish(b, a.dictionary, &err);
  pm_builder_free(b);
  int64_t idx[5] = {3, 2, 1, 0, -1};
  struct ArrowArray out;
  CHECK_OK(pm_take(&t, &a, idx, 5, &out, &err), &err);
  CHECK_EQ_STR(tu_json(t.dict, &out), "[\"y\",null,\"x\",\"z\",null]");
  pm_array_release(&out);
  uint8_t sel = 0x9;
  CHECK_OK(pm_filter(&t, &a, &sel, 0, &out, &err), &err);
  CHECK_EQ_STR(tu_json(t.dict, &out), "[\"z\",\"y\"]");
  pm_array_release(&out);
  /* A builder created for the dictionary type builds decoded values, named like the column. */
  CHECK_OK(pm_builder_new(&t, &b, &err), &err);
  CHECK_EQ_INT(pm_builder_type(b)->id, PM_T_UTF8);
  CHECK_OK(pm_builder_append_from(b, &t, &a, 3, &err), &err);
  CHECK_OK(pm_builder_append_from(b, &t, &a, 2, &err), &err);
  struct ArrowSchema os;
  CHECK_OK(pm_builder_schema(b, NULL, &os, &err), &err);
  CHECK_EQ_STR(os.format, "u");
  CHECK_EQ_STR(os.name, "d");
  CHECK(os.dictionary == NULL);
  pm_schema_release(&os);
  CHECK_OK(pm_builder_finish(b, &out, &err), &err);
  CHECK_EQ_STR(tu_json(t.dict, &out), "[\"y\",null]");
  pm_array_release(&out);
  pm_builder_free(b);
  pm_array_release(&a);
  pm_type_free(&t);
  pm_schema_release(&s);
}

int main(void) {
  RUN_TEST(test_take);
  RUN_TEST(test_filter);
  RUN_TEST(test_concat_and_slice);
  RUN_TEST(test_take_multi);
  RUN_TEST(test_take_dictionary_source);
  TEST_MAIN_END();
}
