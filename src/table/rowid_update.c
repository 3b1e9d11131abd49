/* Row-id column updates of data-evolution tables (table/rowid_update.h). */
#include "table/rowid_update.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow.h"
#include "arrow/compute.h"
#include "arrow/type.h"
#include "meta/core_options.h"
#include "table/read.h"
#include "table/scan.h"
#include "table/write_internal.h"

/* ------------------------------------------------------------ the plan */

static int dedicated(const char *name) {
  size_t n = strlen(name);
  return (n >= 5 && !strcmp(name + n - 5, ".blob")) || strstr(name, ".vector.") != NULL;
}

static int entry_cmp(const void *a, const void *b) {
  const pm_manifest_entry *x = *(const pm_manifest_entry *const *)a, *y = *(const pm_manifest_entry *const *)b;
  if (x->file.first_row_id != y->file.first_row_id) return x->file.first_row_id < y->file.first_row_id ? -1 : 1;
  int dx = dedicated(x->file.file_name), dy = dedicated(y->file.file_name);
  if (dx != dy) return dx - dy;
  return strcmp(x->file.file_name, y->file.file_name);
}

static int same_bucket(const pm_manifest_entry *a, const pm_manifest_entry *b) {
  return a->bucket == b->bucket && a->partition.len == b->partition.len &&
         (!a->partition.len || !memcmp(a->partition.data, b->partition.data, a->partition.len));
}

void pm_rowid_plan_clear(pm_rowid_plan *p) {
  for (size_t i = 0; i < p->n_ranges; i++) free(p->ranges[i].files);
  free(p->ranges);
  pm_manifest_entries_clear(&p->live);
  memset(p, 0, sizeof *p);
  pm_manifest_entries_init(&p->live);
}

static int add_file(pm_rowid_range *g, const pm_manifest_entry *e, pm_error *err) {
  const pm_manifest_entry **v = realloc(g->files, (g->n_files + 1) * sizeof *v);
  if (!v) return PM_NOMEM(err);
  g->files = v;
  g->files[g->n_files++] = e;
  return 0;
}

int pm_rowid_plan_latest(pm_table *t, pm_rowid_plan *p, pm_error *err) {
  memset(p, 0, sizeof *p);
  pm_manifest_entries_init(&p->live);
  pm_snapshot_manager sm = pm_table_snapshots(t);
  pm_snapshot *snap = NULL;
  PM_TRY(pm_snapshot_read_latest(&sm, &snap, err));
  if (!snap) return 0;
  p->snapshot_id = snap->id;
  int rc = pm_scan_live_files(t, snap, NULL, &p->live, err);
  pm_snapshot_free(snap);
  const pm_manifest_entry **v = rc ? NULL : malloc((p->live.n + 1) * sizeof *v);
  if (!rc && !v) rc = PM_NOMEM(err);
  size_t n = 0;
  for (size_t i = 0; !rc && i < p->live.n; i++)
    if (p->live.items[i].file.has_first_row_id && p->live.items[i].file.row_count > 0) v[n++] = &p->live.items[i];
  if (!rc) qsort(v, n, sizeof *v, entry_cmp);
  if (!rc) p->ranges = calloc(n + 1, sizeof *p->ranges);
  if (!rc && !p->ranges) rc = PM_NOMEM(err);
  for (size_t i = 0; !rc && i < n; i++) {
    const pm_data_file_meta *f = &v[i]->file;
    int64_t from = f->first_row_id, to = f->first_row_id + f->row_count - 1;
    pm_rowid_range *g = p->n_ranges ? &p->ranges[p->n_ranges - 1] : NULL;
    if (dedicated(f->file_name)) { /* blob / vector-store files lie inside the range of their data files */
      if (!g || from < g->from || to > g->to || !same_bucket(g->files[0], v[i]))
        rc = pm_errorf(err, PAIMON_ERR_CORRUPT,
                       "table %s.%s: file %s (rows %" PRId64 "..%" PRId64 ") lies inside no data file's row range",
                       t->database, t->name, f->file_name, from, to);
      else rc = add_file(g, v[i], err);
      continue;
    }
    if (g && from == g->from && to == g->to && same_bucket(g->files[0], v[i])) {
      rc = add_file(g, v[i], err);
    } else if (g && from <= g->to) {
      rc = pm_errorf(err, PAIMON_ERR_CORRUPT,
                     "table %s.%s: data files %s (rows %" PRId64 "..%" PRId64 ") and %s (rows %" PRId64 "..%" PRId64
                     ") overlap with different row ranges",
                     t->database, t->name, g->files[0]->file.file_name, g->from, g->to, f->file_name, from, to);
    } else {
      g = &p->ranges[p->n_ranges++];
      g->from = from;
      g->to = to;
      rc = add_file(g, v[i], err);
    }
  }
  free(v);
  if (rc) pm_rowid_plan_clear(p);
  return rc;
}

