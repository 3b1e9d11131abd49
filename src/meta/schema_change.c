/* ALTER TABLE: Java's SchemaManager.generateTableSchema (see schema_change.h). */
#include "meta/schema_change.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "data/type_cast.h"
#include "meta/java_hashmap.h"
#include "meta/schema_change_internal.h"

/* ------------------------------------------------------------ changes */

static void free_names(char **names, size_t n) {
  for (size_t i = 0; i < n; i++) free(names[i]);
  free(names);
}

void pm_schema_change_clear(pm_schema_change *c) {
  if (!c) return;
  free_names(c->names, c->n_names);
  free(c->new_name);
  pm_dtype_free(c->type);
  free(c->comment);
  free(c->reference);
  free(c->key);
  free(c->value);
  memset(c, 0, sizeof *c);
}

static int dup_opt(const char *s, char **out) {
  *out = NULL;
  if (!s) return 0;
  *out = strdup(s);
  return *out ? 0 : -1;
}

int pm_schema_change_copy(const pm_schema_change *src, pm_schema_change *dst, pm_error *err) {
  memset(dst, 0, sizeof *dst);
  dst->kind = src->kind;
  dst->nullable = src->nullable;
  dst->keep_nullability = src->keep_nullability;
  dst->move = src->move;
  int bad = 0;
  if (src->n_names) {
    dst->names = calloc(src->n_names, sizeof *dst->names);
    bad |= !dst->names;
    for (size_t i = 0; !bad && i < src->n_names; i++) {
      bad |= dup_opt(src->names[i], &dst->names[i]);
      if (!bad) dst->n_names = i + 1;
    }
  }
  bad = bad || dup_opt(src->new_name, &dst->new_name) || dup_opt(src->comment, &dst->comment) ||
        dup_opt(src->reference, &dst->reference) || dup_opt(src->key, &dst->key) || dup_opt(src->value, &dst->value);
  if (!bad && src->type && pm_dtype_copy(src->type, &dst->type, err)) {
    pm_schema_change_clear(dst);
    return PAIMON_ERR_NOMEM;
  }
  if (bad) {
    pm_schema_change_clear(dst);
    return PM_NOMEM(err);
  }
  return 0;
}

int pm_schema_change_set_path(pm_schema_change *c, const char *path, pm_error *err) {
  free_names(c->names, c->n_names);
  c->names = NULL;
  c->n_names = 0;
  if (!path || !*path) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "empty column name");
  size_t len = strlen(path), cap = 1;
  for (size_t i = 0; i < len; i++) cap += path[i] == '.';
  char **names = calloc(cap, sizeof *names);
  char *cur = malloc(len + 1);
  if (!names || !cur) goto nomem;
  size_t n = 0, w = 0;
  for (size_t i = 0; i <= len; i++) {
    char ch = path[i];
    if (ch == '\\' && (path[i + 1] == '.' || path[i + 1] == '\\')) {
      cur[w++] = path[++i];
      continue;
    }
    if (ch == '.' || ch == 0) {
      if (w == 0) {
        free(cur);
        free_names(names, n);
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "column path '%s': empty name", path);
      }
      cur[w] = 0;
      if (!(names[n] = strdup(cur))) goto nomem;
      n++;
      w = 0;
      continue;
    }
    cur[w++] = ch;
  }
  free(cur);
  c->names = names;
  c->n_names = n;
  return 0;
nomem:
  free(cur);
  if (names) free_names(names, cap);
  return PM_NOMEM(err);
}

/* ------------------------------------------------------------ context */

typedef struct actx {
  const pm_table_schema *old;
  const pm_options *old_opts; /* Java's loaded map: file order + compatibility defaults */
  const char *table;
  pm_error *err;
  int has_snapshots;
  int null_to_not_null_disabled, explicit_casting_disabled, add_before_partition;
  int32_t highest;
  const pm_schema_change *c;
  int32_t add_id;            /* ADD_COLUMN: the new column's id */
  pm_data_type *add_type;    /* ADD_COLUMN: type with reassigned ids (moved into the field) */
} actx;

static const char *tname(const actx *a) { return a->table ? a->table : "table"; }

/* names[0..k] joined by '.', into buf. */
static const char *path_upto(const pm_schema_change *c, size_t k, const char *last, char *buf, size_t cap) {
  size_t off = 0;
  buf[0] = 0;
  for (size_t i = 0; i <= k && i < c->n_names; i++) {
    const char *s = (i == k && last) ? last : c->names[i];
    int w = snprintf(buf + off, cap - off, "%s%s", i ? "." : "", s);
    if (w < 0 || (size_t)w >= cap - off) break;
    off += (size_t)w;
  }
  return buf;
}

static const char *full_path(const pm_schema_change *c, char *buf, size_t cap) {
  return path_upto(c, c->n_names ? c->n_names - 1 : 0, NULL, buf, cap);
}

