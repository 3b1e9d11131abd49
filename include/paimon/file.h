/*
 * libpaimon public API: single data files (Parquet, ORC, Avro) outside any
 * table, as Arrow C streams. This is what the `paimon parquet|orc|avro`
 * commands and `table import` use.
 *
 *   paimon_file_read_options o; paimon_file_read_options_init(&o);
 *   const char *cols[] = {"id", "name"}; o.columns = cols; o.n_columns = 2; o.limit = 10;
 *   struct ArrowArrayStream s;
 *   paimon_file_open("/data/f.parquet", &o, &s, &err);   ... s.get_next ... s.release(&s);
 *
 *   paimon_file_write_options w; paimon_file_write_options_init(&w);
 *   w.format = "parquet"; w.compression = "zstd";
 *   paimon_file_write("/data/out.parquet", &w, &s, &rows, &err);   (consumes and releases s)
 *
 * Conventions as in paimon.h (status + optional err last; ownership stated
 * per call). Paths are local files. Thread safety: distinct calls and streams
 * are independent; one stream is used by one thread at a time.
 */
#ifndef PAIMON_FILE_H
#define PAIMON_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "paimon/arrow_c.h"
#include "paimon/error.h"
#include "paimon/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct paimon_file_read_options {
  /* "parquet", "orc" or "avro" (any case); NULL: from the file name's extension
   * (.parquet, .orc, .avro; another name is PAIMON_ERR_INVALID_ARGUMENT). */
  const char *format;
  /* Projection by top-level column name, or NULL for every column. Parquet
   * returns them in the order given; ORC and Avro in the file's order. An
   * unknown name is PAIMON_ERR_NOT_FOUND. Borrowed during the call only. */
  const char *const *columns;
  size_t n_columns;
  int64_t limit;      /* at most this many rows (the first ones); < 0 = all */
  int64_t batch_rows; /* rows per batch; <= 0 = 16384 */
  /* Parquet only: string and binary columns as Arrow string / binary views ("vu", "vz"). */
  int string_view;
} paimon_file_read_options;

/* Defaults: every column, no limit, 16384 rows per batch, format from the name. */
PAIMON_EXPORT void paimon_file_read_options_init(paimon_file_read_options *o);

/* Opens a file for reading as an Arrow C stream of struct batches ("+s", one
 * child per column). Avro files are typed from their writer schema: fields of
 * null, boolean, int, long, float, double, string and bytes (with the
 * date, time-millis, timestamp-millis/micros, local-timestamp-millis/micros
 * and decimal logical types, each optionally in a ["null", T] union); a
 * selected field of another type is PAIMON_ERR_UNSUPPORTED naming it.
 * o may be NULL (defaults). *out is owned by the caller (out->release). */
PAIMON_EXPORT paimon_status paimon_file_open(const char *path, const paimon_file_read_options *o,
                                             struct ArrowArrayStream *out, paimon_error *err);

/* The Arrow schema ("+s") paimon_file_open with format and no projection
 * gives. format may be NULL (from the name). *out owned by the caller (out->release). */
PAIMON_EXPORT paimon_status paimon_file_arrow_schema(const char *path, const char *format, struct ArrowSchema *out,
                                                     paimon_error *err);

typedef struct paimon_file_write_options {
  const char *format;      /* "parquet" (default when NULL), "orc" or "avro" */
  /* "zstd" (default when NULL), "none", "snappy", "gzip" / "deflate" / "zlib", "lz4";
   * a codec the format cannot write is PAIMON_ERR_INVALID_ARGUMENT / UNSUPPORTED. */
  const char *compression;
  int compression_level;   /* 0 = the codec's default */
  int64_t row_group_rows;  /* Parquet: rows per row group at most; 0 = no row limit */
  int64_t row_group_bytes; /* Parquet: estimated compressed bytes per row group; 0 = 128 MiB */
} paimon_file_write_options;

PAIMON_EXPORT void paimon_file_write_options_init(paimon_file_write_options *o);

/* Writes every batch of *in (struct batches) to a new file at path, which
 * appears under that name only when complete (an existing file is replaced
 * atomically); on failure nothing is left at path. The stream is consumed and
 * released in every case (in->release is NULL afterwards). *rows (may be NULL)
 * receives the number of rows written. o may be NULL (defaults). */
PAIMON_EXPORT paimon_status paimon_file_write(const char *path, const paimon_file_write_options *o,
                                              struct ArrowArrayStream *in, int64_t *rows, paimon_error *err);

#ifdef __cplusplus
}
#endif

#endif /* PAIMON_FILE_H */
