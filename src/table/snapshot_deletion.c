/* Planning and executing the deletion of a snapshot's unused files (snapshot_deletion.h). */
#include "table/snapshot_deletion.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meta/manifest.h"
#include "table/scan.h"
#include "util/str.h"

/* ------------------------------------------------------------ lists */

static int pl_push(pm_path_list *l, const char *s, pm_error *err) {
  if (l->n == l->cap) {
    size_t nc = l->cap ? l->cap * 2 : 64;
    char **ni = realloc(l->items, nc * sizeof *ni);
    if (!ni) return PM_NOMEM(err);
    l->items = ni;
    l->cap = nc;
  }
  char *c = strdup(s);
  if (!c) return PM_NOMEM(err);
  l->items[l->n++] = c;
  return 0;
}

static void pl_clear(pm_path_list *l) {
  for (size_t i = 0; i < l->n; i++) free(l->items[i]);
  free(l->items);
  memset(l, 0, sizeof *l);
}

void pm_fdel_init(pm_file_deletion *d, pm_table *t) {
  memset(d, 0, sizeof *d);
  d->t = t;
  d->clean_empty_directories = t->co.snapshot_clean_empty_dirs;
  pm_name_set_init(&d->planned);
  pm_name_set_init(&d->dirs_seen);
}

void pm_fdel_clear(pm_file_deletion *d) {
  if (!d) return;
  pm_name_set_clear(&d->planned);
  pm_name_set_clear(&d->dirs_seen);
  pl_clear(&d->data);
  pl_clear(&d->meta);
  pl_clear(&d->bucket_dirs);
  pl_clear(&d->partition_dirs);
}

static int plan_path(pm_file_deletion *d, pm_path_list *l, const char *path, pm_error *err) {
  int added = 0;
  PM_TRY(pm_name_set_add(&d->planned, path, &added, err));
  return added ? pl_push(l, path, err) : 0;
}

static char *meta_file_path(const pm_table *t, const char *dir, const char *name) {
  char sub[1200];
  snprintf(sub, sizeof sub, "%s/%s", dir, name);
  return pm_table_root_path(t, sub);
}

/* A read of a manifest (list) that may be gone already: NOT_FOUND = *gone (0 returned). */
static int tolerate_missing(int rc, int *gone, pm_error *err) {
  *gone = 0;
  if (rc == PAIMON_ERR_NOT_FOUND) {
    pm_error_clear(err);
    *gone = 1;
    return 0;
  }
  return rc;
}

/* Reads the manifest list `name` (NULL = none) into metas; missing = empty unless strict. */
static int read_list(pm_table *t, const char *name, int strict, pm_manifest_file_metas *metas, pm_error *err) {
  if (!name) return 0;
  char *p = meta_file_path(t, "manifest", name);
  if (!p) return PM_NOMEM(err);
  int rc = pm_scan_manifest_error(t, p, pm_manifest_list_read(t->fs, p, metas, err), err);
  int gone = 0;
  if (!strict) rc = tolerate_missing(rc, &gone, err);
  free(p);
  return rc;
}

static int read_manifest(pm_table *t, const char *name, int strict, pm_manifest_entries *es, pm_error *err) {
  char *p = meta_file_path(t, "manifest", name);
  if (!p) return PM_NOMEM(err);
  int rc = pm_scan_manifest_error(t, p, pm_manifest_read(t->fs, p, NULL, NULL, es, err), err);
  int gone = 0;
  if (!strict) rc = tolerate_missing(rc, &gone, err);
  free(p);
  return rc;
}

/* Path of the data file of entry e and its bucket dir / partition dir (malloc'd). */
static int entry_paths(pm_table *t, const pm_manifest_entry *e, char **fpath, char **bpath, char **pdir,
                       pm_error *err) {
  *fpath = *bpath = *pdir = NULL;
  int rc = pm_scan_partition_dir(t, e->partition.data, e->partition.len, pdir, err);
  if (!rc) rc = pm_table_bucket_path(t, *pdir, e->bucket, bpath, err);
  if (!rc) rc = pm_table_data_file_path(t, *bpath, e->file.file_name, e->file.external_path, fpath, err);
  if (rc) {
    free(*fpath);
    free(*bpath);
    free(*pdir);
    *fpath = *bpath = *pdir = NULL;
  }
  return rc;
}

