/* Public C API: reading splits and plans as Arrow streams. */
#include "api/api_internal.h"

/* ---------------------------------------------------------------- read */

static void fill_read_options(const paimon_read_builder *rb, pm_read_options *o) {
  pm_read_options_init(o);
  o->columns = (const char *const *)rb->columns;
  o->n_columns = rb->n_columns;
  o->filter = rb->filter;
  o->limit = rb->limit;
  o->with_row_kind = rb->row_kind;
}

paimon_status paimon_read_builder_read_schema(const paimon_read_builder *rb, struct ArrowSchema *out,
                                              paimon_error *err) {
  CHECK_ARG(rb && out, "NULL argument");
  pm_read_options o;
  fill_read_options(rb, &o);
  if (rb->table->system_table) return (paimon_status)pm_system_table_read_schema(rb->table->system_table, &o, out, err);
  return (paimon_status)pm_read_schema(rb->t, &o, out, err);
}

/* A stream that owns copies of the splits, so the caller may free the builder and
 * plan while reading. DataSplits go to the table layer, which reads splits planned from
 * a scan.fallback-branch with that branch's table (pm_read_splits_with_fallback). */
typedef struct owned_read {
  pm_table *t;                /* a reference */
  pm_data_split **splits;     /* copies */
  int *is_fallback;
  size_t n_splits;
  pm_split **inc_splits;      /* incremental reads: copies of the PM_SPLIT_INCREMENTAL splits */
  size_t n_inc_splits;
  pm_predicate *filter;       /* a copy of the builder's */
  char **columns;
  size_t n_columns;
  int64_t limit; /* < 0: none */
  int64_t emitted;
  struct ArrowArrayStream inner;
} owned_read;

static void owned_read_free(void *state) {
  owned_read *r = state;
  if (!r) return;
  if (r->inner.release) r->inner.release(&r->inner);
  for (size_t i = 0; i < r->n_splits; i++) pm_data_split_free(r->splits[i]);
  free(r->splits);
  free(r->is_fallback);
  for (size_t i = 0; i < r->n_inc_splits; i++) pm_split_free(r->inc_splits[i]);
  free(r->inc_splits);
  pm_pred_free(r->filter);
  paimon_free_strings(r->columns, r->n_columns);
  pm_table_free(r->t);
  free(r);
}

static int owned_get_schema(void *state, struct ArrowSchema *out, pm_error *err) {
  return pm_stream_get_schema(&((owned_read *)state)->inner, out, err);
}

static int owned_get_next(void *state, struct ArrowArray *out, pm_error *err) {
  owned_read *r = state;
  memset(out, 0, sizeof *out);
  if (r->limit >= 0 && r->emitted >= r->limit) return 0; /* end of stream */
  PM_TRY(pm_stream_get_next(&r->inner, out, err));
  if (!out->release) return 0;
  if (r->limit >= 0 && out->length > r->limit - r->emitted) out->length = r->limit - r->emitted;
  r->emitted += out->length;
  return 0;
}

static int copy_split(const pm_data_split *src, pm_data_split **dst, pm_error *err) {
  return pm_data_split_copy(src, dst, err);
}

static int copy_incremental_split(const pm_split *src, pm_split **dst, pm_error *err) {
  pm_buf b;
  pm_buf_init(&b);
  int rc = pm_split_encode(src, &b, err);
  if (!rc) rc = pm_split_decode(b.data, b.len, dst, err);
  pm_buf_free(&b);
  return rc;
}

