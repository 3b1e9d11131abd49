/* schema-0 of a new table: the spec, its inputs (type strings, SQL column list, JSON, Arrow) and Java's
 * normalisation (Schema / TableSchema.create). Validation: schema_validate.c. */
#include "meta/schema_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meta/java_hashmap.h"
#include "meta/json_util.h"
#include "util/str.h"

void pm_schema_spec_init(pm_schema_spec *s) {
  memset(s, 0, sizeof *s);
  pm_options_init(&s->options);
}

static void fields_free(pm_data_field *f, size_t n) {
  for (size_t i = 0; i < n; i++) pm_data_field_clear(&f[i]);
  free(f);
}

void pm_schema_spec_clear(pm_schema_spec *s) {
  if (!s) return;
  fields_free(s->fields, s->n_fields);
  pm_free_strings(s->partition_keys, s->n_partition_keys);
  pm_free_strings(s->primary_keys, s->n_primary_keys);
  pm_options_clear(&s->options);
  free(s->comment);
  pm_schema_spec_init(s);
}

static int dup_list(const char *const *v, size_t n, char ***out, size_t *nout, pm_error *err) {
  char **c = n ? calloc(n, sizeof(char *)) : NULL;
  if (n && !c) return PM_NOMEM(err);
  for (size_t i = 0; i < n; i++) {
    if (!v[i]) {
      pm_free_strings(c, n);
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "key column %zu is NULL", i);
    }
    if (!(c[i] = strdup(v[i]))) {
      pm_free_strings(c, n);
      return PM_NOMEM(err);
    }
  }
  *out = c;
  *nout = n;
  return 0;
}

/* Takes *f (moved in; cleared on failure too). */
static int push_field(pm_schema_spec *s, pm_data_field *f, pm_error *err) {
  if (s->n_fields == s->cap_fields) {
    size_t nc = s->cap_fields ? s->cap_fields * 2 : 8;
    pm_data_field *nf = realloc(s->fields, nc * sizeof *nf);
    if (!nf) {
      pm_data_field_clear(f);
      return PM_NOMEM(err);
    }
    s->fields = nf;
    s->cap_fields = nc;
  }
  s->fields[s->n_fields++] = *f;
  memset(f, 0, sizeof *f);
  return 0;
}

int pm_schema_spec_copy(const pm_schema_spec *src, pm_schema_spec *dst, pm_error *err) {
  pm_schema_spec_init(dst);
  int rc = 0;
  for (size_t i = 0; !rc && i < src->n_fields; i++) {
    pm_data_field f;
    rc = pm_data_field_copy(&src->fields[i], &f, err);
    if (!rc) rc = push_field(dst, &f, err);
  }
  if (!rc)
    rc = dup_list((const char *const *)src->partition_keys, src->n_partition_keys, &dst->partition_keys,
                  &dst->n_partition_keys, err);
  if (!rc)
    rc = dup_list((const char *const *)src->primary_keys, src->n_primary_keys, &dst->primary_keys,
                  &dst->n_primary_keys, err);
  if (!rc) {
    pm_options_clear(&dst->options);
    rc = pm_options_copy(&src->options, &dst->options, err);
  }
  if (!rc && src->comment && !(dst->comment = strdup(src->comment))) rc = PM_NOMEM(err);
  dst->keep_ids = src->keep_ids;
  dst->n_default_options = src->n_default_options;
  if (rc) pm_schema_spec_clear(dst);
  return rc;
}

/* Type-string errors are the caller's input here: INVALID_ARGUMENT. */
static int as_invalid(int rc, pm_error *err) {
  if (rc == PAIMON_ERR_CORRUPT || rc == PAIMON_ERR_UNSUPPORTED) {
    if (err) err->code = PAIMON_ERR_INVALID_ARGUMENT;
    return PAIMON_ERR_INVALID_ARGUMENT;
  }
  return rc;
}

