/*
 * Row positions, row ranges and shards (paimon/scan_select.h) on Java-written
 * fixtures and on tables we write: the full read first equals the fixture's
 * expected rows (or the rows we wrote), then shards of every count concatenate
 * to the full read in order with balanced sizes, slices concatenate to it,
 * row ranges select exactly the rows with those _ROW_IDs (an empty list none),
 * serialized splits (IndexedSplit) read the same rows, bucket shards of a
 * primary-key table partition its rows by bucket, and every invalid argument
 * is a clear error before planning.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"
#include "support/fixture_compare.h"
#include "support/oracle_table.h"
#include "support/oracle_write.h"
#include "support/stream_rows.h"

static char tmp_root[256];

static json_t *expected_rows(const char *name) {
  char p[1024];
  snprintf(p, sizeof p, "%s/fixtures/expected/%s.json", PAIMON_SHARED_DIR, name);
  json_error_t je;
  json_t *j = json_load_file(p, 0, &je);
  CHECK_MSG(j != NULL, "%s: %s", p, je.text);
  json_t *rows = j ? json_incref(json_object_get(j, "rows")) : json_array();
  json_decref(j);
  return rows;
}

static paimon_catalog *open_wh(const char *wh) {
  paimon_option o[] = {{"warehouse", wh}};
  paimon_catalog *c = NULL;
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_open(o, 1, &c, &err), &err);
  return c;
}

/* Reads splits (one stream, split order) into JSON rows appended to rows. */
static int read_splits(const paimon_read_builder *rb, const paimon_split *const *v, size_t n, json_t *rows,
                       paimon_error *err) {
  struct ArrowArrayStream st = {0};
  struct ArrowSchema schema = {0};
  pm_type type;
  memset(&type, 0, sizeof type);
  pm_error e;
  pm_error_clear(&e);
  int rc = paimon_table_read_splits(rb, v, n, &st, err);
  if (!rc && st.get_schema(&st, &schema)) rc = PAIMON_ERR_INTERNAL;
  if (!rc && pm_type_from_schema(&schema, &type, &e)) rc = PAIMON_ERR_INTERNAL;
  while (!rc) {
    struct ArrowArray a;
    if (st.get_next(&st, &a)) {
      rc = PAIMON_ERR_IO;
      snprintf(err->message, sizeof err->message, "%s", st.get_last_error(&st) ? st.get_last_error(&st) : "?");
      break;
    }
    if (!a.release) break;
    rc = fxc_batch_to_json(&type, &a, NULL, rows, &e);
    if (rc) snprintf(err->message, sizeof err->message, "%s", e.message);
    a.release(&a);
  }
  pm_type_free(&type);
  if (schema.release) schema.release(&schema);
  if (st.release) st.release(&st);
  return rc;
}

enum { SEL_NONE, SEL_SLICE, SEL_SHARD, SEL_RANGES, SEL_BUCKET_SHARD };

typedef struct sel_spec {
  int kind;
  int64_t a, b;
  const int64_t *ranges; /* SEL_RANGES, or with another kind when n_ranges >= 0 */
  long n_ranges;         /* < 0: none */
  int roundtrip;         /* read serialized + deserialized splits */
  int64_t limit;         /* < 0: none */
} sel_spec;

