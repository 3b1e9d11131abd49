/*
 * Output options shared by the commands that print rows (table read and
 * friends, parquet cat, orc cat) and the check that stdout took every byte.
 *
 *   --format table|jsonl|csv   default: table when stdout is a terminal,
 *                              jsonl otherwise (pipes, files)
 *   --max-width N              table: cut text cells wider than N display
 *                              columns (default 40; numbers are never cut)
 *   --no-truncate              table: never cut cells
 * The table fits the terminal's width (when stdout is a terminal, or $COLUMNS
 * when set): columns that do not fit are left out, the header says how many.
 */
#ifndef PM_CLI_OUTPUT_H
#define PM_CLI_OUTPUT_H

#include <stdio.h>

#include "paimon/arrow_c.h"
#include "paimon/error.h"
#include "paimon/print.h"

typedef struct cli_output {
  paimon_print_format format;
  int format_set;
  int max_width; /* 0: default; PAIMON_PRINT_NO_TRUNCATE: never cut */
} cli_output;

#define CLI_OUTPUT_USAGE \
  "[--format table|jsonl|csv] [--max-width N | --no-truncate]"

void cli_output_init(cli_output *o);
/* Parses the output option at argv[*i], advancing *i past its value.
 * Returns 1 when it was one, 0 when argv[*i] is not an output option, -1
 * when its value is invalid (a message naming `cmd` went to stderr: exit 2). */
int cli_output_arg(cli_output *o, const char *cmd, int argc, char **argv, int *i);
/* Fills the format, width and terminal fields of po from o and stdout. */
void cli_output_apply(const cli_output *o, paimon_print_options *po);
/* Flushes stdout. Returns 0, or 1 after "paimon: cannot write output: REASON"
 * on stderr when a write to stdout failed (disk full, ...). */
int cli_stdout_check(void);

/* Sets *err to code + formatted message (as the library reports errors); returns code. */
int cli_errorf(paimon_error *err, paimon_status code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* get_schema / get_next of a stream with its error as a paimon_error: the
 * producer's last error message, else "stream get_schema|get_next: <reason>". */
int cli_stream_schema(struct ArrowArrayStream *s, struct ArrowSchema *out, paimon_error *err);
int cli_stream_next(struct ArrowArrayStream *s, struct ArrowArray *out, paimon_error *err);

#endif
