/* ORC writer: buffers one stripe of encoded-ready values per column, then
 * encodes each row group's slice of every stream as its own compression
 * chunk(s), so row index positions are simply chunk offsets. */
#include "format/orc/orc_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow.h"
#include "format/orc/orc_proto.h"
#include "format/orc/orc_reader.h"
#include "format/orc/orc_rle.h"
#include "io/file.h"
#include "util/buf.h"

#define ORC_BASE_SECONDS 1420070400LL
#define ORC_MAX_STAT_STRING 1024

enum { SK_PRESENT = 0, SK_DATA = 1, SK_LENGTH = 2, SK_DICTIONARY_DATA = 3, SK_SECONDARY = 5, SK_ROW_INDEX = 6 };

/* Column statistics being accumulated. */
typedef struct wstats {
  uint64_t count;
  int has_null;
  int has_minmax;
  int64_t imin, imax, isum;
  int sum_overflow;
  double dmin, dmax, dsum;
  uint8_t *smin, *smax; /* malloc'd copies */
  size_t smin_len, smax_len;
  int string_too_long;
  __int128 cmin, cmax; /* decimals */
  int64_t tmin_ms, tmax_ms;
  int32_t tmin_ns, tmax_ns; /* nanos within the millisecond */
  uint64_t true_count;
  int64_t total_len; /* string/binary sum */
} wstats;

typedef struct wcol wcol;
struct wcol {
  uint32_t id;
  pm_orc_kind kind;
  char *name;
  int32_t field_id;
  int has_field_id; /* any value, -1 included (Java's _VERSION of manifests) */
  uint32_t precision, scale, max_length;
  char ts_unit; /* Arrow unit of the input: s m u n */
  int date_ms;  /* "tdm" input */
  int large;    /* 64-bit offsets input */
  wcol **children;
  uint32_t n_children;
  /* stripe buffers */
  pm_buf present; /* 0/1 per slot */
  int any_null;
  uint64_t slots, values;
  pm_buf ints;   /* int64 values: ints, dates, timestamp secs, lengths (list/map/string), decimal scales */
  pm_buf ints2;  /* timestamp nanos (encoded) */
  pm_buf bytes;  /* byte / bool values, float/double raw, string bytes, decimal varints */
  /* row group marks: slot and value counts (and bytes length) at each group start */
  pm_buf marks; /* uint64 triples */
  wstats group, stripe, file;
  pm_buf group_list; /* wstats of the finished groups of this stripe */
  int dict;          /* this stripe's strings are dictionary encoded (indices in ints2) */
  uint32_t dict_size;
  /* positions of the current stripe: per group, uint64 list */
  pm_buf *positions;
};

struct pm_orc_writer {
  char *path;
  pm_out_file *out;
  pm_orc_writer_options o;
  struct ArrowSchema schema;
  wcol *cols;
  size_t n_cols;
  uint64_t rows, stripe_rows, group_rows;
  uint64_t n_groups; /* in the current stripe */
  int in_group;
  pm_buf stripes;    /* encoded StripeInformation messages, each length-prefixed in a pm_buf list */
  pm_buf stripe_stats; /* encoded StripeStatistics messages (Metadata.stripeStats) */
  pm_buf scratch, comp, idx, data, footer, dict_lens, dict_bytes;
  int failed;
};

static void stats_reset(wstats *s) {
  free(s->smin);
  free(s->smax);
  memset(s, 0, sizeof *s);
}

static int set_bytes(uint8_t **dst, size_t *dlen, const uint8_t *src, size_t n) {
  uint8_t *p = malloc(n ? n : 1);
  if (!p) return PAIMON_ERR_NOMEM;
  if (n) memcpy(p, src, n);
  free(*dst);
  *dst = p;
  *dlen = n;
  return 0;
}

static int cmp_bytes(const uint8_t *a, size_t al, const uint8_t *b, size_t bl) {
  size_t n = al < bl ? al : bl;
  int c = n ? memcmp(a, b, n) : 0;
  if (c) return c;
  return al < bl ? -1 : (al > bl);
}

static void stats_int(wstats *s, int64_t v) {
  if (!s->has_minmax) {
    s->imin = s->imax = v;
    s->has_minmax = 1;
  } else {
    if (v < s->imin) s->imin = v;
    if (v > s->imax) s->imax = v;
  }
  if (!s->sum_overflow && __builtin_add_overflow(s->isum, v, &s->isum)) s->sum_overflow = 1;
}

static void stats_double(wstats *s, double v) {
  if (v != v) return; /* NaN does not move min/max */
  if (!s->has_minmax) {
    s->dmin = s->dmax = v;
    s->has_minmax = 1;
  } else {
    if (v < s->dmin) s->dmin = v;
    if (v > s->dmax) s->dmax = v;
  }
  s->dsum += v;
}

static int stats_string(wstats *s, const uint8_t *p, size_t n) {
  s->total_len += (int64_t)n;
  if (n > ORC_MAX_STAT_STRING) {
    s->string_too_long = 1;
    return 0;
  }
  if (!s->has_minmax) {
    s->has_minmax = 1;
    if (set_bytes(&s->smin, &s->smin_len, p, n) || set_bytes(&s->smax, &s->smax_len, p, n)) return PAIMON_ERR_NOMEM;
    return 0;
  }
  if (cmp_bytes(p, n, s->smin, s->smin_len) < 0 && set_bytes(&s->smin, &s->smin_len, p, n)) return PAIMON_ERR_NOMEM;
  if (cmp_bytes(p, n, s->smax, s->smax_len) > 0 && set_bytes(&s->smax, &s->smax_len, p, n)) return PAIMON_ERR_NOMEM;
  return 0;
}

static void stats_decimal(wstats *s, __int128 v) {
  if (!s->has_minmax) {
    s->cmin = s->cmax = v;
    s->has_minmax = 1;
  } else {
    if (v < s->cmin) s->cmin = v;
    if (v > s->cmax) s->cmax = v;
  }
}

static void stats_ts(wstats *s, int64_t ms, int32_t ns_in_ms) {
  if (!s->has_minmax) {
    s->tmin_ms = s->tmax_ms = ms;
    s->tmin_ns = s->tmax_ns = ns_in_ms;
    s->has_minmax = 1;
    return;
  }
  if (ms < s->tmin_ms || (ms == s->tmin_ms && ns_in_ms < s->tmin_ns)) {
    s->tmin_ms = ms;
    s->tmin_ns = ns_in_ms;
  }
  if (ms > s->tmax_ms || (ms == s->tmax_ms && ns_in_ms > s->tmax_ns)) {
    s->tmax_ms = ms;
    s->tmax_ns = ns_in_ms;
  }
}

