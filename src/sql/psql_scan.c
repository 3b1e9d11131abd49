/*
 * Scans with read options (time travel, incremental ranges, scan modes):
 * - psql_read_builder: the read builder of a table with the attach's read options and a scan's
 *   own 'key=value' options (used by every paimon vtab scan, whose hidden paimon_optionN columns
 *   carry them: SELECT * FROM db.t('scan.snapshot-id=3')).
 * - paimon_scan('db.t', 'key=value', ...): an eponymous table-valued function with one column
 *   row_json (a JSON object per row, in the encoding of `table read --format jsonl`), for when
 *   the table is named by a value; SQLite fixes a virtual table's columns when it is connected,
 *   so the typed form is db.t('key=value', ...).
 */
#include <stdlib.h>
#include <string.h>

#include "sql/psql.h"

/* ------------------------------------------------------------ shared table / read helpers */

paimon_status psql_open_table(paimon_catalog *catalog, const char *ident, int *is_system, paimon_table **out,
                              paimon_error *e) {
  const char *dollar = strchr(ident, '$');
  int system = dollar && (strncmp(dollar, "$branch_", 8) != 0 || strchr(dollar + 1, '$'));
  if (is_system) *is_system = system;
  return system ? paimon_catalog_get_system_table(catalog, ident, out, e) : paimon_catalog_get_table(catalog, ident, out, e);
}

paimon_status psql_plan_read(psql_conn *c, paimon_read_builder *rb, struct ArrowArrayStream *st, paimon_error *e) {
  paimon_plan *plan = NULL;
  paimon_status rc = paimon_read_builder_plan(rb, &plan, e);
  if (!rc) {
    char *text = NULL;
    if (paimon_plan_explain(plan, &text, e) == PAIMON_OK) {
      paimon_free_string(c->last_plan);
      c->last_plan = text;
    }
    rc = paimon_read_plan(rb, plan, st, e);
  }
  paimon_plan_free(plan);
  return rc;
}

/* ------------------------------------------------------------ read builder with options */

int psql_read_builder(psql_attach *a, paimon_table *t, const char *ident, const char *const *opts, int n,
                      paimon_read_builder **out, char **err) {
  *out = NULL;
  *err = NULL;
  size_t cap = a->n_read + (size_t)n + 1, no = 0;
  paimon_option *o = calloc(cap, sizeof *o);
  char **owned = calloc(cap, sizeof *owned);
  int rc = o && owned ? SQLITE_OK : SQLITE_NOMEM;
  for (size_t i = 0; !rc && i < a->n_read; i++) o[no].key = a->read_keys[i], o[no++].value = a->read_values[i];
  for (int i = 0; !rc && i < n; i++) {
    if (!opts[i]) continue;
    const char *eq = strchr(opts[i], '=');
    if (!eq || eq == opts[i]) {
      *err = sqlite3_mprintf("paimon: %s: read option '%s' is not key=value", ident, opts[i]);
      rc = SQLITE_ERROR;
      break;
    }
    owned[i] = sqlite3_mprintf("%.*s", (int)(eq - opts[i]), opts[i]);
    if (!owned[i]) {
      rc = SQLITE_NOMEM;
      break;
    }
    size_t j = 0;
    while (j < no && strcmp(o[j].key, owned[i])) j++; /* a later key wins */
    o[j].key = owned[i];
    o[j].value = eq + 1;
    if (j == no) no++;
  }
  paimon_error e;
  if (!rc && paimon_read_builder_new(t, o, no, out, &e)) {
    *err = sqlite3_mprintf("paimon: %s: %s", ident, e.message);
    rc = SQLITE_ERROR;
  }
  for (int i = 0; owned && i < n; i++) sqlite3_free(owned[i]);
  free(owned);
  free(o);
  return rc;
}

