/* `paimon table rollback` on a copy of a Java-written primary-key table (5 snapshots) with tags:
 * to a snapshot (later snapshots and tags of later snapshots gone, LATEST = target), to a
 * timestamp (snapshot 2's timeMillis), to a tag whose snapshot file was removed (written back,
 * EARLIEST = its id). After each: paimon-table check passes, every retained snapshot reads as
 * before (paimon-table read), our reader's latest = the target's rows; errors for a missing
 * snapshot / tag and bad arguments. */
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "support/cli_run.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/oracle_table.h"

#define CLI PAIMON_BINARY_DIR "/paimon"
#define T "pk_table_scan_and_read_mor"
#define TT T "." T

static char wh[256], dir[512];
static json_t *snap_rows[6];

static int cli(const char *args, char **out) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "'%s' -w '%s' %s 2>&1", CLI, wh, args);
  return run(cmd, out);
}

static char *slurp(const char *rel) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, rel);
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *s = calloc(1, 1 << 16);
  size_t n = s ? fread(s, 1, (1 << 16) - 1, f) : 0;
  (void)n;
  fclose(f);
  return s;
}

static int exists(const char *rel) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, rel);
  return access(path, F_OK) == 0;
}

/* Table checks; snapshots lo..hi exist and read as before, the rest are gone; latest = hi. */
static void check_state(int lo, int hi, const char *what) {
  CHECK(ot_check_ok(dir, OT_ALLOW_OLD, what));
  for (int id = 1; id <= 5; id++) {
    char rel[64], extra[64];
    snprintf(rel, sizeof rel, "snapshot/snapshot-%d", id);
    CHECK_MSG(exists(rel) == (id >= lo && id <= hi), "%s: snapshot-%d", what, id);
    snprintf(extra, sizeof extra, "--snapshot %d", id);
    if (id >= lo && id <= hi && snap_rows[id]) CHECK(ot_read_equals(dir, extra, snap_rows[id], what));
  }
  char *latest = slurp("snapshot/LATEST");
  CHECK_MSG(latest && atoi(latest) == hi, "%s: LATEST %s", what, latest ? latest : "(none)");
  free(latest);
  if (snap_rows[hi]) CHECK(ot_read_equals(dir, NULL, snap_rows[hi], what));
  char *out = NULL;
  CHECK_EQ_INT(cli("table read " TT " --format jsonl", &out), 0);
  json_t *a = ot_parse_lines(out, NULL);
  char msg[4096];
  CHECK_MSG(a && snap_rows[hi] && ot_rows_match(snap_rows[hi], a, msg, sizeof msg), "%s: %s", what, msg);
  json_decref(a);
  free(out);
}

static void test_rollback(void) {
  char *out = NULL;
  for (int id = 1; id <= 5; id++) {
    char extra[64];
    snprintf(extra, sizeof extra, "--snapshot %d", id);
    int rc = 0;
    snap_rows[id] = ot_read(dir, extra, &rc, NULL);
    CHECK(snap_rows[id] && !rc);
  }
  const char *tags[] = {"tag create " TT " t1 --snapshot 1", "tag create " TT " t2 --snapshot 2",
                        "tag create " TT " t4 --snapshot 4", "tag create " TT " t5"};
  for (int i = 0; i < 4; i++) {
    CHECK_EQ_INT(cli(tags[i], &out), 0);
    free(out);
  }
  CHECK_EQ_INT(cli("table rollback " TT " --snapshot 3", &out), 0);
  free(out);
  check_state(1, 3, "after rollback to snapshot 3");
  CHECK_EQ_INT(cli("tag list " TT, &out), 0);
  CHECK_MSG(out && !strcmp(out, "t1\t1\nt2\t2\n"), "%s", out ? out : "");
  free(out);
  /* to a timestamp: snapshot 2's commit time */
  char *s2 = slurp("snapshot/snapshot-2");
  const char *tm = s2 ? strstr(s2, "\"timeMillis\" : ") : NULL;
  CHECK(tm != NULL);
  char args[256];
  snprintf(args, sizeof args, "table rollback " TT " --timestamp %lld", tm ? atoll(tm + 15) : 0LL);
  free(s2);
  CHECK_EQ_INT(cli(args, &out), 0);
  free(out);
  check_state(1, 2, "after rollback to a timestamp");
  /* to a tag whose snapshot expired: snapshot 1 removed (as expiry would), EARLIEST = 2 */
  char path[1024];
  snprintf(path, sizeof path, "%s/snapshot/snapshot-1", dir);
  CHECK(unlink(path) == 0);
  snprintf(path, sizeof path, "%s/snapshot/EARLIEST", dir);
  FILE *f = fopen(path, "w");
  if (f) {
    fputs("2", f);
    fclose(f);
  }
  CHECK_EQ_INT(cli("table rollback " TT " --tag t1", &out), 0);
  free(out);
  check_state(1, 1, "after rollback to tag t1 (snapshot written back)");
  char *e = slurp("snapshot/EARLIEST");
  CHECK_MSG(e && atoi(e) == 1, "EARLIEST %s", e ? e : "");
  free(e);
  /* the written-back snapshot is the tag's JSON (a tag without retention = the snapshot) */
  char *a = slurp("snapshot/snapshot-1"), *b = slurp("tag/tag-t1");
  CHECK(a && b && !strcmp(a, b));
  free(a);
  free(b);
  /* rerun: nothing left to do, still consistent */
  CHECK_EQ_INT(cli("table rollback " TT " --snapshot 1", &out), 0);
  free(out);
  check_state(1, 1, "after a repeated rollback");
}

static void test_errors(void) {
  char *out = NULL;
  struct {
    const char *args;
    int code;
    const char *msg;
  } cases[] = {
      {"table rollback " TT " --snapshot 99", 1, "snapshot 99 doesn't exist"},
      {"table rollback " TT " --tag nope", 1, "tag 'nope' doesn't exist"},
      {"table rollback " TT " --timestamp 1000", 1, "no snapshot at or before"},
      {"table rollback " TT " --timestamp yesterday", 2, "neither epoch milliseconds"},
      {"table rollback " TT, 2, "exactly one of"},
      {"table rollback " TT " --snapshot 1 --tag t1", 2, "exactly one of"},
      {"table rollback --snapshot 1", 2, "missing table"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    CHECK_EQ_INT(cli(cases[i].args, &out), cases[i].code);
    CHECK_MSG(out && strstr(out, cases[i].msg), "%s: %s", cases[i].args, out ? out : "");
    free(out);
  }
  CHECK_EQ_INT(cli("table rollback --help", &out), 0);
  CHECK(out && strstr(out, "--timestamp"));
  free(out);
}

int main(void) {
  snprintf(wh, sizeof wh, "/tmp/pm_cli_rollback_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  char cmd[2048];
  snprintf(cmd, sizeof cmd,
           "mkdir -p '%s/" T ".db' && cp -r '%s/fixtures/warehouse/parquet/" T ".db/" T "' '%s/" T
           ".db/' && chmod -R u+w '%s'",
           wh, PAIMON_SHARED_DIR, wh, wh);
  if (system(cmd)) return 1;
  snprintf(dir, sizeof dir, "%s/" T ".db/" T, wh);
  if (!ot_available()) {
    printf("SKIP: paimon-table oracle not available\n");
    return 0;
  }
  RUN_TEST(test_rollback);
  RUN_TEST(test_errors);
  for (int i = 0; i < 6; i++) json_decref(snap_rows[i]);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && system(cmd)) return 1;
  TEST_MAIN_END();
}
