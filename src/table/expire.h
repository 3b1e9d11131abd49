/*
 * Snapshot expiry (issue 13 §2; SEMANTICS.md 7.9; Java's ExpireSnapshotsImpl)
 * and the consumers that pin snapshots (consumer/consumer-<id>).
 *
 * Which snapshots go (latest L, earliest E): the range [E, end) with
 *   end <= L - retain_min + 1, end <= min consumer nextSnapshot (unless
 *   consumer.changelog-only), end <= E + max_deletes, and snapshots older
 *   than max(L - retain_max + 1, E) always go while any snapshot in between
 *   whose successor is younger than now - time_retained stops the range.
 * Which files go: see table/snapshot_deletion.h. Tags of the branch pin the
 * data files of the nearest older tag and the metadata of every tag in the
 * range (Java's skipping); in addition the earliest snapshot and every tag of
 * each other branch pin their files (they may share the main branch's files).
 *
 * Order (crash-safe, each state readable and consistent):
 *   1. plan every deletion (read-only; any read error: nothing changed);
 *   2. write changelog/changelog-<id> for each expiring snapshot when the
 *      changelog lifecycle is decoupled (before its snapshot file goes);
 *   3. delete snapshot files E..end-1 in ascending order, then EARLIEST := end;
 *   4. delete the planned files: data and changelog files, empty
 *      directories (snapshot.clean-empty-directories), then metadata.
 * A stop between 3 and 4 leaves unreferenced files only (orphan cleanup
 * removes them; a rerun also deletes the files the earliest snapshot's delta
 * removed), never a snapshot whose files are gone. (Java deletes the files
 * before the snapshot files; a stop there leaves snapshots whose files are gone.)
 *
 * Layer: table.
 */
#ifndef PM_TABLE_EXPIRE_H
#define PM_TABLE_EXPIRE_H

#include <stdint.h>

#include "table/snapshot_deletion.h"
#include "table/table.h"
#include "util/error.h"

typedef struct pm_expire_config {
  int32_t retain_max;          /* snapshot.num-retained.max (INT32_MAX) */
  int32_t retain_min;          /* snapshot.num-retained.min (10), >= 1 */
  int64_t time_retained_ms;    /* snapshot.time-retained (1 h) */
  int32_t max_deletes;         /* snapshot.expire.limit (50) */
  int32_t changelog_retain_max; /* changelog.num-retained.max (default: retain_max) */
  int32_t changelog_retain_min; /* changelog.num-retained.min (default: retain_min) */
  int64_t changelog_time_retained_ms; /* changelog.time-retained (default: time_retained_ms) */
  int changelog_decoupled;     /* a changelog retention exceeds the snapshot one */
  int consumer_changelog_only; /* consumer.changelog-only: consumers do not pin snapshots */
  int64_t consumer_expiration_ms; /* consumer.expiration-time, 0 = never */
  int64_t now_ms;              /* the clock (0 = current time) */
  int dry_run;                 /* plan only: the result counts what would go, nothing changes */
} pm_expire_config;

/* Reads the options of t into c (invalid values are INVALID_ARGUMENT naming the key). */
int pm_expire_config_from_options(const pm_table *t, pm_expire_config *c, pm_error *err);

typedef struct pm_expire_result {
  int64_t snapshots_expired;
  int64_t changelogs_written;  /* changelog/changelog-<id> files written (decoupled) */
  int64_t changelogs_expired;  /* long-lived changelogs expired (pm_expire_changelogs) */
  pm_fdel_stats files;
} pm_expire_result;

typedef void (*pm_expire_progress_fn)(void *ctx, const char *phase, int64_t done, int64_t total);

/* Expires snapshots of t's branch as configured. r (may be NULL) is filled. A failure before
 * step 3 changes nothing; afterwards the error says what was done. Files that could not be
 * deleted are reported (IO) after everything else was done. */
int pm_expire_snapshots(pm_table *t, const pm_expire_config *c, pm_expire_progress_fn progress, void *pctx,
                        pm_expire_result *r, pm_error *err);

/* Expires the snapshots [earliest, end_exclusive) (Java's expireUntil); end must exist. */
int pm_expire_until(pm_table *t, const pm_expire_config *c, int64_t end_exclusive, pm_expire_progress_fn progress,
                    void *pctx, pm_expire_result *r, pm_error *err);

/* Long-lived changelogs (changelog/changelog-<id>) beyond the changelog retention (Java's
 * ExpireChangelogImpl). Adds to r->changelogs_expired and r->files. */
int pm_expire_changelogs(pm_table *t, const pm_expire_config *c, pm_expire_result *r, pm_error *err);

/* Java's commit maintenance (TableCommitImpl.maintain after every commit, empty ones included):
 * nothing for write-only tables and postpone-bucket (bucket = -2) tables; else consumers older
 * than consumer.expiration-time, then snapshots (and, decoupled, changelogs) as the table's
 * options say, synchronously (snapshot.expire.execution-mode async runs here too). Cheap when
 * nothing can expire: no fs operation at all when the committed snapshot committed_id (> 0;
 * <= 0: unknown) is not above the snapshot and changelog retain-min, else it reads the hints. */
int pm_expire_after_commit(pm_table *t, int64_t committed_id, pm_expire_result *r, pm_error *err);

/* Java's TagManager.deleteTag: deletes tag `name` of t's branch and, when its snapshot no longer
 * exists and no other tag names that snapshot, the data files, manifests, manifest lists, index
 * files and statistics only it used (kept: what the neighbouring tags, the earliest snapshot and
 * other branches use). Plan first (read-only), then the tag file, then the files: a stop leaves
 * unreferenced files only. A plan that cannot be made (a read error) deletes the tag file only
 * (Java logs and skips the cleanup). Missing tag: PAIMON_ERR_NOT_FOUND. st (may be NULL): what
 * was deleted; files that could not be deleted: PAIMON_ERR_IO after the tag is gone. */
int pm_tag_delete_clean(pm_table *t, const char *name, pm_fdel_stats *st, pm_error *err);

/* Long-lived changelog changelog/changelog-<id> (decoupled changelog lifecycle), parsed as a
 * snapshot; missing = PAIMON_ERR_NOT_FOUND. *out owned by the caller (pm_snapshot_free). */
int pm_long_lived_changelog_read(pm_table *t, int64_t id, pm_snapshot **out, pm_error *err);
/* Smallest id among changelog/changelog-<id>; *id = 0 when there is none. */
int pm_long_lived_changelog_earliest(pm_table *t, int64_t *id, pm_error *err);

/* Current wall-clock time in ms since the epoch. */
int64_t pm_expire_now_ms(void);

#endif
