/* The LSM levels of one bucket (kv_levels.h). */
#include "table/kv_levels.h"

#include <stdlib.h>
#include <string.h>

int pm_kv_key_cmp(int n_keys, const pm_value *a, const pm_value *b) {
  for (int k = 0; k < n_keys; k++) {
    int r = pm_value_compare(&a[k], &b[k]);
    if (r) return r;
  }
  return 0;
}

int pm_kv_key_decode(int n_keys, const pm_data_type *const *key_types, pm_bytes key, pm_value *out,
                     pm_error *err) {
  pm_binary_row row;
  PM_TRY(pm_binary_row_open_serialized(key.data, key.len, "file key", &row, err));
  if (row.arity < n_keys)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "file key row has arity %d, the table's key has %d fields",
                     (int)row.arity, n_keys);
  for (int k = 0; k < n_keys; k++) PM_TRY(pm_binary_row_get(&row, k, key_types[k], &out[k], err));
  return 0;
}

int pm_kv_levels_init(pm_kv_levels *l, int n_keys, const pm_data_type *const *key_types, int n_levels,
                      pm_error *err) {
  memset(l, 0, sizeof *l);
  pm_arena_init(&l->arena);
  l->n_keys = n_keys;
  l->key_types = key_types;
  if (n_levels < 1) n_levels = 1;
  l->levels = calloc((size_t)n_levels, sizeof *l->levels);
  if (!l->levels) return PM_NOMEM(err);
  l->n_levels = n_levels;
  return 0;
}

void pm_kv_levels_free(pm_kv_levels *l) {
  if (!l) return;
  for (int i = 0; i < l->n_levels && l->levels; i++) free(l->levels[i].files);
  free(l->levels);
  pm_arena_free(&l->arena);
  memset(l, 0, sizeof *l);
}

/* Level 0 order: newest first (SEMANTICS 3.1). */
static int l0_cmp(const pm_kv_lfile *a, const pm_kv_lfile *b) {
  const pm_data_file_meta *x = &a->meta, *y = &b->meta;
  if (x->max_sequence_number != y->max_sequence_number)
    return x->max_sequence_number > y->max_sequence_number ? -1 : 1;
  if (x->min_sequence_number != y->min_sequence_number)
    return x->min_sequence_number < y->min_sequence_number ? -1 : 1;
  if (x->creation_time_millis != y->creation_time_millis)
    return x->creation_time_millis < y->creation_time_millis ? -1 : 1;
  return strcmp(x->file_name, y->file_name);
}

static int file_cmp(const pm_kv_levels *l, int level, const pm_kv_lfile *a, const pm_kv_lfile *b) {
  if (level == 0) return l0_cmp(a, b);
  int r = pm_kv_key_cmp(l->n_keys, a->min, b->min);
  return r ? r : strcmp(a->meta.file_name, b->meta.file_name);
}

static int grow_levels(pm_kv_levels *l, int n, pm_error *err) {
  if (n <= l->n_levels) return 0;
  pm_kv_level *nl = realloc(l->levels, (size_t)n * sizeof *nl);
  if (!nl) return PM_NOMEM(err);
  memset(nl + l->n_levels, 0, (size_t)(n - l->n_levels) * sizeof *nl);
  l->levels = nl;
  l->n_levels = n;
  return 0;
}

static int copy_file(pm_kv_levels *l, pm_arena *a, const pm_data_file_meta *m, pm_kv_lfile **out, pm_error *err) {
  pm_kv_lfile *f = pm_arena_alloc(a, sizeof *f);
  if (!f) return PM_NOMEM(err);
  memset(f, 0, sizeof *f);
  PM_TRY(pm_data_file_meta_copy(m, &f->meta, a, err));
  size_t nk = (size_t)(l->n_keys > 0 ? l->n_keys : 1);
  f->min = pm_arena_alloc(a, nk * sizeof *f->min);
  f->max = pm_arena_alloc(a, nk * sizeof *f->max);
  if (!f->min || !f->max) return PM_NOMEM(err);
  if (l->n_keys > 0) {
    if (pm_kv_key_decode(l->n_keys, l->key_types, f->meta.min_key, f->min, err))
      return pm_error_prefix(err, "file %s: min key", m->file_name);
    if (pm_kv_key_decode(l->n_keys, l->key_types, f->meta.max_key, f->max, err))
      return pm_error_prefix(err, "file %s: max key", m->file_name);
  }
  *out = f;
  return 0;
}

