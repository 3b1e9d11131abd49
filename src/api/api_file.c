/* Public C API: single Parquet / ORC / Avro files as Arrow streams (include/paimon/file.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arrow/arrow.h"
#include "arrow/stream.h"
#include "format/avro/avro.h"
#include "format/avro/avro_data.h"
#include "format/format.h"
#include "format/orc/orc_reader.h"
#include "format/parquet/parquet_reader.h"
#include "format/parquet/parquet_writer.h"
#include "io/file.h"
#include "paimon/file.h"
#include "api/api_internal.h"

enum { F_PARQUET = PM_API_FILE_PARQUET, F_ORC = PM_API_FILE_ORC, F_AVRO = PM_API_FILE_AVRO };

void paimon_file_read_options_init(paimon_file_read_options *o) {
  if (!o) return;
  memset(o, 0, sizeof *o);
  o->limit = -1;
}

void paimon_file_write_options_init(paimon_file_write_options *o) {
  if (o) memset(o, 0, sizeof *o);
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && !strcasecmp(s + n - m, suffix);
}

int pm_api_file_kind(const char *path, const char *format, int *kind, pm_error *err) {
  if (format) {
    if (!strcasecmp(format, "parquet")) *kind = F_PARQUET;
    else if (!strcasecmp(format, "orc")) *kind = F_ORC;
    else if (!strcasecmp(format, "avro")) *kind = F_AVRO;
    else return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: unknown file format '%s' (parquet, orc or avro)", path, format);
    return 0;
  }
  if (ends_with(path, ".parquet")) *kind = F_PARQUET;
  else if (ends_with(path, ".orc")) *kind = F_ORC;
  else if (ends_with(path, ".avro")) *kind = F_AVRO;
  else
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "%s: cannot tell the format from the file name (give parquet, orc or avro)", path);
  return 0;
}

/* ---- Avro: Arrow types from the writer schema ---- */

/* Arrow format of a primitive Avro field (after unwrapping ["null", T]), or NULL. */
static const char *avro_arrow_format(const pm_avro_schema *s, char *buf, size_t cap) {
  const char *lt = s->logical_type ? s->logical_type : "";
  switch (s->type) {
    case PM_AVRO_BOOLEAN: return "b";
    case PM_AVRO_INT:
      if (!strcmp(lt, "date")) return "tdD";
      if (!strcmp(lt, "time-millis")) return "ttm";
      return "i";
    case PM_AVRO_LONG:
      if (!strcmp(lt, "timestamp-millis")) return "tsm:";
      if (!strcmp(lt, "timestamp-micros")) return "tsu:";
      if (!strcmp(lt, "local-timestamp-millis")) return "tsm:UTC";
      if (!strcmp(lt, "local-timestamp-micros")) return "tsu:UTC";
      return "l";
    case PM_AVRO_FLOAT: return "f";
    case PM_AVRO_DOUBLE: return "g";
    case PM_AVRO_STRING: return "u";
    case PM_AVRO_BYTES:
      if (!strcmp(lt, "decimal")) {
        snprintf(buf, cap, "d:%d,%d", (int)s->precision, (int)s->scale);
        return buf;
      }
      return "z";
    default: return NULL;
  }
}

static int selected(const paimon_file_read_options *o, const char *name) {
  if (!o || !o->columns) return 1;
  for (size_t i = 0; i < o->n_columns; i++)
    if (o->columns[i] && !strcmp(o->columns[i], name)) return 1;
  return 0;
}

