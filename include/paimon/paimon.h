/*
 * libpaimon public API: read Apache Paimon tables from C.
 *
 * The model follows the Paimon clients: open a catalog over a warehouse,
 * get a table, make a read builder (projection, filter, limit, time travel
 * through dynamic options), plan a scan into splits, read splits as an Arrow
 * C stream.
 *
 *   paimon_option opts[] = {{"warehouse", "/data/warehouse"}};
 *   paimon_catalog *cat;  paimon_catalog_open(opts, 1, &cat, &err);
 *   paimon_table *t;      paimon_catalog_get_table(cat, "db.orders", &t, &err);
 *   paimon_read_builder *rb; paimon_read_builder_new(t, NULL, 0, &rb, &err);
 *   const char *cols[] = {"id", "amount"};
 *   paimon_read_builder_with_projection(rb, cols, 2, &err);
 *   paimon_predicate *p;
 *   paimon_predicate_greater_than(rb, "id", paimon_literal_int64(5), &p, &err);
 *   paimon_read_builder_with_filter(rb, p, &err);     (takes ownership of p)
 *   paimon_plan *plan;    paimon_read_builder_plan(rb, &plan, &err);
 *   struct ArrowArrayStream s;
 *   paimon_read_plan(rb, plan, &s, &err);   ... s.get_next ... s.release(&s);
 *   paimon_plan_free(plan); paimon_read_builder_free(rb);
 *   paimon_table_free(t); paimon_catalog_free(cat);
 *
 * Conventions
 *  - Every fallible call returns paimon_status (PAIMON_OK = 0) and takes
 *    `paimon_error *err` last (may be NULL); on failure err holds a one-line
 *    message naming the file / option / column at fault.
 *  - Handles are opaque; each `*_new` / `*_open` / `*_get` has a `*_free`
 *    that accepts NULL.
 *  - Ownership of every returned object is stated next to the call. Strings
 *    and arrays returned through out-parameters are freed with
 *    paimon_free_string / paimon_free_strings / paimon_free_bytes.
 *  - Lifetimes: a table must outlive the read builders made from it; a read
 *    builder must outlive the plans and predicates made from it. Arrow
 *    streams returned by reads own everything they need (the builder, plan
 *    and splits may be freed while the stream is in use). A stream's
 *    release(s) frees it and sets every member of *s, the callbacks
 *    included, to NULL (the Arrow C stream interface marks a released
 *    stream by release == NULL); call nothing else on it afterwards.
 *  - Predicates and plans belong to the table (and schema) of the read
 *    builder that made them: a builder given a predicate or plan made for
 *    another table returns PAIMON_ERR_INVALID_ARGUMENT.
 *  - No global mutable state: distinct handles may be used from different
 *    threads concurrently; one handle must not be used by two threads at once.
 */
#ifndef PAIMON_PAIMON_H
#define PAIMON_PAIMON_H

#include <stddef.h>
#include <stdint.h>

#include "paimon/arrow_c.h"
#include "paimon/error.h"
#include "paimon/export.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PAIMON_VERSION_STRING "0.1.0"

/* Library version, e.g. "0.1.0". Static string. */
PAIMON_EXPORT const char *paimon_version(void);

/* A string option. Keys and values are copied by the calls that take them. */
typedef struct paimon_option {
  const char *key;
  const char *value;
} paimon_option;

typedef struct paimon_catalog paimon_catalog;
typedef struct paimon_table paimon_table;
typedef struct paimon_read_builder paimon_read_builder;
typedef struct paimon_predicate paimon_predicate;
typedef struct paimon_plan paimon_plan;
typedef struct paimon_split paimon_split;

PAIMON_EXPORT void paimon_free_string(char *s);             /* NULL ok */
PAIMON_EXPORT void paimon_free_strings(char **v, size_t n); /* NULL ok */
PAIMON_EXPORT void paimon_free_bytes(uint8_t *b);           /* NULL ok */

/* ------------------------------------------------------------- catalog */

/* Opens a filesystem catalog. Options: "warehouse" (required, a local
 * directory or file: URI), "metastore" (absent or "filesystem"),
 * "path-rewrite" = "FROM=TO[;FROM2=TO2]" (prefix rewrite applied to absolute
 * paths stored in table metadata, e.g. external data paths).
 * *out: owned by the caller, paimon_catalog_free. */
