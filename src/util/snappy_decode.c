/* Raw Snappy block decoder. Layout of the input (see snappy_decode.h):
 *   preamble: uncompressed length, little-endian base-128 varint
 *   elements, each starting with a tag byte whose low two bits give the kind:
 *     00 literal: length-1 in the upper six bits when < 60, else 60..63 mean
 *        1..4 little-endian bytes holding length-1 follow the tag
 *     01 copy, length 4..11 in bits 2..4, 11-bit offset: bits 5..7 + one byte
 *     10 copy, length 1..64 in bits 2..7, 2-byte little-endian offset
 *     11 copy, length 1..64 in bits 2..7, 4-byte little-endian offset
 *
 * Speed: while both the input and the output have at least a few dozen bytes
 * of slack, elements are decoded with fixed-size unaligned 16-byte (or 8-byte)
 * copies that may write past the element's end into output not yet produced
 * (later elements overwrite it) and may read past a short literal's end (still
 * inside the input). Close to either end an exact loop checks every byte.
 * Copies from recent output read exactly their source bytes: a load that
 * spans bytes of two recent stores cannot be served from the store buffer
 * and stalls until both reach the cache, which made integer columns (1-byte
 * literal + 7-byte copy at offset 8, repeated) twice as slow. */
#include "util/snappy_decode.h"

#include <string.h>

/* Multi-byte loads and the pattern arithmetic below read bytes as integers. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the snappy decoder assumes a little-endian host"
#endif

#if defined(__GNUC__) || defined(__clang__)
#define SNAPPY_LIKELY(x) __builtin_expect(!!(x), 1)
#define SNAPPY_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define SNAPPY_LIKELY(x) (x)
#define SNAPPY_UNLIKELY(x) (x)
#endif

/* The fast loop runs only while this many input / output bytes remain. Input:
 * tag + a 4-byte trailer load + a literal of up to 60 bytes copied as 64.
 * Output: a copy of up to 64 bytes written in 16-byte steps overshoots by < 16. */
#define FAST_INPUT_SLACK 72
#define FAST_OUTPUT_SLACK 80

/* Per tag byte: bits 0..6 the element length (0 for a literal whose length
 * follows the tag), bits 8..10 how many bytes follow the tag (length bytes of
 * a long literal, offset bytes of a copy), bits 11..13 the offset's high bits
 * kept in the tag of a 1-byte-offset copy. */
#define TAG_FIELD(t) ((unsigned)(t) >> 2)
#define TAG_ENTRY(t)                                                                         \
  (uint16_t)(((t) & 3) == 0   ? (TAG_FIELD(t) < 60 ? TAG_FIELD(t) + 1 : (TAG_FIELD(t) - 59) << 8) \
             : ((t) & 3) == 1 ? (((TAG_FIELD(t) & 7) + 4) | (1u << 8) | (((unsigned)(t) >> 5) << 11)) \
             : ((t) & 3) == 2 ? ((TAG_FIELD(t) + 1) | (2u << 8))                                \
                              : ((TAG_FIELD(t) + 1) | (4u << 8)))
#define TAG_ROW4(t) TAG_ENTRY(t), TAG_ENTRY((t) + 1), TAG_ENTRY((t) + 2), TAG_ENTRY((t) + 3)
#define TAG_ROW16(t) TAG_ROW4(t), TAG_ROW4((t) + 4), TAG_ROW4((t) + 8), TAG_ROW4((t) + 12)
#define TAG_ROW64(t) TAG_ROW16(t), TAG_ROW16((t) + 16), TAG_ROW16((t) + 32), TAG_ROW16((t) + 48)
static const uint16_t tag_table[256] = {TAG_ROW64(0), TAG_ROW64(64), TAG_ROW64(128), TAG_ROW64(192)};

/* Keeps the low n bytes of a 4-byte little-endian load (n = bytes after the tag). */
static const uint32_t trailer_mask[5] = {0, 0xffu, 0xffffu, 0xffffffu, 0xffffffffu};

