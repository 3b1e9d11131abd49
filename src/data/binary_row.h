/*
 * Paimon BinaryRow / BinaryArray / BinaryMap (FORMAT.md 5): decoding views
 * over untrusted bytes and an encoder that reproduces Java's bytes exactly.
 *
 * Views never copy: values of strings, binaries and nested structures point
 * into the viewed bytes, which must outlive the view and the values.
 */
#ifndef PM_DATA_BINARY_ROW_H
#define PM_DATA_BINARY_ROW_H

#include <stddef.h>
#include <stdint.h>

#include "data/types.h"
#include "util/buf.h"
#include "util/error.h"

/* ---- values ---- */

typedef enum pm_value_kind {
  PM_V_NULL = 0,
  PM_V_BOOL,      /* i64 0/1 */
  PM_V_INT,       /* i64: TINYINT, SMALLINT, INT, BIGINT, DATE (days), TIME (millis of day) */
  PM_V_FLOAT,     /* f64 holds the float value (FLOAT) */
  PM_V_DOUBLE,    /* f64 */
  PM_V_DECIMAL,   /* dec */
  PM_V_STRING,    /* bytes: UTF-8 (CHAR, VARCHAR) */
  PM_V_BINARY,    /* bytes: BINARY, VARBINARY, BLOB, GEOMETRY, GEOGRAPHY */
  PM_V_TIMESTAMP, /* ts: TIMESTAMP and TIMESTAMP_LTZ */
  PM_V_ARRAY,     /* bytes: a BinaryArray (ARRAY, VECTOR raw chunk) */
  PM_V_MAP,       /* bytes: a BinaryMap (MAP, MULTISET) */
  PM_V_ROW,       /* bytes: a nested BinaryRow (no arity prefix); n = arity */
  PM_V_VARIANT    /* bytes: value bytes; bytes2: metadata bytes */
} pm_value_kind;

typedef struct pm_decimal {
  int64_t hi;  /* 128-bit two's complement unscaled value: hi (signed) : lo */
  uint64_t lo;
  int32_t precision;
  int32_t scale;
} pm_decimal;

typedef struct pm_value {
  pm_value_kind kind;
  union {
    int64_t i64;
    double f64;
    pm_decimal dec;
    struct {
      int64_t millis;
      int32_t nanos; /* nano of millisecond 0..999999 */
    } ts;
    struct {
      const uint8_t *data;
      size_t len;
      const uint8_t *data2; /* VARIANT metadata */
      size_t len2;
      int32_t n;            /* ROW arity */
    } bytes;
  } u;
} pm_value;

/* Total order for stats pruning of two values of the same kind: strings and
 * binaries unsigned lexicographic, floats with Java's Float/Double.compare,
 * decimals numerically (same scale assumed), timestamps by (millis, nanos).
 * Returns <0, 0, >0; nested kinds compare by bytes. NULL sorts first. */
int pm_value_compare(const pm_value *a, const pm_value *b);

/* Decimal helpers. */
void pm_decimal_from_int64(pm_decimal *d, int64_t unscaled, int32_t precision, int32_t scale);
/* Minimal big-endian two's complement (Java BigInteger.toByteArray): 1..16 bytes into buf[16]. */
size_t pm_decimal_to_be_bytes(const pm_decimal *d, uint8_t buf[16]);
int pm_decimal_from_be_bytes(pm_decimal *d, const uint8_t *b, size_t n, int32_t precision, int32_t scale);
/* Plain decimal string ("-123.45000"), NUL-terminated into buf (cap >= 48). */
void pm_decimal_to_string(const pm_decimal *d, char *buf, size_t cap);
/* Fits in int64? (1 and *out = value) */
int pm_decimal_to_int64(const pm_decimal *d, int64_t *out);

/* ---- BinaryRow view ---- */

typedef struct pm_binary_row {
  const uint8_t *data; /* row bytes (header byte first), no arity prefix */
  size_t len;
  int32_t arity;
} pm_binary_row;

#define PM_ROW_MAX_ARITY 65536

/* nullBitsSize = ((arity + 63 + 8) / 64) * 8 */
static inline size_t pm_binary_row_null_bits_size(int32_t arity) { return ((size_t)arity + 63 + 8) / 64 * 8; }

/* Opens manifest form: int32 BE arity + row bytes (FORMAT.md 5.6). Checks the
 * fixed part fits. `what` names the field for messages. */
