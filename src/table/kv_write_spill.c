/* The spillable write buffer of the primary-key writer (write-buffer-spillable,
 * Java's SortBufferWriteBuffer over a BinaryExternalSortBuffer): a full buffer
 * becomes a sorted run of its raw records in a local temp file (kv_spill.h)
 * instead of a level-0 file; a flush k-way merges the runs and the buffer
 * (sources: pm_merge_source) into one stream in key then sequence order, and
 * the merge engine (pm_merge_sorted_batch) merges all records of a key at
 * once, as Java's flush does, into level-0 files rolled at target-file-size.
 * More runs than local-sort.max-num-file-handles are first merged
 * oldest-first into intermediate runs (a plain sort merge, no engine). */
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow.h"
#include "arrow/compute.h"
#include "table/kv_write_internal.h"

static int runs_reserve(pm_kvslot *s, pm_error *err) {
  if (s->n_runs < s->cap_runs) return 0;
  size_t cap = s->cap_runs ? 2 * s->cap_runs : 8;
  pm_spill_run *nr = realloc(s->runs, cap * sizeof *nr);
  if (!nr) return PM_NOMEM(err);
  s->runs = nr;
  s->cap_runs = cap;
  return 0;
}

void pm_kv_slot_drop_runs(pm_kv_write *w, pm_kvslot *s) {
  for (size_t i = 0; i < s->n_runs; i++) pm_spill_run_drop(&w->spill, &s->runs[i]);
  s->n_runs = 0;
}

int pm_kv_spill_slot(pm_kv_write *w, pm_kvslot *s, pm_error *err) {
  if (!s->n_chunks) return 0;
  pm_spill_writer *wr = NULL;
  int rc = runs_reserve(s, err);
  if (!rc) rc = pm_spill_writer_open(&w->spill, &w->layout, &wr, err);
  if (!rc) rc = pm_kv_sort_spill(w, s, wr, err);
  if (rc) {
    pm_spill_writer_abort(wr);
    return rc;
  }
  pm_spill_run run;
  PM_TRY(pm_spill_writer_close(wr, &run, err));
  s->runs[s->n_runs++] = run;
  return 0;
}

/* ------------------------------------------------------------ sources */

/* A source yielding one in-memory batch once. */
typedef struct once_src {
  struct ArrowArray a;
} once_src;

static int once_next(void *ctx, struct ArrowArray *out, pm_error *err) {
  (void)err;
  once_src *o = ctx;
  if (o->a.release) pm_array_move(&o->a, out);
  else memset(out, 0, sizeof *out);
  return 0;
}

static void once_close(void *ctx) {
  once_src *o = ctx;
  pm_array_release(&o->a);
  free(o);
}

/* ------------------------------------------------------------ the raw k-way merge */

/* Sorted runs (keys ascending, a key's records in sequence order; a later
 * source holds later sequence numbers) merged into one stream in key order,
 * ties by source: key then sequence order. A tournament over the sources'
 * current rows; output rows are gathered from the sources' batches. */
typedef struct rm_src {
  pm_merge_source s;
  struct ArrowArray b;
  int64_t pos;
} rm_src;

typedef struct raw_merge {
  pm_kv_write *w;
  rm_src *src;
  struct ArrowArray **arrays;
  int n;
  int *heap, hn;
  int reload; /* source whose batch ran out at the last chunk, or -1 */
  int32_t *osrc;
  int64_t *orow;
  int64_t cap;
} raw_merge;

static int rm_cmp(const raw_merge *m, int a, int b) {
  const pm_table_merge *tm = &m->w->tm;
  for (int k = 0; k < tm->n_keys; k++) {
    int col = tm->key_cols[k];
    int r = pm_compare_values(&m->w->layout.children[col], m->src[a].b.children[col], m->src[a].pos,
                              m->src[b].b.children[col], m->src[b].pos);
    if (r) return r;
  }
  return a < b ? -1 : a > b;
}

static void rm_down(raw_merge *m, int i) {
  for (;;) {
    int l = 2 * i + 1, r = l + 1, best = i;
    if (l < m->hn && rm_cmp(m, m->heap[l], m->heap[best]) < 0) best = l;
    if (r < m->hn && rm_cmp(m, m->heap[r], m->heap[best]) < 0) best = r;
    if (best == i) return;
    int t = m->heap[i];
    m->heap[i] = m->heap[best];
    m->heap[best] = t;
    i = best;
  }
}

/* The next non-empty batch of source i into src[i].b (released at the end). */
static int rm_load(raw_merge *m, int i, pm_error *err) {
  rm_src *r = &m->src[i];
  pm_array_release(&r->b);
  for (;;) {
    PM_TRY(r->s.next(r->s.ctx, &r->b, err));
    if (!r->b.release || r->b.length > 0) break;
    pm_array_release(&r->b);
  }
  r->pos = 0;
  return 0;
}

