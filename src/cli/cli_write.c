/* `paimon table import | truncate | drop-partition`: argument parsing, truncate and drop-partition
 * (import: cli_import.c). Public API only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_write.h"
#include "paimon/paimon.h"
#include "paimon/write.h"

static void usage(FILE *out) {
  fputs("usage: paimon [-w WAREHOUSE] table truncate DB.T [--partition k=v,... ...]\n"
        "       paimon [-w WAREHOUSE] table drop-partition DB.T --partition k=v,... [--partition ...]\n"
        "\n"
        "truncate removes every row (an OVERWRITE snapshot), or the rows of each --partition spec given.\n"
        "drop-partition removes the partitions matching each --partition spec (at least one).\n"
        "A spec may name some of the partition keys (a partial spec matches every partition with those\n"
        "values). Values are in the text form `table read` prints (partition.default-name for null).\n"
        "Prints the snapshot id written. The warehouse is -w PATH or $PAIMON_WAREHOUSE.\n",
        out);
}

int cli_write_fail(const char *sub, const paimon_error *err) {
  char cmd[64];
  snprintf(cmd, sizeof cmd, "table %s", sub);
  return cli_fail(cmd, err);
}

/* "k=v,k2=v2" into options pointing into the (modified) text; returns the count, or -1 (message printed). */
int cli_parse_spec(const char *sub, char *text, paimon_option *out, int cap) {
  int n = 0;
  for (char *p = text; p;) {
    char *comma = strchr(p, ',');
    if (comma) *comma = 0;
    char *eq = strchr(p, '=');
    if (!eq || eq == p || n >= cap) {
      fprintf(stderr, "paimon table %s: --partition wants k=v[,k2=v2...], got '%s'\n", sub, p);
      return -1;
    }
    *eq = 0;
    out[n].key = p;
    out[n].value = eq + 1;
    n++;
    p = comma ? comma + 1 : NULL;
  }
  return n;
}


static int parse_args(int argc, char **argv, cli_write_args *a) {
  memset(a, 0, sizeof *a);
  a->sub = argv[1];
  int is_import = !strcmp(a->sub, "import");
  for (int i = 2; i < argc; i++) {
    const char *s = argv[i];
    int has_value = i + 1 < argc;
    if (!strcmp(s, "--partition") && has_value && a->n_specs < MAX_ITEMS) {
      a->specs[a->n_specs++] = argv[++i];
    } else if (is_import && !strcmp(s, "--format") && has_value) {
      a->format = argv[++i];
    } else if (is_import && !strcmp(s, "--row-kind-column") && has_value) {
      a->row_kind_column = argv[++i];
    } else if (is_import && !strcmp(s, "--overwrite")) {
      a->overwrite = 1;
    } else if (is_import && !strcmp(s, "--option") && has_value && a->n_options < MAX_ITEMS) {
      char *kv = argv[++i], *eq = strchr(kv, '=');
      if (!eq || eq == kv) {
        fprintf(stderr, "paimon table %s: --option wants k=v, got '%s'\n", a->sub, kv);
        return 2;
      }
      *eq = 0;
      a->options[a->n_options++] = (paimon_option){kv, eq + 1};
    } else if (s[0] == '-' && s[1]) {
      fprintf(stderr, "paimon table %s: unknown option %s%s\n", a->sub, s,
              !strncmp(s, "--", 2) && !has_value ? " (or its value is missing)" : "");
      return 2;
    } else if (!a->ident) {
      a->ident = s;
    } else if (is_import && a->n_files < MAX_ITEMS) {
      a->files[a->n_files++] = s;
    } else {
      fprintf(stderr, "paimon table %s: unexpected argument '%s'\n", a->sub, s);
      return 2;
    }
  }
  if (!a->ident) {
    fprintf(stderr, "paimon table %s: missing table (DB.T)\n", a->sub);
    return 2;
  }
  if (is_import && !a->n_files) {
    fprintf(stderr, "paimon table import: no input file (FILE..., - for stdin)\n");
    return 2;
  }
  if (is_import && a->n_specs > 1) {
    fprintf(stderr, "paimon table import: one --partition spec at most\n");
    return 2;
  }
  if (!strcmp(a->sub, "drop-partition") && !a->n_specs) {
    fprintf(stderr, "paimon table drop-partition: at least one --partition k=v,... is needed\n");
    return 2;
  }
  return 0;
}

static int open_table(const char *warehouse, const cli_write_args *a, paimon_catalog **cat, paimon_table **t) {
  char cmd[64];
  snprintf(cmd, sizeof cmd, "table %s", a->sub);
  return cli_open_table(cmd, warehouse, a->ident, cat, t);
}

static int cmd_truncate(paimon_table *t, cli_write_args *a) {
  paimon_error err = {0};
  static paimon_option store[MAX_ITEMS][MAX_ITEMS];
  const paimon_option *specs[MAX_ITEMS];
  size_t n_fields[MAX_ITEMS];
  for (int i = 0; i < a->n_specs; i++) {
    int n = cli_parse_spec(a->sub, a->specs[i], store[i], MAX_ITEMS);
    if (n < 0) return 2;
    specs[i] = store[i];
    n_fields[i] = (size_t)n;
  }
  paimon_write_builder *wb = NULL;
  paimon_table_commit *c = NULL;
  int64_t snap = -1;
  int rc = paimon_write_builder_new(t, 0, NULL, 0, &wb, &err);
  if (!rc) rc = paimon_write_builder_new_commit(wb, &c, &err);
  if (!rc && a->n_specs)
    rc = paimon_table_commit_truncate_partitions(c, specs, n_fields, (size_t)a->n_specs,
                                                 PAIMON_BATCH_COMMIT_IDENTIFIER, &snap, &err);
  else if (!rc)
    rc = paimon_table_commit_truncate_table(c, PAIMON_BATCH_COMMIT_IDENTIFIER, &snap, &err);
  int exit_code = rc ? cli_write_fail(a->sub, &err) : 0;
  if (!rc && snap >= 0) printf("snapshot %lld\n", (long long)snap);
  else if (!rc) printf("nothing to remove\n");
  paimon_table_commit_free(c);
  paimon_write_builder_free(wb);
  return exit_code;
}

int cli_is_write_command(const char *sub) {
  return !strcmp(sub, "import") || !strcmp(sub, "truncate") || !strcmp(sub, "drop-partition");
}

int cli_write_main(const char *warehouse, int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    if (!strcmp(argv[1], "import")) cli_import_usage(stdout);
    else usage(stdout);
    return 0;
  }
  cli_write_args a;
  int rc = parse_args(argc, argv, &a);
  if (rc) return rc;
  paimon_catalog *cat = NULL;
  paimon_table *t = NULL;
  rc = open_table(warehouse, &a, &cat, &t);
  if (!rc) rc = !strcmp(a.sub, "import") ? cli_import_run(t, &a) : cmd_truncate(t, &a);
  paimon_table_free(t);
  paimon_catalog_free(cat);
  return rc;
}
