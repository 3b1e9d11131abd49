/*
 * Upgrade of overwritten files (Java's FileStoreCommitImpl.tryUpgrade, option
 * overwrite-upgrade, default true). An OVERWRITE commit of a primary-key table
 * that carries no compaction replaces whole partitions with new level-0
 * files; where the new files of one (partition, bucket) do not overlap in key
 * range, they form one sorted run and are committed at the max level
 * (num-levels - 1) instead, so later reads need no merge and compaction does
 * not rewrite them. Nothing happens when any new file is already above level
 * 0 or in a bucket below 0 (unaware / postpone), for tables without a primary
 * key, or with pk-clustering-override. A bucket whose files overlap keeps
 * them at level 0. Only the level changes (Java's DataFileMeta.upgrade).
 *
 * Order: the entries keep the committable's order (Java emits the groups in
 * HashMap order and an upgraded group sorted by min key; the manifest's
 * entry order carries no meaning for readers).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "table/commit_internal.h"
#include "table/kv_levels.h"
#include "util/sort.h"

typedef struct up_ctx {
  const pm_manifest_entry *const *e; /* entry of each index */
  const pm_value *min;               /* nk values per index */
  int nk;
} up_ctx;

static int same_group(const pm_manifest_entry *a, const pm_manifest_entry *b) {
  return a->bucket == b->bucket && a->partition.len == b->partition.len &&
         (!a->partition.len || !memcmp(a->partition.data, b->partition.data, a->partition.len));
}

static int group_order(const pm_manifest_entry *a, const pm_manifest_entry *b) {
  if (a->partition.len != b->partition.len) return a->partition.len < b->partition.len ? -1 : 1;
  int r = a->partition.len ? memcmp(a->partition.data, b->partition.data, a->partition.len) : 0;
  if (r) return r;
  return a->bucket < b->bucket ? -1 : a->bucket > b->bucket;
}

static int up_order(const void *ctx, size_t a, size_t b) {
  const up_ctx *c = ctx;
  int r = group_order(c->e[a], c->e[b]);
  if (r) return r;
  r = pm_kv_key_cmp(c->nk, c->min + a * (size_t)c->nk, c->min + b * (size_t)c->nk);
  return r ? r : (a < b ? -1 : a > b);
}

int pm_commit_try_upgrade(const pm_commit *c, pm_manifest_entries *files, pm_error *err) {
  pm_table *t = c->t;
  if (!t->co.overwrite_upgrade || !pm_table_has_pk(t) || !files->n) return 0;
  const char *override = pm_core_option_text(&t->co, PM_CO_PK_CLUSTERING_OVERRIDE);
  if (override && !strcasecmp(override, "true")) return 0;
  for (size_t i = 0; i < files->n; i++)
    if (files->items[i].file.level > 0 || files->items[i].bucket < 0) return 0;
  int max_level = (t->co.num_levels > 0 ? t->co.num_levels : t->co.num_sorted_run_compaction_trigger + 1) - 1;
  if (max_level <= 0)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "table %s: overwrite-upgrade cannot upgrade level-0 files to max level %d (num-levels); set "
                     "overwrite-upgrade = false",
                     t->name, max_level);
  int nk = (int)t->n_trimmed_primary_keys;
  size_t n = files->n;
  const pm_data_type **types = calloc((size_t)nk + 1, sizeof *types);
  pm_value *mins = calloc(n * (size_t)(nk ? nk : 1) + 1, sizeof *mins);
  pm_value *maxs = calloc(n * (size_t)(nk ? nk : 1) + 1, sizeof *maxs);
  const pm_manifest_entry **es = calloc(n + 1, sizeof *es);
  size_t *idx = malloc((n + 1) * sizeof *idx);
  char *keep = calloc(n + 1, 1);
  int rc = types && mins && maxs && es && idx && keep ? 0 : PM_NOMEM(err);
  for (int k = 0; !rc && k < nk; k++) {
    int f = pm_schema_field_index(t->schema, t->trimmed_primary_keys[k]);
    if (f < 0)
      rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "table %s: primary key '%s' is not a column", t->name,
                     t->trimmed_primary_keys[k]);
    else types[k] = t->schema->fields[f].type;
  }
  for (size_t i = 0; !rc && i < n; i++) {
    const pm_manifest_entry *e = &files->items[i];
    es[i] = e;
    idx[i] = i;
    rc = pm_kv_key_decode(nk, types, e->file.min_key, mins + i * (size_t)nk, err);
    if (!rc) rc = pm_kv_key_decode(nk, types, e->file.max_key, maxs + i * (size_t)nk, err);
    if (rc) pm_error_prefix(err, "overwrite-upgrade: table %s: file %s", t->name, e->file.file_name);
  }
  up_ctx ctx = {es, mins, nk};
  if (!rc && pm_sort_indices(idx, n, up_order, &ctx)) rc = PM_NOMEM(err);
  /* a group with two neighbours (by min key) whose ranges touch stays at level 0 */
  for (size_t g = 0; !rc && g < n;) {
    size_t end = g + 1;
    while (end < n && same_group(es[idx[g]], es[idx[end]])) end++;
    int overlap = 0;
    for (size_t i = g; i + 1 < end && !overlap; i++)
      overlap = pm_kv_key_cmp(nk, maxs + idx[i] * (size_t)nk, mins + idx[i + 1] * (size_t)nk) >= 0;
    for (size_t i = g; i < end; i++) keep[idx[i]] = (char)overlap;
    g = end;
  }
  for (size_t i = 0; !rc && i < n; i++)
    if (!keep[i]) files->items[i].file.level = max_level;
  free(types);
  free(mins);
  free(maxs);
  free(es);
  free(idx);
  free(keep);
  return rc;
}
