/*
 * libpaimon public API: Arrow record batches as text, in the value encoding
 * of the `paimon` CLI (JSON lines, CSV, an aligned text table). This is what
 * `paimon table read`, `parquet cat` and `orc cat` print; `table import`
 * reads the JSONL and CSV forms back.
 *
 *   paimon_print_options o; paimon_print_options_init(&o);
 *   o.format = PAIMON_PRINT_CSV;
 *   paimon_printer *p; paimon_printer_new(&schema, &o, &p, &err);
 *   for each batch: paimon_printer_print(p, &batch, stdout, &err);
 *   paimon_printer_finish(p, stdout, &err); paimon_printer_free(p);
 *
 * Encoding: BOOLEAN true/false; integers as numbers; FLOAT/DOUBLE as the
 * shortest text that reads back as the same value (NaN/Infinity/-Infinity as
 * JSON strings); DECIMAL with exactly `scale` fraction digits; strings as JSON
 * strings (invalid UTF-8 as U+FFFD); binary as base64; DATE "YYYY-MM-DD";
 * TIME "HH:MM:SS[.f]"; TIMESTAMP "YYYY-MM-DDTHH:MM:SS[.f]" (+ "Z" with a time
 * zone), as many fraction digits as the unit unless set per column; lists as
 * arrays, maps as arrays of [key, value] pairs, structs as objects; null as
 * null. CSV: RFC 4180 with a header line, null = empty field, empty string =
 * "". Table: header, separator, one line per row, " | " between columns,
 * numbers right-aligned, NULL for null, cells cut with "..." beyond
 * max_cell_width display columns, laid out in windows of window_rows rows.
 *
 * Conventions as in paimon.h. The printer writes only to the FILE* it is
 * given, and only what the caller asks for. One printer is used by one
 * thread at a time.
 */
#ifndef PAIMON_PRINT_H
#define PAIMON_PRINT_H

#include <stdio.h>

#include "paimon/arrow_c.h"
#include "paimon/error.h"
#include "paimon/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum paimon_print_format {
  PAIMON_PRINT_JSONL = 0,
  PAIMON_PRINT_CSV = 1,
  PAIMON_PRINT_TABLE = 2
} paimon_print_format;

#define PAIMON_PRINT_NO_TRUNCATE (-1)

typedef struct paimon_print_options {
  paimon_print_format format;
  /* Fraction digits of TIME/TIMESTAMP values of top-level column i (nested
   * ones too); negative, missing (i >= n_fraction_digits) or NULL = from the
   * unit. Copied by paimon_printer_new. */
  const int *fraction_digits;
  int n_fraction_digits;
  int no_header;      /* CSV / table: no header line */
  int max_cell_width; /* table: 0 = 40; PAIMON_PRINT_NO_TRUNCATE = never cut */
  int term_width;     /* table: terminal width in columns (columns beyond are left out); 0 = unlimited */
  int window_rows;    /* table: rows laid out together; 0 = 1024 */
  /* table: top-level column i is cut at its start (keeping the end, e.g. a
   * file name) when cut_left[i] != 0, i < n_cut_left. Copied. */
  const int *cut_left;
  int n_cut_left;
} paimon_print_options;

/* JSONL, every other field 0 / NULL. */
PAIMON_EXPORT void paimon_print_options_init(paimon_print_options *o);

typedef struct paimon_printer paimon_printer;

/* A printer for batches of schema (a struct "+s"; read, not released: the
 * printer keeps its own parsed copy). o may be NULL (JSONL). *out is owned by
 * the caller: paimon_printer_free. */
PAIMON_EXPORT paimon_status paimon_printer_new(const struct ArrowSchema *schema, const paimon_print_options *o,
                                               paimon_printer **out, paimon_error *err);
/* Prints the rows of batch (matching the schema; read, not released) to f,
 * buffered; the table view keeps rows until its window is full. A failed
 * write is PAIMON_ERR_IO "cannot write output: <reason>". The batch must be a
 * valid array of the schema (the arrays of this library's streams are); its
 * layout is trusted, not validated. */
PAIMON_EXPORT paimon_status paimon_printer_print(paimon_printer *p, const struct ArrowArray *batch, FILE *f,
                                                 paimon_error *err);
/* Prints what is left (the table's last window; the CSV/table header when no
 * batch came) and flushes f. */
PAIMON_EXPORT paimon_status paimon_printer_finish(paimon_printer *p, FILE *f, paimon_error *err);
PAIMON_EXPORT void paimon_printer_free(paimon_printer *p); /* NULL ok */

#ifdef __cplusplus
}
#endif

#endif /* PAIMON_PRINT_H */
