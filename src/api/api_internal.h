/* Internal to src/api: the public handles' definitions, shared by the api_*.c files. */
#ifndef PAIMON_API_INTERNAL_H
#define PAIMON_API_INTERNAL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arrow/arrow.h"
#include "arrow/stream.h"
#include "data/predicate.h"
#include "io/file.h"
#include "meta/snapshot.h"
#include "meta/split.h"
#include "paimon/paimon.h"
#include "table/catalog.h"
#include "table/read.h"
#include "table/scan.h"
#include "table/scan_select.h"
#include "table/system_tables.h"

struct paimon_catalog {
  pm_catalog *c;
};

struct paimon_table {
  pm_table *t;
  char *identifier;
  char *system_table;           /* "snapshots", ... for a system-table handle (owned), else NULL */
  pm_table_schema *sys_schema;  /* its columns (owned) */
};

struct paimon_read_builder {
  const paimon_table *table;
  char *origin; /* pm_api_origin of t: predicates and plans made here carry a copy */
  pm_table *t; /* table reopened with the dynamic options (owned) */
  char **columns;
  size_t n_columns;
  pm_predicate *filter;
  int64_t limit;
  int case_sensitive;
  int row_kind;
  pm_scan_selection sel; /* row positions, row ranges, shards (scan_select.h) */
};

struct paimon_predicate {
  pm_predicate *p;
  char *origin; /* pm_api_origin of the table it was made for (owned) */
};

/* Exactly one of s (a DataSplit) and inc (a PM_SPLIT_INCREMENTAL split) is set. */
struct paimon_split {
  pm_data_split *s;
  pm_split *inc;
  int owned;
  const char *fallback_branch; /* plan splits from scan.fallback-branch (owned by the plan) */
  const char *origin;          /* plan splits: the plan's origin (owned by the plan); else NULL */
};

struct paimon_plan {
  pm_plan *p;
  paimon_split *splits; /* the plan's DataSplits, or its incremental splits (a plan has one kind) */
  size_t n_splits;
  char *origin; /* pm_api_origin of the builder's table (owned) */
};

/* Identity of a table and schema ("root\nbranch\nschema id"), malloc'd; NULL on NOMEM (err set).
 * Predicates and plans are bound to the schema of the table they were made for; a builder accepts
 * only those with its own origin. */
char *pm_api_origin(const pm_table *t, pm_error *err);

/* The columns a builder resolves projections and predicates against: the
 * system table's for a system-table handle, else the table's schema. */
const pm_table_schema *pm_api_builder_schema(const paimon_read_builder *rb);

/* A public plan over p (taken, also on failure), bound to rb's origin. */
int pm_api_plan_wrap(const paimon_read_builder *rb, pm_plan *p, paimon_plan **out, pm_error *err);

/* Converts public options to pm_options (out is initialised; cleared on error). */
int pm_api_to_options(const paimon_option *o, size_t n, pm_options *out, pm_error *err);

/* Single files (api_file.c): the format from `format` (any case) or else the
 * file name's extension; INVALID_ARGUMENT naming path otherwise. */
enum { PM_API_FILE_PARQUET, PM_API_FILE_ORC, PM_API_FILE_AVRO };
int pm_api_file_kind(const char *path, const char *format, int *kind, pm_error *err);

#define CHECK_ARG(cond, what) \
  if (!(cond)) return (paimon_status)pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: %s", __func__, what)

/* The commit identifier rule of a writer or updater's prepare_commit: a batch one
 * prepares with PAIMON_BATCH_COMMIT_IDENTIFIER, a streaming one with identifiers rising
 * above the last prepared (has_last / last). `who` is "writer" or "updater". */
static inline int pm_api_check_commit_identifier(const char *who, int streaming, int has_last, int64_t last,
                                                 int64_t id, pm_error *err) {
  if (!streaming && id != PAIMON_BATCH_COMMIT_IDENTIFIER)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "a batch %s prepares with PAIMON_BATCH_COMMIT_IDENTIFIER, not %lld",
                     who, (long long)id);
  if (streaming && has_last && id <= last)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "commit identifier %lld is not above the last one prepared (%lld)",
                     (long long)id, (long long)last);
  return 0;
}

#endif
