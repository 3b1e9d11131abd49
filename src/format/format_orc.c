/* The "orc" entry of the format registry: format/orc behind format.h. */
#include <stdlib.h>
#include <string.h>

#include "format/format_internal.h"
#include "format/orc/orc_reader.h"
#include "format/orc/orc_writer.h"
#include "util/compress.h"

typedef struct orc_state {
  pm_file *file; /* the ORC reader borrows it */
  pm_orc_reader *r;
} orc_state;

static void orc_close(void *st) {
  orc_state *s = st;
  if (!s) return;
  pm_orc_reader_close(s->r);
  pm_file_close(s->file);
  free(s);
}

/* The ORC reader rejects unknown ids, so a probe of the file's tail keeps the
 * wanted ids, units and predicates to the columns the file has. */
static int orc_open(pm_file *file, const pm_format_read_options *o, void **state, pm_error *err) {
  *state = NULL;
  orc_state *s = calloc(1, sizeof *s);
  if (!s) {
    pm_file_close(file);
    return PM_NOMEM(err);
  }
  s->file = file;
  pm_orc_read_options oo;
  pm_orc_read_options_init(&oo);
  pm_orc_reader *probe = NULL;
  int rc = pm_orc_reader_open(s->file, &oo, &probe, err);
  int32_t *present = malloc((o->n_field_ids + 1) * sizeof *present);
  pm_orc_ts_unit *units = malloc((o->n_ts_units + 1) * sizeof *units);
  pm_fmt_predicate *preds = malloc((o->n_predicates + 1) * sizeof *preds);
  if (!rc && (!present || !units || !preds)) rc = PM_NOMEM(err);
  size_t n_present = 0, n_units = 0, n_preds = 0;
  if (!rc) {
    for (size_t i = 0; i < o->n_field_ids; i++)
      if (pm_orc_reader_find_field_id(probe, o->field_ids[i]) >= 0) present[n_present++] = o->field_ids[i];
    for (size_t i = 0; i < o->n_ts_units; i++)
      if (pm_orc_reader_find_field_id(probe, o->ts_units[i].field_id) >= 0) {
        units[n_units].column = NULL;
        units[n_units].field_id = o->ts_units[i].field_id;
        units[n_units].unit = o->ts_units[i].unit;
        n_units++;
      }
    /* without a projected id in the file the columns are mapped by name: no predicates by id */
    for (size_t i = 0; i < o->n_predicates && (n_present > 0 || !o->field_ids); i++) {
      const pm_fmt_predicate *p = &o->predicates[i];
      int found = p->column ? pm_orc_reader_find_column(probe, p->column) >= 0
                            : pm_orc_reader_find_field_id(probe, p->field_id) >= 0;
      if (found) preds[n_preds++] = *p;
    }
  }
  pm_orc_reader_close(probe);
  if (!rc) {
    oo.field_ids = n_present ? present : NULL; /* none found (writers without paimon.id): every column */
    oo.n_field_ids = n_present;
    oo.batch_size = o->batch_rows > 0 ? o->batch_rows : 0;
    oo.row_ranges = o->row_ranges;
    oo.n_row_ranges = o->row_ranges ? o->n_row_ranges : 0;
    oo.ts_units = units;
    oo.n_ts_units = n_units;
    oo.predicates = preds;
    oo.n_predicates = n_preds;
    rc = pm_orc_reader_open(s->file, &oo, &s->r, err); /* copies the options */
  }
  free(present);
  free(units);
  free(preds);
  if (rc) {
    orc_close(s);
    return rc;
  }
  *state = s;
  return 0;
}

static int orc_schema(void *st, struct ArrowSchema *out, pm_error *err) {
  return pm_orc_reader_schema(((orc_state *)st)->r, out, err);
}
static int orc_next(void *st, struct ArrowArray *out, pm_error *err) {
  return pm_orc_reader_next(((orc_state *)st)->r, out, err);
}

static int orc_writer_open(pm_out_file *sink, const struct ArrowSchema *schema, const pm_format_write_options *o,
                           void **state, pm_error *err) {
  *state = NULL;
  pm_orc_writer_options wo;
  pm_orc_writer_options_init(&wo);
  int codec;
  int rc = pm_fmt_codec(o->compression, &codec, err);
  if (rc) {
    pm_out_abort(sink);
    return rc;
  }
  wo.codec = codec == PM_CODEC_GZIP ? PM_CODEC_DEFLATE : (pm_codec)codec;
  wo.compression_level = o->compression_level;
  pm_orc_writer *w = NULL;
  rc = pm_orc_writer_open_sink(sink, schema, &wo, &w, err); /* takes sink */
  *state = w;
  return rc;
}

static int orc_writer_write(void *st, const struct ArrowArray *b, pm_error *err) { return pm_orc_writer_write(st, b, err); }
static int orc_writer_close(void *st, uint64_t *size, pm_error *err) { return pm_orc_writer_finish(st, size, err); }
static void orc_writer_abort(void *st) { pm_orc_writer_abort(st); }

const pm_format pm_format_orc = {
    .name = "orc",
    .extension = ".orc",
    .prunes_untracked = 1,
    .open = orc_open,
    .schema = orc_schema,
    .next = orc_next,
    .close = orc_close,
    .writer_open = orc_writer_open,
    .writer_write = orc_writer_write,
    .writer_close = orc_writer_close,
    .writer_abort = orc_writer_abort,
};
