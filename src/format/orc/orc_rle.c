#include "format/orc/orc_rle.h"

#include <string.h>

void pm_orc_stream_init(pm_orc_stream *s, const uint8_t *data, size_t len, const char *label) {
  static const uint8_t empty[1];
  s->data = data ? data : empty; /* never NULL: offsets into it stay defined */
  s->len = data ? len : 0;
  s->pos = 0;
  s->label = label ? label : "ORC stream";
}

int pm_orc_stream_error(const pm_orc_stream *s, pm_error *err, const char *what) {
  return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: %s at stream offset %llu of %llu", s->label, what,
                   (unsigned long long)s->pos, (unsigned long long)s->len);
}

int pm_orc_read_uvarint(pm_orc_stream *s, uint64_t *v, pm_error *err) {
  uint64_t r = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (s->pos >= s->len) return pm_orc_stream_error(s, err, "varint runs past the end of the stream");
    uint8_t b = s->data[s->pos++];
    r |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *v = r;
      return 0;
    }
  }
  return pm_orc_stream_error(s, err, "varint longer than 10 bytes");
}

static inline int64_t unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

/* ---------------- byte RLE ---------------- */

void pm_orc_byte_rle_init(pm_orc_byte_rle *d, const pm_orc_stream *s) {
  d->s = *s;
  d->remaining = 0;
  d->literal = 0;
  d->value = 0;
}

static int byte_rle_header(pm_orc_byte_rle *d, pm_error *err) {
  if (d->s.pos >= d->s.len) return pm_orc_stream_error(&d->s, err, "byte RLE: more values requested than the stream holds");
  uint8_t h = d->s.data[d->s.pos++];
  if (h < 0x80) {
    if (d->s.pos >= d->s.len) return pm_orc_stream_error(&d->s, err, "byte RLE: run value missing");
    d->remaining = (uint32_t)h + 3;
    d->literal = 0;
    d->value = d->s.data[d->s.pos++];
  } else {
    d->remaining = 0x100u - h;
    d->literal = 1;
    if (d->remaining > d->s.len - d->s.pos) return pm_orc_stream_error(&d->s, err, "byte RLE: literal run past the end");
  }
  return 0;
}

int pm_orc_byte_rle_next(pm_orc_byte_rle *d, uint8_t *out, size_t n, pm_error *err) {
  while (n > 0) {
    if (d->remaining == 0) PM_TRY(byte_rle_header(d, err));
    size_t k = d->remaining < n ? d->remaining : n;
    if (d->literal) {
      if (out) memcpy(out, d->s.data + d->s.pos, k);
      d->s.pos += k;
    } else if (out) {
      memset(out, d->value, k);
    }
    if (out) out += k;
    n -= k;
    d->remaining -= (uint32_t)k;
  }
  return 0;
}

int pm_orc_byte_rle_skip(pm_orc_byte_rle *d, uint64_t n, pm_error *err) {
  while (n > 0) {
    if (d->remaining == 0) PM_TRY(byte_rle_header(d, err));
    uint64_t k = d->remaining < n ? d->remaining : n;
    if (d->literal) d->s.pos += (size_t)k;
    n -= k;
    d->remaining -= (uint32_t)k;
  }
  return 0;
}

/* ---------------- boolean RLE ---------------- */

void pm_orc_bool_rle_init(pm_orc_bool_rle *d, const pm_orc_stream *s) {
  pm_orc_byte_rle_init(&d->bytes, s);
  d->cur = 0;
  d->bits_left = 0;
}

int pm_orc_bool_rle_next(pm_orc_bool_rle *d, uint8_t *out, size_t n, pm_error *err) {
  size_t i = 0;
  while (i < n && d->bits_left > 0) {
    d->bits_left--;
    out[i++] = (d->cur >> d->bits_left) & 1;
  }
  /* Whole bytes in bulk. */
  uint8_t tmp[256];
  while (n - i >= 8) {
    size_t nb = (n - i) / 8;
    if (nb > sizeof tmp) nb = sizeof tmp;
    PM_TRY(pm_orc_byte_rle_next(&d->bytes, tmp, nb, err));
    for (size_t b = 0; b < nb; b++) {
      uint8_t v = tmp[b];
      uint8_t *o = out + i + b * 8;
      o[0] = v >> 7;
      o[1] = (v >> 6) & 1;
      o[2] = (v >> 5) & 1;
      o[3] = (v >> 4) & 1;
      o[4] = (v >> 3) & 1;
      o[5] = (v >> 2) & 1;
      o[6] = (v >> 1) & 1;
      o[7] = v & 1;
    }
    i += nb * 8;
  }
  if (i < n) {
    PM_TRY(pm_orc_byte_rle_next(&d->bytes, &d->cur, 1, err));
    d->bits_left = 8;
    while (i < n) {
      d->bits_left--;
      out[i++] = (d->cur >> d->bits_left) & 1;
    }
  }
  return 0;
}