PAIMON_EXPORT paimon_status paimon_catalog_open(const paimon_option *options, size_t n_options, paimon_catalog **out,
                                                paimon_error *err);
PAIMON_EXPORT void paimon_catalog_free(paimon_catalog *catalog);

/* Database names, sorted. *names owned by the caller: paimon_free_strings(*names, *n). */
PAIMON_EXPORT paimon_status paimon_catalog_list_databases(const paimon_catalog *catalog, char ***names, size_t *n,
                                                          paimon_error *err);
/* Table names of a database, sorted (same ownership). */
PAIMON_EXPORT paimon_status paimon_catalog_list_tables(const paimon_catalog *catalog, const char *database,
                                                       char ***names, size_t *n, paimon_error *err);

/* Gets a table by identifier "db.table" or "db.table$branch_<name>".
 * *out owned by the caller: paimon_table_free. System tables ("db.t$snapshots")
 * are PAIMON_ERR_INVALID_ARGUMENT here: get them with
 * paimon_catalog_get_system_table (projection and filters) or read them whole
 * with paimon_catalog_read_system_table. */
PAIMON_EXPORT paimon_status paimon_catalog_get_table(const paimon_catalog *catalog, const char *identifier,
                                                     paimon_table **out, paimon_error *err);

/* Gets system table "db.t[$branch_b]$<name>" (names as below) as a table
 * handle, read like a data table: paimon_read_builder_new (dynamic options,
 * e.g. time travel for files / partitions / manifests), with_projection and
 * predicates over the system table's columns (paimon_table_arrow_schema;
 * unknown columns are PAIMON_ERR_NOT_FOUND), with_filter (applied exactly),
 * with_limit; paimon_read_builder_plan gives a plan without splits and
 * paimon_read_plan (or paimon_table_read_splits with n = 0) reads the rows.
 * It has no partition or primary keys. *out owned by the caller: paimon_table_free. */
PAIMON_EXPORT paimon_status paimon_catalog_get_system_table(const paimon_catalog *catalog, const char *identifier,
                                                            paimon_table **out, paimon_error *err);

/* Reads a system table "db.t[$branch_b]$<name>" with name one of snapshots,
 * schemas, options, files, partitions, tags, branches, manifests.
 * *out (a stream) is owned by the caller: call out->release(out). */
PAIMON_EXPORT paimon_status paimon_catalog_read_system_table(const paimon_catalog *catalog, const char *identifier,
                                                             struct ArrowArrayStream *out, paimon_error *err);

/* --------------------------------------------------------------- table */

PAIMON_EXPORT void paimon_table_free(paimon_table *table);
/* "db.table" (static for the table's lifetime). */
PAIMON_EXPORT const char *paimon_table_identifier(const paimon_table *table);
/* "main" or the branch name. */
PAIMON_EXPORT const char *paimon_table_branch(const paimon_table *table);
/* Arrow schema (struct) of the table's columns in the latest schema.
 * *out owned by the caller (release it). */
PAIMON_EXPORT paimon_status paimon_table_arrow_schema(const paimon_table *table, struct ArrowSchema *out,
                                                      paimon_error *err);
PAIMON_EXPORT size_t paimon_table_num_primary_keys(const paimon_table *table);
PAIMON_EXPORT const char *paimon_table_primary_key(const paimon_table *table, size_t i); /* NULL if out of range */
PAIMON_EXPORT size_t paimon_table_num_partition_keys(const paimon_table *table);
PAIMON_EXPORT const char *paimon_table_partition_key(const paimon_table *table, size_t i);
/* Columns of the latest schema, in order. Names are valid for the table's lifetime
 * (NULL if i is out of range). */
PAIMON_EXPORT size_t paimon_table_num_columns(const paimon_table *table);
PAIMON_EXPORT const char *paimon_table_column_name(const paimon_table *table, size_t i);
/* Paimon SQL type of column i as in the schema file: "INT", "TIMESTAMP(3)",
 * "DECIMAL(10, 2) NOT NULL", "ARRAY<INT>", "ROW<`a` INT>". *type owned by the
 * caller (paimon_free_string). i out of range is PAIMON_ERR_INVALID_ARGUMENT. */
