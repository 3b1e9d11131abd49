/*
 * The `paimon` module and its entry point: paimon_attach('warehouse=...', ...) makes each
 * Paimon database a SQLite schema (an attached in-memory database of the same name) holding
 * a virtual table per table, per system table ("t$snapshots", ...) and per branch
 * ("t$branch_b"). xCreate / xConnect open the Paimon table and declare its columns.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/psql.h"
#include "paimon/sqlite.h"

SQLITE_EXTENSION_INIT1

static const char *const SYSTEM_TABLES[] = {"snapshots", "schemas",  "options",  "files",
                                            "partitions", "tags",    "branches", "manifests"};
#define N_SYSTEM_TABLES (sizeof SYSTEM_TABLES / sizeof SYSTEM_TABLES[0])

/* Catalog option keys (everything else given to paimon_attach is a read option). */
static int is_catalog_key(const char *k) {
  return !strcmp(k, "warehouse") || !strcmp(k, "metastore") || !strcmp(k, "path-rewrite") || !strcmp(k, "threads");
}

static char *dupstr(const char *s) {
  size_t n = strlen(s);
  char *d = malloc(n + 1);
  if (d) memcpy(d, s, n + 1);
  return d;
}

int psql_vtab_error(psql_vtab *vt, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sqlite3_free(vt->base.zErrMsg);
  vt->base.zErrMsg = sqlite3_vmprintf(fmt, ap);
  va_end(ap);
  return SQLITE_ERROR;
}

static void attach_free(psql_attach *a) {
  if (!a) return;
  paimon_catalog_free(a->catalog);
  for (size_t i = 0; i < a->n_cat; i++) free(a->cat_keys[i]), free(a->cat_values[i]);
  for (size_t i = 0; i < a->n_read; i++) free(a->read_keys[i]), free(a->read_values[i]);
  for (size_t i = 0; i < a->n_schemas; i++) free(a->schemas[i]), free(a->databases[i]);
  free(a->cat_keys);
  free(a->cat_values);
  free(a->read_keys);
  free(a->read_values);
  free(a->schemas);
  free(a->databases);
  free(a);
}

psql_attach *psql_find_schema(psql_conn *c, const char *schema, const char **database) {
  for (psql_attach *a = c->attaches; a; a = a->next)
    for (size_t i = 0; i < a->n_schemas; i++)
      if (!sqlite3_stricmp(a->schemas[i], schema)) {
        if (database) *database = a->databases[i];
        return a;
      }
  return NULL;
}

/* ------------------------------------------------------------------- the vtab */

static void vtab_free(psql_vtab *vt) {
  if (!vt) return;
  psql_rollback(&vt->base); /* a transaction still open publishes nothing */
  paimon_table_free(vt->table);
  for (int i = 0; i < vt->n_cols; i++) {
    free(vt->col_names[i]);
    if (vt->col_paimon) paimon_free_string(vt->col_paimon[i]);
    psql_type_free(&vt->col_types[i]);
  }
  free(vt->col_names);
  free(vt->col_paimon);
  free(vt->col_types);
  free(vt->pk_cols);
  free(vt->ident);
  sqlite3_free(vt->base.zErrMsg);
  free(vt);
}

/* Opens vt->ident and fills the column list. */
static int vtab_open(psql_vtab *vt, char **pzErr) {
  paimon_error e;
  paimon_status st = psql_open_table(vt->attach->catalog, vt->ident, &vt->system, &vt->table, &e);
  if (st) {
    *pzErr = sqlite3_mprintf("paimon: %s", e.message);
    return SQLITE_ERROR;
  }
  struct ArrowSchema s;
  if (paimon_table_arrow_schema(vt->table, &s, &e)) {
    *pzErr = sqlite3_mprintf("paimon: %s", e.message);
    return SQLITE_ERROR;
  }
  int rc = SQLITE_OK;
  int n = (int)s.n_children;
  vt->col_names = calloc((size_t)n + 1, sizeof *vt->col_names);
  vt->col_types = calloc((size_t)n + 1, sizeof *vt->col_types);
  vt->col_paimon = calloc((size_t)n + 1, sizeof *vt->col_paimon);
  if (!vt->col_names || !vt->col_types || !vt->col_paimon) rc = SQLITE_NOMEM;
  for (int i = 0; i < n && !rc; i++) {
    vt->col_names[i] = dupstr(s.children[i]->name ? s.children[i]->name : "");
    rc = psql_type_from_schema(s.children[i], &vt->col_types[i], pzErr);
    vt->n_cols = i + 1;
    if (!rc && !vt->system && paimon_table_column_type(vt->table, (size_t)i, &vt->col_paimon[i], &e) == PAIMON_OK) {
      int d = psql_paimon_type_digits(vt->col_paimon[i]);
      if (d >= 0) vt->col_types[i].digits = d;
    }
  }
  if (s.release) s.release(&s);
  return rc;
}