int pm_orc_bool_rle_skip(pm_orc_bool_rle *d, uint64_t n, pm_error *err) {
  uint64_t k = (uint64_t)d->bits_left < n ? (uint64_t)d->bits_left : n;
  d->bits_left -= (int)k;
  n -= k;
  if (n == 0) return 0;
  PM_TRY(pm_orc_byte_rle_skip(&d->bytes, n / 8, err));
  n %= 8;
  if (n) {
    PM_TRY(pm_orc_byte_rle_next(&d->bytes, &d->cur, 1, err));
    d->bits_left = 8 - (int)n;
  }
  return 0;
}

/* ---------------- integer RLE ---------------- */

void pm_orc_int_rle_init(pm_orc_int_rle *d, const pm_orc_stream *s, int v2, int is_signed) {
  d->s = *s;
  d->v2 = v2;
  d->is_signed = is_signed;
  d->n_lits = d->idx = 0;
}

int pm_orc_decode_bit_width(int e) {
  if (e <= 23) return e + 1;
  static const int wide[8] = {26, 28, 30, 32, 40, 48, 56, 64};
  return wide[(e - 24) & 7];
}

int pm_orc_closest_fixed_bits(int n) {
  if (n == 0) return 1;
  if (n <= 24) return n;
  if (n <= 26) return 26;
  if (n <= 28) return 28;
  if (n <= 30) return 30;
  if (n <= 32) return 32;
  if (n <= 40) return 40;
  if (n <= 48) return 48;
  if (n <= 56) return 56;
  return 64;
}

static int read_byte(pm_orc_stream *s, uint8_t *b, pm_error *err) {
  if (s->pos >= s->len) return pm_orc_stream_error(s, err, "integer RLE: header runs past the end");
  *b = s->data[s->pos++];
  return 0;
}

static int read_be(pm_orc_stream *s, int nbytes, uint64_t *v, pm_error *err) {
  if ((size_t)nbytes > s->len - s->pos) return pm_orc_stream_error(s, err, "integer RLE: value runs past the end");
  uint64_t r = 0;
  for (int i = 0; i < nbytes; i++) r = (r << 8) | s->data[s->pos++];
  *v = r;
  return 0;
}

/* Big-endian bit-unpacking of count values of w bits (1..64). */
static int unpack_bits(pm_orc_stream *s, int w, uint32_t count, int64_t *out, pm_error *err) {
  uint64_t total_bits = (uint64_t)w * count;
  size_t nbytes = (size_t)((total_bits + 7) / 8);
  if (nbytes > s->len - s->pos) return pm_orc_stream_error(s, err, "integer RLE: bit-packed values run past the end");
  const uint8_t *p = s->data + s->pos;
  size_t readable = s->len - s->pos; /* the window may look past this run into later stream bytes */
  s->pos += nbytes;
  if (w == 8) {
    for (uint32_t i = 0; i < count; i++) out[i] = p[i];
    return 0;
  }
  if (w == 16) {
    for (uint32_t i = 0; i < count; i++) out[i] = ((int64_t)p[2 * i] << 8) | p[2 * i + 1];
    return 0;
  }
  if (w == 32) {
    for (uint32_t i = 0; i < count; i++)
      out[i] = (int64_t)(((uint64_t)p[4 * i] << 24) | ((uint64_t)p[4 * i + 1] << 16) | ((uint64_t)p[4 * i + 2] << 8) |
                         p[4 * i + 3]);
    return 0;
  }
  uint64_t acc = 0;
  int have = 0;
  if (w <= 56 && count > 8) {
    /* Fast path: a 64-bit big-endian window per value, while 8 bytes remain readable. */
    uint64_t mask = ((uint64_t)1 << w) - 1;
    uint64_t bitpos = 0;
    uint32_t i = 0;
    for (; i < count; i++, bitpos += (uint64_t)w) {
      size_t byte = (size_t)(bitpos >> 3);
      if (byte + 8 > readable) break;
      uint64_t win;
      memcpy(&win, p + byte, 8);
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
      win = __builtin_bswap64(win);
#endif
      out[i] = (int64_t)((win >> (64 - (int)(bitpos & 7) - w)) & mask);
    }
    /* The rest bit by byte. */
    const uint8_t *q = p + (bitpos >> 3);
    int skip = (int)(bitpos & 7);
    if (i < count) {
      acc = *q++;
      have = 8 - skip;
      acc &= (1u << have) - 1;
    }
    for (; i < count; i++) {
      while (have < w) {
        acc = (acc << 8) | *q++;
        have += 8;
      }
      out[i] = (int64_t)((acc >> (have - w)) & mask);
      have -= w;
    }
    return 0;
  }
  if (w <= 56) {
    uint64_t mask = ((uint64_t)1 << w) - 1;
    for (uint32_t i = 0; i < count; i++) {
      while (have < w) {
        acc = (acc << 8) | *p++;
        have += 8;
      }
      out[i] = (int64_t)((acc >> (have - w)) & mask);
      have -= w;
    }
    return 0;
  }
  /* Wide values: two passes of at most 32 bits each. */
  int hi = w - 32;
  uint64_t mhi = ((uint64_t)1 << hi) - 1, mlo = 0xffffffffu;
  for (uint32_t i = 0; i < count; i++) {
    while (have < hi) {
      acc = (acc << 8) | *p++;
      have += 8;
    }
    uint64_t a = (acc >> (have - hi)) & mhi;
    have -= hi;
    while (have < 32) {
      acc = (acc << 8) | *p++;
      have += 8;
    }
    uint64_t b = (acc >> (have - 32)) & mlo;
    have -= 32;
    out[i] = (int64_t)((a << 32) | b);
  }
  return 0;
}

