/*
 * Merge-on-read engine tests (SEMANTICS §2.2, §2.3, §5, pitfalls §12.3, §12.4,
 * §12.10): k-way merge over sorted runs with deduplicate, partial-update,
 * aggregation and first-row, Java's ordering ties, the single-record rule,
 * NaN / unsigned string key order, and batch boundaries inside runs.
 */
#include <math.h>

#include <roaring/roaring.h>

#include "arrow/builder.h"
#include "harness.h"
#include "table/merge.h"

/* layout: k INT, v STRING, n BIGINT, s INT (sequence.field candidate), _SEQ BIGINT, _KIND TINYINT */
enum { C_K, C_V, C_N, C_S, C_SEQ, C_KIND, N_COLS };

typedef struct rec {
  int k;
  const char *v; /* NULL = null */
  long long n;   /* LLONG_MIN = null */
  int s;         /* -999 = null */
  long long seq;
  int kind;
} rec;

#define NUL_N (-9223372036854775807LL - 1)
#define NUL_S (-999)

static pm_type g_layout;

static void make_layout(void) {
  pm_error err;
  pm_type_init(&g_layout, PM_T_STRUCT, "", 0, N_COLS, &err);
  pm_type_init(&g_layout.children[C_K], PM_T_INT32, "k", 0, 0, &err);
  pm_type_init(&g_layout.children[C_V], PM_T_UTF8, "v", 1, 0, &err);
  pm_type_init(&g_layout.children[C_N], PM_T_INT64, "n", 1, 0, &err);
  pm_type_init(&g_layout.children[C_S], PM_T_INT32, "s", 1, 0, &err);
  pm_type_init(&g_layout.children[C_SEQ], PM_T_INT64, "_SEQUENCE_NUMBER", 0, 0, &err);
  pm_type_init(&g_layout.children[C_KIND], PM_T_INT8, "_VALUE_KIND", 0, 0, &err);
}

static void make_batch(const rec *r, int n, struct ArrowArray *out) {
  pm_error err;
  pm_builder *b;
  pm_builder_new(&g_layout, &b, &err);
  for (int i = 0; i < n; i++) {
    pm_builder_append_int(pm_builder_child(b, C_K), r[i].k, &err);
    if (r[i].v) pm_builder_append_str(pm_builder_child(b, C_V), r[i].v, &err);
    else pm_builder_append_null(pm_builder_child(b, C_V), &err);
    if (r[i].n != NUL_N) pm_builder_append_int(pm_builder_child(b, C_N), r[i].n, &err);
    else pm_builder_append_null(pm_builder_child(b, C_N), &err);
    if (r[i].s != NUL_S) pm_builder_append_int(pm_builder_child(b, C_S), r[i].s, &err);
    else pm_builder_append_null(pm_builder_child(b, C_S), &err);
    pm_builder_append_int(pm_builder_child(b, C_SEQ), r[i].seq, &err);
    pm_builder_append_int(pm_builder_child(b, C_KIND), r[i].kind, &err);
    pm_builder_append_valid(b, &err);
  }
  CHECK_OK(pm_builder_finish(b, out, &err), &err);
  pm_builder_free(b);
}

/* A run source over a list of records split into batches of `chunk` rows. */
typedef struct vec_src {
  const rec *r;
  int n, pos, chunk;
} vec_src;

static int vec_next(void *ctx, struct ArrowArray *out, pm_error *err) {
  (void)err;
  vec_src *s = ctx;
  memset(out, 0, sizeof *out);
  if (s->pos >= s->n) return 0;
  int m = s->n - s->pos < s->chunk ? s->n - s->pos : s->chunk;
  make_batch(s->r + s->pos, m, out);
  s->pos += m;
  return 0;
}

static void vec_close(void *ctx) { free(ctx); }

static pm_merge_source src_of(const rec *r, int n, int chunk) {
  vec_src *s = calloc(1, sizeof *s);
  s->r = r;
  s->n = n;
  s->chunk = chunk;
  pm_merge_source m = {s, vec_next, vec_close};
  return m;
}

static const int KEY_COLS[1] = {C_K};

static void base_config(pm_merge_config *c, int engine) {
  memset(c, 0, sizeof *c);
  c->layout = &g_layout;
  c->n_keys = 1;
  c->key_cols = KEY_COLS;
  c->seq_col = C_SEQ;
  c->kind_col = C_KIND;
  c->level_col = -1;
  c->engine = engine;
}

/* Collected output: up to 64 rows. */
typedef struct outrow {
  int k;
  char v[32];
  int v_null;
  long long n;
  int n_null;
  long long seq;
  int kind;
} outrow;

