/*
 * changelog-producer = input on primary-key tables (SEMANTICS 2.4; issue 12 §2):
 * every flushed input record is also written, unmerged, to level-0 changelog
 * files. After every commit: paimon-table check passes, paimon-table read and
 * our reader = the model (key -> row); the commit's changelog read through our
 * incremental changelog mode (with row kinds) = exactly the input records of
 * that commit; the snapshot's changelogManifestList / changelogRecordCount;
 * the changelog files themselves read by DuckDB (independent): every input
 * record with its row kind, each file in key then sequence order.
 * Options changelog-file.format / .compression / .prefix (Avro changelog
 * beside Parquet data: avro-dump reads the files, codec as configured).
 * Many flushes (write-buffer-size, target-file-size): a changelog file per
 * flush and roll, the commit's changelog = the input. Injected I/O errors at
 * the fs operations of a changelog write: the write fails naming the fault,
 * leaves no file behind and the table unchanged.
 */
#include <glob.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/api_internal.h"
#include "arrow/arrow.h"
#include "arrow/json_read.h"
#include "arrow/type.h"
#include "harness.h"
#include "io/fs_fault.h"
#include "paimon/write.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/oracle_table.h"
#include "support/oracle_write.h"
#include "support/pk_write.h"

static char wh[256];

#include "support/pk_changelog.h"

static paimon_catalog *open_catalog(void) { return pkw_open_catalog(wh); }

/* A table of support/pk_changelog.h with changelog-producer = input (then extra). */
static paimon_table *make_input_table(paimon_catalog *cat, const char *name, const char *const *extra,
                                      size_t n_extra) {
  const char *opts[16] = {"changelog-producer=input"};
  size_t n = 1;
  for (size_t i = 0; i < n_extra && n < 16; i++) opts[n++] = extra[i];
  return make_table(cat, name, opts, n);
}

/* A batch from JSON lines with the int8 row-kind column "_rk". */
static void batch(const char *jsonl, struct ArrowSchema *s, struct ArrowArray *a) { pkw_batch(COLS, 5, jsonl, s, a); }

/* Writes the rows (row kinds from "_rk"), flushing after every `flush_every`
 * batch-parts (a part = one JSON-lines string), and commits once. */
static int write_parts(paimon_table *t, const char *const *parts, size_t n, paimon_error *err) {
  pkw_part ps[64];
  CHECK(n <= 64);
  for (size_t i = 0; i < n && i < 64; i++) ps[i] = (pkw_part){parts[i], -1};
  pkw_how how = {COLS, 4, "_rk", -1, NULL};
  return pkw_write_commit(t, &how, ps, n < 64 ? n : 64, err);
}

/* ------------------------------------------------------------ model */

/* Applies the rows (deduplicate) to model; appends each as a changelog row
 * (with "_row_kind") to changes. */
static void model_apply_input(json_t *model, json_t *changes, const char *jsonl) {
  json_t *rows = ot_parse_lines(jsonl, NULL);
  CHECK(rows != NULL);
  size_t i;
  json_t *r;
  json_array_foreach(rows, i, r) {
    int k = (int)json_integer_value(json_object_get(r, "_rk"));
    json_t *row = row_of(r);
    char key[256];
    snprintf(key, sizeof key, "%s/%lld", json_string_value(json_object_get(row, "pt")),
             (long long)json_integer_value(json_object_get(row, "id")));
    json_array_append_new(changes, with_kind(row, k));
    if (k == 1 || k == 3) {
      json_object_del(model, key);
      json_decref(row);
    } else {
      json_object_set_new(model, key, row);
    }
  }
  json_decref(rows);
}

/* The table = model in both readers; check passes; snapshot `snap`'s changelog
 * read (ours, incremental changelog mode) = changes; its snapshot file has
 * the changelog manifest list and changelogRecordCount = |changes|. */
