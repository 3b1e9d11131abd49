/*
 * Internals shared by the committer's files: commit.c (changes from
 * messages, the retry loop, snapshot building and publication),
 * commit_conflict.c (conflict detection, SEMANTICS.md 7.6) and
 * commit_overwrite.c (overwrite / truncate / drop partitions, 7.7).
 *
 * Change lists are manifest containers (meta/manifest.h) filled with
 * pm_manifest_entries_append_owned / pm_index_entries_append_owned: shallow
 * copies whose strings and byte arrays point into the committable's arena or
 * into a container that outlives the list (their own arenas stay empty).
 */
#ifndef PM_TABLE_COMMIT_INTERNAL_H
#define PM_TABLE_COMMIT_INTERNAL_H

#include <stdatomic.h>

#include "data/types.h"
#include "meta/file_entry.h"
#include "meta/manifest.h"
#include "meta/path_factory.h"
#include "meta/snapshot.h"
#include "table/commit.h"
#include "table/expire.h"

/* The changes of one snapshot: data entries, changelog entries, index entries. */
typedef struct pm_commit_changes {
  pm_manifest_entries table, changelog;
  pm_index_entries index;
} pm_commit_changes;

void pm_commit_changes_free(pm_commit_changes *ch);
/* Appends src's table and index entries (and changelog entries when with_changelog) to dst (shallow). */
int pm_commit_changes_append(pm_commit_changes *dst, const pm_commit_changes *src, int with_changelog, pm_error *err);
int pm_commit_changes_empty(const pm_commit_changes *ch);

/* The changes of a committable, split as Java's ManifestEntryChanges does. */
typedef struct pm_commit_collected {
  pm_commit_changes append, compact;
} pm_commit_collected;

int pm_commit_collect(const pm_commit *c, const pm_manifest_committable *m, pm_commit_collected *out, pm_error *err);
void pm_commit_collected_free(pm_commit_collected *cc);

struct pm_commit {
  pm_table *t; /* retained */
  char *user;
  int streaming;
  pm_options props;
  int64_t watermark;
  int has_watermark;
  const char *operation;     /* static string or NULL: the next snapshots' "operation" */
  pm_data_type *partition_type; /* ROW of the partition columns (owned) */
  pm_path_factory pf;
  atomic_int_fast64_t index_manifests; /* counter of index-manifest names */
  /* The last call ended with an unknown outcome: a new call for the same
   * identifier and kind first looks for that snapshot (published at most once). */
  int pending;
  int64_t pending_identifier, pending_latest;
  int pending_unseen; /* ...after a snapshot create reported done but not found (PM_PUB_UNSEEN) */
  char pending_kind[16];
  int compaction_dropped; /* the last commit's compaction part failed after its data was published (its status) */
  int rowid_check_mode;       /* PM_ROWID_CHECK_* (commit.h) */
  int64_t rowid_check_from;   /* its snapshot (when the mode is not OFF) */
  struct pm_commit_maint *maint; /* the maintenance after commits (commit_maintain.c), lazily made */
  /* manifest compaction on request (table/manifest_compact.h): the base list is merged as a full
   * compaction (merge-min-count 1, full-compaction threshold 1 byte); an attempt whose merge
   * changes nothing publishes nothing and sets manifests_noop */
  int manifests_full, manifests_noop;
  size_t manifests_before, manifests_after; /* data manifests of the latest snapshot / of the new base list */
};

/* After a successful commit (pm_commit_append / _overwrite / _drop_partitions) of snapshot sid
 * (<= 0: none / unknown) with identifier: Java's maintenance (commit_maintain.c, see
 * pm_commit_maintenance_status). Its failure never fails the commit. */
void pm_commit_maintain(pm_commit *c, int64_t sid, int64_t identifier);
/* Waits for the maintenance under way and frees its state (pm_commit_free). */
void pm_commit_maint_free(pm_commit *c);

/* Computes the changes of one attempt against latest (NULL = empty table).
 * out is empty on entry; what it points to lives until the next call or the
 * provider's cleanup. */
typedef struct pm_commit_provider {
  int (*provide)(void *ctx, pm_commit *c, const pm_snapshot *latest, pm_commit_changes *out, pm_error *err);
  void *ctx;
} pm_commit_provider;

