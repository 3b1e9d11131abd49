/* Compaction inside the primary-key writer (kv_compact.h, SEMANTICS 3.3-3.5,
 * 3.7): per bucket, after each flush the universal strategy picks a unit
 * which runs as a task in the background (kv_compact_async.c; rewrite or
 * upgrade of its files); when the writer collects it the levels are
 * updated and the results collect as the bucket's compact increment
 * (compact_before / compact_after) until prepare hands them out, as Java's
 * MergeTreeWriter + MergeTreeCompactManager + MergeTreeCompactTask. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arrow/arrow.h"
#include "arrow/compute.h"
#include "io/fs.h"
#include "table/kv_write_internal.h"
#include "table/partition.h"
#include "table/read.h"
#include "table/scan.h"
#include "util/sort.h"

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ------------------------------------------------------------ setup */

/* Frees the list (and deletes its files when del). */
static void files_drop(pm_kv_write *w, pm_kv_files *f, int del) {
  for (size_t i = 0; i < f->n; i++) {
    pm_error e;
    if (del && f->paths[i]) pm_fs_delete(w->t->fs, f->paths[i], &e);
    free(f->paths[i]);
  }
  free(f->items);
  free(f->paths);
  memset(f, 0, sizeof *f);
}

/* Appends src's files to dst (paths moved); src emptied. */
static int files_move(pm_kv_files *dst, pm_kv_files *src, pm_error *err) {
  if (dst->n + src->n > dst->cap) {
    size_t cap = dst->n + src->n + 16;
    pm_data_file_meta *ni = realloc(dst->items, cap * sizeof *ni);
    if (!ni) return PM_NOMEM(err);
    dst->items = ni;
    char **np = realloc(dst->paths, cap * sizeof *np);
    if (!np) return PM_NOMEM(err);
    dst->paths = np;
    dst->cap = cap;
  }
  for (size_t i = 0; i < src->n; i++) {
    dst->items[dst->n] = src->items[i];
    dst->paths[dst->n++] = src->paths[i];
    src->paths[i] = NULL;
  }
  src->n = 0;
  return 0;
}

int pm_kv_levels_setup(pm_kv_write *w, pm_kvslot *s, pm_error *err) {
  if (!w->compaction) return 0;
  PM_TRY(pm_kv_levels_init(&s->levels, w->nk, (const pm_data_type *const *)w->tm.key_types, w->n_levels, err));
  s->has_levels = 1;
  size_t n = 0;
  for (size_t i = 0; i < w->previous.n; i++) {
    const pm_manifest_entry *e = &w->previous.items[i];
    n += e->bucket == s->bucket && e->partition.len == s->part_len &&
         (!s->part_len || !memcmp(e->partition.data, s->part, s->part_len));
  }
  const pm_data_file_meta **files = calloc(n + 1, sizeof *files);
  if (!files) return PM_NOMEM(err);
  size_t k = 0;
  int64_t last_full = -1;
  for (size_t i = 0; i < w->previous.n; i++) {
    const pm_manifest_entry *e = &w->previous.items[i];
    if (e->bucket != s->bucket || e->partition.len != s->part_len ||
        (s->part_len && memcmp(e->partition.data, s->part, s->part_len)))
      continue;
    files[k++] = &e->file;
    /* Java estimates the last full compaction from the newest max-level file */
    if (e->file.level == w->n_levels - 1 && e->file.creation_time_millis > last_full)
      last_full = e->file.creation_time_millis;
  }
  int rc = pm_kv_levels_restore(&s->levels, files, k, err);
  free(files);
  pm_bytes part = {s->part, s->part_len};
  if (!rc && w->dv) rc = pm_kv_dv_restore(w->t, &w->dv_index, part, s->bucket, s->bucket_dir, &s->dv, err);
  if (rc) return pm_error_prefix(err, "table %s.%s: restoring the levels of bucket %d", w->t->database, w->t->name,
                                 (int)s->bucket);
  const pm_core_options *co = &w->t->co;
  pm_kv_picker_init(&s->picker, co->num_sorted_run_compaction_trigger, co->compaction_max_size_amp,
                    co->compaction_size_ratio,
                    co->set[PM_CO_COMPACTION_OPTIMIZATION_INTERVAL] ? co->compaction_optimization_interval_ms : -1,
                    co->set[PM_CO_COMPACTION_TOTAL_SIZE_THRESHOLD] ? co->compaction_total_size_threshold : -1,
                    co->set[PM_CO_COMPACTION_INCREMENTAL_SIZE_THRESHOLD] ? co->compaction_incremental_size_threshold
                                                                          : -1,
                    last_full);
  s->picker.offpeak_start = co->compaction_offpeak_start_hour;
  s->picker.offpeak_end = co->compaction_offpeak_end_hour;
  s->picker.offpeak_ratio = co->compaction_offpeak_ratio;
  /* lookup-compact = gentle: level 0 forced up only every lookup-compact.max-interval
   * empty picks (at least num-sorted-run.compaction-trigger; default twice it) */
  if (w->lookup && co->lookup_compact == PM_LOOKUP_COMPACT_GENTLE) {
    int64_t iv = co->set[PM_CO_LOOKUP_COMPACT_MAX_INTERVAL] ? co->lookup_compact_max_interval
                                                             : 2 * (int64_t)co->num_sorted_run_compaction_trigger;
    if (iv < co->num_sorted_run_compaction_trigger) iv = co->num_sorted_run_compaction_trigger;
    s->picker.lookup_interval = iv > INT32_MAX ? INT32_MAX : (int)iv;
  }
  return 0;
}

