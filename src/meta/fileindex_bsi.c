/* Bit-slice index (Java's BitSliceIndexBitmapFileIndex): values mapped to
 * int64 (integers, dates, times, timestamps as millis (precision <= 3) or
 * micros, decimals as unscaled longs), split into a positive and a negative
 * (absolute values) BitSliceIndexRoaringBitmap, each: version byte, min and
 * max (int64 BE), the existence bitmap, int32 slice count, one bitmap per
 * bit of (value - min). Comparisons follow Java's (min/max shortcuts, then
 * O'Neil's algorithm). As in Java, the writer's min is always 0. */
#include <roaring/roaring.h>
#include <stdlib.h>
#include <string.h>

#include "meta/fileindex.h"

static int bsi_type_ok(const pm_data_type *t) {
  switch (t->root) {
    case PM_DT_TINYINT: case PM_DT_SMALLINT: case PM_DT_INT: case PM_DT_BIGINT: case PM_DT_DATE: case PM_DT_TIME:
    case PM_DT_TIMESTAMP: case PM_DT_TIMESTAMP_LTZ: case PM_DT_DECIMAL:
      return 1;
    default:
      return 0;
  }
}

/* Maps a non-null value to Java's long; 0 when it cannot be. */
static int value_long(const pm_data_type *t, const pm_value *v, int64_t *out) {
  switch (t->root) {
    case PM_DT_TIMESTAMP: case PM_DT_TIMESTAMP_LTZ:
      if (v->kind != PM_V_TIMESTAMP) return 0;
      *out = t->precision <= 3 ? v->u.ts.millis : (int64_t)((uint64_t)v->u.ts.millis * 1000u) + v->u.ts.nanos / 1000;
      return 1;
    case PM_DT_DECIMAL:
      if (v->kind != PM_V_DECIMAL) return 0;
      /* toUnscaledLong: only compact decimals (the 128-bit value fits a long) */
      if (!((v->u.dec.hi == 0 && v->u.dec.lo <= (uint64_t)INT64_MAX) ||
            (v->u.dec.hi == -1 && v->u.dec.lo > (uint64_t)INT64_MAX)))
        return 0;
      *out = (int64_t)v->u.dec.lo;
      return 1;
    default:
      if (v->kind != PM_V_INT) return 0;
      *out = v->u.i64;
      return 1;
  }
}

typedef struct bsi {
  int present;
  int64_t min, max;
  roaring_bitmap_t *ebm;
  roaring_bitmap_t **slices;
  int32_t n_slices;
} bsi;

static void bsi_free(bsi *b) {
  if (b->ebm) roaring_bitmap_free(b->ebm);
  for (int32_t i = 0; i < b->n_slices; i++)
    if (b->slices[i]) roaring_bitmap_free(b->slices[i]);
  free(b->slices);
  memset(b, 0, sizeof *b);
}

static uint64_t be64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v = (v << 8) | p[i];
  return v;
}

static int bad(const char *what, pm_error *err, const char *msg) {
  return pm_errorf(err, PAIMON_ERR_CORRUPT, "file index %s: bsi index: %s", what ? what : "(embedded)", msg);
}

static int read_rb(const uint8_t *b, size_t n, size_t *pos, roaring_bitmap_t **out, const char *what, pm_error *err) {
  size_t sz = roaring_bitmap_portable_deserialize_size((const char *)b + *pos, n - *pos);
  if (!sz) return bad(what, err, "bad roaring bitmap");
  *out = roaring_bitmap_portable_deserialize_safe((const char *)b + *pos, n - *pos);
  if (!*out) return bad(what, err, "bad roaring bitmap");
  *pos += sz;
  return 0;
}

