/*
 * A reference model of a primary-key table for the write tests (issue 12 §4):
 * a map key -> merged record, fed the written rows in sequence order, that
 * must agree with our reader and `paimon-table read` after every commit.
 * Independent of the library (only jansson): written from Java's merge
 * functions (mergetree/compact/DeduplicateMergeFunction, PartialUpdate-,
 * Aggregate-, FirstRowMergeFunction, ReducerMergeFunctionWrapper), not
 * from our merge.c.
 *
 * Two merge levels, as Java's LSM tree has them:
 *  - the write buffer: the rows of one flush (pkm_add ... pkm_flush) are
 *    merged per key into ONE record (kind + values), as the writer's flush
 *    writes one record per key into a level-0 file;
 *  - the read: a key's records of all flushes merge again in flush order.
 * Both merges start from a reset merge function and apply Java's
 * single-record rule (a key with one record is that record unchanged, its
 * kind included). The merge functions of partial-update and aggregation are
 * not associative in Java (a -D with remove-record-on-delete keeps the
 * deleted row's values as the new accumulator), so the model keeps the two
 * levels instead of folding all rows at once. pkm_compact models a full
 * compaction (all records of a key merged into one).
 *
 * Values: BIGINT-like integers (PKM_INT: INT/BIGINT/... columns, printed as
 * JSON integers) and strings (PKM_STRING). Columns 0..n_keys-1 are the
 * primary key (partition keys included, as Paimon requires).
 *
 * Supported: deduplicate; first-row (retracts: dropped with ignore_delete,
 * else an error as Java); partial-update (non-null overlay; ignore-delete;
 * remove-record-on-delete; sequence groups with one ordering column each,
 * protected columns last_non_null / sum, partial-update.remove-record-on-
 * sequence-group); aggregation (sum, product, max, min, last_value,
 * last_non_null_value (the default), first_value, first_non_null_value,
 * listagg; retracts: sum, last_value, last_non_null_value; others an error
 * unless ignore_retract; aggregation.remove-record-on-delete).
 * The writer side: ignore-delete drops -U/-D rows, ignore-update-before -U
 * rows before they reach the buffer (pkm_add returns 0 for them).
 *
 * Ownership: pkm_new copies the config (names included); pkm_add copies the
 * row; pkm_rows returns a new jansson array (caller: json_decref).
 */
#ifndef PM_TESTS_SUPPORT_PK_MODEL_H
#define PM_TESTS_SUPPORT_PK_MODEL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { PKM_INT = 0, PKM_STRING = 1 } pkm_type;
typedef enum { PKM_DEDUPLICATE = 0, PKM_PARTIAL_UPDATE, PKM_AGGREGATION, PKM_FIRST_ROW } pkm_engine;
typedef enum {
  PKM_AGG_DEFAULT = 0, /* last_non_null_value */
  PKM_AGG_SUM,
  PKM_AGG_PRODUCT,
  PKM_AGG_MAX,
  PKM_AGG_MIN,
  PKM_AGG_LAST_VALUE,
  PKM_AGG_LAST_NON_NULL_VALUE,
  PKM_AGG_FIRST_VALUE,
  PKM_AGG_FIRST_NON_NULL_VALUE,
  PKM_AGG_LISTAGG /* "," delimiter */
} pkm_agg;

/* Row kinds: Paimon's RowKind bytes. */
enum { PKM_INSERT = 0, PKM_UPDATE_BEFORE = 1, PKM_UPDATE_AFTER = 2, PKM_DELETE = 3 };

typedef struct pkm_column {
  const char *name;
  pkm_type type;
  pkm_agg agg;        /* aggregation: the column's function; partial-update: a protected column's (DEFAULT/SUM) */
  int ignore_retract; /* fields.<name>.ignore-retract */
  int seq_group;      /* partial-update: the sequence group (index into groups) the column belongs to, or -1 */
} pkm_column;

typedef struct pkm_seq_group {
  int order_col;        /* its ordering column (index into cols; also has seq_group = this group) */
  int remove_on_delete; /* partial-update.remove-record-on-sequence-group names it */
} pkm_seq_group;

typedef struct pkm_config {
  pkm_engine engine;
  size_t n_cols;
  const pkm_column *cols;
  size_t n_keys; /* cols[0..n_keys) */
  int ignore_delete;
  int ignore_update_before;
  int remove_record_on_delete; /* partial-update.remove-record-on-delete / aggregation.remove-record-on-delete */
  size_t n_groups;
  const pkm_seq_group *groups;
} pkm_config;

/* One input value (s borrowed; NUL-terminated). */
typedef struct pkm_value {
  int null;
  int64_t i;
  const char *s;
} pkm_value;

static inline pkm_value pkm_int(int64_t v) { return (pkm_value){0, v, NULL}; }
static inline pkm_value pkm_str(const char *s) { return (pkm_value){s == NULL, 0, s}; }
static inline pkm_value pkm_null(void) { return (pkm_value){1, 0, NULL}; }

typedef struct pkm_model pkm_model;

pkm_model *pkm_new(const pkm_config *cfg);
void pkm_free(pkm_model *m); /* NULL ok */
/* A deep copy (e.g. the committed state before a commit that may fail). */
pkm_model *pkm_clone(const pkm_model *m);

/* One written row (n_cols values) of kind k, after the ones added before.
 * Returns 0, or -1 when Java's merge function would refuse it at the flush
 * (first-row / partial-update retracts without the options, a function
 * without retraction): pkm_last_error says why, the row is not applied. */
int pkm_add(pkm_model *m, int kind, const pkm_value *row);
/* Ends a flush (one level-0 record per key written since the last flush). */
void pkm_flush(pkm_model *m);
/* Forgets the rows added since the last flush (a failed write/commit). */
void pkm_discard(pkm_model *m);
/* A full compaction: every key's records merged into one record (retracts
 * dropped when drop_retracts, as at the highest level). Pending rows are flushed first. */
void pkm_compact(pkm_model *m, int drop_retracts);

/* The visible rows (merged kind +I/+U), as JSON objects keyed by column name. */
json_t *pkm_rows(const pkm_model *m);
/* The number of visible rows. */
size_t pkm_count(const pkm_model *m);
/* The visible row of the key (n_keys values), or NULL. Returned values are
 * owned by the model (valid until the next call that changes it). */
const pkm_value *pkm_get(const pkm_model *m, const pkm_value *key);
const char *pkm_last_error(const pkm_model *m);

#endif
