#include <stdio.h>

#include "cli/cli.h"

int cli_avro_main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "paimon: 'avro' commands are not implemented yet\n");
  return 2;
}
