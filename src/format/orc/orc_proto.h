/* Internal: a small bounds-checked protobuf decoder/encoder for the ORC
 * metadata messages (orc_proto.proto). Unknown fields are skipped. */
#ifndef PM_FORMAT_ORC_PROTO_H
#define PM_FORMAT_ORC_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/error.h"

enum { PM_PB_VARINT = 0, PM_PB_FIXED64 = 1, PM_PB_LEN = 2, PM_PB_FIXED32 = 5 };

/* Cursor over one message's bytes. `what` names the message in errors,
 * `base` is the offset of p[0] in the decompressed section (for messages). */
typedef struct pm_pb {
  const uint8_t *start, *p, *end;
  const char *what;
  const char *file;
} pm_pb;

void pm_pb_init(pm_pb *pb, const uint8_t *data, size_t len, const char *file, const char *what);
/* 1 if more fields, 0 at the end. */
static inline int pm_pb_more(const pm_pb *pb) { return pb->p < pb->end; }
/* Reads a field key. */
int pm_pb_key(pm_pb *pb, uint32_t *field, uint32_t *wire, pm_error *err);
int pm_pb_varint(pm_pb *pb, uint64_t *v, pm_error *err);
/* Reads a length-delimited value (bounds-checked). */
int pm_pb_bytes(pm_pb *pb, const uint8_t **data, size_t *len, pm_error *err);
int pm_pb_fixed64(pm_pb *pb, uint64_t *v, pm_error *err);
int pm_pb_skip(pm_pb *pb, uint32_t wire, pm_error *err);
/* Reads a varint field value checking the wire type. */
int pm_pb_uint(pm_pb *pb, uint32_t wire, uint64_t *v, pm_error *err);
/* Reads one or more values of a repeated varint field (packed or not) into a growable array. */
int pm_pb_repeated_uint(pm_pb *pb, uint32_t wire, uint64_t **vals, size_t *n, size_t *cap, pm_error *err);
/* Decoded zigzag. */
static inline int64_t pm_zigzag_decode(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }
static inline uint64_t pm_zigzag_encode(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }

/* Encoding side (appending to a pm_buf). Return 0 or PAIMON_ERR_NOMEM. */
int pm_pbw_varint(pm_buf *b, uint64_t v);
int pm_pbw_key(pm_buf *b, uint32_t field, uint32_t wire);
int pm_pbw_uint(pm_buf *b, uint32_t field, uint64_t v);
int pm_pbw_sint(pm_buf *b, uint32_t field, int64_t v);
int pm_pbw_double(pm_buf *b, uint32_t field, double v);
int pm_pbw_bytes(pm_buf *b, uint32_t field, const void *data, size_t len);
int pm_pbw_str(pm_buf *b, uint32_t field, const char *s);
/* Packed repeated uint field. */
int pm_pbw_packed(pm_buf *b, uint32_t field, const uint64_t *v, size_t n);

#endif
