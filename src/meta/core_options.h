/*
 * Typed table and catalog options (Java's CoreOptions / CatalogOptions).
 *
 * Every option key the library reads is declared once, in core_options.c,
 * with Java's key, type, default and validation. pm_core_options_parse turns
 * a table's effective options (schema options overlaid with dynamic options)
 * into a pm_core_options struct once per table handle: an invalid value is
 * PAIMON_ERR_INVALID_ARGUMENT naming the key and the value; a key that is
 * neither known nor matches a recognized prefix pattern (fields.<f>.*,
 * file-index.*, orc.*, parquet.*, ...) is recorded as a warning the caller
 * can fetch (the library never prints). No other file names an option key.
 *
 * Value syntax (as Java parses it):
 *   boolean   "true" / "false", case-insensitive
 *   int/long  decimal, optional sign
 *   memory    digits, optional unit b|bytes|k|kb|kibibytes|m|mb|mebibytes|
 *             g|gb|gibibytes|t|tb|tebibytes (case-insensitive, blanks
 *             allowed between), no unit = bytes; kib/mib/gib/tib also accepted
 *   duration  digits, optional unit ns|nano(s)|nanosecond(s)|µs|micro(s)|
 *             microsecond(s)|ms|milli(s)|millisecond(s)|s|sec(s)|second(s)|
 *             m|min|mins|minute(s)|h|hour(s)|d|day(s), no unit = ms;
 *             held in milliseconds (sub-millisecond values round down)
 *   enum      one of the listed names, case-insensitive
 *
 * Ownership: a pm_core_options owns its copy of the options map; every
 * string field points into that copy and lives until pm_core_options_clear.
 */
#ifndef PM_META_CORE_OPTIONS_H
#define PM_META_CORE_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "meta/schema.h"
#include "util/error.h"

/* ---- value parsers (exposed for tests and for option-like CLI values) ---- */

/* Each returns 0 or PAIMON_ERR_INVALID_ARGUMENT with a message naming `key` and `text`. */
int pm_parse_bool(const char *key, const char *text, int *out, pm_error *err);
int pm_parse_int64(const char *key, const char *text, int64_t *out, pm_error *err);
int pm_parse_memory_size(const char *key, const char *text, int64_t *bytes, pm_error *err);
int pm_parse_duration_ms(const char *key, const char *text, int64_t *ms, pm_error *err);
/* names: NULL-terminated; *out = index of the case-insensitive match. */
int pm_parse_enum(const char *key, const char *text, const char *const *names, int *out, pm_error *err);

/* ---- enums ---- */

typedef enum pm_merge_engine {
  PM_MERGE_DEDUPLICATE,
  PM_MERGE_PARTIAL_UPDATE,
  PM_MERGE_AGGREGATION,
  PM_MERGE_FIRST_ROW
} pm_merge_engine;

typedef enum pm_changelog_producer {
  PM_CHANGELOG_NONE,
  PM_CHANGELOG_INPUT,
  PM_CHANGELOG_FULL_COMPACTION,
  PM_CHANGELOG_LOOKUP
} pm_changelog_producer;

typedef enum pm_lookup_compact_mode { PM_LOOKUP_COMPACT_RADICAL, PM_LOOKUP_COMPACT_GENTLE } pm_lookup_compact_mode;

typedef enum pm_bucket_function { PM_BUCKET_FN_DEFAULT, PM_BUCKET_FN_MOD, PM_BUCKET_FN_HIVE } pm_bucket_function;
typedef enum pm_sort_order { PM_SORT_ASCENDING, PM_SORT_DESCENDING } pm_sort_order;
typedef enum pm_incremental_mode {
  PM_INCR_MODE_AUTO,
  PM_INCR_MODE_DELTA,
  PM_INCR_MODE_CHANGELOG,
  PM_INCR_MODE_DIFF
} pm_incremental_mode;
typedef enum pm_consumer_mode { PM_CONSUMER_EXACTLY_ONCE, PM_CONSUMER_AT_LEAST_ONCE } pm_consumer_mode;

/* ---- option identifiers (index into pm_core_options.set / pm_core_option_key) ---- */

