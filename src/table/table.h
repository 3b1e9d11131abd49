/*
 * The internal table handle: where a table lives, which branch is read,
 * its latest (read) schema, its effective options and the path helpers every
 * reader needs (bucket directories, data / index file paths, external path
 * rewrites).
 *
 * A pm_table is immutable after pm_table_open except for the schema cache
 * and the fallback-branch table opened on first use, each guarded by a
 * mutex, so one handle may be shared by several reader threads. Ownership: pm_table_open returns a handle the caller frees with
 * pm_table_free; every pointer inside it is owned by the handle.
 */
#ifndef PM_TABLE_TABLE_H
#define PM_TABLE_TABLE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "io/fs.h"
#include "meta/core_options.h"
#include "meta/schema.h"
#include "meta/snapshot.h"
#include "util/error.h"
#include "util/executor.h"

/* Options are the ordered string map of meta/schema.h (pm_options_get/set/...). */

typedef enum pm_bucket_mode {
  PM_BUCKET_FIXED,    /* bucket > 0: hash(bucket key) % bucket */
  PM_BUCKET_DYNAMIC,  /* PK table, bucket = -1 (HASH index) */
  PM_BUCKET_UNAWARE,  /* append table, bucket = -1: everything in bucket-0 */
  PM_BUCKET_POSTPONE  /* bucket = -2: bucket-postpone/ */
} pm_bucket_mode;

/* One "FROM=TO" path prefix rewrite (catalog option `path-rewrite`, several
 * separated by ';'): a stored path starting with FROM is opened as TO + rest.
 * Used for tables whose manifests record external paths of another machine. */
typedef struct pm_path_rewrite {
  char *from;
  char *to;
} pm_path_rewrite;

typedef struct pm_table {
  atomic_int refs; /* pm_table_retain / pm_table_free */
  pm_fs *fs;       /* every file of the table is read through it (a reference) */
  char *warehouse; /* catalog root, NULL when opened by path */
  char *database;  /* "default" when opened by path and not derivable */
  char *name;      /* table name without branch suffix */
  char *root;      /* table root directory: manifests, index/, data dirs */
  char *branch;    /* "main" or the branch name */
  char *meta_root; /* root, or <root>/branch/branch-<b>: schema/, snapshot/, tag/ */

  pm_table_schema *schema; /* latest schema of the branch = read schema (owned) */
  int64_t schema_id;

  /* Effective options: latest schema options overlaid with dynamic options. */
  pm_options options;
  /* Options given at open time that are not table options (catalog + dynamic). */
  pm_options dynamic_options;
  /* The effective options, typed (meta/core_options.h): read options from here. */
  pm_core_options co;
  /* An invalid option value (code 0 when all are valid): planning and reading fail with it. */
  pm_error options_error;

  char **partition_keys; /* declared order */
  size_t n_partition_keys;
  char **primary_keys; /* declared order (may include partition keys) */
  size_t n_primary_keys;
  char **trimmed_primary_keys; /* primary keys minus partition keys */
  size_t n_trimmed_primary_keys;
  char **bucket_keys; /* `bucket-key` or trimmed primary keys */
  size_t n_bucket_keys;

  int32_t bucket; /* `bucket` option (default -1) */
  pm_bucket_mode bucket_mode;
  pm_merge_engine merge_engine;
  int deletion_vectors;        /* deletion-vectors.enabled */
  int dv_merge_on_read;        /* deletion-vectors.merge-on-read */
  int index_in_data_dir;       /* index-file-in-data-file-dir */
  int data_evolution;          /* data-evolution.enabled */
  int row_tracking;            /* row-tracking.enabled */
  int partition_legacy_name;   /* partition.legacy-name (default true) */
  char *partition_default_name; /* partition.default-name */
  char *data_path_directory;    /* data-file.path-directory or NULL */
  pm_changelog_producer changelog_producer; /* changelog-producer (default none) */

  pm_path_rewrite *rewrites;
  size_t n_rewrites;

  /* Schema cache by id (guarded by schema_lock). */
  pthread_mutex_t schema_lock;
  pm_table_schema **schema_cache;
  int64_t *schema_cache_ids;
  size_t n_schema_cache;

  /* The scan.fallback-branch table, opened once on first use (pm_table_fallback; guarded by fallback_lock). */
  pthread_mutex_t fallback_lock;
  struct pm_table *fallback;
} pm_table;

/*
 * Opens the table at `root` (a directory holding schema/), reading branch
 * `branch` (NULL or "main" = main). `dynamic` options override table options
 * (time travel, scan.*, split sizes...); `path-rewrite` = "FROM=TO[;...]"
 * may come from either the dynamic or the catalog options (dynamic rules
 * are tried first). Either may be NULL. A table with no schema file is
 * PAIMON_ERR_NOT_FOUND naming the schema directory. If the table option
 * `scan.fallback-branch` is set, the planner (scan.c) and the reader
 * (pm_read_splits_with_fallback) use that branch through pm_table_fallback.
 * database/name may be NULL (derived from the path).
 */
int pm_table_open_path(const char *root, const char *database, const char *name, const char *branch,
                       const pm_options *dynamic, const pm_options *catalog, pm_table **out, pm_error *err);
