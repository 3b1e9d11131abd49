/*
 * Row-wise printing of Arrow record batches (a struct array whose children
 * are the columns) as JSON lines, CSV or an aligned text table.
 *
 * Values use the encoding of the fixtures README ("Value encoding"):
 *   BOOLEAN true/false; integers (signed and unsigned) as numbers;
 *   FLOAT/DOUBLE as the shortest number that round-trips (float32 judged as
 *   float32, so 0.1f prints 0.1); NaN/Infinity/-Infinity as JSON strings;
 *   DECIMAL as a string with exactly `scale` fraction digits; strings as JSON
 *   strings (invalid UTF-8 bytes become U+FFFD); binary as base64;
 *   DATE "YYYY-MM-DD"; TIME "HH:MM:SS[.f]"; TIMESTAMP "YYYY-MM-DDTHH:MM:SS[.f]"
 *   with as many fraction digits as the unit (s:0 ms:3 us:6 ns:9) unless
 *   overridden per column, plus "Z" when the type has a time zone;
 *   lists as arrays, maps as arrays of [key, value] pairs, structs as objects;
 *   null as null.
 * JSONL: one object per row keyed by the top-level column names (a null
 *   top-level row, rare, prints as the line "null"; CSV/table print it as
 *   all-null fields).
 * CSV: RFC 4180; header line of column names; null is an empty field, an
 *   empty string (or empty binary) is "" (quoted); strings/temporals/decimals as plain text,
 *   nested values as their JSON text.
 * Table: a header line, a separator line and one line per row, columns
 *   separated by " | ", numbers (integers, floats, decimals) right-aligned.
 *   A NULL shows as NULL (the string "null" as null; nested values are JSON
 *   text, where strings are quoted). Widths are display columns: East Asian
 *   wide characters count 2, combining marks 0 (width.h).
 *   Numbers are never cut. Other cells wider than max_cell_width columns are
 *   cut to that width with "..." (at the start instead of the end for the
 *   cut_left columns, e.g. file paths, keeping the file name).
 *   Rows are laid out in windows of window_rows rows (default 1024) or about
 *   8 MiB of cell text, whichever comes first: a window is rendered, measured
 *   and printed, so memory stays bounded however many rows there are. A
 *   column is as wide as its header and the widest cell of the window ask,
 *   and never narrower than in an earlier window; when a window widens a
 *   column, the header and separator are printed again above it.
 *   Nothing is printed before the first window is complete, so an error while
 *   the first window's rows arrive leaves no partial table.
 *   With term_width set, a table wider than that shows the columns that fit,
 *   the last of them cut to fit unless it is a number, then " | ..." (the
 *   header says how many columns are left out).
 *   An empty result prints the header and separator.
 * Sliced arrays (offset != 0, at any level) are honoured.
 *
 * The printer is the module `print` of libpaimon (above arrow): it writes
 * only to the buffer or FILE* its caller gives. The CLI uses it through the
 * public paimon/print.h; tests that compare output with fixtures link pm_print.
 * Files: format.c (numbers, dates), value.c (one value),
 * text.c (JSONL, CSV), table.c (table layout), printer.c (this interface).
 */
#ifndef PM_PRINT_H_PRINT_H
#define PM_PRINT_H_PRINT_H

#include <stdint.h>
#include <stdio.h>

#include "arrow/type.h"
#include "print/format.h"
#include "print/value.h"
#include "paimon/arrow_c.h"
#include "util/buf.h"
#include "util/error.h"

typedef enum pm_print_format { PM_PRINT_JSONL = 0, PM_PRINT_CSV = 1, PM_PRINT_TABLE = 2 } pm_print_format;

#define PM_PRINT_DIGITS_DEFAULT (-1)

typedef struct pm_print_options {
  pm_print_format format;
  /* Optional: fraction digits for TIME/TIMESTAMP values of top-level column i
   * (applies to temporal values nested inside that column too). A negative
   * entry, an index >= n_fraction_digits or a NULL array means "from the
   * unit". E.g. Paimon TIMESTAMP(0) stored as "tsm:" needs 0. Extra digits
   * beyond the unit are zero-padded; fewer digits truncate toward -infinity. */
  const int *fraction_digits;
  int n_fraction_digits;
  int no_header;      /* CSV/table: do not print the header line */
  /* table: cut non-numeric cells wider than this many display columns;
   * 0 = PM_PRINT_MAX_WIDTH, PM_PRINT_NO_TRUNCATE (any negative) = never cut. */
  int max_cell_width;
  int term_width;  /* table: the terminal's width in columns; 0 = unlimited */
  int window_rows; /* table: rows measured together; 0 = PM_PRINT_WINDOW_ROWS */
  /* table: top-level column i is cut at the start when cut_left[i] != 0
   * (i < n_cut_left); copied. */
  const int *cut_left;
  int n_cut_left;
} pm_print_options;

#define PM_PRINT_MAX_WIDTH 40
#define PM_PRINT_NO_TRUNCATE (-1)
#define PM_PRINT_WINDOW_ROWS 1024

typedef struct pm_printer pm_printer;

/* Creates a printer for batches of `schema` (must be a struct "+s"). The
 * schema is parsed and copied; the options arrays are copied too. *out is
 * owned by the caller: pm_printer_free. opts may be NULL (JSONL defaults). */
int pm_printer_new(const struct ArrowSchema *schema, const pm_print_options *opts, pm_printer **out, pm_error *err);
void pm_printer_free(pm_printer *p);

/* Appends the text of every row of batch to out (header first for the first
 * CSV/table batch). The batch must match the schema; it is read, not
 * released. Trusts the batch layout: validate untrusted input first with
 * pm_arrow_validate. Table: the rows of one call are laid out together (in
 * windows of window_rows) and all appended before it returns. */
int pm_printer_write(pm_printer *p, const struct ArrowArray *batch, pm_buf *out, pm_error *err);
/* Same, writing to a FILE* (buffered internally, flushed in large chunks).
 * Table: rows wait in the window until it is full or pm_printer_finish_file.
 * A failed write is PAIMON_ERR_IO "cannot write output: <system reason>". */
int pm_printer_print(pm_printer *p, const struct ArrowArray *batch, FILE *f, pm_error *err);
/* Ends the output: the table's last window; for CSV/table with zero batches
 * the header. The FILE form also flushes f and reports a failed write. */
int pm_printer_finish(pm_printer *p, pm_buf *out, pm_error *err);
int pm_printer_finish_file(pm_printer *p, FILE *f, pm_error *err);

/* One-shot helpers. */
int pm_print_batch(const struct ArrowSchema *schema, const struct ArrowArray *batch, const pm_print_options *opts,
                   FILE *f, pm_error *err);
int pm_print_batch_to_buf(const struct ArrowSchema *schema, const struct ArrowArray *batch,
                          const pm_print_options *opts, pm_buf *out, pm_error *err);

#endif
