/* TableSchema JSON, options and schema-file management (FORMAT.md 2). */
#include "meta/schema.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io/file.h"
#include "meta/json_util.h"

#define PM_META_FILE_LIMIT (64u * 1024 * 1024)

/* ---------------- options ---------------- */

void pm_options_init(pm_options *o) { memset(o, 0, sizeof(*o)); }

void pm_options_clear(pm_options *o) {
  for (size_t i = 0; i < o->n; i++) {
    free(o->keys[i]);
    free(o->values[i]);
  }
  free(o->keys);
  free(o->values);
  memset(o, 0, sizeof(*o));
}

static ssize_t opt_find(const pm_options *o, const char *key) {
  for (size_t i = 0; i < o->n; i++)
    if (strcmp(o->keys[i], key) == 0) return (ssize_t)i;
  return -1;
}

int pm_options_set(pm_options *o, const char *key, const char *value, pm_error *err) {
  ssize_t i = opt_find(o, key);
  char *v = strdup(value);
  if (!v) return PM_NOMEM(err);
  if (i >= 0) {
    free(o->values[i]);
    o->values[i] = v;
    return 0;
  }
  if (o->n == o->cap) {
    size_t nc = o->cap ? o->cap * 2 : 16;
    char **nk = realloc(o->keys, nc * sizeof(char *));
    if (!nk) {
      free(v);
      return PM_NOMEM(err);
    }
    o->keys = nk;
    char **nv = realloc(o->values, nc * sizeof(char *));
    if (!nv) {
      free(v);
      return PM_NOMEM(err);
    }
    o->values = nv;
    o->cap = nc;
  }
  char *k = strdup(key);
  if (!k) {
    free(v);
    return PM_NOMEM(err);
  }
  o->keys[o->n] = k;
  o->values[o->n] = v;
  o->n++;
  return 0;
}

int pm_options_remove(pm_options *o, const char *key) {
  ssize_t i = opt_find(o, key);
  if (i < 0) return 0;
  free(o->keys[i]);
  free(o->values[i]);
  memmove(o->keys + i, o->keys + i + 1, (o->n - (size_t)i - 1) * sizeof(char *));
  memmove(o->values + i, o->values + i + 1, (o->n - (size_t)i - 1) * sizeof(char *));
  o->n--;
  return 1;
}

int pm_options_copy(const pm_options *src, pm_options *dst, pm_error *err) {
  pm_options_init(dst);
  for (size_t i = 0; i < src->n; i++) {
    int rc = pm_options_set(dst, src->keys[i], src->values[i], err);
    if (rc) {
      pm_options_clear(dst);
      return rc;
    }
  }
  return 0;
}

const char *pm_options_get(const pm_options *o, const char *key) {
  ssize_t i = opt_find(o, key);
  return i >= 0 ? o->values[i] : NULL;
}

const char *pm_options_get_str(const pm_options *o, const char *key, const char *def) {
  const char *v = pm_options_get(o, key);
  return v ? v : def;
}

/* The typed getters parse with meta/core_options.c's parsers (Java's rules). */
int pm_options_get_int64(const pm_options *o, const char *key, int64_t def, int64_t *out, pm_error *err) {
  const char *v = pm_options_get(o, key);
  *out = def;
  return v ? pm_parse_int64(key, v, out, err) : 0;
}

int pm_options_get_int(const pm_options *o, const char *key, int32_t def, int32_t *out, pm_error *err) {
  int64_t v;
  PM_TRY(pm_options_get_int64(o, key, def, &v, err));
  if (v < INT32_MIN || v > INT32_MAX)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option '%s': %lld out of int range", key, (long long)v);
  *out = (int32_t)v;
  return 0;
}

int pm_options_get_bool(const pm_options *o, const char *key, int def, int *out, pm_error *err) {
  const char *v = pm_options_get(o, key);
  *out = def;
  return v ? pm_parse_bool(key, v, out, err) : 0;
}

int pm_options_get_size(const pm_options *o, const char *key, int64_t def, int64_t *out, pm_error *err) {
  const char *v = pm_options_get(o, key);
  *out = def;
  return v ? pm_parse_memory_size(key, v, out, err) : 0;
}

int pm_options_get_duration_ms(const pm_options *o, const char *key, int64_t def, int64_t *out, pm_error *err) {
  const char *v = pm_options_get(o, key);
  *out = def;
  return v ? pm_parse_duration_ms(key, v, out, err) : 0;
}

/* ---------------- schema JSON ---------------- */

