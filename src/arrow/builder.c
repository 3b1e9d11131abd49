#include "arrow/builder.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/bits.h"
#include "util/buf.h"

struct pm_builder {
  pm_type *type;     /* node in the root's tree */
  pm_type root_type; /* owned at the root only */
  int64_t length;
  int64_t null_count;
  int has_validity; /* validity bitmap materialised (first null seen) */
  pm_buf validity;
  pm_buf values; /* fixed-width values, bool bits, or offsets */
  pm_buf data;   /* var-width bytes */
  int width;       /* bytes per value for fixed-width types */
  int offset_size; /* 4 or 8 for offset-based types, else 0 */
  int64_t n_children;
  pm_builder **children;
};

static void builder_destroy(pm_builder *b) {
  if (!b) return;
  for (int64_t i = 0; i < b->n_children; i++) builder_destroy(b->children[i]);
  free(b->children);
  pm_buf_free(&b->validity);
  pm_buf_free(&b->values);
  pm_buf_free(&b->data);
  free(b);
}

void pm_builder_free(pm_builder *b) {
  if (!b) return;
  pm_type root = b->root_type;
  builder_destroy(b);
  pm_type_free(&root);
}

static int push_offset(pm_builder *b, int64_t v) {
  if (b->offset_size == 4) {
    int32_t o = (int32_t)v;
    return pm_buf_append(&b->values, &o, 4);
  }
  return pm_buf_append(&b->values, &v, 8);
}

static int64_t last_offset(const pm_builder *b) {
  if (b->offset_size == 4) {
    int32_t o;
    memcpy(&o, b->values.data + b->values.len - 4, 4);
    return o;
  }
  int64_t o;
  memcpy(&o, b->values.data + b->values.len - 8, 8);
  return o;
}

static int builder_create(pm_type *t, pm_builder **out, int depth, pm_error *err) {
  if (depth > PM_ARROW_MAX_DEPTH) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "builder: type nests too deep");
  if (t->dict)
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "builder: dictionary-encoded builders are not supported (%s)",
                     t->name ? t->name : "");
  pm_builder *b = calloc(1, sizeof *b);
  if (!b) return PM_NOMEM(err);
  b->type = t;
  pm_buf_init(&b->validity);
  pm_buf_init(&b->values);
  pm_buf_init(&b->data);
  b->width = pm_type_byte_width(t);
  switch (t->id) {
    case PM_T_UTF8:
    case PM_T_BINARY:
    case PM_T_LIST:
    case PM_T_MAP: b->offset_size = 4; break;
    case PM_T_LARGE_UTF8:
    case PM_T_LARGE_BINARY:
    case PM_T_LARGE_LIST: b->offset_size = 8; break;
    default: break;
  }
  if (t->id == PM_T_FIXED_BINARY && t->width <= 0) {
    builder_destroy(b);
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "builder: fixed-size binary needs a positive width");
  }
  if (b->offset_size && push_offset(b, 0)) {
    builder_destroy(b);
    return PM_NOMEM(err);
  }
  if (t->n_children > 0) {
    b->children = calloc((size_t)t->n_children, sizeof *b->children);
    if (!b->children) {
      builder_destroy(b);
      return PM_NOMEM(err);
    }
    b->n_children = t->n_children;
    for (int64_t i = 0; i < t->n_children; i++) {
      int rc = builder_create(&t->children[i], &b->children[i], depth + 1, err);
      if (rc) {
        builder_destroy(b);
        return rc;
      }
    }
  }
  *out = b;
  return 0;
}

int pm_builder_new(const pm_type *type, pm_builder **out, pm_error *err) {
  *out = NULL;
  pm_type root;
  PM_TRY(pm_type_copy(type, &root, err));
  pm_type_decode_dictionaries(&root); /* a dictionary-encoded type builds decoded values */
  /* The root node is stored inside the root builder once it exists; child
   * builders point into root.children (heap), which does not move. */
  pm_builder *b = NULL;
  pm_type tmp = root;
  int rc = builder_create(&tmp, &b, 0, err);
  if (rc) {
    pm_type_free(&root);
    return rc;
  }
  b->root_type = root;
  b->type = &b->root_type; /* children point into root.children, which did not move */
  *out = b;
  return 0;
}

int pm_builder_new_from_schema(const struct ArrowSchema *schema, pm_builder **out, pm_error *err) {
  pm_type t;
  PM_TRY(pm_type_from_schema(schema, &t, err));
  int rc = pm_builder_new(&t, out, err);
  pm_type_free(&t);
  return rc;
}

const pm_type *pm_builder_type(const pm_builder *b) { return b->type; }
int64_t pm_builder_length(const pm_builder *b) { return b->length; }
int64_t pm_builder_null_count(const pm_builder *b) { return b->null_count; }
pm_builder *pm_builder_child(pm_builder *b, int64_t i) {
  return i >= 0 && i < b->n_children ? b->children[i] : NULL;
}

