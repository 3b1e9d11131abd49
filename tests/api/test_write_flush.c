/*
 * Parquet row groups flushed early by the write memory bound (write-buffer-size:
 * each open file may buffer budget / open files, src/table/write.c bound_memory;
 * the forced flush gives the writer's buffers and the output's pending bytes back,
 * parquet_writer.c release_memory -> pm_out_drain):
 *   1. faults: an append table on the fault-injecting fs; a batch written in four
 *      Arrow writes into one data file (target-file-size 1 gb: no rolling) with
 *      write-buffer-size 64 kb, so the writes reach the file system during
 *      paimon_table_write_arrow, i.e. from the forced flushes (counted first with
 *      nothing armed). Each such write then fails in turn (an injected I/O error):
 *      the write call fails with a message naming the data file and the fault,
 *      nothing becomes visible (snapshots as before, no file left in the bucket,
 *      both readers return the committed rows, `paimon-table check` OK), and the
 *      batch written again with nothing armed commits;
 *   2. a write spread over 100 partitions with write-buffer-size 64 kb (many open
 *      files, small budget each, so their row groups are flushed early): one
 *      commit, `paimon-table check` OK, `paimon-table read` and our reader return
 *      exactly the rows written.
 */
#include <dirent.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/api_internal.h"
#include "harness.h"
#include "io/fs_fault.h"
#include "support/oracle_crash.h"
#include "support/oracle_table.h"
#include "support/oracle_write.h"

static char tmp_root[256];

/* JSON lines of rows first..first+n-1 (id, s[, p = partition of the row]) and their objects appended to model. */
static char *rows_json(int first, int n, int n_parts, json_t *model) {
  size_t cap = (size_t)n * 160 + 1, len = 0;
  char *buf = malloc(cap);
  buf[0] = 0;
  for (int i = first; i < first + n; i++) {
    char s[96], p[16];
    snprintf(s, sizeof s, "row %d of the flush test, padded so that the pages grow: %08d", i, i * 7919);
    snprintf(p, sizeof p, "p%03d", n_parts ? i % n_parts : 0);
    json_t *o = json_object();
    json_object_set_new(o, "id", json_integer(i));
    json_object_set_new(o, "s", json_string(s));
    if (n_parts) json_object_set_new(o, "p", json_string(p));
    char *line = json_dumps(o, JSON_COMPACT);
    len += (size_t)snprintf(buf + len, cap - len, "%s\n", line);
    free(line);
    if (model) json_array_append(model, o);
    json_decref(o);
  }
  return buf;
}

typedef struct wctx {
  paimon_catalog *cat;
  pm_fs *fs; /* the fault fs (NULL: none) */
  char dir[700];
} wctx;

/* Writes `parts` Arrow writes of n rows each (from first) with the options, then prepares and commits.
 * rule (may be NULL) armed from the first Arrow write to the end of prepare_commit; *during = the fs
 * writes seen during the Arrow writes, *files = the data files the messages hold. Returns the first
 * failing status (err set); *at_arrow = 1 when an Arrow write failed. */
static paimon_status write_batch(wctx *c, const pm_fault_rule *rule, int first, int n, int parts, int n_parts,
                                 const paimon_option *opts, size_t n_opts, unsigned long long *during,
                                 int64_t *files, int *at_arrow, paimon_error *err) {
  paimon_table *t = NULL;
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  paimon_commit_messages *m = NULL;
  paimon_table_commit *cm = NULL;
  *at_arrow = 0;
  if (c->fs) pm_fault_fs_disarm(c->fs);
  paimon_status st = paimon_catalog_get_table(c->cat, "db.t", &t, err);
  if (!st) st = paimon_write_builder_new(t, 0, opts, n_opts, &wb, err);
  if (!st) st = paimon_write_builder_new_write(wb, &w, err);
  if (!st && c->fs && rule) pm_fault_fs_arm(c->fs, rule);
  for (int k = 0; !st && k < parts; k++) {
    struct ArrowSchema s;
    struct ArrowArray a;
    char *json = rows_json(first + k * n, n, n_parts, NULL);
    st = ow_batch(t, json, &s, &a, err);
    free(json);
    if (!st) {
      st = paimon_table_write_arrow(w, &s, &a, err);
      if (st) *at_arrow = 1;
      a.release(&a);
      s.release(&s);
    }
  }
  if (during && c->fs) *during = pm_fault_fs_count(c->fs, PM_FAULT_OP_WRITE);
  if (!st) st = paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, err);
  if (c->fs) pm_fault_fs_disarm(c->fs);
  paimon_table_write_free(w); /* on failure: removes what it wrote and did not hand out */
  if (files) *files = m ? paimon_commit_messages_file_count(m) : 0;
  if (!st) st = paimon_write_builder_new_commit(wb, &cm, err);
  if (!st) st = paimon_table_commit_commit(cm, m, PAIMON_BATCH_COMMIT_IDENTIFIER, NULL, err);
  paimon_table_commit_free(cm);
  paimon_commit_messages_free(m);
  paimon_write_builder_free(wb);
  paimon_table_free(t);
  return st;
}

