/*
 * Row-tracking tables we create (SEMANTICS 9.2): a table with row-tracking.enabled, unpartitioned
 * and partitioned (files of one commit in two partitions), takes several commits through the
 * public write API. After each commit `paimon-table check` (strict) passes and `paimon-table read`
 * returns every row written; after the second and the last:
 *   - the _ROW_ID of every row, derived independently from Java's layout rule (the file's
 *     _FIRST_ROW_ID read from the manifests with avro-dump, plus the row's position in the data
 *     file read with parquet-dump), equals what our reader returns for the _ROW_ID column;
 *   - the row ids are exactly 0..N-1 (no gap, no repeat), the snapshot's nextRowId is N and the
 *     manifest-list rows carry the row-id range of their manifests (check verifies the ranges).
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "support/oracle_table.h"
#include "support/oracle_write.h"

static char tmp_root[256];

static json_t *tool_lines(const char *tool, const char *path, const char *args) {
  char cmd[2048], *out = NULL;
  snprintf(cmd, sizeof cmd, "%s/tools/%s '%s' %s 2>&1", PAIMON_SHARED_DIR, tool, path, args);
  int rc = ot_shell(cmd, &out);
  json_t *rows = rc == 0 ? ot_parse_lines(out, NULL) : NULL;
  if (!rows) fprintf(stderr, "%s %s failed (%d): %.500s\n", tool, path, rc, out ? out : "");
  free(out);
  return rows;
}

/* Rows {id, v, _ROW_ID} of the latest snapshot, from the files themselves: live ADD entries of
 * base + delta lists (avro-dump), each data file's rows in file order (parquet-dump). */
static json_t *expected_with_row_ids(const char *dir, long long *next_row_id) {
  char p[1400];
  snprintf(p, sizeof p, "%s/snapshot/LATEST", dir);
  FILE *f = fopen(p, "r");
  long long latest = -1;
  if (f) {
    if (fscanf(f, "%lld", &latest) != 1) latest = -1;
    fclose(f);
  }
  snprintf(p, sizeof p, "%s/snapshot/snapshot-%lld", dir, latest);
  json_t *snap = json_load_file(p, 0, NULL);
  CHECK(snap != NULL);
  if (!snap) return json_array();
  *next_row_id = json_integer_value(json_object_get(snap, "nextRowId"));
  json_t *rows = json_array();
  const char *lists[2] = {json_string_value(json_object_get(snap, "baseManifestList")),
                          json_string_value(json_object_get(snap, "deltaManifestList"))};
  for (int l = 0; l < 2; l++) {
    snprintf(p, sizeof p, "%s/manifest/%s", dir, lists[l]);
    json_t *metas = tool_lines("avro-dump", p, "--records");
    size_t i, j;
    json_t *m, *e;
    json_array_foreach(metas, i, m) {
      snprintf(p, sizeof p, "%s/manifest/%s", dir, json_string_value(json_object_get(m, "_FILE_NAME")));
      json_t *entries = tool_lines("avro-dump", p, "--records");
      json_array_foreach(entries, j, e) {
        CHECK_EQ_INT(json_integer_value(json_object_get(e, "_KIND")), 0); /* appends only */
        json_t *file = json_object_get(e, "_FILE");
        json_t *first = json_object_get(file, "_FIRST_ROW_ID");
        CHECK(json_is_integer(first));
        /* the data file: partition directory from the rows is not needed, find it by name */
        char cmd[2000], *found = NULL;
        snprintf(cmd, sizeof cmd, "find '%s' -name '%s'", dir, json_string_value(json_object_get(file, "_FILE_NAME")));
        CHECK(ot_shell(cmd, &found) == 0 && found && *found);
        if (found) found[strcspn(found, "\n")] = 0;
        json_t *data = found ? tool_lines("parquet-dump", found, "") : NULL;
        CHECK_EQ_INT(json_array_size(data), json_integer_value(json_object_get(file, "_ROW_COUNT")));
        size_t k;
        json_t *r;
        json_array_foreach(data, k, r) {
          json_t *o = json_object();
          json_object_set(o, "id", json_object_get(r, "id"));
          json_object_set(o, "v", json_object_get(r, "v"));
          json_object_set_new(o, "_ROW_ID", json_integer(json_integer_value(first) + (json_int_t)k));
          json_array_append_new(rows, o);
        }
        json_decref(data);
        free(found);
      }
      json_decref(entries);
    }
    json_decref(metas);
  }
  json_decref(snap);
  return rows;
}

