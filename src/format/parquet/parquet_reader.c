/*
 * Parquet reader: column chunk/page decoding straight into Arrow buffers and
 * Dremel record assembly of nested columns.
 *
 * Per batch, every projected leaf column accumulates (a) its definition and
 * repetition levels (only when the column has them) and (b) its non-null
 * values, already converted to the Arrow representation. Arrays are then
 * assembled from the levels: flat columns through fast paths, nested ones by
 * walking the levels of one representative leaf per Arrow node.
 */
#include "format/parquet/parquet_reader.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>
#include <zstd.h>

#include "arrow/arrow.h"
#include "format/parquet/parquet_decode.h"
#include "format/parquet/parquet_meta.h"
#include "util/buf.h"
#include "util/compress.h"

#define MAX_PAGE_BYTES ((size_t)1 << 30)
#define MAX_PAGE_VALUES_SLACK ((size_t)1 << 22)
/* Bytes readable past the end of a binary dictionary: value copies may read
 * (and write) up to 256 bytes from a value's start. */
#define DICT_SLACK 256

/* ---------------------------------------------------------------- types -- */

enum out_kind { OUT_FIXED, OUT_BOOL, OUT_BINARY };
enum conv_kind { CV_COPY, CV_I32_TO_8, CV_I32_TO_16, CV_I32_DEC, CV_I64_DEC, CV_INT96, CV_FIXED_DEC, CV_BIN_DEC, CV_BOOL, CV_BINARY };
enum value_source { VS_NONE, VS_FIXED, VS_DICT, VS_BINARY };

/* Bytes shared between the reader and the batches whose buffers point into
 * them (a column chunk's dictionary for string views, a decompressed page of
 * plain fixed-width values). Freed by the last holder; batches may be
 * released from any thread, hence the atomic count. */
typedef struct view_block {
  atomic_int refs;
  size_t len;
  size_t cap;
  uint8_t data[];
} view_block;

static void vblock_unref(view_block *b) {
  if (b && atomic_fetch_sub(&b->refs, 1) == 1) free(b);
}

static void vblock_unref_owner(void *b) { vblock_unref(b); }

typedef struct col_values {
  pm_buf def, rep; /* int16 levels */
  int def_all_max; /* def levels not stored: every level so far equals max_def (flat columns) */
  size_t n_levels;
  pm_buf values;  /* dense non-null values: fixed width, 1-byte bools, or bytes of binaries */
  pm_buf offsets; /* int32 offsets for binaries (n_values + 1 entries once started) */
  size_t n_values;
  /* Fixed-width values taken in one piece from a shared page: the batch's
   * values are ext_ptr[0..n_values) (values stays empty) until more values
   * arrive or nulls must be spread, when they are copied into values. */
  view_block *ext;
  const uint8_t *ext_ptr;
} col_values;

/* Copies a shared slice into the values buffer and drops the reference. */
static int col_values_materialize(col_values *o, size_t width, pm_error *err) {
  if (!o->ext) return 0;
  size_t bytes = o->n_values * width;
  PM_TRY(pm_buf_reserve(&o->values, bytes + 16));
  memcpy(o->values.data, o->ext_ptr, bytes);
  o->values.len = bytes;
  vblock_unref(o->ext);
  o->ext = NULL;
  o->ext_ptr = NULL;
  return 0;
}

typedef struct leaf_reader {
  int leaf;
  const pm_pq_leaf *info;
  const pm_pq_schema_elem *elem;
  int phys;
  int type_length;
  int max_def, max_rep;
  int out_kind;
  int conv;
  int width;      /* Arrow bytes per value for OUT_FIXED, 1 for bool */
  int phys_width; /* bytes per plain value for fixed physical types */
  char format[32];

  /* current column chunk */
  int rg;
  uint8_t *chunk;
  size_t chunk_cap, chunk_len, chunk_pos;
  uint64_t chunk_off;
  pm_codec codec;
  int lz4_legacy;

  /* dictionary in Arrow representation */
  int has_dict;
  uint8_t *dict;
  size_t dict_cap;
  uint32_t *dict_offsets;
  size_t dict_offsets_cap;
  size_t dict_n;
  uint32_t dict_max_len; /* longest binary dictionary value */

  /* current page */
  uint8_t *page_buf;
  size_t page_buf_cap;
  view_block *pblock; /* the current page, decompressed; batches may hold it (page_block) */
  int page_shared;    /* its values may be lent to batches (page_can_be_shared) */
  int16_t *page_def, *page_rep;
  size_t levels_cap;
  size_t page_levels, level_pos;
  int page_all_defined; /* flat column page whose def levels are all max_def: page_def not filled */
  int vsource;
  size_t page_nvals, value_pos;
  const uint8_t *vfixed;
  int vraw; /* vfixed holds physical values (phys_width apart) still to be converted */
  pm_pq_rle idx_dec; /* dictionary indices of the page, from value_pos on */
  uint32_t *idx;     /* the indices of the values being taken */
  size_t idx_cap;
  uint32_t *voffsets;
  size_t voffsets_cap;
  const uint8_t *vbytes;
  uint8_t *conv_buf; /* converted values / delta outputs */
  size_t conv_cap;
  uint8_t *tmp_buf;
  size_t tmp_cap;
  uint64_t page_off;

  col_values out;
  size_t bytes_hint; /* binary bytes of the previous batch, to size the next one */
  size_t slots_hint; /* array length of the previous batch (more than its rows below lists) */

  /* string_view output (BYTE_ARRAY leaves when opt.string_view) */
  int view;
  view_block *dblock;   /* the chunk's dictionary bytes (reader's reference) */
  uint8_t *dict_views;  /* one 16-byte view per dictionary entry */
  size_t dict_views_cap;
  int32_t dict_views_buf; /* variadic buffer index written in the long dict views */
  view_block **vsrc;    /* variadic buffers of the batch being built (a reference
                           each); NULL entry = vcopy */
  size_t vsrc_cap;
  int n_vsrc;
  int copy_idx;         /* index of vcopy in vsrc, or -1 */
  pm_buf vcopy;         /* bytes of long non-dictionary values of the batch */
} leaf_reader;

enum anode_kind { AN_LEAF, AN_STRUCT, AN_LIST, AN_MAP };

typedef struct anode {
  int kind;
  const char *name;
  const pm_pq_schema_elem *elem; /* for field id; NULL for synthetic nodes */
  int nullable;
  int def_present; /* def level at which the node is non-null */
  int anc_def, anc_rep; /* slot rule: def >= anc_def && rep <= anc_rep */
  int rep_def, rep_rep; /* lists/maps: levels of the repeated field */
  int rep_leaf;         /* index into reader->leaves of the representative leaf */
  int leaf_slot;        /* AN_LEAF: index into reader->leaves */
  struct anode **children;
  int n_children;
} anode;

typedef struct pending_op {
  int64_t skip, read;
} pending_op;

typedef struct pred_state {
  pm_fmt_predicate p;
  int leaf; /* -1 when the column is unknown: no pruning */
  pm_fmt_literal *values;
  uint8_t **owned_bytes;
} pred_state;

struct pm_pq_reader {
  pm_file *file;
  const char *path;
  pm_pq_meta *meta;
  pm_pq_read_options opt;
  int64_t batch_rows;

  anode **columns; /* projected top-level columns */
  int n_columns;
  leaf_reader *leaves;
  int n_leaves;

  pm_pq_row_range *ranges;
  size_t n_ranges;
  pred_state *preds;
  size_t n_preds;

  /* iteration */
  int rg;          /* current row group, -1 before the first */
  int64_t rg_first; /* file row of the current row group's first row */
  pm_pq_row_range *rg_ranges; /* selected ranges within the current rg (rg-relative) */
  size_t rg_n_ranges, rg_range_pos;
  int64_t rg_row;  /* next unread row (rg-relative) */
  int done;

  int64_t *positions; /* filled on request from the spans of the last batch */
  size_t positions_cap;
  int64_t positions_n;
  int positions_ready;
  pm_pq_row_range *spans; /* file rows of the last batch */
  size_t spans_cap;
  pending_op *ops; /* skip/read plan of the batch, one per span */
  size_t ops_cap;
  int n_spans;

  ZSTD_DCtx *zstd; /* reused across pages */
  int wide_copies;  /* the CPU has 64-byte vector loads/stores (AVX-512) */
  struct buf_pool *pool; /* recycled batch buffers */
  uint8_t *valid_scratch; /* assembly scratch, kept across batches */
  size_t valid_scratch_cap;
};

/* ---------------------------------------------------------------- utils -- */

static int grow(void **p, size_t *cap, size_t need, pm_error *err) {
  if (need <= *cap) return 0;
  size_t n = *cap ? *cap : 256;
  while (n < need) {
    if (n > SIZE_MAX / 2) return PM_NOMEM(err);
    n *= 2;
  }
  void *q = realloc(*p, n);
  if (!q) return PM_NOMEM(err);
  *p = q;
  *cap = n;
  return 0;
}

#define GROW(ptr, cap, need, err) grow((void **)&(ptr), &(cap), (need), (err))

static int lr_fail(pm_pq_reader *r, leaf_reader *lr, pm_error *err, const char *what) {
  return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: column '%s' row group %d page at offset %llu: %s", r->path,
                   lr->info->path, lr->rg, (unsigned long long)lr->page_off, what);
}

static uint32_t rd32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

/* ------------------------------------------------------- type mapping ---- */

static int set_leaf_type(pm_pq_reader *r, leaf_reader *lr, pm_error *err) {
  const pm_pq_schema_elem *e = lr->elem;
  const pm_pq_logical *lt = &e->logical;
  int ct = e->has_converted ? e->converted : -1;
  int is_dec = lt->kind == PM_PQ_LT_DECIMAL || (lt->kind == PM_PQ_LT_NONE && ct == PM_PQ_CT_DECIMAL);
  int prec = lt->kind == PM_PQ_LT_DECIMAL ? lt->precision : e->precision;
  int scale = lt->kind == PM_PQ_LT_DECIMAL ? lt->scale : e->scale;
  lr->out_kind = OUT_FIXED;
  lr->conv = CV_COPY;
  lr->copy_idx = -1;
  if (is_dec && lr->phys != PM_PQ_BOOLEAN && lr->phys != PM_PQ_FLOAT && lr->phys != PM_PQ_DOUBLE &&
      lr->phys != PM_PQ_INT96) {
    if (prec <= 0 || prec > 38 || scale < 0 || scale > prec)
      return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: column '%s' has unsupported decimal(%d,%d)", r->path,
                       lr->info->path, prec, scale);
    snprintf(lr->format, sizeof lr->format, "d:%d,%d", prec, scale);
    lr->width = 16;
    lr->conv = lr->phys == PM_PQ_INT32 ? CV_I32_DEC
               : lr->phys == PM_PQ_INT64 ? CV_I64_DEC
               : lr->phys == PM_PQ_FIXED_LEN_BYTE_ARRAY ? CV_FIXED_DEC
                                                        : CV_BIN_DEC;
    if (lr->phys == PM_PQ_FIXED_LEN_BYTE_ARRAY) lr->phys_width = lr->type_length;
    else if (lr->phys == PM_PQ_INT32) lr->phys_width = 4;
    else if (lr->phys == PM_PQ_INT64) lr->phys_width = 8;
    return 0;
  }
  const char *f = NULL;
  switch (lr->phys) {
    case PM_PQ_BOOLEAN:
      f = "b";
      lr->out_kind = OUT_BOOL;
      lr->conv = CV_BOOL;
      lr->width = 1;
      break;
    case PM_PQ_INT32: {
      lr->phys_width = 4;
      lr->width = 4;
      int bw = 32, sign = 1;
      f = "i";
      if (lt->kind == PM_PQ_LT_INTEGER) {
        bw = lt->bit_width;
        sign = lt->is_signed;
      } else if (lt->kind == PM_PQ_LT_DATE || (lt->kind == PM_PQ_LT_NONE && ct == PM_PQ_CT_DATE)) {
        f = "tdD";
        break;
      } else if (lt->kind == PM_PQ_LT_TIME || (lt->kind == PM_PQ_LT_NONE && ct == PM_PQ_CT_TIME_MILLIS)) {
        f = "ttm";
        break;
      } else if (lt->kind == PM_PQ_LT_NONE && ct >= PM_PQ_CT_UINT_8 && ct <= PM_PQ_CT_INT_64) {
        static const int bws[] = {8, 16, 32, 64, 8, 16, 32, 64};
        bw = bws[ct - PM_PQ_CT_UINT_8];
        sign = ct >= PM_PQ_CT_INT_8;
      }
      if (bw == 8) {
        f = sign ? "c" : "C";
        lr->conv = CV_I32_TO_8;
        lr->width = 1;
      } else if (bw == 16) {
        f = sign ? "s" : "S";
        lr->conv = CV_I32_TO_16;
        lr->width = 2;
      } else {
        f = sign ? "i" : "I";
      }
      break;
    }
    case PM_PQ_INT64: {
      lr->phys_width = 8;
      lr->width = 8;
      f = "l";
      if (lt->kind == PM_PQ_LT_INTEGER) {
        f = lt->is_signed ? "l" : "L";
      } else if (lt->kind == PM_PQ_LT_NONE && ct == PM_PQ_CT_UINT_64) {
        f = "L";
      } else if (lt->kind == PM_PQ_LT_TIMESTAMP) {
        static const char *ts[2][3] = {{"tsm:", "tsu:", "tsn:"}, {"tsm:UTC", "tsu:UTC", "tsn:UTC"}};
        f = ts[lt->utc ? 1 : 0][lt->unit];
      } else if (lt->kind == PM_PQ_LT_NONE && ct == PM_PQ_CT_TIMESTAMP_MILLIS) {
        f = "tsm:UTC";
      } else if (lt->kind == PM_PQ_LT_NONE && ct == PM_PQ_CT_TIMESTAMP_MICROS) {
        f = "tsu:UTC";
      } else if (lt->kind == PM_PQ_LT_TIME) {
        f = lt->unit == PM_PQ_NANOS ? "ttn" : "ttu";
        if (lt->unit == PM_PQ_MILLIS) f = "ttu"; /* ms time on int64 is unusual; keep the value, claim us */
      } else if (lt->kind == PM_PQ_LT_NONE && ct == PM_PQ_CT_TIME_MICROS) {
        f = "ttu";
      }
      break;
    }
    case PM_PQ_INT96:
      f = "tsn:";
      lr->phys_width = 12;
      lr->width = 8;
      lr->conv = CV_INT96;
      break;
    case PM_PQ_FLOAT:
      f = "f";
      lr->phys_width = 4;
      lr->width = 4;
      break;
    case PM_PQ_DOUBLE:
      f = "g";
      lr->phys_width = 8;
      lr->width = 8;
      break;
    case PM_PQ_BYTE_ARRAY: {
      int is_str = lt->kind == PM_PQ_LT_STRING || lt->kind == PM_PQ_LT_ENUM || lt->kind == PM_PQ_LT_JSON ||
                   (lt->kind == PM_PQ_LT_NONE && (ct == PM_PQ_CT_UTF8 || ct == PM_PQ_CT_ENUM || ct == PM_PQ_CT_JSON));
      f = is_str ? "u" : "z";
      if (r->opt.string_view) {
        f = is_str ? "vu" : "vz";
        lr->view = 1;
      }
      lr->out_kind = OUT_BINARY;
      lr->conv = CV_BINARY;
      lr->width = 0;
      break;
    }
    case PM_PQ_FIXED_LEN_BYTE_ARRAY:
      snprintf(lr->format, sizeof lr->format, "w:%d", lr->type_length);
      lr->phys_width = lr->type_length;
      lr->width = lr->type_length;
      return 0;
    default:
      return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: column '%s' has unknown physical type %d", r->path,
                       lr->info->path, lr->phys);
  }
  snprintf(lr->format, sizeof lr->format, "%s", f);
  return 0;
}

/* --------------------------------------------------- value conversion ---- */

static void be_to_dec128(const uint8_t *src, size_t len, uint8_t *dst) {
  uint8_t tmp[16];
  memset(tmp, (len > 0 && (src[0] & 0x80)) ? 0xff : 0, 16);
  size_t n = len < 16 ? len : 16;
  memcpy(tmp + 16 - n, src + len - n, n);
  uint64_t hi, lo;
  memcpy(&hi, tmp, 8);
  memcpy(&lo, tmp + 8, 8);
  lo = __builtin_bswap64(lo);
  hi = __builtin_bswap64(hi);
  memcpy(dst, &lo, 8);
  memcpy(dst + 8, &hi, 8);
}