typedef enum pm_co_id {
  /* layout */
  PM_CO_BUCKET,
  PM_CO_BUCKET_KEY,
  PM_CO_BUCKET_FUNCTION,
  PM_CO_PRIMARY_KEY,
  PM_CO_PARTITION,
  PM_CO_PARTITION_DEFAULT_NAME,
  PM_CO_PARTITION_LEGACY_NAME,
  /* partition expiry (table/partition_expire.h) */
  PM_CO_PARTITION_EXPIRATION_TIME,
  PM_CO_PARTITION_EXPIRATION_CHECK_INTERVAL,
  PM_CO_PARTITION_EXPIRATION_STRATEGY,
  PM_CO_PARTITION_EXPIRATION_MAX_NUM,
  PM_CO_PARTITION_EXPIRATION_BATCH_SIZE,
  PM_CO_PARTITION_TIMESTAMP_FORMATTER,
  PM_CO_PARTITION_TIMESTAMP_PATTERN,
  PM_CO_END_INPUT_CHECK_PARTITION_EXPIRE,
  PM_CO_DATA_FILE_PATH_DIRECTORY,
  PM_CO_DATA_FILE_PREFIX,
  PM_CO_CHANGELOG_FILE_PREFIX,
  PM_CO_CHANGELOG_FILE_FORMAT,
  PM_CO_CHANGELOG_FILE_COMPRESSION,
  PM_CO_CHANGELOG_FILE_STATS_MODE,
  PM_CO_INDEX_IN_DATA_DIR,
  /* files */
  PM_CO_FILE_FORMAT,
  PM_CO_FILE_COMPRESSION,
  PM_CO_FILE_ZSTD_LEVEL,
  PM_CO_FILE_BLOCK_SIZE,
  PM_CO_FILE_SUFFIX_INCLUDE_COMPRESSION,
  PM_CO_TARGET_FILE_SIZE,
  PM_CO_WRITE_BUFFER_SIZE,
  PM_CO_WRITE_BUFFER_SPILLABLE,
  PM_CO_PAGE_SIZE,
  PM_CO_WRITE_BATCH_SIZE,
  PM_CO_WRITE_ONLY,
  PM_CO_METADATA_STATS_MODE,
  PM_CO_METADATA_STATS_DENSE_STORE,
  PM_CO_METADATA_STATS_KEEP_FIRST_N,
  PM_CO_WRITE_MAX_WRITERS_TO_SPILL,
  PM_CO_DATA_FILE_EXTERNAL_PATHS,
  PM_CO_DATA_FILE_EXTERNAL_PATHS_STRATEGY,
  PM_CO_DATA_FILE_EXTERNAL_PATHS_SPECIFIC_FS,
  PM_CO_DATA_FILE_EXTERNAL_PATHS_WEIGHTS,
  PM_CO_DATA_FILE_THIN_MODE,
  PM_CO_ROWKIND_FIELD,
  PM_CO_FILE_INDEX_READ_ENABLED,
  PM_CO_FILE_INDEX_IN_MANIFEST_THRESHOLD,
  PM_CO_READ_COALESCE_MAX_GAP,
  PM_CO_READ_COALESCE_MAX_BLOCK,
  /* manifests */
  PM_CO_MANIFEST_FORMAT,
  PM_CO_MANIFEST_COMPRESSION,
  PM_CO_MANIFEST_TARGET_FILE_SIZE,
  PM_CO_MANIFEST_FULL_COMPACTION_SIZE,
  PM_CO_MANIFEST_MERGE_MIN_COUNT,
  /* commit and snapshots */
  PM_CO_COMMIT_FORCE_COMPACT,
  PM_CO_COMMIT_TIMEOUT,
  PM_CO_COMMIT_MAX_RETRIES,
  PM_CO_COMMIT_MIN_RETRY_WAIT,
  PM_CO_COMMIT_MAX_RETRY_WAIT,
  PM_CO_COMMIT_USER_PREFIX,
  PM_CO_COMMIT_FORCE_CREATE_SNAPSHOT,
  PM_CO_COMMIT_DISCARD_DUPLICATE_FILES,
  PM_CO_SNAPSHOT_NUM_RETAINED_MIN,
  PM_CO_SNAPSHOT_NUM_RETAINED_MAX,
  PM_CO_SNAPSHOT_TIME_RETAINED,
  PM_CO_SNAPSHOT_EXPIRE_LIMIT,
  PM_CO_SNAPSHOT_EXPIRE_EXECUTION_MODE,
  PM_CO_SNAPSHOT_CLEAN_EMPTY_DIRS,
  PM_CO_SNAPSHOT_IGNORE_EMPTY_COMMIT,
  PM_CO_CHANGELOG_NUM_RETAINED_MIN,
  PM_CO_CHANGELOG_NUM_RETAINED_MAX,
  PM_CO_CHANGELOG_TIME_RETAINED,
  PM_CO_CONSUMER_CHANGELOG_ONLY,
  PM_CO_CONSUMER_EXPIRATION_TIME,
  PM_CO_DYNAMIC_PARTITION_OVERWRITE,
  PM_CO_OVERWRITE_UPGRADE,
  /* primary-key tables */
  PM_CO_MERGE_ENGINE,
  PM_CO_CHANGELOG_PRODUCER,
  PM_CO_CHANGELOG_ROW_DEDUPLICATE,
  PM_CO_CHANGELOG_ROW_DEDUPLICATE_IGNORE_FIELDS,
  PM_CO_LOOKUP_COMPACT,
  PM_CO_LOOKUP_COMPACT_MAX_INTERVAL,
  PM_CO_SEQUENCE_FIELD,
  PM_CO_SEQUENCE_FIELD_SORT_ORDER,
  PM_CO_IGNORE_DELETE,
  PM_CO_IGNORE_UPDATE_BEFORE,
  PM_CO_PARTIAL_UPDATE_REMOVE_ON_DELETE,
  PM_CO_PARTIAL_UPDATE_REMOVE_ON_SEQ_GROUP,
  PM_CO_AGGREGATION_REMOVE_ON_DELETE,
  PM_CO_DEFAULT_AGG_FUNCTION,
  PM_CO_FORCE_LOOKUP,
  PM_CO_DV_ENABLED,
  PM_CO_DV_MERGE_ON_READ,
  PM_CO_DV_BITMAP64,
  PM_CO_DV_MODIFIABLE,
  PM_CO_DV_INDEX_FILE_TARGET_SIZE,
  PM_CO_NUM_SORTED_RUN_COMPACTION_TRIGGER,
  PM_CO_NUM_LEVELS,
  PM_CO_DYNAMIC_BUCKET_TARGET_ROW_NUM,
  PM_CO_DYNAMIC_BUCKET_INITIAL_BUCKETS,
  PM_CO_DYNAMIC_BUCKET_MAX_BUCKETS,
  PM_CO_POSTPONE_MERGE_ON_READ,
  PM_CO_DYNAMIC_BUCKET_ASSIGNER_PARALLELISM,
  PM_CO_POSTPONE_DEFAULT_BUCKET_NUM,
  PM_CO_POSTPONE_TARGET_ROW_NUM_PER_BUCKET,
  PM_CO_POSTPONE_TARGET_SIZE_PER_BUCKET,
  PM_CO_ROW_TRACKING,
  PM_CO_DATA_EVOLUTION,
  PM_CO_ROW_TRACKING_PARTITION_GROUP,
  /* scan */
  PM_CO_SCAN_MODE,
  PM_CO_SCAN_SNAPSHOT_ID,
  PM_CO_SCAN_TAG_NAME,
  PM_CO_SCAN_WATERMARK,
  PM_CO_SCAN_TIMESTAMP_MILLIS,
  PM_CO_SCAN_TIMESTAMP,
  PM_CO_SCAN_VERSION,
  PM_CO_SCAN_FILE_CREATION_TIME_MILLIS,
  PM_CO_SCAN_CREATION_TIME_MILLIS,
  PM_CO_SCAN_MANIFEST_PARALLELISM,
  PM_CO_SCAN_FALLBACK_BRANCH,
  PM_CO_SCAN_BUCKET,
  PM_CO_SCAN_PLAN_SORT_PARTITION,
  PM_CO_SPLIT_TARGET_SIZE,
  PM_CO_SPLIT_OPEN_FILE_COST,
  PM_CO_INCREMENTAL_BETWEEN,
  PM_CO_INCREMENTAL_BETWEEN_TIMESTAMP,
  PM_CO_INCREMENTAL_BETWEEN_SCAN_MODE,
  PM_CO_INCREMENTAL_TAG_TO_SNAPSHOT,
  PM_CO_INCREMENTAL_TO_AUTO_TAG,
  /* streaming scans (table/stream_scan.h) */
  PM_CO_CONSUMER_ID,
  PM_CO_CONSUMER_MODE,
  PM_CO_CONSUMER_IGNORE_PROGRESS,
  PM_CO_CONTINUOUS_DISCOVERY_INTERVAL,
  PM_CO_STREAMING_READ_OVERWRITE,
  PM_CO_STREAMING_READ_APPEND_OVERWRITE,
  PM_CO_SCAN_BOUNDED_WATERMARK,
  PM_CO_STREAMING_READ_SNAPSHOT_DELAY,
  /* read and execution */
  PM_CO_READ_BATCH_SIZE,
  PM_CO_READ_PARALLELISM,
  PM_CO_THREADS,
  PM_CO_SESSION_TIME_ZONE,
  PM_CO_LOCAL_TIME_ZONE,
  PM_CO_PATH_REWRITE,
  /* schema evolution (alter table) */
  PM_CO_TABLE_TYPE,
  PM_CO_ALTER_NULL_TO_NOT_NULL_DISABLED,
  PM_CO_DISABLE_EXPLICIT_TYPE_CASTING,
  PM_CO_ADD_COLUMN_BEFORE_PARTITION,
  PM_CO_PRIMARY_KEY_NULLABLE,
  PM_CO_CLUSTERING_COLUMNS,
  PM_CO_PK_CLUSTERING_OVERRIDE,
  /* creation-time (checked by CREATE TABLE, meta/schema_build.h) */
  PM_CO_AUTO_CREATE,
  PM_CO_TARGET_FILE_ROW_NUM,
  PM_CO_PATH,
  PM_CO_BRANCH, /* the branch a handle reads and commits to (Java's FileStoreTableFactory) */
  /* automatic tags after commits (table/tag_auto.h) */
  PM_CO_TAG_AUTOMATIC_CREATION,
  PM_CO_TAG_CREATION_PERIOD,
  PM_CO_TAG_CREATION_PERIOD_DURATION,
  PM_CO_TAG_PERIOD_FORMATTER,
  PM_CO_TAG_CREATION_DELAY,
  PM_CO_TAG_NUM_RETAINED_MAX,
  PM_CO_TAG_DEFAULT_TIME_RETAINED,
  PM_CO_TAG_AUTOMATIC_COMPLETION,
  PM_CO_TAG_BATCH_CUSTOMIZED_NAME,
  PM_CO_TAG_TIME_EXPIRE_ENABLED,
  PM_CO_SINK_PROCESS_TIME_ZONE,
  PM_CO_SINK_WATERMARK_TIME_ZONE,
  /* primary-key compaction (table/kv_compact.h) */
  PM_CO_NUM_SORTED_RUN_STOP_TRIGGER,
  PM_CO_COMPACTION_MAX_SIZE_AMP,
  PM_CO_COMPACTION_SIZE_RATIO,
  PM_CO_COMPACTION_OPTIMIZATION_INTERVAL,
  PM_CO_COMPACTION_TOTAL_SIZE_THRESHOLD,
  PM_CO_COMPACTION_INCREMENTAL_SIZE_THRESHOLD,
  PM_CO_FULL_COMPACTION_DELTA_COMMITS,
  PM_CO_COMPACTION_SMALL_FILE_RATIO,
  PM_CO_COMPACTION_FORCE_REWRITE_ALL_FILES,
  PM_CO_COMPACTION_FORCE_UP_LEVEL_0,
  PM_CO_COMPACTION_OFFPEAK_START_HOUR,
  PM_CO_COMPACTION_OFFPEAK_END_HOUR,
  PM_CO_COMPACTION_OFFPEAK_RATIO,
  PM_CO_COMPACTION_MIN_FILE_NUM,
  PM_CO_COMPACTION_FILE_NUM_LIMIT,
  PM_CO_COMPACTION_DELETE_RATIO_THRESHOLD,
  /* write-buffer spilling */
  PM_CO_SPILL_COMPRESSION,
  PM_CO_SPILL_COMPRESSION_ZSTD_LEVEL,
  PM_CO_SORT_SPILL_BUFFER_SIZE,
  PM_CO_SORT_SPILL_THRESHOLD,
  PM_CO_LOCAL_SORT_MAX_NUM_FILE_HANDLES,
  PM_CO_WRITE_BUFFER_SPILL_MAX_DISK_SIZE,
  PM_CO_N
} pm_co_id;