PAIMON_EXPORT paimon_status paimon_table_column_type(const paimon_table *table, size_t i, char **type,
                                                     paimon_error *err);
/* Id of the latest schema (the schema reads use). */
PAIMON_EXPORT int64_t paimon_table_schema_id(const paimon_table *table);
/* Effective option value (table options) or NULL. Valid for the table's lifetime. */
PAIMON_EXPORT const char *paimon_table_option(const paimon_table *table, const char *key);
/* Option warnings: one message per option key that is neither a known option
 * nor matches a known prefix pattern (fields.<f>.*, file-index.*, ...), e.g.
 * "unknown table option 'scan.snapshot-idd' (did you mean 'scan.snapshot-id'?)".
 * The library never prints them; *n receives the count (0: returns NULL).
 * The array and its strings belong to the handle and live as long as it. */
PAIMON_EXPORT const char *const *paimon_catalog_warnings(const paimon_catalog *catalog, size_t *n);
/* Unknown keys among the table's options (schema options and the dynamic options it was opened with). */
PAIMON_EXPORT const char *const *paimon_table_warnings(const paimon_table *table, size_t *n);
/* Unknown keys among the builder's effective options (the table's plus its dynamic options). */
PAIMON_EXPORT const char *const *paimon_read_builder_warnings(const paimon_read_builder *rb, size_t *n);
/* Latest snapshot id of the table's branch; 0 when it has none. */
PAIMON_EXPORT paimon_status paimon_table_latest_snapshot_id(const paimon_table *table, int64_t *id, paimon_error *err);

/* -------------------------------------------------------- read builder */

/* Creates a read builder. dynamic_options override table options for this
 * read: time travel ("scan.snapshot-id", "scan.tag-name",
 * "scan.timestamp-millis", "scan.timestamp" (local time "YYYY-MM-DD
 * HH:MM:SS[.fff]"), "scan.version"; at most one), incremental reads
 * ("incremental-between" = "start,end" snapshot ids or tags,
 * "incremental-between-timestamp", "incremental-between-scan-mode" =
 * auto|delta|changelog|diff; two tags are a diff unless
 * "incremental-between-tag-to-snapshot" = true), split sizing ("source.split.target-size",
 * "source.split.open-file-cost"), "read.batch-size", "path-rewrite" =
 * "FROM=TO[;...]" (prefix rewrite of stored absolute paths for this read,
 * e.g. external data paths or bucket paths of splits serialized elsewhere),
 * "scan.mode" = latest-delta / from-file-creation-time / compacted-full, ...
 * *out owned by the caller: paimon_read_builder_free. */
PAIMON_EXPORT paimon_status paimon_read_builder_new(const paimon_table *table, const paimon_option *dynamic_options,
                                                    size_t n_options, paimon_read_builder **out, paimon_error *err);
PAIMON_EXPORT void paimon_read_builder_free(paimon_read_builder *rb);

/* Column names to read, in output order (copied). Nested fields as "a.b".
 * System columns "_ROW_ID" / "_SEQUENCE_NUMBER" are accepted. Unknown names
 * are PAIMON_ERR_NOT_FOUND. n = 0 resets to all columns. */
PAIMON_EXPORT paimon_status paimon_read_builder_with_projection(paimon_read_builder *rb, const char *const *columns,
                                                                size_t n, paimon_error *err);
/* Sets the filter; takes ownership of predicate (also on failure). NULL clears it.
 * A predicate made by a builder of another table or schema is PAIMON_ERR_INVALID_ARGUMENT.
 * Used for pruning during planning and applied exactly to the rows read. */
PAIMON_EXPORT paimon_status paimon_read_builder_with_filter(paimon_read_builder *rb, paimon_predicate *predicate,
                                                            paimon_error *err);
