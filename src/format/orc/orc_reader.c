/* ORC reader: tail, stripes, column decoding into Arrow arrays. */
#include "format/orc/orc_reader.h"

#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "arrow/arrow.h"
#include "format/orc/orc_proto.h"
#include "format/orc/orc_rle.h"
#include "util/tz.h"
#include "util/buf.h"
#include "util/compress.h"
#include "util/str.h"

#define ORC_TAIL_READ 16384
#define ORC_MAX_DEPTH 64
#define ORC_MAX_TYPES 100000
#define ORC_BASE_SECONDS 1420070400LL /* 2015-01-01 00:00:00 UTC */

/* Stream kinds (orc_proto Stream.Kind) the reader uses. */
enum { SK_PRESENT = 0, SK_DATA = 1, SK_LENGTH = 2, SK_DICTIONARY_DATA = 3, SK_SECONDARY = 5, SK_ROW_INDEX = 6, SK_COUNT = 7 };

typedef struct orc_type {
  pm_orc_column_info info;
  uint32_t *children;
  char *name;
  size_t n_attrs;
  char **attr_keys, **attr_vals;
  const uint8_t *stats; /* raw ColumnStatistics in the footer, or NULL */
  size_t stats_len;
  int selected;
  char ts_unit;
} orc_type;

typedef struct orc_pred {
  uint32_t column;
  pm_fmt_op op;
  pm_fmt_literal *values;
  size_t n_values;
} orc_pred;

typedef struct col_reader col_reader;
struct col_reader {
  orc_type *t;
  uint32_t id;
  pm_orc_encoding enc;
  int has_present;
  pm_orc_bool_rle present;
  pm_orc_int_rle ints;  /* DATA (ints, dates, timestamp seconds, dictionary indices, decimal64) */
  pm_orc_int_rle lens;  /* LENGTH */
  pm_orc_int_rle second; /* SECONDARY */
  pm_orc_byte_rle bytes; /* BYTE DATA */
  pm_orc_bool_rle bools; /* BOOLEAN DATA */
  pm_orc_stream raw;     /* raw DATA: floats, string bytes, decimal varints */
  int decimal64;
  /* dictionary */
  uint32_t dict_size;
  uint64_t *dict_offsets; /* dict_size + 1 */
  const uint8_t *dict_data;
  size_t dict_data_len;
  size_t dict_data_cap; /* readable bytes behind dict_data (>= len): lets short values be copied 16 bytes at a time */
  /* builder */
  pm_buf validity, values, offsets, strdata;
  int64_t length, null_count;
  int has_validity;
  /* scratch */
  uint8_t *notnull;
  size_t notnull_cap;
  int64_t *scratch;
  size_t scratch_cap;
  uint8_t *scratch2;
  size_t scratch2_cap;
  char label[SK_COUNT][192];
  col_reader **children;
  uint32_t n_children;
};

struct pm_orc_reader {
  pm_file *file;
  const char *path;
  uint64_t file_size;
  /* postscript */
  int compression_kind;
  pm_codec codec;
  uint64_t block_size;
  uint64_t footer_length, metadata_length;
  uint32_t writer_version;
  uint32_t version[2];
  /* footer */
  pm_buf footer;
  uint64_t num_rows;
  uint32_t row_index_stride;
  char *software_version;
  size_t n_stripes;
  pm_orc_stripe_info *stripes;
  size_t n_types;
  orc_type *types;
  size_t n_user_meta;
  char **um_keys;
  const uint8_t **um_vals;
  size_t *um_lens;
  /* metadata (stripe statistics), loaded lazily */
  int metadata_loaded;
  pm_buf metadata;
  const uint8_t **sstats; /* n_stripes * n_types raw ColumnStatistics */
  size_t *sstats_len;
  /* options */
  int64_t batch_size;
  orc_pred *preds;
  size_t n_preds;
  int64_t *ranges;
  size_t n_ranges;
  uint32_t *top; /* selected top-level column ids */
  size_t n_top;
  /* read state */
  size_t cur_stripe;
  int stripe_loaded;
  uint64_t stripe_row;
  int64_t *runs; /* selected [start,end) within the stripe */
  size_t n_runs, runs_cap, cur_run;
  col_reader *cols; /* indexed by column id; only selected ones initialised */
  pm_buf *streams;  /* n_types * SK_COUNT decompressed streams of the loaded stripe (capacity kept) */
  uint8_t *have;    /* n_types * SK_COUNT: stream present in the loaded stripe */
  pm_buf *chunk_map; /* n_types * SK_COUNT: (compressed, decompressed) chunk offsets of each stream */
  int can_seek;      /* every selected column of the loaded stripe has a row index */
  ZSTD_DCtx *zdctx; /* reused across chunks */
  pm_buf tmp;       /* compressed bytes */
  uint64_t skipped_stripes, skipped_groups;
  char *tz;         /* writer time zone of the loaded stripe */
  pm_tz *zone;      /* its offsets (loaded when a TIMESTAMP column is read; unknown zones are UTC) */
  char *zone_name;  /* the name zone was loaded for */
  int64_t zone_base; /* epoch seconds of 2015-01-01 00:00:00 in the writer zone */
};

/* ------------------------------------------------------------------ */

static char *dupn(const uint8_t *s, size_t n) { return pm_strndup((const char *)s, n); }

const char *pm_orc_kind_name(pm_orc_kind k) {
  static const char *names[] = {"BOOLEAN", "BYTE",   "SHORT",  "INT",     "LONG",    "FLOAT",
                                "DOUBLE",  "STRING", "BINARY", "TIMESTAMP", "LIST",  "MAP",
                                "STRUCT",  "UNION",  "DECIMAL", "DATE",   "VARCHAR", "CHAR",
                                "TIMESTAMP_INSTANT"};
  if ((unsigned)k < sizeof names / sizeof names[0]) return names[k];
  return "UNKNOWN";
}

const char *pm_orc_encoding_name(pm_orc_encoding e) {
  switch (e) {
    case PM_ORC_ENC_DIRECT: return "DIRECT";
    case PM_ORC_ENC_DICTIONARY: return "DICTIONARY";
    case PM_ORC_ENC_DIRECT_V2: return "DIRECT_V2";
    case PM_ORC_ENC_DICTIONARY_V2: return "DICTIONARY_V2";
  }
  return "UNKNOWN";
}

void pm_orc_read_options_init(pm_orc_read_options *o) { memset(o, 0, sizeof *o); }

/* Decompresses an ORC compressed section (3-byte chunk headers) and appends to out. */
static int orc_decompress(pm_orc_reader *r, const uint8_t *src, size_t len, pm_buf *out, pm_buf *map,
                          const char *what, uint64_t file_off, pm_error *err) {
  if (r->codec == PM_CODEC_NONE) return pm_buf_append(out, src, len) ? PM_NOMEM(err) : 0;
  size_t out_start = out->len;
  /* Size the output once: chunk headers bound each chunk by the block size. */
  uint64_t estimate = 0;
  for (size_t p = 0; p + 3 <= len;) {
    uint32_t h = (uint32_t)src[p] | ((uint32_t)src[p + 1] << 8) | ((uint32_t)src[p + 2] << 16);
    size_t cl = h >> 1;
    p += 3;
    if (cl > len - p) break;
    if (h & 1) estimate += cl;
    else if (r->codec == PM_CODEC_ZSTD) {
      unsigned long long sz = ZSTD_getFrameContentSize(src + p, cl);
      estimate += (sz != ZSTD_CONTENTSIZE_UNKNOWN && sz != ZSTD_CONTENTSIZE_ERROR && sz <= r->block_size) ? sz : r->block_size;
    } else {
      estimate += r->block_size;
    }
    p += cl;
  }
  if (estimate > 0 && estimate < ((uint64_t)1 << 40) && pm_buf_reserve(out, (size_t)estimate)) return PM_NOMEM(err);
  size_t pos = 0;
  while (pos < len) {
    if (len - pos < 3)
      return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: %s: truncated compression chunk header at offset %llu", r->path,
                       what, (unsigned long long)(file_off + pos));
    uint32_t h = (uint32_t)src[pos] | ((uint32_t)src[pos + 1] << 8) | ((uint32_t)src[pos + 2] << 16);
    size_t clen = h >> 1;
    int original = h & 1;
    pos += 3;
    if (clen > len - pos)
      return pm_errorf(err, PAIMON_ERR_CORRUPT,
                       "%s: %s: compression chunk of %zu bytes at offset %llu runs past the end (%zu left)", r->path,
                       what, clen, (unsigned long long)(file_off + pos - 3), len - pos);
    const uint8_t *c = src + pos;
    int rc = 0;
    if (map) { /* chunk start (compressed) -> decompressed offset, for row index positions */
      uint64_t pair[2] = {pos - 3, out->len - out_start};
      if (pm_buf_append(map, pair, sizeof pair)) return PM_NOMEM(err);
    }
    if (original) {
      if (pm_buf_append(out, c, clen)) return PM_NOMEM(err);
    } else if (r->codec == PM_CODEC_LZ4_RAW) {
      if (pm_buf_reserve(out, r->block_size)) return PM_NOMEM(err);
      int n = LZ4_decompress_safe((const char *)c, (char *)out->data + out->len, (int)clen, (int)r->block_size);
      if (n < 0)
        rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "lz4: corrupt block");
      else
        out->len += (size_t)n;
    } else if (r->codec == PM_CODEC_ZSTD) {
      if (!r->zdctx && !(r->zdctx = pm_zstd_dctx_take())) return PM_NOMEM(err);
      if (pm_buf_reserve(out, r->block_size)) return PM_NOMEM(err);
      size_t n = ZSTD_decompressDCtx(r->zdctx, out->data + out->len, r->block_size, c, clen);
      if (ZSTD_isError(n))
        rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "zstd: %s", ZSTD_getErrorName(n));
      else
        out->len += n;
    } else {
      rc = pm_decompress_unknown(r->codec, c, clen, out, r->block_size, err);
    }
    if (rc)
      return pm_error_prefix(err, "%s: %s: compression chunk at offset %llu: ", r->path, what,
                             (unsigned long long)(file_off + pos - 3));
    pos += clen;
  }
  if (map) { /* end sentinel: a position at the end of the stream is valid (no more values) */
    uint64_t pair[2] = {len, out->len - out_start};
    if (pm_buf_append(map, pair, sizeof pair)) return PM_NOMEM(err);
  }
  return 0;
}

/* Reads [off, off+len) of the file into r->tmp (or points into memory) and decompresses into out. */
static int read_section_map(pm_orc_reader *r, uint64_t off, uint64_t len, pm_buf *out, pm_buf *map, const char *what,
                            pm_error *err) {
  if (off > r->file_size || len > r->file_size - off)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: %s at offset %llu length %llu runs past the end of the file (%llu bytes)",
                     r->path, what, (unsigned long long)off, (unsigned long long)len, (unsigned long long)r->file_size);
  const uint8_t *mem = pm_file_memory(r->file);
  const uint8_t *src;
  if (mem) {
    src = mem + off;
  } else {
    r->tmp.len = 0;
    if (pm_buf_reserve(&r->tmp, (size_t)len)) return PM_NOMEM(err);
    PM_TRY(pm_file_read_at(r->file, off, r->tmp.data, (size_t)len, err));
    src = r->tmp.data;
  }
  return orc_decompress(r, src, (size_t)len, out, map, what, off, err);
}

static int read_section(pm_orc_reader *r, uint64_t off, uint64_t len, pm_buf *out, const char *what, pm_error *err) {
  return read_section_map(r, off, len, out, NULL, what, err);
}

/* ------------------------------------------------------------------ */
/* Tail parsing */

static int parse_postscript(pm_orc_reader *r, const uint8_t *ps, size_t len, pm_error *err) {
  pm_pb pb;
  pm_pb_init(&pb, ps, len, r->path, "postscript");
  uint64_t compression = 0, v;
  int have_magic = 0;
  r->block_size = 256 * 1024;
  size_t nver = 0;
  while (pm_pb_more(&pb)) {
    uint32_t f, w;
    PM_TRY(pm_pb_key(&pb, &f, &w, err));
    if (f == 1) {
      PM_TRY(pm_pb_uint(&pb, w, &r->footer_length, err));
    } else if (f == 2) {
      PM_TRY(pm_pb_uint(&pb, w, &compression, err));
    } else if (f == 3) {
      PM_TRY(pm_pb_uint(&pb, w, &r->block_size, err));
    } else if (f == 4) {
      uint64_t *vals = NULL;
      size_t n = 0, cap = 0;
      int rc = pm_pb_repeated_uint(&pb, w, &vals, &n, &cap, err);
      for (size_t i = 0; i < n && nver < 2; i++) r->version[nver++] = (uint32_t)vals[i];
      free(vals);
      PM_TRY(rc);
    } else if (f == 5) {
      PM_TRY(pm_pb_uint(&pb, w, &r->metadata_length, err));
    } else if (f == 6) {
      PM_TRY(pm_pb_uint(&pb, w, &v, err));
      r->writer_version = (uint32_t)v;
    } else if (f == 8000) {
      const uint8_t *d;
      size_t n;
      if (w != PM_PB_LEN) return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: postscript magic has wrong wire type", r->path);
      PM_TRY(pm_pb_bytes(&pb, &d, &n, err));
      if (n != 3 || memcmp(d, "ORC", 3) != 0)
        return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: postscript magic is not \"ORC\"", r->path);
      have_magic = 1;
    } else {
      PM_TRY(pm_pb_skip(&pb, w, err));
    }
  }
  (void)have_magic;
  r->compression_kind = (int)compression;
  switch (compression) {
    case 0: r->codec = PM_CODEC_NONE; break;
    case 1: r->codec = PM_CODEC_DEFLATE; break;
    case 2: r->codec = PM_CODEC_SNAPPY; break;
    case 4: r->codec = PM_CODEC_LZ4_RAW; break;
    case 5: r->codec = PM_CODEC_ZSTD; break;
    case 3: return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: LZO compression is not supported", r->path);
    default:
      return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: unknown compression kind %llu in postscript", r->path,
                       (unsigned long long)compression);
  }
  if (r->block_size == 0 || r->block_size > (64u << 20))
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: implausible compression block size %llu in postscript", r->path,
                     (unsigned long long)r->block_size);
  return 0;
}

