/*
 * Row-id column updates of data-evolution tables (paimon/update.h), on tables we create:
 *   - unpartitioned and partitioned tables take appends and updates of random column subsets
 *     by _ROW_ID; after each commit paimon-table read (an independent reader: per row-id group
 *     the newest file per column) and our reader return the model (row id -> values) and
 *     paimon-table check (strict) passes; the update files hold only the updated columns
 *     (_WRITE_COLS) and cover exactly their row range;
 *   - stream updates (identifiers per round);
 *   - invalid arguments fail before any file is written (table directory unchanged);
 *   - two updaters planned on one snapshot: overlapping rows and a common column -> the second
 *     commit is PAIMON_ERR_CONFLICT and nothing is published; other columns -> both commit.
 * Row ids of the unpartitioned table are derived from commit order (one file per commit); those
 * of the partitioned table from our reader's _ROW_ID column (checked independently by
 * api_test_write_rowid).
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "support/oracle_table.h"
#include "support/oracle_write.h"
#include "support/rowid_update.h"

static char tmp_root[256];

static const char *const DE_OPTS[] = {"row-tracking.enabled=true", "data-evolution.enabled=true"};

typedef struct fixture {
  char wh[512], dir[1200], ident[300];
  paimon_catalog *cat;
  paimon_table *t;
} fixture;

static int open_fixture(fixture *f, const char *name, const char *columns, const char *pkeys,
                        const char *const *opts, size_t n_opts) {
  memset(f, 0, sizeof *f);
  snprintf(f->wh, sizeof f->wh, "%s/%s", tmp_root, name);
  snprintf(f->dir, sizeof f->dir, "%s/db.db/%s", f->wh, name);
  snprintf(f->ident, sizeof f->ident, "db.%s", name);
  char cmd[700];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", f->wh);
  CHECK(system(cmd) == 0);
  paimon_option wo = {"warehouse", f->wh};
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_open(&wo, 1, &f->cat, &err), &err);
  if (!f->cat) return 0;
  CHECK_OK(ow_create_table(f->cat, "db", name, columns, pkeys, opts, n_opts, 0, &err), &err);
  CHECK_OK(paimon_catalog_get_table(f->cat, f->ident, &f->t, &err), &err);
  return f->t != NULL;
}

static void refresh(fixture *f) {
  paimon_error err = {0};
  paimon_table_free(f->t);
  f->t = NULL;
  CHECK_OK(paimon_catalog_get_table(f->cat, f->ident, &f->t, &err), &err);
}

static void close_fixture(fixture *f) {
  paimon_table_free(f->t);
  paimon_catalog_free(f->cat);
}

/* model: array indexed by row id */
static void append_rows(fixture *f, json_t *model, int n, const char *part) {
  char *lines = malloc(256 * (size_t)n + 1);
  lines[0] = 0;
  json_t *rows = json_array();
  for (int i = 0; i < n; i++) {
    int id = (int)json_array_size(model) + i;
    json_t *o = json_pack("{s:i, s:s+, s:i}", "id", id, "name", "n", "x", "score", id * 10);
    char nm[32];
    snprintf(nm, sizeof nm, "n%d", id);
    json_object_set_new(o, "name", json_string(nm));
    if (part) json_object_set_new(o, "p", json_string(part));
    char *s = json_dumps(o, JSON_COMPACT);
    strcat(lines, s);
    strcat(lines, "\n");
    free(s);
    json_array_append_new(rows, o);
  }
  paimon_error err = {0};
  CHECK_OK(ow_write_commit(f->t, NULL, 0, 0, lines, NULL, 0, 0, NULL, &err), &err);
  json_array_extend(model, rows);
  json_decref(rows);
  free(lines);
  refresh(f);
}

/* oracle: 0 = our reader only (between the phases, to keep the oracle calls few) */
static int verify_with(fixture *f, const json_t *model, const char *what, int oracle) {
  int ok = !oracle || ot_check_ok(f->dir, 0, what);
  if (oracle) ok &= ot_read_equals(f->dir, NULL, model, what);
  paimon_error err = {0};
  json_t *ours = ow_read_ours(f->t, &err);
  char msg[8192];
  int m = ours && ot_rows_match(model, ours, msg, sizeof msg);
  CHECK_MSG(m, "%s: our reader: %s", what, ours ? msg : err.message);
  json_decref(ours);
  return ok && m;
}

