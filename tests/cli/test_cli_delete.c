/* `paimon table delete | update DB.T --where EXPR` and `table import --row-kind-column NAME`
 * on primary-key tables (issue 12 §1): the rows printed, the snapshot written, and after each
 * step paimon-table read returns exactly the expected rows and paimon-table check passes (our
 * reader agrees). Refusals as Java's (first-row, partial-update without remove-record-on-delete,
 * aggregation without aggregation.remove-record-on-delete, ignore-delete, append tables), usage
 * errors exit 2, --help. */
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

/* A shell line with $P = the CLI, $W = the warehouse (for pipes). */
static int sh_raw(const char *line, char **out) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "P='%s'; W='%s'; cd \"$W\" && %s 2>&1", CLI, wh, line);
  return run(cmd, out);
}

static const char *tdir(const char *name) {
  static char d[512];
  snprintf(d, sizeof d, "%s/d.db/%s", wh, name);
  return d;
}

static const char *write_file(const char *name, const char *text) {
  static char path[512];
  snprintf(path, sizeof path, "%s/%s", wh, name);
  FILE *f = fopen(path, "wb");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
  return path;
}

static void create(const char *name, const char *options) {
  char args[2048], *out = NULL;
  snprintf(args, sizeof args,
           "table create d.%s --columns 'id INT NOT NULL, pt STRING NOT NULL, v STRING, n BIGINT' "
           "--primary-key pt,id --partition-keys pt --option bucket=2 %s",
           name, options);
  int rc = sh(args, &out);
  CHECK_MSG(rc == 0, "create %s: %s", name, out ? out : "");
  free(out);
}

/* Both readers return exactly `jsonl`; check passes. */
static void expect_rows(const char *name, const char *jsonl, const char *what) {
  char args[512], *out = NULL;
  snprintf(args, sizeof args, "table read d.%s --format jsonl", name);
  CHECK_EQ_INT(sh(args, &out), 0);
  size_t bad = 0;
  json_t *want = ot_parse_lines(jsonl, &bad), *ours = ot_parse_lines(out ? out : "", &bad);
  char msg[4096] = "";
  CHECK_MSG(want && ours && ot_rows_match(want, ours, msg, sizeof msg), "%s: our reader: %s", what, msg);
  free(out);
  json_decref(ours);
  if (ot_available()) {
    CHECK_MSG(ot_read_equals(tdir(name), NULL, want, what), "%s", what);
    CHECK_MSG(ot_check_ok(tdir(name), 0, what), "%s", what);
  }
  json_decref(want);
}

static const char *ROWS =
    "{\"id\":1,\"pt\":\"a\",\"v\":\"one\",\"n\":10}\n{\"id\":2,\"pt\":\"a\",\"v\":\"two\",\"n\":20}\n"
    "{\"id\":3,\"pt\":\"b\",\"v\":\"three\",\"n\":30}\n{\"id\":4,\"pt\":\"b\",\"v\":null,\"n\":40}\n"
    "{\"id\":5,\"pt\":\"b\",\"v\":\"five\",\"n\":null}\n";

static void test_delete_update(void) {
  create("t", "");
  char *out = NULL;
  write_file("rows.jsonl", ROWS);
  CHECK_EQ_INT(sh("table import d.t rows.jsonl", &out), 0);
  free(out);
  /* a predicate over a value column and the partition */
  CHECK_EQ_INT(sh("table delete d.t --where \"n >= 20 and pt = 'b'\"", &out), 0);
  CHECK_EQ_STR(out, "deleted 2 rows: snapshot 2\n");
  free(out);
  expect_rows("t",
              "{\"id\":1,\"pt\":\"a\",\"v\":\"one\",\"n\":10}\n{\"id\":2,\"pt\":\"a\",\"v\":\"two\",\"n\":20}\n"
              "{\"id\":5,\"pt\":\"b\",\"v\":\"five\",\"n\":null}\n",
              "after delete");
  /* nothing matches: no snapshot */
  CHECK_EQ_INT(sh("table delete d.t --where 'id > 100'", &out), 0);
  CHECK_EQ_STR(out, "deleted 0 rows: nothing matched, no snapshot\n");
  free(out);
  /* update: two --where ANDed, a value with a comma and quote, a null */
  CHECK_EQ_INT(sh("table update d.t --where \"pt = 'a'\" --where 'id < 2' --set 'v=x, \"y\"' --set n=", &out), 0);
  CHECK_EQ_STR(out, "updated 1 rows: snapshot 3\n");
  free(out);
  CHECK_EQ_INT(sh("table update d.t --where 'n is null' --set n=7", &out), 0);
  CHECK_EQ_STR(out, "updated 2 rows: snapshot 4\n"); /* id 1 (n set null above) and id 5 */
  free(out);
  expect_rows("t",
              "{\"id\":1,\"pt\":\"a\",\"v\":\"x, \\\"y\\\"\",\"n\":7}\n{\"id\":2,\"pt\":\"a\",\"v\":\"two\",\"n\":20}\n"
              "{\"id\":5,\"pt\":\"b\",\"v\":\"five\",\"n\":7}\n",
              "after updates");
  /* the deleted keys come back with a new insert */
  write_file("more.jsonl", "{\"id\":3,\"pt\":\"b\",\"v\":\"again\",\"n\":33}\n");
  CHECK_EQ_INT(sh("table import d.t more.jsonl", &out), 0);
  free(out);
  CHECK_EQ_INT(sh("table delete d.t --where \"v like 'x%'\"", &out), 0);
  CHECK_EQ_STR(out, "deleted 1 rows: snapshot 6\n");
  free(out);
  expect_rows("t",
              "{\"id\":2,\"pt\":\"a\",\"v\":\"two\",\"n\":20}\n{\"id\":5,\"pt\":\"b\",\"v\":\"five\",\"n\":7}\n"
              "{\"id\":3,\"pt\":\"b\",\"v\":\"again\",\"n\":33}\n",
              "after re-insert and delete");
}

