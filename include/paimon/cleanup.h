/*
 * libpaimon public API: table maintenance (issue 13): orphan file cleanup.
 * Include it after (or instead of) paimon/paimon.h; same conventions (see there):
 * every call returns a status and fills *err on failure; handles passed in are
 * borrowed (the caller keeps owning them); results are caller-owned plain structs.
 */
#ifndef PAIMON_CLEANUP_H
#define PAIMON_CLEANUP_H

#include <stdint.h>

#include "paimon/paimon.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Called for each file removed (dry run: that would be removed): its path and size. The
 * strings are valid during the call only. */
typedef void (*paimon_file_fn)(void *ctx, const char *path, uint64_t size);
/* Progress of a long operation: a phase name ("listing", "reading", "deleting"), done of
 * total (total 0 = not known yet). */
typedef void (*paimon_progress_fn)(void *ctx, const char *phase, uint64_t done, uint64_t total);

/* What an orphan cleanup did (caller-owned memory, filled by the call). */
typedef struct paimon_orphan_result {
  uint64_t files;         /* files deleted (dry run: that would be deleted) */
  uint64_t bytes;         /* their sizes */
  uint64_t delete_failed; /* deletions the file system refused (files left in place) */
  uint64_t candidates;    /* files old enough to be considered */
} paimon_orphan_result;

/*
 * Java's remove_orphan_files: deletes the files in the table directory (manifest/, index/,
 * statistics/, bucket directories, data-file.external-paths roots, leftovers in snapshot/ and
 * changelog/ of every branch) that no snapshot, tag or long-lived changelog of any branch
 * references and whose modification time is before older_than_millis (ms since the epoch;
 * 0 = now minus one day; a value that is not in the past is PAIMON_ERR_INVALID_ARGUMENT).
 * Directories that cannot be listed are skipped; a referenced file that cannot be read stops
 * the call before anything is deleted (the error names the file and its snapshot).
 * dry_run = 1 deletes nothing and reports what would go. on_file / progress may be NULL;
 * ctx is passed to both. out may be NULL. table is borrowed.
 */
PAIMON_EXPORT paimon_status paimon_table_remove_orphan_files(const paimon_table *table, int64_t older_than_millis,
                                                             int dry_run, paimon_file_fn on_file,
                                                             paimon_progress_fn progress, void *ctx,
                                                             paimon_orphan_result *out, paimon_error *err);

#ifdef __cplusplus
}
#endif

#endif
