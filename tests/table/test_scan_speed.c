/* Planning over a generated table with many files (manifests written by the meta
 * writer, as Java lays them out): partition pruning through manifest stats and
 * lazy entry filtering, stats pruning, and the planning time. */
#include <time.h>
#include <unistd.h>

#include "data/binary_row.h"
#include "harness.h"
#include "io/file.h"
#include "meta/manifest.h"
#include "meta/schema.h"
#include "meta/snapshot.h"
#include "table/catalog.h"
#include "table/scan.h"
#include "util/executor.h"

#ifndef SPEED_PARTITIONS
#define SPEED_PARTITIONS 50
#endif
#define FILES_PER_PARTITION 400
#define PARTITIONS_PER_MANIFEST 5

static const char *POSTPONE_SCHEMA_JSON =
    "{\"version\":3,\"id\":0,\"fields\":[{\"id\":0,\"name\":\"p\",\"type\":\"INT\"},"
    "{\"id\":1,\"name\":\"v\",\"type\":\"BIGINT NOT NULL\"}],\"highestFieldId\":1,\"partitionKeys\":[\"p\"],"
    "\"primaryKeys\":[\"p\",\"v\"],\"options\":{\"bucket\":\"-2\"},\"timeMillis\":0}";

static const char *MOD_SCHEMA_JSON =
    "{\"version\":3,\"id\":0,\"fields\":[{\"id\":0,\"name\":\"p\",\"type\":\"INT\"},"
    "{\"id\":1,\"name\":\"v\",\"type\":\"BIGINT\"}],\"highestFieldId\":1,\"partitionKeys\":[\"p\"],"
    "\"primaryKeys\":[],\"options\":{\"bucket\":\"4\",\"bucket-key\":\"v\",\"bucket-function.type\":\"mod\"},"
    "\"timeMillis\":0}";

static const char *SCHEMA_JSON =
    "{\"version\":3,\"id\":0,\"fields\":[{\"id\":0,\"name\":\"p\",\"type\":\"INT\"},"
    "{\"id\":1,\"name\":\"v\",\"type\":\"BIGINT\"}],\"highestFieldId\":1,\"partitionKeys\":[\"p\"],"
    "\"primaryKeys\":[],\"options\":{\"bucket\":\"-1\"},\"timeMillis\":0}";

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int row_bytes(int32_t n, const int64_t *vals, const int *is_int, pm_arena *a, pm_bytes *out, pm_error *err) {
  pm_binary_row_writer w;
  PM_TRY(pm_row_writer_init(&w, n, err));
  for (int32_t i = 0; i < n; i++) {
    if (is_int[i]) pm_row_writer_write_int32(&w, i, (int32_t)vals[i]);
    else pm_row_writer_write_int64(&w, i, vals[i]);
  }
  pm_buf b;
  pm_buf_init(&b);
  int rc = pm_row_writer_finish(&w, 1, &b, err);
  pm_row_writer_free(&w);
  if (!rc) {
    out->data = pm_arena_memdup(a, b.data, b.len);
    out->len = b.len;
  }
  pm_buf_free(&b);
  return rc;
}

/* Writes snapshot 1 of a table with `partitions` partitions x `files` files (PARTITIONS_PER_MANIFEST
 * partitions per manifest). postpone: 1 = half the files in bucket -2; 4 = fixed 4 buckets (file f in
 * bucket f % 4). */
