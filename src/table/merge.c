#include "table/merge.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ctype.h>
#include <errno.h>
#include <strings.h>
#include <roaring/roaring.h>

#include "arrow/builder.h"
#include "meta/core_options.h"
#include "table/agg_sketch.h"
#include "util/buf.h"

const char *pm_rowkind_name(int k) {
  switch (k) {
    case PM_ROWKIND_INSERT: return "+I";
    case PM_ROWKIND_UPDATE_BEFORE: return "-U";
    case PM_ROWKIND_UPDATE_AFTER: return "+U";
    case PM_ROWKIND_DELETE: return "-D";
    default: return NULL;
  }
}

/* The identifiers of Java's FieldAggregatorFactory implementations (META-INF
 * services of paimon-core); there is no "count" aggregator. */
int pm_agg_func_parse(const char *s, pm_agg_func *out, pm_error *err) {
  static const struct {
    const char *name;
    pm_agg_func f;
  } known[] = {{"sum", PM_AGG_SUM},
               {"product", PM_AGG_PRODUCT},
               {"max", PM_AGG_MAX},
               {"min", PM_AGG_MIN},
               {"last_value", PM_AGG_LAST_VALUE},
               {"last_non_null_value", PM_AGG_LAST_NON_NULL_VALUE},
               {"first_value", PM_AGG_FIRST_VALUE},
               {"first_non_null_value", PM_AGG_FIRST_NON_NULL_VALUE},
               {"first_not_null_value", PM_AGG_FIRST_NON_NULL_VALUE},
               {"listagg", PM_AGG_LISTAGG},
               {"bool_and", PM_AGG_BOOL_AND},
               {"bool_or", PM_AGG_BOOL_OR},
               {"rbm32", PM_AGG_RBM32},
               {"rbm64", PM_AGG_RBM64},
               {"hll_sketch", PM_AGG_HLL_SKETCH},
               {"theta_sketch", PM_AGG_THETA_SKETCH},
               {"collect", PM_AGG_COLLECT},
               {"merge_map", PM_AGG_MERGE_MAP},
               {"merge_map_with_keytime", PM_AGG_MERGE_MAP_WITH_KEYTIME},
               {"nested_update", PM_AGG_NESTED_UPDATE},
               {"nested_partial_update", PM_AGG_NESTED_PARTIAL_UPDATE},
               {"primary-key", PM_AGG_PRIMARY_KEY}};
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (!strcmp(s, known[i].name)) {
      *out = known[i].f;
      return 0;
    }
  return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                   "Use unsupported aggregation: %s or spell aggregate function incorrectly", s);
}

/* Splits a comma-separated list of field names (each trimmed, as CoreOptions
 * does) and resolves them against the fields of ROW type rt. */
static int resolve_nested_names(const char *list, const pm_type *rt, const char *what, const char *field, int *idx,
                                int *n, pm_error *err) {
  *n = 0;
  const char *p = list;
  for (;;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    while (len && isspace((unsigned char)*p)) p++, len--;
    while (len && isspace((unsigned char)p[len - 1])) len--;
    int found = -1;
    for (int64_t k = 0; k < rt->n_children && found < 0; k++)
      if (rt->children[k].name && strlen(rt->children[k].name) == len && !memcmp(rt->children[k].name, p, len))
        found = (int)k;
    if (found < 0)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "fields.%s.%s: \"%.*s\" is not a field of the nested ROW", field,
                       what, (int)len, p);
    if (*n >= PM_MERGE_MAX_NESTED_FIELDS)
      return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "fields.%s.%s: more than %d fields", field, what,
                       PM_MERGE_MAX_NESTED_FIELDS);
    idx[(*n)++] = found;
    if (!e) break;
    p = e + 1;
  }
  return 0;
}

int pm_merge_column_options(pm_merge_column *mc, const pm_type *type, const char *field,
                            const char *(*get)(void *ctx, const char *key), void *ctx, pm_error *err) {
  char key[512];
  mc->ts_field = -1;
  mc->nested_key_null = PM_NESTED_KEY_NULL_MERGE;
  if (mc->agg == PM_AGG_NESTED_UPDATE || mc->agg == PM_AGG_NESTED_PARTIAL_UPDATE) {
    /* FieldNestedUpdateAggFactory / FieldNestedPartialUpdateAggFactory */
    if ((type->id != PM_T_LIST && type->id != PM_T_LARGE_LIST) || type->children[0].id != PM_T_STRUCT)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                       "Data type for nested table column must be 'Array<Row>' (column %s)", field);
    const pm_type *rt = &type->children[0];
    pm_field_option_key(field, PM_FIELD_NESTED_KEY, key, sizeof key);
    const char *v = get(ctx, key);
    if (v) PM_TRY(resolve_nested_names(v, rt, "nested-key", field, mc->nested_keys, &mc->n_nested_keys, err));
    if (mc->agg == PM_AGG_NESTED_PARTIAL_UPDATE && mc->n_nested_keys == 0)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "nested_partial_update on %s needs fields.%s.nested-key",
                       field, field);
    pm_field_option_key(field, PM_FIELD_NESTED_KEY_NULL_STRATEGY, key, sizeof key);
    if ((v = get(ctx, key))) {
      if (mc->agg == PM_AGG_NESTED_UPDATE && !mc->n_nested_keys)
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                         "Option 'fields.%s.nested-key-null-strategy' requires 'fields.%s.nested-key' to be configured",
                         field, field);
      if (!strcasecmp(v, "merge")) mc->nested_key_null = PM_NESTED_KEY_NULL_MERGE;
      else if (!strcasecmp(v, "ignore")) mc->nested_key_null = PM_NESTED_KEY_NULL_IGNORE;
      else if (!strcasecmp(v, "error")) mc->nested_key_null = PM_NESTED_KEY_NULL_ERROR;
      else return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: unknown strategy \"%s\"", key, v);
    }
    if (mc->agg == PM_AGG_NESTED_UPDATE) {
      pm_field_option_key(field, PM_FIELD_NESTED_SEQUENCE_FIELD, key, sizeof key);
      if ((v = get(ctx, key))) {
        if (!mc->n_nested_keys)
          return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                           "Option 'fields.%s.nested-sequence-field' requires 'fields.%s.nested-key' to be configured",
                           field, field);
        PM_TRY(resolve_nested_names(v, rt, "nested-sequence-field", field, mc->nested_seq, &mc->n_nested_seq, err));
      }
      pm_field_option_key(field, PM_FIELD_COUNT_LIMIT, key, sizeof key);
      if ((v = get(ctx, key))) {
        char *end;
        errno = 0;
        long long x = strtoll(v, &end, 10);
        while (*end && isspace((unsigned char)*end)) end++;
        if (errno || *end || end == v || x < INT32_MIN || x > INT32_MAX)
          return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: \"%s\" is not an INT", key, v);
        mc->count_limit = (int32_t)x;
        mc->count_limit_set = 1;
      }
    }
  } else if (mc->agg == PM_AGG_MERGE_MAP_WITH_KEYTIME) {
    /* FieldMergeMapWithKeyTimeAggFactory */
    if (type->id != PM_T_MAP)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "Data type for field '%s' must be 'MAP'", field);
    const pm_type *vt = &type->children[0].children[1];
    if (vt->id != PM_T_STRUCT)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "Value type of MAP for field '%s' must be ROW", field);
    if (vt->n_children < 2)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "ROW type for field '%s' must have at least 2 fields", field);
    pm_field_option_key(field, PM_FIELD_TS_FIELD, key, sizeof key);
    const char *v = get(ctx, key);
    if (v) {
      for (int64_t k = 0; k < vt->n_children && mc->ts_field < 0; k++)
        if (vt->children[k].name && !strcmp(vt->children[k].name, v)) mc->ts_field = (int)k;
      if (mc->ts_field < 0)
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "Timestamp field '%s' not found in ROW type for field '%s'",
                         v, field);
    }
  }
  return 0;
}

/* ======================================================================
 * Value comparison on Arrow buffers
 * ====================================================================== */

static int cmp_i64(int64_t a, int64_t b) { return a < b ? -1 : a > b; }

/* Java Double.compare: -0.0 < 0.0, NaN greatest and equal to itself. */
static int cmp_double(double a, double b) {
  if (a < b) return -1;
  if (a > b) return 1;
  int na = isnan(a), nb = isnan(b);
  if (na || nb) return na - nb;
  int sa = signbit(a) != 0, sb = signbit(b) != 0;
  return sb - sa;
}

static int cmp_bytes(const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
  size_t n = an < bn ? an : bn;
  int c = n ? memcmp(a, b, n) : 0;
  if (c) return c < 0 ? -1 : 1;
  return an < bn ? -1 : an > bn;
}

static void varbin_at(const pm_type *t, const struct ArrowArray *a, int64_t j, const uint8_t **p, size_t *n) {
  if (pm_type_is_large(t->id)) {
    const int64_t *o = a->buffers[1];
    *p = (const uint8_t *)a->buffers[2] + o[j];
    *n = (size_t)(o[j + 1] - o[j]);
  } else {
    const int32_t *o = a->buffers[1];
    *p = (const uint8_t *)a->buffers[2] + o[j];
    *n = (size_t)(o[j + 1] - o[j]);
  }
}

int pm_compare_values(const pm_type *t, const struct ArrowArray *a, int64_t i, const struct ArrowArray *b, int64_t j) {
  int va = pm_array_is_valid(a, i), vb = pm_array_is_valid(b, j);
  if (!va || !vb) return va - vb; /* nulls first */
  int64_t x = a->offset + i, y = b->offset + j;
  switch (t->id) {
    case PM_T_BOOL: return pm_bit_get(a->buffers[1], x) - pm_bit_get(b->buffers[1], y);
    case PM_T_INT8: return cmp_i64(((const int8_t *)a->buffers[1])[x], ((const int8_t *)b->buffers[1])[y]);
    case PM_T_UINT8: return cmp_i64(((const uint8_t *)a->buffers[1])[x], ((const uint8_t *)b->buffers[1])[y]);
    case PM_T_INT16: return cmp_i64(((const int16_t *)a->buffers[1])[x], ((const int16_t *)b->buffers[1])[y]);
    case PM_T_UINT16: return cmp_i64(((const uint16_t *)a->buffers[1])[x], ((const uint16_t *)b->buffers[1])[y]);
    case PM_T_INT32:
    case PM_T_DATE32:
    case PM_T_TIME32: return cmp_i64(((const int32_t *)a->buffers[1])[x], ((const int32_t *)b->buffers[1])[y]);
    case PM_T_UINT32: return cmp_i64(((const uint32_t *)a->buffers[1])[x], ((const uint32_t *)b->buffers[1])[y]);
    case PM_T_INT64:
    case PM_T_DATE64:
    case PM_T_TIME64:
    case PM_T_TIMESTAMP: return cmp_i64(((const int64_t *)a->buffers[1])[x], ((const int64_t *)b->buffers[1])[y]);
    case PM_T_UINT64: {
      uint64_t p = ((const uint64_t *)a->buffers[1])[x], q = ((const uint64_t *)b->buffers[1])[y];
      return p < q ? -1 : p > q;
    }
    case PM_T_FLOAT: return cmp_double(((const float *)a->buffers[1])[x], ((const float *)b->buffers[1])[y]);
    case PM_T_DOUBLE: return cmp_double(((const double *)a->buffers[1])[x], ((const double *)b->buffers[1])[y]);
    case PM_T_DECIMAL128: {
      __int128 p, q;
      memcpy(&p, (const uint8_t *)a->buffers[1] + 16 * x, 16);
      memcpy(&q, (const uint8_t *)b->buffers[1] + 16 * y, 16);
      return p < q ? -1 : p > q;
    }
    case PM_T_UTF8:
    case PM_T_LARGE_UTF8:
    case PM_T_BINARY:
    case PM_T_LARGE_BINARY: {
      const uint8_t *p, *q;
      size_t pn, qn;
      varbin_at(t, a, x, &p, &pn);
      varbin_at(t, b, y, &q, &qn);
      return cmp_bytes(p, pn, q, qn);
    }
    case PM_T_FIXED_BINARY:
      return cmp_bytes((const uint8_t *)a->buffers[1] + (size_t)t->width * (size_t)x, (size_t)t->width,
                       (const uint8_t *)b->buffers[1] + (size_t)t->width * (size_t)y, (size_t)t->width);
    default: return 0;
  }
}

/* ======================================================================
 * Multi-source gather
 * ====================================================================== */

static int is_flat(const pm_type *t);
static int is_flat(const pm_type *t) {
  if (t->dict) return 0;
  switch (t->id) {
    case PM_T_NULL:
    case PM_T_LIST:
    case PM_T_LARGE_LIST:
    case PM_T_FIXED_LIST:
    case PM_T_STRUCT:
    case PM_T_MAP: return 0;
    default: return 1;
  }
}

/* Copies len bytes; short values (the common case) without a libc call. */
static inline void copy_short(uint8_t *d, const uint8_t *p, size_t len) {
  if (len >= 8 && len <= 16) {
    uint64_t x, y;
    memcpy(&x, p, 8);
    memcpy(&y, p + len - 8, 8);
    memcpy(d, &x, 8);
    memcpy(d + len - 8, &y, 8);
  } else if (len) {
    memcpy(d, p, len);
  }
}

/* pm_gather of a 32-bit-offset string/binary column without null selections
 * (out's buffers 0 set already): offsets and the value addresses in one pass
 * over the (random) source offsets, then the bytes, with prefetching. */
static int gather_utf8(struct ArrowArray *const *srcs, const int32_t *src, const int64_t *rows, int64_t n,
                       struct ArrowArray *out, pm_error *err) {
  int32_t *offs = pm_aligned_alloc(((size_t)n + 1) * 4);
  const uint8_t **ptr = malloc(((size_t)n + 1) * sizeof *ptr);
  if (!offs || !ptr) {
    pm_aligned_free(offs);
    free(ptr);
    pm_array_release(out);
    return PM_NOMEM(err);
  }
  pm_array_set_buffer(out, 1, offs);
  uint64_t pos = 0;
  offs[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    if (i + 16 < n) {
      const struct ArrowArray *f = srcs[src[i + 16]];
      __builtin_prefetch((const int32_t *)f->buffers[1] + f->offset + rows[i + 16]);
    }
    const struct ArrowArray *a = srcs[src[i]];
    const int32_t *o = (const int32_t *)a->buffers[1] + a->offset + rows[i];
    ptr[i] = (const uint8_t *)a->buffers[2] + o[0];
    pos += (uint64_t)(o[1] - o[0]);
    if (pos > INT32_MAX) {
      free(ptr);
      pm_array_release(out);
      return pm_errorf(err, PAIMON_ERR_NOMEM, "merge: string column exceeds 2 GiB in one batch");
    }
    offs[i + 1] = (int32_t)pos;
  }
  uint8_t *data = pm_aligned_alloc(pos ? (size_t)pos : 1);
  if (!data) {
    free(ptr);
    pm_array_release(out);
    return PM_NOMEM(err);
  }
  pm_array_set_buffer(out, 2, data);
  for (int64_t i = 0; i < n; i++) {
    if (i + 8 < n) __builtin_prefetch(ptr[i + 8]);
    copy_short(data + offs[i], ptr[i], (size_t)(offs[i + 1] - offs[i]));
  }
  free(ptr);
  return 0;
}

