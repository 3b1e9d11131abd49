/*
 * Rollback of one branch of a table (Java's AbstractFileStoreTable.rollbackTo + RollbackHelper,
 * SEMANTICS.md 7.13): to a snapshot, a tag or a timestamp. Every snapshot file with id > target
 * deleted from the latest down, LATEST moved to the id below just before each deletion (Java sets
 * LATEST = target once first; a stop then leaves the hint several snapshots behind; here at most
 * one, as after a crashed commit), then the long-lived
 * changelogs > target (their LATEST hint first), then the tags whose snapshot id > target. Data
 * files and manifests are left to orphan cleaning, as Java's RollbackHelper does. Rolling back
 * to a tag whose snapshot file is gone writes the tag's snapshot back (create-if-absent) and the
 * EARLIEST hint. An interrupted rollback leaves a readable table (the snapshots not yet deleted
 * are still whole); running it again completes it.
 */
#ifndef PM_TABLE_ROLLBACK_H
#define PM_TABLE_ROLLBACK_H

#include <stdint.h>

#include "meta/snapshot.h"

/* Snapshot id: missing snapshot falls back to a tag of that id (Java), else NOT_FOUND. */
int pm_rollback_to_snapshot(const pm_snapshot_manager *m, int64_t id, pm_error *err);
/* Tag name: missing tag NOT_FOUND. */
int pm_rollback_to_tag(const pm_snapshot_manager *m, const char *tag, pm_error *err);
/* The latest snapshot with timeMillis <= ts_millis; none: NOT_FOUND. */
int pm_rollback_to_timestamp(const pm_snapshot_manager *m, int64_t ts_millis, pm_error *err);

#endif
