#include <stdio.h>

#include "cli/cli.h"

int cli_table_main(const char *warehouse, int argc, char **argv) {
  (void)warehouse;
  (void)argc;
  (void)argv;
  fprintf(stderr, "paimon: table commands are not implemented yet\n");
  return 2;
}
