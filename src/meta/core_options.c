/*
 * Typed options: the one place that names option keys (see core_options.h).
 * Keys, types and defaults follow Java's CoreOptions and CatalogOptions.
 */
#include "meta/core_options.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------ parsers */

static const char *skip_ws(const char *s) {
  while (*s && isspace((unsigned char)*s)) s++;
  return s;
}

/* [a, b) without surrounding blanks. */
static void trim(const char *s, const char **a, const char **b) {
  *a = skip_ws(s);
  *b = *a + strlen(*a);
  while (*b > *a && isspace((unsigned char)(*b)[-1])) (*b)--;
}

int pm_parse_bool(const char *key, const char *text, int *out, pm_error *err) {
  const char *a, *b;
  trim(text, &a, &b);
  size_t n = (size_t)(b - a);
  if (n == 4 && !strncasecmp(a, "true", 4)) *out = 1;
  else if (n == 5 && !strncasecmp(a, "false", 5)) *out = 0;
  else
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option '%s': '%s' is not a boolean (true or false)", key,
                     text);
  return 0;
}

int pm_parse_int64(const char *key, const char *text, int64_t *out, pm_error *err) {
  const char *s = skip_ws(text);
  char *end;
  errno = 0;
  long long x = strtoll(s, &end, 10);
  if (end == s || *skip_ws(end)) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option '%s': '%s' is not an integer", key, text);
  if (errno) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option '%s': '%s' does not fit in 64 bits", key, text);
  *out = x;
  return 0;
}

typedef struct unit {
  const char *name;
  int64_t mult; /* > 0: multiply; < 0: divide by -mult */
} unit;

/* Java's MemorySize / TimeUtils grammar: digits, blanks, unit label. */
static int parse_with_unit(const char *key, const char *text, const unit *units, const char *what, int64_t *out,
                           pm_error *err) {
  const char *a, *b;
  trim(text, &a, &b);
  if (a == b) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option '%s': empty %s", key, what);
  const char *p = a;
  int64_t v = 0;
  while (p < b && *p >= '0' && *p <= '9') {
    int d = *p - '0';
    if (v > (INT64_MAX - d) / 10)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option '%s': '%s' does not fit in 64 bits", key, text);
    v = v * 10 + d;
    p++;
  }
  if (p == a)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option '%s': '%s' is not a %s (it must start with a number)",
                     key, text, what);
  p = skip_ws(p);
  size_t ul = (size_t)(b - p);
  if (!ul) {
    *out = v;
    return 0;
  }
  for (const unit *u = units; u->name; u++) {
    if (strlen(u->name) != ul || strncasecmp(u->name, p, ul)) continue;
    if (u->mult < 0) {
      *out = v / -u->mult;
      return 0;
    }
    if (u->mult > 1 && v > INT64_MAX / u->mult)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option '%s': '%s' does not fit in 64 bits", key, text);
    *out = v * u->mult;
    return 0;
  }
  return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option '%s': '%s' has an unknown %s unit '%.*s'", key, text,
                   what, (int)ul, p);
}

#define KIB ((int64_t)1024)
int pm_parse_memory_size(const char *key, const char *text, int64_t *bytes, pm_error *err) {
  static const unit units[] = {{"b", 1},
                               {"bytes", 1},
                               {"k", KIB},
                               {"kb", KIB},
                               {"kibibytes", KIB},
                               {"kib", KIB},
                               {"m", KIB * KIB},
                               {"mb", KIB * KIB},
                               {"mebibytes", KIB * KIB},
                               {"mib", KIB * KIB},
                               {"g", KIB * KIB * KIB},
                               {"gb", KIB * KIB * KIB},
                               {"gibibytes", KIB * KIB * KIB},
                               {"gib", KIB * KIB * KIB},
                               {"t", KIB * KIB * KIB * KIB},
                               {"tb", KIB * KIB * KIB * KIB},
                               {"tebibytes", KIB * KIB * KIB * KIB},
                               {"tib", KIB * KIB * KIB * KIB},
                               {NULL, 0}};
  return parse_with_unit(key, text, units, "memory size", bytes, err);
}

int pm_parse_duration_ms(const char *key, const char *text, int64_t *ms, pm_error *err) {
  static const unit units[] = {
      {"ns", -1000000},      {"nano", -1000000},         {"nanos", -1000000},        {"nanosecond", -1000000},
      {"nanoseconds", -1000000}, {"\xc2\xb5s", -1000},   {"micro", -1000},           {"micros", -1000},
      {"microsecond", -1000}, {"microseconds", -1000},   {"ms", 1},                  {"milli", 1},
      {"millis", 1},         {"millisecond", 1},         {"milliseconds", 1},        {"s", 1000},
      {"sec", 1000},         {"secs", 1000},             {"second", 1000},           {"seconds", 1000},
      {"min", 60000},        {"m", 60000},               {"minute", 60000},          {"minutes", 60000},
      {"mins", 60000},       {"h", 3600000},             {"hour", 3600000},          {"hours", 3600000},
      {"d", 86400000},       {"day", 86400000},          {"days", 86400000},         {NULL, 0}};
  return parse_with_unit(key, text, units, "duration", ms, err);
}

int pm_parse_enum(const char *key, const char *text, const char *const *names, int *out, pm_error *err) {
  const char *a, *b;
  trim(text, &a, &b);
  size_t n = (size_t)(b - a);
  for (int i = 0; names[i]; i++)
    if (strlen(names[i]) == n && !strncasecmp(names[i], a, n)) {
      *out = i;
      return 0;
    }
  char list[512];
  size_t off = 0;
  list[0] = 0;
  for (int i = 0; names[i] && off < sizeof list; i++)
    off += (size_t)snprintf(list + off, sizeof list - off, "%s%s", i ? ", " : "", names[i]);
  return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option '%s': '%s' is not one of %s", key, text, list);
}

/* ------------------------------------------------------- definitions */

typedef enum otype { T_STR, T_BOOL, T_INT, T_LONG, T_MEM, T_DUR, T_ENUM, T_DOUBLE } otype;

typedef struct odef {
  const char *key;
  otype type;
  const char *def; /* default as text; NULL = none (field stays 0 / NULL) */
  size_t off;      /* field in pm_core_options */
  const char *const *names; /* T_ENUM */
  int64_t min, max;         /* checked when min < max */
  const char *fallback[4];  /* older / alternative keys, tried in order */
} odef;

#define F(field) offsetof(pm_core_options, field)
#define NO_RANGE 0, 0
#define POS 1, INT32_MAX
#define NONNEG 0, INT64_MAX
#define NOFIELD ((size_t)-1)

static const char *const E_MERGE[] = {"deduplicate", "partial-update", "aggregation", "first-row", NULL};
static const char *const E_CHANGELOG[] = {"none", "input", "full-compaction", "lookup", NULL};
static const char *const E_BUCKET_FN[] = {"default", "mod", "hive", NULL};
static const char *const E_LOOKUP_COMPACT[] = {"radical", "gentle", NULL};
static const char *const E_EXPIRE_MODE[] = {"sync", "async", NULL};
static const char *const E_SORT[] = {"ascending", "descending", NULL};
static const char *const E_EXT_PATH[] = {"none", "specific-fs", "round-robin", "entropy-inject", "weight-robin", NULL};
static const char *const E_INCR[] = {"auto", "delta", "changelog", "diff", NULL};
static const char *const E_CONSUMER_MODE[] = {"exactly-once", "at-least-once", NULL};

