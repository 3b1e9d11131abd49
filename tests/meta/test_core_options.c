/* Typed options: value parsers as Java parses them, defaults, validation naming key and value,
 * unknown-key warnings, field options and catalog options. */
#include "harness.h"
#include "meta/core_options.h"

static pm_error err;

static int64_t mem(const char *s) {
  int64_t v = -1;
  CHECK_OK(pm_parse_memory_size("k", s, &v, &err), &err);
  return v;
}

static int64_t dur(const char *s) {
  int64_t v = -1;
  CHECK_OK(pm_parse_duration_ms("k", s, &v, &err), &err);
  return v;
}

static void test_memory_sizes(void) {
  CHECK_EQ_INT(mem("64 mb"), 64ll << 20);
  CHECK_EQ_INT(mem("256kb"), 256ll << 10);
  CHECK_EQ_INT(mem("128"), 128);
  CHECK_EQ_INT(mem("500 B"), 500);
  CHECK_EQ_INT(mem("1 bytes"), 1);
  CHECK_EQ_INT(mem("  2 g  "), 2ll << 30);
  CHECK_EQ_INT(mem("3 GiBiBytes"), 3ll << 30);
  CHECK_EQ_INT(mem("1 tb"), 1ll << 40);
  CHECK_EQ_INT(mem("8 m"), 8ll << 20);
  CHECK_EQ_INT(mem("7k"), 7ll << 10);
  CHECK_EQ_INT(mem("2MiB"), 2ll << 20); /* IEC spelling kept as an extension */
  int64_t v;
  CHECK_EQ_INT(pm_parse_memory_size("write-buffer-size", "-5 mb", &v, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "write-buffer-size") && strstr(err.message, "-5 mb"));
  CHECK_EQ_INT(pm_parse_memory_size("k", "mb", &v, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(pm_parse_memory_size("k", "", &v, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(pm_parse_memory_size("k", "12 parsecs", &v, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "parsecs") != NULL);
  CHECK_EQ_INT(pm_parse_memory_size("k", "1.5 mb", &v, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(pm_parse_memory_size("k", "99999999999 tb", &v, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(pm_parse_memory_size("k", "99999999999999999999", &v, &err), PAIMON_ERR_INVALID_ARGUMENT);
}

static void test_durations(void) {
  CHECK_EQ_INT(dur("1 h"), 3600000);
  CHECK_EQ_INT(dur("30 s"), 30000);
  CHECK_EQ_INT(dur("30s"), 30000);
  CHECK_EQ_INT(dur("10"), 10); /* no unit = milliseconds */
  CHECK_EQ_INT(dur("10 ms"), 10);
  CHECK_EQ_INT(dur("2 min"), 120000);
  CHECK_EQ_INT(dur("2 m"), 120000);
  CHECK_EQ_INT(dur("3 minutes"), 180000);
  CHECK_EQ_INT(dur("1 d"), 86400000);
  CHECK_EQ_INT(dur("2 days"), 172800000);
  CHECK_EQ_INT(dur("5 SECS"), 5000);
  CHECK_EQ_INT(dur("3 hours"), 10800000);
  CHECK_EQ_INT(dur("2500 micros"), 2);
  CHECK_EQ_INT(dur("3000000 ns"), 3);
  int64_t v;
  CHECK_EQ_INT(pm_parse_duration_ms("commit.timeout", "1 fortnight", &v, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "commit.timeout") && strstr(err.message, "1 fortnight"));
  CHECK_EQ_INT(pm_parse_duration_ms("k", "h", &v, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(pm_parse_duration_ms("k", "-1 s", &v, &err), PAIMON_ERR_INVALID_ARGUMENT);
}

static void test_bool_int_enum(void) {
  int b = -1;
  CHECK_OK(pm_parse_bool("k", "TRUE", &b, &err), &err);
  CHECK_EQ_INT(b, 1);
  CHECK_OK(pm_parse_bool("k", "False", &b, &err), &err);
  CHECK_EQ_INT(b, 0);
  CHECK_EQ_INT(pm_parse_bool("deletion-vectors.enabled", "yes", &b, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "deletion-vectors.enabled") && strstr(err.message, "'yes'"));
  CHECK_EQ_INT(pm_parse_bool("k", "1", &b, &err), PAIMON_ERR_INVALID_ARGUMENT);
  int64_t v;
  CHECK_OK(pm_parse_int64("k", "-42", &v, &err), &err);
  CHECK_EQ_INT(v, -42);
  CHECK_EQ_INT(pm_parse_int64("k", "4x", &v, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(pm_parse_int64("k", "99999999999999999999", &v, &err), PAIMON_ERR_INVALID_ARGUMENT);
  static const char *const names[] = {"deduplicate", "partial-update", NULL};
  int e = -1;
  CHECK_OK(pm_parse_enum("merge-engine", "Partial-Update", names, &e, &err), &err);
  CHECK_EQ_INT(e, 1);
  CHECK_EQ_INT(pm_parse_enum("merge-engine", "dedup", names, &e, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "merge-engine") && strstr(err.message, "dedup") && strstr(err.message, "partial-update"));
}

static int parse_kv(const char *const *kv, int version, int has_pk, pm_core_options *co) {
  pm_options o;
  pm_options_init(&o);
  for (size_t i = 0; kv && kv[i]; i += 2) CHECK_OK(pm_options_set(&o, kv[i], kv[i + 1], &err), &err);
  int rc = pm_core_options_parse(&o, version, has_pk, co, &err);
  pm_options_clear(&o);
  return rc;
}

static void test_defaults(void) {
  pm_core_options co;
  CHECK_OK(parse_kv(NULL, 3, 0, &co), &err);
  CHECK_EQ_INT(co.bucket, -1);
  CHECK_EQ_STR(co.file_format, "parquet");
  CHECK_EQ_STR(co.file_compression, "zstd");
  CHECK_EQ_INT(co.file_zstd_level, 1);
  CHECK_EQ_INT(co.target_file_size, 256ll << 20);
  CHECK_EQ_INT(co.write_buffer_size, 256ll << 20);
  CHECK_EQ_INT(co.manifest_target_file_size, 8ll << 20);
  CHECK_EQ_INT(co.manifest_merge_min_count, 30);
  CHECK_EQ_INT(co.commit_max_retries, 10);
  CHECK_EQ_INT(co.commit_min_retry_wait_ms, 10);
  CHECK_EQ_INT(co.commit_max_retry_wait_ms, 10000);
  CHECK_EQ_INT(co.snapshot_num_retained_min, 10);
  CHECK_EQ_INT(co.snapshot_num_retained_max, INT32_MAX);
  CHECK_EQ_INT(co.snapshot_time_retained_ms, 3600000);
  CHECK_EQ_STR(co.partition_default_name, "__DEFAULT_PARTITION__");
  CHECK_EQ_INT(co.partition_legacy_name, 1);
  CHECK_EQ_INT(co.changelog_producer, PM_CHANGELOG_NONE);
  CHECK_EQ_INT(co.merge_engine, PM_MERGE_DEDUPLICATE);
  CHECK_EQ_STR(co.metadata_stats_mode, "truncate(16)");
  CHECK_EQ_INT(co.read_batch_size, 1024);
  CHECK_EQ_INT(co.read_parallelism, 1);
  CHECK_EQ_INT(co.threads, PM_CO_DEFAULT_THREADS);
  CHECK_EQ_INT(co.split_target_size, 128ll << 20);
  CHECK_EQ_INT(co.split_open_file_cost, 4ll << 20);
  CHECK_EQ_INT(co.scan_manifest_parallelism, 4);
  CHECK_EQ_STR(co.scan_mode, "default");
  CHECK(!co.set[PM_CO_SCAN_SNAPSHOT_ID]);
  CHECK(co.sequence_field == NULL && co.scan_fallback_branch == NULL);
  CHECK_EQ_INT(co.n_warnings, 0);
  pm_core_options_clear(&co);
  CHECK_OK(parse_kv(NULL, 2, 1, &co), &err);
  CHECK_EQ_STR(co.file_format, "orc"); /* old tables default to ORC */
  CHECK_EQ_INT(co.target_file_size, 128ll << 20);
  pm_core_options_clear(&co);
}

static void test_values(void) {
  static const char *const kv[] = {"bucket", "4", "merge-engine", "Aggregation", "changelog-producer", "lookup",
                                   "write-buffer-size", "64 mb", "snapshot.time-retained", "30 s",
                                   "scan.snapshot-id", "3", "split.target-size", "1 kb", "partial-update.ignore-delete",
                                   "true", "session_time_zone", "Asia/Shanghai", "threads", "1", "local-time-zone",
                                   "UTC", NULL};
  pm_core_options co;
  CHECK_OK(parse_kv(kv, 3, 1, &co), &err);
  CHECK_EQ_INT(co.bucket, 4);
  CHECK_EQ_INT(co.merge_engine, PM_MERGE_AGGREGATION);
  CHECK_EQ_INT(co.changelog_producer, PM_CHANGELOG_LOOKUP);
  CHECK_EQ_INT(co.write_buffer_size, 64ll << 20);
  CHECK_EQ_INT(co.snapshot_time_retained_ms, 30000);
  CHECK(co.set[PM_CO_SCAN_SNAPSHOT_ID]);
  CHECK_EQ_INT(co.scan_snapshot_id, 3);
  CHECK_EQ_STR(pm_core_option_text(&co, PM_CO_SCAN_SNAPSHOT_ID), "3");
  CHECK_EQ_INT(co.split_target_size, 1024); /* fallback key */
  CHECK_EQ_STR(pm_core_option_given_key(&co, PM_CO_SPLIT_TARGET_SIZE), "split.target-size");
  CHECK_EQ_INT(co.ignore_delete, 1);
  CHECK_EQ_STR(co.session_time_zone, "Asia/Shanghai");
  CHECK_EQ_INT(co.threads, 1);
  CHECK_EQ_INT(co.n_warnings, 0);
  CHECK_EQ_STR(pm_core_option_key(PM_CO_READ_BATCH_SIZE), "read.batch-size");
  pm_core_options_clear(&co);
}

static void expect_invalid(const char *key, const char *value) {
  const char *kv[] = {key, value, NULL};
  pm_core_options co;
  CHECK_EQ_INT(parse_kv(kv, 3, 0, &co), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(err.message, key) && strstr(err.message, value), "%s=%s: %s", key, value, err.message);
  CHECK(co.raw.n == 0 && co.warnings == NULL); /* cleared on error */
}

static void test_invalid(void) {
  expect_invalid("read.batch-size", "-5");
  expect_invalid("read.batch-size", "0");
  expect_invalid("read.batch-size", "many");
  expect_invalid("bucket", "-3");
  expect_invalid("bucket", "99999999999");
  expect_invalid("merge-engine", "dedupe");
  expect_invalid("changelog-producer", "sometimes");
  expect_invalid("deletion-vectors.enabled", "yes");
  expect_invalid("write-buffer-size", "lots");
  expect_invalid("snapshot.time-retained", "1 eon");
  expect_invalid("scan.snapshot-id", "three");
  expect_invalid("metadata.stats-mode", "truncate(x)");
  expect_invalid("threads", "0");
  expect_invalid("incremental-between-scan-mode", "sideways");
  const char *kv[] = {"snapshot.num-retained.min", "20", "snapshot.num-retained.max", "5", NULL};
  pm_core_options co;
  CHECK_EQ_INT(parse_kv(kv, 3, 0, &co), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "snapshot.num-retained.min") != NULL);
}

static void test_warnings(void) {
  static const char *const kv[] = {"scan.snapshot-idd", "3", "fields.f1.aggregate-function", "sum",
                                   "file-index.bloom-filter.columns", "a", "orc.stripe.row.count", "10",
                                   "lookup.cache-rows", "5", "sort-spill-buffer-size", "64 mb", "totally-new", "x",
                                   "ignore-delete", "false", NULL};
  pm_core_options co;
  CHECK_OK(parse_kv(kv, 3, 0, &co), &err);
  CHECK_EQ_INT(co.n_warnings, 2);
  if (co.n_warnings == 2) {
    CHECK(strstr(co.warnings[0], "'scan.snapshot-idd'") && strstr(co.warnings[0], "did you mean 'scan.snapshot-id'"));
    CHECK(strstr(co.warnings[1], "'totally-new'") && !strstr(co.warnings[1], "did you mean"));
  }
  CHECK_EQ_INT(co.scan_snapshot_id, 0);
  CHECK(!co.set[PM_CO_SCAN_SNAPSHOT_ID]);
  pm_core_options_clear(&co);
}

static void test_field_options(void) {
  pm_options o;
  pm_options_init(&o);
  CHECK_OK(pm_options_set(&o, "fields.price.aggregate-function", "sum", &err), &err);
  CHECK_OK(pm_options_set(&o, "fields.price.ignore-retract", "TRUE", &err), &err);
  CHECK_OK(pm_options_set(&o, "fields.qty.distinct", "maybe", &err), &err);
  CHECK_OK(pm_options_set(&o, "fields.a,b.sequence-group", "c,d", &err), &err);
  CHECK_EQ_STR(pm_field_option(&o, "price", PM_FIELD_AGG_FUNCTION), "sum");
  CHECK(pm_field_option(&o, "qty", PM_FIELD_AGG_FUNCTION) == NULL);
  int b = -1;
  CHECK_OK(pm_field_option_bool(&o, "price", PM_FIELD_IGNORE_RETRACT, 0, &b, &err), &err);
  CHECK_EQ_INT(b, 1);
  CHECK_OK(pm_field_option_bool(&o, "price", PM_FIELD_DISTINCT, 0, &b, &err), &err);
  CHECK_EQ_INT(b, 0);
  CHECK_EQ_INT(pm_field_option_bool(&o, "qty", PM_FIELD_DISTINCT, 0, &b, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "fields.qty.distinct") && strstr(err.message, "maybe"));
  char *g = NULL;
  CHECK_EQ_INT(pm_field_sequence_group(&o, 0, &g), 0);
  CHECK(g == NULL);
  CHECK_EQ_INT(pm_field_sequence_group(&o, 3, &g), 1);
  CHECK_EQ_STR(g, "a,b");
  free(g);
  pm_options_clear(&o);
}

static void test_catalog_options(void) {
  pm_options o;
  pm_options_init(&o);
  pm_catalog_options co;
  CHECK_EQ_INT(pm_catalog_options_parse(&o, &co, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "warehouse") != NULL);
  CHECK_OK(pm_options_set(&o, "warehous", "/tmp/x", &err), &err);
  CHECK_EQ_INT(pm_catalog_options_parse(&o, &co, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_OK(pm_options_set(&o, "warehouse", "/tmp/w", &err), &err);
  CHECK_OK(pm_options_set(&o, "path-rewrite", "/a=/b", &err), &err);
  CHECK_OK(pm_options_set(&o, "s3.endpoint", "x", &err), &err);
  CHECK_OK(pm_catalog_options_parse(&o, &co, &err), &err);
  CHECK_EQ_STR(co.warehouse, "/tmp/w");
  CHECK_EQ_STR(co.metastore, "filesystem");
  CHECK_EQ_STR(co.path_rewrite, "/a=/b");
  CHECK_EQ_INT(co.threads, 0);
  CHECK_EQ_INT(co.n_warnings, 1);
  if (co.n_warnings == 1) CHECK(strstr(co.warnings[0], "'warehous'") && strstr(co.warnings[0], "'warehouse'"));
  pm_catalog_options_clear(&co);
  CHECK_OK(pm_options_set(&o, "threads", "-1", &err), &err);
  CHECK_EQ_INT(pm_catalog_options_parse(&o, &co, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "threads") && strstr(err.message, "-1"));
  pm_options_clear(&o);
}

int main(void) {
  RUN_TEST(test_memory_sizes);
  RUN_TEST(test_durations);
  RUN_TEST(test_bool_int_enum);
  RUN_TEST(test_defaults);
  RUN_TEST(test_values);
  RUN_TEST(test_invalid);
  RUN_TEST(test_warnings);
  RUN_TEST(test_field_options);
  RUN_TEST(test_catalog_options);
  TEST_MAIN_END();
}
