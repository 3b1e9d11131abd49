#include "arrow/view.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow.h"
#include "arrow/bits.h"
#include "arrow/builder.h"
#include "arrow/type.h"
#include "util/buf.h"

typedef struct nctx {
  pm_error *err;
  char path[512];
} nctx;

__attribute__((format(printf, 2, 3))) static int nfail(nctx *c, const char *fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return pm_errorf(c->err, PAIMON_ERR_INVALID_ARGUMENT, "column '%s': %s", c->path[0] ? c->path : "<root>", msg);
}

static size_t path_push(nctx *c, const char *name, int64_t i) {
  size_t base = strlen(c->path);
  const char *dot = base ? "." : "";
  if (name && name[0])
    snprintf(c->path + base, sizeof c->path - base, "%s%s", dot, name);
  else
    snprintf(c->path + base, sizeof c->path - base, "%s[%lld]", dot, (long long)i);
  return base;
}

static int is_fmt(const char *f, const char *w) { return f && !strcmp(f, w); }

static int varbin_kind(const char *f) {
  /* 1 utf8 32-bit, 2 binary 32-bit, 3 utf8 64, 4 binary 64, 5 utf8 view, 6 binary view; 0 other */
  if (is_fmt(f, "u")) return 1;
  if (is_fmt(f, "z")) return 2;
  if (is_fmt(f, "U")) return 3;
  if (is_fmt(f, "Z")) return 4;
  if (is_fmt(f, "vu")) return 5;
  if (is_fmt(f, "vz")) return 6;
  return 0;
}

static int needs(const struct ArrowSchema *s, int depth) {
  if (!s || !s->release || !s->format || depth > PM_ARROW_MAX_DEPTH) return 0;
  if (s->dictionary) return 1;
  const char *f = s->format;
  if (is_fmt(f, "U") || is_fmt(f, "Z") || is_fmt(f, "vu") || is_fmt(f, "vz") || is_fmt(f, "+L") ||
      is_fmt(f, "+vl") || is_fmt(f, "+vL"))
    return 1;
  if (!s->children) return 0;
  for (int64_t i = 0; i < s->n_children; i++)
    if (needs(s->children[i], depth + 1)) return 1;
  return 0;
}

int pm_arrow_needs_plain(const struct ArrowSchema *schema) { return needs(schema, 0); }

/* ------------------------------------------------------------ helpers */

static void borrow_release(struct ArrowArray *a) { a->release = NULL; }

static const uint8_t *validity_of(const struct ArrowArray *a) {
  return a->n_buffers > 0 && a->buffers ? (const uint8_t *)a->buffers[0] : NULL;
}

/* Nulls among physical positions [p, p+n) of a. */
static int64_t nulls_in(const struct ArrowArray *a, int64_t p, int64_t n) {
  const uint8_t *v = validity_of(a);
  if (!v || a->null_count == 0 || n == 0) return 0;
  return n - pm_bits_count(v, p, n);
}

/* Copies validity of physical [p, p+n) into out's buffer 0 (none when no nulls). */
static int copy_validity(nctx *c, const struct ArrowArray *a, int64_t p, int64_t n, struct ArrowArray *out) {
  int64_t nulls = nulls_in(a, p, n);
  out->null_count = nulls;
  if (!nulls) return 0;
  uint8_t *bits = pm_aligned_alloc((size_t)(n + 7) / 8);
  if (!bits) return PM_NOMEM(c->err);
  memset(bits, 0, (size_t)(n + 7) / 8);
  pm_bits_copy(bits, 0, validity_of(a), p, n);
  pm_array_set_buffer(out, 0, bits);
  return 0;
}