/* Row limit (< 0 = none). A planning hint plus a cap on rows returned. */
PAIMON_EXPORT void paimon_read_builder_with_limit(paimon_read_builder *rb, int64_t limit);
/* Column-name matching for projections and predicates built afterwards (default 1). */
PAIMON_EXPORT void paimon_read_builder_with_case_sensitive(paimon_read_builder *rb, int case_sensitive);
/* Adds a leading "_row_kind" utf8 column ("+I", "-U", "+U", "-D"), as pypaimon does. */
PAIMON_EXPORT void paimon_read_builder_with_row_kind(paimon_read_builder *rb, int include_row_kind);

/* ---------------------------------------------------------- predicates */

typedef enum paimon_literal_kind {
  PAIMON_LITERAL_NULL = 0,
  PAIMON_LITERAL_BOOL,
  PAIMON_LITERAL_INT64,
  PAIMON_LITERAL_DOUBLE,
  PAIMON_LITERAL_STRING,    /* UTF-8; also accepted for DATE/TIME/TIMESTAMP/DECIMAL columns as text */
  PAIMON_LITERAL_BYTES,
  PAIMON_LITERAL_DECIMAL,   /* unscaled int64 + scale */
  PAIMON_LITERAL_DATE,      /* days since 1970-01-01 */
  PAIMON_LITERAL_TIME,      /* milliseconds of the day */
  PAIMON_LITERAL_TIMESTAMP  /* epoch milliseconds + nanoseconds within the millisecond */
} paimon_literal_kind;

/* A literal value, passed by value. Strings / bytes are borrowed for the
 * duration of the call that takes the literal (the predicate copies them). */
typedef struct paimon_literal {
  paimon_literal_kind kind;
  int64_t i;     /* BOOL (0/1), INT64, DECIMAL unscaled, DATE, TIME, TIMESTAMP millis */
  int32_t scale; /* DECIMAL */
  int32_t nanos; /* TIMESTAMP: 0..999999 */
  double d;      /* DOUBLE */
  const char *s; /* STRING / BYTES */
  size_t len;    /* STRING / BYTES length in bytes */
} paimon_literal;

PAIMON_EXPORT paimon_literal paimon_literal_null(void);
PAIMON_EXPORT paimon_literal paimon_literal_bool(int v);
PAIMON_EXPORT paimon_literal paimon_literal_int64(int64_t v);
PAIMON_EXPORT paimon_literal paimon_literal_double(double v);
PAIMON_EXPORT paimon_literal paimon_literal_string(const char *s); /* NUL-terminated */
PAIMON_EXPORT paimon_literal paimon_literal_bytes(const void *data, size_t len);
PAIMON_EXPORT paimon_literal paimon_literal_decimal(int64_t unscaled, int32_t scale);
PAIMON_EXPORT paimon_literal paimon_literal_date(int32_t days_since_epoch);
PAIMON_EXPORT paimon_literal paimon_literal_time(int32_t millis_of_day);
PAIMON_EXPORT paimon_literal paimon_literal_timestamp(int64_t epoch_millis, int32_t nanos_of_milli);

/* Leaves. The column is resolved against the builder's table (honouring its
 * case sensitivity) and literals are converted to the column type; a
 * literal that does not fit is PAIMON_ERR_INVALID_ARGUMENT saying what the
 * value is, the column, its type and why ("'1970-13-45' is not a valid DATE
 * for column 'f12'"). Timestamp columns take paimon_literal_timestamp,
 * paimon_literal_date or text, never numbers. Text for a TIMESTAMP WITH
 * LOCAL TIME ZONE column may carry its zone ('1970-01-01T00:00:04Z',
 * '1970-01-01 08:00:04+08:00', as zoned values print); zone-less text is a
 * wall-clock time in the session time zone (option session_time_zone /
 * local-time-zone, else the process's local zone). *out owned by the caller
 * until given to with_filter / and / or / not (paimon_predicate_free
 * otherwise). */
PAIMON_EXPORT paimon_status paimon_predicate_equal(const paimon_read_builder *rb, const char *column, paimon_literal v,
                                                   paimon_predicate **out, paimon_error *err);
PAIMON_EXPORT paimon_status paimon_predicate_not_equal(const paimon_read_builder *rb, const char *column,
                                                       paimon_literal v, paimon_predicate **out, paimon_error *err);
PAIMON_EXPORT paimon_status paimon_predicate_less_than(const paimon_read_builder *rb, const char *column,
                                                       paimon_literal v, paimon_predicate **out, paimon_error *err);
