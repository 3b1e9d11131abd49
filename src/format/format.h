/*
 * One interface over the data file formats: "parquet", "orc", "avro",
 * "blob". Callers above the format layer (the table reader, later the
 * writers) pick a format by name or file extension and use only these
 * operations; no format's own types appear above this header.
 *
 * Reading:
 *   const pm_format *f = pm_format_for_file(name);        (NULL: unknown extension)
 *   pm_format_read_options o; pm_format_read_options_init(&o);  (then set fields)
 *   pm_format_reader *r; pm_format_reader_open(f, file, &o, &r, &err);
 *   struct ArrowSchema s; pm_format_reader_schema(r, &s, &err);   (caller releases s)
 *   struct ArrowArray a;
 *   while (pm_format_reader_next(r, &a, &err) == 0 && a.release) {
 *     const int64_t *pos = pm_format_reader_positions(r, &n);     (optional)
 *     ...; a.release(&a);
 *   }
 *   pm_format_reader_close(r);
 *
 * Batches are struct arrays ("+s"), one child per column returned; each
 * child's Arrow field carries metadata "PARQUET:field_id" when the column
 * has a field id, which is how callers map columns (schema evolution).
 * A batch costs one indirect call: the formats decode whole columns, never
 * values one by one through this interface.
 *
 * Writing (on an output sink, io/file.h; the writer owns it and commits it on close):
 *   pm_out_file *sink; pm_fs_create(fs, path, &sink, &err);
 *   pm_format_writer *w; pm_format_writer_open(f, sink, schema, &wo, &w, &err);
 *   pm_format_writer_write(w, batch, &err);   (repeat)
 *   pm_format_write_result res; pm_format_writer_close(w, &res, &err);  (frees w)
 *   ... pm_format_write_result_free(&res);
 *
 * Thread safety: a reader or writer is used by one thread at a time; the
 * registry is immutable (any thread).
 */
#ifndef PM_FORMAT_FORMAT_H
#define PM_FORMAT_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "format/format_predicate.h"
#include "io/file.h"
#include "paimon/arrow_c.h"
#include "util/error.h"

/* Wanted Arrow timestamp unit of one column ('s', 'm', 'u' or 'n'), for
 * formats whose files do not fix it (ORC); others ignore it. */
typedef struct pm_format_ts_unit {
  int32_t field_id;
  char unit;
} pm_format_ts_unit;

typedef struct pm_format_read_options {
  /* Projection by field id (top-level or nested), or NULL for every column.
   * Ids the file does not hold are skipped (the caller fills them with
   * nulls; pm_format_reader_schema says what was found). When NONE of them
   * is in the file (files of writers that stored no field ids), every column
   * is returned instead and the predicates are ignored: the caller maps the
   * columns by name. */
  const int32_t *field_ids;
  size_t n_field_ids;
  /* Pruning hints (see format/format_predicate.h); ids absent from the file are ignored. */
  const pm_fmt_predicate *predicates;
  size_t n_predicates;
  /* n_row_ranges pairs [start, end) of file row positions, sorted and
   * non-overlapping; NULL = all rows. Only these rows are returned. */
  const int64_t *row_ranges;
  size_t n_row_ranges;
  int64_t batch_rows; /* rows per batch; <= 0 means 16384 */
  const pm_format_ts_unit *ts_units;
  size_t n_ts_units;
  /* The schema the file was written with, as Arrow ("+s", children with
   * "PARQUET:field_id" metadata), for formats whose files do not carry a
   * typed schema of their own (pm_format.needs_data_schema): Avro data files
   * are typed by it (fields matched by name), a blob file takes its single
   * column's name and id from its only child. Borrowed during open. */
  const struct ArrowSchema *data_schema;
  /* Blob files: payload reads merged up to this gap / block size (io/coalesce.h; init sets the
   * defaults 1 MiB / 8 MiB of file-io.read-coalesce.max-gap / .max-block; a 0 gap merges only
   * adjacent ranges). */
  uint64_t coalesce_max_gap, coalesce_max_block;
} pm_format_read_options;

