/*
 * Shared by the SQL tests: an expected-result file of the fixtures as a SQLite query over the
 * `paimon` module, and the rows it returns normalized to the fixtures' JSON encoding, then
 * compared with fixture_compare.h's multiset comparison (the one the C fixture tests use).
 *
 * The query is `SELECT json_array(c1, hex(c2), ...) FROM s."t"` (binary columns as hex so
 * that every client, the sqlite3 shell included, prints one JSON array per row).
 */
#ifndef PM_TESTS_SQL_FIXTURE_H
#define PM_TESTS_SQL_FIXTURE_H

#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "support/fixture_compare.h"

#define SF_EXT PAIMON_BINARY_DIR "/libpaimon_sqlite"
/* the environment prefix of a shell command running a program not built by us (sqlite3,
 * python3) that loads SF_EXT: in a sanitized build the ASan runtime preloaded (CMakeLists) */
#ifndef SF_FOREIGN_ENV
#define SF_FOREIGN_ENV ""
#endif

typedef struct sf_case {
  json_t *exp;
  char attach[16384]; /* paimon_attach(...) arguments, SQL-quoted */
  char query[16384];
  int n_cols;          /* kept (non-system) columns */
  const char *types[256];
  int kinds[256];
  json_t *want; /* expected rows without system columns */
} sf_case;

static inline void sf_case_free(sf_case *c) {
  json_decref(c->exp);
  json_decref(c->want);
  memset(c, 0, sizeof *c);
}

static inline int sf_is_binary(const char *ty) {
  return !strncmp(ty, "BYTES", 5) || !strncmp(ty, "BINARY", 6) || !strncmp(ty, "VARBINARY", 9) ||
         !strncmp(ty, "BLOB", 4);
}

static inline void sf_quote(char *dst, size_t cap, const char *s) {
  size_t n = strlen(dst);
  if (n + 1 < cap) dst[n++] = '\'';
  for (; *s && n + 2 < cap; s++) {
    if (*s == '\'') dst[n++] = '\'';
    dst[n++] = *s;
  }
  if (n + 1 < cap) dst[n++] = '\'';
  dst[n] = 0;
}

/* Loads expected file `path`; 0 on success. */
static inline int sf_case_load(sf_case *c, const char *path) {
  memset(c, 0, sizeof *c);
  json_error_t je;
  c->exp = json_load_file(path, 0, &je);
  if (!c->exp) return -1;
  const char *table = json_string_value(json_object_get(c->exp, "table"));
  const char *branch = json_string_value(json_object_get(c->exp, "branch"));
  json_t *snap = json_object_get(c->exp, "snapshot");
  json_t *cols = json_object_get(c->exp, "columns");
  json_t *types = json_object_get(c->exp, "column_types");
  json_t *ropts = json_object_get(c->exp, "read_options");
  /* table = [fmt/]<db>.db/<t> */
  char wh[4096], db[512], t[512];
  const char *dotdb = strstr(table, ".db/");
  if (!dotdb) return -1;
  const char *dbstart = dotdb;
  while (dbstart > table && dbstart[-1] != '/') dbstart--;
  snprintf(wh, sizeof wh, "%s/%.*s", PM_SHARED("fixtures/warehouse"), (int)(dbstart - table), table);
  if (wh[strlen(wh) - 1] == '/') wh[strlen(wh) - 1] = 0;
  snprintf(db, sizeof db, "%.*s", (int)(dotdb - dbstart), dbstart);
  snprintf(t, sizeof t, "%s%s%s", dotdb + 4, branch ? "$branch_" : "", branch ? branch : "");
  char arg[8192];
  snprintf(arg, sizeof arg, "warehouse=%s", wh);
  sf_quote(c->attach, sizeof c->attach, arg);
  snprintf(arg, sizeof arg, "database=%s", db);
  strcat(c->attach, ", ");
  sf_quote(c->attach, sizeof c->attach, arg);
  strcat(c->attach, ", 'schema=s'");
  if (json_is_integer(snap)) {
    snprintf(arg, sizeof arg, "scan.snapshot-id=%lld", (long long)json_integer_value(snap));
    strcat(c->attach, ", ");
    sf_quote(c->attach, sizeof c->attach, arg);
  }
  if (ropts) {
    const char *tz = json_string_value(json_object_get(ropts, "session_time_zone"));
    if (tz) {
      snprintf(arg, sizeof arg, "session_time_zone=%s", tz);
      strcat(c->attach, ", ");
      sf_quote(c->attach, sizeof c->attach, arg);
    }
    json_t *rw = json_object_get(ropts, "external_path_rewrite");
    if (rw) {
      snprintf(arg, sizeof arg, "path-rewrite=%s=%s/%.*s.db/external", json_string_value(json_object_get(rw, "from")),
               PM_SHARED("fixtures/warehouse"), (int)(dotdb - table), table);
      strcat(c->attach, ", ");
      sf_quote(c->attach, sizeof c->attach, arg);
    }
  }
  /* the query, without system columns */
  size_t nc = json_array_size(cols);
  int keep[256];
  strcpy(c->query, "SELECT json_array(");
  for (size_t i = 0; i < nc && i < 256; i++) {
    const char *name = json_string_value(json_array_get(cols, i));
    keep[i] = name[0] != '_' || (strcmp(name, "_ROW_ID") && strcmp(name, "_SEQUENCE_NUMBER"));
    if (!keep[i]) continue;
    const char *ty = json_string_value(json_array_get(types, i));
    c->types[c->n_cols] = ty;
    c->kinds[c->n_cols] = fxc_column_kind(ty);
    size_t l = strlen(c->query);
    snprintf(c->query + l, sizeof c->query - l, "%s%s\"%s\"%s", c->n_cols ? ", " : "", sf_is_binary(ty) ? "hex(" : "",
             name, sf_is_binary(ty) ? ")" : "");
    c->n_cols++;
  }
  size_t l = strlen(c->query);
  snprintf(c->query + l, sizeof c->query - l, ") FROM s.\"%s\"", t);
  c->want = json_array();
  json_t *row;
  size_t ri;
  json_array_foreach(json_object_get(c->exp, "rows"), ri, row) {
    json_t *r = json_array();
    for (size_t i = 0; i < nc && i < 256; i++)
      if (keep[i]) json_array_append(r, json_array_get(row, i));
    json_array_append_new(c->want, r);
  }
  return 0;
}

