/*
 * Partitions of a table as the writer and the committer need them
 * (FORMAT.md 1.2, 5): the partition BinaryRow of a row's partition values,
 * and the partition directory "k=v/k2=v2" Java renders for it
 * (partition.default-name for null and blank values, Java's escaping,
 * partition.legacy-name).
 */
#ifndef PM_TABLE_PARTITION_H
#define PM_TABLE_PARTITION_H

#include <stddef.h>

#include "data/binary_row.h"
#include "meta/manifest.h"
#include "table/table.h"
#include "util/buf.h"
#include "util/error.h"

/* The partition key fields of t in key order: types[i] borrowed from t's
 * schema (valid while t is). PAIMON_ERR_CORRUPT when a key is not a column. */
int pm_partition_types(const pm_table *t, const pm_data_type **types, pm_error *err);

/* Appends the manifest form (int32 BE arity + BinaryRow bytes, as Java's
 * serializer writes it) of the row (values[0..n)) typed types[0..n) to out.
 * n = 0 gives the empty row. */
int pm_partition_row_encode(const pm_data_type *const *types, const pm_value *values, size_t n, pm_buf *out,
                            pm_error *err);

/* 1 in *match when partition row `part` (manifest form) of t matches spec
 * (NULL / n = 0: every partition; values in the text form reads print, the
 * partition.default-name or NULL for null) and filter (NULL: every
 * partition; over the partition row: field i = partition key i). */
typedef struct pm_partition_spec pm_partition_spec;
struct pm_predicate;
int pm_partition_match(const pm_table *t, const pm_partition_spec *spec, const struct pm_predicate *filter,
                       pm_bytes part, int *match, pm_error *err);
/* The same for a compaction request (table/write.h): one of its specs and its filter. */
struct pm_compact_request;
int pm_compact_request_match(const pm_table *t, const struct pm_compact_request *req, pm_bytes part, int *match,
                             pm_error *err);

/* The partition directory of a partition row (manifest form) of t: "" for an
 * unpartitioned table, else "k=v/k2=v2" (no trailing slash). *out malloc'd. */
int pm_partition_path(const pm_table *t, pm_bytes partition, char **out, pm_error *err);

#endif
