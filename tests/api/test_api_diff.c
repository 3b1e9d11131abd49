/*
 * Incremental diff reads through the public API (paimon.h): tag pairs and
 * incremental-between-scan-mode = diff plan incremental splits, which are
 * read, serialized and deserialized like DataSplits.
 *
 * Evidence: the expected full results of two snapshots of the Java-written
 * fixture table pk_table_scan_and_read_mor (fixtures/expected/...snapshot-N.json).
 * The diff (s1, s2] of a primary-key table is the rows of s2 whose key is
 * absent from s1 or whose values differ; with row kinds also a retraction for
 * every key of s1 absent from s2 (compared by key: Java's -D carries the
 * values of the record that removed the key). Wire forms are checked against
 * the Java golden files fixtures/wire/split-v1-{incremental,data,indexed}.
 * The table is copied to a temp warehouse (fixtures are read-only) and tag
 * files are added there.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "meta/snapshot.h"
#include "paimon/paimon.h"
#include "paimon/scan_select.h"
#include "support/fixture_compare.h"

#define WH PM_SHARED("fixtures/warehouse/parquet")
#define EXPECTED PM_SHARED("fixtures/expected")
#define WIRE PM_SHARED("fixtures/wire")
#define NAME "pk_table_scan_and_read_mor"
#define IDENT NAME "." NAME

static char tmp_root[256];
static paimon_catalog *g_cat;
static paimon_table *g_table;

static const char *const COLS[] = {"f0", "f1", "f2", "f3"};
static const int KINDS[] = {FXC_PLAIN, FXC_PLAIN, FXC_PLAIN, FXC_DOUBLE};
static const int KINDS_RK[] = {FXC_PLAIN, FXC_PLAIN, FXC_PLAIN, FXC_PLAIN, FXC_DOUBLE};

static int setup_table(void) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s/%s.db' && cp -r '%s/%s.db/%s' '%s/%s.db/' && chmod -R u+w '%s/%s.db'",
           tmp_root, NAME, WH, NAME, NAME, tmp_root, NAME, tmp_root, NAME);
  if (system(cmd) != 0) return -1;
  char root[512];
  snprintf(root, sizeof root, "%s/%s.db/%s", tmp_root, NAME, NAME);
  static const struct {
    const char *tag;
    int64_t id;
  } tags[] = {{"t2", 2}, {"t4", 4}, {"t5", 5}};
  for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++) {
    pm_error err;
    pm_error_clear(&err);
    pm_snapshot *s = NULL;
    int rc = pm_snapshot_read(&(pm_snapshot_manager){pm_fs_local(), root, NULL}, tags[i].id, &s, &err);
    if (!rc) rc = pm_tag_write(&(pm_snapshot_manager){pm_fs_local(), root, NULL}, tags[i].tag, s, &err);
    pm_snapshot_free(s);
    if (rc) {
      fprintf(stderr, "tag %s: %s\n", tags[i].tag, err.message);
      return -1;
    }
  }
  paimon_error err = {0};
  paimon_option opts[] = {{"warehouse", tmp_root}};
  if (paimon_catalog_open(opts, 1, &g_cat, &err) || paimon_catalog_get_table(g_cat, IDENT, &g_table, &err)) {
    fprintf(stderr, "open: %s\n", err.message);
    return -1;
  }
  return 0;
}

static json_t *expected_rows(int snap) {
  char path[1024];
  snprintf(path, sizeof path, "%s/parquet__%s__snapshot-%d.json", EXPECTED, NAME, snap);
  json_error_t je;
  json_t *f = json_load_file(path, 0, &je);
  if (!f) {
    fprintf(stderr, "cannot load %s: %s\n", path, je.text);
    return NULL;
  }
  json_t *rows = json_incref(json_object_get(f, "rows"));
  json_decref(f);
  return rows;
}

static int same_key(const json_t *a, const json_t *b, int n_keys) {
  for (int k = 0; k < n_keys; k++)
    if (!json_equal(json_array_get(a, (size_t)k), json_array_get(b, (size_t)k))) return 0;
  return 1;
}

static json_t *with_kind(const char *kind, const json_t *row) {
  json_t *r = json_array();
  json_array_append_new(r, json_string(kind));
  json_array_extend(r, (json_t *)row);
  return r;
}

/* PK diff of two expected results (keys = the first n_keys columns); row kinds
 * "+" (added/changed) or "-" (removed key) when requested. */
