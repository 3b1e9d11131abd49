/* Java's Schema.normalizeFields, TableSchema constructor checks and a part of
 * SchemaValidation.validateTableSchema, applied to a schema ALTER TABLE produced. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "meta/core_options.h"
#include "meta/schema_build.h"
#include "meta/schema_change_internal.h"

static const char *tn(const char *t) { return t ? t : "table"; }

static int has(char *const *list, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(list[i], name)) return 1;
  return 0;
}

static const char *duplicate(char *const *list, size_t n) {
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++)
      if (!strcmp(list[i], list[j])) return list[i];
  return NULL;
}

static int field_named(const pm_table_schema *s, const char *name) {
  for (size_t i = 0; i < s->n_fields; i++)
    if (!strcmp(s->fields[i].name, name)) return (int)i;
  return -1;
}

int pm_schema_normalize_fields(pm_table_schema *s, const char *table, pm_error *err) {
  for (size_t i = 0; i < s->n_fields; i++)
    for (size_t j = i + 1; j < s->n_fields; j++)
      if (!strcmp(s->fields[i].name, s->fields[j].name))
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: duplicate column '%s'", tn(table),
                         s->fields[i].name);
  const char *d;
  if ((d = duplicate(s->partition_keys, s->n_partition_keys)))
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: duplicate partition key '%s'", tn(table), d);
  for (size_t i = 0; i < s->n_partition_keys; i++)
    if (field_named(s, s->partition_keys[i]) < 0)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: partition key '%s' is not a column", tn(table),
                       s->partition_keys[i]);
  if (!s->n_primary_keys) return 0;
  if ((d = duplicate(s->primary_keys, s->n_primary_keys)))
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: duplicate primary key column '%s'", tn(table), d);
  for (size_t i = 0; i < s->n_primary_keys; i++)
    if (field_named(s, s->primary_keys[i]) < 0)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: primary key column '%s' is not a column",
                       tn(table), s->primary_keys[i]);
  int pk_nullable = 0;
  const char *k = pm_core_option_key(PM_CO_PRIMARY_KEY_NULLABLE), *v = pm_options_get(&s->options, k);
  if (v) PM_TRY(pm_parse_bool(k, v, &pk_nullable, err));
  for (size_t i = 0; i < s->n_fields; i++)
    if (has(s->primary_keys, s->n_primary_keys, s->fields[i].name)) s->fields[i].type->nullable = pk_nullable;
  return 0;
}

static int key_type_ok(pm_dtype_root r) {
  switch (r) {
    case PM_DT_MAP:
    case PM_DT_ARRAY:
    case PM_DT_ROW:
    case PM_DT_MULTISET:
    case PM_DT_VECTOR:
    case PM_DT_VARIANT:
    case PM_DT_GEOMETRY:
    case PM_DT_GEOGRAPHY: return 0;
    default: return 1;
  }
}

static int check_key_types(const pm_table_schema *s, char *const *keys, size_t n, const char *what,
                           const char *table, pm_error *err) {
  for (size_t i = 0; i < n; i++) {
    int f = field_named(s, keys[i]);
    if (f < 0) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: cannot find field: %s", tn(table), keys[i]);
    if (!key_type_ok(s->fields[f].type->root))
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: the type %s in %s field %s is unsupported",
                       tn(table), pm_dtype_root_name(s->fields[f].type->root), what, keys[i]);
  }
  return 0;
}

static int is_nested(pm_dtype_root r) {
  return r == PM_DT_ARRAY || r == PM_DT_MULTISET || r == PM_DT_MAP || r == PM_DT_ROW;
}

static int check_names(const pm_table_schema *s, const char *table, pm_error *err) {
  static const char *const system_names[] = {"_SEQUENCE_NUMBER", "_VALUE_KIND", "_LEVEL", "rowkind", "_ROW_ID"};
  for (size_t i = 0; i < s->n_fields; i++) {
    const char *f = s->fields[i].name;
    for (size_t k = 0; k < sizeof system_names / sizeof system_names[0]; k++)
      if (!strcmp(f, system_names[k]))
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: field name [%s] is a system field name",
                         tn(table), f);
    if (!strncmp(f, "_KEY_", 5))
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: field name [%s] cannot start with [_KEY_]",
                       tn(table), f);
  }
  return 0;
}

/* TableSchema's constructor: trimmed primary key not empty; bucket-key columns exist, are not
 * partition keys and are primary-key columns when there are primary keys. */
