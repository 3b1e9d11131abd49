/*
 * Cursors: xFilter builds a read builder (the attach's read options, the projection and the
 * pushed filter from idxStr, see psql_index.c), plans and opens the Arrow C stream; xNext walks
 * the batches; xColumn converts one value when SQLite asks for it.
 */
#include <stdlib.h>
#include <string.h>

#include "sql/psql.h"
#include "sql/psql_index.h"

typedef struct psql_cursor {
  sqlite3_vtab_cursor base;
  struct ArrowArrayStream st;
  struct ArrowArray batch; /* release == NULL: none */
  psql_type type;          /* of the stream's batches */
  int *col_map;            /* vtab column -> batch child, -1 when not read */
  int64_t row;
  int eof;
  int64_t rowid;
  int64_t dml_rowid; /* in a writing transaction: the current row's recorded rowid, -1 before xRowid */
  int64_t skip, left; /* pushed OFFSET still to skip, LIMIT rows still to return (-1: no limit) */
  char *opts[PSQL_N_OPTIONS]; /* the scan's read options (the hidden paimon_optionN values) */
} psql_cursor;

static void cursor_reset(psql_cursor *c) {
  if (c->batch.release) c->batch.release(&c->batch);
  if (c->st.release) c->st.release(&c->st);
  memset(&c->batch, 0, sizeof c->batch);
  memset(&c->st, 0, sizeof c->st);
  psql_type_free(&c->type);
  free(c->col_map);
  c->col_map = NULL;
  c->eof = 1;
  c->row = 0;
  for (int i = 0; i < PSQL_N_OPTIONS; i++) {
    sqlite3_free(c->opts[i]);
    c->opts[i] = NULL;
  }
}

int psql_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out) {
  psql_cursor *c = calloc(1, sizeof *c);
  if (!c) return SQLITE_NOMEM;
  c->eof = 1;
  *out = &c->base;
  (void)vt;
  return SQLITE_OK;
}

int psql_close(sqlite3_vtab_cursor *cur) {
  psql_cursor *c = (psql_cursor *)cur;
  cursor_reset(c);
  free(c);
  return SQLITE_OK;
}

/* Loads the next non-empty batch; eof at the end. */
static int next_batch(psql_cursor *c) {
  psql_vtab *vt = (psql_vtab *)c->base.pVtab;
  for (;;) {
    if (c->batch.release) c->batch.release(&c->batch);
    memset(&c->batch, 0, sizeof c->batch);
    c->row = 0;
    if (c->st.get_next(&c->st, &c->batch)) {
      const char *m = c->st.get_last_error ? c->st.get_last_error(&c->st) : NULL;
      c->eof = 1;
      return psql_vtab_error(vt, "paimon: reading %s: %s", vt->ident, m ? m : "error");
    }
    if (!c->batch.release) {
      c->eof = 1;
      return SQLITE_OK;
    }
    if (c->batch.length > 0) return SQLITE_OK;
  }
}

/* Advances one row inside / across batches. */
static int step(psql_cursor *c) {
  c->dml_rowid = -1;
  c->row++;
  c->rowid++;
  if (c->row < c->batch.length) return SQLITE_OK;
  return next_batch(c);
}

