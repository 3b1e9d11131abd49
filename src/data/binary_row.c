/* BinaryRow / BinaryArray / BinaryMap decoding and Java-identical encoding (FORMAT.md 5). */
#include "data/binary_row.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline uint64_t rd64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}
static inline uint32_t rd32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline void wr64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* ---------------- decimals ---------------- */

void pm_decimal_from_int64(pm_decimal *d, int64_t unscaled, int32_t precision, int32_t scale) {
  d->lo = (uint64_t)unscaled;
  d->hi = unscaled < 0 ? -1 : 0;
  d->precision = precision;
  d->scale = scale;
}

size_t pm_decimal_to_be_bytes(const pm_decimal *d, uint8_t buf[16]) {
  uint8_t b[16];
  for (int i = 0; i < 8; i++) {
    b[i] = (uint8_t)((uint64_t)d->hi >> (56 - 8 * i));
    b[8 + i] = (uint8_t)(d->lo >> (56 - 8 * i));
  }
  size_t start = 0;
  while (start < 15 && ((b[start] == 0x00 && !(b[start + 1] & 0x80)) || (b[start] == 0xff && (b[start + 1] & 0x80))))
    start++;
  size_t n = 16 - start;
  memcpy(buf, b + start, n);
  return n;
}

int pm_decimal_from_be_bytes(pm_decimal *d, const uint8_t *b, size_t n, int32_t precision, int32_t scale) {
  if (n == 0 || n > 16) return -1;
  uint8_t full[16];
  memset(full, (b[0] & 0x80) ? 0xff : 0x00, 16);
  memcpy(full + 16 - n, b, n);
  uint64_t hi = 0, lo = 0;
  for (int i = 0; i < 8; i++) {
    hi = (hi << 8) | full[i];
    lo = (lo << 8) | full[8 + i];
  }
  d->hi = (int64_t)hi;
  d->lo = lo;
  d->precision = precision;
  d->scale = scale;
  return 0;
}

int pm_decimal_to_int64(const pm_decimal *d, int64_t *out) {
  int64_t v = (int64_t)d->lo;
  if ((v < 0 && d->hi != -1) || (v >= 0 && d->hi != 0)) return 0;
  *out = v;
  return 1;
}

void pm_decimal_to_string(const pm_decimal *d, char *buf, size_t cap) {
  /* magnitude as 4 x 32-bit limbs, most significant first */
  uint64_t hi = (uint64_t)d->hi, lo = d->lo;
  int neg = d->hi < 0;
  if (neg) {
    lo = ~lo + 1;
    hi = ~hi + (lo == 0 ? 1 : 0);
  }
  uint32_t limb[4] = {(uint32_t)(hi >> 32), (uint32_t)hi, (uint32_t)(lo >> 32), (uint32_t)lo};
  char digits[48];
  int nd = 0;
  for (;;) {
    uint64_t rem = 0;
    int nonzero = 0;
    for (int i = 0; i < 4; i++) {
      uint64_t cur = (rem << 32) | limb[i];
      limb[i] = (uint32_t)(cur / 10);
      rem = cur % 10;
      if (limb[i]) nonzero = 1;
    }
    digits[nd++] = (char)('0' + rem);
    if (!nonzero || nd >= 45) break;
  }
  int scale = d->scale < 0 ? 0 : d->scale;
  while (nd <= scale) digits[nd++] = '0';
  char tmp[64];
  size_t n = 0;
  if (neg) tmp[n++] = '-';
  for (int i = nd - 1; i >= 0; i--) {
    tmp[n++] = digits[i];
    if (i == scale && scale > 0) tmp[n++] = '.';
  }
  tmp[n] = 0;
  snprintf(buf, cap, "%s", tmp);
}

/* ---------------- compare ---------------- */

static int cmp_bytes(const uint8_t *a, size_t al, const uint8_t *b, size_t bl) {
  size_t n = al < bl ? al : bl;
  int c = n ? memcmp(a, b, n) : 0;
  if (c) return c < 0 ? -1 : 1;
  return al < bl ? -1 : al > bl ? 1 : 0;
}

