/* Append-table compaction (append_compact.h; SEMANTICS 3.8): the plan of
 * Java's AppendCompactCoordinator for unaware-bucket tables, the rewrite of
 * AppendCompactTask / BaseAppendFileStoreWrite.compactRewrite through the
 * append writer's files, and the results kept in the writer until prepare. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/fs.h"
#include "table/append_compact.h"
#include "meta/deletion_vector_write.h"
#include "meta/path_factory.h"
#include "table/commit.h"
#include "table/kv_dv.h"
#include "table/partition.h"
#include "table/read.h"
#include "table/scan.h"
#include "table/write_internal.h"

/* ------------------------------------------------------------ partition specs */

int pm_append_spec_match(const pm_table *t, const pm_partition_spec *spec, pm_bytes part, int *match, pm_error *err) {
  return pm_partition_match(t, spec, NULL, part, match, err);
}

static int req_match(const pm_table *t, const pm_compact_request *req, pm_bytes part, int *match, pm_error *err) {
  return pm_compact_request_match(t, req, part, match, err);
}

/* ------------------------------------------------------------ planning */

void pm_append_compact_opts_init(const pm_table *t, pm_append_compact_opts *o) {
  const pm_core_options *co = &t->co;
  o->target_file_size = co->target_file_size;
  o->compaction_file_size = (int64_t)((double)co->target_file_size * co->compaction_small_file_ratio);
  o->open_file_cost = co->split_open_file_cost;
  o->min_file_num = co->compaction_min_file_num;
  o->file_num_limit = co->compaction_file_num_limit;
  o->force_rewrite_all = co->compaction_force_rewrite_all_files;
  o->delete_ratio = co->compaction_delete_ratio;
}

void pm_append_compact_plan_free(pm_append_compact_plan *p) {
  if (!p) return;
  for (size_t i = 0; i < p->n_tasks; i++) free(p->tasks[i].files);
  free(p->tasks);
  memset(p, 0, sizeof *p);
}

typedef struct cand {
  const pm_manifest_entry *e;
  size_t pos; /* position in the snapshot's file list */
} cand;

