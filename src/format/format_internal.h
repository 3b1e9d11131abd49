/* Inside the format interface module: the registered formats and the
 * column statistics every writer collects from the batches it writes. */
#ifndef PM_FORMAT_FORMAT_INTERNAL_H
#define PM_FORMAT_FORMAT_INTERNAL_H

#include "format/format.h"

extern const pm_format pm_format_parquet;
extern const pm_format pm_format_orc;
extern const pm_format pm_format_avro;
extern const pm_format pm_format_blob;

typedef struct pm_fmt_stats {
  size_t n;
  char **fmts;  /* per column: the Arrow format string (copied) */
  char *kinds; /* per column: 'i' int64, 'u' uint (no min/max beyond int64), 'd' double, 'b' bytes32, 'B' bytes64, 0 none */
  pm_format_column_stats *cols;
  int64_t rows;
} pm_fmt_stats;

int pm_fmt_stats_init(pm_fmt_stats *s, const struct ArrowSchema *schema, pm_error *err);
/* Adds a batch's values (best effort: an allocation failure for a bytes
 * min/max drops that column's min/max, never the write). */
void pm_fmt_stats_add(pm_fmt_stats *s, const struct ArrowArray *batch);
/* Moves the columns out (has_min_max normalised to 0/1); s keeps nothing. */
pm_format_column_stats *pm_fmt_stats_take(pm_fmt_stats *s, size_t *n);
void pm_fmt_stats_free(pm_fmt_stats *s);
void pm_fmt_stats_cols_free(pm_format_column_stats *cols, size_t n);


#endif