static int verify(fixture *f, const json_t *model, const char *what) { return verify_with(f, model, what, 1); }

/* Updates `cols` (names) of the given row ids with fresh values; applies them to the model. */
static paimon_status update(fixture *f, json_t *model, const char *const *cols, size_t n, const int64_t *ids,
                            size_t n_ids, int tag, int streaming, int64_t ident, paimon_error *err) {
  char fields[256] = "_ROW_ID BIGINT NOT NULL";
  for (size_t c = 0; c < n; c++) {
    strcat(fields, ", ");
    strcat(fields, cols[c]);
    strcat(fields, !strcmp(cols[c], "score") ? " INT" : " STRING");
  }
  char *lines = malloc(128 * (n_ids + 1));
  lines[0] = 0;
  json_t *vals = json_array();
  for (size_t i = 0; i < n_ids; i++) {
    json_t *o = json_object();
    json_object_set_new(o, "_ROW_ID", json_integer(ids[i]));
    json_t *v = json_object();
    for (size_t c = 0; c < n; c++) {
      json_t *x;
      if (!strcmp(cols[c], "score")) x = (tag + ids[i]) % 7 == 0 ? json_null() : json_integer(tag * 1000 + ids[i]);
      else {
        char s[48];
        snprintf(s, sizeof s, "u%d-%lld", tag, (long long)ids[i]);
        x = json_string(s);
      }
      json_object_set(o, cols[c], x);
      json_object_set_new(v, cols[c], x);
    }
    json_array_append_new(vals, v);
    char *s = json_dumps(o, JSON_COMPACT);
    strcat(lines, s);
    strcat(lines, "\n");
    free(s);
    json_decref(o);
  }
  paimon_status st = ru_update_commit(f->t, streaming, ident, cols, n, fields, lines, NULL, err);
  if (!st)
    for (size_t i = 0; i < n_ids; i++) json_object_update(json_array_get(model, (size_t)ids[i]), json_array_get(vals, i));
  json_decref(vals);
  free(lines);
  refresh(f);
  return st;
}

static void test_unpartitioned(void) {
  fixture f;
  if (!open_fixture(&f, "u", "id INT, name STRING, score INT", NULL, DE_OPTS, 2)) return;
  json_t *model = json_array();
  append_rows(&f, model, 3, NULL); /* rows 0..2 */
  append_rows(&f, model, 4, NULL); /* rows 3..6 */
  paimon_error err = {0};
  const char *name[] = {"name"}, *both[] = {"score", "name"}, *score[] = {"score"};
  int64_t a[] = {0, 2, 5};
  CHECK_OK(update(&f, model, name, 1, a, 3, 1, 0, 0, &err), &err);
  CHECK(verify_with(&f, model, "u: name of rows 0, 2, 5", 0));
  int64_t b[] = {6, 1, 5, 3};
  CHECK_OK(update(&f, model, both, 2, b, 4, 2, 0, 0, &err), &err);
  CHECK(verify_with(&f, model, "u: score and name of rows 1, 3, 5, 6", 0));
  append_rows(&f, model, 2, NULL); /* rows 7..8 */
  int64_t c[] = {8, 0};
  CHECK_OK(update(&f, model, score, 1, c, 2, 3, 0, 0, &err), &err);
  CHECK(verify(&f, model, "u: score of rows 0, 8"));
  /* the update files: only their columns, exactly their row range (manifest read by avro-dump) */
  char cmd[1600], *out = NULL;
  snprintf(cmd, sizeof cmd,
           "for m in '%s'/manifest/manifest-[0-9a-f]*; do case $m in *manifest-list*) ;; *) %s/tools/avro-dump \"$m\" "
           "--records;; esac; done",
           f.dir, PAIMON_SHARED_DIR);
  CHECK(ot_shell(cmd, &out) == 0);
  json_t *entries = ot_parse_lines(out ? out : "", NULL);
  size_t i, n_upd = 0;
  json_t *e;
  json_array_foreach(entries, i, e) {
    json_t *file = json_object_get(e, "_FILE");
    json_t *wc = json_object_get(file, "_WRITE_COLS");
    if (!json_is_array(wc)) continue;
    n_upd++;
    long long first = json_integer_value(json_object_get(file, "_FIRST_ROW_ID"));
    long long rows = json_integer_value(json_object_get(file, "_ROW_COUNT"));
    CHECK_MSG((first == 0 && rows == 3) || (first == 3 && rows == 4) || (first == 7 && rows == 2),
              "update file covers rows %lld+%lld", first, rows);
    CHECK(json_array_size(wc) == 1 || json_array_size(wc) == 2);
    CHECK_EQ_INT(json_integer_value(json_object_get(file, "_FILE_SOURCE")), 0);
  }
  CHECK_EQ_INT(n_upd, 6);
  json_decref(entries);
  free(out);
  json_decref(model);
  close_fixture(&f);
}

