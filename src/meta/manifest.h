/*
 * Manifest metadata (FORMAT.md 4): DataFileMeta, ManifestEntry (manifest-*),
 * ManifestFileMeta (manifest-list-*), IndexManifestEntry (index-manifest-*),
 * and the deletion-file references attached to splits.
 *
 * Memory: decoded objects never own memory themselves. Every string, byte
 * array and list points into a pm_arena owned by the container they were
 * decoded into (pm_manifest_entries, pm_manifest_file_metas,
 * pm_index_entries) and dies with it. To keep an object beyond its
 * container, copy it into another arena (pm_data_file_meta_copy, ...).
 *
 * Null conventions: optional scalars have a has_ flag; optional strings are
 * NULL; optional bytes/lists have an is_null flag.
 *
 * BinaryRow bytes (partition, min/max key, stats min/max) are kept exactly as
 * stored in manifests: int32 BE arity + BinaryRow bytes (FORMAT.md 5.6);
 * decode them with data/binary_row.h.
 */
#ifndef PM_META_MANIFEST_H
#define PM_META_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include "data/types.h"
#include "io/fs.h"
#include "meta/arena.h"
#include "util/buf.h"
#include "util/compress.h"
#include "util/error.h"

typedef struct pm_bytes {
  const uint8_t *data; /* arena memory (may be NULL when len == 0) */
  size_t len;
} pm_bytes;

typedef struct pm_str_list {
  const char **items; /* arena array of NUL-terminated arena strings */
  int32_t n;
  int is_null;        /* nullable lists only: 1 = the list itself is null */
} pm_str_list;

/* SimpleStats (FORMAT.md 5.7). */
typedef struct pm_simple_stats {
  pm_bytes min_values;  /* serialized BinaryRow (arity prefix) */
  pm_bytes max_values;
  int64_t *null_counts; /* n_null_counts values; PM_NULL_COUNT_UNKNOWN = null element */
  int32_t n_null_counts;
  int null_counts_is_null; /* the whole _NULL_COUNTS array is null */
} pm_simple_stats;

#define PM_NULL_COUNT_UNKNOWN INT64_MIN

typedef enum pm_file_kind { PM_FILE_ADD = 0, PM_FILE_DELETE = 1 } pm_file_kind;
typedef enum pm_file_source { PM_SOURCE_NULL = -1, PM_SOURCE_APPEND = 0, PM_SOURCE_COMPACT = 1 } pm_file_source;

/* DataFileMeta (FORMAT.md 4.4 `_FILE`; SEMANTICS.md 1.3 / 10.1). */
typedef struct pm_data_file_meta {
  const char *file_name;         /* _FILE_NAME */
  int64_t file_size;             /* _FILE_SIZE */
  int64_t row_count;             /* _ROW_COUNT */
  pm_bytes min_key;              /* _MIN_KEY */
  pm_bytes max_key;              /* _MAX_KEY */
  pm_simple_stats key_stats;     /* _KEY_STATS */
  pm_simple_stats value_stats;   /* _VALUE_STATS */
  int64_t min_sequence_number;   /* _MIN_SEQUENCE_NUMBER */
  int64_t max_sequence_number;   /* _MAX_SEQUENCE_NUMBER */
  int64_t schema_id;             /* _SCHEMA_ID */
  int32_t level;                 /* _LEVEL */
  pm_str_list extra_files;       /* _EXTRA_FILES (never null) */
  int64_t creation_time_millis;  /* _CREATION_TIME: local wall-clock millis */
  int has_creation_time;
  int64_t delete_row_count;      /* _DELETE_ROW_COUNT */
  int has_delete_row_count;
  pm_bytes embedded_index;       /* _EMBEDDED_FILE_INDEX */
  int has_embedded_index;
  int8_t file_source;            /* _FILE_SOURCE: pm_file_source (-1 = null) */
  pm_str_list value_stats_cols;  /* _VALUE_STATS_COLS (nullable) */
  const char *external_path;     /* _EXTERNAL_PATH (NULL = null) */
  int64_t first_row_id;          /* _FIRST_ROW_ID */
  int has_first_row_id;
  pm_str_list write_cols;        /* _WRITE_COLS (nullable) */
  int64_t *write_cols_sequences; /* _WRITE_COLS_SEQUENCES (nullable) */
  int32_t n_write_cols_sequences;
  int write_cols_sequences_is_null;
} pm_data_file_meta;

