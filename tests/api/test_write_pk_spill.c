/*
 * The spillable write buffer (issue 12 §1; write-buffer-spillable, Java's
 * SortBufferWriteBuffer over BinaryExternalSortBuffer): a tiny
 * write-buffer-size (16 kb) makes the writer spill sorted runs of its raw
 * records to local temp files many times per commit; with
 * local-sort.max-num-file-handles = 3 the flush first merges runs into
 * intermediate runs; at prepare all runs are merged with the merge engine,
 * all records of a key at once, so a commit is ONE flush of the model
 * (tests/support/pk_model.h: one level-0 record per key per commit):
 *   - deduplicate (spill-compression zstd), partial-update with
 *     remove-record-on-delete (lz4) and aggregation sum/max/listagg/last_value
 *     with deletes (none): our reader = the model after every commit;
 *     `paimon-table check` passes and `paimon-table read` = the model (for the
 *     engines the oracle reads) after the last;
 *   - spill files exist under $TMPDIR while writing (proof of spilling) and
 *     none is left after the commit, nor after a writer freed without commit
 *     (abort);
 *   - an injected I/O error while spilling (create / write of a run) or while
 *     merging (open / read of a run) fails the write with a message naming the spill
 *     and the fault; nothing is committed and no temp file is left.
 * PAIMON_LONG_TESTS=1 also: 10M rows with write-buffer-size = 16 mb in a
 * child process: it spills, commits, and its peak RSS (ru_maxrss) stays below
 * the buffer + 64 MB (printed).
 */
#include <dirent.h>
#include <glob.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api/api_internal.h"
#include "harness.h"
#include "io/fs_fault.h"
#include "paimon/write.h"
#include "table/write.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/oracle_table.h"
#include "support/oracle_write.h"
#include "support/pk_model.h"

static char wh[256], tmp[300];

#define N_KEYS 3000
#define COLS "pt INT NOT NULL, k INT NOT NULL, a STRING, b BIGINT, c BIGINT, g BIGINT"
#define NC 6

static const pkm_column MODEL_COLS[] = {
    {"pt", PKM_INT, PKM_AGG_DEFAULT, 0, -1}, {"k", PKM_INT, PKM_AGG_DEFAULT, 0, -1},
    {"a", PKM_STRING, PKM_AGG_DEFAULT, 0, -1}, {"b", PKM_INT, PKM_AGG_DEFAULT, 0, -1},
    {"c", PKM_INT, PKM_AGG_DEFAULT, 0, -1}, {"g", PKM_INT, PKM_AGG_DEFAULT, 0, -1},
};

typedef struct scenario {
  const char *name;
  const char *options[8];
  pkm_engine engine;
  int remove_on_delete;
  pkm_agg aggs[NC];
  int kinds_mask;
  int oracle_read;
} scenario;

static const scenario SCENARIOS[] = {
    {"dedup", {"merge-engine=deduplicate", "spill-compression=zstd"}, PKM_DEDUPLICATE, 0, {0}, 0xF, 1},
    {"partial",
     {"merge-engine=partial-update", "partial-update.remove-record-on-delete=true", "spill-compression=lz4"},
     PKM_PARTIAL_UPDATE, 1, {0}, (1 << 0) | (1 << 2) | (1 << 3), 1},
    {"aggregation",
     {"merge-engine=aggregation", "aggregation.remove-record-on-delete=true", "fields.b.aggregate-function=sum",
      "fields.c.aggregate-function=max", "fields.a.aggregate-function=listagg",
      "fields.g.aggregate-function=last_value", "spill-compression=none"},
     PKM_AGGREGATION, 1, {0, 0, PKM_AGG_LISTAGG, PKM_AGG_SUM, PKM_AGG_MAX, PKM_AGG_LAST_VALUE},
     (1 << 0) | (1 << 2) | (1 << 3), 0},
};
#define N_SCENARIOS (sizeof SCENARIOS / sizeof SCENARIOS[0])

static uint64_t rng_state;
static uint64_t rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}
static int rnd_below(int n) { return (int)(rnd() % (uint64_t)n); }

static const char *table_dir(const char *name) {
  static char d[512];
  snprintf(d, sizeof d, "%s/d.db/%s", wh, name);
  return d;
}

