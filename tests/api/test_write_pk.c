/*
 * Primary-key table writes through the public API (write.h; issue 12 §1):
 * fixed buckets, deduplicate, row kinds (a whole batch of one kind, or a
 * row-kind column), ignore-delete. After every commit the table passes
 * `paimon-table check`, and `paimon-table read` and our reader both return
 * exactly what a tiny model says (a map key -> row applying the written rows
 * in order). Also: the files' key/value layout and DataFileMeta (level 0,
 * min/max key, delete row count, sequence numbers continuing per bucket),
 * and a randomized run of upserts / deletes over 1000 keys.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arrow/arrow.h"
#include "arrow/json_read.h"
#include "arrow/type.h"
#include "harness.h"
#include "paimon/write.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/oracle_table.h"
#include "support/oracle_write.h"
#include "support/pk_write.h"

static char wh[256];

static const char *table_dir(const char *name) {
  static char d[512];
  snprintf(d, sizeof d, "%s/d.db/%s", wh, name);
  return d;
}

static paimon_catalog *open_catalog(void) { return pkw_open_catalog(wh); }

static paimon_table *get_table(paimon_catalog *c, const char *name) {
  char id[128];
  snprintf(id, sizeof id, "d.%s", name);
  return pkw_get_table(c, id);
}

/* The test tables: id INT NOT NULL, pt STRING NOT NULL (partition), v STRING, n BIGINT; PK (pt, id). */
#define TABLE_COLS "id INT NOT NULL, pt STRING NOT NULL, v STRING, n BIGINT"
static const char *const COLS[] = {"id:i:notnull", "pt:u:notnull", "v:u", "n:l", "_rk:c:notnull"};

static paimon_table *make_table(paimon_catalog *cat, const char *name, const char *const *extra, size_t n_extra) {
  const char *opts[16] = {"primary-key=pt,id", "bucket=3"};
  size_t n = 2;
  for (size_t i = 0; i < n_extra && n < 16; i++) opts[n++] = extra[i];
  paimon_error err = {0};
  CHECK_OK(ow_create_table(cat, "d", name, TABLE_COLS, "pt", opts, n, 0, &err), &err);
  return get_table(cat, name);
}

/* A batch from JSON lines: the table columns, plus the int8 "_rk" column when with_kind. */
static void batch(const char *jsonl, int with_kind, struct ArrowSchema *s, struct ArrowArray *a) {
  pkw_batch(COLS, with_kind ? 5 : 4, jsonl, s, a);
}

/* One write of a commit: rows (JSON lines) with kind (0..3), or kind -1: per row from "_rk". */
typedef pkw_part wpart;

/* Writes the parts with one batch writer and commits them; returns the status. */
static int write_commit(paimon_table *t, const wpart *parts, size_t n, paimon_error *err) {
  pkw_how how = {COLS, 4, "_rk", -1, NULL};
  return pkw_write_commit(t, &how, parts, n, err);
}

/* ------------------------------------------------------------ the model */

/* key "pt/id" -> row object (table columns only). */
static char *model_key(const json_t *row) {
  char *k = malloc(256);
  snprintf(k, 256, "%s/%lld", json_string_value(json_object_get(row, "pt")),
           (long long)json_integer_value(json_object_get(row, "id")));
  return k;
}

/* Applies JSON-lines rows in order (deduplicate: adds set the key's row, retracts remove it). */
static void model_apply(json_t *model, const char *jsonl, int kind, int ignore_delete) {
  size_t bad = 0;
  json_t *rows = ot_parse_lines(jsonl, &bad);
  CHECK(rows != NULL);
  size_t i;
  json_t *r;
  json_array_foreach(rows, i, r) {
    int k = kind >= 0 ? kind : (int)json_integer_value(json_object_get(r, "_rk"));
    json_t *row = json_deep_copy(r);
    json_object_del(row, "_rk");
    const char *cols[] = {"v", "n"};
    for (int c = 0; c < 2; c++)
      if (!json_object_get(row, cols[c])) json_object_set_new(row, cols[c], json_null());
    char *key = model_key(row);
    if (k == 1 || k == 3) {
      if (!ignore_delete) json_object_del(model, key);
      json_decref(row);
    } else {
      json_object_set_new(model, key, row);
    }
    free(key);
  }
  json_decref(rows);
}

static json_t *model_rows(const json_t *model) {
  json_t *out = json_array();
  const char *k;
  json_t *v;
  json_object_foreach((json_t *)model, k, v) json_array_append(out, v);
  return out;
}