static int parse_type(pm_orc_reader *r, orc_type *t, const uint8_t *d, size_t len, char ***names, size_t *n_names,
                      pm_error *err) {
  pm_pb pb;
  pm_pb_init(&pb, d, len, r->path, "footer type");
  uint64_t v, *subs = NULL;
  size_t n_subs = 0, cap = 0, names_cap = 0;
  int rc = 0;
  t->info.field_id = -1;
  while (rc == 0 && pm_pb_more(&pb)) {
    uint32_t f, w;
    if ((rc = pm_pb_key(&pb, &f, &w, err))) break;
    if (f == 1) {
      if ((rc = pm_pb_uint(&pb, w, &v, err))) break;
      if (v > 18) {
        rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: unknown ORC type kind %llu", r->path, (unsigned long long)v);
        break;
      }
      t->info.kind = (pm_orc_kind)v;
    } else if (f == 2) {
      rc = pm_pb_repeated_uint(&pb, w, &subs, &n_subs, &cap, err);
    } else if (f == 3 && w == PM_PB_LEN) {
      const uint8_t *s;
      size_t n;
      if ((rc = pm_pb_bytes(&pb, &s, &n, err))) break;
      if (*n_names == names_cap) {
        names_cap = names_cap ? names_cap * 2 : 8;
        char **nn = realloc(*names, names_cap * sizeof *nn);
        if (!nn) {
          rc = PM_NOMEM(err);
          break;
        }
        *names = nn;
      }
      if (!((*names)[*n_names] = dupn(s, n))) {
        rc = PM_NOMEM(err);
        break;
      }
      (*n_names)++;
    } else if (f == 4 || f == 5 || f == 6) {
      if ((rc = pm_pb_uint(&pb, w, &v, err))) break;
      if (f == 4) t->info.max_length = (uint32_t)v;
      if (f == 5) t->info.precision = (uint32_t)v;
      if (f == 6) t->info.scale = (uint32_t)v;
    } else if (f == 7 && w == PM_PB_LEN) {
      const uint8_t *s;
      size_t n;
      if ((rc = pm_pb_bytes(&pb, &s, &n, err))) break;
      pm_pb sub;
      pm_pb_init(&sub, s, n, r->path, "type attribute");
      const uint8_t *k = NULL, *val = NULL;
      size_t kl = 0, vl = 0;
      while (rc == 0 && pm_pb_more(&sub)) {
        uint32_t f2, w2;
        if ((rc = pm_pb_key(&sub, &f2, &w2, err))) break;
        if (f2 == 1 && w2 == PM_PB_LEN)
          rc = pm_pb_bytes(&sub, &k, &kl, err);
        else if (f2 == 2 && w2 == PM_PB_LEN)
          rc = pm_pb_bytes(&sub, &val, &vl, err);
        else
          rc = pm_pb_skip(&sub, w2, err);
      }
      if (rc) break;
      char **nk = realloc(t->attr_keys, (t->n_attrs + 1) * sizeof *nk);
      if (nk) t->attr_keys = nk;
      char **nv = realloc(t->attr_vals, (t->n_attrs + 1) * sizeof *nv);
      if (nv) t->attr_vals = nv;
      if (!nk || !nv) {
        rc = PM_NOMEM(err);
        break;
      }
      t->attr_keys[t->n_attrs] = dupn(k ? k : (const uint8_t *)"", kl);
      t->attr_vals[t->n_attrs] = dupn(val ? val : (const uint8_t *)"", vl);
      t->n_attrs++;
      if (!t->attr_keys[t->n_attrs - 1] || !t->attr_vals[t->n_attrs - 1]) {
        rc = PM_NOMEM(err);
        break;
      }
      if (strcmp(t->attr_keys[t->n_attrs - 1], "paimon.id") == 0) {
        char *end;
        long id = strtol(t->attr_vals[t->n_attrs - 1], &end, 10);
        if (*end == 0 && end != t->attr_vals[t->n_attrs - 1] && id >= 0 && id <= INT32_MAX) t->info.field_id = (int32_t)id;
      }
    } else {
      rc = pm_pb_skip(&pb, w, err);
    }
  }
  if (rc == 0 && n_subs > 0) {
    t->children = malloc(n_subs * sizeof *t->children);
    if (!t->children) rc = PM_NOMEM(err);
    for (size_t i = 0; rc == 0 && i < n_subs; i++) {
      if (subs[i] >= ORC_MAX_TYPES) {
        rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: footer type has subtype id %llu out of range", r->path,
                       (unsigned long long)subs[i]);
        break;
      }
      t->children[i] = (uint32_t)subs[i];
    }
    t->info.n_children = (uint32_t)n_subs;
    t->info.children = t->children;
  }
  free(subs);
  return rc;
}

static int parse_stripe_info(pm_orc_reader *r, pm_orc_stripe_info *s, const uint8_t *d, size_t len, pm_error *err) {
  pm_pb pb;
  pm_pb_init(&pb, d, len, r->path, "stripe information");
  memset(s, 0, sizeof *s);
  while (pm_pb_more(&pb)) {
    uint32_t f, w;
    uint64_t v;
    PM_TRY(pm_pb_key(&pb, &f, &w, err));
    if (f >= 1 && f <= 5) {
      PM_TRY(pm_pb_uint(&pb, w, &v, err));
      if (f == 1) s->offset = v;
      if (f == 2) s->index_length = v;
      if (f == 3) s->data_length = v;
      if (f == 4) s->footer_length = v;
      if (f == 5) s->num_rows = v;
    } else {
      PM_TRY(pm_pb_skip(&pb, w, err));
    }
  }
  return 0;
}

static int validate_types(pm_orc_reader *r, char ***type_names, size_t *type_n_names, pm_error *err) {
  if (r->n_types == 0 || r->types[0].info.kind != PM_ORC_STRUCT)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: footer: root type is not a struct", r->path);
  for (size_t i = 0; i < r->n_types; i++) {
    r->types[i].info.parent = -1;
    r->types[i].name = NULL;
  }
  for (size_t i = 0; i < r->n_types; i++) {
    orc_type *t = &r->types[i];
    pm_orc_kind k = t->info.kind;
    uint32_t nc = t->info.n_children;
    int ok = 1;
    if (k == PM_ORC_LIST) ok = nc == 1;
    else if (k == PM_ORC_MAP) ok = nc == 2;
    else if (k == PM_ORC_STRUCT) ok = type_n_names[i] == nc;
    else if (k == PM_ORC_UNION) ok = nc >= 1 && nc <= 127; /* Arrow type ids are int8 */
    else ok = nc == 0;
    if (!ok)
      return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: footer: type %zu (%s) has %u subtypes / %zu field names", r->path,
                       i, pm_orc_kind_name(k), nc, type_n_names[i]);
    for (uint32_t c = 0; c < nc; c++) {
      uint32_t ch = t->children[c];
      if (ch <= i || ch >= r->n_types || r->types[ch].info.parent != -1)
        return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: footer: type %zu has invalid subtype %u", r->path, i, ch);
      r->types[ch].info.parent = (int32_t)i;
      if (k == PM_ORC_STRUCT) {
        r->types[ch].name = type_names[i][c];
        type_names[i][c] = NULL;
      }
    }
  }
  for (size_t i = 0; i < r->n_types; i++) {
    if (i > 0 && r->types[i].info.parent < 0)
      return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: footer: type %zu is not reachable from the root", r->path, i);
    if (!r->types[i].name && !(r->types[i].name = pm_strdup(""))) return PM_NOMEM(err);
    r->types[i].info.name = r->types[i].name;
    int depth = 0;
    for (int32_t p = r->types[i].info.parent; p >= 0; p = r->types[p].info.parent)
      if (++depth > ORC_MAX_DEPTH)
        return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: footer: type %zu is nested deeper than %d", r->path, i,
                         ORC_MAX_DEPTH);
  }
  return 0;
}

static int parse_footer(pm_orc_reader *r, pm_error *err) {
  pm_pb pb;
  pm_pb_init(&pb, r->footer.data, r->footer.len, r->path, "footer");
  size_t stripes_cap = 0, types_cap = 0, um_cap = 0, n_stats = 0;
  char ***type_names = NULL;
  size_t *type_n_names = NULL;
  int rc = 0;
  while (rc == 0 && pm_pb_more(&pb)) {
    uint32_t f, w;
    uint64_t v;
    const uint8_t *d;
    size_t n;
    if ((rc = pm_pb_key(&pb, &f, &w, err))) break;
    if ((f == 3 || f == 4 || f == 5 || f == 7 || f == 12) && w == PM_PB_LEN) {
      if ((rc = pm_pb_bytes(&pb, &d, &n, err))) break;
      if (f == 3) {
        if (r->n_stripes == stripes_cap) {
          stripes_cap = stripes_cap ? stripes_cap * 2 : 8;
          pm_orc_stripe_info *ns = realloc(r->stripes, stripes_cap * sizeof *ns);
          if (!ns) {
            rc = PM_NOMEM(err);
            break;
          }
          r->stripes = ns;
        }
        rc = parse_stripe_info(r, &r->stripes[r->n_stripes++], d, n, err);
      } else if (f == 4) {
        if (r->n_types >= ORC_MAX_TYPES) {
          rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: footer has more than %d types", r->path, ORC_MAX_TYPES);
          break;
        }
        if (r->n_types == types_cap) {
          types_cap = types_cap ? types_cap * 2 : 16;
          orc_type *nt = realloc(r->types, types_cap * sizeof *nt);
          char ***nn = realloc(type_names, types_cap * sizeof *nn);
          if (nt) r->types = nt;
          if (nn) type_names = nn;
          size_t *nc = realloc(type_n_names, types_cap * sizeof *nc);
          if (nc) type_n_names = nc;
          if (!nt || !nn || !nc) {
            rc = PM_NOMEM(err);
            break;
          }
        }
        orc_type *t = &r->types[r->n_types];
        memset(t, 0, sizeof *t);
        type_names[r->n_types] = NULL;
        type_n_names[r->n_types] = 0;
        r->n_types++;
        rc = parse_type(r, t, d, n, &type_names[r->n_types - 1], &type_n_names[r->n_types - 1], err);
      } else if (f == 5) {
        if (r->n_user_meta == um_cap) {
          um_cap = um_cap ? um_cap * 2 : 8;
          char **nk = realloc(r->um_keys, um_cap * sizeof *nk);
          if (nk) r->um_keys = nk;
          const uint8_t **nv = realloc(r->um_vals, um_cap * sizeof *nv);
          if (nv) r->um_vals = nv;
          size_t *nl = realloc(r->um_lens, um_cap * sizeof *nl);
          if (nl) r->um_lens = nl;
          if (!nk || !nv || !nl) {
            rc = PM_NOMEM(err);
            break;
          }
        }
        pm_pb sub;
        pm_pb_init(&sub, d, n, r->path, "user metadata");
        const uint8_t *k = (const uint8_t *)"", *val = (const uint8_t *)"";
        size_t kl = 0, vl = 0;
        while (rc == 0 && pm_pb_more(&sub)) {
          uint32_t f2, w2;
          if ((rc = pm_pb_key(&sub, &f2, &w2, err))) break;
          if (f2 == 1 && w2 == PM_PB_LEN) rc = pm_pb_bytes(&sub, &k, &kl, err);
          else if (f2 == 2 && w2 == PM_PB_LEN) rc = pm_pb_bytes(&sub, &val, &vl, err);
          else rc = pm_pb_skip(&sub, w2, err);
        }
        if (rc) break;
        r->um_keys[r->n_user_meta] = dupn(k, kl);
        if (!r->um_keys[r->n_user_meta]) {
          rc = PM_NOMEM(err);
          break;
        }
        r->um_vals[r->n_user_meta] = val;
        r->um_lens[r->n_user_meta] = vl;
        r->n_user_meta++;
      } else if (f == 7) {
        /* Column statistics, one per type in order; types may come later, so keep pointers in a side list. */
        if (n_stats < r->n_types) {
          r->types[n_stats].stats = d;
          r->types[n_stats].stats_len = n;
        }
        n_stats++;
      } else if (f == 12) {
        free(r->software_version);
        if (!(r->software_version = dupn(d, n))) rc = PM_NOMEM(err);
      }
    } else if (f == 6) {
      rc = pm_pb_uint(&pb, w, &r->num_rows, err);
    } else if (f == 8) {
      if ((rc = pm_pb_uint(&pb, w, &v, err))) break;
      r->row_index_stride = (uint32_t)v;
    } else {
      rc = pm_pb_skip(&pb, w, err);
    }
  }
  if (rc == 0 && n_stats > 0 && n_stats != r->n_types) {
    /* Statistics listed before types (unusual): re-scan to attach them. */
    pm_pb_init(&pb, r->footer.data, r->footer.len, r->path, "footer");
    size_t si = 0;
    while (rc == 0 && pm_pb_more(&pb)) {
      uint32_t f, w;
      if ((rc = pm_pb_key(&pb, &f, &w, err))) break;
      if (f == 7 && w == PM_PB_LEN) {
        const uint8_t *d;
        size_t n;
        if ((rc = pm_pb_bytes(&pb, &d, &n, err))) break;
        if (si < r->n_types) {
          r->types[si].stats = d;
          r->types[si].stats_len = n;
        }
        si++;
      } else {
        rc = pm_pb_skip(&pb, w, err);
      }
    }
  }
  if (rc == 0) rc = validate_types(r, type_names, type_n_names, err);
  for (size_t i = 0; i < r->n_types; i++) {
    for (size_t j = 0; type_names && type_names[i] && j < type_n_names[i]; j++) free(type_names[i][j]);
    if (type_names) free(type_names[i]);
  }
  free(type_names);
  free(type_n_names);
  if (rc) return rc;
  uint64_t first = 0;
  uint64_t tail_start = r->file_size;
  for (size_t i = 0; i < r->n_stripes; i++) {
    pm_orc_stripe_info *s = &r->stripes[i];
    s->first_row = first;
    uint64_t total = s->index_length + s->data_length;
    if (s->index_length > tail_start || s->data_length > tail_start || s->footer_length > tail_start ||
        s->offset > tail_start || total + s->footer_length > tail_start - s->offset)
      return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: footer: stripe %zu (offset %llu, %llu+%llu+%llu bytes) lies outside the file",
                       r->path, i, (unsigned long long)s->offset, (unsigned long long)s->index_length,
                       (unsigned long long)s->data_length, (unsigned long long)s->footer_length);
    if (s->num_rows > UINT64_MAX - first) return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: footer: stripe row counts overflow", r->path);
    first += s->num_rows;
  }
  if (r->n_stripes > 0 && first != r->num_rows)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: footer: stripes hold %llu rows but the footer says %llu", r->path,
                     (unsigned long long)first, (unsigned long long)r->num_rows);
  return 0;
}

static void free_types(pm_orc_reader *r) {
  for (size_t i = 0; i < r->n_types; i++) {
    orc_type *t = &r->types[i];
    free(t->children);
    free(t->name);
    for (size_t a = 0; a < t->n_attrs; a++) {
      free(t->attr_keys[a]);
      free(t->attr_vals[a]);
    }
    free(t->attr_keys);
    free(t->attr_vals);
  }
  free(r->types);
}

static void free_cols(pm_orc_reader *r);

void pm_orc_reader_close(pm_orc_reader *r) {
  if (!r) return;
  free_cols(r);
  free_types(r);
  free(r->stripes);
  for (size_t i = 0; i < r->n_user_meta; i++) free(r->um_keys[i]);
  free(r->um_keys);
  free(r->um_vals);
  free(r->um_lens);
  free(r->software_version);
  pm_buf_free(&r->footer);
  pm_buf_free(&r->metadata);
  pm_buf_free(&r->tmp);
  pm_zstd_dctx_give(r->zdctx);
  free(r->sstats);
  free(r->sstats_len);
  for (size_t i = 0; i < r->n_preds; i++) {
    for (size_t j = 0; j < r->preds[i].n_values; j++) free((void *)r->preds[i].values[j].bytes);
    free(r->preds[i].values);
  }
  free(r->preds);
  free(r->ranges);
  free(r->top);
  free(r->runs);
  free(r->tz);
  pm_tz_free(r->zone);
  free(r->zone_name);
  free(r);
}

int32_t pm_orc_reader_find_column(const pm_orc_reader *r, const char *name) {
  const orc_type *root = &r->types[0];
  for (uint32_t i = 0; i < root->info.n_children; i++)
    if (strcmp(r->types[root->children[i]].name, name) == 0) return (int32_t)root->children[i];
  return -1;
}

int32_t pm_orc_reader_find_field_id(const pm_orc_reader *r, int32_t field_id) {
  const orc_type *root = &r->types[0];
  for (uint32_t i = 0; i < root->info.n_children; i++)
    if (r->types[root->children[i]].info.field_id == field_id) return (int32_t)root->children[i];
  return -1;
}

static int resolve(pm_orc_reader *r, const char *name, int32_t field_id, int32_t *out, pm_error *err) {
  int32_t c = name ? pm_orc_reader_find_column(r, name) : pm_orc_reader_find_field_id(r, field_id);
  if (c < 0) {
    if (name) return pm_errorf(err, PAIMON_ERR_NOT_FOUND, "%s: no column named \"%s\"", r->path, name);
    return pm_errorf(err, PAIMON_ERR_NOT_FOUND, "%s: no column with field id %d", r->path, (int)field_id);
  }
  *out = c;
  return 0;
}

static void mark_selected(pm_orc_reader *r, uint32_t id) {
  r->types[id].selected = 1;
  for (uint32_t i = 0; i < r->types[id].info.n_children; i++) mark_selected(r, r->types[id].children[i]);
}

