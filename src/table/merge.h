/*
 * Merge-on-read for primary-key tables: a streaming, columnar k-way merge of
 * sorted runs followed by a merge engine (deduplicate, partial-update,
 * aggregation, first-row), as Java Paimon's merge read (SEMANTICS §2.3, §5).
 *
 * Input: one source per sorted run. Each source yields "merge batches":
 * struct arrays that all share one layout (the caller evolves every file to
 * it first): some key columns, a BIGINT sequence column, a TINYINT row-kind
 * column, optional sequence.field columns, and value columns. Within one run
 * keys are strictly increasing (Paimon invariant: files of a run do not
 * overlap and a file holds one record per key).
 *
 * Output: batches in the same layout; the row-kind column holds the merged
 * record's kind. Records whose kind is a retraction (-U/-D) are dropped
 * unless keep_retracts is set. Output order is key order.
 *
 * Keys are compared on the Arrow buffers (no row materialisation) and the
 * output is assembled with a bulk multi-source gather.
 */
#ifndef PM_TABLE_MERGE_H
#define PM_TABLE_MERGE_H

#include <stdint.h>

#include "arrow/arrow.h"
#include "arrow/type.h"
#include "util/error.h"

/* Row kinds (the _VALUE_KIND byte). */
enum { PM_ROWKIND_INSERT = 0, PM_ROWKIND_UPDATE_BEFORE = 1, PM_ROWKIND_UPDATE_AFTER = 2, PM_ROWKIND_DELETE = 3 };
static inline int pm_rowkind_is_retract(int k) { return k == PM_ROWKIND_UPDATE_BEFORE || k == PM_ROWKIND_DELETE; }
/* "+I", "-U", "+U", "-D" (NULL for an invalid byte). */
const char *pm_rowkind_name(int k);

/* Merge engines; same values as pm_merge_engine of table/table.h (kept
 * separate so this module depends on Arrow only). */
enum { PM_ENGINE_DEDUPLICATE = 0, PM_ENGINE_PARTIAL_UPDATE = 1, PM_ENGINE_AGGREGATION = 2, PM_ENGINE_FIRST_ROW = 3 };

typedef enum pm_agg_func {
  PM_AGG_NONE = 0, /* not aggregated (key/system column, or partial-update non-null overlay) */
  PM_AGG_SUM,
  PM_AGG_PRODUCT,
  PM_AGG_MAX,
  PM_AGG_MIN,
  PM_AGG_LAST_VALUE,
  PM_AGG_LAST_NON_NULL_VALUE,
  PM_AGG_FIRST_VALUE,
  PM_AGG_FIRST_NON_NULL_VALUE,
  PM_AGG_LISTAGG,
  PM_AGG_BOOL_AND,
  PM_AGG_BOOL_OR,
  PM_AGG_RBM32,
  PM_AGG_COLLECT,
  PM_AGG_MERGE_MAP,
  PM_AGG_PRIMARY_KEY,
  PM_AGG_MERGE_MAP_WITH_KEYTIME,
  PM_AGG_NESTED_UPDATE,
  PM_AGG_NESTED_PARTIAL_UPDATE,
  PM_AGG_RBM64,
  PM_AGG_HLL_SKETCH,
  PM_AGG_THETA_SKETCH
} pm_agg_func;

/* Parses an aggregate function name: the identifiers of Java Paimon's
 * FieldAggregatorFactory implementations (e.g. "last_non_null_value", legacy
 * "first_not_null_value", "nested_update", "theta_sketch"). Anything else
 * (there is no "count") is PAIMON_ERR_INVALID_ARGUMENT. */
int pm_agg_func_parse(const char *s, pm_agg_func *out, pm_error *err);

/* fields.<f>.nested-key-null-strategy (CoreOptions.NestedKeyNullStrategy). */
enum { PM_NESTED_KEY_NULL_MERGE = 0, PM_NESTED_KEY_NULL_IGNORE = 1, PM_NESTED_KEY_NULL_ERROR = 2 };
#define PM_MERGE_MAX_NESTED_FIELDS 16

typedef struct pm_merge_column {
  pm_agg_func agg;          /* aggregation engine: the column's function (NONE = last_non_null_value);
                               partial-update: function of a sequence-group protected column (NONE = none;
                               other functions than last_non_null_value outside a group are refused, and
                               ordering columns never aggregate) */
  const char *listagg_delimiter; /* default "," (borrowed) */
  int distinct;             /* listagg: append only tokens not yet present; collect: de-duplicate */
  int ignore_retract;       /* retract leaves the accumulator unchanged (FieldIgnoreRetractAgg) */
  /* nested_update / nested_partial_update: indices into the ARRAY<ROW> element's fields */
  int n_nested_keys;        /* fields.<f>.nested-key */
  int nested_keys[PM_MERGE_MAX_NESTED_FIELDS];
  int n_nested_seq;         /* fields.<f>.nested-sequence-field (nested_update) */
  int nested_seq[PM_MERGE_MAX_NESTED_FIELDS];
  int nested_key_null;      /* PM_NESTED_KEY_NULL_* */
  int count_limit_set;      /* fields.<f>.count-limit given (else Integer.MAX_VALUE) */
  int32_t count_limit;      /* its value (nested_update) */
  int ts_field;             /* merge_map_with_keytime: STRING field of the value ROW (fields.<f>.ts-field);
                               -1 = the last field (a zeroed column means field 0: set -1 or call
                               pm_merge_column_options) */
} pm_merge_column;