/* Our reader, columns id, v, _ROW_ID. */
static json_t *ours_with_row_ids(const paimon_table *t) {
  paimon_error err = {0};
  paimon_read_builder *rb = NULL;
  paimon_plan *plan = NULL;
  struct ArrowArrayStream st = {0};
  struct ArrowSchema schema = {0};
  const char *cols[3] = {"id", "v", "_ROW_ID"};
  json_t *rows = json_array();
  CHECK_OK(paimon_read_builder_new(t, NULL, 0, &rb, &err), &err);
  if (rb) CHECK_OK(paimon_read_builder_with_projection(rb, cols, 3, &err), &err);
  if (rb) CHECK_OK(paimon_read_builder_plan(rb, &plan, &err), &err);
  if (plan) CHECK_OK(paimon_read_plan(rb, plan, &st, &err), &err);
  if (st.release && st.get_schema(&st, &schema) == 0) {
    CHECK_EQ_INT(schema.n_children, 3);
    CHECK_EQ_STR(schema.children[2]->name, "_ROW_ID");
    CHECK_EQ_STR(schema.children[2]->format, "l");
    CHECK_EQ_INT(schema.children[2]->flags & ARROW_FLAG_NULLABLE, 0); /* BIGINT NOT NULL, as Java's SpecialFields */
    for (;;) {
      struct ArrowArray a;
      if (st.get_next(&st, &a) != 0) {
        CHECK_MSG(0, "read: %s", st.get_last_error(&st));
        break;
      }
      if (!a.release) break;
      const int32_t *ids = a.children[0]->buffers[1];
      const int32_t *off = a.children[1]->buffers[1];
      const char *chars = a.children[1]->buffers[2];
      const int64_t *rid = a.children[2]->buffers[1];
      for (int64_t r = 0; r < a.length; r++) {
        int64_t i0 = a.children[0]->offset + r, i1 = a.children[1]->offset + r, i2 = a.children[2]->offset + r;
        json_t *o = json_object();
        json_object_set_new(o, "id", json_integer(ids[i0]));
        json_object_set_new(o, "v", json_stringn(chars + off[i1], (size_t)(off[i1 + 1] - off[i1])));
        json_object_set_new(o, "_ROW_ID", json_integer(rid[i2]));
        json_array_append_new(rows, o);
      }
      a.release(&a);
    }
  }
  if (schema.release) schema.release(&schema);
  if (st.release) st.release(&st);
  paimon_plan_free(plan);
  paimon_read_builder_free(rb);
  return rows;
}