static int run_merge(const pm_merge_config *cfg, pm_merge_source *srcs, int n_srcs, outrow *rows, int cap) {
  pm_error err;
  pm_merge_reader *m;
  int rc = pm_merge_open(cfg, srcs, n_srcs, &m, &err);
  CHECK_OK(rc, &err);
  if (rc) return -1;
  int n = 0;
  for (;;) {
    struct ArrowArray a;
    rc = pm_merge_next(m, &a, &err);
    CHECK_OK(rc, &err);
    if (rc || !a.release) break;
    for (int64_t i = 0; i < a.length && n < cap; i++, n++) {
      outrow *o = &rows[n];
      memset(o, 0, sizeof *o);
      o->k = ((const int32_t *)a.children[C_K]->buffers[1])[i];
      o->v_null = !pm_array_is_valid(a.children[C_V], i);
      if (!o->v_null) {
        const int32_t *off = a.children[C_V]->buffers[1];
        snprintf(o->v, sizeof o->v, "%.*s", (int)(off[i + 1] - off[i]),
                 (const char *)a.children[C_V]->buffers[2] + off[i]);
      }
      o->n_null = !pm_array_is_valid(a.children[C_N], i);
      if (!o->n_null) o->n = ((const int64_t *)a.children[C_N]->buffers[1])[i];
      o->seq = ((const int64_t *)a.children[C_SEQ]->buffers[1])[i];
      o->kind = ((const int8_t *)a.children[C_KIND]->buffers[1])[i];
    }
    a.release(&a);
  }
  pm_merge_close(m);
  return n;
}

static void test_dedup_basic(void) {
  static const rec a[] = {{1, "a1", 1, NUL_S, 0, 0}, {2, "a2", 2, NUL_S, 1, 0}, {3, "a3", 3, NUL_S, 2, 0},
                          {5, "a5", 5, NUL_S, 3, 0}};
  static const rec b[] = {{2, "b2", 20, NUL_S, 10, 2}, {3, "b3", 30, NUL_S, 11, 0}, {4, "b4", 40, NUL_S, 12, 0}};
  static const rec c[] = {{3, "c3", 0, NUL_S, 20, 3}};
  pm_merge_config cfg;
  base_config(&cfg, PM_ENGINE_DEDUPLICATE);
  /* chunk sizes 1 and 2 put batch boundaries inside runs */
  pm_merge_source s[3] = {src_of(a, 4, 1), src_of(b, 3, 2), src_of(c, 1, 1)};
  outrow o[16];
  int n = run_merge(&cfg, s, 3, o, 16);
  CHECK_EQ_INT(n, 4);
  if (n != 4) return;
  CHECK_EQ_INT(o[0].k, 1);
  CHECK_EQ_STR(o[0].v, "a1");
  CHECK_EQ_INT(o[1].k, 2);
  CHECK_EQ_STR(o[1].v, "b2");
  CHECK_EQ_INT(o[1].kind, PM_ROWKIND_UPDATE_AFTER); /* +U kept */
  CHECK_EQ_INT(o[2].k, 4);
  CHECK_EQ_INT(o[3].k, 5);

  /* keep_retracts: the -D of key 3 is returned */
  pm_merge_source s2[3] = {src_of(a, 4, 3), src_of(b, 3, 3), src_of(c, 1, 1)};
  cfg.keep_retracts = 1;
  n = run_merge(&cfg, s2, 3, o, 16);
  CHECK_EQ_INT(n, 5);
  if (n == 5) {
    CHECK_EQ_INT(o[2].k, 3);
    CHECK_EQ_INT(o[2].kind, PM_ROWKIND_DELETE);
  }
}

/* §12.3: a lone record bypasses the merge function; a lone -D disappears at read. */
static void test_single_record_rule(void) {
  static const rec a[] = {{1, "x", 5, NUL_S, 0, 3}, {2, "y", 7, NUL_S, 1, 0}};
  pm_merge_config cfg;
  base_config(&cfg, PM_ENGINE_AGGREGATION);
  pm_merge_column cols[N_COLS] = {{0}};
  cols[C_N].agg = PM_AGG_SUM;
  cfg.columns = cols;
  pm_merge_source s[1] = {src_of(a, 2, 10)};
  outrow o[8];
  int n = run_merge(&cfg, s, 1, o, 8);
  CHECK_EQ_INT(n, 1);
  if (n == 1) {
    CHECK_EQ_INT(o[0].k, 2);
    CHECK_EQ_INT(o[0].n, 7);
    CHECK_EQ_INT(o[0].kind, PM_ROWKIND_INSERT);
  }
}

/* §12.4: key -> sequence.field (nulls first, descending only flips non-null) -> seq -> retract first. */
static void test_ordering_ties(void) {
  static int seqf[1] = {C_S};
  /* key 1: s=5 (seq 0) vs s=3 (seq 9): s decides -> s=5 wins although older */
  /* key 2: s=null (seq 9) vs s=1 (seq 0): null is oldest -> s=1 wins */
  /* key 3: equal s, seq decides */
  /* key 4: equal s and seq: retract ordered first, add wins */
  static const rec a[] = {{1, "s5", 0, 5, 0, 0}, {2, "s1", 0, 1, 0, 0}, {3, "old", 0, 2, 1, 0}, {4, "add", 0, 2, 4, 0}};
  static const rec b[] = {{1, "s3", 0, 3, 9, 0}, {2, "snull", 0, NUL_S, 9, 0}, {3, "new", 0, 2, 2, 0},
                          {4, "del", 0, 2, 4, 3}};
  pm_merge_config cfg;
  base_config(&cfg, PM_ENGINE_DEDUPLICATE);
  cfg.n_seq_fields = 1;
  cfg.seq_field_cols = seqf;
  pm_merge_source s[2] = {src_of(a, 4, 2), src_of(b, 4, 3)};
  outrow o[8];
  int n = run_merge(&cfg, s, 2, o, 8);
  CHECK_EQ_INT(n, 4);
  if (n == 4) {
    CHECK_EQ_STR(o[0].v, "s5");
    CHECK_EQ_STR(o[1].v, "s1");
    CHECK_EQ_STR(o[2].v, "new");
    CHECK_EQ_STR(o[3].v, "add");
  }
  /* descending: key 1 now takes s=3; key 2: null still oldest -> s=1 */
  pm_merge_source s2[2] = {src_of(a, 4, 4), src_of(b, 4, 4)};
  cfg.seq_descending = 1;
  n = run_merge(&cfg, s2, 2, o, 8);
  CHECK_EQ_INT(n, 4);
  if (n == 4) {
    CHECK_EQ_STR(o[0].v, "s3");
    CHECK_EQ_STR(o[1].v, "s1");
  }
}

