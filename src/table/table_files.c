/* The walker over every file a table's snapshots, tags and changelogs reference (table_files.h). */
#include "table/table_files.h"

#include <stdlib.h>
#include <string.h>

#include "meta/manifest.h"
#include "meta/schema.h"
#include "meta/snapshot.h"
#include "table/scan.h"
#include "util/str.h"

/* ------------------------------------------------------------ name set */

static uint64_t ns_hash(const char *s) {
  uint64_t h = 14695981039346656037ULL;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ULL;
  return h;
}

void pm_name_set_init(pm_name_set *s) { memset(s, 0, sizeof *s); }

void pm_name_set_clear(pm_name_set *s) {
  if (!s) return;
  for (size_t i = 0; i < s->cap; i++) free(s->slots[i]);
  free(s->slots);
  memset(s, 0, sizeof *s);
}

static size_t ns_find(char *const *slots, size_t cap, const char *key) {
  size_t i = (size_t)ns_hash(key) & (cap - 1);
  while (slots[i] && strcmp(slots[i], key)) i = (i + 1) & (cap - 1);
  return i;
}

int pm_name_set_has(const pm_name_set *s, const char *key) {
  if (!s->cap) return 0;
  return s->slots[ns_find(s->slots, s->cap, key)] != NULL;
}

int pm_name_set_add(pm_name_set *s, const char *key, int *added, pm_error *err) {
  if (added) *added = 0;
  if ((s->n + 1) * 2 > s->cap) {
    size_t nc = s->cap ? s->cap * 2 : 64;
    char **ns = calloc(nc, sizeof *ns);
    if (!ns) return PM_NOMEM(err);
    for (size_t i = 0; i < s->cap; i++)
      if (s->slots[i]) ns[ns_find(ns, nc, s->slots[i])] = s->slots[i];
    free(s->slots);
    s->slots = ns;
    s->cap = nc;
  }
  size_t i = ns_find(s->slots, s->cap, key);
  if (s->slots[i]) return 0;
  char *k = pm_strdup(key);
  if (!k) return PM_NOMEM(err);
  s->slots[i] = k;
  s->n++;
  if (added) *added = 1;
  return 0;
}

/* ------------------------------------------------------------ walk */

typedef struct walk {
  pm_table *t; /* the branch's table (options, paths) */
  pm_table_file_fn fn;
  void *ctx;
  const char *branch;
  const char *owner; /* snapshot / tag / changelog file being walked */
  pm_table_file_kind owner_kind;
  pm_name_set visited; /* manifest lists, manifests, index manifests read (shared by branches) */
  int lenient;         /* walking the changelog of a snapshot or tag (walk_changelog_lenient) */
} walk;

/* Result of a missing referenced file: 1 = skip the rest of this snapshot (its file is gone:
 * expired meanwhile), else an error naming both. */
#define WALK_SKIP 1

