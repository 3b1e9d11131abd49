/* ORC manifests (manifest.format=orc, Paimon <= 2.0): the ORC reader yields Arrow
 * batches with the same field names and nesting as the Avro files; convert them. */
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow.h"
#include "format/orc/orc_reader.h"
#include "io/file.h"
#include "meta/manifest.h"
#include "meta/manifest_internal.h"

/* ---- Arrow accessors (logical index i, offsets honoured) ---- */

typedef struct acol {
  const struct ArrowSchema *s; /* NULL when the column is absent */
  const struct ArrowArray *a;
} acol;

static acol child(acol c, const char *name) {
  acol r = {NULL, NULL};
  if (!c.s) return r;
  for (int64_t k = 0; k < c.s->n_children; k++) {
    if (c.s->children[k]->name && strcmp(c.s->children[k]->name, name) == 0) {
      r.s = c.s->children[k];
      r.a = c.a->children[k];
      return r;
    }
  }
  return r;
}

/* Struct children are indexed with the parent's offset added. */
static int64_t child_index(acol parent, int64_t i) { return parent.a->offset + i; }

static int valid(acol c, int64_t i) {
  if (!c.s) return 0;
  const uint8_t *v = c.a->n_buffers > 0 ? (const uint8_t *)c.a->buffers[0] : NULL;
  return !v || pm_bit_get(v, c.a->offset + i);
}

static int64_t get_int(acol c, int64_t i) {
  int64_t p = c.a->offset + i;
  const void *b = c.a->buffers[1];
  switch (c.s->format[0]) {
    case 'c': return ((const int8_t *)b)[p];
    case 's': return ((const int16_t *)b)[p];
    case 'i': return ((const int32_t *)b)[p];
    case 'b': return pm_bit_get((const uint8_t *)b, p);
    default: return ((const int64_t *)b)[p]; /* 'l', timestamps */
  }
}

static int is_int_format(const char *f) {
  return !strcmp(f, "c") || !strcmp(f, "s") || !strcmp(f, "i") || !strcmp(f, "l") || !strncmp(f, "tsm", 3);
}

static pm_avro_view get_bytes(acol c, int64_t i) {
  int64_t p = c.a->offset + i;
  const int32_t *off = c.a->buffers[1];
  const uint8_t *data = c.a->buffers[2];
  pm_avro_view v = {data ? data + off[p] : (const uint8_t *)"", (size_t)(off[p + 1] - off[p])};
  return v;
}

static void list_range(acol c, int64_t i, int64_t *start, int64_t *end) {
  int64_t p = c.a->offset + i;
  const int32_t *off = c.a->buffers[1];
  *start = off[p];
  *end = off[p + 1];
}

static acol list_items(acol c) {
  acol r = {c.s->children[0], c.a->children[0]};
  return r;
}

/* ---- shape checks, so the accessors never read buffers of the wrong type ---- */

static int check_fmt(acol c, const char *want, const char *field, const char *name, pm_error *err) {
  if (!c.s) return 0;
  const char *f = c.s->format;
  int ok;
  if (!strcmp(want, "int")) ok = is_int_format(f);
  else if (!strcmp(want, "bin")) ok = !strcmp(f, "z") || !strcmp(f, "u");
  else ok = !strcmp(f, want);
  if (!ok) return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: ORC manifest field %s has Arrow type %s", name, field, f);
  return 0;
}

static int check_list(acol c, const char *item, const char *field, const char *name, pm_error *err) {
  if (!c.s) return 0;
  PM_TRY(check_fmt(c, "+l", field, name, err));
  return check_fmt(list_items(c), item, field, name, err);
}

/* ---- conversion ---- */

typedef struct conv {
  pm_arena *a;
  int oom;
} conv;

static const char *cstr(conv *cv, acol c, int64_t i) {
  if (!valid(c, i)) return NULL;
  pm_avro_view v = get_bytes(c, i);
  char *s = pm_arena_strndup(cv->a, (const char *)v.ptr, v.len);
  if (!s) cv->oom = 1;
  return s;
}