/* ManifestEntry (FORMAT.md 4.4). */
typedef struct pm_manifest_entry {
  int8_t kind;           /* pm_file_kind */
  pm_bytes partition;    /* _PARTITION (arity prefix + BinaryRow) */
  int32_t bucket;        /* _BUCKET */
  int32_t total_buckets; /* _TOTAL_BUCKETS */
  pm_data_file_meta file;
} pm_manifest_entry;

/* ManifestFileMeta: one row of a manifest list (FORMAT.md 4.3). */
typedef struct pm_manifest_file_meta {
  const char *file_name;
  int64_t file_size;
  int64_t num_added_files;
  int64_t num_deleted_files;
  pm_simple_stats partition_stats;
  int64_t schema_id;
  int32_t min_bucket, max_bucket; int has_bucket_range; /* _MIN/_MAX_BUCKET */
  int32_t min_level, max_level; int has_level_range;    /* _MIN/_MAX_LEVEL */
  int64_t min_row_id, max_row_id; int has_row_id_range; /* _MIN/_MAX_ROW_ID */
} pm_manifest_file_meta;

/* DeletionVectorMeta: one item of _DELETIONS_VECTORS_RANGES. */
typedef struct pm_dv_range {
  const char *data_file_name; /* f0 */
  int32_t offset;             /* f1: offset of the DV's size field in the index file */
  int32_t length;             /* f2: see FORMAT.md 7.3 */
  int64_t cardinality;        /* _CARDINALITY */
  int has_cardinality;
} pm_dv_range;

/* _GLOBAL_INDEX record (FORMAT.md 4.5). */
typedef struct pm_global_index_meta {
  int64_t row_range_start;
  int64_t row_range_end; /* inclusive */
  int32_t index_field_id;
  int32_t *extra_field_ids;
  int32_t n_extra_field_ids;
  int extra_field_ids_is_null;
  pm_bytes index_meta;
  int has_index_meta;
  pm_bytes source_meta;
  int has_source_meta;
} pm_global_index_meta;

#define PM_INDEX_TYPE_HASH "HASH"
#define PM_INDEX_TYPE_DV "DELETION_VECTORS"

/* IndexFileMeta part of an index-manifest entry (also used in commit messages). */
typedef struct pm_index_file_meta {
  const char *index_type; /* _INDEX_TYPE */
  const char *file_name;  /* _FILE_NAME */
  int64_t file_size;
  int64_t row_count;
  pm_dv_range *dv_ranges; /* _DELETIONS_VECTORS_RANGES */
  int32_t n_dv_ranges;
  int dv_ranges_is_null;
  const char *external_path; /* _EXTERNAL_PATH (NULL = null) */
  pm_global_index_meta global_index;
  int has_global_index;
} pm_index_file_meta;

/* IndexManifestEntry (FORMAT.md 4.5). */
typedef struct pm_index_manifest_entry {
  int8_t kind;        /* pm_file_kind */
  pm_bytes partition; /* arity prefix + BinaryRow */
  int32_t bucket;
  pm_index_file_meta index_file;
} pm_index_manifest_entry;

/* Deletion file reference of a split (path of the DV index file, the DV's
 * offset / length within it and its cardinality). */
typedef struct pm_deletion_file {
  const char *path;
  int64_t offset;
  int64_t length;
  int64_t cardinality; /* -1 = null (unknown) */
  /* In memory instead of a file (the primary-key writer's compaction reads
   * its inputs with the bucket's current, maybe uncommitted vectors):
   * borrowed, used when path is NULL. */
  const struct pm_deletion_vector *vector;
} pm_deletion_file;

/* ---- containers (own the arena the objects live in) ---- */

typedef struct pm_manifest_entries {
  pm_manifest_entry *items;
  size_t n, cap;
  pm_arena arena;
} pm_manifest_entries;

typedef struct pm_manifest_file_metas {
  pm_manifest_file_meta *items;
  size_t n, cap;
  pm_arena arena;
} pm_manifest_file_metas;

typedef struct pm_index_entries {
  pm_index_manifest_entry *items;
  size_t n, cap;
  pm_arena arena;
} pm_index_entries;

void pm_manifest_entries_init(pm_manifest_entries *v);
void pm_manifest_entries_clear(pm_manifest_entries *v); /* frees everything (big buffers: to its cache, if any) */
/* Shares a memory cache (arena.h) with other containers of one planning
 * pass: call on an empty container; it holds a reference until cleared. */
