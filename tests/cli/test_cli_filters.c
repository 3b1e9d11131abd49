/* Issue 10 #6 #7 #17 #18 and the filter UX items through `paimon table read --where / --timestamp`. */
#include <jansson.h>
#include <sys/wait.h>

#include "harness.h"
#include "support/cli_run.h"

#define PAIMON PAIMON_BINARY_DIR "/paimon"
#define WH PM_SHARED("fixtures/warehouse/parquet")
#define TS "append_with_multiple_ts_precision_and_timezone.append_with_multiple_ts_precision_and_timezone"

static int count_lines(const char *s) {
  int n = 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

/* #6: literal errors say what the value is, the column's type and why. */
static void test_literal_errors(void) {
  char *out = NULL;
  CHECK_EQ_INT(run(PAIMON " -w " WH " table read pk_09.pk_09 --where \"f1 = 'abc'\" 2>&1", &out), 1);
  CHECK_MSG(strstr(out, "'abc' is not a valid INT for column 'f1'") != NULL && !strstr(out, "kind"), "%s", out);
  free(out);
  CHECK_EQ_INT(run(PAIMON " -w " WH " table read " TS " --where \"ts_sec = '1970-13-45'\" 2>&1", &out), 1);
  CHECK_MSG(strstr(out, "'1970-13-45' is not a valid TIMESTAMP(0) for column 'ts_sec'") != NULL, "%s", out);
  free(out);
  CHECK_EQ_INT(run(PAIMON " -w " WH " table read pk_09.pk_09 --where \"f1 = DATE '1970-13-45'\" 2>&1", &out), 1);
  CHECK_MSG(strstr(out, "DATE '1970-13-45'") != NULL && strstr(out, "not a valid date"), "%s", out);
  free(out);
}

/* #17: printed forms are accepted for TIMESTAMP WITH LOCAL TIME ZONE columns; integers are refused. */
static void test_printed_timestamps_accepted(void) {
  char *out = NULL;
  CHECK_EQ_INT(run(PAIMON " -w " WH " table read " TS " --select ts_tz_sec --where \"ts_tz_sec = '1970-01-01T00:00:04Z'\" "
                            "--format jsonl",
                   &out),
               0);
  CHECK_EQ_STR(out, "{\"ts_tz_sec\":\"1970-01-01T00:00:04Z\"}\n");
  free(out);
  CHECK_EQ_INT(run(PAIMON " -w " WH " table read " TS " --select ts_sec --where \"ts_sec = '1970-01-01T00:00:03'\" "
                            "--format jsonl",
                   &out),
               0);
  CHECK_EQ_STR(out, "{\"ts_sec\":\"1970-01-01T00:00:03\"}\n");
  free(out);
  CHECK_EQ_INT(run(PAIMON " -w " WH " table read " TS " --where \"ts_sec > 3\" 2>&1", &out), 1);
  CHECK_MSG(strstr(out, "3 does not fit column 'ts_sec' of type TIMESTAMP(0): a number is not a timestamp") != NULL,
            "%s", out);
  free(out);
}

/* #7: filter literals on local-time-zone columns honour the zone; printed commit times are
 * zoned and paste back into --timestamp under any TZ. */
static void test_time_zone_rule(void) {
  char *out = NULL;
  /* zone-less text on an LTZ column is local time: 08:00:04 in Shanghai is 00:00:04Z */
  CHECK_EQ_INT(run("TZ=Asia/Shanghai " PAIMON " -w " WH " table read " TS " --select ts_tz_sec "
                   "--where \"ts_tz_sec = '1970-01-01 08:00:04'\" --format jsonl",
                   &out),
               0);
  CHECK_EQ_STR(out, "{\"ts_tz_sec\":\"1970-01-01T00:00:04Z\"}\n");
  free(out);
  CHECK_EQ_INT(run("TZ=Asia/Shanghai " PAIMON " -w " WH " table read " TS " --select ts_tz_sec "
                   "--where \"ts_tz_sec = '1970-01-01 08:00:04+08:00'\" --format jsonl",
                   &out),
               0);
  CHECK_EQ_STR(out, "{\"ts_tz_sec\":\"1970-01-01T00:00:04Z\"}\n");
  free(out);
  /* commit_time prints with its zone ... */
  CHECK_EQ_INT(run("TZ=Asia/Shanghai " PAIMON " -w " WH " table read 'pk_09.pk_09$snapshots' --format jsonl", &out), 0);
  char times[8][64];
  int n = 0;
  for (char *line = out; *line && n < 8;) {
    char *nl = strchr(line, '\n');
    if (nl) *nl = 0;
    json_t *o = json_loads(line, 0, NULL);
    const char *ct = o ? json_string_value(json_object_get(o, "commit_time")) : NULL;
    CHECK_MSG(ct && strlen(ct) > 1 && ct[strlen(ct) - 1] == 'Z', "commit_time %s", ct ? ct : "(none)");
    if (ct) snprintf(times[n++], sizeof times[0], "%s", ct);
    json_decref(o);
    if (!nl) break;
    line = nl + 1;
  }
  free(out);
  CHECK_EQ_INT(n, 8);
  /* ... and every printed commit time selects its own snapshot as a time-travel value */
  for (int i = 0; i < n; i++) {
    char cmd[1024];
    char *a = NULL, *b = NULL;
    snprintf(cmd, sizeof cmd, "TZ=Asia/Shanghai " PAIMON " -w " WH " table read pk_09.pk_09 --timestamp '%s' --format jsonl",
             times[i]);
    CHECK_EQ_INT(run(cmd, &a), 0);
    snprintf(cmd, sizeof cmd, PAIMON " -w " WH " table read pk_09.pk_09 --snapshot %d --format jsonl", i + 1);
    CHECK_EQ_INT(run(cmd, &b), 0);
    CHECK_MSG(!strcmp(a, b), "--timestamp '%s' read differs from --snapshot %d", times[i], i + 1);
    free(a);
    free(b);
  }
}

/* #18: at least 64 levels of nesting; the limit is stated. */
static void test_nesting(void) {
  char where[2048], cmd[4096];
  char *out = NULL;
  for (int depth = 64; depth <= 129; depth += 65) {
    size_t k = 0;
    for (int i = 0; i < depth; i++) where[k++] = '(';
    k += (size_t)snprintf(where + k, sizeof where - k, "f1 = 10");
    for (int i = 0; i < depth; i++) where[k++] = ')';
    where[k] = 0;
    snprintf(cmd, sizeof cmd, PAIMON " -w " WH " table read pk_09.pk_09 --where '%s' --format jsonl 2>&1", where);
    int rc = run(cmd, &out);
    if (depth == 64) {
      CHECK_EQ_INT(rc, 0);
      CHECK(count_lines(out) >= 1 && !strstr(out, "nested"));
    } else {
      CHECK_EQ_INT(rc, 1);
      CHECK_MSG(strstr(out, "nested deeper than 128 levels") != NULL, "%s", out);
    }
    free(out);
  }
}

/* Filters UX: not like, between, DATE / TIMESTAMP literals, double-quoted names. */
static void test_filter_grammar(void) {
  char *out = NULL, *all = NULL;
  CHECK_EQ_INT(run(PAIMON " -w " WH " table read pk_09.pk_09 --format jsonl", &all), 0);
  int total = count_lines(all);
  free(all);
  CHECK_EQ_INT(run(PAIMON " -w " WH " table read pk_09.pk_09 --where \"f0 like 'A%'\" --format jsonl", &out), 0);
  int like = count_lines(out);
  free(out);
  CHECK_EQ_INT(run(PAIMON " -w " WH " table read pk_09.pk_09 --where \"f0 not like 'A%'\" --format jsonl", &out), 0);
  CHECK_EQ_INT(count_lines(out) + like, total);
  CHECK(like > 0 && count_lines(out) > 0);
  free(out);
  CHECK_EQ_INT(run(PAIMON " -w " WH " table read pk_09.pk_09 --where '\"f1\" between 10 and 10' --format jsonl", &out), 0);
  int b = count_lines(out);
  free(out);
  CHECK_EQ_INT(run(PAIMON " -w " WH " table read pk_09.pk_09 --where 'f1 not between 10 and 10' --format jsonl", &out), 0);
  CHECK_EQ_INT(count_lines(out) + b, total);
  free(out);
  CHECK_EQ_INT(run(PAIMON " -w " WH " table read " TS " --select ts_sec --where \"ts_sec >= TIMESTAMP '1970-01-01 00:00:03' "
                            "and ts_sec < DATE '1970-01-02'\" --format jsonl",
                   &out),
               0);
  CHECK_EQ_INT(count_lines(out), 2);
  free(out);
}

int main(void) {
  RUN_TEST(test_literal_errors);
  RUN_TEST(test_printed_timestamps_accepted);
  RUN_TEST(test_time_zone_rule);
  RUN_TEST(test_nesting);
  RUN_TEST(test_filter_grammar);
  TEST_MAIN_END();
}