int pm_gather(const pm_type *t, struct ArrowArray *const *srcs, const int32_t *src, const int64_t *rows, int64_t n,
              struct ArrowArray *out, pm_error *err) {
  if (!is_flat(t)) {
    /* Nested (or dictionary) values: row-wise through the generic builder. */
    pm_builder *b;
    PM_TRY(pm_builder_new(t, &b, err));
    int rc = pm_builder_reserve(b, n, err);
    for (int64_t i = 0; i < n && !rc; i++)
      rc = src[i] < 0 ? pm_builder_append_null(b, err) : pm_builder_append_from(b, t, srcs[src[i]], rows[i], err);
    if (!rc) rc = pm_builder_finish(b, out, err);
    pm_builder_free(b);
    return rc;
  }
  int nbuf = pm_type_n_buffers(t->id);
  PM_TRY(pm_array_init(out, n, nbuf, 0, err));
  size_t nb = (size_t)(n + 8) / 8;
  uint8_t *valid = pm_aligned_alloc(nb);
  if (!valid) goto nomem;
  memset(valid, 0, nb);
  pm_array_set_buffer(out, 0, valid);
  int64_t nulls = 0;
  int any_nulls = 0; /* sources with nulls, or null selections */
  for (int64_t i = 0; i < n && !any_nulls; i++) any_nulls = src[i] < 0 || srcs[src[i]]->null_count != 0;
  if (!any_nulls) {
    memset(valid, 0xFF, nb);
  } else {
    for (int64_t i = 0; i < n; i++) {
      if (src[i] >= 0 && pm_array_is_valid(srcs[src[i]], rows[i])) pm_bit_set(valid, i);
      else nulls++;
    }
  }
  out->null_count = nulls;
  if (t->id == PM_T_BOOL) {
    uint8_t *d = pm_aligned_alloc(nb);
    if (!d) goto nomem;
    memset(d, 0, nb);
    for (int64_t i = 0; i < n; i++)
      if (src[i] >= 0) {
        const struct ArrowArray *a = srcs[src[i]];
        if (pm_bit_get(a->buffers[1], a->offset + rows[i])) pm_bit_set(d, i);
      }
    pm_array_set_buffer(out, 1, d);
    return 0;
  }
  if (pm_type_is_varbin(t->id) && !pm_type_is_large(t->id) && !any_nulls) return gather_utf8(srcs, src, rows, n, out, err);
  if (pm_type_is_varbin(t->id)) {
    int large = pm_type_is_large(t->id);
    size_t total = 0;
    for (int64_t i = 0; i < n; i++)
      if (src[i] >= 0) {
        const uint8_t *p;
        size_t len;
        varbin_at(t, srcs[src[i]], srcs[src[i]]->offset + rows[i], &p, &len);
        total += len;
      }
    if (!large && total > INT32_MAX) {
      pm_array_release(out);
      return pm_errorf(err, PAIMON_ERR_NOMEM, "merge: string column exceeds 2 GiB in one batch");
    }
    void *offs = pm_aligned_alloc(((size_t)n + 1) * (large ? 8 : 4));
    uint8_t *data = pm_aligned_alloc(total ? total : 1);
    if (!offs || !data) {
      pm_aligned_free(offs);
      pm_aligned_free(data);
      goto nomem;
    }
    pm_array_set_buffer(out, 1, offs);
    pm_array_set_buffer(out, 2, data);
    size_t pos = 0;
    if (large) ((int64_t *)offs)[0] = 0;
    else ((int32_t *)offs)[0] = 0;
    for (int64_t i = 0; i < n; i++) {
      if (src[i] >= 0) {
        const uint8_t *p;
        size_t len;
        varbin_at(t, srcs[src[i]], srcs[src[i]]->offset + rows[i], &p, &len);
        if (len) memcpy(data + pos, p, len);
        pos += len;
      }
      if (large) ((int64_t *)offs)[i + 1] = (int64_t)pos;
      else ((int32_t *)offs)[i + 1] = (int32_t)pos;
    }
    return 0;
  }
  size_t w = (size_t)pm_type_byte_width(t);
  uint8_t *d = pm_aligned_alloc((size_t)n * w + 1);
  if (!d) goto nomem;
  pm_array_set_buffer(out, 1, d);
  switch (w) {
    case 4:
      for (int64_t i = 0; i < n; i++) {
        const struct ArrowArray *a = srcs[src[i] < 0 ? 0 : src[i]];
        ((uint32_t *)d)[i] = src[i] < 0 ? 0 : ((const uint32_t *)a->buffers[1])[a->offset + rows[i]];
      }
      break;
    case 8:
      for (int64_t i = 0; i < n; i++) {
        const struct ArrowArray *a = srcs[src[i] < 0 ? 0 : src[i]];
        ((uint64_t *)d)[i] = src[i] < 0 ? 0 : ((const uint64_t *)a->buffers[1])[a->offset + rows[i]];
      }
      break;
    default:
      for (int64_t i = 0; i < n; i++) {
        if (src[i] < 0) {
          memset(d + (size_t)i * w, 0, w);
          continue;
        }
        const struct ArrowArray *a = srcs[src[i]];
        memcpy(d + (size_t)i * w, (const uint8_t *)a->buffers[1] + (size_t)(a->offset + rows[i]) * w, w);
      }
      break;
  }
  return 0;
nomem:
  pm_array_release(out);
  return PM_NOMEM(err);
}

/* ======================================================================
 * The k-way merge
 * ====================================================================== */

typedef struct run_state {
  pm_merge_source src;
  struct ArrowArray batch; /* current batch (released when none) */
  const int64_t *fk;       /* fast path: the batch's single integer key as int64 (NULL = not prepared) */
  int64_t *fk_owned;       /* conversion buffer behind fk when the key is narrower than 64 bits */
  int fk_ok;               /* fk usable for this batch */
  const int64_t *seq;      /* the batch's sequence numbers (offset applied), NULL until prepared */
  const int8_t *kind;      /* the batch's row kinds (offset applied) */
  int64_t cursor;          /* next unconsumed row */
  int64_t end;             /* rows [cursor, end) take part in this round */
  int done;
} run_state;

/* An element of a computed ARRAY / MAP value: item `idx` of the list/map
 * child array of run `run`'s current batch. */
typedef struct eref {
  int32_t run;
  int64_t idx;
} eref;

/* A computed nested value: n elements starting at erefs[start]. */
typedef struct lpatch {
  int64_t row;
  int col;
  int is_null;
  size_t start, n;
} lpatch;

/* A computed variable-length value (bytes in the reader's bdata buffer). */
typedef struct bpatch {
  int64_t row;
  int col;
  int is_null;
  size_t off, len;
} bpatch;

/* A computed value that overrides a gathered one (aggregations). */
typedef struct patch {
  int64_t row;
  int col;
  int is_null;
  int64_t i;
  double d;
  __int128 dec;
} patch;

struct pm_merge_reader {
  const pm_merge_config *cfg;
  const pm_type *layout;
  int n_cols;
  run_state *runs;
  int n_runs;
  int per_column; /* partial-update / aggregation: one selection per column */
  /* output selection */
  int64_t n_out, cap_out;
  int32_t *sel_src;
  int64_t *sel_row;
  int32_t **col_src; /* per column (per_column mode) */
  int64_t **col_row;
  int8_t *out_kind;
  patch *patches;
  size_t n_patches, cap_patches;
  bpatch *bpatches; /* computed variable-length values (listagg, rbm32) */
  size_t n_bpatches, cap_bpatches;
  pm_buf bdata;     /* their bytes */
  lpatch *lpatches; /* computed nested values (collect, merge_map) */
  size_t n_lpatches, cap_lpatches;
  eref *erefs;
  size_t n_erefs, cap_erefs;
  struct ArrowArray **srcs; /* scratch: one column of each run's current batch */
  /* group scratch */
  int32_t *g_run;
  int64_t *g_row;
  /* partial-update / aggregation */
  pm_agg_func *func;    /* effective function per column (NONE: not aggregated) */
  int *stride;          /* references per list element per column (see nacc) */
  struct aggst *st;     /* per-column aggregator state */
  struct nacc *tmp;     /* two scratch lists */
  struct kidx *kx;      /* two hash indexes of list functions */
  pm_buf sk;            /* scratch of byte-valued merges */
  uint8_t *processed;   /* per-column scratch of sequence-group updates */
  int *group_of;        /* sequence group of each column, or -1 */
  int *is_order;        /* column is a sequence-group ordering column */
};

static void agg_free(pm_merge_reader *m);
static int agg_setup(pm_merge_reader *m, pm_error *err);

static void run_close(run_state *r) {
  free(r->fk_owned);
  r->fk_owned = NULL;
  pm_array_release(&r->batch);
  if (r->src.close) r->src.close(r->src.ctx);
  r->src.close = NULL;
}

void pm_merge_close(pm_merge_reader *m) {
  if (!m) return;
  for (int i = 0; i < m->n_runs; i++) run_close(&m->runs[i]);
  free(m->runs);
  free(m->sel_src);
  free(m->sel_row);
  if (m->col_src)
    for (int c = 0; c < m->n_cols; c++) {
      free(m->col_src[c]);
      free(m->col_row[c]);
    }
  free(m->col_src);
  free(m->col_row);
  free(m->out_kind);
  free(m->patches);
  free(m->bpatches);
  pm_buf_free(&m->bdata);
  free(m->lpatches);
  free(m->erefs);
  free(m->srcs);
  free(m->g_run);
  free(m->g_row);
  agg_free(m);
  free(m);
}

int pm_merge_open(const pm_merge_config *cfg, const pm_merge_source *sources, int n_sources, pm_merge_reader **out,
                  pm_error *err) {
  *out = NULL;
  pm_merge_reader *m = calloc(1, sizeof *m);
  if (!m) goto nomem_sources;
  m->cfg = cfg;
  m->layout = cfg->layout;
  m->n_cols = (int)cfg->layout->n_children;
  m->n_runs = n_sources;
  m->runs = calloc((size_t)n_sources + 1, sizeof *m->runs);
  m->srcs = calloc((size_t)n_sources + 1, sizeof *m->srcs);
  m->g_run = calloc((size_t)n_sources + 1, sizeof *m->g_run);
  m->g_row = calloc((size_t)n_sources + 1, sizeof *m->g_row);
  if (!m->runs || !m->srcs || !m->g_run || !m->g_row) {
    free(m->runs);
    m->runs = NULL;
    m->n_runs = 0;
    pm_merge_close(m);
    goto nomem_sources;
  }
  for (int i = 0; i < n_sources; i++) m->runs[i].src = sources[i];
  m->per_column = cfg->engine == PM_ENGINE_PARTIAL_UPDATE || cfg->engine == PM_ENGINE_AGGREGATION;
  if (m->per_column) {
    m->col_src = calloc((size_t)m->n_cols + 1, sizeof *m->col_src);
    m->col_row = calloc((size_t)m->n_cols + 1, sizeof *m->col_row);
    if (!m->col_src || !m->col_row) {
      pm_merge_close(m);
      return PM_NOMEM(err);
    }
  }
  if (m->per_column) {
    int rc = agg_setup(m, err);
    if (rc) {
      pm_merge_close(m);
      return rc;
    }
  }
  *out = m;
  return 0;
nomem_sources:
  for (int i = 0; i < n_sources; i++)
    if (sources[i].close) sources[i].close(sources[i].ctx);
  return PM_NOMEM(err);
}

/* Key comparison of run a's row i and run b's row j. */
static inline int key_cmp(const pm_merge_reader *m, const struct ArrowArray *a, int64_t i, const struct ArrowArray *b,
                          int64_t j) {
  const pm_merge_config *cfg = m->cfg;
  for (int k = 0; k < cfg->n_keys; k++) {
    int col = cfg->key_cols[k];
    int c = pm_compare_values(&m->layout->children[col], a->children[col], i, b->children[col], j);
    if (c) return c;
  }
  return 0;
}

static inline int8_t kind_at(const pm_merge_reader *m, const struct ArrowArray *a, int64_t i) {
  const struct ArrowArray *k = a->children[m->cfg->kind_col];
  return ((const int8_t *)k->buffers[1])[k->offset + i];
}

static inline int64_t seq_at(const pm_merge_reader *m, const struct ArrowArray *a, int64_t i) {
  const struct ArrowArray *k = a->children[m->cfg->seq_col];
  return ((const int64_t *)k->buffers[1])[k->offset + i];
}

/* Caches the sequence / kind column pointers of a run's current batch. */
static inline void prepare_run_cols(const pm_merge_reader *m, run_state *r) {
  if (r->seq || !r->batch.release) return;
  const struct ArrowArray *sq = r->batch.children[m->cfg->seq_col], *kd = r->batch.children[m->cfg->kind_col];
  r->seq = (const int64_t *)sq->buffers[1] + sq->offset;
  r->kind = (const int8_t *)kd->buffers[1] + kd->offset;
}

/* Order of records of one key: sequence.field (nulls first), seq, retract before add. */
static int record_cmp(const pm_merge_reader *m, int32_t ra, int64_t ia, int32_t rb, int64_t ib) {
  const pm_merge_config *cfg = m->cfg;
  const struct ArrowArray *a = &m->runs[ra].batch, *b = &m->runs[rb].batch;
  for (int k = 0; k < cfg->n_seq_fields; k++) {
    int col = cfg->seq_field_cols[k];
    const struct ArrowArray *x = a->children[col], *y = b->children[col];
    int vx = pm_array_is_valid(x, ia), vy = pm_array_is_valid(y, ib);
    if (!vx || !vy) {
      if (vx != vy) return vx - vy;
      continue;
    }
    int c = pm_compare_values(&m->layout->children[col], x, ia, y, ib);
    if (c) return cfg->seq_descending ? -c : c;
  }
  int c = cmp_i64(seq_at(m, a, ia), seq_at(m, b, ib));
  if (c) return c;
  int ka = pm_rowkind_is_retract(kind_at(m, a, ia)), kb = pm_rowkind_is_retract(kind_at(m, b, ib));
  return kb - ka; /* retract first */
}

static int ensure_out_cap(pm_merge_reader *m, int64_t need, pm_error *err) {
  if (need <= m->cap_out) return 0;
  int64_t cap = m->cap_out ? m->cap_out : 1024;
  while (cap < need) cap *= 2;
  void *p;
  if (!(p = realloc(m->sel_src, (size_t)cap * sizeof *m->sel_src))) return PM_NOMEM(err);
  m->sel_src = p;
  if (!(p = realloc(m->sel_row, (size_t)cap * sizeof *m->sel_row))) return PM_NOMEM(err);
  m->sel_row = p;
  if (!(p = realloc(m->out_kind, (size_t)cap * sizeof *m->out_kind))) return PM_NOMEM(err);
  m->out_kind = p;
  if (m->per_column)
    for (int c = 0; c < m->n_cols; c++) {
      if (!(p = realloc(m->col_src[c], (size_t)cap * sizeof **m->col_src))) return PM_NOMEM(err);
      m->col_src[c] = p;
      if (!(p = realloc(m->col_row[c], (size_t)cap * sizeof **m->col_row))) return PM_NOMEM(err);
      m->col_row[c] = p;
    }
  m->cap_out = cap;
  return 0;
}

