/*
 * Deleting the files of a snapshot (or tag) that nothing retained uses any
 * more (issue 13 §2; SEMANTICS.md 7.9; Java's FileDeletionBase /
 * SnapshotDeletion). Shared by snapshot expiry, changelog expiry, tag deletion
 * and rollback.
 *
 * Two steps, so the caller decides the order against its own metadata:
 *  1. PLAN (read-only): the pm_fdel_plan_* calls collect paths into a
 *     pm_file_deletion; the pm_fdel_skip_* calls build the sets of what
 *     retained snapshots / tags still use, which the planners honour.
 *  2. EXECUTE (pm_fdel_execute): deletes every planned data / changelog /
 *     extra file first, then (snapshot.clean-empty-directories) the bucket and
 *     partition directories that became empty, then the metadata files
 *     (manifests, manifest lists, index files, index manifests, statistics).
 *
 * Crash safety is the caller's order: expiry deletes the snapshot files
 * first and executes after (a stop in between leaves only orphans, never a
 * snapshot whose files are gone); tag deletion deletes the tag file first.
 *
 * Selection rules (Java's):
 *  - data files: entries DELETEd in a snapshot's delta manifests and not
 *    re-ADDed in the same delta (upgrades), with their _EXTRA_FILES, unless
 *    the data file's path is in the data skip set (pm_fdel_skip_live_data of
 *    the nearest older tag, or of any other snapshot that must keep them);
 *  - changelog files: ADD entries of a snapshot's changelog manifests;
 *  - metadata: a snapshot's base / delta (/ changelog) manifest lists and
 *    their manifests, its index manifest and index files, its statistics
 *    file, each unless its name is in the manifest skip set
 *    (pm_fdel_skip_manifests of the snapshots that are kept). Planning adds
 *    every planned name to the skip set, so several snapshots planned against
 *    one set plan each file once.
 * Missing files: a manifest list / manifest / index manifest that is already
 * gone (an interrupted earlier run) plans nothing for it; any other read
 * error is returned and the plan must then be dropped (nothing deleted).
 *
 * Keys: data skip sets hold resolved local paths of data files; manifest
 * skip sets hold file names (as snapshot JSON and manifest lists store them).
 *
 * Layer: table (reads and deletes through t->fs).
 */
#ifndef PM_TABLE_SNAPSHOT_DELETION_H
#define PM_TABLE_SNAPSHOT_DELETION_H

#include <stddef.h>
#include <stdint.h>

#include "meta/snapshot.h"
#include "table/table.h"
#include "table/table_files.h"
#include "util/error.h"

typedef struct pm_path_list {
  char **items;
  size_t n, cap;
} pm_path_list;

/* The plan of one deletion. Zero-initialize with pm_fdel_init; pm_fdel_clear frees it. */
typedef struct pm_file_deletion {
  pm_table *t;                 /* borrowed: must outlive the plan */
  int clean_empty_directories; /* from snapshot.clean-empty-directories at init (may be changed) */
  pm_name_set planned;         /* every planned path (dedup) */
  pm_path_list data;           /* data, changelog and extra files, in plan order */
  pm_path_list meta;           /* manifests and lists, then index files, index manifests, statistics */
  pm_name_set dirs_seen;
  pm_path_list bucket_dirs;    /* bucket directories of planned data files (not external paths) */
  pm_path_list partition_dirs; /* their partition directory ("" when unpartitioned), parallel */
} pm_file_deletion;

/* What pm_fdel_execute did. */
typedef struct pm_fdel_stats {
  int64_t data_deleted;   /* data / changelog / extra files deleted */
  int64_t meta_deleted;   /* manifests, lists, index files, index manifests, statistics deleted */
  int64_t dirs_deleted;   /* empty directories removed */
  int64_t missing;        /* planned files already gone (not an error) */
  int64_t failed;         /* deletions that failed with another error (files left behind) */
} pm_fdel_stats;

/* Starts an empty plan on t (borrowed). Never fails (allocation happens later). */
void pm_fdel_init(pm_file_deletion *d, pm_table *t);
void pm_fdel_clear(pm_file_deletion *d); /* NULL ok */

/* Adds the path of every live data file of snapshot s (ADDs minus DELETEs of its base +
 * delta manifests) to skip. Errors (a missing manifest included) are returned: a caller
 * must then not delete data files that the skip set was meant to protect. */
int pm_fdel_skip_live_data(pm_table *t, const pm_snapshot *s, pm_name_set *skip, pm_error *err);

/* Adds the names of s's base and delta manifest lists, their manifests, its index manifest
 * and index files and its statistics file to skip (Java's manifestSkippingSet; the changelog
 * manifest list belongs to s alone and is not added). Errors are returned (missing included). */
int pm_fdel_skip_manifests(pm_table *t, const pm_snapshot *s, pm_name_set *skip, pm_error *err);

/* pm_fdel_skip_manifests for a long-lived changelog: its manifest lists and index manifest that
 * are gone (snapshot expiry deleted what the changelog does not need) add nothing (Java's
 * ChangelogDeletion.manifestSkippingSet checks each exists). Other errors are returned. */
int pm_fdel_skip_manifests_existing(pm_table *t, const pm_snapshot *s, pm_name_set *skip, pm_error *err);

/* Plans the data files that s's delta removes (DELETE entries not re-ADDed in the delta) with
 * their extra files, except those whose path is in skip (NULL = none). skip_append_source: also
 * keep files whose _FILE_SOURCE is APPEND or unknown (changelog decoupled without a changelog
 * producer: they are the changelog, deleted later by changelog expiry). */
int pm_fdel_plan_deleted_in_delta(pm_file_deletion *d, const pm_snapshot *s, const pm_name_set *skip,
                                  int skip_append_source, pm_error *err);

/* Plans every live data file of s (base + delta merged) with its extra files, except those
 * whose path is in skip (Java's cleanUnusedDataFiles: tag deletion, rollback). A missing or
 * unreadable manifest is an error (nothing may be planned from a partial view). */
int pm_fdel_plan_unused_data(pm_file_deletion *d, const pm_snapshot *s, const pm_name_set *skip, pm_error *err);

/* Plans the files ADDed by s's changelog manifests (none when it has no changelog list). */
int pm_fdel_plan_changelog(pm_file_deletion *d, const pm_snapshot *s, pm_error *err);

/* Plans s's metadata not in skip (names; each planned name is added to skip):
 * data_lists: base + delta manifest lists and their manifests; changelog_list: the changelog
 * manifest list and its manifests; index_and_stats: the index manifest, its index files and
 * the statistics file. */
int pm_fdel_plan_manifests(pm_file_deletion *d, const pm_snapshot *s, pm_name_set *skip, int data_lists,
                           int changelog_list, int index_and_stats, pm_error *err);

/* Deletes the plan: data files, empty directories, metadata. A file already gone counts as
 * missing; another failure is counted, the rest still deleted, and at the end
 * PAIMON_ERR_IO is returned naming the first failure and the count (stats filled either
 * way; st may be NULL). Progress (may be NULL) is called every 1,000 files. */
typedef void (*pm_fdel_progress_fn)(void *ctx, int64_t done, int64_t total);
int pm_fdel_execute(pm_file_deletion *d, pm_fdel_progress_fn progress, void *progress_ctx, pm_fdel_stats *st,
                    pm_error *err);

/* Number of planned files. */
static inline size_t pm_fdel_planned(const pm_file_deletion *d) { return d->data.n + d->meta.n; }

#endif
