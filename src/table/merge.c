#include "table/merge.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ctype.h>
#include <roaring/roaring.h>

#include "arrow/builder.h"
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
               {"collect", PM_AGG_COLLECT},
               {"merge_map", PM_AGG_MERGE_MAP},
               {"primary-key", PM_AGG_PRIMARY_KEY}};
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (!strcmp(s, known[i].name)) {
      *out = known[i].f;
      return 0;
    }
  static const char *unimplemented[] = {"merge_map_with_keytime",
                                        "nested_update", "nested_partial_update",
                                        "rbm64",        "hll_sketch",  "theta_sketch", "count"};
  for (size_t i = 0; i < sizeof unimplemented / sizeof unimplemented[0]; i++)
    if (!strcmp(s, unimplemented[i]))
      return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "aggregate function \"%s\" is not supported yet", s);
  return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "unknown aggregate function \"%s\"", s);
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
static int is_flat_type(const pm_type *t) { return is_flat(t); }
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
};

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
  if (cfg->engine == PM_ENGINE_AGGREGATION && cfg->columns) {
    for (int c = 0; c < m->n_cols; c++) {
      pm_agg_func f = cfg->columns[c].agg;
      const pm_type *t = &m->layout->children[c];
      int numeric = (t->id >= PM_T_INT8 && t->id <= PM_T_UINT64) || t->id == PM_T_FLOAT || t->id == PM_T_DOUBLE ||
                    t->id == PM_T_DECIMAL128;
      if ((f == PM_AGG_SUM || f == PM_AGG_PRODUCT) && !numeric) {
        pm_merge_close(m);
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "aggregate function sum/product needs a numeric column");
      }
      if ((f == PM_AGG_BOOL_AND || f == PM_AGG_BOOL_OR) && t->id != PM_T_BOOL) {
        pm_merge_close(m);
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "aggregate function bool_and/bool_or needs a BOOLEAN column");
      }
      if (f == PM_AGG_LISTAGG && t->id != PM_T_UTF8 && t->id != PM_T_LARGE_UTF8) {
        pm_merge_close(m);
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "aggregate function listagg needs a STRING column");
      }
      if (f == PM_AGG_COLLECT && t->id != PM_T_LIST && t->id != PM_T_LARGE_LIST) {
        pm_merge_close(m);
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "aggregate function collect needs an ARRAY column");
      }
      if (f == PM_AGG_MERGE_MAP && t->id != PM_T_MAP) {
        pm_merge_close(m);
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "aggregate function merge_map needs a MAP column");
      }
      if (f == PM_AGG_RBM32 && t->id != PM_T_BINARY && t->id != PM_T_LARGE_BINARY) {
        pm_merge_close(m);
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "aggregate function rbm32 needs a VARBINARY column");
      }
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
    if (!isspace(p[i])) return 0;
  return 1;
}

