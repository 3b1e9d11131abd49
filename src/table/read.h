/*
 * Table read: turns planned DataSplits into exactly the rows Java Paimon
 * returns, as a stream of Arrow batches.
 *
 * Per split (SEMANTICS §4.7, §5, §8.4, §9):
 *  - append tables and raw-convertible PK splits: files are read one after
 *    the other (reader chosen by file extension: .parquet / .orc / .avro),
 *    deletion vectors passed to the format reader as kept row ranges;
 *  - streaming / postpone-bucket PK splits: every record, no merge;
 *  - other PK splits: interval partition into sections, one sorted run per
 *    reader, columnar k-way merge + merge engine (table/merge.h); lookup
 *    tables merge only the newest level > 0 record with level 0 (§3.6);
 *  - data-evolution tables: files grouped by row-id range, each column taken
 *    from the newest file that has it (.blob files for BLOB columns), the
 *    group's deletion vector applied by group position;
 *  - every file is mapped to the read schema by field id (table/evolution.h),
 *    ROW members included; partition columns a file lacks come from the
 *    split's partition row.
 * Then the exact residual filter, projection and limit are applied.
 *
 * Output columns: the projected table columns (by name), optionally the
 * system columns "_ROW_ID" and "_SEQUENCE_NUMBER" (row-tracking tables; PK
 * tables expose _SEQUENCE_NUMBER too) and, with with_row_kind, a leading
 * utf8 column "_row_kind" (as pypaimon) holding "+I", "-U", "+U" or "-D".
 *
 * Memory is bounded: a split reader holds one batch per open file (one file
 * for raw reads, one per sorted run for merge reads); with parallelism > 1
 * at most `parallelism` splits are read ahead, each with a small queue.
 * Output order is stable for a given list of splits (split order, then file /
 * key order inside a split).
 */
#ifndef PM_TABLE_READ_H
#define PM_TABLE_READ_H

#include <stddef.h>
#include <stdint.h>

#include "data/predicate.h"
#include "meta/split.h"
#include "paimon/arrow_c.h"
#include "table/table.h"
#include "util/error.h"

/* Rows per batch unless read.batch-size says otherwise: batches that stay in
 * the CPU caches decode faster than big ones (the Parquet reader's default). */
#define PM_READ_DEFAULT_BATCH_ROWS 16384
#define PM_READ_ROW_KIND_COLUMN "_row_kind" /* pypaimon's name; first column */
#define PM_SYSTEM_FIELD_ROW_ID "_ROW_ID"
#define PM_SYSTEM_FIELD_SEQUENCE_NUMBER "_SEQUENCE_NUMBER"
#define PM_FIELD_ID_SEQUENCE_NUMBER 2147483646
#define PM_FIELD_ID_VALUE_KIND 2147483645
#define PM_FIELD_ID_ROW_ID 2147483642
#define PM_FIELD_ID_LEVEL 2147483644
#define PM_FIELD_ID_KEY_OFFSET 1073741823

typedef struct pm_read_options {
  /* Projection: top-level column names (table columns and/or system
   * columns), in output order; NULL = every table column. Nested selection
   * "a.b" picks a struct member (returned as its own column named "a.b"). */
  const char *const *columns;
  size_t n_columns;
  /* Residual filter (borrowed; leaves index the table schema's fields, as
   * built against pm_table.schema). Applied exactly, after merging. */
  const pm_predicate *filter;
  int64_t limit;        /* < 0: no limit */
  int no_filter_pushdown; /* do not give the filter to the format readers (it only prunes row groups) */
  int with_row_kind;    /* add a first column "_row_kind" and keep retractions of merge reads */
  int lookup_merge;     /* primary keys: merge as a lookup compaction (pm_merge_config.lookup_merge) */
  int64_t batch_rows;   /* rows per file batch; <= 0: option read.batch-size, else PM_READ_DEFAULT_BATCH_ROWS */
  int parallelism;      /* splits read concurrently; <= 0: option read.parallelism, else 1 */
  /* Session time zone for casts between zoned and zone-less timestamps;
   * NULL: dynamic option session_time_zone / local-time-zone, else the
   * process's local zone (TZ, else /etc/localtime; util/tz.h). */
  const char *session_time_zone;
} pm_read_options;

/* The session time zone of t (util/tz.h): override if not NULL, else the
 * option session_time_zone / local-time-zone, else the process's local
 * zone (TZ, else /etc/localtime). *out owned by the caller (pm_tz_free). */
int pm_table_session_tz(const pm_table *t, const char *override, pm_tz **out, pm_error *err);

void pm_read_options_init(pm_read_options *o);

/* Arrow schema of the batches a read with these options produces. *out is
 * owned by the caller. Unknown columns are PAIMON_ERR_NOT_FOUND. */
int pm_read_schema(pm_table *t, const pm_read_options *opt, struct ArrowSchema *out, pm_error *err);

/* Streams the rows of splits[0..n) (borrowed: they, the table and opt->filter
 * must outlive the stream). *out is owned by the caller (release it). */
int pm_read_splits(pm_table *t, pm_data_split *const *splits, size_t n, const pm_read_options *opt,
                   struct ArrowArrayStream *out, pm_error *err);

/* Streams the rows of incremental diff splits (PM_SPLIT_INCREMENTAL,
 * non-streaming, as pm_scan_plan_ex plans them; borrowed like splits above),
 * as Java's IncrementalDiffSplitRead (SEMANTICS §5.4): per bucket the before
 * and after files are each merge-read and compared per key; a key whose
 * value row or add/retract status changed yields the after record, a key
 * only before yields a -D of the before record when with_row_kind is set
 * (else nothing), equal keys yield nothing; retractions are kept only with
 * with_row_kind. Append tables read the after files only (as Java's
 * RawFileSplitRead). Other split types are PAIMON_ERR_INVALID_ARGUMENT. */
int pm_read_incremental_splits(pm_table *t, pm_split *const *splits, size_t n, const pm_read_options *opt,
                               struct ArrowArrayStream *out, pm_error *err);

/* Reads splits planned with a scan.fallback-branch (scan.h: splits from fallback_start on come
 * from the branch): splits[i] with is_fallback[i] == 0 with t, then the others with t's fallback
 * table (pm_table_fallback: the branch's schema, keys and merge engine). opt->filter, bound to
 * t's schema, is re-bound by column name to the branch (a filter on a column the branch lacks is
 * PAIMON_ERR_NOT_FOUND); opt->limit holds across both parts; the batches take the first part's
 * schema. is_fallback may be NULL (none). Borrowing as pm_read_splits; opt->columns are copied. */
int pm_read_splits_with_fallback(pm_table *t, pm_data_split *const *splits, const int *is_fallback, size_t n,
                                 const pm_read_options *opt, struct ArrowArrayStream *out, pm_error *err);

/* Convenience for one split. */
int pm_read_split(pm_table *t, const pm_data_split *split, const pm_read_options *opt, struct ArrowArrayStream *out,
                  pm_error *err);

#endif
