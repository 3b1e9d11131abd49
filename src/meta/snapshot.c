/* Snapshot / tag JSON, hints and lookup (FORMAT.md 3). */
#include "meta/snapshot.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/file.h"
#include "meta/json_util.h"

#define SNAP_FILE_LIMIT (64u * 1024 * 1024)


void pm_snapshot_free(pm_snapshot *s) {
  if (!s) return;
  free(s->uuid);
  free(s->base_manifest_list);
  free(s->delta_manifest_list);
  free(s->changelog_manifest_list);
  free(s->index_manifest);
  free(s->commit_user);
  free(s->writer_version);
  free(s->commit_kind);
  free(s->statistics);
  pm_options_clear(&s->properties);
  free(s->operation);
  free(s->tag_create_time_json);
  free(s->tag_time_retained_json);
  free(s);
}

int pm_snapshot_new(pm_snapshot **out, pm_error *err) {
  pm_snapshot *s = calloc(1, sizeof(*s));
  if (!s) return PM_NOMEM(err);
  s->version = 3;
  pm_options_init(&s->properties);
  *out = s;
  return 0;
}

static int get_str_dup(const json_t *o, const char *key, const char *path, char **dst, int required, pm_error *err) {
  const char *v;
  PM_TRY(required ? pm_json_req_str(o, key, path, &v, err) : pm_json_get_str(o, key, path, &v, err));
  if (v && !(*dst = strdup(v))) return PM_NOMEM(err);
  return 0;
}

static int get_opt_i64(const json_t *o, const char *key, const char *path, int64_t *v, int *has, pm_error *err) {
  return pm_json_get_int64(o, key, path, v, has, err);
}

static char *dump_compact(const json_t *j) { return json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT); }

/* Raw text of a top-level numeric value `"key" : <number>` in json, or NULL. */
static char *raw_value_text(const char *json, size_t len, const char *key) {
  size_t kl = strlen(key);
  for (size_t i = 0; i + kl + 2 < len; i++) {
    if (json[i] != '"' || strncmp(json + i + 1, key, kl) != 0 || json[i + 1 + kl] != '"') continue;
    size_t p = i + kl + 2;
    while (p < len && (json[p] == ' ' || json[p] == '\n' || json[p] == '\t' || json[p] == '\r')) p++;
    if (p >= len || json[p] != ':') continue;
    p++;
    while (p < len && (json[p] == ' ' || json[p] == '\n' || json[p] == '\t' || json[p] == '\r')) p++;
    size_t q = p;
    while (q < len && (isdigit((unsigned char)json[q]) || json[q] == '.' || json[q] == '-' || json[q] == '+' ||
                       json[q] == 'e' || json[q] == 'E'))
      q++;
    if (q == p) return NULL;
    return strndup(json + p, q - p);
  }
  return NULL;
}

