/*
 * Small kernels the table layer needs for merge-on-read and result assembly:
 * take (gather rows by index), filter (by a selection bitmap), zero-copy
 * slice, concatenate. All types, nested included; sources may be sliced
 * (offset != 0) and dictionary-encoded (then the output holds decoded values:
 * pass the source's pm_type, the output type is its value type).
 *
 * Type arguments come from pm_type_from_schema(schema) (parse once per
 * stream, not per batch). Outputs are new arrays owned by the caller, except
 * slices, which share the source's buffers (see below).
 */
#ifndef PM_ARROW_COMPUTE_H
#define PM_ARROW_COMPUTE_H

#include <stdint.h>

#include "arrow/type.h"
#include "paimon/arrow_c.h"
#include "util/error.h"

/* out[i] = src[indices[i]] for i < n; a negative index yields a null row
 * (for a struct batch: a null row whose fields are null). Indices >= length
 * are rejected (INVALID_ARGUMENT). */
int pm_take(const pm_type *type, const struct ArrowArray *src, const int64_t *indices, int64_t n,
            struct ArrowArray *out, pm_error *err);

/* Interleaving take from several arrays of the same type (merge-on-read
 * output): out[i] = srcs[src_index[i]][rows[i]]; src_index[i] < 0 yields a
 * null row. Runs of consecutive rows from one source are copied in bulk. */
int pm_take_multi(const pm_type *type, const struct ArrowArray *const *srcs, int64_t n_srcs, const int32_t *src_index,
                  const int64_t *rows, int64_t n, struct ArrowArray *out, pm_error *err);

/* Keeps the rows i of src whose bit (selection_offset + i) is set in the
 * selection bitmap (LSB order, src->length bits). Runs of selected rows are
 * copied in bulk. */
int pm_filter(const pm_type *type, const struct ArrowArray *src, const uint8_t *selection, int64_t selection_offset,
              struct ArrowArray *out, pm_error *err);
/* Number of rows a filter keeps. */
int64_t pm_filter_count(const uint8_t *selection, int64_t selection_offset, int64_t length);

/* Concatenates n arrays of the same type into one. */
int pm_concat(const pm_type *type, const struct ArrowArray *const *arrays, int64_t n, struct ArrowArray *out,
              pm_error *err);

/* Zero-copy slicing. A shared array owns a moved-in ArrowArray and hands out
 * any number of views (rows [start, start+length)); each view is an
 * independent ArrowArray (its children can be moved out and released
 * separately) that keeps the source alive until every view and the share
 * handle are released. Reference counts are atomic: views may be released
 * from any thread. */
typedef struct pm_shared_array pm_shared_array;
/* Takes ownership of *src (src->release becomes NULL). */
int pm_shared_array_new(struct ArrowArray *src, pm_shared_array **out, pm_error *err);
const struct ArrowArray *pm_shared_array_get(const pm_shared_array *s);
int pm_shared_array_slice(pm_shared_array *s, int64_t start, int64_t length, struct ArrowArray *out, pm_error *err);
void pm_shared_array_release(pm_shared_array *s);
/* One-shot: consumes *src and returns a view of [start, start+length). */
int pm_slice(struct ArrowArray *src, int64_t start, int64_t length, struct ArrowArray *out, pm_error *err);

#endif