static int declare(sqlite3 *db, psql_vtab *vt, char **pzErr) {
  psql_buf b = {0};
  psql_buf_puts(&b, "CREATE TABLE x(");
  for (int i = 0; i < vt->n_cols; i++) {
    if (i) psql_buf_puts(&b, ", ");
    psql_buf_ident(&b, vt->col_names[i]);
    psql_buf_puts(&b, " ");
    psql_buf_puts(&b, psql_type_decl(&vt->col_types[i]));
  }
  for (int i = 0; i < PSQL_N_OPTIONS; i++) psql_buf_printf(&b, "%spaimon_option%d HIDDEN", vt->n_cols || i ? ", " : "", i + 1);
  psql_buf_puts(&b, ")");
  if (b.oom) {
    psql_buf_free(&b);
    return SQLITE_NOMEM;
  }
  int rc = sqlite3_declare_vtab(db, b.data);
  if (rc) *pzErr = sqlite3_mprintf("paimon: cannot declare %s: %s", vt->ident, sqlite3_errmsg(db));
  psql_buf_free(&b);
  return rc;
}

/* argv: module, schema, table name, args... */
static int psql_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
                        char **pzErr) {
  psql_conn *c = aux;
  const char *database = NULL;
  psql_attach *a = psql_find_schema(c, argv[1], &database);
  if (!a) {
    *pzErr = sqlite3_mprintf("paimon: schema %s is not a Paimon database (run SELECT paimon_attach(...) first)",
                             argv[1]);
    return SQLITE_ERROR;
  }
  psql_vtab *vt = calloc(1, sizeof *vt);
  if (!vt) return SQLITE_NOMEM;
  vt->conn = c;
  vt->attach = a;
  {
    size_t n = strlen(database) + strlen(argv[2]) + 2;
    vt->ident = malloc(n);
    if (vt->ident) snprintf(vt->ident, n, "%s.%s", database, argv[2]);
  }
  int rc = vt->ident ? vtab_open(vt, pzErr) : SQLITE_NOMEM;
  if (!rc) rc = declare(db, vt, pzErr);
  if (rc) {
    vtab_free(vt);
    return rc;
  }
  (void)argc;
  *out = &vt->base;
  return SQLITE_OK;
}

/* Splits "a, b" (a parenthesized list, quotes honoured) into names; returns the count or -1. */
static int split_list(const char *s, char **out, int cap) {
  const char *p = strchr(s, '(');
  if (!p) return -1;
  p++;
  int n = 0;
  while (*p && *p != ')' && n < cap) {
    while (*p == ' ' || *p == '\t' || *p == ',') p++;
    if (*p == ')') break;
    char q = (*p == '"' || *p == '`') ? *p++ : 0;
    const char *st = p;
    while (*p && (q ? *p != q : (*p != ',' && *p != ')' && *p != ' '))) p++;
    out[n] = sqlite3_mprintf("%.*s", (int)(p - st), st);
    n++;
    if (q && *p) p++;
    while (*p == ' ') p++;
  }
  return n;
}

