/*
 * Parquet value and level encodings, decoding into caller buffers.
 * All functions bounds-check their input; on malformed input they return a
 * non-zero value (or a static reason in *why) and the caller reports the
 * file, column and page. No allocation happens here.
 */
#ifndef PM_PARQUET_DECODE_H
#define PM_PARQUET_DECODE_H

#include <stddef.h>
#include <stdint.h>

/* Unpacks n little-endian bit-packed values of width w (0..32) starting at
 * value index `first` of src (src_len bytes). Values beyond src are 0
 * (callers check sizes first). */
void pm_pq_unpack32(const uint8_t *src, size_t src_len, int w, size_t first, uint32_t *out, size_t n);

/* RLE / bit-packing hybrid decoder (levels, booleans, dictionary indices). */
typedef struct pm_pq_rle {
  const uint8_t *p, *end;
  int bit_width;
  uint32_t rle_left;     /* values left in the current RLE run */
  uint32_t rle_value;
  uint32_t packed_left;  /* values left in the current bit-packed run */
  const uint8_t *packed; /* start of the current bit-packed run */
  size_t packed_len;     /* bytes available for it */
  size_t packed_pos;     /* next value index within the run */
} pm_pq_rle;

void pm_pq_rle_init(pm_pq_rle *d, const uint8_t *data, size_t len, int bit_width);
/* Decodes exactly n values. Returns 0, or -1 when the data runs out or is malformed. */
int pm_pq_rle_u32(pm_pq_rle *d, uint32_t *out, size_t n);
int pm_pq_rle_i16(pm_pq_rle *d, int16_t *out, size_t n);
int pm_pq_rle_u8(pm_pq_rle *d, uint8_t *out, size_t n);
/* Like pm_pq_rle_u32 but fails (-2) if any value is >= limit (dictionary indices). */
int pm_pq_rle_u32_checked(pm_pq_rle *d, uint32_t *out, size_t n, uint32_t limit);

/* Legacy BIT_PACKED levels (most significant bit first). Needs ceil(n*w/8) bytes. */
int pm_pq_bitpacked_msb_i16(const uint8_t *src, size_t len, int w, int16_t *out, size_t n);

/* Bit width needed for values 0..max. */
int pm_pq_bit_width(uint32_t max);

/* DELTA_BINARY_PACKED. Reads the header total count. */
int pm_pq_delta_count(const uint8_t *src, size_t len, uint64_t *total, const char **why);
/* Decodes all `total` values (from pm_pq_delta_count; out has room for them).
 * *consumed = bytes used. Arithmetic wraps (two's complement). */
int pm_pq_delta_decode(const uint8_t *src, size_t len, int64_t *out, uint64_t total, size_t *consumed,
                       const char **why);

/* PLAIN BYTE_ARRAY: compacts n length-prefixed values in place (buf) into
 * contiguous bytes at buf and offsets[0..n] (offsets[0] = 0). *consumed =
 * input bytes used. */
int pm_pq_plain_byte_array_compact(uint8_t *buf, size_t len, size_t n, uint32_t *offsets, size_t *consumed,
                                   const char **why);

/* BYTE_STREAM_SPLIT: n values of width bytes each from src (n*width bytes). */
void pm_pq_byte_stream_split(const uint8_t *src, size_t n, int width, uint8_t *out);

/* Plain booleans (bit-packed LSB first) to 0/1 bytes, starting at bit `first`. */
void pm_pq_unpack_bools(const uint8_t *src, size_t first, uint8_t *out, size_t n);

/* ---- Level blocks: 16 int16 levels compared at once -------------------
 * Bit j of a mask describes level p[j]. Levels are small non-negative
 * numbers; thresholds are in 0..INT16_MAX. SSE2 where available (every
 * x86-64), else plain loops with the same results. */
