/* The public write API end to end (write.h): write builder, table write,
 * commit messages and commit on a table made in a temp warehouse; every
 * table written passes `paimon-table check` and `paimon-table read` returns
 * the rows written. Errors: a bad batch names the column and writes nothing,
 * a second prepare_commit on a batch writer is refused, messages serialized
 * here and committed by another process publish the same rows once, and
 * CONFLICT / UNKNOWN_OUTCOME come back as those codes. */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/api_internal.h"
#include "arrow/json_read.h"
#include "arrow/type.h"
#include "harness.h"
#include "io/fs_fault.h"
#include "meta/wire.h"
#include "paimon/write.h"
/* oracle_table.h is a set of static helpers; this test uses some of them. */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/oracle_table.h"

static char wh[256];
static const char *self_exe;

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
}

/* Table d.<name>: id BIGINT NOT NULL, name STRING, p STRING (partition key), schema-0 written by hand. */
static void make_table(const char *name, const char *options_json) {
  char path[512];
  snprintf(path, sizeof path, "%s/d.db/%s/schema", wh, name);
  char cmd[700];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path);
  CHECK_EQ_INT(system(cmd), 0);
  char schema[2048];
  snprintf(schema, sizeof schema,
           "{\"version\":3,\"id\":0,\"fields\":[{\"id\":0,\"name\":\"id\",\"type\":\"BIGINT NOT NULL\"},"
           "{\"id\":1,\"name\":\"name\",\"type\":\"STRING\"},{\"id\":2,\"name\":\"p\",\"type\":\"STRING\"}],"
           "\"highestFieldId\":2,\"partitionKeys\":[\"p\"],\"primaryKeys\":[],\"options\":{%s},"
           "\"timeMillis\":1700000000000}",
           options_json ? options_json : "");
  strcat(path, "/schema-0");
  write_text(path, schema);
}

static const char *table_dir(const char *name) {
  static char d[512];
  snprintf(d, sizeof d, "%s/d.db/%s", wh, name);
  return d;
}

static paimon_catalog *open_catalog(void) {
  paimon_error err = {0};
  paimon_option o[] = {{"warehouse", wh}};
  paimon_catalog *c = NULL;
  CHECK_OK(paimon_catalog_open(o, 1, &c, &err), &err);
  return c;
}

static paimon_table *get_table(paimon_catalog *c, const char *name) {
  char id[128];
  snprintf(id, sizeof id, "d.%s", name);
  paimon_error err = {0};
  paimon_table *t = NULL;
  CHECK_OK(paimon_catalog_get_table(c, id, &t, &err), &err);
  return t;
}

/* A batch from JSON lines typed by an Arrow struct of the given children ("name:format[:notnull]"). */
static void batch(const char *const *cols, int n, const char *jsonl, struct ArrowSchema *s, struct ArrowArray *a) {
  pm_error err;
  CHECK(pm_schema_init(s, "+s", "", 0, n, &err) == 0);
  for (int i = 0; i < n; i++) {
    char name[64], fmt[32];
    int notnull = strstr(cols[i], ":notnull") != NULL;
    sscanf(cols[i], "%63[^:]:%31[^:]", name, fmt);
    CHECK(pm_schema_init(s->children[i], fmt, name, notnull ? 0 : ARROW_FLAG_NULLABLE, 0, &err) == 0);
  }
  pm_type t;
  CHECK(pm_type_from_schema(s, &t, &err) == 0);
  CHECK_MSG(pm_json_lines_to_array(&t, jsonl, strlen(jsonl), a, &err) == 0, "%s", err.message);
  pm_type_free(&t);
}

static const char *const COLS[] = {"id:l:notnull", "name:u", "p:u"};

static int latest(paimon_table *t) {
  int64_t id = -1;
  paimon_error err = {0};
  CHECK_OK(paimon_table_latest_snapshot_id(t, &id, &err), &err);
  return (int)id;
}

