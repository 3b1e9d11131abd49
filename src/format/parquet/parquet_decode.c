#include "format/parquet/parquet_decode.h"

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the Parquet decoder assumes a little-endian host"
#endif

static inline uint64_t load64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

/* Unpacks `groups` groups of 8 values of constant width W; each group is W bytes.
 * The caller guarantees 8 readable bytes past the last value's first byte. */
#define PM_UNPACK8(W)                                                                         \
  static void unpack8_##W(const uint8_t *p, uint32_t *out, size_t groups) {                   \
    const uint64_t m = (W) == 32 ? 0xffffffffull : ((1ull << ((W) & 63)) - 1);                \
    for (size_t g = 0; g < groups; g++, p += (W), out += 8) {                                 \
      out[0] = (uint32_t)((load64(p + (0 * (W)) / 8) >> ((0 * (W)) % 8)) & m);                \
      out[1] = (uint32_t)((load64(p + (1 * (W)) / 8) >> ((1 * (W)) % 8)) & m);                \
      out[2] = (uint32_t)((load64(p + (2 * (W)) / 8) >> ((2 * (W)) % 8)) & m);                \
      out[3] = (uint32_t)((load64(p + (3 * (W)) / 8) >> ((3 * (W)) % 8)) & m);                \
      out[4] = (uint32_t)((load64(p + (4 * (W)) / 8) >> ((4 * (W)) % 8)) & m);                \
      out[5] = (uint32_t)((load64(p + (5 * (W)) / 8) >> ((5 * (W)) % 8)) & m);                \
      out[6] = (uint32_t)((load64(p + (6 * (W)) / 8) >> ((6 * (W)) % 8)) & m);                \
      out[7] = (uint32_t)((load64(p + (7 * (W)) / 8) >> ((7 * (W)) % 8)) & m);                \
    }                                                                                         \
  }
PM_UNPACK8(1) PM_UNPACK8(2) PM_UNPACK8(3) PM_UNPACK8(4) PM_UNPACK8(5) PM_UNPACK8(6) PM_UNPACK8(7) PM_UNPACK8(8)
PM_UNPACK8(9) PM_UNPACK8(10) PM_UNPACK8(11) PM_UNPACK8(12) PM_UNPACK8(13) PM_UNPACK8(14) PM_UNPACK8(15)
PM_UNPACK8(16) PM_UNPACK8(17) PM_UNPACK8(18) PM_UNPACK8(19) PM_UNPACK8(20) PM_UNPACK8(21) PM_UNPACK8(22)
PM_UNPACK8(23) PM_UNPACK8(24) PM_UNPACK8(25) PM_UNPACK8(26) PM_UNPACK8(27) PM_UNPACK8(28) PM_UNPACK8(29)
PM_UNPACK8(30) PM_UNPACK8(31) PM_UNPACK8(32)

typedef void (*unpack8_fn)(const uint8_t *, uint32_t *, size_t);
static const unpack8_fn unpack8_table[33] = {
    NULL,        unpack8_1,  unpack8_2,  unpack8_3,  unpack8_4,  unpack8_5,  unpack8_6,  unpack8_7,  unpack8_8,
    unpack8_9,   unpack8_10, unpack8_11, unpack8_12, unpack8_13, unpack8_14, unpack8_15, unpack8_16, unpack8_17,
    unpack8_18,  unpack8_19, unpack8_20, unpack8_21, unpack8_22, unpack8_23, unpack8_24, unpack8_25, unpack8_26,
    unpack8_27,  unpack8_28, unpack8_29, unpack8_30, unpack8_31, unpack8_32};

static void unpack_generic(const uint8_t *src, size_t src_len, int w, size_t first, uint32_t *out, size_t n) {
  const uint64_t mask = w == 32 ? 0xffffffffull : ((1ull << w) - 1);
  size_t i = 0;
  if (src_len >= 8) {
    size_t safe_bits = (src_len - 8) * 8;
    for (; i < n; i++) {
      size_t bit = (first + i) * (size_t)w;
      if (bit > safe_bits) break;
      out[i] = (uint32_t)((load64(src + (bit >> 3)) >> (bit & 7)) & mask);
    }
  }
  for (; i < n; i++) {
    size_t bit = (first + i) * (size_t)w;
    uint8_t tmp[16] = {0};
    size_t byte = bit >> 3;
    if (byte < src_len) memcpy(tmp, src + byte, src_len - byte < 8 ? src_len - byte : 8);
    out[i] = (uint32_t)((load64(tmp) >> (bit & 7)) & mask);
  }
}

