/*
 * Conversion of Arrow input kinds that other producers (pyarrow, polars,
 * DuckDB) send into the plain layouts the rest of the library handles:
 *   large_utf8 "U" / large_binary "Z"      -> utf8 "u" / binary "z"
 *   utf8_view "vu" / binary_view "vz"      -> utf8 "u" / binary "z"
 *   dictionary-encoded (any index width)   -> the decoded value type
 *   large_list "+L", list_view "+vl"/"+vL" -> list "+l"
 * recursively through struct, list, map and fixed-size list nodes.
 *
 * Everything followed is bounds-checked: offsets (monotonic, non-negative,
 * total fitting 32-bit offsets), view lengths, buffer indices and offsets
 * against the variadic buffer sizes, dictionary indices against the
 * dictionary length, list-view ranges against the child length. Errors are
 * PAIMON_ERR_INVALID_ARGUMENT naming the column path and the row, e.g.
 * "column 'tags.element': string_view row 4 refers to data buffer 3 of 2".
 *
 * Subtrees that need no conversion are borrowed (no copy): the output
 * references the input's buffers and must not outlive the input.
 */
#ifndef PM_ARROW_VIEW_H
#define PM_ARROW_VIEW_H

#include "paimon/arrow_c.h"
#include "util/error.h"

/* True when some node of the schema tree needs pm_arrow_to_plain. */
int pm_arrow_needs_plain(const struct ArrowSchema *schema);

/* Converts a (rows [0, a->length), honouring a->offset) into *out_s / *out_a
 * (both owned by the caller; release them). The output has offset 0. */
int pm_arrow_to_plain(const struct ArrowSchema *s, const struct ArrowArray *a, struct ArrowSchema *out_s,
                      struct ArrowArray *out_a, pm_error *err);

#endif