PAIMON_EXPORT paimon_status paimon_predicate_less_or_equal(const paimon_read_builder *rb, const char *column,
                                                           paimon_literal v, paimon_predicate **out, paimon_error *err);
PAIMON_EXPORT paimon_status paimon_predicate_greater_than(const paimon_read_builder *rb, const char *column,
                                                          paimon_literal v, paimon_predicate **out, paimon_error *err);
PAIMON_EXPORT paimon_status paimon_predicate_greater_or_equal(const paimon_read_builder *rb, const char *column,
                                                              paimon_literal v, paimon_predicate **out,
                                                              paimon_error *err);
PAIMON_EXPORT paimon_status paimon_predicate_is_null(const paimon_read_builder *rb, const char *column,
                                                     paimon_predicate **out, paimon_error *err);
PAIMON_EXPORT paimon_status paimon_predicate_is_not_null(const paimon_read_builder *rb, const char *column,
                                                         paimon_predicate **out, paimon_error *err);
PAIMON_EXPORT paimon_status paimon_predicate_in(const paimon_read_builder *rb, const char *column,
                                                const paimon_literal *values, size_t n, paimon_predicate **out,
                                                paimon_error *err);
PAIMON_EXPORT paimon_status paimon_predicate_not_in(const paimon_read_builder *rb, const char *column,
                                                    const paimon_literal *values, size_t n, paimon_predicate **out,
                                                    paimon_error *err);
PAIMON_EXPORT paimon_status paimon_predicate_starts_with(const paimon_read_builder *rb, const char *column,
                                                         const char *prefix, paimon_predicate **out, paimon_error *err);
PAIMON_EXPORT paimon_status paimon_predicate_ends_with(const paimon_read_builder *rb, const char *column,
                                                       const char *suffix, paimon_predicate **out, paimon_error *err);
PAIMON_EXPORT paimon_status paimon_predicate_contains(const paimon_read_builder *rb, const char *column,
                                                      const char *infix, paimon_predicate **out, paimon_error *err);
/* SQL LIKE: % any sequence, _ one character, \ escapes. */
PAIMON_EXPORT paimon_status paimon_predicate_like(const paimon_read_builder *rb, const char *column,
                                                  const char *pattern, paimon_predicate **out, paimon_error *err);
/* and / or of n >= 1 predicates; takes ownership of every child (also on failure).
 * Children made for different tables are PAIMON_ERR_INVALID_ARGUMENT. */
PAIMON_EXPORT paimon_status paimon_predicate_and(paimon_predicate *const *children, size_t n, paimon_predicate **out,
                                                 paimon_error *err);
PAIMON_EXPORT paimon_status paimon_predicate_or(paimon_predicate *const *children, size_t n, paimon_predicate **out,
                                                paimon_error *err);
/* Logical NOT of a predicate; takes ownership of child (also on failure).
 * NULL values match neither a predicate nor its negation (SQL). */
PAIMON_EXPORT paimon_status paimon_predicate_not(paimon_predicate *child, paimon_predicate **out, paimon_error *err);
/* column BETWEEN low AND high (both inclusive): greater_or_equal(low) and less_or_equal(high). */
PAIMON_EXPORT paimon_status paimon_predicate_between(const paimon_read_builder *rb, const char *column,
                                                     paimon_literal low, paimon_literal high, paimon_predicate **out,
                                                     paimon_error *err);
/* Parses a filter expression: `id > 5 and name like 'a%'`, `x in (1, 2)`,
 * `y is not null`, `d = '2024-01-01'`, `not (a = 1 or b < 2)`, `v between 1 and 9`,
 * `s not like 'x%'`, `d >= DATE '2024-01-01'`, `ts < TIMESTAMP '2024-01-01 10:00:00'`,
 * `ts_ltz = '1970-01-01T00:00:04Z'`, `"quoted name" = 1`. Parentheses and NOT
 * nest up to 128 levels. Literals are typed as for the leaf builders above. */
PAIMON_EXPORT paimon_status paimon_predicate_parse(const paimon_read_builder *rb, const char *text,
                                                   paimon_predicate **out, paimon_error *err);
