/*
 * Concurrent committers (issue 11 §5 "Concurrency"), as separate processes
 * (the crash driver, tests/api/crash_driver.c):
 *   - 8 processes x 25 commits each to one table at once: every batch is
 *     published exactly once (one snapshot per (commit user, identifier)),
 *     snapshot ids are contiguous, `paimon-table check` passes and
 *     `paimon-table read` returns exactly the 200 batches;
 *   - two processes overwriting the same partition at once: every snapshot
 *     (several are read with `paimon-table read --snapshot N`) shows exactly one
 *     complete overwrite batch in that partition, never a mix, and the other
 *     partition untouched.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "support/oracle_crash.h"
#include "support/oracle_driver.h"
#include "support/oracle_table.h"

static char tmp_root[256];
static int long_mode;

static void make_dirs(const char *name, char *wh, size_t cap, char *dir, size_t dcap) {
  snprintf(wh, cap, "%s/%s/wh", tmp_root, name);
  snprintf(dir, dcap, "%s/db.db/t", wh);
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", wh);
  CHECK(system(cmd) == 0);
}

/* Runs one driver to completion (creating the table when from > to). */
static void run_one(char *const *argv, const char *out, od_out *o) { od_run(argv, out, -1, o); }

static json_t *batch_rows(long long b, int rows, int part) {
  char buf[8192];
  oc_batch_json(b, rows, part, buf, sizeof buf);
  return ot_parse_lines(buf, NULL);
}

static void test_eight_writers(void) {
  enum { P = 8, N = 25 };
  char wh[512], dir[600];
  make_dirs("eight", wh, sizeof wh, dir, sizeof dir);
  char out[P][700], state[P][700], user[P][32], base[P][32];
  char *argv[P][20];
  for (int i = 0; i < P; i++) {
    snprintf(out[i], sizeof out[i], "%s/../out-%d", wh, i);
    snprintf(state[i], sizeof state[i], "%s/../state-%d", wh, i);
    snprintf(user[i], sizeof user[i], "writer-%d", i);
    snprintf(base[i], sizeof base[i], "%d", i * 100);
    int n = 0;
    char **a = argv[i];
    a[n++] = (char *)"api_crash_driver";
    a[n++] = (char *)"--state";
    a[n++] = state[i];
    a[n++] = (char *)"--user";
    a[n++] = user[i];
    a[n++] = (char *)"--base";
    a[n++] = base[i];
    a[n++] = wh;
    a[n++] = (char *)"db";
    a[n++] = (char *)"t";
    a[n++] = (char *)"0";
    a[n++] = (char *)"24";
    a[n] = NULL;
  }
  /* create the table first (FROM > TO: no batch) */
  /* Java's default commit.max-retries (10) can run out with 8 committers racing on 2 loaded cores: a
   * CONFLICT then is correct (nothing published) but would leave batches out; allow more */
  char *create[] = {(char *)"api_crash_driver", (char *)"--state", state[0], (char *)"--option",
                    (char *)"\"commit.max-retries\" : \"1000\"", wh, (char *)"db", (char *)"t", (char *)"0",
                    (char *)"-1", NULL};
  od_out o;
  run_one(create, out[0], &o);
  CHECK_MSG(o.status == 0, "create: exit %d %s", o.status, o.fail_line);
  double t0 = od_now();
  pid_t pids[P];
  for (int i = 0; i < P; i++) pids[i] = od_spawn(argv[i], out[i]);
  for (int i = 0; i < P; i++) {
    int status = pids[i] > 0 ? od_wait(pids[i]) : -1;
    od_out r;
    memset(&r, 0, sizeof r);
    od_parse(out[i], &r);
    CHECK_MSG(status == 0, "writer %d: exit %d: %s", i, status, r.fail_line);
    CHECK_MSG(r.n_committed == N, "writer %d: %zu commits printed", i, r.n_committed);
  }
  fprintf(stderr, "  %d processes x %d commits: %.2f s\n", P, N, od_now() - t0);
  ot_snapshot *s = NULL;
  size_t gaps = 0, n = ot_snapshots(dir, &s, &gaps);
  CHECK_EQ_INT(gaps, 0);
  CHECK_EQ_INT(n, P * N);
  static int seen[P][N];
  memset(seen, 0, sizeof seen);
  for (size_t i = 0; i < n; i++) {
    int w = -1;
    CHECK_MSG(sscanf(s[i].commit_user, "writer-%d", &w) == 1 && w >= 0 && w < P, "snapshot %lld by %s", s[i].id,
              s[i].commit_user);
    long long k = s[i].commit_identifier;
    CHECK_MSG(k >= 0 && k < N, "snapshot %lld identifier %lld", s[i].id, k);
    CHECK_EQ_STR(s[i].commit_kind, "APPEND");
    CHECK_EQ_INT(s[i].id, (long long)i + 1);
    if (w >= 0 && w < P && k >= 0 && k < N) seen[w][k]++;
  }
  for (int w = 0; w < P; w++)
    for (int k = 0; k < N; k++) CHECK_MSG(seen[w][k] == 1, "writer %d batch %d published %d times", w, k, seen[w][k]);
  long long last_total = n ? s[n - 1].total_record_count : -1;
  free(s);
  CHECK(ot_check_ok(dir, 0, "8 x 25 concurrent commits"));
  json_t *exp = json_array();
  long long total = 0;
  for (int w = 0; w < P; w++)
    for (int k = 0; k < N; k++) {
      json_t *b = batch_rows(w * 100 + k, 0, -1);
      total += (long long)json_array_size(b);
      ot_model_append(&(ot_model){exp}, b);
      json_decref(b);
    }
  CHECK(ot_read_equals(dir, NULL, exp, "8 x 25 concurrent commits"));
  CHECK_EQ_INT(last_total, total);
  json_decref(exp);
  fprintf(stderr, "  %lld rows in %d batches\n", total, P * N);
}

