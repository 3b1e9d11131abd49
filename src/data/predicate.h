/*
 * Filter predicates (SEMANTICS.md §11): a tree of leaves (equal, notEqual,
 * lessThan, lessOrEqual, greaterThan, greaterOrEqual, isNull, isNotNull, in,
 * notIn, startsWith, endsWith, contains, like) combined with and / or.
 *
 * Literals are typed against their column when the leaf is built (an INT
 * column gets int64 literals range-checked to 32 bits, a DATE column gets
 * days, a DECIMAL column gets unscaled values at the column's scale ...): a
 * literal that does not fit the column is PAIMON_ERR_INVALID_ARGUMENT saying
 * what the value is, the column and its type, and why it does not fit
 * ("'1970-13-45' is not a valid DATE for column 'f12'"). Timestamp columns
 * take timestamp literals or text, never bare numbers.
 *
 * Three evaluations:
 *  - pm_pred_test_stats: can a file / manifest whose columns have these
 *    min / max / null counts contain a matching row? (pruning; Java's rules)
 *  - pm_pred_eval_batch: exact per-row result over an Arrow struct batch,
 *    written as a selection bitmap (residual filtering after reading)
 *  - pm_pred_eval_values: exact result for one row given as pm_values
 *    (partition rows of manifest entries)
 *
 * Ownership: every pm_predicate is a heap tree owned by whoever holds the
 * root; pm_pred_free frees it with its children and literals. Constructors
 * that take children take ownership of them, also on failure.
 */
#ifndef PM_DATA_PREDICATE_H
#define PM_DATA_PREDICATE_H

#include <stddef.h>
#include <stdint.h>

#include "data/binary_row.h"
#include "data/types.h"
#include "paimon/arrow_c.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/tz.h"

/* Values are data/binary_row.h pm_value (PM_V_* kinds), so partition rows
 * and stats decoded from BinaryRows can be evaluated directly. */

/* Total order used by predicates (§11.2): strings/binaries unsigned bytewise,
 * FLOAT/DOUBLE with Java's Double.compare (NaN greatest, -0.0 < 0.0),
 * integers vs floats numerically. Both values non-null. */
int pm_pred_value_compare(const pm_value *a, const pm_value *b);

/* Parses "YYYY-MM-DD[( |T)HH:MM[:SS[.fffffffff]]]" as wall-clock epoch millis + nanos of milli. 0 or -1. */
int pm_parse_timestamp_text(const char *s, size_t n, int64_t *millis, int32_t *nanos);
/* The same, also accepting a zone after the time as printed for zoned values:
 * "Z", "+08:00", "+0800", "+08" (optionally after a space) or " UTC".
 * *zoned = 1 and *offset = seconds east of UTC when a zone is given (then
 * the instant is *millis - *offset * 1000). 0 or -1. */
int pm_parse_timestamp_zoned(const char *s, size_t n, int64_t *millis, int32_t *nanos, int *zoned, int32_t *offset);

typedef enum pm_pred_op {
  PM_PRED_AND,
  PM_PRED_OR,
  PM_PRED_EQUAL,
  PM_PRED_NOT_EQUAL,
  PM_PRED_LESS_THAN,
  PM_PRED_LESS_OR_EQUAL,
  PM_PRED_GREATER_THAN,
  PM_PRED_GREATER_OR_EQUAL,
  PM_PRED_IS_NULL,
  PM_PRED_IS_NOT_NULL,
  PM_PRED_IN,
  PM_PRED_NOT_IN,
  PM_PRED_STARTS_WITH,
  PM_PRED_ENDS_WITH,
  PM_PRED_CONTAINS,
  PM_PRED_LIKE,
  PM_PRED_ALWAYS_TRUE,
  PM_PRED_ALWAYS_FALSE,
  /* Negated string functions (NOT LIKE ...): false for a null value, like
   * their positive forms; never used to prune. */
  PM_PRED_NOT_LIKE,
  PM_PRED_NOT_STARTS_WITH,
  PM_PRED_NOT_ENDS_WITH,
  PM_PRED_NOT_CONTAINS
} pm_pred_op;

/* Java's method name ("equal", "notEqual", ..., "and", "or"). */
const char *pm_pred_op_name(pm_pred_op op);

