/*
 * The committer (SEMANTICS.md 7.4-7.8, 9.2; FORMAT.md 3, 9): turns commit
 * messages (meta/wire.h pm_manifest_committable, from the writers) into
 * snapshots, as Java's FileStoreCommitImpl does:
 *   - APPEND snapshot of the data increments (OVERWRITE kind when they delete
 *     files or carry deletion vectors), then a COMPACT snapshot of the compact
 *     increments; both with the committable's identifier;
 *   - new delta manifest(s), a new base manifest list (latest base + delta),
 *     a changelog list when there is changelog, the index manifest combined
 *     with the index changes; record counts, watermark, statistics carried
 *     over, row ids assigned on row-tracking tables; snapshot JSON of
 *     version 3 with the keys Java 2.0 writes; then the LATEST hint (and
 *     EARLIEST when missing);
 *   - publication by create-if-absent of snapshot/snapshot-<id> through the
 *     table's fs, retried as Java retries (commit.max-retries, commit.timeout,
 *     commit.min-retry-wait / commit.max-retry-wait); after a failure whose
 *     outcome is uncertain, the snapshots since the failed attempt are
 *     searched for this (commit user, identifier, kind) before retrying.
 *
 * Statuses of every commit call:
 *   0                            published (exactly once);
 *   PAIMON_ERR_CONFLICT          nothing published: a real conflict (7.6), or
 *                                every attempt lost the race;
 *   PAIMON_ERR_UNKNOWN_OUTCOME   maybe published (the last attempt failed in or
 *                                after the snapshot write and could not be
 *                                resolved): never abort those messages; a
 *                                retry with the same user + identifier
 *                                publishes them at most once;
 *   other codes (IO, ...)        nothing published.
 * A file system that reports a write done but loses it is caught before OK:
 * every manifest / manifest list an attempt wrote must exist with the size
 * written before the snapshot may reference it (a missing or short one: that
 * attempt published nothing), and the snapshot is read back after its
 * create-if-absent (damaged bytes of ours are removed again: nothing published
 * either). Those attempts are retried like a lost race; when the retries run
 * out the status is PAIMON_ERR_IO naming the file. A snapshot create reported
 * done whose read-back does not find our snapshot (missing, or another's under
 * its name) is NOT proof that nothing was published (Java: an exception after
 * the atomic write means it cannot know, and the next attempt looks for the
 * commit identifier): the attempt's files are kept, later attempts search for
 * it, and unless one of them publishes or finds it the call returns
 * PAIMON_ERR_UNKNOWN_OUTCOME (also when a later attempt then fails certainly).
 * The LATEST / EARLIEST hints are read back too (rewritten when the fs lost
 * them; they stay best effort).
 * At most once: a stream identifier (not Long.MAX_VALUE) this commit user has
 * already committed (its newest snapshot has a larger identifier, or this one
 * with this kind) is not committed again, whichever process committed it; after
 * an UNKNOWN_OUTCOME the same pm_commit also finds a batch commit it published.
 * After a failure that published nothing, the manifests and manifest lists
 * the call wrote are deleted (data files stay: they belong to the messages);
 * after an uncertain one nothing is deleted.
 *
 * No rollback of COMPACT snapshots: Java's CommitRollback (on a conflict whose
 * latest snapshot is a COMPACT one, roll the table back to the snapshot before
 * it and retry) runs only when the catalog provides a TableRollback, which the
 * filesystem catalog does not (REST catalogs do); with the filesystem catalog
 * a conflict with a concurrent compaction is a conflict, and so it is here.
 *
 * Thread safety: one pm_commit per thread; several commits (threads or
 * processes) may commit to one table at once.
 */
#ifndef PM_TABLE_COMMIT_H
#define PM_TABLE_COMMIT_H

#include <stddef.h>
#include <stdint.h>

#include "meta/schema.h"
#include "meta/wire.h"
#include "table/table.h"
#include "util/error.h"

typedef struct pm_commit pm_commit;

/* A partition spec in text form: keys[i] = values[i] (values as Java renders
 * partition values; the table's partition.default-name means null). n may be
 * smaller than the number of partition keys (a partial spec). Borrowed. */
typedef struct pm_partition_spec pm_partition_spec;
struct pm_partition_spec {
  const char *const *keys;
  const char *const *values;
  size_t n;
};

/* A committer for table t (retained) and commit_user (copied). streaming = 1:
 * empty commits always write a snapshot (Java's StreamTableCommit); 0: batch,
 * empty commits are ignored unless snapshot.ignore-empty-commit = false or
 * commit.force-create-snapshot = true. *out: pm_commit_free. */
int pm_commit_open(pm_table *t, const char *commit_user, int streaming, pm_commit **out, pm_error *err);
void pm_commit_free(pm_commit *c); /* NULL ok */

/* Snapshot properties of the following commits (copied; overlaid on the
 * committable's own properties). NULL or empty = none. */
int pm_commit_set_properties(pm_commit *c, const pm_options *props, pm_error *err);
/* Watermark of the following commits (max with the committable's and the latest snapshot's). */
void pm_commit_set_watermark(pm_commit *c, int64_t watermark);

/* Row-id conflict check of data-evolution tables (Java's
 * FileStoreCommit.rowIdCheckConflict / rowIdCheckConflictForMaterializeDvCompaction),
 * for the following commits: mode PM_ROWID_CHECK_DML (every commit kind) or
 * PM_ROWID_CHECK_MATERIALIZE_DV (COMPACT only) from snapshot from_snapshot (>= 1);
 * PM_ROWID_CHECK_OFF turns it off. A no-op on tables without data-evolution.enabled
 * (Java's plain ConflictDetection ignores it). See commit_internal.h. */
