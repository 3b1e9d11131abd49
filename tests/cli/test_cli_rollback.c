/* `paimon table rollback` on a copy of a Java-written primary-key table (5 snapshots) with tags:
 * to a snapshot (later snapshots and tags of later snapshots gone, LATEST = target), to a
 * timestamp (snapshot 2's timeMillis), to a tag whose snapshot file was removed (written back,
 * EARLIEST = its id). After each: paimon-table check passes, every retained snapshot reads as
 * before (paimon-table read), our reader's latest = the target's rows; errors for a missing
 * snapshot / tag and bad arguments. */
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/cli_fixture.h"

#define T "pk_table_scan_and_read_mor"
#define TT T "." T

static cf_fixture fx;
static const char *dir = fx.dir;

static int cli(const char *args, char **out) { return cf_cli(&fx, args, out); }

/* Table checks; snapshots lo..hi exist and read as before, the rest are gone; latest = hi. */
static void check_state(int lo, int hi, const char *what) {
  CHECK(ot_check_ok(dir, OT_ALLOW_OLD, what));
  for (int id = 1; id <= 5; id++) {
    char rel[64];
    snprintf(rel, sizeof rel, "snapshot/snapshot-%d", id);
    CHECK_MSG(cf_exists(&fx, rel) == (id >= lo && id <= hi), "%s: snapshot-%d", what, id);
  }
  CHECK_EQ_INT(cf_snapshots_differ(&fx, NULL, lo, hi, what), 0);
  char *latest = cf_slurp(&fx, "snapshot/LATEST");
  CHECK_MSG(latest && atoi(latest) == hi, "%s: LATEST %s", what, latest ? latest : "(none)");
  free(latest);
  if (fx.rows[hi]) CHECK(ot_read_equals(dir, NULL, fx.rows[hi], what));
  CHECK(cf_our_read_equals(&fx, TT, fx.rows[hi], what));
}

static void test_rollback(void) {
  char *out = NULL;
  CHECK_EQ_INT(cf_record_snapshots(&fx, 1, 5), 0);
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
  char *s2 = cf_slurp(&fx, "snapshot/snapshot-2");
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
  snprintf(path, sizeof path, "%s/snapshot/snapshot-1", fx.dir);
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
  char *e = cf_slurp(&fx, "snapshot/EARLIEST");
  CHECK_MSG(e && atoi(e) == 1, "EARLIEST %s", e ? e : "");
  free(e);
  /* the written-back snapshot is the tag's JSON (a tag without retention = the snapshot) */
  char *a = cf_slurp(&fx, "snapshot/snapshot-1"), *b = cf_slurp(&fx, "tag/tag-t1");
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
  if (cf_setup(&fx, "pm_cli_rollback", T)) return 1;
  if (!ot_available()) {
    printf("SKIP: paimon-table oracle not available\n");
    return 0;
  }
  RUN_TEST(test_rollback);
  RUN_TEST(test_errors);
  if (cf_teardown(&fx, !pm_test_failures)) return 1;
  TEST_MAIN_END();
}
