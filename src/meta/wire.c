/* DataOutput wire formats: primitives, DataFileMeta / IndexFileMeta rows, commit messages (SEMANTICS.md 10). */
#include "meta/wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/binary_row.h"

/* ---------------- primitives ---------------- */

void pm_wire_reader_init(pm_wire_reader *r, const uint8_t *data, size_t len, const char *name) {
  if (!data) data = (const uint8_t *)"";
  r->p = r->base = data;
  r->end = data + len;
  r->name = name ? name : "wire data";
  r->why = NULL;
  r->fail_off = 0;
}

void pm_wire_fail(pm_wire_reader *r, const char *why) {
  if (!r->why) {
    r->why = why;
    r->fail_off = (size_t)(r->p - r->base);
  }
  r->p = r->end;
}

int pm_wire_error(const pm_wire_reader *r, pm_error *err) {
  return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: %s at offset %zu", r->name, r->why ? r->why : "invalid data",
                   r->fail_off);
}

static int need(pm_wire_reader *r, size_t n) {
  if ((size_t)(r->end - r->p) < n) {
    pm_wire_fail(r, "truncated data");
    return 0;
  }
  return 1;
}

int8_t pm_wire_i8(pm_wire_reader *r) {
  if (!need(r, 1)) return 0;
  return (int8_t)*r->p++;
}

int pm_wire_bool(pm_wire_reader *r) {
  int8_t b = pm_wire_i8(r);
  if (b != 0 && b != 1) pm_wire_fail(r, "boolean byte not 0 or 1");
  return b == 1;
}

int32_t pm_wire_i32(pm_wire_reader *r) {
  if (!need(r, 4)) return 0;
  uint32_t v = ((uint32_t)r->p[0] << 24) | ((uint32_t)r->p[1] << 16) | ((uint32_t)r->p[2] << 8) | r->p[3];
  r->p += 4;
  return (int32_t)v;
}

int64_t pm_wire_i64(pm_wire_reader *r) {
  if (!need(r, 8)) return 0;
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v = (v << 8) | r->p[i];
  r->p += 8;
  return (int64_t)v;
}

const uint8_t *pm_wire_bytes(pm_wire_reader *r, size_t *len) {
  int32_t n = pm_wire_i32(r);
  *len = 0;
  if (r->why) return NULL;
  if (n < 0) {
    pm_wire_fail(r, "negative length");
    return NULL;
  }
  if (!need(r, (size_t)n)) return NULL;
  const uint8_t *p = r->p;
  r->p += n;
  *len = (size_t)n;
  return p;
}

/* Java modified UTF-8 -> standard UTF-8 (NUL as C0 80, supplementary chars as surrogate pairs). */
const char *pm_wire_utf(pm_wire_reader *r, pm_arena *a) {
  if (!need(r, 2)) return NULL;
  size_t n = ((size_t)r->p[0] << 8) | r->p[1];
  r->p += 2;
  if (!need(r, n)) return NULL;
  const uint8_t *s = r->p;
  r->p += n;
  char *out = pm_arena_alloc(a, n + 1);
  if (!out) {
    pm_wire_fail(r, "out of memory");
    return NULL;
  }
  size_t k = 0;
  for (size_t i = 0; i < n;) {
    uint8_t c = s[i];
    if (c == 0xC0 && i + 1 < n && s[i + 1] == 0x80) {
      out[k++] = 0;
      i += 2;
    } else if (c == 0xED && i + 5 < n && (s[i + 1] & 0xF0) == 0xA0 && s[i + 3] == 0xED && (s[i + 4] & 0xF0) == 0xB0) {
      uint32_t hi = 0xD000 | ((uint32_t)(s[i + 1] & 0x3F) << 6) | (s[i + 2] & 0x3F);
      uint32_t lo = 0xD000 | ((uint32_t)(s[i + 4] & 0x3F) << 6) | (s[i + 5] & 0x3F);
      uint32_t cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
      out[k++] = (char)(0xF0 | (cp >> 18));
      out[k++] = (char)(0x80 | ((cp >> 12) & 0x3F));
      out[k++] = (char)(0x80 | ((cp >> 6) & 0x3F));
      out[k++] = (char)(0x80 | (cp & 0x3F));
      i += 6;
    } else {
      out[k++] = (char)c;
      i++;
    }
  }
  out[k] = 0;
  return out;
}

static void put_raw(pm_buf *b, const void *p, size_t n, int *bad) {
  if (pm_buf_append(b, p, n)) *bad = 1;
}

void pm_wire_put_i8(pm_buf *b, int8_t v, int *bad) { put_raw(b, &v, 1, bad); }

void pm_wire_put_i32(pm_buf *b, int32_t v, int *bad) {
  uint8_t x[4] = {(uint8_t)((uint32_t)v >> 24), (uint8_t)((uint32_t)v >> 16), (uint8_t)((uint32_t)v >> 8), (uint8_t)v};
  put_raw(b, x, 4, bad);
}

void pm_wire_put_i64(pm_buf *b, int64_t v, int *bad) {
  uint8_t x[8];
  for (int i = 0; i < 8; i++) x[i] = (uint8_t)((uint64_t)v >> (56 - 8 * i));
  put_raw(b, x, 8, bad);
}

