/* Filesystem catalog and the pm_table handle (table.h). */
#include "table/catalog.h"

#include <ctype.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "io/file.h"
#include "meta/core_options.h"
#include "meta/schema.h"
#include "util/str.h"

/* ------------------------------------------------------------ helpers */

static char *path_join(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  while (la > 1 && a[la - 1] == '/') la--;
  char *p = malloc(la + lb + 2);
  if (!p) return NULL;
  memcpy(p, a, la);
  p[la] = '/';
  memcpy(p + la + 1, b, lb + 1);
  return p;
}

static int is_dir(pm_fs *fs, const char *path) {
  pm_file_stat st;
  pm_error e;
  return pm_fs_stat(fs, path, &st, &e) == 0 && st.is_dir;
}

/* Whether path is a directory (*yes): a missing path is "no"; any other stat failure (an I/O
 * error) is returned, so that it is not mistaken for a missing table. */
static int dir_exists(pm_fs *fs, const char *path, int *yes, pm_error *err) {
  pm_file_stat st;
  *yes = 0;
  int rc = pm_fs_stat(fs, path, &st, err);
  if (rc == PAIMON_ERR_NOT_FOUND) {
    pm_error_clear(err);
    return 0;
  }
  if (rc) return rc;
  *yes = st.is_dir;
  return 0;
}

static char **dup_strings(char *const *src, size_t n, int *fail) {
  char **out = pm_strings_dup(src, n);
  if (n && !out) *fail = 1;
  return out;
}

/* ------------------------------------------------------------- catalog */

int pm_catalog_open(const pm_options *options, pm_catalog **out, pm_error *err) {
  return pm_catalog_open_with_fs(pm_fs_local(), options, out, err);
}

int pm_catalog_open_with_fs(pm_fs *fs, const pm_options *options, pm_catalog **out, pm_error *err) {
  *out = NULL;
  pm_catalog_options co;
  PM_TRY(pm_catalog_options_parse(options, &co, err));
  const char *wh = co.warehouse, *ms = co.metastore;
  if (strcmp(ms, "filesystem") != 0) {
    pm_catalog_options_clear(&co);
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "catalog: metastore '%s' is not supported (only filesystem)", ms);
  }
  if (!strncasecmp(wh, "file://", 7)) wh += 7;
  else if (!strncasecmp(wh, "file:", 5)) wh += 5;
  if (!is_dir(fs, wh)) {
    pm_catalog_options_clear(&co);
    return pm_errorf(err, PAIMON_ERR_NOT_FOUND, "catalog: warehouse directory %s does not exist", wh);
  }
  pm_catalog *c = calloc(1, sizeof *c);
  if (!c) {
    pm_catalog_options_clear(&co);
    return PM_NOMEM(err);
  }
  pm_options_init(&c->options);
  c->fs = pm_fs_ref(fs);
  c->warnings = co.warnings; /* the catalog takes the warnings */
  c->n_warnings = co.n_warnings;
  c->threads = co.threads;
  c->warehouse = strdup(wh);
  if (!c->warehouse) {
    pm_catalog_free(c);
    return PM_NOMEM(err);
  }
  int rc = pm_options_copy(options, &c->options, err);
  if (rc) {
    pm_catalog_free(c);
    return rc;
  }
  *out = c;
  return 0;
}

void pm_catalog_free(pm_catalog *c) {
  if (!c) return;
  free(c->warehouse);
  pm_options_clear(&c->options);
  pm_fs_unref(c->fs);
  for (size_t i = 0; i < c->n_warnings; i++) free(c->warnings[i]);
  free(c->warnings);
  free(c);
}

int pm_catalog_list_databases(const pm_catalog *c, char ***names, size_t *n, pm_error *err) {
  char **all = NULL;
  size_t count = 0;
  *names = NULL;
  *n = 0;
  PM_TRY(pm_fs_list(c->fs, c->warehouse, NULL, &all, &count, err));
  size_t k = 0;
  for (size_t i = 0; i < count; i++) {
    size_t l = strlen(all[i]);
    char *full = path_join(c->warehouse, all[i]);
    int ok = l > 3 && !strcmp(all[i] + l - 3, ".db") && full && is_dir(c->fs, full);
    free(full);
    if (ok) {
      all[i][l - 3] = 0;
      all[k++] = all[i];
    } else {
      free(all[i]);
    }
  }
  if (k == 0) {
    free(all);
    all = NULL;
  }
  *names = all;
  *n = k;
  return 0;
}

