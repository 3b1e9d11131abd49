/* Public C API (include/paimon/paimon.h) over the catalog, scan and read layers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arrow/arrow.h"
#include "arrow/stream.h"
#include "data/predicate.h"
#include "io/file.h"
#include "meta/snapshot.h"
#include "meta/split.h"
#include "paimon/paimon.h"
#include "table/catalog.h"
#include "table/read.h"
#include "table/scan.h"
#include "table/system_tables.h"

struct paimon_catalog {
  pm_catalog *c;
};

struct paimon_table {
  pm_table *t;
  char *identifier;
};

struct paimon_read_builder {
  const paimon_table *table;
  pm_table *t; /* table reopened with the dynamic options (owned) */
  char **columns;
  size_t n_columns;
  pm_predicate *filter;
  int64_t limit;
  int case_sensitive;
  int row_kind;
};

struct paimon_predicate {
  pm_predicate *p;
};

/* Exactly one of s (a DataSplit) and inc (a PM_SPLIT_INCREMENTAL split) is set. */
struct paimon_split {
  pm_data_split *s;
  pm_split *inc;
  int owned;
  const char *fallback_branch; /* plan splits from scan.fallback-branch (owned by the plan) */
};

struct paimon_plan {
  pm_plan *p;
  paimon_split *splits; /* the plan's DataSplits, or its incremental splits (a plan has one kind) */
  size_t n_splits;
};

const char *paimon_version(void) { return PAIMON_VERSION_STRING; }

void paimon_free_string(char *s) { free(s); }
void paimon_free_strings(char **v, size_t n) {
  if (!v) return;
  for (size_t i = 0; i < n; i++) free(v[i]);
  free(v);
}
void paimon_free_bytes(uint8_t *b) { free(b); }

static int to_options(const paimon_option *o, size_t n, pm_options *out, pm_error *err) {
  pm_options_init(out);
  for (size_t i = 0; i < n; i++) {
    if (!o[i].key || !o[i].value) {
      pm_options_clear(out);
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option %zu has a NULL key or value", i);
    }
    int rc = pm_options_set(out, o[i].key, o[i].value, err);
    if (rc) {
      pm_options_clear(out);
      return rc;
    }
  }
  return 0;
}

#define CHECK_ARG(cond, what) \
  if (!(cond)) return (paimon_status)pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: %s", __func__, what)

/* ------------------------------------------------------------- catalog */

paimon_status paimon_catalog_open(const paimon_option *options, size_t n_options, paimon_catalog **out,
                                  paimon_error *err) {
  CHECK_ARG(out, "out is NULL");
  *out = NULL;
  CHECK_ARG(options || n_options == 0, "options is NULL");
  pm_options o;
  int rc = to_options(options, n_options, &o, err);
  if (rc) return (paimon_status)rc;
  paimon_catalog *c = calloc(1, sizeof *c);
  if (!c) rc = PM_NOMEM(err);
  if (!rc) rc = pm_catalog_open(&o, &c->c, err);
  pm_options_clear(&o);
  if (rc) {
    free(c);
    return (paimon_status)rc;
  }
  *out = c;
  return PAIMON_OK;
}

void paimon_catalog_free(paimon_catalog *catalog) {
  if (!catalog) return;
  pm_catalog_free(catalog->c);
  free(catalog);
}

paimon_status paimon_catalog_list_databases(const paimon_catalog *catalog, char ***names, size_t *n,
                                            paimon_error *err) {
  CHECK_ARG(catalog && names && n, "NULL argument");
  return (paimon_status)pm_catalog_list_databases(catalog->c, names, n, err);
}

paimon_status paimon_catalog_list_tables(const paimon_catalog *catalog, const char *database, char ***names,
                                         size_t *n, paimon_error *err) {
  CHECK_ARG(catalog && database && names && n, "NULL argument");
  return (paimon_status)pm_catalog_list_tables(catalog->c, database, names, n, err);
}

