#include "format/parquet/parquet_writer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <sys/mman.h>
#include <zstd.h>

#include "arrow/arrow.h"
#include "format/parquet/parquet_encode.h"
#include "format/parquet/thrift_write.h"
#include "io/file.h"
#include "util/buf.h"
#include "util/str.h"
#include "util/utf8.h"

#define PM_PQ_MAX_NESTING 64
#define MAX_STATS_SIZE 4096 /* parquet-mr drops chunk statistics at or above this (min+max bytes) */
#define SLICE_MAX_ROWS 4096
/* PLAIN values start this far into colw.plain: a v1 page's encoded levels
 * (a few bytes for flat columns) are put in front of them, so the page body
 * is compressed in place instead of copied. */
#define PLAIN_HEADROOM 64

/* ---- schema model ----------------------------------------------------------- */

enum arrow_kind {
  AK_BOOL, AK_I8, AK_I16, AK_I32, AK_I64, AK_U8, AK_U16, AK_U32, AK_U64, AK_F32, AK_F64,
  AK_DATE32, AK_DATE64, AK_TIME32_S, AK_TIME32_MS, AK_TIME64_US, AK_TIME64_NS,
  AK_TS_S, AK_TS_MS, AK_TS_US, AK_TS_NS, AK_DEC128, AK_DEC256,
  AK_STR, AK_LSTR, AK_BIN, AK_LBIN, AK_FSB
};

enum node_kind { NK_LEAF, NK_STRUCT, NK_LIST, NK_MAP };

typedef struct wnode {
  int kind;
  char *name;
  int optional;
  int has_field_id;
  int32_t field_id;
  int def;              /* definition level when this node is non-null */
  int rep;              /* LIST/MAP: repetition level of the repeated group */
  int n_children;
  struct wnode *children; /* LIST: [element]; MAP: [key, value]; STRUCT: fields */
  int64_t fixed_size;   /* fixed_size_list length, 0 otherwise */
  int large_offsets;    /* +L */
  /* leaves */
  int akind;
  int leaf_index;
  int ptype;
  int type_length;      /* FLBA width */
  int converted;        /* -1 = none */
  int scale, precision;
  int lt_kind;          /* PM_PQ_LT_* or NONE */
  int lt_unit;          /* 1 millis, 2 micros, 3 nanos */
  int lt_utc;
  int lt_bits, lt_signed;
  int unsigned_order;   /* compare INT32/INT64 as unsigned */
  int decimal_order;    /* FLBA compared as signed big-endian integers */
  int sort_signed;      /* parquet-mr SIGNED sort order: deprecated min/max written */
  int64_t fsb_width;    /* AK_FSB byte width */
  int dec_src_bytes;    /* 16 or 32 */
} wnode;

/* ---- column writer state ------------------------------------------------------ */

/* Bytes kept in blocks: appending never moves what is already stored (no
 * realloc copies of a growing chunk), blocks are reused by the next chunk,
 * and they go to the file 1 MiB at a time. Blocks double from 64 KiB (small
 * chunks, and the many small chunks of a write spread over many partitions,
 * stay small: what is allocated is at most twice what is stored plus 64 KiB)
 * up to 2 MiB; 2 MiB blocks are aligned and advised for huge pages: one page
 * fault per block instead of 512. */
#define FIRST_BLOCK ((size_t)64 << 10)
#define BLOCK_SIZE ((size_t)2 << 20)
#define WRITE_PIECE ((size_t)1 << 20)
typedef struct blocks {
  uint8_t **blk;
  size_t n_blk;  /* allocated blocks */
  size_t len;    /* bytes stored */
  size_t cur, at; /* block being filled and the bytes used in it */
} blocks;

static size_t block_cap(size_t k) { return k >= 5 ? BLOCK_SIZE : FIRST_BLOCK << k; }

static uint8_t *block_alloc(size_t k) {
  if (block_cap(k) < BLOCK_SIZE) return malloc(block_cap(k));
  void *p = NULL;
  if (posix_memalign(&p, BLOCK_SIZE, BLOCK_SIZE) != 0) return NULL;
#ifdef MADV_HUGEPAGE
  madvise(p, BLOCK_SIZE, MADV_HUGEPAGE); /* advice only: failure is harmless */
#endif
  return p;
}

/* Bytes allocated. */
static size_t blocks_memory(const blocks *b) {
  size_t n = 0;
  for (size_t k = 0; k < b->n_blk; k++) n += block_cap(k);
  return n;
}

static void blocks_clear(blocks *b) { b->len = b->cur = b->at = 0; }

static int blocks_append(blocks *b, const void *src, size_t n) {
  const uint8_t *p = src;
  while (n) {
    if (b->at == block_cap(b->cur) && b->len) {
      b->cur++;
      b->at = 0;
    }
    if (b->cur == b->n_blk) {
      uint8_t **nb = realloc(b->blk, (b->n_blk + 1) * sizeof *nb);
      if (!nb) return PAIMON_ERR_NOMEM;
      b->blk = nb;
      b->blk[b->n_blk] = block_alloc(b->n_blk);
      if (!b->blk[b->n_blk]) return PAIMON_ERR_NOMEM;
      b->n_blk++;
    }
    size_t room = block_cap(b->cur) - b->at, take = room < n ? room : n;
    memcpy(b->blk[b->cur] + b->at, p, take);
    b->at += take;
    b->len += take;
    p += take;
    n -= take;
  }
  return 0;
}

/* Writes the stored bytes in order. */
static int blocks_write(const blocks *b, pm_out_file *out, pm_error *err) {
  size_t left = b->len;
  for (size_t k = 0; left; k++) {
    size_t in_blk = left < block_cap(k) ? left : block_cap(k);
    for (size_t off = 0; off < in_blk; off += WRITE_PIECE) {
      size_t n = in_blk - off < WRITE_PIECE ? in_blk - off : WRITE_PIECE;
      PM_TRY(pm_out_write(out, b->blk[k] + off, n, err));
    }
    left -= in_blk;
  }
  return 0;
}

static void blocks_free(blocks *b) {
  for (size_t k = 0; k < b->n_blk; k++) free(b->blk[k]);
  free(b->blk);
  memset(b, 0, sizeof *b);
}

typedef struct page_entry {
  uint64_t rel_off; /* offset within the chunk's data page buffer */
  int32_t size;     /* header + compressed body */
  int64_t first_row;
  int64_t unenc_ba;
  int64_t nulls;
  int null_page;
  size_t min_off, min_len, max_off, max_len; /* in colw.ci_bytes (truncated values) */
} page_entry;

typedef struct minmax {
  int has;
  pm_buf min, max;
} minmax;

typedef struct colw {
  wnode *leaf;
  char *path;        /* dotted */
  char **path_parts; /* path_in_schema */
  int n_parts;
  int top_field;
  int nested;
  int max_def, max_rep;
  int width; /* fixed value width in PLAIN (0 BYTE_ARRAY, -1 BOOLEAN) */

  /* current page */
  pm_buf defs, reps;   /* uint16 levels */
  /* Flat columns: def levels of 1 not stored yet. While the page has no
   * nulls its levels are only counted here (defs stays empty); the first
   * slice with nulls stores them. */
  size_t defs_ones;
  size_t n_levels;
  pm_buf plain;        /* PLAIN values (when not dictionary-encoding), from offset PLAIN_HEADROOM */
  int bool_bit;
  pm_buf idx;          /* uint32 dictionary indices */
  size_t n_values;     /* non-null values in the page */
  int64_t page_rows;
  int64_t page_nulls;
  int64_t page_unenc;
  uint64_t page_raw;   /* PLAIN size of the page's values (dictionary decision) */
  minmax pst;
  int64_t *page_def_hist, *page_rep_hist;

  /* dictionary */
  int dict_active;
  int dict_pages;      /* data pages written dictionary-encoded in this chunk */
  int plain_pages;
  int first_page_done;
  /* A chunk of this file gave its dictionary up before writing a page with
   * it (too many distinct values): the file's later chunks (the many small
   * row groups of a write bounded in memory) start PLAIN instead of building
   * a dictionary again only to drop it. */
  int dict_refused;
  pm_pq_enc_dict dict;

  /* current chunk */
  blocks data;         /* data pages, header + body */
  page_entry *pages;
  size_t n_pages, cap_pages;
  pm_buf ci_bytes;     /* truncated page min/max values */
  pm_buf hist;         /* int64: per page rep hist then def hist */
  minmax cst;
  int64_t chunk_nulls, chunk_values, chunk_rows, chunk_unenc;
  int64_t *chunk_def_hist, *chunk_rep_hist;
  int nan_seen;
  uint64_t data_uncompressed; /* data pages: header + uncompressed body */

  /* whole file (results) */
  minmax fst;
  int64_t file_nulls, file_values;
  int file_nan_only;

  /* slice scratch */
  pm_buf sidx;  /* int64 physical indices of non-null leaf values */
  /* >= 0: the slice's values are the contig_n consecutive physical indices
   * from contig_start (flat column without nulls) and sidx is not filled. */
  int64_t contig_start;
  size_t contig_n;
  pm_buf phys;  /* gathered physical values */
  const uint8_t *vals; /* the slice's values in Parquet physical form: phys.data, or the Arrow buffer itself */
  size_t nvals;        /* number of values at vals */
} colw;

/* Footer information of one written column chunk. */
typedef struct chunk_meta {
  pm_buf cmd;        /* encoded ColumnMetaData struct */
  pm_buf colidx;     /* encoded ColumnIndex (empty = none) */
  pm_buf offidx;     /* encoded OffsetIndex */
  uint64_t file_offset;
  uint64_t total_unc;
  uint64_t colidx_off, offidx_off;
} chunk_meta;

typedef struct rg_meta {
  chunk_meta *chunks;
  int64_t num_rows;
  int64_t total_byte_size, total_compressed;
  uint64_t file_offset;
} rg_meta;

struct pm_pq_writer {
  pm_pq_write_options o;
  char *path;
  char *created_by;
  pm_out_file *out;
  wnode root; /* STRUCT of the top-level fields */
  colw *cols;
  size_t n_cols;
  rg_meta *rgs;
  size_t n_rgs, cap_rgs;
  int64_t rg_rows;
  int64_t total_rows;
  int closed, failed;
  ZSTD_CCtx *zctx;
  pm_buf scratch, comp, hdr, tmp;
  double bytes_per_row; /* largest column's estimated page bytes per row */
  pm_pq_write_result result;
  pm_pq_write_column_stats *stats;
};

/* ---- small helpers --------------------------------------------------------------- */

static int push_u16(pm_buf *b, uint16_t v) {
  if (b->len + 2 > b->cap && pm_buf_reserve(b, 2)) return PAIMON_ERR_NOMEM;
  memcpy(b->data + b->len, &v, 2);
  b->len += 2;
  return 0;
}

static int push_i64(pm_buf *b, int64_t v) {
  if (b->len + 8 > b->cap && pm_buf_reserve(b, 8)) return PAIMON_ERR_NOMEM;
  memcpy(b->data + b->len, &v, 8);
  b->len += 8;
  return 0;
}

static int buf_set(pm_buf *b, const void *p, size_t n) {
  b->len = 0;
  return pm_buf_append(b, p, n);
}

static inline int valid_at(const struct ArrowArray *a, int64_t i) {
  const uint8_t *bits = a->buffers[0];
  if (!bits || a->null_count == 0) return 1;
  return (bits[i >> 3] >> (i & 7)) & 1;
}

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

/* ---- options --------------------------------------------------------------------- */

void pm_pq_write_options_default(pm_pq_write_options *o) {
  memset(o, 0, sizeof *o);
  o->codec = PM_CODEC_ZSTD;
  o->codec_level = 0;
  o->row_group_bytes = 128u << 20;
  o->row_group_rows = 0;
  o->page_bytes = 1u << 20;
  o->page_rows = 20000;
  o->dictionary = 1;
  o->dictionary_page_bytes = 1u << 20;
  o->data_page_v2 = 0;
  o->page_crc = 1;
  o->column_index_truncate = 64;
}

/* ---- schema conversion --------------------------------------------------------- */

static void node_free(wnode *n) {
  for (int i = 0; i < n->n_children; i++) node_free(&n->children[i]);
  free(n->children);
  free(n->name);
  memset(n, 0, sizeof *n);
}

static int decimal_min_bytes(int precision) {
  int n = 1;
  while (pow(2.0, 8.0 * n - 1) < pow(10.0, precision)) n++;
  return n;
}

