/* Arrow batches -> an Avro data file (types in avro_data.h). The writer
 * schema follows Java Paimon's AvroSchemaConverter: records named
 * "record" (namespace org.apache.paimon.avro.generated) and
 * "<parent>_<field>" below it, nullable types as ["null", T] with default
 * null, maps with string keys as Avro maps, other maps as arrays of
 * {key, value} records with logicalType "map". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/type.h"
#include "format/avro/avro.h"
#include "format/avro/avro_data.h"
#include "util/buf.h"

/* How one node is encoded. */
typedef enum {
  K_BOOL, K_INT8, K_INT16, K_INT32, K_INT64, K_FLOAT, K_DOUBLE, K_STR32, K_STR64, K_DATE, K_TIME, K_TS, K_DEC,
  K_RECORD, K_LIST, K_LIST64, K_FIXED_LIST, K_MAP, K_ARRAY_MAP
} col_kind;

typedef struct wnode {
  col_kind kind;
  int nullable;
  int64_t ts_mul;  /* timestamp seconds -> millis */
  int32_t width;   /* fixed-size list */
  size_t n;        /* children: record fields, list element, map key + value */
  struct wnode *children;
} wnode;

struct pm_avro_data_writer {
  pm_avro_writer *w;
  wnode root;
};

#define AVRO_NS "org.apache.paimon.avro.generated"

