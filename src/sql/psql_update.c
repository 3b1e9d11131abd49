/*
 * Writes through xUpdate, one Paimon commit per SQLite transaction and table.
 * Rows are buffered as JSON lines in a temporary file (the encoding `table read --format jsonl`
 * prints, which paimon_table_open_input_fd reads back typed by the table's columns, so
 * conversion errors name the column); on primary-key tables each line carries its row kind
 * (paimon_table_open_cdc_input): INSERT +I, DELETE -D of the row as the scan read it, UPDATE +U
 * of the new row, or -D old + +I new when the primary key changes. DELETE / UPDATE are refused
 * as Java refuses them (PrimaryKeyTableUtils.validatePKUpsertDeletable, Flink's
 * SupportsRowLevelOperationFlinkTableSink): append tables, merge engines that ignore deletes,
 * ignore-delete, UPDATE on aggregation / first-row.
 * DELETE and UPDATE name rows by rowid: inside a writing transaction a scan records each row
 * it hands a rowid out for (xRowid, psql_tx_record) in a second temporary file.
 * xSync writes the data files (paimon_table_write_stream + prepare_commit), xCommit publishes
 * the snapshot, xRollback deletes the files written by xSync (paimon_table_commit_abort) and
 * publishes nothing. A failed statement (our error, or SQLite rolling a statement back with
 * xRollbackTo) makes the whole transaction commit nothing: its COMMIT fails and rolls back.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sql/psql.h"

/* The row-kind key of buffered lines (no table column: paimon_table_open_cdc_input). */
#define KIND_KEY "_paimon_sql_row_kind"

struct psql_rec {
  int64_t rowid;
  long off;           /* in rec_file: key text, then the row object */
  size_t klen, olen;
};

static void recs_reset(psql_vtab *vt) {
  if (vt->rec_file) fclose(vt->rec_file);
  vt->rec_file = NULL;
  free(vt->recs);
  vt->recs = NULL;
  vt->n_recs = vt->cap_recs = 0;
}

static void tx_reset(psql_vtab *vt) {
  if (vt->tx_file) fclose(vt->tx_file);
  vt->tx_file = NULL;
  vt->tx_rows = 0;
  paimon_commit_messages_free(vt->tx_msgs);
  vt->tx_msgs = NULL;
  paimon_table_write_free(vt->tx_write);
  vt->tx_write = NULL;
  paimon_write_builder_free(vt->tx_wb);
  vt->tx_wb = NULL;
  recs_reset(vt);
  vt->in_tx = 0;
  vt->tx_failed = 0;
}

/* Sets the error and marks the transaction failed. */
__attribute__((format(printf, 2, 3))) static int tx_fail(psql_vtab *vt, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *m = sqlite3_vmprintf(fmt, ap);
  va_end(ap);
  sqlite3_free(vt->base.zErrMsg);
  vt->base.zErrMsg = m;
  if (vt->in_tx) vt->tx_failed = 1;
  return m ? SQLITE_ERROR : SQLITE_NOMEM;
}

/* Primary-key column indexes (once per vtab). */
static int dml_info(psql_vtab *vt) {
  if (vt->dml_info) return SQLITE_OK;
  size_t n = vt->system ? 0 : paimon_table_num_primary_keys(vt->table);
  free(vt->pk_cols);
  vt->pk_cols = calloc(n + 1, sizeof *vt->pk_cols);
  if (!vt->pk_cols) return SQLITE_NOMEM;
  vt->n_pk = 0;
  for (size_t k = 0; k < n; k++) {
    const char *name = paimon_table_primary_key(vt->table, k);
    for (int i = 0; name && i < vt->n_cols; i++)
      if (!strcmp(vt->col_names[i], name)) vt->pk_cols[vt->n_pk++] = i;
  }
  vt->dml_info = 1;
  return SQLITE_OK;
}

int psql_tx_reads_all(psql_vtab *vt) {
  return vt->in_tx && !vt->system && dml_info(vt) == SQLITE_OK && vt->n_pk > 0;
}

static int opt_true(const psql_vtab *vt, const char *key) {
  const char *v = paimon_table_option(vt->table, key);
  return v && !sqlite3_stricmp(v, "true");
}