#if defined(__SSE2__)
#include <emmintrin.h>
static inline unsigned pm_pq_lv_mask_gt16(const int16_t *p, int16_t k) { /* p[j] > k */
  __m128i kk = _mm_set1_epi16(k);
  __m128i a = _mm_cmpgt_epi16(_mm_loadu_si128((const __m128i *)(const void *)p), kk);
  __m128i b = _mm_cmpgt_epi16(_mm_loadu_si128((const __m128i *)(const void *)(p + 8)), kk);
  return (unsigned)_mm_movemask_epi8(_mm_packs_epi16(a, b));
}
static inline unsigned pm_pq_lv_mask_eq16(const int16_t *p, int16_t k) { /* p[j] == k */
  __m128i kk = _mm_set1_epi16(k);
  __m128i a = _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i *)(const void *)p), kk);
  __m128i b = _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i *)(const void *)(p + 8)), kk);
  return (unsigned)_mm_movemask_epi8(_mm_packs_epi16(a, b));
}
/* dst[j] = p[j] > k (0 or 1); returns the mask. */
static inline unsigned pm_pq_lv_bytes_gt16(uint8_t *dst, const int16_t *p, int16_t k) {
  __m128i kk = _mm_set1_epi16(k);
  __m128i a = _mm_cmpgt_epi16(_mm_loadu_si128((const __m128i *)(const void *)p), kk);
  __m128i b = _mm_cmpgt_epi16(_mm_loadu_si128((const __m128i *)(const void *)(p + 8)), kk);
  __m128i m = _mm_packs_epi16(a, b);
  _mm_storeu_si128((__m128i *)(void *)dst, _mm_and_si128(m, _mm_set1_epi8(1)));
  return (unsigned)_mm_movemask_epi8(m);
}
#else
static inline unsigned pm_pq_lv_mask_gt16(const int16_t *p, int16_t k) {
  unsigned m = 0;
  for (int j = 0; j < 16; j++) m |= (unsigned)(p[j] > k) << j;
  return m;
}
static inline unsigned pm_pq_lv_mask_eq16(const int16_t *p, int16_t k) {
  unsigned m = 0;
  for (int j = 0; j < 16; j++) m |= (unsigned)(p[j] == k) << j;
  return m;
}
static inline unsigned pm_pq_lv_bytes_gt16(uint8_t *dst, const int16_t *p, int16_t k) {
  unsigned m = 0;
  for (int j = 0; j < 16; j++) {
    dst[j] = (uint8_t)(p[j] > k);
    m |= (unsigned)dst[j] << j;
  }
  return m;
}
#endif

/* out[j] = number of bits of m below bit j (exclusive prefix counts). */
static inline void pm_pq_prefix16(unsigned m, uint8_t out[16]) {
#if defined(__SSE2__)
  const __m128i bits = _mm_set_epi8(-128, 64, 32, 16, 8, 4, 2, 1, -128, 64, 32, 16, 8, 4, 2, 1);
  __m128i x = _mm_unpacklo_epi64(_mm_set1_epi8((char)(m & 0xffu)), _mm_set1_epi8((char)((m >> 8) & 0xffu)));
  __m128i one = _mm_and_si128(_mm_cmpeq_epi8(_mm_and_si128(x, bits), bits), _mm_set1_epi8(1));
  __m128i p = _mm_add_epi8(one, _mm_slli_si128(one, 1));
  p = _mm_add_epi8(p, _mm_slli_si128(p, 2));
  p = _mm_add_epi8(p, _mm_slli_si128(p, 4));
  p = _mm_add_epi8(p, _mm_slli_si128(p, 8));
  _mm_storeu_si128((__m128i *)(void *)out, _mm_sub_epi8(p, one));
#else
  uint8_t c = 0;
  for (int j = 0; j < 16; j++) {
    out[j] = c;
    c = (uint8_t)(c + ((m >> j) & 1u));
  }
#endif
}

static inline unsigned pm_pq_pop16(unsigned x) { /* portable: no popcnt instruction assumed */
  x = x - ((x >> 1) & 0x5555u);
  x = (x & 0x3333u) + ((x >> 2) & 0x3333u);
  x = (x + (x >> 4)) & 0x0f0fu;
  return (x + (x >> 8)) & 0x1fu;
}

/* Counts levels equal to `max` among n; returns -1 if any level exceeds max. */
static inline int64_t pm_pq_count_max_levels(const int16_t *d, size_t n, int16_t max) {
  size_t c = 0, i = 0;
  unsigned bad = 0;
  for (; i + 16 <= n; i += 16) {
    c += pm_pq_pop16(pm_pq_lv_mask_eq16(d + i, max));
    bad |= pm_pq_lv_mask_gt16(d + i, max);
  }
  for (; i < n; i++) {
    c += d[i] == max;
    bad |= d[i] > max;
  }
  return bad ? -1 : (int64_t)c;
}

#endif