static json_t *pk_diff(const json_t *s1, const json_t *s2, int n_keys, int with_row_kind) {
  json_t *out = json_array();
  for (size_t i = 0; i < json_array_size(s2); i++) {
    const json_t *r2 = json_array_get(s2, i);
    const json_t *r1 = NULL;
    for (size_t j = 0; j < json_array_size(s1) && !r1; j++)
      if (same_key(json_array_get(s1, j), r2, n_keys)) r1 = json_array_get(s1, j);
    if (r1 && json_equal((json_t *)r1, (json_t *)r2)) continue;
    json_array_append_new(out, with_row_kind ? with_kind("+", r2) : json_deep_copy(r2));
  }
  for (size_t j = 0; with_row_kind && j < json_array_size(s1); j++) {
    const json_t *r1 = json_array_get(s1, j);
    int found = 0;
    for (size_t i = 0; i < json_array_size(s2) && !found; i++) found = same_key(r1, json_array_get(s2, i), n_keys);
    if (!found) json_array_append_new(out, with_kind("-", r1));
  }
  return out;
}

static json_t *rows_where_int(const json_t *rows, size_t col, int64_t v) {
  json_t *out = json_array();
  for (size_t i = 0; i < json_array_size(rows); i++) {
    json_t *r = json_array_get(rows, i);
    if (json_integer_value(json_array_get(r, col)) == v) json_array_append(out, r);
  }
  return out;
}

/* Drains a stream into JSON rows (consumes it); the row-kind column becomes "+" / "-". */
static int drain(struct ArrowArrayStream *st, int with_row_kind, json_t *rows) {
  struct ArrowSchema schema = {0};
  pm_type type = {0};
  pm_error err;
  pm_error_clear(&err);
  int rc = st->get_schema(st, &schema) ? -1 : 0;
  if (!rc) rc = pm_type_from_schema(&schema, &type, &err);
  while (!rc) {
    struct ArrowArray a;
    if (st->get_next(st, &a)) {
      const char *m = st->get_last_error(st);
      fprintf(stderr, "get_next: %s\n", m ? m : "?");
      rc = -1;
      break;
    }
    if (!a.release) break;
    rc = fxc_batch_to_json(&type, &a, NULL, rows, &err);
    a.release(&a);
  }
  if (rc && err.message[0]) fprintf(stderr, "drain: %s\n", err.message);
  for (size_t i = 0; with_row_kind && i < json_array_size(rows); i++) {
    json_t *r = json_array_get(rows, i);
    const char *k = json_string_value(json_array_get(r, 0));
    json_array_set_new(r, 0, json_string(k && (!strcmp(k, "+I") || !strcmp(k, "+U")) ? "+" : "-"));
  }
  pm_type_free(&type);
  if (schema.release) schema.release(&schema);
  st->release(st);
  return rc;
}

static void blank_retract_values(json_t *rows, int n_keys) {
  for (size_t i = 0; i < json_array_size(rows); i++) {
    json_t *r = json_array_get(rows, i);
    if (strcmp(json_string_value(json_array_get(r, 0)), "-")) continue;
    for (size_t c = 1 + (size_t)n_keys; c < json_array_size(r); c++) json_array_set_new(r, c, json_null());
  }
}

static void check_rows(const char *what, const json_t *expected_in, const json_t *actual_in, int with_row_kind) {
  char msg[4096];
  json_t *expected = json_deep_copy((json_t *)expected_in), *actual = json_deep_copy((json_t *)actual_in);
  if (with_row_kind) {
    blank_retract_values(expected, 3);
    blank_retract_values(actual, 3);
  }
  int ok = fxc_rows_match(expected, actual, with_row_kind ? KINDS_RK : KINDS, msg, sizeof msg);
  CHECK_MSG(ok, "%s: %s", what, msg);
  json_decref(expected);
  json_decref(actual);
}

/* A builder over f0..f3 with up to two dynamic options (NULL key = none). */
static paimon_read_builder *builder(const char *k1, const char *v1, const char *k2, const char *v2, int row_kind) {
  paimon_option opts[2];
  size_t n = 0;
  if (k1) opts[n++] = (paimon_option){k1, v1};
  if (k2) opts[n++] = (paimon_option){k2, v2};
  paimon_error err = {0};
  paimon_read_builder *rb = NULL;
  CHECK_OK(paimon_read_builder_new(g_table, opts, n, &rb, &err), &err);
  if (!rb) return NULL;
  CHECK_OK(paimon_read_builder_with_projection(rb, COLS, 4, &err), &err);
  paimon_read_builder_with_row_kind(rb, row_kind);
  return rb;
}

