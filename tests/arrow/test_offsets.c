/* Arrays whose children carry their own offsets (as produced by other Arrow libraries' slicing):
 * printing, validation, take, filter, concat and builder copies must all honour every level's offset. */
#include "arrow/builder.h"
#include "arrow/compute.h"
#include "arrow/validate.h"
#include "support/arrow_test_util.h"
#include "harness.h"

static pm_error err;

static const char *SPEC = "b:+s{i:i;l:+l{item:u};st:+s{x:l}}";
static const char *ROWS[3] = {"{\"i\":10,\"l\":[\"a\"],\"st\":{\"x\":7}}", "{\"i\":null,\"l\":null,\"st\":{\"x\":8}}",
                              "{\"i\":30,\"l\":[\"b\",null],\"st\":{\"x\":9}}"};

static void finish_leaf(const char *spec, void (*fill)(pm_builder *), struct ArrowArray *out) {
  pm_type t;
  tu_type(spec, &t);
  pm_builder *b;
  pm_builder_new(&t, &b, &err);
  fill(b);
  CHECK_OK(pm_builder_finish(b, out, &err), &err);
  pm_builder_free(b);
  pm_type_free(&t);
}

static void fill_i(pm_builder *b) {
  pm_builder_append_int(b, -1, &err);
  pm_builder_append_int(b, -2, &err);
  pm_builder_append_int(b, 10, &err);
  pm_builder_append_null(b, &err);
  pm_builder_append_int(b, 30, &err);
}
static void fill_l(pm_builder *b) {
  pm_builder *items = pm_builder_child(b, 0);
  pm_builder_append_str(items, "j1", &err); /* junk row holding the 3 junk items */
  pm_builder_append_str(items, "j2", &err);
  pm_builder_append_str(items, "j3", &err);
  pm_builder_append_valid(b, &err);
  pm_builder_append_str(items, "a", &err);
  pm_builder_append_valid(b, &err);
  pm_builder_append_null(b, &err);
  pm_builder_append_str(items, "b", &err);
  pm_builder_append_null(items, &err);
  pm_builder_append_valid(b, &err);
}
static void fill_x(pm_builder *b) {
  int64_t v[6] = {-100, -200, -300, 7, 8, 9};
  for (int k = 0; k < 6; k++) pm_builder_append_int(b, v[k], &err);
}

/* i: offset 2; l: offset 1, items offset 3 (list offsets rebased); st: offset 1, st.x offset 2. */
static void build(struct ArrowSchema *s, struct ArrowArray *a) {
  tu_schema(SPEC, s);
  pm_array_init(a, 3, 1, 3, &err);
  struct ArrowArray tmp;
  finish_leaf("i:i", fill_i, &tmp);
  pm_array_move(&tmp, a->children[0]);
  a->children[0]->offset = 2;
  a->children[0]->length = 3;
  a->children[0]->null_count = 1;

  finish_leaf("l:+l{item:u}", fill_l, &tmp);
  pm_array_move(&tmp, a->children[1]);
  struct ArrowArray *l = a->children[1];
  l->offset = 1;
  l->length = 3;
  int32_t *off = (int32_t *)l->buffers[1];
  for (int k = 1; k <= 4; k++) off[k] -= 3;
  l->children[0]->offset = 3;
  l->children[0]->length -= 3;
  l->children[0]->null_count = -1;

  struct ArrowArray *st = a->children[2];
  pm_array_init(st, 3, 1, 1, &err);
  st->offset = 1;
  finish_leaf("x:l", fill_x, &tmp);
  pm_array_move(&tmp, st->children[0]);
  st->children[0]->offset = 2;
  st->children[0]->length = 4;
}

static void check_rows(const pm_type *t, const struct ArrowArray *a, const int *which, int n) {
  char want[1024] = "[";
  for (int i = 0; i < n; i++) {
    if (i) strcat(want, ",");
    strcat(want, which[i] < 0 ? "null" : ROWS[which[i]]);
  }
  strcat(want, "]");
  CHECK_EQ_STR(tu_json(t, a), want);
}

static void test_all_kernels(void) {
  struct ArrowSchema s;
  struct ArrowArray a;
  build(&s, &a);
  CHECK_OK(pm_arrow_validate_ex(&s, &a, PM_VALIDATE_UTF8, &err), &err);
  pm_type t;
  pm_type_from_schema(&s, &t, &err);
  int all[3] = {0, 1, 2};
  check_rows(&t, &a, all, 3);

  /* JSONL through the printer. */
  pm_buf out;
  pm_buf_init(&out);
  CHECK_OK(pm_print_batch_to_buf(&s, &a, NULL, &out, &err), &err);
  pm_buf_push_u8(&out, 0);
  char want[1024];
  snprintf(want, sizeof want, "%s\n%s\n%s\n", ROWS[0], ROWS[1], ROWS[2]);
  CHECK_EQ_STR((char *)out.data, want);
  pm_buf_free(&out);

  struct ArrowArray r;
  int64_t idx[5] = {2, -1, 0, 1, 2};
  CHECK_OK(pm_take(&t, &a, idx, 5, &r, &err), &err);
  int w1[5] = {2, -1, 0, 1, 2};
  check_rows(&t, &r, w1, 5);
  CHECK_OK(pm_arrow_validate(&s, &r, &err), &err);
  pm_array_release(&r);

  uint8_t sel = 0x5;
  CHECK_OK(pm_filter(&t, &a, &sel, 0, &r, &err), &err);
  int w2[2] = {0, 2};
  check_rows(&t, &r, w2, 2);
  pm_array_release(&r);

  const struct ArrowArray *parts[2] = {&a, &a};
  CHECK_OK(pm_concat(&t, parts, 2, &r, &err), &err);
  int w3[6] = {0, 1, 2, 0, 1, 2};
  check_rows(&t, &r, w3, 6);
  CHECK_OK(pm_arrow_validate(&s, &r, &err), &err);
  pm_array_release(&r);

  pm_builder *b;
  pm_builder_new(&t, &b, &err);
  for (int k = 2; k >= 0; k--) CHECK_OK(pm_builder_append_from(b, NULL, &a, k, &err), &err);
  pm_builder_finish(b, &r, &err);
  int w4[3] = {2, 1, 0};
  check_rows(&t, &r, w4, 3);
  pm_array_release(&r);
  pm_builder_free(b);

  /* Zero-copy slice of the whole thing keeps every level's offset. */
  struct ArrowArray view;
  CHECK_OK(pm_slice(&a, 1, 2, &view, &err), &err);
  CHECK_OK(pm_arrow_validate(&s, &view, &err), &err);
  int w5[2] = {1, 2};
  check_rows(&t, &view, w5, 2);
  pm_array_release(&view);
  pm_type_free(&t);
  pm_schema_release(&s);
}

int main(void) {
  RUN_TEST(test_all_kernels);
  TEST_MAIN_END();
}