static void test_ignore_delete_and_first_row(void) {
  static const rec a[] = {{1, "first", 1, NUL_S, 0, 0}, {2, "two", 2, NUL_S, 1, 0}};
  static const rec b[] = {{1, "second", 2, NUL_S, 5, 0}, {2, NULL, 0, NUL_S, 6, 3}};
  pm_merge_config cfg;
  base_config(&cfg, PM_ENGINE_DEDUPLICATE);
  cfg.ignore_delete = 1;
  pm_merge_source s[2] = {src_of(a, 2, 8), src_of(b, 2, 8)};
  outrow o[8];
  int n = run_merge(&cfg, s, 2, o, 8);
  CHECK_EQ_INT(n, 2);
  if (n == 2) {
    CHECK_EQ_STR(o[0].v, "second");
    CHECK_EQ_STR(o[1].v, "two"); /* the -D is skipped */
  }
  base_config(&cfg, PM_ENGINE_FIRST_ROW);
  cfg.ignore_delete = 1;
  pm_merge_source s2[2] = {src_of(a, 2, 8), src_of(b, 2, 8)};
  n = run_merge(&cfg, s2, 2, o, 8);
  CHECK_EQ_INT(n, 2);
  if (n == 2) {
    CHECK_EQ_STR(o[0].v, "first");
    CHECK_EQ_STR(o[1].v, "two");
  }
  /* first-row without ignore-delete refuses retracts */
  base_config(&cfg, PM_ENGINE_FIRST_ROW);
  pm_merge_source s3[2] = {src_of(a, 2, 8), src_of(b, 2, 8)};
  pm_error err;
  pm_merge_reader *m;
  CHECK_OK(pm_merge_open(&cfg, s3, 2, &m, &err), &err);
  struct ArrowArray arr;
  int rc = pm_merge_next(m, &arr, &err);
  CHECK(rc != 0);
  if (!rc && arr.release) arr.release(&arr);
  pm_merge_close(m);
}

static void test_partial_update(void) {
  static const rec a[] = {{1, "v1", NUL_N, NUL_S, 0, 0}, {2, "only", 9, NUL_S, 1, 0}};
  static const rec b[] = {{1, NULL, 10, NUL_S, 5, 0}};
  static const rec c[] = {{1, "v3", NUL_N, NUL_S, 7, 0}};
  pm_merge_config cfg;
  base_config(&cfg, PM_ENGINE_PARTIAL_UPDATE);
  pm_merge_source s[3] = {src_of(a, 2, 1), src_of(b, 1, 1), src_of(c, 1, 1)};
  outrow o[8];
  int n = run_merge(&cfg, s, 3, o, 8);
  CHECK_EQ_INT(n, 2);
  if (n == 2) {
    CHECK_EQ_INT(o[0].k, 1);
    CHECK_EQ_STR(o[0].v, "v3");
    CHECK(!o[0].n_null);
    CHECK_EQ_INT(o[0].n, 10);
    CHECK_EQ_INT(o[0].seq, 7);
    CHECK_EQ_INT(o[0].kind, PM_ROWKIND_INSERT);
    CHECK_EQ_INT(o[1].n, 9);
  }
  /* a delete without ignore-delete is an error; with ignore-delete it is skipped */
  static const rec d[] = {{1, NULL, NUL_N, NUL_S, 8, 3}};
  pm_merge_source s2[2] = {src_of(a, 2, 4), src_of(d, 1, 1)};
  pm_error err;
  pm_merge_reader *m;
  CHECK_OK(pm_merge_open(&cfg, s2, 2, &m, &err), &err);
  struct ArrowArray arr;
  CHECK(pm_merge_next(m, &arr, &err) != 0);
  pm_merge_close(m);
  cfg.ignore_delete = 1;
  pm_merge_source s3[2] = {src_of(a, 2, 4), src_of(d, 1, 1)};
  n = run_merge(&cfg, s3, 2, o, 8);
  CHECK_EQ_INT(n, 2);
  if (n == 2) CHECK_EQ_STR(o[0].v, "v1");
  /* remove-record-on-delete: the -D removes the row */
  cfg.ignore_delete = 0;
  cfg.remove_record_on_delete = 1;
  pm_merge_source s4[2] = {src_of(a, 2, 4), src_of(d, 1, 1)};
  n = run_merge(&cfg, s4, 2, o, 8);
  CHECK_EQ_INT(n, 1);
  if (n == 1) CHECK_EQ_INT(o[0].k, 2);
}

