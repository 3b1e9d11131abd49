/*
 * Writes: INSERT through xUpdate, one Paimon commit per SQLite transaction and table.
 * Inserted rows are buffered as JSON lines in a temporary file (the encoding `table read
 * --format jsonl` prints, which paimon_table_open_input_fd reads back typed by the table's
 * columns, so conversion errors name the column); xSync writes the data files
 * (paimon_table_write_stream + prepare_commit), xCommit publishes the snapshot, xRollback
 * deletes the files written by xSync (paimon_table_commit_abort) and publishes nothing.
 * Statement rollbacks inside a transaction (xRollbackTo) cut the buffer back.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sql/psql.h"

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
  vt->n_savepoints = 0;
}

static void json_str(psql_buf *b, const char *s, size_t n) {
  psql_buf_put(b, "\"", 1);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      char e[2] = {'\\', (char)c};
      psql_buf_put(b, e, 2);
    } else if (c < 0x20) {
      psql_buf_printf(b, "\\u%04x", c);
    } else {
      psql_buf_put(b, (const char *)&s[i], 1);
    }
  }
  psql_buf_put(b, "\"", 1);
}

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
      else if (vt == SQLITE_FLOAT && isfinite(sqlite3_value_double(v))) psql_buf_printf(b, "%.17g", sqlite3_value_double(v));
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

int psql_update(sqlite3_vtab *v, int argc, sqlite3_value **argv, sqlite3_int64 *rowid) {
  psql_vtab *vt = (psql_vtab *)v;
  (void)rowid;
  if (vt->system) return psql_vtab_error(vt, "paimon: %s is a system table (read-only)", vt->ident);
  if (argc == 1 || sqlite3_value_type(argv[0]) != SQLITE_NULL)
    return psql_vtab_error(vt, "paimon: DELETE and UPDATE of %s are not supported yet (INSERT only)", vt->ident);
  if (argc - 2 != vt->n_cols) return psql_vtab_error(vt, "paimon: INSERT into %s: %d values for %d columns", vt->ident, argc - 2, vt->n_cols);
  if (!vt->tx_file) {
    vt->tx_file = tmpfile();
    if (!vt->tx_file) return psql_vtab_error(vt, "paimon: INSERT into %s: cannot create a temporary file", vt->ident);
  }
  psql_buf b = {0};
  psql_buf_put(&b, "{", 1);
  for (int i = 0; i < vt->n_cols; i++) {
    if (i) psql_buf_put(&b, ",", 1);
    json_str(&b, vt->col_names[i], strlen(vt->col_names[i]));
    psql_buf_put(&b, ":", 1);
    put_value(&b, &vt->col_types[i], argv[2 + i]);
  }
  psql_buf_put(&b, "}\n", 2);
  int rc = SQLITE_OK;
  if (b.oom) rc = SQLITE_NOMEM;
  else if (fwrite(b.data, 1, b.len, vt->tx_file) != b.len)
    rc = psql_vtab_error(vt, "paimon: INSERT into %s: cannot buffer the row", vt->ident);
  else vt->tx_rows++;
  psql_buf_free(&b);
  return rc;
}

int psql_begin(sqlite3_vtab *v) {
  (void)v;
  return SQLITE_OK;
}

/* Writes the buffered rows into data files (not yet visible). */
int psql_sync(sqlite3_vtab *v) {
  psql_vtab *vt = (psql_vtab *)v;
  if (!vt->tx_file || vt->tx_rows == 0) return SQLITE_OK;
  paimon_error e;
  if (fflush(vt->tx_file) || fseek(vt->tx_file, 0, SEEK_SET))
    return psql_vtab_error(vt, "paimon: INSERT into %s: cannot read the buffered rows back", vt->ident);
  int fd = fileno(vt->tx_file);
  if (lseek(fd, 0, SEEK_SET) < 0) return psql_vtab_error(vt, "paimon: INSERT into %s: cannot rewind", vt->ident);
  struct ArrowArrayStream st = {0};
  char name[512];
  snprintf(name, sizeof name, "INSERT INTO %s", vt->ident);
  paimon_status s = paimon_table_open_input_fd(vt->table, fd, name, "jsonl", &st, &e);
  if (!s) s = paimon_write_builder_new(vt->table, 0, NULL, 0, &vt->tx_wb, &e);
  if (!s) s = paimon_write_builder_new_write(vt->tx_wb, &vt->tx_write, &e);
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
  psql_vtab *vt = (psql_vtab *)v;
  if (n < 0 || n >= PSQL_MAX_SAVEPOINTS) return SQLITE_OK;
  long off = 0;
  if (vt->tx_file) {
    fflush(vt->tx_file);
    off = ftell(vt->tx_file);
  }
  for (int i = vt->n_savepoints; i < n; i++) vt->sp_offset[i] = off, vt->sp_rows[i] = vt->tx_rows;
  vt->sp_offset[n] = off;
  vt->sp_rows[n] = vt->tx_rows;
  vt->n_savepoints = n + 1;
  return SQLITE_OK;
}

int psql_release(sqlite3_vtab *v, int n) {
  psql_vtab *vt = (psql_vtab *)v;
  if (n >= 0 && n < vt->n_savepoints) vt->n_savepoints = n;
  return SQLITE_OK;
}

int psql_rollback_to(sqlite3_vtab *v, int n) {
  psql_vtab *vt = (psql_vtab *)v;
  if (n < 0 || n >= vt->n_savepoints || !vt->tx_file) return SQLITE_OK;
  fflush(vt->tx_file);
  if (ftruncate(fileno(vt->tx_file), vt->sp_offset[n]) || fseek(vt->tx_file, vt->sp_offset[n], SEEK_SET))
    return psql_vtab_error(vt, "paimon: %s: cannot roll the buffered rows back", vt->ident);
  vt->tx_rows = vt->sp_rows[n];
  vt->n_savepoints = n + 1;
  return SQLITE_OK;
}