static int add_patch(pm_merge_reader *m, const patch *p, pm_error *err) {
  if (m->n_patches == m->cap_patches) {
    size_t cap = m->cap_patches ? m->cap_patches * 2 : 64;
    patch *np = realloc(m->patches, cap * sizeof *np);
    if (!np) return PM_NOMEM(err);
    m->patches = np;
    m->cap_patches = cap;
  }
  m->patches[m->n_patches++] = *p;
  return 0;
}

static int add_bpatch(pm_merge_reader *m, int64_t row, int col, int is_null, const void *data, size_t len,
                      pm_error *err) {
  if (m->n_bpatches == m->cap_bpatches) {
    size_t cap = m->cap_bpatches ? m->cap_bpatches * 2 : 64;
    bpatch *np = realloc(m->bpatches, cap * sizeof *np);
    if (!np) return PM_NOMEM(err);
    m->bpatches = np;
    m->cap_bpatches = cap;
  }
  bpatch *b = &m->bpatches[m->n_bpatches++];
  b->row = row;
  b->col = col;
  b->is_null = is_null;
  b->off = m->bdata.len;
  b->len = len;
  if (len && pm_buf_append(&m->bdata, data, len)) return PM_NOMEM(err);
  return 0;
}

/* Bytes of a varbin value (logical row i); 0 when null. */
static int bytes_at(const pm_type *t, const struct ArrowArray *a, int64_t i, const uint8_t **p, size_t *n) {
  if (!pm_array_is_valid(a, i)) return 0;
  varbin_at(t, a, a->offset + i, p, n);
  return 1;
}

static int is_blank(const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!isspace(p[i]) && !(p[i] >= 0x1C && p[i] <= 0x1F)) return 0; /* Java Character.isWhitespace (ASCII) */
  return 1;
}

/* Whether token tok is one of the delimiter-separated tokens of s. */
static int has_token(const uint8_t *s, size_t n, const uint8_t *tok, size_t tl, const char *delim, size_t dl) {
  size_t a = 0;
  for (;;) {
    size_t b = a;
    while (b < n && !(dl && b + dl <= n && !memcmp(s + b, delim, dl))) b++;
    if (b - a == tl && (!tl || !memcmp(s + a, tok, tl))) return 1;
    if (b >= n) return 0;
    a = b + dl;
  }
}

/* listagg (FieldListaggAgg.agg): a null or blank input leaves acc; a null or
 * blank acc takes the input; else acc + delimiter + input, or with distinct
 * only the input's non-blank tokens (split by the whole delimiter, all tokens
 * preserved) not yet present are appended. */
static int listagg_add(pm_buf *acc, int *has, const uint8_t *p, size_t n, const char *delim, int distinct,
                       pm_error *err) {
  if (is_blank(p, n)) return 0;
  if (!*has || is_blank(acc->data, acc->len)) {
    acc->len = 0;
    if (n && pm_buf_append(acc, p, n)) return PM_NOMEM(err);
    *has = 1;
    return 0;
  }
  size_t dl = strlen(delim);
  if (!distinct || !dl) {
    if (pm_buf_append(acc, delim, dl) || pm_buf_append(acc, p, n)) return PM_NOMEM(err);
    return 0;
  }
  size_t s = 0;
  for (;;) {
    size_t e = s;
    while (e < n && !(e + dl <= n && !memcmp(p + e, delim, dl))) e++;
    const uint8_t *tok = p + s;
    size_t tl = e - s;
    if (!is_blank(tok, tl) && !has_token(acc->data, acc->len, tok, tl, delim, dl) &&
        (pm_buf_append(acc, delim, dl) || pm_buf_append(acc, tok, tl)))
      return PM_NOMEM(err);
    if (e >= n) break;
    s = e + dl;
  }
  return 0;
}

/* Element range [*b, *e) of list/map value (logical row i) in its child array. */
static void list_range(const pm_type *t, const struct ArrowArray *a, int64_t i, int64_t *b, int64_t *e) {
  int64_t j = a->offset + i;
  if (t->id == PM_T_LARGE_LIST) {
    *b = ((const int64_t *)a->buffers[1])[j];
    *e = ((const int64_t *)a->buffers[1])[j + 1];
  } else {
    *b = ((const int32_t *)a->buffers[1])[j];
    *e = ((const int32_t *)a->buffers[1])[j + 1];
  }
}

/* Value equality (Java equals on the values; nested values field by field). */
static int values_equal(const pm_type *t, const struct ArrowArray *a, int64_t i, const struct ArrowArray *b, int64_t j,
                        int depth) {
  int va = pm_array_is_valid(a, i), vb = pm_array_is_valid(b, j);
  if (!va || !vb) return va == vb;
  if (depth > 64) return 0;
  switch (t->id) {
    case PM_T_STRUCT:
      for (int64_t k = 0; k < t->n_children; k++)
        if (!values_equal(&t->children[k], a->children[k], a->offset + i, b->children[k], b->offset + j, depth + 1))
          return 0;
      return 1;
    case PM_T_LIST:
    case PM_T_LARGE_LIST:
    case PM_T_MAP: {
      int64_t ab, ae, bb, be;
      list_range(t, a, i, &ab, &ae);
      list_range(t, b, j, &bb, &be);
      if (ae - ab != be - bb) return 0;
      for (int64_t k = 0; k < ae - ab; k++)
        if (!values_equal(&t->children[0], a->children[0], ab + k, b->children[0], bb + k, depth + 1)) return 0;
      return 1;
    }
    case PM_T_FIXED_LIST: {
      int64_t w = t->width;
      for (int64_t k = 0; k < w; k++)
        if (!values_equal(&t->children[0], a->children[0], (a->offset + i) * w + k, b->children[0],
                          (b->offset + j) * w + k, depth + 1))
          return 0;
      return 1;
    }
    default: return is_flat(t) && pm_compare_values(t, a, i, b, j) == 0;
  }
}

/* Nested accumulator of one column: a growable list of element references.
 * Lists of nested_partial_update hold composite rows: per element `stride`
 * references, the element itself (run -1: a null element) then one per
 * nested field naming the element the field's value comes from (run -1:
 * null). Every other function uses stride 1. */
typedef struct nacc {
  eref *v;
  size_t n, cap; /* n counts references */
  int has;       /* non-null */
} nacc;

static int nacc_push(nacc *a, int32_t run, int64_t idx, pm_error *err) {
  if (a->n == a->cap) {
    size_t cap = a->cap ? a->cap * 2 : 16;
    eref *nv = realloc(a->v, cap * sizeof *nv);
    if (!nv) return PM_NOMEM(err);
    a->v = nv;
    a->cap = cap;
  }
  a->v[a->n].run = run;
  a->v[a->n].idx = idx;
  a->n++;
  return 0;
}

static int nacc_push_n(nacc *a, const eref *e, size_t n, pm_error *err) {
  for (size_t k = 0; k < n; k++) PM_TRY(nacc_push(a, e[k].run, e[k].idx, err));
  return 0;
}

static int nacc_copy(nacc *dst, const nacc *src, pm_error *err) {
  dst->n = 0;
  dst->has = src->has;
  return nacc_push_n(dst, src->v, src->n, err);
}

/* Child array of column c's list/map values in run r (list elements, or map entries). */
static const struct ArrowArray *elems_of(const pm_merge_reader *m, int c, int32_t r) {
  return m->runs[r].batch.children[c]->children[0];
}

/* Elements / map keys equal (collect, merge_map). */
static int elem_equal(const pm_merge_reader *m, int c, eref x, eref y) {
  const pm_type *t = &m->layout->children[c];
  const struct ArrowArray *a = elems_of(m, c, x.run), *b = elems_of(m, c, y.run);
  if (t->id == PM_T_MAP) /* keys live in the entries struct: apply its offset */
    return values_equal(&t->children[0].children[0], a->children[0], a->offset + x.idx, b->children[0],
                        b->offset + y.idx, 0);
  return values_equal(&t->children[0], a, x.idx, b, y.idx, 0);
}

static uint64_t mix64(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

static uint64_t bytes_hash(const uint8_t *p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
  return mix64(h ^ n);
}

/* A hash consistent with values_equal (equal values hash alike). */
static uint64_t value_hash(const pm_type *t, const struct ArrowArray *a, int64_t i, int depth) {
  if (!pm_array_is_valid(a, i)) return 0x9e3779b97f4a7c15ULL;
  if (depth > 64) return 1;
  int64_t x = a->offset + i;
  switch (t->id) {
    case PM_T_STRUCT: {
      uint64_t h = 17;
      for (int64_t k = 0; k < t->n_children; k++)
        h = mix64(h * 31 + value_hash(&t->children[k], a->children[k], a->offset + i, depth + 1));
      return h;
    }
    case PM_T_LIST:
    case PM_T_LARGE_LIST:
    case PM_T_MAP: {
      int64_t b, e;
      list_range(t, a, i, &b, &e);
      uint64_t h = (uint64_t)(e - b);
      for (int64_t k = b; k < e; k++) h = mix64(h * 31 + value_hash(&t->children[0], a->children[0], k, depth + 1));
      return h;
    }
    case PM_T_BOOL: return mix64(2 + (uint64_t)pm_bit_get(a->buffers[1], x));
    case PM_T_FLOAT: {
      float f = ((const float *)a->buffers[1])[x];
      uint32_t u;
      memcpy(&u, &f, 4);
      return isnan(f) ? 3 : mix64(u); /* every NaN compares equal */
    }
    case PM_T_DOUBLE: {
      double d = ((const double *)a->buffers[1])[x];
      uint64_t u;
      memcpy(&u, &d, 8);
      return isnan(d) ? 3 : mix64(u);
    }
    case PM_T_UTF8:
    case PM_T_LARGE_UTF8:
    case PM_T_BINARY:
    case PM_T_LARGE_BINARY: {
      const uint8_t *p;
      size_t n;
      varbin_at(t, a, x, &p, &n);
      return bytes_hash(p, n);
    }
    case PM_T_FIXED_BINARY:
      return bytes_hash((const uint8_t *)a->buffers[1] + (size_t)t->width * (size_t)x, (size_t)t->width);
    default: {
      if (!is_flat(t) || t->id == PM_T_HALF_FLOAT) return 5; /* equality not by bytes: any constant is consistent */
      int w = pm_type_byte_width(t);
      if (w <= 0 || w > 16) return 5;
      return bytes_hash((const uint8_t *)a->buffers[1] + (size_t)w * (size_t)x, (size_t)w);
    }
  }
}

static int nkey_equal(const pm_merge_reader *m, int c, eref x, eref y);

/* Hash of element x's identity: its nested key (by_key), map key, or value. */
static uint64_t elem_hash(const pm_merge_reader *m, int c, eref x, int by_key) {
  const pm_type *t = &m->layout->children[c];
  const struct ArrowArray *a = elems_of(m, c, x.run);
  if (by_key) {
    const pm_merge_column *mc = &m->cfg->columns[c];
    uint64_t h = 19;
    for (int k = 0; k < mc->n_nested_keys; k++) {
      int f = mc->nested_keys[k];
      h = mix64(h * 31 + value_hash(&t->children[0].children[f], a->children[f], a->offset + x.idx, 0));
    }
    return h;
  }
  if (t->id == PM_T_MAP) return value_hash(&t->children[0].children[0], a->children[0], a->offset + x.idx, 0);
  return value_hash(&t->children[0], a, x.idx, 0);
}

/* A hash index over the references of one list (open addressing; slots hold
 * reference index + 1). Sized once for every insert it will see; entries
 * whose run is < 0 (null composites, removed entries) never match. */
typedef struct kidx {
  size_t *slot;
  size_t cap, mask;
  int by_key;
} kidx;

static int kidx_reset(kidx *ix, size_t max_inserts, int by_key, pm_error *err) {
  size_t cap = 16;
  while (cap < max_inserts * 2 + 2) cap *= 2;
  if (cap > ix->cap) {
    size_t *ns = realloc(ix->slot, cap * sizeof *ns);
    if (!ns) return PM_NOMEM(err);
    ix->slot = ns;
    ix->cap = cap;
  }
  ix->mask = cap - 1;
  ix->by_key = by_key;
  memset(ix->slot, 0, cap * sizeof *ix->slot);
  return 0;
}

/* Reference index in list a of the entry equal to x, or -1 (*pos: the free slot for x). */
static ptrdiff_t kidx_find(const pm_merge_reader *m, int c, const kidx *ix, const nacc *a, eref x, size_t *pos) {
  size_t p = (size_t)elem_hash(m, c, x, ix->by_key) & ix->mask;
  for (; ix->slot[p]; p = (p + 1) & ix->mask) {
    size_t k = ix->slot[p] - 1;
    eref y = a->v[k];
    if (y.run < 0) continue;
    if (ix->by_key ? nkey_equal(m, c, y, x) : elem_equal(m, c, y, x)) return (ptrdiff_t)k;
  }
  *pos = p;
  return -1;
}

/* Appends x's `n` references to a and indexes them at slot pos. */
static int kidx_append(kidx *ix, size_t pos, nacc *a, const eref *x, size_t n, pm_error *err) {
  ix->slot[pos] = a->n + 1;
  return nacc_push_n(a, x, n, err);
}

/* merge_map's put: replace the entry with x's key, else append. */
static int kidx_put(const pm_merge_reader *m, int c, kidx *ix, nacc *a, eref x, pm_error *err) {
  size_t pos;
  ptrdiff_t at = kidx_find(m, c, ix, a, x, &pos);
  if (at >= 0) {
    a->v[at] = x;
    return 0;
  }
  return kidx_append(ix, pos, a, &x, 1, err);
}

/* Indexes the entries of an existing list (the first of equal entries). */
static void kidx_build(const pm_merge_reader *m, int c, kidx *ix, const nacc *a) {
  for (size_t k = 0; k < a->n; k++) {
    size_t pos;
    if (a->v[k].run >= 0 && kidx_find(m, c, ix, a, a->v[k], &pos) < 0) ix->slot[pos] = k + 1;
  }
}

/* Drops the references marked removed (run -2) of a stride-1 list. */
static void nacc_compact(nacc *a) {
  size_t o = 0;
  for (size_t k = 0; k < a->n; k++)
    if (a->v[k].run != -2) a->v[o++] = a->v[k];
  a->n = o;
}

/* The list / map value (r, i) of column c as references (r < 0: null). */
static int list_of(pm_merge_reader *m, int c, int32_t r, int64_t i, nacc *out, pm_error *err) {
  out->n = 0;
  out->has = 0;
  if (r < 0) return 0;
  const struct ArrowArray *col = m->runs[r].batch.children[c];
  if (!pm_array_is_valid(col, i)) return 0;
  out->has = 1;
  int64_t b, e;
  list_range(&m->layout->children[c], col, i, &b, &e);
  if (b < 0 || e < b || e > col->children[0]->length)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "merge: list offsets [%lld, %lld) out of range in column %d",
                     (long long)b, (long long)e, c);
  int stride = m->stride[c];
  const struct ArrowArray *s = col->children[0];
  for (int64_t k = b; k < e; k++) {
    if (stride == 1) {
      PM_TRY(nacc_push(out, r, k, err));
      continue;
    }
    int ev = pm_array_is_valid(s, k);
    PM_TRY(nacc_push(out, ev ? r : -1, k, err));
    for (int f = 0; f < stride - 1; f++)
      PM_TRY(nacc_push(out, ev && pm_array_is_valid(s->children[f], s->offset + k) ? r : -1, k, err));
  }
  return 0;
}

/* ---- nested_update / nested_partial_update: rows of ARRAY<ROW> ---- */

