/* Parquet writer: lists, maps, structs, fixed-size lists, nested with nulls at
 * every level (Dremel levels), checked by the oracle readers. */
#include "support/test_write_nested_data.h"

#define N NESTED_N

static const char *const nested_schema_expected[] = {
    /* name, repetition, converted type */
    "paimon_schema", NULL, NULL,
    "lst", "OPTIONAL", "LIST",
    "list", "REPEATED", NULL,
    "element", "OPTIONAL", NULL,
    "mp", "OPTIONAL", "MAP",
    "key_value", "REPEATED", "MAP_KEY_VALUE",
    "key", "REQUIRED", "UTF8",
    "value", "OPTIONAL", NULL,
    "st", "OPTIONAL", NULL,
    "a", "OPTIONAL", NULL,
    "b", "OPTIONAL", "LIST",
    "list", "REPEATED", NULL,
    "element", "OPTIONAL", NULL,
    "c", "OPTIONAL", "UTF8",
    "ll", "REQUIRED", "LIST",
    "list", "REPEATED", NULL,
    "element", "OPTIONAL", "LIST",
    "list", "REPEATED", NULL,
    "element", "OPTIONAL", NULL,
    "fl", "OPTIONAL", "LIST",
    "list", "REPEATED", NULL,
    "element", "OPTIONAL", "INT_16",
    "rq", "REQUIRED", "LIST",
    "list", "REPEATED", NULL,
    "element", "REQUIRED", NULL,
};

static void check_schema(const char *p) {
  char *sc = tw_dump(p, "--schema");
  if (!sc) {
    CHECK(0);
    return;
  }
  size_t n = sizeof nested_schema_expected / sizeof nested_schema_expected[0] / 3;
  const char *line = sc;
  for (size_t i = 0; i < n && line && *line; i++) {
    const char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    char *l = malloc(len + 1);
    memcpy(l, line, len);
    l[len] = 0;
    char want[160];
    snprintf(want, sizeof want, "\"name\":\"%s\"", nested_schema_expected[3 * i]);
    CHECK_MSG(strstr(l, want) != NULL, "schema row %zu: %s lacks %s", i, l, want);
    if (nested_schema_expected[3 * i + 1]) {
      snprintf(want, sizeof want, "\"repetition_type\":\"%s\"", nested_schema_expected[3 * i + 1]);
      CHECK_MSG(strstr(l, want) != NULL, "schema row %zu: %s lacks %s", i, l, want);
    }
    snprintf(want, sizeof want, "\"converted_type\":%s%s%s", nested_schema_expected[3 * i + 2] ? "\"" : "",
             nested_schema_expected[3 * i + 2] ? nested_schema_expected[3 * i + 2] : "null",
             nested_schema_expected[3 * i + 2] ? "\"" : "");
    CHECK_MSG(strstr(l, want) != NULL, "schema row %zu: %s lacks %s", i, l, want);
    free(l);
    line = end ? end + 1 : NULL;
  }
  /* field ids: list group 1, element 100, repeated group none */
  CHECK(strstr(sc, "\"name\":\"lst\",") && strstr(strstr(sc, "\"name\":\"lst\","), "\"field_id\":1,"));
  const char *el = strstr(sc, "\"name\":\"element\"");
  const char *id100 = el ? strstr(el, "\"field_id\":100,") : NULL;
  CHECK(id100 && id100 < strchr(el, '\n'));
  free(sc);
}

static void write_nested(const char *p, const pm_pq_write_options *o) {
  struct ArrowSchema s;
  struct ArrowArray a;
  build_nested(&s, &a);
  pm_error err;
  pm_pq_writer *w = NULL;
  CHECK_OK(pm_pq_writer_open(p, &s, o, &w, &err), &err);
  if (w) {
    /* rows one at a time: exercises batch offsets on nested arrays */
    for (int r = 0; r < N; r++) {
      struct ArrowArray one = a;
      one.offset = r;
      one.length = 1;
      CHECK_OK(pm_pq_writer_write(w, &one, &err), &err);
    }
    CHECK_OK(pm_pq_writer_close(w, &err), &err);
    const pm_pq_write_result *res = pm_pq_writer_result(w);
    CHECK(res && res->num_rows == N && res->num_columns == 8);
    if (res && res->num_columns == 8) {
      CHECK_EQ_STR(res->columns[0].path, "lst.list.element");
      CHECK(res->columns[0].nested && res->columns[0].top_level_field == 0);
      /* lst leaf levels: [1,null,3] + null + [] + [4] = 6 values, nulls: null elem, null list, empty list */
      CHECK_EQ_INT(res->columns[0].num_values, 6);
      CHECK_EQ_INT(res->columns[0].null_count, 3);
      CHECK(res->columns[0].has_min_max && res->columns[0].min_i64 == 1 && res->columns[0].max_i64 == 4);
      CHECK_EQ_STR(res->columns[5].path, "ll.list.element.list.element");
    }
    pm_pq_writer_free(w);
  }
  pm_schema_release(&s);
  pm_array_release(&a);
}

static void test_nested_v1(void) {
  const char *p = tw_path("nested.parquet");
  write_nested(p, NULL);
  CHECK(tw_check(p));
  CHECK(tw_canon_equals(p, nested_expected));
  check_schema(p);
}

static void test_nested_v2_snappy(void) {
  pm_pq_write_options o;
  pm_pq_write_options_default(&o);
  o.data_page_v2 = 1;
  o.codec = PM_CODEC_SNAPPY;
  const char *p = tw_path("nested_v2.parquet");
  write_nested(p, &o);
  CHECK(tw_check(p));
  CHECK(tw_canon_equals(p, nested_expected));
}

int main(void) {
  RUN_TEST(test_nested_v1);
  RUN_TEST(test_nested_v2_snappy);
  tw_cleanup();
  TEST_MAIN_END();
}
