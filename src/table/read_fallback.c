/* Reading splits planned with scan.fallback-branch (read.h pm_read_splits_with_fallback):
 * the main table's splits, then the branch's with the branch's table handle. */
#include <stdlib.h>
#include <string.h>

#include "arrow/stream.h"
#include "table/read.h"
#include "util/str.h"

typedef struct part {
  pm_table *t;          /* a reference */
  pm_predicate *filter; /* bound to this part's table (owned) */
  pm_data_split **splits; /* borrowed */
  size_t n_splits;
  struct ArrowArrayStream inner;
} part;

typedef struct fb_read {
  part parts[2];
  size_t n_parts, cur;
  char **columns;
  size_t n_columns;
  int64_t limit; /* < 0: none; enforced across parts */
  int64_t emitted;
} fb_read;

static void fb_free(void *state) {
  fb_read *r = state;
  if (!r) return;
  for (size_t k = 0; k < 2; k++) {
    part *p = &r->parts[k];
    if (p->inner.release) p->inner.release(&p->inner);
    free(p->splits);
    pm_pred_free(p->filter);
    pm_table_free(p->t);
  }
  pm_strings_free(r->columns, r->n_columns);
  free(r);
}

static int fb_schema(void *state, struct ArrowSchema *out, pm_error *err) {
  fb_read *r = state;
  return pm_stream_get_schema(&r->parts[0].inner, out, err);
}

static int fb_next(void *state, struct ArrowArray *out, pm_error *err) {
  fb_read *r = state;
  memset(out, 0, sizeof *out);
  while (r->cur < r->n_parts) {
    if (r->limit >= 0 && r->emitted >= r->limit) return 0; /* end of stream */
    PM_TRY(pm_stream_get_next(&r->parts[r->cur].inner, out, err));
    if (!out->release) {
      r->cur++;
      continue;
    }
    if (r->limit >= 0 && out->length > r->limit - r->emitted) out->length = r->limit - r->emitted;
    r->emitted += out->length;
    return 0;
  }
  return 0;
}

/* A copy of filter (bound to from's schema) bound to to's schema by column name. */
static int bind_filter(const pm_predicate *filter, const pm_table *from, const pm_table *to, pm_predicate **out,
                       pm_error *err) {
  *out = NULL;
  if (!filter) return 0;
  const pm_table_schema *fs = from->schema, *ts = to->schema;
  int32_t *map = malloc((fs->n_fields ? fs->n_fields : 1) * sizeof *map);
  if (!map) return PM_NOMEM(err);
  for (size_t i = 0; i < fs->n_fields; i++) map[i] = pm_schema_field_index(ts, fs->fields[i].name);
  int rc = pm_pred_only_fields(filter, map, fs->n_fields)
               ? pm_pred_remap(filter, map, fs->n_fields, out, err)
               : pm_errorf(err, PAIMON_ERR_NOT_FOUND, "filter uses a column that branch '%s' does not have", to->branch);
  free(map);
  return rc;
}

int pm_read_splits_with_fallback(pm_table *t, pm_data_split *const *splits, const int *is_fallback, size_t n,
                                 const pm_read_options *opt, struct ArrowArrayStream *out, pm_error *err) {
  memset(out, 0, sizeof *out);
  pm_read_options o;
  if (opt) o = *opt;
  else pm_read_options_init(&o);
  fb_read *r = calloc(1, sizeof *r);
  if (!r) return PM_NOMEM(err);
  r->limit = o.limit;
  size_t n_fb = 0;
  for (size_t i = 0; is_fallback && i < n; i++) n_fb += is_fallback[i] != 0;
  int rc = 0;
  if (o.n_columns) {
    r->columns = calloc(o.n_columns, sizeof *r->columns);
    if (!r->columns) rc = PM_NOMEM(err);
    for (size_t i = 0; !rc && i < o.n_columns; i++) {
      r->columns[i] = pm_strdup(o.columns[i]);
      if (!r->columns[i]) rc = PM_NOMEM(err);
      r->n_columns = i + 1;
    }
  }
  r->n_parts = n_fb ? 2 : 1;
  for (size_t k = 0; !rc && k < r->n_parts; k++) {
    part *p = &r->parts[k];
    pm_table *pt = t;
    if (k == 1) {
      rc = pm_table_fallback(t, &pt, err);
      if (!rc && !pt)
        rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: splits of a fallback branch, but the table has no %s",
                       t->root, pm_core_option_key(PM_CO_SCAN_FALLBACK_BRANCH));
      if (rc) break;
    }
    p->t = pm_table_retain(pt);
    rc = bind_filter(o.filter, t, pt, &p->filter, err);
    if (!rc && n && !(p->splits = calloc(n, sizeof *p->splits))) rc = PM_NOMEM(err);
    for (size_t i = 0; !rc && i < n; i++)
      if ((k == 1) == (is_fallback && is_fallback[i] != 0)) p->splits[p->n_splits++] = splits[i];
    if (!rc) {
      pm_read_options po = o;
      po.columns = (const char *const *)r->columns;
      po.n_columns = r->n_columns;
      po.filter = p->filter;
      rc = pm_read_splits(p->t, p->splits, p->n_splits, &po, &p->inner, err);
    }
  }
  if (rc) {
    fb_free(r);
    return rc;
  }
  static const pm_stream_callbacks cb = {fb_schema, fb_next, fb_free};
  return pm_stream_init(out, &cb, r, err);
}