void pm_manifest_entries_use_cache(pm_manifest_entries *v, pm_mem_cache *c);
void pm_manifest_file_metas_init(pm_manifest_file_metas *v);
void pm_manifest_file_metas_clear(pm_manifest_file_metas *v);
void pm_manifest_file_metas_use_cache(pm_manifest_file_metas *v, pm_mem_cache *c);
void pm_index_entries_init(pm_index_entries *v);
void pm_index_entries_clear(pm_index_entries *v);
void pm_index_entries_use_cache(pm_index_entries *v, pm_mem_cache *c);

/* ---- lazy filtering ---- */

/* What a filter sees of an entry before its DataFileMeta is materialized.
 * partition points into decoder memory, valid only during the call. */
typedef struct pm_entry_head {
  int8_t kind;
  const uint8_t *partition; /* arity prefix + BinaryRow */
  size_t partition_len;
  int32_t bucket;
  int32_t total_buckets;
  int32_t level;
  const char *file_name;    /* NOT NUL-terminated: file_name_len bytes */
  size_t file_name_len;
} pm_entry_head;

/* Returns nonzero to keep the entry. */
typedef int (*pm_entry_filter_fn)(void *ctx, const pm_entry_head *head);

/* ---- readers (Avro, or ORC detected by magic); files are read through fs ---- */

/* Appends the entries of manifest file `path` to out (objects in out->arena).
 * filter may be NULL (keep all). Entries are kept in file order. */
int pm_manifest_read(pm_fs *fs, const char *path, pm_entry_filter_fn filter, void *filter_ctx, pm_manifest_entries *out,
                     pm_error *err);
/* Same from memory; name is used in messages. */
int pm_manifest_decode(const uint8_t *data, size_t len, const char *name, pm_entry_filter_fn filter,
                       void *filter_ctx, pm_manifest_entries *out, pm_error *err);
/* Two-stage filtering. head_filter (may be NULL) runs first and must look only
 * at kind, partition, bucket and total_buckets (Avro manifests in Java's
 * current field layout call it before the _FILE record is read: level is -1
 * and file_name NULL, and a rejected entry is skipped with nothing copied;
 * other layouts and ORC may pass the full head). filter (may be NULL) then
 * sees the full head as above. Both get ctx. */
typedef struct pm_manifest_filters {
  pm_entry_filter_fn head_filter;
  pm_entry_filter_fn filter;
  void *ctx;
} pm_manifest_filters;

/* pm_manifest_read / pm_manifest_decode with two-stage filters (filters may be NULL). */
int pm_manifest_read_filtered(pm_fs *fs, const char *path, const pm_manifest_filters *filters, pm_manifest_entries *out,
                              pm_error *err);
int pm_manifest_decode_filtered(const uint8_t *data, size_t len, const char *name,
                                const pm_manifest_filters *filters, pm_manifest_entries *out, pm_error *err);

/* Appends the rows of a manifest list. */
int pm_manifest_list_read(pm_fs *fs, const char *path, pm_manifest_file_metas *out, pm_error *err);
int pm_manifest_list_decode(const uint8_t *data, size_t len, const char *name, pm_manifest_file_metas *out,
                            pm_error *err);
/* Appends the entries of an index manifest. */
int pm_index_manifest_read(pm_fs *fs, const char *path, pm_index_entries *out, pm_error *err);
int pm_index_manifest_decode(const uint8_t *data, size_t len, const char *name, pm_index_entries *out,
                             pm_error *err);

/* ---- writers (Avro exactly as Java writes them, FORMAT.md 4.1-4.5) ---- */

/* Manifests are written in the writer schema of the current Java release
 * (2.0.0: `_FILE` has 20 fields ending _FIRST_ROW_ID, _WRITE_COLS), unless an
 * entry carries a non-null write_cols_sequences (only Java master writes
 * those): then the file gets master's schema (+ _WRITE_COLS_SEQUENCES) so
 * rewriting such entries loses nothing. Manifest lists and index manifests
 * have one schema (2.0.0 = master). */
typedef struct pm_manifest_write_opts {
  pm_codec codec;       /* PM_CODEC_ZSTD ("zstandard", default), NONE ("null"), DEFLATE, SNAPPY */
  int level;            /* codec level, 0 = default (zstd 1) */
  const uint8_t *sync;  /* 16-byte sync marker, NULL = random */
  int orc;              /* 1: ORC files as Java 2.0.0 writes them for manifest.format = orc
                           (manifests, manifest lists and index manifests alike; codec as above,
                           sync unused); 0: Avro */
} pm_manifest_write_opts;

