/* The checks Java runs on a schema before writing it (TableSchema's constructor, CatalogUtils.validateCreateTable,
 * SchemaValidation.validateTableSchema), as far as this library knows the options involved. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "meta/core_options.h"
#include "meta/schema_build.h"

static int bad(pm_error *err, const char *fmt, const char *a, const char *b) {
  return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, fmt, a, b);
}

static int in_list(char *const *v, size_t n, const char *s) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(v[i], s)) return 1;
  return 0;
}

static int is_nested_root(pm_dtype_root r) {
  return r == PM_DT_ARRAY || r == PM_DT_MULTISET || r == PM_DT_MAP || r == PM_DT_ROW;
}

/* Java's PRIMARY_KEY_UNSUPPORTED_LOGICAL_TYPES. */
static int key_type_unsupported(pm_dtype_root r) {
  return is_nested_root(r) || r == PM_DT_VECTOR || r == PM_DT_VARIANT || r == PM_DT_GEOMETRY ||
         r == PM_DT_GEOGRAPHY;
}

static int check_key_types(const pm_table_schema *s, char *const *keys, size_t n, const char *what, pm_error *err) {
  for (size_t i = 0; i < n; i++) {
    int k = pm_schema_field_index(s, keys[i]);
    if (k < 0) return bad(err, "%s column '%s' is not a column", what, keys[i]);
    if (key_type_unsupported(s->fields[k].type->root))
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s column '%s': type %s cannot be a key", what, keys[i],
                       pm_dtype_root_name(s->fields[k].type->root));
  }
  return 0;
}

static int check_bucket(const pm_table_schema *s, const pm_core_options *co, pm_error *err) {
  const char *bk_key = pm_core_option_key(PM_CO_BUCKET_KEY);
  char **bk = NULL;
  size_t nbk = 0;
  const char *raw = pm_options_get(&s->options, bk_key);
  int blank = 1;
  for (const char *p = raw; p && *p; p++)
    if (*p != ' ' && *p != '\t') blank = 0;
  int rc = 0;
  if (raw && !blank) {
    /* TableSchema.originalBucketKeys: split on ',' without trimming */
    size_t cap = 1;
    for (const char *p = raw; *p; p++) cap += *p == ',';
    bk = calloc(cap, sizeof(char *));
    if (!bk) return PM_NOMEM(err);
    const char *p = raw;
    for (;;) {
      const char *e = strchr(p, ',');
      size_t l = e ? (size_t)(e - p) : strlen(p);
      if (!(bk[nbk++] = strndup(p, l))) {
        pm_free_strings(bk, nbk);
        return PM_NOMEM(err);
      }
      if (!e) break;
      p = e + 1;
    }
    for (size_t i = 0; !rc && i < nbk; i++) {
      if (pm_schema_field_index(s, bk[i]) < 0) rc = bad(err, "bucket key '%s' (option '%s') is not a column", bk[i], bk_key);
      else if (in_list(s->partition_keys, s->n_partition_keys, bk[i]))
        rc = bad(err, "bucket key '%s' (option '%s') is a partition key", bk[i], bk_key);
      else if (s->n_primary_keys && !in_list(s->primary_keys, s->n_primary_keys, bk[i]))
        rc = bad(err, "bucket key '%s' (option '%s') is not part of the primary key", bk[i], bk_key);
    }
  }
  int32_t bucket = co->bucket;
  char num[16];
  snprintf(num, sizeof num, "%d", bucket);
  if (!rc && bucket == -1) {
    if (raw) rc = bad(err, "option '%s' needs a fixed bucket number (option '%s' is -1)", bk_key, PM_OPT_BUCKET);
  } else if (!rc && bucket < 1 && !(bucket == -2 && s->n_primary_keys)) {
    rc = bad(err, "option '%s' = %s: the number of buckets must be greater than 0", PM_OPT_BUCKET, num);
  } else if (!rc) {
    if (!s->n_primary_keys && !nbk && (bucket != 1 || s->version != 1))
      rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "option '%s' = %s on a table without primary key needs option '%s' (the bucket key)",
                     PM_OPT_BUCKET, num, bk_key);
    if (!rc) {
      /* the bucket key: explicit, else the trimmed primary key */
      for (size_t i = 0; !rc && i < s->n_fields; i++) {
        const pm_data_field *f = &s->fields[i];
        int is_bk = nbk ? in_list(bk, nbk, f->name)
                        : in_list(s->primary_keys, s->n_primary_keys, f->name) &&
                              !in_list(s->partition_keys, s->n_partition_keys, f->name);
        if (is_bk && is_nested_root(f->type->root))
          rc = bad(err, "bucket key column '%s' has a nested type (%s)", f->name, pm_dtype_root_name(f->type->root));
      }
    }
  }
  pm_free_strings(bk, nbk);
  return rc;
}

