/*
 * Maintenance racing writers and readers in other processes (issue 13 §5), through the public API:
 *   - snapshot expiry (retain-max 2) in a loop against a writer (one APPEND snapshot per batch)
 *     and readers: a reader of the snapshot a consumer pins, and of every snapshot the expiry
 *     keeps, never fails; a reader of the latest snapshot either reads exactly its rows or fails
 *     only when that snapshot expired meanwhile (Java's reader of an expiring snapshot fails with
 *     FileNotFoundException too); afterwards paimon-table check passes and the latest snapshot
 *     reads every batch (both readers);
 *   - orphan cleanup (older than now - 3 s) in a loop against a writer whose commits stay in
 *     flight 50 ms between writing the files and committing them (and a first commit whose files
 *     are made an hour old, candidates of every cleanup): no file of an in-flight commit
 *     is deleted (every commit succeeds, every row reads), check passes afterwards; then a
 *     cleanup older than now deletes the abandoned files of a commit that never came;
 *   - dedicated compaction in a loop against overwrites (and appends) of the same partition:
 *     each compaction commits or fails with CONFLICT (never another error, never a lost or
 *     resurrected row): every COMPACT snapshot reads exactly as the snapshot before it, the
 *     latest reads as the writer's last state, check passes.
 */
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "paimon/cleanup.h"
#include "paimon/compact.h"
#include "paimon/expire.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/expire_check.h"
#include "table/expire.h"

static char tmp_root[256], wh[300];

static paimon_catalog *open_catalog(void) {
  paimon_option o = {"warehouse", wh};
  paimon_error err = {0};
  paimon_catalog *cat = NULL;
  if (paimon_catalog_open(&o, 1, &cat, &err)) fprintf(stderr, "catalog: %s\n", err.message);
  return cat;
}

static paimon_table *get(paimon_catalog *cat, const char *ident) {
  paimon_table *t = NULL;
  paimon_error err = {0};
  if (paimon_catalog_get_table(cat, ident, &t, &err)) fprintf(stderr, "%s: %s\n", ident, err.message);
  return t;
}

static char *batch_rows(int b, const char *p, int n) {
  char *s = calloc(1, (size_t)n * 64 + 1);
  size_t len = 0;
  for (int i = 0; i < n; i++)
    len += (size_t)sprintf(s + len, "{\"id\":%d,\"v\":\"b%d-%d\",\"p\":\"%s\"}\n", b * 100 + i, b, i, p);
  return s;
}

/* Rows of batches 1..upto (2 rows each, partition "a"). */
static json_t *batches_upto(int upto) {
  json_t *all = json_array();
  for (int b = 1; b <= upto; b++) {
    char *r = batch_rows(b, "a", 2);
    json_t *rows = ot_parse_lines(r, NULL);
    json_array_extend(all, rows);
    json_decref(rows);
    free(r);
  }
  return all;
}

static long long latest_id(const paimon_table *t) {
  pm_snapshot_manager sm = pm_table_snapshots(t->t);
  int64_t id = 0;
  pm_error e = {0};
  if (pm_snapshot_latest_id(&sm, &id, &e)) return -1;
  return id;
}

static int snapshot_exists(const paimon_table *t, long long id) {
  pm_snapshot_manager sm = pm_table_snapshots(t->t);
  int exists = 0;
  pm_error e = {0};
  return pm_snapshot_exists(&sm, id, &exists, &e) == 0 && exists;
}

/* ------------------------------------------------------------------ expiry */

#define EX_BATCHES 40

static int child_writer(const char *ident, int n, int in_flight_ms) {
  paimon_catalog *cat = open_catalog();
  paimon_table *t = cat ? get(cat, ident) : NULL;
  if (!t) return 2;
  for (int b = 1; b <= n; b++) {
    char *r = batch_rows(b, "a", 2);
    paimon_error err = {0};
    int rc;
    if (in_flight_ms) { /* files written, then the commit after a while */
      paimon_write_builder *wb = NULL;
      paimon_table_write *w = NULL;
      paimon_commit_messages *m = NULL;
      paimon_table_commit *c = NULL;
      struct ArrowSchema s;
      struct ArrowArray a;
      rc = paimon_write_builder_new(t, 0, NULL, 0, &wb, &err);
      if (!rc) rc = paimon_write_builder_new_write(wb, &w, &err);
      if (!rc) rc = ow_batch(t, r, &s, &a, &err);
      if (!rc) {
        rc = paimon_table_write_arrow(w, &s, &a, &err);
        a.release(&a);
        s.release(&s);
      }
      if (!rc) rc = paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, &err);
      usleep((useconds_t)in_flight_ms * 1000);
      if (!rc) rc = paimon_write_builder_new_commit(wb, &c, &err);
      if (!rc) rc = paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, NULL, &err);
      paimon_table_commit_free(c);
      paimon_commit_messages_free(m);
      paimon_table_write_free(w);
      paimon_write_builder_free(wb);
    } else {
      rc = ow_write_commit(t, NULL, 0, 0, r, NULL, 0, 0, NULL, &err);
      usleep(20000);
    }
    free(r);
    if (rc) {
      fprintf(stderr, "writer batch %d: %d %s\n", b, rc, err.message);
      return 1;
    }
  }
  paimon_table_free(t);
  paimon_catalog_free(cat);
  return 0;
}