void pm_free_strings(char **names, size_t n) {
  if (!names) return;
  for (size_t i = 0; i < n; i++) free(names[i]);
  free(names);
}

void pm_schema_free(pm_table_schema *s) {
  if (!s) return;
  for (size_t i = 0; i < s->n_fields; i++) pm_data_field_clear(&s->fields[i]);
  free(s->fields);
  pm_free_strings(s->partition_keys, s->n_partition_keys);
  pm_free_strings(s->primary_keys, s->n_primary_keys);
  pm_options_clear(&s->options);
  free(s->comment);
  free(s);
}

static int parse_string_array(const json_t *o, const char *key, const char *path, char ***out, size_t *n,
                              pm_error *err) {
  *out = NULL;
  *n = 0;
  const json_t *a = json_object_get(o, key);
  if (!a || json_is_null(a)) return 0;
  if (!json_is_array(a)) return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: \"%s\" is not an array", path, key);
  size_t cnt = json_array_size(a);
  if (!cnt) return 0;
  char **v = calloc(cnt, sizeof(char *));
  if (!v) return PM_NOMEM(err);
  for (size_t i = 0; i < cnt; i++) {
    const json_t *x = json_array_get(a, i);
    if (!json_is_string(x)) {
      pm_free_strings(v, i);
      return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: \"%s\"[%zu] is not a string", path, key, i);
    }
    if (!(v[i] = strdup(json_string_value(x)))) {
      pm_free_strings(v, i);
      return PM_NOMEM(err);
    }
  }
  *out = v;
  *n = cnt;
  return 0;
}

int pm_schema_parse(const char *json, size_t len, const char *path, pm_table_schema **out, pm_error *err) {
  json_t *root = NULL;
  PM_TRY(pm_json_parse(json, len, path, &root, err));
  int rc = 0;
  pm_table_schema *s = calloc(1, sizeof(*s));
  if (!s) {
    json_decref(root);
    return PM_NOMEM(err);
  }
  pm_options_init(&s->options);
  int64_t v;
  int present;
  if (!json_is_object(root)) {
    rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: schema is not a JSON object", path);
    goto done;
  }
  s->version = 1;
  if ((rc = pm_json_get_int64(root, "version", path, &v, &present, err))) goto done;
  if (present) s->version = (int32_t)v;
  if ((rc = pm_json_req_int64(root, "id", path, &s->id, err))) goto done;
  const json_t *fields = json_object_get(root, "fields");
  if (!json_is_array(fields)) {
    rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: \"fields\" missing or not an array", path);
    goto done;
  }
  size_t nf = json_array_size(fields);
  if (nf) {
    s->fields = calloc(nf, sizeof(pm_data_field));
    if (!s->fields) {
      rc = PM_NOMEM(err);
      goto done;
    }
  }
  for (size_t i = 0; i < nf; i++) {
    if ((rc = pm_data_field_from_json(json_array_get(fields, i), path, 0, &s->fields[i], err))) goto done;
    s->n_fields = i + 1;
  }
  if ((rc = pm_json_get_int64(root, "highestFieldId", path, &v, &present, err))) goto done;
  s->highest_field_id = present ? (int32_t)v : -1;
  if ((rc = parse_string_array(root, "partitionKeys", path, &s->partition_keys, &s->n_partition_keys, err))) goto done;
  if ((rc = parse_string_array(root, "primaryKeys", path, &s->primary_keys, &s->n_primary_keys, err))) goto done;
  const json_t *opts = json_object_get(root, "options");
  if (opts && !json_is_null(opts)) {
    if (!json_is_object(opts)) {
      rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: \"options\" is not an object", path);
      goto done;
    }
    const char *k;
    json_t *val;
    json_object_foreach((json_t *)opts, k, val) {
      if (!json_is_string(val)) {
        rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: option \"%s\" is not a string", path, k);
        goto done;
      }
      if ((rc = pm_options_set(&s->options, k, json_string_value(val), err))) goto done;
    }
  }
  const char *comment;
  if ((rc = pm_json_get_str(root, "comment", path, &comment, err))) goto done;
  if (comment && !(s->comment = strdup(comment))) {
    rc = PM_NOMEM(err);
    goto done;
  }
  if ((rc = pm_json_get_int64(root, "timeMillis", path, &v, &present, err))) goto done;
  s->time_millis = present ? v : 0;
  /* Every partition / primary key must name a column. */
  for (size_t i = 0; i < s->n_partition_keys + s->n_primary_keys; i++) {
    const char *k = i < s->n_partition_keys ? s->partition_keys[i] : s->primary_keys[i - s->n_partition_keys];
    if (pm_schema_field_index(s, k) < 0) {
      rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: key column '%s' is not a field", path, k);
      goto done;
    }
  }
