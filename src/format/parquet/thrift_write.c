#include "format/parquet/thrift_write.h"

#include <string.h>

void pm_tw_init(pm_tw *w, pm_buf *out) {
  memset(w, 0, sizeof *w);
  w->out = out;
}

int pm_tw_finish(pm_tw *w, pm_error *err) {
  if (w->failed == PAIMON_ERR_NOMEM) return PM_NOMEM(err);
  if (w->failed)
    return pm_errorf(err, w->failed, "thrift encoder: structs nested deeper than %d or unbalanced", PM_TW_MAX_DEPTH);
  if (w->depth != 0) return pm_errorf(err, PAIMON_ERR_INTERNAL, "thrift encoder: %d structs left open", w->depth);
  return 0;
}

static void put(pm_tw *w, const void *p, size_t n) {
  if (w->failed) return;
  if (pm_buf_append(w->out, p, n)) w->failed = PAIMON_ERR_NOMEM;
}

void pm_tw_varint(pm_tw *w, uint64_t v) {
  uint8_t tmp[10];
  size_t n = 0;
  while (v >= 0x80) {
    tmp[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  tmp[n++] = (uint8_t)v;
  put(w, tmp, n);
}

static uint64_t zigzag64(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }

void pm_tw_i32(pm_tw *w, int32_t v) { pm_tw_varint(w, (uint32_t)(((uint32_t)v << 1) ^ (uint32_t)(v >> 31))); }
void pm_tw_i64(pm_tw *w, int64_t v) { pm_tw_varint(w, zigzag64(v)); }

void pm_tw_binary(pm_tw *w, const void *data, size_t len) {
  pm_tw_varint(w, len);
  if (len) put(w, data, len);
}

void pm_tw_bool_elem(pm_tw *w, int v) {
  uint8_t b = v ? PM_TW_BOOL_TRUE : PM_TW_BOOL_FALSE;
  put(w, &b, 1);
}

void pm_tw_list_begin(pm_tw *w, enum pm_tw_type elem, uint32_t count) {
  if (count < 15) {
    uint8_t b = (uint8_t)((count << 4) | (uint32_t)elem);
    put(w, &b, 1);
  } else {
    uint8_t b = (uint8_t)(0xF0 | (uint32_t)elem);
    put(w, &b, 1);
    pm_tw_varint(w, count);
  }
}

void pm_tw_struct_begin(pm_tw *w) {
  if (w->failed) return;
  if (w->depth >= PM_TW_MAX_DEPTH) {
    w->failed = PAIMON_ERR_INTERNAL;
    return;
  }
  w->last_fid[w->depth++] = 0;
}

void pm_tw_struct_end(pm_tw *w) {
  if (w->failed) return;
  if (w->depth <= 0) {
    w->failed = PAIMON_ERR_INTERNAL;
    return;
  }
  uint8_t stop = 0;
  put(w, &stop, 1);
  w->depth--;
}

void pm_tw_field_header(pm_tw *w, int16_t fid, enum pm_tw_type type) {
  if (w->failed) return;
  if (w->depth <= 0) {
    w->failed = PAIMON_ERR_INTERNAL;
    return;
  }
  int delta = fid - w->last_fid[w->depth - 1];
  if (delta > 0 && delta <= 15) {
    uint8_t b = (uint8_t)((delta << 4) | (int)type);
    put(w, &b, 1);
  } else {
    uint8_t b = (uint8_t)type;
    put(w, &b, 1);
    pm_tw_i32(w, fid); /* i16 zigzag varint */
  }
  w->last_fid[w->depth - 1] = fid;
}

void pm_tw_field_i32(pm_tw *w, int16_t fid, int32_t v) {
  pm_tw_field_header(w, fid, PM_TW_I32);
  pm_tw_i32(w, v);
}

void pm_tw_field_i64(pm_tw *w, int16_t fid, int64_t v) {
  pm_tw_field_header(w, fid, PM_TW_I64);
  pm_tw_i64(w, v);
}

void pm_tw_field_i16(pm_tw *w, int16_t fid, int16_t v) {
  pm_tw_field_header(w, fid, PM_TW_I16);
  pm_tw_i32(w, v);
}

void pm_tw_field_i8(pm_tw *w, int16_t fid, int8_t v) {
  pm_tw_field_header(w, fid, PM_TW_BYTE);
  uint8_t b = (uint8_t)v;
  put(w, &b, 1);
}

void pm_tw_field_bool(pm_tw *w, int16_t fid, int v) {
  pm_tw_field_header(w, fid, v ? PM_TW_BOOL_TRUE : PM_TW_BOOL_FALSE);
}

void pm_tw_field_binary(pm_tw *w, int16_t fid, const void *data, size_t len) {
  pm_tw_field_header(w, fid, PM_TW_BINARY);
  pm_tw_binary(w, data, len);
}

void pm_tw_field_string(pm_tw *w, int16_t fid, const char *s) { pm_tw_field_binary(w, fid, s, strlen(s)); }

void pm_tw_field_struct_begin(pm_tw *w, int16_t fid) {
  pm_tw_field_header(w, fid, PM_TW_STRUCT);
  pm_tw_struct_begin(w);
}

void pm_tw_field_list_begin(pm_tw *w, int16_t fid, enum pm_tw_type elem, uint32_t count) {
  pm_tw_field_header(w, fid, PM_TW_LIST);
  pm_tw_list_begin(w, elem, count);
}

void pm_tw_field_empty_struct(pm_tw *w, int16_t fid) {
  pm_tw_field_struct_begin(w, fid);
  pm_tw_struct_end(w);
}

void pm_tw_field_raw_struct(pm_tw *w, int16_t fid, const void *bytes, size_t len) {
  pm_tw_field_header(w, fid, PM_TW_STRUCT);
  put(w, bytes, len);
}