/* Converts n plain fixed-width physical values to the Arrow representation. */
static void convert_fixed(const leaf_reader *lr, const uint8_t *src, size_t n, uint8_t *dst) {
  switch (lr->conv) {
    case CV_COPY:
      memcpy(dst, src, n * (size_t)lr->width);
      break;
    case CV_I32_TO_8: {
      size_t i = 0;
#if defined(__SSE2__)
      /* truncation (as below): sign-extend the low byte, then the saturating packs are exact */
      for (; i + 16 <= n; i += 16) {
        __m128i v[4];
        for (int q = 0; q < 4; q++)
          v[q] = _mm_srai_epi32(_mm_slli_epi32(_mm_loadu_si128((const __m128i *)(const void *)(src + 4 * i + 16 * q)), 24), 24);
        __m128i lo = _mm_packs_epi32(v[0], v[1]), hi = _mm_packs_epi32(v[2], v[3]);
        _mm_storeu_si128((__m128i *)(void *)(dst + i), _mm_packs_epi16(lo, hi));
      }
#endif
      for (; i < n; i++) dst[i] = (uint8_t)rd32(src + 4 * i);
      break;
    }
    case CV_I32_TO_16: {
      uint16_t *d = (uint16_t *)(void *)dst;
      size_t i = 0;
#if defined(__SSE2__)
      for (; i + 8 <= n; i += 8) {
        __m128i a = _mm_srai_epi32(_mm_slli_epi32(_mm_loadu_si128((const __m128i *)(const void *)(src + 4 * i)), 16), 16);
        __m128i b = _mm_srai_epi32(_mm_slli_epi32(_mm_loadu_si128((const __m128i *)(const void *)(src + 4 * i + 16)), 16), 16);
        _mm_storeu_si128((__m128i *)(void *)(d + i), _mm_packs_epi32(a, b));
      }
#endif
      for (; i < n; i++) d[i] = (uint16_t)rd32(src + 4 * i);
      break;
    }
    case CV_I32_DEC: {
      int64_t *d = (int64_t *)(void *)dst;
      for (size_t i = 0; i < n; i++) {
        int64_t v = (int32_t)rd32(src + 4 * i);
        d[2 * i] = v;
        d[2 * i + 1] = v < 0 ? -1 : 0;
      }
      break;
    }
    case CV_I64_DEC: {
      int64_t *d = (int64_t *)(void *)dst;
      for (size_t i = 0; i < n; i++) {
        int64_t v;
        memcpy(&v, src + 8 * i, 8);
        d[2 * i] = v;
        d[2 * i + 1] = v < 0 ? -1 : 0;
      }
      break;
    }
    case CV_INT96: {
      int64_t *d = (int64_t *)(void *)dst;
      for (size_t i = 0; i < n; i++) {
        int64_t nanos;
        int32_t julian;
        memcpy(&nanos, src + 12 * i, 8);
        memcpy(&julian, src + 12 * i + 8, 4);
        uint64_t v = (uint64_t)((int64_t)julian - 2440588) * 86400000000000ull + (uint64_t)nanos;
        d[i] = (int64_t)v;
      }
      break;
    }
    case CV_FIXED_DEC: {
      size_t w = (size_t)lr->type_length;
      if (w == 16) { /* big-endian 128 bits to little-endian: swap the halves and their bytes */
        for (size_t i = 0; i < n; i++) {
          uint64_t hi, lo;
          memcpy(&hi, src + 16 * i, 8);
          memcpy(&lo, src + 16 * i + 8, 8);
          lo = __builtin_bswap64(lo);
          hi = __builtin_bswap64(hi);
          memcpy(dst + 16 * i, &lo, 8);
          memcpy(dst + 16 * i + 8, &hi, 8);
        }
      } else {
        for (size_t i = 0; i < n; i++) be_to_dec128(src + w * i, w, dst + 16 * i);
      }
      break;
    }
    default:
      break;
  }
}

/* ------------------------------------------------------- chunk & pages ---- */

static int map_codec(pm_pq_reader *r, int pq_codec, pm_codec *out, pm_error *err) {
  switch (pq_codec) {
    case PM_PQ_CODEC_UNCOMPRESSED: *out = PM_CODEC_NONE; return 0;
    case PM_PQ_CODEC_SNAPPY: *out = PM_CODEC_SNAPPY; return 0;
    case PM_PQ_CODEC_GZIP: *out = PM_CODEC_GZIP; return 0;
    case PM_PQ_CODEC_ZSTD: *out = PM_CODEC_ZSTD; return 0;
    case PM_PQ_CODEC_LZ4_RAW: *out = PM_CODEC_LZ4_RAW; return 0;
    case PM_PQ_CODEC_LZ4: *out = PM_CODEC_LZ4_HADOOP; return 0;
    default:
      return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: compression codec %s (%d) is not supported", r->path,
                       pm_pq_codec_name(pq_codec), pq_codec);
  }
}

static int decompress(pm_pq_reader *r, leaf_reader *lr, const uint8_t *src, size_t src_len, uint8_t *dst,
                      size_t dst_len, pm_error *err) {
  int rc;
  if (lr->codec == PM_CODEC_ZSTD) {
    if (!r->zstd && !(r->zstd = pm_zstd_dctx_take())) return PM_NOMEM(err);
    size_t n = ZSTD_decompressDCtx(r->zstd, dst, dst_len, src, src_len);
    if (ZSTD_isError(n))
      rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "zstd: %s", ZSTD_getErrorName(n));
    else if (n != dst_len)
      rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "zstd: decompressed %zu bytes, expected %zu", n, dst_len);
    else
      rc = 0;
  } else {
    rc = pm_decompress(lr->codec, src, src_len, dst, dst_len, err);
  }
  if (rc && lr->codec == PM_CODEC_LZ4_HADOOP) {
    /* Some writers label raw LZ4 blocks as LZ4. */
    pm_error e2;
    if (pm_decompress(PM_CODEC_LZ4_RAW, src, src_len, dst, dst_len, &e2) == 0) return 0;
  }
  if (rc)
    return pm_error_prefix(err, "%s: column '%s' row group %d page at offset %llu: ", r->path, lr->info->path, lr->rg,
                           (unsigned long long)lr->page_off);
  return 0;
}

static void lr_reset_chunk(leaf_reader *lr) {
  lr->chunk_len = lr->chunk_pos = 0; /* the buffer is kept for the next row group */
  lr->has_dict = 0;
  lr->dict_n = 0;
  lr->page_levels = lr->level_pos = 0;
  lr->page_nvals = lr->value_pos = 0;
  lr->vsource = VS_NONE;
  lr->page_shared = 0;
}

static int lr_open_chunk(pm_pq_reader *r, leaf_reader *lr, int rg, pm_error *err) {
  lr_reset_chunk(lr);
  lr->rg = rg;
  const pm_pq_column_chunk *cc = &r->meta->row_groups[rg].columns[lr->leaf];
  if (cc->file_path)
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: column '%s' row group %d is stored in another file (%s)",
                     r->path, lr->info->path, rg, cc->file_path);
  PM_TRY(map_codec(r, cc->codec, &lr->codec, err));
  int64_t start = cc->data_page_offset;
  if (cc->has_dictionary_page_offset && cc->dictionary_page_offset > 0 && cc->dictionary_page_offset < start)
    start = cc->dictionary_page_offset;
  uint64_t fsize = pm_file_size(r->file);
  if (start < 4 || cc->total_compressed_size <= 0 || (uint64_t)start >= fsize ||
      (uint64_t)cc->total_compressed_size > fsize - (uint64_t)start)
    return pm_errorf(err, PAIMON_ERR_CORRUPT,
                     "%s: column '%s' row group %d: chunk at offset %lld with %lld bytes lies outside the file "
                     "(%llu bytes)",
                     r->path, lr->info->path, rg, (long long)start, (long long)cc->total_compressed_size,
                     (unsigned long long)fsize);
  size_t len = (size_t)cc->total_compressed_size;
  PM_TRY(GROW(lr->chunk, lr->chunk_cap, len, err));
  lr->chunk_len = len;
  lr->chunk_off = (uint64_t)start;
  return pm_file_read_at(r->file, (uint64_t)start, lr->chunk, lr->chunk_len, err);
}

/* True when an RLE/bit-packed hybrid stream starts with one RLE run of at
 * least n copies of `value` (a page without nulls): no need to decode it. */
static int rle_is_constant(const uint8_t *p, size_t len, int bit_width, uint32_t value, size_t n) {
  uint64_t h = 0;
  size_t i = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (i >= len) return 0;
    uint8_t b = p[i++];
    h |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) break;
  }
  if ((h & 1) || (h >> 1) < n) return 0;
  int nb = (bit_width + 7) / 8;
  if (len - i < (size_t)nb) return 0;
  uint32_t v = 0;
  for (int k = 0; k < nb; k++) v |= (uint32_t)p[i + (size_t)k] << (8 * k);
  return v == value;
}

/* Decodes levels of a v1 page. Returns bytes consumed via *used. */
static int decode_levels_v1(pm_pq_reader *r, leaf_reader *lr, const uint8_t *p, size_t len, int enc, int max_level,
                            int16_t *out, size_t n, size_t *used, pm_error *err) {
  int w = pm_pq_bit_width((uint32_t)max_level);
  if (enc == PM_PQ_ENC_RLE) {
    if (len < 4) return lr_fail(r, lr, err, "truncated level length");
    uint32_t l = rd32(p);
    if (l > len - 4) return lr_fail(r, lr, err, "level data length beyond the page");
    pm_pq_rle d;
    pm_pq_rle_init(&d, p + 4, l, w);
    if (pm_pq_rle_i16(&d, out, n)) return lr_fail(r, lr, err, "RLE levels run past the end of their data");
    *used = 4 + (size_t)l;
  } else if (enc == PM_PQ_ENC_BIT_PACKED) {
    size_t need = ((size_t)n * (size_t)w + 7) / 8;
    if (pm_pq_bitpacked_msb_i16(p, len, w, out, n)) return lr_fail(r, lr, err, "BIT_PACKED levels past the page end");
    *used = need;
  } else {
    return lr_fail(r, lr, err, "unsupported level encoding");
  }
  return 0;
}

static int check_levels(pm_pq_reader *r, leaf_reader *lr, const int16_t *lv, size_t n, int max, pm_error *err) {
  unsigned bad = 0;
  size_t i = 0;
  for (; i + 16 <= n; i += 16) bad |= pm_pq_lv_mask_gt16(lv + i, (int16_t)max);
  for (; i < n; i++) bad |= lv[i] > max;
  if (bad) return lr_fail(r, lr, err, "level above the column's maximum");
  return 0;
}

/* Converts binary values (offsets/bytes) for decimal or FLBA leaves into the fixed representation. */
static int binary_to_fixed(pm_pq_reader *r, leaf_reader *lr, const uint32_t *offs, const uint8_t *bytes, size_t n,
                           pm_error *err) {
  PM_TRY(GROW(lr->conv_buf, lr->conv_cap, n * (size_t)lr->width + 16, err));
  for (size_t i = 0; i < n; i++) {
    size_t l = offs[i + 1] - offs[i];
    const uint8_t *s = bytes + offs[i];
    if (lr->conv == CV_BIN_DEC || lr->conv == CV_FIXED_DEC) {
      if (l > 16) {
        for (size_t k = 0; k < l - 16; k++)
          if (s[k] != ((s[l - 16] & 0x80) ? 0xff : 0)) return lr_fail(r, lr, err, "decimal value wider than 16 bytes");
        s += l - 16;
        l = 16;
      }
      be_to_dec128(s, l, lr->conv_buf + 16 * i);
    } else {
      if (l != (size_t)lr->type_length) return lr_fail(r, lr, err, "FIXED_LEN_BYTE_ARRAY value of the wrong length");
      memcpy(lr->conv_buf + (size_t)lr->width * i, s, l);
    }
  }
  lr->vfixed = lr->conv_buf;
  lr->vsource = VS_FIXED;
  return 0;
}

/* Makes fixed-width physical values (raw, n of them) the page's value source.
 * Values that need conversion are converted when they are taken, straight
 * into the batch (raw stays valid until the page is consumed). */
static int set_fixed_source(pm_pq_reader *r, leaf_reader *lr, const uint8_t *raw, size_t n, pm_error *err) {
  (void)r;
  (void)n;
  (void)err;
  lr->vfixed = raw;
  lr->vraw = lr->conv != CV_COPY;
  lr->vsource = VS_FIXED;
  return 0;
}