void pm_wire_put_utf(pm_buf *b, const char *s, int *bad) {
  const uint8_t *u = (const uint8_t *)(s ? s : "");
  size_t n = strlen((const char *)u);
  size_t start = b->len;
  put_raw(b, "\0\0", 2, bad);
  for (size_t i = 0; i < n;) {
    uint8_t c = u[i];
    if (c >= 0xF0 && i + 3 < n) { /* 4-byte UTF-8 -> surrogate pair, 3 bytes each */
      uint32_t cp = ((uint32_t)(c & 0x07) << 18) | ((uint32_t)(u[i + 1] & 0x3F) << 12) |
                    ((uint32_t)(u[i + 2] & 0x3F) << 6) | (u[i + 3] & 0x3F);
      cp -= 0x10000;
      uint32_t hi = 0xD800 + (cp >> 10), lo = 0xDC00 + (cp & 0x3FF);
      uint8_t x[6] = {(uint8_t)(0xE0 | (hi >> 12)), (uint8_t)(0x80 | ((hi >> 6) & 0x3F)), (uint8_t)(0x80 | (hi & 0x3F)),
                      (uint8_t)(0xE0 | (lo >> 12)), (uint8_t)(0x80 | ((lo >> 6) & 0x3F)), (uint8_t)(0x80 | (lo & 0x3F))};
      put_raw(b, x, 6, bad);
      i += 4;
    } else {
      put_raw(b, &u[i], 1, bad);
      i++;
    }
  }
  size_t enc = b->len - start - 2;
  if (enc > 65535) {
    *bad = 1;
    return;
  }
  if (!*bad) {
    b->data[start] = (uint8_t)(enc >> 8);
    b->data[start + 1] = (uint8_t)enc;
  }
}

/* ---------------- rows ---------------- */

int pm_wire_read_partition(pm_wire_reader *r, pm_arena *a, pm_bytes *partition) {
  int32_t total = pm_wire_i32(r);
  if (r->why) return -1;
  if (total < 4 || !need(r, (size_t)total)) {
    pm_wire_fail(r, "bad partition row length");
    return -1;
  }
  uint8_t *p = pm_arena_memdup(a, r->p, (size_t)total); /* int32 arity + bytes = manifest form */
  if (!p) {
    pm_wire_fail(r, "out of memory");
    return -1;
  }
  r->p += total;
  partition->data = p;
  partition->len = (size_t)total;
  return 0;
}

void pm_wire_put_partition(pm_buf *b, pm_bytes partition, int *bad) {
  pm_wire_put_i32(b, (int32_t)partition.len, bad);
  put_raw(b, partition.data, partition.len, bad);
}

static const pm_data_type T_STRING = {.root = PM_DT_VARCHAR, .nullable = 1, .length = PM_DT_MAX_LENGTH};
static const pm_data_type T_BYTES = {.root = PM_DT_VARBINARY, .nullable = 1, .length = PM_DT_MAX_LENGTH};
static const pm_data_type T_BIGINT = {.root = PM_DT_BIGINT, .nullable = 1};
static const pm_data_type T_INT = {.root = PM_DT_INT, .nullable = 1};
static const pm_data_type T_TINYINT = {.root = PM_DT_TINYINT, .nullable = 1};
static const pm_data_type T_TS3 = {.root = PM_DT_TIMESTAMP, .nullable = 1, .precision = 3};
static const pm_data_type T_ARRAY = {.root = PM_DT_ARRAY, .nullable = 1};
static const pm_data_type T_ROW = {.root = PM_DT_ROW, .nullable = 1};

typedef struct rowdec {
  pm_binary_row row;
  pm_arena *a;
  pm_error *err;
  int rc;
} rowdec;

static int rd_get(rowdec *d, int32_t i, const pm_data_type *t, pm_value *v) {
  if (d->rc) return 0;
  if (i >= d->row.arity) {
    v->kind = PM_V_NULL;
    return 0;
  }
  d->rc = pm_binary_row_get(&d->row, i, t, v, d->err);
  return d->rc == 0 && v->kind != PM_V_NULL;
}

static const char *rd_str(rowdec *d, int32_t i) {
  pm_value v;
  if (!rd_get(d, i, &T_STRING, &v)) return NULL;
  char *s = pm_arena_strndup(d->a, (const char *)v.u.bytes.data, v.u.bytes.len);
  if (!s) d->rc = PM_NOMEM(d->err);
  return s;
}

static int rd_bytes(rowdec *d, int32_t i, pm_bytes *out) {
  pm_value v;
  if (!rd_get(d, i, &T_BYTES, &v)) return 0;
  out->data = pm_arena_memdup(d->a, v.u.bytes.data ? v.u.bytes.data : (const uint8_t *)"", v.u.bytes.len);
  out->len = v.u.bytes.len;
  if (!out->data) d->rc = PM_NOMEM(d->err);
  return 1;
}

static int rd_long(rowdec *d, int32_t i, int64_t *out) {
  pm_value v;
  if (!rd_get(d, i, &T_BIGINT, &v)) return 0;
  *out = v.u.i64;
  return 1;
}

static int rd_int(rowdec *d, int32_t i, const pm_data_type *t, int32_t *out) {
  pm_value v;
  if (!rd_get(d, i, t, &v)) return 0;
  *out = (int32_t)v.u.i64;
  return 1;
}

/* Array field: returns 1 and the array view when non-null. */
static int rd_array(rowdec *d, int32_t i, pm_binary_array *arr) {
  pm_value v;
  if (!rd_get(d, i, &T_ARRAY, &v)) return 0;
  d->rc = pm_binary_array_open(v.u.bytes.data, v.u.bytes.len, arr, d->err);
  return d->rc == 0;
}

static pm_str_list rd_str_list(rowdec *d, int32_t i) {
  pm_str_list l = {NULL, 0, 1};
  pm_binary_array arr;
  if (!rd_array(d, i, &arr)) return l;
  l.is_null = 0;
  if (arr.n == 0) return l;
  l.items = pm_arena_alloc(d->a, (size_t)arr.n * sizeof(char *));
  if (!l.items) {
    d->rc = PM_NOMEM(d->err);
    return l;
  }
  for (int32_t k = 0; k < arr.n && !d->rc; k++) {
    pm_value v;
    d->rc = pm_binary_array_get(&arr, k, &T_STRING, &v, d->err);
    if (d->rc) break;
    l.items[k] = v.kind == PM_V_NULL ? NULL : pm_arena_strndup(d->a, (const char *)v.u.bytes.data, v.u.bytes.len);
  }
  l.n = arr.n;
  return l;
}

