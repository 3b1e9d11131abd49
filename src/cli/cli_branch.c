/* `paimon branch create|delete|list|fast-forward DB.T ...` through the public branch API
 * (paimon/branch.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "paimon/paimon.h"
#include "paimon/branch.h"

static void usage(FILE *out) {
  fputs("usage: paimon [-w WAREHOUSE] branch <subcommand> DB.T ...\n"
        "\n"
        "  branch create DB.T NAME [--tag T | --snapshot N | --snapshot-id N] [--ignore-if-exists]\n"
        "      a new branch: empty (the table's schemas only), or from tag T / snapshot N (that\n"
        "      snapshot, its schemas, and the tag)\n"
        "  branch delete DB.T NAME         delete a branch (its metadata; data files stay for\n"
        "                                  `table remove-orphan-files`)\n"
        "  branch list DB.T                one branch name a line, sorted (main not listed)\n"
        "  branch fast-forward DB.T NAME   the table becomes branch NAME: its snapshots from the\n"
        "                                  branch's earliest on, schemas and tags replaced by the branch's\n"
        "\n"
        "DB.T may name a branch as DB.T$branch_B (create from / fast-forward that branch). Read or write a\n"
        "branch as DB.T$branch_NAME.\n",
        out);
}

int cli_branch_main(const char *warehouse, int argc, char **argv) {
  if (cli_wants_help(argc, argv) || argc < 2) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const char *sub = argv[1];
  char cmd[64];
  snprintf(cmd, sizeof cmd, "branch %s", sub);
  const char *pos[2] = {0};
  const char *tag = NULL;
  int n_pos = 0, ignore = 0, from = 0;
  int64_t snap = -1;
  int is_create = !strcmp(sub, "create");
  int want = is_create || !strcmp(sub, "delete") || !strcmp(sub, "fast-forward") ? 2 : !strcmp(sub, "list") ? 1 : -1;
  if (want < 0) {
    fprintf(stderr, "paimon branch: unknown subcommand '%s' (create, delete, list, fast-forward)\n", sub);
    return 2;
  }
  for (int i = 2; i < argc; i++) {
    const char *s = argv[i];
    if (is_create && (!strcmp(s, "--snapshot") || !strcmp(s, "--snapshot-id"))) {
      if (i + 1 >= argc || cli_parse_int64(argv[i + 1], 0, &snap)) {
        fprintf(stderr, "paimon branch create: %s needs a snapshot id (a non-negative integer)\n", s);
        return 2;
      }
      i++;
      from++;
    } else if (is_create && !strcmp(s, "--tag")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "paimon branch create: --tag needs a tag name\n");
        return 2;
      }
      tag = argv[++i];
      from++;
    } else if (is_create && !strcmp(s, "--ignore-if-exists")) {
      ignore = 1;
    } else if (cli_positional(cmd, s, pos, &n_pos, want)) {
      return 2;
    }
  }
  if (n_pos < want) {
    fprintf(stderr, "paimon branch %s: missing %s\n", sub, n_pos == 0 ? "table (DB.T)" : "branch name");
    return 2;
  }
  if (from > 1) {
    fprintf(stderr, "paimon branch create: give at most one of --tag T, --snapshot N\n");
    return 2;
  }
  paimon_catalog *cat = NULL;
  paimon_table *t = NULL;
  int code = cli_open_table(cmd, warehouse, pos[0], &cat, &t);
  paimon_error err = {0};
  int rc = 0;
  if (!code) {
    if (is_create) {
      rc = paimon_table_create_branch(t, pos[1], tag, snap, ignore, &err);
    } else if (!strcmp(sub, "delete")) {
      rc = paimon_table_delete_branch(t, pos[1], &err);
    } else if (!strcmp(sub, "fast-forward")) {
      rc = paimon_table_fast_forward(t, pos[1], &err);
    } else {
      char **names = NULL;
      size_t n = 0;
      rc = paimon_table_list_branches(t, &names, &n, &err);
      for (size_t i = 0; !rc && i < n; i++) printf("%s\n", names[i]);
      paimon_free_strings(names, n);
    }
  }
  if (rc) code = cli_fail(cmd, &err);
  paimon_table_free(t);
  paimon_catalog_free(cat);
  return code;
}
