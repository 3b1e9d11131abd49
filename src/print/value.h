/*
 * The value encoding shared by the JSONL, CSV and table printers (described
 * in print.h): one value of an Arrow array appended as text.
 */
#ifndef PM_PRINT_H_VALUE_H
#define PM_PRINT_H_VALUE_H

#include <stdint.h>

#include "arrow/type.h"
#include "paimon/arrow_c.h"
#include "util/buf.h"
#include "util/error.h"

#define PM_PRINT_LIT(out, s) pm_buf_append((out), (s), sizeof(s) - 1)

/* Appends the JSON encoding of value `row` (logical index, honours offsets)
 * of array `a` typed `t` to out. fraction_digits < 0 = from the unit. */
int pm_json_append_value(const pm_type *t, const struct ArrowArray *a, int64_t row, int fraction_digits, pm_buf *out,
                         pm_error *err);

/* Same value as plain text (CSV field / table cell): strings unquoted and
 * unescaped (invalid UTF-8 as U+FFFD), decimals and temporals unquoted;
 * nested values as their JSON text. A null appends "null": callers check
 * validity first. */
int pm_print_append_text(const pm_type *t, const struct ArrowArray *a, int64_t row, int fraction_digits, pm_buf *out,
                         pm_error *err);

/* Appends s as a JSON string, quotes included (json = 1), or as raw text with
 * invalid UTF-8 replaced by U+FFFD (json = 0). Returns 0 or PAIMON_ERR_NOMEM. */
int pm_print_append_string(pm_buf *out, const uint8_t *s, int64_t n, int json);

#endif