static int check_node(nctx *c, const struct ArrowSchema *s, const struct ArrowArray *a, int64_t start, int64_t len) {
  if (!s || !s->release || !s->format) return nfail(c, "schema node is NULL or released");
  if (!a || !a->release) return nfail(c, "array is NULL or released");
  if (a->length < 0 || a->offset < 0) return nfail(c, "negative length or offset");
  if (start < 0 || len < 0 || a->length - len < start)
    return nfail(c, "array has %lld values, its parent needs %lld", (long long)a->length, (long long)(start + len));
  if (a->n_children > 0 && !a->children) return nfail(c, "children pointer is NULL");
  if (a->n_buffers > 0 && !a->buffers) return nfail(c, "buffers pointer is NULL");
  if (a->n_children != s->n_children)
    return nfail(c, "array has %lld children, schema %lld", (long long)a->n_children, (long long)s->n_children);
  return 0;
}

static int norm(nctx *c, const struct ArrowSchema *s, const struct ArrowArray *a, int64_t start, int64_t len,
                struct ArrowSchema *out_s, struct ArrowArray *out_a, int depth);

/* ------------------------------------------------------------ strings */

typedef struct vb_src {
  int kind; /* varbin_kind */
  const struct ArrowArray *a;
  const void *off;     /* offsets / views */
  const uint8_t *data; /* offset kinds */
  const int64_t *sizes; /* view kinds: variadic buffer sizes */
  int64_t n_data;       /* view kinds: number of data buffers */
} vb_src;

static int vb_open(nctx *c, const struct ArrowSchema *s, const struct ArrowArray *a, int kind, vb_src *v) {
  memset(v, 0, sizeof *v);
  v->kind = kind;
  v->a = a;
  if (kind >= 5) {
    if (a->n_buffers < 3)
      return nfail(c, "%s array has %lld buffers, needs at least 3 (validity, views, buffer sizes)", s->format,
                   (long long)a->n_buffers);
    v->off = a->buffers[1];
    v->n_data = a->n_buffers - 3;
    v->sizes = a->buffers[a->n_buffers - 1];
    if (v->n_data > 0 && !v->sizes) return nfail(c, "variadic buffer sizes are NULL");
  } else {
    if (a->n_buffers != 3) return nfail(c, "has %lld buffers, type needs 3", (long long)a->n_buffers);
    v->off = a->buffers[1];
    v->data = a->buffers[2];
  }
  return 0;
}

/* Value at physical position p (valid row; `row` is for messages). */
static int vb_get(nctx *c, const vb_src *v, int64_t p, int64_t row, const uint8_t **out, int64_t *n) {
  if (!v->off) return nfail(c, "offsets/views buffer is NULL");
  if (v->kind >= 5) {
    const uint8_t *view = (const uint8_t *)v->off + p * 16;
    int32_t l, bi, bo;
    memcpy(&l, view, 4);
    if (l < 0) return nfail(c, "view at row %lld has negative length %d", (long long)row, (int)l);
    if (l <= 12) {
      *out = view + 4;
      *n = l;
      return 0;
    }
    memcpy(&bi, view + 8, 4);
    memcpy(&bo, view + 12, 4);
    if (bi < 0 || bi >= v->n_data)
      return nfail(c, "view at row %lld refers to data buffer %d of %lld", (long long)row, (int)bi,
                   (long long)v->n_data);
    const uint8_t *d = v->a->buffers[2 + bi];
    if (bo < 0 || (int64_t)bo + l > v->sizes[bi] || !d)
      return nfail(c, "view at row %lld: bytes [%d, %lld) outside data buffer %d of %lld bytes", (long long)row,
                   (int)bo, (long long)bo + l, (int)bi, (long long)v->sizes[bi]);
    *out = d + bo;
    *n = l;
    return 0;
  }
  int64_t s, e;
  if (v->kind >= 3) {
    s = ((const int64_t *)v->off)[p];
    e = ((const int64_t *)v->off)[p + 1];
  } else {
    s = ((const int32_t *)v->off)[p];
    e = ((const int32_t *)v->off)[p + 1];
  }
  if (s < 0 || e < s)
    return nfail(c, "offsets at row %lld are invalid (%lld -> %lld)", (long long)row, (long long)s, (long long)e);
  if (e > s && !v->data) return nfail(c, "data buffer is NULL");
  *out = v->data + s;
  *n = e - s;
  return 0;
}

