/*
 * libpaimon public API, part 3: writing and committing.
 * Included by paimon/paimon.h; same conventions (see there).
 *
 * The model is the Paimon clients' write-then-commit:
 *
 *   paimon_write_builder *wb;  paimon_write_builder_new(table, 0, NULL, 0, &wb, &err);
 *   paimon_table_write *w;     paimon_write_builder_new_write(wb, &w, &err);
 *   paimon_table_write_arrow(w, &schema, &batch, &err);   (borrows: caller still releases)
 *   paimon_commit_messages *m; paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, &err);
 *   paimon_table_commit *c;    paimon_write_builder_new_commit(wb, &c, &err);
 *   int64_t snap;              paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, &snap, &err);
 *   paimon_commit_messages_free(m); paimon_table_commit_free(c);
 *   paimon_table_write_free(w); paimon_write_builder_free(wb);
 *
 * Failure rules
 *  - Input that does not fit the table (missing NOT NULL column, unknown
 *    column, wrong type, a null in a NOT NULL column) fails the write call
 *    with PAIMON_ERR_INVALID_ARGUMENT naming the column, before anything of
 *    that batch is written.
 *  - Data files become visible only through a committed snapshot. A writer's
 *    free never deletes files it handed out in prepare_commit.
 *  - A commit returns PAIMON_OK (published exactly once), PAIMON_ERR_CONFLICT
 *    (nothing published: a concurrent change made it impossible; the messages
 *    may be aborted), or PAIMON_ERR_UNKNOWN_OUTCOME (it may have been
 *    published: never abort those messages; committing them again with the
 *    same commit user and identifier publishes them at most once). Other codes
 *    (IO, ...) returned by a commit mean nothing was published.
 */
#ifndef PAIMON_WRITE_H
#define PAIMON_WRITE_H

#include "paimon/paimon.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The identifier of batch commits (Java's BatchWriteBuilder.COMMIT_IDENTIFIER). */
#define PAIMON_BATCH_COMMIT_IDENTIFIER INT64_MAX

typedef struct paimon_write_builder paimon_write_builder;
typedef struct paimon_table_write paimon_table_write;
typedef struct paimon_commit_messages paimon_commit_messages;
typedef struct paimon_table_commit paimon_table_commit;

/* A write builder for `table` (which must outlive it). streaming = 0: batch
 * (one prepare_commit, empty commits create no snapshot); 1: stream
 * (prepare_commit per checkpoint identifier, strictly increasing; empty
 * commits still record the identifier). Dynamic options (e.g.
 * "target-file-size", "file.format") are copied. The builder draws a random
 * commit user (Java's form, prefixed by "commit.user-prefix"), shared by the
 * writers and committers it makes. *out owned by the caller. */
PAIMON_EXPORT paimon_status paimon_write_builder_new(const paimon_table *table, int streaming,
                                                     const paimon_option *dynamic_options, size_t n_options,
                                                     paimon_write_builder **out, paimon_error *err);
PAIMON_EXPORT void paimon_write_builder_free(paimon_write_builder *wb);
/* The commit user (static for the builder's lifetime). */
PAIMON_EXPORT const char *paimon_write_builder_commit_user(const paimon_write_builder *wb);
/* Replaces the commit user (a restarted stream job keeps its user to recover;
 * see paimon_table_commit_filter_committed). Copied. Call before new_write/new_commit. */
PAIMON_EXPORT paimon_status paimon_write_builder_with_commit_user(paimon_write_builder *wb, const char *commit_user,
                                                                  paimon_error *err);
/* Makes the builder's writes and commits an overwrite. n = 0: whole table, or
 * with "dynamic-partition-overwrite" = true (the default) on a partitioned
 * table, the partitions the new data touches. Otherwise a static partition spec
 * (possibly partial), values in the text form `table read` prints
 * (partition.default-name for null); every written row must fall inside it. Copied. */
PAIMON_EXPORT paimon_status paimon_write_builder_with_overwrite(paimon_write_builder *wb,
                                                                const paimon_option *partition_spec, size_t n,
                                                                paimon_error *err);