paimon_status paimon_table_read_splits(const paimon_read_builder *rb, const paimon_split *const *splits, size_t n,
                                       struct ArrowArrayStream *out, paimon_error *err) {
  if (rb && rb->table->system_table && out) { /* a system table: its plan has no splits */
    CHECK_ARG(n == 0, "a system table is read without splits (paimon_read_plan of its plan)");
    pm_read_options o;
    fill_read_options(rb, &o);
    return (paimon_status)pm_system_table_read_with(rb->t, rb->table->system_table, &o, out, err);
  }
  CHECK_ARG(rb && out && (splits || n == 0), "NULL argument");
  memset(out, 0, sizeof *out);
  owned_read *r = calloc(1, sizeof *r);
  if (!r) return (paimon_status)PM_NOMEM(err);
  r->t = pm_table_retain(rb->t); /* the builder's handle: the schema the splits were planned with */
  r->limit = rb->limit;
  int rc = 0;
  size_t n_inc = 0;
  for (size_t i = 0; i < n && !rc; i++) {
    if (!splits[i]) rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "split %zu is NULL", i);
    else if (splits[i]->origin && strcmp(splits[i]->origin, rb->origin))
      rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "split %zu was planned by a read builder of another table or schema than %s's", i,
                     rb->table->identifier);
    else if (splits[i]->inc) n_inc++;
  }
  /* the two kinds are read by different readers with different semantics */
  if (!rc && n_inc && n_inc < n)
    rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                   "cannot read %zu incremental splits and %zu DataSplits in one call (read each kind separately)",
                   n_inc, n - n_inc);
  if (!rc && rb->n_columns) {
    r->columns = calloc(rb->n_columns, sizeof *r->columns);
    if (!r->columns) rc = PM_NOMEM(err);
    for (size_t i = 0; !rc && i < rb->n_columns; i++) {
      r->columns[i] = strdup(rb->columns[i]);
      if (!r->columns[i]) rc = PM_NOMEM(err);
      r->n_columns = i + 1;
    }
  }
  if (!rc && rb->filter) rc = pm_pred_copy(rb->filter, &r->filter, err);
  if (!rc && n_inc) {
    if (!(r->inc_splits = calloc(n_inc, sizeof *r->inc_splits))) rc = PM_NOMEM(err);
    for (size_t i = 0; !rc && i < n; i++) {
      rc = copy_incremental_split(splits[i]->inc, &r->inc_splits[r->n_inc_splits], err);
      if (!rc) r->n_inc_splits++;
    }
  } else if (!rc && n) {
    r->splits = calloc(n, sizeof *r->splits);
    r->is_fallback = calloc(n, sizeof *r->is_fallback);
    if (!r->splits || !r->is_fallback) rc = PM_NOMEM(err);
    for (size_t i = 0; !rc && i < n; i++) {
      rc = copy_split(splits[i]->s, &r->splits[r->n_splits], err);
      if (!rc) r->is_fallback[r->n_splits++] = splits[i]->fallback_branch != NULL;
    }
  }
  if (!rc) {
    pm_read_options o;
    fill_read_options(rb, &o);
    o.columns = (const char *const *)r->columns;
    o.filter = r->filter;
    rc = n_inc ? pm_read_incremental_splits(r->t, r->inc_splits, r->n_inc_splits, &o, &r->inner, err)
               : pm_read_splits_with_fallback(r->t, r->splits, r->is_fallback, r->n_splits, &o, &r->inner, err);
  }
  if (rc) {
    owned_read_free(r);
    return (paimon_status)rc;
  }
  static const pm_stream_callbacks cb = {owned_get_schema, owned_get_next, owned_read_free};
  return (paimon_status)pm_stream_init(out, &cb, r, err);
}

paimon_status paimon_read_builder_read_system_table(const paimon_read_builder *rb, const char *name,
                                                    struct ArrowArrayStream *out, paimon_error *err) {
  CHECK_ARG(rb && name && out, "NULL argument");
  return (paimon_status)pm_system_table_read(rb->t, name, out, err);
}

paimon_status paimon_read_plan(const paimon_read_builder *rb, const paimon_plan *plan, struct ArrowArrayStream *out,
                               paimon_error *err) {
  CHECK_ARG(rb && plan && out, "NULL argument");
  memset(out, 0, sizeof *out);
  if (strcmp(plan->origin, rb->origin))
    return (paimon_status)pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                                    "read_plan: the plan was made by a read builder of another table or schema "
                                    "than %s's",
                                    rb->table->identifier);
  size_t n = plan->n_splits;
  const paimon_split **v = n ? calloc(n, sizeof *v) : NULL;
  if (n && !v) return (paimon_status)PM_NOMEM(err);
  for (size_t i = 0; i < n; i++) v[i] = &plan->splits[i];
  paimon_status rc = paimon_table_read_splits(rb, v, n, out, err);
  free(v);
  return rc;
}
