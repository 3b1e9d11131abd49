/*
 * System tables of a Paimon table, returned as Arrow (one batch):
 *   snapshots  (snapshot_id, schema_id, commit_user, commit_identifier, commit_kind, commit_time,
 *               total_record_count, delta_record_count, changelog_record_count, watermark,
 *               base_manifest_list, delta_manifest_list, changelog_manifest_list, index_manifest)
 *   schemas    (schema_id, fields, partition_keys, primary_keys, options, comment, update_time)
 *   options    (key, value)
 *   files      (partition, bucket, file_path, file_format, schema_id, level, record_count,
 *               file_size_in_bytes, min_sequence_number, max_sequence_number, creation_time,
 *               delete_row_count, external_path)                      [latest / time-travel snapshot]
 *   partitions (partition, record_count, file_size_in_bytes, file_count, last_update_time)
 *   tags       (tag_name, snapshot_id, schema_id, commit_time, record_count)
 *   branches   (branch_name)
 *   manifests  (file_name, file_size, num_added_files, num_deleted_files, schema_id)
 *   consumers  (consumer_id, next_snapshot_id)                       [the branch's consumers, by id]
 *   statistics (snapshot_id, schema_id, mergedRecordCount, mergedRecordSize, colstat)
 *              [the statistics file of the latest / time-travel snapshot; colstat is its
 *              colStats re-serialized as Java's StatisticTable prints it]
 * Timestamps are Arrow "tsm:" (milliseconds, no zone).
 */
#ifndef PM_TABLE_SYSTEM_TABLES_H
#define PM_TABLE_SYSTEM_TABLES_H

#include "meta/schema.h"
#include "paimon/arrow_c.h"
#include "table/read.h"
#include "table/table.h"
#include "util/error.h"

/* 1 if name is a known system table. */
int pm_system_table_exists(const char *name);
/* Reads system table `name` of t into a stream (owned by the caller).
 * Unknown name = PAIMON_ERR_NOT_FOUND. */
int pm_system_table_read(pm_table *t, const char *name, struct ArrowArrayStream *out, pm_error *err);

/* The columns of system table `name` as a Paimon schema (ids = positions;
 * BIGINT, INT, STRING, TIMESTAMP_LTZ(3)), so projections and predicates are
 * resolved and built as for data tables. *out owned by the caller (pm_schema_free). */
int pm_system_table_schema(const char *name, pm_table_schema **out, pm_error *err);
/* Reads system table `name` with o's columns (names of its columns, output
 * order; unknown = PAIMON_ERR_NOT_FOUND), filter (leaves index the fields of
 * pm_system_table_schema; applied exactly by the data-table predicate code)
 * and limit; o may be NULL (everything). with_row_kind is
 * PAIMON_ERR_INVALID_ARGUMENT; other read options do not apply. */
int pm_system_table_read_with(pm_table *t, const char *name, const pm_read_options *o, struct ArrowArrayStream *out,
                              pm_error *err);
/* Arrow schema of such a read (*out owned by the caller). */
int pm_system_table_read_schema(const char *name, const pm_read_options *o, struct ArrowSchema *out, pm_error *err);

#endif
