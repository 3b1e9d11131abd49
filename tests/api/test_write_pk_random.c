/*
 * Randomized primary-key writes against the model (tests/support/pk_model.h;
 * issue 12 §4): random sequences of upserts, updates (-U/+U), deletes and
 * partial updates (null fields) over 10k keys in 2 partitions and 4 buckets,
 * several commits per sequence, for deduplicate, partial-update
 * (remove-record-on-delete; a sequence group with retracts; ignore-delete)
 * and aggregation (sum / max / listagg / last_value, remove-record-on-delete).
 * After every commit our reader returns exactly the model's rows; once per
 * sequence (the oracle costs ~1.5 s a call) `paimon-table check` passes and,
 * for the engines it supports (deduplicate, plain partial-update),
 * `paimon-table read` returns the model's rows too.
 *
 * first-row (write-only): each commit's level-0 file = the model's first row per key.
 * make test: one sequence per scenario; PAIMON_LONG_TESTS=1: 200 sequences.
 * A failure prints the scenario and seed (PK_RANDOM_SEED=N reruns one).
 */
#include <dirent.h>
#include <jansson.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "paimon/write.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/oracle_table.h"
#include "support/oracle_write.h"
#include "support/pk_model.h"

static char wh[256];

#define N_KEYS 10000
#define COLS "pt INT NOT NULL, k INT NOT NULL, a STRING, b BIGINT, c BIGINT, g BIGINT"

static const pkm_column MODEL_COLS[] = {
    {"pt", PKM_INT, PKM_AGG_DEFAULT, 0, -1}, {"k", PKM_INT, PKM_AGG_DEFAULT, 0, -1},
    {"a", PKM_STRING, PKM_AGG_DEFAULT, 0, -1}, {"b", PKM_INT, PKM_AGG_DEFAULT, 0, -1},
    {"c", PKM_INT, PKM_AGG_DEFAULT, 0, -1}, {"g", PKM_INT, PKM_AGG_DEFAULT, 0, -1},
};
#define NC 6

typedef struct scenario {
  const char *name;
  const char *options[8];
  pkm_engine engine;
  int remove_on_delete, ignore_delete, seq_group;
  pkm_agg aggs[NC];
  int kinds_mask;     /* row kinds generated: bit k */
  int nulls;          /* value fields may be null (partial updates) */
  int oracle_read;    /* paimon-table read supports the engine */
} scenario;

static const scenario SCENARIOS[] = {
    {"dedup", {"merge-engine=deduplicate"}, PKM_DEDUPLICATE, 0, 0, 0, {0}, 0xF, 1, 1},
    {"partial-remove",
     {"merge-engine=partial-update", "partial-update.remove-record-on-delete=true"},
     PKM_PARTIAL_UPDATE, 1, 0, 0, {0}, (1 << 0) | (1 << 2) | (1 << 3), 1, 1},
    {"partial-ignore-delete",
     {"merge-engine=partial-update", "ignore-delete=true"},
     PKM_PARTIAL_UPDATE, 0, 1, 0, {0}, 0xF, 1, 1},
    {"partial-seq-group",
     {"merge-engine=partial-update", "fields.g.sequence-group=c,b"},
     PKM_PARTIAL_UPDATE, 0, 0, 1, {0}, 0xF, 1, 0},
    {"aggregation",
     {"merge-engine=aggregation", "aggregation.remove-record-on-delete=true", "fields.b.aggregate-function=sum",
      "fields.c.aggregate-function=max", "fields.a.aggregate-function=listagg",
      "fields.g.aggregate-function=last_value"},
     PKM_AGGREGATION, 1, 0, 0, {0, 0, PKM_AGG_LISTAGG, PKM_AGG_SUM, PKM_AGG_MAX, PKM_AGG_LAST_VALUE},
     (1 << 0) | (1 << 2) | (1 << 3), 1, 0},
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

/* Writes the commit's runs (each run one row kind) and commits; returns the status. */
typedef struct run {
  int kind;
  char *jsonl;
} run;

static int write_commit(paimon_table *t, const run *runs, size_t n, paimon_error *err) {
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  paimon_commit_messages *m = NULL;
  paimon_table_commit *c = NULL;
  int rc = paimon_write_builder_new(t, 0, NULL, 0, &wb, err);
  if (!rc) rc = paimon_write_builder_new_write(wb, &w, err);
  for (size_t i = 0; !rc && i < n; i++) {
    struct ArrowSchema s;
    struct ArrowArray a;
    rc = ow_batch(t, runs[i].jsonl, &s, &a, err);
    if (!rc) rc = paimon_table_write_arrow_kind(w, &s, &a, runs[i].kind, err);
    if (a.release) a.release(&a);
    if (s.release) s.release(&s);
  }
  if (!rc) rc = paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, err);
  if (!rc) rc = paimon_write_builder_new_commit(wb, &c, err);
  if (!rc) rc = paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, NULL, err);
  paimon_commit_messages_free(m);
  paimon_table_commit_free(c);
  paimon_table_write_free(w);
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

