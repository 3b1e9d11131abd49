#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <sys/stat.h>
/* Manifest, manifest-list and index-manifest decoding of every Avro fixture file, compared
 * with the independent avro-dump oracle output recorded in tests/avro/oracle_dumps.jsonl.gz;
 * encoders round-trip through our decoder; truncated/corrupt files give clear errors. */
#include <jansson.h>
#include <zlib.h>

#include "harness.h"
#include "io/file.h"
#include "format/avro/avro.h"
#include "meta/manifest.h"
#include "meta/schema.h"

/* ---------------- oracle ---------------- */

typedef struct oracle_file {
  char *path; /* relative to shared/ */
  json_t *records; /* array of records (header line dropped) */
} oracle_file;

static oracle_file *oracle;
static size_t n_oracle;

static void load_oracle(void) {
  gzFile gz = gzopen(PAIMON_SOURCE_DIR "/tests/avro/oracle_dumps.jsonl.gz", "rb");
  CHECK(gz != NULL);
  if (!gz) return;
  size_t cap = 0;
  char *line = malloc(1 << 24);
  int header_next = 0;
  while (gzgets(gz, line, 1 << 24)) {
    size_t l = strlen(line);
    while (l && (line[l - 1] == '\n' || line[l - 1] == '\r')) line[--l] = 0;
    if (strncmp(line, "#FILE ", 6) == 0) {
      if (n_oracle == cap) {
        cap = cap ? cap * 2 : 256;
        oracle = realloc(oracle, cap * sizeof(*oracle));
      }
      oracle[n_oracle].path = strdup(line + 6);
      oracle[n_oracle].records = json_array();
      n_oracle++;
      header_next = 1;
      continue;
    }
    if (header_next) {
      header_next = 0;
      continue;
    }
    json_t *j = json_loads(line, JSON_DECODE_INT_AS_REAL * 0, NULL);
    if (j && n_oracle) json_array_append_new(oracle[n_oracle - 1].records, j);
  }
  free(line);
  gzclose(gz);
}

static void free_oracle(void) {
  for (size_t i = 0; i < n_oracle; i++) {
    free(oracle[i].path);
    json_decref(oracle[i].records);
  }
  free(oracle);
}

/* ---------------- our objects as avro-dump JSON ---------------- */

static json_t *hex(pm_bytes b) {
  char *s = malloc(2 * b.len + 3);
  strcpy(s, "0x");
  for (size_t i = 0; i < b.len; i++) sprintf(s + 2 + 2 * i, "%02x", b.data[i]);
  json_t *j = json_string(s);
  free(s);
  return j;
}

static json_t *opt_i(int has, int64_t v) { return has ? json_integer(v) : json_null(); }
static json_t *opt_s(const char *s) { return s ? json_string(s) : json_null(); }

static json_t *str_list(const pm_str_list *l) {
  if (l->is_null) return json_null();
  json_t *a = json_array();
  for (int32_t i = 0; i < l->n; i++) json_array_append_new(a, l->items[i] ? json_string(l->items[i]) : json_null());
  return a;
}

static json_t *stats_json(const pm_simple_stats *s) {
  json_t *o = json_object();
  json_object_set_new(o, "_MIN_VALUES", hex(s->min_values));
  json_object_set_new(o, "_MAX_VALUES", hex(s->max_values));
  if (s->null_counts_is_null) {
    json_object_set_new(o, "_NULL_COUNTS", json_null());
  } else {
    json_t *a = json_array();
    for (int32_t i = 0; i < s->n_null_counts; i++)
      json_array_append_new(a, s->null_counts[i] == PM_NULL_COUNT_UNKNOWN ? json_null() : json_integer(s->null_counts[i]));
    json_object_set_new(o, "_NULL_COUNTS", a);
  }
  return o;
}

static json_t *entry_json(const pm_manifest_entry *e) {
  const pm_data_file_meta *f = &e->file;
  json_t *fo = json_object();
  json_object_set_new(fo, "_FILE_NAME", json_string(f->file_name));
  json_object_set_new(fo, "_FILE_SIZE", json_integer(f->file_size));
  json_object_set_new(fo, "_ROW_COUNT", json_integer(f->row_count));
  json_object_set_new(fo, "_MIN_KEY", hex(f->min_key));
  json_object_set_new(fo, "_MAX_KEY", hex(f->max_key));
  json_object_set_new(fo, "_KEY_STATS", stats_json(&f->key_stats));
  json_object_set_new(fo, "_VALUE_STATS", stats_json(&f->value_stats));
  json_object_set_new(fo, "_MIN_SEQUENCE_NUMBER", json_integer(f->min_sequence_number));
  json_object_set_new(fo, "_MAX_SEQUENCE_NUMBER", json_integer(f->max_sequence_number));
  json_object_set_new(fo, "_SCHEMA_ID", json_integer(f->schema_id));
  json_object_set_new(fo, "_LEVEL", json_integer(f->level));
  json_object_set_new(fo, "_EXTRA_FILES", str_list(&f->extra_files));
  json_object_set_new(fo, "_CREATION_TIME", opt_i(f->has_creation_time, f->creation_time_millis));
  json_object_set_new(fo, "_DELETE_ROW_COUNT", opt_i(f->has_delete_row_count, f->delete_row_count));
  json_object_set_new(fo, "_EMBEDDED_FILE_INDEX", f->has_embedded_index ? hex(f->embedded_index) : json_null());
  json_object_set_new(fo, "_FILE_SOURCE", opt_i(f->file_source >= 0, f->file_source));
  json_object_set_new(fo, "_VALUE_STATS_COLS", str_list(&f->value_stats_cols));
  json_object_set_new(fo, "_EXTERNAL_PATH", opt_s(f->external_path));
  json_object_set_new(fo, "_FIRST_ROW_ID", opt_i(f->has_first_row_id, f->first_row_id));
  json_object_set_new(fo, "_WRITE_COLS", str_list(&f->write_cols));
  if (f->write_cols_sequences_is_null) {
    json_object_set_new(fo, "_WRITE_COLS_SEQUENCES", json_null());
  } else {
    json_t *a = json_array();
    for (int32_t i = 0; i < f->n_write_cols_sequences; i++) json_array_append_new(a, json_integer(f->write_cols_sequences[i]));
    json_object_set_new(fo, "_WRITE_COLS_SEQUENCES", a);
  }
  json_t *o = json_object();
  json_object_set_new(o, "_VERSION", json_integer(2));
  json_object_set_new(o, "_KIND", json_integer(e->kind));
  json_object_set_new(o, "_PARTITION", hex(e->partition));
  json_object_set_new(o, "_BUCKET", json_integer(e->bucket));
  json_object_set_new(o, "_TOTAL_BUCKETS", json_integer(e->total_buckets));
  json_object_set_new(o, "_FILE", fo);
  return o;
}