static int child_expirer(const char *ident, const char *stop_file) {
  paimon_catalog *cat = open_catalog();
  paimon_table *t = cat ? get(cat, ident) : NULL;
  if (!t) return 2;
  int runs = 0;
  while (access(stop_file, F_OK) != 0) {
    paimon_expire_options o;
    paimon_expire_options_init(&o);
    o.retain_max = 2;
    o.retain_min = 1;
    o.time_retained_millis = 10LL * 86400 * 1000;
    o.max_deletes = 1000;
    paimon_expire_result r;
    paimon_error err = {0};
    if (paimon_table_expire_snapshots(t, &o, NULL, NULL, &r, &err)) {
      fprintf(stderr, "expiry: %s\n", err.message);
      return 1;
    }
    runs++;
    usleep(5000);
  }
  paimon_table_free(t);
  paimon_catalog_free(cat);
  return runs > 0 ? 0 : 3;
}

static void test_expire_race(void) {
  paimon_catalog *cat = open_catalog();
  paimon_error err = {0};
  const char *opts[] = {"bucket=-1", "write-only=true"};
  CHECK_OK(ow_create_table(cat, "db", "ex", "id INT NOT NULL, v STRING, p STRING", "p", opts, 2, 0, &err), &err);
  paimon_table *t = get(cat, "db.ex");
  if (!t) return;
  char *r = batch_rows(1, "a", 2);
  CHECK_OK(ow_write_commit(t, NULL, 0, 0, r, NULL, 0, 0, NULL, &err), &err);
  free(r);
  CHECK_OK(paimon_table_create_tag(t, "t1", 1, NULL, 0, &err), &err); /* the tag pins snapshot 1's files */
  json_t *tag_rows = batches_upto(1);
  long long pinned = 0; /* the snapshot a consumer pins, once the writer is half way */
  json_t *pinned_rows = NULL;
  fflush(stdout);
  char stop[400];
  snprintf(stop, sizeof stop, "%s/stop-expiry", tmp_root);
  pid_t w = fork();
  if (w == 0) _exit(child_writer("db.ex", EX_BATCHES, 0) ? 1 : 0); /* batches 1.. again: ids repeat, fine */
  pid_t x = fork();
  if (x == 0) _exit(child_expirer("db.ex", stop));
  /* the readers: the pinned snapshot, and the latest one (which may expire while read) */
  int reads = 0, latest_ok = 0, latest_gone = 0, lost_pins = 0, wst = 0;
  while (waitpid(w, &wst, WNOHANG) == 0) {
    char msg[2048];
    json_t *got = ec_ours(t, 1, "t1");
    CHECK_MSG(got && ot_rows_match(tag_rows, got, msg, sizeof msg), "tag t1: %s", got ? msg : "unreadable");
    json_decref(got);
    long long id = latest_id(t);
    if (!pinned && id >= EX_BATCHES / 2 && paimon_table_reset_consumer(t, "pinned", id, &err) == 0) {
      /* (a NOT_FOUND: it expired meanwhile, the next round tries again). An expiry that read the
       * consumers before this one existed may still delete the snapshot (Java's expiry reads
       * them once too): the pin holds once a later expiry run saw it */
      usleep(100000);
      if (!snapshot_exists(t, id)) {
        lost_pins++;
        continue;
      }
      pinned = id;
      pinned_rows = batches_upto(1);
      json_t *more = batches_upto((int)id - 1);
      json_array_extend(pinned_rows, more);
      json_decref(more);
    }
    if (pinned) {
      got = ec_ours(t, pinned, NULL);
      CHECK_MSG(got && ot_rows_match(pinned_rows, got, msg, sizeof msg), "the pinned snapshot %lld: %s", pinned,
                got ? msg : "unreadable");
      json_decref(got);
    }
    if (id > 1) {
      json_t *rows = ec_ours(t, id, NULL);
      if (rows) {
        json_t *want = batches_upto(1);
        json_t *more = batches_upto((int)id - 1); /* snapshot id = batch 1 + batches 1..id-1 */
        json_array_extend(want, more);
        CHECK_MSG(ot_rows_match(want, rows, msg, sizeof msg), "snapshot %lld: %s", id, msg);
        json_decref(want);
        json_decref(more);
        latest_ok++;
      } else {
        CHECK_MSG(!snapshot_exists(t, id), "a read of retained snapshot %lld failed", id);
        latest_gone++;
      }
      json_decref(rows);
    }
    reads++;
  }
  CHECK_MSG(WIFEXITED(wst) && WEXITSTATUS(wst) == 0, "writer exit %d", wst);
  FILE *f = fopen(stop, "w");
  if (f) fclose(f);
  int xst = 0;
  waitpid(x, &xst, 0);
  CHECK_MSG(WIFEXITED(xst) && WEXITSTATUS(xst) == 0, "expirer exit %d", xst);
  printf("expiry race: %d reads (latest read %d times, expired under the reader %d times; %d consumer pins lost to "
         "an expiry in flight)\n", reads, latest_ok, latest_gone, lost_pins);
  /* the end: the pinned snapshot and everything after it kept (nothing before), tag t1 reads, no
   * needed file missing, both readers agree */
  long long l = latest_id(t);
  CHECK_EQ_INT(l, EX_BATCHES + 1);
  CHECK_MSG(pinned > 1, "a consumer was set (%lld)", pinned);
  for (long long id = 1; id <= l; id++)
    CHECK_MSG(snapshot_exists(t, id) == (id >= pinned), "snapshot %lld %s", id, id >= pinned ? "gone" : "kept");
  char dir[400];
  snprintf(dir, sizeof dir, "%s/db.db/ex", wh);
  ec_files needed;
  ec_files_collect(t->t, &needed);
  CHECK_MSG(needed.missing == 0, "expiry race: needed file missing: %s", needed.first_missing);
  ec_files_free(&needed);
  json_t *want = batches_upto(1), *more = batches_upto(EX_BATCHES);
  json_array_extend(want, more);
  json_t *got = ec_ours(t, l, NULL);
  char msg[2048];
  CHECK_MSG(got && ot_rows_match(want, got, msg, sizeof msg), "latest: %s", got ? msg : "unreadable");
  CHECK(ot_read_equals(dir, NULL, want, "expiry race: latest"));
  CHECK(ot_check_ok(dir, 0, "expiry race"));
  json_decref(got);
  json_decref(want);
  json_decref(more);
  json_decref(pinned_rows);
  json_decref(tag_rows);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* ------------------------------------------------------------------ orphan cleanup */

#define OR_BATCHES 40

static void test_orphan_race(void) {
  paimon_catalog *cat = open_catalog();
  paimon_error err = {0};
  const char *opts[] = {"bucket=-1", "write-only=true"};
  CHECK_OK(ow_create_table(cat, "db", "orph", "id INT NOT NULL, v STRING, p STRING", "p", opts, 2, 0, &err), &err);
  paimon_table *t = get(cat, "db.orph");
  if (!t) return;
  /* a first commit whose files are made old: candidates of every cleanup, referenced, kept */
  char *r0 = batch_rows(0, "a", 2);
  CHECK_OK(ow_write_commit(t, NULL, 0, 0, r0, NULL, 0, 0, NULL, &err), &err);
  json_t *want = ot_parse_lines(r0, NULL);
  free(r0);
  char dir[400], cmd[1000];
  snprintf(dir, sizeof dir, "%s/db.db/orph", wh);
  snprintf(cmd, sizeof cmd, "touch -d '1 hour ago' $(find '%s' -type f)", dir);
  CHECK(system(cmd) == 0);
  fflush(stdout);
  pid_t w = fork();
  if (w == 0) _exit(child_writer("db.orph", OR_BATCHES, 50) ? 1 : 0);
  int runs = 0, wst = 0;
  uint64_t deleted = 0, candidates = 0;
  while (waitpid(w, &wst, WNOHANG) == 0) {
    paimon_orphan_result r;
    CHECK_OK(paimon_table_remove_orphan_files(t, pm_expire_now_ms() - 3000, 0, NULL, NULL, NULL, &r, &err), &err);
    deleted += r.files;
    if (r.candidates > candidates) candidates = r.candidates;
    runs++;
    usleep(10000);
  }
  CHECK_MSG(WIFEXITED(wst) && WEXITSTATUS(wst) == 0, "writer exit %d (a commit of files orphan cleanup deleted?)",
            wst);
  printf("orphan race: %d cleanups, %llu files deleted, up to %llu old enough\n", runs, (unsigned long long)deleted,
         (unsigned long long)candidates);
  CHECK_EQ_INT(deleted, 0);
  CHECK_MSG(candidates > 0, "the old committed files are candidates");
  json_t *more = batches_upto(OR_BATCHES);
  json_array_extend(want, more);
  json_decref(more);
  json_t *got = ec_ours(t, OR_BATCHES + 1, NULL);
  char msg[2048];
  CHECK_MSG(got && ot_rows_match(want, got, msg, sizeof msg), "orphan race: %s", got ? msg : "unreadable");
  json_decref(got);
  CHECK(ot_read_equals(dir, NULL, want, "orphan race"));
  CHECK(ot_check_ok(dir, 0, "orphan race"));
  /* a commit that never comes: its files go once they are older than older_than */
  paimon_write_builder *wb = NULL;
  paimon_table_write *tw = NULL;
  paimon_commit_messages *m = NULL;
  struct ArrowSchema s;
  struct ArrowArray a;
  char *r = batch_rows(99, "a", 2);
  CHECK_OK(paimon_write_builder_new(t, 0, NULL, 0, &wb, &err), &err);
  CHECK_OK(paimon_write_builder_new_write(wb, &tw, &err), &err);
  CHECK_OK(ow_batch(t, r, &s, &a, &err), &err);
  CHECK_OK(paimon_table_write_arrow(tw, &s, &a, &err), &err);
  a.release(&a);
  s.release(&s);
  CHECK_OK(paimon_table_write_prepare_commit(tw, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, &err), &err);
  free(r);
  paimon_orphan_result res;
  CHECK_OK(paimon_table_remove_orphan_files(t, pm_expire_now_ms() - 60000, 0, NULL, NULL, NULL, &res, &err), &err);
  CHECK_EQ_INT(res.files, 0); /* in flight: younger than older_than */
  usleep(5000);
  CHECK_OK(paimon_table_remove_orphan_files(t, pm_expire_now_ms() - 1, 0, NULL, NULL, NULL, &res, &err), &err);
  CHECK_MSG(res.files >= 1, "the abandoned commit's file is deleted (%llu)", (unsigned long long)res.files);
  CHECK(ot_check_ok(dir, 0, "orphan race: abandoned files gone"));
  CHECK(ot_read_equals(dir, NULL, want, "orphan race: abandoned files gone"));
  json_decref(want);
  paimon_commit_messages_free(m);
  paimon_table_write_free(tw);
  paimon_write_builder_free(wb);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* ------------------------------------------------------------------ compaction vs overwrite */

#define OW_ROUNDS 12

/* The writer: per round an overwrite of partition a (2 rows), then two appends to a (small files
 * for the compaction); partition b gets one append per round. Its final rows are known. */
static int child_overwriter(void) {
  paimon_catalog *cat = open_catalog();
  paimon_table *t = cat ? get(cat, "db.cow") : NULL;
  if (!t) return 2;
  for (int k = 1; k <= OW_ROUNDS; k++) {
    paimon_error err = {0};
    paimon_option spec = {"p", "a"};
    char *r = batch_rows(k * 10, "a", 2);
    int rc = ow_write_commit(t, NULL, 0, 0, r, &spec, 1, 1, NULL, &err);
    free(r);
    for (int j = 1; !rc && j <= 2; j++) {
      r = batch_rows(k * 10 + j, "a", 1);
      rc = ow_write_commit(t, NULL, 0, 0, r, NULL, 0, 0, NULL, &err);
      free(r);
    }
    if (!rc) {
      r = batch_rows(k * 10 + 5, "b", 1);
      rc = ow_write_commit(t, NULL, 0, 0, r, NULL, 0, 0, NULL, &err);
      free(r);
    }
    if (rc) {
      fprintf(stderr, "overwriter round %d: %d %s\n", k, rc, err.message);
      return 1;
    }
  }
  paimon_table_free(t);
  paimon_catalog_free(cat);
  return 0;
}

static int child_compactor(const char *stop_file) {
  paimon_catalog *cat = open_catalog();
  paimon_table *t = cat ? get(cat, "db.cow") : NULL;
  if (!t) return 2;
  int done = 0, conflicts = 0;
  while (access(stop_file, F_OK) != 0) {
    paimon_compact_options o;
    paimon_compact_options_init(&o);
    o.full = 1;
    paimon_compact_result r;
    paimon_error err = {0};
    int rc = paimon_table_compact(t, &o, &r, &err);
    if (rc == PAIMON_ERR_CONFLICT) conflicts++;
    else if (rc) {
      fprintf(stderr, "compaction: %d %s\n", rc, err.message);
      return 1;
    } else if (r.snapshot_id >= 0) done++;
    usleep(2000);
  }
  printf("compaction race: %d compactions committed, %d conflicts\n", done, conflicts);
  fflush(stdout);
  paimon_table_free(t);
  paimon_catalog_free(cat);
  return 0;
}

static void test_compact_overwrite_race(void) {
  paimon_catalog *cat = open_catalog();
  paimon_error err = {0};
  const char *opts[] = {"bucket=-1", "write-only=true", "compaction.min.file-num=2"};
  CHECK_OK(ow_create_table(cat, "db", "cow", "id INT NOT NULL, v STRING, p STRING", "p", opts, 3, 0, &err), &err);
  paimon_table *t = get(cat, "db.cow");
  if (!t) return;
  char stop[400];
  snprintf(stop, sizeof stop, "%s/stop-compact", tmp_root);
  fflush(stdout);
  pid_t c = fork();
  if (c == 0) _exit(child_compactor(stop));
  pid_t w = fork();
  if (w == 0) _exit(child_overwriter());
  int wst = 0, cst = 0;
  waitpid(w, &wst, 0);
  FILE *f = fopen(stop, "w");
  if (f) fclose(f);
  waitpid(c, &cst, 0);
  CHECK_MSG(WIFEXITED(wst) && WEXITSTATUS(wst) == 0, "overwriter exit %d", wst);
  CHECK_MSG(WIFEXITED(cst) && WEXITSTATUS(cst) == 0, "compactor exit %d", cst);
  /* every COMPACT snapshot reads as the one before it */
  long long l = latest_id(t);
  json_t *prev = NULL;
  int compacts = 0;
  pm_snapshot_manager sm = pm_table_snapshots(t->t);
  for (long long id = 1; id <= l; id++) {
    json_t *rows = ec_ours(t, id, NULL);
    pm_snapshot *s = NULL;
    pm_error e = {0};
    CHECK_OK(pm_snapshot_read(&sm, id, &s, &e), &e);
    char msg[2048];
    if (s && !strcmp(s->commit_kind, "COMPACT")) {
      compacts++;
      CHECK_MSG(rows && prev && ot_rows_match(prev, rows, msg, sizeof msg), "COMPACT snapshot %lld: %s", id,
                rows ? msg : "unreadable");
    }
    pm_snapshot_free(s);
    json_decref(prev);
    prev = rows;
  }
  /* the writer's last state: the last overwrite of a and its two appends, every append to b */
  json_t *want = json_array();
  int k = OW_ROUNDS;
  const int a_batches[3][2] = {{k * 10, 2}, {k * 10 + 1, 1}, {k * 10 + 2, 1}};
  for (int i = 0; i < 3 + OW_ROUNDS; i++) {
    char *r = i < 3 ? batch_rows(a_batches[i][0], "a", a_batches[i][1]) : batch_rows((i - 2) * 10 + 5, "b", 1);
    json_t *rows = ot_parse_lines(r, NULL);
    json_array_extend(want, rows);
    json_decref(rows);
    free(r);
  }
  char msg[2048];
  CHECK_MSG(prev && ot_rows_match(want, prev, msg, sizeof msg), "latest after the race: %s", prev ? msg : "unreadable");
  printf("compaction race: %lld snapshots, %d COMPACT\n", l, compacts);
  char dir[400];
  snprintf(dir, sizeof dir, "%s/db.db/cow", wh);
  CHECK(ot_read_equals(dir, NULL, want, "compaction race"));
  CHECK(ot_check_ok(dir, 0, "compaction race"));
  json_decref(prev);
  json_decref(want);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

int main(void) {
  snprintf(tmp_root, sizeof tmp_root, "/tmp/pm_maint_race_XXXXXX");
  CHECK(mkdtemp(tmp_root) != NULL);
  if (!ot_available()) {
    fprintf(stderr, "paimon-table not available: skipped\n");
    TEST_MAIN_END();
  }
  snprintf(wh, sizeof wh, "%s/wh", tmp_root);
  CHECK(mkdir(wh, 0755) == 0);
  RUN_TEST(test_expire_race);
  RUN_TEST(test_orphan_race);
  RUN_TEST(test_compact_overwrite_race);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (!getenv("PM_KEEP_TMP") && !pm_test_failures) CHECK(system(cmd) == 0);
  TEST_MAIN_END();
}
