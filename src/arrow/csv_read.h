/*
 * CSV to Arrow: the inverse of the printer's CSV encoding (print/print.h),
 * so `table read --format csv` output can be written back into a table.
 *
 * Records are RFC 4180: fields separated by ',', records by "\n" or "\r\n";
 * a field in double quotes may hold ',', newlines and "" (one quote). An
 * empty unquoted field is null, a quoted empty field ("") an empty string.
 * Cells are typed by the column they fall into: strings, binary (base64),
 * dates, times, timestamps and decimals take the text as is; booleans and
 * numbers are JSON literals (floats also NaN / Infinity / -Infinity); lists,
 * maps and structs are their JSON text (json_read.h says what each accepts).
 */
#ifndef PM_ARROW_CSV_READ_H
#define PM_ARROW_CSV_READ_H

#include <stddef.h>
#include <stdint.h>

#include "arrow/builder.h"
#include "util/buf.h"

/* One parsed record: n fields, each a byte range of `text` (unescaped into
 * the record's own buffer), quoted[i] = 1 when field i was in quotes. */
typedef struct pm_csv_record {
  size_t n;
  size_t cap;
  size_t *off; /* into buf */
  size_t *len;
  uint8_t *quoted;
  pm_buf buf;
} pm_csv_record;

void pm_csv_record_init(pm_csv_record *r);
void pm_csv_record_free(pm_csv_record *r);

/* Length of the first complete record of text[0..len) including its line
 * end, or 0 when the text holds no complete record (an open quote or no line
 * end yet; at end of input pass at_end = 1: then the rest is one record). */
size_t pm_csv_record_span(const char *text, size_t len, int at_end);

/* Parses one record's text (as delimited by pm_csv_record_span) into r.
 * A quote inside an unquoted field or text after a closing quote is an error. */
int pm_csv_parse_record(const char *text, size_t len, pm_csv_record *r, pm_error *err);

/* Appends field i of r to b, typed by b's type. */
int pm_csv_append_field(pm_builder *b, const pm_csv_record *r, size_t i, pm_error *err);

#endif
