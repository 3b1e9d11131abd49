/* Branch create / delete / fast-forward (see branch.h). */
#include "meta/branch.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/fs.h"

/* ------------------------------------------------------------ paths */

/* <branch dir>/<sub>[/<name>], malloc'd. */
static char *meta_file(const char *root, const char *branch, const char *sub, const char *name) {
  char *b = pm_branch_dir(root, branch);
  if (!b) return NULL;
  size_t n = strlen(b) + strlen(sub) + (name ? strlen(name) : 0) + 4;
  char *p = malloc(n);
  if (p) {
    if (name) snprintf(p, n, "%s/%s/%s", b, sub, name);
    else snprintf(p, n, "%s/%s", b, sub);
  }
  free(b);
  return p;
}

static char *schema_file(const char *root, const char *branch, int64_t id) {
  char name[40];
  snprintf(name, sizeof name, "schema-%" PRId64, id);
  return meta_file(root, branch, "schema", name);
}

static char *snapshot_file(const char *root, const char *branch, int64_t id) {
  char name[40];
  snprintf(name, sizeof name, "snapshot-%" PRId64, id);
  return meta_file(root, branch, "snapshot", name);
}

static int mkdir_of(pm_fs *fs, const char *root, const char *branch, const char *sub, pm_error *err) {
  char *d = meta_file(root, branch, sub, NULL);
  if (!d) return PM_NOMEM(err);
  int rc = pm_fs_mkdirs(fs, d, err);
  free(d);
  return rc;
}

/* Copies file from -> to (whole, published atomically with mode). */
static int copy_file(pm_fs *fs, const char *from, const char *to, pm_out_mode mode, pm_error *err) {
  pm_buf b;
  pm_buf_init(&b);
  int rc = pm_fs_read_file(fs, from, &b, 0, err);
  if (!rc) rc = pm_fs_write_file(fs, to, b.data, b.len, mode, err);
  pm_buf_free(&b);
  return rc;
}

/* Deletes path; a missing file is fine. */
static int delete_quietly(pm_fs *fs, const char *path, pm_error *err) {
  int rc = pm_fs_delete(fs, path, err);
  if (rc == PAIMON_ERR_NOT_FOUND) {
    pm_error_clear(err);
    rc = 0;
  }
  return rc;
}

static const char *shown(const char *branch) { return pm_branch_is_main(branch) ? "main" : branch; }

/* ------------------------------------------------------------ names */

int pm_branch_validate_name(const char *name, pm_error *err) {
  int blank = 1, digits = 1;
  for (const char *p = name; p && *p; p++) {
    if (!isspace((unsigned char)*p)) blank = 0;
    if (!isdigit((unsigned char)*p)) digits = 0;
  }
  if (!name || blank) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "branch name '%s' is blank", name ? name : "");
  if (!strcmp(name, "main"))
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "branch name 'main' is the default branch and cannot be used");
  if (digits)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "branch name cannot be pure numeric string but is '%s'", name);
  if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "branch name '%s' is not a valid directory name (no '/', '.' or '..')",
                     name);
  return 0;
}

int pm_branch_exists(pm_fs *fs, const char *table_root, const char *name, int *exists, pm_error *err) {
  *exists = 0;
  char *d = pm_branch_dir(table_root, name);
  if (!d) return PM_NOMEM(err);
  int rc = pm_fs_exists(fs, d, exists, err);
  free(d);
  return rc;
}

/* ------------------------------------------------------------ create */

/* Copies the source's schemas 0..upto (those that exist) into branch `name`, create-if-absent. */
static int copy_schemas(pm_fs *fs, const char *root, const char *source, const char *name, int64_t upto,
                        pm_error *err) {
  pm_schema_manager sm = pm_schema_manager_of(fs, root, source);
  int64_t *ids = NULL;
  size_t n = 0;
  PM_TRY(pm_schema_list_ids(&sm, &ids, &n, err));
  int rc = n ? mkdir_of(fs, root, name, "schema", err) : 0;
  for (size_t i = 0; !rc && i < n && ids[i] <= upto; i++) {
    char *from = schema_file(root, source, ids[i]), *to = schema_file(root, name, ids[i]);
    rc = from && to ? copy_file(fs, from, to, PM_OUT_CREATE_IF_ABSENT, err) : PM_NOMEM(err);
    free(from);
    free(to);
  }
  free(ids);
  return rc;
}

