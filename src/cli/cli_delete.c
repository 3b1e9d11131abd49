/* `paimon table delete | update DB.T --where EXPR ...`: delete and update by predicate on
 * primary-key tables through the public API (paimon_write_builder_delete_where / _update_where). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "paimon/paimon.h"
#include "paimon/write.h"

#define MAX_ARGS 256

static void usage(FILE *out) {
  fputs("usage: paimon [-w WAREHOUSE] table delete DB.T --where EXPR [--where EXPR ...] [--option k=v ...]\n"
        "       paimon [-w WAREHOUSE] table update DB.T --where EXPR --set COL=VALUE [--set ...] [--option k=v ...]\n"
        "\n"
        "delete removes the rows of a primary-key table matching the filter; update sets columns of them.\n"
        "Both read the matching rows of the latest snapshot and write them back through the table's merge\n"
        "engine in one commit (delete: -D rows; update: +U rows), then print the number of rows and the\n"
        "snapshot id written (\"0 rows\" and no snapshot when nothing matched).\n"
        "--where EXPR   the filter, as `table read --where` takes it (`id > 5 and name like 'a%'`,\n"
        "               `x in (1, 2)`, `d = '2024-01-01'`, ...); several are ANDed. Required.\n"
        "--set COL=VALUE  update: the new value of COL in the text form `table read --format csv` prints\n"
        "               (empty = null); primary-key columns cannot be set.\n"
        "--option k=v   a dynamic write option for the commit.\n"
        "As Java, delete works on deduplicate tables, partial-update tables with\n"
        "partial-update.remove-record-on-delete or .remove-record-on-sequence-group, aggregation tables with\n"
        "aggregation.remove-record-on-delete; never on first-row, ignore-delete or append tables. update works\n"
        "on deduplicate and partial-update tables. Refusals exit 1 naming the option to set.\n"
        "The warehouse is -w PATH or $PAIMON_WAREHOUSE.\n",
        out);
}

int cli_delete_main(const char *warehouse, int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    usage(stdout);
    return 0;
  }
  const char *sub = argv[1], *ident = NULL;
  int is_update = !strcmp(sub, "update");
  const char *wheres[MAX_ARGS];
  int n_wheres = 0, n_sets = 0, n_opts = 0;
  paimon_option sets[MAX_ARGS], opts[MAX_ARGS];
  for (int i = 2; i < argc; i++) {
    const char *s = argv[i];
    int has_value = i + 1 < argc;
    if (!strcmp(s, "--where") && has_value && n_wheres < MAX_ARGS) {
      wheres[n_wheres++] = argv[++i];
    } else if ((!strcmp(s, "--option") || (is_update && !strcmp(s, "--set"))) && has_value && n_opts < MAX_ARGS &&
               n_sets < MAX_ARGS) {
      char *kv = argv[++i], *eq = strchr(kv, '=');
      if (!eq || eq == kv) {
        fprintf(stderr, "paimon table %s: %s wants %s, got '%s'\n", sub, s, s[2] == 's' ? "COL=VALUE" : "k=v", kv);
        return 2;
      }
      *eq = 0;
      if (s[2] == 's') sets[n_sets++] = (paimon_option){kv, eq + 1};
      else opts[n_opts++] = (paimon_option){kv, eq + 1};
    } else if (s[0] == '-' && s[1]) {
      fprintf(stderr, "paimon table %s: unknown option %s%s\n", sub, s,
              !strncmp(s, "--", 2) && !has_value ? " (or its value is missing)" : "");
      return 2;
    } else if (!ident) {
      ident = s;
    } else {
      fprintf(stderr, "paimon table %s: unexpected argument '%s'\n", sub, s);
      return 2;
    }
  }
  if (!ident) {
    fprintf(stderr, "paimon table %s: missing table (DB.T)\n", sub);
    return 2;
  }
  if (!n_wheres) {
    fprintf(stderr, "paimon table %s: --where EXPR is required (use `table truncate` to remove every row)\n", sub);
    return 2;
  }
  if (is_update && !n_sets) {
    fprintf(stderr, "paimon table update: at least one --set COL=VALUE is needed\n");
    return 2;
  }
  size_t len = 1;
  for (int i = 0; i < n_wheres; i++) len += strlen(wheres[i]) + 10;
  char *where = malloc(len);
  if (!where) return 1;
  where[0] = 0;
  for (int i = 0; i < n_wheres; i++) {
    if (n_wheres == 1) {
      strcat(where, wheres[i]);
      break;
    }
    if (i) strcat(where, " and ");
    strcat(where, "(");
    strcat(where, wheres[i]);
    strcat(where, ")");
  }
  char cmd[64];
  snprintf(cmd, sizeof cmd, "table %s", sub);
  paimon_error err = {0};
  paimon_catalog *cat = NULL;
  paimon_table *t = NULL;
  paimon_write_builder *wb = NULL;
  int64_t rows = 0, snap = -1;
  int exit_code = cli_open_table(cmd, warehouse, ident, &cat, &t);
  int rc = PAIMON_OK;
  if (!exit_code) rc = paimon_write_builder_new(t, 0, opts, (size_t)n_opts, &wb, &err);
  if (!exit_code && !rc && is_update)
    rc = paimon_write_builder_update_where(wb, where, sets, (size_t)n_sets, &rows, &snap, &err);
  else if (!exit_code && !rc)
    rc = paimon_write_builder_delete_where(wb, where, &rows, &snap, &err);
  if (!exit_code && rc) exit_code = cli_fail(cmd, &err);
  if (!exit_code && snap >= 0)
    printf("%s %lld rows: snapshot %lld\n", is_update ? "updated" : "deleted", (long long)rows, (long long)snap);
  else if (!exit_code)
    printf("%s 0 rows: nothing matched, no snapshot\n", is_update ? "updated" : "deleted");
  paimon_write_builder_free(wb);
  paimon_table_free(t);
  paimon_catalog_free(cat);
  free(where);
  return exit_code;
}
