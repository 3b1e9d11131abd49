/* Bitmap file index (Java's BitmapFileIndex, formats V1 and V2): one
 * RoaringBitmap32 (portable serialization, run-optimized) of row positions per
 * distinct value, plus one for nulls; a bitmap of a single row is stored
 * inline as -1 - row. Values are written as Java's DataOutput writes them:
 * strings as int32 length + UTF-8 bytes, TINYINT 1 byte, SMALLINT 2, INT /
 * DATE / TIME 4, BIGINT and timestamps (millis for precision <= 3, else
 * micros) 8, FLOAT / DOUBLE their IEEE bits, BOOLEAN 1 byte; big endian.
 *
 * The writer orders values as Java's HashMap of them iterates (V1 and V2
 * value order), V2 index blocks sorted by value and cut at
 * `index-block-size` (default 16 KiB). */
#include <roaring/roaring.h>
#include <stdlib.h>
#include <string.h>

#include "meta/core_options.h"
#include "meta/fileindex.h"

static uint32_t be32(const uint8_t *p) {
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}
static void put32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}
static void put64(uint8_t *p, uint64_t v) {
  put32(p, (uint32_t)(v >> 32));
  put32(p + 4, (uint32_t)v);
}

/* Fixed key width for a type; 0 = variable (int32 length + bytes); -1 = unsupported. */
static int key_width(const pm_data_type *t) {
  switch (t->root) {
    case PM_DT_CHAR: case PM_DT_VARCHAR: return 0;
    case PM_DT_BOOLEAN: case PM_DT_TINYINT: return 1;
    case PM_DT_SMALLINT: return 2;
    case PM_DT_INT: case PM_DT_DATE: case PM_DT_TIME: case PM_DT_FLOAT: return 4;
    case PM_DT_BIGINT: case PM_DT_DOUBLE: case PM_DT_TIMESTAMP: case PM_DT_TIMESTAMP_LTZ: return 8;
    default: return -1;
  }
}

/* Encodes a non-null value as its key bytes into buf (cap 8 for fixed widths;
 * strings point to their bytes). Returns the key length, -1 if the value kind
 * does not fit the type. */
static long encode_key(const pm_data_type *t, const pm_value *v, uint8_t buf[12], const uint8_t **str) {
  *str = NULL;
  switch (t->root) {
    case PM_DT_CHAR: case PM_DT_VARCHAR:
      if (v->kind != PM_V_STRING || v->u.bytes.len > INT32_MAX) return -1;
      put32(buf, (uint32_t)v->u.bytes.len);
      *str = v->u.bytes.data;
      return (long)(4 + v->u.bytes.len);
    case PM_DT_BOOLEAN:
      if (v->kind != PM_V_BOOL) return -1;
      buf[0] = v->u.i64 ? 1 : 0;
      return 1;
    case PM_DT_TINYINT:
      if (v->kind != PM_V_INT) return -1;
      buf[0] = (uint8_t)v->u.i64;
      return 1;
    case PM_DT_SMALLINT:
      if (v->kind != PM_V_INT) return -1;
      buf[0] = (uint8_t)((uint64_t)v->u.i64 >> 8);
      buf[1] = (uint8_t)v->u.i64;
      return 2;
    case PM_DT_INT: case PM_DT_DATE: case PM_DT_TIME:
      if (v->kind != PM_V_INT) return -1;
      put32(buf, (uint32_t)v->u.i64);
      return 4;
    case PM_DT_BIGINT:
      if (v->kind != PM_V_INT) return -1;
      put64(buf, (uint64_t)v->u.i64);
      return 8;
    case PM_DT_FLOAT: {
      if (v->kind != PM_V_FLOAT && v->kind != PM_V_DOUBLE) return -1;
      float f = (float)v->u.f64;
      uint32_t bits;
      if (f != f) bits = 0x7fc00000u;
      else memcpy(&bits, &f, 4);
      put32(buf, bits);
      return 4;
    }
    case PM_DT_DOUBLE: {
      if (v->kind != PM_V_DOUBLE && v->kind != PM_V_FLOAT) return -1;
      double d = v->u.f64;
      uint64_t bits;
      if (d != d) bits = 0x7ff8000000000000ULL;
      else memcpy(&bits, &d, 8);
      put64(buf, bits);
      return 8;
    }
    case PM_DT_TIMESTAMP: case PM_DT_TIMESTAMP_LTZ: {
      if (v->kind != PM_V_TIMESTAMP) return -1;
      int64_t x = t->precision <= 3 ? v->u.ts.millis
                                    : (int64_t)((uint64_t)v->u.ts.millis * 1000u) + v->u.ts.nanos / 1000;
      put64(buf, (uint64_t)x);
      return 8;
    }
    default:
      return -1;
  }
}

