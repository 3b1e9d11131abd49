/* Parquet writer: the less common Arrow inputs (time64 ns, date64,
 * decimal256, unsigned ints, large binary, large list, map with list values). */
#include "support/test_write_util.h"

static const char *const more_expected =
    "[1,1,\"123.45\",65535,18446744073709551615,\"0x0001\",[1,-1],[[1,[\"a\",null]],[2,null]]]\n"
    "[86399999999999,-1,\"-0.01\",0,1,\"0x\",[],[]]\n";

static void test_more_types(void) {
  pm_error err;
  struct ArrowSchema s;
  struct ArrowArray a;
  tw_schema(&s, "+s", NULL, 0, 8);
  if (pm_array_init(&a, 2, 1, 8, &err)) abort();
  tw_schema(s.children[0], "ttn", "time_ns", 1, 0);
  int64_t tn[2] = {1, 86399999999999LL};
  tw_prim(a.children[0], 2, tn, 8, NULL);
  tw_schema(s.children[1], "tdm", "date64", 1, 0);
  int64_t d64[2] = {86400000, -1};
  tw_prim(a.children[1], 2, d64, 8, NULL);
  tw_schema(s.children[2], "d:20,2,256", "dec20", 1, 0);
  int64_t dec[8] = {12345, 0, 0, 0, -1, -1, -1, -1};
  tw_prim(a.children[2], 2, dec, 32, NULL);
  tw_schema(s.children[3], "S", "u16", 1, 0);
  uint16_t u16[2] = {65535, 0};
  tw_prim(a.children[3], 2, u16, 2, NULL);
  tw_schema(s.children[4], "L", "u64", 1, 0);
  uint64_t u64[2] = {18446744073709551615ULL, 1};
  tw_prim(a.children[4], 2, u64, 8, NULL);
  tw_schema(s.children[5], "Z", "lbin", 1, 0);
  if (pm_array_init(a.children[5], 2, 3, 0, &err)) abort();
  int64_t *lo = pm_aligned_alloc(3 * 8);
  lo[0] = 0;
  lo[1] = 2;
  lo[2] = 2;
  uint8_t *ld = pm_aligned_alloc(2);
  ld[0] = 0;
  ld[1] = 1;
  pm_array_set_buffer(a.children[5], 1, lo);
  pm_array_set_buffer(a.children[5], 2, ld);
  tw_schema(s.children[6], "+L", "llist", 1, 1);
  tw_schema(s.children[6]->children[0], "c", "item", 1, 0);
  if (pm_array_init(a.children[6], 2, 2, 1, &err)) abort();
  int64_t *llo = pm_aligned_alloc(3 * 8);
  llo[0] = 0;
  llo[1] = 2;
  llo[2] = 2;
  pm_array_set_buffer(a.children[6], 1, llo);
  int8_t i8[2] = {1, -1};
  tw_prim(a.children[6]->children[0], 2, i8, 1, NULL);
  /* map<int32, list<utf8>> */
  tw_schema(s.children[7], "+m", "m", 1, 1);
  struct ArrowSchema *es = tw_schema(s.children[7]->children[0], "+s", "entries", 0, 2);
  tw_schema(es->children[0], "i", "key", 0, 0);
  tw_schema(es->children[1], "+l", "value", 1, 1);
  tw_schema(es->children[1]->children[0], "u", "item", 1, 0);
  int32_t moff[3] = {0, 2, 2};
  tw_list(a.children[7], 2, moff, NULL);
  struct ArrowArray *ent = a.children[7]->children[0];
  tw_struct(ent, 2, 2, NULL);
  int32_t keys[2] = {1, 2};
  tw_prim(ent->children[0], 2, keys, 4, NULL);
  int32_t voff[3] = {0, 2, 2};
  tw_list(ent->children[1], 2, voff, "10");
  const char *strs[2] = {"a", NULL};
  tw_str(ent->children[1]->children[0], 2, strs, NULL);

  const char *p = tw_path("more.parquet");
  pm_pq_writer *w = NULL;
  CHECK_OK(pm_pq_writer_open(p, &s, NULL, &w, &err), &err);
  if (w) {
    CHECK_OK(pm_pq_writer_write(w, &a, &err), &err);
    CHECK_OK(pm_pq_writer_close(w, &err), &err);
    const pm_pq_write_result *r = pm_pq_writer_result(w);
    CHECK(r && r->num_columns == 9);
    if (r && r->num_columns == 9) {
      /* unsigned order: 0 < 65535, 1 < 2^64-1 */
      CHECK(r->columns[3].min_i64 == 0 && r->columns[3].max_i64 == 65535);
      CHECK(r->columns[4].has_min_max && (uint64_t)r->columns[4].max_i64 == 18446744073709551615ULL);
      CHECK_EQ_INT(r->columns[2].max_len, 9); /* FIXED_LEN_BYTE_ARRAY(9) for precision 20 (DuckDB misreads > 16 bytes) */
      CHECK(r->columns[2].min[0] == 0xff && r->columns[2].max[0] == 0x00); /* signed order: -1 < 12345 */
    }
    pm_pq_writer_free(w);
  }
  pm_schema_release(&s);
  pm_array_release(&a);
  CHECK(tw_check(p));
  CHECK(tw_canon_equals(p, more_expected));
}

int main(void) {
  RUN_TEST(test_more_types);
  tw_cleanup();
  TEST_MAIN_END();
}
