/*
 * libpaimon public API: tags (Java's Table.createTag / deleteTag / renameTag and TagManager).
 * Included by paimon/paimon.h; same conventions (see there): status return, `paimon_error *err`
 * last, ownership stated per call, frees accept NULL.
 *
 * A tag is the file tag/tag-<name> of the table handle's branch (`db.t$branch_b` names a branch):
 * the tagged snapshot's JSON, plus tagCreateTime and tagTimeRetained when the tag has a retention,
 * exactly as Java writes it. New tag files are published create-if-absent: of two creators of one
 * name exactly one succeeds, the other gets PAIMON_ERR_CONFLICT; a failed call writes nothing.
 * Names: not blank (Java's rule), no '/', not "." or "..": else PAIMON_ERR_INVALID_ARGUMENT.
 * System-table handles are refused (PAIMON_ERR_INVALID_ARGUMENT).
 *
 * Rollback (Java's rollbackTo, RollbackHelper) of the handle's branch: snapshot/LATEST set to the
 * target, then every later snapshot file deleted (latest first), later long-lived changelogs,
 * and tags of later snapshots. Data files and manifests stay (orphan cleanup removes them).
 * Interrupted, the table stays readable; calling again completes it.
 */
#ifndef PAIMON_TAG_H
#define PAIMON_TAG_H

#include "paimon/paimon.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Creates tag `name` on snapshot snapshot_id (-1: the latest snapshot). time_retained: a
 * duration ("1 d", "12h", "30 min", as Paimon options take them) or NULL for the table's
 * tag.default-time-retained (no retention when that is unset too). A missing snapshot (or an
 * empty table) is PAIMON_ERR_NOT_FOUND; an existing tag PAIMON_ERR_CONFLICT unless
 * ignore_if_exists (then PAIMON_OK and the existing tag is kept). Strings are only read. */
PAIMON_EXPORT paimon_status paimon_table_create_tag(const paimon_table *table, const char *name, int64_t snapshot_id,
                                                    const char *time_retained, int ignore_if_exists,
                                                    paimon_error *err);
/* Deletes tag `name` (PAIMON_ERR_NOT_FOUND when it does not exist) as Java's deleteTag: when the
 * tagged snapshot has expired and no other tag names it, the files only the tag still used are
 * deleted too (after the tag file; files that could not be deleted: PAIMON_ERR_IO, tag gone). */
PAIMON_EXPORT paimon_status paimon_table_delete_tag(const paimon_table *table, const char *name, paimon_error *err);
/* Renames tag `from` to `to`: from must exist (NOT_FOUND), to must not (CONFLICT). */
PAIMON_EXPORT paimon_status paimon_table_rename_tag(const paimon_table *table, const char *from, const char *to,
                                                    paimon_error *err);
/* Tag names of the branch, sorted (0 names when there are none).
 * *names owned by the caller: paimon_free_strings(*names, *n). */
PAIMON_EXPORT paimon_status paimon_table_list_tags(const paimon_table *table, char ***names, size_t *n,
                                                   paimon_error *err);
/* Tag `name`: its snapshot id (snapshot_id may be NULL) and the tag file's JSON text (json may be
 * NULL; *json owned by the caller: paimon_free_string). Missing tag: PAIMON_ERR_NOT_FOUND. */
PAIMON_EXPORT paimon_status paimon_table_get_tag(const paimon_table *table, const char *name, int64_t *snapshot_id,
                                                 char **json, paimon_error *err);

/* Rolls back to snapshot_id (a missing snapshot with a tag of that id: rollback to that tag);
 * neither: PAIMON_ERR_NOT_FOUND. */
PAIMON_EXPORT paimon_status paimon_table_rollback_to_snapshot(const paimon_table *table, int64_t snapshot_id,
                                                              paimon_error *err);
/* Rolls back to tag `name` (its snapshot file is written back when it was expired). */
PAIMON_EXPORT paimon_status paimon_table_rollback_to_tag(const paimon_table *table, const char *name,
                                                         paimon_error *err);
/* Rolls back to the latest snapshot committed at or before ts_millis (epoch milliseconds). */
PAIMON_EXPORT paimon_status paimon_table_rollback_to_timestamp(const paimon_table *table, int64_t ts_millis,
                                                               paimon_error *err);

#ifdef __cplusplus
}
#endif

#endif