static int64_t *rd_long_list(rowdec *d, int32_t i, int32_t *n, int *is_null, int64_t null_value) {
  pm_binary_array arr;
  *n = 0;
  *is_null = 1;
  if (!rd_array(d, i, &arr)) return NULL;
  *is_null = 0;
  if (arr.n == 0) return NULL;
  int64_t *v = pm_arena_alloc(d->a, (size_t)arr.n * sizeof(int64_t));
  if (!v) {
    d->rc = PM_NOMEM(d->err);
    return NULL;
  }
  for (int32_t k = 0; k < arr.n && !d->rc; k++) {
    pm_value x;
    d->rc = pm_binary_array_get(&arr, k, &T_BIGINT, &x, d->err);
    v[k] = x.kind == PM_V_NULL ? null_value : x.u.i64;
  }
  *n = arr.n;
  return v;
}

static void rd_stats(rowdec *d, int32_t i, pm_simple_stats *s) {
  pm_simple_stats_empty(s);
  pm_value v;
  if (!rd_get(d, i, &T_ROW, &v)) return;
  rowdec sub = {.a = d->a, .err = d->err};
  d->rc = pm_binary_row_open(v.u.bytes.data, v.u.bytes.len, 3, "stats row", &sub.row, d->err);
  if (d->rc) return;
  rd_bytes(&sub, 0, &s->min_values);
  rd_bytes(&sub, 1, &s->max_values);
  s->null_counts = rd_long_list(&sub, 2, &s->n_null_counts, &s->null_counts_is_null, PM_NULL_COUNT_UNKNOWN);
  d->rc = sub.rc;
}

static int open_wire_row(pm_wire_reader *r, int32_t arity, const char *what, pm_binary_row *row, pm_error *err) {
  size_t len;
  const uint8_t *p = pm_wire_bytes(r, &len);
  if (r->why) return pm_wire_error(r, err);
  int rc = pm_binary_row_open(p, len, arity, what, row, err);
  if (rc) pm_error_prefix(err, "%s: offset %zu: ", r->name, (size_t)(r->p - r->base));
  return rc;
}

int pm_wire_read_file_meta(pm_wire_reader *r, int32_t arity, pm_arena *a, pm_data_file_meta *f, pm_error *err) {
  memset(f, 0, sizeof(*f));
  rowdec d = {.a = a, .err = err};
  PM_TRY(open_wire_row(r, arity, "DataFileMeta row", &d.row, err));
  f->file_name = rd_str(&d, 0);
  rd_long(&d, 1, &f->file_size);
  rd_long(&d, 2, &f->row_count);
  rd_bytes(&d, 3, &f->min_key);
  rd_bytes(&d, 4, &f->max_key);
  rd_stats(&d, 5, &f->key_stats);
  rd_stats(&d, 6, &f->value_stats);
  rd_long(&d, 7, &f->min_sequence_number);
  rd_long(&d, 8, &f->max_sequence_number);
  rd_long(&d, 9, &f->schema_id);
  rd_int(&d, 10, &T_INT, &f->level);
  f->extra_files = rd_str_list(&d, 11);
  f->extra_files.is_null = 0;
  pm_value v;
  if (rd_get(&d, 12, &T_TS3, &v)) {
    f->creation_time_millis = v.u.ts.millis;
    f->has_creation_time = 1;
  }
  f->has_delete_row_count = rd_long(&d, 13, &f->delete_row_count);
  f->has_embedded_index = rd_bytes(&d, 14, &f->embedded_index);
  int32_t src;
  f->file_source = rd_int(&d, 15, &T_TINYINT, &src) ? (int8_t)src : PM_SOURCE_NULL;
  f->value_stats_cols = rd_str_list(&d, 16);
  f->external_path = rd_str(&d, 17);
  f->has_first_row_id = rd_long(&d, 18, &f->first_row_id);
  f->write_cols = rd_str_list(&d, 19);
  f->write_cols_sequences = rd_long_list(&d, 20, &f->n_write_cols_sequences, &f->write_cols_sequences_is_null, 0);
  if (!d.rc && !f->file_name) return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: DataFileMeta without file name", r->name);
  return d.rc;
}

/* ---- row encoding ---- */

typedef struct rowenc {
  pm_binary_row_writer w;
  pm_error *err;
  int rc;
} rowenc;

static void we_val(rowenc *e, int32_t i, const pm_data_type *t, const pm_value *v) {
  if (!e->rc && i < e->w.arity) e->rc = pm_row_writer_write(&e->w, i, t, v, e->err);
}
static void we_null(rowenc *e, int32_t i, const pm_data_type *t) {
  pm_value v = {.kind = PM_V_NULL};
  we_val(e, i, t, &v);
}
static void we_long(rowenc *e, int32_t i, int64_t x) {
  pm_value v = {.kind = PM_V_INT};
  v.u.i64 = x;
  we_val(e, i, &T_BIGINT, &v);
}
static void we_opt_long(rowenc *e, int32_t i, int has, int64_t x) {
  if (has) we_long(e, i, x);
  else we_null(e, i, &T_BIGINT);
}
static void we_int(rowenc *e, int32_t i, const pm_data_type *t, int64_t x) {
  pm_value v = {.kind = PM_V_INT};
  v.u.i64 = x;
  we_val(e, i, t, &v);
}
static void we_str(rowenc *e, int32_t i, const char *s) {
  if (!s) {
    we_null(e, i, &T_STRING);
    return;
  }
  pm_value v = {.kind = PM_V_STRING};
  v.u.bytes.data = (const uint8_t *)s;
  v.u.bytes.len = strlen(s);
  we_val(e, i, &T_STRING, &v);
}
static void we_bytes(rowenc *e, int32_t i, const uint8_t *p, size_t n) {
  pm_value v = {.kind = PM_V_BINARY};
  v.u.bytes.data = p ? p : (const uint8_t *)"";
  v.u.bytes.len = n;
  we_val(e, i, &T_BYTES, &v);
}
static void we_nested(rowenc *e, int32_t i, const pm_data_type *t, pm_value_kind k, const pm_buf *b) {
  pm_value v = {.kind = k};
  v.u.bytes.data = b->data;
  v.u.bytes.len = b->len;
  we_val(e, i, t, &v);
}

