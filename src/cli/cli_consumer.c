/* `paimon consumer list|reset|delete DB.T ...` through the public API (paimon/expire.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "paimon/expire.h"
#include "paimon/paimon.h"

static void usage(FILE *out) {
  fputs("usage: paimon [-w WAREHOUSE] consumer <subcommand> DB.T ...\n"
        "\n"
        "  consumer list DB.T                          one line per consumer: ID<TAB>NEXT_SNAPSHOT, by id\n"
        "  consumer reset DB.T ID --next-snapshot N    set (or create) consumer ID to read snapshot N next\n"
        "                                              (N must exist; Java's reset_consumer)\n"
        "  consumer delete DB.T ID                     delete consumer ID\n"
        "\n"
        "Consumers (consumer/consumer-ID) pin the snapshots a streaming reader still needs: snapshot\n"
        "expiry keeps every snapshot from the smallest next snapshot on. DB.T may name a branch as\n"
        "DB.T$branch_B. --next-snapshot-id is accepted for --next-snapshot.\n",
        out);
}

int cli_consumer_main(const char *warehouse, int argc, char **argv) {
  if (cli_wants_help(argc, argv) || argc < 2) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const char *sub = argv[1];
  char cmd[64];
  snprintf(cmd, sizeof cmd, "consumer %s", sub);
  int want = !strcmp(sub, "list") ? 1 : !strcmp(sub, "reset") || !strcmp(sub, "delete") ? 2 : -1;
  if (want < 0) {
    fprintf(stderr, "paimon consumer: unknown subcommand '%s' (list, reset, delete)\n", sub);
    return 2;
  }
  int is_reset = !strcmp(sub, "reset");
  const char *pos[2] = {0};
  int n_pos = 0;
  int64_t next = -1;
  for (int i = 2; i < argc; i++) {
    const char *s = argv[i];
    if (is_reset && (!strcmp(s, "--next-snapshot") || !strcmp(s, "--next-snapshot-id"))) {
      int64_t v = -1;
      if (i + 1 >= argc || cli_parse_int64(argv[i + 1], 1, &v)) {
        fprintf(stderr, "paimon consumer reset: %s needs a snapshot id (a positive integer)\n", s);
        return 2;
      }
      next = v;
      i++;
    } else if (cli_positional(cmd, s, pos, &n_pos, want)) {
      return 2;
    }
  }
  if (n_pos < want) {
    fprintf(stderr, "paimon consumer %s: missing %s\n", sub, n_pos == 0 ? "table (DB.T)" : "consumer id");
    return 2;
  }
  if (is_reset && next < 0) {
    fprintf(stderr, "paimon consumer reset: missing --next-snapshot N (to delete a consumer: consumer delete)\n");
    return 2;
  }
  paimon_catalog *cat = NULL;
  paimon_table *t = NULL;
  int code = cli_open_table(cmd, warehouse, pos[0], &cat, &t);
  paimon_error err = {0};
  int rc = 0;
  if (!code) {
    if (is_reset) {
      rc = paimon_table_reset_consumer(t, pos[1], next, &err);
    } else if (!strcmp(sub, "delete")) {
      rc = paimon_table_delete_consumer(t, pos[1], &err);
    } else {
      paimon_consumer *cs = NULL;
      size_t n = 0;
      rc = paimon_table_list_consumers(t, &cs, &n, &err);
      for (size_t i = 0; !rc && i < n; i++) printf("%s\t%lld\n", cs[i].id, (long long)cs[i].next_snapshot);
      paimon_consumers_free(cs, n);
    }
  }
  if (rc) code = cli_fail(cmd, &err);
  paimon_table_free(t);
  paimon_catalog_free(cat);
  return code;
}