/* Row ids of the partitioned table: from our reader (id -> _ROW_ID). */
static void row_ids_of(fixture *f, json_t *model) {
  paimon_error err = {0};
  paimon_option o = {"x", "y"};
  (void)o;
  paimon_read_builder *rb = NULL;
  paimon_plan *plan = NULL;
  struct ArrowArrayStream st = {0};
  const char *cols[2] = {"id", "_ROW_ID"};
  CHECK_OK(paimon_read_builder_new(f->t, NULL, 0, &rb, &err), &err);
  CHECK_OK(paimon_read_builder_with_projection(rb, cols, 2, &err), &err);
  CHECK_OK(paimon_read_builder_plan(rb, &plan, &err), &err);
  CHECK_OK(paimon_read_plan(rb, plan, &st, &err), &err);
  json_t *by_id = json_array();
  for (size_t i = 0; i < json_array_size(model); i++) json_array_append(by_id, json_array_get(model, i));
  json_array_clear(model);
  for (size_t i = 0; i < json_array_size(by_id); i++) json_array_append_new(model, json_null());
  for (;;) {
    struct ArrowArray a;
    if (!st.release || st.get_next(&st, &a) || !a.release) break;
    const int32_t *ids = a.children[0]->buffers[1];
    const int64_t *rid = a.children[1]->buffers[1];
    for (int64_t r = 0; r < a.length; r++)
      json_array_set(model, (size_t)rid[a.children[1]->offset + r], json_array_get(by_id, (size_t)ids[a.children[0]->offset + r]));
    a.release(&a);
  }
  if (st.release) st.release(&st);
  paimon_plan_free(plan);
  paimon_read_builder_free(rb);
  json_decref(by_id);
}

static void test_partitioned_stream(void) {
  fixture f;
  if (!open_fixture(&f, "p", "id INT, name STRING, score INT, p STRING", "p", DE_OPTS, 2)) return;
  json_t *model = json_array();
  append_rows(&f, model, 3, "a");
  append_rows(&f, model, 2, "b");
  append_rows(&f, model, 4, "a");
  row_ids_of(&f, model);
  paimon_error err = {0};
  const char *name[] = {"name"}, *score[] = {"score"};
  int64_t a[] = {0, 4, 8};
  CHECK_OK(update(&f, model, name, 1, a, 3, 1, 1, 1, &err), &err);
  CHECK(verify_with(&f, model, "p: stream round 1", 0));
  int64_t b[] = {3, 5, 6};
  CHECK_OK(update(&f, model, score, 1, b, 3, 2, 1, 2, &err), &err);
  CHECK(verify(&f, model, "p: stream round 2"));
  /* a partition column is not updatable */
  const char *pcol[] = {"p"};
  paimon_write_builder *wb = NULL;
  paimon_table_update *u = NULL;
  CHECK_OK(paimon_write_builder_new(f.t, 0, NULL, 0, &wb, &err), &err);
  CHECK_EQ_INT(paimon_write_builder_new_update_by_row_id(wb, pcol, 1, &u, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "partition key") != NULL);
  paimon_write_builder_free(wb);
  json_decref(model);
  close_fixture(&f);
}

static void expect_fail(fixture *f, const char *const *cols, size_t n, const char *fields, const char *lines,
                        paimon_status want, const char *needle) {
  uint64_t before = ot_state_hash(f->dir);
  paimon_error err = {0};
  paimon_status st = ru_update_commit(f->t, 0, 0, cols, n, fields, lines, NULL, &err);
  CHECK_MSG(st == want, "%s: got %s (%s)", needle, paimon_status_name(st), err.message);
  CHECK_MSG(strstr(err.message, needle) != NULL, "message '%s' lacks '%s'", err.message, needle);
  CHECK_MSG(ot_state_hash(f->dir) == before, "%s: the table directory changed", needle);
}