/* Publishes snapshot s of the source as the branch's only snapshot (the source's file copied
 * when it exists, else s's JSON) and the branch's hints. */
static int write_branch_snapshot(pm_fs *fs, const char *root, const char *source, const char *name,
                                 const pm_snapshot *s, pm_error *err) {
  PM_TRY(mkdir_of(fs, root, name, "snapshot", err));
  char *from = snapshot_file(root, source, s->id), *to = snapshot_file(root, name, s->id);
  int rc = from && to ? 0 : PM_NOMEM(err);
  int exists = 0;
  if (!rc) rc = pm_fs_exists(fs, from, &exists, err);
  if (!rc && exists) {
    rc = copy_file(fs, from, to, PM_OUT_CREATE_IF_ABSENT, err);
  } else if (!rc) {
    pm_buf b;
    pm_buf_init(&b);
    rc = pm_snapshot_to_json(s, &b, err);
    if (!rc) rc = pm_fs_write_file(fs, to, b.data, b.len, PM_OUT_CREATE_IF_ABSENT, err);
    pm_buf_free(&b);
  }
  free(from);
  free(to);
  pm_snapshot_manager bm = pm_snapshot_manager_of(fs, root, name);
  if (!rc) rc = pm_snapshot_write_hint(&bm, "EARLIEST", s->id, err);
  if (!rc) rc = pm_snapshot_write_hint(&bm, "LATEST", s->id, err);
  return rc;
}

int pm_branch_create(pm_fs *fs, const char *table_root, const char *source, const char *name, const char *from_tag,
                     int64_t snapshot_id, int ignore_if_exists, int *created, pm_error *err) {
  if (created) *created = 0;
  int exists = 0;
  if (name && !pm_branch_is_main(name)) PM_TRY(pm_branch_exists(fs, table_root, name, &exists, err));
  if (exists && ignore_if_exists) return 0;
  PM_TRY(pm_branch_validate_name(name, err));
  if (exists) return pm_errorf(err, PAIMON_ERR_CONFLICT, "branch '%s' already exists", name);
  pm_snapshot_manager sm = pm_snapshot_manager_of(fs, table_root, source);
  pm_snapshot *s = NULL;
  int rc = 0;
  if (from_tag) {
    rc = pm_tag_read(&sm, from_tag, &s, err);
    if (rc == PAIMON_ERR_NOT_FOUND) {
      pm_error_clear(err);
      rc = pm_errorf(err, PAIMON_ERR_NOT_FOUND, "cannot create branch '%s': tag '%s' doesn't exist (branch %s)", name,
                     from_tag, shown(source));
    }
    if (!rc) { /* Java's trimToSnapshot: the tag's own keys dropped */
      free(s->tag_create_time_json);
      free(s->tag_time_retained_json);
      s->tag_create_time_json = s->tag_time_retained_json = NULL;
    }
  } else if (snapshot_id >= 0) {
    rc = pm_snapshot_read(&sm, snapshot_id, &s, err);
    if (rc == PAIMON_ERR_NOT_FOUND) {
      pm_error_clear(err);
      rc = pm_errorf(err, PAIMON_ERR_NOT_FOUND, "cannot create branch '%s': snapshot %" PRId64 " doesn't exist", name,
                     snapshot_id);
    }
  }
  int64_t upto = INT64_MAX;
  if (!rc && s) upto = s->schema_id;
  if (!rc && !s) { /* empty branch: the latest schema must exist */
    pm_schema_manager scm = pm_schema_manager_of(fs, table_root, source);
    pm_table_schema *latest = NULL;
    rc = pm_schema_read_latest(&scm, &latest, err);
    if (!rc) upto = latest->id;
    pm_schema_free(latest);
  }
  if (!rc) rc = copy_schemas(fs, table_root, source, name, upto, err);
  if (!rc && s) rc = write_branch_snapshot(fs, table_root, source, name, s, err);
  if (!rc && from_tag) {
    pm_snapshot_manager bm = pm_snapshot_manager_of(fs, table_root, name);
    char *from = pm_tag_path(&sm, from_tag), *to = pm_tag_path(&bm, from_tag);
    rc = from && to ? mkdir_of(fs, table_root, name, "tag", err) : PM_NOMEM(err);
    if (!rc) rc = copy_file(fs, from, to, PM_OUT_CREATE_IF_ABSENT, err);
    free(from);
    free(to);
  }
  if (rc == PAIMON_ERR_CONFLICT) { /* a racing creator published a file first */
    pm_error_clear(err);
    rc = pm_errorf(err, PAIMON_ERR_CONFLICT, "branch '%s' already exists (created concurrently)", name);
  } else if (rc && rc != PAIMON_ERR_NOT_FOUND) {
    pm_error_prefix(err, "creating branch '%s' of %s: ", name, table_root);
  }
  if (!rc && created) *created = 1;
  pm_snapshot_free(s);
  return rc;
}

