/* Unit tests: thrift compact decoding, RLE/bit-packing, bit unpacking, levels, delta and other encodings. */
#include <stdint.h>
#include <string.h>

#include "format/parquet/parquet_decode.h"
#include "format/parquet/parquet_meta.h"
#include "format/parquet/thrift_read.h"
#include "harness.h"

/* ---- thrift ---- */

static void test_thrift_basic(void) {
  /* struct { 1: i32 -3, 2: binary "ab", 5: bool true, 20: i64 300, 6: list<i32>[1,2], 7: struct{1: double}, 8: map<i32,binary>{1:"x"} } */
  const uint8_t d[] = {0x15, 0x05,                         /* field 1 i32 zigzag(-3)=5 */
                       0x18, 0x02, 'a', 'b',               /* field 2 binary */
                       0x31,                               /* field 5 bool true (delta 3) */
                       0x06, 0x28, 0xd8, 0x04,             /* field 20 (long form) i64 zigzag(300)=600 */
                       0x19, 0x25, 0x02, 0x04,             /* field 21 (delta 1) list<i32> of 2 */
                       0x1c, 0x17, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0x00, /* field 22 struct{1: double 1.0} */
                       0x1b, 0x01, 0x58, 0x02, 0x01, 'x', /* field 23 map<i32,binary> size 1 */
                       0x00};
  pm_error err;
  pm_thrift t;
  pm_thrift_init(&t, d, sizeof d, 100, "mem", "Test", &err);
  int16_t last, id;
  int ft;
  CHECK_OK(pm_thrift_struct_begin(&t, &last), &err);
  int32_t i32;
  CHECK_OK(pm_thrift_field(&t, &last, &id, &ft), &err);
  CHECK_EQ_INT(id, 1);
  CHECK_EQ_INT(ft, PM_TT_I32);
  CHECK_OK(pm_thrift_i32(&t, &i32), &err);
  CHECK_EQ_INT(i32, -3);
  CHECK_OK(pm_thrift_field(&t, &last, &id, &ft), &err);
  const uint8_t *b;
  uint32_t bl;
  CHECK_OK(pm_thrift_binary(&t, &b, &bl), &err);
  CHECK_EQ_INT(bl, 2);
  CHECK(!memcmp(b, "ab", 2));
  CHECK_OK(pm_thrift_field(&t, &last, &id, &ft), &err);
  CHECK_EQ_INT(id, 5);
  CHECK(pm_thrift_field_bool(ft));
  CHECK_OK(pm_thrift_field(&t, &last, &id, &ft), &err);
  CHECK_EQ_INT(id, 20);
  int64_t i64;
  CHECK_OK(pm_thrift_i64(&t, &i64), &err);
  CHECK_EQ_INT(i64, 300);
  /* skip the rest generically */
  for (;;) {
    CHECK_OK(pm_thrift_field(&t, &last, &id, &ft), &err);
    if (ft == PM_TT_STOP) break;
    CHECK_OK(pm_thrift_skip(&t, ft), &err);
  }
  CHECK(t.p == t.end);
}

