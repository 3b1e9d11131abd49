/* Options of BLOB columns shared by the table reader and writer. */
#include "io/coalesce.h"
#include "table/table.h"

int pm_table_read_coalesce(const pm_table *t, uint64_t *max_gap, uint64_t *max_block, pm_error *err) {
  int64_t gap, block;
  PM_TRY(pm_options_get_size(&t->options, "file-io.read-coalesce.max-gap", (int64_t)PM_COALESCE_MAX_GAP_DEFAULT,
                             &gap, err));
  PM_TRY(pm_options_get_size(&t->options, "file-io.read-coalesce.max-block", (int64_t)PM_COALESCE_MAX_BLOCK_DEFAULT,
                             &block, err));
  if (gap < 0 || block < 0)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option '%s' must not be negative",
                     gap < 0 ? "file-io.read-coalesce.max-gap" : "file-io.read-coalesce.max-block");
  *max_gap = (uint64_t)gap;
  *max_block = block ? (uint64_t)block : 1; /* 0: nothing merges */
  return 0;
}