/* Writes jsonl rows (typed by COLS) with a new batch builder and commits them; returns the status. */
static int write_commit(paimon_table *t, const char *jsonl, int64_t *snap, paimon_error *err) {
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  paimon_commit_messages *m = NULL;
  paimon_table_commit *c = NULL;
  struct ArrowSchema s;
  struct ArrowArray a;
  batch(COLS, 3, jsonl, &s, &a);
  int rc = paimon_write_builder_new(t, 0, NULL, 0, &wb, err);
  if (!rc) rc = paimon_write_builder_new_write(wb, &w, err);
  if (!rc) rc = paimon_table_write_arrow(w, &s, &a, err);
  if (!rc) rc = paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, err);
  if (!rc) rc = paimon_write_builder_new_commit(wb, &c, err);
  if (!rc) rc = paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, snap, err);
  paimon_commit_messages_free(m);
  paimon_table_commit_free(c);
  paimon_table_write_free(w);
  paimon_write_builder_free(wb);
  if (a.release) a.release(&a);
  if (s.release) s.release(&s);
  return rc;
}

static json_t *rows(const char *text) {
  size_t bad = 0;
  json_t *r = ot_parse_lines(text, &bad);
  CHECK(r != NULL);
  return r;
}

static void check_table(const char *name, const char *expected_jsonl, const char *what) {
  if (!ot_available()) return;
  CHECK_MSG(ot_check_ok(table_dir(name), 0, what), "%s", what);
  json_t *want = rows(expected_jsonl);
  CHECK_MSG(ot_read_equals(table_dir(name), NULL, want, what), "%s", what);
  json_decref(want);
}

/* ---------------------------------------------------------------- tests */

static void test_write_commit_read(void) {
  make_table("t1", NULL);
  paimon_catalog *cat = open_catalog();
  paimon_table *t = get_table(cat, "t1");
  if (!t) return;
  paimon_error err = {0};
  paimon_write_builder *wb = NULL;
  CHECK_OK(paimon_write_builder_new(t, 0, NULL, 0, &wb, &err), &err);
  const char *user = paimon_write_builder_commit_user(wb);
  CHECK_MSG(user && strlen(user) == 36 && user[14] == '4', "commit user %s", user ? user : "");
  paimon_table_write *w = NULL;
  CHECK_OK(paimon_write_builder_new_write(wb, &w, &err), &err);
  /* Batch 1 by Arrow, batch 2 through an input stream (jsonl typed by the table). */
  struct ArrowSchema s;
  struct ArrowArray a;
  batch(COLS, 3, "{\"id\":1,\"name\":\"a\",\"p\":\"x\"}\n{\"id\":2,\"name\":null,\"p\":\"y\"}\n", &s, &a);
  CHECK_OK(paimon_table_write_arrow(w, &s, &a, &err), &err);
  a.release(&a);
  s.release(&s);
  char path[512];
  snprintf(path, sizeof path, "%s/in.jsonl", wh);
  write_text(path, "{\"id\":3,\"name\":\"c\",\"p\":\"x\"}\n{\"id\":4,\"name\":\"d\",\"p\":null}\n{\"p\":\"y\",\"id\":5}\n");
  struct ArrowArrayStream in;
  CHECK_OK(paimon_table_open_input(t, path, NULL, &in, &err), &err);
  CHECK_OK(paimon_table_write_stream(w, &in, &err), &err);
  paimon_commit_messages *m = NULL;
  CHECK_OK(paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, &err), &err);
  CHECK_EQ_INT(paimon_commit_messages_count(m), 3); /* partitions x, y and null */
  CHECK_EQ_INT(paimon_commit_messages_row_count(m), 5);
  CHECK(paimon_commit_messages_file_count(m) >= 3);
  /* Nothing is visible before the commit. */
  CHECK_EQ_INT(latest(t), 0);
  paimon_table_commit *c = NULL;
  CHECK_OK(paimon_write_builder_new_commit(wb, &c, &err), &err);
  paimon_option props[] = {{"source", "test"}};
  CHECK_OK(paimon_table_commit_with_properties(c, props, 1, &err), &err);
  paimon_table_commit_with_watermark(c, 1234);
  int64_t snap = -2;
  CHECK_OK(paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, &snap, &err), &err);
  CHECK_EQ_INT(snap, 1);
  /* A batch committer commits once. */
  CHECK_EQ_INT(paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, &snap, &err),
               PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(snap, -1);
  ot_snapshot *sn = NULL;
  size_t ns = ot_snapshots(table_dir("t1"), &sn, NULL);
  CHECK_EQ_INT(ns, 1);
  if (ns) {
    CHECK_EQ_STR(sn[0].commit_user, user);
    CHECK_EQ_STR(sn[0].commit_kind, "APPEND");
    CHECK_EQ_INT(sn[0].commit_identifier, PAIMON_BATCH_COMMIT_IDENTIFIER);
    CHECK_EQ_INT(sn[0].total_record_count, 5);
  }
  free(sn);
  char snap_path[600], *text = NULL;
  snprintf(snap_path, sizeof snap_path, "cat '%s/snapshot/snapshot-1'", table_dir("t1"));
  CHECK_EQ_INT(ot_shell(snap_path, &text), 0);
  CHECK_MSG(text && strstr(text, "\"watermark\" : 1234") && strstr(text, "\"source\" : \"test\""), "%s",
            text ? text : "");
  free(text);
  paimon_commit_messages_free(m);
  paimon_table_commit_free(c);
  paimon_table_write_free(w);
  paimon_write_builder_free(wb);
  check_table("t1",
              "{\"id\":1,\"name\":\"a\",\"p\":\"x\"}\n{\"id\":2,\"name\":null,\"p\":\"y\"}\n"
              "{\"id\":3,\"name\":\"c\",\"p\":\"x\"}\n{\"id\":4,\"name\":\"d\",\"p\":null}\n"
              "{\"id\":5,\"name\":null,\"p\":\"y\"}\n",
              "t1 after one commit");
  /* A second commit appends. */
  int64_t snap2 = -1;
  CHECK_OK(write_commit(t, "{\"id\":6,\"name\":\"f\",\"p\":\"x\"}\n", &snap2, &err), &err);
  CHECK_EQ_INT(snap2, 2);
  check_table("t1",
              "{\"id\":1,\"name\":\"a\",\"p\":\"x\"}\n{\"id\":2,\"name\":null,\"p\":\"y\"}\n"
              "{\"id\":3,\"name\":\"c\",\"p\":\"x\"}\n{\"id\":4,\"name\":\"d\",\"p\":null}\n"
              "{\"id\":5,\"name\":null,\"p\":\"y\"}\n{\"id\":6,\"name\":\"f\",\"p\":\"x\"}\n",
              "t1 after two commits");
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

