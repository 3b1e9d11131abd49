/*
 * Stream scans following live tables we write (paimon/stream.h):
 *  - a writer process (fork) commits while the reader follows with
 *    paimon_stream_scan_next: every committed row is seen exactly once, in
 *    commit order per bucket (append table with fixed buckets, primary-key
 *    table); paimon-table check passes afterwards;
 *  - consumer-pinned snapshots survive expiry and the consumer resumes from
 *    them without loss; without a consumer the expired snapshot is an error
 *    on the 16th plan that misses it (Java's range check);
 *  - changelog-producer lookup / input tables stream -U/+U/-D in order;
 *  - the cancellation hook ends a blocking follow; watermarks, scan.bounded.watermark,
 *    streaming.read.snapshot.delay, OVERWRITE snapshots skipped unless
 *    streaming-read-append-overwrite; primary-key OVERWRITEs with
 *    streaming-read-overwrite as -D of the removed rows, then the new rows;
 *    a decoupled changelog lifecycle: expired snapshots read from their
 *    long-lived changelogs.
 * The writer's rows (commit c, rows c*100 + j) are the model: independent of
 * the reader.
 */
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "support/oracle_table.h"
#include "support/oracle_write.h"
#include "support/pk_write.h"
#include "support/stream_rows.h"
#include "paimon/expire.h"

static char tmp_root[256];
static char wh[320];

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static paimon_table *create(paimon_catalog *cat, const char *name, const char *cols, const char *const *opts, size_t n) {
  paimon_error err = {0};
  CHECK_OK(ow_create_table(cat, "d", name, cols, NULL, opts, n, 0, &err), &err);
  char ident[128];
  snprintf(ident, sizeof ident, "d.%s", name);
  return pkw_get_table(cat, ident);
}

/* Rows of commit c: ids c*100 + j, k = j % 4 (the bucket key), c. */
static void commit_rows(const paimon_table *t, int c, int n_rows) {
  char rows[4096];
  size_t len = 0;
  for (int j = 0; j < n_rows; j++)
    len += (size_t)snprintf(rows + len, sizeof rows - len, "{\"id\":%d,\"k\":%d,\"c\":%d}\n", c * 100 + j, j % 4, c);
  paimon_error err = {0};
  CHECK_OK(ow_write_commit(t, NULL, 0, 0, rows, NULL, 0, 0, NULL, &err), &err);
}

typedef struct follow_ctx {
  size_t want;
  size_t *seen;
  double deadline;
} follow_ctx;

static int follow_cancel(void *p) {
  follow_ctx *f = p;
  return *f->seen >= f->want || now_s() > f->deadline;
}

/* The writer process commits n_commits commits of n_rows rows while the parent follows. */
static int long_tests(void) { return getenv("PAIMON_LONG_TESTS") && !strcmp(getenv("PAIMON_LONG_TESTS"), "1"); }