int pm_catalog_list_tables(const pm_catalog *c, const char *database, char ***names, size_t *n, pm_error *err) {
  *names = NULL;
  *n = 0;
  size_t dl = strlen(database);
  char *dbname = malloc(dl + 4);
  if (!dbname) return PM_NOMEM(err);
  memcpy(dbname, database, dl);
  memcpy(dbname + dl, ".db", 4);
  char *dbdir = path_join(c->warehouse, dbname);
  free(dbname);
  if (!dbdir) return PM_NOMEM(err);
  int yes = 0, rc = dir_exists(c->fs, dbdir, &yes, err);
  if (rc || !yes) {
    if (!rc) rc = pm_errorf(err, PAIMON_ERR_NOT_FOUND, "database '%s' does not exist (no directory %s)", database, dbdir);
    free(dbdir);
    return rc;
  }
  char **all = NULL;
  size_t count = 0;
  rc = pm_fs_list(c->fs, dbdir, NULL, &all, &count, err);
  if (rc) {
    free(dbdir);
    return rc;
  }
  size_t k = 0;
  for (size_t i = 0; i < count; i++) {
    char *tdir = path_join(dbdir, all[i]);
    char *sdir = tdir ? path_join(tdir, "schema") : NULL;
    int ok = sdir && is_dir(c->fs, sdir);
    free(tdir);
    free(sdir);
    if (ok) all[k++] = all[i];
    else free(all[i]);
  }
  free(dbdir);
  if (k == 0) {
    free(all);
    all = NULL;
  }
  *names = all;
  *n = k;
  return 0;
}

void pm_identifier_clear(pm_identifier *id) {
  free(id->database);
  free(id->table);
  free(id->branch);
  free(id->system_table);
  memset(id, 0, sizeof *id);
}

int pm_identifier_parse(const char *text, pm_identifier *out, pm_error *err) {
  memset(out, 0, sizeof *out);
  if (!text || !*text) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "empty table identifier");
  const char *dot = strchr(text, '.');
  const char *name = text;
  if (dot) {
    out->database = strndup(text, (size_t)(dot - text));
    name = dot + 1;
  } else {
    out->database = strdup("default");
  }
  if (!out->database) return PM_NOMEM(err);
  const char *dollar = strchr(name, '$');
  out->table = strndup(name, dollar ? (size_t)(dollar - name) : strlen(name));
  if (!out->table) {
    pm_identifier_clear(out);
    return PM_NOMEM(err);
  }
  if (!*out->database || !*out->table || strchr(out->table, '/') || strchr(out->database, '/')) {
    pm_identifier_clear(out);
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "bad table identifier '%s' (expected db.table)", text);
  }
  while (dollar) {
    const char *part = dollar + 1;
    const char *next = strchr(part, '$');
    size_t len = next ? (size_t)(next - part) : strlen(part);
    if (len > 7 && !strncmp(part, "branch_", 7) && !out->branch && !out->system_table) {
      out->branch = strndup(part + 7, len - 7);
      if (!out->branch) {
        pm_identifier_clear(out);
        return PM_NOMEM(err);
      }
    } else if (len > 0 && !out->system_table) {
      out->system_table = strndup(part, len);
      if (!out->system_table) {
        pm_identifier_clear(out);
        return PM_NOMEM(err);
      }
    } else {
      pm_identifier_clear(out);
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "bad table identifier '%s'", text);
    }
    dollar = next;
  }
  return 0;
}

char *pm_catalog_table_path(const pm_catalog *c, const char *database, const char *table) {
  size_t dl = strlen(database);
  char *dbname = malloc(dl + 4);
  if (!dbname) return NULL;
  memcpy(dbname, database, dl);
  memcpy(dbname + dl, ".db", 4);
  char *dbdir = path_join(c->warehouse, dbname);
  free(dbname);
  if (!dbdir) return NULL;
  char *p = path_join(dbdir, table);
  free(dbdir);
  return p;
}