static int cmp_double(double a, double b) {
  int an = isnan(a), bn = isnan(b);
  if (an || bn) return an && bn ? 0 : an ? 1 : -1;
  if (a < b) return -1;
  if (a > b) return 1;
  int as = signbit(a) != 0, bs = signbit(b) != 0; /* -0.0 < +0.0 */
  return as == bs ? 0 : as ? -1 : 1;
}

int pm_value_compare(const pm_value *a, const pm_value *b) {
  if (a->kind == PM_V_NULL || b->kind == PM_V_NULL) return (b->kind == PM_V_NULL) - (a->kind == PM_V_NULL);
  switch (a->kind) {
    case PM_V_BOOL:
    case PM_V_INT: return a->u.i64 < b->u.i64 ? -1 : a->u.i64 > b->u.i64;
    case PM_V_FLOAT:
    case PM_V_DOUBLE: return cmp_double(a->u.f64, b->u.f64);
    case PM_V_DECIMAL:
      if (a->u.dec.hi != b->u.dec.hi) return a->u.dec.hi < b->u.dec.hi ? -1 : 1;
      return a->u.dec.lo < b->u.dec.lo ? -1 : a->u.dec.lo > b->u.dec.lo;
    case PM_V_TIMESTAMP:
      if (a->u.ts.millis != b->u.ts.millis) return a->u.ts.millis < b->u.ts.millis ? -1 : 1;
      return a->u.ts.nanos < b->u.ts.nanos ? -1 : a->u.ts.nanos > b->u.ts.nanos;
    default: return cmp_bytes(a->u.bytes.data, a->u.bytes.len, b->u.bytes.data, b->u.bytes.len);
  }
}

/* ---------------- decoding ---------------- */

static int elem_size_of(const pm_data_type *t) {
  switch (t->root) {
    case PM_DT_BOOLEAN: case PM_DT_TINYINT: return 1;
    case PM_DT_SMALLINT: return 2;
    case PM_DT_INT: case PM_DT_FLOAT: case PM_DT_DATE: case PM_DT_TIME: return 4;
    default: return 8;
  }
}

