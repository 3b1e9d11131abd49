/* Flushing a primary-key write buffer (kv_write.h): sort by key, merge each
 * key's records with the table's merge engine (merge.h), write level-0
 * key/value files with Java's DataFileMeta. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow.h"
#include "arrow/compute.h"
#include "io/fs.h"
#include "table/kv_write_internal.h"
#include "table/partition.h"
#include "table/write_internal.h"
#include "util/sort.h"

/* ------------------------------------------------------------ sort */

/* k[i] = the single integer key of row (rows ? rows[i] : i) of b, i < n; 0 when the key is
 * not one non-null integer column. */
static int int_keys_at(const pm_kv_write *w, const struct ArrowArray *b, const int64_t *rows, int64_t n, int64_t *k) {
  if (w->tm.n_keys != 1) return 0;
  int col = w->tm.key_cols[0];
  const struct ArrowArray *a = b->children[col];
  const pm_type *t = &w->layout.children[col];
  if (a->null_count != 0) return 0;
  int64_t off = a->offset;
  const void *d = a->buffers[1];
#define PM_KEYS_AT(T)                                                  \
  for (int64_t i = 0; i < n; i++) k[i] = ((const T *)d)[off + (rows ? rows[i] : i)]; \
  return 1
  switch (t->id) {
    case PM_T_INT8: PM_KEYS_AT(int8_t);
    case PM_T_INT16: PM_KEYS_AT(int16_t);
    case PM_T_INT32:
    case PM_T_DATE32:
    case PM_T_TIME32: PM_KEYS_AT(int32_t);
    case PM_T_INT64:
    case PM_T_DATE64:
    case PM_T_TIME64:
    case PM_T_TIMESTAMP: PM_KEYS_AT(int64_t);
    default: return 0;
  }
#undef PM_KEYS_AT
}

int pm_kv_int_keys(const pm_kv_write *w, const struct ArrowArray *b, int64_t *k) {
  return int_keys_at(w, b, NULL, b->length, k);
}

int pm_kv_presort(const pm_kv_write *w, const struct ArrowArray *b, const int64_t *rows, int64_t n, size_t **perm,
                  int64_t **sorted, pm_error *err) {
  *perm = NULL;
  *sorted = NULL;
  if (n < 2 || w->tm.n_keys != 1) return 0;
  int64_t *k = malloc((size_t)n * sizeof *k);
  if (!k) return PM_NOMEM(err);
  if (!int_keys_at(w, b, rows, n, k)) {
    free(k);
    return 0;
  }
  size_t *idx = malloc((size_t)n * sizeof *idx);
  int64_t *sr = malloc((size_t)n * sizeof *sr);
  int rc = idx && sr ? 0 : PM_NOMEM(err);
  if (!rc) {
    for (int64_t i = 0; i < n; i++) idx[i] = (size_t)i;
    if (pm_sort_indices_i64(idx, (size_t)n, k)) rc = PM_NOMEM(err);
  }
  free(k);
  if (rc) {
    free(idx);
    free(sr);
    return rc;
  }
  for (int64_t i = 0; i < n; i++) sr[i] = rows[idx[i]];
  *perm = idx;
  *sorted = sr;
  return 0;
}

/* Rows of the slot's chunks numbered globally in arrival order; chunk of a
 * global row by binary search over the chunks' first rows. */
typedef struct multi_ctx {
  const pm_kv_write *w;
  const pm_kvslot *s;
  const int64_t *first; /* n_chunks + 1 */
} multi_ctx;

static size_t chunk_of(const multi_ctx *c, int64_t g) {
  size_t lo = 0, hi = c->s->n_chunks;
  while (hi - lo > 1) {
    size_t mid = (lo + hi) / 2;
    if (c->first[mid] <= g) lo = mid;
    else hi = mid;
  }
  return lo;
}

