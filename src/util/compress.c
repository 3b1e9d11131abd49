#include "util/compress.h"

#include "util/snappy_decode.h"

#include <limits.h>
#include <pthread.h>
#include <lz4.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

const char *pm_codec_name(pm_codec c) {
  switch (c) {
    case PM_CODEC_NONE: return "none";
    case PM_CODEC_SNAPPY: return "snappy";
    case PM_CODEC_GZIP: return "gzip";
    case PM_CODEC_ZLIB: return "zlib";
    case PM_CODEC_DEFLATE: return "deflate";
    case PM_CODEC_ZSTD: return "zstd";
    case PM_CODEC_LZ4_RAW: return "lz4_raw";
    case PM_CODEC_LZ4_HADOOP: return "lz4";
  }
  return "unknown";
}

static uint32_t be32(const uint8_t *p) {
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static int zlib_window_bits(pm_codec c) {
  switch (c) {
    case PM_CODEC_GZIP: return 15 + 16;
    case PM_CODEC_ZLIB: return 15;
    default: return -15;
  }
}

/* Inflates src, appending to out, handling concatenated gzip members. */
static int inflate_all(pm_codec codec, const uint8_t *src, size_t src_len, pm_buf *out, size_t limit,
                       pm_error *err) {
  size_t consumed = 0;
  do {
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, zlib_window_bits(codec)) != Z_OK)
      return pm_errorf(err, PAIMON_ERR_NOMEM, "%s: cannot initialise inflate", pm_codec_name(codec));
    zs.next_in = (Bytef *)(src + consumed);
    size_t remaining = src_len - consumed;
    zs.avail_in = remaining > UINT_MAX ? UINT_MAX : (uInt)remaining;
    int rc;
    for (;;) {
      if (pm_buf_reserve(out, 65536)) {
        inflateEnd(&zs);
        return PM_NOMEM(err);
      }
      size_t room = out->cap - out->len;
      zs.next_out = out->data + out->len;
      zs.avail_out = room > UINT_MAX ? UINT_MAX : (uInt)room;
      uInt before = zs.avail_out;
      rc = inflate(&zs, Z_NO_FLUSH);
      out->len += before - zs.avail_out;
      if (out->len > limit) {
        inflateEnd(&zs);
        return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: decompressed data exceeds %zu bytes", pm_codec_name(codec),
                         limit);
      }
      if (rc == Z_STREAM_END) break;
      if (rc != Z_OK && rc != Z_BUF_ERROR) {
        inflateEnd(&zs);
        return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: corrupt compressed data (%s)", pm_codec_name(codec),
                         zs.msg ? zs.msg : "inflate failed");
      }
      if (rc == Z_BUF_ERROR && zs.avail_in == 0) {
        inflateEnd(&zs);
        return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: truncated compressed data", pm_codec_name(codec));
      }
    }
    consumed = (size_t)(zs.next_in - src);
    inflateEnd(&zs);
  } while (codec == PM_CODEC_GZIP && consumed + 2 <= src_len && src[consumed] == 0x1f && src[consumed + 1] == 0x8b);
  return 0;
}

static int lz4_hadoop(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len, size_t *produced) {
  size_t in = 0, out = 0;
  while (in < src_len) {
    if (src_len - in < 8) return -1;
    uint32_t block_raw = be32(src + in);
    in += 4;
    size_t block_end = out + block_raw;
    if (block_raw > dst_len - out) return -1;
    while (out < block_end) {
      if (src_len - in < 4) return -1;
      uint32_t clen = be32(src + in);
      in += 4;
      if (clen > src_len - in || clen > INT_MAX) return -1;
      int n = LZ4_decompress_safe((const char *)src + in, (char *)dst + out, (int)clen,
                                  (int)((block_end - out) > INT_MAX ? INT_MAX : (block_end - out)));
      if (n < 0) return -1;
      in += clen;
      out += (size_t)n;
    }
  }
  *produced = out;
  return 0;
}

/* Decodes a snappy block whose declared length is exactly dst_len. Our own
 * decoder (util/snappy_decode.c) is faster than libsnappy's on Parquet pages;
 * building with -DPM_SNAPPY_DECODE_WITH_LIBSNAPPY switches back for comparisons. */