int pm_catalog_get_table(const pm_catalog *c, const char *identifier, const pm_options *dynamic, pm_table **out,
                         pm_error *err) {
  *out = NULL;
  pm_identifier id;
  PM_TRY(pm_identifier_parse(identifier, &id, err));
  char *root = pm_catalog_table_path(c, id.database, id.table);
  int rc = 0, yes = 0;
  if (!root) rc = PM_NOMEM(err);
  else if (!(rc = dir_exists(c->fs, root, &yes, err)) && !yes)
    rc = pm_errorf(err, PAIMON_ERR_NOT_FOUND, "table %s.%s does not exist (no directory %s)", id.database, id.table,
                   root);
  if (!rc) rc = pm_table_open_fs(c->fs, root, id.database, id.table, id.branch, dynamic, &c->options, out, err);
  free(root);
  pm_identifier_clear(&id);
  return rc;
}

/* --------------------------------------------------------------- table */

static int parse_rewrites(pm_table *t, const char *spec, pm_error *err) {
  /* "FROM=TO;FROM2=TO2" */
  const char *p = spec;
  while (*p) {
    const char *end = strchr(p, ';');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    const char *eq = memchr(p, '=', len);
    if (len > 0) {
      if (!eq || eq == p)
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option path-rewrite: '%.*s' is not FROM=TO", (int)len, p);
      pm_path_rewrite *nr = realloc(t->rewrites, (t->n_rewrites + 1) * sizeof *nr);
      if (!nr) return PM_NOMEM(err);
      t->rewrites = nr;
      pm_path_rewrite *r = &t->rewrites[t->n_rewrites];
      r->from = strndup(p, (size_t)(eq - p));
      r->to = strndup(eq + 1, len - (size_t)(eq - p) - 1);
      t->n_rewrites++;
      if (!r->from || !r->to) return PM_NOMEM(err);
    }
    if (!end) break;
    p = end + 1;
  }
  return 0;
}

static void split_csv(const char *s, char ***out, size_t *n, int *fail) {
  *out = NULL;
  *n = 0;
  if (!s || !*s) return;
  size_t cap = 1;
  for (const char *q = s; *q; q++) cap += *q == ',';
  char **v = calloc(cap, sizeof *v);
  if (!v) {
    *fail = 1;
    return;
  }
  const char *p = s;
  size_t k = 0;
  for (;;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    while (len && isspace((unsigned char)*p)) p++, len--;
    while (len && isspace((unsigned char)p[len - 1])) len--;
    if (len) {
      v[k] = strndup(p, len);
      if (!v[k]) *fail = 1;
      else k++;
    }
    if (!e) break;
    p = e + 1;
  }
  *out = v;
  *n = k;
}

pm_table *pm_table_retain(pm_table *t) {
  if (t) atomic_fetch_add(&t->refs, 1);
  return t;
}

void pm_table_free(pm_table *t) {
  if (!t || atomic_fetch_sub(&t->refs, 1) != 1) return;
  pm_fs_unref(t->fs);
  free(t->warehouse);
  free(t->database);
  free(t->name);
  free(t->root);
  free(t->branch);
  free(t->meta_root);
  pm_schema_free(t->schema);
  pm_options_clear(&t->options);
  pm_options_clear(&t->dynamic_options);
  pm_core_options_clear(&t->co);
  pm_strings_free(t->partition_keys, t->n_partition_keys);
  pm_strings_free(t->primary_keys, t->n_primary_keys);
  pm_strings_free(t->trimmed_primary_keys, t->n_trimmed_primary_keys);
  pm_strings_free(t->bucket_keys, t->n_bucket_keys);
  free(t->partition_default_name);
  free(t->data_path_directory);
  for (size_t i = 0; i < t->n_rewrites; i++) {
    free(t->rewrites[i].from);
    free(t->rewrites[i].to);
  }
  free(t->rewrites);
  for (size_t i = 0; i < t->n_schema_cache; i++) pm_schema_free(t->schema_cache[i]);
  free(t->schema_cache);
  free(t->schema_cache_ids);
  pthread_mutex_destroy(&t->schema_lock);
  pm_table_free(t->fallback);
  pthread_mutex_destroy(&t->fallback_lock);
  free(t);
}