static int set_leaf_type(wnode *n, const char *f, const char *name, pm_error *err) {
  n->kind = NK_LEAF;
  n->converted = -1;
  n->lt_kind = PM_PQ_LT_NONE;
  n->sort_signed = 1;
  n->ptype = -1;
  if (!strcmp(f, "b")) { n->akind = AK_BOOL; n->ptype = PM_PQ_BOOLEAN; }
  else if (!strcmp(f, "c")) { n->akind = AK_I8; n->ptype = PM_PQ_INT32; n->converted = PM_PQ_CT_INT_8; n->lt_kind = PM_PQ_LT_INTEGER; n->lt_bits = 8; n->lt_signed = 1; }
  else if (!strcmp(f, "s")) { n->akind = AK_I16; n->ptype = PM_PQ_INT32; n->converted = PM_PQ_CT_INT_16; n->lt_kind = PM_PQ_LT_INTEGER; n->lt_bits = 16; n->lt_signed = 1; }
  else if (!strcmp(f, "i")) { n->akind = AK_I32; n->ptype = PM_PQ_INT32; }
  else if (!strcmp(f, "l")) { n->akind = AK_I64; n->ptype = PM_PQ_INT64; }
  else if (!strcmp(f, "C")) { n->akind = AK_U8; n->ptype = PM_PQ_INT32; n->converted = PM_PQ_CT_UINT_8; n->lt_kind = PM_PQ_LT_INTEGER; n->lt_bits = 8; }
  else if (!strcmp(f, "S")) { n->akind = AK_U16; n->ptype = PM_PQ_INT32; n->converted = PM_PQ_CT_UINT_16; n->lt_kind = PM_PQ_LT_INTEGER; n->lt_bits = 16; }
  else if (!strcmp(f, "I")) { n->akind = AK_U32; n->ptype = PM_PQ_INT32; n->converted = PM_PQ_CT_UINT_32; n->lt_kind = PM_PQ_LT_INTEGER; n->lt_bits = 32; }
  else if (!strcmp(f, "L")) { n->akind = AK_U64; n->ptype = PM_PQ_INT64; n->converted = PM_PQ_CT_UINT_64; n->lt_kind = PM_PQ_LT_INTEGER; n->lt_bits = 64; }
  else if (!strcmp(f, "f")) { n->akind = AK_F32; n->ptype = PM_PQ_FLOAT; }
  else if (!strcmp(f, "g")) { n->akind = AK_F64; n->ptype = PM_PQ_DOUBLE; }
  else if (!strcmp(f, "tdD") || !strcmp(f, "tdm")) {
    n->akind = f[2] == 'D' ? AK_DATE32 : AK_DATE64; n->ptype = PM_PQ_INT32; n->converted = PM_PQ_CT_DATE; n->lt_kind = PM_PQ_LT_DATE;
  } else if (!strcmp(f, "tts") || !strcmp(f, "ttm")) {
    /* Java marks TIME isAdjustedToUTC=true; we write false (Paimon TIME has no zone, Paimon's
     * reader ignores the flag, and DuckDB would otherwise read it as TIME WITH TIME ZONE). */
    n->akind = f[2] == 's' ? AK_TIME32_S : AK_TIME32_MS; n->ptype = PM_PQ_INT32; n->converted = PM_PQ_CT_TIME_MILLIS;
    n->lt_kind = PM_PQ_LT_TIME; n->lt_unit = 1;
  } else if (!strcmp(f, "ttu")) {
    n->akind = AK_TIME64_US; n->ptype = PM_PQ_INT64; n->converted = PM_PQ_CT_TIME_MICROS;
    n->lt_kind = PM_PQ_LT_TIME; n->lt_unit = 2;
  } else if (!strcmp(f, "ttn")) {
    n->akind = AK_TIME64_NS; n->ptype = PM_PQ_INT64; n->lt_kind = PM_PQ_LT_TIME; n->lt_unit = 3;
  } else if (!strncmp(f, "ts", 2) && f[2] && f[3] == ':') {
    int utc = f[4] != '\0';
    switch (f[2]) {
      case 's': n->akind = AK_TS_S; break;
      case 'm': n->akind = AK_TS_MS; break;
      case 'u': n->akind = AK_TS_US; break;
      case 'n': n->akind = AK_TS_NS; break;
      default: return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "parquet writer: field %s: Arrow format '%s'", name, f);
    }
    if (n->akind == AK_TS_NS) {
      n->ptype = PM_PQ_INT96; /* as Java Paimon for precision > 6 */
    } else {
      n->ptype = PM_PQ_INT64;
      int micros = n->akind == AK_TS_US;
      n->converted = micros ? PM_PQ_CT_TIMESTAMP_MICROS : PM_PQ_CT_TIMESTAMP_MILLIS;
      n->lt_kind = PM_PQ_LT_TIMESTAMP;
      n->lt_unit = micros ? 2 : 1;
      n->lt_utc = utc;
    }
  } else if (!strncmp(f, "d:", 2)) {
    int p = 0, s = 0, bw = 128;
    int k = sscanf(f + 2, "%d,%d,%d", &p, &s, &bw);
    if (k < 2 || p < 1 || (bw != 128 && bw != 256) || p > (bw == 128 ? 38 : 76) || s < 0 || s > p)
      return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "parquet writer: field %s: decimal format '%s'", name, f);
    n->akind = bw == 128 ? AK_DEC128 : AK_DEC256;
    n->dec_src_bytes = bw / 8;
    n->precision = p;
    n->scale = s;
    n->converted = PM_PQ_CT_DECIMAL;
    n->lt_kind = PM_PQ_LT_DECIMAL;
    n->sort_signed = 0; /* parquet-mr: decimal sort order is not SIGNED for the deprecated fields */
    if (p <= 9) n->ptype = PM_PQ_INT32;
    else if (p <= 18) n->ptype = PM_PQ_INT64;
    else {
      n->ptype = PM_PQ_FIXED_LEN_BYTE_ARRAY;
      n->type_length = decimal_min_bytes(p);
      n->decimal_order = 1;
    }
  } else if (!strcmp(f, "u") || !strcmp(f, "U")) {
    n->akind = f[0] == 'u' ? AK_STR : AK_LSTR; n->ptype = PM_PQ_BYTE_ARRAY; n->converted = PM_PQ_CT_UTF8;
    n->lt_kind = PM_PQ_LT_STRING; n->sort_signed = 0;
  } else if (!strcmp(f, "z") || !strcmp(f, "Z")) {
    n->akind = f[0] == 'z' ? AK_BIN : AK_LBIN; n->ptype = PM_PQ_BYTE_ARRAY; n->sort_signed = 0;
  } else if (!strncmp(f, "w:", 2)) {
    long long wdt = atoll(f + 2);
    if (wdt < 0 || wdt > (1 << 30))
      return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "parquet writer: field %s: format '%s'", name, f);
    n->akind = AK_FSB; n->fsb_width = wdt; n->ptype = PM_PQ_BYTE_ARRAY; n->sort_signed = 0; /* Paimon BINARY(n) */
  }
  if (n->ptype < 0)
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "parquet writer: field %s: unsupported Arrow format '%s'", name, f);
  if (n->akind == AK_U8 || n->akind == AK_U16 || n->akind == AK_U32 || n->akind == AK_U64) {
    n->unsigned_order = 1;
    n->sort_signed = 0;
  }
  return 0;
}

static int read_field_id(const struct ArrowSchema *s, wnode *n) {
  char *v = pm_schema_metadata_get(s, "PARQUET:field_id");
  if (!v) return 0;
  char *end = NULL;
  long long id = strtoll(v, &end, 10);
  if (end && *end == '\0' && end != v && id >= INT32_MIN && id <= INT32_MAX) {
    n->has_field_id = 1;
    n->field_id = (int32_t)id;
  }
  free(v);
  return 0;
}

/* Builds node n from Arrow schema s. def: definition level of the parent
 * context; force_required: map keys. */
static int build_node(wnode *n, const struct ArrowSchema *s, const char *name, int def, int rep, int depth,
                      int force_required, pm_error *err) {
  if (depth > PM_PQ_MAX_NESTING)
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "parquet writer: nesting deeper than %d", PM_PQ_MAX_NESTING);
  if (!s || !s->format) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "parquet writer: field %s has no format", name);
  n->name = pm_strdup(name);
  if (!n->name) return PM_NOMEM(err);
  n->optional = force_required ? 0 : (s->flags & ARROW_FLAG_NULLABLE) != 0;
  read_field_id(s, n);
  n->def = def + n->optional;
  const char *f = s->format;
  if (s->dictionary) return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "parquet writer: field %s: dictionary arrays", name);
  if (!strcmp(f, "+s")) {
    n->kind = NK_STRUCT;
    if (s->n_children <= 0)
      return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "parquet writer: field %s: struct without fields", name);
    n->children = calloc((size_t)s->n_children, sizeof *n->children);
    if (!n->children) return PM_NOMEM(err);
    n->n_children = (int)s->n_children;
    for (int i = 0; i < n->n_children; i++) {
      const struct ArrowSchema *c = s->children[i];
      PM_TRY(build_node(&n->children[i], c, c && c->name ? c->name : "", n->def, rep, depth + 1, 0, err));
    }
    return 0;
  }
  if (!strcmp(f, "+l") || !strcmp(f, "+L") || !strncmp(f, "+w:", 3)) {
    n->kind = NK_LIST;
    n->large_offsets = f[1] == 'L';
    if (f[1] == 'w') {
      n->fixed_size = atoll(f + 3);
      if (n->fixed_size < 0 || n->fixed_size > (1 << 30))
        return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "parquet writer: field %s: format '%s'", name, f);
    }
    if (s->n_children != 1)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "parquet writer: list field %s needs one child", name);
    n->rep = rep + 1;
    n->children = calloc(1, sizeof *n->children);
    if (!n->children) return PM_NOMEM(err);
    n->n_children = 1;
    return build_node(&n->children[0], s->children[0], "element", n->def + 1, n->rep, depth + 1, 0, err);
  }
  if (!strcmp(f, "+m")) {
    n->kind = NK_MAP;
    const struct ArrowSchema *e = s->n_children == 1 ? s->children[0] : NULL;
    if (!e || !e->format || strcmp(e->format, "+s") || e->n_children != 2)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "parquet writer: map field %s needs a struct<key,value> child", name);
    n->rep = rep + 1;
    n->children = calloc(2, sizeof *n->children);
    if (!n->children) return PM_NOMEM(err);
    n->n_children = 2;
    PM_TRY(build_node(&n->children[0], e->children[0], "key", n->def + 1, n->rep, depth + 1, 1, err));
    return build_node(&n->children[1], e->children[1], "value", n->def + 1, n->rep, depth + 1, 0, err);
  }
  if (f[0] == '+')
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "parquet writer: field %s: unsupported Arrow format '%s'", name, f);
  return set_leaf_type(n, f, name, err);
}

/* ---- column setup ---------------------------------------------------------------- */

static int count_leaves(const wnode *n) {
  if (n->kind == NK_LEAF) return 1;
  int c = 0;
  for (int i = 0; i < n->n_children; i++) c += count_leaves(&n->children[i]);
  return c;
}

static int leaf_width(const wnode *n) {
  switch (n->ptype) {
    case PM_PQ_BOOLEAN: return -1;
    case PM_PQ_INT32: case PM_PQ_FLOAT: return 4;
    case PM_PQ_INT64: case PM_PQ_DOUBLE: return 8;
    case PM_PQ_INT96: return 12;
    case PM_PQ_FIXED_LEN_BYTE_ARRAY: return n->type_length;
    default: return 0;
  }
}

typedef struct path_stack {
  const char *parts[PM_PQ_MAX_NESTING * 2 + 4];
  int n;
} path_stack;

static int setup_columns(pm_pq_writer *w, wnode *n, path_stack *ps, int top, int depth, int max_rep, pm_error *err) {
  ps->parts[ps->n++] = n->name;
  int rc = 0;
  if (n->kind == NK_LEAF) {
    colw *c = &w->cols[w->n_cols];
    n->leaf_index = (int)w->n_cols;
    c->leaf = n;
    c->top_field = top;
    c->nested = depth > 0;
    c->max_def = n->def;
    c->max_rep = max_rep;
    c->width = leaf_width(n);
    c->n_parts = ps->n;
    c->path_parts = calloc((size_t)ps->n, sizeof(char *));
    size_t total = 0;
    for (int i = 0; i < ps->n; i++) total += strlen(ps->parts[i]) + 1;
    c->path = malloc(total);
    c->page_def_hist = calloc((size_t)c->max_def + 1, sizeof(int64_t));
    c->page_rep_hist = calloc((size_t)c->max_rep + 1, sizeof(int64_t));
    c->chunk_def_hist = calloc((size_t)c->max_def + 1, sizeof(int64_t));
    c->chunk_rep_hist = calloc((size_t)c->max_rep + 1, sizeof(int64_t));
    if (!c->path_parts || !c->path || !c->page_def_hist || !c->page_rep_hist || !c->chunk_def_hist ||
        !c->chunk_rep_hist) {
      w->n_cols++;
      return PM_NOMEM(err);
    }
    char *p = c->path;
    for (int i = 0; i < ps->n; i++) {
      c->path_parts[i] = pm_strdup(ps->parts[i]);
      if (!c->path_parts[i]) {
        w->n_cols++;
        return PM_NOMEM(err);
      }
      size_t l = strlen(ps->parts[i]);
      memcpy(p, ps->parts[i], l);
      p += l;
      *p++ = i + 1 < ps->n ? '.' : '\0';
    }
    pm_pq_enc_dict_init(&c->dict, c->width > 0 ? (size_t)c->width : 0);
    if (pm_buf_append_zeros(&c->plain, PLAIN_HEADROOM)) {
      w->n_cols++;
      return PM_NOMEM(err);
    }
    c->dict_active = w->o.dictionary && c->width != -1;
    c->file_nan_only = 1;
    w->n_cols++;
  } else if (n->kind == NK_LIST) {
    ps->parts[ps->n++] = "list";
    rc = setup_columns(w, &n->children[0], ps, top, depth + 1, n->rep, err);
    ps->n--;
  } else if (n->kind == NK_MAP) {
    ps->parts[ps->n++] = "key_value";
    rc = setup_columns(w, &n->children[0], ps, top, depth + 1, n->rep, err);
    if (!rc) rc = setup_columns(w, &n->children[1], ps, top, depth + 1, n->rep, err);
    ps->n--;
  } else {
    for (int i = 0; i < n->n_children && !rc; i++) rc = setup_columns(w, &n->children[i], ps, top, depth + 1, max_rep, err);
  }
  ps->n--;
  return rc;
}

/* ---- value comparison (statistics) ------------------------------------------------ */