/* Merges src into dst. */
static int stats_merge(wstats *dst, const wstats *src, pm_orc_kind k) {
  dst->count += src->count;
  dst->has_null |= src->has_null;
  dst->true_count += src->true_count;
  dst->total_len += src->total_len;
  dst->string_too_long |= src->string_too_long;
  if (!src->has_minmax) {
    if (!src->sum_overflow) return 0;
  }
  if (src->sum_overflow) dst->sum_overflow = 1;
  if (!src->has_minmax) return 0;
  switch (k) {
    case PM_ORC_BYTE:
    case PM_ORC_SHORT:
    case PM_ORC_INT:
    case PM_ORC_LONG:
    case PM_ORC_DATE:
      if (!dst->has_minmax) {
        dst->imin = src->imin;
        dst->imax = src->imax;
      } else {
        if (src->imin < dst->imin) dst->imin = src->imin;
        if (src->imax > dst->imax) dst->imax = src->imax;
      }
      if (!dst->sum_overflow && __builtin_add_overflow(dst->isum, src->isum, &dst->isum)) dst->sum_overflow = 1;
      break;
    case PM_ORC_FLOAT:
    case PM_ORC_DOUBLE:
      if (!dst->has_minmax) {
        dst->dmin = src->dmin;
        dst->dmax = src->dmax;
      } else {
        if (src->dmin < dst->dmin) dst->dmin = src->dmin;
        if (src->dmax > dst->dmax) dst->dmax = src->dmax;
      }
      dst->dsum += src->dsum;
      break;
    case PM_ORC_STRING:
    case PM_ORC_VARCHAR:
    case PM_ORC_CHAR:
      if (!dst->has_minmax || cmp_bytes(src->smin, src->smin_len, dst->smin, dst->smin_len) < 0)
        if (set_bytes(&dst->smin, &dst->smin_len, src->smin, src->smin_len)) return PAIMON_ERR_NOMEM;
      if (!dst->has_minmax || cmp_bytes(src->smax, src->smax_len, dst->smax, dst->smax_len) > 0)
        if (set_bytes(&dst->smax, &dst->smax_len, src->smax, src->smax_len)) return PAIMON_ERR_NOMEM;
      break;
    case PM_ORC_DECIMAL:
      if (!dst->has_minmax) {
        dst->cmin = src->cmin;
        dst->cmax = src->cmax;
      } else {
        if (src->cmin < dst->cmin) dst->cmin = src->cmin;
        if (src->cmax > dst->cmax) dst->cmax = src->cmax;
      }
      break;
    case PM_ORC_TIMESTAMP:
    case PM_ORC_TIMESTAMP_INSTANT:
      if (!dst->has_minmax) {
        dst->tmin_ms = src->tmin_ms;
        dst->tmin_ns = src->tmin_ns;
        dst->tmax_ms = src->tmax_ms;
        dst->tmax_ns = src->tmax_ns;
      } else {
        if (src->tmin_ms < dst->tmin_ms || (src->tmin_ms == dst->tmin_ms && src->tmin_ns < dst->tmin_ns)) {
          dst->tmin_ms = src->tmin_ms;
          dst->tmin_ns = src->tmin_ns;
        }
        if (src->tmax_ms > dst->tmax_ms || (src->tmax_ms == dst->tmax_ms && src->tmax_ns > dst->tmax_ns)) {
          dst->tmax_ms = src->tmax_ms;
          dst->tmax_ns = src->tmax_ns;
        }
      }
      break;
    default: break;
  }
  dst->has_minmax = 1;
  return 0;
}

static int format_decimal(__int128 v, uint32_t scale, char *buf, size_t cap) {
  char digits[64];
  int n = 0, neg = v < 0;
  unsigned __int128 u = neg ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
  do {
    digits[n++] = (char)('0' + (int)(u % 10));
    u /= 10;
  } while (u);
  while (n <= (int)scale) digits[n++] = '0';
  size_t o = 0;
  if (neg && o + 1 < cap) buf[o++] = '-';
  for (int i = n - 1; i >= 0 && o + 2 < cap; i--) {
    buf[o++] = digits[i];
    if (i == (int)scale && scale > 0) buf[o++] = '.';
  }
  buf[o] = 0;
  return (int)o;
}

/* Appends an encoded ColumnStatistics message (without field key) to out. */
static int encode_stats(const wcol *c, const wstats *s, pm_buf *out) {
  pm_buf m, sub;
  pm_buf_init(&m);
  pm_buf_init(&sub);
  int rc = pm_pbw_uint(&m, 1, s->count);
  pm_orc_kind k = c->kind;
  if (rc == 0) switch (k) {
      case PM_ORC_BYTE:
      case PM_ORC_SHORT:
      case PM_ORC_INT:
      case PM_ORC_LONG:
        if (s->has_minmax) rc = pm_pbw_sint(&sub, 1, s->imin) || pm_pbw_sint(&sub, 2, s->imax);
        if (!rc && !s->sum_overflow) rc = pm_pbw_sint(&sub, 3, s->isum);
        if (!rc) rc = pm_pbw_bytes(&m, 2, sub.data, sub.len);
        break;
      case PM_ORC_DATE:
        if (s->has_minmax) rc = pm_pbw_sint(&sub, 1, s->imin) || pm_pbw_sint(&sub, 2, s->imax);
        if (!rc) rc = pm_pbw_bytes(&m, 7, sub.data, sub.len);
        break;
      case PM_ORC_FLOAT:
      case PM_ORC_DOUBLE:
        if (s->has_minmax) rc = pm_pbw_double(&sub, 1, s->dmin) || pm_pbw_double(&sub, 2, s->dmax);
        if (!rc) rc = pm_pbw_double(&sub, 3, s->dsum);
        if (!rc) rc = pm_pbw_bytes(&m, 3, sub.data, sub.len);
        break;
      case PM_ORC_STRING:
      case PM_ORC_VARCHAR:
      case PM_ORC_CHAR:
        if (s->has_minmax && !s->string_too_long)
          rc = pm_pbw_bytes(&sub, 1, s->smin, s->smin_len) || pm_pbw_bytes(&sub, 2, s->smax, s->smax_len);
        if (!rc) rc = pm_pbw_sint(&sub, 3, s->total_len);
        if (!rc) rc = pm_pbw_bytes(&m, 4, sub.data, sub.len);
        break;
      case PM_ORC_BOOLEAN: {
        uint64_t t = s->true_count;
        rc = pm_pbw_packed(&sub, 1, &t, 1);
        if (!rc) rc = pm_pbw_bytes(&m, 5, sub.data, sub.len);
        break;
      }
      case PM_ORC_DECIMAL:
        if (s->has_minmax) {
          char a[64], b[64];
          format_decimal(s->cmin, c->scale, a, sizeof a);
          format_decimal(s->cmax, c->scale, b, sizeof b);
          rc = pm_pbw_str(&sub, 1, a) || pm_pbw_str(&sub, 2, b);
        }
        if (!rc) rc = pm_pbw_bytes(&m, 6, sub.data, sub.len);
        break;
      case PM_ORC_BINARY:
        rc = pm_pbw_sint(&sub, 1, s->total_len);
        if (!rc) rc = pm_pbw_bytes(&m, 8, sub.data, sub.len);
        break;
      case PM_ORC_TIMESTAMP:
      case PM_ORC_TIMESTAMP_INSTANT:
        if (s->has_minmax) {
          rc = pm_pbw_sint(&sub, 3, s->tmin_ms) || pm_pbw_sint(&sub, 4, s->tmax_ms);
          /* Nanos within the millisecond, stored + 1, only when not the default (0 / 999999). */
          if (!rc && s->tmin_ns != 0) rc = pm_pbw_uint(&sub, 5, (uint64_t)(uint32_t)(s->tmin_ns + 1));
          if (!rc && s->tmax_ns != 999999) rc = pm_pbw_uint(&sub, 6, (uint64_t)(uint32_t)(s->tmax_ns + 1));
        }
        if (!rc) rc = pm_pbw_bytes(&m, 9, sub.data, sub.len);
        break;
      default: break;
    }
  if (!rc) rc = pm_pbw_uint(&m, 10, s->has_null ? 1 : 0);
  if (!rc) rc = pm_buf_append(out, m.data, m.len);
  pm_buf_free(&m);
  pm_buf_free(&sub);
  return rc ? PAIMON_ERR_NOMEM : 0;
}

/* ------------------------------------------------------------------ */
/* Schema */

static int wcol_count(const struct ArrowSchema *s) {
  int n = 1;
  if (!strcmp(s->format, "+m")) {
    if (s->n_children != 1 || s->children[0]->n_children != 2) return -1;
    int a = wcol_count(s->children[0]->children[0]), b = wcol_count(s->children[0]->children[1]);
    return a < 0 || b < 0 ? -1 : n + a + b;
  }
  for (int64_t i = 0; i < s->n_children; i++) {
    int c = wcol_count(s->children[i]);
    if (c < 0) return -1;
    n += c;
  }
  return n;
}