void pm_format_read_options_init(pm_format_read_options *o);

typedef struct pm_format_write_options {
  /* Codec name as Paimon's file.compression: "zstd" (default when NULL), "none",
   * "snappy", "gzip"/"deflate", "lz4"; formats reject what they cannot write. */
  const char *compression;
  int compression_level; /* 0 = the format's default */
  /* Parquet row groups: close one at this many rows / estimated compressed bytes (0 = the
   * writer's defaults: no row limit, 128 MiB); other formats ignore them. */
  uint64_t row_group_rows;
  uint64_t row_group_bytes;
} pm_format_write_options;

void pm_format_write_options_init(pm_format_write_options *o);

/* Codec (a pm_codec) from a Paimon file.compression name (NULL = zstd). */
int pm_fmt_codec(const char *name, int *codec, pm_error *err);

/* Statistics of one top-level column of a written file, collected from the
 * batches written (Paimon's value stats: min/max of primitive columns). */
typedef struct pm_format_column_stats {
  char *name;
  int32_t field_id;   /* -1 when the Arrow field has none */
  int64_t null_count;
  int has_min_max;    /* 0 for nested/unsupported types and all-null columns */
  pm_fmt_literal min; /* INT64 for integers/dates/timestamps, DOUBLE, BYTES (owned) */
  pm_fmt_literal max;
} pm_format_column_stats;

typedef struct pm_format_write_result {
  int64_t row_count;
  uint64_t file_size;
  size_t n_columns;
  pm_format_column_stats *columns; /* owned: pm_format_write_result_free */
} pm_format_write_result;

void pm_format_write_result_free(pm_format_write_result *r);

typedef struct pm_format_reader pm_format_reader;
typedef struct pm_format_writer pm_format_writer;

/* One format's operations. Entries are static; callers use the
 * pm_format_reader_* / pm_format_writer_* functions below. */
typedef struct pm_format {
  const char *name;      /* "parquet", "orc", "avro", "blob" */
  const char *extension; /* ".parquet", ... */
  int needs_data_schema; /* reads need pm_format_read_options.data_schema */
  /* The reader may skip rows by statistics without saying which: row
   * positions are then unavailable when predicates are given. */
  int prunes_untracked;
  int (*open)(pm_file *file, const pm_format_read_options *o, void **state, pm_error *err); /* takes file */
  int (*schema)(void *state, struct ArrowSchema *out, pm_error *err);
  int (*next)(void *state, struct ArrowArray *out, pm_error *err);
  const int64_t *(*positions)(void *state, int64_t *n); /* NULL: derived from the row ranges */
  void (*close)(void *state);
  /* Takes the sink in every case (committed by writer_close, discarded by writer_abort or on failure). */
  int (*writer_open)(pm_out_file *sink, const struct ArrowSchema *schema, const pm_format_write_options *o,
                     void **state, pm_error *err);
  int (*writer_write)(void *state, const struct ArrowArray *batch, pm_error *err);
  int (*writer_close)(void *state, uint64_t *file_size, pm_error *err); /* frees state in every case */
  void (*writer_abort)(void *state);                                   /* NULL ok state */
  /* Optional (NULL: not offered): bytes held in memory for the part of the file not written
   * out yet, and writing that part out now (a Parquet row group), releasing its memory. */
  uint64_t (*writer_buffered)(void *state);
  int (*writer_flush)(void *state, pm_error *err);
  /* Optional (NULL: not offered): the file's size so far, written bytes plus what the writer
   * holds for it at its encoded (compressed where done) size, as Java's format writers report
   * it for rolling at target-file-size. */
  uint64_t (*writer_data_size)(void *state);
} pm_format;

