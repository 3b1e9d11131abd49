/* Rolling manifest writer and manifest merging (meta/manifest_merge.h): files roll at the
 * target size, every meta equals its file (size on disk, counts, partition stats, schema id,
 * bucket/level/row-id ranges recomputed here from the entries read back), the writer schema is
 * Java 2.0.0's, and a failing write / fsync / publish leaves only complete files, all reported. */
#define _XOPEN_SOURCE 700
#include <jansson.h>
#include <sys/stat.h>

#include "harness.h"
#include "data/binary_row.h"
#include "format/avro/avro.h"
#include "io/fs_fault.h"
#include "meta/manifest_merge.h"
#include "meta/schema.h"

/* ---------------- generated entries ---------------- */

typedef struct gen {
  pm_arena arena;
  pm_manifest_entry *e;
  size_t n;
  pm_data_type *ptype; /* ROW<p INT> */
} gen;

/* partition value of entry i: i % 5, null when i % 11 == 0 */
static int part_is_null(size_t i) { return i % 11 == 0; }
static int32_t part_value(size_t i) { return (int32_t)(i % 5) * 10 - 7; }

static pm_bytes part_row(pm_arena *a, size_t i) {
  pm_binary_row_writer w;
  pm_error err = {0};
  pm_buf b;
  pm_buf_init(&b);
  pm_bytes r = {NULL, 0};
  if (pm_row_writer_init(&w, 1, &err)) return r;
  if (part_is_null(i)) pm_row_writer_set_null_fixed(&w, 0);
  else pm_row_writer_write_int32(&w, 0, part_value(i));
  if (!pm_row_writer_finish(&w, 1, &b, &err)) {
    r.data = pm_arena_memdup(a, b.data, b.len);
    r.len = b.len;
  }
  pm_row_writer_free(&w);
  pm_buf_free(&b);
  return r;
}

static void gen_init(gen *g, size_t n) {
  pm_arena_init(&g->arena);
  g->n = n;
  g->e = calloc(n, sizeof *g->e);
  pm_error err = {0};
  json_t *j = json_loads("{\"type\":\"ROW\",\"fields\":[{\"id\":0,\"name\":\"p\",\"type\":\"INT\"}]}", 0, NULL);
  g->ptype = NULL;
  CHECK_OK(pm_dtype_from_json(j, "ptype", &g->ptype, &err), &err);
  json_decref(j);
  for (size_t i = 0; i < n; i++) {
    pm_manifest_entry *e = &g->e[i];
    char name[96];
    snprintf(name, sizeof name, "data-6a3c1c4e-8f5e-4b55-9a3e-5b1f0f0c%04zx-%zu.parquet", i % 65536, i);
    e->kind = i % 13 == 12 ? PM_FILE_DELETE : PM_FILE_ADD;
    e->partition = part_row(&g->arena, i);
    e->bucket = (int32_t)(i % 3);
    e->total_buckets = 3;
    pm_data_file_meta *f = &e->file;
    f->file_name = pm_arena_strdup(&g->arena, name);
    f->file_size = 4000 + (int64_t)i;
    f->row_count = 100 + (int64_t)(i % 7);
    f->min_key.data = PM_EMPTY_ROW_BYTES;
    f->min_key.len = 12;
    f->max_key = f->min_key;
    pm_simple_stats_empty(&f->key_stats);
    pm_simple_stats_empty(&f->value_stats);
    f->min_sequence_number = f->max_sequence_number = (int64_t)i;
    f->schema_id = (int64_t)(i % 4 == 3);
    f->level = 0;
    f->has_creation_time = 1;
    f->creation_time_millis = 1764600000000LL + (int64_t)i;
    f->has_delete_row_count = 1;
    f->file_source = PM_SOURCE_APPEND;
    f->value_stats_cols.is_null = 1;
    f->write_cols.is_null = 1;
    f->write_cols_sequences_is_null = 1;
    f->has_first_row_id = 1;
    f->first_row_id = (int64_t)i * 1000;
  }
}

static void gen_free(gen *g) {
  free(g->e);
  pm_arena_free(&g->arena);
  pm_dtype_free(g->ptype);
}

/* ---------------- helpers ---------------- */

static char *make_table_dir(void) {
  char *dir = strdup("/tmp/pm_mmerge_XXXXXX");
  if (!mkdtemp(dir)) return dir;
  char sub[256];
  snprintf(sub, sizeof sub, "%s/manifest", dir);
  mkdir(sub, 0755);
  return dir;
}