static int nelem_valid(const pm_merge_reader *m, int c, eref x) {
  return x.run >= 0 && (m->stride[c] > 1 || pm_array_is_valid(elems_of(m, c, x.run), x.idx));
}

static int nkey_equal(const pm_merge_reader *m, int c, eref x, eref y) {
  const pm_merge_column *mc = &m->cfg->columns[c];
  const pm_type *rt = &m->layout->children[c].children[0];
  const struct ArrowArray *sx = elems_of(m, c, x.run), *sy = elems_of(m, c, y.run);
  for (int k = 0; k < mc->n_nested_keys; k++) {
    int f = mc->nested_keys[k];
    if (!values_equal(&rt->children[f], sx->children[f], sx->offset + x.idx, sy->children[f], sy->offset + y.idx, 0))
      return 0;
  }
  return 1;
}

/* FieldNestedUpdateAgg.applyNestedKeyNullStrategy: *keep = row takes part. */
static int nkey_admit(const pm_merge_reader *m, int c, eref x, int *keep, pm_error *err) {
  const pm_merge_column *mc = &m->cfg->columns[c];
  const struct ArrowArray *s = elems_of(m, c, x.run);
  *keep = 1;
  int any_null = 0;
  for (int k = 0; k < mc->n_nested_keys && !any_null; k++)
    any_null = !pm_array_is_valid(s->children[mc->nested_keys[k]], s->offset + x.idx);
  if (!any_null || mc->nested_key_null == PM_NESTED_KEY_NULL_MERGE) return 0;
  if (mc->nested_key_null == PM_NESTED_KEY_NULL_IGNORE) {
    *keep = 0;
    return 0;
  }
  return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                   "Nested key contains null values. Primary key fields must not be null (column %d)", c);
}

/* nested-sequence-field order of rows x and y (nulls first). */
static int nseq_cmp(const pm_merge_reader *m, int c, eref x, eref y) {
  const pm_merge_column *mc = &m->cfg->columns[c];
  const pm_type *rt = &m->layout->children[c].children[0];
  const struct ArrowArray *sx = elems_of(m, c, x.run), *sy = elems_of(m, c, y.run);
  for (int k = 0; k < mc->n_nested_seq; k++) {
    int f = mc->nested_seq[k];
    int r = pm_compare_values(&rt->children[f], sx->children[f], sx->offset + x.idx, sy->children[f],
                              sy->offset + y.idx);
    if (r) return r;
  }
  return 0;
}

/* addNestedRows: rows of src put into res by nested key (an equal key is
 * replaced unless the nested sequence is older; new keys only while fewer
 * than limit keys when limit_new). */
static int nested_put_rows(const pm_merge_reader *m, int c, kidx *ix, nacc *res, const nacc *src, int limit_new,
                           int64_t limit, pm_error *err) {
  int has_seq = m->cfg->columns[c].n_nested_seq > 0;
  for (size_t k = 0; k < src->n; k++) {
    eref x = src->v[k];
    if (!nelem_valid(m, c, x)) continue;
    int keep;
    PM_TRY(nkey_admit(m, c, x, &keep, err));
    if (!keep) continue;
    size_t pos;
    ptrdiff_t at = kidx_find(m, c, ix, res, x, &pos);
    if (at >= 0) {
      if (!has_seq || nseq_cmp(m, c, x, res->v[at]) >= 0) res->v[at] = x;
    } else if (!limit_new || (int64_t)res->n < limit) {
      PM_TRY(kidx_append(ix, pos, res, &x, 1, err));
    }
  }
  return 0;
}

/* Appends the non-null rows of src to res, at most max of them. */
static int push_non_null_rows(const pm_merge_reader *m, int c, nacc *res, const nacc *src, int64_t max,
                              pm_error *err) {
  int64_t added = 0;
  for (size_t k = 0; k < src->n && added < max; k++)
    if (nelem_valid(m, c, src->v[k])) {
      PM_TRY(nacc_push(res, src->v[k].run, src->v[k].idx, err));
      added++;
    }
  return 0;
}

/* ---- merge_map_with_keytime ---- */

/* Value ROW of map entry x (valid?) and its timestamp string. */
static int keytime_value(const pm_merge_reader *m, int c, eref x, const uint8_t **ts, size_t *ts_len, int *ts_valid) {
  const pm_type *vt = &m->layout->children[c].children[0].children[1];
  const struct ArrowArray *ent = elems_of(m, c, x.run), *val = ent->children[1];
  int64_t vi = ent->offset + x.idx;
  *ts_valid = 0;
  if (!pm_array_is_valid(val, vi)) return 0;
  int tf = m->cfg->columns[c].ts_field >= 0 ? m->cfg->columns[c].ts_field : (int)vt->n_children - 1;
  *ts_valid = bytes_at(&vt->children[tf], val->children[tf], val->offset + vi, ts, ts_len);
  return 1;
}

/* Java String.compareTo on UTF-8 input: UTF-16 code unit order. */
static uint32_t utf8_next(const uint8_t *p, size_t n, size_t *i) {
  uint8_t c = p[*i];
  int len = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
  if (*i + (size_t)len > n) len = 1;
  uint32_t cp = len == 1 ? c : len == 2 ? c & 0x1F : len == 3 ? c & 0x0F : c & 0x07;
  for (int k = 1; k < len; k++) cp = (cp << 6) | (p[*i + (size_t)k] & 0x3F);
  *i += (size_t)len;
  return cp;
}

static int java_string_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
  size_t i = 0, j = 0;
  while (i < an && j < bn) {
    uint32_t x = utf8_next(a, an, &i), y = utf8_next(b, bn, &j);
    if (x == y) continue;
    /* first UTF-16 code unit: supplementary characters start with a high surrogate */
    uint32_t ux = x >= 0x10000 ? 0xD800 + ((x - 0x10000) >> 10) : x;
    uint32_t uy = y >= 0x10000 ? 0xD800 + ((y - 0x10000) >> 10) : y;
    if (ux != uy) return ux < uy ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return (i < an) - (j < bn);
}

/* ---- list-valued aggregate functions on reference lists ---- */

/* res := agg(a, b) of list function f on column c (res distinct from a, b). */
static int list_agg(const pm_merge_reader *m, int c, pm_agg_func f, const nacc *a, const nacc *b, nacc *res,
                    pm_error *err) {
  const pm_merge_column *mc = &m->cfg->columns[c];
  const pm_type *t = &m->layout->children[c];
  res->n = 0;
  res->has = 0;
  switch (f) {
    case PM_AGG_COLLECT: { /* FieldCollectAgg.agg */
      if (!a->has && !b->has) return 0;
      if ((!a->has || !b->has) && !mc->distinct) return nacc_copy(res, a->has ? a : b, err);
      res->has = 1;
      const pm_type *et = &t->children[0];
      /* a HashSet de-duplicates the accumulator too; the equaliser path (nested and binary elements) does not */
      int dedup_acc = mc->distinct && is_flat(et) && et->id != PM_T_BINARY && et->id != PM_T_LARGE_BINARY &&
                      et->id != PM_T_FIXED_BINARY;
      if (!mc->distinct) { /* concatenation */
        PM_TRY(nacc_push_n(res, a->v, a->n, err));
        return nacc_push_n(res, b->v, b->n, err);
      }
      kidx *ix = &m->kx[0];
      PM_TRY(kidx_reset(ix, a->n + b->n, 0, err));
      for (int side = 0; side < 2; side++) {
        const nacc *src = side ? b : a;
        int dedup = side ? 1 : dedup_acc;
        for (size_t k = 0; src->has && k < src->n; k++) {
          size_t pos;
          if (kidx_find(m, c, ix, res, src->v[k], &pos) < 0) PM_TRY(kidx_append(ix, pos, res, &src->v[k], 1, err));
          else if (!dedup) PM_TRY(nacc_push(res, src->v[k].run, src->v[k].idx, err));
        }
      }
      return 0;
    }
    case PM_AGG_MERGE_MAP: /* FieldMergeMapAgg.agg: input wins on a key clash */
      if (!a->has || !b->has) return nacc_copy(res, a->has ? a : b, err);
      res->has = 1;
      PM_TRY(kidx_reset(&m->kx[0], a->n + b->n, 0, err));
      for (int side = 0; side < 2; side++) {
        const nacc *src = side ? b : a;
        for (size_t k = 0; k < src->n; k++) PM_TRY(kidx_put(m, c, &m->kx[0], res, src->v[k], err));
      }
      return 0;
    case PM_AGG_MERGE_MAP_WITH_KEYTIME: /* FieldMergeMapWithKeyTimeAgg.agg */
      if (!a->has) return nacc_copy(res, b, err);
      if (!b->has) return nacc_copy(res, a, err);
      res->has = 1;
      PM_TRY(kidx_reset(&m->kx[0], a->n + b->n, 0, err));
      for (size_t k = 0; k < a->n; k++) PM_TRY(kidx_put(m, c, &m->kx[0], res, a->v[k], err));
      for (size_t k = 0; k < b->n; k++) {
        eref x = b->v[k];
        size_t pos;
        ptrdiff_t at = kidx_find(m, c, &m->kx[0], res, x, &pos);
        const uint8_t *nts, *ots;
        size_t nn, on;
        int nv, ov;
        if (!keytime_value(m, c, x, &nts, &nn, &nv)) { /* a null value removes the key */
          if (at >= 0) res->v[at].run = -2;
          continue;
        }
        if (!nv) continue; /* null timestamp: skipped */
        int take = at < 0 || !keytime_value(m, c, res->v[at], &ots, &on, &ov) || !ov ||
                   java_string_cmp(nts, nn, ots, on) > 0;
        if (!take) continue;
        if (at >= 0) res->v[at] = x;
        else PM_TRY(kidx_append(&m->kx[0], pos, res, &x, 1, err));
      }
      nacc_compact(res);
      return 0;
    case PM_AGG_NESTED_UPDATE: { /* FieldNestedUpdateAgg.agg */
      if (!b->has) return nacc_copy(res, a, err);
      int64_t limit = mc->count_limit_set ? mc->count_limit : INT32_MAX;
      if (!mc->n_nested_keys) {
        if (!a->has) {
          res->has = 1;
          return push_non_null_rows(m, c, res, b, limit, err);
        }
        if ((int64_t)a->n >= limit) return nacc_copy(res, a, err);
        res->has = 1;
        PM_TRY(push_non_null_rows(m, c, res, a, INT64_MAX, err));
        return push_non_null_rows(m, c, res, b, limit - (int64_t)a->n, err);
      }
      res->has = 1;
      PM_TRY(kidx_reset(&m->kx[0], a->n + b->n, 1, err));
      if (a->has) PM_TRY(nested_put_rows(m, c, &m->kx[0], res, a, 0, limit, err));
      return nested_put_rows(m, c, &m->kx[0], res, b, 1, limit, err);
    }
    case PM_AGG_NESTED_PARTIAL_UPDATE: { /* FieldNestedPartialUpdateAgg.agg: non-null overlay per nested key */
      if (!b->has) return nacc_copy(res, a, err);
      res->has = 1;
      size_t s = (size_t)m->stride[c];
      PM_TRY(kidx_reset(&m->kx[0], (a->n + b->n) / s, 1, err));
      for (int side = 0; side < 2; side++) {
        const nacc *src = side ? b : a;
        for (size_t k = 0; src->has && k + s <= src->n; k += s) {
          eref x = src->v[k];
          if (x.run < 0) continue;
          int keep;
          PM_TRY(nkey_admit(m, c, x, &keep, err));
          if (!keep) continue;
          size_t pos;
          ptrdiff_t at = kidx_find(m, c, &m->kx[0], res, x, &pos);
          if (at < 0) {
            at = (ptrdiff_t)res->n;
            PM_TRY(kidx_append(&m->kx[0], pos, res, &x, 1, err));
            for (size_t q = 1; q < s; q++) PM_TRY(nacc_push(res, -1, 0, err));
          }
          for (size_t q = 1; q < s; q++)
            if (src->v[k + q].run >= 0) res->v[(size_t)at + q] = src->v[k + q];
        }
      }
      return 0;
    }
    default: return pm_errorf(err, PAIMON_ERR_INTERNAL, "merge: not a list aggregate function");
  }
}

/* res := retract(a, b) of list function f; 1 in *unsupported when f has no retraction. */
static int list_retract(const pm_merge_reader *m, int c, pm_agg_func f, const nacc *a, const nacc *b, nacc *res,
                        int *unsupported, pm_error *err) {
  const pm_merge_column *mc = &m->cfg->columns[c];
  *unsupported = 0;
  res->n = 0;
  res->has = 0;
  switch (f) {
    case PM_AGG_COLLECT: /* FieldCollectAgg.retract: each retracted element cancels one occurrence */
    case PM_AGG_MERGE_MAP: /* FieldMergeMapAgg.retract: retracted keys removed */
      if (!a->has || !b->has || b->n == 0) return nacc_copy(res, a, err);
      res->has = 1;
      if (f == PM_AGG_MERGE_MAP) {
        PM_TRY(kidx_reset(&m->kx[1], b->n, 0, err));
        kidx_build(m, c, &m->kx[1], b);
        PM_TRY(kidx_reset(&m->kx[0], a->n, 0, err));
        for (size_t k = 0; k < a->n; k++) {
          size_t pos;
          if (kidx_find(m, c, &m->kx[1], b, a->v[k], &pos) < 0) PM_TRY(kidx_put(m, c, &m->kx[0], res, a->v[k], err));
        }
        return 0;
      }
      {
        uint8_t *used = calloc(b->n + 1, 1);
        if (!used) return PM_NOMEM(err);
        int rc = 0;
        for (size_t k = 0; k < a->n && !rc; k++) {
          size_t q = 0;
          while (q < b->n && (used[q] || !elem_equal(m, c, b->v[q], a->v[k]))) q++;
          if (q < b->n) used[q] = 1;
          else rc = nacc_push(res, a->v[k].run, a->v[k].idx, err);
        }
        free(used);
        return rc;
      }
    case PM_AGG_NESTED_UPDATE: /* FieldNestedUpdateAgg.retract */
      if (!a->has || !b->has) return nacc_copy(res, a, err);
      res->has = 1;
      if (!mc->n_nested_keys) { /* every row equal to a retracted row is removed */
        const pm_type *rt = &m->layout->children[c].children[0];
        for (size_t k = 0; k < a->n; k++) {
          eref x = a->v[k];
          if (!nelem_valid(m, c, x)) continue;
          int hit = 0;
          for (size_t q = 0; q < b->n && !hit; q++)
            hit = nelem_valid(m, c, b->v[q]) &&
                  values_equal(rt, elems_of(m, c, x.run), x.idx, elems_of(m, c, b->v[q].run), b->v[q].idx, 0);
          if (!hit) PM_TRY(nacc_push(res, x.run, x.idx, err));
        }
        return 0;
      }
      PM_TRY(kidx_reset(&m->kx[0], a->n, 1, err));
      for (size_t k = 0; k < a->n; k++) { /* map of the accumulator's rows by key */
        eref x = a->v[k];
        int keep;
        if (!nelem_valid(m, c, x)) continue;
        PM_TRY(nkey_admit(m, c, x, &keep, err));
        if (!keep) continue;
        PM_TRY(kidx_put(m, c, &m->kx[0], res, x, err));
      }
      for (size_t k = 0; k < b->n; k++) {
        eref x = b->v[k];
        int keep;
        if (!nelem_valid(m, c, x)) continue;
        PM_TRY(nkey_admit(m, c, x, &keep, err));
        if (!keep) continue;
        size_t pos;
        ptrdiff_t at = kidx_find(m, c, &m->kx[0], res, x, &pos);
        if (at >= 0) res->v[at].run = -2;
      }
      nacc_compact(res);
      return 0;
    default: *unsupported = 1; return 0;
  }
}