/* Builds BinaryArray bytes of strings / longs into out. */
static int build_str_array(const pm_str_list *l, pm_buf *out, pm_error *err) {
  pm_binary_array_writer aw;
  PM_TRY(pm_array_writer_init(&aw, l->n, &T_STRING, err));
  int rc = 0;
  for (int32_t k = 0; !rc && k < l->n; k++) {
    pm_value v = {.kind = l->items[k] ? PM_V_STRING : PM_V_NULL};
    if (l->items[k]) {
      v.u.bytes.data = (const uint8_t *)l->items[k];
      v.u.bytes.len = strlen(l->items[k]);
    }
    rc = pm_array_writer_write(&aw, k, &T_STRING, &v, err);
  }
  if (!rc) rc = pm_array_writer_finish(&aw, out, err);
  pm_array_writer_free(&aw);
  return rc;
}

static int build_long_array(const int64_t *vals, int32_t n, int64_t null_value, int nulls_allowed, pm_buf *out,
                            pm_error *err) {
  pm_binary_array_writer aw;
  PM_TRY(pm_array_writer_init(&aw, n, &T_BIGINT, err));
  int rc = 0;
  for (int32_t k = 0; !rc && k < n; k++) {
    pm_value v = {.kind = PM_V_INT};
    if (nulls_allowed && vals[k] == null_value) v.kind = PM_V_NULL;
    v.u.i64 = vals[k];
    rc = pm_array_writer_write(&aw, k, &T_BIGINT, &v, err);
  }
  if (!rc) rc = pm_array_writer_finish(&aw, out, err);
  pm_array_writer_free(&aw);
  return rc;
}

static void we_str_list(rowenc *e, int32_t i, const pm_str_list *l, int nullable) {
  if (e->rc || i >= e->w.arity) return;
  if (nullable && l->is_null) {
    we_null(e, i, &T_ARRAY);
    return;
  }
  pm_buf b;
  pm_buf_init(&b);
  e->rc = build_str_array(l, &b, e->err);
  if (!e->rc) we_nested(e, i, &T_ARRAY, PM_V_ARRAY, &b);
  pm_buf_free(&b);
}

static void we_stats(rowenc *e, int32_t i, const pm_simple_stats *s) {
  if (e->rc || i >= e->w.arity) return;
  rowenc sub = {.err = e->err};
  pm_buf arr, row;
  pm_buf_init(&arr);
  pm_buf_init(&row);
  e->rc = pm_row_writer_init(&sub.w, 3, e->err);
  if (e->rc) return;
  we_bytes(&sub, 0, s->min_values.data, s->min_values.len);
  we_bytes(&sub, 1, s->max_values.data, s->max_values.len);
  if (s->null_counts_is_null) {
    we_null(&sub, 2, &T_ARRAY);
  } else if (!sub.rc) {
    sub.rc = build_long_array(s->null_counts, s->n_null_counts, PM_NULL_COUNT_UNKNOWN, 1, &arr, e->err);
    if (!sub.rc) we_nested(&sub, 2, &T_ARRAY, PM_V_ARRAY, &arr);
  }
  if (!sub.rc) sub.rc = pm_row_writer_finish(&sub.w, 0, &row, e->err);
  e->rc = sub.rc;
  if (!e->rc) we_nested(e, i, &T_ROW, PM_V_ROW, &row);
  pm_row_writer_free(&sub.w);
  pm_buf_free(&arr);
  pm_buf_free(&row);
}

static int finish_wire_row(rowenc *e, pm_buf *b) {
  if (!e->rc) {
    size_t at = b->len;
    int bad = 0;
    pm_wire_put_i32(b, 0, &bad);
    if (!bad) e->rc = pm_row_writer_finish(&e->w, 0, b, e->err);
    else e->rc = PM_NOMEM(e->err);
    if (!e->rc) {
      uint32_t n = (uint32_t)(b->len - at - 4);
      b->data[at] = (uint8_t)(n >> 24);
      b->data[at + 1] = (uint8_t)(n >> 16);
      b->data[at + 2] = (uint8_t)(n >> 8);
      b->data[at + 3] = (uint8_t)n;
    }
  }
  pm_row_writer_free(&e->w);
  return e->rc;
}

int pm_wire_put_file_meta(pm_buf *b, const pm_data_file_meta *f, int32_t arity, pm_error *err) {
  rowenc e = {.err = err};
  PM_TRY(pm_row_writer_init(&e.w, arity, err));
  we_str(&e, 0, f->file_name ? f->file_name : "");
  we_long(&e, 1, f->file_size);
  we_long(&e, 2, f->row_count);
  we_bytes(&e, 3, f->min_key.data, f->min_key.len);
  we_bytes(&e, 4, f->max_key.data, f->max_key.len);
  we_stats(&e, 5, &f->key_stats);
  we_stats(&e, 6, &f->value_stats);
  we_long(&e, 7, f->min_sequence_number);
  we_long(&e, 8, f->max_sequence_number);
  we_long(&e, 9, f->schema_id);
  we_int(&e, 10, &T_INT, f->level);
  we_str_list(&e, 11, &f->extra_files, 0);
  if (f->has_creation_time) {
    pm_value v = {.kind = PM_V_TIMESTAMP};
    v.u.ts.millis = f->creation_time_millis;
    we_val(&e, 12, &T_TS3, &v);
  } else {
    we_null(&e, 12, &T_TS3);
  }
  we_opt_long(&e, 13, f->has_delete_row_count, f->delete_row_count);
  if (f->has_embedded_index) we_bytes(&e, 14, f->embedded_index.data, f->embedded_index.len);
  else we_null(&e, 14, &T_BYTES);
  if (f->file_source >= 0) we_int(&e, 15, &T_TINYINT, f->file_source);
  else we_null(&e, 15, &T_TINYINT);
  we_str_list(&e, 16, &f->value_stats_cols, 1);
  we_str(&e, 17, f->external_path);
  we_opt_long(&e, 18, f->has_first_row_id, f->first_row_id);
  we_str_list(&e, 19, &f->write_cols, 1);
  if (!e.rc && arity > 20) {
    if (f->write_cols_sequences_is_null) {
      we_null(&e, 20, &T_ARRAY);
    } else {
      pm_buf arr;
      pm_buf_init(&arr);
      e.rc = build_long_array(f->write_cols_sequences, f->n_write_cols_sequences, 0, 0, &arr, err);
      if (!e.rc) we_nested(&e, 20, &T_ARRAY, PM_V_ARRAY, &arr);
      pm_buf_free(&arr);
    }
  }
  return finish_wire_row(&e, b);
}