/* Plans and reads through the API; checks the split kind of the plan. */
static void check_plan_read(const char *what, const char *k1, const char *v1, const char *k2, const char *v2,
                            const char *where, int row_kind, const json_t *expected, int expect_incremental) {
  paimon_read_builder *rb = builder(k1, v1, k2, v2, row_kind);
  if (!rb) return;
  paimon_error err = {0};
  if (where) {
    paimon_predicate *p = NULL;
    CHECK_OK(paimon_predicate_parse(rb, where, &p, &err), &err);
    CHECK_OK(paimon_read_builder_with_filter(rb, p, &err), &err);
  }
  paimon_plan *plan = NULL;
  int rc = paimon_read_builder_plan(rb, &plan, &err);
  CHECK_MSG(rc == 0, "%s: plan: %s", what, err.message);
  if (!rc) {
    size_t n = paimon_plan_num_splits(plan);
    CHECK_MSG(n > 0, "%s: no splits", what);
    for (size_t i = 0; i < n; i++) {
      const paimon_split *s = paimon_plan_split(plan, i);
      CHECK_MSG(paimon_split_is_incremental(s) == expect_incremental, "%s: split %zu kind", what, i);
      if (expect_incremental) CHECK_EQ_INT(paimon_split_raw_convertible(s), 0);
    }
    CHECK(paimon_plan_split(plan, n) == NULL);
    struct ArrowArrayStream st;
    rc = paimon_read_plan(rb, plan, &st, &err);
    CHECK_MSG(rc == 0, "%s: read: %s", what, err.message);
    json_t *rows = json_array();
    if (!rc) {
      paimon_plan_free(plan); /* the stream stands alone */
      paimon_read_builder_free(rb);
      plan = NULL;
      rb = NULL;
      CHECK_EQ_INT(drain(&st, row_kind, rows), 0);
      check_rows(what, expected, rows, row_kind);
    }
    json_decref(rows);
  }
  paimon_plan_free(plan);
  paimon_read_builder_free(rb);
}

/* Limits cap the diff; an empty diff (start == end) plans nothing and reads nothing. */
static void test_limit_and_empty(void) {
  json_t *s2 = expected_rows(2), *s5 = expected_rows(5);
  CHECK(s2 && s5);
  if (!s2 || !s5) return;
  json_t *d25 = pk_diff(s2, s5, 3, 0);
  paimon_error err = {0};
  paimon_read_builder *rb = builder("incremental-between", "t2,t5", NULL, NULL, 0);
  paimon_read_builder_with_limit(rb, 2);
  paimon_plan *plan = NULL;
  struct ArrowArrayStream st;
  CHECK_OK(paimon_read_builder_plan(rb, &plan, &err), &err);
  json_t *rows = json_array();
  if (plan && paimon_read_plan(rb, plan, &st, &err) == PAIMON_OK) CHECK_EQ_INT(drain(&st, 0, rows), 0);
  else CHECK_MSG(0, "limit read: %s", err.message);
  CHECK_EQ_INT((int)json_array_size(rows), 2);
  for (size_t i = 0; i < json_array_size(rows); i++) {
    int found = 0;
    for (size_t j = 0; j < json_array_size(d25) && !found; j++)
      found = fxc_json_equal(json_array_get(rows, i), json_array_get(d25, j), FXC_DOUBLE);
    CHECK_MSG(found, "limited row %zu is not part of the diff", i);
  }
  json_decref(rows);
  paimon_plan_free(plan);
  paimon_read_builder_free(rb);

  rb = builder("incremental-between", "t4,t4", NULL, NULL, 1);
  plan = NULL;
  CHECK_OK(paimon_read_builder_plan(rb, &plan, &err), &err);
  CHECK_EQ_INT((int)paimon_plan_num_splits(plan), 0);
  rows = json_array();
  if (plan && paimon_read_plan(rb, plan, &st, &err) == PAIMON_OK) CHECK_EQ_INT(drain(&st, 1, rows), 0);
  else CHECK_MSG(0, "empty read: %s", err.message);
  CHECK_EQ_INT((int)json_array_size(rows), 0);
  json_decref(rows);
  paimon_plan_free(plan);
  paimon_read_builder_free(rb);
  json_decref(d25);
  json_decref(s2);
  json_decref(s5);
}