static const odef DEFS[PM_CO_N] = {
    [PM_CO_BUCKET] = {"bucket", T_INT, "-1", F(bucket), NULL, -2, INT32_MAX, {0}},
    [PM_CO_BUCKET_KEY] = {"bucket-key", T_STR, NULL, F(bucket_key), NULL, NO_RANGE, {0}},
    [PM_CO_BUCKET_FUNCTION] = {"bucket-function.type", T_ENUM, "default", F(bucket_function), E_BUCKET_FN, NO_RANGE, {0}},
    [PM_CO_PRIMARY_KEY] = {"primary-key", T_STR, NULL, F(primary_key), NULL, NO_RANGE, {0}},
    [PM_CO_PARTITION] = {"partition", T_STR, NULL, F(partition), NULL, NO_RANGE, {0}},
    [PM_CO_PARTITION_DEFAULT_NAME] = {"partition.default-name", T_STR, "__DEFAULT_PARTITION__",
                                      F(partition_default_name), NULL, NO_RANGE, {0}},
    [PM_CO_PARTITION_LEGACY_NAME] = {"partition.legacy-name", T_BOOL, "true", F(partition_legacy_name), NULL, NO_RANGE, {0}},
    [PM_CO_PARTITION_EXPIRATION_TIME] = {"partition.expiration-time", T_DUR, NULL, F(partition_expiration_ms), NULL,
                                         NO_RANGE, {0}},
    [PM_CO_PARTITION_EXPIRATION_CHECK_INTERVAL] = {"partition.expiration-check-interval", T_DUR, "1 h",
                                                   F(partition_expiration_check_interval_ms), NULL, NO_RANGE, {0}},
    [PM_CO_PARTITION_EXPIRATION_STRATEGY] = {"partition.expiration-strategy", T_STR, "values-time",
                                             F(partition_expiration_strategy), NULL, NO_RANGE, {0}},
    [PM_CO_PARTITION_EXPIRATION_MAX_NUM] = {"partition.expiration-max-num", T_INT, "100",
                                            F(partition_expiration_max_num), NULL, 0, INT32_MAX, {0}},
    [PM_CO_PARTITION_EXPIRATION_BATCH_SIZE] = {"partition.expiration-batch-size", T_INT, NULL,
                                               F(partition_expiration_batch_size), NULL, NO_RANGE, {0}},
    [PM_CO_PARTITION_TIMESTAMP_FORMATTER] = {"partition.timestamp-formatter", T_STR, NULL,
                                             F(partition_timestamp_formatter), NULL, NO_RANGE, {0}},
    [PM_CO_PARTITION_TIMESTAMP_PATTERN] = {"partition.timestamp-pattern", T_STR, NULL, F(partition_timestamp_pattern),
                                           NULL, NO_RANGE, {0}},
    [PM_CO_END_INPUT_CHECK_PARTITION_EXPIRE] = {"end-input.check-partition-expire", T_BOOL, "false",
                                                F(end_input_check_partition_expire), NULL, NO_RANGE, {0}},
    [PM_CO_DATA_FILE_PATH_DIRECTORY] = {"data-file.path-directory", T_STR, NULL, F(data_file_path_directory), NULL,
                                        NO_RANGE, {0}},
    [PM_CO_DATA_FILE_PREFIX] = {"data-file.prefix", T_STR, "data-", F(data_file_prefix), NULL, NO_RANGE, {0}},
    [PM_CO_CHANGELOG_FILE_PREFIX] = {"changelog-file.prefix", T_STR, "changelog-", F(changelog_file_prefix), NULL,
                                     NO_RANGE, {0}},
    [PM_CO_CHANGELOG_FILE_FORMAT] = {"changelog-file.format", T_STR, NULL, F(changelog_file_format), NULL, NO_RANGE, {0}},
    [PM_CO_CHANGELOG_FILE_COMPRESSION] = {"changelog-file.compression", T_STR, NULL, F(changelog_file_compression), NULL,
                                          NO_RANGE, {0}},
    [PM_CO_CHANGELOG_FILE_STATS_MODE] = {"changelog-file.stats-mode", T_STR, NULL, F(changelog_file_stats_mode), NULL,
                                         NO_RANGE, {0}},
    [PM_CO_INDEX_IN_DATA_DIR] = {"index-file-in-data-file-dir", T_BOOL, "false", F(index_in_data_dir), NULL, NO_RANGE, {0}},

    [PM_CO_FILE_FORMAT] = {"file.format", T_STR, NULL, F(file_format), NULL, NO_RANGE, {0}},
    [PM_CO_FILE_COMPRESSION] = {"file.compression", T_STR, "zstd", F(file_compression), NULL, NO_RANGE, {0}},
    [PM_CO_FILE_ZSTD_LEVEL] = {"file.compression.zstd-level", T_INT, "1", F(file_zstd_level), NULL, -131072, 22, {0}},
    [PM_CO_FILE_BLOCK_SIZE] = {"file.block-size", T_MEM, NULL, F(file_block_size), NULL, NO_RANGE, {0}},
    [PM_CO_FILE_SUFFIX_INCLUDE_COMPRESSION] = {"file.suffix.include.compression", T_BOOL, "false",
                                               F(file_suffix_include_compression), NULL, NO_RANGE, {0}},
    [PM_CO_TARGET_FILE_SIZE] = {"target-file-size", T_MEM, NULL, F(target_file_size), NULL, 1, INT64_MAX, {0}},
    [PM_CO_WRITE_BUFFER_SIZE] = {"write-buffer-size", T_MEM, "256 mb", F(write_buffer_size), NULL, 1, INT64_MAX, {0}},
    [PM_CO_WRITE_BUFFER_SPILLABLE] = {"write-buffer-spillable", T_BOOL, "true", F(write_buffer_spillable), NULL, NO_RANGE, {0}},
    [PM_CO_PAGE_SIZE] = {"page-size", T_MEM, "64 kb", F(page_size), NULL, 1, INT64_MAX, {0}},
    [PM_CO_WRITE_BATCH_SIZE] = {"write.batch-size", T_INT, "1024", F(write_batch_size), NULL, POS, {"orc.write.batch-size"}},
    [PM_CO_WRITE_ONLY] = {"write-only", T_BOOL, "false", F(write_only), NULL, NO_RANGE, {"write.compaction-skip"}},
    [PM_CO_METADATA_STATS_MODE] = {"metadata.stats-mode", T_STR, "truncate(16)", F(metadata_stats_mode), NULL, NO_RANGE, {0}},
    [PM_CO_METADATA_STATS_DENSE_STORE] = {"metadata.stats-dense-store", T_BOOL, "true", F(metadata_stats_dense_store),
                                          NULL, NO_RANGE, {0}},
    [PM_CO_METADATA_STATS_KEEP_FIRST_N] = {"metadata.stats-keep-first-n-columns", T_INT, "-1",
                                           F(metadata_stats_keep_first_n), NULL, NO_RANGE, {0}},
    [PM_CO_WRITE_MAX_WRITERS_TO_SPILL] = {"write-max-writers-to-spill", T_INT, "10", F(write_max_writers_to_spill), NULL,
                                          POS, {0}},
    [PM_CO_DATA_FILE_EXTERNAL_PATHS] = {"data-file.external-paths", T_STR, NULL, F(data_file_external_paths), NULL,
                                        NO_RANGE, {0}},
    [PM_CO_DATA_FILE_EXTERNAL_PATHS_STRATEGY] = {"data-file.external-paths.strategy", T_ENUM, "none",
                                                 F(external_path_strategy), E_EXT_PATH, NO_RANGE, {0}},
    [PM_CO_DATA_FILE_EXTERNAL_PATHS_SPECIFIC_FS] = {"data-file.external-paths.specific-fs", T_STR, NULL,
                                                    F(data_file_external_paths_specific_fs), NULL, NO_RANGE, {0}},
    [PM_CO_DATA_FILE_EXTERNAL_PATHS_WEIGHTS] = {"data-file.external-paths.weights", T_STR, NULL,
                                                F(data_file_external_paths_weights), NULL, NO_RANGE, {0}},
    [PM_CO_DATA_FILE_THIN_MODE] = {"data-file.thin-mode", T_BOOL, "false", F(data_file_thin_mode), NULL, NO_RANGE, {0}},
    [PM_CO_ROWKIND_FIELD] = {"rowkind.field", T_STR, NULL, F(rowkind_field), NULL, NO_RANGE, {0}},
    [PM_CO_FILE_INDEX_READ_ENABLED] = {"file-index.read.enabled", T_BOOL, "true", F(file_index_read_enabled), NULL,
                                       NO_RANGE, {0}},
    [PM_CO_FILE_INDEX_IN_MANIFEST_THRESHOLD] = {"file-index.in-manifest-threshold", T_MEM, "500 B",
                                                F(file_index_in_manifest_threshold), NULL, NO_RANGE, {0}},
    [PM_CO_READ_COALESCE_MAX_GAP] = {"file-io.read-coalesce.max-gap", T_MEM, "1 mb", F(read_coalesce_max_gap), NULL,
                                     NONNEG, {0}},
    [PM_CO_READ_COALESCE_MAX_BLOCK] = {"file-io.read-coalesce.max-block", T_MEM, "8 mb", F(read_coalesce_max_block),
                                       NULL, NONNEG, {0}},

    [PM_CO_MANIFEST_FORMAT] = {"manifest.format", T_STR, "avro", F(manifest_format), NULL, NO_RANGE, {0}},
    [PM_CO_MANIFEST_COMPRESSION] = {"manifest.compression", T_STR, "zstd", F(manifest_compression), NULL, NO_RANGE, {0}},
    [PM_CO_MANIFEST_TARGET_FILE_SIZE] = {"manifest.target-file-size", T_MEM, "8 mb", F(manifest_target_file_size), NULL,
                                         1, INT64_MAX, {0}},
    [PM_CO_MANIFEST_FULL_COMPACTION_SIZE] = {"manifest.full-compaction-threshold-size", T_MEM, "16 mb",
                                             F(manifest_full_compaction_size), NULL, NONNEG, {0}},
    [PM_CO_MANIFEST_MERGE_MIN_COUNT] = {"manifest.merge-min-count", T_INT, "30", F(manifest_merge_min_count), NULL, POS, {0}},

    [PM_CO_COMMIT_FORCE_COMPACT] = {"commit.force-compact", T_BOOL, "false", F(commit_force_compact), NULL, NO_RANGE, {0}},
    [PM_CO_COMMIT_TIMEOUT] = {"commit.timeout", T_DUR, NULL, F(commit_timeout_ms), NULL, NO_RANGE, {0}},
    [PM_CO_COMMIT_MAX_RETRIES] = {"commit.max-retries", T_INT, "10", F(commit_max_retries), NULL, 0, INT32_MAX, {0}},
    [PM_CO_COMMIT_MIN_RETRY_WAIT] = {"commit.min-retry-wait", T_DUR, "10 ms", F(commit_min_retry_wait_ms), NULL, NO_RANGE, {0}},
    [PM_CO_COMMIT_MAX_RETRY_WAIT] = {"commit.max-retry-wait", T_DUR, "10 s", F(commit_max_retry_wait_ms), NULL, NO_RANGE, {0}},
    [PM_CO_COMMIT_USER_PREFIX] = {"commit.user-prefix", T_STR, NULL, F(commit_user_prefix), NULL, NO_RANGE, {0}},
    [PM_CO_COMMIT_FORCE_CREATE_SNAPSHOT] = {"commit.force-create-snapshot", T_BOOL, "false",
                                            F(commit_force_create_snapshot), NULL, NO_RANGE, {0}},
    [PM_CO_COMMIT_DISCARD_DUPLICATE_FILES] = {"commit.discard-duplicate-files", T_BOOL, "false",
                                              F(commit_discard_duplicate_files), NULL, NO_RANGE, {0}},
    [PM_CO_SNAPSHOT_NUM_RETAINED_MIN] = {"snapshot.num-retained.min", T_INT, "10", F(snapshot_num_retained_min), NULL,
                                         POS, {0}},
    [PM_CO_SNAPSHOT_NUM_RETAINED_MAX] = {"snapshot.num-retained.max", T_INT, "2147483647", F(snapshot_num_retained_max),
                                         NULL, POS, {0}},
    [PM_CO_SNAPSHOT_TIME_RETAINED] = {"snapshot.time-retained", T_DUR, "1 h", F(snapshot_time_retained_ms), NULL, NO_RANGE, {0}},
    [PM_CO_SNAPSHOT_EXPIRE_LIMIT] = {"snapshot.expire.limit", T_INT, "50", F(snapshot_expire_limit), NULL, POS, {0}},
    [PM_CO_SNAPSHOT_EXPIRE_EXECUTION_MODE] = {"snapshot.expire.execution-mode", T_ENUM, "sync",
                                              F(snapshot_expire_async), E_EXPIRE_MODE, NO_RANGE, {0}},
    [PM_CO_SNAPSHOT_CLEAN_EMPTY_DIRS] = {"snapshot.clean-empty-directories", T_BOOL, "false",
                                         F(snapshot_clean_empty_dirs), NULL, NO_RANGE,
                                         {"snapshot.expire.clean-empty-directories"}},
    [PM_CO_SNAPSHOT_IGNORE_EMPTY_COMMIT] = {"snapshot.ignore-empty-commit", T_BOOL, NULL,
                                            F(snapshot_ignore_empty_commit), NULL, NO_RANGE, {0}},
    [PM_CO_CHANGELOG_NUM_RETAINED_MIN] = {"changelog.num-retained.min", T_INT, NULL, F(changelog_num_retained_min),
                                          NULL, POS, {0}},
    [PM_CO_CHANGELOG_NUM_RETAINED_MAX] = {"changelog.num-retained.max", T_INT, NULL, F(changelog_num_retained_max),
                                          NULL, POS, {0}},
    [PM_CO_CHANGELOG_TIME_RETAINED] = {"changelog.time-retained", T_DUR, NULL, F(changelog_time_retained_ms), NULL,
                                       NO_RANGE, {0}},
    [PM_CO_CONSUMER_CHANGELOG_ONLY] = {"consumer.changelog-only", T_BOOL, "false", F(consumer_changelog_only), NULL,
                                       NO_RANGE, {0}},
    [PM_CO_CONSUMER_EXPIRATION_TIME] = {"consumer.expiration-time", T_DUR, NULL, F(consumer_expiration_ms), NULL,
                                        NO_RANGE, {0}},
    [PM_CO_DYNAMIC_PARTITION_OVERWRITE] = {"dynamic-partition-overwrite", T_BOOL, "true",
                                           F(dynamic_partition_overwrite), NULL, NO_RANGE, {0}},
    [PM_CO_OVERWRITE_UPGRADE] = {"overwrite-upgrade", T_BOOL, "true", F(overwrite_upgrade), NULL, NO_RANGE, {0}},

    [PM_CO_MERGE_ENGINE] = {"merge-engine", T_ENUM, "deduplicate", F(merge_engine), E_MERGE, NO_RANGE, {0}},
    [PM_CO_CHANGELOG_PRODUCER] = {"changelog-producer", T_ENUM, "none", F(changelog_producer), E_CHANGELOG, NO_RANGE, {0}},
    [PM_CO_CHANGELOG_ROW_DEDUPLICATE] = {"changelog-producer.row-deduplicate", T_BOOL, "false",
                                         F(changelog_row_deduplicate), NULL, NO_RANGE, {0}},
    [PM_CO_CHANGELOG_ROW_DEDUPLICATE_IGNORE_FIELDS] = {"changelog-producer.row-deduplicate-ignore-fields", T_STR, NULL,
                                                       F(changelog_row_deduplicate_ignore_fields), NULL, NO_RANGE, {0}},
    [PM_CO_LOOKUP_COMPACT] = {"lookup-compact", T_ENUM, "radical", F(lookup_compact), E_LOOKUP_COMPACT, NO_RANGE, {0}},
    [PM_CO_LOOKUP_COMPACT_MAX_INTERVAL] = {"lookup-compact.max-interval", T_INT, NULL, F(lookup_compact_max_interval),
                                           NULL, NO_RANGE, {0}},
    [PM_CO_SEQUENCE_FIELD] = {"sequence.field", T_STR, NULL, F(sequence_field), NULL, NO_RANGE, {0}},
    [PM_CO_SEQUENCE_FIELD_SORT_ORDER] = {"sequence.field.sort-order", T_ENUM, "ascending", F(sequence_field_sort_order),
                                         E_SORT, NO_RANGE, {0}},
    [PM_CO_IGNORE_DELETE] = {"ignore-delete", T_BOOL, "false", F(ignore_delete), NULL, NO_RANGE,
                             {"first-row.ignore-delete", "deduplicate.ignore-delete", "partial-update.ignore-delete"}},
    [PM_CO_IGNORE_UPDATE_BEFORE] = {"ignore-update-before", T_BOOL, "false", F(ignore_update_before), NULL, NO_RANGE, {0}},
    [PM_CO_PARTIAL_UPDATE_REMOVE_ON_DELETE] = {"partial-update.remove-record-on-delete", T_BOOL, "false",
                                               F(partial_update_remove_on_delete), NULL, NO_RANGE, {0}},
    [PM_CO_PARTIAL_UPDATE_REMOVE_ON_SEQ_GROUP] = {"partial-update.remove-record-on-sequence-group", T_STR, NULL,
                                                  F(partial_update_remove_on_seq_group), NULL, NO_RANGE, {0}},
    [PM_CO_AGGREGATION_REMOVE_ON_DELETE] = {"aggregation.remove-record-on-delete", T_BOOL, "false",
                                            F(aggregation_remove_on_delete), NULL, NO_RANGE, {0}},
    [PM_CO_DEFAULT_AGG_FUNCTION] = {"fields.default-aggregate-function", T_STR, NULL, F(default_agg_function), NULL,
                                    NO_RANGE, {0}},
    [PM_CO_FORCE_LOOKUP] = {"force-lookup", T_BOOL, "false", F(force_lookup), NULL, NO_RANGE, {0}},
    [PM_CO_DV_ENABLED] = {"deletion-vectors.enabled", T_BOOL, "false", F(dv_enabled), NULL, NO_RANGE, {0}},
    [PM_CO_DV_MERGE_ON_READ] = {"deletion-vectors.merge-on-read", T_BOOL, "false", F(dv_merge_on_read), NULL, NO_RANGE, {0}},
    [PM_CO_DV_BITMAP64] = {"deletion-vectors.bitmap64", T_BOOL, "false", F(dv_bitmap64), NULL, NO_RANGE, {0}},
    [PM_CO_DV_MODIFIABLE] = {"deletion-vectors.modifiable", T_BOOL, "false", F(dv_modifiable), NULL, NO_RANGE, {0}},
    [PM_CO_DV_INDEX_FILE_TARGET_SIZE] = {"deletion-vector.index-file.target-size", T_MEM, "2 mb",
                                         F(dv_index_file_target_size), NULL, 1, INT64_MAX, {0}},
    [PM_CO_NUM_SORTED_RUN_COMPACTION_TRIGGER] = {"num-sorted-run.compaction-trigger", T_INT, "5",
                                                 F(num_sorted_run_compaction_trigger), NULL, POS, {0}},
    [PM_CO_NUM_LEVELS] = {"num-levels", T_INT, NULL, F(num_levels), NULL, POS, {0}},
    [PM_CO_DYNAMIC_BUCKET_TARGET_ROW_NUM] = {"dynamic-bucket.target-row-num", T_LONG, "2000000",
                                             F(dynamic_bucket_target_row_num), NULL, 1, INT64_MAX, {0}},
    [PM_CO_DYNAMIC_BUCKET_INITIAL_BUCKETS] = {"dynamic-bucket.initial-buckets", T_INT, NULL,
                                              F(dynamic_bucket_initial_buckets), NULL, POS, {0}},
    [PM_CO_DYNAMIC_BUCKET_MAX_BUCKETS] = {"dynamic-bucket.max-buckets", T_INT, "-1", F(dynamic_bucket_max_buckets),
                                          NULL, -1, INT32_MAX, {0}},
    [PM_CO_POSTPONE_MERGE_ON_READ] = {"postpone.merge-on-read", T_BOOL, "false", F(postpone_merge_on_read), NULL, NO_RANGE, {0}},
    [PM_CO_DYNAMIC_BUCKET_ASSIGNER_PARALLELISM] = {"dynamic-bucket.assigner-parallelism", T_INT, NULL,
                                                   F(dynamic_bucket_assigner_parallelism), NULL, POS, {0}},
    [PM_CO_POSTPONE_DEFAULT_BUCKET_NUM] = {"postpone.default-bucket-num", T_INT, NULL,
                                           F(postpone_default_bucket_num), NULL, POS, {0}},
    [PM_CO_POSTPONE_TARGET_ROW_NUM_PER_BUCKET] = {"postpone.target-row-num-per-bucket", T_LONG, NULL,
                                                  F(postpone_target_row_num_per_bucket), NULL, 1, INT64_MAX, {0}},
    [PM_CO_POSTPONE_TARGET_SIZE_PER_BUCKET] = {"postpone.target-size-per-bucket", T_MEM, "1 gb",
                                               F(postpone_target_size_per_bucket), NULL, 1, INT64_MAX, {0}},
    [PM_CO_ROW_TRACKING] = {"row-tracking.enabled", T_BOOL, "false", F(row_tracking), NULL, NO_RANGE, {0}},
    [PM_CO_DATA_EVOLUTION] = {"data-evolution.enabled", T_BOOL, "false", F(data_evolution), NULL, NO_RANGE, {0}},
    [PM_CO_ROW_TRACKING_PARTITION_GROUP] = {"row-tracking.partition-group-on-commit", T_BOOL, "true",
                                            F(row_tracking_partition_group), NULL, NO_RANGE, {0}},

    [PM_CO_SCAN_MODE] = {"scan.mode", T_STR, NULL, F(scan_mode), NULL, NO_RANGE, {"log.scan"}},
    [PM_CO_SCAN_SNAPSHOT_ID] = {"scan.snapshot-id", T_LONG, NULL, F(scan_snapshot_id), NULL, NO_RANGE, {0}},
    [PM_CO_SCAN_TAG_NAME] = {"scan.tag-name", T_STR, NULL, F(scan_tag_name), NULL, NO_RANGE, {0}},
    [PM_CO_SCAN_WATERMARK] = {"scan.watermark", T_LONG, NULL, F(scan_watermark), NULL, NO_RANGE, {0}},
    [PM_CO_SCAN_TIMESTAMP_MILLIS] = {"scan.timestamp-millis", T_LONG, NULL, F(scan_timestamp_millis), NULL, NO_RANGE,
                                     {"log.scan.timestamp-millis"}},
    [PM_CO_SCAN_TIMESTAMP] = {"scan.timestamp", T_STR, NULL, F(scan_timestamp), NULL, NO_RANGE, {0}},
    [PM_CO_SCAN_VERSION] = {"scan.version", T_STR, NULL, F(scan_version), NULL, NO_RANGE, {0}},
    [PM_CO_SCAN_FILE_CREATION_TIME_MILLIS] = {"scan.file-creation-time-millis", T_LONG, NULL,
                                              F(scan_file_creation_time_millis), NULL, NO_RANGE, {0}},
    [PM_CO_SCAN_CREATION_TIME_MILLIS] = {"scan.creation-time-millis", T_LONG, NULL, F(scan_creation_time_millis), NULL,
                                         NO_RANGE, {0}},
    [PM_CO_SCAN_MANIFEST_PARALLELISM] = {"scan.manifest.parallelism", T_INT, NULL, F(scan_manifest_parallelism), NULL,
                                         NO_RANGE, {0}},
    [PM_CO_SCAN_FALLBACK_BRANCH] = {"scan.fallback-branch", T_STR, NULL, F(scan_fallback_branch), NULL, NO_RANGE, {0}},
    [PM_CO_SCAN_BUCKET] = {"scan.bucket", T_INT, NULL, F(scan_bucket), NULL, NO_RANGE, {0}},
    [PM_CO_SCAN_PLAN_SORT_PARTITION] = {"scan.plan-sort-partition", T_BOOL, "false", F(scan_plan_sort_partition), NULL,
                                        NO_RANGE, {0}},
    [PM_CO_SPLIT_TARGET_SIZE] = {"source.split.target-size", T_MEM, "128 mb", F(split_target_size), NULL, NO_RANGE,
                                 {"split.target-size"}},
    [PM_CO_SPLIT_OPEN_FILE_COST] = {"source.split.open-file-cost", T_MEM, "4 mb", F(split_open_file_cost), NULL,
                                    NO_RANGE, {"split.open-file-cost"}},
    [PM_CO_INCREMENTAL_BETWEEN] = {"incremental-between", T_STR, NULL, F(incremental_between), NULL, NO_RANGE, {0}},
    [PM_CO_INCREMENTAL_BETWEEN_TIMESTAMP] = {"incremental-between-timestamp", T_STR, NULL,
                                             F(incremental_between_timestamp), NULL, NO_RANGE, {0}},
    [PM_CO_INCREMENTAL_BETWEEN_SCAN_MODE] = {"incremental-between-scan-mode", T_ENUM, "auto",
                                             F(incremental_between_scan_mode), E_INCR, NO_RANGE, {0}},
    [PM_CO_INCREMENTAL_TAG_TO_SNAPSHOT] = {"incremental-between-tag-to-snapshot", T_BOOL, "false",
                                           F(incremental_tag_to_snapshot), NULL, NO_RANGE, {0}},
    [PM_CO_INCREMENTAL_TO_AUTO_TAG] = {"incremental-to-auto-tag", T_STR, NULL, F(incremental_to_auto_tag), NULL,
                                       NO_RANGE, {0}},
    [PM_CO_CONSUMER_ID] = {"consumer-id", T_STR, NULL, F(consumer_id), NULL, NO_RANGE, {0}},
    [PM_CO_CONSUMER_MODE] = {"consumer.mode", T_ENUM, "exactly-once", F(consumer_mode), E_CONSUMER_MODE, NO_RANGE, {0}},
    [PM_CO_CONSUMER_IGNORE_PROGRESS] = {"consumer.ignore-progress", T_BOOL, "false", F(consumer_ignore_progress), NULL,
                                        NO_RANGE, {0}},
    [PM_CO_CONTINUOUS_DISCOVERY_INTERVAL] = {"continuous.discovery-interval", T_DUR, "10 s",
                                             F(continuous_discovery_interval_ms), NULL, NO_RANGE, {0}},
    [PM_CO_STREAMING_READ_OVERWRITE] = {"streaming-read-overwrite", T_BOOL, "false", F(streaming_read_overwrite), NULL,
                                        NO_RANGE, {0}},
    [PM_CO_STREAMING_READ_APPEND_OVERWRITE] = {"streaming-read-append-overwrite", T_BOOL, "false",
                                               F(streaming_read_append_overwrite), NULL, NO_RANGE, {0}},
    [PM_CO_SCAN_BOUNDED_WATERMARK] = {"scan.bounded.watermark", T_LONG, NULL, F(scan_bounded_watermark), NULL, NO_RANGE,
                                      {0}},
    [PM_CO_STREAMING_READ_SNAPSHOT_DELAY] = {"streaming.read.snapshot.delay", T_DUR, NULL,
                                             F(streaming_read_snapshot_delay_ms), NULL, NO_RANGE, {0}},

    [PM_CO_READ_BATCH_SIZE] = {"read.batch-size", T_INT, "1024", F(read_batch_size), NULL, POS, {0}},
    [PM_CO_READ_PARALLELISM] = {"read.parallelism", T_INT, "1", F(read_parallelism), NULL, POS, {0}},
    [PM_CO_THREADS] = {"threads", T_INT, NULL, F(threads), NULL, 1, 1024, {0}},
    [PM_CO_SESSION_TIME_ZONE] = {"session_time_zone", T_STR, NULL, NOFIELD, NULL, NO_RANGE, {0}},
    [PM_CO_LOCAL_TIME_ZONE] = {"local-time-zone", T_STR, NULL, NOFIELD, NULL, NO_RANGE, {0}},
    [PM_CO_PATH_REWRITE] = {"path-rewrite", T_STR, NULL, F(path_rewrite), NULL, NO_RANGE, {0}},

    [PM_CO_TABLE_TYPE] = {"type", T_STR, "table", NOFIELD, NULL, NO_RANGE, {0}},
    [PM_CO_ALTER_NULL_TO_NOT_NULL_DISABLED] = {"alter-column-null-to-not-null.disabled", T_BOOL, "true", NOFIELD, NULL,
                                               NO_RANGE, {0}},
    [PM_CO_DISABLE_EXPLICIT_TYPE_CASTING] = {"disable-explicit-type-casting", T_BOOL, "false", NOFIELD, NULL, NO_RANGE,
                                             {0}},
    [PM_CO_ADD_COLUMN_BEFORE_PARTITION] = {"add-column-before-partition", T_BOOL, "false", NOFIELD, NULL, NO_RANGE, {0}},
    [PM_CO_PRIMARY_KEY_NULLABLE] = {"primary-key.nullable", T_BOOL, "false", F(primary_key_nullable), NULL, NO_RANGE,
                                    {0}},
    [PM_CO_CLUSTERING_COLUMNS] = {"clustering.columns", T_STR, NULL, NOFIELD, NULL, NO_RANGE,
                                  {"sink.clustering.by-columns"}},
    [PM_CO_PK_CLUSTERING_OVERRIDE] = {"pk-clustering-override", T_BOOL, "false", NOFIELD, NULL, NO_RANGE, {0}},
    [PM_CO_AUTO_CREATE] = {"auto-create", T_BOOL, "false", F(auto_create), NULL, NO_RANGE, {0}},
    [PM_CO_TARGET_FILE_ROW_NUM] = {"target-file-row-num", T_LONG, "9223372036854775807", F(target_file_row_num), NULL,
                                   NO_RANGE, {0}},
    [PM_CO_PATH] = {"path", T_STR, NULL, NOFIELD, NULL, NO_RANGE, {0}},
    [PM_CO_BRANCH] = {"branch", T_STR, "main", NOFIELD, NULL, NO_RANGE, {0}},
    [PM_CO_TAG_AUTOMATIC_CREATION] = {"tag.automatic-creation", T_STR, "none", NOFIELD, NULL, NO_RANGE, {0}},
    [PM_CO_TAG_CREATION_PERIOD] = {"tag.creation-period", T_STR, "daily", NOFIELD, NULL, NO_RANGE, {0}},
    [PM_CO_TAG_CREATION_PERIOD_DURATION] = {"tag.creation-period-duration", T_DUR, NULL, NOFIELD, NULL, NO_RANGE, {0}},
    [PM_CO_TAG_PERIOD_FORMATTER] = {"tag.period-formatter", T_STR, "with_dashes", NOFIELD, NULL, NO_RANGE, {0}},
    [PM_CO_TAG_CREATION_DELAY] = {"tag.creation-delay", T_DUR, "0 ms", NOFIELD, NULL, NO_RANGE, {0}},
    [PM_CO_TAG_NUM_RETAINED_MAX] = {"tag.num-retained-max", T_INT, NULL, NOFIELD, NULL, NO_RANGE, {0}},
    [PM_CO_TAG_DEFAULT_TIME_RETAINED] = {"tag.default-time-retained", T_DUR, NULL, NOFIELD, NULL, NO_RANGE, {0}},
    [PM_CO_TAG_AUTOMATIC_COMPLETION] = {"tag.automatic-completion", T_BOOL, "false", NOFIELD, NULL, NO_RANGE, {0}},
    [PM_CO_TAG_BATCH_CUSTOMIZED_NAME] = {"tag.batch.customized-name", T_STR, NULL, NOFIELD, NULL, NO_RANGE, {0}},
    [PM_CO_TAG_TIME_EXPIRE_ENABLED] = {"tag.time-expire-enabled", T_BOOL, "true", NOFIELD, NULL, NO_RANGE, {0}},
    [PM_CO_SINK_PROCESS_TIME_ZONE] = {"sink.process-time-zone", T_STR, NULL, NOFIELD, NULL, NO_RANGE, {0}},
    [PM_CO_SINK_WATERMARK_TIME_ZONE] = {"sink.watermark-time-zone", T_STR, "UTC", NOFIELD, NULL, NO_RANGE, {0}},
    [PM_CO_NUM_SORTED_RUN_STOP_TRIGGER] = {"num-sorted-run.stop-trigger", T_INT, NULL, F(num_sorted_run_stop_trigger),
                                           NULL, POS, {0}},
    [PM_CO_COMPACTION_MAX_SIZE_AMP] = {"compaction.max-size-amplification-percent", T_INT, "200",
                                       F(compaction_max_size_amp), NULL, 0, INT32_MAX, {0}},
    [PM_CO_COMPACTION_SIZE_RATIO] = {"compaction.size-ratio", T_INT, "1", F(compaction_size_ratio), NULL, 0, INT32_MAX,
                                     {0}},
    [PM_CO_COMPACTION_OPTIMIZATION_INTERVAL] = {"compaction.optimization-interval", T_DUR, NULL,
                                                F(compaction_optimization_interval_ms), NULL, NO_RANGE, {0}},
    [PM_CO_COMPACTION_TOTAL_SIZE_THRESHOLD] = {"compaction.total-size-threshold", T_MEM, NULL,
                                               F(compaction_total_size_threshold), NULL, NO_RANGE, {0}},
    [PM_CO_COMPACTION_INCREMENTAL_SIZE_THRESHOLD] = {"compaction.incremental-size-threshold", T_MEM, NULL,
                                                     F(compaction_incremental_size_threshold), NULL, NO_RANGE, {0}},
    [PM_CO_FULL_COMPACTION_DELTA_COMMITS] = {"full-compaction.delta-commits", T_INT, NULL,
                                             F(full_compaction_delta_commits), NULL, POS, {0}},
    [PM_CO_COMPACTION_SMALL_FILE_RATIO] = {"compaction.small-file-ratio", T_DOUBLE, "0.7", F(compaction_small_file_ratio),
                                           NULL, NO_RANGE, {0}},
    [PM_CO_COMPACTION_FORCE_REWRITE_ALL_FILES] = {"compaction.force-rewrite-all-files", T_BOOL, "false",
                                                  F(compaction_force_rewrite_all_files), NULL, NO_RANGE, {0}},
    [PM_CO_COMPACTION_FORCE_UP_LEVEL_0] = {"compaction.force-up-level-0", T_BOOL, "false",
                                           F(compaction_force_up_level_0), NULL, NO_RANGE, {0}},
    [PM_CO_COMPACTION_OFFPEAK_START_HOUR] = {"compaction.offpeak.start.hour", T_INT, "-1",
                                             F(compaction_offpeak_start_hour), NULL, NO_RANGE, {0}},
    [PM_CO_COMPACTION_OFFPEAK_END_HOUR] = {"compaction.offpeak.end.hour", T_INT, "-1", F(compaction_offpeak_end_hour),
                                           NULL, NO_RANGE, {0}},
    [PM_CO_COMPACTION_OFFPEAK_RATIO] = {"compaction.offpeak-ratio", T_INT, "0", F(compaction_offpeak_ratio), NULL, 0,
                                        INT32_MAX, {0}},
    [PM_CO_COMPACTION_MIN_FILE_NUM] = {"compaction.min.file-num", T_INT, "5", F(compaction_min_file_num), NULL, POS,
                                       {0}},
    [PM_CO_COMPACTION_FILE_NUM_LIMIT] = {"compaction.file-num-limit", T_INT, "100000", F(compaction_file_num_limit),
                                         NULL, POS, {0}},
    [PM_CO_COMPACTION_DELETE_RATIO_THRESHOLD] = {"compaction.delete-ratio-threshold", T_DOUBLE, "0.2",
                                                 F(compaction_delete_ratio), NULL, NO_RANGE, {0}},
    [PM_CO_SPILL_COMPRESSION] = {"spill-compression", T_STR, "zstd", F(spill_compression), NULL, NO_RANGE, {0}},
    [PM_CO_SPILL_COMPRESSION_ZSTD_LEVEL] = {"spill-compression.zstd-level", T_INT, "1", F(spill_zstd_level), NULL,
                                            -131072, 22, {0}},
    [PM_CO_SORT_SPILL_BUFFER_SIZE] = {"sort-spill-buffer-size", T_MEM, "64 mb", F(sort_spill_buffer_size), NULL, 1,
                                      INT64_MAX, {0}},
    [PM_CO_SORT_SPILL_THRESHOLD] = {"sort-spill-threshold", T_INT, NULL, F(sort_spill_threshold), NULL, NO_RANGE, {0}},
    [PM_CO_LOCAL_SORT_MAX_NUM_FILE_HANDLES] = {"local-sort.max-num-file-handles", T_INT, "128",
                                               F(local_sort_max_file_handles), NULL, 2, INT32_MAX, {0}},
    [PM_CO_WRITE_BUFFER_SPILL_MAX_DISK_SIZE] = {"write-buffer-spill.max-disk-size", T_MEM, "9223372036854775807 b",
                                                F(write_buffer_spill_max_disk), NULL, 1, INT64_MAX, {0}},
};