/* ---- IndexFileMeta ---- */

int pm_wire_read_index_meta(pm_wire_reader *r, int32_t arity, int32_t dv_fields, int32_t gi_fields, pm_arena *a,
                            pm_index_file_meta *m, pm_error *err) {
  memset(m, 0, sizeof(*m));
  m->dv_ranges_is_null = 1;
  rowdec d = {.a = a, .err = err};
  PM_TRY(open_wire_row(r, arity, "IndexFileMeta row", &d.row, err));
  m->index_type = rd_str(&d, 0);
  m->file_name = rd_str(&d, 1);
  rd_long(&d, 2, &m->file_size);
  rd_long(&d, 3, &m->row_count);
  pm_binary_array arr;
  if (rd_array(&d, 4, &arr)) {
    m->dv_ranges_is_null = 0;
    m->n_dv_ranges = arr.n;
    m->dv_ranges = arr.n ? pm_arena_alloc(a, (size_t)arr.n * sizeof(pm_dv_range)) : NULL;
    if (arr.n && !m->dv_ranges) d.rc = PM_NOMEM(err);
    pm_data_type rt = T_ROW;
    pm_data_field fake[4];
    rt.fields = fake;
    rt.n_fields = (size_t)dv_fields;
    for (int32_t k = 0; !d.rc && k < arr.n; k++) {
      pm_value v;
      d.rc = pm_binary_array_get(&arr, k, &rt, &v, err);
      if (d.rc) break;
      pm_dv_range *dr = &m->dv_ranges[k];
      memset(dr, 0, sizeof(*dr));
      if (v.kind == PM_V_NULL) continue;
      rowdec sub = {.a = a, .err = err};
      d.rc = pm_binary_row_open(v.u.bytes.data, v.u.bytes.len, dv_fields, "DeletionVectorMeta row", &sub.row, err);
      if (d.rc) break;
      dr->data_file_name = rd_str(&sub, 0);
      rd_int(&sub, 1, &T_INT, &dr->offset);
      rd_int(&sub, 2, &T_INT, &dr->length);
      if (dv_fields > 3) dr->has_cardinality = rd_long(&sub, 3, &dr->cardinality);
      d.rc = sub.rc;
    }
  }
  m->external_path = rd_str(&d, 5);
  pm_value gv;
  if (rd_get(&d, 6, &T_ROW, &gv)) {
    rowdec sub = {.a = a, .err = err};
    d.rc = pm_binary_row_open(gv.u.bytes.data, gv.u.bytes.len, gi_fields, "GlobalIndexMeta row", &sub.row, err);
    if (!d.rc) {
      pm_global_index_meta *g = &m->global_index;
      m->has_global_index = 1;
      rd_long(&sub, 0, &g->row_range_start);
      rd_long(&sub, 1, &g->row_range_end);
      rd_int(&sub, 2, &T_INT, &g->index_field_id);
      pm_binary_array ea;
      g->extra_field_ids_is_null = 1;
      if (rd_array(&sub, 3, &ea)) {
        g->extra_field_ids_is_null = 0;
        g->n_extra_field_ids = ea.n;
        g->extra_field_ids = ea.n ? pm_arena_alloc(a, (size_t)ea.n * sizeof(int32_t)) : NULL;
        for (int32_t k = 0; g->extra_field_ids && k < ea.n && !sub.rc; k++) {
          pm_value x;
          sub.rc = pm_binary_array_get(&ea, k, &T_INT, &x, err);
          g->extra_field_ids[k] = (int32_t)x.u.i64;
        }
      }
      g->has_index_meta = rd_bytes(&sub, 4, &g->index_meta);
      if (gi_fields > 5) g->has_source_meta = rd_bytes(&sub, 5, &g->source_meta);
      d.rc = sub.rc;
    }
  }
  if (!d.rc && (!m->index_type || !m->file_name))
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: IndexFileMeta without type or file name", r->name);
  return d.rc;
}