static int read_bsi(const uint8_t *b, size_t n, size_t *pos, bsi *out, const char *what, pm_error *err) {
  memset(out, 0, sizeof *out);
  if (*pos + 17 > n) return bad(what, err, "truncated");
  if (b[*pos] > 1) return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "file index %s: bsi version %d",
                                     what ? what : "(embedded)", b[*pos]);
  out->min = (int64_t)be64(b + *pos + 1);
  out->max = (int64_t)be64(b + *pos + 9);
  *pos += 17;
  out->present = 1;
  PM_TRY(read_rb(b, n, pos, &out->ebm, what, err));
  if (*pos + 4 > n) {
    bsi_free(out);
    return bad(what, err, "truncated");
  }
  int32_t ns = (int32_t)(((uint32_t)b[*pos] << 24) | ((uint32_t)b[*pos + 1] << 16) | ((uint32_t)b[*pos + 2] << 8) |
                         b[*pos + 3]);
  *pos += 4;
  if (ns < 0 || ns > 64) {
    bsi_free(out);
    return bad(what, err, "slice count out of range");
  }
  out->slices = calloc((size_t)(ns ? ns : 1), sizeof *out->slices);
  if (!out->slices) {
    bsi_free(out);
    return PM_NOMEM(err);
  }
  out->n_slices = ns;
  for (int32_t i = 0; i < ns; i++) {
    int rc = read_rb(b, n, pos, &out->slices[i], what, err);
    if (rc) {
      bsi_free(out);
      return rc;
    }
  }
  return 0;
}

enum { OP_EQ, OP_NEQ, OP_LT, OP_LTE, OP_GT, OP_GTE };

static roaring_bitmap_t *empty_rb(void) { return roaring_bitmap_create(); }
static roaring_bitmap_t *ebm_of(const bsi *b) { return b->present ? roaring_bitmap_copy(b->ebm) : empty_rb(); }

/* BitSliceIndexRoaringBitmap.compare (foundSet = null). NULL = out of memory. */
static roaring_bitmap_t *bsi_compare(const bsi *b, int op, int64_t pred) {
  if (!b->present) return empty_rb();
  int64_t mn = b->min, mx = b->max;
  switch (op) {
    case OP_EQ:
      if (mn == mx && mn == pred) return ebm_of(b);
      if (pred < mn || pred > mx) return empty_rb();
      break;
    case OP_NEQ:
      if (mn == mx && mn == pred) return empty_rb();
      if (pred < mn || pred > mx) return ebm_of(b);
      break;
    case OP_GTE:
      if (pred <= mn) return ebm_of(b);
      if (pred > mx) return empty_rb();
      break;
    case OP_GT:
      if (pred < mn) return ebm_of(b);
      if (pred >= mx) return empty_rb();
      break;
    case OP_LTE:
      if (pred >= mx) return ebm_of(b);
      if (pred < mn) return empty_rb();
      break;
    default: /* OP_LT */
      if (pred > mx) return ebm_of(b);
      if (pred <= mn) return empty_rb();
      break;
  }
  int64_t p = (int64_t)((uint64_t)pred - (uint64_t)mn);
  roaring_bitmap_t *gt = empty_rb(), *lt = empty_rb(), *eq = roaring_bitmap_copy(b->ebm);
  if (!gt || !lt || !eq) goto oom;
  for (int32_t i = b->n_slices - 1; i >= 0; i--) {
    int bit = i < 64 ? (int)((p >> i) & 1) : (p < 0);
    roaring_bitmap_t *t;
    if (bit) {
      t = roaring_bitmap_andnot(eq, b->slices[i]);
      if (!t) goto oom;
      roaring_bitmap_or_inplace(lt, t);
      roaring_bitmap_free(t);
      roaring_bitmap_and_inplace(eq, b->slices[i]);
    } else {
      t = roaring_bitmap_and(eq, b->slices[i]);
      if (!t) goto oom;
      roaring_bitmap_or_inplace(gt, t);
      roaring_bitmap_free(t);
      roaring_bitmap_andnot_inplace(eq, b->slices[i]);
    }
  }
  roaring_bitmap_and_inplace(eq, b->ebm);
  roaring_bitmap_t *r = NULL;
  switch (op) {
    case OP_EQ: r = eq; eq = NULL; break;
    case OP_NEQ: r = roaring_bitmap_andnot(b->ebm, eq); break;
    case OP_GT: r = roaring_bitmap_and(gt, b->ebm); break;
    case OP_LT: r = roaring_bitmap_and(lt, b->ebm); break;
    case OP_LTE: roaring_bitmap_or_inplace(lt, eq); r = roaring_bitmap_and(lt, b->ebm); break;
    default: roaring_bitmap_or_inplace(gt, eq); r = roaring_bitmap_and(gt, b->ebm); break;
  }
  roaring_bitmap_free(gt);
  roaring_bitmap_free(lt);
  if (eq) roaring_bitmap_free(eq);
  return r;
oom:
  if (gt) roaring_bitmap_free(gt);
  if (lt) roaring_bitmap_free(lt);
  if (eq) roaring_bitmap_free(eq);
  return NULL;
}