int pm_snapshot_parse(const char *json, size_t len, const char *path, pm_snapshot **out, pm_error *err) {
  json_t *root = NULL;
  PM_TRY(pm_json_parse(json, len, path, &root, err));
  pm_snapshot *s = NULL;
  int rc = pm_snapshot_new(&s, err);
  if (rc) {
    json_decref(root);
    return rc;
  }
  int64_t v;
  int has;
  if (!json_is_object(root)) {
    rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: snapshot is not a JSON object", path);
    goto done;
  }
  s->version = 1;
  if ((rc = pm_json_get_int64(root, "version", path, &v, &has, err))) goto done;
  if (has) s->version = (int32_t)v;
  if ((rc = get_str_dup(root, "uuid", path, &s->uuid, 0, err))) goto done;
  if ((rc = pm_json_req_int64(root, "id", path, &s->id, err))) goto done;
  if ((rc = pm_json_req_int64(root, "schemaId", path, &s->schema_id, err))) goto done;
  if ((rc = get_str_dup(root, "baseManifestList", path, &s->base_manifest_list, 1, err))) goto done;
  if ((rc = get_opt_i64(root, "baseManifestListSize", path, &s->base_manifest_list_size, &s->has_base_manifest_list_size, err))) goto done;
  if ((rc = get_str_dup(root, "deltaManifestList", path, &s->delta_manifest_list, 1, err))) goto done;
  if ((rc = get_opt_i64(root, "deltaManifestListSize", path, &s->delta_manifest_list_size, &s->has_delta_manifest_list_size, err))) goto done;
  if ((rc = get_str_dup(root, "changelogManifestList", path, &s->changelog_manifest_list, 0, err))) goto done;
  if ((rc = get_opt_i64(root, "changelogManifestListSize", path, &s->changelog_manifest_list_size, &s->has_changelog_manifest_list_size, err))) goto done;
  if ((rc = get_str_dup(root, "indexManifest", path, &s->index_manifest, 0, err))) goto done;
  if ((rc = get_str_dup(root, "commitUser", path, &s->commit_user, 1, err))) goto done;
  if ((rc = get_str_dup(root, "writerVersion", path, &s->writer_version, 0, err))) goto done;
  if ((rc = pm_json_req_int64(root, "commitIdentifier", path, &s->commit_identifier, err))) goto done;
  if ((rc = get_str_dup(root, "commitKind", path, &s->commit_kind, 1, err))) goto done;
  if ((rc = pm_json_req_int64(root, "timeMillis", path, &s->time_millis, err))) goto done;
  if ((rc = get_opt_i64(root, "totalRecordCount", path, &s->total_record_count, &s->has_total_record_count, err))) goto done;
  if ((rc = get_opt_i64(root, "deltaRecordCount", path, &s->delta_record_count, &s->has_delta_record_count, err))) goto done;
  if ((rc = get_opt_i64(root, "changelogRecordCount", path, &s->changelog_record_count, &s->has_changelog_record_count, err))) goto done;
  if ((rc = get_opt_i64(root, "watermark", path, &s->watermark, &s->has_watermark, err))) goto done;
  if ((rc = get_str_dup(root, "statistics", path, &s->statistics, 0, err))) goto done;
  const json_t *props = json_object_get(root, "properties");
  if (props && !json_is_null(props)) {
    if (!json_is_object(props)) {
      rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: \"properties\" is not an object", path);
      goto done;
    }
    const char *k;
    json_t *pv;
    json_object_foreach((json_t *)props, k, pv) {
      if (!json_is_string(pv)) {
        rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: property \"%s\" is not a string", path, k);
        goto done;
      }
      if ((rc = pm_options_set(&s->properties, k, json_string_value(pv), err))) goto done;
    }
  }
  if ((rc = get_opt_i64(root, "nextRowId", path, &s->next_row_id, &s->has_next_row_id, err))) goto done;
  if ((rc = get_opt_i64(root, "totalFileSize", path, &s->total_file_size, &s->has_total_file_size, err))) goto done;
  if ((rc = get_opt_i64(root, "totalDataFiles", path, &s->total_data_files, &s->has_total_data_files, err))) goto done;
  if ((rc = get_str_dup(root, "operation", path, &s->operation, 0, err))) goto done;
  const json_t *tct = json_object_get(root, "tagCreateTime"), *ttr = json_object_get(root, "tagTimeRetained");
  if (tct && !json_is_null(tct) && !(s->tag_create_time_json = dump_compact(tct))) rc = PM_NOMEM(err);
  if (!rc && ttr && !json_is_null(ttr)) {
    /* keep the number exactly as written (Java: decimal seconds with 9 fraction digits) */
    s->tag_time_retained_json = raw_value_text(json, len, "tagTimeRetained");
    if (!s->tag_time_retained_json) s->tag_time_retained_json = dump_compact(ttr);
    if (!s->tag_time_retained_json) rc = PM_NOMEM(err);
  }
done:
  json_decref(root);
  if (rc) {
    pm_snapshot_free(s);
    return rc;
  }
  *out = s;
  return 0;
}

static int set_str(json_t *o, const char *k, const char *v) { return v ? json_object_set_new(o, k, json_string(v)) : 0; }
static int set_i64(json_t *o, const char *k, int64_t v, int has) { return has ? json_object_set_new(o, k, json_integer(v)) : 0; }