int64_t pm_rowid_plan_find(const pm_rowid_plan *p, int64_t r) {
  size_t lo = 0, hi = p->n_ranges;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (p->ranges[mid].to < r) lo = mid + 1;
    else hi = mid;
  }
  return lo < p->n_ranges && p->ranges[lo].from <= r ? (int64_t)lo : -1;
}

void pm_rowid_split_free(pm_data_split *s) {
  if (!s) return;
  free(s->data_files);
  s->data_files = NULL;
  pm_data_split_free(s);
}

int pm_rowid_read_range(pm_table *t, const pm_rowid_plan *p, const pm_rowid_range *g, const char *const *cols,
                        size_t n, pm_data_split **split, struct ArrowArrayStream *out, pm_error *err) {
  *split = NULL;
  memset(out, 0, sizeof *out);
  pm_data_split *s = NULL;
  PM_TRY(pm_data_split_new(&s, err));
  const pm_manifest_entry *a = g->files[0];
  s->snapshot_id = p->snapshot_id;
  s->partition = a->partition;
  s->bucket = a->bucket;
  s->total_buckets = a->total_buckets;
  s->has_total_buckets = 1;
  s->raw_convertible = g->n_files == 1;
  char *pdir = NULL, *bpath = NULL;
  int rc = pm_scan_partition_dir(t, a->partition.data, a->partition.len, &pdir, err);
  if (!rc) rc = pm_table_bucket_path(t, pdir, a->bucket, &bpath, err);
  free(pdir);
  if (!rc && !(s->bucket_path = pm_arena_strdup(&s->arena, bpath))) rc = PM_NOMEM(err);
  free(bpath);
  if (!rc && !(s->data_files = calloc(g->n_files, sizeof *s->data_files))) rc = PM_NOMEM(err);
  for (size_t i = 0; !rc && i < g->n_files; i++) s->data_files[i] = g->files[i]->file;
  s->n_data_files = g->n_files;
  const char **names = rc ? NULL : malloc((n + 1) * sizeof *names);
  if (!rc && !names) rc = PM_NOMEM(err);
  for (size_t i = 0; !rc && i < n; i++) names[i] = cols[i];
  if (!rc) names[n] = PM_SYSTEM_FIELD_ROW_ID;
  pm_read_options ro;
  pm_read_options_init(&ro);
  ro.columns = names;
  ro.n_columns = n + 1;
  ro.parallelism = 1;
  if (!rc) rc = pm_read_split(t, s, &ro, out, err);
  free(names);
  if (rc) {
    pm_rowid_split_free(s);
    return rc;
  }
  *split = s;
  return 0;
}

/* ------------------------------------------------------------ the updater */

struct pm_rowid_update {
  pm_table *t;
  pm_table_write *w;
  char **cols; /* in table order (the writer's fields) */
  size_t n_cols;
  int planned;
  pm_rowid_plan plan;
  char *done; /* per range: written this round */
  int64_t rows;
  int failed;
  pm_error fail;
};

static int refuse(const pm_table *t, const char *why, pm_error *err) {
  return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "table %s.%s: update by _ROW_ID: %s", t->database, t->name, why);
}

void pm_rowid_update_free(pm_rowid_update *u) {
  if (!u) return;
  pm_table_write_free(u->w);
  for (size_t i = 0; i < u->n_cols; i++) free(u->cols[i]);
  free(u->cols);
  pm_rowid_plan_clear(&u->plan);
  free(u->done);
  pm_table_free(u->t);
  free(u);
}

