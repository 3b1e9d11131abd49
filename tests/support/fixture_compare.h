/*
 * Helpers for comparing table reads with the fixtures' expected JSON rows
 * (fixtures/README.md "How a test should compare"): convert Arrow values to
 * the JSON value encoding, then compare rows as multisets with a float
 * tolerance. Header-only so every tests/table/test_*.c can include it.
 */
#ifndef PM_TESTS_TABLE_FIXTURE_COMPARE_H
#define PM_TESTS_TABLE_FIXTURE_COMPARE_H

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "print/print.h"
#include "arrow/type.h"
#include "util/buf.h"

/* Column kinds that need special comparison. */
enum { FXC_PLAIN = 0, FXC_FLOAT = 1, FXC_DOUBLE = 2 };

/* Fraction digits of the first TIMESTAMP/TIME precision in a Paimon type string, or -1. */
static inline int fxc_fraction_digits(const char *type) {
  const char *p = strstr(type, "TIMESTAMP");
  if (!p) p = strstr(type, "TIME(");
  if (!p) return -1;
  const char *q = strchr(p, '(');
  const char *lt = strchr(p, '<');
  if (!q || (lt && lt < q)) return strstr(p, "TIMESTAMP") == p ? 6 : 0;
  /* the paren must follow the keyword directly (TIMESTAMP(3), TIMESTAMP_LTZ(3)) */
  const char *k = p;
  while (*k && *k != '(' && *k != ' ' && *k != ',' && *k != '>') k++;
  if (*k != '(') return strstr(p, "TIMESTAMP") == p ? 6 : 0;
  return atoi(k + 1);
}

static inline int fxc_column_kind(const char *type) {
  if (!strncmp(type, "FLOAT", 5)) return FXC_FLOAT;
  if (!strncmp(type, "DOUBLE", 6)) return FXC_DOUBLE;
  return FXC_PLAIN;
}

/* Deep equality with tolerance for numbers that are not integers. */
static inline int fxc_json_equal(const json_t *a, const json_t *b, int kind) {
  if (json_is_number(a) && json_is_number(b)) {
    double x = json_number_value(a), y = json_number_value(b);
    if (x == y) return 1;
    double m = fabs(x) > fabs(y) ? fabs(x) : fabs(y);
    if (m < 1) m = 1;
    double tol = kind == FXC_FLOAT ? 1e-6 : 1e-6;
    if (kind == FXC_FLOAT && (float)x == (float)y) return 1;
    return fabs(x - y) <= tol * m;
  }
  if (json_typeof(a) != json_typeof(b)) {
    /* NaN / Infinity are printed as strings; expected may also hold strings */
    return 0;
  }
  switch (json_typeof(a)) {
    case JSON_ARRAY: {
      size_t n = json_array_size(a);
      if (n != json_array_size(b)) return 0;
      for (size_t i = 0; i < n; i++)
        if (!fxc_json_equal(json_array_get(a, i), json_array_get(b, i), kind)) return 0;
      return 1;
    }
    case JSON_OBJECT: {
      if (json_object_size(a) != json_object_size(b)) return 0;
      const char *k;
      json_t *v;
      json_object_foreach((json_t *)a, k, v) {
        json_t *w = json_object_get(b, k);
        if (!w || !fxc_json_equal(v, w, kind)) return 0;
      }
      return 1;
    }
    default: return json_equal((json_t *)a, (json_t *)b);
  }
}

/* Appends the rows of `batch` (struct array typed by `t`) to `rows` as JSON arrays. */
static inline int fxc_batch_to_json(const pm_type *t, const struct ArrowArray *batch, const int *digits, json_t *rows,
                             pm_error *err) {
  pm_buf b;
  pm_buf_init(&b);
  for (int64_t r = 0; r < batch->length; r++) {
    json_t *row = json_array();
    for (int64_t c = 0; c < t->n_children; c++) {
      b.len = 0;
      const struct ArrowArray *col = batch->children[c];
      int rc = pm_json_append_value(&t->children[c], col, r, digits ? digits[c] : -1, &b, err);
      if (rc) {
        json_decref(row);
        pm_buf_free(&b);
        return rc;
      }
      json_error_t je;
      json_t *v = json_loadb((const char *)b.data, b.len, JSON_DECODE_ANY, &je);
      if (!v) {
        json_decref(row);
        pm_buf_free(&b);
        return pm_errorf(err, PAIMON_ERR_INTERNAL, "printer produced invalid JSON: %.*s", (int)b.len,
                         (const char *)b.data);
      }
      json_array_append_new(row, v);
    }
    json_array_append_new(rows, row);
  }
  pm_buf_free(&b);
  return 0;
}

/* Multiset comparison; writes a description of the first difference to msg. */
static inline int fxc_rows_match(const json_t *expected, const json_t *actual, const int *kinds, char *msg, size_t cap) {
  size_t ne = json_array_size(expected), na = json_array_size(actual);
  if (ne != na) {
    snprintf(msg, cap, "row count: expected %zu, got %zu", ne, na);
    if (na > 0 && na < 50) {
      char *s = json_dumps(actual, JSON_COMPACT);
      if (s) {
        size_t l = strlen(msg);
        snprintf(msg + l, cap - l, "; actual rows: %.1500s", s);
      }
      free(s);
    }
    return 0;
  }
  char *used = calloc(na + 1, 1);
  int ok = 1;
  for (size_t i = 0; i < ne && ok; i++) {
    const json_t *er = json_array_get(expected, i);
    int found = 0;
    for (size_t j = 0; j < na && !found; j++) {
      if (used[j]) continue;
      const json_t *ar = json_array_get(actual, j);
      if (json_array_size(er) != json_array_size(ar)) continue;
      int eq = 1;
      for (size_t c = 0; c < json_array_size(er) && eq; c++)
        eq = fxc_json_equal(json_array_get(er, c), json_array_get(ar, c), kinds ? kinds[c] : 0);
      if (eq) {
        used[j] = 1;
        found = 1;
      }
    }
    if (!found) {
      char *s = json_dumps(er, JSON_COMPACT | JSON_ENCODE_ANY);
      char *a = json_dumps(actual, JSON_COMPACT);
      snprintf(msg, cap, "expected row %s not found; actual rows: %.1500s", s ? s : "?", a ? a : "?");
      free(s);
      free(a);
      ok = 0;
    }
  }
  free(used);
  return ok;
}

#endif
