/*
 * JSON to Arrow: the inverse of the printer's value encoding (print.h), so
 * rows written as JSON (fixture expectations, CLI input, tests) can become
 * Arrow arrays.
 *
 * Accepted per type (null -> null everywhere):
 *   bool: true/false; integers: JSON integers (or integral reals);
 *   float/double: numbers or "NaN"/"Infinity"/"-Infinity";
 *   decimal: string or integer, at most `scale` fraction digits, within precision;
 *   date: "[+-]YYYY-MM-DD"; time: "HH:MM:SS[.f]";
 *   timestamp: "[+-]YYYY-MM-DD[T ]HH:MM:SS[.f][Z]" (fraction digits beyond the unit must be 0);
 *   utf8: string; binary / fixed-size binary: base64 string;
 *   list / fixed-size list: array; map: array of [key, value] pairs (or an
 *   object, keys as strings); struct: object by field name (missing = null)
 *   or array by position.
 * Errors (INVALID_ARGUMENT) name the field path and the offending value.
 */
#ifndef PM_ARROW_JSON_READ_H
#define PM_ARROW_JSON_READ_H

#include <jansson.h>
#include <stddef.h>

#include "arrow/builder.h"

/* Appends one JSON value to b (typed by the builder). */
int pm_builder_append_json(pm_builder *b, const json_t *value, pm_error *err);

/* Parses JSON lines (one object or array per line, blank lines skipped) into
 * a struct array typed `type` (a "+s" type). *out owned by the caller. */
int pm_json_lines_to_array(const pm_type *type, const char *text, size_t len, struct ArrowArray *out,
                           pm_error *err);

/* Text parsers shared with callers that need them (0 on success). */
int pm_parse_date(const char *s, int64_t *days);
int pm_parse_time(const char *s, pm_time_unit unit, int64_t *value);
int pm_parse_timestamp(const char *s, pm_time_unit unit, int64_t *value, int *zoned);
/* Unscaled 128-bit little-endian value of a decimal string at `scale`. */
int pm_parse_decimal128(const char *s, int32_t precision, int32_t scale, uint8_t out[16]);

#endif
