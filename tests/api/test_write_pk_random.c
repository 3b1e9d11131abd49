/*
 * Randomized primary-key writes against the model (tests/support/pk_model.h;
 * issue 12 §4): random sequences of upserts, updates (-U/+U), deletes and
 * partial updates (null fields) over 10k keys, several commits per sequence,
 * each followed at random by a compaction (in the writer, or a dedicated
 * paimon_table_compact, full or minor), over the combinations of
 *   - merge engine: deduplicate, partial-update (remove-record-on-delete;
 *     ignore-delete; a sequence group with retracts), aggregation (sum / max
 *     / listagg / last_value, remove-record-on-delete), first-row
 *     (ignore-delete);
 *   - buckets: fixed (4), dynamic (-1, the key covers the partition; small
 *     dynamic-bucket.target-row-num so partitions get several buckets),
 *     cross-partition (-1, key k only: keys move between 3 partitions), postpone
 *     (-2: rows invisible until a dedicated compaction gives them buckets; one at the end);
 *   - deletion vectors on / off;
 *   - changelog-producer none / input / lookup / full-compaction.
 * Combinations the library refuses at create or first write (UNSUPPORTED /
 * INVALID_ARGUMENT) are listed on stderr and skipped, as are those the model does not
 * follow (not_modeled: lookup compaction of non-associative merges, postpone with changelog).
 *
 * After every commit (and its compaction) our reader returns exactly the
 * model's rows, and with a changelog producer our incremental changelog read
 * (incremental-between the step's snapshots, scan mode changelog) returns the
 * expected changelog: input: every row that reached the writer (after
 * ignore-delete and the cross-partition rewrite below); lookup /
 * full-compaction: the transitions of the model between the two committed
 * states over the keys touched (support/pk_transitions.h). At the last commit
 * of sampled sequences `paimon-table check` passes and, for the engines it
 * reads (deduplicate, first-row, plain partial-update), `paimon-table read`
 * returns the model's rows.
 *
 * Cross-partition (Java's GlobalIndexAssigner, the key index rebuilt from the
 * live rows when each commit's writer starts): a key in another partition:
 * deduplicate gets a -D of the row in the old partition then the row;
 * partial-update and aggregation get the row in the old partition; first-row
 * drops it. As Java, rows that ignore-delete drops pass the index first
 * (a -D of a new key places it in its partition).
 *
 * The model merges per flush and per read (two levels, as Java); a minor
 * compaction merges an unknown subset of runs, which only the associative
 * merges (deduplicate, first-row, partial-update without retracts) survive
 * unchanged: the others run with compaction triggers out of reach and only
 * full compactions (the model's pkm_compact).
 *
 * first-row (write-only): each commit's level-0 file = the model's first row per key.
 * make test: a sample of 8 combinations, the oracle on 2; PAIMON_LONG_TESTS=1:
 * 200 sequences over every accepted combination, the oracle on every 4th.
 * A failure prints the combination and seed (PK_RANDOM_COMBO=C PK_RANDOM_SEED=N
 * reruns one sequence; PK_RANDOM_TRACE=K prints the generated rows of key k = K).
 */
#include <dirent.h>
#include <jansson.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "paimon/compact.h"
#include "paimon/write.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/oracle_table.h"
#include "support/oracle_write.h"
#include "support/pk_model.h"
#include "support/pk_transitions.h"
#include "support/postpone_table.h"

static char wh[256];

#define N_KEYS 10000
#define COLS "pt INT NOT NULL, k INT NOT NULL, a STRING, b BIGINT, c BIGINT, g BIGINT"

static const pkm_column MODEL_COLS[] = {
    {"pt", PKM_INT, PKM_AGG_DEFAULT, 0, -1}, {"k", PKM_INT, PKM_AGG_DEFAULT, 0, -1},
    {"a", PKM_STRING, PKM_AGG_DEFAULT, 0, -1}, {"b", PKM_INT, PKM_AGG_DEFAULT, 0, -1},
    {"c", PKM_INT, PKM_AGG_DEFAULT, 0, -1}, {"g", PKM_INT, PKM_AGG_DEFAULT, 0, -1},
};
#define NC 6
static const char *const COL_NAMES[NC] = {"pt", "k", "a", "b", "c", "g"};

