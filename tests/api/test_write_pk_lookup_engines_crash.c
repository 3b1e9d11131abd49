/*
 * Crash stops of a lookup-changelog write with merge-engine = partial-update
 * (its lookup compaction merges the looked-up records through temporary
 * files): the crash test of test_write_pk_changelog_crash.c (see there for
 * the checks: paimon-table check --after-crash, no identifier published
 * twice, our reader and paimon-table read = the model, the changelog never
 * half-visible) with the driver's table options merge-engine =
 * partial-update and partial-update.remove-record-on-delete = true (the
 * driver sets every column, so the model is deduplicate's); a binary of its
 * own to keep each within the time budget.
 */
#define PK_CL_CRASH_ENGINES 1
#include "test_write_pk_changelog_crash.c"