static int apply_options(pm_orc_reader *r, const pm_orc_read_options *o, pm_error *err) {
  r->batch_size = o && o->batch_size > 0 ? o->batch_size : 16384;
  char def_unit = o && o->default_ts_unit ? o->default_ts_unit : 'n';
  if (!strchr("smun", def_unit)) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "bad timestamp unit '%c'", def_unit);
  for (size_t i = 0; i < r->n_types; i++) r->types[i].ts_unit = def_unit;
  const orc_type *root = &r->types[0];
  uint8_t *want = calloc(r->n_types, 1);
  if (!want) return PM_NOMEM(err);
  int rc = 0;
  int all = !o || (!o->columns && !o->field_ids);
  if (!all) {
    for (size_t i = 0; rc == 0 && o->columns && i < o->n_columns; i++) {
      int32_t c = 0;
      if ((rc = resolve(r, o->columns[i], -1, &c, err)) == 0) want[c] = 1;
    }
    for (size_t i = 0; rc == 0 && o->field_ids && i < o->n_field_ids; i++) {
      int32_t c = 0;
      if ((rc = resolve(r, NULL, o->field_ids[i], &c, err)) == 0) want[c] = 1;
    }
  }
  if (rc == 0) {
    r->top = malloc((root->info.n_children + 1) * sizeof *r->top);
    if (!r->top) rc = PM_NOMEM(err);
  }
  for (uint32_t i = 0; rc == 0 && i < root->info.n_children; i++) {
    uint32_t c = root->children[i];
    if (all || want[c]) {
      r->top[r->n_top++] = c;
      mark_selected(r, c);
    }
  }
  free(want);
  if (rc) return rc;
  for (size_t i = 0; o && o->ts_units && i < o->n_ts_units; i++) {
    int32_t c = 0;
    PM_TRY(resolve(r, o->ts_units[i].column, o->ts_units[i].field_id, &c, err));
    if (!o->ts_units[i].unit || !strchr("smun", o->ts_units[i].unit))
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "bad timestamp unit '%c'", o->ts_units[i].unit);
    r->types[c].ts_unit = o->ts_units[i].unit;
  }
  if (o && o->predicates && o->n_predicates) {
    r->preds = calloc(o->n_predicates, sizeof *r->preds);
    if (!r->preds) return PM_NOMEM(err);
    for (size_t i = 0; i < o->n_predicates; i++) {
      const pm_fmt_predicate *p = &o->predicates[i];
      int32_t c = 0;
      PM_TRY(resolve(r, p->column, p->field_id, &c, err));
      orc_pred *q = &r->preds[r->n_preds++];
      q->column = (uint32_t)c;
      q->op = p->op;
      if (p->op > PM_FMT_OP_IN) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "bad predicate operator %d", (int)p->op);
      if (p->op != PM_FMT_OP_IS_NULL && p->op != PM_FMT_OP_IS_NOT_NULL) {
        if (p->n_values == 0 || !p->values || (p->op != PM_FMT_OP_IN && p->n_values != 1))
          return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "predicate on column %d needs %s", c,
                           p->op == PM_FMT_OP_IN ? "at least one value" : "exactly one value");
        q->values = calloc(p->n_values, sizeof *q->values);
        if (!q->values) return PM_NOMEM(err);
        for (size_t j = 0; j < p->n_values; j++) {
          q->values[j] = p->values[j];
          q->values[j].bytes = NULL;
          if (p->values[j].kind == PM_FMT_LIT_BYTES) {
            uint8_t *b = malloc(p->values[j].len + 1);
            if (!b) return PM_NOMEM(err);
            if (p->values[j].len) memcpy(b, p->values[j].bytes, p->values[j].len);
            q->values[j].bytes = b;
          }
          q->n_values++;
        }
      }
    }
  }
  if (o && o->row_ranges && o->n_row_ranges) {
    r->ranges = malloc(o->n_row_ranges * 2 * sizeof *r->ranges);
    if (!r->ranges) return PM_NOMEM(err);
    int64_t prev = 0;
    for (size_t i = 0; i < o->n_row_ranges; i++) {
      int64_t s = o->row_ranges[2 * i], e = o->row_ranges[2 * i + 1];
      if (s < prev || e < s)
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "row ranges must be sorted, non-overlapping [start,end) pairs (range %zu)", i);
      r->ranges[2 * i] = s;
      r->ranges[2 * i + 1] = e;
      prev = e;
    }
    r->n_ranges = o->n_row_ranges;
  }
  return 0;
}

int pm_orc_reader_open(pm_file *file, const pm_orc_read_options *options, pm_orc_reader **out, pm_error *err) {
  *out = NULL;
  pm_orc_reader *r = calloc(1, sizeof *r);
  if (!r) return PM_NOMEM(err);
  r->file = file;
  r->path = pm_file_path(file);
  if (!r->path) r->path = "(orc)";
  r->file_size = pm_file_size(file);
  int rc = 0;
  uint8_t *tail = NULL;
  if (r->file_size < 4) {
    rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: file of %llu bytes is too small for ORC", r->path,
                   (unsigned long long)r->file_size);
    goto fail;
  }
  /* a small file in one read (the reads below and the stripes then come from memory) */
  if (r->file_size <= PM_FILE_PREFETCH_WHOLE && (rc = pm_file_prefetch(file, 0, (size_t)r->file_size, err))) goto fail;
  {
    uint8_t magic[3];
    if ((rc = pm_file_read_at(file, 0, magic, 3, err))) goto fail;
    if (memcmp(magic, "ORC", 3) != 0) {
      rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: not an ORC file: the first bytes at offset 0 are not \"ORC\"", r->path);
      goto fail;
    }
  }
  size_t tail_len = r->file_size < ORC_TAIL_READ ? (size_t)r->file_size : ORC_TAIL_READ;
  tail = malloc(tail_len);
  if (!tail) {
    rc = PM_NOMEM(err);
    goto fail;
  }
  if ((rc = pm_file_read_at(file, r->file_size - tail_len, tail, tail_len, err))) goto fail;
  size_t ps_len = tail[tail_len - 1];
  if (ps_len == 0 || ps_len + 1 > tail_len) {
    rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: postscript length %zu at offset %llu does not fit the file", r->path,
                   ps_len, (unsigned long long)(r->file_size - 1));
    goto fail;
  }
  if ((rc = parse_postscript(r, tail + tail_len - 1 - ps_len, ps_len, err))) goto fail;
  {
    uint64_t ps_start = r->file_size - 1 - ps_len;
    if (r->footer_length > ps_start || r->metadata_length > ps_start - r->footer_length) {
      rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: footer (%llu bytes) and metadata (%llu bytes) do not fit before the postscript",
                     r->path, (unsigned long long)r->footer_length, (unsigned long long)r->metadata_length);
      goto fail;
    }
    uint64_t footer_off = ps_start - r->footer_length;
    uint64_t tail_start = r->file_size - tail_len;
    if (footer_off >= tail_start) /* usually: the footer came with the tail read */
      rc = orc_decompress(r, tail + (footer_off - tail_start), (size_t)r->footer_length, &r->footer, NULL, "footer",
                          footer_off, err);
    else
      rc = read_section(r, footer_off, r->footer_length, &r->footer, "footer", err);
    if (rc) goto fail;
    if ((rc = parse_footer(r, err))) goto fail;
  }
  if ((rc = apply_options(r, options, err))) goto fail;
  free(tail);
  *out = r;
  return 0;
fail:
  free(tail);
  pm_orc_reader_close(r);
  return rc;
}

/* ------------------------------------------------------------------ */
/* Metadata accessors */

uint64_t pm_orc_reader_num_rows(const pm_orc_reader *r) { return r->num_rows; }
pm_codec pm_orc_reader_compression(const pm_orc_reader *r) { return r->codec; }
const char *pm_orc_reader_compression_name(const pm_orc_reader *r) {
  static const char *names[] = {"NONE", "ZLIB", "SNAPPY", "LZO", "LZ4", "ZSTD"};
  return r->compression_kind >= 0 && r->compression_kind < 6 ? names[r->compression_kind] : "UNKNOWN";
}
uint64_t pm_orc_reader_compression_block_size(const pm_orc_reader *r) { return r->block_size; }
uint32_t pm_orc_reader_writer_version(const pm_orc_reader *r) { return r->writer_version; }
uint32_t pm_orc_reader_row_index_stride(const pm_orc_reader *r) { return r->row_index_stride; }
const char *pm_orc_reader_software_version(const pm_orc_reader *r) { return r->software_version ? r->software_version : ""; }
size_t pm_orc_reader_user_metadata_count(const pm_orc_reader *r) { return r->n_user_meta; }
void pm_orc_reader_user_metadata(const pm_orc_reader *r, size_t i, const char **key, const uint8_t **value,
                                 size_t *value_len) {
  *key = r->um_keys[i];
  *value = r->um_vals[i];
  *value_len = r->um_lens[i];
}
size_t pm_orc_reader_num_stripes(const pm_orc_reader *r) { return r->n_stripes; }
const pm_orc_stripe_info *pm_orc_reader_stripe(const pm_orc_reader *r, size_t i) {
  return i < r->n_stripes ? &r->stripes[i] : NULL;
}
uint64_t pm_orc_reader_skipped_stripes(const pm_orc_reader *r) { return r->skipped_stripes; }
uint64_t pm_orc_reader_skipped_row_groups(const pm_orc_reader *r) { return r->skipped_groups; }
size_t pm_orc_reader_num_columns(const pm_orc_reader *r) { return r->n_types; }
const pm_orc_column_info *pm_orc_reader_column(const pm_orc_reader *r, size_t column) {
  return column < r->n_types ? &r->types[column].info : NULL;
}
size_t pm_orc_reader_column_attribute_count(const pm_orc_reader *r, size_t column) {
  return column < r->n_types ? r->types[column].n_attrs : 0;
}
void pm_orc_reader_column_attribute(const pm_orc_reader *r, size_t column, size_t i, const char **key,
                                    const char **value) {
  *key = r->types[column].attr_keys[i];
  *value = r->types[column].attr_vals[i];
}

/* ------------------------------------------------------------------ */
/* Statistics */

static int decode_stats(const pm_orc_reader *r, const orc_type *t, const uint8_t *d, size_t len, int64_t parent_rows,
                        pm_orc_column_stats *s, pm_error *err) {
  memset(s, 0, sizeof *s);
  s->has_null = -1;
  s->null_count = -1;
  pm_pb pb;
  pm_pb_init(&pb, d, len, r->path, "column statistics");
  int have_num = 0;
  while (pm_pb_more(&pb)) {
    uint32_t f, w;
    uint64_t v;
    PM_TRY(pm_pb_key(&pb, &f, &w, err));
    if (f == 1) {
      PM_TRY(pm_pb_uint(&pb, w, &s->num_values, err));
      have_num = 1;
    } else if (f == 10) {
      PM_TRY(pm_pb_uint(&pb, w, &v, err));
      s->has_null = v != 0;
    } else if (w == PM_PB_LEN && (f == 2 || f == 3 || f == 4 || f == 5 || f == 6 || f == 7 || f == 8 || f == 9)) {
      const uint8_t *sd;
      size_t sn;
      PM_TRY(pm_pb_bytes(&pb, &sd, &sn, err));
      pm_pb sub;
      pm_pb_init(&sub, sd, sn, r->path, "column statistics");
      const uint8_t *lo = NULL, *hi = NULL;
      size_t lol = 0, hil = 0;
      int have_min = 0, have_max = 0, have_min_utc = 0, have_max_utc = 0;
      int64_t tmin = 0, tmax = 0;
      if (f == 9) {
        s->min_ts_nanos = 0; /* absent = no sub-millisecond part */
        s->max_ts_nanos = 999999;
      }
      while (pm_pb_more(&sub)) {
        uint32_t g, gw;
        PM_TRY(pm_pb_key(&sub, &g, &gw, err));
        if (f == 2 || f == 7 || f == 9) { /* int / date / timestamp: zigzag varints */
          if (gw != PM_PB_VARINT) {
            PM_TRY(pm_pb_skip(&sub, gw, err));
            continue;
          }
          PM_TRY(pm_pb_varint(&sub, &v, err));
          int64_t sv = pm_zigzag_decode(v);
          if (f == 9 && (g == 5 || g == 6)) sv = (int64_t)(int32_t)v; /* nanos are plain int32 */
          if (g == 1) { s->min_int = sv; have_min = 1; }
          else if (g == 2) { s->max_int = sv; have_max = 1; }
          else if (g == 3 && f == 2) { s->int_sum = sv; s->has_int_sum = 1; }
          else if (g == 3 && f == 9) { s->min_ts_millis = sv; have_min_utc = 1; }
          else if (g == 4 && f == 9) { s->max_ts_millis = sv; have_max_utc = 1; }
          else if (g == 5 && f == 9) s->min_ts_nanos = (int32_t)((int64_t)(int32_t)sv - 1); /* stored + 1 */
          else if (g == 6 && f == 9) s->max_ts_nanos = (int32_t)((int64_t)(int32_t)sv - 1);
          if (f == 9 && g == 1) tmin = sv;
          if (f == 9 && g == 2) tmax = sv;
        } else if (f == 3) { /* double */
          if (gw == PM_PB_FIXED64 && (g == 1 || g == 2)) {
            PM_TRY(pm_pb_fixed64(&sub, &v, err));
            double dv;
            memcpy(&dv, &v, 8);
            if (g == 1) { s->min_double = dv; have_min = 1; }
            else { s->max_double = dv; have_max = 1; }
          } else {
            PM_TRY(pm_pb_skip(&sub, gw, err));
          }
        } else if (f == 4 || f == 6) { /* string / decimal */
          if (gw == PM_PB_LEN) {
            const uint8_t *b;
            size_t bn;
            PM_TRY(pm_pb_bytes(&sub, &b, &bn, err));
            if (g == 1) { s->min_bytes = b; s->min_len = bn; have_min = 1; }
            else if (g == 2) { s->max_bytes = b; s->max_len = bn; have_max = 1; }
            else if (g == 4 && f == 4) { lo = b; lol = bn; }
            else if (g == 5 && f == 4) { hi = b; hil = bn; }
          } else if (gw == PM_PB_VARINT && g == 3 && f == 4) {
            PM_TRY(pm_pb_varint(&sub, &v, err));
            s->binary_sum = pm_zigzag_decode(v);
          } else {
            PM_TRY(pm_pb_skip(&sub, gw, err));
          }
        } else if (f == 5) { /* bucket (boolean): count of true */
          if (g == 1) {
            uint64_t *vals = NULL;
            size_t n = 0, cap = 0;
            int rc = pm_pb_repeated_uint(&sub, gw, &vals, &n, &cap, err);
            if (n > 0) s->true_count = vals[0];
            free(vals);
            PM_TRY(rc);
          } else {
            PM_TRY(pm_pb_skip(&sub, gw, err));
          }
        } else if (f == 8) { /* binary */
          if (gw == PM_PB_VARINT && g == 1) {
            PM_TRY(pm_pb_varint(&sub, &v, err));
            s->binary_sum = pm_zigzag_decode(v);
          } else {
            PM_TRY(pm_pb_skip(&sub, gw, err));
          }
        }
      }
      if (f == 2 || f == 7) s->has_int = have_min && have_max;
      if (f == 3) s->has_double = have_min && have_max;
      if (f == 4) {
        if (!have_min && lo) { s->min_bytes = lo; s->min_len = lol; have_min = 1; }
        if (!have_max && hi) { s->max_bytes = hi; s->max_len = hil; have_max = 1; }
        s->has_bytes = have_min && have_max;
      }
      if (f == 6) {
        s->has_decimal = have_min && have_max && s->min_len < sizeof s->min_decimal && s->max_len < sizeof s->max_decimal;
        if (s->has_decimal) {
          memcpy(s->min_decimal, s->min_bytes, s->min_len);
          s->min_decimal[s->min_len] = 0;
          memcpy(s->max_decimal, s->max_bytes, s->max_len);
          s->max_decimal[s->max_len] = 0;
        }
        s->min_bytes = s->max_bytes = NULL;
        s->min_len = s->max_len = 0;
      }
      if (f == 9) {
        if (!have_min_utc && have_min) s->min_ts_millis = tmin;
        if (!have_max_utc && have_max) s->max_ts_millis = tmax;
        s->has_timestamp = (have_min_utc || have_min) && (have_max_utc || have_max);
        s->min_int = s->max_int = 0;
      }
      if (f == 5 && t->info.kind == PM_ORC_BOOLEAN && have_num) {
        /* Booleans: min/max as ints from the true count. */
      }
    } else {
      PM_TRY(pm_pb_skip(&pb, w, err));
    }
  }
  if (t->info.kind == PM_ORC_BOOLEAN && s->num_values > 0) {
    s->has_int = 1;
    s->min_int = s->true_count == s->num_values ? 1 : 0;
    s->max_int = s->true_count > 0 ? 1 : 0;
  }
  if (parent_rows >= 0 && have_num && (uint64_t)parent_rows >= s->num_values)
    s->null_count = parent_rows - (int64_t)s->num_values;
  return 0;
}

