/* Bitmap range helpers (LSB bit order, as Arrow validity/boolean buffers). */
#ifndef PM_ARROW_BITS_H
#define PM_ARROW_BITS_H

#include <stdint.h>

/* Sets (value=1) or clears bits [off, off+n). */
void pm_bits_set_range(uint8_t *bits, int64_t off, int64_t n, int value);
/* Number of set bits in [off, off+n). */
int64_t pm_bits_count(const uint8_t *bits, int64_t off, int64_t n);
/* Copies n bits from src starting at src_off to dst starting at dst_off
 * (other bits of dst are preserved). Ranges must not overlap. */
void pm_bits_copy(uint8_t *dst, int64_t dst_off, const uint8_t *src, int64_t src_off, int64_t n);

#endif
