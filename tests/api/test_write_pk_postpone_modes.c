/*
 * Postpone buckets (`bucket` = -2) with stream reads, merge engines and
 * deletion vectors (issue 12 §1-2):
 *   - stream scans as Java's DataTableStreamScan: with changelog-producer
 *     none a stream gives every record the postpone writes committed (row
 *     kinds kept, unmerged) and skips the COMPACT snapshot; with
 *     changelog-producer = input it skips the bucket -2 files and gives the
 *     compaction's changelog (the replayed records);
 *   - partial-update, first-row and deletion vectors: pending rows merge at
 *     compaction with the real buckets' rows as the model says (one flush of
 *     all pending rows per compaction), for our reader and `paimon-table read`;
 *   - a retract a first-row table refuses fails the write (Java's validateRetract).
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "paimon/compact.h"
#include "paimon/stream.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/postpone_table.h"
#include "support/stream_rows.h"

static char wh[256];

static const char *table_dir(const char *name) {
  static char d[512];
  snprintf(d, sizeof d, "%s/d.db/%s", wh, name);
  return d;
}

static const char *const KIND_TEXT[4] = {"+I", "-U", "+U", "-D"};

/* The rows as the stream reads them ([_row_kind, id, dt, v, n]) in compact JSON, sorted. */
static char **sorted_texts(const json_t *rows, size_t *n) {
  *n = json_array_size(rows);
  char **s = calloc(*n + 1, sizeof *s);
  for (size_t i = 0; i < *n; i++) s[i] = json_dumps(json_array_get(rows, i), JSON_COMPACT);
  qsort(s, *n, sizeof *s, ot_cmp_str);
  return s;
}

static void expect_stream(paimon_table *t, const json_t *want, const char *what) {
  paimon_error err = {0};
  paimon_option o[] = {{"scan.mode", "from-snapshot"}, {"scan.snapshot-id", "1"}};
  paimon_read_builder *rb = NULL;
  paimon_stream_scan *ss = NULL;
  CHECK_OK(paimon_read_builder_new(t, o, 2, &rb, &err), &err);
  paimon_read_builder_with_row_kind(rb, 1);
  CHECK_OK(paimon_stream_scan_new(rb, &ss, &err), &err);
  json_t *rows = json_array();
  CHECK_OK(sr_drain(ss, rb, rows, 16, NULL, &err), &err);
  size_t na, nb;
  char **a = sorted_texts(rows, &na), **b = sorted_texts(want, &nb);
  int same = na == nb;
  for (size_t i = 0; same && i < na; i++) same = !strcmp(a[i], b[i]);
  CHECK_MSG(same, "%s: stream gave %zu rows, want %zu (first: %s vs %s)", what, na, nb, na ? a[0] : "-",
            nb ? b[0] : "-");
  for (size_t i = 0; i < na; i++) free(a[i]);
  for (size_t i = 0; i < nb; i++) free(b[i]);
  free(a);
  free(b);
  json_decref(rows);
  paimon_stream_scan_free(ss);
  paimon_read_builder_free(rb);
}

static void add_expected(json_t *want, const pp_row *r, size_t n) {
  for (size_t i = 0; i < n; i++)
    json_array_append_new(want, json_pack("[s,i,s,o,I]", KIND_TEXT[r[i].kind], r[i].id, r[i].dt,
                                          r[i].v ? json_string(r[i].v) : json_null(), (json_int_t)r[i].n));
}

static const pp_row W1[] = {{1, "a", "x", 1, 0}, {2, "a", "y", 2, 0}, {1, "a", "x2", 3, 2}, {3, "b", NULL, 4, 0}};
static const pp_row W2[] = {{2, "a", "y", 2, 3}, {4, "a", "z", 5, 0}, {3, "b", "w", 6, 2}};

static void test_stream(void) {
  paimon_catalog *cat = pkw_open_catalog(wh);
  paimon_error err = {0};
  for (int input = 0; input < 2; input++) {
    const char *opts[] = {"changelog-producer=input"};
    paimon_table *t = pp_create(cat, input ? "st_input" : "st_none", opts, input);
    CHECK_OK(pp_write(t, NULL, W1, 4, NULL, &err), &err);
    CHECK_OK(pp_write(t, NULL, W2, 3, NULL, &err), &err);
    paimon_compact_result res;
    CHECK_OK(paimon_table_compact(t, NULL, &res, &err), &err);
    CHECK_EQ_INT(res.snapshot_id, 3);
    /* none: the records written, not the compaction; input: the compaction's changelog (the same records) */
    json_t *want = json_array();
    add_expected(want, W1, 4);
    add_expected(want, W2, 3);
    expect_stream(t, want, input ? "changelog-producer = input" : "changelog-producer = none");
    json_decref(want);
    paimon_table_free(t);
  }
  paimon_catalog_free(cat);
}

/* ------------------------------------------------------------ engines */