int pm_builder_reserve(pm_builder *b, int64_t n, pm_error *err) {
  if (n < 0) return 0;
  size_t bytes = 0;
  if (b->offset_size)
    bytes = (size_t)n * (size_t)b->offset_size;
  else if (b->type->id == PM_T_BOOL)
    bytes = (size_t)(n + 7) / 8 + 1;
  else
    bytes = (size_t)n * (size_t)b->width;
  if (pm_buf_reserve(&b->values, bytes)) return PM_NOMEM(err);
  if (b->has_validity && pm_buf_reserve(&b->validity, (size_t)(n + 7) / 8 + 1)) return PM_NOMEM(err);
  return 0;
}

/* Grows a bitmap buffer (zero-filled) to hold nbits. */
static int bits_ensure(pm_buf *buf, int64_t nbits) {
  size_t need = (size_t)((nbits + 7) >> 3);
  if (need > buf->len) return pm_buf_append_zeros(buf, need - buf->len);
  return 0;
}

/* Materialises the validity bitmap with all current rows valid. */
static int materialise_validity(pm_builder *b) {
  if (b->has_validity) return 0;
  b->validity.len = 0;
  if (bits_ensure(&b->validity, b->length + 1)) return PAIMON_ERR_NOMEM;
  pm_bits_set_range(b->validity.data, 0, b->length, 1);
  b->has_validity = 1;
  return 0;
}

/* Records validity for `n` new rows (before length is advanced). */
static int push_validity(pm_builder *b, int valid) {
  if (!valid) {
    if (materialise_validity(b) || bits_ensure(&b->validity, b->length + 1)) return PAIMON_ERR_NOMEM;
    b->null_count++;
    return 0;
  }
  if (b->has_validity) {
    if (bits_ensure(&b->validity, b->length + 1)) return PAIMON_ERR_NOMEM;
    pm_bit_set(b->validity.data, b->length);
  }
  return 0;
}

static int append_null_impl(pm_builder *b, pm_error *err) {
  if (b->type->id != PM_T_NULL && push_validity(b, 0)) return PM_NOMEM(err);
  if (b->type->id == PM_T_NULL) b->null_count++;
  switch (b->type->id) {
    case PM_T_NULL: break;
    case PM_T_BOOL:
      if (bits_ensure(&b->values, b->length + 1)) return PM_NOMEM(err);
      break;
    case PM_T_STRUCT:
      for (int64_t i = 0; i < b->n_children; i++) PM_TRY(append_null_impl(b->children[i], err));
      break;
    case PM_T_FIXED_LIST:
      PM_TRY(pm_builder_append_nulls(b->children[0], b->type->width, err));
      break;
    default:
      if (b->offset_size) {
        if (push_offset(b, last_offset(b))) return PM_NOMEM(err);
      } else if (pm_buf_append_zeros(&b->values, (size_t)b->width)) {
        return PM_NOMEM(err);
      }
  }
  b->length++;
  return 0;
}

int pm_builder_append_null(pm_builder *b, pm_error *err) { return append_null_impl(b, err); }

int pm_builder_append_nulls(pm_builder *b, int64_t n, pm_error *err) {
  if (n <= 0) return 0;
  PM_TRY(pm_builder_reserve(b, n, err));
  for (int64_t i = 0; i < n; i++) PM_TRY(append_null_impl(b, err));
  return 0;
}

static int wrong_type(pm_builder *b, const char *what, pm_error *err) {
  char f[64];
  pm_type_format(b->type, f, sizeof f);
  return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "builder %s: cannot append %s to type \"%s\"",
                   b->type->name ? b->type->name : "", what, f);
}

int pm_builder_append_bool(pm_builder *b, int v, pm_error *err) {
  if (b->type->id != PM_T_BOOL) return wrong_type(b, "a boolean", err);
  if (push_validity(b, 1) || bits_ensure(&b->values, b->length + 1)) return PM_NOMEM(err);
  if (v) pm_bit_set(b->values.data, b->length);
  b->length++;
  return 0;
}

static int push_fixed(pm_builder *b, const void *v, pm_error *err) {
  if (push_validity(b, 1) || pm_buf_append(&b->values, v, (size_t)b->width)) return PM_NOMEM(err);
  b->length++;
  return 0;
}

static int out_of_range(pm_builder *b, const char *v, pm_error *err) {
  char f[64];
  pm_type_format(b->type, f, sizeof f);
  return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "builder %s: value %s out of range for type \"%s\"",
                   b->type->name ? b->type->name : "", v, f);
}

