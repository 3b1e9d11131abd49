/*
 * `paimon table stream` (issue 14 §1): on a copy of a Java-written fixture,
 * --once with each --from against the fixture's expected rows, consumer
 * progress saved in Java's consumer file and resumed without --from; a live
 * follow: the stream runs as its own process while `table import` commits,
 * prints every imported row exactly once, and exits 0 on SIGINT; invalid
 * arguments are exit 2 with a message naming them.
 */
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "support/cli_fixture.h"
#include "support/stream_rows.h"

static cf_fixture fx;
static int kinds[5];

static json_t *expected(const char *name) {
  char p[1024];
  snprintf(p, sizeof p, "%s/fixtures/expected/%s.json", PAIMON_SHARED_DIR, name);
  json_t *j = json_load_file(p, 0, NULL);
  json_t *rows = j ? json_incref(json_object_get(j, "rows")) : json_array();
  json_decref(j);
  return rows;
}

/* JSON lines (objects f0..f3) to row arrays. */
static json_t *jsonl_rows(const char *text) {
  json_t *rows = json_array();
  const char *cols[] = {"f0", "f1", "f2", "f3"};
  for (const char *line = text; line && *line;) {
    const char *nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) : strlen(line);
    json_t *o = json_loadb(line, len, 0, NULL);
    CHECK_MSG(o && json_is_object(o), "not a JSON object: %.*s", (int)len, line);
    if (o) {
      json_t *r = json_array();
      for (int c = 0; c < 4; c++) json_array_append(r, json_object_get(o, cols[c]));
      json_array_append_new(rows, r);
    }
    json_decref(o);
    line = nl ? nl + 1 : NULL;
  }
  return rows;
}

static int stream(const char *args, char **out) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "%s -w '%s' table stream %s %s", CF_CLI, fx.wh, fx.ident, args);
  return run(cmd, out);
}

static void expect_rows(const char *args, const json_t *want, const char *what) {
  char *out = NULL;
  int st = stream(args, &out);
  CHECK_MSG(st == 0, "%s: exit %d", what, st);
  json_t *rows = jsonl_rows(out);
  char msg[4096];
  CHECK_MSG(fxc_rows_match(want, rows, kinds, msg, sizeof msg), "%s: %s", what, msg);
  json_decref(rows);
  free(out);
}

static long long consumer_next(const char *id) {
  char p[1200];
  snprintf(p, sizeof p, "%s/consumer/consumer-%s", fx.dir, id);
  json_t *j = json_load_file(p, 0, NULL);
  long long v = j ? (long long)json_integer_value(json_object_get(j, "nextSnapshot")) : -1;
  json_decref(j);
  return v;
}

static void test_once(void) {
  json_t *e1 = expected("parquet__append_09__snapshot-1"), *e5 = expected("parquet__append_09__snapshot-5");
  json_t *after1 = sr_minus(e5, e1, kinds), *none = json_array();
  expect_rows("--once --format jsonl 2>/dev/null", e5, "default start");
  expect_rows("--once --from earliest --format jsonl 2>/dev/null", e5, "earliest");
  expect_rows("--once --from latest --format jsonl 2>/dev/null", none, "latest");
  expect_rows("--once --from snapshot:2 --format jsonl 2>/dev/null", after1, "snapshot:2");
  char p[1200];
  snprintf(p, sizeof p, "%s/snapshot/snapshot-2", fx.dir);
  json_t *s2 = json_load_file(p, 0, NULL);
  char args[256];
  snprintf(args, sizeof args, "--once --from timestamp:%lld --format jsonl 2>/dev/null",
           (long long)json_integer_value(json_object_get(s2, "timeMillis")));
  json_decref(s2);
  expect_rows(args, after1, "timestamp:millis");
  /* a consumer: progress saved after the batches, resumed without --from */
  expect_rows("--once --from snapshot:2 --consumer-id c1 --format jsonl 2>/dev/null", after1, "consumer first");
  CHECK_EQ_INT(consumer_next("c1"), 6);
  expect_rows("--once --consumer-id c1 --format jsonl 2>/dev/null", none, "consumer resumed");
  /* --from wins over saved progress */
  expect_rows("--once --from earliest --consumer-id c1 --format jsonl 2>/dev/null", e5, "consumer with --from");
  /* CSV: one header, every row */
  char *out = NULL;
  CHECK_EQ_INT(stream("--once --format csv 2>/dev/null", &out), 0);
  size_t lines = 0;
  for (char *q = out; q && *q; q++) lines += *q == '\n';
  CHECK_EQ_INT(lines, json_array_size(e5) + 1);
  CHECK(out && !strncmp(out, "f0,f1,f2,f3\n", 12));
  free(out);
  /* --row-kind and --select, --where */
  CHECK_EQ_INT(stream("--once --from snapshot:4 --row-kind --select f0 --where 'f1 = 10' --format jsonl 2>/dev/null",
                      &out),
               0);
  CHECK_MSG(out && !strcmp(out, "{\"_row_kind\":\"+I\",\"f0\":\"Lily\"}\n"), "row kind: %s", out ? out : "");
  free(out);
  json_decref(e1);
  json_decref(e5);
  json_decref(after1);
  json_decref(none);
}