static int check_keys(const pm_table_schema *s, const char *table, pm_error *err) {
  if (s->n_primary_keys) {
    size_t trimmed = 0;
    for (size_t i = 0; i < s->n_primary_keys; i++) trimmed += !has(s->partition_keys, s->n_partition_keys, s->primary_keys[i]);
    if (!trimmed)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                       "alter %s: primary key should not be the same as the partition fields (one record per partition)",
                       tn(table));
  }
  char **bk;
  size_t nbk;
  PM_TRY(pm_schema_bucket_keys(s, &bk, &nbk, err));
  int rc = 0;
  const char *explicit_keys = pm_options_get(&s->options, pm_core_option_key(PM_CO_BUCKET_KEY));
  for (size_t i = 0; !rc && explicit_keys && i < nbk; i++) {
    if (field_named(s, bk[i]) < 0)
      rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: bucket key '%s' is not a column", tn(table), bk[i]);
    else if (has(s->partition_keys, s->n_partition_keys, bk[i]))
      rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: bucket key '%s' is a partition key", tn(table), bk[i]);
    else if (s->n_primary_keys && !has(s->primary_keys, s->n_primary_keys, bk[i]))
      rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: bucket key '%s' is not a primary key column",
                     tn(table), bk[i]);
  }
  pm_free_strings(bk, nbk);
  return rc;
}

static int check_bucket(const pm_table_schema *s, const pm_core_options *co, const char *table, pm_error *err) {
  int32_t bucket = co->bucket;
  if (bucket == -1) {
    if (co->bucket_key)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                       "alter %s: cannot define '%s' with bucket = -1 (remove it or set a bucket number)", tn(table),
                       pm_core_option_key(PM_CO_BUCKET_KEY));
    return 0;
  }
  if (bucket < 1 && !(bucket == -2 && s->n_primary_keys))
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: the number of buckets needs to be greater than 0",
                     tn(table));
  if (bucket < 1) return 0;
  char **bk;
  size_t nbk;
  PM_TRY(pm_schema_bucket_keys(s, &bk, &nbk, err));
  int rc = 0;
  if (!s->n_primary_keys && !nbk && (bucket != 1 || s->version != 1))
    rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: define a '%s' for bucketed append mode", tn(table),
                   pm_core_option_key(PM_CO_BUCKET_KEY));
  for (size_t i = 0; !rc && i < nbk; i++) {
    int f = field_named(s, bk[i]);
    if (f >= 0 && is_nested(s->fields[f].type->root))
      rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: nested type can not be in bucket-key (column %s)",
                     tn(table), bk[i]);
  }
  pm_free_strings(bk, nbk);
  return rc;
}

int pm_schema_alter_validate(const pm_table_schema *s, const char *table, pm_error *err) {
  PM_TRY(check_key_types(s, s->primary_keys, s->n_primary_keys, "primary key", table, err));
  PM_TRY(check_key_types(s, s->partition_keys, s->n_partition_keys, "partition", table, err));
  PM_TRY(check_keys(s, table, err));
  pm_core_options co;
  int rc = pm_core_options_parse(&s->options, s->version, s->n_primary_keys > 0, &co, err);
  if (rc) return pm_error_prefix(err, "alter %s: ", tn(table)), rc;
  const char *k = pm_core_option_key(PM_CO_PRIMARY_KEY_NULLABLE), *v = pm_options_get(&s->options, k);
  int b = 0;
  if (v && !pm_parse_bool(k, v, &b, err) && b && !s->n_primary_keys)
    rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: option '%s' can only be enabled for a table with primary keys",
                   tn(table), k);
  if (!rc) rc = check_bucket(s, &co, table, err);
  if (!rc && !s->n_primary_keys && co.changelog_producer != PM_CHANGELOG_NONE)
    rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: cannot set %s on a table without primary keys",
                   tn(table), pm_core_option_key(PM_CO_CHANGELOG_PRODUCER));
  if (!rc && (rc = pm_schema_validate_producer(s, &co, err)) != 0) pm_error_prefix(err, "alter %s", tn(table));
  if (!rc && co.snapshot_num_retained_min > co.snapshot_num_retained_max)
    rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "alter %s: %s should not be larger than %s", tn(table),
                   pm_core_option_key(PM_CO_SNAPSHOT_NUM_RETAINED_MIN), pm_core_option_key(PM_CO_SNAPSHOT_NUM_RETAINED_MAX));
  if (!rc) rc = check_names(s, table, err);
  pm_core_options_clear(&co);
  return rc;
}
