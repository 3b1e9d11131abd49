/* The "parquet" entry of the format registry: format/parquet behind format.h. */
#include <stdlib.h>
#include <string.h>

#include "format/format_internal.h"
#include "format/parquet/parquet_reader.h"
#include "format/parquet/parquet_writer.h"
#include "util/compress.h"

static int pq_open(pm_file *file, const pm_format_read_options *o, void **state, pm_error *err) {
  pm_pq_read_options po;
  pm_pq_read_options_init(&po);
  po.field_ids = o->field_ids;
  po.n_field_ids = o->n_field_ids;
  po.all_columns_if_no_ids = 1;
  if (o->batch_rows > 0) po.batch_rows = o->batch_rows;
  po.predicates = o->predicates;
  po.n_predicates = o->n_predicates;
  pm_pq_row_range *rr = NULL;
  if (o->row_ranges) {
    rr = malloc(o->n_row_ranges * sizeof *rr + 1);
    if (!rr) {
      pm_file_close(file);
      return PM_NOMEM(err);
    }
    for (size_t i = 0; i < o->n_row_ranges; i++) rr[i].start = o->row_ranges[2 * i], rr[i].end = o->row_ranges[2 * i + 1];
    po.row_ranges = rr;
    po.n_row_ranges = o->n_row_ranges;
  }
  pm_pq_reader *r = NULL;
  int rc = pm_pq_reader_open(file, &po, &r, err); /* copies the options */
  free(rr);
  *state = r;
  return rc;
}

static int pq_schema(void *st, struct ArrowSchema *out, pm_error *err) { return pm_pq_reader_schema(st, out, err); }
static int pq_next(void *st, struct ArrowArray *out, pm_error *err) { return pm_pq_reader_next(st, out, err); }
static const int64_t *pq_positions(void *st, int64_t *n) { return pm_pq_reader_batch_positions(st, n); }
static void pq_close(void *st) { pm_pq_reader_close(st); }

static int pq_writer_open(pm_out_file *sink, const struct ArrowSchema *schema, const pm_format_write_options *o,
                          void **state, pm_error *err) {
  pm_pq_write_options wo;
  pm_pq_write_options_default(&wo);
  int codec;
  int rc = pm_fmt_codec(o->compression, &codec, err);
  if (rc) {
    pm_out_abort(sink);
    return rc;
  }
  wo.codec = (pm_codec)codec;
  wo.codec_level = o->compression_level;
  if (o->row_group_rows) wo.row_group_rows = o->row_group_rows;
  if (o->row_group_bytes) wo.row_group_bytes = o->row_group_bytes;
  pm_pq_writer *w = NULL;
  rc = pm_pq_writer_open_sink(sink, schema, &wo, &w, err); /* takes sink */
  *state = w;
  return rc;
}

static int pq_writer_write(void *st, const struct ArrowArray *b, pm_error *err) { return pm_pq_writer_write(st, b, err); }

static int pq_writer_close(void *st, uint64_t *size, pm_error *err) {
  int rc = pm_pq_writer_close(st, err);
  if (!rc) *size = pm_pq_writer_result(st)->file_size;
  pm_pq_writer_free(st);
  return rc;
}

static void pq_writer_abort(void *st) { pm_pq_writer_free(st); }

static uint64_t pq_writer_buffered(void *st) { return pm_pq_writer_buffered(st); }

static int pq_writer_flush(void *st, pm_error *err) { return pm_pq_writer_flush(st, err); }

static uint64_t pq_writer_data_size(void *st) { return pm_pq_writer_data_size(st); }

const pm_format pm_format_parquet = {
    .name = "parquet",
    .extension = ".parquet",
    .open = pq_open,
    .schema = pq_schema,
    .next = pq_next,
    .positions = pq_positions,
    .close = pq_close,
    .writer_open = pq_writer_open,
    .writer_write = pq_writer_write,
    .writer_close = pq_writer_close,
    .writer_abort = pq_writer_abort,
    .writer_buffered = pq_writer_buffered,
    .writer_flush = pq_writer_flush,
    .writer_data_size = pq_writer_data_size,
};