static int read_index(const char *f, const void *d, int64_t p, int64_t *k) {
  if (!f || !f[0] || f[1]) return -1;
  switch (f[0]) {
    case 'c': *k = ((const int8_t *)d)[p]; return 0;
    case 'C': *k = ((const uint8_t *)d)[p]; return 0;
    case 's': *k = ((const int16_t *)d)[p]; return 0;
    case 'S': *k = ((const uint16_t *)d)[p]; return 0;
    case 'i': *k = ((const int32_t *)d)[p]; return 0;
    case 'I': *k = ((const uint32_t *)d)[p]; return 0;
    case 'l': *k = ((const int64_t *)d)[p]; return 0;
    case 'L': {
      uint64_t u = ((const uint64_t *)d)[p];
      *k = u > INT64_MAX ? -1 : (int64_t)u;
      return 0;
    }
    default: return -1;
  }
}

/* Dictionary indices of a: checks, and maps logical row i (physical a->offset+start+i)
 * to the dictionary's physical position, or -1 for a null row. */
typedef struct dict_map {
  const struct ArrowArray *idx;
  const struct ArrowArray *dict;
  const char *ifmt;
} dict_map;

static int dict_pos(nctx *c, const dict_map *m, int64_t p, int64_t row, int64_t *pos) {
  const uint8_t *iv = validity_of(m->idx);
  if (iv && m->idx->null_count != 0 && !pm_bit_get(iv, p)) {
    *pos = -1;
    return 0;
  }
  int64_t k = -1;
  if (!m->idx->buffers[1]) return nfail(c, "dictionary indices buffer is NULL");
  read_index(m->ifmt, m->idx->buffers[1], p, &k);
  if (k < 0 || k >= m->dict->length)
    return nfail(c, "dictionary index %lld at row %lld outside the dictionary [0, %lld)", (long long)k,
                 (long long)row, (long long)m->dict->length);
  const uint8_t *dv = validity_of(m->dict);
  *pos = m->dict->offset + k;
  if (dv && m->dict->null_count != 0 && !pm_bit_get(dv, *pos)) *pos = -1;
  return 0;
}

