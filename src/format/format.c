/* Format registry and the generic reader/writer handles around a format's operations. */
#include "format/format.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "format/format_internal.h"
#include "io/coalesce.h"
#include "util/compress.h"

static const pm_format *const registry[] = {&pm_format_parquet, &pm_format_orc, &pm_format_avro, &pm_format_blob};
#define N_FORMATS (sizeof registry / sizeof registry[0])

const pm_format *pm_format_by_name(const char *name) {
  if (!name) return NULL;
  for (size_t i = 0; i < N_FORMATS; i++)
    if (!strcasecmp(registry[i]->name, name)) return registry[i];
  return NULL;
}

const pm_format *pm_format_for_file(const char *file_name) {
  if (!file_name) return NULL;
  size_t n = strlen(file_name);
  for (size_t i = 0; i < N_FORMATS; i++) {
    size_t e = strlen(registry[i]->extension);
    if (n >= e && !strcasecmp(file_name + n - e, registry[i]->extension)) return registry[i];
  }
  return NULL;
}

void pm_format_read_options_init(pm_format_read_options *o) {
  memset(o, 0, sizeof *o);
  o->coalesce_max_gap = PM_COALESCE_MAX_GAP_DEFAULT;
  o->coalesce_max_block = PM_COALESCE_MAX_BLOCK_DEFAULT;
}

void pm_format_write_options_init(pm_format_write_options *o) { memset(o, 0, sizeof *o); }

/* ---- reader ---- */

struct pm_format_reader {
  const pm_format *f;
  void *state;
  int64_t *ranges; /* copy of the row ranges (pairs) or NULL = all rows */
  size_t n_ranges;
  size_t range_i;   /* cursor: next row position to return */
  int64_t range_pos;
  size_t batch_range_i; /* cursor at the start of the last batch */
  int64_t batch_pos;
  int64_t last_n;    /* rows of the last batch */
  int no_positions;
  int empty;         /* row ranges that keep no row */
  int64_t *pos;      /* positions of the last batch (computed on request) */
  int64_t pos_cap;
  int pos_valid;
};

int pm_format_reader_open(const pm_format *f, pm_file *file, const pm_format_read_options *o,
                          pm_format_reader **out, pm_error *err) {
  *out = NULL;
  pm_format_read_options defaults;
  if (!o) {
    pm_format_read_options_init(&defaults);
    o = &defaults;
  }
  pm_format_reader *r = calloc(1, sizeof *r);
  if (!r) {
    pm_file_close(file);
    return PM_NOMEM(err);
  }
  r->f = f;
  r->no_positions = f->prunes_untracked && o->n_predicates > 0;
  r->empty = o->row_ranges && o->n_row_ranges == 0;
  if (o->row_ranges && !f->positions) {
    r->ranges = malloc(o->n_row_ranges * 2 * sizeof *r->ranges + 1);
    if (!r->ranges) {
      free(r);
      pm_file_close(file);
      return PM_NOMEM(err);
    }
    if (o->n_row_ranges) memcpy(r->ranges, o->row_ranges, o->n_row_ranges * 2 * sizeof *r->ranges);
    r->n_ranges = o->n_row_ranges;
  }
  int rc = f->open(file, o, &r->state, err);
  if (rc) {
    free(r->ranges);
    free(r);
    return rc;
  }
  *out = r;
  return 0;
}

int pm_format_reader_schema(pm_format_reader *r, struct ArrowSchema *out, pm_error *err) {
  return r->f->schema(r->state, out, err);
}

/* Moves the position cursor over n returned rows (rows of the kept ranges, in order). */
static void advance(pm_format_reader *r, int64_t n, int64_t *pos) {
  if (!r->ranges) {
    for (int64_t i = 0; pos && i < n; i++) pos[i] = r->range_pos + i;
    r->range_pos += n;
    return;
  }
  int64_t i = 0;
  while (i < n && r->range_i < r->n_ranges) {
    int64_t a = r->ranges[2 * r->range_i], e = r->ranges[2 * r->range_i + 1];
    if (r->range_pos < a) r->range_pos = a;
    int64_t k = e - r->range_pos < n - i ? e - r->range_pos : n - i;
    if (k < 0) k = 0;
    for (int64_t j = 0; pos && j < k; j++) pos[i + j] = r->range_pos + j;
    i += k;
    r->range_pos += k;
    if (r->range_pos >= e) r->range_i++;
  }
  for (; i < n; i++) { /* defensive: the reader returned more rows than the ranges hold */
    if (pos) pos[i] = r->range_pos;
    r->range_pos++;
  }
}

int pm_format_reader_next(pm_format_reader *r, struct ArrowArray *out, pm_error *err) {
  if (r->empty) {
    memset(out, 0, sizeof *out);
    r->last_n = 0;
    return 0;
  }
  int rc = r->f->next(r->state, out, err);
  if (rc) {
    memset(out, 0, sizeof *out);
    return rc;
  }
  r->pos_valid = 0;
  r->last_n = out->release ? out->length : 0;
  if (!r->f->positions) {
    r->batch_range_i = r->range_i;
    r->batch_pos = r->range_pos;
    advance(r, r->last_n, NULL);
  }
  return 0;
}