static int snappy_decode(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len, pm_error *err) {
#ifdef PM_SNAPPY_DECODE_WITH_LIBSNAPPY
  size_t n = dst_len;
  if (snappy_uncompress((const char *)src, src_len, (char *)dst, &n) != SNAPPY_OK || n != dst_len)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "snappy: corrupt compressed block");
  return 0;
#else
  size_t produced = 0;
  int status = pm_snappy_decompress(src, src_len, dst, dst_len, &produced);
  if (status == PM_SNAPPY_OK && produced == dst_len) return 0;
  return pm_errorf(err, PAIMON_ERR_CORRUPT, "snappy: corrupt compressed block (%s, at output offset %zu of %zu)",
                   pm_snappy_status_text(status), produced, dst_len);
#endif
}

int pm_decompress(pm_codec codec, const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
                  pm_error *err) {
  switch (codec) {
    case PM_CODEC_NONE:
      if (src_len != dst_len)
        return pm_errorf(err, PAIMON_ERR_CORRUPT, "uncompressed size %zu != expected %zu", src_len, dst_len);
      if (dst_len) memcpy(dst, src, dst_len);
      return 0;
    case PM_CODEC_SNAPPY: {
      size_t n = 0;
      if (pm_snappy_uncompressed_length(src, src_len, &n, NULL) != PM_SNAPPY_OK || n != dst_len)
        return pm_errorf(err, PAIMON_ERR_CORRUPT, "snappy: bad block header (size %zu, expected %zu)", n, dst_len);
      return snappy_decode(src, src_len, dst, dst_len, err);
    }
    case PM_CODEC_ZSTD: {
      size_t n = ZSTD_decompress(dst, dst_len, src, src_len);
      if (ZSTD_isError(n))
        return pm_errorf(err, PAIMON_ERR_CORRUPT, "zstd: %s", ZSTD_getErrorName(n));
      if (n != dst_len)
        return pm_errorf(err, PAIMON_ERR_CORRUPT, "zstd: decompressed %zu bytes, expected %zu", n, dst_len);
      return 0;
    }
    case PM_CODEC_LZ4_RAW: {
      if (src_len > INT_MAX || dst_len > INT_MAX)
        return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "lz4: block larger than 2 GiB");
      int n = LZ4_decompress_safe((const char *)src, (char *)dst, (int)src_len, (int)dst_len);
      if (n < 0 || (size_t)n != dst_len)
        return pm_errorf(err, PAIMON_ERR_CORRUPT, "lz4: corrupt block (got %d bytes, expected %zu)", n, dst_len);
      return 0;
    }
    case PM_CODEC_LZ4_HADOOP: {
      size_t n = 0;
      if (lz4_hadoop(src, src_len, dst, dst_len, &n) == 0 && n == dst_len) return 0;
      /* Some writers label plain lz4 blocks as LZ4: accept those too. */
      if (src_len <= INT_MAX && dst_len <= INT_MAX) {
        int m = LZ4_decompress_safe((const char *)src, (char *)dst, (int)src_len, (int)dst_len);
        if (m >= 0 && (size_t)m == dst_len) return 0;
      }
      return pm_errorf(err, PAIMON_ERR_CORRUPT, "lz4: corrupt Hadoop-framed data");
    }
    case PM_CODEC_GZIP:
    case PM_CODEC_ZLIB:
    case PM_CODEC_DEFLATE: {
      pm_buf tmp;
      pm_buf_init(&tmp);
      int rc = inflate_all(codec, src, src_len, &tmp, dst_len, err);
      if (rc == 0 && tmp.len != dst_len)
        rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: decompressed %zu bytes, expected %zu", pm_codec_name(codec),
                       tmp.len, dst_len);
      if (rc == 0 && dst_len) memcpy(dst, tmp.data, dst_len);
      pm_buf_free(&tmp);
      return rc;
    }
  }
  return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "unknown compression codec %d", (int)codec);
}