static void test_bad_batches(void) {
  make_table("t2", NULL);
  paimon_catalog *cat = open_catalog();
  paimon_table *t = get_table(cat, "t2");
  if (!t) return;
  paimon_error err = {0};
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  CHECK_OK(paimon_write_builder_new(t, 0, NULL, 0, &wb, &err), &err);
  CHECK_OK(paimon_write_builder_new_write(wb, &w, &err), &err);
  struct {
    const char *cols[3];
    const char *rows;
    const char *column;
  } bad[] = {
      {{"id:u", "name:u", "p:u"}, "{\"id\":\"1\",\"name\":\"a\",\"p\":\"x\"}\n", "id"},         /* wrong type */
      {{"id:l", "name:u", "zz:u"}, "{\"id\":1,\"name\":\"a\",\"zz\":\"x\"}\n", "zz"},           /* unknown */
      {{"name:u", "p:u", NULL}, "{\"name\":\"a\",\"p\":\"x\"}\n", "id"},                        /* missing NOT NULL */
      {{"id:l", "name:u", "p:u"}, "{\"id\":1,\"p\":\"x\"}\n{\"id\":null,\"p\":\"x\"}\n", "id"}, /* null in NOT NULL */
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    struct ArrowSchema s;
    struct ArrowArray a;
    batch(bad[i].cols, bad[i].cols[2] ? 3 : 2, bad[i].rows, &s, &a);
    CHECK_EQ_INT(paimon_table_write_arrow(w, &s, &a, &err), PAIMON_ERR_INVALID_ARGUMENT);
    char quoted[64];
    snprintf(quoted, sizeof quoted, "'%s'", bad[i].column);
    CHECK_MSG(strstr(err.message, bad[i].column) != NULL, "case %zu: %s", i, err.message);
    a.release(&a);
    s.release(&s);
  }
  /* Nothing of those batches was written: an empty batch commit publishes no snapshot. */
  paimon_commit_messages *m = NULL;
  CHECK_OK(paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, &err), &err);
  CHECK_EQ_INT(paimon_commit_messages_row_count(m), 0);
  paimon_table_commit *c = NULL;
  int64_t snap = -2;
  CHECK_OK(paimon_write_builder_new_commit(wb, &c, &err), &err);
  CHECK_OK(paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, &snap, &err), &err);
  CHECK_EQ_INT(snap, -1);
  CHECK_EQ_INT(latest(t), 0);
  paimon_commit_messages_free(m);
  paimon_table_commit_free(c);
  paimon_table_write_free(w);
  paimon_write_builder_free(wb);
  /* The table directory holds no data file. */
  char cmd[700], *out = NULL;
  snprintf(cmd, sizeof cmd, "find '%s' -name 'data-*' | wc -l", table_dir("t2"));
  ot_shell(cmd, &out);
  CHECK_EQ_STR(out, "0\n");
  free(out);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

