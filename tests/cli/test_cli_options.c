/* CLI options: applied or refused (issue 10 #4), --help everywhere and --version (#5), numbers that do
 * not fit (#15), repeated --where / --select (#16), global -w anywhere and precise messages (#19),
 * parquet convert values (#20). */
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define PAIMON PAIMON_BINARY_DIR "/paimon"
#define WH PM_SHARED("fixtures/warehouse/parquet")
#define P PAIMON " -w " WH " "

#include "support/cli_run.h"

/* Exit status of cmd; its combined output must contain want (when not NULL). */
static int run_expect(const char *cmd, const char *want) {
  char full[4096], *out = NULL;
  snprintf(full, sizeof full, "%s 2>&1", cmd);
  int rc = run(full, &out);
  CHECK_MSG(!want || strstr(out, want), "`%s` printed: %s", cmd, out);
  free(out);
  return rc;
}

static void test_options_applied_or_refused(void) { /* #4 */
  CHECK_EQ_INT(run_expect(P "table files pk_09.pk_09 --where 'f1 = 20'", "--where"), 2);
  CHECK_EQ_INT(run_expect(P "table get pk_09.pk_09 --snapshot 1", "--snapshot"), 2);
  CHECK_EQ_INT(run_expect(P "table get pk_09.pk_09 --format jsonl", "--format"), 2);
  CHECK_EQ_INT(run_expect(P "table explain pk_09.pk_09 --format jsonl", "--format"), 2);
  CHECK_EQ_INT(run_expect(P "table snapshots pk_09.pk_09 --snapshot 1", "--snapshot"), 2);
  CHECK_EQ_INT(run_expect(P "table partitions pk_09.pk_09 --select a", "--select"), 2);
  /* time travel is applied to $files: snapshot 3 lists other files than the latest */
  char *a = NULL, *b = NULL;
  CHECK_EQ_INT(run(P "table files pk_09.pk_09 --snapshot 3 --format csv", &a), 0);
  CHECK_EQ_INT(run(P "table files pk_09.pk_09 --format csv", &b), 0);
  CHECK(strcmp(a, b) != 0);
  free(a);
  free(b);
}

static void test_help_and_version(void) { /* #5 */
  static const char *const cmds[] = {
      "--help", "table --help", "table read --help", "table get --help", "table files -h", "db --help",
      "db list --help", "db list-tables --help", "parquet --help", "parquet cat --help", "parquet meta --help",
      "parquet schema --help", "parquet scan --help", "parquet convert --help", "orc --help", "orc cat --help",
      "orc meta --help", "orc convert --help", "avro --help", "avro cat --help", "avro schema --help"};
  for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
    char cmd[256], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s %s 2>/dev/null", PAIMON, cmds[i]);
    CHECK_MSG(run(cmd, &out) == 0 && strstr(out, "usage:"), "%s", cmd);
    free(out);
  }
  char *out = NULL;
  CHECK_EQ_INT(run(PAIMON " --version", &out), 0);
  CHECK(!strncmp(out, "paimon 0.", 9));
  free(out);
}

static void test_numbers_that_do_not_fit(void) { /* #15 */
  CHECK_EQ_INT(run_expect(P "table read pk_09.pk_09 --snapshot 99999999999999999999", "invalid value for --snapshot"),
               2);
  CHECK_EQ_INT(run_expect(P "table read pk_09.pk_09 --limit 99999999999999999999", "invalid value for --limit"), 2);
  CHECK_EQ_INT(run_expect(P "table read pk_09.pk_09 --timestamp-millis 1e3", "--timestamp-millis"), 2);
  CHECK_EQ_INT(run_expect(P "table read pk_09.pk_09 --snapshot 0", "--snapshot"), 2);
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "%s orc cat %s --limit 99999999999999999999", PAIMON,
           PM_SHARED("fixtures/warehouse/orc/pk_09.db/pk_09/f1=10/bucket-0/x.orc"));
  CHECK_EQ_INT(run_expect(cmd, "--limit"), 2);
}

static void test_repeated_where_and_select(void) { /* #16 */
  char *out = NULL;
  CHECK_EQ_INT(run(P "table read pk_09.pk_09 --format jsonl --where 'f1 = 20' --where \"f0 = 'Lucy'\" "
                     "--select f0 --select f3",
                   &out),
               0);
  CHECK_EQ_STR(out, "{\"f0\":\"Lucy\",\"f3\":14.1}\n");
  free(out);
}

static void test_global_options_and_messages(void) { /* #19 */
  char *out = NULL;
  CHECK_EQ_INT(run(PAIMON " db list-tables pk_09 -w " WH, &out), 0);
  CHECK_EQ_STR(out, "pk_09\n");
  free(out);
  CHECK_EQ_INT(run(PAIMON " table read pk_09.pk_09 --format jsonl --select f0 --where 'f1 = 10' -w " WH " --limit 1",
                   &out),
               0);
  CHECK(strstr(out, "\"f0\"") != NULL);
  free(out);
  CHECK_EQ_INT(run_expect(P "table", "paimon table: missing subcommand"), 2);
  CHECK_EQ_INT(run_expect(P "table frobnicate pk_09.pk_09", "unknown subcommand 'frobnicate'"), 2);
  CHECK_EQ_INT(run_expect(P "db list-tables", "missing database name"), 2);
  CHECK_EQ_INT(run_expect(P "db list-tables nosuchdb", "nosuchdb"), 1);
  CHECK_EQ_INT(run_expect(P "table read", "missing table identifier"), 2);
}

