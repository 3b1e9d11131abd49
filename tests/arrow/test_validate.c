/* pm_arrow_validate: valid arrays pass (also sliced); each kind of corruption is caught with the field path. */
#include "arrow/builder.h"
#include "arrow/validate.h"
#include "support/arrow_test_util.h"
#include "harness.h"

static pm_error err;

/* One batch exercising most types. */
static const char *SPEC =
    "root:+s{i:i;s:u;l:+l{item:s};m:+m{entries:+s{key:u;value:l}};f:+w:2{item:c};d:d:4,1;st:+s{x:b}}";

static void build(struct ArrowSchema *s, struct ArrowArray *a) {
  tu_schema(SPEC, s);
  pm_builder *b;
  pm_builder_new_from_schema(s, &b, &err);
  for (int r = 0; r < 5; r++) {
    if (r == 2) {
      pm_builder_append_null(b, &err);
      continue;
    }
    pm_builder_append_int(pm_builder_child(b, 0), r, &err);
    pm_builder_append_str(pm_builder_child(b, 1), r == 3 ? "drei" : "x", &err);
    pm_builder *l = pm_builder_child(b, 2);
    for (int j = 0; j < r; j++) pm_builder_append_int(pm_builder_child(l, 0), j, &err);
    pm_builder_append_valid(l, &err);
    pm_builder *m = pm_builder_child(b, 3), *e = pm_builder_child(m, 0);
    pm_builder_append_str(pm_builder_child(e, 0), "k", &err);
    pm_builder_append_int(pm_builder_child(e, 1), r, &err);
    pm_builder_append_valid(e, &err);
    pm_builder_append_valid(m, &err);
    pm_builder *f = pm_builder_child(b, 4);
    pm_builder_append_int(pm_builder_child(f, 0), r, &err);
    pm_builder_append_null(pm_builder_child(f, 0), &err);
    pm_builder_append_valid(f, &err);
    pm_builder_append_decimal_i64(pm_builder_child(b, 5), r * 1111, &err);
    pm_builder *st = pm_builder_child(b, 6);
    pm_builder_append_bool(pm_builder_child(st, 0), r & 1, &err);
    pm_builder_append_valid(st, &err);
    pm_builder_append_valid(b, &err);
  }
  CHECK_OK(pm_builder_finish(b, a, &err), &err);
  pm_builder_free(b);
}

/* Expects validation to fail with a message containing `needle`. */
#define EXPECT_BAD(s, a, needle)                                                               \
  do {                                                                                         \
    int rc_ = pm_arrow_validate((s), (a), &err);                                               \
    CHECK_MSG(rc_ != 0 && strstr(err.message, needle) != NULL, "rc=%d msg=%s want %s", rc_,    \
              rc_ ? err.message : "(ok)", needle);                                             \
  } while (0)

static void test_valid_and_sliced(void) {
  struct ArrowSchema s;
  struct ArrowArray a;
  build(&s, &a);
  CHECK_OK(pm_arrow_validate(&s, &a, &err), &err);
  CHECK_OK(pm_arrow_validate_ex(&s, &a, PM_VALIDATE_UTF8, &err), &err);
  for (int64_t off = 0; off <= 5; off++) {
    struct ArrowArray v = a;
    v.offset = off;
    v.length = 5 - off;
    v.null_count = -1;
    CHECK_OK(pm_arrow_validate(&s, &v, &err), &err);
  }
  /* A column sliced on its own. */
  struct ArrowArray *col = a.children[2];
  struct ArrowArray saved = *col;
  col->offset = 2;
  col->length = 3;
  col->null_count = -1;
  a.length = 3;
  CHECK_OK(pm_arrow_validate(&s, &a, &err), &err);
  col->length = 2; /* shorter than the batch */
  EXPECT_BAD(&s, &a, "root.l: child has 2 values, parent needs 3");
  *col = saved;
  pm_array_release(&a);
  pm_schema_release(&s);
}