static roaring_bitmap_t *or_free(roaring_bitmap_t *a, roaring_bitmap_t *b) {
  if (!a || !b) {
    if (a) roaring_bitmap_free(a);
    if (b) roaring_bitmap_free(b);
    return NULL;
  }
  roaring_bitmap_or_inplace(a, b);
  roaring_bitmap_free(b);
  return a;
}

static roaring_bitmap_t *eq_value(const bsi *pos, const bsi *neg, int64_t v) {
  if (v == INT64_MIN) return empty_rb();
  return v < 0 ? bsi_compare(neg, OP_EQ, -v) : bsi_compare(pos, OP_EQ, v);
}

static roaring_bitmap_t *not_null(const bsi *pos, const bsi *neg) { return or_free(ebm_of(pos), ebm_of(neg)); }

int pm_fidx_bsi_test(const uint8_t *b, size_t n, const pm_data_type *t, const pm_predicate *leaf,
                     pm_fidx_result *out, const char *what, pm_error *err) {
  out->kind = PM_FIDX_REMAIN;
  out->rows = NULL;
  if (!bsi_type_ok(t)) return 0;
  int op = leaf->op;
  if (op != PM_PRED_EQUAL && op != PM_PRED_NOT_EQUAL && op != PM_PRED_IN && op != PM_PRED_NOT_IN &&
      op != PM_PRED_LESS_THAN && op != PM_PRED_LESS_OR_EQUAL && op != PM_PRED_GREATER_THAN &&
      op != PM_PRED_GREATER_OR_EQUAL && op != PM_PRED_IS_NULL && op != PM_PRED_IS_NOT_NULL)
    return 0;
  int64_t *vals = calloc(leaf->n_literals ? leaf->n_literals : 1, sizeof *vals);
  if (!vals) return PM_NOMEM(err);
  for (size_t i = 0; i < leaf->n_literals; i++)
    if (leaf->literals[i].kind == PM_V_NULL || !value_long(t, &leaf->literals[i], &vals[i])) {
      free(vals);
      return 0; /* Java would fail on a null literal; never prune on it */
    }
  if (n < 6) {
    free(vals);
    return bad(what, err, "truncated");
  }
  if (b[0] > 1) {
    free(vals);
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "file index %s: bsi index version %d", what ? what : "(embedded)",
                     b[0]);
  }
  int32_t rows = (int32_t)(((uint32_t)b[1] << 24) | ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 8) | b[4]);
  size_t pos = 5;
  bsi pb = {0}, nb = {0};
  int rc = 0;
  if (b[pos++]) rc = read_bsi(b, n, &pos, &pb, what, err);
  if (!rc && pos >= n) rc = bad(what, err, "truncated");
  if (!rc && b[pos++]) rc = read_bsi(b, n, &pos, &nb, what, err);
  roaring_bitmap_t *r = NULL;
  if (!rc) {
    int64_t v = leaf->n_literals ? vals[0] : 0;
    switch (op) {
      case PM_PRED_IS_NULL:
        r = not_null(&pb, &nb);
        if (r) roaring_bitmap_flip_inplace(r, 0, (uint64_t)(rows < 0 ? 0 : rows));
        break;
      case PM_PRED_IS_NOT_NULL: r = not_null(&pb, &nb); break;
      case PM_PRED_EQUAL: case PM_PRED_IN:
      case PM_PRED_NOT_EQUAL: case PM_PRED_NOT_IN: {
        r = empty_rb();
        for (size_t i = 0; r && i < leaf->n_literals; i++) r = or_free(r, eq_value(&pb, &nb, vals[i]));
        if (r && (op == PM_PRED_NOT_EQUAL || op == PM_PRED_NOT_IN)) {
          roaring_bitmap_t *e = not_null(&pb, &nb);
          roaring_bitmap_t *d = e ? roaring_bitmap_andnot(e, r) : NULL;
          if (e) roaring_bitmap_free(e);
          roaring_bitmap_free(r);
          r = d;
        }
        break;
      }
      case PM_PRED_LESS_THAN:
        if (v == INT64_MIN) r = empty_rb();
        else if (v < 0) r = bsi_compare(&nb, OP_GT, -v);
        else r = or_free(bsi_compare(&pb, OP_LT, v), ebm_of(&nb));
        break;
      case PM_PRED_LESS_OR_EQUAL:
        if (v == INT64_MIN) r = empty_rb();
        else if (v < 0) r = bsi_compare(&nb, OP_GTE, -v);
        else r = or_free(bsi_compare(&pb, OP_LTE, v), ebm_of(&nb));
        break;
      case PM_PRED_GREATER_THAN:
        if (v == INT64_MIN) r = not_null(&pb, &nb);
        else if (v < 0) r = or_free(ebm_of(&pb), bsi_compare(&nb, OP_LT, -v));
        else r = bsi_compare(&pb, OP_GT, v);
        break;
      default: /* >= */
        if (v == INT64_MIN) r = not_null(&pb, &nb);
        else if (v < 0) r = or_free(ebm_of(&pb), bsi_compare(&nb, OP_LTE, -v));
        else r = bsi_compare(&pb, OP_GTE, v);
        break;
    }
    if (!r) rc = PM_NOMEM(err);
  }
  bsi_free(&pb);
  bsi_free(&nb);
  free(vals);
  if (rc) return rc;
  out->kind = PM_FIDX_ROWS;
  out->rows = r;
  return 0;
}

