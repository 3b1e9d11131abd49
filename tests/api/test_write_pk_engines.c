/*
 * Primary-key writes with the other merge engines and into Java-written
 * primary-key tables (issue 12 §1, §4):
 *  - partial-update (non-null overlay, several commits, keys repeated in one
 *    batch): paimon-table check + read and our reader = a model;
 *  - aggregation (sum, max): our reader = the model (paimon-table does not
 *    read aggregation tables), check passes;
 *  - first-row (lookup compaction in the writer): test_write_pk_lookup.c;
 *  - copies of Java fixture tables (deduplicate with bucket-key, partial-update
 *    with ignore-delete, deduplicate with sequence.field) take a commit of
 *    updated and new keys: both readers = the fixture's rows + the model.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "paimon/write.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/oracle_table.h"
#include "support/oracle_write.h"

static char wh[256];

static paimon_catalog *open_catalog(const char *warehouse) {
  paimon_error err = {0};
  paimon_option o[] = {{"warehouse", warehouse}};
  paimon_catalog *c = NULL;
  CHECK_OK(paimon_catalog_open(o, 1, &c, &err), &err);
  return c;
}

static paimon_table *get_table(paimon_catalog *c, const char *ident) {
  paimon_error err = {0};
  paimon_table *t = NULL;
  CHECK_OK(paimon_catalog_get_table(c, ident, &t, &err), &err);
  return t;
}

/* ------------------------------------------------------------ model */

typedef enum { M_DEDUP, M_PARTIAL, M_AGG } model_kind;

static char *key_of(const json_t *row, const char *const *keys, size_t nk) {
  json_t *k = json_array();
  for (size_t i = 0; i < nk; i++) json_array_append(k, json_object_get(row, keys[i]));
  char *s = json_dumps(k, JSON_COMPACT);
  json_decref(k);
  return s;
}

/* Applies +I rows (JSON lines or an array) to the model: dedup replaces, partial-update overlays
 * non-null values, aggregation sums "n" and keeps the max of "v" (other columns: last non-null). */
static void model_apply(json_t *model, json_t *rows, const char *const *keys, size_t nk, model_kind mk) {
  size_t i;
  json_t *r;
  json_array_foreach(rows, i, r) {
    char *k = key_of(r, keys, nk);
    json_t *cur = json_object_get(model, k);
    if (mk == M_DEDUP || !cur) {
      json_object_set_new(model, k, json_deep_copy(r));
    } else {
      const char *c;
      json_t *v;
      json_object_foreach(r, c, v) {
        json_t *old = json_object_get(cur, c);
        if (json_is_null(v)) continue;
        if (mk == M_AGG && !strcmp(c, "n") && old && !json_is_null(old)) {
          json_object_set_new(cur, c, json_integer(json_integer_value(old) + json_integer_value(v)));
        } else if (mk == M_AGG && !strcmp(c, "v") && old && !json_is_null(old)) {
          if (strcmp(json_string_value(v), json_string_value(old)) > 0) json_object_set(cur, c, v);
        } else {
          json_object_set(cur, c, v);
        }
      }
    }
    free(k);
  }
}

static json_t *model_rows(const json_t *model) {
  json_t *out = json_array();
  const char *k;
  json_t *v;
  json_object_foreach((json_t *)model, k, v) json_array_append(out, v);
  return out;
}

static void check_model(paimon_table *t, const char *dir, const json_t *model, int oracle_read, int allow_old,
                        const char *what) {
  json_t *want = model_rows(model);
  paimon_error err = {0};
  json_t *ours = ow_read_ours(t, &err);
  CHECK_MSG(ours != NULL, "%s: our read: %s", what, err.message);
  if (ours) {
    char msg[8192];
    CHECK_MSG(ot_rows_match(want, ours, msg, sizeof msg), "%s: our reader: %s", what, msg);
  }
  json_decref(ours);
  if (ot_available()) {
    /* the fixtures' own paimon-cpp-written files fail the Java Parquet profile (tools/README.md) */
    static const char *const cpp_files[] = {"Parquet root name \"schema\" (Java: paimon_schema)"};
    CHECK_MSG(ot_check_ok_allowing(dir, allow_old ? OT_ALLOW_OLD : 0, cpp_files, allow_old ? 1 : 0, what), "%s",
              what);
    if (oracle_read) CHECK_MSG(ot_read_equals(dir, NULL, want, what), "%s", what);
  }
  json_decref(want);
}