/* Decodes the non-dictionary values of a page (or a dictionary page's values). */
static int decode_values(pm_pq_reader *r, leaf_reader *lr, int enc, uint8_t *p, size_t len, size_t n,
                         pm_error *err) {
  const char *why = NULL;
  lr->vraw = 0;
  if (lr->out_kind == OUT_BOOL) {
    PM_TRY(GROW(lr->conv_buf, lr->conv_cap, n + 16, err));
    if (enc == PM_PQ_ENC_PLAIN) {
      if ((n + 7) / 8 > len) return lr_fail(r, lr, err, "PLAIN booleans past the page end");
      pm_pq_unpack_bools(p, 0, lr->conv_buf, n);
    } else if (enc == PM_PQ_ENC_RLE) {
      if (len < 4 || rd32(p) > len - 4) return lr_fail(r, lr, err, "bad RLE boolean length");
      pm_pq_rle d;
      pm_pq_rle_init(&d, p + 4, rd32(p), 1);
      if (pm_pq_rle_u8(&d, lr->conv_buf, n)) return lr_fail(r, lr, err, "RLE booleans run past the end");
    } else {
      return lr_fail(r, lr, err, "unsupported encoding for BOOLEAN");
    }
    lr->vfixed = lr->conv_buf;
    lr->vsource = VS_FIXED;
    return 0;
  }
  switch (enc) {
    case PM_PQ_ENC_PLAIN:
      if (lr->phys == PM_PQ_BYTE_ARRAY) {
        if (n > len / 4) return lr_fail(r, lr, err, "more BYTE_ARRAY values than the page can hold");
        PM_TRY(GROW(lr->voffsets, lr->voffsets_cap, (n + 1) * sizeof(uint32_t), err));
        size_t used;
        if (pm_pq_plain_byte_array_compact(p, len, n, lr->voffsets, &used, &why)) return lr_fail(r, lr, err, why);
        if (lr->out_kind == OUT_BINARY) {
          lr->vbytes = p;
          lr->vsource = VS_BINARY;
          return 0;
        }
        return binary_to_fixed(r, lr, lr->voffsets, p, n, err);
      }
      if ((uint64_t)n * (uint64_t)lr->phys_width > len) return lr_fail(r, lr, err, "PLAIN values past the page end");
      return set_fixed_source(r, lr, p, n, err);
    case PM_PQ_ENC_BYTE_STREAM_SPLIT: {
      if (lr->phys == PM_PQ_BYTE_ARRAY) return lr_fail(r, lr, err, "BYTE_STREAM_SPLIT on BYTE_ARRAY");
      size_t need = n * (size_t)lr->phys_width;
      if ((uint64_t)n * (uint64_t)lr->phys_width > len) return lr_fail(r, lr, err, "BYTE_STREAM_SPLIT past the page end");
      PM_TRY(GROW(lr->tmp_buf, lr->tmp_cap, need + 16, err));
      pm_pq_byte_stream_split(p, n, lr->phys_width, lr->tmp_buf);
      if (lr->conv == CV_COPY) {
        PM_TRY(GROW(lr->conv_buf, lr->conv_cap, need + 16, err));
        memcpy(lr->conv_buf, lr->tmp_buf, need);
        lr->vfixed = lr->conv_buf;
        lr->vsource = VS_FIXED;
        return 0;
      }
      return set_fixed_source(r, lr, lr->tmp_buf, n, err);
    }
    case PM_PQ_ENC_DELTA_BINARY_PACKED: {
      if (lr->phys != PM_PQ_INT32 && lr->phys != PM_PQ_INT64)
        return lr_fail(r, lr, err, "DELTA_BINARY_PACKED on a non-integer column");
      uint64_t total;
      size_t used;
      if (pm_pq_delta_count(p, len, &total, &why)) return lr_fail(r, lr, err, why);
      if (total != n) return lr_fail(r, lr, err, "DELTA_BINARY_PACKED value count differs from the page");
      PM_TRY(GROW(lr->tmp_buf, lr->tmp_cap, n * 8 + 16, err));
      int64_t *v = (int64_t *)(void *)lr->tmp_buf;
      if (pm_pq_delta_decode(p, len, v, total, &used, &why)) return lr_fail(r, lr, err, why);
      if (lr->phys == PM_PQ_INT32) {
        int32_t *d = (int32_t *)(void *)lr->tmp_buf;
        for (size_t i = 0; i < n; i++) d[i] = (int32_t)(uint32_t)(uint64_t)v[i];
      }
      if (lr->conv == CV_COPY) {
        PM_TRY(GROW(lr->conv_buf, lr->conv_cap, n * (size_t)lr->width + 16, err));
        memcpy(lr->conv_buf, lr->tmp_buf, n * (size_t)lr->width);
        lr->vfixed = lr->conv_buf;
        lr->vsource = VS_FIXED;
        return 0;
      }
      return set_fixed_source(r, lr, lr->tmp_buf, n, err);
    }
    case PM_PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
    case PM_PQ_ENC_DELTA_BYTE_ARRAY: {
      if (lr->phys != PM_PQ_BYTE_ARRAY && lr->phys != PM_PQ_FIXED_LEN_BYTE_ARRAY)
        return lr_fail(r, lr, err, "DELTA byte array encoding on a non-binary column");
      uint64_t total;
      size_t used, used2 = 0;
      PM_TRY(GROW(lr->tmp_buf, lr->tmp_cap, n * 16 + 16, err));
      int64_t *lens = (int64_t *)(void *)lr->tmp_buf;
      int64_t *prefix = lens + n;
      const uint8_t *q = p;
      size_t qlen = len;
      if (enc == PM_PQ_ENC_DELTA_BYTE_ARRAY) {
        if (pm_pq_delta_count(q, qlen, &total, &why)) return lr_fail(r, lr, err, why);
        if (total != n) return lr_fail(r, lr, err, "DELTA_BYTE_ARRAY prefix count differs from the page");
        if (pm_pq_delta_decode(q, qlen, prefix, total, &used2, &why)) return lr_fail(r, lr, err, why);
        q += used2;
        qlen -= used2;
      }
      if (pm_pq_delta_count(q, qlen, &total, &why)) return lr_fail(r, lr, err, why);
      if (total != n) return lr_fail(r, lr, err, "DELTA length count differs from the page");
      if (pm_pq_delta_decode(q, qlen, lens, total, &used, &why)) return lr_fail(r, lr, err, why);
      q += used;
      qlen -= used;
      PM_TRY(GROW(lr->voffsets, lr->voffsets_cap, (n + 1) * sizeof(uint32_t), err));
      lr->voffsets[0] = 0;
      if (enc == PM_PQ_ENC_DELTA_LENGTH_BYTE_ARRAY) {
        uint64_t tot = 0;
        for (size_t i = 0; i < n; i++) {
          if (lens[i] < 0 || (uint64_t)lens[i] > qlen - tot) return lr_fail(r, lr, err, "DELTA_LENGTH_BYTE_ARRAY length beyond the page");
          tot += (uint64_t)lens[i];
          lr->voffsets[i + 1] = (uint32_t)tot;
        }
        if (lr->out_kind == OUT_BINARY) {
          lr->vbytes = q;
          lr->vsource = VS_BINARY;
          return 0;
        }
        return binary_to_fixed(r, lr, lr->voffsets, q, n, err);
      }
      /* DELTA_BYTE_ARRAY: value = prefix of previous value + suffix. */
      uint64_t out_len = 0, in_used = 0;
      for (size_t i = 0; i < n; i++) {
        if (lens[i] < 0 || prefix[i] < 0 || (uint64_t)lens[i] > qlen - in_used)
          return lr_fail(r, lr, err, "DELTA_BYTE_ARRAY suffix beyond the page");
        uint64_t prev = i ? (uint64_t)(lr->voffsets[i] - lr->voffsets[i - 1]) : 0;
        if ((uint64_t)prefix[i] > prev) return lr_fail(r, lr, err, "DELTA_BYTE_ARRAY prefix longer than the previous value");
        in_used += (uint64_t)lens[i];
        out_len += (uint64_t)prefix[i] + (uint64_t)lens[i];
        if (out_len > MAX_PAGE_BYTES) return lr_fail(r, lr, err, "DELTA_BYTE_ARRAY values too large");
        lr->voffsets[i + 1] = (uint32_t)out_len;
      }
      PM_TRY(GROW(lr->conv_buf, lr->conv_cap, (size_t)out_len + 16, err));
      const uint8_t *s = q;
      for (size_t i = 0; i < n; i++) {
        uint8_t *dst = lr->conv_buf + lr->voffsets[i];
        if (prefix[i]) memcpy(dst, lr->conv_buf + lr->voffsets[i - 1], (size_t)prefix[i]);
        memcpy(dst + prefix[i], s, (size_t)lens[i]);
        s += lens[i];
      }
      if (lr->out_kind == OUT_BINARY) {
        lr->vbytes = lr->conv_buf;
        lr->vsource = VS_BINARY;
        return 0;
      }
      /* binary_to_fixed writes conv_buf: move the bytes out of the way first. */
      PM_TRY(GROW(lr->page_buf, lr->page_buf_cap, (size_t)out_len + 16, err));
      memcpy(lr->page_buf, lr->conv_buf, (size_t)out_len);
      return binary_to_fixed(r, lr, lr->voffsets, lr->page_buf, n, err);
    }
    default:
      return lr_fail(r, lr, err, "unsupported value encoding");
  }
}

/* string_view: the dictionary bytes go to a shared block that batches keep
 * alive, and each entry gets its view once; pages then only gather views. */
static int load_view_dictionary(pm_pq_reader *r, leaf_reader *lr, size_t n, pm_error *err) {
  size_t bytes = lr->voffsets[n];
  if (bytes > INT32_MAX) return lr_fail(r, lr, err, "dictionary larger than 2 GiB");
  view_block *b = lr->dblock;
  /* Reuse the block only when no batch holds it any more (a count of 1 can
   * only stay 1: batches never take new references themselves). */
  if (!b || atomic_load(&b->refs) != 1 || b->cap < bytes) {
    vblock_unref(b);
    lr->dblock = NULL;
    b = malloc(sizeof *b + bytes + 16);
    if (!b) return PM_NOMEM(err);
    atomic_init(&b->refs, 1);
    b->cap = bytes;
    lr->dblock = b;
  }
  b->len = bytes;
  memcpy(b->data, lr->vbytes, bytes);
  PM_TRY(GROW(lr->dict_views, lr->dict_views_cap, n * 16 + 16, err));
  const uint32_t *vo = lr->voffsets;
  for (size_t i = 0; i < n; i++) {
    uint8_t *v = lr->dict_views + i * 16;
    int32_t l = (int32_t)(vo[i + 1] - vo[i]);
    memset(v, 0, 16);
    memcpy(v, &l, 4);
    if (l <= 12) {
      memcpy(v + 4, b->data + vo[i], (size_t)l);
    } else {
      int32_t off = (int32_t)vo[i];
      memcpy(v + 4, b->data + vo[i], 4);
      memcpy(v + 12, &off, 4); /* buffer index (bytes 8..11) stays 0 */
    }
  }
  lr->dict_views_buf = 0;
  lr->dict_n = n;
  return 0;
}

static int load_dictionary(pm_pq_reader *r, leaf_reader *lr, const pm_pq_page_header *h, uint8_t *data, size_t len,
                           pm_error *err) {
  if (h->encoding != PM_PQ_ENC_PLAIN && h->encoding != PM_PQ_ENC_PLAIN_DICTIONARY)
    return lr_fail(r, lr, err, "dictionary page with an unsupported encoding");
  size_t n = (size_t)h->num_values;
  if (lr->phys == PM_PQ_BOOLEAN) return lr_fail(r, lr, err, "dictionary page for a BOOLEAN column");
  PM_TRY(decode_values(r, lr, PM_PQ_ENC_PLAIN, data, len, n, err));
  if (lr->vsource == VS_BINARY && lr->view) {
    PM_TRY(load_view_dictionary(r, lr, n, err));
  } else if (lr->vsource == VS_BINARY) {
    size_t bytes = lr->voffsets[n];
    PM_TRY(GROW(lr->dict, lr->dict_cap, bytes + DICT_SLACK, err));
    memcpy(lr->dict, lr->vbytes, bytes);
    PM_TRY(GROW(lr->dict_offsets, lr->dict_offsets_cap, (n + 1) * sizeof(uint32_t), err));
    memcpy(lr->dict_offsets, lr->voffsets, (n + 1) * sizeof(uint32_t));
    uint32_t mx = 0;
    for (size_t i = 0; i < n; i++) {
      uint32_t l = lr->voffsets[i + 1] - lr->voffsets[i];
      mx = l > mx ? l : mx;
    }
    lr->dict_max_len = mx;
  } else {
    size_t bytes = n * (size_t)lr->width;
    PM_TRY(GROW(lr->dict, lr->dict_cap, bytes + 16, err));
    if (lr->vraw) convert_fixed(lr, lr->vfixed, n, lr->dict);
    else memcpy(lr->dict, lr->vfixed, bytes);
  }
  lr->dict_n = n;
  lr->has_dict = 1;
  lr->vsource = VS_NONE;
  return 0;
}

/* Bounds the uncompressed size a page header may claim before anything is
 * allocated: codecs cannot expand beyond a known ratio (zstd frames may state
 * their content size, which must then match). Small pages always pass. */
static int plausible_size(pm_codec codec, const uint8_t *src, size_t clen, size_t usize, int stored) {
  if (usize <= ((size_t)1 << 20)) return 1;
  if (codec == PM_CODEC_NONE || stored) return usize <= clen + ((size_t)1 << 20);
  size_t ratio;
  switch (codec) {
    case PM_CODEC_SNAPPY: ratio = 32; break;
    case PM_CODEC_LZ4_RAW:
    case PM_CODEC_LZ4_HADOOP: ratio = 256; break;
    case PM_CODEC_ZSTD: {
      unsigned long long cs = ZSTD_getFrameContentSize(src, clen);
      if (cs == (unsigned long long)usize) return 1;
      ratio = 2048;
      break;
    }
    default: ratio = 1100; break; /* deflate's maximum is about 1032 */
  }
  return clen > 0 && usize / ratio <= clen;
}

/* Pages are decompressed into a reference-counted block. Batches may point
 * into it instead of copying values out (take_values) when the page holds
 * plain flat 4/8-byte values that need no conversion. */
static int page_can_be_shared(const leaf_reader *lr, const pm_pq_page_header *h) {
  return (h->type == PM_PQ_PAGE_DATA || h->type == PM_PQ_PAGE_DATA_V2) && h->encoding == PM_PQ_ENC_PLAIN &&
         lr->max_rep == 0 && lr->out_kind == OUT_FIXED && lr->conv == CV_COPY && !lr->view &&
         (lr->phys == PM_PQ_INT32 || lr->phys == PM_PQ_INT64 || lr->phys == PM_PQ_FLOAT || lr->phys == PM_PQ_DOUBLE) &&
         lr->width == lr->phys_width;
}

/* Makes lr->pblock a block of at least `need` bytes that no batch holds
 * (a count of 1 can only stay 1: batches never take new references). */
static int page_block(leaf_reader *lr, size_t need, pm_error *err) {
  view_block *b = lr->pblock;
  if (b && atomic_load(&b->refs) == 1 && b->cap >= need) return 0;
  /* headroom: pages of a column differ a little in size */
  size_t cap = need + need / 4;
  if (b && b->cap > cap) cap = b->cap;
  vblock_unref(b);
  lr->pblock = NULL;
  b = malloc(sizeof *b + cap);
  if (!b) return PM_NOMEM(err);
  atomic_init(&b->refs, 1);
  b->cap = cap;
  b->len = 0;
  lr->pblock = b;
  return 0;
}

/* Loads the next data page. *skip_rows (may be NULL) lets whole pages whose
 * row count is known be skipped without decoding: they are subtracted.
 * Returns 0 with lr->page_levels > 0, or 1 at the end of the chunk. */
static int lr_next_page(pm_pq_reader *r, leaf_reader *lr, int64_t *skip_rows, pm_error *err) {
  for (;;) {
    if (lr->chunk_pos >= lr->chunk_len) return 1;
    pm_pq_page_header h;
    size_t hlen;
    lr->page_off = lr->chunk_off + lr->chunk_pos;
    PM_TRY(pm_pq_page_header_parse(lr->chunk + lr->chunk_pos, lr->chunk_len - lr->chunk_pos, lr->page_off, r->path,
                                   &h, &hlen, err));
    size_t remain = lr->chunk_len - lr->chunk_pos - hlen;
    if ((size_t)h.compressed_size > remain)
      return lr_fail(r, lr, err, "page size extends beyond the column chunk");
    uint8_t *body = lr->chunk + lr->chunk_pos + hlen;
    size_t clen = (size_t)h.compressed_size;
    lr->chunk_pos += hlen + clen;
    if (h.type != PM_PQ_PAGE_DATA && h.type != PM_PQ_PAGE_DATA_V2 && h.type != PM_PQ_PAGE_DICTIONARY) continue;
    if (!h.has_data_header) return lr_fail(r, lr, err, "page header lacks its type-specific header");
    if ((size_t)h.uncompressed_size > MAX_PAGE_BYTES) return lr_fail(r, lr, err, "uncompressed page size too large");
    if (!plausible_size(lr->codec, body, clen, (size_t)h.uncompressed_size, h.type == PM_PQ_PAGE_DATA_V2 && !h.is_compressed))
      return lr_fail(r, lr, err, "uncompressed page size implausible for its compressed size");
    if ((size_t)h.num_values > (size_t)h.uncompressed_size * 8 + MAX_PAGE_VALUES_SLACK)
      return lr_fail(r, lr, err, "page value count implausible for its size");
    if (r->opt.verify_crc && h.has_crc) {
      uint32_t crc = (uint32_t)crc32(0L, body, (uInt)clen);
      if (crc != (uint32_t)h.crc) return lr_fail(r, lr, err, "page CRC mismatch");
    }
    if (h.type != PM_PQ_PAGE_DICTIONARY && skip_rows && *skip_rows > 0) {
      int64_t rows = -1;
      if (h.type == PM_PQ_PAGE_DATA_V2 && h.num_rows > 0) rows = h.num_rows;
      else if (lr->max_rep == 0) rows = h.num_values;
      if (rows >= 0 && rows <= *skip_rows) {
        *skip_rows -= rows;
        continue;
      }
    }
    int v2 = h.type == PM_PQ_PAGE_DATA_V2;
    size_t levels_len = 0;
    if (v2) {
      levels_len = (size_t)h.def_len + (size_t)h.rep_len;
      if (levels_len > clen || levels_len > (size_t)h.uncompressed_size)
        return lr_fail(r, lr, err, "v2 level lengths exceed the page");
    }
    uint8_t *data;
    size_t dlen = (size_t)h.uncompressed_size - levels_len;
    int compressed = lr->codec != PM_CODEC_NONE && (!v2 || h.is_compressed);
    lr->page_shared = 0;
    if (compressed) {
      /* The batch being built may hold the previous page: copy its values
       * out so that the block is reused rather than a new one allocated. */
      if (lr->out.ext && lr->out.ext == lr->pblock) PM_TRY(col_values_materialize(&lr->out, (size_t)lr->width, err));
      PM_TRY(page_block(lr, dlen + 16, err));
      PM_TRY(decompress(r, lr, body + levels_len, clen - levels_len, lr->pblock->data, dlen, err));
      data = lr->pblock->data;
      lr->page_shared = page_can_be_shared(lr, &h);
    } else {
      if (clen != (size_t)h.uncompressed_size) return lr_fail(r, lr, err, "uncompressed page sizes differ");
      data = body + levels_len;
    }
    if (h.type == PM_PQ_PAGE_DICTIONARY) {
      PM_TRY(load_dictionary(r, lr, &h, data, dlen, err));
      continue;
    }
    size_t n = (size_t)h.num_values;
    if (n == 0) continue;
    /* levels */
    size_t used = 0;
    if (n * sizeof(int16_t) + 64 > lr->levels_cap) {
      size_t cap = n * sizeof(int16_t) + 64;
      int16_t *nd = realloc(lr->page_def, cap);
      if (!nd) return PM_NOMEM(err);
      lr->page_def = nd;
      int16_t *nr = realloc(lr->page_rep, cap);
      if (!nr) return PM_NOMEM(err);
      lr->page_rep = nr;
      lr->levels_cap = cap;
    }
    const uint8_t *vp;
    size_t vlen;
    int all_defined = 0;
    if (v2) {
      if (lr->max_rep > 0) {
        pm_pq_rle d;
        pm_pq_rle_init(&d, body, (size_t)h.rep_len, pm_pq_bit_width((uint32_t)lr->max_rep));
        if (pm_pq_rle_i16(&d, lr->page_rep, n)) return lr_fail(r, lr, err, "RLE repetition levels run past their data");
      }
      if (lr->max_def > 0) {
        int w = pm_pq_bit_width((uint32_t)lr->max_def);
        if (lr->max_rep == 0 && rle_is_constant(body + h.rep_len, (size_t)h.def_len, w, (uint32_t)lr->max_def, n)) {
          all_defined = 1;
        } else {
          pm_pq_rle d;
          pm_pq_rle_init(&d, body + h.rep_len, (size_t)h.def_len, w);
          if (pm_pq_rle_i16(&d, lr->page_def, n)) return lr_fail(r, lr, err, "RLE definition levels run past their data");
        }
      }
      vp = data;
      vlen = dlen;
    } else {
      size_t pos = 0;
      if (lr->max_rep > 0) {
        PM_TRY(decode_levels_v1(r, lr, data, dlen, h.rep_encoding, lr->max_rep, lr->page_rep, n, &used, err));
        pos += used;
      }
      if (lr->max_def > 0) {
        uint32_t l = dlen - pos >= 4 ? rd32(data + pos) : 0;
        if (lr->max_rep == 0 && h.def_encoding == PM_PQ_ENC_RLE && dlen - pos >= 4 && l <= dlen - pos - 4 &&
            rle_is_constant(data + pos + 4, l, pm_pq_bit_width((uint32_t)lr->max_def), (uint32_t)lr->max_def, n)) {
          all_defined = 1;
          used = 4 + (size_t)l;
        } else {
          PM_TRY(decode_levels_v1(r, lr, data + pos, dlen - pos, h.def_encoding, lr->max_def, lr->page_def, n, &used,
                                  err));
        }
        pos += used;
      }
      vp = data + pos;
      vlen = dlen - pos;
    }
    size_t nvals = n;
    if (lr->max_def > 0 && !all_defined) {
      int64_t c = pm_pq_count_max_levels(lr->page_def, n, (int16_t)lr->max_def);
      if (c < 0) return lr_fail(r, lr, err, "definition level above the column's maximum");
      nvals = (size_t)c;
    }
    if (lr->max_rep > 0) PM_TRY(check_levels(r, lr, lr->page_rep, n, lr->max_rep, err));
    int enc = h.encoding;
    if (enc == PM_PQ_ENC_PLAIN_DICTIONARY || enc == PM_PQ_ENC_RLE_DICTIONARY) {
      if (!lr->has_dict) return lr_fail(r, lr, err, "dictionary-encoded page without a dictionary page");
      if (nvals > 0) {
        if (vlen < 1) return lr_fail(r, lr, err, "missing dictionary index bit width");
        int w = vp[0];
        if (w > 32) return lr_fail(r, lr, err, "dictionary index bit width above 32");
        /* indices are decoded as the values are taken (next_indices) */
        pm_pq_rle_init(&lr->idx_dec, vp + 1, vlen - 1, w);
      }
      lr->vsource = VS_DICT;
    } else {
      PM_TRY(decode_values(r, lr, enc, (uint8_t *)vp, vlen, nvals, err));
    }
    lr->page_levels = n;
    lr->page_all_defined = all_defined;
    lr->level_pos = 0;
    lr->page_nvals = nvals;
    lr->value_pos = 0;
    return 0;
  }
}