static int check_field_names(const pm_table_schema *s, pm_error *err) {
  static const char *const system_names[] = {"_SEQUENCE_NUMBER", "_VALUE_KIND", "_LEVEL", "rowkind", "_ROW_ID"};
  for (size_t i = 0; i < s->n_fields; i++) {
    const char *n = s->fields[i].name;
    for (size_t j = 0; j < sizeof system_names / sizeof *system_names; j++)
      if (!strcmp(n, system_names[j])) return bad(err, "column '%s' is a system field name%s", n, "");
    if (!strncmp(n, "_KEY_", 5)) return bad(err, "column '%s' must not start with '%s'", n, "_KEY_");
  }
  return 0;
}

/* fields.<f>[,<g>].<option> must name columns (or default-aggregate-function). */
static int check_field_options(const pm_table_schema *s, pm_error *err) {
  const char *prefix = pm_field_option_prefix();
  size_t pl = strlen(prefix);
  const char *def_agg = pm_core_option_key(PM_CO_DEFAULT_AGG_FUNCTION) + pl;
  for (size_t i = 0; i < s->options.n; i++) {
    const char *k = s->options.keys[i];
    if (strncmp(k, prefix, pl) != 0) continue;
    const char *seg = k + pl, *end = strchr(seg, '.');
    size_t sl = end ? (size_t)(end - seg) : strlen(seg);
    if (sl == strlen(def_agg) && !strncmp(seg, def_agg, sl)) continue;
    const char *p = seg;
    while (p < seg + sl) {
      const char *c = memchr(p, ',', (size_t)(seg + sl - p));
      size_t l = c ? (size_t)(c - p) : (size_t)(seg + sl - p);
      char name[256];
      snprintf(name, sizeof name, "%.*s", (int)(l < 255 ? l : 255), p);
      if (pm_schema_field_index(s, name) < 0) return bad(err, "option '%s': field '%s' is not a column", k, name);
      p += l + 1;
    }
  }
  return 0;
}

static int check_sequence_fields(const pm_table_schema *s, const pm_core_options *co, pm_error *err) {
  if (!co->sequence_field) return 0;
  const char *key = PM_OPT_SEQUENCE_FIELD;
  char **names = NULL;
  size_t n = 0, cap = 1;
  for (const char *p = co->sequence_field; *p; p++) cap += *p == ',';
  names = calloc(cap, sizeof(char *));
  if (!names) return PM_NOMEM(err);
  int rc = 0;
  const char *p = co->sequence_field;
  for (;;) {
    const char *e = strchr(p, ',');
    size_t l = e ? (size_t)(e - p) : strlen(p);
    while (l && *p == ' ') p++, l--;
    while (l && p[l - 1] == ' ') l--;
    if (l && !(names[n++] = strndup(p, l))) rc = PM_NOMEM(err);
    if (!e || rc) break;
    p = e + 1;
  }
  for (size_t i = 0; !rc && i < n; i++) {
    if (pm_schema_field_index(s, names[i]) < 0) rc = bad(err, "option '%s': field '%s' is not a column", key, names[i]);
    for (size_t j = 0; !rc && j < i; j++)
      if (!strcmp(names[i], names[j])) rc = bad(err, "option '%s': field '%s' is given twice", key, names[i]);
  }
  if (!rc && n && co->merge_engine == PM_MERGE_FIRST_ROW)
    rc = bad(err, "option '%s' cannot be used with merge-engine %s", key, "first-row");
  pm_free_strings(names, n);
  return rc;
}

/* SchemaValidation's changelog-producer combinations, shared by create and alter. */
int pm_schema_validate_producer(const pm_table_schema *s, const pm_core_options *c, pm_error *err) {
  const pm_core_options co = *c;
  int rc = 0;
  /* SchemaValidation: an overwrite read as changes would be read twice beside the changelog a
   * lookup / full-compaction producer writes for it */
  if (co.streaming_read_overwrite &&
      (co.changelog_producer == PM_CHANGELOG_LOOKUP || co.changelog_producer == PM_CHANGELOG_FULL_COMPACTION))
    rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED,
                   "option '%s' = true cannot be used with '%s' = %s: it would read duplicated changes",
                   pm_core_option_key(PM_CO_STREAMING_READ_OVERWRITE), pm_core_option_key(PM_CO_CHANGELOG_PRODUCER),
                   co.changelog_producer == PM_CHANGELOG_LOOKUP ? "lookup" : "full-compaction");
  if (!rc && co.streaming_read_overwrite && !s->n_primary_keys)
    rc = bad(err, "option '%s' needs a primary key; an append table uses '%s'",
             pm_core_option_key(PM_CO_STREAMING_READ_OVERWRITE),
             pm_core_option_key(PM_CO_STREAMING_READ_APPEND_OVERWRITE));
  if (!rc && co.set[PM_CO_FULL_COMPACTION_DELTA_COMMITS] && co.changelog_producer == PM_CHANGELOG_LOOKUP)
    rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED,
                   "option '%s' cannot be used with '%s' = lookup; use '%s' = full-compaction for periodic "
                   "full compaction with changelog, or remove '%s'",
                   pm_core_option_key(PM_CO_FULL_COMPACTION_DELTA_COMMITS),
                   pm_core_option_key(PM_CO_CHANGELOG_PRODUCER), pm_core_option_key(PM_CO_CHANGELOG_PRODUCER),
                   pm_core_option_key(PM_CO_FULL_COMPACTION_DELTA_COMMITS));
  if (!rc && co.merge_engine == PM_MERGE_FIRST_ROW && co.changelog_producer != PM_CHANGELOG_NONE &&
      co.changelog_producer != PM_CHANGELOG_LOOKUP)
    rc = bad(err, "option '%s': merge-engine first-row supports only 'none' and 'lookup'%s",
             pm_core_option_key(PM_CO_CHANGELOG_PRODUCER), "");
  return rc;
}