/* Decodes the value whose slot is at `slot` (width bytes) inside the structure base[0..len). */
static int decode_slot(const uint8_t *base, size_t len, const uint8_t *slot, int width, const pm_data_type *t,
                       pm_value *out, pm_error *err) {
  memset(out, 0, sizeof(*out));
  uint64_t s8 = width == 8 ? rd64(slot) : 0;
  switch (t->root) {
    case PM_DT_BOOLEAN: out->kind = PM_V_BOOL; out->u.i64 = slot[0] != 0; return 0;
    case PM_DT_TINYINT: out->kind = PM_V_INT; out->u.i64 = (int8_t)slot[0]; return 0;
    case PM_DT_SMALLINT: out->kind = PM_V_INT; out->u.i64 = (int16_t)(slot[0] | (slot[1] << 8)); return 0;
    case PM_DT_INT: case PM_DT_DATE: case PM_DT_TIME:
      out->kind = PM_V_INT; out->u.i64 = (int32_t)rd32(slot); return 0;
    case PM_DT_BIGINT: out->kind = PM_V_INT; out->u.i64 = (int64_t)s8; return 0;
    case PM_DT_FLOAT: {
      uint32_t bits = rd32(slot);
      float f;
      memcpy(&f, &bits, 4);
      out->kind = PM_V_FLOAT;
      out->u.f64 = f;
      return 0;
    }
    case PM_DT_DOUBLE: {
      double d;
      memcpy(&d, &s8, 8);
      out->kind = PM_V_DOUBLE;
      out->u.f64 = d;
      return 0;
    }
    case PM_DT_DECIMAL:
      out->kind = PM_V_DECIMAL;
      if (t->precision <= 18) {
        pm_decimal_from_int64(&out->u.dec, (int64_t)s8, t->precision, t->scale);
        return 0;
      } else {
        uint64_t off = s8 >> 32, n = s8 & 0xffffffffu;
        if (n == 0 || n > 16 || off > len || n > len - off)
          return pm_errorf(err, PAIMON_ERR_CORRUPT, "decimal value out of bounds (offset %llu, size %llu, row size %zu)",
                           (unsigned long long)off, (unsigned long long)n, len);
        pm_decimal_from_be_bytes(&out->u.dec, base + off, (size_t)n, t->precision, t->scale);
        return 0;
      }
    case PM_DT_TIMESTAMP:
    case PM_DT_TIMESTAMP_LTZ:
      out->kind = PM_V_TIMESTAMP;
      if (t->precision <= 3) {
        out->u.ts.millis = (int64_t)s8;
      } else {
        uint64_t off = s8 >> 32;
        if (off > len || 8 > len - off)
          return pm_errorf(err, PAIMON_ERR_CORRUPT, "timestamp value out of bounds (offset %llu, size %zu)",
                           (unsigned long long)off, len);
        out->u.ts.millis = (int64_t)rd64(base + off);
        out->u.ts.nanos = (int32_t)(s8 & 0xffffffffu);
        if (out->u.ts.nanos < 0 || out->u.ts.nanos > 999999)
          return pm_errorf(err, PAIMON_ERR_CORRUPT, "timestamp nano-of-millisecond %d out of range", out->u.ts.nanos);
      }
      return 0;
    default: break;
  }
  /* variable-length */
  const uint8_t *data;
  size_t n;
  if (s8 >> 63) {
    n = (size_t)((s8 >> 56) & 0x7f);
    if (n > 7) return pm_errorf(err, PAIMON_ERR_CORRUPT, "inline value length %zu > 7", n);
    data = slot;
  } else {
    uint64_t off = s8 >> 32;
    n = (size_t)(s8 & 0xffffffffu);
    if (off > len || n > len - off)
      return pm_errorf(err, PAIMON_ERR_CORRUPT, "variable-length value out of bounds (offset %llu, size %zu, structure size %zu)",
                       (unsigned long long)off, n, len);
    data = base + off;
  }
  out->u.bytes.data = data;
  out->u.bytes.len = n;
  switch (t->root) {
    case PM_DT_CHAR: case PM_DT_VARCHAR: out->kind = PM_V_STRING; break;
    case PM_DT_ARRAY: case PM_DT_VECTOR: out->kind = PM_V_ARRAY; break;
    case PM_DT_MAP: case PM_DT_MULTISET: out->kind = PM_V_MAP; break;
    case PM_DT_ROW: out->kind = PM_V_ROW; out->u.bytes.n = (int32_t)t->n_fields; break;
    case PM_DT_VARIANT: {
      if (n < 4) return pm_errorf(err, PAIMON_ERR_CORRUPT, "variant value shorter than 4 bytes");
      uint32_t vl = rd32(data);
      if (vl > n - 4) return pm_errorf(err, PAIMON_ERR_CORRUPT, "variant value length %u exceeds %zu", vl, n - 4);
      out->kind = PM_V_VARIANT;
      out->u.bytes.data = data + 4;
      out->u.bytes.len = vl;
      out->u.bytes.data2 = data + 4 + vl;
      out->u.bytes.len2 = n - 4 - vl;
      break;
    }
    default: out->kind = PM_V_BINARY; break;
  }
  return 0;
}

int pm_binary_row_open(const uint8_t *data, size_t len, int32_t arity, const char *what, pm_binary_row *row,
                       pm_error *err) {
  if (arity < 0 || arity > PM_ROW_MAX_ARITY)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: bad BinaryRow arity %d", what ? what : "row", arity);
  size_t fixed = pm_binary_row_null_bits_size(arity) + 8 * (size_t)arity;
  if (len < fixed)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: BinaryRow of arity %d needs %zu bytes, has %zu", what ? what : "row",
                     arity, fixed, len);
  row->data = data;
  row->len = len;
  row->arity = arity;
  return 0;
}

