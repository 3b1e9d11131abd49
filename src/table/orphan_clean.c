/* Orphan file cleanup (orphan_clean.h). */
#include "table/orphan_clean.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "meta/schema.h"
#include "table/table_files.h"
#include "util/str.h"

typedef struct candidate {
  char *path;
  const char *name; /* into path */
  uint64_t size;
  int unreferenced; /* snapshot/changelog dir leftovers: deleted without a reference check */
} candidate;

typedef struct oc {
  pm_table *t;
  const pm_orphan_options *o;
  int64_t older_than;
  candidate *c;
  size_t n, cap;
  pm_name_set names; /* names of the reference-checked candidates */
  pm_name_set used;  /* referenced names among them */
  uint64_t refs;
} oc;

static int64_t clock_millis(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static char *join(const char *dir, const char *name) {
  size_t n = strlen(dir) + strlen(name) + 2;
  char *p = malloc(n);
  if (p) snprintf(p, n, "%s/%s", dir, name);
  return p;
}

static void progress(oc *s, const char *phase, uint64_t done, uint64_t total) {
  if (s->o->progress) s->o->progress(s->o->ctx, phase, done, total);
}

static int add_candidate(oc *s, char *path, uint64_t size, int unreferenced, pm_error *err) {
  if (s->n == s->cap) {
    size_t nc = s->cap ? s->cap * 2 : 256;
    candidate *nv = realloc(s->c, nc * sizeof *nv);
    if (!nv) {
      free(path);
      return PM_NOMEM(err);
    }
    s->c = nv;
    s->cap = nc;
  }
  const char *sl = strrchr(path, '/');
  candidate *c = &s->c[s->n++];
  c->path = path;
  c->name = sl ? sl + 1 : path;
  c->size = size;
  c->unreferenced = unreferenced;
  if (!unreferenced) return pm_name_set_add(&s->names, c->name, NULL, err);
  return 0;
}

/* Names in dir; a directory that cannot be listed (missing, I/O error) gives none. */
static void list_quiet(oc *s, const char *dir, char ***names, size_t *n) {
  pm_error e = {0};
  if (pm_fs_list(s->t->fs, dir, NULL, names, n, &e) != 0) {
    *names = NULL;
    *n = 0;
  }
}

/* keep(name) decides which regular files of dir are candidates. */
static int list_files(oc *s, const char *dir, int unreferenced, int (*keep)(const char *name), pm_error *err) {
  char **names = NULL;
  size_t n = 0;
  list_quiet(s, dir, &names, &n);
  int rc = 0;
  for (size_t i = 0; !rc && i < n; i++) {
    if (keep && !keep(names[i])) continue;
    char *p = join(dir, names[i]);
    if (!p) {
      rc = PM_NOMEM(err);
      break;
    }
    pm_file_stat st;
    pm_error e = {0};
    if (pm_fs_stat(s->t->fs, p, &st, &e) != 0 || !st.is_regular || st.mtime_millis >= s->older_than) {
      free(p);
      continue;
    }
    rc = add_candidate(s, p, st.size, unreferenced, err);
  }
  pm_free_names(names, n);
  return rc;
}

static int is_dir(oc *s, const char *p) {
  pm_file_stat st;
  pm_error e = {0};
  return pm_fs_stat(s->t->fs, p, &st, &e) == 0 && st.is_dir;
}

/* Java's listFileDirs: `level` partition levels (names with '='), then bucket-* directories. */
static int list_data_dirs(oc *s, const char *dir, size_t level, pm_error *err) {
  char **names = NULL;
  size_t n = 0;
  list_quiet(s, dir, &names, &n);
  int rc = 0;
  for (size_t i = 0; !rc && i < n; i++) {
    int want = level == 0 ? !strncmp(names[i], "bucket-", 7) : strchr(names[i], '=') != NULL;
    if (!want) continue;
    char *p = join(dir, names[i]);
    if (!p) {
      rc = PM_NOMEM(err);
      break;
    }
    if (is_dir(s, p)) rc = level == 0 ? list_files(s, p, 0, NULL, err) : list_data_dirs(s, p, level - 1, err);
    free(p);
  }
  pm_free_names(names, n);
  return rc;
}

static int not_snapshot_meta(const char *name) {
  return strncmp(name, "snapshot-", 9) && strcmp(name, "EARLIEST") && strcmp(name, "LATEST");
}
static int not_changelog_meta(const char *name) {
  return strncmp(name, "changelog-", 10) && strcmp(name, "EARLIEST") && strcmp(name, "LATEST");
}

static int list_branch_meta(oc *s, const char *branch, pm_error *err) {
  char *meta = pm_branch_dir(s->t->root, branch);
  if (!meta) return PM_NOMEM(err);
  char *sd = join(meta, "snapshot"), *cd = join(meta, "changelog");
  int rc = sd && cd ? 0 : PM_NOMEM(err);
  if (!rc) rc = list_files(s, sd, 1, not_snapshot_meta, err);
  if (!rc) rc = list_files(s, cd, 1, not_changelog_meta, err);
  free(sd);
  free(cd);
  free(meta);
  return rc;
}

static int list_candidates(oc *s, pm_error *err) {
  pm_table *t = s->t;
  int rc = list_branch_meta(s, NULL, err);
  char **branches = NULL;
  size_t nb = 0;
  if (!rc) {
    pm_error e = {0};
    if (pm_branch_list(t->fs, t->root, &branches, &nb, &e) != 0) nb = 0;
  }
  for (size_t i = 0; !rc && i < nb; i++) rc = list_branch_meta(s, branches[i], err);
  pm_free_names(branches, nb);
  static const char *const meta_dirs[] = {"manifest", "index", "statistics"};
  for (size_t i = 0; !rc && i < 3; i++) {
    char *d = join(t->root, meta_dirs[i]);
    if (!d) return PM_NOMEM(err);
    rc = list_files(s, d, 0, NULL, err);
    free(d);
  }
  if (!rc) {
    char *d = t->data_path_directory && *t->data_path_directory ? join(t->root, t->data_path_directory)
                                                                 : pm_strdup(t->root);
    if (!d) return PM_NOMEM(err);
    rc = list_data_dirs(s, d, t->n_partition_keys, err);
    free(d);
  }
  const char *ext = t->co.data_file_external_paths;
  for (const char *p = ext; !rc && p && *p;) {
    const char *e = strchr(p, ',');
    size_t l = e ? (size_t)(e - p) : strlen(p);
    while (l && (*p == ' ')) p++, l--;
    while (l && p[l - 1] == ' ') l--;
    if (l) {
      char *item = pm_strndup(p, l), *local = NULL;
      if (!item) return PM_NOMEM(err);
      pm_error e2 = {0};
      if (pm_table_resolve_path(t, item, &local, &e2) == 0) rc = list_data_dirs(s, local, t->n_partition_keys, err);
      free(local);
      free(item);
    }
    p = e ? e + 1 : NULL;
  }
  return rc;
}

static int on_ref(void *ctx, const pm_table_file_ref *f, pm_error *err) {
  oc *s = ctx;
  s->refs++;
  if ((s->refs & 4095) == 0) progress(s, "reading", s->refs, 0);
  if (pm_name_set_has(&s->names, f->name)) return pm_name_set_add(&s->used, f->name, NULL, err);
  return 0;
}

int pm_orphan_clean(pm_table *t, const pm_orphan_options *o, int64_t now_millis, pm_orphan_result *res,
                    pm_error *err) {
  if (res) memset(res, 0, sizeof *res);
  if (!o) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "orphan cleanup: no options");
  if (!now_millis) now_millis = clock_millis();
  int64_t older = o->older_than_millis ? o->older_than_millis : now_millis - 86400000LL;
  if (older >= now_millis)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "older_than (%lld ms) must be before now (%lld ms): files being written and not yet "
                     "committed would be deleted",
                     (long long)older, (long long)now_millis);
  oc s;
  memset(&s, 0, sizeof s);
  s.t = t;
  s.o = o;
  s.older_than = older;
  pm_name_set_init(&s.names);
  pm_name_set_init(&s.used);
  progress(&s, "listing", 0, 0);
  int rc = list_candidates(&s, err);
  if (!rc && s.names.n) {
    /* the referenced files: any error stops the cleanup before the first deletion */
    rc = pm_table_files_walk(t, on_ref, &s, err);
    if (rc) pm_error_prefix(err, "orphan cleanup of %s stopped, nothing deleted: ", t->root);
  }
  if (res) {
    res->candidates = s.n;
    res->referenced = s.refs;
  }
  size_t to_delete = 0;
  for (size_t i = 0; !rc && i < s.n; i++)
    if (s.c[i].unreferenced || !pm_name_set_has(&s.used, s.c[i].name)) to_delete++;
  size_t done = 0;
  for (size_t i = 0; !rc && i < s.n; i++) {
    candidate *c = &s.c[i];
    if (!c->unreferenced && pm_name_set_has(&s.used, c->name)) continue;
    if (!o->dry_run) {
      pm_error e = {0};
      int drc = pm_fs_delete(t->fs, c->path, &e);
      if (drc && drc != PAIMON_ERR_NOT_FOUND) {
        if (res) res->delete_failed++;
        continue;
      }
    }
    if (res) {
      res->files++;
      res->bytes += c->size;
    }
    if (o->on_file) o->on_file(o->ctx, c->path, c->size);
    if ((++done & 1023) == 0) progress(&s, "deleting", done, to_delete);
  }
  if (!rc) progress(&s, "deleting", done, to_delete);
  for (size_t i = 0; i < s.n; i++) free(s.c[i].path);
  free(s.c);
  pm_name_set_clear(&s.names);
  pm_name_set_clear(&s.used);
  return rc;
}
