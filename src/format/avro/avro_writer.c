/* Avro object container writer: header, compressed blocks flushed at a size threshold. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "format/avro/avro.h"
#include "util/random.h"

struct pm_avro_writer {
  pm_out_file *out;
  const pm_avro_schema_tree *schema; /* from the schema cache (pm_avro_schema_release) */
  pm_avro_writer_options opt;
  uint8_t sync[16];
  pm_avro_encoder enc;    /* records of the current block */
  int64_t block_records;
  uint64_t total_records;
  pm_buf frame;           /* scratch: compressed block and block header */
  int broken;             /* a write failed: only abort is possible */
};

static void free_writer(pm_avro_writer *w) {
  pm_avro_schema_release(w->schema);
  pm_buf_free(&w->enc.buf);
  pm_buf_free(&w->frame);
  free(w);
}

void pm_avro_writer_abort(pm_avro_writer *w) {
  if (!w) return;
  pm_out_abort(w->out);
  free_writer(w);
}

static int write_bytes(pm_avro_writer *w, const void *p, size_t n, pm_error *err) {
  int rc = pm_out_write(w->out, p, n, err);
  if (rc) w->broken = 1;
  return rc;
}

int pm_avro_writer_open(const char *path, const char *schema_json, const pm_avro_writer_options *opt,
                        pm_avro_writer **out, pm_error *err) {
  *out = NULL;
  pm_out_file *sink;
  PM_TRY(pm_out_open(path, &sink, err));
  return pm_avro_writer_open_sink(sink, schema_json, opt, out, err);
}

int pm_avro_writer_open_sink(pm_out_file *sink, const char *schema_json, const pm_avro_writer_options *opt,
                             pm_avro_writer **out, pm_error *err) {
  *out = NULL;
  const char *path = pm_out_path(sink);
  pm_avro_writer *w = calloc(1, sizeof *w);
  if (!w) {
    pm_out_abort(sink);
    return PM_NOMEM(err);
  }
  w->out = sink; /* owned from here: committed by commit, discarded by abort */
  pm_buf_init(&w->enc.buf);
  pm_buf_init(&w->frame);
  if (opt) w->opt = *opt;
  else w->opt.codec = PM_CODEC_ZSTD;
  if (!w->opt.block_size) w->opt.block_size = 64000;
  if (w->opt.codec == PM_CODEC_ZSTD && w->opt.level == 0) w->opt.level = 1;
  const char *codec_name = pm_avro_codec_name(w->opt.codec);
  int rc = 0;
  if (!codec_name)
    rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: codec %s is not an Avro codec", path,
                   pm_codec_name(w->opt.codec));
  if (!rc) rc = pm_avro_schema_acquire(schema_json, strlen(schema_json), path, &w->schema, err);
  if (rc) {
    pm_avro_writer_abort(w);
    return rc;
  }
  if (w->opt.sync) memcpy(w->sync, w->opt.sync, 16);
  else pm_random_bytes(w->sync, 16);
  w->opt.sync = NULL;

  /* Header: magic, metadata map (one block of two entries), sync. */
  pm_avro_encoder h = {{0}, 0};
  pm_buf_init(&h.buf);
  pm_avro_put_raw(&h, "Obj\x01", 4);
  pm_avro_put_block_count(&h, 2);
  pm_avro_put_string(&h, "avro.schema");
  pm_avro_put_string(&h, schema_json);
  pm_avro_put_string(&h, "avro.codec");
  pm_avro_put_string(&h, codec_name);
  pm_avro_put_block_end(&h);
  pm_avro_put_raw(&h, w->sync, 16);
  if (h.failed) rc = PM_NOMEM(err);
  if (!rc) rc = pm_out_write(w->out, h.buf.data, h.buf.len, err);
  pm_buf_free(&h.buf);
  if (rc) {
    pm_avro_writer_abort(w);
    return rc;
  }
  *out = w;
  return 0;
}

