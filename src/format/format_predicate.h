/*
 * The pushdown predicate every format reader takes (Parquet, ORC, and the
 * format interface in format/format.h). Header only: plain types, no code,
 * so the format modules below the interface can share it.
 *
 * A predicate only lets a reader SKIP data its statistics prove cannot match
 * (row groups, pages, stripes, ORC row groups); the batches may still hold
 * rows that do not satisfy it, so callers filter exactly afterwards. A list
 * of predicates is a conjunction (AND). A combination a reader cannot
 * evaluate safely never prunes.
 *
 * Literals are in the format's PHYSICAL domain (each reader's header says
 * which): int64 for integer columns (booleans 0/1, dates as days, decimals
 * as unscaled values; timestamps in Parquet's stored unit, ORC epoch
 * millis), double for FLOAT/DOUBLE, bytes for strings and binaries compared
 * unsigned lexicographically.
 */
#ifndef PM_FORMAT_FORMAT_PREDICATE_H
#define PM_FORMAT_FORMAT_PREDICATE_H

#include <stddef.h>
#include <stdint.h>

typedef enum pm_fmt_op {
  PM_FMT_OP_EQ = 0,
  PM_FMT_OP_NE,
  PM_FMT_OP_LT,
  PM_FMT_OP_LE,
  PM_FMT_OP_GT,
  PM_FMT_OP_GE,
  PM_FMT_OP_IS_NULL,
  PM_FMT_OP_IS_NOT_NULL,
  PM_FMT_OP_IN
} pm_fmt_op;

typedef enum pm_fmt_lit_kind { PM_FMT_LIT_INT64 = 0, PM_FMT_LIT_DOUBLE, PM_FMT_LIT_BYTES } pm_fmt_lit_kind;

typedef struct pm_fmt_literal {
  pm_fmt_lit_kind kind;
  int64_t i64;
  double f64;
  const uint8_t *bytes; /* borrowed, for PM_FMT_LIT_BYTES */
  size_t len;
} pm_fmt_literal;

typedef struct pm_fmt_predicate {
  /* The column: by name when column != NULL (Parquet: a dotted path of
   * schema names, "s.x" for a struct member; ORC: a top-level name), else by
   * field id (Parquet field_id / ORC attribute paimon.id). */
  const char *column;
  int32_t field_id;
  pm_fmt_op op;
  const pm_fmt_literal *values; /* 1 value, or n_values for IN; none for IS [NOT] NULL */
  size_t n_values;
} pm_fmt_predicate;

#endif