static int by_size(const void *a, const void *b) {
  const cand *x = a, *y = b;
  if (x->e->file.file_size != y->e->file.file_size) return x->e->file.file_size < y->e->file.file_size ? -1 : 1;
  return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int by_pos(const void *a, const void *b) {
  const cand *x = a, *y = b;
  return x->pos < y->pos ? -1 : x->pos > y->pos;
}

int pm_append_compact_plan_push(pm_append_compact_plan *p, size_t n, pm_append_compact_task **out, pm_error *err) {
  if (p->n_tasks == p->cap_tasks) {
    size_t cap = p->cap_tasks ? 2 * p->cap_tasks : 8;
    pm_append_compact_task *nt = realloc(p->tasks, cap * sizeof *nt);
    if (!nt) return PM_NOMEM(err);
    p->tasks = nt;
    p->cap_tasks = cap;
  }
  pm_append_compact_task *t = &p->tasks[p->n_tasks];
  memset(t, 0, sizeof *t);
  t->files = malloc((n ? n : 1) * sizeof *t->files);
  if (!t->files) return PM_NOMEM(err);
  t->n_files = n;
  p->n_tasks++;
  *out = t;
  return 0;
}

/* Adds bin[0, n) as a task in the given order (fixed buckets: the bucket's queue order). */
static int emit_ordered(pm_append_compact_plan *p, const cand *bin, size_t n, pm_error *err) {
  if (!n) return 0;
  pm_append_compact_task *t;
  PM_TRY(pm_append_compact_plan_push(p, n, &t, err));
  for (size_t i = 0; i < n; i++) t->files[i] = bin[i].e;
  t->partition = bin[0].e->partition;
  t->bucket = bin[0].e->bucket;
  return 0;
}

static int emit(pm_append_compact_plan *p, cand *bin, size_t n, pm_error *err) {
  /* rows are rewritten in the order the snapshot lists the files (Java takes
   * its bin's order, sizes ascending after a hash set; the bins are the same) */
  qsort(bin, n, sizeof *bin, by_pos);
  return emit_ordered(p, bin, n, err);
}

/* SubCoordinator.pack of one partition's candidates (sorted by size). */
static int pack(const pm_append_compact_opts *o, cand *c, size_t n, pm_append_compact_plan *p, pm_error *err) {
  qsort(c, n, sizeof *c, by_size);
  size_t start = 0, i = 0;
  int64_t total = 0;
  cand *bin = malloc((n ? n : 1) * sizeof *bin);
  if (!bin) return PM_NOMEM(err);
  int rc = 0;
  for (; !rc && i < n; i++) {
    total += c[i].e->file.file_size + o->open_file_cost;
    size_t len = i + 1 - start;
    if (len > 1 && total >= 2 * o->target_file_size) { /* FileBin.enoughContent */
      memcpy(bin, c + start, len * sizeof *bin);
      rc = emit(p, bin, len, err);
      start = i + 1;
      total = 0;
    }
  }
  size_t left = n - start;
  if (!rc && left && (int64_t)left >= o->min_file_num) { /* FileBin.enoughInputFiles */
    memcpy(bin, c + start, left * sizeof *bin);
    rc = emit(p, bin, left, err);
  }
  free(bin);
  return rc;
}

static int same_part(const pm_bytes *a, const pm_bytes *b) {
  return a->len == b->len && (!a->len || !memcmp(a->data, b->data, a->len));
}

int pm_append_compact_plan_unaware(const pm_table *t, const pm_manifest_entries *live, const pm_compact_request *req,
                                   const pm_append_compact_opts *o, pm_append_compact_plan *out, pm_error *err) {
  memset(out, 0, sizeof *out);
  cand *c = malloc((live->n ? live->n : 1) * sizeof *c);
  if (!c) return PM_NOMEM(err);
  size_t n = 0;
  int rc = 0;
  /* FilesIterator with the shouldCompact entry filter, at most
   * compaction.file-num-limit files per round (one round, as Spark's compact
   * procedure runs the coordinator once) */
  for (size_t i = 0; !rc && i < live->n && (int64_t)n < o->file_num_limit; i++) {
    const pm_manifest_entry *e = &live->items[i];
    if (e->file.file_size >= o->compaction_file_size) continue;
    int match = 1;
    rc = req_match(t, req, e->partition, &match, err);
    if (!rc && match) {
      c[n].e = e;
      c[n].pos = i;
      n++;
    }
  }
  /* per partition, in order of first appearance */
  char *done = calloc(n + 1, 1);
  cand *part = malloc((n ? n : 1) * sizeof *part);
  if (!rc && (!done || !part)) rc = PM_NOMEM(err);
  for (size_t i = 0; !rc && i < n; i++) {
    if (done[i]) continue;
    size_t k = 0;
    for (size_t j = i; j < n; j++)
      if (!done[j] && same_part(&c[j].e->partition, &c[i].e->partition)) {
        part[k++] = c[j];
        done[j] = 1;
      }
    rc = pack(o, part, k, out, err);
  }
  free(done);
  free(part);
  free(c);
  if (rc) pm_append_compact_plan_free(out);
  return rc;
}

/* ------------------------------------------------------------ unaware, deletion vectors */

typedef struct dv_cand {
  cand c;
  const char *index_file; /* NULL: no vector */
} dv_cand;

typedef struct dv_group {
  size_t first, n; /* in the sorted dv_cand array */
  int64_t size;
} dv_group;

static int by_index_file(const void *a, const void *b) {
  const dv_cand *x = a, *y = b;
  int c = strcmp(x->index_file, y->index_file);
  if (c) return c;
  return x->c.pos < y->c.pos ? -1 : x->c.pos > y->c.pos;
}

static int by_group_size(const void *a, const void *b) {
  const dv_group *x = a, *y = b;
  if (x->size != y->size) return x->size < y->size ? -1 : 1;
  return x->first < y->first ? -1 : x->first > y->first;
}

/* packInDeletionVectorVMode of one partition's candidates d[0, n). */
static int pack_dv(const pm_append_compact_opts *o, dv_cand *d, size_t n, pm_append_compact_plan *p, pm_error *err) {
  size_t n_dv = 0, n_rest = 0;
  for (size_t i = 0; i < n; i++) n_dv += d[i].index_file != NULL;
  dv_cand *with = malloc((n_dv ? n_dv : 1) * sizeof *with);
  cand *rest = malloc((n ? n : 1) * sizeof *rest);
  dv_group *g = malloc((n_dv ? n_dv : 1) * sizeof *g);
  cand *bin = malloc((n ? n : 1) * sizeof *bin);
  int rc = with && rest && g && bin ? 0 : PM_NOMEM(err);
  size_t k = 0, n_g = 0;
  for (size_t i = 0; !rc && i < n; i++) {
    if (d[i].index_file) with[k++] = d[i];
    else rest[n_rest++] = d[i].c;
  }
  if (!rc) qsort(with, n_dv, sizeof *with, by_index_file);
  for (size_t i = 0; !rc && i < n_dv; i++) {
    if (!i || strcmp(with[i].index_file, with[i - 1].index_file)) {
      g[n_g].first = i;
      g[n_g].n = 0;
      g[n_g].size = 0;
      n_g++;
    }
    g[n_g - 1].n++;
    g[n_g - 1].size += with[i].c.e->file.file_size;
  }
  if (!rc) qsort(g, n_g, sizeof *g, by_group_size);
  size_t in_bin = 0;
  int64_t total = 0;
  for (size_t i = 0; !rc && i < n_g; i++) {
    for (size_t j = 0; j < g[i].n; j++) {
      bin[in_bin++] = with[g[i].first + j].c;
      total += with[g[i].first + j].c.e->file.file_size + o->open_file_cost;
    }
    if (in_bin > 1 && total >= 2 * o->target_file_size) { /* FileBin.enoughContent */
      rc = emit(p, bin, in_bin, err);
      in_bin = 0;
      total = 0;
    }
  }
  if (!rc && in_bin) rc = emit(p, bin, in_bin, err); /* files with vectors are always compacted */
  if (!rc && n_rest > 1) rc = pack(o, rest, n_rest, p, err);
  free(bin);
  free(g);
  free(rest);
  free(with);
  return rc;
}

int pm_append_compact_plan_unaware_dv(const pm_table *t, const pm_manifest_entries *live, const pm_compact_request *req,
                                      const pm_append_compact_opts *o, pm_append_dv_fn dv_of, void *dv_ctx,
                                      pm_append_compact_plan *out, pm_error *err) {
  memset(out, 0, sizeof *out);
  dv_cand *c = malloc((live->n ? live->n : 1) * sizeof *c);
  dv_cand *part = malloc((live->n ? live->n : 1) * sizeof *part);
  char *done = calloc(live->n + 1, 1);
  int rc = c && part && done ? 0 : PM_NOMEM(err);
  size_t n = 0;
  for (size_t i = 0; !rc && i < live->n && (int64_t)n < o->file_num_limit; i++) {
    const pm_manifest_entry *e = &live->items[i];
    pm_append_dv_info info = {NULL, -1};
    int has = dv_of(dv_ctx, e, &info);
    /* shouldCompact: small, or too many rows deleted (unknown counts as too many) */
    int high = has && (info.cardinality < 0 || (double)info.cardinality > (double)e->file.row_count * o->delete_ratio);
    if (e->file.file_size >= o->compaction_file_size && !high) continue;
    int match = 1;
    rc = req_match(t, req, e->partition, &match, err);
    if (!rc && match) {
      c[n].c.e = e;
      c[n].c.pos = i;
      c[n].index_file = has ? info.index_file : NULL;
      n++;
    }
  }
  for (size_t i = 0; !rc && i < n; i++) {
    if (done[i]) continue;
    size_t k = 0;
    for (size_t j = i; j < n; j++)
      if (!done[j] && same_part(&c[j].c.e->partition, &c[i].c.e->partition)) {
        part[k++] = c[j];
        done[j] = 1;
      }
    rc = pack_dv(o, part, k, out, err);
  }
  free(done);
  free(part);
  free(c);
  if (rc) pm_append_compact_plan_free(out);
  return rc;
}

/* ------------------------------------------------------------ fixed buckets */

static int by_seq(const void *a, const void *b) {
  const cand *x = a, *y = b;
  if (x->e->file.min_sequence_number != y->e->file.min_sequence_number)
    return x->e->file.min_sequence_number < y->e->file.min_sequence_number ? -1 : 1;
  return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* One bucket's files q[0, n) sorted by min sequence number (the manager's
 * queue): BucketedAppendCompactManager.pickCompactBefore (minor) or its
 * FullCompactTask (full). has_dv[i]: file i has a deletion vector (NULL: the
 * table has none). */
static int pick_bucket(const pm_append_compact_opts *o, const cand *q, size_t n, const char *has_dv, int dv_table,
                       int full, pm_append_compact_plan *p, pm_error *err) {
  if (!full) {
    size_t start = 0;
    int64_t total = 0;
    for (size_t i = 0; i < n; i++) {
      total += q[i].e->file.file_size;
      if ((int64_t)(i + 1 - start) >= o->min_file_num) return emit_ordered(p, q + start, i + 1 - start, err);
      if (total >= 2 * o->target_file_size) { /* the window moves one file on */
        total -= q[start].e->file.file_size;
        start++;
      }
    }
    return 0; /* the queue ran out: nothing picked */
  }
  /* full: at least 3 files unless deletion vectors or compaction.force-rewrite-all-files */
  if (!o->force_rewrite_all && (!n || (!dv_table && n < 3))) return 0;
  size_t s = 0;
  while (!o->force_rewrite_all && s < n && q[s].e->file.file_size >= o->compaction_file_size &&
         !(has_dv && has_dv[s]))
    s++; /* leading big files without a vector stay */
  if (dv_table || o->force_rewrite_all) return emit_ordered(p, q + s, n - s, err);
  size_t big = 0, small = 0;
  for (size_t i = s; i < n; i++) {
    if (q[i].e->file.file_size >= o->compaction_file_size) big++;
    else small++;
  }
  if (small > big && n - s >= 3) return emit_ordered(p, q + s, n - s, err);
  return 0;
}

int pm_append_compact_plan_bucketed(const pm_table *t, const pm_manifest_entries *live, const pm_compact_request *req,
                                    int32_t bucket, int full, const pm_append_compact_opts *o, pm_append_dv_fn dv_of,
                                    void *dv_ctx, pm_append_compact_plan *out, pm_error *err) {
  memset(out, 0, sizeof *out);
  size_t n = 0;
  cand *c = malloc((live->n ? live->n : 1) * sizeof *c);
  char *done = calloc(live->n + 1, 1);
  cand *q = malloc((live->n ? live->n : 1) * sizeof *q);
  char *dv = calloc(live->n + 1, 1);
  int rc = c && done && q && dv ? 0 : PM_NOMEM(err);
  for (size_t i = 0; !rc && i < live->n; i++) {
    const pm_manifest_entry *e = &live->items[i];
    if (bucket >= 0 && e->bucket != bucket) continue;
    int match = 1;
    rc = req_match(t, req, e->partition, &match, err);
    if (!rc && match) {
      c[n].e = e;
      c[n].pos = i;
      n++;
    }
  }
  /* per (partition, bucket), in order of first appearance */
  for (size_t i = 0; !rc && i < n; i++) {
    if (done[i]) continue;
    size_t k = 0;
    for (size_t j = i; j < n; j++)
      if (!done[j] && c[j].e->bucket == c[i].e->bucket && same_part(&c[j].e->partition, &c[i].e->partition)) {
        q[k++] = c[j];
        done[j] = 1;
      }
    qsort(q, k, sizeof *q, by_seq);
    for (size_t j = 0; j < k; j++) {
      pm_append_dv_info info;
      dv[j] = dv_of ? (char)dv_of(dv_ctx, q[j].e, &info) : 0;
    }
    rc = pick_bucket(o, q, k, dv_of ? dv : NULL, dv_of != NULL, full, out, err);
  }
  free(dv);
  free(q);
  free(done);
  free(c);
  if (rc) pm_append_compact_plan_free(out);
  return rc;
}

/* ------------------------------------------------------------ deletion vectors */

typedef struct dv_item {
  const pm_index_manifest_entry *entry;
  const pm_dv_range *range;
} dv_item;

/* The DV index of the snapshot a compaction plans over. */
typedef struct dv_state {
  pm_index_entries idx;
  dv_item *items; /* sorted by (partition, bucket, data file name) */
  size_t n;
  pm_path_factory pf; /* names of new index files */
} dv_state;

static int dv_key_cmp(const pm_bytes *pa, int32_t ba, const char *fa, const pm_bytes *pb, int32_t bb, const char *fb) {
  if (pa->len != pb->len) return pa->len < pb->len ? -1 : 1;
  int c = pa->len ? memcmp(pa->data, pb->data, pa->len) : 0;
  if (c) return c;
  if (ba != bb) return ba < bb ? -1 : 1;
  return strcmp(fa, fb);
}

static int dv_item_cmp(const void *x, const void *y) {
  const dv_item *a = x, *b = y;
  return dv_key_cmp(&a->entry->partition, a->entry->bucket, a->range->data_file_name, &b->entry->partition,
                    b->entry->bucket, b->range->data_file_name);
}

static int is_dv_entry(const pm_index_manifest_entry *e) {
  return e->kind == PM_FILE_ADD && e->index_file.index_type && !strcmp(e->index_file.index_type, PM_INDEX_TYPE_DV) &&
         !e->index_file.dv_ranges_is_null;
}

static int dv_load(pm_table *t, const pm_snapshot *snap, dv_state *dv, pm_error *err) {
  memset(dv, 0, sizeof *dv);
  pm_path_factory_init(&dv->pf, t->fs, t->root);
  PM_TRY(pm_kv_dv_index_entries(t, snap, &dv->idx, err));
  size_t n = 0;
  for (size_t i = 0; i < dv->idx.n; i++)
    if (is_dv_entry(&dv->idx.items[i])) n += (size_t)dv->idx.items[i].index_file.n_dv_ranges;
  dv->items = calloc(n ? n : 1, sizeof *dv->items);
  if (!dv->items) return PM_NOMEM(err);
  for (size_t i = 0; i < dv->idx.n; i++) {
    const pm_index_manifest_entry *e = &dv->idx.items[i];
    if (!is_dv_entry(e)) continue;
    for (int32_t k = 0; k < e->index_file.n_dv_ranges; k++) {
      dv->items[dv->n].entry = e;
      dv->items[dv->n].range = &e->index_file.dv_ranges[k];
      dv->n++;
    }
  }
  qsort(dv->items, dv->n, sizeof *dv->items, dv_item_cmp);
  return 0;
}

static void dv_clear(dv_state *dv) {
  free(dv->items);
  pm_index_entries_clear(&dv->idx);
}

static const dv_item *dv_find(const dv_state *dv, const pm_bytes *part, int32_t bucket, const char *file) {
  size_t lo = 0, hi = dv ? dv->n : 0;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    const dv_item *it = &dv->items[mid];
    int c = dv_key_cmp(&it->entry->partition, it->entry->bucket, it->range->data_file_name, part, bucket, file);
    if (!c) return it;
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return NULL;
}

static int dv_of(void *ctx, const pm_manifest_entry *e, pm_append_dv_info *out) {
  const dv_item *it = dv_find(ctx, &e->partition, e->bucket, e->file.file_name);
  if (!it) return 0;
  out->index_file = it->entry->index_file.file_name;
  out->cardinality = it->range->has_cardinality ? it->range->cardinality : -1;
  return 1;
}

/* ------------------------------------------------------------ execution */

/* Rewrites task files into new files of slot s (source COMPACT); dv: the
 * rows their deletion vectors delete are dropped. */
static int rewrite(pm_table_write *w, pm_wslot *s, const pm_append_compact_task *task, const dv_state *dv,
                   pm_error *err) {
  pm_data_split split;
  memset(&split, 0, sizeof split);
  pm_arena_init(&split.arena);
  split.partition = task->partition;
  split.bucket = task->bucket;
  split.bucket_path = s->bucket_dir;
  split.total_buckets = w->t->bucket;
  split.has_total_buckets = 1;
  split.data_files = calloc(task->n_files, sizeof *split.data_files);
  int rc = split.data_files ? 0 : PM_NOMEM(err);
  for (size_t i = 0; !rc && i < task->n_files; i++) split.data_files[i] = task->files[i]->file;
  split.n_data_files = task->n_files;
  if (!rc && dv) {
    split.deletion_files = pm_arena_alloc(&split.arena, task->n_files * sizeof *split.deletion_files);
    if (!split.deletion_files) rc = PM_NOMEM(err);
    for (size_t i = 0; !rc && i < task->n_files; i++) {
      pm_deletion_file *df = &split.deletion_files[i];
      memset(df, 0, sizeof *df);
      df->cardinality = -1;
      const dv_item *it = dv_find(dv, &task->partition, task->bucket, task->files[i]->file.file_name);
      if (!it) continue;
      char *path = NULL;
      rc = pm_table_index_file_path(w->t, s->bucket_dir, it->entry->index_file.file_name,
                                    it->entry->index_file.external_path, &path, err);
      if (rc) break;
      df->path = pm_arena_strdup(&split.arena, path);
      free(path);
      if (!df->path) rc = PM_NOMEM(err);
      df->offset = it->range->offset;
      df->length = it->range->length;
      df->cardinality = it->range->has_cardinality ? it->range->cardinality : -1;
    }
  }
  pm_read_options ro;
  pm_read_options_init(&ro);
  ro.parallelism = 1;
  struct ArrowArrayStream st;
  memset(&st, 0, sizeof st);
  struct ArrowSchema schema;
  memset(&schema, 0, sizeof schema);
  if (!rc) rc = pm_read_split(w->t, &split, &ro, &st, err);
  if (!rc && st.get_schema(&st, &schema))
    rc = pm_errorf(err, PAIMON_ERR_IO, "%s", st.get_last_error ? st.get_last_error(&st) : "no read schema");
  while (!rc) {
    struct ArrowArray b, nb;
    memset(&b, 0, sizeof b);
    if (st.get_next(&st, &b)) {
      const char *msg = st.get_last_error ? st.get_last_error(&st) : NULL;
      rc = pm_errorf(err, PAIMON_ERR_IO, "%s", msg ? msg : "reading the files to compact failed");
      break;
    }
    if (!b.release) break;
    if (b.length > 0) {
      rc = pm_write_match_read(w->fields, w->n_fields, &schema, &b, &nb, err);
      if (!rc) {
        rc = pm_wslot_write(w, s, &nb, err);
        nb.release(&nb);
      }
    }
    b.release(&b);
  }
  if (!rc) rc = pm_wfile_close(w, s, err);
  if (schema.release) schema.release(&schema);
  if (st.release) st.release(&st);
  free(split.data_files);
  pm_arena_free(&split.arena);
  return rc;
}

static int in_task(const pm_append_compact_task *task, const char *name) {
  for (size_t i = 0; i < task->n_files; i++)
    if (!strcmp(task->files[i]->file.file_name, name)) return 1;
  return 0;
}

/* Writes maintainer m's vectors as a new index file into k (when m changed). */
static int write_index(pm_table_write *w, pm_wslot *s, dv_state *dv, pm_dv_maintainer *m, pm_wcompact *k,
                       pm_error *err) {
  pm_index_file_meta meta;
  memset(&meta, 0, sizeof meta);
  int written = 0;
  PM_TRY(pm_kv_dv_write(w->t, m, &dv->pf, s->bucket_dir, &w->arena, &meta, &written, err));
  if (!written) return 0;
  char *path = NULL;
  int rc = pm_table_index_file_path(w->t, s->bucket_dir, meta.file_name, NULL, &path, err);
  if (rc) return rc;
  k->new_index[k->n_new_index] = meta;
  k->new_index_paths[k->n_new_index++] = path;
  return 0;
}

/* The index changes of a rewritten task (AppendDeleteFileMaintainer /
 * BucketedDvMaintainer): into k's lists. */
static int index_changes(pm_table_write *w, pm_wslot *s, const pm_append_compact_task *task, dv_state *dv,
                         pm_wcompact *k, pm_error *err) {
  size_t n = task->n_files;
  const pm_index_manifest_entry **touched = calloc(n + 1, sizeof *touched);
  size_t n_touched = 0;
  int rc = touched ? 0 : PM_NOMEM(err);
  for (size_t i = 0; !rc && i < n; i++) {
    const dv_item *it = dv_find(dv, &task->partition, task->bucket, task->files[i]->file.file_name);
    if (!it) continue;
    size_t j = 0;
    while (j < n_touched && touched[j] != it->entry) j++;
    if (j == n_touched) touched[n_touched++] = it->entry;
  }
  if (!rc && n_touched) {
    k->new_index = pm_arena_alloc(&w->arena, (n_touched + 1) * sizeof *k->new_index);
    k->new_index_paths = calloc(n_touched + 1, sizeof *k->new_index_paths);
    k->deleted_index = pm_arena_alloc(&w->arena, (n_touched + 1) * sizeof *k->deleted_index);
    if (!k->new_index || !k->new_index_paths || !k->deleted_index) rc = PM_NOMEM(err);
  }
  if (!rc && n_touched && w->t->bucket_mode == PM_BUCKET_FIXED) {
    /* one index file per bucket: rewritten without the compacted files' vectors */
    pm_dv_maintainer *m = NULL;
    rc = pm_kv_dv_restore(w->t, &dv->idx, task->partition, task->bucket, s->bucket_dir, &m, err);
    for (size_t i = 0; !rc && i < n; i++) pm_dv_maintainer_remove(m, task->files[i]->file.file_name);
    if (!rc) rc = write_index(w, s, dv, m, k, err);
    pm_dv_maintainer_free(m);
  }
  for (size_t j = 0; !rc && w->t->bucket_mode != PM_BUCKET_FIXED && j < n_touched; j++) {
    /* unaware: each touched index file goes; its other vectors move to a new one */
    const pm_index_manifest_entry *e = touched[j];
    size_t remaining = 0;
    for (int32_t r = 0; r < e->index_file.n_dv_ranges; r++)
      remaining += !in_task(task, e->index_file.dv_ranges[r].data_file_name);
    if (remaining) {
      char *path = NULL;
      rc = pm_table_index_file_path(w->t, s->bucket_dir, e->index_file.file_name, e->index_file.external_path, &path,
                                    err);
      pm_dv_maintainer *m = NULL;
      if (!rc)
        rc = pm_dv_maintainer_restore(w->t->fs, &e->index_file, (const char *const *)&path, 1, w->t->co.dv_bitmap64, &m,
                                      err);
      free(path);
      for (size_t i = 0; !rc && i < n; i++) pm_dv_maintainer_remove(m, task->files[i]->file.file_name);
      if (!rc) rc = write_index(w, s, dv, m, k, err);
      pm_dv_maintainer_free(m);
    }
    if (!rc) rc = pm_index_file_meta_copy(&e->index_file, &k->deleted_index[k->n_deleted_index], &w->arena, err);
    if (!rc) k->n_deleted_index++;
  }
  free(touched);
  return rc;
}

static void drop_index_files(pm_table_write *w, pm_wcompact *k, int delete_files) {
  for (size_t i = 0; i < k->n_new_index; i++) {
    if (delete_files) {
      pm_error e2;
      pm_fs_delete(w->t->fs, k->new_index_paths[i], &e2);
    }
    free(k->new_index_paths[i]);
  }
  free(k->new_index_paths);
  k->new_index_paths = NULL;
  k->n_new_index = 0;
}

static int grow_compacts(pm_table_write *w, pm_error *err) {
  if (w->n_compacts < w->cap_compacts) return 0;
  size_t cap = w->cap_compacts ? 2 * w->cap_compacts : 8;
  pm_wcompact *nc = realloc(w->compacts, cap * sizeof *nc);
  if (!nc) return PM_NOMEM(err);
  w->compacts = nc;
  w->cap_compacts = cap;
  return 0;
}

/* Data evolution (DataEvolutionNormalCompactTask): the one output file takes the task's first row
 * id and the inputs' sequence range; it must hold every row of the task's row-id range. */
static int de_finish(pm_table_write *w, pm_wslot *s, const pm_append_compact_task *task, pm_error *err) {
  const pm_data_file_meta *f0 = &task->files[0]->file;
  int64_t lo = f0->first_row_id, hi = lo, min_seq = f0->min_sequence_number, max_seq = f0->max_sequence_number;
  for (size_t i = 0; i < task->n_files; i++) {
    const pm_data_file_meta *f = &task->files[i]->file;
    if (f->first_row_id + f->row_count > hi) hi = f->first_row_id + f->row_count;
    if (f->min_sequence_number < min_seq) min_seq = f->min_sequence_number;
    if (f->max_sequence_number > max_seq) max_seq = f->max_sequence_number;
  }
  if (s->n_files != 1 || s->files[0].row_count != hi - lo)
    return pm_errorf(err, PAIMON_ERR_CORRUPT,
                     "table %s.%s: compacting rows %" PRId64 "..%" PRId64 " (%s and %zu more) wrote %zu files of %" PRId64
                     " rows, not one of %" PRId64,
                     w->t->database, w->t->name, lo, hi - 1, f0->file_name, task->n_files - 1, s->n_files,
                     s->n_files ? s->files[0].row_count : 0, hi - lo);
  pm_data_file_meta *m = &s->files[0];
  m->first_row_id = lo;
  m->has_first_row_id = 1;
  m->min_sequence_number = min_seq;
  m->max_sequence_number = max_seq;
  return 0;
}

static int run_task(pm_table_write *w, const pm_append_compact_task *task, dv_state *dv, pm_error *err) {
  int de = w->t->data_evolution;
  for (size_t i = 0; de && dv && i < task->n_files; i++)
    if (dv_find(dv, &task->partition, task->bucket, task->files[i]->file.file_name))
      return pm_errorf(err, PAIMON_ERR_UNSUPPORTED,
                       "table %s.%s: compacting data-evolution file %s, which has a deletion vector, is not "
                       "supported yet",
                       w->t->database, w->t->name, task->files[i]->file.file_name);
  PM_TRY(grow_compacts(w, err));
  pm_wslot *s = NULL;
  PM_TRY(pm_wslot_new(w, task->partition.data, task->partition.len, task->bucket, &s, err));
  /* BaseAppendFileStoreWrite.compactRewrite: sequence numbers count on from the first input's */
  s->next_seq = task->n_files ? task->files[0]->file.min_sequence_number : 0;
  pm_wcompact k;
  memset(&k, 0, sizeof k);
  uint64_t target = w->target;
  if (de) w->target = UINT64_MAX; /* one file per task: its rows keep their row ids */
  int rc = rewrite(w, s, task, dv, err);
  w->target = target;
  if (!rc && de) rc = de_finish(w, s, task, err);
  for (size_t i = 0; !rc && i < s->n_files; i++) s->files[i].file_source = PM_SOURCE_COMPACT;
  if (!rc) {
    k.before = pm_arena_alloc(&w->arena, task->n_files * sizeof *k.before);
    if (!k.before) rc = PM_NOMEM(err);
  }
  for (size_t i = 0; !rc && i < task->n_files; i++)
    rc = pm_data_file_meta_copy(&task->files[i]->file, &k.before[i], &w->arena, err);
  k.n_before = task->n_files;
  if (!rc && dv) rc = index_changes(w, s, task, dv, &k, err);
  if (rc) {
    drop_index_files(w, &k, 1);
    pm_wslot_free(w, s, 1); /* its files were never handed out */
    return rc;
  }
  k.out = s;
  w->compacts[w->n_compacts++] = k;
  return 0;
}

int pm_append_compact_run_task(pm_table_write *w, const pm_append_compact_task *task, pm_error *err) {
  return run_task(w, task, NULL, err);
}

static int supported(const pm_table *t, pm_error *err) {
  if (t->bucket_mode != PM_BUCKET_UNAWARE && t->bucket_mode != PM_BUCKET_FIXED)
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED,
                     "table %s.%s: compacting an append table with bucket %d is not supported yet (bucket -1 and "
                     "fixed buckets are)",
                     t->database, t->name, (int)t->bucket);
  if (t->row_tracking && !t->data_evolution)
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED,
                     "table %s.%s: compacting an append table with row-tracking.enabled (without "
                     "data-evolution.enabled) is not supported yet",
                     t->database, t->name);
  for (size_t i = 0; t->data_evolution && i < t->schema->n_fields; i++)
    if (t->schema->fields[i].type->root == PM_DT_BLOB)
      return pm_errorf(err, PAIMON_ERR_UNSUPPORTED,
                       "table %s.%s: compacting a data-evolution table with BLOB column '%s' is not supported yet",
                       t->database, t->name, t->schema->fields[i].name);
  return 0;
}