static int in_list(const char *name, char *const *list, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(list[i], name)) return 1;
  return 0;
}

static ssize_t field_index(const pm_data_field *f, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(f[i].name, name)) return (ssize_t)i;
  return -1;
}

static int insert_field(pm_data_field **arr, size_t *n, size_t at, pm_data_field *f, pm_error *err) {
  pm_data_field *na = realloc(*arr, (*n + 1) * sizeof *na);
  if (!na) return PM_NOMEM(err);
  *arr = na;
  memmove(na + at + 1, na + at, (*n - at) * sizeof *na);
  na[at] = *f;
  memset(f, 0, sizeof *f);
  (*n)++;
  return 0;
}

static void remove_field(pm_data_field *arr, size_t *n, size_t at, pm_data_field *out) {
  *out = arr[at];
  memmove(arr + at, arr + at + 1, (*n - at - 1) * sizeof *arr);
  (*n)--;
}

/* ---------------------------------------------- Java's NestedColumnModifier */

typedef int (*last_fn)(actx *a, size_t depth, pm_data_field **fields, size_t *n, const char *name);

static int modify(actx *a, pm_data_field **fields, size_t *n, size_t depth, pm_data_field **prev, size_t *prev_n,
                  size_t prev_depth, last_fn fn) {
  const pm_schema_change *c = a->c;
  if (depth == c->n_names - 1) return fn(a, depth, fields, n, c->names[depth]);
  if (depth >= c->n_names) return fn(a, prev_depth, prev, prev_n, c->names[prev_depth]);
  ssize_t i = field_index(*fields, *n, c->names[depth]);
  char buf[512];
  if (i < 0)
    return pm_errorf(a->err, PAIMON_ERR_NOT_FOUND, "alter %s: column %s does not exist", tname(a),
                     path_upto(c, depth, NULL, buf, sizeof buf));
  pm_data_type *t = (*fields)[i].type;
  size_t step = 1;
  while (t && (t->root == PM_DT_ARRAY || t->root == PM_DT_MAP)) {
    t = t->root == PM_DT_ARRAY ? t->element : t->value;
    step++;
  }
  if (t && t->root == PM_DT_ROW) return modify(a, &t->fields, &t->n_fields, depth + step, fields, n, depth, fn);
  /* no ROW below: Java walks an empty list whose changes are dropped */
  pm_data_field *none = NULL;
  size_t n_none = 0;
  int rc = modify(a, &none, &n_none, depth + step, fields, n, depth, fn);
  for (size_t k = 0; k < n_none; k++) pm_data_field_clear(&none[k]);
  free(none);
  return rc;
}

static int run_modifier(actx *a, pm_data_field **fields, size_t *n, last_fn fn) {
  return modify(a, fields, n, 0, fields, n, 0, fn);
}

static int assert_exists(actx *a, const pm_data_field *f, size_t n, size_t depth, const char *name) {
  if (field_index(f, n, name) >= 0) return 0;
  char buf[512];
  return pm_errorf(a->err, PAIMON_ERR_NOT_FOUND, "alter %s: column %s does not exist", tname(a),
                   path_upto(a->c, a->c->n_names - 1, name, buf, sizeof buf));
  (void)depth;
}

static int assert_not_exists(actx *a, const pm_data_field *f, size_t n, const char *name) {
  if (field_index(f, n, name) < 0) return 0;
  char buf[512];
  return pm_errorf(a->err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: column %s already exists", tname(a),
                   path_upto(a->c, a->c->n_names - 1, name, buf, sizeof buf));
}

/* ---- add column */

static int add_last(actx *a, size_t depth, pm_data_field **fields, size_t *n, const char *name) {
  (void)depth;
  const pm_schema_change *c = a->c;
  PM_TRY(assert_not_exists(a, *fields, *n, name));
  size_t at = *n;
  if (c->move == PM_MOVE_FIRST) {
    at = 0;
  } else if (c->move == PM_MOVE_AFTER || c->move == PM_MOVE_BEFORE) {
    ssize_t r = c->reference ? field_index(*fields, *n, c->reference) : -1;
    if (r < 0)
      return pm_errorf(a->err, PAIMON_ERR_NOT_FOUND, "alter %s: column %s does not exist", tname(a),
                       c->reference ? c->reference : "(null)");
    at = (size_t)r + (c->move == PM_MOVE_AFTER);
  } else if (c->move == PM_MOVE_NONE && a->add_before_partition && a->old->n_partition_keys && c->n_names == 1) {
    for (size_t i = 0; i < *n; i++)
      if (in_list((*fields)[i].name, a->old->partition_keys, a->old->n_partition_keys)) {
        at = i;
        break;
      }
  }
  pm_data_field f = {0};
  f.id = a->add_id;
  f.name = strdup(name);
  f.description = c->comment ? strdup(c->comment) : NULL;
  if (!f.name || (c->comment && !f.description)) {
    pm_data_field_clear(&f);
    return PM_NOMEM(a->err);
  }
  f.type = a->add_type;
  a->add_type = NULL;
  int rc = insert_field(fields, n, at, &f, a->err);
  pm_data_field_clear(&f);
  return rc;
}