/* Partial update with a sequence group: s orders v; n is outside any group. */
static void test_partial_update_sequence_group(void) {
  static const int order[1] = {C_S}, prot[1] = {C_V};
  pm_seq_group sg = {1, order, 1, prot, 0};
  static const rec a[] = {{1, "a", 1, 5, 0, 0}};
  static const rec b[] = {{1, NULL, 2, 3, 1, 0}};   /* older by s: v kept, n overwritten */
  static const rec c[] = {{1, "c", NUL_N, NUL_S, 2, 0}}; /* no ordering value: group skipped */
  static const rec d[] = {{1, NULL, NUL_N, 7, 3, 0}};    /* newer: v takes the input, null included */
  pm_merge_config cfg;
  base_config(&cfg, PM_ENGINE_PARTIAL_UPDATE);
  cfg.n_seq_groups = 1;
  cfg.seq_groups = &sg;
  pm_merge_source s1[3] = {src_of(a, 1, 1), src_of(b, 1, 1), src_of(c, 1, 1)};
  outrow o[4];
  int n = run_merge(&cfg, s1, 3, o, 4);
  CHECK_EQ_INT(n, 1);
  if (n == 1) {
    CHECK_EQ_STR(o[0].v, "a");
    CHECK_EQ_INT(o[0].n, 2);
    CHECK_EQ_INT(o[0].seq, 2);
  }
  pm_merge_source s2[4] = {src_of(a, 1, 1), src_of(b, 1, 1), src_of(c, 1, 1), src_of(d, 1, 1)};
  n = run_merge(&cfg, s2, 4, o, 4);
  CHECK_EQ_INT(n, 1);
  if (n == 1) {
    CHECK(o[0].v_null);
    CHECK_EQ_INT(o[0].n, 2);
  }
  /* a -D on a group listed in remove-record-on-sequence-group deletes the row */
  static const rec del[] = {{1, NULL, NUL_N, 9, 4, 3}};
  sg.remove_on_delete = 1;
  pm_merge_source s3[2] = {src_of(a, 1, 1), src_of(del, 1, 1)};
  n = run_merge(&cfg, s3, 2, o, 4);
  CHECK_EQ_INT(n, 0);
}

static void test_aggregation(void) {
  static const rec a[] = {{1, "a", 5, NUL_S, 0, 0}, {2, "b", 1, NUL_S, 1, 0}};
  static const rec b[] = {{1, NULL, 7, NUL_S, 3, 0}, {2, "bb", NUL_N, NUL_S, 4, 0}};
  static const rec c[] = {{1, "c", 2, NUL_S, 6, 1}};
  pm_merge_config cfg;
  base_config(&cfg, PM_ENGINE_AGGREGATION);
  pm_merge_column cols[N_COLS] = {{0}};
  cols[C_N].agg = PM_AGG_SUM;
  cols[C_V].agg = PM_AGG_LAST_NON_NULL_VALUE;
  cfg.columns = cols;
  pm_merge_source s[3] = {src_of(a, 2, 1), src_of(b, 2, 1), src_of(c, 1, 1)};
  outrow o[8];
  int n = run_merge(&cfg, s, 3, o, 8);
  CHECK_EQ_INT(n, 2);
  if (n == 2) {
    CHECK_EQ_INT(o[0].n, 10); /* 5 + 7 - 2 (the -U retracts) */
    CHECK(o[0].v_null);       /* last_non_null retract of a non-null value -> null */
    CHECK_EQ_INT(o[0].seq, 6);
    CHECK_EQ_INT(o[1].n, 1); /* null skipped */
    CHECK_EQ_STR(o[1].v, "bb");
  }
  cols[C_N].agg = PM_AGG_MAX;
  pm_merge_source s2[2] = {src_of(a, 2, 1), src_of(b, 2, 1)};
  n = run_merge(&cfg, s2, 2, o, 8);
  CHECK_EQ_INT(n, 2);
  if (n == 2) {
    CHECK_EQ_INT(o[0].n, 7);
    CHECK_EQ_INT(o[1].n, 1);
  }
  /* max has no retraction: error */
  pm_merge_source s3[3] = {src_of(a, 2, 1), src_of(b, 2, 1), src_of(c, 1, 1)};
  pm_error err;
  pm_merge_reader *m;
  CHECK_OK(pm_merge_open(&cfg, s3, 3, &m, &err), &err);
  struct ArrowArray arr;
  CHECK(pm_merge_next(m, &arr, &err) != 0);
  pm_merge_close(m);
  /* first_value keeps the first input even when null; first_non_null_value skips nulls */
  static const rec f1[] = {{1, NULL, 0, NUL_S, 0, 0}};
  static const rec f2[] = {{1, "x", 0, NUL_S, 1, 0}};
  cols[C_N].agg = PM_AGG_NONE;
  cols[C_V].agg = PM_AGG_FIRST_VALUE;
  pm_merge_source s4[2] = {src_of(f1, 1, 1), src_of(f2, 1, 1)};
  n = run_merge(&cfg, s4, 2, o, 8);
  CHECK_EQ_INT(n, 1);
  if (n == 1) CHECK(o[0].v_null);
  cols[C_V].agg = PM_AGG_FIRST_NON_NULL_VALUE;
  pm_merge_source s5[2] = {src_of(f1, 1, 1), src_of(f2, 1, 1)};
  n = run_merge(&cfg, s5, 2, o, 8);
  CHECK_EQ_INT(n, 1);
  if (n == 1) CHECK_EQ_STR(o[0].v, "x");
  pm_agg_func f;
  CHECK_EQ_INT(pm_agg_func_parse("count", &f, &err), PAIMON_ERR_INVALID_ARGUMENT); /* no such Java aggregator */
  CHECK_OK(pm_agg_func_parse("first_not_null_value", &f, &err), &err);
  CHECK_EQ_INT(f, PM_AGG_FIRST_NON_NULL_VALUE);
}