/* ---- writer ---- */

typedef struct bsi_writer {
  pm_fidx_col_writer base;
  const pm_data_type *type;
  int64_t *vals;
  uint8_t *isnull;
  size_t n, cap;
  int64_t pos_max, neg_max; /* Java's collector: mins stay 0 */
} bsi_writer;

static int bw_add(pm_fidx_col_writer *cw, const pm_value *v, pm_error *err) {
  bsi_writer *w = (bsi_writer *)cw;
  if (w->n == w->cap) {
    size_t nc = w->cap ? w->cap * 2 : 1024;
    int64_t *nv = realloc(w->vals, nc * sizeof *nv);
    if (!nv) return PM_NOMEM(err);
    w->vals = nv;
    uint8_t *nn = realloc(w->isnull, nc);
    if (!nn) return PM_NOMEM(err);
    w->isnull = nn;
    w->cap = nc;
  }
  if (w->n >= INT32_MAX)
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "bsi file index: more than 2^31 - 1 rows in one data file");
  int64_t x = 0;
  int null = v->kind == PM_V_NULL;
  if (!null && !value_long(w->type, v, &x))
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "bsi file index: a DECIMAL value does not fit 64 bits");
  if (!null && x == INT64_MIN)
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "bsi file index: the value -2^63 cannot be indexed");
  w->vals[w->n] = x;
  w->isnull[w->n] = (uint8_t)null;
  w->n++;
  if (!null) {
    if (x < 0 && -x > w->neg_max) w->neg_max = -x;
    if (x >= 0 && x > w->pos_max) w->pos_max = x;
  }
  return 0;
}