int pm_table_fallback(pm_table *t, pm_table **out, pm_error *err) {
  *out = NULL;
  const char *fb = t->co.scan_fallback_branch;
  if (!fb) return 0;
  pthread_mutex_lock(&t->fallback_lock);
  int rc = t->fallback ? 0 : pm_table_reopen(t, fb, NULL, &t->fallback, err);
  *out = t->fallback;
  pthread_mutex_unlock(&t->fallback_lock);
  return rc;
}

static const char *base_name(const char *path, char *buf, size_t cap) {
  size_t l = strlen(path);
  while (l > 1 && path[l - 1] == '/') l--;
  size_t s = l;
  while (s > 0 && path[s - 1] != '/') s--;
  snprintf(buf, cap, "%.*s", (int)(l - s), path + s);
  return buf;
}

int pm_table_open_path(const char *root, const char *database, const char *name, const char *branch,
                       const pm_options *dynamic, const pm_options *catalog, pm_table **out, pm_error *err) {
  return pm_table_open_fs(pm_fs_local(), root, database, name, branch, dynamic, catalog, out, err);
}

int pm_table_open_fs(pm_fs *fs, const char *root, const char *database, const char *name, const char *branch,
                     const pm_options *dynamic, const pm_options *catalog, pm_table **out, pm_error *err) {
  *out = NULL;
  pm_table *t = calloc(1, sizeof *t);
  if (!t) return PM_NOMEM(err);
  t->fs = pm_fs_ref(fs);
  atomic_init(&t->refs, 1);
  pthread_mutex_init(&t->schema_lock, NULL);
  pthread_mutex_init(&t->fallback_lock, NULL);
  pm_options_init(&t->options);
  pm_options_init(&t->dynamic_options);
  int rc = 0, fail = 0;
  char nb[512], db[512];
  /* No branch named: the option 'branch' decides (Java's FileStoreTableFactory), default main. */
  if (!branch && dynamic) branch = pm_options_get(dynamic, pm_core_option_key(PM_CO_BRANCH));
  if (!name) name = base_name(root, nb, sizeof nb);
  if (!database) {
    /* <warehouse>/<db>.db/<table>: take the parent's name without ".db" */
    char *parent = strdup(root);
    if (parent) {
      size_t l = strlen(parent);
      while (l > 1 && parent[l - 1] == '/') parent[--l] = 0;
      char *slash = strrchr(parent, '/');
      if (slash) *slash = 0;
      base_name(parent, db, sizeof db);
      size_t dl = strlen(db);
      if (dl > 3 && !strcmp(db + dl - 3, ".db")) db[dl - 3] = 0;
      else snprintf(db, sizeof db, "default");
      free(parent);
    } else {
      snprintf(db, sizeof db, "default");
    }
    database = db;
  }
  t->root = strdup(root);
  t->name = strdup(name);
  t->database = strdup(database);
  t->branch = strdup(pm_branch_is_main(branch) ? "main" : branch);
  t->meta_root = pm_branch_dir(root, pm_branch_is_main(branch) ? NULL : branch);
  if (!t->root || !t->name || !t->database || !t->branch || !t->meta_root) {
    pm_table_free(t);
    return PM_NOMEM(err);
  }
  int yes = 1;
  if (!pm_branch_is_main(branch) && ((rc = dir_exists(fs, t->meta_root, &yes, err)) || !yes)) {
    if (!rc)
      rc = pm_errorf(err, PAIMON_ERR_NOT_FOUND, "table %s.%s: branch '%s' does not exist (no directory %s)",
                     t->database, t->name, branch, t->meta_root);
    pm_table_free(t);
    return rc;
  }
  pm_schema_manager sm = pm_table_schemas(t);
  rc = pm_schema_read_latest(&sm, &t->schema, err);
  if (rc) {
    if (rc == PAIMON_ERR_NOT_FOUND)
      pm_errorf(err, PAIMON_ERR_NOT_FOUND, "table %s.%s: no schema file in %s/schema", t->database, t->name,
                t->meta_root);
    pm_table_free(t);
    return rc;
  }
  t->schema_id = t->schema->id;
  rc = pm_options_copy(&t->schema->options, &t->options, err);
  if (!rc && dynamic) {
    for (size_t i = 0; i < dynamic->n && !rc; i++) {
      rc = pm_options_set(&t->options, dynamic->keys[i], dynamic->values[i], err);
      if (!rc) rc = pm_options_set(&t->dynamic_options, dynamic->keys[i], dynamic->values[i], err);
    }
  }
  /* Rewrites: dynamic (per read) rules first, then the catalog's. The
   * catalog's are remembered among the dynamic options so that reopened
   * handles keep them. */
  const char *rw_key = pm_core_option_key(PM_CO_PATH_REWRITE);
  if (!rc && dynamic) {
    const char *rw = pm_options_get(dynamic, rw_key);
    if (rw) rc = parse_rewrites(t, rw, err);
  }
  if (!rc && catalog) {
    const char *rw = pm_options_get(catalog, rw_key);
    if (rw) rc = parse_rewrites(t, rw, err);
    if (!rc && rw && !pm_options_get(&t->dynamic_options, rw_key))
      rc = pm_options_set(&t->dynamic_options, rw_key, rw, err);
  }
  if (!rc) {
    /* An invalid option value is reported when the table is planned or read
     * (pm_table_options_ok), as before typed options; defaults meanwhile. */
    int ver = t->schema->version, pk = t->schema->n_primary_keys > 0;
    rc = pm_core_options_parse(&t->options, ver, pk, &t->co, &t->options_error);
    if (rc == PAIMON_ERR_INVALID_ARGUMENT) {
      pm_error_prefix(&t->options_error, "table %s.%s: ", t->database, t->name);
      rc = pm_core_options_parse(NULL, ver, pk, &t->co, err);
    } else if (rc) {
      *err = t->options_error;
    }
  }
  /* `threads` of the catalog applies unless the table or the read sets its own (validated by the catalog). */
  const char *th = !rc && catalog && !t->co.set[PM_CO_THREADS] ? pm_options_get(catalog, pm_core_option_key(PM_CO_THREADS)) : NULL;
  int64_t thv = 0;
  if (th && !pm_parse_int64(pm_core_option_key(PM_CO_THREADS), th, &thv, NULL) && thv > 0 && thv <= 1024) {
    t->co.threads = (int32_t)thv;
    /* remembered among the dynamic options so that reopened handles keep it */
    rc = pm_options_set(&t->dynamic_options, pm_core_option_key(PM_CO_THREADS), th, err);
  }
  if (rc) {
    pm_table_free(t);
    return rc;
  }
  t->partition_keys = dup_strings(t->schema->partition_keys, t->schema->n_partition_keys, &fail);
  t->n_partition_keys = t->schema->n_partition_keys;
  t->primary_keys = dup_strings(t->schema->primary_keys, t->schema->n_primary_keys, &fail);
  t->n_primary_keys = t->schema->n_primary_keys;
  if (t->n_primary_keys) {
    t->trimmed_primary_keys = calloc(t->n_primary_keys, sizeof(char *));
    if (!t->trimmed_primary_keys) fail = 1;
    for (size_t i = 0; i < t->n_primary_keys && !fail; i++) {
      int is_part = 0;
      for (size_t j = 0; j < t->n_partition_keys; j++)
        if (!strcmp(t->primary_keys[i], t->partition_keys[j])) is_part = 1;
      if (!is_part) {
        if (!(t->trimmed_primary_keys[t->n_trimmed_primary_keys] = strdup(t->primary_keys[i]))) fail = 1;
        else t->n_trimmed_primary_keys++;
      }
    }
  }
  const char *bk = t->co.bucket_key;
  if (bk && *bk) split_csv(bk, &t->bucket_keys, &t->n_bucket_keys, &fail);
  else if (t->n_trimmed_primary_keys) {
    t->bucket_keys = dup_strings(t->trimmed_primary_keys, t->n_trimmed_primary_keys, &fail);
    t->n_bucket_keys = t->n_trimmed_primary_keys;
  }
  if (fail) {
    pm_table_free(t);
    return PM_NOMEM(err);
  }
  /* The bucket count of the table comes from the schema; a dynamic `bucket` cannot change it. */
  rc = pm_schema_bucket(t->schema, &t->bucket, err);
  if (!rc) {
    if (t->bucket > 0) t->bucket_mode = PM_BUCKET_FIXED;
    else if (t->bucket == -2) t->bucket_mode = PM_BUCKET_POSTPONE;
    else t->bucket_mode = t->n_primary_keys ? PM_BUCKET_DYNAMIC : PM_BUCKET_UNAWARE;
    const pm_core_options *co = &t->co;
    t->merge_engine = co->merge_engine;
    t->deletion_vectors = co->dv_enabled;
    t->dv_merge_on_read = co->dv_merge_on_read;
    t->index_in_data_dir = co->index_in_data_dir;
    t->data_evolution = co->data_evolution;
    t->row_tracking = co->row_tracking;
    t->partition_legacy_name = co->partition_legacy_name;
    t->changelog_producer = co->changelog_producer;
    t->partition_default_name = strdup(co->partition_default_name);
    const char *dpd = co->data_file_path_directory;
    if (dpd && *dpd && !(t->data_path_directory = strdup(dpd))) fail = 1;
    if (!t->partition_default_name || fail) rc = PM_NOMEM(err);
  }
  if (rc) {
    pm_table_free(t);
    return rc;
  }
  *out = t;
  return 0;
}