static int add_lpatch(pm_merge_reader *m, int64_t row, int col, const nacc *a, pm_error *err) {
  if (m->n_lpatches == m->cap_lpatches) {
    size_t cap = m->cap_lpatches ? m->cap_lpatches * 2 : 64;
    lpatch *np = realloc(m->lpatches, cap * sizeof *np);
    if (!np) return PM_NOMEM(err);
    m->lpatches = np;
    m->cap_lpatches = cap;
  }
  if (m->n_erefs + a->n > m->cap_erefs) {
    size_t cap = m->cap_erefs ? m->cap_erefs : 256;
    while (cap < m->n_erefs + a->n) cap *= 2;
    eref *nv = realloc(m->erefs, cap * sizeof *nv);
    if (!nv) return PM_NOMEM(err);
    m->erefs = nv;
    m->cap_erefs = cap;
  }
  lpatch *l = &m->lpatches[m->n_lpatches++];
  l->row = row;
  l->col = col;
  l->is_null = !a->has;
  l->start = m->n_erefs;
  l->n = a->n;
  if (a->n) memcpy(m->erefs + m->n_erefs, a->v, a->n * sizeof *a->v);
  m->n_erefs += a->n;
  return 0;
}

/* Emits record (r, i) unchanged (single-record rule, or dedup winner). */
static void emit_whole(pm_merge_reader *m, int32_t r, int64_t i, int8_t kind) {
  int64_t o = m->n_out++;
  m->sel_src[o] = r;
  m->sel_row[o] = i;
  m->out_kind[o] = kind;
  if (m->per_column)
    for (int c = 0; c < m->n_cols; c++) {
      m->col_src[c][o] = r;
      m->col_row[c][o] = i;
    }
}

static int is_system_col(const pm_merge_config *cfg, int c) {
  if (c == cfg->seq_col || c == cfg->kind_col) return 1;
  for (int k = 0; k < cfg->n_keys; k++)
    if (cfg->key_cols[k] == c) return 1;
  return 0;
}

static int is_seq_field_col(const pm_merge_config *cfg, int c) {
  for (int k = 0; k < cfg->n_seq_fields; k++)
    if (cfg->seq_field_cols[k] == c) return 1;
  return 0;
}

/* Numeric value of column c at (r, i) for sum/product. */
typedef struct num {
  int is_null;
  int64_t i;
  double d;
  __int128 dec;
} num;

static num num_at(const pm_merge_reader *m, int c, int32_t r, int64_t i) {
  num v = {0};
  const struct ArrowArray *a = m->runs[r].batch.children[c];
  const pm_type *t = &m->layout->children[c];
  if (!pm_array_is_valid(a, i)) {
    v.is_null = 1;
    return v;
  }
  int64_t j = a->offset + i;
  switch (t->id) {
    case PM_T_BOOL: v.i = pm_bit_get(a->buffers[1], j); break;
    case PM_T_INT8: v.i = ((const int8_t *)a->buffers[1])[j]; break;
    case PM_T_INT16: v.i = ((const int16_t *)a->buffers[1])[j]; break;
    case PM_T_INT32: v.i = ((const int32_t *)a->buffers[1])[j]; break;
    case PM_T_INT64: v.i = ((const int64_t *)a->buffers[1])[j]; break;
    case PM_T_UINT8: v.i = ((const uint8_t *)a->buffers[1])[j]; break;
    case PM_T_UINT16: v.i = ((const uint16_t *)a->buffers[1])[j]; break;
    case PM_T_UINT32: v.i = ((const uint32_t *)a->buffers[1])[j]; break;
    case PM_T_UINT64: v.i = (int64_t)((const uint64_t *)a->buffers[1])[j]; break;
    case PM_T_FLOAT: v.d = ((const float *)a->buffers[1])[j]; break;
    case PM_T_DOUBLE: v.d = ((const double *)a->buffers[1])[j]; break;
    case PM_T_DECIMAL128: memcpy(&v.dec, (const uint8_t *)a->buffers[1] + 16 * j, 16); break;
    default: break;
  }
  return v;
}

static int int_fits(pm_type_id id, int64_t x) {
  switch (id) {
    case PM_T_INT8: return x >= INT8_MIN && x <= INT8_MAX;
    case PM_T_INT16: return x >= INT16_MIN && x <= INT16_MAX;
    case PM_T_INT32: return x >= INT32_MIN && x <= INT32_MAX;
    default: return 1;
  }
}

/* Combines acc with input x for sum/product (add=1) or their retraction (add=0). */
static int num_combine(const pm_type *t, pm_agg_func f, num *acc, num x, int add, pm_error *err) {
  if (x.is_null) return 0;
  int is_float = t->id == PM_T_FLOAT || t->id == PM_T_DOUBLE, is_dec = t->id == PM_T_DECIMAL128;
  if (acc->is_null) {
    if (f == PM_AGG_SUM && !add) { /* retract from null: -x */
      *acc = x;
      acc->i = -x.i;
      acc->d = -x.d;
      acc->dec = -x.dec;
      return 0;
    }
    if (f == PM_AGG_PRODUCT && !add) return 0; /* null stays null */
    *acc = x;
    return 0;
  }
  if (f == PM_AGG_SUM) {
    if (is_float) acc->d = add ? acc->d + x.d : acc->d - x.d;
    else if (is_dec) acc->dec = add ? acc->dec + x.dec : acc->dec - x.dec;
    else {
      int64_t r;
      if (add ? __builtin_add_overflow(acc->i, x.i, &r) : __builtin_sub_overflow(acc->i, x.i, &r))
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "sum aggregation overflows");
      if (!int_fits(t->id, r)) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "sum aggregation overflows");
      acc->i = r;
    }
  } else { /* product */
    if (is_float) acc->d = add ? acc->d * x.d : acc->d / x.d;
    else if (is_dec) {
      __int128 s = 1;
      for (int k = 0; k < t->scale; k++) s *= 10;
      if (add) acc->dec = acc->dec * x.dec / s;
      else if (x.dec != 0) acc->dec = acc->dec * s / x.dec;
    } else {
      int64_t r;
      if (add) {
        if (__builtin_mul_overflow(acc->i, x.i, &r) || !int_fits(t->id, r))
          return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "product aggregation overflows");
      } else {
        if (x.i == 0) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "product retraction divides by zero");
        r = acc->i / x.i;
      }
      acc->i = r;
    }
  }
  return 0;
}

/* ======================================================================
 * Per-column aggregator state of the key group being merged
 *
 * Functions whose result is one of the inputs keep a pick (the reader's
 * col_src / col_row of the output row); the others keep a computed value
 * (number, bytes, roaring bitmap or list of element references) that is
 * emitted as a patch of the output row.
 * ====================================================================== */

enum { REP_PICK, REP_NUM, REP_BYTES, REP_RBM32, REP_LIST };

static int func_rep(pm_agg_func f) {
  switch (f) {
    case PM_AGG_SUM:
    case PM_AGG_PRODUCT:
    case PM_AGG_BOOL_AND:
    case PM_AGG_BOOL_OR: return REP_NUM;
    case PM_AGG_LISTAGG:
    case PM_AGG_RBM64:
    case PM_AGG_HLL_SKETCH:
    case PM_AGG_THETA_SKETCH: return REP_BYTES;
    case PM_AGG_RBM32: return REP_RBM32;
    case PM_AGG_COLLECT:
    case PM_AGG_MERGE_MAP:
    case PM_AGG_MERGE_MAP_WITH_KEYTIME:
    case PM_AGG_NESTED_UPDATE:
    case PM_AGG_NESTED_PARTIAL_UPDATE: return REP_LIST;
    default: return REP_PICK;
  }
}

static const char *func_name(pm_agg_func f) {
  switch (f) {
    case PM_AGG_SUM: return "sum";
    case PM_AGG_PRODUCT: return "product";
    case PM_AGG_MAX: return "max";
    case PM_AGG_MIN: return "min";
    case PM_AGG_LAST_VALUE: return "last_value";
    case PM_AGG_LAST_NON_NULL_VALUE: return "last_non_null_value";
    case PM_AGG_FIRST_VALUE: return "first_value";
    case PM_AGG_FIRST_NON_NULL_VALUE: return "first_non_null_value";
    case PM_AGG_LISTAGG: return "listagg";
    case PM_AGG_BOOL_AND: return "bool_and";
    case PM_AGG_BOOL_OR: return "bool_or";
    case PM_AGG_RBM32: return "rbm32";
    case PM_AGG_RBM64: return "rbm64";
    case PM_AGG_HLL_SKETCH: return "hll_sketch";
    case PM_AGG_THETA_SKETCH: return "theta_sketch";
    case PM_AGG_COLLECT: return "collect";
    case PM_AGG_MERGE_MAP: return "merge_map";
    case PM_AGG_MERGE_MAP_WITH_KEYTIME: return "merge_map_with_keytime";
    case PM_AGG_NESTED_UPDATE: return "nested_update";
    case PM_AGG_NESTED_PARTIAL_UPDATE: return "nested_partial_update";
    case PM_AGG_PRIMARY_KEY: return "primary-key";
    default: return "none";
  }
}

typedef struct aggst {
  num acc;              /* REP_NUM */
  pm_buf buf;           /* REP_BYTES value ... */
  int has;              /* ... non-null */
  roaring_bitmap_t *rbm; /* REP_RBM32 (NULL = null) */
  nacc list;            /* REP_LIST */
  int initialized;      /* first_value / first_non_null_value: Java's per-key flag */
} aggst;

static void st_reset(aggst *s) {
  s->acc.is_null = 1;
  s->buf.len = 0;
  s->has = 0;
  if (s->rbm) roaring_bitmap_free(s->rbm);
  s->rbm = NULL;
  s->list.n = 0;
  s->list.has = 0;
  s->initialized = 0;
}

static void agg_free(pm_merge_reader *m) {
  if (m->st)
    for (int c = 0; c < m->n_cols; c++) {
      st_reset(&m->st[c]);
      pm_buf_free(&m->st[c].buf);
      free(m->st[c].list.v);
    }
  free(m->st);
  if (m->tmp)
    for (int k = 0; k < 2; k++) free(m->tmp[k].v);
  free(m->tmp);
  if (m->kx)
    for (int k = 0; k < 2; k++) free(m->kx[k].slot);
  free(m->kx);
  pm_buf_free(&m->sk);
  free(m->func);
  free(m->stride);
  free(m->processed);
  free(m->group_of);
  free(m->is_order);
}

static inline void pick(pm_merge_reader *m, int c, int64_t o, int32_t r, int64_t i) {
  m->col_src[c][o] = r;
  m->col_row[c][o] = i;
}

static inline int col_valid(const pm_merge_reader *m, int c, int32_t r, int64_t i) {
  return r >= 0 && pm_array_is_valid(m->runs[r].batch.children[c], i);
}

static inline int pick_valid(const pm_merge_reader *m, int c, int64_t o) {
  int32_t r = m->col_src[c][o];
  return col_valid(m, c, r, m->col_row[c][o]);
}

static void swap_list(nacc *a, nacc *b) {
  nacc t = *a;
  *a = *b;
  *b = t;
}

static int rbm_from(const uint8_t *p, size_t n, roaring_bitmap_t **out, pm_error *err) {
  *out = roaring_bitmap_portable_deserialize_safe((const char *)p, n);
  if (!*out) return pm_errorf(err, PAIMON_ERR_CORRUPT, "rbm32: invalid serialized bitmap (%zu bytes)", n);
  return 0;
}

/* state := the value (r, i) (r < 0: null): Java's initRow. */
static int st_set(pm_merge_reader *m, int c, int64_t o, int32_t r, int64_t i, pm_error *err) {
  aggst *s = &m->st[c];
  pick(m, c, o, r, i);
  switch (func_rep(m->func[c])) {
    case REP_NUM:
      if (r < 0) s->acc.is_null = 1;
      else s->acc = num_at(m, c, r, i);
      return 0;
    case REP_BYTES: {
      const uint8_t *p;
      size_t n;
      s->buf.len = 0;
      s->has = r >= 0 && bytes_at(&m->layout->children[c], m->runs[r].batch.children[c], i, &p, &n);
      if (s->has && n && pm_buf_append(&s->buf, p, n)) return PM_NOMEM(err);
      return 0;
    }
    case REP_RBM32: {
      const uint8_t *p;
      size_t n;
      if (s->rbm) roaring_bitmap_free(s->rbm);
      s->rbm = NULL;
      if (r >= 0 && bytes_at(&m->layout->children[c], m->runs[r].batch.children[c], i, &p, &n))
        return rbm_from(p, n, &s->rbm, err);
      return 0;
    }
    case REP_LIST: return list_of(m, c, r, i, &s->list, err);
    default: return 0;
  }
}

/* Byte-valued functions: *out := f(a, b) for non-null a, b. */
static int bytes_merge(pm_merge_reader *m, int c, pm_agg_func f, const uint8_t *a, size_t an, const uint8_t *b,
                       size_t bn, pm_error *err) {
  m->sk.len = 0;
  switch (f) {
    case PM_AGG_RBM64: return pm_agg_rbm64_merge(a, an, b, bn, &m->sk, err);
    case PM_AGG_THETA_SKETCH: return pm_agg_theta_merge(a, an, b, bn, &m->sk, err);
    case PM_AGG_HLL_SKETCH: return pm_agg_hll_merge(a, an, b, bn, &m->sk, err);
    default: {
      const pm_merge_column *mc = &m->cfg->columns[c];
      int has = 1;
      if (an && pm_buf_append(&m->sk, a, an)) return PM_NOMEM(err);
      return listagg_add(&m->sk, &has, b, bn, mc->listagg_delimiter ? mc->listagg_delimiter : ",", mc->distinct,
                         err);
    }
  }
}

static void swap_buf(pm_buf *a, pm_buf *b) {
  pm_buf t = *a;
  *a = *b;
  *b = t;
}

/* state := agg(state, input) (reversed = 0) or aggReversed(state, input) =
 * agg(input, state) (reversed = 1) of column c's function. */