void pm_kv_slot_compact_free(pm_kv_write *w, pm_kvslot *s) {
  for (size_t i = 0; i < s->compact_after.n; i++) {
    pm_error e;
    if (s->compact_after.paths[i]) pm_fs_delete(w->t->fs, s->compact_after.paths[i], &e);
    free(s->compact_after.paths[i]);
  }
  free(s->compact_after.items);
  free(s->compact_after.paths);
  memset(&s->compact_after, 0, sizeof s->compact_after);
  files_drop(w, &s->compact_cl, 1);
  free(s->compact_before);
  s->compact_before = NULL;
  s->n_before = s->cap_before = 0;
  if (s->has_levels) pm_kv_levels_free(&s->levels);
  s->has_levels = 0;
  pm_dv_maintainer_free(s->dv);
  s->dv = NULL;
}

/* ------------------------------------------------------------ a unit's result */

typedef struct unit_result {
  pm_data_file_meta *before, *after; /* metas; strings in `arena` */
  char **after_paths;                /* NULL for upgrades */
  size_t nb, na, cap_b, cap_a;
  pm_kv_files cl;                    /* changelog files written (changelog-producer = lookup) */
  /* the task's own state (a background task shares nothing mutable with the writer) */
  pm_arena *arena;                   /* metas of the outputs and copies of the inputs */
  uint64_t *fed, *bytes;             /* compression learned (pm_kv_roll fed_acc / bytes_acc) */
  int64_t upgrades;
  atomic_int *cancel;                /* NULL: not cancellable */
} unit_result;

static void result_free(pm_kv_write *w, unit_result *r, int delete_outputs) {
  files_drop(w, &r->cl, delete_outputs);
  for (size_t i = 0; i < r->na; i++) {
    pm_error e;
    if (delete_outputs && r->after_paths[i]) pm_fs_delete(w->t->fs, r->after_paths[i], &e);
    free(r->after_paths[i]);
  }
  free(r->before);
  free(r->after);
  free(r->after_paths);
}

/* before metas are copied into the task's arena (the levels drop theirs) */
static int add_before(pm_kv_write *w, unit_result *r, const pm_data_file_meta *m, pm_error *err) {
  (void)w;
  if (r->nb == r->cap_b) {
    size_t cap = r->cap_b ? 2 * r->cap_b : 8;
    pm_data_file_meta *n = realloc(r->before, cap * sizeof *n);
    if (!n) return PM_NOMEM(err);
    r->before = n;
    r->cap_b = cap;
  }
  PM_TRY(pm_data_file_meta_copy(m, &r->before[r->nb], r->arena, err));
  r->nb++;
  return 0;
}

static int add_after(unit_result *r, const pm_data_file_meta *m, char *path, pm_error *err) {
  if (r->na == r->cap_a) {
    size_t cap = r->cap_a ? 2 * r->cap_a : 8;
    pm_data_file_meta *n = realloc(r->after, cap * sizeof *n);
    char **p = n ? realloc(r->after_paths, cap * sizeof *p) : NULL;
    if (n) r->after = n;
    if (!n || !p) {
      free(path);
      return PM_NOMEM(err);
    }
    r->after_paths = p;
    r->cap_a = cap;
  }
  r->after[r->na] = *m;
  r->after_paths[r->na++] = path;
  return 0;
}

/* ------------------------------------------------------------ the merge read */

int pm_kv_merge_read_open(pm_kv_write *w, pm_kvslot *s, pm_kv_lfile *const *files, size_t n, pm_kv_merge_read *r,
                          pm_error *err) {
  return pm_kv_merge_read_open_ex(w, s, files, n, NULL, 0, 0, r, err);
}

int pm_kv_merge_read_open_ex(pm_kv_write *w, pm_kvslot *s, pm_kv_lfile *const *files, size_t n,
                             const pm_data_file_meta *extra, size_t n_extra, int lookup_merge, pm_kv_merge_read *r,
                             pm_error *err) {
  memset(r, 0, sizeof *r);
  pm_arena_init(&r->split.arena);
  if (!n) return 0;
  size_t nt = n + n_extra;
  pm_data_split *sp = &r->split;
  sp->partition.data = s->part;
  sp->partition.len = s->part_len;
  sp->bucket = s->bucket;
  sp->bucket_path = s->bucket_dir;
  sp->total_buckets = w->t->bucket;
  sp->has_total_buckets = 1;
  sp->data_files = calloc(nt, sizeof *sp->data_files);
  r->cols = calloc(w->nf + 1, sizeof *r->cols);
  if (!sp->data_files || !r->cols) return PM_NOMEM(err);
  for (size_t i = 0; i < n; i++) sp->data_files[i] = files[i]->meta;
  for (size_t i = 0; i < n_extra; i++) sp->data_files[n + i] = extra[i];
  sp->n_data_files = nt;
  if (s->dv) {
    sp->deletion_files = calloc(nt, sizeof *sp->deletion_files);
    if (!sp->deletion_files) return PM_NOMEM(err);
    for (size_t i = 0; i < nt; i++) {
      sp->deletion_files[i].cardinality = -1;
      sp->deletion_files[i].vector = i < n ? pm_dv_maintainer_get(s->dv, files[i]->meta.file_name) : NULL;
    }
  }
  for (size_t f = 0; f < w->nf; f++) r->cols[f] = w->fields[f].name;
  r->cols[w->nf] = PM_SYSTEM_FIELD_SEQUENCE_NUMBER;
  pm_read_options ro;
  pm_read_options_init(&ro);
  ro.columns = r->cols;
  ro.n_columns = w->nf + 1;
  ro.with_row_kind = 1;
  ro.parallelism = 1;
  ro.lookup_merge = lookup_merge;
  return pm_read_split(w->t, sp, &ro, &r->st, err);
}

