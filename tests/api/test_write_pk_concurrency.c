/*
 * Concurrent writers of one primary-key table (issue 12 §4 "Crashes and
 * concurrency"), as separate processes (fork), each with its own catalog:
 *   - two stream writers, each writing only the keys of its own bucket (as a
 *     Flink job's subtasks do), both compacting by themselves: every commit
 *     succeeds, no compaction is dropped, each (user, identifier) is
 *     published exactly once, and the table equals the model of both;
 *   - a write-only stream writer racing a dedicated compaction (Java's
 *     recommended set-up): the compactor's commits never conflict (the writer
 *     deletes nothing), the table equals the writer's model after every
 *     compaction the compactor made;
 *   - a writer that compacts too, racing the dedicated compaction: conflicts
 *     are resolved as Java resolves them. A compactor commit that conflicts
 *     publishes nothing and is aborted; a writer commit whose data was
 *     published but whose compaction conflicted returns OK, the compaction is
 *     dropped (paimon_table_commit_compaction_dropped) and the writer is
 *     recreated, as a Java job restarts. Every batch is published exactly once.
 * After each scenario both readers (ours and `paimon-table read`) return the
 * model and `paimon-table check` passes (it also recomputes every row's bucket).
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "data/bucket.h"
#include "harness.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/oracle_table.h"
#include "support/oracle_write.h"
#include "support/pk_write.h"

static char wh[256];
static const char *const COLS[] = {"id:i:notnull", "v:u", "n:l"};

static const char *table_dir(const char *name) {
  static char d[512];
  snprintf(d, sizeof d, "%s/d.db/%s", wh, name);
  return d;
}

/* Catalogs of this test never start threads: children are forked. */
static paimon_catalog *open_catalog(void) {
  paimon_error err = {0};
  paimon_option o[] = {{"warehouse", wh}, {"threads", "1"}};
  paimon_catalog *c = NULL;
  CHECK_OK(paimon_catalog_open(o, 2, &c, &err), &err);
  return c;
}

static void make_table(const char *name, int buckets, const char *extra) {
  paimon_catalog *cat = open_catalog();
  char b[32];
  snprintf(b, sizeof b, "bucket=%d", buckets);
  const char *opts[4] = {"primary-key=id", b, "num-sorted-run.compaction-trigger=2", extra};
  paimon_error err = {0};
  CHECK_OK(ow_create_table(cat, "d", name, "id INT NOT NULL, v STRING, n BIGINT", NULL, opts, extra ? 4 : 3, 0, &err),
           &err);
  paimon_catalog_free(cat);
}

/* The bucket of key id in a table of n buckets, from FORMAT.md: the BinaryRow
 * of the key (8 header bytes, one 8-byte slot holding the INT) hashed. */
static int bucket_of(int32_t id, int n) {
  uint8_t row[16] = {0};
  uint32_t u = (uint32_t)id;
  for (int i = 0; i < 4; i++) row[8 + i] = (uint8_t)(u >> (8 * i));
  return pm_bucket_of_hash(pm_bucket_hash(row, sizeof row), n);
}

/* ------------------------------------------------------------ schedules */

/* A batch of writer `who`, commit k: upserts of 20 of its keys, and every third
 * commit deletes of 3. Deterministic, so the parent can replay it. keys: the
 * writer's key set. */
typedef struct sched_batch {
  char upserts[4096];
  char deletes[512];
} sched_batch;

static uint32_t lcg(uint32_t *s) {
  *s = *s * 1103515245u + 12345u;
  return *s >> 8;
}

static void schedule(int who, int k, const int *keys, int n_keys, sched_batch *b) {
  uint32_t seed = (uint32_t)(who * 7919 + k * 104729 + 1);
  size_t len = 0;
  b->upserts[0] = b->deletes[0] = 0;
  for (int i = 0; i < 20; i++) {
    int id = keys[lcg(&seed) % (uint32_t)n_keys];
    len += (size_t)snprintf(b->upserts + len, sizeof b->upserts - len, "{\"id\":%d,\"v\":\"w%dk%d\",\"n\":%d}\n", id,
                            who, k, k * 1000 + i);
  }
  if (k % 3 == 0) {
    len = 0;
    for (int i = 0; i < 3; i++) {
      int id = keys[lcg(&seed) % (uint32_t)n_keys];
      len += (size_t)snprintf(b->deletes + len, sizeof b->deletes - len, "{\"id\":%d,\"v\":null,\"n\":null}\n", id);
    }
  }
}

