/*
 * Row selection on planned splits (reference 002 "row positions", "Row Ranges"):
 *
 *  - row positions (slice [start, end) or balanced shard index/count) over the
 *    rows of an append or data-evolution plan: positions follow the plan's
 *    split order and, inside a split, its file order (data-evolution tables:
 *    the row-id groups in row-id order, each row id counted once, before any
 *    explicit row-range pruning); the shard of N rows gives the first N % count
 *    shards one row more;
 *  - explicit row ranges (inclusive row ids, row-tracking tables), intersected
 *    with the positions after assignment; an empty list selects nothing;
 *  - a bucket shard (bucket % count == index) for primary-key tables.
 *
 * Files holding no selected row are removed from the splits (splits left
 * without files are dropped); the rest of the selection is recorded in each
 * split (pm_data_split.row_ranges: row ids on row-tracking tables, else
 * positions local to the split's remaining files) and applied by the reader.
 */
#ifndef PM_TABLE_SCAN_SELECT_H
#define PM_TABLE_SCAN_SELECT_H

#include <stddef.h>
#include <stdint.h>

#include "table/scan.h"
#include "table/table.h"
#include "util/error.h"

typedef enum pm_position_kind { PM_POSITIONS_NONE = 0, PM_POSITIONS_SLICE, PM_POSITIONS_SHARD } pm_position_kind;

typedef struct pm_scan_selection {
  pm_position_kind positions;
  int64_t start, end;   /* slice: [start, end), 0 <= start < end */
  int64_t index, count; /* shard: 0 <= index < count */
  int has_row_ranges;
  int64_t *row_ranges;  /* n_row_ranges inclusive pairs, normalized (pm_row_ranges_normalize); owned */
  size_t n_row_ranges;
  int has_bucket_shard; /* primary-key tables */
  int64_t bucket_index, bucket_count;
  int via_with_shard;   /* the position shard was set by with_shard on an append table */
} pm_scan_selection;

void pm_scan_selection_clear(pm_scan_selection *s);

/* Argument checks, each naming what it checks (PAIMON_ERR_INVALID_ARGUMENT):
 * slice start >= 0 and start < end; shard count > 0 and 0 <= index < count;
 * slice and shard exclusive; positions only on append tables, row ranges only
 * on row-tracking tables (PAIMON_ERR_UNSUPPORTED otherwise). */
int pm_scan_selection_set_slice(const pm_table *t, pm_scan_selection *s, int64_t start, int64_t end, pm_error *err);
int pm_scan_selection_set_shard(const pm_table *t, pm_scan_selection *s, int64_t index, int64_t count,
                                pm_error *err);
/* ranges: n inclusive pairs (from, to), 0 <= from <= to (copied). */
int pm_scan_selection_set_row_ranges(const pm_table *t, pm_scan_selection *s, const int64_t *ranges, size_t n,
                                     pm_error *err);
/* Bucket shard: primary-key tables (append tables take the row-position shard). */
int pm_scan_selection_set_bucket_shard(const pm_table *t, pm_scan_selection *s, int64_t index, int64_t count,
                                       pm_error *err);

int pm_scan_selection_active(const pm_scan_selection *s);

/* Applies s to plan's DataSplits (in place; explain's split and file counts updated). A plan
 * of incremental (diff) splits with a selection is PAIMON_ERR_UNSUPPORTED. */
int pm_scan_selection_apply(const pm_table *t, const pm_scan_selection *s, pm_plan *plan, pm_error *err);

/* Stream scans (Java DataTableStreamScan.withShard): only with_shard applies; primary-key
 * tables keep the splits of buckets with bucket % count == index, append tables the files
 * whose name's Java String hash h has |h % count| == index. Positions and row ranges are
 * PAIMON_ERR_UNSUPPORTED (checked by pm_scan_selection_check_stream when the scan is made). */
int pm_scan_selection_check_stream(const pm_scan_selection *s, pm_error *err);
int pm_scan_selection_apply_stream(const pm_table *t, const pm_scan_selection *s, pm_plan *plan, pm_error *err);

#endif