static int valid_name(const char *s) {
  if (!s || !*s || !((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_')) return 0;
  for (; *s; s++)
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_')) return 0;
  return 1;
}

static void node_free(wnode *n) {
  for (size_t i = 0; i < n->n; i++) node_free(&n->children[i]);
  free(n->children);
  n->children = NULL;
  n->n = 0;
}

static int put(pm_buf *b, const char *s) { return pm_buf_append(b, s, strlen(s)); }

typedef struct build_ctx {
  const char *path; /* file, for messages */
  pm_buf *js;
  pm_error *err;
} build_ctx;

static int unsupported(build_ctx *c, const char *col, const char *fmt, const char *why) {
  return pm_errorf(c->err, PAIMON_ERR_UNSUPPORTED, "Avro data writer: column \"%s\" of Arrow type \"%s\" %s", col,
                   fmt, why ? why : "is not supported");
}

static int node_build(build_ctx *c, const struct ArrowSchema *f, const char *row_name, const char *col, int depth,
                      wnode *n);

/* Record body of a struct's children. */
static int record_build(build_ctx *c, const struct ArrowSchema *s, const char *row_name, int top, const char *col,
                        int depth, wnode *n) {
  n->kind = K_RECORD;
  n->n = (size_t)s->n_children;
  n->children = calloc(n->n + 1, sizeof *n->children);
  if (!n->children) return PM_NOMEM(c->err);
  if (put(c->js, "{\"type\":\"record\",\"name\":\"") || put(c->js, row_name) ||
      put(c->js, top ? "\",\"namespace\":\"" AVRO_NS "\",\"fields\":[" : "\",\"fields\":["))
    return PM_NOMEM(c->err);
  for (size_t i = 0; i < n->n; i++) {
    const struct ArrowSchema *f = s->children[i];
    if (!valid_name(f->name))
      return pm_errorf(c->err, PAIMON_ERR_UNSUPPORTED, "%s: column name \"%s\" is not a valid Avro name", c->path,
                       f->name ? f->name : "");
    size_t nl = strlen(row_name) + strlen(f->name) + 2;
    char *sub = malloc(nl), *sub_col = malloc(strlen(col) + strlen(f->name) + 2);
    if (!sub || !sub_col) {
      free(sub);
      free(sub_col);
      return PM_NOMEM(c->err);
    }
    snprintf(sub, nl, "%s_%s", row_name, f->name);
    sprintf(sub_col, "%s%s%s", col, *col ? "." : "", f->name);
    int rc = (i && put(c->js, ",")) || put(c->js, "{\"name\":\"") || put(c->js, f->name) || put(c->js, "\",\"type\":")
                 ? PM_NOMEM(c->err)
                 : 0;
    if (!rc) rc = node_build(c, f, sub, sub_col, depth + 1, &n->children[i]);
    if (!rc && n->children[i].nullable && put(c->js, ",\"default\":null")) rc = PM_NOMEM(c->err);
    if (!rc && put(c->js, "}")) rc = PM_NOMEM(c->err);
    free(sub);
    free(sub_col);
    if (rc) return rc;
  }
  return put(c->js, "]}") ? PM_NOMEM(c->err) : 0;
}

/* The Avro type of one node (JSON appended to c->js) and its encoding. */
static int node_build(build_ctx *c, const struct ArrowSchema *f, const char *row_name, const char *col, int depth,
                      wnode *n) {
  if (depth > PM_ARROW_MAX_DEPTH) return unsupported(c, col, f->format ? f->format : "", "is nested too deeply");
  const char *fmt = f->format ? f->format : "";
  n->ts_mul = 1;
  n->nullable = (f->flags & ARROW_FLAG_NULLABLE) != 0;
  if (f->dictionary) return unsupported(c, col, fmt, "is dictionary-encoded");
  if (n->nullable && put(c->js, "[\"null\",")) return PM_NOMEM(c->err);
  char json[160];
  json[0] = 0;
  int p, s;
  char extra;
  int rc = 0;
  if (!strcmp(fmt, "b")) n->kind = K_BOOL, snprintf(json, sizeof json, "\"boolean\"");
  else if (!strcmp(fmt, "c")) n->kind = K_INT8, snprintf(json, sizeof json, "\"int\"");
  else if (!strcmp(fmt, "s")) n->kind = K_INT16, snprintf(json, sizeof json, "\"int\"");
  else if (!strcmp(fmt, "i")) n->kind = K_INT32, snprintf(json, sizeof json, "\"int\"");
  else if (!strcmp(fmt, "l")) n->kind = K_INT64, snprintf(json, sizeof json, "\"long\"");
  else if (!strcmp(fmt, "f")) n->kind = K_FLOAT, snprintf(json, sizeof json, "\"float\"");
  else if (!strcmp(fmt, "g")) n->kind = K_DOUBLE, snprintf(json, sizeof json, "\"double\"");
  else if (!strcmp(fmt, "u")) n->kind = K_STR32, snprintf(json, sizeof json, "\"string\"");
  else if (!strcmp(fmt, "U")) n->kind = K_STR64, snprintf(json, sizeof json, "\"string\"");
  else if (!strcmp(fmt, "z")) n->kind = K_STR32, snprintf(json, sizeof json, "\"bytes\"");
  else if (!strcmp(fmt, "Z")) n->kind = K_STR64, snprintf(json, sizeof json, "\"bytes\"");
  else if (!strcmp(fmt, "tdD")) n->kind = K_DATE, snprintf(json, sizeof json, "{\"type\":\"int\",\"logicalType\":\"date\"}");
  else if (!strcmp(fmt, "ttm"))
    n->kind = K_TIME, snprintf(json, sizeof json, "{\"type\":\"int\",\"logicalType\":\"time-millis\"}");
  else if (!strncmp(fmt, "ts", 2) && fmt[2] && fmt[3] == ':') {
    const char *local = fmt[4] ? "local-" : ""; /* as Java: TIMESTAMP_LTZ is local-timestamp-* */
    if (fmt[2] == 'n') return unsupported(c, col, fmt, "cannot be stored (Avro has no TIMESTAMP with precision > 6)");
    if (fmt[2] != 's' && fmt[2] != 'm' && fmt[2] != 'u') return unsupported(c, col, fmt, NULL);
    if (fmt[2] == 's') n->ts_mul = 1000;
    n->kind = K_TS;
    snprintf(json, sizeof json, "{\"type\":\"long\",\"logicalType\":\"%stimestamp-%s\"}", local,
             fmt[2] == 'u' ? "micros" : "millis");
  } else if (sscanf(fmt, "d:%d,%d%c", &p, &s, &extra) == 2) {
    n->kind = K_DEC;
    snprintf(json, sizeof json, "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":%d,\"scale\":%d}", p, s);
  } else if (!strcmp(fmt, "+s")) {
    rc = record_build(c, f, row_name, 0, col, depth, n);
  } else if (!strcmp(fmt, "+l") || !strcmp(fmt, "+L") || !strncmp(fmt, "+w:", 3)) {
    if (f->n_children != 1) return unsupported(c, col, fmt, "has no element type");
    n->kind = fmt[1] == 'l' ? K_LIST : fmt[1] == 'L' ? K_LIST64 : K_FIXED_LIST;
    if (n->kind == K_FIXED_LIST) n->width = atoi(fmt + 3);
    n->n = 1;
    n->children = calloc(1, sizeof *n->children);
    if (!n->children) return PM_NOMEM(c->err);
    if (put(c->js, "{\"type\":\"array\",\"items\":")) return PM_NOMEM(c->err);
    rc = node_build(c, f->children[0], row_name, col, depth + 1, &n->children[0]);
    if (!rc && put(c->js, "}")) rc = PM_NOMEM(c->err);
  } else if (!strcmp(fmt, "+m")) {
    const struct ArrowSchema *e = f->n_children == 1 ? f->children[0] : NULL;
    if (!e || e->n_children != 2) return unsupported(c, col, fmt, "has no key/value entries");
    const char *kf = e->children[0]->format ? e->children[0]->format : "";
    n->kind = !strcmp(kf, "u") || !strcmp(kf, "U") ? K_MAP : K_ARRAY_MAP;
    n->n = 2;
    n->children = calloc(2, sizeof *n->children);
    if (!n->children) return PM_NOMEM(c->err);
    if (n->kind == K_MAP) {
      /* the key type is not in the Avro schema; built into a scratch buffer to get its encoding */
      pm_buf scratch;
      pm_buf_init(&scratch);
      build_ctx kc = {c->path, &scratch, c->err};
      rc = node_build(&kc, e->children[0], row_name, col, depth + 1, &n->children[0]);
      pm_buf_free(&scratch);
      if (!rc && put(c->js, "{\"type\":\"map\",\"values\":")) rc = PM_NOMEM(c->err);
      if (!rc) rc = node_build(c, e->children[1], row_name, col, depth + 1, &n->children[1]);
      if (!rc && put(c->js, "}")) rc = PM_NOMEM(c->err);
    } else {
      size_t nl = strlen(row_name) + 8;
      char *kn = malloc(nl), *vn = malloc(nl);
      if (!kn || !vn) rc = PM_NOMEM(c->err);
      if (!rc) {
        snprintf(kn, nl, "%s_key", row_name);
        snprintf(vn, nl, "%s_value", row_name);
        if (put(c->js, "{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"") || put(c->js, row_name) ||
            put(c->js, "\",\"fields\":[{\"name\":\"key\",\"type\":"))
          rc = PM_NOMEM(c->err);
      }
      if (!rc) rc = node_build(c, e->children[0], kn, col, depth + 1, &n->children[0]);
      if (!rc && put(c->js, "},{\"name\":\"value\",\"type\":")) rc = PM_NOMEM(c->err);
      if (!rc) rc = node_build(c, e->children[1], vn, col, depth + 1, &n->children[1]);
      if (!rc && n->children[1].nullable && put(c->js, ",\"default\":null")) rc = PM_NOMEM(c->err);
      if (!rc && put(c->js, "}]},\"logicalType\":\"map\"}")) rc = PM_NOMEM(c->err);
      free(kn);
      free(vn);
    }
  } else {
    return unsupported(c, col, fmt, NULL);
  }
  if (rc) return rc;
  if (json[0] && put(c->js, json)) return PM_NOMEM(c->err);
  if (n->nullable && put(c->js, "]")) return PM_NOMEM(c->err);
  return 0;
}

/* Validates the schema and builds the writer schema JSON, then writes to sink, or (sink NULL)
 * to a new sink for path; the sink is owned from the call on. */
static int open_writer(pm_out_file *sink, const char *path, const struct ArrowSchema *schema, int codec, int level,
                       pm_avro_data_writer **out, pm_error *err) {
  *out = NULL;
  if (sink) path = pm_out_path(sink);
  pm_avro_data_writer *w = calloc(1, sizeof *w);
  pm_buf js;
  pm_buf_init(&js);
  int rc = w ? 0 : PM_NOMEM(err);
  if (!rc && (!schema->format || strcmp(schema->format, "+s")))
    rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: Avro data writer: the schema must be a struct", path);
  build_ctx c = {path ? path : "?", &js, err};
  if (!rc) rc = record_build(&c, schema, "record", 1, "", 0, &w->root);
  if (!rc && pm_buf_push_u8(&js, 0)) rc = PM_NOMEM(err);
  pm_avro_writer_options o;
  memset(&o, 0, sizeof o);
  o.codec = (pm_codec)codec;
  o.level = level;
  if (!rc && !sink) rc = pm_out_open(path, &sink, err);
  if (!rc) rc = pm_avro_writer_open_sink(sink, (const char *)js.data, &o, &w->w, err); /* takes sink */
  else pm_out_abort(sink);
  pm_buf_free(&js);
  if (rc) {
    if (w) node_free(&w->root);
    free(w);
    return rc;
  }
  *out = w;
  return 0;
}

int pm_avro_data_writer_open(const char *path, const struct ArrowSchema *schema, int codec, int level,
                             pm_avro_data_writer **out, pm_error *err) {
  return open_writer(NULL, path, schema, codec, level, out, err);
}

int pm_avro_data_writer_open_sink(pm_out_file *sink, const struct ArrowSchema *schema, int codec, int level,
                                  pm_avro_data_writer **out, pm_error *err) {
  return open_writer(sink, NULL, schema, codec, level, out, err);
}

/* Unscaled 128-bit little-endian decimal -> minimal big-endian two's complement (as BigInteger.toByteArray). */
static void put_decimal(pm_avro_encoder *e, const uint8_t *le) {
  uint8_t be[16];
  for (int j = 0; j < 16; j++) be[j] = le[15 - j];
  int k = 0;
  while (k < 15 && ((be[k] == 0x00 && !(be[k + 1] & 0x80)) || (be[k] == 0xff && (be[k + 1] & 0x80)))) k++;
  pm_avro_put_bytes(e, be + k, (size_t)(16 - k));
}

static int encode(pm_avro_encoder *e, const wnode *n, const struct ArrowArray *a, int64_t i, pm_error *err);

/* Value i (logical, offset not applied) of a, with its union branch when nullable. */
static int encode_slot(pm_avro_encoder *e, const wnode *n, const struct ArrowArray *a, int64_t i, pm_error *err) {
  int valid = pm_array_is_valid(a, i);
  if (n->nullable) {
    pm_avro_put_union(e, valid ? 1 : 0);
    if (!valid) return 0;
  } else if (!valid) {
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "Avro data writer: null in a NOT NULL field (value %lld)",
                     (long long)i);
  }
  return encode(e, n, a, i, err);
}

static int encode(pm_avro_encoder *e, const wnode *n, const struct ArrowArray *a, int64_t i, pm_error *err) {
  int64_t k = a->offset + i;
  const void *d = a->n_buffers > 1 ? a->buffers[1] : NULL;
  switch (n->kind) {
    case K_BOOL: pm_avro_put_boolean(e, (((const uint8_t *)d)[k >> 3] >> (k & 7)) & 1); return 0;
    case K_INT8: pm_avro_put_int(e, ((const int8_t *)d)[k]); return 0;
    case K_INT16: pm_avro_put_int(e, ((const int16_t *)d)[k]); return 0;
    case K_INT32:
    case K_DATE:
    case K_TIME: pm_avro_put_int(e, ((const int32_t *)d)[k]); return 0;
    case K_INT64: pm_avro_put_long(e, ((const int64_t *)d)[k]); return 0;
    case K_TS: pm_avro_put_long(e, (int64_t)((uint64_t)((const int64_t *)d)[k] * (uint64_t)n->ts_mul)); return 0;
    case K_FLOAT: pm_avro_put_float(e, ((const float *)d)[k]); return 0;
    case K_DOUBLE: pm_avro_put_double(e, ((const double *)d)[k]); return 0;
    case K_STR32: {
      const int32_t *o = d;
      pm_avro_put_bytes(e, (const uint8_t *)a->buffers[2] + o[k], (size_t)(o[k + 1] - o[k]));
      return 0;
    }
    case K_STR64: {
      const int64_t *o = d;
      pm_avro_put_bytes(e, (const uint8_t *)a->buffers[2] + o[k], (size_t)(o[k + 1] - o[k]));
      return 0;
    }
    case K_DEC: put_decimal(e, (const uint8_t *)d + 16 * k); return 0;
    case K_RECORD:
      for (size_t f = 0; f < n->n; f++) PM_TRY(encode_slot(e, &n->children[f], a->children[f], k, err));
      return 0;
    case K_LIST:
    case K_LIST64:
    case K_FIXED_LIST: {
      int64_t s0, s1;
      if (n->kind == K_LIST) s0 = ((const int32_t *)d)[k], s1 = ((const int32_t *)d)[k + 1];
      else if (n->kind == K_LIST64) s0 = ((const int64_t *)d)[k], s1 = ((const int64_t *)d)[k + 1];
      else s0 = k * n->width, s1 = s0 + n->width;
      if (s1 > s0) {
        pm_avro_put_block_count(e, s1 - s0);
        for (int64_t j = s0; j < s1; j++) PM_TRY(encode_slot(e, &n->children[0], a->children[0], j, err));
      }
      pm_avro_put_block_end(e);
      return 0;
    }
    case K_MAP:
    case K_ARRAY_MAP: {
      const int32_t *o = d;
      int64_t s0 = o[k], s1 = o[k + 1];
      const struct ArrowArray *ent = a->children[0];
      if (s1 > s0) {
        pm_avro_put_block_count(e, s1 - s0);
        for (int64_t j = s0; j < s1; j++) {
          int64_t ej = ent->offset + j;
          if (n->kind == K_MAP) {
            if (!pm_array_is_valid(ent->children[0], ej))
              return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "Avro data writer: null map key");
            PM_TRY(encode(e, &n->children[0], ent->children[0], ej, err));
          } else {
            PM_TRY(encode_slot(e, &n->children[0], ent->children[0], ej, err));
          }
          PM_TRY(encode_slot(e, &n->children[1], ent->children[1], ej, err));
        }
      }
      pm_avro_put_block_end(e);
      return 0;
    }
  }
  return 0;
}

int pm_avro_data_writer_write(pm_avro_data_writer *w, const struct ArrowArray *batch, pm_error *err) {
  if ((size_t)batch->n_children != w->root.n)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "batch of %lld columns for %zu Avro fields",
                     (long long)batch->n_children, w->root.n);
  for (int64_t r = 0; r < batch->length; r++) {
    pm_avro_encoder *e = pm_avro_writer_encoder(w->w);
    for (size_t f = 0; f < w->root.n; f++) {
      int rc = encode_slot(e, &w->root.children[f], batch->children[f], batch->offset + r, err);
      if (rc) return pm_error_prefix(err, "column %zu, row %lld: ", f, (long long)r);
    }
    PM_TRY(pm_avro_writer_end_record(w->w, err));
  }
  return 0;
}

int pm_avro_data_writer_close(pm_avro_data_writer *w, uint64_t *file_size, pm_error *err) {
  int rc = pm_avro_writer_commit(w->w, file_size, err);
  node_free(&w->root);
  free(w);
  return rc;
}

void pm_avro_data_writer_abort(pm_avro_data_writer *w) {
  if (!w) return;
  pm_avro_writer_abort(w->w);
  node_free(&w->root);
  free(w);
}
