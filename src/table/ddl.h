/*
 * Catalog DDL of the filesystem catalog (Java's FileSystemCatalog +
 * AbstractCatalog): databases `<warehouse>/<name>.db`, create / drop /
 * rename of tables. Table creation writes schema/schema-0 by
 * create-if-absent through the catalog's fs (a concurrent create loses with
 * PAIMON_ERR_CONFLICT); every refusal happens before anything is written.
 *
 * Errors: PAIMON_ERR_INVALID_ARGUMENT (bad names, system-table / branch
 * identifiers, schema validation, non-empty database without cascade),
 * PAIMON_ERR_NOT_FOUND (missing database / table), PAIMON_ERR_CONFLICT
 * (exists already, or lost a concurrent create). All arguments are borrowed.
 */
#ifndef PM_TABLE_DDL_H
#define PM_TABLE_DDL_H

#include "meta/schema_build.h"
#include "table/catalog.h"

int pm_ddl_create_database(pm_catalog *c, const char *name, const pm_options *properties, int ignore_if_exists,
                           pm_error *err);
int pm_ddl_drop_database(pm_catalog *c, const char *name, int cascade, int ignore_if_not_exists, pm_error *err);
/* Properties the filesystem catalog reports for a database: "location" (its directory).
 * *out initialised here (pm_options_clear). */
int pm_ddl_database_properties(const pm_catalog *c, const char *name, pm_options *out, pm_error *err);

/* Creates "db.table": schema-0 from spec (catalog `table-default.*` options added where absent). */
int pm_ddl_create_table(pm_catalog *c, const char *identifier, const pm_schema_spec *spec, int ignore_if_exists,
                        pm_error *err);
/* Deletes the table directory and, as Java's AbstractCatalog.dropTable, every
 * data-file.external-paths root named by any schema of the table (main and
 * branches; whole roots, as Java deletes them). */
int pm_ddl_drop_table(pm_catalog *c, const char *identifier, int ignore_if_not_exists, pm_error *err);
/* Same database only; an existing target is PAIMON_ERR_CONFLICT. */
int pm_ddl_rename_table(pm_catalog *c, const char *from, const char *to, int ignore_if_not_exists, pm_error *err);

#endif
