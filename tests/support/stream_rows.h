/*
 * Stream-scan test helpers (paimon/stream.h): read a plan split by split into
 * JSON rows (arrays of the read columns, as fixture_compare.h builds them),
 * drain a scan, and multiset differences of row lists.
 * Header-only; needs harness.h included before it.
 */
#ifndef PM_TESTS_SUPPORT_STREAM_ROWS_H
#define PM_TESTS_SUPPORT_STREAM_ROWS_H

#include <jansson.h>
#include <string.h>

#include "paimon/paimon.h"
#include "paimon/stream.h"
#include "support/fixture_compare.h"

/* Appends the rows of every split of plan (read with rb, one split at a time) to rows; buckets
 * (may be NULL) gets the split's bucket per row. Returns a status (err set). */
static inline int sr_read_plan(const paimon_read_builder *rb, const paimon_plan *plan, json_t *rows, json_t *buckets,
                               paimon_error *err) {
  for (size_t i = 0; i < paimon_plan_num_splits(plan); i++) {
    const paimon_split *sp = paimon_plan_split(plan, i);
    struct ArrowArrayStream st = {0};
    struct ArrowSchema schema = {0};
    pm_type type;
    memset(&type, 0, sizeof type);
    pm_error e;
    pm_error_clear(&e);
    int rc = paimon_table_read_splits(rb, &sp, 1, &st, err);
    if (!rc && st.get_schema(&st, &schema)) rc = PAIMON_ERR_INTERNAL;
    if (!rc && pm_type_from_schema(&schema, &type, &e)) rc = PAIMON_ERR_INTERNAL;
    while (!rc) {
      struct ArrowArray a;
      if (st.get_next(&st, &a)) {
        rc = PAIMON_ERR_IO;
        snprintf(err->message, sizeof err->message, "%s", st.get_last_error(&st) ? st.get_last_error(&st) : "?");
        break;
      }
      if (!a.release) break;
      size_t before = json_array_size(rows);
      rc = fxc_batch_to_json(&type, &a, NULL, rows, &e);
      if (rc) snprintf(err->message, sizeof err->message, "%s", e.message);
      for (size_t k = before; buckets && k < json_array_size(rows); k++)
        json_array_append_new(buckets, json_integer(paimon_split_bucket(sp)));
      a.release(&a);
    }
    pm_type_free(&type);
    if (schema.release) schema.release(&schema);
    if (st.release) st.release(&st);
    if (rc) return rc;
  }
  return 0;
}

/* Plans until a plan comes back without splits (at most max_plans plans), appending the rows read.
 * *n_plans (may be NULL) = plans with splits. The first plan is always taken, even when empty. */
static inline int sr_drain(paimon_stream_scan *ss, const paimon_read_builder *rb, json_t *rows, int max_plans,
                           int *n_plans, paimon_error *err) {
  int got = 0;
  for (int i = 0; i < max_plans; i++) {
    paimon_plan *plan = NULL;
    int rc = paimon_stream_scan_plan(ss, &plan, err);
    if (rc) return rc;
    size_t n = paimon_plan_num_splits(plan);
    if (n) got++;
    rc = sr_read_plan(rb, plan, rows, NULL, err);
    paimon_plan_free(plan);
    if (rc) return rc;
    if (!n && i > 0) break;
  }
  if (n_plans) *n_plans = got;
  return 0;
}

static inline int sr_rows_equal(const json_t *a, const json_t *b, const int *kinds) {
  if (json_array_size(a) != json_array_size(b)) return 0;
  for (size_t c = 0; c < json_array_size(a); c++)
    if (!fxc_json_equal(json_array_get(a, c), json_array_get(b, c), kinds ? kinds[c] : 0)) return 0;
  return 1;
}

/* A new array: the rows of a minus (as multisets) the rows of b. */
static inline json_t *sr_minus(const json_t *a, const json_t *b, const int *kinds) {
  size_t nb = json_array_size(b);
  char *used = calloc(nb + 1, 1);
  json_t *out = json_array();
  for (size_t i = 0; i < json_array_size(a); i++) {
    const json_t *r = json_array_get(a, i);
    int hit = 0;
    for (size_t j = 0; j < nb && !hit; j++)
      if (!used[j] && sr_rows_equal(r, json_array_get(b, j), kinds)) used[j] = hit = 1;
    if (!hit) json_array_append(out, (json_t *)r);
  }
  free(used);
  return out;
}

#endif
