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

typedef struct sort_ctx {
  const pm_kv_write *w;
  const struct ArrowArray *b;
  const int64_t *fk; /* single integer key as int64, or NULL */
} sort_ctx;

static int key_order(const void *ctx, size_t a, size_t b) {
  const sort_ctx *c = ctx;
  if (c->fk) return c->fk[a] < c->fk[b] ? -1 : c->fk[a] > c->fk[b];
  const pm_table_merge *tm = &c->w->tm;
  for (int k = 0; k < tm->n_keys; k++) {
    int col = tm->key_cols[k];
    int r = pm_compare_values(&c->w->layout.children[col], c->b->children[col], (int64_t)a, c->b->children[col],
                              (int64_t)b);
    if (r) return r;
  }
  return 0;
}

/* The single integer key of b as int64 (NULL when the key is not one integer column). */
static int64_t *int_keys(const pm_kv_write *w, const struct ArrowArray *b) {
  if (w->tm.n_keys != 1) return NULL;
  int col = w->tm.key_cols[0];
  const struct ArrowArray *a = b->children[col];
  const pm_type *t = &w->layout.children[col];
  if (a->null_count != 0) return NULL;
  int64_t n = a->length, off = a->offset;
  int64_t *k;
  switch (t->id) {
    case PM_T_INT8:
    case PM_T_INT16:
    case PM_T_INT32:
    case PM_T_DATE32:
    case PM_T_TIME32:
    case PM_T_INT64:
    case PM_T_DATE64:
    case PM_T_TIME64:
    case PM_T_TIMESTAMP: break;
    default: return NULL;
  }
  if (!(k = malloc((size_t)n * sizeof *k + 8))) return NULL;
  const void *d = a->buffers[1];
  for (int64_t i = 0; i < n; i++) {
    switch (t->id) {
      case PM_T_INT8: k[i] = ((const int8_t *)d)[off + i]; break;
      case PM_T_INT16: k[i] = ((const int16_t *)d)[off + i]; break;
      case PM_T_INT32:
      case PM_T_DATE32:
      case PM_T_TIME32: k[i] = ((const int32_t *)d)[off + i]; break;
      default: k[i] = ((const int64_t *)d)[off + i]; break;
    }
  }
  return k;
}

/* *out = the buffer's records sorted by key (stable: a key's records stay in
 * arrival = sequence order), merged per key. */
static int sort_and_merge(pm_kv_write *w, pm_kvslot *s, struct ArrowArray *out, pm_error *err) {
  struct ArrowArray all;
  int rc;
  if (s->n_chunks == 1) {
    pm_array_move(&s->chunks[0], &all);
  } else {
    const struct ArrowArray **ptrs = malloc(s->n_chunks * sizeof *ptrs);
    if (!ptrs) return PM_NOMEM(err);
    for (size_t i = 0; i < s->n_chunks; i++) ptrs[i] = &s->chunks[i];
    rc = pm_concat(&w->layout, (const struct ArrowArray *const *)ptrs, (int64_t)s->n_chunks, &all, err);
    free(ptrs);
    if (rc) return rc;
  }
  for (size_t i = 0; i < s->n_chunks; i++) pm_array_release(&s->chunks[i]);
  s->n_chunks = 0;
  w->buffered -= s->bytes;
  s->bytes = 0;
  int64_t n = all.length;
  size_t *idx = malloc((size_t)n * sizeof *idx + 8);
  int64_t *perm = malloc((size_t)n * sizeof *perm + 8);
  sort_ctx c = {w, &all, NULL};
  int64_t *fk = int_keys(w, &all);
  c.fk = fk;
  rc = idx && perm ? 0 : PM_NOMEM(err);
  if (!rc) {
    for (int64_t i = 0; i < n; i++) idx[i] = (size_t)i;
    if (pm_sort_indices(idx, (size_t)n, key_order, &c)) rc = PM_NOMEM(err);
  }
  int sorted = 1;
  for (int64_t i = 0; !rc && i < n; i++) {
    perm[i] = (int64_t)idx[i];
    sorted &= perm[i] == i;
  }
  struct ArrowArray srt;
  memset(&srt, 0, sizeof srt);
  if (!rc && !sorted) rc = pm_take(&w->layout, &all, perm, n, &srt, err);
  free(idx);
  free(perm);
  free(fk);
  /* changelog-producer = input: every input record, in flush sort order */
  if (!rc && w->changelog) rc = pm_kv_write_rolling(w, s, sorted ? &all : &srt, 1, err);
  if (!rc) rc = pm_merge_sorted_batch(&w->tm.cfg, sorted ? &all : &srt, out, err);
  pm_array_release(&srt);
  pm_array_release(&all);
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
static int key_row(pm_kv_write *w, const struct ArrowArray *m, int64_t r, pm_bytes *out, pm_error *err) {
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
    out->data = pm_arena_memdup(&w->arena, b.data, b.len);
    out->len = b.len;
    if (!out->data) rc = PM_NOMEM(err);
  }
  pm_buf_free(&b);
  if (v != vals) free(v);
  return rc;
}

