/*
 * Shared by the CLI maintenance tests (test_cli_tag, test_cli_rollback, test_cli_branch): a
 * writable copy of a Java-written fixture table in a temporary warehouse, the `paimon` CLI run
 * on it, and "every snapshot reads as before": the rows paimon-table read returns for each
 * snapshot recorded before an operation, compared (as multisets) with what it returns after.
 *
 * Header-only (static functions) like the other tests/support helpers; needs
 * support/oracle_table.h and support/cli_run.h (included here).
 */
#ifndef PM_TESTS_SUPPORT_CLI_FIXTURE_H
#define PM_TESTS_SUPPORT_CLI_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/cli_run.h"
#include "support/oracle_table.h"

#define CF_CLI PAIMON_BINARY_DIR "/paimon"
#define CF_MAX_SNAPSHOTS 16

typedef struct cf_fixture {
  char wh[256];                       /* the temporary warehouse */
  char dir[768];                      /* the table directory <wh>/<T>.db/<T> */
  char ident[300];                    /* "<T>.<T>" (database and table are named alike) */
  json_t *rows[CF_MAX_SNAPSHOTS + 1]; /* paimon-table read of snapshot i (NULL: not recorded) */
} cf_fixture;

/* Copies fixtures/warehouse/parquet/<table>.db/<table> into a new /tmp/<prefix>_XXXXXX
 * warehouse (made writable). 0 on success. */
static inline int cf_setup(cf_fixture *f, const char *prefix, const char *table) {
  memset(f, 0, sizeof *f);
  snprintf(f->wh, sizeof f->wh, "/tmp/%s_XXXXXX", prefix);
  if (!mkdtemp(f->wh)) return -1;
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "mkdir -p '%s/%s.db' && cp -r '%s/fixtures/warehouse/parquet/%s.db/%s' '%s/%s.db/' && chmod -R u+w '%s'",
           f->wh, table, PAIMON_SHARED_DIR, table, table, f->wh, table, f->wh);
  if (system(cmd)) return -1;
  snprintf(f->dir, sizeof f->dir, "%s/%s.db/%s", f->wh, table, table);
  snprintf(f->ident, sizeof f->ident, "%s.%s", table, table);
  return 0;
}

/* Releases the recorded rows; removes the warehouse when remove is set. */
static inline int cf_teardown(cf_fixture *f, int remove) {
  for (int i = 0; i <= CF_MAX_SNAPSHOTS; i++) {
    json_decref(f->rows[i]);
    f->rows[i] = NULL;
  }
  if (!remove) return 0;
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->wh);
  return system(cmd);
}

/* `paimon -w WH ARGS 2>&1`; *out (malloc'd) gets the output. Returns the exit status. */
static inline int cf_cli(const cf_fixture *f, const char *args, char **out) {
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "'%s' -w '%s' %s 2>&1", CF_CLI, f->wh, args);
  return run(cmd, out);
}

/* Contents of <table dir>/<rel> (malloc'd, at most 64 KiB), NULL when unreadable. */
static inline char *cf_slurp(const cf_fixture *f, const char *rel) {
  char path[1200];
  snprintf(path, sizeof path, "%s/%s", f->dir, rel);
  FILE *fp = fopen(path, "rb");
  if (!fp) return NULL;
  char *s = calloc(1, 1 << 16);
  size_t n = s ? fread(s, 1, (1 << 16) - 1, fp) : 0;
  (void)n;
  fclose(fp);
  return s;
}

/* 1 when <table dir>/<rel> exists. */
static inline int cf_exists(const cf_fixture *f, const char *rel) {
  char path[1200];
  snprintf(path, sizeof path, "%s/%s", f->dir, rel);
  return access(path, F_OK) == 0;
}

/* Records paimon-table read of snapshots lo..hi of the main branch. Returns the number of
 * snapshots that could not be read (each reported on stderr). */
static inline int cf_record_snapshots(cf_fixture *f, int lo, int hi) {
  int bad = 0;
  for (int id = lo; id <= hi && id <= CF_MAX_SNAPSHOTS; id++) {
    char extra[64];
    snprintf(extra, sizeof extra, "--snapshot %d", id);
    int rc = 0;
    char *e = NULL;
    json_decref(f->rows[id]);
    f->rows[id] = ot_read(f->dir, extra, &rc, &e);
    if (!f->rows[id] || rc) {
      fprintf(stderr, "recording snapshot %d of %s: exit %d %s\n", id, f->dir, rc, e ? e : "");
      bad++;
    }
    free(e);
  }
  return bad;
}

/* Every recorded snapshot lo..hi reads (paimon-table read, of `branch` when not NULL) as
 * recorded. Returns the number of mismatches (each reported on stderr naming `what`). */
static inline int cf_snapshots_differ(const cf_fixture *f, const char *branch, int lo, int hi, const char *what) {
  int bad = 0;
  for (int id = lo; id <= hi && id <= CF_MAX_SNAPSHOTS; id++) {
    if (!f->rows[id]) continue;
    char extra[300];
    if (branch) snprintf(extra, sizeof extra, "--branch '%s' --snapshot %d", branch, id);
    else snprintf(extra, sizeof extra, "--snapshot %d", id);
    if (!ot_read_equals(f->dir, extra, f->rows[id], what)) {
      fprintf(stderr, "%s: snapshot %d%s%s does not read as before\n", what, id, branch ? " of branch " : "",
              branch ? branch : "");
      bad++;
    }
  }
  return bad;
}

/* Our reader (`paimon table read ARGS --format jsonl`) returns exactly `expected` (multiset).
 * 1 when it does; else the difference is reported on stderr naming `what`. */
static inline int cf_our_read_equals(const cf_fixture *f, const char *read_args, const json_t *expected,
                                     const char *what) {
  char args[1200], *out = NULL;
  snprintf(args, sizeof args, "table read %s --format jsonl", read_args);
  int rc = cf_cli(f, args, &out);
  json_t *a = rc == 0 ? ot_parse_lines(out, NULL) : NULL;
  char msg[4096] = "";
  int ok = a && expected && ot_rows_match(expected, a, msg, sizeof msg);
  if (!ok) fprintf(stderr, "%s: paimon %s: exit %d %s\n%s\n", what, args, rc, msg, rc ? (out ? out : "") : "");
  json_decref(a);
  free(out);
  return ok;
}

#endif