int pm_schema_spec_add_column(pm_schema_spec *s, const char *name, const char *type, const char *comment,
                              pm_error *err) {
  if (!name || !*name) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "column name is empty");
  if (!type) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "column '%s': type is NULL", name);
  pm_data_field f = {.id = -1};
  int rc = as_invalid(pm_dtype_parse(type, &f.type, err), err);
  if (rc) return pm_error_prefix(err, "column '%s': ", name);
  if (!(f.name = strdup(name)) || (comment && !(f.description = strdup(comment)))) {
    pm_data_field_clear(&f);
    return PM_NOMEM(err);
  }
  s->keep_ids = 0;
  return push_field(s, &f, err);
}

int pm_schema_spec_add_columns_sql(pm_schema_spec *s, const char *text, pm_error *err) {
  if (!text) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "column list is NULL");
  pm_data_field *f = NULL;
  size_t n = 0;
  int rc = as_invalid(pm_dtype_parse_fields(text, &f, &n, err), err);
  if (rc) return rc;
  if (!n) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "column list '%s' names no column", text);
  s->keep_ids = 0;
  size_t i = 0;
  for (; !rc && i < n; i++) rc = push_field(s, &f[i], err);
  fields_free(f, n); /* moved entries are zeroed */
  return rc;
}

int pm_schema_spec_set_primary_key(pm_schema_spec *s, const char *const *cols, size_t n, pm_error *err) {
  char **v = NULL;
  size_t k = 0;
  PM_TRY(dup_list(cols, n, &v, &k, err));
  pm_free_strings(s->primary_keys, s->n_primary_keys);
  s->primary_keys = v;
  s->n_primary_keys = k;
  return 0;
}

int pm_schema_spec_set_partition_keys(pm_schema_spec *s, const char *const *cols, size_t n, pm_error *err) {
  char **v = NULL;
  size_t k = 0;
  PM_TRY(dup_list(cols, n, &v, &k, err));
  pm_free_strings(s->partition_keys, s->n_partition_keys);
  s->partition_keys = v;
  s->n_partition_keys = k;
  return 0;
}

int pm_schema_spec_set_comment(pm_schema_spec *s, const char *comment, pm_error *err) {
  char *c = NULL;
  if (comment && !(c = strdup(comment))) return PM_NOMEM(err);
  free(s->comment);
  s->comment = c;
  return 0;
}

/* ------------------------------------------------------------------ JSON */

static int all_ids(const pm_data_type *t, int depth);

static int fields_have_ids(const pm_data_field *f, size_t n, int depth) {
  for (size_t i = 0; i < n; i++)
    if (f[i].id < 0 || !all_ids(f[i].type, depth + 1)) return 0;
  return 1;
}

static int all_ids(const pm_data_type *t, int depth) {
  if (!t || depth > PM_DT_MAX_DEPTH) return 1;
  switch (t->root) {
    case PM_DT_ROW: return fields_have_ids(t->fields, t->n_fields, depth);
    case PM_DT_ARRAY: case PM_DT_MULTISET: case PM_DT_VECTOR: return all_ids(t->element, depth + 1);
    case PM_DT_MAP: return all_ids(t->key, depth + 1) && all_ids(t->value, depth + 1);
    default: return 1;
  }
}

static int json_keys(const json_t *root, const char *key, char ***out, size_t *n, pm_error *err) {
  const json_t *a = json_object_get(root, key);
  if (!a || json_is_null(a)) return 0;
  if (!json_is_array(a)) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "schema JSON: \"%s\" is not an array", key);
  size_t cnt = json_array_size(a);
  char **v = cnt ? calloc(cnt, sizeof(char *)) : NULL;
  if (cnt && !v) return PM_NOMEM(err);
  for (size_t i = 0; i < cnt; i++) {
    const json_t *x = json_array_get(a, i);
    if (!json_is_string(x)) {
      pm_free_strings(v, cnt);
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "schema JSON: \"%s\"[%zu] is not a string", key, i);
    }
    if (!(v[i] = strdup(json_string_value(x)))) {
      pm_free_strings(v, cnt);
      return PM_NOMEM(err);
    }
  }
  *out = v;
  *n = cnt;
  return 0;
}

