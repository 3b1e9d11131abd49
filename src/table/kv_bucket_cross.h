/*
 * Cross-partition updates of primary-key tables (`bucket` = -1, a partition
 * key outside the primary key; Java's KEY_DYNAMIC mode, GlobalIndexAssigner):
 * one key lives in one partition at a time.
 *
 * Key index: primary key (all of its columns, a BinaryRow) -> (partition,
 * bucket), rebuilt at the first write from the live rows of the latest
 * snapshot (a read of the key and partition columns only, merged per
 * bucket as any read; the index holds the keys, never the rows), unless the
 * writer ignores previous files. Buckets per partition are counted as
 * Java's crosspartition BucketAssigner does: a new key of a partition goes
 * to the lowest bucket holding fewer than `dynamic-bucket.target-row-num`
 * keys, else to the lowest unused bucket.
 *
 * Each input row, in order, against the index:
 *  - a new key: a bucket of its partition is assigned and recorded;
 *  - a key already in the row's partition: written to its bucket;
 *  - a key in another partition: deduplicate writes a -D of the row in the
 *    old partition and bucket (its partition columns set to the old
 *    partition; the old bucket's count drops), then the row as a new key of
 *    its partition; partial-update and aggregation write the row into the old
 *    partition and bucket (partition columns set to the old partition);
 *    first-row drops the row (the key keeps its first partition).
 */
#ifndef PM_TABLE_KV_BUCKET_CROSS_H
#define PM_TABLE_KV_BUCKET_CROSS_H

#include <stddef.h>
#include <stdint.h>

#include "arrow/type.h"
#include "data/types.h"
#include "paimon/arrow_c.h"
#include "table/table.h"
#include "util/error.h"

typedef struct pm_kv_cross pm_kv_cross;

/* State for table t (retained): row_type is the struct of the table's columns
 * (copied), fields its n_fields columns (borrowed from t's schema). restore
 * = 0: start from an empty index (overwrite). */
int pm_kv_cross_open(pm_table *t, const pm_type *row_type, const pm_data_field *fields, size_t n_fields,
                     int restore, pm_kv_cross **out, pm_error *err);
/* The rows to buffer for batch b (table columns, offset 0; kinds[r] per row,
 * keep[r] == 0 skips row r, keep may be NULL): *out (owned by the caller)
 * and *out_kinds (malloc'd). Row r of *out goes to the partition of its
 * partition columns and bucket pm_kv_cross_bucket(x, r) (valid until the
 * next rewrite). */
int pm_kv_cross_rewrite(pm_kv_cross *x, const struct ArrowArray *b, const int8_t *kinds, const uint8_t *keep,
                        struct ArrowArray *out, int8_t **out_kinds, pm_error *err);
int32_t pm_kv_cross_bucket(const pm_kv_cross *x, int64_t r);
/* Keys in the index (for tests and statistics). */
size_t pm_kv_cross_keys(const pm_kv_cross *x);
void pm_kv_cross_free(pm_kv_cross *x); /* NULL ok */

#endif