/* data-file.external-paths.strategy (Java's ExternalPathStrategy). */
typedef enum pm_external_path_strategy {
  PM_EXT_PATH_NONE = 0,
  PM_EXT_PATH_SPECIFIC_FS,
  PM_EXT_PATH_ROUND_ROBIN,
  PM_EXT_PATH_ENTROPY_INJECT,
  PM_EXT_PATH_WEIGHT_ROBIN
} pm_external_path_strategy;

/* Default of `threads`: 0 = no cap beyond each operation's own parallelism (util/executor.h). */
#define PM_CO_DEFAULT_THREADS 0

typedef struct pm_core_options {
  pm_options raw;       /* the parsed map (owned); string fields point into it */
  uint8_t set[PM_CO_N]; /* 1 when the option (or one of its fallback keys) was given */

  int32_t bucket;                  /* bucket, default -1 */
  const char *bucket_key;          /* bucket-key (comma list) or NULL */
  pm_bucket_function bucket_function;
  const char *primary_key, *partition; /* creation-time options (NULL when absent) */
  const char *partition_default_name;  /* "__DEFAULT_PARTITION__" */
  int partition_legacy_name;           /* default true */
  /* partition expiry: partition.expiration-time (check set[]: unset = no expiry) */
  int64_t partition_expiration_ms;
  int64_t partition_expiration_check_interval_ms; /* partition.expiration-check-interval, 1 h */
  const char *partition_expiration_strategy;      /* "values-time" (default) | "update-time" */
  int32_t partition_expiration_max_num;           /* partition.expiration-max-num, 100 */
  int32_t partition_expiration_batch_size;        /* partition.expiration-batch-size, 0 = unset (one batch) */
  const char *partition_timestamp_formatter, *partition_timestamp_pattern; /* NULL when unset */
  int end_input_check_partition_expire;           /* end-input.check-partition-expire, false */
  const char *data_file_path_directory;
  const char *data_file_prefix, *changelog_file_prefix;
  /* changelog-file.format / .compression / .stats-mode: NULL = as the data files */
  const char *changelog_file_format, *changelog_file_compression, *changelog_file_stats_mode;
  int index_in_data_dir;

  const char *file_format; /* "parquet"; tables of schema version <= 2: "orc" (pm_core_file_format) */
  const char *file_compression;
  int32_t file_zstd_level;
  int64_t file_block_size; /* 0 when unset */
  int file_suffix_include_compression;
  int64_t target_file_size; /* unset: 128 mb for primary-key tables, 256 mb otherwise */
  int64_t write_buffer_size;
  int write_buffer_spillable;
  int64_t page_size;
  int32_t write_batch_size;
  int write_only;
  const char *metadata_stats_mode; /* none | counts | full | truncate(N) */
  int metadata_stats_dense_store;
  int32_t metadata_stats_keep_first_n; /* metadata.stats-keep-first-n-columns, -1 = all */
  int32_t write_max_writers_to_spill;  /* write-max-writers-to-spill, default 10 */
  const char *data_file_external_paths; /* comma list of URIs or NULL */
  pm_external_path_strategy external_path_strategy; /* data-file.external-paths.strategy */
  const char *data_file_external_paths_specific_fs;
  const char *data_file_external_paths_weights; /* comma list of positive integers or NULL */
  int data_file_thin_mode;      /* data-file.thin-mode */
  const char *rowkind_field;    /* rowkind.field or NULL */
  int file_index_read_enabled;
  int64_t file_index_in_manifest_threshold;
  int64_t read_coalesce_max_gap;   /* file-io.read-coalesce.max-gap (1 MiB) */
  int64_t read_coalesce_max_block; /* file-io.read-coalesce.max-block (8 MiB) */

  const char *manifest_format, *manifest_compression;
  int64_t manifest_target_file_size, manifest_full_compaction_size;
  int32_t manifest_merge_min_count;

  int commit_force_compact;
  int64_t commit_timeout_ms; /* 0 when unset (no timeout) */
  int32_t commit_max_retries;
  int64_t commit_min_retry_wait_ms, commit_max_retry_wait_ms;
  const char *commit_user_prefix;
  int commit_force_create_snapshot, commit_discard_duplicate_files;
  int32_t snapshot_num_retained_min, snapshot_num_retained_max;
  int64_t snapshot_time_retained_ms;
  int32_t snapshot_expire_limit;
  int snapshot_expire_async; /* snapshot.expire.execution-mode: 0 sync, 1 async */
  int snapshot_clean_empty_dirs;
  /* changelog retention: check set[]; unset = the snapshot retention's value */
  int32_t changelog_num_retained_min, changelog_num_retained_max;
  int64_t changelog_time_retained_ms;
  int consumer_changelog_only;
  int64_t consumer_expiration_ms; /* 0 = consumers never expire */
  int snapshot_ignore_empty_commit; /* check set[] : unset = the commit kind's default */
  int dynamic_partition_overwrite;  /* default true */
  int overwrite_upgrade;            /* default true: overwritten PK files upgraded (table/commit_upgrade.c) */

  pm_merge_engine merge_engine;
  pm_changelog_producer changelog_producer;
  int changelog_row_deduplicate;
  const char *changelog_row_deduplicate_ignore_fields; /* comma list (not trimmed, as Java) or NULL */
  pm_lookup_compact_mode lookup_compact;
  int32_t lookup_compact_max_interval; /* check set[]: unset = 2 * num-sorted-run.compaction-trigger */
  const char *sequence_field; /* comma list or NULL */
  pm_sort_order sequence_field_sort_order;
  int ignore_delete; /* ignore-delete or its fallback keys */
  int ignore_update_before;
  int partial_update_remove_on_delete;
  const char *partial_update_remove_on_seq_group;
  int aggregation_remove_on_delete;
  const char *default_agg_function;
  int force_lookup;
  int dv_enabled, dv_merge_on_read, dv_bitmap64, dv_modifiable;
  int64_t dv_index_file_target_size;
  int32_t num_sorted_run_compaction_trigger;
  int32_t num_levels; /* 0 when unset */
  int64_t dynamic_bucket_target_row_num;
  int32_t dynamic_bucket_initial_buckets; /* 0 when unset */
  int32_t dynamic_bucket_max_buckets;
  int postpone_merge_on_read;
  int32_t dynamic_bucket_assigner_parallelism; /* 0 when unset */
  int32_t postpone_default_bucket_num;         /* 0 when unset */
  int64_t postpone_target_row_num_per_bucket;  /* 0 when unset */
  int64_t postpone_target_size_per_bucket;     /* default 1 gb */
  int row_tracking, data_evolution;
  int row_tracking_partition_group; /* row-tracking.partition-group-on-commit, default true */

  const char *scan_mode; /* "default" unless set; scan.c validates it per scan kind */
  int64_t scan_snapshot_id, scan_watermark, scan_timestamp_millis;
  const char *scan_tag_name, *scan_timestamp, *scan_version;
  int64_t scan_file_creation_time_millis, scan_creation_time_millis;
  int32_t scan_manifest_parallelism; /* unset: 4 */
  const char *scan_fallback_branch;
  int32_t scan_bucket;
  int scan_plan_sort_partition;
  int64_t split_target_size, split_open_file_cost;
  const char *incremental_between, *incremental_between_timestamp;
  pm_incremental_mode incremental_between_scan_mode;
  int incremental_tag_to_snapshot;
  const char *incremental_to_auto_tag;
  const char *consumer_id;
  pm_consumer_mode consumer_mode;
  int consumer_ignore_progress;
  int64_t continuous_discovery_interval_ms; /* default 10 s */
  int streaming_read_overwrite, streaming_read_append_overwrite;
  int64_t scan_bounded_watermark;           /* check set[] */
  int64_t streaming_read_snapshot_delay_ms; /* check set[] */

  int32_t read_batch_size; /* >= 1 */
  int32_t read_parallelism; /* >= 1; splits read ahead at once */
  int32_t threads;          /* 0 (unset: no cap) or >= 1; 1 = single-threaded, no thread is ever spawned */
  const char *session_time_zone; /* session_time_zone, else local-time-zone, else NULL */
  const char *path_rewrite;

  int primary_key_nullable; /* primary-key.nullable, default false */
  int auto_create;          /* auto-create, default false */
  int64_t target_file_row_num; /* default INT64_MAX, >= 1 */

  /* primary-key compaction; "unset" fields are checked through set[] */
  int32_t num_sorted_run_stop_trigger;  /* unset: compaction-trigger + 3; never below the trigger */
  int32_t compaction_max_size_amp;      /* compaction.max-size-amplification-percent, 200 */
  int32_t compaction_size_ratio;        /* compaction.size-ratio, 1 */
  int64_t compaction_optimization_interval_ms; /* unset: none */
  int64_t compaction_total_size_threshold, compaction_incremental_size_threshold; /* unset: none */
  int32_t full_compaction_delta_commits; /* unset: none */
  double compaction_small_file_ratio;    /* 0.7 */
  int compaction_force_rewrite_all_files;
  int compaction_force_up_level_0;       /* every level-0 file joins a pick (ForceUpLevel0Compaction) */
  int32_t compaction_offpeak_start_hour, compaction_offpeak_end_hour; /* -1: no off-peak hours */
  int32_t compaction_offpeak_ratio;      /* added to compaction.size-ratio in off-peak hours, 0 */
  /* append compaction (AppendCompactCoordinator, BucketedAppendCompactManager) */
  int32_t compaction_min_file_num;       /* compaction.min.file-num, 5 */
  int32_t compaction_file_num_limit;     /* compaction.file-num-limit, 100000 */
  double compaction_delete_ratio;        /* compaction.delete-ratio-threshold, 0.2 */

  /* write-buffer spilling (write-buffer-spillable) */
  const char *spill_compression;        /* spill-compression: zstd (default), lz4, lzo, none */
  int32_t spill_zstd_level;             /* spill-compression.zstd-level, 1 */
  int64_t sort_spill_buffer_size;       /* sort-spill-buffer-size, 64 mb */
  int32_t sort_spill_threshold;         /* unset: num-sorted-run.stop-trigger + 1; must be > 1 */
  int32_t local_sort_max_file_handles;  /* local-sort.max-num-file-handles, 128 (fan-in; >= 2) */
  int64_t write_buffer_spill_max_disk;  /* write-buffer-spill.max-disk-size, default unlimited */

  char **warnings; /* unknown keys, one message each (owned) */
  size_t n_warnings;
} pm_core_options;