static void test_convert_values(void) { /* #20 */
  char cmd[4096];
  const char *in = PM_SHARED("fixtures/warehouse/parquet/pk_09.db/pk_09/f1=10/bucket-0");
  char file[1024];
  snprintf(cmd, sizeof cmd, "ls %s/*.parquet | head -1", in);
  char *out = NULL;
  run(cmd, &out);
  snprintf(file, sizeof file, "%.*s", (int)strcspn(out, "\n"), out);
  free(out);
  snprintf(cmd, sizeof cmd, "%s parquet convert %s /tmp/pm_cli_opts_%d.parquet --level 99", PAIMON, file, (int)getpid());
  CHECK_EQ_INT(run_expect(cmd, "invalid value for --level: '99'"), 2);
  snprintf(cmd, sizeof cmd, "%s parquet convert %s /tmp/pm_cli_opts_%d.parquet --row-group-rows 0", PAIMON, file,
           (int)getpid());
  CHECK_EQ_INT(run_expect(cmd, "invalid value for --row-group-rows"), 2);
  snprintf(cmd, sizeof cmd, "%s parquet convert %s %s", PAIMON, file, file);
  CHECK_EQ_INT(run_expect(cmd, "is the input file"), 2);
  snprintf(cmd, sizeof cmd, "%s orc convert %s %s", PAIMON, file, file);
  CHECK_EQ_INT(run_expect(cmd, "is the input file"), 2);
  /* a valid conversion still works */
  snprintf(cmd, sizeof cmd, "%s parquet convert %s /tmp/pm_cli_opts_%d.parquet --level 3 --row-group-rows 2 && rm -f "
           "/tmp/pm_cli_opts_%d.parquet",
           PAIMON, file, (int)getpid(), (int)getpid());
  CHECK_EQ_INT(run_expect(cmd, "rows"), 0);
}

static void test_avro_cat_select_base64(void) { /* UX: avro cat --select, bytes as base64 */
  char cmd[4096], *out = NULL;
  snprintf(cmd, sizeof cmd, "%s avro cat \"$(ls %s/manifest-* | grep -v list | head -1)\" --select _KIND,_PARTITION",
           PAIMON, PM_SHARED("fixtures/warehouse/parquet/pk_09.db/pk_09/manifest"));
  CHECK_EQ_INT(run(cmd, &out), 0);
  CHECK_MSG(!strncmp(out, "{\"_KIND\":", 9) && strstr(out, ",\"_PARTITION\":\"AAAA") && !strstr(out, "_BUCKET") &&
                !strstr(out, "0x"),
            "%s", out);
  free(out);
  snprintf(cmd, sizeof cmd, "%s avro cat \"$(ls %s/manifest-* | grep -v list | head -1)\" --select nope",
           PAIMON, PM_SHARED("fixtures/warehouse/parquet/pk_09.db/pk_09/manifest"));
  CHECK_EQ_INT(run_expect(cmd, "no field 'nope'"), 1);
}

static size_t count_of(const char *hay, const char *needle) {
  size_t n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

static void test_unknown_and_invalid_options(void) { /* #9 */
  char *out = NULL;
  /* an unknown key warns once on stderr (with a suggestion) and the read still runs */
  CHECK_EQ_INT(run(P "table read append_09.append_09 --option scan.snapshot-idd=3 --format jsonl 2>&1 >/dev/null",
                   &out), 0);
  CHECK_MSG(count_of(out, "scan.snapshot-idd") == 1, "stderr: %s", out);
  CHECK_MSG(strstr(out, "warning") && strstr(out, "scan.snapshot-id'"), "stderr: %s", out);
  free(out);
  /* a known key with an invalid value fails, naming the key */
  CHECK(run_expect(P "table read append_09.append_09 --option read.batch-size=-5 --format jsonl", "read.batch-size") != 0);
  /* known keys give no warning */
  CHECK_EQ_INT(run(P "table read append_09.append_09 --option scan.snapshot-id=1 --format jsonl 2>&1 >/dev/null", &out), 0);
  CHECK_MSG(!strstr(out, "warning"), "stderr: %s", out);
  free(out);
}

int main(void) {
  RUN_TEST(test_unknown_and_invalid_options);
  RUN_TEST(test_avro_cat_select_base64);
  RUN_TEST(test_options_applied_or_refused);
  RUN_TEST(test_help_and_version);
  RUN_TEST(test_numbers_that_do_not_fit);
  RUN_TEST(test_repeated_where_and_select);
  RUN_TEST(test_global_options_and_messages);
  RUN_TEST(test_convert_values);
  TEST_MAIN_END();
}
