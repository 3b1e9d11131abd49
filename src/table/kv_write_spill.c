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
 * current rows yields a selection of (batch slot, row) pairs; a source's
 * used-up batch stays in its slot (retired) until the caller is done with the
 * selection that references it (rm_gc), so a selection spans batch ends. */
typedef struct rm_src {
  pm_merge_source s;
  int slot; /* slot of its current batch, -1 once done */
  int64_t pos;
} rm_src;

typedef struct rm_slot {
  struct ArrowArray b; /* released: a free slot */
  int64_t *fk;         /* the batch's single integer key as int64 (NULL: compare values) */
  int retired;         /* its source moved on to a later batch */
  int ref;             /* rm_gc: the selection references it */
} rm_slot;

typedef struct raw_merge {
  pm_kv_write *w;
  rm_src *src;
  int n;
  rm_slot *slots;
  struct ArrowArray **arrays; /* per slot: &slots[i].b */
  int n_slots, cap_slots;
  int *heap, hn;
  /* the selection: record k is row orow[k] of slot osrc[k], key okey[k] when
   * every record has an integer key (all_fk) */
  int32_t *osrc;
  int64_t *orow, *okey;
  int64_t n_out, cap;
  int all_fk;
} raw_merge;

static inline int rm_cmp(const raw_merge *m, int a, int b) {
  const rm_src *x = &m->src[a], *y = &m->src[b];
  const rm_slot *sx = &m->slots[x->slot], *sy = &m->slots[y->slot];
  if (sx->fk && sy->fk) {
    int64_t p = sx->fk[x->pos], q = sy->fk[y->pos];
    if (p != q) return p < q ? -1 : 1;
    return a < b ? -1 : a > b;
  }
  const pm_table_merge *tm = &m->w->tm;
  for (int k = 0; k < tm->n_keys; k++) {
    int col = tm->key_cols[k];
    int r = pm_compare_values(&m->w->layout.children[col], sx->b.children[col], x->pos, sy->b.children[col], y->pos);
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

static void slot_free(rm_slot *sl) {
  pm_array_release(&sl->b);
  free(sl->fk);
  sl->fk = NULL;
  sl->retired = 0;
}

/* A free slot (the slot table grows as needed). */
static int slot_take(raw_merge *m, int *out, pm_error *err) {
  for (int i = 0; i < m->n_slots; i++)
    if (!m->slots[i].b.release) {
      *out = i;
      return 0;
    }
  if (m->n_slots == m->cap_slots) {
    int cap = m->cap_slots ? 2 * m->cap_slots : 16;
    rm_slot *ns = realloc(m->slots, (size_t)cap * sizeof *ns);
    if (!ns) return PM_NOMEM(err);
    m->slots = ns;
    struct ArrowArray **na = realloc(m->arrays, (size_t)cap * sizeof *na);
    if (!na) return PM_NOMEM(err);
    m->arrays = na;
    m->cap_slots = cap;
    for (int i = 0; i < m->n_slots; i++) m->arrays[i] = &m->slots[i].b;
  }
  memset(&m->slots[m->n_slots], 0, sizeof *m->slots);
  m->arrays[m->n_slots] = &m->slots[m->n_slots].b;
  *out = m->n_slots++;
  return 0;
}

/* The next non-empty batch of source i into a new slot (the old one retires);
 * slot -1 at the end. */
static int rm_load(raw_merge *m, int i, pm_error *err) {
  rm_src *r = &m->src[i];
  if (r->slot >= 0) m->slots[r->slot].retired = 1;
  r->slot = -1;
  r->pos = 0;
  struct ArrowArray b;
  for (;;) {
    PM_TRY(r->s.next(r->s.ctx, &b, err));
    if (!b.release) return 0;
    if (b.length > 0) break;
    pm_array_release(&b);
  }
  int k = -1;
  int rc = slot_take(m, &k, err);
  if (rc) {
    pm_array_release(&b);
    return rc;
  }
  rm_slot *sl = &m->slots[k];
  pm_array_move(&b, &sl->b);
  sl->retired = 0;
  sl->fk = m->w->tm.n_keys == 1 ? malloc((size_t)sl->b.length * sizeof *sl->fk) : NULL;
  if (sl->fk && !pm_kv_int_keys(m->w, &sl->b, sl->fk)) {
    free(sl->fk);
    sl->fk = NULL;
  }
  r->slot = k;
  return 0;
}

/* Frees the retired slots no record of the selection references. */
static void rm_gc(raw_merge *m) {
  for (int i = 0; i < m->n_slots; i++) m->slots[i].ref = 0;
  for (int64_t k = 0; k < m->n_out; k++) m->slots[m->osrc[k]].ref = 1;
  for (int i = 0; i < m->n_slots; i++)
    if (m->slots[i].b.release && m->slots[i].retired && !m->slots[i].ref) slot_free(&m->slots[i]);
}

static void rm_close(raw_merge *m) {
  for (int i = 0; i < m->n; i++)
    if (m->src[i].s.close) m->src[i].s.close(m->src[i].s.ctx);
  for (int i = 0; i < m->n_slots; i++) slot_free(&m->slots[i]);
  free(m->src);
  free(m->slots);
  free(m->arrays);
  free(m->heap);
  free(m->osrc);
  free(m->orow);
  free(m->okey);
  memset(m, 0, sizeof *m);
}

static int rm_grow(raw_merge *m, int64_t cap, pm_error *err) {
  int32_t *s = realloc(m->osrc, (size_t)cap * sizeof *s);
  if (s) m->osrc = s;
  int64_t *r = s ? realloc(m->orow, (size_t)cap * sizeof *r) : NULL;
  if (r) m->orow = r;
  int64_t *k = r ? realloc(m->okey, (size_t)cap * sizeof *k) : NULL;
  if (k) m->okey = k;
  if (!k) return PM_NOMEM(err);
  m->cap = cap;
  return 0;
}

/* Takes the sources (closed by rm_close, also on failure). */
static int rm_open(raw_merge *m, pm_kv_write *w, pm_merge_source *sources, int n, pm_error *err) {
  memset(m, 0, sizeof *m);
  m->w = w;
  m->n = n;
  m->src = calloc((size_t)n + 1, sizeof *m->src);
  m->heap = calloc((size_t)n + 1, sizeof *m->heap);
  if (!m->src || !m->heap || rm_grow(m, 16384, err)) {
    for (int i = 0; i < n; i++)
      if (sources[i].close) sources[i].close(sources[i].ctx);
    m->n = 0;
    rm_close(m);
    return PM_NOMEM(err);
  }
  for (int i = 0; i < n; i++) {
    m->src[i].s = sources[i];
    m->src[i].slot = -1;
  }
  for (int i = 0; i < n; i++) {
    int rc = rm_load(m, i, err);
    if (rc) {
      rm_close(m);
      return rc;
    }
    if (m->src[i].slot >= 0) m->heap[m->hn++] = i;
  }
  for (int i = m->hn / 2 - 1; i >= 0; i--) rm_down(m, i);
  m->all_fk = 1;
  return 0;
}

/* Appends the stream's next records to the selection until it holds m->cap
 * (or the stream ends: m->hn == 0). */
static int rm_fill(raw_merge *m, pm_error *err) {
  while (m->hn && m->n_out < m->cap) {
    int top = m->heap[0];
    rm_src *r = &m->src[top];
    const rm_slot *sl = &m->slots[r->slot];
    int64_t o = m->n_out++;
    m->osrc[o] = r->slot;
    m->orow[o] = r->pos;
    if (sl->fk) m->okey[o] = sl->fk[r->pos];
    else m->all_fk = 0;
    if (++r->pos == sl->b.length) {
      PM_TRY(rm_load(m, top, err));
      if (r->slot < 0) m->heap[0] = m->heap[--m->hn];
    }
    if (m->hn) rm_down(m, 0);
  }
  return 0;
}

/* Drops the selection's first k records (the rest moves to the front). */
static void rm_consume(raw_merge *m, int64_t k) {
  int64_t rest = m->n_out - k;
  memmove(m->osrc, m->osrc + k, (size_t)rest * sizeof *m->osrc);
  memmove(m->orow, m->orow + k, (size_t)rest * sizeof *m->orow);
  memmove(m->okey, m->okey + k, (size_t)rest * sizeof *m->okey);
  m->n_out = rest;
  if (!rest) m->all_fk = 1;
  rm_gc(m);
}

/* The next chunk of the merged stream, gathered (released struct at the end). */
static int rm_next(raw_merge *m, struct ArrowArray *out, pm_error *err) {
  memset(out, 0, sizeof *out);
  PM_TRY(rm_fill(m, err));
  if (!m->n_out) return 0;
  int rc = pm_gather_batch(&m->w->layout, (const struct ArrowArray *const *)m->arrays, m->n_slots, m->osrc, m->orow,
                           m->n_out, out, err);
  rm_consume(m, m->n_out);
  return rc;
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

/* Records a and b of the selection have the same key. */
static int same_key(const raw_merge *m, int64_t a, int64_t b) {
  if (m->all_fk) return m->okey[a] == m->okey[b];
  const pm_kv_write *w = m->w;
  const struct ArrowArray *x = &m->slots[m->osrc[a]].b, *y = &m->slots[m->osrc[b]].b;
  for (int k = 0; k < w->tm.n_keys; k++) {
    int col = w->tm.key_cols[k];
    if (pm_compare_values(&w->layout.children[col], x->children[col], m->orow[a], y->children[col], m->orow[b]))
      return 0;
  }
  return 1;
}

/* Merges the selection's first k records (all records of each of their keys)
 * with the merge engine and writes them. */
static int merge_write(pm_kv_write *w, pm_kv_roll *r, raw_merge *m, int64_t k, pm_error *err) {
  if (!k) return 0;
  struct ArrowArray out;
  PM_TRY(pm_merge_sorted_rows(&w->tm.cfg, (const struct ArrowArray *const *)m->arrays, m->n_slots, m->osrc, m->orow,
                              m->all_fk ? m->okey : NULL, k, &out, err));
  int rc = pm_kv_roll_write(r, &out, err);
  pm_array_release(&out);
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
  /* selections of the stream cut at key boundaries: the last key's records
   * wait in the selection for the rest of them */
  while (!rc) {
    rc = rm_fill(&m, err);
    if (rc) break;
    if (!m.hn) { /* the end: every record is in the selection */
      rc = merge_write(w, &r, &m, m.n_out, err);
      break;
    }
    int64_t cut = m.n_out - 1;
    while (cut > 0 && same_key(&m, cut - 1, m.n_out - 1)) cut--;
    if (cut == 0) { /* one key fills the selection: make room */
      rc = rm_grow(&m, 2 * m.cap, err);
      continue;
    }
    rc = merge_write(w, &r, &m, cut, err);
    if (!rc) rm_consume(&m, cut);
  }
  rm_close(&m);
  if (!rc) rc = pm_kv_roll_finish(&r, err);
  if (rc) {
    pm_kv_roll_abort(&r);
    return rc;
  }
  pm_kv_slot_drop_runs(w, s);
  return pm_kv_flushed(w, s, s->out.items + before, s->out.n - before, err);
}