static int read_v1_run(pm_orc_int_rle *d, pm_error *err) {
  uint8_t h = 0;
  PM_TRY(read_byte(&d->s, &h, err));
  uint64_t u = 0;
  if (h < 0x80) {
    uint8_t db = 0;
    PM_TRY(read_byte(&d->s, &db, err));
    int64_t delta = (int8_t)db;
    PM_TRY(pm_orc_read_uvarint(&d->s, &u, err));
    uint64_t base = d->is_signed ? (uint64_t)unzigzag(u) : u;
    uint32_t n = (uint32_t)h + 3;
    for (uint32_t i = 0; i < n; i++) d->lits[i] = (int64_t)(base + (uint64_t)delta * i);
    d->n_lits = n;
  } else {
    uint32_t n = 0x100u - h;
    for (uint32_t i = 0; i < n; i++) {
      PM_TRY(pm_orc_read_uvarint(&d->s, &u, err));
      d->lits[i] = d->is_signed ? unzigzag(u) : (int64_t)u;
    }
    d->n_lits = n;
  }
  d->idx = 0;
  return 0;
}

/* Decodes one run into lits (lits, or the caller's output when it has room
 * for a whole run) and sets d->n_lits to its length. */
static int read_v2_run(pm_orc_int_rle *d, int64_t *lits, pm_error *err) {
  pm_orc_stream *s = &d->s;
  uint8_t h = 0;
  PM_TRY(read_byte(s, &h, err));
  int kind = h >> 6;
  d->idx = 0;
  if (kind == 0) { /* short repeat */
    int width = ((h >> 3) & 7) + 1;
    uint32_t n = (uint32_t)(h & 7) + 3;
    uint64_t v = 0;
    PM_TRY(read_be(s, width, &v, err));
    int64_t val = d->is_signed ? unzigzag(v) : (int64_t)v;
    for (uint32_t i = 0; i < n; i++) lits[i] = val;
    d->n_lits = n;
    return 0;
  }
  uint8_t h2 = 0;
  PM_TRY(read_byte(s, &h2, err));
  uint32_t n = ((((uint32_t)h & 1) << 8) | h2) + 1;
  int ew = (h >> 1) & 0x1f;
  if (kind == 1) { /* direct */
    int w = pm_orc_decode_bit_width(ew);
    PM_TRY(unpack_bits(s, w, n, lits, err));
    if (d->is_signed)
      for (uint32_t i = 0; i < n; i++) lits[i] = unzigzag((uint64_t)lits[i]);
    d->n_lits = n;
    return 0;
  }
  if (kind == 2) { /* patched base */
    int w = pm_orc_decode_bit_width(ew);
    uint8_t h3 = 0, h4 = 0;
    PM_TRY(read_byte(s, &h3, err));
    PM_TRY(read_byte(s, &h4, err));
    int bw = ((h3 >> 5) & 7) + 1;
    int pw = pm_orc_decode_bit_width(h3 & 0x1f);
    int pgw = ((h4 >> 5) & 7) + 1;
    uint32_t pl = h4 & 0x1f;
    if (pw + pgw > 64 || pw + w > 64) return pm_orc_stream_error(s, err, "integer RLE v2: patch wider than 64 bits");
    uint64_t ub = 0;
    PM_TRY(read_be(s, bw, &ub, err));
    uint64_t msb = (uint64_t)1 << (bw * 8 - 1);
    int64_t base = (ub & msb) ? -(int64_t)(ub & ~msb) : (int64_t)ub;
    PM_TRY(unpack_bits(s, w, n, lits, err));
    int64_t patches[32];
    if (pl > 0) PM_TRY(unpack_bits(s, pm_orc_closest_fixed_bits(pw + pgw), pl, patches, err));
    uint64_t pmask = pw >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << pw) - 1);
    uint64_t pos = 0;
    for (uint32_t pi = 0; pi < pl; pi++) {
      uint64_t gap = (uint64_t)patches[pi] >> pw;
      uint64_t patch = (uint64_t)patches[pi] & pmask;
      pos += gap;
      if (patch == 0) continue; /* gap-only entry (gap 255) */
      if (pos >= n) return pm_orc_stream_error(s, err, "integer RLE v2: patch position past the run");
      lits[pos] = (int64_t)((uint64_t)lits[pos] | (patch << w));
    }
    for (uint32_t i = 0; i < n; i++) lits[i] = (int64_t)((uint64_t)base + (uint64_t)lits[i]);
    d->n_lits = n;
    return 0;
  }
  /* delta */
  int w = ew ? pm_orc_decode_bit_width(ew) : 0;
  uint64_t u = 0;
  PM_TRY(pm_orc_read_uvarint(s, &u, err));
  int64_t first = d->is_signed ? unzigzag(u) : (int64_t)u;
  PM_TRY(pm_orc_read_uvarint(s, &u, err));
  int64_t delta_base = unzigzag(u);
  lits[0] = first;
  if (w == 0) {
    for (uint32_t i = 1; i < n; i++) lits[i] = (int64_t)((uint64_t)lits[i - 1] + (uint64_t)delta_base);
  } else {
    if (n < 2) return pm_orc_stream_error(s, err, "integer RLE v2: delta run shorter than 2 values");
    lits[1] = (int64_t)((uint64_t)first + (uint64_t)delta_base);
    if (n > 2) {
      PM_TRY(unpack_bits(s, w, n - 2, lits + 2, err));
      for (uint32_t i = 2; i < n; i++) {
        uint64_t dv = (uint64_t)lits[i];
        lits[i] = delta_base < 0 ? (int64_t)((uint64_t)lits[i - 1] - dv) : (int64_t)((uint64_t)lits[i - 1] + dv);
      }
    }
  }
  d->n_lits = n;
  return 0;
}