/* oracle: run paimon-table check at the end (each call costs ~1.2 s: some cases only in long mode). */
static void follow_case(const char *name, const char *const *opts, size_t n_opts, int oracle) {
  paimon_catalog *cat = pkw_open_catalog(wh);
  paimon_table *t = create(cat, name, "id INT NOT NULL, k INT, c INT", opts, n_opts);
  if (!t) {
    paimon_catalog_free(cat);
    return;
  }
  enum { N_COMMITS = 12, N_ROWS = 6 };
  commit_rows(t, 1, N_ROWS); /* before the scan: read by the latest-full start */
  paimon_error err = {0};
  paimon_option o[] = {{"continuous.discovery-interval", "20 ms"}};
  paimon_read_builder *rb = NULL;
  paimon_stream_scan *ss = NULL;
  CHECK_OK(paimon_read_builder_new(t, o, 1, &rb, &err), &err);
  const char *cols[] = {"id", "k", "c"};
  CHECK_OK(paimon_read_builder_with_projection(rb, cols, 3, &err), &err);
  CHECK_OK(paimon_stream_scan_new(rb, &ss, &err), &err);
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) { /* the writer: its own catalog and table handles */
    paimon_catalog *wc = pkw_open_catalog(wh);
    char ident[128];
    snprintf(ident, sizeof ident, "d.%s", name);
    paimon_table *wt = pkw_get_table(wc, ident);
    for (int c = 2; wt && c <= N_COMMITS; c++) {
      commit_rows(wt, c, N_ROWS);
      usleep(30000);
    }
    paimon_table_free(wt);
    paimon_catalog_free(wc);
    _exit(pm_test_failures ? 1 : 0);
  }
  CHECK(pid > 0);
  json_t *rows = json_array(), *buckets = json_array();
  size_t seen = 0;
  follow_ctx fc = {N_COMMITS * N_ROWS, &seen, now_s() + 120}; /* generous: ends as soon as every row is seen; a loaded sanitizer run is slow */
  int plans = 0;
  while (ss && !follow_cancel(&fc)) {
    paimon_plan *plan = NULL;
    CHECK_OK(paimon_stream_scan_next(ss, follow_cancel, &fc, &plan, &err), &err);
    if (!plan) break;
    plans++;
    int64_t sid = 0;
    CHECK(paimon_plan_snapshot_id(plan, &sid) && sid >= 1);
    CHECK_OK(sr_read_plan(rb, plan, rows, buckets, &err), &err);
    paimon_plan_free(plan);
    seen = json_array_size(rows);
  }
  int status = 0;
  if (pid > 0) {
    waitpid(pid, &status, 0);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer status %d", status);
  }
  /* exactly once: every id of the model, no other, no repeat */
  CHECK_MSG(json_array_size(rows) == N_COMMITS * N_ROWS, "%s: %zu rows seen, %d committed", name,
            json_array_size(rows), N_COMMITS * N_ROWS);
  char hit[(N_COMMITS + 1) * 100] = {0};
  int dup = 0, bad = 0, order = 0;
  int last_c[8] = {0};
  for (size_t i = 0; i < json_array_size(rows); i++) {
    json_t *r = json_array_get(rows, i);
    int id = (int)json_integer_value(json_array_get(r, 0));
    int k = (int)json_integer_value(json_array_get(r, 1)), c = (int)json_integer_value(json_array_get(r, 2));
    if (id < 100 || id >= (N_COMMITS + 1) * 100 || id % 100 >= N_ROWS || id / 100 != c || id % 100 % 4 != k) bad++;
    else if (hit[id]++) dup++;
    int b = (int)json_integer_value(json_array_get(buckets, i));
    if (b >= 0 && b < 8) {
      if (c < last_c[b]) order++;
      last_c[b] = c;
    }
  }
  CHECK_MSG(!dup && !bad && !order, "%s: %d duplicates, %d unknown rows, %d out of commit order", name, dup, bad,
            order);
  CHECK_MSG(plans >= 2, "%s: %d plans (the follow saw the commits one by one)", name, plans);
  int64_t cp = 0, latest = 0;
  CHECK(paimon_stream_scan_checkpoint(ss, &cp));
  CHECK_OK(paimon_table_latest_snapshot_id(t, &latest, &err), &err);
  CHECK_MSG(cp >= 2 && cp <= latest + 1, "%s: checkpoint %lld, latest %lld", name, (long long)cp, (long long)latest);
  char dir[512];
  snprintf(dir, sizeof dir, "%s/d.db/%s", wh, name);
  if ((oracle || long_tests()) && ot_available()) CHECK(ot_check_ok(dir, 0, name));
  json_decref(rows);
  json_decref(buckets);
  paimon_stream_scan_free(ss);
  paimon_read_builder_free(rb);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

static void test_follow_append(void) {
  const char *opts[] = {"bucket=3", "bucket-key=k"};
  follow_case("app", opts, 2, 1);
}

