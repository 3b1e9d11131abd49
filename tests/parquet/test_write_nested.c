/* Parquet writer: lists, maps, structs, fixed-size lists, nested with nulls at
 * every level (Dremel levels), checked by the oracle readers. */
#include "test_write_util.h"

#define N 4

static const char *const nested_expected =
    "[[1,null,3],[[\"a\",1],[\"b\",null]],{\"a\":1,\"b\":[{\"c\":\"x\"},null]},[[1,2],[]],[1,2],[7]]\n"
    "[null,null,null,[],null,[8,9]]\n"
    "[[],[],{\"a\":null,\"b\":null},[null,[3]],[3,null],[]]\n"
    "[[4],[[\"c\",3]],{\"a\":2,\"b\":[]},[[null]],[5,6],[10]]\n";

static void build_nested(struct ArrowSchema *s, struct ArrowArray *a) {
  enum { NC = 6 };
  pm_error err;
  tw_schema(s, "+s", NULL, 0, NC);
  if (pm_array_init(a, N, 1, NC, &err)) abort();
  /* 0: lst list<int32> */
  tw_schema(s->children[0], "+l", "lst", 1, 1);
  tw_field_id(s->children[0], 1);
  tw_schema(s->children[0]->children[0], "i", "item", 1, 0);
  tw_field_id(s->children[0]->children[0], 100);
  int32_t lst_off[N + 1] = {0, 3, 3, 3, 4};
  tw_list(a->children[0], N, lst_off, "1011");
  int32_t lst_v[4] = {1, 0, 3, 4};
  tw_prim(a->children[0]->children[0], 4, lst_v, 4, "1011");
  /* 1: mp map<utf8, int64> */
  tw_schema(s->children[1], "+m", "mp", 1, 1);
  tw_schema(s->children[1]->children[0], "+s", "entries", 0, 2);
  tw_schema(s->children[1]->children[0]->children[0], "u", "key", 0, 0);
  tw_schema(s->children[1]->children[0]->children[1], "l", "value", 1, 0);
  int32_t mp_off[N + 1] = {0, 2, 2, 2, 3};
  tw_list(a->children[1], N, mp_off, "1011");
  struct ArrowArray *ent = a->children[1]->children[0];
  tw_struct(ent, 3, 2, NULL);
  const char *keys[3] = {"a", "b", "c"};
  tw_str(ent->children[0], 3, keys, NULL);
  int64_t mv[3] = {1, 0, 3};
  tw_prim(ent->children[1], 3, mv, 8, "101");
  /* 2: st struct<a int32, b list<struct<c utf8>>> */
  tw_schema(s->children[2], "+s", "st", 1, 2);
  tw_schema(s->children[2]->children[0], "i", "a", 1, 0);
  tw_schema(s->children[2]->children[1], "+l", "b", 1, 1);
  tw_schema(s->children[2]->children[1]->children[0], "+s", "item", 1, 1);
  tw_schema(s->children[2]->children[1]->children[0]->children[0], "u", "c", 1, 0);
  tw_struct(a->children[2], N, 2, "1011");
  int32_t sa[N] = {1, 0, 0, 2};
  tw_prim(a->children[2]->children[0], N, sa, 4, "1001");
  int32_t b_off[N + 1] = {0, 2, 2, 2, 2};
  tw_list(a->children[2]->children[1], N, b_off, "1001");
  struct ArrowArray *bs = a->children[2]->children[1]->children[0];
  tw_struct(bs, 2, 1, "10");
  const char *cs[2] = {"x", NULL};
  tw_str(bs->children[0], 2, cs, NULL);
  /* 3: ll list<list<int32>>, outer required */
  tw_schema(s->children[3], "+l", "ll", 0, 1);
  tw_schema(s->children[3]->children[0], "+l", "item", 1, 1);
  tw_schema(s->children[3]->children[0]->children[0], "i", "item", 1, 0);
  int32_t ll_off[N + 1] = {0, 2, 2, 4, 5};
  tw_list(a->children[3], N, ll_off, NULL);
  int32_t in_off[6] = {0, 2, 2, 2, 3, 4};
  tw_list(a->children[3]->children[0], 5, in_off, "11011");
  int32_t in_v[4] = {1, 2, 3, 0};
  tw_prim(a->children[3]->children[0]->children[0], 4, in_v, 4, "1110");
  /* 4: fl fixed_size_list<int16, 2> */
  tw_schema(s->children[4], "+w:2", "fl", 1, 1);
  tw_schema(s->children[4]->children[0], "s", "item", 1, 0);
  if (pm_array_init(a->children[4], N, 1, 1, &err)) abort();
  tw_validity(a->children[4], N, "1011");
  int16_t fv[8] = {1, 2, 0, 0, 3, 0, 5, 6};
  tw_prim(a->children[4]->children[0], 8, fv, 2, "11001011");
  /* 5: rq list<int32 not null> not null */
  tw_schema(s->children[5], "+l", "rq", 0, 1);
  tw_schema(s->children[5]->children[0], "i", "item", 0, 0);
  int32_t rq_off[N + 1] = {0, 1, 3, 3, 4};
  tw_list(a->children[5], N, rq_off, NULL);
  int32_t rq_v[4] = {7, 8, 9, 10};
  tw_prim(a->children[5]->children[0], 4, rq_v, 4, NULL);
}

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