int pm_binary_row_open_serialized(const uint8_t *data, size_t len, const char *what, pm_binary_row *row,
                                  pm_error *err) {
  if (len < 4) return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: serialized row shorter than 4 bytes", what ? what : "row");
  int32_t arity = (int32_t)(((uint32_t)data[0] << 24) | ((uint32_t)data[1] << 16) | ((uint32_t)data[2] << 8) | data[3]);
  return pm_binary_row_open(data + 4, len - 4, arity, what, row, err);
}

int pm_binary_row_is_null(const pm_binary_row *r, int32_t i) {
  if (i < 0 || i >= r->arity) return 1;
  size_t bit = (size_t)i + 8;
  return (r->data[bit >> 3] >> (bit & 7)) & 1;
}

int pm_binary_row_get(const pm_binary_row *r, int32_t i, const pm_data_type *type, pm_value *out, pm_error *err) {
  if (i < 0 || i >= r->arity)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "field %d out of range (arity %d)", i, r->arity);
  if (pm_binary_row_is_null(r, i)) {
    memset(out, 0, sizeof(*out));
    return 0;
  }
  const uint8_t *slot = r->data + pm_binary_row_null_bits_size(r->arity) + 8 * (size_t)i;
  int rc = decode_slot(r->data, r->len, slot, 8, type, out, err);
  if (rc) pm_error_prefix(err, "BinaryRow field %d: ", i);
  return rc;
}

int pm_binary_array_open(const uint8_t *data, size_t len, pm_binary_array *arr, pm_error *err) {
  if (len < 4) return pm_errorf(err, PAIMON_ERR_CORRUPT, "BinaryArray shorter than 4 bytes");
  int32_t n = (int32_t)rd32(data);
  if (n < 0) return pm_errorf(err, PAIMON_ERR_CORRUPT, "BinaryArray with negative size %d", n);
  size_t header = 4 + ((size_t)n + 31) / 32 * 4;
  if (header > len || (size_t)n > len) /* each element takes at least 1 byte */
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "BinaryArray of %d elements does not fit in %zu bytes", n, len);
  arr->data = data;
  arr->len = len;
  arr->n = n;
  return 0;
}

int pm_binary_array_is_null(const pm_binary_array *a, int32_t i) {
  if (i < 0 || i >= a->n) return 1;
  return (a->data[4 + (i >> 3)] >> (i & 7)) & 1;
}

int pm_binary_array_get(const pm_binary_array *a, int32_t i, const pm_data_type *elem_type, pm_value *out,
                        pm_error *err) {
  if (i < 0 || i >= a->n) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "element %d out of range (%d)", i, a->n);
  int es = elem_size_of(elem_type);
  size_t header = 4 + ((size_t)a->n + 31) / 32 * 4;
  if (header + (size_t)es * (size_t)a->n > a->len)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "BinaryArray elements (%d x %d bytes) exceed %zu bytes", a->n, es, a->len);
  if (pm_binary_array_is_null(a, i)) {
    memset(out, 0, sizeof(*out));
    return 0;
  }
  return decode_slot(a->data, a->len, a->data + header + (size_t)es * (size_t)i, es, elem_type, out, err);
}

int pm_binary_map_open(const uint8_t *data, size_t len, pm_binary_array *keys, pm_binary_array *values,
                       pm_error *err) {
  if (len < 4) return pm_errorf(err, PAIMON_ERR_CORRUPT, "BinaryMap shorter than 4 bytes");
  uint32_t kb = rd32(data);
  if (kb > len - 4) return pm_errorf(err, PAIMON_ERR_CORRUPT, "BinaryMap key array size %u exceeds %zu", kb, len - 4);
  PM_TRY(pm_binary_array_open(data + 4, kb, keys, err));
  PM_TRY(pm_binary_array_open(data + 4 + kb, len - 4 - kb, values, err));
  if (keys->n != values->n)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "BinaryMap with %d keys but %d values", keys->n, values->n);
  return 0;
}