static const char *merge_engine(const psql_vtab *vt) {
  const char *v = paimon_table_option(vt->table, "merge-engine");
  return v ? v : "deduplicate";
}

/* NULL when rows of the table can be deleted (Java's validatePKUpsertDeletable), else why not. */
static const char *why_not_deletable(const psql_vtab *vt, char *why, size_t cap) {
  if (vt->n_pk == 0)
    return "the table has no primary key (rows of append tables are removed by deletion vectors or by rewriting "
           "files, which the SQL module does not do yet)";
  const char *engine = merge_engine(vt);
  if (!sqlite3_stricmp(engine, "partial-update")) {
    if (!opt_true(vt, "partial-update.remove-record-on-delete") &&
        !paimon_table_option(vt->table, "partial-update.remove-record-on-sequence-group")) {
      snprintf(why, cap,
               "merge engine partial-update does not remove rows on delete: set "
               "'partial-update.remove-record-on-delete' = true or 'partial-update.remove-record-on-sequence-group'");
      return why;
    }
  } else if (!sqlite3_stricmp(engine, "aggregation")) {
    if (!opt_true(vt, "aggregation.remove-record-on-delete")) {
      snprintf(why, cap, "merge engine aggregation does not remove rows on delete: set "
                         "'aggregation.remove-record-on-delete' = true");
      return why;
    }
  } else if (sqlite3_stricmp(engine, "deduplicate")) {
    snprintf(why, cap, "merge engine %s can not support batch delete", engine);
    return why;
  }
  if (opt_true(vt, "ignore-delete") || opt_true(vt, "first-row.ignore-delete") ||
      opt_true(vt, "deduplicate.ignore-delete") || opt_true(vt, "partial-update.ignore-delete"))
    return "'ignore-delete' = true drops the delete rows";
  return NULL;
}

static const char *why_not_updatable(const psql_vtab *vt, char *why, size_t cap) {
  if (vt->n_pk == 0) return "the table has no primary key (append tables are not updated in place here)";
  const char *engine = merge_engine(vt);
  if (sqlite3_stricmp(engine, "deduplicate") && sqlite3_stricmp(engine, "partial-update")) {
    snprintf(why, cap, "merge engine %s can not support batch update (deduplicate and partial-update can)", engine);
    return why;
  }
  return NULL;
}

int psql_tx_record(psql_vtab *vt, const psql_type *bt, const int *col_map, const struct ArrowArray *batch, int64_t row,
                   sqlite3_int64 *rowid) {
  int rc = dml_info(vt);
  if (rc) return rc;
  psql_buf k = {0}, o = {0};
  for (int j = 0; j < vt->n_pk; j++) {
    int c = col_map ? col_map[vt->pk_cols[j]] : -1;
    if (j) psql_buf_put(&k, "\x1f", 1);
    if (c >= 0 && c < batch->n_children && c < bt->n_children) psql_json_cell(&k, &bt->children[c], batch->children[c], row);
    else psql_buf_puts(&k, "?");
  }
  psql_buf_put(&o, "{", 1);
  int first = 1;
  for (int i = 0; i < vt->n_cols; i++) {
    int c = col_map ? col_map[i] : -1;
    if (c < 0 || c >= batch->n_children || c >= bt->n_children) continue;
    if (!first) psql_buf_put(&o, ",", 1);
    first = 0;
    psql_json_string(&o, vt->col_names[i], strlen(vt->col_names[i]));
    psql_buf_put(&o, ":", 1);
    psql_json_cell(&o, &bt->children[c], batch->children[c], row);
  }
  psql_buf_put(&o, "}", 1);
  if (k.oom || o.oom) rc = SQLITE_NOMEM;
  if (!rc && !vt->rec_file && !(vt->rec_file = tmpfile()))
    rc = psql_vtab_error(vt, "paimon: %s: cannot create a temporary file for the rows read", vt->ident);
  if (!rc && vt->n_recs == vt->cap_recs) {
    size_t cap = vt->cap_recs ? vt->cap_recs * 2 : 64;
    struct psql_rec *r = realloc(vt->recs, cap * sizeof *r);
    if (!r) rc = SQLITE_NOMEM;
    else vt->recs = r, vt->cap_recs = cap;
  }
  long off = -1;
  if (!rc && (fseek(vt->rec_file, 0, SEEK_END) || (off = ftell(vt->rec_file)) < 0 ||
              (k.len && fwrite(k.data, 1, k.len, vt->rec_file) != k.len) || fwrite(o.data, 1, o.len, vt->rec_file) != o.len))
    rc = psql_vtab_error(vt, "paimon: %s: cannot record the rows read", vt->ident);
  if (!rc) {
    struct psql_rec *r = &vt->recs[vt->n_recs++];
    r->rowid = ++vt->rec_next;
    r->off = off;
    r->klen = k.len;
    r->olen = o.len;
    *rowid = r->rowid;
  }
  psql_buf_free(&k);
  psql_buf_free(&o);
  return rc;
}