static void test_partial_update_and_aggregation(void) {
  char *out = NULL;
  create("pu", "--option merge-engine=partial-update --option partial-update.remove-record-on-delete=true");
  write_file("pu1.jsonl", "{\"id\":1,\"pt\":\"a\",\"v\":\"one\"}\n{\"id\":2,\"pt\":\"a\",\"v\":\"two\"}\n");
  write_file("pu2.jsonl", "{\"id\":1,\"pt\":\"a\",\"n\":5}\n{\"id\":2,\"pt\":\"a\",\"n\":6}\n");
  CHECK_EQ_INT(sh("table import d.pu pu1.jsonl", &out), 0);
  free(out);
  CHECK_EQ_INT(sh("table import d.pu pu2.jsonl", &out), 0);
  free(out);
  CHECK_EQ_INT(sh("table delete d.pu --where 'n = 5'", &out), 0);
  CHECK_EQ_STR(out, "deleted 1 rows: snapshot 3\n");
  free(out);
  CHECK_EQ_INT(sh("table update d.pu --where 'id = 2' --set v=zwei", &out), 0);
  CHECK_EQ_STR(out, "updated 1 rows: snapshot 4\n");
  free(out);
  expect_rows("pu", "{\"id\":2,\"pt\":\"a\",\"v\":\"zwei\",\"n\":6}\n", "partial-update after delete + update");

  /* aggregation with remove-record-on-delete: delete works, update is refused (as Java) */
  create("agg", "--option merge-engine=aggregation --option aggregation.remove-record-on-delete=true "
                "--option fields.n.aggregate-function=sum");
  write_file("agg.jsonl", "{\"id\":1,\"pt\":\"a\",\"n\":5}\n{\"id\":1,\"pt\":\"a\",\"n\":6}\n"
                          "{\"id\":2,\"pt\":\"a\",\"n\":1}\n");
  CHECK_EQ_INT(sh("table import d.agg agg.jsonl", &out), 0);
  free(out);
  CHECK_EQ_INT(sh("table delete d.agg --where 'n = 11'", &out), 0);
  CHECK_EQ_STR(out, "deleted 1 rows: snapshot 2\n");
  free(out);
  CHECK_EQ_INT(sh("table read d.agg --format csv", &out), 0);
  CHECK_EQ_STR(out, "id,pt,v,n\n2,a,,1\n");
  free(out);
  if (ot_available()) CHECK(ot_check_ok(tdir("agg"), 0, "aggregation after delete"));
  CHECK_EQ_INT(sh("table update d.agg --where 'id = 2' --set n=1", &out), 1);
  CHECK_MSG(out && strstr(out, "can not support batch update"), "%s", out ? out : "");
  free(out);
}

