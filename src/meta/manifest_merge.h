/*
 * Writing manifests for a commit and merging a table's base manifest list
 * (SEMANTICS.md 7.4 "Manifest merging"; Java's ManifestFile rolling writer and
 * ManifestFileMerger).
 *
 * Files: every manifest is written through fs under a new name from the path
 * factory (<table>/manifest/manifest-<uuid>-<n>) and becomes visible only
 * complete (temp + publish, create-if-absent). A failure never leaves an
 * incomplete file under a final name; complete files written before the
 * failure are reported (see each call) so the committer can delete them once
 * it knows no snapshot references them.
 *
 * Ownership: metas are appended to a caller-owned pm_manifest_file_metas
 * (strings in its arena). Input arrays are borrowed for the call.
 */
#ifndef PM_META_MANIFEST_MERGE_H
#define PM_META_MANIFEST_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "data/types.h"
#include "io/fs.h"
#include "meta/core_options.h"
#include "meta/manifest.h"
#include "meta/path_factory.h"
#include "util/error.h"

typedef struct pm_manifest_merge_options {
  int64_t target_file_size;     /* manifest.target-file-size: rolling size and "small" threshold (> 0) */
  int32_t merge_min_count;      /* manifest.merge-min-count: tail of small manifests merged only from this many */
  int64_t full_compaction_size; /* manifest.full-compaction-threshold-size (> 0) */
  const pm_data_type *partition_type; /* ROW of the partition columns; NULL / 0 fields = unpartitioned (borrowed) */
  int64_t default_schema_id;    /* _SCHEMA_ID of a manifest without entries (Java: the latest schema id) */
  pm_manifest_write_opts write; /* codec (manifest.compression) and level */
} pm_manifest_merge_options;

/* Fills o from typed table options (manifest.* keys; Java's defaults when
 * unset) with the partition type and default schema id given (borrowed). An
 * unsupported manifest.compression is PAIMON_ERR_INVALID_ARGUMENT naming the
 * key and value. */
int pm_manifest_merge_options_init(pm_manifest_merge_options *o, const pm_core_options *co,
                                   const pm_data_type *partition_type, int64_t default_schema_id, pm_error *err);

/* Writes entries (in order) to one or more new manifest files, rolling to a
 * new file once a file reaches o->target_file_size, and appends one meta per
 * file to out: file name, size, added/deleted counts, partition stats over
 * the entries' partitions (min/max/null counts, as Java's collector), schema
 * id (max of the entries), bucket / level / row-id ranges. n == 0 writes
 * nothing. On error the failed file is discarded (never visible) and out
 * keeps the metas of the files completed before the failure (visible,
 * referenced by nothing: the caller deletes them, pm_manifest_delete_files). */
int pm_manifest_write_rolling(pm_fs *fs, pm_path_factory *pf, const pm_manifest_entry *e, size_t n,
                              const pm_manifest_merge_options *o, pm_manifest_file_metas *out, pm_error *err);

/* Java's ManifestFileMerger over a base list (previous base + previous delta
 * manifests, in order): the merged list, describing the same live file set,
 * is appended to out (copies). *new_files / *n_new receive the full paths of
 * the manifest files this call wrote (malloc'd; pm_free_names), on success
 * AND on failure: they are referenced by no snapshot yet, so the caller
 * deletes them if its commit does not publish them. */
int pm_manifest_merge(pm_fs *fs, pm_path_factory *pf, const pm_manifest_file_meta *in, size_t n,
                      const pm_manifest_merge_options *o, pm_manifest_file_metas *out, char ***new_files,
                      size_t *n_new, pm_error *err);

/* Deletes manifest files by name under pf's manifest directory (a missing
 * file is fine); the first other failure is returned after trying all. */
int pm_manifest_delete_files(pm_fs *fs, pm_path_factory *pf, const pm_manifest_file_meta *metas, size_t n,
                             pm_error *err);

/* Row-tracking tables: list rows without a row-id range (lists written before Java 1.4 had
 * no such fields) get it from their manifest's entries, computed as Java's manifest writer
 * does (min first row id .. max first row id + row count - 1; none when an entry has no first
 * row id), so a list carrying them over agrees with its manifests. Reads only those files. */
int pm_manifest_fill_row_id_ranges(pm_fs *fs, pm_path_factory *pf, pm_manifest_file_metas *v, pm_error *err);

/* Appends a copy of m to v. */
int pm_manifest_file_metas_push(pm_manifest_file_metas *v, const pm_manifest_file_meta *m, pm_error *err);

#endif
