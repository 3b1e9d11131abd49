/* Protobuf and RLE unit tests with the byte sequences of the ORC specification. */
#include <stdlib.h>

#include "format/orc/orc_proto.h"
#include "format/orc/orc_rle.h"
#include "harness.h"

static pm_orc_stream mk(const uint8_t *d, size_t n) {
  pm_orc_stream s;
  pm_orc_stream_init(&s, d, n, "test stream");
  return s;
}

static void test_byte_rle(void) {
  pm_error err;
  static const uint8_t run[] = {0x61, 0x00};
  pm_orc_stream s = mk(run, sizeof run);
  pm_orc_byte_rle d;
  pm_orc_byte_rle_init(&d, &s);
  uint8_t out[100];
  memset(out, 1, sizeof out);
  CHECK_OK(pm_orc_byte_rle_next(&d, out, 100, &err), &err);
  int zeros = 0;
  for (int i = 0; i < 100; i++) zeros += out[i] == 0;
  CHECK_EQ_INT(zeros, 100);
  CHECK(pm_orc_byte_rle_next(&d, out, 1, &err) == PAIMON_ERR_CORRUPT);
  static const uint8_t lit[] = {0xfe, 0x44, 0x45};
  s = mk(lit, sizeof lit);
  pm_orc_byte_rle_init(&d, &s);
  CHECK_OK(pm_orc_byte_rle_next(&d, out, 2, &err), &err);
  CHECK_EQ_INT(out[0], 0x44);
  CHECK_EQ_INT(out[1], 0x45);
  /* literal run claiming more bytes than present */
  static const uint8_t bad[] = {0xf0, 0x01};
  s = mk(bad, sizeof bad);
  pm_orc_byte_rle_init(&d, &s);
  CHECK(pm_orc_byte_rle_next(&d, out, 1, &err) == PAIMON_ERR_CORRUPT);
}

static void test_bool_rle(void) {
  pm_error err;
  static const uint8_t b[] = {0xff, 0x80};
  pm_orc_stream s = mk(b, sizeof b);
  pm_orc_bool_rle d;
  pm_orc_bool_rle_init(&d, &s);
  uint8_t out[8];
  CHECK_OK(pm_orc_bool_rle_next(&d, out, 8, &err), &err);
  CHECK_EQ_INT(out[0], 1);
  int ones = 0;
  for (int i = 1; i < 8; i++) ones += out[i];
  CHECK_EQ_INT(ones, 0);
  /* skip across bytes */
  static const uint8_t b2[] = {0xfd, 0xaa, 0x0f, 0xf0};
  s = mk(b2, sizeof b2);
  pm_orc_bool_rle_init(&d, &s);
  CHECK_OK(pm_orc_bool_rle_skip(&d, 11, &err), &err); /* 1010 1010 000|0 1111 ... */
  CHECK_OK(pm_orc_bool_rle_next(&d, out, 6, &err), &err);
  CHECK(out[0] == 0 && out[1] == 1 && out[2] == 1 && out[3] == 1 && out[4] == 1 && out[5] == 1);
}

static int decode_all(const uint8_t *d, size_t n, int v2, int sig, int64_t *out, size_t count, pm_error *err) {
  pm_orc_stream s = mk(d, n);
  pm_orc_int_rle *r = malloc(sizeof *r);
  pm_orc_int_rle_init(r, &s, v2, sig);
  int rc = pm_orc_int_rle_next(r, out, count, err);
  free(r);
  return rc;
}

static void test_int_rle_v1(void) {
  pm_error err;
  int64_t out[100];
  static const uint8_t a[] = {0x61, 0x00, 0x07};
  CHECK_OK(decode_all(a, sizeof a, 0, 0, out, 100, &err), &err);
  CHECK(out[0] == 7 && out[99] == 7);
  static const uint8_t b[] = {0x61, 0xff, 0x64};
  CHECK_OK(decode_all(b, sizeof b, 0, 0, out, 100, &err), &err);
  CHECK(out[0] == 100 && out[1] == 99 && out[99] == 1);
  static const uint8_t c[] = {0xfb, 0x02, 0x03, 0x04, 0x07, 0x0b};
  CHECK_OK(decode_all(c, sizeof c, 0, 0, out, 5, &err), &err);
  CHECK(out[0] == 2 && out[1] == 3 && out[2] == 4 && out[3] == 7 && out[4] == 11);
  CHECK(decode_all(c, sizeof c, 0, 0, out, 6, &err) == PAIMON_ERR_CORRUPT);
}