/* Plans the data file of e and its extra files; records its bucket dir. */
static int plan_entry_files(pm_file_deletion *d, const pm_manifest_entry *e, pm_error *err) {
  char *fpath, *bpath, *pdir;
  PM_TRY(entry_paths(d->t, e, &fpath, &bpath, &pdir, err));
  int rc = plan_path(d, &d->data, fpath, err);
  const char *slash = strrchr(fpath, '/');
  size_t dl = slash ? (size_t)(slash - fpath) : 0;
  for (int32_t x = 0; !rc && x < e->file.extra_files.n; x++) {
    const char *xn = e->file.extra_files.items[x];
    size_t need = dl + strlen(xn) + 2;
    char *xp = malloc(need);
    if (!xp) {
      rc = PM_NOMEM(err);
      break;
    }
    if (dl) snprintf(xp, need, "%.*s/%s", (int)dl, fpath, xn);
    else snprintf(xp, need, "%s", xn);
    rc = plan_path(d, &d->data, xp, err);
    free(xp);
  }
  if (!rc && !e->file.external_path) {
    int added = 0;
    rc = pm_name_set_add(&d->dirs_seen, bpath, &added, err);
    if (!rc && added) {
      rc = pl_push(&d->bucket_dirs, bpath, err);
      if (!rc) rc = pl_push(&d->partition_dirs, pdir ? pdir : "", err);
    }
  }
  free(fpath);
  free(bpath);
  free(pdir);
  return rc;
}

/* ------------------------------------------------------------ skip sets */

int pm_fdel_skip_live_data(pm_table *t, const pm_snapshot *s, pm_name_set *skip, pm_error *err) {
  pm_manifest_entries live;
  pm_manifest_entries_init(&live);
  int rc = pm_scan_live_files(t, s, NULL, &live, err);
  for (size_t i = 0; !rc && i < live.n; i++) {
    char *fpath, *bpath, *pdir;
    rc = entry_paths(t, &live.items[i], &fpath, &bpath, &pdir, err);
    if (!rc) rc = pm_name_set_add(skip, fpath, NULL, err);
    free(fpath);
    free(bpath);
    free(pdir);
  }
  pm_manifest_entries_clear(&live);
  if (rc) pm_error_prefix(err, "data files of snapshot %lld", (long long)s->id);
  return rc;
}

static int skip_list(pm_table *t, const char *name, int must_exist, pm_name_set *skip, pm_error *err) {
  if (!name) return 0;
  PM_TRY(pm_name_set_add(skip, name, NULL, err));
  pm_manifest_file_metas metas;
  pm_manifest_file_metas_init(&metas);
  int rc = read_list(t, name, must_exist, &metas, err);
  for (size_t i = 0; !rc && i < metas.n; i++) rc = pm_name_set_add(skip, metas.items[i].file_name, NULL, err);
  pm_manifest_file_metas_clear(&metas);
  return rc;
}

static int skip_manifests(pm_table *t, const pm_snapshot *s, int must_exist, pm_name_set *skip, pm_error *err) {
  int rc = skip_list(t, s->base_manifest_list, must_exist, skip, err);
  if (!rc) rc = skip_list(t, s->delta_manifest_list, must_exist, skip, err);
  if (!rc && s->index_manifest) {
    rc = pm_name_set_add(skip, s->index_manifest, NULL, err);
    char *p = rc ? NULL : meta_file_path(t, "manifest", s->index_manifest);
    if (!rc && !p) rc = PM_NOMEM(err);
    int exists = 1;
    if (!rc && !must_exist) rc = pm_fs_exists(t->fs, p, &exists, err);
    if (!rc && exists) {
      pm_index_entries es;
      pm_index_entries_init(&es);
      rc = pm_scan_manifest_error(t, p, pm_index_manifest_read(t->fs, p, &es, err), err);
      for (size_t i = 0; !rc && i < es.n; i++) rc = pm_name_set_add(skip, es.items[i].index_file.file_name, NULL, err);
      pm_index_entries_clear(&es);
    }
    free(p);
  }
  if (!rc && s->statistics) rc = pm_name_set_add(skip, s->statistics, NULL, err);
  if (rc) pm_error_prefix(err, "metadata of snapshot %lld", (long long)s->id);
  return rc;
}

