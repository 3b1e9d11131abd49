/*
 * Building schema-0 of a new table as Java's CREATE TABLE does
 * (Schema.Builder + Schema's normalisation + TableSchema.create +
 * SchemaValidation): a pm_schema_spec collects columns, keys, options and
 * the comment; pm_schema_spec_build turns it into the pm_table_schema Java
 * would write, or refuses it with PAIMON_ERR_INVALID_ARGUMENT naming the
 * column, key or option at fault.
 *
 * Ownership: a pm_schema_spec owns everything it holds (strings copied on
 * the way in); pm_schema_spec_clear frees it. Built schemas: pm_schema_free.
 */
#ifndef PM_META_SCHEMA_BUILD_H
#define PM_META_SCHEMA_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "data/types.h"
#include "meta/schema.h"
#include "paimon/arrow_c.h"
#include "util/error.h"

typedef struct pm_schema_spec {
  pm_data_field *fields; /* ids -1 unless `keep_ids` */
  size_t n_fields, cap_fields;
  char **partition_keys;
  size_t n_partition_keys;
  char **primary_keys;
  size_t n_primary_keys;
  pm_options options; /* insertion order */
  char *comment;      /* NULL = none */
  int keep_ids;       /* fields carry their own ids (schema JSON with ids everywhere) */
  size_t n_default_options; /* the last n options are the catalog's table-default.* ones */
} pm_schema_spec;

void pm_schema_spec_init(pm_schema_spec *s);
void pm_schema_spec_clear(pm_schema_spec *s);
int pm_schema_spec_copy(const pm_schema_spec *src, pm_schema_spec *dst, pm_error *err);

/* Appends a column; `type` is a Paimon type string (data/types.h). comment may be NULL. */
int pm_schema_spec_add_column(pm_schema_spec *s, const char *name, const char *type, const char *comment,
                              pm_error *err);
/* Appends the columns of "id INT NOT NULL, name STRING COMMENT 'x', ...". */
int pm_schema_spec_add_columns_sql(pm_schema_spec *s, const char *text, pm_error *err);
/* Replaces the key lists (strings copied). */
int pm_schema_spec_set_primary_key(pm_schema_spec *s, const char *const *cols, size_t n, pm_error *err);
int pm_schema_spec_set_partition_keys(pm_schema_spec *s, const char *const *cols, size_t n, pm_error *err);
int pm_schema_spec_set_comment(pm_schema_spec *s, const char *comment, pm_error *err);

/* A spec from Paimon's schema JSON ({"fields":[{"id","name","type"[,"description"]}],
 * "partitionKeys","primaryKeys","options","comment"}; `type` a type string or the
 * nested JSON form; ids optional: kept when every field, nested too, has one). */
int pm_schema_spec_from_json(const char *json, size_t len, pm_schema_spec *out, pm_error *err);
/* A spec from an Arrow struct schema (types as the read side maps them back). */
int pm_schema_spec_from_arrow(const struct ArrowSchema *schema, pm_schema_spec *out, pm_error *err);

/* schema-0 as Java writes it: version 3, id 0, field ids numbered as
 * Schema.Builder numbers them (pre-order, nested rows too) unless kept,
 * highestFieldId, `primary-key` / `partition` options turned into keys,
 * primary-key columns NOT NULL (unless primary-key.nullable), options in
 * Java HashMap order, timeMillis. Every check of Java's create path first. */
int pm_schema_spec_build(const pm_schema_spec *s, int64_t time_millis, pm_table_schema **out, pm_error *err);

/* Java's checks of a new table's schema (TableSchema's constructor,
 * CatalogUtils.validateCreateTable, SchemaValidation.validateTableSchema as
 * far as this library knows the options). ALTER TABLE has its own copy of the
 * shared part (meta/schema_change_internal.h pm_schema_validate); the two
 * should become one. */
int pm_schema_validate_create(const pm_table_schema *s, pm_error *err);
/* The changelog-producer / streaming-read-overwrite / first-row combinations Java's
 * SchemaValidation refuses (create and alter). */
struct pm_core_options;
int pm_schema_validate_producer(const pm_table_schema *s, const struct pm_core_options *co, pm_error *err);

/* Reorders options as a java.util.HashMap<String,String> filled in their
 * order iterates them (meta/java_hashmap.h): the order Jackson writes a
 * schema's options in. */
int pm_options_java_order(pm_options *o, pm_error *err);

#endif