static int multi_order(const void *ctx, size_t a, size_t b) {
  const multi_ctx *c = ctx;
  size_t ca = chunk_of(c, (int64_t)a), cb = chunk_of(c, (int64_t)b);
  const struct ArrowArray *xa = &c->s->chunks[ca], *xb = &c->s->chunks[cb];
  int64_t ra = (int64_t)a - c->first[ca], rb = (int64_t)b - c->first[cb];
  const pm_table_merge *tm = &c->w->tm;
  for (int k = 0; k < tm->n_keys; k++) {
    int col = tm->key_cols[k];
    int r = pm_compare_values(&c->w->layout.children[col], xa->children[col], ra, xb->children[col], rb);
    if (r) return r;
  }
  return 0;
}

/* The slot's buffered records in key order (stable: a key's records stay in
 * arrival = sequence order): record k is row row[k] of chunks[src[k]];
 * keys[k] its single integer key (keys NULL when the key is not one integer
 * column). The chunks stay in the slot. */
typedef struct slot_order {
  const struct ArrowArray **chunks;
  size_t n_chunks;
  int32_t *src;
  int64_t *row;
  int64_t *keys;
  int64_t n;
} slot_order;

static void slot_order_free(slot_order *o) {
  free(o->chunks);
  free(o->src);
  free(o->row);
  free(o->keys);
  memset(o, 0, sizeof *o);
}

static int slot_order_build(const pm_kv_write *w, const pm_kvslot *s, slot_order *o, pm_error *err) {
  memset(o, 0, sizeof *o);
  size_t nc = s->n_chunks;
  int64_t *first = malloc((nc + 1) * sizeof *first);
  o->chunks = malloc((nc + 1) * sizeof *o->chunks);
  if (!first || !o->chunks) {
    free(first);
    slot_order_free(o);
    return PM_NOMEM(err);
  }
  first[0] = 0;
  for (size_t i = 0; i < nc; i++) {
    first[i + 1] = first[i] + s->chunks[i].length;
    o->chunks[i] = &s->chunks[i];
  }
  o->n_chunks = nc;
  int64_t n = o->n = first[nc];
  size_t cells = (size_t)(n ? n : 1);
  int64_t *fk = w->tm.n_keys == 1 ? malloc(cells * sizeof *fk) : NULL;
  for (size_t i = 0; fk && i < nc; i++)
    if (!pm_kv_int_keys(w, &s->chunks[i], fk + first[i])) {
      free(fk);
      fk = NULL;
    }
  size_t *idx = malloc(cells * sizeof *idx);
  o->src = malloc(cells * sizeof *o->src);
  o->row = malloc(cells * sizeof *o->row);
  if (fk) o->keys = malloc(cells * sizeof *o->keys);
  int rc = idx && o->src && o->row && (!fk || o->keys) ? 0 : PM_NOMEM(err);
  if (!rc) {
    for (int64_t i = 0; i < n; i++) idx[i] = (size_t)i;
    multi_ctx c = {w, s, first};
    if (fk ? pm_sort_indices_i64(idx, (size_t)n, fk) : pm_sort_indices(idx, (size_t)n, multi_order, &c))
      rc = PM_NOMEM(err);
    for (int64_t i = 0; !rc && i < n; i++) {
      int64_t g = (int64_t)idx[i];
      size_t ch = nc == 1 ? 0 : chunk_of(&c, g);
      o->src[i] = (int32_t)ch;
      o->row[i] = g - first[ch];
      if (fk) o->keys[i] = fk[g];
    }
  }
  free(idx);
  free(fk);
  free(first);
  if (rc) slot_order_free(o);
  return rc;
}

static void slot_clear(pm_kv_write *w, pm_kvslot *s) {
  for (size_t i = 0; i < s->n_chunks; i++) pm_array_release(&s->chunks[i]);
  s->n_chunks = 0;
  w->buffered -= s->bytes;
  s->bytes = 0;
}

/* *out = the buffer's records sorted by key, merged per key (merge) or all of
 * them; the records are gathered once, straight from the buffer's chunks. */