typedef struct view16 {
  uint64_t lo, hi;
} view16;

/* Index of variadic buffer b (NULL = the batch's copy buffer) in the batch
 * being built, adding it (with a reference) on first use. */
static int view_source(leaf_reader *lr, view_block *b, int *idx, pm_error *err) {
  if (!b && lr->copy_idx >= 0) {
    *idx = lr->copy_idx;
    return 0;
  }
  for (int i = lr->n_vsrc; b && i-- > 0;)
    if (lr->vsrc[i] == b) {
      *idx = i;
      return 0;
    }
  PM_TRY(GROW(lr->vsrc, lr->vsrc_cap, (size_t)(lr->n_vsrc + 1) * sizeof(view_block *), err));
  if (b) atomic_fetch_add(&b->refs, 1);
  else lr->copy_idx = lr->n_vsrc;
  lr->vsrc[lr->n_vsrc] = b;
  *idx = lr->n_vsrc++;
  return 0;
}

/* Drops the variadic buffers gathered for an unfinished batch. */
static void view_batch_reset(leaf_reader *lr) {
  for (int i = 0; i < lr->n_vsrc; i++) vblock_unref(lr->vsrc[i]);
  lr->n_vsrc = 0;
  lr->copy_idx = -1;
  lr->vcopy.len = 0;
}

/* Decodes the dictionary indices of the next k values of the page into
 * lr->idx[0..k): indices go from the page to the batch while they are in
 * the cache, and no page-sized index buffer is needed. */
static int next_indices(pm_pq_reader *r, leaf_reader *lr, size_t k, pm_error *err) {
  PM_TRY(GROW(lr->idx, lr->idx_cap, k * sizeof(uint32_t) + 64, err));
  int rc = pm_pq_rle_u32_checked(&lr->idx_dec, lr->idx, k, (uint32_t)lr->dict_n);
  if (rc == -2) return lr_fail(r, lr, err, "dictionary index out of range");
  if (rc) return lr_fail(r, lr, err, "dictionary indices run past the end of the page");
  return 0;
}

/* Skips the dictionary indices of k values (rows not read). */
static int skip_indices(pm_pq_reader *r, leaf_reader *lr, size_t k, pm_error *err) {
  while (k > 0) {
    size_t c = k < 4096 ? k : 4096;
    PM_TRY(next_indices(r, lr, c, err));
    k -= c;
  }
  return 0;
}

/* string_view: appends k views. Dictionary values point into the shared
 * dictionary block; other values are inlined (<= 12 bytes) or copied once
 * into the batch's copy buffer. */
static int take_views(pm_pq_reader *r, leaf_reader *lr, size_t k, pm_error *err) {
  col_values *o = &lr->out;
  PM_TRY(pm_buf_reserve(&o->values, k * 16 + 16));
  view16 *dst = (view16 *)(void *)(o->values.data + o->values.len);
  int vi;
  if (lr->vsource == VS_DICT) {
    PM_TRY(next_indices(r, lr, k, err));
    PM_TRY(view_source(lr, lr->dblock, &vi, err));
    if (vi != lr->dict_views_buf) {
      int32_t bi = vi;
      for (size_t i = 0; i < lr->dict_n; i++) {
        uint8_t *v = lr->dict_views + i * 16;
        int32_t l;
        memcpy(&l, v, 4);
        if (l > 12) memcpy(v + 8, &bi, 4);
      }
      lr->dict_views_buf = vi;
    }
    const uint32_t *ix = lr->idx;
    const view16 *dv = (const view16 *)(const void *)lr->dict_views;
    for (size_t i = 0; i < k; i++) dst[i] = dv[ix[i]];
  } else {
    PM_TRY(view_source(lr, NULL, &vi, err));
    const uint32_t *vo = lr->voffsets + lr->value_pos;
    size_t bytes = vo[k] - vo[0];
    if (lr->vcopy.len + bytes > INT32_MAX)
      return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: column '%s': batch exceeds 2 GiB of binary data; use a smaller batch size",
                       r->path, lr->info->path);
    PM_TRY(pm_buf_reserve(&lr->vcopy, bytes + 16));
    int32_t bi = vi;
    for (size_t i = 0; i < k; i++) {
      const uint8_t *src = lr->vbytes + vo[i];
      int32_t l = (int32_t)(vo[i + 1] - vo[i]);
      uint8_t v[16];
      memset(v, 0, 16);
      memcpy(v, &l, 4);
      if (l <= 12) {
        memcpy(v + 4, src, (size_t)l);
      } else {
        int32_t off = (int32_t)lr->vcopy.len;
        memcpy(v + 4, src, 4);
        memcpy(v + 8, &bi, 4);
        memcpy(v + 12, &off, 4);
        memcpy(lr->vcopy.data + lr->vcopy.len, src, (size_t)l);
        lr->vcopy.len += (size_t)l;
      }
      memcpy(dst + i, v, 16);
    }
  }
  o->values.len += k * 16;
  o->n_values += k;
  return 0;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define PM_PQ_X86_WIDE 1
/* Dictionary strings of at most blocks * 64 bytes, each copied as `blocks`
 * 64-byte blocks: no length-dependent branch (which mispredicts on strings
 * of varying length) and one vector store per block. Writes and reads up to
 * blocks * 64 bytes from a value's start (the output's and the dictionary's
 * slack). Compiled for AVX-512 and called only when the CPU has it. */
__attribute__((target("avx512f"))) static size_t gather_blocks64(const uint32_t *dofs, const uint32_t *ix, size_t k,
                                                                  const uint8_t *dict, uint8_t *dst, int32_t *offs,
                                                                  uint64_t base, unsigned blocks) {
  size_t pos = 0;
#define GATHER_BLOCKS(B)                                                                   \
  for (size_t i = 0; i < k; i++) {                                                        \
    uint32_t a = dofs[ix[i]], l = dofs[ix[i] + 1] - a;                                    \
    for (unsigned q = 0; q < (B); q++) memcpy(dst + pos + 64 * q, dict + a + 64 * q, 64); \
    pos += l;                                                                             \
    offs[i] = (int32_t)(base + pos);                                                      \
  }
  /* From three blocks on, the last block is copied only for the values that
   * reach into it: fewer stores outweigh that branch's mispredictions. */
#define GATHER_BLOCKS_TAIL(B)                                                                  \
  for (size_t i = 0; i < k; i++) {                                                            \
    uint32_t a = dofs[ix[i]], l = dofs[ix[i] + 1] - a;                                        \
    for (unsigned q = 0; q + 1 < (B); q++) memcpy(dst + pos + 64 * q, dict + a + 64 * q, 64); \
    if (l > 64 * ((B) - 1)) memcpy(dst + pos + 64 * ((B) - 1), dict + a + 64 * ((B) - 1), 64); \
    pos += l;                                                                                 \
    offs[i] = (int32_t)(base + pos);                                                          \
  }
  switch (blocks) {
    case 1: GATHER_BLOCKS(1) break;
    case 2: GATHER_BLOCKS(2) break;
    case 3: GATHER_BLOCKS_TAIL(3) break;
    default: GATHER_BLOCKS_TAIL(4) break;
  }
#undef GATHER_BLOCKS
#undef GATHER_BLOCKS_TAIL
  return pos;
}
#else
#define PM_PQ_X86_WIDE 0
#endif

/* Appends k values starting at the page's value_pos to the output. */
static int take_values(pm_pq_reader *r, leaf_reader *lr, size_t k, pm_error *err) {
  col_values *o = &lr->out;
  if (k == 0) return 0;
  if (lr->view) return take_views(r, lr, k, err);
  if (lr->out_kind != OUT_BINARY) {
    size_t w = (size_t)lr->width;
    if (lr->vsource == VS_FIXED && lr->page_shared && o->n_values == 0) {
      /* The batch's first values, from a shared page: point into it. The
       * slice is aligned for its type, or copied as usual. */
      const uint8_t *src = lr->vfixed + lr->value_pos * w;
      if (((uintptr_t)src & (w - 1)) == 0) {
        atomic_fetch_add(&lr->pblock->refs, 1);
        o->ext = lr->pblock;
        o->ext_ptr = src;
        o->n_values = k;
        return 0;
      }
    }
    PM_TRY(col_values_materialize(o, w, err));
    PM_TRY(pm_buf_reserve(&o->values, k * w + 16));
    uint8_t *dst = o->values.data + o->values.len;
    if (lr->vsource == VS_FIXED && lr->vraw) {
      convert_fixed(lr, lr->vfixed + lr->value_pos * (size_t)lr->phys_width, k, dst);
    } else if (lr->vsource == VS_FIXED) {
      memcpy(dst, lr->vfixed + lr->value_pos * w, k * w);
    } else {
      PM_TRY(next_indices(r, lr, k, err));
      const uint32_t *ix = lr->idx;
      const uint8_t *dict = lr->dict;
      switch (w) {
        case 1:
          for (size_t i = 0; i < k; i++) dst[i] = dict[ix[i]];
          break;
        case 2: {
          uint16_t *d = (uint16_t *)(void *)dst;
          const uint16_t *s = (const uint16_t *)(const void *)dict;
          for (size_t i = 0; i < k; i++) d[i] = s[ix[i]];
          break;
        }
        case 4: {
          uint32_t *d = (uint32_t *)(void *)dst;
          const uint32_t *s = (const uint32_t *)(const void *)dict;
          for (size_t i = 0; i < k; i++) d[i] = s[ix[i]];
          break;
        }
        case 8: {
          uint64_t *d = (uint64_t *)(void *)dst;
          const uint64_t *s = (const uint64_t *)(const void *)dict;
          for (size_t i = 0; i < k; i++) d[i] = s[ix[i]];
          break;
        }
        default:
          for (size_t i = 0; i < k; i++) memcpy(dst + i * w, dict + (size_t)ix[i] * w, w);
      }
    }
    o->values.len += k * w;
  } else {
    if (o->offsets.len == 0) {
      PM_TRY(pm_buf_reserve(&o->offsets, 4 * 1024));
      int32_t z = 0;
      pm_buf_append(&o->offsets, &z, 4);
    }
    PM_TRY(pm_buf_reserve(&o->offsets, k * 4 + 8));
    int32_t *offs = (int32_t *)(void *)(o->offsets.data + o->offsets.len);
    uint64_t base = o->values.len;
    if (lr->vsource == VS_BINARY) {
      const uint32_t *vo = lr->voffsets + lr->value_pos;
      size_t bytes = vo[k] - vo[0];
      if (base + bytes > INT32_MAX)
        return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: column '%s': batch exceeds 2 GiB of binary data; use a smaller batch size",
                         r->path, lr->info->path);
      PM_TRY(pm_buf_append(&o->values, lr->vbytes + vo[0], bytes));
      int64_t delta = (int64_t)base - (int64_t)vo[0];
      for (size_t i = 0; i < k; i++) offs[i] = (int32_t)((int64_t)vo[i + 1] + delta);
    } else {
      PM_TRY(next_indices(r, lr, k, err));
      const uint32_t *ix = lr->idx;
      const uint32_t *dofs = lr->dict_offsets;
#if PM_PQ_X86_WIDE
      if (r->wide_copies && lr->dict_max_len > 16 && lr->dict_max_len <= 256 &&
          base + (uint64_t)k * lr->dict_max_len + DICT_SLACK <= INT32_MAX) {
        /* room for k of the longest: no need to sum the lengths first */
        PM_TRY(pm_buf_reserve(&o->values, k * (size_t)lr->dict_max_len + DICT_SLACK));
        size_t pos = gather_blocks64(dofs, ix, k, lr->dict, o->values.data + base, offs, base,
                                     (lr->dict_max_len + 63) / 64);
        o->values.len += pos;
        o->offsets.len += k * 4;
        o->n_values += k;
        return 0;
      }
#endif
      if (lr->dict_max_len <= 64 && base + (uint64_t)k * 64 <= INT32_MAX) {
        /* Short values: room for k of the longest, so one pass copies
         * without first summing the lengths. */
        PM_TRY(pm_buf_reserve(&o->values, k * (size_t)lr->dict_max_len + 64));
        uint8_t *dst = o->values.data + base;
        size_t pos = 0;
        const uint8_t *dict = lr->dict; /* has 64 bytes of slack past its end */
        for (size_t i = 0; i < k; i++) {
          uint32_t a = dofs[ix[i]], l = dofs[ix[i] + 1] - a;
          memcpy(dst + pos, dict + a, 16);
          if (l > 16) {
            memcpy(dst + pos + 16, dict + a + 16, 16);
            if (l > 32) memcpy(dst + pos + 32, dict + a + 32, 32);
          }
          pos += l;
          offs[i] = (int32_t)(base + pos);
        }
        o->values.len += pos;
        o->offsets.len += k * 4;
        o->n_values += k;
        return 0;
      }
      uint64_t total = 0;
      for (size_t i = 0; i < k; i++) total += dofs[ix[i] + 1] - dofs[ix[i]];
      if (base + total > INT32_MAX)
        return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: column '%s': batch exceeds 2 GiB of binary data; use a smaller batch size",
                         r->path, lr->info->path);
      PM_TRY(pm_buf_reserve(&o->values, (size_t)total + 64));
      uint8_t *dst = o->values.data + base;
      size_t pos = 0;
      const uint8_t *dict = lr->dict; /* has 64 bytes of slack past its end */
      for (size_t i = 0; i < k; i++) {
        uint32_t a = dofs[ix[i]], l = dofs[ix[i] + 1] - a;
        /* Short values: fixed-size copies (inlined, may copy a little past
         * the value into the slack) instead of a library call per value. */
        if (l <= 16) {
          memcpy(dst + pos, dict + a, 16);
        } else if (l <= 256) {
          for (uint32_t q = 0; q < l; q += 32) memcpy(dst + pos + q, dict + a + q, 32);
        } else {
          memcpy(dst + pos, dict + a, l);
        }
        pos += l;
        offs[i] = (int32_t)(base + pos);
      }
      o->values.len += (size_t)total;
    }
    o->offsets.len += k * 4;
  }
  o->n_values += k;
  return 0;
}