/* The Arrow data schema typing the selected fields (field ids = position + 1), and those ids. */
static int avro_data_schema(const char *path, const paimon_file_read_options *o, struct ArrowSchema *ds,
                            int32_t **ids, size_t *n_ids, pm_error *err) {
  memset(ds, 0, sizeof *ds);
  *ids = NULL;
  *n_ids = 0;
  pm_avro_reader *r = NULL;
  PM_TRY(pm_avro_reader_open_path(path, &r, err));
  const pm_avro_schema *root = pm_avro_unwrap_nullable(pm_avro_reader_schema(r), NULL);
  int rc = 0;
  if (root->type != PM_AVRO_RECORD)
    rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: the file holds %s values, not records", path,
                   pm_avro_type_name(root->type));
  for (size_t i = 0; !rc && o && o->columns && i < o->n_columns; i++)
    if (!o->columns[i] || pm_avro_field_index(root, o->columns[i]) < 0)
      rc = pm_errorf(err, PAIMON_ERR_NOT_FOUND, "%s: the records have no field '%s'", path,
                     o->columns[i] ? o->columns[i] : "(null)");
  size_t nf = rc ? 0 : root->field_count, n_sel = 0;
  for (size_t i = 0; !rc && i < nf; i++) {
    const pm_avro_field *f = &root->fields[i];
    const pm_avro_schema *t = pm_avro_unwrap_nullable(f->type, NULL);
    char buf[32];
    if (!selected(o, f->name)) continue;
    if (!avro_arrow_format(t, buf, sizeof buf))
      rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: field '%s' of Avro type %s cannot be read as an Arrow column",
                     path, f->name, pm_avro_type_name(t->type));
    n_sel++;
  }
  if (!rc) rc = pm_schema_init(ds, "+s", "", 0, (int64_t)n_sel, err);
  if (!rc && !(*ids = malloc((n_sel + 1) * sizeof **ids))) rc = PM_NOMEM(err);
  size_t kept = 0;
  for (size_t i = 0; !rc && i < nf; i++) {
    const pm_avro_field *f = &root->fields[i];
    int32_t nb;
    const pm_avro_schema *t = pm_avro_unwrap_nullable(f->type, &nb);
    char buf[32];
    if (!selected(o, f->name)) continue;
    struct ArrowSchema *c = ds->children[kept];
    rc = pm_schema_init(c, avro_arrow_format(t, buf, sizeof buf), f->name, nb >= 0 ? ARROW_FLAG_NULLABLE : 0, 0, err);
    char id[24];
    snprintf(id, sizeof id, "%zu", kept + 1);
    const char *k[1] = {"PARQUET:field_id"}, *v[1] = {id};
    if (!rc) rc = pm_schema_set_metadata(c, 1, k, v, err);
    if (!rc) (*ids)[kept] = (int32_t)(kept + 1);
    kept++;
  }
  *n_ids = kept;
  pm_avro_reader_close(r);
  if (rc) {
    if (ds->release) ds->release(ds);
    free(*ids);
    *ids = NULL;
  }
  return rc;
}

/* ---- reading ---- */

typedef struct file_stream {
  int kind;
  pm_pq_reader *pq;
  pm_orc_reader *orc;
  pm_file *orc_file;
  pm_format_reader *avro;
  int64_t limit, emitted;
} file_stream;

static void fs_free(void *st) {
  file_stream *s = st;
  if (!s) return;
  pm_pq_reader_close(s->pq);
  pm_orc_reader_close(s->orc);
  pm_file_close(s->orc_file);
  pm_format_reader_close(s->avro);
  free(s);
}

static int fs_schema(void *st, struct ArrowSchema *out, pm_error *err) {
  file_stream *s = st;
  if (s->pq) return pm_pq_reader_schema(s->pq, out, err);
  if (s->orc) return pm_orc_reader_schema(s->orc, out, err);
  return pm_format_reader_schema(s->avro, out, err);
}

static int fs_next(void *st, struct ArrowArray *out, pm_error *err) {
  file_stream *s = st;
  memset(out, 0, sizeof *out);
  if (s->limit >= 0 && s->emitted >= s->limit) return 0;
  int rc = s->pq ? pm_pq_reader_next(s->pq, out, err)
           : s->orc ? pm_orc_reader_next(s->orc, out, err)
                    : pm_format_reader_next(s->avro, out, err);
  if (rc || !out->release) return rc;
  if (s->limit >= 0 && out->length > s->limit - s->emitted) out->length = s->limit - s->emitted; /* a prefix */
  s->emitted += out->length;
  return 0;
}