int pm_orc_reader_file_stats(const pm_orc_reader *r, size_t column, pm_orc_column_stats *out, pm_error *err) {
  if (column >= r->n_types) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: no column %zu", r->path, column);
  const orc_type *t = &r->types[column];
  int64_t parent_rows = t->info.parent == 0 ? (int64_t)r->num_rows : (column == 0 ? 0 : -1);
  if (column == 0) parent_rows = -1;
  if (!t->stats) {
    memset(out, 0, sizeof *out);
    out->has_null = -1;
    out->null_count = -1;
    return pm_errorf(err, PAIMON_ERR_NOT_FOUND, "%s: column %zu has no statistics", r->path, column);
  }
  return decode_stats(r, t, t->stats, t->stats_len, parent_rows, out, err);
}

static int load_metadata(pm_orc_reader *r, pm_error *err) {
  if (r->metadata_loaded) return 0;
  if (r->metadata_length == 0) return pm_errorf(err, PAIMON_ERR_NOT_FOUND, "%s: file has no stripe statistics", r->path);
  /* Position: before the footer. Recompute from the postscript length. */
  uint8_t last;
  PM_TRY(pm_file_read_at(r->file, r->file_size - 1, &last, 1, err));
  uint64_t ps_start = r->file_size - 1 - last;
  uint64_t off = ps_start - r->footer_length - r->metadata_length;
  r->metadata.len = 0;
  PM_TRY(read_section(r, off, r->metadata_length, &r->metadata, "metadata", err));
  size_t total = r->n_stripes * r->n_types;
  free(r->sstats); /* a previous attempt may have failed half-way */
  free(r->sstats_len);
  r->sstats = calloc(total ? total : 1, sizeof *r->sstats);
  r->sstats_len = calloc(total ? total : 1, sizeof *r->sstats_len);
  if (!r->sstats || !r->sstats_len) return PM_NOMEM(err);
  pm_pb pb;
  pm_pb_init(&pb, r->metadata.data, r->metadata.len, r->path, "metadata");
  size_t si = 0;
  while (pm_pb_more(&pb)) {
    uint32_t f, w;
    PM_TRY(pm_pb_key(&pb, &f, &w, err));
    if (f == 1 && w == PM_PB_LEN) {
      const uint8_t *d;
      size_t n;
      PM_TRY(pm_pb_bytes(&pb, &d, &n, err));
      if (si < r->n_stripes) {
        pm_pb sub;
        pm_pb_init(&sub, d, n, r->path, "stripe statistics");
        size_t ci = 0;
        while (pm_pb_more(&sub)) {
          uint32_t g, gw;
          PM_TRY(pm_pb_key(&sub, &g, &gw, err));
          if (g == 1 && gw == PM_PB_LEN) {
            const uint8_t *cd;
            size_t cn;
            PM_TRY(pm_pb_bytes(&sub, &cd, &cn, err));
            if (ci < r->n_types) {
              r->sstats[si * r->n_types + ci] = cd;
              r->sstats_len[si * r->n_types + ci] = cn;
            }
            ci++;
          } else {
            PM_TRY(pm_pb_skip(&sub, gw, err));
          }
        }
      }
      si++;
    } else {
      PM_TRY(pm_pb_skip(&pb, w, err));
    }
  }
  r->metadata_loaded = 1;
  return 0;
}

int pm_orc_reader_stripe_stats(pm_orc_reader *r, size_t stripe, size_t column, pm_orc_column_stats *out,
                               pm_error *err) {
  if (stripe >= r->n_stripes || column >= r->n_types)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: no stripe %zu / column %zu", r->path, stripe, column);
  PM_TRY(load_metadata(r, err));
  const uint8_t *d = r->sstats[stripe * r->n_types + column];
  if (!d) return pm_errorf(err, PAIMON_ERR_NOT_FOUND, "%s: stripe %zu has no statistics for column %zu", r->path, stripe, column);
  int64_t parent_rows = r->types[column].info.parent == 0 ? (int64_t)r->stripes[stripe].num_rows : -1;
  return decode_stats(r, &r->types[column], d, r->sstats_len[stripe * r->n_types + column], parent_rows, out, err);
}

/* ------------------------------------------------------------------ */
/* Predicate evaluation against statistics: 1 = may match, 0 = cannot. */

static int cmp_bytes(const uint8_t *a, size_t al, const uint8_t *b, size_t bl) {
  size_t n = al < bl ? al : bl;
  int c = n ? memcmp(a, b, n) : 0;
  if (c) return c < 0 ? -1 : 1;
  return al < bl ? -1 : (al > bl ? 1 : 0);
}

/* Parses a decimal string to an unscaled int128 at the given scale; 0 on success. */
static int parse_decimal(const char *s, uint32_t scale, __int128 *out) {
  int neg = 0;
  if (scale > 38) return -1;
  if (*s == '-') { neg = 1; s++; }
  else if (*s == '+') s++;
  __int128 v = 0;
  int frac = -1, digits = 0;
  for (; *s; s++) {
    if (*s == '.') {
      if (frac >= 0) return -1;
      frac = 0;
      continue;
    }
    if (*s < '0' || *s > '9') return -1;
    if (frac >= 0) {
      if ((uint32_t)frac >= scale) continue; /* truncate extra digits */
      frac++;
    }
    if (++digits > 38) return -1;
    v = v * 10 + (*s - '0');
  }
  if (frac < 0) frac = 0;
  if (digits + (int)(scale - (uint32_t)frac) > 38) return -1; /* would not fit: not comparable */
  for (uint32_t i = (uint32_t)frac; i < scale; i++) v *= 10;
  *out = neg ? -v : v;
  return 0;
}

/* Returns -1/0/1 comparing literal vs the stat value, or 2 when not comparable. */
static int cmp_lit(const orc_type *t, const pm_orc_column_stats *s, const pm_fmt_literal *l, int use_max) {
  if (s->has_int) {
    int64_t x = use_max ? s->max_int : s->min_int;
    if (l->kind == PM_FMT_LIT_INT64) return l->i64 < x ? -1 : l->i64 > x;
    if (l->kind == PM_FMT_LIT_DOUBLE) return l->f64 < (double)x ? -1 : l->f64 > (double)x;
    return 2;
  }
  if (s->has_double) {
    double x = use_max ? s->max_double : s->min_double;
    double lv = l->kind == PM_FMT_LIT_DOUBLE ? l->f64 : (l->kind == PM_FMT_LIT_INT64 ? (double)l->i64 : 0);
    if (l->kind == PM_FMT_LIT_BYTES || x != x || lv != lv) return 2;
    return lv < x ? -1 : lv > x;
  }
  if (s->has_bytes) {
    if (l->kind != PM_FMT_LIT_BYTES) return 2;
    return use_max ? cmp_bytes(l->bytes, l->len, s->max_bytes, s->max_len)
                   : cmp_bytes(l->bytes, l->len, s->min_bytes, s->min_len);
  }
  if (s->has_decimal && l->kind == PM_FMT_LIT_INT64) {
    __int128 x;
    if (parse_decimal(use_max ? s->max_decimal : s->min_decimal, t->info.scale, &x)) return 2;
    __int128 lv = l->i64;
    return lv < x ? -1 : lv > x;
  }
  if (s->has_timestamp && l->kind == PM_FMT_LIT_INT64) {
    int64_t x = use_max ? s->max_ts_millis : s->min_ts_millis;
    return l->i64 < x ? -1 : l->i64 > x;
  }
  return 2;
}

static int stats_may_match(const orc_type *t, const pm_orc_column_stats *s, uint64_t rows, const orc_pred *p) {
  int any_null = s->has_null == 1 || s->num_values < rows;
  if (p->op == PM_FMT_OP_IS_NULL) return s->has_null == -1 ? 1 : any_null;
  if (p->op == PM_FMT_OP_IS_NOT_NULL) return s->num_values > 0;
  if (s->num_values == 0 && rows > 0) return 0; /* all null: no comparison is true */
  for (size_t i = 0; i < p->n_values; i++) {
    const pm_fmt_literal *l = &p->values[i];
    int cmin = cmp_lit(t, s, l, 0), cmax = cmp_lit(t, s, l, 1);
    if (cmin == 2 || cmax == 2) return 1;
    int m;
    switch (p->op) {
      case PM_FMT_OP_EQ:
      case PM_FMT_OP_IN: m = cmin >= 0 && cmax <= 0; break;
      case PM_FMT_OP_NE: m = !(cmin == 0 && cmax == 0); break;
      case PM_FMT_OP_LT: m = cmin > 0; break;
      case PM_FMT_OP_LE: m = cmin >= 0; break;
      case PM_FMT_OP_GT: m = cmax < 0; break;
      case PM_FMT_OP_GE: m = cmax <= 0; break;
      default: m = 1;
    }
    if (m) return 1;
  }
  return 0;
}

/* ------------------------------------------------------------------ */
/* Stripe loading */

static void col_reset_builder(col_reader *c);

static void free_col(col_reader *c) {
  pm_buf_free(&c->validity);
  pm_buf_free(&c->values);
  pm_buf_free(&c->offsets);
  pm_buf_free(&c->strdata);
  free(c->notnull);
  free(c->scratch);
  free(c->scratch2);
  free(c->dict_offsets);
  free(c->children);
  memset(c, 0, sizeof *c);
}

static void free_cols(pm_orc_reader *r) {
  if (r->cols) {
    for (size_t i = 0; i < r->n_types; i++) free_col(&r->cols[i]);
    free(r->cols);
    r->cols = NULL;
  }
  if (r->streams) {
    for (size_t i = 0; i < r->n_types * SK_COUNT; i++) pm_buf_free(&r->streams[i]);
    free(r->streams);
    r->streams = NULL;
  }
  free(r->have);
  r->have = NULL;
  if (r->chunk_map) {
    for (size_t i = 0; i < r->n_types * SK_COUNT; i++) pm_buf_free(&r->chunk_map[i]);
    free(r->chunk_map);
    r->chunk_map = NULL;
  }
}

static const char *stream_kind_name(int k) {
  static const char *n[] = {"PRESENT", "DATA", "LENGTH", "DICTIONARY_DATA", "DICTIONARY_COUNT", "SECONDARY", "ROW_INDEX"};
  return k >= 0 && k < SK_COUNT ? n[k] : "?";
}

static int ensure_cols(pm_orc_reader *r, pm_error *err) {
  if (r->cols) return 0;
  r->cols = calloc(r->n_types, sizeof *r->cols);
  r->streams = calloc(r->n_types * SK_COUNT, sizeof *r->streams);
  r->have = calloc(r->n_types * SK_COUNT, 1);
  r->chunk_map = calloc(r->n_types * SK_COUNT, sizeof *r->chunk_map);
  if (!r->cols || !r->streams || !r->have || !r->chunk_map) return PM_NOMEM(err);
  for (size_t i = 0; i < r->n_types; i++) {
    orc_type *t = &r->types[i];
    col_reader *c = &r->cols[i];
    c->t = t;
    c->id = (uint32_t)i;
    for (int k = 0; k < SK_COUNT; k++)
      snprintf(c->label[k], sizeof c->label[k], "%s: column %zu (%s) %s stream", r->path, i, t->name,
               stream_kind_name(k));
    if (t->info.n_children) {
      c->children = calloc(t->info.n_children, sizeof *c->children);
      if (!c->children) return PM_NOMEM(err);
      for (uint32_t j = 0; j < t->info.n_children; j++) c->children[j] = &r->cols[t->children[j]];
      c->n_children = t->info.n_children;
    }
  }
  return 0;
}

static int parse_stripe_footer(pm_orc_reader *r, size_t si, pm_buf *sf, pm_error *err) {
  pm_orc_stripe_info *s = &r->stripes[si];
  sf->len = 0;
  return read_section(r, s->offset + s->index_length + s->data_length, s->footer_length, sf, "stripe footer", err);
}

int pm_orc_reader_stripe_encodings(pm_orc_reader *r, size_t stripe, pm_orc_encoding *out, uint32_t *dict_sizes,
                                   pm_error *err) {
  if (stripe >= r->n_stripes) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: no stripe %zu", r->path, stripe);
  pm_buf sf;
  pm_buf_init(&sf);
  int rc = parse_stripe_footer(r, stripe, &sf, err);
  for (size_t i = 0; i < r->n_types; i++) {
    out[i] = PM_ORC_ENC_DIRECT;
    if (dict_sizes) dict_sizes[i] = 0;
  }
  pm_pb pb;
  pm_pb_init(&pb, sf.data, sf.len, r->path, "stripe footer");
  size_t ci = 0;
  while (rc == 0 && pm_pb_more(&pb)) {
    uint32_t f, w;
    if ((rc = pm_pb_key(&pb, &f, &w, err))) break;
    if (f == 2 && w == PM_PB_LEN) {
      const uint8_t *d;
      size_t n;
      if ((rc = pm_pb_bytes(&pb, &d, &n, err))) break;
      pm_pb sub;
      pm_pb_init(&sub, d, n, r->path, "column encoding");
      uint64_t kind = 0, dsz = 0;
      while (rc == 0 && pm_pb_more(&sub)) {
        uint32_t g, gw;
        if ((rc = pm_pb_key(&sub, &g, &gw, err))) break;
        if (g == 1) rc = pm_pb_uint(&sub, gw, &kind, err);
        else if (g == 2) rc = pm_pb_uint(&sub, gw, &dsz, err);
        else rc = pm_pb_skip(&sub, gw, err);
      }
      if (rc == 0 && ci < r->n_types) {
        out[ci] = (pm_orc_encoding)(kind & 3);
        if (dict_sizes) dict_sizes[ci] = (uint32_t)dsz;
      }
      ci++;
    } else {
      rc = pm_pb_skip(&pb, w, err);
    }
  }
  pm_buf_free(&sf);
  return rc;
}

static int load_dictionary(pm_orc_reader *r, col_reader *c, pm_error *err) {
  pm_buf *lb = &r->streams[c->id * SK_COUNT + SK_LENGTH];
  pm_buf *db = &r->streams[c->id * SK_COUNT + SK_DICTIONARY_DATA];
  free(c->dict_offsets);
  c->dict_offsets = NULL;
  if (c->dict_size > (lb->len + 1) * 64)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: dictionary size %u exceeds what its LENGTH stream can hold",
                     c->label[SK_LENGTH], c->dict_size);
  c->dict_offsets = malloc(((size_t)c->dict_size + 1) * sizeof *c->dict_offsets);
  int64_t *lens = malloc(((size_t)c->dict_size + 1) * sizeof *lens);
  if (!c->dict_offsets || !lens) {
    free(lens);
    return PM_NOMEM(err);
  }
  pm_orc_stream s;
  pm_orc_stream_init(&s, lb->data, lb->len, c->label[SK_LENGTH]);
  pm_orc_int_rle d;
  pm_orc_int_rle_init(&d, &s, c->enc == PM_ORC_ENC_DICTIONARY_V2, 0);
  int rc = pm_orc_int_rle_next(&d, lens, c->dict_size, err);
  uint64_t off = 0;
  c->dict_offsets[0] = 0;
  for (uint32_t i = 0; rc == 0 && i < c->dict_size; i++) {
    if (lens[i] < 0 || (uint64_t)lens[i] > db->len - off) {
      rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: dictionary entry %u of length %lld runs past the %zu dictionary bytes",
                     c->label[SK_DICTIONARY_DATA], i, (long long)lens[i], db->len);
      break;
    }
    off += (uint64_t)lens[i];
    c->dict_offsets[i + 1] = off;
  }
  free(lens);
  c->dict_data = db->data;
  c->dict_data_len = db->len;
  c->dict_data_cap = db->cap;
  return rc;
}

