/*
 * Column builders: append values, nulls, rows or row ranges of other arrays,
 * then finish into an ArrowArray (and an ArrowSchema from the type).
 *
 * Supported types (pm_type ids): null, bool, int8..uint64, half float,
 * float, double, decimal128, date32/64, time32/64, timestamp (any unit,
 * with or without zone), utf8/binary (+large), fixed-size binary, list
 * (+large), fixed-size list, struct, map. Dictionary-encoded output is not
 * produced: a builder created for a dictionary-encoded type builds its
 * decoded value type (see pm_type_decode_dictionaries), and the append_from /
 * append_range / append_take calls decode dictionary-encoded sources when
 * src_type says so.
 *
 * After an append call fails, the builder's content is unspecified: free it
 * (or finish and discard).
 *
 * Nested values are built bottom-up: append the items / fields to the child
 * builders (pm_builder_child), then call pm_builder_append_valid on the
 * parent to close one element:
 *   - list / map / large list: the element spans the child items appended
 *     since the previous element (map: child 0 is the entries struct, whose
 *     children 0/1 are key/value; close each entry with append_valid on it);
 *   - fixed-size list: the child must hold exactly (length+1)*width items;
 *   - struct: every child must hold exactly length+1 values.
 * pm_builder_append_null on a struct appends a null to every child; on a
 * fixed-size list it appends `width` nulls to the child.
 *
 * Buffers are 64-byte aligned and grow geometrically. A builder can be
 * reused after pm_builder_finish (it is reset to empty). Not thread-safe.
 */
#ifndef PM_ARROW_BUILDER_H
#define PM_ARROW_BUILDER_H

#include <stddef.h>
#include <stdint.h>

#include "arrow/type.h"
#include "paimon/arrow_c.h"
#include "util/error.h"

typedef struct pm_builder pm_builder;

/* Creates a builder for `type` (deep-copied). *out owned by caller. */
int pm_builder_new(const pm_type *type, pm_builder **out, pm_error *err);
/* Same, type taken from an ArrowSchema. */
int pm_builder_new_from_schema(const struct ArrowSchema *schema, pm_builder **out, pm_error *err);
void pm_builder_free(pm_builder *b);

/* Type of this builder (owned by the builder tree). */
const pm_type *pm_builder_type(const pm_builder *b);
int64_t pm_builder_length(const pm_builder *b);
int64_t pm_builder_null_count(const pm_builder *b);
/* Child builder i (struct field, list/fixed list item = 0, map entries = 0). Borrowed. */
pm_builder *pm_builder_child(pm_builder *b, int64_t i);
/* Reserves room for n more elements (values / offsets / validity). */
int pm_builder_reserve(pm_builder *b, int64_t n, pm_error *err);

int pm_builder_append_null(pm_builder *b, pm_error *err);
int pm_builder_append_nulls(pm_builder *b, int64_t n, pm_error *err);
int pm_builder_append_bool(pm_builder *b, int v, pm_error *err);
/* Integers, date32/64, time32/64, timestamps (value in the type's unit).
 * Values outside the type's range are rejected (INVALID_ARGUMENT). */
int pm_builder_append_int(pm_builder *b, int64_t v, pm_error *err);
int pm_builder_append_uint(pm_builder *b, uint64_t v, pm_error *err);
/* float / double (half float: rounded). */
int pm_builder_append_double(pm_builder *b, double v, pm_error *err);
/* decimal128: 16 bytes little-endian two's complement unscaled value. */
int pm_builder_append_decimal128(pm_builder *b, const uint8_t bytes[16], pm_error *err);
/* decimal128 from an unscaled 64-bit value (sign-extended). */
int pm_builder_append_decimal_i64(pm_builder *b, int64_t unscaled, pm_error *err);
/* utf8 / binary / fixed-size binary (n must equal the width). Bytes are copied;
 * utf8 content is not checked here (pm_arrow_validate can). */
int pm_builder_append_bytes(pm_builder *b, const void *data, size_t n, pm_error *err);
int pm_builder_append_str(pm_builder *b, const char *s, pm_error *err);
/* Closes one valid nested element (see above). For non-nested types: error. */
int pm_builder_append_valid(pm_builder *b, pm_error *err);

/* Copies row `row` (logical, honours offsets at every level) of src into the
 * builder. src must have the builder's type layout, or be dictionary-encoded
 * with that value type when src_type says so (src_type may be NULL = same
 * type as the builder). Checks offsets/indices it follows against lengths. */
int pm_builder_append_from(pm_builder *b, const pm_type *src_type, const struct ArrowArray *src, int64_t row,
                           pm_error *err);
/* Copies rows [start, start+n) of src (bulk copies for flat types). */
int pm_builder_append_range(pm_builder *b, const pm_type *src_type, const struct ArrowArray *src, int64_t start,
                            int64_t n, pm_error *err);

/* Appends rows src[indices[0]], src[indices[1]], ... (logical indices; a
 * negative index appends a null). Indices are checked against src->length.
 * Gathers fixed-width values directly and recurses into nested children with
 * one gathered index vector per level (no per-row recursion). */
int pm_builder_append_take(pm_builder *b, const pm_type *src_type, const struct ArrowArray *src,
                           const int64_t *indices, int64_t n, pm_error *err);

/* Moves the built array into *out (owned by caller) and resets the builder. */
int pm_builder_finish(pm_builder *b, struct ArrowArray *out, pm_error *err);
/* ArrowSchema for the builder's type (owned by caller); name overrides the
 * top-level name when not NULL. */
int pm_builder_schema(const pm_builder *b, const char *name, struct ArrowSchema *out, pm_error *err);

#endif
