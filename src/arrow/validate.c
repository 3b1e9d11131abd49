#include "arrow/validate.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "arrow/bits.h"
#include "arrow/type.h"
#include "util/utf8.h"

typedef struct vctx {
  unsigned flags;
  pm_error *err;
  char path[512];
} vctx;

#define VFAIL(c, ...) vfail((c), __VA_ARGS__)

__attribute__((format(printf, 2, 3))) static int vfail(vctx *c, const char *fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return pm_errorf(c->err, PAIMON_ERR_INVALID_ARGUMENT, "%s: %s", c->path, msg);
}

static size_t path_push(vctx *c, const char *name, int64_t index) {
  size_t base = strlen(c->path);
  if (name && name[0])
    snprintf(c->path + base, sizeof c->path - base, ".%s", name);
  else
    snprintf(c->path + base, sizeof c->path - base, ".[%lld]", (long long)index);
  return base;
}

static int read_index(const pm_type *t, const void *d, int64_t p, int64_t *k) {
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

/* Checks offsets[p..p+n] (n+1 entries); returns first and last. */
static int check_offsets(vctx *c, const void *buf, int large, int64_t p, int64_t n, int64_t *first, int64_t *last) {
  int64_t prev = 0;
  *first = *last = 0;
  if (!buf) return n == 0 ? 0 : VFAIL(c, "offsets buffer is NULL");
  for (int64_t i = 0; i <= n; i++) {
    int64_t o = large ? ((const int64_t *)buf)[p + i] : ((const int32_t *)buf)[p + i];
    if (i == 0) {
      if (o < 0) return VFAIL(c, "negative first offset %lld", (long long)o);
      *first = o;
    } else if (o < prev) {
      return VFAIL(c, "offsets decrease at index %lld (%lld -> %lld)", (long long)(i - 1), (long long)prev,
                   (long long)o);
    }
    prev = o;
  }
  *last = prev;
  return 0;
}

static int validate_array(vctx *c, const pm_type *t, const struct ArrowArray *a, int depth);

static int validate_child(vctx *c, const pm_type *ct, const struct ArrowArray *child, int64_t i, int64_t need,
                          int depth) {
  size_t base = path_push(c, ct->name, i);
  int rc = 0;
  if (!child || !child->release)
    rc = VFAIL(c, "child array is NULL or released");
  else if (child->length < need)
    rc = VFAIL(c, "child has %lld values, parent needs %lld", (long long)child->length, (long long)need);
  if (!rc) rc = validate_array(c, ct, child, depth + 1);
  if (!rc) c->path[base] = 0;
  return rc;
}

static int decimal_fits(const uint8_t *v, int32_t precision) {
  uint64_t lo, hi;
  memcpy(&lo, v, 8);
  memcpy(&hi, v + 8, 8);
  unsigned __int128 u = ((unsigned __int128)hi << 64) | lo;
  if (hi >> 63) u = (unsigned __int128)0 - u;
  unsigned __int128 lim = 1;
  for (int i = 0; i < precision; i++) lim *= 10;
  return u < lim;
}

static int validate_array(vctx *c, const pm_type *t, const struct ArrowArray *a, int depth) {
  if (depth > PM_ARROW_MAX_DEPTH) return VFAIL(c, "nesting deeper than %d", PM_ARROW_MAX_DEPTH);
  if (a->length < 0) return VFAIL(c, "negative length %lld", (long long)a->length);
  if (a->offset < 0) return VFAIL(c, "negative offset %lld", (long long)a->offset);
  if (a->length > INT64_MAX / 16 - a->offset)
    return VFAIL(c, "offset %lld + length %lld is too large", (long long)a->offset, (long long)a->length);
  if (a->null_count < -1 || a->null_count > a->length)
    return VFAIL(c, "null_count %lld outside [-1, length %lld]", (long long)a->null_count, (long long)a->length);
  int want_bufs = t->dict ? 2 : pm_type_n_buffers(t->id);
  if (a->n_buffers != want_bufs)
    return VFAIL(c, "has %lld buffers, type needs %d", (long long)a->n_buffers, want_bufs);
  if (a->n_buffers > 0 && !a->buffers) return VFAIL(c, "buffers pointer is NULL");
  int64_t want_children = t->dict ? 0 : t->n_children;
  if (a->n_children != want_children)
    return VFAIL(c, "has %lld children, type needs %lld", (long long)a->n_children, (long long)want_children);
  if (a->n_children > 0 && !a->children) return VFAIL(c, "children pointer is NULL");
  int64_t end = a->offset + a->length; /* physical end */
  if ((c->flags & PM_VALIDATE_NULLABILITY) && !t->nullable && a->length > 0) {
    const uint8_t *vb = a->n_buffers > 0 ? a->buffers[0] : NULL;
    int64_t nulls = t->id == PM_T_NULL ? a->length : vb ? a->length - pm_bits_count(vb, a->offset, a->length) : 0;
    if (nulls > 0) return VFAIL(c, "%lld nulls in a non-nullable field", (long long)nulls);
  }
  const uint8_t *validity = NULL;
  if (t->id == PM_T_NULL && !t->dict) {
    if (a->null_count != -1 && a->null_count != a->length)
      return VFAIL(c, "null-type array has null_count %lld, length %lld", (long long)a->null_count,
                   (long long)a->length);
    return 0;
  }
  validity = a->buffers[0];
  if (!validity) {
    if (a->null_count > 0)
      return VFAIL(c, "null_count %lld but no validity bitmap", (long long)a->null_count);
  } else if (a->null_count >= 0) {
    int64_t nulls = a->length - pm_bits_count(validity, a->offset, a->length);
    if (nulls != a->null_count)
      return VFAIL(c, "null_count %lld but validity bitmap has %lld nulls", (long long)a->null_count,
                   (long long)nulls);
  }
  for (int64_t i = 1; i < a->n_buffers; i++)
    if (!a->buffers[i] && end > 0)
      return VFAIL(c, "buffer %lld is NULL", (long long)i);
  const void *vals = a->n_buffers > 1 ? a->buffers[1] : NULL;

  if (t->dict) {
    if (!a->dictionary || !a->dictionary->release) return VFAIL(c, "dictionary-encoded array without dictionary");
    size_t base = strlen(c->path);
    snprintf(c->path + base, sizeof c->path - base, ".<dictionary>");
    PM_TRY(validate_array(c, t->dict, a->dictionary, depth + 1));
    c->path[base] = 0;
    for (int64_t p = a->offset; p < end; p++) {
      if (validity && !pm_bit_get(validity, p)) continue;
      int64_t k = -1;
      read_index(t, vals, p, &k);
      if (k < 0 || k >= a->dictionary->length)
        return VFAIL(c, "dictionary index %lld at row %lld outside [0, %lld)", (long long)k,
                     (long long)(p - a->offset), (long long)a->dictionary->length);
    }
    return 0;
  }
  if (a->dictionary) return VFAIL(c, "array has a dictionary but the schema does not");

  switch (t->id) {
    case PM_T_DECIMAL128: {
      for (int64_t p = a->offset; p < end; p++) {
        if (validity && !pm_bit_get(validity, p)) continue;
        if (!decimal_fits((const uint8_t *)vals + p * 16, t->precision))
          return VFAIL(c, "decimal at row %lld has more than %d digits", (long long)(p - a->offset),
                       (int)t->precision);
      }
      return 0;
    }
    case PM_T_UTF8:
    case PM_T_LARGE_UTF8:
    case PM_T_BINARY:
    case PM_T_LARGE_BINARY: {
      int64_t first, last;
      PM_TRY(check_offsets(c, vals, pm_type_is_large(t->id), a->offset, a->length, &first, &last));
      if (last > first && !a->buffers[2]) return VFAIL(c, "data buffer is NULL");
      if ((c->flags & PM_VALIDATE_UTF8) && (t->id == PM_T_UTF8 || t->id == PM_T_LARGE_UTF8) && last > first &&
          !pm_utf8_all_ascii((const uint8_t *)a->buffers[2] + first, (size_t)(last - first))) {
        /* value by value unless the values' bytes are all ASCII */
        int large = t->id == PM_T_LARGE_UTF8;
        for (int64_t p = a->offset; p < end; p++) {
          if (validity && !pm_bit_get(validity, p)) continue;
          int64_t s = large ? ((const int64_t *)vals)[p] : ((const int32_t *)vals)[p];
          int64_t e = large ? ((const int64_t *)vals)[p + 1] : ((const int32_t *)vals)[p + 1];
          size_t bad = 0;
          if (e > s && !pm_utf8_valid((const uint8_t *)a->buffers[2] + s, (size_t)(e - s), &bad))
            return VFAIL(c, "invalid UTF-8 in row %lld at byte %lld", (long long)(p - a->offset), (long long)bad);
        }
      }
      return 0;
    }
    case PM_T_FIXED_BINARY:
      if (t->width <= 0) return VFAIL(c, "fixed-size binary width %d", (int)t->width);
      return 0;
    case PM_T_LIST:
    case PM_T_LARGE_LIST:
    case PM_T_MAP: {
      int64_t first, last;
      PM_TRY(check_offsets(c, vals, t->id == PM_T_LARGE_LIST, a->offset, a->length, &first, &last));
      PM_TRY(validate_child(c, &t->children[0], a->children[0], 0, last, depth));
      if (t->id == PM_T_MAP) {
        const struct ArrowArray *entries = a->children[0];
        if (entries->null_count > 0 || (entries->null_count < 0 && entries->buffers[0] &&
                                        pm_bits_count(entries->buffers[0], entries->offset, entries->length) !=
                                            entries->length))
          return VFAIL(c, "map entries contain nulls");
        const struct ArrowArray *keys = entries->children[0];
        const uint8_t *kv = keys->n_buffers > 0 ? keys->buffers[0] : NULL;
        if (keys->n_buffers == 0 && keys->length > 0) return VFAIL(c, "map keys are of null type");
        if (kv) {
          int64_t kp = keys->offset + entries->offset;
          if (pm_bits_count(kv, kp + first, last - first) != last - first)
            return VFAIL(c, "map has a null key");
        }
      }
      return 0;
    }
    case PM_T_FIXED_LIST: {
      if (t->width < 0) return VFAIL(c, "fixed-size list size %d", (int)t->width);
      if (t->width > 0 && end > INT64_MAX / 16 / t->width) return VFAIL(c, "fixed-size list too long");
      return validate_child(c, &t->children[0], a->children[0], 0, end * t->width, depth);
    }
    case PM_T_STRUCT:
      for (int64_t i = 0; i < t->n_children; i++)
        PM_TRY(validate_child(c, &t->children[i], a->children[i], i, end, depth));
      return 0;
    default: return 0;
  }
}

int pm_arrow_validate_ex(const struct ArrowSchema *schema, const struct ArrowArray *array, unsigned flags,
                         pm_error *err) {
  pm_type t;
  PM_TRY(pm_type_from_schema(schema, &t, err));
  vctx c;
  c.flags = flags;
  c.err = err;
  snprintf(c.path, sizeof c.path, "%s", schema->name && schema->name[0] ? schema->name : "<root>");
  int rc;
  if (!array || !array->release)
    rc = VFAIL(&c, "array is NULL or released");
  else
    rc = validate_array(&c, &t, array, 0);
  pm_type_free(&t);
  return rc;
}

int pm_arrow_validate(const struct ArrowSchema *schema, const struct ArrowArray *array, pm_error *err) {
  return pm_arrow_validate_ex(schema, array, 0, err);
}