paimon_status paimon_catalog_get_table(const paimon_catalog *catalog, const char *identifier, paimon_table **out,
                                       paimon_error *err) {
  CHECK_ARG(out, "out is NULL");
  *out = NULL;
  CHECK_ARG(catalog && identifier, "NULL argument");
  pm_identifier id;
  int rc = pm_identifier_parse(identifier, &id, err);
  if (rc) return (paimon_status)rc;
  if (id.system_table) {
    rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                   "'%s' is a system table: read it with paimon_catalog_read_system_table", identifier);
    pm_identifier_clear(&id);
    return (paimon_status)rc;
  }
  paimon_table *t = calloc(1, sizeof *t);
  size_t len = strlen(id.database) + strlen(id.table) + 2;
  if (t) t->identifier = malloc(len);
  if (!t || !t->identifier) rc = PM_NOMEM(err);
  else snprintf(t->identifier, len, "%s.%s", id.database, id.table);
  pm_identifier_clear(&id);
  if (!rc) rc = pm_catalog_get_table(catalog->c, identifier, NULL, &t->t, err);
  if (rc) {
    paimon_table_free(t);
    return (paimon_status)rc;
  }
  *out = t;
  return PAIMON_OK;
}

paimon_status paimon_catalog_read_system_table(const paimon_catalog *catalog, const char *identifier,
                                               struct ArrowArrayStream *out, paimon_error *err) {
  CHECK_ARG(catalog && identifier && out, "NULL argument");
  memset(out, 0, sizeof *out);
  pm_identifier id;
  int rc = pm_identifier_parse(identifier, &id, err);
  if (rc) return (paimon_status)rc;
  if (!id.system_table) {
    rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "'%s' names no system table (expected db.t$snapshots, ...)",
                   identifier);
    pm_identifier_clear(&id);
    return (paimon_status)rc;
  }
  char *sys = id.system_table;
  id.system_table = NULL;
  pm_identifier_clear(&id);
  pm_table *t = NULL;
  if (!pm_system_table_exists(sys))
    rc = pm_errorf(err, PAIMON_ERR_NOT_FOUND,
                   "unknown system table '$%s' (snapshots, schemas, options, files, partitions, tags, branches, "
                   "manifests)",
                   sys);
  if (!rc) rc = pm_catalog_get_table(catalog->c, identifier, NULL, &t, err);
  if (!rc) rc = pm_system_table_read(t, sys, out, err);
  pm_table_free(t);
  free(sys);
  return (paimon_status)rc;
}

/* --------------------------------------------------------------- table */

void paimon_table_free(paimon_table *table) {
  if (!table) return;
  pm_table_free(table->t);
  free(table->identifier);
  free(table);
}

const char *paimon_table_identifier(const paimon_table *table) { return table ? table->identifier : NULL; }
const char *paimon_table_branch(const paimon_table *table) { return table ? table->t->branch : NULL; }

paimon_status paimon_table_arrow_schema(const paimon_table *table, struct ArrowSchema *out, paimon_error *err) {
  CHECK_ARG(table && out, "NULL argument");
  return (paimon_status)pm_dfields_to_arrow(table->t->schema->fields, table->t->schema->n_fields, out, err);
}

size_t paimon_table_num_primary_keys(const paimon_table *table) { return table ? table->t->n_primary_keys : 0; }
const char *paimon_table_primary_key(const paimon_table *table, size_t i) {
  return table && i < table->t->n_primary_keys ? table->t->primary_keys[i] : NULL;
}
size_t paimon_table_num_partition_keys(const paimon_table *table) { return table ? table->t->n_partition_keys : 0; }
const char *paimon_table_partition_key(const paimon_table *table, size_t i) {
  return table && i < table->t->n_partition_keys ? table->t->partition_keys[i] : NULL;
}
const char *paimon_table_option(const paimon_table *table, const char *key) {
  return table && key ? pm_options_get(&table->t->options, key) : NULL;
}

paimon_status paimon_table_latest_snapshot_id(const paimon_table *table, int64_t *id, paimon_error *err) {
  CHECK_ARG(table && id, "NULL argument");
  const char *br = strcmp(table->t->branch, "main") ? table->t->branch : NULL;
  return (paimon_status)pm_snapshot_latest_id(table->t->root, br, id, err);
}

/* -------------------------------------------------------- read builder */