static void test_two_overwriters(void) {
  char wh[512], dir[600];
  make_dirs("overwrite", wh, sizeof wh, dir, sizeof dir);
  char out_seed[700], out_a[700], out_b[700], st_seed[700], st_a[700], st_b[700];
  snprintf(out_seed, sizeof out_seed, "%s/../out-seed", wh);
  snprintf(out_a, sizeof out_a, "%s/../out-a", wh);
  snprintf(out_b, sizeof out_b, "%s/../out-b", wh);
  snprintf(st_seed, sizeof st_seed, "%s/../st-seed", wh);
  snprintf(st_a, sizeof st_a, "%s/../st-a", wh);
  snprintf(st_b, sizeof st_b, "%s/../st-b", wh);
  const int n_over = long_mode ? 20 : 8;
  char last[16];
  snprintf(last, sizeof last, "%d", n_over - 1);
  /* partition dt=part1: 3 rows that no overwrite of dt=part0 may touch */
  char *seed[] = {(char *)"api_crash_driver", (char *)"--state", st_seed, (char *)"--user", (char *)"seed",
                  (char *)"--base", (char *)"5000", (char *)"--part", (char *)"1", (char *)"--rows", (char *)"3",
                  wh, (char *)"db", (char *)"t", (char *)"0", (char *)"0", NULL};
  od_out o;
  run_one(seed, out_seed, &o);
  CHECK_MSG(o.status == 0 && o.n_committed == 1, "seed: exit %d %s", o.status, o.fail_line);
  char *a[] = {(char *)"api_crash_driver", (char *)"--overwrite", (char *)"--state", st_a, (char *)"--user",
               (char *)"over-a", (char *)"--base", (char *)"10000", (char *)"--part", (char *)"0", (char *)"--rows",
               (char *)"4", wh, (char *)"db", (char *)"t", (char *)"0", last, NULL};
  char *b[] = {(char *)"api_crash_driver", (char *)"--overwrite", (char *)"--state", st_b, (char *)"--user",
               (char *)"over-b", (char *)"--base", (char *)"20000", (char *)"--part", (char *)"0", (char *)"--rows",
               (char *)"5", wh, (char *)"db", (char *)"t", (char *)"0", last, NULL};
  pid_t pa = od_spawn(a, out_a), pb = od_spawn(b, out_b);
  int sa = pa > 0 ? od_wait(pa) : -1, sb = pb > 0 ? od_wait(pb) : -1;
  od_out ra, rb;
  memset(&ra, 0, sizeof ra);
  memset(&rb, 0, sizeof rb);
  od_parse(out_a, &ra);
  od_parse(out_b, &rb);
  CHECK_MSG(sa == 0, "overwriter a: exit %d %s", sa, ra.fail_line);
  CHECK_MSG(sb == 0, "overwriter b: exit %d %s", sb, rb.fail_line);
  fprintf(stderr, "  overwrites committed: a %zu, b %zu (of %d each)\n", ra.n_committed, rb.n_committed, n_over);
  CHECK(ra.n_committed + rb.n_committed >= 1);
  CHECK(ot_check_ok(dir, 0, "two overwriters"));
  json_t *seed_rows = batch_rows(5000, 3, 1);
  ot_snapshot *s = NULL;
  size_t gaps = 0, n = ot_snapshots(dir, &s, &gaps);
  CHECK_EQ_INT(gaps, 0);
  CHECK_EQ_INT(n, 1 + ra.n_committed + rb.n_committed);
  /* read several snapshots (all in long mode): dt=part1 = the seed; dt=part0 = one whole overwrite batch */
  size_t step = long_mode || n <= 6 ? 1 : (n - 1) / 5;
  int read = 0;
  for (size_t i = 1; i < n; i += step) {
    long long id = s[i].id;
    if (i + step >= n) id = s[n - 1].id; /* always the latest */
    char extra[64], what[96];
    snprintf(extra, sizeof extra, "--snapshot %lld", id);
    snprintf(what, sizeof what, "two overwriters, snapshot %lld", id);
    int rc = 0;
    json_t *rows = ot_read(dir, extra, &rc, NULL);
    CHECK_MSG(rows != NULL, "%s: read exit %d", what, rc);
    if (!rows) break;
    read++;
    json_t *p0 = json_array(), *p1 = json_array();
    size_t j;
    json_t *r;
    json_array_foreach(rows, j, r) {
      const char *dt = json_string_value(json_object_get(r, "dt"));
      json_array_append(dt && !strcmp(dt, "part0") ? p0 : p1, r);
    }
    char msg[4096];
    CHECK_MSG(ot_rows_match(seed_rows, p1, msg, sizeof msg), "%s: partition dt=part1 changed: %s", what, msg);
    /* the batch of the first dt=part0 row (ids are batch * 1000 + i) */
    long long bn = json_array_size(p0) ? json_integer_value(json_object_get(json_array_get(p0, 0), "id")) / 1000 : -1;
    int from_a = bn >= 10000 && bn < 10000 + n_over, from_b = bn >= 20000 && bn < 20000 + n_over;
    CHECK_MSG(from_a || from_b, "%s: partition dt=part0 holds batch %lld", what, bn);
    if (from_a || from_b) {
      CHECK_MSG(od_has(from_a ? ra.committed : rb.committed, from_a ? ra.n_committed : rb.n_committed,
                       bn - (from_a ? 10000 : 20000)),
                "%s: batch %lld in dt=part0 was never reported committed", what, bn);
      json_t *want = batch_rows(bn, from_a ? 4 : 5, 0);
      CHECK_MSG(ot_rows_match(want, p0, msg, sizeof msg), "%s: dt=part0 is not exactly batch %lld: %s", what, bn, msg);
      json_decref(want);
    }
    json_decref(p0);
    json_decref(p1);
    json_decref(rows);
    if (id == s[n - 1].id) break;
  }
  fprintf(stderr, "  %d snapshots read of %zu\n", read, n);
  CHECK(read >= (n > 3 ? 3 : (int)n - 1));
  free(s);
  json_decref(seed_rows);
}

int main(void) {
  int go = od_test_begin("write_concurrency", ot_available(), tmp_root, sizeof tmp_root, &long_mode);
  if (go < 0) return 1;
  if (!go) TEST_MAIN_END();
  RUN_TEST(test_eight_writers);
  RUN_TEST(test_two_overwriters);
  od_test_end(tmp_root, pm_test_failures);
  TEST_MAIN_END();
}
