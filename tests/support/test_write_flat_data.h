/* The flat all-types batch shared by the flat and codec writer tests, and its
 * canonical rows (computed by hand from the values below). */
#ifndef PM_TEST_WRITE_FLAT_DATA_H
#define PM_TEST_WRITE_FLAT_DATA_H

#include "support/test_write_util.h"

#define N 4

static const char *const flat_expected =
    "[1,10,\"a\",1.5,true,-128,-32768,0.5,\"123.45\",\"123456789012.345\",\"100000000000000000.00001\",0,0,0,0,1000000,1000,1000,0,1000000,1000,1000,\"0x0102\",null,\"xy\",0,0]\n"
    "[null,20,null,-2.25,false,127,32767,-1.25,\"-0.01\",\"-0.005\",\"-100000000000000000.00000\",19000,1000000000,null,1700000000000000000,1700000000123000000,1700000000123456000,1700000000123456000,1700000000000000000,1700000000123000000,1700000000123456000,1700000000123456000,\"0x\",\"0x646566\",null,255,4294967295]\n"
    "[3,-30,\"ccc\",null,null,0,7,3,null,\"0.000\",\"0.00007\",null,86399999000000,86399999999000,-86400000000000,-1000000,-1000,null,-86400000000000,-1000000,-1000,-1000,null,\"0x676869\",\"z\xc3\xa9\",1,1]\n"
    "[-4,4000000000,\"\",0,true,5,0,null,\"999.99\",\"0.001\",null,1,5000000,5000,1000000000,null,0,0,1000000000,0,0,0,\"0xff\",\"0x6a6b6c\",\"!\",2,2]\n";