const int64_t *pm_format_reader_positions(pm_format_reader *r, int64_t *n) {
  *n = 0;
  if (r->no_positions || r->last_n == 0) return NULL;
  if (r->f->positions) return r->f->positions(r->state, n);
  if (!r->pos_valid) {
    if (r->last_n > r->pos_cap) {
      int64_t *np = realloc(r->pos, (size_t)r->last_n * sizeof *np);
      if (!np) return NULL;
      r->pos = np;
      r->pos_cap = r->last_n;
    }
    size_t ri = r->range_i;
    int64_t rp = r->range_pos;
    r->range_i = r->batch_range_i;
    r->range_pos = r->batch_pos;
    advance(r, r->last_n, r->pos);
    r->range_i = ri;
    r->range_pos = rp;
    r->pos_valid = 1;
  }
  *n = r->last_n;
  return r->pos;
}

const pm_format *pm_format_reader_format(const pm_format_reader *r) { return r->f; }

void pm_format_reader_close(pm_format_reader *r) {
  if (!r) return;
  r->f->close(r->state);
  free(r->ranges);
  free(r->pos);
  free(r);
}

/* ---- writer ---- */

struct pm_format_writer {
  const pm_format *f;
  void *state;
  pm_fmt_stats stats;
};

int pm_format_writer_open_path(const pm_format *f, const char *path, const struct ArrowSchema *schema,
                               const pm_format_write_options *o, pm_format_writer **out, pm_error *err) {
  *out = NULL;
  pm_out_file *sink;
  PM_TRY(pm_out_open(path, &sink, err));
  return pm_format_writer_open_sink(f, sink, schema, o, out, err);
}

int pm_format_writer_open_sink(const pm_format *f, pm_out_file *sink, const struct ArrowSchema *schema,
                               const pm_format_write_options *o, pm_format_writer **out, pm_error *err) {
  *out = NULL;
  const char *path = pm_out_path(sink);
  pm_format_write_options defaults;
  if (!o) {
    pm_format_write_options_init(&defaults);
    o = &defaults;
  }
  int rc = 0;
  if (!f->writer_open)
    rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: writing format %s is not supported", path, f->name);
  else if (!schema || !schema->format || strcmp(schema->format, "+s"))
    rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: the write schema must be a struct (\"+s\")", path);
  pm_format_writer *w = rc ? NULL : calloc(1, sizeof *w);
  if (!rc && !w) rc = PM_NOMEM(err);
  if (rc) {
    pm_out_abort(sink);
    return rc;
  }
  w->f = f;
  rc = pm_fmt_stats_init(&w->stats, schema, err);
  if (rc) pm_out_abort(sink);
  else rc = f->writer_open(sink, schema, o, &w->state, err); /* takes sink */
  if (rc) {
    pm_fmt_stats_free(&w->stats);
    free(w);
    return rc;
  }
  *out = w;
  return 0;
}

int pm_format_writer_write(pm_format_writer *w, const struct ArrowArray *batch, pm_error *err) {
  if (batch->n_children != (int64_t)w->stats.n)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "batch of %lld columns for a schema of %zu",
                     (long long)batch->n_children, w->stats.n);
  PM_TRY(w->f->writer_write(w->state, batch, err));
  pm_fmt_stats_add(&w->stats, batch);
  return 0;
}

int pm_format_writer_close(pm_format_writer *w, pm_format_write_result *res, pm_error *err) {
  memset(res, 0, sizeof *res);
  uint64_t size = 0;
  int rc = w->f->writer_close(w->state, &size, err);
  if (!rc) {
    res->row_count = w->stats.rows;
    res->file_size = size;
    res->columns = pm_fmt_stats_take(&w->stats, &res->n_columns);
  } else {
    pm_fmt_stats_free(&w->stats);
  }
  free(w);
  return rc;
}

void pm_format_writer_abort(pm_format_writer *w) {
  if (!w) return;
  w->f->writer_abort(w->state);
  pm_fmt_stats_free(&w->stats);
  free(w);
}

uint64_t pm_format_writer_buffered(const pm_format_writer *w) {
  return w->f->writer_buffered ? w->f->writer_buffered(w->state) : 0;
}

int pm_format_writer_flush(pm_format_writer *w, pm_error *err) {
  return w->f->writer_flush ? w->f->writer_flush(w->state, err) : 0;
}

int pm_format_writer_data_size(const pm_format_writer *w, uint64_t *size) {
  if (!w->f->writer_data_size) return 0;
  *size = w->f->writer_data_size(w->state);
  return 1;
}

void pm_format_write_result_free(pm_format_write_result *r) {
  if (!r) return;
  pm_fmt_stats_cols_free(r->columns, r->n_columns);
  r->columns = NULL;
  r->n_columns = 0;
}

int pm_fmt_codec(const char *name, int *codec, pm_error *err) {
  if (!name || !strcasecmp(name, "zstd")) *codec = PM_CODEC_ZSTD;
  else if (!strcasecmp(name, "none") || !strcasecmp(name, "uncompressed")) *codec = PM_CODEC_NONE;
  else if (!strcasecmp(name, "snappy")) *codec = PM_CODEC_SNAPPY;
  else if (!strcasecmp(name, "gzip") || !strcasecmp(name, "deflate") || !strcasecmp(name, "zlib")) *codec = PM_CODEC_GZIP;
  else if (!strcasecmp(name, "lz4")) *codec = PM_CODEC_LZ4_RAW;
  else return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "unknown compression \"%s\"", name);
  return 0;
}