static void rm_rf(const char *dir) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
}

static void manifest_path(const char *dir, const char *name, char *buf, size_t cap) {
  snprintf(buf, cap, "%s/manifest/%s", dir, name);
}

/* The meta of a file, recomputed here from the entries read back (independently of the writer). */
static void check_meta_against_file(const char *dir, const pm_manifest_file_meta *m, const gen *g, size_t *next) {
  char path[512];
  manifest_path(dir, m->file_name, path, sizeof path);
  struct stat st;
  CHECK(stat(path, &st) == 0);
  CHECK_EQ_INT(m->file_size, st.st_size);
  pm_error err = {0};
  pm_manifest_entries v;
  pm_manifest_entries_init(&v);
  CHECK_OK(pm_manifest_read(pm_fs_local(), path, NULL, NULL, &v, &err), &err);
  int64_t added = 0, deleted = 0, schema = INT64_MIN, nulls = 0;
  int32_t bmin = INT32_MAX, bmax = INT32_MIN, pmin = INT32_MAX, pmax = INT32_MIN;
  int64_t rmin = INT64_MAX, rmax = INT64_MIN;
  for (size_t i = 0; i < v.n; i++) {
    const pm_manifest_entry *e = &v.items[i];
    size_t k = *next + i;
    CHECK(k < g->n && !strcmp(e->file.file_name, g->e[k].file.file_name)); /* order kept */
    if (e->kind == PM_FILE_ADD) added++;
    else deleted++;
    if (e->file.schema_id > schema) schema = e->file.schema_id;
    if (e->bucket < bmin) bmin = e->bucket;
    if (e->bucket > bmax) bmax = e->bucket;
    if (e->file.first_row_id < rmin) rmin = e->file.first_row_id;
    if (e->file.first_row_id + e->file.row_count - 1 > rmax) rmax = e->file.first_row_id + e->file.row_count - 1;
    if (k < g->n) {
      if (part_is_null(k)) nulls++;
      else {
        if (part_value(k) < pmin) pmin = part_value(k);
        if (part_value(k) > pmax) pmax = part_value(k);
      }
    }
  }
  *next += v.n;
  CHECK_EQ_INT(m->num_added_files, added);
  CHECK_EQ_INT(m->num_deleted_files, deleted);
  CHECK_EQ_INT(m->schema_id, schema);
  CHECK(m->has_bucket_range && m->min_bucket == bmin && m->max_bucket == bmax);
  CHECK(m->has_level_range && m->min_level == 0 && m->max_level == 0);
  CHECK(m->has_row_id_range && m->min_row_id == rmin && m->max_row_id == rmax);
  /* partition stats: arity 1, min / max INT, null count */
  pm_binary_row rmn, rmx;
  CHECK_OK(pm_binary_row_open_serialized(m->partition_stats.min_values.data, m->partition_stats.min_values.len, "min",
                                         &rmn, &err), &err);
  CHECK_OK(pm_binary_row_open_serialized(m->partition_stats.max_values.data, m->partition_stats.max_values.len, "max",
                                         &rmx, &err), &err);
  pm_value a, b;
  CHECK_OK(pm_binary_row_get(&rmn, 0, g->ptype->fields[0].type, &a, &err), &err);
  CHECK_OK(pm_binary_row_get(&rmx, 0, g->ptype->fields[0].type, &b, &err), &err);
  if (pmin <= pmax) CHECK(a.kind != PM_V_NULL && a.u.i64 == pmin && b.u.i64 == pmax);
  CHECK(m->partition_stats.n_null_counts == 1 && m->partition_stats.null_counts[0] == nulls);
  pm_manifest_entries_clear(&v);
}

static char *header_schema(const char *path) {
  pm_error err = {0};
  pm_avro_reader *r = NULL;
  if (pm_avro_reader_open_path(path, &r, &err)) return NULL;
  size_t len = 0;
  const char *js = pm_avro_reader_schema_json(r, &len);
  char *copy = strndup(js, len);
  pm_avro_reader_close(r);
  return copy;
}

static pm_manifest_merge_options small_opts(const gen *g, int64_t target) {
  pm_manifest_merge_options o;
  memset(&o, 0, sizeof o);
  o.target_file_size = target;
  o.merge_min_count = 30;
  o.full_compaction_size = 16 << 20;
  o.partition_type = g->ptype;
  o.default_schema_id = 0;
  o.write.codec = PM_CODEC_NONE;
  return o;
}