/* One logical commit of `kind` ("APPEND", "COMPACT", "OVERWRITE") through the
 * retry loop. detect: run conflict detection. *snapshot_id = the snapshot. */
int pm_commit_try(pm_commit *c, const pm_commit_provider *p, int64_t identifier, const pm_manifest_committable *m,
                  const char *kind, int detect, int64_t *snapshot_id, pm_error *err);

/* The COMPACT snapshot of m's compact increments, after its data part
 * (data_published: that part's snapshot *sid is published). A failure of the
 * compaction after published data drops the compaction (CONFLICT: its new
 * files deleted) and returns 0 with *sid unchanged; c->compaction_dropped
 * keeps the status. Without published data the status is returned. */
int pm_commit_compact_part(pm_commit *c, const pm_commit_provider *p, int64_t identifier,
                           const pm_manifest_committable *m, int data_published, int64_t *sid, pm_error *err);

/* ---- verification (commit_verify.c) ----
 * A file system may report a write done and lose it (dropped bytes, a publication
 * that never shows). Before a snapshot may reference the files an attempt wrote,
 * each is checked to exist with the size written; after the snapshot's
 * create-if-absent it is read back. Cost: one stat per written manifest / list,
 * one read of the snapshot and one of the LATEST hint per commit. */

/* Outcomes of one publication attempt. */
enum {
  PM_PUB_OK = 0,        /* published, verified */
  PM_PUB_FAILED = 1,    /* certainly not published: another commit took the id, or failed before publishing */
  PM_PUB_UNCERTAIN = 2, /* maybe published (an error while or after publishing) */
  PM_PUB_LOST = 3,      /* certainly not published: the file system lost a write it reported done
                         * (a manifest before the snapshot write; a damaged snapshot removed again) */
  PM_PUB_UNSEEN = 4     /* maybe published: the snapshot create reported success, but reading it back
                         * did not find our snapshot (missing, or another's under its name). Like Java
                         * after an exception past the atomic write: it cannot know. The snapshot may
                         * still appear, so the whole call stays maybe-published (UNKNOWN_OUTCOME
                         * unless a later attempt publishes or finds it) and its files are kept. */
};

/* Checks paths[i] has sizes[i] bytes (sizes[i] < 0: not checked). A missing or
 * short file: *lost = 1 and PAIMON_ERR_IO naming it; a stat failure is returned as is. */
int pm_commit_verify_sizes(pm_fs *fs, char *const *paths, const int64_t *sizes, size_t n, int *lost,
                           pm_error *err);
/* Reads snapshot `path` back after the fs reported it created with ours[0..len):
 * PM_PUB_OK (our bytes), PM_PUB_LOST (damaged bytes of ours that were removed again:
 * the name is free, no snapshot of ours exists), PM_PUB_UNSEEN (not there, or another
 * commit's readable snapshot under the name: ours may still show up), PM_PUB_UNCERTAIN
 * (could not tell, or the damaged file could not be removed); err describes every
 * outcome but OK. */
int pm_commit_check_published(pm_commit *c, const char *path, int64_t id, const void *ours, size_t len,
                              pm_error *err);
/* 1 when hint file `path` reads as id (or a larger id when or_newer). */
int pm_commit_hint_reads(pm_fs *fs, const char *path, int64_t id, int or_newer);

/* ---- conflict detection (commit_conflict.c) ---- */

/* Checks the delta ch->table against the live files of latest in the changed
 * partitions (SEMANTICS 7.6 steps 1-5); PAIMON_ERR_CONFLICT naming the file or
 * partition. discard_duplicates: delta entries whose identity is already live
 * are dropped from ch->table first (commit.discard-duplicate-files). Java runs
 * the whole check whenever either is asked for. */
int pm_commit_check_conflicts(pm_commit *c, const pm_snapshot *latest, pm_commit_changes *ch, const char *kind,
                              int discard_duplicates, pm_error *err);

