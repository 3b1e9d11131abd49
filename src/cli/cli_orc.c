#include <stdio.h>

#include "cli/cli.h"

int cli_orc_main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "paimon: 'orc' commands are not implemented yet\n");
  return 2;
}