int pm_kv_merge_read_next(pm_kv_merge_read *r, struct ArrowArray *out, const char *what, pm_error *err) {
  memset(out, 0, sizeof *out);
  if (!r->st.release) return 0;
  if (r->st.get_next(&r->st, out)) {
    const char *msg = r->st.get_last_error ? r->st.get_last_error(&r->st) : NULL;
    memset(out, 0, sizeof *out);
    return pm_errorf(err, PAIMON_ERR_IO, "%s", msg ? msg : what);
  }
  return 0;
}

void pm_kv_merge_read_close(pm_kv_merge_read *r) {
  if (r->st.release) r->st.release(&r->st);
  free(r->cols);
  free(r->split.data_files);
  free(r->split.deletion_files);
  pm_arena_free(&r->split.arena);
  memset(r, 0, sizeof *r);
}

/* ------------------------------------------------------------ rewrite */

static int kind_of(const struct ArrowArray *a, int64_t i) {
  const int32_t *off = (const int32_t *)a->buffers[1] + a->offset;
  const char *d = a->buffers[2];
  int32_t len = off[i + 1] - off[i];
  const char *p = d + off[i];
  if (len == 2 && p[0] == '-') return p[1] == 'U' ? PM_ROWKIND_UPDATE_BEFORE : PM_ROWKIND_DELETE;
  if (len == 2 && p[1] == 'U') return PM_ROWKIND_UPDATE_AFTER;
  return PM_ROWKIND_INSERT;
}

/* A read batch (_row_kind, table columns, _SEQUENCE_NUMBER) as a merge-layout
 * batch (table columns, _SEQUENCE_NUMBER, _VALUE_KIND); retracts left out
 * when drop_delete. *out released when nothing is left. */
int pm_kv_to_layout(pm_kv_write *w, struct ArrowArray *b, int drop_delete, const uint8_t *keep_rows,
                    struct ArrowArray *out, pm_error *err) {
  size_t nf = w->nf;
  int64_t n = b->length;
  memset(out, 0, sizeof *out);
  struct ArrowArray c;
  PM_TRY(pm_array_init(&c, n, 1, (int64_t)nf + 2, err));
  for (size_t f = 0; f < nf; f++) pm_array_move(b->children[1 + f], c.children[f]);
  pm_array_move(b->children[1 + nf], c.children[nf]);
  struct ArrowArray *kc = c.children[nf + 1];
  int rc = pm_array_init(kc, n, 2, 0, err);
  int8_t *kinds = rc ? NULL : pm_aligned_alloc((size_t)n + 8);
  if (!rc && !kinds) rc = PM_NOMEM(err);
  if (rc) {
    pm_array_release(&c);
    return rc;
  }
  pm_array_set_buffer(kc, 1, kinds);
  int64_t keep = 0;
  for (int64_t i = 0; i < n; i++) {
    kinds[i] = (int8_t)kind_of(b->children[0], i);
    keep += !(drop_delete && pm_rowkind_is_retract(kinds[i])) && (!keep_rows || pm_bit_get(keep_rows, i));
  }
  if (b->offset == 0 && keep == n) {
    pm_array_move(&c, out);
    return 0;
  }
  if (!keep) {
    pm_array_release(&c);
    return 0;
  }
  int64_t *idx = malloc((size_t)keep * sizeof *idx);
  if (!idx) {
    pm_array_release(&c);
    return PM_NOMEM(err);
  }
  int64_t k = 0;
  for (int64_t i = 0; i < n; i++)
    if (!(drop_delete && pm_rowkind_is_retract(kinds[i])) && (!keep_rows || pm_bit_get(keep_rows, i)))
      idx[k++] = i + b->offset;
  rc = pm_take(&w->layout, &c, idx, keep, out, err);
  free(idx);
  pm_array_release(&c);
  return rc;
}

/* Lookup compaction of a merged batch b (read layout): the changelog rows
 * bf gives written to cl (when open), and *keep = the rows to write. */
static int lookup_batch(pm_kv_write *w, pm_kv_before *bf, struct ArrowArray *b, pm_kv_roll *cl, uint8_t **keep,
                        pm_error *err) {
  int first_row = w->t->merge_engine == (pm_merge_engine)PM_ENGINE_FIRST_ROW;
  *keep = NULL;
  if (first_row) {
    *keep = calloc((size_t)(b->length / 8 + 1), 1);
    if (!*keep) return PM_NOMEM(err);
  }
  struct ArrowArray c, m;
  int8_t *kinds = NULL;
  PM_TRY(pm_kv_before_apply(bf, b, *keep, &c, &kinds, err));
  if (!c.release) return 0;
  int rc = cl ? pm_kv_to_layout(w, &c, 0, NULL, &m, err) : 0;
  pm_array_release(&c);
  if (!rc && cl) {
    struct ArrowArray *kc = m.children[w->nf + 1];
    int8_t *k = (int8_t *)kc->buffers[1];
    for (int64_t i = 0; i < kc->length; i++) k[kc->offset + i] = kinds[i];
    rc = pm_kv_roll_write(cl, &m, err);
    pm_array_release(&m);
  }
  free(kinds);
  return rc;
}

/* Merge-reads files[0..n) (key-ordered sections, the table's merge engine)
 * and writes the result at `level` (source COMPACT) into r; with write_data
 * 0 (a lookup upgrade) only the lookup's changelog and deletion vectors. */
