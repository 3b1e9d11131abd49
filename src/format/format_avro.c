/* The "avro" entry of the format registry: Avro data files (format/avro/avro_data.h). */
#include "format/avro/avro_data.h"
#include "format/format_internal.h"
#include "util/compress.h"

static int avro_open(pm_file *file, const pm_format_read_options *o, void **state, pm_error *err) {
  pm_avro_data_options ao = {o->data_schema, o->field_ids, o->n_field_ids, o->batch_rows, o->row_ranges,
                             o->n_row_ranges};
  pm_avro_data_reader *r = NULL;
  int rc = pm_avro_data_open(file, &ao, &r, err);
  *state = r;
  return rc;
}

static int avro_schema(void *st, struct ArrowSchema *out, pm_error *err) { return pm_avro_data_schema(st, out, err); }
static int avro_next(void *st, struct ArrowArray *out, pm_error *err) { return pm_avro_data_next(st, out, err); }
static void avro_close(void *st) { pm_avro_data_close(st); }

static int avro_writer_open(pm_out_file *sink, const struct ArrowSchema *schema, const pm_format_write_options *o,
                            void **state, pm_error *err) {
  int codec;
  int rc = pm_fmt_codec(o->compression, &codec, err);
  if (rc) {
    pm_out_abort(sink);
    return rc;
  }
  if (codec == PM_CODEC_GZIP) codec = PM_CODEC_DEFLATE;
  pm_avro_data_writer *w = NULL;
  rc = pm_avro_data_writer_open_sink(sink, schema, codec, o->compression_level, &w, err); /* takes sink */
  *state = w;
  return rc;
}

static int avro_writer_write(void *st, const struct ArrowArray *b, pm_error *err) {
  return pm_avro_data_writer_write(st, b, err);
}
static int avro_writer_close(void *st, uint64_t *size, pm_error *err) { return pm_avro_data_writer_close(st, size, err); }
static void avro_writer_abort(void *st) { pm_avro_data_writer_abort(st); }

const pm_format pm_format_avro = {
    .name = "avro",
    .extension = ".avro",
    .needs_data_schema = 1,
    .open = avro_open,
    .schema = avro_schema,
    .next = avro_next,
    .close = avro_close,
    .writer_open = avro_writer_open,
    .writer_write = avro_writer_write,
    .writer_close = avro_writer_close,
    .writer_abort = avro_writer_abort,
};