/* The recorded row `rowid`: *key and *obj malloc'd (NUL-terminated). */
static int rec_get(psql_vtab *vt, sqlite3_int64 rowid, char **key, char **obj) {
  size_t lo = 0, hi = vt->n_recs;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (vt->recs[mid].rowid < rowid) lo = mid + 1;
    else hi = mid;
  }
  if (lo == vt->n_recs || vt->recs[lo].rowid != rowid)
    return tx_fail(vt, "paimon: %s: row %lld was not read by this transaction", vt->ident, (long long)rowid);
  const struct psql_rec *r = &vt->recs[lo];
  *key = malloc(r->klen + 1);
  *obj = malloc(r->olen + 1);
  if (!*key || !*obj || fflush(vt->rec_file) || fseek(vt->rec_file, r->off, SEEK_SET) ||
      (r->klen && fread(*key, 1, r->klen, vt->rec_file) != r->klen) || fread(*obj, 1, r->olen, vt->rec_file) != r->olen) {
    free(*key);
    free(*obj);
    *key = *obj = NULL;
    return tx_fail(vt, "paimon: %s: cannot read the recorded row %lld back", vt->ident, (long long)rowid);
  }
  (*key)[r->klen] = 0;
  (*obj)[r->olen] = 0;
  return SQLITE_OK;
}

#define json_str psql_json_string

static void b64(psql_buf *b, const uint8_t *p, size_t n) {
  static const char T[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  psql_buf_put(b, "\"", 1);
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
    char o[4] = {T[v >> 18 & 63], T[v >> 12 & 63], i + 1 < n ? T[v >> 6 & 63] : '=', i + 2 < n ? T[v & 63] : '='};
    psql_buf_put(b, o, 4);
  }
  psql_buf_put(b, "\"", 1);
}

/* One SQLite value as the JSONL value of a column of type t. */
static void put_value(psql_buf *b, const psql_type *t, sqlite3_value *v) {
  int vt = sqlite3_value_type(v);
  if (vt == SQLITE_NULL) {
    psql_buf_puts(b, "null");
    return;
  }
  const char *text = (const char *)sqlite3_value_text(v);
  size_t n = (size_t)sqlite3_value_bytes(v);
  switch (t->kind) {
    case 'b':
      if (vt == SQLITE_INTEGER || vt == SQLITE_FLOAT) psql_buf_puts(b, sqlite3_value_double(v) != 0 ? "true" : "false");
      else json_str(b, text, n);
      return;
    case 'i':
    case 'u':
      if (vt == SQLITE_INTEGER) psql_buf_printf(b, "%lld", (long long)sqlite3_value_int64(v));
      else json_str(b, text, n); /* the reader refuses what is no integer, naming the column */
      return;
    case 'f':
    case 'g':
      if (vt == SQLITE_INTEGER) psql_buf_printf(b, "%lld", (long long)sqlite3_value_int64(v));
      else if (vt == SQLITE_FLOAT) psql_json_double(b, sqlite3_value_double(v));
      else json_str(b, text, n);
      return;
    case 'y':
    case 'Y':
    case 'w':
      b64(b, (const uint8_t *)sqlite3_value_blob(v), (size_t)sqlite3_value_bytes(v));
      return;
    case 'l':
    case 'L':
    case 'W':
    case 'm':
    case 'r':
      if (vt == SQLITE_TEXT) {
        /* JSON text as is; raw line breaks can only be whitespace in JSON */
        size_t start = b->len;
        psql_buf_put(b, text, n);
        for (size_t i = start; i < b->len && b->data; i++)
          if (b->data[i] == '\n' || b->data[i] == '\r') b->data[i] = ' ';
        return;
      }
      json_str(b, text, n);
      return;
    default: json_str(b, text, n); return;
  }
}

