/*
 * overwrite-upgrade (Java's FileStoreCommitImpl.tryUpgrade; table/commit_upgrade.c):
 * an OVERWRITE of a primary-key table without compaction commits the new
 * level-0 files of each (partition, bucket) at the max level (num-levels - 1)
 * when their key ranges do not overlap; a bucket whose files overlap keeps
 * them at level 0; overwrite-upgrade = false keeps everything at level 0.
 *
 * Independent checks: the levels of the overwrite snapshot's delta manifest
 * entries through ../shared/tools/avro-dump; `paimon-table check` on every
 * table; `paimon-table read` and our reader return exactly the expected rows.
 * The tables are first-row with write-only (Java's BatchFileStoreITCase uses
 * deletion vectors + write-only, which our writer does not do yet): batch
 * reads skip level-0 files, so a file is visible exactly when it was
 * upgraded, which both readers show independently of the manifests.
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
#include "support/pk_write.h"

#define TABLE_COLS "id INT NOT NULL, v STRING, pt STRING NOT NULL"
static const char *const COLS[] = {"id:i:notnull", "v:u", "pt:u:notnull"};

static char wh[256];

static const char *table_dir(const char *name) {
  static char d[512];
  snprintf(d, sizeof d, "%s/d.db/%s", wh, name);
  return d;
}

static paimon_table *make_table(paimon_catalog *cat, const char *name, const char *const *extra, size_t n_extra) {
  const char *opts[16] = {"primary-key=pt,id", "bucket=1", "merge-engine=first-row", "write-only=true"};
  size_t n = 4;
  for (size_t i = 0; i < n_extra && n < 16; i++) opts[n++] = extra[i];
  paimon_error err = {0};
  CHECK_OK(ow_create_table(cat, "d", name, TABLE_COLS, "pt", opts, n, 0, &err), &err);
  char id[128];
  snprintf(id, sizeof id, "d.%s", name);
  return pkw_get_table(cat, id);
}

/* Writes each jsonl with its own writer of one builder and commits all their messages in one
 * commit (an overwrite when overwrite; dynamic options opts[0..n_opts)). */
static int commit_writers(paimon_table *t, int overwrite, const char *const *jsonl, size_t n_writers,
                          const paimon_option *opts, size_t n_opts, paimon_error *err) {
  paimon_write_builder *wb = NULL;
  paimon_commit_messages *all = NULL;
  paimon_table_commit *c = NULL;
  int rc = paimon_write_builder_new(t, 0, opts, n_opts, &wb, err);
  if (!rc && overwrite) rc = paimon_write_builder_with_overwrite(wb, NULL, 0, err);
  for (size_t i = 0; !rc && i < n_writers; i++) {
    paimon_table_write *w = NULL;
    paimon_commit_messages *m = NULL;
    struct ArrowSchema s;
    struct ArrowArray a;
    rc = paimon_write_builder_new_write(wb, &w, err);
    if (!rc) {
      pkw_batch(COLS, 3, jsonl[i], &s, &a);
      rc = paimon_table_write_arrow(w, &s, &a, err);
      if (a.release) a.release(&a);
      if (s.release) s.release(&s);
    }
    if (!rc) rc = paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, err);
    if (!rc && !all) {
      all = m;
      m = NULL;
    } else if (!rc) {
      rc = paimon_commit_messages_merge(all, &m, err);
    }
    paimon_commit_messages_free(m);
    paimon_table_write_free(w);
  }
  if (!rc) rc = paimon_write_builder_new_commit(wb, &c, err);
  if (!rc) rc = paimon_table_commit_commit(c, all, PAIMON_BATCH_COMMIT_IDENTIFIER, NULL, err);
  paimon_commit_messages_free(all);
  paimon_table_commit_free(c);
  paimon_write_builder_free(wb);
  return rc;
}

/* The entries of snapshot `id`'s delta manifests through avro-dump: array of records. */
static json_t *delta_entries(const char *dir, long long id) {
  char path[700], cmd[2048], *out = NULL;
  snprintf(path, sizeof path, "%s/snapshot/snapshot-%lld", dir, id);
  json_error_t je;
  json_t *snap = json_load_file(path, 0, &je);
  CHECK_MSG(snap != NULL, "%s: %s", path, je.text);
  if (!snap) return json_array();
  const char *list = json_string_value(json_object_get(snap, "deltaManifestList"));
  CHECK(list != NULL);
  snprintf(cmd, sizeof cmd, "%s/tools/avro-dump '%s/manifest/%s' --records", PAIMON_SHARED_DIR, dir, list ? list : "?");
  CHECK_EQ_INT(ot_shell(cmd, &out), 0);
  json_t *metas = ot_parse_lines(out, NULL);
  free(out);
  json_decref(snap);
  json_t *all = json_array();
  size_t i;
  json_t *m;
  json_array_foreach(metas, i, m) {
    snprintf(cmd, sizeof cmd, "%s/tools/avro-dump '%s/manifest/%s' --records", PAIMON_SHARED_DIR, dir,
             json_string_value(json_object_get(m, "_FILE_NAME")));
    CHECK_EQ_INT(ot_shell(cmd, &out), 0);
    json_t *ents = ot_parse_lines(out, NULL);
    free(out);
    CHECK(ents != NULL);
    json_array_extend(all, ents);
    json_decref(ents);
  }
  json_decref(metas);
  return all;
}