/* Reads the per-column options of aggregate function mc->agg for column
 * `field` of type `type` (nested-key, nested-sequence-field,
 * nested-key-null-strategy, count-limit, ts-field) through get(ctx, key)
 * (returns the option value or NULL; borrowed), resolving nested field names
 * against the element ROW type and checking Java's factory rules. Call after
 * mc->agg is set. */
int pm_merge_column_options(pm_merge_column *mc, const pm_type *type, const char *field,
                            const char *(*get)(void *ctx, const char *key), void *ctx, pm_error *err);

/* A partial-update sequence group: `fields.<ordering...>.sequence-group =
 * <protected...>` (SEMANTICS 2.3). Columns are layout indices. */
typedef struct pm_seq_group {
  int n_order;
  const int *order_cols;     /* ordering columns, compared in order, nulls first */
  int n_protected;
  const int *protected_cols; /* columns versioned by the ordering columns */
  int remove_on_delete;      /* partial-update.remove-record-on-sequence-group names one of its ordering columns */
} pm_seq_group;

typedef struct pm_merge_config {
  const pm_type *layout; /* struct type of the merge batches (borrowed) */
  int n_keys;
  const int *key_cols;   /* indices into layout children, comparison order */
  int seq_col;           /* BIGINT _SEQUENCE_NUMBER */
  int kind_col;          /* TINYINT _VALUE_KIND */
  int level_col;         /* INT file level per record for lookup tables (only the newest level > 0
                            record of a key merges with the level-0 ones), or -1 */
  int n_seq_fields;
  const int *seq_field_cols; /* sequence.field columns, compared in order */
  int seq_descending;        /* sequence.field.sort-order = descending */
  int engine;            /* PM_ENGINE_* */
  int ignore_delete;
  int remove_record_on_delete; /* partial-update / aggregation */
  const pm_merge_column *columns; /* per layout child, or NULL (defaults) */
  int n_seq_groups;               /* partial-update sequence groups */
  const pm_seq_group *seq_groups;
  int keep_retracts;     /* emit -U/-D results too */
  int lookup_merge;      /* a lookup compaction's merge (Java's LookupMergeFunction): partial-update and
                            aggregation merge a key's single record too (no single-record rule) */
  int64_t batch_rows;    /* target rows per output batch (<= 0: 65536) */
} pm_merge_config;

/* A sorted run. next() returns the next merge batch (owned by the caller of
 * next), or a released struct at the end. close() (may be NULL) frees ctx. */
typedef struct pm_merge_source {
  void *ctx;
  int (*next)(void *ctx, struct ArrowArray *out, pm_error *err);
  void (*close)(void *ctx);
} pm_merge_source;

typedef struct pm_merge_reader pm_merge_reader;

/* Takes ownership of the sources (closed by pm_merge_close, also on failure).
 * The config and what it points to must outlive the reader. */
int pm_merge_open(const pm_merge_config *cfg, const pm_merge_source *sources, int n_sources, pm_merge_reader **out,
                  pm_error *err);
/* Next merged batch (owned by the caller), or a released struct at the end. */
int pm_merge_next(pm_merge_reader *r, struct ArrowArray *out, pm_error *err);
void pm_merge_close(pm_merge_reader *r); /* NULL ok */

/* Merges one batch `in` (layout cfg->layout, borrowed) whose rows are sorted
 * by key, the records of a key adjacent (in any order): each key's records
 * go through the merge engine as in the k-way merge (single-record rule
 * included); *out (owned by the caller) holds one row per key in key order,
 * retracts only with cfg->keep_retracts. The write buffer's flush. */
int pm_merge_sorted_batch(const pm_merge_config *cfg, const struct ArrowArray *in, struct ArrowArray *out,
                          pm_error *err);
/* pm_merge_sorted_batch over records spread across borrowed batches (layout
 * cfg->layout): record k of the sorted order is row row[k] of
 * batches[src[k]]; keys (or NULL) holds record k's single integer key as
 * int64 when the key is one integer column. One gather builds *out. */
int pm_merge_sorted_rows(const pm_merge_config *cfg, const struct ArrowArray *const *batches, int n_batches,
                         const int32_t *src, const int64_t *row, const int64_t *keys, int64_t n,
                         struct ArrowArray *out, pm_error *err);

/* ---- building blocks, exposed for the reader and tests ---- */

/* Multi-source gather: out[i] = srcs[src[i]][rows[i]] (logical row indices;
 * src[i] < 0 yields null). All sources have type t. *out owned by the caller. */
int pm_gather(const pm_type *t, struct ArrowArray *const *srcs, const int32_t *src, const int64_t *rows, int64_t n,
              struct ArrowArray *out, pm_error *err);

/* pm_gather of struct batches of type layout (flat children gathered column
 * by column, no null selections): out[i] = batches[src[i]][rows[i]]. */
int pm_gather_batch(const pm_type *layout, const struct ArrowArray *const *batches, int n_batches, const int32_t *src,
                    const int64_t *rows, int64_t n, struct ArrowArray *out, pm_error *err);

/* Compares value a[i] with b[j] (both of type t; nulls first; floats in Java's
 * total order; strings/binaries unsigned bytewise). Nested types unsupported (0). */
int pm_compare_values(const pm_type *t, const struct ArrowArray *a, int64_t i, const struct ArrowArray *b, int64_t j);

#endif
