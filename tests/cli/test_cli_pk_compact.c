/* `paimon table compact` on copies of Java-written tables: a primary-key table
 * (partition f1, 2 buckets) compacted one partition with --full, then all
 * (nothing left to do, full or not); the metrics printed, the rows unchanged through
 * our reader and paimon-table read, paimon-table check passes, and the live
 * files sit at the max level. An append table with few files has nothing to compact; bad
 * arguments are refused. */
#include "harness.h"
#include "support/cli_run.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/oracle_table.h"

#define CLI PAIMON_BINARY_DIR "/paimon"
#define T "pk_table_scan_and_read_mor"
#define A "append_table_with_alter_table"

static char wh[256];

static int cli(const char *args, char **out) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "'%s' -w '%s' %s 2>&1", CLI, wh, args);
  return run(cmd, out);
}

/* The value after "name " in the metrics output, -1 when absent. */
static long long metric(const char *out, const char *name) {
  char key[64];
  snprintf(key, sizeof key, "\n%s ", name);
  const char *p = out ? strstr(out, key) : NULL;
  return p ? atoll(p + strlen(key)) : -1;
}

static void test_compact(void) {
  char *before = NULL, *out = NULL;
  CHECK_EQ_INT(cli("table read " T "." T " --format jsonl", &before), 0);
  CHECK_EQ_INT(cli("table compact " T "." T " --where 'f1 = 10' --full", &out), 0);
  CHECK_MSG(out && !strncmp(out, "snapshot 6\n", 11), "%s", out ? out : "");
  /* bucket 1 of f1=10 holds 4 level-0 files (7 keys); bucket 0 and f1=20 are one max-level run each */
  CHECK(metric(out, "tasks") == 1);
  CHECK(metric(out, "files_removed") == 4);
  CHECK(metric(out, "files_added") == 1);
  CHECK(metric(out, "rows_written") == 7);
  CHECK(metric(out, "bytes_written") > 0);
  CHECK(metric(out, "changelog_files_added") == 0);
  free(out);
  char dir[512];
  snprintf(dir, sizeof dir, "%s/" T ".db/" T, wh);
  /* everything is one max-level run now: a full compaction and a normal one do nothing */
  CHECK_EQ_INT(cli("table compact " T "." T " --full", &out), 0);
  CHECK_MSG(out && !strncmp(out, "nothing to compact\n", 19), "%s", out ? out : "");
  CHECK(metric(out, "tasks") == 0);
  free(out);
  CHECK_EQ_INT(cli("table compact " T "." T, &out), 0);
  CHECK_MSG(out && !strncmp(out, "nothing to compact\n", 19), "%s", out ? out : "");
  free(out);
  /* the rows are the same (our reader; paimon-table read); the table checks */
  CHECK_EQ_INT(cli("table read " T "." T " --format jsonl", &out), 0);
  json_t *b = ot_parse_lines(before, NULL), *a = ot_parse_lines(out, NULL);
  char msg[4096];
  CHECK_MSG(a && b && ot_rows_match(b, a, msg, sizeof msg), "%s", msg);
  if (ot_available() && b) {
    CHECK(ot_read_equals(dir, NULL, b, "after table compact"));
    CHECK(ot_check_ok(dir, OT_ALLOW_OLD, "after table compact"));
  }
  json_decref(a);
  json_decref(b);
  free(out);
  free(before);
  /* every live file at the max level (5): `table files` (csv column 6 = level) */
  CHECK_EQ_INT(cli("table files " T "." T " --format csv", &out), 0);
  int files = 0, at_max = 0;
  for (char *line = out ? strchr(out, '\n') : NULL; line && line[1]; line = strchr(line + 1, '\n')) {
    const char *p = line + 1;
    for (int c = 0; c < 5 && p; c++) p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
    files++;
    at_max += p && p[0] == '5' && p[1] == ',';
  }
  CHECK(files > 0);
  CHECK_EQ_INT(at_max, files);
  free(out);
}

static void test_errors(void) {
  char *out = NULL;
  struct {
    const char *args;
    int code;
    const char *msg;
  } cases[] = {
      /* an unaware-bucket append table with fewer than compaction.min.file-num files per partition */
      {"table compact " A "." A, 0, "nothing to compact"},
      {"table compact " T "." T " --partition nope=1", 1, "'nope' is not a partition key"},
      {"table compact " T "." T " --partition f1", 2, "k=v"},
      {"table compact " T "." T " --bogus", 2, "unknown option --bogus"},
      {"table compact " T "." T " --where \"f0 = 'x'\"", 1, "partition columns only"},
      {"table compact " T "." T " --where 'f1 >'", 1, ""},
      {"table compact " T "." T " --bucket x", 2, "bucket number"},
      {"table compact " T "." T " --where", 2, "missing or repeated value of --where"},
      {"table compact", 2, "missing table"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    CHECK_EQ_INT(cli(cases[i].args, &out), cases[i].code);
    CHECK_MSG(out && strstr(out, cases[i].msg), "%s: %s", cases[i].args, out ? out : "");
    free(out);
  }
}

int main(void) {
  snprintf(wh, sizeof wh, "/tmp/pm_cli_pk_compact_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  char cmd[2048];
  snprintf(cmd, sizeof cmd,
           "mkdir -p '%s/" T ".db' '%s/" A ".db' && cp -r '%s/fixtures/warehouse/parquet/" T ".db/" T "' '%s/" T
           ".db/' && cp -r '%s/fixtures/warehouse/parquet/" A ".db/" A "' '%s/" A ".db/' && chmod -R u+w '%s'",
           wh, wh, PAIMON_SHARED_DIR, wh, PAIMON_SHARED_DIR, wh, wh);
  if (system(cmd)) return 1;
  RUN_TEST(test_compact);
  RUN_TEST(test_errors);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && system(cmd)) return 1;
  TEST_MAIN_END();
}