/* Parses `opts` (copied). table_version is the schema's version (file.format
 * default); has_pk picks the target-file-size default. On error *co is
 * cleared and the message names the key and the value. */
int pm_core_options_parse(const pm_options *opts, int32_t table_version, int has_pk, pm_core_options *co,
                          pm_error *err);
void pm_core_options_clear(pm_core_options *co); /* idempotent on a zeroed struct */

/* The key of an option id, e.g. "scan.snapshot-id". */
const char *pm_core_option_key(pm_co_id id);
/* The raw text of an option as given (its own key or the fallback key used), NULL when unset. */
const char *pm_core_option_text(const pm_core_options *co, pm_co_id id);
/* The key actually given for id (the key or a fallback key), else the key. */
const char *pm_core_option_given_key(const pm_core_options *co, pm_co_id id);

/* Per-field options fields.<field>.<name> (Java's FIELDS_PREFIX options). */
typedef enum pm_field_opt {
  PM_FIELD_AGG_FUNCTION,
  PM_FIELD_IGNORE_RETRACT,
  PM_FIELD_DISTINCT,
  PM_FIELD_LIST_AGG_DELIMITER,
  PM_FIELD_NESTED_KEY,
  PM_FIELD_NESTED_KEY_NULL_STRATEGY,
  PM_FIELD_NESTED_SEQUENCE_FIELD,
  PM_FIELD_COUNT_LIMIT,
  PM_FIELD_TS_FIELD,
  PM_FIELD_STATS_MODE,
  PM_FIELD_SEQUENCE_GROUP,
  PM_FIELD_MAP_STORAGE_LAYOUT,
  PM_FIELD_MAP_SHREDDING_MAX_COLUMNS,
  PM_FIELD_MAP_SHREDDING_PLACEMENT
} pm_field_opt;
const char *pm_field_option_name(pm_field_opt which); /* "aggregate-function", ... */
/* Writes the key "fields.<field>.<which>" into buf; -1 when it does not fit. */
int pm_field_option_key(const char *field, pm_field_opt which, char *buf, size_t cap);
/* Value of fields.<field>.<which> in `opts`, NULL when absent. */
const char *pm_field_option(const pm_options *opts, const char *field, pm_field_opt which);
/* Boolean field option (absent = def); invalid = error naming the key. */
int pm_field_option_bool(const pm_options *opts, const char *field, pm_field_opt which, int def, int *out,
                         pm_error *err);
