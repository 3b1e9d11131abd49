/* JSONL printer on hand-assembled arrays (independent of the builders). */
#include <math.h>

#include "arrow/arrow.h"
#include "print/print.h"
#include "harness.h"
#include "util/buf.h"

static void *copy_buf(const void *src, size_t n) {
  void *p = pm_aligned_alloc(n);
  memcpy(p, src, n);
  return p;
}

/* batch: {i: int32, s: utf8, ts: timestamp[ms], l: list<int64>, st: struct<a: bool, d: double>} with 3 rows. */
static void make_batch(struct ArrowSchema *s, struct ArrowArray *a) {
  pm_error err;
  pm_schema_init(s, "+s", NULL, 0, 5, &err);
  pm_schema_init(s->children[0], "i", "i", ARROW_FLAG_NULLABLE, 0, &err);
  pm_schema_init(s->children[1], "u", "s", ARROW_FLAG_NULLABLE, 0, &err);
  pm_schema_init(s->children[2], "tsm:", "ts", ARROW_FLAG_NULLABLE, 0, &err);
  pm_schema_init(s->children[3], "+l", "l", ARROW_FLAG_NULLABLE, 1, &err);
  pm_schema_init(s->children[3]->children[0], "l", "item", ARROW_FLAG_NULLABLE, 0, &err);
  pm_schema_init(s->children[4], "+s", "st", ARROW_FLAG_NULLABLE, 2, &err);
  pm_schema_init(s->children[4]->children[0], "b", "a", ARROW_FLAG_NULLABLE, 0, &err);
  pm_schema_init(s->children[4]->children[1], "g", "d", ARROW_FLAG_NULLABLE, 0, &err);

  pm_array_init(a, 3, 1, 5, &err);
  struct ArrowArray *c;
  c = a->children[0];
  pm_array_init(c, 3, 2, 0, &err);
  uint8_t v0 = 0x5; /* row 1 null */
  int32_t i32[3] = {7, 0, -2147483647 - 1};
  pm_array_set_buffer(c, 0, copy_buf(&v0, 1));
  pm_array_set_buffer(c, 1, copy_buf(i32, sizeof i32));
  c->null_count = 1;

  c = a->children[1];
  pm_array_init(c, 3, 3, 0, &err);
  int32_t off[4] = {0, 2, 2, 8};
  pm_array_set_buffer(c, 1, copy_buf(off, sizeof off));
  pm_array_set_buffer(c, 2, copy_buf("h\"\n\xff" "\xc3\xa9xy", 8));

  c = a->children[2];
  pm_array_init(c, 3, 2, 0, &err);
  int64_t ts[3] = {1, -1, 1700000000123LL};
  pm_array_set_buffer(c, 1, copy_buf(ts, sizeof ts));

  c = a->children[3];
  pm_array_init(c, 3, 2, 1, &err);
  int32_t loff[4] = {0, 2, 2, 3};
  uint8_t lv = 0x5;
  pm_array_set_buffer(c, 0, copy_buf(&lv, 1));
  pm_array_set_buffer(c, 1, copy_buf(loff, sizeof loff));
  c->null_count = 1;
  pm_array_init(c->children[0], 3, 2, 0, &err);
  int64_t items[3] = {1, -9007199254740993LL, 3};
  pm_array_set_buffer(c->children[0], 1, copy_buf(items, sizeof items));

  c = a->children[4];
  pm_array_init(c, 3, 1, 2, &err);
  pm_array_init(c->children[0], 3, 2, 0, &err);
  uint8_t bits = 0x1;
  pm_array_set_buffer(c->children[0], 1, copy_buf(&bits, 1));
  pm_array_init(c->children[1], 3, 2, 0, &err);
  double dv[3] = {0.1, NAN, -INFINITY};
  pm_array_set_buffer(c->children[1], 1, copy_buf(dv, sizeof dv));
}

static void test_jsonl(void) {
  struct ArrowSchema s;
  struct ArrowArray a;
  make_batch(&s, &a);
  pm_buf out;
  pm_buf_init(&out);
  pm_error err;
  CHECK_OK(pm_print_batch_to_buf(&s, &a, NULL, &out, &err), &err);
  pm_buf_push_u8(&out, 0);
  CHECK_EQ_STR((char *)out.data,
               "{\"i\":7,\"s\":\"h\\\"\",\"ts\":\"1970-01-01T00:00:00.001\",\"l\":[1,-9007199254740993],"
               "\"st\":{\"a\":true,\"d\":0.1}}\n"
               "{\"i\":null,\"s\":\"\",\"ts\":\"1969-12-31T23:59:59.999\",\"l\":null,"
               "\"st\":{\"a\":false,\"d\":\"NaN\"}}\n"
               "{\"i\":-2147483648,\"s\":\"\\n\\ufffd\xc3\xa9xy\",\"ts\":\"2023-11-14T22:13:20.123\",\"l\":[3],"
               "\"st\":{\"a\":false,\"d\":\"-Infinity\"}}\n");
  /* Sliced batch: rows 1..2 only. */
  a.offset = 1;
  a.length = 2;
  out.len = 0;
  int digits[3] = {-1, -1, 0};
  pm_print_options o = {.format = PM_PRINT_JSONL, .fraction_digits = digits, .n_fraction_digits = 3};
  CHECK_OK(pm_print_batch_to_buf(&s, &a, &o, &out, &err), &err);
  pm_buf_push_u8(&out, 0);
  CHECK_EQ_STR((char *)out.data,
               "{\"i\":null,\"s\":\"\",\"ts\":\"1969-12-31T23:59:59\",\"l\":null,"
               "\"st\":{\"a\":false,\"d\":\"NaN\"}}\n"
               "{\"i\":-2147483648,\"s\":\"\\n\\ufffd\xc3\xa9xy\",\"ts\":\"2023-11-14T22:13:20\",\"l\":[3],"
               "\"st\":{\"a\":false,\"d\":\"-Infinity\"}}\n");
  pm_buf_free(&out);
  pm_array_release(&a);
  pm_schema_release(&s);
}

int main(void) {
  RUN_TEST(test_jsonl);
  TEST_MAIN_END();
}
