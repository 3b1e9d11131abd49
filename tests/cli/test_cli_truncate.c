/* `paimon table truncate` and `table drop-partition` on a copy of a Java-written
 * partitioned table: paimon-table reads exactly the remaining rows and checks the
 * table after each; bad arguments are one-line errors with exit 2 (usage) or 1. */
#include "harness.h"
#include "support/cli_run.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/oracle_table.h"

#define CLI PAIMON_BINARY_DIR "/paimon"
#define T "append_table_with_alter_table"

static char wh[256];

static int cli(const char *args, char **out) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "'%s' -w '%s' %s 2>&1", CLI, wh, args);
  return run(cmd, out);
}

static void expect_rows(const char *text, const char *what) {
  char dir[512];
  snprintf(dir, sizeof dir, "%s/" T ".db/" T, wh);
  size_t bad = 0;
  json_t *want = ot_parse_lines(text, &bad);
  CHECK(want != NULL);
  CHECK_MSG(ot_read_equals(dir, NULL, want, what), "%s", what);
  CHECK_MSG(ot_check_ok(dir, OT_ALLOW_OLD, what), "%s", what);
  json_decref(want);
}

static void test_truncate_and_drop(void) {
  char *out = NULL;
  /* A partial spec (key0 of key0, key1) drops partition {key0=1, key1=1}. */
  CHECK_EQ_INT(cli("table drop-partition " T "." T " --partition key0=1", &out), 0);
  CHECK_EQ_STR(out, "snapshot 3\n");
  free(out);
  if (ot_available())
    expect_rows("{\"key0\":0,\"key1\":1,\"k\":66,\"c\":63,\"d\":517,\"a\":65,\"e\":618}\n"
                "{\"key0\":0,\"key1\":1,\"k\":76,\"c\":73,\"d\":527,\"a\":75,\"e\":628}\n"
                "{\"key0\":0,\"key1\":1,\"k\":86,\"c\":83,\"d\":537,\"a\":85,\"e\":638}\n"
                "{\"key0\":0,\"key1\":1,\"k\":16,\"c\":13,\"d\":null,\"a\":15,\"e\":null}\n"
                "{\"key0\":0,\"key1\":1,\"k\":26,\"c\":23,\"d\":null,\"a\":25,\"e\":null}\n"
                "{\"key0\":0,\"key1\":1,\"k\":36,\"c\":33,\"d\":null,\"a\":35,\"e\":null}\n",
                "after drop-partition key0=1");
  /* Our reader agrees. */
  CHECK_EQ_INT(cli("table read " T "." T " --format csv --select key0,k", &out), 0);
  CHECK_EQ_STR(out, "key0,k\n0,66\n0,76\n0,86\n0,16\n0,26\n0,36\n");
  free(out);
  /* A spec that matches nothing still writes an (empty) overwrite snapshot. */
  CHECK_EQ_INT(cli("table truncate " T "." T " --partition key0=7,key1=1", &out), 0);
  CHECK_EQ_STR(out, "snapshot 4\n");
  free(out);
  CHECK_EQ_INT(cli("table truncate " T "." T, &out), 0);
  CHECK_EQ_STR(out, "snapshot 5\n");
  free(out);
  if (ot_available()) expect_rows("", "after truncate");
  CHECK_EQ_INT(cli("table read " T "." T " --format jsonl", &out), 0);
  CHECK_EQ_STR(out, "");
  free(out);
  CHECK_EQ_INT(cli("table snapshots " T "." T " --format csv", &out), 0);
  CHECK_MSG(out && strstr(out, "\n5,") && strstr(out, "OVERWRITE"), "%s", out ? out : "");
  free(out);
}

static void test_errors(void) {
  char *out = NULL;
  struct {
    const char *args;
    int code;
    const char *msg;
  } cases[] = {
      {"table drop-partition " T "." T, 2, "at least one --partition"},
      {"table drop-partition " T "." T " --partition k=1", 1, "'k' is not a partition key"},
      {"table truncate " T "." T " --partition key0", 2, "k=v"},
      {"table truncate " T "." T " --bogus", 2, "unknown option --bogus"},
      {"table truncate " T ".nope", 1, "does not exist"},
      {"table truncate", 2, "missing table"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    CHECK_EQ_INT(cli(cases[i].args, &out), cases[i].code);
    CHECK_MSG(out && strstr(out, cases[i].msg) && strchr(out, '\n') == out + strlen(out) - 1, "%s: %s",
              cases[i].args, out ? out : "");
    free(out);
  }
  CHECK_EQ_INT(cli("table truncate --help", &out), 0);
  CHECK(out && strstr(out, "usage: paimon [-w WAREHOUSE] table truncate"));
  free(out);
  CHECK_EQ_INT(cli("table drop-partition -h", &out), 0);
  CHECK(out && strstr(out, "drop-partition DB.T --partition"));
  free(out);
}

int main(void) {
  snprintf(wh, sizeof wh, "/tmp/pm_cli_truncate_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  char cmd[700];
  snprintf(cmd, sizeof cmd, "cp -r '%s/" T ".db' '%s/'", PM_SHARED("fixtures/warehouse/parquet"), wh);
  if (system(cmd)) return 1;
  snprintf(cmd, sizeof cmd, "chmod -R u+w '%s'", wh);
  if (system(cmd)) return 1;
  RUN_TEST(test_truncate_and_drop);
  RUN_TEST(test_errors);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && system(cmd)) return 1;
  TEST_MAIN_END();
}
