/* Deletion-vector conflicts of the committer (commit_internal.h; Java's
 * ConflictDetection for deletion-vector tables without buckets).
 *
 * On an unaware-bucket table with deletion vectors every data file has at most
 * one DV index entry, and a commit that changes a file's deletion vector or
 * deletes the file must have planned against the DV the file has now. The
 * check gives each file entry the name of its DV index file as a second part
 * of its identity:
 *   base  = the live files of the changed partitions, each with the DV index
 *           file the latest index manifest gives it (or none);
 *   delta = our file entries, each with the DV file our index changes give it
 *           (at most one), plus for a file whose DV we change without touching
 *           the file itself: DELETE <file, old DV> / ADD <file, new DV> from our
 *           DELETE / ADD index entries (and DELETE <file, none> when it had
 *           none: a first DV); such a file must be live;
 * and merges base + delta by that identity: a DELETE left over (a concurrent
 * commit gave the file another DV, or deleted it) or an ADD of an identity
 * held is a conflict, nothing published. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "meta/file_entry.h"
#include "table/commit_internal.h"

typedef struct tagged {
  const pm_manifest_entry *e; /* identity (its kind is not used) */
  int8_t kind;
  const char *dv; /* DV index file name, NULL = none */
} tagged;

typedef struct tag_vec {
  tagged *items;
  size_t n, cap;
} tag_vec;

static int tag_push(tag_vec *v, const pm_manifest_entry *e, int8_t kind, const char *dv, pm_error *err) {
  if (v->n == v->cap) {
    size_t nc = v->cap ? v->cap * 2 : 16;
    tagged *ni = realloc(v->items, nc * sizeof *ni);
    if (!ni) return PM_NOMEM(err);
    v->items = ni;
    v->cap = nc;
  }
  v->items[v->n++] = (tagged){e, kind, dv};
  return 0;
}

