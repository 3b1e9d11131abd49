/* `paimon table update-columns DB.T --columns ... --input FILE | --stdin` on a data-evolution table
 * (issue 14 §3): CSV (row ids as text, an extra column ignored), JSON lines from stdin; after each update paimon-table read
 * returns the expected rows and check passes (our reader agrees); errors exit 1 leaving the table
 * directory unchanged; usage errors exit 2; --help. */
#include "harness.h"
#include "support/cli_run.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/oracle_table.h"

#define CLI PAIMON_BINARY_DIR "/paimon"

static char wh[256];

static int sh(const char *args, char **out) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "P='%s'; W='%s'; cd \"$W\" && \"$P\" -w \"$W\" %s 2>&1", CLI, wh, args);
  return run(cmd, out);
}

static const char *tdir(void) {
  static char d[512];
  snprintf(d, sizeof d, "%s/d.db/t", wh);
  return d;
}

static void write_file(const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", wh, name);
  FILE *f = fopen(path, "wb");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
}

static void expect_rows(const char *jsonl, int oracle, const char *what) {
  char *out = NULL;
  CHECK_EQ_INT(sh("table read d.t --format jsonl", &out), 0);
  size_t bad = 0;
  json_t *want = ot_parse_lines(jsonl, &bad), *ours = ot_parse_lines(out ? out : "", &bad);
  char msg[4096] = "";
  CHECK_MSG(want && ours && ot_rows_match(want, ours, msg, sizeof msg), "%s: our reader: %s", what, msg);
  free(out);
  json_decref(ours);
  if (oracle && ot_available()) {
    CHECK_MSG(ot_read_equals(tdir(), NULL, want, what), "%s", what);
    CHECK_MSG(ot_check_ok(tdir(), 0, what), "%s", what);
  }
  json_decref(want);
}

static void expect_fail(const char *args, int code, const char *needle) {
  uint64_t before = ot_state_hash(tdir());
  char *out = NULL;
  int rc = sh(args, &out);
  CHECK_MSG(rc == code, "%s: exit %d: %s", args, rc, out ? out : "");
  CHECK_MSG(out && strstr(out, needle), "%s: output lacks '%s': %s", args, needle, out ? out : "");
  CHECK_MSG(ot_state_hash(tdir()) == before, "%s: the table changed", args);
  free(out);
}

static void test_update_columns(void) {
  char *out = NULL;
  CHECK_EQ_INT(sh("table create d.t --columns 'id INT, name STRING, score INT' --option row-tracking.enabled=true "
                  "--option data-evolution.enabled=true",
                  &out),
               0);
  free(out);
  write_file("a.jsonl", "{\"id\":1,\"name\":\"a\",\"score\":1}\n{\"id\":2,\"name\":\"b\",\"score\":2}\n");
  write_file("b.jsonl", "{\"id\":3,\"name\":\"c\",\"score\":3}\n");
  CHECK_EQ_INT(sh("table import d.t a.jsonl", &out), 0);
  free(out);
  CHECK_EQ_INT(sh("table import d.t b.jsonl", &out), 0);
  free(out);
  CHECK_EQ_INT(sh("table read d.t --select _ROW_ID,id --format csv", &out), 0);
  CHECK_EQ_STR(out, "_ROW_ID,id\n0,1\n1,2\n2,3\n");
  free(out);
  write_file("up.csv", "_ROW_ID,name,id\n2,zz,99\n0,\"y,y\",98\n");
  CHECK_EQ_INT(sh("table update-columns d.t --columns name --input up.csv", &out), 0);
  CHECK_EQ_STR(out, "updated 2 rows: snapshot 3\n");
  free(out);
  expect_rows("{\"id\":1,\"name\":\"y,y\",\"score\":1}\n{\"id\":2,\"name\":\"b\",\"score\":2}\n"
              "{\"id\":3,\"name\":\"zz\",\"score\":3}\n",
              0, "after the CSV update");
  write_file("up.jsonl", "{\"_ROW_ID\":1,\"score\":null,\"name\":\"B\"}\n{\"_ROW_ID\":2,\"score\":30,\"name\":\"zz\"}\n");
  CHECK_EQ_INT(sh("table update-columns d.t --columns 'score,name' --stdin --format jsonl < up.jsonl", &out), 0);
  CHECK_EQ_STR(out, "updated 2 rows: snapshot 4\n");
  free(out);
  expect_rows("{\"id\":1,\"name\":\"y,y\",\"score\":1}\n{\"id\":2,\"name\":\"B\",\"score\":null}\n"
              "{\"id\":3,\"name\":\"zz\",\"score\":30}\n",
              1, "after the JSON-lines update");
  /* errors: exit 1, nothing written */
  write_file("bad.csv", "_ROW_ID,name\n7,x\n");
  expect_fail("table update-columns d.t --columns name --input bad.csv", 1, "belongs to no live file");
  expect_fail("table update-columns d.t --columns nope --input up.csv", 1, "not found");
  expect_fail("table update-columns d.t --columns id,id --input up.csv", 1, "given twice");
  write_file("norid.csv", "name\nx\n");
  expect_fail("table update-columns d.t --columns name --input norid.csv", 1, "_ROW_ID");
  write_file("dup.csv", "_ROW_ID,name\n1,x\n1,y\n");
  expect_fail("table update-columns d.t --columns name --input dup.csv", 1, "appears twice");
  /* usage errors: exit 2 */
  expect_fail("table update-columns d.t --input up.csv", 2, "--columns");
  expect_fail("table update-columns d.t --columns name", 2, "exactly one of");
  expect_fail("table update-columns d.t --columns name --stdin", 2, "--stdin needs --format");
  expect_fail("table update-columns --columns name --input up.csv", 2, "missing table");
  CHECK_EQ_INT(sh("table update-columns --help", &out), 0);
  CHECK(out && strstr(out, "usage: paimon") && strstr(out, "_ROW_ID"));
  free(out);
  /* an append table without data evolution is refused */
  CHECK_EQ_INT(sh("table create d.plain --columns 'id INT, name STRING'", &out), 0);
  free(out);
  CHECK_EQ_INT(sh("table update-columns d.plain --columns name --input up.csv", &out), 1);
  CHECK(out && strstr(out, "data-evolution.enabled"));
  free(out);
}

int main(void) {
  snprintf(wh, sizeof wh, "/tmp/pm_cli_update_columns_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  char *out = NULL;
  CHECK_EQ_INT(sh("db create d", &out), 0);
  free(out);
  RUN_TEST(test_update_columns);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && system(cmd)) return 1;
  TEST_MAIN_END();
}