/* ------------------------------------------------------------ delete */

/* Deletes the snapshots of `branch` with id >= from (highest first): LATEST first, EARLIEST
 * before the lowest remaining one when none stays. */
static int delete_snapshots_from(pm_fs *fs, const char *root, const char *branch, int64_t from, pm_error *err) {
  pm_snapshot_manager m = pm_snapshot_manager_of(fs, root, branch);
  int64_t *ids = NULL;
  size_t n = 0;
  PM_TRY(pm_snapshot_list_ids(&m, &ids, &n, err));
  char *latest = meta_file(root, branch, "snapshot", "LATEST");
  char *earliest = meta_file(root, branch, "snapshot", "EARLIEST");
  int rc = latest && earliest ? delete_quietly(fs, latest, err) : PM_NOMEM(err);
  for (size_t i = n; !rc && i-- > 0 && ids[i] >= from;) {
    if (i == 0) rc = delete_quietly(fs, earliest, err);
    char *p = snapshot_file(root, branch, ids[i]);
    if (!rc) rc = p ? delete_quietly(fs, p, err) : PM_NOMEM(err);
    free(p);
  }
  free(latest);
  free(earliest);
  free(ids);
  return rc;
}

/* Deletes the tags of `branch` whose snapshot id >= from (from <= 0: every tag). */
static int delete_tags_from(pm_fs *fs, const char *root, const char *branch, int64_t from, pm_error *err) {
  pm_snapshot_manager m = pm_snapshot_manager_of(fs, root, branch);
  char **names = NULL;
  size_t n = 0;
  PM_TRY(pm_tag_list(&m, &names, &n, err));
  int rc = 0;
  for (size_t i = 0; !rc && i < n; i++) {
    int del = from <= 0;
    if (!del) {
      pm_snapshot *t = NULL;
      rc = pm_tag_read(&m, names[i], &t, err);
      if (rc == PAIMON_ERR_NOT_FOUND) { /* deleted meanwhile */
        pm_error_clear(err);
        rc = 0;
      } else if (!rc) {
        del = t->id >= from;
      }
      pm_snapshot_free(t);
    }
    char *p = del && !rc ? pm_tag_path(&m, names[i]) : NULL;
    if (del && !rc) rc = p ? delete_quietly(fs, p, err) : PM_NOMEM(err);
    free(p);
  }
  pm_free_names(names, n);
  return rc;
}

/* Deletes the schemas of `branch` with id >= from (highest first). */
static int delete_schemas_from(pm_fs *fs, const char *root, const char *branch, int64_t from, pm_error *err) {
  pm_schema_manager sm = pm_schema_manager_of(fs, root, branch);
  int64_t *ids = NULL;
  size_t n = 0;
  PM_TRY(pm_schema_list_ids(&sm, &ids, &n, err));
  int rc = 0;
  for (size_t i = n; !rc && i-- > 0 && ids[i] >= from;) {
    char *p = schema_file(root, branch, ids[i]);
    rc = p ? delete_quietly(fs, p, err) : PM_NOMEM(err);
    free(p);
  }
  free(ids);
  return rc;
}