static int generate_n(const char *root, const char *schema_json, size_t partitions, int files, int postpone,
                      pm_error *err) {
  pm_table_schema *schema = NULL;
  PM_TRY(pm_schema_parse(schema_json, strlen(schema_json), "generated", &schema, err));
  int rc = pm_schema_write(&(pm_schema_manager){pm_fs_local(), root, NULL}, schema, err);
  pm_data_type *ptype = NULL;
  if (!rc) rc = pm_dtype_new(PM_DT_ROW, 1, &ptype, err);
  if (!rc) {
    ptype->fields = calloc(1, sizeof *ptype->fields);
    ptype->n_fields = 1;
    rc = pm_data_field_copy(&schema->fields[0], &ptype->fields[0], err);
  }
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/manifest", root);
  if (!rc) rc = pm_mkdirs(dir, err);
  size_t n_manifests = partitions / PARTITIONS_PER_MANIFEST;
  pm_manifest_file_meta *metas = calloc(n_manifests, sizeof *metas);
  pm_arena meta_arena;
  pm_arena_init(&meta_arena);
  size_t per = (size_t)PARTITIONS_PER_MANIFEST * (size_t)files;
  pm_manifest_entry *entries = calloc(per, sizeof *entries);
  static const int is_int_p[1] = {1}, is_int_pv[2] = {1, 0};
  static int64_t null_counts[2] = {0, 0};
  for (size_t m = 0; !rc && m < n_manifests; m++) {
    pm_arena a;
    pm_arena_init(&a);
    size_t k = 0;
    for (int pi = 0; !rc && pi < PARTITIONS_PER_MANIFEST; pi++) {
      int64_t p = (int64_t)(m * PARTITIONS_PER_MANIFEST + (size_t)pi);
      pm_bytes part;
      rc = row_bytes(1, &p, is_int_p, &a, &part, err);
      for (int f = 0; !rc && f < files; f++, k++) {
        pm_manifest_entry *e = &entries[k];
        memset(e, 0, sizeof *e);
        e->kind = PM_FILE_ADD;
        e->partition = part;
        e->bucket = postpone == 4 ? f % 4 : postpone && (f % 2) ? -2 : 0;
        e->total_buckets = postpone == 4 ? 4 : postpone ? -2 : -1;
        char name[96];
        snprintf(name, sizeof name, "data-00000000-0000-0000-0000-%012zu-%d.parquet", m, (int)k);
        e->file.file_name = pm_arena_strdup(&a, name);
        e->file.file_size = 1000 + f;
        e->file.row_count = 100;
        pm_simple_stats_empty(&e->file.key_stats);
        e->file.min_key.data = PM_EMPTY_ROW_BYTES;
        e->file.min_key.len = 12;
        e->file.max_key = e->file.min_key;
        int64_t mn[2] = {p, (int64_t)f * 100}, mx[2] = {p, (int64_t)f * 100 + 99};
        rc = row_bytes(2, mn, is_int_pv, &a, &e->file.value_stats.min_values, err);
        if (!rc) rc = row_bytes(2, mx, is_int_pv, &a, &e->file.value_stats.max_values, err);
        e->file.value_stats.null_counts = null_counts;
        e->file.value_stats.n_null_counts = 2;
        e->file.min_sequence_number = f;
        e->file.max_sequence_number = f;
        e->file.extra_files.n = 0;
        e->file.has_delete_row_count = 1;
        e->file.file_source = PM_SOURCE_APPEND;
        e->file.value_stats_cols.is_null = 1;
        e->file.write_cols.is_null = 1;
        e->file.write_cols_sequences_is_null = 1;
      }
    }
    char path[1200];
    snprintf(path, sizeof path, "%s/manifest-00000000-0000-0000-0000-000000000000-%zu", dir, m);
    if (!rc) rc = pm_manifest_write(pm_fs_local(), path, entries, k, ptype, 0, NULL, &meta_arena, &metas[m], err);
    pm_arena_free(&a);
  }
  int64_t size = 0;
  char path[1200];
  snprintf(path, sizeof path, "%s/manifest-list-00000000-0000-0000-0000-000000000000-0", dir);
  if (!rc) rc = pm_manifest_list_write(pm_fs_local(), path, metas, n_manifests, NULL, &size, err);
  snprintf(path, sizeof path, "%s/manifest-list-00000000-0000-0000-0000-000000000000-1", dir);
  if (!rc) rc = pm_manifest_list_write(pm_fs_local(), path, NULL, 0, NULL, &size, err);
  pm_snapshot *s = NULL;
  if (!rc) rc = pm_snapshot_new(&s, err);
  if (!rc) {
    s->id = 1;
    s->base_manifest_list = strdup("manifest-list-00000000-0000-0000-0000-000000000000-0");
    s->delta_manifest_list = strdup("manifest-list-00000000-0000-0000-0000-000000000000-1");
    s->commit_user = strdup("test");
    s->commit_kind = strdup("APPEND");
    s->commit_identifier = 1;
    s->time_millis = 1700000000000LL;
    rc = pm_snapshot_commit(&(pm_snapshot_manager){pm_fs_local(), root, NULL}, s, err);
  }
  pm_snapshot_free(s);
  free(entries);
  free(metas);
  pm_arena_free(&meta_arena);
  pm_dtype_free(ptype);
  pm_schema_free(schema);
  return rc;
}

static int generate(const char *root, const char *schema_json, size_t partitions, int postpone, pm_error *err) {
  return generate_n(root, schema_json, partitions, FILES_PER_PARTITION, postpone, err);
}