static void test_thrift_errors(void) {
  pm_error err;
  pm_thrift t;
  /* list claiming 1000 elements in 3 bytes */
  const uint8_t big[] = {0xf5, 0xe8, 0x07, 0x00};
  pm_thrift_init(&t, big, sizeof big, 0, "mem", "Test", &err);
  CHECK(pm_thrift_skip(&t, PM_TT_LIST) != 0);
  CHECK(strstr(err.message, "list size") != NULL);
  /* binary longer than data */
  const uint8_t bin[] = {0x10, 'a'};
  pm_thrift_init(&t, bin, sizeof bin, 0, "mem", "Test", &err);
  CHECK(pm_thrift_skip(&t, PM_TT_BINARY) != 0);
  /* nesting bomb: 200 nested struct fields */
  uint8_t bomb[400];
  for (int i = 0; i < 200; i++) bomb[i] = 0x1c;
  memset(bomb + 200, 0, 200);
  pm_thrift_init(&t, bomb, sizeof bomb, 0, "mem", "Test", &err);
  CHECK(pm_thrift_skip(&t, PM_TT_STRUCT) != 0);
  CHECK(strstr(err.message, "nested too deeply") != NULL);
  /* truncated varint */
  const uint8_t tv[] = {0x80, 0x80};
  pm_thrift_init(&t, tv, sizeof tv, 0, "mem", "Test", &err);
  uint64_t v;
  CHECK(pm_thrift_varint(&t, &v) != 0);
  CHECK(strstr(err.message, "mem") != NULL);
  /* wrong type for a known FileMetaData field: num_rows (3) as binary */
  const uint8_t fm[] = {0x38, 0x01, 'x', 0x00};
  pm_pq_meta *m;
  CHECK(pm_pq_meta_parse(fm, sizeof fm, 10, "f.parquet", &m, &err) == PAIMON_ERR_CORRUPT);
  CHECK(strstr(err.message, "f.parquet") != NULL);
  CHECK(strstr(err.message, "num_rows") != NULL);
}

/* ---- bit packing and RLE ---- */

static uint32_t rng_state = 12345;
static uint32_t rnd(void) {
  rng_state = rng_state * 1103515245u + 12345u;
  return rng_state >> 1;
}

static void pack_lsb(const uint32_t *v, size_t n, int w, uint8_t *out) {
  size_t bytes = (n * (size_t)w + 7) / 8;
  memset(out, 0, bytes);
  size_t bit = 0;
  for (size_t i = 0; i < n; i++)
    for (int b = 0; b < w; b++, bit++)
      if ((v[i] >> b) & 1) out[bit >> 3] |= (uint8_t)(1u << (bit & 7));
}

static void test_unpack(void) {
  uint32_t vals[300], got[300];
  uint8_t packed[300 * 4 + 8];
  for (int w = 0; w <= 32; w++) {
    for (int i = 0; i < 300; i++) vals[i] = w == 32 ? rnd() * 2u + (rnd() & 1) : w ? rnd() & ((1u << w) - 1) : 0;
    pack_lsb(vals, 300, w, packed);
    size_t len = (300 * (size_t)w + 7) / 8;
    pm_pq_unpack32(packed, len, w, 0, got, 300);
    CHECK_MSG(!memcmp(vals, got, sizeof vals), "width %d", w);
    pm_pq_unpack32(packed, len, w, 17, got, 283);
    CHECK_MSG(!memcmp(vals + 17, got, 283 * 4), "width %d offset 17", w);
  }
}