static void test_corruptions(void) {
  struct ArrowSchema s;
  struct ArrowArray a;
  build(&s, &a);

  /* Bad format strings. */
  struct ArrowSchema *fs = s.children[0];
  const char *saved_fmt = fs->format;
  fs->format = "q";
  EXPECT_BAD(&s, &a, "root.i: malformed format string \"q\"");
  fs->format = "d:40,2";
  EXPECT_BAD(&s, &a, "precision out of range");
  fs->format = "d:5,7";
  EXPECT_BAD(&s, &a, "scale greater than precision");
  fs->format = "w:x";
  EXPECT_BAD(&s, &a, "malformed");
  fs->format = "tsq:";
  EXPECT_BAD(&s, &a, "format string");
  fs->format = saved_fmt;

  /* Buffer / child counts. */
  a.children[0]->n_buffers = 3;
  EXPECT_BAD(&s, &a, "root.i: has 3 buffers, type needs 2");
  a.children[0]->n_buffers = 2;
  a.n_children = 6;
  EXPECT_BAD(&s, &a, "root: has 6 children, type needs 7");
  a.n_children = 7;

  /* Lengths / offsets of the array struct. */
  a.length = -1;
  EXPECT_BAD(&s, &a, "negative length");
  a.length = 5;
  a.children[1]->offset = -2;
  EXPECT_BAD(&s, &a, "root.s: negative offset");
  a.children[1]->offset = 0;
  a.children[1]->length = 4;
  EXPECT_BAD(&s, &a, "root.s: child has 4 values, parent needs 5");
  a.children[1]->length = 5;

  /* null_count vs bitmap. */
  CHECK_EQ_INT(a.null_count, 1);
  a.null_count = 2;
  EXPECT_BAD(&s, &a, "root: null_count 2 but validity bitmap has 1 nulls");
  a.null_count = 1;
  struct ArrowArray *ci = a.children[0];
  const void *vb = ci->buffers[0];
  ci->buffers[0] = NULL;
  EXPECT_BAD(&s, &a, "root.i: null_count 1 but no validity bitmap");
  ci->buffers[0] = vb;
  ci->null_count = 9;
  EXPECT_BAD(&s, &a, "root.i: null_count 9 outside");
  ci->null_count = 1;

  /* Offsets of strings and lists. */
  int32_t *so = (int32_t *)a.children[1]->buffers[1];
  int32_t keep = so[3];
  so[3] = so[2] - 1;
  EXPECT_BAD(&s, &a, "root.s: offsets decrease at index 2");
  so[3] = keep;
  int32_t *lo = (int32_t *)a.children[2]->buffers[1];
  keep = lo[5];
  lo[5] = 1000;
  EXPECT_BAD(&s, &a, "root.l.item: child has 8 values, parent needs 1000");
  lo[5] = keep;
  keep = lo[0];
  lo[0] = -1;
  EXPECT_BAD(&s, &a, "root.l: negative first offset");
  lo[0] = keep;

  /* Map: null key. */
  struct ArrowArray *keys = a.children[3]->children[0]->children[0];
  CHECK(keys->buffers[0] == NULL);
  uint8_t *kv = pm_aligned_alloc(64);
  memset(kv, 0xff, 64);
  pm_bit_clear(kv, 1);
  pm_array_set_buffer(keys, 0, kv);
  keys->null_count = 1;
  EXPECT_BAD(&s, &a, "root.m: map has a null key");
  pm_bit_set(kv, 1);
  keys->null_count = 0;
  CHECK_OK(pm_arrow_validate(&s, &a, &err), &err);

  /* Fixed-size list child too short. */
  a.children[4]->children[0]->length = 9;
  EXPECT_BAD(&s, &a, "root.f.item: child has 9 values, parent needs 10");
  a.children[4]->children[0]->length = 10;

  /* Decimal beyond precision 4: 10000 (scale 1 = 1000.0). */
  uint8_t *dv = (uint8_t *)a.children[5]->buffers[1];
  int64_t big = 10000;
  int64_t old;
  memcpy(&old, dv + 16, 8);
  memcpy(dv + 16, &big, 8);
  EXPECT_BAD(&s, &a, "root.d: decimal at row 1 has more than 4 digits");
  big = -9999;
  memcpy(dv + 16, &big, 8);
  memset(dv + 24, 0xff, 8);
  CHECK_OK(pm_arrow_validate(&s, &a, &err), &err);
  memcpy(dv + 16, &old, 8);
  memset(dv + 24, 0, 8);

  /* Nested struct released child. */
  struct ArrowArray *sx = a.children[6]->children[0];
  void (*rel)(struct ArrowArray *) = sx->release;
  sx->release = NULL;
  EXPECT_BAD(&s, &a, "root.st.x: child array is NULL or released");
  sx->release = rel;

  /* UTF-8 checked only on request. */
  uint8_t *sd = (uint8_t *)a.children[1]->buffers[2];
  int32_t s3 = ((int32_t *)a.children[1]->buffers[1])[3];
  uint8_t saved_byte = sd[s3 + 1];
  sd[s3 + 1] = 0xC3;
  CHECK_OK(pm_arrow_validate(&s, &a, &err), &err);
  int rc = pm_arrow_validate_ex(&s, &a, PM_VALIDATE_UTF8, &err);
  CHECK_MSG(rc != 0 && strstr(err.message, "root.s: invalid UTF-8 in row 3 at byte 1"), "%s", err.message);
  sd[s3 + 1] = saved_byte;

  /* Array with a dictionary the schema does not have. */
  CHECK_OK(pm_arrow_validate(&s, &a, &err), &err);
  pm_array_release(&a);
  pm_schema_release(&s);
}