/* The rows a selection reads (NULL on error); *n_splits (may be NULL) = splits planned. */
static json_t *read_sel(paimon_table *t, const char *const *cols, size_t nc, sel_spec sp, size_t *n_splits) {
  paimon_error err = {0};
  paimon_read_builder *rb = NULL;
  paimon_plan *plan = NULL;
  json_t *rows = json_array();
  int rc = paimon_read_builder_new(t, NULL, 0, &rb, &err);
  if (!rc) rc = paimon_read_builder_with_projection(rb, cols, nc, &err);
  if (!rc && sp.limit >= 0) paimon_read_builder_with_limit(rb, sp.limit);
  if (!rc && sp.kind == SEL_SLICE) rc = paimon_read_builder_with_row_position_slice(rb, sp.a, sp.b, &err);
  if (!rc && sp.kind == SEL_SHARD) rc = paimon_read_builder_with_row_position_shard(rb, sp.a, sp.b, &err);
  if (!rc && sp.kind == SEL_BUCKET_SHARD) rc = paimon_read_builder_with_shard(rb, sp.a, sp.b, &err);
  if (!rc && (sp.kind == SEL_RANGES || sp.n_ranges >= 0))
    rc = paimon_read_builder_with_row_ranges(rb, sp.ranges, (size_t)(sp.n_ranges < 0 ? 0 : sp.n_ranges), &err);
  if (!rc) rc = paimon_read_builder_plan(rb, &plan, &err);
  size_t n = rc ? 0 : paimon_plan_num_splits(plan);
  if (n_splits) *n_splits = n;
  const paimon_split **v = calloc(n + 1, sizeof *v);
  paimon_split **own = calloc(n + 1, sizeof *own);
  for (size_t i = 0; !rc && i < n; i++) {
    v[i] = paimon_plan_split(plan, i);
    if (sp.kind == SEL_BUCKET_SHARD)
      CHECK_MSG(paimon_split_bucket(v[i]) % sp.b == sp.a, "bucket %d in shard %lld/%lld", paimon_split_bucket(v[i]),
                (long long)sp.a, (long long)sp.b);
    if (!sp.roundtrip) continue;
    uint8_t *bytes = NULL;
    size_t len = 0;
    rc = paimon_split_serialize(v[i], &bytes, &len, &err);
    if (!rc) rc = paimon_split_deserialize(bytes, len, &own[i], &err);
    if (!rc) {
      const int64_t *r1, *r2;
      size_t n1, n2;
      int h1 = paimon_split_row_ranges(v[i], &r1, &n1), h2 = paimon_split_row_ranges(own[i], &r2, &n2);
      CHECK(h1 == h2 && n1 == n2 && (n1 == 0 || !memcmp(r1, r2, n1 * 2 * sizeof *r1)));
      /* a selection travels as an IndexedSplit: SplitSerializer magic, type 3 */
      if (h1) CHECK(len > 12 && bytes[0] == 0x53 && bytes[15] == 3);
      v[i] = own[i];
    }
    paimon_free_bytes(bytes);
  }
  if (!rc) rc = read_splits(rb, v, n, rows, &err);
  CHECK_MSG(rc == 0, "read with selection %d (%lld, %lld): %s", sp.kind, (long long)sp.a, (long long)sp.b,
            err.message);
  for (size_t i = 0; i < n; i++) paimon_split_free(own[i]);
  free(own);
  free(v);
  paimon_plan_free(plan);
  paimon_read_builder_free(rb);
  if (rc) {
    json_decref(rows);
    return NULL;
  }
  return rows;
}

static sel_spec spec(int kind, int64_t a, int64_t b) { return (sel_spec){kind, a, b, NULL, -1, 0, -1}; }

/* rows[from, to) of a JSON array, as a new array. */
static json_t *sub(const json_t *rows, size_t from, size_t to) {
  json_t *o = json_array();
  for (size_t i = from; i < to && i < json_array_size(rows); i++) json_array_append(o, json_array_get(rows, i));
  return o;
}

static void check_same(const json_t *want, const json_t *got, const char *what) {
  int ok = want && got && json_equal((json_t *)want, (json_t *)got);
  if (!ok) {
    char *a = want ? json_dumps(want, JSON_COMPACT) : NULL, *b = got ? json_dumps(got, JSON_COMPACT) : NULL;
    CHECK_MSG(0, "%s: expected %.600s, got %.600s", what, a ? a : "NULL", b ? b : "NULL");
    free(a);
    free(b);
  }
}

