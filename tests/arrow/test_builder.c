/* Column builders: every type, nulls, nested, append_from/append_range incl. sliced sources. */
#include <math.h>

#include "arrow/builder.h"
#include "support/arrow_test_util.h"
#include "harness.h"

static pm_error err;

/* Builds from spec via fill(), finishes, compares JSON text and returns nothing. */
#define BUILD_AND_CHECK(spec, fill, expected)                     \
  do {                                                            \
    pm_type t_;                                                   \
    pm_builder *b_;                                               \
    struct ArrowArray a_;                                         \
    tu_type(spec, &t_);                                           \
    CHECK_OK(pm_builder_new(&t_, &b_, &err), &err);               \
    fill(b_);                                                     \
    CHECK_OK(pm_builder_finish(b_, &a_, &err), &err);             \
    CHECK_EQ_STR(tu_json(&t_, &a_), expected);                    \
    pm_array_release(&a_);                                        \
    pm_builder_free(b_);                                          \
    pm_type_free(&t_);                                            \
  } while (0)

static void fill_bool(pm_builder *b) {
  for (int i = 0; i < 10; i++) {
    if (i == 3)
      pm_builder_append_null(b, &err);
    else
      pm_builder_append_bool(b, i % 2, &err);
  }
}
static void fill_i8(pm_builder *b) {
  pm_builder_append_int(b, -128, &err);
  pm_builder_append_int(b, 127, &err);
  pm_builder_append_null(b, &err);
  CHECK(pm_builder_append_int(b, 128, &err) == PAIMON_ERR_INVALID_ARGUMENT);
}
static void fill_u8(pm_builder *b) {
  pm_builder_append_int(b, 255, &err);
  CHECK(pm_builder_append_int(b, -1, &err) != 0);
}
static void fill_i16(pm_builder *b) {
  pm_builder_append_int(b, -32768, &err);
  pm_builder_append_int(b, 32767, &err);
}
static void fill_i32(pm_builder *b) {
  pm_builder_append_null(b, &err);
  pm_builder_append_int(b, INT32_MIN, &err);
  pm_builder_append_int(b, INT32_MAX, &err);
}
static void fill_i64(pm_builder *b) {
  pm_builder_append_int(b, INT64_MIN, &err);
  pm_builder_append_int(b, INT64_MAX, &err);
}
static void fill_u64(pm_builder *b) { pm_builder_append_uint(b, UINT64_MAX, &err); }
static void fill_f32(pm_builder *b) {
  pm_builder_append_double(b, 0.1, &err);
  pm_builder_append_double(b, 1.1, &err);
  pm_builder_append_double(b, -3.4028234663852886e38, &err);
  pm_builder_append_double(b, NAN, &err);
  pm_builder_append_double(b, INFINITY, &err);
  pm_builder_append_double(b, 16777216.0, &err);
  pm_builder_append_double(b, 1e-45, &err);
}
static void fill_f64(pm_builder *b) {
  pm_builder_append_double(b, 0.1, &err);
  pm_builder_append_double(b, 1.0 / 3.0, &err);
  pm_builder_append_double(b, -INFINITY, &err);
  pm_builder_append_double(b, 1e300, &err);
  pm_builder_append_double(b, 5e-324, &err);
  pm_builder_append_double(b, 0.0, &err);
  pm_builder_append_double(b, 123456789012.5, &err);
}
static void fill_dec(pm_builder *b) {
  pm_builder_append_decimal_i64(b, -12345000, &err);
  pm_builder_append_decimal_i64(b, 5, &err);
  pm_builder_append_decimal_i64(b, 0, &err);
  pm_builder_append_null(b, &err);
  uint8_t big[16];
  memset(big, 0xff, 16);
  big[15] = 0x7f; /* 2^127-1 */
  pm_builder_append_decimal128(b, big, &err);
}
static void fill_dec38(pm_builder *b) {
  /* -(10^38 - 1) */
  unsigned __int128 v = 1;
  for (int i = 0; i < 38; i++) v *= 10;
  v -= 1;
  v = (unsigned __int128)0 - v;
  uint8_t bytes[16];
  memcpy(bytes, &v, 16);
  pm_builder_append_decimal128(b, bytes, &err);
}
static void fill_date(pm_builder *b) {
  pm_builder_append_int(b, 0, &err);
  pm_builder_append_int(b, -1, &err);
  pm_builder_append_int(b, 2440, &err);
  pm_builder_append_int(b, 11016, &err);     /* 2000-02-29 */
  pm_builder_append_int(b, -719528, &err);   /* 0000-01-01 */
  pm_builder_append_int(b, -719529, &err);   /* -0001-12-31 */
  pm_builder_append_int(b, 2932896, &err);   /* 9999-12-31 */
  pm_builder_append_int(b, -141427, &err);   /* 1582-10-15 */
}
static void fill_time_ms(pm_builder *b) {
  pm_builder_append_int(b, 0, &err);
  pm_builder_append_int(b, 86399999, &err);
  pm_builder_append_int(b, 3723004, &err);
}
static void fill_time_us(pm_builder *b) { pm_builder_append_int(b, 3723000005LL, &err); }
static void fill_time_ns(pm_builder *b) { pm_builder_append_int(b, 3723000000009LL, &err); }
static void fill_time_s(pm_builder *b) { pm_builder_append_int(b, 45296, &err); }
static void fill_ts(pm_builder *b) {
  pm_builder_append_int(b, 0, &err);
  pm_builder_append_int(b, -1, &err);
  pm_builder_append_null(b, &err);
  pm_builder_append_int(b, 1700000000, &err);
}
static void fill_ts_ns(pm_builder *b) {
  pm_builder_append_int(b, 123123123000LL, &err);
  pm_builder_append_int(b, -1, &err);
}
static void fill_ts_ms(pm_builder *b) {
  pm_builder_append_int(b, -62135596800000LL, &err); /* 0001-01-01 */
  pm_builder_append_int(b, 253402300799999LL, &err); /* 9999-12-31T23:59:59.999 */
}
static void fill_utf8(pm_builder *b) {
  pm_builder_append_str(b, "", &err);
  pm_builder_append_null(b, &err);
  pm_builder_append_str(b, "a\"b\\c\t\x01\x7f", &err);
  pm_builder_append_str(b, "\xe4\xb8\xad\xf0\x9f\x98\x80", &err);
  pm_builder_append_bytes(b, "\xc0\xaf\xed\xa0\x80x\xe4\xb8", 8, &err); /* overlong, surrogate, truncated */
  pm_builder_append_str(b, "</script>\xe2\x80\xa8", &err);
}
static void fill_binary(pm_builder *b) {
  pm_builder_append_bytes(b, "", 0, &err);
  pm_builder_append_bytes(b, "f", 1, &err);
  pm_builder_append_bytes(b, "fo", 2, &err);
  pm_builder_append_bytes(b, "foo", 3, &err);
  pm_builder_append_bytes(b, "\x00\xff\xfe\x01", 4, &err);
  pm_builder_append_null(b, &err);
}
static void fill_fixed(pm_builder *b) {
  pm_builder_append_bytes(b, "abc", 3, &err);
  pm_builder_append_null(b, &err);
  CHECK(pm_builder_append_bytes(b, "ab", 2, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  pm_builder_append_bytes(b, "\xff\xff\xff", 3, &err);
}
static void fill_list(pm_builder *b) {
  pm_builder *c = pm_builder_child(b, 0);
  pm_builder_append_int(c, 1, &err);
  pm_builder_append_null(c, &err);
  pm_builder_append_valid(b, &err);
  pm_builder_append_null(b, &err);
  pm_builder_append_valid(b, &err); /* empty */
  pm_builder_append_int(c, 3, &err);
  pm_builder_append_valid(b, &err);
}
static void fill_list_list(pm_builder *b) {
  pm_builder *l1 = pm_builder_child(b, 0), *s = pm_builder_child(l1, 0);
  pm_builder_append_str(s, "x", &err);
  pm_builder_append_valid(l1, &err);
  pm_builder_append_null(l1, &err);
  pm_builder_append_valid(b, &err);
  pm_builder_append_valid(l1, &err);
  pm_builder_append_valid(b, &err);
}
static void fill_map(pm_builder *b) {
  pm_builder *e = pm_builder_child(b, 0), *k = pm_builder_child(e, 0), *v = pm_builder_child(e, 1);
  pm_builder_append_int(k, 1, &err);
  pm_builder_append_str(v, "one", &err);
  pm_builder_append_valid(e, &err);
  pm_builder_append_int(k, 2, &err);
  pm_builder_append_null(v, &err);
  pm_builder_append_valid(e, &err);
  pm_builder_append_valid(b, &err);
  pm_builder_append_null(b, &err);
  pm_builder_append_valid(b, &err);
}
static void fill_map_list_key(pm_builder *b) {
  pm_builder *e = pm_builder_child(b, 0), *k = pm_builder_child(e, 0), *v = pm_builder_child(e, 1);
  pm_builder_append_int(pm_builder_child(k, 0), 1, &err);
  pm_builder_append_int(pm_builder_child(k, 0), 2, &err);
  pm_builder_append_valid(k, &err);
  pm_builder_append_bool(v, 1, &err);
  pm_builder_append_valid(e, &err);
  pm_builder_append_valid(b, &err);
}
static void fill_struct(pm_builder *b) {
  pm_builder *a = pm_builder_child(b, 0), *s = pm_builder_child(b, 1);
  pm_builder_append_int(a, 1, &err);
  pm_builder_append_str(s, "x", &err);
  pm_builder_append_valid(b, &err);
  pm_builder_append_null(b, &err);
  pm_builder_append_null(a, &err);
  pm_builder_append_null(s, &err);
  pm_builder_append_valid(b, &err);
  /* Mismatched child lengths are refused. */
  pm_builder_append_int(a, 5, &err);
  CHECK(pm_builder_append_valid(b, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  pm_builder_append_str(s, "y", &err);
  CHECK_OK(pm_builder_append_valid(b, &err), &err);
}
static void fill_fixed_list(pm_builder *b) {
  pm_builder *c = pm_builder_child(b, 0);
  pm_builder_append_double(c, 1.5, &err);
  pm_builder_append_double(c, 2.5, &err);
  pm_builder_append_valid(b, &err);
  pm_builder_append_null(b, &err);
  pm_builder_append_double(c, 3, &err);
  CHECK(pm_builder_append_valid(b, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  pm_builder_append_null(c, &err);
  pm_builder_append_valid(b, &err);
}
static void fill_null(pm_builder *b) { pm_builder_append_nulls(b, 3, &err); }
static void fill_large(pm_builder *b) {
  pm_builder_append_str(b, "big", &err);
  pm_builder_append_null(b, &err);
}
static void fill_large_list(pm_builder *b) {
  pm_builder_append_int(pm_builder_child(b, 0), 7, &err);
  pm_builder_append_valid(b, &err);
  pm_builder_append_null(b, &err);
}
static void fill_half(pm_builder *b) {
  pm_builder_append_double(b, 1.5, &err);
  pm_builder_append_double(b, -0.000061035156, &err);
  pm_builder_append_double(b, 65504, &err);
}

static void test_every_type(void) {
  BUILD_AND_CHECK("x:b", fill_bool, "[false,true,false,null,false,true,false,true,false,true]");
  BUILD_AND_CHECK("x:c", fill_i8, "[-128,127,null]");
  BUILD_AND_CHECK("x:C", fill_u8, "[255]");
  BUILD_AND_CHECK("x:s", fill_i16, "[-32768,32767]");
  BUILD_AND_CHECK("x:i", fill_i32, "[null,-2147483648,2147483647]");
  BUILD_AND_CHECK("x:l", fill_i64, "[-9223372036854775808,9223372036854775807]");
  BUILD_AND_CHECK("x:L", fill_u64, "[18446744073709551615]");
  BUILD_AND_CHECK("x:f", fill_f32, "[0.1,1.1,-3.4028235e+38,\"NaN\",\"Infinity\",16777216,1e-45]");
  BUILD_AND_CHECK("x:g", fill_f64,
                  "[0.1,0.3333333333333333,\"-Infinity\",1e+300,5e-324,0,123456789012.5]");
  BUILD_AND_CHECK("x:d:10,5", fill_dec,
                  "[\"-123.45000\",\"0.00005\",\"0.00000\",null,\"1701411834604692317316873037158841.05727\"]");
  BUILD_AND_CHECK("x:d:38,0", fill_dec38, "[\"-99999999999999999999999999999999999999\"]");
  BUILD_AND_CHECK("x:d:38,38", fill_dec38, "[\"-0.99999999999999999999999999999999999999\"]");
  BUILD_AND_CHECK("x:tdD", fill_date,
                  "[\"1970-01-01\",\"1969-12-31\",\"1976-09-06\",\"2000-02-29\",\"0000-01-01\",\"-0001-12-31\","
                  "\"9999-12-31\",\"1582-10-15\"]");
  BUILD_AND_CHECK("x:ttm", fill_time_ms, "[\"00:00:00.000\",\"23:59:59.999\",\"01:02:03.004\"]");
  BUILD_AND_CHECK("x:ttu", fill_time_us, "[\"01:02:03.000005\"]");
  BUILD_AND_CHECK("x:ttn", fill_time_ns, "[\"01:02:03.000000009\"]");
  BUILD_AND_CHECK("x:tts", fill_time_s, "[\"12:34:56\"]");
  BUILD_AND_CHECK("x:tss:", fill_ts,
                  "[\"1970-01-01T00:00:00\",\"1969-12-31T23:59:59\",null,\"2023-11-14T22:13:20\"]");
  BUILD_AND_CHECK("x:tss:UTC", fill_ts,
                  "[\"1970-01-01T00:00:00Z\",\"1969-12-31T23:59:59Z\",null,\"2023-11-14T22:13:20Z\"]");
  BUILD_AND_CHECK("x:tsn:", fill_ts_ns, "[\"1970-01-01T00:02:03.123123000\",\"1969-12-31T23:59:59.999999999\"]");
  BUILD_AND_CHECK("x:tsu:Asia/Shanghai", fill_ts_ns,
                  "[\"1970-01-02T10:12:03.123000Z\",\"1969-12-31T23:59:59.999999Z\"]");
  BUILD_AND_CHECK("x:tsm:", fill_ts_ms, "[\"0001-01-01T00:00:00.000\",\"9999-12-31T23:59:59.999\"]");
  BUILD_AND_CHECK("x:u", fill_utf8,
                  "[\"\",null,\"a\\\"b\\\\c\\t\\u0001\x7f\",\"\xe4\xb8\xad\xf0\x9f\x98\x80\","
                  "\"\\ufffd\\ufffd\\ufffd\\ufffd\\ufffdx\\ufffd\\ufffd\",\"</script>\xe2\x80\xa8\"]");
  BUILD_AND_CHECK("x:z", fill_binary, "[\"\",\"Zg==\",\"Zm8=\",\"Zm9v\",\"AP/+AQ==\",null]");
  BUILD_AND_CHECK("x:w:3", fill_fixed, "[\"YWJj\",null,\"////\"]");
  BUILD_AND_CHECK("x:+l{item:i}", fill_list, "[[1,null],null,[],[3]]");
  BUILD_AND_CHECK("x:+l{item:+l{item:u}}", fill_list_list, "[[[\"x\"],null],[[]]]");
  BUILD_AND_CHECK("x:+m{entries:+s{key:i;value:u}}", fill_map, "[[[1,\"one\"],[2,null]],null,[]]");
  BUILD_AND_CHECK("x:+m{entries:+s{key:+l{item:s};value:b}}", fill_map_list_key, "[[[[1,2],true]]]");
  BUILD_AND_CHECK("x:+s{a:i;s:u}", fill_struct, "[{\"a\":1,\"s\":\"x\"},null,{\"a\":null,\"s\":null},"
                                               "{\"a\":5,\"s\":\"y\"}]");
  BUILD_AND_CHECK("x:+w:2{item:g}", fill_fixed_list, "[[1.5,2.5],null,[3,null]]");
  BUILD_AND_CHECK("x:n", fill_null, "[null,null,null]");
  BUILD_AND_CHECK("x:U", fill_large, "[\"big\",null]");
  BUILD_AND_CHECK("x:Z", fill_large, "[\"Ymln\",null]");
  BUILD_AND_CHECK("x:+L{item:l}", fill_large_list, "[[7],null]");
  BUILD_AND_CHECK("x:e", fill_half, "[1.5,-6.1035156e-05,65504]");
}

static void test_wrong_type(void) {
  pm_type t;
  pm_builder *b;
  tu_type("x:i", &t);
  pm_builder_new(&t, &b, &err);
  CHECK(pm_builder_append_str(b, "x", &err) == PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "\"i\"") != NULL);
  CHECK(pm_builder_append_bool(b, 1, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(pm_builder_append_valid(b, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(pm_builder_length(b), 0);
  pm_builder_free(b);
  pm_type_free(&t);
}

/* Buffer layout of a finished array: validity only when nulls, 64-byte aligned, offsets start at 0. */
static void test_layout_and_reuse(void) {
  pm_type t;
  pm_builder *b;
  tu_type("x:u", &t);
  pm_builder_new(&t, &b, &err);
  struct ArrowArray a;
  for (int round = 0; round < 2; round++) {
    for (int i = 0; i < 1000; i++) pm_builder_append_str(b, i % 2 ? "ab" : "c", &err);
    CHECK_OK(pm_builder_finish(b, &a, &err), &err);
    CHECK_EQ_INT(a.length, 1000);
    CHECK_EQ_INT(a.null_count, 0);
    CHECK_EQ_INT(a.n_buffers, 3);
    CHECK(a.buffers[0] == NULL);
    CHECK(((uintptr_t)a.buffers[1] & 63) == 0);
    CHECK(((uintptr_t)a.buffers[2] & 63) == 0);
    const int32_t *off = a.buffers[1];
    CHECK_EQ_INT(off[0], 0);
    CHECK_EQ_INT(off[1000], 1500);
    pm_array_release(&a);
    CHECK_EQ_INT(pm_builder_length(b), 0);
  }
  /* A null after 1000 valid values materialises the bitmap with earlier rows valid. */
  for (int i = 0; i < 1000; i++) pm_builder_append_str(b, "v", &err);
  pm_builder_append_null(b, &err);
  CHECK_OK(pm_builder_finish(b, &a, &err), &err);
  CHECK_EQ_INT(a.null_count, 1);
  const uint8_t *v = a.buffers[0];
  CHECK(v != NULL && pm_bit_get(v, 999) && !pm_bit_get(v, 1000) && pm_bit_get(v, 0));
  pm_array_release(&a);
  /* Empty finish still yields non-NULL offsets/data buffers. */
  CHECK_OK(pm_builder_finish(b, &a, &err), &err);
  CHECK(a.length == 0 && a.buffers[1] != NULL && a.buffers[2] != NULL && ((const int32_t *)a.buffers[1])[0] == 0);
  pm_array_release(&a);
  pm_builder_free(b);
  pm_type_free(&t);
}

/* Build a nested source, slice it, copy rows one by one and by range. */
static void test_append_from_sliced(void) {
  const char *spec = "r:+s{i:i;s:u;l:+l{item:+s{k:l;m:+m{entries:+s{key:u;value:b}}}};f:+w:2{item:i};d:d:5,2}";
  pm_type t;
  tu_type(spec, &t);
  pm_builder *b;
  CHECK_OK(pm_builder_new(&t, &b, &err), &err);
  for (int r = 0; r < 6; r++) {
    pm_builder *bi = pm_builder_child(b, 0), *bs = pm_builder_child(b, 1), *bl = pm_builder_child(b, 2),
               *bf = pm_builder_child(b, 3), *bd = pm_builder_child(b, 4);
    if (r == 4) {
      CHECK_OK(pm_builder_append_null(b, &err), &err);
      continue;
    }
    pm_builder_append_int(bi, r, &err);
    char s[8];
    snprintf(s, sizeof s, "s%d", r);
    pm_builder_append_str(bs, s, &err);
    pm_builder *st = pm_builder_child(bl, 0), *bk = pm_builder_child(st, 0), *bm = pm_builder_child(st, 1);
    pm_builder *be = pm_builder_child(bm, 0);
    for (int j = 0; j < r % 3; j++) {
      pm_builder_append_int(bk, r * 10 + j, &err);
      pm_builder_append_str(pm_builder_child(be, 0), "key", &err);
      pm_builder_append_bool(pm_builder_child(be, 1), j, &err);
      pm_builder_append_valid(be, &err);
      pm_builder_append_valid(bm, &err);
      pm_builder_append_valid(st, &err);
    }
    pm_builder_append_valid(bl, &err);
    pm_builder_append_int(pm_builder_child(bf, 0), r, &err);
    pm_builder_append_int(pm_builder_child(bf, 0), -r, &err);
    pm_builder_append_valid(bf, &err);
    pm_builder_append_decimal_i64(bd, r * 101, &err);
    CHECK_OK(pm_builder_append_valid(b, &err), &err);
  }
  struct ArrowArray src;
  CHECK_OK(pm_builder_finish(b, &src, &err), &err);
  char full[8192];
  snprintf(full, sizeof full, "%s", tu_json(&t, &src));
  CHECK_EQ_STR(full,
               "[{\"i\":0,\"s\":\"s0\",\"l\":[],\"f\":[0,0],\"d\":\"0.00\"},"
               "{\"i\":1,\"s\":\"s1\",\"l\":[{\"k\":10,\"m\":[[\"key\",false]]}],\"f\":[1,-1],\"d\":\"1.01\"},"
               "{\"i\":2,\"s\":\"s2\",\"l\":[{\"k\":20,\"m\":[[\"key\",false]]},{\"k\":21,\"m\":[[\"key\",true]]}],"
               "\"f\":[2,-2],\"d\":\"2.02\"},"
               "{\"i\":3,\"s\":\"s3\",\"l\":[],\"f\":[3,-3],\"d\":\"3.03\"},"
               "null,"
               "{\"i\":5,\"s\":\"s5\",\"l\":[{\"k\":50,\"m\":[[\"key\",false]]},{\"k\":51,\"m\":[[\"key\",true]]}],"
               "\"f\":[5,-5],\"d\":\"5.05\"}]");
  /* Slice rows 1..5 by offset; copy each row, then the whole range; both must equal the slice. */
  struct ArrowArray view = src;
  view.offset = 1;
  view.length = 5;
  char sliced[8192];
  snprintf(sliced, sizeof sliced, "%s", tu_json(&t, &view));
  pm_builder *b2;
  CHECK_OK(pm_builder_new(&t, &b2, &err), &err);
  for (int64_t r = 0; r < 5; r++) CHECK_OK(pm_builder_append_from(b2, NULL, &view, r, &err), &err);
  struct ArrowArray copy;
  CHECK_OK(pm_builder_finish(b2, &copy, &err), &err);
  CHECK_EQ_STR(tu_json(&t, &copy), sliced);
  CHECK_EQ_INT(copy.null_count, 1);
  pm_array_release(&copy);
  CHECK_OK(pm_builder_append_range(b2, NULL, &view, 0, 5, &err), &err);
  CHECK_OK(pm_builder_append_range(b2, NULL, &view, 2, 3, &err), &err);
  CHECK_OK(pm_builder_finish(b2, &copy, &err), &err);
  CHECK_EQ_INT(copy.length, 8);
  struct ArrowArray head = copy, tail = copy;
  head.length = 5;
  tail.offset = 5;
  tail.length = 3;
  CHECK_EQ_STR(tu_json(&t, &head), sliced);
  view.offset = 3;
  view.length = 3;
  snprintf(sliced, sizeof sliced, "%s", tu_json(&t, &view));
  CHECK_EQ_STR(tu_json(&t, &tail), sliced);
  pm_array_release(&copy);
  /* Out-of-range rows are refused. */
  CHECK(pm_builder_append_from(b2, NULL, &src, 6, &err) != 0);
  CHECK(pm_builder_append_range(b2, NULL, &src, 4, 3, &err) != 0);
  pm_builder_free(b2);
  pm_array_release(&src);
  pm_builder_free(b);
  pm_type_free(&t);
}

/* Bit-level range copies at every phase combination. */
static void test_bool_range_phases(void) {
  pm_type t;
  tu_type("x:b", &t);
  pm_builder *b;
  pm_builder_new(&t, &b, &err);
  for (int i = 0; i < 100; i++) {
    if (i % 7 == 0)
      pm_builder_append_null(b, &err);
    else
      pm_builder_append_bool(b, (i * 13) % 5 < 2, &err);
  }
  struct ArrowArray src;
  pm_builder_finish(b, &src, &err);
  for (int pre = 0; pre < 9; pre++) {
    for (int start = 0; start < 17; start += 3) {
      pm_builder_append_nulls(b, pre, &err);
      pm_builder_append_range(b, NULL, &src, start, 100 - start, &err);
      struct ArrowArray out;
      pm_builder_finish(b, &out, &err);
      int ok = out.length == pre + 100 - start;
      for (int i = 0; ok && i < 100 - start; i++) {
        int sv = pm_array_is_valid(&src, start + i), ov = pm_array_is_valid(&out, pre + i);
        ok = sv == ov && (!sv || pm_bit_get(src.buffers[1], start + i) == pm_bit_get(out.buffers[1], pre + i));
      }
      CHECK_MSG(ok, "pre=%d start=%d", pre, start);
      pm_array_release(&out);
    }
  }
  pm_array_release(&src);
  pm_builder_free(b);
  pm_type_free(&t);
}

static void test_schema_out(void) {
  pm_type t;
  tu_type("col:+m{entries:+s{key:u;value:tsu:UTC}}", &t);
  pm_builder *b;
  pm_builder_new(&t, &b, &err);
  struct ArrowSchema s;
  CHECK_OK(pm_builder_schema(b, "renamed", &s, &err), &err);
  CHECK_EQ_STR(s.format, "+m");
  CHECK_EQ_STR(s.name, "renamed");
  CHECK_EQ_INT(s.n_children, 1);
  CHECK_EQ_STR(s.children[0]->children[1]->format, "tsu:UTC");
  CHECK_EQ_STR(s.children[0]->children[0]->name, "key");
  pm_schema_release(&s);
  pm_builder_free(b);
  pm_type_free(&t);
}

int main(void) {
  RUN_TEST(test_every_type);
  RUN_TEST(test_wrong_type);
  RUN_TEST(test_layout_and_reuse);
  RUN_TEST(test_append_from_sliced);
  RUN_TEST(test_bool_range_phases);
  RUN_TEST(test_schema_out);
  TEST_MAIN_END();
}