/* Java table options this library does not interpret (the typed ones are DEFS above): known, so
 * they do not warn. */
static const char *const OTHER_KNOWN[] = {
    "async-file-write", "batch-scan-mode", "blob-as-descriptor", "blob-compaction.enabled",
    "blob-descriptor-field", "blob-field", "blob-view-field", "blob-view.resolve.enabled",
    "blob-write-null-on-fetch-failure", "blob-write-null-on-missing-file", "blob.copy-buffer-size",
    "blob.split-by-file-size", "blob.stored-descriptor-fields", "blob.target-file-size", "bucket-append-ordered",
    "cache-page-size", "chain-table.chain-partition-keys", "chain-table.enabled",
    "chain-table.split.key-range-enabled", "chain-table.streaming.merge-snapshot",
    "changelog-producer.lookup-wait", "changelog-producer.row-deduplicate-ignore-fields",
    "clustering.history-partition.idle-to-full-sort", "clustering.history-partition.limit",
    "clustering.incremental", "clustering.incremental.mode", "clustering.incremental.optimize-write",
    "clustering.strategy", "commit.callbacks", "commit.strict-mode.last-safe-snapshot",
    "compaction.skip-expired-partitions", "consumer-id",
    "consumer.ignore-progress", "consumer.mode", "continuous.discovery-interval",
    "cross-partition-upsert.bootstrap-parallelism", "cross-partition-upsert.index-ttl",
    "data-evolution.compaction.rewrite-row-ids", "data-evolution.merge-into.file-pruning",
    "data-evolution.merge-into.source-persist", "data-evolution.reassign.skip-contiguous-row-count",
    "data-evolution.row-id-conflict-rewrite.max-size", "data-evolution.row-sidecar.enabled",
    "data-evolution.row-sidecar.max-selected-rows", "data-evolution.row-sidecar.max-selection-ratio",
    "deduplicate.ignore-delete", "delete-file.thread-num", "delete.force-produce-changelog",
    "file-operation.thread-num", "file-reader-async-threshold", "file.compression.per.level",
    "file.format.per.level", "first-row.ignore-delete", "format-table.commit-hive-sync-url",
    "format-table.file.compression", "format-table.implementation", "format-table.partition-path-only-value",
    "format-table.scan.list-parallelism", "full-text-index.search-mode", "global-index.build.max-parallelism",
    "global-index.build.max-shard", "global-index.column-update-action", "global-index.enabled",
    "global-index.external-path", "global-index.row-count-per-shard", "global-index.search-mode",
    "global-index.thread-num", "key-value.sequence_number.enabled", "local-kv-db.block-size",
    "local-merge-buffer-size", "log.scan", "log.scan.timestamp-millis", "lookup-compact",
    "lookup-compact.max-interval", "lookup-wait", "lookup.blob-as-descriptor", "lookup.cache-file-retention",
    "lookup.cache-max-disk-size", "lookup.cache-max-memory-size", "lookup.cache-rows",
    "lookup.cache-spill-compression", "lookup.cache.bloom.filter.enabled", "lookup.cache.bloom.filter.fpp",
    "lookup.cache.high-priority-pool-ratio", "lookup.continuous.discovery-interval", "lookup.hash-load-factor",
    "lookup.merge-buffer-size", "lookup.merge-records-threshold", "lookup.remote-file.enabled",
    "lookup.remote-file.level-threshold", "manifest-sort.enabled", "manifest-sort.max-rewrite-size",
    "manifest-sort.partition-field", "manifest.delete-file-drop-stats", "manifest.merge-optimize.enabled",
    "materialized-table.definition-query", "materialized-table.interval-freshness",
    "materialized-table.interval-freshness.time-unit", "materialized-table.logical-refresh-mode",
    "materialized-table.refresh-handler-bytes", "materialized-table.refresh-handler-description",
    "materialized-table.refresh-mode", "materialized-table.refresh-status", "metadata.stats-mode.per.level",
    "metastore.partitioned-table", "metastore.tag-to-partition", "metastore.tag-to-partition.preview",
    "orc.write.batch-size", "parquet.enable.dictionary", "parquet.variant.shreddingSchema",
    "partial-update.ignore-delete", "partition.end-input-to-done", "partition.idle-time-to-report-statistic",
    "partition.mark-done-action", "partition.mark-done-action.custom.class",
    "partition.mark-done-action.http.params", "partition.mark-done-action.http.url", "partition.sink-strategy",
    "partition.timestamp-format.strict", "pk-bitmap.index.columns", "pk-btree.index.columns",
    "pk-full-text.index.columns", "pk-multivalue.index.columns", "pk-vector.index.columns",
    "postpone.batch-write-fixed-bucket", "postpone.batch-write-fixed-bucket.max-parallelism",
    "postpone.batch-write-fixed-bucket.rescale-load-factor", "postpone.target-row-num-per-bucket",
    "postpone.target-size-per-bucket", "query-auth.enabled", "record-level.expire-time",
    "record-level.time-field", "scalar-index.search-mode", "scan.bounded.watermark",
    "scan.fallback-branch.read-fail-fast", "scan.fallback-delta-branch", "scan.fallback-snapshot-branch",
    "scan.ignore-corrupt-files", "scan.ignore-lost-files", "scan.max-splits-per-task",
    "scan.plan-auto-tag-for-read.time-retained", "scan.primary-branch", "sequence.snapshot-ordering",
    "sink.clustering.by-columns", "sink.clustering.strategy", "snapshot.expire.clean-empty-directories",
    "snapshot.watermark-idle-timeout",
    "sort-compaction.local-sample.magnification", "sort-compaction.range-strategy", "sort-engine",
    "stream-scan-mode", "streaming-read-append-overwrite", "streaming-read-overwrite",
    "streaming.read.snapshot.delay", "table-read.sequence-number.enabled", "tag.callbacks",
    "tag.create-success-file", "variant.inferShreddingSchema", "variant.shredding.adaptive.maxInferBufferRow",
    "variant.shredding.adaptive.retentionRatio", "variant.shredding.inferenceMode",
    "variant.shredding.maxInferBufferRow", "variant.shredding.maxSchemaDepth",
    "variant.shredding.maxSchemaWidth", "variant.shredding.minFieldCardinalityRatio", "variant.shreddingSchema",
    "vector-field", "vector-index.search-mode", "vector-search.distribute.enabled",
    "vector-search.lateral-join.batch-size", "vector.file.format", "vector.target-file-size",
    "visibility-callback.check-interval", "visibility-callback.enabled", "visibility-callback.timeout",
    "write-buffer-for-append", "write.batch-memory", "write.compaction-skip", "write.sequence-number-init-mode",
    "zorder.var-length-contribution", NULL
};

