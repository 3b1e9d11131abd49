/* Subcommands of the `paimon` CLI. Each returns the process exit code and
 * prints errors to stderr as one line. argv[0] is the subcommand name. */
#ifndef PM_CLI_CLI_H
#define PM_CLI_CLI_H

#include "paimon/paimon.h"

int cli_parquet_main(int argc, char **argv); /* paimon parquet schema|meta|cat|scan|convert */
int cli_orc_main(int argc, char **argv);     /* paimon orc schema|meta|cat|scan|convert */
int cli_avro_main(int argc, char **argv);    /* paimon avro schema|cat */
/* paimon [-w WAREHOUSE] db|table ... ; warehouse may be NULL (then PAIMON_WAREHOUSE). */
int cli_table_main(const char *warehouse, int argc, char **argv);
/* paimon [-w WAREHOUSE] table import|truncate|drop-partition ... (cli_write.c). */
int cli_write_main(const char *warehouse, int argc, char **argv);
/* 1 for the table subcommands cli_write_main runs. */
int cli_is_write_command(const char *sub);
/* paimon [-w WAREHOUSE] table alter DB.T ACTION ... (cli_alter.c); argv[0] = "table", argv[1] = "alter". */
int cli_alter_main(const char *warehouse, int argc, char **argv);
/* paimon table delete|update DB.T --where EXPR ... (cli_delete.c) */
int cli_delete_main(const char *warehouse, int argc, char **argv);
int cli_update_main(const char *warehouse, int argc, char **argv); /* table update-columns */
/* paimon table compact DB.T [--partition k=v,...] [--full] (cli_compact.c) */
int cli_compact_main(const char *warehouse, int argc, char **argv);
/* paimon table remove-orphan-files ... (cli_maintain.c); 1 for the subcommands it runs. */
int cli_maintain_main(const char *warehouse, int argc, char **argv);
int cli_is_maintain_command(const char *sub);
/* paimon table expire-partitions|compact-manifests ... (cli_maintenance.c). */
int cli_maintenance_main(const char *warehouse, int argc, char **argv);
int cli_is_maintenance_command(const char *sub);
/* paimon tag create|delete|rename|list|get DB.T ... (cli_tag.c); argv[0] = "tag". */
int cli_tag_main(const char *warehouse, int argc, char **argv);
/* paimon consumer list|reset|delete DB.T ... (cli_consumer.c); argv[0] = "consumer". */
int cli_consumer_main(const char *warehouse, int argc, char **argv);
/* paimon branch create|delete|list|fast-forward DB.T ... (cli_branch.c); argv[0] = "branch". */
int cli_branch_main(const char *warehouse, int argc, char **argv);
/* paimon table rollback DB.T (--snapshot N | --tag T | --timestamp TS) (cli_tag.c). */
int cli_rollback_main(const char *warehouse, int argc, char **argv);
/* paimon sql (cli_sql.c): SQL through SQLite and the paimon virtual-table module. */
int cli_sql_main(const char *warehouse, int argc, char **argv);
/* 1 if argv[1..] holds -h or --help (every command and subcommand then prints its usage, exit 0). */
int cli_wants_help(int argc, char **argv);

/* Progress of a maintenance command on stderr, once its work passes a second
 * ("paimon table CMD: PHASE done / total", at most one line a second); a
 * paimon_progress_fn with ctx = a cli_progress whose start is set. */
#include <stdint.h>
#include <time.h>
typedef struct cli_progress {
  const char *cmd;
  struct timespec start, last;
  int printed;
  int dry_run;
} cli_progress;
void cli_on_progress(void *ctx, const char *phase, uint64_t done, uint64_t total);
/* 1 if paths a and b name the same file (same device and inode; equal strings when a does not exist). */
int cli_same_file(const char *a, const char *b);

/* paimon db create|drop and paimon table create|drop|rename (cli_ddl.c); -1 when argv[1] is none of them. */
int cli_ddl_main(const char *warehouse, int argc, char **argv);
/* Opens the catalog of -w / $PAIMON_WAREHOUSE (warnings printed); 0, or the exit code after a message. */
int cli_open_catalog(const char *warehouse, paimon_catalog **out);
/* A decimal int64 in [min, INT64_MAX] into *out: 0, or -1 for anything else (empty, junk, overflow). */
int cli_parse_int64(const char *s, int64_t min, int64_t *out);
/* ARG of command CMD ("tag create") that is none of its options: an unknown option ("-x") or, past
 * WANT positional arguments, an unexpected one is 2 after a message; else it is stored in
 * pos[(*n_pos)++] and the result is 0. */
int cli_positional(const char *cmd, const char *arg, const char **pos, int *n_pos, int want);
/* "paimon CMD: MESSAGE" (the status name when the message is empty) on stderr; returns 1, the exit
 * code of a failed operation. CMD names the command, e.g. "table compact", "branch create". */
int cli_fail(const char *cmd, const paimon_error *err);
/* cli_open_catalog, then the table IDENT ("DB.T", "DB.T$branch_b"); 0, or the exit code after a
 * message (cli_fail(CMD, ...) when the table cannot be opened). The caller frees *cat and *t
 * (paimon_table_free / paimon_catalog_free take NULL) whatever the result. */
int cli_open_table(const char *cmd, const char *warehouse, const char *ident, paimon_catalog **cat, paimon_table **t);

#endif