/* ---------------- tests ---------------- */

static void test_rolling(void) {
  gen g;
  gen_init(&g, 3000);
  char *dir = make_table_dir();
  pm_path_factory pf;
  pm_path_factory_init(&pf, pm_fs_local(), dir);
  pm_manifest_merge_options o = small_opts(&g, 64 * 1024);
  pm_manifest_file_metas out;
  pm_manifest_file_metas_init(&out);
  pm_error err = {0};
  CHECK_OK(pm_manifest_write_rolling(pm_fs_local(), &pf, g.e, g.n, &o, &out, &err), &err);
  CHECK_MSG(out.n >= 4, "%zu files", out.n);
  size_t next = 0;
  for (size_t i = 0; i < out.n; i++) {
    check_meta_against_file(dir, &out.items[i], &g, &next);
    if (i + 1 < out.n) CHECK(out.items[i].file_size >= o.target_file_size); /* rolled only once reached */
  }
  CHECK_EQ_INT(next, g.n);
  /* names from the path factory, the writer schema of Java 2.0.0 (no _WRITE_COLS_SEQUENCES) */
  CHECK(!strncmp(out.items[0].file_name, "manifest-", 9) && strstr(out.items[0].file_name, pf.uuid));
  char path[512];
  manifest_path(dir, out.items[0].file_name, path, sizeof path);
  char *schema = header_schema(path);
  CHECK(schema && strstr(schema, "\"_WRITE_COLS\"") && !strstr(schema, "_WRITE_COLS_SEQUENCES"));
  free(schema);
  /* one file when the target is large; nothing for no entries */
  pm_manifest_file_metas one;
  pm_manifest_file_metas_init(&one);
  o.target_file_size = 8 << 20;
  CHECK_OK(pm_manifest_write_rolling(pm_fs_local(), &pf, g.e, g.n, &o, &one, &err), &err);
  CHECK_EQ_INT(one.n, 1);
  next = 0;
  if (one.n == 1) check_meta_against_file(dir, &one.items[0], &g, &next);
  CHECK_OK(pm_manifest_write_rolling(pm_fs_local(), &pf, g.e, 0, &o, &one, &err), &err);
  CHECK_EQ_INT(one.n, 1);
  /* master's schema only when an entry has write_cols_sequences (kept, not dropped) */
  int64_t seqs[2] = {7, 9};
  g.e[3].file.write_cols_sequences_is_null = 0;
  g.e[3].file.write_cols_sequences = seqs;
  g.e[3].file.n_write_cols_sequences = 2;
  CHECK_OK(pm_manifest_write_rolling(pm_fs_local(), &pf, g.e, 10, &o, &one, &err), &err);
  CHECK_EQ_INT(one.n, 2);
  if (one.n == 2) {
    manifest_path(dir, one.items[1].file_name, path, sizeof path);
    schema = header_schema(path);
    CHECK(schema && strstr(schema, "_WRITE_COLS_SEQUENCES"));
    free(schema);
    pm_manifest_entries v;
    pm_manifest_entries_init(&v);
    CHECK_OK(pm_manifest_read(pm_fs_local(), path, NULL, NULL, &v, &err), &err);
    CHECK(v.n == 10 && v.items[3].file.n_write_cols_sequences == 2 && v.items[3].file.write_cols_sequences[1] == 9 &&
          v.items[2].file.write_cols_sequences_is_null);
    pm_manifest_entries_clear(&v);
  }
  pm_manifest_file_metas_clear(&one);
  /* identity merge (the policy lands separately) keeps the list */
  pm_manifest_file_metas merged;
  pm_manifest_file_metas_init(&merged);
  char **nf = NULL;
  size_t nn = 0;
  CHECK_OK(pm_manifest_merge(pm_fs_local(), &pf, out.items, out.n, &o, &merged, &nf, &nn, &err), &err);
  CHECK(merged.n == out.n);
  pm_free_names(nf, nn);
  pm_manifest_file_metas_clear(&merged);
  pm_manifest_file_metas_clear(&out);
  rm_rf(dir);
  free(dir);
  gen_free(&g);
}

/* Names in dir/manifest (sorted). */
static size_t list_manifests(const char *dir, char ***names) {
  char sub[256];
  snprintf(sub, sizeof sub, "%s/manifest", dir);
  size_t n = 0;
  pm_error err = {0};
  *names = NULL;
  CHECK_OK(pm_fs_list(pm_fs_local(), sub, NULL, names, &n, &err), &err);
  return n;
}