/* Key prefixes of option families: format options (orc.*, parquet.*), per-field
 * options, file indexes, callbacks, and the connector / catalog namespaces
 * engines store among table options. */
static const char *const KNOWN_PREFIXES[] = {
    "fields.",   "file-index.", "partition.", "orc.",      "parquet.",   "avro.",           "csv.",
    "json.",     "blob-descriptor.", "commit.callback.", "tag.callback.", "sink.", "log.",     "lookup.",
    "consumer.", "metastore.",  "materialized-table.", "global-index.", "format-table.", "variant.",
    "hive.",     "fs.",         "s3.",        "oss.",      "hadoop.",    "dlf.",            "table-default.",
    "changelog.", NULL};

/* Catalog options (Java CatalogOptions and the file-system catalog). */
static const char *const CATALOG_KNOWN[] = {
    "warehouse", "metastore", "uri", "table.type", "lock.enabled", "lock.type", "lock-check-max-sleep",
    "lock-acquire-timeout", "client-pool-size", "cache-enabled", "cache.expire-after-access",
    "cache.expire-after-write", "cache.partition.max-num", "cache.manifest.small-file-memory",
    "cache.manifest.small-file-threshold", "cache.manifest.max-memory", "cache.manifest.soft-values",
    "cache.snapshot.max-num-per-table", "cache.deletion-vectors.max-num", "case-sensitive", "sync-all-properties",
    "format-table.enabled", "catalog-options-table.enabled", "resolving-file-io.enabled", "file-io.allow-cache",
    "local-cache.enabled", "local-cache.dir", "local-cache.max-size", "local-cache.block-size",
    "local-cache.whitelist", "hadoop-conf-dir", "hive-conf-dir", "token", "token.provider", "catalog-key",
    "path-rewrite", "threads", NULL};