/* Shards and slices against the full read `full` (in order). */
static void check_positions(paimon_table *t, const char *const *cols, size_t nc, const json_t *full, const char *name) {
  size_t N = json_array_size(full);
  char what[256];
  for (int64_t count = 1; count <= (int64_t)N + 2; count++) {
    json_t *cat = json_array();
    for (int64_t i = 0; i < count; i++) {
      sel_spec s = spec(SEL_SHARD, i, count);
      s.roundtrip = (i % 2) == 1;
      json_t *r = read_sel(t, cols, nc, s, NULL);
      size_t want = N / (size_t)count + ((size_t)i < N % (size_t)count);
      CHECK_MSG(r && json_array_size(r) == want, "%s: shard %lld/%lld has %zu rows, expected %zu", name, (long long)i,
                (long long)count, r ? json_array_size(r) : 0, want);
      if (r) json_array_extend(cat, r);
      json_decref(r);
    }
    snprintf(what, sizeof what, "%s: shards of %lld concatenated", name, (long long)count);
    check_same(full, cat, what);
    json_decref(cat);
  }
  for (size_t k = 1; k < N; k++) {
    json_t *a = read_sel(t, cols, nc, spec(SEL_SLICE, 0, (int64_t)k), NULL);
    sel_spec s = spec(SEL_SLICE, (int64_t)k, (int64_t)N + 3);
    s.roundtrip = 1;
    json_t *b = read_sel(t, cols, nc, s, NULL);
    json_t *wa = sub(full, 0, k), *wb = sub(full, k, N);
    snprintf(what, sizeof what, "%s: slice [0, %zu)", name, k);
    check_same(wa, a, what);
    snprintf(what, sizeof what, "%s: slice [%zu, %zu)", name, k, N + 3);
    check_same(wb, b, what);
    json_decref(a), json_decref(b), json_decref(wa), json_decref(wb);
  }
  /* a one-row slice in the middle, and a slice past the end */
  if (N >= 3) {
    json_t *m = read_sel(t, cols, nc, spec(SEL_SLICE, 1, 2), NULL), *w = sub(full, 1, 2);
    snprintf(what, sizeof what, "%s: slice [1, 2)", name);
    check_same(w, m, what);
    json_decref(m), json_decref(w);
  }
  size_t ns = 99;
  json_t *past = read_sel(t, cols, nc, spec(SEL_SLICE, (int64_t)N, (int64_t)N + 10), &ns);
  CHECK_MSG(past && json_array_size(past) == 0 && ns == 0, "%s: slice past the end: %zu rows, %zu splits", name,
            past ? json_array_size(past) : 0, ns);
  json_decref(past);
  /* the limit applies after the selection */
  if (N >= 3) {
    sel_spec s = spec(SEL_SLICE, 1, (int64_t)N);
    s.limit = 1;
    json_t *l = read_sel(t, cols, nc, s, NULL);
    CHECK_MSG(l && json_array_size(l) == 1 && json_equal(json_array_get(l, 0), json_array_get(full, 1)),
              "%s: slice [1, N) with limit 1", name);
    json_decref(l);
  }
}

/* Row ranges: exactly the rows whose _ROW_ID (column rid of full) is in the ranges. */
static void check_ranges(paimon_table *t, const char *const *cols, size_t nc, const json_t *full, size_t rid,
                         const int64_t *ranges, size_t n, const char *name) {
  json_t *want = json_array();
  for (size_t i = 0; i < json_array_size(full); i++) {
    int64_t id = json_integer_value(json_array_get(json_array_get(full, i), rid));
    for (size_t k = 0; k < n; k++)
      if (id >= ranges[2 * k] && id <= ranges[2 * k + 1]) {
        json_array_append(want, json_array_get(full, i));
        break;
      }
  }
  for (int rt = 0; rt < 2; rt++) {
    sel_spec s = spec(SEL_RANGES, 0, 0);
    s.ranges = ranges;
    s.n_ranges = (long)n;
    s.roundtrip = rt;
    json_t *got = read_sel(t, cols, nc, s, NULL);
    /* ranges keep the read order; compare as sequences */
    char what[256];
    snprintf(what, sizeof what, "%s: %zu row ranges%s", name, n, rt ? " (serialized splits)" : "");
    check_same(want, got, what);
    json_decref(got);
  }
  json_decref(want);
}