void pm_pq_unpack32(const uint8_t *src, size_t src_len, int w, size_t first, uint32_t *out, size_t n) {
  if (w == 0) {
    memset(out, 0, n * sizeof *out);
    return;
  }
  /* head up to a multiple of 8 values */
  size_t head = (8 - (first & 7)) & 7;
  if (head > n) head = n;
  if (head) unpack_generic(src, src_len, w, first, out, head);
  size_t done = head, pos = first + head;
  /* whole groups while the unaligned 8-byte loads stay inside src */
  size_t group_start = pos / 8 * (size_t)w;
  size_t groups = (n - done) / 8;
  if (groups && src_len >= (size_t)w + 8) {
    size_t max_groups = (src_len - 8) / (size_t)w; /* groups g with (g + 1) * w + 8 <= src_len */
    if (group_start / (size_t)w < max_groups) {
      size_t avail = max_groups - group_start / (size_t)w;
      if (groups > avail) groups = avail;
    } else {
      groups = 0;
    }
    if (groups) {
      unpack8_table[w](src + group_start, out + done, groups);
      done += groups * 8;
      pos += groups * 8;
    }
  }
  if (done < n) unpack_generic(src, src_len, w, pos, out + done, n - done);
}

void pm_pq_rle_init(pm_pq_rle *d, const uint8_t *data, size_t len, int bit_width) {
  memset(d, 0, sizeof *d);
  d->p = data;
  d->end = data + len;
  d->bit_width = bit_width;
}

/* Reads the next run header. Returns 0 or -1. */
static int rle_next_run(pm_pq_rle *d) {
  uint64_t h = 0;
  int shift = 0;
  for (;;) {
    if (d->p >= d->end || shift > 35) return -1;
    uint8_t b = *d->p++;
    h |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) break;
    shift += 7;
  }
  if (h & 1) {
    uint64_t groups = h >> 1;
    if (groups == 0) return -1;
    size_t bytes = (size_t)groups * (size_t)d->bit_width;
    size_t avail = (size_t)(d->end - d->p);
    uint64_t values = groups * 8;
    if (bytes > avail) {
      /* Tolerate a short final run: only the values whose bits are present. */
      if (d->bit_width == 0) return -1;
      values = (uint64_t)avail * 8 / (uint64_t)d->bit_width;
      bytes = avail;
      if (values == 0) return -1;
    }
    d->packed = d->p;
    /* Unpacking may load (and mask away) bytes past the run: allow the whole
     * remaining buffer so the fast 8-byte loads apply to short runs too. */
    d->packed_len = (size_t)(d->end - d->p);
    d->packed_pos = 0;
    d->packed_left = (uint32_t)values;
    d->p += bytes;
  } else {
    uint64_t count = h >> 1;
    if (count == 0) return -1;
    int nb = (d->bit_width + 7) / 8;
    if ((size_t)(d->end - d->p) < (size_t)nb) return -1;
    uint32_t v = 0;
    for (int i = 0; i < nb; i++) v |= (uint32_t)d->p[i] << (8 * i);
    d->p += nb;
    if (d->bit_width < 32 && (v >> d->bit_width)) return -1;
    d->rle_value = v;
    d->rle_left = (uint32_t)(count > 0xffffffffu ? 0xffffffffu : count);
  }
  return 0;
}

/* Run fills with 8-byte stores (a 2-byte store per value is the bottleneck
 * of long runs of levels). */
static void fill_u16(uint16_t *out, uint16_t v, size_t k) {
  uint64_t w = v * 0x0001000100010001ull;
  size_t i = 0;
  for (; i + 4 <= k; i += 4) memcpy(out + i, &w, 8);
  for (; i < k; i++) out[i] = v;
}

static void fill_u32(uint32_t *out, uint32_t v, size_t k) {
  uint64_t w = v * 0x0000000100000001ull;
  size_t i = 0;
  for (; i + 2 <= k; i += 2) memcpy(out + i, &w, 8);
  for (; i < k; i++) out[i] = v;
}