static void test_int_rle_v2(void) {
  pm_error err;
  int64_t out[32];
  static const uint8_t sr[] = {0x0a, 0x27, 0x10};
  CHECK_OK(decode_all(sr, sizeof sr, 1, 0, out, 5, &err), &err);
  CHECK(out[0] == 10000 && out[4] == 10000);
  static const uint8_t direct[] = {0x5e, 0x03, 0x5c, 0xa1, 0xab, 0x1e, 0xde, 0xad, 0xbe, 0xef};
  CHECK_OK(decode_all(direct, sizeof direct, 1, 0, out, 4, &err), &err);
  CHECK(out[0] == 23713 && out[1] == 43806 && out[2] == 57005 && out[3] == 48879);
  static const uint8_t patched[] = {0x8e, 0x13, 0x2b, 0x21, 0x07, 0xd0, 0x1e, 0x00, 0x14, 0x70, 0x28, 0x32, 0x3c, 0x46,
                                    0x50, 0x5a, 0x64, 0x6e, 0x78, 0x82, 0x8c, 0x96, 0xa0, 0xaa, 0xb4, 0xbe, 0xfc, 0xe8};
  static const int64_t pexp[20] = {2030, 2000, 2020, 1000000, 2040, 2050, 2060, 2070, 2080, 2090,
                                   2100, 2110, 2120, 2130,    2140, 2150, 2160, 2170, 2180, 2190};
  CHECK_OK(decode_all(patched, sizeof patched, 1, 1, out, 20, &err), &err);
  for (int i = 0; i < 20; i++) CHECK_EQ_INT(out[i], pexp[i]);
  static const uint8_t delta[] = {0xc6, 0x09, 0x02, 0x02, 0x22, 0x42, 0x42, 0x46};
  static const int64_t dexp[10] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29};
  CHECK_OK(decode_all(delta, sizeof delta, 1, 0, out, 10, &err), &err);
  for (int i = 0; i < 10; i++) CHECK_EQ_INT(out[i], dexp[i]);
  /* truncated direct run */
  CHECK(decode_all(direct, 6, 1, 0, out, 4, &err) == PAIMON_ERR_CORRUPT);
  /* truncated patched run, and a patch position past the run */
  CHECK(decode_all(patched, 20, 1, 1, out, 20, &err) == PAIMON_ERR_CORRUPT);
  uint8_t bad[sizeof patched + 1];
  memcpy(bad, patched, 26);
  bad[3] = 0xe1; /* patch gap width 8: entry = gap 255, patch 1 -> position past the 20 values */
  bad[26] = 0xff;
  bad[27] = 0x00;
  bad[28] = 0x10;
  CHECK(decode_all(bad, sizeof bad, 1, 1, out, 20, &err) == PAIMON_ERR_CORRUPT);
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static void roundtrip(const int64_t *v, size_t n, int sig) {
  pm_buf b;
  pm_buf_init(&b);
  CHECK(pm_orc_encode_int_rle_v2(v, n, sig, &b) == 0);
  int64_t *out = malloc((n + 1) * sizeof *out);
  pm_error err;
  CHECK_OK(decode_all(b.data, b.len, 1, sig, out, n, &err), &err);
  size_t bad = 0;
  for (size_t i = 0; i < n; i++) bad += out[i] != v[i];
  CHECK_EQ_INT(bad, 0);
  free(out);
  pm_buf_free(&b);
}

static void test_encode_roundtrip(void) {
  enum { N = 5000 };
  int64_t *v = malloc(N * sizeof *v);
  for (int shape = 0; shape < 8; shape++) {
    for (size_t i = 0; i < N; i++) {
      switch (shape) {
        case 0: v[i] = 42; break;
        case 1: v[i] = (int64_t)i * 3 - 100; break;
        case 2: v[i] = (int64_t)(next_rand() % 1000) - 500; break;
        case 3: v[i] = (int64_t)next_rand(); break;
        case 4: v[i] = (i % 17 < 12) ? 7 : (int64_t)(next_rand() % 5); break;
        case 5: v[i] = 1000000 - (int64_t)i * (int64_t)(next_rand() % 3); break;
        case 6: v[i] = i % 2 ? INT64_MIN : INT64_MAX; break;
        default: v[i] = (int64_t)(i * i); break;
      }
    }
    roundtrip(v, N, 1);
    if (shape != 3 && shape != 6 && shape != 2 && shape != 1) roundtrip(v, N, 0);
    roundtrip(v, 1, 1);
    roundtrip(v, 2, 1);
    roundtrip(v, 3, 1);
  }
  /* every bit width of direct runs (fast and tail unpacking paths) */
  for (int wbits = 1; wbits <= 64; wbits++) {
    uint64_t mask = wbits == 64 ? ~0ull : ((1ull << wbits) - 1);
    for (size_t i = 0; i < 700; i++) v[i] = (int64_t)(next_rand() & mask);
    roundtrip(v, 700, 0);
    roundtrip(v, 13, 0);
  }
  /* byte and boolean RLE */
  uint8_t *bytes = malloc(N), *bools = malloc(N), *out = malloc(N);
  for (size_t i = 0; i < N; i++) {
    bytes[i] = (i % 300 < 150) ? 9 : (uint8_t)next_rand();
    bools[i] = (i % 100 < 70) ? 1 : (uint8_t)(next_rand() & 1);
  }
  pm_buf b;
  pm_buf_init(&b);
  pm_error err;
  CHECK(pm_orc_encode_byte_rle(bytes, N, &b) == 0);
  pm_orc_stream s = mk(b.data, b.len);
  pm_orc_byte_rle d;
  pm_orc_byte_rle_init(&d, &s);
  CHECK_OK(pm_orc_byte_rle_next(&d, out, N, &err), &err);
  CHECK(memcmp(out, bytes, N) == 0);
  b.len = 0;
  CHECK(pm_orc_encode_bool_rle(bools, N, &b) == 0);
  s = mk(b.data, b.len);
  pm_orc_bool_rle bd;
  pm_orc_bool_rle_init(&bd, &s);
  CHECK_OK(pm_orc_bool_rle_next(&bd, out, N, &err), &err);
  CHECK(memcmp(out, bools, N) == 0);
  pm_buf_free(&b);
  free(bytes);
  free(bools);
  free(out);
  free(v);
}