static void test_invalid(void) {
  fixture f;
  if (!open_fixture(&f, "inv", "id INT, name STRING, score INT NOT NULL", NULL, DE_OPTS, 2)) return;
  json_t *model = json_array();
  append_rows(&f, model, 3, NULL);
  const char *name[] = {"name"}, *none[] = {"nope"}, *dup[] = {"name", "name"}, *score[] = {"score"};
  const char *rs = "_ROW_ID BIGINT NOT NULL, name STRING";
  expect_fail(&f, name, 1, "name STRING", "{\"name\":\"x\"}\n", PAIMON_ERR_INVALID_ARGUMENT, "no _ROW_ID column");
  expect_fail(&f, name, 1, "_ROW_ID BIGINT NOT NULL, score INT", "{\"_ROW_ID\":0,\"score\":1}\n",
              PAIMON_ERR_INVALID_ARGUMENT, "has no column 'name'");
  expect_fail(&f, name, 1, rs, "{\"_ROW_ID\":0,\"name\":\"x\"}\n{\"_ROW_ID\":0,\"name\":\"y\"}\n",
              PAIMON_ERR_INVALID_ARGUMENT, "appears twice");
  expect_fail(&f, name, 1, rs, "{\"_ROW_ID\":3,\"name\":\"x\"}\n", PAIMON_ERR_INVALID_ARGUMENT, "belongs to no live file");
  expect_fail(&f, name, 1, "_ROW_ID BIGINT, name STRING", "{\"_ROW_ID\":null,\"name\":\"x\"}\n",
              PAIMON_ERR_INVALID_ARGUMENT, "_ROW_ID is null");
  expect_fail(&f, name, 1, "_ROW_ID DOUBLE NOT NULL, name STRING", "{\"_ROW_ID\":1,\"name\":\"x\"}\n",
              PAIMON_ERR_INVALID_ARGUMENT, "must be an integer");
  expect_fail(&f, name, 1, "_ROW_ID STRING NOT NULL, name STRING", "{\"_ROW_ID\":\"1x\",\"name\":\"x\"}\n",
              PAIMON_ERR_INVALID_ARGUMENT, "is not a row id");
  expect_fail(&f, none, 1, rs, "{\"_ROW_ID\":1,\"name\":\"x\"}\n", PAIMON_ERR_INVALID_ARGUMENT, "not found");
  expect_fail(&f, dup, 2, rs, "{\"_ROW_ID\":1,\"name\":\"x\"}\n", PAIMON_ERR_INVALID_ARGUMENT, "given twice");
  expect_fail(&f, score, 1, "_ROW_ID BIGINT NOT NULL, score INT", "{\"_ROW_ID\":1,\"score\":null}\n",
              PAIMON_ERR_INVALID_ARGUMENT, "score");
  expect_fail(&f, name, 0, rs, "{\"_ROW_ID\":1,\"name\":\"x\"}\n", PAIMON_ERR_INVALID_ARGUMENT, "no column to update");
  /* a second batch touching the same range in one round */
  paimon_write_builder *wb = NULL;
  paimon_table_update *u = NULL;
  paimon_error err = {0};
  struct ArrowSchema s;
  struct ArrowArray a;
  char msg[256];
  CHECK(ru_batch(rs, "{\"_ROW_ID\":1,\"name\":\"x\"}\n", &s, &a, msg, sizeof msg) == 0);
  uint64_t before = ot_state_hash(f.dir);
  CHECK_OK(paimon_write_builder_new(f.t, 0, NULL, 0, &wb, &err), &err);
  CHECK_OK(paimon_write_builder_new_update_by_row_id(wb, name, 1, &u, &err), &err);
  CHECK_OK(paimon_table_update_columns(u, &s, &a, &err), &err);
  CHECK_EQ_INT(paimon_table_update_columns(u, &s, &a, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "already updated") != NULL);
  paimon_table_update_free(u); /* its file is deleted */
  paimon_write_builder_free(wb);
  CHECK_MSG(ot_state_hash(f.dir) == before, "an updater freed before its prepare left files");
  a.release(&a);
  s.release(&s);
  CHECK(verify_with(&f, model, "inv: after the refused updates", 0));
  json_decref(model);
  close_fixture(&f);
  /* tables without data evolution */
  fixture g;
  if (!open_fixture(&g, "plain", "id INT, name STRING", NULL, DE_OPTS, 1)) return;
  expect_fail(&g, name, 1, rs, "{\"_ROW_ID\":0,\"name\":\"x\"}\n", PAIMON_ERR_UNSUPPORTED, "data-evolution.enabled");
  close_fixture(&g);
}

