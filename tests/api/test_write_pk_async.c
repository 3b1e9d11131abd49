/*
 * Background compaction in the primary-key writer (issue 12 §2, Java's
 * MergeTreeWriter + MergeTreeCompactManager): compactions run on the
 * executor while writes go on.
 *
 * One workload (random upserts / deletes over 3000 keys, 2 buckets,
 * num-sorted-run.compaction-trigger 2, an 8 kb write buffer: many flushes and
 * compactions during the writes; one stream writer, 6 commits, then a batch
 * writer with 2 more) is written into three tables:
 *   inline:  threads = 1 (every compaction runs in the writer's thread when
 *            picked: the synchronous writer);
 *   ordered: the executor with every collection waiting
 *            (pm_kv_write_test_wait_compactions): the compactions run in the
 *            background in the inline order;
 *   async:   the executor as the writer uses it.
 * Checks:
 *   - every snapshot of `ordered` equals `inline`'s: same kind, and the same
 *     live files (partition, bucket, level, rows, size, sequence and key
 *     ranges, delete rows, source) -- background results are the synchronous
 *     ones;
 *   - after every commit each table reads as the model (tests/support/pk_model.h);
 *     at the end `paimon-table check` passes and `paimon-table read` = the
 *     model for `async`;
 *   - `async` and `ordered` ran compactions on pool workers, `inline` none;
 *   - `async`'s stream commits carried compaction results of earlier
 *     flushes (a prepare collects the finished ones);
 *   - a background compaction failing (every open of a data file fails
 *     after the writer's restore) fails the next write or prepare with the
 *     error naming the file, every later call returns it, the writer's free
 *     leaves no file behind (the bucket directories as before), the table
 *     reads as committed, and the same rows written again commit;
 *   - a stream writer whose compaction is dropped (a truncate committed
 *     first) refreshes its levels (the builder's commit tells it): its next
 *     full compaction commits (COMPACT, every file at the max level), the
 *     model, check and read agree.
 */
#include <dirent.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/api_internal.h"
#include "harness.h"
#include "io/fs_fault.h"
#include "meta/snapshot.h"
#include "paimon/write.h"
#include "table/kv_write.h"
#include "table/scan.h"
#include "table/table.h"
#include "util/executor.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/oracle_table.h"
#include "support/oracle_write.h"
#include "support/pk_model.h"

static char wh[256];

#define N_KEYS 3000
#define ROWS 600 /* per batch */
#define COLS "k INT NOT NULL, v STRING, n BIGINT"

static const pkm_column MODEL_COLS[] = {
    {"k", PKM_INT, PKM_AGG_DEFAULT, 0, -1}, {"v", PKM_STRING, PKM_AGG_DEFAULT, 0, -1}, {"n", PKM_INT, PKM_AGG_DEFAULT, 0, -1}};