psql_attach *psql_resolve_table(psql_conn *c, const char *name, char **ident, char **err) {
  *ident = NULL;
  const char *dot = name ? strchr(name, '.') : NULL;
  if (!dot || dot == name || !dot[1]) {
    *err = sqlite3_mprintf("paimon_scan: table '%s' is not db.table", name ? name : "NULL");
    return NULL;
  }
  char *schema = sqlite3_mprintf("%.*s", (int)(dot - name), name);
  if (!schema) return NULL;
  const char *database = NULL;
  psql_attach *a = psql_find_schema(c, schema, &database);
  for (psql_attach *x = c->attaches; x && !a; x = x->next) /* a Paimon database attached as another schema */
    for (size_t i = 0; i < x->n_schemas && !a; i++)
      if (!strcmp(x->databases[i], schema)) a = x, database = x->databases[i];
  if (!a) *err = sqlite3_mprintf("paimon_scan: database %s is not attached (SELECT paimon_attach(...) first)", schema);
  else if (!(*ident = sqlite3_mprintf("%s.%s", database, dot + 1))) a = NULL;
  sqlite3_free(schema);
  return a;
}

/* ------------------------------------------------------------ paimon_scan */

#define SCAN_COL_TABLE 1
#define SCAN_COL_OPT0 2

typedef struct scan_vtab {
  sqlite3_vtab base;
  psql_conn *conn;
} scan_vtab;

typedef struct scan_cursor {
  sqlite3_vtab_cursor base;
  paimon_table *table;
  struct ArrowArrayStream st;
  struct ArrowArray batch;
  psql_type type;
  char **names;
  int n_names;
  char *tbl;
  char *opts[PSQL_N_OPTIONS];
  int64_t row, rowid;
  int eof;
} scan_cursor;

static int scan_error(sqlite3_vtab *v, char *msg) {
  sqlite3_free(v->zErrMsg);
  v->zErrMsg = msg;
  return msg ? SQLITE_ERROR : SQLITE_NOMEM;
}

static int scan_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **pzErr) {
  (void)argc;
  (void)argv;
  psql_buf b = {0};
  psql_buf_puts(&b, "CREATE TABLE x(row_json TEXT, tbl HIDDEN");
  for (int i = 0; i < PSQL_N_OPTIONS; i++) psql_buf_printf(&b, ", option%d HIDDEN", i + 1);
  psql_buf_puts(&b, ")");
  int rc = b.oom ? SQLITE_NOMEM : sqlite3_declare_vtab(db, b.data);
  psql_buf_free(&b);
  if (rc) {
    *pzErr = sqlite3_mprintf("paimon_scan: %s", sqlite3_errmsg(db));
    return rc;
  }
  scan_vtab *vt = sqlite3_malloc(sizeof *vt);
  if (!vt) return SQLITE_NOMEM;
  memset(vt, 0, sizeof *vt);
  vt->conn = aux;
  *out = &vt->base;
  return SQLITE_OK;
}

static int scan_disconnect(sqlite3_vtab *v) {
  sqlite3_free(v);
  return SQLITE_OK;
}

/* The table name and the options are EQ constraints; idxNum's bit k: argument k is given. */
static int scan_best_index(sqlite3_vtab *v, sqlite3_index_info *info) {
  (void)v;
  int argv_index = 0, mask = 0;
  for (int col = SCAN_COL_TABLE; col < SCAN_COL_OPT0 + PSQL_N_OPTIONS; col++) {
    int found = -1, unusable = 0;
    for (int i = 0; i < info->nConstraint && found < 0; i++) {
      const struct sqlite3_index_constraint *c = &info->aConstraint[i];
      if (c->iColumn != col || c->op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
      if (c->usable) found = i;
      else unusable = 1;
    }
    if (found < 0 && unusable) return SQLITE_CONSTRAINT;
    if (found < 0) {
      if (col == SCAN_COL_TABLE) {
        sqlite3_free(v->zErrMsg);
        v->zErrMsg = sqlite3_mprintf("paimon_scan: needs a table: paimon_scan('db.t', 'key=value', ...)");
        return SQLITE_ERROR;
      }
      continue;
    }
    info->aConstraintUsage[found].argvIndex = ++argv_index;
    info->aConstraintUsage[found].omit = 1;
    mask |= 1 << (col - SCAN_COL_TABLE);
  }
  info->idxNum = mask;
  info->estimatedCost = 1e6;
  info->estimatedRows = 1000000;
  return SQLITE_OK;
}

static int scan_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out) {
  (void)v;
  scan_cursor *c = calloc(1, sizeof *c);
  if (!c) return SQLITE_NOMEM;
  c->eof = 1;
  *out = &c->base;
  return SQLITE_OK;
}