static int put_rb(pm_buf *o, roaring_bitmap_t *r) {
  pm_error e;
  return pm_fidx_roaring_serialize(r, o, &e);
}

static int put_be(pm_buf *o, uint64_t v, int bytes) {
  uint8_t b[8];
  for (int i = 0; i < bytes; i++) b[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
  return pm_buf_append(o, b, (size_t)bytes);
}

/* One side (negative: absolute values of the negative values). */
static int write_side(bsi_writer *w, int negative, pm_buf *out, pm_error *err) {
  int64_t max = negative ? w->neg_max : w->pos_max;
  int ns = max ? 64 - __builtin_clzll((unsigned long long)max) : 0;
  roaring_bitmap_t *ebm = roaring_bitmap_create();
  roaring_bitmap_t *sl[64] = {0};
  int rc = ebm ? 0 : PM_NOMEM(err);
  for (int i = 0; !rc && i < ns; i++)
    if (!(sl[i] = roaring_bitmap_create())) rc = PM_NOMEM(err);
  for (size_t r = 0; !rc && r < w->n; r++) {
    if (w->isnull[r] || (w->vals[r] < 0) != negative) continue;
    uint64_t v = (uint64_t)(negative ? -w->vals[r] : w->vals[r]);
    while (v) {
      roaring_bitmap_add(sl[__builtin_ctzll(v)], (uint32_t)r);
      v &= v - 1;
    }
    roaring_bitmap_add(ebm, (uint32_t)r);
  }
  uint8_t has = !rc && !roaring_bitmap_is_empty(ebm);
  if (!rc && pm_buf_append(out, &has, 1)) rc = PM_NOMEM(err);
  if (!rc && has) {
    uint8_t ver = 1;
    if (pm_buf_append(out, &ver, 1) || put_be(out, 0, 8) || put_be(out, (uint64_t)max, 8) || put_rb(out, ebm) ||
        put_be(out, (uint64_t)ns, 4))
      rc = PM_NOMEM(err);
    for (int i = 0; !rc && i < ns; i++)
      if (put_rb(out, sl[i])) rc = PM_NOMEM(err);
  }
  if (ebm) roaring_bitmap_free(ebm);
  for (int i = 0; i < ns; i++)
    if (sl[i]) roaring_bitmap_free(sl[i]);
  return rc;
}

static int bw_finish(pm_fidx_col_writer *cw, pm_buf *out, pm_error *err) {
  bsi_writer *w = (bsi_writer *)cw;
  uint8_t ver = 1;
  if (pm_buf_append(out, &ver, 1) || put_be(out, (uint64_t)w->n, 4)) return PM_NOMEM(err);
  PM_TRY(write_side(w, 0, out, err));
  return write_side(w, 1, out, err);
}

static void bw_free(pm_fidx_col_writer *cw) {
  bsi_writer *w = (bsi_writer *)cw;
  if (!w) return;
  free(w->vals);
  free(w->isnull);
  free(w);
}

static const pm_fidx_col_writer_ops bsi_ops = {bw_add, bw_finish, bw_free};

int pm_fidx_bsi_writer_new(const pm_data_type *t, const pm_fidx_opts *o, const char *column,
                           pm_fidx_col_writer **out, pm_error *err) {
  (void)o;
  *out = NULL;
  if (!bsi_type_ok(t) || (t->root == PM_DT_DECIMAL && t->precision > 18))
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "file-index.%s.columns: column '%s' has a type the bsi index does "
                     "not support", PM_FIDX_BSI, column);
  bsi_writer *w = calloc(1, sizeof *w);
  if (!w) return PM_NOMEM(err);
  w->base.ops = &bsi_ops;
  w->type = t;
  *out = &w->base;
  return 0;
}