static void test_refusals(void) {
  create("fr", "--option merge-engine=first-row --option write-only=true");
  create("pn", "--option merge-engine=partial-update");
  create("an", "--option merge-engine=aggregation");
  create("ig", "--option ignore-delete=true");
  char *out = NULL;
  CHECK_EQ_INT(sh("table create d.app --columns 'id INT, v STRING'", &out), 0);
  free(out);
  struct {
    const char *args;
    int code;
    const char *msg;
  } cases[] = {
      {"table delete d.fr --where 'id = 1'", 1, "merge engine first-row can not support batch delete"},
      {"table delete d.pn --where 'id = 1'", 1, "partial-update.remove-record-on-delete"},
      {"table delete d.an --where 'id = 1'", 1, "aggregation.remove-record-on-delete"},
      {"table delete d.ig --where 'id = 1'", 1, "drops the delete rows"},
      {"table delete d.app --where 'id = 1'", 1, "has no primary key"},
      {"table update d.fr --where 'id = 1' --set v=x", 1, "can not support batch update"},
      {"table update d.t --where 'id = 1' --set id=3", 1, "primary key column 'id'"},
      {"table update d.t --where 'id = 1' --set nope=3", 1, "'nope', which is not a column"},
      {"table update d.t --where 'id = 1' --set n=abc", 1, "column 'n'"},
      {"table delete d.t --where 'nope = 1'", 1, "nope"},
      {"table delete d.t", 2, "--where EXPR is required"},
      {"table update d.t --where 'id = 1'", 2, "--set COL=VALUE"},
      {"table delete d.t --where 'id = 1' --bogus", 2, "unknown option --bogus"},
      {"table delete --where 'id = 1'", 2, "missing table"},
      {"table delete d.nope --where 'id = 1'", 1, "nope"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    CHECK_EQ_INT(sh(cases[i].args, &out), cases[i].code);
    CHECK_MSG(out && strstr(out, cases[i].msg), "%s: %s", cases[i].args, out ? out : "");
    free(out);
  }
  CHECK_EQ_INT(sh("table delete --help", &out), 0);
  CHECK_MSG(out && strstr(out, "table delete DB.T --where EXPR") && strstr(out, "table update DB.T"), "%s",
            out ? out : "");
  free(out);
  CHECK_EQ_INT(sh("table import --help", &out), 0);
  CHECK_MSG(out && strstr(out, "--row-kind-column NAME") && strstr(out, "UPDATE_BEFORE"), "%s", out ? out : "");
  free(out);
}

/* CDC import: jsonl with +I/-U/+U/-D strings and 0..3 integers, csv with text kinds. */
static void test_cdc_import(void) {
  create("cdc", "");
  char *out = NULL;
  write_file("cdc.jsonl",
             "{\"op\":\"+I\",\"id\":1,\"pt\":\"a\",\"v\":\"one\",\"n\":1}\n"
             "{\"op\":\"+I\",\"id\":2,\"pt\":\"a\",\"v\":\"two\",\"n\":2}\n"
             "{\"op\":0,\"id\":3,\"pt\":\"b\",\"v\":\"three\",\"n\":3}\n"
             "{\"op\":\"-U\",\"id\":1,\"pt\":\"a\",\"v\":\"one\",\"n\":1}\n"
             "{\"op\":\"+U\",\"id\":1,\"pt\":\"a\",\"v\":\"uno\",\"n\":11}\n"
             "{\"op\":3,\"id\":2,\"pt\":\"a\",\"v\":\"two\",\"n\":2}\n"
             "{\"op\":\"DELETE\",\"id\":9,\"pt\":\"b\"}\n");
  CHECK_EQ_INT(sh("table import d.cdc cdc.jsonl --row-kind-column op", &out), 0);
  CHECK_MSG(out && strstr(out, "snapshot 1:"), "%s", out ? out : "");
  free(out);
  expect_rows("cdc",
              "{\"id\":1,\"pt\":\"a\",\"v\":\"uno\",\"n\":11}\n{\"id\":3,\"pt\":\"b\",\"v\":\"three\",\"n\":3}\n",
              "after cdc jsonl");
  write_file("cdc.csv", "id,pt,v,n,op\n3,b,,,-D\n4,b,four,4,+I\n1,a,eins,,2\n");
  CHECK_EQ_INT(sh("table import d.cdc cdc.csv --row-kind-column op", &out), 0);
  free(out);
  expect_rows("cdc",
              "{\"id\":1,\"pt\":\"a\",\"v\":\"eins\",\"n\":null}\n{\"id\":4,\"pt\":\"b\",\"v\":\"four\",\"n\":4}\n",
              "after cdc csv");
  /* from stdin; a bad kind fails the import and commits nothing */
  CHECK_EQ_INT(sh_raw("printf '{\"op\":\"-D\",\"id\":4,\"pt\":\"b\"}\\n' | \"$P\" -w \"$W\" table import d.cdc - "
                  "--row-kind-column op",
                  &out),
               0);
  free(out);
  write_file("bad.jsonl", "{\"op\":\"+X\",\"id\":1,\"pt\":\"a\"}\n");
  CHECK_EQ_INT(sh("table import d.cdc bad.jsonl --row-kind-column op", &out), 1);
  CHECK_MSG(out && strstr(out, "not a row kind"), "%s", out ? out : "");
  free(out);
  CHECK_EQ_INT(sh("table import d.cdc cdc.jsonl --row-kind-column v", &out), 1);
  CHECK_MSG(out && strstr(out, "must not be a column"), "%s", out ? out : "");
  free(out);
  expect_rows("cdc", "{\"id\":1,\"pt\":\"a\",\"v\":\"eins\",\"n\":null}\n", "after stdin delete");
}

int main(void) {
  snprintf(wh, sizeof wh, "/tmp/pm_cli_delete_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  char *out = NULL;
  CHECK_EQ_INT(sh("db create d", &out), 0);
  free(out);
  RUN_TEST(test_delete_update);
  RUN_TEST(test_partial_update_and_aggregation);
  RUN_TEST(test_refusals);
  RUN_TEST(test_cdc_import);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && system(cmd)) return 1;
  TEST_MAIN_END();
}