/* Counts the delta entries of kind (0 ADD, 1 DELETE) with `rows` rows (-1: any) at `level`. */
static int count_entries(const json_t *ents, int kind, long long rows, int level) {
  int n = 0;
  size_t i;
  json_t *e;
  json_array_foreach(ents, i, e) {
    json_t *f = json_object_get(e, "_FILE");
    if (json_integer_value(json_object_get(e, "_KIND")) != kind) continue;
    if (rows >= 0 && json_integer_value(json_object_get(f, "_ROW_COUNT")) != rows) continue;
    if (json_integer_value(json_object_get(f, "_LEVEL")) == level) n++;
  }
  return n;
}

/* paimon-table check + read = expected (JSON lines), and our reader = expected. */
static void check_rows(paimon_table *t, const char *name, const char *expected_jsonl, const char *what) {
  json_t *expected = ot_parse_lines(expected_jsonl, NULL);
  CHECK(ot_check_ok(table_dir(name), 0, what));
  CHECK(ot_read_equals(table_dir(name), NULL, expected, what));
  paimon_error err = {0};
  json_t *ours = ow_read_ours(t, &err);
  CHECK_MSG(ours != NULL, "%s: our reader: %s", what, err.message);
  if (ours) {
    char msg[4096];
    CHECK_MSG(ot_rows_match(expected, ours, msg, sizeof msg), "%s: our reader: %s", what, msg);
  }
  json_decref(ours);
  json_decref(expected);
}

