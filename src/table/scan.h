/*
 * Batch and incremental scan planning (SEMANTICS.md §4, §6.1): choose a
 * snapshot from the table's (dynamic) options, compute the live data files
 * from its manifests with partition / bucket / level / stats pruning pushed
 * into manifest decoding, attach deletion vectors and pack the files of each
 * (partition, bucket) into DataSplits.
 *
 * Options read from pm_table.options:
 *   scan.snapshot-id, scan.tag-name, scan.timestamp-millis, scan.timestamp,
 *   scan.version, scan.watermark (one at most), scan.mode (default/latest/
 *   latest-full/full, compacted-full, latest-delta, from-file-creation-time
 *   with scan.file-creation-time-millis; from-snapshot[-full]/from-timestamp
 *   with their selector),
 *   incremental-between, incremental-between-timestamp,
 *   incremental-between-scan-mode (auto|delta|changelog|diff),
 *   incremental-between-tag-to-snapshot,
 *   source.split.target-size (128mb), source.split.open-file-cost (4mb)
 *   (also split.target-size / split.open-file-cost), scan.fallback-branch,
 *   scan.manifest.parallelism (default 4 threads), path-rewrite.
 * Diff semantics (scan mode diff, or two tags unless
 * incremental-between-tag-to-snapshot = true) compare the full file sets of
 * two snapshots and plan IncrementalSplits (before/after files per bucket,
 * Java's IncrementalSplit); read them with pm_read_incremental_splits.
 *
 * Ownership: pm_scan_plan returns a plan freed with pm_plan_free (which
 * frees its splits); pm_scan_live_files returns entries in a caller-owned
 * container (pm_manifest_entries_clear).
 */
#ifndef PM_TABLE_SCAN_H
#define PM_TABLE_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "data/predicate.h"
#include "meta/manifest.h"
#include "meta/snapshot.h"
#include "meta/split.h"
#include "table/table.h"
#include "util/buf.h"
#include "util/error.h"

/* What planning read and pruned, per stage (for `table explain`). */
typedef struct pm_scan_explain {
  int64_t snapshot_id;            /* 0 = none */
  char scan_kind[32];             /* "batch", "incremental-delta", "incremental-changelog", "incremental-diff", "empty" */
  size_t manifest_lists_read;
  size_t manifests_total;         /* manifests listed in the manifest lists */
  size_t manifests_pruned_partition; /* skipped by partition stats */
  size_t manifests_pruned_bucket;    /* skipped by bucket range */
  size_t manifests_pruned_level;     /* skipped: only level-0 files, level 0 invisible */
  size_t manifests_skipped_no_adds;  /* not needed (no ADD / DELETE entries of interest) */
  size_t manifests_read;
  size_t entries_total;           /* entries seen in the manifests read */
  size_t entries_pruned_partition;
  size_t entries_pruned_bucket;
  size_t entries_pruned_level;
  size_t entries_deleted;         /* ADDs cancelled by a DELETE, plus DELETE entries */
  size_t files_live;              /* live files after the merge */
  size_t files_pruned_key_stats;
  size_t files_pruned_value_stats;
  size_t files_pruned_bucket_stats; /* whole buckets dropped (PK value filter) */
  size_t files_pruned_file_index; /* skipped by their embedded data-file index (file-index.*) */
  size_t files_pruned_limit;      /* PK tables: files not needed to reach the limit */
  size_t files_planned;           /* files in the returned splits */
  size_t splits;
  size_t splits_pruned_limit;
  size_t fallback_splits;         /* splits contributed by scan.fallback-branch */
  double millis;                  /* planning wall time */
} pm_scan_explain;

typedef struct pm_plan {
  int64_t snapshot_id;   /* snapshot planned; 0 when the table has no snapshot */
  int has_snapshot;
  pm_data_split **splits; /* owned */
  size_t n_splits;
  /* splits[fallback_start..n_splits) come from branch fallback_branch
   * (scan.fallback-branch) and must be read with that branch's table
   * (its schema, keys and merge engine); fallback_start == n_splits when none. */
  size_t fallback_start;
  char *fallback_branch; /* owned, NULL when none */
  /* Incremental diff plans only (pm_scan_plan_ex with accept_incremental_splits):
   * one PM_SPLIT_INCREMENTAL split per (partition, bucket) whose file set
   * changed, sorted by (partition, bucket); splits is then empty. Owned. */
  pm_split **incremental_splits;
  size_t n_incremental_splits;
  pm_scan_explain explain;
} pm_plan;

void pm_plan_free(pm_plan *p); /* NULL ok */

/* Plans a read. filter (may be NULL) is bound to t->schema's top-level
 * fields (field_index = position in t->schema->fields). limit < 0 = none.
 * Errors: conflicting / unresolvable time-travel selectors are
 * PAIMON_ERR_INVALID_ARGUMENT / NOT_FOUND; damaged metadata names the file. */