/* 'k' = 'v' pairs of WITH (...) into the builder. */
static int with_options(paimon_schema_builder *b, const char *s, char **pzErr) {
  const char *p = strchr(s, '(');
  paimon_error e;
  while (p && *p) {
    const char *k1 = strchr(p, '\'');
    if (!k1) break;
    const char *k2 = strchr(k1 + 1, '\'');
    const char *v1 = k2 ? strchr(k2 + 1, '\'') : NULL;
    const char *v2 = v1 ? strchr(v1 + 1, '\'') : NULL;
    if (!v2) {
      *pzErr = sqlite3_mprintf("paimon: cannot read the WITH options %s ('key' = 'value', ...)", s);
      return SQLITE_ERROR;
    }
    char *k = sqlite3_mprintf("%.*s", (int)(k2 - k1 - 1), k1 + 1);
    char *v = sqlite3_mprintf("%.*s", (int)(v2 - v1 - 1), v1 + 1);
    paimon_status st = paimon_schema_builder_option(b, k, v, &e);
    sqlite3_free(k);
    sqlite3_free(v);
    if (st) {
      *pzErr = sqlite3_mprintf("paimon: %s", e.message);
      return SQLITE_ERROR;
    }
    p = v2 + 1;
  }
  return SQLITE_OK;
}

static int starts_kw(const char *s, const char *kw) {
  while (*s == ' ') s++;
  return !sqlite3_strnicmp(s, kw, (int)strlen(kw));
}

/* CREATE VIRTUAL TABLE db.t USING paimon(id INT NOT NULL, name STRING, PRIMARY KEY (id),
 * PARTITIONED BY (dt), WITH ('bucket' = '4')): creates the Paimon table (Paimon type syntax). */
static int psql_create(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
                       char **pzErr) {
  /* paimon_attach creates the entries of existing tables with the single argument `attach` */
  if (argc == 4 && !strcmp(argv[3], "attach")) return psql_connect(db, aux, argc, argv, out, pzErr);
  psql_conn *c = aux;
  const char *database = NULL;
  psql_attach *a = psql_find_schema(c, argv[1], &database);
  if (!a) {
    *pzErr = sqlite3_mprintf("paimon: schema %s is not a Paimon database (run SELECT paimon_attach(...) first)", argv[1]);
    return SQLITE_ERROR;
  }
  if (strchr(argv[2], '$')) {
    *pzErr = sqlite3_mprintf("paimon: cannot create %s: '$' names system tables and branches", argv[2]);
    return SQLITE_ERROR;
  }
  paimon_error e;
  paimon_schema_builder *b = NULL;
  if (paimon_schema_builder_new(&b, &e)) {
    *pzErr = sqlite3_mprintf("paimon: %s", e.message);
    return SQLITE_ERROR;
  }
  int rc = SQLITE_OK;
  for (int i = 3; i < argc && !rc; i++) {
    const char *arg = argv[i];
    char *names[64];
    if (starts_kw(arg, "PRIMARY KEY") || starts_kw(arg, "PARTITIONED BY")) {
      int n = split_list(arg, names, 64);
      if (n < 0) {
        *pzErr = sqlite3_mprintf("paimon: %s: expected a column list in parentheses", arg);
        rc = SQLITE_ERROR;
        break;
      }
      paimon_status st = starts_kw(arg, "PRIMARY KEY") ? paimon_schema_builder_primary_key(b, (const char *const *)names, (size_t)n, &e)
                                                      : paimon_schema_builder_partition_keys(b, (const char *const *)names, (size_t)n, &e);
      for (int k = 0; k < n; k++) sqlite3_free(names[k]);
      if (st) {
        *pzErr = sqlite3_mprintf("paimon: %s", e.message);
        rc = SQLITE_ERROR;
      }
    } else if (starts_kw(arg, "WITH")) {
      rc = with_options(b, arg, pzErr);
    } else if (paimon_schema_builder_columns_sql(b, arg, &e)) {
      *pzErr = sqlite3_mprintf("paimon: %s", e.message);
      rc = SQLITE_ERROR;
    }
  }
  char *ident = sqlite3_mprintf("%s.%s", database, argv[2]);
  if (!rc && paimon_catalog_create_table(a->catalog, ident, b, 0, &e)) {
    *pzErr = sqlite3_mprintf("paimon: %s", e.message);
    rc = SQLITE_ERROR;
  }
  sqlite3_free(ident);
  paimon_schema_builder_free(b);
  if (rc) return rc;
  return psql_connect(db, aux, argc, argv, out, pzErr);
}