int pm_fdel_skip_manifests(pm_table *t, const pm_snapshot *s, pm_name_set *skip, pm_error *err) {
  return skip_manifests(t, s, 1, skip, err);
}

int pm_fdel_skip_manifests_existing(pm_table *t, const pm_snapshot *s, pm_name_set *skip, pm_error *err) {
  return skip_manifests(t, s, 0, skip, err);
}

/* ------------------------------------------------------------ planners */

/* Identity of a data file within a delta: its path (partition + bucket + name or external path). */
int pm_fdel_plan_deleted_in_delta(pm_file_deletion *d, const pm_snapshot *s, const pm_name_set *skip,
                                  int skip_append_source, pm_error *err) {
  pm_table *t = d->t;
  pm_manifest_file_metas metas;
  pm_manifest_file_metas_init(&metas);
  int rc = read_list(t, s->delta_manifest_list, 0, &metas, err);
  /* all entries of the delta, in order; a DELETE is planned only when no later ADD re-adds it */
  pm_manifest_entries all;
  pm_manifest_entries_init(&all);
  for (size_t i = 0; !rc && i < metas.n; i++) rc = read_manifest(t, metas.items[i].file_name, 0, &all, err);
  pm_manifest_file_metas_clear(&metas);
  pm_name_set added_later;
  pm_name_set_init(&added_later);
  char **paths = NULL;
  if (!rc && all.n) {
    paths = calloc(all.n, sizeof *paths);
    if (!paths) rc = PM_NOMEM(err);
  }
  for (size_t i = 0; !rc && i < all.n; i++) {
    char *bpath, *pdir;
    rc = entry_paths(t, &all.items[i], &paths[i], &bpath, &pdir, err);
    free(bpath);
    free(pdir);
  }
  /* walk backwards: an ADD after a DELETE of the same file (an upgrade) keeps it */
  for (size_t k = all.n; !rc && k-- > 0;) {
    const pm_manifest_entry *e = &all.items[k];
    if (e->kind == PM_FILE_ADD) {
      rc = pm_name_set_add(&added_later, paths[k], NULL, err);
      continue;
    }
    if (pm_name_set_has(&added_later, paths[k])) continue;
    if (skip && pm_name_set_has(skip, paths[k])) continue;
    if (skip_append_source && e->file.file_source != PM_SOURCE_COMPACT) continue;
    rc = plan_entry_files(d, e, err);
  }
  if (paths)
    for (size_t i = 0; i < all.n; i++) free(paths[i]);
  free(paths);
  pm_name_set_clear(&added_later);
  pm_manifest_entries_clear(&all);
  if (rc) pm_error_prefix(err, "planning the data files removed by snapshot %lld", (long long)s->id);
  return rc;
}

int pm_fdel_plan_unused_data(pm_file_deletion *d, const pm_snapshot *s, const pm_name_set *skip, pm_error *err) {
  pm_manifest_entries live;
  pm_manifest_entries_init(&live);
  int rc = pm_scan_live_files(d->t, s, NULL, &live, err);
  for (size_t i = 0; !rc && i < live.n; i++) {
    char *fpath, *bpath, *pdir;
    rc = entry_paths(d->t, &live.items[i], &fpath, &bpath, &pdir, err);
    int skipped = !rc && skip && pm_name_set_has(skip, fpath);
    free(fpath);
    free(bpath);
    free(pdir);
    if (!rc && !skipped) rc = plan_entry_files(d, &live.items[i], err);
  }
  pm_manifest_entries_clear(&live);
  if (rc) pm_error_prefix(err, "planning the data files of snapshot %lld", (long long)s->id);
  return rc;
}