int psql_filter(sqlite3_vtab_cursor *cur, int idx_num, const char *idx_str, int argc, sqlite3_value **argv) {
  psql_cursor *c = (psql_cursor *)cur;
  psql_vtab *vt = (psql_vtab *)cur->pVtab;
  cursor_reset(c);
  (void)idx_num;
  paimon_error e;
  /* the "opt:N" tokens of idxStr: the first argv are the scan's read options */
  int m = 0;
  for (const char *q = idx_str ? strstr(idx_str, ";opt:") : NULL; q && m < argc; q = strstr(q + 1, ";opt:")) {
    int n = atoi(q + 5);
    if (n >= 1 && n <= PSQL_N_OPTIONS && sqlite3_value_type(argv[m]) != SQLITE_NULL) {
      c->opts[n - 1] = sqlite3_mprintf("%s", (const char *)sqlite3_value_text(argv[m]));
      if (!c->opts[n - 1]) return SQLITE_NOMEM;
    }
    m++;
  }
  paimon_read_builder *rb = NULL;
  char *err = NULL;
  int rc = psql_read_builder(vt->attach, vt->table, vt->ident, (const char *const *)c->opts, PSQL_N_OPTIONS, &rb, &err);
  if (rc) {
    sqlite3_free(vt->base.zErrMsg);
    vt->base.zErrMsg = err;
    return rc;
  }
  paimon_status st;
  psql_pushed p;
  rc = psql_index_apply(vt, rb, idx_str, argc - m, argv + m, &p);
  if (rc) {
    paimon_read_builder_free(rb);
    return rc;
  }
  c->skip = p.offset;
  c->left = p.limit;
  c->dml_rowid = -1;
  if (!p.empty && psql_tx_reads_all(vt)) {
    int *all = malloc(sizeof *all * (size_t)(vt->n_cols + 1));
    if (!all) {
      paimon_read_builder_free(rb);
      free(p.cols);
      return SQLITE_NOMEM;
    }
    for (int i = 0; i < vt->n_cols; i++) all[i] = i;
    free(p.cols);
    p.cols = all;
    p.n_cols = vt->n_cols;
  }
  if (p.empty) {
    /* a pushed IN () list with no values, or a comparison with NULL: no row can match */
    paimon_read_builder_free(rb);
    free(p.cols);
    c->eof = 1;
    return SQLITE_OK;
  }
  c->col_map = malloc(sizeof *c->col_map * (size_t)(vt->n_cols + 1));
  if (!c->col_map) {
    paimon_read_builder_free(rb);
    free(p.cols);
    return SQLITE_NOMEM;
  }
  for (int i = 0; i < vt->n_cols; i++) c->col_map[i] = -1;
  const char **names = calloc((size_t)p.n_cols + 1, sizeof *names);
  for (int i = 0; names && i < p.n_cols; i++) {
    names[i] = vt->col_names[p.cols[i]];
    c->col_map[p.cols[i]] = i;
  }
  st = names ? paimon_read_builder_with_projection(rb, names, (size_t)p.n_cols, &e) : PAIMON_ERR_NOMEM;
  free(names);
  free(p.cols);
  if (!st) st = psql_plan_read(vt->conn, rb, &c->st, &e);
  paimon_read_builder_free(rb);
  if (st) return psql_vtab_error(vt, "paimon: reading %s: %s", vt->ident, e.message);
  struct ArrowSchema s;
  if (c->st.get_schema(&c->st, &s)) {
    const char *m = c->st.get_last_error(&c->st);
    return psql_vtab_error(vt, "paimon: reading %s: %s", vt->ident, m ? m : "no schema");
  }
  char *msg = NULL;
  rc = psql_type_from_schema(&s, &c->type, &msg);
  if (s.release) s.release(&s);
  if (rc) {
    int r = psql_vtab_error(vt, "paimon: reading %s: %s", vt->ident, msg ? msg : "bad schema");
    sqlite3_free(msg);
    return r;
  }
  /* fraction digits come from the table's Paimon types */
  for (int i = 0; i < vt->n_cols; i++)
    if (c->col_map[i] >= 0 && c->col_map[i] < c->type.n_children) c->type.children[c->col_map[i]].digits = vt->col_types[i].digits;
  c->eof = 0;
  c->rowid = vt->next_rowid;
  rc = next_batch(c);
  while (!rc && !c->eof && c->skip > 0) {
    c->skip--;
    rc = step(c);
  }
  if (!rc && c->left == 0) c->eof = 1;
  return rc;
}

int psql_next(sqlite3_vtab_cursor *cur) {
  psql_cursor *c = (psql_cursor *)cur;
  psql_vtab *vt = (psql_vtab *)cur->pVtab;
  if (c->left > 0 && --c->left == 0) {
    c->eof = 1;
    return SQLITE_OK;
  }
  int rc = step(c);
  vt->next_rowid = c->rowid;
  return rc;
}

int psql_eof(sqlite3_vtab_cursor *cur) { return ((psql_cursor *)cur)->eof; }

int psql_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i) {
  psql_cursor *c = (psql_cursor *)cur;
  psql_vtab *vt = (psql_vtab *)cur->pVtab;
  if (i >= vt->n_cols && i < vt->n_cols + PSQL_N_OPTIONS) {
    /* the hidden option columns hold the scan's options */
    const char *o = c->opts[i - vt->n_cols];
    if (o) sqlite3_result_text(ctx, o, -1, SQLITE_TRANSIENT);
    else sqlite3_result_null(ctx);
    return SQLITE_OK;
  }
  if (i < 0 || i >= vt->n_cols || !c->col_map || c->col_map[i] < 0 || !c->batch.release) {
    sqlite3_result_null(ctx);
    return SQLITE_OK;
  }
  int k = c->col_map[i];
  if (k >= c->batch.n_children || k >= c->type.n_children) {
    sqlite3_result_null(ctx);
    return SQLITE_OK;
  }
  psql_result_value(ctx, &c->type.children[k], c->batch.children[k], c->batch.offset + c->row);
  return SQLITE_OK;
}

int psql_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  psql_cursor *c = (psql_cursor *)cur;
  psql_vtab *vt = (psql_vtab *)cur->pVtab;
  if (vt->in_tx && !vt->system && c->batch.release) {
    /* a DELETE / UPDATE scan: the rowid names the row recorded for xUpdate */
    if (c->dml_rowid < 0) {
      sqlite3_int64 id = 0;
      int rc = psql_tx_record(vt, &c->type, c->col_map, &c->batch, c->batch.offset + c->row, &id);
      if (rc) return rc;
      c->dml_rowid = id;
    }
    *rowid = c->dml_rowid;
    return SQLITE_OK;
  }
  *rowid = c->rowid;
  return SQLITE_OK;
}
