/* Block compression codecs shared by Parquet, ORC and Avro. */
#ifndef PM_UTIL_COMPRESS_H
#define PM_UTIL_COMPRESS_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/error.h"

typedef enum pm_codec {
  PM_CODEC_NONE = 0,
  PM_CODEC_SNAPPY,      /* raw snappy block */
  PM_CODEC_GZIP,        /* gzip member(s) (Parquet GZIP) */
  PM_CODEC_ZLIB,        /* zlib-wrapped deflate */
  PM_CODEC_DEFLATE,     /* raw deflate, no header (Avro "deflate", ORC ZLIB) */
  PM_CODEC_ZSTD,        /* one or more zstd frames, content size optional */
  PM_CODEC_LZ4_RAW,     /* raw lz4 block (Parquet LZ4_RAW, ORC LZ4) */
  PM_CODEC_LZ4_HADOOP   /* Hadoop framing: [be32 raw len][be32 comp len][lz4 block]... */
} pm_codec;

const char *pm_codec_name(pm_codec c);

/* Decompresses src into dst, whose size must be exactly dst_len (the known
 * uncompressed size). A size mismatch or a decoder failure is PAIMON_ERR_CORRUPT
 * with a message naming the codec. */
int pm_decompress(pm_codec codec, const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
                  pm_error *err);

/* Decompresses src when the uncompressed size is not known up front (Avro
 * blocks, zstd frames without a content size). Appends to out. `limit` bounds
 * the output size (0 = 1 GiB); exceeding it is an error, never a huge allocation. */
int pm_decompress_unknown(pm_codec codec, const uint8_t *src, size_t src_len, pm_buf *out, size_t limit,
                          pm_error *err);

/* Compresses src, appending to out. level: codec-specific, 0 = codec default. */
int pm_compress(pm_codec codec, int level, const uint8_t *src, size_t src_len, pm_buf *out, pm_error *err);

/* Codec state reused across blocks (zstd compression / decompression
 * contexts, made on first use): for callers that code many small blocks, where
 * a fresh context per block costs its allocation and initialisation. Zero-
 * initialise; one thread at a time; pm_codec_ctx_free releases (and re-zeroes). */
typedef struct pm_codec_ctx {
  void *zc; /* ZSTD_CCtx */
  void *zd; /* ZSTD_DCtx */
} pm_codec_ctx;

/* pm_compress / pm_decompress through cx (NULL: a fresh context); same output. */
int pm_compress_ctx(pm_codec_ctx *cx, pm_codec codec, int level, const uint8_t *src, size_t src_len, pm_buf *out,
                    pm_error *err);
int pm_decompress_ctx(pm_codec_ctx *cx, pm_codec codec, const uint8_t *src, size_t src_len, uint8_t *dst,
                      size_t dst_len, pm_error *err);
void pm_codec_ctx_free(pm_codec_ctx *cx);

/* A process-wide pool of idle zstd decompression contexts (a context costs
 * more to create than decoding a small file's pages or a manifest): a reader
 * takes one at its first zstd block (NULL when out of memory) and gives it
 * back when it closes (NULL ok); a few idle ones are kept, the rest freed.
 * Thread-safe. The pointers are ZSTD_DCtx. */
void *pm_zstd_dctx_take(void);
void pm_zstd_dctx_give(void *dctx);

#endif