static int setup_col(pm_orc_writer *w, const struct ArrowSchema *s, uint32_t *next, int is_root, pm_error *err) {
  uint32_t id = (*next)++;
  wcol *c = &w->cols[id];
  c->id = id;
  c->field_id = -1;
  c->name = strdup(s->name ? s->name : "");
  /* Buffers stay allocated across stripes, so slices of empty ones are valid pointers. */
  if (!c->name || pm_buf_reserve(&c->present, 64) || pm_buf_reserve(&c->ints, 64) || pm_buf_reserve(&c->ints2, 64) ||
      pm_buf_reserve(&c->bytes, 64))
    return PM_NOMEM(err);
  const char *f = s->format;
  if (!is_root) {
    char *fid = pm_schema_metadata_get(s, "PARQUET:field_id");
    if (fid) {
      c->field_id = atoi(fid);
      c->has_field_id = 1;
      free(fid);
    }
  }
  const struct ArrowSchema *kids[2] = {NULL, NULL};
  const struct ArrowSchema *const *children = (const struct ArrowSchema *const *)s->children;
  int64_t nch = 0;
  if (!strcmp(f, "b")) c->kind = PM_ORC_BOOLEAN;
  else if (!strcmp(f, "c")) c->kind = PM_ORC_BYTE;
  else if (!strcmp(f, "s")) c->kind = PM_ORC_SHORT;
  else if (!strcmp(f, "i") || !strcmp(f, "ttm")) c->kind = PM_ORC_INT; /* TIME: millis of the day, as Java */
  else if (!strcmp(f, "l")) c->kind = PM_ORC_LONG;
  else if (!strcmp(f, "f")) c->kind = PM_ORC_FLOAT;
  else if (!strcmp(f, "g")) c->kind = PM_ORC_DOUBLE;
  else if (!strcmp(f, "u") || !strcmp(f, "U")) {
    c->kind = PM_ORC_STRING;
    c->large = f[0] == 'U';
    /* Optional "ORC:type" = "char(N)" / "varchar(N)" (Paimon CHAR/VARCHAR). */
    char *ot = pm_schema_metadata_get(s, "ORC:type");
    if (ot) {
      unsigned n = 0;
      char tail = 0;
      if (sscanf(ot, "char(%u%c", &n, &tail) == 2 && tail == ')' && n > 0) {
        c->kind = PM_ORC_CHAR;
        c->max_length = n;
      } else if (sscanf(ot, "varchar(%u%c", &n, &tail) == 2 && tail == ')' && n > 0) {
        c->kind = PM_ORC_VARCHAR;
        c->max_length = n;
      } else if (strcmp(ot, "string") != 0) {
        int rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: field %s: bad ORC:type \"%s\"", w->path, c->name, ot);
        free(ot);
        return rc;
      }
      free(ot);
    }
  } else if (!strcmp(f, "z") || !strcmp(f, "Z")) {
    c->kind = PM_ORC_BINARY;
    c->large = f[0] == 'Z';
  } else if (!strcmp(f, "tdD")) c->kind = PM_ORC_DATE;
  else if (!strcmp(f, "tdm")) {
    c->kind = PM_ORC_DATE;
    c->date_ms = 1;
  } else if (f[0] == 'd' && f[1] == ':') {
    unsigned p = 0, sc = 0;
    int bw = 128;
    int got = sscanf(f + 2, "%u,%u,%d", &p, &sc, &bw);
    if (got < 2 || bw != 128 || p == 0 || p > 38 || sc > p)
      return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: ORC writer: unsupported decimal format \"%s\" (field %s)", w->path, f, c->name);
    c->kind = PM_ORC_DECIMAL;
    c->precision = p;
    c->scale = sc;
  } else if (f[0] == 't' && f[1] == 's' && f[2] && strchr("smun", f[2]) && f[3] == ':') {
    c->kind = f[4] ? PM_ORC_TIMESTAMP_INSTANT : PM_ORC_TIMESTAMP;
    c->ts_unit = f[2];
  } else if (!strcmp(f, "+l")) {
    c->kind = PM_ORC_LIST;
    nch = 1;
  } else if (!strcmp(f, "+m")) {
    c->kind = PM_ORC_MAP;
    kids[0] = s->children[0]->children[0];
    kids[1] = s->children[0]->children[1];
    children = kids;
    nch = 2;
  } else if (!strcmp(f, "+s")) {
    c->kind = PM_ORC_STRUCT;
    nch = s->n_children;
  } else if (!strncmp(f, "+ud:", 4)) {
    /* Dense union with type ids 0..n-1 in child order. */
    const char *p = f + 4;
    for (int64_t i = 0; i < s->n_children; i++) {
      char *end;
      long id = strtol(p, &end, 10);
      if (id != i || end == p || (*end != ',' && *end != 0) || (*end == 0 && i + 1 != s->n_children))
        return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: ORC writer: union %s needs type ids 0..n-1 (\"%s\")", w->path,
                         c->name, f);
      p = *end ? end + 1 : end;
    }
    if (s->n_children < 1 || s->n_children > 127)
      return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: ORC writer: union %s has %lld variants", w->path, c->name,
                       (long long)s->n_children);
    c->kind = PM_ORC_UNION;
    nch = s->n_children;
  } else {
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: ORC writer: unsupported Arrow format \"%s\" (field %s)", w->path,
                     f, c->name);
  }
  if ((c->kind == PM_ORC_LIST && s->n_children != 1))
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: list field %s needs one child", w->path, c->name);
  if (nch > 0) {
    c->children = calloc((size_t)nch, sizeof *c->children);
    if (!c->children) return PM_NOMEM(err);
    c->n_children = (uint32_t)nch;
    for (int64_t i = 0; i < nch; i++) {
      c->children[i] = &w->cols[*next];
      PM_TRY(setup_col(w, children[i], next, 0, err));
    }
  }
  return 0;
}

void pm_orc_writer_options_init(pm_orc_writer_options *o) {
  memset(o, 0, sizeof *o);
  o->codec = PM_CODEC_ZSTD;
}

static void free_writer(pm_orc_writer *w) {
  if (!w) return;
  for (size_t i = 0; i < w->n_cols; i++) {
    wcol *c = &w->cols[i];
    free(c->name);
    free(c->children);
    pm_buf_free(&c->present);
    pm_buf_free(&c->ints);
    pm_buf_free(&c->ints2);
    pm_buf_free(&c->bytes);
    pm_buf_free(&c->marks);
    for (size_t g = 0; g < c->group_list.len / sizeof(wstats); g++) stats_reset((wstats *)(void *)c->group_list.data + g);
    pm_buf_free(&c->group_list);
    stats_reset(&c->group);
    stats_reset(&c->stripe);
    stats_reset(&c->file);
  }
  free(w->cols);
  pm_schema_release(&w->schema);
  pm_buf_free(&w->stripes);
  pm_buf_free(&w->stripe_stats);
  pm_buf_free(&w->scratch);
  pm_buf_free(&w->comp);
  pm_buf_free(&w->idx);
  pm_buf_free(&w->data);
  pm_buf_free(&w->footer);
  pm_buf_free(&w->dict_lens);
  pm_buf_free(&w->dict_bytes);
  free(w->path);
  free(w);
}

static int mark_group_start(pm_orc_writer *w, pm_error *err);

int pm_orc_writer_open(const char *path, const struct ArrowSchema *schema, const pm_orc_writer_options *options,
                       pm_orc_writer **out, pm_error *err) {
  *out = NULL;
  pm_out_file *sink;
  PM_TRY(pm_out_open(path, &sink, err));
  return pm_orc_writer_open_sink(sink, schema, options, out, err);
}

int pm_orc_writer_open_sink(pm_out_file *sink, const struct ArrowSchema *schema, const pm_orc_writer_options *options,
                            pm_orc_writer **out, pm_error *err) {
  *out = NULL;
  const char *path = pm_out_path(sink);
  pm_orc_writer *w = NULL;
  if (!schema || !schema->format || strcmp(schema->format, "+s") != 0) {
    pm_out_abort(sink);
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: ORC writer needs a struct schema", path);
  }
  w = calloc(1, sizeof *w);
  if (!w) {
    pm_out_abort(sink);
    return PM_NOMEM(err);
  }
  w->out = sink; /* owned from here: committed by close, discarded by abort */
  w->path = strdup(path);
  if (options) w->o = *options;
  else pm_orc_writer_options_init(&w->o);
  if (!w->o.compression_block_size) w->o.compression_block_size = 256 * 1024;
  if (!w->o.stripe_size) w->o.stripe_size = 64u << 20;
  if (!w->o.row_index_stride) w->o.row_index_stride = 10000;
  int rc = 0;
  switch (w->o.codec) {
    case PM_CODEC_NONE:
    case PM_CODEC_DEFLATE:
    case PM_CODEC_SNAPPY:
    case PM_CODEC_LZ4_RAW:
    case PM_CODEC_ZSTD: break;
    default: rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: ORC writer: codec %s is not an ORC codec", path, pm_codec_name(w->o.codec));
  }
  if (!rc && (w->o.compression_block_size > (8u << 20) || !w->path)) rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: bad ORC writer options", path);
  int n = rc ? 0 : wcol_count(schema);
  if (!rc && n < 0) rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: malformed map in Arrow schema", path);
  if (!rc) rc = pm_schema_copy(schema, &w->schema, err);
  if (!rc) {
    w->cols = calloc((size_t)n, sizeof *w->cols);
    w->n_cols = (size_t)n;
    if (!w->cols) rc = PM_NOMEM(err);
  }
  uint32_t next = 0;
  if (!rc) rc = setup_col(w, schema, &next, 1, err);
  if (!rc) rc = pm_out_write(w->out, "ORC", 3, err);
  if (rc) {
    pm_out_abort(w->out);
    free_writer(w);
    return rc;
  }
  *out = w;
  return 0;
}