static int json_field(const json_t *j, size_t i, pm_data_field *f, pm_error *err) {
  memset(f, 0, sizeof *f);
  f->id = -1;
  if (!json_is_object(j)) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "schema JSON: fields[%zu] is not an object", i);
  const json_t *id = json_object_get(j, "id"), *name = json_object_get(j, "name"), *type = json_object_get(j, "type");
  if (!json_is_string(name) || !*json_string_value(name))
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "schema JSON: fields[%zu] has no \"name\"", i);
  const char *nm = json_string_value(name);
  if (!type) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "schema JSON: field '%s' has no \"type\"", nm);
  if (id && !json_is_null(id)) {
    if (!json_is_integer(id) || json_integer_value(id) < 0 || json_integer_value(id) > INT32_MAX)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "schema JSON: field '%s': \"id\" is not a field id", nm);
    f->id = (int32_t)json_integer_value(id);
  }
  if (!(f->name = strdup(nm))) return PM_NOMEM(err);
  char where[300];
  snprintf(where, sizeof where, "schema JSON: field '%.200s'", nm);
  int rc = as_invalid(pm_dtype_from_json(type, where, &f->type, err), err);
  const json_t *d = json_object_get(j, "description");
  if (!rc && d && !json_is_null(d)) {
    if (!json_is_string(d)) rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: \"description\" is not a string", where);
    else if (!(f->description = strdup(json_string_value(d)))) rc = PM_NOMEM(err);
  }
  if (rc) pm_data_field_clear(f);
  return rc;
}

int pm_schema_spec_from_json(const char *json, size_t len, pm_schema_spec *out, pm_error *err) {
  pm_schema_spec_init(out);
  json_t *root = NULL;
  int rc = as_invalid(pm_json_parse(json, len, "schema JSON", &root, err), err);
  if (rc) return rc;
  if (!json_is_object(root)) rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "schema JSON: not an object");
  const json_t *fields = rc ? NULL : json_object_get(root, "fields");
  if (!rc && !json_is_array(fields))
    rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "schema JSON: \"fields\" missing or not an array");
  for (size_t i = 0; !rc && i < json_array_size(fields); i++) {
    pm_data_field f;
    rc = json_field(json_array_get(fields, i), i, &f, err);
    if (!rc) rc = push_field(out, &f, err);
  }
  if (!rc) rc = json_keys(root, "partitionKeys", &out->partition_keys, &out->n_partition_keys, err);
  if (!rc) rc = json_keys(root, "primaryKeys", &out->primary_keys, &out->n_primary_keys, err);
  const json_t *opts = rc ? NULL : json_object_get(root, "options");
  if (opts && !json_is_null(opts)) {
    if (!json_is_object(opts)) rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "schema JSON: \"options\" is not an object");
    const char *k;
    json_t *v;
    if (!rc) json_object_foreach((json_t *)opts, k, v) {
        char num[64];
        const char *text = NULL;
        if (json_is_string(v)) text = json_string_value(v);
        else if (json_is_integer(v)) snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v)), text = num;
        else if (json_is_boolean(v)) text = json_is_true(v) ? "true" : "false";
        if (!text) {
          rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "schema JSON: option '%s' is not a string", k);
          break;
        }
        if ((rc = pm_options_set(&out->options, k, text, err))) break;
      }
  }
  const json_t *c = rc ? NULL : json_object_get(root, "comment");
  if (c && !json_is_null(c)) {
    if (!json_is_string(c)) rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "schema JSON: \"comment\" is not a string");
    else rc = pm_schema_spec_set_comment(out, json_string_value(c), err);
  }
  if (!rc) out->keep_ids = out->n_fields > 0 && fields_have_ids(out->fields, out->n_fields, 0);
  json_decref(root);
  if (rc) pm_schema_spec_clear(out);
  return rc;
}