static inline int sf_hexval(char ch) {
  return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : ch - 'a' + 10;
}

/* One cell of a json_array row in the fixtures' encoding. Returns a new reference. */
static inline json_t *sf_norm(const char *ty, json_t *v) {
  if (json_is_null(v)) return json_null();
  if (!strncmp(ty, "BOOLEAN", 7) && json_is_integer(v)) return json_boolean(json_integer_value(v) != 0);
  if (sf_is_binary(ty) && json_is_string(v)) {
    const char *h = json_string_value(v);
    size_t n = strlen(h) / 2;
    unsigned char *raw = malloc(n + 1);
    for (size_t i = 0; i < n; i++) raw[i] = (unsigned char)(sf_hexval(h[2 * i]) << 4 | sf_hexval(h[2 * i + 1]));
    static const char T[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out = malloc(4 * (n / 3 + 1) + 1);
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
      unsigned x = (unsigned)raw[i] << 16 | (i + 1 < n ? (unsigned)raw[i + 1] << 8 : 0) | (i + 2 < n ? raw[i + 2] : 0);
      out[o++] = T[x >> 18 & 63];
      out[o++] = T[x >> 12 & 63];
      out[o++] = i + 1 < n ? T[x >> 6 & 63] : '=';
      out[o++] = i + 2 < n ? T[x & 63] : '=';
    }
    out[o] = 0;
    json_t *r = json_string(out);
    free(raw);
    free(out);
    return r;
  }
  if ((!strncmp(ty, "ARRAY", 5) || !strncmp(ty, "MAP", 3) || !strncmp(ty, "ROW", 3)) && json_is_string(v)) {
    json_error_t je;
    json_t *r = json_loads(json_string_value(v), JSON_DECODE_ANY, &je);
    return r ? r : json_incref(v);
  }
  return json_incref(v);
}

/* Appends the normalized row of the json_array text `line` to rows. 0 on success. */
static inline int sf_add_row(const sf_case *c, const char *line, json_t *rows) {
  json_error_t je;
  json_t *a = json_loads(line, 0, &je);
  if (!json_is_array(a) || (int)json_array_size(a) != c->n_cols) {
    json_decref(a);
    return -1;
  }
  json_t *r = json_array();
  for (int i = 0; i < c->n_cols; i++) json_array_append_new(r, sf_norm(c->types[i], json_array_get(a, (size_t)i)));
  json_array_append_new(rows, r);
  json_decref(a);
  return 0;
}

#endif