static void check_input_commit(paimon_table *t, const char *name, const json_t *model, const json_t *changes,
                               int64_t snap, int use_oracle, const char *what) {
  char msg[8192];
  json_t *want = model_rows(model);
  json_t *ours = read_ours(t, NULL, 0, 0);
  if (ours) CHECK_MSG(ot_rows_match(want, ours, msg, sizeof msg), "%s: our reader: %s", what, msg);
  json_decref(ours);
  char between[64];
  snprintf(between, sizeof between, "%lld,%lld", (long long)snap - 1, (long long)snap);
  paimon_option o[] = {{"incremental-between", between}, {"incremental-between-scan-mode", "changelog"}};
  json_t *cl = read_ours(t, o, 2, 1);
  if (cl) CHECK_MSG(ot_rows_match(changes, cl, msg, sizeof msg), "%s: changelog read: %s", what, msg);
  json_decref(cl);
  char path[1024];
  snprintf(path, sizeof path, "%s/snapshot/snapshot-%lld", table_dir(name), (long long)snap);
  json_t *s = json_load_file(path, 0, NULL);
  CHECK_MSG(s != NULL, "%s: %s", what, path);
  if (s) {
    const char *list = json_string_value(json_object_get(s, "changelogManifestList"));
    CHECK_MSG(list && !strncmp(list, "manifest-list-", 14), "%s: changelogManifestList", what);
    CHECK_EQ_INT(json_integer_value(json_object_get(s, "changelogRecordCount")), json_array_size(changes));
    CHECK(json_integer_value(json_object_get(s, "changelogManifestListSize")) > 0);
    CHECK_EQ_INT(json_is_string(json_object_get(s, "commitKind")) &&
                     !strcmp(json_string_value(json_object_get(s, "commitKind")), "APPEND"),
                 1);
  }
  json_decref(s);
  if (use_oracle && ot_available()) {
    CHECK_MSG(ot_check_ok(table_dir(name), 0, what), "%s", what);
    CHECK_MSG(ot_read_equals(table_dir(name), NULL, want, what), "%s", what);
  }
  json_decref(want);
}

/* ------------------------------------------------------------ tests */

static const char *const C1[] = {
    "{\"id\":1,\"pt\":\"a\",\"v\":\"one\",\"n\":10,\"_rk\":0}\n{\"id\":2,\"pt\":\"a\",\"v\":null,\"n\":20,\"_rk\":0}\n"
    "{\"id\":1,\"pt\":\"b\",\"v\":\"b-one\",\"n\":null,\"_rk\":0}\n{\"id\":3,\"pt\":\"a\",\"v\":\"three\",\"n\":30,\"_rk\":0}\n",
    "{\"id\":1,\"pt\":\"a\",\"v\":\"one\",\"n\":10,\"_rk\":1}\n{\"id\":1,\"pt\":\"a\",\"v\":\"one'\",\"n\":11,\"_rk\":2}\n"
    "{\"id\":7,\"pt\":\"b\",\"v\":\"seven\",\"n\":70,\"_rk\":0}\n{\"id\":8,\"pt\":\"b\",\"v\":\"eight\",\"n\":80,\"_rk\":0}\n"};
static const char *const C2[] = {
    "{\"id\":2,\"pt\":\"a\",\"v\":null,\"n\":20,\"_rk\":1}\n{\"id\":2,\"pt\":\"a\",\"v\":\"two\",\"n\":21,\"_rk\":2}\n"
    "{\"id\":3,\"pt\":\"a\",\"v\":\"three\",\"n\":30,\"_rk\":3}\n{\"id\":7,\"pt\":\"b\",\"v\":\"seven\",\"n\":70,\"_rk\":3}\n"
    "{\"id\":9,\"pt\":\"b\",\"v\":\"nine\",\"n\":90,\"_rk\":0}\n{\"id\":9,\"pt\":\"b\",\"v\":\"nine\",\"n\":90,\"_rk\":3}\n"
    "{\"id\":9,\"pt\":\"b\",\"v\":\"nine!\",\"n\":91,\"_rk\":0}\n"};
static const char *const C3[] = {"{\"id\":1,\"pt\":\"b\",\"v\":\"b-one\",\"n\":null,\"_rk\":3}\n"
                                 "{\"id\":4,\"pt\":\"c\",\"v\":\"four\",\"n\":40,\"_rk\":0}\n"};