static const char *const CATALOG_PREFIXES[] = {"fs.", "s3.", "oss.", "hadoop.", "dlf.", "jdbc.", "hive.",
                                               "table-default.", "header.", "client-pool-cache.", "io-cache.",
                                               NULL};

static int has_prefix(const char *key, const char *const *prefixes) {
  for (size_t i = 0; prefixes[i]; i++)
    if (!strncmp(key, prefixes[i], strlen(prefixes[i]))) return 1;
  return 0;
}

static int in_list(const char *key, const char *const *list) {
  for (size_t i = 0; list[i]; i++)
    if (!strcmp(key, list[i])) return 1;
  return 0;
}

static int is_table_key(const char *key) {
  for (int i = 0; i < PM_CO_N; i++) {
    if (!strcmp(key, DEFS[i].key)) return 1;
    for (int f = 0; f < 4 && DEFS[i].fallback[f]; f++)
      if (!strcmp(key, DEFS[i].fallback[f])) return 1;
  }
  return in_list(key, OTHER_KNOWN) || has_prefix(key, KNOWN_PREFIXES);
}

/* Edit distance, bounded (returns > limit early when far). */
static size_t edit_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 64 || lb > 64) return 99;
  size_t row[65];
  for (size_t j = 0; j <= lb; j++) row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t prev = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t cur = row[j];
      size_t best = prev + (a[i - 1] != b[j - 1]);
      if (row[j] + 1 < best) best = row[j] + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      prev = cur;
    }
  }
  return row[lb];
}