/* DROP TABLE db.t drops the Paimon table (system tables and branches: only the entry). */
static int psql_destroy(sqlite3_vtab *v) {
  psql_vtab *vt = (psql_vtab *)v;
  if (!vt->system && !strchr(vt->ident, '$')) {
    paimon_error e;
    paimon_table_free(vt->table);
    vt->table = NULL;
    if (paimon_catalog_drop_table(vt->attach->catalog, vt->ident, 1, &e)) return psql_vtab_error(vt, "paimon: %s", e.message);
  }
  vtab_free(vt);
  return SQLITE_OK;
}

static int psql_disconnect(sqlite3_vtab *v) {
  vtab_free((psql_vtab *)v);
  return SQLITE_OK;
}

static sqlite3_module MODULE = {
    .iVersion = 3,
    .xCreate = psql_create,
    .xConnect = psql_connect,
    .xBestIndex = psql_best_index,
    .xDisconnect = psql_disconnect,
    .xDestroy = psql_destroy,
    .xOpen = psql_open,
    .xClose = psql_close,
    .xFilter = psql_filter,
    .xNext = psql_next,
    .xEof = psql_eof,
    .xColumn = psql_column,
    .xRowid = psql_rowid,
    .xUpdate = psql_update,
    .xBegin = psql_begin,
    .xSync = psql_sync,
    .xCommit = psql_commit,
    .xRollback = psql_rollback,
    .xSavepoint = psql_savepoint,
    .xRelease = psql_release,
    .xRollbackTo = psql_rollback_to,
};

/* ------------------------------------------------------------- paimon_attach */

static int exec_ddl(sqlite3 *db, psql_buf *b, sqlite3_context *ctx) {
  if (b->oom) {
    sqlite3_result_error_nomem(ctx);
    return SQLITE_NOMEM;
  }
  char *msg = NULL;
  int rc = sqlite3_exec(db, b->data, NULL, NULL, &msg);
  if (rc) {
    char *m = sqlite3_mprintf("paimon_attach: %s: %s", b->data, msg ? msg : sqlite3_errstr(rc));
    sqlite3_result_error(ctx, m, -1);
    sqlite3_free(m);
  }
  sqlite3_free(msg);
  return rc;
}

/* CREATE VIRTUAL TABLE entries of the tables of `database`, their branches and system tables. */
static int create_entries(sqlite3 *db, psql_attach *a, const char *schema, const char *database, sqlite3_context *ctx,
                          int64_t *n_tables) {
  paimon_error e;
  char **tables = NULL;
  size_t nt = 0;
  if (paimon_catalog_list_tables(a->catalog, database, &tables, &nt, &e)) {
    char *m = sqlite3_mprintf("paimon_attach: %s", e.message);
    sqlite3_result_error(ctx, m, -1);
    sqlite3_free(m);
    return SQLITE_ERROR;
  }
  int rc = SQLITE_OK;
  for (size_t i = 0; i < nt && !rc; i++) {
    char **names = NULL;
    size_t nn = 0;
    /* the table, its branches, then the system tables of each */
    char ident[4096];
    snprintf(ident, sizeof ident, "%s.%s", database, tables[i]);
    paimon_table *t = NULL;
    char **branches = NULL;
    size_t nb = 0;
    if (paimon_catalog_get_table(a->catalog, ident, &t, &e) == PAIMON_OK)
      (void)paimon_table_list_branches(t, &branches, &nb, &e);
    paimon_table_free(t);
    nn = (1 + nb) * (1 + N_SYSTEM_TABLES);
    names = calloc(nn, sizeof *names);
    size_t k = 0;
    for (size_t bi = 0; names && bi <= nb; bi++) {
      const char *base = bi == 0 ? tables[i] : NULL;
      char *bname = bi == 0 ? sqlite3_mprintf("%s", base) : sqlite3_mprintf("%s$branch_%s", tables[i], branches[bi - 1]);
      names[k++] = bname;
      for (size_t s = 0; s < N_SYSTEM_TABLES; s++) names[k++] = sqlite3_mprintf("%s$%s", bname, SYSTEM_TABLES[s]);
    }
    for (size_t j = 0; names && j < k && !rc; j++) {
      if (!names[j]) {
        rc = SQLITE_NOMEM;
        break;
      }
      psql_buf b = {0};
      psql_buf_puts(&b, "CREATE VIRTUAL TABLE IF NOT EXISTS ");
      psql_buf_ident(&b, schema);
      psql_buf_puts(&b, ".");
      psql_buf_ident(&b, names[j]);
      psql_buf_puts(&b, " USING paimon(attach)");
      rc = exec_ddl(db, &b, ctx);
      psql_buf_free(&b);
    }
    if (!names) rc = SQLITE_NOMEM;
    for (size_t j = 0; names && j < k; j++) sqlite3_free(names[j]);
    free(names);
    paimon_free_strings(branches, nb);
    (*n_tables)++;
  }
  paimon_free_strings(tables, nt);
  return rc;
}

