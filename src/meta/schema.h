/*
 * Table schema files `schema/schema-<id>` (FORMAT.md 2) and table options.
 *
 * Where: a pm_schema_manager value {fs, table root, branch} (as Java's
 * SchemaManager): every file is read and written through fs. `branch` NULL,
 * "" or "main" means the main branch, otherwise metadata lives in
 * `<table_root>/branch/branch-<branch>/` (FORMAT.md 1.5).
 */
#ifndef PM_META_SCHEMA_H
#define PM_META_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

#include "data/types.h"
#include "io/fs.h"
#include "util/buf.h"
#include "util/error.h"

/* ---- options: ordered string map (order of the JSON file is kept) ---- */

typedef struct pm_options {
  char **keys;   /* owned */
  char **values; /* owned */
  size_t n;
  size_t cap;
} pm_options;

void pm_options_init(pm_options *o);
void pm_options_clear(pm_options *o);
int pm_options_copy(const pm_options *src, pm_options *dst, pm_error *err);
/* Sets (replaces in place or appends) key = value (both copied). */
int pm_options_set(pm_options *o, const char *key, const char *value, pm_error *err);
int pm_options_remove(pm_options *o, const char *key); /* 1 if removed */
/* Value or NULL when absent (pointer valid until the options change). */
const char *pm_options_get(const pm_options *o, const char *key);
const char *pm_options_get_str(const pm_options *o, const char *key, const char *def);
/* Typed getters: absent ⇒ *out = def, return 0; unparsable ⇒ PAIMON_ERR_INVALID_ARGUMENT naming the key. */
int pm_options_get_int64(const pm_options *o, const char *key, int64_t def, int64_t *out, pm_error *err);
int pm_options_get_int(const pm_options *o, const char *key, int32_t def, int32_t *out, pm_error *err);
/* "true"/"false" (case-insensitive). */
int pm_options_get_bool(const pm_options *o, const char *key, int def, int *out, pm_error *err);
/* Memory sizes as Java MemorySize parses them: "128", "8 mb", "2MiB", "1 gb", "64kb" (bytes). */
int pm_options_get_size(const pm_options *o, const char *key, int64_t def, int64_t *out, pm_error *err);
/* Durations as Java TimeUtils parses them ("10 ms", "1 h", "30s", "2 min", "1 d"), in milliseconds. */
int pm_options_get_duration_ms(const pm_options *o, const char *key, int64_t def, int64_t *out, pm_error *err);

/* Option keys live in meta/core_options.h (PM_CO_* ids, pm_core_option_key);
 * PM_OPT_* names below expand to those. */
#define PM_DEFAULT_PARTITION_NAME "__DEFAULT_PARTITION__"

/* ---- TableSchema ---- */

typedef struct pm_table_schema {
  int32_t version;          /* "version"; missing ⇒ 1 */
  int64_t id;               /* "id" */
  pm_data_field *fields;    /* "fields" (owned array of n_fields) */
  size_t n_fields;
  int32_t highest_field_id; /* "highestFieldId" */
  char **partition_keys;    /* owned */
  size_t n_partition_keys;
  char **primary_keys;      /* owned */
  size_t n_primary_keys;
  pm_options options;       /* "options" as stored (no compatibility defaults applied) */
  char *comment;            /* NULL when absent */
  int64_t time_millis;      /* missing ⇒ 0 */
} pm_table_schema;

/* Parses schema JSON. `path` is used in messages. *out owned: pm_schema_free. */
int pm_schema_parse(const char *json, size_t len, const char *path, pm_table_schema **out, pm_error *err);
/* Serializes as Java does (Jackson pretty printer, key order of FORMAT.md 2.1), appended to out. */
int pm_schema_to_json(const pm_table_schema *s, pm_buf *out, pm_error *err);
void pm_schema_free(pm_table_schema *s); /* NULL ok */
int pm_table_schema_copy(const pm_table_schema *src, pm_table_schema **out, pm_error *err);

