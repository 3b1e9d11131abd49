/*
 * Full structural validation of Arrow C Data Interface arrays against their
 * schema, recursively: format strings, buffer and child counts, lengths and
 * offsets (monotonic, in range, no overflow), child lengths, null_count vs
 * validity bitmap, dictionary indices, map keys non-null, decimal values
 * within their precision, and optionally UTF-8 content.
 *
 * Errors are PAIMON_ERR_INVALID_ARGUMENT (or UNSUPPORTED for valid formats
 * this library does not handle) with the field path, e.g.
 * "root.items.item: offsets decrease at index 3 (12 -> 7)".
 * Buffer sizes cannot be known through the ABI; everything reachable from
 * the lengths and offsets is what is checked.
 */
#ifndef PM_ARROW_VALIDATE_H
#define PM_ARROW_VALIDATE_H

#include "paimon/arrow_c.h"
#include "util/error.h"

#define PM_VALIDATE_UTF8 1u        /* also check that utf8/large_utf8 values are valid UTF-8 */
#define PM_VALIDATE_NULLABILITY 2u /* reject nulls in fields whose schema lacks ARROW_FLAG_NULLABLE */

int pm_arrow_validate(const struct ArrowSchema *schema, const struct ArrowArray *array, pm_error *err);
int pm_arrow_validate_ex(const struct ArrowSchema *schema, const struct ArrowArray *array, unsigned flags,
                         pm_error *err);

#endif
