/*
 * Orphan file cleanup (paimon/cleanup.h, Java's remove_orphan_files) stopped at each fs
 * operation in turn (fault fs, _exit in a forked child; support/compact_crash.h) and failed
 * there with an injected I/O error (issue 13 §5), on copies of a table written by us: a
 * partitioned append table with a compaction (old snapshots keep the compacted files), a tag
 * on the first snapshot, and planted orphans (a data file in a bucket directory, a manifest, an
 * index file, a temporary file in snapshot/); every file made three days old. After each stop or
 * error: the latest snapshot and the tag read exactly as before (ours every time;
 * paimon-table read at the first stop), paimon-table check --after-crash passes (every third
 * stop), the only files gone are planted orphans; rerunning the cleanup completes it: no planted
 * file left, no referenced file touched (check after the last rerun). make test: 8 stops and 8
 * errors spread over the operation kinds; PAIMON_LONG_TESTS=1: every one up to 500, each judged
 * by the oracle.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api/api_internal.h"
#include "harness.h"
#include "io/fs_fault.h"
#include "paimon/cleanup.h"
#include "paimon/compact.h"
#include "paimon/tag.h"
#include "support/oracle_write.h"
#include "table/catalog.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/compact_crash.h"
#include "support/compact_table.h"

static char root[256];
static int long_mode;
static json_t *rows_first, *rows_all; /* the model: snapshot 1 (tag t1) and the latest */
static int64_t latest;

static const char *const planted[] = {
    "p=a/bucket-0/data-00000000-0000-0000-0000-00000000orph-0.parquet",
    "manifest/manifest-00000000-0000-0000-0000-00000000orph-0",
    "index/index-00000000-0000-0000-0000-00000000orph-0",
    "snapshot/.snapshot-9.00000000-0000-0000-0000-00000000orph.tmp",
};
#define N_PLANTED (sizeof planted / sizeof planted[0])

static int exists(const char *dir, const char *rel) {
  char p[900];
  snprintf(p, sizeof p, "%s/%s", dir, rel);
  struct stat st;
  return stat(p, &st) == 0;
}

static void make_template(void) {
  char wh[512], dir[600], cmd[1400];
  snprintf(wh, sizeof wh, "%s/tpl", root);
  snprintf(dir, sizeof dir, "%s/d.db/t", wh);
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", wh);
  CHECK(system(cmd) == 0);
  paimon_catalog *cat = cc_open_plain(wh);
  paimon_table *t = ct_append_table(cat, "t", "p", NULL, 0);
  rows_all = json_array();
  for (int i = 0; i < 6; i++) {
    ct_append(t, i * 10, i * 10 + 10, "a", rows_all);
    if (!i) rows_first = json_deep_copy(rows_all);
  }
  for (int i = 0; i < 3; i++) ct_append(t, 500 + i * 10, 500 + i * 10 + 10, "b", rows_all);
  paimon_error err = {0};
  paimon_compact_result r;
  paimon_compact_options o;
  paimon_compact_options_init(&o);
  o.full = 1;
  CHECK_OK(paimon_table_compact(t, &o, &r, &err), &err);
  CHECK(r.metrics.tasks >= 1);
  CHECK_OK(paimon_table_create_tag(t, "t1", 1, NULL, 0, &err), &err);
  latest = ct_files_in(dir, NULL, -1).latest_id;
  paimon_table_free(t);
  paimon_catalog_free(cat);
  /* the planted orphans: copies of a live data file and of a manifest, junk index and temp files */
  snprintf(cmd, sizeof cmd,
           "cd '%s' && cp \"$(ls p=a/bucket-0/data-*.parquet | head -1)\" '%s' && "
           "cp \"$(ls manifest/manifest-* | grep -v list | head -1)\" '%s' && mkdir -p index && "
           "echo junk > '%s' && echo '{}' > '%s' && find . -type f -exec touch -d '3 days ago' {} +",
           dir, planted[0], planted[1], planted[2], planted[3]);
  CHECK(system(cmd) == 0);
  for (size_t i = 0; i < N_PLANTED; i++) CHECK_MSG(exists(dir, planted[i]), "planted %s", planted[i]);
}