int pm_rowid_update_open(pm_table *t, const pm_write_config *cfg, const char *const *cols, size_t n,
                         pm_rowid_update **out, pm_error *err) {
  *out = NULL;
  char why[512];
  if (pm_table_has_pk(t)) return refuse(t, "the table has a primary key (row ids belong to append tables)", err);
  if (!t->co.row_tracking || !t->co.data_evolution) {
    snprintf(why, sizeof why, "needs '%s' = true and '%s' = true", pm_core_option_key(PM_CO_ROW_TRACKING),
             pm_core_option_key(PM_CO_DATA_EVOLUTION));
    return refuse(t, why, err);
  }
  if (!n) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "update by _ROW_ID: no column to update");
  for (size_t i = 0; i < n; i++) {
    if (!cols[i] || !*cols[i])
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "update by _ROW_ID: column %zu is empty", i + 1);
    for (size_t j = 0; j < i; j++)
      if (!strcmp(cols[i], cols[j]))
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "update by _ROW_ID: column '%s' given twice", cols[i]);
    int idx = pm_schema_field_index(t->schema, cols[i]);
    if (idx < 0)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "table %s.%s: update by _ROW_ID: column '%s' not found in "
                       "the table schema", t->database, t->name, cols[i]);
    for (size_t k = 0; k < t->n_partition_keys; k++)
      if (!strcmp(t->partition_keys[k], cols[i]))
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "table %s.%s: update by _ROW_ID: column '%s' is a "
                         "partition key (rows do not move between partitions)", t->database, t->name, cols[i]);
    if (t->schema->fields[idx].type->root == PM_DT_BLOB) {
      snprintf(why, sizeof why, "column '%s' is a BLOB column (not supported)", cols[i]);
      return refuse(t, why, err);
    }
  }
  pm_rowid_update *u = calloc(1, sizeof *u);
  if (!u) return PM_NOMEM(err);
  u->t = pm_table_retain(t);
  pm_manifest_entries_init(&u->plan.live);
  int rc = pm_table_write_open_cols(t, cfg, cols, n, &u->w, err);
  if (!rc && !(u->cols = calloc(n, sizeof *u->cols))) rc = PM_NOMEM(err);
  for (size_t i = 0; !rc && i < u->w->n_fields; i++, u->n_cols++)
    if (!(u->cols[i] = strdup(u->w->fields[i].name))) rc = PM_NOMEM(err);
  if (rc) {
    pm_rowid_update_free(u);
    return rc;
  }
  *out = u;
  return 0;
}

int64_t pm_rowid_update_rows(const pm_rowid_update *u) { return u ? u->rows : 0; }

static int fail_with(pm_rowid_update *u, int rc, pm_error *err) {
  u->failed = 1;
  if (err) u->fail = *err;
  if (!u->fail.code) u->fail.code = (paimon_status)rc;
  return rc;
}

static void noop_release_array(struct ArrowArray *a) { a->release = NULL; }

/* A shallow struct view of the children cols (indices into a/s) of a batch. */
typedef struct col_view {
  struct ArrowSchema s;
  struct ArrowArray a;
  struct ArrowSchema **sc;
  struct ArrowArray **ac;
} col_view;

static int view_of(const struct ArrowSchema *s, const struct ArrowArray *a, const int64_t *idx, size_t n,
                   col_view *v, pm_error *err) {
  memset(v, 0, sizeof *v);
  v->sc = malloc((n + 1) * sizeof *v->sc);
  v->ac = malloc((n + 1) * sizeof *v->ac);
  if (!v->sc || !v->ac) return PM_NOMEM(err);
  for (size_t i = 0; i < n; i++) v->sc[i] = s->children[idx[i]], v->ac[i] = a->children[idx[i]];
  v->s = *s;
  v->s.n_children = (int64_t)n;
  v->s.children = v->sc;
  v->s.dictionary = NULL;
  v->a = *a;
  v->a.n_children = (int64_t)n;
  v->a.children = v->ac;
  v->a.dictionary = NULL;
  v->a.release = noop_release_array;
  return 0;
}

static void view_free(col_view *v) {
  free(v->sc);
  free(v->ac);
}

static int64_t child_index(const struct ArrowSchema *s, const char *name) {
  for (int64_t i = 0; i < s->n_children; i++)
    if (s->children[i]->name && !strcmp(s->children[i]->name, name)) return i;
  return -1;
}

typedef struct upd_row {
  int64_t row_id;
  int64_t pos;   /* row in the batch */
  int64_t range; /* plan range */
} upd_row;

static int upd_cmp(const void *a, const void *b) {
  const upd_row *x = a, *y = b;
  return x->row_id < y->row_id ? -1 : x->row_id > y->row_id;
}