/* utf8/binary out of any string kind, optionally through a dictionary. */
static int conv_varbin(nctx *c, const struct ArrowSchema *s, const struct ArrowArray *a, int64_t start, int64_t len,
                       int kind, const dict_map *m, struct ArrowSchema *out_s, struct ArrowArray *out_a) {
  vb_src v;
  PM_TRY(vb_open(c, m ? s->dictionary : s, m ? m->dict : a, kind, &v));
  const uint8_t *valid = m ? NULL : validity_of(a);
  int64_t p0 = a->offset + start;
  if (kind < 5) {
    /* offsets monotonic over the whole range followed (null rows included) */
    int64_t q0 = m ? m->dict->offset : p0, qn = m ? m->dict->length : len;
    if (qn > 0 && !v.off) return nfail(c, "offsets buffer is NULL");
    int64_t prev = 0;
    for (int64_t i = 0; i <= qn && qn > 0; i++) {
      int64_t o = kind >= 3 ? ((const int64_t *)v.off)[q0 + i] : ((const int32_t *)v.off)[q0 + i];
      if (i == 0 && o < 0) return nfail(c, "%snegative first offset %lld", m ? "dictionary: " : "", (long long)o);
      if (i > 0 && o < prev)
        return nfail(c, "%soffsets decrease at row %lld (%lld -> %lld)", m ? "dictionary: " : "", (long long)(i - 1),
                     (long long)prev, (long long)o);
      prev = o;
    }
  }
  int has_nulls = 0;
  int64_t total = 0;
  for (int64_t i = 0; i < len; i++) {
    int64_t p = p0 + i;
    if (m) {
      PM_TRY(dict_pos(c, m, p, i, &p));
      if (p < 0) {
        has_nulls = 1;
        continue;
      }
    } else if (valid && a->null_count != 0 && !pm_bit_get(valid, p)) {
      has_nulls = 1;
      continue;
    }
    const uint8_t *d;
    int64_t n;
    PM_TRY(vb_get(c, &v, p, i, &d, &n));
    total += n;
    if (total > INT32_MAX)
      return nfail(c, "more than 2 GiB of values in one batch (at row %lld); split the batch", (long long)i);
  }
  int text = kind == 1 || kind == 3 || kind == 5;
  PM_TRY(pm_schema_init(out_s, text ? "u" : "z", s->name, s->flags, 0, c->err));
  int rc = pm_array_init(out_a, len, 3, 0, c->err);
  if (rc) {
    out_s->release(out_s);
    return rc;
  }
  int32_t *off = pm_aligned_alloc((size_t)(len + 1) * 4);
  uint8_t *data = pm_aligned_alloc((size_t)total);
  uint8_t *bits = has_nulls ? pm_aligned_alloc((size_t)(len + 7) / 8) : NULL;
  pm_array_set_buffer(out_a, 1, off);
  pm_array_set_buffer(out_a, 2, data);
  pm_array_set_buffer(out_a, 0, bits);
  if (!off || !data || (has_nulls && !bits)) {
    out_a->release(out_a);
    out_s->release(out_s);
    return PM_NOMEM(c->err);
  }
  if (bits) memset(bits, 0, (size_t)(len + 7) / 8);
  int64_t at = 0, nulls = 0;
  for (int64_t i = 0; i < len; i++) {
    int64_t p = p0 + i;
    off[i] = (int32_t)at;
    int null = 0;
    if (m) {
      (void)dict_pos(c, m, p, i, &p);
      null = p < 0;
    } else {
      null = valid && a->null_count != 0 && !pm_bit_get(valid, p);
    }
    if (null) {
      nulls++;
      continue;
    }
    if (bits) pm_bit_set(bits, i);
    const uint8_t *d;
    int64_t n;
    (void)vb_get(c, &v, p, i, &d, &n);
    if (n) memcpy(data + at, d, (size_t)n);
    at += n;
  }
  off[len] = (int32_t)at;
  out_a->null_count = nulls;
  return 0;
}

/* Any other dictionary: decoded with a builder (value type must be plain). */
static int conv_dict_generic(nctx *c, const struct ArrowSchema *s, const struct ArrowArray *a, int64_t start,
                             int64_t len, const dict_map *m, struct ArrowSchema *out_s, struct ArrowArray *out_a) {
  if (needs(s->dictionary, 0))
    return nfail(c, "dictionary values of Arrow type '%s' are not supported", s->dictionary->format);
  int64_t p0 = a->offset + start;
  for (int64_t i = 0; i < len; i++) {
    int64_t p;
    PM_TRY(dict_pos(c, m, p0 + i, i, &p));
  }
  pm_type t;
  PM_TRY(pm_type_from_schema(s, &t, c->err));
  pm_type dec;
  int rc = pm_type_copy(&t, &dec, c->err);
  if (rc) {
    pm_type_free(&t);
    return rc;
  }
  pm_type_decode_dictionaries(&dec);
  pm_builder *b = NULL;
  rc = pm_builder_new(&dec, &b, c->err);
  if (!rc) rc = pm_builder_append_range(b, &t, a, start, len, c->err);
  if (!rc) rc = pm_builder_finish(b, out_a, c->err);
  if (!rc) {
    rc = pm_builder_schema(b, s->name, out_s, c->err);
    if (rc) out_a->release(out_a);
    else out_s->flags = s->flags & ~(int64_t)ARROW_FLAG_DICTIONARY_ORDERED;
  }
  pm_builder_free(b);
  pm_type_free(&dec);
  pm_type_free(&t);
  return rc;
}

/* ------------------------------------------------------------ nested */

static int child_norm(nctx *c, const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i, int64_t start,
                      int64_t len, struct ArrowSchema *out_s, struct ArrowArray *out_a, int depth) {
  if (!s->children || !s->children[i]) return nfail(c, "schema child %lld is NULL", (long long)i);
  size_t base = path_push(c, s->children[i]->name, i);
  int rc = norm(c, s->children[i], a->children[i], start, len, out_s->children[i], out_a->children[i], depth + 1);
  if (!rc) c->path[base] = 0;
  return rc;
}

