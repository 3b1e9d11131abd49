/* Public C API: table handles and read builders. */
#include "api/api_internal.h"

/* --------------------------------------------------------------- table */

void paimon_table_free(paimon_table *table) {
  if (!table) return;
  pm_table_free(table->t);
  free(table->identifier);
  free(table->system_table);
  pm_schema_free(table->sys_schema);
  free(table);
}

const char *paimon_table_identifier(const paimon_table *table) { return table ? table->identifier : NULL; }
const char *paimon_table_branch(const paimon_table *table) { return table ? table->t->branch : NULL; }

paimon_status paimon_table_arrow_schema(const paimon_table *table, struct ArrowSchema *out, paimon_error *err) {
  CHECK_ARG(table && out, "NULL argument");
  if (table->system_table) return (paimon_status)pm_system_table_read_schema(table->system_table, NULL, out, err);
  return (paimon_status)pm_dfields_to_arrow(table->t->schema->fields, table->t->schema->n_fields, out, err);
}

size_t paimon_table_num_primary_keys(const paimon_table *table) {
  return table && !table->system_table ? table->t->n_primary_keys : 0;
}
const char *paimon_table_primary_key(const paimon_table *table, size_t i) {
  return i < paimon_table_num_primary_keys(table) ? table->t->primary_keys[i] : NULL;
}
size_t paimon_table_num_partition_keys(const paimon_table *table) {
  return table && !table->system_table ? table->t->n_partition_keys : 0;
}
const char *paimon_table_partition_key(const paimon_table *table, size_t i) {
  return i < paimon_table_num_partition_keys(table) ? table->t->partition_keys[i] : NULL;
}
/* The columns of a handle: the system table's for a system-table handle. */
static const pm_table_schema *handle_schema(const paimon_table *table) {
  return table->sys_schema ? table->sys_schema : table->t->schema;
}

size_t paimon_table_num_columns(const paimon_table *table) { return table ? handle_schema(table)->n_fields : 0; }
const char *paimon_table_column_name(const paimon_table *table, size_t i) {
  return table && i < handle_schema(table)->n_fields ? handle_schema(table)->fields[i].name : NULL;
}
paimon_status paimon_table_column_type(const paimon_table *table, size_t i, char **type, paimon_error *err) {
  CHECK_ARG(type, "type is NULL");
  *type = NULL;
  CHECK_ARG(table, "table is NULL");
  const pm_table_schema *s = handle_schema(table);
  if (i >= s->n_fields)
    return (paimon_status)pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "table %s has %zu columns, not column %zu",
                                    table->identifier, s->n_fields, i);
  *type = pm_dtype_to_cstring(s->fields[i].type);
  return *type ? PAIMON_OK : (paimon_status)PM_NOMEM(err);
}
int64_t paimon_table_schema_id(const paimon_table *table) { return table ? table->t->schema->id : -1; }
const char *paimon_table_option(const paimon_table *table, const char *key) {
  return table && key ? pm_options_get(&table->t->options, key) : NULL;
}

static const char *const *warnings_of(const pm_table *t, size_t *n) {
  size_t k = t ? t->co.n_warnings : 0;
  if (n) *n = k;
  return k ? (const char *const *)t->co.warnings : NULL;
}

const char *const *paimon_table_warnings(const paimon_table *table, size_t *n) {
  return warnings_of(table ? table->t : NULL, n);
}

const char *const *paimon_read_builder_warnings(const paimon_read_builder *rb, size_t *n) {
  return warnings_of(rb ? rb->t : NULL, n);
}

paimon_status paimon_table_latest_snapshot_id(const paimon_table *table, int64_t *id, paimon_error *err) {
  CHECK_ARG(table && id, "NULL argument");
  pm_snapshot_manager sm = pm_table_snapshots(table->t);
  return (paimon_status)pm_snapshot_latest_id(&sm, id, err);
}

/* -------------------------------------------------------- read builder */

paimon_status paimon_read_builder_new(const paimon_table *table, const paimon_option *dynamic_options,
                                      size_t n_options, paimon_read_builder **out, paimon_error *err) {
  CHECK_ARG(out, "out is NULL");
  *out = NULL;
  CHECK_ARG(table && (dynamic_options || n_options == 0), "NULL argument");
  pm_options o;
  int rc = pm_api_to_options(dynamic_options, n_options, &o, err);
  if (rc) return (paimon_status)rc;
  paimon_read_builder *rb = calloc(1, sizeof *rb);
  if (!rb) rc = PM_NOMEM(err);
  if (!rc) rc = pm_table_reopen(table->t, NULL, &o, &rb->t, err);
  pm_options_clear(&o);
  if (!rc && !(rb->origin = pm_api_origin(rb->t, err))) rc = PAIMON_ERR_NOMEM;
  if (!rc && table->system_table) { /* its predicates index the system table's columns */
    size_t len = strlen(rb->origin) + strlen(table->system_table) + 3;
    char *o2 = malloc(len);
    if (!o2) rc = PM_NOMEM(err);
    else snprintf(o2, len, "%s\n$%s", rb->origin, table->system_table);
    free(rb->origin);
    rb->origin = o2;
  }
  if (rc) {
    paimon_read_builder_free(rb);
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
  pm_scan_selection_clear(&rb->sel);
  pm_table_free(rb->t);
  free(rb->origin);
  free(rb);
}

const pm_table_schema *pm_api_builder_schema(const paimon_read_builder *rb) {
  return rb->table->sys_schema ? rb->table->sys_schema : rb->t->schema;
}

static int is_system_column(const char *name) {
  return !strcmp(name, PM_SYSTEM_FIELD_ROW_ID) || !strcmp(name, PM_SYSTEM_FIELD_SEQUENCE_NUMBER);
}

/* Resolves a (possibly nested "a.b") column name to its canonical spelling. */
static int resolve_column(const paimon_read_builder *rb, const char *name, char **out, pm_error *err) {
  *out = NULL;
  if (is_system_column(name) && !rb->table->system_table) {
    *out = strdup(name);
    return *out ? 0 : PM_NOMEM(err);
  }
  const pm_table_schema *s = pm_api_builder_schema(rb);
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
  if (predicate && strcmp(predicate->origin, rb->origin)) {
    paimon_predicate_free(predicate);
    return (paimon_status)pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                                    "with_filter: the predicate was made by a read builder of another table or "
                                    "schema than %s's",
                                    rb->table->identifier);
  }
  pm_pred_free(rb->filter);
  rb->filter = NULL;
  if (predicate) {
    free(predicate->origin);
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
