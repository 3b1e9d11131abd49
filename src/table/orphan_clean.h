/*
 * Orphan file cleanup (issue 13 §2, SEMANTICS.md 7.10; Java's LocalOrphanFilesClean).
 *
 * Candidates, listed FIRST (so a snapshot committed while the cleanup runs is read by the
 * walk that follows, apache/paimon#3074): the files of manifest/, index/, statistics/, of
 * every bucket directory of the data path (<root>[/data-file.path-directory]/<partition
 * levels>/bucket-*) and of the data-file.external-paths roots, whose modification time is
 * older than older_than. Then every file any snapshot, tag or long-lived changelog of any
 * branch references is walked (table_files.h); a candidate whose NAME is referenced
 * anywhere is kept (names, not paths: a file is never deleted for being reached through
 * another spelling of its path). The rest are deleted.
 * In snapshot/ and changelog/ of every branch, files other than snapshot-* / changelog-*,
 * EARLIEST and LATEST that are old enough (temp files of interrupted commits) are deleted too.
 * schema/, tag/, consumer/ and the branch directories themselves are never touched. Hidden
 * temp files of in-flight writes (".<name>.<pid>...tmp") older than older_than are orphans.
 *
 * Safety as Java: a directory that cannot be listed is skipped (its files are not
 * candidates); a referenced file that cannot be read stops everything before the first
 * deletion (the error names it). older_than must be in the past.
 */
#ifndef PM_TABLE_ORPHAN_CLEAN_H
#define PM_TABLE_ORPHAN_CLEAN_H

#include <stddef.h>
#include <stdint.h>

#include "table/table.h"
#include "util/error.h"

typedef struct pm_orphan_options {
  int64_t older_than_millis; /* files modified before this (ms since epoch); 0 = now - 1 day */
  int dry_run;               /* 1: report, delete nothing */
  /* Each file deleted (or, dry run, that would be): path and size. May be NULL. */
  void (*on_file)(void *ctx, const char *path, uint64_t size);
  /* Progress: phase "listing" / "reading" / "deleting", done of total (total 0 = unknown). May be NULL. */
  void (*progress)(void *ctx, const char *phase, uint64_t done, uint64_t total);
  void *ctx;
} pm_orphan_options;

typedef struct pm_orphan_result {
  uint64_t files;          /* files deleted (dry run: that would be) */
  uint64_t bytes;          /* their sizes */
  uint64_t delete_failed;  /* deletions that failed (left in place; not counted above) */
  uint64_t candidates;     /* old-enough files listed */
  uint64_t referenced;     /* references walked */
} pm_orphan_result;

/* Cleans t's table directory (every branch). now_millis: the current time (0 = the clock).
 * older_than at or after now is PAIMON_ERR_INVALID_ARGUMENT. */
int pm_orphan_clean(pm_table *t, const pm_orphan_options *o, int64_t now_millis, pm_orphan_result *res,
                    pm_error *err);

#endif