int pm_builder_append_int(pm_builder *b, int64_t v, pm_error *err) {
  char s[32];
  switch (b->type->id) {
    case PM_T_INT8:
      if (v < INT8_MIN || v > INT8_MAX) break;
      return push_fixed(b, &(int8_t){(int8_t)v}, err);
    case PM_T_UINT8:
      if (v < 0 || v > UINT8_MAX) break;
      return push_fixed(b, &(uint8_t){(uint8_t)v}, err);
    case PM_T_INT16:
      if (v < INT16_MIN || v > INT16_MAX) break;
      return push_fixed(b, &(int16_t){(int16_t)v}, err);
    case PM_T_UINT16:
      if (v < 0 || v > UINT16_MAX) break;
      return push_fixed(b, &(uint16_t){(uint16_t)v}, err);
    case PM_T_INT32:
    case PM_T_DATE32:
    case PM_T_TIME32:
      if (v < INT32_MIN || v > INT32_MAX) break;
      return push_fixed(b, &(int32_t){(int32_t)v}, err);
    case PM_T_UINT32:
      if (v < 0 || v > (int64_t)UINT32_MAX) break;
      return push_fixed(b, &(uint32_t){(uint32_t)v}, err);
    case PM_T_INT64:
    case PM_T_DATE64:
    case PM_T_TIME64:
    case PM_T_TIMESTAMP: return push_fixed(b, &v, err);
    case PM_T_UINT64:
      if (v < 0) break;
      return push_fixed(b, &(uint64_t){(uint64_t)v}, err);
    case PM_T_DECIMAL128: return pm_builder_append_decimal_i64(b, v, err);
    case PM_T_FLOAT:
    case PM_T_DOUBLE:
    case PM_T_HALF_FLOAT: return pm_builder_append_double(b, (double)v, err);
    default: return wrong_type(b, "an integer", err);
  }
  snprintf(s, sizeof s, "%lld", (long long)v);
  return out_of_range(b, s, err);
}

int pm_builder_append_uint(pm_builder *b, uint64_t v, pm_error *err) {
  if (b->type->id == PM_T_UINT64) return push_fixed(b, &v, err);
  if (v > INT64_MAX) {
    char s[32];
    snprintf(s, sizeof s, "%llu", (unsigned long long)v);
    return out_of_range(b, s, err);
  }
  return pm_builder_append_int(b, (int64_t)v, err);
}

static uint16_t double_to_half(double d) {
  float f = (float)d;
  uint32_t x;
  memcpy(&x, &f, 4);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
  int32_t e = (int32_t)((x >> 23) & 0xff) - 127 + 15;
  uint32_t m = x & 0x7fffff;
  if (((x >> 23) & 0xff) == 0xff) return (uint16_t)(sign | 0x7c00 | (m ? 0x200 : 0));
  if (e >= 31) return (uint16_t)(sign | 0x7c00);
  if (e <= 0) {
    if (e < -10) return sign;
    m |= 0x800000;
    uint32_t shift = (uint32_t)(14 - e);
    uint32_t h = m >> shift;
    if ((m >> (shift - 1)) & 1) h++; /* round half up */
    return (uint16_t)(sign | h);
  }
  uint32_t h = ((uint32_t)e << 10) | (m >> 13);
  if (m & 0x1000) h++;
  return (uint16_t)(sign | h);
}

int pm_builder_append_double(pm_builder *b, double v, pm_error *err) {
  switch (b->type->id) {
    case PM_T_DOUBLE: return push_fixed(b, &v, err);
    case PM_T_FLOAT: return push_fixed(b, &(float){(float)v}, err);
    case PM_T_HALF_FLOAT: return push_fixed(b, &(uint16_t){double_to_half(v)}, err);
    default: return wrong_type(b, "a floating point value", err);
  }
}

int pm_builder_append_decimal128(pm_builder *b, const uint8_t bytes[16], pm_error *err) {
  if (b->type->id != PM_T_DECIMAL128) return wrong_type(b, "a decimal", err);
  return push_fixed(b, bytes, err);
}

int pm_builder_append_decimal_i64(pm_builder *b, int64_t unscaled, pm_error *err) {
  uint8_t bytes[16];
  uint64_t lo = (uint64_t)unscaled, hi = unscaled < 0 ? UINT64_MAX : 0;
  memcpy(bytes, &lo, 8);
  memcpy(bytes + 8, &hi, 8);
  return pm_builder_append_decimal128(b, bytes, err);
}

static int push_varbin(pm_builder *b, const void *data, size_t n, pm_error *err) {
  int64_t end = last_offset(b) + (int64_t)n;
  if ((b->offset_size == 4 && (n > INT32_MAX || end > INT32_MAX)) || n > INT64_MAX / 2)
    return pm_errorf(err, PAIMON_ERR_NOMEM, "builder %s: more than 2 GiB of data in one string/binary array",
                     b->type->name ? b->type->name : "");
  if (push_validity(b, 1) || pm_buf_append(&b->data, data, n) || push_offset(b, end)) return PM_NOMEM(err);
  b->length++;
  return 0;
}

