/* Public C API (include/paimon/paimon.h): version, freeing helpers, options and the catalog. */
#include "api/api_internal.h"
#include "util/str.h"

const char *paimon_version(void) { return PAIMON_VERSION_STRING; }

void paimon_free_string(char *s) { free(s); }
void paimon_free_strings(char **v, size_t n) { pm_strings_free(v, n); }
void paimon_free_bytes(uint8_t *b) { free(b); }

char *pm_api_origin(const pm_table *t, pm_error *err) {
  size_t len = strlen(t->root) + strlen(t->branch) + 32;
  char *s = malloc(len);
  if (!s) {
    PM_NOMEM(err);
    return NULL;
  }
  snprintf(s, len, "%s\n%s\n%lld", t->root, t->branch, (long long)t->schema->id);
  return s;
}

int pm_api_to_options(const paimon_option *o, size_t n, pm_options *out, pm_error *err) {
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

/* ------------------------------------------------------------- catalog */

const char *const *paimon_catalog_warnings(const paimon_catalog *catalog, size_t *n) {
  size_t k = catalog ? catalog->c->n_warnings : 0;
  if (n) *n = k;
  return k ? (const char *const *)catalog->c->warnings : NULL;
}

paimon_status paimon_catalog_open(const paimon_option *options, size_t n_options, paimon_catalog **out,
                                  paimon_error *err) {
  CHECK_ARG(out, "out is NULL");
  *out = NULL;
  CHECK_ARG(options || n_options == 0, "options is NULL");
  pm_options o;
  int rc = pm_api_to_options(options, n_options, &o, err);
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

paimon_status paimon_catalog_get_system_table(const paimon_catalog *catalog, const char *identifier,
                                              paimon_table **out, paimon_error *err) {
  CHECK_ARG(out, "out is NULL");
  *out = NULL;
  CHECK_ARG(catalog && identifier, "NULL argument");
  pm_identifier id;
  int rc = pm_identifier_parse(identifier, &id, err);
  if (rc) return (paimon_status)rc;
  paimon_table *t = NULL;
  if (!id.system_table)
    rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "'%s' names no system table (expected db.t$snapshots, ...)",
                   identifier);
  if (!rc) {
    t = calloc(1, sizeof *t);
    size_t len = strlen(id.database) + strlen(id.table) + strlen(id.system_table) + 3;
    if (t) t->identifier = malloc(len);
    if (t) t->system_table = strdup(id.system_table);
    if (!t || !t->identifier || !t->system_table) rc = PM_NOMEM(err);
    else snprintf(t->identifier, len, "%s.%s$%s", id.database, id.table, id.system_table);
  }
  pm_identifier_clear(&id);
  if (!rc) rc = pm_system_table_schema(t->system_table, &t->sys_schema, err);
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