/* Partial-update sequence groups fields.<g1>[,<g2>...].sequence-group = <f1>,<f2>: for option i of
 * `opts`, returns 1 and sets *groups (a malloc'd copy of "<g1>[,<g2>]") when it is one. */
int pm_field_sequence_group(const pm_options *opts, size_t i, char **groups);

/* ---- schema evolution (meta/schema_change.c) ---- */

/* 1 when Java's CoreOptions marks `key` @Immutable (refused by ALTER TABLE once the table has a snapshot). */
int pm_core_option_is_immutable(const char *key);

/* One edit of an options map, in the order Java performs them. */
typedef struct pm_option_edit {
  int remove;  /* 1: remove key; 0: put key = value */
  char *key;   /* owned */
  char *value; /* owned; NULL for remove */
} pm_option_edit;
void pm_option_edits_free(pm_option_edit *e, size_t n);

/* Java's SchemaManager.applyRenameColumnsToOptions: the edits that carry column renames
 * (from[i] -> to[i], the first path element of every rename, in change order) into
 * `opts` (keys in Java's iteration order): bucket-key and sequence.field values,
 * fields.<col>.<per-field option> keys, fields.<cols>.sequence-group / nested-key keys
 * and values. A column renamed twice is PAIMON_ERR_INVALID_ARGUMENT (Java: duplicate key). */