static uint64_t rng;
static uint64_t rnd(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static const char *table_dir(const char *name) {
  static char d[512];
  snprintf(d, sizeof d, "%s/d.db/%s", wh, name);
  return d;
}

static paimon_table *make_table(paimon_catalog *cat, const char *name) {
  const char *opts[] = {"primary-key=k", "bucket=2", "num-sorted-run.compaction-trigger=2", "write-buffer-size=8 kb",
                        "file.format=parquet"};
  paimon_error err = {0};
  CHECK_OK(ow_create_table(cat, "d", name, COLS, NULL, opts, sizeof opts / sizeof opts[0], 0, &err), &err);
  char ident[128];
  snprintf(ident, sizeof ident, "d.%s", name);
  paimon_table *t = NULL;
  CHECK_OK(paimon_catalog_get_table(cat, ident, &t, &err), &err);
  return t;
}

/* A batch of the workload: JSON lines and their kinds (upserts, some deletes) into the model. */
typedef struct batch {
  char *jsonl[2]; /* [0] upserts, [1] deletes */
} batch;

static void make_batch(batch *b, pkm_model *m) {
  size_t cap[2] = {ROWS * 64, ROWS * 64}, len[2] = {0, 0};
  int kinds[ROWS], keys[ROWS];
  int64_t ns[ROWS];
  for (int i = 0; i < ROWS; i++) {
    keys[i] = (int)(rnd() % N_KEYS);
    kinds[i] = rnd() % 8 == 0 ? 1 : 0;
    ns[i] = (int64_t)(rnd() % 100000);
  }
  for (int p = 0; p < 2; p++) {
    b->jsonl[p] = malloc(cap[p]);
    b->jsonl[p][0] = 0;
  }
  /* upserts first, then deletes: the model sees them in that order */
  for (int p = 0; p < 2; p++)
    for (int i = 0; i < ROWS; i++) {
      if (kinds[i] != p) continue;
      char v[32];
      snprintf(v, sizeof v, "v%lld", (long long)(ns[i] % 977));
      len[p] += (size_t)snprintf(b->jsonl[p] + len[p], cap[p] - len[p], "{\"k\":%d,\"v\":\"%s\",\"n\":%lld}\n", keys[i],
                                 v, (long long)ns[i]);
      pkm_value row[3] = {pkm_int(keys[i]), pkm_str(v), pkm_int(ns[i])};
      CHECK(pkm_add(m, p ? PKM_DELETE : PKM_INSERT, row) == 0);
    }
  pkm_flush(m);
}

static void free_batch(batch *b) {
  free(b->jsonl[0]);
  free(b->jsonl[1]);
}

static paimon_status write_batch(paimon_table *t, paimon_table_write *w, const batch *b, paimon_error *err) {
  for (int p = 0; p < 2; p++) {
    if (!b->jsonl[p][0]) continue;
    struct ArrowSchema s = {0};
    struct ArrowArray a = {0};
    paimon_status st = ow_batch(t, b->jsonl[p], &s, &a, err);
    if (!st) st = paimon_table_write_arrow_kind(w, &s, &a, p ? PAIMON_ROW_KIND_DELETE : PAIMON_ROW_KIND_INSERT, err);
    if (a.release) a.release(&a);
    if (s.release) s.release(&s);
    if (st) return st;
  }
  return PAIMON_OK;
}

static void check_model(paimon_table *t, const pkm_model *m, const char *what) {
  paimon_error err = {0};
  json_t *ours = ow_read_ours(t, &err);
  CHECK_MSG(ours != NULL, "%s: read: %s", what, err.message);
  json_t *want = pkm_rows(m);
  char msg[2048];
  CHECK_MSG(ours && ot_rows_match(want, ours, msg, sizeof msg), "%s: our read != model: %s", what, msg);
  json_decref(want);
  json_decref(ours);
}

/* One snapshot's signature: its kind and its live files sorted (names and times left out). */
static char *snapshot_sig(pm_table *t, int64_t id) {
  pm_error err;
  pm_snapshot_manager sm = pm_table_snapshots(t);
  pm_snapshot *s = NULL;
  CHECK_OK(pm_snapshot_read(&sm, id, &s, &err), &err);
  if (!s) return strdup("?");
  pm_manifest_entries e;
  pm_manifest_entries_init(&e);
  CHECK_OK(pm_scan_live_files(t, s, NULL, &e, &err), &err);
  char **lines = calloc(e.n + 1, sizeof *lines);
  size_t total = 64;
  for (size_t i = 0; i < e.n; i++) {
    const pm_data_file_meta *f = &e.items[i].file;
    char hex[2][200];
    const pm_bytes *keys[2] = {&f->min_key, &f->max_key};
    for (int k = 0; k < 2; k++) {
      size_t n = keys[k]->len < 90 ? keys[k]->len : 90;
      for (size_t j = 0; j < n; j++) snprintf(hex[k] + 2 * j, 3, "%02x", keys[k]->data[j]);
      hex[k][2 * n] = 0;
    }
    char buf[800];
    snprintf(buf, sizeof buf, "b%d L%d rows=%lld size=%lld seq=%lld..%lld del=%lld src=%d keys=%s..%s",
             (int)e.items[i].bucket, (int)f->level, (long long)f->row_count, (long long)f->file_size,
             (long long)f->min_sequence_number, (long long)f->max_sequence_number, (long long)f->delete_row_count,
             (int)f->file_source, hex[0], hex[1]);
    lines[i] = strdup(buf);
    total += strlen(buf) + 1;
  }
  qsort(lines, e.n, sizeof *lines, ot_cmp_str);
  char *out = malloc(total);
  size_t len = (size_t)snprintf(out, total, "%s:", s->commit_kind ? s->commit_kind : "?");
  for (size_t i = 0; i < e.n; i++) {
    len += (size_t)snprintf(out + len, total - len, "\n%s", lines[i]);
    free(lines[i]);
  }
  free(lines);
  pm_manifest_entries_clear(&e);
  pm_snapshot_free(s);
  return out;
}

static int64_t latest_id(pm_table *t) {
  pm_error err;
  pm_snapshot_manager sm = pm_table_snapshots(t);
  int64_t id = 0;
  CHECK_OK(pm_snapshot_latest_id(&sm, &id, &err), &err);
  return id;
}

static pm_table *open_dir(const char *dir) {
  pm_error err;
  pm_table *t = NULL;
  CHECK_OK(pm_table_open_path(dir, NULL, NULL, NULL, NULL, NULL, &t, &err), &err);
  return t;
}

typedef struct variant {
  const char *name;
  const char *threads; /* the dynamic option "threads" */
  int ordered;
  paimon_table *t;
  pkm_model *m;
  uint64_t pool_tasks;      /* executor tasks run during its writes */
  int compactions_in_stream; /* stream commits whose messages held compaction results */
  int64_t tasks;             /* compaction units run (writer metrics) */
} variant;

#define N_STREAM 6
#define BATCHES_PER_COMMIT 3

static void run_workload(variant *v, uint64_t seed) {
  rng = seed;
  paimon_error err = {0};
  paimon_option dyn[] = {{"threads", v->threads}};
  pm_kv_write_test_wait_compactions(v->ordered);
  uint64_t tasks0 = pm_executor_tasks_run();
  /* the stream writer: commits 1..N_STREAM */
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  CHECK_OK(paimon_write_builder_new(v->t, 1, dyn, 1, &wb, &err), &err);
  CHECK_OK(paimon_write_builder_new_write(wb, &w, &err), &err);
  for (int c = 1; c <= N_STREAM; c++) {
    for (int k = 0; k < BATCHES_PER_COMMIT; k++) {
      batch b;
      make_batch(&b, v->m);
      CHECK_OK(write_batch(v->t, w, &b, &err), &err);
      free_batch(&b);
    }
    paimon_commit_messages *msgs = NULL;
    CHECK_OK(paimon_table_write_prepare_commit(w, c, &msgs, &err), &err);
    paimon_table_commit *cm = NULL;
    CHECK_OK(paimon_write_builder_new_commit(wb, &cm, &err), &err);
    int64_t before = latest_id(((struct paimon_table *)v->t)->t);
    CHECK_OK(paimon_table_commit_commit(cm, msgs, c, NULL, &err), &err);
    int64_t after = latest_id(((struct paimon_table *)v->t)->t);
    v->compactions_in_stream += after - before == 2; /* APPEND + COMPACT */
    paimon_table_commit_free(cm);
    paimon_commit_messages_free(msgs);
    char what[64];
    snprintf(what, sizeof what, "%s: stream commit %d", v->name, c);
    check_model(v->t, v->m, what);
  }
  paimon_compact_metrics cmx;
  paimon_table_write_compact_metrics(w, &cmx);
  v->tasks += cmx.tasks;
  paimon_table_write_free(w);
  paimon_write_builder_free(wb);
  /* two batch commits of a fresh writer each (restored levels) */
  for (int c = 0; c < 2; c++) {
    CHECK_OK(paimon_write_builder_new(v->t, 0, dyn, 1, &wb, &err), &err);
    CHECK_OK(paimon_write_builder_new_write(wb, &w, &err), &err);
    for (int k = 0; k < BATCHES_PER_COMMIT; k++) {
      batch b;
      make_batch(&b, v->m);
      CHECK_OK(write_batch(v->t, w, &b, &err), &err);
      free_batch(&b);
    }
    paimon_commit_messages *msgs = NULL;
    CHECK_OK(paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &msgs, &err), &err);
    paimon_table_commit *cm = NULL;
    CHECK_OK(paimon_write_builder_new_commit(wb, &cm, &err), &err);
    CHECK_OK(paimon_table_commit_commit(cm, msgs, PAIMON_BATCH_COMMIT_IDENTIFIER, NULL, &err), &err);
    paimon_table_commit_free(cm);
    paimon_commit_messages_free(msgs);
    paimon_table_write_compact_metrics(w, &cmx);
    v->tasks += cmx.tasks;
    paimon_table_write_free(w);
    paimon_write_builder_free(wb);
    char what[64];
    snprintf(what, sizeof what, "%s: batch commit %d", v->name, c);
    check_model(v->t, v->m, what);
  }
  v->pool_tasks = pm_executor_tasks_run() - tasks0;
  pm_kv_write_test_wait_compactions(0);
}

