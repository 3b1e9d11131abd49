/* Table maintenance commands (public API only, paimon/cleanup.h):
 *   paimon table remove-orphan-files DB.T [--older-than TS] [--dry-run] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/cli_write.h"
#include "paimon/cleanup.h"
#include "paimon/paimon.h"

/* ---- progress on stderr for work over a second ---- */
typedef struct cli_progress {
  const char *cmd;
  struct timespec start, last;
  int printed;
  int dry_run;
} cli_progress;

static double secs_since(const struct timespec *a) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - a->tv_sec) + (double)(now.tv_nsec - a->tv_nsec) / 1e9;
}

static void on_progress(void *ctx, const char *phase, uint64_t done, uint64_t total) {
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

static int open_table(const char *cmd, const char *warehouse, const char *ident, paimon_catalog **cat,
                      paimon_table **t) {
  int rc = cli_open_catalog(warehouse, cat);
  if (rc) return rc;
  paimon_error err = {0};
  if (paimon_catalog_get_table(*cat, ident, t, &err)) return cli_write_fail(cmd, &err);
  return 0;
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
    if (paimon_table_remove_orphan_files(t, older_ms, dry, on_file, on_progress, &p, &r, &err))
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

int cli_is_maintain_command(const char *sub) { return !strcmp(sub, "remove-orphan-files"); }

int cli_maintain_main(const char *warehouse, int argc, char **argv) {
  const char *sub = argc > 1 ? argv[1] : "";
  if (!strcmp(sub, "remove-orphan-files")) return orphan_main(warehouse, argc, argv);
  fprintf(stderr, "paimon table: unknown maintenance command '%s'\n", sub);
  return 2;
}