static int push_opt(char ***keys, char ***values, size_t *n, const char *k, size_t klen, const char *v) {
  char **nk = realloc(*keys, (*n + 1) * sizeof *nk);
  if (!nk) return SQLITE_NOMEM;
  *keys = nk;
  char **nv = realloc(*values, (*n + 1) * sizeof *nv);
  if (!nv) return SQLITE_NOMEM;
  *values = nv;
  char *kk = malloc(klen + 1);
  char *vv = dupstr(v);
  if (!kk || !vv) {
    free(kk);
    free(vv);
    return SQLITE_NOMEM;
  }
  memcpy(kk, k, klen);
  kk[klen] = 0;
  nk[*n] = kk;
  nv[*n] = vv;
  (*n)++;
  return SQLITE_OK;
}

/* paimon_attach('key=value', ...): catalog options (warehouse, metastore, path-rewrite),
 * 'threads=N' (worker threads an operation may use; default 1: none of the module's own),
 * 'database=NAME' (attach only that database), 'schema=NAME' (its SQLite schema name; one
 * database only), anything else a read option of every table (e.g. scan.snapshot-id=3).
 * Returns the number of tables attached. */
static void fn_attach(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  psql_conn *c = sqlite3_user_data(ctx);
  psql_attach *a = calloc(1, sizeof *a);
  if (!a) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  const char *only_db = NULL, *schema_name = NULL;
  int rc = SQLITE_OK;
  for (int i = 0; i < argc && !rc; i++) {
    const char *arg = (const char *)sqlite3_value_text(argv[i]);
    const char *eq = arg ? strchr(arg, '=') : NULL;
    if (!eq || eq == arg) {
      char *m = sqlite3_mprintf("paimon_attach: argument %d is not key=value: %s", i + 1, arg ? arg : "NULL");
      sqlite3_result_error(ctx, m, -1);
      sqlite3_free(m);
      attach_free(a);
      return;
    }
    size_t kl = (size_t)(eq - arg);
    if (kl == 8 && !strncmp(arg, "database", 8)) only_db = eq + 1;
    else if (kl == 6 && !strncmp(arg, "schema", 6)) schema_name = eq + 1;
    else {
      char key[256];
      snprintf(key, sizeof key, "%.*s", (int)kl, arg);
      rc = is_catalog_key(key) ? push_opt(&a->cat_keys, &a->cat_values, &a->n_cat, arg, kl, eq + 1)
                               : push_opt(&a->read_keys, &a->read_values, &a->n_read, arg, kl, eq + 1);
    }
  }
  if (rc) {
    attach_free(a);
    sqlite3_result_error_nomem(ctx);
    return;
  }
  /* No threads of the module's own unless asked for ('threads=N'): SQLite embedders expect a
   * call to run on their thread, and an extension unloaded by sqlite3_close must leave no
   * worker behind. threads=1 makes every operation run on the caller's thread. */
  int has_threads = 0;
  for (size_t i = 0; i < a->n_cat; i++) has_threads |= !strcmp(a->cat_keys[i], "threads");
  if (!has_threads && push_opt(&a->cat_keys, &a->cat_values, &a->n_cat, "threads", 7, "1")) {
    attach_free(a);
    sqlite3_result_error_nomem(ctx);
    return;
  }
  paimon_option *opts = calloc(a->n_cat + 1, sizeof *opts);
  for (size_t i = 0; opts && i < a->n_cat; i++) opts[i].key = a->cat_keys[i], opts[i].value = a->cat_values[i];
  paimon_error e;
  if (!opts || paimon_catalog_open(opts, a->n_cat, &a->catalog, &e)) {
    char *m = opts ? sqlite3_mprintf("paimon_attach: %s", e.message) : NULL;
    if (m) sqlite3_result_error(ctx, m, -1);
    else sqlite3_result_error_nomem(ctx);
    sqlite3_free(m);
    free(opts);
    attach_free(a);
    return;
  }
  free(opts);
  char **dbs = NULL;
  size_t nd = 0;
  if (only_db) {
    dbs = calloc(1, sizeof *dbs);
    if (dbs) dbs[0] = dupstr(only_db), nd = 1;
  } else if (paimon_catalog_list_databases(a->catalog, &dbs, &nd, &e)) {
    char *m = sqlite3_mprintf("paimon_attach: %s", e.message);
    sqlite3_result_error(ctx, m, -1);
    sqlite3_free(m);
    attach_free(a);
    return;
  }
  if (schema_name && nd != 1) {
    sqlite3_result_error(ctx, "paimon_attach: schema=NAME needs exactly one database (database=NAME)", -1);
    paimon_free_strings(dbs, nd);
    attach_free(a);
    return;
  }
  {
    /* SQLite attaches at most SQLITE_LIMIT_ATTACHED databases (10 in Debian's build) */
    int used = 0;
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(c->db, "PRAGMA database_list", -1, &q, NULL) == SQLITE_OK)
      while (sqlite3_step(q) == SQLITE_ROW) {
        const char *nm = (const char *)sqlite3_column_text(q, 1);
        if (nm && strcmp(nm, "main") && strcmp(nm, "temp")) used++;
      }
    sqlite3_finalize(q);
    int limit = sqlite3_limit(c->db, SQLITE_LIMIT_ATTACHED, -1);
    if ((int64_t)nd > (int64_t)limit - used) {
      char *m = sqlite3_mprintf("paimon_attach: the warehouse has %d databases and SQLite can attach %d more "
                                "(SQLITE_LIMIT_ATTACHED %d): attach some with 'database=NAME'",
                                (int)nd, limit - used, limit);
      sqlite3_result_error(ctx, m, -1);
      sqlite3_free(m);
      paimon_free_strings(dbs, nd);
      attach_free(a);
      return;
    }
  }
  a->schemas = calloc(nd + 1, sizeof *a->schemas);
  a->databases = calloc(nd + 1, sizeof *a->databases);
  for (size_t i = 0; a->schemas && a->databases && i < nd; i++) {
    a->schemas[i] = dupstr(schema_name ? schema_name : dbs[i]);
    a->databases[i] = dupstr(dbs[i]);
    a->n_schemas = i + 1;
  }
  paimon_free_strings(dbs, nd);
  for (size_t i = 0; i < a->n_schemas; i++)
    if (psql_find_schema(c, a->schemas[i], NULL)) {
      char *m = sqlite3_mprintf("paimon_attach: schema %s is already attached", a->schemas[i]);
      sqlite3_result_error(ctx, m, -1);
      sqlite3_free(m);
      attach_free(a);
      return;
    }
  a->next = c->attaches;
  c->attaches = a;
  int64_t n_tables = 0;
  for (size_t i = 0; i < a->n_schemas && !rc; i++) {
    psql_buf b = {0};
    psql_buf_puts(&b, "ATTACH ':memory:' AS ");
    psql_buf_ident(&b, a->schemas[i]);
    rc = exec_ddl(c->db, &b, ctx);
    psql_buf_free(&b);
    if (!rc) rc = create_entries(c->db, a, a->schemas[i], a->databases[i], ctx, &n_tables);
  }
  if (rc) return; /* the error is set; what was attached stays usable */
  sqlite3_result_int64(ctx, n_tables);
}