done:
  json_decref(root);
  if (rc) {
    pm_schema_free(s);
    return rc;
  }
  *out = s;
  return 0;
}

static json_t *string_array(char **v, size_t n) {
  json_t *a = json_array();
  for (size_t i = 0; a && i < n; i++) {
    if (json_array_append_new(a, json_string(v[i]))) {
      json_decref(a);
      return NULL;
    }
  }
  return a;
}

int pm_schema_to_json(const pm_table_schema *s, pm_buf *out, pm_error *err) {
  json_t *o = json_object(), *fields = json_array(), *opts = json_object();
  int bad = !o || !fields || !opts;
  if (!bad) bad |= json_object_set_new(o, "version", json_integer(s->version));
  if (!bad) bad |= json_object_set_new(o, "id", json_integer(s->id));
  for (size_t i = 0; !bad && i < s->n_fields; i++) bad |= json_array_append_new(fields, pm_data_field_to_json(&s->fields[i]));
  if (!bad) {
    bad |= json_object_set_new(o, "fields", fields);
    fields = NULL;
  }
  if (!bad) bad |= json_object_set_new(o, "highestFieldId", json_integer(s->highest_field_id));
  if (!bad) bad |= json_object_set_new(o, "partitionKeys", string_array(s->partition_keys, s->n_partition_keys));
  if (!bad) bad |= json_object_set_new(o, "primaryKeys", string_array(s->primary_keys, s->n_primary_keys));
  for (size_t i = 0; !bad && i < s->options.n; i++)
    bad |= json_object_set_new(opts, s->options.keys[i], json_string(s->options.values[i]));
  if (!bad) {
    bad |= json_object_set_new(o, "options", opts);
    opts = NULL;
  }
  if (!bad && s->comment) bad |= json_object_set_new(o, "comment", json_string(s->comment));
  if (!bad) bad |= json_object_set_new(o, "timeMillis", json_integer(s->time_millis));
  int rc = bad ? PM_NOMEM(err) : pm_json_pretty(o, out, err);
  json_decref(o);
  json_decref(fields);
  json_decref(opts);
  return rc;
}

int pm_table_schema_copy(const pm_table_schema *src, pm_table_schema **out, pm_error *err) {
  pm_buf b;
  pm_buf_init(&b);
  int rc = pm_schema_to_json(src, &b, err);
  if (!rc) rc = pm_schema_parse((const char *)b.data, b.len, "schema copy", out, err);
  pm_buf_free(&b);
  if (!rc) (*out)->highest_field_id = src->highest_field_id;
  return rc;
}

/* ---------------- paths and files ---------------- */

int pm_branch_is_main(const char *branch) { return !branch || !*branch || strcmp(branch, "main") == 0; }

char *pm_branch_dir(const char *table_root, const char *branch) {
  size_t n = strlen(table_root) + (branch ? strlen(branch) : 0) + 32;
  char *p = malloc(n);
  if (!p) return NULL;
  if (pm_branch_is_main(branch)) snprintf(p, n, "%s", table_root);
  else snprintf(p, n, "%s/branch/branch-%s", table_root, branch);
  return p;
}

static char *join3(const char *a, const char *b, const char *c) {
  size_t n = strlen(a) + strlen(b) + strlen(c) + 1;
  char *p = malloc(n);
  if (p) snprintf(p, n, "%s%s%s", a, b, c);
  return p;
}

int pm_meta_list_names(pm_fs *fs, const char *dir, const char *prefix, char ***names, size_t *n, pm_error *err) {
  *names = NULL;
  *n = 0;
  char **all = NULL;
  size_t cnt = 0;
  pm_error e2 = {0};
  int rc = pm_fs_list(fs, dir, prefix, &all, &cnt, &e2);
  if (rc == PAIMON_ERR_NOT_FOUND) return 0;
  if (rc) {
    if (err) *err = e2;
    return rc;
  }
  size_t plen = strlen(prefix), k = 0;
  for (size_t i = 0; i < cnt; i++) {
    if (strncmp(all[i], prefix, plen) == 0 && all[i][plen]) {
      memmove(all[i], all[i] + plen, strlen(all[i] + plen) + 1);
      all[k++] = all[i];
    } else {
      free(all[i]);
    }
  }
  *names = all;
  *n = k;
  return 0;
}