/* Non-overlapping files upgraded to num-levels - 1 (default 5 + 1 levels: level 5; num-levels=3: 2). */
static void run_upgrade(const char *name, const char *const *extra, size_t n_extra, int max_level) {
  paimon_catalog *cat = pkw_open_catalog(wh);
  paimon_table *t = make_table(cat, name, extra, n_extra);
  paimon_error err = {0};
  const char *c1[] = {"{\"id\":1,\"v\":\"a1\",\"pt\":\"a\"}\n{\"id\":2,\"v\":\"a2\",\"pt\":\"a\"}\n"
                      "{\"id\":1,\"v\":\"b1\",\"pt\":\"b\"}\n"};
  CHECK_OK(commit_writers(t, 0, c1, 1, NULL, 0, &err), &err);
  /* an APPEND stays at level 0: write-only first-row, nothing visible yet */
  json_t *e1 = delta_entries(table_dir(name), 1);
  CHECK_EQ_INT(count_entries(e1, 0, -1, 0), 2);
  json_decref(e1);
  check_rows(t, name, "", "append (level 0)");
  /* the overwrite of partition a: its one new file goes to the max level */
  const char *c2[] = {"{\"id\":3,\"v\":\"a3\",\"pt\":\"a\"}\n{\"id\":4,\"v\":\"a4\",\"pt\":\"a\"}\n"};
  CHECK_OK(commit_writers(t, 1, c2, 1, NULL, 0, &err), &err);
  json_t *e2 = delta_entries(table_dir(name), 2);
  CHECK_EQ_INT(count_entries(e2, 0, 2, max_level), 1); /* the new file, upgraded */
  CHECK_EQ_INT(count_entries(e2, 0, -1, 0), 0);
  CHECK_EQ_INT(count_entries(e2, 1, 2, 0), 1); /* partition a's old file deleted */
  CHECK_EQ_INT((int)json_array_size(e2), 2);
  json_decref(e2);
  check_rows(t, name, "{\"id\":3,\"v\":\"a3\",\"pt\":\"a\"}\n{\"id\":4,\"v\":\"a4\",\"pt\":\"a\"}\n",
             "overwrite upgraded");
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

static void test_upgrade_to_max_level(void) { run_upgrade("up", NULL, 0, 5); }
static void test_upgrade_num_levels(void) {
  const char *o[] = {"num-levels=3"};
  run_upgrade("levels", o, 1, 2);
}

/* One commit, two writers: in partition a their files overlap ([1,3] and [2,4]): both stay at
 * level 0; in partition b they do not ([10,10], [20,20]): both upgraded. */
static void test_overlap_per_bucket(void) {
  paimon_catalog *cat = pkw_open_catalog(wh);
  paimon_table *t = make_table(cat, "overlap", NULL, 0);
  paimon_error err = {0};
  const char *c[] = {"{\"id\":1,\"v\":\"w1\",\"pt\":\"a\"}\n{\"id\":3,\"v\":\"w1\",\"pt\":\"a\"}\n"
                     "{\"id\":10,\"v\":\"w1\",\"pt\":\"b\"}\n",
                     "{\"id\":2,\"v\":\"w2\",\"pt\":\"a\"}\n{\"id\":4,\"v\":\"w2\",\"pt\":\"a\"}\n"
                     "{\"id\":20,\"v\":\"w2\",\"pt\":\"b\"}\n"};
  CHECK_OK(commit_writers(t, 1, c, 2, NULL, 0, &err), &err);
  json_t *e = delta_entries(table_dir("overlap"), 1);
  CHECK_EQ_INT(count_entries(e, 0, 2, 0), 2); /* partition a: overlapping, level 0 */
  CHECK_EQ_INT(count_entries(e, 0, 1, 5), 2); /* partition b: upgraded */
  CHECK_EQ_INT((int)json_array_size(e), 4);
  json_decref(e);
  /* level 0 is skipped by first-row reads: only partition b is visible */
  check_rows(t, "overlap", "{\"id\":10,\"v\":\"w1\",\"pt\":\"b\"}\n{\"id\":20,\"v\":\"w2\",\"pt\":\"b\"}\n",
             "overlapping bucket not upgraded");
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* overwrite-upgrade = false (table option, and as a dynamic option of the write builder). */
static void test_disabled(void) {
  paimon_catalog *cat = pkw_open_catalog(wh);
  const char *o[] = {"overwrite-upgrade=false"};
  paimon_table *t = make_table(cat, "off", o, 1);
  paimon_error err = {0};
  const char *c[] = {"{\"id\":1,\"v\":\"x\",\"pt\":\"a\"}\n"};
  CHECK_OK(commit_writers(t, 1, c, 1, NULL, 0, &err), &err);
  json_t *e = delta_entries(table_dir("off"), 1);
  CHECK_EQ_INT(count_entries(e, 0, 1, 0), 1);
  CHECK_EQ_INT((int)json_array_size(e), 1);
  json_decref(e);
  check_rows(t, "off", "", "overwrite-upgrade=false");
  paimon_table_free(t);
  /* on by default; off by a dynamic option of the builder */
  t = make_table(cat, "dyn", NULL, 0);
  paimon_option dyn = {"overwrite-upgrade", "false"};
  CHECK_OK(commit_writers(t, 1, c, 1, &dyn, 1, &err), &err);
  e = delta_entries(table_dir("dyn"), 1);
  CHECK_EQ_INT(count_entries(e, 0, 1, 0), 1);
  json_decref(e);
  check_rows(t, "dyn", "", "overwrite-upgrade=false as a dynamic option");
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* An append table's overwrite: no key, nothing upgraded (append files stay level 0). */
static void test_append_table_not_upgraded(void) {
  paimon_catalog *cat = pkw_open_catalog(wh);
  paimon_error err = {0};
  const char *opts[] = {"bucket=1", "bucket-key=id"};
  CHECK_OK(ow_create_table(cat, "d", "app", TABLE_COLS, "pt", opts, 2, 0, &err), &err);
  paimon_table *t = pkw_get_table(cat, "d.app");
  const char *c[] = {"{\"id\":1,\"v\":\"x\",\"pt\":\"a\"}\n"};
  CHECK_OK(commit_writers(t, 1, c, 1, NULL, 0, &err), &err);
  json_t *e = delta_entries(table_dir("app"), 1);
  CHECK_EQ_INT(count_entries(e, 0, 1, 0), 1);
  json_decref(e);
  check_rows(t, "app", "{\"id\":1,\"v\":\"x\",\"pt\":\"a\"}\n", "append table overwrite");
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

int main(void) {
  if (!ot_available()) TEST_MAIN_END();
  snprintf(wh, sizeof wh, "/tmp/pm_test_ow_upgrade_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  RUN_TEST(test_upgrade_to_max_level);
  RUN_TEST(test_upgrade_num_levels);
  RUN_TEST(test_overlap_per_bucket);
  RUN_TEST(test_disabled);
  RUN_TEST(test_append_table_not_upgraded);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
  TEST_MAIN_END();
}
