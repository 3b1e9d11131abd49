/*
 * The append-table writer (SEMANTICS.md 7.1-7.3, 1.3-1.4; FORMAT.md 1, 6):
 * Arrow batches in, data files out, commit messages (meta/wire.h
 * pm_manifest_committable) for the committer (table/commit.h).
 *
 *   pm_table_write *w; pm_table_write_open(t, &cfg, &w, &err);
 *   pm_table_write_arrow(w, &schema, &batch, &err);          (repeat)
 *   pm_manifest_committable *m; pm_table_write_prepare(w, id, &m, &err);
 *   ... commit m; pm_committable_free(m);
 *   pm_table_write_free(w);
 *
 * Input: a struct batch whose columns are matched to the table's by name
 * (case-sensitive, at every ROW level); missing nullable columns are written
 * as nulls (an Arrow null-typed "n" column counts as missing). Arrow types
 * accepted per Paimon type (exactly what the read side produces):
 *   BOOLEAN b; TINYINT c; SMALLINT s; INT i; BIGINT l; FLOAT f; DOUBLE g;
 *   DECIMAL(p,s) d:p',s with p' <= p; CHAR/VARCHAR/STRING u;
 *   BINARY/VARBINARY/BYTES (GEOMETRY, GEOGRAPHY) z; DATE tdD; TIME ttm;
 *   TIMESTAMP(p) tsm: (p <= 3) / tsu: (p <= 6) / tsn: (p > 6), no time zone;
 *   TIMESTAMP_LTZ(p) the same units with any time zone (instants);
 *   ARRAY +l; MAP / MULTISET +m (entries key, value by position); ROW +s;
 *   VECTOR(n) +w:n. Dictionary-encoded input, VARIANT and BLOB columns are
 *   PAIMON_ERR_UNSUPPORTED.
 * A batch that does not fit (unknown or duplicate column, missing NOT NULL
 * column, type that does not fit, null in a NOT NULL column at any nesting
 * level, invalid Arrow structure or UTF-8) fails with
 * PAIMON_ERR_INVALID_ARGUMENT naming the column, before any of its rows is
 * written.
 *
 * Routing: partition = the partition columns' values (table/partition.h);
 * bucket = hash(bucket key BinaryRow) % bucket for fixed buckets
 * (`bucket-key`, else the trimmed primary key), 0 for unaware (`bucket` -1).
 * Rows are grouped per batch column-wise (write_route.c), one take per
 * touched writer. One writer per (partition, bucket); at most
 * `write-max-writers-to-spill` (or cfg->max_writers) files are open at
 * once: opening one more closes the least recently used writer's file (it
 * is kept for the next commit message), except files the current batch
 * writes to, which stay open (up to PM_WRITE_MAX_OPEN_FILES): a batch spread
 * over many partitions does not close and reopen files on every batch.
 * Memory: the open files together buffer at most half of
 * `write-buffer-size` (each budget / open files; beyond it a Parquet file
 * ends its row group early).
 *
 * Files: `file.format` (parquet default, orc, avro) with `file.compression`
 * (+ `file.compression.zstd-level`), rolled at `target-file-size` (estimated
 * from the bytes fed and the compression the closed files achieved), named
 * `<data-file.prefix><uuid>-<n>.<format>` under
 * <table>[/<data-file.path-directory>][/<partition>]/bucket-<b>/, or under an
 * external root from `data-file.external-paths` per
 * `data-file.external-paths.strategy` (round-robin / specific-fs; the full
 * path is stored as the file's external path). Each file is visible under
 * its name only once complete.
 * DataFileMeta as Java's append writer makes it: row count, size, value
 * stats per `metadata.stats-mode` / `fields.<f>.stats-mode` /
 * `metadata.stats-keep-first-n-columns` (nested columns: none, except Avro:
 * null counts), dense per `metadata.stats-dense-store`, empty keys and key
 * stats, level 0, sequence numbers (fixed buckets continue after the
 * bucket's max in the latest snapshot unless ignore_previous_files;
 * unaware from 0 per writer; row-tracking / data-evolution tables from 0 in
 * every file), the table's schema id, local creation time, delete row count
 * 0, file source APPEND.
 *
 * Failure: after an I/O error inside write or prepare the writer is failed:
 * every later call returns that error. pm_table_write_free deletes the files
 * that were never handed out by a prepare (open and closed ones), never those
 * handed out. Thread safety: one thread at a time per writer.
 */
#ifndef PM_TABLE_WRITE_H
#define PM_TABLE_WRITE_H

#include <stdint.h>

#include "meta/wire.h"
#include "paimon/arrow_c.h"
#include "table/table.h"
#include "util/error.h"

/* A counter shared by the writers and committers of one write builder
 * (reference-counted, thread-safe): a commit whose compaction is dropped, or
 * that conflicts, bumps it; a primary-key writer that sees it changed
 * refreshes its buckets from the latest snapshot before its next call (Java's
 * writer restore after a failed commit). NULL: none (value 0). */
