/*
 * libpaimon public API, part 2: catalog DDL and schema evolution.
 * Included by paimon/paimon.h; same conventions (see there): status return,
 * `paimon_error *err` last, ownership stated per call, frees accept NULL.
 *
 * Everything a DDL call writes becomes visible atomically (a schema file is
 * published by create-if-absent): a failed call leaves the catalog as it was.
 * Concurrent changes of one table: of two creates, the loser fails with
 * PAIMON_ERR_CONFLICT (the table exists; nothing written); an alter that
 * loses the race for schema-<N+1> re-reads the winner's schema and applies
 * its changes again, as Java's SchemaManager.commitChanges loops (so it is
 * validated against what the winner wrote, and may then fail as any alter
 * would, e.g. a column that now exists); only after 100 lost races in a row
 * is it PAIMON_ERR_CONFLICT (nothing written). Validation follows Java Paimon's
 * FileSystemCatalog / SchemaManager / SchemaValidation; every refusal is
 * PAIMON_ERR_INVALID_ARGUMENT (or NOT_FOUND / CONFLICT) naming the column,
 * key or option at fault, before anything is written.
 */
#ifndef PAIMON_DDL_H
#define PAIMON_DDL_H

#include "paimon/paimon.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ databases */

/* Creates database `name` (directory <warehouse>/<name>.db). Properties are
 * validated as Java's filesystem catalog does. An existing database is
 * PAIMON_ERR_CONFLICT unless ignore_if_exists. */
PAIMON_EXPORT paimon_status paimon_catalog_create_database(paimon_catalog *catalog, const char *name,
                                                           const paimon_option *properties, size_t n_properties,
                                                           int ignore_if_exists, paimon_error *err);
/* Drops a database. A non-empty database needs cascade (drops its tables);
 * a missing one is PAIMON_ERR_NOT_FOUND unless ignore_if_not_exists. */
PAIMON_EXPORT paimon_status paimon_catalog_drop_database(paimon_catalog *catalog, const char *name, int cascade,
                                                         int ignore_if_not_exists, paimon_error *err);
/* Properties of a database as the catalog reports them (e.g. "location").
 * *keys / *values owned by the caller: paimon_free_strings(*keys, *n), same for values. */
PAIMON_EXPORT paimon_status paimon_catalog_database_properties(const paimon_catalog *catalog, const char *name,
                                                               char ***keys, char ***values, size_t *n,
                                                               paimon_error *err);

/* -------------------------------------------------------------- schemas */

/* A table schema being described for paimon_catalog_create_table. */
typedef struct paimon_schema_builder paimon_schema_builder;

/* *out owned by the caller: paimon_schema_builder_free. */
PAIMON_EXPORT paimon_status paimon_schema_builder_new(paimon_schema_builder **out, paimon_error *err);
/* Columns of an Arrow schema (a struct), mapped to Paimon types as the read
 * side maps them back (string -> STRING, timestamp[us] -> TIMESTAMP(6), ...);
 * nullability from the Arrow flags. The schema is only read. */
PAIMON_EXPORT paimon_status paimon_schema_builder_from_arrow(const struct ArrowSchema *schema,
                                                             paimon_schema_builder **out, paimon_error *err);
/* Paimon's schema JSON, as pypaimon's `table create --schema` takes it:
 * {"fields":[{"id":0,"name":"a","type":"INT NOT NULL"},...],
 *  "partitionKeys":[...], "primaryKeys":[...], "options":{...}, "comment":"..."}.
 * `type` may also be Paimon's nested JSON type form. */
PAIMON_EXPORT paimon_status paimon_schema_builder_from_json(const char *json, size_t len,
                                                            paimon_schema_builder **out, paimon_error *err);
/* Appends a column. `type` is a Paimon type string: "INT", "DECIMAL(10, 2)",
 * "ARRAY<INT>", "MAP<STRING, INT>", "ROW<a INT, b STRING>", "TIMESTAMP(3)",
 * "TIMESTAMP(6) WITH LOCAL TIME ZONE", optionally ending " NOT NULL".
 * comment may be NULL. All strings are copied. */
PAIMON_EXPORT paimon_status paimon_schema_builder_column(paimon_schema_builder *b, const char *name,
                                                         const char *type, const char *comment, paimon_error *err);
/* Columns from a SQL-like list: "id INT NOT NULL, name STRING COMMENT 'x', ..." */
PAIMON_EXPORT paimon_status paimon_schema_builder_columns_sql(paimon_schema_builder *b, const char *text,
                                                              paimon_error *err);
PAIMON_EXPORT paimon_status paimon_schema_builder_primary_key(paimon_schema_builder *b, const char *const *columns,
                                                              size_t n, paimon_error *err);