int pm_scan_plan(pm_table *t, const pm_predicate *filter, int64_t limit, pm_plan **out, pm_error *err);
/* Same; with accept_incremental_splits = 0 (pm_scan_plan) a query with diff
 * semantics is PAIMON_ERR_UNSUPPORTED (its callers read DataSplits only),
 * else it is planned into plan->incremental_splits. */
int pm_scan_plan_ex(pm_table *t, const pm_predicate *filter, int64_t limit, int accept_incremental_splits,
                    pm_plan **out, pm_error *err);

/* Streaming plans (table/stream_scan.h). pm_scan_plan_stream_full: the batch plan of snap (merged
 * DataSplits, deletion vectors), skipping files below level_min (0 = none; Java's full phase of a
 * lookup / full-compaction changelog stream). pm_scan_plan_stream_delta: streaming DataSplits
 * (is_streaming, one per bucket for primary-key tables) of the ADD entries of snap's delta manifest
 * list (changelog = 0) or changelog manifest list (changelog = 1, none when it has no changelog).
 * Both plan snapshot snap->id; *out owned by the caller (pm_plan_free). */
int pm_scan_plan_stream_full(pm_table *t, const pm_predicate *filter, const pm_snapshot *snap, int level_min,
                             pm_plan **out, pm_error *err);
int pm_scan_plan_stream_delta(pm_table *t, const pm_predicate *filter, const pm_snapshot *snap, int changelog,
                              pm_plan **out, pm_error *err);
/* The changes of an OVERWRITE snapshot of a primary-key table (Java's readChanges): one streaming
 * IncrementalSplit per (partition, bucket) of its delta, DELETE entries as before files and ADD
 * entries as after files (in plan->incremental_splits; read: the before rows as -D, then the after
 * rows, each side merged). */
int pm_scan_plan_stream_changes(pm_table *t, const pm_predicate *filter, const pm_snapshot *snap, pm_plan **out,
                                pm_error *err);

/* The snapshot the options select for a batch scan (NULL when the table is
 * empty and no selector is set). *out owned by caller (pm_snapshot_free). */
int pm_scan_resolve_snapshot(pm_table *t, pm_snapshot **out, pm_error *err);

/* scan.mode = from-creation-timestamp (or default with only scan.creation-time-millis set). Its
 * start (Java's createCreationTimestampStartingScanner): *start = the snapshot after the latest one
 * committed before scan.creation-time-millis when that exists (from-snapshot), else 0 (the latest
 * snapshot's files created at or after that time). */
int pm_scan_creation_mode(const pm_table *t);
int pm_scan_creation_start(pm_table *t, int64_t *start, pm_error *err);

/* Live data-file entries of a snapshot (ALL mode, ADDs minus DELETEs, with
 * partition pruning by filter; no level / stats pruning). Appends to out. */
int pm_scan_live_files(pm_table *t, const pm_snapshot *snap, const pm_predicate *filter, pm_manifest_entries *out,
                       pm_error *err);

/* Error of reading manifest (list) `path` of t: an empty file becomes "PATH:
 * manifest file is empty (0 bytes); table ... expects manifest.format 'orc'".
 * Returns rc unchanged (0 passes through). */
int pm_scan_manifest_error(const pm_table *t, const char *path, int rc, pm_error *err);

/* Directory name of a partition row for t ("f1=10/f2=x", "" when unpartitioned),
 * with default-name substitution and escaping. *out malloc'd. */
int pm_scan_partition_dir(const pm_table *t, const uint8_t *partition, size_t len, char **out, pm_error *err);
/* Readable partition "{f1=10, f2=x}" (values, not directory names). *out malloc'd. */
int pm_scan_partition_string(const pm_table *t, const uint8_t *partition, size_t len, char **out, pm_error *err);

/* Partition field i of a partition row (manifest form): *v (bytes point into
 * partition), *type (the key column's type, borrowed from t->schema) and its
 * text as pm_scan_partition_string prints it ("null" for a null), cut to cap. */
int pm_scan_partition_field(const pm_table *t, const uint8_t *partition, size_t len, size_t i, pm_value *v,
                            const pm_data_type **type, char *text, size_t cap, pm_error *err);

/* Paimon type of the partition row (ROW of partition columns) / of the trimmed
 * primary key, built from t->schema; owned by caller (pm_dtype_free). */
int pm_scan_partition_type(const pm_table *t, pm_data_type **out, pm_error *err);

/* Prints the explain as text lines. */
int pm_scan_explain_format(const pm_scan_explain *e, pm_buf *out, pm_error *err);

/* Parses "YYYY-MM-DD[ HH:MM:SS[.f]]" in the process's local time zone (util/tz.h), or a
 * zoned form as zoned values print ("2024-01-01T10:00:00.123Z", "... +08:00"), into epoch millis. */
int pm_parse_local_timestamp(const char *text, int64_t *millis, pm_error *err);

#endif