/* Length of the key at b[0..n) for type t; -1 if truncated. */
static long key_len_at(const pm_data_type *t, const uint8_t *b, size_t n) {
  int w = key_width(t);
  if (w > 0) return (size_t)w <= n ? w : -1;
  if (n < 4) return -1;
  uint32_t l = be32(b);
  if (l > INT32_MAX || (size_t)l > n - 4) return -1;
  return (long)(4 + l);
}

static int key_eq(const uint8_t *k, long kl, const uint8_t *buf, long len, const uint8_t *str) {
  if (kl != len) return 0;
  if (!str) return memcmp(k, buf, (size_t)len) == 0;
  return memcmp(k, buf, 4) == 0 && memcmp(k + 4, str, (size_t)len - 4) == 0;
}

typedef struct bm_meta {
  const uint8_t *b;
  size_t n;
  const pm_data_type *t;
  const char *what;
  int version;
  int32_t row_count;
  int has_null;
  int32_t null_offset;
  size_t body_start;
  /* V1 */
  size_t v1_entries;  /* position of the value entries */
  int32_t n_values;
  /* V2 */
  size_t block_start; /* index blocks */
  size_t v2_blocks;   /* position of the block directory */
  int32_t n_blocks;
} bm_meta;

static int bad(const bm_meta *m, pm_error *err, const char *msg) {
  return pm_errorf(err, PAIMON_ERR_CORRUPT, "file index %s: bitmap index: %s", m->what ? m->what : "(embedded)", msg);
}

static int parse_meta(bm_meta *m, pm_error *err) {
  const uint8_t *b = m->b;
  size_t n = m->n;
  if (n < 10) return bad(m, err, "truncated header");
  m->version = b[0];
  if (m->version != 1 && m->version != 2)
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "file index %s: bitmap index version %d",
                     m->what ? m->what : "(embedded)", m->version);
  m->row_count = (int32_t)be32(b + 1);
  m->n_values = (int32_t)be32(b + 5);
  if (m->row_count < 0 || m->n_values < 0) return bad(m, err, "negative counts");
  m->has_null = b[9] != 0;
  size_t pos = 10;
  if (m->has_null) {
    if (pos + 4 > n) return bad(m, err, "truncated header");
    m->null_offset = (int32_t)be32(b + pos);
    pos += 4;
    if (m->version == 2) {
      if (pos + 4 > n) return bad(m, err, "truncated header");
      pos += 4; /* null bitmap length: the bitmap is read up to its own end */
    }
  }
  if (m->version == 1) {
    m->v1_entries = pos;
    for (int32_t i = 0; i < m->n_values; i++) {
      long kl = key_len_at(m->t, b + pos, n - pos);
      if (kl < 0 || pos + (size_t)kl + 4 > n) return bad(m, err, "truncated value entries");
      pos += (size_t)kl + 4;
    }
    m->body_start = pos;
    return 0;
  }
  if (pos + 4 > n) return bad(m, err, "truncated header");
  m->n_blocks = (int32_t)be32(b + pos);
  pos += 4;
  if (m->n_blocks < 0) return bad(m, err, "negative block count");
  m->v2_blocks = pos;
  for (int32_t i = 0; i < m->n_blocks; i++) {
    long kl = key_len_at(m->t, b + pos, n - pos);
    if (kl < 0 || pos + (size_t)kl + 4 > n) return bad(m, err, "truncated block directory");
    pos += (size_t)kl + 4;
  }
  if (pos + 4 > n) return bad(m, err, "truncated header");
  uint32_t body_off = be32(b + pos);
  pos += 4;
  m->block_start = pos;
  if (body_off > n - pos) return bad(m, err, "bitmap body offset out of range");
  m->body_start = pos + body_off;
  return 0;
}