enum { PM_ROWID_CHECK_OFF = 0, PM_ROWID_CHECK_DML = 1, PM_ROWID_CHECK_MATERIALIZE_DV = 2 };
int pm_commit_set_rowid_check(pm_commit *c, int mode, int64_t from_snapshot, pm_error *err);

/* Commits the committable m (APPEND, then COMPACT when m has compact increments).
 * check_append_conflicts: detect conflicts for the APPEND snapshot too (restart
 * recovery does). *snapshot_id (may be NULL) = the last snapshot written, -1 when
 * none was (an ignored empty commit), or the id of this commit's snapshot found
 * already published by an earlier attempt. */
int pm_commit_append(pm_commit *c, const pm_manifest_committable *m, int check_append_conflicts,
                     int64_t *snapshot_id, pm_error *err);

/* OVERWRITE snapshot: deletes the live files of the selected partitions and adds
 * m's new files. spec NULL (or n = 0): the whole table, unless the table is
 * partitioned and dynamic-partition-overwrite = true (default): then exactly the
 * partitions m writes (nothing at all when m has no new files). Every new file
 * must fall inside a static spec. m may be NULL (nothing added; identifier =
 * batch). Compact increments follow as a COMPACT snapshot. */
int pm_commit_overwrite(pm_commit *c, const pm_partition_spec *spec, const pm_manifest_committable *m,
                        int64_t *snapshot_id, pm_error *err);

/* 0 when every message of m holding new files belongs to the (possibly partial)
 * partition spec; else INVALID_ARGUMENT naming the partition (an append into one
 * static partition, checked before pm_commit_append). spec NULL / n = 0: 0. */
int pm_commit_check_in_partition(const pm_commit *c, const pm_partition_spec *spec, const pm_manifest_committable *m,
                                 pm_error *err);

/* Drops / truncates the partitions matching any of specs[0..n) (each possibly
 * partial); n = 0 truncates the whole table. OVERWRITE snapshot with operation
 * TRUNCATE. */
int pm_commit_drop_partitions(pm_commit *c, const pm_partition_spec *specs, size_t n, int64_t identifier,
                              int64_t *snapshot_id, pm_error *err);

/* Drops exactly the partitions rows[0..n) (manifest form, borrowed): one OVERWRITE snapshot
 * deleting their live files (Java's dropPartitions, as partition expiry commits it), with the
 * committer's operation (none unless set). n = 0: nothing is committed (*snapshot_id = -1). */
int pm_commit_drop_partition_rows(pm_commit *c, const pm_bytes *rows, size_t n, int64_t identifier,
                                  int64_t *snapshot_id, pm_error *err);

/* Restart recovery (Java's filterCommitted): committed[i] = 1 when ids[i] <= the
 * commitIdentifier of the latest snapshot written by this commit user. */
int pm_commit_filter_committed(pm_commit *c, const int64_t *ids, size_t n, int *committed, pm_error *err);

/* Deletes the new files (data, changelog, compact-after, compact changelog and
 * new index files) of messages known NOT to be committed (compact-after files
 * also listed compact-before are upgrades of existing files: kept). Missing files are
 * fine; the first other failure is returned after trying every file. */
int pm_commit_abort(pm_table *t, const pm_manifest_committable *m, pm_error *err);
/* pm_commit_abort of some lists only: PM_ABORT_DATA (new data / changelog / index
 * files), PM_ABORT_COMPACTION (compact-after, compact changelog, compact index files). */
enum { PM_ABORT_DATA = 1, PM_ABORT_COMPACTION = 2 };
int pm_commit_abort_parts(pm_table *t, const pm_manifest_committable *m, int parts, pm_error *err);
/* The status with which the last commit's compaction part failed after its data
 * part was published (the commit itself returned OK; see pm_commit_compact_part), else 0. */
int pm_commit_compaction_dropped(const pm_commit *c);
/* Maintenance after commits (commit_maintain.c; Java's TableCommitImpl.maintain): after every
 * successful pm_commit_append / _overwrite / _drop_partitions (empty commits included, as Java's
 * committer) the committer runs, in Java's order, automatic tags (table/tag_auto.h, not with
 * write-only), automatic partition expiry (table/partition_expire.h) and consumer, snapshot and
 * changelog expiry (table/expire.h pm_expire_after_commit). Its failure never changes the
 * commit's status (the commit happened). With snapshot.expire.execution-mode = async a
 * streaming committer runs it on a pool worker without blocking the commit (one run at a time;
 * pm_commit_free waits for it).
 * pm_commit_maintenance_status: the first failure of the maintenance after the last commit
 * (async: of any background run so far), its message (naming the step) in *err; waits for a
 * background run under way. pm_commit_expire_status: the snapshot-expiry step of the last run:
 * its status, its message in *err and its counts in *r (each may be NULL); waits likewise.
 * pm_commit_maintenance_wait: waits for a background run under way (none: returns). */
struct pm_expire_result;
int pm_commit_maintenance_status(pm_commit *c, pm_error *err);
int pm_commit_expire_status(pm_commit *c, struct pm_expire_result *r, pm_error *err);
void pm_commit_maintenance_wait(pm_commit *c);

#endif
