/*
 * libpaimon public API: table maintenance (issue 13): partition expiry and
 * manifest compaction.
 * Include it after (or instead of) paimon/paimon.h; same conventions (see there):
 * every call returns a status and fills *err on failure; handles passed in are
 * borrowed (the caller keeps owning them); option structs are borrowed for the
 * call; results are caller-owned plain structs filled by the call.
 */
#ifndef PAIMON_MAINTENANCE_H
#define PAIMON_MAINTENANCE_H

#include <stdint.h>

#include "paimon/paimon.h"
#include "paimon/write.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Overrides of the table's partition-expiry options for one call (Java's expire_partitions
 * procedure arguments); NULL / 0 fields keep the table's own value. Borrowed. */
typedef struct paimon_expire_partitions_options {
  const char *expiration_time;     /* partition.expiration-time, e.g. "7 d" (required here or in the table) */
  const char *timestamp_formatter; /* partition.timestamp-formatter, e.g. "yyyyMMdd" */
  const char *timestamp_pattern;   /* partition.timestamp-pattern, e.g. "$year-$month-$day" */
  const char *expire_strategy;     /* partition.expiration-strategy: "values-time" or "update-time" */
  int32_t max_expires;             /* partition.expiration-max-num (> 0), 0 = the table's (default 100) */
  int dry_run;                     /* 1: report what would expire, commit nothing */
} paimon_expire_partitions_options;

/* What an expiry did (caller-owned memory, filled by the call). */
typedef struct paimon_expire_partitions_result {
  uint64_t expired;    /* partitions dropped (dry run: that would be dropped) */
  uint64_t partitions; /* partitions the latest snapshot had */
  int64_t snapshot_id; /* the last OVERWRITE snapshot written, -1 when none */
} paimon_expire_partitions_result;

/* Called for each expired partition, in order, as "k1=v1, k2=v2" (valid during the call). */
typedef void (*paimon_partition_fn)(void *ctx, const char *partition);

/*
 * Java's expire_partitions: the partitions of the latest snapshot whose time (values-time:
 * parsed from the partition values; update-time: the newest file creation time) is before
 * now minus the expiration time are dropped, the first max_expires of them in the order of
 * their values, by one OVERWRITE snapshot that deletes their files (as Java's dropPartitions;
 * the files themselves go with snapshot expiry). The check interval does not apply here.
 * A table that is not partitioned, or no expiration time, is PAIMON_ERR_INVALID_ARGUMENT.
 * Statuses as paimon_table_commit_commit (a commit that failed published nothing, except
 * PAIMON_ERR_UNKNOWN_OUTCOME). opts may be NULL, on_partition may be NULL, out may be NULL.
 * table is borrowed.
 */
PAIMON_EXPORT paimon_status paimon_table_expire_partitions(const paimon_table *table,
                                                           const paimon_expire_partitions_options *opts,
                                                           paimon_partition_fn on_partition, void *ctx,
                                                           paimon_expire_partitions_result *out, paimon_error *err);

/*
 * Automatic partition expiry after commits: when the table has partition.expiration-time
 * (and is not write-only), each successful commit / overwrite of a committer runs it as Java's
 * TableCommitImpl does (at most once per partition.expiration-check-interval per committer,
 * the first check a random part of one interval after the committer was made;
 * end-input.check-partition-expire = true also checks on a batch commit), committing with
 * the committer's user and the commit's identifier.
 *
 * The maintenance after every successful commit, overwrite, truncate_table and
 * truncate_partitions of a committer runs, in the order of Java's TableCommitImpl: automatic
 * tags (creation, then time expiry; paimon/tag.h), partition expiry (above), then consumer,
 * snapshot and changelog expiry (paimon/expire.h). It never changes the commit's status: the
 * snapshot is published, so its messages must not be aborted. This returns the first failure
 * of that maintenance after c's last commit (PAIMON_OK when none failed or none ran) and
 * fills *err with its message, which names the step (err may be NULL). c is borrowed.
 * snapshot.expire.execution-mode = async: a streaming committer runs the maintenance on a
 * background thread (one run at a time; a commit meanwhile asks for one more run after it) and
 * the commit call returns without waiting; this call waits for the run under way, and its
 * result is the first failure of any background run of c so far (kept, as Java's committer
 * keeps it). paimon_table_commit_free waits for the run. Batch committers run it inline in
 * both modes, as Java's.
 */
PAIMON_EXPORT paimon_status paimon_table_commit_maintenance_status(const paimon_table_commit *c, paimon_error *err);

/* What a manifest compaction did (caller-owned memory, filled by the call). */
typedef struct paimon_compact_manifests_result {
  uint64_t manifests_before; /* data manifests (base + delta) of the latest snapshot */
  uint64_t manifests_after;  /* data manifests of the new snapshot (= before when nothing was done) */
  int64_t snapshot_id;       /* the COMPACT snapshot written, -1 when none (nothing to compact) */
} paimon_compact_manifests_result;

/*
 * Java's compact_manifest: rewrites the data manifests of the latest snapshot as a full
 * manifest compaction (every manifest smaller than manifest.target-file-size or holding
 * DELETE entries merged, DELETE entries cancelled with their ADDs) and commits one COMPACT
 * snapshot with the merged base list and an empty delta: no data change, every read of it
 * equals the read of the snapshot before. Nothing to merge: nothing committed. Statuses as
 * paimon_table_commit_commit. out may be NULL. table is borrowed.
 */
PAIMON_EXPORT paimon_status paimon_table_compact_manifests(const paimon_table *table,
                                                           paimon_compact_manifests_result *out, paimon_error *err);

#ifdef __cplusplus
}
#endif

#endif