typedef struct pm_write_signal pm_write_signal;
pm_write_signal *pm_write_signal_new(void); /* NULL on OOM */
pm_write_signal *pm_write_signal_retain(pm_write_signal *s); /* NULL ok */
void pm_write_signal_release(pm_write_signal *s);           /* NULL ok */
void pm_write_signal_bump(pm_write_signal *s);              /* NULL ok */
uint64_t pm_write_signal_value(const pm_write_signal *s);

typedef struct pm_write_config {
  const char *commit_user;   /* borrowed for the call (may be NULL) */
  int streaming;             /* 0 batch, 1 stream */
  int ignore_previous_files; /* overwrite writes: don't restore sequence numbers */
  int64_t max_writers;       /* 0 = write-max-writers-to-spill */
} pm_write_config;

typedef struct pm_table_write pm_table_write;

/* A writer for table t (retained until pm_table_write_free). Primary-key
 * tables are written by table/kv_write.h (the calls below delegate to it);
 * append tables with dynamic / postpone buckets are PAIMON_ERR_UNSUPPORTED;
 * invalid options fail naming the key. cfg may be NULL (batch defaults). */
int pm_table_write_open(pm_table *t, const pm_write_config *cfg, pm_table_write **out, pm_error *err);
/* Append tables: a writer of only the table columns cols[0, n) (Java's
 * withWriteType; kept in table order, every file's _WRITE_COLS), with no
 * routing and no rolling: the caller writes whole files into slots itself
 * (table/rowid_update.c). cols borrowed for the call. */
int pm_table_write_open_cols(pm_table *t, const pm_write_config *cfg, const char *const *cols, size_t n,
                             pm_table_write **out, pm_error *err);
/* Writes one batch (both borrowed; see the input rules above). */
int pm_table_write_arrow(pm_table_write *w, const struct ArrowSchema *s, const struct ArrowArray *a, pm_error *err);
/* Closes every open file and returns one message per (partition, bucket) that
 * got files since the last prepare; *out (identifier set) owned by the caller
 * (pm_committable_free). Those files are handed out: never deleted by w. */
int pm_table_write_prepare(pm_table_write *w, int64_t identifier, pm_manifest_committable **out, pm_error *err);
/* Writes one batch whose rows all have row kind `kind` (PM_ROWKIND_*,
 * table/merge.h): primary-key tables see table/kv_write.h; append tables
 * take only +I / +U (else PAIMON_ERR_INVALID_ARGUMENT). */
int pm_table_write_arrow_kind(pm_table_write *w, const struct ArrowSchema *s, const struct ArrowArray *a, int kind,
                              pm_error *err);
/* Primary-key tables: names the int8 input column holding each row's kind
 * (copied; NULL: none). Append tables: PAIMON_ERR_INVALID_ARGUMENT. */
int pm_table_write_row_kind_column(pm_table_write *w, const char *column, pm_error *err);
/* Compaction (primary-key tables: pm_kv_write_compact; append tables:
 * table/append_compact.h). spec may be NULL. */
typedef struct pm_partition_spec pm_partition_spec;
int pm_table_write_compact(pm_table_write *w, const pm_partition_spec *spec, int32_t bucket, int full, pm_error *err);
/* What a compaction covers and whom it tells. A partition is compacted when it
 * matches one of specs[0, n_specs) (none: all) and filter (NULL: all; a
 * predicate over the partition row: field i = partition key i). progress (may be NULL) gets the
 * units (buckets of a primary-key table, tasks of an append table) done of
 * total after each. */
struct pm_predicate;
typedef struct pm_compact_request {
  const pm_partition_spec *specs;
  size_t n_specs;
  const struct pm_predicate *filter;
  int32_t bucket; /* -1: every bucket */
  int full;
  void (*progress)(void *ctx, uint64_t done, uint64_t total);
  void *ctx;
} pm_compact_request;
int pm_table_write_compact_req(pm_table_write *w, const pm_compact_request *req, pm_error *err);
/* 1 and *out = the primary-key writer's compaction totals (pm_kv_write_compact_stats), else 0. */
struct pm_kv_compact_stats;
int pm_table_write_compact_stats(const pm_table_write *w, struct pm_kv_compact_stats *out);
/* Primary-key writers: pm_kv_write_spill_to / pm_kv_write_spill_stats (0 for append writers). */
int pm_table_write_spill_to(pm_table_write *w, const char *tmp_dir, pm_fs *fs, pm_error *err);
int pm_table_write_spill_stats(const pm_table_write *w, int64_t *runs, uint64_t *bytes, int64_t *live);
/* Primary-key writers watch s (retained; replaces any earlier one; see
 * pm_write_signal); append writers ignore it. */
void pm_table_write_watch(pm_table_write *w, pm_write_signal *s);
/* Rows written since open (for callers' counters). */
int64_t pm_table_write_rows(const pm_table_write *w);
void pm_table_write_free(pm_table_write *w); /* NULL ok */

#endif