int pm_builder_append_bytes(pm_builder *b, const void *data, size_t n, pm_error *err) {
  if (pm_type_is_varbin(b->type->id)) return push_varbin(b, data, n, err);
  if (b->type->id == PM_T_FIXED_BINARY) {
    if (n != (size_t)b->width)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "builder %s: %zu bytes for fixed-size binary of width %d",
                       b->type->name ? b->type->name : "", n, b->width);
    return push_fixed(b, data, err);
  }
  return wrong_type(b, "bytes", err);
}

int pm_builder_append_str(pm_builder *b, const char *s, pm_error *err) {
  return pm_builder_append_bytes(b, s, strlen(s), err);
}

int pm_builder_append_valid(pm_builder *b, pm_error *err) {
  const char *name = b->type->name ? b->type->name : "";
  switch (b->type->id) {
    case PM_T_LIST:
    case PM_T_LARGE_LIST:
    case PM_T_MAP: {
      int64_t end = b->children[0]->length;
      if (end < last_offset(b))
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "builder %s: child shrank", name);
      if (b->offset_size == 4 && end > INT32_MAX)
        return pm_errorf(err, PAIMON_ERR_NOMEM, "builder %s: more than 2^31 list items", name);
      if (push_validity(b, 1) || push_offset(b, end)) return PM_NOMEM(err);
      break;
    }
    case PM_T_FIXED_LIST: {
      int64_t want = (b->length + 1) * b->type->width;
      if (b->children[0]->length != want)
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                         "builder %s: fixed-size list child has %lld items, expected %lld", name,
                         (long long)b->children[0]->length, (long long)want);
      if (push_validity(b, 1)) return PM_NOMEM(err);
      break;
    }
    case PM_T_STRUCT:
      for (int64_t i = 0; i < b->n_children; i++)
        if (b->children[i]->length != b->length + 1)
          return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "builder %s: field %s has %lld values, expected %lld",
                           name, b->type->children[i].name ? b->type->children[i].name : "",
                           (long long)b->children[i]->length, (long long)(b->length + 1));
      if (push_validity(b, 1)) return PM_NOMEM(err);
      break;
    default: return wrong_type(b, "a nested element", err);
  }
  b->length++;
  return 0;
}

/* ---------- copying from arrays ---------- */

static int src_index(const pm_type *t, const struct ArrowArray *a, int64_t p, int64_t *k) {
  const void *d = a->buffers[1];
  switch (t->id) {
    case PM_T_INT8: *k = ((const int8_t *)d)[p]; return 0;
    case PM_T_UINT8: *k = ((const uint8_t *)d)[p]; return 0;
    case PM_T_INT16: *k = ((const int16_t *)d)[p]; return 0;
    case PM_T_UINT16: *k = ((const uint16_t *)d)[p]; return 0;
    case PM_T_INT32: *k = ((const int32_t *)d)[p]; return 0;
    case PM_T_UINT32: *k = ((const uint32_t *)d)[p]; return 0;
    case PM_T_INT64: *k = ((const int64_t *)d)[p]; return 0;
    case PM_T_UINT64: {
      uint64_t u = ((const uint64_t *)d)[p];
      *k = u > INT64_MAX ? -1 : (int64_t)u;
      return 0;
    }
    default: return -1;
  }
}

static int read_offsets(const pm_builder *b, const struct ArrowArray *src, int64_t p, int64_t *s, int64_t *e) {
  if (b->offset_size == 4) {
    const int32_t *o = src->buffers[1];
    *s = o[p];
    *e = o[p + 1];
  } else {
    const int64_t *o = src->buffers[1];
    *s = o[p];
    *e = o[p + 1];
  }
  return *s < 0 || *e < *s ? -1 : 0;
}

static int bad_source(pm_builder *b, const char *what, int64_t row, pm_error *err) {
  return pm_errorf(err, PAIMON_ERR_CORRUPT, "builder %s: source array %s at row %lld",
                   b->type->name ? b->type->name : "", what, (long long)row);
}

static int src_shape_ok(pm_builder *b, const struct ArrowArray *src) {
  if (!src || !src->release) return 0;
  if (b->type->id == PM_T_NULL) return 1;
  if (src->n_buffers != pm_type_n_buffers(b->type->id) || src->n_children != b->n_children) return 0;
  for (int64_t i = 1; i < src->n_buffers; i++)
    if (!src->buffers[i]) return 0;
  for (int64_t i = 0; i < src->n_children; i++)
    if (!src->children[i]) return 0;
  return 1;
}

static int append_range_impl(pm_builder *b, const pm_type *st, const struct ArrowArray *src, int64_t start, int64_t n,
                             int depth, pm_error *err);