int pm_append_compact(pm_table_write *w, const pm_compact_request *req, pm_error *err) {
  int32_t bucket = req->bucket;
  int full = req->full;
  if (w->failed) {
    if (err) *err = w->fail;
    return (int)w->fail.code;
  }
  pm_table *t = w->t;
  PM_TRY(supported(t, err));
  int unaware = t->bucket_mode == PM_BUCKET_UNAWARE;
  if (unaware && bucket > 0) return 0; /* unaware-bucket tables keep every file in bucket 0 */
  pm_snapshot_manager sm = pm_table_snapshots(t);
  pm_snapshot *latest = NULL;
  PM_TRY(pm_snapshot_read_latest_checked(&sm, &latest, err));
  if (!latest) return 0;
  pm_manifest_entries live;
  pm_manifest_entries_init(&live);
  int rc = pm_scan_live_files(t, latest, NULL, &live, err);
  dv_state dvs, *dv = NULL;
  if (!rc && t->deletion_vectors) {
    rc = dv_load(t, latest, &dvs, err);
    dv = &dvs;
  }
  pm_snapshot_free(latest);
  pm_append_compact_opts o;
  pm_append_compact_opts_init(t, &o);
  pm_append_compact_plan plan;
  memset(&plan, 0, sizeof plan);
  /* Java's unaware-bucket coordinator plans the same way for a full compaction */
  if (!rc && t->data_evolution) rc = pm_append_compact_plan_de(t, &live, req, &o, &plan, err);
  else if (!rc && unaware && !dv) rc = pm_append_compact_plan_unaware(t, &live, req, &o, &plan, err);
  else if (!rc && unaware && dv) rc = pm_append_compact_plan_unaware_dv(t, &live, req, &o, dv_of, dv, &plan, err);
  if (!rc && !unaware)
    rc = pm_append_compact_plan_bucketed(t, &live, req, bucket, full, &o, dv ? dv_of : NULL, dv, &plan, err);
  for (size_t i = 0; !rc && i < plan.n_tasks; i++) {
    rc = run_task(w, &plan.tasks[i], dv, err);
    if (!rc && req->progress) req->progress(req->ctx, i + 1, plan.n_tasks);
    if (rc) pm_error_prefix(err, "table %s.%s: compaction task %zu of %zu", t->database, t->name, i + 1, plan.n_tasks);
  }
  pm_append_compact_plan_free(&plan);
  if (dv) dv_clear(dv);
  pm_manifest_entries_clear(&live);
  return rc;
}

