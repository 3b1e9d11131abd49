/* Value / key statistics lookup (FORMAT.md 5.7-5.8). */
#include "meta/stats.h"

#include <string.h>

static int stats_slot(const pm_simple_stats *s, int32_t idx, int32_t arity, const pm_data_type *type,
                      pm_col_stats *out, pm_error *err) {
  memset(out, 0, sizeof(*out));
  out->null_count = -1;
  if (!s->null_counts_is_null && idx < s->n_null_counts && s->null_counts[idx] != PM_NULL_COUNT_UNKNOWN)
    out->null_count = s->null_counts[idx];
  pm_binary_row lo, hi;
  PM_TRY(pm_binary_row_open_serialized(s->min_values.data, s->min_values.len, "_MIN_VALUES", &lo, err));
  PM_TRY(pm_binary_row_open_serialized(s->max_values.data, s->max_values.len, "_MAX_VALUES", &hi, err));
  if (lo.arity != arity || hi.arity != arity)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "stats rows have arity %d/%d, expected %d", lo.arity, hi.arity, arity);
  PM_TRY(pm_binary_row_get(&lo, idx, type, &out->min, err));
  PM_TRY(pm_binary_row_get(&hi, idx, type, &out->max, err));
  return 0;
}

int pm_value_stats_lookup(const pm_data_file_meta *f, const pm_table_schema *file_schema, int32_t field_id,
                          pm_col_stats *out, pm_error *err) {
  int fi = pm_schema_field_index_by_id(file_schema, field_id);
  if (fi < 0) return pm_errorf(err, PAIMON_ERR_NOT_FOUND, "%s: field id %d not in schema %lld", f->file_name, field_id,
                               (long long)file_schema->id);
  const char *name = file_schema->fields[fi].name;
  const pm_data_type *type = file_schema->fields[fi].type;
  int32_t idx = -1, arity = 0;
  const pm_str_list *cols = !f->value_stats_cols.is_null ? &f->value_stats_cols
                            : !f->write_cols.is_null     ? &f->write_cols
                                                         : NULL;
  if (cols) {
    arity = cols->n;
    for (int32_t i = 0; i < cols->n; i++)
      if (cols->items[i] && strcmp(cols->items[i], name) == 0) idx = i;
  } else {
    arity = (int32_t)file_schema->n_fields;
    idx = fi;
  }
  if (idx < 0) return pm_errorf(err, PAIMON_ERR_NOT_FOUND, "%s: no stats for column %s", f->file_name, name);
  /* a nullable copy: stats rows hold nulls for unknown min/max */
  pm_data_type t = *type;
  t.nullable = 1;
  int rc = stats_slot(&f->value_stats, idx, arity, &t, out, err);
  if (rc) pm_error_prefix(err, "%s: _VALUE_STATS of %s: ", f->file_name, name);
  return rc;
}

int pm_key_stats_get(const pm_data_file_meta *f, int32_t i, const pm_data_type *key_type, pm_col_stats *out,
                     pm_error *err) {
  pm_binary_row lo;
  PM_TRY(pm_binary_row_open_serialized(f->key_stats.min_values.data, f->key_stats.min_values.len, "_KEY_STATS", &lo, err));
  if (i < 0 || i >= lo.arity) return pm_errorf(err, PAIMON_ERR_NOT_FOUND, "%s: no key stats for key field %d", f->file_name, i);
  int rc = stats_slot(&f->key_stats, i, lo.arity, key_type, out, err);
  if (rc) pm_error_prefix(err, "%s: _KEY_STATS: ", f->file_name);
  return rc;
}