/* Files in dir (temporary ones too): anything left behind by a failed write shows. */
static int count_files(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  closedir(d);
  return n;
}

static size_t snapshot_count(const char *dir) {
  ot_snapshot *s = NULL;
  size_t gaps = 0, n = ot_snapshots(dir, &s, &gaps);
  free(s);
  return n;
}

static int rows_are(wctx *c, const json_t *model, int oracle, const char *what) {
  paimon_table *t = NULL;
  paimon_error err = {0};
  int ok = 1;
  CHECK_OK(paimon_catalog_get_table(c->cat, "db.t", &t, &err), &err);
  json_t *ours = t ? ow_read_ours(t, &err) : NULL;
  char msg[8192];
  if (!ours || !ot_rows_match(model, ours, msg, sizeof msg)) {
    fprintf(stderr, "%s: our reader: %s\n", what, ours ? msg : err.message);
    ok = 0;
  }
  json_decref(ours);
  paimon_table_free(t);
  if (oracle) ok &= ot_check_ok(c->dir, 0, what) && ot_read_equals(c->dir, NULL, model, what);
  return ok;
}

static void test_flush_faults(void) {
  wctx c;
  memset(&c, 0, sizeof c);
  char wh[512];
  snprintf(wh, sizeof wh, "%s/faults", tmp_root);
  snprintf(c.dir, sizeof c.dir, "%s/db.db/t", wh);
  CHECK(oc_mkdirs(wh) == 0);
  pm_error e;
  pm_error_clear(&e);
  CHECK_OK(pm_fault_fs_new(pm_fs_local(), &c.fs, &e), &e);
  pm_options o;
  pm_options_init(&o);
  pm_options_set(&o, "warehouse", wh, &e);
  c.cat = calloc(1, sizeof *c.cat);
  CHECK_OK(pm_catalog_open_with_fs(c.fs, &o, &c.cat->c, &e), &e);
  pm_options_clear(&o);
  paimon_error err = {0};
  const char *topts[] = {"bucket=-1", "file.format=parquet"};
  CHECK_OK(ow_create_table(c.cat, "db", "t", "id INT NOT NULL, s STRING", NULL, topts, 2, 0, &err), &err);
  json_t *model = json_array();
  const paimon_option wopts[] = {{"write-buffer-size", "64 kb"}, {"target-file-size", "1 gb"}};
  enum { PARTS = 4, ROWS = 400 };
  int next = 0, at_arrow = 0;
  /* counting run: the fs writes during the Arrow writes come from forced flushes (one file, no rolling) */
  unsigned long long during = 0;
  int64_t files = 0;
  pm_fault_rule never = {PM_FAULT_OP_OPEN, UINT64_MAX, 1, PM_FAULT_ERROR, 0};
  free(rows_json(next, PARTS * ROWS, 0, model));
  CHECK_OK(write_batch(&c, &never, next, ROWS, PARTS, 0, wopts, 2, &during, &files, &at_arrow, &err), &err);
  next += PARTS * ROWS;
  fprintf(stderr, "  %d rows in %d Arrow writes: %lld data file(s), %llu fs writes during the Arrow writes\n",
          PARTS * ROWS, PARTS, (long long)files, during);
  CHECK_EQ_INT(files, 1);
  CHECK(during >= 2);
  CHECK(rows_are(&c, model, 1, "after the counting write"));
  char bucket[800];
  snprintf(bucket, sizeof bucket, "%s/bucket-0", c.dir);
  size_t base_snaps = snapshot_count(c.dir);
  int cases = 0;
  for (unsigned long long n = 1; n <= during && pm_test_failures <= 20; n++, cases++) {
    int data_files = count_files(bucket);
    pm_fault_rule r = {PM_FAULT_OP_WRITE, n, 1, PM_FAULT_ERROR, 0};
    char what[64];
    snprintf(what, sizeof what, "write #%llu fails", n);
    paimon_error fe = {0};
    paimon_status st = write_batch(&c, &r, next, ROWS, PARTS, 0, wopts, 2, NULL, NULL, &at_arrow, &fe);
    CHECK_MSG(st == PAIMON_ERR_IO && at_arrow, "%s: status %s (at an Arrow write: %d): %s", what,
              paimon_status_name(st), at_arrow, fe.message);
    CHECK_MSG(strstr(fe.message, "injected") && strstr(fe.message, "/bucket-0/data-") &&
                  strstr(fe.message, ".parquet"),
              "%s: %s", what, fe.message);
    CHECK_EQ_INT(snapshot_count(c.dir), base_snaps);
    CHECK_EQ_INT(count_files(bucket), data_files);
    CHECK(rows_are(&c, model, n == 1, what)); /* the oracle again after the last case */
    /* the same rows again, nothing armed */
    free(rows_json(next, PARTS * ROWS, 0, model));
    CHECK_OK(write_batch(&c, NULL, next, ROWS, PARTS, 0, wopts, 2, NULL, NULL, &at_arrow, &err), &err);
    next += PARTS * ROWS;
    base_snaps++;
    if (during > 6 && n == 3) n = during - 2; /* the first and the last few */
  }
  CHECK(cases >= 2);
  CHECK(rows_are(&c, model, 1, "after the flush faults"));
  json_decref(model);
  paimon_catalog_free(c.cat);
  pm_fs_unref(c.fs);
}