int pm_snapshot_to_json(const pm_snapshot *s, pm_buf *out, pm_error *err) {
  json_t *o = json_object();
  if (!o) return PM_NOMEM(err);
  int bad = 0;
  bad |= set_i64(o, "version", s->version, 1);
  bad |= set_str(o, "uuid", s->uuid);
  bad |= set_i64(o, "id", s->id, 1);
  bad |= set_i64(o, "schemaId", s->schema_id, 1);
  bad |= set_str(o, "baseManifestList", s->base_manifest_list);
  bad |= set_i64(o, "baseManifestListSize", s->base_manifest_list_size, s->has_base_manifest_list_size);
  bad |= set_str(o, "deltaManifestList", s->delta_manifest_list);
  bad |= set_i64(o, "deltaManifestListSize", s->delta_manifest_list_size, s->has_delta_manifest_list_size);
  bad |= set_str(o, "changelogManifestList", s->changelog_manifest_list);
  bad |= set_i64(o, "changelogManifestListSize", s->changelog_manifest_list_size, s->has_changelog_manifest_list_size);
  bad |= set_str(o, "indexManifest", s->index_manifest);
  bad |= set_str(o, "commitUser", s->commit_user);
  bad |= set_str(o, "writerVersion", s->writer_version);
  bad |= set_i64(o, "commitIdentifier", s->commit_identifier, 1);
  bad |= set_str(o, "commitKind", s->commit_kind);
  bad |= set_i64(o, "timeMillis", s->time_millis, 1);
  bad |= set_i64(o, "totalRecordCount", s->total_record_count, s->has_total_record_count);
  bad |= set_i64(o, "deltaRecordCount", s->delta_record_count, s->has_delta_record_count);
  bad |= set_i64(o, "changelogRecordCount", s->changelog_record_count, s->has_changelog_record_count);
  bad |= set_i64(o, "watermark", s->watermark, s->has_watermark);
  bad |= set_str(o, "statistics", s->statistics);
  if (!bad && s->properties.n) {
    json_t *p = json_object();
    bad |= !p;
    for (size_t i = 0; !bad && i < s->properties.n; i++)
      bad |= json_object_set_new(p, s->properties.keys[i], json_string(s->properties.values[i]));
    if (!bad) bad |= json_object_set_new(o, "properties", p);
    else json_decref(p);
  }
  bad |= set_i64(o, "nextRowId", s->next_row_id, s->has_next_row_id);
  bad |= set_i64(o, "totalFileSize", s->total_file_size, s->has_total_file_size);
  bad |= set_i64(o, "totalDataFiles", s->total_data_files, s->has_total_data_files);
  bad |= set_str(o, "operation", s->operation);
  if (!bad && s->tag_create_time_json) {
    json_t *t = json_loads(s->tag_create_time_json, JSON_DECODE_ANY, NULL);
    bad |= !t || json_object_set_new(o, "tagCreateTime", t);
  }
  int rc = bad ? PM_NOMEM(err) : pm_json_pretty(o, out, err);
  json_decref(o);
  if (!rc && s->tag_time_retained_json) {
    /* appended as raw number text (jansson would reformat it): replace the closing "\n}" */
    json_t *chk = json_loads(s->tag_time_retained_json, JSON_DECODE_ANY, NULL);
    int ok = json_is_number(chk);
    json_decref(chk);
    if (!ok) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "tagTimeRetained '%s' is not a number", s->tag_time_retained_json);
    if (out->len < 2 || out->data[out->len - 1] != '}') return pm_errorf(err, PAIMON_ERR_INTERNAL, "unexpected JSON tail");
    out->len -= 2; /* "\n}" */
    const char *mid = ",\n  \"tagTimeRetained\" : ";
    if (pm_buf_append(out, mid, strlen(mid)) ||
        pm_buf_append(out, s->tag_time_retained_json, strlen(s->tag_time_retained_json)) || pm_buf_append(out, "\n}", 2))
      return PM_NOMEM(err);
  }
  return rc;
}

int pm_snapshot_copy(const pm_snapshot *src, pm_snapshot **out, pm_error *err) {
  pm_buf b;
  pm_buf_init(&b);
  int rc = pm_snapshot_to_json(src, &b, err);
  if (!rc) rc = pm_snapshot_parse((const char *)b.data, b.len, "snapshot copy", out, err);
  pm_buf_free(&b);
  return rc;
}

/* ---------------- paths ---------------- */

