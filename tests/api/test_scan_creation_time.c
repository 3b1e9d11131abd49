/*
 * scan.mode = from-creation-timestamp (scan.creation-time-millis), batch and stream, on a table we
 * write with three commits (rows 0..3, 4..7, 8..11) at distinct times: a time within the snapshots
 * starts from the snapshot after the last one committed before it (batch: that snapshot's rows;
 * stream: the changes from it on); a time at or before the earliest snapshot, or after the latest,
 * reads the latest snapshot's files created at or after it (Java's createCreationTimestampStartingScanner);
 * a missing time is a clear error. Expected rows are the rows written.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "harness.h"
#include "support/oracle_write.h"
#include "support/stream_rows.h"

static char tmp_root[256];

static void nap_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static int64_t snapshot_time(const char *table_dir, int id) {
  char p[700];
  snprintf(p, sizeof p, "%s/snapshot/snapshot-%d", table_dir, id);
  json_t *j = json_load_file(p, 0, NULL);
  CHECK_MSG(j != NULL, "%s", p);
  int64_t v = j ? json_integer_value(json_object_get(j, "timeMillis")) : 0;
  json_decref(j);
  return v;
}

/* Sorted ids of rows read (column 0). */
static char *ids(const json_t *rows) {
  int v[256];
  size_t n = 0;
  for (size_t i = 0; i < json_array_size(rows) && n < 256; i++)
    v[n++] = (int)json_integer_value(json_array_get(json_array_get(rows, i), 0));
  for (size_t i = 1; i < n; i++)
    for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
      int x = v[j];
      v[j] = v[j - 1], v[j - 1] = x;
    }
  char *s = calloc(1, 2048);
  size_t len = 0;
  for (size_t i = 0; i < n; i++) len += (size_t)snprintf(s + len, 2048 - len, "%s%d", i ? "," : "", v[i]);
  return s;
}

static void expect_batch(paimon_table *t, int64_t ts, const char *want) {
  char v[32];
  snprintf(v, sizeof v, "%lld", (long long)ts);
  paimon_option o[] = {{"scan.mode", "from-creation-timestamp"}, {"scan.creation-time-millis", v}};
  paimon_error err = {0};
  paimon_read_builder *rb = NULL;
  paimon_plan *plan = NULL;
  json_t *rows = json_array();
  CHECK_OK(paimon_read_builder_new(t, o, 2, &rb, &err), &err);
  CHECK_OK(paimon_read_builder_plan(rb, &plan, &err), &err);
  if (plan) CHECK_OK(sr_read_plan(rb, plan, rows, NULL, &err), &err);
  char *got = ids(rows);
  CHECK_MSG(!strcmp(got, want), "batch at %lld: rows %s, expected %s", (long long)ts, got, want);
  free(got);
  json_decref(rows);
  paimon_plan_free(plan);
  paimon_read_builder_free(rb);
  /* the same with scan.mode left at default */
  paimon_option o2[] = {{"scan.creation-time-millis", v}};
  rows = json_array();
  CHECK_OK(paimon_read_builder_new(t, o2, 1, &rb, &err), &err);
  plan = NULL;
  CHECK_OK(paimon_read_builder_plan(rb, &plan, &err), &err);
  if (plan) CHECK_OK(sr_read_plan(rb, plan, rows, NULL, &err), &err);
  got = ids(rows);
  CHECK_MSG(!strcmp(got, want), "batch (default mode) at %lld: rows %s, expected %s", (long long)ts, got, want);
  free(got);
  json_decref(rows);
  paimon_plan_free(plan);
  paimon_read_builder_free(rb);
}

/* Stream: rows of the first plan, then of the follow-ups. */
static void expect_stream(paimon_table *t, int64_t ts, const char *want_first, const char *want_all) {
  char v[32];
  snprintf(v, sizeof v, "%lld", (long long)ts);
  paimon_option o[] = {{"scan.mode", "from-creation-timestamp"}, {"scan.creation-time-millis", v}};
  paimon_error err = {0};
  paimon_read_builder *rb = NULL;
  paimon_stream_scan *ss = NULL;
  paimon_plan *plan = NULL;
  json_t *first = json_array(), *all = json_array();
  CHECK_OK(paimon_read_builder_new(t, o, 2, &rb, &err), &err);
  CHECK_OK(paimon_stream_scan_new(rb, &ss, &err), &err);
  if (ss) CHECK_OK(paimon_stream_scan_plan(ss, &plan, &err), &err);
  if (plan) CHECK_OK(sr_read_plan(rb, plan, first, NULL, &err), &err);
  paimon_plan_free(plan);
  json_array_extend(all, first);
  if (ss) CHECK_OK(sr_drain(ss, rb, all, 10, NULL, &err), &err);
  char *g1 = ids(first), *g2 = ids(all);
  CHECK_MSG(!strcmp(g1, want_first) && !strcmp(g2, want_all), "stream at %lld: first %s (expected %s), all %s (%s)",
            (long long)ts, g1, want_first, g2, want_all);
  free(g1), free(g2);
  json_decref(first), json_decref(all);
  paimon_stream_scan_free(ss);
  paimon_read_builder_free(rb);
}

