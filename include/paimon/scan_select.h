/*
 * Row positions, row ranges and shards on a read builder's scans (reference
 * "row positions": TableScan.with_row_position_slice / _shard, ReadBuilder
 * with_row_ranges / with_shard). Every call checks its arguments at once
 * (PAIMON_ERR_INVALID_ARGUMENT naming the call and the value), before any
 * planning; a call that does not apply to the table is PAIMON_ERR_UNSUPPORTED.
 * A failed call leaves the builder's selection as it was.
 *
 * Row positions number the rows of a plan from 0: for append tables in the
 * plan's split order and, inside a split, its file order, after partition and
 * statistics pruning; for data-evolution tables by row-id group (each row id
 * once, however many column files share it), before row-range pruning. They
 * apply to batch plans and to incremental delta / changelog plans (positions
 * count the combined delta), not to diff plans (PAIMON_ERR_UNSUPPORTED at
 * plan time). Files holding no selected row are left out of the splits; the
 * rest of the selection is carried by each split (paimon_split_row_ranges):
 * its serialization is then a SplitSerializer IndexedSplit (type 3) with the
 * ranges (row ids on row-tracking tables, else positions local to the split),
 * and paimon_split_deserialize reads it back. Selection happens before the
 * filter and deletion vectors, so shards may return different row counts;
 * the limit applies after it.
 */
#ifndef PAIMON_SCAN_SELECT_H
#define PAIMON_SCAN_SELECT_H

#include <stddef.h>
#include <stdint.h>

#include "paimon/paimon.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Rows at positions [start, end): 0 <= start < end. Append and data-evolution
 * tables (not primary-key tables). Exclusive with the row-position shard. */
PAIMON_EXPORT paimon_status paimon_read_builder_with_row_position_slice(paimon_read_builder *rb, int64_t start,
                                                                        int64_t end, paimon_error *err);
/* Shard index of count (count > 0, 0 <= index < count) of the N positions:
 * the first N % count shards get N / count + 1 rows, the others N / count;
 * the shards of 0..count-1 concatenate to the whole plan in order. */
PAIMON_EXPORT paimon_status paimon_read_builder_with_row_position_shard(paimon_read_builder *rb, int64_t index,
                                                                        int64_t count, paimon_error *err);
/* Rows whose _ROW_ID is in one of n inclusive ranges ranges[2i] .. ranges[2i+1]
 * (0 <= from <= to; copied; any order, overlaps allowed). n = 0 selects no row.
 * Row-tracking tables (row-tracking.enabled, data evolution). Intersected with
 * row positions when both are set; a second call replaces the ranges. */
PAIMON_EXPORT paimon_status paimon_read_builder_with_row_ranges(paimon_read_builder *rb, const int64_t *ranges,
                                                                size_t n, paimon_error *err);
/* Shard index of count: on primary-key tables the splits of the buckets with
 * bucket % count == index (as Java's withShard); on append tables the
 * row-position shard above. A stream scan made from the builder
 * (paimon/stream.h) takes it as Java's stream withShard does: primary-key
 * tables by bucket, append tables the files whose name's Java String hash h
 * has |h % count| == index; row positions and row ranges do not apply to
 * stream scans (PAIMON_ERR_UNSUPPORTED from paimon_stream_scan_new). */
PAIMON_EXPORT paimon_status paimon_read_builder_with_shard(paimon_read_builder *rb, int64_t index, int64_t count,
                                                           paimon_error *err);

/* 1 when the split carries a row selection, with *ranges (owned by the split)
 * and *n its inclusive pairs (row ids on row-tracking tables, else positions
 * local to the split); 0 when every row of its files is read. */
PAIMON_EXPORT int paimon_split_row_ranges(const paimon_split *split, const int64_t **ranges, size_t *n);

#ifdef __cplusplus
}
#endif

#endif /* PAIMON_SCAN_SELECT_H */
