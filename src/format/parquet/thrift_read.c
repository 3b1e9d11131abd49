#include "format/parquet/thrift_read.h"

#include <stdio.h>
#include <string.h>

void pm_thrift_init(pm_thrift *t, const uint8_t *data, size_t len, uint64_t base_offset, const char *path,
                    const char *what, pm_error *err) {
  t->begin = data;
  t->p = data;
  t->end = data + len;
  t->base_offset = base_offset;
  t->path = path ? path : "(memory)";
  t->what = what ? what : "thrift";
  t->depth = 0;
  t->err = err;
}

int pm_thrift_fail(pm_thrift *t, const char *detail) {
  return pm_errorf(t->err, PAIMON_ERR_CORRUPT, "%s: corrupt %s at offset %llu: %s", t->path, t->what,
                   (unsigned long long)(t->base_offset + (uint64_t)(t->p - t->begin)), detail);
}

int pm_thrift_varint(pm_thrift *t, uint64_t *out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (t->p >= t->end) return pm_thrift_fail(t, "truncated varint");
    uint8_t b = *t->p++;
    if (shift == 63 && (b & 0x7e)) return pm_thrift_fail(t, "varint overflows 64 bits");
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *out = v;
      return 0;
    }
  }
  return pm_thrift_fail(t, "varint longer than 10 bytes");
}

static int64_t unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

int pm_thrift_i64(pm_thrift *t, int64_t *out) {
  uint64_t v;
  PM_TRY(pm_thrift_varint(t, &v));
  *out = unzigzag(v);
  return 0;
}

int pm_thrift_i32(pm_thrift *t, int32_t *out) {
  int64_t v;
  PM_TRY(pm_thrift_i64(t, &v));
  if (v < INT32_MIN || v > INT32_MAX) return pm_thrift_fail(t, "i32 value out of range");
  *out = (int32_t)v;
  return 0;
}

int pm_thrift_double(pm_thrift *t, double *out) {
  if (t->end - t->p < 8) return pm_thrift_fail(t, "truncated double");
  memcpy(out, t->p, 8);
  t->p += 8;
  return 0;
}

int pm_thrift_binary(pm_thrift *t, const uint8_t **data, uint32_t *len) {
  uint64_t n;
  PM_TRY(pm_thrift_varint(t, &n));
  if (n > (uint64_t)(t->end - t->p)) return pm_thrift_fail(t, "binary length beyond the end of the data");
  *data = t->p;
  *len = (uint32_t)n;
  t->p += n;
  return 0;
}

int pm_thrift_struct_begin(pm_thrift *t, int16_t *last_id) {
  if (++t->depth > PM_THRIFT_MAX_DEPTH) return pm_thrift_fail(t, "structures nested too deeply");
  *last_id = 0;
  return 0;
}

void pm_thrift_struct_end(pm_thrift *t) { t->depth--; }

int pm_thrift_field(pm_thrift *t, int16_t *last_id, int16_t *id, int *type) {
  if (t->p >= t->end) return pm_thrift_fail(t, "truncated struct (missing stop)");
  uint8_t b = *t->p++;
  *type = b & 0x0f;
  if (*type == PM_TT_STOP) {
    *id = 0;
    return 0;
  }
  if (*type > PM_TT_STRUCT) return pm_thrift_fail(t, "invalid field type");
  int delta = b >> 4;
  if (delta) {
    *id = (int16_t)(*last_id + delta);
  } else {
    int64_t v;
    PM_TRY(pm_thrift_i64(t, &v));
    if (v < INT16_MIN || v > INT16_MAX) return pm_thrift_fail(t, "field id out of range");
    *id = (int16_t)v;
  }
  *last_id = *id;
  return 0;
}

int pm_thrift_list_begin(pm_thrift *t, int *elem_type, uint32_t *count) {
  if (t->p >= t->end) return pm_thrift_fail(t, "truncated list header");
  uint8_t b = *t->p++;
  *elem_type = b & 0x0f;
  uint64_t n = b >> 4;
  if (n == 15) PM_TRY(pm_thrift_varint(t, &n));
  if (*elem_type == PM_TT_STOP || *elem_type > PM_TT_STRUCT) return pm_thrift_fail(t, "invalid list element type");
  /* Every element takes at least one byte. */
  if (n > (uint64_t)(t->end - t->p)) return pm_thrift_fail(t, "list size beyond the end of the data");
  *count = (uint32_t)n;
  return 0;
}