/* The row of argv[2..] as a JSON object; with kind, its row-kind key first. */
static int row_json(psql_vtab *vt, sqlite3_value **vals, const char *kind, psql_buf *b) {
  psql_buf_put(b, "{", 1);
  if (kind) psql_buf_printf(b, "\"" KIND_KEY "\":\"%s\"", kind);
  for (int i = 0; i < vt->n_cols; i++) {
    if (i || kind) psql_buf_put(b, ",", 1);
    json_str(b, vt->col_names[i], strlen(vt->col_names[i]));
    psql_buf_put(b, ":", 1);
    put_value(b, &vt->col_types[i], vals[i]);
  }
  psql_buf_put(b, "}\n", 2);
  return b->oom ? SQLITE_NOMEM : SQLITE_OK;
}

/* A recorded row object with its row kind. */
static void rec_json(const char *obj, const char *kind, psql_buf *b) {
  psql_buf_printf(b, "{\"" KIND_KEY "\":\"%s\"%s%s\n", kind, strcmp(obj, "{}") ? "," : "}", strcmp(obj, "{}") ? obj + 1 : "");
}

static int buffer_line(psql_vtab *vt, const psql_buf *b, const char *what) {
  if (b->oom) return SQLITE_NOMEM;
  if (!vt->tx_file && !(vt->tx_file = tmpfile()))
    return tx_fail(vt, "paimon: %s %s: cannot create a temporary file", what, vt->ident);
  if (fwrite(b->data, 1, b->len, vt->tx_file) != b->len)
    return tx_fail(vt, "paimon: %s %s: cannot buffer the row", what, vt->ident);
  vt->tx_rows++;
  return SQLITE_OK;
}

static int check_not_null(psql_vtab *vt, sqlite3_value **vals, const char *what) {
  for (int i = 0; vt->col_paimon && i < vt->n_cols; i++)
    if (vt->col_paimon[i] && strstr(vt->col_paimon[i], "NOT NULL") && sqlite3_value_type(vals[i]) == SQLITE_NULL)
      return tx_fail(vt, "paimon: %s %s: column %s is NOT NULL", what, vt->ident, vt->col_names[i]);
  return SQLITE_OK;
}

/* The primary key of argv[2..] as psql_tx_record writes it. */
static int key_text(psql_vtab *vt, sqlite3_value **vals, psql_buf *b) {
  for (int j = 0; j < vt->n_pk; j++) {
    if (j) psql_buf_put(b, "\x1f", 1);
    put_value(b, &vt->col_types[vt->pk_cols[j]], vals[vt->pk_cols[j]]);
  }
  return b->oom ? SQLITE_NOMEM : SQLITE_OK;
}

static int do_insert(psql_vtab *vt, sqlite3_value **vals) {
  int rc = check_not_null(vt, vals, "INSERT into");
  psql_buf b = {0};
  if (!rc) rc = row_json(vt, vals, vt->n_pk ? "+I" : NULL, &b);
  if (!rc) rc = buffer_line(vt, &b, "INSERT into");
  psql_buf_free(&b);
  return rc;
}

static int do_delete(psql_vtab *vt, sqlite3_int64 rowid) {
  char why[512];
  const char *no = why_not_deletable(vt, why, sizeof why);
  if (no) return tx_fail(vt, "paimon: DELETE FROM %s: %s", vt->ident, no);
  char *key = NULL, *obj = NULL;
  int rc = rec_get(vt, rowid, &key, &obj);
  if (rc) return rc;
  psql_buf b = {0};
  rec_json(obj, "-D", &b);
  rc = buffer_line(vt, &b, "DELETE FROM");
  psql_buf_free(&b);
  free(key);
  free(obj);
  return rc;
}

