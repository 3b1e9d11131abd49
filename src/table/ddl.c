/* Catalog DDL (table/ddl.h): databases, create / drop / rename table, as Java's filesystem catalog. */
#include "table/ddl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/file.h"
#include "meta/core_options.h"

/* Java's system database, and the property a filesystem catalog refuses. */
#define SYSTEM_DATABASE "sys"
#define DB_LOCATION_PROP "location"

static char *db_path(const pm_catalog *c, const char *name) {
  size_t n = strlen(c->warehouse) + strlen(name) + 6;
  char *p = malloc(n);
  if (p) snprintf(p, n, "%s/%s.db", c->warehouse, name);
  return p;
}

static int check_db_name(const char *name, const char *what, pm_error *err) {
  if (!name || !*name) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: database name is empty", what);
  if (strchr(name, '/') || strchr(name, '.') || strchr(name, '$'))
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: database name '%s' must not contain '/', '.' or '$'", what,
                     name);
  if (!strcmp(name, SYSTEM_DATABASE))
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: '%s' is the system database", what, name);
  return 0;
}

static int dir_exists(pm_fs *fs, const char *path, int *exists, pm_error *err) {
  pm_file_stat st;
  pm_error e = {0};
  int rc = pm_fs_stat(fs, path, &st, &e);
  if (rc == PAIMON_ERR_NOT_FOUND) {
    *exists = 0;
    return 0;
  }
  if (rc) {
    if (err) *err = e;
    return rc;
  }
  *exists = st.is_dir;
  return 0;
}

static int db_exists(const pm_catalog *c, const char *name, int *exists, pm_error *err) {
  char *p = db_path(c, name);
  if (!p) return PM_NOMEM(err);
  int rc = dir_exists(c->fs, p, exists, err);
  free(p);
  return rc;
}

/* Deletes path and everything below it. A missing path is fine. */
static int delete_tree(pm_fs *fs, const char *path, int depth, pm_error *err) {
  if (depth > 64) return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: directory tree too deep to delete", path);
  pm_file_stat st;
  pm_error e = {0};
  int rc = pm_fs_stat(fs, path, &st, &e);
  if (rc == PAIMON_ERR_NOT_FOUND) return 0;
  if (rc) {
    if (err) *err = e;
    return rc;
  }
  if (st.is_dir) {
    char **names = NULL;
    size_t n = 0;
    rc = pm_fs_list(fs, path, NULL, &names, &n, err);
    for (size_t i = 0; !rc && i < n; i++) {
      size_t l = strlen(path) + strlen(names[i]) + 2;
      char *child = malloc(l);
      if (!child) {
        rc = PM_NOMEM(err);
        break;
      }
      snprintf(child, l, "%s/%s", path, names[i]);
      rc = delete_tree(fs, child, depth + 1, err);
      free(child);
    }
    pm_free_names(names, n);
    if (rc) return rc;
  }
  rc = pm_fs_delete(fs, path, &e);
  if (rc == PAIMON_ERR_NOT_FOUND) return 0;
  if (rc && err) *err = e;
  return rc;
}

/* ------------------------------------------------------------ databases */

int pm_ddl_create_database(pm_catalog *c, const char *name, const pm_options *properties, int ignore_if_exists,
                           pm_error *err) {
  PM_TRY(check_db_name(name, "create database", err));
  if (properties && pm_options_get(properties, DB_LOCATION_PROP))
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "create database '%s': property '%s' cannot be set in a filesystem catalog", name,
                     DB_LOCATION_PROP);
  /* Other properties: a filesystem catalog cannot store them; Java discards them too. */
  int exists = 0;
  PM_TRY(db_exists(c, name, &exists, err));
  if (exists) {
    if (ignore_if_exists) return 0;
    return pm_errorf(err, PAIMON_ERR_CONFLICT, "database '%s' already exists", name);
  }
  char *p = db_path(c, name);
  if (!p) return PM_NOMEM(err);
  int rc = pm_fs_mkdirs(c->fs, p, err);
  if (rc) pm_error_prefix(err, "create database '%s': ", name);
  free(p);
  return rc;
}