/* Both readers return the model; check passes. use_oracle = 0 skips paimon-table. */
static void check_model(paimon_table *t, const char *name, const json_t *model, int use_oracle, const char *what) {
  json_t *want = model_rows(model);
  paimon_error err = {0};
  json_t *ours = ow_read_ours(t, &err);
  CHECK_MSG(ours != NULL, "%s: our read: %s", what, err.message);
  if (ours) {
    char msg[8192];
    CHECK_MSG(ot_rows_match(want, ours, msg, sizeof msg), "%s: our reader: %s", what, msg);
  }
  json_decref(ours);
  if (use_oracle && ot_available()) {
    CHECK_MSG(ot_check_ok(table_dir(name), 0, what), "%s", what);
    CHECK_MSG(ot_read_equals(table_dir(name), NULL, want, what), "%s", what);
  }
  json_decref(want);
}

/* ------------------------------------------------------------ tests */

static void test_dedup_commits(void) {
  paimon_catalog *cat = open_catalog();
  paimon_table *t = make_table(cat, "dedup", NULL, 0);
  json_t *model = json_object();
  paimon_error err = {0};
  /* 1: inserts over two partitions, a key written twice in one batch (last wins), nulls */
  const char *c1 =
      "{\"id\":1,\"pt\":\"a\",\"v\":\"one\",\"n\":10}\n{\"id\":2,\"pt\":\"a\",\"v\":null,\"n\":20}\n"
      "{\"id\":1,\"pt\":\"b\",\"v\":\"b-one\",\"n\":null}\n{\"id\":3,\"pt\":\"a\",\"v\":\"three\",\"n\":30}\n"
      "{\"id\":1,\"pt\":\"a\",\"v\":\"one-again\",\"n\":11}\n{\"id\":7,\"pt\":\"b\",\"v\":\"seven\",\"n\":70}\n"
      "{\"id\":8,\"pt\":\"b\",\"v\":\"eight\",\"n\":80}\n{\"id\":9,\"pt\":\"a\",\"v\":\"nine\",\"n\":90}\n";
  wpart p1[] = {{c1, 0}};
  CHECK_OK(write_commit(t, p1, 1, &err), &err);
  model_apply(model, c1, 0, 0);
  check_model(t, "dedup", model, 1, "commit 1");
  /* 2: updates of existing keys, new keys, then deletes (one of a key updated in this commit) */
  const char *c2u = "{\"id\":2,\"pt\":\"a\",\"v\":\"two\",\"n\":null}\n{\"id\":4,\"pt\":\"a\",\"v\":\"four\",\"n\":40}\n"
                    "{\"id\":7,\"pt\":\"b\",\"v\":\"seven'\",\"n\":71}\n";
  const char *c2d = "{\"id\":3,\"pt\":\"a\"}\n{\"id\":7,\"pt\":\"b\"}\n{\"id\":100,\"pt\":\"b\"}\n";
  wpart p2[] = {{c2u, 2}, {c2d, 3}};
  CHECK_OK(write_commit(t, p2, 2, &err), &err);
  model_apply(model, c2u, 2, 0);
  model_apply(model, c2d, 3, 0);
  check_model(t, "dedup", model, 1, "commit 2");
  /* 3: a row-kind column: -U/+U pairs, a delete, a re-insert of a deleted key, a delete then insert */
  const char *c3 = "{\"id\":1,\"pt\":\"a\",\"v\":\"one-again\",\"n\":11,\"_rk\":1}\n"
                   "{\"id\":1,\"pt\":\"a\",\"v\":\"uno\",\"n\":12,\"_rk\":2}\n"
                   "{\"id\":8,\"pt\":\"b\",\"_rk\":3}\n"
                   "{\"id\":3,\"pt\":\"a\",\"v\":\"three again\",\"n\":33,\"_rk\":0}\n"
                   "{\"id\":9,\"pt\":\"a\",\"_rk\":3}\n"
                   "{\"id\":9,\"pt\":\"a\",\"v\":\"nine'\",\"n\":null,\"_rk\":0}\n"
                   "{\"id\":5,\"pt\":\"c\",\"v\":\"five\",\"n\":50,\"_rk\":0}\n";
  wpart p3[] = {{c3, -1}};
  CHECK_OK(write_commit(t, p3, 1, &err), &err);
  model_apply(model, c3, -1, 0);
  check_model(t, "dedup", model, 1, "commit 3 (row-kind column)");
  /* a bad row kind fails the batch naming the column */
  {
    paimon_write_builder *wb = NULL;
    paimon_table_write *w = NULL;
    CHECK_OK(paimon_write_builder_new(t, 0, NULL, 0, &wb, &err), &err);
    CHECK_OK(paimon_write_builder_new_write(wb, &w, &err), &err);
    CHECK_OK(paimon_table_write_with_row_kind_column(w, "_rk", &err), &err);
    struct ArrowSchema s;
    struct ArrowArray a;
    batch("{\"id\":1,\"pt\":\"a\",\"_rk\":7}\n", 1, &s, &a);
    CHECK_EQ_INT(paimon_table_write_arrow(w, &s, &a, &err), PAIMON_ERR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(err.message, "_rk") != NULL, "%s", err.message);
    a.release(&a);
    s.release(&s);
    paimon_table_write_free(w);
    paimon_write_builder_free(wb);
  }
  json_decref(model);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

static void test_ignore_delete(void) {
  paimon_catalog *cat = open_catalog();
  const char *opts[] = {"ignore-delete=true", "file.format=avro"};
  paimon_table *t = make_table(cat, "igndel", opts, 2);
  json_t *model = json_object();
  paimon_error err = {0};
  const char *c1 = "{\"id\":1,\"pt\":\"a\",\"v\":\"one\",\"n\":1}\n{\"id\":2,\"pt\":\"a\",\"v\":\"two\",\"n\":2}\n";
  const char *d1 = "{\"id\":1,\"pt\":\"a\"}\n";
  wpart p1[] = {{c1, 0}, {d1, 3}};
  CHECK_OK(write_commit(t, p1, 2, &err), &err);
  model_apply(model, c1, 0, 1);
  model_apply(model, d1, 3, 1);
  check_model(t, "igndel", model, 0, "ignore-delete (avro)"); /* paimon-table reads no Avro data */
  if (ot_available()) CHECK(ot_check_ok(table_dir("igndel"), 0, "ignore-delete"));
  json_decref(model);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* The files: key/value columns, level 0, keys, delete counts, sequence numbers per bucket. */
static void test_file_metas(void) {
  paimon_catalog *cat = open_catalog();
  const char *opts[] = {"bucket=1"};
  paimon_table *t = make_table(cat, "metas", opts, 1);
  paimon_error err = {0};
  const char *c1 = "{\"id\":5,\"pt\":\"a\",\"v\":\"x\",\"n\":1}\n{\"id\":3,\"pt\":\"a\",\"v\":\"y\",\"n\":2}\n"
                   "{\"id\":5,\"pt\":\"a\",\"v\":\"z\",\"n\":3}\n";
  const char *d1 = "{\"id\":4,\"pt\":\"a\"}\n";
  wpart p1[] = {{c1, 0}, {d1, 3}};
  CHECK_OK(write_commit(t, p1, 2, &err), &err);
  wpart p2[] = {{"{\"id\":1,\"pt\":\"a\",\"v\":\"w\",\"n\":4}\n", 0}};
  CHECK_OK(write_commit(t, p2, 1, &err), &err);
  /* manifest entries through the independent avro-dump */
  char cmd[2048], *out = NULL;
  snprintf(cmd, sizeof cmd,
           "for f in '%s'/manifest/manifest-*; do case $f in *manifest-list*) ;; *) %s/tools/avro-dump \"$f\" "
           "--records;; esac; done",
           table_dir("metas"), PAIMON_SHARED_DIR);
  CHECK_EQ_INT(ot_shell(cmd, &out), 0);
  json_t *ents = out ? ot_parse_lines(out, NULL) : NULL;
  free(out);
  CHECK(ents && json_array_size(ents) == 2);
  int seen_first = 0, seen_second = 0;
  size_t i;
  json_t *e;
  json_array_foreach(ents, i, e) {
    json_t *f = json_object_get(e, "_FILE");
    CHECK_EQ_INT(json_integer_value(json_object_get(f, "_LEVEL")), 0);
    CHECK_EQ_INT(json_integer_value(json_object_get(f, "_FILE_SOURCE")), 0);
    CHECK_EQ_INT(json_integer_value(json_object_get(e, "_TOTAL_BUCKETS")), 1);
    long long rows = json_integer_value(json_object_get(f, "_ROW_COUNT"));
    long long lo = json_integer_value(json_object_get(f, "_MIN_SEQUENCE_NUMBER"));
    long long hi = json_integer_value(json_object_get(f, "_MAX_SEQUENCE_NUMBER"));
    long long del = json_integer_value(json_object_get(f, "_DELETE_ROW_COUNT"));
    if (rows == 3) { /* keys 3, 4 (-D), 5 (last of seq 0 and 2): seqs 1..3 */
      seen_first = 1;
      CHECK_EQ_INT(del, 1);
      CHECK_EQ_INT(lo, 1);
      CHECK_EQ_INT(hi, 3);
    } else if (rows == 1) { /* continues after the bucket's max */
      seen_second = 1;
      CHECK_EQ_INT(del, 0);
      CHECK_EQ_INT(lo, 4);
      CHECK_EQ_INT(hi, 4);
    }
  }
  CHECK(seen_first && seen_second);
  json_decref(ents);
  /* the data file's columns, in Java's order */
  snprintf(cmd, sizeof cmd, "ls '%s'/pt=a/bucket-0/*.parquet | head -1", table_dir("metas"));
  out = NULL;
  CHECK_EQ_INT(ot_shell(cmd, &out), 0);
  if (out && *out) {
    out[strcspn(out, "\n")] = 0;
    char q[2048], *cols = NULL;
    snprintf(q, sizeof q, "%s/tools/duckdb-sql \"DESCRIBE SELECT * FROM read_parquet('%s')\" 2>&1", PAIMON_SHARED_DIR,
             out);
    ot_shell(q, &cols);
    const char *order[] = {"_KEY_id", "_SEQUENCE_NUMBER", "_VALUE_KIND", "id", "pt", "v", "n"};
    const char *p = cols ? cols : "";
    for (size_t k = 0; k < 7; k++) {
      const char *hit = strstr(p, order[k]);
      CHECK_MSG(hit != NULL, "column %s missing or out of order in: %s", order[k], cols ? cols : "");
      if (hit) p = hit + strlen(order[k]);
    }
    free(cols);
  }
  free(out);
  json_t *model = json_object();
  model_apply(model, c1, 0, 0);
  model_apply(model, d1, 3, 0);
  model_apply(model, "{\"id\":1,\"pt\":\"a\",\"v\":\"w\",\"n\":4}\n", 0, 0);
  check_model(t, "metas", model, 1, "metas");
  json_decref(model);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* Random upserts / deletes over 1000 keys in 3 partitions, 30 commits (small write buffer: several
 * flushes per commit); our reader = model after every commit, paimon-table every 15th. */
static void test_randomized(void) {
  paimon_catalog *cat = open_catalog();
  const char *opts[] = {"bucket=4", "write-buffer-size=64 kb"};
  paimon_table *t = make_table(cat, "rnd", opts, 2);
  json_t *model = json_object();
  paimon_error err = {0};
  unsigned seed = 12345;
  char *buf = malloc(1 << 20);
  for (int c = 0; c < 30; c++) {
    size_t len = 0;
    int rows = 50 + (int)(rand_r(&seed) % 400);
    for (int r = 0; r < rows; r++) {
      int id = (int)(rand_r(&seed) % 1000);
      const char *pt = (const char *[]){"x", "y", "z"}[rand_r(&seed) % 3];
      int k = (int)(rand_r(&seed) % 10);
      int kind = k < 6 ? 0 : k < 7 ? 2 : k < 8 ? 1 : 3;
      if (rand_r(&seed) % 5 == 0)
        len += (size_t)snprintf(buf + len, (1 << 20) - len, "{\"id\":%d,\"pt\":\"%s\",\"v\":null,\"n\":null,\"_rk\":%d}\n",
                                id, pt, kind);
      else
        len += (size_t)snprintf(buf + len, (1 << 20) - len,
                                "{\"id\":%d,\"pt\":\"%s\",\"v\":\"v%d-%d\",\"n\":%d,\"_rk\":%d}\n", id, pt, c, r,
                                (int)rand_r(&seed) % 100000 - 50000, kind);
    }
    wpart p[] = {{buf, -1}};
    CHECK_OK(write_commit(t, p, 1, &err), &err);
    model_apply(model, buf, -1, 0);
    char what[64];
    snprintf(what, sizeof what, "random commit %d", c + 1);
    check_model(t, "rnd", model, c % 15 == 14, what);
    if (pm_test_failures) break;
  }
  free(buf);
  json_decref(model);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

int main(void) {
  snprintf(wh, sizeof wh, "/tmp/pm_write_pk_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  RUN_TEST(test_dedup_commits);
  RUN_TEST(test_ignore_delete);
  RUN_TEST(test_file_metas);
  RUN_TEST(test_randomized);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && system(cmd)) return 1;
  TEST_MAIN_END();
}
