/* Internals shared by the printer's files (not for users of print.h). */
#ifndef PM_CLI_PRINT_PRINTER_IMPL_H
#define PM_CLI_PRINT_PRINTER_IMPL_H

#include "cli/print/print.h"

struct pm_printer {
  pm_type type; /* struct of columns */
  pm_print_options opts;
  int *digits; /* per column */
  uint8_t **col_names_json; /* "\"name\":" prefixes for JSONL */
  size_t *col_names_len;
  int started; /* header printed */
  int *widths; /* table column widths (code points), fixed by first batch */
  int *right_align;
  pm_buf cell;  /* scratch */
  pm_buf fbuf;  /* FILE staging */
};

static inline int pm_print_nomem(pm_error *err) { return PM_NOMEM(err); }

/* Formats: each appends the rows of batch b to out. */
int pm_print_jsonl(pm_printer *p, const struct ArrowArray *b, pm_buf *out, pm_error *err);
int pm_print_csv(pm_printer *p, const struct ArrowArray *b, pm_buf *out, pm_error *err);
int pm_print_csv_header(pm_printer *p, pm_buf *out, pm_error *err);
int pm_print_table(pm_printer *p, const struct ArrowArray *b, pm_buf *out, pm_error *err);
int pm_print_table_finish(pm_printer *p, pm_buf *out, pm_error *err);

#endif