int pm_wire_put_index_meta(pm_buf *b, const pm_index_file_meta *m, int32_t arity, int32_t dv_fields,
                           int32_t gi_fields, pm_error *err) {
  rowenc e = {.err = err};
  PM_TRY(pm_row_writer_init(&e.w, arity, err));
  we_str(&e, 0, m->index_type ? m->index_type : "");
  we_str(&e, 1, m->file_name ? m->file_name : "");
  we_long(&e, 2, m->file_size);
  we_long(&e, 3, m->row_count);
  if (m->dv_ranges_is_null) {
    we_null(&e, 4, &T_ARRAY);
  } else if (!e.rc) {
    pm_data_type rt = T_ROW;
    pm_data_field fake[4];
    rt.fields = fake;
    rt.n_fields = (size_t)dv_fields;
    pm_binary_array_writer aw;
    pm_buf arr, row;
    pm_buf_init(&arr);
    pm_buf_init(&row);
    e.rc = pm_array_writer_init(&aw, m->n_dv_ranges, &rt, err);
    for (int32_t k = 0; !e.rc && k < m->n_dv_ranges; k++) {
      const pm_dv_range *dr = &m->dv_ranges[k];
      rowenc sub = {.err = err};
      e.rc = pm_row_writer_init(&sub.w, dv_fields, err);
      if (e.rc) break;
      we_str(&sub, 0, dr->data_file_name ? dr->data_file_name : "");
      we_int(&sub, 1, &T_INT, dr->offset);
      we_int(&sub, 2, &T_INT, dr->length);
      if (dv_fields > 3) we_opt_long(&sub, 3, dr->has_cardinality, dr->cardinality);
      row.len = 0;
      if (!sub.rc) sub.rc = pm_row_writer_finish(&sub.w, 0, &row, err);
      pm_row_writer_free(&sub.w);
      e.rc = sub.rc;
      if (!e.rc) {
        pm_value v = {.kind = PM_V_ROW};
        v.u.bytes.data = row.data;
        v.u.bytes.len = row.len;
        e.rc = pm_array_writer_write(&aw, k, &rt, &v, err);
      }
    }
    if (!e.rc) e.rc = pm_array_writer_finish(&aw, &arr, err);
    pm_array_writer_free(&aw);
    if (!e.rc) we_nested(&e, 4, &T_ARRAY, PM_V_ARRAY, &arr);
    pm_buf_free(&arr);
    pm_buf_free(&row);
  }
  we_str(&e, 5, m->external_path);
  if (!e.rc && arity > 6) {
    if (!m->has_global_index) {
      we_null(&e, 6, &T_ROW);
    } else {
      const pm_global_index_meta *g = &m->global_index;
      rowenc sub = {.err = err};
      pm_buf arr, row;
      pm_buf_init(&arr);
      pm_buf_init(&row);
      e.rc = pm_row_writer_init(&sub.w, gi_fields, err);
      if (!e.rc) {
        we_long(&sub, 0, g->row_range_start);
        we_long(&sub, 1, g->row_range_end);
        we_int(&sub, 2, &T_INT, g->index_field_id);
        if (g->extra_field_ids_is_null) {
          we_null(&sub, 3, &T_ARRAY);
        } else if (!sub.rc) {
          pm_binary_array_writer aw;
          sub.rc = pm_array_writer_init(&aw, g->n_extra_field_ids, &T_INT, err);
          for (int32_t k = 0; !sub.rc && k < g->n_extra_field_ids; k++) {
            pm_value v = {.kind = PM_V_INT};
            v.u.i64 = g->extra_field_ids[k];
            sub.rc = pm_array_writer_write(&aw, k, &T_INT, &v, err);
          }
          if (!sub.rc) sub.rc = pm_array_writer_finish(&aw, &arr, err);
          pm_array_writer_free(&aw);
          if (!sub.rc) we_nested(&sub, 3, &T_ARRAY, PM_V_ARRAY, &arr);
        }
        if (g->has_index_meta) we_bytes(&sub, 4, g->index_meta.data, g->index_meta.len);
        else we_null(&sub, 4, &T_BYTES);
        if (gi_fields > 5) {
          if (g->has_source_meta) we_bytes(&sub, 5, g->source_meta.data, g->source_meta.len);
          else we_null(&sub, 5, &T_BYTES);
        }
        if (!sub.rc) sub.rc = pm_row_writer_finish(&sub.w, 0, &row, err);
        pm_row_writer_free(&sub.w);
        e.rc = sub.rc;
        if (!e.rc) we_nested(&e, 6, &T_ROW, PM_V_ROW, &row);
      }
      pm_buf_free(&arr);
      pm_buf_free(&row);
    }
  }
  return finish_wire_row(&e, b);
}

/* ---------------- commit messages ---------------- */

static int32_t file_arity_for_message(int v) {
  if (v == PM_COMMIT_MESSAGE_VERSION_07) return 13;
  if (v <= 2) return 15;
  if (v == 3) return 16;
  if (v <= 5) return 17;
  if (v <= 7) return 18;
  if (v == 8) return 19;
  if (v <= 12) return 20;
  return 21;
}

static void index_layout_for_message(int v, int32_t *arity, int32_t *dv, int32_t *gi) {
  *gi = 5;
  if (v == PM_COMMIT_MESSAGE_VERSION_07) {
    *arity = 4;
    *dv = 3;
  } else if (v <= 4) {
    *arity = 5;
    *dv = 3;
  } else if (v <= 8) {
    *arity = 5;
    *dv = 4;
  } else if (v <= 10) {
    *arity = 6;
    *dv = 4;
  } else {
    *arity = 7;
    *dv = 4;
    *gi = v >= 12 ? 6 : 5;
  }
}

#define MAX_LIST 10000000

static int read_file_list(pm_wire_reader *r, int v, pm_arena *a, pm_file_list *l, pm_error *err) {
  int32_t n = pm_wire_i32(r);
  l->items = NULL;
  l->n = 0;
  if (r->why) return pm_wire_error(r, err);
  if (n < 0 || n > MAX_LIST || (size_t)n > (size_t)(r->end - r->p) / 4) {
    pm_wire_fail(r, "bad file list size");
    return pm_wire_error(r, err);
  }
  if (!n) return 0;
  l->items = pm_arena_alloc(a, (size_t)n * sizeof(pm_data_file_meta));
  if (!l->items) return PM_NOMEM(err);
  for (int32_t i = 0; i < n; i++) {
    PM_TRY(pm_wire_read_file_meta(r, file_arity_for_message(v), a, &l->items[i], err));
    l->n = (size_t)i + 1;
  }
  return 0;
}