static int sort_and_merge(pm_kv_write *w, pm_kvslot *s, int merge, struct ArrowArray *out, pm_error *err) {
  memset(out, 0, sizeof *out);
  slot_order o;
  PM_TRY(slot_order_build(w, s, &o, err));
  int rc;
  /* changelog-producer = input: every input record, in flush sort order */
  int input_cl = w->changelog && w->changelog->at_flush;
  if (merge && !input_cl) {
    rc = pm_merge_sorted_rows(&w->tm.cfg, o.chunks, (int)o.n_chunks, o.src, o.row, o.keys, o.n, out, err);
    slot_order_free(&o);
    slot_clear(w, s);
    return rc;
  }
  struct ArrowArray srt;
  rc = pm_gather_batch(&w->layout, o.chunks, (int)o.n_chunks, o.src, o.row, o.n, &srt, err);
  slot_order_free(&o);
  slot_clear(w, s);
  if (rc) return rc;
  if (input_cl) rc = pm_kv_write_rolling(w, s, &srt, 1, err);
  if (!rc && merge) rc = pm_merge_sorted_batch(&w->tm.cfg, &srt, out, err);
  if (!rc && !merge) pm_array_move(&srt, out);
  pm_array_release(&srt);
  return rc;
}

int pm_kv_sort_merge(pm_kv_write *w, pm_kvslot *s, struct ArrowArray *out, pm_error *err) {
  return sort_and_merge(w, s, 1, out, err);
}

int pm_kv_sort(pm_kv_write *w, pm_kvslot *s, struct ArrowArray *out, pm_error *err) {
  return sort_and_merge(w, s, 0, out, err);
}

/* ------------------------------------------------------------ sorted spill, piece by piece */

#define SPILL_PIECE 16384

int pm_kv_sort_spill(pm_kv_write *w, pm_kvslot *s, pm_spill_writer *wr, pm_error *err) {
  slot_order o;
  PM_TRY(slot_order_build(w, s, &o, err));
  int rc = 0;
  /* changelog-producer = input: every input record, in sort order */
  pm_kv_roll cr;
  int input_cl = w->changelog && w->changelog->at_flush;
  if (input_cl) pm_kv_roll_init(&cr, w, s->bucket_dir, 0, PM_SOURCE_APPEND, 1, &s->cl);
  /* pieces of one spill block each, sized from the first piece (which
   * pm_spill_writer_add cuts into blocks itself) */
  int64_t per = SPILL_PIECE;
  for (int64_t a = 0; !rc && a < o.n;) {
    int64_t len = o.n - a < per ? o.n - a : per;
    struct ArrowArray piece;
    rc = pm_gather_batch(&w->layout, o.chunks, (int)o.n_chunks, o.src + a, o.row + a, len, &piece, err);
    if (rc) break;
    if (input_cl) rc = pm_kv_roll_write(&cr, &piece, err);
    if (!rc) rc = a ? pm_spill_writer_add_block(wr, &piece, err) : pm_spill_writer_add(wr, &piece, err);
    if (!a) {
      int64_t b = pm_spill_block_rows(wr, &piece);
      if (b < per) per = b;
    }
    pm_array_release(&piece);
    a += len;
  }
  if (input_cl) {
    if (!rc) rc = pm_kv_roll_finish(&cr, err);
    if (rc) pm_kv_roll_abort(&cr);
  }
  slot_order_free(&o);
  slot_clear(w, s);
  return rc;
}

/* ------------------------------------------------------------ files */

/* A struct view over borrowed child arrays (the file layout of a merged batch). */
typedef struct file_view {
  struct ArrowArray a;
  struct ArrowArray **children;
  const void *buffers[1];
} file_view;

static void file_view_release(struct ArrowArray *a) { a->release = NULL; }

static int file_view_init(pm_kv_write *w, const struct ArrowArray *m, file_view *v, pm_error *err) {
  size_t nk = w->nk, nf = w->nf, n = nk + 2 + nf;
  memset(v, 0, sizeof *v);
  v->children = calloc(n + 1, sizeof *v->children);
  if (!v->children) return PM_NOMEM(err);
  for (size_t k = 0; k < nk; k++) v->children[k] = m->children[w->tm.key_cols[k]];
  v->children[nk] = m->children[nf];
  v->children[nk + 1] = m->children[nf + 1];
  for (size_t f = 0; f < nf; f++) v->children[nk + 2 + f] = m->children[f];
  v->a.length = m->length;
  v->a.n_buffers = 1;
  v->a.buffers = v->buffers;
  v->a.n_children = (int64_t)n;
  v->a.children = v->children;
  v->a.release = file_view_release;
  return 0;
}