typedef struct scenario {
  const char *name;
  const char *options[8];
  pkm_engine engine;
  int remove_on_delete, ignore_delete, seq_group;
  pkm_agg aggs[NC];
  int kinds_mask;     /* row kinds generated: bit k */
  int nulls;          /* value fields may be null (partial updates) */
  int oracle_read;    /* paimon-table read supports the engine */
  int assoc;          /* any subset of runs merges to the same result (minor compactions allowed) */
} scenario;

static const scenario SCENARIOS[] = {
    {"dedup", {"merge-engine=deduplicate"}, PKM_DEDUPLICATE, 0, 0, 0, {0}, 0xF, 1, 1, 1},
    {"partial-remove",
     {"merge-engine=partial-update", "partial-update.remove-record-on-delete=true"},
     PKM_PARTIAL_UPDATE, 1, 0, 0, {0}, (1 << 0) | (1 << 2) | (1 << 3), 1, 1, 0},
    {"partial-ignore-delete",
     {"merge-engine=partial-update", "ignore-delete=true"},
     PKM_PARTIAL_UPDATE, 0, 1, 0, {0}, 0xF, 1, 1, 1},
    {"partial-seq-group",
     {"merge-engine=partial-update", "fields.g.sequence-group=c,b"},
     PKM_PARTIAL_UPDATE, 0, 0, 1, {0}, 0xF, 1, 0, 0},
    {"aggregation",
     {"merge-engine=aggregation", "aggregation.remove-record-on-delete=true", "fields.b.aggregate-function=sum",
      "fields.c.aggregate-function=max", "fields.a.aggregate-function=listagg",
      "fields.g.aggregate-function=last_value"},
     PKM_AGGREGATION, 1, 0, 0, {0, 0, PKM_AGG_LISTAGG, PKM_AGG_SUM, PKM_AGG_MAX, PKM_AGG_LAST_VALUE},
     (1 << 0) | (1 << 2) | (1 << 3), 1, 0, 0},
    {"first-row", {"merge-engine=first-row", "ignore-delete=true"}, PKM_FIRST_ROW, 0, 1, 0, {0}, 0xF, 0, 1, 1},
};
#define N_SCENARIOS (sizeof SCENARIOS / sizeof SCENARIOS[0])

enum { BM_FIXED, BM_DYNAMIC, BM_CROSS, BM_POSTPONE, N_BM };
static const char *const BM_NAMES[N_BM] = {"fixed", "dynamic", "cross", "postpone"};
enum { CL_NONE, CL_INPUT, CL_LOOKUP, CL_FULL, N_CL };
static const char *const CL_NAMES[N_CL] = {"none", "input", "lookup", "full-compaction"};
#define N_COMBOS ((int)N_SCENARIOS * N_BM * 2 * N_CL)

typedef struct combo {
  const scenario *sc;
  int bm, dv, cl;
} combo;

static combo combo_of(int i) {
  combo c = {&SCENARIOS[i / (N_BM * 2 * N_CL)], (i / (2 * N_CL)) % N_BM, (i / N_CL) % 2, i % N_CL};
  return c;
}

static void combo_name(const combo *c, char *buf, size_t cap) {
  snprintf(buf, cap, "%s/%s/%s/cl=%s", c->sc->name, BM_NAMES[c->bm], c->dv ? "dv" : "no-dv", CL_NAMES[c->cl]);
}

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

/* Writes the commit's runs (each run one row kind), compacts in the writer when compact >= 0
 * (1: full), and commits; returns the status. */
typedef struct run {
  int kind;
  char *jsonl;
} run;