static void test_many_partitions(void) {
  wctx c;
  memset(&c, 0, sizeof c);
  char wh[512];
  snprintf(wh, sizeof wh, "%s/parts", tmp_root);
  snprintf(c.dir, sizeof c.dir, "%s/db.db/t", wh);
  CHECK(oc_mkdirs(wh) == 0);
  paimon_option wo = {"warehouse", wh};
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_open(&wo, 1, &c.cat, &err), &err);
  if (!c.cat) return;
  const char *topts[] = {"bucket=-1", "file.format=parquet"};
  CHECK_OK(ow_create_table(c.cat, "db", "t", "id INT NOT NULL, s STRING, p STRING", "p", topts, 2, 0, &err), &err);
  json_t *model = json_array();
  enum { PARTS = 5, ROWS = 600, NP = 100 };
  const paimon_option wopts[] = {{"write-buffer-size", "64 kb"}};
  free(rows_json(0, PARTS * ROWS, NP, model));
  int64_t files = 0;
  int at_arrow = 0;
  CHECK_OK(write_batch(&c, NULL, 0, ROWS, PARTS, NP, wopts, 1, NULL, &files, &at_arrow, &err), &err);
  fprintf(stderr, "  %d rows over %d partitions: %lld data files\n", PARTS * ROWS, NP, (long long)files);
  CHECK(files >= NP);
  CHECK_EQ_INT(snapshot_count(c.dir), 1);
  CHECK(rows_are(&c, model, 1, "100 partitions"));
  json_decref(model);
  paimon_catalog_free(c.cat);
}

int main(void) {
  if (!ot_available()) TEST_MAIN_END();
  snprintf(tmp_root, sizeof tmp_root, "/tmp/pm_test_write_flush_XXXXXX");
  if (!mkdtemp(tmp_root)) return 1;
  RUN_TEST(test_flush_faults);
  RUN_TEST(test_many_partitions);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (!getenv("PM_KEEP") && !pm_test_failures && system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
  TEST_MAIN_END();
}