static int read_index_list(pm_wire_reader *r, int v, pm_arena *a, pm_index_list *l, pm_error *err) {
  int32_t n = pm_wire_i32(r);
  l->items = NULL;
  l->n = 0;
  if (r->why) return pm_wire_error(r, err);
  if (n < 0 || n > MAX_LIST || (size_t)n > (size_t)(r->end - r->p) / 4) {
    pm_wire_fail(r, "bad index file list size");
    return pm_wire_error(r, err);
  }
  if (!n) return 0;
  l->items = pm_arena_alloc(a, (size_t)n * sizeof(pm_index_file_meta));
  if (!l->items) return PM_NOMEM(err);
  int32_t ar, dv, gi;
  index_layout_for_message(v, &ar, &dv, &gi);
  for (int32_t i = 0; i < n; i++) {
    PM_TRY(pm_wire_read_index_meta(r, ar, dv, gi, a, &l->items[i], err));
    l->n = (size_t)i + 1;
  }
  return 0;
}

int pm_commit_message_read(pm_wire_reader *r, int v, pm_arena *a, pm_commit_message *m, pm_error *err) {
  memset(m, 0, sizeof(*m));
  if (pm_wire_read_partition(r, a, &m->partition)) return pm_wire_error(r, err);
  m->bucket = pm_wire_i32(r);
  if (v >= 7) {
    m->has_total_buckets = pm_wire_bool(r);
    if (m->has_total_buckets) m->total_buckets = pm_wire_i32(r);
  }
  if (r->why) return pm_wire_error(r, err);
  if (v >= 10) {
    PM_TRY(read_file_list(r, v, a, &m->new_files, err));
    PM_TRY(read_file_list(r, v, a, &m->deleted_files, err));
    PM_TRY(read_file_list(r, v, a, &m->changelog_files, err));
    PM_TRY(read_index_list(r, v, a, &m->new_index_files, err));
    PM_TRY(read_index_list(r, v, a, &m->deleted_index_files, err));
    PM_TRY(read_file_list(r, v, a, &m->compact_before, err));
    PM_TRY(read_file_list(r, v, a, &m->compact_after, err));
    PM_TRY(read_file_list(r, v, a, &m->compact_changelog, err));
    PM_TRY(read_index_list(r, v, a, &m->compact_new_index_files, err));
    PM_TRY(read_index_list(r, v, a, &m->compact_deleted_index_files, err));
    return 0;
  }
  pm_index_list idx = {NULL, 0}, del = {NULL, 0};
  if (v == PM_COMMIT_MESSAGE_VERSION_07) {
    PM_TRY(read_file_list(r, v, a, &m->new_files, err));
    PM_TRY(read_file_list(r, v, a, &m->changelog_files, err));
    PM_TRY(read_file_list(r, v, a, &m->compact_before, err));
    PM_TRY(read_file_list(r, v, a, &m->compact_after, err));
    PM_TRY(read_file_list(r, v, a, &m->compact_changelog, err));
    PM_TRY(read_index_list(r, v, a, &idx, err));
  } else {
    PM_TRY(read_file_list(r, v, a, &m->new_files, err));
    PM_TRY(read_file_list(r, v, a, &m->deleted_files, err));
    PM_TRY(read_file_list(r, v, a, &m->changelog_files, err));
    PM_TRY(read_file_list(r, v, a, &m->compact_before, err));
    PM_TRY(read_file_list(r, v, a, &m->compact_after, err));
    PM_TRY(read_file_list(r, v, a, &m->compact_changelog, err));
    PM_TRY(read_index_list(r, v, a, &idx, err));
    if (v > 2) PM_TRY(read_index_list(r, v, a, &del, err));
  }
  /* Java gives the single index lists to the compact increment when it has files */
  if (m->compact_before.n || m->compact_after.n || m->compact_changelog.n) {
    m->compact_new_index_files = idx;
    m->compact_deleted_index_files = del;
  } else {
    m->new_index_files = idx;
    m->deleted_index_files = del;
  }
  return 0;
}

static int put_file_list(pm_buf *b, const pm_file_list *l, int v, pm_error *err) {
  int bad = 0;
  pm_wire_put_i32(b, (int32_t)l->n, &bad);
  if (bad) return PM_NOMEM(err);
  for (size_t i = 0; i < l->n; i++) PM_TRY(pm_wire_put_file_meta(b, &l->items[i], file_arity_for_message(v), err));
  return 0;
}

static int put_index_list(pm_buf *b, const pm_index_list *l, int v, pm_error *err) {
  int bad = 0;
  pm_wire_put_i32(b, (int32_t)l->n, &bad);
  if (bad) return PM_NOMEM(err);
  int32_t ar, dv, gi;
  index_layout_for_message(v, &ar, &dv, &gi);
  for (size_t i = 0; i < l->n; i++) PM_TRY(pm_wire_put_index_meta(b, &l->items[i], ar, dv, gi, err));
  return 0;
}

int pm_commit_message_write(pm_buf *b, const pm_commit_message *m, int v, pm_error *err) {
  if (v < 10) return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "writing commit message version %d (only >= 10)", v);
  int bad = 0;
  pm_wire_put_partition(b, m->partition, &bad);
  pm_wire_put_i32(b, m->bucket, &bad);
  pm_wire_put_i8(b, m->has_total_buckets ? 1 : 0, &bad);
  if (m->has_total_buckets) pm_wire_put_i32(b, m->total_buckets, &bad);
  if (bad) return PM_NOMEM(err);
  PM_TRY(put_file_list(b, &m->new_files, v, err));
  PM_TRY(put_file_list(b, &m->deleted_files, v, err));
  PM_TRY(put_file_list(b, &m->changelog_files, v, err));
  PM_TRY(put_index_list(b, &m->new_index_files, v, err));
  PM_TRY(put_index_list(b, &m->deleted_index_files, v, err));
  PM_TRY(put_file_list(b, &m->compact_before, v, err));
  PM_TRY(put_file_list(b, &m->compact_after, v, err));
  PM_TRY(put_file_list(b, &m->compact_changelog, v, err));
  PM_TRY(put_index_list(b, &m->compact_new_index_files, v, err));
  PM_TRY(put_index_list(b, &m->compact_deleted_index_files, v, err));
  return 0;
}