static int str_eq(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

static uint64_t tag_hash(const tagged *t) {
  uint64_t h = pm_file_entry_hash(t->e);
  for (const char *p = t->dv ? t->dv : ""; *p; p++) h = (h ^ (uint8_t)*p) * 1099511628211ULL;
  return h ^ (t->dv ? 0x9e3779b97f4a7c15ULL : 0);
}

/* name -> string map (open addressing, no removal): data file -> DV file name */
typedef struct name_map {
  const char **keys;
  const void **vals;
  size_t cap;
} name_map;

static uint64_t str_hash(const char *s) {
  uint64_t h = 1469598103934665603ULL;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ULL;
  return h;
}

static int map_init(name_map *m, size_t n, pm_error *err) {
  m->cap = 16;
  while (m->cap < 2 * n + 2) m->cap *= 2;
  m->keys = calloc(m->cap, sizeof *m->keys);
  m->vals = calloc(m->cap, sizeof *m->vals);
  return m->keys && m->vals ? 0 : PM_NOMEM(err);
}

static void map_free(name_map *m) {
  free(m->keys);
  free(m->vals);
}

/* The slot of key (found or empty). */
static size_t map_slot(const name_map *m, const char *key) {
  size_t i = (size_t)str_hash(key) & (m->cap - 1);
  while (m->keys[i] && strcmp(m->keys[i], key)) i = (i + 1) & (m->cap - 1);
  return i;
}

static const void *map_get(const name_map *m, const char *key) {
  size_t i = map_slot(m, key);
  return m->keys[i] ? m->vals[i] : NULL;
}

static int is_dv_entry(const pm_index_manifest_entry *x) {
  return !x->index_file.dv_ranges_is_null && x->index_file.n_dv_ranges > 0;
}

static int conflict(const pm_commit *c, const pm_snapshot *latest, pm_error *err, const char *what, const char *file,
                    const char *detail) {
  return pm_errorf(err, PAIMON_ERR_CONFLICT,
                   "commit conflict on table %s: %s %s%s (a concurrent commit of snapshot %" PRId64 " by %s changed "
                   "its deletion vector or deleted it); give up committing",
                   c->t->name, what, file, detail ? detail : "", latest->id,
                   latest->commit_user ? latest->commit_user : "?");
}

/* Base entries tagged with the DV file the latest index manifest gives them. */
static int tag_base(const pm_commit *c, const pm_snapshot *latest, const pm_manifest_entries *base, tag_vec *out,
                    pm_index_entries *idx, pm_error *err) {
  if (!base->n) return 0;
  int rc = 0;
  if (latest->index_manifest) {
    size_t n = strlen(latest->index_manifest) + 16;
    char *sub = malloc(n);
    if (!sub) return PM_NOMEM(err);
    snprintf(sub, n, "manifest/%s", latest->index_manifest);
    char *p = pm_table_root_path(c->t, sub);
    free(sub);
    rc = p ? pm_index_manifest_read(c->t->fs, p, idx, err) : PM_NOMEM(err);
    free(p);
    PM_TRY(rc);
  }
  size_t total = 0;
  for (size_t i = 0; i < idx->n; i++)
    if (idx->items[i].kind != PM_FILE_DELETE && is_dv_entry(&idx->items[i])) total += idx->items[i].index_file.n_dv_ranges;
  name_map m;
  rc = map_init(&m, total, err);
  for (size_t i = 0; !rc && i < idx->n; i++) {
    const pm_index_manifest_entry *x = &idx->items[i];
    if (x->kind == PM_FILE_DELETE || !is_dv_entry(x)) continue;
    for (int32_t k = 0; !rc && k < x->index_file.n_dv_ranges; k++) {
      const char *f = x->index_file.dv_ranges[k].data_file_name;
      size_t s = map_slot(&m, f);
      if (m.keys[s])
        rc = conflict(c, latest, err, "data file", f, " has more than one deletion vector entry in the index manifest");
      m.keys[s] = f;
      m.vals[s] = x->index_file.file_name;
    }
  }
  for (size_t i = 0; !rc && i < base->n; i++)
    rc = tag_push(out, &base->items[i], base->items[i].kind, map_get(&m, base->items[i].file.file_name), err);
  map_free(&m);
  return rc;
}

/* Delta entries tagged with our DV changes (see the top). */
typedef struct dv_refs {
  const pm_index_manifest_entry **items;
  size_t n, cap;
  int seen;
} dv_refs;

static int tag_delta(const pm_commit *c, const pm_snapshot *latest, const tag_vec *base, const pm_commit_changes *ch,
                     tag_vec *out, pm_error *err) {
  if (!ch->table.n && !ch->index.n) return 0;
  size_t total = 0;
  for (size_t i = 0; i < ch->index.n; i++)
    if (is_dv_entry(&ch->index.items[i])) total += ch->index.items[i].index_file.n_dv_ranges;
  name_map m;
  int rc = map_init(&m, total, err);
  /* data file -> our index entries naming it; the distinct names in insertion order */
  const char **names = calloc(total + 1, sizeof *names);
  size_t n_names = 0;
  if (!rc && !names) rc = PM_NOMEM(err);
  for (size_t i = 0; !rc && i < ch->index.n; i++) {
    const pm_index_manifest_entry *x = &ch->index.items[i];
    if (!is_dv_entry(x)) continue;
    for (int32_t k = 0; !rc && k < x->index_file.n_dv_ranges; k++) {
      const char *f = x->index_file.dv_ranges[k].data_file_name;
      size_t s = map_slot(&m, f);
      dv_refs *r = (dv_refs *)m.vals[s];
      if (!m.keys[s]) {
        r = calloc(1, sizeof *r);
        if (!r) {
          rc = PM_NOMEM(err);
          break;
        }
        m.keys[s] = f;
        m.vals[s] = r;
        names[n_names++] = f;
      }
      if (r->n == r->cap) {
        size_t nc = r->cap ? r->cap * 2 : 2;
        const pm_index_manifest_entry **ni = realloc(r->items, nc * sizeof *ni);
        if (!ni) {
          rc = PM_NOMEM(err);
          break;
        }
        r->items = ni;
        r->cap = nc;
      }
      r->items[r->n++] = x;
    }
  }
  /* 1. our file entries, with the one DV our index changes give them */
  for (size_t i = 0; !rc && i < ch->table.n; i++) {
    const pm_manifest_entry *e = &ch->table.items[i];
    dv_refs *r = (dv_refs *)map_get(&m, e->file.file_name);
    const char *dv = NULL;
    if (r) {
      if (r->n != 1) {
        rc = conflict(c, latest, err, "data file", e->file.file_name, " has more than one deletion vector change");
        break;
      }
      dv = r->items[0]->index_file.file_name;
      r->seen = 1;
    }
    rc = tag_push(out, e, e->kind, dv, err);
  }
  /* 2. files whose DV we change without changing the file: they must be live */
  name_map live = {0};
  int live_ready = 0;
  for (size_t i = 0; !rc && i < n_names; i++) {
    dv_refs *r = (dv_refs *)map_get(&m, names[i]);
    if (r->seen) continue;
    if (!live_ready) {
      rc = map_init(&live, base->n, err);
      for (size_t k = 0; !rc && k < base->n; k++)
        if (base->items[k].kind == PM_FILE_ADD) {
          size_t s = map_slot(&live, base->items[k].e->file.file_name);
          live.keys[s] = base->items[k].e->file.file_name;
          live.vals[s] = &base->items[k];
        }
      live_ready = 1;
      if (rc) break;
    }
    const tagged *b = map_get(&live, names[i]);
    if (!b) {
      rc = conflict(c, latest, err, "trying to create a deletion vector on data file", names[i],
                    " which is not previously added");
      break;
    }
    for (size_t k = 0; !rc && k < r->n; k++)
      rc = tag_push(out, b->e, r->items[k]->kind == PM_FILE_ADD ? PM_FILE_ADD : PM_FILE_DELETE,
                    r->items[k]->index_file.file_name, err);
    if (!rc && r->n == 1 && r->items[0]->kind == PM_FILE_ADD) rc = tag_push(out, b->e, PM_FILE_DELETE, NULL, err);
  }
  if (live_ready) map_free(&live);
  for (size_t i = 0; i < n_names; i++) {
    dv_refs *r = (dv_refs *)map_get(&m, names[i]);
    if (r) free(r->items);
    free(r);
  }
  free(names);
  map_free(&m);
  return rc;
}

/* FileEntry.mergeEntries over (identity, DV) + "no DELETE left". */
static int merge_tagged(const pm_commit *c, const pm_snapshot *latest, const tag_vec *all, pm_error *err) {
  size_t cap = 16;
  while (cap < 2 * all->n + 2) cap *= 2;
  const tagged **slots = calloc(cap, sizeof *slots);
  int8_t *state = calloc(cap, 1); /* 0 empty, 1 ADD, 2 DELETE, 3 removed */
  int rc = slots && state ? 0 : PM_NOMEM(err);
  for (size_t i = 0; !rc && i < all->n; i++) {
    const tagged *t = &all->items[i];
    size_t s = (size_t)tag_hash(t) & (cap - 1);
    while (slots[s] && !(pm_file_entry_same(slots[s]->e, t->e) && str_eq(slots[s]->dv, t->dv))) s = (s + 1) & (cap - 1);
    int held = slots[s] && (state[s] == 1 || state[s] == 2);
    if (t->kind == PM_FILE_ADD) {
      if (held)
        rc = conflict(c, latest, err, "data file", t->e->file.file_name,
                      t->dv ? " is added twice with the same deletion vector" : " is added twice");
      slots[s] = t;
      state[s] = 1;
    } else if (held) {
      state[s] = 3;
    } else {
      slots[s] = t;
      state[s] = 2;
    }
  }
  /* the first DELETE left, in sequence order */
  for (size_t i = 0; !rc && i < all->n; i++) {
    const tagged *t = &all->items[i];
    if (t->kind != PM_FILE_DELETE) continue;
    size_t s = (size_t)tag_hash(t) & (cap - 1);
    while (slots[s] && !(pm_file_entry_same(slots[s]->e, t->e) && str_eq(slots[s]->dv, t->dv))) s = (s + 1) & (cap - 1);
    if (slots[s] == t && state[s] == 2) {
      char detail[600];
      snprintf(detail, sizeof detail, " with %s%s which is not live any more", t->dv ? "deletion vector " : "",
               t->dv ? t->dv : "no deletion vector");
      rc = conflict(c, latest, err, "trying to delete or replace the deletion vector of data file", t->e->file.file_name,
                    detail);
    }
  }
  free(slots);
  free(state);
  return rc;
}

int pm_commit_check_dv_conflicts(pm_commit *c, const pm_snapshot *latest, const pm_manifest_entries *base,
                                 const pm_commit_changes *ch, pm_error *err) {
  if (!c->t->co.dv_enabled || c->t->bucket_mode != PM_BUCKET_UNAWARE) return 0;
  tag_vec all = {0};
  pm_index_entries idx;
  pm_index_entries_init(&idx);
  int rc = tag_base(c, latest, base, &all, &idx, err);
  size_t n_base = all.n;
  tag_vec b = {all.items, n_base, n_base};
  if (!rc) {
    tag_vec delta = {0};
    rc = tag_delta(c, latest, &b, ch, &delta, err);
    for (size_t i = 0; !rc && i < delta.n; i++) rc = tag_push(&all, delta.items[i].e, delta.items[i].kind, delta.items[i].dv, err);
    free(delta.items);
  }
  if (!rc) rc = merge_tagged(c, latest, &all, err);
  free(all.items);
  pm_index_entries_clear(&idx);
  return rc;
}
