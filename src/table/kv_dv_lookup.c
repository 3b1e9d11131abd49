/* Lookup compaction's deletion vectors (kv_write_internal.h pm_kv_dv_lookup;
 * SEMANTICS 3.6, 8.1; Java's LookupChangelogMergeFunctionWrapper with
 * LookupLevels and a position processor).
 *
 * For one merge group (the files one rewrite or upgrade merges) compacted to
 * level L > 0 that holds level-0 files:
 *   1. the distinct keys of the group's level-0 files (live rows) form the
 *      key set (BinaryRow bytes of the trimmed primary key, hashed);
 *   2. keys with a live row in a level > 0 file of the group are resolved:
 *      the merge finds their old version in the group itself;
 *   3. levels L+1 .. max are searched in ascending order for the remaining
 *      keys; a level's files are read (key columns only) when their key range
 *      overlaps the group's level-0 key range; the first live row of a key
 *      found is the hit (the key is resolved);
 *   4. the hits are marked in the bucket's deletion vectors in key order, as
 *      the merge would visit them (the order of first deletions decides the
 *      order of vectors in the written index file).
 * Live = not in the file's current (maybe uncommitted) vector.
 *
 * Memory: the key set holds the group's level-0 keys (bounded by what
 * flushes wrote since the last compaction); files are streamed batch by
 * batch. Cost: every overlapping file of the levels above is read per
 * compaction (Java caches local lookup files instead; not done here).
 */
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow.h"
#include "io/fs.h"
#include "table/kv_write_internal.h"
#include "table/write_internal.h"
#include "table/write_slots.h"
#include "util/sort.h"

typedef struct lkey {
  const uint8_t *b; /* BinaryRow bytes (arena) */
  size_t len;
  int resolved;
} lkey;

typedef struct hit {
  size_t key;
  const char *file; /* the level file's name (levels' arena) */
  int64_t pos;
} hit;

typedef struct lookup {
  pm_kv_write *w;
  pm_kvslot *s;
  pm_arena arena;
  pm_slot_map map; /* key bytes -> keys[i] */
  lkey *keys;
  size_t n_keys, cap_keys, unresolved;
  hit *hits;
  size_t n_hits, cap_hits;
  pm_binary_row_writer rw;
  const char *cur_file;
} lookup;

typedef int (*key_fn)(lookup *l, const uint8_t *b, size_t len, int64_t pos, pm_error *err);

/* Calls fn for every live row of data file m: its key bytes and row position. */
static int scan_keys(lookup *l, const pm_data_file_meta *m, key_fn fn, pm_error *err) {
  pm_kv_write *w = l->w;
  size_t nk = w->nk;
  const pm_deletion_vector *dv = l->s->dv ? pm_dv_maintainer_get(l->s->dv, m->file_name) : NULL;
  char *path = NULL;
  PM_TRY(pm_table_data_file_path(w->t, l->s->bucket_dir, m->file_name, m->external_path, &path, err));
  const pm_format *fmt = pm_format_for_file(m->file_name);
  int rc = fmt ? 0
               : pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: data file format not supported for lookup compaction",
                           path);
  int32_t *ids = calloc(nk + 1, sizeof *ids);
  int *col = calloc(nk + 1, sizeof *col);
  if (!rc && (!ids || !col)) rc = PM_NOMEM(err);
  for (size_t k = 0; !rc && k < nk; k++) ids[k] = w->key_fields[k].id;
  pm_format_read_options o;
  pm_format_read_options_init(&o);
  o.field_ids = ids;
  o.n_field_ids = nk;
  if (fmt && fmt->needs_data_schema) o.data_schema = &w->file_schema;
  pm_file *file = NULL;
  pm_format_reader *r = NULL;
  if (!rc) rc = pm_fs_open(w->t->fs, path, &file, err);
  if (!rc) rc = pm_format_reader_open(fmt, file, &o, &r, err); /* takes the file */
  struct ArrowSchema sc;
  memset(&sc, 0, sizeof sc);
  if (!rc) rc = pm_format_reader_schema(r, &sc, err);
  for (size_t k = 0; !rc && k < nk; k++) {
    col[k] = -1;
    for (int64_t c = 0; c < sc.n_children && col[k] < 0; c++)
      if (sc.children[c]->name && !strcmp(sc.children[c]->name, w->key_fields[k].name)) col[k] = (int)c;
    if (col[k] < 0)
      rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: no key column %s", path, w->key_fields[k].name);
  }
  if (sc.release) sc.release(&sc);
  int64_t pos = 0;
  while (!rc) {
    struct ArrowArray b;
    rc = pm_format_reader_next(r, &b, err);
    if (rc || !b.release) break;
    for (int64_t i = 0; !rc && i < b.length; i++, pos++) {
      if (dv && pm_dv_is_deleted(dv, pos)) continue;
      rc = pm_row_writer_reset(&l->rw, err);
      for (size_t k = 0; !rc && k < nk; k++) {
        pm_value v;
        const pm_data_type *ty = w->tm.key_types[k];
        rc = pm_write_value_at(ty, b.children[col[k]], i, &v, err);
        if (!rc) rc = pm_row_writer_write(&l->rw, (int32_t)k, ty, &v, err);
      }
      if (!rc) rc = fn(l, l->rw.buf.data, l->rw.buf.len, pos, err);
    }
    b.release(&b);
  }
  pm_format_reader_close(r);
  if (rc) pm_error_prefix(err, "lookup compaction: keys of %s", path);
  free(ids);
  free(col);
  free(path);
  return rc;
}

