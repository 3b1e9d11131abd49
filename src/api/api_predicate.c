/* Public C API: literals and predicates. */
#include "api/api_internal.h"

/* ---------------------------------------------------------- predicates */

paimon_literal paimon_literal_null(void) {
  paimon_literal l;
  memset(&l, 0, sizeof l);
  return l;
}
paimon_literal paimon_literal_bool(int v) {
  paimon_literal l = paimon_literal_null();
  l.kind = PAIMON_LITERAL_BOOL;
  l.i = v != 0;
  return l;
}
paimon_literal paimon_literal_int64(int64_t v) {
  paimon_literal l = paimon_literal_null();
  l.kind = PAIMON_LITERAL_INT64;
  l.i = v;
  return l;
}
paimon_literal paimon_literal_double(double v) {
  paimon_literal l = paimon_literal_null();
  l.kind = PAIMON_LITERAL_DOUBLE;
  l.d = v;
  return l;
}
paimon_literal paimon_literal_string(const char *s) {
  paimon_literal l = paimon_literal_null();
  l.kind = s ? PAIMON_LITERAL_STRING : PAIMON_LITERAL_NULL;
  l.s = s;
  l.len = s ? strlen(s) : 0;
  return l;
}
paimon_literal paimon_literal_bytes(const void *data, size_t len) {
  paimon_literal l = paimon_literal_null();
  l.kind = PAIMON_LITERAL_BYTES;
  l.s = data;
  l.len = len;
  return l;
}
paimon_literal paimon_literal_decimal(int64_t unscaled, int32_t scale) {
  paimon_literal l = paimon_literal_null();
  l.kind = PAIMON_LITERAL_DECIMAL;
  l.i = unscaled;
  l.scale = scale;
  return l;
}
paimon_literal paimon_literal_date(int32_t days) {
  paimon_literal l = paimon_literal_null();
  l.kind = PAIMON_LITERAL_DATE;
  l.i = days;
  return l;
}
paimon_literal paimon_literal_time(int32_t millis) {
  paimon_literal l = paimon_literal_null();
  l.kind = PAIMON_LITERAL_TIME;
  l.i = millis;
  return l;
}
paimon_literal paimon_literal_timestamp(int64_t millis, int32_t nanos) {
  paimon_literal l = paimon_literal_null();
  l.kind = PAIMON_LITERAL_TIMESTAMP;
  l.i = millis;
  l.nanos = nanos;
  return l;
}

/* A predicate handle for origin (copied), p->p still NULL. */
static paimon_predicate *predicate_new(const char *origin, pm_error *err) {
  paimon_predicate *p = calloc(1, sizeof *p);
  if (p) p->origin = strdup(origin);
  if (!p || !p->origin) {
    free(p);
    PM_NOMEM(err);
    return NULL;
  }
  return p;
}

static void predicate_free_handle(paimon_predicate *p) {
  if (!p) return;
  free(p->origin);
  free(p);
}

/* 1 if l->kind is a paimon_literal_kind. */
static int literal_kind_valid(const paimon_literal *l) {
  return (unsigned)l->kind <= (unsigned)PAIMON_LITERAL_TIMESTAMP;
}

static pm_literal to_pm_literal(const paimon_literal *l) {
  pm_literal o;
  memset(&o, 0, sizeof o);
  switch (l->kind) {
    case PAIMON_LITERAL_NULL: o.kind = PM_LIT_NULL; break;
    case PAIMON_LITERAL_BOOL: o.kind = PM_LIT_BOOL; break;
    case PAIMON_LITERAL_INT64: o.kind = PM_LIT_INT; break;
    case PAIMON_LITERAL_DOUBLE: o.kind = PM_LIT_DOUBLE; break;
    case PAIMON_LITERAL_STRING: o.kind = PM_LIT_STRING; break;
    case PAIMON_LITERAL_BYTES: o.kind = PM_LIT_BYTES; break;
    case PAIMON_LITERAL_DECIMAL: o.kind = PM_LIT_DECIMAL; break;
    case PAIMON_LITERAL_DATE: o.kind = PM_LIT_DATE; break;
    case PAIMON_LITERAL_TIME: o.kind = PM_LIT_TIME; break;
    case PAIMON_LITERAL_TIMESTAMP: o.kind = PM_LIT_TIMESTAMP; break;
    default: o.kind = (pm_literal_kind)-1; break;
  }
  o.i = l->i;
  o.scale = l->scale;
  o.nanos = l->nanos;
  o.d = l->d;
  o.s = l->s;
  o.len = l->len;
  return o;
}