/* ---------------- encoding ---------------- */

static size_t round8(size_t n) { return (n + 7) & ~(size_t)7; }

/* Appends n bytes + zero padding to 8 to the variable part; returns offset in *off. */
static int append_var(pm_buf *b, const uint8_t *data, size_t n, size_t reserve, size_t *off) {
  size_t total = round8(reserve > n ? reserve : n);
  *off = b->len;
  if (pm_buf_reserve(b, total)) return PAIMON_ERR_NOMEM;
  if (n) memcpy(b->data + b->len, data, n);
  memset(b->data + b->len + n, 0, total - n);
  b->len += total;
  return 0;
}

/* Writes value v of type t into the slot at slot_off (width bytes) of the structure in b,
 * whose null bit is set through null_bit_byte/null_bit_mask. */
static int encode_slot(pm_buf *b, size_t slot_off, int width, size_t null_byte, uint8_t null_mask,
                       const pm_data_type *t, const pm_value *v, pm_error *err) {
  int is_null = v == NULL || v->kind == PM_V_NULL;
  uint8_t tmp[16];
  if (is_null) {
    b->data[null_byte] |= null_mask;
    memset(b->data + slot_off, 0, (size_t)width);
    if (t->root == PM_DT_DECIMAL && t->precision > 18) {
      size_t off;
      if (append_var(b, NULL, 0, 16, &off)) return PM_NOMEM(err);
      wr64(b->data + slot_off, (uint64_t)off << 32);
    } else if ((t->root == PM_DT_TIMESTAMP || t->root == PM_DT_TIMESTAMP_LTZ) && t->precision > 3) {
      size_t off;
      if (append_var(b, NULL, 0, 8, &off)) return PM_NOMEM(err);
      wr64(b->data + slot_off, (uint64_t)off << 32);
    }
    return 0;
  }
  uint8_t *slot = b->data + slot_off;
  switch (t->root) {
    case PM_DT_BOOLEAN: case PM_DT_TINYINT: slot[0] = (uint8_t)v->u.i64; return 0;
    case PM_DT_SMALLINT: slot[0] = (uint8_t)v->u.i64; slot[1] = (uint8_t)(v->u.i64 >> 8); return 0;
    case PM_DT_INT: case PM_DT_DATE: case PM_DT_TIME:
      for (int i = 0; i < 4; i++) slot[i] = (uint8_t)((uint64_t)v->u.i64 >> (8 * i));
      return 0;
    case PM_DT_BIGINT: wr64(slot, (uint64_t)v->u.i64); return 0;
    case PM_DT_FLOAT: {
      float f = (float)v->u.f64;
      uint32_t bits;
      memcpy(&bits, &f, 4);
      for (int i = 0; i < 4; i++) slot[i] = (uint8_t)(bits >> (8 * i));
      return 0;
    }
    case PM_DT_DOUBLE: {
      uint64_t bits;
      memcpy(&bits, &v->u.f64, 8);
      wr64(slot, bits);
      return 0;
    }
    case PM_DT_DECIMAL:
      if (v->kind != PM_V_DECIMAL) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "decimal field given a non-decimal value");
      if (t->precision <= 18) {
        wr64(slot, v->u.dec.lo);
      } else {
        size_t n = pm_decimal_to_be_bytes(&v->u.dec, tmp), off;
        if (append_var(b, tmp, n, 16, &off)) return PM_NOMEM(err);
        wr64(b->data + slot_off, ((uint64_t)off << 32) | n);
      }
      return 0;
    case PM_DT_TIMESTAMP:
    case PM_DT_TIMESTAMP_LTZ:
      if (t->precision <= 3) {
        wr64(slot, (uint64_t)v->u.ts.millis);
      } else {
        size_t off;
        wr64(tmp, (uint64_t)v->u.ts.millis);
        if (append_var(b, tmp, 8, 8, &off)) return PM_NOMEM(err);
        wr64(b->data + slot_off, ((uint64_t)off << 32) | (uint32_t)v->u.ts.nanos);
      }
      return 0;
    case PM_DT_VARIANT: {
      size_t n = 4 + v->u.bytes.len + v->u.bytes.len2, off;
      if (v->u.bytes.len > 0x7fffffff || n > 0x7fffffff)
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "variant too large");
      uint8_t *chunk = malloc(n);
      if (!chunk) return PM_NOMEM(err);
      for (int i = 0; i < 4; i++) chunk[i] = (uint8_t)(v->u.bytes.len >> (8 * i));
      if (v->u.bytes.len) memcpy(chunk + 4, v->u.bytes.data, v->u.bytes.len);
      if (v->u.bytes.len2) memcpy(chunk + 4 + v->u.bytes.len, v->u.bytes.data2, v->u.bytes.len2);
      int rc = append_var(b, chunk, n, 0, &off);
      free(chunk);
      if (rc) return PM_NOMEM(err);
      wr64(b->data + slot_off, ((uint64_t)off << 32) | n);
      return 0;
    }
    default: break;
  }
  size_t n = v->u.bytes.len;
  if (n > 0x7fffffff) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "value of %zu bytes too large for a BinaryRow", n);
  int inline_ok = pm_dtype_is_string(t->root) || pm_dtype_is_binary(t->root);
  if (inline_ok && n <= 7) {
    memset(slot, 0, 8);
    if (n) memcpy(slot, v->u.bytes.data, n);
    slot[7] = (uint8_t)(0x80 | n);
    return 0;
  }
  size_t off;
  if (append_var(b, v->u.bytes.data, n, 0, &off)) return PM_NOMEM(err);
  wr64(b->data + slot_off, ((uint64_t)off << 32) | n);
  return 0;
}

