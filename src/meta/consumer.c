/* Consumer files (consumer.h). */
#include "meta/consumer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meta/json_util.h"
#include "meta/schema.h"

#define CONSUMER_PREFIX "consumer-"

static char *consumer_dir(const pm_snapshot_manager *m) {
  char *b = pm_branch_dir(m->table_root, m->branch);
  if (!b) return NULL;
  size_t n = strlen(b) + 16;
  char *p = malloc(n);
  if (p) snprintf(p, n, "%s/consumer", b);
  free(b);
  return p;
}

char *pm_consumer_path(const pm_snapshot_manager *m, const char *id) {
  char *d = consumer_dir(m);
  if (!d) return NULL;
  size_t n = strlen(d) + strlen(id) + sizeof CONSUMER_PREFIX + 2;
  char *p = malloc(n);
  if (p) snprintf(p, n, "%s/" CONSUMER_PREFIX "%s", d, id);
  free(d);
  return p;
}

static int check_id(const char *id, pm_error *err) {
  if (!id || !*id || strchr(id, '/') || !strcmp(id, ".") || !strcmp(id, ".."))
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "consumer id '%s' is not a valid file name", id ? id : "");
  return 0;
}

static int read_path(pm_fs *fs, const char *path, int64_t *next, pm_error *err) {
  pm_buf b;
  pm_buf_init(&b);
  int rc = pm_fs_read_file(fs, path, &b, 1 << 20, err);
  json_t *j = NULL;
  if (!rc) rc = pm_json_parse((const char *)b.data, b.len, path, &j, err);
  pm_buf_free(&b);
  if (!rc && !json_is_object(j)) rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: consumer file is not a JSON object", path);
  if (!rc) rc = pm_json_req_int64(j, "nextSnapshot", path, next, err);
  json_decref(j);
  return rc;
}

int pm_consumer_read(const pm_snapshot_manager *m, const char *id, int64_t *next_snapshot, pm_error *err) {
  PM_TRY(check_id(id, err));
  char *p = pm_consumer_path(m, id);
  if (!p) return PM_NOMEM(err);
  int rc = read_path(m->fs, p, next_snapshot, err);
  free(p);
  return rc;
}

void pm_consumers_free(pm_consumer *c, size_t n) {
  if (!c) return;
  for (size_t i = 0; i < n; i++) free(c[i].id);
  free(c);
}

int pm_consumer_list(const pm_snapshot_manager *m, pm_consumer **out, size_t *n, pm_error *err) {
  *out = NULL;
  *n = 0;
  char *dir = consumer_dir(m);
  if (!dir) return PM_NOMEM(err);
  char **names = NULL;
  size_t nn = 0;
  int rc = pm_fs_list(m->fs, dir, CONSUMER_PREFIX, &names, &nn, err);
  if (rc == PAIMON_ERR_NOT_FOUND) {
    pm_error_clear(err);
    free(dir);
    return 0;
  }
  pm_consumer *cs = rc || !nn ? NULL : calloc(nn, sizeof *cs);
  if (!rc && nn && !cs) rc = PM_NOMEM(err);
  size_t k = 0;
  for (size_t i = 0; !rc && i < nn; i++) {
    const char *id = names[i] + strlen(CONSUMER_PREFIX);
    if (!*id || id[0] == '.' || strstr(id, ".tmp")) continue; /* temporary files of a writer */
    size_t plen = strlen(dir) + strlen(names[i]) + 2;
    char *p = malloc(plen);
    if (!p) {
      rc = PM_NOMEM(err);
      break;
    }
    snprintf(p, plen, "%s/%s", dir, names[i]);
    int64_t next = 0;
    pm_file_stat st;
    rc = read_path(m->fs, p, &next, err);
    if (!rc) rc = pm_fs_stat(m->fs, p, &st, err);
    free(p);
    if (rc == PAIMON_ERR_NOT_FOUND) { /* deleted meanwhile */
      pm_error_clear(err);
      rc = 0;
      continue;
    }
    if (rc) break;
    cs[k].id = strdup(id);
    if (!cs[k].id) {
      rc = PM_NOMEM(err);
      break;
    }
    cs[k].next_snapshot = next;
    cs[k].mtime_millis = st.mtime_millis;
    k++;
  }
  pm_free_names(names, nn);
  free(dir);
  if (rc) {
    pm_consumers_free(cs, k);
    return rc;
  }
  *out = cs;
  *n = k;
  return 0;
}

int pm_consumer_min_next(const pm_snapshot_manager *m, int64_t *min_next, int *found, pm_error *err) {
  pm_consumer *cs = NULL;
  size_t n = 0;
  *found = 0;
  PM_TRY(pm_consumer_list(m, &cs, &n, err));
  for (size_t i = 0; i < n; i++)
    if (!*found || cs[i].next_snapshot < *min_next) {
      *min_next = cs[i].next_snapshot;
      *found = 1;
    }
  pm_consumers_free(cs, n);
  return 0;
}

int pm_consumer_reset(const pm_snapshot_manager *m, const char *id, int64_t next, pm_error *err) {
  PM_TRY(check_id(id, err));
  if (next < 0) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "consumer %s: next snapshot %lld is negative", id,
                                 (long long)next);
  char *dir = consumer_dir(m);
  char *p = pm_consumer_path(m, id);
  int rc = (!dir || !p) ? PM_NOMEM(err) : pm_fs_mkdirs(m->fs, dir, err);
  if (!rc) {
    char json[64];
    int len = snprintf(json, sizeof json, "{\n  \"nextSnapshot\" : %lld\n}", (long long)next);
    rc = pm_fs_write_file(m->fs, p, json, (size_t)len, PM_OUT_OVERWRITE, err);
  }
  free(dir);
  free(p);
  return rc;
}

int pm_consumer_delete(const pm_snapshot_manager *m, const char *id, int *existed, pm_error *err) {
  PM_TRY(check_id(id, err));
  if (existed) *existed = 1;
  char *p = pm_consumer_path(m, id);
  if (!p) return PM_NOMEM(err);
  int rc = pm_fs_delete(m->fs, p, err);
  if (rc == PAIMON_ERR_NOT_FOUND) {
    pm_error_clear(err);
    rc = 0;
    if (existed) *existed = 0;
  }
  free(p);
  return rc;
}

int pm_consumer_expire(const pm_snapshot_manager *m, int64_t expire_before_ms, size_t *n_deleted, pm_error *err) {
  pm_consumer *cs = NULL;
  size_t n = 0, del = 0;
  if (n_deleted) *n_deleted = 0;
  PM_TRY(pm_consumer_list(m, &cs, &n, err));
  int rc = 0;
  for (size_t i = 0; !rc && i < n; i++) {
    if (cs[i].mtime_millis >= expire_before_ms) continue;
    int existed = 0;
    rc = pm_consumer_delete(m, cs[i].id, &existed, err);
    if (!rc && existed) del++;
  }
  pm_consumers_free(cs, n);
  if (n_deleted) *n_deleted = del;
  return rc;
}