int pm_table_reopen(const pm_table *t, const char *branch, const pm_options *extra_dynamic, pm_table **out,
                    pm_error *err) {
  pm_options dyn;
  pm_options_init(&dyn);
  int rc = pm_options_copy(&t->dynamic_options, &dyn, err);
  for (size_t i = 0; !rc && extra_dynamic && i < extra_dynamic->n; i++)
    rc = pm_options_set(&dyn, extra_dynamic->keys[i], extra_dynamic->values[i], err);
  /* NULL: the option 'branch' of this reopening when given, else the handle's own branch */
  const char *ob = extra_dynamic ? pm_options_get(extra_dynamic, pm_core_option_key(PM_CO_BRANCH)) : NULL;
  if (!branch) branch = ob ? ob : t->branch;
  if (!rc) rc = pm_table_open_fs(t->fs, t->root, t->database, t->name, branch, &dyn, NULL, out, err);
  pm_options_clear(&dyn);
  return rc;
}

int pm_table_schema_by_id(pm_table *t, int64_t schema_id, const pm_table_schema **out, pm_error *err) {
  *out = NULL;
  if (schema_id == t->schema_id) {
    *out = t->schema;
    return 0;
  }
  pthread_mutex_lock(&t->schema_lock);
  for (size_t i = 0; i < t->n_schema_cache; i++)
    if (t->schema_cache_ids[i] == schema_id) {
      *out = t->schema_cache[i];
      pthread_mutex_unlock(&t->schema_lock);
      return 0;
    }
  pm_table_schema *s = NULL;
  pm_schema_manager sm = pm_table_schemas(t);
  int rc = pm_schema_read(&sm, schema_id, &s, err);
  if (rc == PAIMON_ERR_NOT_FOUND && sm.branch) {
    sm.branch = NULL;
    rc = pm_schema_read(&sm, schema_id, &s, err);
  }
  if (rc == PAIMON_ERR_NOT_FOUND)
    pm_errorf(err, PAIMON_ERR_NOT_FOUND, "table %s.%s: schema %lld does not exist (no file %s/schema/schema-%lld)",
              t->database, t->name, (long long)schema_id, t->meta_root, (long long)schema_id);
  if (!rc) {
    pm_table_schema **ns = realloc(t->schema_cache, (t->n_schema_cache + 1) * sizeof *ns);
    int64_t *ni = ns ? realloc(t->schema_cache_ids, (t->n_schema_cache + 1) * sizeof *ni) : NULL;
    if (ns) t->schema_cache = ns;
    if (ni) t->schema_cache_ids = ni;
    if (!ns || !ni) {
      pm_schema_free(s);
      rc = PM_NOMEM(err);
    } else {
      t->schema_cache[t->n_schema_cache] = s;
      t->schema_cache_ids[t->n_schema_cache] = schema_id;
      t->n_schema_cache++;
      *out = s;
    }
  }
  pthread_mutex_unlock(&t->schema_lock);
  return rc;
}