static int init_col_stream_state(pm_orc_reader *r, col_reader *c, pm_error *err) {
  pm_buf *st = &r->streams[c->id * SK_COUNT];
  const uint8_t *have = &r->have[c->id * SK_COUNT];
  pm_orc_stream s;
  pm_orc_kind k = c->t->info.kind;
  int v2 = c->enc == PM_ORC_ENC_DIRECT_V2 || c->enc == PM_ORC_ENC_DICTIONARY_V2;
  c->has_present = have[SK_PRESENT];
  pm_orc_stream_init(&s, have[SK_PRESENT] ? st[SK_PRESENT].data : NULL, st[SK_PRESENT].len, c->label[SK_PRESENT]);
  pm_orc_bool_rle_init(&c->present, &s);
  pm_orc_stream_init(&s, have[SK_DATA] ? st[SK_DATA].data : NULL, st[SK_DATA].len, c->label[SK_DATA]);
  c->raw = s;
  pm_orc_byte_rle_init(&c->bytes, &s);
  pm_orc_bool_rle_init(&c->bools, &s);
  int dict = c->enc == PM_ORC_ENC_DICTIONARY || c->enc == PM_ORC_ENC_DICTIONARY_V2;
  int data_signed = !(dict && (k == PM_ORC_STRING || k == PM_ORC_VARCHAR || k == PM_ORC_CHAR || k == PM_ORC_BINARY));
  pm_orc_int_rle_init(&c->ints, &s, v2, data_signed);
  pm_orc_stream_init(&s, have[SK_LENGTH] ? st[SK_LENGTH].data : NULL, st[SK_LENGTH].len, c->label[SK_LENGTH]);
  pm_orc_int_rle_init(&c->lens, &s, v2, 0);
  pm_orc_stream_init(&s, have[SK_SECONDARY] ? st[SK_SECONDARY].data : NULL, st[SK_SECONDARY].len,
                     c->label[SK_SECONDARY]);
  /* Timestamp nanos are unsigned, decimal scales signed. */
  pm_orc_int_rle_init(&c->second, &s, v2, k == PM_ORC_DECIMAL);
  c->decimal64 = k == PM_ORC_DECIMAL && c->enc == PM_ORC_ENC_DIRECT_V2 && !have[SK_SECONDARY] &&
                 c->t->info.precision <= 18 && have[SK_DATA];
  if (dict && (k == PM_ORC_STRING || k == PM_ORC_VARCHAR || k == PM_ORC_CHAR || k == PM_ORC_BINARY))
    PM_TRY(load_dictionary(r, c, err));
  return 0;
}

/* Reads the stripe footer and selected streams of stripe si. */
static int load_stripe(pm_orc_reader *r, size_t si, pm_error *err) {
  PM_TRY(ensure_cols(r, err));
  for (size_t i = 0; i < r->n_types * SK_COUNT; i++) {
    r->streams[i].len = 0;
    r->have[i] = 0;
  }
  pm_orc_stripe_info *s = &r->stripes[si];
  pm_buf sf;
  pm_buf_init(&sf);
  int rc = parse_stripe_footer(r, si, &sf, err);
  pm_pb pb;
  pm_pb_init(&pb, sf.data, sf.len, r->path, "stripe footer");
  uint64_t off = s->offset;
  uint64_t end = s->offset + s->index_length + s->data_length;
  size_t ci = 0;
  free(r->tz);
  r->tz = NULL;
  int need_index = (r->n_preds > 0 || r->n_ranges > 0) && r->row_index_stride > 0;
  while (rc == 0 && pm_pb_more(&pb)) {
    uint32_t f, w;
    if ((rc = pm_pb_key(&pb, &f, &w, err))) break;
    if ((f == 1 || f == 2 || f == 3) && w == PM_PB_LEN) {
      const uint8_t *d;
      size_t n;
      if ((rc = pm_pb_bytes(&pb, &d, &n, err))) break;
      if (f == 3) {
        free(r->tz);
        if (!(r->tz = dupn(d, n))) rc = PM_NOMEM(err);
        continue;
      }
      pm_pb sub;
      pm_pb_init(&sub, d, n, r->path, f == 1 ? "stream" : "column encoding");
      uint64_t a = 0, b = 0, c = 0;
      while (rc == 0 && pm_pb_more(&sub)) {
        uint32_t g, gw;
        if ((rc = pm_pb_key(&sub, &g, &gw, err))) break;
        if (g == 1) rc = pm_pb_uint(&sub, gw, &a, err);
        else if (g == 2) rc = pm_pb_uint(&sub, gw, &b, err);
        else if (g == 3 && f == 1) rc = pm_pb_uint(&sub, gw, &c, err);
        else rc = pm_pb_skip(&sub, gw, err);
      }
      if (rc) break;
      if (f == 1) { /* stream: kind a, column b, length c */
        if (c > end - off) {
          rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: stripe %zu: stream (kind %llu, column %llu, %llu bytes) at offset %llu runs past the stripe",
                         r->path, si, (unsigned long long)a, (unsigned long long)b, (unsigned long long)c,
                         (unsigned long long)off);
          break;
        }
        if (b < r->n_types && r->types[b].selected && a < SK_COUNT && a != 4 &&
            (a != SK_ROW_INDEX || need_index)) {
          pm_buf *dst = &r->streams[b * SK_COUNT + a];
          dst->len = 0;
          r->have[b * SK_COUNT + a] = 1;
          pm_buf *map = &r->chunk_map[b * SK_COUNT + a];
          map->len = 0;
          if (pm_buf_reserve(dst, 1)) {
            rc = PM_NOMEM(err);
            break;
          }
          char what[96];
          snprintf(what, sizeof what, "stripe %zu column %llu %s stream", si, (unsigned long long)b, stream_kind_name((int)a));
          rc = read_section_map(r, off, c, dst, need_index && a != SK_ROW_INDEX ? map : NULL, what, err);
        }
        off += c;
      } else { /* encoding: kind a, dictionary size b */
        if (ci < r->n_types) {
          r->cols[ci].enc = (pm_orc_encoding)(a & 3);
          r->cols[ci].dict_size = (uint32_t)b;
        }
        ci++;
      }
    } else {
      rc = pm_pb_skip(&pb, w, err);
    }
  }
  pm_buf_free(&sf);
  if (rc) return rc;
  if (ci < r->n_types) {
    for (size_t i = 0; i < r->n_types; i++)
      if (r->types[i].selected && i >= ci)
        return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: stripe %zu footer has no encoding for column %zu", r->path, si, i);
  }
  for (size_t i = 0; i < r->n_types; i++) {
    if (!r->types[i].selected) continue;
    pm_orc_kind k = r->types[i].info.kind;
    const uint8_t *have = &r->have[i * SK_COUNT];
    int needs_data = k != PM_ORC_STRUCT && k != PM_ORC_LIST && k != PM_ORC_MAP;
    if (needs_data && s->num_rows > 0 && !have[SK_DATA]) {
      /* A column that is all null may legitimately lack a DATA stream; it then must have PRESENT. */
      if (!have[SK_PRESENT])
        return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: stripe %zu: column %zu (%s) has no DATA stream", r->path, si, i,
                         r->types[i].name);
    }
    PM_TRY(init_col_stream_state(r, &r->cols[i], err));
  }
  r->can_seek = need_index;
  for (size_t i = 0; i < r->n_types && r->can_seek; i++)
    if (r->types[i].selected && !r->have[i * SK_COUNT + SK_ROW_INDEX]) r->can_seek = 0;
  return 0;
}

/* Computes the selected row runs [start,end) within stripe si (row ranges x row groups). */
static int push_run(pm_orc_reader *r, int64_t s, int64_t e, pm_error *err) {
  if (e <= s) return 0;
  if (r->n_runs > 0 && r->runs[2 * r->n_runs - 1] == s) {
    r->runs[2 * r->n_runs - 1] = e;
    return 0;
  }
  if (r->n_runs == r->runs_cap) {
    size_t nc = r->runs_cap ? r->runs_cap * 2 : 16;
    int64_t *n = realloc(r->runs, nc * 2 * sizeof *n);
    if (!n) return PM_NOMEM(err);
    r->runs = n;
    r->runs_cap = nc;
  }
  r->runs[2 * r->n_runs] = s;
  r->runs[2 * r->n_runs + 1] = e;
  r->n_runs++;
  return 0;
}

static int row_group_may_match(pm_orc_reader *r, size_t si, uint64_t group, uint64_t rows, int *match, pm_error *err) {
  *match = 1;
  for (size_t p = 0; p < r->n_preds; p++) {
    orc_pred *q = &r->preds[p];
    pm_buf *ix = &r->streams[q->column * SK_COUNT + SK_ROW_INDEX];
    if (!r->have[q->column * SK_COUNT + SK_ROW_INDEX]) continue;
    pm_pb pb;
    pm_pb_init(&pb, ix->data, ix->len, r->path, "row index");
    uint64_t gi = 0;
    while (pm_pb_more(&pb)) {
      uint32_t f, w;
      PM_TRY(pm_pb_key(&pb, &f, &w, err));
      if (f == 1 && w == PM_PB_LEN) {
        const uint8_t *d;
        size_t n;
        PM_TRY(pm_pb_bytes(&pb, &d, &n, err));
        if (gi++ != group) continue;
        pm_pb sub;
        pm_pb_init(&sub, d, n, r->path, "row index entry");
        while (pm_pb_more(&sub)) {
          uint32_t g, gw;
          PM_TRY(pm_pb_key(&sub, &g, &gw, err));
          if (g == 2 && gw == PM_PB_LEN) {
            const uint8_t *sd;
            size_t sn;
            PM_TRY(pm_pb_bytes(&sub, &sd, &sn, err));
            pm_orc_column_stats st;
            PM_TRY(decode_stats(r, &r->types[q->column], sd, sn, -1, &st, err));
            if (!stats_may_match(&r->types[q->column], &st, rows, q)) {
              *match = 0;
              return 0;
            }
          } else {
            PM_TRY(pm_pb_skip(&sub, gw, err));
          }
        }
        break;
      } else {
        PM_TRY(pm_pb_skip(&pb, w, err));
      }
    }
  }
  (void)si;
  return 0;
}

static int compute_runs(pm_orc_reader *r, size_t si, pm_error *err) {
  pm_orc_stripe_info *s = &r->stripes[si];
  r->n_runs = 0;
  r->cur_run = 0;
  int64_t first = (int64_t)s->first_row, rows = (int64_t)s->num_rows;
  uint64_t stride = r->row_index_stride;
  int use_groups = r->n_preds > 0 && stride > 0;
  uint64_t n_groups = use_groups ? ((uint64_t)rows + stride - 1) / stride : 1;
  size_t ri = 0; /* ranges are sorted: skip those ending before the current group */
  for (uint64_t g = 0; g < n_groups; g++) {
    int64_t gs = use_groups ? (int64_t)(g * stride) : 0;
    int64_t ge = use_groups ? (int64_t)((g + 1) * stride) : rows;
    if (ge > rows) ge = rows;
    if (use_groups) {
      int m;
      PM_TRY(row_group_may_match(r, si, g, (uint64_t)(ge - gs), &m, err));
      if (!m) {
        r->skipped_groups++;
        continue;
      }
    }
    if (!r->ranges) {
      PM_TRY(push_run(r, gs, ge, err));
      continue;
    }
    while (ri < r->n_ranges && r->ranges[2 * ri + 1] - first <= gs) ri++;
    for (size_t i = ri; i < r->n_ranges && r->ranges[2 * i] - first < ge; i++) {
      int64_t a = r->ranges[2 * i] - first, b = r->ranges[2 * i + 1] - first;
      if (a < gs) a = gs;
      if (b > ge) b = ge;
      if (a < b) PM_TRY(push_run(r, a, b, err));
    }
  }
  return 0;
}

static int stripe_may_match(pm_orc_reader *r, size_t si, int *match, pm_error *err) {
  *match = 1;
  pm_orc_stripe_info *s = &r->stripes[si];
  if (r->ranges) {
    int any = 0;
    for (size_t i = 0; i < r->n_ranges && !any; i++)
      any = r->ranges[2 * i] < (int64_t)(s->first_row + s->num_rows) && r->ranges[2 * i + 1] > (int64_t)s->first_row;
    if (!any) {
      *match = 0;
      return 0;
    }
  }
  if (r->n_preds == 0 || r->metadata_length == 0) return 0;
  PM_TRY(load_metadata(r, err));
  for (size_t p = 0; p < r->n_preds; p++) {
    pm_orc_column_stats st;
    const uint8_t *d = r->sstats[si * r->n_types + r->preds[p].column];
    if (!d) continue;
    PM_TRY(decode_stats(r, &r->types[r->preds[p].column], d, r->sstats_len[si * r->n_types + r->preds[p].column], -1, &st, err));
    if (!stats_may_match(&r->types[r->preds[p].column], &st, s->num_rows, &r->preds[p])) {
      *match = 0;
      return 0;
    }
  }
  return 0;
}

/* ------------------------------------------------------------------ */
/* Seeking to a row group with the row index positions */

typedef struct posq {
  uint64_t *v;
  size_t n, i;
} posq;

static int pos_next(pm_orc_reader *r, col_reader *c, posq *q, uint64_t *v, pm_error *err) {
  if (q->i >= q->n)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: column %u: row index entry has too few positions", r->path, c->id);
  *v = q->v[q->i++];
  return 0;
}

/* Decompressed offset in stream `kind` of c for a (chunk offset[, offset in chunk]) position. */
static int pos_offset(pm_orc_reader *r, col_reader *c, int kind, posq *q, size_t *out, pm_error *err) {
  uint64_t co = 0, uo = 0;
  PM_TRY(pos_next(r, c, q, &co, err));
  pm_buf *st = &r->streams[c->id * SK_COUNT + kind];
  if (r->codec != PM_CODEC_NONE) {
    PM_TRY(pos_next(r, c, q, &uo, err));
    pm_buf *m = &r->chunk_map[c->id * SK_COUNT + kind];
    const uint64_t *pairs = (const uint64_t *)(const void *)m->data;
    size_t lo = 0, hi = m->len / 16;
    int found = 0;
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (pairs[2 * mid] == co) {
        co = pairs[2 * mid + 1];
        found = 1;
        break;
      }
      if (pairs[2 * mid] < co) lo = mid + 1;
      else hi = mid;
    }
    if (!found && !(m->len == 0 && co == 0 && uo == 0))
      return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: column %u %s stream: row index position %llu is not a chunk start",
                       r->path, c->id, stream_kind_name(kind), (unsigned long long)co);
    if (!found) co = 0;
  }
  if (co + uo > st->len)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: column %u %s stream: row index position past the stream", r->path,
                     c->id, stream_kind_name(kind));
  *out = (size_t)(co + uo);
  return 0;
}

static int seek_int(pm_orc_reader *r, col_reader *c, int kind, pm_orc_int_rle *d, posq *q, pm_error *err) {
  size_t off = 0;
  uint64_t skip = 0;
  PM_TRY(pos_offset(r, c, kind, q, &off, err));
  PM_TRY(pos_next(r, c, q, &skip, err));
  d->s.pos = off;
  d->n_lits = d->idx = 0;
  return pm_orc_int_rle_skip(d, skip, err);
}

static int seek_byte(pm_orc_reader *r, col_reader *c, int kind, pm_orc_byte_rle *d, posq *q, pm_error *err) {
  size_t off = 0;
  uint64_t skip = 0;
  PM_TRY(pos_offset(r, c, kind, q, &off, err));
  PM_TRY(pos_next(r, c, q, &skip, err));
  d->s.pos = off;
  d->remaining = 0;
  return pm_orc_byte_rle_skip(d, skip, err);
}

static int seek_bool(pm_orc_reader *r, col_reader *c, int kind, pm_orc_bool_rle *d, posq *q, pm_error *err) {
  uint64_t bits = 0;
  PM_TRY(seek_byte(r, c, kind, &d->bytes, q, err));
  PM_TRY(pos_next(r, c, q, &bits, err));
  if (bits > 7) return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: column %u: bit position %llu > 7", r->path, c->id, (unsigned long long)bits);
  d->bits_left = 0;
  return pm_orc_bool_rle_skip(d, bits, err);
}

static int seek_raw(pm_orc_reader *r, col_reader *c, int kind, pm_orc_stream *s, posq *q, pm_error *err) {
  size_t off = 0;
  PM_TRY(pos_offset(r, c, kind, q, &off, err));
  s->pos = off;
  return 0;
}