static int do_update(psql_vtab *vt, sqlite3_int64 rowid, sqlite3_value **vals) {
  char why[512];
  const char *no = why_not_updatable(vt, why, sizeof why);
  if (no) return tx_fail(vt, "paimon: UPDATE %s: %s", vt->ident, no);
  int rc = check_not_null(vt, vals, "UPDATE");
  char *key = NULL, *obj = NULL;
  if (!rc) rc = rec_get(vt, rowid, &key, &obj);
  if (rc) return rc;
  psql_buf nk = {0}, b = {0};
  rc = key_text(vt, vals, &nk);
  if (!rc && nk.len == strlen(key) && (!nk.len || !memcmp(nk.data, key, nk.len))) {
    /* the same key: the new row as +U (Java's Flink UPDATE writes UPDATE_AFTER rows) */
    rc = row_json(vt, vals, "+U", &b);
  } else if (!rc) {
    /* a new primary key: -D of the old row, +I of the new one */
    no = why_not_deletable(vt, why, sizeof why);
    if (no) rc = tx_fail(vt, "paimon: UPDATE %s changes the primary key, which deletes the old row: %s", vt->ident, no);
    if (!rc) rec_json(obj, "-D", &b);
    if (!rc) rc = row_json(vt, vals, "+I", &b);
  }
  if (!rc) rc = buffer_line(vt, &b, "UPDATE");
  psql_buf_free(&nk);
  psql_buf_free(&b);
  free(key);
  free(obj);
  return rc;
}

int psql_update(sqlite3_vtab *v, int argc, sqlite3_value **argv, sqlite3_int64 *rowid) {
  psql_vtab *vt = (psql_vtab *)v;
  (void)rowid;
  if (vt->system) return tx_fail(vt, "paimon: %s is a system table (read-only)", vt->ident);
  int rc = dml_info(vt);
  if (rc) return rc;
  if (argc == 1) return do_delete(vt, sqlite3_value_int64(argv[0]));
  if (argc - 2 != vt->n_cols + PSQL_N_OPTIONS)
    return tx_fail(vt, "paimon: writing %s: %d values for %d columns", vt->ident, argc - 2 - PSQL_N_OPTIONS, vt->n_cols);
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return do_insert(vt, argv + 2);
  if (sqlite3_value_type(argv[1]) != SQLITE_INTEGER || sqlite3_value_int64(argv[1]) != sqlite3_value_int64(argv[0]))
    return tx_fail(vt, "paimon: UPDATE %s: the rowid cannot be set", vt->ident);
  return do_update(vt, sqlite3_value_int64(argv[0]), argv + 2);
}

int psql_begin(sqlite3_vtab *v) {
  psql_vtab *vt = (psql_vtab *)v;
  tx_reset(vt);
  vt->in_tx = 1;
  return SQLITE_OK;
}

/* Writes the buffered rows into data files (not yet visible). */
int psql_sync(sqlite3_vtab *v) {
  psql_vtab *vt = (psql_vtab *)v;
  if (vt->tx_failed)
    return psql_vtab_error(vt, "paimon: a statement writing %s in this transaction failed; the transaction commits nothing",
                           vt->ident);
  if (!vt->tx_file || vt->tx_rows == 0) return SQLITE_OK;
  paimon_error e;
  if (fflush(vt->tx_file) || fseek(vt->tx_file, 0, SEEK_SET))
    return psql_vtab_error(vt, "paimon: INSERT into %s: cannot read the buffered rows back", vt->ident);
  int fd = fileno(vt->tx_file);
  if (lseek(fd, 0, SEEK_SET) < 0) return psql_vtab_error(vt, "paimon: INSERT into %s: cannot rewind", vt->ident);
  struct ArrowArrayStream st = {0};
  char name[512];
  snprintf(name, sizeof name, "the rows written to %s", vt->ident);
  paimon_status s = vt->n_pk ? paimon_table_open_cdc_input(vt->table, NULL, fd, "jsonl", KIND_KEY, &st, &e)
                             : paimon_table_open_input_fd(vt->table, fd, name, "jsonl", &st, &e);
  if (!s) s = paimon_write_builder_new(vt->table, 0, NULL, 0, &vt->tx_wb, &e);
  if (!s) s = paimon_write_builder_new_write(vt->tx_wb, &vt->tx_write, &e);
  if (!s && vt->n_pk) s = paimon_table_write_with_row_kind_column(vt->tx_write, KIND_KEY, &e);
  if (!s) {
    s = paimon_table_write_stream(vt->tx_write, &st, &e); /* consumes the stream */
    memset(&st, 0, sizeof st);
  }
  if (st.release) st.release(&st);
  if (!s) s = paimon_table_write_prepare_commit(vt->tx_write, PAIMON_BATCH_COMMIT_IDENTIFIER, &vt->tx_msgs, &e);
  if (s) {
    int rc = psql_vtab_error(vt, "paimon: %s", e.message);
    tx_reset(vt);
    return rc;
  }
  return SQLITE_OK;
}