static void test_listagg(void) {
  static const rec a[] = {{1, "a,b", 0, NUL_S, 0, 0}};
  static const rec b[] = {{1, "b,c", 0, NUL_S, 1, 0}};
  static const rec c[] = {{1, NULL, 0, NUL_S, 2, 0}, {2, " ", 0, NUL_S, 3, 0}};
  static const rec d[] = {{2, "x", 0, NUL_S, 4, 0}};
  pm_merge_config cfg;
  base_config(&cfg, PM_ENGINE_AGGREGATION);
  pm_merge_column cols[N_COLS] = {{0}};
  cols[C_V].agg = PM_AGG_LISTAGG;
  cfg.columns = cols;
  pm_merge_source s1[4] = {src_of(a, 1, 1), src_of(b, 1, 1), src_of(c, 2, 1), src_of(d, 1, 1)};
  outrow o[4];
  int n = run_merge(&cfg, s1, 4, o, 4);
  CHECK_EQ_INT(n, 2);
  if (n == 2) {
    CHECK_EQ_STR(o[0].v, "a,b,b,c");
    CHECK_EQ_STR(o[1].v, "x"); /* a blank accumulator takes the input */
  }
  cols[C_V].distinct = 1;
  cols[C_V].listagg_delimiter = ",";
  pm_merge_source s2[4] = {src_of(a, 1, 1), src_of(b, 1, 1), src_of(c, 2, 1), src_of(d, 1, 1)};
  n = run_merge(&cfg, s2, 4, o, 4);
  CHECK_EQ_INT(n, 2);
  if (n == 2) CHECK_EQ_STR(o[0].v, "a,b,c");
}

/* rbm32: OR of portable 32-bit roaring bitmaps; layout (k INT, b BINARY, _SEQ, _KIND). */
static int rbm_next(void *ctx, struct ArrowArray *out, pm_error *err) {
  int *state = ctx; /* [0] = run index, [1] = done */
  memset(out, 0, sizeof *out);
  if (state[1]) return 0;
  state[1] = 1;
  pm_type t;
  pm_type_init(&t, PM_T_STRUCT, "", 0, 4, err);
  pm_type_init(&t.children[0], PM_T_INT32, "k", 0, 0, err);
  pm_type_init(&t.children[1], PM_T_BINARY, "b", 1, 0, err);
  pm_type_init(&t.children[2], PM_T_INT64, "s", 0, 0, err);
  pm_type_init(&t.children[3], PM_T_INT8, "kind", 0, 0, err);
  pm_builder *b;
  pm_builder_new(&t, &b, err);
  roaring_bitmap_t *bm = roaring_bitmap_create();
  roaring_bitmap_add(bm, (uint32_t)(state[0] * 10));
  roaring_bitmap_add(bm, 7);
  size_t n = roaring_bitmap_portable_size_in_bytes(bm);
  char *buf = malloc(n);
  roaring_bitmap_portable_serialize(bm, buf);
  pm_builder_append_int(pm_builder_child(b, 0), 1, err);
  pm_builder_append_bytes(pm_builder_child(b, 1), buf, n, err);
  pm_builder_append_int(pm_builder_child(b, 2), state[0], err);
  pm_builder_append_int(pm_builder_child(b, 3), 0, err);
  pm_builder_append_valid(b, err);
  int rc = pm_builder_finish(b, out, err);
  pm_builder_free(b);
  free(buf);
  roaring_bitmap_free(bm);
  pm_type_free(&t);
  return rc;
}

static void test_rbm32(void) {
  pm_error err;
  pm_type t;
  pm_type_init(&t, PM_T_STRUCT, "", 0, 4, &err);
  pm_type_init(&t.children[0], PM_T_INT32, "k", 0, 0, &err);
  pm_type_init(&t.children[1], PM_T_BINARY, "b", 1, 0, &err);
  pm_type_init(&t.children[2], PM_T_INT64, "s", 0, 0, &err);
  pm_type_init(&t.children[3], PM_T_INT8, "kind", 0, 0, &err);
  static const int keys[1] = {0};
  pm_merge_column cols[4] = {{0}};
  cols[1].agg = PM_AGG_RBM32;
  pm_merge_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.layout = &t;
  cfg.n_keys = 1;
  cfg.key_cols = keys;
  cfg.seq_col = 2;
  cfg.kind_col = 3;
  cfg.level_col = -1;
  cfg.engine = PM_ENGINE_AGGREGATION;
  cfg.columns = cols;
  static int st[3][2] = {{1, 0}, {2, 0}, {3, 0}};
  pm_merge_source src[3];
  for (int i = 0; i < 3; i++) {
    src[i].ctx = st[i];
    src[i].next = rbm_next;
    src[i].close = NULL;
  }
  pm_merge_reader *m;
  CHECK_OK(pm_merge_open(&cfg, src, 3, &m, &err), &err);
  struct ArrowArray a;
  CHECK_OK(pm_merge_next(m, &a, &err), &err);
  CHECK(a.release && a.length == 1);
  if (a.release && a.length == 1) {
    const int32_t *off = a.children[1]->buffers[1];
    roaring_bitmap_t *bm = roaring_bitmap_portable_deserialize_safe(
        (const char *)a.children[1]->buffers[2] + off[0], (size_t)(off[1] - off[0]));
    CHECK(bm != NULL);
    if (bm) {
      CHECK_EQ_INT(roaring_bitmap_get_cardinality(bm), 4); /* 7, 10, 20, 30 */
      CHECK(roaring_bitmap_contains(bm, 30));
      roaring_bitmap_free(bm);
    }
  }
  if (a.release) a.release(&a);
  pm_merge_close(m);
  pm_type_free(&t);
}