/* Consumes k levels at the page position: appends them (and their values) when out. */
static int consume_levels(pm_pq_reader *r, leaf_reader *lr, size_t k, int out, pm_error *err) {
  col_values *o = &lr->out;
  size_t nv = k;
  if (lr->page_nvals == lr->page_levels) {
    nv = k; /* page without nulls */
  } else if (lr->max_def > 0 && k == lr->page_levels - lr->level_pos) {
    nv = lr->page_nvals - lr->value_pos; /* the rest of the page */
  } else if (lr->max_def > 0) {
    int64_t c = pm_pq_count_max_levels(lr->page_def + lr->level_pos, k, (int16_t)lr->max_def);
    nv = c < 0 ? SIZE_MAX : (size_t)c; /* levels were checked when the page was loaded */
  }
  if (nv > lr->page_nvals - lr->value_pos) return lr_fail(r, lr, err, "more non-null levels than values");
  if (out) {
    if (lr->max_def > 0) {
      if (o->def_all_max && (lr->max_rep > 0 || nv != k)) {
        /* first nulls (or repetition): materialize the levels so far */
        PM_TRY(pm_buf_reserve(&o->def, (o->n_levels + k) * sizeof(int16_t)));
        int16_t *d = (int16_t *)(void *)o->def.data;
        for (size_t i = 0; i < o->n_levels; i++) d[i] = (int16_t)lr->max_def;
        o->def.len = o->n_levels * sizeof(int16_t);
        o->def_all_max = 0;
      }
      if (!o->def_all_max) {
        if (lr->page_all_defined) {
          PM_TRY(pm_buf_reserve(&o->def, k * sizeof(int16_t)));
          int16_t *d = (int16_t *)(void *)(o->def.data + o->def.len);
          for (size_t i = 0; i < k; i++) d[i] = (int16_t)lr->max_def;
          o->def.len += k * sizeof(int16_t);
        } else {
          PM_TRY(pm_buf_append(&o->def, lr->page_def + lr->level_pos, k * sizeof(int16_t)));
        }
      }
    }
    if (lr->max_rep > 0) PM_TRY(pm_buf_append(&o->rep, lr->page_rep + lr->level_pos, k * sizeof(int16_t)));
    o->n_levels += k;
    PM_TRY(take_values(r, lr, nv, err));
  } else if (lr->vsource == VS_DICT && nv > 0) {
    PM_TRY(skip_indices(r, lr, nv, err));
  }
  lr->value_pos += nv;
  lr->level_pos += k;
  return 0;
}

static int fewer_rows(pm_pq_reader *r, leaf_reader *lr, pm_error *err) {
  return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: column '%s' row group %d has fewer values than its row count",
                   r->path, lr->info->path, lr->rg);
}

/* Reads (out != 0) or skips nrows records of a leaf column. A call always
 * ends at a record boundary: with repetition it looks ahead to the next
 * record start (or the chunk end), loading the next page when needed. */
static int lr_rows(pm_pq_reader *r, leaf_reader *lr, int64_t nrows, int out, pm_error *err) {
  if (lr->max_rep == 0) {
    while (nrows > 0) {
      if (lr->level_pos >= lr->page_levels) {
        int64_t skip = nrows;
        int rc = lr_next_page(r, lr, out ? NULL : &skip, err);
        if (rc == 1) return fewer_rows(r, lr, err);
        if (rc) return rc;
        if (!out) nrows = skip;
        continue;
      }
      size_t avail = lr->page_levels - lr->level_pos;
      size_t k = (uint64_t)nrows < avail ? (size_t)nrows : avail;
      PM_TRY(consume_levels(r, lr, k, out, err));
      nrows -= (int64_t)k;
    }
    return 0;
  }
  int64_t started = 0;
  for (;;) {
    if (lr->level_pos >= lr->page_levels) {
      int64_t skip = nrows;
      int can_skip = !out && started == 0;
      int rc = lr_next_page(r, lr, can_skip ? &skip : NULL, err);
      if (rc == 1) {
        if (can_skip) nrows = skip;
        if (started == nrows) return 0;
        return fewer_rows(r, lr, err);
      }
      if (rc) return rc;
      if (can_skip) nrows = skip;
      continue;
    }
    const int16_t *rp = lr->page_rep + lr->level_pos;
    size_t avail = lr->page_levels - lr->level_pos;
    if (started == 0 && rp[0] != 0) return lr_fail(r, lr, err, "record does not start with repetition level 0");
    size_t j = 0;
    int finished = 0;
    /* whole blocks of 16 levels that cannot finish the call */
    while (j + 16 <= avail) {
      int64_t z = (int64_t)pm_pq_pop16(pm_pq_lv_mask_eq16(rp + j, 0));
      if (started + z > nrows) break;
      started += z;
      j += 16;
    }
    for (; j < avail; j++) {
      if (rp[j] == 0) {
        if (started == nrows) {
          finished = 1;
          break;
        }
        started++;
      }
    }
    PM_TRY(consume_levels(r, lr, j, out, err));
    if (finished) return 0;
  }
}

/* ----------------------------------------------------------- assembly ---- */

/* ---------------------------------------------------- buffer recycling ---- */
/* Batch buffers go to the consumer, who releases them when done. Giving
 * them back to the allocator and asking again for the next batch makes the
 * kernel unmap and re-fault the pages every batch (a large share of a scan's
 * time), so released value buffers return to a small pool that the next
 * batches reuse. The pool lives while the reader or any batch holds it;
 * batches may be released from any thread, hence the mutex. */
#define POOL_MAX_BUFS 128
#define POOL_MAX_BYTES ((size_t)256 << 20)

typedef struct buf_pool {
  pthread_mutex_t mu;
  int refs;
  int n;
  size_t bytes;
  void *bufs[POOL_MAX_BUFS];
  size_t caps[POOL_MAX_BUFS];
} buf_pool;

typedef struct pooled_bufs {
  buf_pool *pool;
  int n;
  void *bufs[2];
  size_t caps[2];
} pooled_bufs;

static buf_pool *pool_new(void) {
  buf_pool *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  if (pthread_mutex_init(&p->mu, NULL)) {
    free(p);
    return NULL;
  }
  p->refs = 1;
  return p;
}

static void pool_destroy(buf_pool *p) {
  for (int i = 0; i < p->n; i++) pm_aligned_free(p->bufs[i]);
  pthread_mutex_destroy(&p->mu);
  free(p);
}

static void pool_unref(buf_pool *p) {
  if (!p) return;
  pthread_mutex_lock(&p->mu);
  int left = --p->refs;
  pthread_mutex_unlock(&p->mu);
  if (left == 0) pool_destroy(p);
}

/* Takes the smallest pooled buffer of at least `need` bytes into b (empty). */
static void pool_take(buf_pool *p, pm_buf *b, size_t need) {
  if (!p || b->data) return;
  pthread_mutex_lock(&p->mu);
  int best = -1;
  for (int i = 0; i < p->n; i++)
    if (p->caps[i] >= need && (best < 0 || p->caps[i] < p->caps[best])) best = i;
  if (best >= 0) {
    b->data = p->bufs[best];
    b->cap = p->caps[best];
    b->len = 0;
    p->bytes -= p->caps[best];
    p->n--;
    p->bufs[best] = p->bufs[p->n];
    p->caps[best] = p->caps[p->n];
  }
  pthread_mutex_unlock(&p->mu);
}

static void pooled_free(void *owner) {
  pooled_bufs *pb = owner;
  buf_pool *p = pb->pool;
  pthread_mutex_lock(&p->mu);
  for (int i = 0; i < pb->n; i++) {
    if (p->refs > 1 && p->n < POOL_MAX_BUFS && p->bytes + pb->caps[i] <= POOL_MAX_BYTES) {
      p->bufs[p->n] = pb->bufs[i];
      p->caps[p->n++] = pb->caps[i];
      p->bytes += pb->caps[i];
    } else {
      pm_aligned_free(pb->bufs[i]);
    }
  }
  int left = --p->refs;
  pthread_mutex_unlock(&p->mu);
  if (left == 0) pool_destroy(p);
  free(pb);
}

/* Hands the bytes of bufs[i] to array buffer slots[i]; they return to the
 * reader's pool when the array is released. Empties the pm_bufs. */
static int hand_out_buffers(pm_pq_reader *r, struct ArrowArray *a, pm_buf **bufs, const int *slots, int n,
                            pooled_bufs **out, pm_error *err) {
  pooled_bufs *pb = calloc(1, sizeof *pb);
  if (!pb) return PM_NOMEM(err);
  pb->pool = r->pool;
  pb->n = n;
  for (int i = 0; i < n; i++) {
    pb->bufs[i] = bufs[i]->data;
    pb->caps[i] = bufs[i]->cap;
    a->buffers[slots[i]] = bufs[i]->data;
    pm_buf_init(bufs[i]);
  }
  pthread_mutex_lock(&r->pool->mu);
  r->pool->refs++;
  pthread_mutex_unlock(&r->pool->mu);
  *out = pb;
  return 0;
}

static int give_buffers(pm_pq_reader *r, struct ArrowArray *a, pm_buf **bufs, const int *slots, int n,
                        pm_error *err) {
  pooled_bufs *pb;
  PM_TRY(hand_out_buffers(r, a, bufs, slots, n, &pb, err));
  pm_array_set_owner(a, pb, pooled_free);
  return 0;
}

/* Owner of a string-view array: its pooled buffers and its references to
 * shared dictionary blocks. */
typedef struct view_owner {
  pooled_bufs *pb;
  int n;
  view_block *blocks[];
} view_owner;

static void view_owner_free(void *p) {
  view_owner *vo = p;
  pooled_free(vo->pb);
  for (int i = 0; i < vo->n; i++) vblock_unref(vo->blocks[i]);
  free(vo);
}

static void col_values_free(col_values *o) {
  vblock_unref(o->ext);
  pm_buf_free(&o->def);
  pm_buf_free(&o->rep);
  pm_buf_free(&o->values);
  pm_buf_free(&o->offsets);
  memset(o, 0, sizeof *o);
}

static void col_values_reset(col_values *o) {
  vblock_unref(o->ext);
  o->ext = NULL;
  o->ext_ptr = NULL;
  o->def.len = o->rep.len = o->values.len = o->offsets.len = 0;
  o->n_levels = o->n_values = 0;
  o->def_all_max = 1;
}

static uint8_t *pack_bitmap(const uint8_t *valid, size_t n) {
  uint8_t *bm = pm_aligned_alloc((n + 7) / 8 + 8);
  if (!bm) return NULL;
  size_t i = 0, b = 0;
#if defined(__SSE2__)
  for (; i + 16 <= n; i += 16, b += 2) {
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(valid + i));
    unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpgt_epi8(x, _mm_setzero_si128()));
    bm[b] = (uint8_t)m;
    bm[b + 1] = (uint8_t)(m >> 8);
  }
#endif
  for (; i + 8 <= n; i += 8, b++) {
    const uint8_t *v = valid + i;
    bm[b] = (uint8_t)(v[0] | v[1] << 1 | v[2] << 2 | v[3] << 3 | v[4] << 4 | v[5] << 5 | v[6] << 6 | v[7] << 7);
  }
  if (i < n) {
    uint8_t x = 0;
    for (size_t j = 0; i + j < n; j++) x |= (uint8_t)(valid[i + j] << j);
    bm[b] = x;
  }
  return bm;
}

typedef struct asm_ctx {
  pm_pq_reader *r;
  pm_error *err;
  uint8_t *valid; /* scratch: one byte per slot */
  size_t valid_cap;
} asm_ctx;

/* Computes slot validity for node n from its representative leaf's levels.
 * Returns the number of slots; *valid_out gets one byte per slot. */
static int node_slots(asm_ctx *c, const anode *n, size_t *n_slots, size_t *n_null) {
  leaf_reader *lr = &c->r->leaves[n->rep_leaf];
  const col_values *o = &lr->out;
  size_t L = o->n_levels;
  const int16_t *def = lr->max_def > 0 && !o->def_all_max ? (const int16_t *)(const void *)o->def.data : NULL;
  const int16_t *rep = lr->max_rep > 0 ? (const int16_t *)(const void *)o->rep.data : NULL;
  const int16_t dfill = (int16_t)lr->max_def; /* the level when def is not stored */
  PM_TRY(GROW(c->valid, c->valid_cap, L + 64, c->err));
  uint8_t *v = c->valid;
  size_t s = 0, nulls = 0;
  int16_t dp = (int16_t)n->def_present, ad = (int16_t)n->anc_def, ar = (int16_t)n->anc_rep;
  if (!def && !rep) {
    /* every level is dfill: all slots or none, all valid or all null */
    if (dfill >= ad) {
      uint8_t ok = dfill >= dp;
      memset(v, ok, L);
      s = L;
      nulls = ok ? 0 : L;
    }
  } else if (!rep && ad == 0) {
    /* one slot per level */
    size_t ones = 0, i = 0;
    for (; i + 16 <= L; i += 16) ones += pm_pq_pop16(pm_pq_lv_bytes_gt16(v + i, def + i, (int16_t)(dp - 1)));
    for (; i < L; i++) {
      uint8_t x = def[i] >= dp;
      v[i] = x;
      ones += x;
    }
    nulls = L - ones;
    s = L;
  } else {
    /* Blocks of 16 levels: a mask of the levels that are slots of this node
     * (S) and of those where it is non-null (V). A block of slots only (the
     * common case below a list) stores 16 validity bytes at once; otherwise
     * the slots are picked out bit by bit. */
    const uint8_t okfill = dfill >= dp;
    const unsigned sfill = dfill >= ad ? 0xffffu : 0;
    size_t i = 0;
    for (; i + 16 <= L; i += 16) {
      unsigned S = def ? (ad > 0 ? pm_pq_lv_mask_gt16(def + i, (int16_t)(ad - 1)) : 0xffffu) : sfill;
      if (rep) S &= ~pm_pq_lv_mask_gt16(rep + i, ar) & 0xffffu;
      if (S == 0xffffu) {
        unsigned V;
        if (def) {
          V = pm_pq_lv_bytes_gt16(v + s, def + i, (int16_t)(dp - 1));
        } else {
          memset(v + s, okfill, 16);
          V = okfill ? 0xffffu : 0;
        }
        nulls += 16 - pm_pq_pop16(V);
        s += 16;
      } else if (S) {
        unsigned V = def ? pm_pq_lv_mask_gt16(def + i, (int16_t)(dp - 1)) : (okfill ? 0xffffu : 0);
        nulls += pm_pq_pop16(S & ~V);
        do {
          unsigned j = (unsigned)__builtin_ctz(S);
          v[s++] = (uint8_t)((V >> j) & 1u);
          S &= S - 1;
        } while (S);
      }
    }
    for (; i < L; i++) {
      int16_t d = def ? def[i] : dfill, rr = rep ? rep[i] : 0;
      if (d >= ad && rr <= ar) {
        uint8_t ok = d >= dp;
        v[s++] = ok;
        nulls += !ok;
      }
    }
  }
  *n_slots = s;
  *n_null = nulls;
  return 0;
}

static int build_array(asm_ctx *c, const anode *n, struct ArrowArray *out, int64_t *length);

