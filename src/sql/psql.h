/*
 * The SQLite virtual-table module over libpaimon's public API (the include/paimon headers only).
 * Internal to src/sql: built into build/libpaimon_sqlite.so (loadable extension) and linked
 * into `paimon sql`. Every file includes this header; psql_module.c holds the
 * SQLITE_EXTENSION_INIT1 definition of the API pointer.
 *
 * Model: paimon_attach('warehouse=...') opens a catalog and, per Paimon database, ATTACHes an
 * in-memory SQLite database of the same name holding one `paimon` virtual table per Paimon
 * table (plus its system tables "t$snapshots", ... and branches "t$branch_b"). A cursor reads
 * through a read builder and an Arrow C stream; values are converted when SQLite asks (xColumn).
 */
#ifndef PM_SQL_PSQL_H
#define PM_SQL_PSQL_H

#include <sqlite3ext.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "paimon/paimon.h"

SQLITE_EXTENSION_INIT3

/* --------------------------------------------------------------- arrow types (psql_value.c) */

/* A parsed Arrow field (format string + children), enough to convert values. */
typedef struct psql_type {
  char kind;      /* 'b' bool, 'i' signed int, 'u' unsigned int, 'f' float32, 'g' float64,
                     'd' decimal128, 'D' date32, 'M' date64, 't' time, 'T' timestamp,
                     's' utf8, 'S' large utf8, 'y' binary, 'Y' large binary, 'w' fixed binary,
                     'l' list, 'L' large list, 'W' fixed list, 'r' struct, 'm' map, 'n' null,
                     '?' other (read as NULL) */
  int bytes;      /* integer width in bytes; fixed binary / fixed list width */
  int unit;       /* time / timestamp: 0 s, 1 ms, 2 us, 3 ns */
  int zoned;      /* timestamp with a time zone */
  int precision, scale; /* decimal */
  int digits;     /* time / timestamp fraction digits to print (-1: from the unit) */
  char *name;
  int n_children;
  struct psql_type *children;
} psql_type;

int psql_type_from_schema(const struct ArrowSchema *s, psql_type *out, char **err);
void psql_type_free(psql_type *t);
/* SQLite declared type for a column ("INTEGER", "REAL", "TEXT", "BLOB"). */
const char *psql_type_decl(const psql_type *t);
/* Fraction digits of the precision in a Paimon type string ("TIMESTAMP(3)" -> 3), or -1. */
int psql_paimon_type_digits(const char *paimon_type);

/* Value `row` of `a` (typed by t, t->digits fraction digits) in the JSONL encoding `table read
 * --format jsonl` prints and paimon_table_open_input reads back. */
struct psql_buf;
void psql_json_cell(struct psql_buf *b, const psql_type *t, const struct ArrowArray *a, int64_t row);
/* A JSON string / a double as the shortest text reading back the same (NaN, Infinity as strings). */
void psql_json_string(struct psql_buf *b, const char *s, size_t n);
void psql_json_double(struct psql_buf *b, double d);

/* Sets the SQLite result to value `row` of `a` (typed by t). */
void psql_result_value(sqlite3_context *ctx, const psql_type *t, const struct ArrowArray *a, int64_t row);

