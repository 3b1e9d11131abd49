/*
 * Paimon logical data types (FORMAT.md 2.2-2.4): the type tree of a table
 * schema, parsed from / printed to the schema JSON form, and mapped to Arrow.
 *
 * A pm_data_type is a heap tree: every node and every string it points to is
 * owned by its parent; free the root with pm_dtype_free. Nested ROW fields are
 * pm_data_field values (id, name, type, description) exactly like the
 * top-level columns of a schema.
 */
#ifndef PM_DATA_TYPES_H
#define PM_DATA_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "paimon/arrow_c.h"
#include "util/buf.h"
#include "util/error.h"

typedef enum pm_dtype_root {
  PM_DT_BOOLEAN = 0,
  PM_DT_TINYINT,
  PM_DT_SMALLINT,
  PM_DT_INT,
  PM_DT_BIGINT,
  PM_DT_FLOAT,
  PM_DT_DOUBLE,
  PM_DT_DECIMAL,       /* precision 1..38, scale 0..precision */
  PM_DT_CHAR,          /* length = n */
  PM_DT_VARCHAR,       /* length = n; n == PM_DT_MAX_LENGTH is STRING */
  PM_DT_BINARY,        /* length = n */
  PM_DT_VARBINARY,     /* length = n; n == PM_DT_MAX_LENGTH is BYTES */
  PM_DT_DATE,          /* int32 days since epoch */
  PM_DT_TIME,          /* precision p; int32 millis of day */
  PM_DT_TIMESTAMP,     /* precision p 0..9; wall clock as if UTC */
  PM_DT_TIMESTAMP_LTZ, /* precision p 0..9; real UTC instant */
  PM_DT_VARIANT,
  PM_DT_BLOB,
  PM_DT_GEOMETRY, /* crs */
  PM_DT_GEOGRAPHY, /* crs, alg */
  PM_DT_ARRAY,    /* element */
  PM_DT_MULTISET, /* element (map element -> INT count) */
  PM_DT_MAP,      /* key, value */
  PM_DT_ROW,      /* fields */
  PM_DT_VECTOR    /* element, length */
} pm_dtype_root;

#define PM_DT_MAX_LENGTH 2147483647
/* Maximum nesting depth accepted when parsing types (untrusted JSON). */
#define PM_DT_MAX_DEPTH 64

struct pm_data_type;

typedef struct pm_data_field {
  int32_t id;
  char *name;                /* owned */
  struct pm_data_type *type; /* owned */
  char *description;         /* owned, NULL when absent */
  char *default_value;       /* owned, NULL when absent */
} pm_data_field;

typedef struct pm_data_type {
  pm_dtype_root root;
  int nullable;      /* 1 unless "NOT NULL" */
  int32_t length;    /* CHAR/VARCHAR/BINARY/VARBINARY n; VECTOR length */
  int32_t precision; /* DECIMAL p; TIME/TIMESTAMP/TIMESTAMP_LTZ p */
  int32_t scale;     /* DECIMAL s */
  char *crs;         /* GEOMETRY/GEOGRAPHY, owned, NULL = default */
  char *alg;         /* GEOGRAPHY, owned, NULL = default */
  struct pm_data_type *element; /* ARRAY, MULTISET, VECTOR (owned) */
  struct pm_data_type *key;     /* MAP (owned) */
  struct pm_data_type *value;   /* MAP (owned) */
  pm_data_field *fields;        /* ROW: n_fields fields (owned array) */
  size_t n_fields;
} pm_data_type;

/* ---- construction / destruction ---- */

/* New atomic node with Java's defaults for its parameters (DECIMAL(10,0),
 * CHAR(1), VARCHAR(1), TIME(0), TIMESTAMP(6), ...). *out owned by caller. */
int pm_dtype_new(pm_dtype_root root, int nullable, pm_data_type **out, pm_error *err);
void pm_dtype_free(pm_data_type *t); /* NULL ok */
int pm_dtype_copy(const pm_data_type *src, pm_data_type **out, pm_error *err);
/* Frees the members of f (not f itself). */
void pm_data_field_clear(pm_data_field *f);
int pm_data_field_copy(const pm_data_field *src, pm_data_field *dst, pm_error *err);
/* Structural equality (including nullability, ids and names of nested fields). */
int pm_dtype_equals(const pm_data_type *a, const pm_data_type *b);

/* ---- text / JSON forms ---- */

/* Parses a type string ("INT NOT NULL", "DECIMAL(10, 2)", "TIMESTAMP_LTZ(3)",
 * "INT ARRAY", "ARRAY<INT>", "MAP<STRING, INT>", "ROW<a INT, b STRING 'c'>";
 * grammar of FORMAT.md 2.3; nested ROW field ids are -1). Unknown
 * types are PAIMON_ERR_UNSUPPORTED, syntax errors PAIMON_ERR_CORRUPT. */