static const char *closest(const char *key, const char *const *list, const char *best, size_t *best_d) {
  for (size_t i = 0; list[i]; i++) {
    size_t d = edit_distance(key, list[i]);
    if (d < *best_d) {
      *best_d = d;
      best = list[i];
    }
  }
  return best;
}

static int add_warning(char ***w, size_t *n, const char *what, const char *key, const char *suggest) {
  char msg[512];
  if (suggest) snprintf(msg, sizeof msg, "unknown %s option '%s' (did you mean '%s'?)", what, key, suggest);
  else snprintf(msg, sizeof msg, "unknown %s option '%s'", what, key);
  char **nw = realloc(*w, (*n + 1) * sizeof *nw);
  if (!nw) return -1;
  *w = nw;
  if (!(nw[*n] = strdup(msg))) return -1;
  (*n)++;
  return 0;
}

static void free_warnings(char **w, size_t n) {
  for (size_t i = 0; i < n; i++) free(w[i]);
  free(w);
}

static const char *table_suggestion(const char *key) {
  size_t d = 3; /* suggest within distance 2 */
  const char *best = NULL;
  for (int i = 0; i < PM_CO_N; i++) {
    size_t e = edit_distance(key, DEFS[i].key);
    if (e < d) {
      d = e;
      best = DEFS[i].key;
    }
  }
  return closest(key, OTHER_KNOWN, best, &d);
}

/* ------------------------------------------------------------- parse */

static const char *given(const pm_options *o, const odef *d, const char **key_used) {
  const char *v = pm_options_get(o, d->key);
  *key_used = d->key;
  for (int f = 0; !v && f < 4 && d->fallback[f]; f++)
    if ((v = pm_options_get(o, d->fallback[f]))) *key_used = d->fallback[f];
  return v;
}

static int range_check(const odef *d, const char *key, const char *text, int64_t v, pm_error *err) {
  if (d->min < d->max && (v < d->min || v > d->max)) {
    if (d->max == INT32_MAX || d->max == INT64_MAX)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option '%s': '%s' is invalid (must be >= %lld)", key, text,
                       (long long)d->min);
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option '%s': '%s' is invalid (must be in [%lld, %lld])", key,
                     text, (long long)d->min, (long long)d->max);
  }
  return 0;
}