/* pm_table_open_path on the given file system (the table takes a reference); the path form
 * uses pm_fs_local(). */
int pm_table_open_fs(pm_fs *fs, const char *root, const char *database, const char *name, const char *branch,
                     const pm_options *dynamic, const pm_options *catalog, pm_table **out, pm_error *err);
/* Same table, another branch / extra dynamic options (overlaid on t's dynamic options). branch NULL:
 * the option 'branch' among extra_dynamic when given, else t's own branch. */
int pm_table_reopen(const pm_table *t, const char *branch, const pm_options *extra_dynamic, pm_table **out,
                    pm_error *err);
/* Reference counting: pm_table_open* / pm_table_reopen return one reference;
 * pm_table_retain adds one (returns t), pm_table_free drops one and frees the
 * handle with the last. A handle never changes its schema, so whatever holds
 * a reference (a plan's reader, a stream) reads under the schema it was
 * opened with even after newer schema files appear. */
pm_table *pm_table_retain(pm_table *t); /* NULL ok */
void pm_table_free(pm_table *t);        /* NULL ok */

/* The table of branch `scan.fallback-branch` (t's dynamic options overlaid, as pm_table_reopen),
 * opened on the first call and kept by t, so planning and every read of t share one handle:
 * *out is borrowed (valid while t lives; pm_table_retain to keep it longer), NULL when the option
 * is not set. Thread-safe. */
int pm_table_fallback(pm_table *t, pm_table **out, pm_error *err);

/* Effective option value or NULL. */
static inline const char *pm_table_option(const pm_table *t, const char *key) {
  return pm_options_get(&t->options, key);
}
/* file-io.read-coalesce.max-gap / .max-block (memory sizes; defaults 1 MiB / 8 MiB, io/coalesce.h):
 * how blob payload reads are merged. An invalid value fails naming the key. */
int pm_table_read_coalesce(const pm_table *t, uint64_t *max_gap, uint64_t *max_block, pm_error *err);
/* 0, or the error of an invalid option value copied to *err (every plan and read checks it). */
static inline int pm_table_options_ok(const pm_table *t, pm_error *err) {
  if (!t->options_error.code) return 0;
  if (err) *err = t->options_error;
  return (int)t->options_error.code;
}
/* The executor of the table's operations (`threads` option; 1 = single-threaded). */
static inline pm_executor pm_table_executor(const pm_table *t) {
  pm_executor e = {t->co.threads};
  return e;
}
/* 1 for primary-key tables. */
static inline int pm_table_has_pk(const pm_table *t) { return t->n_primary_keys > 0; }

/* Schema with the given id (cached; owned by t, valid until pm_table_free).
 * Missing file = PAIMON_ERR_NOT_FOUND naming it. Thread-safe. */
int pm_table_schema_by_id(pm_table *t, int64_t schema_id, const pm_table_schema **out, pm_error *err);

/* Path managers of the table's branch (values borrowing from t). */
static inline pm_snapshot_manager pm_table_snapshots(const pm_table *t) {
  return pm_snapshot_manager_of(t->fs, t->root, strcmp(t->branch, "main") ? t->branch : NULL);
}
static inline pm_schema_manager pm_table_schemas(const pm_table *t) {
  return pm_schema_manager_of(t->fs, t->root, strcmp(t->branch, "main") ? t->branch : NULL);
}

/* Path of <meta_root>/<sub> (e.g. "snapshot/snapshot-3"). Caller frees. */
char *pm_table_meta_path(const pm_table *t, const char *sub);
/* Path of <root>/<sub> (e.g. "manifest/manifest-x"). Caller frees. */
char *pm_table_root_path(const pm_table *t, const char *sub);

/* Turns a path string stored in metadata (external paths, "FILE:/x", "file:///x")
 * into a local path: applies the first matching rewrite, then strips a
 * `file:` scheme (any case). *out is malloc'd. */
int pm_table_resolve_path(const pm_table *t, const char *stored, char **out, pm_error *err);

/* Bucket directory of (partition dir, bucket): <root>[/<data-file.path-directory>][/<partition_dir>]/bucket-<b>
 * (bucket-postpone for -2). partition_dir is "k=v/k2=v2" (escaped) or "" / NULL
 * for unpartitioned tables. *out is malloc'd. */
int pm_table_bucket_path(const pm_table *t, const char *partition_dir, int32_t bucket, char **out, pm_error *err);

/* Local path of a data file: the resolved external path if non-NULL, else bucket_path/file_name. */
int pm_table_data_file_path(const pm_table *t, const char *bucket_path, const char *file_name,
                            const char *external_path, char **out, pm_error *err);

/* Local path of an index file (deletion vectors, HASH): the resolved external
 * path if non-NULL; else bucket_path/name when index-file-in-data-file-dir;
 * else <root>/index/<name>. */
int pm_table_index_file_path(const pm_table *t, const char *bucket_path, const char *file_name,
                             const char *external_path, char **out, pm_error *err);

/* Escapes one partition key or value the way Java names directories (FORMAT §1.2). */
int pm_partition_escape(const char *s, char **out, pm_error *err);

#endif
