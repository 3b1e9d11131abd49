/*
 * Write-test helpers on the public API (paimon/ddl.h, paimon/write.h):
 * create a table from a SQL column list, turn JSON lines (the fixtures' value
 * encoding, one object per row) into an Arrow batch typed by the table, write
 * and commit one batch, and read a table back with our own reader as JSON
 * objects (for comparing with paimon-table, never instead of it).
 *
 * Header-only (static functions). Returned json_t are owned by the caller.
 */
#ifndef PM_TESTS_SUPPORT_ORACLE_WRITE_H
#define PM_TESTS_SUPPORT_ORACLE_WRITE_H

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow.h"
#include "arrow/json_read.h"
#include "arrow/type.h"
#include "print/value.h"
#include "paimon/ddl.h"
#include "paimon/paimon.h"
#include "paimon/write.h"
#include "api/api_write_internal.h"
#include "table/write.h"
#include "util/buf.h"

/* Creates database `db` (if absent) and table db.name with the columns (SQL list), partition
 * keys (comma-separated, NULL/"" = none) and options ("k=v" strings). ignore_if_exists as in
 * paimon_catalog_create_table. */
static inline paimon_status ow_create_table(paimon_catalog *cat, const char *db, const char *name, const char *columns,
                                     const char *partition_keys, const char *const *options, size_t n_options,
                                     int ignore_if_exists, paimon_error *err) {
  paimon_status st = paimon_catalog_create_database(cat, db, NULL, 0, 1, err);
  if (st) return st;
  paimon_schema_builder *b = NULL;
  st = paimon_schema_builder_new(&b, err);
  if (!st) st = paimon_schema_builder_columns_sql(b, columns, err);
  if (!st && partition_keys && *partition_keys) {
    char keys[1024];
    snprintf(keys, sizeof keys, "%s", partition_keys);
    const char *k[16];
    size_t n = 0;
    for (char *tok = strtok(keys, ","); tok && n < 16; tok = strtok(NULL, ",")) k[n++] = tok;
    st = paimon_schema_builder_partition_keys(b, k, n, err);
  }
  for (size_t i = 0; !st && i < n_options; i++) {
    char kv[1024];
    snprintf(kv, sizeof kv, "%s", options[i]);
    char *eq = strchr(kv, '=');
    if (!eq) {
      err->code = PAIMON_ERR_INVALID_ARGUMENT;
      snprintf(err->message, sizeof err->message, "option '%s' is not k=v", options[i]);
      st = PAIMON_ERR_INVALID_ARGUMENT;
      break;
    }
    *eq = 0;
    st = paimon_schema_builder_option(b, kv, eq + 1, err);
  }
  char ident[512];
  snprintf(ident, sizeof ident, "%s.%s", db, name);
  if (!st) st = paimon_catalog_create_table(cat, ident, b, ignore_if_exists, err);
  paimon_schema_builder_free(b);
  return st;
}

/* An Arrow batch with every column of the table, rows from JSON lines (objects keyed by
 * column name; missing keys are null). *s and *a owned by the caller (release). */
static inline paimon_status ow_batch(const paimon_table *t, const char *json_lines, struct ArrowSchema *s,
                              struct ArrowArray *a, paimon_error *err) {
  memset(s, 0, sizeof *s);
  memset(a, 0, sizeof *a);
  paimon_status st = paimon_table_arrow_schema(t, s, err);
  if (st) return st;
  pm_type type;
  pm_error e;
  pm_error_clear(&e);
  int rc = pm_type_from_schema(s, &type, &e);
  if (!rc) {
    rc = pm_json_lines_to_array(&type, json_lines, strlen(json_lines), a, &e);
    pm_type_free(&type);
  }
  if (rc) {
    s->release(s);
    memset(s, 0, sizeof *s);
    err->code = (paimon_status)rc;
    snprintf(err->message, sizeof err->message, "test batch: %.900s", e.message);
    return (paimon_status)rc;
  }
  return PAIMON_OK;
}

/* Writes one batch (JSON lines) with the table writer (src/table/write.h: the public table write
 * is not there yet) and commits it through the public API: streaming with identifier `ident`, or
 * batch (PAIMON_BATCH_COMMIT_IDENTIFIER). user may be NULL (random). overwrite_on: static partition
 * spec of n_ow entries (n_ow 0 = whole table / dynamic). *snapshot (may be NULL) = the snapshot. */