static void model_apply(json_t *model, const char *jsonl, int del) {
  if (!*jsonl) return;
  json_t *rows = ot_parse_lines(jsonl, NULL);
  CHECK(rows != NULL);
  size_t i;
  json_t *r;
  json_array_foreach(rows, i, r) {
    char key[32];
    snprintf(key, sizeof key, "%lld", (long long)json_integer_value(json_object_get(r, "id")));
    if (del)
      json_object_del(model, key);
    else
      json_object_set(model, key, r);
  }
  json_decref(rows);
}

static void check_model(const char *name, const json_t *model, const char *what) {
  json_t *want = json_array();
  const char *k;
  json_t *v;
  json_object_foreach((json_t *)model, k, v) json_array_append(want, v);
  paimon_catalog *cat = open_catalog();
  char ident[128];
  snprintf(ident, sizeof ident, "d.%s", name);
  paimon_table *t = pkw_get_table(cat, ident);
  paimon_error err = {0};
  json_t *ours = ow_read_ours(t, &err);
  CHECK_MSG(ours != NULL, "%s: our read: %s", what, err.message);
  if (ours) {
    char msg[8192];
    CHECK_MSG(ot_rows_match(want, ours, msg, sizeof msg), "%s: our reader: %s", what, msg);
  }
  json_decref(ours);
  if (ot_available()) {
    CHECK_MSG(ot_check_ok(table_dir(name), 0, what), "%s", what);
    CHECK_MSG(ot_read_equals(table_dir(name), NULL, want, what), "%s", what);
  }
  json_decref(want);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* ------------------------------------------------------------ children */

typedef struct child_stats {
  int commits, dropped, conflicts, compactions;
} child_stats;

static void write_stats(const char *path, const child_stats *s) {
  FILE *f = fopen(path, "w");
  if (!f) _exit(90);
  fprintf(f, "%d %d %d %d\n", s->commits, s->dropped, s->conflicts, s->compactions);
  fclose(f);
}

static child_stats read_stats(const char *path) {
  child_stats s = {-1, -1, -1, -1};
  FILE *f = fopen(path, "r");
  if (f) {
    if (fscanf(f, "%d %d %d %d", &s.commits, &s.dropped, &s.conflicts, &s.compactions) != 4) s.commits = -1;
    fclose(f);
  }
  return s;
}

#define CHILD_FAIL(code, ...)                 \
  do {                                        \
    fprintf(stderr, "child: " __VA_ARGS__);   \
    fputc('\n', stderr);                      \
    _exit(code);                              \
  } while (0)

/* A stream writer of user "w<who>": commits 1..n of schedule(who, k). write_only: the
 * dynamic option write-only = true. A commit whose compaction was dropped recreates the
 * writer (same user), as a restarted job would. */
static void writer_child(const char *name, int who, const int *keys, int n_keys, int n, int write_only,
                         const char *stats_path) {
  paimon_catalog *cat = open_catalog();
  char ident[128], user[32];
  snprintf(ident, sizeof ident, "d.%s", name);
  snprintf(user, sizeof user, "w%d", who);
  paimon_table *t = pkw_get_table(cat, ident);
  paimon_option dyn[] = {{"write-only", "true"}};
  paimon_error err = {0};
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  child_stats st = {0, 0, 0, 0};
  for (int k = 1; k <= n; k++) {
    if (!wb) {
      if (paimon_write_builder_new(t, 1, dyn, write_only ? 1 : 0, &wb, &err) ||
          paimon_write_builder_with_commit_user(wb, user, &err) || paimon_write_builder_new_write(wb, &w, &err))
        CHILD_FAIL(2, "builder: %s", err.message);
    }
    sched_batch b;
    schedule(who, k, keys, n_keys, &b);
    const char *parts[2] = {b.upserts, b.deletes};
    for (int p = 0; p < 2; p++) {
      if (!*parts[p]) continue;
      struct ArrowSchema s;
      struct ArrowArray a;
      pkw_batch(COLS, 3, parts[p], &s, &a);
      int rc = paimon_table_write_arrow_kind(w, &s, &a, p ? 3 : 0, &err);
      a.release(&a);
      s.release(&s);
      if (rc) CHILD_FAIL(3, "write %d: %s", k, err.message);
    }
    paimon_commit_messages *m = NULL;
    paimon_table_commit *c = NULL;
    if (paimon_table_write_prepare_commit(w, k, &m, &err)) CHILD_FAIL(4, "prepare %d: %s", k, err.message);
    if (paimon_write_builder_new_commit(wb, &c, &err)) CHILD_FAIL(5, "new commit: %s", err.message);
    int rc = paimon_table_commit_commit(c, m, k, NULL, &err);
    if (rc) CHILD_FAIL(6, "commit %d: status %d: %s", k, rc, err.message);
    st.commits++;
    int dropped = paimon_table_commit_compaction_dropped(c);
    paimon_commit_messages_free(m);
    paimon_table_commit_free(c);
    if (dropped) {
      if (dropped != PAIMON_ERR_CONFLICT) CHILD_FAIL(7, "commit %d: compaction dropped with %d", k, dropped);
      st.dropped++;
      paimon_table_write_free(w);
      paimon_write_builder_free(wb);
      w = NULL;
      wb = NULL;
    }
    paimon_compact_metrics mt;
    if (w) paimon_table_write_compact_metrics(w, &mt);
    if (w) st.compactions = (int)mt.tasks;
  }
  paimon_table_write_free(w);
  paimon_write_builder_free(wb);
  paimon_table_free(t);
  paimon_catalog_free(cat);
  write_stats(stats_path, &st);
  _exit(0);
}

/* A dedicated compaction (user "compactor", batch commits, write-only = false) run
 * `rounds` times: full compaction of every bucket; a CONFLICT is aborted and counted. */
static void compactor_child(const char *name, int rounds, const char *stats_path) {
  paimon_catalog *cat = open_catalog();
  char ident[128];
  snprintf(ident, sizeof ident, "d.%s", name);
  paimon_table *t = pkw_get_table(cat, ident);
  paimon_option dyn[] = {{"write-only", "false"}};
  child_stats st = {0, 0, 0, 0};
  for (int r = 0; r < rounds; r++) {
    paimon_error err = {0};
    paimon_write_builder *wb = NULL;
    paimon_table_write *w = NULL;
    paimon_commit_messages *m = NULL;
    paimon_table_commit *c = NULL;
    if (paimon_write_builder_new(t, 0, dyn, 1, &wb, &err) ||
        paimon_write_builder_with_commit_user(wb, "compactor", &err) || paimon_write_builder_new_write(wb, &w, &err))
      CHILD_FAIL(12, "builder: %s", err.message);
    if (paimon_table_write_compact(w, NULL, 0, -1, 1, &err)) CHILD_FAIL(13, "compact: %s", err.message);
    if (paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, &err))
      CHILD_FAIL(14, "prepare: %s", err.message);
    paimon_compact_metrics mt;
    paimon_table_write_compact_metrics(w, &mt);
    if (paimon_write_builder_new_commit(wb, &c, &err)) CHILD_FAIL(15, "new commit: %s", err.message);
    int rc = paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, NULL, &err);
    if (rc == PAIMON_ERR_CONFLICT) {
      st.conflicts++;
      paimon_error e2 = {0};
      if (paimon_table_commit_abort(c, m, &e2)) CHILD_FAIL(16, "abort: %s", e2.message);
    } else if (rc) {
      CHILD_FAIL(17, "commit: status %d: %s", rc, err.message);
    } else {
      st.commits++;
      st.compactions += (int)mt.tasks;
    }
    paimon_commit_messages_free(m);
    paimon_table_commit_free(c);
    paimon_table_write_free(w);
    paimon_write_builder_free(wb);
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  paimon_table_free(t);
  paimon_catalog_free(cat);
  write_stats(stats_path, &st);
  _exit(0);
}