/* ------------------------------------------------------------------ */
/* Appending Arrow values */

static inline int arrow_valid(const struct ArrowArray *a, int64_t i) {
  const uint8_t *v = a->n_buffers > 0 ? (const uint8_t *)a->buffers[0] : NULL;
  if (!v || a->null_count == 0) return 1;
  int64_t j = a->offset + i;
  return (v[j >> 3] >> (j & 7)) & 1;
}

static int push_i64(pm_buf *b, int64_t v) { return pm_buf_append(b, &v, 8); }

static int put_varint128(pm_buf *b, __int128 v) {
  unsigned __int128 u = ((unsigned __int128)v << 1) ^ (unsigned __int128)(v >> 127);
  uint8_t tmp[20];
  int n = 0;
  while (u >= 0x80) {
    tmp[n++] = (uint8_t)(u | 0x80);
    u >>= 7;
  }
  tmp[n++] = (uint8_t)u;
  return pm_buf_append(b, tmp, (size_t)n);
}

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

/* Formats nanos like ORC: trailing decimal zeros folded into the low 3 bits. */
static uint64_t format_nanos(int64_t ns) {
  if (ns == 0) return 0;
  if (ns % 100 != 0) return (uint64_t)ns << 3;
  ns /= 100;
  int z = 1;
  while (ns % 10 == 0 && z < 7) {
    ns /= 10;
    z++;
  }
  return ((uint64_t)ns << 3) | (uint64_t)z;
}

static int append_col(pm_orc_writer *w, wcol *c, const struct ArrowArray *a, int64_t start, int64_t count,
                      const uint8_t *parent_valid, pm_error *err);

static int bad_array(pm_orc_writer *w, wcol *c, const char *what, pm_error *err) {
  return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: ORC writer: column %s: %s", w->path, c->name, what);
}

static int append_value(pm_orc_writer *w, wcol *c, const struct ArrowArray *a, int64_t i, pm_error *err) {
  int64_t j = a->offset + i;
  const void *buf1 = a->n_buffers > 1 ? a->buffers[1] : NULL;
  int rc = 0;
  c->values++;
  c->group.count++;
  switch (c->kind) {
    case PM_ORC_BOOLEAN: {
      uint8_t v = (((const uint8_t *)buf1)[j >> 3] >> (j & 7)) & 1;
      c->group.true_count += v;
      return pm_buf_push_u8(&c->bytes, v) ? PM_NOMEM(err) : 0;
    }
    case PM_ORC_BYTE: {
      int8_t v = ((const int8_t *)buf1)[j];
      stats_int(&c->group, v);
      return pm_buf_push_u8(&c->bytes, (uint8_t)v) ? PM_NOMEM(err) : 0;
    }
    case PM_ORC_SHORT:
    case PM_ORC_INT:
    case PM_ORC_LONG:
    case PM_ORC_DATE: {
      int64_t v;
      if (c->kind == PM_ORC_SHORT) v = ((const int16_t *)buf1)[j];
      else if (c->kind == PM_ORC_LONG) v = ((const int64_t *)buf1)[j];
      else if (c->date_ms) v = floor_div(((const int64_t *)buf1)[j], 86400000);
      else v = ((const int32_t *)buf1)[j];
      stats_int(&c->group, v);
      return push_i64(&c->ints, v) ? PM_NOMEM(err) : 0;
    }
    case PM_ORC_FLOAT: {
      float v;
      memcpy(&v, (const uint8_t *)buf1 + 4 * j, 4);
      stats_double(&c->group, v);
      return pm_buf_append(&c->bytes, &v, 4) ? PM_NOMEM(err) : 0;
    }
    case PM_ORC_DOUBLE: {
      double v;
      memcpy(&v, (const uint8_t *)buf1 + 8 * j, 8);
      stats_double(&c->group, v);
      return pm_buf_append(&c->bytes, &v, 8) ? PM_NOMEM(err) : 0;
    }
    case PM_ORC_STRING:
    case PM_ORC_CHAR:
    case PM_ORC_VARCHAR:
    case PM_ORC_BINARY: {
      int64_t s, e;
      if (c->large) {
        s = ((const int64_t *)buf1)[j];
        e = ((const int64_t *)buf1)[j + 1];
      } else {
        s = ((const int32_t *)buf1)[j];
        e = ((const int32_t *)buf1)[j + 1];
      }
      if (e < s || s < 0) return bad_array(w, c, "string offsets decrease", err);
      const uint8_t *d = (const uint8_t *)a->buffers[2] + s;
      if (c->kind == PM_ORC_CHAR || c->kind == PM_ORC_VARCHAR) {
        /* As ORC Java: truncate to max_length code points; CHAR pads with spaces. */
        int64_t len = e - s, cut = 0;
        uint32_t chars = 0;
        while (cut < len && chars < c->max_length) {
          cut++;
          while (cut < len && (d[cut] & 0xc0) == 0x80) cut++;
          chars++;
        }
        w->scratch.len = 0;
        if (pm_buf_append(&w->scratch, d, (size_t)cut)) return PM_NOMEM(err);
        if (c->kind == PM_ORC_CHAR)
          for (; chars < c->max_length; chars++)
            if (pm_buf_push_u8(&w->scratch, ' ')) return PM_NOMEM(err);
        d = w->scratch.data;
        s = 0;
        e = (int64_t)w->scratch.len;
      }
      if (c->kind != PM_ORC_BINARY) rc = stats_string(&c->group, d, (size_t)(e - s));
      else c->group.total_len += e - s;
      if (rc || push_i64(&c->ints, e - s) || (e > s && pm_buf_append(&c->bytes, d, (size_t)(e - s)))) return PM_NOMEM(err);
      return 0;
    }
    case PM_ORC_DECIMAL: {
      __int128 v;
      memcpy(&v, (const uint8_t *)buf1 + 16 * j, 16);
      stats_decimal(&c->group, v);
      if (put_varint128(&c->bytes, v) || push_i64(&c->ints, (int64_t)c->scale)) return PM_NOMEM(err);
      return 0;
    }
    case PM_ORC_TIMESTAMP:
    case PM_ORC_TIMESTAMP_INSTANT: {
      int64_t v = ((const int64_t *)buf1)[j], secs, ns;
      switch (c->ts_unit) {
        case 's': secs = v; ns = 0; break;
        case 'm': secs = floor_div(v, 1000); ns = (v - secs * 1000) * 1000000; break;
        case 'u': secs = floor_div(v, 1000000); ns = (v - secs * 1000000) * 1000; break;
        default: secs = floor_div(v, 1000000000); ns = v - secs * 1000000000; break;
      }
      int64_t ms;
      if (__builtin_mul_overflow(secs, (int64_t)1000, &ms) || __builtin_add_overflow(ms, ns / 1000000, &ms))
        return bad_array(w, c, "timestamp out of range", err);
      stats_ts(&c->group, ms, (int32_t)(ns % 1000000));
      /* Writers store millis / 1000 truncated toward zero; readers undo it. */
      int64_t stored = ms / 1000 - ORC_BASE_SECONDS;
      if (push_i64(&c->ints, stored) || push_i64(&c->ints2, (int64_t)format_nanos(ns))) return PM_NOMEM(err);
      return 0;
    }
    default: return bad_array(w, c, "unsupported type", err);
  }
}