/* Positions of row group g of column c (from its ROW_INDEX stream). */
static int group_positions(pm_orc_reader *r, col_reader *c, uint64_t g, posq *q, pm_error *err) {
  pm_buf *ix = &r->streams[c->id * SK_COUNT + SK_ROW_INDEX];
  pm_pb pb;
  pm_pb_init(&pb, ix->data, ix->len, r->path, "row index");
  uint64_t gi = 0;
  while (pm_pb_more(&pb)) {
    uint32_t f, w;
    PM_TRY(pm_pb_key(&pb, &f, &w, err));
    if (f != 1 || w != PM_PB_LEN) {
      PM_TRY(pm_pb_skip(&pb, w, err));
      continue;
    }
    const uint8_t *d;
    size_t n;
    PM_TRY(pm_pb_bytes(&pb, &d, &n, err));
    if (gi++ != g) continue;
    pm_pb sub;
    pm_pb_init(&sub, d, n, r->path, "row index entry");
    size_t cap = 0;
    while (pm_pb_more(&sub)) {
      uint32_t g2, w2;
      PM_TRY(pm_pb_key(&sub, &g2, &w2, err));
      if (g2 == 1) PM_TRY(pm_pb_repeated_uint(&sub, w2, &q->v, &q->n, &cap, err));
      else PM_TRY(pm_pb_skip(&sub, w2, err));
    }
    return 0;
  }
  return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: column %u: row index has no entry for row group %llu", r->path, c->id,
                   (unsigned long long)g);
}

static int seek_col(pm_orc_reader *r, col_reader *c, uint64_t g, pm_error *err) {
  posq q = {NULL, 0, 0};
  int rc = group_positions(r, c, g, &q, err);
  pm_orc_kind k = c->t->info.kind;
  int dict = c->enc == PM_ORC_ENC_DICTIONARY || c->enc == PM_ORC_ENC_DICTIONARY_V2;
  if (!rc && c->has_present) rc = seek_bool(r, c, SK_PRESENT, &c->present, &q, err);
  if (!rc) switch (k) {
      case PM_ORC_BOOLEAN: rc = seek_bool(r, c, SK_DATA, &c->bools, &q, err); break;
      case PM_ORC_BYTE: rc = seek_byte(r, c, SK_DATA, &c->bytes, &q, err); break;
      case PM_ORC_SHORT:
      case PM_ORC_INT:
      case PM_ORC_LONG:
      case PM_ORC_DATE: rc = seek_int(r, c, SK_DATA, &c->ints, &q, err); break;
      case PM_ORC_FLOAT:
      case PM_ORC_DOUBLE: rc = seek_raw(r, c, SK_DATA, &c->raw, &q, err); break;
      case PM_ORC_STRING:
      case PM_ORC_VARCHAR:
      case PM_ORC_CHAR:
      case PM_ORC_BINARY:
        if (dict) {
          rc = seek_int(r, c, SK_DATA, &c->ints, &q, err);
        } else {
          rc = seek_raw(r, c, SK_DATA, &c->raw, &q, err);
          if (!rc) rc = seek_int(r, c, SK_LENGTH, &c->lens, &q, err);
        }
        break;
      case PM_ORC_DECIMAL:
        if (c->decimal64) {
          rc = seek_int(r, c, SK_DATA, &c->ints, &q, err);
        } else {
          rc = seek_raw(r, c, SK_DATA, &c->raw, &q, err);
          if (!rc) rc = seek_int(r, c, SK_SECONDARY, &c->second, &q, err);
        }
        break;
      case PM_ORC_TIMESTAMP:
      case PM_ORC_TIMESTAMP_INSTANT:
        rc = seek_int(r, c, SK_DATA, &c->ints, &q, err);
        if (!rc) rc = seek_int(r, c, SK_SECONDARY, &c->second, &q, err);
        break;
      case PM_ORC_LIST:
      case PM_ORC_MAP: rc = seek_int(r, c, SK_LENGTH, &c->lens, &q, err); break;
      case PM_ORC_UNION: rc = seek_byte(r, c, SK_DATA, &c->bytes, &q, err); break;
      default: break;
    }
  free(q.v);
  for (uint32_t i = 0; rc == 0 && i < c->n_children; i++) rc = seek_col(r, c->children[i], g, err);
  return rc;
}

/* ------------------------------------------------------------------ */
/* Column decoding into builders */

static int ensure_cap(void **p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return 0;
  size_t nc = *cap ? *cap : 1024;
  while (nc < need) nc *= 2;
  void *n = realloc(*p, nc * elem);
  if (!n) return PAIMON_ERR_NOMEM;
  *p = n;
  *cap = nc;
  return 0;
}

static void col_reset_builder(col_reader *c) {
  c->validity.len = c->values.len = c->offsets.len = c->strdata.len = 0;
  c->length = c->null_count = 0;
  c->has_validity = 0;
}

/* Packs 8 bytes of 0/1 into one LSB-first bitmap byte with one multiply. */
static inline uint8_t pack8_bits(const uint8_t *b) {
  uint64_t x = 0;
  for (int k = 0; k < 8; k++) x |= (uint64_t)b[k] << (8 * k); /* a plain load on little-endian targets */
  return (uint8_t)((x * 0x0102040810204080ULL) >> 56);
}

/* Appends n validity bits (from notnull bytes, or all valid when NULL). */
static int append_validity(col_reader *c, const uint8_t *notnull, size_t n, size_t nn, pm_error *err) {
  int64_t start = c->length;
  if (nn < n && !c->has_validity) {
    /* First null: materialise the bitmap with all previous rows valid. */
    size_t bytes = (size_t)((start + 7) / 8);
    c->validity.len = 0;
    if (pm_buf_reserve(&c->validity, bytes + 64)) return PM_NOMEM(err);
    memset(c->validity.data, 0xff, bytes);
    c->validity.len = bytes;
    c->has_validity = 1;
  }
  if (c->has_validity) {
    size_t need = (size_t)((start + (int64_t)n + 7) / 8);
    if (need > c->validity.len) {
      if (pm_buf_reserve(&c->validity, need - c->validity.len)) return PM_NOMEM(err);
      memset(c->validity.data + c->validity.len, 0, need - c->validity.len);
      c->validity.len = need;
    }
    uint8_t *bits = c->validity.data;
    size_t i = 0;
    if ((start & 7) == 0) /* whole bytes at a time */
      for (; i + 8 <= n; i += 8) bits[(start + (int64_t)i) >> 3] = notnull ? pack8_bits(notnull + i) : 0xff;
    for (; i < n; i++) {
      int64_t b = start + (int64_t)i;
      if (!notnull || notnull[i])
        bits[b >> 3] |= (uint8_t)(1u << (b & 7));
      else
        bits[b >> 3] &= (uint8_t)~(1u << (b & 7));
    }
  }
  c->null_count += (int64_t)(n - nn);
  return 0;
}

static int col_read(pm_orc_reader *r, col_reader *c, size_t n, const uint8_t *parent_notnull, pm_error *err);

static int grow_values(col_reader *c, size_t bytes, pm_error *err) {
  if (pm_buf_reserve(&c->values, bytes ? bytes : 1)) return PM_NOMEM(err);
  return 0;
}

static int scratch_i64(col_reader *c, size_t n, pm_error *err) {
  if (ensure_cap((void **)&c->scratch, &c->scratch_cap, n ? n : 1, sizeof(int64_t))) return PM_NOMEM(err);
  return 0;
}

static int scratch_u8(col_reader *c, size_t n, pm_error *err) {
  if (ensure_cap((void **)&c->scratch2, &c->scratch2_cap, n ? n : 1, 1)) return PM_NOMEM(err);
  return 0;
}

static const int64_t POW10[19] = {1LL,
                                  10LL,
                                  100LL,
                                  1000LL,
                                  10000LL,
                                  100000LL,
                                  1000000LL,
                                  10000000LL,
                                  100000000LL,
                                  1000000000LL,
                                  10000000000LL,
                                  100000000000LL,
                                  1000000000000LL,
                                  10000000000000LL,
                                  100000000000000LL,
                                  1000000000000000LL,
                                  10000000000000000LL,
                                  100000000000000000LL,
                                  1000000000000000000LL};

static inline int64_t pow10_i64(int e) { return POW10[e < 0 ? 0 : (e > 18 ? 18 : e)]; }

/* Reads a signed unbounded base-128 varint (zigzag, up to 128 bits). */
static inline uint64_t load_le64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}

/* Packs the low 7 bits of each of 8 little-endian bytes (high bits clear)
 * into 56 contiguous bits: pairs, quads, then halves. */
static inline uint64_t squeeze_varint7(uint64_t x) {
  x = (x & 0x007f007f007f007fULL) | ((x & 0x7f007f007f007f00ULL) >> 1);
  x = (x & 0x00003fff00003fffULL) | ((x & 0x3fff00003fff0000ULL) >> 2);
  return (x & 0x000000000fffffffULL) | ((x & 0x0fffffff00000000ULL) >> 4);
}

static int read_varint128(pm_orc_stream *s, __int128 *out, pm_error *err) {
  /* Fast path: up to 9 bytes fit 63 bits. */
  if (s->len - s->pos >= 9) {
    const uint8_t *p = s->data + s->pos;
    uint64_t v = 0;
    for (int i = 0; i < 9; i++) {
      v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
      if (!(p[i] & 0x80)) {
        s->pos += (size_t)i + 1;
        *out = (__int128)((int64_t)(v >> 1) ^ -(int64_t)(v & 1));
        return 0;
      }
    }
  }
  unsigned __int128 r = 0;
  for (int shift = 0; shift < 133; shift += 7) {
    if (s->pos >= s->len) return pm_orc_stream_error(s, err, "decimal varint runs past the end");
    uint8_t b = s->data[s->pos++];
    if (shift < 128) r |= (unsigned __int128)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *out = (__int128)(r >> 1) ^ -(__int128)(r & 1);
      return 0;
    }
  }
  return pm_orc_stream_error(s, err, "decimal varint longer than 19 bytes");
}

static int64_t ts_convert(int64_t secs, int64_t nanos, char unit) {
  switch (unit) {
    case 's': return secs;
    case 'm': return (int64_t)((uint64_t)secs * 1000u + (uint64_t)(nanos / 1000000));
    case 'u': return (int64_t)((uint64_t)secs * 1000000u + (uint64_t)(nanos / 1000));
    default: return (int64_t)((uint64_t)secs * 1000000000u + (uint64_t)nanos);
  }
}

/* Decodes nn values of a leaf column into dense form and scatters into n slots. */
/* Loads the writer zone `name` (unknown or unreadable zones read as UTC, as
 * the ORC Java reader's TimeZone.getTimeZone does). */
static int load_zone(pm_orc_reader *r, const char *name, pm_error *err) {
  pm_tz_free(r->zone);
  r->zone = NULL;
  free(r->zone_name);
  r->zone_name = pm_strdup(name);
  if (!r->zone_name) return PM_NOMEM(err);
  pm_error ignored;
  pm_error_clear(&ignored);
  int rc = pm_tz_load(name, &r->zone, &ignored);
  if (rc == PAIMON_ERR_NOMEM) return PM_NOMEM(err);
  if (rc) PM_TRY(pm_tz_load(NULL, &r->zone, err));
  r->zone_base = pm_tz_local_to_utc(r->zone, ORC_BASE_SECONDS);
  return 0;
}

