#include <stdio.h>

#include "cli/cli.h"

int cli_parquet_main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "paimon: 'parquet' commands are not implemented yet\n");
  return 2;
}