static pm_bytes cbytes(conv *cv, acol c, int64_t i) {
  pm_bytes b = {NULL, 0};
  if (!valid(c, i)) {
    b.data = pm_arena_alloc(cv->a, 0);
    return b;
  }
  pm_avro_view v = get_bytes(c, i);
  b.data = pm_arena_memdup(cv->a, v.ptr, v.len);
  b.len = v.len;
  if (!b.data) cv->oom = 1;
  return b;
}

static pm_str_list cstrs(conv *cv, acol c, int64_t i) {
  pm_str_list l = {NULL, 0, 1};
  if (!valid(c, i)) return l;
  l.is_null = 0;
  int64_t s, e;
  list_range(c, i, &s, &e);
  if (e <= s) return l;
  l.items = pm_arena_alloc(cv->a, (size_t)(e - s) * sizeof(char *));
  if (!l.items) {
    cv->oom = 1;
    return l;
  }
  acol it = list_items(c);
  for (int64_t k = s; k < e; k++) l.items[k - s] = cstr(cv, it, k);
  l.n = (int32_t)(e - s);
  return l;
}

static int64_t *clongs(conv *cv, acol c, int64_t i, int32_t *n, int *is_null, int64_t null_value) {
  *n = 0;
  *is_null = 1;
  if (!valid(c, i)) return NULL;
  *is_null = 0;
  int64_t s, e;
  list_range(c, i, &s, &e);
  if (e <= s) return NULL;
  int64_t *v = pm_arena_alloc(cv->a, (size_t)(e - s) * sizeof(int64_t));
  if (!v) {
    cv->oom = 1;
    return NULL;
  }
  acol it = list_items(c);
  for (int64_t k = s; k < e; k++) v[k - s] = valid(it, k) ? get_int(it, k) : null_value;
  *n = (int32_t)(e - s);
  return v;
}

static void cstats(conv *cv, acol st, int64_t i, pm_simple_stats *out) {
  if (!valid(st, i)) {
    pm_simple_stats_empty(out);
    return;
  }
  int64_t ci = child_index(st, i);
  memset(out, 0, sizeof(*out));
  out->min_values = cbytes(cv, child(st, "_MIN_VALUES"), ci);
  out->max_values = cbytes(cv, child(st, "_MAX_VALUES"), ci);
  out->null_counts = clongs(cv, child(st, "_NULL_COUNTS"), ci, &out->n_null_counts, &out->null_counts_is_null,
                            PM_NULL_COUNT_UNKNOWN);
}

static int check_stats(acol st, const char *name, pm_error *err) {
  if (!st.s) return 0;
  PM_TRY(check_fmt(st, "+s", "stats", name, err));
  PM_TRY(check_fmt(child(st, "_MIN_VALUES"), "bin", "_MIN_VALUES", name, err));
  PM_TRY(check_fmt(child(st, "_MAX_VALUES"), "bin", "_MAX_VALUES", name, err));
  return check_list(child(st, "_NULL_COUNTS"), "int", "_NULL_COUNTS", name, err);
}

#define OPT_INT(col, idx, dst, has)       \
  do {                                    \
    if (valid((col), (idx))) {            \
      (dst) = get_int((col), (idx));      \
      (has) = 1;                          \
    }                                     \
  } while (0)

/* Opens the ORC file and iterates batches, calling fn per batch. */
typedef int (*batch_fn)(void *ctx, acol root, int64_t n, pm_error *err);

static int orc_iterate(const uint8_t *data, size_t len, const char *name, batch_fn fn, void *ctx, pm_error *err) {
  pm_file *f = NULL;
  PM_TRY(pm_file_from_memory(data, len, name, &f, err));
  pm_orc_read_options o;
  pm_orc_read_options_init(&o);
  o.default_ts_unit = 'm';
  pm_orc_reader *r = NULL;
  int rc = pm_orc_reader_open(f, &o, &r, err);
  struct ArrowSchema s;
  memset(&s, 0, sizeof s);
  if (!rc) rc = pm_orc_reader_schema(r, &s, err);
  while (!rc) {
    struct ArrowArray a;
    memset(&a, 0, sizeof a);
    rc = pm_orc_reader_next(r, &a, err);
    if (rc || !a.release) break;
    acol root = {&s, &a};
    rc = fn(ctx, root, a.length, err);
    a.release(&a);
  }
  if (rc) pm_error_prefix(err, "%s: ", name);
  pm_schema_release(&s);
  pm_orc_reader_close(r);
  pm_file_close(f);
  return rc;
}

