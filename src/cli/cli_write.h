/* Shared by the CLI's write commands (cli_write.c, cli_import.c). */
#ifndef PM_CLI_CLI_WRITE_H
#define PM_CLI_CLI_WRITE_H

#include <stdio.h>

#include "paimon/paimon.h"

#define MAX_ITEMS 256

typedef struct cli_write_args {
  const char *sub;
  const char *ident;
  const char *files[MAX_ITEMS];
  int n_files;
  const char *format;
  int overwrite;
  char *specs[MAX_ITEMS]; /* --partition texts (argv) */
  int n_specs;
  paimon_option options[MAX_ITEMS];
  int n_options;
  const char *row_kind_column; /* import --row-kind-column */
} cli_write_args;

/* Prints "paimon table SUB: <message>" on stderr; returns 1. */
int cli_write_fail(const char *sub, const paimon_error *err);
/* "k=v,k2=v2" into options pointing into the (modified) text; the count, or -1 (message printed). */
int cli_parse_spec(const char *sub, char *text, paimon_option *out, int cap);
/* `table import` on an open table; its usage. */
int cli_import_run(paimon_table *t, cli_write_args *a);
void cli_import_usage(FILE *out);

#endif
