/*
 * Merge engine tests for the aggregate functions added after the first
 * engine (SEMANTICS §2.3): nested_update, nested_partial_update,
 * merge_map_with_keytime, rbm64 / theta_sketch / hll_sketch wiring, and
 * aggregation inside partial-update sequence groups. Expected values follow
 * the Java classes named in each test (apache/paimon paimon-core
 * mergetree/compact/...). Java emits maps and keyed nested rows in HashMap
 * order, so those are compared as sets.
 */
#include <limits.h>

#include <jansson.h>

#include "arrow/builder.h"
#include "support/fixture_compare.h"
#include "harness.h"
#include "table/agg_sketch.h"
#include "table/merge.h"
#include "table/read.h"
#include "table/scan.h"
#include "table/table.h"

#define NUL INT_MIN /* a null INT in the record tables below */

/* ---------------------------------------------------------------------
 * Nested layout: k INT, nu ARRAY<ROW<id INT, v STRING, s INT>>,
 * mk MAP<STRING, ROW<val INT, ts STRING>>, _SEQ BIGINT, _KIND TINYINT
 * --------------------------------------------------------------------- */
enum { N_K, N_NU, N_MK, N_SEQ, N_KIND, N_NCOLS };

static pm_type g_nl;

static void make_nested_layout(void) {
  pm_error err;
  pm_type *t = &g_nl;
  pm_type_init(t, PM_T_STRUCT, "", 0, N_NCOLS, &err);
  pm_type_init(&t->children[N_K], PM_T_INT32, "k", 0, 0, &err);
  pm_type_init(&t->children[N_NU], PM_T_LIST, "nu", 1, 1, &err);
  pm_type *row = &t->children[N_NU].children[0];
  pm_type_init(row, PM_T_STRUCT, "element", 1, 3, &err);
  pm_type_init(&row->children[0], PM_T_INT32, "id", 1, 0, &err);
  pm_type_init(&row->children[1], PM_T_UTF8, "v", 1, 0, &err);
  pm_type_init(&row->children[2], PM_T_INT32, "s", 1, 0, &err);
  pm_type_init(&t->children[N_MK], PM_T_MAP, "mk", 1, 1, &err);
  pm_type *ent = &t->children[N_MK].children[0];
  pm_type_init(ent, PM_T_STRUCT, "entries", 0, 2, &err);
  pm_type_init(&ent->children[0], PM_T_UTF8, "key", 0, 0, &err);
  pm_type_init(&ent->children[1], PM_T_STRUCT, "value", 1, 2, &err);
  pm_type_init(&ent->children[1].children[0], PM_T_INT32, "val", 1, 0, &err);
  pm_type_init(&ent->children[1].children[1], PM_T_UTF8, "ts", 1, 0, &err);
  pm_type_init(&t->children[N_SEQ], PM_T_INT64, "_SEQUENCE_NUMBER", 0, 0, &err);
  pm_type_init(&t->children[N_KIND], PM_T_INT8, "_VALUE_KIND", 0, 0, &err);
}

typedef struct nrow {
  int id;        /* NUL = null; id == -1000: the element itself is null */
  const char *v; /* NULL = null */
  int s;
} nrow;

typedef struct mentry {
  const char *key;
  int val;        /* val == -1000: the map value is null */
  const char *ts; /* NULL = null */
} mentry;

typedef struct nrec {
  int nu_null;
  int n_nu;
  nrow nu[4];
  int mk_null;
  int n_mk;
  mentry mk[3];
  long long seq;
  int kind;
} nrec;

static void append_int_or_null(pm_builder *b, int v, pm_error *err) {
  if (v == NUL) pm_builder_append_null(b, err);
  else pm_builder_append_int(b, v, err);
}

static void append_str_or_null(pm_builder *b, const char *v, pm_error *err) {
  if (!v) pm_builder_append_null(b, err);
  else pm_builder_append_str(b, v, err);
}

/* One record of key 1 as a one-row batch. */
static void make_nested_batch(const nrec *r, struct ArrowArray *out) {
  pm_error err;
  pm_builder *b;
  pm_builder_new(&g_nl, &b, &err);
  pm_builder_append_int(pm_builder_child(b, N_K), 1, &err);
  pm_builder *l = pm_builder_child(b, N_NU), *row = pm_builder_child(l, 0);
  if (r->nu_null) {
    pm_builder_append_null(l, &err);
  } else {
    for (int i = 0; i < r->n_nu; i++) {
      const nrow *e = &r->nu[i];
      if (e->id == -1000) {
        pm_builder_append_null(row, &err);
        continue;
      }
      append_int_or_null(pm_builder_child(row, 0), e->id, &err);
      append_str_or_null(pm_builder_child(row, 1), e->v, &err);
      append_int_or_null(pm_builder_child(row, 2), e->s, &err);
      pm_builder_append_valid(row, &err);
    }
    pm_builder_append_valid(l, &err);
  }
  pm_builder *mp = pm_builder_child(b, N_MK), *ent = pm_builder_child(mp, 0);
  if (r->mk_null) {
    pm_builder_append_null(mp, &err);
  } else {
    for (int i = 0; i < r->n_mk; i++) {
      const mentry *e = &r->mk[i];
      pm_builder_append_str(pm_builder_child(ent, 0), e->key, &err);
      pm_builder *val = pm_builder_child(ent, 1);
      if (e->val == -1000) {
        pm_builder_append_null(val, &err);
      } else {
        append_int_or_null(pm_builder_child(val, 0), e->val, &err);
        append_str_or_null(pm_builder_child(val, 1), e->ts, &err);
        pm_builder_append_valid(val, &err);
      }
      pm_builder_append_valid(ent, &err);
    }
    pm_builder_append_valid(mp, &err);
  }
  pm_builder_append_int(pm_builder_child(b, N_SEQ), r->seq, &err);
  pm_builder_append_int(pm_builder_child(b, N_KIND), r->kind, &err);
  pm_builder_append_valid(b, &err);
  CHECK_OK(pm_builder_finish(b, out, &err), &err);
  pm_builder_free(b);
}

/* A run yielding one record. */
static int one_next(void *ctx, struct ArrowArray *out, pm_error *err) {
  (void)err;
  const nrec **slot = ctx;
  memset(out, 0, sizeof *out);
  if (!*slot) return 0;
  make_nested_batch(*slot, out);
  *slot = NULL;
  return 0;
}

static const int NKEYS[1] = {N_K};

static void nested_config(pm_merge_config *cfg, pm_merge_column *cols) {
  memset(cfg, 0, sizeof *cfg);
  memset(cols, 0, sizeof(pm_merge_column) * N_NCOLS);
  cfg->layout = &g_nl;
  cfg->n_keys = 1;
  cfg->key_cols = NKEYS;
  cfg->seq_col = N_SEQ;
  cfg->kind_col = N_KIND;
  cfg->level_col = -1;
  cfg->engine = PM_ENGINE_AGGREGATION;
  cfg->columns = cols;
  cols[N_NU].agg = PM_AGG_LAST_VALUE;
  cols[N_MK].agg = PM_AGG_LAST_VALUE;
}

/* Merges records (one run each, key 1). Returns the status; *out holds the one-row result (released if none). */
static int merge_records(const pm_merge_config *cfg, const nrec *const *recs, int n, struct ArrowArray *out,
                         pm_error *err) {
  const nrec *slots[8];
  pm_merge_source src[8];
  for (int i = 0; i < n; i++) {
    slots[i] = recs[i];
    src[i].ctx = &slots[i];
    src[i].next = one_next;
    src[i].close = NULL;
  }
  memset(out, 0, sizeof *out);
  pm_merge_reader *m;
  int rc = pm_merge_open(cfg, src, n, &m, err);
  if (rc) return rc;
  rc = pm_merge_next(m, out, err);
  if (!rc && out->release && out->length != 1) {
    out->release(out);
    rc = pm_errorf(err, PAIMON_ERR_INTERNAL, "expected one merged row");
  }
  pm_merge_close(m);
  return rc;
}

/* The nu value of row 0 as text "id:v:s;..." (null fields as "-"), or "NULL". */
static void nu_text(const struct ArrowArray *o, char *buf, size_t cap) {
  const struct ArrowArray *l = o->children[N_NU];
  if (!pm_array_is_valid(l, 0)) {
    snprintf(buf, cap, "NULL");
    return;
  }
  const int32_t *off = (const int32_t *)l->buffers[1] + l->offset;
  const struct ArrowArray *row = l->children[0];
  size_t pos = 0;
  buf[0] = 0;
  for (int32_t e = off[0]; e < off[1] && pos < cap; e++) {
    if (!pm_array_is_valid(row, e)) {
      pos += (size_t)snprintf(buf + pos, cap - pos, "null;");
      continue;
    }
    const struct ArrowArray *id = row->children[0], *v = row->children[1], *s = row->children[2];
    int64_t j = row->offset + e;
    char ids[16] = "-", ss[16] = "-", vs[32] = "-";
    if (pm_array_is_valid(id, j)) snprintf(ids, sizeof ids, "%d", ((const int32_t *)id->buffers[1])[id->offset + j]);
    if (pm_array_is_valid(s, j)) snprintf(ss, sizeof ss, "%d", ((const int32_t *)s->buffers[1])[s->offset + j]);
    if (pm_array_is_valid(v, j)) {
      const int32_t *vo = (const int32_t *)v->buffers[1] + v->offset;
      snprintf(vs, sizeof vs, "%.*s", (int)(vo[j + 1] - vo[j]), (const char *)v->buffers[2] + vo[j]);
    }
    pos += (size_t)snprintf(buf + pos, cap - pos, "%s:%s:%s;", ids, vs, ss);
  }
}