static void test_batch_prepares_once(void) {
  make_table("t3", NULL);
  paimon_catalog *cat = open_catalog();
  paimon_table *t = get_table(cat, "t3");
  if (!t) return;
  paimon_error err = {0};
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  paimon_commit_messages *m = NULL, *m2 = NULL;
  CHECK_OK(paimon_write_builder_new(t, 0, NULL, 0, &wb, &err), &err);
  CHECK_OK(paimon_write_builder_new_write(wb, &w, &err), &err);
  /* A batch writer's identifier is the batch one. */
  CHECK_EQ_INT(paimon_table_write_prepare_commit(w, 7, &m, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_OK(paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, &err), &err);
  CHECK_EQ_INT(paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m2, &err),
               PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "prepare_commit") != NULL);
  CHECK(m2 == NULL);
  struct ArrowSchema s;
  struct ArrowArray a;
  batch(COLS, 3, "{\"id\":1,\"p\":\"x\"}\n", &s, &a);
  CHECK_EQ_INT(paimon_table_write_arrow(w, &s, &a, &err), PAIMON_ERR_INVALID_ARGUMENT);
  a.release(&a);
  s.release(&s);
  paimon_commit_messages_free(m);
  paimon_table_write_free(w);
  /* Stream writers prepare per identifier, strictly increasing. */
  paimon_write_builder_free(wb);
  CHECK_OK(paimon_write_builder_new(t, 1, NULL, 0, &wb, &err), &err);
  CHECK_OK(paimon_write_builder_new_write(wb, &w, &err), &err);
  paimon_table_commit *c = NULL;
  CHECK_OK(paimon_write_builder_new_commit(wb, &c, &err), &err);
  for (int64_t id = 1; id <= 2; id++) {
    batch(COLS, 3, id == 1 ? "{\"id\":1,\"p\":\"x\"}\n" : "{\"id\":2,\"p\":\"y\"}\n", &s, &a);
    CHECK_OK(paimon_table_write_arrow(w, &s, &a, &err), &err);
    a.release(&a);
    s.release(&s);
    CHECK_OK(paimon_table_write_prepare_commit(w, id, &m, &err), &err);
    int64_t snap = -1;
    CHECK_OK(paimon_table_commit_commit(c, m, id, &snap, &err), &err);
    CHECK_EQ_INT(snap, id);
    paimon_commit_messages_free(m);
    m = NULL;
  }
  CHECK_EQ_INT(paimon_table_write_prepare_commit(w, 2, &m, &err), PAIMON_ERR_INVALID_ARGUMENT);
  /* Restart recovery: identifiers 1 and 2 are committed by this user, 3 is not. */
  int64_t ids[] = {1, 2, 3};
  int committed[3] = {0, 0, 1};
  CHECK_OK(paimon_table_commit_filter_committed(c, ids, 3, committed, &err), &err);
  CHECK(committed[0] == 1 && committed[1] == 1 && committed[2] == 0);
  paimon_table_commit_free(c);
  paimon_table_write_free(w);
  paimon_write_builder_free(wb);
  check_table("t3", "{\"id\":1,\"name\":null,\"p\":\"x\"}\n{\"id\":2,\"name\":null,\"p\":\"y\"}\n", "t3 stream");
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* Child: deserializes the bytes of file argv[2] (version 5), commits them as user argv[3] to d.<argv[4]>
 * in warehouse argv[5]; prints the snapshot id. */