static int write_commit(paimon_table *t, const run *runs, size_t n, int compact, paimon_error *err) {
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
  if (!rc && compact >= 0) rc = paimon_table_write_compact(w, NULL, 0, -1, compact, err);
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

/* One random row in table column order (pt, k, a, b, c, g): JSON line + values (strings in
 * sbuf). cross: k over all keys, mostly in its home partition k % 3; else (pt, k) over 2 x 5000. */
static void random_row(const scenario *sc, int cross, int kind, char *line, size_t cap, pkm_value *v, char *sbuf) {
  int pt, k;
  if (cross) {
    k = rnd_below(N_KEYS);
    pt = rnd_below(4) ? k % 3 : rnd_below(3);
  } else {
    int key = rnd_below(N_KEYS);
    pt = key % 2;
    k = key / 2;
  }
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
  for (int c = 3; c < NC; c++)
    if (!v[c].null) n += snprintf(line + n, cap - (size_t)n, ",\"%s\":%lld", COL_NAMES[c], (long long)v[c].i);
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

/* ------------------------------------------------------------ one sequence */

typedef struct seq {
  const combo *cb;
  pkm_model *m;
  int cross;
  int cur_pt[N_KEYS]; /* cross: the key index (partition of key k, -1 none) */
  json_t *input;      /* rows that reached the writer this step, with _row_kind */
  json_t *touched;    /* "pt/k" of the rows that reached the writer this step */
  int bad;
} seq;

static json_t *row_json(const pkm_value *v) {
  json_t *o = json_object();
  for (int c = 0; c < NC; c++)
    json_object_set_new(o, COL_NAMES[c], v[c].null ? json_null() : c == 2 ? json_string(v[c].s) : json_integer(v[c].i));
  return o;
}

/* One row (table column order) into the model and the step's expectations. */
static void feed(seq *q, int kind, pkm_value *v) {
  if (pkm_add(q->m, kind, v)) {
    fprintf(stderr, "model refuses a generated row: %s\n", pkm_last_error(q->m));
    q->bad = 1;
  }
  json_t *r = row_json(v);
  json_array_append_new(q->input, with_kind(r, kind));
  json_decref(r);
  char key[48];
  snprintf(key, sizeof key, "%lld/%lld", (long long)v[0].i, (long long)v[1].i);
  json_object_set_new(q->touched, key, json_true());
}

/* ignore-delete: the writer drops -U / -D rows (Java's RowKindFilter). */
static int dropped(const scenario *sc, int kind) {
  return sc->ignore_delete && (kind == PKM_UPDATE_BEFORE || kind == PKM_DELETE);
}

/* A generated row as the writer applies it (the cross-partition key index, then the kind filter). */
static void apply_row(seq *q, int kind, pkm_value *v) {
  const scenario *sc = q->cb->sc;
  if (!q->cross) {
    if (!dropped(sc, kind)) feed(q, kind, v);
    return;
  }
  /* the key index sees every row; the kind filter comes after it */
  int k = (int)v[1].i, pt = (int)v[0].i, old = q->cur_pt[k];
  if (old < 0 || old == pt) {
    q->cur_pt[k] = pt;
    if (!dropped(sc, kind)) feed(q, kind, v);
    return;
  }
  pkm_value o[NC];
  memcpy(o, v, sizeof o);
  o[0] = pkm_int(old);
  switch (sc->engine) {
    case PKM_DEDUPLICATE: /* retract the old partition's row, then the row as a new key */
      if (!dropped(sc, PKM_DELETE)) feed(q, PKM_DELETE, o);
      q->cur_pt[k] = pt;
      if (!dropped(sc, kind)) feed(q, kind, v);
      break;
    case PKM_PARTIAL_UPDATE:
    case PKM_AGGREGATION: /* into the existing partition */
      if (!dropped(sc, kind)) feed(q, kind, o);
      break;
    case PKM_FIRST_ROW: /* the key keeps its first partition */
      break;
  }
}

/* The model's visible rows as "pt/k" -> row. */
static json_t *state_of(const pkm_model *m) {
  json_t *rows = pkm_rows(m), *st = json_object(), *r;
  size_t i;
  json_array_foreach(rows, i, r) {
    char key[48];
    snprintf(key, sizeof key, "%lld/%lld", (long long)json_integer_value(json_object_get(r, "pt")),
             (long long)json_integer_value(json_object_get(r, "k")));
    json_object_set(st, key, r);
  }
  json_decref(rows);
  return st;
}

static int64_t latest_id(const char *dir) {
  ot_snapshot *ss = NULL;
  size_t n = ot_snapshots(dir, &ss, NULL);
  int64_t id = n ? ss[n - 1].id : 0;
  free(ss);
  return id;
}

/* first-row with lookup: the first row of every key new in the step, its kind kept (Java's
 * FirstRowMergeFunctionWrapper emits the merged record itself: a +U stays +U). */
static json_t *first_row_changes(const json_t *before, const json_t *input) {
  json_t *out = json_array(), *seen = json_object(), *r;
  size_t i;
  json_array_foreach(input, i, r) {
    char key[48];
    snprintf(key, sizeof key, "%lld/%lld", (long long)json_integer_value(json_object_get(r, "pt")),
             (long long)json_integer_value(json_object_get(r, "k")));
    if (json_object_get(before, key) || json_object_get(seen, key)) continue;
    json_object_set_new(seen, key, json_true());
    json_array_append(out, r);
  }
  json_decref(seen);
  return out;
}

enum { SEQ_OK = 0, SEQ_FAILED = 1, SEQ_REFUSED = 2, SEQ_SKIPPED = 3 };

static json_t *state_rows(const json_t *st) {
  json_t *out = json_array(), *v;
  const char *k;
  json_object_foreach((json_t *)st, k, v) json_array_append(out, v);
  return out;
}

/* Combinations the library accepts but the model does not follow (NULL: modeled):
 *  - a non-associative merge with lookup compaction (deletion vectors, changelog-producer
 *    lookup): Java's LookupMergeFunction merges even a key's single record through the merge
 *    function at every commit (a partial-update sequence group with a null ordering value
 *    drops its fields; the write buffer and the read keep a single record as it is);
 *  - postpone buckets with a changelog producer or a non-associative merge (what the postpone
 *    compaction merges into the real buckets' levels is not modeled). */
static const char *not_modeled(const combo *cb) {
  if (!cb->sc->assoc && (cb->dv || cb->cl == CL_LOOKUP))
    return "not modeled: lookup compaction of a non-associative merge";
  if (cb->bm == BM_POSTPONE && (cb->cl != CL_NONE || !cb->sc->assoc))
    return "not modeled: postpone buckets with a changelog producer or a non-associative merge";
  return NULL;
}

static int refusal(int rc) { return rc == PAIMON_ERR_UNSUPPORTED || rc == PAIMON_ERR_INVALID_ARGUMENT; }

/* One sequence: a fresh table, 3..5 commits of random runs, each maybe compacted. Returns
 * SEQ_*; SEQ_REFUSED: the library refused the table or its first write (why in *why). */
static int run_sequence(const combo *cb, uint64_t seed, int idx, int with_oracle, char *why, size_t why_cap) {
  const scenario *sc = cb->sc;
  char name[64], cname[128];
  snprintf(name, sizeof name, "r%d", idx);
  combo_name(cb, cname, sizeof cname);
  rng_state = seed * 2654435761u + 1;
  paimon_error err = {0};
  paimon_option o[] = {{"warehouse", wh}};
  paimon_catalog *cat = NULL;
  CHECK_OK(paimon_catalog_open(o, 1, &cat, &err), &err);
  if (!cat) return SEQ_FAILED;
  int cross = cb->bm == BM_CROSS;
  const char *opts[24] = {cross ? "primary-key=k" : "primary-key=pt,k",
                          cb->bm == BM_FIXED ? "bucket=4" : cb->bm == BM_POSTPONE ? "bucket=-2" : "bucket=-1"};
  size_t n_opts = 2;
  for (size_t i = 0; i < 8 && sc->options[i]; i++) opts[n_opts++] = sc->options[i];
  if (cb->bm == BM_DYNAMIC) opts[n_opts++] = "dynamic-bucket.target-row-num=1500";
  if (cb->bm == BM_POSTPONE) opts[n_opts++] = "postpone.default-bucket-num=2";
  if (cross) opts[n_opts++] = "dynamic-bucket.target-row-num=2000";
  if (cb->dv) opts[n_opts++] = "deletion-vectors.enabled=true";
  static const char *const cl_opt[N_CL] = {NULL, "changelog-producer=input", "changelog-producer=lookup",
                                           "changelog-producer=full-compaction"};
  if (cl_opt[cb->cl]) opts[n_opts++] = cl_opt[cb->cl];
  if (sc->assoc) {
    opts[n_opts++] = "num-sorted-run.compaction-trigger=3";
  } else { /* no minor compaction the model cannot follow */
    opts[n_opts++] = "num-sorted-run.compaction-trigger=1000";
    opts[n_opts++] = "num-sorted-run.stop-trigger=2000";
  }
  int rc = ow_create_table(cat, "d", name, COLS, "pt", opts, n_opts, 0, &err);
  if (rc) {
    paimon_catalog_free(cat);
    if (refusal(rc)) {
      snprintf(why, why_cap, "create: %.150s", err.message);
      return SEQ_REFUSED;
    }
    CHECK_MSG(0, "%s: create: %s", cname, err.message);
    return SEQ_FAILED;
  }
  char ident[128];
  snprintf(ident, sizeof ident, "d.%s", name);
  paimon_table *t = NULL;
  CHECK_OK(paimon_catalog_get_table(cat, ident, &t, &err), &err);
  if (!t) {
    paimon_catalog_free(cat);
    return SEQ_FAILED;
  }
  pkm_column cols[NC];
  memcpy(cols, MODEL_COLS, sizeof cols);
  for (int c = 0; c < NC; c++) cols[c].agg = sc->aggs[c];
  pkm_seq_group grp = {5, 0};
  if (sc->seq_group) cols[3].seq_group = cols[4].seq_group = cols[5].seq_group = 0;
  /* the model's key is (pt, k) also for cross-partition tables: a partition's records of a key
   * merge only with each other (a -D of an absent key stays in its partition, invisible); the
   * key index above decides the partition of each row */
  pkm_config cfg = {sc->engine, NC, cols, 2, sc->ignore_delete, 0, sc->remove_on_delete,
                    sc->seq_group ? 1 : 0, &grp};
  seq *q = calloc(1, sizeof *q);
  q->cb = cb;
  q->cross = cross;
  q->m = pkm_new(&cfg);
  json_t *before = json_object(), *visible = json_object();
  int postpone = cb->bm == BM_POSTPONE;
  int commits = 3 + rnd_below(3), result = SEQ_OK;
  for (int c = 0; c < commits && !q->bad; c++) {
    q->input = json_array();
    q->touched = json_object();
    if (cross) { /* the writer's key index: the live rows at its start */
      for (int k = 0; k < N_KEYS; k++) q->cur_pt[k] = -1;
      const char *key;
      json_t *r;
      json_object_foreach(before, key, r) q->cur_pt[json_integer_value(json_object_get(r, "k"))] =
          (int)json_integer_value(json_object_get(r, "pt"));
    }
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
        random_row(sc, cross, kind, line, sizeof line, v, sbuf);
        if (getenv("PK_RANDOM_TRACE") && v[1].i == atoi(getenv("PK_RANDOM_TRACE")))
          fprintf(stderr, "TRACE commit %d kind %d idx_pt %d: %s", c, kind, cross ? q->cur_pt[v[1].i] : -1, line);
        apply_row(q, kind, v);
        append(&buf, &blen, &bcap, line);
      }
      runs[n_runs].kind = kind;
      runs[n_runs++].jsonl = buf;
      rows -= len;
    }
    /* a compaction: in the writer (1 in 4), dedicated after the commit (1 in 3); minor only
     * for associative merges */
    int in_writer = rnd_below(4) == 0 ? (sc->assoc ? rnd_below(2) : 1) : -1;
    int dedicated = rnd_below(3) == 0 ? (sc->assoc ? rnd_below(2) : 1) : -1;
    if (postpone) { /* rows stay invisible until a dedicated compaction; always one at the end */
      in_writer = -1;
      dedicated = rnd_below(2) || c == commits - 1 ? rnd_below(2) : -1;
    }
    int64_t prev = latest_id(table_dir(name));
    rc = write_commit(t, runs, n_runs, in_writer, &err);
    for (size_t i = 0; i < n_runs; i++) free(runs[i].jsonl);
    if (rc && c == 0 && refusal(rc) && latest_id(table_dir(name)) == 0) {
      snprintf(why, why_cap, "write: %.150s", err.message);
      result = SEQ_REFUSED;
      json_decref(q->input);
      json_decref(q->touched);
      break;
    }
    if (!rc && c == 0 && not_modeled(cb)) {
      snprintf(why, why_cap, "%s", not_modeled(cb));
      result = SEQ_SKIPPED;
      json_decref(q->input);
      json_decref(q->touched);
      break;
    }
    CHECK_MSG(rc == 0, "%s seed %llu commit %d: %s", cname, (unsigned long long)seed, c, err.message);
    q->bad |= rc != 0;
    pkm_flush(q->m);
    /* full-compaction changelog: every batch commit compacts fully */
    if (!rc && (in_writer == 1 || cb->cl == CL_FULL)) pkm_compact(q->m, 1);
    if (!rc && dedicated >= 0) {
      paimon_compact_options co;
      paimon_compact_options_init(&co);
      co.full = dedicated;
      paimon_compact_result cr;
      rc = paimon_table_compact(t, &co, &cr, &err);
      CHECK_MSG(rc == 0, "%s seed %llu commit %d: compact (full %d): %s", cname, (unsigned long long)seed, c,
                dedicated, err.message);
      q->bad |= rc != 0;
      if (!rc && dedicated) pkm_compact(q->m, 1);
      if (!rc && postpone) {
        json_decref(visible);
        visible = state_of(q->m);
      }
    }
    json_t *after = state_of(q->m);
    if (!q->bad) {
      json_t *want = postpone ? state_rows(visible) : pkm_rows(q->m);
      json_t *ours = ow_read_ours(t, &err);
      char msg[8192] = "";
      int ok = ours && ot_rows_match(want, ours, msg, sizeof msg);
      CHECK_MSG(ok, "%s seed %llu commit %d: our reader != model (%zu rows): %s %s", cname,
                (unsigned long long)seed, c, json_array_size(want), msg, ours ? "" : err.message);
      q->bad |= !ok;
      json_decref(ours);
      if (ok && cb->cl != CL_NONE) {
        json_t *changes;
        if (cb->cl == CL_INPUT) {
          changes = json_incref(q->input);
        } else if (sc->engine == PKM_FIRST_ROW) {
          changes = first_row_changes(before, q->input);
        } else {
          changes = json_array();
          model_changes(before, after, q->touched, changes, 0, 0);
        }
        char between[64];
        snprintf(between, sizeof between, "%lld,%lld", (long long)prev, (long long)latest_id(table_dir(name)));
        paimon_option ro[] = {{"incremental-between", between}, {"incremental-between-scan-mode", "changelog"}};
        json_t *cl = read_ours(t, ro, 2, 1);
        int clok = cl && ot_rows_match(changes, cl, msg, sizeof msg);
        CHECK_MSG(clok, "%s seed %llu commit %d: changelog (%s) != model (%zu rows): %s", cname,
                  (unsigned long long)seed, c, between, json_array_size(changes), msg);
        q->bad |= !clok;
        json_decref(cl);
        json_decref(changes);
      }
      if (ok && c == commits - 1 && with_oracle && ot_available()) {
        char what[160];
        snprintf(what, sizeof what, "%s seed %llu", cname, (unsigned long long)seed);
        /* postpone: the oracle does not know Java's postpone data-file names (postpone_table.h) */
        int cok = postpone ? pp_check_ok(table_dir(name), 0, what) : ot_check_ok(table_dir(name), 0, what);
        CHECK_MSG(cok, "%s", what);
        q->bad |= !cok;
        if (sc->oracle_read) {
          int rok = ot_read_equals(table_dir(name), NULL, want, what);
          CHECK_MSG(rok, "%s: paimon-table read != model", what);
          q->bad |= !rok;
        }
      }
      json_decref(want);
    }
    json_decref(before);
    before = after;
    json_decref(q->input);
    json_decref(q->touched);
  }
  if (result == SEQ_OK && q->bad) result = SEQ_FAILED;
  json_decref(before);
  json_decref(visible);
  pkm_free(q->m);
  free(q);
  paimon_table_free(t);
  paimon_catalog_free(cat);
  return result;
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
    CHECK_OK(write_commit(t, runs, 3, -1, &err), &err);
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

/* make test: one sequence of each of these (engine, buckets, dv, changelog), the oracle on the
  * first 2 */
static const int SAMPLE[][4] = {
    {0, BM_FIXED, 1, CL_LOOKUP}, {1, BM_DYNAMIC, 0, CL_FULL},  {5, BM_CROSS, 0, CL_LOOKUP},
    {0, BM_CROSS, 0, CL_INPUT},  {4, BM_FIXED, 0, CL_NONE},    {3, BM_CROSS, 0, CL_FULL},
    {2, BM_POSTPONE, 0, CL_NONE}, {0, BM_DYNAMIC, 1, CL_NONE},
};

static int combo_index(int sc, int bm, int dv, int cl) { return ((sc * N_BM + bm) * 2 + dv) * N_CL + cl; }

static void test_random_sequences(void) {
  const char *one = getenv("PK_RANDOM_SEED"), *one_combo = getenv("PK_RANDOM_COMBO");
  static char refused[N_COMBOS][200];
  int ran = 0, n_refused = 0, n_skipped = 0, oracle_runs = 0, per_combo[N_COMBOS] = {0};
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int target = one_combo ? 1 : long_mode ? 200 : (int)(sizeof SAMPLE / sizeof SAMPLE[0]);
  for (int i = 0; ran < target && i < 100000; i++) {
    int ci;
    if (one_combo) ci = atoi(one_combo);
    else if (long_mode) ci = i % N_COMBOS;
    else ci = combo_index(SAMPLE[i][0], SAMPLE[i][1], SAMPLE[i][2], SAMPLE[i][3]);
    if (ci < 0 || ci >= N_COMBOS) break;
    if (refused[ci][0]) {
      if (i >= N_COMBOS && n_refused + n_skipped == N_COMBOS) break;
      continue;
    }
    combo cb = combo_of(ci);
    uint64_t seed = one ? strtoull(one, NULL, 10) : (uint64_t)(i + 1);
    int with_oracle = one_combo || (long_mode ? ran % 4 == 0 : ran < 2);
    char why[200] = "", cname[128];
    combo_name(&cb, cname, sizeof cname);
    int r = run_sequence(&cb, seed, i, with_oracle, why, sizeof why);
    if (r == SEQ_REFUSED || r == SEQ_SKIPPED) {
      snprintf(refused[ci], sizeof refused[ci], "%.190s", why);
      n_refused += r == SEQ_REFUSED;
      n_skipped += r == SEQ_SKIPPED;
      fprintf(stderr, "%s: combo %d %s: %s\n", r == SEQ_REFUSED ? "refused (skipped)" : "skipped", ci, cname, why);
      continue;
    }
    ran++;
    per_combo[ci]++;
    oracle_runs += with_oracle;
    if (r == SEQ_FAILED) {
      fprintf(stderr, "FAILED: combo %d %s seed %llu (PK_RANDOM_COMBO=%d PK_RANDOM_SEED=%llu)\n", ci, cname,
              (unsigned long long)seed, ci, (unsigned long long)seed);
      break;
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  int distinct = 0;
  for (int c = 0; c < N_COMBOS; c++) distinct += per_combo[c] > 0;
  fprintf(stderr, "pk random: %d sequences over %d combinations (%d refused, %d not modeled), %d with the oracle, %.1f s\n",
          ran, distinct, n_refused, n_skipped, oracle_runs, (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
  CHECK(ran == target || (one_combo && n_refused + n_skipped > 0));
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