/* The column a leaf refers to. */
typedef struct pm_pred_column {
  const char *name;
  int32_t index;    /* position in the row type the predicate was built against */
  int32_t field_id; /* schema field id (for mapping through schema evolution) */
  const pm_data_type *type;
} pm_pred_column;

typedef struct pm_predicate {
  pm_pred_op op;
  /* leaf */
  char *field_name;    /* owned */
  int32_t field_index; /* index into the row the predicate is evaluated on */
  int32_t field_id;
  pm_dtype_root kind;  /* the column's type root */
  int32_t precision;   /* DECIMAL / TIMESTAMP precision */
  int32_t scale;       /* DECIMAL scale */
  pm_value *literals;  /* owned; byte literals point into owned copies */
  size_t n_literals;
  /* IN / NOT IN with many literals of one kind: the non-null literals sorted (sharing
   * their bytes), so a value is looked up by binary search; NULL when not built */
  pm_value *in_sorted;
  size_t n_in_sorted;
  int in_has_null;
  /* and / or */
  struct pm_predicate **children; /* owned */
  size_t n_children;
} pm_predicate;

/* ---- literals given by callers, converted to the column type ---- */

typedef enum pm_literal_kind {
  PM_LIT_NULL,
  PM_LIT_BOOL,
  PM_LIT_INT,       /* int64 */
  PM_LIT_DOUBLE,
  PM_LIT_STRING,    /* UTF-8 text; also parsed for DATE/TIME/TIMESTAMP/DECIMAL columns */
  PM_LIT_BYTES,
  PM_LIT_DECIMAL,   /* unscaled int64 + scale */
  PM_LIT_DATE,      /* days since epoch */
  PM_LIT_TIME,      /* millis of day */
  PM_LIT_TIMESTAMP  /* epoch millis + nanos of milli (TIMESTAMP or LTZ) */
} pm_literal_kind;

typedef struct pm_literal {
  pm_literal_kind kind;
  int64_t i;       /* BOOL, INT, DECIMAL unscaled, DATE, TIME, TIMESTAMP millis */
  int32_t scale;   /* DECIMAL */
  int32_t nanos;   /* TIMESTAMP */
  double d;
  const char *s;   /* STRING / BYTES (borrowed) */
  size_t len;
} pm_literal;

/* Converts a caller literal to the column's type (copying bytes into *owned,
 * which the caller frees with free()). Errors name the column.
 *
 * Time zones (the _tz forms; the others use UTC): tz is the session time
 * zone (util/tz.h, NULL = UTC). A zone-less text or DATE literal on a
 * TIMESTAMP WITH LOCAL TIME ZONE column is a wall-clock time in tz; a zoned
 * text ('1970-01-01T00:00:04Z', '... +08:00') is that instant, and on a
 * zone-less TIMESTAMP column becomes the instant's wall clock in tz. */
int pm_literal_to_value(const pm_literal *lit, const pm_pred_column *col, pm_value *out, uint8_t **owned,
                        pm_error *err);
int pm_literal_to_value_tz(const pm_literal *lit, const pm_pred_column *col, const pm_tz *tz, pm_value *out,
                           uint8_t **owned, pm_error *err);

/* ---- construction ---- */

/* Builds a leaf. n literals: 1 for comparisons and string functions, 0 for
 * isNull/isNotNull, >= 1 for in/notIn. */
int pm_pred_leaf(pm_pred_op op, const pm_pred_column *col, const pm_literal *lits, size_t n, pm_predicate **out,
                 pm_error *err);
int pm_pred_leaf_tz(pm_pred_op op, const pm_pred_column *col, const pm_literal *lits, size_t n, const pm_tz *tz,
                    pm_predicate **out, pm_error *err);
/* and / or of n children (takes ownership of every child, also on failure; n >= 1). */
int pm_pred_compound(pm_pred_op op, pm_predicate **children, size_t n, pm_predicate **out, pm_error *err);
int pm_pred_const(int value, pm_predicate **out, pm_error *err);
int pm_pred_copy(const pm_predicate *p, pm_predicate **out, pm_error *err);
void pm_pred_free(pm_predicate *p); /* NULL ok */
/* Logical negation (De Morgan; string functions have none: PAIMON_ERR_UNSUPPORTED). */
int pm_pred_negate(const pm_predicate *p, pm_predicate **out, pm_error *err);