/* Where one kind of file goes: data files or changelog files of a slot. */
typedef struct file_kind {
  const pm_format *fmt;
  const pm_format_write_options *wo;
  const struct ArrowSchema *schema;
  const pm_stats_mode *key_modes, *value_modes;
  const char *prefix;
  pm_data_file_meta **files;
  char ***paths;
  size_t *n, *cap;
} file_kind;

static void file_kind_of(pm_kv_write *w, pm_kvslot *s, int changelog, file_kind *k) {
  if (changelog) {
    const pm_kv_changelog *c = w->changelog;
    *k = (file_kind){c->fmt, &c->wo, &c->file_schema, c->key_modes, c->value_modes, c->prefix,
                     &s->cl_files, &s->cl_paths, &s->n_cl_files, &s->cap_cl_files};
  } else {
    *k = (file_kind){w->fmt, &w->wo, &w->file_schema, w->key_modes, w->value_modes,
                     w->t->co.data_file_prefix ? w->t->co.data_file_prefix : "data-",
                     &s->files, &s->file_paths, &s->n_files, &s->cap_files};
  }
}

static int add_file_slot(const file_kind *k, pm_error *err) {
  if (*k->n < *k->cap) return 0;
  size_t cap = *k->cap ? 2 * *k->cap : 4;
  pm_data_file_meta *nf = realloc(*k->files, cap * sizeof *nf);
  if (!nf) return PM_NOMEM(err);
  *k->files = nf;
  char **np = realloc(*k->paths, cap * sizeof *np);
  if (!np) return PM_NOMEM(err);
  *k->paths = np;
  *k->cap = cap;
  return 0;
}