int psql_commit(sqlite3_vtab *v) {
  psql_vtab *vt = (psql_vtab *)v;
  if (!vt->tx_msgs) {
    tx_reset(vt);
    return SQLITE_OK;
  }
  paimon_error e;
  paimon_table_commit *c = NULL;
  int64_t snap = -1;
  paimon_status s = paimon_write_builder_new_commit(vt->tx_wb, &c, &e);
  if (!s) s = paimon_table_commit_commit(c, vt->tx_msgs, PAIMON_BATCH_COMMIT_IDENTIFIER, &snap, &e);
  int rc = SQLITE_OK;
  if (s) {
    rc = psql_vtab_error(vt, "paimon: committing into %s: %s", vt->ident, e.message);
    /* nothing published (never for an unknown outcome, whose files a snapshot may reference) */
    if (c && s != PAIMON_ERR_UNKNOWN_OUTCOME) (void)paimon_table_commit_abort(c, vt->tx_msgs, &e);
  }
  paimon_table_commit_free(c);
  tx_reset(vt);
  return rc;
}

int psql_rollback(sqlite3_vtab *v) {
  psql_vtab *vt = (psql_vtab *)v;
  if (vt->tx_msgs && vt->tx_wb) {
    paimon_error e;
    paimon_table_commit *c = NULL;
    if (paimon_write_builder_new_commit(vt->tx_wb, &c, &e) == PAIMON_OK) (void)paimon_table_commit_abort(c, vt->tx_msgs, &e);
    paimon_table_commit_free(c);
  }
  tx_reset(vt);
  return SQLITE_OK;
}

int psql_savepoint(sqlite3_vtab *v, int n) {
  (void)v, (void)n;
  return SQLITE_OK;
}

int psql_release(sqlite3_vtab *v, int n) {
  (void)v, (void)n;
  return SQLITE_OK;
}

/* A statement failed inside the transaction (or ROLLBACK TO): the transaction commits nothing. */
int psql_rollback_to(sqlite3_vtab *v, int n) {
  psql_vtab *vt = (psql_vtab *)v;
  (void)n;
  if (vt->in_tx) vt->tx_failed = 1;
  return SQLITE_OK;
}

/* ------------------------------------------------------------------ paimon_overwrite */

/* "k=v,k2=v2" into options (pointers into the copy *buf). */
static int parse_spec(const char *spec, char **buf, paimon_option **opts, size_t *n, char **err) {
  *buf = NULL, *opts = NULL, *n = 0;
  if (!spec || !*spec) return 0;
  size_t len = strlen(spec);
  *buf = malloc(len + 1);
  *opts = calloc(len / 2 + 2, sizeof **opts);
  if (!*buf || !*opts) return *err = sqlite3_mprintf("out of memory"), 1;
  memcpy(*buf, spec, len + 1);
  for (char *p = *buf; p && *p;) {
    char *next = strchr(p, ',');
    if (next) *next++ = 0;
    char *eq = strchr(p, '=');
    if (!eq || eq == p) return *err = sqlite3_mprintf("partition spec '%s': expected k=v[,k2=v2...]", spec), 1;
    *eq = 0;
    while (*p == ' ') p++;
    (*opts)[*n].key = p;
    (*opts)[*n].value = eq + 1;
    (*n)++;
    p = next;
  }
  return 0;
}