static int st_agg(pm_merge_reader *m, int c, int64_t o, int32_t r, int64_t i, int reversed, pm_error *err) {
  aggst *s = &m->st[c];
  pm_agg_func f = m->func[c];
  const struct ArrowArray *col = m->runs[r].batch.children[c];
  int valid = pm_array_is_valid(col, i);
  switch (f) {
    case PM_AGG_LAST_VALUE:
    case PM_AGG_PRIMARY_KEY:
      if (!reversed) pick(m, c, o, r, i); /* agg(input, acc) = acc */
      return 0;
    case PM_AGG_LAST_NON_NULL_VALUE:
      if (reversed ? !pick_valid(m, c, o) : valid) pick(m, c, o, r, i);
      return 0;
    case PM_AGG_FIRST_VALUE: /* FieldFirstValueAgg: the first call since reset returns its second argument */
      if (!s->initialized) {
        s->initialized = 1;
        if (!reversed) pick(m, c, o, r, i);
      } else if (reversed) {
        pick(m, c, o, r, i);
      }
      return 0;
    case PM_AGG_FIRST_NON_NULL_VALUE:
      if (!reversed) {
        if (!s->initialized && valid) {
          s->initialized = 1;
          pick(m, c, o, r, i);
        }
      } else if (!s->initialized && pick_valid(m, c, o)) {
        s->initialized = 1;
      } else {
        pick(m, c, o, r, i);
      }
      return 0;
    case PM_AGG_MAX:
    case PM_AGG_MIN: /* null-skip; order-insensitive */
      if (valid) {
        int32_t cr = m->col_src[c][o];
        int better = !pick_valid(m, c, o);
        if (!better) {
          int cmp = pm_compare_values(&m->layout->children[c], col, i, m->runs[cr].batch.children[c],
                                      m->col_row[c][o]);
          better = f == PM_AGG_MAX ? cmp > 0 : cmp < 0;
        }
        if (better) pick(m, c, o, r, i);
      }
      return 0;
    case PM_AGG_SUM:
    case PM_AGG_PRODUCT: return num_combine(&m->layout->children[c], f, &s->acc, num_at(m, c, r, i), 1, err);
    case PM_AGG_BOOL_AND:
    case PM_AGG_BOOL_OR:
      if (valid) {
        num x = num_at(m, c, r, i);
        if (s->acc.is_null) s->acc = x;
        else s->acc.i = f == PM_AGG_BOOL_AND ? (s->acc.i && x.i) : (s->acc.i || x.i);
      }
      return 0;
    case PM_AGG_LISTAGG:
    case PM_AGG_RBM64:
    case PM_AGG_HLL_SKETCH:
    case PM_AGG_THETA_SKETCH: {
      const uint8_t *p;
      size_t n;
      if (!bytes_at(&m->layout->children[c], col, i, &p, &n)) return 0; /* agg(acc, null) = acc = agg(null, acc) */
      if (!s->has) { /* agg(null, x) = x; listagg: unless x is blank */
        if (f == PM_AGG_LISTAGG && !reversed) return listagg_add(&s->buf, &s->has, p, n, ",", 0, err);
        return st_set(m, c, o, r, i, err);
      }
      PM_TRY(reversed ? bytes_merge(m, c, f, p, n, s->buf.data, s->buf.len, err)
                      : bytes_merge(m, c, f, s->buf.data, s->buf.len, p, n, err));
      swap_buf(&s->buf, &m->sk);
      return 0;
    }
    case PM_AGG_RBM32: { /* OR: order-insensitive */
      const uint8_t *p;
      size_t n;
      if (!bytes_at(&m->layout->children[c], col, i, &p, &n)) return 0;
      roaring_bitmap_t *x;
      PM_TRY(rbm_from(p, n, &x, err));
      if (!s->rbm) {
        s->rbm = x;
      } else {
        roaring_bitmap_or_inplace(s->rbm, x);
        roaring_bitmap_free(x);
      }
      return 0;
    }
    case PM_AGG_COLLECT: /* FieldCollectAgg.aggReversed = agg */
    case PM_AGG_MERGE_MAP:
    case PM_AGG_MERGE_MAP_WITH_KEYTIME:
    case PM_AGG_NESTED_UPDATE:
    case PM_AGG_NESTED_PARTIAL_UPDATE: {
      nacc *in = &m->tmp[0], *res = &m->tmp[1];
      PM_TRY(list_of(m, c, r, i, in, err));
      if (reversed && f != PM_AGG_COLLECT) PM_TRY(list_agg(m, c, f, in, &s->list, res, err));
      else PM_TRY(list_agg(m, c, f, &s->list, in, res, err));
      swap_list(&s->list, res);
      return 0;
    }
    default: return pm_errorf(err, PAIMON_ERR_INTERNAL, "merge: column %d has no aggregate function", c);
  }
}

/* state := retract(state, input). */
static int st_retract(pm_merge_reader *m, int c, int64_t o, int32_t r, int64_t i, pm_error *err) {
  aggst *s = &m->st[c];
  pm_agg_func f = m->func[c];
  if (m->cfg->columns && m->cfg->columns[c].ignore_retract) return 0; /* FieldIgnoreRetractAgg */
  int unsupported = 0;
  switch (f) {
    case PM_AGG_SUM:
    case PM_AGG_PRODUCT: return num_combine(&m->layout->children[c], f, &s->acc, num_at(m, c, r, i), 0, err);
    case PM_AGG_LAST_VALUE: pick(m, c, o, -1, 0); return 0;
    case PM_AGG_LAST_NON_NULL_VALUE:
      if (col_valid(m, c, r, i)) pick(m, c, o, -1, 0);
      return 0;
    case PM_AGG_PRIMARY_KEY: pick(m, c, o, r, i); return 0;
    case PM_AGG_COLLECT:
    case PM_AGG_MERGE_MAP:
    case PM_AGG_NESTED_UPDATE: {
      nacc *in = &m->tmp[0], *res = &m->tmp[1];
      PM_TRY(list_of(m, c, r, i, in, err));
      PM_TRY(list_retract(m, c, f, &s->list, in, res, &unsupported, err));
      swap_list(&s->list, res);
      if (!unsupported) return 0;
      break;
    }
    default: break;
  }
  return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                   "Aggregate function '%s' does not support retraction (column %d); set "
                   "'fields.<field_name>.ignore-retract'='true' to ignore retraction messages",
                   func_name(f), c);
}

/* Emits column c's computed value for output row o. */
static int st_emit(pm_merge_reader *m, int c, int64_t o, pm_error *err) {
  aggst *s = &m->st[c];
  switch (func_rep(m->func[c])) {
    case REP_NUM: {
      patch p = {o, c, s->acc.is_null, s->acc.i, s->acc.d, s->acc.dec};
      return add_patch(m, &p, err);
    }
    case REP_BYTES: return add_bpatch(m, o, c, !s->has, s->buf.data, s->has ? s->buf.len : 0, err);
    case REP_RBM32: {
      if (!s->rbm) return add_bpatch(m, o, c, 1, NULL, 0, err);
      roaring_bitmap_run_optimize(s->rbm);
      size_t n = roaring_bitmap_portable_size_in_bytes(s->rbm);
      char *buf = malloc(n + 1);
      if (!buf) return PM_NOMEM(err);
      roaring_bitmap_portable_serialize(s->rbm, buf);
      int rc = add_bpatch(m, o, c, 0, buf, n, err);
      free(buf);
      return rc;
    }
    case REP_LIST: return add_lpatch(m, o, c, &s->list, err);
    default: return 0;
  }
}

/* Sets up the per-column function table, states and sequence-group maps. */
static int agg_setup(pm_merge_reader *m, pm_error *err) {
  const pm_merge_config *cfg = m->cfg;
  int n = m->n_cols;
  m->func = calloc((size_t)n + 1, sizeof *m->func);
  m->stride = calloc((size_t)n + 1, sizeof *m->stride);
  m->st = calloc((size_t)n + 1, sizeof *m->st);
  m->tmp = calloc(2, sizeof *m->tmp);
  m->kx = calloc(2, sizeof *m->kx);
  m->processed = calloc((size_t)n + 1, 1);
  m->group_of = calloc((size_t)n + 1, sizeof *m->group_of);
  m->is_order = calloc((size_t)n + 1, sizeof *m->is_order);
  if (!m->func || !m->stride || !m->st || !m->tmp || !m->kx || !m->processed || !m->group_of || !m->is_order)
    return PM_NOMEM(err);
  for (int c = 0; c < n; c++) {
    m->group_of[c] = -1;
    m->st[c].acc.is_null = 1;
  }
  for (int g = 0; g < cfg->n_seq_groups; g++) {
    const pm_seq_group *sg = &cfg->seq_groups[g];
    for (int j = 0; j < sg->n_order; j++) {
      if (sg->order_cols[j] < 0 || sg->order_cols[j] >= n)
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "merge: sequence group column out of range");
      m->group_of[sg->order_cols[j]] = g;
      m->is_order[sg->order_cols[j]] = 1;
    }
    for (int j = 0; j < sg->n_protected; j++) {
      if (sg->protected_cols[j] < 0 || sg->protected_cols[j] >= n)
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "merge: sequence group column out of range");
      m->group_of[sg->protected_cols[j]] = g;
    }
  }
  int agg = cfg->engine == PM_ENGINE_AGGREGATION;
  if (!agg) { /* PartialUpdateMergeFunction.Factory refuses these combinations */
    int rm_group = 0;
    for (int g = 0; g < cfg->n_seq_groups; g++) rm_group |= cfg->seq_groups[g].remove_on_delete;
    if (cfg->ignore_delete && (cfg->remove_record_on_delete || rm_group))
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                       "ignore-delete and partial-update.remove-record-on-%s have conflicting behavior",
                       cfg->remove_record_on_delete ? "delete" : "sequence-group");
    if (cfg->remove_record_on_delete && cfg->n_seq_groups > 0)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                       "sequence-group and partial-update.remove-record-on-delete have conflicting behavior");
  }
  for (int c = 0; c < n; c++) {
    m->stride[c] = 1;
    if (is_system_col(cfg, c) || (!agg && cfg->engine != PM_ENGINE_PARTIAL_UPDATE)) continue;
    pm_agg_func f = cfg->columns ? cfg->columns[c].agg : PM_AGG_NONE;
    const pm_type *t = &m->layout->children[c];
    if (agg) {
      if (is_seq_field_col(cfg, c)) f = PM_AGG_LAST_VALUE;
      if (f == PM_AGG_NONE) f = PM_AGG_LAST_NON_NULL_VALUE;
    } else {
      /* PartialUpdateMergeFunction.getAggFuncName: ordering columns never
       * aggregate; other functions than last_non_null_value need a sequence
       * group; without groups the aggregators are never called. */
      if (f == PM_AGG_PRIMARY_KEY || m->is_order[c] || cfg->n_seq_groups == 0) f = PM_AGG_NONE;
      if (f != PM_AGG_NONE && f != PM_AGG_LAST_NON_NULL_VALUE && m->group_of[c] < 0)
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                         "Must use sequence group for aggregation functions but not found for field %s",
                         t->name ? t->name : "?");
      if (f == PM_AGG_LAST_NON_NULL_VALUE && m->group_of[c] < 0) f = PM_AGG_NONE; /* same as the overlay */
    }
    m->func[c] = f;
    if (agg && cfg->remove_record_on_delete && cfg->columns && cfg->columns[c].ignore_retract)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                       "aggregation.remove-record-on-delete and fields.%s.ignore-retract have conflicting behavior",
                       t->name ? t->name : "?");
    int numeric = (t->id >= PM_T_INT8 && t->id <= PM_T_UINT64) || t->id == PM_T_FLOAT || t->id == PM_T_DOUBLE ||
                  t->id == PM_T_DECIMAL128;
    int binary = t->id == PM_T_BINARY || t->id == PM_T_LARGE_BINARY;
    int list = t->id == PM_T_LIST || t->id == PM_T_LARGE_LIST;
    const char *need = NULL;
    switch (f) {
      case PM_AGG_SUM:
      case PM_AGG_PRODUCT:
        if (!numeric) need = "a numeric";
        break;
      case PM_AGG_BOOL_AND:
      case PM_AGG_BOOL_OR:
        if (t->id != PM_T_BOOL) need = "a BOOLEAN";
        break;
      case PM_AGG_LISTAGG:
        if (t->id != PM_T_UTF8 && t->id != PM_T_LARGE_UTF8) need = "a STRING";
        break;
      case PM_AGG_COLLECT:
        if (!list) need = "an ARRAY";
        break;
      case PM_AGG_MERGE_MAP:
        if (t->id != PM_T_MAP) need = "a MAP";
        break;
      case PM_AGG_RBM32:
      case PM_AGG_RBM64:
      case PM_AGG_HLL_SKETCH:
      case PM_AGG_THETA_SKETCH:
        if (!binary) need = "a VARBINARY";
        break;
      case PM_AGG_NESTED_UPDATE:
      case PM_AGG_NESTED_PARTIAL_UPDATE: {
        if (!list || t->children[0].id != PM_T_STRUCT) {
          need = "an ARRAY<ROW>";
          break;
        }
        const pm_merge_column *mc = &cfg->columns[c];
        int nf = (int)t->children[0].n_children;
        if (mc->n_nested_keys > PM_MERGE_MAX_NESTED_FIELDS || mc->n_nested_seq > PM_MERGE_MAX_NESTED_FIELDS)
          return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "merge: too many nested key fields (column %d)", c);
        for (int k = 0; k < mc->n_nested_keys; k++)
          if (mc->nested_keys[k] < 0 || mc->nested_keys[k] >= nf)
            return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "merge: nested key field out of range (column %d)", c);
        for (int k = 0; k < mc->n_nested_seq; k++)
          if (mc->nested_seq[k] < 0 || mc->nested_seq[k] >= nf)
            return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                             "merge: nested sequence field out of range (column %d)", c);
        if (f == PM_AGG_NESTED_PARTIAL_UPDATE) {
          if (!mc->n_nested_keys)
            return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "nested_partial_update needs a nested-key (column %d)",
                             c);
          m->stride[c] = nf + 1;
        }
        break;
      }
      case PM_AGG_MERGE_MAP_WITH_KEYTIME: {
        if (t->id != PM_T_MAP || t->children[0].children[1].id != PM_T_STRUCT ||
            t->children[0].children[1].n_children < 2) {
          need = "a MAP<K, ROW<at least 2 fields>>";
          break;
        }
        const pm_type *vt = &t->children[0].children[1];
        int tf = cfg->columns[c].ts_field >= 0 ? cfg->columns[c].ts_field : (int)vt->n_children - 1;
        if (tf >= vt->n_children || (vt->children[tf].id != PM_T_UTF8 && vt->children[tf].id != PM_T_LARGE_UTF8))
          return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                           "merge_map_with_keytime: the timestamp field of column %d must be a STRING", c);
        break;
      }
      default: break;
    }
    if (need)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "aggregate function %s needs %s column (column %s)",
                       func_name(f), need, t->name ? t->name : "?");
  }
  return 0;
}

/* state := the record (r, i) for every value column (Java's initRow). */
static int set_all(pm_merge_reader *m, int64_t o, int32_t r, int64_t i, pm_error *err) {
  for (int c = 0; c < m->n_cols; c++) {
    if (is_system_col(m->cfg, c)) continue;
    if (m->func[c] != PM_AGG_NONE) PM_TRY(st_set(m, c, o, r, i, err));
    else pick(m, c, o, r, i);
  }
  return 0;
}

/* Input (r, i) ordering value of group g vs the state's (nulls first). */
static int group_cmp(const pm_merge_reader *m, const pm_seq_group *sg, int64_t o, int32_t r, int64_t i) {
  const struct ArrowArray *b = &m->runs[r].batch;
  for (int j = 0; j < sg->n_order; j++) {
    int col = sg->order_cols[j];
    int32_t sr = m->col_src[col][o];
    const struct ArrowArray *in = b->children[col];
    int vin = pm_array_is_valid(in, i);
    int vst = sr >= 0 && pm_array_is_valid(m->runs[sr].batch.children[col], m->col_row[col][o]);
    int cmp;
    if (!vin || !vst) cmp = vin - vst;
    else cmp = pm_compare_values(&m->layout->children[col], in, i, m->runs[sr].batch.children[col], m->col_row[col][o]);
    if (cmp) return cmp;
  }
  return 0;
}