/* The row ids of the batch: an integer column (int8..int64; Java's BIGINT is int64) or decimal
 * text (utf8, as CSV / JSON-lines input carries them), no nulls. */
static int row_ids(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t col, upd_row *out, pm_error *err) {
  const struct ArrowSchema *cs = s->children[col];
  const struct ArrowArray *ca = a->children[col];
  char f = cs->format[0] && !cs->format[1] ? cs->format[0] : 0;
  if (f != 'l' && f != 'i' && f != 's' && f != 'c' && f != 'u')
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "update by _ROW_ID: column _ROW_ID must be an integer (int64) "
                     "or decimal text, got Arrow format '%s'", cs->format);
  if (ca->length < a->offset + a->length || ca->n_buffers < (f == 'u' ? 3 : 2) || (a->length && !ca->buffers[1]))
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "update by _ROW_ID: column _ROW_ID: invalid Arrow array");
  for (int64_t i = 0; i < a->length; i++) {
    int64_t k = a->offset + i, j = ca->offset + k;
    if (!pm_array_is_valid(ca, k))
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "update by _ROW_ID: row %" PRId64 ": _ROW_ID is null", i);
    int64_t v = 0;
    switch (f) {
      case 'l': v = ((const int64_t *)ca->buffers[1])[j]; break;
      case 'i': v = ((const int32_t *)ca->buffers[1])[j]; break;
      case 's': v = ((const int16_t *)ca->buffers[1])[j]; break;
      case 'c': v = ((const int8_t *)ca->buffers[1])[j]; break;
      default: {
        const int32_t *off = ca->buffers[1];
        const char *p = (const char *)ca->buffers[2] + off[j], *e = (const char *)ca->buffers[2] + off[j + 1];
        int ok = p < e && e - p <= 19;
        for (const char *q = p; ok && q < e; q++) ok = *q >= '0' && *q <= '9';
        for (const char *q = p; ok && q < e; q++) v = v * 10 + (*q - '0');
        if (!ok)
          return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "update by _ROW_ID: row %" PRId64 ": _ROW_ID '%.*s' is "
                           "not a row id (decimal digits)", i, (int)(e - p > 40 ? 40 : e - p), p);
      }
    }
    out[i].row_id = v;
    out[i].pos = i;
  }
  return 0;
}

static int stream_error(struct ArrowArrayStream *st, int code, const char *what, pm_error *err) {
  const char *msg = st->get_last_error ? st->get_last_error(st) : NULL;
  return pm_errorf(err, code == ENOMEM ? PAIMON_ERR_NOMEM : PAIMON_ERR_IO, "%s: %s", what, msg ? msg : "failed");
}