static int rewrite_ex(pm_kv_write *w, pm_kvslot *s, pm_kv_lfile *const *files, size_t n, int level, int drop_delete,
                      int write_data, unit_result *r, pm_error *err) {
  if (!n) return 0;
  /* deletion vectors: the inputs read without their deleted rows (the
   * bucket's current vectors, taken before the DV lookup below marks new
   * deletions), and the keys of level-0 inputs looked up in the levels above
   * the output */
  pm_kv_merge_read mr;
  memset(&mr, 0, sizeof mr);
  int any_l0 = 0;
  for (size_t i = 0; i < n; i++) any_l0 |= files[i]->meta.level == 0;
  /* lookup compaction (changelog-producer = lookup, first-row, and the
   * engines whose merge needs the looked-up record): the old values of the
   * level-0 keys, found before the DV lookup marks them */
  int first_row = w->t->merge_engine == (pm_merge_engine)PM_ENGINE_FIRST_ROW;
  int lookup_group = w->lookup && any_l0 && level > 0;
  int upper_merge = lookup_group && pm_kv_lookup_merges_upper(w);
  pm_kv_before *bf = NULL;
  int rc = 0;
  if (lookup_group && (w->lookup_cl || first_row || upper_merge))
    rc = pm_kv_before_build(w, s, files, n, level, 0, &bf, err);
  /* the looked-up records join the group's merge (Java's LookupMergeFunction.insertInto) */
  pm_kv_files upper;
  memset(&upper, 0, sizeof upper);
  if (!rc && upper_merge && bf) rc = pm_kv_before_upper_files(bf, r->arena, r->fed, r->bytes, &upper, err);
  if (!rc) rc = pm_kv_merge_read_open_ex(w, s, files, n, upper.items, upper.n, lookup_group, &mr, err);
  /* changelog-producer = full-compaction: every compaction to the max level */
  if (!rc && w->full_cl && level == pm_kv_levels_max_level(&s->levels))
    rc = pm_kv_before_build(w, s, files, n, level, 1, &bf, err);
  if (!rc && s->dv && any_l0 && level > 0) rc = pm_kv_dv_lookup(w, s, files, n, level, err);
  pm_kv_files outs;
  memset(&outs, 0, sizeof outs);
  pm_kv_roll roll, clr;
  pm_kv_roll_init(&roll, w, s->bucket_dir, level, PM_SOURCE_COMPACT, 0, &outs);
  roll.arena = r->arena;
  roll.fed_acc = r->fed;
  roll.bytes_acc = r->bytes;
  pm_kv_files cls;
  memset(&cls, 0, sizeof cls);
  int with_cl = bf && (w->lookup_cl || w->full_cl);
  if (with_cl) {
    pm_kv_roll_init(&clr, w, s->bucket_dir, level, PM_SOURCE_APPEND, 1, &cls);
    clr.arena = r->arena;
    clr.fed_acc = r->fed;
    clr.bytes_acc = r->bytes;
  }
  while (!rc) {
    struct ArrowArray b, m;
    memset(&m, 0, sizeof m);
    if (r->cancel && atomic_load(r->cancel)) {
      rc = pm_errorf(err, PAIMON_ERR_IO, "compaction cancelled (the writer is closing)");
      break;
    }
    rc = pm_kv_merge_read_next(&mr, &b, "reading the files to compact failed", err);
    if (rc || !b.release) break;
    uint8_t *keep = NULL;
    if (bf && (with_cl || first_row)) rc = lookup_batch(w, bf, &b, with_cl ? &clr : NULL, &keep, err);
    if (!rc && write_data) rc = pm_kv_to_layout(w, &b, drop_delete, keep, &m, err);
    free(keep);
    b.release(&b);
    if (!rc && m.release) {
      rc = pm_kv_roll_write(&roll, &m, err);
      m.release(&m);
    }
  }
  if (!rc) rc = pm_kv_roll_finish(&roll, err);
  if (rc) pm_kv_roll_abort(&roll);
  if (with_cl) {
    if (!rc) rc = pm_kv_roll_finish(&clr, err);
    if (rc) pm_kv_roll_abort(&clr);
  }
  pm_kv_before_free(bf);
  if (!rc) rc = files_move(&r->cl, &cls, err);
  files_drop(w, &cls, 1);
  pm_kv_merge_read_close(&mr);
  files_drop(w, &upper, 1);
  if (!write_data) {
    for (size_t j = 0; j < outs.n; j++) {
      pm_error e;
      if (outs.paths[j]) pm_fs_delete(w->t->fs, outs.paths[j], &e);
      free(outs.paths[j]);
    }
    free(outs.items);
    free(outs.paths);
    return rc;
  }
  /* rewritten files lose their vectors (Java's notifyRewriteCompactBefore) */
  for (size_t i = 0; !rc && s->dv && i < n; i++) pm_dv_maintainer_remove(s->dv, files[i]->meta.file_name);
  for (size_t i = 0; !rc && i < n; i++) rc = add_before(w, r, &files[i]->meta, err);
  size_t i = 0;
  for (; !rc && i < outs.n; i++) {
    rc = add_after(r, &outs.items[i], outs.paths[i], err);
    outs.paths[i] = NULL;
  }
  for (size_t j = i; j < outs.n; j++) {
    pm_error e;
    if (outs.paths[j]) pm_fs_delete(w->t->fs, outs.paths[j], &e);
    free(outs.paths[j]);
  }
  free(outs.items);
  free(outs.paths);
  return rc;
}

static int rewrite(pm_kv_write *w, pm_kvslot *s, pm_kv_lfile *const *files, size_t n, int level, int drop_delete,
                   unit_result *r, pm_error *err) {
  return rewrite_ex(w, s, files, n, level, drop_delete, 1, r, err);
}

int pm_kv_lookup_merges_upper(const pm_kv_write *w) {
  int e = (int)w->t->merge_engine;
  return e == PM_ENGINE_PARTIAL_UPDATE || e == PM_ENGINE_AGGREGATION ||
         (e == PM_ENGINE_DEDUPLICATE && w->t->co.sequence_field);
}

