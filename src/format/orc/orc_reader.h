/*
 * Streaming ORC reader: file tail (postscript, footer, metadata), stripes,
 * column decoding into Arrow C Data Interface arrays.
 *
 * Usage:
 *   pm_orc_reader *r;
 *   pm_orc_read_options o; pm_orc_read_options_init(&o);  // then set fields
 *   pm_orc_reader_open(file, &o, &r, &err);               // file borrowed, must outlive r
 *   struct ArrowSchema s; pm_orc_reader_schema(r, &s, &err);  // caller releases s
 *   struct ArrowArray a;
 *   while (pm_orc_reader_next(r, &a, &err) == 0 && a.release) { ...; a.release(&a); }
 *   pm_orc_reader_close(r);
 *
 * Batches are struct arrays ("+s") whose children are the selected top-level
 * columns, in file order. Memory is bounded: one stripe's selected streams
 * are held at a time.
 *
 * Arrow types: boolean "b", tinyint "c", smallint "s", int "i", bigint "l",
 * float "f", double "g", decimal "d:p,s" (decimal128), date "tdD",
 * string/char/varchar "u", binary "z", timestamp "ts?:" with an empty zone,
 * timestamp with local time zone (ORC TIMESTAMP_INSTANT) "ts?:UTC", list "+l",
 * map "+m" (entries struct with "key"/"value"), struct "+s" (list elements
 * are named "element"), union "+ud:0,1,..." (dense; children "tag0".., a null
 * union row is a null slot of child 0; Paimon never writes unions).
 * The timestamp unit is "n" (nanoseconds) unless the options ask otherwise.
 * A column's Paimon field id (ORC type attribute "paimon.id") is exposed as
 * Arrow field metadata "PARQUET:field_id", the same key the Parquet reader uses.
 * CHAR(n)/VARCHAR(n) columns carry metadata "ORC:type" = "char(n)"/"varchar(n)";
 * CHAR values are returned right-trimmed of spaces (as ORC Java reads them).
 */
#ifndef PM_FORMAT_ORC_READER_H
#define PM_FORMAT_ORC_READER_H

#include <stddef.h>
#include <stdint.h>

#include "format/format_predicate.h"
#include "io/file.h"
#include "paimon/arrow_c.h"
#include "util/compress.h"
#include "util/error.h"

/* ORC type kinds (values as in orc_proto Type.Kind). */
typedef enum pm_orc_kind {
  PM_ORC_BOOLEAN = 0,
  PM_ORC_BYTE = 1,
  PM_ORC_SHORT = 2,
  PM_ORC_INT = 3,
  PM_ORC_LONG = 4,
  PM_ORC_FLOAT = 5,
  PM_ORC_DOUBLE = 6,
  PM_ORC_STRING = 7,
  PM_ORC_BINARY = 8,
  PM_ORC_TIMESTAMP = 9,
  PM_ORC_LIST = 10,
  PM_ORC_MAP = 11,
  PM_ORC_STRUCT = 12,
  PM_ORC_UNION = 13,
  PM_ORC_DECIMAL = 14,
  PM_ORC_DATE = 15,
  PM_ORC_VARCHAR = 16,
  PM_ORC_CHAR = 17,
  PM_ORC_TIMESTAMP_INSTANT = 18
} pm_orc_kind;

/* Column encodings (orc_proto ColumnEncoding.Kind). */
typedef enum pm_orc_encoding {
  PM_ORC_ENC_DIRECT = 0,
  PM_ORC_ENC_DICTIONARY = 1,
  PM_ORC_ENC_DIRECT_V2 = 2,
  PM_ORC_ENC_DICTIONARY_V2 = 3
} pm_orc_encoding;

/* ---- predicates (for stripe / row-group pruning; never filter rows) ----
 * See format/format_predicate.h. Literals: int64 for integers, booleans
 * (0/1), dates (days), timestamps (epoch millis), decimals (unscaled, same
 * scale); double for float/double; bytes for string, char, varchar, binary
 * (byte-wise comparison). A named column is a top-level column. */