static void rm_close(raw_merge *m) {
  for (int i = 0; i < m->n; i++) {
    pm_array_release(&m->src[i].b);
    if (m->src[i].s.close) m->src[i].s.close(m->src[i].s.ctx);
  }
  free(m->src);
  free(m->arrays);
  free(m->heap);
  free(m->osrc);
  free(m->orow);
  memset(m, 0, sizeof *m);
}

/* Takes the sources (closed by rm_close, also on failure). */
static int rm_open(raw_merge *m, pm_kv_write *w, pm_merge_source *sources, int n, pm_error *err) {
  memset(m, 0, sizeof *m);
  m->w = w;
  m->n = n;
  m->reload = -1;
  m->cap = 16384;
  m->src = calloc((size_t)n + 1, sizeof *m->src);
  m->arrays = calloc((size_t)n + 1, sizeof *m->arrays);
  m->heap = calloc((size_t)n + 1, sizeof *m->heap);
  m->osrc = malloc((size_t)m->cap * sizeof *m->osrc);
  m->orow = malloc((size_t)m->cap * sizeof *m->orow);
  if (!m->src || !m->arrays || !m->heap || !m->osrc || !m->orow) {
    for (int i = 0; i < n; i++)
      if (sources[i].close) sources[i].close(sources[i].ctx);
    m->n = 0;
    rm_close(m);
    return PM_NOMEM(err);
  }
  for (int i = 0; i < n; i++) m->src[i].s = sources[i];
  for (int i = 0; i < n; i++) {
    m->arrays[i] = &m->src[i].b;
    int rc = rm_load(m, i, err);
    if (rc) {
      rm_close(m);
      return rc;
    }
    if (m->src[i].b.release) m->heap[m->hn++] = i;
  }
  for (int i = m->hn / 2 - 1; i >= 0; i--) rm_down(m, i);
  return 0;
}

/* The next chunk of the merged stream (released struct at the end). */
static int rm_next(raw_merge *m, struct ArrowArray *out, pm_error *err) {
  memset(out, 0, sizeof *out);
  if (m->reload >= 0) {
    int i = m->reload;
    m->reload = -1;
    PM_TRY(rm_load(m, i, err));
    if (m->src[i].b.release) {
      rm_down(m, 0);
    } else {
      m->heap[0] = m->heap[--m->hn];
      rm_down(m, 0);
    }
  }
  int64_t n = 0;
  while (m->hn && n < m->cap) {
    int top = m->heap[0];
    rm_src *r = &m->src[top];
    m->osrc[n] = top;
    m->orow[n] = r->pos;
    n++;
    if (++r->pos == r->b.length) {
      m->reload = top; /* its batch is referenced by the chunk: load the next one after */
      break;
    }
    rm_down(m, 0);
  }
  if (!n) return 0;
  return pm_gather(&m->w->layout, m->arrays, m->osrc, m->orow, n, out, err);
}

/* ------------------------------------------------------------ flush */

static int open_sources(pm_kv_write *w, pm_kvslot *s, size_t from, size_t to, struct ArrowArray *mem,
                        raw_merge *m, pm_error *err) {
  size_t n = to - from + (mem ? 1 : 0);
  pm_merge_source *src = calloc(n + 1, sizeof *src);
  if (!src) {
    if (mem) pm_array_release(mem);
    return PM_NOMEM(err);
  }
  int rc = 0;
  size_t k = 0;
  for (size_t i = from; !rc && i < to; i++) {
    rc = pm_spill_source(&w->spill, &w->layout, &s->runs[i], &src[k], err);
    if (!rc) k++;
  }
  if (!rc && mem) {
    once_src *o = calloc(1, sizeof *o);
    if (!o) rc = PM_NOMEM(err);
    else {
      pm_array_move(mem, &o->a);
      src[k].ctx = o;
      src[k].next = once_next;
      src[k].close = once_close;
      k++;
    }
  }
  if (mem && mem->release) pm_array_release(mem);
  if (rc) {
    for (size_t i = 0; i < k; i++)
      if (src[i].close) src[i].close(src[i].ctx);
    free(src);
    return rc;
  }
  rc = rm_open(m, w, src, (int)k, err);
  free(src);
  return rc;
}

