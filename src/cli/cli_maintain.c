/* Table maintenance commands (public API only, paimon/cleanup.h, paimon/expire.h):
 *   paimon table remove-orphan-files DB.T [--older-than TS] [--dry-run]
 *   paimon table expire-snapshots DB.T [--retain-max N] [--retain-min N] [--older-than TS]
 *                                      [--max-deletes N] [--dry-run] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/cli_write.h"
#include "paimon/cleanup.h"
#include "paimon/expire.h"
#include "paimon/paimon.h"

/* ---- progress on stderr for work over a second (cli.h) ---- */
static double secs_since(const struct timespec *a) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - a->tv_sec) + (double)(now.tv_nsec - a->tv_nsec) / 1e9;
}

void cli_on_progress(void *ctx, const char *phase, uint64_t done, uint64_t total) {
  cli_progress *p = ctx;
  if (secs_since(&p->start) < 1.0 || (p->printed && secs_since(&p->last) < 1.0)) return;
  clock_gettime(CLOCK_MONOTONIC, &p->last);
  p->printed = 1;
  if (total) fprintf(stderr, "paimon table %s: %s %llu / %llu\n", p->cmd, phase, (unsigned long long)done,
                     (unsigned long long)total);
  else fprintf(stderr, "paimon table %s: %s %llu\n", p->cmd, phase, (unsigned long long)done);
}

static void on_file(void *ctx, const char *path, uint64_t size) {
  cli_progress *p = ctx;
  printf("%s %s %llu\n", p->dry_run ? "would delete" : "deleted", path, (unsigned long long)size);
}

/* "YYYY-MM-DD[ HH:MM:SS[.fff]]" in the local time zone (Java's DateTimeUtils.parseTimestampData
 * with the default zone), or milliseconds since the epoch. -1 when malformed. */
static int64_t parse_ts(const char *s) {
  char *end = NULL;
  if (*s && strspn(s, "0123456789") == strlen(s)) return (int64_t)strtoll(s, &end, 10);
  int y, mo, d, h = 0, mi = 0, sec = 0, n = 0;
  int ms = 0;
  if (sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3) return -1;
  const char *r = s + n;
  if (*r == ' ' || *r == 'T') {
    int m2 = 0;
    if (sscanf(r + 1, "%2d:%2d:%2d%n", &h, &mi, &sec, &m2) != 3) return -1;
    r += 1 + m2;
    if (*r == '.') {
      int k = 0;
      r++;
      while (*r >= '0' && *r <= '9') {
        if (k < 3) ms = ms * 10 + (*r - '0');
        k++;
        r++;
      }
      for (; k < 3; k++) ms *= 10;
    }
  }
  if (*r) return -1;
  struct tm tm;
  memset(&tm, 0, sizeof tm);
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = sec;
  tm.tm_isdst = -1;
  time_t t = mktime(&tm);
  if (t == (time_t)-1) return -1;
  return (int64_t)t * 1000 + ms;
}

/* cli_open_table for `paimon table SUB`. */
static int open_table(const char *sub, const char *warehouse, const char *ident, paimon_catalog **cat,
                      paimon_table **t) {
  char cmd[64];
  snprintf(cmd, sizeof cmd, "table %s", sub);
  return cli_open_table(cmd, warehouse, ident, cat, t);
}

static void orphan_usage(FILE *out) {
  fputs("usage: paimon [-w WAREHOUSE] table remove-orphan-files DB.T [--older-than TS] [--dry-run]\n"
        "\n"
        "Deletes the files of the table directory that no snapshot, tag or changelog of any branch\n"
        "references and that were last modified before TS ('YYYY-MM-DD HH:MM:SS[.fff]' in the local\n"
        "time zone, or milliseconds since the epoch; default: now minus one day; TS must be in the\n"
        "past, since files being written are not referenced yet). Looks in manifest/, index/,\n"
        "statistics/, the bucket directories, the data-file.external-paths roots and, for leftovers\n"
        "of interrupted commits, snapshot/ and changelog/. A referenced file that cannot be read\n"
        "stops everything before the first deletion. Prints each file ('deleted PATH SIZE', with\n"
        "--dry-run 'would delete PATH SIZE') and then 'files N' and 'bytes N'.\n",
        out);
}