/* isEmptySequenceGroup: all ordering columns of the group null in the input
 * (then they are marked processed). */
static int group_empty(pm_merge_reader *m, const pm_seq_group *sg, int32_t r, int64_t i) {
  const struct ArrowArray *b = &m->runs[r].batch;
  for (int j = 0; j < sg->n_order; j++)
    if (pm_array_is_valid(b->children[sg->order_cols[j]], i)) return 0;
  for (int j = 0; j < sg->n_order; j++) m->processed[sg->order_cols[j]] = 1;
  return 1;
}

/* PartialUpdateMergeFunction.updateWithSequenceGroup: an add record, columns in schema order. */
static int update_with_groups(pm_merge_reader *m, int64_t o, int32_t r, int64_t i, pm_error *err) {
  const pm_merge_config *cfg = m->cfg;
  const struct ArrowArray *b = &m->runs[r].batch;
  memset(m->processed, 0, (size_t)m->n_cols);
  for (int c = 0; c < m->n_cols; c++) {
    if (is_system_col(cfg, c)) continue;
    int g = m->group_of[c];
    pm_agg_func f = m->func[c];
    if (g < 0) {
      if (pm_array_is_valid(b->children[c], i)) pick(m, c, o, r, i);
      continue;
    }
    const pm_seq_group *sg = &cfg->seq_groups[g];
    if (m->processed[c] || group_empty(m, sg, r, i)) continue;
    if (group_cmp(m, sg, o, r, i) >= 0) {
      if (m->is_order[c]) { /* the group's ordering columns are updated at once */
        for (int j = 0; j < sg->n_order; j++) {
          pick(m, sg->order_cols[j], o, r, i);
          m->processed[sg->order_cols[j]] = 1;
        }
        continue;
      }
      if (f == PM_AGG_NONE) pick(m, c, o, r, i); /* the input value, even null */
      else PM_TRY(st_agg(m, c, o, r, i, 0, err));
    } else if (f != PM_AGG_NONE) {
      PM_TRY(st_agg(m, c, o, r, i, 1, err));
    }
  }
  return 0;
}

/* PartialUpdateMergeFunction.retractWithSequenceGroup. */
static int retract_with_groups(pm_merge_reader *m, int64_t o, int32_t r, int64_t i, int8_t kind, int *is_delete,
                               pm_error *err) {
  const pm_merge_config *cfg = m->cfg;
  memset(m->processed, 0, (size_t)m->n_cols);
  for (int c = 0; c < m->n_cols; c++) {
    int g = m->group_of[c];
    if (g < 0 || is_system_col(cfg, c)) continue;
    pm_agg_func f = m->func[c];
    const pm_seq_group *sg = &cfg->seq_groups[g];
    if (m->processed[c] || group_empty(m, sg, r, i)) continue;
    if (group_cmp(m, sg, o, r, i) >= 0) {
      if (m->is_order[c]) {
        if (kind == PM_ROWKIND_DELETE && sg->remove_on_delete) {
          *is_delete = 1;
          return set_all(m, o, r, i, err);
        }
        for (int j = 0; j < sg->n_order; j++) {
          pick(m, sg->order_cols[j], o, r, i);
          m->processed[sg->order_cols[j]] = 1;
        }
        continue;
      }
      if (f == PM_AGG_NONE) pick(m, c, o, -1, 0);
      else PM_TRY(st_retract(m, c, o, r, i, err));
    } else if (f != PM_AGG_NONE) {
      PM_TRY(st_retract(m, c, o, r, i, err));
    }
  }
  return 0;
}

/* Partial-update and aggregation merge of one key group (records sorted
 * oldest -> newest), as PartialUpdateMergeFunction / AggregateMergeFunction. */
static int merge_group_columns(pm_merge_reader *m, int g, pm_error *err) {
  const pm_merge_config *cfg = m->cfg;
  int32_t *gr = m->g_run;
  int64_t *gi = m->g_row;
  int agg = cfg->engine == PM_ENGINE_AGGREGATION;
  int groups = !agg && cfg->n_seq_groups > 0;
  int64_t o = m->n_out;
  for (int c = 0; c < m->n_cols; c++) {
    pick(m, c, o, -1, 0);
    st_reset(&m->st[c]);
  }
  int is_delete = 0, meet_insert = 0, filled = 0, last = -1, rc = 0;
  for (int w = 0; w < g && !rc; w++) {
    int32_t r = gr[w];
    int64_t i = gi[w];
    const struct ArrowArray *b = &m->runs[r].batch;
    int8_t k = kind_at(m, b, i);
    int retract = pm_rowkind_is_retract(k);
    is_delete = 0; /* currentDeleteRow is reset by every record */
    if (agg) {
      if (retract && cfg->ignore_delete) continue; /* files of old writers may hold them */
      last = w;
      if (cfg->remove_record_on_delete && k == PM_ROWKIND_DELETE) {
        is_delete = 1;
        rc = set_all(m, o, r, i, err);
        continue;
      }
      for (int c = 0; c < m->n_cols && !rc; c++)
        if (m->func[c] != PM_AGG_NONE) rc = retract ? st_retract(m, c, o, r, i, err) : st_agg(m, c, o, r, i, 0, err);
      continue;
    }
    if (retract) {
      if (!filled) { /* a first retract initialises the state with its values */
        rc = set_all(m, o, r, i, err);
        filled = 1;
      }
      if (cfg->ignore_delete) continue;
      last = w;
      if (groups) {
        if (!rc) rc = retract_with_groups(m, o, r, i, k, &is_delete, err);
        continue;
      }
      if (cfg->remove_record_on_delete) {
        if (k == PM_ROWKIND_DELETE && !rc) {
          is_delete = 1;
          rc = set_all(m, o, r, i, err);
        }
        continue;
      }
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                       "partial update can not accept delete records (set ignore-delete, "
                       "partial-update.remove-record-on-delete or sequence groups)");
    }
    last = w;
    if (groups) {
      rc = update_with_groups(m, o, r, i, err);
    } else {
      for (int c = 0; c < m->n_cols; c++)
        if (!is_system_col(cfg, c) && pm_array_is_valid(b->children[c], i)) pick(m, c, o, r, i);
    }
    meet_insert = 1;
    filled = 1;
  }
  if (rc) return rc;
  int8_t kind = agg ? (is_delete ? PM_ROWKIND_DELETE : PM_ROWKIND_INSERT)
                    : ((is_delete || !meet_insert) ? PM_ROWKIND_DELETE : PM_ROWKIND_INSERT);
  if (last < 0) { /* every record was skipped */
    kind = PM_ROWKIND_DELETE;
    last = g - 1;
  }
  if (pm_rowkind_is_retract(kind) && !cfg->keep_retracts) return 0;
  for (int c = 0; c < m->n_cols; c++) {
    if (is_system_col(cfg, c)) pick(m, c, o, gr[last], gi[last]);
    else if (m->func[c] != PM_AGG_NONE) PM_TRY(st_emit(m, c, o, err));
  }
  m->sel_src[o] = gr[last];
  m->sel_row[o] = gi[last];
  m->out_kind[o] = kind;
  m->n_out++;
  return 0;
}

/* Merges one key group of g records (already sorted oldest -> newest). */
static int merge_group(pm_merge_reader *m, int g, pm_error *err) {
  const pm_merge_config *cfg = m->cfg;
  int32_t *gr = m->g_run;
  int64_t *gi = m->g_row;
  int merge_single = cfg->lookup_merge && (cfg->engine == PM_ENGINE_PARTIAL_UPDATE || cfg->engine == PM_ENGINE_AGGREGATION);
  if (g == 1 && !merge_single) { /* single-record rule */
    prepare_run_cols(m, &m->runs[gr[0]]);
    int8_t k = m->runs[gr[0]].kind[gi[0]];
    if (!pm_rowkind_is_retract(k) || cfg->keep_retracts) emit_whole(m, gr[0], gi[0], k);
    return 0;
  }
  if (cfg->engine == PM_ENGINE_DEDUPLICATE && !cfg->ignore_delete && cfg->n_seq_fields == 0) {
    /* newest = highest sequence number, an add winning a tie with a retract */
    int w = 0;
    for (int a = 0; a < g; a++) prepare_run_cols(m, &m->runs[gr[a]]);
    int64_t ws = m->runs[gr[0]].seq[gi[0]];
    int wk = m->runs[gr[0]].kind[gi[0]];
    for (int a = 1; a < g; a++) {
      int64_t sq = m->runs[gr[a]].seq[gi[a]];
      int k = m->runs[gr[a]].kind[gi[a]];
      if (sq > ws || (sq == ws && pm_rowkind_is_retract(wk) && !pm_rowkind_is_retract(k))) {
        w = a;
        ws = sq;
        wk = k;
      }
    }
    if (!pm_rowkind_is_retract(wk) || cfg->keep_retracts) emit_whole(m, gr[w], gi[w], (int8_t)wk);
    return 0;
  }
  /* sort records oldest -> newest (insertion sort; groups are small) */
  for (int a = 1; a < g; a++) {
    int32_t r = gr[a];
    int64_t i = gi[a];
    int b = a - 1;
    while (b >= 0 && record_cmp(m, gr[b], gi[b], r, i) > 0) {
      gr[b + 1] = gr[b];
      gi[b + 1] = gi[b];
      b--;
    }
    gr[b + 1] = r;
    gi[b + 1] = i;
  }
  switch (cfg->engine) {
    case PM_ENGINE_DEDUPLICATE: {
      int w = g - 1;
      if (cfg->ignore_delete)
        while (w >= 0 && pm_rowkind_is_retract(kind_at(m, &m->runs[gr[w]].batch, gi[w]))) w--;
      if (w < 0) return 0;
      int8_t k = kind_at(m, &m->runs[gr[w]].batch, gi[w]);
      if (!pm_rowkind_is_retract(k) || cfg->keep_retracts) emit_whole(m, gr[w], gi[w], k);
      return 0;
    }
    case PM_ENGINE_FIRST_ROW: {
      if (!cfg->ignore_delete) /* Java checks every record it is given */
        for (int w = 0; w < g; w++)
          if (pm_rowkind_is_retract(kind_at(m, &m->runs[gr[w]].batch, gi[w])))
            return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                             "first-row merge engine received a retract record (set ignore-delete)");
      for (int w = 0; w < g; w++) {
        int8_t k = kind_at(m, &m->runs[gr[w]].batch, gi[w]);
        if (pm_rowkind_is_retract(k)) {
          if (!cfg->ignore_delete)
            return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                             "first-row merge engine received a retract record (set ignore-delete)");
          continue;
        }
        emit_whole(m, gr[w], gi[w], k);
        return 0;
      }
      return 0;
    }
    case PM_ENGINE_PARTIAL_UPDATE:
    case PM_ENGINE_AGGREGATION: break;
  }
  if (cfg->level_col >= 0) {
    /* lookup rule: keep level-0 records and only the newest level > 0 record */
    int kept = 0, seen_high = 0;
    for (int a = g - 1; a >= 0; a--) {
      const struct ArrowArray *lv = m->runs[gr[a]].batch.children[cfg->level_col];
      int32_t level = ((const int32_t *)lv->buffers[1])[lv->offset + gi[a]];
      if (level > 0) {
        if (seen_high) continue;
        seen_high = 1;
      }
      gr[g - 1 - kept] = gr[a];
      gi[g - 1 - kept] = gi[a];
      kept++;
    }
    if (kept < g) {
      memmove(gr, gr + (g - kept), (size_t)kept * sizeof *gr);
      memmove(gi, gi + (g - kept), (size_t)kept * sizeof *gi);
      g = kept;
    }
  }
  return merge_group_columns(m, g, err);
}

static void apply_patch(struct ArrowArray *a, const pm_type *t, const patch *p) {
  uint8_t *valid = (uint8_t *)a->buffers[0];
  int64_t j = a->offset + p->row;
  if (p->is_null) {
    if (pm_array_is_valid(a, p->row)) a->null_count++;
    pm_bit_clear(valid, j);
    return;
  }
  if (!pm_array_is_valid(a, p->row)) a->null_count--;
  pm_bit_set(valid, j);
  void *d = (void *)a->buffers[1];
  switch (t->id) {
    case PM_T_BOOL:
      if (p->i) pm_bit_set(d, j);
      else pm_bit_clear(d, j);
      break;
    case PM_T_INT8:
    case PM_T_UINT8: ((int8_t *)d)[j] = (int8_t)p->i; break;
    case PM_T_INT16:
    case PM_T_UINT16: ((int16_t *)d)[j] = (int16_t)p->i; break;
    case PM_T_INT32:
    case PM_T_UINT32: ((int32_t *)d)[j] = (int32_t)p->i; break;
    case PM_T_INT64:
    case PM_T_UINT64: ((int64_t *)d)[j] = p->i; break;
    case PM_T_FLOAT: ((float *)d)[j] = (float)p->d; break;
    case PM_T_DOUBLE: ((double *)d)[j] = p->d; break;
    case PM_T_DECIMAL128: memcpy((uint8_t *)d + 16 * j, &p->dec, 16); break;
    default: break;
  }
}

/* A column mixing gathered values and computed ones (listagg, rbm32). */
static int build_with_bpatches(pm_merge_reader *m, int c, const int32_t *src, const int64_t *rows, int64_t n,
                               struct ArrowArray *out, pm_error *err) {
  const pm_type *t = &m->layout->children[c];
  pm_builder *b;
  PM_TRY(pm_builder_new(t, &b, err));
  int rc = pm_builder_reserve(b, n, err);
  size_t p = 0;
  for (int64_t i = 0; i < n && !rc; i++) {
    while (p < m->n_bpatches && (m->bpatches[p].col != c || m->bpatches[p].row < i)) p++;
    if (p < m->n_bpatches && m->bpatches[p].row == i && m->bpatches[p].col == c) {
      const bpatch *bp = &m->bpatches[p];
      rc = bp->is_null ? pm_builder_append_null(b, err)
                       : pm_builder_append_bytes(b, m->bdata.data ? m->bdata.data + bp->off : (const uint8_t *)"",
                                                 bp->len, err);
    } else {
      rc = src[i] < 0 ? pm_builder_append_null(b, err) : pm_builder_append_from(b, t, m->srcs[src[i]], rows[i], err);
    }
  }
  if (!rc) rc = pm_builder_finish(b, out, err);
  pm_builder_free(b);
  return rc;
}