/* Whether text "a;b;c;" holds the same items as expected "x;y;" in any order. */
static int same_items(const char *got, const char *want) {
  char g[512], w[512];
  snprintf(g, sizeof g, "%s", got);
  snprintf(w, sizeof w, "%s", want);
  int n_g = 0, n_w = 0;
  for (const char *p = g; *p; p++) n_g += *p == ';';
  for (const char *p = w; *p; p++) n_w += *p == ';';
  if (n_g != n_w) return 0;
  char *save = NULL;
  for (char *tok = strtok_r(w, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
    char item[64];
    snprintf(item, sizeof item, "%s;", tok);
    char *hit = NULL;
    for (char *p = g; (p = strstr(p, item)) != NULL; p++)
      if (p == g || p[-1] == ';') {
        hit = p;
        break;
      }
    if (!hit) return 0;
    memset(hit, '#', strlen(item) - 1); /* used */
  }
  return 1;
}

static void check_nu(const pm_merge_config *cfg, const nrec *const *recs, int n, const char *want, int ordered) {
  pm_error err;
  struct ArrowArray o;
  int rc = merge_records(cfg, recs, n, &o, &err);
  CHECK_OK(rc, &err);
  if (rc || !o.release) {
    CHECK(o.release != NULL);
    return;
  }
  char got[512];
  nu_text(&o, got, sizeof got);
  if (ordered) CHECK_EQ_STR(got, want);
  else CHECK_MSG(same_items(got, want), "got \"%s\", want \"%s\" (any order)", got, want);
  o.release(&o);
}

/* FieldNestedUpdateAgg with fields.nu.nested-key = id. */
static void test_nested_update_keyed(void) {
  make_nested_layout();
  pm_merge_config cfg;
  pm_merge_column cols[N_NCOLS];
  nested_config(&cfg, cols);
  cols[N_NU].agg = PM_AGG_NESTED_UPDATE;
  cols[N_NU].n_nested_keys = 1;
  cols[N_NU].nested_keys[0] = 0;
  static const nrec r1 = {0, 2, {{1, "a", 1}, {2, "b", 1}}, 1, 0, {{0}}, 0, PM_ROWKIND_INSERT};
  static const nrec r2 = {0, 2, {{2, "B", 0}, {3, "c", 1}}, 1, 0, {{0}}, 1, PM_ROWKIND_INSERT};
  static const nrec rnull = {1, 0, {{0}}, 1, 0, {{0}}, 2, PM_ROWKIND_INSERT};
  const nrec *two[2] = {&r1, &r2};
  /* agg: rows of the input replace accumulator rows with an equal key; new keys appended */
  check_nu(&cfg, two, 2, "1:a:1;2:B:0;3:c:1;", 0);
  /* a null input leaves the accumulator: agg(acc, null) = acc */
  const nrec *three[3] = {&r1, &r2, &rnull};
  check_nu(&cfg, three, 3, "1:a:1;2:B:0;3:c:1;", 0);
  /* nested-sequence-field s: an equal key is replaced only when the new sequence is >= the old (0 < 1: kept) */
  cols[N_NU].n_nested_seq = 1;
  cols[N_NU].nested_seq[0] = 2;
  check_nu(&cfg, two, 2, "1:a:1;2:b:1;3:c:1;", 0);
  cols[N_NU].n_nested_seq = 0;
  /* count-limit 2: the accumulator's rows are kept, new input keys only while the map holds fewer than 2 */
  cols[N_NU].count_limit_set = 1;
  cols[N_NU].count_limit = 2;
  check_nu(&cfg, two, 2, "1:a:1;2:B:0;", 0);
  cols[N_NU].count_limit_set = 0;
  /* retract: rows whose nested key equals a retracted row's key are removed (other fields ignored) */
  static const nrec r3 = {0, 1, {{1, "zzz", 9}}, 1, 0, {{0}}, 2, PM_ROWKIND_UPDATE_BEFORE};
  const nrec *ret[3] = {&r1, &r2, &r3};
  check_nu(&cfg, ret, 3, "2:B:0;3:c:1;", 0);
  /* nested-key-null-strategy: merge keeps null-key rows (null keys equal), ignore drops them, error fails */
  static const nrec rn = {0, 2, {{NUL, "n", 1}, {NUL, "m", 2}}, 1, 0, {{0}}, 1, PM_ROWKIND_INSERT};
  const nrec *withnull[2] = {&r1, &rn};
  check_nu(&cfg, withnull, 2, "1:a:1;2:b:1;-:m:2;", 0);
  cols[N_NU].nested_key_null = PM_NESTED_KEY_NULL_IGNORE;
  check_nu(&cfg, withnull, 2, "1:a:1;2:b:1;", 0);
  cols[N_NU].nested_key_null = PM_NESTED_KEY_NULL_ERROR;
  pm_error err;
  struct ArrowArray o;
  CHECK_EQ_INT(merge_records(&cfg, withnull, 2, &o, &err), PAIMON_ERR_INVALID_ARGUMENT);
  if (o.release) o.release(&o);
  pm_type_free(&g_nl);
}

/* FieldNestedUpdateAgg without nested-key: rows are appended; count-limit caps; retract removes every equal row. */
static void test_nested_update_keyless(void) {
  make_nested_layout();
  pm_merge_config cfg;
  pm_merge_column cols[N_NCOLS];
  nested_config(&cfg, cols);
  cols[N_NU].agg = PM_AGG_NESTED_UPDATE;
  static const nrec r1 = {0, 2, {{1, "a", 1}, {2, "b", 1}}, 1, 0, {{0}}, 0, PM_ROWKIND_INSERT};
  static const nrec r2 = {0, 3, {{1, "a", 1}, {-1000, NULL, 0}, {3, "c", 1}}, 1, 0, {{0}}, 1, PM_ROWKIND_INSERT};
  const nrec *two[2] = {&r1, &r2};
  /* null elements of the input are dropped (addNonNullRows) */
  check_nu(&cfg, two, 2, "1:a:1;2:b:1;1:a:1;3:c:1;", 1);
  cols[N_NU].count_limit_set = 1;
  cols[N_NU].count_limit = 3; /* remaining room = 3 - acc.size() */
  check_nu(&cfg, two, 2, "1:a:1;2:b:1;1:a:1;", 1);
  cols[N_NU].count_limit = 2; /* acc.size() >= limit: accumulator unchanged */
  check_nu(&cfg, two, 2, "1:a:1;2:b:1;", 1);
  cols[N_NU].count_limit_set = 0;
  static const nrec r3 = {0, 1, {{1, "a", 1}}, 1, 0, {{0}}, 2, PM_ROWKIND_DELETE};
  const nrec *ret[3] = {&r1, &r2, &r3};
  check_nu(&cfg, ret, 3, "2:b:1;3:c:1;", 1);
  pm_type_free(&g_nl);
}

/* FieldNestedPartialUpdateAgg: rows with an equal nested key are merged by non-null overlay; no retraction. */
static void test_nested_partial_update(void) {
  make_nested_layout();
  pm_merge_config cfg;
  pm_merge_column cols[N_NCOLS];
  nested_config(&cfg, cols);
  cols[N_NU].agg = PM_AGG_NESTED_PARTIAL_UPDATE;
  cols[N_NU].n_nested_keys = 1;
  cols[N_NU].nested_keys[0] = 0;
  static const nrec r1 = {0, 2, {{1, "a", NUL}, {2, NULL, 7}}, 1, 0, {{0}}, 0, PM_ROWKIND_INSERT};
  static const nrec r2 = {0, 3, {{1, NULL, 5}, {3, "c", NUL}, {2, "b", NUL}}, 1, 0, {{0}}, 1, PM_ROWKIND_INSERT};
  static const nrec r3 = {0, 2, {{1, "A", NUL}, {-1000, NULL, 0}}, 1, 0, {{0}}, 2, PM_ROWKIND_INSERT};
  const nrec *recs[3] = {&r1, &r2, &r3};
  check_nu(&cfg, recs, 3, "1:A:5;2:b:7;3:c:-;", 0);
  /* retraction is not supported (FieldAggregator.retract throws) unless ignore-retract */
  static const nrec r4 = {0, 1, {{1, "A", NUL}}, 1, 0, {{0}}, 3, PM_ROWKIND_UPDATE_BEFORE};
  const nrec *ret[4] = {&r1, &r2, &r3, &r4};
  pm_error err;
  struct ArrowArray o;
  CHECK_EQ_INT(merge_records(&cfg, ret, 4, &o, &err), PAIMON_ERR_INVALID_ARGUMENT);
  if (o.release) o.release(&o);
  cols[N_NU].ignore_retract = 1;
  check_nu(&cfg, ret, 4, "1:A:5;2:b:7;3:c:-;", 0);
  /* a nested-key is required (FieldNestedPartialUpdateAggFactory) */
  cols[N_NU].n_nested_keys = 0;
  const nrec *two[2] = {&r1, &r2};
  CHECK_EQ_INT(merge_records(&cfg, two, 2, &o, &err), PAIMON_ERR_INVALID_ARGUMENT);
  pm_type_free(&g_nl);
}

/* The mk value of row 0 as "key=val@ts;" items (null value "key=null;"). */
static void mk_text(const struct ArrowArray *o, char *buf, size_t cap) {
  const struct ArrowArray *mp = o->children[N_MK];
  if (!pm_array_is_valid(mp, 0)) {
    snprintf(buf, cap, "NULL");
    return;
  }
  const int32_t *off = (const int32_t *)mp->buffers[1] + mp->offset;
  const struct ArrowArray *ent = mp->children[0], *keys = ent->children[0], *vals = ent->children[1];
  size_t pos = 0;
  buf[0] = 0;
  for (int32_t e = off[0]; e < off[1] && pos < cap; e++) {
    int64_t j = ent->offset + e;
    const int32_t *ko = (const int32_t *)keys->buffers[1] + keys->offset;
    pos += (size_t)snprintf(buf + pos, cap - pos, "%.*s=", (int)(ko[j + 1] - ko[j]), (const char *)keys->buffers[2] + ko[j]);
    if (!pm_array_is_valid(vals, j)) {
      pos += (size_t)snprintf(buf + pos, cap - pos, "null;");
      continue;
    }
    const struct ArrowArray *v = vals->children[0], *ts = vals->children[1];
    int64_t q = vals->offset + j;
    int val = ((const int32_t *)v->buffers[1])[v->offset + q];
    if (pm_array_is_valid(ts, q)) {
      const int32_t *to = (const int32_t *)ts->buffers[1] + ts->offset;
      pos += (size_t)snprintf(buf + pos, cap - pos, "%d@%.*s;", val, (int)(to[q + 1] - to[q]),
                              (const char *)ts->buffers[2] + to[q]);
    } else {
      pos += (size_t)snprintf(buf + pos, cap - pos, "%d@-;", val);
    }
  }
}

/* FieldMergeMapWithKeyTimeAgg: per key the entry with the greater timestamp string wins; a null value removes
 * the key; an input entry with a null timestamp is skipped; agg(null, x) = x unchanged; no retraction. */
static void test_merge_map_with_keytime(void) {
  make_nested_layout();
  pm_merge_config cfg;
  pm_merge_column cols[N_NCOLS];
  nested_config(&cfg, cols);
  cols[N_MK].agg = PM_AGG_MERGE_MAP_WITH_KEYTIME;
  cols[N_MK].ts_field = -1; /* default: the ROW's last field */
  static const nrec r1 = {1, 0, {{0}}, 0, 3, {{"x", 1, "2024-01-02"}, {"y", 2, "2024-01-01"}, {"w", 4, NULL}}, 0, 0};
  static const nrec r2 = {1, 0, {{0}}, 0, 3, {{"x", 10, "2024-01-01"}, {"y", 20, "2024-01-03"}, {"z", 3, NULL}}, 1, 0};
  static const nrec r3 = {1, 0, {{0}}, 0, 2, {{"x", -1000, NULL}, {"w", 5, "2000"}}, 2, 0};
  const nrec *recs[3] = {&r1, &r2, &r3};
  pm_error err;
  struct ArrowArray o;
  char got[256];
  /* x: older ts kept; y: newer wins; z: null ts skipped; then x removed by a null value; w: existing null ts replaced */
  CHECK_OK(merge_records(&cfg, recs, 3, &o, &err), &err);
  if (o.release) {
    mk_text(&o, got, sizeof got);
    CHECK_MSG(same_items(got, "y=20@2024-01-03;w=5@2000;"), "got %s", got);
    o.release(&o);
  }
  /* ts-field = val is not a STRING (Java reads it with getString): rejected */
  cols[N_MK].ts_field = 0;
  CHECK_EQ_INT(merge_records(&cfg, recs, 3, &o, &err), PAIMON_ERR_INVALID_ARGUMENT);
  cols[N_MK].ts_field = 1;
  /* no retraction */
  static const nrec r4 = {1, 0, {{0}}, 0, 1, {{"y", 1, "9"}}, 3, PM_ROWKIND_UPDATE_BEFORE};
  const nrec *ret[2] = {&r1, &r4};
  CHECK_EQ_INT(merge_records(&cfg, ret, 2, &o, &err), PAIMON_ERR_INVALID_ARGUMENT);
  if (o.release) o.release(&o);
  pm_type_free(&g_nl);
}

/* ---------------------------------------------------------------------
 * Binary layout: k INT, b VARBINARY, _SEQ, _KIND (sketch functions)
 * --------------------------------------------------------------------- */
static pm_type g_bl;

typedef struct brec {
  const char *b; /* NULL = null */
  size_t n;
  long long seq;
} brec;

static int bin_next(void *ctx, struct ArrowArray *out, pm_error *err) {
  const brec **slot = ctx;
  memset(out, 0, sizeof *out);
  if (!*slot) return 0;
  pm_builder *b;
  pm_builder_new(&g_bl, &b, err);
  pm_builder_append_int(pm_builder_child(b, 0), 1, err);
  if ((*slot)->b) pm_builder_append_bytes(pm_builder_child(b, 1), (*slot)->b, (*slot)->n, err);
  else pm_builder_append_null(pm_builder_child(b, 1), err);
  pm_builder_append_int(pm_builder_child(b, 2), (*slot)->seq, err);
  pm_builder_append_int(pm_builder_child(b, 3), 0, err);
  pm_builder_append_valid(b, err);
  int rc = pm_builder_finish(b, out, err);
  pm_builder_free(b);
  *slot = NULL;
  return rc;
}

/* Merges two records; returns status, the result bytes in *res (null: res->len = SIZE_MAX). */
static int merge_bin(pm_agg_func f, const brec *a, const brec *b, pm_buf *res, pm_error *err) {
  static const int keys[1] = {0};
  pm_merge_column cols[4] = {{0}};
  cols[1].agg = f;
  pm_merge_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.layout = &g_bl;
  cfg.n_keys = 1;
  cfg.key_cols = keys;
  cfg.seq_col = 2;
  cfg.kind_col = 3;
  cfg.level_col = -1;
  cfg.engine = PM_ENGINE_AGGREGATION;
  cfg.columns = cols;
  const brec *sa = a, *sb = b;
  pm_merge_source src[2] = {{&sa, bin_next, NULL}, {&sb, bin_next, NULL}};
  pm_merge_reader *m;
  PM_TRY(pm_merge_open(&cfg, src, 2, &m, err));
  struct ArrowArray o;
  int rc = pm_merge_next(m, &o, err);
  res->len = 0;
  if (!rc && o.release && o.length == 1) {
    const struct ArrowArray *col = o.children[1];
    if (!pm_array_is_valid(col, 0)) {
      res->len = SIZE_MAX;
    } else {
      const int32_t *off = (const int32_t *)col->buffers[1] + col->offset;
      pm_buf_append(res, (const uint8_t *)col->buffers[2] + off[0], (size_t)(off[1] - off[0]));
    }
  } else if (!rc) {
    rc = pm_errorf(err, PAIMON_ERR_INTERNAL, "no merged row");
  }
  if (o.release) o.release(&o);
  pm_merge_close(m);
  return rc;
}

/* FieldRoaringBitmap64Agg / FieldThetaSketchAgg / FieldHllSketchAgg: agg(null, x) = x and agg(x, null) = x
 * without calling the sketch code; two values are merged with (accumulator, input) in that order. */
static void test_sketch_wiring(void) {
  pm_error err;
  pm_type_init(&g_bl, PM_T_STRUCT, "", 0, 4, &err);
  pm_type_init(&g_bl.children[0], PM_T_INT32, "k", 0, 0, &err);
  pm_type_init(&g_bl.children[1], PM_T_BINARY, "b", 1, 0, &err);
  pm_type_init(&g_bl.children[2], PM_T_INT64, "_SEQUENCE_NUMBER", 0, 0, &err);
  pm_type_init(&g_bl.children[3], PM_T_INT8, "_VALUE_KIND", 0, 0, &err);
  static const pm_agg_func fs[3] = {PM_AGG_RBM64, PM_AGG_THETA_SKETCH, PM_AGG_HLL_SKETCH};
  int (*direct[3])(const uint8_t *, size_t, const uint8_t *, size_t, pm_buf *, pm_error *) = {
      pm_agg_rbm64_merge, pm_agg_theta_merge, pm_agg_hll_merge};
  brec nul = {NULL, 0, 0}, x = {"\x01\x02\x03", 3, 1}, y = {"\x04\x05", 2, 2};
  for (int k = 0; k < 3; k++) {
    pm_buf res;
    pm_buf_init(&res);
    CHECK_OK(merge_bin(fs[k], &nul, &x, &res, &err), &err);
    CHECK(res.len == 3 && !memcmp(res.data, "\x01\x02\x03", 3));
    brec x0 = x, n1 = nul;
    x0.seq = 0;
    n1.seq = 1;
    CHECK_OK(merge_bin(fs[k], &x0, &n1, &res, &err), &err);
    CHECK(res.len == 3 && !memcmp(res.data, "\x01\x02\x03", 3));
    brec n0 = nul, n2 = nul;
    n2.seq = 1;
    CHECK_OK(merge_bin(fs[k], &n0, &n2, &res, &err), &err);
    CHECK(res.len == SIZE_MAX);
    /* both non-null: exactly what the sketch function returns for (older, newer) */
    pm_buf want;
    pm_buf_init(&want);
    pm_error e2;
    int drc = direct[k]((const uint8_t *)x.b, x.n, (const uint8_t *)y.b, y.n, &want, &e2);
    int mrc = merge_bin(fs[k], &x, &y, &res, &err);
    CHECK_EQ_INT(mrc, drc);
    if (!drc && !mrc) CHECK(res.len == want.len && (!want.len || !memcmp(res.data, want.data, want.len)));
    pm_buf_free(&want);
    pm_buf_free(&res);
  }
  /* two valid rbm64 values (Roaring64Bitmap legacy serialization of {5} and {9}, the layout
   * test_agg_sketch.c derives): the merge succeeds and equals the direct (older, newer) merge */
  uint8_t r5[64], r9[64];
  size_t rn = 0;
  for (int v = 0; v < 2; v++) {
    uint8_t *d = v ? r9 : r5;
    size_t n = 0;
    const uint64_t val = v ? 9 : 5;
#define PUT_LE(x, w) for (int q_ = 0; q_ < (w); q_++) d[n++] = (uint8_t)((uint64_t)(x) >> (8 * q_))
    PUT_LE(1, 1); /* not empty */
    PUT_LE(1, 8); /* keySize */
    PUT_LE(4, 1); /* leaf */
    PUT_LE(0, 2); /* count */
    PUT_LE(0, 1); /* prefix length */
    for (int q = 5; q >= 0; q--) d[n++] = (uint8_t)((val >> 16) >> (8 * q)); /* high 48 bits, big-endian */
    PUT_LE(0, 8);    /* container index */
    PUT_LE(1, 4);    /* one first level */
    PUT_LE(0xFE, 1); /* not trimmed */
    PUT_LE(1, 4);    /* capacity 1 */
    PUT_LE(1, 1);    /* present */
    PUT_LE(2, 1);    /* array */
    PUT_LE(1, 4);    /* cardinality */
    PUT_LE(val & 0xFFFF, 2);
    PUT_LE(1, 8); /* containerSize */
    PUT_LE(0, 4); /* firstLevelIdx */
    PUT_LE(0, 4); /* secondLevelIdx */
#undef PUT_LE
    rn = n;
  }
  brec b5 = {(const char *)r5, rn, 0}, b9 = {(const char *)r9, rn, 1};
  pm_buf res, want;
  pm_buf_init(&res);
  pm_buf_init(&want);
  CHECK_OK(pm_agg_rbm64_merge(r5, rn, r9, rn, &want, &err), &err);
  CHECK_OK(merge_bin(PM_AGG_RBM64, &b5, &b9, &res, &err), &err);
  CHECK(res.len == want.len && want.len > rn && !memcmp(res.data, want.data, want.len));
  pm_buf_free(&res);
  pm_buf_free(&want);
  pm_type_free(&g_bl);
}

/* ---------------------------------------------------------------------
 * Partial update with sequence groups and aggregation:
 * k INT, g1 INT, a INT (sum, group g1), b STRING (group g1), g2 INT,
 * c INT (max, group g2), x INT (no group), _SEQ, _KIND
 * --------------------------------------------------------------------- */
enum { P_K, P_G1, P_A, P_B, P_G2, P_C, P_X, P_SEQ, P_KIND, P_NCOLS };
static pm_type g_pl;

typedef struct prec {
  int g1, a;
  const char *b;
  int g2, c, x;
  long long seq;
  int kind;
} prec;

static int pu_next(void *ctx, struct ArrowArray *out, pm_error *err) {
  const prec **slot = ctx;
  memset(out, 0, sizeof *out);
  if (!*slot) return 0;
  const prec *r = *slot;
  pm_builder *b;
  pm_builder_new(&g_pl, &b, err);
  pm_builder_append_int(pm_builder_child(b, P_K), 1, err);
  append_int_or_null(pm_builder_child(b, P_G1), r->g1, err);
  append_int_or_null(pm_builder_child(b, P_A), r->a, err);
  append_str_or_null(pm_builder_child(b, P_B), r->b, err);
  append_int_or_null(pm_builder_child(b, P_G2), r->g2, err);
  append_int_or_null(pm_builder_child(b, P_C), r->c, err);
  append_int_or_null(pm_builder_child(b, P_X), r->x, err);
  pm_builder_append_int(pm_builder_child(b, P_SEQ), r->seq, err);
  pm_builder_append_int(pm_builder_child(b, P_KIND), r->kind, err);
  pm_builder_append_valid(b, err);
  int rc = pm_builder_finish(b, out, err);
  pm_builder_free(b);
  *slot = NULL;
  return rc;
}

typedef struct pout {
  int g1, a, g2, c, x;
  char b[16];
  long long seq;
  int kind;
} pout;

static int int_at(const struct ArrowArray *a, int col) {
  const struct ArrowArray *c = a->children[col];
  return pm_array_is_valid(c, 0) ? ((const int32_t *)c->buffers[1])[c->offset] : NUL;
}

static const int PKEYS[1] = {P_K};
static const int G1_ORDER[1] = {P_G1}, G1_PROT[2] = {P_A, P_B};
static const int G2_ORDER[1] = {P_G2}, G2_PROT[1] = {P_C};

static void pu_config(pm_merge_config *cfg, pm_merge_column *cols, pm_seq_group *groups) {
  memset(cfg, 0, sizeof *cfg);
  memset(cols, 0, sizeof(pm_merge_column) * P_NCOLS);
  groups[0] = (pm_seq_group){1, G1_ORDER, 2, G1_PROT, 0};
  groups[1] = (pm_seq_group){1, G2_ORDER, 1, G2_PROT, 0};
  cfg->layout = &g_pl;
  cfg->n_keys = 1;
  cfg->key_cols = PKEYS;
  cfg->seq_col = P_SEQ;
  cfg->kind_col = P_KIND;
  cfg->level_col = -1;
  cfg->engine = PM_ENGINE_PARTIAL_UPDATE;
  cfg->columns = cols;
  cfg->n_seq_groups = 2;
  cfg->seq_groups = groups;
  cols[P_A].agg = PM_AGG_SUM;
  cols[P_C].agg = PM_AGG_MAX;
}

/* Returns the status; *n_out = 0 when the key's result is dropped. */
static int pu_merge(const pm_merge_config *cfg, const prec *const *recs, int n, pout *o, int *n_out, pm_error *err) {
  const prec *slots[8];
  pm_merge_source src[8];
  for (int i = 0; i < n; i++) {
    slots[i] = recs[i];
    src[i] = (pm_merge_source){&slots[i], pu_next, NULL};
  }
  *n_out = 0;
  pm_merge_reader *m;
  PM_TRY(pm_merge_open(cfg, src, n, &m, err));
  struct ArrowArray a;
  int rc = pm_merge_next(m, &a, err);
  if (!rc && a.release && a.length == 1) {
    *n_out = 1;
    o->g1 = int_at(&a, P_G1);
    o->a = int_at(&a, P_A);
    o->g2 = int_at(&a, P_G2);
    o->c = int_at(&a, P_C);
    o->x = int_at(&a, P_X);
    const struct ArrowArray *bc = a.children[P_B];
    if (pm_array_is_valid(bc, 0)) {
      const int32_t *off = (const int32_t *)bc->buffers[1] + bc->offset;
      snprintf(o->b, sizeof o->b, "%.*s", (int)(off[1] - off[0]), (const char *)bc->buffers[2] + off[0]);
    } else {
      snprintf(o->b, sizeof o->b, "NULL");
    }
    o->seq = ((const int64_t *)a.children[P_SEQ]->buffers[1])[a.children[P_SEQ]->offset];
    o->kind = ((const int8_t *)a.children[P_KIND]->buffers[1])[a.children[P_KIND]->offset];
  }
  if (a.release) a.release(&a);
  pm_merge_close(m);
  return rc;
}

/* PartialUpdateMergeFunction.updateWithSequenceGroup / retractWithSequenceGroup with aggregators. */
static void test_partial_update_group_aggregation(void) {
  pm_error err;
  pm_type_init(&g_pl, PM_T_STRUCT, "", 0, P_NCOLS, &err);
  static const char *names[P_NCOLS] = {"k", "g1", "a", "b", "g2", "c", "x", "_SEQUENCE_NUMBER", "_VALUE_KIND"};
  for (int c = 0; c < P_NCOLS; c++)
    pm_type_init(&g_pl.children[c], c == P_B ? PM_T_UTF8 : c == P_SEQ ? PM_T_INT64 : c == P_KIND ? PM_T_INT8 : PM_T_INT32,
                 names[c], c != P_K && c != P_SEQ && c != P_KIND, 0, &err);
  pm_merge_config cfg;
  pm_merge_column cols[P_NCOLS];
  pm_seq_group groups[2];
  pu_config(&cfg, cols, groups);
  static const prec r1 = {1, 10, "p", 1, 5, 100, 0, PM_ROWKIND_INSERT};
  static const prec r2 = {3, 1, "q", NUL, 99, NUL, 1, PM_ROWKIND_INSERT};
  static const prec r3 = {2, 5, "r", 2, 3, 7, 2, PM_ROWKIND_INSERT};
  const prec *adds[3] = {&r1, &r2, &r3};
  pout o;
  int n;
  /* g1: r2 newer -> a = sum(10, 1), b = q; r3 older (2 < 3) -> a = aggReversed = 16, b and g1 unchanged.
   * g2: r2's ordering value is null -> group skipped (c = 99 ignored); r3 newer -> c = max(5, 3).
   * x (no group): non-null overlay. */
  CHECK_OK(pu_merge(&cfg, adds, 3, &o, &n, &err), &err);
  CHECK_EQ_INT(n, 1);
  if (n) {
    CHECK_EQ_INT(o.g1, 3);
    CHECK_EQ_INT(o.a, 16);
    CHECK_EQ_STR(o.b, "q");
    CHECK_EQ_INT(o.g2, 2);
    CHECK_EQ_INT(o.c, 5);
    CHECK_EQ_INT(o.x, 7);
    CHECK_EQ_INT(o.seq, 2);
    CHECK_EQ_INT(o.kind, PM_ROWKIND_INSERT);
  }
  /* -U newer in g1: ordering copied, a = retract(sum) = 16 - 6, b (no aggregator) = null; g2 empty: skipped;
   * x untouched. currentDeleteRow is false, an add was seen: INSERT with the -U's sequence number. */
  static const prec r4 = {4, 6, "zz", NUL, 1, 1, 3, PM_ROWKIND_UPDATE_BEFORE};
  const prec *ret[4] = {&r1, &r2, &r3, &r4};
  CHECK_OK(pu_merge(&cfg, ret, 4, &o, &n, &err), &err);
  CHECK_EQ_INT(n, 1);
  if (n) {
    CHECK_EQ_INT(o.g1, 4);
    CHECK_EQ_INT(o.a, 10);
    CHECK_EQ_STR(o.b, "NULL");
    CHECK_EQ_INT(o.c, 5);
    CHECK_EQ_INT(o.x, 7);
    CHECK_EQ_INT(o.seq, 3);
    CHECK_EQ_INT(o.kind, PM_ROWKIND_INSERT);
  }
  /* -U older in g1: only aggregated columns retract (a = 16 - 6), b and g1 stay */
  static const prec r5 = {0, 6, "zz", NUL, 1, 1, 3, PM_ROWKIND_UPDATE_BEFORE};
  const prec *ret_old[4] = {&r1, &r2, &r3, &r5};
  CHECK_OK(pu_merge(&cfg, ret_old, 4, &o, &n, &err), &err);
  if (n) {
    CHECK_EQ_INT(o.g1, 3);
    CHECK_EQ_INT(o.a, 10);
    CHECK_EQ_STR(o.b, "q");
  }
  /* a retract reaching max (no retraction) fails, unless ignore-retract */
  static const prec r6 = {NUL, 1, NULL, 9, 4, NUL, 3, PM_ROWKIND_UPDATE_BEFORE};
  const prec *ret_max[4] = {&r1, &r2, &r3, &r6};
  CHECK_EQ_INT(pu_merge(&cfg, ret_max, 4, &o, &n, &err), PAIMON_ERR_INVALID_ARGUMENT);
  cols[P_C].ignore_retract = 1;
  CHECK_OK(pu_merge(&cfg, ret_max, 4, &o, &n, &err), &err);
  if (n) {
    CHECK_EQ_INT(o.g2, 9);
    CHECK_EQ_INT(o.c, 5);
    CHECK_EQ_INT(o.a, 16);
  }
  cols[P_C].ignore_retract = 0;
  /* partial-update.remove-record-on-sequence-group = g1: a newer -D replaces the row and deletes it */
  groups[0].remove_on_delete = 1;
  static const prec r7 = {5, 1, "d", NUL, NUL, NUL, 3, PM_ROWKIND_DELETE};
  const prec *del[4] = {&r1, &r2, &r3, &r7};
  CHECK_OK(pu_merge(&cfg, del, 4, &o, &n, &err), &err);
  CHECK_EQ_INT(n, 0);
  cfg.keep_retracts = 1;
  CHECK_OK(pu_merge(&cfg, del, 4, &o, &n, &err), &err);
  CHECK_EQ_INT(n, 1);
  if (n) {
    CHECK_EQ_INT(o.kind, PM_ROWKIND_DELETE);
    CHECK_EQ_INT(o.a, 1); /* initRow: the -D's values */
    CHECK_EQ_INT(o.x, NUL);
  }
  cfg.keep_retracts = 0;
  groups[0].remove_on_delete = 0;
  /* a first retract initialises the state with its values (notNullColumnFilled), then retracts within groups:
   * r4: g1 4 >= 4 -> a = retract(6, 6) = 0, b = null; r5 (g1 0, older): a = retract(0, 6) = -6, b stays null.
   * The result is DELETE (no add seen). */
  const prec *only_ret[2] = {&r4, &r5};
  cfg.keep_retracts = 1;
  CHECK_OK(pu_merge(&cfg, only_ret, 2, &o, &n, &err), &err);
  CHECK_EQ_INT(n, 1);
  if (n) {
    CHECK_EQ_INT(o.kind, PM_ROWKIND_DELETE);
    CHECK_EQ_INT(o.g1, 4);
    CHECK_EQ_INT(o.a, -6);
    CHECK_EQ_STR(o.b, "NULL");
    CHECK_EQ_INT(o.x, 1);
  }
  cfg.keep_retracts = 0;
  /* aggregate functions other than last_non_null_value need a sequence group (getAggFuncName) */
  cols[P_X].agg = PM_AGG_SUM;
  CHECK_EQ_INT(pu_merge(&cfg, adds, 3, &o, &n, &err), PAIMON_ERR_INVALID_ARGUMENT);
  cols[P_X].agg = PM_AGG_LAST_NON_NULL_VALUE;
  CHECK_OK(pu_merge(&cfg, adds, 3, &o, &n, &err), &err);
  cols[P_X].agg = PM_AGG_NONE;
  /* ordering columns never aggregate (a function on them is ignored) */
  cols[P_G1].agg = PM_AGG_SUM;
  CHECK_OK(pu_merge(&cfg, adds, 3, &o, &n, &err), &err);
  if (n) CHECK_EQ_INT(o.g1, 3);
  cols[P_G1].agg = PM_AGG_NONE;
  /* option conflicts refused by PartialUpdateMergeFunction.Factory */
  cfg.remove_record_on_delete = 1;
  CHECK_EQ_INT(pu_merge(&cfg, adds, 3, &o, &n, &err), PAIMON_ERR_INVALID_ARGUMENT); /* with sequence groups */
  cfg.remove_record_on_delete = 0;
  cfg.ignore_delete = 1;
  groups[1].remove_on_delete = 1;
  CHECK_EQ_INT(pu_merge(&cfg, adds, 3, &o, &n, &err), PAIMON_ERR_INVALID_ARGUMENT);
  groups[1].remove_on_delete = 0;
  CHECK_OK(pu_merge(&cfg, adds, 3, &o, &n, &err), &err);
  cfg.ignore_delete = 0;
  /* aggReversed of first_value: the first call keeps the state, later ones take the input
   * (FieldFirstValueAgg.agg(input, acc) with its per-key initialized flag) */
  cols[P_A].agg = PM_AGG_FIRST_VALUE;
  static const prec f1 = {5, 1, NULL, NUL, NUL, NUL, 0, PM_ROWKIND_INSERT};
  static const prec f2 = {3, 2, NULL, NUL, NUL, NUL, 1, PM_ROWKIND_INSERT};
  static const prec f3 = {4, 3, NULL, NUL, NUL, NUL, 2, PM_ROWKIND_INSERT};
  const prec *fv[3] = {&f1, &f2, &f3};
  CHECK_OK(pu_merge(&cfg, fv, 3, &o, &n, &err), &err);
  if (n) CHECK_EQ_INT(o.a, 3); /* f1: agg -> 1 (initialized); f2 older: agg(2, 1) -> 2; f3 older: -> 3 */
  pm_type_free(&g_pl);
}

/* AggregateMergeFunction.getResult: INSERT unless remove-record-on-delete set the delete flag, even when every
 * input was a retraction (sum retract of null is -x). */
static void test_aggregation_all_retracts(void) {
  pm_error err;
  pm_type_init(&g_pl, PM_T_STRUCT, "", 0, P_NCOLS, &err);
  for (int c = 0; c < P_NCOLS; c++)
    pm_type_init(&g_pl.children[c], c == P_B ? PM_T_UTF8 : c == P_SEQ ? PM_T_INT64 : c == P_KIND ? PM_T_INT8 : PM_T_INT32,
                 c == P_SEQ ? "_SEQUENCE_NUMBER" : "f", 1, 0, &err);
  pm_merge_config cfg;
  pm_merge_column cols[P_NCOLS];
  pm_seq_group groups[2];
  pu_config(&cfg, cols, groups);
  cfg.engine = PM_ENGINE_AGGREGATION;
  cfg.n_seq_groups = 0;
  cols[P_C].agg = PM_AGG_SUM;
  cols[P_B].agg = PM_AGG_LISTAGG;
  static const prec r1 = {NUL, 5, " ", NUL, 1, NUL, 0, PM_ROWKIND_UPDATE_BEFORE};
  static const prec r2 = {NUL, 3, " ", NUL, 2, NUL, 1, PM_ROWKIND_UPDATE_BEFORE};
  const prec *recs[2] = {&r1, &r2};
  pout o;
  int n;
  cols[P_B].ignore_retract = 1;
  CHECK_OK(pu_merge(&cfg, recs, 2, &o, &n, &err), &err);
  CHECK_EQ_INT(n, 1);
  if (n) {
    CHECK_EQ_INT(o.kind, PM_ROWKIND_INSERT);
    CHECK_EQ_INT(o.a, -8);
    CHECK_EQ_INT(o.c, -3);
  }
  /* aggregation.remove-record-on-delete conflicts with ignore-retract (FieldAggregatorFactory.create) */
  cfg.remove_record_on_delete = 1;
  CHECK_EQ_INT(pu_merge(&cfg, recs, 2, &o, &n, &err), PAIMON_ERR_INVALID_ARGUMENT);
  cfg.remove_record_on_delete = 0;
  /* FieldListaggAgg.agg: a blank input leaves the accumulator, also a null one */
  static const prec a1 = {NUL, 1, " ", NUL, 1, NUL, 0, PM_ROWKIND_INSERT};
  static const prec a2 = {NUL, 1, "  ", NUL, 1, NUL, 1, PM_ROWKIND_INSERT};
  static const prec a3 = {NUL, 1, "u", NUL, 1, NUL, 2, PM_ROWKIND_INSERT};
  const prec *blank[2] = {&a1, &a2};
  CHECK_OK(pu_merge(&cfg, blank, 2, &o, &n, &err), &err);
  if (n) CHECK_EQ_STR(o.b, "NULL");
  const prec *blank3[3] = {&a1, &a3, &a2};
  CHECK_OK(pu_merge(&cfg, blank3, 3, &o, &n, &err), &err);
  if (n) CHECK_EQ_STR(o.b, "u");
  pm_type_free(&g_pl);
}

/* pm_merge_column_options: CoreOptions names and the factories' checks. */
typedef struct kv {
  const char *k, *v;
} kv;

static const char *kv_get(void *ctx, const char *key) {
  for (const kv *p = ctx; p->k; p++)
    if (!strcmp(p->k, key)) return p->v;
  return NULL;
}

static void test_column_options(void) {
  make_nested_layout();
  pm_error err;
  pm_merge_column mc;
  const pm_type *nu = &g_nl.children[N_NU], *mk = &g_nl.children[N_MK];
  kv o1[] = {{"fields.nu.nested-key", " id , s"}, {"fields.nu.nested-sequence-field", "v"},
             {"fields.nu.count-limit", "7"}, {"fields.nu.nested-key-null-strategy", "IGNORE"}, {NULL, NULL}};
  memset(&mc, 0, sizeof mc);
  mc.agg = PM_AGG_NESTED_UPDATE;
  CHECK_OK(pm_merge_column_options(&mc, nu, "nu", kv_get, o1, &err), &err);
  CHECK_EQ_INT(mc.n_nested_keys, 2);
  CHECK_EQ_INT(mc.nested_keys[0], 0);
  CHECK_EQ_INT(mc.nested_keys[1], 2);
  CHECK_EQ_INT(mc.n_nested_seq, 1);
  CHECK_EQ_INT(mc.nested_seq[0], 1);
  CHECK_EQ_INT(mc.count_limit_set, 1);
  CHECK_EQ_INT(mc.count_limit, 7);
  CHECK_EQ_INT(mc.nested_key_null, PM_NESTED_KEY_NULL_IGNORE);
  /* nested-sequence-field and nested-key-null-strategy require nested-key (checkOptionDependencies) */
  kv o2[] = {{"fields.nu.nested-sequence-field", "v"}, {NULL, NULL}};
  memset(&mc, 0, sizeof mc);
  mc.agg = PM_AGG_NESTED_UPDATE;
  CHECK_EQ_INT(pm_merge_column_options(&mc, nu, "nu", kv_get, o2, &err), PAIMON_ERR_INVALID_ARGUMENT);
  kv o3[] = {{"fields.nu.nested-key", "nope"}, {NULL, NULL}};
  CHECK_EQ_INT(pm_merge_column_options(&mc, nu, "nu", kv_get, o3, &err), PAIMON_ERR_INVALID_ARGUMENT);
  /* nested_partial_update needs a nested-key; ARRAY<ROW> only */
  kv none[] = {{NULL, NULL}};
  memset(&mc, 0, sizeof mc);
  mc.agg = PM_AGG_NESTED_PARTIAL_UPDATE;
  CHECK_EQ_INT(pm_merge_column_options(&mc, nu, "nu", kv_get, none, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(pm_merge_column_options(&mc, mk, "mk", kv_get, none, &err), PAIMON_ERR_INVALID_ARGUMENT);
  /* merge_map_with_keytime: ts-field by name, default the last field */
  memset(&mc, 0, sizeof mc);
  mc.agg = PM_AGG_MERGE_MAP_WITH_KEYTIME;
  CHECK_OK(pm_merge_column_options(&mc, mk, "mk", kv_get, none, &err), &err);
  CHECK_EQ_INT(mc.ts_field, -1);
  kv o4[] = {{"fields.mk.ts-field", "val"}, {NULL, NULL}};
  CHECK_OK(pm_merge_column_options(&mc, mk, "mk", kv_get, o4, &err), &err);
  CHECK_EQ_INT(mc.ts_field, 0);
  kv o5[] = {{"fields.mk.ts-field", "zz"}, {NULL, NULL}};
  CHECK_EQ_INT(pm_merge_column_options(&mc, mk, "mk", kv_get, o5, &err), PAIMON_ERR_INVALID_ARGUMENT);
  /* function names: Java's factory identifiers; "count" is not one */
  pm_agg_func f;
  CHECK_OK(pm_agg_func_parse("merge_map_with_keytime", &f, &err), &err);
  CHECK_EQ_INT(f, PM_AGG_MERGE_MAP_WITH_KEYTIME);
  CHECK_OK(pm_agg_func_parse("theta_sketch", &f, &err), &err);
  CHECK_EQ_INT(f, PM_AGG_THETA_SKETCH);
  CHECK_EQ_INT(pm_agg_func_parse("count", &f, &err), PAIMON_ERR_INVALID_ARGUMENT);
  pm_type_free(&g_nl);
}

/* ---------------------------------------------------------------------
 * End to end through the table read path: the Java-written partial-update
 * fixture read with dynamic options that add a sequence group with an
 * aggregated column. Its README lists the records:
 *   snapshot 1: +I(0,1,null,false,apple) +I(1,0,2.0,false,null) +I(1,1,null,true,banana)
 *   snapshot 2: +I(0,1,100.0,true,new_apple) -D(1,0,122.0,false,null) +I(1,1,133.3,false,null)
 *               +I(2,1,144.4,true,orange) -D(2,2,122.0,false,null)
 * --------------------------------------------------------------------- */
#define PU_FIXTURE "parquet/pk_table_partial_update.db/pk_table_partial_update"

static json_t *read_fixture(const char *const *opts, int *status, pm_error *err) {
  char root[1024];
  snprintf(root, sizeof root, "%s/%s", PM_SHARED("fixtures/warehouse"), PU_FIXTURE);
  pm_options dyn;
  pm_options_init(&dyn);
  for (int i = 0; opts[i]; i += 2) pm_options_set(&dyn, opts[i], opts[i + 1], err);
  pm_table *t = NULL;
  json_t *rows = json_array();
  *status = pm_table_open_path(root, NULL, NULL, NULL, &dyn, NULL, &t, err);
  pm_options_clear(&dyn);
  pm_plan *plan = NULL;
  if (!*status) *status = pm_scan_plan(t, NULL, -1, &plan, err);
  struct ArrowArrayStream st;
  memset(&st, 0, sizeof st);
  pm_read_options ro;
  pm_read_options_init(&ro);
  if (!*status) *status = pm_read_splits(t, plan->splits, plan->n_splits, &ro, &st, err);
  if (!*status) {
    struct ArrowSchema sc;
    pm_type ty;
    CHECK(st.get_schema(&st, &sc) == 0);
    CHECK_OK(pm_type_from_schema(&sc, &ty, err), err);
    for (;;) {
      struct ArrowArray a;
      int r = st.get_next(&st, &a);
      if (r) {
        *status = r;
        snprintf(err->message, sizeof err->message, "%s", st.get_last_error(&st));
        break;
      }
      if (!a.release) break;
      CHECK_OK(fxc_batch_to_json(&ty, &a, NULL, rows, err), err);
      a.release(&a);
    }
    pm_type_free(&ty);
    pm_schema_release(&sc);
    st.release(&st);
  }
  pm_plan_free(plan);
  pm_table_free(t);
  return rows;
}

static void test_read_path_sequence_group_sum(void) {
  pm_error err;
  int status;
  /* fields.v1.sequence-group = v0 with sum on v0; v2 outside the group (non-null overlay); deletes kept.
   * (0,1): v1 false then true (newer): v0 = sum(null, null) then sum(null, 100.0).
   * (1,0): -D with v1 false >= false: retract within the group, v0 = 2.0 - 122.0; INSERT (an add was seen).
   * (1,1): v1 true then false (older): v0 = aggReversed sum = 133.3, v1 stays true; v2 keeps banana.
   * (2,1): one record, unchanged; (2,2): a lone -D, dropped. */
  const char *opts[] = {"ignore-delete", "false", "fields.v1.sequence-group", "v0", "fields.v0.aggregate-function",
                        "sum", NULL};
  json_t *rows = read_fixture(opts, &status, &err);
  CHECK_OK(status, &err);
  json_error_t je;
  json_t *exp = json_loads("[[0,1,100.0,true,\"new_apple\"],[1,0,-120.0,false,null],[1,1,133.3,true,\"banana\"],"
                           "[2,1,144.4,true,\"orange\"]]",
                           0, &je);
  char msg[4096];
  CHECK_MSG(fxc_rows_match(exp, rows, NULL, msg, sizeof msg), "%s", msg);
  json_decref(exp);
  json_decref(rows);
  /* max has no retraction: the -D of (1,0) fails the read (FieldAggregator.retract) ... */
  const char *opts_max[] = {"ignore-delete", "false", "fields.v1.sequence-group", "v0", "fields.v0.aggregate-function",
                            "max", NULL};
  rows = read_fixture(opts_max, &status, &err);
  CHECK(status != 0 && strstr(err.message, "does not support retraction") != NULL);
  json_decref(rows);
  /* ... unless fields.v0.ignore-retract: (1,0) keeps 2.0 */
  const char *opts_ign[] = {"ignore-delete", "false", "fields.v1.sequence-group", "v0", "fields.v0.aggregate-function",
                            "max", "fields.v0.ignore-retract", "true", NULL};
  rows = read_fixture(opts_ign, &status, &err);
  CHECK_OK(status, &err);
  exp = json_loads("[[0,1,100.0,true,\"new_apple\"],[1,0,2.0,false,null],[1,1,133.3,true,\"banana\"],"
                   "[2,1,144.4,true,\"orange\"]]",
                   0, &je);
  CHECK_MSG(fxc_rows_match(exp, rows, NULL, msg, sizeof msg), "%s", msg);
  json_decref(exp);
  json_decref(rows);
  /* fields.default-aggregate-function applies to partial-update columns too; on v2 (outside every group) it is
   * refused: "Must use sequence group for aggregation functions" */
  const char *opts_def[] = {"fields.v1.sequence-group", "v0", "fields.default-aggregate-function", "sum", NULL};
  rows = read_fixture(opts_def, &status, &err); /* (errors of the stream are errno codes) */
  CHECK(status != 0 && strstr(err.message, "Must use sequence group") != NULL);
  json_decref(rows);
  /* an unknown function name */
  const char *opts_bad[] = {"fields.v1.sequence-group", "v0", "fields.v0.aggregate-function", "count", NULL};
  rows = read_fixture(opts_bad, &status, &err);
  CHECK(status != 0 && strstr(err.message, "unsupported aggregation: count") != NULL);
  json_decref(rows);
}

/* ---------------------------------------------------------------------
 * Randomized: large nested_update (keyed) and merge_map_with_keytime
 * values against a direct model of the Java rules (linear search).
 * --------------------------------------------------------------------- */
typedef struct rrec {
  int n_nu;
  nrow nu[300];
  int n_mk;
  mentry mk[300];
  long long seq;
} rrec;

static const char *const KEYS[64] = {
    "k00", "k01", "k02", "k03", "k04", "k05", "k06", "k07", "k08", "k09", "k10", "k11", "k12", "k13", "k14", "k15",
    "k16", "k17", "k18", "k19", "k20", "k21", "k22", "k23", "k24", "k25", "k26", "k27", "k28", "k29", "k30", "k31",
    "k32", "k33", "k34", "k35", "k36", "k37", "k38", "k39", "k40", "k41", "k42", "k43", "k44", "k45", "k46", "k47",
    "k48", "k49", "k50", "k51", "k52", "k53", "k54", "k55", "k56", "k57", "k58", "k59", "k60", "k61", "k62", "k63"};
static const char *const TS[4] = {"2024-01-01", "2024-01-02", "2024-01-03", NULL};
static const char *const VS[3] = {"x", "y", NULL};

static int rr_next(void *ctx, struct ArrowArray *out, pm_error *err) {
  const rrec **slot = ctx;
  memset(out, 0, sizeof *out);
  if (!*slot) return 0;
  const rrec *r = *slot;
  *slot = NULL;
  pm_builder *b;
  pm_builder_new(&g_nl, &b, err);
  pm_builder_append_int(pm_builder_child(b, N_K), 1, err);
  pm_builder *l = pm_builder_child(b, N_NU), *row = pm_builder_child(l, 0);
  for (int i = 0; i < r->n_nu; i++) {
    append_int_or_null(pm_builder_child(row, 0), r->nu[i].id, err);
    append_str_or_null(pm_builder_child(row, 1), r->nu[i].v, err);
    append_int_or_null(pm_builder_child(row, 2), r->nu[i].s, err);
    pm_builder_append_valid(row, err);
  }
  pm_builder_append_valid(l, err);
  pm_builder *mp = pm_builder_child(b, N_MK), *ent = pm_builder_child(mp, 0);
  for (int i = 0; i < r->n_mk; i++) {
    pm_builder_append_str(pm_builder_child(ent, 0), r->mk[i].key, err);
    pm_builder *val = pm_builder_child(ent, 1);
    if (r->mk[i].val == -1000) {
      pm_builder_append_null(val, err);
    } else {
      pm_builder_append_int(pm_builder_child(val, 0), r->mk[i].val, err);
      append_str_or_null(pm_builder_child(val, 1), r->mk[i].ts, err);
      pm_builder_append_valid(val, err);
    }
    pm_builder_append_valid(ent, err);
  }
  pm_builder_append_valid(mp, err);
  pm_builder_append_int(pm_builder_child(b, N_SEQ), r->seq, err);
  pm_builder_append_int(pm_builder_child(b, N_KIND), 0, err);
  pm_builder_append_valid(b, err);
  int rc = pm_builder_finish(b, out, err);
  pm_builder_free(b);
  return rc;
}

static unsigned rstate = 7;
static unsigned rnd(void) {
  rstate = rstate * 1103515245u + 12345u;
  return (rstate >> 16) & 0x7FFF;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Sorted "item;" lists equal. */
static int same_sorted(char **x, int nx, char **y, int ny) {
  if (nx != ny) return 0;
  qsort(x, (size_t)nx, sizeof *x, cmp_str);
  qsort(y, (size_t)ny, sizeof *y, cmp_str);
  for (int i = 0; i < nx; i++)
    if (strcmp(x[i], y[i])) return 0;
  return 1;
}

static void test_randomized_large_values(void) {
  make_nested_layout();
  pm_merge_config cfg;
  pm_merge_column cols[N_NCOLS];
  nested_config(&cfg, cols);
  cols[N_NU].agg = PM_AGG_NESTED_UPDATE;
  cols[N_NU].n_nested_keys = 1;
  cols[N_NU].nested_keys[0] = 0;
  cols[N_MK].agg = PM_AGG_MERGE_MAP_WITH_KEYTIME;
  cols[N_MK].ts_field = -1;
  static rrec recs[4];
  for (int round = 0; round < 6; round++) {
    int nrec = 2 + round % 3;
    for (int r = 0; r < nrec; r++) {
      rrec *x = &recs[r];
      x->seq = r;
      x->n_nu = (int)(rnd() % 300);
      for (int i = 0; i < x->n_nu; i++) {
        x->nu[i].id = rnd() % 20 == 0 ? NUL : (int)(rnd() % 400);
        x->nu[i].v = VS[rnd() % 3];
        x->nu[i].s = (int)(rnd() % 5);
      }
      x->n_mk = 0;
      int used[64] = {0};
      int want = (int)(rnd() % 64);
      for (int i = 0; i < want; i++) { /* a map holds each key once */
        int k = (int)(rnd() % 64);
        if (used[k]) continue;
        used[k] = 1;
        mentry *e = &x->mk[x->n_mk++];
        e->key = KEYS[k];
        e->val = rnd() % 10 == 0 ? -1000 : (int)(rnd() % 1000);
        e->ts = TS[rnd() % 4];
      }
    }
    /* model: nested_update keyed (FieldNestedUpdateAgg.addNestedRows), map by key with replacement */
    static char *model_nu[2000], *model_mk[300];
    int n_model = 0, n_mm = 0;
    static nrow acc[2000];
    int n_acc = 0;
    for (int r = 0; r < nrec; r++)
      for (int i = 0; i < recs[r].n_nu; i++) {
        int at = -1;
        for (int q = 0; q < n_acc && at < 0; q++)
          if (acc[q].id == recs[r].nu[i].id) at = q;
        if (at >= 0) acc[at] = recs[r].nu[i];
        else acc[n_acc++] = recs[r].nu[i];
      }
    for (int q = 0; q < n_acc; q++) {
      char buf[64];
      char ids[16] = "-";
      if (acc[q].id != NUL) snprintf(ids, sizeof ids, "%d", acc[q].id);
      snprintf(buf, sizeof buf, "%s:%s:%d", ids, acc[q].v ? acc[q].v : "-", acc[q].s);
      model_nu[n_model++] = strdup(buf);
    }
    /* model: FieldMergeMapWithKeyTimeAgg; the first record is taken as is (agg(null, x) = x) */
    static mentry macc[300];
    int n_macc = 0;
    for (int i = 0; i < recs[0].n_mk; i++) macc[n_macc++] = recs[0].mk[i];
    for (int r = 1; r < nrec; r++)
      for (int i = 0; i < recs[r].n_mk; i++) {
        const mentry *e = &recs[r].mk[i];
        int at = -1;
        for (int q = 0; q < n_macc && at < 0; q++)
          if (!strcmp(macc[q].key, e->key)) at = q;
        if (e->val == -1000) {
          if (at >= 0) macc[at] = macc[--n_macc];
          continue;
        }
        if (!e->ts) continue;
        int take = at < 0 || macc[at].val == -1000 || !macc[at].ts || strcmp(e->ts, macc[at].ts) > 0;
        if (!take) continue;
        if (at >= 0) macc[at] = *e;
        else macc[n_macc++] = *e;
      }
    for (int q = 0; q < n_macc; q++) {
      char buf[64];
      if (macc[q].val == -1000) snprintf(buf, sizeof buf, "%s=null", macc[q].key);
      else snprintf(buf, sizeof buf, "%s=%d@%s", macc[q].key, macc[q].val, macc[q].ts ? macc[q].ts : "-");
      model_mk[n_mm++] = strdup(buf);
    }
    /* merge */
    const rrec *slots[4];
    pm_merge_source src[4];
    for (int r = 0; r < nrec; r++) {
      slots[r] = &recs[r];
      src[r] = (pm_merge_source){&slots[r], rr_next, NULL};
    }
    pm_error err;
    pm_merge_reader *m;
    CHECK_OK(pm_merge_open(&cfg, src, nrec, &m, &err), &err);
    struct ArrowArray o;
    CHECK_OK(pm_merge_next(m, &o, &err), &err);
    CHECK(o.release && o.length == 1);
    if (o.release && o.length == 1) {
      static char *got_nu[2000], *got_mk[300];
      int n_gn = 0, n_gm = 0;
      const struct ArrowArray *l = o.children[N_NU], *row = l->children[0];
      const int32_t *off = (const int32_t *)l->buffers[1] + l->offset;
      for (int32_t e = off[0]; e < off[1] && n_gn < 2000; e++) {
        int64_t j = row->offset + e;
        const struct ArrowArray *id = row->children[0], *v = row->children[1], *sq = row->children[2];
        char buf[64], ids[16] = "-", vs[16] = "-";
        if (pm_array_is_valid(id, j)) snprintf(ids, sizeof ids, "%d", ((const int32_t *)id->buffers[1])[id->offset + j]);
        if (pm_array_is_valid(v, j)) {
          const int32_t *vo = (const int32_t *)v->buffers[1] + v->offset;
          snprintf(vs, sizeof vs, "%.*s", (int)(vo[j + 1] - vo[j]), (const char *)v->buffers[2] + vo[j]);
        }
        snprintf(buf, sizeof buf, "%s:%s:%d", ids, vs, ((const int32_t *)sq->buffers[1])[sq->offset + j]);
        got_nu[n_gn++] = strdup(buf);
      }
      const struct ArrowArray *mp = o.children[N_MK], *ent = mp->children[0];
      const int32_t *moff = (const int32_t *)mp->buffers[1] + mp->offset;
      for (int32_t e = moff[0]; e < moff[1] && n_gm < 300; e++) {
        int64_t j = ent->offset + e;
        const struct ArrowArray *keys = ent->children[0], *vals = ent->children[1];
        const int32_t *ko = (const int32_t *)keys->buffers[1] + keys->offset;
        char buf[64];
        int kl = (int)(ko[j + 1] - ko[j]);
        const char *kp = (const char *)keys->buffers[2] + ko[j];
        if (!pm_array_is_valid(vals, j)) {
          snprintf(buf, sizeof buf, "%.*s=null", kl, kp);
        } else {
          int64_t q = vals->offset + j;
          const struct ArrowArray *vv = vals->children[0], *ts = vals->children[1];
          char tss[16] = "-";
          if (pm_array_is_valid(ts, q)) {
            const int32_t *to = (const int32_t *)ts->buffers[1] + ts->offset;
            snprintf(tss, sizeof tss, "%.*s", (int)(to[q + 1] - to[q]), (const char *)ts->buffers[2] + to[q]);
          }
          snprintf(buf, sizeof buf, "%.*s=%d@%s", kl, kp, ((const int32_t *)vv->buffers[1])[vv->offset + q], tss);
        }
        got_mk[n_gm++] = strdup(buf);
      }
      CHECK_MSG(same_sorted(got_nu, n_gn, model_nu, n_model), "round %d nested_update: %d vs %d rows", round, n_gn,
                n_model);
      CHECK_MSG(same_sorted(got_mk, n_gm, model_mk, n_mm), "round %d keytime: %d vs %d entries", round, n_gm, n_mm);
      for (int i = 0; i < n_gn; i++) free(got_nu[i]);
      for (int i = 0; i < n_gm; i++) free(got_mk[i]);
      o.release(&o);
    }
    pm_merge_close(m);
    for (int i = 0; i < n_model; i++) free(model_nu[i]);
    for (int i = 0; i < n_mm; i++) free(model_mk[i]);
  }
  pm_type_free(&g_nl);
}

int main(void) {
  RUN_TEST(test_nested_update_keyed);
  RUN_TEST(test_nested_update_keyless);
  RUN_TEST(test_nested_partial_update);
  RUN_TEST(test_merge_map_with_keytime);
  RUN_TEST(test_sketch_wiring);
  RUN_TEST(test_partial_update_group_aggregation);
  RUN_TEST(test_aggregation_all_retracts);
  RUN_TEST(test_column_options);
  RUN_TEST(test_read_path_sequence_group_sum);
  RUN_TEST(test_randomized_large_values);
  TEST_MAIN_END();
}