static int append_from_impl(pm_builder *b, const pm_type *st, const struct ArrowArray *src, int64_t row, int depth,
                            pm_error *err) {
  if (depth > PM_ARROW_MAX_DEPTH) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "builder: nesting too deep");
  if (st && st->dict) {
    if (!src || !src->release || src->n_buffers != 2 || !src->buffers[1] || !src->dictionary)
      return bad_source(b, "has a malformed dictionary layout", row, err);
    if (!pm_array_is_valid(src, row)) return append_null_impl(b, err);
    int64_t k;
    if (src_index(st, src, src->offset + row, &k) || k < 0 || k >= src->dictionary->length)
      return bad_source(b, "has a dictionary index out of range", row, err);
    return append_from_impl(b, st->dict, src->dictionary, k, depth + 1, err);
  }
  if (!src_shape_ok(b, src)) return bad_source(b, "does not match the builder's type layout", row, err);
  if (row < 0 || row >= src->length) return bad_source(b, "row out of range", row, err);
  if (b->type->id == PM_T_NULL || !pm_array_is_valid(src, row)) return append_null_impl(b, err);
  int64_t p = src->offset + row;
  const uint8_t *vals = src->n_buffers > 1 ? src->buffers[1] : NULL;
  switch (b->type->id) {
    case PM_T_BOOL: return pm_builder_append_bool(b, pm_bit_get(vals, p), err);
    case PM_T_UTF8:
    case PM_T_BINARY:
    case PM_T_LARGE_UTF8:
    case PM_T_LARGE_BINARY: {
      int64_t s, e;
      if (read_offsets(b, src, p, &s, &e)) return bad_source(b, "has decreasing offsets", row, err);
      return push_varbin(b, (const uint8_t *)src->buffers[2] + s, (size_t)(e - s), err);
    }
    case PM_T_LIST:
    case PM_T_LARGE_LIST:
    case PM_T_MAP: {
      int64_t s, e;
      if (read_offsets(b, src, p, &s, &e) || e > src->children[0]->length)
        return bad_source(b, "has offsets out of range", row, err);
      PM_TRY(append_range_impl(b->children[0], st ? &st->children[0] : NULL, src->children[0], s, e - s, depth + 1,
                               err));
      return pm_builder_append_valid(b, err);
    }
    case PM_T_FIXED_LIST: {
      int64_t w = b->type->width;
      if ((p + 1) * w > src->children[0]->length) return bad_source(b, "child is too short", row, err);
      PM_TRY(append_range_impl(b->children[0], st ? &st->children[0] : NULL, src->children[0], p * w, w, depth + 1,
                               err));
      return pm_builder_append_valid(b, err);
    }
    case PM_T_STRUCT:
      for (int64_t i = 0; i < b->n_children; i++)
        PM_TRY(append_from_impl(b->children[i], st ? &st->children[i] : NULL, src->children[i], p, depth + 1, err));
      return pm_builder_append_valid(b, err);
    default:
      return push_fixed(b, vals + p * b->width, err);
  }
}

int pm_builder_append_from(pm_builder *b, const pm_type *src_type, const struct ArrowArray *src, int64_t row,
                           pm_error *err) {
  return append_from_impl(b, src_type, src, row, 0, err);
}

/* Appends validity of src rows [p, p+n) (physical). */
static int append_validity_range(pm_builder *b, const struct ArrowArray *src, int64_t p, int64_t n) {
  const uint8_t *bits = src->n_buffers > 0 ? src->buffers[0] : NULL;
  int64_t nulls = 0;
  if (bits && src->null_count != 0) nulls = n - pm_bits_count(bits, p, n);
  if (nulls == 0) {
    if (b->has_validity) {
      if (bits_ensure(&b->validity, b->length + n)) return PAIMON_ERR_NOMEM;
      pm_bits_set_range(b->validity.data, b->length, n, 1);
    }
    return 0;
  }
  if (materialise_validity(b) || bits_ensure(&b->validity, b->length + n)) return PAIMON_ERR_NOMEM;
  pm_bits_copy(b->validity.data, b->length, bits, p, n);
  b->null_count += nulls;
  return 0;
}