static int cmp_values(const wnode *n, const uint8_t *a, size_t al, const uint8_t *b, size_t bl) {
  switch (n->ptype) {
    case PM_PQ_BOOLEAN: return (int)a[0] - (int)b[0];
    case PM_PQ_INT32: {
      int32_t x, y;
      memcpy(&x, a, 4);
      memcpy(&y, b, 4);
      if (n->unsigned_order) return (uint32_t)x < (uint32_t)y ? -1 : (uint32_t)x > (uint32_t)y;
      return x < y ? -1 : x > y;
    }
    case PM_PQ_INT64: {
      int64_t x, y;
      memcpy(&x, a, 8);
      memcpy(&y, b, 8);
      if (n->unsigned_order) return (uint64_t)x < (uint64_t)y ? -1 : (uint64_t)x > (uint64_t)y;
      return x < y ? -1 : x > y;
    }
    case PM_PQ_FLOAT: {
      float x, y;
      memcpy(&x, a, 4);
      memcpy(&y, b, 4);
      return x < y ? -1 : x > y;
    }
    case PM_PQ_DOUBLE: {
      double x, y;
      memcpy(&x, a, 8);
      memcpy(&y, b, 8);
      return x < y ? -1 : x > y;
    }
    case PM_PQ_FIXED_LEN_BYTE_ARRAY:
      if (n->decimal_order && al && bl) {
        int sa = (int8_t)a[0], sb = (int8_t)b[0];
        if (sa != sb) return sa < sb ? -1 : 1;
        int r = memcmp(a + 1, b + 1, al - 1);
        return r < 0 ? -1 : r > 0;
      }
      /* fallthrough */
    default: {
      size_t m = al < bl ? al : bl;
      int r = m ? memcmp(a, b, m) : 0;
      if (r) return r < 0 ? -1 : 1;
      return al < bl ? -1 : al > bl;
    }
  }
}

/* Merges the range [mn, mx] into st. */
static int mm_merge(const wnode *n, minmax *st, const uint8_t *mn, size_t mnl, const uint8_t *mx, size_t mxl) {
  if (!st->has) {
    if (buf_set(&st->min, mn, mnl) || buf_set(&st->max, mx, mxl)) return PAIMON_ERR_NOMEM;
    st->has = 1;
    return 0;
  }
  if (cmp_values(n, mn, mnl, st->min.data, st->min.len) < 0 && buf_set(&st->min, mn, mnl)) return PAIMON_ERR_NOMEM;
  if (cmp_values(n, mx, mxl, st->max.data, st->max.len) > 0 && buf_set(&st->max, mx, mxl)) return PAIMON_ERR_NOMEM;
  return 0;
}

static void mm_free(minmax *m) {
  pm_buf_free(&m->min);
  pm_buf_free(&m->max);
  m->has = 0;
}

/* ---- shredding (Dremel levels) ---------------------------------------------------- */

static inline int emit_level(colw *c, int def, int rep) {
  if (c->max_def > 0 && push_u16(&c->defs, (uint16_t)def)) return PAIMON_ERR_NOMEM;
  if (c->max_rep > 0 && push_u16(&c->reps, (uint16_t)rep)) return PAIMON_ERR_NOMEM;
  c->n_levels++;
  c->page_def_hist[def]++;
  c->page_rep_hist[rep]++;
  if (rep == 0) c->page_rows++;
  return 0;
}

/* Stores the pending def levels of 1 (before a slice with nulls). */
static int materialize_defs(colw *c) {
  if (!c->defs_ones) return 0;
  if (pm_buf_reserve(&c->defs, c->defs_ones * 2)) return PAIMON_ERR_NOMEM;
  uint16_t *dl = (uint16_t *)(void *)(c->defs.data + c->defs.len);
  for (size_t r = 0; r < c->defs_ones; r++) dl[r] = 1;
  c->defs.len += c->defs_ones * 2;
  c->defs_ones = 0;
  return 0;
}

static int emit_absent(pm_pq_writer *w, const wnode *n, int def, int rep) {
  if (n->kind == NK_LEAF) {
    colw *c = &w->cols[n->leaf_index];
    c->page_nulls++;
    return emit_level(c, def, rep);
  }
  for (int i = 0; i < n->n_children; i++) PM_TRY(emit_absent(w, &n->children[i], def, rep));
  return 0;
}

static int bad_array(pm_error *err, const wnode *n, const char *what) {
  return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "parquet writer: field %s: %s", n->name, what);
}

/* Physical index i of array a (a->offset included). */
static int shred(pm_pq_writer *w, const wnode *n, const struct ArrowArray *a, int64_t i, int def, int rep,
                 pm_error *err) {
  if (n->optional && !valid_at(a, i)) return emit_absent(w, n, def, rep) ? PM_NOMEM(err) : 0;
  int d = n->def;
  switch (n->kind) {
    case NK_LEAF: {
      colw *c = &w->cols[n->leaf_index];
      if (emit_level(c, d, rep) || push_i64(&c->sidx, i)) return PM_NOMEM(err);
      return 0;
    }
    case NK_STRUCT:
      for (int k = 0; k < n->n_children; k++) {
        const struct ArrowArray *ch = a->children[k];
        PM_TRY(shred(w, &n->children[k], ch, ch->offset + i, d, rep, err));
      }
      return 0;
    case NK_LIST:
    case NK_MAP: {
      int64_t start, end;
      if (n->fixed_size) {
        start = i * n->fixed_size;
        end = start + n->fixed_size;
      } else if (n->large_offsets) {
        const int64_t *off = a->buffers[1];
        start = off[i];
        end = off[i + 1];
      } else {
        const int32_t *off = a->buffers[1];
        start = off[i];
        end = off[i + 1];
      }
      const struct ArrowArray *ch = a->children[0];
      if (start < 0 || end < start || end > ch->length) return bad_array(err, n, "list offsets out of range");
      if (start == end) return emit_absent(w, n, d, rep) ? PM_NOMEM(err) : 0;
      for (int64_t k = start; k < end; k++) {
        int r = k == start ? rep : n->rep;
        if (n->kind == NK_LIST) {
          PM_TRY(shred(w, &n->children[0], ch, ch->offset + k, d + 1, r, err));
        } else {
          int64_t e = ch->offset + k;
          const struct ArrowArray *kc = ch->children[0], *vc = ch->children[1];
          PM_TRY(shred(w, &n->children[0], kc, kc->offset + e, d + 1, r, err));
          PM_TRY(shred(w, &n->children[1], vc, vc->offset + e, d + 1, r, err));
        }
      }
      return 0;
    }
  }
  return 0;
}

/* Checks buffers and children exist for every array under node n. */
static int check_array(const wnode *n, const struct ArrowArray *a, int64_t need_len, pm_error *err) {
  if (!a || !a->release) return bad_array(err, n, "missing or released array");
  if (a->length < 0 || a->offset < 0 || a->length < need_len) return bad_array(err, n, "array shorter than its parent");
  if (n->optional && a->null_count != 0 && a->n_buffers < 1) return bad_array(err, n, "no validity buffer slot");
  switch (n->kind) {
    case NK_LEAF: {
      int64_t nb = (n->akind >= AK_STR && n->akind <= AK_LBIN) ? 3 : 2;
      if (a->n_buffers < nb) return bad_array(err, n, "too few buffers");
      if (a->length > 0 && (!a->buffers[1] || (nb == 3 && !a->buffers[2]))) return bad_array(err, n, "NULL data buffer");
      return 0;
    }
    case NK_STRUCT:
      if (a->n_children != n->n_children) return bad_array(err, n, "struct child count differs from schema");
      for (int k = 0; k < n->n_children; k++)
        PM_TRY(check_array(&n->children[k], a->children[k], a->offset + a->length, err));
      return 0;
    case NK_LIST:
    case NK_MAP: {
      if (a->n_children != 1) return bad_array(err, n, "list/map without child");
      if (!n->fixed_size && (a->n_buffers < 2 || (a->length > 0 && !a->buffers[1]))) return bad_array(err, n, "no offsets");
      const struct ArrowArray *ch = a->children[0];
      int64_t child_need = n->fixed_size ? (a->offset + a->length) * n->fixed_size : 0;
      if (n->kind == NK_LIST) return check_array(&n->children[0], ch, child_need, err);
      if (!ch || !ch->release || ch->n_children != 2) return bad_array(err, n, "map entries must be struct<key,value>");
      PM_TRY(check_array(&n->children[0], ch->children[0], ch->offset + ch->length, err));
      return check_array(&n->children[1], ch->children[1], ch->offset + ch->length, err);
    }
  }
  return 0;
}

/* ---- value gathering and encoding ------------------------------------------------ */

typedef pm_pq_enc_ba ba_ref;

/* Converts the values at the physical indices in c->sidx to Parquet physical
 * values in c->phys (fixed width bytes, 0/1 bytes for BOOLEAN, ba_ref for BYTE_ARRAY). */
static int gather(colw *c, const struct ArrowArray *a, pm_error *err) {
  const wnode *n = c->leaf;
  if (c->contig_start >= 0) {
    /* Consecutive values: types stored as-is are used in place, byte arrays
     * read their offsets in order; the rest go through the index list. */
    int64_t st = c->contig_start;
    size_t cn = c->contig_n;
    const uint8_t *vb = a->buffers[1];
    switch (n->akind) {
      case AK_I32: case AK_U32: case AK_DATE32: case AK_TIME32_MS: case AK_F32:
        c->vals = cn ? vb + (size_t)st * 4 : vb;
        c->nvals = cn;
        return 0;
      case AK_I64: case AK_U64: case AK_TIME64_US: case AK_TIME64_NS: case AK_TS_MS: case AK_TS_US: case AK_F64:
        c->vals = cn ? vb + (size_t)st * 8 : vb;
        c->nvals = cn;
        return 0;
      case AK_STR: case AK_BIN: case AK_LSTR: case AK_LBIN: {
        c->phys.len = 0;
        if (pm_buf_reserve(&c->phys, cn * sizeof(ba_ref) + 1)) return PM_NOMEM(err);
        const uint8_t *data = a->buffers[2];
        ba_ref *r = (ba_ref *)(void *)c->phys.data;
        int64_t bad = 0;
        if (n->akind == AK_STR || n->akind == AK_BIN) {
          const int32_t *off = (const int32_t *)(const void *)vb + st;
          for (size_t k = 0; k < cn; k++) {
            int32_t b = off[k], e = off[k + 1];
            bad |= b < 0 || e < b;
            r[k].p = data + b;
            r[k].len = (size_t)(e - b);
          }
        } else {
          const int64_t *off = (const int64_t *)(const void *)vb + st;
          for (size_t k = 0; k < cn; k++) {
            int64_t b = off[k], e = off[k + 1];
            bad |= b < 0 || e < b;
            r[k].p = data + b;
            r[k].len = (size_t)(e - b);
          }
        }
        if (bad) return bad_array(err, n, "string offsets decrease");
        c->phys.len = cn * sizeof(ba_ref);
        c->vals = c->phys.data;
        c->nvals = cn;
        return 0;
      }
      default:
        break;
    }
  }
  /* Physical index of value k: from the index list, or consecutive from s0. */
  const int64_t *ix = c->contig_start >= 0 ? NULL : (const int64_t *)(const void *)c->sidx.data;
  int64_t s0 = c->contig_start;
  size_t cnt = ix ? c->sidx.len / 8 : c->contig_n;
#define IXK(k) (ix ? ix[k] : s0 + (int64_t)(k))
  size_t unit = c->width > 0 ? (size_t)c->width : c->width == -1 ? 1 : sizeof(ba_ref);
  c->phys.len = 0;
  if (pm_buf_reserve(&c->phys, cnt * unit + 1)) return PM_NOMEM(err);
  uint8_t *out = c->phys.data;
  const void *vb = a->buffers[1];
  switch (n->akind) {
    case AK_BOOL: {
      const uint8_t *bits = vb;
      for (size_t k = 0; k < cnt; k++) out[k] = (bits[IXK(k) >> 3] >> (IXK(k) & 7)) & 1;
      break;
    }
#define GATHER_CAST(SRC_T, DST_T, EXPR)                  \
  {                                                      \
    const SRC_T *src = vb;                               \
    DST_T *dst = (DST_T *)(void *)out;                   \
    for (size_t k = 0; k < cnt; k++) {                   \
      SRC_T v = src[IXK(k)];                              \
      DST_T r = (DST_T)(EXPR);                           \
      memcpy(dst + k, &r, sizeof r);                     \
    }                                                    \
    break;                                               \
  }
    case AK_I8: GATHER_CAST(int8_t, int32_t, v)
    case AK_U8: GATHER_CAST(uint8_t, int32_t, v)
    case AK_I16: GATHER_CAST(int16_t, int32_t, v)
    case AK_U16: GATHER_CAST(uint16_t, int32_t, v)
    case AK_I32: case AK_DATE32: case AK_TIME32_MS: GATHER_CAST(int32_t, int32_t, v)
    case AK_U32: GATHER_CAST(uint32_t, int32_t, (int32_t)v)
    case AK_TIME32_S: GATHER_CAST(int32_t, int32_t, (int32_t)((uint32_t)v * 1000u))
    case AK_DATE64: GATHER_CAST(int64_t, int32_t, floor_div(v, 86400000))
    case AK_I64: case AK_U64: case AK_TIME64_US: case AK_TIME64_NS: case AK_TS_MS: case AK_TS_US:
      GATHER_CAST(int64_t, int64_t, v)
    case AK_TS_S: GATHER_CAST(int64_t, int64_t, (int64_t)((uint64_t)v * 1000u))
    case AK_F32: GATHER_CAST(float, float, v)
    case AK_F64: GATHER_CAST(double, double, v)
#undef GATHER_CAST
    case AK_TS_NS: {
      /* Java Paimon's INT96: truncating division of epoch millis (nanos of day may be negative). */
      const int64_t *src = vb;
      for (size_t k = 0; k < cnt; k++) {
        int64_t ns = src[IXK(k)];
        int64_t ms = floor_div(ns, 1000000);
        int64_t nom = ns - ms * 1000000;
        int32_t day = (int32_t)(ms / 86400000 + 2440588);
        int64_t nod = (ms % 86400000) * 1000000 + nom;
        memcpy(out + k * 12, &nod, 8);
        memcpy(out + k * 12 + 8, &day, 4);
      }
      break;
    }
    case AK_DEC128:
    case AK_DEC256: {
      const uint8_t *src = vb;
      size_t sb = (size_t)n->dec_src_bytes;
      if (n->ptype == PM_PQ_INT32) {
        for (size_t k = 0; k < cnt; k++) memcpy(out + k * 4, src + (size_t)IXK(k) * sb, 4);
      } else if (n->ptype == PM_PQ_INT64) {
        for (size_t k = 0; k < cnt; k++) memcpy(out + k * 8, src + (size_t)IXK(k) * sb, 8);
      } else {
        size_t wdt = (size_t)n->type_length;
        for (size_t k = 0; k < cnt; k++) {
          const uint8_t *le = src + (size_t)IXK(k) * sb;
          uint8_t *be = out + k * wdt;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
          if (wdt == 16) {
            uint64_t lo, hi;
            memcpy(&lo, le, 8);
            memcpy(&hi, le + 8, 8);
            hi = __builtin_bswap64(hi);
            lo = __builtin_bswap64(lo);
            memcpy(be, &hi, 8);
            memcpy(be + 8, &lo, 8);
            continue;
          }
#endif
          for (size_t b = 0; b < wdt; b++) be[b] = le[wdt - 1 - b];
        }
      }
      break;
    }
    case AK_STR:
    case AK_BIN: {
      const int32_t *off = vb;
      const uint8_t *data = a->buffers[2];
      ba_ref *r = (ba_ref *)(void *)out;
      for (size_t k = 0; k < cnt; k++) {
        int32_t s = off[IXK(k)], e = off[IXK(k) + 1];
        if (s < 0 || e < s) return bad_array(err, n, "string offsets decrease");
        r[k].p = data + s;
        r[k].len = (size_t)(e - s);
      }
      break;
    }
    case AK_LSTR:
    case AK_LBIN: {
      const int64_t *off = vb;
      const uint8_t *data = a->buffers[2];
      ba_ref *r = (ba_ref *)(void *)out;
      for (size_t k = 0; k < cnt; k++) {
        int64_t s = off[IXK(k)], e = off[IXK(k) + 1];
        if (s < 0 || e < s) return bad_array(err, n, "string offsets decrease");
        r[k].p = data + s;
        r[k].len = (size_t)(e - s);
      }
      break;
    }
    case AK_FSB: {
      const uint8_t *data = vb;
      ba_ref *r = (ba_ref *)(void *)out;
      for (size_t k = 0; k < cnt; k++) {
        r[k].p = data + (size_t)IXK(k) * (size_t)n->fsb_width;
        r[k].len = (size_t)n->fsb_width;
      }
      break;
    }
  }
  c->phys.len = cnt * unit;
  c->vals = c->phys.data;
  c->nvals = cnt;
  return 0;
#undef IXK
}