/* Files under tmp (recursively: the spill directory and its runs). */
static int tmp_entries(void) {
  char pat[400];
  snprintf(pat, sizeof pat, "%s/*", tmp);
  glob_t g;
  int n = 0;
  if (glob(pat, 0, NULL, &g) == 0) {
    n = (int)g.gl_pathc;
    globfree(&g);
  }
  snprintf(pat, sizeof pat, "%s/*/*", tmp);
  if (glob(pat, 0, NULL, &g) == 0) {
    n += (int)g.gl_pathc;
    globfree(&g);
  }
  return n;
}

typedef struct run {
  int kind;
  char *jsonl;
} run;

/* Writes the runs with one writer (spilling into tmp through fs, NULL = local) and, when commit,
 * commits them. *spills: runs spilled; *live: spill files under tmp before prepare. */
static int write_runs(paimon_table *t, const run *runs, size_t n, pm_fs *fs, int commit, int64_t *spills, int *live,
                      paimon_error *err) {
  paimon_write_builder *wb = NULL;
  paimon_commit_messages *m = NULL;
  paimon_table_commit *c = NULL;
  pm_table_write *w = NULL;
  pm_manifest_committable *mc = NULL;
  pm_error e;
  pm_error_clear(&e);
  int rc = paimon_write_builder_new(t, 0, NULL, 0, &wb, err);
  if (!rc) rc = pm_table_write_open(wb->t, NULL, &w, &e);
  if (!rc) rc = pm_table_write_spill_to(w, tmp, fs, &e);
  for (size_t i = 0; !rc && i < n; i++) {
    struct ArrowSchema s;
    struct ArrowArray a;
    rc = ow_batch(t, runs[i].jsonl, &s, &a, err);
    if (!rc) rc = pm_table_write_arrow_kind(w, &s, &a, runs[i].kind, &e);
    if (a.release) a.release(&a);
    if (s.release) s.release(&s);
  }
  if (live) *live = tmp_entries();
  if (!rc) rc = pm_table_write_prepare(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &mc, &e);
  if (spills && w) {
    uint64_t bytes;
    int64_t alive;
    pm_table_write_spill_stats(w, spills, &bytes, &alive);
  }
  if (!rc && commit) rc = pm_api_messages_wrap(mc, &m, &e);
  else pm_committable_free(mc);
  if (rc && e.code) {
    err->code = (paimon_status)rc;
    snprintf(err->message, sizeof err->message, "%s", e.message);
  }
  if (!rc && commit) rc = paimon_write_builder_new_commit(wb, &c, err);
  if (!rc && commit) rc = paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, NULL, err);
  paimon_table_commit_free(c);
  paimon_commit_messages_free(m);
  pm_table_write_free(w);
  paimon_write_builder_free(wb);
  return rc;
}

static void append(char **buf, size_t *len, size_t *cap, const char *s) {
  size_t n = strlen(s);
  if (*len + n + 1 > *cap) {
    *cap = (*cap + n + 1) * 2;
    *buf = realloc(*buf, *cap);
  }
  memcpy(*buf + *len, s, n + 1);
  *len += n;
}

static void random_row(int kind, char *line, size_t cap, pkm_value *v, char *sbuf) {
  int key = rnd_below(N_KEYS);
  int pt = key % 2, k = key / 2;
  int nulls = kind != PKM_DELETE ? 4 : 0;
  if (kind == PKM_DELETE && rnd_below(2)) nulls = 1;
  v[0] = pkm_int(pt);
  v[1] = pkm_int(k);
  v[2] = (nulls && rnd_below(nulls) == 0) ? pkm_null() : pkm_str(sbuf);
  snprintf(sbuf, 16, "s%d", rnd_below(1000));
  for (int c = 3; c < NC; c++) {
    if (nulls && rnd_below(nulls) == 0) v[c] = pkm_null();
    else v[c] = pkm_int(rnd_below(2000) - 500);
  }
  int n = snprintf(line, cap, "{\"pt\":%d,\"k\":%d", pt, k);
  if (!v[2].null) n += snprintf(line + n, cap - (size_t)n, ",\"a\":\"%s\"", v[2].s);
  const char *names[] = {"", "", "", "b", "c", "g"};
  for (int c = 3; c < NC; c++)
    if (!v[c].null) n += snprintf(line + n, cap - (size_t)n, ",\"%s\":%lld", names[c], (long long)v[c].i);
  snprintf(line + n, cap - (size_t)n, "}\n");
}