static void test_creation_timestamp(void) {
  char wh[512], dir[700];
  snprintf(wh, sizeof wh, "%s/wh", tmp_root);
  CHECK(mkdir(wh, 0755) == 0);
  paimon_option co[] = {{"warehouse", wh}};
  paimon_catalog *c = NULL;
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_open(co, 1, &c, &err), &err);
  const char *opts[] = {"bucket=-1", "file.format=parquet"};
  CHECK_OK(ow_create_table(c, "db", "t", "id INT, v STRING", NULL, opts, 2, 0, &err), &err);
  paimon_table *t = NULL;
  CHECK_OK(paimon_catalog_get_table(c, "db.t", &t, &err), &err);
  if (!t) return;
  for (int k = 0; k < 3; k++) {
    char lines[512] = "";
    size_t len = 0;
    for (int r = 4 * k; r < 4 * k + 4; r++)
      len += (size_t)snprintf(lines + len, sizeof lines - len, "{\"id\": %d, \"v\": \"r%d\"}\n", r, r);
    CHECK_OK(ow_write_commit(t, NULL, 0, 0, lines, NULL, 0, 0, NULL, &err), &err);
    nap_ms(40);
  }
  snprintf(dir, sizeof dir, "%s/db.db/t", wh);
  int64_t t1 = snapshot_time(dir, 1), t2 = snapshot_time(dir, 2), t3 = snapshot_time(dir, 3);
  CHECK(t1 < t2 && t2 < t3);
  /* within the snapshots: from snapshot 2 (the first committed at or after the time) */
  expect_batch(t, t2, "0,1,2,3,4,5,6,7");
  expect_batch(t, t2 - 1, "0,1,2,3,4,5,6,7");
  expect_batch(t, t3, "0,1,2,3,4,5,6,7,8,9,10,11");
  expect_stream(t, t2, "", "4,5,6,7,8,9,10,11");
  expect_stream(t, t3, "", "8,9,10,11");
  /* at the earliest snapshot: the latest snapshot's files created at or after it (commits 2 and 3) */
  expect_batch(t, t1, "4,5,6,7,8,9,10,11");
  expect_stream(t, t1, "4,5,6,7,8,9,10,11", "4,5,6,7,8,9,10,11");
  expect_batch(t, t1 - 100000, "0,1,2,3,4,5,6,7,8,9,10,11");
  /* after the latest: no file is that new */
  expect_batch(t, t3 + 100000, "");
  expect_stream(t, t3 + 100000, "", "");
  /* no time: a clear error */
  paimon_option bad[] = {{"scan.mode", "from-creation-timestamp"}};
  paimon_read_builder *rb = NULL;
  paimon_stream_scan *ss = NULL;
  paimon_plan *plan = NULL;
  CHECK_OK(paimon_read_builder_new(t, bad, 1, &rb, &err), &err);
  memset(&err, 0, sizeof err);
  CHECK_MSG(paimon_stream_scan_new(rb, &ss, &err) == PAIMON_ERR_INVALID_ARGUMENT &&
                strstr(err.message, "scan.creation-time-millis"),
            "%s", err.message);
  memset(&err, 0, sizeof err);
  CHECK_MSG(paimon_read_builder_plan(rb, &plan, &err) == PAIMON_ERR_INVALID_ARGUMENT &&
                strstr(err.message, "scan.creation-time-millis"),
            "%s", err.message);
  paimon_plan_free(plan);
  paimon_stream_scan_free(ss);
  paimon_read_builder_free(rb);
  paimon_table_free(t);
  paimon_catalog_free(c);
}

int main(void) {
  snprintf(tmp_root, sizeof tmp_root, "/tmp/pm_creation_ts_XXXXXX");
  if (!mkdtemp(tmp_root)) return 1;
  RUN_TEST(test_creation_timestamp);
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmp_root);
  if (system(cmd)) return 1;
  TEST_MAIN_END();
}