/* collect / merge_map: layout (k INT, l ARRAY<INT>, mp MAP<INT, STRING>, _SEQ, _KIND). */
static pm_type g_nested;

static void make_nested_layout(void) {
  pm_error err;
  pm_type *t = &g_nested;
  pm_type_init(t, PM_T_STRUCT, "", 0, 5, &err);
  pm_type_init(&t->children[0], PM_T_INT32, "k", 0, 0, &err);
  pm_type_init(&t->children[1], PM_T_LIST, "l", 1, 1, &err);
  pm_type_init(&t->children[1].children[0], PM_T_INT32, "element", 1, 0, &err);
  pm_type_init(&t->children[2], PM_T_MAP, "mp", 1, 1, &err);
  pm_type_init(&t->children[2].children[0], PM_T_STRUCT, "entries", 0, 2, &err);
  pm_type_init(&t->children[2].children[0].children[0], PM_T_INT32, "key", 0, 0, &err);
  pm_type_init(&t->children[2].children[0].children[1], PM_T_UTF8, "value", 1, 0, &err);
  pm_type_init(&t->children[3], PM_T_INT64, "_SEQ", 0, 0, &err);
  pm_type_init(&t->children[4], PM_T_INT8, "_KIND", 0, 0, &err);
}

typedef struct nrec {
  int n_list;
  int list[3];
  int n_map;
  int keys[2];
  const char *vals[2];
  long long seq;
  int kind;
} nrec;

static int nested_next(void *ctx, struct ArrowArray *out, pm_error *err) {
  const nrec **slot = ctx;
  memset(out, 0, sizeof *out);
  if (!*slot) return 0;
  const nrec *r = *slot;
  *slot = NULL;
  pm_builder *b;
  pm_builder_new(&g_nested, &b, err);
  pm_builder_append_int(pm_builder_child(b, 0), 1, err);
  pm_builder *l = pm_builder_child(b, 1);
  for (int i = 0; i < r->n_list; i++) pm_builder_append_int(pm_builder_child(l, 0), r->list[i], err);
  pm_builder_append_valid(l, err);
  pm_builder *mp = pm_builder_child(b, 2), *ent = pm_builder_child(mp, 0);
  for (int i = 0; i < r->n_map; i++) {
    pm_builder_append_int(pm_builder_child(ent, 0), r->keys[i], err);
    pm_builder_append_str(pm_builder_child(ent, 1), r->vals[i], err);
    pm_builder_append_valid(ent, err);
  }
  pm_builder_append_valid(mp, err);
  pm_builder_append_int(pm_builder_child(b, 3), r->seq, err);
  pm_builder_append_int(pm_builder_child(b, 4), r->kind, err);
  pm_builder_append_valid(b, err);
  int rc = pm_builder_finish(b, out, err);
  pm_builder_free(b);
  return rc;
}

static void test_collect_and_merge_map(void) {
  make_nested_layout();
  static const nrec a = {2, {1, 2}, 2, {1, 2}, {"one", "two"}, 0, 0};
  static const nrec b = {2, {2, 3}, 1, {2, 0}, {"TWO", NULL}, 1, 0};
  static const int keys[1] = {0};
  pm_merge_column cols[5] = {{0}};
  cols[1].agg = PM_AGG_COLLECT;
  cols[2].agg = PM_AGG_MERGE_MAP;
  pm_merge_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.layout = &g_nested;
  cfg.n_keys = 1;
  cfg.key_cols = keys;
  cfg.seq_col = 3;
  cfg.kind_col = 4;
  cfg.level_col = -1;
  cfg.engine = PM_ENGINE_AGGREGATION;
  cfg.columns = cols;
  for (int distinct = 0; distinct < 2; distinct++) {
    cols[1].distinct = distinct;
    const nrec *sa = &a, *sb = &b;
    pm_merge_source src[2] = {{&sa, nested_next, NULL}, {&sb, nested_next, NULL}};
    pm_error err;
    pm_merge_reader *m;
    CHECK_OK(pm_merge_open(&cfg, src, 2, &m, &err), &err);
    struct ArrowArray o;
    CHECK_OK(pm_merge_next(m, &o, &err), &err);
    CHECK(o.release && o.length == 1);
    if (o.release && o.length == 1) {
      const struct ArrowArray *l = o.children[1];
      const int32_t *off = l->buffers[1];
      const int32_t *items = (const int32_t *)l->children[0]->buffers[1];
      int64_t n = off[1] - off[0];
      CHECK_EQ_INT(n, distinct ? 3 : 4); /* [1,2,2,3] or [1,2,3] */
      if (n >= 3) {
        CHECK_EQ_INT(items[off[0]], 1);
        CHECK_EQ_INT(items[off[0] + n - 1], 3);
      }
      const struct ArrowArray *mp = o.children[2];
      const int32_t *moff = mp->buffers[1];
      CHECK_EQ_INT(moff[1] - moff[0], 2); /* keys 1, 2: key 2 replaced by "TWO" */
      const struct ArrowArray *vals = mp->children[0]->children[1];
      const int32_t *voff = vals->buffers[1];
      int found = 0;
      for (int32_t e = moff[0]; e < moff[1]; e++)
        found |= voff[e + 1] - voff[e] == 3 && !memcmp((const char *)vals->buffers[2] + voff[e], "TWO", 3);
      CHECK(found);
      o.release(&o);
    }
    pm_merge_close(m);
  }
  pm_type_free(&g_nested);
}

