/*
 * Pushdown (psql_index.c): xBestIndex turns usable constraints and colUsed into idxStr, a
 * ';'-separated list that EXPLAIN QUERY PLAN shows ("cols:0,2", "eq:1:id", "in:1:id",
 * "lt:3:ts", "null:2:name", "prefix:2:name", "limit", "offset"); xFilter (through
 * psql_index_apply) turns it and the constraint values into the read builder's filter and
 * limit. Pushed filters only prune (omit is never set): SQLite still evaluates every
 * constraint, so results are exact; a value whose SQLite comparison semantics differ from
 * Paimon's (a text literal for an INTEGER column, a DECIMAL column, a LIKE prefix with
 * letters: SQLite's LIKE ignores ASCII case) is not pushed.
 */
#ifndef PM_SQL_PSQL_INDEX_H
#define PM_SQL_PSQL_INDEX_H

#include "sql/psql.h"

typedef struct psql_pushed {
  int *cols; /* columns to read, ascending (malloc'd; the caller frees) */
  int n_cols;
  int64_t limit;  /* rows to return at most (LIMIT + OFFSET), -1: none */
  int64_t offset; /* always 0: SQLite applies OFFSET itself */
  int empty;      /* no row can match (e.g. col IN () ) */
} psql_pushed;

/* Applies idx_str to rb (projection is returned in out, not applied). */
int psql_index_apply(psql_vtab *vt, paimon_read_builder *rb, const char *idx_str, int argc, sqlite3_value **argv,
                     psql_pushed *out);

#endif