static void test_diff_reads(void) {
  json_t *s2 = expected_rows(2), *s4 = expected_rows(4), *s5 = expected_rows(5);
  CHECK(s2 && s4 && s5);
  if (!s2 || !s4 || !s5) return;
  json_t *d25 = pk_diff(s2, s5, 3, 0), *d25k = pk_diff(s2, s5, 3, 1), *d45k = pk_diff(s4, s5, 3, 1);
  json_t *d24 = pk_diff(s2, s4, 3, 0);
  /* 4 -> 5 removes a key, so the row-kind read has a retraction */
  CHECK(json_array_size(d25) > 0 && json_array_size(d24) > 0);
  int has_retraction = 0;
  for (size_t i = 0; i < json_array_size(d45k); i++)
    has_retraction |= !strcmp(json_string_value(json_array_get(json_array_get(d45k, i), 0)), "-");
  CHECK(has_retraction);
  const char *IB = "incremental-between", *MODE = "incremental-between-scan-mode";
  check_plan_read("tags t2,t5", IB, "t2,t5", NULL, NULL, NULL, 0, d25, 1);
  check_plan_read("tags t2,t5 +kinds", IB, "t2,t5", NULL, NULL, NULL, 1, d25k, 1);
  check_plan_read("tags t4,t5 +kinds", IB, "t4,t5", NULL, NULL, NULL, 1, d45k, 1);
  check_plan_read("ids 2,4 diff mode", IB, "2,4", MODE, "diff", NULL, 0, d24, 1);
  json_t *d25_10 = rows_where_int(d25, 1, 10);
  check_plan_read("tags t2,t5 f1 = 10", IB, "t2,t5", NULL, NULL, "f1 = 10", 0, d25_10, 1);
  /* a plain read of the latest snapshot still plans DataSplits */
  check_plan_read("plain", NULL, NULL, NULL, NULL, NULL, 0, s5, 0);
  check_plan_read("tag t4", "scan.tag-name", "t4", NULL, NULL, NULL, 0, s4, 0);
  json_decref(d25_10);
  json_decref(d25);
  json_decref(d25k);
  json_decref(d45k);
  json_decref(d24);
  json_decref(s2);
  json_decref(s4);
  json_decref(s5);
}

/* Serialized incremental splits are SplitSerializer records that read back the same rows. */
static void test_round_trip_and_mixing(void) {
  json_t *s2 = expected_rows(2), *s5 = expected_rows(5);
  CHECK(s2 && s5);
  if (!s2 || !s5) return;
  json_t *d25k = pk_diff(s2, s5, 3, 1);
  paimon_error err = {0};
  paimon_read_builder *rb = builder("incremental-between", "t2,t5", NULL, NULL, 1);
  paimon_plan *plan = NULL;
  CHECK_OK(paimon_read_builder_plan(rb, &plan, &err), &err);
  size_t n = plan ? paimon_plan_num_splits(plan) : 0;
  CHECK(n > 0);
  paimon_split **copies = calloc(n + 1, sizeof *copies);
  int64_t planned_rows = 0;
  for (size_t i = 0; i < n; i++) {
    const paimon_split *s = paimon_plan_split(plan, i);
    planned_rows += paimon_split_row_count(s);
    CHECK_EQ_INT((int)paimon_split_snapshot_id(s), 5);
    uint8_t *bytes = NULL, *again = NULL;
    size_t len = 0, len2 = 0;
    CHECK_OK(paimon_split_serialize(s, &bytes, &len, &err), &err);
    CHECK(len > 16 && !memcmp(bytes, "SPLIT_V1\0\0\0\1\0\0\0\2", 16));
    CHECK_OK(paimon_split_deserialize(bytes, len, &copies[i], &err), &err);
    if (copies[i]) {
      CHECK_EQ_INT(paimon_split_is_incremental(copies[i]), 1);
      CHECK_EQ_INT(paimon_split_bucket(copies[i]), paimon_split_bucket(s));
      CHECK_EQ_INT((int)paimon_split_num_files(copies[i]), (int)paimon_split_num_files(s));
      CHECK(paimon_split_row_count(copies[i]) == paimon_split_row_count(s));
      CHECK_OK(paimon_split_serialize(copies[i], &again, &len2, &err), &err);
      CHECK(len2 == len && again && !memcmp(again, bytes, len));
    }
    paimon_free_bytes(bytes);
    paimon_free_bytes(again);
  }
  CHECK(planned_rows > 0);

  /* mixing kinds in one call is refused */
  paimon_read_builder *plain = builder(NULL, NULL, NULL, NULL, 1);
  paimon_plan *plain_plan = NULL;
  CHECK_OK(paimon_read_builder_plan(plain, &plain_plan, &err), &err);
  if (plain_plan && paimon_plan_num_splits(plain_plan) && n) {
    const paimon_split *mixed[2] = {paimon_plan_split(plan, 0), paimon_plan_split(plain_plan, 0)};
    CHECK_EQ_INT(paimon_split_is_incremental(mixed[1]), 0);
    struct ArrowArrayStream st;
    paimon_error e2 = {0};
    int rc = paimon_table_read_splits(rb, mixed, 2, &st, &e2);
    CHECK_EQ_INT(rc, PAIMON_ERR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(e2.message, "incremental") != NULL, "%s", e2.message);
    CHECK(st.release == NULL);
  }
  paimon_plan_free(plain_plan);
  paimon_read_builder_free(plain);

  /* the deserialized splits read the diff without the plan */
  paimon_plan_free(plan);
  paimon_read_builder_free(rb);
  rb = builder(NULL, NULL, NULL, NULL, 1); /* reading needs no scan options */
  struct ArrowArrayStream st;
  int rc = paimon_table_read_splits(rb, (const paimon_split *const *)copies, n, &st, &err);
  CHECK_MSG(rc == 0, "%s", err.message);
  for (size_t i = 0; i < n; i++) paimon_split_free(copies[i]);
  free(copies);
  paimon_read_builder_free(rb);
  if (!rc) {
    json_t *rows = json_array();
    CHECK_EQ_INT(drain(&st, 1, rows), 0);
    check_rows("deserialized t2,t5 +kinds", d25k, rows, 1);
    json_decref(rows);
  }
  json_decref(d25k);
  json_decref(s2);
  json_decref(s5);
}