static int build_leaf(asm_ctx *c, const anode *n, struct ArrowArray *out, int64_t *length) {
  leaf_reader *lr = &c->r->leaves[n->leaf_slot];
  col_values *o = &lr->out;
  size_t slots, nulls;
  PM_TRY(node_slots(c, n, &slots, &nulls));
  lr->slots_hint = slots;
  if (slots - nulls != o->n_values)
    return pm_errorf(c->err, PAIMON_ERR_CORRUPT, "%s: column '%s' row group %d: levels and values disagree", c->r->path,
                     lr->info->path, lr->rg);
  const uint8_t *valid = c->valid;
  uint8_t *bitmap = NULL;
  if (nulls) {
    bitmap = pack_bitmap(valid, slots);
    if (!bitmap) return PM_NOMEM(c->err);
  }
  int nb = lr->view ? 2 + lr->n_vsrc + 1 : lr->out_kind == OUT_BINARY ? 3 : 2;
  int irc = pm_array_init(out, (int64_t)slots, nb, 0, c->err);
  if (irc) {
    pm_aligned_free(bitmap);
    return irc;
  }
  out->null_count = (int64_t)nulls;
  pm_array_set_buffer(out, 0, bitmap);
  size_t nv = o->n_values;
  if (lr->view) {
    PM_TRY(pm_buf_reserve(&o->values, (slots - nv) * 16 + 16));
    view16 *t = (view16 *)(void *)o->values.data;
    if (nulls) {
      size_t j = nv;
      const view16 zero = {0, 0};
      for (size_t i = slots; i-- > 0;) {
        j -= valid[i];
        t[i] = valid[i] ? t[j] : zero;
      }
    }
    int nvar = lr->n_vsrc;
    int64_t *sizes = pm_aligned_alloc((size_t)nvar * 8 + 8);
    view_owner *own = calloc(1, sizeof *own + (size_t)nvar * sizeof(view_block *));
    if (!sizes || !own || (lr->copy_idx >= 0 && pm_buf_reserve(&lr->vcopy, 16))) {
      pm_aligned_free(sizes);
      free(own);
      return PM_NOMEM(c->err);
    }
    pm_array_set_buffer(out, 2 + nvar, sizes);
    for (int i = 0; i < nvar; i++) {
      view_block *b = lr->vsrc[i];
      sizes[i] = b ? (int64_t)b->len : (int64_t)lr->vcopy.len;
      if (b) out->buffers[2 + i] = b->data; /* not owned by the array: kept alive by `own` */
    }
    pm_buf *bufs[2] = {&o->values, &lr->vcopy};
    const int slots_of[2] = {1, 2 + lr->copy_idx};
    int rc = hand_out_buffers(c->r, out, bufs, slots_of, lr->copy_idx >= 0 ? 2 : 1, &own->pb, c->err);
    if (rc) {
      free(own);
      return rc;
    }
    for (int i = 0; i < nvar; i++)
      if (lr->vsrc[i]) own->blocks[own->n++] = lr->vsrc[i]; /* the batch's references move to the array */
    lr->n_vsrc = 0;
    lr->copy_idx = -1;
    pm_array_set_owner(out, own, view_owner_free);
  } else if (lr->out_kind == OUT_FIXED && o->ext && !nulls) {
    out->buffers[1] = o->ext_ptr; /* not owned by the array: the block reference is */
    pm_array_set_owner(out, o->ext, vblock_unref_owner);
    o->ext = NULL;
    o->ext_ptr = NULL;
  } else if (lr->out_kind == OUT_FIXED) {
    size_t w = (size_t)lr->width;
    PM_TRY(col_values_materialize(o, w, c->err));
    PM_TRY(pm_buf_reserve(&o->values, (slots - nv) * w + 16));
    uint8_t *d = o->values.data;
    if (nulls) {
      memset(d + nv * w, 0, (slots - nv) * w);
      size_t j = nv;
#define SPREAD(T)                                       \
  {                                                     \
    T *t = (T *)(void *)d;                              \
    for (size_t i = slots; i-- > 0;) {                  \
      j -= valid[i];                                    \
      t[i] = valid[i] ? t[j] : 0;                       \
    }                                                   \
  }
      if (w == 1) SPREAD(uint8_t)
      else if (w == 2) SPREAD(uint16_t)
      else if (w == 4) SPREAD(uint32_t)
      else if (w == 8) SPREAD(uint64_t)
      else {
        for (size_t i = slots; i-- > 0;) {
          if (valid[i]) {
            j--;
            if (j != i) memmove(d + i * w, d + j * w, w);
          } else {
            memset(d + i * w, 0, w);
          }
        }
      }
#undef SPREAD
    }
    if (o->values.len == 0 && o->values.data == NULL) PM_TRY(pm_buf_reserve(&o->values, 16));
    pm_buf *bufs[1] = {&o->values};
    const int slots_of[1] = {1};
    PM_TRY(give_buffers(c->r, out, bufs, slots_of, 1, c->err));
  } else if (lr->out_kind == OUT_BOOL) {
    const uint8_t *vals = o->values.data; /* 0/1 bytes */
    uint8_t *bits;
    if (nulls == 0) {
      bits = pack_bitmap(vals, slots);
      if (!bits) return PM_NOMEM(c->err);
    } else {
      bits = pm_aligned_alloc((slots + 7) / 8 + 8);
      if (!bits) return PM_NOMEM(c->err);
      memset(bits, 0, (slots + 7) / 8 + 8);
      size_t j = 0;
      for (size_t i = 0; i < slots; i++) { /* branch-free: random booleans mispredict */
        uint8_t v = valid[i];
        uint8_t x = j < nv ? vals[j] : 0;
        bits[i >> 3] |= (uint8_t)((v & x) << (i & 7));
        j += v;
      }
    }
    pm_array_set_buffer(out, 1, bits);
  } else {
    if (o->offsets.len == 0) {
      int32_t z = 0;
      PM_TRY(pm_buf_append(&o->offsets, &z, 4));
    }
    PM_TRY(pm_buf_reserve(&o->offsets, (slots - nv) * 4 + 16));
    int32_t *of = (int32_t *)(void *)o->offsets.data;
    if (nulls) {
      size_t j = nv;
      for (size_t i = slots; i-- > 0;) {
        of[i + 1] = of[j];
        j -= valid[i];
      }
      of[0] = 0;
    }
    if (o->values.data == NULL) PM_TRY(pm_buf_reserve(&o->values, 16));
    lr->bytes_hint = o->values.len;
    pm_buf *bufs[2] = {&o->offsets, &o->values};
    const int slots_of[2] = {1, 2};
    PM_TRY(give_buffers(c->r, out, bufs, slots_of, 2, c->err));
  }
  *length = (int64_t)slots;
  return 0;
}

static int build_array(asm_ctx *c, const anode *n, struct ArrowArray *out, int64_t *length) {
  if (n->kind == AN_LEAF) return build_leaf(c, n, out, length);
  size_t slots, nulls;
  PM_TRY(node_slots(c, n, &slots, &nulls));
  uint8_t *bitmap = NULL;
  if (nulls) {
    bitmap = pack_bitmap(c->valid, slots);
    if (!bitmap) return PM_NOMEM(c->err);
  }
  int is_list = n->kind == AN_LIST || n->kind == AN_MAP;
  int32_t *offsets = NULL;
  pm_buf obuf; /* list offsets, recycled through the pool */
  pm_buf_init(&obuf);
  if (is_list) {
    pm_buf_init(&obuf);
    pool_take(c->r->pool, &obuf, (slots + 1) * 4 + 16);
    if (pm_buf_reserve(&obuf, (slots + 1) * 4 + 16)) {
      pm_aligned_free(bitmap);
      return PM_NOMEM(c->err);
    }
    offsets = (int32_t *)(void *)obuf.data;
    leaf_reader *lr = &c->r->leaves[n->rep_leaf];
    const col_values *o = &lr->out;
    const int16_t *def = lr->max_def > 0 && !o->def_all_max ? (const int16_t *)(const void *)o->def.data : NULL;
    const int16_t *rep = lr->max_rep > 0 ? (const int16_t *)(const void *)o->rep.data : NULL;
    const int16_t dfill = (int16_t)lr->max_def;
    int16_t ad = (int16_t)n->anc_def, ar = (int16_t)n->anc_rep, cd = (int16_t)n->rep_def, cr = (int16_t)n->rep_rep;
    size_t s = 0;
    int64_t child = 0;
    if (o->n_levels > INT32_MAX) {
      pm_aligned_free(bitmap);
      pm_buf_free(&obuf);
      return pm_errorf(c->err, PAIMON_ERR_UNSUPPORTED, "%s: list too large for one batch", c->r->path);
    }
    size_t i = 0;
    if (rep) {
      /* Blocks of 16 levels: masks of the levels that start a list slot (S)
       * and of those that are child elements (C); each slot's offset is the
       * child count before it. */
      const unsigned sfill = dfill >= ad ? 0xffffu : 0, cfill = dfill >= cd ? 0xffffu : 0;
      for (; i + 16 <= o->n_levels; i += 16) {
        unsigned S = def ? (ad > 0 ? pm_pq_lv_mask_gt16(def + i, (int16_t)(ad - 1)) : 0xffffu) : sfill;
        unsigned C = def ? (cd > 0 ? pm_pq_lv_mask_gt16(def + i, (int16_t)(cd - 1)) : 0xffffu) : cfill;
        S &= ~pm_pq_lv_mask_gt16(rep + i, ar) & 0xffffu;
        C &= ~pm_pq_lv_mask_gt16(rep + i, cr) & 0xffffu;
        if (C == 0xffffu) {
          while (S) {
            unsigned j = (unsigned)__builtin_ctz(S);
            offsets[s++] = (int32_t)(child + (int64_t)j);
            S &= S - 1;
          }
        } else if (S) {
          uint8_t before[16];
          pm_pq_prefix16(C, before);
          while (S) {
            unsigned j = (unsigned)__builtin_ctz(S);
            offsets[s++] = (int32_t)(child + (int64_t)before[j]);
            S &= S - 1;
          }
        }
        child += (int64_t)pm_pq_pop16(C);
      }
    }
    {
      for (; i < o->n_levels; i++) {
        int16_t d = def ? def[i] : dfill, rr = rep ? rep[i] : 0;
        if (d >= ad && rr <= ar) offsets[s++] = (int32_t)child;
        if (d >= cd && rr <= cr) child++;
      }
    }
    offsets[s] = (int32_t)child;
  }
  int irc = pm_array_init(out, (int64_t)slots, is_list ? 2 : 1, n->n_children, c->err);
  if (irc) {
    pm_aligned_free(bitmap);
    pm_buf_free(&obuf);
    return irc;
  }
  out->null_count = (int64_t)nulls;
  pm_array_set_buffer(out, 0, bitmap);
  if (is_list) {
    pm_buf *bufs[1] = {&obuf};
    const int slots_of[1] = {1};
    int grc = give_buffers(c->r, out, bufs, slots_of, 1, c->err);
    if (grc) {
      pm_buf_free(&obuf);
      return grc;
    }
  }
  int64_t expect = is_list ? (int64_t)offsets[slots] : (int64_t)slots;
  for (int i = 0; i < n->n_children; i++) {
    int64_t clen;
    PM_TRY(build_array(c, n->children[i], out->children[i], &clen));
    if (clen != expect)
      return pm_errorf(c->err, PAIMON_ERR_CORRUPT, "%s: nested column '%s': children disagree on length (%lld vs %lld)",
                       c->r->path, n->name, (long long)clen, (long long)expect);
  }
  *length = (int64_t)slots;
  return 0;
}

/* ------------------------------------------------------- Arrow schema ---- */

static int export_schema(const pm_pq_reader *r, const anode *n, struct ArrowSchema *s, pm_error *err) {
  const char *fmt = n->kind == AN_STRUCT ? "+s" : n->kind == AN_LIST ? "+l" : n->kind == AN_MAP ? "+m"
                                                                                               : r->leaves[n->leaf_slot].format;
  int64_t flags = (n->nullable ? ARROW_FLAG_NULLABLE : 0);
  PM_TRY(pm_schema_init(s, fmt, n->name, flags, n->n_children, err));
  if (n->elem && n->elem->has_field_id) {
    char buf[16];
    snprintf(buf, sizeof buf, "%d", (int)n->elem->field_id);
    const char *k = "PARQUET:field_id";
    const char *v = buf;
    int rc = pm_schema_set_metadata(s, 1, &k, &v, err);
    if (rc) {
      pm_schema_release(s);
      return rc;
    }
  }
  for (int i = 0; i < n->n_children; i++) {
    int rc = export_schema(r, n->children[i], s->children[i], err);
    if (rc) {
      pm_schema_release(s);
      return rc;
    }
  }
  return 0;
}

/* ------------------------------------------------------ node building ---- */

static void anode_free(anode *n) {
  if (!n) return;
  for (int i = 0; i < n->n_children; i++) anode_free(n->children[i]);
  free(n->children);
  free(n);
}

static int first_leaf(const pm_pq_node *pn) {
  while (pn->leaf < 0) pn = pn->children[0];
  return pn->leaf;
}

typedef struct build_ctx {
  pm_pq_reader *r;
  pm_error *err;
} build_ctx;

static int leaf_slot_for(build_ctx *b, int leaf, int *slot) {
  pm_pq_reader *r = b->r;
  for (int i = 0; i < r->n_leaves; i++)
    if (r->leaves[i].leaf == leaf) {
      *slot = i;
      return 0;
    }
  leaf_reader *nl = realloc(r->leaves, sizeof(leaf_reader) * (size_t)(r->n_leaves + 1));
  if (!nl) return PM_NOMEM(b->err);
  r->leaves = nl;
  leaf_reader *lr = &r->leaves[r->n_leaves];
  memset(lr, 0, sizeof *lr);
  lr->leaf = leaf;
  lr->info = &r->meta->leaves[leaf];
  lr->elem = lr->info->node->elem;
  lr->phys = lr->elem->type;
  lr->type_length = lr->elem->type_length;
  lr->max_def = lr->info->max_def;
  lr->max_rep = lr->info->max_rep;
  pm_buf_init(&lr->out.def);
  pm_buf_init(&lr->out.rep);
  pm_buf_init(&lr->out.values);
  pm_buf_init(&lr->out.offsets);
  PM_TRY(set_leaf_type(r, lr, b->err));
  *slot = r->n_leaves++;
  return 0;
}

static anode *anode_new(int kind, const pm_pq_node *pn) {
  anode *n = calloc(1, sizeof *n);
  if (!n) return NULL;
  n->kind = kind;
  n->elem = pn ? pn->elem : NULL;
  n->name = pn ? pn->elem->name : "entries";
  return n;
}

static int make_node(build_ctx *b, const pm_pq_node *pn, int anc_def, int anc_rep, int as_element, anode **out);

static int add_children(anode *n, int count, build_ctx *b) {
  n->children = calloc((size_t)(count ? count : 1), sizeof(anode *));
  if (!n->children) return PM_NOMEM(b->err);
  n->n_children = count;
  return 0;
}

/* A node treated as a required element at its own levels (repeated field as a list element). */
static int make_plain(build_ctx *b, const pm_pq_node *pn, int anc_def, int anc_rep, int def_present, int nullable,
                      anode **out) {
  *out = NULL;
  anode *n = anode_new(pn->leaf >= 0 ? AN_LEAF : AN_STRUCT, pn);
  if (!n) return PM_NOMEM(b->err);
  n->nullable = nullable;
  n->def_present = def_present;
  n->anc_def = anc_def;
  n->anc_rep = anc_rep;
  int rc = 0;
  if (pn->leaf >= 0) {
    rc = leaf_slot_for(b, pn->leaf, &n->leaf_slot);
    n->rep_leaf = n->leaf_slot;
  } else {
    rc = add_children(n, pn->n_children, b);
    for (int i = 0; rc == 0 && i < pn->n_children; i++) rc = make_node(b, pn->children[i], anc_def, anc_rep, 0, &n->children[i]);
    if (rc == 0) rc = leaf_slot_for(b, first_leaf(pn), &n->rep_leaf);
  }
  if (rc) {
    anode_free(n);
    return rc;
  }
  *out = n;
  return 0;
}

static int is_list_group(const pm_pq_node *pn) {
  const pm_pq_schema_elem *e = pn->elem;
  return pn->leaf < 0 && (e->logical.kind == PM_PQ_LT_LIST || (e->has_converted && e->converted == PM_PQ_CT_LIST));
}

static int is_map_group(const pm_pq_node *pn) {
  const pm_pq_schema_elem *e = pn->elem;
  return pn->leaf < 0 && (e->logical.kind == PM_PQ_LT_MAP ||
                          (e->has_converted && (e->converted == PM_PQ_CT_MAP || e->converted == PM_PQ_CT_MAP_KEY_VALUE)));
}

static int rep_of(const pm_pq_node *pn) {
  return pn->elem->has_repetition ? pn->elem->repetition : PM_PQ_OPTIONAL;
}

static int make_node(build_ctx *b, const pm_pq_node *pn, int anc_def, int anc_rep, int as_element, anode **out) {
  (void)as_element;
  *out = NULL;
  int rep = rep_of(pn);
  int rc = 0;
  if (rep == PM_PQ_REPEATED) {
    /* Bare repeated field: a required list of required elements. */
    anode *n = anode_new(AN_LIST, pn);
    if (!n) return PM_NOMEM(b->err);
    n->nullable = 0;
    n->def_present = pn->def_level - 1;
    n->anc_def = anc_def;
    n->anc_rep = anc_rep;
    n->rep_def = pn->def_level;
    n->rep_rep = pn->rep_level;
    rc = add_children(n, 1, b);
    if (rc == 0) rc = make_plain(b, pn, pn->def_level, pn->rep_level, pn->def_level, 0, &n->children[0]);
    if (rc == 0) rc = leaf_slot_for(b, first_leaf(pn), &n->rep_leaf);
    if (rc) {
      anode_free(n);
      return rc;
    }
    /* the element is the same schema node: keep the field id on the list only */
    n->children[0]->elem = NULL;
    *out = n;
    return 0;
  }
  int nullable = rep == PM_PQ_OPTIONAL;
  if ((is_list_group(pn) || is_map_group(pn)) && pn->n_children == 1 && rep_of(pn->children[0]) == PM_PQ_REPEATED) {
    const pm_pq_node *R = pn->children[0];
    int map = is_map_group(pn) && R->leaf < 0 && R->n_children == 2;
    anode *n = anode_new(map ? AN_MAP : AN_LIST, pn);
    if (!n) return PM_NOMEM(b->err);
    n->nullable = nullable;
    n->def_present = pn->def_level;
    n->anc_def = anc_def;
    n->anc_rep = anc_rep;
    n->rep_def = R->def_level;
    n->rep_rep = R->rep_level;
    rc = add_children(n, 1, b);
    if (rc == 0) rc = leaf_slot_for(b, first_leaf(pn), &n->rep_leaf);
    if (rc == 0) {
      if (map) {
        anode *e = anode_new(AN_STRUCT, NULL);
        if (!e) rc = PM_NOMEM(b->err);
        if (rc == 0) {
          n->children[0] = e;
          e->def_present = R->def_level;
          e->anc_def = R->def_level;
          e->anc_rep = R->rep_level;
          rc = add_children(e, 2, b);
          for (int i = 0; rc == 0 && i < 2; i++)
            rc = make_node(b, R->children[i], R->def_level, R->rep_level, 0, &e->children[i]);
          if (rc == 0) rc = leaf_slot_for(b, first_leaf(R), &e->rep_leaf);
          if (rc == 0 && e->children[0]) e->children[0]->nullable = 0;
        }
      } else if (R->leaf >= 0 || R->n_children > 1 || !strcmp(R->elem->name, "array") ||
                 (strlen(R->elem->name) == strlen(pn->elem->name) + 6 &&
                  !strncmp(R->elem->name, pn->elem->name, strlen(pn->elem->name)) &&
                  !strcmp(R->elem->name + strlen(pn->elem->name), "_tuple"))) {
        /* legacy 2-level list: the repeated field is the element */
        rc = make_plain(b, R, R->def_level, R->rep_level, R->def_level, 0, &n->children[0]);
      } else {
        rc = make_node(b, R->children[0], R->def_level, R->rep_level, 1, &n->children[0]);
      }
    }
    if (rc) {
      anode_free(n);
      return rc;
    }
    *out = n;
    return 0;
  }
  return make_plain(b, pn, anc_def, anc_rep, pn->def_level, nullable, out);
}

