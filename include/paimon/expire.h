/*
 * libpaimon public API: snapshot and changelog expiry, consumers (issue 13; Java's
 * expire_snapshots / expire_changelogs / reset_consumer procedures, ExpireSnapshotsImpl,
 * ExpireChangelogImpl, ConsumerManager). Include it after (or instead of) paimon/paimon.h;
 * same conventions (see there): every call returns a status and fills *err on failure;
 * handles passed in are borrowed (the caller keeps owning them); options and results are
 * caller-owned plain structs; frees accept NULL.
 *
 *   paimon_expire_options o; paimon_expire_options_init(&o);
 *   o.retain_max = 5;
 *   paimon_expire_result r;
 *   paimon_table_expire_snapshots(t, &o, NULL, NULL, &r, &err);
 *
 * Expiry works on the table handle's branch (`db.t$branch_b` names a branch). System-table
 * handles are refused (PAIMON_ERR_INVALID_ARGUMENT).
 *
 * Which snapshots go (latest L, earliest E): [E, end) with end <= L - retain_min + 1,
 * end <= E + max_deletes, end <= the smallest nextSnapshot of any consumer (unless
 * consumer.changelog-only); snapshots before L - retain_max + 1 always go, later ones only
 * while the snapshot after them was committed before the older-than time.
 * Which files go: the data files, changelog files, manifests, manifest lists, index files and
 * statistics that no retained snapshot, tag (of any branch) or other branch still uses.
 * Order: the snapshot files first (ascending), then snapshot/EARLIEST, then the files, so an
 * interrupted expiry leaves a readable table with some unreferenced files (a rerun or orphan
 * cleanup removes them), never a snapshot whose files are gone.
 */
#ifndef PAIMON_EXPIRE_H
#define PAIMON_EXPIRE_H

#include <stddef.h>
#include <stdint.h>

#include "paimon/cleanup.h"
#include "paimon/paimon.h"
#include "paimon/write.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every field < 0 means "the table's option" (what paimon_expire_options_init sets). */
typedef struct paimon_expire_options {
  int32_t retain_max;  /* snapshots kept at most (snapshot.num-retained.max) */
  int32_t retain_min;  /* snapshots kept at least, >= 1 (snapshot.num-retained.min) */
  /* Java's older_than: snapshots committed before this time (ms since the epoch) may expire;
   * replaces snapshot.time-retained (as now - older_than). Not with time_retained_millis. */
  int64_t older_than_millis;
  int64_t time_retained_millis; /* snapshot.time-retained as a duration in ms */
  int32_t max_deletes;          /* snapshots expired per call at most (snapshot.expire.limit), >= 1 */
  /* Changelog retention (changelog.num-retained.min/max, changelog.time-retained; unset in
   * the table too: the snapshot retention). A retention longer than the snapshot one keeps
   * the changelog of expired snapshots as changelog/changelog-<id> (decoupled). */
  int32_t changelog_retain_max;
  int32_t changelog_retain_min;
  int64_t changelog_time_retained_millis;
  int dry_run; /* 1: plan only; the result counts what would be expired / deleted */
} paimon_expire_options;

/* All fields "from the table" (-1), dry_run 0. */
PAIMON_EXPORT void paimon_expire_options_init(paimon_expire_options *o);

/* What an expiry did (dry run: would do). */
typedef struct paimon_expire_result {
  uint64_t snapshots_expired;   /* snapshot files deleted */
  uint64_t changelogs_written;  /* changelog/changelog-<id> files written (decoupled changelog) */
  uint64_t changelogs_expired;  /* long-lived changelogs expired */
  uint64_t data_files_deleted;  /* data, changelog and extra files */
  uint64_t meta_files_deleted;  /* manifests, manifest lists, index files, statistics */
  uint64_t dirs_deleted;        /* empty directories (snapshot.clean-empty-directories) */
  uint64_t files_missing;       /* planned files that were already gone (not an error) */
  uint64_t delete_failed;       /* deletions the file system refused (files left in place) */
  int64_t earliest_snapshot;    /* the earliest snapshot afterwards (-1: the table has none) */
} paimon_expire_result;