static int conv_struct(nctx *c, const struct ArrowSchema *s, const struct ArrowArray *a, int64_t start, int64_t len,
                       int64_t child_start, int64_t child_len, const char *fmt, struct ArrowSchema *out_s,
                       struct ArrowArray *out_a, int depth) {
  PM_TRY(pm_schema_init(out_s, fmt, s->name, s->flags, s->n_children, c->err));
  int rc = pm_array_init(out_a, len, 1, s->n_children, c->err);
  if (!rc) rc = copy_validity(c, a, a->offset + start, len, out_a);
  for (int64_t i = 0; !rc && i < s->n_children; i++)
    rc = child_norm(c, s, a, i, child_start, child_len, out_s, out_a, depth);
  if (rc) {
    if (out_a->release) out_a->release(out_a);
    out_s->release(out_s);
  }
  return rc;
}

/* list / large list / map: 32-bit offsets rebased to 0, child sliced to the rows' range. */
static int conv_list(nctx *c, const struct ArrowSchema *s, const struct ArrowArray *a, int64_t start, int64_t len,
                     int large, struct ArrowSchema *out_s, struct ArrowArray *out_a, int depth) {
  if (a->n_buffers != 2 || s->n_children != 1) return nfail(c, "malformed list node");
  const void *ob = a->buffers[1];
  int64_t p0 = a->offset + start;
  if (!ob) {
    if (len) return nfail(c, "offsets buffer is NULL");
  }
#define OFF(k) (large ? ((const int64_t *)ob)[k] : (int64_t)((const int32_t *)ob)[k])
  int64_t first = ob ? OFF(p0) : 0, prev = first;
  if (first < 0) return nfail(c, "negative offset %lld at row 0", (long long)first);
  for (int64_t i = 1; i <= len; i++) {
    int64_t o = OFF(p0 + i);
    if (o < prev)
      return nfail(c, "offsets decrease at row %lld (%lld -> %lld)", (long long)(i - 1), (long long)prev,
                   (long long)o);
    prev = o;
  }
  if (prev - first > INT32_MAX) return nfail(c, "more than 2^31 list items in one batch; split the batch");
  int map = is_fmt(s->format, "+m");
  PM_TRY(pm_schema_init(out_s, map ? "+m" : "+l", s->name, s->flags, 1, c->err));
  int rc = pm_array_init(out_a, len, 2, 1, c->err);
  int32_t *off = rc ? NULL : pm_aligned_alloc((size_t)(len + 1) * 4);
  if (!rc) {
    pm_array_set_buffer(out_a, 1, off);
    if (!off) rc = PM_NOMEM(c->err);
  }
  if (!rc) {
    for (int64_t i = 0; i <= len; i++) off[i] = ob ? (int32_t)(OFF(p0 + i) - first) : 0;
    rc = copy_validity(c, a, p0, len, out_a);
  }
#undef OFF
  if (!rc) rc = child_norm(c, s, a, 0, first, prev - first, out_s, out_a, depth);
  if (rc) {
    if (out_a->release) out_a->release(out_a);
    out_s->release(out_s);
  }
  return rc;
}