/* Manifest-form BinaryRow of the trimmed key of row r of merged batch m. */
static int key_row(pm_kv_write *w, pm_arena *arena, const struct ArrowArray *m, int64_t r, pm_bytes *out,
                   pm_error *err) {
  pm_value vals[64];
  pm_value *v = w->nk <= 64 ? vals : calloc(w->nk, sizeof *v);
  if (!v) return PM_NOMEM(err);
  pm_buf b;
  pm_buf_init(&b);
  int rc = 0;
  for (size_t k = 0; !rc && k < w->nk; k++)
    rc = pm_write_value_at(w->key_fields[k].type, m->children[w->tm.key_cols[k]], r, &v[k], err);
  if (!rc) rc = pm_partition_row_encode((const pm_data_type *const *)w->tm.key_types, v, w->nk, &b, err);
  if (!rc) {
    out->data = pm_arena_memdup(arena, b.data, b.len);
    out->len = b.len;
    if (!out->data) rc = PM_NOMEM(err);
  }
  pm_buf_free(&b);
  if (v != vals) free(v);
  return rc;
}

static int files_reserve(pm_kv_files *f, pm_error *err) {
  if (f->n < f->cap) return 0;
  size_t cap = f->cap ? 2 * f->cap : 4;
  pm_data_file_meta *ni = realloc(f->items, cap * sizeof *ni);
  if (!ni) return PM_NOMEM(err);
  f->items = ni;
  char **np = realloc(f->paths, cap * sizeof *np);
  if (!np) return PM_NOMEM(err);
  f->paths = np;
  f->cap = cap;
  return 0;
}

/* ------------------------------------------------------------ rolling writer */

void pm_kv_roll_init(pm_kv_roll *r, pm_kv_write *w, const char *dir, int32_t level, int8_t source, int changelog,
                     pm_kv_files *out) {
  memset(r, 0, sizeof *r);
  r->w = w;
  r->dir = dir;
  r->level = level;
  r->source = source;
  r->out = out;
  r->arena = &w->arena;
  r->fed_acc = &w->closed_fed;
  r->bytes_acc = &w->closed_bytes;
  if (changelog) {
    const pm_kv_changelog *c = w->changelog;
    r->fmt = c->fmt;
    r->wo = &c->wo;
    r->schema = &c->file_schema;
    r->key_modes = c->key_modes;
    r->value_modes = c->value_modes;
    r->prefix = c->prefix;
  } else {
    r->fmt = w->fmt;
    r->wo = &w->wo;
    r->schema = &w->file_schema;
    r->key_modes = w->key_modes;
    r->value_modes = w->value_modes;
    r->prefix = w->file_prefix ? w->file_prefix : w->t->co.data_file_prefix ? w->t->co.data_file_prefix : "data-";
  }
}

static void roll_drop_current(pm_kv_roll *r) {
  if (r->fw) pm_format_writer_abort(r->fw);
  r->fw = NULL;
  free(r->path);
  r->path = NULL;
  free(r->dec);
  r->dec = NULL;
  pm_buf_free(&r->max_row);
}

static int roll_open(pm_kv_roll *r, pm_error *err) {
  pm_kv_write *w = r->w;
  /* a compaction task shares nothing mutable with the writer (in the background the writer
   * flushes into its arena and counters meanwhile) */
  if (pm_kv_in_task(w) && (r->arena == &w->arena || r->fed_acc == &w->closed_fed || r->bytes_acc == &w->closed_bytes))
    return pm_errorf(err, PAIMON_ERR_INTERNAL, "%s: a compaction task writing files into the writer's own arena",
                     r->dir);
  snprintf(r->name, sizeof r->name, "%s%s-%lld.%s", r->prefix, w->uuid, (long long)atomic_fetch_add(&w->file_counter, 1), r->fmt->name);
  size_t pl = strlen(r->dir) + strlen(r->name) + 2;
  r->path = malloc(pl);
  r->dec = calloc(w->nk + 2 + w->nf + 1, sizeof *r->dec);
  if (!r->path || !r->dec) {
    roll_drop_current(r);
    return PM_NOMEM(err);
  }
  snprintf(r->path, pl, "%s/%s", r->dir, r->name);
  int rc = pm_fs_mkdirs(w->t->fs, r->dir, err);
  pm_out_file *sink = NULL;
  if (!rc) rc = pm_fs_create(w->t->fs, r->path, &sink, err);
  if (!rc) rc = pm_format_writer_open_sink(r->fmt, sink, r->schema, r->wo, &r->fw, err); /* takes sink */
  if (rc) {
    r->fw = NULL;
    roll_drop_current(r);
    return rc;
  }
  r->rows = 0;
  r->fed = 0;
  r->lo = INT64_MAX;
  r->hi = INT64_MIN;
  r->deletes = 0;
  r->min_key.data = NULL;
  r->min_key.len = 0;
  pm_buf_init(&r->max_row);
  return 0;
}