int pm_branch_list(pm_fs *fs, const char *table_root, char ***names, size_t *n, pm_error *err) {
  *names = NULL;
  *n = 0;
  char *dir = join3(table_root, "/branch", "");
  if (!dir) return PM_NOMEM(err);
  int rc = pm_meta_list_names(fs, dir, "branch-", names, n, err);
  free(dir);
  return rc;
}

int pm_meta_list_ids(pm_fs *fs, const char *dir, const char *prefix, int64_t **ids, size_t *n, pm_error *err) {
  *ids = NULL;
  *n = 0;
  char **names = NULL;
  size_t cnt = 0;
  pm_error e2 = {0};
  int rc = pm_fs_list(fs, dir, prefix, &names, &cnt, &e2);
  if (rc == PAIMON_ERR_NOT_FOUND) return 0;
  if (rc) {
    if (err) *err = e2;
    return rc;
  }
  int64_t *v = cnt ? malloc(cnt * sizeof(int64_t)) : NULL;
  if (cnt && !v) {
    pm_free_names(names, cnt);
    return PM_NOMEM(err);
  }
  size_t k = 0, pl = strlen(prefix);
  for (size_t i = 0; i < cnt; i++) {
    const char *s = names[i];
    if (strncmp(s, prefix, pl) != 0) continue;
    const char *d = s + pl;
    if (!*d || strlen(d) > 18) continue;
    int ok = 1;
    for (const char *p = d; *p; p++)
      if (!isdigit((unsigned char)*p)) ok = 0;
    if (ok) v[k++] = strtoll(d, NULL, 10);
  }
  pm_free_names(names, cnt);
  /* insertion sort is fine: names come sorted lexicographically, nearly sorted numerically */
  for (size_t i = 1; i < k; i++) {
    int64_t x = v[i];
    size_t j = i;
    while (j > 0 && v[j - 1] > x) {
      v[j] = v[j - 1];
      j--;
    }
    v[j] = x;
  }
  if (!k) {
    free(v);
    v = NULL;
  }
  *ids = v;
  *n = k;
  return 0;
}

static char *schema_dir(const char *table_root, const char *branch) {
  char *b = pm_branch_dir(table_root, branch);
  if (!b) return NULL;
  char *d = join3(b, "/schema", "");
  free(b);
  return d;
}

int pm_schema_list_ids(const pm_schema_manager *m, int64_t **ids, size_t *n, pm_error *err) {
  char *dir = schema_dir(m->table_root, m->branch);
  if (!dir) return PM_NOMEM(err);
  int rc = pm_meta_list_ids(m->fs, dir, "schema-", ids, n, err);
  free(dir);
  return rc;
}

int pm_schema_read(const pm_schema_manager *m, int64_t id, pm_table_schema **out, pm_error *err) {
  char *dir = schema_dir(m->table_root, m->branch);
  if (!dir) return PM_NOMEM(err);
  size_t n = strlen(dir) + 40;
  char *path = malloc(n);
  if (!path) {
    free(dir);
    return PM_NOMEM(err);
  }
  snprintf(path, n, "%s/schema-%lld", dir, (long long)id);
  free(dir);
  pm_buf b;
  pm_buf_init(&b);
  int rc = pm_fs_read_file(m->fs, path, &b, PM_META_FILE_LIMIT, err);
  if (rc == PAIMON_ERR_NOT_FOUND) rc = pm_errorf(err, PAIMON_ERR_NOT_FOUND, "%s: schema %lld not found", path, (long long)id);
  if (!rc) rc = pm_schema_parse((const char *)b.data, b.len, path, out, err);
  pm_buf_free(&b);
  free(path);
  return rc;
}

int pm_schema_read_latest(const pm_schema_manager *m, pm_table_schema **out, pm_error *err) {
  int64_t *ids = NULL;
  size_t n = 0;
  PM_TRY(pm_schema_list_ids(m, &ids, &n, err));
  if (!n)
    return pm_errorf(err, PAIMON_ERR_NOT_FOUND, "%s: no schema found (branch %s)", m->table_root,
                     m->branch ? m->branch : "main");
  int64_t id = ids[n - 1];
  free(ids);
  return pm_schema_read(m, id, out, err);
}