static void test_rle(void) {
  /* RLE run: 100 x 5 (width 3), then bit-packed 1 group: 0..7, then RLE 3 x 2 */
  uint8_t buf[64];
  size_t n = 0;
  buf[n++] = 100 << 1 & 0xff; /* 200 -> varint */
  buf[0] = 0xc8;
  buf[n++] = 0x01;
  buf[n++] = 5;
  buf[n++] = (1 << 1) | 1; /* one group of 8 */
  uint32_t grp[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  pack_lsb(grp, 8, 3, buf + n);
  n += 3;
  buf[n++] = 3 << 1;
  buf[n++] = 2;
  pm_pq_rle d;
  pm_pq_rle_init(&d, buf, n, 3);
  uint32_t out[111];
  CHECK_EQ_INT(pm_pq_rle_u32(&d, out, 50), 0);
  CHECK_EQ_INT(pm_pq_rle_u32(&d, out + 50, 61), 0);
  int ok = 1;
  for (int i = 0; i < 100; i++) ok &= out[i] == 5;
  for (int i = 0; i < 8; i++) ok &= out[100 + i] == (uint32_t)i;
  for (int i = 108; i < 111; i++) ok &= out[i] == 2;
  CHECK(ok);
  /* past the end */
  uint32_t one;
  CHECK(pm_pq_rle_u32(&d, &one, 1) != 0);
  /* levels as int16 */
  int16_t lv[111];
  pm_pq_rle_init(&d, buf, n, 3);
  CHECK_EQ_INT(pm_pq_rle_i16(&d, lv, 111), 0);
  CHECK_EQ_INT(lv[104], 4);
  /* dictionary index limit */
  pm_pq_rle_init(&d, buf, n, 3);
  CHECK_EQ_INT(pm_pq_rle_u32_checked(&d, out, 111, 6), -2);
  pm_pq_rle_init(&d, buf, n, 3);
  CHECK_EQ_INT(pm_pq_rle_u32_checked(&d, out, 111, 8), 0);
  /* RLE value wider than bit width is rejected */
  const uint8_t badv[] = {0x04, 0x09};
  pm_pq_rle_init(&d, badv, 2, 3);
  CHECK(pm_pq_rle_u32(&d, out, 2) != 0);
  /* booleans as bytes */
  const uint8_t bools[] = {0x03, 0xa5}; /* one group of 8: 10100101 */
  uint8_t bv[8];
  pm_pq_rle_init(&d, bools, 2, 1);
  CHECK_EQ_INT(pm_pq_rle_u8(&d, bv, 8), 0);
  CHECK(bv[0] == 1 && bv[1] == 0 && bv[2] == 1 && bv[5] == 1 && bv[7] == 1 && bv[6] == 0);
}

static void test_bitpacked_msb(void) {
  /* legacy BIT_PACKED, width 1: 0b10110000 -> 1,0,1,1,0 */
  const uint8_t d[] = {0xb0};
  int16_t out[5];
  CHECK_EQ_INT(pm_pq_bitpacked_msb_i16(d, 1, 1, out, 5), 0);
  CHECK(out[0] == 1 && out[1] == 0 && out[2] == 1 && out[3] == 1 && out[4] == 0);
  CHECK(pm_pq_bitpacked_msb_i16(d, 1, 1, out, 9) != 0);
  /* width 3: values 5,2 -> 101 010 00 */
  const uint8_t d3[] = {0xa8};
  CHECK_EQ_INT(pm_pq_bitpacked_msb_i16(d3, 1, 3, out, 2), 0);
  CHECK(out[0] == 5 && out[1] == 2);
}

/* ---- DELTA_BINARY_PACKED ---- */

static void test_delta(void) {
  const char *why = NULL;
  /* 1..5: block 128, 4 miniblocks, count 5, first 1, min delta 1, widths 0 */
  const uint8_t a[] = {0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0, 0, 0, 0};
  int64_t out[8];
  uint64_t total;
  size_t used;
  CHECK_EQ_INT(pm_pq_delta_count(a, sizeof a, &total, &why), 0);
  CHECK_EQ_INT(total, 5);
  CHECK_EQ_INT(pm_pq_delta_decode(a, sizeof a, out, total, &used, &why), 0);
  CHECK(out[0] == 1 && out[1] == 2 && out[4] == 5);
  CHECK_EQ_INT(used, sizeof a);
  /* wrap-around: INT64_MAX then INT64_MIN (delta +1 wraps) */
  const uint8_t w[] = {0x80, 0x01, 0x04, 0x02, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x02, 0, 0, 0, 0};
  CHECK_EQ_INT(pm_pq_delta_decode(w, sizeof w, out, 2, &used, &why), 0);
  CHECK(out[0] == INT64_MAX && out[1] == INT64_MIN);
  /* bit-packed deltas: 7, 5, 3, 10 : deltas -2,-2,7 ; min -2 ; adjusted 0,0,9 width 4 */
  uint8_t b[32];
  size_t n = 0;
  b[n++] = 0x80;
  b[n++] = 0x01;
  b[n++] = 0x04;
  b[n++] = 0x04;
  b[n++] = 14; /* zigzag 7 */
  b[n++] = 3;  /* zigzag -2 */
  b[n++] = 4;
  b[n++] = 0;
  b[n++] = 0;
  b[n++] = 0;
  uint32_t adj[32] = {0, 0, 9};
  pack_lsb(adj, 32, 4, b + n);
  n += 16;
  CHECK_EQ_INT(pm_pq_delta_decode(b, n, out, 4, &used, &why), 0);
  CHECK(out[0] == 7 && out[1] == 5 && out[2] == 3 && out[3] == 10);
  CHECK_EQ_INT(used, n);
  /* truncated miniblock */
  CHECK(pm_pq_delta_decode(b, n - 15, out, 4, &used, &why) != 0);
  CHECK(why != NULL);
  /* bad block size */
  const uint8_t bad[] = {0x05, 0x04, 0x02, 0x02};
  CHECK(pm_pq_delta_decode(bad, sizeof bad, out, 2, &used, &why) != 0);
}

static void test_plain_and_bss(void) {
  uint8_t buf[] = {2, 0, 0, 0, 'h', 'i', 0, 0, 0, 0, 3, 0, 0, 0, 'a', 'b', 'c'};
  uint32_t offs[4];
  size_t used;
  const char *why;
  CHECK_EQ_INT(pm_pq_plain_byte_array_compact(buf, sizeof buf, 3, offs, &used, &why), 0);
  CHECK(offs[1] == 2 && offs[2] == 2 && offs[3] == 5);
  CHECK(!memcmp(buf, "hiabc", 5));
  CHECK_EQ_INT(used, sizeof buf);
  uint8_t bad[] = {9, 0, 0, 0, 'x'};
  CHECK(pm_pq_plain_byte_array_compact(bad, sizeof bad, 1, offs, &used, &why) != 0);
  /* Many values of 0..70 bytes (short ones are moved in 16-byte steps, up
   * to the page's last bytes): compacted bytes and offsets as built here. */
  enum { NV = 400 };
  static uint8_t page[NV * 74], want[NV * 70];
  static uint32_t woffs[NV + 1], goffs[NV + 1];
  size_t in = 0, wl = 0;
  woffs[0] = 0;
  for (int i = 0; i < NV; i++) {
    uint32_t l = (uint32_t)((i * 37 + i / 7) % 71);
    memcpy(page + in, &l, 4);
    in += 4;
    for (uint32_t k = 0; k < l; k++) page[in + k] = want[wl + k] = (uint8_t)(i * 31 + k * 7 + 1);
    in += l;
    wl += l;
    woffs[i + 1] = (uint32_t)wl;
  }
  CHECK_EQ_INT(pm_pq_plain_byte_array_compact(page, in, NV, goffs, &used, &why), 0);
  CHECK_EQ_INT(used, in);
  CHECK(!memcmp(goffs, woffs, sizeof woffs));
  CHECK(!memcmp(page, want, wl));
  /* BYTE_STREAM_SPLIT of two floats */
  float f[2] = {1.5f, -2.25f}, g[2];
  uint8_t raw[8], split[8];
  memcpy(raw, f, 8);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 4; j++) split[j * 2 + i] = raw[i * 4 + j];
  pm_pq_byte_stream_split(split, 2, 4, (uint8_t *)g);
  CHECK(g[0] == 1.5f && g[1] == -2.25f);
  uint8_t bits = 0x05, bo[3];
  pm_pq_unpack_bools(&bits, 0, bo, 3);
  CHECK(bo[0] == 1 && bo[1] == 0 && bo[2] == 1);
  CHECK_EQ_INT(pm_pq_bit_width(0), 0);
  CHECK_EQ_INT(pm_pq_bit_width(1), 1);
  CHECK_EQ_INT(pm_pq_bit_width(7), 3);
  CHECK_EQ_INT(pm_pq_bit_width(8), 4);
}

int main(void) {
  RUN_TEST(test_thrift_basic);
  RUN_TEST(test_thrift_errors);
  RUN_TEST(test_unpack);
  RUN_TEST(test_rle);
  RUN_TEST(test_bitpacked_msb);
  RUN_TEST(test_delta);
  RUN_TEST(test_plain_and_bss);
  TEST_MAIN_END();
}