/* The current values of the updated columns of range g, one struct batch (writer fields). */
static int read_current(pm_rowid_update *u, const pm_rowid_range *g, struct ArrowArray *out, pm_error *err) {
  pm_table_write *w = u->w;
  pm_data_split *split = NULL;
  struct ArrowArrayStream st;
  struct ArrowSchema sch;
  memset(&sch, 0, sizeof sch);
  int rc = pm_rowid_read_range(u->t, &u->plan, g, (const char *const *)u->cols, u->n_cols, &split, &st, err);
  if (rc) return rc;
  int code = st.get_schema(&st, &sch);
  if (code) rc = stream_error(&st, code, "update by _ROW_ID: reading the current values", err);
  struct ArrowArray *parts = NULL;
  size_t n_parts = 0, cap = 0;
  int64_t rows = 0, *idx = malloc((u->n_cols + 1) * sizeof *idx);
  if (!idx && !rc) rc = PM_NOMEM(err);
  for (size_t i = 0; idx && i < u->n_cols; i++) idx[i] = (int64_t)i;
  while (!rc) {
    struct ArrowArray b;
    memset(&b, 0, sizeof b);
    if ((code = st.get_next(&st, &b))) {
      rc = stream_error(&st, code, "update by _ROW_ID: reading the current values", err);
      break;
    }
    if (!b.release) break;
    /* the row ids must be the range's, in order */
    const struct ArrowArray *rid = b.children[u->n_cols];
    const int64_t *rv = rid->buffers[1];
    for (int64_t i = 0; !rc && i < b.length; i++)
      if (rv[rid->offset + b.offset + i] != g->from + rows + i)
        rc = pm_errorf(err, PAIMON_ERR_CORRUPT,
                       "table %s.%s: update by _ROW_ID: the files of rows %" PRId64 "..%" PRId64 " (%s) returned row "
                       "id %" PRId64 " at position %" PRId64,
                       u->t->database, u->t->name, g->from, g->to, g->files[0]->file.file_name,
                       rv[rid->offset + b.offset + i], rows + i);
    col_view v;
    if (!rc) rc = view_of(&sch, &b, idx, u->n_cols, &v, err);
    if (!rc && n_parts == cap) {
      size_t nc = cap ? 2 * cap : 4;
      struct ArrowArray *np = realloc(parts, nc * sizeof *np);
      if (!np) rc = PM_NOMEM(err);
      else parts = np, cap = nc;
    }
    struct ArrowArray m;
    m.release = NULL;
    if (!rc) rc = pm_write_match(w->fields, w->n_fields, &v.s, &v.a, &m, err);
    view_free(&v);
    /* the match shares b's buffers: keep a deep-enough copy by concatenation below */
    if (!rc) {
      struct ArrowArray *one = &m, cp;
      rc = pm_concat(&w->type, (const struct ArrowArray *const *)&one, 1, &cp, err);
      if (!rc) parts[n_parts++] = cp;
    }
    if (m.release) m.release(&m);
    rows += b.length;
    b.release(&b);
  }
  if (!rc && rows != g->to - g->from + 1)
    rc = pm_errorf(err, PAIMON_ERR_CORRUPT,
                   "table %s.%s: update by _ROW_ID: the files of rows %" PRId64 "..%" PRId64 " (%s) hold %" PRId64
                   " rows",
                   u->t->database, u->t->name, g->from, g->to, g->files[0]->file.file_name, rows);
  if (!rc) {
    const struct ArrowArray **pp = malloc((n_parts + 1) * sizeof *pp);
    if (!pp) rc = PM_NOMEM(err);
    for (size_t i = 0; pp && i < n_parts; i++) pp[i] = &parts[i];
    if (!rc) rc = pm_concat(&w->type, pp, (int64_t)n_parts, out, err);
    free(pp);
  }
  for (size_t i = 0; i < n_parts; i++) pm_array_release(&parts[i]);
  free(parts);
  free(idx);
  if (sch.release) sch.release(&sch);
  st.release(&st);
  pm_rowid_split_free(split);
  return rc;
}

/* Writes the file of range g: its current values with rows upd[0, n) (batch positions into nb) replaced. */
static int write_range(pm_rowid_update *u, const pm_rowid_range *g, const struct ArrowArray *nb, const upd_row *upd,
                       size_t n, pm_error *err) {
  pm_table_write *w = u->w;
  struct ArrowArray cur;
  PM_TRY(read_current(u, g, &cur, err));
  int64_t len = g->to - g->from + 1;
  int32_t *src = malloc((size_t)len * sizeof *src);
  int64_t *rows = malloc((size_t)len * sizeof *rows);
  int rc = src && rows ? 0 : PM_NOMEM(err);
  for (int64_t i = 0; !rc && i < len; i++) src[i] = 0, rows[i] = i;
  for (size_t i = 0; !rc && i < n; i++) {
    int64_t k = upd[i].row_id - g->from;
    src[k] = 1;
    rows[k] = upd[i].pos;
  }
  struct ArrowArray merged;
  merged.release = NULL;
  const struct ArrowArray *srcs[2] = {&cur, nb};
  if (!rc) rc = pm_take_multi(&w->type, srcs, 2, src, rows, len, &merged, err);
  free(src);
  free(rows);
  pm_array_release(&cur);
  const pm_manifest_entry *a = g->files[0];
  pm_wslot *s = NULL;
  if (!rc) rc = pm_wslot_get(w, a->partition.data, a->partition.len, a->bucket, &s, err);
  if (!rc) rc = pm_wfile_close(w, s, err); /* nothing open, but be sure the range gets a file of its own */
  if (!rc) rc = pm_wslot_write(w, s, &merged, err);
  if (!rc) rc = pm_wfile_close(w, s, err);
  if (merged.release) merged.release(&merged);
  if (!rc && (!s->n_files || s->files[s->n_files - 1].row_count != len))
    rc = pm_errorf(err, PAIMON_ERR_IO, "update by _ROW_ID: the file of rows %" PRId64 "..%" PRId64
                   " was not written whole", g->from, g->to);
  if (!rc) {
    pm_data_file_meta *m = &s->files[s->n_files - 1];
    m->first_row_id = g->from;
    m->has_first_row_id = 1;
  }
  return rc;
}