int pm_schema_write(const pm_schema_manager *m, const pm_table_schema *s, pm_error *err) {
  char *dir = schema_dir(m->table_root, m->branch);
  if (!dir) return PM_NOMEM(err);
  int rc = pm_fs_mkdirs(m->fs, dir, err);
  size_t n = strlen(dir) + 40;
  char *path = malloc(n);
  if (!path) rc = rc ? rc : PM_NOMEM(err);
  pm_buf b;
  pm_buf_init(&b);
  if (!rc) {
    snprintf(path, n, "%s/schema-%lld", dir, (long long)s->id);
    rc = pm_schema_to_json(s, &b, err);
  }
  if (!rc) rc = pm_fs_write_file(m->fs, path, b.data, b.len, PM_OUT_CREATE_IF_ABSENT, err);
  pm_buf_free(&b);
  free(path);
  free(dir);
  return rc;
}

/* ---------------- lookups ---------------- */

int pm_schema_field_index(const pm_table_schema *s, const char *name) {
  for (size_t i = 0; i < s->n_fields; i++)
    if (s->fields[i].name && strcmp(s->fields[i].name, name) == 0) return (int)i;
  return -1;
}

int pm_schema_field_index_by_id(const pm_table_schema *s, int32_t id) {
  for (size_t i = 0; i < s->n_fields; i++)
    if (s->fields[i].id == id) return (int)i;
  return -1;
}

int pm_schema_bucket(const pm_table_schema *s, int32_t *out, pm_error *err) {
  int32_t def = s->version <= 1 ? 1 : -1;
  return pm_options_get_int(&s->options, PM_OPT_BUCKET, def, out, err);
}

const char *pm_schema_file_format(const pm_table_schema *s) {
  const char *f = pm_options_get(&s->options, PM_OPT_FILE_FORMAT);
  return f ? f : s->version <= 2 ? "orc" : "parquet";
}

int pm_schema_trimmed_primary_keys(const pm_table_schema *s, const char ***names, size_t *n, pm_error *err) {
  *names = NULL;
  *n = 0;
  if (!s->n_primary_keys) return 0;
  const char **v = malloc(s->n_primary_keys * sizeof(char *));
  if (!v) return PM_NOMEM(err);
  size_t k = 0;
  for (size_t i = 0; i < s->n_primary_keys; i++) {
    int is_part = 0;
    for (size_t j = 0; j < s->n_partition_keys; j++)
      if (strcmp(s->primary_keys[i], s->partition_keys[j]) == 0) is_part = 1;
    if (!is_part) v[k++] = s->primary_keys[i];
  }
  /* Java: when the primary key equals the partition key, the trimmed key is the full PK */
  if (k == 0) {
    for (size_t i = 0; i < s->n_primary_keys; i++) v[i] = s->primary_keys[i];
    k = s->n_primary_keys;
  }
  *names = v;
  *n = k;
  return 0;
}

int pm_schema_bucket_keys(const pm_table_schema *s, char ***names, size_t *n, pm_error *err) {
  *names = NULL;
  *n = 0;
  const char *bk = pm_options_get(&s->options, PM_OPT_BUCKET_KEY);
  if (bk && *bk) {
    size_t cap = 1;
    for (const char *p = bk; *p; p++)
      if (*p == ',') cap++;
    char **v = calloc(cap, sizeof(char *));
    if (!v) return PM_NOMEM(err);
    size_t k = 0;
    const char *p = bk;
    while (1) {
      const char *e = strchr(p, ',');
      size_t len = e ? (size_t)(e - p) : strlen(p);
      while (len && isspace((unsigned char)*p)) {
        p++;
        len--;
      }
      while (len && isspace((unsigned char)p[len - 1])) len--;
      if (len) {
        v[k] = strndup(p, len);
        if (!v[k]) {
          pm_free_strings(v, k);
          return PM_NOMEM(err);
        }
        k++;
      }
      if (!e) break;
      p = e + 1;
    }
    *names = v;
    *n = k;
    return 0;
  }
  const char **t = NULL;
  size_t tn = 0;
  PM_TRY(pm_schema_trimmed_primary_keys(s, &t, &tn, err));
  if (!tn) return 0;
  char **v = calloc(tn, sizeof(char *));
  if (!v) {
    free(t);
    return PM_NOMEM(err);
  }
  for (size_t i = 0; i < tn; i++) {
    if (!(v[i] = strdup(t[i]))) {
      pm_free_strings(v, i);
      free(t);
      return PM_NOMEM(err);
    }
  }
  free(t);
  *names = v;
  *n = tn;
  return 0;
}