static int wait_child(pid_t pid, const char *what) {
  int status = 0;
  CHECK(waitpid(pid, &status, 0) == pid);
  CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: exit status %d (signal %d)", what,
            WIFEXITED(status) ? WEXITSTATUS(status) : -1, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Each (user, identifier, kind) of `users` at most once, APPENDs 1..n of each writer
 * exactly once, contiguous ids. Returns the number of COMPACT snapshots of `user` (NULL: all). */
static int check_snapshots(const char *name, const char *const *writers, size_t n_writers, int n, const char *user) {
  ot_snapshot *s = NULL;
  size_t gaps = 0;
  size_t cnt = ot_snapshots(table_dir(name), &s, &gaps);
  CHECK_EQ_INT(gaps, 0);
  for (size_t w = 0; w < n_writers; w++)
    for (int k = 1; k <= n; k++) {
      int appends = 0;
      for (size_t i = 0; i < cnt; i++)
        appends += !strcmp(s[i].commit_user, writers[w]) && s[i].commit_identifier == k &&
                   !strcmp(s[i].commit_kind, "APPEND");
      CHECK_MSG(appends == 1, "%s: writer %s identifier %d published %d times", name, writers[w], k, appends);
    }
  int compacts = 0;
  for (size_t i = 0; i < cnt; i++)
    compacts += !strcmp(s[i].commit_kind, "COMPACT") && (!user || !strcmp(s[i].commit_user, user));
  free(s);
  return compacts;
}

/* ------------------------------------------------------------ tests */

static void test_two_writers_own_buckets(void) {
  enum { N = 10, KEYS = 400 };
  make_table("two", 2, NULL);
  int keys[2][KEYS], nk[2] = {0, 0};
  for (int id = 0; id < KEYS; id++) {
    int b = bucket_of(id, 2);
    keys[b][nk[b]++] = id;
  }
  CHECK(nk[0] > 50 && nk[1] > 50);
  char stats[2][600];
  pid_t pid[2];
  for (int w = 0; w < 2; w++) {
    snprintf(stats[w], sizeof stats[w], "%s/two-stats-%d", wh, w);
    fflush(NULL);
    pid[w] = fork();
    CHECK(pid[w] >= 0);
    if (pid[w] == 0) writer_child("two", w, keys[w], nk[w], N, 0, stats[w]);
  }
  int ok = 1;
  for (int w = 0; w < 2; w++) ok &= wait_child(pid[w], "writer");
  if (!ok) return;
  json_t *model = json_object();
  for (int w = 0; w < 2; w++) {
    child_stats s = read_stats(stats[w]);
    CHECK_EQ_INT(s.commits, N);
    CHECK_EQ_INT(s.dropped, 0);
    for (int k = 1; k <= N; k++) {
      sched_batch b;
      schedule(w, k, keys[w], nk[w], &b);
      model_apply(model, b.upserts, 0);
      model_apply(model, b.deletes, 1);
    }
  }
  const char *users[] = {"w0", "w1"};
  int compacts = check_snapshots("two", users, 2, N, NULL);
  CHECK_MSG(compacts >= 2, "compactions published: %d", compacts);
  check_model("two", model, "two writers on their own buckets");
  printf("two writers: %d commits each, %d COMPACT snapshots\n", N, compacts);
  json_decref(model);
}

/* scenario: "race" (write-only writer) or "race_both" (the writer compacts too) */
static void race(const char *name, int write_only) {
  enum { N = 14, KEYS = 100, ROUNDS = 8 };
  make_table(name, 1, NULL);
  int keys[KEYS];
  for (int i = 0; i < KEYS; i++) keys[i] = i;
  char ws[600], cs[600];
  snprintf(ws, sizeof ws, "%s/%s-writer", wh, name);
  snprintf(cs, sizeof cs, "%s/%s-compactor", wh, name);
  fflush(NULL);
  pid_t w = fork();
  CHECK(w >= 0);
  if (w == 0) writer_child(name, 0, keys, KEYS, N, write_only, ws);
  pid_t c = fork();
  CHECK(c >= 0);
  if (c == 0) compactor_child(name, ROUNDS, cs);
  int ok = wait_child(w, "writer");
  ok &= wait_child(c, "compactor");
  if (!ok) return;
  child_stats sw = read_stats(ws), sc = read_stats(cs);
  CHECK_EQ_INT(sw.commits, N);
  CHECK_EQ_INT(sc.commits + sc.conflicts, ROUNDS);
  if (write_only) {
    CHECK_EQ_INT(sw.dropped, 0);
    CHECK_EQ_INT(sc.conflicts, 0); /* a write-only writer deletes nothing: nothing to conflict with */
  }
  json_t *model = json_object();
  for (int k = 1; k <= N; k++) {
    sched_batch b;
    schedule(0, k, keys, KEYS, &b);
    model_apply(model, b.upserts, 0);
    model_apply(model, b.deletes, 1);
  }
  const char *users[] = {"w0"};
  int by_compactor = check_snapshots(name, users, 1, N, "compactor");
  CHECK_MSG(by_compactor <= sc.commits, "compactor COMPACT snapshots %d > its successful commits %d", by_compactor,
            sc.commits);
  check_model(name, model, write_only ? "write-only writer + dedicated compaction" : "both compacting");
  /* a last compaction on the quiet table, then the model again */
  if (!pm_test_failures) {
    fflush(NULL);
    pid_t last = fork();
    CHECK(last >= 0);
    if (last == 0) compactor_child(name, 1, cs);
    if (wait_child(last, "last compaction")) {
      child_stats s = read_stats(cs);
      CHECK_EQ_INT(s.conflicts, 0);
      check_model(name, model, "after a final full compaction");
    }
  }
  printf("%s: writer %d commits, %d compactions dropped; compactor %d commits, %d conflicts, %d COMPACT snapshots\n",
         name, sw.commits, sw.dropped, sc.commits, sc.conflicts, by_compactor);
  json_decref(model);
}

static void test_write_only_writer_and_compactor(void) { race("race", 1); }
static void test_compacting_writer_and_compactor(void) { race("race_both", 0); }

int main(void) {
  snprintf(wh, sizeof wh, "/tmp/pm_write_pk_conc_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  RUN_TEST(test_two_writers_own_buckets);
  RUN_TEST(test_write_only_writer_and_compactor);
  RUN_TEST(test_compacting_writer_and_compactor);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && system(cmd)) return 1;
  TEST_MAIN_END();
}