/* Narrows values below 2^15 (levels) to int16. */
static void narrow_i16(const uint32_t *src, int16_t *dst, size_t n) {
  size_t i = 0;
#if defined(__SSE2__)
  for (; i + 8 <= n; i += 8) {
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(src + i));
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(src + i + 4));
    _mm_storeu_si128((__m128i *)(void *)(dst + i), _mm_packs_epi32(a, b));
  }
#endif
  for (; i < n; i++) dst[i] = (int16_t)src[i];
}

int pm_pq_rle_u32(pm_pq_rle *d, uint32_t *out, size_t n) {
  if (d->bit_width == 0) { /* all zeros, no data needed */
    memset(out, 0, n * sizeof *out);
    return 0;
  }
  size_t done = 0;
  while (done < n) {
    if (d->rle_left) {
      size_t k = n - done < d->rle_left ? n - done : d->rle_left;
      fill_u32(out + done, d->rle_value, k);
      d->rle_left -= (uint32_t)k;
      done += k;
    } else if (d->packed_left) {
      size_t k = n - done < d->packed_left ? n - done : d->packed_left;
      pm_pq_unpack32(d->packed, d->packed_len, d->bit_width, d->packed_pos, out + done, k);
      d->packed_pos += k;
      d->packed_left -= (uint32_t)k;
      done += k;
    } else if (rle_next_run(d)) {
      return -1;
    }
  }
  return 0;
}

/* True if any of v[0..n) is >= limit (unsigned). */
static int any_at_least(const uint32_t *v, size_t n, uint32_t limit) {
  if (limit == 0) return n > 0;
  size_t i = 0;
#if defined(__SSE2__)
  /* unsigned v > limit - 1 as a signed compare of both sides offset by 2^31 */
  const __m128i bias = _mm_set1_epi32((int)0x80000000u);
  const __m128i lim = _mm_xor_si128(_mm_set1_epi32((int)(limit - 1)), bias);
  __m128i bad = _mm_setzero_si128();
  for (; i + 4 <= n; i += 4) {
    __m128i x = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(v + i)), bias);
    bad = _mm_or_si128(bad, _mm_cmpgt_epi32(x, lim));
  }
  if (_mm_movemask_epi8(bad)) return 1;
#endif
  uint32_t mx = 0;
  for (; i < n; i++) mx = v[i] > mx ? v[i] : mx;
  return mx >= limit;
}

int pm_pq_rle_u32_checked(pm_pq_rle *d, uint32_t *out, size_t n, uint32_t limit) {
  if (d->bit_width == 0) {
    if (n && limit == 0) return -2;
    memset(out, 0, n * sizeof *out);
    return 0;
  }
  size_t done = 0;
  while (done < n) {
    if (d->rle_left) {
      size_t k = n - done < d->rle_left ? n - done : d->rle_left;
      if (d->rle_value >= limit) return -2;
      fill_u32(out + done, d->rle_value, k);
      d->rle_left -= (uint32_t)k;
      done += k;
    } else if (d->packed_left) {
      size_t k = n - done < d->packed_left ? n - done : d->packed_left;
      pm_pq_unpack32(d->packed, d->packed_len, d->bit_width, d->packed_pos, out + done, k);
      if (any_at_least(out + done, k, limit)) return -2;
      d->packed_pos += k;
      d->packed_left -= (uint32_t)k;
      done += k;
    } else if (rle_next_run(d)) {
      return -1;
    }
  }
  return 0;
}

int pm_pq_rle_i16(pm_pq_rle *d, int16_t *out, size_t n) {
  if (d->bit_width == 0) {
    memset(out, 0, n * sizeof *out);
    return 0;
  }
  const int wide = d->bit_width > 15; /* values may not fit the signed narrowing */
  size_t done = 0;
  while (done < n) {
    if (d->rle_left) {
      size_t k = n - done < d->rle_left ? n - done : d->rle_left;
      fill_u16((uint16_t *)(void *)(out + done), (uint16_t)d->rle_value, k);
      d->rle_left -= (uint32_t)k;
      done += k;
    } else if (d->packed_left) {
      size_t k = n - done < d->packed_left ? n - done : d->packed_left;
      uint32_t tmp[256];
      for (size_t j = 0; j < k;) {
        size_t c = k - j < 256 ? k - j : 256;
        pm_pq_unpack32(d->packed, d->packed_len, d->bit_width, d->packed_pos, tmp, c);
        if (wide) {
          for (size_t i = 0; i < c; i++) out[done + j + i] = (int16_t)tmp[i];
        } else {
          narrow_i16(tmp, out + done + j, c);
        }
        d->packed_pos += c;
        j += c;
      }
      d->packed_left -= (uint32_t)k;
      done += k;
    } else if (rle_next_run(d)) {
      return -1;
    }
  }
  return 0;
}