static int orphan_main(const char *warehouse, int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    orphan_usage(stdout);
    return 0;
  }
  const char *ident = NULL, *older = NULL;
  int dry = 0;
  for (int i = 2; i < argc; i++) {
    const char *s = argv[i];
    if (!strcmp(s, "--older-than") && i + 1 < argc) older = argv[++i];
    else if (!strcmp(s, "--dry-run")) dry = 1;
    else if (s[0] == '-' && s[1]) {
      fprintf(stderr, "paimon table remove-orphan-files: unknown option %s%s\n", s,
              !strcmp(s, "--older-than") ? " (its value is missing)" : "");
      return 2;
    } else if (!ident) ident = s;
    else {
      fprintf(stderr, "paimon table remove-orphan-files: unexpected argument '%s'\n", s);
      return 2;
    }
  }
  if (!ident) {
    fprintf(stderr, "paimon table remove-orphan-files: missing table (DB.T)\n");
    return 2;
  }
  int64_t older_ms = 0;
  if (older) {
    older_ms = parse_ts(older);
    if (older_ms <= 0) {
      fprintf(stderr, "paimon table remove-orphan-files: --older-than '%s' is not 'YYYY-MM-DD HH:MM:SS' or epoch "
                      "milliseconds\n", older);
      return 2;
    }
  }
  paimon_catalog *cat = NULL;
  paimon_table *t = NULL;
  int rc = open_table("remove-orphan-files", warehouse, ident, &cat, &t);
  if (!rc) {
    cli_progress p;
    memset(&p, 0, sizeof p);
    p.cmd = "remove-orphan-files";
    p.dry_run = dry;
    clock_gettime(CLOCK_MONOTONIC, &p.start);
    paimon_orphan_result r;
    paimon_error err = {0};
    if (paimon_table_remove_orphan_files(t, older_ms, dry, on_file, cli_on_progress, &p, &r, &err))
      rc = cli_write_fail("remove-orphan-files", &err);
    else {
      printf("files %llu\nbytes %llu\n", (unsigned long long)r.files, (unsigned long long)r.bytes);
      if (r.delete_failed) {
        fprintf(stderr, "paimon table remove-orphan-files: %llu files could not be deleted\n",
                (unsigned long long)r.delete_failed);
        rc = 1;
      }
    }
  }
  paimon_table_free(t);
  paimon_catalog_free(cat);
  return rc;
}

static void expire_usage(FILE *out) {
  fputs("usage: paimon [-w WAREHOUSE] table expire-snapshots DB.T [--retain-max N] [--retain-min N]\n"
        "                                  [--older-than TS] [--max-deletes N] [--dry-run]\n"
        "\n"
        "Expires old snapshots as Java's expire_snapshots procedure: keeps at most --retain-max and at\n"
        "least --retain-min snapshots, expires the ones in between that were committed before TS\n"
        "('YYYY-MM-DD HH:MM:SS[.fff]' in the local time zone, or milliseconds since the epoch), at most\n"
        "--max-deletes per run; consumers pin the snapshots they still read. Unset values come from the\n"
        "table's options (snapshot.num-retained.max / .min, snapshot.time-retained, snapshot.expire.limit).\n"
        "Then deletes the data, changelog and metadata files no retained snapshot, tag or branch uses,\n"
        "and long-lived changelogs beyond changelog.num-retained.* / changelog.time-retained.\n"
        "DB.T may name a branch as DB.T$branch_B. --dry-run changes nothing and prints what would go.\n"
        "Prints 'snapshots N', 'changelogs-written N', 'changelogs-expired N', 'data-files N',\n"
        "'metadata-files N', 'directories N' and 'earliest-snapshot N' (-1: none).\n",
        out);
}

static int parse_count(const char *cmd, const char *opt, const char *v, int min, int32_t *out) {
  char *end = NULL;
  long long x = strtoll(v, &end, 10);
  if (!*v || *end || x < min || x > INT32_MAX) {
    fprintf(stderr, "paimon table %s: %s needs an integer >= %d, got '%s'\n", cmd, opt, min, v);
    return 2;
  }
  *out = (int32_t)x;
  return 0;
}