int pm_dtype_parse(const char *text, pm_data_type **out, pm_error *err);

/* Parses a column list "name TYPE [NOT NULL] [COMMENT 'text'], ..." (the
 * field syntax of ROW<...>; nested types ARRAY<T>, MULTISET<T>, MAP<K, V>,
 * ROW<name T, ...> accepted by pm_dtype_parse too). Names are words (case
 * kept) or `quoted`; every field id is -1. *out: pm_data_field_clear each,
 * free(*out). Errors as pm_dtype_parse. */
int pm_dtype_parse_fields(const char *text, pm_data_field **out, size_t *n, pm_error *err);

/* Parses a schema JSON type value (string or object form). `where` names the
 * place for messages (e.g. "schema-0: field 'a'"). */
int pm_dtype_from_json(const json_t *j, const char *where, pm_data_type **out, pm_error *err);
/* Parses a DataField object {"id","name","type","description"?,"defaultValue"?} into *f. */
int pm_data_field_from_json(const json_t *j, const char *where, int depth, pm_data_field *f, pm_error *err);

/* JSON value of a type, as Java writes it (string for atomic types, object
 * for ARRAY/MULTISET/MAP/ROW/VECTOR). Returns a new reference or NULL on OOM. */
json_t *pm_dtype_to_json(const pm_data_type *t);
/* DataField object in Java's key order (id, name, type, description?, defaultValue?). */
json_t *pm_data_field_to_json(const pm_data_field *f);

/* Canonical string of a type, appended to out: atomic types exactly as in the
 * schema JSON ("DECIMAL(10, 2) NOT NULL"); nested types in SQL form
 * ("ARRAY<INT>", "MAP<STRING, INT> NOT NULL", "ROW<`a` INT, `b` STRING>"). */
int pm_dtype_to_string(const pm_data_type *t, pm_buf *out, pm_error *err);
/* Convenience: malloc'd NUL-terminated canonical string (NULL on OOM). */
char *pm_dtype_to_cstring(const pm_data_type *t);

/* Canonical name of a root ("INT", "TIMESTAMP_LTZ", ...). */
const char *pm_dtype_root_name(pm_dtype_root r);

/* ---- classification helpers ---- */
int pm_dtype_is_nested(pm_dtype_root r);   /* ARRAY, MULTISET, MAP, ROW, VECTOR */
int pm_dtype_is_string(pm_dtype_root r);   /* CHAR, VARCHAR */
int pm_dtype_is_binary(pm_dtype_root r);   /* BINARY, VARBINARY, BLOB, GEOMETRY, GEOGRAPHY */
/* True when the value fits the 8-byte BinaryRow slot (FORMAT.md 5.2):
 * DECIMAL p <= 18, TIMESTAMP(_LTZ) p <= 3, and the fixed-width primitives. */
int pm_dtype_is_compact(const pm_data_type *t);

/* ---- Arrow mapping ---- */

/* Arrow format string of one node (no children): "b","c","s","i","l","f","g",
 * "d:p,s","u","z","tdD","ttm","tsm:"/"tsu:"/"tsn:" (LTZ: with "UTC"),
 * "+l","+m","+s". */
const char *pm_dtype_arrow_format(const pm_data_type *t, char *buf, size_t cap);

/* Builds the ArrowSchema of one field (name, nullability flag, children,
 * metadata "PARQUET:field_id" = field id). *out owned by caller. */
int pm_dfield_to_arrow(const pm_data_field *f, struct ArrowSchema *out, pm_error *err);
/* Builds an Arrow struct schema ("+s", name "") whose children are the fields. */
int pm_dfields_to_arrow(const pm_data_field *fields, size_t n, struct ArrowSchema *out, pm_error *err);

/* Numbers fields as Java's CREATE TABLE does (FORMAT.md 2.4): one counter
 * starting at first_id, pre-order: a field gets the next id, then the fields
 * of ROW types inside it (through ARRAY/MULTISET/VECTOR elements, MAP key
 * then value). *highest receives the largest id assigned (first_id - 1 if none). */
void pm_dfields_assign_ids(pm_data_field *fields, size_t n, int32_t first_id, int32_t *highest);

/* ---- Avro mapping (FORMAT.md 4.2) ---- */

/* Appends the Avro writer schema JSON Java builds for a row of these fields
 * (top-level record "record" in namespace org.apache.paimon.avro.generated,
 * nested records named <record>_<field>, ["null", T] unions with
 * "default": null for nullable fields, logical types for dates/times/
 * timestamps/decimals, arrays of key/value records for non-string map keys),
 * compact, exactly as Avro's Schema.toString() prints it. VARIANT, GEOMETRY,
 * GEOGRAPHY and TIME/TIMESTAMP precisions Avro cannot hold are PAIMON_ERR_UNSUPPORTED. */
int pm_dtype_avro_schema_json(const pm_data_field *fields, size_t n, pm_buf *out, pm_error *err);

#endif
