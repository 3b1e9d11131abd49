/* A table of 1,500 columns (more than the 1024 the table reader once had
 * fixed arrays for) reads every column, and a projection of columns past
 * 1024, for each of the Parquet, ORC and Avro data formats: the data file is
 * written through the format interface, the manifest by the meta writer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arrow/arrow.h"
#include "arrow/builder.h"
#include "format/format.h"
#include "harness.h"
#include "io/file.h"
#include "meta/manifest.h"
#include "meta/schema.h"
#include "meta/snapshot.h"
#include "table/catalog.h"
#include "table/read.h"
#include "table/scan.h"

#define WIDE 1500
#define ROWS 20

static pm_error err;

static int generate(const char *root, const char *fmt_name, pm_error *e) {
  pm_buf js;
  pm_buf_init(&js);
  char tmp[256];
  snprintf(tmp, sizeof tmp, "{\"version\":3,\"id\":0,\"fields\":[");
  int rc = pm_buf_append(&js, tmp, strlen(tmp));
  for (int c = 0; c < WIDE && !rc; c++) {
    snprintf(tmp, sizeof tmp, "%s{\"id\":%d,\"name\":\"c%d\",\"type\":\"BIGINT\"}", c ? "," : "", c, c);
    rc = pm_buf_append(&js, tmp, strlen(tmp));
  }
  snprintf(tmp, sizeof tmp,
           "],\"highestFieldId\":%d,\"partitionKeys\":[],\"primaryKeys\":[],\"options\":{\"bucket\":\"-1\","
           "\"file.format\":\"%s\"},\"timeMillis\":0}",
           WIDE - 1, fmt_name);
  if (!rc) rc = pm_buf_append(&js, tmp, strlen(tmp));
  if (rc) return PM_NOMEM(e);
  pm_table_schema *schema = NULL;
  rc = pm_schema_parse((const char *)js.data, js.len, "generated", &schema, e);
  pm_buf_free(&js);
  if (!rc) rc = pm_schema_write(&(pm_schema_manager){pm_fs_local(), root, NULL}, schema, e);
  /* the data file: c<k> = row * WIDE + k */
  struct ArrowSchema as;
  memset(&as, 0, sizeof as);
  if (!rc) rc = pm_dfields_to_arrow(schema->fields, schema->n_fields, &as, e);
  pm_builder *b = NULL;
  if (!rc) rc = pm_builder_new_from_schema(&as, &b, e);
  for (int r = 0; r < ROWS && !rc; r++) {
    for (int c = 0; c < WIDE && !rc; c++) rc = pm_builder_append_int(pm_builder_child(b, c), (int64_t)r * WIDE + c, e);
    if (!rc) rc = pm_builder_append_valid(b, e);
  }
  struct ArrowArray batch;
  memset(&batch, 0, sizeof batch);
  if (!rc) rc = pm_builder_finish(b, &batch, e);
  pm_builder_free(b);
  char dir[1024], path[1200], name[64];
  snprintf(dir, sizeof dir, "%s/bucket-0", root);
  snprintf(name, sizeof name, "data-00000000-0000-0000-0000-000000000000-0.%s", fmt_name);
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (!rc) rc = pm_mkdirs(dir, e);
  pm_format_writer *w = NULL;
  pm_format_write_result res;
  memset(&res, 0, sizeof res);
  if (!rc) rc = pm_format_writer_open(pm_format_by_name(fmt_name), path, &as, NULL, &w, e);
  if (!rc) rc = pm_format_writer_write(w, &batch, e);
  if (!rc) rc = pm_format_writer_close(w, &res, e);
  else pm_format_writer_abort(w);
  if (batch.release) batch.release(&batch);
  pm_schema_release(&as);
  /* manifest, manifest lists, snapshot 1 */
  pm_data_type *ptype = NULL;
  if (!rc) rc = pm_dtype_new(PM_DT_ROW, 1, &ptype, e);
  snprintf(dir, sizeof dir, "%s/manifest", root);
  if (!rc) rc = pm_mkdirs(dir, e);
  pm_arena a;
  pm_arena_init(&a);
  pm_manifest_entry en;
  memset(&en, 0, sizeof en);
  en.kind = PM_FILE_ADD;
  en.partition.data = PM_EMPTY_ROW_BYTES;
  en.partition.len = 12;
  en.bucket = 0;
  en.total_buckets = -1;
  en.file.file_name = name;
  en.file.file_size = (int64_t)res.file_size;
  en.file.row_count = res.row_count;
  pm_simple_stats_empty(&en.file.key_stats);
  pm_simple_stats_empty(&en.file.value_stats);
  en.file.min_key.data = PM_EMPTY_ROW_BYTES;
  en.file.min_key.len = 12;
  en.file.max_key = en.file.min_key;
  en.file.has_delete_row_count = 1;
  en.file.file_source = PM_SOURCE_APPEND;
  en.file.value_stats_cols.is_null = 1;
  en.file.write_cols.is_null = 1;
  en.file.write_cols_sequences_is_null = 1;
  pm_format_write_result_free(&res);
  pm_manifest_file_meta meta;
  memset(&meta, 0, sizeof meta);
  snprintf(path, sizeof path, "%s/manifest-00000000-0000-0000-0000-000000000000-0", dir);
  if (!rc) rc = pm_manifest_write(pm_fs_local(), path, &en, 1, ptype, 0, NULL, &a, &meta, e);
  int64_t size = 0;
  snprintf(path, sizeof path, "%s/manifest-list-00000000-0000-0000-0000-000000000000-0", dir);
  if (!rc) rc = pm_manifest_list_write(pm_fs_local(), path, &meta, 1, NULL, &size, e);
  snprintf(path, sizeof path, "%s/manifest-list-00000000-0000-0000-0000-000000000000-1", dir);
  if (!rc) rc = pm_manifest_list_write(pm_fs_local(), path, NULL, 0, NULL, &size, e);
  pm_snapshot *s = NULL;
  if (!rc) rc = pm_snapshot_new(&s, e);
  if (!rc) {
    s->id = 1;
    s->base_manifest_list = strdup("manifest-list-00000000-0000-0000-0000-000000000000-0");
    s->delta_manifest_list = strdup("manifest-list-00000000-0000-0000-0000-000000000000-1");
    s->commit_user = strdup("test");
    s->commit_kind = strdup("APPEND");
    s->commit_identifier = 1;
    s->time_millis = 1700000000000LL;
    rc = pm_snapshot_commit(&(pm_snapshot_manager){pm_fs_local(), root, NULL}, s, e);
  }
  pm_snapshot_free(s);
  pm_arena_free(&a);
  pm_dtype_free(ptype);
  pm_schema_free(schema);
  return rc;
}

