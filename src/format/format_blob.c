/* The "blob" entry of the format registry: one BLOB column per file (format/blob/blob.h). */
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow.h"
#include "format/blob/blob.h"
#include "format/format_internal.h"

static int32_t id_of(const struct ArrowSchema *f) {
  char *v = pm_schema_metadata_get(f, "PARQUET:field_id");
  int32_t id = v ? (int32_t)strtol(v, NULL, 10) : -1;
  free(v);
  return id;
}

/* The column's name and id come from data_schema's single child. */
static int blob_open(pm_file *file, const pm_format_read_options *o, void **state, pm_error *err) {
  *state = NULL;
  const struct ArrowSchema *ds = o->data_schema;
  if (!ds || ds->n_children != 1) {
    int rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: a blob file needs a data schema of one column",
                       pm_file_path(file) ? pm_file_path(file) : "(memory)");
    pm_file_close(file);
    return rc;
  }
  pm_blob_reader *r = NULL;
  int rc = pm_blob_reader_open(file, ds->children[0]->name, id_of(ds->children[0]), o->batch_rows, &r, err);
  if (!rc)
    pm_blob_reader_set_coalesce(r, o->coalesce_max_gap, o->coalesce_max_block ? o->coalesce_max_block : 1);
  *state = r;
  return rc;
}

static int blob_schema(void *st, struct ArrowSchema *out, pm_error *err) { return pm_blob_reader_schema(st, out, err); }
static int blob_next(void *st, struct ArrowArray *out, pm_error *err) { return pm_blob_reader_next(st, out, err); }
static void blob_close(void *st) { pm_blob_reader_close(st); }

typedef struct blob_wstate {
  pm_blob_writer *w;
  char *format;
} blob_wstate;

static int blob_writer_open(pm_out_file *sink, const struct ArrowSchema *schema, const pm_format_write_options *o,
                            void **state, pm_error *err) {
  (void)o;
  *state = NULL;
  const char *path = pm_out_path(sink);
  int rc = 0;
  const char *f = schema->n_children == 1 && schema->children[0]->format ? schema->children[0]->format : "";
  if (schema->n_children != 1)
    rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: a blob file holds exactly one column, not %lld", path,
                   (long long)schema->n_children);
  else if (strcmp(f, "z") && strcmp(f, "Z") && strcmp(f, "u") && strcmp(f, "U"))
    rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: blob column \"%s\" has Arrow type \"%s\", not binary", path,
                   schema->children[0]->name ? schema->children[0]->name : "", f);
  blob_wstate *s = rc ? NULL : calloc(1, sizeof *s);
  if (!rc && !s) rc = PM_NOMEM(err);
  if (rc) {
    pm_out_abort(sink);
    return rc;
  }
  s->format = strdup(f);
  if (!s->format) pm_out_abort(sink);
  rc = s->format ? pm_blob_writer_open_sink(sink, &s->w, err) : PM_NOMEM(err); /* takes sink */
  if (rc) {
    free(s->format);
    free(s);
    return rc;
  }
  *state = s;
  return 0;
}

static int blob_writer_write(void *st, const struct ArrowArray *b, pm_error *err) {
  blob_wstate *s = st;
  return pm_blob_writer_write(s->w, b->children[0], s->format, err);
}

static int blob_writer_close(void *st, uint64_t *size, pm_error *err) {
  blob_wstate *s = st;
  int rc = pm_blob_writer_close(s->w, size, err);
  free(s->format);
  free(s);
  return rc;
}

static void blob_writer_abort(void *st) {
  blob_wstate *s = st;
  if (!s) return;
  pm_blob_writer_abort(s->w);
  free(s->format);
  free(s);
}

const pm_format pm_format_blob = {
    .name = "blob",
    .extension = ".blob",
    .needs_data_schema = 1,
    .open = blob_open,
    .schema = blob_schema,
    .next = blob_next,
    .close = blob_close,
    .writer_open = blob_writer_open,
    .writer_write = blob_writer_write,
    .writer_close = blob_writer_close,
    .writer_abort = blob_writer_abort,
};