static void test_background_equals_inline(void) {
  paimon_catalog *cat = NULL;
  paimon_error err = {0};
  paimon_option o[] = {{"warehouse", wh}};
  CHECK_OK(paimon_catalog_open(o, 1, &cat, &err), &err);
  pkm_config mc = {PKM_DEDUPLICATE, 3, MODEL_COLS, 1, 0, 0, 0, 0, NULL};
  variant vs[3] = {{"inline", "1", 0, NULL, NULL, 0, 0, 0},
                   {"ordered", "4", 1, NULL, NULL, 0, 0, 0},
                   {"async", "4", 0, NULL, NULL, 0, 0, 0}};
  for (int i = 0; i < 3; i++) {
    vs[i].t = make_table(cat, vs[i].name);
    vs[i].m = pkm_new(&mc);
    run_workload(&vs[i], 0x9e3779b97f4a7c15ULL);
    fprintf(stderr, "  %s: %lld compaction units, %llu pool tasks, %d stream commits with compaction\n", vs[i].name,
            (long long)vs[i].tasks, (unsigned long long)vs[i].pool_tasks, vs[i].compactions_in_stream);
  }
  CHECK(vs[0].tasks > 4);
  CHECK_EQ_INT(vs[0].pool_tasks, 0);
  CHECK(vs[1].pool_tasks > 0);
  CHECK(vs[2].pool_tasks > 0);
  CHECK_EQ_INT(vs[1].tasks, vs[0].tasks);
  CHECK(vs[2].compactions_in_stream > 0);
  /* ordered = inline, snapshot by snapshot */
  pm_table *a = open_dir(table_dir("inline")), *b = open_dir(table_dir("ordered"));
  int64_t na = latest_id(a), nb = latest_id(b);
  CHECK_EQ_INT(na, nb);
  for (int64_t id = 1; id <= na && id <= nb; id++) {
    char *sa = snapshot_sig(a, id), *sb = snapshot_sig(b, id);
    CHECK_MSG(!strcmp(sa, sb), "snapshot %lld: inline:\n%s\nordered:\n%s", (long long)id, sa, sb);
    free(sa);
    free(sb);
  }
  pm_table_free(a);
  pm_table_free(b);
  /* the independent oracle */
  for (int i = 2; i < 3; i++) {
    char what[64];
    snprintf(what, sizeof what, "%s: final", vs[i].name);
    ot_check_ok(table_dir(vs[i].name), 0, what);
    json_t *want = pkm_rows(vs[i].m);
    ot_read_equals(table_dir(vs[i].name), NULL, want, what);
    json_decref(want);
  }
  for (int i = 0; i < 3; i++) {
    pkm_free(vs[i].m);
    paimon_table_free(vs[i].t);
  }
  paimon_catalog_free(cat);
}