/* Closes the current file and records its meta in r->out. */
static int roll_close(pm_kv_roll *r, pm_error *err) {
  pm_kv_write *w = r->w;
  size_t nk = w->nk, nf = w->nf;
  pm_format_write_result res;
  memset(&res, 0, sizeof res);
  int rc = files_reserve(r->out, err);
  if (rc) {
    roll_drop_current(r);
    return rc;
  }
  rc = pm_format_writer_close(r->fw, &res, err);
  r->fw = NULL;
  if (rc) {
    roll_drop_current(r);
    pm_format_write_result_free(&res);
    return rc;
  }
  /* complete: the owner of r->out may delete it from now on */
  pm_data_file_meta *fm = &r->out->items[r->out->n];
  memset(fm, 0, sizeof *fm);
  r->out->paths[r->out->n++] = r->path;
  r->path = NULL;
  fm->file_name = pm_arena_strdup(r->arena, r->name);
  if (!fm->file_name) rc = PM_NOMEM(err);
  fm->file_size = (int64_t)res.file_size;
  fm->row_count = res.row_count;
  *r->fed_acc += (uint64_t)r->fed;
  *r->bytes_acc += res.file_size;
  fm->min_key = r->min_key;
  fm->max_key.data = pm_arena_memdup(r->arena, r->max_row.data, r->max_row.len);
  fm->max_key.len = r->max_row.len;
  if (!fm->max_key.data) rc = PM_NOMEM(err);
  if (!rc)
    rc = pm_write_stats(w->key_fields, nk, r->key_modes, res.columns, res.n_columns < nk ? res.n_columns : nk, r->dec, 0,
                        r->arena, &fm->key_stats, NULL, err);
  if (!rc) {
    size_t vc = res.n_columns > nk + 2 ? res.n_columns - nk - 2 : 0;
    rc = pm_write_stats(w->fields, nf, r->value_modes, vc ? res.columns + nk + 2 : NULL, vc, r->dec + nk + 2, w->dense,
                        r->arena, &fm->value_stats, &fm->value_stats_cols, err);
  }
  fm->min_sequence_number = r->lo;
  fm->max_sequence_number = r->hi;
  fm->schema_id = w->t->schema_id;
  fm->level = r->level;
  fm->creation_time_millis = pm_write_local_millis();
  fm->has_creation_time = 1;
  fm->delete_row_count = r->deletes;
  fm->has_delete_row_count = 1;
  fm->file_source = r->source;
  fm->write_cols.is_null = 1;
  fm->write_cols_sequences_is_null = 1;
  r->files++;
  r->fed = 0;
  r->bytes += fm->file_size;
  r->rows_total += fm->row_count;
  roll_drop_current(r);
  pm_format_write_result_free(&res);
  return rc;
}