static void test_follow_pk(void) {
  const char *opts[] = {"bucket=2", "primary-key=id"};
  follow_case("pk", opts, 2, 0);
}

/* A consumer pins its next snapshot against expiry; without one the gap is an error. */
static void test_consumer_pins_expiry(void) {
  paimon_catalog *cat = pkw_open_catalog(wh);
  const char *opts[] = {"bucket=-1", "snapshot.time-retained=1 ms"};
  paimon_table *t = create(cat, "pin", "id INT NOT NULL, k INT, c INT", opts, 2);
  if (!t) {
    paimon_catalog_free(cat);
    return;
  }
  for (int c = 1; c <= 8; c++) commit_rows(t, c, 3);
  paimon_error err = {0};
  const char *cols[] = {"id", "k", "c"};
  /* the consumer reads snapshots 1 and 2 and acknowledges next = 3 */
  paimon_option o[] = {{"scan.mode", "from-snapshot"}, {"scan.snapshot-id", "1"}, {"consumer-id", "reader"}};
  paimon_read_builder *rb = NULL;
  paimon_stream_scan *ss = NULL;
  CHECK_OK(paimon_read_builder_new(t, o, 3, &rb, &err), &err);
  CHECK_OK(paimon_read_builder_with_projection(rb, cols, 3, &err), &err);
  CHECK_OK(paimon_stream_scan_new(rb, &ss, &err), &err);
  json_t *rows = json_array();
  for (int i = 0; ss && i < 3; i++) {
    paimon_plan *plan = NULL;
    CHECK_OK(paimon_stream_scan_plan(ss, &plan, &err), &err);
    if (plan) CHECK_OK(sr_read_plan(rb, plan, rows, NULL, &err), &err);
    paimon_plan_free(plan);
  }
  int64_t cp = 0;
  CHECK(paimon_stream_scan_checkpoint(ss, &cp) && cp == 3);
  CHECK_EQ_INT(json_array_size(rows), 6);
  CHECK_OK(paimon_stream_scan_notify_checkpoint_complete(ss, cp, &err), &err);
  paimon_stream_scan_free(ss);
  paimon_read_builder_free(rb);
  /* expiry down to one snapshot keeps 3..8 (the consumer's next snapshot and later) */
  paimon_expire_options eo;
  paimon_expire_options_init(&eo);
  eo.retain_min = 1;
  eo.retain_max = 1;
  eo.time_retained_millis = 0;
  paimon_expire_result er;
  memset(&er, 0, sizeof er);
  CHECK_OK(paimon_table_expire_snapshots(t, &eo, NULL, NULL, &er, &err), &err);
  CHECK_EQ_INT(er.earliest_snapshot, 3);
  CHECK_EQ_INT(er.snapshots_expired, 2);
  /* the consumer resumes at 3: commits 3..8, each row once */
  paimon_option oc[] = {{"consumer-id", "reader"}};
  CHECK_OK(paimon_read_builder_new(t, oc, 1, &rb, &err), &err);
  CHECK_OK(paimon_read_builder_with_projection(rb, cols, 3, &err), &err);
  ss = NULL;
  CHECK_OK(paimon_stream_scan_new(rb, &ss, &err), &err);
  json_t *rest = json_array();
  if (ss) CHECK_OK(sr_drain(ss, rb, rest, 20, NULL, &err), &err);
  CHECK_EQ_INT(json_array_size(rest), 18);
  int ok = 1;
  for (size_t i = 0; i < json_array_size(rest); i++) {
    int c = (int)json_integer_value(json_array_get(json_array_get(rest, i), 2));
    if (c < 3) ok = 0;
  }
  CHECK_MSG(ok, "the resumed consumer read rows of commits before 3");
  /* without a consumer a scan waiting at the expired snapshot 1: empty plans, then the error on the 16th */
  paimon_stream_scan *gap = NULL;
  paimon_read_builder *rb2 = NULL;
  CHECK_OK(paimon_read_builder_new(t, NULL, 0, &rb2, &err), &err);
  CHECK_OK(paimon_stream_scan_new(rb2, &gap, &err), &err);
  if (gap) CHECK_OK(paimon_stream_scan_restore(gap, 1, &err), &err);
  int failed_at = 0;
  for (int i = 1; gap && i <= 16 && !failed_at; i++) {
    paimon_plan *plan = NULL;
    paimon_status st = paimon_stream_scan_plan(gap, &plan, &err);
    if (st) {
      failed_at = i;
      CHECK_MSG(st == PAIMON_ERR_NOT_FOUND && strstr(err.message, "snapshot 1 has expired") &&
                    strstr(err.message, "consumer-id"),
                "gap error %d: %s", (int)st, err.message);
    } else {
      CHECK_EQ_INT(paimon_plan_num_splits(plan), 0);
    }
    paimon_plan_free(plan);
  }
  CHECK_EQ_INT(failed_at, 16);
  char dir[512];
  snprintf(dir, sizeof dir, "%s/d.db/pin", wh);
  if (long_tests() && ot_available()) CHECK(ot_check_ok(dir, 0, "pinned expiry"));
  json_decref(rows);
  json_decref(rest);
  paimon_stream_scan_free(gap);
  paimon_read_builder_free(rb2);
  paimon_stream_scan_free(ss);
  paimon_read_builder_free(rb);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* Changelog producers: the stream is the changelog with its row kinds, in order (one bucket). */
static void changelog_case(const char *name, const char *producer, const char *const *commits, size_t n_commits,
                           const char *want_json, int oracle) {
  paimon_catalog *cat = pkw_open_catalog(wh);
  char prod[64];
  snprintf(prod, sizeof prod, "changelog-producer=%s", producer);
  const char *opts[] = {"bucket=1", "primary-key=id", prod};
  paimon_table *t = create(cat, name, "id INT NOT NULL, v STRING", opts, 3);
  if (!t) {
    paimon_catalog_free(cat);
    return;
  }
  paimon_error err = {0};
  paimon_option o[] = {{"scan.mode", "latest"}};
  paimon_read_builder *rb = NULL;
  paimon_stream_scan *ss = NULL;
  CHECK_OK(paimon_read_builder_new(t, o, 1, &rb, &err), &err);
  paimon_read_builder_with_row_kind(rb, 1);
  CHECK_OK(paimon_stream_scan_new(rb, &ss, &err), &err);
  json_t *rows = json_array();
  if (ss) CHECK_OK(sr_drain(ss, rb, rows, 3, NULL, &err), &err); /* empty table: start at snapshot 1 */
  static const char *const COLS[] = {"id:i:notnull", "v:u", "_rk:c:notnull"};
  pkw_how how = {COLS, 2, "_rk", -1, NULL};
  for (size_t i = 0; i < n_commits; i++) {
    pkw_part p = {commits[i], -1};
    CHECK_OK(pkw_write_commit(t, &how, &p, 1, &err), &err);
    if (ss) CHECK_OK(sr_drain(ss, rb, rows, 10, NULL, &err), &err);
  }
  json_t *want = json_loads(want_json, 0, NULL);
  CHECK(want != NULL);
  int same = json_array_size(want) == json_array_size(rows);
  for (size_t i = 0; same && i < json_array_size(want); i++)
    same = sr_rows_equal(json_array_get(want, i), json_array_get(rows, i), NULL);
  char *got = json_dumps(rows, JSON_COMPACT);
  CHECK_MSG(same, "%s: stream %s, expected %s", name, got ? got : "?", want_json);
  free(got);
  /* a latest-full start afterwards: the table's rows (lookup: levels > 0 only, which hold everything) */
  paimon_stream_scan *full = NULL;
  paimon_read_builder *rb2 = NULL;
  CHECK_OK(paimon_read_builder_new(t, NULL, 0, &rb2, &err), &err);
  CHECK_OK(paimon_stream_scan_new(rb2, &full, &err), &err);
  json_t *frows = json_array();
  if (full) CHECK_OK(sr_drain(full, rb2, frows, 3, NULL, &err), &err);
  json_t *batch = ow_read_ours(t, &err);
  CHECK_MSG(batch && json_array_size(frows) == json_array_size(batch), "%s: latest-full %zu rows, table %zu", name,
            json_array_size(frows), batch ? json_array_size(batch) : 0);
  json_decref(batch);
  json_decref(frows);
  paimon_stream_scan_free(full);
  paimon_read_builder_free(rb2);
  char dir[512];
  snprintf(dir, sizeof dir, "%s/d.db/%s", wh, name);
  if ((oracle || long_tests()) && ot_available()) CHECK(ot_check_ok(dir, 0, name));
  json_decref(want);
  json_decref(rows);
  paimon_stream_scan_free(ss);
  paimon_read_builder_free(rb);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

static void test_changelog_lookup(void) {
  const char *commits[] = {
      "{\"id\":1,\"v\":\"a\",\"_rk\":0}\n{\"id\":2,\"v\":\"b\",\"_rk\":0}\n",
      "{\"id\":1,\"v\":\"c\",\"_rk\":0}\n{\"id\":2,\"v\":\"b\",\"_rk\":3}\n",
      "{\"id\":3,\"v\":\"d\",\"_rk\":0}\n",
  };
  changelog_case("cl_lookup", "lookup", commits, 3,
                 "[[\"+I\",1,\"a\"],[\"+I\",2,\"b\"],[\"-U\",1,\"a\"],[\"+U\",1,\"c\"],[\"-D\",2,\"b\"],"
                 "[\"+I\",3,\"d\"]]",
                 1);
}

static void test_changelog_input(void) {
  const char *commits[] = {
      "{\"id\":1,\"v\":\"a\",\"_rk\":0}\n",
      "{\"id\":1,\"v\":\"a\",\"_rk\":1}\n{\"id\":1,\"v\":\"b\",\"_rk\":2}\n",
  };
  changelog_case("cl_input", "input", commits, 2, "[[\"+I\",1,\"a\"],[\"-U\",1,\"a\"],[\"+U\",1,\"b\"]]", 0);
}

static int cancel_after(void *p) { return now_s() > *(double *)p; }

/* Nothing new: paimon_stream_scan_next blocks until the hook cancels it, then returns no plan. */
static void test_cancel(void) {
  paimon_catalog *cat = pkw_open_catalog(wh);
  const char *opts[] = {"bucket=-1"};
  paimon_table *t = create(cat, "cancel", "id INT NOT NULL, k INT, c INT", opts, 1);
  if (!t) {
    paimon_catalog_free(cat);
    return;
  }
  commit_rows(t, 1, 2);
  paimon_error err = {0};
  paimon_option o[] = {{"scan.mode", "latest"}, {"continuous.discovery-interval", "1 h"}};
  paimon_read_builder *rb = NULL;
  paimon_stream_scan *ss = NULL;
  CHECK_OK(paimon_read_builder_new(t, o, 2, &rb, &err), &err);
  CHECK_OK(paimon_stream_scan_new(rb, &ss, &err), &err);
  double t0 = now_s(), until = t0 + 0.3;
  paimon_plan *plan = (paimon_plan *)1;
  CHECK_OK(paimon_stream_scan_next(ss, cancel_after, &until, &plan, &err), &err);
  double took = now_s() - t0;
  CHECK(plan == NULL);
  CHECK_MSG(took >= 0.25 && took < 1.5, "cancel took %.2f s", took);
  paimon_stream_scan_free(ss);
  paimon_read_builder_free(rb);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* Rows (column c) of a stream drained from snapshot 1 with extra options; *wm = its watermark (-1: none). */
static json_t *drain_from_1(paimon_table *t, const paimon_option *extra, size_t n_extra, int64_t *wm, int *finished,
                            int64_t *cp) {
  paimon_option o[4] = {{"scan.mode", "from-snapshot"}, {"scan.snapshot-id", "1"}};
  for (size_t i = 0; i < n_extra && i < 2; i++) o[2 + i] = extra[i];
  paimon_error err = {0};
  paimon_read_builder *rb = NULL;
  paimon_stream_scan *ss = NULL;
  CHECK_OK(paimon_read_builder_new(t, o, 2 + n_extra, &rb, &err), &err);
  const char *cols[] = {"c"};
  CHECK_OK(paimon_read_builder_with_projection(rb, cols, 1, &err), &err);
  CHECK_OK(paimon_stream_scan_new(rb, &ss, &err), &err);
  json_t *rows = json_array();
  if (ss) CHECK_OK(sr_drain(ss, rb, rows, 20, NULL, &err), &err);
  *wm = -1;
  if (ss) paimon_stream_scan_watermark(ss, wm);
  *finished = paimon_stream_scan_finished(ss);
  *cp = 0;
  paimon_stream_scan_checkpoint(ss, cp);
  if (ss && *finished) { /* an ended input: the blocking follow returns at once without a plan */
    paimon_plan *plan = (paimon_plan *)1;
    CHECK_OK(paimon_stream_scan_next(ss, NULL, NULL, &plan, &err), &err);
    CHECK(plan == NULL);
  }
  paimon_stream_scan_free(ss);
  paimon_read_builder_free(rb);
  /* the commits as a string "1,1,2,..." (the rows' c, sorted) */
  return rows;
}

static char *commits_of(const json_t *rows) {
  int cnt[10] = {0};
  for (size_t i = 0; i < json_array_size(rows); i++) {
    int c = (int)json_integer_value(json_array_get(json_array_get(rows, i), 0));
    if (c >= 0 && c < 10) cnt[c]++;
  }
  static char buf[64];
  size_t n = 0;
  buf[0] = 0;
  for (int c = 0; c < 10; c++)
    if (cnt[c]) n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%d:%d", n ? "," : "", c, cnt[c]);
  return buf;
}

static void test_watermark_overwrite_delay(void) {
  paimon_catalog *cat = pkw_open_catalog(wh);
  const char *opts[] = {"bucket=-1"};
  paimon_table *t = create(cat, "wm", "id INT NOT NULL, k INT, c INT", opts, 1);
  if (!t) {
    paimon_catalog_free(cat);
    return;
  }
  static const char *const COLS[] = {"id:i:notnull", "k:i", "c:i"};
  paimon_error err = {0};
  int64_t wms[] = {100, 200, 0, 400};
  for (int c = 1; c <= 4; c++) {
    char rows[256];
    snprintf(rows, sizeof rows, "{\"id\":%d,\"k\":0,\"c\":%d}\n{\"id\":%d,\"k\":1,\"c\":%d}\n", c * 10, c, c * 10 + 1,
             c);
    if (c == 3) { /* an OVERWRITE of the whole table */
      CHECK_OK(ow_write_commit(t, NULL, 0, 0, rows, NULL, 0, 1, NULL, &err), &err);
      continue;
    }
    pkw_how how = {COLS, 3, NULL, -1, NULL};
    pkw_part p = {rows, 0};
    CHECK_OK(pkw_write_commit_wm(t, &how, &p, 1, &wms[c - 1], &err), &err);
  }
  int64_t wm = 0, cp = 0;
  int fin = 0;
  json_t *r = drain_from_1(t, NULL, 0, &wm, &fin, &cp);
  CHECK_EQ_STR(commits_of(r), "1:2,2:2,4:2"); /* the overwrite is skipped */
  CHECK_EQ_INT(wm, 400);
  CHECK(!fin && cp == 5);
  json_decref(r);
  paimon_option ow[] = {{"streaming-read-append-overwrite", "true"}};
  r = drain_from_1(t, ow, 1, &wm, &fin, &cp);
  CHECK_EQ_STR(commits_of(r), "1:2,2:2,3:2,4:2");
  json_decref(r);
  paimon_option bw[] = {{"scan.bounded.watermark", "250"}};
  r = drain_from_1(t, bw, 1, &wm, &fin, &cp);
  CHECK_EQ_STR(commits_of(r), "1:2,2:2"); /* snapshot 4 (watermark 400) ends the input */
  CHECK(fin && cp == 4);
  json_decref(r);
  paimon_option dl[] = {{"streaming.read.snapshot.delay", "1 h"}};
  r = drain_from_1(t, dl, 1, &wm, &fin, &cp);
  CHECK_EQ_INT(json_array_size(r), 0); /* every snapshot is younger than an hour */
  CHECK(!fin && cp == 1);
  json_decref(r);
  paimon_option am[] = {{"consumer.mode", "at-least-once"}, {"consumer-id", "alo"}};
  r = drain_from_1(t, am, 2, &wm, &fin, &cp);
  CHECK_EQ_STR(commits_of(r), "1:2,2:2,4:2");
  json_decref(r);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* streaming-read-overwrite on a primary-key table: an OVERWRITE streams as -D of the rows it removed,
 * then the rows it wrote (Java's readChanges); without the option it is skipped. */
static void test_pk_overwrite(void) {
  paimon_catalog *cat = pkw_open_catalog(wh);
  const char *opts[] = {"bucket=1", "primary-key=id"};
  paimon_table *t = create(cat, "pkow", "id INT NOT NULL, k INT, c INT", opts, 2);
  if (!t) {
    paimon_catalog_free(cat);
    return;
  }
  paimon_error err = {0};
  CHECK_OK(ow_write_commit(t, NULL, 0, 0, "{\"id\":1,\"c\":1}\n{\"id\":2,\"c\":1}\n{\"id\":3,\"c\":1}\n", NULL, 0, 0,
                           NULL, &err),
           &err);
  CHECK_OK(ow_write_commit(t, NULL, 0, 0, "{\"id\":2,\"c\":2}\n{\"id\":4,\"c\":2}\n", NULL, 0, 1, NULL, &err), &err);
  CHECK_OK(ow_write_commit(t, NULL, 0, 0, "{\"id\":5,\"c\":3}\n", NULL, 0, 0, NULL, &err), &err);
  const char *want[] = {
      "[[\"+I\",1,1],[\"+I\",2,1],[\"+I\",3,1],[\"+I\",5,3]]",
      "[[\"+I\",1,1],[\"+I\",2,1],[\"+I\",3,1],[\"-D\",1,1],[\"-D\",2,1],[\"-D\",3,1],[\"+I\",2,2],[\"+I\",4,2],"
      "[\"+I\",5,3]]",
  };
  for (int with = 0; with < 2; with++) {
    paimon_option o[] = {{"scan.mode", "from-snapshot"}, {"scan.snapshot-id", "1"},
                         {"streaming-read-overwrite", with ? "true" : "false"}};
    paimon_read_builder *rb = NULL;
    paimon_stream_scan *ss = NULL;
    CHECK_OK(paimon_read_builder_new(t, o, 3, &rb, &err), &err);
    const char *cols[] = {"id", "c"};
    CHECK_OK(paimon_read_builder_with_projection(rb, cols, 2, &err), &err);
    paimon_read_builder_with_row_kind(rb, 1);
    CHECK_OK(paimon_stream_scan_new(rb, &ss, &err), &err);
    json_t *rows = json_array();
    if (ss) CHECK_OK(sr_drain(ss, rb, rows, 10, NULL, &err), &err);
    json_t *w = json_loads(want[with], 0, NULL);
    int same = json_array_size(w) == json_array_size(rows);
    for (size_t i = 0; same && i < json_array_size(w); i++)
      same = sr_rows_equal(json_array_get(w, i), json_array_get(rows, i), NULL);
    char *got = json_dumps(rows, JSON_COMPACT);
    CHECK_MSG(same, "streaming-read-overwrite=%d: %s, expected %s", with, got ? got : "?", want[with]);
    free(got);
    json_decref(w);
    json_decref(rows);
    paimon_stream_scan_free(ss);
    paimon_read_builder_free(rb);
  }
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* A decoupled changelog lifecycle: expired snapshots are read from changelog/changelog-<id>. */
static void test_decoupled_changelog(void) {
  paimon_catalog *cat = pkw_open_catalog(wh);
  const char *opts[] = {"bucket=1",
                        "primary-key=id",
                        "changelog-producer=input",
                        "snapshot.num-retained.min=1",
                        "snapshot.num-retained.max=2",
                        "snapshot.time-retained=1 ms",
                        "changelog.num-retained.max=100",
                        "changelog.time-retained=1 h"};
  paimon_table *t = create(cat, "decoupled", "id INT NOT NULL, k INT, c INT", opts, 8);
  if (!t) {
    paimon_catalog_free(cat);
    return;
  }
  paimon_error err = {0};
  for (int c = 1; c <= 6; c++) {
    char rows[64];
    snprintf(rows, sizeof rows, "{\"id\":%d,\"c\":%d}\n", c, c);
    CHECK_OK(ow_write_commit(t, NULL, 0, 0, rows, NULL, 0, 0, NULL, &err), &err);
  }
  char p1[600], c1[600];
  snprintf(p1, sizeof p1, "%s/d.db/decoupled/snapshot/snapshot-1", wh);
  snprintf(c1, sizeof c1, "%s/d.db/decoupled/changelog/changelog-1", wh);
  CHECK_MSG(access(p1, F_OK) != 0 && access(c1, F_OK) == 0, "snapshot 1 expired into a long-lived changelog");
  paimon_option o[] = {{"scan.mode", "from-snapshot"}, {"scan.snapshot-id", "1"}};
  paimon_read_builder *rb = NULL;
  paimon_stream_scan *ss = NULL;
  CHECK_OK(paimon_read_builder_new(t, o, 2, &rb, &err), &err);
  const char *cols[] = {"id"};
  CHECK_OK(paimon_read_builder_with_projection(rb, cols, 1, &err), &err);
  paimon_read_builder_with_row_kind(rb, 1);
  CHECK_OK(paimon_stream_scan_new(rb, &ss, &err), &err);
  json_t *rows = json_array();
  if (ss) CHECK_OK(sr_drain(ss, rb, rows, 20, NULL, &err), &err);
  char *got = json_dumps(rows, JSON_COMPACT);
  CHECK_MSG(got && !strcmp(got, "[[\"+I\",1],[\"+I\",2],[\"+I\",3],[\"+I\",4],[\"+I\",5],[\"+I\",6]]"), "stream: %s",
            got ? got : "?");
  free(got);
  json_decref(rows);
  paimon_stream_scan_free(ss);
  paimon_read_builder_free(rb);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

int main(void) {
  snprintf(tmp_root, sizeof tmp_root, "/tmp/pm_stream_follow_%d", (int)getpid());
  snprintf(wh, sizeof wh, "%s/wh", tmp_root);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", wh);
  if (system(cmd)) return 1;
  RUN_TEST(test_follow_append);
  RUN_TEST(test_follow_pk);
  RUN_TEST(test_consumer_pins_expiry);
  RUN_TEST(test_changelog_lookup);
  RUN_TEST(test_changelog_input);
  RUN_TEST(test_cancel);
  RUN_TEST(test_watermark_overwrite_delay);
  RUN_TEST(test_pk_overwrite);
  RUN_TEST(test_decoupled_changelog);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (system(cmd)) fprintf(stderr, "cleanup failed\n");
  TEST_MAIN_END();
}