int pm_binary_row_open_serialized(const uint8_t *data, size_t len, const char *what, pm_binary_row *row,
                                  pm_error *err);
/* Opens bare row bytes with a known arity. */
int pm_binary_row_open(const uint8_t *data, size_t len, int32_t arity, const char *what, pm_binary_row *row,
                       pm_error *err);
/* Row kind byte (0 +I, 1 -U, 2 +U, 3 -D). */
static inline int pm_binary_row_kind(const pm_binary_row *r) { return r->len ? r->data[0] : 0; }
int pm_binary_row_is_null(const pm_binary_row *r, int32_t i);
/* Decodes field i as `type` (bounds-checked; null ⇒ kind PM_V_NULL). */
int pm_binary_row_get(const pm_binary_row *r, int32_t i, const pm_data_type *type, pm_value *out, pm_error *err);

/* ---- BinaryArray / BinaryMap views ---- */

typedef struct pm_binary_array {
  const uint8_t *data;
  size_t len;
  int32_t n;
} pm_binary_array;

int pm_binary_array_open(const uint8_t *data, size_t len, pm_binary_array *arr, pm_error *err);
int pm_binary_array_is_null(const pm_binary_array *a, int32_t i);
/* Element i as elem_type. */
int pm_binary_array_get(const pm_binary_array *a, int32_t i, const pm_data_type *elem_type, pm_value *out,
                        pm_error *err);
/* BinaryMap = key array + value array. */
int pm_binary_map_open(const uint8_t *data, size_t len, pm_binary_array *keys, pm_binary_array *values,
                       pm_error *err);

/* ---- encoder ---- */

/* Builds one BinaryRow. Fields must be written in order 0..arity-1 (each
 * exactly once), as Java's BinaryRowWriter does, so that reservations and
 * offsets come out identical. */
typedef struct pm_binary_row_writer {
  pm_buf buf;       /* row bytes (no prefix) */
  int32_t arity;
  size_t null_bits; /* null bits size */
} pm_binary_row_writer;

int pm_row_writer_init(pm_binary_row_writer *w, int32_t arity, pm_error *err);
void pm_row_writer_free(pm_binary_row_writer *w);
/* Starts the next row of the same arity in w's memory (no allocation once grown). */
int pm_row_writer_reset(pm_binary_row_writer *w, pm_error *err);
void pm_row_writer_set_kind(pm_binary_row_writer *w, uint8_t kind);
/* Writes field i of `type` (v->kind PM_V_NULL writes a null with Java's reservations). */
int pm_row_writer_write(pm_binary_row_writer *w, int32_t i, const pm_data_type *type, const pm_value *v,
                        pm_error *err);
/* Low-level helpers for callers without a pm_data_type. */
int pm_row_writer_set_null_fixed(pm_binary_row_writer *w, int32_t i);
int pm_row_writer_write_int64(pm_binary_row_writer *w, int32_t i, int64_t v);
int pm_row_writer_write_int32(pm_binary_row_writer *w, int32_t i, int32_t v);
int pm_row_writer_write_bytes(pm_binary_row_writer *w, int32_t i, const uint8_t *b, size_t n, pm_error *err);
/* Appends the finished row to out: with_arity_prefix ⇒ int32 BE arity first (manifest form). */
int pm_row_writer_finish(pm_binary_row_writer *w, int with_arity_prefix, pm_buf *out, pm_error *err);

/* Builds one BinaryArray of n elements of elem_type; elements written in order. */
typedef struct pm_binary_array_writer {
  pm_buf buf;
  int32_t n;
  size_t elem_size;
  size_t header; /* 4 + null bits */
  size_t fixed;  /* header + elements, rounded to 8 */
} pm_binary_array_writer;

int pm_array_writer_init(pm_binary_array_writer *w, int32_t n, const pm_data_type *elem_type, pm_error *err);
void pm_array_writer_free(pm_binary_array_writer *w);
int pm_array_writer_write(pm_binary_array_writer *w, int32_t i, const pm_data_type *elem_type, const pm_value *v,
                          pm_error *err);
/* Appends the finished array bytes to out. */
int pm_array_writer_finish(pm_binary_array_writer *w, pm_buf *out, pm_error *err);

/* BinaryMap = int32 LE key-array size | key BinaryArray | value BinaryArray.
 * Appends the map built from two finished arrays (same element count) to out. */
int pm_binary_map_build(const uint8_t *keys, size_t keys_len, const uint8_t *values, size_t values_len, pm_buf *out,
                        pm_error *err);

#endif
