/*
 * Dynamic buckets of primary-key tables (`bucket` = -1, the primary key
 * covers the partition keys; Java's HASH_DYNAMIC mode): the bucket of a key
 * comes from the partition's hash index, as Java's HashBucketAssigner /
 * PartitionIndex assign it and DynamicBucketIndexMaintainer records it.
 *
 * Key hash: the trimmed primary key as a BinaryRow, hashed (BinaryRow
 * hashCode). Per partition a map key hash -> bucket, restored from the HASH
 * index files of the latest snapshot's index manifest (unless the writer
 * ignores previous files, as Java's overwrite uses SimpleHashBucketAssigner).
 * A hash seen before keeps its bucket (a key written again after a writer
 * restart goes to its old bucket). A new hash goes to the first bucket (in
 * ascending id) holding fewer than `dynamic-bucket.target-row-num` hashes,
 * else to the lowest unused bucket id (below `dynamic-bucket.max-buckets`
 * when that is set), else to a random existing bucket.
 *
 * Assigners: Java runs P assigner tasks (P = `dynamic-bucket.assigner-parallelism`,
 * here defaulting to `dynamic-bucket.initial-buckets`, else 1) of which
 * A = min(`dynamic-bucket.initial-buckets`, P) own buckets (bucket % A ==
 * task % A); a key goes to task (|partition hash % P| + |key hash % A|) % P.
 * All P are emulated in this writer, so a table written here gets the
 * bucket layout one Java job with that parallelism would give it.
 *
 * Index files: at prepare, every bucket that got a new hash writes its whole
 * hash set as a new HASH index file (index-<uuid>-<n>, in <root>/index/ or
 * the bucket directory with index-file-in-data-file-dir), listed in that
 * bucket's commit message as a new index file; the commit's index manifest
 * replaces the bucket's previous HASH file with it (meta/manifest.h
 * pm_index_manifest_combine). The hashes are written in ascending order
 * (Java writes its hash set's iteration order; readers treat the file as a set).
 */
#ifndef PM_TABLE_KV_BUCKET_H
#define PM_TABLE_KV_BUCKET_H

#include <stddef.h>
#include <stdint.h>

#include "data/types.h"
#include "meta/manifest.h"
#include "meta/wire.h"
#include "paimon/arrow_c.h"
#include "table/table.h"
#include "util/error.h"

typedef struct pm_kv_buckets pm_kv_buckets;

/* Java's crossPartitionUpdate: a primary-key table with partition keys not
 * all in the primary key. */
int pm_kv_cross_partition(const pm_table *t);

/* Dynamic-bucket state for table t (retained). The key columns (cols[i] of
 * type types[i], the trimmed primary key, n of them) are copied. restore = 0:
 * start from empty indexes (overwrite). */
int pm_kv_buckets_open(pm_table *t, const int *cols, const pm_data_type *const *types, size_t n, int restore,
                       pm_kv_buckets **out, pm_error *err);
/* The bucket of row r of batch b (table columns), partition part (manifest form). */
int pm_kv_buckets_route(pm_kv_buckets *kb, const struct ArrowArray *b, int64_t r, const uint8_t *part,
                        size_t part_len, int32_t *bucket, pm_error *err);
/* Writes the index files of the buckets that got new hashes since the last
 * prepare and lists each in c's message of its (partition, bucket) (adding a
 * message without data files when there is none), metas in c's arena. On
 * failure the files written by this call are deleted. */
int pm_kv_buckets_prepare(pm_kv_buckets *kb, pm_manifest_committable *c, pm_error *err);
void pm_kv_buckets_free(pm_kv_buckets *kb); /* NULL ok */

#endif