static void copy_template(const char *tag, char *wh, size_t cap_wh, char *dir, size_t cap_dir) {
  snprintf(wh, cap_wh, "%s/%s", root, tag);
  snprintf(dir, cap_dir, "%s/d.db/t", wh);
  char cmd[1400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -a '%s/tpl' '%s'", wh, root, wh);
  CHECK(system(cmd) == 0);
}

static int run_clean(paimon_catalog *cat, void *ctx, paimon_error *err) {
  paimon_orphan_result *r = ctx;
  memset(r, 0, sizeof *r);
  paimon_table *t = NULL;
  int rc = paimon_catalog_get_table(cat, "d.t", &t, err);
  if (!rc) rc = paimon_table_remove_orphan_files(t, 0, 0, NULL, NULL, NULL, r, err);
  paimon_table_free(t);
  return rc;
}

/* The files of a directory tree (relative names, sorted) as one string. */
static char *tree(const char *dir) {
  char cmd[800];
  snprintf(cmd, sizeof cmd, "cd '%s' && find . -type f | sort", dir);
  FILE *f = popen(cmd, "r");
  CHECK(f != NULL);
  char *buf = NULL;
  size_t len = 0, cap = 0;
  char line[1024];
  while (f && fgets(line, sizeof line, f)) {
    size_t n = strlen(line);
    if (len + n + 1 > cap) {
      cap = 2 * (len + n + 1);
      buf = realloc(buf, cap);
    }
    memcpy(buf + len, line, n + 1);
    len += n;
  }
  if (f) pclose(f);
  return buf ? buf : strdup("");
}

/* Every snapshot / the tag reads as before; check passes; only planted files are gone. */
/* oracle: 0 ours only, 1 + paimon-table check --after-crash, 2 + paimon-table read of the latest
 * snapshot and of the tag's */
static void check_state(const char *wh, const char *dir, const char *before, int oracle, const char *what) {
  paimon_catalog *cat = cc_open_plain(wh);
  paimon_table *t = NULL;
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_get_table(cat, "d.t", &t, &err), &err);
  if (t) {
    ct_check_rows(t, dir, rows_all, 0, what);
    paimon_option o1[] = {{"scan.tag-name", "t1"}};
    json_t *tagged = ow_read_ours_opts(t, o1, 1, &err);
    char msg[4096];
    CHECK_MSG(tagged && ot_rows_match(rows_first, tagged, msg, sizeof msg), "%s: tag t1: %s", what,
              tagged ? msg : err.message);
    json_decref(tagged);
  }
  if (oracle > 1) {
    CHECK_MSG(ot_read_equals(dir, NULL, rows_all, what), "%s", what);
    CHECK_MSG(ot_read_equals(dir, "--snapshot 1", rows_first, what), "%s: tag t1's snapshot", what);
  }
  if (oracle) CHECK_MSG(ot_check_ok(dir, OT_AFTER_CRASH, what), "%s", what);
  CHECK_EQ_INT(ct_files_in(dir, NULL, -1).latest_id, latest);
  /* every file now present was there before, every file gone was planted */
  char *now = tree(dir);
  for (char *line = strtok(now, "\n"); line; line = strtok(NULL, "\n")) CHECK_MSG(strstr(before, line), "%s: new file %s", what, line);
  free(now);
  char *copy = strdup(before);
  for (char *line = strtok(copy, "\n"); line; line = strtok(NULL, "\n")) {
    if (exists(dir, line)) continue;
    int was_planted = 0;
    for (size_t i = 0; i < N_PLANTED; i++) was_planted |= !strcmp(line + 2, planted[i]);
    CHECK_MSG(was_planted, "%s: %s deleted", what, line);
  }
  free(copy);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* A rerun completes: the planted files are gone, the rest as before. */
static void rerun(const char *wh, const char *dir, const char *before, int oracle, const char *what) {
  paimon_catalog *cat = cc_open_plain(wh);
  paimon_orphan_result r;
  paimon_error err = {0};
  CHECK_OK(run_clean(cat, &r, &err), &err);
  paimon_catalog_free(cat);
  for (size_t i = 0; i < N_PLANTED; i++) CHECK_MSG(!exists(dir, planted[i]), "%s: rerun left %s", what, planted[i]);
  check_state(wh, dir, before, oracle, what);
}

static void test_stops(int crash) {
  char wh[512], dir[600];
  copy_template("count", wh, sizeof wh, dir, sizeof dir);
  char *before = tree(dir);
  uint64_t counts[PM_FAULT_OP_COUNT];
  paimon_orphan_result r;
  paimon_error err = {0};
  CHECK_OK(cc_count_ops(wh, run_clean, &r, counts, &err), &err);
  CHECK_MSG(r.files == N_PLANTED, "an unarmed run deleted %llu files", (unsigned long long)r.files);
  cc_stop *st = NULL;
  size_t n = cc_stops_of(counts, long_mode ? 500 : 8, &st);
  int hit = 0;
  for (size_t i = 0; i < n; i++) {
    char what[160];
    copy_template(crash ? "crash" : "fault", wh, sizeof wh, dir, sizeof dir);
    snprintf(what, sizeof what, "%s at %s #%llu", crash ? "stop" : "I/O error", pm_fault_op_name(st[i].op),
             (unsigned long long)st[i].nth);
    if (crash) {
      int code = cc_crash_run(wh, st[i], run_clean, &r);
      CHECK_MSG(code == 42 || code == 0, "%s: child exit %d", what, code);
      hit += code == 42;
    } else {
      int rc = cc_fault_run(wh, st[i], run_clean, &r, &err);
      if (rc) {
        hit++;
        CHECK_MSG(rc == PAIMON_ERR_IO && strstr(err.message, "injected"), "%s: status %s: %s", what,
                  paimon_status_name((paimon_status)rc), err.message);
      }
    }
    check_state(wh, dir, before, long_mode ? 2 : i == 0 ? 2 : i % 3 == 0, what);
    rerun(wh, dir, before, long_mode || i + 1 == n, what);
  }
  fprintf(stderr, "%zu %s, %d took effect\n", n, crash ? "crash stops" : "injected errors", hit);
  CHECK(hit > 0);
  free(st);
  free(before);
}

int main(void) {
  if (!ot_available()) TEST_MAIN_END(); /* the oracle judges every state */
  long_mode = getenv("PAIMON_LONG_TESTS") && atoi(getenv("PAIMON_LONG_TESTS")) > 0;
  snprintf(root, sizeof root, "/tmp/pm_orphan_crash_XXXXXX");
  if (!mkdtemp(root)) return 1;
  make_template();
  test_stops(1);
  test_stops(0);
  json_decref(rows_first);
  json_decref(rows_all);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  if (!pm_test_failures && !getenv("PM_KEEP") && system(cmd)) return 1;
  TEST_MAIN_END();
}