/* ------------------------------------------------------------ the task (MergeTreeCompactTask) */

typedef struct task {
  pm_kv_write *w;
  pm_kvslot *s;
  int level, max_level, drop_delete;
  unit_result *r;
  /* candidate: files to rewrite together, and its shape */
  pm_kv_lfile **cand;
  size_t n_cand, n_sections;
  int first_section_runs;
} task;

static int upgrade(task *t, pm_kv_lfile *f, pm_error *err) {
  const pm_data_file_meta *m = &f->meta;
  int deletes = !m->has_delete_row_count || m->delete_row_count > 0;
  if ((t->level == t->max_level && deletes) || t->w->t->co.compaction_force_rewrite_all_files)
    return rewrite(t->w, t->s, &f, 1, t->level, t->drop_delete, t->r, err);
  if (m->level == t->level) return 0;
  /* full-compaction changelog: an upgrade to the max level logs its records (FullChangelogMergeTreeCompactRewriter) */
  if (t->w->full_cl && t->level == t->max_level) PM_TRY(rewrite_ex(t->w, t->s, &f, 1, t->level, 0, 0, t->r, err));
  if (t->w->lookup && m->level == 0) {
    /* Java's lookup upgrade strategy (LookupMergeTreeCompactRewriter): with
     * DVs retracts in the file force a rewrite (compaction with DVs drops
     * them); to the max level, or for deduplicate, the lookup runs for its
     * changelog / deletion vectors and the file is upgraded; other engines
     * (first-row) rewrite it (drop delete only with DVs) */
    pm_kv_write *w = t->w;
    if (t->s->dv && deletes) return rewrite(w, t->s, &f, 1, t->level, 1, t->r, err);
    if (t->level != t->max_level && (w->t->merge_engine != PM_MERGE_DEDUPLICATE || w->t->co.sequence_field))
      return rewrite(w, t->s, &f, 1, t->level, t->s->dv != NULL, t->r, err);
    if (w->lookup_cl || w->t->merge_engine == (pm_merge_engine)PM_ENGINE_FIRST_ROW)
      PM_TRY(rewrite_ex(w, t->s, &f, 1, t->level, 0, 0, t->r, err));
    else if (t->s->dv)
      PM_TRY(pm_kv_dv_lookup(w, t->s, &f, 1, t->level, err));
  }
  PM_TRY(add_before(t->w, t->r, m, err));
  pm_data_file_meta up;
  PM_TRY(pm_data_file_meta_copy(m, &up, t->r->arena, err));
  up.level = t->level;
  t->r->upgrades++;
  return add_after(t->r, &up, NULL, err);
}

static int flush_candidate(task *t, pm_error *err) {
  int rc = 0;
  if (!t->n_cand) return 0;
  if (t->n_sections == 1 && t->first_section_runs == 1) {
    for (size_t i = 0; !rc && i < t->n_cand; i++) rc = upgrade(t, t->cand[i], err);
  } else {
    rc = rewrite(t->w, t->s, t->cand, t->n_cand, t->level, t->drop_delete, t->r, err);
  }
  t->n_cand = 0;
  t->n_sections = 0;
  return rc;
}

static void cand_add(task *t, pm_kv_lfile *const *f, size_t n, int runs) {
  if (!t->n_sections) t->first_section_runs = runs;
  t->n_sections++;
  for (size_t i = 0; i < n; i++) t->cand[t->n_cand++] = f[i];
}

typedef struct sort_ctx {
  int nk;
  pm_kv_lfile *const *files;
} sort_ctx;

static int by_range(const void *ctx, size_t a, size_t b) {
  const sort_ctx *c = ctx;
  const pm_kv_lfile *x = c->files[a], *y = c->files[b];
  int r = pm_kv_key_cmp(c->nk, x->min, y->min);
  return r ? r : pm_kv_key_cmp(c->nk, x->max, y->max);
}

/* Sorted runs in one section (Java's IntervalPartition): each file joins the
 * run whose last max key is smallest when it lies above it, else starts a run. */
static int section_runs(int nk, pm_kv_lfile *const *f, size_t n, size_t *scratch) {
  size_t runs = 0; /* scratch[k] = index of run k's last file */
  for (size_t i = 0; i < n; i++) {
    size_t best = (size_t)-1;
    for (size_t k = 0; k < runs; k++)
      if (best == (size_t)-1 || pm_kv_key_cmp(nk, f[scratch[k]]->max, f[scratch[best]]->max) < 0) best = k;
    if (best != (size_t)-1 && pm_kv_key_cmp(nk, f[i]->min, f[scratch[best]]->max) > 0) scratch[best] = i;
    else scratch[runs++] = i;
  }
  return (int)runs;
}