/* Restricts the builder's commits to one (possibly partial) partition, spec as
 * in with_overwrite: a commit whose messages hold new files of another
 * partition fails with PAIMON_ERR_INVALID_ARGUMENT naming it, and nothing is
 * published (abort the messages to remove their files). Works with appends
 * and overwrites. n = 0 removes the restriction. Copied. */
PAIMON_EXPORT paimon_status paimon_write_builder_with_partition(paimon_write_builder *wb,
                                                                const paimon_option *partition_spec, size_t n,
                                                                paimon_error *err);

/* ---------------------------------------------------------------- write */

/* *out owned by the caller: paimon_table_write_free. */
PAIMON_EXPORT paimon_status paimon_write_builder_new_write(const paimon_write_builder *wb, paimon_table_write **out,
                                                           paimon_error *err);
/* Writes one Arrow record batch (a struct array), columns matched to the table
 * by name (case-sensitive). Both are borrowed: the caller releases them. */
PAIMON_EXPORT paimon_status paimon_table_write_arrow(paimon_table_write *w, const struct ArrowSchema *schema,
                                                     const struct ArrowArray *batch, paimon_error *err);
/* Writes every batch of a stream; the stream is consumed and released (also on error). */
PAIMON_EXPORT paimon_status paimon_table_write_stream(paimon_table_write *w, struct ArrowArrayStream *stream,
                                                      paimon_error *err);
/* Primary-key tables. Every row carries a row kind (Paimon's RowKind byte):
 * paimon_table_write_arrow writes +I rows; paimon_table_write_arrow_kind
 * gives all rows of a batch one kind (e.g. PAIMON_ROW_KIND_DELETE removes
 * those keys; the batch still needs every NOT NULL column); with a row-kind
 * column named, each row's kind is read from that column of the input: an
 * integer column (int8..int64) holding Paimon's RowKind bytes 0..3, or a
 * string column holding Java's RowKind short strings "+I" "-U" "+U" "-D"
 * (what Java's rowkind.field holds), the RowKind names "INSERT"
 * "UPDATE_BEFORE" "UPDATE_AFTER" "DELETE", or "0".."3" (a null or another
 * value fails the batch) and the column is not
 * written. Rows of one key are merged in arrival order by the table's
 * merge-engine; `ignore-delete` drops -U/-D rows, `ignore-update-before` -U.
 * Append tables take only +I / +U (PAIMON_ERR_INVALID_ARGUMENT otherwise; a
 * row-kind column too). */
#define PAIMON_ROW_KIND_INSERT 0
#define PAIMON_ROW_KIND_UPDATE_BEFORE 1
#define PAIMON_ROW_KIND_UPDATE_AFTER 2
#define PAIMON_ROW_KIND_DELETE 3
PAIMON_EXPORT paimon_status paimon_table_write_arrow_kind(paimon_table_write *w, const struct ArrowSchema *schema,
                                                          const struct ArrowArray *batch, int row_kind,
                                                          paimon_error *err);
/* Names the row-kind column of later input batches (copied; NULL: none). */
PAIMON_EXPORT paimon_status paimon_table_write_with_row_kind_column(paimon_table_write *w, const char *column,
                                                                    paimon_error *err);
/* Primary-key tables: compaction in the writer (Java's TableWrite.compact).
 * Compacts bucket `bucket` (-1: every bucket) of every partition matching
 * partition_spec (n pairs, possibly partial; n = 0: all partitions; values in
 * the text form `table read` prints) among the table's latest snapshot and
 * this writer's buckets: full_compaction = 1 rewrites each into the max
 * level, 0 runs the universal strategy's pick (num-sorted-run.* and
 * compaction.* options). Writers compact by themselves after flushes too
 * unless the table is write-only (then this call does nothing). The results
 * are committed by the next prepare_commit + commit: an APPEND snapshot for
 * new data, then a COMPACT snapshot; a concurrent change of the same files
 * makes a commit of compaction results alone PAIMON_ERR_CONFLICT (nothing
 * published); with new data see paimon_table_commit_compaction_dropped. Append tables:
 * PAIMON_ERR_UNSUPPORTED. */
PAIMON_EXPORT paimon_status paimon_table_write_compact(paimon_table_write *w, const paimon_option *partition_spec,
                                                       size_t n, int32_t bucket, int full_compaction,
                                                       paimon_error *err);
