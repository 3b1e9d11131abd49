#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "paimon/paimon.h"
#include "cli/cli_output.h"

static void usage(FILE *out) {
  fputs("usage: paimon [-w WAREHOUSE] <command> ...\n"
        "\n"
        "  parquet schema|meta|cat|scan|convert FILE ...   inspect and convert Parquet files\n"
        "  orc schema|meta|cat|scan|convert FILE ...       inspect and convert ORC files\n"
        "  avro schema|cat FILE                            inspect Avro container files\n"
        "  db list | db list-tables DB                     browse a warehouse\n"
        "  db create|drop DB ...                           create / drop databases\n"
        "  table create|drop|rename DB.T ...               create / drop / rename tables\n"
        "  table get|read|snapshots|files|partitions|explain DB.T ...\n"
        "  table import|truncate|drop-partition DB.T ...   write into a table, remove rows\n"
        "  table delete|update DB.T --where EXPR ...       delete / update rows of a primary-key table\n"
        "  table update-columns DB.T --columns C --input F  set columns of rows by _ROW_ID (data evolution)\n"
        "  table alter DB.T ACTION ...                     change a table's schema or options\n"
        "  table compact DB.T [--partition k=v] [--full]   compact a primary-key table\n"
        "  table remove-orphan-files DB.T [--older-than TS] [--dry-run]  delete unreferenced files\n"
        "  table expire-snapshots DB.T [--retain-max N] [--older-than TS] ...  expire old snapshots\n"
        "  table rollback DB.T (--snapshot N | --tag T | --timestamp TS)  roll back\n"
        "  table expire-partitions DB.T [--expiration-time D] ...  drop expired partitions\n"
        "  table compact-manifests DB.T                    merge the manifests (no data change)\n"
        "  tag create|delete|rename|list|get DB.T ...      manage tags\n"
        "  consumer list|reset|delete DB.T ...             manage streaming consumers\n"
        "  branch create|delete|list|fast-forward DB.T ... manage branches\n"
        "  sql [-e SQL | FILE]                             SQL over the tables (SQLite)\n"
        "\n"
        "The warehouse is -w PATH (anywhere on the line) or $PAIMON_WAREHOUSE.\n"
        "`paimon <command> [<subcommand>] --help` shows details; `paimon --version` the version.\n",
        out);
}

int cli_wants_help(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) return 1;
  return 0;
}

int cli_same_file(const char *a, const char *b) {
  struct stat sa, sb;
  if (stat(a, &sa) || stat(b, &sb)) return !strcmp(a, b);
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int main(int argc, char **argv) {
  const char *warehouse = NULL;
  /* Global options: -w/--warehouse anywhere on the line (removed before dispatch); --version and
   * --help before the command. */
  int n = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-w") || !strcmp(a, "--warehouse")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "paimon: %s needs a value (the warehouse path)\n", a);
        return 2;
      }
      warehouse = argv[++i];
    } else if (!strncmp(a, "--warehouse=", 12)) {
      warehouse = a + 12;
    } else {
      argv[n++] = argv[i];
    }
  }
  argc = n;
  argv[argc] = NULL;
  int i = 1;
  if (i < argc && argv[i][0] == '-') {
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      usage(stdout);
      return 0;
    }
    if (!strcmp(argv[i], "--version") || !strcmp(argv[i], "-V")) {
      printf("paimon %s (libpaimon %s)\n", PAIMON_VERSION_STRING, paimon_version());
      return 0;
    }
    fprintf(stderr, "paimon: unknown option %s\n", argv[i]);
    usage(stderr);
    return 2;
  }
  if (i >= argc) {
    fprintf(stderr, "paimon: missing command (parquet, orc, avro, db, table)\n");
    usage(stderr);
    return 2;
  }
  const char *cmd = argv[i];
  int rc;
  if (!strcmp(cmd, "parquet")) rc = cli_parquet_main(argc - i, argv + i);
  else if (!strcmp(cmd, "orc")) rc = cli_orc_main(argc - i, argv + i);
  else if (!strcmp(cmd, "avro")) rc = cli_avro_main(argc - i, argv + i);
  else if (!strcmp(cmd, "table") && argc - i > 1 && cli_is_write_command(argv[i + 1]))
    rc = cli_write_main(warehouse, argc - i, argv + i);
  else if (!strcmp(cmd, "table") && argc - i > 1 &&
           (!strcmp(argv[i + 1], "delete") || !strcmp(argv[i + 1], "update")))
    rc = cli_delete_main(warehouse, argc - i, argv + i);
  else if (!strcmp(cmd, "table") && argc - i > 1 && !strcmp(argv[i + 1], "update-columns"))
    rc = cli_update_main(warehouse, argc - i, argv + i);
  else if (!strcmp(cmd, "table") && argc - i > 1 && !strcmp(argv[i + 1], "compact"))
    rc = cli_compact_main(warehouse, argc - i, argv + i);
  else if (!strcmp(cmd, "table") && argc - i > 1 && cli_is_maintain_command(argv[i + 1]))
    rc = cli_maintain_main(warehouse, argc - i, argv + i);
  else if (!strcmp(cmd, "table") && argc - i > 1 && cli_is_maintenance_command(argv[i + 1]))
    rc = cli_maintenance_main(warehouse, argc - i, argv + i);
  else if (!strcmp(cmd, "table") && argc - i > 1 && !strcmp(argv[i + 1], "alter"))
    rc = cli_alter_main(warehouse, argc - i, argv + i);
  else if (!strcmp(cmd, "table") && argc - i > 1 && !strcmp(argv[i + 1], "rollback"))
    rc = cli_rollback_main(warehouse, argc - i, argv + i);
  else if (!strcmp(cmd, "tag")) rc = cli_tag_main(warehouse, argc - i, argv + i);
  else if (!strcmp(cmd, "consumer")) rc = cli_consumer_main(warehouse, argc - i, argv + i);
  else if (!strcmp(cmd, "sql")) rc = cli_sql_main(warehouse, argc - i, argv + i);
  else if (!strcmp(cmd, "branch")) rc = cli_branch_main(warehouse, argc - i, argv + i);
  else if (!strcmp(cmd, "db") || !strcmp(cmd, "table")) rc = cli_table_main(warehouse, argc - i, argv + i);
  else {
    fprintf(stderr, "paimon: unknown command '%s'\n", cmd);
    usage(stderr);
    return 2;
  }
  /* Every command's output: a write to stdout that failed (disk full...) is exit 1 with the reason. */
  if (rc == 0) rc = cli_stdout_check();
  return rc;
}
