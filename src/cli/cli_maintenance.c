/* Partition expiry and manifest compaction (public API only, paimon/maintenance.h):
 *   paimon table expire-partitions DB.T [--expiration-time D] [--timestamp-formatter F]
 *          [--timestamp-pattern P] [--expire-strategy S] [--max-expires N] [--dry-run]
 *   paimon table compact-manifests DB.T */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_write.h"
#include "paimon/maintenance.h"
#include "paimon/paimon.h"

static void expire_usage(FILE *out) {
  fputs("usage: paimon [-w WAREHOUSE] table expire-partitions DB.T [--expiration-time D]\n"
        "           [--timestamp-formatter F] [--timestamp-pattern P] [--expire-strategy S]\n"
        "           [--max-expires N] [--dry-run]\n"
        "\n"
        "Drops the partitions of the latest snapshot that expired (Java's expire_partitions): their\n"
        "time is before now minus D (a duration such as '7 d', '12 h'; default: the table's\n"
        "partition.expiration-time). S = values-time (default: the time parsed from the partition\n"
        "values: P picks them, e.g. '$year-$month-$day', default the first partition field; F is a\n"
        "java.time pattern such as 'yyyyMMdd', default 'yyyy-MM-dd[ HH:mm:ss]') or update-time (the\n"
        "newest file creation time of the partition). At most N partitions (default the table's\n"
        "partition.expiration-max-num, 100), the first in the order of their values, go in one\n"
        "OVERWRITE snapshot that deletes their files. Prints each expired partition (k=v, ...) or\n"
        "'No expired partitions.'; --dry-run prints them and commits nothing.\n",
        out);
}

typedef struct printed {
  uint64_t n;
} printed;

static void on_partition(void *ctx, const char *spec) {
  ((printed *)ctx)->n++;
  printf("%s\n", spec);
}

/* cli_open_table for `paimon table SUB`. */
static int open_table(const char *sub, const char *warehouse, const char *ident, paimon_catalog **cat,
                      paimon_table **t) {
  char cmd[64];
  snprintf(cmd, sizeof cmd, "table %s", sub);
  return cli_open_table(cmd, warehouse, ident, cat, t);
}

static int expire_main(const char *warehouse, int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    expire_usage(stdout);
    return 0;
  }
  static const char *const WITH_VALUE[] = {"--expiration-time", "--timestamp-formatter", "--timestamp-pattern",
                                           "--expire-strategy", "--max-expires"};
  const char *vals[5] = {NULL, NULL, NULL, NULL, NULL};
  const char *ident = NULL;
  int dry = 0;
  for (int i = 2; i < argc; i++) {
    const char *s = argv[i];
    int k = 0;
    while (k < 5 && strcmp(s, WITH_VALUE[k])) k++;
    if (k < 5 && i + 1 < argc) vals[k] = argv[++i];
    else if (!strcmp(s, "--dry-run")) dry = 1;
    else if (s[0] == '-' && s[1]) {
      fprintf(stderr, "paimon table expire-partitions: unknown option %s%s\n", s, k < 5 ? " (its value is missing)" : "");
      return 2;
    } else if (!ident) ident = s;
    else {
      fprintf(stderr, "paimon table expire-partitions: unexpected argument '%s'\n", s);
      return 2;
    }
  }
  if (!ident) {
    fprintf(stderr, "paimon table expire-partitions: missing table (DB.T)\n");
    return 2;
  }
  paimon_expire_partitions_options o;
  memset(&o, 0, sizeof o);
  o.expiration_time = vals[0];
  o.timestamp_formatter = vals[1];
  o.timestamp_pattern = vals[2];
  o.expire_strategy = vals[3];
  o.dry_run = dry;
  if (vals[4]) {
    char *end = NULL;
    long long n = strtoll(vals[4], &end, 10);
    if (!*vals[4] || *end || n <= 0 || n > INT32_MAX) {
      fprintf(stderr, "paimon table expire-partitions: --max-expires '%s' is not a positive 32-bit integer\n",
              vals[4]);
      return 2;
    }
    o.max_expires = (int32_t)n;
  }
  paimon_catalog *cat = NULL;
  paimon_table *t = NULL;
  int rc = open_table("expire-partitions", warehouse, ident, &cat, &t);
  if (!rc) {
    printed p = {0};
    paimon_expire_partitions_result r;
    paimon_error err = {0};
    if (paimon_table_expire_partitions(t, &o, on_partition, &p, &r, &err))
      rc = cli_write_fail("expire-partitions", &err);
    else if (!r.expired)
      printf("No expired partitions.\n");
    else if (dry)
      fprintf(stderr, "paimon table expire-partitions: dry run: %llu of %llu partitions would expire, nothing "
                      "committed\n", (unsigned long long)r.expired, (unsigned long long)r.partitions);
    else
      fprintf(stderr, "paimon table expire-partitions: %llu of %llu partitions expired in snapshot %lld\n",
              (unsigned long long)r.expired, (unsigned long long)r.partitions, (long long)r.snapshot_id);
  }
  paimon_table_free(t);
  paimon_catalog_free(cat);
  return rc;
}

static void compact_usage(FILE *out) {
  fputs("usage: paimon [-w WAREHOUSE] table compact-manifests DB.T\n"
        "\n"
        "Rewrites the data manifests of the latest snapshot as a full manifest compaction (Java's\n"
        "compact_manifest: small manifests merged, DELETE entries cancelled with their ADDs) in one\n"
        "COMPACT snapshot without data change. Prints 'manifests BEFORE -> AFTER' and 'snapshot N'\n"
        "(or 'Nothing to compact.').\n",
        out);
}

static int compact_main(const char *warehouse, int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    compact_usage(stdout);
    return 0;
  }
  const char *ident = NULL;
  for (int i = 2; i < argc; i++) {
    const char *s = argv[i];
    if (s[0] == '-' && s[1]) {
      fprintf(stderr, "paimon table compact-manifests: unknown option %s\n", s);
      return 2;
    } else if (!ident) ident = s;
    else {
      fprintf(stderr, "paimon table compact-manifests: unexpected argument '%s'\n", s);
      return 2;
    }
  }
  if (!ident) {
    fprintf(stderr, "paimon table compact-manifests: missing table (DB.T)\n");
    return 2;
  }
  paimon_catalog *cat = NULL;
  paimon_table *t = NULL;
  int rc = open_table("compact-manifests", warehouse, ident, &cat, &t);
  if (!rc) {
    paimon_compact_manifests_result r;
    paimon_error err = {0};
    if (paimon_table_compact_manifests(t, &r, &err)) rc = cli_write_fail("compact-manifests", &err);
    else if (r.snapshot_id < 0) printf("Nothing to compact.\n");
    else
      printf("manifests %llu -> %llu\nsnapshot %lld\n", (unsigned long long)r.manifests_before,
             (unsigned long long)r.manifests_after, (long long)r.snapshot_id);
  }
  paimon_table_free(t);
  paimon_catalog_free(cat);
  return rc;
}

int cli_is_maintenance_command(const char *sub) {
  return !strcmp(sub, "expire-partitions") || !strcmp(sub, "compact-manifests");
}

int cli_maintenance_main(const char *warehouse, int argc, char **argv) {
  const char *sub = argc > 1 ? argv[1] : "";
  if (!strcmp(sub, "expire-partitions")) return expire_main(warehouse, argc, argv);
  return compact_main(warehouse, argc, argv);
}