int pm_orc_int_rle_next(pm_orc_int_rle *d, int64_t *out, size_t n, pm_error *err) {
  while (n > 0) {
    if (d->idx == d->n_lits) {
      if (d->s.pos >= d->s.len) return pm_orc_stream_error(&d->s, err, "integer RLE: more values requested than the stream holds");
      if (d->v2 && n >= PM_ORC_RLE_MAX_RUN) { /* a whole run fits: decode in place, no copy out of lits */
        PM_TRY(read_v2_run(d, out, err));
        size_t k = d->n_lits;
        d->n_lits = d->idx = 0;
        out += k;
        n -= k;
        continue;
      }
      PM_TRY(d->v2 ? read_v2_run(d, d->lits, err) : read_v1_run(d, err));
    }
    size_t k = d->n_lits - d->idx;
    if (k > n) k = n;
    memcpy(out, d->lits + d->idx, k * sizeof *out);
    out += k;
    n -= k;
    d->idx += (uint32_t)k;
  }
  return 0;
}

int pm_orc_int_rle_skip(pm_orc_int_rle *d, uint64_t n, pm_error *err) {
  while (n > 0) {
    if (d->idx == d->n_lits) {
      if (d->s.pos >= d->s.len) return pm_orc_stream_error(&d->s, err, "integer RLE: skip past the end of the stream");
      PM_TRY(d->v2 ? read_v2_run(d, d->lits, err) : read_v1_run(d, err));
    }
    uint64_t k = d->n_lits - d->idx;
    if (k > n) k = n;
    n -= k;
    d->idx += (uint32_t)k;
  }
  return 0;
}