/* Lookup tables (SEMANTICS 3.6): only the newest level > 0 record merges with level-0 records. */
static void test_lookup_level_rule(void) {
  /* s holds the record's file level here */
  static const rec l2[] = {{1, "l2", 5, 2, 0, 0}};
  static const rec l1[] = {{1, "l1", 7, 1, 3, 0}};
  static const rec l0[] = {{1, NULL, 1, 0, 5, 0}};
  pm_merge_config cfg;
  base_config(&cfg, PM_ENGINE_AGGREGATION);
  pm_merge_column cols[N_COLS] = {{0}};
  cols[C_N].agg = PM_AGG_SUM;
  cfg.columns = cols;
  cfg.level_col = C_S;
  pm_merge_source s1[3] = {src_of(l2, 1, 1), src_of(l1, 1, 1), src_of(l0, 1, 1)};
  outrow o[4];
  int n = run_merge(&cfg, s1, 3, o, 4);
  CHECK_EQ_INT(n, 1);
  if (n == 1) {
    CHECK_EQ_INT(o[0].n, 8); /* 7 + 1: the level-2 copy is already folded into level 1 */
    CHECK_EQ_STR(o[0].v, "l1");
  }
  cfg.level_col = -1;
  pm_merge_source s2[3] = {src_of(l2, 1, 1), src_of(l1, 1, 1), src_of(l0, 1, 1)};
  n = run_merge(&cfg, s2, 3, o, 4);
  CHECK_EQ_INT(n, 1);
  if (n == 1) CHECK_EQ_INT(o[0].n, 13);
}

/* §12.10: keys compare strings by unsigned bytes and doubles with NaN greatest, -0.0 < 0.0. */
static void test_compare_orders(void) {
  pm_error err;
  pm_type t;
  pm_type_init(&t, PM_T_UTF8, "s", 1, 0, &err);
  pm_builder *b;
  pm_builder_new(&t, &b, &err);
  pm_builder_append_str(b, "a", &err);
  pm_builder_append_str(b, "\xc3\xa9", &err); /* é: 0xC3 > 'z' unsigned */
  pm_builder_append_str(b, "z", &err);
  pm_builder_append_null(b, &err);
  struct ArrowArray s;
  pm_builder_finish(b, &s, &err);
  pm_builder_free(b);
  CHECK(pm_compare_values(&t, &s, 1, &s, 2) > 0);
  CHECK(pm_compare_values(&t, &s, 0, &s, 2) < 0);
  CHECK(pm_compare_values(&t, &s, 3, &s, 0) < 0); /* null first */
  s.release(&s);
  pm_type_free(&t);

  pm_type d;
  pm_type_init(&d, PM_T_DOUBLE, "d", 1, 0, &err);
  pm_builder_new(&d, &b, &err);
  pm_builder_append_double(b, NAN, &err);
  pm_builder_append_double(b, INFINITY, &err);
  pm_builder_append_double(b, -0.0, &err);
  pm_builder_append_double(b, 0.0, &err);
  struct ArrowArray x;
  pm_builder_finish(b, &x, &err);
  pm_builder_free(b);
  CHECK(pm_compare_values(&d, &x, 0, &x, 1) > 0);
  CHECK(pm_compare_values(&d, &x, 0, &x, 0) == 0);
  CHECK(pm_compare_values(&d, &x, 2, &x, 3) < 0);
  x.release(&x);
  pm_type_free(&d);
}

/* Many rows over 4 overlapping runs with tiny batches: output sorted, newest wins. */
static void test_many_runs(void) {
  enum { N = 400 };
  static rec runs[4][N];
  for (int r = 0; r < 4; r++)
    for (int i = 0; i < N; i++) {
      rec *x = &runs[r][i];
      x->k = i * 4 + (r % 2) * 2; /* runs 0/2 and 1/3 overlap fully */
      x->v = r >= 2 ? "new" : "old";
      x->n = r;
      x->s = NUL_S;
      x->seq = r * 1000 + i;
      x->kind = 0;
    }
  pm_merge_config cfg;
  base_config(&cfg, PM_ENGINE_DEDUPLICATE);
  pm_merge_source s[4] = {src_of(runs[0], N, 7), src_of(runs[1], N, 13), src_of(runs[2], N, 64),
                          src_of(runs[3], N, 1)};
  static outrow o[2 * N + 8];
  int n = run_merge(&cfg, s, 4, o, 2 * N + 8);
  CHECK_EQ_INT(n, 2 * N);
  int sorted = 1, newest = 1;
  for (int i = 0; i < n; i++) {
    if (i && o[i].k <= o[i - 1].k) sorted = 0;
    if (strcmp(o[i].v, "new")) newest = 0;
  }
  CHECK(sorted);
  CHECK(newest);
}

