/* Blob file writer (layout in blob.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "arrow/type.h"
#include "format/blob/blob.h"
#include "util/buf.h"

struct pm_blob_writer {
  pm_out_file *out;
  pm_buf index; /* zigzag varints of the record lengths (first, then deltas) */
  int64_t prev_len;
  int64_t n;
};

static const uint8_t blob_magic[4] = {0xcf, 0x11, 0x4e, 0x58};

int pm_blob_writer_open_sink(pm_out_file *sink, pm_blob_writer **out, pm_error *err) {
  *out = NULL;
  pm_blob_writer *w = calloc(1, sizeof *w);
  if (!w) {
    pm_out_abort(sink);
    return PM_NOMEM(err);
  }
  w->out = sink;
  *out = w;
  return 0;
}

int pm_blob_writer_open(const char *path, pm_blob_writer **out, pm_error *err) {
  *out = NULL;
  pm_out_file *sink;
  PM_TRY(pm_out_open(path, &sink, err));
  return pm_blob_writer_open_sink(sink, out, err);
}

static int put_varint(pm_buf *b, int64_t v, pm_error *err) {
  uint64_t u = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
  uint8_t tmp[10];
  size_t n = 0;
  while (u >= 0x80) {
    tmp[n++] = (uint8_t)(u | 0x80);
    u >>= 7;
  }
  tmp[n++] = (uint8_t)u;
  return pm_buf_append(b, tmp, n) ? PM_NOMEM(err) : 0;
}

/* The index entry of one record (its length; -1 for a null), as a delta to the previous one. */
static int put_length(pm_blob_writer *w, int64_t rlen, pm_error *err) {
  PM_TRY(put_varint(&w->index, w->n == 0 ? rlen : rlen - w->prev_len, err));
  w->prev_len = rlen;
  w->n++;
  return 0;
}

static int put_record(pm_blob_writer *w, const uint8_t *p, size_t len, pm_error *err) {
  int64_t rlen = (int64_t)len + 16;
  uint8_t le[8];
  for (int i = 0; i < 8; i++) le[i] = (uint8_t)((uint64_t)rlen >> (8 * i));
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, blob_magic, 4);
  for (size_t off = 0; off < len;) { /* zlib lengths are uInt */
    size_t k = len - off < (1u << 30) ? len - off : (1u << 30);
    crc = crc32(crc, p + off, (uInt)k);
    off += k;
  }
  crc = crc32(crc, le, 8);
  uint8_t c4[4] = {(uint8_t)crc, (uint8_t)(crc >> 8), (uint8_t)(crc >> 16), (uint8_t)(crc >> 24)};
  PM_TRY(pm_out_write(w->out, blob_magic, 4, err));
  if (len) PM_TRY(pm_out_write(w->out, p, len, err));
  PM_TRY(pm_out_write(w->out, le, 8, err));
  PM_TRY(pm_out_write(w->out, c4, 4, err));
  return put_length(w, rlen, err);
}

int pm_blob_writer_put(pm_blob_writer *w, const uint8_t *p, size_t len, pm_error *err) {
  return put_record(w, p, len, err);
}

int pm_blob_writer_put_null(pm_blob_writer *w, pm_error *err) { return put_length(w, -1, err); }

uint64_t pm_blob_writer_pos(const pm_blob_writer *w) { return pm_out_pos(w->out); }

int64_t pm_blob_writer_rows(const pm_blob_writer *w) { return w->n; }

int pm_blob_writer_write(pm_blob_writer *w, const struct ArrowArray *a, const char *format, pm_error *err) {
  int large = format && (!strcmp(format, "Z") || !strcmp(format, "U"));
  if (!format || (!large && strcmp(format, "z") && strcmp(format, "u")))
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "blob files hold binary values, not Arrow \"%s\"",
                     format ? format : "?");
  for (int64_t i = 0; i < a->length; i++) {
    if (!pm_array_is_valid(a, i)) {
      PM_TRY(put_length(w, -1, err));
      continue;
    }
    int64_t k = a->offset + i, s, e;
    if (large) {
      s = ((const int64_t *)a->buffers[1])[k];
      e = ((const int64_t *)a->buffers[1])[k + 1];
    } else {
      s = ((const int32_t *)a->buffers[1])[k];
      e = ((const int32_t *)a->buffers[1])[k + 1];
    }
    PM_TRY(put_record(w, (const uint8_t *)a->buffers[2] + s, (size_t)(e - s), err));
  }
  return 0;
}

int pm_blob_writer_close(pm_blob_writer *w, uint64_t *file_size, pm_error *err) {
  int rc = 0;
  if (w->index.len > INT32_MAX)
    rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "blob index of %zu bytes", w->index.len);
  uint8_t tail[5];
  uint32_t il = (uint32_t)w->index.len;
  for (int i = 0; i < 4; i++) tail[i] = (uint8_t)(il >> (8 * i));
  tail[4] = 1;
  if (!rc && w->index.len) rc = pm_out_write(w->out, w->index.data, w->index.len, err);
  if (!rc) rc = pm_out_write(w->out, tail, 5, err);
  uint64_t size = pm_out_pos(w->out);
  if (!rc) {
    rc = pm_out_commit(w->out, 0, err);
    w->out = NULL;
  }
  if (!rc && file_size) *file_size = size;
  pm_blob_writer_abort(w);
  return rc;
}

void pm_blob_writer_abort(pm_blob_writer *w) {
  if (!w) return;
  pm_out_abort(w->out);
  pm_buf_free(&w->index);
  free(w);
}