/* Deletes every remaining entry of directory dir (files; subdirectories one level deep, as a
 * branch's changelog/ or consumer/ hold files only) and dir itself. Missing: fine. */
static int delete_dir(pm_fs *fs, const char *dir, pm_error *err) {
  char **names = NULL;
  size_t n = 0;
  int rc = pm_fs_list(fs, dir, NULL, &names, &n, err);
  if (rc == PAIMON_ERR_NOT_FOUND) {
    pm_error_clear(err);
    return 0;
  }
  for (size_t i = 0; !rc && i < n; i++) {
    size_t l = strlen(dir) + strlen(names[i]) + 2;
    char *p = malloc(l);
    if (!p) {
      rc = PM_NOMEM(err);
      break;
    }
    snprintf(p, l, "%s/%s", dir, names[i]);
    pm_file_stat st;
    rc = pm_fs_stat(fs, p, &st, err);
    if (!rc) rc = st.is_dir ? delete_dir(fs, p, err) : delete_quietly(fs, p, err);
    else if (rc == PAIMON_ERR_NOT_FOUND) pm_error_clear(err), rc = 0;
    free(p);
  }
  pm_free_names(names, n);
  if (!rc) rc = delete_quietly(fs, dir, err);
  return rc;
}

int pm_branch_delete(pm_fs *fs, const char *table_root, const char *name, pm_error *err) {
  PM_TRY(pm_branch_validate_name(name, err));
  int exists = 0;
  PM_TRY(pm_branch_exists(fs, table_root, name, &exists, err));
  if (!exists) return pm_errorf(err, PAIMON_ERR_NOT_FOUND, "branch '%s' doesn't exist", name);
  int rc = delete_tags_from(fs, table_root, name, 0, err);
  if (!rc) rc = delete_snapshots_from(fs, table_root, name, 0, err);
  if (!rc) rc = delete_schemas_from(fs, table_root, name, 0, err);
  char *d = pm_branch_dir(table_root, name);
  if (!rc) rc = d ? delete_dir(fs, d, err) : PM_NOMEM(err);
  free(d);
  if (rc) pm_error_prefix(err, "deleting branch '%s' of %s: ", name, table_root);
  return rc;
}

/* ------------------------------------------------------------ fast-forward */

/* Copies every file of <from branch>/<sub>/ whose name starts with prefix into the same place
 * of `to` (overwriting). Snapshot ids ascending when prefix is "snapshot-" or "schema-". */
static int copy_ids(pm_fs *fs, const char *root, const char *from, const char *to, int schemas, pm_error *err) {
  int64_t *ids = NULL;
  size_t n = 0;
  if (schemas) {
    pm_schema_manager sm = pm_schema_manager_of(fs, root, from);
    PM_TRY(pm_schema_list_ids(&sm, &ids, &n, err));
  } else {
    pm_snapshot_manager m = pm_snapshot_manager_of(fs, root, from);
    PM_TRY(pm_snapshot_list_ids(&m, &ids, &n, err));
  }
  int rc = n ? mkdir_of(fs, root, to, schemas ? "schema" : "snapshot", err) : 0;
  for (size_t i = 0; !rc && i < n; i++) {
    char *a = schemas ? schema_file(root, from, ids[i]) : snapshot_file(root, from, ids[i]);
    char *b = schemas ? schema_file(root, to, ids[i]) : snapshot_file(root, to, ids[i]);
    rc = a && b ? copy_file(fs, a, b, PM_OUT_OVERWRITE, err) : PM_NOMEM(err);
    free(a);
    free(b);
  }
  free(ids);
  return rc;
}