static int run_task(task *t, pm_kv_lfile **files, size_t n, int file_rewrite, pm_error *err) {
  int nk = t->w->nk > 0 ? (int)t->w->nk : 0;
  if (file_rewrite) {
    for (size_t i = 0; i < n; i++) PM_TRY(rewrite(t->w, t->s, &files[i], 1, t->level, t->drop_delete, t->r, err));
    return 0;
  }
  size_t *scratch = malloc((n + 1) * sizeof *scratch);
  t->cand = malloc((n + 1) * sizeof *t->cand);
  pm_kv_lfile **sorted = malloc((n + 1) * sizeof *sorted);
  int rc = scratch && t->cand && sorted ? 0 : PM_NOMEM(err);
  if (!rc) {
    /* by (min key, max key), stable */
    sort_ctx sc = {nk, files};
    for (size_t i = 0; i < n; i++) scratch[i] = i;
    if (pm_sort_indices(scratch, n, by_range, &sc)) rc = PM_NOMEM(err);
    for (size_t i = 0; !rc && i < n; i++) sorted[i] = files[scratch[i]];
    if (!rc) memcpy(files, sorted, n * sizeof *files);
  }
  free(sorted);
  for (size_t a = 0; !rc && a < n;) {
    /* section [a, b): files chained by overlapping key ranges */
    size_t b = a + 1;
    const pm_value *bound = files[a]->max;
    while (b < n && pm_kv_key_cmp(nk, files[b]->min, bound) <= 0) {
      if (pm_kv_key_cmp(nk, files[b]->max, bound) > 0) bound = files[b]->max;
      b++;
    }
    int runs = section_runs(nk, files + a, b - a, scratch);
    if (runs > 1) {
      cand_add(t, files + a, b - a, runs);
    } else {
      for (size_t i = a; !rc && i < b; i++) {
        if (files[i]->meta.file_size < t->w->min_file_size) {
          cand_add(t, &files[i], 1, 1);
        } else {
          rc = flush_candidate(t, err);
          if (!rc) rc = upgrade(t, files[i], err);
        }
      }
    }
    a = b;
  }
  if (!rc) rc = flush_candidate(t, err);
  free(scratch);
  free(t->cand);
  t->cand = NULL;
  return rc;
}

/* ------------------------------------------------------------ bookkeeping (updateCompactResult) */

static long find_after(const pm_kvslot *s, const pm_data_file_meta *m) {
  for (size_t i = 0; i < s->compact_after.n; i++)
    if (s->compact_after.items[i].level == m->level && !strcmp(s->compact_after.items[i].file_name, m->file_name))
      return (long)i;
  return -1;
}

static int in_before(const pm_kvslot *s, const char *name) {
  for (size_t i = 0; i < s->n_before; i++)
    if (!strcmp(s->compact_before[i].file_name, name)) return 1;
  return 0;
}

static int record(pm_kv_write *w, pm_kvslot *s, unit_result *r, pm_error *err) {
  /* room first: nothing below fails half-way */
  if (s->n_before + r->nb > s->cap_before) {
    size_t cap = s->n_before + r->nb + 16;
    pm_data_file_meta *nb = realloc(s->compact_before, cap * sizeof *nb);
    if (!nb) return PM_NOMEM(err);
    s->compact_before = nb;
    s->cap_before = cap;
  }
  pm_kv_files *ca = &s->compact_after;
  if (ca->n + r->na > ca->cap) {
    size_t cap = ca->n + r->na + 16;
    pm_data_file_meta *ni = realloc(ca->items, cap * sizeof *ni);
    if (!ni) return PM_NOMEM(err);
    ca->items = ni;
    char **np = realloc(ca->paths, cap * sizeof *np);
    if (!np) return PM_NOMEM(err);
    ca->paths = np;
    ca->cap = cap;
  }
  PM_TRY(files_move(&s->compact_cl, &r->cl, err));
  for (size_t i = 0; i < r->nb; i++) {
    const pm_data_file_meta *b = &r->before[i];
    long at = find_after(s, b);
    if (at >= 0) {
      /* an output of an earlier compaction since the last prepare: never committed */
      int keep = in_before(s, b->file_name);
      for (size_t k = 0; !keep && k < r->na; k++) keep = !strcmp(r->after[k].file_name, b->file_name);
      if (!keep && ca->paths[at]) {
        pm_error e;
        pm_fs_delete(w->t->fs, ca->paths[at], &e);
      }
      free(ca->paths[at]);
      memmove(ca->items + at, ca->items + at + 1, (ca->n - (size_t)at - 1) * sizeof *ca->items);
      memmove(ca->paths + at, ca->paths + at + 1, (ca->n - (size_t)at - 1) * sizeof *ca->paths);
      ca->n--;
    } else {
      int dup = 0;
      for (size_t k = 0; k < s->n_before && !dup; k++)
        if (!strcmp(s->compact_before[k].file_name, b->file_name)) {
          s->compact_before[k] = *b;
          dup = 1;
        }
      if (!dup) s->compact_before[s->n_before++] = *b;
    }
  }
  for (size_t i = 0; i < r->na; i++) {
    ca->items[ca->n] = r->after[i];
    ca->paths[ca->n++] = r->after_paths[i];
    r->after_paths[i] = NULL;
  }
  return 0;
}

/* ------------------------------------------------------------ the task (submit, run, apply) */

typedef struct unit_task {
  pm_kv_ctask base; /* first: kv_compact_async.c sees only this */
  pm_kv_unit u;
  int max_level, drop_delete;
  pm_kv_lfile **files; /* the unit's input files (the levels' copies; stable until applied) */
  size_t n_files;
  unit_result r;
  pm_arena arena;
  uint64_t fed, bytes, fed0, bytes0; /* compression counters: the writer's at submit, then the task's */
} unit_task;

/* The writer whose task this thread runs (pm_kv_in_task). */
static _Thread_local const pm_kv_write *running_task_of;

int pm_kv_in_task(const pm_kv_write *w) { return running_task_of == w; }

void pm_kv_ctask_run(pm_kv_ctask *ct) {
  unit_task *ut = (unit_task *)ct;
  pm_kv_write *w = ct->w;
  pm_kvslot *s = ct->s;
  task t = {w, s, ut->u.out_level, ut->max_level, ut->drop_delete, &ut->r, NULL, 0, 0, 0};
  pm_error_clear(&ct->err);
  running_task_of = w;
  int rc = run_task(&t, ut->files, ut->n_files, ut->u.file_rewrite, &ct->err);
  running_task_of = NULL;
  if (rc) {
    /* a failed or cancelled task leaves nothing behind */
    result_free(w, &ut->r, 1);
    memset(&ut->r, 0, sizeof ut->r);
    pm_error_prefix(&ct->err, "table %s.%s: compacting bucket %d: ", w->t->database, w->t->name, (int)s->bucket);
  }
  ct->rc = rc;
}

