/* Bloom-filter file index (Java's BloomFilterFileIndex over BloomFilter64):
 * int32 BE number of hash functions, then the bit set bytes. Values hash to
 * 64 bits: XXH64 (seed 0) of the bytes of strings / binaries, Thomas Wang's
 * 64-bit integer hash of integers, dates, times, float / double bits and
 * timestamps (millis for precision <= 3, else micros). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "meta/fileindex.h"

/* ---- XXH64, seed 0 ---- */

#define P1 0x9E3779B185EBCA87ULL
#define P2 0xC2B2AE3D27D4EB4FULL
#define P3 0x165667B19E3779F9ULL
#define P4 0x85EBCA77C2B2AE63ULL
#define P5 0x27D4EB2F165667C5ULL

static inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
static inline uint64_t rd64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}
static inline uint32_t rd32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline uint64_t round64(uint64_t acc, uint64_t in) {
  acc += in * P2;
  acc = rotl64(acc, 31);
  return acc * P1;
}
static inline uint64_t merge64(uint64_t acc, uint64_t v) {
  acc ^= round64(0, v);
  return acc * P1 + P4;
}

static uint64_t xxh64(const uint8_t *p, size_t n) {
  const uint8_t *end = p + n;
  uint64_t h;
  if (n >= 32) {
    uint64_t v1 = P1 + P2, v2 = P2, v3 = 0, v4 = 0 - P1;
    const uint8_t *limit = end - 32;
    do {
      v1 = round64(v1, rd64(p));
      v2 = round64(v2, rd64(p + 8));
      v3 = round64(v3, rd64(p + 16));
      v4 = round64(v4, rd64(p + 24));
      p += 32;
    } while (p <= limit);
    h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
    h = merge64(h, v1);
    h = merge64(h, v2);
    h = merge64(h, v3);
    h = merge64(h, v4);
  } else {
    h = P5;
  }
  h += (uint64_t)n;
  while (p + 8 <= end) {
    h ^= round64(0, rd64(p));
    h = rotl64(h, 27) * P1 + P4;
    p += 8;
  }
  if (p + 4 <= end) {
    h ^= (uint64_t)rd32(p) * P1;
    h = rotl64(h, 23) * P2 + P3;
    p += 4;
  }
  while (p < end) {
    h ^= (uint64_t)(*p) * P5;
    h = rotl64(h, 11) * P1;
    p++;
  }
  h ^= h >> 33;
  h *= P2;
  h ^= h >> 29;
  h *= P3;
  h ^= h >> 32;
  return h;
}

/* Thomas Wang's 64-bit hash with Java's arithmetic (>> is arithmetic on long). */
static int64_t wang64(int64_t key) {
  uint64_t k = (uint64_t)key;
  k = (~k) + (k << 21);
  k = k ^ (uint64_t)((int64_t)k >> 24);
  k = (k + (k << 3)) + (k << 8);
  k = k ^ (uint64_t)((int64_t)k >> 14);
  k = (k + (k << 2)) + (k << 4);
  k = k ^ (uint64_t)((int64_t)k >> 28);
  k = k + (k << 31);
  return (int64_t)k;
}

static int bloom_type_ok(const pm_data_type *t) {
  switch (t->root) {
    case PM_DT_CHAR: case PM_DT_VARCHAR: case PM_DT_BINARY: case PM_DT_VARBINARY:
    case PM_DT_TINYINT: case PM_DT_SMALLINT: case PM_DT_INT: case PM_DT_BIGINT:
    case PM_DT_FLOAT: case PM_DT_DOUBLE: case PM_DT_DATE: case PM_DT_TIME:
    case PM_DT_TIMESTAMP: case PM_DT_TIMESTAMP_LTZ:
      return 1;
    default:
      return 0;
  }
}

