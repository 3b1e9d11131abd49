/* System tables checked against independent facts of the fixture files (snapshot JSON
 * totals, files on disk, directory listings). */
#include <jansson.h>
#include <unistd.h>

#include "arrow/arrow.h"
#include "arrow/type.h"
#include "arrow/stream.h"
#include "harness.h"
#include "io/file.h"
#include "table/catalog.h"
#include "table/system_tables.h"

#define WH PM_SHARED("fixtures/warehouse/parquet")

static pm_table *open_table(const char *name, const char *branch) {
  char root[1024];
  snprintf(root, sizeof root, "%s/%s.db/%s", WH, name, name);
  pm_error err = {0};
  pm_table *t = NULL;
  CHECK_OK(pm_table_open_path(root, NULL, NULL, branch, NULL, NULL, &t, &err), &err);
  return t;
}

/* Reads a system table into one batch vector. */
static int read_sys(pm_table *t, const char *name, pm_batch_vec *v) {
  pm_error err = {0};
  struct ArrowArrayStream s;
  int rc = pm_system_table_read(t, name, &s, &err);
  CHECK_MSG(rc == 0, "%s", err.message);
  if (rc) return rc;
  rc = pm_stream_collect(&s, v, &err);
  CHECK_MSG(rc == 0, "%s", err.message);
  s.release(&s);
  return rc;
}

static int col_index(const pm_batch_vec *v, const char *name) {
  for (int64_t i = 0; i < v->schema.n_children; i++)
    if (!strcmp(v->schema.children[i]->name, name)) return (int)i;
  return -1;
}

static int64_t sum_i64(const pm_batch_vec *v, const char *name) {
  int c = col_index(v, name);
  int64_t s = 0;
  for (int64_t b = 0; c >= 0 && b < v->n; b++) {
    const struct ArrowArray *a = v->batches[b].children[c];
    for (int64_t i = 0; i < a->length; i++)
      if (pm_array_is_valid(a, i)) s += ((const int64_t *)a->buffers[1])[a->offset + i];
  }
  return s;
}

static const char *str_at(const pm_batch_vec *v, const char *name, int64_t row, int *len) {
  int c = col_index(v, name);
  if (c < 0 || v->n == 0) return NULL;
  const struct ArrowArray *a = v->batches[0].children[c];
  if (row >= a->length || !pm_array_is_valid(a, row)) return NULL;
  const int32_t *off = a->buffers[1];
  *len = off[a->offset + row + 1] - off[a->offset + row];
  return (const char *)a->buffers[2] + off[a->offset + row];
}

static int64_t snapshot_total(const char *name, int64_t id) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.db/%s/snapshot/snapshot-%lld", WH, name, name, (long long)id);
  json_error_t je;
  json_t *j = json_load_file(path, 0, &je);
  int64_t v = j ? json_integer_value(json_object_get(j, "totalRecordCount")) : -1;
  json_decref(j);
  return v;
}

static size_t count_dir(const char *name, const char *sub, const char *prefix) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.db/%s/%s", WH, name, name, sub);
  char **names = NULL;
  size_t n = 0, k = 0;
  pm_error err = {0};
  if (pm_list_dir(path, &names, &n, &err)) return 0;
  for (size_t i = 0; i < n; i++) k += !strncmp(names[i], prefix, strlen(prefix));
  pm_free_names(names, n);
  return k;
}