/* One random row: JSON line + the model's values (strings in sbuf). */
static void random_row(const scenario *sc, int kind, char *line, size_t cap, pkm_value *v, char *sbuf) {
  int key = rnd_below(N_KEYS);
  int pt = key % 2, k = key / 2;
  int nulls = sc->nulls && kind != PKM_DELETE ? 4 : 0; /* 1 in 4 null fields */
  if (kind == PKM_DELETE && rnd_below(2)) nulls = 1;   /* -D rows: often key-only */
  v[0] = pkm_int(pt);
  v[1] = pkm_int(k);
  v[2] = (nulls && rnd_below(nulls) == 0) ? pkm_null() : pkm_str(sbuf);
  snprintf(sbuf, 16, "s%d", rnd_below(1000));
  for (int c = 3; c < NC; c++) {
    if (nulls && rnd_below(nulls) == 0) v[c] = pkm_null();
    else v[c] = pkm_int(rnd_below(2000) - 500);
  }
  if (sc->seq_group && kind == PKM_DELETE && nulls == 1) v[5] = pkm_int(rnd_below(2000)); /* retract the group */
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

/* One sequence: a fresh table, 3..5 commits of random runs. Returns 0 on success. */
static int run_sequence(const scenario *sc, uint64_t seed, int idx, int with_oracle) {
  char name[64];
  snprintf(name, sizeof name, "r%d", idx);
  rng_state = seed * 2654435761u + 1;
  paimon_error err = {0};
  paimon_option o[] = {{"warehouse", wh}};
  paimon_catalog *cat = NULL;
  CHECK_OK(paimon_catalog_open(o, 1, &cat, &err), &err);
  const char *opts[16] = {"primary-key=pt,k", "bucket=4"};
  size_t n_opts = 2;
  for (size_t i = 0; i < 8 && sc->options[i]; i++) opts[n_opts++] = sc->options[i];
  CHECK_OK(ow_create_table(cat, "d", name, COLS, "pt", opts, n_opts, 0, &err), &err);
  char ident[128];
  snprintf(ident, sizeof ident, "d.%s", name);
  paimon_table *t = NULL;
  CHECK_OK(paimon_catalog_get_table(cat, ident, &t, &err), &err);
  if (!t) return 1;
  pkm_column cols[NC];
  memcpy(cols, MODEL_COLS, sizeof cols);
  for (int c = 0; c < NC; c++) cols[c].agg = sc->aggs[c];
  pkm_seq_group grp = {5, 0};
  if (sc->seq_group) cols[3].seq_group = cols[4].seq_group = cols[5].seq_group = 0;
  pkm_config cfg = {sc->engine, NC, cols, 2, sc->ignore_delete, 0, sc->remove_on_delete, sc->seq_group ? 1 : 0, &grp};
  pkm_model *m = pkm_new(&cfg);
  int commits = 3 + rnd_below(3), bad = 0;
  for (int c = 0; c < commits && !bad; c++) {
    run runs[64];
    size_t n_runs = 0;
    int rows = 500 + rnd_below(2500);
    while (rows > 0 && n_runs < 64) {
      int kind = random_kind(sc), len = 1 + rnd_below(n_runs == 63 ? rows : 300);
      if (len > rows) len = rows;
      char *buf = NULL;
      size_t blen = 0, bcap = 0;
      append(&buf, &blen, &bcap, "");
      for (int r = 0; r < len; r++) {
        char line[256], sbuf[16];
        pkm_value v[NC];
        random_row(sc, kind, line, sizeof line, v, sbuf);
        if (pkm_add(m, kind, v)) {
          fprintf(stderr, "model refuses a generated row: %s\n", pkm_last_error(m));
          bad = 1;
        }
        append(&buf, &blen, &bcap, line);
      }
      runs[n_runs].kind = kind;
      runs[n_runs++].jsonl = buf;
      rows -= len;
    }
    int rc = write_commit(t, runs, n_runs, &err);
    CHECK_MSG(rc == 0, "%s seed %llu commit %d: %s", sc->name, (unsigned long long)seed, c, err.message);
    for (size_t i = 0; i < n_runs; i++) free(runs[i].jsonl);
    if (rc) {
      bad = 1;
      break;
    }
    pkm_flush(m);
    json_t *want = pkm_rows(m);
    json_t *ours = ow_read_ours(t, &err);
    char msg[8192] = "";
    int ok = ours && ot_rows_match(want, ours, msg, sizeof msg);
    CHECK_MSG(ok, "%s seed %llu commit %d: our reader != model (%zu rows): %s %s", sc->name,
              (unsigned long long)seed, c, json_array_size(want), msg, ours ? "" : err.message);
    bad |= !ok;
    int last = c == commits - 1;
    if (ok && last && with_oracle && ot_available()) {
      char what[128];
      snprintf(what, sizeof what, "%s seed %llu", sc->name, (unsigned long long)seed);
      int cok = ot_check_ok(table_dir(name), 0, what);
      CHECK_MSG(cok, "%s", what);
      bad |= !cok;
      if (sc->oracle_read) {
        int rok = ot_read_equals(table_dir(name), NULL, want, what);
        CHECK_MSG(rok, "%s: paimon-table read != model", what);
        bad |= !rok;
      }
    }
    json_decref(want);
    json_decref(ours);
  }
  pkm_free(m);
  paimon_table_free(t);
  paimon_catalog_free(cat);
  return bad;
}


/* Rows of a data file (paimon_file_open) as JSON objects of the table columns (key/system
 * columns dropped). */
static json_t *file_rows(const char *path) {
  paimon_file_read_options fo;
  paimon_file_read_options_init(&fo);
  struct ArrowArrayStream st = {0};
  struct ArrowSchema schema = {0};
  paimon_error err = {0};
  json_t *rows = json_array();
  CHECK_OK(paimon_file_open(path, &fo, &st, &err), &err);
  if (!st.release) return rows;
  pm_type type;
  pm_error e;
  pm_error_clear(&e);
  CHECK(st.get_schema(&st, &schema) == 0 && pm_type_from_schema(&schema, &type, &e) == 0);
  pm_buf b;
  pm_buf_init(&b);
  for (;;) {
    struct ArrowArray a;
    if (st.get_next(&st, &a) || !a.release) break;
    for (int64_t r = 0; r < a.length; r++) {
      json_t *row = json_object();
      for (int64_t c = 0; c < type.n_children; c++) {
        const char *name = type.children[c].name ? type.children[c].name : "";
        if (name[0] == '_') continue;
        b.len = 0;
        CHECK(pm_json_append_value(&type.children[c], a.children[c], r, -1, &b, &e) == 0);
        json_t *v = json_loadb((const char *)b.data, b.len, JSON_DECODE_ANY, NULL);
        json_object_set_new(row, name, v ? v : json_null());
      }
      json_array_append_new(rows, row);
    }
    a.release(&a);
  }
  pm_buf_free(&b);
  pm_type_free(&type);
  schema.release(&schema);
  st.release(&st);
  return rows;
}

/* first-row (write-only: the writer's lookup compaction does not exist yet): each commit's
 * level-0 file holds the first row of every key of that commit's input (deletes dropped with
 * ignore-delete), as the model's first-row flush says; batch reads skip level 0 (Java's
 * batchScanSkipLevel0): our reader and paimon-table read return no rows, check passes. */
static void test_first_row_write_only(void) {
  paimon_error err = {0};
  paimon_option o[] = {{"warehouse", wh}};
  paimon_catalog *cat = NULL;
  CHECK_OK(paimon_catalog_open(o, 1, &cat, &err), &err);
  const char *opts[] = {"primary-key=pt,k", "bucket=1", "merge-engine=first-row", "write-only=true",
                        "ignore-delete=true"};
  CHECK_OK(ow_create_table(cat, "d", "fr", COLS, "pt", opts, 5, 0, &err), &err);
  paimon_table *t = NULL;
  CHECK_OK(paimon_catalog_get_table(cat, "d.fr", &t, &err), &err);
  if (!t) return;
  pkm_column cols[NC];
  memcpy(cols, MODEL_COLS, sizeof cols);
  pkm_config cfg = {PKM_FIRST_ROW, NC, cols, 2, 1, 0, 0, 0, NULL};
  for (int c = 0; c < 2; c++) {
    pkm_model *m = pkm_new(&cfg); /* one flush = one level-0 file per bucket */
    run runs[3];
    const int lo[3] = {0, 50, 0}, hi[3] = {100, 150, 10}, kinds[3] = {PKM_INSERT, PKM_UPDATE_AFTER, PKM_DELETE};
    for (int r = 0; r < 3; r++) {
      char *buf = NULL;
      size_t len = 0, cap = 0;
      append(&buf, &len, &cap, "");
      for (int k = lo[r] + c * 20; k < hi[r] + c * 20; k++) {
        char line[160], sv[32];
        snprintf(sv, sizeof sv, "c%d-r%d", c, r);
        snprintf(line, sizeof line, "{\"pt\":0,\"k\":%d,\"a\":\"%s\",\"b\":%d}\n", k, sv, k * 10 + r);
        append(&buf, &len, &cap, line);
        pkm_value v[NC] = {pkm_int(0), pkm_int(k), pkm_str(sv), pkm_int(k * 10 + r), pkm_null(), pkm_null()};
        CHECK(pkm_add(m, kinds[r], v) == 0);
      }
      runs[r].kind = kinds[r];
      runs[r].jsonl = buf;
    }
    CHECK_OK(write_commit(t, runs, 3, &err), &err);
    for (int r = 0; r < 3; r++) free(runs[r].jsonl);
    pkm_flush(m);
    /* the newest data file of the bucket */
    char bdir[600], newest[900] = "";
    snprintf(bdir, sizeof bdir, "%s/pt=0/bucket-0", table_dir("fr"));
    DIR *d = opendir(bdir);
    struct dirent *de;
    struct stat best = {0};
    while (d && (de = readdir(d)) != NULL) {
      if (strncmp(de->d_name, "data-", 5)) continue;
      char p[900];
      struct stat st;
      snprintf(p, sizeof p, "%s/%s", bdir, de->d_name);
      if (!stat(p, &st) && (!newest[0] || st.st_mtim.tv_sec > best.st_mtim.tv_sec ||
                            (st.st_mtim.tv_sec == best.st_mtim.tv_sec && st.st_mtim.tv_nsec > best.st_mtim.tv_nsec))) {
        snprintf(newest, sizeof newest, "%s", p);
        best = st;
      }
    }
    if (d) closedir(d);
    CHECK_MSG(newest[0], "no data file in %s", bdir);
    json_t *want = pkm_rows(m), *got = newest[0] ? file_rows(newest) : json_array();
    char msg[8192] = "";
    CHECK_MSG(ot_rows_match(want, got, msg, sizeof msg), "commit %d: level-0 file != first-row model: %s", c, msg);
    json_decref(want);
    json_decref(got);
    pkm_free(m);
  }
  json_t *ours = ow_read_ours(t, &err), *none = json_array();
  char msg[2048] = "";
  CHECK_MSG(ours && ot_rows_match(none, ours, msg, sizeof msg), "batch read of level 0: %s", msg);
  if (ot_available()) {
    CHECK(ot_check_ok(table_dir("fr"), 0, "first-row write-only"));
    CHECK(ot_read_equals(table_dir("fr"), NULL, none, "first-row write-only (level 0 skipped)"));
  }
  json_decref(ours);
  json_decref(none);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

static int long_mode;

static void test_random_sequences(void) {
  const char *one = getenv("PK_RANDOM_SEED");
  int n = long_mode ? 200 : (int)N_SCENARIOS;
  for (int i = 0; i < n; i++) {
    uint64_t seed = one ? strtoull(one, NULL, 10) : (uint64_t)(i + 1);
    const scenario *sc = &SCENARIOS[i % N_SCENARIOS];
    /* long mode: the oracle on every 5th sequence of a scenario (cost), every sequence otherwise */
    int with_oracle = !long_mode || (i / (int)N_SCENARIOS) % 5 == 0;
    if (run_sequence(sc, seed, i, with_oracle)) {
      fprintf(stderr, "FAILED: scenario %s seed %llu (PK_RANDOM_SEED=%llu)\n", sc->name, (unsigned long long)seed,
              (unsigned long long)seed);
      break;
    }
  }
}

/* The model itself on a hand-computed case: Java's two-level merge of partial-update with
 * remove-record-on-delete keeps a deleted row's values as the accumulator. */
static void test_model_rules(void) {
  pkm_column cols[3] = {{"k", PKM_INT, 0, 0, -1}, {"x", PKM_INT, 0, 0, -1}, {"y", PKM_INT, 0, 0, -1}};
  pkm_config cfg = {PKM_PARTIAL_UPDATE, 3, cols, 1, 0, 0, 1, 0, NULL};
  pkm_model *m = pkm_new(&cfg);
  pkm_value r1[3] = {pkm_int(1), pkm_int(10), pkm_int(20)};
  pkm_value d[3] = {pkm_int(1), pkm_null(), pkm_null()};
  pkm_value r2[3] = {pkm_int(1), pkm_int(11), pkm_null()};
  CHECK(pkm_add(m, PKM_INSERT, r1) == 0);
  pkm_flush(m);
  CHECK(pkm_add(m, PKM_DELETE, d) == 0);
  pkm_flush(m);
  CHECK_EQ_INT(pkm_count(m), 0);
  CHECK(pkm_add(m, PKM_INSERT, r2) == 0);
  pkm_flush(m);
  const pkm_value *got = pkm_get(m, r1);
  CHECK(got && got[1].i == 11 && got[2].null); /* y: the -D row's null, not 20 */
  pkm_free(m);
  /* without the option a -D is refused, as Java's merge function refuses it */
  cfg.remove_record_on_delete = 0;
  m = pkm_new(&cfg);
  CHECK(pkm_add(m, PKM_DELETE, d) == -1);
  pkm_free(m);
  /* aggregation: sum retracts, max refuses a retract */
  pkm_column ac[3] = {{"k", PKM_INT, 0, 0, -1}, {"s", PKM_INT, PKM_AGG_SUM, 0, -1}, {"x", PKM_INT, PKM_AGG_MAX, 0, -1}};
  pkm_config acfg = {PKM_AGGREGATION, 3, ac, 1, 0, 0, 0, 0, NULL};
  m = pkm_new(&acfg);
  CHECK(pkm_add(m, PKM_UPDATE_BEFORE, r1) == -1);
  ac[2].ignore_retract = 1;
  pkm_free(m);
  m = pkm_new(&acfg);
  CHECK(pkm_add(m, PKM_INSERT, r1) == 0);
  CHECK(pkm_add(m, PKM_INSERT, r1) == 0);
  CHECK(pkm_add(m, PKM_UPDATE_BEFORE, r2) == 0);
  pkm_flush(m);
  got = pkm_get(m, r1);
  CHECK(got && got[1].i == 9 && got[2].i == 20); /* 10 + 10 - 11; max ignores the retract */
  pkm_free(m);
}

int main(void) {
  long_mode = getenv("PAIMON_LONG_TESTS") && atoi(getenv("PAIMON_LONG_TESTS")) > 0;
  snprintf(wh, sizeof wh, "/tmp/pm_write_pk_random_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  RUN_TEST(test_model_rules);
  RUN_TEST(test_first_row_write_only);
  RUN_TEST(test_random_sequences);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && system(cmd)) return 1;
  TEST_MAIN_END();
}