/* For a copy with offset d < 8 (and length > d) the output repeats the last d
 * bytes: a 16-byte pattern holds that period starting at phase 0 (byte j =
 * source[j % d]) and is stored every pattern_step[d] bytes (the largest
 * multiple of d <= 16), so each store starts at phase 0 again. Multiplying a
 * d-byte unit by pattern_repeat[d] repeats it across 8 bytes; the pattern's
 * second half starts at phase pattern_phase8[d] = 8 % d. */
static const uint64_t pattern_repeat[8] = {0, 0x0101010101010101ull, 0x0001000100010001ull, 0x0001000001000001ull,
                                           0x0000000100000001ull, 0x0000010000000001ull, 0x0001000000000001ull,
                                           0x0100000000000001ull};
static const uint8_t pattern_phase8[8] = {0, 0, 0, 2, 0, 3, 2, 1};
static const uint8_t pattern_step[8] = {0, 16, 16, 15, 16, 15, 12, 14};

static inline uint32_t load_le32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

static inline void copy16(uint8_t *dst, const uint8_t *src) { memcpy(dst, src, 16); }

int pm_snappy_uncompressed_length(const uint8_t *src, size_t src_len, size_t *out_len, size_t *preamble_len) {
  uint32_t value = 0;
  for (size_t i = 0; i < 5; i++) {
    if (i >= src_len) return PM_SNAPPY_BAD_PREAMBLE;
    uint32_t b = src[i];
    /* The fifth byte carries bits 28..31 only and must end the varint. */
    if (i == 4 && b > 0x0f) return PM_SNAPPY_BAD_PREAMBLE;
    value |= (b & 0x7f) << (7 * i);
    if (!(b & 0x80)) {
      *out_len = value;
      if (preamble_len) *preamble_len = i + 1;
      return PM_SNAPPY_OK;
    }
  }
  return PM_SNAPPY_BAD_PREAMBLE;
}

/* Decodes elements with every bound checked, from ip/op to the ends. */
static int decode_exact(const uint8_t *ip, const uint8_t *ip_end, uint8_t *dst, uint8_t *op, uint8_t *op_end,
                        uint8_t **op_out) {
  int rc = PM_SNAPPY_OK;
  while (ip < ip_end) {
    uint32_t tag = *ip++;
    uint32_t entry = tag_table[tag];
    size_t extra = (entry >> 8) & 7;
    if ((size_t)(ip_end - ip) < extra) {
      rc = PM_SNAPPY_TRUNCATED;
      break;
    }
    uint32_t trailer = 0;
    for (size_t i = 0; i < extra; i++) trailer |= (uint32_t)ip[i] << (8 * i);
    ip += extra;
    size_t len = entry & 0x7f;
    if ((tag & 3) == 0) {
      if (len == 0) len = (size_t)trailer + 1;
      if (len > (size_t)(ip_end - ip)) {
        rc = PM_SNAPPY_TRUNCATED;
        break;
      }
      if (len > (size_t)(op_end - op)) {
        rc = PM_SNAPPY_OVERRUN;
        break;
      }
      memcpy(op, ip, len);
      ip += len;
      op += len;
    } else {
      size_t offset = (size_t)trailer + ((entry >> 11) << 8);
      if (offset - 1 >= (size_t)(op - dst)) { /* offset 0 wraps to SIZE_MAX */
        rc = PM_SNAPPY_BAD_OFFSET;
        break;
      }
      if (len > (size_t)(op_end - op)) {
        rc = PM_SNAPPY_OVERRUN;
        break;
      }
      const uint8_t *from = op - offset;
      for (size_t i = 0; i < len; i++) op[i] = from[i]; /* bytewise: the source may overlap */
      op += len;
    }
  }
  *op_out = op;
  if (rc == PM_SNAPPY_OK && op != op_end) rc = PM_SNAPPY_SHORT;
  return rc;
}

