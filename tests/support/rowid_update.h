/*
 * Helpers for row-id update tests (paimon/update.h): input batches with a _ROW_ID column built
 * from JSON lines, one update + commit through the public API, and our reader's rows keyed by
 * _ROW_ID. Header-only; returned json_t owned by the caller.
 */
#ifndef PM_TESTS_SUPPORT_ROWID_UPDATE_H
#define PM_TESTS_SUPPORT_ROWID_UPDATE_H

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "arrow/json_read.h"
#include "arrow/type.h"
#include "data/types.h"
#include "paimon/paimon.h"
#include "paimon/update.h"

/* A struct batch of the columns `fields_sql` (e.g. "_ROW_ID BIGINT NOT NULL, name STRING") from
 * JSON lines. 0 on success; *s, *a owned by the caller. */
static inline int ru_batch(const char *fields_sql, const char *json_lines, struct ArrowSchema *s, struct ArrowArray *a,
                           char *msg, size_t cap) {
  memset(s, 0, sizeof *s);
  memset(a, 0, sizeof *a);
  pm_error e;
  pm_error_clear(&e);
  pm_data_field *f = NULL;
  size_t n = 0;
  int rc = pm_dtype_parse_fields(fields_sql, &f, &n, &e);
  for (size_t i = 0; !rc && i < n; i++) f[i].id = (int32_t)i;
  if (!rc) rc = pm_dfields_to_arrow(f, n, s, &e);
  for (size_t i = 0; i < n; i++) pm_data_field_clear(&f[i]);
  free(f);
  pm_type type;
  memset(&type, 0, sizeof type);
  if (!rc) rc = pm_type_from_schema(s, &type, &e);
  if (!rc) rc = pm_json_lines_to_array(&type, json_lines, strlen(json_lines), a, &e);
  pm_type_free(&type);
  if (rc) {
    if (s->release) s->release(s);
    memset(s, 0, sizeof *s);
    snprintf(msg, cap, "%.900s", e.message);
  }
  return rc;
}

/* Updates columns cols[0, n) with one batch (fields_sql / JSON lines as ru_batch) and commits
 * (batch mode; stream mode with identifier ident when streaming). *snapshot may be NULL. */
static inline paimon_status ru_update_commit(const paimon_table *t, int streaming, int64_t ident,
                                             const char *const *cols, size_t n, const char *fields_sql,
                                             const char *json_lines, int64_t *snapshot, paimon_error *err) {
  struct ArrowSchema s;
  struct ArrowArray a;
  if (ru_batch(fields_sql, json_lines, &s, &a, err->message, sizeof err->message)) {
    err->code = PAIMON_ERR_INVALID_ARGUMENT;
    return err->code;
  }
  int64_t id = streaming ? ident : PAIMON_BATCH_COMMIT_IDENTIFIER;
  paimon_write_builder *wb = NULL;
  paimon_table_update *u = NULL;
  paimon_commit_messages *m = NULL;
  paimon_table_commit *c = NULL;
  paimon_status st = paimon_write_builder_new(t, streaming, NULL, 0, &wb, err);
  if (!st) st = paimon_write_builder_new_update_by_row_id(wb, cols, n, &u, err);
  if (!st) st = paimon_table_update_columns(u, &s, &a, err);
  if (!st) st = paimon_table_update_prepare_commit(u, id, &m, err);
  if (!st) st = paimon_write_builder_new_commit(wb, &c, err);
  if (!st) st = paimon_table_commit_commit(c, m, id, snapshot, err);
  paimon_table_commit_free(c);
  paimon_commit_messages_free(m);
  paimon_table_update_free(u);
  paimon_write_builder_free(wb);
  a.release(&a);
  s.release(&s);
  return st;
}

#endif