/* paimon_create_database('db' [, 'schema']): creates the database in the catalog of the latest
 * paimon_attach and attaches it (as schema, default its name). Returns 1. */
static void fn_create_database(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  psql_conn *c = sqlite3_user_data(ctx);
  psql_attach *a = c->attaches;
  const char *name = (const char *)sqlite3_value_text(argv[0]);
  const char *schema = argc > 1 ? (const char *)sqlite3_value_text(argv[1]) : name;
  if (!a || !name || !*name || !schema) {
    sqlite3_result_error(ctx, a ? "paimon_create_database: needs a database name" : "paimon_create_database: run SELECT paimon_attach('warehouse=...') first", -1);
    return;
  }
  if (psql_find_schema(c, schema, NULL)) {
    char *m = sqlite3_mprintf("paimon_create_database: schema %s is already attached", schema);
    sqlite3_result_error(ctx, m, -1);
    sqlite3_free(m);
    return;
  }
  paimon_error e;
  if (paimon_catalog_create_database(a->catalog, name, NULL, 0, 0, &e)) {
    char *m = sqlite3_mprintf("paimon_create_database: %s", e.message);
    sqlite3_result_error(ctx, m, -1);
    sqlite3_free(m);
    return;
  }
  char **ns = realloc(a->schemas, (a->n_schemas + 1) * sizeof *ns);
  if (ns) a->schemas = ns;
  char **nd = ns ? realloc(a->databases, (a->n_schemas + 1) * sizeof *nd) : NULL;
  if (nd) a->databases = nd;
  if (!ns || !nd) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  a->schemas[a->n_schemas] = dupstr(schema);
  a->databases[a->n_schemas] = dupstr(name);
  a->n_schemas++;
  psql_buf b = {0};
  psql_buf_puts(&b, "ATTACH ':memory:' AS ");
  psql_buf_ident(&b, schema);
  if (exec_ddl(c->db, &b, ctx) == SQLITE_OK) sqlite3_result_int(ctx, 1);
  psql_buf_free(&b);
}