/* Registry. NULL when unknown. Names and extensions match case-insensitively. */
const pm_format *pm_format_by_name(const char *name);
/* By the extension of a file name ("data-1.orc" -> orc). */
const pm_format *pm_format_for_file(const char *file_name);

/* ---- reading ---- */

/* Opens a reader on an open random-access file. Takes ownership of `file`
 * in every case (closed by pm_format_reader_close, or at once on failure).
 * Options and what they point to are copied or used during the call only.
 * *out is owned by the caller: pm_format_reader_close. */
int pm_format_reader_open(const pm_format *f, pm_file *file, const pm_format_read_options *o,
                          pm_format_reader **out, pm_error *err);
/* Arrow schema ("+s") of the batches; *out owned by the caller. */
int pm_format_reader_schema(pm_format_reader *r, struct ArrowSchema *out, pm_error *err);
/* Next batch into *out (owned by the caller): >= 1 rows, or at the end a
 * released struct (out->release == NULL) with status 0. */
int pm_format_reader_next(pm_format_reader *r, struct ArrowArray *out, pm_error *err);
/* File row positions of the rows of the last batch (*n = its length), valid
 * until the next call on the reader. NULL with *n = 0 when unavailable (no
 * batch yet, allocation failure, or predicates given to a reader that
 * prunes untracked rows). */
const int64_t *pm_format_reader_positions(pm_format_reader *r, int64_t *n);
const pm_format *pm_format_reader_format(const pm_format_reader *r);
void pm_format_reader_close(pm_format_reader *r); /* NULL ok */

/* ---- writing ---- */

/* Starts a file on an output sink (pm_fs_create / pm_out_open_buf), which the writer owns from
 * the call on, also when the call fails: pm_format_writer_close commits it (overwrite mode; the
 * file is visible under its name only after a successful close), abort discards it.
 * schema: "+s" of the columns (borrowed during the call). o may be NULL. *out: close or abort. */
int pm_format_writer_open_sink(const pm_format *f, pm_out_file *sink, const struct ArrowSchema *schema,
                               const pm_format_write_options *o, pm_format_writer **out, pm_error *err);
/* Thin wrapper: pm_format_writer_open_sink on a new sink for path on the local fs. */
int pm_format_writer_open_path(const pm_format *f, const char *path, const struct ArrowSchema *schema,
                               const pm_format_write_options *o, pm_format_writer **out, pm_error *err);
/* pm_format_writer_open(f, sink_or_path, schema, o, out, err): the sink form; a path (char *)
 * still selects pm_format_writer_open_path, so callers of the former path-taking call keep
 * working until they move to sinks. */
#define pm_format_writer_open(f, dst, ...)                                                     \
  _Generic((dst), char *: pm_format_writer_open_path, const char *: pm_format_writer_open_path, \
           default: pm_format_writer_open_sink)((f), (dst), __VA_ARGS__)
/* Appends the rows of a struct batch matching the schema (borrowed). */
int pm_format_writer_write(pm_format_writer *w, const struct ArrowArray *batch, pm_error *err);
/* Finishes and commits the file, fills *res (owned by the caller:
 * pm_format_write_result_free) and frees w, in every case. */
int pm_format_writer_close(pm_format_writer *w, pm_format_write_result *res, pm_error *err);
/* Discards the file and frees w. NULL ok. */
void pm_format_writer_abort(pm_format_writer *w);
/* Bytes w holds in memory for rows not written out yet (0 when the format does not say). */
uint64_t pm_format_writer_buffered(const pm_format_writer *w);
/* Writes the buffered rows out now where the format can (Parquet: ends the row group),
 * releasing their memory; a no-op for formats that cannot. */
int pm_format_writer_flush(pm_format_writer *w, pm_error *err);
/* 1 and *size = the file's size so far (written + buffered, encoded) when the format reports
 * it (Parquet); 0 when it does not. */
int pm_format_writer_data_size(const pm_format_writer *w, uint64_t *size);

#endif