static int parse_one(pm_core_options *co, const odef *d, const char *key, const char *text, pm_error *err) {
  char *field = d->off == NOFIELD ? NULL : (char *)co + d->off;
  int64_t v = 0;
  int b = 0;
  switch (d->type) {
    case T_STR:
      if (field) *(const char **)field = text;
      return 0;
    case T_BOOL:
      PM_TRY(pm_parse_bool(key, text, &b, err));
      if (field) *(int *)field = b;
      return 0;
    case T_ENUM:
      PM_TRY(pm_parse_enum(key, text, d->names, &b, err));
      if (field) *(int *)field = b;
      return 0;
    case T_INT:
    case T_LONG:
      PM_TRY(pm_parse_int64(key, text, &v, err));
      if (d->type == T_INT && (v < INT32_MIN || v > INT32_MAX))
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option '%s': '%s' does not fit in 32 bits", key, text);
      break;
    case T_MEM:
      PM_TRY(pm_parse_memory_size(key, text, &v, err));
      break;
    case T_DUR:
      PM_TRY(pm_parse_duration_ms(key, text, &v, err));
      break;
    case T_DOUBLE: {
      char *end = NULL;
      double dv = strtod(text, &end);
      while (end && (*end == ' ' || *end == '\t')) end++;
      if (!end || end == text || *end)
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option '%s': '%s' is not a number", key, text);
      if (field) *(double *)field = dv;
      return 0;
    }
  }
  PM_TRY(range_check(d, key, text, v, err));
  if (field) {
    if (d->type == T_INT) *(int32_t *)field = (int32_t)v;
    else *(int64_t *)field = v;
  }
  return 0;
}

static int check_stats_mode(const char *key, const char *v, pm_error *err) {
  const char *a, *b;
  trim(v, &a, &b);
  size_t n = (size_t)(b - a);
  if ((n == 4 && !strncasecmp(a, "none", 4)) || (n == 6 && !strncasecmp(a, "counts", 6)) ||
      (n == 4 && !strncasecmp(a, "full", 4)))
    return 0;
  if (n > 10 && !strncasecmp(a, "truncate(", 9) && b[-1] == ')') {
    const char *p = a + 9;
    while (p < b - 1 && *p >= '0' && *p <= '9') p++;
    if (p == b - 1 && p > a + 9) return 0;
  }
  return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                   "option '%s': '%s' is not a stats mode (none, counts, full, truncate(N))", key, v);
}

int pm_core_options_parse(const pm_options *opts, int32_t table_version, int has_pk, pm_core_options *co,
                          pm_error *err) {
  memset(co, 0, sizeof *co);
  pm_options_init(&co->raw);
  int rc = opts ? pm_options_copy(opts, &co->raw, err) : 0;
  for (int i = 0; !rc && i < PM_CO_N; i++) {
    const odef *d = &DEFS[i];
    const char *key = NULL, *text = given(&co->raw, d, &key);
    co->set[i] = text != NULL;
    if (!text) {
      text = d->def;
      key = d->key;
    }
    if (text) rc = parse_one(co, d, key, text, err);
  }
  if (rc) {
    pm_core_options_clear(co);
    return rc;
  }
  /* defaults that depend on the table, and validations across options */
  if (!co->file_format) co->file_format = table_version <= 2 ? "orc" : "parquet";
  if (!co->set[PM_CO_TARGET_FILE_SIZE]) co->target_file_size = (int64_t)(has_pk ? 128 : 256) << 20;
  if (!co->set[PM_CO_SCAN_MANIFEST_PARALLELISM]) co->scan_manifest_parallelism = 4;
  if (!co->scan_mode) co->scan_mode = "default";
  if (!co->set[PM_CO_THREADS]) co->threads = PM_CO_DEFAULT_THREADS;
  if (!co->set[PM_CO_NUM_SORTED_RUN_STOP_TRIGGER])
    co->num_sorted_run_stop_trigger = co->num_sorted_run_compaction_trigger > INT32_MAX - 3
                                          ? INT32_MAX
                                          : co->num_sorted_run_compaction_trigger + 3;
  if (co->num_sorted_run_stop_trigger < co->num_sorted_run_compaction_trigger)
    co->num_sorted_run_stop_trigger = co->num_sorted_run_compaction_trigger;
  /* Java's sortSpillThreshold(): unset = stop-trigger + 1 (saturating), and never below 2 */
  if (!co->set[PM_CO_SORT_SPILL_THRESHOLD])
    co->sort_spill_threshold =
        co->num_sorted_run_stop_trigger == INT32_MAX ? INT32_MAX : co->num_sorted_run_stop_trigger + 1;
  if (co->sort_spill_threshold <= 1)
    rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option '%s' (%d): the sort spill threshold cannot be smaller than 2",
                   DEFS[PM_CO_SORT_SPILL_THRESHOLD].key, (int)co->sort_spill_threshold);
  co->session_time_zone = pm_options_get(&co->raw, DEFS[PM_CO_SESSION_TIME_ZONE].key);
  if (!co->session_time_zone) co->session_time_zone = pm_options_get(&co->raw, DEFS[PM_CO_LOCAL_TIME_ZONE].key);
  if (!rc) rc = check_stats_mode(DEFS[PM_CO_METADATA_STATS_MODE].key, co->metadata_stats_mode, err);
  if (!rc && co->changelog_file_stats_mode)
    rc = check_stats_mode(DEFS[PM_CO_CHANGELOG_FILE_STATS_MODE].key, co->changelog_file_stats_mode, err);
  if (!rc && co->snapshot_num_retained_min > co->snapshot_num_retained_max)
    rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                   "option '%s' (%d) must not be greater than '%s' (%d)", DEFS[PM_CO_SNAPSHOT_NUM_RETAINED_MIN].key,
                   (int)co->snapshot_num_retained_min, DEFS[PM_CO_SNAPSHOT_NUM_RETAINED_MAX].key,
                   (int)co->snapshot_num_retained_max);
  for (size_t i = 0; !rc && i < co->raw.n; i++) {
    const char *k = co->raw.keys[i];
    if (is_table_key(k)) continue;
    if (add_warning(&co->warnings, &co->n_warnings, "table", k, table_suggestion(k))) rc = PM_NOMEM(err);
  }
  if (rc) pm_core_options_clear(co);
  return rc;
}

void pm_core_options_clear(pm_core_options *co) {
  if (!co) return;
  pm_options_clear(&co->raw);
  free_warnings(co->warnings, co->n_warnings);
  memset(co, 0, sizeof *co);
}

const char *pm_core_option_key(pm_co_id id) { return id < PM_CO_N ? DEFS[id].key : NULL; }

const char *pm_core_option_text(const pm_core_options *co, pm_co_id id) {
  if (id >= PM_CO_N) return NULL;
  const char *key;
  return given(&co->raw, &DEFS[id], &key);
}

const char *pm_core_option_given_key(const pm_core_options *co, pm_co_id id) {
  if (id >= PM_CO_N) return NULL;
  const char *key;
  given(&co->raw, &DEFS[id], &key);
  return key;
}

/* ------------------------------------------------------ field options */

static const char *const FIELD_OPT_NAMES[] = {
    [PM_FIELD_AGG_FUNCTION] = "aggregate-function",
    [PM_FIELD_IGNORE_RETRACT] = "ignore-retract",
    [PM_FIELD_DISTINCT] = "distinct",
    [PM_FIELD_LIST_AGG_DELIMITER] = "list-agg-delimiter",
    [PM_FIELD_NESTED_KEY] = "nested-key",
    [PM_FIELD_NESTED_KEY_NULL_STRATEGY] = "nested-key-null-strategy",
    [PM_FIELD_NESTED_SEQUENCE_FIELD] = "nested-sequence-field",
    [PM_FIELD_COUNT_LIMIT] = "count-limit",
    [PM_FIELD_TS_FIELD] = "ts-field",
    [PM_FIELD_STATS_MODE] = "stats-mode",
    [PM_FIELD_SEQUENCE_GROUP] = "sequence-group",
    [PM_FIELD_MAP_STORAGE_LAYOUT] = "map.storage-layout",
    [PM_FIELD_MAP_SHREDDING_MAX_COLUMNS] = "map.shared-shredding.max-columns",
    [PM_FIELD_MAP_SHREDDING_PLACEMENT] = "map.shared-shredding.column-placement-policy",
};

const char *pm_field_option_name(pm_field_opt which) {
  return (size_t)which < sizeof FIELD_OPT_NAMES / sizeof FIELD_OPT_NAMES[0] ? FIELD_OPT_NAMES[which] : NULL;
}

int pm_field_option_key(const char *field, pm_field_opt which, char *buf, size_t cap) {
  const char *name = pm_field_option_name(which);
  if (!name || !field) return -1;
  int n = snprintf(buf, cap, "fields.%s.%s", field, name);
  return n < 0 || (size_t)n >= cap ? -1 : 0;
}

const char *pm_field_option(const pm_options *opts, const char *field, pm_field_opt which) {
  char key[640];
  if (!opts || pm_field_option_key(field, which, key, sizeof key)) return NULL;
  return pm_options_get(opts, key);
}

int pm_field_option_bool(const pm_options *opts, const char *field, pm_field_opt which, int def, int *out,
                         pm_error *err) {
  char key[640];
  *out = def;
  if (!opts || pm_field_option_key(field, which, key, sizeof key)) return 0;
  const char *v = pm_options_get(opts, key);
  return v ? pm_parse_bool(key, v, out, err) : 0;
}

int pm_field_sequence_group(const pm_options *opts, size_t i, char **groups) {
  static const char prefix[] = "fields.", suffix[] = ".sequence-group";
  const size_t pl = sizeof prefix - 1, sl = sizeof suffix - 1;
  *groups = NULL;
  if (!opts || i >= opts->n) return 0;
  const char *k = opts->keys[i];
  size_t kl = strlen(k);
  if (strncmp(k, prefix, pl) || kl <= pl + sl || strcmp(k + kl - sl, suffix)) return 0;
  *groups = strndup(k + pl, kl - pl - sl);
  return *groups ? 1 : -1;
}