static int copy_tags(pm_fs *fs, const char *root, const char *from, const char *to, pm_error *err) {
  pm_snapshot_manager fm = pm_snapshot_manager_of(fs, root, from), tm = pm_snapshot_manager_of(fs, root, to);
  char **names = NULL;
  size_t n = 0;
  PM_TRY(pm_tag_list(&fm, &names, &n, err));
  int rc = n ? mkdir_of(fs, root, to, "tag", err) : 0;
  for (size_t i = 0; !rc && i < n; i++) {
    char *a = pm_tag_path(&fm, names[i]), *b = pm_tag_path(&tm, names[i]);
    rc = a && b ? copy_file(fs, a, b, PM_OUT_OVERWRITE, err) : PM_NOMEM(err);
    free(a);
    free(b);
  }
  pm_free_names(names, n);
  return rc;
}

int pm_branch_fast_forward(pm_fs *fs, const char *table_root, const char *target, const char *name, pm_error *err) {
  if (name && !strcmp(name, "main"))
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "branch name 'main' cannot be fast-forwarded from");
  PM_TRY(pm_branch_validate_name(name, err));
  if (!strcmp(name, shown(target)))
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "fast-forward from the current branch '%s' is not allowed",
                     name);
  int exists = 0;
  PM_TRY(pm_branch_exists(fs, table_root, name, &exists, err));
  if (!exists) return pm_errorf(err, PAIMON_ERR_NOT_FOUND, "branch '%s' doesn't exist", name);
  pm_snapshot_manager bm = pm_snapshot_manager_of(fs, table_root, name);
  int64_t *bids = NULL;
  size_t nb = 0;
  PM_TRY(pm_snapshot_list_ids(&bm, &bids, &nb, err));
  if (!nb) {
    free(bids);
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "cannot fast forward branch '%s': it does not have a snapshot",
                     name);
  }
  int64_t earliest = bids[0], latest = bids[nb - 1];
  free(bids);
  pm_snapshot *es = NULL;
  int rc = pm_snapshot_read(&bm, earliest, &es, err);
  int64_t earliest_schema = rc ? 0 : es->schema_id;
  pm_snapshot_free(es);
  if (rc) return pm_error_prefix(err, "fast-forward to branch '%s': ", name), rc;
  /* 1. the target's LATEST hint, snapshots >= earliest (highest first) */
  rc = delete_snapshots_from(fs, table_root, target, earliest, err);
  /* 2. schemas >= the branch's earliest schema that the remaining snapshots do not use (the
   * one they use is the branch's own copy: overwritten with the same bytes below) */
  pm_snapshot_manager tm = pm_snapshot_manager_of(fs, table_root, target);
  int64_t keep_below = earliest_schema;
  if (!rc) {
    pm_snapshot *rem = NULL;
    rc = pm_snapshot_read_latest(&tm, &rem, err);
    if (!rc && rem && rem->schema_id + 1 > keep_below) keep_below = rem->schema_id + 1;
    pm_snapshot_free(rem);
  }
  if (!rc) rc = delete_schemas_from(fs, table_root, target, keep_below, err);
  /* 3. tags of the deleted snapshots */
  if (!rc) rc = delete_tags_from(fs, table_root, target, earliest > 0 ? earliest : 1, err);
  /* 4. the branch's schemas, snapshots and tags, then the hints */
  if (!rc) rc = copy_ids(fs, table_root, name, target, 1, err);
  if (!rc) rc = copy_ids(fs, table_root, name, target, 0, err);
  int64_t *tids = NULL;
  size_t nt = 0;
  if (!rc) rc = pm_snapshot_list_ids(&tm, &tids, &nt, err);
  if (!rc) rc = pm_snapshot_write_hint(&tm, "EARLIEST", nt ? tids[0] : earliest, err);
  if (!rc) rc = pm_snapshot_write_hint(&tm, "LATEST", latest, err);
  free(tids);
  if (!rc) rc = copy_tags(fs, table_root, name, target, err);
  if (rc) pm_error_prefix(err, "fast-forward of branch %s to branch '%s': ", shown(target), name);
  return rc;
}