const pm_avro_schema *pm_avro_writer_schema(const pm_avro_writer *w) { return pm_avro_schema_root(w->schema); }
pm_avro_encoder *pm_avro_writer_encoder(pm_avro_writer *w) { return &w->enc; }
uint64_t pm_avro_writer_record_count(const pm_avro_writer *w) { return w->total_records; }

static int flush_block(pm_avro_writer *w, pm_error *err) {
  if (w->block_records == 0) return 0;
  const uint8_t *src = w->enc.buf.data;
  size_t n = w->enc.buf.len;
  pm_buf *f = &w->frame;
  f->len = 0;
  /* Compress after a 20-byte gap, then put count and size right before the data. */
  uint8_t gap[20] = {0};
  if (pm_buf_append(f, gap, sizeof gap)) return PM_NOMEM(err);
  int rc = 0;
  switch (w->opt.codec) {
    case PM_CODEC_NONE:
      rc = pm_buf_append(f, src, n) ? PM_NOMEM(err) : 0;
      break;
    case PM_CODEC_SNAPPY: {
      rc = pm_compress(PM_CODEC_SNAPPY, 0, src, n, f, err);
      if (rc) break;
      uLong crc = crc32(0L, Z_NULL, 0);
      for (size_t done = 0; done < n;) {
        size_t step = n - done > (1u << 30) ? (1u << 30) : n - done;
        crc = crc32(crc, src + done, (uInt)step);
        done += step;
      }
      uint8_t be[4] = {(uint8_t)(crc >> 24), (uint8_t)(crc >> 16), (uint8_t)(crc >> 8), (uint8_t)crc};
      rc = pm_buf_append(f, be, 4) ? PM_NOMEM(err) : 0;
      break;
    }
    default:
      rc = pm_compress(w->opt.codec, w->opt.level, src, n, f, err);
      break;
  }
  if (rc) return rc;
  size_t data_len = f->len - sizeof gap;
  pm_avro_encoder hdr = {{0}, 0};
  pm_buf_init(&hdr.buf);
  pm_avro_put_long(&hdr, w->block_records);
  pm_avro_put_long(&hdr, (int64_t)data_len);
  if (hdr.failed) return PM_NOMEM(err);
  size_t start = sizeof gap - hdr.buf.len;
  memcpy(f->data + start, hdr.buf.data, hdr.buf.len);
  pm_buf_free(&hdr.buf);
  if (pm_buf_append(f, w->sync, 16)) return PM_NOMEM(err);
  PM_TRY(write_bytes(w, f->data + start, f->len - start, err));
  w->enc.buf.len = 0;
  w->block_records = 0;
  return 0;
}

int pm_avro_writer_end_record(pm_avro_writer *w, pm_error *err) {
  if (w->broken) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "Avro writer failed earlier");
  if (w->enc.failed) {
    w->broken = 1;
    return PM_NOMEM(err);
  }
  w->block_records++;
  w->total_records++;
  if (w->enc.buf.len >= w->opt.block_size) {
    int rc = flush_block(w, err);
    if (rc) w->broken = 1;
    return rc;
  }
  return 0;
}

int pm_avro_writer_append_value(pm_avro_writer *w, const pm_avro_value *v, pm_error *err) {
  size_t mark = w->enc.buf.len;
  int rc = pm_avro_encode_value(&w->enc, pm_avro_schema_root(w->schema), v, err);
  if (rc) {
    w->enc.buf.len = mark; /* drop the partial record */
    w->enc.failed = 0;
    return rc;
  }
  return pm_avro_writer_end_record(w, err);
}

int pm_avro_writer_commit(pm_avro_writer *w, uint64_t *file_size, pm_error *err) {
  int rc = w->broken ? pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "Avro writer failed earlier") : 0;
  if (!rc && w->enc.failed) rc = PM_NOMEM(err);
  if (!rc) rc = flush_block(w, err);
  if (rc) {
    pm_avro_writer_abort(w);
    return rc;
  }
  uint64_t size = pm_out_pos(w->out);
  rc = pm_out_commit(w->out, w->opt.no_overwrite, err);
  w->out = NULL;
  free_writer(w);
  if (!rc && file_size) *file_size = size;
  return rc;
}