/* ----------------------------------------------------------------- Arrow */

static int arrow_type(const struct ArrowSchema *a, int depth, pm_data_type **out, pm_error *err);

static int arrow_field(const struct ArrowSchema *a, int depth, pm_data_field *f, pm_error *err) {
  memset(f, 0, sizeof *f);
  f->id = -1;
  if (!a || !a->format) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "Arrow schema: NULL child");
  const char *nm = a->name ? a->name : "";
  if (!*nm) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "Arrow schema: a field has no name");
  if (!(f->name = strdup(nm))) return PM_NOMEM(err);
  int rc = arrow_type(a, depth, &f->type, err);
  if (rc) {
    pm_error_prefix(err, "Arrow field '%s': ", nm);
    pm_data_field_clear(f);
  }
  return rc;
}

static int ts_precision(char unit) {
  switch (unit) {
    case 's': return 0;
    case 'm': return 3;
    case 'u': return 6;
    case 'n': return 9;
    default: return -1;
  }
}

static int arrow_type(const struct ArrowSchema *a, int depth, pm_data_type **out, pm_error *err) {
  if (depth > PM_DT_MAX_DEPTH) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "type nested too deeply");
  const char *fmt = a->format;
  int nullable = (a->flags & ARROW_FLAG_NULLABLE) != 0;
  pm_dtype_root r;
  int32_t len = 0, prec = 0, scale = 0;
  int nested = 0;
  if (!strcmp(fmt, "b")) r = PM_DT_BOOLEAN;
  else if (!strcmp(fmt, "c")) r = PM_DT_TINYINT;
  else if (!strcmp(fmt, "s")) r = PM_DT_SMALLINT;
  else if (!strcmp(fmt, "i")) r = PM_DT_INT;
  else if (!strcmp(fmt, "l")) r = PM_DT_BIGINT;
  else if (!strcmp(fmt, "f")) r = PM_DT_FLOAT;
  else if (!strcmp(fmt, "g")) r = PM_DT_DOUBLE;
  else if (!strcmp(fmt, "u") || !strcmp(fmt, "U") || !strcmp(fmt, "vu")) r = PM_DT_VARCHAR, len = PM_DT_MAX_LENGTH;
  else if (!strcmp(fmt, "z") || !strcmp(fmt, "Z") || !strcmp(fmt, "vz")) r = PM_DT_VARBINARY, len = PM_DT_MAX_LENGTH;
  else if (!strncmp(fmt, "w:", 2)) {
    r = PM_DT_BINARY;
    len = atoi(fmt + 2);
    if (len < 1) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "bad fixed-size binary '%s'", fmt);
  } else if (!strncmp(fmt, "d:", 2)) {
    r = PM_DT_DECIMAL;
    if (sscanf(fmt + 2, "%d,%d", &prec, &scale) != 2 || prec < 1 || prec > 38 || scale < 0 || scale > prec)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "decimal '%s' does not fit DECIMAL(1..38, s)", fmt);
  } else if (!strcmp(fmt, "tdD")) r = PM_DT_DATE;
  else if (!strncmp(fmt, "tt", 2) && fmt[2] && !fmt[3] && ts_precision(fmt[2]) >= 0) {
    r = PM_DT_TIME;
    prec = ts_precision(fmt[2]);
  } else if (!strncmp(fmt, "ts", 2) && fmt[2] && fmt[3] == ':' && ts_precision(fmt[2]) >= 0) {
    r = fmt[4] ? PM_DT_TIMESTAMP_LTZ : PM_DT_TIMESTAMP;
    prec = ts_precision(fmt[2]);
  } else if (!strcmp(fmt, "+l") || !strcmp(fmt, "+L")) r = PM_DT_ARRAY, nested = 1;
  else if (!strcmp(fmt, "+m")) r = PM_DT_MAP, nested = 1;
  else if (!strcmp(fmt, "+s")) r = PM_DT_ROW, nested = 1;
  else return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "Arrow type '%s' has no Paimon type", fmt);
  pm_data_type *t = NULL;
  PM_TRY(pm_dtype_new(r, nullable, &t, err));
  if (r == PM_DT_VARCHAR || r == PM_DT_VARBINARY || r == PM_DT_BINARY) t->length = len;
  if (r == PM_DT_DECIMAL) t->precision = prec, t->scale = scale;
  if (r == PM_DT_TIME || r == PM_DT_TIMESTAMP || r == PM_DT_TIMESTAMP_LTZ) t->precision = prec;
  int rc = 0;
  if (nested) {
    if (r == PM_DT_ARRAY) {
      if (a->n_children != 1 || !a->children || !a->children[0]) rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "list without one child");
      else rc = arrow_type(a->children[0], depth + 1, &t->element, err);
    } else if (r == PM_DT_MAP) {
      const struct ArrowSchema *e = a->n_children == 1 && a->children ? a->children[0] : NULL;
      if (!e || e->n_children != 2 || !e->children || !e->children[0] || !e->children[1])
        rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "map without a key/value entries child");
      if (!rc) rc = arrow_type(e->children[0], depth + 1, &t->key, err);
      if (!rc) rc = arrow_type(e->children[1], depth + 1, &t->value, err);
    } else {
      size_t n = a->n_children > 0 ? (size_t)a->n_children : 0;
      if (n && !a->children) rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "struct without children");
      t->fields = n && !rc ? calloc(n, sizeof(pm_data_field)) : NULL;
      if (n && !rc && !t->fields) rc = PM_NOMEM(err);
      for (size_t i = 0; !rc && i < n; i++) {
        rc = arrow_field(a->children[i], depth + 1, &t->fields[i], err);
        if (!rc) t->n_fields = i + 1;
      }
    }
  }
  if (rc) {
    pm_dtype_free(t);
    return rc;
  }
  *out = t;
  return 0;
}

