#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static void usage(FILE *out) {
  fputs("usage: paimon [-w WAREHOUSE] <command> ...\n"
        "\n"
        "  parquet schema|meta|cat|scan|convert FILE ...   inspect and convert Parquet files\n"
        "  orc schema|meta|cat|scan|convert FILE ...       inspect and convert ORC files\n"
        "  avro schema|cat FILE                            inspect Avro container files\n"
        "  db list | db list-tables DB                     browse a warehouse\n"
        "  table get|read|snapshots|files|partitions|explain DB.T ...\n"
        "\n"
        "The warehouse is -w PATH or $PAIMON_WAREHOUSE. `paimon <command> --help` shows details.\n",
        out);
}

int main(int argc, char **argv) {
  const char *warehouse = NULL;
  int i = 1;
  while (i < argc && argv[i][0] == '-') {
    if ((!strcmp(argv[i], "-w") || !strcmp(argv[i], "--warehouse")) && i + 1 < argc) {
      warehouse = argv[i + 1];
      i += 2;
    } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      usage(stdout);
      return 0;
    } else {
      fprintf(stderr, "paimon: unknown option %s\n", argv[i]);
      usage(stderr);
      return 2;
    }
  }
  if (i >= argc) {
    usage(stderr);
    return 2;
  }
  const char *cmd = argv[i];
  if (!strcmp(cmd, "parquet")) return cli_parquet_main(argc - i, argv + i);
  if (!strcmp(cmd, "orc")) return cli_orc_main(argc - i, argv + i);
  if (!strcmp(cmd, "avro")) return cli_avro_main(argc - i, argv + i);
  if (!strcmp(cmd, "db") || !strcmp(cmd, "table")) return cli_table_main(warehouse, argc - i, argv + i);
  fprintf(stderr, "paimon: unknown command '%s'\n", cmd);
  usage(stderr);
  return 2;
}