/* Reads the bitmap stored at body offset `off` (or inline when negative). */
static int read_bitmap(const bm_meta *m, int32_t off, roaring_bitmap_t **out, pm_error *err) {
  *out = NULL;
  if (off < 0) {
    *out = roaring_bitmap_create();
    if (!*out) return PM_NOMEM(err);
    roaring_bitmap_add(*out, (uint32_t)(-1 - (int64_t)off));
    return 0;
  }
  if ((size_t)off > m->n - m->body_start) return bad(m, err, "bitmap offset out of range");
  const char *p = (const char *)m->b + m->body_start + off;
  size_t max = m->n - m->body_start - (size_t)off;
  if (!roaring_bitmap_portable_deserialize_size(p, max)) return bad(m, err, "bad roaring bitmap");
  *out = roaring_bitmap_portable_deserialize_safe(p, max);
  if (!*out) return bad(m, err, "bad roaring bitmap");
  return 0;
}

/* Offset of the value's bitmap: 1 found (*off set), 0 absent. */
static int find_value(const bm_meta *m, const uint8_t *kb, long kl, const uint8_t *str, int32_t *off, pm_error *err,
                      int *rc) {
  *rc = 0;
  const uint8_t *b = m->b;
  size_t n = m->n;
  if (m->version == 1) {
    size_t pos = m->v1_entries;
    for (int32_t i = 0; i < m->n_values; i++) {
      long l = key_len_at(m->t, b + pos, n - pos);
      if (key_eq(b + pos, l, kb, kl, str)) {
        *off = (int32_t)be32(b + pos + l);
        return 1;
      }
      pos += (size_t)l + 4;
    }
    return 0;
  }
  size_t dir = m->v2_blocks;
  for (int32_t i = 0; i < m->n_blocks; i++) {
    long l = key_len_at(m->t, b + dir, n - dir);
    uint32_t boff = be32(b + dir + l);
    dir += (size_t)l + 4;
    if (boff > n - m->block_start || n - m->block_start - boff < 4) {
      *rc = bad(m, err, "index block out of range");
      return 0;
    }
    size_t pos = m->block_start + boff;
    int32_t cnt = (int32_t)be32(b + pos);
    pos += 4;
    if (cnt < 0) {
      *rc = bad(m, err, "negative entry count");
      return 0;
    }
    for (int32_t k = 0; k < cnt; k++) {
      long el = key_len_at(m->t, b + pos, n - pos);
      if (el < 0 || pos + (size_t)el + 8 > n) {
        *rc = bad(m, err, "truncated index block");
        return 0;
      }
      if (key_eq(b + pos, el, kb, kl, str)) {
        *off = (int32_t)be32(b + pos + el);
        return 1;
      }
      pos += (size_t)el + 8;
    }
  }
  return 0;
}

/* Bitmap of the rows holding value v (NULL kind = the null rows). */
static int value_rows(const bm_meta *m, const pm_value *v, roaring_bitmap_t **out, int *unknown, pm_error *err) {
  *out = NULL;
  *unknown = 0;
  if (v->kind == PM_V_NULL) {
    if (!m->has_null) {
      *out = roaring_bitmap_create();
      return *out ? 0 : PM_NOMEM(err);
    }
    return read_bitmap(m, m->null_offset, out, err);
  }
  uint8_t buf[12];
  const uint8_t *str;
  long kl = encode_key(m->t, v, buf, &str);
  if (kl < 0) {
    *unknown = 1;
    return 0;
  }
  int32_t off;
  int rc;
  if (find_value(m, buf, kl, str, &off, err, &rc)) return read_bitmap(m, off, out, err);
  if (rc) return rc;
  *out = roaring_bitmap_create();
  return *out ? 0 : PM_NOMEM(err);
}

