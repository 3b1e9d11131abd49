/* Options of BLOB columns shared by the table reader and writer. */
#include "io/coalesce.h"
#include "table/table.h"

int pm_table_read_coalesce(const pm_table *t, uint64_t *max_gap, uint64_t *max_block, pm_error *err) {
  (void)err; /* parsed and range-checked (non-negative) with the table's core options */
  *max_gap = (uint64_t)t->co.read_coalesce_max_gap;
  *max_block = t->co.read_coalesce_max_block ? (uint64_t)t->co.read_coalesce_max_block : 1; /* 0: nothing merges */
  return 0;
}