/* Inserts f into its level at its ordered place. */
static int insert_file(pm_kv_levels *l, pm_kv_lfile *f, pm_error *err) {
  int level = f->meta.level;
  PM_TRY(grow_levels(l, level + 1, err));
  pm_kv_level *lv = &l->levels[level];
  if (lv->n == lv->cap) {
    size_t cap = lv->cap ? 2 * lv->cap : 8;
    pm_kv_lfile **nf = realloc(lv->files, cap * sizeof *nf);
    if (!nf) return PM_NOMEM(err);
    lv->files = nf;
    lv->cap = cap;
  }
  size_t lo = 0, hi = lv->n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (file_cmp(l, level, lv->files[mid], f) < 0) lo = mid + 1;
    else hi = mid;
  }
  memmove(lv->files + lo + 1, lv->files + lo, (lv->n - lo) * sizeof *lv->files);
  lv->files[lo] = f;
  lv->n++;
  lv->size += f->meta.file_size;
  return 0;
}

int pm_kv_levels_restore(pm_kv_levels *l, const pm_data_file_meta *const *files, size_t n, pm_error *err) {
  for (size_t i = 0; i < n; i++) {
    if (files[i]->level < 0)
      return pm_errorf(err, PAIMON_ERR_CORRUPT, "file %s: negative level %d", files[i]->file_name,
                       (int)files[i]->level);
    pm_kv_lfile *f;
    PM_TRY(copy_file(l, &l->arena, files[i], &f, err));
    PM_TRY(insert_file(l, f, err));
  }
  return 0;
}

static long find_file(const pm_kv_levels *l, const pm_data_file_meta *m) {
  if (m->level < 0 || m->level >= l->n_levels) return -1;
  const pm_kv_level *lv = &l->levels[m->level];
  for (size_t i = 0; i < lv->n; i++)
    if (!strcmp(lv->files[i]->meta.file_name, m->file_name)) return (long)i;
  return -1;
}

/* Copies every live file into a fresh arena (after many removals). */
static int rebuild_arena(pm_kv_levels *l, pm_error *err) {
  pm_arena na;
  pm_arena_init(&na);
  size_t total = pm_kv_levels_file_count(l);
  pm_kv_lfile **copies = calloc(total + 1, sizeof *copies);
  int rc = copies ? 0 : PM_NOMEM(err);
  size_t k = 0;
  for (int lv = 0; !rc && lv < l->n_levels; lv++)
    for (size_t i = 0; !rc && i < l->levels[lv].n; i++) rc = copy_file(l, &na, &l->levels[lv].files[i]->meta,
                                                                         &copies[k++], err);
  if (rc) {
    free(copies);
    pm_arena_free(&na);
    return rc;
  }
  k = 0;
  for (int lv = 0; lv < l->n_levels; lv++)
    for (size_t i = 0; i < l->levels[lv].n; i++) l->levels[lv].files[i] = copies[k++];
  free(copies);
  pm_arena_free(&l->arena);
  l->arena = na;
  l->n_dead = 0;
  return 0;
}