static int commit_child(char **argv) {
  snprintf(wh, sizeof wh, "%s", argv[5]);
  FILE *f = fopen(argv[2], "rb");
  if (!f) return 10;
  uint8_t buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  paimon_error err = {0};
  paimon_catalog *cat = open_catalog();
  paimon_table *t = get_table(cat, argv[4]);
  paimon_write_builder *wb = NULL;
  paimon_commit_messages *m = NULL;
  paimon_table_commit *c = NULL;
  int64_t id = 0, snap = -1;
  int rc = t ? 0 : 11;
  if (!rc) rc = paimon_commit_messages_deserialize(buf, n, 5, &m, &id, &err);
  if (!rc) rc = paimon_write_builder_new(t, 0, NULL, 0, &wb, &err);
  if (!rc) rc = paimon_write_builder_with_commit_user(wb, argv[3], &err);
  if (!rc) rc = paimon_write_builder_new_commit(wb, &c, &err);
  if (!rc) rc = paimon_table_commit_commit(c, m, id, &snap, &err);
  if (rc) fprintf(stderr, "child: %s\n", err.message);
  else printf("%lld\n", (long long)snap);
  paimon_commit_messages_free(m);
  paimon_table_commit_free(c);
  paimon_write_builder_free(wb);
  paimon_table_free(t);
  paimon_catalog_free(cat);
  return rc;
}

