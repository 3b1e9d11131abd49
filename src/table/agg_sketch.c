/* Binary aggregate functions rbm64, theta_sketch, hll_sketch (see agg_sketch.h). */
#include "table/agg_sketch.h"

int pm_agg_rbm64_merge(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len, pm_buf *out, pm_error *err) {
  return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "rbm64: aggregate function not implemented yet");
}

int pm_agg_theta_merge(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len, pm_buf *out, pm_error *err) {
  return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "theta_sketch: aggregate function not implemented yet");
}

int pm_agg_hll_merge(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len, pm_buf *out, pm_error *err) {
  return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "hll_sketch: aggregate function not implemented yet");
}