/* ---------------- ManifestCommittable ---------------- */

void pm_committable_free(pm_manifest_committable *c) {
  if (!c) return;
  pm_arena_free(&c->arena);
  free(c);
}

static int decode_committable(const uint8_t *data, size_t len, int cv, const char *name, int as07,
                              pm_manifest_committable *c, pm_error *err) {
  pm_wire_reader r;
  pm_wire_reader_init(&r, data, len, name);
  pm_arena *a = &c->arena;
  c->identifier = pm_wire_i64(&r);
  int wm_null = pm_wire_bool(&r);
  c->has_watermark = !wm_null;
  if (!wm_null) c->watermark = pm_wire_i64(&r);
  if (cv <= 4) {
    int32_t n = pm_wire_i32(&r);
    if (n < 0 || (size_t)n > (size_t)(r.end - r.p) / 12) pm_wire_fail(&r, "bad log offset count");
    if (r.why) return pm_wire_error(&r, err);
    c->n_log_offsets = (size_t)n;
    c->log_offset_buckets = pm_arena_alloc(a, (size_t)n * sizeof(int32_t) + 1);
    c->log_offsets = pm_arena_alloc(a, (size_t)n * sizeof(int64_t) + 1);
    if (!c->log_offset_buckets || !c->log_offsets) return PM_NOMEM(err);
    for (int32_t i = 0; i < n; i++) {
      c->log_offset_buckets[i] = pm_wire_i32(&r);
      c->log_offsets[i] = pm_wire_i64(&r);
    }
  }
  if (cv >= 4) {
    int32_t n = pm_wire_i32(&r);
    if (n < 0 || (size_t)n > (size_t)(r.end - r.p) / 4) pm_wire_fail(&r, "bad property count");
    if (r.why) return pm_wire_error(&r, err);
    c->n_properties = (size_t)n;
    c->property_keys = pm_arena_alloc(a, (size_t)n * sizeof(char *) + 1);
    c->property_values = pm_arena_alloc(a, (size_t)n * sizeof(char *) + 1);
    if (!c->property_keys || !c->property_values) return PM_NOMEM(err);
    for (int32_t i = 0; i < n; i++) {
      c->property_keys[i] = pm_wire_utf(&r, a);
      c->property_values[i] = pm_wire_utf(&r, a);
    }
  }
  c->message_version = pm_wire_i32(&r);
  int32_t n = pm_wire_i32(&r);
  if (r.why) return pm_wire_error(&r, err);
  int v = as07 ? PM_COMMIT_MESSAGE_VERSION_07 : c->message_version;
  if (!as07 && (v < 2 || v > PM_COMMIT_MESSAGE_VERSION))
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: commit message version %d", name, v);
  if (n < 0 || (size_t)n > (size_t)(r.end - r.p) / 8) {
    pm_wire_fail(&r, "bad commit message count");
    return pm_wire_error(&r, err);
  }
  c->messages = n ? pm_arena_alloc(a, (size_t)n * sizeof(pm_commit_message)) : NULL;
  if (n && !c->messages) return PM_NOMEM(err);
  for (int32_t i = 0; i < n; i++) {
    PM_TRY(pm_commit_message_read(&r, v, a, &c->messages[i], err));
    c->n_messages = (size_t)i + 1;
  }
  if (r.p != r.end) return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: %zu trailing bytes", name, (size_t)(r.end - r.p));
  c->messages_are_07 = as07;
  return 0;
}

int pm_committable_decode(const uint8_t *data, size_t len, int committable_version, const char *name,
                          pm_manifest_committable **out, pm_error *err) {
  if (committable_version < 2 || committable_version > PM_MANIFEST_COMMITTABLE_VERSION)
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: manifest committable version %d", name ? name : "committable",
                     committable_version);
  if (!name) name = "committable";
  for (int attempt = 0; attempt < 2; attempt++) {
    pm_manifest_committable *c = calloc(1, sizeof(*c));
    if (!c) return PM_NOMEM(err);
    pm_arena_init(&c->arena);
    int rc = decode_committable(data, len, committable_version, name, attempt == 1, c, err);
    if (!rc) {
      *out = c;
      return 0;
    }
    int retry = attempt == 0 && c->message_version == 2 && rc == PAIMON_ERR_CORRUPT;
    pm_committable_free(c);
    if (!retry) return rc;
    /* Paimon 0.7 wrote version 2 with another layout: Java retries the same way */
  }
  return PAIMON_ERR_INTERNAL;
}

int pm_committable_encode(const pm_manifest_committable *c, pm_buf *out, pm_error *err) {
  int bad = 0;
  pm_wire_put_i64(out, c->identifier, &bad);
  pm_wire_put_i8(out, c->has_watermark ? 0 : 1, &bad);
  if (c->has_watermark) pm_wire_put_i64(out, c->watermark, &bad);
  pm_wire_put_i32(out, (int32_t)c->n_properties, &bad);
  for (size_t i = 0; i < c->n_properties; i++) {
    pm_wire_put_utf(out, c->property_keys[i], &bad);
    pm_wire_put_utf(out, c->property_values[i], &bad);
  }
  pm_wire_put_i32(out, PM_COMMIT_MESSAGE_VERSION, &bad);
  pm_wire_put_i32(out, (int32_t)c->n_messages, &bad);
  if (bad) return PM_NOMEM(err);
  for (size_t i = 0; i < c->n_messages; i++)
    PM_TRY(pm_commit_message_write(out, &c->messages[i], PM_COMMIT_MESSAGE_VERSION, err));
  return 0;
}