/* Merges runs[0, k) into one run that replaces them (at position 0). */
static int merge_oldest(pm_kv_write *w, pm_kvslot *s, size_t k, pm_error *err) {
  raw_merge m;
  PM_TRY(open_sources(w, s, 0, k, NULL, &m, err));
  pm_spill_writer *wr = NULL;
  int rc = pm_spill_writer_open(&w->spill, &w->layout, &wr, err);
  while (!rc) {
    struct ArrowArray b;
    rc = rm_next(&m, &b, err);
    if (rc || !b.release) break;
    rc = pm_spill_writer_add(wr, &b, err);
    pm_array_release(&b);
  }
  rm_close(&m);
  if (rc) {
    pm_spill_writer_abort(wr);
    return rc;
  }
  pm_spill_run run;
  PM_TRY(pm_spill_writer_close(wr, &run, err));
  for (size_t i = 0; i < k; i++) pm_spill_run_drop(&w->spill, &s->runs[i]);
  s->runs[0] = run;
  memmove(s->runs + 1, s->runs + k, (s->n_runs - k) * sizeof *s->runs);
  s->n_runs -= k - 1;
  return 0;
}

static int same_key(const pm_kv_write *w, const struct ArrowArray *a, int64_t i, int64_t j) {
  for (int k = 0; k < w->tm.n_keys; k++) {
    int col = w->tm.key_cols[k];
    if (pm_compare_values(&w->layout.children[col], a->children[col], i, a->children[col], j)) return 0;
  }
  return 1;
}

/* Rows [from, to) of a as a new array. */
static int rows_of(pm_kv_write *w, const struct ArrowArray *a, int64_t from, int64_t to, struct ArrowArray *out,
                   pm_error *err) {
  int64_t n = to - from;
  int64_t *idx = malloc((size_t)(n ? n : 1) * sizeof *idx);
  if (!idx) return PM_NOMEM(err);
  for (int64_t i = 0; i < n; i++) idx[i] = from + i;
  int rc = pm_take(&w->layout, a, idx, n, out, err);
  free(idx);
  return rc;
}

/* Merges the keys of sorted raw batch b (all its records of each key) and writes them. */
static int merge_write(pm_kv_write *w, pm_kv_roll *r, const struct ArrowArray *b, pm_error *err) {
  if (!b->length) return 0;
  struct ArrowArray m;
  PM_TRY(pm_merge_sorted_batch(&w->tm.cfg, b, &m, err));
  int rc = pm_kv_roll_write(r, &m, err);
  pm_array_release(&m);
  return rc;
}

int pm_kv_flush_spilled(pm_kv_write *w, pm_kvslot *s, pm_error *err) {
  /* the rest of the buffer becomes a run too: the merge then holds one block per run */
  PM_TRY(pm_kv_spill_slot(w, s, err));
  struct ArrowArray mem;
  memset(&mem, 0, sizeof mem);
  int has_mem = 0;
  size_t fan = (size_t)(w->fan_in > 1 ? w->fan_in : 2);
  int rc = 0;
  while (!rc && s->n_runs + (size_t)has_mem > fan) {
    size_t k = s->n_runs + (size_t)has_mem - fan + 1;
    if (k > fan) k = fan;
    if (k > s->n_runs) k = s->n_runs;
    rc = merge_oldest(w, s, k, err);
  }
  if (rc) {
    pm_array_release(&mem);
    return rc;
  }
  raw_merge m;
  PM_TRY(open_sources(w, s, 0, s->n_runs, has_mem ? &mem : NULL, &m, err));
  size_t before = s->out.n;
  pm_kv_roll r;
  pm_kv_roll_init(&r, w, s->bucket_dir, 0, PM_SOURCE_APPEND, 0, &s->out);
  /* chunks of the stream cut at key boundaries: the last key of a chunk waits
   * in `carry` for the rest of its records */
  struct ArrowArray carry;
  memset(&carry, 0, sizeof carry);
  while (!rc) {
    struct ArrowArray b, all;
    rc = rm_next(&m, &b, err);
    if (rc) break;
    if (!b.release) {
      if (carry.release) rc = merge_write(w, &r, &carry, err);
      break;
    }
    if (carry.release) {
      const struct ArrowArray *two[2] = {&carry, &b};
      rc = pm_concat(&w->layout, two, 2, &all, err);
      pm_array_release(&carry);
      pm_array_release(&b);
      if (rc) break;
    } else {
      pm_array_move(&b, &all);
    }
    int64_t cut = all.length - 1;
    while (cut > 0 && same_key(w, &all, cut - 1, all.length - 1)) cut--;
    struct ArrowArray head;
    memset(&head, 0, sizeof head);
    if (cut > 0) rc = rows_of(w, &all, 0, cut, &head, err);
    if (!rc) rc = rows_of(w, &all, cut, all.length, &carry, err);
    pm_array_release(&all);
    if (!rc && cut > 0) rc = merge_write(w, &r, &head, err);
    pm_array_release(&head);
  }
  pm_array_release(&carry);
  rm_close(&m);
  if (!rc) rc = pm_kv_roll_finish(&r, err);
  if (rc) {
    pm_kv_roll_abort(&r);
    return rc;
  }
  pm_kv_slot_drop_runs(w, s);
  return pm_kv_flushed(w, s, s->out.items + before, s->out.n - before, err);
}