/* ---- manifest entries ---- */

typedef struct mctx {
  const char *name;
  pm_entry_filter_fn filter;
  void *filter_ctx;
  pm_manifest_entries *out;
} mctx;

static int manifest_batch(void *vctx, acol root, int64_t n, pm_error *err) {
  mctx *m = vctx;
  acol kind = child(root, "_KIND"), part = child(root, "_PARTITION"), bucket = child(root, "_BUCKET"),
       total = child(root, "_TOTAL_BUCKETS"), file = child(root, "_FILE");
  PM_TRY(check_fmt(kind, "int", "_KIND", m->name, err));
  PM_TRY(check_fmt(part, "bin", "_PARTITION", m->name, err));
  PM_TRY(check_fmt(bucket, "int", "_BUCKET", m->name, err));
  PM_TRY(check_fmt(total, "int", "_TOTAL_BUCKETS", m->name, err));
  if (!file.s) return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: ORC manifest without _FILE", m->name);
  PM_TRY(check_fmt(file, "+s", "_FILE", m->name, err));
  acol fname = child(file, "_FILE_NAME"), fsize = child(file, "_FILE_SIZE"), rows = child(file, "_ROW_COUNT"),
       mink = child(file, "_MIN_KEY"), maxk = child(file, "_MAX_KEY"), ks = child(file, "_KEY_STATS"),
       vs = child(file, "_VALUE_STATS"), minseq = child(file, "_MIN_SEQUENCE_NUMBER"),
       maxseq = child(file, "_MAX_SEQUENCE_NUMBER"), sid = child(file, "_SCHEMA_ID"), level = child(file, "_LEVEL"),
       extra = child(file, "_EXTRA_FILES"), ctime = child(file, "_CREATION_TIME"),
       drc = child(file, "_DELETE_ROW_COUNT"), emb = child(file, "_EMBEDDED_FILE_INDEX"),
       src = child(file, "_FILE_SOURCE"), vsc = child(file, "_VALUE_STATS_COLS"), ext = child(file, "_EXTERNAL_PATH"),
       frid = child(file, "_FIRST_ROW_ID"), wc = child(file, "_WRITE_COLS"), wcs = child(file, "_WRITE_COLS_SEQUENCES");
  const char *nm = m->name;
  PM_TRY(check_fmt(fname, "bin", "_FILE_NAME", nm, err));
  PM_TRY(check_fmt(fsize, "int", "_FILE_SIZE", nm, err));
  PM_TRY(check_fmt(rows, "int", "_ROW_COUNT", nm, err));
  PM_TRY(check_fmt(mink, "bin", "_MIN_KEY", nm, err));
  PM_TRY(check_fmt(maxk, "bin", "_MAX_KEY", nm, err));
  PM_TRY(check_stats(ks, nm, err));
  PM_TRY(check_stats(vs, nm, err));
  PM_TRY(check_fmt(minseq, "int", "_MIN_SEQUENCE_NUMBER", nm, err));
  PM_TRY(check_fmt(maxseq, "int", "_MAX_SEQUENCE_NUMBER", nm, err));
  PM_TRY(check_fmt(sid, "int", "_SCHEMA_ID", nm, err));
  PM_TRY(check_fmt(level, "int", "_LEVEL", nm, err));
  PM_TRY(check_list(extra, "bin", "_EXTRA_FILES", nm, err));
  PM_TRY(check_fmt(ctime, "int", "_CREATION_TIME", nm, err));
  PM_TRY(check_fmt(drc, "int", "_DELETE_ROW_COUNT", nm, err));
  PM_TRY(check_fmt(emb, "bin", "_EMBEDDED_FILE_INDEX", nm, err));
  PM_TRY(check_fmt(src, "int", "_FILE_SOURCE", nm, err));
  PM_TRY(check_list(vsc, "bin", "_VALUE_STATS_COLS", nm, err));
  PM_TRY(check_fmt(ext, "bin", "_EXTERNAL_PATH", nm, err));
  PM_TRY(check_fmt(frid, "int", "_FIRST_ROW_ID", nm, err));
  PM_TRY(check_list(wc, "bin", "_WRITE_COLS", nm, err));
  PM_TRY(check_list(wcs, "int", "_WRITE_COLS_SEQUENCES", nm, err));
  if (!fname.s) return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: ORC manifest without _FILE_NAME", nm);
  conv cv = {&m->out->arena, 0};
  for (int64_t i = 0; i < n; i++) {
    if (!valid(file, i)) return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: row %lld: _FILE is null", nm, (long long)i);
    int64_t fi = child_index(file, i);
    int8_t k = kind.s && valid(kind, i) ? (int8_t)get_int(kind, i) : 0;
    if (k != 0 && k != 1) return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: row %lld: _KIND %d", nm, (long long)i, k);
    int32_t b = bucket.s && valid(bucket, i) ? (int32_t)get_int(bucket, i) : 0;
    int32_t tb = total.s && valid(total, i) ? (int32_t)get_int(total, i) : -1;
    int32_t lv = level.s && valid(level, fi) ? (int32_t)get_int(level, fi) : 0;
    if (m->filter) {
      pm_avro_view pv = part.s && valid(part, i) ? get_bytes(part, i) : (pm_avro_view){(const uint8_t *)"", 0};
      pm_avro_view fv = valid(fname, fi) ? get_bytes(fname, fi) : (pm_avro_view){(const uint8_t *)"", 0};
      pm_entry_head h = {k, pv.ptr, pv.len, b, tb, lv, (const char *)fv.ptr, fv.len};
      if (!m->filter(m->filter_ctx, &h)) continue;
    }
    pm_manifest_entry e;
    memset(&e, 0, sizeof e);
    e.kind = k;
    e.partition = cbytes(&cv, part, i);
    e.bucket = b;
    e.total_buckets = tb;
    pm_data_file_meta *f = &e.file;
    f->file_name = cstr(&cv, fname, fi);
    if (!f->file_name) return cv.oom ? PM_NOMEM(err) : pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: null _FILE_NAME", nm);
    int dummy = 0;
    if (fsize.s) OPT_INT(fsize, fi, f->file_size, dummy);
    if (rows.s) OPT_INT(rows, fi, f->row_count, dummy);
    f->min_key = cbytes(&cv, mink, fi);
    f->max_key = cbytes(&cv, maxk, fi);
    cstats(&cv, ks, fi, &f->key_stats);
    cstats(&cv, vs, fi, &f->value_stats);
    if (minseq.s) OPT_INT(minseq, fi, f->min_sequence_number, dummy);
    if (maxseq.s) OPT_INT(maxseq, fi, f->max_sequence_number, dummy);
    if (sid.s) OPT_INT(sid, fi, f->schema_id, dummy);
    f->level = lv;
    f->extra_files = cstrs(&cv, extra, fi);
    f->extra_files.is_null = 0;
    if (ctime.s) OPT_INT(ctime, fi, f->creation_time_millis, f->has_creation_time);
    if (drc.s) OPT_INT(drc, fi, f->delete_row_count, f->has_delete_row_count);
    if (emb.s && valid(emb, fi)) {
      f->embedded_index = cbytes(&cv, emb, fi);
      f->has_embedded_index = 1;
    }
    f->file_source = src.s && valid(src, fi) ? (int8_t)get_int(src, fi) : PM_SOURCE_NULL;
    f->value_stats_cols = cstrs(&cv, vsc, fi);
    f->external_path = ext.s ? cstr(&cv, ext, fi) : NULL;
    if (frid.s) OPT_INT(frid, fi, f->first_row_id, f->has_first_row_id);
    f->write_cols = cstrs(&cv, wc, fi);
    f->write_cols_sequences = clongs(&cv, wcs, fi, &f->n_write_cols_sequences, &f->write_cols_sequences_is_null, 0);
    (void)dummy;
    if (cv.oom) return PM_NOMEM(err);
    PM_TRY(pm_manifest_entries_append_owned(m->out, &e, err));
  }
  return 0;
}