static void test_dictionary(void) {
  struct ArrowSchema s;
  pm_schema_init(&s, "+s", "b", 0, 1, &err);
  pm_schema_init(s.children[0], "c", "d", ARROW_FLAG_NULLABLE, 0, &err);
  pm_schema_init_dictionary(s.children[0], &err);
  pm_schema_init(s.children[0]->dictionary, "u", NULL, 0, 0, &err);
  struct ArrowArray a;
  pm_array_init(&a, 3, 1, 1, &err);
  struct ArrowArray *c = a.children[0];
  pm_array_init(c, 3, 2, 0, &err);
  int8_t *idx = pm_aligned_alloc(3);
  idx[0] = 1;
  idx[1] = 0;
  idx[2] = 1;
  pm_array_set_buffer(c, 1, idx);
  pm_array_alloc_dictionary(c, &err);
  pm_builder *b;
  pm_builder_new_from_schema(s.children[0]->dictionary, &b, &err);
  pm_builder_append_str(b, "zero", &err);
  pm_builder_append_str(b, "one", &err);
  pm_builder_finish(b, c->dictionary, &err);
  CHECK_OK(pm_arrow_validate(&s, &a, &err), &err);
  /* Printing decodes the dictionary. */
  pm_buf out;
  pm_buf_init(&out);
  CHECK_OK(pm_print_batch_to_buf(&s, &a, NULL, &out, &err), &err);
  pm_buf_push_u8(&out, 0);
  CHECK_EQ_STR((char *)out.data, "{\"d\":\"one\"}\n{\"d\":\"zero\"}\n{\"d\":\"one\"}\n");
  pm_buf_free(&out);
  /* The builder decodes a dictionary-encoded source too. */
  pm_type t;
  pm_type_from_schema(s.children[0], &t, &err);
  pm_builder_append_range(b, &t, c, 0, 3, &err);
  struct ArrowArray dec;
  pm_builder_finish(b, &dec, &err);
  CHECK_EQ_STR(tu_json(t.dict, &dec), "[\"one\",\"zero\",\"one\"]");
  pm_array_release(&dec);
  pm_type_free(&t);
  pm_builder_free(b);
  idx[2] = 2;
  EXPECT_BAD(&s, &a, "b.d: dictionary index 2 at row 2 outside [0, 2)");
  idx[2] = -1;
  EXPECT_BAD(&s, &a, "dictionary index -1");
  pm_array_release(&a);
  pm_schema_release(&s);
}

static void test_nullability_flag(void) {
  struct ArrowSchema s;
  struct ArrowArray a;
  build(&s, &a);
  CHECK_OK(pm_arrow_validate_ex(&s, &a, PM_VALIDATE_NULLABILITY, &err), &err);
  s.children[6]->children[0]->flags = 0; /* st.x NOT NULL; row 2 of st is null, so st.x has a null */
  CHECK_OK(pm_arrow_validate(&s, &a, &err), &err);
  int rc = pm_arrow_validate_ex(&s, &a, PM_VALIDATE_NULLABILITY, &err);
  CHECK_MSG(rc != 0 && strstr(err.message, "root.st.x: 1 nulls in a non-nullable field"), "%s", err.message);
  pm_array_release(&a);
  pm_schema_release(&s);
}

static void test_deep_nesting_rejected(void) {
  /* 70 nested lists. */
  char spec[1024] = "";
  size_t n = 0;
  for (int i = 0; i < 70; i++) n += (size_t)snprintf(spec + n, sizeof spec - n, "x:+l{");
  n += (size_t)snprintf(spec + n, sizeof spec - n, "x:i");
  for (int i = 0; i < 70; i++) n += (size_t)snprintf(spec + n, sizeof spec - n, "}");
  struct ArrowSchema s;
  tu_schema(spec, &s);
  pm_type t;
  int rc = pm_type_from_schema(&s, &t, &err);
  CHECK(rc != 0 && strstr(err.message, "nesting deeper"));
  pm_schema_release(&s);
}

int main(void) {
  RUN_TEST(test_valid_and_sliced);
  RUN_TEST(test_corruptions);
  RUN_TEST(test_dictionary);
  RUN_TEST(test_nullability_flag);
  RUN_TEST(test_deep_nesting_rejected);
  TEST_MAIN_END();
}