/* Float min/max, NaNs skipped (and remembered: no column index then). After
 * the first non-NaN value, "x < mn ? x : mn" keeps mn on NaN, exactly as the
 * branchy form, and compiles to minss/minsd. */
#define DEFINE_FLOAT_STATS(name, T)                                                 \
  static int name(colw *c, const uint8_t *v, size_t cnt) {                         \
    size_t k = 0;                                                                   \
    T x, mn, mx;                                                                    \
    int nan = 0;                                                                    \
    for (; k < cnt; k++) {                                                          \
      memcpy(&x, v + sizeof(T) * k, sizeof(T));                                     \
      if (!isnan(x)) break;                                                         \
      nan = 1;                                                                      \
    }                                                                               \
    if (nan) c->nan_seen = 1;                                                       \
    if (k == cnt) return 0;                                                         \
    mn = mx = x;                                                                    \
    for (k++; k < cnt; k++) {                                                       \
      memcpy(&x, v + sizeof(T) * k, sizeof(T));                                     \
      nan |= x != x;                                                                \
      mn = x < mn ? x : mn;                                                         \
      mx = x > mx ? x : mx;                                                         \
    }                                                                               \
    if (nan) c->nan_seen = 1;                                                       \
    return mm_merge(c->leaf, &c->pst, (uint8_t *)&mn, sizeof(T), (uint8_t *)&mx, sizeof(T)); \
  }
DEFINE_FLOAT_STATS(stats_f32, float)
DEFINE_FLOAT_STATS(stats_f64, double)
#undef DEFINE_FLOAT_STATS

/* Page-level min/max of fixed-width values, NaNs skipped. */
static int stats_fixed(colw *c, const uint8_t *v, size_t cnt) {
  const wnode *n = c->leaf;
  size_t wdt = (size_t)c->width;
  if (n->ptype == PM_PQ_INT96 || cnt == 0) return 0;
  if (n->ptype == PM_PQ_INT32 && !n->unsigned_order) {
    int32_t mn, mx;
    memcpy(&mn, v, 4);
    mx = mn;
    for (size_t k = 1; k < cnt; k++) {
      int32_t x;
      memcpy(&x, v + 4 * k, 4);
      if (x < mn) mn = x;
      if (x > mx) mx = x;
    }
    return mm_merge(n, &c->pst, (uint8_t *)&mn, 4, (uint8_t *)&mx, 4);
  }
  if (n->ptype == PM_PQ_INT64 && !n->unsigned_order) {
    int64_t mn, mx;
    memcpy(&mn, v, 8);
    mx = mn;
    for (size_t k = 1; k < cnt; k++) {
      int64_t x;
      memcpy(&x, v + 8 * k, 8);
      if (x < mn) mn = x;
      if (x > mx) mx = x;
    }
    return mm_merge(n, &c->pst, (uint8_t *)&mn, 8, (uint8_t *)&mx, 8);
  }
  if (n->ptype == PM_PQ_FLOAT) return stats_f32(c, v, cnt);
  if (n->ptype == PM_PQ_DOUBLE) return stats_f64(c, v, cnt);
  /* unsigned ints, FLBA: generic comparison */
  const uint8_t *mn = v, *mx = v;
  for (size_t k = 1; k < cnt; k++) {
    const uint8_t *x = v + k * wdt;
    if (cmp_values(n, x, wdt, mn, wdt) < 0) mn = x;
    if (cmp_values(n, x, wdt, mx, wdt) > 0) mx = x;
  }
  return mm_merge(n, &c->pst, mn, wdt, mx, wdt);
}

static inline uint64_t ba_prefix(const uint8_t *p, size_t len) {
  uint64_t x = 0;
  if (len >= 8) {
    memcpy(&x, p, 8);
  } else {
    for (size_t i = 0; i < len; i++) x |= (uint64_t)p[i] << (8 * i);
  }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  return len >= 8 ? x : __builtin_bswap64(x);
#else
  return __builtin_bswap64(x);
#endif
}

static inline int ba_cmp(const ba_ref *a, const ba_ref *b) {
  size_t m = a->len < b->len ? a->len : b->len;
  int r = m ? memcmp(a->p, b->p, m) : 0;
  if (r) return r;
  return a->len < b->len ? -1 : a->len > b->len;
}

/* Adds the gathered values of the slice to the current page. */
static int add_values(colw *c, pm_error *err) {
  const wnode *n = c->leaf;
  size_t cnt;
  cnt = c->nvals;
  if (c->width == -1) {
    const uint8_t *v = c->vals;
    int mn = 1, mx = 0;
    if (pm_buf_reserve(&c->plain, cnt / 8 + 2)) return PM_NOMEM(err);
    uint8_t *p = c->plain.data;
    size_t len = c->plain.len;
    int bit = c->bool_bit;
    for (size_t k = 0; k < cnt; k++) {
      if (bit == 0) p[len++] = 0;
      p[len - 1] |= (uint8_t)(v[k] << bit);
      bit = (bit + 1) & 7;
      mn &= v[k];
      mx |= v[k];
    }
    c->plain.len = len;
    c->bool_bit = bit;
    if (cnt) {
      uint8_t a = (uint8_t)mn, b = (uint8_t)mx;
      if (mm_merge(n, &c->pst, &a, 1, &b, 1)) return PM_NOMEM(err);
    }
    c->n_values += cnt;
    return 0;
  }
  if (c->width > 0) {
    size_t wdt = (size_t)c->width;
    const uint8_t *v = c->vals;
    if (stats_fixed(c, v, cnt)) return PM_NOMEM(err);
    /* parquet-mr counts INT96/FIXED_LEN_BYTE_ARRAY values as length-prefixed binaries */
    c->page_raw += cnt * (wdt + (n->ptype == PM_PQ_INT96 || n->ptype == PM_PQ_FIXED_LEN_BYTE_ARRAY ? 4 : 0));
    if (c->dict_active && cnt) {
      if (pm_buf_reserve(&c->idx, cnt * 4)) return PM_NOMEM(err);
      uint32_t *out = (uint32_t *)(void *)(c->idx.data + c->idx.len);
      PM_TRY(pm_pq_enc_dict_put_fixed(&c->dict, v, cnt, out, err));
      c->idx.len += cnt * 4;
    } else if (!c->dict_active && cnt && pm_buf_append(&c->plain, v, cnt * wdt)) {
      return PM_NOMEM(err);
    }
    c->n_values += cnt;
    return 0;
  }
  /* BYTE_ARRAY */
  const ba_ref *r = (const ba_ref *)(const void *)c->vals;
  if (cnt) {
    /* Unsigned lexicographic order. The first 8 bytes as a big-endian number
     * (zero-padded) decide most comparisons; equal prefixes compare in full. */
    const ba_ref *mn = &r[0], *mx = &r[0];
    uint64_t pmn = ba_prefix(r[0].p, r[0].len), pmx = pmn;
    size_t total = r[0].len;
    for (size_t k = 1; k < cnt; k++) {
      total += r[k].len;
      uint64_t pk = ba_prefix(r[k].p, r[k].len);
      if (pk < pmn || (pk == pmn && ba_cmp(&r[k], mn) < 0)) {
        mn = &r[k];
        pmn = pk;
      }
      if (pk > pmx || (pk == pmx && ba_cmp(&r[k], mx) > 0)) {
        mx = &r[k];
        pmx = pk;
      }
    }
    if (mm_merge(n, &c->pst, mn->p, mn->len, mx->p, mx->len)) return PM_NOMEM(err);
    c->page_unenc += (int64_t)total;
    c->page_raw += total + 4 * cnt;
  }
  if (c->dict_active) {
    if (cnt && pm_buf_reserve(&c->idx, cnt * 4)) return PM_NOMEM(err);
    uint32_t *out = cnt ? (uint32_t *)(void *)(c->idx.data + c->idx.len) : NULL;
    PM_TRY(pm_pq_enc_dict_put_ba(&c->dict, r, cnt, out, err));
    c->idx.len += cnt * 4;
  } else if (cnt) {
    size_t need = 0;
    for (size_t k = 0; k < cnt; k++) {
      if (r[k].len > UINT32_MAX) return bad_array(err, n, "value longer than 4 GiB");
      need += 4 + r[k].len;
    }
    if (pm_buf_reserve(&c->plain, need)) return PM_NOMEM(err);
    uint8_t *p = c->plain.data + c->plain.len;
    for (size_t k = 0; k < cnt; k++) {
      uint32_t l = (uint32_t)r[k].len;
      memcpy(p, &l, 4);
      if (l) memcpy(p + 4, r[k].p, l);
      p += 4 + l;
    }
    c->plain.len += need;
  }
  c->n_values += cnt;
  return 0;
}

/* Re-encodes the current page's dictionary indices as PLAIN values and stops
 * using the dictionary for the rest of the chunk. */
static int dict_fallback(colw *c, pm_error *err) {
  const uint32_t *ix = (const uint32_t *)(void *)c->idx.data;
  size_t cnt = c->idx.len / 4;
  if (c->width > 0 && cnt) {
    size_t wdt = (size_t)c->width;
    if (pm_buf_reserve(&c->plain, cnt * wdt)) return PM_NOMEM(err);
    uint8_t *p = c->plain.data + c->plain.len;
    const uint8_t *dict = c->dict.page.data;
    if (wdt == 4) {
      for (size_t k = 0; k < cnt; k++) memcpy(p + 4 * k, dict + (size_t)ix[k] * 4, 4);
    } else if (wdt == 8) {
      for (size_t k = 0; k < cnt; k++) memcpy(p + 8 * k, dict + (size_t)ix[k] * 8, 8);
    } else {
      for (size_t k = 0; k < cnt; k++) memcpy(p + wdt * k, dict + (size_t)ix[k] * wdt, wdt);
    }
    c->plain.len += cnt * wdt;
  } else {
    for (size_t k = 0; k < cnt; k++) {
      uint64_t off = c->dict.entry_off[ix[k]];
      uint32_t l;
      memcpy(&l, c->dict.page.data + off, 4);
      if (pm_buf_append(&c->plain, c->dict.page.data + off, 4 + (size_t)l)) return PM_NOMEM(err);
    }
  }
  c->idx.len = 0;
  c->dict_active = 0;
  /* no more lookups in this chunk: only the page (written at chunk end) is needed */
  pm_pq_enc_dict_drop_index(&c->dict);
  if (c->dict_pages == 0) {
    c->dict_refused = 1;
    /* Unused for the rest of the chunk: give the memory back rather than clear it. */
    size_t width = c->dict.width;
    pm_pq_enc_dict_free(&c->dict);
    pm_pq_enc_dict_init(&c->dict, width);
  }
  return 0;
}

/* ---- pages ------------------------------------------------------------------------ */

static int compress_into(pm_pq_writer *w, const uint8_t *src, size_t len, pm_buf *out, pm_error *err) {
  if (w->o.codec == PM_CODEC_ZSTD) {
    size_t bound = ZSTD_compressBound(len);
    if (!w->zctx && !(w->zctx = ZSTD_createCCtx())) return PM_NOMEM(err); /* made on first use, and again after a release */
    if (pm_buf_reserve(out, bound)) return PM_NOMEM(err);
    size_t r = ZSTD_compressCCtx(w->zctx, out->data + out->len, bound, src, len, w->o.codec_level ? w->o.codec_level : 1);
    if (ZSTD_isError(r)) return pm_errorf(err, PAIMON_ERR_INTERNAL, "%s: zstd: %s", w->path, ZSTD_getErrorName(r));
    out->len += r;
    return 0;
  }
  return pm_compress(w->o.codec, w->o.codec_level, src, len, out, err);
}

static int32_t crc_of(const uint8_t *p, size_t n) {
  uLong crc = crc32(0L, Z_NULL, 0);
  while (n) {
    uInt step = n > (1u << 30) ? (1u << 30) : (uInt)n;
    crc = crc32(crc, p, step);
    p += step;
    n -= step;
  }
  return (int32_t)(uint32_t)crc;
}