static char *meta_path(const char *table_root, const char *branch, const char *sub, const char *name) {
  char *b = pm_branch_dir(table_root, branch);
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

char *pm_snapshot_path(const pm_snapshot_manager *m, int64_t id) {
  char name[48];
  snprintf(name, sizeof name, "snapshot-%lld", (long long)id);
  return meta_path(m->table_root, m->branch, "snapshot", name);
}

static int read_json_file(pm_fs *fs, const char *path, const char *what, pm_snapshot **out, pm_error *err) {
  pm_buf b;
  pm_buf_init(&b);
  int rc = pm_fs_read_file(fs, path, &b, SNAP_FILE_LIMIT, err);
  if (rc == PAIMON_ERR_NOT_FOUND) rc = pm_errorf(err, PAIMON_ERR_NOT_FOUND, "%s: %s not found", path, what);
  if (!rc) rc = pm_snapshot_parse((const char *)b.data, b.len, path, out, err);
  pm_buf_free(&b);
  return rc;
}

int pm_snapshot_read(const pm_snapshot_manager *m, int64_t id, pm_snapshot **out, pm_error *err) {
  char *path = pm_snapshot_path(m, id);
  if (!path) return PM_NOMEM(err);
  int rc = read_json_file(m->fs, path, "snapshot", out, err);
  free(path);
  return rc;
}

int pm_snapshot_exists(const pm_snapshot_manager *m, int64_t id, int *exists, pm_error *err) {
  *exists = 0;
  char *path = pm_snapshot_path(m, id);
  if (!path) return PM_NOMEM(err);
  int rc = pm_fs_exists(m->fs, path, exists, err);
  free(path);
  return rc;
}

int pm_snapshot_list_ids(const pm_snapshot_manager *m, int64_t **ids, size_t *n, pm_error *err) {
  char *dir = meta_path(m->table_root, m->branch, "snapshot", NULL);
  if (!dir) return PM_NOMEM(err);
  int rc = pm_meta_list_ids(m->fs, dir, "snapshot-", ids, n, err);
  free(dir);
  return rc;
}

/* Reads a hint file; *id = -1 when missing or unparsable (hints are only hints: the
 * callers fall back to listing). */
static void read_hint(const pm_snapshot_manager *m, const char *name, int64_t *id) {
  *id = -1;
  char *p = meta_path(m->table_root, m->branch, "snapshot", name);
  if (!p) return;
  pm_buf b;
  pm_buf_init(&b);
  pm_error e = {0};
  if (pm_fs_read_file(m->fs, p, &b, 64, &e) == 0 && b.len > 0 && b.len < 32) {
    char tmp[32];
    memcpy(tmp, b.data, b.len);
    tmp[b.len] = 0;
    char *s = tmp, *end;
    while (isspace((unsigned char)*s)) s++;
    long long v = strtoll(s, &end, 10);
    while (isspace((unsigned char)*end)) end++;
    if (end != s && !*end && v >= 0) *id = v;
  }
  pm_buf_free(&b);
  free(p);
}

int pm_snapshot_latest_id(const pm_snapshot_manager *m, int64_t *id, pm_error *err) {
  int64_t h;
  read_hint(m, "LATEST", &h);
  if (h > 0) {
    int next = 1, cur = 0;
    PM_TRY(pm_snapshot_exists(m, h + 1, &next, err));
    if (!next) PM_TRY(pm_snapshot_exists(m, h, &cur, err));
    if (!next && cur) {
      *id = h;
      return 0;
    }
  }
  int64_t *ids = NULL;
  size_t n = 0;
  PM_TRY(pm_snapshot_list_ids(m, &ids, &n, err));
  *id = n ? ids[n - 1] : 0;
  free(ids);
  return 0;
}

int pm_snapshot_earliest_id(const pm_snapshot_manager *m, int64_t *id, pm_error *err) {
  int64_t h;
  read_hint(m, "EARLIEST", &h);
  if (h > 0) {
    int cur = 0;
    PM_TRY(pm_snapshot_exists(m, h, &cur, err));
    if (cur) {
      *id = h;
      return 0;
    }
  }
  int64_t *ids = NULL;
  size_t n = 0;
  PM_TRY(pm_snapshot_list_ids(m, &ids, &n, err));
  *id = n ? ids[0] : 0;
  free(ids);
  return 0;
}

int pm_snapshot_read_latest(const pm_snapshot_manager *m, pm_snapshot **out, pm_error *err) {
  int64_t id;
  *out = NULL;
  PM_TRY(pm_snapshot_latest_id(m, &id, err));
  if (id <= 0) return 0;
  return pm_snapshot_read(m, id, out, err);
}

int pm_snapshot_read_at_or_before(const pm_snapshot_manager *m, int64_t ts_millis, pm_snapshot **out,
                                  pm_error *err) {
  *out = NULL;
  int64_t *ids = NULL;
  size_t n = 0;
  PM_TRY(pm_snapshot_list_ids(m, &ids, &n, err));
  /* binary search over existing ids: timeMillis grows with the id */
  size_t lo = 0, hi = n; /* answer: last index with time <= ts */
  pm_snapshot *best = NULL;
  int rc = 0;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    pm_snapshot *s = NULL;
    rc = pm_snapshot_read(m, ids[mid], &s, err);
    if (rc) break;
    if (s->time_millis <= ts_millis) {
      pm_snapshot_free(best);
      best = s;
      lo = mid + 1;
    } else {
      pm_snapshot_free(s);
      hi = mid;
    }
  }
  free(ids);
  if (rc) {
    pm_snapshot_free(best);
    return rc;
  }
  *out = best;
  return 0;
}