static pm_predicate *parse(pm_table *t, const char *text) {
  pm_pred_column cols[2];
  for (size_t i = 0; i < 2; i++) {
    cols[i].name = t->schema->fields[i].name;
    cols[i].index = (int32_t)i;
    cols[i].field_id = t->schema->fields[i].id;
    cols[i].type = t->schema->fields[i].type;
  }
  pm_error err = {0};
  pm_predicate *p = NULL;
  CHECK_OK(pm_pred_parse(text, cols, 2, 1, &p, &err), &err);
  return p;
}

static void test_speed(void) {
  pm_error err = {0};
  char root[256];
  snprintf(root, sizeof root, "/tmp/pm_scan_speed_%d/db.db/t", (int)getpid());
  double t0 = now_ms();
  CHECK_OK(generate(root, SCHEMA_JSON, SPEED_PARTITIONS, 0, &err), &err);
  double t1 = now_ms();
  pm_table *t = NULL;
  CHECK_OK(pm_table_open_path(root, NULL, NULL, NULL, NULL, NULL, &t, &err), &err);
  if (!t) return;
  const size_t total = (size_t)SPEED_PARTITIONS * FILES_PER_PARTITION;
  pm_plan *p = NULL;
  double a0 = now_ms();
  CHECK_OK(pm_scan_plan(t, NULL, -1, &p, &err), &err);
  double a1 = now_ms();
  if (p) {
    CHECK_EQ_INT(p->explain.files_planned, total);
    /* 4 MB open-file cost per small file: 32 files per 128 MB split */
    CHECK_EQ_INT(p->n_splits, SPEED_PARTITIONS * ((FILES_PER_PARTITION + 31) / 32));
  }
  pm_plan_free(p);
  /* one partition: 9 of 10 manifests pruned by stats, the rest filtered while decoding */
  pm_predicate *f = parse(t, "p = 7");
  p = NULL;
  double b0 = now_ms();
  CHECK_OK(pm_scan_plan(t, f, -1, &p, &err), &err);
  double b1 = now_ms();
  if (p) {
    CHECK_EQ_INT(p->explain.files_planned, FILES_PER_PARTITION);
    CHECK_EQ_INT(p->explain.manifests_read, 1);
    CHECK_EQ_INT(p->explain.manifests_pruned_partition, SPEED_PARTITIONS / PARTITIONS_PER_MANIFEST - 1);
    CHECK_EQ_INT(p->explain.entries_pruned_partition, (PARTITIONS_PER_MANIFEST - 1) * FILES_PER_PARTITION);
  }
  pm_plan_free(p);
  pm_pred_free(f);
  /* value stats: v in [f*100, f*100+99] per file, so v = 250 matches file 2 of each partition */
  f = parse(t, "v = 250");
  p = NULL;
  double c0 = now_ms();
  CHECK_OK(pm_scan_plan(t, f, -1, &p, &err), &err);
  double c1 = now_ms();
  if (p) CHECK_EQ_INT(p->explain.files_planned, SPEED_PARTITIONS);
  pm_plan_free(p);
  pm_pred_free(f);
  fprintf(stderr,
          "generate %zu files: %.1f ms; plan all: %.1f ms; plan one partition: %.1f ms; plan with stats filter: "
          "%.1f ms\n",
          total, t1 - t0, a1 - a0, b1 - b0, c1 - c0);
  pm_table_free(t);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf /tmp/pm_scan_speed_%d", (int)getpid());
  CHECK_EQ_INT(system(cmd), 0);
}

/* Small manifests are read on the planning thread: starting threads would cost more than
 * decoding them (scan.c run_jobs); the plan is the same as with one reading thread. */
static void test_small_manifests_no_threads(void) {
  pm_error err = {0};
  char root[256];
  snprintf(root, sizeof root, "/tmp/pm_scan_small_%d/db.db/t", (int)getpid());
  CHECK_OK(generate_n(root, SCHEMA_JSON, 4 * PARTITIONS_PER_MANIFEST, 3, 0, &err), &err); /* 4 manifests x 15 entries */
  size_t n_splits[2] = {0, 0};
  for (int k = 0; k < 2; k++) {
    pm_options dyn;
    pm_options_init(&dyn);
    CHECK_OK(pm_options_set(&dyn, "scan.manifest.parallelism", k ? "1" : "8", &err), &err);
    pm_table *t = NULL;
    CHECK_OK(pm_table_open_path(root, NULL, NULL, NULL, &dyn, NULL, &t, &err), &err);
    pm_options_clear(&dyn);
    if (!t) return;
    pm_plan *p = NULL;
    uint64_t before = pm_executor_threads_created();
    CHECK_OK(pm_scan_plan(t, NULL, -1, &p, &err), &err);
    CHECK_EQ_INT(pm_executor_threads_created(), before);
    if (p) {
      CHECK_EQ_INT(p->explain.manifests_read, 4);
      CHECK_EQ_INT(p->explain.files_planned, 4 * PARTITIONS_PER_MANIFEST * 3);
      n_splits[k] = p->n_splits;
    }
    pm_plan_free(p);
    pm_table_free(t);
  }
  CHECK_EQ_INT(n_splits[0], n_splits[1]);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf /tmp/pm_scan_small_%d", (int)getpid());
  CHECK_EQ_INT(system(cmd), 0);
}