void pm_kv_ctask_free(pm_kv_write *w, pm_kv_ctask *ct) {
  if (!ct) return;
  unit_task *ut = (unit_task *)ct;
  result_free(w, &ut->r, 1); /* not applied: its outputs go */
  free(ut->files);
  pm_arena_free(&ut->arena);
  free(ut);
}

/* A meta list copied into the writer's arena (the task's goes with it). */
static int metas_to_writer(pm_kv_write *w, pm_data_file_meta *m, size_t n, pm_error *err) {
  for (size_t i = 0; i < n; i++) {
    pm_data_file_meta c;
    PM_TRY(pm_data_file_meta_copy(&m[i], &c, &w->arena, err));
    m[i] = c;
  }
  return 0;
}

int pm_kv_ctask_apply(pm_kv_write *w, pm_kv_ctask *ct, pm_error *err) {
  unit_task *ut = (unit_task *)ct;
  pm_kvslot *s = ct->s;
  int rc = ct->rc;
  if (rc) {
    if (err) *err = ct->err;
  } else {
    unit_result *r = &ut->r;
    rc = metas_to_writer(w, r->before, r->nb, err);
    if (!rc) rc = metas_to_writer(w, r->after, r->na, err);
    if (!rc) rc = metas_to_writer(w, r->cl.items, r->cl.n, err);
    if (!rc) rc = pm_kv_levels_update(&s->levels, r->before, r->nb, r->after, r->na, err);
    if (!rc) rc = record(w, s, r, err);
    if (!rc) {
      w->stats.tasks++;
      w->stats.upgrades += r->upgrades;
      w->closed_fed += ut->fed - ut->fed0;
      w->closed_bytes += ut->bytes - ut->bytes0;
    }
    if (rc) pm_error_prefix(err, "table %s.%s: compacting bucket %d: ", w->t->database, w->t->name, (int)s->bucket);
  }
  pm_kv_ctask_free(w, ct);
  return rc;
}

int pm_kv_compact_trigger(pm_kv_write *w, pm_kvslot *s, int full, pm_error *err) {
  if (!s->has_levels || s->task) return 0; /* one task per bucket (a full request collects first) */
  pm_kv_run *runs = NULL;
  size_t n = 0;
  PM_TRY(pm_kv_levels_runs(&s->levels, &runs, &n, err));
  pm_kv_run_info *info = calloc(n + 1, sizeof *info);
  if (!info) {
    free(runs);
    return PM_NOMEM(err);
  }
  for (size_t i = 0; i < n; i++) info[i] = (pm_kv_run_info){runs[i].level, runs[i].size, runs[i].n};
  int n_levels = s->levels.n_levels;
  pm_kv_unit u;
  int64_t t_now = now_ms();
  int picked;
  if (full) {
    /* a single max-level run: its files with a deletion vector are rewritten (Java's pickFullCompaction) */
    picked = pm_kv_pick_full(n_levels, info, n,
                             w->t->co.compaction_force_rewrite_all_files || (s->dv && pm_dv_maintainer_count(s->dv)),
                             &u);
  } else {
    /* lookup tables (changelog lookup, deletion vectors, first-row) and
     * compaction.force-up-level-0: Java's ForceUpLevel0Compaction */
    picked = w->lookup || w->t->co.compaction_force_up_level_0 ? pm_kv_pick_lookup(&s->picker, n_levels, info, n, t_now, &u)
                       : pm_kv_pick(&s->picker, n_levels, info, n, t_now, &u);
    picked = picked && pm_kv_unit_useful(&u, info);
  }
  int rc = 0;
  if (picked) {
    unit_task *ut = calloc(1, sizeof *ut);
    size_t nfiles = 0;
    for (size_t i = 0; i < u.n_runs; i++) nfiles += runs[i].n;
    if (ut) ut->files = malloc((nfiles + 1) * sizeof *ut->files);
    if (!ut || !ut->files) {
      free(ut);
      rc = PM_NOMEM(err);
    } else {
      size_t k = 0;
      for (size_t i = 0; i < u.n_runs; i++)
        for (size_t j = 0; j < runs[i].n; j++)
          if (!u.file_rewrite || w->t->co.compaction_force_rewrite_all_files ||
              (s->dv && pm_dv_maintainer_get(s->dv, runs[i].files[j]->meta.file_name)))
            ut->files[k++] = runs[i].files[j];
      ut->n_files = k;
      ut->base.w = w;
      ut->base.s = s;
      atomic_init(&ut->base.cancel, 0);
      ut->u = u;
      ut->max_level = pm_kv_levels_max_level(&s->levels);
      ut->drop_delete =
          pm_kv_drop_delete(u.out_level, pm_kv_levels_highest_nonempty(&s->levels), w->t->deletion_vectors);
      pm_arena_init(&ut->arena);
      ut->fed = ut->fed0 = w->closed_fed;
      ut->bytes = ut->bytes0 = w->closed_bytes;
      ut->r.arena = &ut->arena;
      ut->r.fed = &ut->fed;
      ut->r.bytes = &ut->bytes;
      ut->r.cancel = &ut->base.cancel;
      rc = pm_kv_compact_submit(w, s, &ut->base, err);
    }
  }
  free(info);
  free(runs);
  return rc;
}

int pm_kv_flushed(pm_kv_write *w, pm_kvslot *s, const pm_data_file_meta *files, size_t n, pm_error *err) {
  if (!s->has_levels) return 0;
  PM_TRY(pm_kv_levels_update(&s->levels, NULL, 0, files, n, err));
  if (s->no_trigger) return 0;
  return pm_kv_compact_sync_trigger(w, s, err);
}