paimon_status paimon_read_builder_new(const paimon_table *table, const paimon_option *dynamic_options,
                                      size_t n_options, paimon_read_builder **out, paimon_error *err) {
  CHECK_ARG(out, "out is NULL");
  *out = NULL;
  CHECK_ARG(table && (dynamic_options || n_options == 0), "NULL argument");
  pm_options o;
  int rc = to_options(dynamic_options, n_options, &o, err);
  if (rc) return (paimon_status)rc;
  paimon_read_builder *rb = calloc(1, sizeof *rb);
  if (!rb) rc = PM_NOMEM(err);
  if (!rc) rc = pm_table_reopen(table->t, table->t->branch, &o, &rb->t, err);
  pm_options_clear(&o);
  if (rc) {
    free(rb);
    return (paimon_status)rc;
  }
  rb->table = table;
  rb->limit = -1;
  rb->case_sensitive = 1;
  *out = rb;
  return PAIMON_OK;
}

static void free_columns(paimon_read_builder *rb) {
  paimon_free_strings(rb->columns, rb->n_columns);
  rb->columns = NULL;
  rb->n_columns = 0;
}

void paimon_read_builder_free(paimon_read_builder *rb) {
  if (!rb) return;
  free_columns(rb);
  pm_pred_free(rb->filter);
  pm_table_free(rb->t);
  free(rb);
}

static int is_system_column(const char *name) {
  return !strcmp(name, PM_SYSTEM_FIELD_ROW_ID) || !strcmp(name, PM_SYSTEM_FIELD_SEQUENCE_NUMBER);
}

/* Resolves a (possibly nested "a.b") column name to its canonical spelling. */
static int resolve_column(const paimon_read_builder *rb, const char *name, char **out, pm_error *err) {
  *out = NULL;
  if (is_system_column(name)) {
    *out = strdup(name);
    return *out ? 0 : PM_NOMEM(err);
  }
  const pm_table_schema *s = rb->t->schema;
  for (size_t i = 0; i < s->n_fields; i++) {
    const char *f = s->fields[i].name;
    size_t fl = strlen(f);
    int eq = rb->case_sensitive ? !strncmp(name, f, fl) : !strncasecmp(name, f, fl);
    if (eq && (name[fl] == 0 || name[fl] == '.')) {
      *out = strdup(name);
      if (!*out) return PM_NOMEM(err);
      memcpy(*out, f, fl); /* canonical case of the top-level part */
      return 0;
    }
  }
  return pm_errorf(err, PAIMON_ERR_NOT_FOUND, "table %s has no column '%s'", rb->table->identifier, name);
}

paimon_status paimon_read_builder_with_projection(paimon_read_builder *rb, const char *const *columns, size_t n,
                                                  paimon_error *err) {
  CHECK_ARG(rb && (columns || n == 0), "NULL argument");
  char **cols = n ? calloc(n, sizeof *cols) : NULL;
  if (n && !cols) return (paimon_status)PM_NOMEM(err);
  for (size_t i = 0; i < n; i++) {
    int rc = columns[i] ? resolve_column(rb, columns[i], &cols[i], err)
                        : pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "projection column %zu is NULL", i);
    if (rc) {
      paimon_free_strings(cols, n);
      return (paimon_status)rc;
    }
  }
  free_columns(rb);
  rb->columns = cols;
  rb->n_columns = n;
  return PAIMON_OK;
}

paimon_status paimon_read_builder_with_filter(paimon_read_builder *rb, paimon_predicate *predicate,
                                              paimon_error *err) {
  if (!rb) {
    paimon_predicate_free(predicate);
    return (paimon_status)pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "with_filter: builder is NULL");
  }
  pm_pred_free(rb->filter);
  rb->filter = NULL;
  if (predicate) {
    rb->filter = predicate->p;
    free(predicate);
  }
  return PAIMON_OK;
}

void paimon_read_builder_with_limit(paimon_read_builder *rb, int64_t limit) {
  if (rb) rb->limit = limit < 0 ? -1 : limit;
}
void paimon_read_builder_with_case_sensitive(paimon_read_builder *rb, int case_sensitive) {
  if (rb) rb->case_sensitive = case_sensitive != 0;
}
void paimon_read_builder_with_row_kind(paimon_read_builder *rb, int include_row_kind) {
  if (rb) rb->row_kind = include_row_kind != 0;
}

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
  const pm_table_schema *s = rb->t->schema;
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