/* A column mixing gathered values and computed arrays / maps (collect, merge_map). */
static int build_with_lpatches(pm_merge_reader *m, int c, const int32_t *src, const int64_t *rows, int64_t n,
                               struct ArrowArray *out, pm_error *err) {
  const pm_type *t = &m->layout->children[c];
  pm_builder *b;
  PM_TRY(pm_builder_new(t, &b, err));
  pm_builder *child = pm_builder_child(b, 0);
  const pm_type *ct = &t->children[0];
  int rc = pm_builder_reserve(b, n, err);
  size_t p = 0;
  for (int64_t i = 0; i < n && !rc; i++) {
    while (p < m->n_lpatches && (m->lpatches[p].col != c || m->lpatches[p].row < i)) p++;
    if (p < m->n_lpatches && m->lpatches[p].row == i && m->lpatches[p].col == c) {
      const lpatch *lp = &m->lpatches[p];
      if (lp->is_null) {
        rc = pm_builder_append_null(b, err);
        continue;
      }
      size_t stride = (size_t)m->stride[c];
      for (size_t k = 0; k + stride <= lp->n && !rc; k += stride) {
        const eref *e = &m->erefs[lp->start + k];
        if (stride == 1) {
          const struct ArrowArray *items = m->runs[e->run].batch.children[c]->children[0];
          rc = pm_builder_append_from(child, ct, items, e->idx, err);
          continue;
        }
        /* composite row: each field from the element it was last set by */
        if (e->run < 0) {
          rc = pm_builder_append_null(child, err);
          continue;
        }
        for (size_t f = 0; f + 1 < stride && !rc; f++) {
          const eref *fe = &e[1 + f];
          pm_builder *fb = pm_builder_child(child, (int64_t)f);
          if (fe->run < 0) {
            rc = pm_builder_append_null(fb, err);
          } else {
            const struct ArrowArray *rows_arr = m->runs[fe->run].batch.children[c]->children[0];
            rc = pm_builder_append_from(fb, &ct->children[f], rows_arr->children[f], rows_arr->offset + fe->idx, err);
          }
        }
        if (!rc) rc = pm_builder_append_valid(child, err);
      }
      if (!rc) rc = pm_builder_append_valid(b, err);
    } else {
      rc = src[i] < 0 ? pm_builder_append_null(b, err) : pm_builder_append_from(b, t, m->srcs[src[i]], rows[i], err);
    }
  }
  if (!rc) rc = pm_builder_finish(b, out, err);
  pm_builder_free(b);
  return rc;
}

/* Builds the output batch from the selections. */
static int build_output(pm_merge_reader *m, struct ArrowArray *out, pm_error *err) {
  int64_t n = m->n_out;
  PM_TRY(pm_array_init(out, n, 1, m->n_cols, err));
  for (int c = 0; c < m->n_cols; c++) {
    const int32_t *s = m->per_column ? m->col_src[c] : m->sel_src;
    const int64_t *r = m->per_column ? m->col_row[c] : m->sel_row;
    for (int i = 0; i < m->n_runs; i++)
      m->srcs[i] = m->runs[i].batch.release ? m->runs[i].batch.children[c] : NULL;
    int has_b = 0;
    for (size_t p = 0; p < m->n_bpatches && !has_b; p++) has_b = m->bpatches[p].col == c;
    int has_l = 0;
    for (size_t p = 0; p < m->n_lpatches && !has_l; p++) has_l = m->lpatches[p].col == c;
    int rc = has_b   ? build_with_bpatches(m, c, s, r, n, out->children[c], err)
             : has_l ? build_with_lpatches(m, c, s, r, n, out->children[c], err)
                     : pm_gather(&m->layout->children[c], m->srcs, s, r, n, out->children[c], err);
    if (rc) {
      pm_array_release(out);
      return rc;
    }
  }
  /* row kinds */
  struct ArrowArray *k = out->children[m->cfg->kind_col];
  int8_t *kd = (int8_t *)k->buffers[1];
  for (int64_t i = 0; i < n; i++) kd[k->offset + i] = m->out_kind[i];
  for (size_t p = 0; p < m->n_patches; p++)
    apply_patch(out->children[m->patches[p].col], &m->layout->children[m->patches[p].col], &m->patches[p]);
  m->n_patches = 0;
  m->n_bpatches = 0;
  m->bdata.len = 0;
  m->n_lpatches = 0;
  m->n_erefs = 0;
  m->n_out = 0;
  return 0;
}

/* Loads the next non-empty batch of run r (or marks it done). */
static int run_advance(run_state *r, pm_error *err) {
  while (!r->done && (!r->batch.release || r->cursor >= r->batch.length)) {
    pm_array_release(&r->batch);
    r->fk = NULL;
    r->fk_ok = 0;
    r->seq = NULL;
    r->kind = NULL;
    r->cursor = 0;
    int rc = r->src.next(r->src.ctx, &r->batch, err);
    if (rc) return rc;
    if (!r->batch.release) r->done = 1;
  }
  return 0;
}

/* Fast path for the common single integer key: the key column as int64. */
static int prepare_fast_keys(const pm_merge_reader *m, run_state *r, pm_error *err) {
  if (r->fk || !r->batch.release) return 0;
  r->fk_ok = 0;
  if (m->cfg->n_keys != 1) return 0;
  int col = m->cfg->key_cols[0];
  const pm_type *t = &m->layout->children[col];
  const struct ArrowArray *a = r->batch.children[col];
  if (a->null_count != 0 && a->n_buffers > 0 && a->buffers[0]) return 0;
  int64_t n = a->length, off = a->offset;
  switch (t->id) {
    case PM_T_INT64:
    case PM_T_DATE64:
    case PM_T_TIME64:
    case PM_T_TIMESTAMP:
      r->fk = (const int64_t *)a->buffers[1] + off;
      r->fk_ok = 1;
      return 0;
    case PM_T_INT8:
    case PM_T_INT16:
    case PM_T_INT32:
    case PM_T_DATE32:
    case PM_T_TIME32: {
      int64_t *k = realloc(r->fk_owned, (size_t)n * sizeof *k + 8);
      if (!k) return PM_NOMEM(err);
      r->fk_owned = k;
      if (t->id == PM_T_INT8)
        for (int64_t i = 0; i < n; i++) k[i] = ((const int8_t *)a->buffers[1])[off + i];
      else if (t->id == PM_T_INT16)
        for (int64_t i = 0; i < n; i++) k[i] = ((const int16_t *)a->buffers[1])[off + i];
      else
        for (int64_t i = 0; i < n; i++) k[i] = ((const int32_t *)a->buffers[1])[off + i];
      r->fk = k;
      r->fk_ok = 1;
      return 0;
    }
    default: return 0;
  }
}

/* One round of the k-way merge with int64 keys. */
static int merge_round_fast(pm_merge_reader *m, pm_error *err) {
  run_state *runs = m->runs;
  int nr = m->n_runs;
  for (;;) {
    int best = -1, n_live = 0;
    int64_t bk = 0, sk = INT64_MAX; /* best and second-best head keys */
    for (int i = 0; i < nr; i++) {
      run_state *r = &runs[i];
      if (r->cursor >= r->end) continue;
      n_live++;
      int64_t k = r->fk[r->cursor];
      if (best < 0 || k < bk) {
        if (best >= 0) sk = bk;
        best = i;
        bk = k;
      } else if (k < sk) {
        sk = k;
      }
    }
    if (!n_live) return 0;
    if (n_live == 1 || bk < sk) {
      /* the best run's rows below every other head are single-record keys */
      run_state *r = &runs[best];
      int64_t e = r->cursor + 1;
      while (e < r->end && r->fk[e] < sk) e++;
      for (int64_t i = r->cursor; i < e; i++) {
        m->g_run[0] = best;
        m->g_row[0] = i;
        PM_TRY(merge_group(m, 1, err));
      }
      r->cursor = e;
      continue;
    }
    int g = 0;
    for (int i = 0; i < nr; i++) {
      run_state *r = &runs[i];
      if (r->cursor < r->end && r->fk[r->cursor] == bk) {
        m->g_run[g] = i;
        m->g_row[g] = r->cursor++;
        g++;
      }
    }
    PM_TRY(merge_group(m, g, err));
  }
}

int pm_merge_next(pm_merge_reader *m, struct ArrowArray *out, pm_error *err) {
  memset(out, 0, sizeof *out);
  const pm_merge_config *cfg = m->cfg;
  for (;;) {
    int active = 0, rb = -1;
    for (int i = 0; i < m->n_runs; i++) {
      PM_TRY(run_advance(&m->runs[i], err));
      if (m->runs[i].done) continue;
      active++;
      run_state *r = &m->runs[i];
      if (rb < 0 || key_cmp(m, &r->batch, r->batch.length - 1, &m->runs[rb].batch,
                            m->runs[rb].batch.length - 1) < 0)
        rb = i;
    }
    if (!active) return 0;
    /* Rows with key <= bound (the smallest last key of the current batches)
     * are complete in every run: each run holds a key at most once. */
    const struct ArrowArray *bb = &m->runs[rb].batch;
    int64_t bi = bb->length - 1;
    int64_t total = 0;
    for (int i = 0; i < m->n_runs; i++) {
      run_state *r = &m->runs[i];
      if (r->done) {
        r->end = r->cursor;
        continue;
      }
      if (i == rb) {
        r->end = r->batch.length;
      } else {
        int64_t lo = r->cursor, hi = r->batch.length; /* first row with key > bound */
        while (lo < hi) {
          int64_t mid = lo + (hi - lo) / 2;
          if (key_cmp(m, &r->batch, mid, bb, bi) <= 0) lo = mid + 1;
          else hi = mid;
        }
        r->end = lo;
      }
      total += r->end - r->cursor;
    }
    PM_TRY(ensure_out_cap(m, total + 1, err));
    int fast = 1;
    for (int i = 0; i < m->n_runs && fast; i++) {
      if (m->runs[i].done) continue;
      PM_TRY(prepare_fast_keys(m, &m->runs[i], err));
      fast = m->runs[i].fk_ok;
    }
    if (fast) {
      PM_TRY(merge_round_fast(m, err));
      if (m->n_out > 0) return build_output(m, out, err);
      continue;
    }
    /* k-way merge of the ranges */
    for (;;) {
      int g = 0, single = -1, n_live = 0;
      for (int i = 0; i < m->n_runs; i++)
        if (m->runs[i].cursor < m->runs[i].end) {
          n_live++;
          single = i;
        }
      if (!n_live) break;
      if (n_live == 1) { /* only one run left in range: every row is its own key */
        run_state *r = &m->runs[single];
        for (int64_t i = r->cursor; i < r->end; i++) {
          m->g_run[0] = single;
          m->g_row[0] = i;
          PM_TRY(merge_group(m, 1, err));
        }
        r->cursor = r->end;
        break;
      }
      int best = -1;
      for (int i = 0; i < m->n_runs; i++) {
        run_state *r = &m->runs[i];
        if (r->cursor >= r->end) continue;
        if (best < 0) {
          best = i;
          continue;
        }
        int c = key_cmp(m, &r->batch, r->cursor, &m->runs[best].batch, m->runs[best].cursor);
        if (c < 0) best = i;
      }
      for (int i = 0; i < m->n_runs; i++) {
        run_state *r = &m->runs[i];
        if (r->cursor >= r->end) continue;
        if (i == best || key_cmp(m, &r->batch, r->cursor, &m->runs[best].batch, m->runs[best].cursor) == 0) {
          m->g_run[g] = i;
          m->g_row[g] = r->cursor;
          g++;
        }
      }
      for (int k = 0; k < g; k++) m->runs[m->g_run[k]].cursor++;
      PM_TRY(merge_group(m, g, err));
    }
    (void)cfg;
    if (m->n_out > 0) return build_output(m, out, err);
  }
}

/* ======================================================================
 * Merging one key-sorted batch (the write buffer's flush)
 * ====================================================================== */

static void borrowed_release(struct ArrowArray *a) { a->release = NULL; }

/* Records in key order given as (batch, row) pairs over borrowed batches
 * (src/row NULL: batch 0's rows in order); keys: the single integer key per
 * position (or NULL: key comparison). */
static int merge_sorted(const pm_merge_config *cfg, const struct ArrowArray *const *batches, int n_batches,
                        const int32_t *src, const int64_t *row, const int64_t *keys, int64_t n, struct ArrowArray *out,
                        pm_error *err) {
  memset(out, 0, sizeof *out);
  pm_merge_source *none = calloc((size_t)n_batches + 1, sizeof *none);
  if (!none) return PM_NOMEM(err);
  pm_merge_reader *m;
  int rc = pm_merge_open(cfg, none, n_batches, &m, err);
  free(none);
  if (rc) return rc;
  for (int b = 0; b < n_batches; b++) {
    run_state *r = &m->runs[b];
    if (!batches[b]->release) continue; /* an unused batch slot */
    r->batch = *batches[b]; /* borrowed: released as a no-op */
    r->batch.release = borrowed_release;
    r->batch.private_data = NULL;
  }
  int64_t max_g = n_batches;
  rc = ensure_out_cap(m, n + 1, err);
  const int64_t *fk = keys;
  if (!rc && !src && !fk) {
    rc = prepare_fast_keys(m, &m->runs[0], err);
    if (m->runs[0].fk_ok) fk = m->runs[0].fk;
  }
#define SRC_OF(i) (src ? src[i] : 0)
#define ROW_OF(i) (row ? row[i] : (i))
  for (int64_t i = 0; !rc && i < n;) {
    int64_t e = i + 1;
    if (fk)
      while (e < n && fk[e] == fk[i]) e++;
    else
      while (e < n && key_cmp(m, &m->runs[SRC_OF(i)].batch, ROW_OF(i), &m->runs[SRC_OF(e)].batch, ROW_OF(e)) == 0)
        e++;
    int64_t g = e - i;
    if (g > INT32_MAX / 2) {
      rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "merge: %lld records of one key", (long long)g);
      break;
    }
    if (g > max_g) {
      int32_t *gr = realloc(m->g_run, (size_t)g * sizeof *gr);
      if (gr) m->g_run = gr;
      int64_t *gi = gr ? realloc(m->g_row, (size_t)g * sizeof *gi) : NULL;
      if (gi) m->g_row = gi;
      if (!gr || !gi) {
        rc = PM_NOMEM(err);
        break;
      }
      max_g = g;
    }
    for (int64_t k = 0; k < g; k++) {
      m->g_run[k] = SRC_OF(i + k);
      m->g_row[k] = ROW_OF(i + k);
    }
    rc = merge_group(m, (int)g, err);
    i = e;
  }
#undef SRC_OF
#undef ROW_OF
  if (!rc) rc = build_output(m, out, err);
  pm_merge_close(m);
  return rc;
}

int pm_merge_sorted_batch(const pm_merge_config *cfg, const struct ArrowArray *in, struct ArrowArray *out,
                          pm_error *err) {
  return merge_sorted(cfg, &in, 1, NULL, NULL, NULL, in->length, out, err);
}

int pm_merge_sorted_rows(const pm_merge_config *cfg, const struct ArrowArray *const *batches, int n_batches,
                         const int32_t *src, const int64_t *row, const int64_t *keys, int64_t n,
                         struct ArrowArray *out, pm_error *err) {
  return merge_sorted(cfg, batches, n_batches, src, row, keys, n, out, err);
}

int pm_gather_batch(const pm_type *layout, const struct ArrowArray *const *batches, int n_batches, const int32_t *src,
                    const int64_t *rows, int64_t n, struct ArrowArray *out, pm_error *err) {
  memset(out, 0, sizeof *out);
  struct ArrowArray **cols = calloc((size_t)n_batches + 1, sizeof *cols);
  if (!cols) return PM_NOMEM(err);
  int rc = pm_array_init(out, n, 1, layout->n_children, err);
  for (int64_t c = 0; !rc && c < layout->n_children; c++) {
    for (int b = 0; b < n_batches; b++) cols[b] = batches[b]->release ? batches[b]->children[c] : NULL;
    rc = pm_gather(&layout->children[c], cols, src, rows, n, out->children[c], err);
  }
  free(cols);
  if (rc && out->release) pm_array_release(out);
  return rc;
}