static int add_key(lookup *l, const uint8_t *b, size_t len, int64_t pos, pm_error *err) {
  (void)pos;
  if (pm_slot_map_find(&l->map, b, len, 0) >= 0) return 0;
  if (l->n_keys == l->cap_keys) {
    size_t cap = l->cap_keys ? 2 * l->cap_keys : 1024;
    lkey *nk = realloc(l->keys, cap * sizeof *nk);
    if (!nk) return PM_NOMEM(err);
    l->keys = nk;
    l->cap_keys = cap;
  }
  const uint8_t *copy = pm_arena_memdup(&l->arena, b, len ? len : 1);
  if (!copy) return PM_NOMEM(err);
  PM_TRY(pm_slot_map_add(&l->map, copy, len, 0, l->n_keys, err));
  l->keys[l->n_keys++] = (lkey){copy, len, 0};
  l->unresolved++;
  return 0;
}

static int resolve_key(lookup *l, const uint8_t *b, size_t len, int64_t pos, pm_error *err) {
  (void)pos;
  (void)err;
  int64_t i = pm_slot_map_find(&l->map, b, len, 0);
  if (i >= 0 && !l->keys[i].resolved) {
    l->keys[i].resolved = 1;
    l->unresolved--;
  }
  return 0;
}

static int hit_key(lookup *l, const uint8_t *b, size_t len, int64_t pos, pm_error *err) {
  int64_t i = pm_slot_map_find(&l->map, b, len, 0);
  if (i < 0 || l->keys[i].resolved) return 0;
  if (l->n_hits == l->cap_hits) {
    size_t cap = l->cap_hits ? 2 * l->cap_hits : 256;
    hit *nh = realloc(l->hits, cap * sizeof *nh);
    if (!nh) return PM_NOMEM(err);
    l->hits = nh;
    l->cap_hits = cap;
  }
  l->hits[l->n_hits++] = (hit){(size_t)i, l->cur_file, pos};
  l->keys[i].resolved = 1;
  l->unresolved--;
  return 0;
}

typedef struct hit_order {
  int nk;
  const pm_value *vals; /* nk per hit */
} hit_order;

static int by_key(const void *ctx, size_t a, size_t b) {
  const hit_order *o = ctx;
  return pm_kv_key_cmp(o->nk, o->vals + a * (size_t)o->nk, o->vals + b * (size_t)o->nk);
}

/* The hits' deletions in key order. */
static int apply_hits(lookup *l, pm_error *err) {
  size_t n = l->n_hits, nk = l->w->nk;
  if (!n) return 0;
  pm_value *vals = calloc(n * (nk ? nk : 1), sizeof *vals);
  size_t *idx = malloc(n * sizeof *idx);
  int rc = vals && idx ? 0 : PM_NOMEM(err);
  for (size_t h = 0; !rc && h < n; h++) {
    const lkey *k = &l->keys[l->hits[h].key];
    pm_binary_row row;
    rc = pm_binary_row_open(k->b, k->len, (int32_t)nk, "lookup key", &row, err);
    for (size_t f = 0; !rc && f < nk; f++)
      rc = pm_binary_row_get(&row, (int32_t)f, l->w->tm.key_types[f], &vals[h * nk + f], err);
    idx[h] = h;
  }
  hit_order o = {(int)nk, vals};
  if (!rc && pm_sort_indices(idx, n, by_key, &o)) rc = PM_NOMEM(err);
  for (size_t i = 0; !rc && i < n; i++)
    rc = pm_dv_maintainer_delete(l->s->dv, l->hits[idx[i]].file, l->hits[idx[i]].pos, err);
  free(vals);
  free(idx);
  return rc;
}

int pm_kv_dv_lookup(pm_kv_write *w, pm_kvslot *s, pm_kv_lfile *const *files, size_t n, int out_level,
                    pm_error *err) {
  if (!s->dv || out_level <= 0 || !s->has_levels) return 0;
  lookup l;
  memset(&l, 0, sizeof l);
  l.w = w;
  l.s = s;
  pm_arena_init(&l.arena);
  int rc = pm_row_writer_init(&l.rw, (int32_t)w->nk, err);
  int nk = (int)w->nk;
  const pm_value *gmin = NULL, *gmax = NULL; /* key range of the group's level-0 files */
  for (size_t i = 0; !rc && i < n; i++) {
    if (files[i]->meta.level != 0) continue;
    if (!gmin || pm_kv_key_cmp(nk, files[i]->min, gmin) < 0) gmin = files[i]->min;
    if (!gmax || pm_kv_key_cmp(nk, files[i]->max, gmax) > 0) gmax = files[i]->max;
    rc = scan_keys(&l, &files[i]->meta, add_key, err);
  }
  for (size_t i = 0; !rc && l.unresolved && i < n; i++)
    if (files[i]->meta.level != 0) rc = scan_keys(&l, &files[i]->meta, resolve_key, err);
  for (int lv = out_level + 1; !rc && l.unresolved && lv < s->levels.n_levels; lv++) {
    const pm_kv_level *level = &s->levels.levels[lv];
    for (size_t i = 0; !rc && l.unresolved && i < level->n; i++) {
      const pm_kv_lfile *f = level->files[i];
      if (pm_kv_key_cmp(nk, f->max, gmin) < 0 || pm_kv_key_cmp(nk, f->min, gmax) > 0) continue;
      l.cur_file = f->meta.file_name;
      rc = scan_keys(&l, &f->meta, hit_key, err);
    }
  }
  if (!rc) rc = apply_hits(&l, err);
  free(l.keys);
  free(l.hits);
  pm_slot_map_free(&l.map);
  pm_row_writer_free(&l.rw);
  pm_arena_free(&l.arena);
  return rc;
}