int pm_thrift_list_bool(pm_thrift *t, int *out) {
  if (t->p >= t->end) return pm_thrift_fail(t, "truncated bool");
  uint8_t b = *t->p++;
  *out = b == 1;
  return 0;
}

int pm_thrift_skip(pm_thrift *t, int type) {
  uint64_t v;
  switch (type) {
    case PM_TT_BOOL_TRUE:
    case PM_TT_BOOL_FALSE:
      return 0;
    case PM_TT_BYTE:
      if (t->p >= t->end) return pm_thrift_fail(t, "truncated byte");
      t->p++;
      return 0;
    case PM_TT_I16:
    case PM_TT_I32:
    case PM_TT_I64:
      return pm_thrift_varint(t, &v);
    case PM_TT_DOUBLE: {
      double d;
      return pm_thrift_double(t, &d);
    }
    case PM_TT_BINARY: {
      const uint8_t *d;
      uint32_t n;
      return pm_thrift_binary(t, &d, &n);
    }
    case PM_TT_LIST:
    case PM_TT_SET: {
      int et;
      uint32_t n;
      PM_TRY(pm_thrift_list_begin(t, &et, &n));
      if (++t->depth > PM_THRIFT_MAX_DEPTH) return pm_thrift_fail(t, "structures nested too deeply");
      for (uint32_t i = 0; i < n; i++) {
        if (et == PM_TT_BOOL_TRUE || et == PM_TT_BOOL_FALSE) {
          int b;
          PM_TRY(pm_thrift_list_bool(t, &b));
        } else {
          PM_TRY(pm_thrift_skip(t, et));
        }
      }
      t->depth--;
      return 0;
    }
    case PM_TT_MAP: {
      PM_TRY(pm_thrift_varint(t, &v));
      if (v == 0) return 0;
      if (t->p >= t->end) return pm_thrift_fail(t, "truncated map header");
      uint8_t kv = *t->p++;
      int kt = kv >> 4, vt = kv & 0x0f;
      if (kt == 0 || kt > PM_TT_STRUCT || vt == 0 || vt > PM_TT_STRUCT) return pm_thrift_fail(t, "invalid map types");
      if (v > (uint64_t)(t->end - t->p)) return pm_thrift_fail(t, "map size beyond the end of the data");
      if (++t->depth > PM_THRIFT_MAX_DEPTH) return pm_thrift_fail(t, "structures nested too deeply");
      for (uint64_t i = 0; i < v; i++) {
        for (int k = 0; k < 2; k++) {
          int et = k ? vt : kt;
          if (et == PM_TT_BOOL_TRUE || et == PM_TT_BOOL_FALSE) {
            int b;
            PM_TRY(pm_thrift_list_bool(t, &b));
          } else {
            PM_TRY(pm_thrift_skip(t, et));
          }
        }
      }
      t->depth--;
      return 0;
    }
    case PM_TT_STRUCT: {
      int16_t last, id;
      int ft;
      PM_TRY(pm_thrift_struct_begin(t, &last));
      for (;;) {
        PM_TRY(pm_thrift_field(t, &last, &id, &ft));
        if (ft == PM_TT_STOP) break;
        PM_TRY(pm_thrift_skip(t, ft));
      }
      pm_thrift_struct_end(t);
      return 0;
    }
    default:
      return pm_thrift_fail(t, "invalid type to skip");
  }
}

int pm_thrift_expect(pm_thrift *t, int type, int want, const char *field) {
  int ok = type == want || (want == PM_TT_BOOL_TRUE && type == PM_TT_BOOL_FALSE) ||
           (want == PM_TT_LIST && type == PM_TT_SET);
  if (ok) return 0;
  char msg[160];
  snprintf(msg, sizeof msg, "field %s has thrift type %d, expected %d", field, type, want);
  return pm_thrift_fail(t, msg);
}
