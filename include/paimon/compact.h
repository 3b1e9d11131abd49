/*
 * libpaimon public API: dedicated table compaction (issue 13 §1; the reference's
 * new_compact_builder(), Java's compact procedure). Include it after (or instead of)
 * paimon/paimon.h; same conventions (see there): every call returns a status and fills *err
 * on failure; handles passed in are borrowed (the caller keeps owning them); options and
 * results are caller-owned plain structs.
 *
 *   paimon_compact_options o; paimon_compact_options_init(&o);
 *   o.full = 1;
 *   paimon_compact_result r;
 *   paimon_table_compact(t, &o, &r, &err);   (r.snapshot_id -1: nothing to compact)
 *
 * One call plans, executes and commits (one COMPACT snapshot, or nothing when planning
 * yields no task):
 *   - primary-key tables: every selected bucket with the table's universal compaction
 *     strategy, or full into the max level (Java's TableWrite.compact); write-only is
 *     ignored, as Java's compact procedure does;
 *   - primary-key tables with postpone buckets (bucket -2), as Java's compact action: the
 *     partitions with pending bucket-postpone files (or real level-0 files) get real buckets
 *     (the partition's existing count, else postpone.default-bucket-num, else estimated from
 *     postpone.target-row-num-per-bucket / postpone.target-size-per-bucket); the pending
 *     records are replayed in file creation order into those buckets, merged with their rows,
 *     the buckets compacted, and the postpone files removed in the same COMPACT commit; a
 *     bucket selection is PAIMON_ERR_INVALID_ARGUMENT; tasks = real buckets written;
 *   - append tables with bucket -1: Java's AppendCompactCoordinator (small files packed per
 *     partition; full plans the same way); fixed buckets: Java's BucketedAppendCompactManager
 *     per bucket (minor: compaction.min.file-num files in sequence order; full: the small
 *     files after the leading big ones); deletion vectors: the deleted rows are dropped and
 *     the index entries of the rewritten files go in the same commit.
 * A task that fails deletes what the earlier tasks wrote (nothing was published). A commit
 * that conflicts (e.g. a concurrent overwrite removed an input file) is PAIMON_ERR_CONFLICT:
 * nothing was published and the compaction's files are deleted. Any other commit failure
 * (PAIMON_ERR_IO...) has an unknown outcome: the files are kept (a published snapshot may
 * reference them; if none does, orphan cleanup removes them later).
 */
#ifndef PAIMON_COMPACT_H
#define PAIMON_COMPACT_H

#include <stddef.h>
#include <stdint.h>

#include "paimon/cleanup.h"
#include "paimon/paimon.h"
#include "paimon/write.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A partition spec: keys = values in the text form `table read` prints (a value NULL or
 * the table's partition.default-name means null); may name some of the partition keys. */
typedef struct paimon_partition_spec {
  const paimon_option *fields;
  size_t n;
} paimon_partition_spec;

typedef struct paimon_compact_options {
  int full; /* 1: full compaction; 0: minor (the table's strategy) */
  /* Partitions: those matching one of partitions[0, n_partitions) (none: all) and
   * partition_filter (NULL: all). The filter is a predicate made by a read builder of this
   * table (paimon_predicate_parse or the leaf builders, the format reads use) over partition
   * columns only (another column: PAIMON_ERR_INVALID_ARGUMENT); borrowed. */
  const paimon_partition_spec *partitions;
  size_t n_partitions;
  const paimon_predicate *partition_filter;
  int32_t bucket; /* -1: every bucket; else only this bucket (fixed-bucket tables) */
  /* The commit user (copied; NULL: a generated UUID); the snapshot records
   * "<commit_user>-compact-<uuid>". */
  const char *commit_user;
  /* Progress (may be NULL): phase "compacting" with units (buckets of a primary-key table,
   * tasks of an append table) done of total, then "committing" (0 of 1, 1 of 1). */
  paimon_progress_fn progress;
  void *ctx;
} paimon_compact_options;

/* full 0, no partitions, no filter, bucket -1, no commit user, no progress. */
PAIMON_EXPORT void paimon_compact_options_init(paimon_compact_options *o);

/* What the compaction did (the reference's metrics), and its snapshot. */
typedef struct paimon_compact_result {
  paimon_compact_metrics metrics; /* tasks, files_removed, files_added, rows/bytes written, ... */
  int64_t snapshot_id;            /* the COMPACT snapshot, -1 when nothing was committed */
} paimon_compact_result;

/* Compacts table (borrowed; a system-table handle is PAIMON_ERR_INVALID_ARGUMENT) as the
 * options say (o may be NULL: paimon_compact_options_init's). out may be NULL; it is filled
 * also on failure (what was done before). */
PAIMON_EXPORT paimon_status paimon_table_compact(const paimon_table *table, const paimon_compact_options *o,
                                                 paimon_compact_result *out, paimon_error *err);

#ifdef __cplusplus
}
#endif

#endif