static void run_engine(const char *name, pkm_engine engine, const char *const *opts, size_t n_opts, int deletes) {
  paimon_catalog *cat = pkw_open_catalog(wh);
  paimon_table *t = pp_create(cat, name, opts, n_opts);
  const char *dir = table_dir(name);
  pkm_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.engine = engine;
  cfg.n_cols = 4;
  cfg.cols = PP_MODEL_COLS;
  cfg.n_keys = 2;
  pkm_model *m = pkm_new(&cfg);
  paimon_error err = {0};
  pp_row r[32];
  char vals[32][24];
  for (int round = 0; round < 2; round++) {
    for (int c = 0; c < 3; c++) {
      for (int i = 0; i < 24; i++) {
        int id = (round * 11 + c * 5 + i * 3) % 16;
        snprintf(vals[i], sizeof vals[i], "r%dc%di%d", round, c, i);
        int kind = deletes && (c + i) % 6 == 5 ? PKM_DELETE : PKM_INSERT;
        r[i] = (pp_row){id, i % 2 ? "a" : "b", (i + c) % 4 == 3 ? NULL : vals[i], (i + c) % 5 == 4 ? 0 : i * 10 + c,
                        kind};
      }
      CHECK_OK(pp_write(t, NULL, r, 24, m, &err), &err);
    }
    paimon_compact_result res;
    CHECK_OK(paimon_table_compact(t, NULL, &res, &err), &err);
    pkm_flush(m);
    json_t *want = pkm_rows(m);
    json_t *ours = ow_read_ours(t, &err);
    char msg[8192], what[96];
    snprintf(what, sizeof what, "%s: round %d", name, round);
    CHECK_MSG(ours && ot_rows_match(want, ours, msg, sizeof msg), "%s: our reader: %s", what, ours ? msg : err.message);
    json_decref(ours);
    if (round == 1 && ot_available()) {
      CHECK_MSG(pp_check_ok(dir, 0, what), "%s", what);
      CHECK_MSG(ot_read_equals(dir, NULL, want, what), "%s", what);
    }
    json_decref(want);
  }
  pkm_free(m);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

static void test_partial_update(void) {
  const char *o[] = {"merge-engine=partial-update", "postpone.default-bucket-num=2"};
  run_engine("pu", PKM_PARTIAL_UPDATE, o, 2, 0);
}

static void test_first_row(void) {
  const char *o[] = {"merge-engine=first-row", "postpone.default-bucket-num=2"};
  run_engine("fr", PKM_FIRST_ROW, o, 2, 0);
}

static void test_deletion_vectors(void) {
  const char *o[] = {"deletion-vectors.enabled=true", "postpone.default-bucket-num=2"};
  run_engine("dv", PKM_DEDUPLICATE, o, 2, 1);
}

/* Java's validateRetract: the first retract goes through the merge function at the write, so an
 * engine that refuses it fails the write (nothing committed), not every later compaction. */
static void test_retract_validation(void) {
  paimon_catalog *cat = pkw_open_catalog(wh);
  paimon_error err = {0};
  const char *fr[] = {"merge-engine=first-row"};
  paimon_table *t = pp_create(cat, "val_fr", fr, 1);
  pp_row del[] = {{7, "a", NULL, 0, PKM_DELETE}};
  CHECK_EQ_INT(pp_write(t, NULL, del, 1, NULL, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(err.message, "first-row") != NULL, "%s", err.message);
  paimon_compact_result res;
  CHECK_OK(paimon_table_compact(t, NULL, &res, &err), &err);
  CHECK_EQ_INT(res.snapshot_id, -1); /* nothing was committed */
  paimon_table_free(t);
  /* ignore-delete drops the retract before the check (first-row keeps x) */
  const char *ig[] = {"merge-engine=first-row", "ignore-delete=true"};
  t = pp_create(cat, "val_ig", ig, 2);
  pp_row rows[] = {{7, "a", "x", 1, PKM_INSERT}, {7, "a", NULL, 0, PKM_DELETE}, {7, "a", "y", 2, PKM_INSERT}};
  CHECK_OK(pp_write(t, NULL, rows, 3, NULL, &err), &err);
  CHECK_OK(paimon_table_compact(t, NULL, &res, &err), &err);
  json_t *ours = ow_read_ours(t, &err);
  CHECK_MSG(ours && json_array_size(ours) == 1, "%s", err.message);
  if (ours && json_array_size(ours) == 1)
    CHECK(!strcmp(json_string_value(json_object_get(json_array_get(ours, 0), "v")), "x"));
  json_decref(ours);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

int main(void) {
  snprintf(wh, sizeof wh, "/tmp/pm_pk_postpone_modes_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  RUN_TEST(test_stream);
  RUN_TEST(test_partial_update);
  RUN_TEST(test_first_row);
  RUN_TEST(test_deletion_vectors);
  RUN_TEST(test_retract_validation);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && !getenv("PM_KEEP") && system(cmd)) return 1;
  TEST_MAIN_END();
}
