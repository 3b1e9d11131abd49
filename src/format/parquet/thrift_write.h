/*
 * Thrift compact protocol encoder (the subset Parquet metadata needs).
 *
 * The writer appends to a caller-owned pm_buf. Errors (out of memory, nesting
 * deeper than PM_TW_MAX_DEPTH) are sticky: every call after a failure is a
 * no-op and pm_tw_finish reports the first failure, so callers can emit a
 * whole structure and check once.
 *
 * Usage:
 *   pm_tw w; pm_tw_init(&w, &buf);
 *   pm_tw_struct_begin(&w);                 // top-level struct
 *   pm_tw_field_i32(&w, 1, 42);
 *   pm_tw_field_struct_begin(&w, 2); ... pm_tw_struct_end(&w);
 *   pm_tw_field_list_begin(&w, 3, PM_TW_I64, n); for (...) pm_tw_i64(&w, v);
 *   pm_tw_struct_end(&w);
 *   rc = pm_tw_finish(&w, err);
 */
#ifndef PM_PARQUET_THRIFT_WRITE_H
#define PM_PARQUET_THRIFT_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/error.h"

/* Compact protocol element type ids. */
enum pm_tw_type {
  PM_TW_BOOL_TRUE = 1,
  PM_TW_BOOL_FALSE = 2,
  PM_TW_BYTE = 3,
  PM_TW_I16 = 4,
  PM_TW_I32 = 5,
  PM_TW_I64 = 6,
  PM_TW_DOUBLE = 7,
  PM_TW_BINARY = 8,
  PM_TW_LIST = 9,
  PM_TW_SET = 10,
  PM_TW_MAP = 11,
  PM_TW_STRUCT = 12
};

#define PM_TW_MAX_DEPTH 32

typedef struct pm_tw {
  pm_buf *out;
  int depth;                         /* number of open structs */
  int16_t last_fid[PM_TW_MAX_DEPTH]; /* last field id per open struct */
  int failed;                        /* 0, or the first failure's status */
} pm_tw;

void pm_tw_init(pm_tw *w, pm_buf *out);
/* Returns 0, or the first failure as a status with a message in err. */
int pm_tw_finish(pm_tw *w, pm_error *err);

/* Raw values (list elements, or after a field header). */
void pm_tw_varint(pm_tw *w, uint64_t v);
void pm_tw_i32(pm_tw *w, int32_t v);
void pm_tw_i64(pm_tw *w, int64_t v);
void pm_tw_binary(pm_tw *w, const void *data, size_t len);
void pm_tw_bool_elem(pm_tw *w, int v); /* bool inside a list: one byte, 1 true / 2 false */
void pm_tw_list_begin(pm_tw *w, enum pm_tw_type elem, uint32_t count);

/* Structs: a top-level struct or a list element struct opens with
 * pm_tw_struct_begin; a struct-valued field with pm_tw_field_struct_begin.
 * Both are closed by pm_tw_struct_end (writes the stop byte). */
void pm_tw_struct_begin(pm_tw *w);
void pm_tw_struct_end(pm_tw *w);

/* Fields of the innermost open struct; ids must increase (compact deltas). */
void pm_tw_field_header(pm_tw *w, int16_t fid, enum pm_tw_type type);
void pm_tw_field_i32(pm_tw *w, int16_t fid, int32_t v);
void pm_tw_field_i64(pm_tw *w, int16_t fid, int64_t v);
void pm_tw_field_i16(pm_tw *w, int16_t fid, int16_t v);
void pm_tw_field_i8(pm_tw *w, int16_t fid, int8_t v); /* compact BYTE: one raw byte */
void pm_tw_field_bool(pm_tw *w, int16_t fid, int v);
void pm_tw_field_binary(pm_tw *w, int16_t fid, const void *data, size_t len);
void pm_tw_field_string(pm_tw *w, int16_t fid, const char *s);
void pm_tw_field_struct_begin(pm_tw *w, int16_t fid);
void pm_tw_field_list_begin(pm_tw *w, int16_t fid, enum pm_tw_type elem, uint32_t count);
/* A struct-valued field whose encoded bytes (ending with the stop byte)
 * were produced earlier by a separate pm_tw. */
void pm_tw_field_raw_struct(pm_tw *w, int16_t fid, const void *bytes, size_t len);
/* An empty struct as a field value (Parquet union members such as StringType). */
void pm_tw_field_empty_struct(pm_tw *w, int16_t fid);

#endif