/* Java's ReassignFieldId: nested ROW fields get ids from the counter, a field's own nested
 * types first (the visitor evaluates the type before the builder numbers the field). */
static void reassign_ids(pm_data_type *t, int32_t *highest) {
  if (!t) return;
  switch (t->root) {
    case PM_DT_ROW:
      for (size_t i = 0; i < t->n_fields; i++) {
        reassign_ids(t->fields[i].type, highest);
        t->fields[i].id = ++*highest;
      }
      break;
    case PM_DT_ARRAY:
    case PM_DT_MULTISET:
    case PM_DT_VECTOR: reassign_ids(t->element, highest); break;
    case PM_DT_MAP:
      reassign_ids(t->key, highest);
      reassign_ids(t->value, highest);
      break;
    default: break;
  }
}

static int apply_add(actx *a, pm_table_schema *s) {
  const pm_schema_change *c = a->c;
  char buf[512];
  if (!c->type) return pm_errorf(a->err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: add column without a type", tname(a));
  if (!c->type->nullable)
    return pm_errorf(a->err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: column %s cannot specify NOT NULL in the %s table",
                     tname(a), full_path(c, buf, sizeof buf), tname(a));
  a->add_id = ++a->highest;
  PM_TRY(pm_dtype_copy(c->type, &a->add_type, a->err));
  reassign_ids(a->add_type, &a->highest);
  int rc = run_modifier(a, &s->fields, &s->n_fields, add_last);
  pm_dtype_free(a->add_type);
  a->add_type = NULL;
  return rc;
}

/* ---- rename / drop */

static int rename_last(actx *a, size_t depth, pm_data_field **fields, size_t *n, const char *name) {
  PM_TRY(assert_exists(a, *fields, *n, depth, name));
  PM_TRY(assert_not_exists(a, *fields, *n, a->c->new_name));
  ssize_t i = field_index(*fields, *n, name);
  char *nn = strdup(a->c->new_name);
  if (!nn) return PM_NOMEM(a->err);
  free((*fields)[i].name);
  (*fields)[i].name = nn;
  return 0;
}

static int drop_last(actx *a, size_t depth, pm_data_field **fields, size_t *n, const char *name) {
  PM_TRY(assert_exists(a, *fields, *n, depth, name));
  ssize_t i;
  while ((i = field_index(*fields, *n, name)) >= 0) {
    pm_data_field gone;
    remove_field(*fields, n, (size_t)i, &gone);
    pm_data_field_clear(&gone);
  }
  if (*n == 0) return pm_errorf(a->err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: cannot drop all fields in table", tname(a));
  return 0;
}

static int is_blob_field(const pm_data_type *t) {
  if (t->root == PM_DT_BLOB) return 1;
  if (t->root == PM_DT_ARRAY) return t->element && t->element->root == PM_DT_BLOB;
  if (t->root == PM_DT_MAP) return t->value && t->value->root == PM_DT_BLOB;
  return 0;
}

static int refuse_partition(actx *a, const char *op) {
  const pm_schema_change *c = a->c;
  if (c->n_names == 1 && in_list(c->names[0], a->old->partition_keys, a->old->n_partition_keys))
    return pm_errorf(a->err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: cannot %s partition column: [%s]", tname(a), op,
                     c->names[0]);
  return 0;
}

static int refuse_primary_key(actx *a, const char *op) {
  const pm_schema_change *c = a->c;
  if (c->n_names == 1 && in_list(c->names[0], a->old->primary_keys, a->old->n_primary_keys))
    return pm_errorf(a->err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: cannot %s primary key [%s]", tname(a), op,
                     c->names[0]);
  return 0;
}

/* ---- updates of one column: Java's updateNestedColumn */

/* The type slot at depth of the update path (Java's getRootType / getArrayMapTypeWithTargetTypeRoot). */
static pm_data_type **root_slot(pm_data_field *f, size_t depth, size_t max_depth) {
  pm_data_type **slot = &f->type;
  while (depth != max_depth - 1 && *slot && ((*slot)->root == PM_DT_ARRAY || (*slot)->root == PM_DT_MAP)) {
    slot = (*slot)->root == PM_DT_ARRAY ? &(*slot)->element : &(*slot)->value;
    depth++;
  }
  return slot;
}

static int check_nullability(actx *a, int old_nullable, int new_nullable) {
  char buf[512];
  if (a->null_to_not_null_disabled && old_nullable && !new_nullable)
    return pm_errorf(a->err, PAIMON_ERR_INVALID_ARGUMENT,
                     "alter %s: cannot update column %s from nullable to non nullable (table option '%s' = 'false' "
                     "allows it)",
                     tname(a), full_path(a->c, buf, sizeof buf),
                     pm_core_option_key(PM_CO_ALTER_NULL_TO_NOT_NULL_DISABLED));
  return 0;
}

static int update_last(actx *a, size_t depth, pm_data_field **fields, size_t *n, const char *name) {
  const pm_schema_change *c = a->c;
  char buf[512];
  ssize_t i = field_index(*fields, *n, name);
  if (i < 0)
    return pm_errorf(a->err, PAIMON_ERR_NOT_FOUND, "alter %s: column %s does not exist", tname(a),
                     full_path(c, buf, sizeof buf));
  pm_data_field *f = &(*fields)[i];
  pm_data_type **slot = root_slot(f, depth, c->n_names);
  if (c->kind == PM_SC_UPDATE_COLUMN_COMMENT) {
    char *d = c->comment ? strdup(c->comment) : NULL;
    if (c->comment && !d) return PM_NOMEM(a->err);
    free(f->description);
    f->description = d;
    return 0;
  }
  if (c->kind == PM_SC_UPDATE_COLUMN_NULLABILITY) {
    PM_TRY(check_nullability(a, (*slot)->nullable, c->nullable));
    (*slot)->nullable = c->nullable ? 1 : 0;
    return 0;
  }
  /* UPDATE_COLUMN_TYPE */
  pm_data_type *target;
  PM_TRY(pm_dtype_copy(c->type, &target, a->err));
  if (c->keep_nullability) {
    target->nullable = (*slot)->nullable;
  } else {
    int rc = check_nullability(a, (*slot)->nullable, target->nullable);
    if (rc) {
      pm_dtype_free(target);
      return rc;
    }
  }
  if (!pm_dtype_supports_cast(*slot, target, !a->explicit_casting_disabled) ||
      !pm_dtype_cast_resolvable(*slot, target)) {
    char *from = pm_dtype_to_cstring(*slot), *to = pm_dtype_to_cstring(target);
    int rc = pm_errorf(a->err, PAIMON_ERR_INVALID_ARGUMENT,
                       "alter %s: column type %s[%s] cannot be converted to %s without losing information", tname(a),
                       f->name, from ? from : "?", to ? to : "?");
    free(from);
    free(to);
    pm_dtype_free(target);
    return rc;
  }
  pm_dtype_free(*slot);
  *slot = target;
  return 0;
}

/* ---- position (top level only, Java's applyMove) */

static int apply_move(actx *a, pm_table_schema *s) {
  const pm_schema_change *c = a->c;
  ssize_t from = field_index(s->fields, s->n_fields, c->names[0]);
  if (from < 0)
    return pm_errorf(a->err, PAIMON_ERR_NOT_FOUND, "alter %s: field name not found: %s", tname(a), c->names[0]);
  ssize_t to;
  if (c->move == PM_MOVE_FIRST || c->move == PM_MOVE_LAST || c->move == PM_MOVE_NONE) {
    to = c->move == PM_MOVE_FIRST ? 0 : (ssize_t)s->n_fields - 1;
    if (from == to)
      return pm_errorf(a->err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: cannot move itself for column %s", tname(a),
                       c->names[0]);
  } else {
    ssize_t ref = c->reference ? field_index(s->fields, s->n_fields, c->reference) : -1;
    if (ref < 0)
      return pm_errorf(a->err, PAIMON_ERR_NOT_FOUND, "alter %s: reference field name not found: %s", tname(a),
                       c->reference ? c->reference : "(null)");
    if (ref == from)
      return pm_errorf(a->err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: cannot move itself for column %s", tname(a),
                       c->names[0]);
    to = ref;
    if (c->move == PM_MOVE_AFTER && from > ref) to++;
    if (c->move == PM_MOVE_BEFORE && from < ref) to--;
    if (to > (ssize_t)s->n_fields - 1) to = (ssize_t)s->n_fields - 1;
  }
  pm_data_field f;
  remove_field(s->fields, &s->n_fields, (size_t)from, &f);
  memmove(s->fields + to + 1, s->fields + to, (s->n_fields - (size_t)to) * sizeof *s->fields);
  s->fields[to] = f;
  s->n_fields++;
  return 0;
}

/* ---------------------------------------------------------- options */

static int java_bool(const char *v) { return v && !strcasecmp(v, "true"); }

/* Java's SchemaManager.isUnchangedNormalizedKey. */
static int key_list_equals(const char *v, char *const *list, size_t n) {
  size_t k = 0;
  const char *p = v;
  while (*p) {
    const char *e = strchr(p, ',');
    if (!e) e = p + strlen(p);
    const char *a = p, *b = e;
    while (a < b && (unsigned char)*a <= ' ') a++;
    while (b > a && (unsigned char)b[-1] <= ' ') b--;
    if (b > a) {
      if (k >= n || strlen(list[k]) != (size_t)(b - a) || strncmp(list[k], a, (size_t)(b - a))) return 0;
      k++;
    }
    p = *e ? e + 1 : e;
  }
  return k == n;
}

static int unchanged_normalized(const actx *a, const char *key, const char *old, const char *nv) {
  if (!strcmp(key, pm_core_option_key(PM_CO_TABLE_TYPE))) return !strcasecmp(nv, old ? old : "table");
  if (old) return 0;
  if (!strcmp(key, pm_core_option_key(PM_CO_PRIMARY_KEY)))
    return key_list_equals(nv, a->old->primary_keys, a->old->n_primary_keys);
  if (!strcmp(key, pm_core_option_key(PM_CO_PARTITION)))
    return key_list_equals(nv, a->old->partition_keys, a->old->n_partition_keys);
  return 0;
}

static int parse_java_int(const actx *a, const char *key, const char *v, int32_t *out) {
  int64_t x;
  if (pm_parse_int64(key, v, &x, a->err) || x < INT32_MIN || x > INT32_MAX)
    return pm_errorf(a->err, PAIMON_ERR_INVALID_ARGUMENT, "option '%s': '%s' is not an integer", key, v);
  *out = (int32_t)x;
  return 0;
}

/* Java's SchemaManager.checkAlterTableOption (against the old options). */
static int check_alter_option(const actx *a, const char *key, const char *old, const char *nv) {
  if (pm_core_option_is_immutable(key))
    return pm_errorf(a->err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: change '%s' is not supported yet", tname(a), key);
  const pm_options *o = a->old_opts;
  if (!strcmp(key, pm_core_option_key(PM_CO_BUCKET))) {
    int32_t ob = -1, nb;
    if (old) PM_TRY(parse_java_int(a, key, old, &ob));
    PM_TRY(parse_java_int(a, key, nv, &nb));
    if (ob == -1)
      return pm_errorf(a->err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: cannot change bucket when it is -1", tname(a));
    if (nb == -1)
      return pm_errorf(a->err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: cannot change bucket to -1", tname(a));
  }
  if (!strcmp(key, pm_core_option_key(PM_CO_DV_ENABLED))) {
    if (!java_bool(pm_options_get(o, pm_core_option_key(PM_CO_DV_MODIFIABLE)))) {
      int od = java_bool(old), nd = java_bool(nv);
      if (od != nd)
        return pm_errorf(a->err, PAIMON_ERR_INVALID_ARGUMENT,
                         "alter %s: cannot change deletion vectors mode from %s to %s (this may duplicate data "
                         "without a full compaction; table option '%s' = 'true' allows it)",
                         tname(a), od ? "true" : "false", nd ? "true" : "false",
                         pm_core_option_key(PM_CO_DV_MODIFIABLE));
    }
  }
  const pm_co_id one_way[] = {PM_CO_IGNORE_DELETE, PM_CO_IGNORE_UPDATE_BEFORE};
  for (size_t i = 0; i < 2; i++)
    if (!strcmp(key, pm_core_option_key(one_way[i])) && java_bool(old) && !java_bool(nv))
      return pm_errorf(a->err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: cannot change %s from true to false", tname(a),
                       key);
  if (!strcmp(key, pm_core_option_key(PM_CO_CLUSTERING_COLUMNS)) &&
      pm_options_get(o, pm_core_option_key(PM_CO_PK_CLUSTERING_OVERRIDE)))
    return pm_errorf(a->err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: cannot change %s when %s enabled", tname(a), key,
                     pm_core_option_key(PM_CO_PK_CLUSTERING_OVERRIDE));
  return 0;
}

/* Java's SchemaManager.checkResetTableOption. */
static int check_reset_option(const actx *a, const char *key) {
  if (pm_core_option_is_immutable(key))
    return pm_errorf(a->err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: change '%s' is not supported yet", tname(a), key);
  if (!strcmp(key, pm_core_option_key(PM_CO_BUCKET)))
    return pm_errorf(a->err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: cannot reset %s", tname(a), key);
  if (!strcmp(key, pm_core_option_key(PM_CO_DV_ENABLED))) {
    const char *old = pm_options_get(a->old_opts, key);
    const char *dflt = "false"; /* Java resets to the default */
    PM_TRY(check_alter_option(a, key, old, dflt));
  }
  if (!strcmp(key, pm_core_option_key(PM_CO_CLUSTERING_COLUMNS)) &&
      pm_options_get(a->old_opts, pm_core_option_key(PM_CO_PK_CLUSTERING_OVERRIDE)))
    return pm_errorf(a->err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: cannot reset %s when %s enabled", tname(a), key,
                     pm_core_option_key(PM_CO_PK_CLUSTERING_OVERRIDE));
  return 0;
}

static int refuse_type(const actx *a) {
  return pm_errorf(a->err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: change '%s' is not supported yet", tname(a),
                   pm_core_option_key(PM_CO_TABLE_TYPE));
}

/* Reorders o to the key order of m (every key of o is in m). */
static int reorder_options(pm_options *o, const pm_jmap *m, pm_error *err) {
  const char **order;
  PM_TRY(pm_jmap_order(m, &order, err));
  pm_options out;
  pm_options_init(&out);
  int rc = 0;
  for (size_t i = 0; !rc && i < m->n; i++) {
    const char *v = pm_options_get(o, order[i]);
    if (v) rc = pm_options_set(&out, order[i], v, err);
  }
  free(order);
  if (rc) {
    pm_options_clear(&out);
    return rc;
  }
  pm_options_clear(o);
  *o = out;
  return 0;
}

/* ------------------------------------------------------------- apply */

static int split_keys(const char *v, char ***out, size_t *n, pm_error *err) {
  *out = NULL;
  *n = 0;
  size_t cap = 1;
  for (const char *p = v; *p; p++) cap += *p == ',';
  char **list = calloc(cap, sizeof *list);
  if (!list) return PM_NOMEM(err);
  size_t k = 0;
  const char *p = v;
  while (1) {
    const char *e = strchr(p, ',');
    if (!e) e = p + strlen(p);
    const char *a = p, *b = e;
    while (a < b && (unsigned char)*a <= ' ') a++;
    while (b > a && (unsigned char)b[-1] <= ' ') b--;
    if (b > a && !(list[k++] = strndup(a, (size_t)(b - a)))) {
      free_names(list, k);
      return PM_NOMEM(err);
    }
    if (!*e) break;
    p = e + 1;
  }
  *out = list;
  *n = k;
  return 0;
}

/* Java's Schema constructor: `partition` / `primary-key` options become the key lists. */
static int normalize_key_option(actx *a, pm_table_schema *s, pm_jmap *m, pm_co_id id, char ***keys, size_t *n,
                                const char *what) {
  const char *k = pm_core_option_key(id), *v = pm_options_get(&s->options, k);
  if (!v) return 0;
  if (*n)
    return pm_errorf(a->err, PAIMON_ERR_INVALID_ARGUMENT,
                     "alter %s: cannot define %s on DDL and table options at the same time", tname(a), what);
  free_names(*keys, *n);
  *keys = NULL;
  *n = 0;
  PM_TRY(split_keys(v, keys, n, a->err));
  pm_options_remove(&s->options, k);
  pm_jmap_remove(m, k);
  return 0;
}

static int apply_one(actx *a, pm_table_schema *s, pm_jmap *m, char **comment) {
  const pm_schema_change *c = a->c;
  char buf[512];
  int column_kind = c->kind != PM_SC_SET_OPTION && c->kind != PM_SC_REMOVE_OPTION && c->kind != PM_SC_UPDATE_COMMENT;
  if (column_kind && c->n_names == 0)
    return pm_errorf(a->err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: schema change without a column", tname(a));
  switch (c->kind) {
    case PM_SC_SET_OPTION: {
      if (!c->key || !c->value)
        return pm_errorf(a->err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: set option without key or value", tname(a));
      const char *old = pm_options_get(a->old_opts, c->key);
      int unchanged = (old && !strcmp(old, c->value)) || unchanged_normalized(a, c->key, old, c->value);
      if (!unchanged && !strcmp(c->key, pm_core_option_key(PM_CO_TABLE_TYPE))) return refuse_type(a);
      if (!unchanged && a->has_snapshots) PM_TRY(check_alter_option(a, c->key, old, c->value));
      if (!unchanged) {
        PM_TRY(pm_options_set(&s->options, c->key, c->value, a->err));
        PM_TRY(pm_jmap_put(m, c->key, a->err));
      }
      return 0;
    }
    case PM_SC_REMOVE_OPTION:
      if (!c->key) return pm_errorf(a->err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: remove option without key", tname(a));
      if (!strcmp(c->key, pm_core_option_key(PM_CO_TABLE_TYPE))) return refuse_type(a);
      if (a->has_snapshots) PM_TRY(check_reset_option(a, c->key));
      pm_options_remove(&s->options, c->key);
      pm_jmap_remove(m, c->key);
      return 0;
    case PM_SC_UPDATE_COMMENT: {
      char *d = c->comment ? strdup(c->comment) : NULL;
      if (c->comment && !d) return PM_NOMEM(a->err);
      free(*comment);
      *comment = d;
      return 0;
    }
    case PM_SC_ADD_COLUMN: return apply_add(a, s);
    case PM_SC_RENAME_COLUMN: {
      if (!c->new_name || !*c->new_name)
        return pm_errorf(a->err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: rename of %s without a new name", tname(a),
                         full_path(c, buf, sizeof buf));
      PM_TRY(refuse_partition(a, "rename"));
      if (c->n_names == 1) {
        ssize_t i = field_index(s->fields, s->n_fields, c->names[0]);
        if (i >= 0 && is_blob_field(s->fields[i].type))
          return pm_errorf(a->err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: cannot rename BLOB column: [%s]", tname(a),
                           c->names[0]);
      }
      return run_modifier(a, &s->fields, &s->n_fields, rename_last);
    }
    case PM_SC_DROP_COLUMN:
      if (c->n_names == 1 && (in_list(c->names[0], a->old->partition_keys, a->old->n_partition_keys) ||
                              in_list(c->names[0], a->old->primary_keys, a->old->n_primary_keys)))
        return pm_errorf(a->err, PAIMON_ERR_INVALID_ARGUMENT,
                         "alter %s: cannot drop partition key or primary key: [%s]", tname(a), c->names[0]);
      return run_modifier(a, &s->fields, &s->n_fields, drop_last);
    case PM_SC_UPDATE_COLUMN_TYPE:
      if (!c->type) return pm_errorf(a->err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: update type without a type", tname(a));
      PM_TRY(refuse_partition(a, "update"));
      PM_TRY(refuse_primary_key(a, "update"));
      if (c->n_names == 1) {
        ssize_t i = field_index(s->fields, s->n_fields, c->names[0]);
        if (i >= 0 && (is_blob_field(s->fields[i].type) || is_blob_field(c->type)))
          return pm_errorf(a->err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: cannot change column type involving BLOB: [%s]",
                           tname(a), c->names[0]);
      }
      return run_modifier(a, &s->fields, &s->n_fields, update_last);
    case PM_SC_UPDATE_COLUMN_NULLABILITY:
      if (c->nullable) PM_TRY(refuse_primary_key(a, "change nullability of"));
      return run_modifier(a, &s->fields, &s->n_fields, update_last);
    case PM_SC_UPDATE_COLUMN_COMMENT: return run_modifier(a, &s->fields, &s->n_fields, update_last);
    case PM_SC_UPDATE_COLUMN_POSITION: return apply_move(a, s);
  }
  return pm_errorf(a->err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: unknown schema change %d", tname(a), (int)c->kind);
}

/* Column renames carried into the primary keys (top-level renames) and the options. */
static int apply_renames(actx *a, const pm_schema_change *changes, size_t n, pm_table_schema *s, pm_jmap *m,
                         pm_jmap *renamed_map, int *renamed) {
  size_t nr = 0;
  for (size_t i = 0; i < n; i++) nr += changes[i].kind == PM_SC_RENAME_COLUMN;
  *renamed = nr > 0;
  if (!nr) return 0;
  const char **from = calloc(nr, sizeof *from), **to = calloc(nr, sizeof *to);
  int rc = 0;
  if (!from || !to) rc = PM_NOMEM(a->err);
  size_t k = 0;
  for (size_t i = 0; !rc && i < n; i++)
    if (changes[i].kind == PM_SC_RENAME_COLUMN) {
      from[k] = changes[i].names[0];
      to[k] = changes[i].new_name;
      k++;
    }
  /* primary keys: only renames of top-level columns, the last one of a column wins */
  for (size_t p = 0; !rc && p < s->n_primary_keys; p++) {
    const char *nn = NULL;
    for (size_t i = 0; i < n; i++)
      if (changes[i].kind == PM_SC_RENAME_COLUMN && changes[i].n_names == 1 &&
          !strcmp(changes[i].names[0], s->primary_keys[p]))
        nn = changes[i].new_name;
    if (nn) {
      char *d = strdup(nn);
      if (!d) {
        rc = PM_NOMEM(a->err);
        break;
      }
      free(s->primary_keys[p]);
      s->primary_keys[p] = d;
    }
  }
  /* options: edits computed on the map in Java's order, applied to a copy (Maps.newHashMap) */
  pm_option_edit *edits = NULL;
  size_t ne = 0;
  if (!rc) rc = reorder_options(&s->options, m, a->err);
  if (!rc) rc = pm_options_rename_edits(&s->options, from, to, nr, &edits, &ne, a->err);
  if (!rc) rc = pm_jmap_copy(m, renamed_map, a->err);
  for (size_t i = 0; !rc && i < ne; i++) {
    if (edits[i].remove) {
      pm_options_remove(&s->options, edits[i].key);
      pm_jmap_remove(renamed_map, edits[i].key);
    } else {
      rc = pm_options_set(&s->options, edits[i].key, edits[i].value, a->err);
      if (!rc) rc = pm_jmap_put(renamed_map, edits[i].key, a->err);
    }
  }
  pm_option_edits_free(edits, ne);
  free(from);
  free(to);
  return rc;
}

static int64_t now_millis(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Java's deserializer: old tables get the defaults of their version put into the map. */
static int loaded_options(const pm_table_schema *old, pm_options *o, pm_error *err) {
  PM_TRY(pm_options_copy(&old->options, o, err));
  int rc = 0;
  if (old->version <= 1 && !pm_options_get(o, pm_core_option_key(PM_CO_BUCKET)))
    rc = pm_options_set(o, pm_core_option_key(PM_CO_BUCKET), "1", err);
  if (!rc && old->version <= 2 && !pm_options_get(o, pm_core_option_key(PM_CO_FILE_FORMAT)))
    rc = pm_options_set(o, pm_core_option_key(PM_CO_FILE_FORMAT), "orc", err);
  if (rc) pm_options_clear(o);
  return rc;
}

int pm_schema_apply_changes(const pm_table_schema *old, const pm_schema_change *changes, size_t n,
                            const pm_schema_change_ctx *ctx, pm_table_schema **out, pm_error *err) {
  *out = NULL;
  pm_options old_opts;
  PM_TRY(loaded_options(old, &old_opts, err));
  actx a = {0};
  a.old = old;
  a.old_opts = &old_opts;
  a.table = ctx ? ctx->table_name : NULL;
  a.err = err;
  a.has_snapshots = ctx ? ctx->has_snapshots : 0;
  a.null_to_not_null_disabled = 1;
  const char *v;
  if ((v = pm_options_get(&old_opts, pm_core_option_key(PM_CO_ALTER_NULL_TO_NOT_NULL_DISABLED))))
    a.null_to_not_null_disabled = java_bool(v);
  a.explicit_casting_disabled = java_bool(pm_options_get(&old_opts, pm_core_option_key(PM_CO_DISABLE_EXPLICIT_TYPE_CASTING)));
  a.add_before_partition = java_bool(pm_options_get(&old_opts, pm_core_option_key(PM_CO_ADD_COLUMN_BEFORE_PARTITION)));
  a.highest = old->highest_field_id;

  pm_table_schema *s = NULL;
  pm_jmap loaded, m, renamed_map, final_map;
  pm_jmap_init(&loaded);
  pm_jmap_init(&m);
  pm_jmap_init(&renamed_map);
  pm_jmap_init(&final_map);
  char *comment = NULL;
  int rc = pm_table_schema_copy(old, &s, err);
  if (!rc) {
    pm_options_clear(&s->options);
    rc = pm_options_copy(&old_opts, &s->options, err);
  }
  for (size_t i = 0; !rc && i < old_opts.n; i++) rc = pm_jmap_put(&loaded, old_opts.keys[i], err);
  if (!rc) rc = pm_jmap_copy(&loaded, &m, err);
  if (!rc && old->comment && !(comment = strdup(old->comment))) rc = PM_NOMEM(err);
  for (size_t i = 0; !rc && i < n; i++) {
    a.c = &changes[i];
    rc = apply_one(&a, s, &m, &comment);
  }
  int renamed = 0;
  if (!rc) rc = apply_renames(&a, changes, n, s, &m, &renamed_map, &renamed);
  if (!rc) rc = pm_jmap_copy(renamed ? &renamed_map : &m, &final_map, err);
  if (!rc) {
    free(s->comment);
    s->comment = comment;
    comment = NULL;
    s->version = 3;
    s->id = old->id + 1;
    s->highest_field_id = a.highest > old->highest_field_id ? a.highest : old->highest_field_id;
    s->time_millis = ctx && ctx->now_millis ? ctx->now_millis : now_millis();
    rc = normalize_key_option(&a, s, &final_map, PM_CO_PARTITION, &s->partition_keys, &s->n_partition_keys,
                              "partition");
  }
  if (!rc)
    rc = normalize_key_option(&a, s, &final_map, PM_CO_PRIMARY_KEY, &s->primary_keys, &s->n_primary_keys,
                              "primary key");
  if (!rc) rc = reorder_options(&s->options, &final_map, err);
  if (!rc) rc = pm_schema_normalize_fields(s, a.table, err);
  if (!rc) rc = pm_schema_alter_validate(s, a.table, err);
  free(comment);
  pm_jmap_clear(&loaded);
  pm_jmap_clear(&m);
  pm_jmap_clear(&renamed_map);
  pm_jmap_clear(&final_map);
  pm_options_clear(&old_opts);
  if (rc) {
    pm_schema_free(s);
    return rc;
  }
  *out = s;
  return 0;
}