/* Writes rows [start, start+len) of merged batch m (file view fv) into the current file. */
static int roll_part(pm_kv_roll *r, const struct ArrowArray *m, const struct ArrowArray *fv, int64_t start,
                     int64_t len, pm_error *err) {
  pm_kv_write *w = r->w;
  size_t nk = w->nk, nf = w->nf;
  if (!r->fw) PM_TRY(roll_open(r, err));
  struct ArrowArray part;
  memset(&part, 0, sizeof part);
  int rc = pm_write_slice(fv, start, len, &part, err);
  if (!rc) {
    pm_write_track_decimals(w->key_fields, nk, r->dec, &part, 0);
    pm_write_track_decimals(w->fields, nf, r->dec + nk + 2, &part, (int64_t)nk + 2);
    rc = pm_format_writer_write(r->fw, &part, err);
  }
  pm_array_release(&part);
  if (!rc && !r->min_key.data) rc = key_row(w, r->arena, m, start, &r->min_key, err);
  if (!rc) {
    pm_bytes mk;
    rc = key_row(w, r->arena, m, start + len - 1, &mk, err);
    r->max_row.len = 0;
    if (!rc && pm_buf_append(&r->max_row, mk.data, mk.len)) rc = PM_NOMEM(err);
  }
  if (rc) {
    roll_drop_current(r);
    return rc;
  }
  const int64_t *seq = (const int64_t *)m->children[nf]->buffers[1] + m->children[nf]->offset;
  const int8_t *kind = (const int8_t *)m->children[nf + 1]->buffers[1] + m->children[nf + 1]->offset;
  for (int64_t i = start; i < start + len; i++) {
    if (seq[i] < r->lo) r->lo = seq[i];
    if (seq[i] > r->hi) r->hi = seq[i];
    r->deletes += pm_rowkind_is_retract(kind[i]);
  }
  r->rows += len;
  return 0;
}

int pm_kv_roll_write(pm_kv_roll *r, const struct ArrowArray *m, pm_error *err) {
  pm_kv_write *w = r->w;
  int64_t n = m->length;
  if (!n) return 0;
  file_view fv;
  PM_TRY(file_view_init(w, m, &fv, err));
  /* rows per piece from the in-memory size scaled by the compression seen */
  double bpr = (double)pm_write_batch_bytes(m, w->fields, w->nf) / (double)n + 9;
  int rc = 0;
  for (int64_t a = 0; !rc && a < n;) {
    /* the file's size as its writer reports it, else estimated by the compression learned */
    double ratio = pm_write_size_ratio(*r->fed_acc, *r->bytes_acc), pb;
    double room = (double)w->target - pm_write_roll_size(r->fw, r->fed, ratio, &pb);
    int64_t per = room <= bpr * pb ? 1 : (int64_t)(room / (bpr * pb));
    if (per > n - a) per = n - a;
    rc = roll_part(r, m, &fv.a, a, per, err);
    if (rc) break;
    r->fed += bpr * (double)per;
    a += per;
    if (pm_write_roll_size(r->fw, r->fed, ratio, &pb) >= (double)w->target) rc = roll_close(r, err);
  }
  free(fv.children);
  return rc;
}

int pm_kv_roll_finish(pm_kv_roll *r, pm_error *err) { return r->fw ? roll_close(r, err) : 0; }

void pm_kv_roll_abort(pm_kv_roll *r) { roll_drop_current(r); }

int pm_kv_write_rolling(pm_kv_write *w, pm_kvslot *s, const struct ArrowArray *m, int changelog, pm_error *err) {
  pm_kv_roll r;
  pm_kv_roll_init(&r, w, s->bucket_dir, 0, PM_SOURCE_APPEND, changelog, changelog ? &s->cl : &s->out);
  int rc = pm_kv_roll_write(&r, m, err);
  if (!rc) rc = pm_kv_roll_finish(&r, err);
  if (rc) pm_kv_roll_abort(&r);
  return rc;
}

int pm_kv_flush(pm_kv_write *w, pm_kvslot *s, pm_error *err) {
  if (w->postpone) return pm_kv_postpone_flush(w, s, err);
  if (s->n_runs) return pm_kv_flush_spilled(w, s, err);
  /* lookup-compact = gentle counts every trigger, as Java's prepareCommit triggers one with an empty buffer too */
  if (!s->n_chunks) return s->has_levels && s->picker.lookup_interval > 0 ? pm_kv_flushed(w, s, NULL, 0, err) : 0;
  struct ArrowArray m;
  PM_TRY(pm_kv_sort_merge(w, s, &m, err));
  size_t before = s->out.n;
  int rc = pm_kv_write_rolling(w, s, &m, 0, err);
  pm_array_release(&m);
  if (!rc) rc = pm_kv_flushed(w, s, s->out.items + before, s->out.n - before, err);
  return rc;
}