int pm_ddl_drop_database(pm_catalog *c, const char *name, int cascade, int ignore_if_not_exists, pm_error *err) {
  PM_TRY(check_db_name(name, "drop database", err));
  int exists = 0;
  PM_TRY(db_exists(c, name, &exists, err));
  if (!exists) {
    if (ignore_if_not_exists) return 0;
    return pm_errorf(err, PAIMON_ERR_NOT_FOUND, "database '%s' does not exist", name);
  }
  if (!cascade) {
    char **tables = NULL;
    size_t n = 0;
    PM_TRY(pm_catalog_list_tables(c, name, &tables, &n, err));
    if (n) {
      int rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                         "database '%s' is not empty (%zu table%s, e.g. '%s'): drop it with cascade", name, n,
                         n == 1 ? "" : "s", tables[0]);
      pm_free_names(tables, n);
      return rc;
    }
  }
  char *p = db_path(c, name);
  if (!p) return PM_NOMEM(err);
  int rc = delete_tree(c->fs, p, 0, err);
  if (rc) pm_error_prefix(err, "drop database '%s': ", name);
  free(p);
  return rc;
}

int pm_ddl_database_properties(const pm_catalog *c, const char *name, pm_options *out, pm_error *err) {
  pm_options_init(out);
  if (!name || !*name) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "database name is empty");
  int exists = 0;
  PM_TRY(db_exists(c, name, &exists, err));
  if (!exists) return pm_errorf(err, PAIMON_ERR_NOT_FOUND, "database '%s' does not exist", name);
  char *p = db_path(c, name);
  if (!p) return PM_NOMEM(err);
  int rc = pm_options_set(out, DB_LOCATION_PROP, p, err);
  free(p);
  if (rc) pm_options_clear(out);
  return rc;
}

/* --------------------------------------------------------------- tables */

/* A data-table identifier of the main branch, as Java's DDL calls demand. */
static int parse_data_table(const char *text, const char *method, pm_identifier *id, pm_error *err) {
  if (!text) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: identifier is NULL", method);
  PM_TRY(pm_identifier_parse(text, id, err));
  int rc = 0;
  if (id->branch)
    rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: '%s' is a branch; use the table of the main branch", method,
                   text);
  else if (id->system_table || !strcmp(id->database, SYSTEM_DATABASE))
    rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: '%s' is a system table; use a data table", method, text);
  else if (strchr(id->table, '.') || strchr(id->database, '$'))
    rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: bad identifier '%s' (expected db.table)", method, text);
  if (rc) pm_identifier_clear(id);
  return rc;
}

/* 1 when the table has a schema (Java: tableExistsInFileSystem). */
static int table_exists(pm_catalog *c, const char *root, int *exists, pm_error *err) {
  pm_schema_manager m = pm_schema_manager_of(c->fs, root, NULL);
  int64_t *ids = NULL;
  size_t n = 0;
  PM_TRY(pm_schema_list_ids(&m, &ids, &n, err));
  free(ids);
  *exists = n > 0;
  return 0;
}

