/*
 * Thrift compact protocol decoding (the subset Parquet uses), over an
 * untrusted byte range. Every read is bounds-checked; nesting depth and list
 * sizes are limited so corrupt input cannot cause huge allocations or deep
 * recursion. Errors name the file, the structure being decoded and the
 * absolute file offset.
 */
#ifndef PM_PARQUET_THRIFT_READ_H
#define PM_PARQUET_THRIFT_READ_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

enum pm_thrift_type {
  PM_TT_STOP = 0,
  PM_TT_BOOL_TRUE = 1,
  PM_TT_BOOL_FALSE = 2,
  PM_TT_BYTE = 3,
  PM_TT_I16 = 4,
  PM_TT_I32 = 5,
  PM_TT_I64 = 6,
  PM_TT_DOUBLE = 7,
  PM_TT_BINARY = 8,
  PM_TT_LIST = 9,
  PM_TT_SET = 10,
  PM_TT_MAP = 11,
  PM_TT_STRUCT = 12
};

#define PM_THRIFT_MAX_DEPTH 64

typedef struct pm_thrift {
  const uint8_t *begin;
  const uint8_t *p;
  const uint8_t *end;
  uint64_t base_offset; /* file offset of begin, for messages */
  const char *path;     /* file name, for messages */
  const char *what;     /* structure being decoded, for messages */
  int depth;
  pm_error *err;
} pm_thrift;

void pm_thrift_init(pm_thrift *t, const uint8_t *data, size_t len, uint64_t base_offset, const char *path,
                    const char *what, pm_error *err);

/* Error at the current position; returns PAIMON_ERR_CORRUPT. */
int pm_thrift_fail(pm_thrift *t, const char *detail);

int pm_thrift_varint(pm_thrift *t, uint64_t *out);
int pm_thrift_i32(pm_thrift *t, int32_t *out);
int pm_thrift_i64(pm_thrift *t, int64_t *out);
int pm_thrift_double(pm_thrift *t, double *out);
/* Binary/string: pointer into the input (no copy). */
int pm_thrift_binary(pm_thrift *t, const uint8_t **data, uint32_t *len);

/* Struct framing. Call struct_begin, then loop over pm_thrift_field until
 * *type == PM_TT_STOP, then struct_end. *bool_value is set for bool fields. */
int pm_thrift_struct_begin(pm_thrift *t, int16_t *last_id);
int pm_thrift_field(pm_thrift *t, int16_t *last_id, int16_t *id, int *type);
void pm_thrift_struct_end(pm_thrift *t);
/* Value of a bool field from its header type. */
static inline int pm_thrift_field_bool(int type) { return type == PM_TT_BOOL_TRUE; }

/* List/set header. *count is checked against the remaining bytes. */
int pm_thrift_list_begin(pm_thrift *t, int *elem_type, uint32_t *count);
/* A bool list element (one byte). */
int pm_thrift_list_bool(pm_thrift *t, int *out);

/* Skips a value of the given type (nested structs/lists/maps too). */
int pm_thrift_skip(pm_thrift *t, int type);

/* Checks that the field type is what the schema says; on mismatch fails naming the field. */
int pm_thrift_expect(pm_thrift *t, int type, int want, const char *field);

#endif
