/*
 * Automatic tags after a commit, as Java's TagAutoManager runs them from TableCommitImpl's
 * maintenance (SEMANTICS.md 7.11):
 *   - TagAutoCreation (tag.automatic-creation = process-time | watermark): every snapshot after
 *     the newest automatic tag (or from the earliest one) is given the time of its commit
 *     (timeMillis in sink.process-time-zone, default the local zone) or of its watermark (in
 *     sink.watermark-time-zone, default UTC; snapshots without one are skipped). When that time
 *     minus tag.creation-delay reaches the period after the next tag's, a tag named by the period
 *     before it (tag.creation-period daily | hourly | two-hours in tag.period-formatter
 *     with_dashes | without_dashes | without_dashes_and_spaces, or tag.creation-period-duration
 *     as yyyyMMddHHmm) is created on it (existing name: kept), with tag.default-time-retained;
 *     tag.automatic-completion names it by the next expected period instead. Then the oldest
 *     automatic tags beyond tag.num-retained-max are deleted.
 *   - batch (tag.automatic-creation = batch, after a batch commit, Java's TagBatchCreation):
 *     tag tag.batch.customized-name or batch-write-<yyyy-MM-dd> of the latest snapshot
 *     (replaced when it exists), then the oldest tags beyond tag.num-retained-max deleted.
 *   - TagTimeExpire (tag.time-expire-enabled, default true): tags whose tagCreateTime plus
 *     tagTimeRetained lies before now are deleted.
 * Deleting a tag (beyond the maximum, expired, or replaced by batch) removes its tag file and
 * then the files only it held, as Java's TagDeletion (table/expire.h pm_tag_delete_clean: files
 * the neighbouring tags, the earliest snapshot and other branches use stay). Tag files are
 * published create-if-absent (meta/tag.h), so a stop leaves every tag whole (a stop after a tag
 * file went leaves unreferenced files only, for orphan cleanup); the next run resumes from the
 * newest automatic tag.
 * Time zones: unset (local), "UTC" / "GMT" / "Z", or a fixed offset ("+08:00", "UTC+8",
 * "GMT-05:30"); other zone ids are INVALID_ARGUMENT naming the option key.
 */
#ifndef PM_TABLE_TAG_AUTO_H
#define PM_TABLE_TAG_AUTO_H

#include <stdint.h>

#include "table/table.h"

/* Runs the maintenance above on t's branch. batch_commit: the commit was a batch one (the batch
 * mode only runs then). now_ms: the current time (epoch ms; the clock seam for tests).
 * *created / *deleted (may be NULL) count the tags created / deleted. Option errors are
 * INVALID_ARGUMENT naming the key. */
int pm_tag_auto_run(pm_table *t, int batch_commit, int64_t now_ms, int *created, int *deleted, pm_error *err);

#endif