static void scan_reset(scan_cursor *c) {
  if (c->batch.release) c->batch.release(&c->batch);
  if (c->st.release) c->st.release(&c->st);
  memset(&c->batch, 0, sizeof c->batch);
  memset(&c->st, 0, sizeof c->st);
  psql_type_free(&c->type);
  memset(&c->type, 0, sizeof c->type);
  for (int i = 0; i < c->n_names; i++) sqlite3_free(c->names[i]);
  free(c->names);
  c->names = NULL;
  c->n_names = 0;
  paimon_table_free(c->table);
  c->table = NULL;
  sqlite3_free(c->tbl);
  c->tbl = NULL;
  for (int i = 0; i < PSQL_N_OPTIONS; i++) {
    sqlite3_free(c->opts[i]);
    c->opts[i] = NULL;
  }
  c->eof = 1;
  c->row = 0;
}

static int scan_close(sqlite3_vtab_cursor *cur) {
  scan_cursor *c = (scan_cursor *)cur;
  scan_reset(c);
  free(c);
  return SQLITE_OK;
}

static int scan_next_batch(scan_cursor *c) {
  for (;;) {
    if (c->batch.release) c->batch.release(&c->batch);
    memset(&c->batch, 0, sizeof c->batch);
    c->row = 0;
    if (c->st.get_next(&c->st, &c->batch)) {
      const char *m = c->st.get_last_error ? c->st.get_last_error(&c->st) : NULL;
      c->eof = 1;
      return scan_error(c->base.pVtab, sqlite3_mprintf("paimon_scan: reading %s: %s", c->tbl, m ? m : "error"));
    }
    if (!c->batch.release) {
      c->eof = 1;
      return SQLITE_OK;
    }
    if (c->batch.length > 0) return SQLITE_OK;
  }
}

static int scan_filter(sqlite3_vtab_cursor *cur, int idx_num, const char *idx_str, int argc, sqlite3_value **argv) {
  scan_cursor *c = (scan_cursor *)cur;
  scan_vtab *vt = (scan_vtab *)cur->pVtab;
  (void)idx_str;
  scan_reset(c);
  int k = 0;
  for (int bit = 0; bit < 1 + PSQL_N_OPTIONS && k < argc; bit++) {
    if (!(idx_num & (1 << bit))) continue;
    const char *text = (const char *)sqlite3_value_text(argv[k++]);
    if (!text) continue;
    char *d = sqlite3_mprintf("%s", text);
    if (!d) return SQLITE_NOMEM;
    if (bit == 0) c->tbl = d;
    else c->opts[bit - 1] = d;
  }
  if (!c->tbl) return scan_error(cur->pVtab, sqlite3_mprintf("paimon_scan: the table name is NULL"));
  char *ident = NULL, *err = NULL;
  psql_attach *a = psql_resolve_table(vt->conn, c->tbl, &ident, &err);
  if (!a) return scan_error(cur->pVtab, err);
  paimon_error e;
  int is_system = 0;
  paimon_status st = psql_open_table(a->catalog, ident, &is_system, &c->table, &e);
  if (st) {
    sqlite3_free(ident);
    return scan_error(cur->pVtab, sqlite3_mprintf("paimon_scan: %s", e.message));
  }
  paimon_read_builder *rb = NULL;
  int rc = psql_read_builder(a, c->table, ident, (const char *const *)c->opts, PSQL_N_OPTIONS, &rb, &err);
  if (rc) {
    sqlite3_free(ident);
    return err ? scan_error(cur->pVtab, err) : rc;
  }
  st = psql_plan_read(vt->conn, rb, &c->st, &e);
  paimon_read_builder_free(rb);
  if (st) {
    rc = scan_error(cur->pVtab, sqlite3_mprintf("paimon: reading %s: %s", ident, e.message));
    sqlite3_free(ident);
    return rc;
  }
  struct ArrowSchema s;
  if (c->st.get_schema(&c->st, &s)) {
    const char *m = c->st.get_last_error(&c->st);
    rc = scan_error(cur->pVtab, sqlite3_mprintf("paimon: reading %s: %s", ident, m ? m : "no schema"));
    sqlite3_free(ident);
    return rc;
  }
  rc = psql_type_from_schema(&s, &c->type, &err);
  if (!rc) {
    c->names = calloc((size_t)s.n_children + 1, sizeof *c->names);
    if (!c->names) rc = SQLITE_NOMEM;
    for (int i = 0; !rc && i < (int)s.n_children; i++) {
      c->names[i] = sqlite3_mprintf("%s", s.children[i]->name ? s.children[i]->name : "");
      c->n_names = i + 1;
      if (!c->names[i]) rc = SQLITE_NOMEM;
    }
  }
  if (s.release) s.release(&s);
  for (int i = 0; !rc && !is_system && i < c->type.n_children; i++) {
    char *pt = NULL;
    if (paimon_table_column_type(c->table, (size_t)i, &pt, &e) == PAIMON_OK) {
      int d = psql_paimon_type_digits(pt);
      if (d >= 0) c->type.children[i].digits = d;
      paimon_free_string(pt);
    }
  }
  if (rc) {
    rc = err ? scan_error(cur->pVtab, sqlite3_mprintf("paimon: reading %s: %s", ident, err)) : rc;
    sqlite3_free(err);
    sqlite3_free(ident);
    return rc;
  }
  sqlite3_free(ident);
  c->eof = 0;
  c->rowid = 0;
  return scan_next_batch(c);
}

