/*
 * Set-up shared by the primary-key write tests (test_write_pk*.c): open a
 * catalog, get a table, build an Arrow batch from JSON lines with columns
 * given as "name:arrow-format[:notnull]", and write + commit parts with one
 * batch writer.
 *
 * Header-only (static functions). Needs harness.h (CHECK, CHECK_OK) included
 * before it. Returned handles are owned by the caller.
 */
#ifndef PM_TESTS_SUPPORT_PK_WRITE_H
#define PM_TESTS_SUPPORT_PK_WRITE_H

#include <stdio.h>
#include <string.h>

#include "arrow/arrow.h"
#include "arrow/json_read.h"
#include "arrow/type.h"
#include "paimon/paimon.h"
#include "paimon/write.h"

static inline paimon_catalog *pkw_open_catalog(const char *warehouse) {
  paimon_error err = {0};
  paimon_option o[] = {{"warehouse", warehouse}};
  paimon_catalog *c = NULL;
  CHECK_OK(paimon_catalog_open(o, 1, &c, &err), &err);
  return c;
}

/* ident "db.name" */
static inline paimon_table *pkw_get_table(paimon_catalog *c, const char *ident) {
  paimon_error err = {0};
  paimon_table *t = NULL;
  CHECK_OK(paimon_catalog_get_table(c, ident, &t, &err), &err);
  return t;
}

/* The batch of JSON lines over the first n of cols ("name:fmt[:notnull]"). */
static inline void pkw_batch(const char *const *cols, int n, const char *jsonl, struct ArrowSchema *s,
                             struct ArrowArray *a) {
  pm_error err;
  CHECK(pm_schema_init(s, "+s", "", 0, n, &err) == 0);
  for (int i = 0; i < n; i++) {
    char name[64], fmt[32];
    int notnull = strstr(cols[i], ":notnull") != NULL;
    sscanf(cols[i], "%63[^:]:%31[^:]", name, fmt);
    CHECK(pm_schema_init(s->children[i], fmt, name, notnull ? 0 : ARROW_FLAG_NULLABLE, 0, &err) == 0);
  }
  pm_type t;
  CHECK(pm_type_from_schema(s, &t, &err) == 0);
  CHECK_MSG(pm_json_lines_to_array(&t, jsonl, strlen(jsonl), a, &err) == 0, "%s", err.message);
  pm_type_free(&t);
}

/* One write of a commit: rows (JSON lines) of one row kind (0..3), or kind -1: each row's kind
 * from the row-kind column (the last of the columns). */
typedef struct pkw_part {
  const char *jsonl;
  int kind;
} pkw_part;

/* How pkw_write_commit writes: the table's columns (n_cols without the row-kind column),
 * the row-kind column's name (used for parts of kind -1), compact: -1 none, 0 / 1
 * paimon_table_write_compact(full) before prepare; metrics (may be NULL): the writer's
 * compaction metrics after the commit. */
typedef struct pkw_how {
  const char *const *cols;
  int n_cols;
  const char *row_kind_column;
  int compact;
  paimon_compact_metrics *metrics;
} pkw_how;

/* Writes the parts with one batch writer and commits them with watermark (may be NULL: none);
 * returns the status. */
static inline int pkw_write_commit_wm(paimon_table *t, const pkw_how *how, const pkw_part *parts, size_t n,
                                      const int64_t *watermark, paimon_error *err) {
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  paimon_commit_messages *m = NULL;
  paimon_table_commit *c = NULL;
  int rc = paimon_write_builder_new(t, 0, NULL, 0, &wb, err);
  if (!rc) rc = paimon_write_builder_new_write(wb, &w, err);
  for (size_t i = 0; !rc && i < n; i++) {
    struct ArrowSchema s;
    struct ArrowArray a;
    int with_kind = parts[i].kind < 0;
    pkw_batch(how->cols, how->n_cols + with_kind, parts[i].jsonl, &s, &a);
    if (with_kind) {
      rc = paimon_table_write_with_row_kind_column(w, how->row_kind_column, err);
      if (!rc) rc = paimon_table_write_arrow(w, &s, &a, err);
      if (!rc) rc = paimon_table_write_with_row_kind_column(w, NULL, err);
    } else {
      rc = paimon_table_write_arrow_kind(w, &s, &a, parts[i].kind, err);
    }
    if (a.release) a.release(&a);
    if (s.release) s.release(&s);
  }
  if (!rc && how->compact >= 0) rc = paimon_table_write_compact(w, NULL, 0, -1, how->compact, err);
  if (!rc) rc = paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, err);
  if (!rc) rc = paimon_write_builder_new_commit(wb, &c, err);
  if (!rc && watermark) paimon_table_commit_with_watermark(c, *watermark);
  if (!rc) rc = paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, NULL, err);
  if (how->metrics) paimon_table_write_compact_metrics(w, how->metrics);
  paimon_commit_messages_free(m);
  paimon_table_commit_free(c);
  paimon_table_write_free(w);
  paimon_write_builder_free(wb);
  return rc;
}

/* pkw_write_commit_wm without a watermark. */
static inline int pkw_write_commit(paimon_table *t, const pkw_how *how, const pkw_part *parts, size_t n,
                                   paimon_error *err) {
  return pkw_write_commit_wm(t, how, parts, n, NULL, err);
}

#endif