/* Columns of the builder's table as predicate columns (index = field position). */
static int table_columns(const paimon_read_builder *rb, pm_pred_column **out, size_t *n, pm_error *err) {
  const pm_table_schema *s = pm_api_builder_schema(rb);
  *n = s->n_fields;
  *out = calloc(s->n_fields ? s->n_fields : 1, sizeof **out);
  if (!*out) return PM_NOMEM(err);
  for (size_t i = 0; i < s->n_fields; i++) {
    (*out)[i].name = s->fields[i].name;
    (*out)[i].index = (int32_t)i;
    (*out)[i].field_id = s->fields[i].id;
    (*out)[i].type = s->fields[i].type;
  }
  return 0;
}

/* fn: the public function's name for argument errors. */
static paimon_status make_leaf(const char *fn, const paimon_read_builder *rb, pm_pred_op op, const char *column,
                               const paimon_literal *lits, size_t n, paimon_predicate **out, paimon_error *err) {
  if (!out) return (paimon_status)pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: out is NULL", fn);
  *out = NULL;
  if (!rb) return (paimon_status)pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: read builder is NULL", fn);
  if (!column) return (paimon_status)pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: column is NULL", fn);
  if (!lits && n) return (paimon_status)pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: values is NULL", fn);
  for (size_t i = 0; i < n; i++)
    if (!literal_kind_valid(&lits[i]))
      return (paimon_status)pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                                      "%s: value %zu for column '%s' is not a paimon_literal (kind %d is none of "
                                      "PAIMON_LITERAL_NULL..PAIMON_LITERAL_TIMESTAMP; use the paimon_literal_* "
                                      "constructors)",
                                      fn, i + 1, column, (int)lits[i].kind);
  const pm_table_schema *s = pm_api_builder_schema(rb);
  int idx = -1;
  for (size_t i = 0; i < s->n_fields && idx < 0; i++)
    if (rb->case_sensitive ? !strcmp(s->fields[i].name, column) : !strcasecmp(s->fields[i].name, column))
      idx = (int)i;
  if (idx < 0)
    return (paimon_status)pm_errorf(err, PAIMON_ERR_NOT_FOUND, "predicate: table %s has no column '%s'",
                                    rb->table->identifier, column);
  pm_pred_column col = {s->fields[idx].name, idx, s->fields[idx].id, s->fields[idx].type};
  pm_literal *pl = n ? calloc(n, sizeof *pl) : NULL;
  if (n && !pl) return (paimon_status)PM_NOMEM(err);
  for (size_t i = 0; i < n; i++) pl[i] = to_pm_literal(&lits[i]);
  pm_tz *tz = NULL; /* the session zone types zone-less timestamp text */
  int rc = pm_table_session_tz(rb->t, NULL, &tz, err);
  paimon_predicate *p = rc ? NULL : predicate_new(rb->origin, err);
  if (!rc) rc = p ? pm_pred_leaf_tz(op, &col, pl, n, tz, &p->p, err) : PAIMON_ERR_NOMEM;
  pm_tz_free(tz);
  free(pl);
  if (rc) {
    predicate_free_handle(p);
    return (paimon_status)rc;
  }
  *out = p;
  return PAIMON_OK;
}