/* ---------------- encoders ---------------- */

int pm_orc_encode_uvarint(pm_buf *out, uint64_t v) {
  uint8_t tmp[10];
  int n = 0;
  while (v >= 0x80) {
    tmp[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  tmp[n++] = (uint8_t)v;
  return pm_buf_append(out, tmp, (size_t)n);
}

int pm_orc_encode_byte_rle(const uint8_t *v, size_t n, pm_buf *out) {
  size_t i = 0;
  while (i < n) {
    size_t run = 1;
    while (i + run < n && run < 130 && v[i + run] == v[i]) run++;
    if (run >= 3) {
      uint8_t hdr[2] = {(uint8_t)(run - 3), v[i]};
      if (pm_buf_append(out, hdr, 2)) return PAIMON_ERR_NOMEM;
      i += run;
      continue;
    }
    /* Literal run: until a run of 3 equal values starts, at most 128. */
    size_t j = i;
    while (j < n && j - i < 128) {
      if (j + 2 < n && v[j] == v[j + 1] && v[j] == v[j + 2]) break;
      j++;
    }
    size_t len = j - i;
    if (pm_buf_push_u8(out, (uint8_t)(0x100 - len)) || pm_buf_append(out, v + i, len)) return PAIMON_ERR_NOMEM;
    i = j;
  }
  return 0;
}

int pm_orc_encode_bool_rle(const uint8_t *v, size_t n, pm_buf *out) {
  size_t nb = (n + 7) / 8;
  uint8_t *bytes = pm_aligned_alloc(nb ? nb : 1);
  if (!bytes) return PAIMON_ERR_NOMEM;
  memset(bytes, 0, nb ? nb : 1);
  for (size_t i = 0; i < n; i++)
    if (v[i]) bytes[i >> 3] |= (uint8_t)(0x80 >> (i & 7));
  int rc = pm_orc_encode_byte_rle(bytes, nb, out);
  pm_aligned_free(bytes);
  return rc;
}

static int bits_needed(uint64_t v) {
  int b = 0;
  while (v) {
    b++;
    v >>= 1;
  }
  return b;
}

static int encode_width(int w) {
  if (w <= 24) return w - 1;
  switch (w) {
    case 26: return 24;
    case 28: return 25;
    case 30: return 26;
    case 32: return 27;
    case 40: return 28;
    case 48: return 29;
    case 56: return 30;
    default: return 31;
  }
}

static int pack_bits(pm_buf *out, const uint64_t *v, size_t n, int w) {
  uint64_t acc = 0;
  int have = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t x = v[i];
    int left = w;
    while (left > 0) {
      int take = left > 8 ? 8 : left;
      /* Next `take` bits from the top of the remaining bits of x. */
      uint64_t bits = (x >> (left - take)) & (((uint64_t)1 << take) - 1);
      acc = (acc << take) | bits;
      have += take;
      left -= take;
      if (have >= 8) {
        if (pm_buf_push_u8(out, (uint8_t)(acc >> (have - 8)))) return PAIMON_ERR_NOMEM;
        have -= 8;
      }
    }
  }
  if (have > 0 && pm_buf_push_u8(out, (uint8_t)(acc << (8 - have)))) return PAIMON_ERR_NOMEM;
  return 0;
}

static int put_header2(pm_buf *out, int kind, int ew, size_t n) {
  uint8_t h[2] = {(uint8_t)((kind << 6) | (ew << 1) | (((n - 1) >> 8) & 1)), (uint8_t)((n - 1) & 0xff)};
  return pm_buf_append(out, h, 2);
}

static int encode_direct(const int64_t *v, size_t n, int is_signed, pm_buf *out) {
  uint64_t u[PM_ORC_RLE_MAX_RUN];
  uint64_t all = 0;
  for (size_t i = 0; i < n; i++) {
    u[i] = is_signed ? (((uint64_t)v[i] << 1) ^ (uint64_t)(v[i] >> 63)) : (uint64_t)v[i];
    all |= u[i];
  }
  int w = pm_orc_closest_fixed_bits(bits_needed(all));
  if (put_header2(out, 1, encode_width(w), n)) return PAIMON_ERR_NOMEM;
  return pack_bits(out, u, n, w);
}

static int put_base(pm_buf *out, int64_t v, int is_signed) {
  return pm_orc_encode_uvarint(out, is_signed ? (((uint64_t)v << 1) ^ (uint64_t)(v >> 63)) : (uint64_t)v);
}

/* Delta encoding when the segment is monotonic; returns 1 if written, 0 if not applicable. */
static int try_delta(const int64_t *v, size_t n, int is_signed, pm_buf *out, int *rc) {
  *rc = 0;
  if (n < 3) return 0;
  int64_t d0;
  if (__builtin_sub_overflow(v[1], v[0], &d0)) return 0;
  int inc = 1, dec = 1, fixed = 1;
  uint64_t maxd = 0;
  uint64_t deltas[PM_ORC_RLE_MAX_RUN];
  for (size_t i = 1; i < n; i++) {
    int64_t d;
    if (__builtin_sub_overflow(v[i], v[i - 1], &d)) return 0;
    if (d != d0) fixed = 0;
    if (d < 0) inc = 0;
    if (d > 0) dec = 0;
    if (i >= 2) {
      uint64_t a = d < 0 ? (uint64_t)0 - (uint64_t)d : (uint64_t)d;
      deltas[i - 2] = a;
      if (a > maxd) maxd = a;
    }
  }
  if (fixed) {
    if (put_header2(out, 3, 0, n) || put_base(out, v[0], is_signed) ||
        pm_orc_encode_uvarint(out, ((uint64_t)d0 << 1) ^ (uint64_t)(d0 >> 63)))
      *rc = PAIMON_ERR_NOMEM;
    return 1;
  }
  if (!(inc || (dec && d0 < 0))) return 0;
  if (maxd >> 62) return 0;
  int w = pm_orc_closest_fixed_bits(bits_needed(maxd));
  if (w == 1) w = 2;
  /* Only worth it if narrower than direct. */
  uint64_t all = 0;
  for (size_t i = 0; i < n; i++) all |= is_signed ? (((uint64_t)v[i] << 1) ^ (uint64_t)(v[i] >> 63)) : (uint64_t)v[i];
  if (w >= pm_orc_closest_fixed_bits(bits_needed(all))) return 0;
  if (put_header2(out, 3, encode_width(w), n) || put_base(out, v[0], is_signed) ||
      pm_orc_encode_uvarint(out, ((uint64_t)d0 << 1) ^ (uint64_t)(d0 >> 63)) || pack_bits(out, deltas, n - 2, w))
    *rc = PAIMON_ERR_NOMEM;
  return 1;
}

int pm_orc_encode_int_rle_v2(const int64_t *v, size_t n, int is_signed, pm_buf *out) {
  size_t i = 0;
  while (i < n) {
    size_t run = 1;
    while (i + run < n && run < PM_ORC_RLE_MAX_RUN && v[i + run] == v[i]) run++;
    if (run >= 3) {
      if (run <= 10) {
        uint64_t u = is_signed ? (((uint64_t)v[i] << 1) ^ (uint64_t)(v[i] >> 63)) : (uint64_t)v[i];
        int bytes = (bits_needed(u) + 7) / 8;
        if (bytes == 0) bytes = 1;
        if (pm_buf_push_u8(out, (uint8_t)(((bytes - 1) << 3) | (run - 3)))) return PAIMON_ERR_NOMEM;
        for (int b = bytes - 1; b >= 0; b--)
          if (pm_buf_push_u8(out, (uint8_t)(u >> (8 * b)))) return PAIMON_ERR_NOMEM;
      } else {
        if (put_header2(out, 3, 0, run) || put_base(out, v[i], is_signed) || pm_orc_encode_uvarint(out, 0))
          return PAIMON_ERR_NOMEM;
      }
      i += run;
      continue;
    }
    /* A segment up to the next run of >= 10 equal values (short runs stay inside). */
    size_t j = i;
    while (j < n && j - i < PM_ORC_RLE_MAX_RUN) {
      size_t r = 1;
      while (j + r < n && r < 10 && v[j + r] == v[j]) r++;
      if (r >= 10) break;
      j++;
    }
    size_t len = j - i;
    int rc;
    if (try_delta(v + i, len, is_signed, out, &rc)) {
      if (rc) return rc;
    } else if (encode_direct(v + i, len, is_signed, out)) {
      return PAIMON_ERR_NOMEM;
    }
    i = j;
  }
  return 0;
}