static json_t *list_json(const pm_manifest_file_meta *m) {
  json_t *o = json_object();
  json_object_set_new(o, "_VERSION", json_integer(2));
  json_object_set_new(o, "_FILE_NAME", json_string(m->file_name));
  json_object_set_new(o, "_FILE_SIZE", json_integer(m->file_size));
  json_object_set_new(o, "_NUM_ADDED_FILES", json_integer(m->num_added_files));
  json_object_set_new(o, "_NUM_DELETED_FILES", json_integer(m->num_deleted_files));
  json_object_set_new(o, "_PARTITION_STATS", stats_json(&m->partition_stats));
  json_object_set_new(o, "_SCHEMA_ID", json_integer(m->schema_id));
  json_object_set_new(o, "_MIN_BUCKET", opt_i(m->has_bucket_range, m->min_bucket));
  json_object_set_new(o, "_MAX_BUCKET", opt_i(m->has_bucket_range, m->max_bucket));
  json_object_set_new(o, "_MIN_LEVEL", opt_i(m->has_level_range, m->min_level));
  json_object_set_new(o, "_MAX_LEVEL", opt_i(m->has_level_range, m->max_level));
  json_object_set_new(o, "_MIN_ROW_ID", opt_i(m->has_row_id_range, m->min_row_id));
  json_object_set_new(o, "_MAX_ROW_ID", opt_i(m->has_row_id_range, m->max_row_id));
  return o;
}

static json_t *index_json(const pm_index_manifest_entry *e) {
  const pm_index_file_meta *m = &e->index_file;
  json_t *o = json_object();
  json_object_set_new(o, "_VERSION", json_integer(1));
  json_object_set_new(o, "_KIND", json_integer(e->kind));
  json_object_set_new(o, "_PARTITION", hex(e->partition));
  json_object_set_new(o, "_BUCKET", json_integer(e->bucket));
  json_object_set_new(o, "_INDEX_TYPE", json_string(m->index_type));
  json_object_set_new(o, "_FILE_NAME", json_string(m->file_name));
  json_object_set_new(o, "_FILE_SIZE", json_integer(m->file_size));
  json_object_set_new(o, "_ROW_COUNT", json_integer(m->row_count));
  if (m->dv_ranges_is_null) {
    json_object_set_new(o, "_DELETIONS_VECTORS_RANGES", json_null());
  } else {
    json_t *a = json_array();
    for (int32_t i = 0; i < m->n_dv_ranges; i++) {
      json_t *r = json_object();
      json_object_set_new(r, "f0", json_string(m->dv_ranges[i].data_file_name));
      json_object_set_new(r, "f1", json_integer(m->dv_ranges[i].offset));
      json_object_set_new(r, "f2", json_integer(m->dv_ranges[i].length));
      json_object_set_new(r, "_CARDINALITY", opt_i(m->dv_ranges[i].has_cardinality, m->dv_ranges[i].cardinality));
      json_array_append_new(a, r);
    }
    json_object_set_new(o, "_DELETIONS_VECTORS_RANGES", a);
  }
  json_object_set_new(o, "_EXTERNAL_PATH", opt_s(m->external_path));
  if (!m->has_global_index) {
    json_object_set_new(o, "_GLOBAL_INDEX", json_null());
  } else {
    const pm_global_index_meta *g = &m->global_index;
    json_t *go = json_object();
    json_object_set_new(go, "_ROW_RANGE_START", json_integer(g->row_range_start));
    json_object_set_new(go, "_ROW_RANGE_END", json_integer(g->row_range_end));
    json_object_set_new(go, "_INDEX_FIELD_ID", json_integer(g->index_field_id));
    if (g->extra_field_ids_is_null) {
      json_object_set_new(go, "_EXTRA_FIELD_IDS", json_null());
    } else {
      json_t *a = json_array();
      for (int32_t i = 0; i < g->n_extra_field_ids; i++) json_array_append_new(a, json_integer(g->extra_field_ids[i]));
      json_object_set_new(go, "_EXTRA_FIELD_IDS", a);
    }
    json_object_set_new(go, "_INDEX_META", g->has_index_meta ? hex(g->index_meta) : json_null());
    json_object_set_new(go, "_SOURCE_META", g->has_source_meta ? hex(g->source_meta) : json_null());
    json_object_set_new(o, "_GLOBAL_INDEX", go);
  }
  return o;
}

/* Every key of `oracle` must equal ours; our extra keys (fields the file lacks) must be null. */
static int subset_equal(const json_t *ours, const json_t *theirs, char *where, size_t cap) {
  if (json_is_object(theirs) && json_is_object(ours)) {
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)theirs, k, v) {
      json_t *o = json_object_get(ours, k);
      if (!o || !subset_equal(o, v, where, cap)) {
        size_t l = strlen(where);
        snprintf(where + l, cap - l, " <- %s", k);
        return 0;
      }
    }
    json_object_foreach((json_t *)ours, k, v) {
      if (!json_object_get(theirs, k) && !json_is_null(v)) {
        snprintf(where, cap, "extra non-null key %s", k);
        return 0;
      }
    }
    return 1;
  }
  if (json_is_array(theirs) && json_is_array(ours)) {
    if (json_array_size(theirs) != json_array_size(ours)) return 0;
    for (size_t i = 0; i < json_array_size(theirs); i++)
      if (!subset_equal(json_array_get(ours, i), json_array_get(theirs, i), where, cap)) return 0;
    return 1;
  }
  return json_equal(ours, theirs);
}

typedef enum { K_MANIFEST, K_LIST, K_INDEX } kind_t;

