/* Rollback (see rollback.h). */
#include "table/rollback.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/fs.h"
#include "meta/tag.h"

static int delete_quietly(pm_fs *fs, const char *path, pm_error *err) {
  int rc = pm_fs_delete(fs, path, err);
  if (rc == PAIMON_ERR_NOT_FOUND) {
    pm_error_clear(err);
    rc = 0;
  }
  return rc;
}

/* From the latest down: LATEST = the id below, then snapshot-<id> deleted. Each state a stop
 * leaves is one a crashed commit leaves (LATEST at most one behind the highest snapshot, which
 * Java's reader resolves by listing); Java writes LATEST = target once up front instead. */
static int clean_snapshots(const pm_snapshot_manager *m, int64_t target, pm_error *err) {
  int64_t *ids = NULL;
  size_t n = 0;
  PM_TRY(pm_snapshot_list_ids(m, &ids, &n, err));
  int rc = 0, any = 0;
  for (size_t i = n; !rc && i-- > 0;) {
    if (ids[i] <= target) break;
    any = 1;
    int64_t below = i > 0 && ids[i - 1] > target ? ids[i - 1] : target;
    rc = pm_snapshot_write_hint(m, "LATEST", below, err);
    char *p = rc ? NULL : pm_snapshot_path(m, ids[i]);
    if (!rc) rc = p ? delete_quietly(m->fs, p, err) : PM_NOMEM(err);
    free(p);
  }
  if (!rc && !any) rc = pm_snapshot_write_hint(m, "LATEST", target, err);
  free(ids);
  return rc;
}