static int level_encoding(int max_level) { return max_level > 0 ? PM_PQ_ENC_RLE : PM_PQ_ENC_BIT_PACKED; }

static int encode_levels(const pm_buf *lv, size_t n, int max_level, int with_len, pm_buf *out, pm_error *err) {
  size_t at = out->len;
  if (with_len && pm_buf_append_zeros(out, 4)) return PM_NOMEM(err);
  PM_TRY(pm_pq_enc_rle_u16((const uint16_t *)(void *)lv->data, n, pm_pq_enc_bit_width((uint64_t)max_level), out, err));
  if (with_len) {
    uint32_t l = (uint32_t)(out->len - at - 4);
    memcpy(out->data + at, &l, 4);
  }
  return 0;
}

/* Column index truncation as parquet-mr's BinaryTruncator (UTF-8 aware for
 * strings and unannotated binary; decimals are not truncated). */
/* Appends the truncated bound to out; is_max selects rounding up. */
static int truncate_bound(const wnode *n, int limit, const uint8_t *v, size_t len, int is_max, pm_buf *out) {
  int binary = n->ptype == PM_PQ_BYTE_ARRAY || (n->ptype == PM_PQ_FIXED_LEN_BYTE_ARRAY && !n->decimal_order);
  if (!binary || limit <= 0 || len <= (size_t)limit) return pm_buf_append(out, v, len);
  size_t at = out->len;
  if (pm_utf8_valid(v, len, NULL)) {
    size_t cut = (size_t)limit;
    while (cut > 0 && (v[cut] & 0xC0) == 0x80) cut--;
    if (cut == 0) return pm_buf_append(out, v, len);
    if (!is_max) return pm_buf_append(out, v, cut);
    /* Increment the last code point, dropping characters that cannot grow. */
    size_t end = cut;
    while (end > 0) {
      size_t s = end - 1;
      while (s > 0 && (v[s] & 0xC0) == 0x80) s--;
      uint32_t cp;
      size_t l = end - s;
      if (l == 1) cp = v[s];
      else if (l == 2) cp = ((uint32_t)(v[s] & 0x1F) << 6) | (v[s + 1] & 0x3F);
      else if (l == 3) cp = ((uint32_t)(v[s] & 0x0F) << 12) | ((uint32_t)(v[s + 1] & 0x3F) << 6) | (v[s + 2] & 0x3F);
      else cp = ((uint32_t)(v[s] & 0x07) << 18) | ((uint32_t)(v[s + 1] & 0x3F) << 12) | ((uint32_t)(v[s + 2] & 0x3F) << 6) | (v[s + 3] & 0x3F);
      uint32_t nx = cp + 1;
      if (nx >= 0xD800 && nx <= 0xDFFF) nx = 0xE000;
      if (nx <= 0x10FFFF) {
        uint8_t enc[4];
        size_t el = pm_utf8_encode(nx, enc);
        if (pm_buf_append(out, v, s) || pm_buf_append(out, enc, el)) return PAIMON_ERR_NOMEM;
        return 0;
      }
      end = s;
    }
    out->len = at;
    return pm_buf_append(out, v, len);
  }
  if (!is_max) return pm_buf_append(out, v, (size_t)limit);
  if (pm_buf_append(out, v, (size_t)limit)) return PAIMON_ERR_NOMEM;
  for (size_t k = (size_t)limit; k-- > 0;) {
    uint8_t *b = &out->data[at + k];
    (*b)++;
    if (*b != 0) return 0;
  }
  out->len = at;
  return pm_buf_append(out, v, len); /* all 0xFF: keep the exact value */
}

static void mm_store_float_signs(const wnode *n, uint8_t *mn, uint8_t *mx) {
  /* parquet-mr: a zero minimum is written as -0.0, a zero maximum as +0.0. */
  if (n->ptype == PM_PQ_FLOAT) {
    float a, b;
    memcpy(&a, mn, 4);
    memcpy(&b, mx, 4);
    if (a == 0.0f) a = -0.0f;
    if (b == 0.0f) b = 0.0f;
    memcpy(mn, &a, 4);
    memcpy(mx, &b, 4);
  } else if (n->ptype == PM_PQ_DOUBLE) {
    double a, b;
    memcpy(&a, mn, 8);
    memcpy(&b, mx, 8);
    if (a == 0.0) a = -0.0;
    if (b == 0.0) b = 0.0;
    memcpy(mn, &a, 8);
    memcpy(mx, &b, 8);
  }
}

/* Opens a PageHeader struct with its common fields; the caller adds the
 * type-specific header and closes it. */
static void begin_page_header(pm_tw *t, int type, size_t uncompressed, size_t compressed, int crc_on, int32_t crc) {
  pm_tw_struct_begin(t);
  pm_tw_field_i32(t, 1, type);
  pm_tw_field_i32(t, 2, (int32_t)uncompressed);
  pm_tw_field_i32(t, 3, (int32_t)compressed);
  if (crc_on) pm_tw_field_i32(t, 4, crc);
}

static int flush_page(pm_pq_writer *w, colw *c, pm_error *err) {
  if (c->n_levels == 0) return 0;
  const wnode *n = c->leaf;
  /* parquet-mr keeps the dictionary only if the first page gets smaller with it. */
  int dict_bw = pm_pq_enc_bit_width(c->dict.count ? c->dict.count - 1 : 0);
  int dict_idx_ready = 0;
  if (c->dict_active && !c->first_page_done) {
    w->tmp.len = 0;
    PM_TRY(pm_pq_enc_rle_u32((const uint32_t *)(void *)c->idx.data, c->idx.len / 4, dict_bw, &w->tmp, err));
    if (1 + w->tmp.len + c->dict.page.len >= c->page_raw) PM_TRY(dict_fallback(c, err));
    else dict_idx_ready = 1;
  }
  c->first_page_done = 1;
  int v2 = w->o.data_page_v2;
  int use_dict = c->dict_active;
  int enc = use_dict ? (v2 ? PM_PQ_ENC_RLE_DICTIONARY : PM_PQ_ENC_PLAIN_DICTIONARY) : PM_PQ_ENC_PLAIN;
  pm_buf *body = &w->scratch;
  body->len = 0;
  size_t rep_len = 0, def_len = 0;
  if (c->max_rep > 0) {
    PM_TRY(encode_levels(&c->reps, c->n_levels, c->max_rep, !v2, body, err));
    rep_len = body->len;
  }
  if (c->max_def > 0) {
    if (c->defs_ones == c->n_levels) { /* all 1, none stored */
      size_t at = body->len;
      if (!v2 && pm_buf_append_zeros(body, 4)) return PM_NOMEM(err);
      PM_TRY(pm_pq_enc_rle_repeat(1, c->n_levels, pm_pq_enc_bit_width((uint64_t)c->max_def), body, err));
      if (!v2) {
        uint32_t l = (uint32_t)(body->len - at - 4);
        memcpy(body->data + at, &l, 4);
      }
    } else {
      if (materialize_defs(c)) return PM_NOMEM(err);
      PM_TRY(encode_levels(&c->defs, c->n_levels, c->max_def, !v2, body, err));
    }
    def_len = body->len - rep_len;
  }
  size_t levels_len = body->len;
  const uint8_t *page_body; /* levels then values, uncompressed */
  size_t uncompressed;
  if (use_dict) {
    if (pm_buf_push_u8(body, (uint8_t)dict_bw)) return PM_NOMEM(err);
    if (dict_idx_ready) { /* encoded above for the first-page check */
      if (pm_buf_append(body, w->tmp.data, w->tmp.len)) return PM_NOMEM(err);
    } else {
      PM_TRY(pm_pq_enc_rle_u32((const uint32_t *)(void *)c->idx.data, c->idx.len / 4, dict_bw, body, err));
    }
    page_body = body->data;
    uncompressed = body->len;
  } else if (levels_len <= PLAIN_HEADROOM) {
    uint8_t *start = c->plain.data + PLAIN_HEADROOM - levels_len;
    if (levels_len) memcpy(start, body->data, levels_len);
    page_body = start;
    uncompressed = levels_len + (c->plain.len - PLAIN_HEADROOM);
  } else {
    if (pm_buf_append(body, c->plain.data + PLAIN_HEADROOM, c->plain.len - PLAIN_HEADROOM)) return PM_NOMEM(err);
    page_body = body->data;
    uncompressed = body->len;
  }
  pm_buf *comp = &w->comp;
  comp->len = 0;
  if (v2) {
    if (pm_buf_append(comp, page_body, levels_len)) return PM_NOMEM(err);
    PM_TRY(compress_into(w, page_body + levels_len, uncompressed - levels_len, comp, err));
  } else {
    PM_TRY(compress_into(w, page_body, uncompressed, comp, err));
  }
  if (comp->len > INT32_MAX || uncompressed > INT32_MAX)
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: column %s: page larger than 2 GiB", w->path, c->path);
  int32_t crc = w->o.page_crc ? crc_of(comp->data, comp->len) : 0;
  w->hdr.len = 0;
  pm_tw t;
  pm_tw_init(&t, &w->hdr);
  begin_page_header(&t, v2 ? PM_PQ_PAGE_DATA_V2 : PM_PQ_PAGE_DATA, uncompressed, comp->len, w->o.page_crc, crc);
  if (v2) {
    pm_tw_field_struct_begin(&t, 8);
    pm_tw_field_i32(&t, 1, (int32_t)c->n_levels);
    pm_tw_field_i32(&t, 2, (int32_t)c->page_nulls);
    pm_tw_field_i32(&t, 3, (int32_t)c->page_rows);
    pm_tw_field_i32(&t, 4, enc);
    pm_tw_field_i32(&t, 5, (int32_t)def_len);
    pm_tw_field_i32(&t, 6, (int32_t)rep_len);
    pm_tw_field_bool(&t, 7, w->o.codec != PM_CODEC_NONE);
    pm_tw_struct_end(&t);
  } else {
    pm_tw_field_struct_begin(&t, 5);
    pm_tw_field_i32(&t, 1, (int32_t)c->n_levels);
    pm_tw_field_i32(&t, 2, enc);
    pm_tw_field_i32(&t, 3, level_encoding(c->max_def));
    pm_tw_field_i32(&t, 4, level_encoding(c->max_rep));
    pm_tw_struct_end(&t);
  }
  pm_tw_struct_end(&t);
  PM_TRY(pm_tw_finish(&t, err));

  /* page record for the offset and column indexes */
  if (c->n_pages == c->cap_pages) {
    size_t nc = c->cap_pages ? c->cap_pages * 2 : 16;
    page_entry *np = realloc(c->pages, nc * sizeof *np);
    if (!np) return PM_NOMEM(err);
    c->pages = np;
    c->cap_pages = nc;
  }
  page_entry *pe = &c->pages[c->n_pages++];
  memset(pe, 0, sizeof *pe);
  pe->rel_off = c->data.len;
  pe->size = (int32_t)(w->hdr.len + comp->len);
  pe->first_row = c->chunk_rows;
  pe->unenc_ba = c->page_unenc;
  pe->nulls = c->page_nulls;
  pe->null_page = c->n_values == 0;
  if (c->pst.has) {
    mm_store_float_signs(n, c->pst.min.data, c->pst.max.data);
    pe->min_off = c->ci_bytes.len;
    if (truncate_bound(n, w->o.column_index_truncate, c->pst.min.data, c->pst.min.len, 0, &c->ci_bytes))
      return PM_NOMEM(err);
    pe->min_len = c->ci_bytes.len - pe->min_off;
    pe->max_off = c->ci_bytes.len;
    if (truncate_bound(n, w->o.column_index_truncate, c->pst.max.data, c->pst.max.len, 1, &c->ci_bytes))
      return PM_NOMEM(err);
    pe->max_len = c->ci_bytes.len - pe->max_off;
    if (mm_merge(n, &c->cst, c->pst.min.data, c->pst.min.len, c->pst.max.data, c->pst.max.len)) return PM_NOMEM(err);
  } else if (c->n_values > 0) {
    c->nan_seen = 1; /* non-null values without bounds (all NaN): no column index */
  }
  for (int k = 0; k <= c->max_rep; k++) {
    if (push_i64(&c->hist, c->page_rep_hist[k])) return PM_NOMEM(err);
    c->chunk_rep_hist[k] += c->page_rep_hist[k];
  }
  for (int k = 0; k <= c->max_def; k++) {
    if (push_i64(&c->hist, c->page_def_hist[k])) return PM_NOMEM(err);
    c->chunk_def_hist[k] += c->page_def_hist[k];
  }
  if (blocks_append(&c->data, w->hdr.data, w->hdr.len) || blocks_append(&c->data, comp->data, comp->len))
    return PM_NOMEM(err);
  c->data_uncompressed += w->hdr.len + uncompressed;
  c->chunk_nulls += c->page_nulls;
  c->chunk_values += (int64_t)c->n_levels;
  c->chunk_rows += c->page_rows;
  c->chunk_unenc += c->page_unenc;
  if (use_dict) c->dict_pages++;
  else c->plain_pages++;

  /* reset page state */
  c->defs.len = c->reps.len = 0;
  c->defs_ones = 0;
  c->n_levels = 0;
  c->plain.len = PLAIN_HEADROOM;
  c->bool_bit = 0;
  c->idx.len = 0;
  c->n_values = 0;
  c->page_rows = c->page_nulls = c->page_unenc = 0;
  c->page_raw = 0;
  c->pst.has = 0;
  memset(c->page_def_hist, 0, ((size_t)c->max_def + 1) * sizeof(int64_t));
  memset(c->page_rep_hist, 0, ((size_t)c->max_rep + 1) * sizeof(int64_t));
  return 0;
}

/* Buffered size of the current page as parquet-mr measures it for the page
 * size limit: while dictionary-encoding, the PLAIN size of the values. */
static uint64_t page_estimate(const colw *c) {
  uint64_t v = c->dict_active ? c->page_raw : c->plain.len - PLAIN_HEADROOM;
  return v + c->n_levels / 4 + 16;
}