static int64_t now_millis(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Java copyTableDefaultOptions: catalog `table-default.k = v` becomes table option k unless given. */
static int add_table_defaults(const pm_catalog *c, pm_schema_spec *s, pm_error *err) {
  const char *prefix = pm_table_default_option_prefix();
  size_t pl = strlen(prefix);
  for (size_t i = 0; i < c->options.n; i++) {
    const char *k = c->options.keys[i];
    if (strncmp(k, prefix, pl) != 0 || !k[pl] || pm_options_get(&s->options, k + pl)) continue;
    PM_TRY(pm_options_set(&s->options, k + pl, c->options.values[i], err));
    s->n_default_options++;
  }
  return 0;
}

int pm_ddl_create_table(pm_catalog *c, const char *identifier, const pm_schema_spec *spec, int ignore_if_exists,
                        pm_error *err) {
  pm_identifier id;
  PM_TRY(parse_data_table(identifier, "create table", &id, err));
  pm_schema_spec s;
  pm_table_schema *schema = NULL;
  char *root = NULL;
  int rc = pm_schema_spec_copy(spec, &s, err), exists = 0;
  if (!rc) rc = add_table_defaults(c, &s, err);
  if (!rc) rc = pm_schema_spec_build(&s, now_millis(), &schema, err);
  if (rc == PAIMON_ERR_INVALID_ARGUMENT || rc == PAIMON_ERR_UNSUPPORTED) pm_error_prefix(err, "create table %s: ", identifier);
  if (!rc) rc = db_exists(c, id.database, &exists, err);
  if (!rc && !exists) rc = pm_errorf(err, PAIMON_ERR_NOT_FOUND, "create table %s: database '%s' does not exist",
                                     identifier, id.database);
  if (!rc && !(root = pm_catalog_table_path(c, id.database, id.table))) rc = PM_NOMEM(err);
  if (!rc) rc = table_exists(c, root, &exists, err);
  if (!rc && exists) {
    if (!ignore_if_exists) rc = pm_errorf(err, PAIMON_ERR_CONFLICT, "table %s already exists", identifier);
  } else if (!rc) {
    pm_schema_manager m = pm_schema_manager_of(c->fs, root, NULL);
    rc = pm_schema_write(&m, schema, err);
    if (rc == PAIMON_ERR_CONFLICT)
      rc = pm_errorf(err, PAIMON_ERR_CONFLICT, "table %s was created concurrently (schema-0 exists)", identifier);
    else if (rc) pm_error_prefix(err, "create table %s: ", identifier);
  }
  free(root);
  pm_schema_free(schema);
  pm_schema_spec_clear(&s);
  pm_identifier_clear(&id);
  return rc;
}

/* Adds the data-file.external-paths roots of every schema of (root, branch) to *list (deduplicated). */
static int add_external_roots(pm_fs *fs, const char *root, const char *branch, char ***list, size_t *n,
                              pm_error *err) {
  pm_schema_manager m = pm_schema_manager_of(fs, root, branch);
  int64_t *ids = NULL;
  size_t n_ids = 0;
  PM_TRY(pm_schema_list_ids(&m, &ids, &n_ids, err));
  int rc = 0;
  for (size_t i = 0; !rc && i < n_ids; i++) {
    pm_table_schema *s = NULL;
    rc = pm_schema_read(&m, ids[i], &s, err);
    const char *v = rc ? NULL : pm_options_get(&s->options, pm_core_option_key(PM_CO_DATA_FILE_EXTERNAL_PATHS));
    for (const char *p = v; !rc && p && *p;) {
      const char *e = strchr(p, ',');
      size_t l = e ? (size_t)(e - p) : strlen(p);
      int dup = l == 0;
      for (size_t k = 0; !dup && k < *n; k++) dup = strlen((*list)[k]) == l && !strncmp((*list)[k], p, l);
      if (!dup) {
        char **nl = realloc(*list, (*n + 1) * sizeof *nl);
        char *item = nl ? strndup(p, l) : NULL;
        if (nl) *list = nl;
        if (!item) rc = PM_NOMEM(err);
        else (*list)[(*n)++] = item;
      }
      p = e ? e + 1 : NULL;
    }
    pm_schema_free(s);
  }
  free(ids);
  return rc;
}

/* Java's AbstractCatalog.dropTable: the external-path roots named by any schema of the
 * table (main branch and every branch) are deleted with the table directory. */
static int external_roots(pm_catalog *c, const char *root, char ***list, size_t *n, pm_error *err) {
  PM_TRY(add_external_roots(c->fs, root, NULL, list, n, err));
  size_t l = strlen(root) + 8;
  char *bdir = malloc(l);
  if (!bdir) return PM_NOMEM(err);
  snprintf(bdir, l, "%s/branch", root);
  int exists = 0;
  int rc = pm_fs_exists(c->fs, bdir, &exists, err);
  char **names = NULL;
  size_t nn = 0;
  if (!rc && exists) rc = pm_fs_list(c->fs, bdir, "branch-", &names, &nn, err);
  for (size_t i = 0; !rc && i < nn; i++) rc = add_external_roots(c->fs, root, names[i] + 7, list, n, err);
  pm_free_names(names, nn);
  free(bdir);
  return rc;
}

int pm_ddl_drop_table(pm_catalog *c, const char *identifier, int ignore_if_not_exists, pm_error *err) {
  pm_identifier id;
  PM_TRY(parse_data_table(identifier, "drop table", &id, err));
  char *root = pm_catalog_table_path(c, id.database, id.table);
  int rc = root ? 0 : PM_NOMEM(err), exists = 0;
  if (!rc) rc = table_exists(c, root, &exists, err);
  if (!rc && !exists) {
    if (!ignore_if_not_exists) rc = pm_errorf(err, PAIMON_ERR_NOT_FOUND, "table %s does not exist", identifier);
  } else if (!rc) {
    char **ext = NULL;
    size_t n_ext = 0;
    pm_table *t = NULL;
    rc = external_roots(c, root, &ext, &n_ext, err);
    /* stored roots resolve as the table resolves its external paths (rewrites, file: scheme) */
    if (!rc && n_ext) rc = pm_catalog_get_table(c, identifier, NULL, &t, err);
    if (!rc) rc = delete_tree(c->fs, root, 0, err);
    for (size_t i = 0; !rc && i < n_ext; i++) {
      char *local = NULL;
      rc = pm_table_resolve_path(t, ext[i], &local, err);
      if (!rc) rc = delete_tree(c->fs, local, 0, err);
      if (rc) pm_error_prefix(err, "external path %s: ", ext[i]);
      free(local);
    }
    if (rc) pm_error_prefix(err, "drop table %s: ", identifier);
    pm_table_free(t);
    for (size_t i = 0; i < n_ext; i++) free(ext[i]);
    free(ext);
  }
  free(root);
  pm_identifier_clear(&id);
  return rc;
}

int pm_ddl_rename_table(pm_catalog *c, const char *from, const char *to, int ignore_if_not_exists, pm_error *err) {
  pm_identifier a, b;
  PM_TRY(parse_data_table(from, "rename table", &a, err));
  int rc = parse_data_table(to, "rename table", &b, err);
  if (rc) {
    pm_identifier_clear(&a);
    return rc;
  }
  char *ra = NULL, *rb = NULL;
  int exists = 0;
  if (strcmp(a.database, b.database) != 0)
    rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "rename table %s to %s: the filesystem catalog renames only within one database",
                   from, to);
  if (!rc && (!(ra = pm_catalog_table_path(c, a.database, a.table)) || !(rb = pm_catalog_table_path(c, b.database, b.table))))
    rc = PM_NOMEM(err);
  if (!rc) rc = table_exists(c, ra, &exists, err);
  if (!rc && !exists) {
    if (!ignore_if_not_exists) rc = pm_errorf(err, PAIMON_ERR_NOT_FOUND, "rename table: table %s does not exist", from);
  } else if (!rc) {
    rc = pm_fs_exists(c->fs, rb, &exists, err);
    if (!rc && exists) rc = pm_errorf(err, PAIMON_ERR_CONFLICT, "rename table %s: target %s already exists", from, to);
    if (!rc) {
      rc = pm_fs_rename(c->fs, ra, rb, err);
      if (rc) pm_error_prefix(err, "rename table %s to %s: ", from, to);
    }
  }
  free(ra);
  free(rb);
  pm_identifier_clear(&a);
  pm_identifier_clear(&b);
  return rc;
}
