/* Parquet writer: every flat Arrow type again, but as fields of a nullable
 * struct inside a nullable list (nulls at list, struct and leaf level), with
 * v2 pages and LZ4_RAW. Expected rows derive from the flat test's hand-computed
 * rows. */
#include "support/test_write_flat_data.h"

static const char *const field_names[] = {"i32", "i64", "str", "dbl", "bool", "i8", "i16", "f32", "dec5",
                                          "dec15", "dec23", "date", "time_ms", "time_us", "ts_s", "ts_ms",
                                          "ts_us", "ts_ns", "tz_s", "tz_ms", "tz_us", "tz_ns", "bin", "fsb",
                                          "lstr", "u8", "u32"};

/* Appends the flat row `row` (0-based) of flat_expected as a JSON object. */
static void append_object(pm_buf *out, int row) {
  const char *l = flat_expected;
  for (int i = 0; i < row; i++) l = strchr(l, '\n') + 1;
  const char *end = strchr(l, '\n');
  l++; /* '[' */
  end--; /* ']' */
  pm_buf_push_u8(out, '{');
  int k = 0;
  while (l < end) {
    const char *c = memchr(l, ',', (size_t)(end - l));
    if (!c) c = end;
    char key[40];
    int n = snprintf(key, sizeof key, "%s\"%s\":", k ? "," : "", field_names[k]);
    pm_buf_append(out, key, (size_t)n);
    pm_buf_append(out, l, (size_t)(c - l));
    l = c + 1;
    k++;
  }
  pm_buf_push_u8(out, '}');
}

static void test_list_of_struct_of_all_types(void) {
  struct ArrowSchema flat_s, s;
  struct ArrowArray flat_a, a;
  build_flat(&flat_s, &flat_a);
  pm_error err;
  tw_schema(&s, "+s", NULL, 0, 1);
  tw_schema(s.children[0], "+l", "lst", 1, 1);
  pm_schema_move(&flat_s, s.children[0]->children[0]);
  s.children[0]->children[0]->flags = ARROW_FLAG_NULLABLE;
  if (pm_array_init(&a, 4, 1, 1, &err)) abort();
  int32_t off[5] = {0, 2, 2, 4, 4};
  tw_list(a.children[0], 4, off, "1011");
  tw_validity(&flat_a, 4, "1101");
  pm_array_move(&flat_a, a.children[0]->children[0]);

  pm_pq_write_options o;
  pm_pq_write_options_default(&o);
  o.data_page_v2 = 1;
  o.codec = PM_CODEC_LZ4_RAW;
  const char *p = tw_path("list_struct.parquet");
  pm_pq_writer *w = NULL;
  CHECK_OK(pm_pq_writer_open(p, &s, &o, &w, &err), &err);
  if (w) {
    CHECK_OK(pm_pq_writer_write(w, &a, &err), &err);
    CHECK_OK(pm_pq_writer_close(w, &err), &err);
    pm_pq_writer_free(w);
  }
  pm_schema_release(&s);
  pm_array_release(&a);

  pm_buf want;
  pm_buf_init(&want);
  pm_buf_append(&want, "[[", 2);
  append_object(&want, 0);
  pm_buf_push_u8(&want, ',');
  append_object(&want, 1);
  pm_buf_append(&want, "]]\n[null]\n[[null,", 17);
  append_object(&want, 3);
  pm_buf_append(&want, "]]\n[[]]\n", 8);
  pm_buf_push_u8(&want, 0);
  CHECK(tw_check(p));
  CHECK(tw_canon_equals(p, (const char *)want.data));
  pm_buf_free(&want);
}

int main(void) {
  RUN_TEST(test_list_of_struct_of_all_types);
  tw_cleanup();
  TEST_MAIN_END();
}
