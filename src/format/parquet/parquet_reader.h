/*
 * Streaming Parquet reader producing Arrow C Data Interface batches.
 *
 * Usage:
 *   pm_pq_read_options opt; pm_pq_read_options_init(&opt);
 *   opt.columns = names; opt.n_columns = 2;            (optional projection)
 *   pm_pq_reader *r; pm_pq_reader_open_path(path, &opt, &r, &err);
 *   struct ArrowSchema s; pm_pq_reader_schema(r, &s, &err);   (caller releases s)
 *   struct ArrowArray a;
 *   while (pm_pq_reader_next(r, &a, &err) == 0 && a.release) { ...; a.release(&a); }
 *   pm_pq_reader_close(r);
 *
 * Each batch is a struct array ("+s") with one child per projected top-level
 * column (in projection order, or file order without projection). Memory is
 * bounded: the reader holds at most the selected column chunks of one row
 * group plus one batch; it never reads the whole file.
 *
 * Thread safety: a reader is used by one thread at a time. Batches and
 * schemas it returns are independent of the reader (they may outlive it).
 */
#ifndef PM_PARQUET_READER_H
#define PM_PARQUET_READER_H

#include <stddef.h>
#include <stdint.h>

#include "format/format_predicate.h"
#include "io/file.h"
#include "paimon/arrow_c.h"
#include "util/error.h"

/* ---- Predicates for pruning (row groups by statistics, pages by the page index) ----
 * See format/format_predicate.h. Literals compare against the PHYSICAL
 * values: int64 for INT32/INT64 columns (dates as days, timestamps in their
 * unit, decimals as unscaled values), double for FLOAT/DOUBLE, bytes for
 * BYTE_ARRAY/FIXED_LEN_BYTE_ARRAY (unsigned lexicographic, e.g. strings). */

/* A half-open range [start, end) of row positions within the file. */
typedef struct pm_pq_row_range {
  int64_t start;
  int64_t end;
} pm_pq_row_range;

/* Default rows per batch: batches of a few MiB stay in the CPU caches while
 * they are decoded and assembled (larger ones are written out to memory). */
#define PM_PQ_DEFAULT_BATCH_ROWS 16384

typedef struct pm_pq_read_options {
  /* Projection by top-level column names (in the order wanted), or NULL for all.
   * A name that does not exist is PAIMON_ERR_NOT_FOUND. */
  const char *const *columns;
  size_t n_columns;
  /* Alternatively, projection by field ids (used when field_ids != NULL).
   * An id may name a top-level column or a nested field; a nested field is
   * returned as its own top-level column (named after the field). Ids not
   * present in the file are skipped silently (schema evolution: the caller
   * fills them with nulls); see pm_pq_reader_schema for what was found. */
  const int32_t *field_ids;
  size_t n_field_ids;
  /* With field_ids: when none of them is in the file (files of writers that
   * stored no field ids), return every top-level column instead (the caller
   * maps them by name) and ignore the predicates (default 0). */
  int all_columns_if_no_ids;
  int case_insensitive; /* name matching for columns and predicates */
  int64_t batch_rows;   /* rows per batch; <= 0 means PM_PQ_DEFAULT_BATCH_ROWS */
  /* Sorted, non-overlapping row ranges to read (file row positions), or NULL for all rows. */
  const pm_pq_row_range *row_ranges;
  size_t n_row_ranges;
  const pm_fmt_predicate *predicates;
  size_t n_predicates;
  int use_page_index;  /* prune pages with ColumnIndex/OffsetIndex when predicates are given (default 1) */
  int verify_crc;      /* check page CRCs when present */
  /* Return BYTE_ARRAY string/binary columns as Arrow string-view / binary-view
   * arrays ("vu"/"vz": buffers validity, 16-byte views, variadic data buffers,
   * int64 variadic sizes) instead of "u"/"z" (default 0). Values of
   * dictionary-encoded pages are not copied: their views point into the
   * column chunk's dictionary, which the batch keeps alive; other values of
   * more than 12 bytes are copied once into a per-batch buffer. */
  int string_view;
} pm_pq_read_options;

void pm_pq_read_options_init(pm_pq_read_options *opt);

typedef struct pm_pq_reader pm_pq_reader;

/* Opens a reader. The options (and the arrays they point to) are copied: they
 * need not outlive the call. pm_pq_reader_open takes ownership of `file` in
 * every case (closed by pm_pq_reader_close, or at once on failure). */
int pm_pq_reader_open(pm_file *file, const pm_pq_read_options *opt, pm_pq_reader **out, pm_error *err);
int pm_pq_reader_open_path(const char *path, const pm_pq_read_options *opt, pm_pq_reader **out, pm_error *err);
/* Opens path through fs (the path form uses the local fs). */
int pm_pq_reader_open_fs(pm_fs *fs, const char *path, const pm_pq_read_options *opt, pm_pq_reader **out,
                         pm_error *err);
void pm_pq_reader_close(pm_pq_reader *r); /* NULL ok */

/* Arrow schema ("+s" with one child per projected column) of the batches.
 * Each field carries metadata "PARQUET:field_id" when the file has one.
 * *out is owned by the caller (release it). */
int pm_pq_reader_schema(pm_pq_reader *r, struct ArrowSchema *out, pm_error *err);

/* Next batch. On success *out is either a struct array with >= 1 rows (owned
 * by the caller) or, at the end of the stream, a released struct
 * (out->release == NULL). */
int pm_pq_reader_next(pm_pq_reader *r, struct ArrowArray *out, pm_error *err);

/* File row positions of the rows of the last batch returned (n = its length).
 * Valid until the next call on the reader. Computed on first request; NULL
 * (with *n = 0) only if that allocation fails. */
const int64_t *pm_pq_reader_batch_positions(const pm_pq_reader *r, int64_t *n);

/* Total rows in the file (ignoring ranges and predicates). */
int64_t pm_pq_reader_num_rows(const pm_pq_reader *r);

/* ---- Metadata access (for the CLI and the table layer) ---- */
struct pm_pq_meta; /* full FileMetaData model: see parquet_meta.h */
/* Borrowed; valid while the reader is open. */
const struct pm_pq_meta *pm_pq_reader_meta(const pm_pq_reader *r);

/* Typed file-level statistics for one leaf column, merged over all row groups. */
typedef struct pm_pq_column_stats {
  int has_min_max;   /* 0 if any row group lacks usable min/max */
  pm_fmt_lit_kind kind; /* how min/max are typed (see predicates) */
  pm_fmt_literal min; /* for BYTES, bytes point into the reader's metadata (valid while open) */
  pm_fmt_literal max;
  int has_null_count;
  int64_t null_count;
  int64_t num_values; /* sum of the chunks' num_values (includes nulls) */
} pm_pq_column_stats;

/* Statistics for the leaf column number `leaf` (0-based, file order of
 * leaves; see pm_pq_meta_find_leaf in parquet_meta.h). */
int pm_pq_reader_column_stats(const pm_pq_reader *r, int leaf, pm_pq_column_stats *out, pm_error *err);

#endif