int pm_row_writer_init(pm_binary_row_writer *w, int32_t arity, pm_error *err) {
  if (arity < 0 || arity > PM_ROW_MAX_ARITY) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "bad arity %d", arity);
  pm_buf_init(&w->buf);
  w->arity = arity;
  w->null_bits = pm_binary_row_null_bits_size(arity);
  if (pm_buf_append_zeros(&w->buf, w->null_bits + 8 * (size_t)arity)) return PM_NOMEM(err);
  return 0;
}

void pm_row_writer_free(pm_binary_row_writer *w) { pm_buf_free(&w->buf); }

int pm_row_writer_reset(pm_binary_row_writer *w, pm_error *err) {
  w->buf.len = 0;
  if (pm_buf_append_zeros(&w->buf, w->null_bits + 8 * (size_t)w->arity)) return PM_NOMEM(err);
  return 0;
}

void pm_row_writer_set_kind(pm_binary_row_writer *w, uint8_t kind) { w->buf.data[0] = kind; }

int pm_row_writer_write(pm_binary_row_writer *w, int32_t i, const pm_data_type *type, const pm_value *v,
                        pm_error *err) {
  if (i < 0 || i >= w->arity) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "field %d out of range", i);
  size_t bit = (size_t)i + 8;
  return encode_slot(&w->buf, w->null_bits + 8 * (size_t)i, 8, bit >> 3, (uint8_t)(1u << (bit & 7)), type, v, err);
}

int pm_row_writer_set_null_fixed(pm_binary_row_writer *w, int32_t i) {
  if (i < 0 || i >= w->arity) return PAIMON_ERR_INVALID_ARGUMENT;
  size_t bit = (size_t)i + 8;
  w->buf.data[bit >> 3] |= (uint8_t)(1u << (bit & 7));
  memset(w->buf.data + w->null_bits + 8 * (size_t)i, 0, 8);
  return 0;
}