static inline paimon_status ow_write_commit(const paimon_table *t, const char *user, int streaming, int64_t ident,
                                            const char *json_lines, const paimon_option *overwrite, size_t n_ow,
                                            int overwrite_on, int64_t *snapshot, paimon_error *err) {
  paimon_write_builder *wb = NULL;
  paimon_commit_messages *m = NULL;
  paimon_table_commit *c = NULL;
  pm_table_write *w = NULL;
  pm_manifest_committable *mc = NULL;
  struct ArrowSchema s = {0};
  struct ArrowArray a = {0};
  int64_t id = streaming ? ident : PAIMON_BATCH_COMMIT_IDENTIFIER;
  pm_error e;
  pm_error_clear(&e);
  paimon_status st = paimon_write_builder_new(t, streaming, NULL, 0, &wb, err);
  if (!st && user) st = paimon_write_builder_with_commit_user(wb, user, err);
  if (!st && overwrite_on) st = paimon_write_builder_with_overwrite(wb, overwrite, n_ow, err);
  if (!st) {
    pm_write_config cfg = {paimon_write_builder_commit_user(wb), streaming, overwrite_on, 0};
    int rc = pm_table_write_open(wb->t, &cfg, &w, &e);
    if (!rc && json_lines && *json_lines) {
      st = ow_batch(t, json_lines, &s, &a, err);
      if (!st) rc = pm_table_write_arrow(w, &s, &a, &e);
    }
    if (!st && !rc) rc = pm_table_write_prepare(w, id, &mc, &e);
    if (!st && !rc) rc = pm_api_messages_wrap(mc, &m, &e);
    if (!st && rc) {
      st = (paimon_status)rc;
      err->code = st;
      snprintf(err->message, sizeof err->message, "%s", e.message);
    }
  }
  if (!st) st = paimon_write_builder_new_commit(wb, &c, err);
  if (!st) st = paimon_table_commit_commit(c, m, id, snapshot, err);
  if (a.release) a.release(&a);
  if (s.release) s.release(&s);
  paimon_table_commit_free(c);
  paimon_commit_messages_free(m);
  pm_table_write_free(w);
  paimon_write_builder_free(wb);
  return st;
}

/* Every row of the table's snapshot (latest, or as read options such as scan.snapshot-id say) read by our reader, as JSON objects keyed by column
 * name (TIMESTAMP(p) with p fraction digits, the fixtures' encoding). NULL on error (err set). */
static inline json_t *ow_read_ours_opts(const paimon_table *t, const paimon_option *opts, size_t n_opts,
                                        paimon_error *err) {
  paimon_read_builder *rb = NULL;
  paimon_plan *plan = NULL;
  struct ArrowArrayStream st = {0};
  struct ArrowSchema schema = {0};
  pm_type type;
  memset(&type, 0, sizeof type);
  json_t *rows = json_array();
  size_t nc = paimon_table_num_columns(t);
  int *digits = calloc(nc + 1, sizeof *digits);
  for (size_t i = 0; i < nc; i++) {
    char *ty = NULL;
    digits[i] = -1;
    if (paimon_table_column_type(t, i, &ty, err) == PAIMON_OK && ty) {
      const char *p = strstr(ty, "TIMESTAMP");
      if (p && !strchr(ty, '<')) {
        const char *q = strchr(p, '(');
        digits[i] = q ? atoi(q + 1) : 6;
      } else if (!strncmp(ty, "TIME", 4) && (ty[4] == 0 || ty[4] == '(' || ty[4] == ' ')) {
        digits[i] = ty[4] == '(' ? atoi(ty + 5) : 0;
      }
    }
    paimon_free_string(ty);
  }
  paimon_status rc = paimon_read_builder_new(t, opts, n_opts, &rb, err);
  if (!rc) rc = paimon_read_builder_plan(rb, &plan, err);
  if (!rc) rc = paimon_read_plan(rb, plan, &st, err);
  if (!rc && st.get_schema(&st, &schema)) rc = PAIMON_ERR_INTERNAL;
  pm_error e;
  pm_error_clear(&e);
  if (!rc && pm_type_from_schema(&schema, &type, &e)) rc = PAIMON_ERR_INTERNAL;
  pm_buf b;
  pm_buf_init(&b);
  while (!rc) {
    struct ArrowArray a;
    if (st.get_next(&st, &a)) {
      rc = PAIMON_ERR_IO;
      snprintf(err->message, sizeof err->message, "%s", st.get_last_error(&st) ? st.get_last_error(&st) : "?");
      break;
    }
    if (!a.release) break;
    for (int64_t r = 0; r < a.length && !rc; r++) {
      json_t *row = json_object();
      for (int64_t c = 0; c < type.n_children && !rc; c++) {
        b.len = 0;
        if (pm_json_append_value(&type.children[c], a.children[c], r, c < (int64_t)nc ? digits[c] : -1, &b, &e)) {
          rc = PAIMON_ERR_INTERNAL;
          snprintf(err->message, sizeof err->message, "%s", e.message);
          break;
        }
        json_t *v = json_loadb((const char *)b.data, b.len, JSON_DECODE_ANY, NULL);
        json_object_set_new(row, type.children[c].name ? type.children[c].name : "?", v ? v : json_null());
      }
      json_array_append_new(rows, row);
    }
    a.release(&a);
  }
  pm_buf_free(&b);
  pm_type_free(&type);
  if (schema.release) schema.release(&schema);
  if (st.release) st.release(&st);
  paimon_plan_free(plan);
  paimon_read_builder_free(rb);
  free(digits);
  if (rc) {
    err->code = rc;
    json_decref(rows);
    return NULL;
  }
  return rows;
}

/* ow_read_ours_opts without read options (the latest snapshot). */
static inline json_t *ow_read_ours(const paimon_table *t, paimon_error *err) { return ow_read_ours_opts(t, NULL, 0, err); }

#endif
