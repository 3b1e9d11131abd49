/* Raw Snappy block decoder (no framing), written from the public format
 * description (github.com/google/snappy, format_description.txt).
 *
 * A block is a varint preamble (uncompressed length, at most 2^32-1, at most
 * 5 bytes) followed by literal and copy elements. Every length, offset and
 * varint is checked against the input and output bounds: malformed input is an
 * error, never an out-of-bounds access. No allocation, no global state. */
#ifndef PM_UTIL_SNAPPY_DECODE_H
#define PM_UTIL_SNAPPY_DECODE_H

#include <stddef.h>
#include <stdint.h>

typedef enum pm_snappy_status {
  PM_SNAPPY_OK = 0,
  PM_SNAPPY_BAD_PREAMBLE, /* length varint truncated, over 5 bytes or over 2^32-1 */
  PM_SNAPPY_TOO_SMALL,    /* declared length exceeds the destination capacity */
  PM_SNAPPY_TRUNCATED,    /* an element's length/offset bytes or literal run past the input */
  PM_SNAPPY_BAD_OFFSET,   /* copy offset 0, or reaching before the start of the output */
  PM_SNAPPY_OVERRUN,      /* an element writes past the declared length */
  PM_SNAPPY_SHORT         /* the input ended before the declared length was produced */
} pm_snappy_status;

/* Reads the preamble: *out_len = declared uncompressed length, and (if
 * preamble_len is not NULL) the number of preamble bytes. Returns PM_SNAPPY_OK
 * or PM_SNAPPY_BAD_PREAMBLE. */
int pm_snappy_uncompressed_length(const uint8_t *src, size_t src_len, size_t *out_len, size_t *preamble_len);

/* Decodes the block src[0..src_len) into dst[0..dst_capacity). The declared
 * length must fit in dst_capacity, and the elements must produce exactly that
 * many bytes while consuming exactly src_len bytes. On success *produced is the
 * declared length; on failure it is the output position reached (for messages).
 * dst may be NULL only when dst_capacity is 0. Returns a pm_snappy_status. */
int pm_snappy_decompress(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_capacity, size_t *produced);

/* Short English description of a pm_snappy_status ("copy offset out of range"). */
const char *pm_snappy_status_text(int status);

#endif