static inline void build_flat(struct ArrowSchema *s, struct ArrowArray *a) {
  enum { NC = 27 };
  pm_error err;
  tw_schema(s, "+s", NULL, 0, NC);
  if (pm_array_init(a, N, 1, NC, &err)) abort();
  int k = 0;
  /* 0 int32 nullable */
  int32_t i32[N] = {1, 0, 3, -4};
  tw_schema(s->children[k], "i", "i32", 1, 0);
  tw_field_id(s->children[k], 0);
  tw_prim(a->children[k++], N, i32, 4, "1011");
  /* 1 int64 required */
  int64_t i64[N] = {10, 20, -30, 4000000000LL};
  tw_schema(s->children[k], "l", "i64", 0, 0);
  tw_field_id(s->children[k], 1);
  tw_prim(a->children[k++], N, i64, 8, NULL);
  /* 2 utf8 nullable */
  const char *strs[N] = {"a", NULL, "ccc", ""};
  tw_schema(s->children[k], "u", "str", 1, 0);
  tw_str(a->children[k++], N, strs, NULL);
  /* 3 double */
  double dbl[N] = {1.5, -2.25, 0, 0.0};
  tw_schema(s->children[k], "g", "dbl", 1, 0);
  tw_prim(a->children[k++], N, dbl, 8, "1101");
  /* 4 bool */
  int bl[N] = {1, 0, 0, 1};
  tw_schema(s->children[k], "b", "bool", 1, 0);
  tw_bool(a->children[k++], N, bl, "1101");
  /* 5 int8, 6 int16 */
  int8_t i8[N] = {-128, 127, 0, 5};
  tw_schema(s->children[k], "c", "i8", 1, 0);
  tw_prim(a->children[k++], N, i8, 1, NULL);
  int16_t i16[N] = {-32768, 32767, 7, 0};
  tw_schema(s->children[k], "s", "i16", 0, 0);
  tw_prim(a->children[k++], N, i16, 2, "1110"); /* validity ignored: REQUIRED */
  /* 7 float */
  float f32[N] = {0.5f, -1.25f, 3.0f, 0};
  tw_schema(s->children[k], "f", "f32", 1, 0);
  tw_prim(a->children[k++], N, f32, 4, "1110");
  /* 8 decimal(5,2) 9 decimal(15,3) 10 decimal(23,5) */
  int64_t dec[N * 2] = {12345, 0, -1, -1, 0, 0, 99999, 0};
  tw_schema(s->children[k], "d:5,2", "dec5", 1, 0);
  tw_prim(a->children[k++], N, dec, 16, "1101");
  int64_t dec15[N * 2] = {123456789012345LL, 0, -5, -1, 0, 0, 1, 0};
  tw_schema(s->children[k], "d:15,3", "dec15", 1, 0);
  tw_prim(a->children[k++], N, dec15, 16, NULL);
  /* 10^22 + 1 = 0x21E19E0C9BAB2400001 ; negative: -10^22 */
  int64_t dec23[N * 2] = {(int64_t)0x19E0C9BAB2400001ULL, 0x21E, (int64_t)0xE61F36454DC00000ULL,
                          (int64_t)0xFFFFFFFFFFFFFDE1ULL, 7, 0, 0, 0};
  tw_schema(s->children[k], "d:23,5", "dec23", 1, 0);
  tw_prim(a->children[k++], N, dec23, 16, "1110");
  /* 11 date32 */
  int32_t days[N] = {0, 19000, -1, 1};
  tw_schema(s->children[k], "tdD", "date", 1, 0);
  tw_prim(a->children[k++], N, days, 4, "1101");
  /* 12 time32 ms, 13 time64 us */
  int32_t tms[N] = {0, 1000, 86399999, 5};
  tw_schema(s->children[k], "ttm", "time_ms", 1, 0);
  tw_prim(a->children[k++], N, tms, 4, NULL);
  int64_t tus[N] = {0, 1000001, 86399999999LL, 5};
  tw_schema(s->children[k], "ttu", "time_us", 1, 0);
  tw_prim(a->children[k++], N, tus, 8, "1011");
  /* 14..17 timestamps without tz: s, ms, us, ns */
  int64_t ts_s[N] = {0, 1700000000, -86400, 1};
  tw_schema(s->children[k], "tss:", "ts_s", 1, 0);
  tw_prim(a->children[k++], N, ts_s, 8, NULL);
  int64_t ts_ms[N] = {1, 1700000000123LL, -1, 0};
  tw_schema(s->children[k], "tsm:", "ts_ms", 1, 0);
  tw_prim(a->children[k++], N, ts_ms, 8, "1110");
  int64_t ts_us[N] = {1, 1700000000123456LL, -1, 0};
  tw_schema(s->children[k], "tsu:", "ts_us", 1, 0);
  tw_prim(a->children[k++], N, ts_us, 8, NULL);
  int64_t ts_ns[N] = {1000, 1700000000123456000LL, -1000, 0};
  tw_schema(s->children[k], "tsn:", "ts_ns", 1, 0);
  tw_prim(a->children[k++], N, ts_ns, 8, "1101");
  /* 18..21 timestamps with tz */
  tw_schema(s->children[k], "tss:UTC", "tz_s", 1, 0);
  tw_prim(a->children[k++], N, ts_s, 8, NULL);
  tw_schema(s->children[k], "tsm:UTC", "tz_ms", 1, 0);
  tw_prim(a->children[k++], N, ts_ms, 8, NULL);
  tw_schema(s->children[k], "tsu:Asia/Shanghai", "tz_us", 1, 0);
  tw_prim(a->children[k++], N, ts_us, 8, NULL);
  tw_schema(s->children[k], "tsn:UTC", "tz_ns", 0, 0);
  tw_prim(a->children[k++], N, ts_ns, 8, NULL);
  /* 22 binary, 23 fixed-size binary, 24 large utf8 */
  const char *bins[N] = {"\x01\x02", "", NULL, "\xff"};
  tw_schema(s->children[k], "z", "bin", 1, 0);
  tw_str(a->children[k++], N, bins, NULL);
  const char fsb[N * 3 + 1] = "abcdefghijkl";
  tw_schema(s->children[k], "w:3", "fsb", 1, 0);
  tw_prim(a->children[k++], N, fsb, 3, "0111");
  {
    tw_schema(s->children[k], "U", "lstr", 1, 0);
    struct ArrowArray *l = a->children[k++];
    if (pm_array_init(l, N, 3, 0, &err)) abort();
    int64_t *off = pm_aligned_alloc(5 * 8);
    int64_t o[5] = {0, 2, 2, 5, 6};
    memcpy(off, o, sizeof o);
    uint8_t *data = pm_aligned_alloc(8);
    memcpy(data, "xyz\xc3\xa9!", 6);
    pm_array_set_buffer(l, 1, off);
    pm_array_set_buffer(l, 2, data);
    tw_validity(l, N, "1011");
  }
  /* 25 uint8, 26 uint32 */
  uint8_t u8[N] = {0, 255, 1, 2};
  tw_schema(s->children[k], "C", "u8", 1, 0);
  tw_prim(a->children[k++], N, u8, 1, NULL);
  uint32_t u32[N] = {0, 4294967295u, 1, 2};
  tw_schema(s->children[k], "I", "u32", 1, 0);
  tw_prim(a->children[k++], N, u32, 4, NULL);
  if (k != NC) abort();
}

#endif