PAIMON_EXPORT paimon_status paimon_schema_builder_partition_keys(paimon_schema_builder *b,
                                                                 const char *const *columns, size_t n,
                                                                 paimon_error *err);
PAIMON_EXPORT paimon_status paimon_schema_builder_option(paimon_schema_builder *b, const char *key,
                                                         const char *value, paimon_error *err);
PAIMON_EXPORT paimon_status paimon_schema_builder_comment(paimon_schema_builder *b, const char *comment,
                                                          paimon_error *err);
PAIMON_EXPORT void paimon_schema_builder_free(paimon_schema_builder *b);

/* --------------------------------------------------------------- tables */

/* Creates table "db.table" with schema-0 as Java writes it. The builder is
 * only read (it may be reused or freed afterwards). An existing table is
 * PAIMON_ERR_CONFLICT unless ignore_if_exists; a missing database is
 * PAIMON_ERR_NOT_FOUND. */
PAIMON_EXPORT paimon_status paimon_catalog_create_table(paimon_catalog *catalog, const char *identifier,
                                                        const paimon_schema_builder *schema, int ignore_if_exists,
                                                        paimon_error *err);
/* Drops a table (its directory, data included). */
PAIMON_EXPORT paimon_status paimon_catalog_drop_table(paimon_catalog *catalog, const char *identifier,
                                                      int ignore_if_not_exists, paimon_error *err);
/* Renames "db.t" to "db.t2" (same database only, as Java's filesystem catalog). */
PAIMON_EXPORT paimon_status paimon_catalog_rename_table(paimon_catalog *catalog, const char *from, const char *to,
                                                        int ignore_if_not_exists, paimon_error *err);

/* ---------------------------------------------------------- alter table */

/* One schema change. Column paths name nested fields with '.', e.g. "addr.city"
 * (a '.' inside a name is written "\."). */
typedef struct paimon_schema_change paimon_schema_change;

typedef enum paimon_column_position {
  PAIMON_COLUMN_LAST = 0,  /* default: append */
  PAIMON_COLUMN_FIRST = 1, /* before every column */
  PAIMON_COLUMN_AFTER = 2  /* after `reference` */
} paimon_column_position;

/* Constructors: *out owned by the caller (paimon_schema_change_free), strings copied. */
PAIMON_EXPORT paimon_status paimon_schema_change_add_column(const char *column, const char *type,
                                                            const char *comment, paimon_column_position position,
                                                            const char *reference, paimon_schema_change **out,
                                                            paimon_error *err);
PAIMON_EXPORT paimon_status paimon_schema_change_drop_column(const char *column, paimon_schema_change **out,
                                                             paimon_error *err);
PAIMON_EXPORT paimon_status paimon_schema_change_rename_column(const char *column, const char *new_name,
                                                               paimon_schema_change **out, paimon_error *err);
PAIMON_EXPORT paimon_status paimon_schema_change_update_column_type(const char *column, const char *type,
                                                                    paimon_schema_change **out, paimon_error *err);
PAIMON_EXPORT paimon_status paimon_schema_change_update_column_nullability(const char *column, int nullable,
                                                                           paimon_schema_change **out,
                                                                           paimon_error *err);
PAIMON_EXPORT paimon_status paimon_schema_change_update_column_comment(const char *column, const char *comment,
                                                                       paimon_schema_change **out,
                                                                       paimon_error *err);
PAIMON_EXPORT paimon_status paimon_schema_change_update_column_position(const char *column,
                                                                        paimon_column_position position,
                                                                        const char *reference,
                                                                        paimon_schema_change **out,
                                                                        paimon_error *err);
PAIMON_EXPORT paimon_status paimon_schema_change_set_option(const char *key, const char *value,
                                                            paimon_schema_change **out, paimon_error *err);
PAIMON_EXPORT paimon_status paimon_schema_change_remove_option(const char *key, paimon_schema_change **out,
                                                               paimon_error *err);
PAIMON_EXPORT paimon_status paimon_schema_change_update_comment(const char *comment, paimon_schema_change **out,
                                                                paimon_error *err);
PAIMON_EXPORT void paimon_schema_change_free(paimon_schema_change *change);

/* Applies the changes in order as one new schema (schema-<latest+1>), all or
 * nothing; a lost race with a concurrent change is retried on the new latest
 * schema (see the top of this file). The changes are only read. */
PAIMON_EXPORT paimon_status paimon_catalog_alter_table(paimon_catalog *catalog, const char *identifier,
                                                       const paimon_schema_change *const *changes, size_t n,
                                                       int ignore_if_not_exists, paimon_error *err);

#ifdef __cplusplus
}
#endif

#endif /* PAIMON_DDL_H */