int psql_overwrite(sqlite3 *db, paimon_table *t, const char *select, const char *spec, int64_t *rows, int64_t *snapshot,
                   char **err) {
  *rows = 0, *snapshot = -1, *err = NULL;
  size_t n = paimon_table_num_columns(t);
  psql_type *types = calloc(n + 1, sizeof *types);
  struct ArrowSchema as = {0};
  paimon_error e;
  sqlite3_stmt *st = NULL;
  FILE *f = NULL;
  char *specbuf = NULL;
  paimon_option *opts = NULL;
  size_t n_opts = 0;
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  paimon_commit_messages *m = NULL;
  paimon_table_commit *c = NULL;
  psql_buf b = {0};
  int rc = 1;
  if (!types) {
    *err = sqlite3_mprintf("out of memory");
    goto out;
  }
  if (paimon_table_arrow_schema(t, &as, &e)) {
    *err = sqlite3_mprintf("%s", e.message);
    goto out;
  }
  for (size_t i = 0; i < n && i < (size_t)as.n_children; i++)
    if (psql_type_from_schema(as.children[i], &types[i], err)) goto out;
  if (parse_spec(spec, &specbuf, &opts, &n_opts, err)) goto out;
  if (!select || sqlite3_prepare_v2(db, select, -1, &st, NULL) != SQLITE_OK) {
    *err = sqlite3_mprintf("the query: %s", select ? sqlite3_errmsg(db) : "missing");
    goto out;
  }
  if ((size_t)sqlite3_column_count(st) != n) {
    *err = sqlite3_mprintf("the query returns %d columns, %s has %lld", sqlite3_column_count(st), paimon_table_identifier(t),
                           (long long)n);
    goto out;
  }
  if (!(f = tmpfile())) {
    *err = sqlite3_mprintf("cannot create a temporary file");
    goto out;
  }
  int src;
  while ((src = sqlite3_step(st)) == SQLITE_ROW) {
    b.len = 0;
    psql_buf_put(&b, "{", 1);
    for (size_t i = 0; i < n; i++) {
      if (i) psql_buf_put(&b, ",", 1);
      const char *name = paimon_table_column_name(t, i);
      json_str(&b, name, strlen(name));
      psql_buf_put(&b, ":", 1);
      put_value(&b, &types[i], sqlite3_column_value(st, (int)i));
    }
    psql_buf_put(&b, "}\n", 2);
    if (b.oom || fwrite(b.data, 1, b.len, f) != b.len) {
      *err = sqlite3_mprintf("cannot buffer the rows");
      goto out;
    }
    (*rows)++;
  }
  if (src != SQLITE_DONE) {
    *err = sqlite3_mprintf("the query: %s", sqlite3_errmsg(db));
    goto out;
  }
  sqlite3_finalize(st);
  st = NULL;
  if (fflush(f) || lseek(fileno(f), 0, SEEK_SET) < 0) {
    *err = sqlite3_mprintf("cannot read the buffered rows back");
    goto out;
  }
  struct ArrowArrayStream in = {0};
  paimon_status s = paimon_table_open_input_fd(t, fileno(f), "the rows of paimon_overwrite", "jsonl", &in, &e);
  if (!s) s = paimon_write_builder_new(t, 0, NULL, 0, &wb, &e);
  if (!s) s = paimon_write_builder_with_overwrite(wb, opts, n_opts, &e);
  if (!s) s = paimon_write_builder_new_write(wb, &w, &e);
  if (!s) {
    s = paimon_table_write_stream(w, &in, &e); /* consumes the stream */
    memset(&in, 0, sizeof in);
  }
  if (in.release) in.release(&in);
  if (!s) s = paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, &e);
  if (!s) s = paimon_write_builder_new_commit(wb, &c, &e);
  if (!s) {
    s = paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, snapshot, &e);
    if (s && s != PAIMON_ERR_UNKNOWN_OUTCOME) {
      paimon_error e2;
      (void)paimon_table_commit_abort(c, m, &e2);
    }
  } else if (m && wb && !c) {
    paimon_error e2;
    if (paimon_write_builder_new_commit(wb, &c, &e2) == PAIMON_OK) (void)paimon_table_commit_abort(c, m, &e2);
  }
  if (s) {
    *err = sqlite3_mprintf("%s", e.message);
    goto out;
  }
  rc = 0;
out:
  psql_buf_free(&b);
  if (st) sqlite3_finalize(st);
  if (f) fclose(f);
  paimon_table_commit_free(c);
  paimon_commit_messages_free(m);
  paimon_table_write_free(w);
  paimon_write_builder_free(wb);
  free(specbuf);
  free(opts);
  for (size_t i = 0; types && i < n; i++) psql_type_free(&types[i]);
  free(types);
  if (as.release) as.release(&as);
  if (rc && !*err) *err = sqlite3_mprintf("out of memory");
  return rc;
}
