/* `paimon table update-columns DB.T --columns A,B --input FILE`: row-id column updates of
 * data-evolution tables through the public API (paimon/update.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "paimon/paimon.h"
#include "paimon/update.h"

#define MAX_ARGS 256

static void usage(FILE *out) {
  fputs("usage: paimon [-w WAREHOUSE] table update-columns DB.T --columns COL[,COL...] (--input FILE | --stdin)\n"
        "                 [--format parquet|orc|avro|jsonl|csv] [--option k=v ...]\n"
        "\n"
        "Sets columns of existing rows of a data-evolution table (row-tracking.enabled and\n"
        "data-evolution.enabled) by their _ROW_ID, as pypaimon's update_by_row_id: the input holds a _ROW_ID\n"
        "column and the columns to update (other columns are ignored); for every row-id range it touches one\n"
        "file holding only those columns is written, covering the range, and all are committed in one snapshot.\n"
        "Read the row ids with `table read DB.T --select _ROW_ID,...`.\n"
        "--columns COLS  the columns to update (comma-separated table columns; not partition keys). Required.\n"
        "--input FILE    the input: Parquet / ORC / Avro files as typed, JSON lines (objects keyed by column,\n"
        "                values as `table read --format jsonl` prints) or CSV (a header row, values as `table read\n"
        "                --format csv` prints); _ROW_ID as a number or decimal text. --format defaults to the\n"
        "                extension (.parquet .orc .avro .jsonl .json .ndjson .csv).\n"
        "--stdin         read the input from standard input (needs --format).\n"
        "--option k=v    a dynamic write option.\n"
        "Errors (exit 1, nothing written): a missing _ROW_ID or update column, a null, repeated or unknown row\n"
        "id, a value that does not fit its column; a concurrent commit that updated one of the same columns of\n"
        "the same rows makes the commit fail with a conflict (nothing published). The input is read into one\n"
        "round: a row-id range may be touched by one input batch only (JSON lines / CSV batches hold up to\n"
        "read.batch-size rows). The warehouse is -w PATH or $PAIMON_WAREHOUSE.\n",
        out);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int cli_update_main(const char *warehouse, int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    usage(stdout);
    return 0;
  }
  const char *ident = NULL, *columns = NULL, *input = NULL, *format = NULL;
  int use_stdin = 0, n_opts = 0;
  paimon_option opts[MAX_ARGS];
  for (int i = 2; i < argc; i++) {
    const char *s = argv[i];
    int has_value = i + 1 < argc;
    if (!strcmp(s, "--columns") && has_value) columns = argv[++i];
    else if (!strcmp(s, "--input") && has_value) input = argv[++i];
    else if (!strcmp(s, "--format") && has_value) format = argv[++i];
    else if (!strcmp(s, "--stdin")) use_stdin = 1;
    else if (!strcmp(s, "--option") && has_value && n_opts < MAX_ARGS) {
      char *kv = argv[++i], *eq = strchr(kv, '=');
      if (!eq || eq == kv) {
        fprintf(stderr, "paimon table update-columns: --option wants k=v, got '%s'\n", kv);
        return 2;
      }
      *eq = 0;
      opts[n_opts++] = (paimon_option){kv, eq + 1};
    } else if (s[0] == '-' && s[1]) {
      fprintf(stderr, "paimon table update-columns: unknown option %s%s\n", s,
              !strncmp(s, "--", 2) && !has_value ? " (or its value is missing)" : "");
      return 2;
    } else if (!ident) {
      ident = s;
    } else {
      fprintf(stderr, "paimon table update-columns: unexpected argument '%s'\n", s);
      return 2;
    }
  }
  if (!ident) {
    fprintf(stderr, "paimon table update-columns: missing table (DB.T)\n");
    return 2;
  }
  if (!columns || !*columns) {
    fprintf(stderr, "paimon table update-columns: --columns COL[,COL...] is required\n");
    return 2;
  }
  if (!input == !use_stdin) {
    fprintf(stderr, "paimon table update-columns: give exactly one of --input FILE and --stdin\n");
    return 2;
  }
  if (use_stdin && !format) {
    fprintf(stderr, "paimon table update-columns: --stdin needs --format\n");
    return 2;
  }
  char *cols_buf = strdup(columns);
  const char *cols[MAX_ARGS];
  size_t n_cols = 0;
  for (char *save = NULL, *tok = strtok_r(cols_buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    while (*tok == ' ') tok++;
    if (n_cols == MAX_ARGS || !*tok) {
      fprintf(stderr, "paimon table update-columns: --columns: %s\n", *tok ? "too many columns" : "empty column name");
      free(cols_buf);
      return 2;
    }
    cols[n_cols++] = tok;
  }
  const char *cmd = "table update-columns";
  paimon_error err = {0};
  paimon_catalog *cat = NULL;
  paimon_table *t = NULL;
  paimon_write_builder *wb = NULL;
  paimon_table_update *u = NULL;
  paimon_commit_messages *m = NULL;
  paimon_table_commit *c = NULL;
  int64_t snap = -1;
  double t0 = now_s();
  int exit_code = cli_open_table(cmd, warehouse, ident, &cat, &t);
  int rc = PAIMON_OK;
  /* the updater first: bad columns / table kinds fail before the input is opened */
  if (!exit_code) rc = paimon_write_builder_new(t, 0, opts, (size_t)n_opts, &wb, &err);
  if (!exit_code && !rc) rc = paimon_write_builder_new_update_by_row_id(wb, cols, n_cols, &u, &err);
  struct ArrowArrayStream st;
  memset(&st, 0, sizeof st);
  if (!exit_code && !rc) rc = paimon_table_open_cdc_input(t, use_stdin ? NULL : input, 0, format, "_ROW_ID", &st, &err);
  if (!exit_code && !rc) rc = paimon_table_update_stream(u, &st, &err);
  if (!exit_code && !rc && now_s() - t0 > 1)
    fprintf(stderr, "paimon %s: %lld rows written, committing\n", cmd, (long long)paimon_table_update_rows(u));
  if (!exit_code && !rc) rc = paimon_table_update_prepare_commit(u, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, &err);
  if (!exit_code && !rc) rc = paimon_write_builder_new_commit(wb, &c, &err);
  if (!exit_code && !rc) {
    rc = paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, &snap, &err);
    if (rc == PAIMON_ERR_CONFLICT) {
      paimon_error e2 = {0};
      paimon_table_commit_abort(c, m, &e2); /* nothing was published: remove the files */
    }
  }
  if (!exit_code && rc) exit_code = cli_fail(cmd, &err);
  if (!exit_code && snap >= 0)
    printf("updated %lld rows: snapshot %lld\n", (long long)paimon_table_update_rows(u), (long long)snap);
  else if (!exit_code)
    printf("updated 0 rows: no snapshot\n");
  paimon_table_commit_free(c);
  paimon_commit_messages_free(m);
  paimon_table_update_free(u);
  paimon_write_builder_free(wb);
  paimon_table_free(t);
  paimon_catalog_free(cat);
  free(cols_buf);
  return exit_code;
}