/* ------------------------------------------------- schema evolution */

/* Java's CoreOptions fields annotated @Immutable. */
static const char *const IMMUTABLE_KEYS[] = {
    "type", "bucket-key", "bucket-function.type", "data-file.path-directory", "merge-engine",
    "sequence.snapshot-ordering", "aggregation.remove-record-on-delete", "partial-update.remove-record-on-delete",
    "partial-update.remove-record-on-sequence-group", "rowkind.field", "primary-key", "primary-key.nullable",
    "partition", "dynamic-bucket.initial-buckets", "force-lookup", "row-tracking.enabled", "data-evolution.enabled",
    "index-file-in-data-file-dir", "blob-field", "blob-descriptor-field", "blob-view-field", "pk-clustering-override",
    NULL};

int pm_core_option_is_immutable(const char *key) { return key && in_list(key, IMMUTABLE_KEYS); }

void pm_option_edits_free(pm_option_edit *e, size_t n) {
  for (size_t i = 0; e && i < n; i++) {
    free(e[i].key);
    free(e[i].value);
  }
  free(e);
}

typedef struct edit_list {
  pm_option_edit *e;
  size_t n, cap;
} edit_list;

/* Takes ownership of key and value (freed on failure). */
static int edit_push(edit_list *l, int remove, char *key, char *value) {
  if (!key || (!remove && !value)) goto fail;
  if (l->n == l->cap) {
    size_t nc = l->cap ? l->cap * 2 : 8;
    pm_option_edit *ne = realloc(l->e, nc * sizeof *ne);
    if (!ne) goto fail;
    l->e = ne;
    l->cap = nc;
  }
  l->e[l->n].remove = remove;
  l->e[l->n].key = key;
  l->e[l->n].value = value;
  l->n++;
  return 0;
fail:
  free(key);
  free(value);
  return -1;
}

static const char *rename_of(const char *name, size_t len, const char *const *from, const char *const *to, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (strlen(from[i]) == len && !strncmp(from[i], name, len)) return to[i];
  return NULL;
}

/* Java: String.join(",", map(rename, s.split(","))): split drops trailing empty parts. */
static char *rename_list(const char *s, size_t len, const char *const *from, const char *const *to, size_t n) {
  size_t end = len;
  while (end > 0 && s[end - 1] == ',') end--;
  size_t cap = len + 1;
  for (size_t i = 0; i < n; i++) cap += strlen(to[i]) * (len + 1);
  char *out = malloc(cap), *w = out;
  if (!out) return NULL;
  size_t a = 0;
  while (a < end) {
    size_t b = a;
    while (b < end && s[b] != ',') b++;
    const char *r = rename_of(s + a, b - a, from, to, n);
    if (w != out) *w++ = ',';
    if (r) {
      memcpy(w, r, strlen(r));
      w += strlen(r);
    } else {
      memcpy(w, s + a, b - a);
      w += b - a;
    }
    a = b + 1;
  }
  *w = 0;
  return out;
}

static int is_blank(const char *s) {
  for (; *s; s++)
    if (!isspace((unsigned char)*s)) return 0;
  return 1;
}

int pm_options_rename_edits(const pm_options *opts, const char *const *from, const char *const *to, size_t n,
                            pm_option_edit **edits, size_t *n_edits, pm_error *err) {
  edit_list l = {0};
  *edits = NULL;
  *n_edits = 0;
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++)
      if (!strcmp(from[i], from[j]))
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "column '%s' is renamed twice in one alter", from[i]);
  /* case 1: fixed keys whose value lists columns */
  const pm_co_id list_keys[] = {PM_CO_BUCKET_KEY, PM_CO_SEQUENCE_FIELD};
  for (size_t k = 0; k < 2; k++) {
    const char *key = DEFS[list_keys[k]].key, *v = pm_options_get(opts, key);
    if (v && !is_blank(v) && edit_push(&l, 0, strdup(key), rename_list(v, strlen(v), from, to, n))) goto nomem;
  }
  /* case 2: fields.<col>.<name> keys move with the column (the working map is opts plus the edits so far) */
  const pm_field_opt moved[] = {PM_FIELD_AGG_FUNCTION,        PM_FIELD_IGNORE_RETRACT,
                                PM_FIELD_DISTINCT,            PM_FIELD_LIST_AGG_DELIMITER,
                                PM_FIELD_MAP_STORAGE_LAYOUT,  PM_FIELD_MAP_SHREDDING_MAX_COLUMNS,
                                PM_FIELD_MAP_SHREDDING_PLACEMENT};
  pm_options work;
  if (pm_options_copy(opts, &work, err)) goto fail_quiet;
  for (size_t r = 0; r < n; r++) {
    for (size_t m = 0; m < sizeof moved / sizeof moved[0]; m++) {
      char ok[640], nk[640];
      if (pm_field_option_key(from[r], moved[m], ok, sizeof ok) || pm_field_option_key(to[r], moved[m], nk, sizeof nk))
        continue;
      const char *v = pm_options_get(&work, ok);
      if (!v) continue;
      char *val = strdup(v);
      if (!val || edit_push(&l, 1, strdup(ok), NULL) || pm_options_set(&work, nk, val, err)) {
        free(val);
        pm_options_clear(&work);
        goto nomem;
      }
      pm_options_remove(&work, ok);
      if (edit_push(&l, 0, strdup(nk), val)) {
        pm_options_clear(&work);
        goto nomem;
      }
    }
  }
  /* case 3: fields.<c1,c2>.sequence-group / nested-key: key and value both list columns */
  static const char prefix[] = "fields";
  const pm_field_opt both[] = {PM_FIELD_SEQUENCE_GROUP, PM_FIELD_NESTED_KEY};
  for (size_t i = 0; i < opts->n; i++) {
    const char *k = opts->keys[i];
    size_t kl = strlen(k), pl = sizeof prefix - 1;
    if (strncmp(k, prefix, pl)) continue;
    const char *suffix = NULL;
    for (size_t b = 0; b < 2 && !suffix; b++) {
      const char *sfx = FIELD_OPT_NAMES[both[b]];
      size_t sl = strlen(sfx);
      if (kl >= sl && !strcmp(k + kl - sl, sfx)) suffix = sfx;
    }
    if (!suffix) continue;
    size_t sl = strlen(suffix);
    if (kl < pl + 1 + sl + 1) continue; /* Java would fail on the substring; such a key cannot name columns */
    const char *v = pm_options_get(&work, k);
    char *nv = v ? rename_list(v, strlen(v), from, to, n) : strdup("null");
    char *cols = rename_list(k + pl + 1, kl - pl - 1 - sl - 1, from, to, n);
    char *nk = cols ? malloc(pl + strlen(cols) + sl + 3) : NULL;
    if (nk) sprintf(nk, "%s.%s.%s", prefix, cols, suffix);
    free(cols);
    if (!nv || !nk || edit_push(&l, 1, strdup(k), NULL)) {
      free(nv);
      free(nk);
      pm_options_clear(&work);
      goto nomem;
    }
    pm_options_remove(&work, k);
    if (pm_options_set(&work, nk, nv, err)) {
      free(nk);
      free(nv);
      pm_options_clear(&work);
      goto nomem;
    }
    if (edit_push(&l, 0, nk, nv)) {
      pm_options_clear(&work);
      goto nomem;
    }
  }
  pm_options_clear(&work);
  *edits = l.e;
  *n_edits = l.n;
  return 0;
nomem:
  pm_option_edits_free(l.e, l.n);
  return PM_NOMEM(err);
fail_quiet:
  pm_option_edits_free(l.e, l.n);
  return PAIMON_ERR_NOMEM;
}

/* ---------------------------------------------------- catalog options */

int pm_catalog_options_parse(const pm_options *opts, pm_catalog_options *out, pm_error *err) {
  memset(out, 0, sizeof *out);
  const char *wh = opts ? pm_options_get(opts, CATALOG_KNOWN[0]) : NULL;
  if (!wh || !*wh)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "catalog: option '%s' is required", CATALOG_KNOWN[0]);
  out->warehouse = wh;
  out->metastore = pm_options_get(opts, CATALOG_KNOWN[1]);
  if (!out->metastore) out->metastore = "filesystem";
  out->path_rewrite = pm_options_get(opts, DEFS[PM_CO_PATH_REWRITE].key);
  const char *th = pm_options_get(opts, DEFS[PM_CO_THREADS].key);
  if (th) {
    pm_core_options tmp;
    memset(&tmp, 0, sizeof tmp);
    PM_TRY(parse_one(&tmp, &DEFS[PM_CO_THREADS], DEFS[PM_CO_THREADS].key, th, err));
    out->threads = tmp.threads;
  }
  for (size_t i = 0; i < opts->n; i++) {
    const char *k = opts->keys[i];
    if (in_list(k, CATALOG_KNOWN) || has_prefix(k, CATALOG_PREFIXES)) continue;
    size_t d = 3;
    const char *s = closest(k, CATALOG_KNOWN, NULL, &d);
    if (add_warning(&out->warnings, &out->n_warnings, "catalog", k, s)) {
      pm_catalog_options_clear(out);
      return PM_NOMEM(err);
    }
  }
  return 0;
}

void pm_catalog_options_clear(pm_catalog_options *co) {
  if (!co) return;
  free_warnings(co->warnings, co->n_warnings);
  memset(co, 0, sizeof *co);
}

const char *pm_field_option_prefix(void) { return "fields."; }

const char *pm_table_default_option_prefix(void) { return "table-default."; }

const char *pm_file_index_option_prefix(void) { return "file-index."; }
