/* Conflict detection of the committer (SEMANTICS.md 7.6, Java's ConflictDetection). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "meta/file_entry.h"
#include "table/commit_internal.h"
#include "table/kv_levels.h"
#include "table/scan.h"
#include "util/sort.h"

typedef struct part_set {
  pm_bytes *parts;
  int32_t *total_buckets; /* -1 = none seen yet */
  size_t n, cap;
} part_set;

static int bytes_eq(const pm_bytes *a, const pm_bytes *b) {
  return a->len == b->len && (!a->len || !memcmp(a->data, b->data, a->len));
}

static long part_find(const part_set *s, const pm_bytes *p) {
  for (size_t i = 0; i < s->n; i++)
    if (bytes_eq(&s->parts[i], p)) return (long)i;
  return -1;
}

static int part_add(part_set *s, const pm_bytes *p, pm_error *err) {
  if (part_find(s, p) >= 0) return 0;
  if (s->n == s->cap) {
    size_t nc = s->cap ? s->cap * 2 : 8;
    pm_bytes *np = realloc(s->parts, nc * sizeof *np);
    if (np) s->parts = np;
    int32_t *nt = realloc(s->total_buckets, nc * sizeof *nt);
    if (nt) s->total_buckets = nt;
    if (!np || !nt) return PM_NOMEM(err);
    s->cap = nc;
  }
  s->parts[s->n] = *p;
  s->total_buckets[s->n++] = -1;
  return 0;
}

static void part_free(part_set *s) {
  free(s->parts);
  free(s->total_buckets);
}

/* Within a partition every entry with totalBuckets > 0 must agree (unless overwriting). */
static int check_total_buckets(const pm_commit *c, part_set *ps, const pm_manifest_entry *e, pm_error *err) {
  if (e->total_buckets <= 0) return 0;
  long k = part_find(ps, &e->partition);
  if (k < 0) return 0;
  if (ps->total_buckets[k] < 0) {
    ps->total_buckets[k] = e->total_buckets;
    return 0;
  }
  if (ps->total_buckets[k] == e->total_buckets) return 0;
  char *pt = pm_commit_partition_text(c, e->partition);
  int rc = pm_errorf(err, PAIMON_ERR_CONFLICT,
                     "commit conflict on table %s: total buckets of partition %s changed from %d to %d without "
                     "overwrite; give up committing",
                     c->t->name, pt ? pt : "?", (int)ps->total_buckets[k], (int)e->total_buckets);
  free(pt);
  return rc;
}

/* The LSM-level check for primary-key tables (7.6 step 5, Java's
 * ConflictDetection.noConflictsOrFail LSM part): the files of one (partition,
 * bucket, level >= 1) after the commit must not overlap in key range. */
typedef struct ranged {
  const pm_manifest_entry *e;
  pm_value *min, *max;
} ranged;

typedef struct range_ctx {
  const ranged *r;
  int nk;
} range_ctx;

static int group_cmp(const pm_manifest_entry *a, const pm_manifest_entry *b) {
  if (a->partition.len != b->partition.len) return a->partition.len < b->partition.len ? -1 : 1;
  int r = a->partition.len ? memcmp(a->partition.data, b->partition.data, a->partition.len) : 0;
  if (r) return r;
  if (a->bucket != b->bucket) return a->bucket < b->bucket ? -1 : 1;
  return a->file.level < b->file.level ? -1 : a->file.level > b->file.level;
}

static int range_order(const void *ctx, size_t a, size_t b) {
  const range_ctx *c = ctx;
  int r = group_cmp(c->r[a].e, c->r[b].e);
  return r ? r : pm_kv_key_cmp(c->nk, c->r[a].min, c->r[b].min);
}

static int check_key_ranges(const pm_commit *c, const pm_entry_merge *merged, pm_error *err) {
  pm_table *t = c->t;
  const char *override = pm_core_option_text(&t->co, PM_CO_PK_CLUSTERING_OVERRIDE);
  if (override && !strcasecmp(override, "true")) return 0;
  int nk = (int)t->n_trimmed_primary_keys;
  const pm_data_type **types = calloc((size_t)nk + 1, sizeof *types);
  size_t n = 0;
  for (size_t i = 0; i < merged->cap; i++)
    n += merged->slots[i].e && merged->slots[i].state == PM_FILE_ADD && merged->slots[i].e->file.level >= 1;
  ranged *r = calloc(n + 1, sizeof *r);
  pm_value *vals = calloc(2 * n * (size_t)(nk ? nk : 1) + 1, sizeof *vals);
  size_t *idx = malloc((n + 1) * sizeof *idx);
  int rc = types && r && vals && idx ? 0 : PM_NOMEM(err);
  for (int k = 0; !rc && k < nk; k++) {
    int f = pm_schema_field_index(t->schema, t->trimmed_primary_keys[k]);
    if (f < 0) rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "table %s: primary key '%s' is not a column", t->name,
                              t->trimmed_primary_keys[k]);
    else types[k] = t->schema->fields[f].type;
  }
  size_t m = 0;
  for (size_t i = 0; !rc && i < merged->cap; i++) {
    const pm_entry_merge_slot *s = &merged->slots[i];
    if (!s->e || s->state != PM_FILE_ADD || s->e->file.level < 1) continue;
    ranged *x = &r[m];
    x->e = s->e;
    x->min = vals + 2 * m * (size_t)nk;
    x->max = x->min + nk;
    rc = pm_kv_key_decode(nk, types, s->e->file.min_key, x->min, err);
    if (!rc) rc = pm_kv_key_decode(nk, types, s->e->file.max_key, x->max, err);
    if (rc) pm_error_prefix(err, "table %s: file %s", t->name, s->e->file.file_name);
    m++;
  }
  range_ctx rc_ctx = {r, nk};
  for (size_t i = 0; !rc && i < m; i++) idx[i] = i;
  if (!rc && pm_sort_indices(idx, m, range_order, &rc_ctx)) rc = PM_NOMEM(err);
  for (size_t i = 1; !rc && i < m; i++) {
    const ranged *a = &r[idx[i - 1]], *b = &r[idx[i]];
    if (group_cmp(a->e, b->e) || pm_kv_key_cmp(nk, a->max, b->min) < 0) continue;
    char *pt = pm_commit_partition_text(c, b->e->partition);
    rc = pm_errorf(err, PAIMON_ERR_CONFLICT,
                   "commit conflict on table %s: LSM conflict in partition %s bucket %d level %d: the key ranges of "
                   "files %s and %s overlap (two writers compacted into the same level); give up committing",
                   t->name, pt ? pt : "?", (int)b->e->bucket, (int)b->e->file.level, a->e->file.file_name,
                   b->e->file.file_name);
    free(pt);
  }
  free(types);
  free(r);
  free(vals);
  free(idx);
  return rc;
}