/* ------------------------------------------------------------ pruning ---- */

typedef struct typed_val {
  int kind; /* pm_fmt_lit_kind, or -1 unusable */
  int is_unsigned;
  int64_t i;
  double d;
  const uint8_t *b;
  size_t len;
} typed_val;

static int leaf_unsigned(const pm_pq_schema_elem *e) {
  if (e->logical.kind == PM_PQ_LT_INTEGER) return !e->logical.is_signed;
  return e->logical.kind == PM_PQ_LT_NONE && e->has_converted && e->converted >= PM_PQ_CT_UINT_8 &&
         e->converted <= PM_PQ_CT_UINT_64;
}

static int leaf_lit_kind(const pm_pq_schema_elem *e) {
  switch (e->type) {
    case PM_PQ_BOOLEAN:
    case PM_PQ_INT32:
    case PM_PQ_INT64: return PM_FMT_LIT_INT64;
    case PM_PQ_FLOAT:
    case PM_PQ_DOUBLE: return PM_FMT_LIT_DOUBLE;
    case PM_PQ_BYTE_ARRAY:
    case PM_PQ_FIXED_LEN_BYTE_ARRAY: {
      int is_dec = e->logical.kind == PM_PQ_LT_DECIMAL || (e->has_converted && e->converted == PM_PQ_CT_DECIMAL);
      return is_dec ? -1 : PM_FMT_LIT_BYTES; /* signed big-endian decimals do not sort bytewise */
    }
    default: return -1;
  }
}

static typed_val decode_stat(const pm_pq_schema_elem *e, pm_pq_bytes v) {
  typed_val t;
  memset(&t, 0, sizeof t);
  t.kind = leaf_lit_kind(e);
  t.is_unsigned = leaf_unsigned(e);
  switch (e->type) {
    case PM_PQ_BOOLEAN:
      if (v.len < 1) t.kind = -1;
      else t.i = v.p[0] != 0;
      break;
    case PM_PQ_INT32:
      if (v.len != 4) t.kind = -1;
      else t.i = t.is_unsigned ? (int64_t)rd32(v.p) : (int64_t)(int32_t)rd32(v.p);
      break;
    case PM_PQ_INT64:
      if (v.len != 8) t.kind = -1;
      else memcpy(&t.i, v.p, 8);
      break;
    case PM_PQ_FLOAT: {
      float f;
      if (v.len != 4) t.kind = -1;
      else {
        memcpy(&f, v.p, 4);
        t.d = f;
        if (isnan(t.d)) t.kind = -1;
      }
      break;
    }
    case PM_PQ_DOUBLE:
      if (v.len != 8) t.kind = -1;
      else {
        memcpy(&t.d, v.p, 8);
        if (isnan(t.d)) t.kind = -1;
      }
      break;
    default:
      t.b = v.p;
      t.len = v.len;
  }
  return t;
}

/* <0, 0, >0; *ok = 0 if not comparable. */
static int cmp_lit(const typed_val *s, const pm_fmt_literal *l, int *ok) {
  *ok = s->kind >= 0 && s->kind == (int)l->kind;
  if (!*ok) return 0;
  switch (l->kind) {
    case PM_FMT_LIT_INT64:
      if (s->is_unsigned) {
        if (l->i64 < 0) {
          *ok = 0;
          return 0;
        }
        return (uint64_t)s->i < (uint64_t)l->i64 ? -1 : (uint64_t)s->i > (uint64_t)l->i64;
      }
      return s->i < l->i64 ? -1 : s->i > l->i64;
    case PM_FMT_LIT_DOUBLE:
      if (isnan(l->f64)) {
        *ok = 0;
        return 0;
      }
      return s->d < l->f64 ? -1 : s->d > l->f64;
    default: {
      size_t m = s->len < l->len ? s->len : l->len;
      int c = m ? memcmp(s->b, l->bytes, m) : 0;
      if (c) return c;
      return s->len < l->len ? -1 : s->len > l->len;
    }
  }
}

/* Decides whether a predicate can match data with these statistics.
 * Returns 1 = might match, 0 = cannot. */
static int pred_might_match(const pred_state *ps, const pm_pq_schema_elem *e, int has_minmax, pm_pq_bytes minb,
                            pm_pq_bytes maxb, int has_nc, int64_t null_count, int64_t num_values, int all_null) {
  const pm_fmt_predicate *p = &ps->p;
  if (has_nc && num_values >= 0 && null_count >= num_values) all_null = 1;
  switch (p->op) {
    case PM_FMT_OP_IS_NULL:
      if (has_nc && null_count == 0 && !all_null) return 0;
      return 1;
    case PM_FMT_OP_IS_NOT_NULL:
      return !all_null;
    default:
      break;
  }
  if (all_null) return 0; /* comparisons with null never hold */
  if (!has_minmax) return 1;
  typed_val mn = decode_stat(e, minb), mx = decode_stat(e, maxb);
  int ok1, ok2;
  if (p->op == PM_FMT_OP_IN) {
    for (size_t i = 0; i < p->n_values; i++) {
      int a = cmp_lit(&mn, &ps->values[i], &ok1), bb = cmp_lit(&mx, &ps->values[i], &ok2);
      if (!ok1 || !ok2) return 1;
      if (a <= 0 && bb >= 0) return 1;
    }
    return 0;
  }
  if (p->n_values < 1) return 1;
  const pm_fmt_literal *l = &ps->values[0];
  int cmin = cmp_lit(&mn, l, &ok1), cmax = cmp_lit(&mx, l, &ok2);
  if (!ok1 || !ok2) return 1;
  switch (p->op) {
    case PM_FMT_OP_EQ: return cmin <= 0 && cmax >= 0;
    case PM_FMT_OP_NE: return !(cmin == 0 && cmax == 0);
    case PM_FMT_OP_LT: return cmin < 0;
    case PM_FMT_OP_LE: return cmin <= 0;
    case PM_FMT_OP_GT: return cmax > 0;
    case PM_FMT_OP_GE: return cmax >= 0;
    default: return 1;
  }
}

/* Usable min/max of chunk statistics: the new fields, or the old ones for signed numeric types. */
static int stats_minmax(const pm_pq_schema_elem *e, const pm_pq_stats *s, pm_pq_bytes *mn, pm_pq_bytes *mx) {
  if (s->has_min && s->has_max) {
    *mn = s->min;
    *mx = s->max;
    return 1;
  }
  int k = leaf_lit_kind(e);
  if (s->has_min_old && s->has_max_old && (k == PM_FMT_LIT_INT64 || k == PM_FMT_LIT_DOUBLE) && !leaf_unsigned(e)) {
    *mn = s->min_old;
    *mx = s->max_old;
    return 1;
  }
  return 0;
}

static int rg_might_match(pm_pq_reader *r, int rg) {
  for (size_t i = 0; i < r->n_preds; i++) {
    const pred_state *ps = &r->preds[i];
    if (ps->leaf < 0) continue;
    const pm_pq_column_chunk *cc = &r->meta->row_groups[rg].columns[ps->leaf];
    const pm_pq_schema_elem *e = r->meta->leaves[ps->leaf].node->elem;
    pm_pq_bytes mn = {0, 0}, mx = {0, 0};
    int has_mm = cc->has_statistics && stats_minmax(e, &cc->statistics, &mn, &mx);
    int has_nc = cc->has_statistics && cc->statistics.has_null_count;
    int64_t num_values = r->meta->leaves[ps->leaf].max_rep == 0 ? cc->num_values : -1;
    if (!pred_might_match(ps, e, has_mm, mn, mx, has_nc, has_nc ? cc->statistics.null_count : 0, num_values, 0))
      return 0;
  }
  return 1;
}

/* Intersects sorted range lists a and b into out (capacity na + nb). */
static size_t intersect_ranges(const pm_pq_row_range *a, size_t na, const pm_pq_row_range *b, size_t nb,
                               pm_pq_row_range *out) {
  size_t i = 0, j = 0, n = 0;
  while (i < na && j < nb) {
    int64_t s = a[i].start > b[j].start ? a[i].start : b[j].start;
    int64_t e = a[i].end < b[j].end ? a[i].end : b[j].end;
    if (s < e) out[n++] = (pm_pq_row_range){s, e};
    if (a[i].end < b[j].end) i++;
    else j++;
  }
  return n;
}

/* Narrows the row group's ranges with the page index of each predicate column. */
static int apply_page_index(pm_pq_reader *r, int rg, pm_error *err) {
  const pm_pq_row_group *g = &r->meta->row_groups[rg];
  for (size_t pi = 0; pi < r->n_preds && r->rg_n_ranges > 0; pi++) {
    const pred_state *ps = &r->preds[pi];
    if (ps->leaf < 0 || r->meta->leaves[ps->leaf].max_rep > 0) continue;
    const pm_pq_column_chunk *cc = &g->columns[ps->leaf];
    if (!cc->has_column_index || !cc->has_offset_index) continue;
    uint64_t fsize = pm_file_size(r->file);
    if (cc->column_index_length <= 0 || cc->offset_index_length <= 0 || cc->column_index_offset < 0 ||
        cc->offset_index_offset < 0 || (uint64_t)cc->column_index_offset + (uint64_t)cc->column_index_length > fsize ||
        (uint64_t)cc->offset_index_offset + (uint64_t)cc->offset_index_length > fsize)
      continue; /* unusable index: read everything */
    uint8_t *cib = malloc((size_t)cc->column_index_length), *oib = malloc((size_t)cc->offset_index_length);
    pm_pq_column_index ci;
    pm_pq_offset_index oi;
    memset(&ci, 0, sizeof ci);
    memset(&oi, 0, sizeof oi);
    int rc = (!cib || !oib) ? PM_NOMEM(err) : 0;
    if (rc == 0) rc = pm_file_read_at(r->file, (uint64_t)cc->column_index_offset, cib, (size_t)cc->column_index_length, err);
    if (rc == 0) rc = pm_file_read_at(r->file, (uint64_t)cc->offset_index_offset, oib, (size_t)cc->offset_index_length, err);
    if (rc == 0) rc = pm_pq_column_index_parse(cib, (size_t)cc->column_index_length, (uint64_t)cc->column_index_offset, r->path, &ci, err);
    if (rc == 0) {
      rc = pm_pq_offset_index_parse(oib, (size_t)cc->offset_index_length, (uint64_t)cc->offset_index_offset, r->path, &oi, err);
      if (rc) pm_pq_column_index_free(&ci);
    }
    if (rc == 0 && ci.n_pages == oi.n_pages && oi.n_pages > 0) {
      const pm_pq_schema_elem *e = r->meta->leaves[ps->leaf].node->elem;
      pm_pq_row_range *keep = malloc(sizeof(pm_pq_row_range) * oi.n_pages);
      pm_pq_row_range *merged = keep ? malloc(sizeof(pm_pq_row_range) * (oi.n_pages + r->rg_n_ranges)) : NULL;
      if (!keep || !merged) {
        free(keep);
        rc = PM_NOMEM(err);
      } else {
        size_t nk = 0;
        int sane = 1;
        for (uint32_t p = 0; p < oi.n_pages; p++) {
          int64_t s = oi.pages[p].first_row_index;
          int64_t en = p + 1 < oi.n_pages ? oi.pages[p + 1].first_row_index : g->num_rows;
          if (s < 0 || en < s || en > g->num_rows) {
            sane = 0;
            break;
          }
          int m = pred_might_match(ps, e, !ci.null_pages[p], ci.min_values[p], ci.max_values[p], ci.has_null_counts,
                                   ci.has_null_counts ? ci.null_counts[p] : 0, -1, ci.null_pages[p]);
          if (!m) continue;
          if (nk && keep[nk - 1].end == s) keep[nk - 1].end = en;
          else if (s < en) keep[nk++] = (pm_pq_row_range){s, en};
        }
        if (sane) {
          size_t nm = intersect_ranges(r->rg_ranges, r->rg_n_ranges, keep, nk, merged);
          memcpy(r->rg_ranges, merged, nm * sizeof *merged);
          r->rg_n_ranges = nm;
        }
        free(keep);
        free(merged);
      }
    }
    if (rc == 0) {
      pm_pq_column_index_free(&ci);
      pm_pq_offset_index_free(&oi);
    }
    free(cib);
    free(oib);
    if (rc) {
      /* A broken page index only disables pruning. */
      if (rc == PAIMON_ERR_NOMEM) return rc;
      pm_error_clear(err);
    }
  }
  return 0;
}

/* ------------------------------------------------------------ the API ---- */

void pm_pq_read_options_init(pm_pq_read_options *opt) {
  memset(opt, 0, sizeof *opt);
  opt->batch_rows = PM_PQ_DEFAULT_BATCH_ROWS;
  opt->use_page_index = 1;
}

static int name_eq(const char *a, const char *b, int ci) { return ci ? strcasecmp(a, b) == 0 : strcmp(a, b) == 0; }

static const pm_pq_node *find_by_id(const pm_pq_node *n, int32_t id, int *under_repeated) {
  if (n->parent && n->elem->has_field_id && n->elem->field_id == id) return n;
  for (int i = 0; i < n->n_children; i++) {
    const pm_pq_node *f = find_by_id(n->children[i], id, under_repeated);
    if (f) {
      if (f != n->children[i] && rep_of(n->children[i]) == PM_PQ_REPEATED) *under_repeated = 1;
      return f;
    }
  }
  return NULL;
}