int pm_fdel_plan_changelog(pm_file_deletion *d, const pm_snapshot *s, pm_error *err) {
  if (!s->changelog_manifest_list) return 0;
  pm_table *t = d->t;
  pm_manifest_file_metas metas;
  pm_manifest_file_metas_init(&metas);
  int rc = read_list(t, s->changelog_manifest_list, 0, &metas, err);
  for (size_t i = 0; !rc && i < metas.n; i++) {
    pm_manifest_entries es;
    pm_manifest_entries_init(&es);
    rc = read_manifest(t, metas.items[i].file_name, 0, &es, err);
    for (size_t k = 0; !rc && k < es.n; k++)
      if (es.items[k].kind == PM_FILE_ADD) rc = plan_entry_files(d, &es.items[k], err);
    pm_manifest_entries_clear(&es);
  }
  pm_manifest_file_metas_clear(&metas);
  if (rc) pm_error_prefix(err, "planning the changelog files of snapshot %lld", (long long)s->id);
  return rc;
}

/* The manifests of list `name` and the list itself, each unless in skip. */
static int plan_list(pm_file_deletion *d, const char *name, pm_name_set *skip, pm_error *err) {
  if (!name) return 0;
  pm_manifest_file_metas metas;
  pm_manifest_file_metas_init(&metas);
  int rc = read_list(d->t, name, 0, &metas, err);
  for (size_t i = 0; !rc && i <= metas.n; i++) {
    const char *fn = i < metas.n ? metas.items[i].file_name : name;
    int added = 0;
    rc = pm_name_set_add(skip, fn, &added, err);
    if (!rc && added) {
      char *p = meta_file_path(d->t, "manifest", fn);
      if (!p) rc = PM_NOMEM(err);
      else rc = plan_path(d, &d->meta, p, err);
      free(p);
    }
  }
  pm_manifest_file_metas_clear(&metas);
  return rc;
}

int pm_fdel_plan_manifests(pm_file_deletion *d, const pm_snapshot *s, pm_name_set *skip, int data_lists,
                           int changelog_list, int index_and_stats, pm_error *err) {
  pm_table *t = d->t;
  int rc = 0;
  if (data_lists) {
    rc = plan_list(d, s->base_manifest_list, skip, err);
    if (!rc) rc = plan_list(d, s->delta_manifest_list, skip, err);
  }
  if (!rc && changelog_list) rc = plan_list(d, s->changelog_manifest_list, skip, err);
  if (!rc && index_and_stats && s->index_manifest) {
    char *p = meta_file_path(t, "manifest", s->index_manifest);
    if (!p) rc = PM_NOMEM(err);
    pm_index_entries es;
    pm_index_entries_init(&es);
    int gone = 0;
    if (!rc) rc = tolerate_missing(pm_scan_manifest_error(t, p, pm_index_manifest_read(t->fs, p, &es, err), err),
                                   &gone, err);
    /* index files, then the index manifest (Java's order) */
    for (size_t i = 0; !rc && i < es.n; i++) {
      const pm_index_manifest_entry *e = &es.items[i];
      int added = 0;
      rc = pm_name_set_add(skip, e->index_file.file_name, &added, err);
      if (rc || !added) continue;
      char *pdir = NULL, *bpath = NULL, *ipath = NULL;
      rc = pm_scan_partition_dir(t, e->partition.data, e->partition.len, &pdir, err);
      if (!rc) rc = pm_table_bucket_path(t, pdir, e->bucket, &bpath, err);
      if (!rc)
        rc = pm_table_index_file_path(t, bpath, e->index_file.file_name, e->index_file.external_path, &ipath, err);
      if (!rc) rc = plan_path(d, &d->meta, ipath, err);
      free(pdir);
      free(bpath);
      free(ipath);
    }
    pm_index_entries_clear(&es);
    int added = 0;
    if (!rc && !gone) rc = pm_name_set_add(skip, s->index_manifest, &added, err);
    if (!rc && added) rc = plan_path(d, &d->meta, p, err);
    free(p);
  }
  if (!rc && index_and_stats && s->statistics) {
    int added = 0;
    rc = pm_name_set_add(skip, s->statistics, &added, err);
    if (!rc && added) {
      char *p = meta_file_path(t, "statistics", s->statistics);
      if (!p) rc = PM_NOMEM(err);
      else rc = plan_path(d, &d->meta, p, err);
      free(p);
    }
  }
  if (rc) pm_error_prefix(err, "planning the metadata files of snapshot %lld", (long long)s->id);
  return rc;
}