/* Encodes a whole Avro object container file (ORC file when opts->orc), appended to out. opts may be NULL (Avro, zstd). */
int pm_manifest_encode(const pm_manifest_entry *entries, size_t n, const pm_manifest_write_opts *opts,
                       pm_buf *out, pm_error *err);
int pm_manifest_list_encode(const pm_manifest_file_meta *metas, size_t n, const pm_manifest_write_opts *opts,
                            pm_buf *out, pm_error *err);
int pm_index_manifest_encode(const pm_index_manifest_entry *entries, size_t n,
                             const pm_manifest_write_opts *opts, pm_buf *out, pm_error *err);

/* Writes the manifest file at path (create-if-absent; meta may be NULL) and fills *meta (its
 * manifest-list row: sizes, counts, partition stats over partition_type,
 * bucket/level/row-id ranges, schema id = max entry schema id, or
 * default_schema_id if n == 0). meta strings go to `arena`.
 * partition_type is a ROW type of the partition columns (NULL or 0 fields for
 * unpartitioned tables). */
int pm_manifest_write(pm_fs *fs, const char *path, const pm_manifest_entry *entries, size_t n,
                      const pm_data_type *partition_type, int64_t default_schema_id,
                      const pm_manifest_write_opts *opts, pm_arena *arena, pm_manifest_file_meta *meta,
                      pm_error *err);
int pm_manifest_list_write(pm_fs *fs, const char *path, const pm_manifest_file_meta *metas, size_t n,
                           const pm_manifest_write_opts *opts, int64_t *file_size, pm_error *err);
int pm_index_manifest_write(pm_fs *fs, const char *path, const pm_index_manifest_entry *entries, size_t n,
                            const pm_manifest_write_opts *opts, int64_t *file_size, pm_error *err);

/* ---- copies into another arena ---- */
int pm_data_file_meta_copy(const pm_data_file_meta *src, pm_data_file_meta *dst, pm_arena *arena, pm_error *err);
int pm_manifest_entry_copy(const pm_manifest_entry *src, pm_manifest_entry *dst, pm_arena *arena, pm_error *err);
int pm_manifest_file_meta_copy(const pm_manifest_file_meta *src, pm_manifest_file_meta *dst, pm_arena *arena,
                               pm_error *err);
int pm_index_file_meta_copy(const pm_index_file_meta *src, pm_index_file_meta *dst, pm_arena *arena,
                            pm_error *err);
/* Empty stats (two 12-byte arity-0 rows, empty null-count array). */
void pm_simple_stats_empty(pm_simple_stats *s);
/* The 12-byte serialized empty row (arity 0). */
extern const uint8_t PM_EMPTY_ROW_BYTES[12];

/* New full index-manifest state (FORMAT.md 4.5, SEMANTICS.md 8.3): the
 * previous entries (all ADD) combined with a commit's ADD/DELETE changes,
 * deletes first. HASH and DELETION_VECTORS of bucketed tables are keyed by
 * (partition, bucket, index type): DELETE removes, ADD replaces. DVs of
 * bucket-unaware tables and every other index type are keyed by file name:
 * adding an existing name or deleting a missing one is PAIMON_ERR_CONFLICT.
 * Results are copied into out (all kind ADD). */
int pm_index_manifest_combine(const pm_index_manifest_entry *prev, size_t n_prev,
                              const pm_index_manifest_entry *changes, size_t n_changes, int bucket_unaware,
                              pm_index_entries *out, pm_error *err);

/* Appends (copies) one entry into a container: its strings and bytes go to v->arena. */
int pm_manifest_entries_push(pm_manifest_entries *v, const pm_manifest_entry *e, pm_error *err);
/* Appends an object as is (no copy): what it points to lives in the container's
 * arena, or in memory that outlives every use of the container (a shallow copy). */
int pm_manifest_entries_append_owned(pm_manifest_entries *v, const pm_manifest_entry *e, pm_error *err);
int pm_manifest_file_metas_append_owned(pm_manifest_file_metas *v, const pm_manifest_file_meta *e, pm_error *err);
int pm_index_entries_append_owned(pm_index_entries *v, const pm_index_manifest_entry *e, pm_error *err);

#endif