/* list view: offsets + sizes in any order; the child is gathered in row order. */
static int conv_list_view(nctx *c, const struct ArrowSchema *s, const struct ArrowArray *a, int64_t start,
                          int64_t len, int large, struct ArrowSchema *out_s, struct ArrowArray *out_a, int depth) {
  if (a->n_buffers != 3 || s->n_children != 1) return nfail(c, "malformed list-view node");
  const void *ob = a->buffers[1], *sb = a->buffers[2];
  const uint8_t *valid = validity_of(a);
  int64_t p0 = a->offset + start;
  const struct ArrowArray *ch = a->children[0];
  if (!ch || !ch->release) return nfail(c, "child array is NULL or released");
  int64_t total = 0;
#define LV(buf, k) (large ? ((const int64_t *)(buf))[k] : (int64_t)((const int32_t *)(buf))[k])
  for (int64_t i = 0; i < len; i++) {
    int64_t p = p0 + i;
    if (valid && a->null_count != 0 && !pm_bit_get(valid, p)) continue;
    if (!ob || !sb) return nfail(c, "offsets or sizes buffer is NULL");
    int64_t o = LV(ob, p), n = LV(sb, p);
    if (o < 0 || n < 0 || o > ch->length || n > ch->length - o)
      return nfail(c, "list view at row %lld: items [%lld, +%lld) outside the child's %lld values", (long long)i,
                   (long long)o, (long long)n, (long long)ch->length);
    total += n;
    if (total > INT32_MAX) return nfail(c, "more than 2^31 list items in one batch; split the batch");
  }
  int64_t *idx = malloc((size_t)(total ? total : 1) * sizeof *idx);
  if (!idx) return PM_NOMEM(c->err);
  int rc = pm_schema_init(out_s, "+l", s->name, s->flags, 1, c->err);
  if (rc) {
    free(idx);
    return rc;
  }
  rc = pm_array_init(out_a, len, 2, 1, c->err);
  int32_t *off = rc ? NULL : pm_aligned_alloc((size_t)(len + 1) * 4);
  if (!rc) {
    pm_array_set_buffer(out_a, 1, off);
    if (!off) rc = PM_NOMEM(c->err);
  }
  if (!rc) {
    int64_t at = 0;
    for (int64_t i = 0; i < len; i++) {
      int64_t p = p0 + i;
      off[i] = (int32_t)at;
      if (valid && a->null_count != 0 && !pm_bit_get(valid, p)) continue;
      int64_t o = LV(ob, p), n = LV(sb, p);
      for (int64_t j = 0; j < n; j++) idx[at++] = o + j;
    }
    off[len] = (int32_t)at;
    rc = copy_validity(c, a, p0, len, out_a);
  }
#undef LV
  /* the child as plain (whole), then gathered */
  struct ArrowSchema cs;
  struct ArrowArray ca;
  cs.release = NULL;
  ca.release = NULL;
  size_t base = path_push(c, s->children[0] ? s->children[0]->name : NULL, 0);
  if (!rc) rc = norm(c, s->children[0], ch, 0, ch->length, &cs, &ca, depth + 1);
  if (!rc) c->path[base] = 0;
  pm_type ct;
  memset(&ct, 0, sizeof ct);
  pm_builder *b = NULL;
  if (!rc) rc = pm_type_from_schema(&cs, &ct, c->err);
  if (!rc) rc = pm_builder_new(&ct, &b, c->err);
  if (!rc) rc = pm_builder_append_take(b, NULL, &ca, idx, total, c->err);
  if (!rc) rc = pm_builder_finish(b, out_a->children[0], c->err);
  if (!rc) pm_schema_move(&cs, out_s->children[0]);
  pm_builder_free(b);
  pm_type_free(&ct);
  if (ca.release) ca.release(&ca);
  if (cs.release) cs.release(&cs);
  free(idx);
  if (rc) {
    if (out_a->release) out_a->release(out_a);
    out_s->release(out_s);
  }
  return rc;
}

/* ------------------------------------------------------------ dispatch */