static int append_range_impl(pm_builder *b, const pm_type *st, const struct ArrowArray *src, int64_t start, int64_t n,
                             int depth, pm_error *err) {
  if (n <= 0) return 0;
  if (depth > PM_ARROW_MAX_DEPTH) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "builder: nesting too deep");
  if (st && st->dict) {
    for (int64_t i = 0; i < n; i++) PM_TRY(append_from_impl(b, st, src, start + i, depth, err));
    return 0;
  }
  if (!src_shape_ok(b, src)) return bad_source(b, "does not match the builder's type layout", start, err);
  if (start < 0 || n > src->length - start) return bad_source(b, "range out of bounds", start, err);
  if (b->type->id == PM_T_NULL) {
    b->length += n;
    b->null_count += n;
    return 0;
  }
  int64_t p = src->offset + start;
  const uint8_t *vals = src->n_buffers > 1 ? src->buffers[1] : NULL;
  PM_TRY(pm_builder_reserve(b, n, err));
  switch (b->type->id) {
    case PM_T_BOOL:
      if (append_validity_range(b, src, p, n) || bits_ensure(&b->values, b->length + n)) return PM_NOMEM(err);
      pm_bits_copy(b->values.data, b->length, vals, p, n);
      break;
    case PM_T_UTF8:
    case PM_T_BINARY:
    case PM_T_LARGE_UTF8:
    case PM_T_LARGE_BINARY:
    case PM_T_LIST:
    case PM_T_LARGE_LIST:
    case PM_T_MAP: {
      int64_t first, last, s, e;
      if (read_offsets(b, src, p, &first, &e) || read_offsets(b, src, p + n - 1, &s, &last) || last < first)
        return bad_source(b, "has offsets out of range", start, err);
      int nested = !pm_type_is_varbin(b->type->id);
      if (nested && last > src->children[0]->length) return bad_source(b, "has offsets out of range", start, err);
      int64_t base = last_offset(b);
      if (b->offset_size == 4 && base + (last - first) > INT32_MAX)
        return pm_errorf(err, PAIMON_ERR_NOMEM, "builder %s: more than 2^31 bytes/items in one array",
                         b->type->name ? b->type->name : "");
      if (append_validity_range(b, src, p, n)) return PM_NOMEM(err);
      /* Rebase offsets; check monotonicity on the way (untrusted input). */
      int64_t prev = first;
      for (int64_t i = 1; i <= n; i++) {
        int64_t o;
        if (b->offset_size == 4)
          o = ((const int32_t *)vals)[p + i];
        else
          o = ((const int64_t *)vals)[p + i];
        if (o < prev || o > last) return bad_source(b, "has decreasing offsets", start + i - 1, err);
        prev = o;
        if (push_offset(b, base + (o - first))) return PM_NOMEM(err);
      }
      if (nested) {
        PM_TRY(append_range_impl(b->children[0], st ? &st->children[0] : NULL, src->children[0], first, last - first,
                                 depth + 1, err));
      } else if (pm_buf_append(&b->data, (const uint8_t *)src->buffers[2] + first, (size_t)(last - first))) {
        return PM_NOMEM(err);
      }
      break;
    }
    case PM_T_FIXED_LIST: {
      int64_t w = b->type->width;
      if ((p + n) * w > src->children[0]->length) return bad_source(b, "child is too short", start, err);
      if (append_validity_range(b, src, p, n)) return PM_NOMEM(err);
      PM_TRY(append_range_impl(b->children[0], st ? &st->children[0] : NULL, src->children[0], p * w, n * w,
                               depth + 1, err));
      break;
    }
    case PM_T_STRUCT:
      if (append_validity_range(b, src, p, n)) return PM_NOMEM(err);
      for (int64_t i = 0; i < b->n_children; i++)
        PM_TRY(append_range_impl(b->children[i], st ? &st->children[i] : NULL, src->children[i], p, n, depth + 1,
                                 err));
      break;
    default:
      if (append_validity_range(b, src, p, n) ||
          pm_buf_append(&b->values, vals + p * b->width, (size_t)(n * b->width)))
        return PM_NOMEM(err);
  }
  b->length += n;
  return 0;
}

int pm_builder_append_range(pm_builder *b, const pm_type *src_type, const struct ArrowArray *src, int64_t start,
                            int64_t n, pm_error *err) {
  return append_range_impl(b, src_type, src, start, n, 0, err);
}

/* ---------- gather ---------- */

/* Sets validity of the row at builder position pos (rows before pos exist or
 * are being written in this batch). */
static int validity_put(pm_builder *b, int64_t pos, int valid) {
  if (!valid) {
    if (!b->has_validity) {
      b->validity.len = 0;
      if (bits_ensure(&b->validity, pos + 1)) return PAIMON_ERR_NOMEM;
      pm_bits_set_range(b->validity.data, 0, pos, 1);
      b->has_validity = 1;
    } else if (bits_ensure(&b->validity, pos + 1)) {
      return PAIMON_ERR_NOMEM;
    }
    b->null_count++;
    return 0;
  }
  if (b->has_validity) {
    if (bits_ensure(&b->validity, pos + 1)) return PAIMON_ERR_NOMEM;
    pm_bit_set(b->validity.data, pos);
  }
  return 0;
}

static int append_take_impl(pm_builder *b, const pm_type *st, const struct ArrowArray *src, const int64_t *idx,
                            int64_t n, int depth, pm_error *err);

/* Gathers child indices for list-like rows and recurses once. */
typedef struct idx_vec {
  int64_t *v;
  int64_t n, cap;
} idx_vec;

static int idx_push(idx_vec *iv, int64_t x) {
  if (iv->n == iv->cap) {
    int64_t cap = iv->cap ? iv->cap * 2 : 256;
    int64_t *nv = realloc(iv->v, (size_t)cap * sizeof *nv);
    if (!nv) return PAIMON_ERR_NOMEM;
    iv->v = nv;
    iv->cap = cap;
  }
  iv->v[iv->n++] = x;
  return 0;
}