int pm_decompress_unknown(pm_codec codec, const uint8_t *src, size_t src_len, pm_buf *out, size_t limit,
                          pm_error *err) {
  if (limit == 0) limit = (size_t)1 << 30;
  switch (codec) {
    case PM_CODEC_NONE:
      if (src_len > limit) return pm_errorf(err, PAIMON_ERR_CORRUPT, "block of %zu bytes exceeds limit", src_len);
      return pm_buf_append(out, src, src_len) ? PM_NOMEM(err) : 0;
    case PM_CODEC_SNAPPY: {
      size_t n = 0;
      if (pm_snappy_uncompressed_length(src, src_len, &n, NULL) != PM_SNAPPY_OK)
        return pm_errorf(err, PAIMON_ERR_CORRUPT, "snappy: bad block header");
      if (n > limit) return pm_errorf(err, PAIMON_ERR_CORRUPT, "snappy: block claims %zu bytes, over limit", n);
      if (pm_buf_reserve(out, n)) return PM_NOMEM(err);
      PM_TRY(snappy_decode(src, src_len, out->data ? out->data + out->len : NULL, n, err));
      out->len += n;
      return 0;
    }
    case PM_CODEC_ZSTD: {
      ZSTD_DStream *ds = ZSTD_createDStream();
      if (!ds) return PM_NOMEM(err);
      ZSTD_inBuffer in = {src, src_len, 0};
      size_t start = out->len;
      int rc = 0;
      size_t last = 1; /* 0 once the decoder finished a frame exactly */
      /* Runs until the input is consumed and the last frame is flushed. */
      while (in.pos < in.size || last != 0) {
        if (pm_buf_reserve(out, 65536)) {
          rc = PM_NOMEM(err);
          break;
        }
        ZSTD_outBuffer ob = {out->data + out->len, out->cap - out->len, 0};
        size_t r = ZSTD_decompressStream(ds, &ob, &in);
        if (ZSTD_isError(r)) {
          rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "zstd: %s", ZSTD_getErrorName(r));
          break;
        }
        out->len += ob.pos;
        last = r;
        if (out->len - start > limit) {
          rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "zstd: decompressed data exceeds %zu bytes", limit);
          break;
        }
        if (r != 0 && ob.pos == 0 && in.pos == in.size) {
          rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "zstd: truncated frame");
          break;
        }
      }
      ZSTD_freeDStream(ds);
      return rc;
    }
    case PM_CODEC_GZIP:
    case PM_CODEC_ZLIB:
    case PM_CODEC_DEFLATE:
      return inflate_all(codec, src, src_len, out, limit, err);
    case PM_CODEC_LZ4_RAW:
    case PM_CODEC_LZ4_HADOOP:
      return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: uncompressed size must be known", pm_codec_name(codec));
  }
  return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "unknown compression codec %d", (int)codec);
}

int pm_compress(pm_codec codec, int level, const uint8_t *src, size_t src_len, pm_buf *out, pm_error *err) {
  return pm_compress_ctx(NULL, codec, level, src, src_len, out, err);
}

#define DCTX_KEEP 8
static pthread_mutex_t dctx_lock = PTHREAD_MUTEX_INITIALIZER;
static ZSTD_DCtx *dctx_idle[DCTX_KEEP];
static size_t dctx_n;

void *pm_zstd_dctx_take(void) {
  ZSTD_DCtx *d = NULL;
  pthread_mutex_lock(&dctx_lock);
  if (dctx_n) d = dctx_idle[--dctx_n];
  pthread_mutex_unlock(&dctx_lock);
  return d ? d : ZSTD_createDCtx();
}

void pm_zstd_dctx_give(void *dctx) {
  ZSTD_DCtx *d = dctx;
  if (!d) return;
  ZSTD_DCtx_reset(d, ZSTD_reset_session_only); /* (a failed frame leaves nothing behind) */
  pthread_mutex_lock(&dctx_lock);
  if (dctx_n < DCTX_KEEP) {
    dctx_idle[dctx_n++] = d;
    d = NULL;
  }
  pthread_mutex_unlock(&dctx_lock);
  ZSTD_freeDCtx(d); /* NULL ok */
}

void pm_codec_ctx_free(pm_codec_ctx *cx) {
  if (!cx) return;
  ZSTD_freeCCtx(cx->zc);
  ZSTD_freeDCtx(cx->zd);
  cx->zc = cx->zd = NULL;
}

int pm_decompress_ctx(pm_codec_ctx *cx, pm_codec codec, const uint8_t *src, size_t src_len, uint8_t *dst,
                      size_t dst_len, pm_error *err) {
  if (!cx || codec != PM_CODEC_ZSTD) return pm_decompress(codec, src, src_len, dst, dst_len, err);
  if (!cx->zd && !(cx->zd = ZSTD_createDCtx())) return PM_NOMEM(err);
  size_t n = ZSTD_decompressDCtx(cx->zd, dst, dst_len, src, src_len);
  if (ZSTD_isError(n)) return pm_errorf(err, PAIMON_ERR_CORRUPT, "zstd: %s", ZSTD_getErrorName(n));
  if (n != dst_len)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "zstd: decompressed %zu bytes, expected %zu", n, dst_len);
  return 0;
}