int pm_kv_levels_update(pm_kv_levels *l, const pm_data_file_meta *before, size_t nb, const pm_data_file_meta *after,
                        size_t na, pm_error *err) {
  for (size_t i = 0; i < nb; i++)
    if (find_file(l, &before[i]) < 0)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "levels: file %s is not at level %d of the bucket",
                       before[i].file_name, (int)before[i].level);
  /* copy the new files first: a failure leaves the levels as they were */
  pm_kv_lfile **nf = calloc(na + 1, sizeof *nf);
  if (!nf) return PM_NOMEM(err);
  int rc = 0;
  for (size_t i = 0; !rc && i < na; i++) rc = copy_file(l, &l->arena, &after[i], &nf[i], err);
  int top = 0;
  for (size_t i = 0; i < na; i++) top = after[i].level + 1 > top ? after[i].level + 1 : top;
  if (!rc) rc = grow_levels(l, top, err);
  for (size_t i = 0; !rc && i < na; i++) {
    pm_kv_level *lv = &l->levels[after[i].level];
    if (lv->n + na > lv->cap) {
      size_t cap = lv->n + na + 8;
      pm_kv_lfile **g = realloc(lv->files, cap * sizeof *g);
      if (!g) rc = PM_NOMEM(err);
      else {
        lv->files = g;
        lv->cap = cap;
      }
    }
  }
  if (rc) {
    free(nf);
    return rc;
  }
  for (size_t i = 0; i < nb; i++) {
    long at = find_file(l, &before[i]);
    if (at < 0) continue; /* listed twice */
    pm_kv_level *lv = &l->levels[before[i].level];
    lv->size -= lv->files[at]->meta.file_size;
    memmove(lv->files + at, lv->files + at + 1, (lv->n - (size_t)at - 1) * sizeof *lv->files);
    lv->n--;
    l->n_dead++;
  }
  for (size_t i = 0; i < na; i++) insert_file(l, nf[i], err); /* room reserved above: cannot fail */
  free(nf);
  size_t live = pm_kv_levels_file_count(l);
  /* only updates that remove files rebuild: a background compaction reads the
   * bucket's files while the writer adds level-0 files (kv_write_internal.h) */
  if (nb && l->n_dead > 2 * live + 64) return rebuild_arena(l, err);
  return 0;
}

int pm_kv_levels_max_level(const pm_kv_levels *l) { return l->n_levels - 1; }

size_t pm_kv_levels_sorted_runs(const pm_kv_levels *l) {
  size_t n = l->n_levels > 0 ? l->levels[0].n : 0;
  for (int i = 1; i < l->n_levels; i++) n += l->levels[i].n > 0;
  return n;
}

int pm_kv_levels_highest_nonempty(const pm_kv_levels *l) {
  for (int i = l->n_levels - 1; i >= 0; i--)
    if (l->levels[i].n) return i;
  return -1;
}

size_t pm_kv_levels_file_count(const pm_kv_levels *l) {
  size_t n = 0;
  for (int i = 0; i < l->n_levels; i++) n += l->levels[i].n;
  return n;
}

int64_t pm_kv_levels_total_size(const pm_kv_levels *l) {
  int64_t s = 0;
  for (int i = 0; i < l->n_levels; i++) s += l->levels[i].size;
  return s;
}

int pm_kv_levels_runs(const pm_kv_levels *l, pm_kv_run **runs, size_t *n, pm_error *err) {
  *runs = NULL;
  *n = pm_kv_levels_sorted_runs(l);
  if (!*n) return 0;
  pm_kv_run *r = calloc(*n, sizeof *r);
  if (!r) return PM_NOMEM(err);
  size_t k = 0;
  const pm_kv_level *l0 = &l->levels[0];
  for (size_t i = 0; i < l0->n; i++) r[k++] = (pm_kv_run){0, &l0->files[i], 1, l0->files[i]->meta.file_size};
  for (int lv = 1; lv < l->n_levels; lv++)
    if (l->levels[lv].n) r[k++] = (pm_kv_run){lv, l->levels[lv].files, l->levels[lv].n, l->levels[lv].size};
  *runs = r;
  return 0;
}