static int counts[3];

static void check_file(const oracle_file *of, kind_t kind) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", PAIMON_SHARED_DIR, of->path);
  pm_error err = {0};
  json_t *mine = json_array();
  if (kind == K_MANIFEST) {
    pm_manifest_entries v;
    pm_manifest_entries_init(&v);
    CHECK_OK(pm_manifest_read(pm_fs_local(), path, NULL, NULL, &v, &err), &err);
    for (size_t i = 0; i < v.n; i++) json_array_append_new(mine, entry_json(&v.items[i]));
    /* re-encode with our writer (master schema), decode again: same content */
    pm_buf b;
    pm_buf_init(&b);
    CHECK_OK(pm_manifest_encode(v.items, v.n, NULL, &b, &err), &err);
    pm_manifest_entries v2;
    pm_manifest_entries_init(&v2);
    CHECK_OK(pm_manifest_decode(b.data, b.len, "re-encoded", NULL, NULL, &v2, &err), &err);
    CHECK_EQ_INT(v2.n, v.n);
    for (size_t i = 0; i < v.n && i < v2.n; i++) {
      json_t *a = entry_json(&v.items[i]), *c = entry_json(&v2.items[i]);
      CHECK_MSG(json_equal(a, c), "re-encoded entry %zu of %s differs", i, of->path);
      json_decref(a);
      json_decref(c);
    }
    pm_manifest_entries_clear(&v2);
    pm_buf_free(&b);
    pm_manifest_entries_clear(&v);
  } else if (kind == K_LIST) {
    pm_manifest_file_metas v;
    pm_manifest_file_metas_init(&v);
    CHECK_OK(pm_manifest_list_read(pm_fs_local(), path, &v, &err), &err);
    for (size_t i = 0; i < v.n; i++) json_array_append_new(mine, list_json(&v.items[i]));
    pm_buf b;
    pm_buf_init(&b);
    CHECK_OK(pm_manifest_list_encode(v.items, v.n, NULL, &b, &err), &err);
    pm_manifest_file_metas v2;
    pm_manifest_file_metas_init(&v2);
    CHECK_OK(pm_manifest_list_decode(b.data, b.len, "re-encoded", &v2, &err), &err);
    CHECK_EQ_INT(v2.n, v.n);
    for (size_t i = 0; i < v.n && i < v2.n; i++) {
      json_t *a = list_json(&v.items[i]), *c = list_json(&v2.items[i]);
      CHECK(json_equal(a, c));
      json_decref(a);
      json_decref(c);
    }
    pm_manifest_file_metas_clear(&v2);
    pm_buf_free(&b);
    pm_manifest_file_metas_clear(&v);
  } else {
    pm_index_entries v;
    pm_index_entries_init(&v);
    CHECK_OK(pm_index_manifest_read(pm_fs_local(), path, &v, &err), &err);
    for (size_t i = 0; i < v.n; i++) json_array_append_new(mine, index_json(&v.items[i]));
    pm_buf b;
    pm_buf_init(&b);
    CHECK_OK(pm_index_manifest_encode(v.items, v.n, NULL, &b, &err), &err);
    pm_index_entries v2;
    pm_index_entries_init(&v2);
    CHECK_OK(pm_index_manifest_decode(b.data, b.len, "re-encoded", &v2, &err), &err);
    CHECK_EQ_INT(v2.n, v.n);
    for (size_t i = 0; i < v.n && i < v2.n; i++) {
      json_t *a = index_json(&v.items[i]), *c = index_json(&v2.items[i]);
      CHECK(json_equal(a, c));
      json_decref(a);
      json_decref(c);
    }
    pm_index_entries_clear(&v2);
    pm_buf_free(&b);
    pm_index_entries_clear(&v);
  }
  CHECK_MSG(json_array_size(mine) == json_array_size(of->records), "%s: %zu records vs oracle %zu", of->path,
            json_array_size(mine), json_array_size(of->records));
  for (size_t i = 0; i < json_array_size(mine) && i < json_array_size(of->records); i++) {
    char where[512] = "";
    int ok = subset_equal(json_array_get(mine, i), json_array_get(of->records, i), where, sizeof where);
    CHECK_MSG(ok, "%s record %zu differs from avro-dump at%s", of->path, i, where);
  }
  counts[kind]++;
  json_decref(mine);
}

static void test_fixture_manifests(void) {
  load_oracle();
  CHECK(n_oracle > 100);
  for (size_t i = 0; i < n_oracle; i++) {
    const char *base = strrchr(oracle[i].path, '/');
    base = base ? base + 1 : oracle[i].path;
    if (!strstr(oracle[i].path, "/manifest/")) continue;
    if (strncmp(base, "manifest-list-", 14) == 0) check_file(&oracle[i], K_LIST);
    else if (strncmp(base, "index-manifest-", 15) == 0) check_file(&oracle[i], K_INDEX);
    else if (strncmp(base, "manifest-", 9) == 0) check_file(&oracle[i], K_MANIFEST);
  }
  fprintf(stderr, "checked %d manifests, %d manifest lists, %d index manifests against avro-dump\n", counts[0],
          counts[1], counts[2]);
  CHECK(counts[0] > 50 && counts[1] > 50 && counts[2] > 5);
}

/* ---------------- lazy filter ---------------- */

static int keep_bucket1(void *ctx, const pm_entry_head *h) {
  (*(int *)ctx)++;
  return h->bucket == 1;
}

#define PK09_MANIFEST PM_SHARED("fixtures/warehouse/parquet/pk_09.db/pk_09/manifest/manifest-8cf79434-32e4-4029-bf8e-befe856d268f-0")