int pm_fidx_bitmap_test(const uint8_t *b, size_t n, const pm_data_type *t, const pm_predicate *leaf,
                        pm_fidx_result *out, const char *what, pm_error *err) {
  out->kind = PM_FIDX_REMAIN;
  out->rows = NULL;
  if (key_width(t) < 0) return 0;
  int negate;
  pm_value null_v = {.kind = PM_V_NULL};
  const pm_value *lits;
  size_t nl;
  switch (leaf->op) {
    case PM_PRED_EQUAL: case PM_PRED_IN: negate = 0; lits = leaf->literals; nl = leaf->n_literals; break;
    case PM_PRED_NOT_EQUAL: case PM_PRED_NOT_IN: negate = 1; lits = leaf->literals; nl = leaf->n_literals; break;
    case PM_PRED_IS_NULL: negate = 0; lits = &null_v; nl = 1; break;
    case PM_PRED_IS_NOT_NULL: negate = 1; lits = &null_v; nl = 1; break;
    default: return 0;
  }
  bm_meta m = {.b = b, .n = n, .t = t, .what = what};
  PM_TRY(parse_meta(&m, err));
  roaring_bitmap_t *acc = roaring_bitmap_create();
  if (!acc) return PM_NOMEM(err);
  for (size_t i = 0; i < nl; i++) {
    roaring_bitmap_t *r;
    int unknown;
    int rc = value_rows(&m, &lits[i], &r, &unknown, err);
    if (rc || unknown) {
      roaring_bitmap_free(acc);
      return rc;
    }
    roaring_bitmap_or_inplace(acc, r);
    roaring_bitmap_free(r);
  }
  if (negate) roaring_bitmap_flip_inplace(acc, 0, (uint64_t)m.row_count);
  out->kind = PM_FIDX_ROWS;
  out->rows = acc;
  return 0;
}

/* ---- writer ---- */

typedef struct bm_value {
  size_t key_off; /* into keys */
  long key_len;
  int32_t hash;   /* Java hashCode of the mapped value */
  roaring_bitmap_t *rows;
} bm_value;

typedef struct bitmap_writer {
  pm_fidx_col_writer base;
  const pm_data_type *type;
  int version;
  int64_t block_limit;
  pm_buf keys;
  bm_value *vals;
  size_t n_vals, cap_vals;
  size_t *slots; /* open addressing: index + 1 into vals, 0 = empty */
  size_t n_slots;
  roaring_bitmap_t *nulls;
  int64_t rows;
} bitmap_writer;

static uint64_t fnv(const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < an; i++) h = (h ^ a[i]) * 1099511628211ULL;
  for (size_t i = 0; i < bn; i++) h = (h ^ b[i]) * 1099511628211ULL;
  return h;
}

static int32_t java_hash(const pm_data_type *t, const uint8_t *k, long kl) {
  switch (t->root) {
    case PM_DT_CHAR: case PM_DT_VARCHAR: return pm_java_binary_string_hash(k + 4, (size_t)kl - 4);
    case PM_DT_BOOLEAN: return k[0] ? 1231 : 1237;
    case PM_DT_TINYINT: return (int32_t)(int8_t)k[0];
    case PM_DT_SMALLINT: return (int32_t)(int16_t)(((uint16_t)k[0] << 8) | k[1]);
    case PM_DT_INT: case PM_DT_DATE: case PM_DT_TIME: case PM_DT_FLOAT: return (int32_t)be32(k);
    default: { /* Long / Double: (int)(bits ^ (bits >>> 32)) */
      uint64_t v = ((uint64_t)be32(k) << 32) | be32(k + 4);
      return (int32_t)(uint32_t)(v ^ (v >> 32));
    }
  }
}

static int grow_slots(bitmap_writer *w, pm_error *err) {
  size_t ns = w->n_slots ? w->n_slots * 2 : 64;
  size_t *s = calloc(ns, sizeof *s);
  if (!s) return PM_NOMEM(err);
  for (size_t i = 0; i < w->n_vals; i++) {
    const bm_value *v = &w->vals[i];
    uint64_t h = fnv(w->keys.data + v->key_off, (size_t)v->key_len, NULL, 0);
    size_t j = (size_t)h & (ns - 1);
    while (s[j]) j = (j + 1) & (ns - 1);
    s[j] = i + 1;
  }
  free(w->slots);
  w->slots = s;
  w->n_slots = ns;
  return 0;
}