char *pm_table_meta_path(const pm_table *t, const char *sub) { return path_join(t->meta_root, sub); }
char *pm_table_root_path(const pm_table *t, const char *sub) { return path_join(t->root, sub); }

int pm_table_resolve_path(const pm_table *t, const char *stored, char **out, pm_error *err) {
  *out = NULL;
  char *tmp = NULL;
  const char *p = stored;
  for (size_t i = 0; i < t->n_rewrites; i++) {
    size_t fl = strlen(t->rewrites[i].from);
    if (!strncmp(stored, t->rewrites[i].from, fl)) {
      size_t tl = strlen(t->rewrites[i].to), rl = strlen(stored + fl);
      tmp = malloc(tl + rl + 1);
      if (!tmp) return PM_NOMEM(err);
      memcpy(tmp, t->rewrites[i].to, tl);
      memcpy(tmp + tl, stored + fl, rl + 1);
      p = tmp;
      break;
    }
  }
  if (!strncasecmp(p, "file://", 7)) p += 7;
  else if (!strncasecmp(p, "file:", 5)) p += 5;
  if (strstr(p, "://")) {
    int rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "path %s: only local files are supported", stored);
    free(tmp);
    return rc;
  }
  *out = strdup(p);
  free(tmp);
  return *out ? 0 : PM_NOMEM(err);
}

