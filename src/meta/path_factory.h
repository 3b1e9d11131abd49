/*
 * New file names of a table, as Java's FileStorePathFactory / DataFilePathFactory
 * make them: one random UUID per factory (a writer) and a counter per kind,
 * starting at 0:
 *   <root>/manifest/manifest-<uuid>-<n>
 *   <root>/manifest/manifest-list-<uuid>-<n>
 *   <root>/index/index-<uuid>-<n>
 *   <bucket dir>/data-<uuid>-<n>.<format>      (changelog-<uuid>-<n>.<format>)
 * where "data-" / "changelog-" are data-file.prefix / changelog-file.prefix
 * when set (pm_path_factory_set_prefixes).
 * Together with pm_snapshot_manager and pm_schema_manager (meta/snapshot.h,
 * meta/schema.h) these are the table's path managers; the files themselves
 * are written through fs. Thread-safe (counters are atomic). Every returned
 * path is malloc'd (NULL when out of memory).
 */
#ifndef PM_META_PATH_FACTORY_H
#define PM_META_PATH_FACTORY_H

#include <stdatomic.h>
#include <stdint.h>

#include "io/fs.h"
#include "util/random.h"

typedef struct pm_path_factory {
  pm_fs *fs;              /* borrowed */
  const char *table_root; /* borrowed */
  char uuid[PM_UUID_TEXT_SIZE];
  atomic_int_fast64_t manifests, manifest_lists, index_files, data_files;
  const char *data_prefix, *changelog_prefix; /* borrowed; NULL = "data-" / "changelog-" */
} pm_path_factory;

/* Initializes pf for the table at table_root (both pointers must outlive pf) with a new UUID. */
void pm_path_factory_init(pm_path_factory *pf, pm_fs *fs, const char *table_root);
/* The table's data-file.prefix / changelog-file.prefix (pm_core_options data_file_prefix /
 * changelog_file_prefix; NULL = Java's defaults); both must outlive pf. */
void pm_path_factory_set_prefixes(pm_path_factory *pf, const char *data_prefix, const char *changelog_prefix);
char *pm_path_factory_new_manifest(pm_path_factory *pf);
char *pm_path_factory_new_manifest_list(pm_path_factory *pf);
char *pm_path_factory_new_index_file(pm_path_factory *pf);
/* A data file (changelog = 0) or changelog file (1) in bucket_dir with extension format ("parquet"). */
char *pm_path_factory_new_data_file(pm_path_factory *pf, const char *bucket_dir, const char *format, int changelog);

#endif