static paimon_status make_leaf(const paimon_read_builder *rb, pm_pred_op op, const char *column,
                               const paimon_literal *lits, size_t n, paimon_predicate **out, paimon_error *err) {
  CHECK_ARG(out, "out is NULL");
  *out = NULL;
  CHECK_ARG(rb && column && (lits || n == 0), "NULL argument");
  const pm_table_schema *s = rb->t->schema;
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
  paimon_predicate *p = calloc(1, sizeof *p);
  int rc = p ? pm_pred_leaf(op, &col, pl, n, &p->p, err) : PM_NOMEM(err);
  free(pl);
  if (rc) {
    free(p);
    return (paimon_status)rc;
  }
  *out = p;
  return PAIMON_OK;
}

#define LEAF1(fn, op)                                                                                          \
  paimon_status fn(const paimon_read_builder *rb, const char *column, paimon_literal v, paimon_predicate **out, \
                   paimon_error *err) {                                                                        \
    return make_leaf(rb, op, column, &v, 1, out, err);                                                         \
  }
LEAF1(paimon_predicate_equal, PM_PRED_EQUAL)
LEAF1(paimon_predicate_not_equal, PM_PRED_NOT_EQUAL)
LEAF1(paimon_predicate_less_than, PM_PRED_LESS_THAN)
LEAF1(paimon_predicate_less_or_equal, PM_PRED_LESS_OR_EQUAL)
LEAF1(paimon_predicate_greater_than, PM_PRED_GREATER_THAN)
LEAF1(paimon_predicate_greater_or_equal, PM_PRED_GREATER_OR_EQUAL)

paimon_status paimon_predicate_is_null(const paimon_read_builder *rb, const char *column, paimon_predicate **out,
                                       paimon_error *err) {
  return make_leaf(rb, PM_PRED_IS_NULL, column, NULL, 0, out, err);
}
paimon_status paimon_predicate_is_not_null(const paimon_read_builder *rb, const char *column,
                                           paimon_predicate **out, paimon_error *err) {
  return make_leaf(rb, PM_PRED_IS_NOT_NULL, column, NULL, 0, out, err);
}
paimon_status paimon_predicate_in(const paimon_read_builder *rb, const char *column, const paimon_literal *values,
                                  size_t n, paimon_predicate **out, paimon_error *err) {
  return make_leaf(rb, PM_PRED_IN, column, values, n, out, err);
}
paimon_status paimon_predicate_not_in(const paimon_read_builder *rb, const char *column,
                                      const paimon_literal *values, size_t n, paimon_predicate **out,
                                      paimon_error *err) {
  return make_leaf(rb, PM_PRED_NOT_IN, column, values, n, out, err);
}

