/*
 * Stream scans (paimon/stream.h) on copies of Java-written fixtures: every
 * scan.mode start compared with the fixtures' expected rows (full plans = the
 * expected rows of that snapshot; follow-ups = the expected rows of the later
 * snapshot minus the earlier one for the append fixture, the README's change
 * log for the primary-key one); checkpoints, restore without loss or
 * duplicates; consumers: progress in Java's consumer file, resumed without
 * --from, ignore-progress; invalid arguments are clear errors before any work.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "support/fixture_copy.h"
#include "support/stream_rows.h"

static char tmp_root[256];
static int kinds4[5]; /* f0 STRING, f1 INT, f2 INT, f3 DOUBLE */
static json_t *E1, *E3, *E5; /* append_09 expected rows at snapshots 1, 3, 5 */

static json_t *expected_rows(const char *name) {
  char p[1024];
  snprintf(p, sizeof p, "%s/fixtures/expected/%s.json", PAIMON_SHARED_DIR, name);
  json_error_t je;
  json_t *j = json_load_file(p, 0, &je);
  CHECK_MSG(j != NULL, "%s: %s", p, je.text);
  json_t *rows = j ? json_incref(json_object_get(j, "rows")) : json_array();
  json_decref(j);
  return rows;
}

/* A catalog over a copy of fixture `rel` (fmt/name.db/name) as warehouse tmp/<tag>. */
static paimon_catalog *copy_catalog(const char *rel, const char *tag, char *table_dir, size_t cap) {
  char wh[512];
  snprintf(wh, sizeof wh, "%s/%s", tmp_root, tag);
  const char *db = strchr(rel, '/') + 1;
  snprintf(table_dir, cap, "%s/%s", wh, db);
  CHECK(fc_copy_fixture(rel, table_dir) == 0);
  paimon_option o[] = {{"warehouse", wh}};
  paimon_catalog *c = NULL;
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_open(o, 1, &c, &err), &err);
  return c;
}

typedef struct mode_case {
  const char *opts[6]; /* k, v pairs, NULL-terminated */
  json_t **first;      /* rows of the first plan (NULL: it has none) */
  json_t *all;         /* every row the scan yields */
  int64_t first_checkpoint;
} mode_case;

static void run_mode(paimon_table *t, const mode_case *mc, const char *what) {
  paimon_option o[3];
  size_t n = 0;
  for (; n < 3 && mc->opts[2 * n]; n++) o[n] = (paimon_option){mc->opts[2 * n], mc->opts[2 * n + 1]};
  paimon_error err = {0};
  paimon_read_builder *rb = NULL;
  paimon_stream_scan *ss = NULL;
  CHECK_OK(paimon_read_builder_new(t, o, n, &rb, &err), &err);
  const char *cols[] = {"f0", "f1", "f2", "f3"};
  CHECK_OK(paimon_read_builder_with_projection(rb, cols, 4, &err), &err);
  CHECK_OK(paimon_stream_scan_new(rb, &ss, &err), &err);
  if (!ss) {
    paimon_read_builder_free(rb);
    return;
  }
  int64_t cp = -1;
  CHECK(!paimon_stream_scan_checkpoint(ss, &cp)); /* not started */
  paimon_plan *plan = NULL;
  CHECK_OK(paimon_stream_scan_plan(ss, &plan, &err), &err);
  json_t *first = json_array(), *all = json_array();
  if (plan) CHECK_OK(sr_read_plan(rb, plan, first, NULL, &err), &err);
  paimon_plan_free(plan);
  CHECK_MSG(paimon_stream_scan_checkpoint(ss, &cp) && cp == mc->first_checkpoint, "%s: checkpoint %lld, expected %lld",
            what, (long long)cp, (long long)mc->first_checkpoint);
  char msg[4096];
  if (mc->first) CHECK_MSG(fxc_rows_match(*mc->first, first, kinds4, msg, sizeof msg), "%s first plan: %s", what, msg);
  else CHECK_MSG(json_array_size(first) == 0, "%s: first plan has %zu rows", what, json_array_size(first));
  json_array_extend(all, first);
  CHECK_OK(sr_drain(ss, rb, all, 10, NULL, &err), &err);
  CHECK_MSG(fxc_rows_match(mc->all, all, kinds4, msg, sizeof msg), "%s all rows: %s", what, msg);
  CHECK_MSG(paimon_stream_scan_checkpoint(ss, &cp) && cp == 6, "%s: final checkpoint %lld", what, (long long)cp);
  json_decref(first);
  json_decref(all);
  paimon_stream_scan_free(ss);
  paimon_read_builder_free(rb);
}