int pm_kv_compact_slot(pm_kv_write *w, pm_kvslot *s, int full, pm_error *err) {
  if (!s->has_levels) return 0;
  s->no_trigger = 1;
  int rc = pm_kv_flush(w, s, err);
  s->no_trigger = 0;
  /* Java's compact(full) = flushWriteBuffer(true, full): the task in flight first */
  if (!rc) rc = pm_kv_compact_collect(w, s, 1, err);
  if (!rc) rc = pm_kv_compact_trigger(w, s, full, err);
  if (!rc && s->task) s->forced = 1;
  return rc;
}

int pm_kv_slot_refresh(pm_kv_write *w, pm_kvslot *s, pm_error *err) {
  if (!s->has_levels) return 0;
  /* the compaction results not handed out: never committed, their outputs are ours */
  for (size_t i = 0; i < s->compact_after.n; i++) {
    pm_error e;
    if (s->compact_after.paths[i] && !in_before(s, s->compact_after.items[i].file_name))
      pm_fs_delete(w->t->fs, s->compact_after.paths[i], &e);
    free(s->compact_after.paths[i]);
  }
  s->compact_after.n = 0;
  files_drop(w, &s->compact_cl, 1);
  s->n_before = 0;
  pm_kv_levels_free(&s->levels);
  s->has_levels = 0;
  pm_dv_maintainer_free(s->dv);
  s->dv = NULL;
  int64_t next = 0;
  PM_TRY(pm_write_slot_restore(w->t, &w->previous, s->part, s->part_len, s->bucket, &next, err));
  if (next > s->next_seq) s->next_seq = next;
  PM_TRY(pm_kv_levels_setup(w, s, err));
  /* the level-0 files flushed since the last prepare stay the writer's */
  return pm_kv_levels_update(&s->levels, NULL, 0, s->out.items, s->out.n, err);
}

/* ------------------------------------------------------------ entry points */

void pm_kv_compact_handed(pm_kv_write *w, const pm_kvslot *s) {
  w->stats.files_removed += (int64_t)s->n_before;
  w->stats.files_added += (int64_t)s->compact_after.n;
  for (size_t i = 0; i < s->compact_after.n; i++) {
    const pm_data_file_meta *m = &s->compact_after.items[i];
    if (in_before(s, m->file_name)) continue; /* an upgrade: nothing written */
    w->stats.rows_written += m->row_count;
    w->stats.bytes_written += m->file_size;
  }
}

void pm_kv_write_compact_stats(const pm_kv_write *w, pm_kv_compact_stats *out) { *out = w->stats; }


typedef struct target {
  pm_bytes part;
  int32_t bucket;
} target;

int pm_kv_write_compact(pm_kv_write *w, const pm_compact_request *req, pm_error *err) {
  int32_t bucket = req->bucket;
  if (w->failed) {
    if (err) *err = w->fail;
    return (int)w->fail.code;
  }
  if (w->postpone) {
    int rc = pm_kv_postpone_compact(w, req, err);
    if (rc) {
      w->failed = 1;
      if (err) w->fail = *err;
      if (!w->fail.code) w->fail.code = (paimon_status)rc;
    }
    return rc;
  }
  if (!w->compaction) return 0;
  PM_TRY(pm_kv_restore_previous(w, err));
  PM_TRY(pm_kv_write_check_signal(w, err));
  if (atomic_load(&w->task_failed))
    for (size_t i = 0; i < w->n_slots; i++) {
      pm_kvslot *s = w->slots[i];
      if (s->task && pm_kv_ctask_done(w, s->task) && s->task->rc) {
        int rc = pm_kv_compact_collect(w, s, 1, err);
        w->failed = 1;
        if (err) w->fail = *err;
        if (!w->fail.code) w->fail.code = (paimon_status)rc;
        return rc;
      }
    }
  size_t cap = w->previous.n + w->n_slots + 1, n = 0;
  target *ts = malloc(cap * sizeof *ts);
  if (!ts) return PM_NOMEM(err);
  int rc = 0;
  for (size_t i = 0; !rc && i < w->previous.n + w->n_slots; i++) {
    target c;
    if (i < w->previous.n) {
      c.part = w->previous.items[i].partition;
      c.bucket = w->previous.items[i].bucket;
    } else {
      c.part.data = w->slots[i - w->previous.n]->part;
      c.part.len = w->slots[i - w->previous.n]->part_len;
      c.bucket = w->slots[i - w->previous.n]->bucket;
    }
    if (bucket >= 0 && c.bucket != bucket) continue;
    int dup = 0;
    for (size_t k = 0; k < n && !dup; k++)
      dup = ts[k].bucket == c.bucket && ts[k].part.len == c.part.len &&
            (!c.part.len || !memcmp(ts[k].part.data, c.part.data, c.part.len));
    if (dup) continue;
    int match = 0;
    rc = pm_compact_request_match(w->t, req, c.part, &match, err);
    if (!rc && match) ts[n++] = c;
  }
  for (size_t i = 0; !rc && i < n; i++) {
    pm_kvslot *s = NULL;
    rc = pm_kv_slot_get(w, ts[i].part.data, ts[i].part.len, ts[i].bucket, &s, err);
    if (!rc) rc = pm_kv_compact_slot(w, s, req->full, err);
    if (!rc && req->progress) req->progress(req->ctx, i + 1, n);
  }
  free(ts);
  if (rc) {
    w->failed = 1;
    if (err) w->fail = *err;
    if (!w->fail.code) w->fail.code = (paimon_status)rc;
  }
  return rc;
}