static void test_rolling_faults(void) {
  gen g;
  gen_init(&g, 1500);
  pm_error err = {0};
  pm_fs *ffs = NULL;
  CHECK_OK(pm_fault_fs_new(pm_fs_local(), &ffs, &err), &err);
  if (!ffs) return;
  const pm_fault_op ops[] = {PM_FAULT_OP_CREATE, PM_FAULT_OP_WRITE, PM_FAULT_OP_FSYNC, PM_FAULT_OP_CREATE_IF_ABSENT};
  pm_manifest_merge_options o = small_opts(&g, 32 * 1024);
  /* count the operations of a clean run */
  uint64_t counts[4] = {0};
  {
    char *dir = make_table_dir();
    pm_path_factory pf;
    pm_path_factory_init(&pf, ffs, dir);
    pm_manifest_file_metas out;
    pm_manifest_file_metas_init(&out);
    pm_fault_fs_disarm(ffs);
    CHECK_OK(pm_manifest_write_rolling(ffs, &pf, g.e, g.n, &o, &out, &err), &err);
    for (int k = 0; k < 4; k++) counts[k] = pm_fault_fs_count(ffs, ops[k]);
    CHECK(out.n >= 3 && counts[3] == out.n);
    pm_manifest_file_metas_clear(&out);
    rm_rf(dir);
    free(dir);
  }
  int runs = 0;
  for (int k = 0; k < 4; k++) {
    for (uint64_t nth = 1; nth <= counts[k]; nth++) {
      char *dir = make_table_dir();
      pm_path_factory pf;
      pm_path_factory_init(&pf, ffs, dir);
      pm_manifest_file_metas out;
      pm_manifest_file_metas_init(&out);
      pm_fault_rule rule = {ops[k], nth, 1, PM_FAULT_ERROR, 0};
      pm_fault_fs_arm(ffs, &rule);
      int rc = pm_manifest_write_rolling(ffs, &pf, g.e, g.n, &o, &out, &err);
      CHECK_MSG(rc == PAIMON_ERR_IO, "%s #%llu: rc %d", pm_fault_op_name(ops[k]), (unsigned long long)nth, rc);
      CHECK_MSG(strstr(err.message, "injected") && strstr(err.message, "manifest-"), "message: %s", err.message);
      pm_fault_fs_disarm(ffs);
      /* visible files = exactly the reported ones, each complete (readable, same meta) */
      char **names = NULL;
      size_t nn = list_manifests(dir, &names);
      CHECK_MSG(nn == out.n, "%s #%llu: %zu files visible, %zu reported", pm_fault_op_name(ops[k]),
                (unsigned long long)nth, nn, out.n);
      size_t next = 0;
      for (size_t i = 0; i < out.n; i++) {
        int found = 0;
        for (size_t j = 0; j < nn; j++) found |= !strcmp(names[j], out.items[i].file_name);
        CHECK(found);
        check_meta_against_file(dir, &out.items[i], &g, &next);
      }
      pm_free_names(names, nn);
      /* the caller's cleanup removes them */
      CHECK_OK(pm_manifest_delete_files(pm_fs_local(), &pf, out.items, out.n, &err), &err);
      nn = list_manifests(dir, &names);
      CHECK_EQ_INT(nn, 0);
      pm_free_names(names, nn);
      pm_manifest_file_metas_clear(&out);
      rm_rf(dir);
      free(dir);
      runs++;
    }
  }
  CHECK(runs >= 8);
  pm_fs_unref(ffs);
  gen_free(&g);
}

static void test_options(void) {
  pm_core_options co;
  pm_error err = {0};
  pm_options opts = {0};
  CHECK_OK(pm_core_options_parse(&opts, 3, 0, &co, &err), &err);
  pm_manifest_merge_options o;
  CHECK_OK(pm_manifest_merge_options_init(&o, &co, NULL, 5, &err), &err);
  CHECK_EQ_INT(o.target_file_size, 8 << 20);
  CHECK_EQ_INT(o.full_compaction_size, 16 << 20);
  CHECK_EQ_INT(o.merge_min_count, 30);
  CHECK_EQ_INT(o.write.codec, PM_CODEC_ZSTD);
  CHECK_EQ_INT(o.default_schema_id, 5);
  pm_core_options_clear(&co);
}

int main(void) {
  RUN_TEST(test_options);
  RUN_TEST(test_rolling);
  RUN_TEST(test_rolling_faults);
  TEST_MAIN_END();
}
