/* Arrow batches -> an Avro data file (types in avro_data.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/type.h"
#include "format/avro/avro.h"
#include "format/avro/avro_data.h"
#include "util/buf.h"

/* How one column is encoded. */
typedef enum { K_BOOL, K_INT8, K_INT16, K_INT32, K_INT64, K_FLOAT, K_DOUBLE, K_STR32, K_STR64, K_DATE, K_TS, K_DEC } col_kind;

typedef struct wcol {
  col_kind kind;
  int nullable;
  int64_t ts_mul; /* timestamp seconds -> millis */
} wcol;

struct pm_avro_data_writer {
  pm_avro_writer *w;
  wcol *cols;
  size_t n;
};

static int valid_name(const char *s) {
  if (!s || !*s || !((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_')) return 0;
  for (; *s; s++)
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_')) return 0;
  return 1;
}

static int put(pm_buf *b, const char *s) { return pm_buf_append(b, s, strlen(s)); }

/* The Avro type of one column (JSON) and its encoding. */
static int column_type(const struct ArrowSchema *f, wcol *c, char *json, size_t cap, pm_error *err) {
  const char *fmt = f->format ? f->format : "";
  c->ts_mul = 1;
  int p, s;
  char extra;
  if (!strcmp(fmt, "b")) c->kind = K_BOOL, snprintf(json, cap, "\"boolean\"");
  else if (!strcmp(fmt, "c")) c->kind = K_INT8, snprintf(json, cap, "\"int\"");
  else if (!strcmp(fmt, "s")) c->kind = K_INT16, snprintf(json, cap, "\"int\"");
  else if (!strcmp(fmt, "i")) c->kind = K_INT32, snprintf(json, cap, "\"int\"");
  else if (!strcmp(fmt, "l")) c->kind = K_INT64, snprintf(json, cap, "\"long\"");
  else if (!strcmp(fmt, "f")) c->kind = K_FLOAT, snprintf(json, cap, "\"float\"");
  else if (!strcmp(fmt, "g")) c->kind = K_DOUBLE, snprintf(json, cap, "\"double\"");
  else if (!strcmp(fmt, "u")) c->kind = K_STR32, snprintf(json, cap, "\"string\"");
  else if (!strcmp(fmt, "U")) c->kind = K_STR64, snprintf(json, cap, "\"string\"");
  else if (!strcmp(fmt, "z")) c->kind = K_STR32, snprintf(json, cap, "\"bytes\"");
  else if (!strcmp(fmt, "Z")) c->kind = K_STR64, snprintf(json, cap, "\"bytes\"");
  else if (!strcmp(fmt, "tdD")) c->kind = K_DATE, snprintf(json, cap, "{\"type\":\"int\",\"logicalType\":\"date\"}");
  else if (!strncmp(fmt, "ts", 2) && fmt[2] && fmt[3] == ':') {
    const char *local = fmt[4] ? "local-" : ""; /* as Java: TIMESTAMP_LTZ is local-timestamp-* */
    const char *unit = fmt[2] == 'u' ? "micros" : fmt[2] == 'n' ? "nanos" : "millis";
    if (fmt[2] == 's') c->ts_mul = 1000;
    else if (fmt[2] != 'm' && fmt[2] != 'u' && fmt[2] != 'n') goto unsupported;
    c->kind = K_TS;
    snprintf(json, cap, "{\"type\":\"long\",\"logicalType\":\"%stimestamp-%s\"}", local, unit);
  } else if (sscanf(fmt, "d:%d,%d%c", &p, &s, &extra) == 2) {
    c->kind = K_DEC;
    snprintf(json, cap, "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":%d,\"scale\":%d}", p, s);
  } else {
    goto unsupported;
  }
  c->nullable = (f->flags & ARROW_FLAG_NULLABLE) != 0;
  return 0;
unsupported:
  return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "Avro data writer: column \"%s\" of Arrow type \"%s\" is not supported",
                   f->name ? f->name : "", fmt);
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
  if (!rc) {
    w->n = (size_t)schema->n_children;
    w->cols = calloc(w->n + 1, sizeof *w->cols);
    if (!w->cols) rc = PM_NOMEM(err);
  }
  if (!rc && put(&js, "{\"type\":\"record\",\"name\":\"record\",\"namespace\":\"org.apache.paimon.avro.generated\",\"fields\":["))
    rc = PM_NOMEM(err);
  for (size_t i = 0; !rc && i < w->n; i++) {
    const struct ArrowSchema *f = schema->children[i];
    if (!valid_name(f->name)) {
      rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: column name \"%s\" is not a valid Avro name", path,
                     f->name ? f->name : "");
      break;
    }
    char type[160], field[400];
    rc = column_type(f, &w->cols[i], type, sizeof type, err);
    if (rc) break;
    if (w->cols[i].nullable)
      snprintf(field, sizeof field, "%s{\"name\":\"%s\",\"type\":[\"null\",%s],\"default\":null}", i ? "," : "",
               f->name, type);
    else
      snprintf(field, sizeof field, "%s{\"name\":\"%s\",\"type\":%s}", i ? "," : "", f->name, type);
    if (put(&js, field)) rc = PM_NOMEM(err);
  }
  if (!rc && (put(&js, "]}") || pm_buf_push_u8(&js, 0))) rc = PM_NOMEM(err);
  pm_avro_writer_options o;
  memset(&o, 0, sizeof o);
  o.codec = (pm_codec)codec;
  o.level = level;
  if (!rc && !sink) rc = pm_out_open(path, &sink, err);
  if (!rc) rc = pm_avro_writer_open_sink(sink, (const char *)js.data, &o, &w->w, err); /* takes sink */
  else pm_out_abort(sink);
  pm_buf_free(&js);
  if (rc) {
    if (w) free(w->cols);
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

static void encode(pm_avro_encoder *e, const wcol *c, const struct ArrowArray *a, int64_t i) {
  int64_t k = a->offset + i;
  const void *d = a->buffers[1];
  switch (c->kind) {
    case K_BOOL: pm_avro_put_boolean(e, (((const uint8_t *)d)[k >> 3] >> (k & 7)) & 1); break;
    case K_INT8: pm_avro_put_int(e, ((const int8_t *)d)[k]); break;
    case K_INT16: pm_avro_put_int(e, ((const int16_t *)d)[k]); break;
    case K_INT32:
    case K_DATE: pm_avro_put_int(e, ((const int32_t *)d)[k]); break;
    case K_INT64: pm_avro_put_long(e, ((const int64_t *)d)[k]); break;
    case K_TS: pm_avro_put_long(e, ((const int64_t *)d)[k] * c->ts_mul); break;
    case K_FLOAT: pm_avro_put_float(e, ((const float *)d)[k]); break;
    case K_DOUBLE: pm_avro_put_double(e, ((const double *)d)[k]); break;
    case K_STR32: {
      const int32_t *o = d;
      pm_avro_put_bytes(e, (const uint8_t *)a->buffers[2] + o[k], (size_t)(o[k + 1] - o[k]));
      break;
    }
    case K_STR64: {
      const int64_t *o = d;
      pm_avro_put_bytes(e, (const uint8_t *)a->buffers[2] + o[k], (size_t)(o[k + 1] - o[k]));
      break;
    }
    case K_DEC: { /* little-endian 16 bytes -> big-endian two's complement */
      const uint8_t *le = (const uint8_t *)d + 16 * k;
      uint8_t be[16];
      for (int j = 0; j < 16; j++) be[j] = le[15 - j];
      pm_avro_put_bytes(e, be, 16);
      break;
    }
  }
}

int pm_avro_data_writer_write(pm_avro_data_writer *w, const struct ArrowArray *batch, pm_error *err) {
  if ((size_t)batch->n_children != w->n)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "batch of %lld columns for %zu Avro fields",
                     (long long)batch->n_children, w->n);
  for (int64_t r = 0; r < batch->length; r++) {
    pm_avro_encoder *e = pm_avro_writer_encoder(w->w);
    for (size_t f = 0; f < w->n; f++) {
      const struct ArrowArray *a = batch->children[f];
      int valid = pm_array_is_valid(a, r);
      if (w->cols[f].nullable) {
        pm_avro_put_union(e, valid ? 1 : 0);
        if (!valid) continue;
      } else if (!valid) {
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "Avro data writer: null in NOT NULL column %zu, row %lld", f,
                         (long long)r);
      }
      encode(e, &w->cols[f], a, r);
    }
    PM_TRY(pm_avro_writer_end_record(w->w, err));
  }
  return 0;
}

int pm_avro_data_writer_close(pm_avro_data_writer *w, uint64_t *file_size, pm_error *err) {
  int rc = pm_avro_writer_commit(w->w, file_size, err);
  free(w->cols);
  free(w);
  return rc;
}

void pm_avro_data_writer_abort(pm_avro_data_writer *w) {
  if (!w) return;
  pm_avro_writer_abort(w->w);
  free(w->cols);
  free(w);
}
