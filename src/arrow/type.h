/*
 * Parsed Arrow types: a tree built from ArrowSchema format strings, so that
 * printers, validators, builders and kernels switch on an enum instead of
 * re-parsing strings per value.
 */
#ifndef PM_ARROW_TYPE_H
#define PM_ARROW_TYPE_H

#include <stddef.h>
#include <stdint.h>

#include "arrow/arrow.h"
#include "util/error.h"

typedef enum pm_type_id {
  PM_T_NULL,
  PM_T_BOOL,
  PM_T_INT8,
  PM_T_UINT8,
  PM_T_INT16,
  PM_T_UINT16,
  PM_T_INT32,
  PM_T_UINT32,
  PM_T_INT64,
  PM_T_UINT64,
  PM_T_HALF_FLOAT,
  PM_T_FLOAT,
  PM_T_DOUBLE,
  PM_T_DECIMAL128, /* "d:p,s" (or "d:p,s,128") */
  PM_T_DATE32,     /* "tdD" days since epoch */
  PM_T_DATE64,     /* "tdm" millis since epoch */
  PM_T_TIME32,     /* "tts"/"ttm" */
  PM_T_TIME64,     /* "ttu"/"ttn" */
  PM_T_TIMESTAMP,  /* "ts?:tz" */
  PM_T_UTF8,       /* "u" */
  PM_T_LARGE_UTF8, /* "U" */
  PM_T_BINARY,     /* "z" */
  PM_T_LARGE_BINARY, /* "Z" */
  PM_T_FIXED_BINARY, /* "w:n" */
  PM_T_LIST,         /* "+l" */
  PM_T_LARGE_LIST,   /* "+L" */
  PM_T_FIXED_LIST,   /* "+w:n" */
  PM_T_STRUCT,       /* "+s" */
  PM_T_MAP           /* "+m": one child struct<key, value> */
} pm_type_id;

typedef enum pm_time_unit { PM_UNIT_S = 0, PM_UNIT_MS = 1, PM_UNIT_US = 2, PM_UNIT_NS = 3 } pm_time_unit;

/* Maximum nesting depth accepted anywhere in the Arrow layer. */
#define PM_ARROW_MAX_DEPTH 64

typedef struct pm_type {
  pm_type_id id;
  pm_time_unit unit;     /* time32/time64/timestamp */
  int32_t precision;     /* decimal */
  int32_t scale;         /* decimal */
  int32_t width;         /* fixed binary: bytes per value; fixed list: values per list */
  char *tz;              /* timestamp time zone, NULL when absent or empty (owned) */
  char *name;            /* field name (owned, may be NULL) */
  int nullable;          /* ARROW_FLAG_NULLABLE */
  int64_t n_children;
  struct pm_type *children; /* n_children nodes (owned) */
  struct pm_type *dict;     /* value type when dictionary-encoded (this node = index type) (owned) */
} pm_type;

/* Parses one format string (no children) into *t (children not filled).
 * Returns PAIMON_ERR_INVALID_ARGUMENT / UNSUPPORTED with a message naming `path`. */
int pm_type_parse_format(const char *format, pm_type *t, const char *path, pm_error *err);

/* Builds the whole tree from a schema (recursive, depth-limited). *out is
 * owned by the caller: free with pm_type_free. */
int pm_type_from_schema(const struct ArrowSchema *schema, pm_type *out, pm_error *err);
void pm_type_free(pm_type *t);
int pm_type_copy(const pm_type *src, pm_type *dst, pm_error *err);

/* Replaces, in place and recursively, every dictionary-encoded node by its
 * value type, keeping the node's name and nullability: the type of the
 * arrays that decoding produces. */
void pm_type_decode_dictionaries(pm_type *t);

/* Writes the canonical format string for t (without children) into buf. */
int pm_type_format(const pm_type *t, char *buf, size_t cap);
/* Builds an ArrowSchema (owned by caller) from the tree. */
int pm_type_to_schema(const pm_type *t, struct ArrowSchema *out, pm_error *err);

/* Number of buffers the C Data Interface requires for this type. */
int pm_type_n_buffers(pm_type_id id);
/* Fixed byte width of values of a primitive type (0 for bool/var-width/nested). */
int pm_type_byte_width(const pm_type *t);
/* True for utf8/binary (32-bit offsets) and their large variants. */
static inline int pm_type_is_varbin(pm_type_id id) {
  return id == PM_T_UTF8 || id == PM_T_LARGE_UTF8 || id == PM_T_BINARY || id == PM_T_LARGE_BINARY;
}
static inline int pm_type_is_large(pm_type_id id) {
  return id == PM_T_LARGE_UTF8 || id == PM_T_LARGE_BINARY || id == PM_T_LARGE_LIST;
}

/* Convenience constructors for building type trees by hand (builders, tests).
 * Strings are copied. Children are zero-initialised; fill with these too. */
int pm_type_init(pm_type *t, pm_type_id id, const char *name, int nullable, int64_t n_children, pm_error *err);

/* Row validity at logical index i (honours a->offset). */
static inline int pm_array_is_valid(const struct ArrowArray *a, int64_t i) {
  const uint8_t *v = a->n_buffers > 0 ? (const uint8_t *)a->buffers[0] : 0;
  return !v || pm_bit_get(v, a->offset + i);
}

#endif