/* Expires snapshots (then long-lived changelogs beyond the changelog retention). o may be NULL
 * (the table's options). progress (may be NULL) gets phases "reading snapshots", "deleting
 * snapshots", "deleting files". out may be NULL. Invalid options (retain_max < retain_min,
 * retain_min < 1, max_deletes < 1, both older_than and time_retained) are
 * PAIMON_ERR_INVALID_ARGUMENT and change nothing. A read error while planning changes nothing;
 * an error after the first snapshot file went names what was done. Files that could not be
 * deleted: PAIMON_ERR_IO after everything else was done (out->delete_failed counts them). */
PAIMON_EXPORT paimon_status paimon_table_expire_snapshots(const paimon_table *table, const paimon_expire_options *o,
                                                          paimon_progress_fn progress, void *ctx,
                                                          paimon_expire_result *out, paimon_error *err);

/* Java's expire_changelogs: expires only the long-lived changelogs (changelog/changelog-<id>)
 * beyond the changelog retention of o (the snapshot fields of o are not used). out may be NULL. */
PAIMON_EXPORT paimon_status paimon_table_expire_changelogs(const paimon_table *table, const paimon_expire_options *o,
                                                           paimon_expire_result *out, paimon_error *err);

/* ------------------------------------------------------------ automatic expiry */

/* After every successful commit of a paimon_table_commit (commit, truncate_table,
 * truncate_partitions; empty commits included) the committer runs Java's commit maintenance
 * (TableCommitImpl): unless the table is write-only (write-only = true) or a postpone-bucket
 * table, consumers older than consumer.expiration-time are deleted, then snapshots expire as
 * snapshot.num-retained.min / .max, snapshot.time-retained, snapshot.expire.limit and
 * snapshot.clean-empty-directories say, then (changelog lifecycle decoupled) long-lived
 * changelogs as changelog.num-retained.* / changelog.time-retained say. This is the last step
 * of the maintenance after a commit (see paimon/maintenance.h
 * paimon_table_commit_maintenance_status: automatic tags, partition expiry, then this). It runs
 * inside the commit call, except with snapshot.expire.execution-mode = async on a streaming
 * committer: then the whole maintenance runs on a background thread and the commit call returns
 * at once (this call and paimon_table_commit_free wait for it). With the default
 * options (at least 10 snapshots, 1 hour) young tables expire nothing and the check costs a
 * few small reads.
 * A failure of the expiry never turns the commit into an error: the commit call returns its own
 * status (the snapshot is published) and the expiry's outcome is kept until the committer's next
 * maintenance run: this returns its status (PAIMON_OK: it ran without error or did not run), its
 * message in *err and what it did in *out (may be NULL). c is borrowed. */
PAIMON_EXPORT paimon_status paimon_table_commit_expire_result(const paimon_table_commit *c,
                                                              paimon_expire_result *out, paimon_error *err);

/* ------------------------------------------------------------------ consumers */

/* A consumer (consumer/consumer-<id> of the branch): the next snapshot a streaming reader reads. */
typedef struct paimon_consumer {
  char *id;
  int64_t next_snapshot;
  int64_t modified_millis; /* last update of the consumer file (consumer.expiration-time uses it) */
} paimon_consumer;

/* Every consumer, sorted by id. *out owned by the caller: paimon_consumers_free(*out, *n). */
PAIMON_EXPORT paimon_status paimon_table_list_consumers(const paimon_table *table, paimon_consumer **out, size_t *n,
                                                        paimon_error *err);
PAIMON_EXPORT void paimon_consumers_free(paimon_consumer *c, size_t n); /* NULL ok */
/* Java's reset_consumer with a next snapshot id: creates or replaces consumer `id` with
 * nextSnapshot = next_snapshot, which must be an existing snapshot (else PAIMON_ERR_NOT_FOUND).
 * An id that is empty or holds '/' is PAIMON_ERR_INVALID_ARGUMENT. */
PAIMON_EXPORT paimon_status paimon_table_reset_consumer(const paimon_table *table, const char *id,
                                                        int64_t next_snapshot, paimon_error *err);
/* Deletes consumer `id` (Java's reset_consumer without a snapshot); PAIMON_ERR_NOT_FOUND when
 * there is no such consumer. */
PAIMON_EXPORT paimon_status paimon_table_delete_consumer(const paimon_table *table, const char *id,
                                                         paimon_error *err);

#ifdef __cplusplus
}
#endif

#endif