#define LEAF1(fn, op)                                                                                          \
  paimon_status fn(const paimon_read_builder *rb, const char *column, paimon_literal v, paimon_predicate **out, \
                   paimon_error *err) {                                                                        \
    return make_leaf(#fn, rb, op, column, &v, 1, out, err);                                                    \
  }
LEAF1(paimon_predicate_equal, PM_PRED_EQUAL)
LEAF1(paimon_predicate_not_equal, PM_PRED_NOT_EQUAL)
LEAF1(paimon_predicate_less_than, PM_PRED_LESS_THAN)
LEAF1(paimon_predicate_less_or_equal, PM_PRED_LESS_OR_EQUAL)
LEAF1(paimon_predicate_greater_than, PM_PRED_GREATER_THAN)
LEAF1(paimon_predicate_greater_or_equal, PM_PRED_GREATER_OR_EQUAL)

paimon_status paimon_predicate_is_null(const paimon_read_builder *rb, const char *column, paimon_predicate **out,
                                       paimon_error *err) {
  return make_leaf(__func__, rb, PM_PRED_IS_NULL, column, NULL, 0, out, err);
}
paimon_status paimon_predicate_is_not_null(const paimon_read_builder *rb, const char *column,
                                           paimon_predicate **out, paimon_error *err) {
  return make_leaf(__func__, rb, PM_PRED_IS_NOT_NULL, column, NULL, 0, out, err);
}
paimon_status paimon_predicate_in(const paimon_read_builder *rb, const char *column, const paimon_literal *values,
                                  size_t n, paimon_predicate **out, paimon_error *err) {
  return make_leaf(__func__, rb, PM_PRED_IN, column, values, n, out, err);
}
paimon_status paimon_predicate_not_in(const paimon_read_builder *rb, const char *column,
                                      const paimon_literal *values, size_t n, paimon_predicate **out,
                                      paimon_error *err) {
  return make_leaf(__func__, rb, PM_PRED_NOT_IN, column, values, n, out, err);
}

#define LEAFS(fn, op)                                                                                            \
  paimon_status fn(const paimon_read_builder *rb, const char *column, const char *text, paimon_predicate **out, \
                   paimon_error *err) {                                                                          \
    if (!text) {                                                                                                 \
      if (out) *out = NULL;                                                                                      \
      return (paimon_status)pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: pattern is NULL", #fn);            \
    }                                                                                                            \
    paimon_literal v = paimon_literal_string(text);                                                              \
    return make_leaf(#fn, rb, op, column, &v, 1, out, err);                                                      \
  }
LEAFS(paimon_predicate_starts_with, PM_PRED_STARTS_WITH)
LEAFS(paimon_predicate_ends_with, PM_PRED_ENDS_WITH)
LEAFS(paimon_predicate_contains, PM_PRED_CONTAINS)
LEAFS(paimon_predicate_like, PM_PRED_LIKE)

static paimon_status compound(pm_pred_op op, paimon_predicate *const *children, size_t n, paimon_predicate **out,
                              paimon_error *err) {
  if (out) *out = NULL;
  pm_predicate **kids = n ? calloc(n, sizeof *kids) : NULL;
  int bad = !out || n == 0 || !children || !kids, mixed = 0;
  paimon_predicate *p = NULL;
  for (size_t i = 0; children && i < n; i++) {
    if (!children[i]) {
      bad = 1;
      continue;
    }
    if (!p) p = children[i]; /* the first child's handle becomes the result's */
    else if (strcmp(children[i]->origin, p->origin)) mixed = 1;
    if (kids) kids[i] = children[i]->p;
    else pm_pred_free(children[i]->p);
    if (children[i] != p) predicate_free_handle(children[i]);
  }
  int rc = 0;
  if (bad)
    rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                   "predicate and/or needs n >= 1 non-NULL children and an out pointer");
  else if (mixed)
    rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                   "predicate and/or: the children were made by read builders of different tables or schemas");
  if (rc) {
    for (size_t i = 0; kids && i < n; i++) pm_pred_free(kids[i]);
    free(kids);
    predicate_free_handle(p);
    return (paimon_status)rc;
  }
  p->p = NULL;
  rc = pm_pred_compound(op, kids, n, &p->p, err);
  free(kids);
  if (rc) {
    predicate_free_handle(p);
    return (paimon_status)rc;
  }
  *out = p;
  return PAIMON_OK;
}

paimon_status paimon_predicate_and(paimon_predicate *const *children, size_t n, paimon_predicate **out,
                                   paimon_error *err) {
  return compound(PM_PRED_AND, children, n, out, err);
}
paimon_status paimon_predicate_or(paimon_predicate *const *children, size_t n, paimon_predicate **out,
                                  paimon_error *err) {
  return compound(PM_PRED_OR, children, n, out, err);
}

paimon_status paimon_predicate_not(paimon_predicate *child, paimon_predicate **out, paimon_error *err) {
  if (out) *out = NULL;
  if (!child || !out) {
    paimon_predicate_free(child);
    return (paimon_status)pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "paimon_predicate_not: %s is NULL",
                                    child ? "out" : "the predicate");
  }
  pm_predicate *neg = NULL;
  int rc = pm_pred_negate(child->p, &neg, err);
  if (rc) {
    paimon_predicate_free(child);
    return (paimon_status)rc;
  }
  pm_pred_free(child->p); /* the child's handle (and its origin) becomes the result's */
  child->p = neg;
  *out = child;
  return PAIMON_OK;
}