static int append_col(pm_orc_writer *w, wcol *c, const struct ArrowArray *a, int64_t start, int64_t count,
                      const uint8_t *parent_valid, pm_error *err) {
  if (count <= 0) return 0;
  if (start < 0 || a->length < start + count) return bad_array(w, c, "array shorter than its parent", err);
  uint8_t *valid = NULL;
  if (c->kind == PM_ORC_STRUCT) {
    valid = malloc((size_t)count);
    if (!valid) return PM_NOMEM(err);
  }
  int rc = 0;
  for (int64_t i = 0; i < count && rc == 0; i++) {
    if (parent_valid && !parent_valid[i]) {
      if (valid) valid[i] = 0;
      continue;
    }
    int v = c->kind == PM_ORC_UNION ? 1 : arrow_valid(a, start + i); /* unions have no validity */
    c->slots++;
    if (pm_buf_push_u8(&c->present, (uint8_t)v)) {
      rc = PM_NOMEM(err);
      break;
    }
    if (valid) valid[i] = (uint8_t)v;
    if (!v) {
      c->any_null = 1;
      c->group.has_null = 1;
      continue;
    }
    if (c->kind == PM_ORC_STRUCT) {
      c->values++;
      c->group.count++;
    } else if (c->kind == PM_ORC_UNION) {
      int64_t j = a->offset + start + i;
      int8_t tag = ((const int8_t *)a->buffers[0])[j];
      if (tag < 0 || (uint32_t)tag >= c->n_children) {
        rc = bad_array(w, c, "union type id out of range", err);
        break;
      }
      int32_t at = ((const int32_t *)a->buffers[1])[j];
      c->values++;
      c->group.count++;
      if (pm_buf_push_u8(&c->bytes, (uint8_t)tag)) {
        rc = PM_NOMEM(err);
        break;
      }
      rc = append_col(w, c->children[tag], a->children[tag], at, 1, NULL, err);
    } else if (c->kind == PM_ORC_LIST || c->kind == PM_ORC_MAP) {
      int64_t j = a->offset + start + i;
      const int32_t *off = (const int32_t *)a->buffers[1];
      int32_t s = off[j], e = off[j + 1];
      if (e < s) {
        rc = bad_array(w, c, "list offsets decrease", err);
        break;
      }
      c->values++;
      c->group.count++;
      if (push_i64(&c->ints, e - s)) {
        rc = PM_NOMEM(err);
        break;
      }
      if (c->kind == PM_ORC_LIST) {
        rc = append_col(w, c->children[0], a->children[0], s, e - s, NULL, err);
      } else {
        const struct ArrowArray *ent = a->children[0];
        if (ent->n_children != 2) {
          rc = bad_array(w, c, "map entries need key and value", err);
          break;
        }
        rc = append_col(w, c->children[0], ent->children[0], ent->offset + s, e - s, NULL, err);
        if (!rc) rc = append_col(w, c->children[1], ent->children[1], ent->offset + s, e - s, NULL, err);
      }
    } else {
      rc = append_value(w, c, a, start + i, err);
    }
  }
  if (rc == 0 && c->kind == PM_ORC_STRUCT) {
    if ((uint32_t)a->n_children != c->n_children) rc = bad_array(w, c, "struct child count differs from the schema", err);
    for (uint32_t k = 0; rc == 0 && k < c->n_children; k++)
      rc = append_col(w, c->children[k], a->children[k], a->offset + start, count, valid, err);
  }
  free(valid);
  return rc;
}

/* ------------------------------------------------------------------ */
/* Stripe encoding */

static int mark_group_start(pm_orc_writer *w, pm_error *err) {
  for (size_t i = 0; i < w->n_cols; i++) {
    wcol *c = &w->cols[i];
    uint64_t m[5] = {c->slots, c->values, c->bytes.len, c->ints.len / 8, c->ints2.len / 8};
    if (pm_buf_append(&c->marks, m, sizeof m)) return PM_NOMEM(err);
  }
  w->n_groups++;
  w->group_rows = 0;
  w->in_group = 1;
  return 0;
}

/* Ends the current row group: its statistics move to the group list and merge into the stripe's. */
static int end_group(pm_orc_writer *w, pm_error *err) {
  if (!w->in_group) return 0;
  for (size_t i = 0; i < w->n_cols; i++) {
    wcol *c = &w->cols[i];
    if (stats_merge(&c->stripe, &c->group, c->kind) || pm_buf_append(&c->group_list, &c->group, sizeof c->group))
      return PM_NOMEM(err);
    memset(&c->group, 0, sizeof c->group); /* ownership of min/max strings moved */
  }
  w->in_group = 0;
  return 0;
}

/* Compresses raw bytes as one or more ORC chunks appended to out. */
static int compress_chunks(pm_orc_writer *w, const uint8_t *src, size_t len, pm_buf *out, pm_error *err) {
  if (w->o.codec == PM_CODEC_NONE) return pm_buf_append(out, src, len) ? PM_NOMEM(err) : 0;
  size_t bs = (size_t)w->o.compression_block_size;
  for (size_t pos = 0; pos < len; pos += bs) {
    size_t n = len - pos < bs ? len - pos : bs;
    w->comp.len = 0;
    PM_TRY(pm_compress(w->o.codec, w->o.compression_level, src + pos, n, &w->comp, err));
    const uint8_t *body = w->comp.data;
    size_t blen = w->comp.len;
    uint32_t h;
    if (blen >= n) { /* not worth it: store the original */
      body = src + pos;
      blen = n;
      h = (uint32_t)(n << 1) | 1;
    } else {
      h = (uint32_t)(blen << 1);
    }
    uint8_t hdr[3] = {(uint8_t)h, (uint8_t)(h >> 8), (uint8_t)(h >> 16)};
    if (pm_buf_append(out, hdr, 3) || pm_buf_append(out, body, blen)) return PM_NOMEM(err);
  }
  return 0;
}

typedef struct stream_out {
  int kind;
  pm_buf buf;
} stream_out;

static const uint64_t *mark(const wcol *c, uint64_t g) { return (const uint64_t *)(const void *)c->marks.data + 5 * g; }

/* Positions of one stream at a group start: chunk offset [, 0 within chunk], rle extras. */
static int push_pos(pm_orc_writer *w, pm_buf *pos, uint64_t off, int extras, uint64_t bit) {
  uint64_t v[4];
  int n = 0;
  v[n++] = off;
  if (w->o.codec != PM_CODEC_NONE) v[n++] = 0;
  if (extras >= 1) v[n++] = 0;
  if (extras >= 2) v[n++] = bit;
  return pm_buf_append(pos, v, (size_t)n * 8);
}

static uint64_t hash_bytes(const uint8_t *p, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ULL;
  return h ^ (h >> 29);
}

/* Decides dictionary encoding for a string column (as Java: distinct values
 * at most 80% of the values) and, if chosen, fills ints2 with each value's
 * dictionary index and dict_lens/dict_bytes with the dictionary. */