int pm_compress_ctx(pm_codec_ctx *cx, pm_codec codec, int level, const uint8_t *src, size_t src_len, pm_buf *out,
                    pm_error *err) {
  switch (codec) {
    case PM_CODEC_NONE:
      return pm_buf_append(out, src, src_len) ? PM_NOMEM(err) : 0;
    case PM_CODEC_SNAPPY: {
      size_t n = snappy_max_compressed_length(src_len);
      if (pm_buf_reserve(out, n)) return PM_NOMEM(err);
      if (snappy_compress((const char *)src, src_len, (char *)out->data + out->len, &n) != SNAPPY_OK)
        return pm_errorf(err, PAIMON_ERR_INTERNAL, "snappy: compression failed");
      out->len += n;
      return 0;
    }
    case PM_CODEC_ZSTD: {
      size_t n = ZSTD_compressBound(src_len);
      if (pm_buf_reserve(out, n)) return PM_NOMEM(err);
      if (cx && !cx->zc && !(cx->zc = ZSTD_createCCtx())) return PM_NOMEM(err);
      size_t r = cx ? ZSTD_compressCCtx(cx->zc, out->data + out->len, n, src, src_len, level ? level : 1)
                    : ZSTD_compress(out->data + out->len, n, src, src_len, level ? level : 1);
      if (ZSTD_isError(r)) return pm_errorf(err, PAIMON_ERR_INTERNAL, "zstd: %s", ZSTD_getErrorName(r));
      out->len += r;
      return 0;
    }
    case PM_CODEC_LZ4_RAW:
    case PM_CODEC_LZ4_HADOOP: {
      if (src_len > (size_t)LZ4_MAX_INPUT_SIZE)
        return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "lz4: input larger than %d bytes", LZ4_MAX_INPUT_SIZE);
      int bound = LZ4_compressBound((int)src_len);
      size_t hdr = codec == PM_CODEC_LZ4_HADOOP ? 8 : 0;
      if (pm_buf_reserve(out, (size_t)bound + hdr)) return PM_NOMEM(err);
      uint8_t *base = out->data + out->len;
      int n = LZ4_compress_default((const char *)src, (char *)base + hdr, (int)src_len, bound);
      if (n <= 0) return pm_errorf(err, PAIMON_ERR_INTERNAL, "lz4: compression failed");
      if (hdr) {
        uint32_t a = (uint32_t)src_len, b = (uint32_t)n;
        uint8_t h[8] = {(uint8_t)(a >> 24), (uint8_t)(a >> 16), (uint8_t)(a >> 8), (uint8_t)a,
                        (uint8_t)(b >> 24), (uint8_t)(b >> 16), (uint8_t)(b >> 8), (uint8_t)b};
        memcpy(base, h, 8);
      }
      out->len += (size_t)n + hdr;
      return 0;
    }
    case PM_CODEC_GZIP:
    case PM_CODEC_ZLIB:
    case PM_CODEC_DEFLATE: {
      z_stream zs;
      memset(&zs, 0, sizeof zs);
      if (deflateInit2(&zs, level ? level : Z_DEFAULT_COMPRESSION, Z_DEFLATED, zlib_window_bits(codec), 8,
                       Z_DEFAULT_STRATEGY) != Z_OK)
        return PM_NOMEM(err);
      if (src_len > UINT_MAX) {
        deflateEnd(&zs);
        return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "deflate: input larger than 4 GiB");
      }
      size_t bound = deflateBound(&zs, (uLong)src_len);
      if (pm_buf_reserve(out, bound)) {
        deflateEnd(&zs);
        return PM_NOMEM(err);
      }
      zs.next_in = (Bytef *)src;
      zs.avail_in = (uInt)src_len;
      zs.next_out = out->data + out->len;
      zs.avail_out = (uInt)bound;
      int rc = deflate(&zs, Z_FINISH);
      if (rc != Z_STREAM_END) {
        deflateEnd(&zs);
        return pm_errorf(err, PAIMON_ERR_INTERNAL, "deflate: compression failed");
      }
      out->len += bound - zs.avail_out;
      deflateEnd(&zs);
      return 0;
    }
  }
  return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "unknown compression codec %d", (int)codec);
}