static void check_table(const char *name) {
  pm_table *t = open_table(name, NULL);
  if (!t) return;
  pm_batch_vec snaps, files, parts, schemas, manifests;
  if (read_sys(t, "snapshots", &snaps) == 0) {
    int64_t rows = pm_batch_vec_rows(&snaps);
    CHECK_EQ_INT(rows, count_dir(name, "snapshot", "snapshot-"));
    int64_t latest = rows ? ((const int64_t *)snaps.batches[0].children[0]->buffers[1])[rows - 1] : 0;
    if (read_sys(t, "files", &files) == 0) {
      /* snapshot totalRecordCount = sum of the live files' row counts */
      CHECK_MSG(sum_i64(&files, "record_count") == snapshot_total(name, latest), "%s", name);
      for (int64_t i = 0; i < pm_batch_vec_rows(&files); i++) {
        int len = 0;
        const char *p = str_at(&files, "file_path", i, &len);
        char path[2048];
        snprintf(path, sizeof path, "%.*s", len, p ? p : "");
        if (!strstr(name, "external")) CHECK_MSG(pm_path_exists(path), "%s", path);
      }
      if (read_sys(t, "partitions", &parts) == 0) {
        CHECK_EQ_INT(sum_i64(&parts, "record_count"), snapshot_total(name, latest));
        CHECK_EQ_INT(sum_i64(&parts, "file_count"), pm_batch_vec_rows(&files));
        CHECK_EQ_INT(sum_i64(&parts, "file_size_in_bytes"), sum_i64(&files, "file_size_in_bytes"));
        pm_batch_vec_free(&parts);
      }
      pm_batch_vec_free(&files);
    }
    pm_batch_vec_free(&snaps);
  }
  if (read_sys(t, "schemas", &schemas) == 0) {
    CHECK_EQ_INT(pm_batch_vec_rows(&schemas), count_dir(name, "schema", "schema-"));
    pm_batch_vec_free(&schemas);
  }
  if (read_sys(t, "manifests", &manifests) == 0) {
    /* every listed manifest exists in manifest/ */
    for (int64_t i = 0; i < pm_batch_vec_rows(&manifests); i++) {
      int len = 0;
      const char *m = str_at(&manifests, "file_name", i, &len);
      char path[2048];
      snprintf(path, sizeof path, "%s/%s.db/%s/manifest/%.*s", WH, name, name, len, m ? m : "");
      CHECK_MSG(pm_path_exists(path), "%s", path);
    }
    CHECK(pm_batch_vec_rows(&manifests) > 0);
    pm_batch_vec_free(&manifests);
  }
  pm_table_free(t);
}

static void test_totals(void) {
  static const char *tables[] = {"pk_09", "pk_table_scan_and_read_mor", "append_table_with_alter_table",
                                 "pk_dv_index_not_in_data_no_external", "append_with_global_index",
                                 "append_table_row_tracking_with_compact", "pk_dv_index_in_data_with_external"};
  for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) check_table(tables[i]);
}

static void test_options_branches_tags(void) {
  pm_table *t = open_table("pk_09", NULL);
  pm_batch_vec v;
  if (t && read_sys(t, "options", &v) == 0) {
    int found = 0;
    for (int64_t i = 0; i < pm_batch_vec_rows(&v); i++) {
      int kl = 0, vl = 0;
      const char *k = str_at(&v, "key", i, &kl), *val = str_at(&v, "value", i, &vl);
      if (k && kl == 10 && !strncmp(k, "bucket-key", 10)) found = val && vl == 2 && !strncmp(val, "f2", 2);
    }
    CHECK(found);
    pm_batch_vec_free(&v);
  }
  if (t && read_sys(t, "tags", &v) == 0) {
    CHECK_EQ_INT(pm_batch_vec_rows(&v), 0);
    pm_batch_vec_free(&v);
  }
  pm_error err = {0};
  struct ArrowArrayStream s;
  if (t) CHECK(pm_system_table_read(t, "nope", &s, &err) == PAIMON_ERR_NOT_FOUND);
  pm_table_free(t);
  t = open_table("append_table_with_rt_branch", NULL);
  if (t && read_sys(t, "branches", &v) == 0) {
    int len = 0;
    CHECK_EQ_INT(pm_batch_vec_rows(&v), 1);
    const char *b = str_at(&v, "branch_name", 0, &len);
    CHECK(b && len == 2 && !strncmp(b, "rt", 2));
    pm_batch_vec_free(&v);
  }
  pm_table_free(t);
  /* a branch's own snapshots */
  t = open_table("append_table_with_rt_branch", "rt");
  if (t && read_sys(t, "snapshots", &v) == 0) {
    CHECK_EQ_INT(pm_batch_vec_rows(&v), 1);
    pm_batch_vec_free(&v);
  }
  pm_table_free(t);
}

int main(void) {
  RUN_TEST(test_totals);
  RUN_TEST(test_options_branches_tags);
  TEST_MAIN_END();
}