static uint8_t *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
  *len = b ? fread(b, 1, (size_t)n, f) : 0;
  fclose(f);
  return b;
}

static json_t *wire_expected(const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.expected.json", WIRE, name);
  json_error_t je;
  json_t *j = json_load_file(path, 0, &je);
  if (!j) fprintf(stderr, "cannot load %s: %s\n", path, je.text);
  return j;
}

static int64_t sum_row_counts(const json_t *files) {
  int64_t n = 0;
  for (size_t i = 0; i < json_array_size(files); i++)
    n += json_integer_value(json_object_get(json_array_get(files, i), "rowCount"));
  return n;
}

/* Java golden files: an IncrementalSplit record is deserialized and re-serialized byte for byte. */
static void test_java_wire(void) {
  paimon_error err = {0};
  size_t len = 0;
  uint8_t *bytes = read_file(WIRE "/split-v1-incremental", &len);
  json_t *j = wire_expected("split-v1-incremental");
  CHECK(bytes && j);
  if (bytes && j) {
    json_t *ex = json_object_get(j, "expected");
    paimon_split *s = NULL;
    CHECK_OK(paimon_split_deserialize(bytes, len, &s, &err), &err);
    if (s) {
      json_t *after = json_object_get(ex, "afterFiles");
      CHECK_EQ_INT(paimon_split_is_incremental(s), 1);
      CHECK(paimon_split_snapshot_id(s) == json_integer_value(json_object_get(ex, "snapshotId")));
      CHECK_EQ_INT(paimon_split_bucket(s), (int)json_integer_value(json_object_get(ex, "bucket")));
      CHECK_EQ_INT((int)paimon_split_num_files(s), (int)json_array_size(after));
      CHECK(paimon_split_row_count(s) == sum_row_counts(after));
      CHECK_EQ_INT(paimon_split_is_streaming(s), json_is_true(json_object_get(ex, "isStreaming")));
      CHECK_EQ_INT(paimon_split_raw_convertible(s), 0);
      uint8_t *out = NULL;
      size_t out_len = 0;
      CHECK_OK(paimon_split_serialize(s, &out, &out_len, &err), &err);
      CHECK_MSG(out_len == len && out && !memcmp(out, bytes, len), "re-serialized %zu bytes vs %zu", out_len, len);
      paimon_free_bytes(out);
    }
    paimon_split_free(s);
    /* truncated records fail cleanly */
    for (size_t cut = 0; cut < len; cut += 37) {
      paimon_split *t = NULL;
      paimon_error e2 = {0};
      CHECK(paimon_split_deserialize(bytes, cut, &t, &e2) != PAIMON_OK);
      CHECK(t == NULL);
    }
  }
  free(bytes);
  json_decref(j);

  /* a SplitSerializer DataSplit record becomes a DataSplit */
  bytes = read_file(WIRE "/split-v1-data", &len);
  j = wire_expected("split-v1-data");
  CHECK(bytes && j);
  if (bytes && j) {
    json_t *ex = json_object_get(j, "expected");
    paimon_split *s = NULL;
    CHECK_OK(paimon_split_deserialize(bytes, len, &s, &err), &err);
    if (s) {
      CHECK_EQ_INT(paimon_split_is_incremental(s), 0);
      CHECK(paimon_split_snapshot_id(s) == json_integer_value(json_object_get(ex, "snapshotId")));
      CHECK_EQ_INT(paimon_split_bucket(s), (int)json_integer_value(json_object_get(ex, "bucket")));
      CHECK(paimon_split_row_count(s) == sum_row_counts(json_object_get(ex, "dataFiles")));
      CHECK_EQ_INT(paimon_split_raw_convertible(s), json_is_true(json_object_get(ex, "rawConvertible")));
      /* DataSplits serialize as DataSplit v9: the record's payload after its 16-byte header */
      uint8_t *out = NULL;
      size_t out_len = 0;
      CHECK_OK(paimon_split_serialize(s, &out, &out_len, &err), &err);
      CHECK_MSG(out_len + 16 == len && out && !memcmp(out, bytes + 16, out_len), "%zu vs %zu", out_len, len);
      paimon_free_bytes(out);
    }
    paimon_split_free(s);
  }
  free(bytes);
  json_decref(j);

  /* plain DataSplit payloads (v1 without magic, v9 with) still deserialize as DataSplits */
  const char *plain[] = {"datasplit-v1", "datasplit-v9"};
  for (size_t i = 0; i < 2; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", WIRE, plain[i]);
    bytes = read_file(path, &len);
    j = wire_expected(plain[i]);
    CHECK(bytes && j);
    json_t *env = json_object_get(j, "javaSerializationEnvelope");
    size_t off = (size_t)json_integer_value(json_object_get(env, "payloadOffset"));
    size_t plen = (size_t)json_integer_value(json_object_get(env, "payloadLength"));
    paimon_split *s = NULL;
    CHECK(off + plen <= len && plen > 0);
    if (bytes && off + plen <= len) CHECK_OK(paimon_split_deserialize(bytes + off, plen, &s, &err), &err);
    if (s) {
      json_t *ex = json_object_get(j, "expected");
      CHECK_EQ_INT(paimon_split_is_incremental(s), 0);
      CHECK(paimon_split_snapshot_id(s) == json_integer_value(json_object_get(ex, "snapshotId")));
      CHECK(paimon_split_row_count(s) == sum_row_counts(json_object_get(ex, "dataFiles")));
    }
    paimon_split_free(s);
    free(bytes);
    json_decref(j);
  }

  /* an IndexedSplit (type 3) reads back with its row ranges */
  bytes = read_file(WIRE "/split-v1-indexed", &len);
  CHECK(bytes != NULL);
  if (bytes) {
    paimon_split *s = NULL;
    paimon_error e2 = {0};
    CHECK_OK(paimon_split_deserialize(bytes, len, &s, &e2), &e2);
    if (s) {
      CHECK(paimon_split_snapshot_id(s) == 42);
      const int64_t *r = NULL;
      size_t n = 0;
      CHECK_EQ_INT(paimon_split_row_ranges(s, &r, &n), 1);
      CHECK_EQ_INT((int)n, 2);
      if (r && n == 2) CHECK(r[0] == 1 && r[1] == 4 && r[2] == 11 && r[3] == 13);
    }
    paimon_split_free(s);
  }
  free(bytes);
}

int main(void) {
  snprintf(tmp_root, sizeof tmp_root, "/tmp/pm_api_diff_XXXXXX");
  if (!mkdtemp(tmp_root)) {
    perror("mkdtemp");
    return 1;
  }
  int ok = setup_table() == 0;
  CHECK(ok);
  if (ok) {
    RUN_TEST(test_diff_reads);
    RUN_TEST(test_round_trip_and_mixing);
    RUN_TEST(test_limit_and_empty);
  }
  RUN_TEST(test_java_wire);
  paimon_table_free(g_table);
  paimon_catalog_free(g_cat);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmp_root);
  TEST_MAIN_END();
}