/* What this writer's compactions handed out through prepare_commit so far (the
 * reference compact builder's metrics): compaction units run, files removed
 * (compact-before), files added (compact-after, upgrades included), rows and
 * bytes of the files written; changelog counters stay 0 (no changelog
 * producer writes compaction changelog yet). */
typedef struct paimon_compact_metrics {
  int64_t tasks, files_removed, files_added, rows_written, bytes_written;
  int64_t changelog_files_added, changelog_rows_written, changelog_bytes_written;
} paimon_compact_metrics;
PAIMON_EXPORT void paimon_table_write_compact_metrics(const paimon_table_write *w, paimon_compact_metrics *out);
/* Flushes and closes the open files and returns their commit messages (one per
 * written (partition, bucket)). Batch writers: once, identifier
 * PAIMON_BATCH_COMMIT_IDENTIFIER. *out owned by the caller. */
PAIMON_EXPORT paimon_status paimon_table_write_prepare_commit(paimon_table_write *w, int64_t commit_identifier,
                                                              paimon_commit_messages **out, paimon_error *err);
/* Closes the writer; unflushed rows are discarded, their temporary files removed. */
PAIMON_EXPORT void paimon_table_write_free(paimon_table_write *w);

/* ------------------------------------------------------ commit messages */

PAIMON_EXPORT void paimon_commit_messages_free(paimon_commit_messages *m);
PAIMON_EXPORT size_t paimon_commit_messages_count(const paimon_commit_messages *m);
/* Number of new data files and rows the messages add. */
PAIMON_EXPORT int64_t paimon_commit_messages_file_count(const paimon_commit_messages *m);
PAIMON_EXPORT int64_t paimon_commit_messages_row_count(const paimon_commit_messages *m);
/* Java's ManifestCommittable bytes (committable version 5, CommitMessage
 * version 13) carrying `commit_identifier`. *bytes owned by the caller: paimon_free_bytes. */
PAIMON_EXPORT paimon_status paimon_commit_messages_serialize(const paimon_commit_messages *m,
                                                             int64_t commit_identifier, uint8_t **bytes,
                                                             size_t *len, paimon_error *err);
/* Decodes ManifestCommittable bytes of `committable_version` (2..5; Java keeps
 * it beside the bytes). *out owned by the caller; *commit_identifier may be NULL. */
PAIMON_EXPORT paimon_status paimon_commit_messages_deserialize(const uint8_t *bytes, size_t len,
                                                               int committable_version,
                                                               paimon_commit_messages **out,
                                                               int64_t *commit_identifier, paimon_error *err);
/* Moves every message of *src into dst (a coordinator collecting messages of
 * several writers); frees *src and sets it to NULL. */
PAIMON_EXPORT paimon_status paimon_commit_messages_merge(paimon_commit_messages *dst, paimon_commit_messages **src,
                                                         paimon_error *err);

/* --------------------------------------------------------------- commit */

/* *out owned by the caller: paimon_table_commit_free. */
PAIMON_EXPORT paimon_status paimon_write_builder_new_commit(const paimon_write_builder *wb,
                                                            paimon_table_commit **out, paimon_error *err);
/* Optional snapshot properties and watermark of the next commit (copied). */
PAIMON_EXPORT paimon_status paimon_table_commit_with_properties(paimon_table_commit *c,
                                                                const paimon_option *properties, size_t n,
                                                                paimon_error *err);
