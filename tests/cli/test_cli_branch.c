/* `paimon branch create|delete|list|fast-forward` on a copy of a Java-written primary-key table
 * (5 snapshots): branches from a tag (the tag's snapshot file copied byte for byte, the tag too),
 * from a snapshot, empty; writes to `T$branch_b` and with the option branch=e go to the branch
 * only (paimon-table read --branch = the branch's rows, main's snapshots read as before);
 * fast-forward of main to b (both readers: main = b's rows, snapshots below b's earliest read as
 * before, b's tag in main); delete; paimon-table check passes after every step; Java's refusals. */
#include <sys/stat.h>

#include "harness.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/cli_fixture.h"

#define T "pk_table_scan_and_read_mor"
#define TT T "." T
#define ROW "{\"f0\":\"Zed\",\"f1\":10,\"f2\":1,\"f3\":1.5}"

static cf_fixture fx;

static int cli(const char *args, char **out) { return cf_cli(&fx, args, out); }

static void ok_cli(const char *args) {
  char *out = NULL;
  int rc = cli(args, &out);
  CHECK_MSG(rc == 0, "paimon %s: exit %d: %s", args, rc, out ? out : "");
  free(out);
}

/* paimon-table read --branch b (latest) and our reader of T$branch_b both return expected. */
static void branch_reads(const char *b, const json_t *expected, const char *what) {
  char extra[128], ident[300];
  snprintf(extra, sizeof extra, "--branch %s", b);
  CHECK(ot_read_equals(fx.dir, extra, expected, what));
  snprintf(ident, sizeof ident, "'" TT "$branch_%s'", b);
  CHECK(cf_our_read_equals(&fx, ident, expected, what));
}

static int same_file(const char *a, const char *b) {
  char *x = cf_slurp(&fx, a), *y = cf_slurp(&fx, b);
  int same = x && y && !strcmp(x, y);
  free(x);
  free(y);
  return same;
}

/* rows + the one imported row */
static json_t *plus_row(const json_t *rows) {
  json_t *r = json_deep_copy(rows);
  json_error_t je;
  json_array_append_new(r, json_loads(ROW, 0, &je));
  return r;
}

static void test_branches(void) {
  char *out = NULL;
  CHECK_EQ_INT(cf_record_snapshots(&fx, 1, 5), 0);
  ok_cli("tag create " TT " t3 --snapshot 3");
  ok_cli("branch create " TT " b --tag t3");
  ok_cli("branch create " TT " s --snapshot-id 2");
  ok_cli("branch create " TT " e");
  CHECK_EQ_INT(cli("branch list " TT, &out), 0);
  CHECK_MSG(out && !strcmp(out, "b\ne\ns\n"), "%s", out ? out : "");
  free(out);
  /* Java's copies: snapshot and tag byte for byte, schemas up to the snapshot's */
  CHECK(same_file("snapshot/snapshot-3", "branch/branch-b/snapshot/snapshot-3"));
  CHECK(same_file("tag/tag-t3", "branch/branch-b/tag/tag-t3"));
  CHECK(same_file("schema/schema-0", "branch/branch-b/schema/schema-0"));
  CHECK(same_file("snapshot/snapshot-2", "branch/branch-s/snapshot/snapshot-2"));
  CHECK(same_file("schema/schema-0", "branch/branch-e/schema/schema-0"));
  CHECK(!cf_exists(&fx, "branch/branch-e/snapshot/snapshot-1"));
  CHECK(ot_check_ok(fx.dir, OT_ALLOW_OLD, "after branch create"));
  CHECK_EQ_INT(cf_snapshots_differ(&fx, "b", 3, 3, "branch b from tag t3"), 0);
  CHECK_EQ_INT(cf_snapshots_differ(&fx, "s", 2, 2, "branch s from snapshot 2"), 0);
  CHECK_EQ_INT(cf_snapshots_differ(&fx, NULL, 1, 5, "main after branch create"), 0);
  /* writes: T$branch_b, and the option branch=e */
  char path[1200];
  snprintf(path, sizeof path, "%s/row.jsonl", fx.wh);
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (f) {
    fputs(ROW "\n", f);
    fclose(f);
  }
  char args[2048];
  snprintf(args, sizeof args, "table import '" TT "$branch_b' '%s'", path);
  ok_cli(args);
  snprintf(args, sizeof args, "table import " TT " '%s' --option branch=e", path);
  ok_cli(args);
  CHECK(cf_exists(&fx, "branch/branch-b/snapshot/snapshot-4") && cf_exists(&fx, "branch/branch-e/snapshot/snapshot-1"));
  json_t *empty = json_array(), *b_rows = plus_row(fx.rows[3]), *e_rows = plus_row(empty);
  json_decref(empty);
  branch_reads("b", b_rows, "branch b after a write");
  branch_reads("e", e_rows, "branch e after a write with option branch=e");
  /* main unchanged */
  CHECK(ot_check_ok(fx.dir, OT_ALLOW_OLD, "after branch writes"));
  CHECK_EQ_INT(cf_snapshots_differ(&fx, NULL, 1, 5, "main after branch writes"), 0);
  char *latest = cf_slurp(&fx, "snapshot/LATEST");
  CHECK_MSG(latest && !strcmp(latest, "5"), "%s", latest ? latest : "");
  free(latest);
  CHECK(cf_our_read_equals(&fx, TT, fx.rows[5], "main after branch writes"));
  /* the reader's option branch=b reads the branch too */
  CHECK(cf_our_read_equals(&fx, TT " --option branch=b", b_rows, "main handle with option branch=b"));
  /* fast-forward main to b: snapshots 1..2 stay, 3..4 are b's, 5 gone, tag t3 = b's */
  ok_cli("branch fast-forward " TT " b");
  CHECK(ot_check_ok(fx.dir, OT_ALLOW_OLD, "after fast-forward"));
  CHECK(ot_read_equals(fx.dir, NULL, b_rows, "main after fast-forward (paimon-table read)"));
  CHECK(cf_our_read_equals(&fx, TT, b_rows, "main after fast-forward"));
  CHECK_EQ_INT(cf_snapshots_differ(&fx, NULL, 1, 3, "main after fast-forward"), 0);
  CHECK(!cf_exists(&fx, "snapshot/snapshot-5"));
  CHECK(same_file("snapshot/snapshot-4", "branch/branch-b/snapshot/snapshot-4"));
  char *hint = cf_slurp(&fx, "snapshot/LATEST"), *early = cf_slurp(&fx, "snapshot/EARLIEST");
  CHECK_MSG(hint && !strcmp(hint, "4") && early && !strcmp(early, "1"), "LATEST %s EARLIEST %s", hint ? hint : "",
            early ? early : "");
  free(hint);
  free(early);
  branch_reads("b", b_rows, "branch b after fast-forward");
  /* main keeps working: a write after the fast-forward */
  snprintf(args, sizeof args, "table import " TT " '%s'", path);
  ok_cli(args);
  CHECK(ot_check_ok(fx.dir, OT_ALLOW_OLD, "after a write following fast-forward"));
  /* delete */
  ok_cli("branch delete " TT " e");
  CHECK(!cf_exists(&fx, "branch/branch-e"));
  CHECK_EQ_INT(cli("branch list " TT, &out), 0);
  CHECK_MSG(out && !strcmp(out, "b\ns\n"), "%s", out ? out : "");
  free(out);
  CHECK(ot_check_ok(fx.dir, OT_ALLOW_OLD, "after branch delete"));
  json_decref(b_rows);
  json_decref(e_rows);
}