int pm_options_rename_edits(const pm_options *opts, const char *const *from, const char *const *to, size_t n,
                            pm_option_edit **edits, size_t *n_edits, pm_error *err);

/* ---- catalog options ---- */

typedef struct pm_catalog_options {
  const char *warehouse;    /* required; borrowed from the map given to parse */
  const char *metastore;    /* "filesystem" unless set */
  const char *path_rewrite; /* NULL when unset */
  int32_t threads;          /* `threads`; 0 when unset */
  char **warnings;
  size_t n_warnings;
} pm_catalog_options;

/* Validates catalog options: a missing warehouse is an error; unknown keys are warnings.
 * String fields borrow from `opts`, which must outlive *out. */
int pm_catalog_options_parse(const pm_options *opts, pm_catalog_options *out, pm_error *err);
void pm_catalog_options_clear(pm_catalog_options *co);

/* Key names of a few options, for code that reads a raw options map (e.g. a
 * schema's own options): each expands to pm_core_option_key(<id>). */
#define PM_OPT_BUCKET pm_core_option_key(PM_CO_BUCKET)
#define PM_OPT_BUCKET_KEY pm_core_option_key(PM_CO_BUCKET_KEY)
#define PM_OPT_FILE_FORMAT pm_core_option_key(PM_CO_FILE_FORMAT)
#define PM_OPT_DV_ENABLED pm_core_option_key(PM_CO_DV_ENABLED)
#define PM_OPT_PARTITION_DEFAULT_NAME pm_core_option_key(PM_CO_PARTITION_DEFAULT_NAME)
#define PM_OPT_PRIMARY_KEY pm_core_option_key(PM_CO_PRIMARY_KEY)
#define PM_OPT_PARTITION pm_core_option_key(PM_CO_PARTITION)
#define PM_OPT_SEQUENCE_FIELD pm_core_option_key(PM_CO_SEQUENCE_FIELD)
/* Prefix of the per-field options ("fields."). */
const char *pm_field_option_prefix(void);
/* Prefix of catalog options that are defaults of every new table ("table-default."). */
const char *pm_table_default_option_prefix(void);
/* Prefix of the data-file index options ("file-index."). */
const char *pm_file_index_option_prefix(void);

#endif