int pm_schema_spec_from_arrow(const struct ArrowSchema *schema, pm_schema_spec *out, pm_error *err) {
  pm_schema_spec_init(out);
  if (!schema || !schema->format || strcmp(schema->format, "+s") != 0)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "Arrow schema: expected a struct (\"+s\") of columns");
  int rc = 0;
  for (int64_t i = 0; !rc && i < schema->n_children; i++) {
    pm_data_field f;
    rc = schema->children ? arrow_field(schema->children[i], 0, &f, err)
                          : pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "Arrow schema: no children");
    if (!rc) rc = push_field(out, &f, err);
  }
  if (rc) pm_schema_spec_clear(out);
  return rc;
}

/* ---------------------------------------------------- Java HashMap order */

/* o reordered as the keys of m iterate (every key of o is in m). */
static int reorder_by(pm_options *o, const pm_jmap *m, pm_error *err) {
  const char **order = NULL;
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

int pm_options_java_order(pm_options *o, pm_error *err) {
  pm_jmap m;
  pm_jmap_init(&m);
  int rc = 0;
  for (size_t i = 0; !rc && i < o->n; i++) rc = pm_jmap_put(&m, o->keys[i], err);
  if (!rc) rc = reorder_by(o, &m, err);
  pm_jmap_clear(&m);
  return rc;
}

/* The maps of Java's create path: the builder's HashMap (the user's options in order), copied by
 * Schema's constructor, which removes `primary-key` / `partition`; the catalog's table defaults
 * are put into that copy afterwards (copyTableDefaultOptions). */
static int create_path_order(pm_options *o, size_t n_user, pm_error *err) {
  pm_jmap builder, schema;
  pm_jmap_init(&builder);
  pm_jmap_init(&schema);
  int rc = 0;
  for (size_t i = 0; !rc && i < o->n && i < n_user; i++) rc = pm_jmap_put(&builder, o->keys[i], err);
  if (!rc) rc = pm_jmap_copy(&builder, &schema, err);
  if (!rc) {
    pm_jmap_remove(&schema, PM_OPT_PRIMARY_KEY);
    pm_jmap_remove(&schema, PM_OPT_PARTITION);
  }
  for (size_t i = n_user; !rc && i < o->n; i++) rc = pm_jmap_put(&schema, o->keys[i], err);
  if (!rc) rc = reorder_by(o, &schema, err);
  pm_jmap_clear(&builder);
  pm_jmap_clear(&schema);
  return rc;
}

/* ----------------------------------------------------------------- build */

/* "a, b ,,c" -> ["a","b","c"] (Java: split(","), trim, drop empties). */
static int split_keys(const char *text, char ***out, size_t *n, pm_error *err) {
  *out = NULL;
  *n = 0;
  size_t cap = 1;
  for (const char *p = text; *p; p++) cap += *p == ',';
  char **v = calloc(cap, sizeof(char *));
  if (!v) return PM_NOMEM(err);
  size_t k = 0;
  const char *p = text;
  for (;;) {
    const char *e = strchr(p, ',');
    size_t l = e ? (size_t)(e - p) : strlen(p);
    while (l && (*p == ' ' || *p == '\t')) p++, l--;
    while (l && (p[l - 1] == ' ' || p[l - 1] == '\t')) l--;
    if (l && !(v[k++] = strndup(p, l))) {
      pm_free_strings(v, k);
      return PM_NOMEM(err);
    }
    if (!e) break;
    p = e + 1;
  }
  *out = v;
  *n = k;
  return 0;
}

static const char *first_duplicate(char *const *v, size_t n) {
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < i; j++)
      if (!strcmp(v[i], v[j])) return v[i];
  return NULL;
}