/* ---- row groups -------------------------------------------------------------------- */

static void encode_stats(pm_tw *t, const colw *c, const minmax *st, int64_t nulls) {
  const wnode *n = c->leaf;
  int has = st->has && n->ptype != PM_PQ_INT96;
  int binary = n->ptype == PM_PQ_BYTE_ARRAY || n->ptype == PM_PQ_FIXED_LEN_BYTE_ARRAY;
  if (has && binary && st->min.len + st->max.len >= MAX_STATS_SIZE) return; /* parquet-mr: no statistics at all */
  pm_tw_field_struct_begin(t, 12);
  if (has) {
    int same = st->min.len == st->max.len && (st->min.len == 0 || memcmp(st->min.data, st->max.data, st->min.len) == 0);
    if (n->sort_signed || same) {
      pm_tw_field_binary(t, 1, st->max.data, st->max.len);
      pm_tw_field_binary(t, 2, st->min.data, st->min.len);
    }
  }
  pm_tw_field_i64(t, 3, nulls);
  if (has) {
    pm_tw_field_binary(t, 5, st->max.data, st->max.len);
    pm_tw_field_binary(t, 6, st->min.data, st->min.len);
  }
  pm_tw_struct_end(t);
}

/* Pointer to offset off of b, valid even when b holds no bytes yet. */
static const uint8_t *buf_at(const pm_buf *b, size_t off) { return b->data ? b->data + off : (const uint8_t *)""; }

static int boundary_order(const colw *c) {
  int asc = 1, desc = 1;
  const page_entry *prev = NULL;
  for (size_t k = 0; k < c->n_pages; k++) {
    const page_entry *p = &c->pages[k];
    if (p->null_page) continue;
    if (prev) {
      const pm_buf *b = &c->ci_bytes;
      int cmin = cmp_values(c->leaf, buf_at(b, prev->min_off), prev->min_len, buf_at(b, p->min_off), p->min_len);
      int cmax = cmp_values(c->leaf, buf_at(b, prev->max_off), prev->max_len, buf_at(b, p->max_off), p->max_len);
      if (cmin > 0 || cmax > 0) asc = 0;
      if (cmin < 0 || cmax < 0) desc = 0;
    }
    prev = p;
  }
  return asc ? 1 : desc ? 2 : 0;
}

static int flush_chunk(pm_pq_writer *w, colw *c, chunk_meta *cm, pm_error *err) {
  const wnode *n = c->leaf;
  PM_TRY(flush_page(w, c, err));
  uint64_t start = pm_out_pos(w->out);
  uint64_t total_unc = c->data_uncompressed, total_comp = c->data.len;
  int has_dict = c->dict_pages > 0;
  int v2 = w->o.data_page_v2;
  if (has_dict) {
    w->comp.len = 0;
    PM_TRY(compress_into(w, c->dict.page.data, c->dict.page.len, &w->comp, err));
    int32_t crc = w->o.page_crc ? crc_of(w->comp.data, w->comp.len) : 0;
    w->hdr.len = 0;
    pm_tw t;
    pm_tw_init(&t, &w->hdr);
    begin_page_header(&t, PM_PQ_PAGE_DICTIONARY, c->dict.page.len, w->comp.len, w->o.page_crc, crc);
    pm_tw_field_struct_begin(&t, 7);
    pm_tw_field_i32(&t, 1, (int32_t)c->dict.count);
    pm_tw_field_i32(&t, 2, v2 ? PM_PQ_ENC_PLAIN : PM_PQ_ENC_PLAIN_DICTIONARY);
    pm_tw_struct_end(&t);
    pm_tw_struct_end(&t);
    PM_TRY(pm_tw_finish(&t, err));
    PM_TRY(pm_out_write(w->out, w->hdr.data, w->hdr.len, err));
    PM_TRY(pm_out_write(w->out, w->comp.data, w->comp.len, err));
    total_unc += w->hdr.len + c->dict.page.len;
    total_comp += w->hdr.len + w->comp.len;
  }
  uint64_t data_off = pm_out_pos(w->out);
  PM_TRY(blocks_write(&c->data, w->out, err));
  cm->file_offset = start;

  /* ColumnMetaData */
  pm_tw t;
  pm_tw_init(&t, &cm->cmd);
  pm_tw_struct_begin(&t);
  pm_tw_field_i32(&t, 1, n->ptype);
  int encs[6], ne = 0;
  if (has_dict) encs[ne++] = v2 ? PM_PQ_ENC_RLE_DICTIONARY : PM_PQ_ENC_PLAIN_DICTIONARY;
  if (c->plain_pages || (has_dict && v2)) encs[ne++] = PM_PQ_ENC_PLAIN;
  if (c->max_def == 0 || c->max_rep == 0) encs[ne++] = PM_PQ_ENC_BIT_PACKED;
  if (c->max_def > 0 || c->max_rep > 0) encs[ne++] = PM_PQ_ENC_RLE;
  pm_tw_field_list_begin(&t, 2, PM_TW_I32, (uint32_t)ne);
  for (int k = 0; k < ne; k++) pm_tw_i32(&t, encs[k]);
  pm_tw_field_list_begin(&t, 3, PM_TW_BINARY, (uint32_t)c->n_parts);
  for (int k = 0; k < c->n_parts; k++) pm_tw_binary(&t, c->path_parts[k], strlen(c->path_parts[k]));
  int codec;
  switch (w->o.codec) {
    case PM_CODEC_SNAPPY: codec = PM_PQ_CODEC_SNAPPY; break;
    case PM_CODEC_GZIP: codec = PM_PQ_CODEC_GZIP; break;
    case PM_CODEC_ZSTD: codec = PM_PQ_CODEC_ZSTD; break;
    case PM_CODEC_LZ4_RAW: codec = PM_PQ_CODEC_LZ4_RAW; break;
    case PM_CODEC_LZ4_HADOOP: codec = PM_PQ_CODEC_LZ4; break;
    default: codec = PM_PQ_CODEC_UNCOMPRESSED; break;
  }
  pm_tw_field_i32(&t, 4, codec);
  pm_tw_field_i64(&t, 5, c->chunk_values);
  pm_tw_field_i64(&t, 6, (int64_t)total_unc);
  pm_tw_field_i64(&t, 7, (int64_t)total_comp);
  pm_tw_field_i64(&t, 9, (int64_t)data_off);
  if (has_dict) pm_tw_field_i64(&t, 11, (int64_t)start);
  encode_stats(&t, c, &c->cst, c->chunk_nulls);
  int nstat = has_dict + (c->dict_pages > 0) + (c->plain_pages > 0);
  pm_tw_field_list_begin(&t, 13, PM_TW_STRUCT, (uint32_t)nstat);
  if (has_dict) {
    pm_tw_struct_begin(&t);
    pm_tw_field_i32(&t, 1, PM_PQ_PAGE_DICTIONARY);
    pm_tw_field_i32(&t, 2, v2 ? PM_PQ_ENC_PLAIN : PM_PQ_ENC_PLAIN_DICTIONARY);
    pm_tw_field_i32(&t, 3, 1);
    pm_tw_struct_end(&t);
  }
  int dpt = v2 ? PM_PQ_PAGE_DATA_V2 : PM_PQ_PAGE_DATA;
  if (c->dict_pages) {
    pm_tw_struct_begin(&t);
    pm_tw_field_i32(&t, 1, dpt);
    pm_tw_field_i32(&t, 2, v2 ? PM_PQ_ENC_RLE_DICTIONARY : PM_PQ_ENC_PLAIN_DICTIONARY);
    pm_tw_field_i32(&t, 3, c->dict_pages);
    pm_tw_struct_end(&t);
  }
  if (c->plain_pages) {
    pm_tw_struct_begin(&t);
    pm_tw_field_i32(&t, 1, dpt);
    pm_tw_field_i32(&t, 2, PM_PQ_ENC_PLAIN);
    pm_tw_field_i32(&t, 3, c->plain_pages);
    pm_tw_struct_end(&t);
  }
  /* SizeStatistics */
  pm_tw_field_struct_begin(&t, 16);
  if (n->ptype == PM_PQ_BYTE_ARRAY) pm_tw_field_i64(&t, 1, c->chunk_unenc);
  pm_tw_field_list_begin(&t, 2, PM_TW_I64, (uint32_t)c->max_rep + 1);
  for (int k = 0; k <= c->max_rep; k++) pm_tw_i64(&t, c->chunk_rep_hist[k]);
  pm_tw_field_list_begin(&t, 3, PM_TW_I64, (uint32_t)c->max_def + 1);
  for (int k = 0; k <= c->max_def; k++) pm_tw_i64(&t, c->chunk_def_hist[k]);
  pm_tw_struct_end(&t);
  pm_tw_struct_end(&t);
  PM_TRY(pm_tw_finish(&t, err));

  /* ColumnIndex: not for INT96 (no order) nor chunks with NaN (parquet-mr invalidates them). */
  if (n->ptype != PM_PQ_INT96 && !c->nan_seen) {
    pm_tw_init(&t, &cm->colidx);
    pm_tw_struct_begin(&t);
    pm_tw_field_list_begin(&t, 1, PM_TW_BOOL_TRUE, (uint32_t)c->n_pages);
    for (size_t k = 0; k < c->n_pages; k++) pm_tw_bool_elem(&t, c->pages[k].null_page);
    pm_tw_field_list_begin(&t, 2, PM_TW_BINARY, (uint32_t)c->n_pages);
    for (size_t k = 0; k < c->n_pages; k++) pm_tw_binary(&t, buf_at(&c->ci_bytes, c->pages[k].min_off), c->pages[k].min_len);
    pm_tw_field_list_begin(&t, 3, PM_TW_BINARY, (uint32_t)c->n_pages);
    for (size_t k = 0; k < c->n_pages; k++) pm_tw_binary(&t, buf_at(&c->ci_bytes, c->pages[k].max_off), c->pages[k].max_len);
    pm_tw_field_i32(&t, 4, boundary_order(c));
    pm_tw_field_list_begin(&t, 5, PM_TW_I64, (uint32_t)c->n_pages);
    for (size_t k = 0; k < c->n_pages; k++) pm_tw_i64(&t, c->pages[k].nulls);
    size_t per = (size_t)c->max_rep + 1 + (size_t)c->max_def + 1;
    const int64_t *h = (const int64_t *)(void *)c->hist.data;
    pm_tw_field_list_begin(&t, 6, PM_TW_I64, (uint32_t)(c->n_pages * ((size_t)c->max_rep + 1)));
    for (size_t k = 0; k < c->n_pages; k++)
      for (int r = 0; r <= c->max_rep; r++) pm_tw_i64(&t, h[k * per + (size_t)r]);
    pm_tw_field_list_begin(&t, 7, PM_TW_I64, (uint32_t)(c->n_pages * ((size_t)c->max_def + 1)));
    for (size_t k = 0; k < c->n_pages; k++)
      for (int d = 0; d <= c->max_def; d++) pm_tw_i64(&t, h[k * per + (size_t)c->max_rep + 1 + (size_t)d]);
    pm_tw_struct_end(&t);
    PM_TRY(pm_tw_finish(&t, err));
  }
  /* OffsetIndex */
  pm_tw_init(&t, &cm->offidx);
  pm_tw_struct_begin(&t);
  pm_tw_field_list_begin(&t, 1, PM_TW_STRUCT, (uint32_t)c->n_pages);
  for (size_t k = 0; k < c->n_pages; k++) {
    pm_tw_struct_begin(&t);
    pm_tw_field_i64(&t, 1, (int64_t)(data_off + c->pages[k].rel_off));
    pm_tw_field_i32(&t, 2, c->pages[k].size);
    pm_tw_field_i64(&t, 3, c->pages[k].first_row);
    pm_tw_struct_end(&t);
  }
  if (n->ptype == PM_PQ_BYTE_ARRAY) {
    pm_tw_field_list_begin(&t, 2, PM_TW_I64, (uint32_t)c->n_pages);
    for (size_t k = 0; k < c->n_pages; k++) pm_tw_i64(&t, c->pages[k].unenc_ba);
  }
  pm_tw_struct_end(&t);
  PM_TRY(pm_tw_finish(&t, err));

  /* file-level results */
  if (c->cst.has && mm_merge(n, &c->fst, c->cst.min.data, c->cst.min.len, c->cst.max.data, c->cst.max.len))
    return PM_NOMEM(err);
  c->file_nulls += c->chunk_nulls;
  c->file_values += c->chunk_values;

  /* reset chunk state */
  blocks_clear(&c->data);
  c->n_pages = 0;
  c->ci_bytes.len = 0;
  c->hist.len = 0;
  c->cst.has = 0;
  c->chunk_nulls = c->chunk_values = c->chunk_rows = c->chunk_unenc = 0;
  memset(c->chunk_def_hist, 0, ((size_t)c->max_def + 1) * sizeof(int64_t));
  memset(c->chunk_rep_hist, 0, ((size_t)c->max_rep + 1) * sizeof(int64_t));
  c->nan_seen = 0;
  c->data_uncompressed = 0;
  c->dict_pages = c->plain_pages = 0;
  c->first_page_done = 0;
  pm_pq_enc_dict_reset(&c->dict);
  c->dict_active = w->o.dictionary && c->width != -1 && !c->dict_refused;
  cm->file_offset = start;
  cm->total_unc = total_unc;
  return 0;
}

static int flush_row_group(pm_pq_writer *w, pm_error *err) {
  if (w->rg_rows == 0) return 0;
  if (w->n_rgs == w->cap_rgs) {
    size_t nc = w->cap_rgs ? w->cap_rgs * 2 : 4;
    rg_meta *nr = realloc(w->rgs, nc * sizeof *nr);
    if (!nr) return PM_NOMEM(err);
    w->rgs = nr;
    w->cap_rgs = nc;
  }
  rg_meta *rg = &w->rgs[w->n_rgs];
  memset(rg, 0, sizeof *rg);
  rg->chunks = calloc(w->n_cols, sizeof *rg->chunks);
  if (!rg->chunks) return PM_NOMEM(err);
  w->n_rgs++;
  rg->num_rows = w->rg_rows;
  rg->file_offset = pm_out_pos(w->out);
  for (size_t k = 0; k < w->n_cols; k++) {
    colw *c = &w->cols[k];
    chunk_meta *cm = &rg->chunks[k];
    pm_buf_init(&cm->cmd);
    pm_buf_init(&cm->colidx);
    pm_buf_init(&cm->offidx);
    uint64_t before = pm_out_pos(w->out);
    PM_TRY(flush_chunk(w, c, cm, err));
    rg->total_compressed += (int64_t)(pm_out_pos(w->out) - before);
    rg->total_byte_size += (int64_t)cm->total_unc;
  }
  w->rg_rows = 0;
  return 0;
}