static void test_filter(void) {
  pm_error err = {0};
  pm_manifest_entries all, some;
  pm_manifest_entries_init(&all);
  pm_manifest_entries_init(&some);
  int calls = 0;
  CHECK_OK(pm_manifest_read(pm_fs_local(), PK09_MANIFEST, NULL, NULL, &all, &err), &err);
  CHECK_OK(pm_manifest_read(pm_fs_local(), PK09_MANIFEST, keep_bucket1, &calls, &some, &err), &err);
  CHECK_EQ_INT(calls, (int)all.n);
  size_t expect = 0;
  for (size_t i = 0; i < all.n; i++) expect += all.items[i].bucket == 1;
  CHECK_EQ_INT(some.n, expect);
  CHECK(expect > 0 && expect < all.n);
  for (size_t i = 0; i < some.n; i++) CHECK_EQ_INT(some.items[i].bucket, 1);
  /* the 0.9 fixture: partition f1=10 BinaryRow, first entry values from avro-dump */
  CHECK_EQ_STR(all.items[0].file.file_name, "data-0f3a001e-ce2f-4f01-bb47-08d9901cb76c-0.parquet");
  CHECK_EQ_INT(all.items[0].partition.len, 20);
  CHECK_EQ_INT(all.items[0].file.key_stats.n_null_counts, 2);
  pm_manifest_entries_clear(&all);
  pm_manifest_entries_clear(&some);
}

/* ---------------- bad input ---------------- */

static void test_corrupt(void) {
  pm_buf b;
  pm_buf_init(&b);
  pm_error err = {0};
  CHECK_OK(pm_read_file(PK09_MANIFEST, &b, 0, &err), &err);
  pm_manifest_entries v;
  pm_manifest_entries_init(&v);
  /* truncated at many points: always an error, never a crash or leak */
  for (size_t cut = 0; cut < b.len; cut += (cut < 64 ? 1 : 97)) {
    int rc = pm_manifest_decode(b.data, cut, "truncated-manifest", NULL, NULL, &v, &err);
    CHECK_MSG(rc != 0, "cut %zu accepted", cut);
    if (rc) CHECK(strstr(err.message, "truncated-manifest") != NULL);
  }
  /* flipped bytes in the block: error or (rarely) different valid data, never a crash */
  for (size_t pos = b.len / 2; pos < b.len; pos += 13) {
    uint8_t save = b.data[pos];
    b.data[pos] ^= 0x5a;
    (void)pm_manifest_decode(b.data, b.len, "flipped", NULL, NULL, &v, &err);
    b.data[pos] = save;
  }
  pm_manifest_entries_clear(&v);
  CHECK_EQ_INT(pm_manifest_read(pm_fs_local(), "/nonexistent/manifest-x", NULL, NULL, &v, &err), PAIMON_ERR_IO == err.code ? PAIMON_ERR_IO : err.code);
  CHECK(err.code != 0);
  pm_manifest_entries_clear(&v);
  pm_buf_free(&b);
}

/* ---------------- writer: file + meta ---------------- */

static void test_write_meta(void) {
  pm_error err = {0};
  pm_manifest_entries v;
  pm_manifest_entries_init(&v);
  CHECK_OK(pm_manifest_read(pm_fs_local(), PK09_MANIFEST, NULL, NULL, &v, &err), &err);
  char dir[] = "/tmp/pm_manifest_XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char path[256];
  snprintf(path, sizeof path, "%s/manifest-test-0", dir);
  pm_data_type *pt = NULL;
  json_t *j = json_loads("{\"type\":\"ROW\",\"fields\":[{\"id\":1,\"name\":\"f1\",\"type\":\"INT NOT NULL\"}]}", 0, NULL);
  CHECK_OK(pm_dtype_from_json(j, "ptype", &pt, &err), &err);
  json_decref(j);
  pm_arena arena;
  pm_arena_init(&arena);
  pm_manifest_file_meta meta;
  CHECK_OK(pm_manifest_write(pm_fs_local(), path, v.items, v.n, pt, 0, NULL, &arena, &meta, &err), &err);
  CHECK_EQ_STR(meta.file_name, "manifest-test-0");
  CHECK_EQ_INT(meta.num_added_files + meta.num_deleted_files, v.n);
  CHECK(meta.has_bucket_range && meta.min_bucket == 0 && meta.max_bucket == 1);
  /* partition stats: f1 in {10, 20} => min 10, max 20 */
  CHECK_EQ_INT(meta.partition_stats.min_values.len, 20);
  CHECK_EQ_INT(meta.partition_stats.min_values.data[12], 10);
  CHECK_EQ_INT(meta.partition_stats.max_values.data[12], 20);
  CHECK_EQ_INT(meta.partition_stats.n_null_counts, 1);
  CHECK_EQ_INT(pm_manifest_write(pm_fs_local(), path, v.items, v.n, pt, 0, NULL, &arena, &meta, &err), PAIMON_ERR_CONFLICT);
  char lpath[256];
  snprintf(lpath, sizeof lpath, "%s/manifest-list-test-0", dir);
  int64_t lsize = 0;
  CHECK_OK(pm_manifest_list_write(pm_fs_local(), lpath, &meta, 1, NULL, &lsize, &err), &err);
  pm_manifest_file_metas l;
  pm_manifest_file_metas_init(&l);
  CHECK_OK(pm_manifest_list_read(pm_fs_local(), lpath, &l, &err), &err);
  CHECK(l.n == 1 && !strcmp(l.items[0].file_name, "manifest-test-0") && l.items[0].file_size == meta.file_size);
  pm_manifest_file_metas_clear(&l);
  pm_arena_free(&arena);
  pm_dtype_free(pt);
  pm_manifest_entries_clear(&v);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  CHECK(system(cmd) == 0);
}

/* ---------------- our writer, read back by the independent avro-dump ---------------- */

/* Runs avro-dump --records on path; returns an array of records, or NULL when the tool cannot run. */
static json_t *avro_dump_records(const char *path) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "'%s/tools/avro-dump' '%s' --records 2>/dev/null", PAIMON_SHARED_DIR, path);
  FILE *p = popen(cmd, "r");
  if (!p) return NULL;
  json_t *arr = json_array();
  char *line = malloc(1 << 22);
  while (fgets(line, 1 << 22, p)) {
    json_t *j = json_loads(line, 0, NULL);
    if (j) json_array_append_new(arr, j);
  }
  free(line);
  int st = pclose(p);
  if (st != 0) {
    json_decref(arr);
    return NULL;
  }
  return arr;
}

static const oracle_file *find_oracle(const char *suffix) {
  for (size_t i = 0; i < n_oracle; i++) {
    size_t l = strlen(oracle[i].path), sl = strlen(suffix);
    if (l >= sl && strcmp(oracle[i].path + l - sl, suffix) == 0) return &oracle[i];
  }
  return NULL;
}

