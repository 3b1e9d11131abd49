/* Partition rows and directories (FORMAT.md 1.2): the rendering itself is the
 * read side's (scan.c renders the directories the reader resolves). */
#include <stdlib.h>
#include <string.h>

#include "table/partition.h"
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