/* ------------------------------------------------------------ a failing background compaction */

static char *list_files(const char *dir) {
  size_t cap = 1 << 16, len = 0;
  char *out = calloc(cap, 1);
  const char *sub[] = {"bucket-0", "bucket-1"};
  for (int i = 0; i < 2; i++) {
    char d[700];
    snprintf(d, sizeof d, "%s/%s", dir, sub[i]);
    DIR *dd = opendir(d);
    if (!dd) continue;
    char *names[4096];
    size_t n = 0;
    for (struct dirent *e; (e = readdir(dd)) && n < 4096;)
      if (e->d_name[0] != '.') names[n++] = strdup(e->d_name);
    closedir(dd);
    qsort(names, n, sizeof *names, ot_cmp_str);
    for (size_t k = 0; k < n; k++) {
      if (len + strlen(names[k]) + 16 < cap) len += (size_t)snprintf(out + len, cap - len, "%s/%s\n", sub[i], names[k]);
      free(names[k]);
    }
  }
  return out;
}

static void test_background_failure(void) {
  pm_error perr;
  pm_error_clear(&perr);
  pm_fs *fs = NULL;
  CHECK_OK(pm_fault_fs_new(pm_fs_local(), &fs, &perr), &perr);
  pm_options po;
  pm_options_init(&po);
  pm_options_set(&po, "warehouse", wh, &perr);
  paimon_catalog *cat = calloc(1, sizeof *cat);
  CHECK_OK(pm_catalog_open_with_fs(fs, &po, &cat->c, &perr), &perr);
  pm_options_clear(&po);
  paimon_error err = {0};
  paimon_table *t = make_table(cat, "failing");
  pkm_config mc = {PKM_DEDUPLICATE, 3, MODEL_COLS, 1, 0, 0, 0, 0, NULL};
  pkm_model *m = pkm_new(&mc);
  rng = 42;
  /* committed state: a few batch commits (compacted) */
  for (int c = 0; c < 2; c++) {
    paimon_write_builder *wb = NULL;
    paimon_table_write *w = NULL;
    paimon_commit_messages *msgs = NULL;
    paimon_table_commit *cm = NULL;
    CHECK_OK(paimon_write_builder_new(t, 0, NULL, 0, &wb, &err), &err);
    CHECK_OK(paimon_write_builder_new_write(wb, &w, &err), &err);
    batch b;
    make_batch(&b, m);
    CHECK_OK(write_batch(t, w, &b, &err), &err);
    free_batch(&b);
    CHECK_OK(paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &msgs, &err), &err);
    CHECK_OK(paimon_write_builder_new_commit(wb, &cm, &err), &err);
    CHECK_OK(paimon_table_commit_commit(cm, msgs, PAIMON_BATCH_COMMIT_IDENTIFIER, NULL, &err), &err);
    paimon_table_commit_free(cm);
    paimon_commit_messages_free(msgs);
    paimon_table_write_free(w);
    paimon_write_builder_free(wb);
  }
  pkm_model *committed = pkm_clone(m);
  char *files0 = list_files(table_dir("failing"));
  int64_t snap0 = latest_id(((struct paimon_table *)t)->t);
  /* a writer whose compactions cannot open their inputs: every open after its restore fails */
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  CHECK_OK(paimon_write_builder_new(t, 0, NULL, 0, &wb, &err), &err);
  CHECK_OK(paimon_write_builder_new_write(wb, &w, &err), &err);
  uint64_t saved = rng;
  batch b;
  make_batch(&b, m);
  /* the first write restores the buckets (manifest reads) before anything is flushed */
  struct ArrowSchema s1 = {0};
  struct ArrowArray a1 = {0};
  CHECK_OK(ow_batch(t, "{\"k\":1,\"v\":\"x\",\"n\":1}\n", &s1, &a1, &err), &err);
  CHECK_OK(paimon_table_write_arrow(w, &s1, &a1, &err), &err);
  a1.release(&a1);
  s1.release(&s1);
  pm_fault_rule rule = {PM_FAULT_OP_OPEN, 1, 0, PM_FAULT_ERROR, 0};
  pm_fault_fs_arm(fs, &rule);
  paimon_status st = PAIMON_OK;
  for (int k = 0; k < 6 && !st; k++) st = write_batch(t, w, &b, &err);
  /* a full compaction is submitted (Java's compact: the writer goes on); it fails in the
   * background and the next write reports it */
  if (!st) st = paimon_table_write_compact(w, NULL, 0, -1, 1, &err);
  int writes_after = 0;
  for (; !st && writes_after < 400; writes_after++) {
    usleep(10000);
    CHECK_OK(ow_batch(t, "{\"k\":2,\"v\":\"y\",\"n\":2}\n", &s1, &a1, &err), &err);
    st = paimon_table_write_arrow(w, &s1, &a1, &err);
    a1.release(&a1);
    s1.release(&s1);
  }
  paimon_commit_messages *msgs = NULL;
  CHECK_MSG(st == PAIMON_ERR_IO, "a failing compaction: %s %s", paimon_status_name(st), err.message);
  fprintf(stderr, "  the failed compaction surfaced at write %d after compact: %s\n", writes_after, err.message);
  CHECK_MSG(strstr(err.message, "injected I/O error") && strstr(err.message, "data-") &&
                strstr(err.message, "compacting bucket"),
            "the error names the file and the compaction: %s", err.message);
  /* failed cleanly: later calls return the error */
  paimon_error e2 = {0};
  CHECK_EQ_INT(paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &msgs, &e2), PAIMON_ERR_IO);
  CHECK(!strcmp(e2.message, err.message));
  paimon_table_write_free(w);
  paimon_write_builder_free(wb);
  pm_fault_fs_disarm(fs);
  char *files1 = list_files(table_dir("failing"));
  CHECK_MSG(!strcmp(files0, files1), "the failed writer left files:\nbefore:\n%s\nafter:\n%s", files0, files1);
  CHECK_EQ_INT(latest_id(((struct paimon_table *)t)->t), snap0);
  check_model(t, committed, "after the failed compaction");
  /* the same rows again, nothing armed */
  CHECK_OK(paimon_write_builder_new(t, 0, NULL, 0, &wb, &err), &err);
  CHECK_OK(paimon_write_builder_new_write(wb, &w, &err), &err);
  pkm_value r1[3] = {pkm_int(1), pkm_str("x"), pkm_int(1)};
  CHECK(pkm_add(committed, PKM_INSERT, r1) == 0);
  pkm_flush(committed);
  rng = saved;
  batch b2;
  make_batch(&b2, committed); /* = b */
  free_batch(&b2);
  CHECK_OK(ow_batch(t, "{\"k\":1,\"v\":\"x\",\"n\":1}\n", &s1, &a1, &err), &err);
  CHECK_OK(paimon_table_write_arrow(w, &s1, &a1, &err), &err);
  a1.release(&a1);
  s1.release(&s1);
  for (int k = 0; k < 6; k++) CHECK_OK(write_batch(t, w, &b, &err), &err); /* b again and again: b once */
  pkm_free(m);
  CHECK_OK(paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &msgs, &err), &err);
  paimon_table_commit *cm = NULL;
  CHECK_OK(paimon_write_builder_new_commit(wb, &cm, &err), &err);
  CHECK_OK(paimon_table_commit_commit(cm, msgs, PAIMON_BATCH_COMMIT_IDENTIFIER, NULL, &err), &err);
  paimon_table_commit_free(cm);
  paimon_commit_messages_free(msgs);
  paimon_table_write_free(w);
  paimon_write_builder_free(wb);
  check_model(t, committed, "the retry");
  ot_check_ok(table_dir("failing"), 0, "the retry");
  free_batch(&b);
  free(files0);
  free(files1);
  pkm_free(committed);
  paimon_table_free(t);
  paimon_catalog_free(cat);
  pm_fs_unref(fs);
}

