/* Public C API: row positions, row ranges and shards (paimon/scan_select.h). */
#include "api/api_internal.h"

/* Runs one setter on a copy, so a failed call leaves the builder's selection as it was. */
static paimon_status set_with(paimon_read_builder *rb, int kind, int64_t a, int64_t b, const int64_t *ranges,
                              size_t n, paimon_error *err) {
  CHECK_ARG(rb, "builder is NULL");
  CHECK_ARG(ranges || n == 0 || kind != 2, "ranges is NULL");
  if (rb->table->system_table)
    return (paimon_status)pm_errorf(err, PAIMON_ERR_UNSUPPORTED,
                                    "%s: system tables have no row positions, row ranges or shards",
                                    rb->table->identifier);
  pm_scan_selection s = rb->sel;
  s.row_ranges = NULL; /* the copy owns no ranges until it sets its own */
  int rc;
  switch (kind) {
    case 0: rc = pm_scan_selection_set_slice(rb->t, &s, a, b, err); break;
    case 1: rc = pm_scan_selection_set_shard(rb->t, &s, a, b, err); break;
    case 2: rc = pm_scan_selection_set_row_ranges(rb->t, &s, ranges, n, err); break;
    default: rc = pm_scan_selection_set_bucket_shard(rb->t, &s, a, b, err); break;
  }
  if (rc) {
    free(s.row_ranges);
    return (paimon_status)rc;
  }
  if (kind == 2) free(rb->sel.row_ranges);
  else s.row_ranges = rb->sel.row_ranges;
  rb->sel = s;
  return PAIMON_OK;
}

paimon_status paimon_read_builder_with_row_position_slice(paimon_read_builder *rb, int64_t start, int64_t end,
                                                          paimon_error *err) {
  return set_with(rb, 0, start, end, NULL, 0, err);
}

paimon_status paimon_read_builder_with_row_position_shard(paimon_read_builder *rb, int64_t index, int64_t count,
                                                          paimon_error *err) {
  return set_with(rb, 1, index, count, NULL, 0, err);
}

paimon_status paimon_read_builder_with_row_ranges(paimon_read_builder *rb, const int64_t *ranges, size_t n,
                                                  paimon_error *err) {
  return set_with(rb, 2, 0, 0, ranges, n, err);
}

paimon_status paimon_read_builder_with_shard(paimon_read_builder *rb, int64_t index, int64_t count,
                                             paimon_error *err) {
  return set_with(rb, 3, index, count, NULL, 0, err);
}

int paimon_split_row_ranges(const paimon_split *split, const int64_t **ranges, size_t *n) {
  if (ranges) *ranges = NULL;
  if (n) *n = 0;
  if (!split || split->inc || !split->s->has_row_ranges) return 0;
  if (ranges) *ranges = split->s->row_ranges;
  if (n) *n = split->s->n_row_ranges;
  return 1;
}
