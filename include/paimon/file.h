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
  /* Parquet pages (0 = the defaults: 20000 rows, 1 MiB of PLAIN-encoded values,
   * dictionary encoding on, data page v1, page CRCs written). */
  int64_t page_rows;
  int64_t page_bytes;
  int no_dictionary;
  int data_page_v2;
  int no_page_crc;
} paimon_file_write_options;

PAIMON_EXPORT void paimon_file_write_options_init(paimon_file_write_options *o);

/* Writes every batch of *in (struct batches) to a new file at path, which
 * appears under that name only when complete (an existing file is replaced
 * atomically); on failure nothing is left at path. The stream is consumed and
 * released in every case (in->release is NULL afterwards). *rows (may be NULL)
 * receives the number of rows written. o may be NULL (defaults). */
PAIMON_EXPORT paimon_status paimon_file_write(const char *path, const paimon_file_write_options *o,
                                              struct ArrowArrayStream *in, int64_t *rows, paimon_error *err);

typedef struct paimon_file_write_result {
  int64_t rows;
  int64_t row_groups; /* Parquet row groups (other formats: 0) */
  int64_t file_size;  /* bytes */
} paimon_file_write_result;

/* paimon_file_write, also reporting the written file's shape in *res (may be
 * NULL; zeroed on failure). Same stream ownership: consumed and released. */
PAIMON_EXPORT paimon_status paimon_file_write_with_result(const char *path, const paimon_file_write_options *o,
                                                          struct ArrowArrayStream *in, paimon_file_write_result *res,
                                                          paimon_error *err);

/* ---- inspecting files (what `paimon parquet|orc|avro schema|meta` print) ---- */

typedef enum paimon_file_describe_kind {
  PAIMON_FILE_DESCRIBE_SCHEMA = 0, /* Parquet: the schema tree in parquet-mr's message syntax (logical
                                      types, field ids); ORC: the type tree (ids, names, attributes);
                                      Avro: the writer schema JSON and a newline */
  PAIMON_FILE_DESCRIBE_META = 1    /* Parquet: footer, row groups, column chunks (codec, encodings,
                                      sizes, offsets, statistics); ORC: rows, compression, versions,
                                      user metadata, file and stripe statistics and encodings;
                                      Avro: PAIMON_ERR_UNSUPPORTED */
} paimon_file_describe_kind;

/* A text description of the file, lines ending in "\n". o may be NULL; only
 * o->format (NULL: from the name) and, for ORC, o->columns (each must name a
 * top-level column) are used. *text is owned by the caller
 * (paimon_free_string). On failure *text is NULL, except that an ORC META
 * whose stripe part fails leaves what was described before in *text (free
 * it too) besides the error. */
PAIMON_EXPORT paimon_status paimon_file_describe(const char *path, const paimon_file_read_options *o,
                                                 paimon_file_describe_kind what, char **text, paimon_error *err);

/* Records of an Avro file of any writer schema as JSON text, one at a time
 * (what `paimon avro cat` prints): records as objects, bytes and fixed as
 * base64, enums as their symbol, maps as arrays of [key, value] pairs, unions
 * as their value, NaN/Infinity as strings, other values as in paimon/print.h.
 * o may be NULL. o->columns (when not NULL, even with n_columns = 0) selects
 * top-level record fields in the order given (empty names skipped; an unknown
 * one is PAIMON_ERR_NOT_FOUND; a file of non-record values is
 * PAIMON_ERR_INVALID_ARGUMENT); o->limit caps the records. o->format must be
 * NULL or "avro". *out is owned by the caller: paimon_file_records_close. */
typedef struct paimon_file_records paimon_file_records;
PAIMON_EXPORT paimon_status paimon_file_records_open(const char *path, const paimon_file_read_options *o,
                                                     paimon_file_records **out, paimon_error *err);
/* The next record's JSON (no newline, NUL-terminated, *len bytes; borrowed:
 * valid until the next call or close), or *json = NULL after the last one. */
PAIMON_EXPORT paimon_status paimon_file_records_next(paimon_file_records *r, const char **json, size_t *len,
                                                     paimon_error *err);
PAIMON_EXPORT void paimon_file_records_close(paimon_file_records *r); /* NULL ok */

#ifdef __cplusplus
}
#endif

#endif /* PAIMON_FILE_H */