#define LEAFS(fn, op)                                                                                            \
  paimon_status fn(const paimon_read_builder *rb, const char *column, const char *text, paimon_predicate **out, \
                   paimon_error *err) {                                                                          \
    if (!text) {                                                                                                 \
      if (out) *out = NULL;                                                                                      \
      return (paimon_status)pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: pattern is NULL", #fn);            \
    }                                                                                                            \
    paimon_literal v = paimon_literal_string(text);                                                              \
    return make_leaf(rb, op, column, &v, 1, out, err);                                                           \
  }
LEAFS(paimon_predicate_starts_with, PM_PRED_STARTS_WITH)
LEAFS(paimon_predicate_ends_with, PM_PRED_ENDS_WITH)
LEAFS(paimon_predicate_contains, PM_PRED_CONTAINS)
LEAFS(paimon_predicate_like, PM_PRED_LIKE)

static paimon_status compound(pm_pred_op op, paimon_predicate *const *children, size_t n, paimon_predicate **out,
                              paimon_error *err) {
  if (out) *out = NULL;
  pm_predicate **kids = n ? calloc(n, sizeof *kids) : NULL;
  int bad = !out || n == 0 || !children || !kids;
  for (size_t i = 0; children && i < n; i++) {
    if (!children[i]) bad = 1;
    else {
      if (kids) kids[i] = children[i]->p;
      else pm_pred_free(children[i]->p);
      free(children[i]);
    }
  }
  if (bad) {
    for (size_t i = 0; kids && i < n; i++) pm_pred_free(kids[i]);
    free(kids);
    return (paimon_status)pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                                    "predicate and/or needs n >= 1 non-NULL children and an out pointer");
  }
  paimon_predicate *p = calloc(1, sizeof *p);
  int rc = 0;
  if (!p) {
    for (size_t i = 0; i < n; i++) pm_pred_free(kids[i]);
    rc = PM_NOMEM(err);
  } else {
    rc = pm_pred_compound(op, kids, n, &p->p, err);
  }
  free(kids);
  if (rc) {
    free(p);
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

paimon_status paimon_predicate_parse(const paimon_read_builder *rb, const char *text, paimon_predicate **out,
                                     paimon_error *err) {
  CHECK_ARG(out, "out is NULL");
  *out = NULL;
  CHECK_ARG(rb && text, "NULL argument");
  pm_pred_column *cols = NULL;
  size_t n = 0;
  int rc = table_columns(rb, &cols, &n, err);
  paimon_predicate *p = NULL;
  if (!rc) {
    p = calloc(1, sizeof *p);
    rc = p ? pm_pred_parse(text, cols, n, rb->case_sensitive, &p->p, err) : PM_NOMEM(err);
  }
  free(cols);
  if (rc) {
    free(p);
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
  free(p);
}

/* ---------------------------------------------------------------- scan */

paimon_status paimon_read_builder_plan(const paimon_read_builder *rb, paimon_plan **out, paimon_error *err) {
  CHECK_ARG(out, "out is NULL");
  *out = NULL;
  CHECK_ARG(rb, "builder is NULL");
  paimon_plan *plan = calloc(1, sizeof *plan);
  if (!plan) return (paimon_status)PM_NOMEM(err);
  int rc = pm_scan_plan_ex(rb->t, rb->filter, rb->limit, 1, &plan->p, err);
  if (!rc && plan->p->n_splits && plan->p->n_incremental_splits)
    rc = pm_errorf(err, PAIMON_ERR_INTERNAL, "plan of %s holds both DataSplits and incremental splits",
                   rb->table->identifier);
  if (!rc) plan->n_splits = plan->p->n_incremental_splits ? plan->p->n_incremental_splits : plan->p->n_splits;
  if (!rc && plan->n_splits) {
    plan->splits = calloc(plan->n_splits, sizeof *plan->splits);
    if (!plan->splits) rc = PM_NOMEM(err);
    for (size_t i = 0; !rc && i < plan->n_splits; i++) {
      if (plan->p->n_incremental_splits) {
        plan->splits[i].inc = plan->p->incremental_splits[i];
        continue;
      }
      plan->splits[i].s = plan->p->splits[i];
      if (i >= plan->p->fallback_start) plan->splits[i].fallback_branch = plan->p->fallback_branch;
    }
  }
  if (rc) {
    paimon_plan_free(plan);
    return (paimon_status)rc;
  }
  *out = plan;
  return PAIMON_OK;
}

void paimon_plan_free(paimon_plan *plan) {
  if (!plan) return;
  pm_plan_free(plan->p);
  free(plan->splits);
  free(plan);
}

size_t paimon_plan_num_splits(const paimon_plan *plan) { return plan ? plan->n_splits : 0; }
const paimon_split *paimon_plan_split(const paimon_plan *plan, size_t i) {
  return plan && i < plan->n_splits ? &plan->splits[i] : NULL;
}
int paimon_plan_snapshot_id(const paimon_plan *plan, int64_t *id) {
  if (!plan || !plan->p->has_snapshot) return 0;
  if (id) *id = plan->p->snapshot_id;
  return 1;
}

paimon_status paimon_plan_explain(const paimon_plan *plan, char **text, paimon_error *err) {
  CHECK_ARG(plan && text, "NULL argument");
  *text = NULL;
  pm_buf b;
  pm_buf_init(&b);
  int rc = pm_scan_explain_format(&plan->p->explain, &b, err);
  if (!rc) {
    *text = malloc(b.len + 1);
    if (!*text) rc = PM_NOMEM(err);
    else {
      memcpy(*text, b.data, b.len);
      (*text)[b.len] = 0;
    }
  }
  pm_buf_free(&b);
  return (paimon_status)rc;
}

int paimon_split_is_incremental(const paimon_split *split) { return split && split->inc ? 1 : 0; }
int32_t paimon_split_bucket(const paimon_split *split) {
  if (!split) return -1;
  return split->inc ? split->inc->incremental.bucket : split->s->bucket;
}
size_t paimon_split_num_files(const paimon_split *split) {
  if (!split) return 0;
  return split->inc ? split->inc->incremental.n_after_files : split->s->n_data_files;
}
int64_t paimon_split_row_count(const paimon_split *split) {
  if (!split) return 0;
  const pm_data_file_meta *files = split->inc ? split->inc->incremental.after_files : split->s->data_files;
  size_t n_files = paimon_split_num_files(split);
  int64_t n = 0;
  for (size_t i = 0; i < n_files; i++) n += files[i].row_count;
  return n;
}
int64_t paimon_split_snapshot_id(const paimon_split *split) {
  if (!split) return 0;
  return split->inc ? split->inc->incremental.snapshot_id : split->s->snapshot_id;
}
int paimon_split_is_streaming(const paimon_split *split) {
  if (!split) return 0;
  return split->inc ? split->inc->incremental.is_streaming : split->s->is_streaming;
}
int paimon_split_raw_convertible(const paimon_split *split) {
  return split && !split->inc ? split->s->raw_convertible : 0;
}

paimon_status paimon_split_serialize(const paimon_split *split, uint8_t **bytes, size_t *len, paimon_error *err) {
  CHECK_ARG(split && bytes && len, "NULL argument");
  *bytes = NULL;
  *len = 0;
  pm_buf b;
  pm_buf_init(&b);
  int rc = split->inc ? pm_split_encode(split->inc, &b, err) : pm_data_split_encode(split->s, &b, err);
  if (!rc) {
    *bytes = malloc(b.len ? b.len : 1);
    if (!*bytes) rc = PM_NOMEM(err);
    else {
      memcpy(*bytes, b.data, b.len);
      *len = b.len;
    }
  }
  pm_buf_free(&b);
  return (paimon_status)rc;
}

/* SplitSerializer records start with the int64 magic "SPLIT_V1"; a DataSplit
 * starts with its own magic (versions >= 2) or with its snapshot id (version 1,
 * which would have to be 0x53504C49545F5631 = 6e18 to be mistaken). */
static int is_split_serializer_record(const uint8_t *bytes, size_t len) {
  if (len < 8) return 0;
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v = v << 8 | bytes[i];
  return (int64_t)v == PM_SPLIT_MAGIC;
}

paimon_status paimon_split_deserialize(const uint8_t *bytes, size_t len, paimon_split **out, paimon_error *err) {
  CHECK_ARG(out, "out is NULL");
  *out = NULL;
  CHECK_ARG(bytes || len == 0, "bytes is NULL");
  paimon_split *s = calloc(1, sizeof *s);
  if (!s) return (paimon_status)PM_NOMEM(err);
  int rc = 0;
  if (is_split_serializer_record(bytes, len)) {
    pm_split *rec = NULL;
    rc = pm_split_decode(bytes, len, &rec, err);
    if (!rc && rec->type == PM_SPLIT_INCREMENTAL) {
      s->inc = rec;
      rec = NULL;
    } else if (!rc && rec->type == PM_SPLIT_DATA && rec->data) {
      s->s = rec->data; /* the record's DataSplit stands alone (its own arena) */
      rec->data = NULL;
    } else if (!rc) {
      rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED,
                     "split bytes: SplitSerializer record of type %d (only 1 DataSplit and 2 IncrementalSplit are "
                     "supported)",
                     (int)rec->type);
    }
    pm_split_free(rec);
  } else {
    rc = pm_data_split_decode(bytes, len, &s->s, err);
  }
  if (rc) {
    pm_data_split_free(s->s);
    pm_split_free(s->inc);
    free(s);
    return (paimon_status)rc;
  }
  s->owned = 1;
  *out = s;
  return PAIMON_OK;
}

void paimon_split_free(paimon_split *split) {
  if (!split || !split->owned) return;
  pm_data_split_free(split->s);
  pm_split_free(split->inc);
  free(split);
}

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
    rc = pm_table_reopen(rb->t, k == 0 ? rb->t->branch : fallback, NULL, &p->t, err);
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
  size_t n = plan->n_splits;
  const paimon_split **v = n ? calloc(n, sizeof *v) : NULL;
  if (n && !v) return (paimon_status)PM_NOMEM(err);
  for (size_t i = 0; i < n; i++) v[i] = &plan->splits[i];
  paimon_status rc = paimon_table_read_splits(rb, v, n, out, err);
  free(v);
  return rc;
}
