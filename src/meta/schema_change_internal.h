/* Internal to meta/schema_change*.c: Java's Schema normalisation and table-schema checks. */
#ifndef PM_META_SCHEMA_CHANGE_INTERNAL_H
#define PM_META_SCHEMA_CHANGE_INTERNAL_H

#include "meta/schema.h"

/* Java's Schema.normalizeFields: no duplicate column / partition / primary-key names, key
 * columns exist, primary-key columns get the nullability `primary-key.nullable` selects. */
int pm_schema_normalize_fields(pm_table_schema *s, const char *table, pm_error *err);
/* The part of Java's TableSchema constructor and SchemaValidation.validateTableSchema this
 * library implements (option values, bucket / bucket-key, key column types, system names,
 * changelog producer, snapshot retention). */
int pm_schema_alter_validate(const pm_table_schema *s, const char *table, pm_error *err);

#endif