/* paimon_pushdown(on): 0 plans reads without pushed filters or limits (comparisons in tests). */
static void fn_pushdown(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  psql_conn *c = sqlite3_user_data(ctx);
  (void)argc;
  c->no_pushdown = !sqlite3_value_int(argv[0]);
  sqlite3_result_int(ctx, !c->no_pushdown);
}

/* paimon_last_plan(): what the last planned read pruned (paimon_plan_explain), NULL before any. */
static void fn_last_plan(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  psql_conn *c = sqlite3_user_data(ctx);
  (void)argc;
  (void)argv;
  if (c->last_plan) sqlite3_result_text(ctx, c->last_plan, -1, SQLITE_TRANSIENT);
  else sqlite3_result_null(ctx);
}

static void conn_free(void *p) {
  psql_conn *c = p;
  if (!c) return;
  paimon_free_string(c->last_plan);
  while (c->attaches) {
    psql_attach *n = c->attaches->next;
    attach_free(c->attaches);
    c->attaches = n;
  }
  free(c);
}

PAIMON_SQLITE_EXPORT int sqlite3_paimonsqlite_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi) {
  SQLITE_EXTENSION_INIT2(pApi);
  psql_conn *c = calloc(1, sizeof *c);
  if (!c) return SQLITE_NOMEM;
  c->db = db;
  int rc = sqlite3_create_module_v2(db, "paimon", &MODULE, c, conn_free);
  if (rc) {
    *pzErrMsg = sqlite3_mprintf("paimon: cannot register the module: %s", sqlite3_errmsg(db));
    return rc;
  }
  if (!rc) rc = sqlite3_create_function(db, "paimon_attach", -1, SQLITE_UTF8 | SQLITE_DIRECTONLY, c, fn_attach, NULL, NULL);
  if (!rc) rc = sqlite3_create_function(db, "paimon_pushdown", 1, SQLITE_UTF8 | SQLITE_DIRECTONLY, c, fn_pushdown, NULL, NULL);
  if (!rc) rc = sqlite3_create_function(db, "paimon_create_database", -1, SQLITE_UTF8 | SQLITE_DIRECTONLY, c, fn_create_database, NULL, NULL);
  if (!rc) rc = psql_register_functions(db, c);
  if (!rc) rc = psql_register_scan(db, c);
  if (!rc) rc = sqlite3_create_function(db, "paimon_last_plan", 0, SQLITE_UTF8, c, fn_last_plan, NULL, NULL);
  if (rc && pzErrMsg) *pzErrMsg = sqlite3_mprintf("paimon: cannot register functions: %s", sqlite3_errmsg(db));
  return rc;
}