/* Top-level conjuncts of p (p itself if not an AND): pointers into p. */
size_t pm_pred_conjuncts(const pm_predicate *p, const pm_predicate **out, size_t cap);
/* 1 if every leaf of p refers to a field whose index has map[index] >= 0. */
int pm_pred_only_fields(const pm_predicate *p, const int32_t *map, size_t n_map);
/* Copy of p with field_index replaced by map[field_index]; fails if unmapped. */
int pm_pred_remap(const pm_predicate *p, const int32_t *map, size_t n_map, pm_predicate **out, pm_error *err);
/* AND of the conjuncts of p that only use mapped fields, remapped; *out NULL when none. */
int pm_pred_extract(const pm_predicate *p, const int32_t *map, size_t n_map, pm_predicate **out, pm_error *err);

/* Appends a readable form ("(id > 5 AND name LIKE 'a%')") to out. */
int pm_pred_to_string(const pm_predicate *p, pm_buf *out, pm_error *err);

/* ---- evaluation ---- */

/* Stats of one column for pruning. */
typedef struct pm_col_stats {
  pm_value min, max;  /* kind PM_V_NULL = unknown */
  int64_t null_count; /* -1 = unknown */
} pm_col_stats;

/* 1 if some row may match, 0 if no row can (SEMANTICS §11.3). cols is
 * indexed by field_index; a NULL cols[i] pointer (or i >= n_cols) means the
 * column is absent (all null). Comparisons of mismatched kinds never prune. */
int pm_pred_test_stats(const pm_predicate *p, int64_t row_count, const pm_col_stats *const *cols, size_t n_cols);

/* Exact evaluation of one row (values indexed by field_index). */
int pm_pred_eval_values(const pm_predicate *p, const pm_value *values, size_t n_values);

/* Evaluates p over `length` rows of a struct batch. col_of_field maps
 * field_index -> child index of `batch` (-1 = column not present: all null).
 * Writes a bitmap (LSB order, ceil(length/8) bytes) with bit i = row i
 * matches. Unsupported Arrow types are PAIMON_ERR_UNSUPPORTED. */
int pm_pred_eval_batch(const pm_predicate *p, const struct ArrowSchema *schema, const struct ArrowArray *batch,
                       const int32_t *col_of_field, size_t n_map, uint8_t *bitmap, pm_error *err);
/* Same, mapping leaves to children by name (exact, or ASCII case-insensitive). */
int pm_pred_eval_batch_by_name(const pm_predicate *p, const struct ArrowSchema *schema,
                               const struct ArrowArray *batch, int case_sensitive, uint8_t *bitmap, pm_error *err);

/* SQL LIKE match (%, _, \ escapes) of UTF-8 text. Malformed pattern = -1. */
int pm_like_match(const uint8_t *s, size_t n, const uint8_t *pat, size_t pn);

/* ---- text form for the CLI: `id > 5 and name like 'a%' or x in (1,2)` ----
 * Grammar: or/and/not, parentheses, = != <> < <= > >=, IS [NOT] NULL,
 * [NOT] IN (...), [NOT] LIKE 'p', [NOT] BETWEEN a AND b; literals: numbers,
 * 'strings' ('' escapes a quote), true/false, null, DATE 'YYYY-MM-DD',
 * TIMESTAMP 'YYYY-MM-DD HH:MM:SS[.f][zone]'; column names plain or quoted
 * with "..." or `...`. Columns resolved against cols (case-insensitive when
 * !case_sensitive). Parentheses and NOT nest up to PM_PRED_MAX_NESTING
 * levels. */
#define PM_PRED_MAX_NESTING 128
int pm_pred_parse(const char *text, const pm_pred_column *cols, size_t n_cols, int case_sensitive,
                  pm_predicate **out, pm_error *err);
/* The same with the session time zone for literals (pm_literal_to_value_tz). */
int pm_pred_parse_tz(const char *text, const pm_pred_column *cols, size_t n_cols, int case_sensitive,
                     const pm_tz *tz, pm_predicate **out, pm_error *err);

#endif