int pm_schema_validate_create(const pm_table_schema *s, pm_error *err) {
  /* TableSchema: the primary key must not be the partition key */
  if (s->n_primary_keys) {
    size_t left = 0;
    for (size_t i = 0; i < s->n_primary_keys; i++) left += !in_list(s->partition_keys, s->n_partition_keys, s->primary_keys[i]);
    if (!left)
      return bad(err, "primary key (%s%s) must not be the same as the partition keys: one record per partition",
                 s->primary_keys[0], s->n_primary_keys > 1 ? ", ..." : "");
  }
  /* AbstractCatalog.validateCustomTablePath: a filesystem catalog places every table itself */
  static const char data_table[] = "table", object_table[] = "object-table";
  const char *type = pm_options_get(&s->options, pm_core_option_key(PM_CO_TABLE_TYPE));
  if (!type) type = data_table;
  int has_path = pm_options_get(&s->options, pm_core_option_key(PM_CO_PATH)) != NULL;
  if (has_path && strcasecmp(type, object_table) != 0)
    return bad(err, "option '%s': the filesystem catalog does not support a table path of its own%s",
               pm_core_option_key(PM_CO_PATH), "");
  if (strcasecmp(type, data_table) != 0 && strcasecmp(type, "materialized-table") != 0)
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "option '%s' = '%s': only data tables can be created",
                     pm_core_option_key(PM_CO_TABLE_TYPE), type);
  pm_core_options co;
  PM_TRY(pm_core_options_parse(&s->options, s->version, s->n_primary_keys > 0, &co, err));
  int rc = 0;
  if (co.auto_create)
    rc = bad(err, "option '%s' must be false when creating a table%s", pm_core_option_key(PM_CO_AUTO_CREATE), "");
  if (!rc && co.target_file_row_num < 1)
    rc = bad(err, "option '%s' must be at least 1%s", pm_core_option_key(PM_CO_TARGET_FILE_ROW_NUM), "");
  if (!rc) rc = check_key_types(s, s->primary_keys, s->n_primary_keys, "primary key", err);
  if (!rc) rc = check_key_types(s, s->partition_keys, s->n_partition_keys, "partition key", err);
  if (!rc && co.primary_key_nullable && !s->n_primary_keys)
    rc = bad(err, "option '%s' needs a primary key%s", pm_core_option_key(PM_CO_PRIMARY_KEY_NULLABLE), "");
  if (!rc) rc = check_bucket(s, &co, err);
  if (!rc) rc = check_field_options(s, err);
  if (!rc) rc = check_sequence_fields(s, &co, err);
  if (!rc && !s->n_primary_keys && co.changelog_producer != PM_CHANGELOG_NONE)
    rc = bad(err, "option '%s' needs a primary key%s", pm_core_option_key(PM_CO_CHANGELOG_PRODUCER), "");
  if (!rc) rc = pm_schema_validate_producer(s, &co, err);
  if (!rc && co.snapshot_num_retained_min > co.snapshot_num_retained_max)
    rc = bad(err, "option '%s' must not be larger than '%s'", pm_core_option_key(PM_CO_SNAPSHOT_NUM_RETAINED_MIN),
             pm_core_option_key(PM_CO_SNAPSHOT_NUM_RETAINED_MAX));
  if (!rc) rc = check_field_names(s, err);
  if (!rc && co.row_tracking) {
    if (s->n_primary_keys) rc = bad(err, "option '%s': a row-tracking table cannot have a primary key%s",
                                    pm_core_option_key(PM_CO_ROW_TRACKING), "");
    else if (co.bucket != -1)
      rc = bad(err, "option '%s': a row-tracking table needs option '%s' = -1", pm_core_option_key(PM_CO_ROW_TRACKING),
               PM_OPT_BUCKET);
  }
  if (!rc && co.data_evolution && !co.row_tracking)
    rc = bad(err, "option '%s' needs option '%s' = true", pm_core_option_key(PM_CO_DATA_EVOLUTION),
             pm_core_option_key(PM_CO_ROW_TRACKING));
  pm_core_options_clear(&co);
  return rc;
}