static void check_errors(paimon_table *append, paimon_table *pk, paimon_table *rowtracked) {
  paimon_error err = {0};
  paimon_read_builder *rb = NULL;
  CHECK_OK(paimon_read_builder_new(append, NULL, 0, &rb, &err), &err);
  struct {
    int kind;
    int64_t a, b;
    const char *needle;
  } bad[] = {
      {SEL_SLICE, 5, 5, "must be less than end"},   {SEL_SLICE, 7, 3, "must be less than end"},
      {SEL_SLICE, -1, 3, "negative"},               {SEL_SHARD, 0, 0, "must be positive"},
      {SEL_SHARD, 3, 3, "out of range [0, 3)"},     {SEL_SHARD, -1, 2, "out of range"},
      {SEL_BUCKET_SHARD, 0, -2, "must be positive"}, {SEL_BUCKET_SHARD, 4, 2, "out of range"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    memset(&err, 0, sizeof err);
    paimon_status st = bad[i].kind == SEL_SLICE   ? paimon_read_builder_with_row_position_slice(rb, bad[i].a, bad[i].b, &err)
                       : bad[i].kind == SEL_SHARD ? paimon_read_builder_with_row_position_shard(rb, bad[i].a, bad[i].b, &err)
                                                  : paimon_read_builder_with_shard(rb, bad[i].a, bad[i].b, &err);
    CHECK_MSG(st == PAIMON_ERR_INVALID_ARGUMENT && strstr(err.message, bad[i].needle), "case %zu: %d %s", i, (int)st,
              err.message);
  }
  /* mutually exclusive, and a failed call changes nothing */
  CHECK_OK(paimon_read_builder_with_row_position_slice(rb, 0, 2, &err), &err);
  memset(&err, 0, sizeof err);
  CHECK(paimon_read_builder_with_row_position_shard(rb, 0, 2, &err) == PAIMON_ERR_INVALID_ARGUMENT &&
        strstr(err.message, "mutually exclusive"));
  memset(&err, 0, sizeof err);
  CHECK(paimon_read_builder_with_row_position_slice(rb, 1, 3, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  /* row ranges need row ids */
  int64_t r[] = {0, 3};
  memset(&err, 0, sizeof err);
  CHECK_MSG(paimon_read_builder_with_row_ranges(rb, r, 1, &err) == PAIMON_ERR_UNSUPPORTED &&
                strstr(err.message, "no row ids"),
            "%s", err.message);
  paimon_read_builder_free(rb);
  /* primary-key tables: no row positions, no row ranges */
  CHECK_OK(paimon_read_builder_new(pk, NULL, 0, &rb, &err), &err);
  memset(&err, 0, sizeof err);
  CHECK_MSG(paimon_read_builder_with_row_position_slice(rb, 0, 2, &err) == PAIMON_ERR_UNSUPPORTED &&
                strstr(err.message, "primary key"),
            "%s", err.message);
  memset(&err, 0, sizeof err);
  CHECK(paimon_read_builder_with_row_position_shard(rb, 0, 2, &err) == PAIMON_ERR_UNSUPPORTED);
  memset(&err, 0, sizeof err);
  CHECK(paimon_read_builder_with_row_ranges(rb, r, 1, &err) == PAIMON_ERR_UNSUPPORTED);
  paimon_read_builder_free(rb);
  /* bad ranges */
  CHECK_OK(paimon_read_builder_new(rowtracked, NULL, 0, &rb, &err), &err);
  int64_t r2[] = {0, 1, 5, 3};
  memset(&err, 0, sizeof err);
  CHECK_MSG(paimon_read_builder_with_row_ranges(rb, r2, 2, &err) == PAIMON_ERR_INVALID_ARGUMENT &&
                strstr(err.message, "range 1 (5, 3): from must not exceed to"),
            "%s", err.message);
  int64_t r3[] = {-2, 1};
  memset(&err, 0, sizeof err);
  CHECK(paimon_read_builder_with_row_ranges(rb, r3, 1, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(paimon_read_builder_with_row_ranges(rb, NULL, 1, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  paimon_read_builder_free(rb);
}

static paimon_table *get(paimon_catalog *c, const char *ident) {
  paimon_table *t = NULL;
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_get_table(c, ident, &t, &err), &err);
  return t;
}

static const char *const cols4[] = {"f0", "f1", "f2", "f3"};
static const char *const cols5[] = {"f0", "f1", "f2", "f3", "_ROW_ID"};

static json_t *full_read(paimon_table *t, const char *const *cols, size_t nc, const char *expected, int *kinds) {
  json_t *full = read_sel(t, cols, nc, spec(SEL_NONE, 0, 0), NULL);
  if (expected && full) {
    json_t *e = expected_rows(expected);
    /* expected files may have _SEQUENCE_NUMBER too: compare the leading columns */
    json_t *cut = json_array();
    for (size_t i = 0; i < json_array_size(e); i++) {
      json_t *row = json_array_get(e, i), *o = json_array();
      for (size_t k = 0; k < nc; k++) json_array_append(o, json_array_get(row, k));
      json_array_append_new(cut, o);
    }
    char msg[4096];
    CHECK_MSG(fxc_rows_match(cut, full, kinds, msg, sizeof msg), "%s full read: %s", expected, msg);
    json_decref(cut);
    json_decref(e);
  }
  return full;
}

static void test_fixtures(void) {
  int kinds[6] = {0, 0, 0, FXC_DOUBLE, 0, 0};
  char wh[512];
  snprintf(wh, sizeof wh, "%s/fixtures/warehouse/parquet", PAIMON_SHARED_DIR);
  paimon_catalog *pq = open_wh(wh);
  snprintf(wh, sizeof wh, "%s/fixtures/warehouse/orc", PAIMON_SHARED_DIR);
  paimon_catalog *orc = open_wh(wh);
  if (!pq || !orc) return;
  /* plain append tables (no row ids): positions local to the splits */
  paimon_table *a10 = get(pq, "append_10.append_10");
  paimon_table *fr = get(orc, "append_table_with_first_row_id.append_table_with_first_row_id");
  paimon_table *rt = get(pq, "append_table_row_tracking_with_compact.append_table_row_tracking_with_compact");
  paimon_table *de = get(pq, "data_evolution_with_dense_stats.data_evolution_with_dense_stats");
  paimon_table *pk = get(pq, "pk_09.pk_09");
  if (a10) {
    json_t *full = full_read(a10, cols4, 4, "parquet__append_10__snapshot-1", kinds);
    if (full) check_positions(a10, cols4, 4, full, "append_10");
    json_decref(full);
  }
  if (fr) {
    json_t *full = full_read(fr, cols4, 4, "orc__append_table_with_first_row_id__snapshot-1", kinds);
    if (full) check_positions(fr, cols4, 4, full, "append_table_with_first_row_id");
    json_decref(full);
  }
  if (rt) {
    json_t *full = full_read(rt, cols5, 5, "parquet__append_table_row_tracking_with_compact__snapshot-4", kinds);
    if (full) {
      check_positions(rt, cols5, 5, full, "append_table_row_tracking_with_compact");
      /* its compacted file has no first row id (ids stored in the file): positions are local to
       * the split, row ranges are refused at planning, naming the file */
      paimon_read_builder *rb = NULL;
      paimon_plan *plan = NULL;
      paimon_error err = {0};
      int64_t r1[] = {1, 2};
      CHECK_OK(paimon_read_builder_new(rt, NULL, 0, &rb, &err), &err);
      CHECK_OK(paimon_read_builder_with_row_ranges(rb, r1, 1, &err), &err);
      CHECK_MSG(paimon_read_builder_plan(rb, &plan, &err) == PAIMON_ERR_UNSUPPORTED &&
                    strstr(err.message, "data-3d6cb122") && strstr(err.message, "first row id"),
                "%s", err.message);
      paimon_plan_free(plan);
      paimon_read_builder_free(rb);
    }
    json_decref(full);
  }
  if (de) {
    json_t *full = full_read(de, cols5, 5, "parquet__data_evolution_with_dense_stats__snapshot-2", kinds);
    if (full) {
      check_positions(de, cols5, 5, full, "data_evolution_with_dense_stats");
      int64_t r1[] = {1, 1}, r2[] = {0, 0};
      check_ranges(de, cols5, 5, full, 4, r1, 1, "data evolution");
      check_ranges(de, cols5, 5, full, 4, r2, 1, "data evolution");
      check_ranges(de, cols5, 5, full, 4, NULL, 0, "data evolution");
    }
    json_decref(full);
  }
  if (a10 && pk && rt) check_errors(a10, pk, rt);
  paimon_table_free(a10);
  paimon_table_free(fr);
  paimon_table_free(rt);
  paimon_table_free(de);
  paimon_table_free(pk);
  paimon_catalog_free(pq);
  paimon_catalog_free(orc);
}

/* Our tables: several commits, so several files and splits; row tracking on one of them. */
static void write_table(paimon_catalog *c, const char *name, const char *pkeys, const char *const *opts, size_t no,
                        int commits) {
  paimon_error err = {0};
  const char *cols = pkeys ? "id INT NOT NULL, p INT NOT NULL, v STRING" : "id INT, p INT, v STRING";
  paimon_status st = ow_create_table(c, "db", name, cols, "p", opts, no, 0, &err);
  CHECK_OK(st, &err);
  char ident[128];
  snprintf(ident, sizeof ident, "db.%s", name);
  paimon_table *t = get(c, ident);
  if (!t) return;
  int id = 0;
  for (int k = 0; k < commits; k++) {
    char lines[8192] = "";
    size_t len = 0;
    for (int r = 0; r < 7 + 3 * k; r++, id++)
      len += (size_t)snprintf(lines + len, sizeof lines - len, "{\"id\": %d, \"p\": %d, \"v\": \"r%d\"}\n", id, id % 3,
                              id);
    CHECK_OK(ow_write_commit(t, NULL, 0, 0, lines, NULL, 0, 0, NULL, &err), &err);
  }
  paimon_table_free(t);
}

/* Rows of a stream scan (latest-full start, then nothing new) with with_shard index/count. */
static json_t *stream_shard(paimon_table *t, const char *const *cols, size_t nc, int64_t index, int64_t count) {
  paimon_error err = {0};
  paimon_read_builder *rb = NULL;
  paimon_stream_scan *ss = NULL;
  json_t *rows = json_array();
  CHECK_OK(paimon_read_builder_new(t, NULL, 0, &rb, &err), &err);
  CHECK_OK(paimon_read_builder_with_projection(rb, cols, nc, &err), &err);
  CHECK_OK(paimon_read_builder_with_shard(rb, index, count, &err), &err);
  CHECK_OK(paimon_stream_scan_new(rb, &ss, &err), &err);
  if (ss) CHECK_OK(sr_drain(ss, rb, rows, 5, NULL, &err), &err);
  paimon_stream_scan_free(ss);
  paimon_read_builder_free(rb);
  return rows;
}

static void check_stream_shards(paimon_table *t, const char *const *cols, size_t nc, const json_t *full,
                                const char *name) {
  for (int64_t count = 1; count <= 3; count++) {
    json_t *u = json_array();
    for (int64_t i = 0; i < count; i++) {
      json_t *r = stream_shard(t, cols, nc, i, count);
      json_array_extend(u, r);
      json_decref(r);
    }
    char msg[4096];
    int kinds[4] = {0, 0, 0, 0};
    CHECK_MSG(fxc_rows_match(full, u, kinds, msg, sizeof msg), "%s: stream shards of %lld: %s", name, (long long)count,
              msg);
    json_decref(u);
  }
  /* positions do not apply to streams */
  paimon_error err = {0};
  paimon_read_builder *rb = NULL;
  paimon_stream_scan *ss = NULL;
  CHECK_OK(paimon_read_builder_new(t, NULL, 0, &rb, &err), &err);
  if (paimon_table_num_primary_keys(t) == 0) {
    CHECK_OK(paimon_read_builder_with_row_position_slice(rb, 0, 3, &err), &err);
    CHECK_MSG(paimon_stream_scan_new(rb, &ss, &err) == PAIMON_ERR_UNSUPPORTED && strstr(err.message, "with_shard"),
              "%s", err.message);
  }
  paimon_stream_scan_free(ss);
  paimon_read_builder_free(rb);
}

static void test_own_tables(void) {
  char wh[512];
  snprintf(wh, sizeof wh, "%s/own", tmp_root);
  CHECK(mkdir(wh, 0755) == 0);
  paimon_catalog *c = open_wh(wh);
  if (!c) return;
  const char *plain[] = {"bucket=-1", "file.format=parquet", "source.split.target-size=1kb"};
  const char *rt[] = {"bucket=-1", "file.format=orc", "row-tracking.enabled=true"};
  const char *pk[] = {"bucket=4", "file.format=parquet", "primary-key=id,p"};
  write_table(c, "plain", NULL, plain, 3, 4);
  write_table(c, "rt", NULL, rt, 3, 4);
  write_table(c, "pk", "id,p", pk, 3, 3);
  static const char *const cols[] = {"id", "p", "v"};
  static const char *const cols_rid[] = {"id", "p", "v", "_ROW_ID"};
  paimon_table *tp = get(c, "db.plain"), *tr = get(c, "db.rt"), *tk = get(c, "db.pk");
  if (tp) {
    size_t ns = 0;
    json_t *full = read_sel(tp, cols, 3, spec(SEL_NONE, 0, 0), &ns);
    CHECK_MSG(full && json_array_size(full) == 7 + 10 + 13 + 16 && ns > 3, "plain: %zu rows, %zu splits",
              full ? json_array_size(full) : 0, ns);
    if (full) check_positions(tp, cols, 3, full, "own plain");
    if (full) check_stream_shards(tp, cols, 3, full, "own plain");
    json_decref(full);
  }
  if (tr) {
    json_t *full = read_sel(tr, cols_rid, 4, spec(SEL_NONE, 0, 0), NULL);
    CHECK(full && json_array_size(full) == 46);
    if (full) {
      check_positions(tr, cols_rid, 4, full, "own row tracking");
      int64_t r1[] = {3, 9, 40, 41, 20, 20}, r2[] = {0, 100};
      check_ranges(tr, cols_rid, 4, full, 3, r1, 3, "own row tracking");
      check_ranges(tr, cols_rid, 4, full, 3, r2, 1, "own row tracking");
      /* positions and ranges together: the ranges intersect the slice's rows */
      sel_spec s = spec(SEL_SLICE, 5, 30);
      s.ranges = r1;
      s.n_ranges = 3;
      json_t *got = read_sel(tr, cols_rid, 4, s, NULL), *want = json_array();
      for (size_t i = 5; i < 30; i++) {
        int64_t id = json_integer_value(json_array_get(json_array_get(full, i), 3));
        if ((id >= 3 && id <= 9) || (id >= 40 && id <= 41) || id == 20) json_array_append(want, json_array_get(full, i));
      }
      check_same(want, got, "own row tracking: slice [5, 30) with ranges");
      json_decref(got), json_decref(want);
    }
    json_decref(full);
  }
  if (tk) {
    json_t *full = read_sel(tk, cols, 3, spec(SEL_NONE, 0, 0), NULL);
    CHECK(full && json_array_size(full) == 7 + 10 + 13);
    json_t *all = json_array();
    for (int64_t count = 1; count <= 5; count++) {
      json_t *u = json_array();
      for (int64_t i = 0; i < count; i++) {
        json_t *r = read_sel(tk, cols, 3, spec(SEL_BUCKET_SHARD, i, count), NULL);
        if (r) json_array_extend(u, r);
        json_decref(r);
      }
      char msg[4096];
      int kinds[3] = {0, 0, 0};
      CHECK_MSG(full && fxc_rows_match(full, u, kinds, msg, sizeof msg), "pk bucket shards of %lld: %s",
                (long long)count, msg);
      json_decref(u);
    }
    if (full) check_stream_shards(tk, cols, 3, full, "own pk");
    json_decref(all);
    json_decref(full);
  }
  paimon_table_free(tp);
  paimon_table_free(tr);
  paimon_table_free(tk);
  paimon_catalog_free(c);
  if (ot_available()) {
    const char *names[] = {"plain", "rt", "pk"};
    for (size_t i = 0; i < 3; i++) {
      char dir[700];
      snprintf(dir, sizeof dir, "%s/db.db/%s", wh, names[i]);
      CHECK(ot_check_ok(dir, 0, names[i]));
    }
  }
}

int main(void) {
  snprintf(tmp_root, sizeof tmp_root, "/tmp/pm_scan_select_XXXXXX");
  if (!mkdtemp(tmp_root)) return 1;
  RUN_TEST(test_fixtures);
  RUN_TEST(test_own_tables);
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmp_root);
  if (system(cmd)) return 1;
  TEST_MAIN_END();
}