int pm_pq_rle_u8(pm_pq_rle *d, uint8_t *out, size_t n) {
  if (d->bit_width == 0) {
    memset(out, 0, n);
    return 0;
  }
  size_t done = 0;
  while (done < n) {
    if (d->rle_left) {
      size_t k = n - done < d->rle_left ? n - done : d->rle_left;
      memset(out + done, (int)(uint8_t)d->rle_value, k);
      d->rle_left -= (uint32_t)k;
      done += k;
    } else if (d->packed_left) {
      size_t k = n - done < d->packed_left ? n - done : d->packed_left;
      uint32_t tmp[256];
      for (size_t j = 0; j < k;) {
        size_t c = k - j < 256 ? k - j : 256;
        pm_pq_unpack32(d->packed, d->packed_len, d->bit_width, d->packed_pos, tmp, c);
        for (size_t i = 0; i < c; i++) out[done + j + i] = (uint8_t)tmp[i];
        d->packed_pos += c;
        j += c;
      }
      d->packed_left -= (uint32_t)k;
      done += k;
    } else if (rle_next_run(d)) {
      return -1;
    }
  }
  return 0;
}

int pm_pq_bitpacked_msb_i16(const uint8_t *src, size_t len, int w, int16_t *out, size_t n) {
  if (((uint64_t)n * (uint64_t)w + 7) / 8 > len) return -1;
  size_t bit = 0;
  for (size_t i = 0; i < n; i++) {
    uint32_t v = 0;
    for (int b = 0; b < w; b++, bit++) v = (v << 1) | ((src[bit >> 3] >> (7 - (bit & 7))) & 1);
    out[i] = (int16_t)v;
  }
  return 0;
}

int pm_pq_bit_width(uint32_t max) {
  int w = 0;
  while (w < 32 && (max >> w)) w++;
  return w;
}

static int read_uvarint(const uint8_t **p, const uint8_t *end, uint64_t *out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*p >= end) return -1;
    uint8_t b = *(*p)++;
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *out = v;
      return 0;
    }
  }
  return -1;
}