/* Reads the table with a projection (NULL: every column); checks every value. */
static void read_check(pm_table *t, const char *const *cols, size_t n_cols, const char *what) {
  pm_plan *p = NULL;
  CHECK_OK(pm_scan_plan(t, NULL, -1, &p, &err), &err);
  if (!p) return;
  pm_read_options o;
  pm_read_options_init(&o);
  o.columns = cols;
  o.n_columns = n_cols;
  struct ArrowArrayStream st;
  CHECK_OK(pm_read_splits(t, p->splits, p->n_splits, &o, &st, &err), &err);
  struct ArrowSchema s;
  CHECK_EQ_INT(st.get_schema(&st, &s), 0);
  int64_t want_cols = cols ? (int64_t)n_cols : WIDE;
  CHECK_EQ_INT(s.n_children, want_cols);
  int64_t rows = 0, bad = 0;
  for (;;) {
    struct ArrowArray a;
    CHECK_EQ_INT(st.get_next(&st, &a), 0);
    if (!a.release) break;
    for (int64_t k = 0; k < s.n_children && k < a.n_children; k++) {
      int c = atoi(s.children[k]->name + 1);
      const struct ArrowArray *x = a.children[k];
      for (int64_t i = 0; i < a.length; i++)
        if (((const int64_t *)x->buffers[1])[x->offset + i] != (rows + i) * WIDE + c) bad++;
    }
    rows += a.length;
    a.release(&a);
  }
  CHECK_MSG(rows == ROWS, "%s: %lld rows", what, (long long)rows);
  CHECK_MSG(bad == 0, "%s: %lld wrong values", what, (long long)bad);
  pm_schema_release(&s);
  st.release(&st);
  pm_plan_free(p);
}

static void test_wide_tables(void) {
  static const char *fmts[3] = {"parquet", "orc", "avro"};
  for (int f = 0; f < 3; f++) {
    char root[256];
    snprintf(root, sizeof root, "/tmp/pm_read_wide_%d/db.db/t_%s", (int)getpid(), fmts[f]);
    CHECK_OK(generate(root, fmts[f], &err), &err);
    pm_table *t = NULL;
    CHECK_OK(pm_table_open_path(root, NULL, NULL, NULL, NULL, NULL, &t, &err), &err);
    if (!t) continue;
    char what[64];
    snprintf(what, sizeof what, "%s all columns", fmts[f]);
    read_check(t, NULL, 0, what);
    static const char *const few[3] = {"c1499", "c1024", "c3"};
    snprintf(what, sizeof what, "%s c1499,c1024,c3", fmts[f]);
    read_check(t, few, 3, what);
    pm_table_free(t);
  }
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf /tmp/pm_read_wide_%d", (int)getpid());
  CHECK_EQ_INT(system(cmd), 0);
}

int main(void) {
  RUN_TEST(test_wide_tables);
  TEST_MAIN_END();
}