static const char *base_name(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

static int emit(walk *w, pm_table_file_kind kind, const char *path, int64_t size, int from_delete, pm_error *err) {
  pm_table_file_ref f;
  f.kind = kind;
  f.path = path;
  f.name = base_name(path);
  f.size = size;
  f.from_delete = from_delete;
  f.branch = w->branch;
  f.owner = w->owner;
  return w->fn(w->ctx, &f, err);
}

/* A read of a file the snapshot references failed with rc: NOT_FOUND while the snapshot
 * file itself is gone too = skip (WALK_SKIP); every other case an error naming the owner. */
static int missing_or_error(walk *w, int rc, pm_error *err) {
  if (rc == PAIMON_ERR_NOT_FOUND && w->lenient) { /* being deleted: see walk_changelog_lenient */
    pm_error_clear(err);
    return WALK_SKIP;
  }
  if (rc == PAIMON_ERR_NOT_FOUND) {
    int exists = 1;
    pm_error e2 = {0};
    if (pm_fs_exists(w->t->fs, w->owner, &exists, &e2) == 0 && !exists) {
      pm_error_clear(err);
      return WALK_SKIP;
    }
  }
  pm_error_prefix(err, "file referenced by %s (branch %s): ", w->owner, w->branch);
  return rc;
}

/* The shared start of walking one metadata file manifest/<name>: its path in
 * *path (the caller frees it, also on error); *seen = 1 when it was walked
 * before (nothing emitted), else it is emitted as `kind`. */
static int enter_meta_file(walk *w, const char *name, pm_table_file_kind kind, char **path, int *seen,
                           pm_error *err) {
  char sub[1200];
  snprintf(sub, sizeof sub, "manifest/%s", name);
  *seen = 0;
  *path = pm_table_root_path(w->t, sub);
  if (!*path) return PM_NOMEM(err);
  if (pm_name_set_has(&w->visited, *path)) {
    *seen = 1;
    return 0;
  }
  return emit(w, kind, *path, -1, 0, err);
}

static int changelog_gone(walk *w, const char *name, int *gone, pm_error *err);

static int walk_manifest(walk *w, const char *name, int changelog, pm_error *err) {
  int added = 0;
  char *path = NULL;
  int seen, gone = 0;
  if (w->lenient) PM_TRY(changelog_gone(w, name, &gone, err));
  if (gone) return 0;
  int rc = enter_meta_file(w, name, PM_TF_MANIFEST, &path, &seen, err);
  if (rc || seen) goto out;
  pm_manifest_entries es;
  pm_manifest_entries_init(&es);
  rc = pm_scan_manifest_error(w->t, path, pm_manifest_read(w->t->fs, path, NULL, NULL, &es, err), err);
  if (rc) {
    pm_manifest_entries_clear(&es);
    rc = missing_or_error(w, rc, err);
    goto out;
  }
  /* the same partition repeats: keep the last one's directory */
  const uint8_t *last_part = NULL;
  size_t last_len = 0;
  char *pdir = NULL;
  for (size_t i = 0; i < es.n && !rc; i++) {
    const pm_manifest_entry *e = &es.items[i];
    if (!pdir || e->partition.len != last_len || (last_len && memcmp(e->partition.data, last_part, last_len))) {
      free(pdir);
      pdir = NULL;
      rc = pm_scan_partition_dir(w->t, e->partition.data, e->partition.len, &pdir, err);
      if (rc) break;
      last_part = e->partition.data;
      last_len = e->partition.len;
    }
    char *bpath = NULL, *fpath = NULL;
    rc = pm_table_bucket_path(w->t, pdir, e->bucket, &bpath, err);
    if (!rc) rc = pm_table_data_file_path(w->t, bpath, e->file.file_name, e->file.external_path, &fpath, err);
    int del = e->kind == PM_FILE_DELETE;
    if (!rc)
      rc = emit(w, changelog ? PM_TF_CHANGELOG_FILE : PM_TF_DATA_FILE, fpath, e->file.file_size, del, err);
    for (int32_t x = 0; !rc && x < e->file.extra_files.n; x++) {
      /* extra files sit next to their data file */
      const char *dir_end = strrchr(fpath, '/');
      size_t dl = dir_end ? (size_t)(dir_end - fpath) : 0;
      const char *xn = e->file.extra_files.items[x];
      size_t need = dl + strlen(xn) + 2;
      char *xp = malloc(need);
      if (!xp) {
        rc = PM_NOMEM(err);
        break;
      }
      if (dl) snprintf(xp, need, "%.*s/%s", (int)dl, fpath, xn);
      else snprintf(xp, need, "%s", xn);
      rc = emit(w, PM_TF_EXTRA_FILE, xp, -1, del, err);
      free(xp);
    }
    free(bpath);
    free(fpath);
  }
  free(pdir);
  pm_manifest_entries_clear(&es);
  if (!rc) rc = pm_name_set_add(&w->visited, path, &added, err);
out:
  free(path);
  return rc;
}

/* A long-lived changelog keeps only what its changelog needs: snapshot expiry deleted the data
 * manifest lists (changelog producer) or the index manifest of its snapshot (Java's orphan
 * cleanup reads those as empty when they are gone). A tag's changelog (w->lenient) may be
 * gone or half gone: see walk_changelog_lenient. 1 when manifest/<name> is such a file. */
static int changelog_gone(walk *w, const char *name, int *gone, pm_error *err) {
  *gone = 0;
  if (w->owner_kind != PM_TF_CHANGELOG_META && !w->lenient) return 0;
  char sub[1200];
  snprintf(sub, sizeof sub, "manifest/%s", name);
  char *path = pm_table_root_path(w->t, sub);
  if (!path) return PM_NOMEM(err);
  int exists = 1;
  int rc = pm_fs_exists(w->t->fs, path, &exists, err);
  free(path);
  *gone = !rc && !exists;
  return rc;
}

static int walk_manifest_list(walk *w, const char *name, int changelog, pm_error *err) {
  if (!name) return 0;
  char *path = NULL;
  int seen, gone = 0;
  PM_TRY(changelog_gone(w, name, &gone, err));
  if (gone) return 0;
  int rc = enter_meta_file(w, name, PM_TF_MANIFEST_LIST, &path, &seen, err);
  if (rc || seen) goto out;
  pm_manifest_file_metas metas;
  pm_manifest_file_metas_init(&metas);
  rc = pm_scan_manifest_error(w->t, path, pm_manifest_list_read(w->t->fs, path, &metas, err), err);
  if (rc) rc = missing_or_error(w, rc, err);
  for (size_t i = 0; !rc && i < metas.n; i++) rc = walk_manifest(w, metas.items[i].file_name, changelog, err);
  pm_manifest_file_metas_clear(&metas);
  if (!rc) rc = pm_name_set_add(&w->visited, path, NULL, err);
out:
  free(path);
  return rc;
}

static int walk_index_manifest(walk *w, const char *name, pm_error *err) {
  if (!name) return 0;
  char *path = NULL;
  int seen, gone = 0;
  PM_TRY(changelog_gone(w, name, &gone, err));
  if (gone) return 0;
  int rc = enter_meta_file(w, name, PM_TF_INDEX_MANIFEST, &path, &seen, err);
  if (rc || seen) goto out;
  pm_index_entries es;
  pm_index_entries_init(&es);
  rc = pm_scan_manifest_error(w->t, path, pm_index_manifest_read(w->t->fs, path, &es, err), err);
  if (rc) rc = missing_or_error(w, rc, err);
  for (size_t i = 0; !rc && i < es.n; i++) {
    const pm_index_manifest_entry *e = &es.items[i];
    char *pdir = NULL, *bpath = NULL, *ipath = NULL;
    rc = pm_scan_partition_dir(w->t, e->partition.data, e->partition.len, &pdir, err);
    if (!rc) rc = pm_table_bucket_path(w->t, pdir, e->bucket, &bpath, err);
    if (!rc)
      rc = pm_table_index_file_path(w->t, bpath, e->index_file.file_name, e->index_file.external_path, &ipath, err);
    if (!rc) rc = emit(w, PM_TF_INDEX_FILE, ipath, e->index_file.file_size, e->kind == PM_FILE_DELETE, err);
    free(pdir);
    free(bpath);
    free(ipath);
  }
  pm_index_entries_clear(&es);
  if (!rc) rc = pm_name_set_add(&w->visited, path, NULL, err);
out:
  free(path);
  return rc;
}

/* The changelog manifest list `name` of a snapshot or tag: only what still exists of it is
 * reported, a missing list, manifest (or one deleted while read) skipped. A tag keeps its data,
 * not its changelog: the expiry of the tagged snapshot deletes the changelog files, manifests
 * and list of its snapshot (Java's skipping set holds a tag's base and delta lists only), and so
 * does the expiry of the long-lived changelog of that id; the tag keeps naming them. So does a
 * branch's snapshot made from a main snapshot that expired since, and a snapshot a rollback to
 * such a tag wrote back. An interrupted expiry leaves a list without some of its manifests.
 * What is gone was reachable only through the list (Java's orphan cleanup reads missing files
 * as empty). Never fails with NOT_FOUND. */
static int walk_changelog_lenient(walk *w, const char *name, pm_error *err) {
  w->lenient = 1;
  int rc = walk_manifest_list(w, name, 1, err);
  if (rc == WALK_SKIP) rc = 0;
  w->lenient = 0;
  return rc;
}

/* One snapshot-like JSON file at path (kind: snapshot, tag or changelog). */
static int walk_snapshot_file(walk *w, pm_table_file_kind kind, const char *path, pm_error *err) {
  pm_buf b;
  pm_buf_init(&b);
  int rc = pm_fs_read_file(w->t->fs, path, &b, 0, err);
  if (rc == PAIMON_ERR_NOT_FOUND) { /* expired / deleted since listed */
    pm_buf_free(&b);
    pm_error_clear(err);
    return 0;
  }
  pm_snapshot *s = NULL;
  if (!rc) rc = pm_snapshot_parse((const char *)b.data, b.len, path, &s, err);
  pm_buf_free(&b);
  if (rc) return rc;
  w->owner = path;
  w->owner_kind = kind;
  rc = emit(w, kind, path, -1, 0, err);
  if (!rc) rc = walk_manifest_list(w, s->base_manifest_list, 0, err);
  if (!rc) rc = walk_manifest_list(w, s->delta_manifest_list, 0, err);
  /* a snapshot's changelog: what is left of it; a tag's: after the long-lived changelogs */
  if (!rc && kind == PM_TF_SNAPSHOT) rc = walk_changelog_lenient(w, s->changelog_manifest_list, err);
  if (!rc && kind == PM_TF_CHANGELOG_META) rc = walk_manifest_list(w, s->changelog_manifest_list, 1, err);
  if (!rc) rc = walk_index_manifest(w, s->index_manifest, err);
  if (!rc && s->statistics) {
    char sub[1200];
    snprintf(sub, sizeof sub, "statistics/%s", s->statistics);
    char *sp = pm_table_root_path(w->t, sub);
    if (!sp) rc = PM_NOMEM(err);
    else rc = emit(w, PM_TF_STATISTICS, sp, -1, 0, err);
    free(sp);
  }
  if (rc == WALK_SKIP) rc = 0;
  w->owner = NULL;
  pm_snapshot_free(s);
  return rc;
}

/* The changelog manifest list of tag file `path` (walk_changelog_lenient), walked after the
 * branch's snapshots and long-lived changelogs: what a long-lived changelog shares with the tag
 * was walked strictly by it. */
static int walk_tag_changelog(walk *w, const char *path, pm_error *err) {
  pm_buf b;
  pm_buf_init(&b);
  int rc = pm_fs_read_file(w->t->fs, path, &b, 0, err);
  if (rc == PAIMON_ERR_NOT_FOUND) { /* deleted since listed */
    pm_buf_free(&b);
    pm_error_clear(err);
    return 0;
  }
  pm_snapshot *s = NULL;
  if (!rc) rc = pm_snapshot_parse((const char *)b.data, b.len, path, &s, err);
  pm_buf_free(&b);
  if (rc) return rc;
  w->owner = path;
  w->owner_kind = PM_TF_TAG;
  rc = walk_changelog_lenient(w, s->changelog_manifest_list, err);
  w->owner = NULL;
  pm_snapshot_free(s);
  return rc;
}

static int walk_branch(walk *w, pm_error *err) {
  pm_table *t = w->t;
  pm_snapshot_manager sm = pm_table_snapshots(t);
  int64_t *ids = NULL;
  size_t n = 0;
  int rc = pm_snapshot_list_ids(&sm, &ids, &n, err);
  for (size_t i = 0; !rc && i < n; i++) {
    char *p = pm_snapshot_path(&sm, ids[i]);
    if (!p) rc = PM_NOMEM(err);
    else rc = walk_snapshot_file(w, PM_TF_SNAPSHOT, p, err);
    free(p);
  }
  free(ids);
  ids = NULL;
  if (rc) return rc;
  char **tags = NULL;
  size_t nt = 0;
  rc = pm_tag_list(&sm, &tags, &nt, err);
  for (size_t i = 0; !rc && i < nt; i++) {
    char *p = pm_tag_path(&sm, tags[i]);
    if (!p) rc = PM_NOMEM(err);
    else rc = walk_snapshot_file(w, PM_TF_TAG, p, err);
    free(p);
  }
  pm_free_names(tags, nt);
  if (rc) return rc;
  char *cdir = pm_table_meta_path(t, "changelog");
  if (!cdir) return PM_NOMEM(err);
  rc = pm_meta_list_ids(t->fs, cdir, "changelog-", &ids, &n, err);
  for (size_t i = 0; !rc && i < n; i++) {
    char sub[64];
    snprintf(sub, sizeof sub, "changelog/changelog-%lld", (long long)ids[i]);
    char *p = pm_table_meta_path(t, sub);
    if (!p) rc = PM_NOMEM(err);
    else rc = walk_snapshot_file(w, PM_TF_CHANGELOG_META, p, err);
    free(p);
  }
  free(ids);
  free(cdir);
  if (rc) return rc;
  rc = pm_tag_list(&sm, &tags, &nt, err);
  for (size_t i = 0; !rc && i < nt; i++) {
    char *p = pm_tag_path(&sm, tags[i]);
    if (!p) rc = PM_NOMEM(err);
    else rc = walk_tag_changelog(w, p, err);
    free(p);
  }
  pm_free_names(tags, nt);
  return rc;
}

int pm_table_files_walk(pm_table *t, pm_table_file_fn fn, void *ctx, pm_error *err) {
  walk w;
  memset(&w, 0, sizeof w);
  w.fn = fn;
  w.ctx = ctx;
  pm_name_set_init(&w.visited);
  char **branches = NULL;
  size_t nb = 0;
  int rc = pm_branch_list(t->fs, t->root, &branches, &nb, err);
  if (rc) return pm_error_prefix(err, "listing the branches of %s", t->root), rc;
  /* main first, then every branch (each with its own options and paths) */
  for (size_t i = 0; !rc && i <= nb; i++) {
    const char *b = i == 0 ? "main" : branches[i - 1];
    pm_table *bt = NULL;
    if (!strcmp(b, t->branch)) bt = pm_table_retain(t);
    else {
      rc = pm_table_reopen(t, b, NULL, &bt, err);
      if (rc) {
        pm_error_prefix(err, "branch %s of %s has no readable schema; nothing walked", b, t->root);
        break;
      }
    }
    w.t = bt;
    w.branch = b;
    rc = walk_branch(&w, err);
    pm_table_free(bt);
  }
  pm_free_names(branches, nb);
  pm_name_set_clear(&w.visited);
  return rc;
}