static void test_writer_vs_avro_dump(void) {
  /* one file of each kind, including a 0.9 union-wrapped manifest and one with DV ranges */
  const char *files[] = {
      "pk_09.db/pk_09/manifest/manifest-8cf79434-32e4-4029-bf8e-befe856d268f-0",
      "pk_09.db/pk_09/manifest/manifest-list-c63559b0-8ebb-4bf9-8e0c-91062d5e7391-1",
      "pk_09.db/pk_09/manifest/index-manifest-03e2700b-8409-499b-8c27-a09ccee9348c-1",
      "append_with_global_index.db/append_with_global_index/manifest/index-manifest-09c6f62e-f80a-4f47-8e36-1fe1eb8735c6-0",
  };
  char dir[] = "/tmp/pm_avrodump_XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  int ran = 0;
  for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
    const oracle_file *of = find_oracle(files[k]);
    CHECK_MSG(of != NULL, "no oracle for %s", files[k]);
    if (!of) continue;
    char src[4096], dst[512];
    snprintf(src, sizeof src, "%s/%s", PAIMON_SHARED_DIR, of->path);
    snprintf(dst, sizeof dst, "%s/out-%zu", dir, k);
    pm_error err = {0};
    pm_buf b;
    pm_buf_init(&b);
    const char *base = strrchr(of->path, '/') + 1;
    static const uint8_t sync[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    pm_manifest_write_opts opts = {PM_CODEC_ZSTD, 0, sync, 0};
    if (!strncmp(base, "manifest-list-", 14)) {
      pm_manifest_file_metas v;
      pm_manifest_file_metas_init(&v);
      CHECK_OK(pm_manifest_list_read(pm_fs_local(), src, &v, &err), &err);
      CHECK_OK(pm_manifest_list_encode(v.items, v.n, &opts, &b, &err), &err);
      pm_manifest_file_metas_clear(&v);
    } else if (!strncmp(base, "index-manifest-", 15)) {
      pm_index_entries v;
      pm_index_entries_init(&v);
      CHECK_OK(pm_index_manifest_read(pm_fs_local(), src, &v, &err), &err);
      CHECK_OK(pm_index_manifest_encode(v.items, v.n, &opts, &b, &err), &err);
      pm_index_entries_clear(&v);
    } else {
      pm_manifest_entries v;
      pm_manifest_entries_init(&v);
      CHECK_OK(pm_manifest_read(pm_fs_local(), src, NULL, NULL, &v, &err), &err);
      CHECK_OK(pm_manifest_encode(v.items, v.n, &opts, &b, &err), &err);
      pm_manifest_entries_clear(&v);
    }
    CHECK_OK(pm_write_file(dst, b.data, b.len, 0, &err), &err);
    pm_buf_free(&b);
    json_t *recs = avro_dump_records(dst);
    if (!recs) continue;
    ran++;
    CHECK_EQ_INT(json_array_size(recs), json_array_size(of->records));
    for (size_t i = 0; i < json_array_size(recs) && i < json_array_size(of->records); i++) {
      char where[512] = "";
      CHECK_MSG(subset_equal(json_array_get(recs, i), json_array_get(of->records, i), where, sizeof where),
                "%s: record %zu as read by avro-dump differs from the source at%s", files[k], i, where);
    }
    json_decref(recs);
  }
  if (!ran) fprintf(stderr, "SKIP: avro-dump cannot run here, writer oracle comparison skipped\n");
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  CHECK(system(cmd) == 0);
}

/* ---------------- ORC manifests: checked against the file system ---------------- */

static int orc_counts[3];