paimon_status paimon_predicate_between(const paimon_read_builder *rb, const char *column, paimon_literal low,
                                       paimon_literal high, paimon_predicate **out, paimon_error *err) {
  if (out) *out = NULL;
  paimon_predicate *kids[2] = {NULL, NULL};
  paimon_status rc = make_leaf(__func__, rb, PM_PRED_GREATER_OR_EQUAL, column, &low, 1, &kids[0], err);
  if (!rc) rc = make_leaf(__func__, rb, PM_PRED_LESS_OR_EQUAL, column, &high, 1, &kids[1], err);
  if (rc) {
    paimon_predicate_free(kids[0]);
    return rc;
  }
  return compound(PM_PRED_AND, kids, 2, out, err);
}

paimon_status paimon_predicate_parse(const paimon_read_builder *rb, const char *text, paimon_predicate **out,
                                     paimon_error *err) {
  CHECK_ARG(out, "out is NULL");
  *out = NULL;
  CHECK_ARG(rb, "read builder is NULL");
  CHECK_ARG(text, "text is NULL");
  pm_pred_column *cols = NULL;
  size_t n = 0;
  pm_tz *tz = NULL;
  int rc = table_columns(rb, &cols, &n, err);
  if (!rc) rc = pm_table_session_tz(rb->t, NULL, &tz, err);
  paimon_predicate *p = NULL;
  if (!rc) {
    p = predicate_new(rb->origin, err);
    rc = p ? pm_pred_parse_tz(text, cols, n, rb->case_sensitive, tz, &p->p, err) : PAIMON_ERR_NOMEM;
  }
  pm_tz_free(tz);
  free(cols);
  if (rc) {
    predicate_free_handle(p);
    return (paimon_status)rc;
  }
  *out = p;
  return PAIMON_OK;
}

paimon_status paimon_predicate_to_string(const paimon_predicate *p, char **text, paimon_error *err) {
  CHECK_ARG(p && text, "NULL argument");
  *text = NULL;
  pm_buf b;
  pm_buf_init(&b);
  int rc = pm_pred_to_string(p->p, &b, err);
  if (!rc) {
    *text = malloc(b.len + 1);
    if (!*text) rc = PM_NOMEM(err);
    else {
      if (b.len) memcpy(*text, b.data, b.len);
      (*text)[b.len] = 0;
    }
  }
  pm_buf_free(&b);
  return (paimon_status)rc;
}

void paimon_predicate_free(paimon_predicate *p) {
  if (!p) return;
  pm_pred_free(p->p);
  predicate_free_handle(p);
}