static int append_take_impl(pm_builder *b, const pm_type *st, const struct ArrowArray *src, const int64_t *idx,
                            int64_t n, int depth, pm_error *err) {
  if (n <= 0) return 0;
  if (depth > PM_ARROW_MAX_DEPTH) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "builder: nesting too deep");
  if (st && st->dict) {
    for (int64_t i = 0; i < n; i++) {
      if (idx[i] < 0)
        PM_TRY(append_null_impl(b, err));
      else
        PM_TRY(append_from_impl(b, st, src, idx[i], depth, err));
    }
    return 0;
  }
  if (!src_shape_ok(b, src)) return bad_source(b, "does not match the builder's type layout", 0, err);
  for (int64_t i = 0; i < n; i++)
    if (idx[i] >= src->length) return bad_source(b, "take index out of range", idx[i], err);
  if (b->type->id == PM_T_NULL) {
    b->length += n;
    b->null_count += n;
    return 0;
  }
  PM_TRY(pm_builder_reserve(b, n, err));
  const uint8_t *validity = src->buffers[0];
  if (src->null_count == 0) validity = NULL;
  const uint8_t *vals = src->n_buffers > 1 ? src->buffers[1] : NULL;
  int64_t base = b->length, off = src->offset;
  /* Validity first (common to all types); nulls_here marks rows to skip. */
  for (int64_t i = 0; i < n; i++) {
    int valid = idx[i] >= 0 && (!validity || pm_bit_get(validity, off + idx[i]));
    if (validity_put(b, base + i, valid)) return PM_NOMEM(err);
  }
#define ROW_VALID(i) (idx[i] >= 0 && (!validity || pm_bit_get(validity, off + idx[i])))
  int rc = 0;
  switch (b->type->id) {
    case PM_T_BOOL:
      if (bits_ensure(&b->values, base + n)) return PM_NOMEM(err);
      for (int64_t i = 0; i < n; i++)
        if (idx[i] >= 0 && pm_bit_get(vals, off + idx[i])) pm_bit_set(b->values.data, base + i);
      break;
    case PM_T_UTF8:
    case PM_T_BINARY:
    case PM_T_LARGE_UTF8:
    case PM_T_LARGE_BINARY: {
      int64_t end = last_offset(b);
      for (int64_t i = 0; i < n; i++) {
        if (ROW_VALID(i)) {
          int64_t s, e;
          if (read_offsets(b, src, off + idx[i], &s, &e)) return bad_source(b, "has decreasing offsets", idx[i], err);
          if (b->offset_size == 4 && end + (e - s) > INT32_MAX)
            return pm_errorf(err, PAIMON_ERR_NOMEM, "builder %s: more than 2 GiB in one string array",
                             b->type->name ? b->type->name : "");
          if (pm_buf_append(&b->data, (const uint8_t *)src->buffers[2] + s, (size_t)(e - s))) return PM_NOMEM(err);
          end += e - s;
        }
        if (push_offset(b, end)) return PM_NOMEM(err);
      }
      break;
    }
    case PM_T_LIST:
    case PM_T_LARGE_LIST:
    case PM_T_MAP:
    case PM_T_FIXED_LIST: {
      idx_vec iv = {0};
      const struct ArrowArray *child = src->children[0];
      int64_t end = b->type->id == PM_T_FIXED_LIST ? 0 : last_offset(b);
      int64_t w = b->type->width;
      for (int64_t i = 0; i < n && !rc; i++) {
        int valid = ROW_VALID(i);
        if (b->type->id == PM_T_FIXED_LIST) {
          int64_t p = off + idx[i];
          if (valid && (p + 1) * w > child->length) {
            rc = bad_source(b, "child is too short", idx[i], err);
            break;
          }
          for (int64_t k = 0; k < w && !rc; k++)
            if (idx_push(&iv, valid ? p * w + k : -1)) rc = PM_NOMEM(err);
          continue;
        }
        if (valid) {
          int64_t s, e;
          if (read_offsets(b, src, off + idx[i], &s, &e) || e > child->length) {
            rc = bad_source(b, "has offsets out of range", idx[i], err);
            break;
          }
          for (int64_t k = s; k < e && !rc; k++)
            if (idx_push(&iv, k)) rc = PM_NOMEM(err);
          end += e - s;
          if (b->offset_size == 4 && end > INT32_MAX) rc = pm_errorf(err, PAIMON_ERR_NOMEM, "list too long");
        }
        if (!rc && push_offset(b, end)) rc = PM_NOMEM(err);
      }
      if (!rc)
        rc = append_take_impl(b->children[0], st ? &st->children[0] : NULL, child, iv.v, iv.n, depth + 1, err);
      free(iv.v);
      break;
    }
    case PM_T_STRUCT: {
      int64_t *ci = malloc((size_t)n * sizeof *ci);
      if (!ci) return PM_NOMEM(err);
      for (int64_t i = 0; i < n; i++) ci[i] = ROW_VALID(i) ? off + idx[i] : -1;
      for (int64_t c = 0; c < b->n_children && !rc; c++)
        rc = append_take_impl(b->children[c], st ? &st->children[c] : NULL, src->children[c], ci, n, depth + 1, err);
      free(ci);
      break;
    }
    default: {
      size_t w = (size_t)b->width;
      if (pm_buf_reserve(&b->values, w * (size_t)n)) return PM_NOMEM(err);
      uint8_t *dst = b->values.data + b->values.len;
      switch (w) {
        case 4:
          for (int64_t i = 0; i < n; i++) {
            uint32_t v = 0;
            if (idx[i] >= 0) memcpy(&v, vals + (off + idx[i]) * 4, 4);
            memcpy(dst + i * 4, &v, 4);
          }
          break;
        case 8:
          for (int64_t i = 0; i < n; i++) {
            uint64_t v = 0;
            if (idx[i] >= 0) memcpy(&v, vals + (off + idx[i]) * 8, 8);
            memcpy(dst + i * 8, &v, 8);
          }
          break;
        default:
          for (int64_t i = 0; i < n; i++) {
            if (idx[i] >= 0)
              memcpy(dst + (size_t)i * w, vals + (size_t)(off + idx[i]) * w, w);
            else
              memset(dst + (size_t)i * w, 0, w);
          }
      }
      b->values.len += w * (size_t)n;
    }
  }