/* listagg: acc (pm_buf, has = non-null) combined with input. */
static int listagg_add(pm_buf *acc, int *has, const uint8_t *p, size_t n, const char *delim, int distinct,
                       pm_error *err) {
  if (is_blank(p, n)) {
    if (!*has) { /* Java keeps a blank input only when the accumulator is null */
      acc->len = 0;
      if (n && pm_buf_append(acc, p, n)) return PM_NOMEM(err);
      *has = 1;
    }
    return 0;
  }
  if (!*has || is_blank(acc->data, acc->len)) {
    acc->len = 0;
    if (pm_buf_append(acc, p, n)) return PM_NOMEM(err);
    *has = 1;
    return 0;
  }
  size_t dl = strlen(delim);
  if (!distinct) {
    if (pm_buf_append(acc, delim, dl) || pm_buf_append(acc, p, n)) return PM_NOMEM(err);
    return 0;
  }
  /* append each input token not yet present in the accumulator */
  size_t s = 0;
  while (s <= n) {
    size_t e = s;
    while (e < n && !(dl && e + dl <= n && !memcmp(p + e, delim, dl))) e++;
    const uint8_t *tok = p + s;
    size_t tl = e - s;
    int present = 0;
    size_t a = 0;
    while (a <= acc->len && !present) {
      size_t b = a;
      while (b < acc->len && !(dl && b + dl <= acc->len && !memcmp(acc->data + b, delim, dl))) b++;
      present = b - a == tl && !memcmp(acc->data + a, tok, tl);
      a = b + (dl ? dl : 1);
      if (b >= acc->len) break;
    }
    if (!present && tl && (pm_buf_append(acc, delim, dl) || pm_buf_append(acc, tok, tl))) return PM_NOMEM(err);
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

/* Nested accumulator of one column: a growable list of element references. */
typedef struct nacc {
  eref *v;
  size_t n, cap;
  int has; /* non-null */
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

/* The array whose items an eref of column c indexes: list element array, or map entries key array. */
static const struct ArrowArray *elem_array(const pm_merge_reader *m, int c, int32_t run, int is_map) {
  const struct ArrowArray *l = m->runs[run].batch.children[c];
  return is_map ? l->children[0]->children[0] : l->children[0];
}

static int elem_equal(const pm_merge_reader *m, const pm_type *et, int c, int is_map, const eref *x, const eref *y) {
  const struct ArrowArray *a = elem_array(m, c, x->run, is_map), *b = elem_array(m, c, y->run, is_map);
  int64_t xi = x->idx, yi = y->idx;
  if (is_map) { /* map keys live in the entries struct: apply its offset */
    xi += m->runs[x->run].batch.children[c]->children[0]->offset;
    yi += m->runs[y->run].batch.children[c]->children[0]->offset;
  }
  int va = pm_array_is_valid(a, xi), vb = pm_array_is_valid(b, yi);
  if (!va || !vb) return va == vb;
  return pm_compare_values(et, a, xi, b, yi) == 0;
}

/* collect / merge_map: agg (add=1) or retract (add=0) of list/map value (r, i) of column c. */
static int nested_combine(pm_merge_reader *m, int c, int is_map, int distinct, nacc *acc, int32_t r, int64_t i, int add,
                          pm_error *err) {
  const pm_type *t = &m->layout->children[c];
  const struct ArrowArray *col = m->runs[r].batch.children[c];
  if (!pm_array_is_valid(col, i)) return 0;
  const pm_type *et = is_map ? &t->children[0].children[0] : &t->children[0];
  if (!is_flat_type(et))
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "collect/merge_map over nested element or key types");
  int64_t b, e;
  list_range(t->id == PM_T_MAP ? t : t, col, i, &b, &e);
  if (add) acc->has = 1;
  for (int64_t k = b; k < e; k++) {
    eref x = {r, k};
    if (add) {
      size_t hit = acc->n;
      if (is_map || distinct)
        for (size_t q = 0; q < acc->n && hit == acc->n; q++)
          if (elem_equal(m, et, c, is_map, &acc->v[q], &x)) hit = q;
      if (hit < acc->n) {
        if (is_map) acc->v[hit] = x; /* input wins on key clash */
        continue;
      }
      PM_TRY(nacc_push(acc, r, k, err));
    } else {
      for (size_t q = 0; q < acc->n; q++)
        if (elem_equal(m, et, c, is_map, &acc->v[q], &x)) {
          memmove(&acc->v[q], &acc->v[q + 1], (acc->n - q - 1) * sizeof *acc->v);
          acc->n--;
          break; /* one occurrence (a map key appears once) */
        }
    }
  }
  return 0;
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

static int col_in_group(const pm_merge_config *cfg, int c) {
  for (int k = 0; k < cfg->n_seq_groups; k++) {
    const pm_seq_group *sg = &cfg->seq_groups[k];
    for (int j = 0; j < sg->n_order; j++)
      if (sg->order_cols[j] == c) return 1;
    for (int j = 0; j < sg->n_protected; j++)
      if (sg->protected_cols[j] == c) return 1;
  }
  return 0;
}

/* Partial update with sequence groups (records sorted oldest -> newest). The
 * state is kept as per-column picks of the output row being built. */
static int merge_group_seq_groups(pm_merge_reader *m, int g, pm_error *err) {
  const pm_merge_config *cfg = m->cfg;
  int32_t *gr = m->g_run;
  int64_t *gi = m->g_row;
  int64_t o = m->n_out;
  for (int c = 0; c < m->n_cols; c++) m->col_src[c][o] = -1;
  int is_delete = 0, seen_add = 0, last = -1;
  for (int w = 0; w < g; w++) {
    int32_t r = gr[w];
    int64_t i = gi[w];
    const struct ArrowArray *b = &m->runs[r].batch;
    int8_t k = kind_at(m, b, i);
    int retract = pm_rowkind_is_retract(k);
    if (retract && cfg->ignore_delete) continue;
    last = w;
    if (!retract) {
      seen_add = 1;
      is_delete = 0;
    }
    int replaced = 0;
    for (int q = 0; q < cfg->n_seq_groups && !replaced; q++) {
      const pm_seq_group *sg = &cfg->seq_groups[q];
      int all_null = 1;
      for (int j = 0; j < sg->n_order; j++) all_null &= !pm_array_is_valid(b->children[sg->order_cols[j]], i);
      if (all_null) continue;
      /* input ordering value vs state (nulls first; an unset state is all-null) */
      int cmp = 0;
      for (int j = 0; j < sg->n_order && !cmp; j++) {
        int col = sg->order_cols[j];
        int32_t sr = m->col_src[col][o];
        const struct ArrowArray *in = b->children[col];
        int vin = pm_array_is_valid(in, i);
        int vst = sr >= 0 && pm_array_is_valid(m->runs[sr].batch.children[col], m->col_row[col][o]);
        if (!vin || !vst) cmp = vin - vst;
        else cmp = pm_compare_values(&m->layout->children[col], in, i, m->runs[sr].batch.children[col], m->col_row[col][o]);
      }
      if (cmp < 0) continue; /* older: unchanged (no aggregators supported in groups) */
      if (retract && k == PM_ROWKIND_DELETE && sg->remove_on_delete) {
        for (int c = 0; c < m->n_cols; c++) {
          m->col_src[c][o] = r;
          m->col_row[c][o] = i;
        }
        is_delete = 1;
        replaced = 1;
        break;
      }
      for (int j = 0; j < sg->n_order; j++) {
        m->col_src[sg->order_cols[j]][o] = r;
        m->col_row[sg->order_cols[j]][o] = i;
      }
      for (int j = 0; j < sg->n_protected; j++) {
        int col = sg->protected_cols[j];
        m->col_src[col][o] = retract ? -1 : r; /* input value even when null; a retract nulls it */
        m->col_row[col][o] = i;
      }
    }
    if (replaced || retract) continue;
    for (int c = 0; c < m->n_cols; c++) {
      if (is_system_col(cfg, c) || col_in_group(cfg, c)) continue;
      if (pm_array_is_valid(b->children[c], i)) {
        m->col_src[c][o] = r;
        m->col_row[c][o] = i;
      }
    }
  }
  if (last < 0) return 0;
  for (int c = 0; c < m->n_cols; c++)
    if (is_system_col(cfg, c)) {
      m->col_src[c][o] = gr[last];
      m->col_row[c][o] = gi[last];
    }
  int8_t kind = (is_delete || !seen_add) ? PM_ROWKIND_DELETE : PM_ROWKIND_INSERT;
  if (pm_rowkind_is_retract(kind) && !cfg->keep_retracts) return 0;
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
  if (g == 1) { /* single-record rule */
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
  if (cfg->engine == PM_ENGINE_PARTIAL_UPDATE && cfg->n_seq_groups > 0) return merge_group_seq_groups(m, g, err);
  /* Per-column merge. State starts all-null; walk records in order. */
  int agg = cfg->engine == PM_ENGINE_AGGREGATION;
  int64_t o = m->n_out;
  for (int c = 0; c < m->n_cols; c++) {
    m->col_src[c][o] = -1;
    m->col_row[c][o] = 0;
  }
  int is_delete = 0, seen_add = 0, last = -1;
  /* Find the starting record: a -D under remove-record-on-delete resets the state. */
  int start = 0;
  for (int w = 0; w < g; w++) {
    int8_t k = kind_at(m, &m->runs[gr[w]].batch, gi[w]);
    if (!pm_rowkind_is_retract(k)) continue;
    if (cfg->ignore_delete) continue;
    if (cfg->remove_record_on_delete) {
      if (k == PM_ROWKIND_DELETE) start = w;
      continue;
    }
    if (!agg)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                       "partial update can not accept delete records (set ignore-delete or "
                       "partial-update.remove-record-on-delete)");
  }
  num *acc = NULL;
  pm_buf *lacc = NULL;          /* listagg accumulators */
  int *lhas = NULL;
  roaring_bitmap_t **rbm = NULL; /* rbm32 accumulators */
  nacc *nac = NULL;              /* collect / merge_map accumulators */
  if (agg) {
    acc = calloc((size_t)m->n_cols + 1, sizeof *acc);
    if (!acc) return PM_NOMEM(err);
    for (int c = 0; c < m->n_cols; c++) acc[c].is_null = 1;
    int need_var = 0;
    for (int c = 0; cfg->columns && c < m->n_cols; c++)
      need_var |= cfg->columns[c].agg == PM_AGG_LISTAGG || cfg->columns[c].agg == PM_AGG_RBM32 ||
                  cfg->columns[c].agg == PM_AGG_COLLECT || cfg->columns[c].agg == PM_AGG_MERGE_MAP;
    if (need_var) {
      lacc = calloc((size_t)m->n_cols + 1, sizeof *lacc);
      lhas = calloc((size_t)m->n_cols + 1, sizeof *lhas);
      rbm = calloc((size_t)m->n_cols + 1, sizeof *rbm);
      nac = calloc((size_t)m->n_cols + 1, sizeof *nac);
      if (!lacc || !lhas || !rbm || !nac) {
        free(acc);
        free(lacc);
        free(lhas);
        free(rbm);
        free(nac);
        return PM_NOMEM(err);
      }
    }
  }
  int rc = 0;
  for (int w = start; w < g && !rc; w++) {
    int32_t r = gr[w];
    int64_t i = gi[w];
    const struct ArrowArray *b = &m->runs[r].batch;
    int8_t k = kind_at(m, b, i);
    int retract = pm_rowkind_is_retract(k);
    if (retract && cfg->remove_record_on_delete && w == start && k == PM_ROWKIND_DELETE) {
      /* state := the -D record's values */
      for (int c = 0; c < m->n_cols && !rc; c++) {
        m->col_src[c][o] = r;
        m->col_row[c][o] = i;
        if (agg) acc[c] = num_at(m, c, r, i);
        if (nac && (cfg->columns[c].agg == PM_AGG_COLLECT || cfg->columns[c].agg == PM_AGG_MERGE_MAP)) {
          nac[c].n = 0;
          nac[c].has = 0;
          rc = nested_combine(m, c, cfg->columns[c].agg == PM_AGG_MERGE_MAP, 0, &nac[c], r, i, 1, err);
        }
        if (lacc && (cfg->columns[c].agg == PM_AGG_LISTAGG || cfg->columns[c].agg == PM_AGG_RBM32)) {
          const uint8_t *p;
          size_t n;
          lacc[c].len = 0;
          lhas[c] = 0;
          if (rbm[c]) roaring_bitmap_free(rbm[c]);
          rbm[c] = NULL;
          if (bytes_at(&m->layout->children[c], b->children[c], i, &p, &n)) {
            if (cfg->columns[c].agg == PM_AGG_LISTAGG) {
              lhas[c] = 1;
              if (n && pm_buf_append(&lacc[c], p, n)) rc = PM_NOMEM(err);
            } else {
              rbm[c] = roaring_bitmap_portable_deserialize_safe((const char *)p, n);
              if (!rbm[c]) rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "rbm32: invalid serialized bitmap");
            }
          }
        }
      }
      is_delete = 1;
      last = w;
      continue;
    }
    if (retract) {
      if (cfg->remove_record_on_delete) continue; /* -U ignored */
      if (cfg->ignore_delete) {
        if (w == 0 && !agg) { /* Java initialises the state from a first skipped retract */
          for (int c = 0; c < m->n_cols; c++) {
            m->col_src[c][o] = r;
            m->col_row[c][o] = i;
          }
        }
        continue;
      }
    }
    last = w;
    if (!retract) {
      seen_add = 1;
      is_delete = 0;
    }
    for (int c = 0; c < m->n_cols && !rc; c++) {
      if (is_system_col(cfg, c)) continue;
      const struct ArrowArray *col = b->children[c];
      if (!agg) { /* partial update: non-null overlay */
        if (pm_array_is_valid(col, i)) {
          m->col_src[c][o] = r;
          m->col_row[c][o] = i;
        }
        continue;
      }
      pm_agg_func f = cfg->columns ? cfg->columns[c].agg : PM_AGG_NONE;
      if (is_seq_field_col(cfg, c)) f = PM_AGG_LAST_VALUE;
      if (f == PM_AGG_NONE) f = PM_AGG_LAST_NON_NULL_VALUE;
      int ignore_retract = cfg->columns ? cfg->columns[c].ignore_retract : 0;
      int valid = pm_array_is_valid(col, i);
      if (retract) {
        if (ignore_retract) continue;
        switch (f) {
          case PM_AGG_SUM:
          case PM_AGG_PRODUCT: rc = num_combine(&m->layout->children[c], f, &acc[c], num_at(m, c, r, i), 0, err); break;
          case PM_AGG_LAST_VALUE: m->col_src[c][o] = -1; break;
          case PM_AGG_LAST_NON_NULL_VALUE:
            if (valid) m->col_src[c][o] = -1;
            break;
          case PM_AGG_PRIMARY_KEY:
            m->col_src[c][o] = r;
            m->col_row[c][o] = i;
            break;
          case PM_AGG_COLLECT:
          case PM_AGG_MERGE_MAP:
            if (nac) rc = nested_combine(m, c, f == PM_AGG_MERGE_MAP, 0, &nac[c], r, i, 0, err);
            break;
          default:
            rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                           "aggregate function of column %d does not support retraction (set "
                           "fields.<f>.ignore-retract)",
                           c);
        }
        continue;
      }
      switch (f) {
        case PM_AGG_SUM:
        case PM_AGG_PRODUCT: rc = num_combine(&m->layout->children[c], f, &acc[c], num_at(m, c, r, i), 1, err); break;
        case PM_AGG_LAST_VALUE:
        case PM_AGG_PRIMARY_KEY:
          m->col_src[c][o] = r;
          m->col_row[c][o] = i;
          break;
        case PM_AGG_LAST_NON_NULL_VALUE:
          if (valid) {
            m->col_src[c][o] = r;
            m->col_row[c][o] = i;
          }
          break;
        case PM_AGG_FIRST_VALUE:
          if (m->col_src[c][o] < 0) { /* the first input, even a null one, is kept */
            m->col_src[c][o] = r;
            m->col_row[c][o] = i;
          }
          break;
        case PM_AGG_FIRST_NON_NULL_VALUE:
          if (valid && m->col_src[c][o] < 0) {
            m->col_src[c][o] = r;
            m->col_row[c][o] = i;
          }
          break;
        case PM_AGG_MAX:
        case PM_AGG_MIN:
          if (valid) {
            int32_t cr = m->col_src[c][o];
            int better = cr < 0;
            if (!better) {
              int cmp = pm_compare_values(&m->layout->children[c], col, i, m->runs[cr].batch.children[c],
                                          m->col_row[c][o]);
              better = f == PM_AGG_MAX ? cmp > 0 : cmp < 0;
            }
            if (better) {
              m->col_src[c][o] = r;
              m->col_row[c][o] = i;
            }
          }
          break;
        case PM_AGG_BOOL_AND:
        case PM_AGG_BOOL_OR:
          if (valid) {
            num x = num_at(m, c, r, i);
            if (acc[c].is_null) acc[c] = x;
            else acc[c].i = f == PM_AGG_BOOL_AND ? (acc[c].i && x.i) : (acc[c].i || x.i);
          }
          break;
        case PM_AGG_COLLECT:
        case PM_AGG_MERGE_MAP:
          if (nac) rc = nested_combine(m, c, f == PM_AGG_MERGE_MAP, cfg->columns[c].distinct, &nac[c], r, i, 1, err);
          break;
        case PM_AGG_LISTAGG:
        case PM_AGG_RBM32: {
          const uint8_t *p;
          size_t n;
          if (!lacc || !bytes_at(&m->layout->children[c], col, i, &p, &n)) break;
          if (f == PM_AGG_LISTAGG) {
            const char *d = cfg->columns[c].listagg_delimiter ? cfg->columns[c].listagg_delimiter : ",";
            rc = listagg_add(&lacc[c], &lhas[c], p, n, d, cfg->columns[c].distinct, err);
          } else {
            roaring_bitmap_t *x = roaring_bitmap_portable_deserialize_safe((const char *)p, n);
            if (!x) {
              rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "rbm32: invalid serialized bitmap in column %d", c);
            } else if (!rbm[c]) {
              rbm[c] = x;
            } else {
              roaring_bitmap_or_inplace(rbm[c], x);
              roaring_bitmap_free(x);
            }
          }
          break;
        }
        default: rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "aggregate function not supported"); break;
      }
    }
  }
  /* computed variable-length results */
  for (int c = 0; lacc && !rc && c < m->n_cols; c++) {
    if (is_system_col(cfg, c) || is_seq_field_col(cfg, c)) continue;
    if (cfg->columns[c].agg == PM_AGG_LISTAGG) {
      rc = add_bpatch(m, o, c, !lhas[c], lacc[c].data, lhas[c] ? lacc[c].len : 0, err);
    } else if (cfg->columns[c].agg == PM_AGG_COLLECT || cfg->columns[c].agg == PM_AGG_MERGE_MAP) {
      rc = add_lpatch(m, o, c, &nac[c], err);
    } else if (cfg->columns[c].agg == PM_AGG_RBM32) {
      if (!rbm[c]) {
        rc = add_bpatch(m, o, c, 1, NULL, 0, err);
        continue;
      }
      roaring_bitmap_run_optimize(rbm[c]);
      size_t n = roaring_bitmap_portable_size_in_bytes(rbm[c]);
      char *buf = malloc(n + 1);
      if (!buf) {
        rc = PM_NOMEM(err);
        break;
      }
      roaring_bitmap_portable_serialize(rbm[c], buf);
      rc = add_bpatch(m, o, c, 0, buf, n, err);
      free(buf);
    }
  }
  if (lacc) {
    for (int c = 0; c < m->n_cols; c++) {
      pm_buf_free(&lacc[c]);
      if (rbm[c]) roaring_bitmap_free(rbm[c]);
      free(nac[c].v);
    }
    free(lacc);
    free(lhas);
    free(rbm);
    free(nac);
  }
  if (rc) {
    free(acc);
    return rc;
  }
  if (last < 0) last = g - 1;
  /* key and sequence columns come from the last processed record */
  for (int c = 0; c < m->n_cols; c++)
    if (is_system_col(cfg, c)) {
      m->col_src[c][o] = gr[last];
      m->col_row[c][o] = gi[last];
    }
  int8_t kind = (is_delete || !seen_add) ? PM_ROWKIND_DELETE : PM_ROWKIND_INSERT;
  if (agg) {
    for (int c = 0; c < m->n_cols && !rc; c++) {
      if (is_system_col(cfg, c) || !cfg->columns) continue;
      pm_agg_func f = cfg->columns[c].agg;
      if (is_seq_field_col(cfg, c)) continue;
      if (f == PM_AGG_SUM || f == PM_AGG_PRODUCT || f == PM_AGG_BOOL_AND || f == PM_AGG_BOOL_OR) {
        patch p = {o, c, acc[c].is_null, acc[c].i, acc[c].d, acc[c].dec};
        rc = add_patch(m, &p, err);
      }
    }
  }
  free(acc);
  if (rc) return rc;
  if (pm_rowkind_is_retract(kind) && !cfg->keep_retracts) {
    /* drop: undo the patches of this row */
    while (m->n_patches && m->patches[m->n_patches - 1].row == o) m->n_patches--;
    while (m->n_bpatches && m->bpatches[m->n_bpatches - 1].row == o) m->n_bpatches--;
    while (m->n_lpatches && m->lpatches[m->n_lpatches - 1].row == o) {
      m->n_erefs = m->lpatches[m->n_lpatches - 1].start;
      m->n_lpatches--;
    }
    return 0;
  }
  m->sel_src[o] = gr[last];
  m->sel_row[o] = gi[last];
  m->out_kind[o] = kind;
  m->n_out++;
  return 0;
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
      for (size_t k = 0; k < lp->n && !rc; k++) {
        const eref *e = &m->erefs[lp->start + k];
        const struct ArrowArray *items = m->runs[e->run].batch.children[c]->children[0];
        rc = pm_builder_append_from(child, ct, items, e->idx, err);
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