static int read_zigzag(const uint8_t **p, const uint8_t *end, int64_t *out) {
  uint64_t v;
  if (read_uvarint(p, end, &v)) return -1;
  *out = (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
  return 0;
}

int pm_pq_delta_count(const uint8_t *src, size_t len, uint64_t *total, const char **why) {
  const uint8_t *p = src, *end = src + len;
  uint64_t block, mini;
  if (read_uvarint(&p, end, &block) || read_uvarint(&p, end, &mini) || read_uvarint(&p, end, total)) {
    *why = "truncated DELTA_BINARY_PACKED header";
    return -1;
  }
  return 0;
}

static uint64_t unpack64_one(const uint8_t *src, size_t len, int w, size_t idx) {
  if (w == 0) return 0;
  size_t bit = idx * (size_t)w;
  uint8_t tmp[16] = {0};
  size_t byte = bit >> 3;
  if (byte < len) memcpy(tmp, src + byte, len - byte < 16 ? len - byte : 16);
  unsigned sh = bit & 7;
  uint64_t lo = load64(tmp) >> sh;
  if (sh && w + (int)sh > 64) lo |= load64(tmp + 8) << (64 - sh);
  return w == 64 ? lo : (lo & ((1ull << w) - 1));
}

int pm_pq_delta_decode(const uint8_t *src, size_t len, int64_t *out, uint64_t total, size_t *consumed,
                       const char **why) {
  const uint8_t *p = src, *end = src + len;
  uint64_t block, mini, count;
  int64_t first;
  if (read_uvarint(&p, end, &block) || read_uvarint(&p, end, &mini) || read_uvarint(&p, end, &count) ||
      read_zigzag(&p, end, &first)) {
    *why = "truncated DELTA_BINARY_PACKED header";
    return -1;
  }
  if (block == 0 || mini == 0 || block % 128 != 0 || block > (1u << 20) || mini > block || (block / mini) % 32 != 0) {
    *why = "invalid DELTA_BINARY_PACKED block sizes";
    return -1;
  }
  if (count != total) {
    *why = "DELTA_BINARY_PACKED count mismatch";
    return -1;
  }
  uint64_t per_mini = block / mini;
  if (total == 0) {
    *consumed = (size_t)(p - src);
    return 0;
  }
  uint64_t acc = (uint64_t)first;
  out[0] = first;
  uint64_t done = 1;
  while (done < total) {
    int64_t min_delta;
    if (read_zigzag(&p, end, &min_delta)) {
      *why = "truncated DELTA_BINARY_PACKED block header";
      return -1;
    }
    if ((uint64_t)(end - p) < mini) {
      *why = "truncated DELTA_BINARY_PACKED bit widths";
      return -1;
    }
    const uint8_t *widths = p;
    p += mini;
    for (uint64_t m = 0; m < mini && done < total; m++) {
      int w = widths[m];
      if (w > 64) {
        *why = "DELTA_BINARY_PACKED bit width above 64";
        return -1;
      }
      size_t bytes = (size_t)(per_mini * (uint64_t)w / 8);
      uint64_t k = total - done < per_mini ? total - done : per_mini;
      size_t need = (size_t)((k * (uint64_t)w + 7) / 8);
      size_t avail = (size_t)(end - p);
      if (need > avail) {
        *why = "truncated DELTA_BINARY_PACKED miniblock";
        return -1;
      }
      if (w <= 32) {
        uint32_t tmp[64];
        for (uint64_t j = 0; j < k;) {
          size_t c = k - j < 64 ? (size_t)(k - j) : 64;
          pm_pq_unpack32(p, bytes < avail ? bytes : avail, w, (size_t)j, tmp, c);
          for (size_t i = 0; i < c; i++) {
            acc += (uint64_t)min_delta + tmp[i];
            out[done + j + i] = (int64_t)acc;
          }
          j += c;
        }
      } else {
        for (uint64_t j = 0; j < k; j++) {
          acc += (uint64_t)min_delta + unpack64_one(p, bytes < avail ? bytes : avail, w, (size_t)j);
          out[done + j] = (int64_t)acc;
        }
      }
      done += k;
      p += bytes < avail ? bytes : avail;
    }
  }
  *consumed = (size_t)(p - src);
  return 0;
}

int pm_pq_plain_byte_array_compact(uint8_t *buf, size_t len, size_t n, uint32_t *offsets, size_t *consumed,
                                   const char **why) {
  size_t in = 0, outp = 0;
  offsets[0] = 0;
  for (size_t i = 0; i < n; i++) {
    if (len - in < 4) {
      *why = "truncated BYTE_ARRAY length";
      return -1;
    }
    uint32_t l;
    memcpy(&l, buf + in, 4);
    in += 4;
    if (l > len - in) {
      *why = "BYTE_ARRAY value beyond the end of the page";
      return -1;
    }
    if (in - outp >= 16 && l <= 64 && (size_t)((l + 15) & ~15u) <= len - in) {
      /* Short values in 16-byte steps instead of a library call each. The
       * destination is 16 or more bytes below the source, so a step never
       * overwrites source bytes not yet read; the last step may write past
       * the value, below `in + l`, where the bytes are already consumed. */
      for (uint32_t k = 0; k < l; k += 16) memcpy(buf + outp + k, buf + in + k, 16);
    } else {
      memmove(buf + outp, buf + in, l);
    }
    in += l;
    outp += l;
    offsets[i + 1] = (uint32_t)outp;
  }
  *consumed = in;
  return 0;
}

void pm_pq_byte_stream_split(const uint8_t *src, size_t n, int width, uint8_t *out) {
  for (int j = 0; j < width; j++) {
    const uint8_t *s = src + (size_t)j * n;
    for (size_t i = 0; i < n; i++) out[i * (size_t)width + (size_t)j] = s[i];
  }
}

void pm_pq_unpack_bools(const uint8_t *src, size_t first, uint8_t *out, size_t n) {
  for (size_t i = 0; i < n; i++) {
    size_t b = first + i;
    out[i] = (src[b >> 3] >> (b & 7)) & 1;
  }
}