int pm_snapshot_read_latest_checked(const pm_snapshot_manager *m, pm_snapshot **out, pm_error *err) {
  *out = NULL;
  char *hint_path = meta_path(m->table_root, m->branch, "snapshot", "LATEST");
  if (!hint_path) return PM_NOMEM(err);
  pm_buf hb;
  pm_buf_init(&hb);
  pm_error e2 = {0};
  int64_t hint = 0;
  int hr = pm_fs_read_file(m->fs, hint_path, &hb, 64, &e2);
  if (hr && hr != PAIMON_ERR_NOT_FOUND && hr != PAIMON_ERR_UNSUPPORTED) { /* unreadable, not absent or oversized */
    pm_buf_free(&hb);
    free(hint_path);
    return pm_errorf(err, hr, "%s", e2.message);
  }
  if (hr == 0 && hb.len > 0 && hb.len < 32) {
    char tmp[32];
    memcpy(tmp, hb.data, hb.len);
    tmp[hb.len] = 0;
    char *end;
    long long v = strtoll(tmp, &end, 10);
    while (*end == '\n' || *end == ' ' || *end == '\r') end++;
    if (!*end && v > 0) hint = v;
  }
  pm_buf_free(&hb);
  int rc = 0;
  if (hint > 0) {
    int next = 0, cur = 0;
    rc = pm_snapshot_exists(m, hint + 1, &next, err);
    if (!rc && !next) rc = pm_snapshot_exists(m, hint, &cur, err);
    if (!rc && !next && !cur) {
      char *cp = pm_snapshot_path(m, hint);
      rc = pm_errorf(err, PAIMON_ERR_NOT_FOUND, "%s names snapshot %lld but %s does not exist", hint_path,
                     (long long)hint, cp ? cp : "it");
      free(cp);
    }
  }
  free(hint_path);
  if (rc) return rc;
  int64_t latest = 0;
  PM_TRY(pm_snapshot_latest_id(m, &latest, err));
  if (latest == 0) return 0;
  return pm_snapshot_read(m, latest, out, err);
}

int pm_snapshot_read_by_watermark(const pm_snapshot_manager *m, int64_t wm, pm_snapshot **out, pm_error *err) {
  *out = NULL;
  int64_t e = 0, l = 0;
  PM_TRY(pm_snapshot_earliest_id(m, &e, err));
  PM_TRY(pm_snapshot_latest_id(m, &l, err));
  for (int64_t id = e; l > 0 && id <= l; id++) {
    pm_snapshot *s = NULL;
    int rc = pm_snapshot_read(m, id, &s, err);
    if (rc == PAIMON_ERR_NOT_FOUND) continue;
    if (rc) return rc;
    if (s->has_watermark && s->watermark >= wm) {
      *out = s;
      return 0;
    }
    pm_snapshot_free(s);
  }
  return 0;
}

int pm_snapshot_read_latest_of_kind(const pm_snapshot_manager *m, const char *kind, pm_snapshot **out,
                                    pm_error *err) {
  *out = NULL;
  int64_t e = 0, l = 0;
  PM_TRY(pm_snapshot_earliest_id(m, &e, err));
  PM_TRY(pm_snapshot_latest_id(m, &l, err));
  for (int64_t id = l; l > 0 && id >= e; id--) {
    pm_snapshot *s = NULL;
    int rc = pm_snapshot_read(m, id, &s, err);
    if (rc == PAIMON_ERR_NOT_FOUND) continue;
    if (rc) return rc;
    if (s->commit_kind && !strcmp(s->commit_kind, kind)) {
      *out = s;
      return 0;
    }
    pm_snapshot_free(s);
  }
  return 0;
}