/* Deletion-vector conflicts (commit_conflict_dv.c; Java's ConflictDetection on
 * unaware-bucket tables with deletion-vectors.enabled, a no-op otherwise): base =
 * the live entries of the changed partitions of latest; file entries get their
 * DV index file as part of their identity, so a commit that deletes a file or
 * changes its DV planned against another DV than the file has now (a concurrent
 * commit changed it), or changes the DV of a file no longer live, is a
 * PAIMON_ERR_CONFLICT naming the data file. */
int pm_commit_check_dv_conflicts(pm_commit *c, const pm_snapshot *latest, const pm_manifest_entries *base,
                                 const pm_commit_changes *ch, pm_error *err);

/* Row-id conflicts of data-evolution tables (commit_conflict_rowid.c; a no-op
 * unless data-evolution.enabled): deleted files keep the row ids we planned with,
 * new files of existing rows match live files' rows, (COMPACT, or a row-id check
 * set) overlapping row ranges after the commit are identical, new global-index
 * files cover rows that live files of their bucket hold, and (row-id check set,
 * pm_commit_set_rowid_check) no snapshot after the check's snapshot changed the
 * rows (and columns) this commit changes. merged = base + delta merged by
 * identity. PAIMON_ERR_CONFLICT naming the file. */
int pm_commit_check_rowid_conflicts(pm_commit *c, const pm_snapshot *latest, const pm_manifest_entries *base,
                                    const pm_commit_changes *ch, const char *kind, const pm_entry_merge *merged,
                                    pm_error *err);

/* 1 when the row-id check of c applies to commits of `kind` (Java's
 * shouldCheckRowIdFromSnapshot: such APPEND commits detect conflicts). */
int pm_commit_rowid_check_applies(const pm_commit *c, const char *kind);

/* Java's RowIdConflictChecker: the row ranges (and, for the column checker,
 * the field ids written) of a commit's files, against which a file an earlier
 * snapshot committed is tested.
 *   columns = 1: RowIdColumnConflictChecker. The files' row ranges that overlap
 *     (not merely touch) form groups; a group's range spans them and its field
 *     ids are the union of each file's _WRITE_COLS as field ids of the file's
 *     own schema (null _WRITE_COLS: every field of that schema). A file
 *     conflicts when its row range intersects a group's range and it writes one
 *     of the group's field ids (null _WRITE_COLS: it writes all of them).
 *     System columns (_KEY_*, _SEQUENCE_NUMBER, _VALUE_KIND, _LEVEL, rowkind,
 *     _ROW_ID) in _WRITE_COLS are skipped; any other name that is no column
 *     of the file's schema is PAIMON_ERR_CORRUPT naming it.
 *   columns = 0: RowIdRangeConflictChecker: row ranges only (touching ranges
 *     joined); a file conflicts when its range intersects one.
 * Files without a first row id are ignored (and never conflict). The schemas
 * come from t (pm_table_schema_by_id; t must outlive the checker). */
typedef struct pm_rowid_checker pm_rowid_checker;
int pm_rowid_checker_new(pm_table *t, int columns, const pm_data_file_meta *const *files, size_t n,
                         pm_rowid_checker **out, pm_error *err);
int pm_rowid_checker_empty(const pm_rowid_checker *k);
int pm_rowid_checker_conflicts(pm_rowid_checker *k, const pm_data_file_meta *f, int *conflict, pm_error *err);
void pm_rowid_checker_free(pm_rowid_checker *k); /* NULL ok */

/* ---- overwrite upgrade (commit_upgrade.c) ---- */

/* Java's tryUpgrade for an OVERWRITE without compaction (overwrite-upgrade): when the table has a
 * primary key and every new file is at level 0 in a bucket >= 0, the files of each (partition,
 * bucket) whose key ranges do not overlap are set to the max level (num-levels - 1) in place. */
int pm_commit_try_upgrade(const pm_commit *c, pm_manifest_entries *files, pm_error *err);

/* ---- partitions (commit_overwrite.c) ---- */

/* *match = 1 when the partition row (manifest form) matches any of specs[0..n). */
int pm_commit_spec_match(const pm_commit *c, const pm_partition_spec *specs, size_t n, pm_bytes partition,
                         int *match, pm_error *err);
/* Readable "{k=v, ...}" of a partition row for messages; malloc'd (NULL when out of memory). */
char *pm_commit_partition_text(const pm_commit *c, pm_bytes partition);

#endif
