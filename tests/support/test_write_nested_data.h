/* Nested test data (lists, maps, structs, fixed-size lists with nulls at
 * every level) and its canonical rows as DuckDB prints them, shared by the
 * Parquet writer tests and the ORC-through-DuckDB test. */
#ifndef PM_TEST_WRITE_NESTED_DATA_H
#define PM_TEST_WRITE_NESTED_DATA_H

#include "support/test_write_util.h"

#define NESTED_N 4

static const char *const nested_expected =
    "[[1,null,3],[[\"a\",1],[\"b\",null]],{\"a\":1,\"b\":[{\"c\":\"x\"},null]},[[1,2],[]],[1,2],[7]]\n"
    "[null,null,null,[],null,[8,9]]\n"
    "[[],[],{\"a\":null,\"b\":null},[null,[3]],[3,null],[]]\n"
    "[[4],[[\"c\",3]],{\"a\":2,\"b\":[]},[[null]],[5,6],[10]]\n";

static inline void build_nested(struct ArrowSchema *s, struct ArrowArray *a) {
  enum { NC = 6 };
  pm_error err;
  tw_schema(s, "+s", NULL, 0, NC);
  if (pm_array_init(a, NESTED_N, 1, NC, &err)) abort();
  /* 0: lst list<int32> */
  tw_schema(s->children[0], "+l", "lst", 1, 1);
  tw_field_id(s->children[0], 1);
  tw_schema(s->children[0]->children[0], "i", "item", 1, 0);
  tw_field_id(s->children[0]->children[0], 100);
  int32_t lst_off[NESTED_N + 1] = {0, 3, 3, 3, 4};
  tw_list(a->children[0], NESTED_N, lst_off, "1011");
  int32_t lst_v[4] = {1, 0, 3, 4};
  tw_prim(a->children[0]->children[0], 4, lst_v, 4, "1011");
  /* 1: mp map<utf8, int64> */
  tw_schema(s->children[1], "+m", "mp", 1, 1);
  tw_schema(s->children[1]->children[0], "+s", "entries", 0, 2);
  tw_schema(s->children[1]->children[0]->children[0], "u", "key", 0, 0);
  tw_schema(s->children[1]->children[0]->children[1], "l", "value", 1, 0);
  int32_t mp_off[NESTED_N + 1] = {0, 2, 2, 2, 3};
  tw_list(a->children[1], NESTED_N, mp_off, "1011");
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
  tw_struct(a->children[2], NESTED_N, 2, "1011");
  int32_t sa[NESTED_N] = {1, 0, 0, 2};
  tw_prim(a->children[2]->children[0], NESTED_N, sa, 4, "1001");
  int32_t b_off[NESTED_N + 1] = {0, 2, 2, 2, 2};
  tw_list(a->children[2]->children[1], NESTED_N, b_off, "1001");
  struct ArrowArray *bs = a->children[2]->children[1]->children[0];
  tw_struct(bs, 2, 1, "10");
  const char *cs[2] = {"x", NULL};
  tw_str(bs->children[0], 2, cs, NULL);
  /* 3: ll list<list<int32>>, outer required */
  tw_schema(s->children[3], "+l", "ll", 0, 1);
  tw_schema(s->children[3]->children[0], "+l", "item", 1, 1);
  tw_schema(s->children[3]->children[0]->children[0], "i", "item", 1, 0);
  int32_t ll_off[NESTED_N + 1] = {0, 2, 2, 4, 5};
  tw_list(a->children[3], NESTED_N, ll_off, NULL);
  int32_t in_off[6] = {0, 2, 2, 2, 3, 4};
  tw_list(a->children[3]->children[0], 5, in_off, "11011");
  int32_t in_v[4] = {1, 2, 3, 0};
  tw_prim(a->children[3]->children[0]->children[0], 4, in_v, 4, "1110");
  /* 4: fl fixed_size_list<int16, 2> */
  tw_schema(s->children[4], "+w:2", "fl", 1, 1);
  tw_schema(s->children[4]->children[0], "s", "item", 1, 0);
  if (pm_array_init(a->children[4], NESTED_N, 1, 1, &err)) abort();
  tw_validity(a->children[4], NESTED_N, "1011");
  int16_t fv[8] = {1, 2, 0, 0, 3, 0, 5, 6};
  tw_prim(a->children[4]->children[0], 8, fv, 2, "11001011");
  /* 5: rq list<int32 not null> not null */
  tw_schema(s->children[5], "+l", "rq", 0, 1);
  tw_schema(s->children[5]->children[0], "i", "item", 0, 0);
  int32_t rq_off[NESTED_N + 1] = {0, 1, 3, 3, 4};
  tw_list(a->children[5], NESTED_N, rq_off, NULL);
  int32_t rq_v[4] = {7, 8, 9, 10};
  tw_prim(a->children[5]->children[0], 4, rq_v, 4, NULL);
}

#endif
