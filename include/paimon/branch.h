/*
 * libpaimon public API: branches (Java's Table.createBranch / deleteBranch / fastForward and
 * FileSystemBranchManager). Included by paimon/paimon.h; same conventions (see there): status
 * return, `paimon_error *err` last, ownership stated per call, frees accept NULL.
 *
 * A branch `b` is the metadata directory <table>/branch/branch-b/ (its own schema/, snapshot/,
 * tag/); data files and manifests are shared with the table directory. Open a branch for
 * reading or writing as `db.t$branch_b`, or with the table option 'branch' = b given to
 * paimon_catalog_get_table (as Java's FileStoreTableFactory reads it); commits to that handle
 * go to the branch only.
 * Names: not blank, not "main", not purely numeric (Java's rules), no '/', not "." or "..":
 * else PAIMON_ERR_INVALID_ARGUMENT. System-table handles are refused (INVALID_ARGUMENT).
 * Each call works on the handle's branch (main for `db.t`). Every new file is published
 * atomically; a stop at any point leaves the table readable (see each call).
 */
#ifndef PAIMON_BRANCH_H
#define PAIMON_BRANCH_H

#include "paimon/paimon.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Creates branch `name` of the handle's branch: from tag `from_tag` (not NULL: the tag's
 * snapshot, the tag and the schemas up to the snapshot's), else from snapshot snapshot_id (>= 0),
 * else empty (the schemas only; the first commit to it is its snapshot 1). Files are written
 * create-if-absent, schemas first, the snapshot and its hints, the tag last (a stop leaves an
 * empty or shorter branch: paimon_table_delete_branch removes it). An existing branch is
 * PAIMON_ERR_CONFLICT unless ignore_if_exists (then PAIMON_OK, nothing written); a missing tag
 * or snapshot PAIMON_ERR_NOT_FOUND. Strings are only read. */
PAIMON_EXPORT paimon_status paimon_table_create_branch(const paimon_table *table, const char *name,
                                                       const char *from_tag, int64_t snapshot_id,
                                                       int ignore_if_exists, paimon_error *err);
/* Deletes branch `name` and its metadata (PAIMON_ERR_NOT_FOUND when it does not exist; refused
 * with PAIMON_ERR_INVALID_ARGUMENT while it is the table's scan.fallback-branch). Data files stay
 * (orphan cleanup removes those nothing else uses). Stopped, a rerun completes it. */
PAIMON_EXPORT paimon_status paimon_table_delete_branch(const paimon_table *table, const char *name,
                                                       paimon_error *err);
/* Branch names of the table (without "main"), sorted (0 names when there are none).
 * *names owned by the caller: paimon_free_strings(*names, *n). */
PAIMON_EXPORT paimon_status paimon_table_list_branches(const paimon_table *table, char ***names, size_t *n,
                                                       paimon_error *err);
/* Java's fastForward: the handle's branch (main for `db.t`) becomes branch `name`: its snapshots
 * from the branch's earliest one on, their schemas and tags are replaced by the branch's (older
 * snapshots stay). Refused (INVALID_ARGUMENT): `name` is main or the handle's branch, or the
 * branch has no snapshot; a missing branch PAIMON_ERR_NOT_FOUND. Stopped, the table reads as
 * before or as a prefix of the result; a rerun completes it. */
PAIMON_EXPORT paimon_status paimon_table_fast_forward(const paimon_table *table, const char *name,
                                                      paimon_error *err);

#ifdef __cplusplus
}
#endif

#endif
