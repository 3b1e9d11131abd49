/* Partition rows and directories (FORMAT.md 1.2): the rendering itself is the
 * read side's (scan.c renders the directories the reader resolves). */
#include <stdlib.h>
#include <string.h>

#include "table/partition.h"

#include "data/predicate.h"
#include "table/commit.h"
#include "table/write.h"
#include "table/scan.h"

int pm_partition_types(const pm_table *t, const pm_data_type **types, pm_error *err) {
  for (size_t i = 0; i < t->n_partition_keys; i++) {
    int idx = pm_schema_field_index(t->schema, t->partition_keys[i]);
    if (idx < 0)
      return pm_errorf(err, PAIMON_ERR_CORRUPT, "table %s.%s: partition key '%s' is not a column", t->database,
                       t->name, t->partition_keys[i]);
    types[i] = t->schema->fields[idx].type;
  }
  return 0;
}

int pm_partition_row_encode(const pm_data_type *const *types, const pm_value *values, size_t n, pm_buf *out,
                            pm_error *err) {
  pm_binary_row_writer w;
  PM_TRY(pm_row_writer_init(&w, (int32_t)n, err));
  int rc = 0;
  for (size_t i = 0; !rc && i < n; i++) rc = pm_row_writer_write(&w, (int32_t)i, types[i], &values[i], err);
  if (!rc) rc = pm_row_writer_finish(&w, 1, out, err);
  pm_row_writer_free(&w);
  return rc;
}

int pm_partition_path(const pm_table *t, pm_bytes partition, char **out, pm_error *err) {
  if (!t->n_partition_keys) {
    *out = strdup("");
    return *out ? 0 : PM_NOMEM(err);
  }
  return pm_scan_partition_dir(t, partition.data, partition.len, out, err);
}

int pm_partition_match(const pm_table *t, const pm_partition_spec *spec, const struct pm_predicate *filter,
                       pm_bytes part, int *match, pm_error *err) {
  *match = 1;
  for (size_t k = 0; spec && k < spec->n && *match; k++) {
    size_t idx = 0;
    while (idx < t->n_partition_keys && strcmp(t->partition_keys[idx], spec->keys[k])) idx++;
    if (idx == t->n_partition_keys)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "partition spec: '%s' is not a partition key of table %s.%s",
                       spec->keys[k], t->database, t->name);
    pm_value v;
    const pm_data_type *type = NULL;
    char text[512];
    PM_TRY(pm_scan_partition_field(t, part.data, part.len, idx, &v, &type, text, sizeof text, err));
    const char *want = spec->values[k];
    int want_null = !want || !strcmp(want, t->partition_default_name);
    *match = v.kind == PM_V_NULL ? want_null : !want_null && !strcmp(text, want);
  }
  if (!*match || !filter) return 0;
  size_t n = t->n_partition_keys;
  pm_value *vals = calloc(n + 1, sizeof *vals);
  if (!vals) return PM_NOMEM(err);
  int rc = 0;
  for (size_t i = 0; !rc && i < n; i++) {
    const pm_data_type *type = NULL;
    char text[8];
    rc = pm_scan_partition_field(t, part.data, part.len, i, &vals[i], &type, text, sizeof text, err);
  }
  if (!rc) *match = pm_pred_eval_values(filter, vals, n);
  free(vals);
  return rc;
}

int pm_compact_request_match(const pm_table *t, const struct pm_compact_request *req, pm_bytes part, int *match,
                             pm_error *err) {
  *match = 1;
  if (!req) return 0;
  if (!req->n_specs) return pm_partition_match(t, NULL, req->filter, part, match, err);
  for (size_t i = 0; i < req->n_specs; i++) {
    PM_TRY(pm_partition_match(t, &req->specs[i], req->filter, part, match, err));
    if (*match) return 0;
  }
  return 0;
}
