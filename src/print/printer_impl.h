/* Internals shared by the printer's files (not for users of print.h). */
#ifndef PM_PRINT_H_PRINTER_IMPL_H
#define PM_PRINT_H_PRINTER_IMPL_H

#include "print/print.h"

struct pm_printer {
  pm_type type; /* struct of columns */
  pm_print_options opts;
  int *digits; /* per column */
  uint8_t **col_names_json; /* "\"name\":" prefixes for JSONL */
  size_t *col_names_len;
  int started;      /* CSV: header printed */
  int *right_align; /* numbers: right-aligned, never cut */
  int *cut_left;    /* copy of opts.cut_left */
  pm_buf cell;      /* scratch */
  pm_buf fbuf;      /* FILE staging */
  /* table view (table.c) */
  int *widths;         /* column widths printed so far (display columns) */
  int *shown;          /* per window: widths shown after fitting the terminal */
  int header_done;     /* first window laid out (header printed unless no_header) */
  pm_buf win_text;     /* cell texts of the window's rows */
  size_t *win_end;     /* end offset in win_text per cell (row-major) */
  int *win_w;          /* display width per cell */
  int64_t win_rows, win_cap;
};

static inline int pm_print_nomem(pm_error *err) { return PM_NOMEM(err); }

/* Formats: each appends the rows of batch b to out. */
int pm_print_jsonl(pm_printer *p, const struct ArrowArray *b, pm_buf *out, pm_error *err);
int pm_print_csv(pm_printer *p, const struct ArrowArray *b, pm_buf *out, pm_error *err);
int pm_print_csv_header(pm_printer *p, pm_buf *out, pm_error *err);
/* Table: adds the rows of b to the window, laying out full windows into out;
 * flush != 0 lays out the rest too. finish lays out what is left (the header
 * alone for an empty result). */
int pm_print_table(pm_printer *p, const struct ArrowArray *b, pm_buf *out, int flush, pm_error *err);
int pm_print_table_finish(pm_printer *p, pm_buf *out, pm_error *err);
int pm_print_table_init(pm_printer *p);
void pm_print_table_free(pm_printer *p);

#endif