static int setup(pm_pq_reader *r, const pm_pq_read_options *opt, pm_error *err) {
  r->opt = *opt;
  r->opt.columns = NULL;
  r->opt.field_ids = NULL;
  r->opt.row_ranges = NULL;
  r->opt.predicates = NULL;
  r->batch_rows = opt->batch_rows > 0 ? opt->batch_rows : PM_PQ_DEFAULT_BATCH_ROWS;
  const pm_pq_node *root = r->meta->root;
  build_ctx b = {r, err};
  /* projection */
  size_t cap = opt->field_ids ? opt->n_field_ids : opt->columns ? opt->n_columns : (size_t)root->n_children;
  r->columns = calloc(cap ? cap : 1, sizeof(anode *));
  if (!r->columns) return PM_NOMEM(err);
  if (opt->field_ids) {
    for (size_t i = 0; i < opt->n_field_ids; i++) {
      int under = 0;
      const pm_pq_node *pn = find_by_id(root, opt->field_ids[i], &under);
      if (!pn) continue;
      for (const pm_pq_node *p = pn->parent; p && p->parent; p = p->parent)
        if (rep_of(p) == PM_PQ_REPEATED) under = 1;
      if (under)
        return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: field id %d is inside a repeated field and cannot be projected alone",
                         r->path, (int)opt->field_ids[i]);
      PM_TRY(make_node(&b, pn, 0, 0, 0, &r->columns[r->n_columns]));
      r->n_columns++;
    }
  }
  int all_by_name = opt->field_ids && r->n_columns == 0 && opt->all_columns_if_no_ids;
  if (all_by_name) {
    /* no wanted id in the file (writers without field ids): every column, mapped by name by the caller */
    anode **all = realloc(r->columns, ((size_t)root->n_children + 1) * sizeof(anode *));
    if (!all) return PM_NOMEM(err);
    r->columns = all;
    for (int j = 0; j < root->n_children; j++) {
      PM_TRY(make_node(&b, root->children[j], 0, 0, 0, &r->columns[r->n_columns]));
      r->n_columns++;
    }
  } else if (opt->field_ids) {
    /* projected by id above */
  } else if (opt->columns) {
    for (size_t i = 0; i < opt->n_columns; i++) {
      const pm_pq_node *pn = NULL;
      for (int j = 0; j < root->n_children && !pn; j++)
        if (name_eq(root->children[j]->elem->name, opt->columns[i], opt->case_insensitive)) pn = root->children[j];
      if (!pn) return pm_errorf(err, PAIMON_ERR_NOT_FOUND, "%s: no column named '%s'", r->path, opt->columns[i]);
      PM_TRY(make_node(&b, pn, 0, 0, 0, &r->columns[r->n_columns]));
      r->n_columns++;
    }
  } else {
    for (int j = 0; j < root->n_children; j++) {
      PM_TRY(make_node(&b, root->children[j], 0, 0, 0, &r->columns[r->n_columns]));
      r->n_columns++;
    }
  }
  /* row ranges */
  if (opt->row_ranges) {
    r->ranges = malloc(sizeof(pm_pq_row_range) * (opt->n_row_ranges ? opt->n_row_ranges : 1));
    if (!r->ranges) return PM_NOMEM(err);
    int64_t prev = INT64_MIN;
    for (size_t i = 0; i < opt->n_row_ranges; i++) {
      pm_pq_row_range g = opt->row_ranges[i];
      if (g.start < 0 || g.end < g.start || g.start < prev)
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: row ranges must be sorted, non-negative and non-overlapping", r->path);
      prev = g.end;
      if (g.start < g.end) r->ranges[r->n_ranges++] = g;
    }
  }
  /* predicates */
  if (opt->n_predicates && !all_by_name) { /* the predicates name ids the file does not have */
    r->preds = calloc(opt->n_predicates, sizeof(pred_state));
    if (!r->preds) return PM_NOMEM(err);
    for (size_t i = 0; i < opt->n_predicates; i++) {
      pred_state *ps = &r->preds[r->n_preds++];
      ps->p = opt->predicates[i];
      ps->p.column = NULL;
      ps->leaf = opt->predicates[i].column ? pm_pq_meta_find_leaf(r->meta, opt->predicates[i].column, opt->case_insensitive)
                 : opt->predicates[i].field_id >= 0 ? pm_pq_meta_find_leaf_by_id(r->meta, opt->predicates[i].field_id)
                                                    : -1;
      size_t nv = ps->p.n_values;
      ps->values = calloc(nv ? nv : 1, sizeof(pm_fmt_literal));
      ps->owned_bytes = calloc(nv ? nv : 1, sizeof(uint8_t *));
      if (!ps->values || !ps->owned_bytes) return PM_NOMEM(err);
      for (size_t k = 0; k < nv; k++) {
        ps->values[k] = opt->predicates[i].values[k];
        if (ps->values[k].kind == PM_FMT_LIT_BYTES) {
          ps->owned_bytes[k] = malloc(ps->values[k].len ? ps->values[k].len : 1);
          if (!ps->owned_bytes[k]) return PM_NOMEM(err);
          if (ps->values[k].len) memcpy(ps->owned_bytes[k], ps->values[k].bytes, ps->values[k].len);
          ps->values[k].bytes = ps->owned_bytes[k];
        }
      }
      ps->p.values = ps->values;
    }
  }
  r->rg = -1;
  return 0;
}

int pm_pq_reader_open(pm_file *file, const pm_pq_read_options *opt, pm_pq_reader **out, pm_error *err) {
  *out = NULL;
  pm_pq_read_options defaults;
  if (!opt) {
    pm_pq_read_options_init(&defaults);
    opt = &defaults;
  }
  pm_pq_reader *r = calloc(1, sizeof *r);
  if (!r) {
    pm_file_close(file);
    return PM_NOMEM(err);
  }
  r->file = file;
  r->pool = pool_new();
#if PM_PQ_X86_WIDE
  r->wide_copies = __builtin_cpu_supports("avx512f") ? 1 : 0;
#endif
  if (!r->pool) {
    free(r);
    pm_file_close(file);
    return PM_NOMEM(err);
  }
  r->path = pm_file_path(file);
  if (!r->path) r->path = "(memory)";
  int rc = pm_pq_meta_read(file, &r->meta, err);
  if (rc == 0) rc = setup(r, opt, err);
  if (rc) {
    pm_pq_reader_close(r);
    return rc;
  }
  *out = r;
  return 0;
}

int pm_pq_reader_open_fs(pm_fs *fs, const char *path, const pm_pq_read_options *opt, pm_pq_reader **out,
                         pm_error *err) {
  pm_file *f;
  *out = NULL;
  PM_TRY(pm_fs_open(fs, path, &f, err));
  return pm_pq_reader_open(f, opt, out, err);
}

int pm_pq_reader_open_path(const char *path, const pm_pq_read_options *opt, pm_pq_reader **out, pm_error *err) {
  return pm_pq_reader_open_fs(pm_fs_local(), path, opt, out, err);
}

void pm_pq_reader_close(pm_pq_reader *r) {
  if (!r) return;
  for (int i = 0; i < r->n_columns; i++) anode_free(r->columns[i]);
  free(r->columns);
  for (int i = 0; i < r->n_leaves; i++) {
    leaf_reader *lr = &r->leaves[i];
    lr_reset_chunk(lr);
    free(lr->chunk);
    free(lr->dict);
    free(lr->dict_offsets);
    free(lr->page_buf);
    vblock_unref(lr->pblock);
    free(lr->page_def);
    free(lr->page_rep);
    free(lr->idx);
    free(lr->voffsets);
    free(lr->conv_buf);
    free(lr->tmp_buf);
    col_values_free(&lr->out);
    view_batch_reset(lr);
    vblock_unref(lr->dblock);
    free(lr->dict_views);
    free(lr->vsrc);
    pm_buf_free(&lr->vcopy);
  }
  free(r->leaves);
  free(r->ranges);
  for (size_t i = 0; i < r->n_preds; i++) {
    for (size_t k = 0; k < r->preds[i].p.n_values; k++)
      if (r->preds[i].owned_bytes) free(r->preds[i].owned_bytes[k]);
    free(r->preds[i].owned_bytes);
    free(r->preds[i].values);
  }
  free(r->preds);
  free(r->rg_ranges);
  free(r->positions);
  free(r->valid_scratch);
  free(r->ops);
  free(r->spans);
  pm_zstd_dctx_give(r->zstd);
  pool_unref(r->pool);
  pm_pq_meta_free(r->meta);
  pm_file_close(r->file);
  free(r);
}

int pm_pq_reader_schema(pm_pq_reader *r, struct ArrowSchema *out, pm_error *err) {
  PM_TRY(pm_schema_init(out, "+s", "", 0, r->n_columns, err));
  for (int i = 0; i < r->n_columns; i++) {
    int rc = export_schema(r, r->columns[i], out->children[i], err);
    if (rc) {
      pm_schema_release(out);
      return rc;
    }
  }
  return 0;
}

/* Moves to the next row group with selected rows; returns 1 at the end. */
static int next_row_group(pm_pq_reader *r, pm_error *err) {
  for (;;) {
    if (r->rg >= 0) r->rg_first += r->meta->row_groups[r->rg].num_rows;
    else r->rg_first = 0;
    r->rg++;
    if ((uint32_t)r->rg >= r->meta->n_row_groups) return 1;
    const pm_pq_row_group *g = &r->meta->row_groups[r->rg];
    if (g->num_rows == 0) continue;
    free(r->rg_ranges);
    r->rg_ranges = NULL;
    size_t cap = r->ranges ? r->n_ranges : 1;
    r->rg_ranges = malloc(sizeof(pm_pq_row_range) * (cap ? cap : 1));
    if (!r->rg_ranges) return PM_NOMEM(err);
    r->rg_n_ranges = 0;
    if (r->ranges) {
      for (size_t i = 0; i < r->n_ranges; i++) {
        int64_t s = r->ranges[i].start - r->rg_first, e = r->ranges[i].end - r->rg_first;
        if (s < 0) s = 0;
        if (e > g->num_rows) e = g->num_rows;
        if (s < e) r->rg_ranges[r->rg_n_ranges++] = (pm_pq_row_range){s, e};
      }
    } else {
      r->rg_ranges[0] = (pm_pq_row_range){0, g->num_rows};
      r->rg_n_ranges = 1;
    }
    if (r->rg_n_ranges == 0) continue;
    if (r->n_preds && !rg_might_match(r, r->rg)) continue;
    if (r->n_preds && r->opt.use_page_index) PM_TRY(apply_page_index(r, r->rg, err));
    if (r->rg_n_ranges == 0) continue;
    for (int i = 0; i < r->n_leaves; i++) PM_TRY(lr_open_chunk(r, &r->leaves[i], r->rg, err));
    r->rg_range_pos = 0;
    r->rg_row = 0;
    return 0;
  }
}

int pm_pq_reader_next(pm_pq_reader *r, struct ArrowArray *out, pm_error *err) {
  memset(out, 0, sizeof *out);
  r->positions_n = 0;
  r->n_spans = 0;
  r->positions_ready = 0;
  if (r->done) return 0;
  while (r->rg < 0 || r->rg_range_pos >= r->rg_n_ranges) {
    int rc = next_row_group(r, err);
    if (rc == 1) {
      r->done = 1;
      for (int i = 0; i < r->n_leaves; i++) lr_reset_chunk(&r->leaves[i]);
      return 0;
    }
    if (rc) return rc;
  }
  /* Plan the batch: skip/read operations within this row group. */
  int n_ops = 0;
  int64_t rows = 0;
  while (rows < r->batch_rows && r->rg_range_pos < r->rg_n_ranges) {
    if (GROW(r->ops, r->ops_cap, (size_t)(n_ops + 1) * sizeof(pending_op), err) ||
        GROW(r->spans, r->spans_cap, (size_t)(n_ops + 1) * sizeof(pm_pq_row_range), err))
      return PAIMON_ERR_NOMEM;
    pending_op *ops = r->ops;
    pm_pq_row_range *g = &r->rg_ranges[r->rg_range_pos];
    int64_t skip = g->start > r->rg_row ? g->start - r->rg_row : 0;
    int64_t from = r->rg_row + skip;
    int64_t take = g->end - from;
    if (take > r->batch_rows - rows) take = r->batch_rows - rows;
    ops[n_ops] = (pending_op){skip, take};
    r->spans[n_ops] = (pm_pq_row_range){r->rg_first + from, r->rg_first + from + take};
    n_ops++;
    rows += take;
    r->rg_row = from + take;
    if (r->rg_row >= g->end) r->rg_range_pos++;
  }
  r->positions_n = rows;
  r->n_spans = n_ops;
  r->positions_ready = 0;
  for (int i = 0; i < r->n_leaves; i++) {
    leaf_reader *lr = &r->leaves[i];
    col_values_reset(&lr->out);
    /* Below a list, a batch has more values than rows: size the buffers from
     * the previous batch so that they need not grow (and fault in new pages). */
    size_t slots = (size_t)rows;
    if (lr->max_rep > 0 && lr->slots_hint + lr->slots_hint / 8 > slots) slots = lr->slots_hint + lr->slots_hint / 8;
    if (lr->view) {
      view_batch_reset(lr);
      pool_take(r->pool, &lr->out.values, slots * 16 + 64);
      PM_TRY(pm_buf_reserve(&lr->out.values, slots * 16 + 64));
    } else if (lr->out_kind != OUT_BINARY) {
      size_t need = slots * (size_t)lr->width + 64;
      if (lr->out_kind == OUT_FIXED) pool_take(r->pool, &lr->out.values, need);
      PM_TRY(pm_buf_reserve(&lr->out.values, need));
    } else {
      size_t need_bytes = lr->bytes_hint + lr->bytes_hint / 8 + 64;
      pool_take(r->pool, &lr->out.offsets, slots * 4 + 64);
      pool_take(r->pool, &lr->out.values, need_bytes);
      PM_TRY(pm_buf_reserve(&lr->out.offsets, slots * 4 + 64));
      PM_TRY(pm_buf_reserve(&lr->out.values, need_bytes));
    }
    for (int k = 0; k < n_ops; k++) {
      if (r->ops[k].skip) PM_TRY(lr_rows(r, lr, r->ops[k].skip, 0, err));
      PM_TRY(lr_rows(r, lr, r->ops[k].read, 1, err));
    }
  }
  asm_ctx c = {r, err, r->valid_scratch, r->valid_scratch_cap};
  int rc = pm_array_init(out, rows, 1, r->n_columns, err);
  for (int i = 0; rc == 0 && i < r->n_columns; i++) {
    int64_t len;
    rc = build_array(&c, r->columns[i], out->children[i], &len);
    if (rc == 0 && len != rows)
      rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: column '%s' row group %d yields %lld rows, expected %lld", r->path,
                     r->columns[i]->name, r->rg, (long long)len, (long long)rows);
  }
  r->valid_scratch = c.valid;
  r->valid_scratch_cap = c.valid_cap;
  if (rc) {
    if (out->release) out->release(out);
    memset(out, 0, sizeof *out);
    return rc;
  }
  return 0;
}

const int64_t *pm_pq_reader_batch_positions(const pm_pq_reader *cr, int64_t *n) {
  /* Positions are materialized lazily (scans rarely need them); the cache is
   * not part of the reader's observable state, hence the cast. */
  pm_pq_reader *r = (pm_pq_reader *)(uintptr_t)cr;
  *n = 0;
  if (!r->positions_ready) {
    if (grow((void **)&r->positions, &r->positions_cap, (size_t)(r->positions_n + 1) * sizeof(int64_t), NULL))
      return NULL;
    int64_t k = 0;
    for (int i = 0; i < r->n_spans; i++)
      for (int64_t p = r->spans[i].start; p < r->spans[i].end; p++) r->positions[k++] = p;
    r->positions_ready = 1;
  }
  *n = r->positions_n;
  return r->positions;
}

int64_t pm_pq_reader_num_rows(const pm_pq_reader *r) { return r->meta->num_rows; }

const struct pm_pq_meta *pm_pq_reader_meta(const pm_pq_reader *r) { return r->meta; }

int pm_pq_reader_column_stats(const pm_pq_reader *r, int leaf, pm_pq_column_stats *out, pm_error *err) {
  memset(out, 0, sizeof *out);
  if (leaf < 0 || leaf >= r->meta->n_leaves)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: no leaf column %d", r->path, leaf);
  const pm_pq_schema_elem *e = r->meta->leaves[leaf].node->elem;
  int kind = leaf_lit_kind(e);
  out->kind = kind >= 0 ? (pm_fmt_lit_kind)kind : PM_FMT_LIT_BYTES;
  out->has_min_max = kind >= 0 && r->meta->n_row_groups > 0;
  out->has_null_count = 1;
  int any_values = 0;
  for (uint32_t g = 0; g < r->meta->n_row_groups; g++) {
    const pm_pq_column_chunk *cc = &r->meta->row_groups[g].columns[leaf];
    out->num_values += cc->num_values;
    if (!cc->has_statistics || !cc->statistics.has_null_count) out->has_null_count = 0;
    else out->null_count += cc->statistics.null_count;
    pm_pq_bytes mn, mx;
    if (!cc->has_statistics || !stats_minmax(e, &cc->statistics, &mn, &mx)) {
      /* an all-null chunk has no min/max and does not widen the range */
      if (cc->has_statistics && cc->statistics.has_null_count && cc->statistics.null_count == cc->num_values &&
          r->meta->leaves[leaf].max_rep == 0)
        continue;
      out->has_min_max = 0;
      continue;
    }
    if (!out->has_min_max) continue;
    typed_val a = decode_stat(e, mn), b = decode_stat(e, mx);
    if (a.kind < 0 || b.kind < 0) {
      out->has_min_max = 0;
      continue;
    }
    pm_fmt_literal la = {(pm_fmt_lit_kind)kind, a.i, a.d, a.b, a.len}, lb = {(pm_fmt_lit_kind)kind, b.i, b.d, b.b, b.len};
    if (!any_values) {
      out->min = la;
      out->max = lb;
      any_values = 1;
    } else {
      int ok;
      typed_val cur_min = decode_stat(e, mn);
      (void)cur_min;
      /* compare new candidates against the running min/max */
      typed_val tmn = a, tmx = b;
      if (cmp_lit(&tmn, &out->min, &ok) < 0 && ok) out->min = la;
      if (cmp_lit(&tmx, &out->max, &ok) > 0 && ok) out->max = lb;
    }
  }
  if (!any_values) out->has_min_max = 0;
  return 0;
}