#undef ROW_VALID
  if (rc) return rc;
  b->length += n;
  return 0;
}

int pm_builder_append_take(pm_builder *b, const pm_type *src_type, const struct ArrowArray *src,
                           const int64_t *indices, int64_t n, pm_error *err) {
  return append_take_impl(b, src_type, src, indices, n, 0, err);
}

/* ---------- finishing ---------- */

static void *take_buffer(pm_buf *buf) {
  if (!buf->data) {
    void *v = pm_aligned_alloc(64);
    if (v) memset(v, 0, 64);
    return v;
  }
  return pm_buf_detach(buf, NULL);
}

static void reset(pm_builder *b) {
  b->length = 0;
  b->null_count = 0;
  b->has_validity = 0;
  pm_buf_free(&b->validity);
  pm_buf_free(&b->values);
  pm_buf_free(&b->data);
  if (b->offset_size) push_offset(b, 0); /* may fail (allocation): finish_impl checks values.len */
}

static int finish_impl(pm_builder *b, struct ArrowArray *out, pm_error *err) {
  int nbuf = pm_type_n_buffers(b->type->id);
  PM_TRY(pm_array_init(out, b->length, nbuf, b->n_children, err));
  out->null_count = b->null_count;
  if (nbuf > 0) {
    if (b->has_validity && b->null_count > 0) {
      void *v = take_buffer(&b->validity);
      if (!v) goto nomem;
      pm_array_set_buffer(out, 0, v);
    }
    if (nbuf > 1) {
      void *v = take_buffer(&b->values);
      if (!v) goto nomem;
      pm_array_set_buffer(out, 1, v);
    }
    if (nbuf > 2) {
      void *v = take_buffer(&b->data);
      if (!v) goto nomem;
      pm_array_set_buffer(out, 2, v);
    }
  }
  for (int64_t i = 0; i < b->n_children; i++) {
    int rc = finish_impl(b->children[i], out->children[i], err);
    if (rc) {
      pm_array_release(out);
      return rc;
    }
  }
  reset(b);
  if (b->offset_size && b->values.len == 0) {
    pm_array_release(out);
    return PM_NOMEM(err);
  }
  return 0;
nomem:
  pm_array_release(out);
  return PM_NOMEM(err);
}

int pm_builder_finish(pm_builder *b, struct ArrowArray *out, pm_error *err) {
  out->release = NULL;
  return finish_impl(b, out, err);
}

int pm_builder_schema(const pm_builder *b, const char *name, struct ArrowSchema *out, pm_error *err) {
  PM_TRY(pm_type_to_schema(b->type, out, err));
  if (name) {
    /* Rebuild the root with the new name: cheap, names are short. */
    struct ArrowSchema tmp;
    int rc = pm_schema_init(&tmp, out->format, name, out->flags, 0, err);
    if (rc) {
      pm_schema_release(out);
      return rc;
    }
    /* Move children and dictionary from out into tmp. */
    tmp.children = out->children;
    tmp.n_children = out->n_children;
    tmp.dictionary = out->dictionary;
    out->children = NULL;
    out->n_children = 0;
    out->dictionary = NULL;
    pm_schema_release(out);
    *out = tmp;
  }
  return 0;
}