static void expect_fail(const char *args, int code, const char *needle) {
  char *out = NULL;
  char a[1024];
  snprintf(a, sizeof a, "%s 2>&1", args);
  int st = stream(a, &out);
  CHECK_MSG(st == code && out && strstr(out, needle), "'%s': exit %d, output '%s' (want %d, '%s')", args, st,
            out ? out : "", code, needle);
  free(out);
}

static void test_errors(void) {
  expect_fail("--from bogus", 2, "invalid --from 'bogus'");
  expect_fail("--from snapshot:x", 2, "snapshot:N");
  expect_fail("--from snapshot:0", 2, "snapshot:N");
  expect_fail("--from latest --option scan.mode=latest", 2, "both choose the start");
  expect_fail("--consumer-id a/b --once", 2, "--consumer-id");
  expect_fail("--limit 3", 2, "--limit");
  expect_fail("--snapshot 3", 2, "--snapshot");
  expect_fail("--from", 2, "needs a value");
  expect_fail("--option scan.mode=latest-delta --once", 1, "latest-delta");
  expect_fail("--option scan.tag-name=x --once", 1, "tag");
  expect_fail("--from timestamp:yesterday --once", 1, "yesterday");
  char cmd[1024], *out = NULL;
  snprintf(cmd, sizeof cmd, "%s -w '%s' table stream '%s$snapshots' 2>&1", CF_CLI, fx.wh, fx.ident);
  CHECK_EQ_INT(run(cmd, &out), 2);
  CHECK(out && strstr(out, "system table"));
  free(out);
  snprintf(cmd, sizeof cmd, "%s table stream --help", CF_CLI);
  CHECK_EQ_INT(run(cmd, &out), 0);
  CHECK(out && strstr(out, "table stream DB.T [--from latest|earliest|snapshot:N|timestamp:TS]") &&
        strstr(out, "--once") && strstr(out, "--consumer-id"));
  free(out);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return strdup("");
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)n + 1);
  size_t k = fread(b, 1, (size_t)n, f);
  b[k] = 0;
  fclose(f);
  return b;
}

