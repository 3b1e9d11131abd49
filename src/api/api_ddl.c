/* Public C API (include/paimon/ddl.h): databases, the schema builder, create / drop / rename table. */
#include "api/api_internal.h"
#include "meta/schema_build.h"
#include "table/ddl.h"

struct paimon_schema_builder {
  pm_schema_spec spec;
};

/* ------------------------------------------------------------ databases */

paimon_status paimon_catalog_create_database(paimon_catalog *catalog, const char *name,
                                             const paimon_option *properties, size_t n_properties,
                                             int ignore_if_exists, paimon_error *err) {
  CHECK_ARG(catalog && name, "NULL argument");
  CHECK_ARG(properties || n_properties == 0, "properties is NULL");
  pm_options o;
  int rc = pm_api_to_options(properties, n_properties, &o, err);
  if (rc) return (paimon_status)rc;
  rc = pm_ddl_create_database(catalog->c, name, &o, ignore_if_exists, err);
  pm_options_clear(&o);
  return (paimon_status)rc;
}

paimon_status paimon_catalog_drop_database(paimon_catalog *catalog, const char *name, int cascade,
                                           int ignore_if_not_exists, paimon_error *err) {
  CHECK_ARG(catalog && name, "NULL argument");
  return (paimon_status)pm_ddl_drop_database(catalog->c, name, cascade, ignore_if_not_exists, err);
}

paimon_status paimon_catalog_database_properties(const paimon_catalog *catalog, const char *name, char ***keys,
                                                 char ***values, size_t *n, paimon_error *err) {
  CHECK_ARG(catalog && name && keys && values && n, "NULL argument");
  *keys = *values = NULL;
  *n = 0;
  pm_options o;
  int rc = pm_ddl_database_properties(catalog->c, name, &o, err);
  if (rc) return (paimon_status)rc;
  /* hand the arrays over (pm_options' arrays are malloc'd string vectors) */
  *keys = o.keys;
  *values = o.values;
  *n = o.n;
  return PAIMON_OK;
}

/* -------------------------------------------------------------- schemas */

paimon_status paimon_schema_builder_new(paimon_schema_builder **out, paimon_error *err) {
  CHECK_ARG(out, "out is NULL");
  *out = calloc(1, sizeof **out);
  if (!*out) return (paimon_status)PM_NOMEM(err);
  pm_schema_spec_init(&(*out)->spec);
  return PAIMON_OK;
}

paimon_status paimon_schema_builder_from_arrow(const struct ArrowSchema *schema, paimon_schema_builder **out,
                                               paimon_error *err) {
  CHECK_ARG(schema && out, "NULL argument");
  *out = NULL;
  paimon_schema_builder *b = calloc(1, sizeof *b);
  if (!b) return (paimon_status)PM_NOMEM(err);
  int rc = pm_schema_spec_from_arrow(schema, &b->spec, err);
  if (rc) {
    free(b);
    return (paimon_status)rc;
  }
  *out = b;
  return PAIMON_OK;
}

paimon_status paimon_schema_builder_from_json(const char *json, size_t len, paimon_schema_builder **out,
                                              paimon_error *err) {
  CHECK_ARG(json && out, "NULL argument");
  *out = NULL;
  paimon_schema_builder *b = calloc(1, sizeof *b);
  if (!b) return (paimon_status)PM_NOMEM(err);
  int rc = pm_schema_spec_from_json(json, len, &b->spec, err);
  if (rc) {
    free(b);
    return (paimon_status)rc;
  }
  *out = b;
  return PAIMON_OK;
}

paimon_status paimon_schema_builder_column(paimon_schema_builder *b, const char *name, const char *type,
                                           const char *comment, paimon_error *err) {
  CHECK_ARG(b && name && type, "NULL argument");
  return (paimon_status)pm_schema_spec_add_column(&b->spec, name, type, comment, err);
}

paimon_status paimon_schema_builder_columns_sql(paimon_schema_builder *b, const char *text, paimon_error *err) {
  CHECK_ARG(b && text, "NULL argument");
  return (paimon_status)pm_schema_spec_add_columns_sql(&b->spec, text, err);
}

paimon_status paimon_schema_builder_primary_key(paimon_schema_builder *b, const char *const *columns, size_t n,
                                                paimon_error *err) {
  CHECK_ARG(b && (columns || n == 0), "NULL argument");
  return (paimon_status)pm_schema_spec_set_primary_key(&b->spec, columns, n, err);
}

paimon_status paimon_schema_builder_partition_keys(paimon_schema_builder *b, const char *const *columns, size_t n,
                                                   paimon_error *err) {
  CHECK_ARG(b && (columns || n == 0), "NULL argument");
  return (paimon_status)pm_schema_spec_set_partition_keys(&b->spec, columns, n, err);
}

paimon_status paimon_schema_builder_option(paimon_schema_builder *b, const char *key, const char *value,
                                           paimon_error *err) {
  CHECK_ARG(b && key && value, "NULL argument");
  return (paimon_status)pm_options_set(&b->spec.options, key, value, err);
}

paimon_status paimon_schema_builder_comment(paimon_schema_builder *b, const char *comment, paimon_error *err) {
  CHECK_ARG(b, "NULL argument");
  return (paimon_status)pm_schema_spec_set_comment(&b->spec, comment, err);
}

void paimon_schema_builder_free(paimon_schema_builder *b) {
  if (!b) return;
  pm_schema_spec_clear(&b->spec);
  free(b);
}

/* --------------------------------------------------------------- tables */

paimon_status paimon_catalog_create_table(paimon_catalog *catalog, const char *identifier,
                                          const paimon_schema_builder *schema, int ignore_if_exists,
                                          paimon_error *err) {
  CHECK_ARG(catalog && identifier && schema, "NULL argument");
  return (paimon_status)pm_ddl_create_table(catalog->c, identifier, &schema->spec, ignore_if_exists, err);
}

paimon_status paimon_catalog_drop_table(paimon_catalog *catalog, const char *identifier, int ignore_if_not_exists,
                                        paimon_error *err) {
  CHECK_ARG(catalog && identifier, "NULL argument");
  return (paimon_status)pm_ddl_drop_table(catalog->c, identifier, ignore_if_not_exists, err);
}

paimon_status paimon_catalog_rename_table(paimon_catalog *catalog, const char *from, const char *to,
                                          int ignore_if_not_exists, paimon_error *err) {
  CHECK_ARG(catalog && from && to, "NULL argument");
  return (paimon_status)pm_ddl_rename_table(catalog->c, from, to, ignore_if_not_exists, err);
}