/* A growable byte buffer. */
typedef struct psql_buf {
  char *data;
  size_t len, cap;
  int oom;
} psql_buf;
void psql_buf_put(psql_buf *b, const char *s, size_t n);
void psql_buf_puts(psql_buf *b, const char *s);
void psql_buf_printf(psql_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void psql_buf_free(psql_buf *b);
/* Appends a double quoted SQL identifier. */
void psql_buf_ident(psql_buf *b, const char *s);

/* ------------------------------------------------------------------ module (psql_module.c) */

/* One paimon_attach(): a catalog and the SQLite schemas made for its databases. */
typedef struct psql_attach {
  paimon_catalog *catalog;
  char **cat_keys, **cat_values; /* catalog options */
  size_t n_cat;
  char **read_keys, **read_values; /* dynamic options of every table read through it */
  size_t n_read;
  char **schemas, **databases; /* SQLite schema name -> Paimon database */
  size_t n_schemas;
  struct psql_attach *next;
} psql_attach;

/* Per connection (the module's client data). */
typedef struct psql_conn {
  sqlite3 *db;
  psql_attach *attaches;
  int no_pushdown; /* paimon_pushdown(0): plan every read without filters (tests) */
  char *last_plan; /* paimon_plan_explain of the last read planned (paimon_last_plan()) */
} psql_conn;

/* Every paimon vtab has PSQL_N_OPTIONS hidden columns paimon_option1.. after the table's own:
 * `SELECT * FROM db.t('scan.snapshot-id=3', ...)` passes 'key=value' read options for that scan
 * (xBestIndex requires them as EQ constraints, xFilter applies them as dynamic options). */
#define PSQL_N_OPTIONS 8

/* The virtual table: one Paimon table (data, branch or system table). */
typedef struct psql_vtab {
  sqlite3_vtab base;
  psql_conn *conn;
  psql_attach *attach;
  char *ident;    /* "db.t", "db.t$branch_b", "db.t$snapshots" */
  int system;     /* a system table */
  paimon_table *table;
  int n_cols;
  char **col_names;
  psql_type *col_types; /* from the table's Arrow schema */
  char **col_paimon;    /* Paimon type strings (NULL for system tables) */
  int64_t next_rowid;
  /* the open transaction (psql_update.c) */
  int in_tx;     /* between xBegin and xCommit / xRollback */
  int tx_failed; /* a statement of the transaction failed: it commits nothing */
  FILE *tx_file; /* buffered rows as JSON lines (primary-key tables: with their row kind) */
  int64_t tx_rows;
  paimon_write_builder *tx_wb;
  paimon_table_write *tx_write;
  paimon_commit_messages *tx_msgs; /* written by xSync, published by xCommit */
  /* rows the scans of the transaction handed out rowids for (xRowid), for DELETE / UPDATE */
  FILE *rec_file;
  struct psql_rec *recs; /* ascending rowid */
  size_t n_recs, cap_recs;
  int64_t rec_next; /* the next rowid */
  int dml_info;     /* pk_cols computed */
  int n_pk;
  int *pk_cols; /* primary-key column indexes */
} psql_vtab;

/* Sets the vtab's error message (sqlite3_mprintf'd). Returns SQLITE_ERROR. */
int psql_vtab_error(psql_vtab *vt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Looks up the attach owning SQLite schema `schema`; *database gets the Paimon database. */
psql_attach *psql_find_schema(psql_conn *c, const char *schema, const char **database);

/* ------------------------------------------------------------------ cursor (psql_cursor.c) */

int psql_best_index(sqlite3_vtab *vt, sqlite3_index_info *info);
int psql_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out);
int psql_close(sqlite3_vtab_cursor *cur);
int psql_filter(sqlite3_vtab_cursor *cur, int idx_num, const char *idx_str, int argc, sqlite3_value **argv);
int psql_next(sqlite3_vtab_cursor *cur);
int psql_eof(sqlite3_vtab_cursor *cur);
int psql_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i);
int psql_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid);
/* In a writing transaction: records the row `row` of batch (typed by bt; vtab column i is child
 * col_map[i], -1 when not read) for a later DELETE / UPDATE and gives it a new rowid. */
int psql_tx_record(psql_vtab *vt, const psql_type *bt, const int *col_map, const struct ArrowArray *batch, int64_t row,
                   sqlite3_int64 *rowid);
/* In a writing transaction on a primary-key table, scans read every column (the -D / -U rows
 * of DELETE and UPDATE carry whole rows, as Java writes them). */
int psql_tx_reads_all(psql_vtab *vt);

/* Registers the catalog / maintenance functions (psql_functions.c). */
/* Registers the eponymous paimon_scan('db.t', 'k=v', ...) table (psql_scan.c). */
int psql_register_scan(sqlite3 *db, psql_conn *c);
/* Resolves 'db.t' (SQLite schema or Paimon database, then the table) to its attach and the
 * Paimon identifier (sqlite3_mprintf'd); NULL with *err set when unknown. */
psql_attach *psql_resolve_table(psql_conn *c, const char *name, char **ident, char **err);
/* Read builder of t with the attach's read options and then opts[0..n) ('key=value' texts,
 * NULL entries skipped; a later key wins). Nonzero with *err (sqlite3_mprintf'd, naming `ident`)
 * on a malformed option or one the table refuses. */
int psql_read_builder(psql_attach *a, paimon_table *t, const char *ident, const char *const *opts, int n,
                      paimon_read_builder **out, char **err);
/* Opens ident: a system table ('t$snapshots', 't$branch_b$snapshots') or a table / branch
 * ('t', 't$branch_b'). *out owned by the caller. */
paimon_status psql_open_table(paimon_catalog *catalog, const char *ident, int *is_system, paimon_table **out,
                              paimon_error *e);
/* Plans rb, keeps the plan's explain text as c->last_plan (paimon_last_plan()) and opens the
 * read into *st. rb stays the caller's. */
paimon_status psql_plan_read(psql_conn *c, paimon_read_builder *rb, struct ArrowArrayStream *st, paimon_error *e);
int psql_register_functions(sqlite3 *db, psql_conn *c);

/* ------------------------------------------------------------------ writes (psql_update.c) */

int psql_update(sqlite3_vtab *vt, int argc, sqlite3_value **argv, sqlite3_int64 *rowid);
int psql_begin(sqlite3_vtab *vt);
int psql_sync(sqlite3_vtab *vt);
int psql_commit(sqlite3_vtab *vt);
int psql_rollback(sqlite3_vtab *vt);
int psql_savepoint(sqlite3_vtab *vt, int n);
int psql_release(sqlite3_vtab *vt, int n);
int psql_rollback_to(sqlite3_vtab *vt, int n);
/* paimon_overwrite('db.t', 'SELECT ...' [, 'k=v,...']): the SELECT's rows (by position) replace
 * the table's (or the given partition's) in one OVERWRITE commit. *rows / *snapshot set; on
 * error returns nonzero with *err (sqlite3_mprintf'd). */
int psql_overwrite(sqlite3 *db, paimon_table *t, const char *select, const char *spec, int64_t *rows, int64_t *snapshot,
                   char **err);

#endif