static int scan_next(sqlite3_vtab_cursor *cur) {
  scan_cursor *c = (scan_cursor *)cur;
  c->rowid++;
  if (++c->row < c->batch.length) return SQLITE_OK;
  return scan_next_batch(c);
}

static int scan_eof(sqlite3_vtab_cursor *cur) { return ((scan_cursor *)cur)->eof; }

static int scan_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i) {
  scan_cursor *c = (scan_cursor *)cur;
  if (i == SCAN_COL_TABLE || (i >= SCAN_COL_OPT0 && i < SCAN_COL_OPT0 + PSQL_N_OPTIONS)) {
    const char *v = i == SCAN_COL_TABLE ? c->tbl : c->opts[i - SCAN_COL_OPT0];
    if (v) sqlite3_result_text(ctx, v, -1, SQLITE_TRANSIENT);
    else sqlite3_result_null(ctx);
    return SQLITE_OK;
  }
  if (i != 0 || !c->batch.release) {
    sqlite3_result_null(ctx);
    return SQLITE_OK;
  }
  psql_buf o = {0};
  psql_buf_put(&o, "{", 1);
  int64_t row = c->batch.offset + c->row;
  for (int k = 0; k < c->n_names && k < c->type.n_children && k < c->batch.n_children; k++) {
    if (k) psql_buf_put(&o, ",", 1);
    psql_json_string(&o, c->names[k], strlen(c->names[k]));
    psql_buf_put(&o, ":", 1);
    psql_json_cell(&o, &c->type.children[k], c->batch.children[k], row);
  }
  psql_buf_put(&o, "}", 1);
  if (o.oom) {
    psql_buf_free(&o);
    return SQLITE_NOMEM;
  }
  sqlite3_result_text(ctx, o.data, (int)o.len, SQLITE_TRANSIENT);
  sqlite3_result_subtype(ctx, 'J'); /* JSON for SQLite's json functions */
  psql_buf_free(&o);
  return SQLITE_OK;
}

static int scan_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  *rowid = ((scan_cursor *)cur)->rowid;
  return SQLITE_OK;
}

static sqlite3_module SCAN_MODULE = {
    .iVersion = 1,
    .xCreate = NULL, /* eponymous only */
    .xConnect = scan_connect,
    .xBestIndex = scan_best_index,
    .xDisconnect = scan_disconnect,
    .xDestroy = scan_disconnect,
    .xOpen = scan_open,
    .xClose = scan_close,
    .xFilter = scan_filter,
    .xNext = scan_next,
    .xEof = scan_eof,
    .xColumn = scan_column,
    .xRowid = scan_rowid,
};

int psql_register_scan(sqlite3 *db, psql_conn *c) { return sqlite3_create_module(db, "paimon_scan", &SCAN_MODULE, c); }