/* ------------------------------------------------------------ refresh after a dropped compaction */

static const char *latest_kind(pm_table *t, char *buf, size_t cap) {
  pm_error err;
  pm_snapshot_manager sm = pm_table_snapshots(t);
  pm_snapshot *sn = NULL;
  CHECK_OK(pm_snapshot_read_latest_checked(&sm, &sn, &err), &err);
  snprintf(buf, cap, "%s", sn && sn->commit_kind ? sn->commit_kind : "?");
  pm_snapshot_free(sn);
  return buf;
}

/* A stream writer's compaction is dropped (a truncate committed first); its commit object's
 * builder tells the writer, which re-reads its buckets (Java's writer restore): its next
 * compaction commits instead of conflicting again. */
static void test_refresh_after_dropped(void) {
  paimon_catalog *cat = NULL;
  paimon_error err = {0};
  paimon_option o[] = {{"warehouse", wh}};
  CHECK_OK(paimon_catalog_open(o, 1, &cat, &err), &err);
  paimon_table *t = make_table(cat, "refresh");
  pm_table *pt = ((struct paimon_table *)t)->t;
  pkm_config mc = {PKM_DEDUPLICATE, 3, MODEL_COLS, 1, 0, 0, 0, 0, NULL};
  pkm_model *m = pkm_new(&mc);
  rng = 7;
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  paimon_table_commit *c = NULL;
  CHECK_OK(paimon_write_builder_new(t, 1, NULL, 0, &wb, &err), &err);
  CHECK_OK(paimon_write_builder_new_write(wb, &w, &err), &err);
  CHECK_OK(paimon_write_builder_new_commit(wb, &c, &err), &err);
  for (int id = 1; id <= 4; id++) {
    if (id == 3) { /* the concurrent truncate */
      paimon_write_builder *tb = NULL;
      paimon_table_commit *tc = NULL;
      CHECK_OK(paimon_write_builder_new(t, 0, NULL, 0, &tb, &err), &err);
      CHECK_OK(paimon_write_builder_new_commit(tb, &tc, &err), &err);
      CHECK_OK(paimon_table_commit_truncate_table(tc, PAIMON_BATCH_COMMIT_IDENTIFIER, NULL, &err), &err);
      paimon_table_commit_free(tc);
      paimon_write_builder_free(tb);
      pkm_free(m);
      m = pkm_new(&mc);
    }
    batch b;
    make_batch(&b, m);
    CHECK_OK(write_batch(t, w, &b, &err), &err);
    free_batch(&b);
    CHECK_OK(paimon_table_write_compact(w, NULL, 0, -1, 1, &err), &err);
    paimon_commit_messages *msgs = NULL;
    CHECK_OK(paimon_table_write_prepare_commit(w, id, &msgs, &err), &err);
    CHECK_OK(paimon_table_commit_commit(c, msgs, id, NULL, &err), &err);
    paimon_commit_messages_free(msgs);
    char kind[32], what[64];
    latest_kind(pt, kind, sizeof kind);
    if (id == 3) {
      /* data published, compaction dropped (its inputs were truncated) */
      CHECK_EQ_INT(paimon_table_commit_compaction_dropped(c), PAIMON_ERR_CONFLICT);
      CHECK_MSG(!strcmp(kind, "APPEND"), "commit 3: %s", kind);
    } else {
      /* commit 4: the writer re-read its buckets, its full compaction commits */
      CHECK_EQ_INT(paimon_table_commit_compaction_dropped(c), PAIMON_OK);
      CHECK_MSG(!strcmp(kind, "COMPACT"), "commit %d: %s", id, kind);
    }
    snprintf(what, sizeof what, "refresh: commit %d", id);
    check_model(t, m, what);
  }
  /* after commit 4's full compaction: one sorted run at the max level */
  pm_error perr;
  pm_snapshot_manager sm = pm_table_snapshots(pt);
  pm_snapshot *sn = NULL;
  CHECK_OK(pm_snapshot_read_latest_checked(&sm, &sn, &perr), &perr);
  pm_manifest_entries e;
  pm_manifest_entries_init(&e);
  if (sn) CHECK_OK(pm_scan_live_files(pt, sn, NULL, &e, &perr), &perr);
  for (size_t i = 0; i < e.n; i++) CHECK_EQ_INT(e.items[i].file.level, 2); /* num-levels = trigger + 1 */
  pm_manifest_entries_clear(&e);
  pm_snapshot_free(sn);
  ot_check_ok(table_dir("refresh"), 0, "refresh");
  json_t *want = pkm_rows(m);
  ot_read_equals(table_dir("refresh"), NULL, want, "refresh");
  json_decref(want);
  paimon_table_commit_free(c);
  paimon_table_write_free(w);
  paimon_write_builder_free(wb);
  pkm_free(m);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* A truncate committed through the writer's own builder: the writer re-reads its
 * buckets at its next call, so its next full compaction commits (inputs = the new
 * rows only) instead of being dropped for the truncated files. */
static void test_refresh_after_own_truncate(void) {
  paimon_catalog *cat = NULL;
  paimon_error err = {0};
  paimon_option o[] = {{"warehouse", wh}};
  CHECK_OK(paimon_catalog_open(o, 1, &cat, &err), &err);
  paimon_table *t = make_table(cat, "owntrunc");
  pm_table *pt = ((struct paimon_table *)t)->t;
  pkm_config mc = {PKM_DEDUPLICATE, 3, MODEL_COLS, 1, 0, 0, 0, 0, NULL};
  pkm_model *m = pkm_new(&mc);
  rng = 11;
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  paimon_table_commit *c = NULL;
  CHECK_OK(paimon_write_builder_new(t, 1, NULL, 0, &wb, &err), &err);
  CHECK_OK(paimon_write_builder_new_write(wb, &w, &err), &err);
  CHECK_OK(paimon_write_builder_new_commit(wb, &c, &err), &err);
  for (int id = 1; id <= 4; id++) {
    if (id == 3) {
      CHECK_OK(paimon_table_commit_truncate_table(c, id, NULL, &err), &err);
      pkm_free(m);
      m = pkm_new(&mc);
      continue;
    }
    batch b;
    make_batch(&b, m);
    CHECK_OK(write_batch(t, w, &b, &err), &err);
    free_batch(&b);
    CHECK_OK(paimon_table_write_compact(w, NULL, 0, -1, 1, &err), &err);
    paimon_commit_messages *msgs = NULL;
    CHECK_OK(paimon_table_write_prepare_commit(w, id, &msgs, &err), &err);
    CHECK_OK(paimon_table_commit_commit(c, msgs, id, NULL, &err), &err);
    paimon_commit_messages_free(msgs);
    char kind[32], what[64];
    CHECK_EQ_INT(paimon_table_commit_compaction_dropped(c), PAIMON_OK);
    latest_kind(pt, kind, sizeof kind);
    CHECK_MSG(!strcmp(kind, "COMPACT"), "commit %d: %s", id, kind);
    snprintf(what, sizeof what, "own truncate: commit %d", id);
    check_model(t, m, what);
  }
  ot_check_ok(table_dir("owntrunc"), 0, "own truncate");
  paimon_table_commit_free(c);
  paimon_table_write_free(w);
  paimon_write_builder_free(wb);
  pkm_free(m);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

int main(void) {
  snprintf(wh, sizeof wh, "/tmp/pm_write_pk_async_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  RUN_TEST(test_background_equals_inline);
  RUN_TEST(test_background_failure);
  RUN_TEST(test_refresh_after_dropped);
  RUN_TEST(test_refresh_after_own_truncate);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && system(cmd)) return 1;
  TEST_MAIN_END();
}
