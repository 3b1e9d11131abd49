#include "arrow/bits.h"

#include <string.h>

void pm_bits_set_range(uint8_t *bits, int64_t off, int64_t n, int value) {
  int64_t i = off, end = off + n;
  for (; i < end && (i & 7); i++) {
    if (value)
      bits[i >> 3] |= (uint8_t)(1u << (i & 7));
    else
      bits[i >> 3] &= (uint8_t)~(1u << (i & 7));
  }
  if (end - i >= 8) {
    int64_t bytes = (end - i) >> 3;
    memset(bits + (i >> 3), value ? 0xff : 0, (size_t)bytes);
    i += bytes << 3;
  }
  for (; i < end; i++) {
    if (value)
      bits[i >> 3] |= (uint8_t)(1u << (i & 7));
    else
      bits[i >> 3] &= (uint8_t)~(1u << (i & 7));
  }
}

int64_t pm_bits_count(const uint8_t *bits, int64_t off, int64_t n) {
  int64_t i = off, end = off + n, c = 0;
  for (; i < end && (i & 7); i++) c += (bits[i >> 3] >> (i & 7)) & 1;
  for (; i + 64 <= end; i += 64) {
    uint64_t w;
    memcpy(&w, bits + (i >> 3), 8);
    c += __builtin_popcountll(w);
  }
  for (; i + 8 <= end; i += 8) c += __builtin_popcount(bits[i >> 3]);
  for (; i < end; i++) c += (bits[i >> 3] >> (i & 7)) & 1;
  return c;
}

void pm_bits_copy(uint8_t *dst, int64_t dst_off, const uint8_t *src, int64_t src_off, int64_t n) {
  int64_t i = 0;
  if (((dst_off ^ src_off) & 7) == 0) {
    /* Same bit phase: copy head bits, then whole bytes. */
    for (; i < n && ((dst_off + i) & 7); i++) {
      int64_t d = dst_off + i, s = src_off + i;
      if ((src[s >> 3] >> (s & 7)) & 1)
        dst[d >> 3] |= (uint8_t)(1u << (d & 7));
      else
        dst[d >> 3] &= (uint8_t)~(1u << (d & 7));
    }
    int64_t bytes = (n - i) >> 3;
    if (bytes > 0) {
      memcpy(dst + ((dst_off + i) >> 3), src + ((src_off + i) >> 3), (size_t)bytes);
      i += bytes << 3;
    }
  } else {
    /* Different phase: assemble whole destination bytes from two source bytes. */
    for (; i < n && ((dst_off + i) & 7); i++) {
      int64_t d = dst_off + i, s = src_off + i;
      if ((src[s >> 3] >> (s & 7)) & 1)
        dst[d >> 3] |= (uint8_t)(1u << (d & 7));
      else
        dst[d >> 3] &= (uint8_t)~(1u << (d & 7));
    }
    for (; i + 8 <= n; i += 8) {
      int64_t s = src_off + i;
      int shift = (int)(s & 7);
      unsigned v = src[s >> 3] >> shift;
      if (shift) v |= (unsigned)src[(s >> 3) + 1] << (8 - shift);
      dst[(dst_off + i) >> 3] = (uint8_t)v;
    }
  }
  for (; i < n; i++) {
    int64_t d = dst_off + i, s = src_off + i;
    if ((src[s >> 3] >> (s & 7)) & 1)
      dst[d >> 3] |= (uint8_t)(1u << (d & 7));
    else
      dst[d >> 3] &= (uint8_t)~(1u << (d & 7));
  }
}
