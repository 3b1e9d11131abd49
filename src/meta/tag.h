/*
 * Tag operations (Java's TagManager, SEMANTICS.md 7.11) on one branch of a table: create from a
 * snapshot (optionally with a retention: tagCreateTime / tagTimeRetained as Java's Tag writes
 * them, FORMAT.md 3.5), rename, delete the tag file, name validation. Reading and listing tags
 * are pm_tag_read / pm_tag_list (meta/snapshot.h).
 *
 * Publishing: a new tag file is written create-if-absent (a racing creator of the same name
 * loses with PAIMON_ERR_CONFLICT, nothing overwritten); rename publishes the target
 * create-if-absent before the source is deleted.
 */
#ifndef PM_META_TAG_H
#define PM_META_TAG_H

#include <stdint.h>

#include "meta/snapshot.h"

/* Java's check: not NULL, not empty, not whitespace only; additionally refused here: '/', and
 * names "." / ".." (they would leave tag/). INVALID_ARGUMENT naming `what` ("tag name"). */
int pm_tag_validate_name(const char *name, const char *what, pm_error *err);

/* Fills s's tagCreateTime (now_us, epoch microseconds, in local time as a Jackson LocalDateTime
 * array, microsecond precision as Java's LocalDateTime.now()) and tagTimeRetained (decimal
 * seconds with 9 fraction digits, as Jackson writes a Duration). */
int pm_tag_set_retention(pm_snapshot *s, int64_t now_us, int64_t retained_ms, pm_error *err);

/* Creates tag `name` on snapshot `snapshot_id` (-1: the latest snapshot) of m's branch.
 * retained_ms < 0: no retention (the file is the snapshot JSON, as Java writes it then).
 * Missing snapshot: NOT_FOUND naming it; existing tag: CONFLICT "tag '<n>' already exists"
 * unless ignore_if_exists (then 0 and nothing written). *created (may be NULL) = 1 when written. */
int pm_tag_create(const pm_snapshot_manager *m, const char *name, int64_t snapshot_id, int64_t retained_ms,
                  int ignore_if_exists, int *created, pm_error *err);

/* Creates tag `name` from snapshot s (already read) as pm_tag_create. */
int pm_tag_create_from(const pm_snapshot_manager *m, const char *name, const pm_snapshot *s, int64_t retained_ms,
                       int ignore_if_exists, int *created, pm_error *err);

/* Renames tag from -> to: from must exist (NOT_FOUND), to must not (CONFLICT). */
int pm_tag_rename(const pm_snapshot_manager *m, const char *from, const char *to, pm_error *err);

/* Deletes the tag file only (no data-file cleanup). Missing tag: NOT_FOUND. */
int pm_tag_delete_file(const pm_snapshot_manager *m, const char *name, pm_error *err);

#endif