int pm_row_writer_write_int64(pm_binary_row_writer *w, int32_t i, int64_t v) {
  if (i < 0 || i >= w->arity) return PAIMON_ERR_INVALID_ARGUMENT;
  wr64(w->buf.data + w->null_bits + 8 * (size_t)i, (uint64_t)v);
  return 0;
}

int pm_row_writer_write_int32(pm_binary_row_writer *w, int32_t i, int32_t v) {
  if (i < 0 || i >= w->arity) return PAIMON_ERR_INVALID_ARGUMENT;
  uint8_t *s = w->buf.data + w->null_bits + 8 * (size_t)i;
  memset(s, 0, 8);
  for (int k = 0; k < 4; k++) s[k] = (uint8_t)((uint32_t)v >> (8 * k));
  return 0;
}

int pm_row_writer_write_bytes(pm_binary_row_writer *w, int32_t i, const uint8_t *b, size_t n, pm_error *err) {
  static const pm_data_type bytes_type = {.root = PM_DT_VARBINARY, .nullable = 1, .length = PM_DT_MAX_LENGTH};
  pm_value v = {.kind = PM_V_BINARY};
  v.u.bytes.data = b;
  v.u.bytes.len = n;
  return pm_row_writer_write(w, i, &bytes_type, &v, err);
}

int pm_row_writer_finish(pm_binary_row_writer *w, int with_arity_prefix, pm_buf *out, pm_error *err) {
  if (with_arity_prefix) {
    uint8_t p[4] = {(uint8_t)(w->arity >> 24), (uint8_t)(w->arity >> 16), (uint8_t)(w->arity >> 8), (uint8_t)w->arity};
    if (pm_buf_append(out, p, 4)) return PM_NOMEM(err);
  }
  if (pm_buf_append(out, w->buf.data, w->buf.len)) return PM_NOMEM(err);
  return 0;
}

int pm_array_writer_init(pm_binary_array_writer *w, int32_t n, const pm_data_type *elem_type, pm_error *err) {
  if (n < 0) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "negative array size");
  pm_buf_init(&w->buf);
  w->n = n;
  w->elem_size = (size_t)elem_size_of(elem_type);
  w->header = 4 + ((size_t)n + 31) / 32 * 4;
  w->fixed = round8(w->header + w->elem_size * (size_t)n);
  if (pm_buf_append_zeros(&w->buf, w->fixed)) return PM_NOMEM(err);
  for (int i = 0; i < 4; i++) w->buf.data[i] = (uint8_t)((uint32_t)n >> (8 * i));
  return 0;
}

void pm_array_writer_free(pm_binary_array_writer *w) { pm_buf_free(&w->buf); }

int pm_array_writer_write(pm_binary_array_writer *w, int32_t i, const pm_data_type *elem_type, const pm_value *v,
                          pm_error *err) {
  if (i < 0 || i >= w->n) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "element %d out of range", i);
  return encode_slot(&w->buf, w->header + w->elem_size * (size_t)i, (int)w->elem_size, 4 + ((size_t)i >> 3),
                     (uint8_t)(1u << (i & 7)), elem_type, v, err);
}

int pm_array_writer_finish(pm_binary_array_writer *w, pm_buf *out, pm_error *err) {
  if (pm_buf_append(out, w->buf.data, w->buf.len)) return PM_NOMEM(err);
  return 0;
}

int pm_binary_map_build(const uint8_t *keys, size_t keys_len, const uint8_t *values, size_t values_len, pm_buf *out,
                        pm_error *err) {
  if (keys_len > INT32_MAX || values_len > INT32_MAX)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "map arrays too large");
  uint8_t n[4] = {(uint8_t)keys_len, (uint8_t)(keys_len >> 8), (uint8_t)(keys_len >> 16), (uint8_t)(keys_len >> 24)};
  if (pm_buf_append(out, n, 4) || pm_buf_append(out, keys, keys_len) || pm_buf_append(out, values, values_len))
    return PM_NOMEM(err);
  return 0;
}
