/*
 * Column statistics of a data file (FORMAT.md 5.7-5.8): resolve which slot of
 * _VALUE_STATS holds a column (dense stats, _VALUE_STATS_COLS, _WRITE_COLS,
 * renamed columns via field ids) and decode min / max / null count.
 */
#ifndef PM_META_STATS_H
#define PM_META_STATS_H

#include <stdint.h>

#include "data/binary_row.h"
#include "data/predicate.h" /* pm_col_stats: min/max values + null count (-1 = unknown) */
#include "meta/manifest.h"
#include "meta/schema.h"

/* Results are data/predicate.h's pm_col_stats: min/max are PM_V_NULL when
 * unknown (all null, stats mode counts/none, unsupported type) and point into
 * the DataFileMeta's stats bytes; null_count is -1 when unknown. */

/* Stats of the column with Paimon field id `field_id` in data file f, which
 * was written with `file_schema` (the schema with id f->schema_id; the field
 * type used for decoding is the one of that schema).
 * PAIMON_ERR_NOT_FOUND when the file has no stats for that column (the
 * column did not exist, is not among the stats columns, ...): callers must
 * then not prune on it. */
int pm_value_stats_lookup(const pm_data_file_meta *f, const pm_table_schema *file_schema, int32_t field_id,
                          pm_col_stats *out, pm_error *err);

/* Stats of the i-th key field (trimmed primary key) from _KEY_STATS, decoded with key_type. */
int pm_key_stats_get(const pm_data_file_meta *f, int32_t i, const pm_data_type *key_type, pm_col_stats *out,
                     pm_error *err);

/* ---- collecting stats while writing (SEMANTICS.md 1.3 stats modes) ---- */

typedef enum pm_stats_mode_kind {
  PM_STATS_NONE = 0,   /* no stats (dropped from dense stats) */
  PM_STATS_COUNTS,     /* null count only */
  PM_STATS_TRUNCATE,   /* min/max, strings/binaries truncated to `length` */
  PM_STATS_FULL        /* exact min/max */
} pm_stats_mode_kind;

typedef struct pm_stats_mode {
  pm_stats_mode_kind kind;
  int32_t length; /* truncate(N) */
} pm_stats_mode;

/* Parses "none", "counts", "full", "truncate(N)" (case-insensitive). */
int pm_stats_mode_parse(const char *text, pm_stats_mode *out, pm_error *err);

typedef struct pm_stats_collector pm_stats_collector;

/* One collector per file: fields are the stats columns in order (copied);
 * modes[i] per field (NULL = truncate(16) for all). */
int pm_stats_collector_new(const pm_data_field *fields, size_t n, const pm_stats_mode *modes, pm_stats_collector **out,
                           pm_error *err);
void pm_stats_collector_free(pm_stats_collector *c); /* NULL ok */
/* Adds one value of column col (PM_V_NULL counts a null). Values are copied when kept. */
int pm_stats_collector_add(pm_stats_collector *c, size_t col, const pm_value *v, pm_error *err);
/* Counts n nulls of column col at once (writers that know a file's null counts). */
int pm_stats_collector_add_nulls(pm_stats_collector *c, size_t col, int64_t n, pm_error *err);
/* Builds SimpleStats (serialized BinaryRows of the nullable column types) into
 * arena. dense = metadata.stats-dense-store: columns with mode none are left
 * out and *cols lists the kept names (is_null when all are kept); without
 * dense every column is present and *cols is null. cols may be NULL. */
int pm_stats_collector_finish(pm_stats_collector *c, int dense, pm_arena *arena, pm_simple_stats *out,
                              pm_str_list *cols, pm_error *err);

/* Truncation helpers (exposed for tests): UTF-8 min = first n code points;
 * max = first n code points with the last incrementable one incremented.
 * Return 0 and set *out_len (max: may fail => returns 1 meaning "no max"). */
size_t pm_stats_truncate_utf8_min(const uint8_t *s, size_t len, int32_t n);
int pm_stats_truncate_utf8_max(const uint8_t *s, size_t len, int32_t n, uint8_t *out, size_t *out_len);
int pm_stats_truncate_bytes_max(const uint8_t *s, size_t len, int32_t n, uint8_t *out, size_t *out_len);

#endif