static void test_errors(void) {
  char *out = NULL;
  ok_cli("branch create " TT " empty");
  struct {
    const char *args;
    int code;
    const char *msg;
  } cases[] = {
      {"branch create " TT " b", 1, "branch 'b' already exists"},
      {"branch create " TT " main", 1, "default branch"},
      {"branch create " TT " 123", 1, "pure numeric"},
      {"branch create " TT " ' '", 1, "is blank"},
      {"branch create " TT " a/b", 1, "not a valid directory name"},
      {"branch create " TT " x --tag nope", 1, "tag 'nope' doesn't exist"},
      {"branch create " TT " x --snapshot 99", 1, "snapshot 99 doesn't exist"},
      {"branch create " TT " x --snapshot 1 --tag t3", 2, "at most one of"},
      {"branch create " TT " x --snapshot y", 2, "needs a snapshot id"},
      {"branch delete " TT " nope", 1, "branch 'nope' doesn't exist"},
      {"branch fast-forward " TT " main", 1, "'main'"},
      {"branch fast-forward " TT " nope", 1, "branch 'nope' doesn't exist"},
      {"branch fast-forward " TT " empty", 1, "does not have a snapshot"},
      {"branch fast-forward '" TT "$branch_b' b", 1, "current branch 'b'"},
      {"branch list", 2, "missing table"},
      {"branch create " TT, 2, "missing branch name"},
      {"branch bogus " TT, 2, "unknown subcommand"},
      {"branch list " TT " --bogus", 2, "unknown option --bogus"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    CHECK_EQ_INT(cli(cases[i].args, &out), cases[i].code);
    CHECK_MSG(out && strstr(out, cases[i].msg), "%s: %s", cases[i].args, out ? out : "");
    free(out);
  }
  ok_cli("branch create " TT " b --ignore-if-exists");
  CHECK_EQ_INT(cli("branch --help", &out), 0);
  CHECK(out && strstr(out, "fast-forward") && strstr(out, "--tag"));
  free(out);
  CHECK(ot_check_ok(fx.dir, OT_ALLOW_OLD, "after refused branch operations"));
}

int main(void) {
  if (cf_setup(&fx, "pm_cli_branch", T)) return 1;
  if (!ot_available()) {
    printf("SKIP: paimon-table oracle not available\n");
    return 0;
  }
  RUN_TEST(test_branches);
  RUN_TEST(test_errors);
  if (cf_teardown(&fx, !pm_test_failures)) return 1;
  TEST_MAIN_END();
}
