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

/* A stream that owns its tables, filters, columns and split copies, so the
 * caller may free the builder and plan while reading. Splits planned from a
 * scan.fallback-branch are read with that branch's table (its own keys and
 * merge engine), after the main table's splits. */
typedef struct read_part {
  pm_table *t;
  pm_predicate *filter; /* bound to this part's table */
  pm_data_split **splits;
  size_t n_splits;
  pm_split **inc_splits; /* incremental reads: copies of the PM_SPLIT_INCREMENTAL splits */
  size_t n_inc_splits;
  struct ArrowArrayStream inner;
  int started;
} read_part;

typedef struct owned_read {
  read_part parts[2];
  size_t n_parts;
  size_t cur;
  char **columns;
  size_t n_columns;
  int64_t limit; /* < 0: none; enforced across parts */
  int64_t emitted;
} owned_read;

static void owned_read_free(void *state) {
  owned_read *r = state;
  if (!r) return;
  for (size_t k = 0; k < 2; k++) {
    read_part *p = &r->parts[k];
    if (p->inner.release) p->inner.release(&p->inner);
    for (size_t i = 0; i < p->n_splits; i++) pm_data_split_free(p->splits[i]);
    free(p->splits);
    for (size_t i = 0; i < p->n_inc_splits; i++) pm_split_free(p->inc_splits[i]);
    free(p->inc_splits);
    pm_pred_free(p->filter);
    pm_table_free(p->t);
  }
  paimon_free_strings(r->columns, r->n_columns);
  free(r);
}

static int owned_get_schema(void *state, struct ArrowSchema *out, pm_error *err) {
  owned_read *r = state;
  return pm_stream_get_schema(&r->parts[0].inner, out, err);
}

static int owned_get_next(void *state, struct ArrowArray *out, pm_error *err) {
  owned_read *r = state;
  memset(out, 0, sizeof *out);
  while (r->cur < r->n_parts) {
    if (r->limit >= 0 && r->emitted >= r->limit) return 0; /* end of stream */
    PM_TRY(pm_stream_get_next(&r->parts[r->cur].inner, out, err));
    if (!out->release) {
      r->cur++;
      continue;
    }
    if (r->limit >= 0 && out->length > r->limit - r->emitted) out->length = r->limit - r->emitted;
    r->emitted += out->length;
    return 0;
  }
  return 0;
}

static int copy_split(const pm_data_split *src, pm_data_split **dst, pm_error *err) {
  pm_buf b;
  pm_buf_init(&b);
  int rc = pm_data_split_encode(src, &b, err);
  if (!rc) rc = pm_data_split_decode(b.data, b.len, dst, err);
  pm_buf_free(&b);
  return rc;
}

static int copy_incremental_split(const pm_split *src, pm_split **dst, pm_error *err) {
  pm_buf b;
  pm_buf_init(&b);
  int rc = pm_split_encode(src, &b, err);
  if (!rc) rc = pm_split_decode(b.data, b.len, dst, err);
  pm_buf_free(&b);
  return rc;
}

/* Binds a copy of the builder's filter to table t (by column name). */
static int bind_filter(const paimon_read_builder *rb, const pm_table *t, pm_predicate **out, pm_error *err) {
  *out = NULL;
  if (!rb->filter) return 0;
  const pm_table_schema *from = rb->t->schema, *to = t->schema;
  int32_t *map = malloc((from->n_fields ? from->n_fields : 1) * sizeof *map);
  if (!map) return PM_NOMEM(err);
  for (size_t i = 0; i < from->n_fields; i++) map[i] = pm_schema_field_index(to, from->fields[i].name);
  int rc = pm_pred_only_fields(rb->filter, map, from->n_fields)
               ? pm_pred_remap(rb->filter, map, from->n_fields, out, err)
               : pm_errorf(err, PAIMON_ERR_NOT_FOUND, "filter uses a column that branch '%s' does not have", t->branch);
  free(map);
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
  r->limit = rb->limit;
  int rc = 0;
  const char *fallback = NULL;
  size_t n_inc = 0;
  for (size_t i = 0; i < n && !rc; i++) {
    if (!splits[i]) rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "split %zu is NULL", i);
    else if (splits[i]->origin && strcmp(splits[i]->origin, rb->origin))
      rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "split %zu was planned by a read builder of another table or schema than %s's", i,
                     rb->table->identifier);
    else if (splits[i]->inc) n_inc++;
    else if (splits[i]->fallback_branch) fallback = splits[i]->fallback_branch;
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
  r->n_parts = fallback && !n_inc ? 2 : 1;
  for (size_t k = 0; !rc && k < r->n_parts; k++) {
    read_part *p = &r->parts[k];
    /* the main part reads with the builder's handle (the schema the splits were planned with) */
    if (k == 0) p->t = pm_table_retain(rb->t);
    else rc = pm_table_reopen(rb->t, fallback, NULL, &p->t, err);
    if (!rc) rc = bind_filter(rb, p->t, &p->filter, err);
    if (!rc && n_inc) {
      p->inc_splits = calloc(n_inc, sizeof *p->inc_splits);
      if (!p->inc_splits) rc = PM_NOMEM(err);
      for (size_t i = 0; !rc && i < n; i++) {
        rc = copy_incremental_split(splits[i]->inc, &p->inc_splits[p->n_inc_splits], err);
        if (!rc) p->n_inc_splits++;
      }
    } else if (!rc && n) {
      p->splits = calloc(n, sizeof *p->splits);
      if (!p->splits) rc = PM_NOMEM(err);
    }
    for (size_t i = 0; !rc && !n_inc && i < n; i++) {
      if ((k == 1) != (splits[i]->fallback_branch != NULL)) continue;
      rc = copy_split(splits[i]->s, &p->splits[p->n_splits], err);
      if (!rc) p->n_splits++;
    }
    if (!rc) {
      pm_read_options o;
      pm_read_options_init(&o);
      o.columns = (const char *const *)r->columns;
      o.n_columns = r->n_columns;
      o.filter = p->filter;
      o.limit = rb->limit;
      o.with_row_kind = rb->row_kind;
      rc = n_inc ? pm_read_incremental_splits(p->t, p->inc_splits, p->n_inc_splits, &o, &p->inner, err)
                 : pm_read_splits(p->t, p->splits, p->n_splits, &o, &p->inner, err);
    }
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
