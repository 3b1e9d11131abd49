/* Random in-bounds corruptions of a valid nested batch: whenever pm_arrow_validate accepts the result, printing,
 * take, filter, concat and builder copies must run cleanly (checked under ASan/UBSan); whenever it rejects,
 * the message names a field path. Mutations never grow a buffer's reachable range beyond what exists, since
 * buffer sizes are not visible through the C Data Interface. */
#include "arrow/builder.h"
#include "arrow/compute.h"
#include "arrow/validate.h"
#include "support/arrow_test_util.h"
#include "harness.h"

static pm_error err;
static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static uint64_t next_rand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static const char *SPEC = "b:+s{i:i;s:u;l:+l{item:+s{k:l;v:u}};m:+m{entries:+s{key:u;value:d:9,2}};f:+w:3{item:s}}";

static void build(struct ArrowSchema *s, struct ArrowArray *a) {
  tu_schema(SPEC, s);
  pm_builder *b;
  pm_builder_new_from_schema(s, &b, &err);
  for (int r = 0; r < 40; r++) {
    if (r % 9 == 8) {
      pm_builder_append_null(b, &err);
      continue;
    }
    pm_builder_append_int(pm_builder_child(b, 0), r, &err);
    char str[16];
    snprintf(str, sizeof str, "str%d", r);
    pm_builder_append_str(pm_builder_child(b, 1), str, &err);
    pm_builder *l = pm_builder_child(b, 2), *st = pm_builder_child(l, 0);
    for (int j = 0; j < r % 4; j++) {
      pm_builder_append_int(pm_builder_child(st, 0), j, &err);
      pm_builder_append_str(pm_builder_child(st, 1), "vv", &err);
      pm_builder_append_valid(st, &err);
    }
    pm_builder_append_valid(l, &err);
    pm_builder *m = pm_builder_child(b, 3), *e = pm_builder_child(m, 0);
    for (int j = 0; j < r % 3; j++) {
      pm_builder_append_str(pm_builder_child(e, 0), j ? "k1" : "k0", &err);
      pm_builder_append_decimal_i64(pm_builder_child(e, 1), r * 100 + j, &err);
      pm_builder_append_valid(e, &err);
    }
    pm_builder_append_valid(m, &err);
    pm_builder *f = pm_builder_child(b, 4);
    for (int j = 0; j < 3; j++) pm_builder_append_int(pm_builder_child(f, 0), r + j, &err);
    pm_builder_append_valid(f, &err);
    pm_builder_append_valid(b, &err);
  }
  pm_builder_finish(b, a, &err);
  pm_builder_free(b);
}

/* Collects every array node (pre-order). */
static int collect(struct ArrowArray *a, struct ArrowArray **nodes, int n) {
  nodes[n++] = a;
  for (int64_t i = 0; i < a->n_children; i++) n = collect(a->children[i], nodes, n);
  return n;
}

static void mutate(struct ArrowArray *root) {
  struct ArrowArray *nodes[64];
  int n = collect(root, nodes, 0);
  struct ArrowArray *a = nodes[next_rand() % (uint64_t)n];
  switch (next_rand() % 5) {
    case 0: /* flip a validity bit (bitmap covers the original length) */
      if (a->n_buffers > 0 && a->buffers[0] && a->length > 0) {
        uint8_t *v = (uint8_t *)a->buffers[0];
        int64_t i = a->offset + (int64_t)(next_rand() % (uint64_t)a->length);
        v[i >> 3] ^= (uint8_t)(1u << (i & 7));
        if (next_rand() % 2) a->null_count = -1; /* else leave it inconsistent */
      }
      break;
    case 1: /* shrink */
      if (a->length > 0) a->length -= 1 + (int64_t)(next_rand() % (uint64_t)a->length);
      break;
    case 2: /* move the window forward */
      if (a->length > 0) {
        int64_t k = 1 + (int64_t)(next_rand() % (uint64_t)a->length);
        a->offset += k;
        a->length -= k;
      }
      break;
    case 3: /* perturb an offset that is not the last one of a var-width / list array */
      if ((a->n_buffers == 3 || (a->n_buffers == 2 && a->n_children == 1)) && a->length > 1) {
        int32_t *off = (int32_t *)a->buffers[1];
        int64_t i = a->offset + (int64_t)(next_rand() % (uint64_t)a->length);
        off[i] += (int32_t)(next_rand() % 7) - 3;
      }
      break;
    case 4: /* a null_count lie */
      a->null_count = (int64_t)(next_rand() % 50) - 1;
      break;
  }
}

static void exercise(const struct ArrowSchema *s, const struct ArrowArray *a) {
  pm_type t;
  if (pm_type_from_schema(s, &t, &err)) return;
  pm_buf out;
  pm_buf_init(&out);
  for (int f = 0; f < 3; f++) {
    pm_print_options o = {.format = (pm_print_format)f};
    out.len = 0;
    CHECK_OK(pm_print_batch_to_buf(s, a, &o, &out, &err), &err);
  }
  pm_buf_free(&out);
  int64_t idx[16];
  for (int i = 0; i < 16; i++) idx[i] = a->length ? (int64_t)(next_rand() % (uint64_t)a->length) : -1;
  struct ArrowArray r;
  CHECK_OK(pm_take(&t, a, idx, a->length ? 16 : 0, &r, &err), &err);
  pm_array_release(&r);
  uint8_t sel[8] = {0xA5, 0x0F, 0xF0, 0x3C, 0xFF, 0x00, 0x81, 0x7E};
  if (a->length <= 64) {
    CHECK_OK(pm_filter(&t, a, sel, 0, &r, &err), &err);
    pm_array_release(&r);
  }
  const struct ArrowArray *parts[2] = {a, a};
  CHECK_OK(pm_concat(&t, parts, 2, &r, &err), &err);
  CHECK_OK(pm_arrow_validate(s, &r, &err), &err); /* kernels produce valid output from valid input */
  pm_array_release(&r);
  pm_type_free(&t);
}

static void test_random_mutations(void) {
  int accepted = 0, rejected = 0;
  for (int iter = 0; iter < 2000; iter++) {
    struct ArrowSchema s;
    struct ArrowArray a;
    build(&s, &a);
    /* Remember original windows: release needs nothing else, buffers are untouched in size. */
    int muts = 1 + (int)(next_rand() % 3);
    for (int k = 0; k < muts; k++) mutate(&a);
    if (pm_arrow_validate(&s, &a, &err) == 0) {
      accepted++;
      exercise(&s, &a);
    } else {
      rejected++;
      CHECK_MSG(strncmp(err.message, "b", 1) == 0, "%s", err.message);
    }
    pm_array_release(&a);
    pm_schema_release(&s);
  }
  fprintf(stderr, "mutations: %d accepted, %d rejected\n", accepted, rejected);
  CHECK(accepted > 50 && rejected > 50);
}

int main(void) {
  RUN_TEST(test_random_mutations);
  TEST_MAIN_END();
}
