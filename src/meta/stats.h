/*
 * Column statistics of a data file (FORMAT.md 5.7-5.8): resolve which slot of
 * _VALUE_STATS holds a column (dense stats, _VALUE_STATS_COLS, _WRITE_COLS,
 * renamed columns via field ids) and decode min / max / null count.
 */
#ifndef PM_META_STATS_H
#define PM_META_STATS_H

#include <stdint.h>

#include "data/binary_row.h"
#include "data/predicate.h" /* pm_col_stats: min/max values + null count (-1 = unknown) */
#include "meta/manifest.h"
#include "meta/schema.h"

/* Results are data/predicate.h's pm_col_stats: min/max are PM_V_NULL when
 * unknown (all null, stats mode counts/none, unsupported type) and point into
 * the DataFileMeta's stats bytes; null_count is -1 when unknown. */

/* Stats of the column with Paimon field id `field_id` in data file f, which
 * was written with `file_schema` (the schema with id f->schema_id; the field
 * type used for decoding is the one of that schema).
 * PAIMON_ERR_NOT_FOUND when the file has no stats for that column (the
 * column did not exist, is not among the stats columns, ...): callers must
 * then not prune on it. */
int pm_value_stats_lookup(const pm_data_file_meta *f, const pm_table_schema *file_schema, int32_t field_id,
                          pm_col_stats *out, pm_error *err);

/* Stats of the i-th key field (trimmed primary key) from _KEY_STATS, decoded with key_type. */
int pm_key_stats_get(const pm_data_file_meta *f, int32_t i, const pm_data_type *key_type, pm_col_stats *out,
                     pm_error *err);

#endif