/* Two updaters planned on the same snapshot. */
static void test_conflict(void) {
  fixture f;
  if (!open_fixture(&f, "c", "id INT, name STRING, score INT", NULL, DE_OPTS, 2)) return;
  json_t *model = json_array();
  append_rows(&f, model, 4, NULL);
  append_rows(&f, model, 4, NULL);
  const char *name[] = {"name"}, *score[] = {"score"};
  const char *rs_name = "_ROW_ID BIGINT NOT NULL, name STRING", *rs_score = "_ROW_ID BIGINT NOT NULL, score INT";
  struct {
    const char *const *cols;
    const char *fields, *lines;
  } cases[3] = {{name, rs_name, "{\"_ROW_ID\":1,\"name\":\"first\"}\n"},
                {name, rs_name, "{\"_ROW_ID\":2,\"name\":\"second\"}\n"},    /* same range, same column */
                {score, rs_score, "{\"_ROW_ID\":1,\"score\":77}\n{\"_ROW_ID\":5,\"score\":78}\n"}}; /* other column */
  paimon_write_builder *wb[3] = {0};
  paimon_table_update *u[3] = {0};
  paimon_commit_messages *m[3] = {0};
  paimon_error err = {0};
  for (int i = 0; i < 3; i++) {
    struct ArrowSchema s;
    struct ArrowArray a;
    char msg[256];
    CHECK(ru_batch(cases[i].fields, cases[i].lines, &s, &a, msg, sizeof msg) == 0);
    CHECK_OK(paimon_write_builder_new(f.t, 0, NULL, 0, &wb[i], &err), &err);
    CHECK_OK(paimon_write_builder_new_update_by_row_id(wb[i], cases[i].cols, 1, &u[i], &err), &err);
    CHECK_OK(paimon_table_update_columns(u[i], &s, &a, &err), &err);
    CHECK_OK(paimon_table_update_prepare_commit(u[i], PAIMON_BATCH_COMMIT_IDENTIFIER, &m[i], &err), &err);
    a.release(&a);
    s.release(&s);
  }
  paimon_status want[3] = {PAIMON_OK, PAIMON_ERR_CONFLICT, PAIMON_OK};
  for (int i = 0; i < 3; i++) {
    paimon_table_commit *c = NULL;
    uint64_t before = ot_state_hash(f.dir);
    CHECK_OK(paimon_write_builder_new_commit(wb[i], &c, &err), &err);
    paimon_status st = paimon_table_commit_commit(c, m[i], PAIMON_BATCH_COMMIT_IDENTIFIER, NULL, &err);
    CHECK_MSG(st == want[i], "updater %d: %s (%s)", i, paimon_status_name(st), err.message);
    if (st == PAIMON_ERR_CONFLICT) {
      CHECK(strstr(err.message, "row id conflict") != NULL);
      CHECK_MSG(ot_state_hash(f.dir) == before, "the conflicting commit changed the table");
      CHECK_OK(paimon_table_commit_abort(c, m[i], &err), &err);
    }
    paimon_table_commit_free(c);
  }
  json_object_set_new(json_array_get(model, 1), "name", json_string("first"));
  json_object_set_new(json_array_get(model, 1), "score", json_integer(77));
  json_object_set_new(json_array_get(model, 5), "score", json_integer(78));
  refresh(&f);
  CHECK(verify(&f, model, "c: after the concurrent updates"));
  for (int i = 0; i < 3; i++) {
    paimon_commit_messages_free(m[i]);
    paimon_table_update_free(u[i]);
    paimon_write_builder_free(wb[i]);
  }
  json_decref(model);
  close_fixture(&f);
}

int main(void) {
  if (!ot_available()) TEST_MAIN_END();
  snprintf(tmp_root, sizeof tmp_root, "/tmp/pm_test_update_rowid_XXXXXX");
  if (!mkdtemp(tmp_root)) return 1;
  RUN_TEST(test_unpartitioned);
  RUN_TEST(test_partitioned_stream);
  RUN_TEST(test_invalid);
  RUN_TEST(test_conflict);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (!getenv("PM_KEEP") && !pm_test_failures && system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
  TEST_MAIN_END();
}