static int random_kind(const scenario *sc) {
  static const int weights[4] = {5, 1, 3, 2};
  for (;;) {
    int k = rnd_below(11), acc = 0;
    for (int i = 0; i < 4; i++) {
      acc += weights[i];
      if (k < acc) {
        if (sc->kinds_mask & (1 << i)) return i;
        break;
      }
    }
  }
}

static paimon_table *make_table(paimon_catalog **cat, const char *name, const char *const *extra) {
  paimon_error err = {0};
  paimon_option o[] = {{"warehouse", wh}};
  CHECK_OK(paimon_catalog_open(o, 1, cat, &err), &err);
  const char *opts[16] = {"primary-key=pt,k", "bucket=2", "write-buffer-size=16 kb",
                          "local-sort.max-num-file-handles=3"};
  size_t n_opts = 4;
  for (size_t i = 0; i < 8 && extra[i]; i++) opts[n_opts++] = extra[i];
  CHECK_OK(ow_create_table(*cat, "d", name, COLS, "pt", opts, n_opts, 0, &err), &err);
  char ident[128];
  snprintf(ident, sizeof ident, "d.%s", name);
  paimon_table *t = NULL;
  CHECK_OK(paimon_catalog_get_table(*cat, ident, &t, &err), &err);
  return t;
}