int pm_manifest_decode_orc(const uint8_t *data, size_t len, const char *name, pm_entry_filter_fn filter,
                           void *filter_ctx, pm_manifest_entries *out, pm_error *err) {
  mctx m = {name, filter, filter_ctx, out};
  return orc_iterate(data, len, name, manifest_batch, &m, err);
}

/* ---- manifest list ---- */

typedef struct lctx {
  const char *name;
  pm_manifest_file_metas *out;
} lctx;

static int list_batch(void *vctx, acol root, int64_t n, pm_error *err) {
  lctx *l = vctx;
  const char *nm = l->name;
  acol fname = child(root, "_FILE_NAME"), fsize = child(root, "_FILE_SIZE"), add = child(root, "_NUM_ADDED_FILES"),
       del = child(root, "_NUM_DELETED_FILES"), ps = child(root, "_PARTITION_STATS"), sid = child(root, "_SCHEMA_ID"),
       minb = child(root, "_MIN_BUCKET"), maxb = child(root, "_MAX_BUCKET"), minl = child(root, "_MIN_LEVEL"),
       maxl = child(root, "_MAX_LEVEL"), minr = child(root, "_MIN_ROW_ID"), maxr = child(root, "_MAX_ROW_ID");
  PM_TRY(check_fmt(fname, "bin", "_FILE_NAME", nm, err));
  const char *ints[] = {"_FILE_SIZE", "_NUM_ADDED_FILES", "_NUM_DELETED_FILES", "_SCHEMA_ID", "_MIN_BUCKET",
                        "_MAX_BUCKET", "_MIN_LEVEL", "_MAX_LEVEL", "_MIN_ROW_ID", "_MAX_ROW_ID"};
  acol icols[] = {fsize, add, del, sid, minb, maxb, minl, maxl, minr, maxr};
  for (int k = 0; k < 10; k++) PM_TRY(check_fmt(icols[k], "int", ints[k], nm, err));
  PM_TRY(check_stats(ps, nm, err));
  if (!fname.s) return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: ORC manifest list without _FILE_NAME", nm);
  conv cv = {&l->out->arena, 0};
  for (int64_t i = 0; i < n; i++) {
    pm_manifest_file_meta e;
    memset(&e, 0, sizeof e);
    e.file_name = cstr(&cv, fname, i);
    if (!e.file_name) return cv.oom ? PM_NOMEM(err) : pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: null _FILE_NAME", nm);
    int d = 0, h[6] = {0};
    int64_t x[6] = {0};
    if (fsize.s) OPT_INT(fsize, i, e.file_size, d);
    if (add.s) OPT_INT(add, i, e.num_added_files, d);
    if (del.s) OPT_INT(del, i, e.num_deleted_files, d);
    if (sid.s) OPT_INT(sid, i, e.schema_id, d);
    for (int k = 0; k < 6; k++)
      if (icols[4 + k].s) OPT_INT(icols[4 + k], i, x[k], h[k]);
    e.min_bucket = (int32_t)x[0];
    e.max_bucket = (int32_t)x[1];
    e.has_bucket_range = h[0] && h[1];
    e.min_level = (int32_t)x[2];
    e.max_level = (int32_t)x[3];
    e.has_level_range = h[2] && h[3];
    e.min_row_id = x[4];
    e.max_row_id = x[5];
    e.has_row_id_range = h[4] && h[5];
    cstats(&cv, ps, i, &e.partition_stats);
    (void)d;
    if (cv.oom) return PM_NOMEM(err);
    PM_TRY(pm_manifest_file_metas_append_owned(l->out, &e, err));
  }
  return 0;
}