static int norm(nctx *c, const struct ArrowSchema *s, const struct ArrowArray *a, int64_t start, int64_t len,
                struct ArrowSchema *out_s, struct ArrowArray *out_a, int depth) {
  out_s->release = NULL;
  out_a->release = NULL;
  if (depth > PM_ARROW_MAX_DEPTH) return nfail(c, "nesting deeper than %d", PM_ARROW_MAX_DEPTH);
  PM_TRY(check_node(c, s, a, start, len));
  if (!needs(s, 0)) {
    /* borrowed: same buffers, sliced by offset */
    PM_TRY(pm_schema_copy(s, out_s, c->err));
    *out_a = *a;
    out_a->offset = a->offset + start;
    out_a->length = len;
    if (is_fmt(s->format, "n"))
      out_a->null_count = len;
    else if (a->null_count != 0)
      out_a->null_count = nulls_in(a, a->offset + start, len);
    out_a->private_data = NULL;
    out_a->release = borrow_release;
    return 0;
  }
  const char *f = s->format;
  if (s->dictionary) {
    if (!a->dictionary || !a->dictionary->release) return nfail(c, "dictionary-encoded array without dictionary");
    if (!s->dictionary->release || !s->dictionary->format) return nfail(c, "dictionary schema is released");
    if (a->n_buffers != 2) return nfail(c, "dictionary indices have %lld buffers, need 2", (long long)a->n_buffers);
    int64_t k;
    if (read_index(f, &(int64_t){0}, 0, &k)) return nfail(c, "dictionary index type '%s' is not an integer", f);
    dict_map m = {.idx = a, .dict = a->dictionary, .ifmt = f};
    if (m.dict->length < 0 || m.dict->offset < 0) return nfail(c, "dictionary has a negative length or offset");
    if (len > 0 && !a->buffers[1] && m.dict->length >= 0) {
      /* all-null indices may have no data buffer */
      const uint8_t *iv = validity_of(a);
      if (!iv || pm_bits_count(iv, a->offset + start, len) > 0) return nfail(c, "dictionary indices buffer is NULL");
    }
    int kind = varbin_kind(s->dictionary->format);
    if (kind) {
      if (m.dict->n_buffers < 1 || (m.dict->n_buffers > 0 && !m.dict->buffers))
        return nfail(c, "dictionary has no buffers");
      return conv_varbin(c, s, a, start, len, kind, &m, out_s, out_a);
    }
    return conv_dict_generic(c, s, a, start, len, &m, out_s, out_a);
  }
  int kind = varbin_kind(f);
  if (kind) return conv_varbin(c, s, a, start, len, kind, NULL, out_s, out_a);
  if (is_fmt(f, "+l") || is_fmt(f, "+L") || is_fmt(f, "+m"))
    return conv_list(c, s, a, start, len, is_fmt(f, "+L"), out_s, out_a, depth);
  if (is_fmt(f, "+vl") || is_fmt(f, "+vL"))
    return conv_list_view(c, s, a, start, len, is_fmt(f, "+vL"), out_s, out_a, depth);
  if (is_fmt(f, "+s")) return conv_struct(c, s, a, start, len, a->offset + start, len, "+s", out_s, out_a, depth);
  if (f[0] == '+' && f[1] == 'w' && f[2] == ':') {
    long w = strtol(f + 3, NULL, 10);
    if (w < 0 || (w > 0 && a->offset + start + len > INT64_MAX / 16 / w)) return nfail(c, "bad fixed-size list");
    return conv_struct(c, s, a, start, len, (a->offset + start) * w, len * w, f, out_s, out_a, depth);
  }
  return pm_errorf(c->err, PAIMON_ERR_UNSUPPORTED, "column '%s': Arrow type '%s' with converted children is not supported",
                   c->path[0] ? c->path : "<root>", f);
}

int pm_arrow_to_plain(const struct ArrowSchema *s, const struct ArrowArray *a, struct ArrowSchema *out_s,
                      struct ArrowArray *out_a, pm_error *err) {
  nctx c;
  c.err = err;
  c.path[0] = 0;
  out_s->release = NULL;
  out_a->release = NULL;
  if (!a || !a->release) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "array is NULL or released");
  if (!s || !s->release || !s->format) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "schema is NULL or released");
  if (is_fmt(s->format, "+s")) {
    /* top level: children named from the root (no "<root>." prefix) */
    if (a->length < 0 || a->offset < 0) return nfail(&c, "negative length or offset");
    PM_TRY(check_node(&c, s, a, 0, a->length));
    return conv_struct(&c, s, a, 0, a->length, a->offset, a->length, "+s", out_s, out_a, 0);
  }
  snprintf(c.path, sizeof c.path, "%s", s->name ? s->name : "");
  return norm(&c, s, a, 0, a->length, out_s, out_a, 0);
}