static void run(const char *name, const char *columns, const char *partition_keys, const char *const *opts,
                size_t n_opts) {
  char wh[512], dir[1200];
  snprintf(wh, sizeof wh, "%s/%s", tmp_root, name);
  snprintf(dir, sizeof dir, "%s/db.db/%s", wh, name);
  char cmd[700];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", wh);
  CHECK(system(cmd) == 0);
  paimon_option wo = {"warehouse", wh};
  paimon_catalog *cat = NULL;
  paimon_table *t = NULL;
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_open(&wo, 1, &cat, &err), &err);
  if (!cat) return;
  CHECK_OK(ow_create_table(cat, "db", name, columns, partition_keys, opts, n_opts, 0, &err), &err);
  char ident[300];
  snprintf(ident, sizeof ident, "db.%s", name);
  static const int rows_per_commit[] = {3, 5, 1, 7};
  json_t *all = json_array();
  int next_id = 0;
  for (size_t c = 0; c < sizeof rows_per_commit / sizeof *rows_per_commit; c++) {
    CHECK_OK(paimon_catalog_get_table(cat, ident, &t, &err), &err);
    if (!t) break;
    char lines[4096] = "";
    json_t *batch = json_array();
    for (int r = 0; r < rows_per_commit[c]; r++, next_id++) {
      json_t *o = json_object();
      json_object_set_new(o, "id", json_integer(next_id));
      char v[32];
      snprintf(v, sizeof v, "c%zu-r%d", c, r);
      json_object_set_new(o, "v", json_string(v));
      if (partition_keys) json_object_set_new(o, "p", json_string(next_id % 2 ? "odd" : "even"));
      char *s = json_dumps(o, JSON_COMPACT);
      strcat(lines, s);
      strcat(lines, "\n");
      free(s);
      json_array_append_new(batch, o);
    }
    int64_t snap = -1;
    CHECK_OK(ow_write_commit(t, NULL, 0, 0, lines, NULL, 0, 0, &snap, &err), &err);
    CHECK_EQ_INT(snap, (long long)c + 1);
    ot_model_append(&(ot_model){all}, batch);
    json_decref(batch);
    char what[128];
    snprintf(what, sizeof what, "%s after commit %zu", name, c + 1);
    CHECK(ot_check_ok(dir, 0, what));
    CHECK(ot_read_equals(dir, NULL, all, what));

    if (c != 1 && c + 1 != sizeof rows_per_commit / sizeof *rows_per_commit) { /* dumps: after commits 2 and 4 */
      paimon_table_free(t);
      t = NULL;
      continue;
    }
    long long next_row_id = -1;
    json_t *want = expected_with_row_ids(dir, &next_row_id);
    CHECK_EQ_INT(next_row_id, next_id);
    CHECK_EQ_INT(json_array_size(want), (size_t)next_id);
    /* row ids 0..N-1, each once */
    char *seen = calloc((size_t)next_id + 1, 1);
    size_t k;
    json_t *r;
    json_array_foreach(want, k, r) {
      json_int_t id = json_integer_value(json_object_get(r, "_ROW_ID"));
      CHECK_MSG(id >= 0 && id < next_id && !seen[id], "%s: row id %lld out of range or repeated", what, (long long)id);
      if (id >= 0 && id < next_id) seen[id] = 1;
    }
    free(seen);
    json_t *ours = ours_with_row_ids(t);
    char msg[8192];
    CHECK_MSG(ot_rows_match(want, ours, msg, sizeof msg), "%s: _ROW_ID (files) vs our reader: %s", what, msg);
    json_decref(ours);
    json_decref(want);
    paimon_table_free(t);
    t = NULL;
  }
  json_decref(all);
  paimon_catalog_free(cat);
}

static void test_unpartitioned(void) {
  const char *opts[] = {"row-tracking.enabled=true"};
  run("rt", "id INT, v STRING", NULL, opts, 1);
}

static void test_partitioned(void) {
  /* manifest.merge-min-count 2: the base list is merged (rewritten manifests keep the row-id ranges) */
  const char *opts[] = {"row-tracking.enabled=true", "manifest.merge-min-count=2"};
  run("rtp", "id INT, v STRING, p STRING", "p", opts, 2);
}

int main(void) {
  if (!ot_available()) TEST_MAIN_END();
  snprintf(tmp_root, sizeof tmp_root, "/tmp/pm_test_write_rowid_XXXXXX");
  if (!mkdtemp(tmp_root)) return 1;
  RUN_TEST(test_unpartitioned);
  RUN_TEST(test_partitioned);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (!getenv("PM_KEEP") && !pm_test_failures && system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
  TEST_MAIN_END();
}