/* Randomized: 5 runs of random sorted keys, random kinds and sequence numbers,
 * random batch sizes; deduplicate and partial-update checked against a
 * straightforward per-key reference. */
static unsigned rnd_state = 12345;
static unsigned rnd(void) {
  rnd_state = rnd_state * 1103515245u + 12345u;
  return (rnd_state >> 8) & 0xFFFFFF;
}

static void test_randomized_against_reference(void) {
  enum { RUNS = 5, KEYS = 300 };
  static rec runs[RUNS][KEYS];
  static char vals[RUNS][KEYS][32];
  int nrec[RUNS];
  long long seq = 0;
  for (int round = 0; round < 20; round++) {
    /* each run: a random subset of keys, in order; sequence numbers unique */
    for (int r = 0; r < RUNS; r++) {
      nrec[r] = 0;
      for (int k = 0; k < KEYS; k++) {
        if (rnd() % 3) continue;
        rec *x = &runs[r][nrec[r]];
        snprintf(vals[r][nrec[r]], sizeof vals[r][nrec[r]], "%d_%d", r, k);
        x->k = k;
        x->v = rnd() % 4 == 0 ? NULL : vals[r][nrec[r]];
        x->n = rnd() % 4 == 0 ? NUL_N : (long long)(rnd() % 100);
        x->s = NUL_S;
        x->seq = seq + (long long)(rnd() % 1000) * 10 + r; /* unique per (run, key) */
        x->kind = rnd() % 5 == 0 ? 3 : 0;
        nrec[r]++;
      }
    }
    seq += 100000;
    for (int engine = 0; engine < 2; engine++) {
      pm_merge_config cfg;
      base_config(&cfg, engine == 0 ? PM_ENGINE_DEDUPLICATE : PM_ENGINE_PARTIAL_UPDATE);
      cfg.ignore_delete = engine == 1; /* partial update refuses deletes otherwise */
      pm_merge_source src[RUNS];
      for (int r = 0; r < RUNS; r++) src[r] = src_of(runs[r], nrec[r], 1 + (int)(rnd() % 40));
      static outrow o[KEYS + 8];
      int n = run_merge(&cfg, src, RUNS, o, KEYS + 8);
      /* reference */
      int expect_n = 0, mismatches = 0;
      for (int k = 0; k < KEYS; k++) {
        const rec *recs[RUNS];
        int g = 0;
        for (int r = 0; r < RUNS; r++)
          for (int i = 0; i < nrec[r]; i++)
            if (runs[r][i].k == k) recs[g++] = &runs[r][i];
        if (!g) continue;
        for (int a = 1; a < g; a++) /* by seq */
          for (int b = a; b > 0 && recs[b - 1]->seq > recs[b]->seq; b--) {
            const rec *t = recs[b];
            recs[b] = recs[b - 1];
            recs[b - 1] = t;
          }
        const char *ev = NULL;
        long long en = NUL_N;
        int present;
        if (engine == 0) {
          const rec *w = recs[g - 1];
          present = !pm_rowkind_is_retract(w->kind);
          ev = w->v;
          en = w->n;
        } else if (g == 1) {
          present = !pm_rowkind_is_retract(recs[0]->kind);
          ev = recs[0]->v;
          en = recs[0]->n;
        } else {
          int adds = 0;
          for (int a = 0; a < g; a++) {
            int retract = pm_rowkind_is_retract(recs[a]->kind);
            if (retract && a == 0) { /* a first skipped retract initialises the state */
              ev = recs[a]->v;
              en = recs[a]->n;
            }
            if (retract) continue;
            adds++;
            if (recs[a]->v) ev = recs[a]->v;
            if (recs[a]->n != NUL_N) en = recs[a]->n;
          }
          present = adds > 0;
        }
        if (!present) continue;
        int j = expect_n++;
        if (j >= n || o[j].k != k || o[j].v_null != (ev == NULL) || (ev && strcmp(o[j].v, ev)) ||
            o[j].n_null != (en == NUL_N) || (en != NUL_N && o[j].n != en))
          mismatches++;
      }
      CHECK_EQ_INT(n, expect_n);
      CHECK_MSG(mismatches == 0, "round %d engine %d: %d mismatching keys", round, engine, mismatches);
    }
  }
}

int main(void) {
  make_layout();
  RUN_TEST(test_randomized_against_reference);
  RUN_TEST(test_dedup_basic);
  RUN_TEST(test_single_record_rule);
  RUN_TEST(test_ordering_ties);
  RUN_TEST(test_ignore_delete_and_first_row);
  RUN_TEST(test_partial_update);
  RUN_TEST(test_partial_update_sequence_group);
  RUN_TEST(test_aggregation);
  RUN_TEST(test_listagg);
  RUN_TEST(test_rbm32);
  RUN_TEST(test_collect_and_merge_map);
  RUN_TEST(test_lookup_level_rule);
  RUN_TEST(test_compare_orders);
  RUN_TEST(test_many_runs);
  pm_type_free(&g_layout);
  TEST_MAIN_END();
}