static int read_leaf(pm_orc_reader *r, col_reader *c, size_t n, size_t nn, const uint8_t *notnull, pm_error *err) {
  pm_orc_kind k = c->t->info.kind;
  int64_t start = c->length;
  switch (k) {
    case PM_ORC_BOOLEAN: {
      PM_TRY(scratch_u8(c, nn, err));
      PM_TRY(pm_orc_bool_rle_next(&c->bools, c->scratch2, nn, err));
      size_t need = (size_t)((start + (int64_t)n + 7) / 8);
      if (need > c->values.len) {
        PM_TRY(grow_values(c, need - c->values.len, err));
        memset(c->values.data + c->values.len, 0, need - c->values.len);
        c->values.len = need;
      }
      uint8_t *bits = c->values.data;
      size_t j = 0, i = 0;
      if (!notnull && (start & 7) == 0) { /* whole bytes at a time */
        for (; i + 8 <= n; i += 8) bits[(start + (int64_t)i) >> 3] = pack8_bits(c->scratch2 + i);
        j = i;
      }
      for (; i < n; i++) {
        int64_t b = start + (int64_t)i;
        uint8_t v = (!notnull || notnull[i]) ? c->scratch2[j++] : 0;
        if (v) bits[b >> 3] |= (uint8_t)(1u << (b & 7));
        else bits[b >> 3] &= (uint8_t)~(1u << (b & 7));
      }
      return 0;
    }
    case PM_ORC_BYTE: {
      PM_TRY(grow_values(c, n, err));
      uint8_t *dst = c->values.data + c->values.len;
      if (!notnull) {
        PM_TRY(pm_orc_byte_rle_next(&c->bytes, dst, n, err));
      } else {
        PM_TRY(scratch_u8(c, nn, err));
        PM_TRY(pm_orc_byte_rle_next(&c->bytes, c->scratch2, nn, err));
        for (size_t i = 0, j = 0; i < n; i++) dst[i] = notnull[i] ? c->scratch2[j++] : 0;
      }
      c->values.len += n;
      return 0;
    }
    case PM_ORC_SHORT:
    case PM_ORC_INT:
    case PM_ORC_DATE:
    case PM_ORC_LONG: {
      size_t w = k == PM_ORC_SHORT ? 2 : (k == PM_ORC_LONG ? 8 : 4);
      PM_TRY(grow_values(c, n * w, err));
      uint8_t *dst = c->values.data + c->values.len;
      if (w == 8 && !notnull) {
        PM_TRY(pm_orc_int_rle_next(&c->ints, (int64_t *)(void *)dst, n, err));
      } else {
        PM_TRY(scratch_i64(c, nn, err));
        PM_TRY(pm_orc_int_rle_next(&c->ints, c->scratch, nn, err));
        const int64_t *v = c->scratch;
        if (w == 8) {
          int64_t *o = (int64_t *)(void *)dst;
          for (size_t i = 0, j = 0; i < n; i++) o[i] = notnull[i] ? v[j++] : 0;
        } else if (w == 4) {
          int32_t *o = (int32_t *)(void *)dst;
          if (!notnull)
            for (size_t i = 0; i < n; i++) o[i] = (int32_t)v[i];
          else
            for (size_t i = 0, j = 0; i < n; i++) o[i] = notnull[i] ? (int32_t)v[j++] : 0;
        } else {
          int16_t *o = (int16_t *)(void *)dst;
          if (!notnull)
            for (size_t i = 0; i < n; i++) o[i] = (int16_t)v[i];
          else
            for (size_t i = 0, j = 0; i < n; i++) o[i] = notnull[i] ? (int16_t)v[j++] : 0;
        }
      }
      c->values.len += n * w;
      return 0;
    }
    case PM_ORC_FLOAT:
    case PM_ORC_DOUBLE: {
      size_t w = k == PM_ORC_FLOAT ? 4 : 8;
      if (nn * w > c->raw.len - c->raw.pos)
        return pm_orc_stream_error(&c->raw, err, "floating point values run past the end");
      PM_TRY(grow_values(c, n * w, err));
      uint8_t *dst = c->values.data + c->values.len;
      const uint8_t *src = c->raw.data + c->raw.pos;
      if (!notnull) {
        memcpy(dst, src, n * w);
      } else if (w == 8) { /* constant width: each copy is one 8-byte move */
        for (size_t i = 0, j = 0; i < n; i++) {
          uint64_t v = 0;
          if (notnull[i]) memcpy(&v, src + (j++) * 8, 8);
          memcpy(dst + i * 8, &v, 8);
        }
      } else {
        for (size_t i = 0, j = 0; i < n; i++) {
          uint32_t v = 0;
          if (notnull[i]) memcpy(&v, src + (j++) * 4, 4);
          memcpy(dst + i * 4, &v, 4);
        }
      }
      c->raw.pos += nn * w;
      c->values.len += n * w;
      return 0;
    }
    case PM_ORC_STRING:
    case PM_ORC_VARCHAR:
    case PM_ORC_CHAR:
    case PM_ORC_BINARY: {
      if (c->offsets.len == 0) {
        int32_t z = 0;
        if (pm_buf_append(&c->offsets, &z, 4)) return PM_NOMEM(err);
      }
      if (pm_buf_reserve(&c->offsets, n * 4)) return PM_NOMEM(err);
      int32_t *off = (int32_t *)(void *)(c->offsets.data + c->offsets.len);
      int64_t cur = off[-1];
      PM_TRY(scratch_i64(c, nn, err));
      int dict = c->enc == PM_ORC_ENC_DICTIONARY || c->enc == PM_ORC_ENC_DICTIONARY_V2;
      if (dict) {
        PM_TRY(pm_orc_int_rle_next(&c->ints, c->scratch, nn, err));
        uint64_t total = 0;
        for (size_t j = 0; j < nn; j++) {
          uint64_t ix = (uint64_t)c->scratch[j];
          if (ix >= c->dict_size)
            return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: dictionary index %llu out of range (%u entries)",
                             c->label[SK_DATA], (unsigned long long)ix, c->dict_size);
          total += c->dict_offsets[ix + 1] - c->dict_offsets[ix];
        }
        if (total + (uint64_t)cur > INT32_MAX)
          return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: batch holds more than 2 GiB of string data", c->label[SK_DATA]);
        /* 16 spare bytes: a short value is copied as one fixed 16-byte block
         * (one vector move instead of a variable-length memcpy call). */
        if (pm_buf_reserve(&c->strdata, (size_t)total + 17)) return PM_NOMEM(err);
        uint8_t *sd = c->strdata.data;
        const uint8_t *dd = c->dict_data;
        const uint64_t *doff = c->dict_offsets;
        size_t dcap = c->dict_data_cap;
        const int64_t *ixs = c->scratch;
        if (!notnull) {
          for (size_t i = 0; i < n; i++) {
            uint64_t ix = (uint64_t)ixs[i], s = doff[ix];
            size_t l = (size_t)(doff[ix + 1] - s);
            if (l <= 16 && s + 16 <= dcap) memcpy(sd + cur, dd + s, 16);
            else memcpy(sd + cur, dd + s, l);
            cur += (int64_t)l;
            off[i] = (int32_t)cur;
          }
        } else {
          for (size_t i = 0, j = 0; i < n; i++) {
            if (notnull[i]) {
              uint64_t ix = (uint64_t)ixs[j++], s = doff[ix];
              size_t l = (size_t)(doff[ix + 1] - s);
              if (l <= 16 && s + 16 <= dcap) memcpy(sd + cur, dd + s, 16);
              else memcpy(sd + cur, dd + s, l);
              cur += (int64_t)l;
            }
            off[i] = (int32_t)cur;
          }
        }
      } else {
        PM_TRY(pm_orc_int_rle_next(&c->lens, c->scratch, nn, err));
        uint64_t total = 0;
        for (size_t j = 0; j < nn; j++) {
          if (c->scratch[j] < 0) return pm_orc_stream_error(&c->lens.s, err, "negative string length");
          total += (uint64_t)c->scratch[j];
        }
        if (total > c->raw.len - c->raw.pos)
          return pm_orc_stream_error(&c->raw, err, "string bytes run past the end");
        if (total + (uint64_t)cur > INT32_MAX)
          return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: batch holds more than 2 GiB of string data", c->label[SK_DATA]);
        if (total && pm_buf_append(&c->strdata, c->raw.data + c->raw.pos, (size_t)total)) return PM_NOMEM(err);
        c->raw.pos += (size_t)total;
        for (size_t i = 0, j = 0; i < n; i++) {
          if (!notnull || notnull[i]) cur += c->scratch[j++];
          off[i] = (int32_t)cur;
        }
      }
      if (k == PM_ORC_CHAR) {
        /* CHAR(n) values are stored space-padded; readers return them right-trimmed (as ORC Java). */
        uint8_t *sd = c->strdata.data;
        int64_t w = off[-1], prev = off[-1];
        for (size_t i = 0; i < n; i++) {
          int64_t e = off[i], l = e - prev;
          while (l > 0 && sd[prev + l - 1] == ' ') l--;
          if (w != prev && l > 0) memmove(sd + w, sd + prev, (size_t)l);
          w += l;
          prev = e;
          off[i] = (int32_t)w;
        }
        cur = w;
      }
      c->strdata.len = (size_t)cur;
      c->offsets.len += n * 4;
      return 0;
    }
    case PM_ORC_DECIMAL: {
      PM_TRY(grow_values(c, n * 16, err));
      uint8_t *dst = c->values.data + c->values.len;
      int32_t tscale = (int32_t)c->t->info.scale;
      PM_TRY(scratch_i64(c, nn, err));
      if (c->decimal64) {
        PM_TRY(pm_orc_int_rle_next(&c->ints, c->scratch, nn, err));
      } else {
        PM_TRY(pm_orc_int_rle_next(&c->second, c->scratch, nn, err));
      }
      /* Locals, not the stream's fields: stores through dst (bytes) could
       * alias them, which kept the position going through memory. */
      const int64_t *scr = c->scratch;
      const uint8_t *rdata = c->raw.data;
      size_t rpos = c->raw.pos, rlen = c->raw.len;
      for (size_t i = 0, j = 0; i < n; i++) {
        __int128 v = 0;
        if (!notnull || notnull[i]) {
          if (c->decimal64) {
            v = scr[j++];
          } else {
            /* Inline fast paths: up to 8 varint bytes (56 bits) decoded
             * without a branch per byte, then up to 9 bytes (63 bits). */
            const uint8_t *vp = rdata + rpos;
            int done = 0;
            if (rlen - rpos >= 8) {
              uint64_t w = load_le64(vp);
              uint64_t stops = ~w & 0x8080808080808080ULL; /* bytes without a continuation bit */
              uint64_t x = w & 0x7f7f7f7f7f7f7f7fULL;
              if (stops) {
                int nbytes = __builtin_ctzll(stops) / 8 + 1;
                if (nbytes < 8) x &= ((uint64_t)1 << (8 * nbytes)) - 1;
                x = squeeze_varint7(x);
                /* A predicted branch per length: the next value's load does
                 * not wait for this one's length to be computed. */
                switch (nbytes) {
                  case 1: rpos += 1; break;
                  case 2: rpos += 2; break;
                  case 3: rpos += 3; break;
                  case 4: rpos += 4; break;
                  case 5: rpos += 5; break;
                  case 6: rpos += 6; break;
                  case 7: rpos += 7; break;
                  default: rpos += 8; break;
                }
                v = (__int128)((int64_t)(x >> 1) ^ -(int64_t)(x & 1));
                done = 1;
              } else if (rlen - rpos >= 10) {
                /* 9 or 10 bytes (wide decimals): eight 7-bit groups, then one or two more */
                x = squeeze_varint7(x);
                uint8_t b8 = vp[8], b9 = vp[9];
                if (!(b8 & 0x80)) {
                  uint64_t u = x | ((uint64_t)b8 << 56);
                  rpos += 9;
                  v = (__int128)((int64_t)(u >> 1) ^ -(int64_t)(u & 1));
                  done = 1;
                } else if (!(b9 & 0x80)) {
                  unsigned __int128 u = (unsigned __int128)x | ((unsigned __int128)(b8 & 0x7f) << 56) |
                                        ((unsigned __int128)b9 << 63);
                  rpos += 10;
                  v = (__int128)(u >> 1) ^ -(__int128)(u & 1);
                  done = 1;
                }
              }
            }
            if (!done && rlen - rpos >= 9) {
              uint64_t u = 0;
              for (int b = 0; b < 9; b++) {
                u |= (uint64_t)(vp[b] & 0x7f) << (7 * b);
                if (!(vp[b] & 0x80)) {
                  rpos += (size_t)b + 1;
                  v = (__int128)((int64_t)(u >> 1) ^ -(int64_t)(u & 1));
                  done = 1;
                  break;
                }
              }
            }
            if (!done) {
              __int128 big; /* v's address is never taken: it stays in registers */
              c->raw.pos = rpos;
              PM_TRY(read_varint128(&c->raw, &big, err));
              rpos = c->raw.pos;
              v = big;
            }
            int64_t sc = scr[j++];
            if (sc < -64 || sc > 64) return pm_orc_stream_error(&c->second.s, err, "decimal scale out of range");
            int32_t diff = tscale - (int32_t)sc;
            while (diff > 0) { /* wrapping multiply: garbage scales must not be undefined behaviour */
              int step = diff > 18 ? 18 : diff;
              v = (__int128)((unsigned __int128)v * (unsigned __int128)pow10_i64(step));
              diff -= step;
            }
            while (diff < 0) {
              int step = -diff > 18 ? 18 : -diff;
              v /= pow10_i64(step);
              diff += step;
            }
          }
        }
        /* Two 8-byte stores from registers (a spilled 16-byte local
         * reloaded as one vector stalled store forwarding per value). */
        uint64_t lo = (uint64_t)(unsigned __int128)v, hi = (uint64_t)((unsigned __int128)v >> 64);
        memcpy(dst + i * 16, &lo, 8);
        memcpy(dst + i * 16 + 8, &hi, 8);
      }
      c->raw.pos = rpos;
      c->values.len += n * 16;
      return 0;
    }
    case PM_ORC_TIMESTAMP:
    case PM_ORC_TIMESTAMP_INSTANT: {
      PM_TRY(grow_values(c, n * 8, err));
      int64_t *dst = (int64_t *)(void *)(c->values.data + c->values.len);
      PM_TRY(scratch_i64(c, 2 * nn, err));
      int64_t *secs = c->scratch, *nanos = c->scratch + nn;
      PM_TRY(pm_orc_int_rle_next(&c->ints, secs, nn, err));
      PM_TRY(pm_orc_int_rle_next(&c->second, nanos, nn, err));
      char unit = c->t->ts_unit;
      int local = k == PM_ORC_TIMESTAMP;
      int64_t base = ORC_BASE_SECONDS;
      if (local) {
        const char *zn = r->tz ? r->tz : "UTC";
        if (!r->zone_name || strcmp(r->zone_name, zn) != 0) PM_TRY(load_zone(r, zn, err));
        base = r->zone_base;
        if (pm_tz_is_utc(r->zone)) local = 0;
      }
      for (size_t i = 0, j = 0; i < n; i++) {
        if (notnull && !notnull[i]) {
          dst[i] = 0;
          continue;
        }
        uint64_t nv = (uint64_t)nanos[j];
        /* low 3 bits: count of stripped trailing zeros (0, or 2..8); a table
         * multiply instead of a branch that mispredicts on mixed values */
        static const int64_t NANO_SCALE[8] = {1, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
        int64_t ns = (int64_t)((nv >> 3) * (uint64_t)NANO_SCALE[nv & 7]); /* wraps, no UB, on garbage */
        if (ns < 0 || ns > 999999999) return pm_orc_stream_error(&c->second.s, err, "timestamp nanoseconds out of range");
        /* Seconds in the writer's zone; writers truncate toward zero, so
         * instants before 1970 with a millisecond part are one second high. */
        int64_t s = (int64_t)((uint64_t)secs[j] + (uint64_t)base);
        if (s < 0 && ns > 999999) s = (int64_t)((uint64_t)s - 1u);
        if (local) s = (int64_t)((uint64_t)s + (uint64_t)(int64_t)pm_tz_offset_at_utc(r->zone, s)); /* wall clock */
        dst[i] = ts_convert(s, ns, unit);
        j++;
      }
      c->values.len += n * 8;
      return 0;
    }
    default:
      return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: column %u: unsupported ORC type %s", r->path, c->id,
                       pm_orc_kind_name(k));
  }
}

static int read_lengths(col_reader *c, size_t n, size_t nn, const uint8_t *notnull, uint64_t *total, pm_error *err) {
  if (c->offsets.len == 0) {
    int32_t z = 0;
    if (pm_buf_append(&c->offsets, &z, 4)) return PM_NOMEM(err);
  }
  if (pm_buf_reserve(&c->offsets, n * 4)) return PM_NOMEM(err);
  PM_TRY(scratch_i64(c, nn, err));
  PM_TRY(pm_orc_int_rle_next(&c->lens, c->scratch, nn, err));
  int32_t *off = (int32_t *)(void *)(c->offsets.data + c->offsets.len);
  int64_t cur = off[-1], start = cur;
  for (size_t i = 0, j = 0; i < n; i++) {
    if (!notnull || notnull[i]) {
      int64_t l = c->scratch[j++];
      if (l < 0 || l > INT32_MAX - cur) return pm_orc_stream_error(&c->lens.s, err, "bad list/map length");
      cur += l;
    }
    off[i] = (int32_t)cur;
  }
  c->offsets.len += n * 4;
  *total = (uint64_t)(cur - start);
  return 0;
}

/* Dense union: type ids and offsets; a null row becomes a null slot of
 * child 0 (Arrow unions have no validity of their own). */
static int read_union(pm_orc_reader *r, col_reader *c, size_t n, size_t nn, const uint8_t *notnull, pm_error *err) {
  PM_TRY(scratch_u8(c, nn + n, err));
  uint8_t *tags = c->scratch2, *mask = c->scratch2 + nn;
  PM_TRY(pm_orc_byte_rle_next(&c->bytes, tags, nn, err));
  for (size_t j = 0; j < nn; j++)
    if (tags[j] >= c->n_children)
      return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: union tag %u out of range (%u variants)", c->label[SK_DATA],
                       tags[j], c->n_children);
  PM_TRY(grow_values(c, n, err));
  if (pm_buf_reserve(&c->offsets, n * 4)) return PM_NOMEM(err);
  int8_t *ids = (int8_t *)(c->values.data + c->values.len);
  int32_t *off = (int32_t *)(void *)(c->offsets.data + c->offsets.len);
  for (uint32_t t = 0; t < c->n_children; t++) {
    col_reader *ch = c->children[t];
    size_t m = 0, real = 0;
    int64_t base = ch->length;
    for (size_t i = 0, j = 0; i < n; i++) {
      int valid = !notnull || notnull[i];
      uint8_t tag = valid ? tags[j++] : 0;
      if (tag != t) continue;
      ids[i] = (int8_t)tag;
      if (base + (int64_t)m > INT32_MAX) return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: union too long", r->path);
      off[i] = (int32_t)(base + (int64_t)m);
      mask[m++] = (uint8_t)valid;
      real += (size_t)valid;
    }
    PM_TRY(col_read(r, ch, m, real < m ? mask : NULL, err));
  }
  c->values.len += n;
  c->offsets.len += n * 4;
  return 0;
}

static int col_read(pm_orc_reader *r, col_reader *c, size_t n, const uint8_t *parent_notnull, pm_error *err) {
  if (n == 0) return 0;
  const uint8_t *notnull = NULL;
  size_t nn = n;
  if (parent_notnull || c->has_present) {
    if (ensure_cap((void **)&c->notnull, &c->notnull_cap, n ? n : 1, 1)) return PM_NOMEM(err);
    uint8_t *nb = c->notnull;
    if (parent_notnull) {
      size_t pc = 0;
      for (size_t i = 0; i < n; i++) pc += parent_notnull[i];
      if (c->has_present) {
        PM_TRY(scratch_u8(c, pc, err));
        PM_TRY(pm_orc_bool_rle_next(&c->present, c->scratch2, pc, err));
        for (size_t i = 0, j = 0; i < n; i++) nb[i] = parent_notnull[i] ? c->scratch2[j++] : 0;
      } else {
        memcpy(nb, parent_notnull, n);
      }
    } else {
      PM_TRY(pm_orc_bool_rle_next(&c->present, nb, n, err));
    }
    nn = 0;
    for (size_t i = 0; i < n; i++) nn += nb[i];
    notnull = nn < n ? nb : NULL;
  }
  pm_orc_kind k = c->t->info.kind;
  if (k == PM_ORC_UNION) {
    PM_TRY(read_union(r, c, n, nn, notnull, err));
    c->length += (int64_t)n;
    return 0;
  }
  PM_TRY(append_validity(c, notnull, n, nn, err));
  if (k == PM_ORC_STRUCT) {
    for (uint32_t i = 0; i < c->n_children; i++) PM_TRY(col_read(r, c->children[i], n, notnull, err));
  } else if (k == PM_ORC_LIST || k == PM_ORC_MAP) {
    uint64_t total = 0;
    PM_TRY(read_lengths(c, n, nn, notnull, &total, err));
    for (uint32_t i = 0; i < c->n_children; i++) PM_TRY(col_read(r, c->children[i], (size_t)total, NULL, err));
  } else {
    PM_TRY(read_leaf(r, c, n, nn, notnull, err));
  }
  c->length += (int64_t)n;
  return 0;
}