/* ------------------------------------------------------------ results */

size_t pm_append_compact_pending(const pm_table_write *w) { return w->n_compacts; }

int pm_append_compact_messages(pm_table_write *w, pm_manifest_committable *c, pm_error *err) {
  for (size_t i = 0; i < w->n_compacts; i++) {
    pm_wcompact *k = &w->compacts[i];
    pm_wslot *s = k->out;
    pm_commit_message *m = &c->messages[c->n_messages++];
    m->partition.data = pm_arena_memdup(&c->arena, s->part, s->part_len);
    m->partition.len = s->part_len;
    m->bucket = s->bucket;
    m->total_buckets = w->t->bucket;
    m->has_total_buckets = 1;
    m->compact_before.items = k->before;
    m->compact_before.n = k->n_before;
    m->compact_after.items = s->n_files ? pm_arena_memdup(&c->arena, s->files, s->n_files * sizeof *s->files) : NULL;
    m->compact_after.n = s->n_files;
    m->compact_new_index_files.items = k->new_index;
    m->compact_new_index_files.n = k->n_new_index;
    m->compact_deleted_index_files.items = k->deleted_index;
    m->compact_deleted_index_files.n = k->n_deleted_index;
    if (!m->partition.data || (s->n_files && !m->compact_after.items)) return PM_NOMEM(err);
  }
  return 0;
}

void pm_append_compact_handed(pm_table_write *w) {
  for (size_t i = 0; i < w->n_compacts; i++) {
    pm_wcompact *k = &w->compacts[i];
    pm_wslot *s = k->out;
    w->cstats.files_removed += (int64_t)k->n_before;
    w->cstats.files_added += (int64_t)s->n_files;
    for (size_t j = 0; j < s->n_files; j++) {
      w->cstats.rows_written += s->files[j].row_count;
      w->cstats.bytes_written += s->files[j].file_size;
    }
    drop_index_files(w, k, 0);
    pm_wslot_free(w, s, 0); /* handed out: never deleted by w */
  }
  w->cstats.tasks += (int64_t)w->n_compacts;
  w->n_compacts = 0;
}

void pm_append_compact_free(pm_table_write *w) {
  for (size_t i = 0; i < w->n_compacts; i++) {
    drop_index_files(w, &w->compacts[i], 1);
    pm_wslot_free(w, w->compacts[i].out, 1);
  }
  free(w->compacts);
  w->compacts = NULL;
  w->n_compacts = w->cap_compacts = 0;
}