static int parse_id(const char *name, const char *prefix, int64_t *id) {
  size_t k = strlen(prefix);
  if (strncmp(name, prefix, k) || !name[k]) return 0;
  char *end;
  long long v = strtoll(name + k, &end, 10);
  if (*end || v < 0) return 0;
  *id = v;
  return 1;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* changelog/changelog-<id> > target deleted from the latest down, after changelog/LATEST is set. */
static int clean_changelogs(const pm_snapshot_manager *m, int64_t target, pm_error *err) {
  char *bdir = pm_branch_dir(m->table_root, m->branch);
  if (!bdir) return PM_NOMEM(err);
  size_t len = strlen(bdir) + 32;
  char *dir = malloc(len);
  if (!dir) {
    free(bdir);
    return PM_NOMEM(err);
  }
  snprintf(dir, len, "%s/changelog", bdir);
  free(bdir);
  char **names = NULL;
  size_t n = 0;
  int rc = pm_fs_list(m->fs, dir, "changelog-", &names, &n, err);
  if (rc == PAIMON_ERR_NOT_FOUND) {
    pm_error_clear(err);
    rc = 0;
  }
  int64_t *ids = rc ? NULL : calloc(n + 1, sizeof *ids);
  if (!rc && !ids) rc = PM_NOMEM(err);
  size_t k = 0;
  for (size_t i = 0; !rc && i < n; i++)
    if (parse_id(names[i], "changelog-", &ids[k])) k++;
  pm_free_names(names, n);
  if (!rc && k) qsort(ids, k, sizeof *ids, cmp_i64);
  if (!rc && k && ids[k - 1] > target) {
    int64_t to = ids[0] > target + 1 ? ids[0] : target + 1;
    char hint[64], *hp = malloc(strlen(dir) + 16);
    if (!hp) rc = PM_NOMEM(err);
    else {
      snprintf(hp, strlen(dir) + 16, "%s/LATEST", dir);
      snprintf(hint, sizeof hint, "%" PRId64, to == ids[0] ? (int64_t)-1 : to - 1);
      rc = pm_fs_write_file(m->fs, hp, hint, strlen(hint), PM_OUT_OVERWRITE, err);
      free(hp);
    }
    for (size_t i = k; !rc && i-- > 0 && ids[i] > target;) {
      char *p = malloc(strlen(dir) + 40);
      if (!p) rc = PM_NOMEM(err);
      else {
        snprintf(p, strlen(dir) + 40, "%s/changelog-%" PRId64, dir, ids[i]);
        rc = delete_quietly(m->fs, p, err);
        free(p);
      }
    }
  }
  free(ids);
  free(dir);
  return rc;
}

static int clean_tags(const pm_snapshot_manager *m, int64_t target, pm_error *err) {
  char **names = NULL;
  size_t n = 0;
  PM_TRY(pm_tag_list(m, &names, &n, err));
  int rc = 0;
  for (size_t i = 0; !rc && i < n; i++) {
    pm_snapshot *s = NULL;
    rc = pm_tag_read(m, names[i], &s, err);
    if (rc == PAIMON_ERR_NOT_FOUND) { /* deleted meanwhile */
      pm_error_clear(err);
      rc = 0;
      continue;
    }
    if (!rc && s->id > target) {
      char *p = pm_tag_path(m, names[i]);
      rc = p ? delete_quietly(m->fs, p, err) : PM_NOMEM(err);
      free(p);
    }
    pm_snapshot_free(s);
  }
  pm_free_names(names, n);
  return rc;
}

static int clean_larger_than(const pm_snapshot_manager *m, int64_t target, pm_error *err) {
  PM_TRY(clean_snapshots(m, target, err));
  PM_TRY(clean_changelogs(m, target, err));
  return clean_tags(m, target, err);
}

int pm_rollback_to_tag(const pm_snapshot_manager *m, const char *tag, pm_error *err) {
  PM_TRY(pm_tag_validate_name(tag, "tag name", err));
  pm_snapshot *s = NULL;
  int rc = pm_tag_read(m, tag, &s, err);
  if (rc == PAIMON_ERR_NOT_FOUND) {
    pm_error_clear(err);
    return pm_errorf(err, PAIMON_ERR_NOT_FOUND, "rollback: tag '%s' doesn't exist", tag);
  }
  if (rc) return rc;
  rc = clean_larger_than(m, s->id, err);
  int exists = 0;
  if (!rc) rc = pm_snapshot_exists(m, s->id, &exists, err);
  if (!rc && !exists) {
    /* the tag's snapshot back as the snapshot file (without the tag keys), then EARLIEST */
    free(s->tag_create_time_json);
    free(s->tag_time_retained_json);
    s->tag_create_time_json = s->tag_time_retained_json = NULL;
    pm_buf b;
    pm_buf_init(&b);
    char *p = pm_snapshot_path(m, s->id);
    rc = p ? pm_snapshot_to_json(s, &b, err) : PM_NOMEM(err);
    if (!rc) rc = pm_fs_write_file(m->fs, p, b.data, b.len, PM_OUT_CREATE_IF_ABSENT, err);
    if (rc == PAIMON_ERR_CONFLICT) { /* written meanwhile (an earlier interrupted run) */
      pm_error_clear(err);
      rc = 0;
    }
    if (!rc) rc = pm_snapshot_write_hint(m, "EARLIEST", s->id, err);
    free(p);
    pm_buf_free(&b);
  }
  pm_snapshot_free(s);
  return rc;
}

int pm_rollback_to_snapshot(const pm_snapshot_manager *m, int64_t id, pm_error *err) {
  int exists = 0;
  PM_TRY(pm_snapshot_exists(m, id, &exists, err));
  if (exists) return clean_larger_than(m, id, err);
  /* Java: a tag of that snapshot id (the first by name) */
  char **names = NULL;
  size_t n = 0;
  PM_TRY(pm_tag_list(m, &names, &n, err));
  int rc = 0;
  const char *found = NULL;
  for (size_t i = 0; !rc && !found && i < n; i++) {
    pm_snapshot *s = NULL;
    rc = pm_tag_read(m, names[i], &s, err);
    if (!rc && s->id == id) found = names[i];
    pm_snapshot_free(s);
  }
  if (!rc && found) rc = pm_rollback_to_tag(m, found, err);
  else if (!rc)
    rc = pm_errorf(err, PAIMON_ERR_NOT_FOUND, "rollback: snapshot %" PRId64 " doesn't exist (nor a tag of it)", id);
  pm_free_names(names, n);
  return rc;
}

int pm_rollback_to_timestamp(const pm_snapshot_manager *m, int64_t ts_millis, pm_error *err) {
  pm_snapshot *s = NULL;
  PM_TRY(pm_snapshot_read_at_or_before(m, ts_millis, &s, err));
  if (!s)
    return pm_errorf(err, PAIMON_ERR_NOT_FOUND, "rollback: no snapshot at or before timestamp %" PRId64 " ms",
                     ts_millis);
  int rc = clean_larger_than(m, s->id, err);
  pm_snapshot_free(s);
  return rc;
}