int pm_table_bucket_path(const pm_table *t, const char *partition_dir, int32_t bucket, char **out, pm_error *err) {
  char bdir[32];
  if (bucket == -2) snprintf(bdir, sizeof bdir, "bucket-postpone");
  else snprintf(bdir, sizeof bdir, "bucket-%d", (int)bucket);
  size_t n = strlen(t->root) + (t->data_path_directory ? strlen(t->data_path_directory) + 1 : 0) +
             (partition_dir ? strlen(partition_dir) + 1 : 0) + strlen(bdir) + 2;
  char *p = malloc(n);
  if (!p) return PM_NOMEM(err);
  size_t k = (size_t)snprintf(p, n, "%s", t->root);
  while (k > 1 && p[k - 1] == '/') p[--k] = 0;
  if (t->data_path_directory) k += (size_t)snprintf(p + k, n - k, "/%s", t->data_path_directory);
  if (partition_dir && *partition_dir) k += (size_t)snprintf(p + k, n - k, "/%s", partition_dir);
  snprintf(p + k, n - k, "/%s", bdir);
  *out = p;
  return 0;
}

int pm_table_data_file_path(const pm_table *t, const char *bucket_path, const char *file_name,
                            const char *external_path, char **out, pm_error *err) {
  if (external_path) return pm_table_resolve_path(t, external_path, out, err);
  *out = path_join(bucket_path, file_name);
  return *out ? 0 : PM_NOMEM(err);
}

int pm_table_index_file_path(const pm_table *t, const char *bucket_path, const char *file_name,
                             const char *external_path, char **out, pm_error *err) {
  if (external_path) return pm_table_resolve_path(t, external_path, out, err);
  if (t->index_in_data_dir && bucket_path) *out = path_join(bucket_path, file_name);
  else {
    char *idx = path_join(t->root, "index");
    *out = idx ? path_join(idx, file_name) : NULL;
    free(idx);
  }
  return *out ? 0 : PM_NOMEM(err);
}

int pm_partition_escape(const char *s, char **out, pm_error *err) {
  static const char special[] = "\"#%'*/:=?\\\x7f{}[]^";
  size_t n = strlen(s);
  char *p = malloc(n * 3 + 1);
  if (!p) return PM_NOMEM(err);
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c < 0x20 || (c < 128 && c && strchr(special, c))) {
      static const char hex[] = "0123456789ABCDEF";
      p[k++] = '%';
      p[k++] = hex[c >> 4];
      p[k++] = hex[c & 15];
    } else {
      p[k++] = (char)c;
    }
  }
  p[k] = 0;
  *out = p;
  return 0;
}