/* Readable form of a predicate; *text owned by the caller (paimon_free_string). */
PAIMON_EXPORT paimon_status paimon_predicate_to_string(const paimon_predicate *p, char **text, paimon_error *err);
PAIMON_EXPORT void paimon_predicate_free(paimon_predicate *p);

/* ---------------------------------------------------------------- scan */

/* Plans the read: selects the snapshot (latest, or per time-travel options;
 * a selector that resolves to no snapshot is an error, more than one
 * selector is PAIMON_ERR_INVALID_ARGUMENT), prunes manifests and files with
 * the filter and packs the files into splits. An incremental read with diff
 * semantics (scan mode diff, or a tag pair) plans incremental splits instead
 * (Java IncrementalSplit: the before/after files of one partition + bucket;
 * see paimon_split_is_incremental); a plan holds one kind only.
 * *out owned by the caller: paimon_plan_free. */
PAIMON_EXPORT paimon_status paimon_read_builder_plan(const paimon_read_builder *rb, paimon_plan **out,
                                                     paimon_error *err);
PAIMON_EXPORT void paimon_plan_free(paimon_plan *plan);
PAIMON_EXPORT size_t paimon_plan_num_splits(const paimon_plan *plan);
/* Split i, owned by the plan (valid until paimon_plan_free). */
PAIMON_EXPORT const paimon_split *paimon_plan_split(const paimon_plan *plan, size_t i);
/* 1 and *id = snapshot planned, or 0 when the table has no snapshot. */
PAIMON_EXPORT int paimon_plan_snapshot_id(const paimon_plan *plan, int64_t *id);
/* Multi-line report of what planning read and pruned per stage.
 * *text owned by the caller (paimon_free_string). */
PAIMON_EXPORT paimon_status paimon_plan_explain(const paimon_plan *plan, char **text, paimon_error *err);

/* Split properties. For an incremental split the files are its "after"
 * files (the end snapshot's side). */
/* 1 if the split is an incremental (diff) split, 0 for a DataSplit. */
PAIMON_EXPORT int paimon_split_is_incremental(const paimon_split *split);
PAIMON_EXPORT int32_t paimon_split_bucket(const paimon_split *split);
PAIMON_EXPORT size_t paimon_split_num_files(const paimon_split *split);
PAIMON_EXPORT int64_t paimon_split_row_count(const paimon_split *split); /* sum of file row counts (before merging) */
PAIMON_EXPORT int64_t paimon_split_snapshot_id(const paimon_split *split);
PAIMON_EXPORT int paimon_split_is_streaming(const paimon_split *split);
PAIMON_EXPORT int paimon_split_raw_convertible(const paimon_split *split); /* always 0 for incremental splits */

/* Partition values of a split, decoded with the partition keys and types of
 * `table` (the table the split was planned from: a split holds its raw
 * partition row only). A table without partition keys gives 0 fields; a
 * system-table handle is PAIMON_ERR_INVALID_ARGUMENT; a partition row that
 * does not fit the table's keys is PAIMON_ERR_CORRUPT. *out is owned by the
 * caller (paimon_partition_free) and references neither table nor split. */
typedef struct paimon_partition paimon_partition;
PAIMON_EXPORT paimon_status paimon_split_partition(const paimon_table *table, const paimon_split *split,
                                                   paimon_partition **out, paimon_error *err);
PAIMON_EXPORT void paimon_partition_free(paimon_partition *partition); /* NULL ok */
PAIMON_EXPORT size_t paimon_partition_num_fields(const paimon_partition *partition);
/* Name of field i (its partition key); NULL if out of range. Owned by the partition. */
PAIMON_EXPORT const char *paimon_partition_field_name(const paimon_partition *partition, size_t i);
/* Value of field i, typed from the key column: BOOL; INT64 (TINYINT .. BIGINT);
 * DOUBLE (FLOAT, DOUBLE); DECIMAL (as STRING text when the unscaled value does
 * not fit int64); STRING (CHAR, VARCHAR; NUL-terminated, len set); BYTES
 * (BINARY, VARBINARY); DATE; TIME; TIMESTAMP (also with local time zone);
 * other types as STRING text. NULL kind for a null value or i out of range.
 * Strings and bytes are owned by the partition (valid until paimon_partition_free). */