/* Wanted Arrow timestamp unit for one column: 's', 'm', 'u' or 'n'. */
typedef struct pm_orc_ts_unit {
  const char *column; /* top-level column name, or NULL to use field_id */
  int32_t field_id;
  char unit;
} pm_orc_ts_unit;

typedef struct pm_orc_read_options {
  /* Projection: top-level column names, or Paimon field ids; both NULL = all.
   * The output keeps file order. Unknown names/ids are PAIMON_ERR_NOT_FOUND. */
  const char *const *columns;
  size_t n_columns;
  const int32_t *field_ids;
  size_t n_field_ids;
  int64_t batch_size; /* rows per batch; 0 = 16384 (as the Parquet reader) */
  const pm_fmt_predicate *predicates;
  size_t n_predicates;
  /* Row ranges: n_row_ranges pairs [start, end) of file row positions,
   * sorted and non-overlapping; NULL = all rows. Only these rows are returned. */
  const int64_t *row_ranges;
  size_t n_row_ranges;
  /* Timestamp units: default for every timestamp column ('n' if 0), then per-column overrides. */
  char default_ts_unit;
  const pm_orc_ts_unit *ts_units;
  size_t n_ts_units;
} pm_orc_read_options;

void pm_orc_read_options_init(pm_orc_read_options *o);

typedef struct pm_orc_reader pm_orc_reader;

/* Reads and validates the file tail. `file` is borrowed and must outlive the
 * reader; options are copied (borrowed literals/strings need not outlive the call).
 * *out is owned by the caller: pm_orc_reader_close. */
int pm_orc_reader_open(pm_file *file, const pm_orc_read_options *options, pm_orc_reader **out, pm_error *err);
void pm_orc_reader_close(pm_orc_reader *r); /* NULL ok */

/* Schema of the batches (struct "+s" of the selected columns). Caller releases *out. */
int pm_orc_reader_schema(pm_orc_reader *r, struct ArrowSchema *out, pm_error *err);

/* Next batch into *out (caller releases). At the end, returns 0 with
 * out->release == NULL. */
int pm_orc_reader_next(pm_orc_reader *r, struct ArrowArray *out, pm_error *err);

/* ---- metadata (valid from open to close; pointers owned by the reader) ---- */

uint64_t pm_orc_reader_num_rows(const pm_orc_reader *r);
pm_codec pm_orc_reader_compression(const pm_orc_reader *r); /* NONE/DEFLATE/SNAPPY/LZ4_RAW/ZSTD */
const char *pm_orc_reader_compression_name(const pm_orc_reader *r); /* "NONE", "ZLIB", "SNAPPY", "LZO", "LZ4", "ZSTD" */
uint64_t pm_orc_reader_compression_block_size(const pm_orc_reader *r);
uint32_t pm_orc_reader_writer_version(const pm_orc_reader *r);
uint32_t pm_orc_reader_row_index_stride(const pm_orc_reader *r);
const char *pm_orc_reader_software_version(const pm_orc_reader *r); /* may be "" */
/* User metadata key/value (footer.metadata); i in [0, count). Values are bytes. */
size_t pm_orc_reader_user_metadata_count(const pm_orc_reader *r);
void pm_orc_reader_user_metadata(const pm_orc_reader *r, size_t i, const char **key, const uint8_t **value,
                                 size_t *value_len);

typedef struct pm_orc_stripe_info {
  uint64_t offset, index_length, data_length, footer_length, num_rows;
  uint64_t first_row; /* file row position of the stripe's first row */
} pm_orc_stripe_info;

size_t pm_orc_reader_num_stripes(const pm_orc_reader *r);
const pm_orc_stripe_info *pm_orc_reader_stripe(const pm_orc_reader *r, size_t i);
/* Number of stripes/row groups skipped by predicates so far (for tests and EXPLAIN). */
uint64_t pm_orc_reader_skipped_stripes(const pm_orc_reader *r);
uint64_t pm_orc_reader_skipped_row_groups(const pm_orc_reader *r);

