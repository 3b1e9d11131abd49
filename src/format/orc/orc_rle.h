/* Internal: ORC run-length encodings (byte RLE, boolean RLE, integer RLE v1
 * and v2) over fully decompressed stream bytes, decoders and encoders. */
#ifndef PM_FORMAT_ORC_RLE_H
#define PM_FORMAT_ORC_RLE_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/error.h"

/* A decompressed stream: bytes are borrowed; label names it in errors ("f.orc column 3 DATA"). */
typedef struct pm_orc_stream {
  const uint8_t *data;
  size_t len;
  size_t pos;
  const char *label;
} pm_orc_stream;

void pm_orc_stream_init(pm_orc_stream *s, const uint8_t *data, size_t len, const char *label);
int pm_orc_stream_error(const pm_orc_stream *s, pm_error *err, const char *what);
/* Unsigned base-128 varint (ORC "base 128 varint"). */
int pm_orc_read_uvarint(pm_orc_stream *s, uint64_t *v, pm_error *err);

typedef struct pm_orc_byte_rle {
  pm_orc_stream s;
  uint32_t remaining; /* values left in the current run */
  int literal;        /* current run is literal bytes */
  uint8_t value;      /* repeated value */
} pm_orc_byte_rle;

void pm_orc_byte_rle_init(pm_orc_byte_rle *d, const pm_orc_stream *s);
int pm_orc_byte_rle_next(pm_orc_byte_rle *d, uint8_t *out, size_t n, pm_error *err);
int pm_orc_byte_rle_skip(pm_orc_byte_rle *d, uint64_t n, pm_error *err);

typedef struct pm_orc_bool_rle {
  pm_orc_byte_rle bytes;
  uint8_t cur;
  int bits_left;
} pm_orc_bool_rle;

void pm_orc_bool_rle_init(pm_orc_bool_rle *d, const pm_orc_stream *s);
/* Writes n values as 0/1 bytes. */
int pm_orc_bool_rle_next(pm_orc_bool_rle *d, uint8_t *out, size_t n, pm_error *err);
int pm_orc_bool_rle_skip(pm_orc_bool_rle *d, uint64_t n, pm_error *err);

#define PM_ORC_RLE_MAX_RUN 512

typedef struct pm_orc_int_rle {
  pm_orc_stream s;
  int v2;
  int is_signed;
  uint32_t n_lits, idx;
  int64_t lits[PM_ORC_RLE_MAX_RUN];
} pm_orc_int_rle;

void pm_orc_int_rle_init(pm_orc_int_rle *d, const pm_orc_stream *s, int v2, int is_signed);
int pm_orc_int_rle_next(pm_orc_int_rle *d, int64_t *out, size_t n, pm_error *err);
int pm_orc_int_rle_skip(pm_orc_int_rle *d, uint64_t n, pm_error *err);

/* ---- encoders (append to out) ---- */
int pm_orc_encode_byte_rle(const uint8_t *v, size_t n, pm_buf *out);
/* v holds n 0/1 bytes. */
int pm_orc_encode_bool_rle(const uint8_t *v, size_t n, pm_buf *out);
int pm_orc_encode_int_rle_v2(const int64_t *v, size_t n, int is_signed, pm_buf *out);
int pm_orc_encode_uvarint(pm_buf *out, uint64_t v);

/* Bit-width helpers shared with tests. */
int pm_orc_decode_bit_width(int encoded);
int pm_orc_closest_fixed_bits(int bits);

#endif