static int expire_main(const char *warehouse, int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    expire_usage(stdout);
    return 0;
  }
  const char *cmd = "expire-snapshots";
  paimon_expire_options o;
  paimon_expire_options_init(&o);
  const char *ident = NULL;
  for (int i = 2; i < argc; i++) {
    const char *s = argv[i];
    int has = i + 1 < argc;
    if (!strcmp(s, "--retain-max") && has) {
      if (parse_count(cmd, s, argv[++i], 1, &o.retain_max)) return 2;
    } else if (!strcmp(s, "--retain-min") && has) {
      if (parse_count(cmd, s, argv[++i], 1, &o.retain_min)) return 2;
    } else if (!strcmp(s, "--max-deletes") && has) {
      if (parse_count(cmd, s, argv[++i], 1, &o.max_deletes)) return 2;
    } else if (!strcmp(s, "--older-than") && has) {
      o.older_than_millis = parse_ts(argv[++i]);
      if (o.older_than_millis < 0) {
        fprintf(stderr, "paimon table %s: --older-than '%s' is not 'YYYY-MM-DD HH:MM:SS' or epoch milliseconds\n",
                cmd, argv[i]);
        return 2;
      }
    } else if (!strcmp(s, "--dry-run")) {
      o.dry_run = 1;
    } else if (s[0] == '-' && s[1]) {
      fprintf(stderr, "paimon table %s: unknown option %s%s\n", cmd, s,
              strcmp(s, "--retain-max") && strcmp(s, "--retain-min") && strcmp(s, "--max-deletes") &&
                      strcmp(s, "--older-than")
                  ? ""
                  : " (its value is missing)");
      return 2;
    } else if (!ident) {
      ident = s;
    } else {
      fprintf(stderr, "paimon table %s: unexpected argument '%s'\n", cmd, s);
      return 2;
    }
  }
  if (!ident) {
    fprintf(stderr, "paimon table %s: missing table (DB.T)\n", cmd);
    return 2;
  }
  paimon_catalog *cat = NULL;
  paimon_table *t = NULL;
  int rc = open_table(cmd, warehouse, ident, &cat, &t);
  if (!rc) {
    cli_progress p;
    memset(&p, 0, sizeof p);
    p.cmd = cmd;
    clock_gettime(CLOCK_MONOTONIC, &p.start);
    paimon_expire_result r;
    paimon_error err = {0};
    int st = paimon_table_expire_snapshots(t, &o, cli_on_progress, &p, &r, &err);
    if (st && !(st == PAIMON_ERR_IO && r.delete_failed)) {
      rc = cli_write_fail(cmd, &err);
    } else {
      if (o.dry_run) fprintf(stderr, "paimon table %s: dry run, nothing changed\n", cmd);
      printf("snapshots %llu\nchangelogs-written %llu\nchangelogs-expired %llu\ndata-files %llu\n"
             "metadata-files %llu\ndirectories %llu\nearliest-snapshot %lld\n",
             (unsigned long long)r.snapshots_expired, (unsigned long long)r.changelogs_written,
             (unsigned long long)r.changelogs_expired, (unsigned long long)r.data_files_deleted,
             (unsigned long long)r.meta_files_deleted, (unsigned long long)r.dirs_deleted,
             (long long)r.earliest_snapshot);
      if (st) {
        fprintf(stderr, "paimon table %s: %llu files could not be deleted: %s\n", cmd,
                (unsigned long long)r.delete_failed, err.message);
        rc = 1;
      }
    }
  }
  paimon_table_free(t);
  paimon_catalog_free(cat);
  return rc;
}

int cli_is_maintain_command(const char *sub) {
  return !strcmp(sub, "remove-orphan-files") || !strcmp(sub, "expire-snapshots");
}

int cli_maintain_main(const char *warehouse, int argc, char **argv) {
  const char *sub = argc > 1 ? argv[1] : "";
  if (!strcmp(sub, "remove-orphan-files")) return orphan_main(warehouse, argc, argv);
  if (!strcmp(sub, "expire-snapshots")) return expire_main(warehouse, argc, argv);
  fprintf(stderr, "paimon table: unknown maintenance command '%s'\n", sub);
  return 2;
}