static int contains(char *const *v, size_t n, const char *s) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(v[i], s)) return 1;
  return 0;
}

static int32_t max_field_id(const pm_data_field *f, size_t n, int depth);

static int32_t max_type_id(const pm_data_type *t, int depth) {
  if (!t || depth > PM_DT_MAX_DEPTH) return -1;
  switch (t->root) {
    case PM_DT_ROW: return max_field_id(t->fields, t->n_fields, depth);
    case PM_DT_ARRAY: case PM_DT_MULTISET: case PM_DT_VECTOR: return max_type_id(t->element, depth + 1);
    case PM_DT_MAP: {
      int32_t a = max_type_id(t->key, depth + 1), b = max_type_id(t->value, depth + 1);
      return a > b ? a : b;
    }
    default: return -1;
  }
}

static int32_t max_field_id(const pm_data_field *f, size_t n, int depth) {
  int32_t m = -1;
  for (size_t i = 0; i < n; i++) {
    if (f[i].id > m) m = f[i].id;
    int32_t t = max_type_id(f[i].type, depth + 1);
    if (t > m) m = t;
  }
  return m;
}

/* Moves the `key` option (comma list) into *keys, as Java's Schema does: both given = error. */
static int keys_from_option(pm_table_schema *t, const char *key, char ***keys, size_t *n, const char *what,
                            pm_error *err) {
  const char *v = pm_options_get(&t->options, key);
  if (!v) return 0;
  if (*n)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "cannot define %s both as keys and as option '%s'", what, key);
  PM_TRY(split_keys(v, keys, n, err));
  pm_options_remove(&t->options, key);
  return 0;
}