/* 64-bit hash of a non-null value of type t; 0 = the value kind does not fit the type. */
static int value_hash(const pm_data_type *t, const pm_value *v, int64_t *h) {
  switch (t->root) {
    case PM_DT_CHAR: case PM_DT_VARCHAR:
      if (v->kind != PM_V_STRING) return 0;
      *h = (int64_t)xxh64(v->u.bytes.data, v->u.bytes.len);
      return 1;
    case PM_DT_BINARY: case PM_DT_VARBINARY:
      if (v->kind != PM_V_BINARY && v->kind != PM_V_STRING) return 0;
      *h = (int64_t)xxh64(v->u.bytes.data, v->u.bytes.len);
      return 1;
    case PM_DT_TINYINT: case PM_DT_SMALLINT: case PM_DT_INT: case PM_DT_BIGINT: case PM_DT_DATE: case PM_DT_TIME:
      if (v->kind != PM_V_INT) return 0;
      *h = wang64(v->u.i64);
      return 1;
    case PM_DT_FLOAT: {
      if (v->kind != PM_V_FLOAT && v->kind != PM_V_DOUBLE) return 0;
      float f = (float)v->u.f64;
      uint32_t bits;
      if (f != f) bits = 0x7fc00000u; /* Float.floatToIntBits canonical NaN */
      else memcpy(&bits, &f, 4);
      *h = wang64((int64_t)(int32_t)bits);
      return 1;
    }
    case PM_DT_DOUBLE: {
      if (v->kind != PM_V_DOUBLE && v->kind != PM_V_FLOAT) return 0;
      double d = v->u.f64;
      uint64_t bits;
      if (d != d) bits = 0x7ff8000000000000ULL;
      else memcpy(&bits, &d, 8);
      *h = wang64((int64_t)bits);
      return 1;
    }
    case PM_DT_TIMESTAMP: case PM_DT_TIMESTAMP_LTZ:
      if (v->kind != PM_V_TIMESTAMP) return 0;
      if (t->precision <= 3) *h = wang64(v->u.ts.millis);
      else *h = wang64((int64_t)((uint64_t)v->u.ts.millis * 1000u) + v->u.ts.nanos / 1000);
      return 1;
    default:
      return 0;
  }
}

/* Java int arithmetic of BloomFilter64.addHash / testHash. */
static int32_t bit_pos(int64_t hash, int32_t i, int32_t nbits) {
  int32_t h1 = (int32_t)(uint32_t)(uint64_t)hash;
  int32_t h2 = (int32_t)(uint32_t)((uint64_t)hash >> 32);
  int32_t c = (int32_t)((uint32_t)h1 + (uint32_t)i * (uint32_t)h2);
  if (c < 0) c = ~c;
  return c % nbits;
}

static int bloom_may_contain(const uint8_t *bits, int32_t nbits, int32_t k, int64_t hash) {
  for (int32_t i = 1; i <= k; i++) {
    int32_t pos = bit_pos(hash, i, nbits);
    if (!(bits[pos >> 3] & (1u << (pos & 7)))) return 0;
  }
  return 1;
}

int pm_fidx_bloom_test(const uint8_t *b, size_t n, const pm_data_type *t, const pm_predicate *leaf,
                       pm_fidx_result *out, const char *what, pm_error *err) {
  out->kind = PM_FIDX_REMAIN;
  if (leaf->op != PM_PRED_EQUAL && leaf->op != PM_PRED_IN) return 0;
  if (!bloom_type_ok(t)) return 0;
  if (n < 5 || n - 4 > (size_t)INT32_MAX / 8)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "file index %s: bloom filter of %zu bytes", what ? what : "(embedded)",
                     n);
  /* Java reads the count with sign-extended byte arithmetic; counts are small */
  int32_t k = (int32_t)(((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) | ((uint32_t)b[2] << 8) | b[3]);
  if (k <= 0 || k > 1024)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "file index %s: bloom filter with %d hash functions",
                     what ? what : "(embedded)", k);
  int32_t nbits = (int32_t)((n - 4) * 8);
  int any = 0;
  for (size_t i = 0; i < leaf->n_literals; i++) {
    const pm_value *v = &leaf->literals[i];
    int64_t h;
    if (v->kind == PM_V_NULL || !value_hash(t, v, &h)) return 0; /* null literal: REMAIN */
    if (bloom_may_contain(b + 4, nbits, k, h)) any = 1;
  }
  if (!any) out->kind = PM_FIDX_SKIP;
  return 0;
}

