/*
 * Filesystem catalog: a warehouse directory holding `<db>.db/<table>/`
 * (FORMAT.md 1.1). Identifiers are `db.table`, `db.table$branch_<b>` and a
 * trailing system table `$snapshots`, `$schemas`, ... (`db.t$branch_b$files`).
 *
 * Ownership: pm_catalog_open returns a handle freed with pm_catalog_free;
 * name lists are freed with pm_free_names (io/file.h); tables with
 * pm_table_free. A catalog holds no mutable state after opening.
 */
#ifndef PM_TABLE_CATALOG_H
#define PM_TABLE_CATALOG_H

#include <stddef.h>

#include "table/table.h"
#include "util/error.h"

typedef struct pm_catalog {
  char *warehouse;    /* catalog root (option "warehouse") */
  pm_options options; /* all catalog options (e.g. path-rewrite) */
  pm_fs *fs;          /* every file of the catalog and its tables (a reference; tables take their own) */
  char **warnings;    /* unknown catalog option keys (meta/core_options.h), owned */
  size_t n_warnings;
  int32_t threads;    /* catalog option `threads`, 0 when unset */
} pm_catalog;

/* Opens a filesystem catalog on the local file system. Option "warehouse" is
 * required; "metastore" must be absent or "filesystem". A missing warehouse
 * directory is PAIMON_ERR_NOT_FOUND. */
int pm_catalog_open(const pm_options *options, pm_catalog **out, pm_error *err);
/* Same on the given file system (the catalog takes a reference): tests hand in a
 * fault-injecting fs (io/fs_fault.h); object stores will come this way. */
int pm_catalog_open_with_fs(pm_fs *fs, const pm_options *options, pm_catalog **out, pm_error *err);
void pm_catalog_free(pm_catalog *c); /* NULL ok */

/* Database names (directories `<name>.db`), sorted. */
int pm_catalog_list_databases(const pm_catalog *c, char ***names, size_t *n, pm_error *err);
/* Table names of a database (sub-directories holding schema/), sorted.
 * Unknown database = PAIMON_ERR_NOT_FOUND. */
int pm_catalog_list_tables(const pm_catalog *c, const char *database, char ***names, size_t *n, pm_error *err);

/* Parsed identifier. Every string is malloc'd (branch / system_table NULL when absent). */
typedef struct pm_identifier {
  char *database;
  char *table;
  char *branch;       /* from `$branch_<b>` */
  char *system_table; /* e.g. "snapshots" */
} pm_identifier;

/* Parses `db.table[$branch_b][$system]` ("table" alone means database "default"). */
int pm_identifier_parse(const char *text, pm_identifier *out, pm_error *err);
void pm_identifier_clear(pm_identifier *id);

/* Directory of a table (no check that it exists). malloc'd. */
char *pm_catalog_table_path(const pm_catalog *c, const char *database, const char *table);

/* Opens the data table of an identifier (a system-table suffix is ignored:
 * callers look at pm_identifier.system_table). dynamic may be NULL. A missing
 * table is PAIMON_ERR_NOT_FOUND naming `db.table`; a missing branch likewise. */
int pm_catalog_get_table(const pm_catalog *c, const char *identifier, const pm_options *dynamic, pm_table **out,
                         pm_error *err);

#endif