static void test_messages_in_another_process(void) {
  make_table("t4", NULL);
  paimon_catalog *cat = open_catalog();
  paimon_table *t = get_table(cat, "t4");
  if (!t) return;
  paimon_error err = {0};
  /* Two writers (as two tasks), their messages merged by a coordinator. */
  paimon_write_builder *wb = NULL;
  CHECK_OK(paimon_write_builder_new(t, 0, NULL, 0, &wb, &err), &err);
  paimon_commit_messages *all = NULL;
  for (int k = 0; k < 2; k++) {
    paimon_table_write *w = NULL;
    paimon_commit_messages *m = NULL;
    CHECK_OK(paimon_write_builder_new_write(wb, &w, &err), &err);
    struct ArrowSchema s;
    struct ArrowArray a;
    batch(COLS, 3, k ? "{\"id\":20,\"name\":\"b\",\"p\":\"y\"}\n" : "{\"id\":10,\"name\":\"a\",\"p\":\"x\"}\n", &s, &a);
    CHECK_OK(paimon_table_write_arrow(w, &s, &a, &err), &err);
    a.release(&a);
    s.release(&s);
    CHECK_OK(paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, &err), &err);
    paimon_table_write_free(w);
    if (!all) all = m;
    else CHECK_OK(paimon_commit_messages_merge(all, &m, &err), &err);
    CHECK(m == NULL || all == m);
  }
  CHECK_EQ_INT(paimon_commit_messages_count(all), 2);
  CHECK_EQ_INT(paimon_commit_messages_row_count(all), 2);
  uint8_t *bytes = NULL;
  size_t len = 0;
  CHECK_OK(paimon_commit_messages_serialize(all, PAIMON_BATCH_COMMIT_IDENTIFIER, &bytes, &len, &err), &err);
  /* The bytes decode back to the same messages. */
  paimon_commit_messages *back = NULL;
  int64_t id = 0;
  CHECK_OK(paimon_commit_messages_deserialize(bytes, len, 5, &back, &id, &err), &err);
  CHECK_EQ_INT(id, PAIMON_BATCH_COMMIT_IDENTIFIER);
  CHECK_EQ_INT(paimon_commit_messages_count(back), 2);
  CHECK_EQ_INT(paimon_commit_messages_row_count(back), 2);
  uint8_t *bytes2 = NULL;
  size_t len2 = 0;
  CHECK_OK(paimon_commit_messages_serialize(back, PAIMON_BATCH_COMMIT_IDENTIFIER, &bytes2, &len2, &err), &err);
  CHECK(len2 == len && bytes2 && !memcmp(bytes, bytes2, len));
  paimon_free_bytes(bytes2);
  paimon_commit_messages_free(back);
  CHECK_EQ_INT(paimon_commit_messages_deserialize(bytes, len / 2, 5, &back, &id, &err), PAIMON_ERR_CORRUPT);
  CHECK_EQ_INT(paimon_commit_messages_deserialize(bytes, len, 9, &back, &id, &err), PAIMON_ERR_INVALID_ARGUMENT);
  char file[512];
  snprintf(file, sizeof file, "%s/messages.bin", wh);
  FILE *f = fopen(file, "wb");
  if (f) {
    fwrite(bytes, 1, len, f);
    fclose(f);
  }
  paimon_free_bytes(bytes);
  /* Another process commits them, twice with the same user: one snapshot. */
  char cmd[2048], *out = NULL;
  snprintf(cmd, sizeof cmd, "'%s' --commit-child '%s' '%s' t4 '%s'", self_exe, file,
           paimon_write_builder_commit_user(wb), wh);
  CHECK_EQ_INT(ot_shell(cmd, &out), 0);
  CHECK_EQ_STR(out, "1\n");
  free(out);
  ot_snapshot *sn = NULL;
  size_t ns = ot_snapshots(table_dir("t4"), &sn, NULL);
  CHECK_EQ_INT(ns, 1);
  if (ns) CHECK_EQ_STR(sn[0].commit_user, paimon_write_builder_commit_user(wb));
  free(sn);
  paimon_commit_messages_free(all);
  paimon_write_builder_free(wb);
  check_table("t4", "{\"id\":10,\"name\":\"a\",\"p\":\"x\"}\n{\"id\":20,\"name\":\"b\",\"p\":\"y\"}\n", "t4 child commit");
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* Overwrite (dynamic and static), truncate partitions and table, abort. */
static void test_overwrite_truncate_abort(void) {
  make_table("t5", NULL);
  paimon_catalog *cat = open_catalog();
  paimon_table *t = get_table(cat, "t5");
  if (!t) return;
  paimon_error err = {0};
  int64_t snap = -1;
  CHECK_OK(write_commit(t, "{\"id\":1,\"p\":\"x\"}\n{\"id\":2,\"p\":\"y\"}\n{\"id\":3,\"p\":\"z\"}\n", &snap, &err),
           &err);
  /* Dynamic partition overwrite replaces partition x only. */
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  paimon_commit_messages *m = NULL;
  paimon_table_commit *c = NULL;
  struct ArrowSchema s;
  struct ArrowArray a;
  CHECK_OK(paimon_write_builder_new(t, 0, NULL, 0, &wb, &err), &err);
  CHECK_OK(paimon_write_builder_with_overwrite(wb, NULL, 0, &err), &err);
  CHECK_OK(paimon_write_builder_new_write(wb, &w, &err), &err);
  batch(COLS, 3, "{\"id\":11,\"p\":\"x\"}\n", &s, &a);
  CHECK_OK(paimon_table_write_arrow(w, &s, &a, &err), &err);
  a.release(&a);
  s.release(&s);
  CHECK_OK(paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, &err), &err);
  CHECK_OK(paimon_write_builder_new_commit(wb, &c, &err), &err);
  CHECK_OK(paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, &snap, &err), &err);
  CHECK_EQ_INT(snap, 2);
  paimon_commit_messages_free(m);
  paimon_table_commit_free(c);
  paimon_table_write_free(w);
  paimon_write_builder_free(wb);
  check_table("t5", "{\"id\":11,\"name\":null,\"p\":\"x\"}\n{\"id\":2,\"name\":null,\"p\":\"y\"}\n"
              "{\"id\":3,\"name\":null,\"p\":\"z\"}\n", "t5 dynamic overwrite");
  /* A spec naming a non-partition column is refused. */
  CHECK_OK(paimon_write_builder_new(t, 0, NULL, 0, &wb, &err), &err);
  paimon_option bad_spec[] = {{"name", "x"}};
  CHECK_EQ_INT(paimon_write_builder_with_overwrite(wb, bad_spec, 1, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "'name'") != NULL);
  /* Truncate partition y. */
  CHECK_OK(paimon_write_builder_new_commit(wb, &c, &err), &err);
  paimon_option spec_y[] = {{"p", "y"}};
  const paimon_option *specs[] = {spec_y};
  size_t nf[] = {1};
  CHECK_OK(paimon_table_commit_truncate_partitions(c, specs, nf, 1, PAIMON_BATCH_COMMIT_IDENTIFIER, &snap, &err),
           &err);
  CHECK_EQ_INT(snap, 3);
  paimon_table_commit_free(c);
  paimon_write_builder_free(wb);
  check_table("t5", "{\"id\":11,\"name\":null,\"p\":\"x\"}\n{\"id\":3,\"name\":null,\"p\":\"z\"}\n", "t5 truncate y");
  /* Abort: the files of uncommitted messages are deleted. */
  CHECK_OK(paimon_write_builder_new(t, 0, NULL, 0, &wb, &err), &err);
  CHECK_OK(paimon_write_builder_new_write(wb, &w, &err), &err);
  batch(COLS, 3, "{\"id\":99,\"p\":\"q\"}\n", &s, &a);
  CHECK_OK(paimon_table_write_arrow(w, &s, &a, &err), &err);
  a.release(&a);
  s.release(&s);
  CHECK_OK(paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, &err), &err);
  paimon_table_write_free(w);
  char cmd[700], *out = NULL;
  snprintf(cmd, sizeof cmd, "find '%s/p=q' -name 'data-*' | wc -l", table_dir("t5"));
  ot_shell(cmd, &out);
  CHECK_EQ_STR(out, "1\n"); /* the writer's free keeps the files it handed out */
  free(out);
  CHECK_OK(paimon_write_builder_new_commit(wb, &c, &err), &err);
  CHECK_OK(paimon_table_commit_abort(c, m, &err), &err);
  ot_shell(cmd, &out);
  CHECK_EQ_STR(out, "0\n");
  free(out);
  /* Truncate the table. */
  CHECK_OK(paimon_table_commit_truncate_table(c, PAIMON_BATCH_COMMIT_IDENTIFIER, &snap, &err), &err);
  CHECK_EQ_INT(snap, 4);
  paimon_commit_messages_free(m);
  paimon_table_commit_free(c);
  paimon_write_builder_free(wb);
  check_table("t5", "", "t5 truncated");
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* A catalog over the fault fs (tests may build the public handle from internals). */
static paimon_catalog *fault_catalog(pm_fs **fault) {
  pm_error err = {0};
  pm_fs *local = pm_fs_local();
  CHECK(pm_fault_fs_new(local, fault, &err) == 0);
  pm_options o;
  pm_options_init(&o);
  pm_options_set(&o, "warehouse", wh, &err);
  paimon_catalog *c = calloc(1, sizeof *c);
  CHECK_MSG(pm_catalog_open_with_fs(*fault, &o, &c->c, &err) == 0, "%s", err.message);
  pm_options_clear(&o);
  return c;
}