/* ---- writer ---- */

typedef struct bloom_writer {
  pm_fidx_col_writer base;
  const pm_data_type *type;
  int32_t nbits, k;
  uint8_t *bits;
} bloom_writer;

static int bw_add(pm_fidx_col_writer *cw, const pm_value *v, pm_error *err) {
  bloom_writer *w = (bloom_writer *)cw;
  (void)err;
  if (v->kind == PM_V_NULL) return 0;
  int64_t h;
  if (!value_hash(w->type, v, &h)) return 0;
  for (int32_t i = 1; i <= w->k; i++) {
    int32_t pos = bit_pos(h, i, w->nbits);
    w->bits[pos >> 3] |= (uint8_t)(1u << (pos & 7));
  }
  return 0;
}

static int bw_finish(pm_fidx_col_writer *cw, pm_buf *out, pm_error *err) {
  bloom_writer *w = (bloom_writer *)cw;
  uint8_t hdr[4] = {(uint8_t)(w->k >> 24), (uint8_t)(w->k >> 16), (uint8_t)(w->k >> 8), (uint8_t)w->k};
  if (pm_buf_append(out, hdr, 4) || pm_buf_append(out, w->bits, (size_t)w->nbits / 8)) return PM_NOMEM(err);
  return 0;
}

static void bw_free(pm_fidx_col_writer *cw) {
  bloom_writer *w = (bloom_writer *)cw;
  if (!w) return;
  free(w->bits);
  free(w);
}

static const pm_fidx_col_writer_ops bloom_ops = {bw_add, bw_finish, bw_free};

static int parse_num(const char *s, double *out) {
  char *end;
  *out = strtod(s, &end);
  while (*end == ' ') end++;
  return end != s && *end == '\0';
}

int pm_fidx_bloom_writer_new(const pm_data_type *t, const pm_fidx_opts *o, const char *column,
                             pm_fidx_col_writer **out, pm_error *err) {
  *out = NULL;
  if (!bloom_type_ok(t))
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "file-index.%s.columns: column '%s' has a type the bloom filter "
                     "index does not support", PM_FIDX_BLOOM, column);
  double items = 1000000, fpp = 0.1;
  const char *s = pm_fidx_opt(o, "items");
  if (s && (!parse_num(s, &items) || items != floor(items) || items <= 0 || items > INT32_MAX))
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "file-index.%s.%s.items: '%s' is not a positive integer",
                     PM_FIDX_BLOOM, column, s);
  s = pm_fidx_opt(o, "fpp");
  if (s && (!parse_num(s, &fpp) || !(fpp > 0 && fpp < 1)))
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "file-index.%s.%s.fpp: '%s' is not a probability in (0, 1)",
                     PM_FIDX_BLOOM, column, s);
  /* BloomFilter64(items, fpp) */
  double nbd = -items * log(fpp) / (log(2) * log(2));
  if (nbd > (double)INT32_MAX - 8)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "file-index.%s.%s: items / fpp give a bloom filter over 2^31 "
                     "bits", PM_FIDX_BLOOM, column);
  int32_t nb = (int32_t)nbd;
  int32_t nbits = nb + (8 - (nb % 8));
  int32_t k = (int32_t)llround((double)nbits / items * log(2));
  if (k < 1) k = 1;
  bloom_writer *w = calloc(1, sizeof *w);
  if (!w) return PM_NOMEM(err);
  w->base.ops = &bloom_ops;
  w->type = t;
  w->nbits = nbits;
  w->k = k;
  w->bits = calloc((size_t)nbits / 8, 1);
  if (!w->bits) {
    free(w);
    return PM_NOMEM(err);
  }
  *out = &w->base;
  return 0;
}