static int bmw_add(pm_fidx_col_writer *cw, const pm_value *v, pm_error *err) {
  bitmap_writer *w = (bitmap_writer *)cw;
  if (w->rows >= INT32_MAX)
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "bitmap file index: more than 2^31 - 1 rows in one data file");
  uint32_t row = (uint32_t)w->rows++;
  if (v->kind == PM_V_NULL) {
    roaring_bitmap_add(w->nulls, row);
    return 0;
  }
  uint8_t buf[12];
  const uint8_t *str;
  long kl = encode_key(w->type, v, buf, &str);
  if (kl < 0) return pm_errorf(err, PAIMON_ERR_INTERNAL, "bitmap file index: value does not match the column type");
  size_t head = str ? 4 : (size_t)kl;
  if ((w->n_vals + 1) * 2 > w->n_slots) PM_TRY(grow_slots(w, err));
  /* hash over the whole key bytes */
  uint64_t h = fnv(buf, head, str, str ? (size_t)kl - 4 : 0);
  size_t j = (size_t)h & (w->n_slots - 1);
  while (w->slots[j]) {
    bm_value *e = &w->vals[w->slots[j] - 1];
    if (key_eq(w->keys.data + e->key_off, e->key_len, buf, kl, str)) {
      roaring_bitmap_add(e->rows, row);
      return 0;
    }
    j = (j + 1) & (w->n_slots - 1);
  }
  if (w->n_vals == w->cap_vals) {
    size_t nc = w->cap_vals ? w->cap_vals * 2 : 16;
    bm_value *nv = realloc(w->vals, nc * sizeof *nv);
    if (!nv) return PM_NOMEM(err);
    w->vals = nv;
    w->cap_vals = nc;
  }
  bm_value *e = &w->vals[w->n_vals];
  e->key_off = w->keys.len;
  e->key_len = kl;
  if (pm_buf_append(&w->keys, buf, head) || (str && pm_buf_append(&w->keys, str, (size_t)kl - 4)))
    return PM_NOMEM(err);
  e->hash = java_hash(w->type, w->keys.data + e->key_off, kl);
  e->rows = roaring_bitmap_create();
  if (!e->rows) return PM_NOMEM(err);
  roaring_bitmap_add(e->rows, row);
  w->slots[j] = ++w->n_vals;
  return 0;
}

static int put_i32(pm_buf *o, int32_t v) {
  uint8_t b[4];
  put32(b, (uint32_t)v);
  return pm_buf_append(o, b, 4);
}

static int serialize_bitmap(roaring_bitmap_t *r, pm_buf *o) {
  pm_error e;
  return pm_fidx_roaring_serialize(r, o, &e);
}

/* Java's comparator of the mapped values, over key bytes. */
typedef struct sort_item {
  const uint8_t *key; /* string bytes (after the length) or NULL */
  size_t len;
  int64_t num;
  size_t idx;
} sort_item;

static int64_t num_of(const pm_data_type *t, const uint8_t *k) {
  switch (t->root) {
    case PM_DT_BOOLEAN: return k[0];
    case PM_DT_TINYINT: return (int8_t)k[0];
    case PM_DT_SMALLINT: return (int16_t)(((uint16_t)k[0] << 8) | k[1]);
    case PM_DT_INT: case PM_DT_DATE: case PM_DT_TIME: return (int32_t)be32(k);
    case PM_DT_FLOAT: { /* Float.compare order */
      int32_t i = (int32_t)be32(k);
      return i ^ ((i >> 31) & 0x7fffffff);
    }
    case PM_DT_DOUBLE: {
      int64_t i = (int64_t)(((uint64_t)be32(k) << 32) | be32(k + 4));
      return i ^ ((i >> 63) & 0x7fffffffffffffffLL);
    }
    default: return (int64_t)(((uint64_t)be32(k) << 32) | be32(k + 4));
  }
}

static int sort_cmp(const void *x, const void *y) {
  const sort_item *a = x, *b = y;
  if (a->key) {
    int c = memcmp(a->key, b->key, a->len < b->len ? a->len : b->len);
    if (c) return c;
    return a->len < b->len ? -1 : a->len > b->len;
  }
  return a->num < b->num ? -1 : a->num > b->num;
}