int pm_snapshot_write_hint(const pm_snapshot_manager *m, const char *name, int64_t id, pm_error *err) {
  char *p = meta_path(m->table_root, m->branch, "snapshot", name);
  if (!p) return PM_NOMEM(err);
  char tmp[32];
  int n = snprintf(tmp, sizeof tmp, "%lld", (long long)id);
  int rc = pm_fs_write_file(m->fs, p, tmp, (size_t)n, PM_OUT_OVERWRITE, err);
  free(p);
  return rc;
}

int pm_snapshot_commit(const pm_snapshot_manager *m, const pm_snapshot *s, pm_error *err) {
  char *dir = meta_path(m->table_root, m->branch, "snapshot", NULL);
  if (!dir) return PM_NOMEM(err);
  int rc = pm_fs_mkdirs(m->fs, dir, err);
  free(dir);
  if (rc) return rc;
  char *path = pm_snapshot_path(m, s->id);
  if (!path) return PM_NOMEM(err);
  pm_buf b;
  pm_buf_init(&b);
  rc = pm_snapshot_to_json(s, &b, err);
  if (!rc) rc = pm_fs_write_file(m->fs, path, b.data, b.len, PM_OUT_CREATE_IF_ABSENT, err);
  pm_buf_free(&b);
  free(path);
  if (rc) return rc;
  /* hints are best effort: the snapshot file is the commit */
  pm_error ignore = {0};
  pm_snapshot_write_hint(m, "LATEST", s->id, &ignore);
  int64_t e;
  read_hint(m, "EARLIEST", &e);
  if (e < 0) pm_snapshot_write_hint(m, "EARLIEST", s->id, &ignore);
  return 0;
}

/* ---------------- tags ---------------- */

char *pm_tag_path(const pm_snapshot_manager *m, const char *tag) {
  size_t n = strlen(tag) + 8;
  char *name = malloc(n);
  if (!name) return NULL;
  snprintf(name, n, "tag-%s", tag);
  char *p = meta_path(m->table_root, m->branch, "tag", name);
  free(name);
  return p;
}

int pm_tag_read(const pm_snapshot_manager *m, const char *tag, pm_snapshot **out, pm_error *err) {
  char *path = pm_tag_path(m, tag);
  if (!path) return PM_NOMEM(err);
  int rc = read_json_file(m->fs, path, "tag", out, err);
  free(path);
  return rc;
}

int pm_tag_exists(const pm_snapshot_manager *m, const char *tag, int *exists, pm_error *err) {
  *exists = 0;
  char *path = pm_tag_path(m, tag);
  if (!path) return PM_NOMEM(err);
  int rc = pm_fs_exists(m->fs, path, exists, err);
  free(path);
  return rc;
}

int pm_tag_list(const pm_snapshot_manager *m, char ***names, size_t *n, pm_error *err) {
  *names = NULL;
  *n = 0;
  char *dir = meta_path(m->table_root, m->branch, "tag", NULL);
  if (!dir) return PM_NOMEM(err);
  int rc = pm_meta_list_names(m->fs, dir, "tag-", names, n, err);
  free(dir);
  return rc;
}

int pm_tag_write(const pm_snapshot_manager *m, const char *tag, const pm_snapshot *s, pm_error *err) {
  char *dir = meta_path(m->table_root, m->branch, "tag", NULL);
  if (!dir) return PM_NOMEM(err);
  int rc = pm_fs_mkdirs(m->fs, dir, err);
  free(dir);
  if (rc) return rc;
  char *path = pm_tag_path(m, tag);
  if (!path) return PM_NOMEM(err);
  pm_buf b;
  pm_buf_init(&b);
  rc = pm_snapshot_to_json(s, &b, err);
  if (!rc) rc = pm_fs_write_file(m->fs, path, b.data, b.len, PM_OUT_OVERWRITE, err);
  pm_buf_free(&b);
  free(path);
  return rc;
}
