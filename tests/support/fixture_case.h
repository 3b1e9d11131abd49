/*
 * Test helper shared by the fixture tests: runs one expected-result file of
 * the Java-written fixtures (open the warehouse table, plan at the given
 * snapshot, read with the table read, compare as multisets with
 * fixture_compare.h).
 */
#ifndef PM_TEST_SUPPORT_FIXTURE_CASE_H
#define PM_TEST_SUPPORT_FIXTURE_CASE_H

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "support/fixture_compare.h"
#include "table/read.h"
#include "table/scan.h"
#include "table/table.h"

/* Runs one case. Returns 0 = pass, 1 = fail; msg says why. With
 * ignore_read_tz the expected file's read_options.session_time_zone is not
 * passed (the read uses the process's local zone). */
static int fxc_run_case(const char *path, const char *name, int ignore_read_tz, char *msg, size_t cap, int verbose) {
  json_error_t je;
  json_t *exp = json_load_file(path, 0, &je);
  if (!exp) {
    snprintf(msg, cap, "cannot parse %.1024s: %.1024s", path, je.text);
    return 1;
  }
  const char *table = json_string_value(json_object_get(exp, "table"));
  const char *branch = json_string_value(json_object_get(exp, "branch"));
  json_t *snap = json_object_get(exp, "snapshot");
  json_t *cols = json_object_get(exp, "columns");
  json_t *types = json_object_get(exp, "column_types");
  json_t *rows = json_object_get(exp, "rows");
  json_t *ropts = json_object_get(exp, "read_options");
  int result = 1;
  pm_error err;
  pm_error_clear(&err);
  char root[8192];
  snprintf(root, sizeof root, "%s/%s", PM_SHARED("fixtures/warehouse"), table);

  pm_options dyn, cat;
  pm_options_init(&dyn);
  pm_options_init(&cat);
  char buf[64];
  if (json_is_integer(snap)) {
    snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(snap));
    pm_options_set(&dyn, "scan.snapshot-id", buf, &err);
  }
  const char *tz = NULL;
  if (ropts) {
    if (!ignore_read_tz) tz = json_string_value(json_object_get(ropts, "session_time_zone"));
    json_t *rw = json_object_get(ropts, "external_path_rewrite");
    if (rw) {
      /* "<fixture>.db/external": the table's sibling directory */
      char to[8192 + 16];
      snprintf(to, sizeof to, "%s", root);
      char *slash = strrchr(to, '/');
      if (slash) *slash = 0;
      strncat(to, "/external", sizeof to - strlen(to) - 1);
      char rule[16384];
      snprintf(rule, sizeof rule, "%s=%s", json_string_value(json_object_get(rw, "from")), to);
      pm_options_set(&cat, "path-rewrite", rule, &err);
    }
  }
  pm_table *t = NULL;
  pm_plan *plan = NULL;
  struct ArrowArrayStream st = {0};
  struct ArrowSchema schema = {0};
  pm_type type = {0};
  json_t *actual = json_array();
  size_t nc = json_array_size(cols);
  const char **names = calloc(nc + 1, sizeof *names);
  int *digits = calloc(nc + 1, sizeof *digits);
  int *kinds = calloc(nc + 1, sizeof *kinds);
  for (size_t i = 0; i < nc; i++) {
    names[i] = json_string_value(json_array_get(cols, i));
    const char *ty = json_string_value(json_array_get(types, i));
    digits[i] = ty ? fxc_fraction_digits(ty) : -1;
    kinds[i] = ty ? fxc_column_kind(ty) : 0;
  }
  int rc = pm_table_open_path(root, NULL, NULL, branch, &dyn, &cat, &t, &err);
  if (!rc) rc = pm_scan_plan(t, NULL, -1, &plan, &err);
  if (!rc) {
    pm_read_options ro;
    pm_read_options_init(&ro);
    ro.columns = names;
    ro.n_columns = nc;
    ro.session_time_zone = tz;
    ro.batch_rows = 1000; /* small batches exercise batch boundaries */
    rc = pm_read_splits(t, plan->splits, plan->n_splits, &ro, &st, &err);
  }
  if (!rc) {
    rc = st.get_schema(&st, &schema);
    if (rc) snprintf(err.message, sizeof err.message, "get_schema: %s", st.get_last_error(&st));
  }
  if (!rc) rc = pm_type_from_schema(&schema, &type, &err);
  while (!rc) {
    struct ArrowArray a;
    if (st.get_next(&st, &a)) {
      rc = 1;
      snprintf(err.message, sizeof err.message, "%s", st.get_last_error(&st) ? st.get_last_error(&st) : "?");
      break;
    }
    if (!a.release) break;
    rc = fxc_batch_to_json(&type, &a, digits, actual, &err);
    a.release(&a);
  }
  if (rc) {
    snprintf(msg, cap, "error %d: %s", rc, err.message);
  } else if (fxc_rows_match(rows, actual, kinds, msg, cap)) {
    result = 0;
    if (verbose) {
      char *s = json_dumps(actual, JSON_COMPACT);
      fprintf(stderr, "  %s rows: %s\n", name, s ? s : "");
      free(s);
    }
  }
  pm_type_free(&type);
  pm_schema_release(&schema);
  if (st.release) st.release(&st);
  pm_plan_free(plan);
  pm_table_free(t);
  pm_options_clear(&dyn);
  pm_options_clear(&cat);
  free(names);
  free(digits);
  free(kinds);
  json_decref(actual);
  json_decref(exp);
  return result;
}

#endif