static int bmw_finish(pm_fidx_col_writer *cw, pm_buf *out, pm_error *err) {
  bitmap_writer *w = (bitmap_writer *)cw;
  size_t n = w->n_vals;
  int rc = 0;
  size_t *order = malloc((n ? n : 1) * sizeof *order);
  int32_t *hashes = malloc((n ? n : 1) * sizeof *hashes);
  int32_t *offs = malloc((n ? n : 1) * sizeof *offs);
  int32_t *lens = malloc((n ? n : 1) * sizeof *lens);
  size_t *sorted = malloc((n ? n : 1) * sizeof *sorted);
  sort_item *items = malloc((n ? n : 1) * sizeof *items);
  pm_buf body = {0}, nullb = {0}, meta = {0};
  if (!order || !hashes || !offs || !lens || !sorted || !items) rc = PM_NOMEM(err);
  for (size_t i = 0; !rc && i < n; i++) hashes[i] = w->vals[i].hash;
  if (!rc) rc = pm_java_hash_order(hashes, n, 1, order, err);
  uint64_t null_card = roaring_bitmap_get_cardinality(w->nulls);
  if (!rc && serialize_bitmap(w->nulls, &nullb)) rc = PM_NOMEM(err);
  int64_t off = (null_card <= 1) ? 0 : (int64_t)nullb.len;
  for (size_t k = 0; !rc && k < n; k++) {
    size_t i = order[k];
    bm_value *v = &w->vals[i];
    if (roaring_bitmap_get_cardinality(v->rows) == 1) {
      offs[i] = (int32_t)(-1 - (int64_t)roaring_bitmap_minimum(v->rows));
      lens[i] = -1;
    } else {
      size_t before = body.len;
      if (serialize_bitmap(v->rows, &body)) rc = PM_NOMEM(err);
      offs[i] = (int32_t)off;
      lens[i] = (int32_t)(body.len - before);
      off += (int64_t)(body.len - before);
    }
    if (off > INT32_MAX) rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "bitmap file index over 2 GiB");
  }
  int32_t null_off = null_card == 1 ? (int32_t)(-1 - (int64_t)roaring_bitmap_minimum(w->nulls)) : 0;
  uint8_t v8 = (uint8_t)w->version, hn = null_card > 0;
  if (!rc && (pm_buf_append(&meta, &v8, 1) || put_i32(&meta, (int32_t)w->rows) || put_i32(&meta, (int32_t)n) ||
              pm_buf_append(&meta, &hn, 1)))
    rc = PM_NOMEM(err);
  if (!rc && hn && put_i32(&meta, null_off)) rc = PM_NOMEM(err);
  if (!rc && hn && w->version == 2 && put_i32(&meta, (int32_t)nullb.len)) rc = PM_NOMEM(err);
  if (!rc && w->version == 1) {
    for (size_t k = 0; !rc && k < n; k++) {
      size_t i = order[k];
      if (pm_buf_append(&meta, w->keys.data + w->vals[i].key_off, (size_t)w->vals[i].key_len) ||
          put_i32(&meta, offs[i]))
        rc = PM_NOMEM(err);
    }
  } else if (!rc) {
    int is_str = key_width(w->type) == 0;
    for (size_t i = 0; i < n; i++) {
      const uint8_t *k = w->keys.data + w->vals[i].key_off;
      items[i].key = is_str ? k + 4 : NULL;
      items[i].len = is_str ? (size_t)w->vals[i].key_len - 4 : 0;
      items[i].num = is_str ? 0 : num_of(w->type, k);
      items[i].idx = i;
    }
    /* Java's stream sort is stable; keys are distinct, so any sort agrees */
    qsort(items, n, sizeof *items, sort_cmp);
    for (size_t i = 0; i < n; i++) sorted[i] = items[i].idx;
    /* blocks: [first index, count, serialized bytes] */
    size_t nb = 0, capb = 0;
    size_t(*blocks)[3] = NULL;
    for (size_t s = 0; !rc && s < n; s++) {
      int64_t eb = 8 + w->vals[sorted[s]].key_len;
      if (nb == 0 || (int64_t)blocks[nb - 1][2] + eb > w->block_limit) {
        if (nb && blocks[nb - 1][1] == 0) {
          rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "bitmap file index: a value does not fit index-block-size");
          break;
        }
        if (nb == capb) {
          size_t nc = capb ? capb * 2 : 8;
          void *p = realloc(blocks, nc * sizeof *blocks);
          if (!p) {
            rc = PM_NOMEM(err);
            break;
          }
          blocks = p;
          capb = nc;
        }
        blocks[nb][0] = s;
        blocks[nb][1] = 0;
        blocks[nb][2] = 4;
        nb++;
        if ((int64_t)blocks[nb - 1][2] + eb > w->block_limit) {
          rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "bitmap file index: a value does not fit index-block-size");
          break;
        }
      }
      blocks[nb - 1][1]++;
      blocks[nb - 1][2] += (size_t)eb;
    }
    if (!rc && put_i32(&meta, (int32_t)nb)) rc = PM_NOMEM(err);
    int64_t boff = 0;
    for (size_t k = 0; !rc && k < nb; k++) {
      const bm_value *first = &w->vals[sorted[blocks[k][0]]];
      if (pm_buf_append(&meta, w->keys.data + first->key_off, (size_t)first->key_len) ||
          put_i32(&meta, (int32_t)boff))
        rc = PM_NOMEM(err);
      boff += (int64_t)blocks[k][2];
    }
    if (!rc && put_i32(&meta, (int32_t)boff)) rc = PM_NOMEM(err);
    for (size_t k = 0; !rc && k < nb; k++) {
      if (put_i32(&meta, (int32_t)blocks[k][1])) rc = PM_NOMEM(err);
      for (size_t s = blocks[k][0]; !rc && s < blocks[k][0] + blocks[k][1]; s++) {
        size_t i = sorted[s];
        if (pm_buf_append(&meta, w->keys.data + w->vals[i].key_off, (size_t)w->vals[i].key_len) ||
            put_i32(&meta, offs[i]) || put_i32(&meta, lens[i]))
          rc = PM_NOMEM(err);
      }
    }
    free(blocks);
  }
  if (!rc && pm_buf_append(out, meta.data, meta.len)) rc = PM_NOMEM(err);
  if (!rc && null_card > 1 && pm_buf_append(out, nullb.data, nullb.len)) rc = PM_NOMEM(err);
  if (!rc && pm_buf_append(out, body.data, body.len)) rc = PM_NOMEM(err);
  pm_buf_free(&body);
  pm_buf_free(&nullb);
  pm_buf_free(&meta);
  free(order);
  free(hashes);
  free(offs);
  free(lens);
  free(sorted);
  free(items);
  return rc;
}