static int normalize(pm_table_schema *t, pm_error *err) {
  PM_TRY(keys_from_option(t, PM_OPT_PARTITION, &t->partition_keys, &t->n_partition_keys, "partition keys", err));
  PM_TRY(keys_from_option(t, PM_OPT_PRIMARY_KEY, &t->primary_keys, &t->n_primary_keys, "a primary key", err));
  for (size_t i = 0; i < t->n_fields; i++) {
    if (!t->fields[i].name || !*t->fields[i].name)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "column %zu has an empty name", i);
    for (size_t j = 0; j < i; j++)
      if (!strcmp(t->fields[i].name, t->fields[j].name))
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "duplicate column '%s'", t->fields[i].name);
  }
  const char *d = first_duplicate(t->partition_keys, t->n_partition_keys);
  if (d) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "partition key '%s' given twice", d);
  for (size_t i = 0; i < t->n_partition_keys; i++)
    if (pm_schema_field_index(t, t->partition_keys[i]) < 0)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "partition key '%s' is not a column", t->partition_keys[i]);
  d = first_duplicate(t->primary_keys, t->n_primary_keys);
  if (d) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "primary key column '%s' given twice", d);
  for (size_t i = 0; i < t->n_primary_keys; i++)
    if (pm_schema_field_index(t, t->primary_keys[i]) < 0)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "primary key column '%s' is not a column", t->primary_keys[i]);
  int pk_nullable = 0;
  PM_TRY(pm_options_get_bool(&t->options, pm_core_option_key(PM_CO_PRIMARY_KEY_NULLABLE), 0, &pk_nullable, err));
  for (size_t i = 0; i < t->n_fields; i++)
    if (contains(t->primary_keys, t->n_primary_keys, t->fields[i].name)) t->fields[i].type->nullable = pk_nullable;
  return 0;
}

int pm_schema_spec_build(const pm_schema_spec *s, int64_t time_millis, pm_table_schema **out, pm_error *err) {
  *out = NULL;
  pm_table_schema *t = calloc(1, sizeof *t);
  if (!t) return PM_NOMEM(err);
  pm_options_init(&t->options);
  t->version = 3;
  t->id = 0;
  t->time_millis = time_millis;
  int rc = 0;
  if (s->n_fields && !(t->fields = calloc(s->n_fields, sizeof(pm_data_field)))) rc = PM_NOMEM(err);
  for (size_t i = 0; !rc && i < s->n_fields; i++) {
    rc = pm_data_field_copy(&s->fields[i], &t->fields[i], err);
    if (!rc) t->n_fields = i + 1;
  }
  if (!rc)
    rc = dup_list((const char *const *)s->partition_keys, s->n_partition_keys, &t->partition_keys,
                  &t->n_partition_keys, err);
  if (!rc)
    rc = dup_list((const char *const *)s->primary_keys, s->n_primary_keys, &t->primary_keys, &t->n_primary_keys,
                  err);
  if (!rc) {
    pm_options_clear(&t->options);
    rc = pm_options_copy(&s->options, &t->options, err);
  }
  if (!rc && s->comment && !(t->comment = strdup(s->comment))) rc = PM_NOMEM(err);
  if (!rc && !t->n_fields) rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "a table needs at least one column");
  if (!rc) {
    if (s->keep_ids) t->highest_field_id = max_field_id(t->fields, t->n_fields, 0);
    else pm_dfields_assign_ids(t->fields, t->n_fields, 0, &t->highest_field_id);
  }
  /* Java's key order: the builder's map includes `primary-key` / `partition` until Schema removes them */
  pm_options keys_order;
  pm_options_init(&keys_order);
  if (!rc) rc = pm_options_copy(&t->options, &keys_order, err);
  if (!rc) rc = normalize(t, err);
  if (!rc) {
    size_t n_user = s->n_default_options <= s->options.n ? s->options.n - s->n_default_options : 0;
    rc = create_path_order(&keys_order, n_user, err);
    /* keys_order now has the surviving keys in Java's order: take the values of t */
    for (size_t i = 0; !rc && i < keys_order.n; i++) {
      const char *v = pm_options_get(&t->options, keys_order.keys[i]);
      if (v) rc = pm_options_set(&keys_order, keys_order.keys[i], v, err);
    }
    if (!rc) {
      pm_options_clear(&t->options);
      t->options = keys_order;
      pm_options_init(&keys_order);
    }
  }
  pm_options_clear(&keys_order);
  if (!rc) rc = pm_schema_validate_create(t, err);
  if (rc) {
    pm_schema_free(t);
    return rc;
  }
  *out = t;
  return 0;
}