int pm_rowid_update_write(pm_rowid_update *u, const struct ArrowSchema *s, const struct ArrowArray *a, pm_error *err) {
  if (u->failed) {
    if (err) *err = u->fail;
    return (int)u->fail.code;
  }
  if (!s || !a || !a->release || !s->format || strcmp(s->format, "+s"))
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "update by _ROW_ID: the input must be a struct batch");
  int64_t rid = child_index(s, PM_SYSTEM_FIELD_ROW_ID);
  if (rid < 0)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "update by _ROW_ID: the input has no _ROW_ID column");
  int64_t *idx = malloc((u->n_cols + 1) * sizeof *idx);
  if (!idx) return PM_NOMEM(err);
  int rc = 0;
  for (size_t i = 0; !rc && i < u->n_cols; i++)
    if ((idx[i] = child_index(s, u->cols[i])) < 0)
      rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "update by _ROW_ID: the input has no column '%s' (a column "
                     "being updated)", u->cols[i]);
  if (rc || !a->length) {
    free(idx);
    return rc;
  }
  /* the update values, typed as the table's columns */
  col_view v;
  struct ArrowArray nb;
  nb.release = NULL;
  rc = view_of(s, a, idx, u->n_cols, &v, err);
  free(idx);
  if (!rc) rc = pm_write_match(u->w->fields, u->w->n_fields, &v.s, &v.a, &nb, err);
  view_free(&v);
  if (rc) return pm_error_prefix(err, "update by _ROW_ID");
  upd_row *r = malloc((size_t)a->length * sizeof *r);
  rc = r ? row_ids(s, a, rid, r, err) : PM_NOMEM(err);
  if (!rc && !u->planned) {
    rc = pm_rowid_plan_latest(u->t, &u->plan, err);
    free(u->done);
    u->done = rc ? NULL : calloc(u->plan.n_ranges + 1, 1);
    if (!rc && !u->done) rc = PM_NOMEM(err);
    if (!rc) u->planned = 1;
  }
  if (!rc) qsort(r, (size_t)a->length, sizeof *r, upd_cmp);
  for (int64_t i = 0; !rc && i < a->length; i++) {
    if (i && r[i].row_id == r[i - 1].row_id) {
      rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "update by _ROW_ID: row id %" PRId64 " appears twice in the "
                     "input", r[i].row_id);
      break;
    }
    r[i].range = pm_rowid_plan_find(&u->plan, r[i].row_id);
    if (r[i].range < 0)
      rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "table %s.%s: update by _ROW_ID: row id %" PRId64 " belongs to "
                     "no live file of snapshot %" PRId64 " (%zu row ranges)", u->t->database, u->t->name,
                     r[i].row_id, u->plan.snapshot_id, u->plan.n_ranges);
    else if (u->done[r[i].range])
      rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "update by _ROW_ID: rows %" PRId64 "..%" PRId64 " (row id %"
                     PRId64 ") were already updated by this updater since its last prepare: update a row range in one "
                     "batch, or prepare and commit first", u->plan.ranges[r[i].range].from,
                     u->plan.ranges[r[i].range].to, r[i].row_id);
  }
  /* one file per range touched */
  for (int64_t i = 0, j; !rc && i < a->length; i = j) {
    for (j = i + 1; j < a->length && r[j].range == r[i].range;) j++;
    rc = write_range(u, &u->plan.ranges[r[i].range], &nb, r + i, (size_t)(j - i), err);
    if (rc) {
      rc = fail_with(u, rc, err);
      break;
    }
    u->done[r[i].range] = 1;
  }
  if (!rc) u->rows += a->length;
  free(r);
  if (nb.release) nb.release(&nb);
  return rc;
}

int pm_rowid_update_prepare(pm_rowid_update *u, int64_t identifier, pm_manifest_committable **out,
                            int64_t *check_from, pm_error *err) {
  *out = NULL;
  *check_from = 0;
  if (u->failed) {
    if (err) *err = u->fail;
    return (int)u->fail.code;
  }
  int rc = pm_table_write_prepare(u->w, identifier, out, err);
  if (rc) return fail_with(u, rc, err);
  if (u->planned && (*out)->n_messages) *check_from = u->plan.snapshot_id;
  u->planned = 0;
  pm_rowid_plan_clear(&u->plan);
  free(u->done);
  u->done = NULL;
  return 0;
}