static void test_conflict_and_unknown_outcome(void) {
  make_table("t6", NULL);
  paimon_catalog *cat = open_catalog();
  paimon_table *t = get_table(cat, "t6");
  if (!t) return;
  paimon_error err = {0};
  /* CONFLICT: messages that delete a file the table does not hold (as a compaction whose input a
   * concurrent commit removed): nothing is published. */
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  paimon_commit_messages *m = NULL, *m2 = NULL;
  paimon_table_commit *c = NULL;
  struct ArrowSchema s;
  struct ArrowArray a;
  CHECK_OK(paimon_write_builder_new(t, 0, NULL, 0, &wb, &err), &err);
  CHECK_OK(paimon_write_builder_new_write(wb, &w, &err), &err);
  batch(COLS, 3, "{\"id\":1,\"p\":\"x\"}\n", &s, &a);
  CHECK_OK(paimon_table_write_arrow(w, &s, &a, &err), &err);
  a.release(&a);
  s.release(&s);
  CHECK_OK(paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, &err), &err);
  uint8_t *bytes = NULL;
  size_t len = 0;
  CHECK_OK(paimon_commit_messages_serialize(m, PAIMON_BATCH_COMMIT_IDENTIFIER, &bytes, &len, &err), &err);
  pm_manifest_committable *mc = NULL;
  CHECK(pm_committable_decode(bytes, len, 5, "test", &mc, &err) == 0);
  paimon_free_bytes(bytes);
  if (mc && mc->n_messages) {
    mc->messages[0].deleted_files = mc->messages[0].new_files;
    mc->messages[0].new_files.n = 0;
    pm_buf b;
    pm_buf_init(&b);
    CHECK(pm_committable_encode(mc, &b, &err) == 0);
    CHECK_OK(paimon_commit_messages_deserialize(b.data, b.len, 5, &m2, NULL, &err), &err);
    pm_buf_free(&b);
  }
  pm_committable_free(mc);
  /* Conflict detection needs a snapshot to check against (as in Java): commit one first. */
  int64_t snap = -2;
  CHECK_OK(write_commit(t, "{\"id\":0,\"p\":\"y\"}\n", &snap, &err), &err);
  CHECK_EQ_INT(snap, 1);
  CHECK_OK(paimon_write_builder_new_commit(wb, &c, &err), &err);
  if (m2) {
    int rc = paimon_table_commit_commit(c, m2, PAIMON_BATCH_COMMIT_IDENTIFIER, &snap, &err);
    CHECK_MSG(rc == PAIMON_ERR_CONFLICT, "rc %d: %s", rc, err.message);
  }
  CHECK_EQ_INT(snap, -1);
  CHECK_EQ_INT(latest(t), 1);
  paimon_commit_messages_free(m2);
  paimon_table_commit_free(c);
  paimon_table_write_free(w);
  paimon_write_builder_free(wb);
  /* UNKNOWN_OUTCOME: publication k of the commit fails with an I/O error, k = 1, 2, ...: failures
   * before the snapshot write publish nothing (IO); the snapshot write itself is uncertain. */
  pm_fs *fault = NULL;
  paimon_catalog *fcat = fault_catalog(&fault);
  paimon_table *ft = fcat && fcat->c ? get_table(fcat, "t6") : NULL;
  if (ft) {
    paimon_option no_retry[] = {{"commit.max-retries", "0"}};
    CHECK_OK(paimon_write_builder_new(ft, 0, no_retry, 1, &wb, &err), &err);
    int rc = -1;
    for (uint64_t k = 1; k <= 8 && rc != PAIMON_ERR_UNKNOWN_OUTCOME; k++) {
      CHECK_OK(paimon_write_builder_new_commit(wb, &c, &err), &err);
      pm_fault_rule rule = {PM_FAULT_OP_CREATE_IF_ABSENT, k, 1, PM_FAULT_ERROR, 0};
      pm_fault_fs_arm(fault, &rule);
      rc = paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, &snap, &err);
      pm_fault_fs_disarm(fault);
      paimon_table_commit_free(c);
      CHECK_MSG(rc == PAIMON_ERR_IO || rc == PAIMON_ERR_UNKNOWN_OUTCOME, "k %d rc %d: %s", (int)k, rc, err.message);
      if (rc == PAIMON_ERR_IO) CHECK_EQ_INT(latest(t), 1);
    }
    CHECK_EQ_INT(rc, PAIMON_ERR_UNKNOWN_OUTCOME);
    /* Committing the same messages again with the same user publishes them once. */
    CHECK_OK(paimon_write_builder_new_commit(wb, &c, &err), &err);
    CHECK_OK(paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, &snap, &err), &err);
    CHECK_EQ_INT(snap, 2);
    paimon_table_commit_free(c);
    paimon_write_builder_free(wb);
    check_table("t6", "{\"id\":0,\"name\":null,\"p\":\"y\"}\n{\"id\":1,\"name\":null,\"p\":\"x\"}\n",
                "t6 after unknown outcome + retry");
  }
  paimon_commit_messages_free(m);
  paimon_table_free(ft);
  paimon_catalog_free(fcat);
  pm_fs_unref(fault);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

int main(int argc, char **argv) {
  if (argc > 5 && !strcmp(argv[1], "--commit-child")) return commit_child(argv);
  self_exe = argv[0][0] == '/' ? argv[0] : realpath(argv[0], NULL);
  snprintf(wh, sizeof wh, "/tmp/pm_api_write_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  RUN_TEST(test_write_commit_read);
  RUN_TEST(test_bad_batches);
  RUN_TEST(test_batch_prepares_once);
  RUN_TEST(test_messages_in_another_process);
  RUN_TEST(test_overwrite_truncate_abort);
  RUN_TEST(test_conflict_and_unknown_outcome);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && system(cmd)) return 1;
  if (self_exe != argv[0]) free((char *)self_exe);
  TEST_MAIN_END();
}