static long long file_size_of(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

/* Finds `name` anywhere under dir (data files live in partition/bucket dirs). */
static char found_path[4096];
static const char *wanted_name;
static int find_visit(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  if (flag == FTW_F && strcmp(path + ftw->base, wanted_name) == 0) {
    snprintf(found_path, sizeof found_path, "%s", path);
    return 1;
  }
  return 0;
}

static int orc_visit(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  const char *m = strstr(path, "/manifest/");
  if (flag != FTW_F || !m) return 0;
  FILE *f = fopen(path, "rb");
  char magic[3] = {0};
  if (!f) return 0;
  size_t got = fread(magic, 1, 3, f);
  fclose(f);
  if (got != 3 || memcmp(magic, "ORC", 3) != 0) return 0;
  char root[4096], mdir[4096];
  snprintf(root, sizeof root, "%.*s", (int)(m - path), path);
  snprintf(mdir, sizeof mdir, "%.*s", (int)(path + ftw->base - 1 - path), path);
  const char *base = path + ftw->base;
  pm_error err = {0};
  if (strncmp(base, "manifest-list-", 14) == 0) {
    pm_manifest_file_metas v;
    pm_manifest_file_metas_init(&v);
    CHECK_OK(pm_manifest_list_read(pm_fs_local(), path, &v, &err), &err);
    for (size_t i = 0; i < v.n; i++) {
      char mp[8300];
      snprintf(mp, sizeof mp, "%s/%s", mdir, v.items[i].file_name);
      CHECK_MSG(file_size_of(mp) == v.items[i].file_size, "%s: manifest %s size", path, v.items[i].file_name);
      pm_manifest_entries e;
      pm_manifest_entries_init(&e);
      CHECK_OK(pm_manifest_read(pm_fs_local(), mp, NULL, NULL, &e, &err), &err);
      long long adds = 0, dels = 0;
      for (size_t k = 0; k < e.n; k++) {
        if (e.items[k].kind == 0) adds++;
        else dels++;
        CHECK(e.items[k].partition.len >= 12);
        CHECK(e.items[k].file.min_key.len >= 12 || e.items[k].file.min_key.len == 0);
      }
      CHECK_EQ_INT(adds, v.items[i].num_added_files);
      CHECK_EQ_INT(dels, v.items[i].num_deleted_files);
      pm_manifest_entries_clear(&e);
    }
    orc_counts[1]++;
    pm_manifest_file_metas_clear(&v);
  } else if (strncmp(base, "index-manifest-", 15) == 0) {
    pm_index_entries v;
    pm_index_entries_init(&v);
    CHECK_OK(pm_index_manifest_read(pm_fs_local(), path, &v, &err), &err);
    for (size_t i = 0; i < v.n; i++) {
      const pm_index_file_meta *im = &v.items[i].index_file;
      wanted_name = im->file_name;
      found_path[0] = 0;
      nftw(root, find_visit, 16, FTW_PHYS);
      if (found_path[0]) CHECK_MSG(file_size_of(found_path) == im->file_size, "%s: index %s size", path, im->file_name);
      CHECK(im->index_type[0] != 0);
    }
    orc_counts[2]++;
    pm_index_entries_clear(&v);
  } else if (strncmp(base, "manifest-", 9) == 0) {
    pm_manifest_entries e;
    pm_manifest_entries_init(&e);
    CHECK_OK(pm_manifest_read(pm_fs_local(), path, NULL, NULL, &e, &err), &err);
    for (size_t k = 0; k < e.n; k++) {
      const pm_data_file_meta *fm = &e.items[k].file;
      if (e.items[k].kind != 0 || fm->external_path) continue;
      wanted_name = fm->file_name;
      found_path[0] = 0;
      nftw(root, find_visit, 16, FTW_PHYS);
      if (found_path[0]) CHECK_MSG(file_size_of(found_path) == fm->file_size, "%s: data file %s size", path, fm->file_name);
      CHECK(fm->row_count > 0);
      CHECK(fm->max_sequence_number >= fm->min_sequence_number);
      CHECK(fm->has_creation_time);
    }
    /* the lazy filter sees the same entries */
    pm_manifest_entries f2;
    pm_manifest_entries_init(&f2);
    int calls = 0;
    CHECK_OK(pm_manifest_read(pm_fs_local(), path, keep_bucket1, &calls, &f2, &err), &err);
    CHECK_EQ_INT(calls, e.n);
    pm_manifest_entries_clear(&f2);
    /* re-encode as Avro and decode again: same entries */
    pm_buf b;
    pm_buf_init(&b);
    CHECK_OK(pm_manifest_encode(e.items, e.n, NULL, &b, &err), &err);
    pm_manifest_entries e2;
    pm_manifest_entries_init(&e2);
    CHECK_OK(pm_manifest_decode(b.data, b.len, "avro copy", NULL, NULL, &e2, &err), &err);
    CHECK_EQ_INT(e2.n, e.n);
    for (size_t k = 0; k < e.n && k < e2.n; k++) {
      json_t *a = entry_json(&e.items[k]), *c = entry_json(&e2.items[k]);
      CHECK(json_equal(a, c));
      json_decref(a);
      json_decref(c);
    }
    pm_manifest_entries_clear(&e2);
    pm_buf_free(&b);
    orc_counts[0]++;
    pm_manifest_entries_clear(&e);
  }
  return 0;
}

static void test_orc_manifests(void) {
  CHECK(nftw(PM_SHARED("fixtures/warehouse"), orc_visit, 16, FTW_PHYS) == 0);
  fprintf(stderr, "ORC: %d manifests, %d manifest lists, %d index manifests\n", orc_counts[0], orc_counts[1], orc_counts[2]);
  CHECK(orc_counts[0] > 20 && orc_counts[1] > 20 && orc_counts[2] > 3);
}

static pm_index_manifest_entry idx_entry(int kind, uint8_t part, int bucket, const char *type, const char *name) {
  static uint8_t parts[4][20];
  pm_index_manifest_entry e;
  memset(&e, 0, sizeof e);
  e.kind = (int8_t)kind;
  memset(parts[part], 0, 20);
  parts[part][3] = 1;
  parts[part][12] = part;
  e.partition.data = parts[part];
  e.partition.len = 20;
  e.bucket = bucket;
  e.index_file.index_type = type;
  e.index_file.file_name = name;
  e.index_file.dv_ranges_is_null = 1;
  return e;
}

static void test_index_combine(void) {
  pm_error err = {0};
  pm_index_manifest_entry prev[3] = {idx_entry(0, 1, 0, "DELETION_VECTORS", "i-1"), idx_entry(0, 1, 1, "DELETION_VECTORS", "i-2"),
                                     idx_entry(0, 2, 0, "HASH", "h-1")};
  /* bucketed: new DV of (p1, b0) replaces i-1; HASH of (p2, b0) deleted; new bucket added */
  pm_index_manifest_entry ch[3] = {idx_entry(0, 1, 0, "DELETION_VECTORS", "i-3"), idx_entry(1, 2, 0, "HASH", "h-1"),
                                   idx_entry(0, 3, 4, "DELETION_VECTORS", "i-4")};
  pm_index_entries out;
  pm_index_entries_init(&out);
  CHECK_OK(pm_index_manifest_combine(prev, 3, ch, 3, 0, &out, &err), &err);
  CHECK_EQ_INT(out.n, 3);
  if (out.n == 3) {
    CHECK_EQ_STR(out.items[0].index_file.file_name, "i-3");
    CHECK_EQ_STR(out.items[1].index_file.file_name, "i-2");
    CHECK_EQ_STR(out.items[2].index_file.file_name, "i-4");
    CHECK_EQ_INT(out.items[2].kind, 0);
  }
  pm_index_entries_clear(&out);
  /* bucket-unaware DVs are keyed by file name: a second ADD of the same name conflicts */
  pm_index_entries_init(&out);
  pm_index_manifest_entry dup = idx_entry(0, 1, 0, "DELETION_VECTORS", "i-1");
  CHECK_EQ_INT(pm_index_manifest_combine(prev, 3, &dup, 1, 1, &out, &err), PAIMON_ERR_CONFLICT);
  pm_index_entries_clear(&out);
  pm_index_entries_init(&out);
  pm_index_manifest_entry del = idx_entry(1, 1, 0, "DELETION_VECTORS", "i-1"), add = idx_entry(0, 1, 0, "DELETION_VECTORS", "i-9");
  pm_index_manifest_entry both[2] = {add, del};
  CHECK_OK(pm_index_manifest_combine(prev, 3, both, 2, 1, &out, &err), &err);
  CHECK(out.n == 3 && !strcmp(out.items[0].index_file.file_name, "i-2") && !strcmp(out.items[2].index_file.file_name, "i-9"));
  pm_index_entries_clear(&out);
  pm_index_entries_init(&out);
  pm_index_manifest_entry missing = idx_entry(1, 1, 0, "bitmap", "nope");
  CHECK_EQ_INT(pm_index_manifest_combine(prev, 3, &missing, 1, 0, &out, &err), PAIMON_ERR_CONFLICT);
  pm_index_entries_clear(&out);
}

/* Writer schema JSON stored in an Avro file header (Java's Schema.toString()). */
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

static void check_generated(const char *fields_json, const char *avro_file) {
  pm_error err = {0};
  json_t *j = json_loads(fields_json, 0, NULL);
  CHECK(j != NULL);
  if (!j) return;
  size_t n = json_array_size(j);
  pm_data_field *f = calloc(n, sizeof *f);
  for (size_t i = 0; i < n; i++) CHECK_OK(pm_data_field_from_json(json_array_get(j, i), "t", 0, &f[i], &err), &err);
  pm_buf b;
  pm_buf_init(&b);
  CHECK_OK(pm_dtype_avro_schema_json(f, n, &b, &err), &err);
  pm_buf_push_u8(&b, 0);
  char *want = header_schema(avro_file);
  CHECK_MSG(want && !strcmp((const char *)b.data, want), "generated %s\nexpected  %s", (const char *)b.data, want ? want : "?");
  free(want);
  pm_buf_free(&b);
  for (size_t i = 0; i < n; i++) pm_data_field_clear(&f[i]);
  free(f);
  json_decref(j);
}

/* FORMAT.md 4.2: the Avro schema generated from Paimon row types equals what Java wrote. */
static void test_avro_schema_generation(void) {
  /* Avro data file: its table schema -> header */
  pm_error err = {0};
  pm_table_schema *ts = NULL;
  const char *tbl = PM_SHARED("fixtures/warehouse/avro/append_with_multiple_ts_precision_and_timezone.db/append_with_multiple_ts_precision_and_timezone");
  CHECK_OK(pm_schema_read(&(pm_schema_manager){pm_fs_local(), tbl, NULL}, 0, &ts, &err), &err);
  if (ts) {
    pm_buf b;
    pm_buf_init(&b);
    CHECK_OK(pm_dtype_avro_schema_json(ts->fields, ts->n_fields, &b, &err), &err);
    pm_buf_push_u8(&b, 0);
    char path[1024];
    snprintf(path, sizeof path, "%s/bucket-0/data-441e233b-529d-4a8f-a0a4-25c2c84fb965-0.avro", tbl);
    char *want = header_schema(path);
    CHECK_MSG(want && !strcmp((const char *)b.data, want), "data file schema: %s", (const char *)b.data);
    free(want);
    pm_buf_free(&b);
    pm_schema_free(ts);
  }
  /* manifest entry row type of Paimon 1.3 -> the data_evolution fixture manifest header */
  const char *stats = "{\"type\":\"ROW NOT NULL\",\"fields\":[{\"id\":0,\"name\":\"_MIN_VALUES\",\"type\":\"BYTES NOT NULL\"},"
                      "{\"id\":1,\"name\":\"_MAX_VALUES\",\"type\":\"BYTES NOT NULL\"},"
                      "{\"id\":2,\"name\":\"_NULL_COUNTS\",\"type\":{\"type\":\"ARRAY\",\"element\":\"BIGINT\"}}]}";
  char manifest[8192];
  snprintf(manifest, sizeof manifest,
           "[{\"id\":0,\"name\":\"_VERSION\",\"type\":\"INT NOT NULL\"},{\"id\":1,\"name\":\"_KIND\",\"type\":\"TINYINT NOT NULL\"},"
           "{\"id\":2,\"name\":\"_PARTITION\",\"type\":\"BYTES NOT NULL\"},{\"id\":3,\"name\":\"_BUCKET\",\"type\":\"INT NOT NULL\"},"
           "{\"id\":4,\"name\":\"_TOTAL_BUCKETS\",\"type\":\"INT NOT NULL\"},{\"id\":5,\"name\":\"_FILE\",\"type\":{\"type\":\"ROW NOT NULL\",\"fields\":["
           "{\"id\":0,\"name\":\"_FILE_NAME\",\"type\":\"STRING NOT NULL\"},{\"id\":1,\"name\":\"_FILE_SIZE\",\"type\":\"BIGINT NOT NULL\"},"
           "{\"id\":2,\"name\":\"_ROW_COUNT\",\"type\":\"BIGINT NOT NULL\"},{\"id\":3,\"name\":\"_MIN_KEY\",\"type\":\"BYTES NOT NULL\"},"
           "{\"id\":4,\"name\":\"_MAX_KEY\",\"type\":\"BYTES NOT NULL\"},{\"id\":5,\"name\":\"_KEY_STATS\",\"type\":%s},"
           "{\"id\":6,\"name\":\"_VALUE_STATS\",\"type\":%s},{\"id\":7,\"name\":\"_MIN_SEQUENCE_NUMBER\",\"type\":\"BIGINT NOT NULL\"},"
           "{\"id\":8,\"name\":\"_MAX_SEQUENCE_NUMBER\",\"type\":\"BIGINT NOT NULL\"},{\"id\":9,\"name\":\"_SCHEMA_ID\",\"type\":\"BIGINT NOT NULL\"},"
           "{\"id\":10,\"name\":\"_LEVEL\",\"type\":\"INT NOT NULL\"},"
           "{\"id\":11,\"name\":\"_EXTRA_FILES\",\"type\":{\"type\":\"ARRAY NOT NULL\",\"element\":\"STRING NOT NULL\"}},"
           "{\"id\":12,\"name\":\"_CREATION_TIME\",\"type\":\"TIMESTAMP(3)\"},{\"id\":13,\"name\":\"_DELETE_ROW_COUNT\",\"type\":\"BIGINT\"},"
           "{\"id\":14,\"name\":\"_EMBEDDED_FILE_INDEX\",\"type\":\"BYTES\"},{\"id\":15,\"name\":\"_FILE_SOURCE\",\"type\":\"TINYINT\"},"
           "{\"id\":16,\"name\":\"_VALUE_STATS_COLS\",\"type\":{\"type\":\"ARRAY\",\"element\":\"STRING NOT NULL\"}},"
           "{\"id\":17,\"name\":\"_EXTERNAL_PATH\",\"type\":\"STRING\"},{\"id\":18,\"name\":\"_FIRST_ROW_ID\",\"type\":\"BIGINT\"},"
           "{\"id\":19,\"name\":\"_WRITE_COLS\",\"type\":{\"type\":\"ARRAY\",\"element\":\"STRING NOT NULL\"}}]}}]",
           stats, stats);
  char mpath[1024];
  snprintf(mpath, sizeof mpath, "%s",
           PM_SHARED("fixtures/warehouse/parquet/data_evolution_with_dense_stats.db/data_evolution_with_dense_stats/manifest/"));
  char **names = NULL;
  size_t nn = 0;
  CHECK_OK(pm_list_dir(mpath, &names, &nn, &err), &err);
  for (size_t i = 0; i < nn; i++) {
    if (strncmp(names[i], "manifest-", 9) != 0 || !strncmp(names[i], "manifest-list-", 14)) continue;
    char full[2048];
    snprintf(full, sizeof full, "%s%s", mpath, names[i]);
    check_generated(manifest, full);
    break;
  }
  pm_free_names(names, nn);
  /* unsupported */
  pm_data_type v = {.root = PM_DT_VARIANT, .nullable = 1};
  pm_data_field vf = {.id = 0, .name = "v", .type = &v};
  pm_buf b;
  pm_buf_init(&b);
  CHECK_EQ_INT(pm_dtype_avro_schema_json(&vf, 1, &b, &err), PAIMON_ERR_UNSUPPORTED);
  pm_buf_free(&b);
}

/* Generic (by-name) path: a writer schema with reordered fields, an unknown field and
 * missing optional fields still decodes (FORMAT.md 4.8). */
static void test_reordered_schema(void) {
  const char *schema =
      "{\"type\":\"record\",\"name\":\"record\",\"fields\":["
      "{\"name\":\"_KIND\",\"type\":\"int\"},{\"name\":\"_UNKNOWN\",\"type\":{\"type\":\"array\",\"items\":\"string\"}},"
      "{\"name\":\"_VERSION\",\"type\":\"int\"},{\"name\":\"_BUCKET\",\"type\":\"int\"},"
      "{\"name\":\"_PARTITION\",\"type\":\"bytes\"},"
      "{\"name\":\"_FILE\",\"type\":{\"type\":\"record\",\"name\":\"f\",\"fields\":["
      "{\"name\":\"_LEVEL\",\"type\":\"int\"},{\"name\":\"_FILE_NAME\",\"type\":\"string\"},"
      "{\"name\":\"_ROW_COUNT\",\"type\":[\"null\",\"long\"]},{\"name\":\"_EXTRA\",\"type\":\"double\"}]}},"
      "{\"name\":\"_TOTAL_BUCKETS\",\"type\":\"int\"}]}";
  char dir[] = "/tmp/pm_reorder_XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char path[256];
  snprintf(path, sizeof path, "%s/manifest-x", dir);
  pm_error err = {0};
  pm_avro_writer *w = NULL;
  CHECK_OK(pm_avro_writer_open(path, schema, NULL, &w, &err), &err);
  if (!w) return;
  for (int i = 0; i < 3; i++) {
    pm_avro_encoder *e = pm_avro_writer_encoder(w);
    pm_avro_put_int(e, i == 2 ? 1 : 0); /* _KIND */
    pm_avro_put_block_count(e, 1);
    pm_avro_put_string(e, "ignored");
    pm_avro_put_block_end(e);
    pm_avro_put_int(e, 2);     /* _VERSION */
    pm_avro_put_int(e, i * 3); /* _BUCKET */
    pm_avro_put_bytes(e, PM_EMPTY_ROW_BYTES, 12);
    pm_avro_put_int(e, 5 + i); /* _LEVEL */
    char name[32];
    snprintf(name, sizeof name, "data-%d.parquet", i);
    pm_avro_put_string(e, name);
    pm_avro_put_union(e, i == 1 ? 0 : 1);
    if (i != 1) pm_avro_put_long(e, 100 + i);
    pm_avro_put_double(e, 1.5);
    pm_avro_put_int(e, 7); /* _TOTAL_BUCKETS */
    CHECK_OK(pm_avro_writer_end_record(w, &err), &err);
  }
  CHECK_OK(pm_avro_writer_commit(w, NULL, &err), &err);
  pm_manifest_entries v;
  pm_manifest_entries_init(&v);
  CHECK_OK(pm_manifest_read(pm_fs_local(), path, NULL, NULL, &v, &err), &err);
  CHECK_EQ_INT(v.n, 3);
  if (v.n == 3) {
    CHECK_EQ_STR(v.items[2].file.file_name, "data-2.parquet");
    CHECK(v.items[2].kind == 1 && v.items[2].bucket == 6 && v.items[2].total_buckets == 7 && v.items[2].file.level == 7);
    CHECK(v.items[0].file.row_count == 100 && v.items[1].file.row_count == 0);
    CHECK(!v.items[0].file.has_creation_time && v.items[0].file.file_source == -1 && v.items[0].file.value_stats_cols.is_null);
    CHECK(v.items[0].file.extra_files.n == 0 && !v.items[0].file.extra_files.is_null);
    CHECK(v.items[0].file.key_stats.min_values.len == 12); /* missing stats = empty stats */
  }
  pm_manifest_entries_clear(&v);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  CHECK(system(cmd) == 0);
}

int main(void) {
  RUN_TEST(test_fixture_manifests);
  RUN_TEST(test_filter);
  RUN_TEST(test_corrupt);
  RUN_TEST(test_write_meta);
  RUN_TEST(test_index_combine);
  RUN_TEST(test_reordered_schema);
  RUN_TEST(test_avro_schema_generation);
  RUN_TEST(test_writer_vs_avro_dump);
  RUN_TEST(test_orc_manifests);
  free_oracle();
  TEST_MAIN_END();
}