int pm_manifest_list_decode_orc(const uint8_t *data, size_t len, const char *name, pm_manifest_file_metas *out,
                                pm_error *err) {
  lctx l = {name, out};
  return orc_iterate(data, len, name, list_batch, &l, err);
}

/* ---- index manifest ---- */

typedef struct ictx {
  const char *name;
  pm_index_entries *out;
} ictx;

static int index_batch(void *vctx, acol root, int64_t n, pm_error *err) {
  ictx *x = vctx;
  const char *nm = x->name;
  acol kind = child(root, "_KIND"), part = child(root, "_PARTITION"), bucket = child(root, "_BUCKET"),
       type = child(root, "_INDEX_TYPE"), fname = child(root, "_FILE_NAME"), fsize = child(root, "_FILE_SIZE"),
       rows = child(root, "_ROW_COUNT"), dvr = child(root, "_DELETIONS_VECTORS_RANGES"),
       ext = child(root, "_EXTERNAL_PATH"), gi = child(root, "_GLOBAL_INDEX");
  PM_TRY(check_fmt(kind, "int", "_KIND", nm, err));
  PM_TRY(check_fmt(part, "bin", "_PARTITION", nm, err));
  PM_TRY(check_fmt(bucket, "int", "_BUCKET", nm, err));
  PM_TRY(check_fmt(type, "bin", "_INDEX_TYPE", nm, err));
  PM_TRY(check_fmt(fname, "bin", "_FILE_NAME", nm, err));
  PM_TRY(check_fmt(fsize, "int", "_FILE_SIZE", nm, err));
  PM_TRY(check_fmt(rows, "int", "_ROW_COUNT", nm, err));
  PM_TRY(check_fmt(ext, "bin", "_EXTERNAL_PATH", nm, err));
  acol dv_item = {NULL, NULL}, f0 = {0}, f1 = {0}, f2 = {0}, card = {0};
  if (dvr.s) {
    PM_TRY(check_list(dvr, "+s", "_DELETIONS_VECTORS_RANGES", nm, err));
    dv_item = list_items(dvr);
    f0 = child(dv_item, "f0");
    f1 = child(dv_item, "f1");
    f2 = child(dv_item, "f2");
    card = child(dv_item, "_CARDINALITY");
    PM_TRY(check_fmt(f0, "bin", "f0", nm, err));
    PM_TRY(check_fmt(f1, "int", "f1", nm, err));
    PM_TRY(check_fmt(f2, "int", "f2", nm, err));
    PM_TRY(check_fmt(card, "int", "_CARDINALITY", nm, err));
  }
  acol gs = {0}, ge = {0}, gf = {0}, gx = {0}, gm = {0}, gsm = {0};
  if (gi.s) {
    PM_TRY(check_fmt(gi, "+s", "_GLOBAL_INDEX", nm, err));
    gs = child(gi, "_ROW_RANGE_START");
    ge = child(gi, "_ROW_RANGE_END");
    gf = child(gi, "_INDEX_FIELD_ID");
    gx = child(gi, "_EXTRA_FIELD_IDS");
    gm = child(gi, "_INDEX_META");
    gsm = child(gi, "_SOURCE_META");
    PM_TRY(check_fmt(gs, "int", "_ROW_RANGE_START", nm, err));
    PM_TRY(check_fmt(ge, "int", "_ROW_RANGE_END", nm, err));
    PM_TRY(check_fmt(gf, "int", "_INDEX_FIELD_ID", nm, err));
    PM_TRY(check_list(gx, "int", "_EXTRA_FIELD_IDS", nm, err));
    PM_TRY(check_fmt(gm, "bin", "_INDEX_META", nm, err));
    PM_TRY(check_fmt(gsm, "bin", "_SOURCE_META", nm, err));
  }
  if (!fname.s || !type.s) return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: ORC index manifest without _FILE_NAME/_INDEX_TYPE", nm);
  conv cv = {&x->out->arena, 0};
  for (int64_t i = 0; i < n; i++) {
    pm_index_manifest_entry e;
    memset(&e, 0, sizeof e);
    pm_index_file_meta *m = &e.index_file;
    int d = 0;
    e.kind = kind.s && valid(kind, i) ? (int8_t)get_int(kind, i) : 0;
    e.partition = cbytes(&cv, part, i);
    e.bucket = bucket.s && valid(bucket, i) ? (int32_t)get_int(bucket, i) : 0;
    m->index_type = cstr(&cv, type, i);
    m->file_name = cstr(&cv, fname, i);
    if (!m->index_type || !m->file_name)
      return cv.oom ? PM_NOMEM(err) : pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: null _FILE_NAME/_INDEX_TYPE", nm);
    if (fsize.s) OPT_INT(fsize, i, m->file_size, d);
    if (rows.s) OPT_INT(rows, i, m->row_count, d);
    m->dv_ranges_is_null = 1;
    if (dvr.s && valid(dvr, i)) {
      int64_t s, en;
      list_range(dvr, i, &s, &en);
      m->dv_ranges_is_null = 0;
      if (en > s) {
        m->dv_ranges = pm_arena_alloc(cv.a, (size_t)(en - s) * sizeof(pm_dv_range));
        if (!m->dv_ranges) return PM_NOMEM(err);
        for (int64_t k = s; k < en; k++) {
          pm_dv_range *r = &m->dv_ranges[m->n_dv_ranges];
          memset(r, 0, sizeof(*r));
          if (!valid(dv_item, k)) continue;
          int64_t ck = child_index(dv_item, k);
          r->data_file_name = cstr(&cv, f0, ck);
          int64_t v = 0;
          if (f1.s) OPT_INT(f1, ck, v, d);
          r->offset = (int32_t)v;
          v = 0;
          if (f2.s) OPT_INT(f2, ck, v, d);
          r->length = (int32_t)v;
          if (card.s) OPT_INT(card, ck, r->cardinality, r->has_cardinality);
          m->n_dv_ranges++;
        }
      }
    }
    m->external_path = ext.s ? cstr(&cv, ext, i) : NULL;
    if (gi.s && valid(gi, i)) {
      int64_t gi_i = child_index(gi, i);
      pm_global_index_meta *g = &m->global_index;
      m->has_global_index = 1;
      int64_t v = 0;
      if (gs.s) OPT_INT(gs, gi_i, g->row_range_start, d);
      if (ge.s) OPT_INT(ge, gi_i, g->row_range_end, d);
      if (gf.s) OPT_INT(gf, gi_i, v, d);
      g->index_field_id = (int32_t)v;
      int32_t cnt = 0;
      int64_t *ids = gx.s ? clongs(&cv, gx, gi_i, &cnt, &g->extra_field_ids_is_null, 0) : NULL;
      if (!gx.s) g->extra_field_ids_is_null = 1;
      if (cnt > 0) {
        g->extra_field_ids = pm_arena_alloc(cv.a, (size_t)cnt * sizeof(int32_t));
        if (!g->extra_field_ids) return PM_NOMEM(err);
        for (int32_t k = 0; k < cnt; k++) g->extra_field_ids[k] = (int32_t)ids[k];
        g->n_extra_field_ids = cnt;
      }
      if (gm.s && valid(gm, gi_i)) {
        g->index_meta = cbytes(&cv, gm, gi_i);
        g->has_index_meta = 1;
      }
      if (gsm.s && valid(gsm, gi_i)) {
        g->source_meta = cbytes(&cv, gsm, gi_i);
        g->has_source_meta = 1;
      }
    }
    (void)d;
    if (cv.oom) return PM_NOMEM(err);
    PM_TRY(pm_index_entries_append_owned(x->out, &e, err));
  }
  return 0;
}

int pm_index_manifest_decode_orc(const uint8_t *data, size_t len, const char *name, pm_index_entries *out,
                                 pm_error *err) {
  ictx x = {name, out};
  return orc_iterate(data, len, name, index_batch, &x, err);
}