static int build_dictionary(wcol *c, pm_buf *dict_lens, pm_buf *dict_bytes, pm_error *err) {
  c->dict = 0;
  c->dict_size = 0;
  uint64_t n = c->values;
  if (n == 0 || n > UINT32_MAX / 4) return 0;
  const int64_t *lens = (const int64_t *)(const void *)c->ints.data;
  uint64_t *offs = malloc((n + 1) * sizeof *offs);
  size_t cap = 16;
  while (cap < 2 * n) cap *= 2;
  uint32_t *table = malloc(cap * sizeof *table); /* value index + 1 of the first occurrence, 0 = empty */
  uint32_t *entry_of = malloc(n * sizeof *entry_of); /* dictionary entry of a first occurrence */
  if (!offs || !table || !entry_of) {
    free(offs);
    free(table);
    free(entry_of);
    return PM_NOMEM(err);
  }
  memset(table, 0, cap * sizeof *table);
  offs[0] = 0;
  for (uint64_t i = 0; i < n; i++) offs[i + 1] = offs[i] + (uint64_t)lens[i];
  c->ints2.len = 0;
  int rc = 0;
  uint32_t distinct = 0;
  uint64_t limit = n * 4 / 5;
  if (pm_buf_reserve(&c->ints2, n * 8)) rc = PM_NOMEM(err);
  int64_t *idx = (int64_t *)(void *)c->ints2.data;
  for (uint64_t i = 0; rc == 0 && i < n; i++) {
    const uint8_t *v = c->bytes.data + offs[i];
    size_t vl = (size_t)(offs[i + 1] - offs[i]);
    size_t slot = (size_t)hash_bytes(v, vl) & (cap - 1);
    for (;;) {
      uint32_t t = table[slot];
      if (t == 0) {
        table[slot] = (uint32_t)i + 1;
        entry_of[i] = distinct;
        idx[i] = distinct++;
        break;
      }
      uint64_t j = t - 1;
      if (offs[j + 1] - offs[j] == vl && (vl == 0 || !memcmp(c->bytes.data + offs[j], v, vl))) {
        idx[i] = entry_of[j];
        break;
      }
      slot = (slot + 1) & (cap - 1);
    }
    if (distinct > limit) break;
  }
  if (rc == 0 && distinct <= limit) {
    c->ints2.len = n * 8;
    c->dict = 1;
    c->dict_size = distinct;
    /* Entries in first-occurrence order. */
    uint32_t next = 0;
    for (uint64_t i = 0; rc == 0 && i < n; i++) {
      if ((uint32_t)idx[i] == next) { /* first occurrences appear in increasing entry order */
        int64_t l = lens[i];
        if (pm_buf_append(dict_lens, &l, 8) || (l && pm_buf_append(dict_bytes, c->bytes.data + offs[i], (size_t)l)))
          rc = PM_NOMEM(err);
        next++;
      }
    }
  } else {
    c->ints2.len = 0;
  }
  free(offs);
  free(table);
  free(entry_of);
  return rc;
}

static int encode_column(pm_orc_writer *w, wcol *c, stream_out *streams, int *n_streams, pm_buf *positions,
                         pm_error *err) {
  uint64_t G = w->n_groups;
  int write_present = c->any_null;
  pm_orc_kind k = c->kind;
  c->dict = 0;
  w->dict_lens.len = w->dict_bytes.len = 0;
  if (k == PM_ORC_STRING || k == PM_ORC_CHAR || k == PM_ORC_VARCHAR)
    PM_TRY(build_dictionary(c, &w->dict_lens, &w->dict_bytes, err));
  /* Streams in Java's position order. */
  int kinds[3], extras[3], n = 0;
  if (write_present) { kinds[n] = SK_PRESENT; extras[n++] = 2; }
  switch (k) {
    case PM_ORC_STRUCT: break;
    case PM_ORC_UNION: kinds[n] = SK_DATA; extras[n++] = 1; break;
    case PM_ORC_LIST:
    case PM_ORC_MAP: kinds[n] = SK_LENGTH; extras[n++] = 1; break;
    case PM_ORC_BOOLEAN: kinds[n] = SK_DATA; extras[n++] = 2; break;
    case PM_ORC_BYTE:
    case PM_ORC_SHORT:
    case PM_ORC_INT:
    case PM_ORC_LONG:
    case PM_ORC_DATE: kinds[n] = SK_DATA; extras[n++] = 1; break;
    case PM_ORC_FLOAT:
    case PM_ORC_DOUBLE: kinds[n] = SK_DATA; extras[n++] = 0; break;
    case PM_ORC_STRING:
    case PM_ORC_CHAR:
    case PM_ORC_VARCHAR:
    case PM_ORC_BINARY:
    case PM_ORC_DECIMAL:
      if (c->dict) { /* indices carry the positions; the dictionary streams follow unindexed */
        kinds[n] = SK_DATA; extras[n++] = 1;
        break;
      }
      kinds[n] = SK_DATA; extras[n++] = 0;
      kinds[n] = k == PM_ORC_DECIMAL ? SK_SECONDARY : SK_LENGTH; extras[n++] = 1;
      break;
    case PM_ORC_TIMESTAMP:
    case PM_ORC_TIMESTAMP_INSTANT:
      kinds[n] = SK_DATA; extras[n++] = 1;
      kinds[n] = SK_SECONDARY; extras[n++] = 1;
      break;
    default: return bad_array(w, c, "unsupported type", err);
  }
  int base = *n_streams;
  for (int s = 0; s < n; s++) {
    streams[base + s].kind = kinds[s];
    pm_buf_init(&streams[base + s].buf);
  }
  *n_streams += n;
  const int64_t *ints = (const int64_t *)(const void *)c->ints.data;
  const int64_t *ints2 = (const int64_t *)(const void *)c->ints2.data;
  for (uint64_t g = 0; g < G; g++) {
    const uint64_t *m0 = mark(c, g);
    uint64_t end[5] = {c->slots, c->values, c->bytes.len, c->ints.len / 8, c->ints2.len / 8};
    const uint64_t *m1 = g + 1 < G ? mark(c, g + 1) : end;
    for (int s = 0; s < n; s++) {
      pm_buf *out = &streams[base + s].buf;
      int kind = kinds[s];
      w->scratch.len = 0;
      uint64_t bit = 0;
      int rc = 0;
      if (kind == SK_PRESENT || (kind == SK_DATA && k == PM_ORC_BOOLEAN)) {
        /* Bits are continuous across groups: restart at the byte holding the group's first bit. */
        const uint8_t *v = kind == SK_PRESENT ? c->present.data : c->bytes.data;
        uint64_t a = kind == SK_PRESENT ? m0[0] : m0[1], b = kind == SK_PRESENT ? m1[0] : m1[1];
        uint64_t total = kind == SK_PRESENT ? c->slots : c->values;
        uint64_t from = a / 8 * 8;
        uint64_t to = g + 1 < G ? b / 8 * 8 : total;
        bit = a % 8;
        if (to > from) rc = pm_orc_encode_bool_rle(v + from, (size_t)(to - from), &w->scratch);
      } else if (c->dict && kind == SK_DATA) {
        rc = pm_orc_encode_int_rle_v2(ints2 + m0[1], (size_t)(m1[1] - m0[1]), 0, &w->scratch);
      } else if (k == PM_ORC_BYTE || k == PM_ORC_UNION) {
        rc = pm_orc_encode_byte_rle(c->bytes.data + m0[1], (size_t)(m1[1] - m0[1]), &w->scratch);
      } else if (kind == SK_DATA && (k == PM_ORC_FLOAT || k == PM_ORC_DOUBLE || k == PM_ORC_STRING ||
                                     k == PM_ORC_CHAR || k == PM_ORC_VARCHAR ||
                                     k == PM_ORC_BINARY || k == PM_ORC_DECIMAL)) {
        rc = pm_buf_append(&w->scratch, c->bytes.data + m0[2], (size_t)(m1[2] - m0[2]));
      } else if (kind == SK_SECONDARY && (k == PM_ORC_TIMESTAMP || k == PM_ORC_TIMESTAMP_INSTANT)) {
        rc = pm_orc_encode_int_rle_v2(ints2 + m0[4], (size_t)(m1[4] - m0[4]), 0, &w->scratch);
      } else {
        /* int-RLE streams over `ints`: signed for DATA and decimal scales, unsigned lengths. */
        int sig = kind == SK_DATA || kind == SK_SECONDARY;
        rc = pm_orc_encode_int_rle_v2(ints + m0[3], (size_t)(m1[3] - m0[3]), sig, &w->scratch);
      }
      if (rc) return PM_NOMEM(err);
      if (push_pos(w, &positions[g], out->len, extras[s], bit)) return PM_NOMEM(err);
      if (w->scratch.len) PM_TRY(compress_chunks(w, w->scratch.data, w->scratch.len, out, err));
    }
  }
  if (c->dict) {
    stream_out *ls = &streams[(*n_streams)++], *ds = &streams[(*n_streams)++];
    ls->kind = SK_LENGTH;
    ds->kind = SK_DICTIONARY_DATA;
    pm_buf_init(&ls->buf);
    pm_buf_init(&ds->buf);
    w->scratch.len = 0;
    if (pm_orc_encode_int_rle_v2((const int64_t *)(const void *)w->dict_lens.data, w->dict_lens.len / 8, 0, &w->scratch))
      return PM_NOMEM(err);
    if (w->scratch.len) PM_TRY(compress_chunks(w, w->scratch.data, w->scratch.len, &ls->buf, err));
    if (w->dict_bytes.len) PM_TRY(compress_chunks(w, w->dict_bytes.data, w->dict_bytes.len, &ds->buf, err));
  }
  return 0;
}