/* append_09: snapshots 1-4 APPEND, 5 COMPACT (README: 5 + 4 + 1 + 1 rows). */
static void test_append_fixture_modes(void) {
  char dir[1024];
  paimon_catalog *cat = copy_catalog("orc/append_09.db/append_09", "modes", dir, sizeof dir);
  paimon_table *t = NULL;
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_get_table(cat, "append_09.append_09", &t, &err), &err);
  if (!t) {
    paimon_catalog_free(cat);
    return;
  }
  json_t *after1 = sr_minus(E5, E1, kinds4);
  CHECK_EQ_INT(json_array_size(after1), 6);
  /* snapshot 2's time: from-timestamp at it starts at snapshot 2 (the latest older one is 1) */
  char p[1200];
  snprintf(p, sizeof p, "%s/snapshot/snapshot-2", dir);
  json_t *s2 = json_load_file(p, 0, NULL);
  char ts[32];
  snprintf(ts, sizeof ts, "%lld", (long long)json_integer_value(json_object_get(s2, "timeMillis")));
  json_decref(s2);
  mode_case cases[] = {
      {{NULL}, &E5, E5, 6},
      {{"scan.mode", "latest-full", NULL}, &E5, E5, 6},
      {{"scan.mode", "full", NULL}, &E5, E5, 6},
      {{"scan.mode", "latest", NULL}, NULL, json_array(), 6},
      {{"scan.mode", "compacted-full", NULL}, &E5, E5, 6},
      {{"scan.mode", "from-snapshot-full", "scan.snapshot-id", "1", NULL}, &E1, E5, 2},
      {{"scan.mode", "from-snapshot-full", "scan.snapshot-id", "3", NULL}, &E3, E5, 4},
      {{"scan.mode", "from-snapshot", "scan.snapshot-id", "2", NULL}, NULL, after1, 2},
      {{"scan.snapshot-id", "2", NULL}, NULL, after1, 2}, /* default with a snapshot id: from-snapshot */
      {{"scan.mode", "from-snapshot", "scan.snapshot-id", "0", NULL}, NULL, E5, 1}, /* clamped to earliest */
      {{"scan.mode", "from-timestamp", "scan.timestamp-millis", ts, NULL}, NULL, after1, 2},
      {{"scan.timestamp-millis", ts, NULL}, NULL, after1, 2},
      {{"scan.mode", "from-timestamp", "scan.timestamp-millis", "1", NULL}, NULL, E5, 1}, /* before all */
      {{"scan.mode", "from-file-creation-time", "scan.file-creation-time-millis", "0", NULL}, &E5, E5, 6},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char what[128];
    snprintf(what, sizeof what, "case %zu (%s=%s)", i, cases[i].opts[0] ? cases[i].opts[0] : "-",
             cases[i].opts[1] ? cases[i].opts[1] : "-");
    run_mode(t, &cases[i], what);
  }
  json_decref(cases[3].all);
  json_decref(after1);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* Reads a consumer file independently (Java's JSON layout). */
static long long consumer_next(const char *dir, const char *id) {
  char p[1200];
  snprintf(p, sizeof p, "%s/consumer/consumer-%s", dir, id);
  json_t *j = json_load_file(p, 0, NULL);
  long long v = j ? (long long)json_integer_value(json_object_get(j, "nextSnapshot")) : -1;
  json_decref(j);
  return v;
}

static paimon_stream_scan *open_scan(paimon_table *t, const paimon_option *o, size_t n, paimon_read_builder **rb) {
  paimon_error err = {0};
  paimon_stream_scan *ss = NULL;
  *rb = NULL;
  CHECK_OK(paimon_read_builder_new(t, o, n, rb, &err), &err);
  const char *cols[] = {"f0", "f1", "f2", "f3"};
  if (*rb) CHECK_OK(paimon_read_builder_with_projection(*rb, cols, 4, &err), &err);
  if (*rb) CHECK_OK(paimon_stream_scan_new(*rb, &ss, &err), &err);
  return ss;
}

/* One plan (rows appended); returns its split count. */
static size_t plan_once(paimon_stream_scan *ss, paimon_read_builder *rb, json_t *rows) {
  paimon_error err = {0};
  paimon_plan *plan = NULL;
  CHECK_OK(paimon_stream_scan_plan(ss, &plan, &err), &err);
  size_t n = paimon_plan_num_splits(plan);
  if (plan) CHECK_OK(sr_read_plan(rb, plan, rows, NULL, &err), &err);
  paimon_plan_free(plan);
  return n;
}

/* Restore from a checkpoint in a new scan; consumers: saved on notify, resumed, ignored on request. */
static void test_restore_and_consumer(void) {
  char dir[1024];
  paimon_catalog *cat = copy_catalog("orc/append_09.db/append_09", "restore", dir, sizeof dir);
  paimon_table *t = NULL;
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_get_table(cat, "append_09.append_09", &t, &err), &err);
  if (!t) {
    paimon_catalog_free(cat);
    return;
  }
  char msg[4096];
  /* scan A: from snapshot 1, two plans (snapshots 1 and 2), checkpoint 3, acknowledged */
  paimon_option o[] = {{"scan.mode", "from-snapshot"}, {"scan.snapshot-id", "1"}, {"consumer-id", "job1"}};
  paimon_read_builder *rb = NULL;
  paimon_stream_scan *a = open_scan(t, o, 3, &rb);
  json_t *seen = json_array();
  CHECK_EQ_INT(plan_once(a, rb, seen), 0); /* resolves the start */
  CHECK(plan_once(a, rb, seen) > 0);        /* snapshot 1 */
  CHECK(plan_once(a, rb, seen) > 0);        /* snapshot 2 */
  int64_t cp = 0;
  CHECK(paimon_stream_scan_checkpoint(a, &cp));
  CHECK_EQ_INT(cp, 3);
  CHECK_EQ_INT(json_array_size(seen), 9);
  CHECK_EQ_INT(consumer_next(dir, "job1"), -1); /* nothing saved before the acknowledgement */
  CHECK_OK(paimon_stream_scan_notify_checkpoint_complete(a, cp, &err), &err);
  CHECK_EQ_INT(consumer_next(dir, "job1"), 3);
  CHECK_OK(paimon_stream_scan_notify_checkpoint_complete(a, 0, &err), &err); /* no checkpoint: nothing */
  CHECK_EQ_INT(consumer_next(dir, "job1"), 3);
  /* restore(0) starts over: the first plan again resolves the start */
  CHECK_OK(paimon_stream_scan_restore(a, 0, &err), &err);
  CHECK(!paimon_stream_scan_checkpoint(a, &cp));
  paimon_stream_scan_free(a);
  paimon_read_builder_free(rb);

  /* scan B: a new scan restored at 3 reads the rest; with A's rows = every row once */
  paimon_stream_scan *b = open_scan(t, NULL, 0, &rb);
  CHECK_OK(paimon_stream_scan_restore(b, cp, &err), &err);
  json_t *rest = json_array();
  CHECK_OK(sr_drain(b, rb, rest, 10, NULL, &err), &err);
  json_t *all = json_deep_copy(seen);
  json_array_extend(all, rest);
  CHECK_MSG(fxc_rows_match(E5, all, kinds4, msg, sizeof msg), "restored: %s", msg);
  json_t *want_rest = sr_minus(E5, E3, kinds4); /* snapshots 3 and 4 */
  json_t *s3 = sr_minus(E3, seen, kinds4);
  json_array_extend(want_rest, s3);
  CHECK_MSG(fxc_rows_match(want_rest, rest, kinds4, msg, sizeof msg), "rest: %s", msg);
  paimon_stream_scan_free(b);
  paimon_read_builder_free(rb);

  /* scan C: the consumer's progress, no scan.mode: resumes at 3 (the scan.mode of the options loses) */
  paimon_option oc[] = {{"consumer-id", "job1"}, {"scan.mode", "latest"}};
  paimon_stream_scan *c = open_scan(t, oc, 2, &rb);
  json_t *resumed = json_array();
  CHECK_OK(sr_drain(c, rb, resumed, 10, NULL, &err), &err);
  CHECK_MSG(fxc_rows_match(want_rest, resumed, kinds4, msg, sizeof msg), "resumed: %s", msg);
  CHECK(paimon_stream_scan_checkpoint(c, &cp) && cp == 6);
  CHECK_OK(paimon_stream_scan_notify_checkpoint_complete(c, cp, &err), &err);
  CHECK_EQ_INT(consumer_next(dir, "job1"), 6);
  paimon_stream_scan_free(c);
  paimon_read_builder_free(rb);

  /* consumer.ignore-progress: the mode decides (latest: nothing) */
  paimon_option oi[] = {{"consumer-id", "job1"}, {"consumer.ignore-progress", "true"}, {"scan.mode", "latest-full"}};
  paimon_stream_scan *d = open_scan(t, oi, 3, &rb);
  json_t *full = json_array();
  CHECK_OK(sr_drain(d, rb, full, 10, NULL, &err), &err);
  CHECK_MSG(fxc_rows_match(E5, full, kinds4, msg, sizeof msg), "ignore-progress: %s", msg);
  paimon_stream_scan_free(d);
  paimon_read_builder_free(rb);
  /* the consumer is listed by the $consumers system table (as Java lists it) */
  struct ArrowArrayStream st = {0};
  CHECK_OK(paimon_catalog_read_system_table(cat, "append_09.append_09$consumers", &st, &err), &err);
  if (st.release) st.release(&st);

  json_decref(seen);
  json_decref(rest);
  json_decref(all);
  json_decref(want_rest);
  json_decref(s3);
  json_decref(resumed);
  json_decref(full);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* pk_09 (deletion vectors, no changelog producer): full plans are merged rows; follow-ups give the
 * APPEND deltas with their row kinds as the fixture's README logs them. */
static void test_pk_fixture(void) {
  char dir[1024];
  paimon_catalog *cat = copy_catalog("orc/pk_09.db/pk_09", "pk", dir, sizeof dir);
  paimon_table *t = NULL;
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_get_table(cat, "pk_09.pk_09", &t, &err), &err);
  if (!t) {
    paimon_catalog_free(cat);
    return;
  }
  json_t *e6 = expected_rows("orc__pk_09__snapshot-6"), *e8 = expected_rows("orc__pk_09__snapshot-8");
  char msg[4096];
  const char *cols[] = {"f0", "f1", "f2", "f3"};
  struct {
    paimon_option o[2];
    size_t n;
    json_t *first;
  } cases[] = {
      {{{"scan.mode", "latest-full"}}, 1, e8},
      {{{"scan.mode", "compacted-full"}}, 1, e8},
      {{{"scan.mode", "from-snapshot-full"}, {"scan.snapshot-id", "6"}}, 2, e6},
  };
  for (size_t i = 0; i < 3; i++) {
    paimon_read_builder *rb = NULL;
    paimon_stream_scan *ss = NULL;
    CHECK_OK(paimon_read_builder_new(t, cases[i].o, cases[i].n, &rb, &err), &err);
    CHECK_OK(paimon_read_builder_with_projection(rb, cols, 4, &err), &err);
    CHECK_OK(paimon_stream_scan_new(rb, &ss, &err), &err);
    json_t *rows = json_array();
    if (ss) plan_once(ss, rb, rows);
    CHECK_MSG(fxc_rows_match(cases[i].first, rows, kinds4, msg, sizeof msg), "pk case %zu: %s", i, msg);
    json_decref(rows);
    paimon_stream_scan_free(ss);
    paimon_read_builder_free(rb);
  }
  /* from snapshot 5 with row kinds: snapshot 5 (delete Tony, add Alice 19.1, delete Lily), 7 (update Alice 21.1) */
  paimon_option o[] = {{"scan.mode", "from-snapshot"}, {"scan.snapshot-id", "5"}};
  paimon_read_builder *rb = NULL;
  paimon_stream_scan *ss = NULL;
  CHECK_OK(paimon_read_builder_new(t, o, 2, &rb, &err), &err);
  CHECK_OK(paimon_read_builder_with_projection(rb, cols, 4, &err), &err);
  paimon_read_builder_with_row_kind(rb, 1);
  CHECK_OK(paimon_stream_scan_new(rb, &ss, &err), &err);
  json_t *rows = json_array();
  if (ss) CHECK_OK(sr_drain(ss, rb, rows, 10, NULL, &err), &err);
  json_t *want = json_loads("[[\"-D\",\"Tony\",10,0,14.1],[\"+I\",\"Alice\",10,1,19.1],[\"-D\",\"Lily\",10,1,20.1],"
                            "[\"+U\",\"Alice\",10,1,21.1]]",
                            0, NULL);
  int k5[] = {0, 0, 0, 0, fxc_column_kind("DOUBLE")};
  CHECK_MSG(fxc_rows_match(want, rows, k5, msg, sizeof msg), "pk deltas: %s", msg);
  int64_t cp = 0;
  CHECK(paimon_stream_scan_checkpoint(ss, &cp) && cp == 9);
  json_decref(want);
  json_decref(rows);
  paimon_stream_scan_free(ss);
  paimon_read_builder_free(rb);
  json_decref(e6);
  json_decref(e8);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

static void expect_new_error(paimon_table *t, const paimon_option *o, size_t n, paimon_status code, const char *needle) {
  paimon_error err = {0};
  paimon_read_builder *rb = NULL;
  paimon_stream_scan *ss = NULL;
  paimon_status st = paimon_read_builder_new(t, o, n, &rb, &err);
  if (!st) st = paimon_stream_scan_new(rb, &ss, &err);
  CHECK_MSG(st == code && strstr(err.message, needle), "%s=%s: status %d, message '%s' (want %d, '%s')", o[0].key,
            o[0].value, (int)st, err.message, (int)code, needle);
  CHECK(ss == NULL);
  paimon_stream_scan_free(ss);
  paimon_read_builder_free(rb);
}

static void test_invalid_arguments(void) {
  char dir[1024];
  paimon_catalog *cat = copy_catalog("orc/append_09.db/append_09", "invalid", dir, sizeof dir);
  paimon_table *t = NULL;
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_get_table(cat, "append_09.append_09", &t, &err), &err);
  if (!t) {
    paimon_catalog_free(cat);
    return;
  }
  const paimon_status INV = PAIMON_ERR_INVALID_ARGUMENT;
  expect_new_error(t, (paimon_option[]){{"scan.mode", "latest-delta"}}, 1, INV, "latest-delta");
  expect_new_error(t, (paimon_option[]){{"scan.mode", "incremental"}}, 1, INV, "incremental");
  expect_new_error(t, (paimon_option[]){{"incremental-between", "1,3"}}, 1, INV, "incremental");
  expect_new_error(t, (paimon_option[]){{"scan.tag-name", "t1"}}, 1, INV, "tag");
  expect_new_error(t, (paimon_option[]){{"scan.watermark", "5"}}, 1, INV, "watermark");
  expect_new_error(t, (paimon_option[]){{"scan.mode", "from-snapshot"}}, 1, INV, "scan.snapshot-id");
  expect_new_error(t, (paimon_option[]){{"scan.mode", "from-snapshot-full"}}, 1, INV, "scan.snapshot-id");
  expect_new_error(t, (paimon_option[]){{"scan.mode", "from-timestamp"}}, 1, INV, "scan.timestamp");
  expect_new_error(t, (paimon_option[]){{"scan.mode", "from-file-creation-time"}}, 1, INV,
                   "scan.file-creation-time-millis");
  expect_new_error(t, (paimon_option[]){{"scan.mode", "sideways"}}, 1, INV, "unknown scan.mode 'sideways'");
  expect_new_error(t, (paimon_option[]){{"consumer-id", "a/b"}}, 1, INV, "consumer-id");
  expect_new_error(t, (paimon_option[]){{"consumer.mode", "twice"}}, 1, INV, "consumer.mode");
  expect_new_error(t, (paimon_option[]){{"continuous.discovery-interval", "soon"}}, 1, INV,
                   "continuous.discovery-interval");
  expect_new_error(t, (paimon_option[]){{"scan.mode", "from-timestamp"}, {"scan.timestamp", "yesterday"}}, 2, INV,
                   "yesterday");
  expect_new_error(t, (paimon_option[]){{"scan.mode", "from-creation-timestamp"}}, 1, PAIMON_ERR_INVALID_ARGUMENT,
                   "needs scan.creation-time-millis");
  /* NULL arguments, negative ids */
  paimon_stream_scan *ss = (paimon_stream_scan *)1;
  CHECK(paimon_stream_scan_new(NULL, &ss, &err) == INV && ss == NULL);
  CHECK(paimon_stream_scan_new(NULL, NULL, &err) == INV);
  paimon_plan *plan = (paimon_plan *)1;
  CHECK(paimon_stream_scan_plan(NULL, &plan, &err) == INV && plan == NULL);
  CHECK(paimon_stream_scan_next(NULL, NULL, NULL, &plan, &err) == INV && plan == NULL);
  CHECK(paimon_stream_scan_restore(NULL, 1, &err) == INV);
  CHECK(paimon_stream_scan_notify_checkpoint_complete(NULL, 1, &err) == INV);
  CHECK(!paimon_stream_scan_checkpoint(NULL, NULL) && !paimon_stream_scan_watermark(NULL, NULL));
  CHECK(!paimon_stream_scan_finished(NULL));
  paimon_stream_scan_free(NULL);
  paimon_read_builder *rb = NULL;
  CHECK_OK(paimon_read_builder_new(t, NULL, 0, &rb, &err), &err);
  ss = NULL;
  CHECK_OK(paimon_stream_scan_new(rb, &ss, &err), &err);
  CHECK(paimon_stream_scan_restore(ss, -1, &err) == INV && strstr(err.message, "negative"));
  CHECK(paimon_stream_scan_notify_checkpoint_complete(ss, -2, &err) == INV && strstr(err.message, "negative"));
  CHECK(paimon_stream_scan_plan(ss, NULL, &err) == INV);
  paimon_stream_scan_free(ss);
  paimon_read_builder_free(rb);
  /* a system table does not stream */
  paimon_table *sys = NULL;
  CHECK_OK(paimon_catalog_get_system_table(cat, "append_09.append_09$snapshots", &sys, &err), &err);
  rb = NULL;
  if (sys) CHECK_OK(paimon_read_builder_new(sys, NULL, 0, &rb, &err), &err);
  ss = NULL;
  if (rb) CHECK(paimon_stream_scan_new(rb, &ss, &err) == INV && strstr(err.message, "system table"));
  paimon_read_builder_free(rb);
  paimon_table_free(sys);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

int main(void) {
  snprintf(tmp_root, sizeof tmp_root, "/tmp/pm_stream_scan_%d", (int)getpid());
  kinds4[3] = fxc_column_kind("DOUBLE");
  E1 = expected_rows("orc__append_09__snapshot-1");
  E3 = expected_rows("orc__append_09__snapshot-3");
  E5 = expected_rows("orc__append_09__snapshot-5");
  RUN_TEST(test_append_fixture_modes);
  RUN_TEST(test_restore_and_consumer);
  RUN_TEST(test_pk_fixture);
  RUN_TEST(test_invalid_arguments);
  json_decref(E1);
  json_decref(E3);
  json_decref(E5);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (system(cmd)) fprintf(stderr, "cleanup failed\n");
  TEST_MAIN_END();
}