static int open_stream(const char *path, const paimon_file_read_options *o, struct ArrowArrayStream *out,
                       pm_error *err) {
  int kind = F_PARQUET;
  PM_TRY(pm_api_file_kind(path, o ? o->format : NULL, &kind, err));
  file_stream *s = calloc(1, sizeof *s);
  if (!s) return PM_NOMEM(err);
  s->kind = kind;
  s->limit = o && o->limit >= 0 ? o->limit : -1;
  int64_t batch = o && o->batch_rows > 0 ? o->batch_rows : 0;
  int64_t range[2] = {0, s->limit};
  int rc = 0;
  if (kind == F_PARQUET) {
    pm_pq_read_options po;
    pm_pq_read_options_init(&po);
    if (o && o->columns) po.columns = o->columns, po.n_columns = o->n_columns;
    po.string_view = o ? o->string_view : 0;
    if (batch) po.batch_rows = batch;
    pm_pq_row_range rr = {0, s->limit};
    if (s->limit >= 0) {
      po.row_ranges = &rr;
      po.n_row_ranges = 1;
      if (!batch && s->limit > 0 && s->limit < 65536) po.batch_rows = s->limit;
    }
    rc = pm_pq_reader_open_path(path, &po, &s->pq, err);
  } else if (kind == F_ORC) {
    pm_orc_read_options ro;
    pm_orc_read_options_init(&ro);
    if (o && o->columns) ro.columns = o->columns, ro.n_columns = o->n_columns;
    if (batch) ro.batch_size = batch;
    if (s->limit >= 0) ro.row_ranges = range, ro.n_row_ranges = 1;
    rc = pm_file_open(path, &s->orc_file, err);
    if (!rc) rc = pm_orc_reader_open(s->orc_file, &ro, &s->orc, err);
  } else {
    struct ArrowSchema ds;
    int32_t *ids = NULL;
    size_t n_ids = 0;
    rc = avro_data_schema(path, o, &ds, &ids, &n_ids, err);
    pm_file *f = NULL;
    if (!rc) rc = pm_file_open(path, &f, err);
    if (!rc) {
      pm_format_read_options fo;
      pm_format_read_options_init(&fo);
      fo.data_schema = &ds;
      fo.field_ids = ids;
      fo.n_field_ids = n_ids;
      fo.batch_rows = batch;
      if (s->limit >= 0) fo.row_ranges = range, fo.n_row_ranges = 1;
      rc = pm_format_reader_open(pm_format_by_name("avro"), f, &fo, &s->avro, err); /* takes f */
    }
    if (ds.release) ds.release(&ds);
    free(ids);
  }
  if (rc) {
    fs_free(s);
    return rc;
  }
  static const pm_stream_callbacks cb = {fs_schema, fs_next, fs_free};
  return pm_stream_init(out, &cb, s, err);
}

paimon_status paimon_file_open(const char *path, const paimon_file_read_options *o, struct ArrowArrayStream *out,
                               paimon_error *err) {
  if (!path || !out) return (paimon_status)pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "paimon_file_open: NULL argument");
  memset(out, 0, sizeof *out);
  return (paimon_status)open_stream(path, o, out, err);
}

paimon_status paimon_file_arrow_schema(const char *path, const char *format, struct ArrowSchema *out,
                                       paimon_error *err) {
  if (!path || !out)
    return (paimon_status)pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "paimon_file_arrow_schema: NULL argument");
  memset(out, 0, sizeof *out);
  paimon_file_read_options o;
  paimon_file_read_options_init(&o);
  o.format = format;
  struct ArrowArrayStream s;
  memset(&s, 0, sizeof s);
  int rc = open_stream(path, &o, &s, err);
  if (!rc) rc = pm_stream_get_schema(&s, out, err);
  if (s.release) s.release(&s);
  return (paimon_status)rc;
}

/* ---- writing ---- */

/* Parquet: the writer itself, for the page options and the row group count
 * (the same options as the format interface's Parquet writer otherwise). */