/* Writes rows [start, start+len) of merged batch m (file view fv) as one file of kind fk. */
static int write_file(pm_kv_write *w, pm_kvslot *s, const file_kind *fk, const struct ArrowArray *m,
                      const struct ArrowArray *fv, int64_t start, int64_t len, pm_error *err) {
  PM_TRY(add_file_slot(fk, err));
  char name[256];
  snprintf(name, sizeof name, "%s%s-%lld.%s", fk->prefix, w->uuid, (long long)w->file_counter++, fk->fmt->name);
  size_t pl = strlen(s->bucket_dir) + strlen(name) + 2;
  char *path = malloc(pl);
  if (!path) return PM_NOMEM(err);
  snprintf(path, pl, "%s/%s", s->bucket_dir, name);
  size_t nk = w->nk, nf = w->nf;
  pm_wdec *dec = calloc(nk + 2 + nf + 1, sizeof *dec);
  struct ArrowArray part;
  memset(&part, 0, sizeof part);
  int rc = dec ? 0 : PM_NOMEM(err);
  if (!rc) rc = pm_fs_mkdirs(w->t->fs, s->bucket_dir, err);
  pm_out_file *sink = NULL;
  pm_format_writer *fw = NULL;
  if (!rc) rc = pm_fs_create(w->t->fs, path, &sink, err);
  if (!rc) rc = pm_format_writer_open_sink(fk->fmt, sink, fk->schema, fk->wo, &fw, err); /* takes sink */
  if (!rc) rc = pm_write_slice(fv, start, len, &part, err);
  if (!rc) {
    pm_write_track_decimals(w->key_fields, nk, dec, &part, 0);
    pm_write_track_decimals(w->fields, nf, dec + nk + 2, &part, (int64_t)nk + 2);
    rc = pm_format_writer_write(fw, &part, err);
  }
  pm_array_release(&part);
  pm_format_write_result res;
  memset(&res, 0, sizeof res);
  if (!rc) {
    rc = pm_format_writer_close(fw, &res, err);
    fw = NULL;
  }
  if (fw) pm_format_writer_abort(fw);
  if (rc) {
    free(dec);
    free(path);
    pm_format_write_result_free(&res);
    return rc;
  }
  /* complete: free() may delete it from now on */
  pm_data_file_meta *fm = &(*fk->files)[*fk->n];
  memset(fm, 0, sizeof *fm);
  (*fk->paths)[(*fk->n)++] = path;
  fm->file_name = pm_arena_strdup(&w->arena, name);
  if (!fm->file_name) rc = PM_NOMEM(err);
  fm->file_size = (int64_t)res.file_size;
  fm->row_count = res.row_count;
  if (!rc) rc = key_row(w, m, start, &fm->min_key, err);
  if (!rc) rc = key_row(w, m, start + len - 1, &fm->max_key, err);
  if (!rc)
    rc = pm_write_stats(w->key_fields, nk, fk->key_modes, res.columns, res.n_columns < nk ? res.n_columns : nk, dec, 0,
                        &w->arena, &fm->key_stats, NULL, err);
  if (!rc) {
    size_t vc = res.n_columns > nk + 2 ? res.n_columns - nk - 2 : 0;
    rc = pm_write_stats(w->fields, nf, fk->value_modes, vc ? res.columns + nk + 2 : NULL, vc, dec + nk + 2, w->dense,
                        &w->arena, &fm->value_stats, &fm->value_stats_cols, err);
  }
  const int64_t *seq = (const int64_t *)m->children[nf]->buffers[1] + m->children[nf]->offset;
  const int8_t *kind = (const int8_t *)m->children[nf + 1]->buffers[1] + m->children[nf + 1]->offset;
  int64_t lo = INT64_MAX, hi = INT64_MIN, deletes = 0;
  for (int64_t i = start; i < start + len; i++) {
    if (seq[i] < lo) lo = seq[i];
    if (seq[i] > hi) hi = seq[i];
    deletes += pm_rowkind_is_retract(kind[i]);
  }
  fm->min_sequence_number = lo;
  fm->max_sequence_number = hi;
  fm->schema_id = w->t->schema_id;
  fm->level = 0;
  fm->creation_time_millis = pm_write_local_millis();
  fm->has_creation_time = 1;
  fm->delete_row_count = deletes;
  fm->has_delete_row_count = 1;
  fm->file_source = PM_SOURCE_APPEND;
  fm->write_cols.is_null = 1;
  fm->write_cols_sequences_is_null = 1;
  free(dec);
  pm_format_write_result_free(&res);
  return rc;
}

int pm_kv_write_rolling(pm_kv_write *w, pm_kvslot *s, const struct ArrowArray *m, int changelog, pm_error *err) {
  int64_t n = m->length;
  if (!n) return 0;
  file_kind fk;
  file_kind_of(w, s, changelog, &fk);
  file_view fv;
  PM_TRY(file_view_init(w, m, &fv, err));
  /* rows per file from the in-memory size (target-file-size) */
  double bpr = (double)pm_write_batch_bytes(m, w->fields, w->nf) / (double)n + 9;
  int64_t per = (int64_t)((double)w->target / bpr);
  if (per < 1) per = 1;
  int rc = 0;
  for (int64_t a = 0; !rc && a < n; a += per) rc = write_file(w, s, &fk, m, &fv.a, a, a + per <= n ? per : n - a, err);
  free(fv.children);
  return rc;
}

int pm_kv_flush(pm_kv_write *w, pm_kvslot *s, pm_error *err) {
  if (!s->n_chunks) return 0;
  struct ArrowArray m;
  PM_TRY(sort_and_merge(w, s, &m, err));
  int rc = pm_kv_write_rolling(w, s, &m, 0, err);
  pm_array_release(&m);
  return rc;
}