/* Columns = ORC types in pre-order; column 0 is the root struct. */
typedef struct pm_orc_column_info {
  pm_orc_kind kind;
  const char *name;      /* field name in the parent struct; "" for root, list elements, map keys/values */
  int32_t parent;        /* -1 for root */
  int32_t field_id;      /* attribute paimon.id, -1 if absent */
  uint32_t precision, scale, max_length; /* decimal / char / varchar */
  uint32_t n_children;
  const uint32_t *children; /* column ids */
} pm_orc_column_info;

size_t pm_orc_reader_num_columns(const pm_orc_reader *r);
const pm_orc_column_info *pm_orc_reader_column(const pm_orc_reader *r, size_t column);
/* Column id of a top-level column by name / field id; -1 if absent. */
int32_t pm_orc_reader_find_column(const pm_orc_reader *r, const char *name);
int32_t pm_orc_reader_find_field_id(const pm_orc_reader *r, int32_t field_id);
/* Attributes of a column (type attributes key/value); i in [0, count). */
size_t pm_orc_reader_column_attribute_count(const pm_orc_reader *r, size_t column);
void pm_orc_reader_column_attribute(const pm_orc_reader *r, size_t column, size_t i, const char **key,
                                    const char **value);

/* Encodings of every column in a stripe (reads the stripe footer).
 * out receives num_columns entries (caller provides the array); dictionary sizes optional (may be NULL). */
int pm_orc_reader_stripe_encodings(pm_orc_reader *r, size_t stripe, pm_orc_encoding *out, uint32_t *dictionary_sizes,
                                   pm_error *err);

/* Column statistics. Which min/max is set depends on the kind:
 *   has_int:    BOOLEAN(false=0,true=1 counts in true_count), BYTE..LONG, DATE (days)
 *   has_double: FLOAT, DOUBLE
 *   has_bytes:  STRING, VARCHAR, CHAR (min/max bytes); BINARY has only sum (total length)
 *   has_decimal: DECIMAL min/max as decimal strings (e.g. "-1.50")
 *   has_timestamp: TIMESTAMP[_INSTANT] min/max as epoch milliseconds (UTC; for
 *                  TIMESTAMP without zone: the wall clock read as UTC, as Java writes it),
 *                  plus nanosecond remainders (0..999999) when the writer stored them. */
typedef struct pm_orc_column_stats {
  uint64_t num_values; /* non-null values */
  int has_null;        /* 1/0, -1 if not recorded */
  int64_t null_count;  /* for top-level columns: parent rows - num_values; else -1 */
  int has_int, has_double, has_bytes, has_decimal, has_timestamp;
  int64_t min_int, max_int;
  int has_int_sum;
  int64_t int_sum;
  double min_double, max_double;
  const uint8_t *min_bytes, *max_bytes; /* borrowed from the reader */
  size_t min_len, max_len;
  char min_decimal[48], max_decimal[48]; /* NUL-terminated decimal strings */
  int64_t min_ts_millis, max_ts_millis;
  /* Nanoseconds within the millisecond (0..999999). When the writer did not
   * store them, min is 0 and max 999999 (the bounds stay conservative). */
  int32_t min_ts_nanos, max_ts_nanos;
  uint64_t true_count;                /* BOOLEAN */
  int64_t binary_sum;                 /* BINARY total length, string total length */
} pm_orc_column_stats;

/* File-level statistics of a column (footer). */
int pm_orc_reader_file_stats(const pm_orc_reader *r, size_t column, pm_orc_column_stats *out, pm_error *err);
/* Stripe-level statistics (file metadata section); PAIMON_ERR_NOT_FOUND if the file has none. */
int pm_orc_reader_stripe_stats(pm_orc_reader *r, size_t stripe, size_t column, pm_orc_column_stats *out,
                               pm_error *err);

const char *pm_orc_kind_name(pm_orc_kind k);
const char *pm_orc_encoding_name(pm_orc_encoding e);

#endif