int pm_commit_check_conflicts(pm_commit *c, const pm_snapshot *latest, pm_commit_changes *ch, const char *kind,
                              int discard_duplicates, pm_error *err) {
  part_set ps = {0};
  int rc = 0;
  for (size_t i = 0; !rc && i < ch->table.n; i++) rc = part_add(&ps, &ch->table.items[i].partition, err);
  for (size_t i = 0; !rc && i < ch->index.n; i++) rc = part_add(&ps, &ch->index.items[i].partition, err);
  pm_manifest_entries live;
  pm_manifest_entries_init(&live);
  if (!rc && ps.n) rc = pm_scan_live_files(c->t, latest, NULL, &live, err);
  /* base = live entries of the changed partitions */
  pm_manifest_entries base;
  pm_manifest_entries_init(&base);
  for (size_t i = 0; !rc && i < live.n; i++)
    if (part_find(&ps, &live.items[i].partition) >= 0)
      rc = pm_manifest_entries_append_owned(&base, &live.items[i], err);

  pm_entry_merge mb = {0}, md = {0};
  if (!rc) rc = pm_entry_merge_init(&mb, base.n + ch->table.n, err);
  for (size_t i = 0; !rc && i < base.n; i++) rc = pm_entry_merge_apply(&mb, &base.items[i], c->t->name, err);
  if (!rc && discard_duplicates) {
    size_t k = 0;
    for (size_t i = 0; i < ch->table.n; i++)
      if (pm_entry_merge_state(&mb, &ch->table.items[i]) != PM_FILE_ADD) ch->table.items[k++] = ch->table.items[i];
    ch->table.n = k;
  }
  int overwrite = !strcmp(kind, "OVERWRITE");
  for (size_t i = 0; !rc && !overwrite && i < base.n; i++) rc = check_total_buckets(c, &ps, &base.items[i], err);
  for (size_t i = 0; !rc && !overwrite && i < ch->table.n; i++)
    rc = check_total_buckets(c, &ps, &ch->table.items[i], err);
  /* the delta alone must merge: no file added twice (or deleted, then added) */
  if (!rc) rc = pm_entry_merge_init(&md, ch->table.n, err);
  for (size_t i = 0; !rc && i < ch->table.n; i++) rc = pm_entry_merge_apply(&md, &ch->table.items[i], c->t->name, err);
  /* base + delta: an added file must not exist, a deleted one must */
  for (size_t i = 0; !rc && i < ch->table.n; i++) rc = pm_entry_merge_apply(&mb, &ch->table.items[i], c->t->name, err);
  if (rc == PAIMON_ERR_CONFLICT)
    pm_error_prefix(err, "commit conflict (snapshot %" PRId64 " by %s)", latest->id,
                    latest->commit_user ? latest->commit_user : "?");
  if (!rc) {
    const pm_manifest_entry *d = pm_entry_merge_first_delete(&mb);
    if (d)
      rc = pm_errorf(err, PAIMON_ERR_CONFLICT, "commit conflict on table %s: trying to delete file %s (bucket %d) "
                     "which is not previously added (a concurrent commit of snapshot %" PRId64 " by %s deleted or "
                     "compacted it); give up committing",
                     c->t->name, d->file.file_name, (int)d->bucket, latest->id,
                     latest->commit_user ? latest->commit_user : "?");
  }
  if (!rc && pm_table_has_pk(c->t)) rc = check_key_ranges(c, &mb, err);
  if (!rc) rc = pm_commit_check_dv_conflicts(c, latest, &base, ch, err);
  if (!rc) rc = pm_commit_check_rowid_conflicts(c, latest, &base, ch, kind, &mb, err);
  pm_entry_merge_free(&mb);
  pm_entry_merge_free(&md);
  pm_manifest_entries_clear(&base);
  pm_manifest_entries_clear(&live);
  part_free(&ps);
  return rc;
}
