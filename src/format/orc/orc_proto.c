#include "format/orc/orc_proto.h"

#include <stdlib.h>
#include <string.h>

void pm_pb_init(pm_pb *pb, const uint8_t *data, size_t len, const char *file, const char *what) {
  static const uint8_t empty[1];
  if (!data) {
    data = empty;
    len = 0;
  }
  pb->start = pb->p = data;
  pb->end = data + len;
  pb->file = file ? file : "";
  pb->what = what ? what : "message";
}

static int pb_err(pm_pb *pb, pm_error *err, const char *msg) {
  return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: corrupt ORC %s at byte %llu of %llu: %s", pb->file, pb->what,
                   (unsigned long long)(pb->p - pb->start), (unsigned long long)(pb->end - pb->start), msg);
}

int pm_pb_varint(pm_pb *pb, uint64_t *v, pm_error *err) {
  uint64_t r = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pb->p >= pb->end) return pb_err(pb, err, "varint runs past the end");
    uint8_t b = *pb->p++;
    r |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *v = r;
      return 0;
    }
  }
  return pb_err(pb, err, "varint longer than 10 bytes");
}

int pm_pb_key(pm_pb *pb, uint32_t *field, uint32_t *wire, pm_error *err) {
  uint64_t k;
  PM_TRY(pm_pb_varint(pb, &k, err));
  if ((k >> 3) == 0 || (k >> 3) > 0x1fffffff) return pb_err(pb, err, "bad field number");
  *field = (uint32_t)(k >> 3);
  *wire = (uint32_t)(k & 7);
  return 0;
}

int pm_pb_bytes(pm_pb *pb, const uint8_t **data, size_t *len, pm_error *err) {
  uint64_t n;
  PM_TRY(pm_pb_varint(pb, &n, err));
  if (n > (uint64_t)(pb->end - pb->p)) return pb_err(pb, err, "length-delimited field runs past the end");
  *data = pb->p;
  *len = (size_t)n;
  pb->p += n;
  return 0;
}

int pm_pb_fixed64(pm_pb *pb, uint64_t *v, pm_error *err) {
  if (pb->end - pb->p < 8) return pb_err(pb, err, "fixed64 runs past the end");
  uint64_t r = 0;
  for (int i = 7; i >= 0; i--) r = (r << 8) | pb->p[i];
  pb->p += 8;
  *v = r;
  return 0;
}

int pm_pb_skip(pm_pb *pb, uint32_t wire, pm_error *err) {
  uint64_t v;
  const uint8_t *d;
  size_t n;
  switch (wire) {
    case PM_PB_VARINT: return pm_pb_varint(pb, &v, err);
    case PM_PB_FIXED64: return pm_pb_fixed64(pb, &v, err);
    case PM_PB_LEN: return pm_pb_bytes(pb, &d, &n, err);
    case PM_PB_FIXED32:
      if (pb->end - pb->p < 4) return pb_err(pb, err, "fixed32 runs past the end");
      pb->p += 4;
      return 0;
    default: return pb_err(pb, err, "unsupported wire type");
  }
}

int pm_pb_uint(pm_pb *pb, uint32_t wire, uint64_t *v, pm_error *err) {
  if (wire != PM_PB_VARINT) return pb_err(pb, err, "expected a varint field");
  return pm_pb_varint(pb, v, err);
}

static int push_u64(uint64_t **vals, size_t *n, size_t *cap, uint64_t v) {
  if (*n == *cap) {
    size_t nc = *cap ? *cap * 2 : 8;
    uint64_t *nv = realloc(*vals, nc * sizeof *nv);
    if (!nv) return PAIMON_ERR_NOMEM;
    *vals = nv;
    *cap = nc;
  }
  (*vals)[(*n)++] = v;
  return 0;
}

int pm_pb_repeated_uint(pm_pb *pb, uint32_t wire, uint64_t **vals, size_t *n, size_t *cap, pm_error *err) {
  uint64_t v;
  if (wire == PM_PB_VARINT) {
    PM_TRY(pm_pb_varint(pb, &v, err));
    return push_u64(vals, n, cap, v) ? PM_NOMEM(err) : 0;
  }
  if (wire != PM_PB_LEN) return pb_err(pb, err, "expected a repeated varint field");
  const uint8_t *d = NULL;
  size_t len = 0;
  PM_TRY(pm_pb_bytes(pb, &d, &len, err));
  pm_pb sub;
  pm_pb_init(&sub, d, len, pb->file, pb->what);
  while (pm_pb_more(&sub)) {
    PM_TRY(pm_pb_varint(&sub, &v, err));
    if (push_u64(vals, n, cap, v)) return PM_NOMEM(err);
  }
  return 0;
}

/* ---- writer ---- */

int pm_pbw_varint(pm_buf *b, uint64_t v) {
  uint8_t tmp[10];
  int n = 0;
  while (v >= 0x80) {
    tmp[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  tmp[n++] = (uint8_t)v;
  return pm_buf_append(b, tmp, (size_t)n);
}

int pm_pbw_key(pm_buf *b, uint32_t field, uint32_t wire) { return pm_pbw_varint(b, ((uint64_t)field << 3) | wire); }

int pm_pbw_uint(pm_buf *b, uint32_t field, uint64_t v) {
  if (pm_pbw_key(b, field, PM_PB_VARINT)) return PAIMON_ERR_NOMEM;
  return pm_pbw_varint(b, v);
}

int pm_pbw_sint(pm_buf *b, uint32_t field, int64_t v) { return pm_pbw_uint(b, field, pm_zigzag_encode(v)); }

int pm_pbw_double(pm_buf *b, uint32_t field, double v) {
  uint64_t u;
  memcpy(&u, &v, 8);
  uint8_t tmp[8];
  for (int i = 0; i < 8; i++) tmp[i] = (uint8_t)(u >> (8 * i));
  if (pm_pbw_key(b, field, PM_PB_FIXED64)) return PAIMON_ERR_NOMEM;
  return pm_buf_append(b, tmp, 8);
}

int pm_pbw_bytes(pm_buf *b, uint32_t field, const void *data, size_t len) {
  if (pm_pbw_key(b, field, PM_PB_LEN) || pm_pbw_varint(b, len)) return PAIMON_ERR_NOMEM;
  return len ? pm_buf_append(b, data, len) : 0;
}

int pm_pbw_str(pm_buf *b, uint32_t field, const char *s) { return pm_pbw_bytes(b, field, s, strlen(s)); }

int pm_pbw_packed(pm_buf *b, uint32_t field, const uint64_t *v, size_t n) {
  pm_buf tmp;
  pm_buf_init(&tmp);
  for (size_t i = 0; i < n; i++)
    if (pm_pbw_varint(&tmp, v[i])) {
      pm_buf_free(&tmp);
      return PAIMON_ERR_NOMEM;
    }
  int rc = pm_pbw_bytes(b, field, tmp.data, tmp.len);
  pm_buf_free(&tmp);
  return rc;
}
