/* Per-column statistics of written files, collected from the Arrow batches
 * (null counts for every top-level column; min/max for integers, dates,
 * timestamps, floating point and strings/binaries). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow.h"
#include "arrow/type.h"
#include "format/format_internal.h"

static char kind_of(const char *f) {
  if (!f) return 0;
  if (!strcmp(f, "b") || !strcmp(f, "c") || !strcmp(f, "s") || !strcmp(f, "i") || !strcmp(f, "l") ||
      !strcmp(f, "C") || !strcmp(f, "S") || !strcmp(f, "I") || !strcmp(f, "tdD") || !strncmp(f, "ts", 2) ||
      !strncmp(f, "tt", 2))
    return 'i';
  if (!strcmp(f, "f") || !strcmp(f, "g")) return 'd';
  if (!strcmp(f, "u") || !strcmp(f, "z")) return 'b';
  if (!strcmp(f, "U") || !strcmp(f, "Z")) return 'B';
  return 0;
}

int pm_fmt_stats_init(pm_fmt_stats *s, const struct ArrowSchema *schema, pm_error *err) {
  memset(s, 0, sizeof *s);
  size_t n = (size_t)schema->n_children;
  s->kinds = calloc(n + 1, 1);
  s->fmts = calloc(n + 1, sizeof *s->fmts);
  s->cols = calloc(n + 1, sizeof *s->cols);
  if (!s->kinds || !s->fmts || !s->cols) {
    pm_fmt_stats_free(s);
    return PM_NOMEM(err);
  }
  s->n = n;
  for (size_t i = 0; i < n; i++) {
    const struct ArrowSchema *c = schema->children[i];
    s->kinds[i] = kind_of(c->format);
    s->cols[i].name = strdup(c->name ? c->name : "");
    s->fmts[i] = strdup(c->format ? c->format : "");
    s->cols[i].field_id = -1;
    char *id = pm_schema_metadata_get(c, "PARQUET:field_id");
    if (id) s->cols[i].field_id = (int32_t)strtol(id, NULL, 10);
    free(id);
    if (!s->cols[i].name || !s->fmts[i]) {
      pm_fmt_stats_free(s);
      return PM_NOMEM(err);
    }
  }
  return 0;
}

static int64_t int_at(const struct ArrowArray *a, const char *f, int64_t i) {
  int64_t k = a->offset + i;
  const void *d = a->buffers[1];
  switch (f[0]) {
    case 'b': return (((const uint8_t *)d)[k >> 3] >> (k & 7)) & 1;
    case 'c': return ((const int8_t *)d)[k];
    case 's': return ((const int16_t *)d)[k];
    case 'C': return ((const uint8_t *)d)[k];
    case 'S': return ((const uint16_t *)d)[k];
    case 'I': return ((const uint32_t *)d)[k];
    case 'i': return ((const int32_t *)d)[k];
    case 't':
      if (f[1] == 'd' || (f[1] == 't' && (f[2] == 's' || f[2] == 'm'))) return ((const int32_t *)d)[k];
      return ((const int64_t *)d)[k];
    default: return ((const int64_t *)d)[k];
  }
}

static int bytes_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl) {
  int c = memcmp(a, b, al < bl ? al : bl);
  return c ? c : (al > bl) - (al < bl);
}

static void set_bytes(pm_format_column_stats *c, pm_fmt_literal *l, const uint8_t *p, size_t len) {
  uint8_t *copy = malloc(len + 1);
  if (!copy) {
    c->has_min_max = -1; /* dropped */
    return;
  }
  if (len) memcpy(copy, p, len);
  free((void *)l->bytes);
  l->kind = PM_FMT_LIT_BYTES;
  l->bytes = copy;
  l->len = len;
}

static void add_column(pm_format_column_stats *c, char kind, const char *fmt, const struct ArrowArray *a) {
  for (int64_t i = 0; i < a->length; i++) {
    if (!pm_array_is_valid(a, i)) {
      c->null_count++;
      continue;
    }
    if (!kind || c->has_min_max < 0) continue;
    int first = !c->has_min_max;
    if (kind == 'i') {
      int64_t v = int_at(a, fmt, i);
      if (first || v < c->min.i64) c->min.i64 = v;
      if (first || v > c->max.i64) c->max.i64 = v;
      c->min.kind = c->max.kind = PM_FMT_LIT_INT64;
      c->has_min_max = 1;
    } else if (kind == 'd') {
      int64_t k = a->offset + i;
      double v = fmt[0] == 'f' ? ((const float *)a->buffers[1])[k] : ((const double *)a->buffers[1])[k];
      if (isnan(v)) continue;
      if (first || v < c->min.f64) c->min.f64 = v;
      if (first || v > c->max.f64) c->max.f64 = v;
      c->min.kind = c->max.kind = PM_FMT_LIT_DOUBLE;
      c->has_min_max = 1;
    } else {
      int64_t k = a->offset + i, s, e;
      if (kind == 'b') {
        s = ((const int32_t *)a->buffers[1])[k];
        e = ((const int32_t *)a->buffers[1])[k + 1];
      } else {
        s = ((const int64_t *)a->buffers[1])[k];
        e = ((const int64_t *)a->buffers[1])[k + 1];
      }
      const uint8_t *p = (const uint8_t *)a->buffers[2] + s;
      size_t len = (size_t)(e - s);
      if (first) c->has_min_max = 1;
      if (first || bytes_cmp(p, len, c->min.bytes, c->min.len) < 0) set_bytes(c, &c->min, p, len);
      if (c->has_min_max > 0 && (first || bytes_cmp(p, len, c->max.bytes, c->max.len) > 0))
        set_bytes(c, &c->max, p, len);
    }
  }
}

void pm_fmt_stats_add(pm_fmt_stats *s, const struct ArrowArray *batch) {
  s->rows += batch->length;
  for (size_t i = 0; i < s->n && i < (size_t)batch->n_children; i++)
    add_column(&s->cols[i], s->kinds[i], s->fmts[i], batch->children[i]);
}

void pm_fmt_stats_cols_free(pm_format_column_stats *cols, size_t n) {
  if (!cols) return;
  for (size_t i = 0; i < n; i++) {
    free(cols[i].name);
    if (cols[i].min.kind == PM_FMT_LIT_BYTES) free((void *)cols[i].min.bytes);
    if (cols[i].max.kind == PM_FMT_LIT_BYTES) free((void *)cols[i].max.bytes);
  }
  free(cols);
}

pm_format_column_stats *pm_fmt_stats_take(pm_fmt_stats *s, size_t *n) {
  pm_format_column_stats *c = s->cols;
  *n = s->n;
  for (size_t i = 0; i < s->n; i++)
    if (c[i].has_min_max < 0) c[i].has_min_max = 0;
  s->cols = NULL;
  pm_fmt_stats_free(s);
  return c;
}

void pm_fmt_stats_free(pm_fmt_stats *s) {
  pm_fmt_stats_cols_free(s->cols, s->n);
  if (s->fmts)
    for (size_t i = 0; i < s->n; i++) free(s->fmts[i]);
  free(s->fmts);
  free(s->kinds);
  memset(s, 0, sizeof *s);
}
