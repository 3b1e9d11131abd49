/* Tag create / rename / delete (see tag.h). */
#include "meta/tag.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "io/fs.h"

int pm_tag_validate_name(const char *name, const char *what, pm_error *err) {
  if (!what) what = "tag name";
  int blank = 1;
  for (const char *p = name; p && *p; p++)
    if (!isspace((unsigned char)*p)) blank = 0;
  if (!name || blank) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s shouldn't be blank", what);
  if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s '%s' is not a valid file name (no '/', '.' or '..')",
                     what, name);
  return 0;
}

int pm_tag_set_retention(pm_snapshot *s, int64_t now_us, int64_t retained_ms, pm_error *err) {
  time_t secs = (time_t)(now_us / 1000000);
  int64_t micros = now_us % 1000000;
  struct tm tm;
  if (!localtime_r(&secs, &tm)) return pm_errorf(err, PAIMON_ERR_IO, "tag create time: localtime failed");
  char t[128], r[64];
  int n = snprintf(t, sizeof t, "[%d,%d,%d,%d,%d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                   tm.tm_min);
  /* Jackson's LocalDateTime array: second and nano only when non-zero (second when either is). */
  if (tm.tm_sec || micros) n += snprintf(t + n, sizeof t - (size_t)n, ",%d", tm.tm_sec);
  if (micros) n += snprintf(t + n, sizeof t - (size_t)n, ",%" PRId64, micros * 1000);
  snprintf(t + n, sizeof t - (size_t)n, "]");
  snprintf(r, sizeof r, "%" PRId64 ".%03" PRId64 "000000", retained_ms / 1000, retained_ms % 1000);
  char *a = strdup(t), *b = strdup(r);
  if (!a || !b) {
    free(a);
    free(b);
    return PM_NOMEM(err);
  }
  free(s->tag_create_time_json);
  free(s->tag_time_retained_json);
  s->tag_create_time_json = a;
  s->tag_time_retained_json = b;
  return 0;
}

static int64_t now_micros(void) {
  struct timeval tv;
  gettimeofday(&tv, NULL);
  return (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
}

static int tag_dir_mkdirs(const pm_snapshot_manager *m, pm_error *err) {
  char *p = pm_tag_path(m, "x");
  if (!p) return PM_NOMEM(err);
  char *slash = strrchr(p, '/');
  if (slash) *slash = 0;
  int rc = pm_fs_mkdirs(m->fs, p, err);
  free(p);
  return rc;
}

/* Publishes bytes as tag `name` create-if-absent; CONFLICT when it exists. */
static int publish(const pm_snapshot_manager *m, const char *name, const void *data, size_t len, pm_error *err) {
  PM_TRY(tag_dir_mkdirs(m, err));
  char *path = pm_tag_path(m, name);
  if (!path) return PM_NOMEM(err);
  int rc = pm_fs_write_file(m->fs, path, data, len, PM_OUT_CREATE_IF_ABSENT, err);
  if (rc == PAIMON_ERR_CONFLICT) {
    pm_error_clear(err);
    rc = pm_errorf(err, PAIMON_ERR_CONFLICT, "tag '%s' already exists (%s)", name, path);
  }
  free(path);
  return rc;
}

int pm_tag_create_from(const pm_snapshot_manager *m, const char *name, const pm_snapshot *s, int64_t retained_ms,
                       int ignore_if_exists, int *created, pm_error *err) {
  if (created) *created = 0;
  PM_TRY(pm_tag_validate_name(name, "tag name", err));
  int exists = 0;
  PM_TRY(pm_tag_exists(m, name, &exists, err));
  if (exists) {
    if (ignore_if_exists) return 0;
    return pm_errorf(err, PAIMON_ERR_CONFLICT, "tag '%s' already exists", name);
  }
  pm_snapshot *copy = NULL;
  PM_TRY(pm_snapshot_copy(s, &copy, err));
  /* Without a retention Java writes the plain snapshot JSON (readers <= 0.7 cannot read the tag keys). */
  free(copy->tag_create_time_json);
  free(copy->tag_time_retained_json);
  copy->tag_create_time_json = copy->tag_time_retained_json = NULL;
  int rc = retained_ms >= 0 ? pm_tag_set_retention(copy, now_micros(), retained_ms, err) : 0;
  pm_buf b;
  pm_buf_init(&b);
  if (!rc) rc = pm_snapshot_to_json(copy, &b, err);
  if (!rc) rc = publish(m, name, b.data, b.len, err);
  if (rc == PAIMON_ERR_CONFLICT && ignore_if_exists) {
    pm_error_clear(err);
    rc = 0;
  } else if (!rc && created) {
    *created = 1;
  }
  pm_buf_free(&b);
  pm_snapshot_free(copy);
  return rc;
}

int pm_tag_create(const pm_snapshot_manager *m, const char *name, int64_t snapshot_id, int64_t retained_ms,
                  int ignore_if_exists, int *created, pm_error *err) {
  if (created) *created = 0;
  PM_TRY(pm_tag_validate_name(name, "tag name", err));
  pm_snapshot *s = NULL;
  int rc;
  if (snapshot_id < 0) {
    rc = pm_snapshot_read_latest_checked(m, &s, err);
    if (!rc && !s)
      rc = pm_errorf(err, PAIMON_ERR_NOT_FOUND, "cannot create tag '%s': the table has no snapshot", name);
  } else {
    rc = pm_snapshot_read(m, snapshot_id, &s, err);
    if (rc == PAIMON_ERR_NOT_FOUND) {
      pm_error_clear(err);
      rc = pm_errorf(err, PAIMON_ERR_NOT_FOUND, "cannot create tag '%s': snapshot %" PRId64 " doesn't exist", name,
                     snapshot_id);
    }
  }
  if (!rc) rc = pm_tag_create_from(m, name, s, retained_ms, ignore_if_exists, created, err);
  pm_snapshot_free(s);
  return rc;
}

int pm_tag_rename(const pm_snapshot_manager *m, const char *from, const char *to, pm_error *err) {
  PM_TRY(pm_tag_validate_name(from, "original tag name", err));
  PM_TRY(pm_tag_validate_name(to, "new tag name", err));
  char *src = pm_tag_path(m, from);
  if (!src) return PM_NOMEM(err);
  pm_buf b;
  pm_buf_init(&b);
  int rc = pm_fs_read_file(m->fs, src, &b, 0, err);
  if (rc == PAIMON_ERR_NOT_FOUND) {
    pm_error_clear(err);
    rc = pm_errorf(err, PAIMON_ERR_NOT_FOUND, "tag '%s' doesn't exist", from);
  }
  if (!rc && !strcmp(from, to)) rc = pm_errorf(err, PAIMON_ERR_CONFLICT, "tag '%s' already exists", to);
  /* The target is published create-if-absent first (a crash then leaves both names, never none). */
  if (!rc) rc = publish(m, to, b.data, b.len, err);
  if (!rc) rc = pm_fs_delete(m->fs, src, err);
  pm_buf_free(&b);
  free(src);
  return rc;
}

int pm_tag_delete_file(const pm_snapshot_manager *m, const char *name, pm_error *err) {
  PM_TRY(pm_tag_validate_name(name, "tag name", err));
  char *path = pm_tag_path(m, name);
  if (!path) return PM_NOMEM(err);
  int rc = pm_fs_delete(m->fs, path, err);
  if (rc == PAIMON_ERR_NOT_FOUND) {
    pm_error_clear(err);
    rc = pm_errorf(err, PAIMON_ERR_NOT_FOUND, "tag '%s' doesn't exist", name);
  }
  free(path);
  return rc;
}