static int write_parquet(const char *path, const paimon_file_write_options *o, struct ArrowSchema *schema,
                         struct ArrowArrayStream *in, paimon_file_write_result *res, pm_error *err) {
  pm_pq_write_options wo;
  pm_pq_write_options_default(&wo);
  int codec;
  PM_TRY(pm_fmt_codec(o ? o->compression : NULL, &codec, err));
  wo.codec = (pm_codec)codec;
  if (o) {
    wo.codec_level = o->compression_level;
    if (o->row_group_rows > 0) wo.row_group_rows = (uint64_t)o->row_group_rows;
    if (o->row_group_bytes > 0) wo.row_group_bytes = (uint64_t)o->row_group_bytes;
    if (o->page_rows > 0) wo.page_rows = (uint64_t)o->page_rows;
    if (o->page_bytes > 0) wo.page_bytes = (uint64_t)o->page_bytes;
    if (o->no_dictionary) wo.dictionary = 0;
    if (o->data_page_v2) wo.data_page_v2 = 1;
    if (o->no_page_crc) wo.page_crc = 0;
  }
  pm_pq_writer *w = NULL;
  int rc = pm_pq_writer_open(path, schema, &wo, &w, err);
  while (!rc) {
    struct ArrowArray a;
    rc = pm_stream_get_next(in, &a, err);
    if (rc || !a.release) break;
    rc = pm_pq_writer_write(w, &a, err);
    a.release(&a);
  }
  if (!rc) rc = pm_pq_writer_close(w, err);
  if (!rc) {
    const pm_pq_write_result *r = pm_pq_writer_result(w);
    res->rows = r->num_rows;
    res->row_groups = r->num_row_groups;
    res->file_size = (int64_t)r->file_size;
  }
  pm_pq_writer_free(w); /* discards the file unless closed successfully */
  return rc;
}

paimon_status paimon_file_write_with_result(const char *path, const paimon_file_write_options *o,
                                            struct ArrowArrayStream *in, paimon_file_write_result *out,
                                            paimon_error *err) {
  paimon_file_write_result res = {0, 0, 0};
  if (out) *out = res;
  if (!path || !in || !in->release) {
    if (in && in->release) in->release(in);
    return (paimon_status)pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "paimon_file_write: NULL argument or released stream");
  }
  const char *fname = o && o->format ? o->format : "parquet";
  const pm_format *f = pm_format_by_name(fname);
  int rc = 0;
  if (!f || !strcasecmp(fname, "blob"))
    rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: unknown file format '%s' (parquet, orc or avro)", path, fname);
  pm_format_write_options wo;
  pm_format_write_options_init(&wo);
  if (o) {
    wo.compression = o->compression;
    wo.compression_level = o->compression_level;
    if (o->row_group_rows < 0 || o->row_group_bytes < 0 || o->page_rows < 0 || o->page_bytes < 0)
      rc = rc ? rc : pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: negative row group or page size", path);
    wo.row_group_rows = (uint64_t)(o->row_group_rows > 0 ? o->row_group_rows : 0);
    wo.row_group_bytes = (uint64_t)(o->row_group_bytes > 0 ? o->row_group_bytes : 0);
  }
  struct ArrowSchema schema;
  memset(&schema, 0, sizeof schema);
  if (!rc) rc = pm_stream_get_schema(in, &schema, err);
  if (!rc && !strcasecmp(fname, "parquet")) {
    rc = write_parquet(path, o, &schema, in, &res, err);
  } else if (!rc) {
    pm_format_writer *w = NULL;
    rc = pm_format_writer_open_path(f, path, &schema, &wo, &w, err);
    while (!rc) {
      struct ArrowArray a;
      rc = pm_stream_get_next(in, &a, err);
      if (rc || !a.release) break;
      rc = pm_format_writer_write(w, &a, err);
      a.release(&a);
    }
    if (w && rc) pm_format_writer_abort(w);
    else if (w) {
      pm_format_write_result wr;
      rc = pm_format_writer_close(w, &wr, err);
      if (!rc) {
        res.rows = wr.row_count;
        res.file_size = (int64_t)wr.file_size;
        pm_format_write_result_free(&wr);
      }
    }
  }
  if (schema.release) schema.release(&schema);
  in->release(in);
  if (!rc && out) *out = res;
  return (paimon_status)rc;
}

paimon_status paimon_file_write(const char *path, const paimon_file_write_options *o, struct ArrowArrayStream *in,
                                int64_t *rows, paimon_error *err) {
  paimon_file_write_result res;
  paimon_status st = paimon_file_write_with_result(path, o, in, &res, err);
  if (rows) *rows = st ? 0 : res.rows;
  return st;
}