/* ---- open / write / close ------------------------------------------------------------ */

int pm_pq_writer_open(const char *path, const struct ArrowSchema *schema, const pm_pq_write_options *opts,
                      pm_pq_writer **out, pm_error *err) {
  *out = NULL;
  pm_out_file *sink;
  PM_TRY(pm_out_open(path, &sink, err));
  return pm_pq_writer_open_sink(sink, schema, opts, out, err);
}

int pm_pq_writer_open_sink(pm_out_file *sink, const struct ArrowSchema *schema, const pm_pq_write_options *opts,
                           pm_pq_writer **out, pm_error *err) {
  *out = NULL;
  const char *path = pm_out_path(sink);
  int bad = 0;
  if (!schema || !schema->format || strcmp(schema->format, "+s") != 0)
    bad = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: parquet writer needs a struct schema", path);
  else if (schema->n_children <= 0)
    bad = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: parquet writer needs at least one column", path);
  pm_pq_writer *w = bad ? NULL : calloc(1, sizeof *w);
  if (!w) {
    pm_out_abort(sink);
    return bad ? bad : PM_NOMEM(err);
  }
  w->out = sink; /* owned from here: committed by close, discarded by free */
  if (opts) w->o = *opts;
  else pm_pq_write_options_default(&w->o);
  if (w->o.page_rows == 0) w->o.page_rows = 20000;
  if (w->o.page_bytes == 0) w->o.page_bytes = 1u << 20;
  if (w->o.row_group_bytes == 0) w->o.row_group_bytes = 128u << 20;
  if (w->o.dictionary_page_bytes == 0) w->o.dictionary_page_bytes = 1u << 20;
  int rc = 0;
  w->path = pm_strdup(path);
  w->created_by = pm_strdup(w->o.created_by ? w->o.created_by : "paimon-c version 0.1.0");
  if (!w->path || !w->created_by) {
    rc = PM_NOMEM(err);
    goto fail;
  }
  w->o.created_by = NULL;
  switch (w->o.codec) {
    case PM_CODEC_NONE: case PM_CODEC_SNAPPY: case PM_CODEC_GZIP: case PM_CODEC_ZSTD: case PM_CODEC_LZ4_RAW:
    case PM_CODEC_LZ4_HADOOP:
      break;
    default:
      rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: codec %s is not a Parquet codec", path, pm_codec_name(w->o.codec));
      goto fail;
  }
  w->root.kind = NK_STRUCT;
  w->root.name = pm_strdup("paimon_schema");
  w->root.children = calloc((size_t)schema->n_children, sizeof *w->root.children);
  if (!w->root.name || !w->root.children) {
    rc = PM_NOMEM(err);
    goto fail;
  }
  w->root.n_children = (int)schema->n_children;
  for (int i = 0; i < w->root.n_children; i++) {
    const struct ArrowSchema *c = schema->children[i];
    rc = build_node(&w->root.children[i], c, c && c->name ? c->name : "", 0, 0, 1, 0, err);
    if (rc) {
      pm_error_prefix(err, "%s: ", path);
      goto fail;
    }
  }
  size_t nleaves = (size_t)count_leaves(&w->root);
  w->cols = calloc(nleaves, sizeof *w->cols);
  if (!w->cols) {
    rc = PM_NOMEM(err);
    goto fail;
  }
  for (int i = 0; i < w->root.n_children; i++) {
    path_stack ps;
    ps.n = 0;
    rc = setup_columns(w, &w->root.children[i], &ps, i, 0, 0, err);
    if (rc) goto fail;
  }
  rc = pm_out_write(w->out, "PAR1", 4, err);
  if (rc) goto fail;
  *out = w;
  return 0;
fail:
  pm_pq_writer_free(w);
  return rc;
}

/* Computes levels and the physical indices of non-null values of rows
 * [r0, r0+nrows) for every leaf column. */
static int write_slice(pm_pq_writer *w, const struct ArrowArray *batch, int64_t r0, int64_t nrows, pm_error *err) {
  for (size_t k = 0; k < w->n_cols; k++) {
    w->cols[k].sidx.len = 0;
    w->cols[k].contig_start = -1;
  }
  for (int f = 0; f < w->root.n_children; f++) {
    const wnode *n = &w->root.children[f];
    const struct ArrowArray *a = batch->children[f];
    int64_t base = a->offset + batch->offset;
    if (n->kind == NK_LEAF) {
      /* flat column: def level = validity, no repetition */
      colw *c = &w->cols[n->leaf_index];
      c->sidx.len = 0;
      if (!c->max_def || a->null_count == 0 || !a->buffers[0]) {
        /* no nulls: every def level is 1, values are consecutive */
        if (c->max_def && c->defs.len == 0) {
          c->defs_ones += (size_t)nrows;
        } else if (c->max_def) {
          if (pm_buf_reserve(&c->defs, (size_t)nrows * 2)) return PM_NOMEM(err);
          uint16_t *dl = (uint16_t *)(void *)(c->defs.data + c->defs.len);
          for (int64_t r = 0; r < nrows; r++) dl[r] = 1;
          c->defs.len += (size_t)nrows * 2;
        }
        c->page_def_hist[c->max_def] += nrows;
        c->page_rep_hist[0] += nrows;
        c->n_levels += (size_t)nrows;
        c->page_rows += nrows;
        c->contig_start = base + r0;
        c->contig_n = (size_t)nrows;
        continue;
      }
      if (c->max_def && materialize_defs(c)) return PM_NOMEM(err);
      if ((c->max_def && pm_buf_reserve(&c->defs, (size_t)nrows * 2)) || pm_buf_reserve(&c->sidx, (size_t)nrows * 8))
        return PM_NOMEM(err);
      int64_t *ix = (int64_t *)(void *)c->sidx.data;
      size_t m = 0;
      if (c->max_def) {
        uint16_t *dl = (uint16_t *)(void *)(c->defs.data + c->defs.len);
        int64_t nulls = 0;
        for (int64_t r = 0; r < nrows; r++) {
          int64_t i = base + r0 + r;
          int v = valid_at(a, i);
          dl[r] = (uint16_t)v;
          ix[m] = i;
          m += (size_t)v;
          nulls += !v;
        }
        c->defs.len += (size_t)nrows * 2;
        c->page_def_hist[0] += nulls;
        c->page_def_hist[1] += nrows - nulls;
        c->page_nulls += nulls;
      } else {
        for (int64_t r = 0; r < nrows; r++) ix[m++] = base + r0 + r;
        c->page_def_hist[0] += nrows;
      }
      c->page_rep_hist[0] += nrows;
      c->n_levels += (size_t)nrows;
      c->page_rows += nrows;
      c->sidx.len = m * 8;
    } else {
      for (int64_t r = 0; r < nrows; r++) PM_TRY(shred(w, n, a, base + r0 + r, 0, 0, err));
    }
  }
  return 0;
}

/* Finds the Arrow array of every leaf for this batch. */
static void leaf_arrays(const wnode *n, const struct ArrowArray *a, const struct ArrowArray **out) {
  switch (n->kind) {
    case NK_LEAF: out[n->leaf_index] = a; return;
    case NK_STRUCT:
      for (int k = 0; k < n->n_children; k++) leaf_arrays(&n->children[k], a->children[k], out);
      return;
    case NK_LIST: leaf_arrays(&n->children[0], a->children[0], out); return;
    case NK_MAP:
      leaf_arrays(&n->children[0], a->children[0]->children[0], out);
      leaf_arrays(&n->children[1], a->children[0]->children[1], out);
      return;
  }
}

int pm_pq_writer_write(pm_pq_writer *w, const struct ArrowArray *batch, pm_error *err) {
  if (w->closed || w->failed)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: parquet writer already closed or failed", w->path);
  if (!batch || !batch->release || batch->n_children != w->root.n_children)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: batch has %lld columns, schema %d", w->path,
                     batch ? (long long)batch->n_children : -1LL, w->root.n_children);
  for (int f = 0; f < w->root.n_children; f++) {
    int rc = check_array(&w->root.children[f], batch->children[f], batch->offset + batch->length, err);
    if (rc) return pm_error_prefix(err, "%s: ", w->path);
  }
  const struct ArrowArray **arrs = calloc(w->n_cols, sizeof *arrs);
  if (!arrs) return PM_NOMEM(err);
  for (int f = 0; f < w->root.n_children; f++) leaf_arrays(&w->root.children[f], batch->children[f], arrs);
  int rc = 0;
  int64_t done = 0;
  while (done < batch->length) {
    int64_t n = batch->length - done;
    if (n > SLICE_MAX_ROWS) n = SLICE_MAX_ROWS;
    if (w->bytes_per_row > 0) {
      double cap = (double)w->o.page_bytes / (4.0 * w->bytes_per_row);
      if (cap < 1) cap = 1;
      if ((double)n > cap) n = (int64_t)cap;
    }
    int64_t max_page_rows = 0;
    for (size_t k = 0; k < w->n_cols; k++)
      if (w->cols[k].page_rows > max_page_rows) max_page_rows = w->cols[k].page_rows;
    int64_t room = (int64_t)w->o.page_rows - max_page_rows;
    if (room < 1) room = 1;
    if (n > room) n = room;
    if (w->o.row_group_rows && n > (int64_t)w->o.row_group_rows - w->rg_rows) n = (int64_t)w->o.row_group_rows - w->rg_rows;
    if (n < 1) n = 1;
    rc = write_slice(w, batch, done, n, err);
    if (rc) break;
    double bpr = 0;
    uint64_t rg_bytes = 0;
    for (size_t k = 0; k < w->n_cols && !rc; k++) {
      colw *c = &w->cols[k];
      rc = gather(c, arrs[k], err);
      if (!rc) rc = add_values(c, err);
      if (rc) break;
      if (c->dict_active && c->dict.page.len > w->o.dictionary_page_bytes) rc = dict_fallback(c, err);
      if (rc) break;
      uint64_t est = page_estimate(c);
      if (c->page_rows > 0) {
        double b = (double)est / (double)c->page_rows;
        if (b > bpr) bpr = b;
      }
      if (est >= w->o.page_bytes || c->page_rows >= (int64_t)w->o.page_rows) {
        rc = flush_page(w, c, err);
        est = 0;
      }
      rg_bytes += c->data.len + c->dict.page.len + est;
    }
    if (rc) break;
    if (bpr > 0) w->bytes_per_row = bpr;
    done += n;
    w->rg_rows += n;
    w->total_rows += n;
    if (rg_bytes >= w->o.row_group_bytes || (w->o.row_group_rows && w->rg_rows >= (int64_t)w->o.row_group_rows)) {
      rc = flush_row_group(w, err);
      if (rc) break;
    }
  }
  free(arrs);
  if (rc) {
    w->failed = 1;
    return pm_error_prefix(err, "%s: ", w->path);
  }
  return 0;
}

/* Memory the writer holds, allocated capacities rather than bytes used, so
 * that a bound over many open writers (Parquet's MemoryManager) is a bound
 * on what they really take: per column the chunk's pages, the current
 * page's buffers and the dictionary; per writer the compression context and
 * scratch buffers. */
uint64_t pm_pq_writer_buffered(const pm_pq_writer *w) {
  uint64_t n = 0;
  for (size_t k = 0; k < w->n_cols; k++) {
    const colw *c = &w->cols[k];
    uint64_t page = c->defs.cap + c->reps.cap + c->plain.cap + c->idx.cap + c->sidx.cap + c->phys.cap;
    uint64_t est = page_estimate(c);
    n += blocks_memory(&c->data) + pm_pq_enc_dict_memory(&c->dict) + (page > est ? page : est);
  }
  n += w->scratch.cap + w->comp.cap + w->hdr.cap + w->tmp.cap;
  if (w->zctx) n += ZSTD_sizeof_CCtx(w->zctx);
  return n;
}

/* The file's size so far as parquet-mr's getDataSize() measures it (what Java's
 * writers roll on): bytes out, plus the current row group's compressed pages and
 * the dictionaries data pages use, plus the open pages at their buffered size (a
 * page still deciding on its dictionary at its PLAIN size, the dictionary not
 * counted, as parquet-mr's FallbackValuesWriter). */
uint64_t pm_pq_writer_data_size(const pm_pq_writer *w) {
  uint64_t n = pm_out_pos(w->out);
  for (size_t k = 0; k < w->n_cols; k++) {
    const colw *c = &w->cols[k];
    n += c->data.len;
    if (c->dict_pages) n += c->dict.page.len;
    if (c->n_levels) n += page_estimate(c);
  }
  return n;
}

/* After a flush forced by the memory bound, the writer holds nothing it can
 * give back: the next row group's buffers start small again. */
static int release_memory(pm_pq_writer *w, pm_error *err) {
  for (size_t k = 0; k < w->n_cols; k++) {
    colw *c = &w->cols[k];
    blocks_free(&c->data);
    size_t width = c->dict.width;
    pm_pq_enc_dict_free(&c->dict);
    pm_pq_enc_dict_init(&c->dict, width);
    pm_buf_free(&c->defs);
    pm_buf_free(&c->reps);
    pm_buf_free(&c->idx);
    pm_buf_free(&c->sidx);
    pm_buf_free(&c->phys);
    pm_buf_free(&c->plain);
    if (pm_buf_append_zeros(&c->plain, PLAIN_HEADROOM)) return PM_NOMEM(err);
  }
  pm_buf_free(&w->scratch);
  pm_buf_free(&w->comp);
  pm_buf_free(&w->hdr);
  pm_buf_free(&w->tmp);
  if (w->zctx) ZSTD_freeCCtx(w->zctx);
  w->zctx = NULL;
  return pm_out_drain(w->out, err);
}