PAIMON_EXPORT paimon_literal paimon_partition_value(const paimon_partition *partition, size_t i);
/* Field i as text, as $partitions prints it ("10", "2024-01-01", "null" for a
 * null value); NULL if out of range. Owned by the partition. */
PAIMON_EXPORT const char *paimon_partition_value_text(const paimon_partition *partition, size_t i);

/* Java binary encoding, so splits can be shipped to other processes (or
 * Java): a DataSplit as DataSplit version 9 (DataSplit.serialize); an
 * incremental split as a SplitSerializer record (magic "SPLIT_V1", type 2,
 * IncrementalSplit version 2). *bytes owned by the caller (paimon_free_bytes). */
PAIMON_EXPORT paimon_status paimon_split_serialize(const paimon_split *split, uint8_t **bytes, size_t *len,
                                                   paimon_error *err);
/* Decodes a serialized split. Bytes starting with the int64 SplitSerializer
 * magic 0x53504C49545F5631 ("SPLIT_V1") are a SplitSerializer record (type 1
 * DataSplit or 2 IncrementalSplit; other types are PAIMON_ERR_UNSUPPORTED);
 * anything else is a DataSplit (versions 2..9 start with the DataSplit magic,
 * version 1 with its snapshot id, which cannot be that value in practice).
 * *out owned by the caller: paimon_split_free. */
PAIMON_EXPORT paimon_status paimon_split_deserialize(const uint8_t *bytes, size_t len, paimon_split **out,
                                                     paimon_error *err);
/* Frees a split from paimon_split_deserialize (never one owned by a plan). */
PAIMON_EXPORT void paimon_split_free(paimon_split *split);

/* ---------------------------------------------------------------- read */

/* Arrow schema (struct) of the batches the builder's reads produce. *out owned by the caller. */
PAIMON_EXPORT paimon_status paimon_read_builder_read_schema(const paimon_read_builder *rb, struct ArrowSchema *out,
                                                            paimon_error *err);
/* Reads splits (borrowed; copied internally) as an Arrow stream with the
 * builder's projection, filter, limit and row-kind settings. Incremental
 * splits yield the diff (per key the end-side row when it was added or
 * changed; with row kinds also a "-D" for each removed key); the splits of
 * one call must all be DataSplits or all incremental, else
 * PAIMON_ERR_INVALID_ARGUMENT. *out owned by
 * the caller (out->release(out)); it keeps working after the builder, the
 * plan and the splits are freed. Errors while reading are reported by
 * get_next (errno + get_last_error). */
PAIMON_EXPORT paimon_status paimon_table_read_splits(const paimon_read_builder *rb, const paimon_split *const *splits,
                                                     size_t n, struct ArrowArrayStream *out, paimon_error *err);
/* Reads system table `name` ("files", "partitions", "manifests", "snapshots", ...)
 * of the builder's table, whole (the builder's projection and filter name the
 * table's columns and do not apply: use paimon_catalog_get_system_table for
 * that), honouring its dynamic options (e.g. "files" at scan.snapshot-id).
 * *out owned by the caller (out->release(out)). */
PAIMON_EXPORT paimon_status paimon_read_builder_read_system_table(const paimon_read_builder *rb, const char *name,
                                                                  struct ArrowArrayStream *out, paimon_error *err);
/* Convenience: reads every split of a plan. A plan made by a builder of another
 * table or schema is PAIMON_ERR_INVALID_ARGUMENT (so are its splits given to
 * paimon_table_read_splits). */
PAIMON_EXPORT paimon_status paimon_read_plan(const paimon_read_builder *rb, const paimon_plan *plan,
                                             struct ArrowArrayStream *out, paimon_error *err);

#ifdef __cplusplus
}
#endif

/* DDL and schema evolution; writing and committing; single data files. */
#include "paimon/ddl.h"
#include "paimon/write.h"
#include "paimon/file.h"
#include "paimon/tag.h"
#include "paimon/branch.h"
#include "paimon/stream.h"
#include "paimon/scan_select.h"

#endif /* PAIMON_PAIMON_H */