/* Postpone-bucket tables (bucket = -2): files in bucket-postpone are invisible to batch
 * reads unless postpone.merge-on-read (SEMANTICS 1.1). */
static void test_postpone(void) {
  pm_error err = {0};
  char root[256];
  snprintf(root, sizeof root, "/tmp/pm_scan_postpone_%d/db.db/t", (int)getpid());
  CHECK_OK(generate(root, POSTPONE_SCHEMA_JSON, PARTITIONS_PER_MANIFEST, 1, &err), &err);
  pm_table *t = NULL;
  CHECK_OK(pm_table_open_path(root, NULL, NULL, NULL, NULL, NULL, &t, &err), &err);
  pm_plan *p = NULL;
  if (t) CHECK_OK(pm_scan_plan(t, NULL, -1, &p, &err), &err);
  if (p) {
    CHECK_EQ_INT(p->explain.files_planned, PARTITIONS_PER_MANIFEST * FILES_PER_PARTITION / 2);
    for (size_t i = 0; i < p->n_splits; i++) CHECK_EQ_INT(p->splits[i]->bucket, 0);
  }
  pm_plan_free(p);
  pm_table_free(t);
  pm_options d;
  pm_options_init(&d);
  pm_options_set(&d, "postpone.merge-on-read", "true", &err);
  t = NULL;
  CHECK_OK(pm_table_open_path(root, NULL, NULL, NULL, &d, NULL, &t, &err), &err);
  pm_options_clear(&d);
  p = NULL;
  if (t) CHECK_OK(pm_scan_plan(t, NULL, -1, &p, &err), &err);
  if (p) {
    CHECK_EQ_INT(p->explain.files_planned, PARTITIONS_PER_MANIFEST * FILES_PER_PARTITION);
    int postpone_dirs = 0;
    for (size_t i = 0; i < p->n_splits; i++) postpone_dirs += strstr(p->splits[i]->bucket_path, "/bucket-postpone") != NULL;
    CHECK(postpone_dirs > 0);
  }
  pm_plan_free(p);
  pm_table_free(t);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf /tmp/pm_scan_postpone_%d", (int)getpid());
  CHECK_EQ_INT(system(cmd), 0);
}

/* bucket-function.type = mod: a filter fixing the bucket key keeps only floorMod(v, 4). */
static void test_mod_bucket_pruning(void) {
  pm_error err = {0};
  char root[256];
  snprintf(root, sizeof root, "/tmp/pm_scan_mod_%d/db.db/t", (int)getpid());
  CHECK_OK(generate(root, MOD_SCHEMA_JSON, PARTITIONS_PER_MANIFEST, 4, &err), &err);
  pm_table *t = NULL;
  CHECK_OK(pm_table_open_path(root, NULL, NULL, NULL, NULL, NULL, &t, &err), &err);
  static const struct {
    const char *where;
    int bucket;
  } cases[] = {{"v = 6", 2}, {"v = -1", 3}, {"v in (4, 8)", 0}};
  for (size_t i = 0; t && i < sizeof cases / sizeof cases[0]; i++) {
    pm_predicate *f = parse(t, cases[i].where);
    pm_plan *p = NULL;
    CHECK_OK(pm_scan_plan(t, f, -1, &p, &err), &err);
    if (p) {
      CHECK(p->explain.entries_pruned_bucket > 0);
      for (size_t k = 0; k < p->n_splits; k++) CHECK_EQ_INT(p->splits[k]->bucket, cases[i].bucket);
    }
    pm_plan_free(p);
    pm_pred_free(f);
  }
  pm_table_free(t);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf /tmp/pm_scan_mod_%d", (int)getpid());
  CHECK_EQ_INT(system(cmd), 0);
}

int main(void) {
  RUN_TEST(test_speed);
  RUN_TEST(test_mod_bucket_pruning);
  RUN_TEST(test_postpone);
  RUN_TEST(test_small_manifests_no_threads);
  TEST_MAIN_END();
}