PAIMON_EXPORT void paimon_table_commit_with_watermark(paimon_table_commit *c, int64_t watermark);
/* Row-id conflict check of data-evolution tables (row-tracking.enabled and
 * data-evolution.enabled; Java's TableCommit.rowIdCheckConflict and
 * rowIdCheckConflictForMaterializeDvCompaction), for every following commit
 * call of c until changed; a no-op on other tables, as in Java.
 * from_snapshot: the snapshot the messages were planned on (the one a MERGE
 * INTO / UPDATE / DELETE read, >= 1); it must have a nextRowId when a commit
 * runs the check. mode:
 *  - PAIMON_ROW_ID_CHECK_DML: a commit fails with PAIMON_ERR_CONFLICT (nothing
 *    published; the message names the file and the snapshot) when a snapshot
 *    after from_snapshot up to the latest, other than a COMPACT one, added or
 *    deleted in the commit's partitions a file with rows below from_snapshot's
 *    nextRowId whose row range overlaps a file of the commit that carries row
 *    ids and that writes a column (_WRITE_COLS, none = all) that file writes;
 *    APPEND commits then detect conflicts as OVERWRITE ones do;
 *  - PAIMON_ROW_ID_CHECK_MATERIALIZE_DV: COMPACT commits only (materializing
 *    deletion vectors): such a snapshot added a file whose rows overlap a
 *    normal data file the commit deletes;
 *  - PAIMON_ROW_ID_CHECK_OFF (the default): off, from_snapshot ignored.
 * An unknown mode or from_snapshot < 1: PAIMON_ERR_INVALID_ARGUMENT, c unchanged. */
#define PAIMON_ROW_ID_CHECK_OFF 0
#define PAIMON_ROW_ID_CHECK_DML 1
#define PAIMON_ROW_ID_CHECK_MATERIALIZE_DV 2
PAIMON_EXPORT paimon_status paimon_table_commit_with_row_id_check(paimon_table_commit *c, int mode,
                                                                  int64_t from_snapshot, paimon_error *err);
/* Commits the messages (borrowed). *snapshot_id (may be NULL) = the last
 * snapshot written, or -1 when none was (an ignored empty commit). Status as
 * in "Failure rules" above. After a successful commit the table's maintenance runs as the
 * options say (snapshot expiry, automatic tags, partition expiry); it never turns the commit
 * into an error: see paimon/maintenance.h paimon_table_commit_maintenance_status and
 * paimon/expire.h paimon_table_commit_expire_result. */
PAIMON_EXPORT paimon_status paimon_table_commit_commit(paimon_table_commit *c, const paimon_commit_messages *m,
                                                       int64_t commit_identifier, int64_t *snapshot_id,
                                                       paimon_error *err);
/* Data and compaction: a commit publishes the messages' new data first (an
 * APPEND / OVERWRITE snapshot), then their compaction results (a COMPACT
 * snapshot). When the data snapshot is published and the compaction then meets
 * a concurrent change of the same files (an overwrite, a truncate, another
 * compaction), the commit has still happened: it returns PAIMON_OK with the
 * data snapshot, the compaction is dropped (its new files deleted) and this
 * call returns PAIMON_ERR_CONFLICT; when the compaction part failed otherwise
 * (its files kept, as its outcome may be unknown) it returns that status; else
 * PAIMON_OK. After a dropped compaction, a CONFLICT, an overwrite or a
 * truncate the writers of the commit's write builder re-read their buckets
 * from the latest snapshot before their next call (as a restarted Java writer
 * restores); a writer of another builder must be created anew. NULL: PAIMON_OK. */
PAIMON_EXPORT paimon_status paimon_table_commit_compaction_dropped(const paimon_table_commit *c);
/* Deletes the new files of messages known NOT to be committed. */
PAIMON_EXPORT paimon_status paimon_table_commit_abort(paimon_table_commit *c, const paimon_commit_messages *m,
                                                      paimon_error *err);
/* OVERWRITE snapshot removing every row (operation TRUNCATE). */
PAIMON_EXPORT paimon_status paimon_table_commit_truncate_table(paimon_table_commit *c, int64_t commit_identifier,
                                                               int64_t *snapshot_id, paimon_error *err);
/* Removes the rows of each partition spec (possibly partial, text values);
 * specs[i] has n_fields[i] entries. */
PAIMON_EXPORT paimon_status paimon_table_commit_truncate_partitions(paimon_table_commit *c,
                                                                    const paimon_option *const *specs,
                                                                    const size_t *n_fields, size_t n_specs,
                                                                    int64_t commit_identifier,
                                                                    int64_t *snapshot_id, paimon_error *err);
/* Restart recovery: committed[i] = 1 when identifiers[i] is already committed
 * by this commit user (Java's filterCommitted). */
PAIMON_EXPORT paimon_status paimon_table_commit_filter_committed(paimon_table_commit *c,
                                                                 const int64_t *identifiers, size_t n,
                                                                 int *committed, paimon_error *err);