static void bmw_free(pm_fidx_col_writer *cw) {
  bitmap_writer *w = (bitmap_writer *)cw;
  if (!w) return;
  for (size_t i = 0; i < w->n_vals; i++) roaring_bitmap_free(w->vals[i].rows);
  free(w->vals);
  free(w->slots);
  pm_buf_free(&w->keys);
  if (w->nulls) roaring_bitmap_free(w->nulls);
  free(w);
}

static const pm_fidx_col_writer_ops bitmap_ops = {bmw_add, bmw_finish, bmw_free};

int pm_fidx_bitmap_writer_new(const pm_data_type *t, const pm_fidx_opts *o, const char *column,
                              pm_fidx_col_writer **out, pm_error *err) {
  *out = NULL;
  if (key_width(t) < 0)
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "file-index.%s.columns: column '%s' has a type the bitmap index "
                     "does not support", PM_FIDX_BITMAP, column);
  int version = 2;
  const char *s = pm_fidx_opt(o, "version");
  if (s) {
    if (!strcmp(s, "1")) version = 1;
    else if (!strcmp(s, "2")) version = 2;
    else
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "file-index.%s.%s.version: '%s' is not 1 or 2",
                       PM_FIDX_BITMAP, column, s);
  }
  int64_t limit = 16 * 1024;
  s = pm_fidx_opt(o, "index-block-size");
  if (s) {
    char key[256];
    snprintf(key, sizeof key, "file-index.%s.%s.index-block-size", PM_FIDX_BITMAP, column);
    PM_TRY(pm_parse_memory_size(key, s, &limit, err));
  }
  bitmap_writer *w = calloc(1, sizeof *w);
  if (!w) return PM_NOMEM(err);
  w->base.ops = &bitmap_ops;
  w->type = t;
  w->version = version;
  w->block_limit = limit;
  w->nulls = roaring_bitmap_create();
  if (!w->nulls) {
    free(w);
    return PM_NOMEM(err);
  }
  *out = &w->base;
  return 0;
}