/* Encodes and writes the buffered stripe. */
static int flush_stripe(pm_orc_writer *w, pm_error *err) {
  if (w->stripe_rows == 0) return 0;
  PM_TRY(end_group(w, err));
  uint64_t G = w->n_groups;
  /* Close the last group's statistics. */
  pm_buf *positions = calloc((size_t)(G * w->n_cols), sizeof *positions);
  stream_out *streams = calloc(w->n_cols * 4 + 1, sizeof *streams);
  int *col_of = calloc(w->n_cols * 4 + 1, sizeof *col_of);
  wstats *gstats = calloc((size_t)(G * w->n_cols), sizeof *gstats);
  int rc = 0;
  if (!positions || !streams || !col_of || !gstats) rc = PM_NOMEM(err);
  int n_streams = 0;
  /* Group statistics were accumulated into per-column lists at each group end (see end_group). */
  for (size_t i = 0; rc == 0 && i < w->n_cols; i++) {
    int before = n_streams;
    rc = encode_column(w, &w->cols[i], streams, &n_streams, &positions[i * G], err);
    for (int s = before; s < n_streams; s++) col_of[s] = (int)i;
  }
  pm_buf *idx = &w->idx, *data = &w->data, sf;
  pm_buf_init(&sf);
  idx->len = data->len = 0;
  /* Row indexes: one stream per column. */
  uint64_t *index_lens = calloc(w->n_cols, sizeof *index_lens);
  if (!index_lens && rc == 0) rc = PM_NOMEM(err);
  pm_buf ri, ent;
  pm_buf_init(&ri);
  pm_buf_init(&ent);
  for (size_t i = 0; rc == 0 && i < w->n_cols; i++) {
    wcol *c = &w->cols[i];
    ri.len = 0;
    for (uint64_t g = 0; rc == 0 && g < G; g++) {
      ent.len = 0;
      pm_buf *p = &positions[i * G + g];
      rc = pm_pbw_packed(&ent, 1, (const uint64_t *)(const void *)p->data, p->len / 8);
      pm_buf st;
      pm_buf_init(&st);
      const wstats *gst = (const wstats *)(const void *)c->group_list.data + g;
      if (!rc) rc = encode_stats(c, gst, &st);
      if (!rc) rc = pm_pbw_bytes(&ent, 2, st.data, st.len);
      pm_buf_free(&st);
      if (!rc) rc = pm_pbw_bytes(&ri, 1, ent.data, ent.len);
      if (rc) rc = PM_NOMEM(err);
    }
    size_t before = idx->len;
    if (!rc) rc = compress_chunks(w, ri.data, ri.len, idx, err);
    if (!rc) index_lens[i] = idx->len - before;
  }
  pm_buf_free(&ri);
  pm_buf_free(&ent);
  for (int s = 0; rc == 0 && s < n_streams; s++)
    if (pm_buf_append(data, streams[s].buf.data, streams[s].buf.len)) rc = PM_NOMEM(err);
  /* Stripe footer. */
  pm_buf msg;
  pm_buf_init(&msg);
  for (size_t i = 0; rc == 0 && i < w->n_cols; i++) {
    msg.len = 0;
    if (pm_pbw_uint(&msg, 1, SK_ROW_INDEX) || pm_pbw_uint(&msg, 2, i) || pm_pbw_uint(&msg, 3, index_lens[i]) ||
        pm_pbw_bytes(&sf, 1, msg.data, msg.len))
      rc = PM_NOMEM(err);
  }
  for (int s = 0; rc == 0 && s < n_streams; s++) {
    msg.len = 0;
    if (pm_pbw_uint(&msg, 1, (uint64_t)streams[s].kind) || pm_pbw_uint(&msg, 2, (uint64_t)col_of[s]) ||
        pm_pbw_uint(&msg, 3, streams[s].buf.len) || pm_pbw_bytes(&sf, 1, msg.data, msg.len))
      rc = PM_NOMEM(err);
  }
  for (size_t i = 0; rc == 0 && i < w->n_cols; i++) {
    pm_orc_kind k = w->cols[i].kind;
    int direct = k == PM_ORC_STRUCT || k == PM_ORC_UNION || k == PM_ORC_BOOLEAN || k == PM_ORC_BYTE ||
                 k == PM_ORC_FLOAT || k == PM_ORC_DOUBLE;
    msg.len = 0;
    int enc = direct ? PM_ORC_ENC_DIRECT : (w->cols[i].dict ? PM_ORC_ENC_DICTIONARY_V2 : PM_ORC_ENC_DIRECT_V2);
    if (pm_pbw_uint(&msg, 1, (uint64_t)enc) || (w->cols[i].dict && pm_pbw_uint(&msg, 2, w->cols[i].dict_size)) ||
        pm_pbw_bytes(&sf, 2, msg.data, msg.len))
      rc = PM_NOMEM(err);
  }
  if (rc == 0 && pm_pbw_str(&sf, 3, "UTC")) rc = PM_NOMEM(err);
  pm_buf_free(&msg);
  uint64_t offset = pm_out_pos(w->out);
  size_t footer_before = 0;
  w->footer.len = 0;
  if (rc == 0) rc = compress_chunks(w, sf.data, sf.len, &w->footer, err);
  (void)footer_before;
  if (rc == 0) rc = pm_out_write(w->out, idx->data, idx->len, err);
  if (rc == 0) rc = pm_out_write(w->out, data->data, data->len, err);
  if (rc == 0) rc = pm_out_write(w->out, w->footer.data, w->footer.len, err);
  /* StripeInformation + stripe statistics. */
  if (rc == 0) {
    msg.len = 0;
    if (pm_pbw_uint(&msg, 1, offset) || pm_pbw_uint(&msg, 2, idx->len) || pm_pbw_uint(&msg, 3, data->len) ||
        pm_pbw_uint(&msg, 4, w->footer.len) || pm_pbw_uint(&msg, 5, w->stripe_rows) ||
        pm_pbw_bytes(&w->stripes, 3, msg.data, msg.len))
      rc = PM_NOMEM(err);
    msg.len = 0;
    for (size_t i = 0; rc == 0 && i < w->n_cols; i++) {
      pm_buf st;
      pm_buf_init(&st);
      if (encode_stats(&w->cols[i], &w->cols[i].stripe, &st) || pm_pbw_bytes(&msg, 1, st.data, st.len)) rc = PM_NOMEM(err);
      pm_buf_free(&st);
    }
    if (rc == 0 && pm_pbw_bytes(&w->stripe_stats, 1, msg.data, msg.len)) rc = PM_NOMEM(err);
    pm_buf_free(&msg);
  }
  pm_buf_free(&sf);
  free(index_lens);
  for (size_t i = 0; positions && i < G * w->n_cols; i++) pm_buf_free(&positions[i]);
  free(positions);
  for (int s = 0; streams && s < n_streams; s++) pm_buf_free(&streams[s].buf);
  free(streams);
  free(col_of);
  free(gstats);
  /* Reset stripe state. */
  for (size_t i = 0; i < w->n_cols; i++) {
    wcol *c = &w->cols[i];
    if (rc == 0) rc = stats_merge(&c->file, &c->stripe, c->kind) ? PM_NOMEM(err) : 0;
    stats_reset(&c->stripe);
    for (size_t g = 0; g < c->group_list.len / sizeof(wstats); g++) stats_reset((wstats *)(void *)c->group_list.data + g);
    c->group_list.len = 0;
    c->present.len = c->ints.len = c->ints2.len = c->bytes.len = c->marks.len = 0;
    c->slots = c->values = 0;
    c->any_null = 0;
  }
  w->stripe_rows = 0;
  w->n_groups = 0;
  return rc;
}

static size_t buffered_bytes(const pm_orc_writer *w) {
  size_t n = 0;
  for (size_t i = 0; i < w->n_cols; i++) {
    const wcol *c = &w->cols[i];
    n += c->present.len + c->ints.len + c->ints2.len + c->bytes.len; /* memory held, bounds the writer */
  }
  return n;
}