PAIMON_EXPORT void paimon_table_commit_free(paimon_table_commit *c);

/* ------------------------------------------- delete / update by predicate */

/* Primary-key tables: removes every row matching `where` (the filter syntax
 * of paimon_predicate_parse, non-empty) in one batch commit: the matching
 * rows of the latest snapshot are read and written back as -D rows through
 * the merge engine. Refused (PAIMON_ERR_UNSUPPORTED, as Java refuses a
 * primary-key batch delete) for tables without a primary key, first-row,
 * partial-update without partial-update.remove-record-on-delete /
 * .remove-record-on-sequence-group, aggregation without
 * aggregation.remove-record-on-delete, and ignore-delete tables. wb: a batch
 * builder without overwrite (its commit user and dynamic options apply).
 * *rows (may be NULL) = rows deleted; *snapshot_id (may be NULL) = the
 * snapshot written, -1 when nothing matched (no commit). Commit statuses as
 * in "Failure rules". */
PAIMON_EXPORT paimon_status paimon_write_builder_delete_where(const paimon_write_builder *wb, const char *where,
                                                              int64_t *rows, int64_t *snapshot_id,
                                                              paimon_error *err);
/* Sets columns of the rows matching `where` (one commit, +U rows): each
 * assignment is column = value, the value in the text form `table read
 * --format csv` prints ("" = null). Primary-key columns cannot be assigned;
 * deduplicate and partial-update tables only (as Java). Otherwise as delete. */
PAIMON_EXPORT paimon_status paimon_write_builder_update_where(const paimon_write_builder *wb, const char *where,
                                                              const paimon_option *assignments, size_t n,
                                                              int64_t *rows, int64_t *snapshot_id,
                                                              paimon_error *err);

/* -------------------------------------------------------- import inputs */

/* The rows of a file as an Arrow stream to write into `table` (e.g. with
 * paimon_table_write_stream). format:
 *  - "parquet", "orc", "avro": the file's columns as the file types them
 *    (Avro fields typed by the table's columns of the same name);
 *  - "jsonl": one JSON object per line keyed by column name, values in the
 *    encoding `paimon table read --format jsonl` prints (so its output
 *    imports back unchanged); missing keys are null;
 *  - "csv": a header row of column names, then values as `paimon table read
 *    --format csv` prints them (empty = null, "" = empty string).
 * jsonl and csv values are typed by the table's columns; a key or header
 * naming no column is PAIMON_ERR_INVALID_ARGUMENT, and errors name the file
 * and line. They are read incrementally (memory stays bounded). NULL
 * format: from the extension of path (.parquet, .orc, .avro, .jsonl /
 * .json / .ndjson, .csv). The stream does not refer to the table afterwards.
 * *out owned by the caller (out->release(out)). */
PAIMON_EXPORT paimon_status paimon_table_open_input(const paimon_table *table, const char *path, const char *format,
                                                    struct ArrowArrayStream *out, paimon_error *err);
/* The same over descriptor fd, read to its end when the stream is (not
 * closed; e.g. 0 for stdin). format is required; name (may be NULL: "stdin")
 * is used in messages. parquet / orc / avro input is read into memory first. */
PAIMON_EXPORT paimon_status paimon_table_open_input_fd(const paimon_table *table, int fd, const char *name,
                                                       const char *format, struct ArrowArrayStream *out,
                                                       paimon_error *err);

/* CDC input (primary-key tables): as paimon_table_open_input (path) or
 * paimon_table_open_input_fd (path NULL: descriptor fd, format required), with
 * one more column, `row_kind_column` (not a table column), for
 * paimon_table_write_with_row_kind_column: jsonl and csv read it as a string
 * column (a JSON integer becomes its text, so 0..3 work too); data files carry
 * it as they type it (an integer or string column). */
PAIMON_EXPORT paimon_status paimon_table_open_cdc_input(const paimon_table *table, const char *path, int fd,
                                                        const char *format, const char *row_kind_column,
                                                        struct ArrowArrayStream *out, paimon_error *err);

#ifdef __cplusplus
}
#endif

#endif /* PAIMON_WRITE_H */