/* ------------------------------------------------------------ execute */

typedef struct exec_state {
  pm_file_deletion *d;
  pm_fdel_stats st;
  pm_error first;
  int64_t done, total;
  pm_fdel_progress_fn progress;
  void *pctx;
} exec_state;

static void del_one(exec_state *x, const char *path, int64_t *counter) {
  pm_error e = {0};
  int rc = pm_fs_delete(x->d->t->fs, path, &e);
  if (!rc) (*counter)++;
  else if (rc == PAIMON_ERR_NOT_FOUND) x->st.missing++;
  else {
    if (!x->st.failed) x->first = e;
    x->st.failed++;
  }
  x->done++;
  if (x->progress && x->done % 1000 == 0) x->progress(x->pctx, x->done, x->total);
}

/* Removes dir when it is an empty directory (quietly otherwise). */
static int try_rmdir(exec_state *x, const char *dir) {
  pm_file_stat fst;
  pm_error e = {0};
  if (pm_fs_stat(x->d->t->fs, dir, &fst, &e) || !fst.is_dir) return 0;
  char **names = NULL;
  size_t n = 0;
  if (pm_fs_list(x->d->t->fs, dir, NULL, &names, &n, &e)) return 0;
  pm_free_names(names, n);
  if (n) return 0;
  if (pm_fs_delete(x->d->t->fs, dir, &e)) return 0;
  x->st.dirs_deleted++;
  return 1;
}

static void clean_empty_dirs(exec_state *x) {
  pm_file_deletion *d = x->d;
  pm_name_set tried;
  pm_name_set_init(&tried);
  for (size_t i = 0; i < d->bucket_dirs.n; i++) {
    if (!try_rmdir(x, d->bucket_dirs.items[i])) continue;
    const char *pdir = d->partition_dirs.items[i];
    if (!*pdir) continue;
    /* the partition directories, deepest first: strip "/bucket-N", then one k=v per level */
    char *p = strdup(d->bucket_dirs.items[i]);
    if (!p) break;
    int levels = 1;
    for (const char *c = pdir; *c; c++)
      if (*c == '/') levels++;
    char *s = strrchr(p, '/');
    for (int l = 0; s && l < levels; l++) {
      *s = 0;
      int added = 0;
      pm_error e = {0};
      if (pm_name_set_add(&tried, p, &added, &e) || !added) break;
      if (!try_rmdir(x, p)) break;
      s = strrchr(p, '/');
    }
    free(p);
  }
  pm_name_set_clear(&tried);
}

int pm_fdel_execute(pm_file_deletion *d, pm_fdel_progress_fn progress, void *progress_ctx, pm_fdel_stats *st,
                    pm_error *err) {
  exec_state x;
  memset(&x, 0, sizeof x);
  x.d = d;
  x.total = (int64_t)(d->data.n + d->meta.n);
  x.progress = progress;
  x.pctx = progress_ctx;
  for (size_t i = 0; i < d->data.n; i++) del_one(&x, d->data.items[i], &x.st.data_deleted);
  if (d->clean_empty_directories) clean_empty_dirs(&x);
  for (size_t i = 0; i < d->meta.n; i++) del_one(&x, d->meta.items[i], &x.st.meta_deleted);
  if (progress && x.done % 1000 != 0) progress(progress_ctx, x.done, x.total);
  if (st) *st = x.st;
  if (x.st.failed)
    return pm_errorf(err, PAIMON_ERR_IO, "%lld of %lld files could not be deleted (left for orphan cleanup); first: %s",
                     (long long)x.st.failed, (long long)x.total, x.first.message);
  return 0;
}