int pm_orc_writer_write(pm_orc_writer *w, const struct ArrowArray *batch, pm_error *err) {
  if (w->failed) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: ORC writer failed earlier", w->path);
  wcol *root = &w->cols[0];
  if (!batch || batch->n_children != (int64_t)root->n_children)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: ORC writer: batch has %lld columns, schema %u", w->path,
                     batch ? (long long)batch->n_children : -1LL, root->n_children);
  int64_t done = 0;
  int rc = 0;
  while (rc == 0 && done < batch->length) {
    if (!w->in_group && (rc = mark_group_start(w, err))) break;
    int64_t take = (int64_t)(w->o.row_index_stride - w->group_rows);
    if (take > batch->length - done) take = batch->length - done;
    /* The root struct: one present slot per row, never null. */
    root->slots += (uint64_t)take;
    root->values += (uint64_t)take;
    root->group.count += (uint64_t)take;
    for (uint32_t k = 0; rc == 0 && k < root->n_children; k++)
      rc = append_col(w, root->children[k], batch->children[k], batch->offset + done, take, NULL, err);
    if (rc) break;
    done += take;
    w->group_rows += (uint64_t)take;
    w->stripe_rows += (uint64_t)take;
    w->rows += (uint64_t)take;
    if (w->group_rows >= w->o.row_index_stride) rc = end_group(w, err);
    if (rc == 0 && buffered_bytes(w) >= w->o.stripe_size) rc = flush_stripe(w, err);
  }
  if (rc) w->failed = 1;
  return rc;
}

static int add_type(pm_orc_writer *w, const wcol *c, pm_buf *footer, pm_error *err) {
  pm_buf t, kv;
  pm_buf_init(&t);
  pm_buf_init(&kv);
  int rc = pm_pbw_uint(&t, 1, (uint64_t)c->kind);
  if (!rc && c->n_children) {
    uint64_t ids[4096];
    uint64_t *sub = c->n_children <= 4096 ? ids : malloc(c->n_children * sizeof *sub);
    if (!sub) rc = PAIMON_ERR_NOMEM;
    for (uint32_t i = 0; !rc && i < c->n_children; i++) sub[i] = c->children[i]->id;
    if (!rc) rc = pm_pbw_packed(&t, 2, sub, c->n_children);
    if (sub != ids) free(sub);
  }
  if (!rc && c->kind == PM_ORC_STRUCT)
    for (uint32_t i = 0; !rc && i < c->n_children; i++) rc = pm_pbw_str(&t, 3, c->children[i]->name);
  if (!rc && c->kind == PM_ORC_DECIMAL) rc = pm_pbw_uint(&t, 5, c->precision) || pm_pbw_uint(&t, 6, c->scale);
  if (!rc && (c->kind == PM_ORC_CHAR || c->kind == PM_ORC_VARCHAR)) rc = pm_pbw_uint(&t, 4, c->max_length);
  if (!rc && c->has_field_id) {
    char v[16];
    snprintf(v, sizeof v, "%d", (int)c->field_id);
    rc = pm_pbw_str(&kv, 1, "paimon.id") || pm_pbw_str(&kv, 2, v) || pm_pbw_bytes(&t, 7, kv.data, kv.len);
  }
  if (!rc) rc = pm_pbw_bytes(footer, 4, t.data, t.len);
  pm_buf_free(&t);
  pm_buf_free(&kv);
  return rc ? PM_NOMEM(err) : 0;
}

static int write_tail(pm_orc_writer *w, pm_error *err) {
  pm_buf meta, footer, ps, comp;
  pm_buf_init(&meta);
  pm_buf_init(&footer);
  pm_buf_init(&ps);
  pm_buf_init(&comp);
  int rc = 0;
  uint64_t content_len = pm_out_pos(w->out);
  /* Metadata: the stripe statistics. */
  if (compress_chunks(w, w->stripe_stats.data, w->stripe_stats.len, &meta, err)) rc = err->code;
  if (!rc && (pm_pbw_uint(&footer, 1, 3) || pm_pbw_uint(&footer, 2, content_len) ||
              pm_buf_append(&footer, w->stripes.data, w->stripes.len)))
    rc = PM_NOMEM(err);
  for (size_t i = 0; !rc && i < w->n_cols; i++) rc = add_type(w, &w->cols[i], &footer, err);
  if (!rc && pm_pbw_uint(&footer, 6, w->rows)) rc = PM_NOMEM(err);
  for (size_t i = 0; !rc && i < w->n_cols; i++) {
    pm_buf st;
    pm_buf_init(&st);
    if (encode_stats(&w->cols[i], &w->cols[i].file, &st) || pm_pbw_bytes(&footer, 7, st.data, st.len)) rc = PM_NOMEM(err);
    pm_buf_free(&st);
  }
  /* No writer id (field 9): we follow the Java writer's conventions (writer version 9 = ORC-14). */
  if (!rc && (pm_pbw_uint(&footer, 8, w->o.row_index_stride) || pm_pbw_uint(&footer, 11, 2 /* proleptic */) ||
              pm_pbw_str(&footer, 12, "paimon-c")))
    rc = PM_NOMEM(err);
  if (!rc) rc = compress_chunks(w, footer.data, footer.len, &comp, err);
  int kind = 0;
  switch (w->o.codec) {
    case PM_CODEC_DEFLATE: kind = 1; break;
    case PM_CODEC_SNAPPY: kind = 2; break;
    case PM_CODEC_LZ4_RAW: kind = 4; break;
    case PM_CODEC_ZSTD: kind = 5; break;
    default: kind = 0;
  }
  uint64_t version[2] = {0, 12};
  if (!rc && (pm_pbw_uint(&ps, 1, comp.len) || pm_pbw_uint(&ps, 2, (uint64_t)kind) ||
              pm_pbw_uint(&ps, 3, w->o.compression_block_size) || pm_pbw_packed(&ps, 4, version, 2) ||
              pm_pbw_uint(&ps, 5, meta.len) || pm_pbw_uint(&ps, 6, 9) || pm_pbw_str(&ps, 8000, "ORC")))
    rc = PM_NOMEM(err);
  if (!rc && ps.len > 255) rc = pm_errorf(err, PAIMON_ERR_INTERNAL, "%s: postscript too long", w->path);
  if (!rc) rc = pm_out_write(w->out, meta.data, meta.len, err);
  if (!rc) rc = pm_out_write(w->out, comp.data, comp.len, err);
  if (!rc) rc = pm_out_write(w->out, ps.data, ps.len, err);
  uint8_t psl = (uint8_t)ps.len;
  if (!rc) rc = pm_out_write(w->out, &psl, 1, err);
  pm_buf_free(&meta);
  pm_buf_free(&footer);
  pm_buf_free(&ps);
  pm_buf_free(&comp);
  return rc;
}

int pm_orc_writer_close(pm_orc_writer *w, pm_error *err) { return pm_orc_writer_finish(w, NULL, err); }

int pm_orc_writer_finish(pm_orc_writer *w, uint64_t *file_size, pm_error *err) {
  if (!w) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "ORC writer is NULL");
  int rc = w->failed ? pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: ORC writer failed earlier", w->path) : 0;
  if (!rc) rc = flush_stripe(w, err);
  if (!rc) rc = write_tail(w, err);
  if (!rc && file_size) *file_size = pm_out_pos(w->out);
  if (!rc) {
    rc = pm_out_commit(w->out, w->o.create_if_absent ? PM_OUT_CREATE_IF_ABSENT : 0, err);
    w->out = NULL;
  }
  if (w->out) pm_out_abort(w->out);
  free_writer(w);
  return rc;
}

void pm_orc_writer_abort(pm_orc_writer *w) {
  if (!w) return;
  pm_out_abort(w->out);
  free_writer(w);
}

uint64_t pm_orc_writer_num_rows(const pm_orc_writer *w) { return w->rows; }
uint64_t pm_orc_writer_bytes_written(const pm_orc_writer *w) { return w->out ? pm_out_pos(w->out) : 0; }
uint64_t pm_orc_writer_buffered_bytes(const pm_orc_writer *w) { return buffered_bytes(w); }