static size_t count_lines(const char *s) {
  size_t n = 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

/* A live follow: the stream process prints each import's rows once; SIGINT ends it with exit 0. */
static void test_follow_sigint(void) {
  char cmd[4096], *out = NULL;
  snprintf(cmd, sizeof cmd, "%s -w '%s' db create live 2>&1", CF_CLI, fx.wh);
  CHECK_EQ_INT(run(cmd, &out), 0);
  free(out);
  snprintf(cmd, sizeof cmd, "%s -w '%s' table create live.t --columns 'id INT NOT NULL, c INT' --option bucket=2 "
                            "--option bucket-key=id 2>&1",
           CF_CLI, fx.wh);
  CHECK_EQ_INT(run(cmd, &out), 0);
  free(out);
  char outp[600], errp[600];
  snprintf(outp, sizeof outp, "%s/stream.out", fx.wh);
  snprintf(errp, sizeof errp, "%s/stream.err", fx.wh);
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    int fo = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0644), fe = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fo, 1);
    dup2(fe, 2);
    execl(CF_CLI, CF_CLI, "-w", fx.wh, "table", "stream", "live.t", "--format", "jsonl", "--consumer-id", "live",
          "--option", "continuous.discovery-interval=50 ms", (char *)NULL);
    _exit(127);
  }
  CHECK(pid > 0);
  enum { N_IMPORTS = 5, N_ROWS = 4 };
  for (int i = 0; i < N_IMPORTS; i++) {
    char data[600];
    snprintf(data, sizeof data, "%s/in%d.jsonl", fx.wh, i);
    FILE *f = fopen(data, "w");
    for (int j = 0; f && j < N_ROWS; j++) fprintf(f, "{\"id\":%d,\"c\":%d}\n", i * 100 + j, i);
    if (f) fclose(f);
    snprintf(cmd, sizeof cmd, "%s -w '%s' table import live.t '%s' >/dev/null 2>&1", CF_CLI, fx.wh, data);
    CHECK_EQ_INT(run(cmd, &out), 0);
    free(out);
    usleep(100000);
  }
  double deadline = now_s() + 120; /* ends as soon as every row is seen; generous for loaded machines */
  char *text = NULL;
  for (;;) {
    free(text);
    text = slurp(outp);
    if (count_lines(text) >= N_IMPORTS * N_ROWS || now_s() > deadline) break;
    usleep(50000);
  }
  usleep(200000); /* a duplicate would show up now */
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "stream status %d", status);
  free(text);
  text = slurp(outp);
  char *err = slurp(errp);
  CHECK_MSG(strstr(err, "Ctrl-C stops") != NULL, "stderr: %s", err);
  int seen[N_IMPORTS * 100] = {0}, bad = 0;
  size_t n = 0;
  for (char *line = text; *line;) {
    char *nl = strchr(line, '\n');
    json_t *o = json_loadb(line, nl ? (size_t)(nl - line) : strlen(line), 0, NULL);
    int id = o ? (int)json_integer_value(json_object_get(o, "id")) : -1;
    if (id < 0 || id >= N_IMPORTS * 100 || id % 100 >= N_ROWS || seen[id]++) bad++;
    json_decref(o);
    n++;
    if (!nl) break;
    line = nl + 1;
  }
  CHECK_MSG(n == N_IMPORTS * N_ROWS && !bad, "follow: %zu lines, %d bad or repeated; stdout:\n%s\nstderr:\n%s", n, bad,
            text, err);
  /* the consumer was saved after the batches: a resumed --once prints nothing new */
  snprintf(cmd, sizeof cmd, "%s -w '%s' table stream live.t --consumer-id live --once --format jsonl 2>/dev/null",
           CF_CLI, fx.wh);
  CHECK_EQ_INT(run(cmd, &out), 0);
  CHECK_MSG(out && !*out, "resumed consumer printed: %s", out ? out : "");
  free(out);
  free(text);
  free(err);
  char dir[700];
  snprintf(dir, sizeof dir, "%s/live.db/t", fx.wh);
  if (ot_available()) CHECK(ot_check_ok(dir, 0, "streamed table"));
}

int main(void) {
  kinds[3] = fxc_column_kind("DOUBLE");
  if (cf_setup(&fx, "pm_cli_stream", "append_09")) {
    fprintf(stderr, "setup failed\n");
    return 1;
  }
  RUN_TEST(test_once);
  RUN_TEST(test_errors);
  RUN_TEST(test_follow_sigint);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx.wh);
  if (system(cmd)) fprintf(stderr, "cleanup failed\n");
  TEST_MAIN_END();
}
