/*
 * Parquet writer: Arrow record batches in, a Parquet file out, laid out the
 * way Java Paimon (parquet-mr 1.15) writes it: footer version 1, v1 data
 * pages (v2 optional), ZSTD level 1, PLAIN_DICTIONARY dictionary encoding
 * with fallback to PLAIN, RLE levels, page CRCs, chunk statistics, column
 * and offset indexes after the row groups, root `paimon_schema`, field ids
 * from the Arrow field metadata "PARQUET:field_id".
 *
 * Arrow type -> Parquet:
 *   bool BOOLEAN; int8/int16 INT32 INT(8|16,signed); int32 INT32; int64 INT64;
 *   uint8/16/32 INT32 INT(n,unsigned); uint64 INT64 INT(64,unsigned);
 *   float FLOAT; double DOUBLE; date32 (and date64, as days) INT32 DATE;
 *   time32 s/ms INT32 TIME(MILLIS); time64 us INT64 TIME(MICROS), ns INT64 TIME(NANOS)
 *     (isAdjustedToUTC=false; Java writes true, which DuckDB reads as TIMETZ);
 *   timestamp s/ms INT64 TIMESTAMP(MILLIS), us INT64 TIMESTAMP(MICROS), ns INT96
 *     (isAdjustedToUTC = the Arrow timezone is non-empty);
 *   decimal128/256(p,s) INT32 (p<=9), INT64 (p<=18), else FIXED_LEN_BYTE_ARRAY of the
 *     minimal width for p; utf8/large_utf8 BYTE_ARRAY STRING; binary/large_binary/
 *     fixed_size_binary BYTE_ARRAY; list/large_list/fixed_size_list 3-level LIST;
 *   map MAP (key REQUIRED); struct group. A field without ARROW_FLAG_NULLABLE is REQUIRED.
 *
 * Memory: one row group of compressed pages per column is buffered (bounded by
 * row_group_bytes), then written out. The file appears under its final name
 * only on a successful pm_pq_writer_close. A writer is used by one thread at a time.
 *
 * With the defaults, re-writing a parquet-mr 1.15 file gives the same page
 * bytes (before compression), statistics and column indexes as Java did.
 * Note: zstd level 1 with 20000-row pages (Java's choice) makes files larger
 * than DuckDB's default zstd (level 3, one page per row group); level 3 and
 * bigger pages close that gap.
 */
#ifndef PM_PARQUET_PARQUET_WRITER_H
#define PM_PARQUET_PARQUET_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "format/parquet/parquet_types.h"
#include "io/file.h"
#include "paimon/arrow_c.h"
#include "util/compress.h"
#include "util/error.h"

typedef struct pm_pq_write_options {
  pm_codec codec;                  /* default PM_CODEC_ZSTD; NONE, SNAPPY, GZIP, LZ4_RAW also valid */
  int codec_level;                 /* 0 = codec default (zstd: 1, as Paimon) */
  uint64_t row_group_bytes;        /* default 128 MiB (estimated, compressed) */
  uint64_t row_group_rows;         /* 0 = no row limit */
  uint64_t page_bytes;             /* default 1 MiB, measured like parquet-mr: PLAIN size of the values */
  uint64_t page_rows;              /* default 20000 */
  int dictionary;                  /* default 1 */
  uint64_t dictionary_page_bytes;  /* default 1 MiB: beyond it a chunk falls back to PLAIN */
  int data_page_v2;                /* default 0 */
  int page_crc;                    /* default 1 */
  int column_index_truncate;       /* default 64 bytes */
  int no_overwrite;                /* close fails with PAIMON_ERR_CONFLICT if the path exists */
  const char *created_by;          /* NULL = "paimon-c version <version>" */
} pm_pq_write_options;

void pm_pq_write_options_default(pm_pq_write_options *o);

/* Statistics of one leaf column over the whole file, available after close. */
typedef struct pm_pq_write_column_stats {
  const char *path;      /* dotted path of the leaf ("f.list.element") */
  int top_level_field;   /* index of the Arrow top-level field the leaf belongs to */
  int nested;            /* 1 if the leaf sits under a list, map or struct */
  enum pm_pq_type physical;
  int64_t num_values;    /* leaf values incl. nulls (levels) */
  int64_t null_count;    /* leaf values that are null at any level */
  int has_min_max;       /* 0 for INT96, all-null columns, all-NaN floats */
  /* min/max in PLAIN form: little-endian INT32/INT64/FLOAT/DOUBLE, 1 byte for
   * BOOLEAN, the raw bytes for BYTE_ARRAY, big-endian two's complement for
   * FIXED_LEN_BYTE_ARRAY decimals. Not truncated. */
  const uint8_t *min, *max;
  size_t min_len, max_len;
  int64_t min_i64, max_i64; /* BOOLEAN/INT32/INT64 values (INT32 sign-extended) */
  double min_f64, max_f64;  /* FLOAT/DOUBLE values */
} pm_pq_write_column_stats;

typedef struct pm_pq_write_result {
  uint64_t file_size;
  int64_t num_rows;
  int num_row_groups;
  size_t num_columns;                 /* leaf columns */
  const pm_pq_write_column_stats *columns;  /* owned by the writer */
} pm_pq_write_result;

typedef struct pm_pq_writer pm_pq_writer;

/* Starts a file on an output sink (io/file.h), which the writer owns from the call on (also when
 * it fails): close commits it (create-if-absent when opts->no_overwrite), free discards it if
 * close did not succeed. schema (borrowed, only during the call) must be a struct ("+s") whose
 * children are the columns. opts may be NULL (defaults). *out is owned by the caller:
 * pm_pq_writer_free. */
int pm_pq_writer_open_sink(pm_out_file *sink, const struct ArrowSchema *schema, const pm_pq_write_options *opts,
                           pm_pq_writer **out, pm_error *err);
/* Convenience: pm_pq_writer_open_sink on a new sink for path on the local fs. */
int pm_pq_writer_open(const char *path, const struct ArrowSchema *schema, const pm_pq_write_options *opts,
                      pm_pq_writer **out, pm_error *err);
/* Appends the rows of a struct batch matching the schema (borrowed; the
 * struct's own validity is ignored: rows are never null). */
int pm_pq_writer_write(pm_pq_writer *w, const struct ArrowArray *batch, pm_error *err);
/* Bytes held for the current row group: compressed pages and dictionary
 * pages of its chunks plus the open pages' estimated size. */
uint64_t pm_pq_writer_buffered(const pm_pq_writer *w);
/* The file's size so far: bytes written plus the current row group's compressed
 * pages and used dictionaries plus the open pages' buffered size (parquet-mr's
 * getDataSize, what Java's rolling writers compare with target-file-size). */
uint64_t pm_pq_writer_data_size(const pm_pq_writer *w);
/* Ends the current row group now (no-op without rows) and frees the chunk
 * memory beyond each column's first block (many open writers under a
 * memory limit). On failure the writer is failed. */
int pm_pq_writer_flush(pm_pq_writer *w, pm_error *err);
/* Flushes, writes indexes and footer, and commits the file. After a failure
 * the temporary file is removed. Either way, call pm_pq_writer_free. */
int pm_pq_writer_close(pm_pq_writer *w, pm_error *err);
/* After a successful close: sizes and per-leaf statistics (owned by w). */
const pm_pq_write_result *pm_pq_writer_result(const pm_pq_writer *w);
/* Frees w; discards the file if it was not closed successfully. NULL ok. */
void pm_pq_writer_free(pm_pq_writer *w);

#endif