int pm_snappy_decompress(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_capacity, size_t *produced) {
  size_t declared = 0, preamble = 0;
  *produced = 0;
  int rc = pm_snappy_uncompressed_length(src, src_len, &declared, &preamble);
  if (rc) return rc;
  if (declared > dst_capacity) return PM_SNAPPY_TOO_SMALL;
  if (declared == 0) return src_len == preamble ? PM_SNAPPY_OK : PM_SNAPPY_OVERRUN;

  const uint8_t *ip = src + preamble;
  const uint8_t *const ip_end = src + src_len;
  uint8_t *op = dst;
  uint8_t *const op_end = dst + declared;
  /* The fast loop runs while ip < ip_fast_end and op < op_fast_end. */
  const uint8_t *const ip_fast_end = src_len > FAST_INPUT_SLACK ? ip_end - FAST_INPUT_SLACK : src;
  uint8_t *const op_fast_end = declared > FAST_OUTPUT_SLACK ? op_end - FAST_OUTPUT_SLACK : dst;

  while (ip < ip_fast_end && op < op_fast_end) {
    uint32_t tag = *ip;
    size_t len, offset;
    /* Branching on the element kind lets the next tag's address be known
     * (for copies) without waiting for this tag's value. */
    if (tag == 0) {
      /* A 1-byte literal. INT64 columns of sequential or small numbers are
       * "literal of the low byte, copy of the other 7 from 8 back" per
       * value: such a pair is done as one 8-byte load of the previous value
       * (forwarded whole from its one store) and one store, instead of
       * loads that wait on two partial stores (2x faster). */
      if ((load_le32(ip) & 0xffff00ffu) == 0x080d0000u && op - dst >= 8) {
        uint64_t v;
        memcpy(&v, op - 8, 8);
        v = (v & ~(uint64_t)0xff) | ip[1];
        memcpy(op, &v, 8);
        op += 8;
        ip += 4;
        continue;
      }
      /* Other 1-byte literals: a predicted branch gives the next tag's
       * address without waiting for this tag's load. Data where they come
       * at random mispredicts it (executables: ~10% slower); Parquet pages
       * gain or stay even. */
      *op++ = ip[1];
      ip += 2;
      continue;
    }
    switch (tag & 3) {
      case 0:
        len = (tag >> 2) + 1;
        if (SNAPPY_LIKELY(len <= 16)) {
          copy16(op, ip + 1);
        } else if (len <= 60) {
          copy16(op, ip + 1);
          copy16(op + 16, ip + 17);
          copy16(op + 32, ip + 33);
          copy16(op + 48, ip + 49);
        } else {
          size_t length_bytes = len - 60;
          len = (size_t)(load_le32(ip + 1) & trailer_mask[length_bytes]) + 1;
          ip += length_bytes;
          if (SNAPPY_UNLIKELY(len > (size_t)(ip_end - ip - 1))) {
            *produced = (size_t)(op - dst);
            return PM_SNAPPY_TRUNCATED;
          }
          if (SNAPPY_UNLIKELY(len > (size_t)(op_end - op))) {
            *produced = (size_t)(op - dst);
            return PM_SNAPPY_OVERRUN;
          }
          memcpy(op, ip + 1, len);
        }
        ip += 1 + len;
        op += len;
        continue;
      case 1:
        len = ((tag >> 2) & 7) + 4;
        offset = ((size_t)(tag >> 5) << 8) | ip[1];
        ip += 2;
        break;
      case 2:
        len = (tag >> 2) + 1;
        offset = load_le32(ip + 1) & 0xffff;
        ip += 3;
        break;
      default:
        len = (tag >> 2) + 1;
        offset = load_le32(ip + 1);
        ip += 5;
        break;
    }
    if (SNAPPY_UNLIKELY(offset - 1 >= (size_t)(op - dst))) { /* offset 0 wraps to SIZE_MAX */
      *produced = (size_t)(op - dst);
      return PM_SNAPPY_BAD_OFFSET;
    }
    const uint8_t *from = op - offset;
    if (offset >= 64) {
      /* Far source: over-reading is harmless, fixed copies avoid length branches. */
      copy16(op, from);
      copy16(op + 16, from + 16);
      if (SNAPPY_UNLIKELY(len > 32)) {
        copy16(op + 32, from + 32);
        copy16(op + 48, from + 48);
      }
    } else if (SNAPPY_LIKELY(len <= offset)) {
      /* Source and destination do not overlap: read exactly the source bytes
       * (reading past them could hit just-written bytes whose stores cannot be
       * forwarded to a wider load, a costly stall) with two overlapping loads. */
      if (len <= 8) {
        if (SNAPPY_LIKELY(len >= 4)) {
          uint32_t head, tail;
          memcpy(&head, from, 4);
          memcpy(&tail, from + len - 4, 4);
          uint64_t v = head | ((uint64_t)tail << (8 * (len - 4)));
          memcpy(op, &v, 8);
        } else {
          uint8_t a = from[0], b = from[len / 2], c = from[len - 1];
          op[0] = a;
          op[len / 2] = b;
          op[len - 1] = c;
        }
      } else if (len <= 16) {
        uint64_t head, tail;
        memcpy(&head, from, 8);
        memcpy(&tail, from + len - 8, 8);
        tail >>= 8 * (16 - len);
        memcpy(op, &head, 8);
        memcpy(op + 8, &tail, 8);
      } else {
        for (size_t k = 0; k + 16 < len; k += 16) copy16(op + k, from + k);
        copy16(op + len - 16, from + len - 16);
      }
    } else if (offset >= 16) {
      /* Each 16-byte step reads only bytes already final. */
      for (size_t k = 0; k < len; k += 16) copy16(op + k, from + k);
    } else if (offset >= 8) {
      /* Period 8..15: the first 16 bytes of the repetition from two exact
       * 8-byte loads, stored at every multiple of the period. */
      uint64_t head, tail;
      memcpy(&head, from, 8);
      memcpy(&tail, from + offset - 8, 8);
      uint64_t second = ((tail >> (8 * (15 - offset))) >> 8) | (head << (8 * (offset - 8)));
      for (size_t k = 0; k < len; k += offset) {
        memcpy(op + k, &head, 8);
        memcpy(op + k + 8, &second, 8);
      }
    } else {
      /* Period 1..7: the exact source bytes, repeated across 8 bytes by a
       * multiply; the second 8 bytes start at phase 8 % offset. */
      uint64_t unit;
      if (offset >= 4) {
        uint32_t head, tail;
        memcpy(&head, from, 4);
        memcpy(&tail, from + offset - 4, 4);
        unit = head | ((uint64_t)tail << (8 * (offset - 4)));
      } else {
        unit = from[0] | ((uint64_t)from[offset > 1] << 8) | ((uint64_t)from[offset - 1] << 16);
      }
      uint64_t mask = ((uint64_t)1 << (8 * offset)) - 1;
      unit &= mask;
      size_t phase = pattern_phase8[offset];
      uint64_t rotated = ((unit >> (8 * phase)) | (unit << (8 * (offset - phase)))) & mask;
      uint64_t first = unit * pattern_repeat[offset], second = rotated * pattern_repeat[offset];
      size_t step = pattern_step[offset];
      for (size_t k = 0; k < len; k += step) {
        memcpy(op + k, &first, 8);
        memcpy(op + k + 8, &second, 8);
      }
    }
    op += len;
  }

  uint8_t *end = op;
  rc = decode_exact(ip, ip_end, dst, op, op_end, &end);
  *produced = (size_t)(end - dst);
  return rc;
}

const char *pm_snappy_status_text(int status) {
  switch (status) {
    case PM_SNAPPY_OK: return "ok";
    case PM_SNAPPY_BAD_PREAMBLE: return "bad uncompressed-length varint";
    case PM_SNAPPY_TOO_SMALL: return "declared length exceeds the expected size";
    case PM_SNAPPY_TRUNCATED: return "element runs past the end of the input";
    case PM_SNAPPY_BAD_OFFSET: return "copy offset out of range";
    case PM_SNAPPY_OVERRUN: return "element writes past the declared length";
    case PM_SNAPPY_SHORT: return "input ends before the declared length";
  }
  return "unknown status";
}