static void test_protobuf(void) {
  pm_error err;
  pm_buf b;
  pm_buf_init(&b);
  CHECK(pm_pbw_uint(&b, 1, 300) == 0);
  CHECK(pm_pbw_str(&b, 2, "abc") == 0);
  CHECK(pm_pbw_sint(&b, 3, -5) == 0);
  CHECK(pm_pbw_double(&b, 9, 1.5) == 0);
  uint64_t packed[3] = {1, 2, 1000};
  CHECK(pm_pbw_packed(&b, 4, packed, 3) == 0);
  CHECK(pm_pbw_uint(&b, 8000, 7) == 0);
  static const uint8_t head[] = {0x08, 0xac, 0x02, 0x12, 0x03, 'a', 'b', 'c', 0x18, 0x09};
  CHECK(memcmp(b.data, head, sizeof head) == 0);
  pm_pb pb;
  pm_pb_init(&pb, b.data, b.len, "mem", "test");
  uint32_t f, w;
  uint64_t v;
  CHECK_OK(pm_pb_key(&pb, &f, &w, &err), &err);
  CHECK(f == 1 && w == PM_PB_VARINT);
  CHECK_OK(pm_pb_uint(&pb, w, &v, &err), &err);
  CHECK_EQ_INT(v, 300);
  CHECK_OK(pm_pb_key(&pb, &f, &w, &err), &err);
  CHECK_OK(pm_pb_skip(&pb, w, &err), &err); /* unknown field skipped */
  CHECK_OK(pm_pb_key(&pb, &f, &w, &err), &err);
  CHECK_OK(pm_pb_uint(&pb, w, &v, &err), &err);
  CHECK_EQ_INT(pm_zigzag_decode(v), -5);
  CHECK_OK(pm_pb_key(&pb, &f, &w, &err), &err);
  CHECK(f == 9 && w == PM_PB_FIXED64);
  CHECK_OK(pm_pb_skip(&pb, w, &err), &err);
  CHECK_OK(pm_pb_key(&pb, &f, &w, &err), &err);
  uint64_t *vals = NULL;
  size_t n = 0, cap = 0;
  CHECK_OK(pm_pb_repeated_uint(&pb, w, &vals, &n, &cap, &err), &err);
  CHECK(n == 3 && vals[2] == 1000);
  free(vals);
  CHECK_OK(pm_pb_key(&pb, &f, &w, &err), &err);
  CHECK_EQ_INT(f, 8000);
  CHECK_OK(pm_pb_skip(&pb, w, &err), &err);
  CHECK(!pm_pb_more(&pb));
  /* corrupt: length past the end, overlong varint, bad wire type */
  static const uint8_t c1[] = {0x12, 0x05, 'a'};
  pm_pb_init(&pb, c1, sizeof c1, "mem", "test");
  CHECK_OK(pm_pb_key(&pb, &f, &w, &err), &err);
  CHECK(pm_pb_skip(&pb, w, &err) == PAIMON_ERR_CORRUPT);
  CHECK(strstr(err.message, "past the end") != NULL);
  static const uint8_t c2[] = {0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
  pm_pb_init(&pb, c2, sizeof c2, "mem", "test");
  CHECK_OK(pm_pb_key(&pb, &f, &w, &err), &err);
  CHECK(pm_pb_uint(&pb, w, &v, &err) == PAIMON_ERR_CORRUPT);
  static const uint8_t c3[] = {0x0f};
  pm_pb_init(&pb, c3, sizeof c3, "mem", "test");
  CHECK_OK(pm_pb_key(&pb, &f, &w, &err), &err);
  CHECK(pm_pb_skip(&pb, w, &err) == PAIMON_ERR_CORRUPT);
  pm_buf_free(&b);
}

int main(void) {
  RUN_TEST(test_byte_rle);
  RUN_TEST(test_bool_rle);
  RUN_TEST(test_int_rle_v1);
  RUN_TEST(test_int_rle_v2);
  RUN_TEST(test_encode_roundtrip);
  RUN_TEST(test_protobuf);
  TEST_MAIN_END();
}