static int col_skip(pm_orc_reader *r, col_reader *c, uint64_t n, pm_error *err) {
  uint64_t nn = n;
  if (c->has_present) {
    nn = 0;
    uint8_t tmp[1024];
    uint64_t left = n;
    while (left) {
      size_t k = left > sizeof tmp ? sizeof tmp : (size_t)left;
      PM_TRY(pm_orc_bool_rle_next(&c->present, tmp, k, err));
      for (size_t i = 0; i < k; i++) nn += tmp[i];
      left -= k;
    }
  }
  if (nn == 0) return 0;
  pm_orc_kind k = c->t->info.kind;
  int64_t tmp[512];
  switch (k) {
    case PM_ORC_STRUCT:
      for (uint32_t i = 0; i < c->n_children; i++) PM_TRY(col_skip(r, c->children[i], nn, err));
      return 0;
    case PM_ORC_UNION: {
      uint64_t counts[128] = {0}, left = nn;
      uint8_t tags[512];
      while (left) {
        size_t m = left > sizeof tags ? sizeof tags : (size_t)left;
        PM_TRY(pm_orc_byte_rle_next(&c->bytes, tags, m, err));
        for (size_t i = 0; i < m; i++) {
          if (tags[i] >= c->n_children) return pm_orc_stream_error(&c->bytes.s, err, "union tag out of range");
          counts[tags[i]]++;
        }
        left -= m;
      }
      for (uint32_t i = 0; i < c->n_children; i++) PM_TRY(col_skip(r, c->children[i], counts[i], err));
      return 0;
    }
    case PM_ORC_LIST:
    case PM_ORC_MAP: {
      uint64_t total = 0, left = nn;
      while (left) {
        size_t m = left > 512 ? 512 : (size_t)left;
        PM_TRY(pm_orc_int_rle_next(&c->lens, tmp, m, err));
        for (size_t i = 0; i < m; i++) {
          if (tmp[i] < 0) return pm_orc_stream_error(&c->lens.s, err, "negative list/map length");
          total += (uint64_t)tmp[i];
        }
        left -= m;
      }
      for (uint32_t i = 0; i < c->n_children; i++) PM_TRY(col_skip(r, c->children[i], total, err));
      return 0;
    }
    case PM_ORC_BOOLEAN: return pm_orc_bool_rle_skip(&c->bools, nn, err);
    case PM_ORC_BYTE: return pm_orc_byte_rle_skip(&c->bytes, nn, err);
    case PM_ORC_SHORT:
    case PM_ORC_INT:
    case PM_ORC_LONG:
    case PM_ORC_DATE: return pm_orc_int_rle_skip(&c->ints, nn, err);
    case PM_ORC_FLOAT:
    case PM_ORC_DOUBLE: {
      uint64_t w = k == PM_ORC_FLOAT ? 4 : 8;
      if (nn > (c->raw.len - c->raw.pos) / w) return pm_orc_stream_error(&c->raw, err, "skip past the end of floating point data");
      c->raw.pos += (size_t)(nn * w);
      return 0;
    }
    case PM_ORC_STRING:
    case PM_ORC_VARCHAR:
    case PM_ORC_CHAR:
    case PM_ORC_BINARY: {
      if (c->enc == PM_ORC_ENC_DICTIONARY || c->enc == PM_ORC_ENC_DICTIONARY_V2) return pm_orc_int_rle_skip(&c->ints, nn, err);
      uint64_t total = 0, left = nn;
      while (left) {
        size_t m = left > 512 ? 512 : (size_t)left;
        PM_TRY(pm_orc_int_rle_next(&c->lens, tmp, m, err));
        for (size_t i = 0; i < m; i++) {
          if (tmp[i] < 0) return pm_orc_stream_error(&c->lens.s, err, "negative string length");
          total += (uint64_t)tmp[i];
        }
        left -= m;
      }
      if (total > c->raw.len - c->raw.pos) return pm_orc_stream_error(&c->raw, err, "skip past the end of string data");
      c->raw.pos += (size_t)total;
      return 0;
    }
    case PM_ORC_DECIMAL: {
      if (c->decimal64) return pm_orc_int_rle_skip(&c->ints, nn, err);
      for (uint64_t i = 0; i < nn; i++) {
        __int128 v;
        PM_TRY(read_varint128(&c->raw, &v, err));
      }
      return pm_orc_int_rle_skip(&c->second, nn, err);
    }
    case PM_ORC_TIMESTAMP:
    case PM_ORC_TIMESTAMP_INSTANT:
      PM_TRY(pm_orc_int_rle_skip(&c->ints, nn, err));
      return pm_orc_int_rle_skip(&c->second, nn, err);
    default:
      return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: column %u: unsupported ORC type %s", r->path, c->id,
                       pm_orc_kind_name(k));
  }
}

/* ------------------------------------------------------------------ */
/* Arrow output */

static int type_format(const orc_type *t, char *buf, size_t cap) {
  switch (t->info.kind) {
    case PM_ORC_BOOLEAN: snprintf(buf, cap, "b"); break;
    case PM_ORC_BYTE: snprintf(buf, cap, "c"); break;
    case PM_ORC_SHORT: snprintf(buf, cap, "s"); break;
    case PM_ORC_INT: snprintf(buf, cap, "i"); break;
    case PM_ORC_LONG: snprintf(buf, cap, "l"); break;
    case PM_ORC_FLOAT: snprintf(buf, cap, "f"); break;
    case PM_ORC_DOUBLE: snprintf(buf, cap, "g"); break;
    case PM_ORC_STRING:
    case PM_ORC_VARCHAR:
    case PM_ORC_CHAR: snprintf(buf, cap, "u"); break;
    case PM_ORC_BINARY: snprintf(buf, cap, "z"); break;
    case PM_ORC_DATE: snprintf(buf, cap, "tdD"); break;
    case PM_ORC_DECIMAL: snprintf(buf, cap, "d:%u,%u", t->info.precision ? t->info.precision : 38, t->info.scale); break;
    case PM_ORC_TIMESTAMP: snprintf(buf, cap, "ts%c:", t->ts_unit); break;
    case PM_ORC_TIMESTAMP_INSTANT: snprintf(buf, cap, "ts%c:UTC", t->ts_unit); break;
    case PM_ORC_LIST: snprintf(buf, cap, "+l"); break;
    case PM_ORC_MAP: snprintf(buf, cap, "+m"); break;
    case PM_ORC_STRUCT: snprintf(buf, cap, "+s"); break;
    case PM_ORC_UNION: {
      size_t o = (size_t)snprintf(buf, cap, "+ud:");
      for (uint32_t i = 0; i < t->info.n_children && o + 5 < cap; i++)
        o += (size_t)snprintf(buf + o, cap - o, i ? ",%u" : "%u", i);
      if (o + 5 >= cap) return -1;
      break;
    }
    default: return -1;
  }
  return 0;
}

static int build_schema(const pm_orc_reader *r, uint32_t id, const char *name, int nullable, struct ArrowSchema *s,
                        pm_error *err) {
  const orc_type *t = &r->types[id];
  char fmt[512];
  if (type_format(t, fmt, sizeof fmt))
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: column %u: unsupported ORC type %s", r->path, id,
                     pm_orc_kind_name(t->info.kind));
  int64_t nch = t->info.kind == PM_ORC_MAP ? 1 : (int64_t)t->info.n_children;
  PM_TRY(pm_schema_init(s, fmt, name, nullable ? ARROW_FLAG_NULLABLE : 0, nch, err));
  const char *keys[2], *vals[2];
  int nmeta = 0;
  char idbuf[16], typebuf[32];
  if (t->info.field_id >= 0) {
    snprintf(idbuf, sizeof idbuf, "%d", (int)t->info.field_id);
    keys[nmeta] = "PARQUET:field_id";
    vals[nmeta++] = idbuf;
  }
  if (t->info.kind == PM_ORC_CHAR || t->info.kind == PM_ORC_VARCHAR) {
    snprintf(typebuf, sizeof typebuf, "%s(%u)", t->info.kind == PM_ORC_CHAR ? "char" : "varchar", t->info.max_length);
    keys[nmeta] = "ORC:type";
    vals[nmeta++] = typebuf;
  }
  if (nmeta) PM_TRY(pm_schema_set_metadata(s, nmeta, keys, vals, err));
  if (t->info.kind == PM_ORC_STRUCT) {
    for (uint32_t i = 0; i < t->info.n_children; i++)
      PM_TRY(build_schema(r, t->children[i], r->types[t->children[i]].name, 1, s->children[i], err));
  } else if (t->info.kind == PM_ORC_UNION) {
    for (uint32_t i = 0; i < t->info.n_children; i++) {
      char nm[16];
      snprintf(nm, sizeof nm, "tag%u", i);
      PM_TRY(build_schema(r, t->children[i], nm, 1, s->children[i], err));
    }
  } else if (t->info.kind == PM_ORC_LIST) {
    PM_TRY(build_schema(r, t->children[0], "element", 1, s->children[0], err));
  } else if (t->info.kind == PM_ORC_MAP) {
    struct ArrowSchema *e = s->children[0];
    PM_TRY(pm_schema_init(e, "+s", "entries", 0, 2, err));
    PM_TRY(build_schema(r, t->children[0], "key", 0, e->children[0], err));
    PM_TRY(build_schema(r, t->children[1], "value", 1, e->children[1], err));
  }
  return 0;
}

int pm_orc_reader_schema(pm_orc_reader *r, struct ArrowSchema *out, pm_error *err) {
  memset(out, 0, sizeof *out);
  int rc = pm_schema_init(out, "+s", "", 0, (int64_t)r->n_top, err);
  for (size_t i = 0; rc == 0 && i < r->n_top; i++)
    rc = build_schema(r, r->top[i], r->types[r->top[i]].name, 1, out->children[i], err);
  if (rc) pm_schema_release(out);
  return rc;
}

static void *detach(pm_buf *b, size_t min_bytes) {
  if (b->cap < min_bytes || !b->data) {
    if (pm_buf_reserve(b, min_bytes ? min_bytes : 1)) return NULL;
  }
  size_t len;
  return pm_buf_detach(b, &len);
}

static int finish_col(col_reader *c, struct ArrowArray *a, pm_error *err) {
  pm_orc_kind k = c->t->info.kind;
  int64_t nbuf, nch = 0;
  switch (k) {
    case PM_ORC_STRUCT: nbuf = 1; nch = c->n_children; break;
    case PM_ORC_UNION: nbuf = 2; nch = c->n_children; break;
    case PM_ORC_LIST: nbuf = 2; nch = 1; break;
    case PM_ORC_MAP: nbuf = 2; nch = 1; break;
    case PM_ORC_STRING:
    case PM_ORC_VARCHAR:
    case PM_ORC_CHAR:
    case PM_ORC_BINARY: nbuf = 3; break;
    default: nbuf = 2;
  }
  PM_TRY(pm_array_init(a, c->length, nbuf, nch, err));
  a->null_count = c->null_count;
  if (c->has_validity) {
    void *v = detach(&c->validity, 1);
    if (!v) return PM_NOMEM(err);
    pm_array_set_buffer(a, 0, v);
  }
  if (k == PM_ORC_STRUCT) {
    for (uint32_t i = 0; i < c->n_children; i++) PM_TRY(finish_col(c->children[i], a->children[i], err));
  } else if (k == PM_ORC_UNION) {
    void *ids = detach(&c->values, 1);
    if (!ids) return PM_NOMEM(err);
    pm_array_set_buffer(a, 0, ids);
    void *o = detach(&c->offsets, 4);
    if (!o) return PM_NOMEM(err);
    pm_array_set_buffer(a, 1, o);
    for (uint32_t i = 0; i < c->n_children; i++) PM_TRY(finish_col(c->children[i], a->children[i], err));
  } else if (k == PM_ORC_LIST || k == PM_ORC_MAP) {
    if (c->offsets.len == 0) {
      int32_t z = 0;
      if (pm_buf_append(&c->offsets, &z, 4)) return PM_NOMEM(err);
    }
    void *o = detach(&c->offsets, 4);
    if (!o) return PM_NOMEM(err);
    pm_array_set_buffer(a, 1, o);
    if (k == PM_ORC_LIST) {
      PM_TRY(finish_col(c->children[0], a->children[0], err));
    } else {
      struct ArrowArray *e = a->children[0];
      PM_TRY(pm_array_init(e, c->children[0]->length, 1, 2, err));
      PM_TRY(finish_col(c->children[0], e->children[0], err));
      PM_TRY(finish_col(c->children[1], e->children[1], err));
    }
  } else if (nbuf == 3) {
    if (c->offsets.len == 0) {
      int32_t z = 0;
      if (pm_buf_append(&c->offsets, &z, 4)) return PM_NOMEM(err);
    }
    void *o = detach(&c->offsets, 4);
    void *d = o ? detach(&c->strdata, 1) : NULL;
    if (o) pm_array_set_buffer(a, 1, o);
    if (!o || !d) return PM_NOMEM(err);
    pm_array_set_buffer(a, 2, d);
  } else {
    void *v = detach(&c->values, 8);
    if (!v) return PM_NOMEM(err);
    pm_array_set_buffer(a, 1, v);
  }
  col_reset_builder(c);
  return 0;
}

static void reset_tree(col_reader *c) {
  col_reset_builder(c);
  for (uint32_t i = 0; i < c->n_children; i++) reset_tree(c->children[i]);
}

int pm_orc_reader_next(pm_orc_reader *r, struct ArrowArray *out, pm_error *err) {
  memset(out, 0, sizeof *out);
  PM_TRY(ensure_cols(r, err));
  for (size_t i = 0; i < r->n_top; i++) reset_tree(&r->cols[r->top[i]]);
  int64_t rows = 0;
  while (rows < r->batch_size) {
    if (!r->stripe_loaded) {
      if (r->cur_stripe >= r->n_stripes) break;
      size_t si = r->cur_stripe;
      int m;
      PM_TRY(stripe_may_match(r, si, &m, err));
      if (!m || r->stripes[si].num_rows == 0) {
        if (!m) r->skipped_stripes++;
        r->cur_stripe++;
        continue;
      }
      PM_TRY(load_stripe(r, si, err));
      PM_TRY(compute_runs(r, si, err));
      r->stripe_loaded = 1;
      r->stripe_row = 0;
    }
    if (r->cur_run >= r->n_runs) {
      r->stripe_loaded = 0;
      r->cur_stripe++;
      for (size_t i = 0; i < r->n_types * SK_COUNT; i++) r->have[i] = 0; /* buffers kept for the next stripe */
      continue;
    }
    int64_t rs = r->runs[2 * r->cur_run], re = r->runs[2 * r->cur_run + 1];
    if ((int64_t)r->stripe_row < rs) {
      uint64_t g = r->can_seek && r->row_index_stride ? (uint64_t)rs / r->row_index_stride : 0;
      if (g > 0 && g * r->row_index_stride > r->stripe_row) {
        /* Jump over whole row groups with the row index instead of decoding them. */
        for (size_t i = 0; i < r->n_top; i++) PM_TRY(seek_col(r, &r->cols[r->top[i]], g, err));
        r->stripe_row = g * r->row_index_stride;
      }
      uint64_t skip = (uint64_t)rs - r->stripe_row;
      for (size_t i = 0; i < r->n_top; i++) PM_TRY(col_skip(r, &r->cols[r->top[i]], skip, err));
      r->stripe_row = (uint64_t)rs;
    }
    int64_t k = re - (int64_t)r->stripe_row;
    if (k > r->batch_size - rows) k = r->batch_size - rows;
    for (size_t i = 0; i < r->n_top; i++) PM_TRY(col_read(r, &r->cols[r->top[i]], (size_t)k, NULL, err));
    r->stripe_row += (uint64_t)k;
    rows += k;
    if ((int64_t)r->stripe_row >= re) r->cur_run++;
  }
  if (rows == 0) return 0;
  PM_TRY(pm_array_init(out, rows, 1, (int64_t)r->n_top, err));
  for (size_t i = 0; i < r->n_top; i++) {
    int rc = finish_col(&r->cols[r->top[i]], out->children[i], err);
    if (rc) {
      pm_array_release(out);
      return rc;
    }
  }
  return 0;
}