static json_t *lines(const char *jsonl) {
  size_t bad = 0;
  json_t *r = ot_parse_lines(jsonl, &bad);
  CHECK(r != NULL);
  return r ? r : json_array();
}

/* Writes +I rows in one batch commit. */
static void commit_rows(paimon_table *t, const char *jsonl) {
  paimon_error err = {0};
  CHECK_OK(ow_write_commit(t, NULL, 0, 0, jsonl, NULL, 0, 0, NULL, &err), &err);
}

/* ------------------------------------------------------------ own tables */

#define COLS "id INT NOT NULL, pt STRING NOT NULL, v STRING, n BIGINT"
static const char *const KEYS[] = {"pt", "id"};

static void engine_table(const char *name, const char *const *opts, size_t n_opts, model_kind mk, int oracle_read) {
  paimon_catalog *cat = open_catalog(wh);
  paimon_error err = {0};
  CHECK_OK(ow_create_table(cat, "d", name, COLS, "pt", opts, n_opts, 0, &err), &err);
  char ident[128], dir[512];
  snprintf(ident, sizeof ident, "d.%s", name);
  snprintf(dir, sizeof dir, "%s/d.db/%s", wh, name);
  paimon_table *t = get_table(cat, ident);
  json_t *model = json_object();
  const char *commits[] = {
      "{\"id\":1,\"pt\":\"a\",\"v\":\"m\",\"n\":1}\n{\"id\":2,\"pt\":\"a\",\"v\":null,\"n\":2}\n"
      "{\"id\":1,\"pt\":\"a\",\"v\":null,\"n\":5}\n{\"id\":1,\"pt\":\"b\",\"v\":\"q\",\"n\":null}\n",
      "{\"id\":2,\"pt\":\"a\",\"v\":\"z\",\"n\":null}\n{\"id\":1,\"pt\":\"a\",\"v\":\"c\",\"n\":7}\n"
      "{\"id\":3,\"pt\":\"b\",\"v\":\"k\",\"n\":3}\n{\"id\":3,\"pt\":\"b\",\"v\":\"x\",\"n\":-1}\n",
      "{\"id\":1,\"pt\":\"b\",\"v\":null,\"n\":10}\n{\"id\":2,\"pt\":\"a\",\"v\":\"a\",\"n\":4}\n"
      "{\"id\":4,\"pt\":\"c\",\"v\":null,\"n\":null}\n"};
  for (size_t c = 0; c < 3; c++) {
    commit_rows(t, commits[c]);
    json_t *rows = lines(commits[c]);
    model_apply(model, rows, KEYS, 2, mk);
    json_decref(rows);
    char what[128];
    snprintf(what, sizeof what, "%s commit %zu", name, c + 1);
    check_model(t, dir, model, oracle_read, 0, what);
  }
  json_decref(model);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

static void test_partial_update(void) {
  const char *opts[] = {"primary-key=pt,id", "bucket=2", "merge-engine=partial-update"};
  engine_table("pu", opts, 3, M_PARTIAL, 1);
}

static void test_aggregation(void) {
  const char *opts[] = {"primary-key=pt,id", "bucket=2", "merge-engine=aggregation", "fields.n.aggregate-function=sum",
                        "fields.v.aggregate-function=max"};
  engine_table("agg", opts, 5, M_AGG, 0);
}

/* ------------------------------------------------------------ Java tables */

typedef struct java_case {
  const char *db, *table, *expected;
  const char *keys[4];
  size_t nk;
  model_kind mk;
  const char *new_rows; /* updates of fixture keys and new keys (+I) */
} java_case;

static const java_case JAVA[] = {
    {"pk_table_scan_and_read_mor", "pk_table_scan_and_read_mor", "parquet__pk_table_scan_and_read_mor__snapshot-5.json",
     {"f1", "f0", "f2"}, 3, M_DEDUP,
     "{\"f0\":\"Bob\",\"f1\":10,\"f2\":0,\"f3\":99.5}\n{\"f0\":\"Zed\",\"f1\":10,\"f2\":1,\"f3\":null}\n"
     "{\"f0\":\"Emily\",\"f1\":10,\"f2\":0,\"f3\":-1.25}\n{\"f0\":\"Yan\",\"f1\":30,\"f2\":7,\"f3\":3.5}\n"},
    {"pk_table_partial_update", "pk_table_partial_update", "parquet__pk_table_partial_update__snapshot-2.json",
     {"k0", "k1"}, 2, M_PARTIAL,
     "{\"k0\":0,\"k1\":1,\"v0\":null,\"v1\":false,\"v2\":null}\n{\"k0\":1,\"k1\":0,\"v0\":null,\"v1\":null,\"v2\":\"set\"}\n"
     "{\"k0\":9,\"k1\":9,\"v0\":9.5,\"v1\":null,\"v2\":\"nine\"}\n"},
    {"pk_table_with_mor", "pk_table_with_mor", "parquet__pk_table_with_mor__snapshot-3.json", {"k1", "k0", "p0", "p1"},
     4, M_DEDUP, NULL /* built from the fixture's rows: same sequence.field values, new v0 */},
};

static json_t *expected_rows(const char *file) {
  char p[1024];
  snprintf(p, sizeof p, "%s/fixtures/expected/%s", PAIMON_SHARED_DIR, file);
  json_error_t je;
  json_t *e = json_load_file(p, 0, &je);
  CHECK_MSG(e != NULL, "%s: %s", p, je.text);
  if (!e) return json_array();
  json_t *cols = json_object_get(e, "columns");
  const char *names[64];
  size_t n = json_array_size(cols);
  for (size_t i = 0; i < n && i < 64; i++) names[i] = json_string_value(json_array_get(cols, i));
  json_t *rows = ot_rows_from_arrays(json_object_get(e, "rows"), names, n);
  json_decref(e);
  return rows;
}

static void test_java_tables(void) {
  for (size_t c = 0; c < sizeof JAVA / sizeof *JAVA; c++) {
    const java_case *jc = &JAVA[c];
    char root[512], cmd[2048];
    snprintf(root, sizeof root, "%s/java%zu", wh, c);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/%s.db' && cp -r '%s/fixtures/warehouse/parquet/%s.db/%s' '%s/%s.db/' && "
             "chmod -R u+w '%s'",
             root, jc->db, PAIMON_SHARED_DIR, jc->db, jc->table, root, jc->db, root);
    CHECK_EQ_INT(system(cmd), 0);
    char dir[1024], ident[256];
    snprintf(dir, sizeof dir, "%s/%s.db/%s", root, jc->db, jc->table);
    snprintf(ident, sizeof ident, "%s.%s", jc->db, jc->table);
    paimon_catalog *cat = open_catalog(root);
    paimon_table *t = get_table(cat, ident);
    json_t *model = json_object();
    json_t *old = expected_rows(jc->expected);
    model_apply(model, old, jc->keys, jc->nk, M_DEDUP);
    json_t *add;
    char *text = NULL;
    if (jc->new_rows) {
      add = lines(jc->new_rows);
      text = strdup(jc->new_rows);
    } else { /* every other fixture row with a new v0, plus a new key */
      add = json_array();
      size_t i;
      json_t *r;
      json_array_foreach(old, i, r) {
        if (i % 2) continue;
        json_t *n = json_deep_copy(r);
        json_object_set_new(n, "v0", json_integer(1000 + (json_int_t)i));
        json_array_append_new(add, n);
      }
      json_t *n = json_deep_copy(json_array_get(old, 0));
      json_object_set_new(n, "k1", json_integer(77));
      json_array_append_new(add, n);
      pm_buf b;
      pm_buf_init(&b);
      json_array_foreach(add, i, r) {
        char *s = json_dumps(r, JSON_COMPACT);
        pm_buf_append(&b, s, strlen(s));
        pm_buf_append(&b, "\n", 1);
        free(s);
      }
      pm_buf_append(&b, "", 1);
      text = strdup((const char *)b.data);
      pm_buf_free(&b);
    }
    commit_rows(t, text);
    model_apply(model, add, jc->keys, jc->nk, jc->mk);
    check_model(t, dir, model, 1, 1, jc->table);
    free(text);
    json_decref(add);
    json_decref(old);
    json_decref(model);
    paimon_table_free(t);
    paimon_catalog_free(cat);
  }
}

int main(void) {
  snprintf(wh, sizeof wh, "/tmp/pm_write_pk_eng_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  RUN_TEST(test_partial_update);
  RUN_TEST(test_aggregation);
  RUN_TEST(test_java_tables);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && system(cmd)) return 1;
  TEST_MAIN_END();
}
