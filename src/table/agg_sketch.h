/* Merge functions of Paimon's aggregation merge engine over serialized binary values:
 * rbm64 (64-bit roaring bitmaps), theta_sketch (Apache DataSketches Theta) and hll_sketch
 * (Apache DataSketches HLL). Each produces the same bytes Java Paimon's field aggregator does. */
#ifndef PM_TABLE_AGG_SKETCH_H
#define PM_TABLE_AGG_SKETCH_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/error.h"

/* Merges two serialized values of the same aggregate function the way Java Paimon's field
 * aggregator does, appending the serialized result to *out (out is initialized by the caller with
 * pm_buf_init; on error out's content is unspecified, caller frees). a/b are never NULL here
 * (null handling is done by the caller). Return 0 or a paimon status with a message naming the
 * function and what is wrong (e.g. "theta_sketch: value is not a compact theta sketch (preamble longs 7)"). */
int pm_agg_rbm64_merge(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len, pm_buf *out, pm_error *err);
int pm_agg_theta_merge(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len, pm_buf *out, pm_error *err);
int pm_agg_hll_merge(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len, pm_buf *out, pm_error *err);

#endif