static void test_input_changelog(void) {
  paimon_catalog *cat = open_catalog();
  paimon_table *t = make_input_table(cat, "cl", NULL, 0);
  json_t *model = json_object();
  json_t *all = json_array();
  paimon_error err = {0};
  const char *const *commits[] = {C1, C2, C3};
  size_t sizes[] = {2, 1, 1};
  for (int c = 0; c < 3; c++) {
    CHECK_OK(write_parts(t, commits[c], sizes[c], &err), &err);
    json_t *changes = json_array();
    for (size_t p = 0; p < sizes[c]; p++) model_apply_input(model, changes, commits[c][p]);
    json_array_extend(all, changes);
    char what[64];
    snprintf(what, sizeof what, "commit %d", c + 1);
    check_input_commit(t, "cl", model, changes, c + 1, c == 2, what);
    json_decref(changes);
  }
  /* the changelog files read by DuckDB: every input record with its kind ... */
  if (ot_available()) {
    char q[4096], *out = NULL;
    snprintf(q, sizeof q,
             "%s/tools/duckdb-sql \"SELECT id, pt, v, n, CASE _VALUE_KIND WHEN 0 THEN '+I' WHEN 1 THEN '-U' WHEN 2 "
             "THEN '+U' ELSE '-D' END AS _row_kind FROM read_parquet('%s/pt=*/bucket-*/changelog-*.parquet')\"",
             PAIMON_SHARED_DIR, table_dir("cl"));
    CHECK_EQ_INT(ot_shell(q, &out), 0);
    json_t *rows = out ? ot_parse_lines(out, NULL) : NULL;
    char msg[8192];
    CHECK_MSG(rows && ot_rows_match(all, rows, msg, sizeof msg), "changelog files: %s", rows ? msg : out);
    json_decref(rows);
    free(out);
    /* ... each file in (key, sequence) order, the trimmed key (id) in _KEY_id */
    out = NULL;
    snprintf(q, sizeof q,
             "%s/tools/duckdb-sql \"SELECT count(*) AS bad FROM (SELECT _KEY_id = id AS k, "
             "lag(_KEY_id) OVER w AS li, lag(_SEQUENCE_NUMBER) OVER w AS ls, _KEY_id, _SEQUENCE_NUMBER FROM read_parquet('%s/pt=*/bucket-*/changelog-*.parquet', filename=true, "
             "file_row_number=true) WINDOW w AS (PARTITION BY filename ORDER BY file_row_number)) WHERE NOT k OR "
             "(li IS NOT NULL AND (li > _KEY_id OR (li = _KEY_id AND ls >= _SEQUENCE_NUMBER)))\"",
             PAIMON_SHARED_DIR, table_dir("cl"));
    CHECK_EQ_INT(ot_shell(q, &out), 0);
    CHECK_MSG(out && strstr(out, "\"bad\":0"), "changelog order: %s", out ? out : "");
    free(out);
  }
  json_decref(all);
  json_decref(model);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* changelog-file.format = avro with snappy, changelog-file.prefix; data stays Parquet. */
static void test_changelog_options(void) {
  paimon_catalog *cat = open_catalog();
  const char *opts[] = {"changelog-file.format=avro", "changelog-file.compression=snappy", "changelog-file.prefix=cl-",
                        "changelog-file.stats-mode=none"};
  paimon_table *t = make_input_table(cat, "clopt", opts, 4);
  json_t *model = json_object();
  json_t *changes = json_array();
  paimon_error err = {0};
  CHECK_OK(write_parts(t, C1, 2, &err), &err);
  for (size_t p = 0; p < 2; p++) model_apply_input(model, changes, C1[p]);
  check_input_commit(t, "clopt", model, changes, 1, 1, "avro changelog");
  char cmd[2048], *out = NULL;
  snprintf(cmd, sizeof cmd,
           "cd '%s' && ls pt=*/bucket-*/ | grep -c '^cl-.*\\.avro$'; ls pt=*/bucket-*/ | grep -c '^changelog-'; "
           "ls pt=*/bucket-*/ | grep -c '^data-.*\\.parquet$'",
           table_dir("clopt"));
  CHECK_EQ_INT(ot_shell(cmd, &out), 0);
  int n_cl = -1, n_old = -1, n_data = -1;
  if (out) sscanf(out, "%d %d %d", &n_cl, &n_old, &n_data);
  CHECK_MSG(n_cl >= 3 && n_old == 0 && n_data >= 3, "files: %s", out ? out : "");
  free(out);
  if (ot_available()) {
    out = NULL;
    snprintf(cmd, sizeof cmd, "cd '%s' && for f in pt=*/bucket-*/cl-*.avro; do %s/tools/avro-dump \"$f\"; done",
             table_dir("clopt"), PAIMON_SHARED_DIR);
    CHECK_EQ_INT(ot_shell(cmd, &out), 0);
    json_t *recs = out ? ot_parse_lines(out, NULL) : NULL; /* per file: a header line, then its records */
    size_t i, n_rec = 0, n_snappy = 0;
    json_t *r;
    int kinds[4] = {0};
    json_array_foreach(recs, i, r) {
      if (json_object_get(r, "codec")) {
        n_snappy += json_is_string(json_object_get(r, "codec")) &&
                    !strcmp(json_string_value(json_object_get(r, "codec")), "snappy");
        continue;
      }
      n_rec++;
      long long k = json_integer_value(json_object_get(r, "_VALUE_KIND"));
      if (k >= 0 && k < 4) kinds[k]++;
      CHECK(json_equal(json_object_get(r, "_KEY_id"), json_object_get(r, "id")));
    }
    CHECK_EQ_INT(n_rec, json_array_size(changes));
    CHECK_EQ_INT(n_snappy, n_cl);
    CHECK_EQ_INT(kinds[0], 6);
    CHECK_EQ_INT(kinds[1], 1);
    CHECK_EQ_INT(kinds[2], 1);
    json_decref(recs);
    free(out);
  }
  json_decref(changes);
  json_decref(model);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* Random rows over 300 keys in one commit with a small write buffer and target file size. */
static void test_many_flushes(void) {
  paimon_catalog *cat = open_catalog();
  const char *opts[] = {"write-buffer-size=8 kb", "target-file-size=4 kb", "bucket=1"};
  paimon_table *t = make_input_table(cat, "clmany", opts, 3);
  json_t *model = json_object(), *changes = json_array();
  size_t cap = 1 << 20, len = 0;
  char *buf = malloc(cap);
  unsigned seed = 7;
  const char *parts[8];
  char *owned[8];
  for (int p = 0; p < 8; p++) {
    len = 0;
    for (int r = 0; r < 250; r++) {
      int id = (int)(rand_r(&seed) % 300), k = (int)(rand_r(&seed) % 10);
      int kind = k < 6 ? 0 : k < 7 ? 2 : k < 8 ? 1 : 3;
      len += (size_t)snprintf(buf + len, cap - len,
                              "{\"id\":%d,\"pt\":\"p%d\",\"v\":\"value-%d-%d-padding-padding\",\"n\":%d,\"_rk\":%d}\n", id,
                              id % 2, p, r, r, kind);
    }
    owned[p] = strdup(buf);
    parts[p] = owned[p];
  }
  paimon_error err = {0};
  CHECK_OK(write_parts(t, parts, 8, &err), &err);
  for (int p = 0; p < 8; p++) model_apply_input(model, changes, parts[p]);
  check_input_commit(t, "clmany", model, changes, 1, 1, "many flushes");
  char cmd[2048], *out = NULL;
  snprintf(cmd, sizeof cmd, "ls '%s'/pt=*/bucket-0/ | grep -c '^changelog-'", table_dir("clmany"));
  CHECK_EQ_INT(ot_shell(cmd, &out), 0);
  CHECK_MSG(out && atoi(out) >= 8, "changelog files: %s", out ? out : "");
  free(out);
  for (int p = 0; p < 8; p++) free(owned[p]);
  free(buf);
  json_decref(changes);
  json_decref(model);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

static int count_files(const char *dir, const char *prefix) {
  char pat[1024];
  snprintf(pat, sizeof pat, "%s/pt=*/bucket-*/%s*", dir, prefix);
  glob_t g;
  int rc = glob(pat, 0, NULL, &g);
  int n = rc == 0 ? (int)g.gl_pathc : rc == GLOB_NOMATCH ? 0 : -1;
  if (rc == 0) globfree(&g);
  return n;
}

/* An I/O error at each create / write / publish of a write + prepare: fails naming the fault,
 * no file of it stays, the table keeps its one committed batch. */
static void test_changelog_write_faults(void) {
  char fwh[300];
  snprintf(fwh, sizeof fwh, "%s/faults", wh);
  CHECK(mkdir(fwh, 0755) == 0);
  pm_error e;
  pm_error_clear(&e);
  pm_fs *fs = NULL;
  CHECK_OK(pm_fault_fs_new(pm_fs_local(), &fs, &e), &e);
  pm_options o;
  pm_options_init(&o);
  pm_options_set(&o, "warehouse", fwh, &e);
  paimon_catalog *cat = calloc(1, sizeof *cat);
  CHECK_OK(pm_catalog_open_with_fs(fs, &o, &cat->c, &e), &e);
  pm_options_clear(&o);
  paimon_error err = {0};
  const char *opts[] = {"primary-key=pt,id", "bucket=2", "changelog-producer=input", "target-file-size=1 b"};
  CHECK_OK(ow_create_table(cat, "d", "clf", TABLE_COLS, "pt", opts, 4, 0, &err), &err);
  paimon_table *t = NULL;
  CHECK_OK(paimon_catalog_get_table(cat, "d.clf", &t, &err), &err);
  CHECK_OK(write_parts(t, C3, 1, &err), &err);
  char dir[400];
  snprintf(dir, sizeof dir, "%s/d.db/clf", fwh);
  int data0 = count_files(dir, "data-"), cl0 = count_files(dir, "changelog-");
  CHECK(data0 == 2 && cl0 == 2);
  /* count the operations of writing + preparing C1 (not committing it) */
  pm_fault_op ops[] = {PM_FAULT_OP_CREATE, PM_FAULT_OP_WRITE, PM_FAULT_OP_PUBLISH, PM_FAULT_OP_MKDIRS};
  for (size_t oi = 0; oi < sizeof ops / sizeof ops[0]; oi++) {
    for (uint64_t n = 1; n < 200; n++) {
      pm_fault_rule r = {ops[oi], n, 1, PM_FAULT_ERROR, 0};
      paimon_write_builder *wb = NULL;
      paimon_table_write *w = NULL;
      paimon_commit_messages *m = NULL;
      pm_fault_fs_arm(fs, &r);
      int rc = paimon_write_builder_new(t, 0, NULL, 0, &wb, &err);
      if (!rc) rc = paimon_write_builder_new_write(wb, &w, &err);
      if (!rc) rc = paimon_table_write_with_row_kind_column(w, "_rk", &err);
      for (size_t p = 0; !rc && p < 2; p++) {
        struct ArrowSchema s;
        struct ArrowArray a;
        batch(C1[p], &s, &a);
        rc = paimon_table_write_arrow(w, &s, &a, &err);
        a.release(&a);
        s.release(&s);
      }
      if (!rc) rc = paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, &err);
      int injected = pm_fault_fs_injected(fs) > 0;
      if (!rc) { /* past the last such operation: abort what was prepared */
        paimon_table_commit *c = NULL;
        CHECK_OK(paimon_write_builder_new_commit(wb, &c, &err), &err);
        CHECK_OK(paimon_table_commit_abort(c, m, &err), &err);
        paimon_table_commit_free(c);
      } else {
        CHECK_MSG(injected && strstr(err.message, "injected") != NULL, "%s #%llu: %s",
                  pm_fault_op_name(ops[oi]), (unsigned long long)n, err.message);
      }
      paimon_commit_messages_free(m);
      paimon_table_write_free(w);
      paimon_write_builder_free(wb);
      pm_fault_fs_disarm(fs);
      CHECK_MSG(count_files(dir, "data-") == data0 && count_files(dir, "changelog-") == cl0,
                "%s #%llu: files left behind", pm_fault_op_name(ops[oi]), (unsigned long long)n);
      if (!injected) break;
    }
  }
  json_t *model = json_object(), *changes = json_array();
  model_apply_input(model, changes, C3[0]);
  check_input_commit(t, "../faults/d.db/clf", model, changes, 1, 0, "after the faults");
  json_decref(changes);
  json_decref(model);
  paimon_table_free(t);
  paimon_catalog_free(cat);
  pm_fs_unref(fs);
}

int main(void) {
  snprintf(wh, sizeof wh, "/tmp/pm_write_pk_cl_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  RUN_TEST(test_input_changelog);
  RUN_TEST(test_changelog_options);
  RUN_TEST(test_many_flushes);
  RUN_TEST(test_changelog_write_faults);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && system(cmd)) return 1;
  TEST_MAIN_END();
}
