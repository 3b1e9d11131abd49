/*
 * Schema evolution on read: mapping the columns of a data file written under
 * an older schema onto the read schema by FIELD ID, and the value casts Java
 * Paimon applies when a column's type was altered after the data was written.
 *
 * All functions work on Arrow C Data Interface arrays. Casts follow Java's
 * CastExecutors: numeric narrowing wraps like Java primitive casts,
 * DOUBLE->INT truncates toward zero (NaN -> 0, saturating), DECIMAL rescale
 * rounds HALF_UP (overflow -> null), STRING->BOOLEAN accepts
 * t/true/y/yes/1 and f/false/n/no/0 case-insensitively, TIMESTAMP->STRING
 * prints "yyyy-MM-dd HH:mm:ss[.fffffffff]" without trailing zeros, and casts
 * between zoned and zone-less timestamps (and from/to INT and DATE) use the
 * session time zone.
 */
#ifndef PM_TABLE_EVOLUTION_H
#define PM_TABLE_EVOLUTION_H

#include <stdint.h>

#include "arrow/arrow.h"
#include "arrow/type.h"
#include "util/error.h"
#include "util/tz.h"

/* Time zones (pm_tz) are util/tz.h. */

/* ---- casts ---- */

typedef struct pm_cast_options {
  const pm_tz *session_tz; /* NULL = UTC */
} pm_cast_options;

/* 1 if casting values of type `from` to type `to` is supported (identity included). */
int pm_cast_supported(const pm_type *from, const pm_type *to);

/* Casts src (of type from, offset honoured) into a new array *out of type to.
 * *out is owned by the caller. Values that cannot be converted are an error
 * (PAIMON_ERR_INVALID_ARGUMENT naming the column and row), as in Java. */
int pm_cast_array(const struct ArrowArray *src, const pm_type *from, const pm_type *to,
                  const pm_cast_options *opt, struct ArrowArray *out, pm_error *err);

/* A new array of `length` nulls of type t (nested types included). Owned by the caller. */
int pm_make_null_array(const pm_type *t, int64_t length, struct ArrowArray *out, pm_error *err);

/* ---- column mapping by field id ---- */

/* One column of the read schema. */
typedef struct pm_evo_field {
  int32_t id;          /* Paimon field id */
  const char *name;    /* for messages (and name lookups when a file lacks ids) */
  const pm_type *type; /* wanted Arrow type */
  /* Optional: the wanted field's ArrowSchema (nested ROW children carry their
   * "PARQUET:field_id"), so ROW columns are evolved member by member too. */
  const struct ArrowSchema *schema;
} pm_evo_field;

/* How to build the read columns from one file's batches. */
typedef struct pm_evo_mapping {
  int64_t n_fields;
  int64_t *source;       /* per read field: child index in the file batch, or -1 (read as null) */
  pm_type *file_types;   /* per file child (n_file_children) */
  int64_t n_file_children;
  int *needs_cast;       /* per read field: 1 cast, 2 ROW evolved by member (nested[f]) */
  struct pm_evo_mapping **nested; /* per read field, for needs_cast == 2 (owned) */
  pm_evo_field **nested_fields;   /* their member field lists (owned) */
  const pm_evo_field *fields; /* borrowed */
  pm_cast_options cast;
  char *file_name;       /* for messages */
} pm_evo_mapping;

/* Builds the mapping from a file's batch schema (a "+s" whose children carry
 * "PARQUET:field_id" metadata; children without it are matched through
 * name_to_id, the file schema's name -> id, when given (may be NULL)).
 * Fails with PAIMON_ERR_UNSUPPORTED when a column changed to a type that
 * cannot be cast. The mapping borrows `fields` (must outlive it). */
typedef int32_t (*pm_evo_name_to_id)(void *ctx, const char *name);
/* Optional hook to correct a file column's Arrow type from the schema it was
 * written with (e.g. Parquet INT96 carries no UTC flag, so a TIMESTAMP_LTZ
 * column arrives zone-less): called once per file column with its field id. */
typedef int (*pm_evo_fix_type)(void *ctx, int32_t field_id, pm_type *file_type, pm_error *err);
int pm_evo_mapping_init(pm_evo_mapping *m, const struct ArrowSchema *file_schema, const pm_evo_field *fields,
                        int64_t n_fields, pm_evo_name_to_id name_to_id, void *name_ctx,
                        const pm_cast_options *cast, const char *file_name, pm_error *err);
/* Same with a type-fixing hook (fix may be NULL; it receives name_ctx). */
int pm_evo_mapping_init2(pm_evo_mapping *m, const struct ArrowSchema *file_schema, const pm_evo_field *fields,
                         int64_t n_fields, pm_evo_name_to_id name_to_id, pm_evo_fix_type fix, void *name_ctx,
                         const pm_cast_options *cast, const char *file_name, pm_error *err);
void pm_evo_mapping_free(pm_evo_mapping *m);

/* Turns one file batch (a struct array, consumed: it is released in every case)
 * into a struct array with one child per read field, in read order. */
int pm_evo_apply(const pm_evo_mapping *m, struct ArrowArray *file_batch, struct ArrowArray *out, pm_error *err);

/* Field id stored in an Arrow field's metadata ("PARQUET:field_id"), or -1. */
int32_t pm_arrow_field_id(const struct ArrowSchema *field);

#endif