/* Random commits of a few thousand rows; each commit spills many runs. */
static void test_scenario(const scenario *sc) {
  paimon_catalog *cat = NULL;
  paimon_table *t = make_table(&cat, sc->name, sc->options);
  if (!t) return;
  rng_state = 0x9e3779b97f4a7c15ull ^ (uint64_t)strlen(sc->name);
  pkm_column cols[NC];
  memcpy(cols, MODEL_COLS, sizeof cols);
  for (int c = 0; c < NC; c++) cols[c].agg = sc->aggs[c];
  pkm_config cfg = {sc->engine, NC, cols, 2, 0, 0, sc->remove_on_delete, 0, NULL};
  pkm_model *m = pkm_new(&cfg);
  paimon_error err = {0};
  for (int c = 0; c < 3; c++) {
    run runs[64];
    size_t n_runs = 0;
    int rows = 3000 + rnd_below(2000);
    while (rows > 0 && n_runs < 64) {
      int kind = random_kind(sc), len = 1 + rnd_below(n_runs == 63 ? rows : 400);
      if (len > rows) len = rows;
      char *buf = NULL;
      size_t blen = 0, bcap = 0;
      append(&buf, &blen, &bcap, "");
      for (int r = 0; r < len; r++) {
        char line[256], sbuf[16];
        pkm_value v[NC];
        random_row(kind, line, sizeof line, v, sbuf);
        CHECK_MSG(pkm_add(m, kind, v) == 0, "model refuses a row: %s", pkm_last_error(m));
        append(&buf, &blen, &bcap, line);
      }
      runs[n_runs].kind = kind;
      runs[n_runs++].jsonl = buf;
      rows -= len;
    }
    int64_t spills = 0;
    int live = 0;
    int rc = write_runs(t, runs, n_runs, NULL, 1, &spills, &live, &err);
    for (size_t i = 0; i < n_runs; i++) free(runs[i].jsonl);
    CHECK_MSG(rc == 0, "%s commit %d: %s", sc->name, c, err.message);
    if (rc) break;
    CHECK_MSG(spills >= 8, "%s commit %d: only %lld spills", sc->name, c, (long long)spills);
    CHECK_MSG(live >= 2, "%s commit %d: %d spill entries under $TMPDIR while writing", sc->name, c, live);
    CHECK_MSG(tmp_entries() == 0, "%s commit %d: %d temp entries left after the commit", sc->name, c,
              tmp_entries());
    pkm_flush(m); /* the whole commit is one flush */
    json_t *want = pkm_rows(m);
    json_t *ours = ow_read_ours(t, &err);
    char msg[8192] = "";
    int ok = ours && ot_rows_match(want, ours, msg, sizeof msg);
    CHECK_MSG(ok, "%s commit %d: our reader != model (%zu rows): %s", sc->name, c, json_array_size(want), msg);
    if (c == 2 && ot_available()) {
      CHECK_MSG(ot_check_ok(table_dir(sc->name), 0, sc->name), "%s: paimon-table check", sc->name);
      if (sc->oracle_read)
        CHECK_MSG(ot_read_equals(table_dir(sc->name), NULL, want, sc->name), "%s: paimon-table read != model",
                  sc->name);
    }
    printf("%s commit %d: %lld spills, %d temp entries while writing, %zu rows = model\n", sc->name, c,
           (long long)spills, live, json_array_size(want));
    json_decref(want);
    json_decref(ours);
  }
  pkm_free(m);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

static char *rows_text(int from, int to, int version) {
  char *buf = NULL;
  size_t len = 0, cap = 0;
  append(&buf, &len, &cap, "");
  for (int k = from; k < to; k++) {
    char line[160];
    snprintf(line, sizeof line, "{\"pt\":%d,\"k\":%d,\"a\":\"v%d-some-padding-text\",\"b\":%d}\n", k % 2, k, version,
             k);
    append(&buf, &len, &cap, line);
  }
  return buf;
}

/* A writer freed without commit (abort), or after prepare without commit: no temp file left. */
static void test_abort(void) {
  paimon_catalog *cat = NULL;
  const char *extra[8] = {0};
  paimon_table *t = make_table(&cat, "abort", extra);
  if (!t) return;
  paimon_error err = {0};
  run r = {PKM_INSERT, rows_text(0, 3000, 1)};
  int live = 0;
  int64_t spills = 0;
  /* no commit: the messages are dropped, the writer freed */
  CHECK_OK(write_runs(t, &r, 1, NULL, 0, &spills, &live, &err), &err);
  CHECK_MSG(spills >= 4 && live >= 2, "abort: %lld spills, %d temp entries", (long long)spills, live);
  CHECK_MSG(tmp_entries() == 0, "abort: %d temp entries left", tmp_entries());
  /* a writer freed before prepare */
  paimon_write_builder *wb = NULL;
  pm_table_write *w = NULL;
  pm_error e;
  CHECK_OK(paimon_write_builder_new(t, 0, NULL, 0, &wb, &err), &err);
  CHECK(pm_table_write_open(wb->t, NULL, &w, &e) == 0);
  CHECK(pm_table_write_spill_to(w, tmp, NULL, &e) == 0);
  struct ArrowSchema s;
  struct ArrowArray a;
  CHECK_OK(ow_batch(t, r.jsonl, &s, &a, &err), &err);
  CHECK(pm_table_write_arrow_kind(w, &s, &a, PKM_INSERT, &e) == 0);
  a.release(&a);
  s.release(&s);
  int before = tmp_entries();
  pm_table_write_free(w);
  paimon_write_builder_free(wb);
  CHECK_MSG(before >= 2 && tmp_entries() == 0, "free before prepare: %d entries while writing, %d after", before,
            tmp_entries());
  json_t *rows = ow_read_ours(t, &err);
  CHECK_MSG(rows && json_array_size(rows) == 0, "abort: the table is not empty");
  json_decref(rows);
  free(r.jsonl);
  if (ot_available()) CHECK(ot_check_ok(table_dir("abort"), 0, "abort"));
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* Injected I/O errors on the spill fs: creating a run, writing it, reading it back at prepare. */
static void test_faults(void) {
  paimon_catalog *cat = NULL;
  const char *extra[8] = {0};
  paimon_table *t = make_table(&cat, "faults", extra);
  if (!t) return;
  pm_fs *ffs = NULL;
  pm_error e;
  CHECK(pm_fault_fs_new(pm_fs_local(), &ffs, &e) == 0);
  run r = {PKM_INSERT, rows_text(0, 3000, 2)};
  const pm_fault_rule rules[] = {
      {PM_FAULT_OP_CREATE, 2, 1, PM_FAULT_ERROR, 0},
      {PM_FAULT_OP_WRITE, 3, 1, PM_FAULT_ERROR, 0},
      {PM_FAULT_OP_READ, 2, 1, PM_FAULT_ERROR, 0},
      {PM_FAULT_OP_READ, 7, 1, PM_FAULT_ERROR, 0},
      {PM_FAULT_OP_OPEN, 2, 1, PM_FAULT_ERROR, 0},
  };
  for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
    pm_fault_fs_arm(ffs, &rules[i]);
    paimon_error err = {0};
    int rc = write_runs(t, &r, 1, ffs, 1, NULL, NULL, &err);
    CHECK_MSG(rc != 0, "fault %s #%llu: the write succeeded", pm_fault_op_name(rules[i].op),
              (unsigned long long)rules[i].nth);
    CHECK_MSG(pm_fault_fs_injected(ffs) > 0, "fault %zu not injected", i);
    CHECK_MSG(rules[i].action != PM_FAULT_ERROR || strstr(err.message, "injected"), "fault %zu: message '%s'", i,
              err.message);
    CHECK_MSG(strstr(err.message, "spill"), "fault %zu: the message does not name the spill: '%s'", i, err.message);
    printf("fault %s #%llu: %s\n", pm_fault_op_name(rules[i].op), (unsigned long long)rules[i].nth, err.message);
    CHECK_MSG(tmp_entries() == 0, "fault %zu: %d temp entries left", i, tmp_entries());
  }
  pm_fault_fs_disarm(ffs);
  paimon_error err = {0};
  json_t *rows = ow_read_ours(t, &err);
  CHECK_MSG(rows && json_array_size(rows) == 0, "faults: something was committed");
  json_decref(rows);
  /* the same write with nothing armed commits */
  CHECK_OK(write_runs(t, &r, 1, ffs, 1, NULL, NULL, &err), &err);
  rows = ow_read_ours(t, &err);
  CHECK_MSG(rows && json_array_size(rows) == 3000, "faults: %zu rows after the clean write",
            rows ? json_array_size(rows) : 0);
  json_decref(rows);
  if (ot_available()) CHECK(ot_check_ok(table_dir("faults"), 0, "faults"));
  free(r.jsonl);
  pm_fs_unref(ffs);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* ---- PAIMON_LONG_TESTS=1: 10M rows, write-buffer-size = 16 mb, peak RSS of a child ---- */

#define BIG_ROWS 10000000
#define BIG_BATCH 100000

static int big_write(void) {
  paimon_catalog *cat = NULL;
  paimon_error err = {0};
  paimon_option o[] = {{"warehouse", wh}};
  if (paimon_catalog_open(o, 1, &cat, &err)) return 2;
  const char *opts[] = {"primary-key=k", "bucket=1", "write-buffer-size=16 mb", "write-only=true"};
  if (ow_create_table(cat, "d", "big", "k BIGINT NOT NULL, v BIGINT, s STRING", NULL, opts, 4, 0, &err)) return 3;
  paimon_table *t = NULL;
  if (paimon_catalog_get_table(cat, "d.big", &t, &err)) return 4;
  paimon_write_builder *wb = NULL;
  pm_table_write *w = NULL;
  pm_manifest_committable *mc = NULL;
  paimon_commit_messages *m = NULL;
  paimon_table_commit *c = NULL;
  pm_error e;
  if (paimon_write_builder_new(t, 0, NULL, 0, &wb, &err) || pm_table_write_open(wb->t, NULL, &w, &e) ||
      pm_table_write_spill_to(w, tmp, NULL, &e))
    return 5;
  /* keys in a scrambled order over 10M distinct values */
  int64_t *kv = malloc(BIG_BATCH * sizeof *kv), *vv = malloc(BIG_BATCH * sizeof *vv);
  int32_t *off = malloc((BIG_BATCH + 1) * sizeof *off);
  char *sd = malloc((size_t)BIG_BATCH * 16);
  for (int64_t base = 0; base < BIG_ROWS; base += BIG_BATCH) {
    int32_t pos = 0;
    for (int64_t i = 0; i < BIG_BATCH; i++) {
      uint64_t r = (uint64_t)(base + i);
      kv[i] = (int64_t)((r * 2654435761ull) % BIG_ROWS);
      vv[i] = (int64_t)r;
      off[i] = pos;
      pos += snprintf(sd + pos, 16, "s%07lld", (long long)(r % 10000000));
    }
    off[BIG_BATCH] = pos;
    struct ArrowSchema s;
    struct ArrowArray a;
    if (pm_schema_init(&s, "+s", "", 0, 3, &e) || pm_schema_init(s.children[0], "l", "k", 0, 0, &e) ||
        pm_schema_init(s.children[1], "l", "v", ARROW_FLAG_NULLABLE, 0, &e) ||
        pm_schema_init(s.children[2], "u", "s", ARROW_FLAG_NULLABLE, 0, &e))
      return 6;
    if (pm_array_init(&a, BIG_BATCH, 1, 3, &e)) return 7;
    for (int ch = 0; ch < 3; ch++) {
      int nb = ch == 2 ? 3 : 2;
      if (pm_array_init(a.children[ch], BIG_BATCH, nb, 0, &e)) return 8;
    }
    void *b0 = pm_aligned_alloc(BIG_BATCH * 8), *b1 = pm_aligned_alloc(BIG_BATCH * 8);
    void *b2 = pm_aligned_alloc((BIG_BATCH + 1) * 4), *b3 = pm_aligned_alloc((size_t)pos + 1);
    memcpy(b0, kv, BIG_BATCH * 8);
    memcpy(b1, vv, BIG_BATCH * 8);
    memcpy(b2, off, (BIG_BATCH + 1) * 4);
    memcpy(b3, sd, (size_t)pos);
    pm_array_set_buffer(a.children[0], 1, b0);
    pm_array_set_buffer(a.children[1], 1, b1);
    pm_array_set_buffer(a.children[2], 1, b2);
    pm_array_set_buffer(a.children[2], 2, b3);
    int rc = pm_table_write_arrow_kind(w, &s, &a, 0, &e);
    a.release(&a);
    s.release(&s);
    if (rc) {
      fprintf(stderr, "big write: %s\n", e.message);
      return 9;
    }
  }
  free(kv);
  free(vv);
  free(off);
  free(sd);
  if (pm_table_write_prepare(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &mc, &e)) {
    fprintf(stderr, "big prepare: %s\n", e.message);
    return 10;
  }
  int64_t runs;
  uint64_t bytes;
  int64_t live;
  pm_table_write_spill_stats(w, &runs, &bytes, &live);
  printf("big write: %lld runs spilled, %.1f MB spill bytes\n", (long long)runs, (double)bytes / 1048576.0);
  if (runs < 2) return 11;
  if (pm_api_messages_wrap(mc, &m, &e) || paimon_write_builder_new_commit(wb, &c, &err) ||
      paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, NULL, &err))
    return 12;
  paimon_table_commit_free(c);
  paimon_commit_messages_free(m);
  pm_table_write_free(w);
  paimon_write_builder_free(wb);
  paimon_table_free(t);
  paimon_catalog_free(cat);
  return 0;
}

static void test_big_rss(void) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    int rc = big_write();
    fflush(stdout);
    _exit(rc);
  }
  int status = 0;
  struct rusage ru;
  CHECK(wait4(pid, &status, 0, &ru) == pid);
  CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "big write child: status %d", status);
  double peak_mb = (double)ru.ru_maxrss / 1024.0;
  printf("big write (10M rows, write-buffer-size 16 mb): peak RSS %.1f MB (bound 16 + 64 MB)\n", peak_mb);
  CHECK_MSG(peak_mb < 16 + 64, "peak RSS %.1f MB >= 80 MB", peak_mb);
  CHECK_MSG(tmp_entries() == 0, "big write: %d temp entries left", tmp_entries());
  paimon_error err = {0};
  paimon_catalog *cat = NULL;
  paimon_option o[] = {{"warehouse", wh}};
  CHECK_OK(paimon_catalog_open(o, 1, &cat, &err), &err);
  paimon_table *t = NULL;
  CHECK_OK(paimon_catalog_get_table(cat, "d.big", &t, &err), &err);
  char cmd[1024], *out = NULL;
  if (ot_available()) CHECK(ot_check_ok(table_dir("big"), 0, "big"));
  snprintf(cmd, sizeof cmd, "cd '%s' && ls bucket-0 | wc -l", table_dir("big"));
  if (ot_shell(cmd, &out) == 0) printf("big write: %s level-0 files\n", out ? out : "?");
  free(out);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

int main(void) {
  snprintf(wh, sizeof wh, "/tmp/pm_write_pk_spill_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  snprintf(tmp, sizeof tmp, "%s-tmp", wh);
  mkdir(tmp, 0755);
  for (size_t i = 0; i < N_SCENARIOS; i++) test_scenario(&SCENARIOS[i]);
  test_abort();
  test_faults();
  const char *lt = getenv("PAIMON_LONG_TESTS");
  if (lt && !strcmp(lt, "1")) test_big_rss();
  char cmd[700];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", wh, tmp);
  if (!pm_test_failures && system(cmd)) return 1;
  return pm_test_failures ? 1 : 0;
}
