/*
 * The changelog a primary-key table should produce between two committed
 * states, and our reader with the row kind (shared by pk_changelog.h and
 * test_write_pk_random.c): states are JSON objects key text -> row object;
 * the expected changelog over the keys touched in between is +I after (no
 * before), -D before (no after), -U before + +U after (both; first-row: only
 * +I of new keys; row_dedup: no -U/+U of an unchanged row), as Java's
 * LookupChangelogMergeFunctionWrapper / FullChangelogMergeFunctionWrapper.
 * Rows carry the kind in "_row_kind" ("+I", "-U", "+U", "-D").
 * Header-only (static functions); needs harness.h before it.
 */
#ifndef PM_TESTS_SUPPORT_PK_TRANSITIONS_H
#define PM_TESTS_SUPPORT_PK_TRANSITIONS_H

#include <jansson.h>

#include "arrow/type.h"
#include "paimon/paimon.h"
#include "print/value.h"

static const char *const KIND_NAMES[] = {"+I", "-U", "+U", "-D"};

static json_t *with_kind(const json_t *row, int k) {
  json_t *c = json_deep_copy(row);
  json_object_set_new(c, "_row_kind", json_string(KIND_NAMES[k]));
  return c;
}

/* Whether rows a and b are equal but for column `ignore` (NULL: none). */
static int rows_equal_but(const json_t *a, const json_t *b, const char *ignore) {
  if (!ignore) return json_equal(a, b);
  json_t *x = json_deep_copy(a), *y = json_deep_copy(b);
  json_object_del(x, ignore);
  json_object_del(y, ignore);
  int eq = json_equal(x, y);
  json_decref(x);
  json_decref(y);
  return eq;
}

/* model_changes with changelog-producer.row-deduplicate-ignore-fields = ignore (NULL: none). */
static void model_changes_ignoring(const json_t *before, const json_t *model, const json_t *touched, json_t *changes,
                                   int first_row, int row_dedup, const char *ignore) {
  const char *key;
  json_t *v;
  json_object_foreach((json_t *)touched, key, v) {
    json_t *b = json_object_get(before, key), *a = json_object_get(model, key);
    if (!b && a) {
      json_array_append_new(changes, with_kind(a, 0));
    } else if (first_row) {
      continue;
    } else if (b && !a) {
      json_array_append_new(changes, with_kind(b, 3));
    } else if (b && a && !(row_dedup && rows_equal_but(b, a, ignore))) {
      json_array_append_new(changes, with_kind(b, 1));
      json_array_append_new(changes, with_kind(a, 2));
    }
  }
}

/* The expected changelog from state `before` to `model` over the touched keys:
 * +I after / -D before / -U before, +U after (first-row: +I of new keys;
 * row_dedup: changelog-producer.row-deduplicate, no -U/+U of an unchanged row). */
static void model_changes(const json_t *before, const json_t *model, const json_t *touched, json_t *changes,
                          int first_row, int row_dedup) {
  model_changes_ignoring(before, model, touched, changes, first_row, row_dedup, NULL);
}

/* Our reader over `options` (with the _row_kind column when with_kind). */
static json_t *read_ours(paimon_table *t, const paimon_option *options, size_t n, int with_kind) {
  paimon_error err = {0};
  paimon_read_builder *rb = NULL;
  paimon_plan *plan = NULL;
  struct ArrowArrayStream st = {0};
  json_t *rows = NULL;
  int rc = paimon_read_builder_new(t, options, n, &rb, &err);
  if (!rc) paimon_read_builder_with_row_kind(rb, with_kind);
  if (!rc) rc = paimon_read_builder_plan(rb, &plan, &err);
  if (!rc) rc = paimon_read_plan(rb, plan, &st, &err);
  CHECK_MSG(rc == 0, "read: %s", err.message);
  if (!rc) {
    struct ArrowSchema schema;
    CHECK(st.get_schema(&st, &schema) == 0);
    pm_type type;
    pm_error e;
    CHECK(pm_type_from_schema(&schema, &type, &e) == 0);
    rows = json_array();
    pm_buf b;
    pm_buf_init(&b);
    for (;;) {
      struct ArrowArray a;
      CHECK(st.get_next(&st, &a) == 0);
      if (!a.release) break;
      for (int64_t r = 0; r < a.length; r++) {
        json_t *row = json_object();
        for (int64_t c = 0; c < type.n_children; c++) {
          b.len = 0;
          CHECK(pm_json_append_value(&type.children[c], a.children[c], r, -1, &b, &e) == 0);
          json_t *v = json_loadb((const char *)b.data, b.len, JSON_DECODE_ANY, NULL);
          json_object_set_new(row, type.children[c].name, v ? v : json_null());
        }
        json_array_append_new(rows, row);
      }
      a.release(&a);
    }
    pm_buf_free(&b);
    pm_type_free(&type);
    schema.release(&schema);
    st.release(&st);
  }
  paimon_plan_free(plan);
  paimon_read_builder_free(rb);
  return rows;
}

#endif