/* The schema files of one branch of a table. A small value: every pointer is borrowed
 * (must outlive the uses); build one with pm_schema_manager_of. */
typedef struct pm_schema_manager {
  pm_fs *fs;
  const char *table_root;
  const char *branch; /* NULL / "" / "main" = main */
} pm_schema_manager;

static inline pm_schema_manager pm_schema_manager_of(pm_fs *fs, const char *table_root, const char *branch) {
  pm_schema_manager m = {fs, table_root, branch};
  return m;
}

/* Reads `<meta dir>/schema/schema-<id>`. Missing file ⇒ PAIMON_ERR_NOT_FOUND. */
int pm_schema_read(const pm_schema_manager *m, int64_t id, pm_table_schema **out, pm_error *err);
/* All schema ids of the table/branch, ascending (*ids malloc'd, free()). Missing dir ⇒ 0 ids. */
int pm_schema_list_ids(const pm_schema_manager *m, int64_t **ids, size_t *n, pm_error *err);
/* Latest schema (highest id). No schema ⇒ PAIMON_ERR_NOT_FOUND. */
int pm_schema_read_latest(const pm_schema_manager *m, pm_table_schema **out, pm_error *err);
/* Writes schema-<s->id> create-if-absent (PAIMON_ERR_CONFLICT if it exists); creates directories. */
int pm_schema_write(const pm_schema_manager *m, const pm_table_schema *s, pm_error *err);

/* ---- lookups ---- */
/* Index of a top-level field by name, or -1. */
int pm_schema_field_index(const pm_table_schema *s, const char *name);
/* Index of a top-level field by id, or -1. */
int pm_schema_field_index_by_id(const pm_table_schema *s, int32_t id);
/* Effective `bucket` (compat: version <= 1 without the option ⇒ 1; default -1). */
int pm_schema_bucket(const pm_table_schema *s, int32_t *out, pm_error *err);
/* Effective `file.format` (compat: version <= 2 without the option ⇒ "orc"; default "parquet"). */
const char *pm_schema_file_format(const pm_table_schema *s);
/* Trimmed primary key = primary keys minus partition keys, in PK order. *names
 * is a malloc'd array of pointers INTO s (free(*names) only). */
int pm_schema_trimmed_primary_keys(const pm_table_schema *s, const char ***names, size_t *n, pm_error *err);
/* Bucket key = `bucket-key` option (comma list) else trimmed primary key.
 * *names is malloc'd with malloc'd strings: pm_free_strings(*names, n). */
int pm_schema_bucket_keys(const pm_table_schema *s, char ***names, size_t *n, pm_error *err);
void pm_free_strings(char **names, size_t n);

/* ---- paths ---- */
/* Metadata directory of a branch: table_root, or table_root/branch/branch-<b>. malloc'd. */
char *pm_branch_dir(const char *table_root, const char *branch);
/* 1 if branch names the main branch (NULL, "", "main"). */
int pm_branch_is_main(const char *branch);
/* Names of the branches of a table (directories branch/branch-<b> of fs), sorted; pm_free_names. */
int pm_branch_list(pm_fs *fs, const char *table_root, char ***names, size_t *n, pm_error *err);

/* Directory helpers shared by the metadata modules. A missing directory lists nothing.
 * Ids of entries "<prefix><digits>", ascending (*ids malloc'd, caller frees). */
int pm_meta_list_ids(pm_fs *fs, const char *dir, const char *prefix, int64_t **ids, size_t *n, pm_error *err);
/* Names of entries "<prefix><name>" with the prefix removed, sorted; free with pm_free_names. */
int pm_meta_list_names(pm_fs *fs, const char *dir, const char *prefix, char ***names, size_t *n, pm_error *err);

/* core_options.h needs pm_options above; it brings the PM_OPT_* key names. */
#include "meta/core_options.h"

#endif