int pm_pq_writer_flush(pm_pq_writer *w, pm_error *err) {
  if (w->closed || w->failed)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: parquet writer already closed or failed", w->path);
  int rc = flush_row_group(w, err);
  if (!rc) rc = release_memory(w, err);
  if (rc) {
    w->failed = 1;
    return pm_error_prefix(err, "%s: ", w->path);
  }
  return 0;
}

/* ---- footer ------------------------------------------------------------------------- */

static void write_schema_node(pm_tw *t, const wnode *n) {
  if (n->kind == NK_LEAF) {
    pm_tw_struct_begin(t);
    pm_tw_field_i32(t, 1, n->ptype);
    if (n->ptype == PM_PQ_FIXED_LEN_BYTE_ARRAY) pm_tw_field_i32(t, 2, n->type_length);
    pm_tw_field_i32(t, 3, n->optional ? PM_PQ_OPTIONAL : PM_PQ_REQUIRED);
    pm_tw_field_string(t, 4, n->name);
    if (n->converted >= 0) pm_tw_field_i32(t, 6, n->converted);
    if (n->lt_kind == PM_PQ_LT_DECIMAL) {
      pm_tw_field_i32(t, 7, n->scale);
      pm_tw_field_i32(t, 8, n->precision);
    }
    if (n->has_field_id) pm_tw_field_i32(t, 9, n->field_id);
    if (n->lt_kind != PM_PQ_LT_NONE) {
      pm_tw_field_struct_begin(t, 10);
      switch (n->lt_kind) {
        case PM_PQ_LT_DECIMAL:
          pm_tw_field_struct_begin(t, PM_PQ_LT_DECIMAL);
          pm_tw_field_i32(t, 1, n->scale);
          pm_tw_field_i32(t, 2, n->precision);
          pm_tw_struct_end(t);
          break;
        case PM_PQ_LT_TIME:
        case PM_PQ_LT_TIMESTAMP:
          pm_tw_field_struct_begin(t, (int16_t)n->lt_kind);
          pm_tw_field_bool(t, 1, n->lt_utc);
          pm_tw_field_struct_begin(t, 2);
          pm_tw_field_empty_struct(t, (int16_t)n->lt_unit);
          pm_tw_struct_end(t);
          pm_tw_struct_end(t);
          break;
        case PM_PQ_LT_INTEGER:
          pm_tw_field_struct_begin(t, PM_PQ_LT_INTEGER);
          pm_tw_field_i8(t, 1, (int8_t)n->lt_bits);
          pm_tw_field_bool(t, 2, n->lt_signed);
          pm_tw_struct_end(t);
          break;
        default: pm_tw_field_empty_struct(t, (int16_t)n->lt_kind); break;
      }
      pm_tw_struct_end(t);
    }
    pm_tw_struct_end(t);
    return;
  }
  pm_tw_struct_begin(t);
  pm_tw_field_i32(t, 3, n->optional ? PM_PQ_OPTIONAL : PM_PQ_REQUIRED);
  pm_tw_field_string(t, 4, n->name);
  if (n->kind == NK_STRUCT) {
    pm_tw_field_i32(t, 5, n->n_children);
    if (n->has_field_id) pm_tw_field_i32(t, 9, n->field_id);
    pm_tw_struct_end(t);
    for (int k = 0; k < n->n_children; k++) write_schema_node(t, &n->children[k]);
    return;
  }
  int is_list = n->kind == NK_LIST;
  pm_tw_field_i32(t, 5, 1);
  pm_tw_field_i32(t, 6, is_list ? PM_PQ_CT_LIST : PM_PQ_CT_MAP);
  if (n->has_field_id) pm_tw_field_i32(t, 9, n->field_id);
  pm_tw_field_struct_begin(t, 10);
  pm_tw_field_empty_struct(t, is_list ? PM_PQ_LT_LIST : PM_PQ_LT_MAP);
  pm_tw_struct_end(t);
  pm_tw_struct_end(t);
  /* the repeated group */
  pm_tw_struct_begin(t);
  pm_tw_field_i32(t, 3, PM_PQ_REPEATED);
  pm_tw_field_string(t, 4, is_list ? "list" : "key_value");
  pm_tw_field_i32(t, 5, n->n_children);
  if (!is_list) pm_tw_field_i32(t, 6, PM_PQ_CT_MAP_KEY_VALUE);
  pm_tw_struct_end(t);
  for (int k = 0; k < n->n_children; k++) write_schema_node(t, &n->children[k]);
}

static int count_schema_elements(const wnode *n) {
  int c = 1;
  if (n->kind == NK_LIST || n->kind == NK_MAP) c++;
  for (int k = 0; k < n->n_children; k++) c += count_schema_elements(&n->children[k]);
  return c;
}

static int build_results(pm_pq_writer *w, pm_error *err) {
  w->stats = calloc(w->n_cols ? w->n_cols : 1, sizeof *w->stats);
  if (!w->stats) return PM_NOMEM(err);
  for (size_t k = 0; k < w->n_cols; k++) {
    colw *c = &w->cols[k];
    pm_pq_write_column_stats *s = &w->stats[k];
    const wnode *n = c->leaf;
    s->path = c->path;
    s->top_level_field = c->top_field;
    s->nested = c->nested;
    s->physical = (enum pm_pq_type)n->ptype;
    s->num_values = c->file_values;
    s->null_count = c->file_nulls;
    s->has_min_max = c->fst.has && n->ptype != PM_PQ_INT96;
    if (s->has_min_max) {
      s->min = c->fst.min.data;
      s->min_len = c->fst.min.len;
      s->max = c->fst.max.data;
      s->max_len = c->fst.max.len;
      switch (n->ptype) {
        case PM_PQ_BOOLEAN: s->min_i64 = s->min[0]; s->max_i64 = s->max[0]; break;
        case PM_PQ_INT32: {
          int32_t a, b;
          memcpy(&a, s->min, 4);
          memcpy(&b, s->max, 4);
          s->min_i64 = n->unsigned_order ? (int64_t)(uint32_t)a : a;
          s->max_i64 = n->unsigned_order ? (int64_t)(uint32_t)b : b;
          break;
        }
        case PM_PQ_INT64: memcpy(&s->min_i64, s->min, 8); memcpy(&s->max_i64, s->max, 8); break;
        case PM_PQ_FLOAT: {
          float a, b;
          memcpy(&a, s->min, 4);
          memcpy(&b, s->max, 4);
          s->min_f64 = a;
          s->max_f64 = b;
          break;
        }
        case PM_PQ_DOUBLE: memcpy(&s->min_f64, s->min, 8); memcpy(&s->max_f64, s->max, 8); break;
        default: break;
      }
    }
  }
  w->result.num_rows = w->total_rows;
  w->result.num_row_groups = (int)w->n_rgs;
  w->result.num_columns = w->n_cols;
  w->result.columns = w->stats;
  return 0;
}

static int write_footer(pm_pq_writer *w, pm_error *err) {
  /* column indexes of every chunk, then offset indexes, as parquet-mr orders them */
  for (size_t r = 0; r < w->n_rgs; r++)
    for (size_t k = 0; k < w->n_cols; k++) {
      chunk_meta *cm = &w->rgs[r].chunks[k];
      cm->colidx_off = pm_out_pos(w->out);
      if (cm->colidx.len) PM_TRY(pm_out_write(w->out, cm->colidx.data, cm->colidx.len, err));
    }
  for (size_t r = 0; r < w->n_rgs; r++)
    for (size_t k = 0; k < w->n_cols; k++) {
      chunk_meta *cm = &w->rgs[r].chunks[k];
      cm->offidx_off = pm_out_pos(w->out);
      PM_TRY(pm_out_write(w->out, cm->offidx.data, cm->offidx.len, err));
    }
  pm_buf fb;
  pm_buf_init(&fb);
  pm_tw t;
  pm_tw_init(&t, &fb);
  pm_tw_struct_begin(&t);
  pm_tw_field_i32(&t, 1, 1);
  pm_tw_field_list_begin(&t, 2, PM_TW_STRUCT, (uint32_t)count_schema_elements(&w->root));
  pm_tw_struct_begin(&t);
  pm_tw_field_string(&t, 4, w->root.name);
  pm_tw_field_i32(&t, 5, w->root.n_children);
  pm_tw_struct_end(&t);
  for (int k = 0; k < w->root.n_children; k++) write_schema_node(&t, &w->root.children[k]);
  pm_tw_field_i64(&t, 3, w->total_rows);
  pm_tw_field_list_begin(&t, 4, PM_TW_STRUCT, (uint32_t)w->n_rgs);
  for (size_t r = 0; r < w->n_rgs; r++) {
    rg_meta *rg = &w->rgs[r];
    pm_tw_struct_begin(&t);
    pm_tw_field_list_begin(&t, 1, PM_TW_STRUCT, (uint32_t)w->n_cols);
    for (size_t k = 0; k < w->n_cols; k++) {
      chunk_meta *cm = &rg->chunks[k];
      pm_tw_struct_begin(&t);
      pm_tw_field_i64(&t, 2, (int64_t)cm->file_offset);
      pm_tw_field_raw_struct(&t, 3, cm->cmd.data, cm->cmd.len);
      pm_tw_field_i64(&t, 4, (int64_t)cm->offidx_off);
      pm_tw_field_i32(&t, 5, (int32_t)cm->offidx.len);
      if (cm->colidx.len) {
        pm_tw_field_i64(&t, 6, (int64_t)cm->colidx_off);
        pm_tw_field_i32(&t, 7, (int32_t)cm->colidx.len);
      }
      pm_tw_struct_end(&t);
    }
    pm_tw_field_i64(&t, 2, rg->total_byte_size);
    pm_tw_field_i64(&t, 3, rg->num_rows);
    pm_tw_field_i64(&t, 5, (int64_t)rg->file_offset);
    pm_tw_field_i64(&t, 6, rg->total_compressed);
    pm_tw_field_i16(&t, 7, (int16_t)r); /* i16 in the Thrift IDL */
    pm_tw_struct_end(&t);
  }
  pm_tw_field_string(&t, 6, w->created_by);
  pm_tw_field_list_begin(&t, 7, PM_TW_STRUCT, (uint32_t)w->n_cols);
  for (size_t k = 0; k < w->n_cols; k++) {
    pm_tw_struct_begin(&t);
    pm_tw_field_empty_struct(&t, 1);
    pm_tw_struct_end(&t);
  }
  pm_tw_struct_end(&t);
  int rc = pm_tw_finish(&t, err);
  if (!rc) rc = pm_out_write(w->out, fb.data, fb.len, err);
  uint32_t flen = (uint32_t)fb.len;
  uint8_t tail[8];
  memcpy(tail, &flen, 4);
  memcpy(tail + 4, "PAR1", 4);
  if (!rc) rc = pm_out_write(w->out, tail, 8, err);
  pm_buf_free(&fb);
  return rc;
}

int pm_pq_writer_close(pm_pq_writer *w, pm_error *err) {
  if (w->closed) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: parquet writer already closed", w->path);
  if (w->failed) {
    pm_out_abort(w->out);
    w->out = NULL;
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: parquet writer failed earlier; file discarded", w->path);
  }
  int rc = flush_row_group(w, err);
  if (!rc) rc = write_footer(w, err);
  if (!rc) {
    w->result.file_size = pm_out_pos(w->out);
    rc = build_results(w, err);
  }
  if (rc) {
    pm_out_abort(w->out);
    w->out = NULL;
    w->failed = 1;
    return rc;
  }
  rc = pm_out_commit(w->out, w->o.no_overwrite, err);
  w->out = NULL;
  if (rc) {
    w->failed = 1;
    return rc;
  }
  w->closed = 1;
  return 0;
}

const pm_pq_write_result *pm_pq_writer_result(const pm_pq_writer *w) { return w->closed ? &w->result : NULL; }

static void colw_free(colw *c) {
  pm_buf_free(&c->defs);
  pm_buf_free(&c->reps);
  pm_buf_free(&c->plain);
  pm_buf_free(&c->idx);
  blocks_free(&c->data);
  pm_buf_free(&c->ci_bytes);
  pm_buf_free(&c->hist);
  pm_buf_free(&c->sidx);
  pm_buf_free(&c->phys);
  mm_free(&c->pst);
  mm_free(&c->cst);
  mm_free(&c->fst);
  pm_pq_enc_dict_free(&c->dict);
  free(c->pages);
  free(c->page_def_hist);
  free(c->page_rep_hist);
  free(c->chunk_def_hist);
  free(c->chunk_rep_hist);
  if (c->path_parts)
    for (int i = 0; i < c->n_parts; i++) free(c->path_parts[i]);
  free(c->path_parts);
  free(c->path);
}

void pm_pq_writer_free(pm_pq_writer *w) {
  if (!w) return;
  if (w->out) pm_out_abort(w->out);
  for (size_t k = 0; k < w->n_cols; k++) colw_free(&w->cols[k]);
  free(w->cols);
  for (size_t r = 0; r < w->n_rgs; r++) {
    if (!w->rgs[r].chunks) continue;
    for (size_t k = 0; k < w->n_cols; k++) {
      pm_buf_free(&w->rgs[r].chunks[k].cmd);
      pm_buf_free(&w->rgs[r].chunks[k].colidx);
      pm_buf_free(&w->rgs[r].chunks[k].offidx);
    }
    free(w->rgs[r].chunks);
  }
  free(w->rgs);
  node_free(&w->root);
  if (w->zctx) ZSTD_freeCCtx(w->zctx);
  pm_buf_free(&w->scratch);
  pm_buf_free(&w->comp);
  pm_buf_free(&w->hdr);
  pm_buf_free(&w->tmp);
  free(w->stats);
  free(w->path);
  free(w->created_by);
  free(w);
}
