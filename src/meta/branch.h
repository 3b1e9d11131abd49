/*
 * Branches (Java's BranchManager / FileSystemBranchManager, SEMANTICS.md 7.12): a branch `b`
 * of a table is the metadata directory <table>/branch/branch-b/ with its own schema/,
 * snapshot/ and tag/ (data files and manifests stay in the table directory and are shared).
 * Create (empty: the source branch's schemas; from a tag or a snapshot: that snapshot plus the
 * schemas up to its schema id), delete, fast-forward (the target branch becomes the branch).
 * Listing is pm_branch_list (meta/schema.h).
 *
 * Crash safety: every file is published atomically, in an order where each stop leaves a
 * readable table (see the functions); new files of a created branch create-if-absent, so of
 * two creators of one name exactly one succeeds (the other: PAIMON_ERR_CONFLICT).
 */
#ifndef PM_META_BRANCH_H
#define PM_META_BRANCH_H

#include <stdint.h>

#include "meta/schema.h"
#include "meta/snapshot.h"

/* Java's rules (not "main", not blank, not purely numeric) plus: no '/', not "." / "..".
 * INVALID_ARGUMENT naming the branch. */
int pm_branch_validate_name(const char *name, pm_error *err);

/* *exists = 1 when <table>/branch/branch-<name> exists. */
int pm_branch_exists(pm_fs *fs, const char *table_root, const char *name, int *exists, pm_error *err);

/* Creates branch `name` from branch `source` (NULL = main):
 *   from_tag != NULL: the tag's snapshot (the snapshot file copied, or written from the tag when
 *     it expired), the tag itself, and the source's schemas 0..the snapshot's schema id;
 *   else snapshot_id >= 0: that snapshot of the source (NOT_FOUND when missing) and its schemas;
 *   else an empty branch: the source's schemas 0..latest.
 * Order (a stop leaves a branch that reads as an earlier, consistent state): schemas ascending,
 * then the snapshot, then its EARLIEST / LATEST hints (written so the branch is shaped as a
 * committed one; Java's readers list when they are missing), then the tag.
 * An existing branch: CONFLICT "branch '<n>' already exists" unless ignore_if_exists (then 0
 * and nothing written); a missing tag NOT_FOUND. *created (may be NULL) = 1 when written. */
int pm_branch_create(pm_fs *fs, const char *table_root, const char *source, const char *name, const char *from_tag,
                     int64_t snapshot_id, int ignore_if_exists, int *created, pm_error *err);

/* Deletes branch `name` (NOT_FOUND when it does not exist): tags, then LATEST, the snapshots
 * highest first (EARLIEST before the last one), then the schemas highest first, then the
 * directories (a stop leaves a shorter branch; rerunning completes the deletion). Data files
 * stay (orphan cleanup removes what nothing else references). */
int pm_branch_delete(pm_fs *fs, const char *table_root, const char *name, pm_error *err);

/* Fast-forwards branch `target` (NULL = main) to branch `name` (Java's fastForward): with E the
 * branch's earliest snapshot and S its schema id, the target's LATEST hint is deleted, its
 * snapshots >= E (highest first), schemas >= S no remaining snapshot uses (highest first) and
 * tags of snapshots >= E are deleted; then the branch's schemas, snapshots (ascending) and tags
 * are copied over (overwriting) and the hints written. Java copies snapshots before schemas;
 * schemas go first here so that no stop leaves a snapshot whose schema is missing. A rerun
 * after a stop completes it. Refused (INVALID_ARGUMENT): name main / blank / = target; a missing
 * branch NOT_FOUND; a branch without snapshots INVALID_ARGUMENT. */
int pm_branch_fast_forward(pm_fs *fs, const char *table_root, const char *target, const char *name, pm_error *err);

#endif
