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
#include "meta/file_entry.h"
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

/* ---------------- merging against a model ---------------- */

/* A table of file identities: file k has name data-...-k; live[k] in the model. */
typedef struct model {
  pm_arena arena;
  pm_manifest_entry *files; /* ADD entry of file k */
  size_t n, cap;
  uint8_t *live;
  const pm_data_type *ptype;
} model;

static void model_init(model *m, const pm_data_type *pt) {
  memset(m, 0, sizeof *m);
  pm_arena_init(&m->arena);
  m->ptype = pt;
}

static void model_free(model *m) {
  free(m->files);
  free(m->live);
  pm_arena_free(&m->arena);
}

static size_t model_new_file(model *m, size_t part) {
  if (m->n == m->cap) {
    m->cap = m->cap ? 2 * m->cap : 256;
    m->files = realloc(m->files, m->cap * sizeof *m->files);
    m->live = realloc(m->live, m->cap);
  }
  size_t k = m->n++;
  pm_manifest_entry *e = &m->files[k];
  memset(e, 0, sizeof *e);
  char name[96];
  snprintf(name, sizeof name, "data-0b7e4d8e-2c4f-4f0a-8d7e-3f6a9b2c1d0e-%zu.parquet", k);
  e->kind = PM_FILE_ADD;
  e->partition = part_row(&m->arena, part);
  e->bucket = (int32_t)(k % 2);
  e->total_buckets = 2;
  pm_data_file_meta *f = &e->file;
  f->file_name = pm_arena_strdup(&m->arena, name);
  f->file_size = 1000;
  f->row_count = 10;
  f->min_key.data = PM_EMPTY_ROW_BYTES;
  f->min_key.len = 12;
  f->max_key = f->min_key;
  pm_simple_stats_empty(&f->key_stats);
  pm_simple_stats_empty(&f->value_stats);
  f->has_creation_time = f->has_delete_row_count = 1;
  f->file_source = PM_SOURCE_APPEND;
  f->value_stats_cols.is_null = f->write_cols.is_null = 1;
  f->write_cols_sequences_is_null = 1;
  if (k % 9 == 4) { /* some files with an extra file: part of the identity */
    const char **x = pm_arena_alloc(&m->arena, sizeof *x);
    x[0] = pm_arena_strdup(&m->arena, "extra.index");
    f->extra_files.items = x;
    f->extra_files.n = 1;
  }
  m->live[k] = 1;
  return k;
}

/* File number of a name made by model_new_file. */
static size_t file_no(const char *name) {
  const char *d = strrchr(name, '-');
  return d ? (size_t)strtoull(d + 1, NULL, 10) : (size_t)-1;
}

/* Every meta equals its file (size on disk, ADD / DELETE counts). */
static void check_metas_match_files(const char *dir, const pm_manifest_file_meta *m, size_t n) {
  for (size_t i = 0; i < n; i++) {
    char path[512];
    manifest_path(dir, m[i].file_name, path, sizeof path);
    struct stat st;
    CHECK_MSG(stat(path, &st) == 0 && st.st_size == m[i].file_size, "%s: size", m[i].file_name);
    pm_error err = {0};
    pm_manifest_entries v;
    pm_manifest_entries_init(&v);
    CHECK_OK(pm_manifest_read(pm_fs_local(), path, NULL, NULL, &v, &err), &err);
    int64_t a = 0, d = 0;
    for (size_t j = 0; j < v.n; j++) *(v.items[j].kind == PM_FILE_ADD ? &a : &d) += 1;
    CHECK_MSG(a == m[i].num_added_files && d == m[i].num_deleted_files, "%s: counts %lld/%lld vs %lld/%lld",
              m[i].file_name, (long long)a, (long long)d, (long long)m[i].num_added_files,
              (long long)m[i].num_deleted_files);
    pm_manifest_entries_clear(&v);
  }
}

/* The live file set a list describes (all entries merged in order), compared with the model. */
static int check_live_set(const char *dir, const pm_manifest_file_meta *m, size_t n, const model *md,
                          size_t *deletes_left) {
  pm_error err = {0};
  pm_manifest_entries v;
  pm_manifest_entries_init(&v);
  for (size_t i = 0; i < n; i++) {
    char path[512];
    manifest_path(dir, m[i].file_name, path, sizeof path);
    CHECK_OK(pm_manifest_read(pm_fs_local(), path, NULL, NULL, &v, &err), &err);
  }
  pm_entry_merge em;
  CHECK_OK(pm_entry_merge_init(&em, v.n, &err), &err);
  for (size_t i = 0; i < v.n; i++) CHECK_OK(pm_entry_merge_apply(&em, &v.items[i], "test", &err), &err);
  uint8_t *seen = calloc(md->n + 1, 1);
  int ok = 1;
  *deletes_left = 0;
  for (size_t i = 0; i < v.n; i++) {
    if (pm_entry_merge_held(&em, &v.items[i]) != &v.items[i]) continue;
    if (v.items[i].kind == PM_FILE_DELETE) {
      (*deletes_left)++;
      continue;
    }
    size_t k = file_no(v.items[i].file.file_name);
    if (k >= md->n || !md->live[k] || seen[k]) ok = 0;
    else seen[k] = 1;
  }
  for (size_t k = 0; k < md->n; k++)
    if (md->live[k] && !seen[k]) ok = 0;
  free(seen);
  pm_entry_merge_free(&em);
  pm_manifest_entries_clear(&v);
  return ok;
}

typedef struct merge_cfg {
  int64_t target, full, files_per_commit;
  int32_t min_count;
  unsigned seed;
  int partitions;
} merge_cfg;

static uint32_t rnd(unsigned *s) {
  *s = *s * 1103515245u + 12345u;
  return (*s >> 8) & 0xffffff;
}

/* Many commits as the committer makes them: base(N) = merge(base(N-1) + delta(N-1)),
 * delta(N) = this commit's ADDs and DELETEs; after each, base + delta describe the model. */
static void run_model(const merge_cfg *cfg, size_t commits, int *saw_full, int *saw_minor) {
  gen g; /* only for the partition type */
  gen_init(&g, 1);
  char *dir = make_table_dir();
  pm_path_factory pf;
  pm_path_factory_init(&pf, pm_fs_local(), dir);
  pm_manifest_merge_options o = small_opts(&g, cfg->target);
  o.full_compaction_size = cfg->full;
  o.merge_min_count = cfg->min_count;
  model md;
  model_init(&md, g.ptype);
  pm_manifest_file_metas base, delta;
  pm_manifest_file_metas_init(&base);
  pm_manifest_file_metas_init(&delta);
  unsigned seed = cfg->seed;
  pm_error err = {0};
  int bad = 0;
  size_t max_base = 0;
  for (size_t c = 0; c < commits && !bad; c++) {
    /* new base */
    size_t nin = base.n + delta.n;
    pm_manifest_file_meta *in = malloc((nin + 1) * sizeof *in);
    if (base.n) memcpy(in, base.items, base.n * sizeof *in);
    if (delta.n) memcpy(in + base.n, delta.items, delta.n * sizeof *in);
    pm_manifest_file_metas nb;
    pm_manifest_file_metas_init(&nb);
    char **nf = NULL;
    size_t nn = 0;
    CHECK_OK(pm_manifest_merge(pm_fs_local(), &pf, in, nin, &o, &nb, &nf, &nn, &err), &err);
    /* which policy ran: a full compaction leaves no DELETE in rewritten files */
    int64_t del_in = 0, del_out = 0;
    for (size_t i = 0; i < nin; i++) del_in += in[i].num_deleted_files;
    for (size_t i = 0; i < nb.n; i++) del_out += nb.items[i].num_deleted_files;
    if (nn && del_in > 0 && del_out == 0 && nb.n < nin) *saw_full = 1;
    if (nn && del_out > 0) *saw_minor = 1;
    /* every new file is in the result or fully cancelled; new_files are exactly the new names */
    for (size_t i = 0; i < nn; i++) {
      struct stat st;
      CHECK(stat(nf[i], &st) == 0);
    }
    check_metas_match_files(dir, nb.items, nb.n);
    pm_free_names(nf, nn);
    free(in);
    pm_manifest_file_metas_clear(&base);
    base = nb;
    if (base.n > max_base) max_base = base.n;
    /* this commit's delta */
    pm_manifest_entries d;
    pm_manifest_entries_init(&d);
    size_t ndel = md.n ? rnd(&seed) % 4 : 0;
    for (size_t i = 0; i < ndel; i++) {
      size_t k = rnd(&seed) % md.n;
      if (!md.live[k]) continue;
      pm_manifest_entry e = md.files[k];
      e.kind = PM_FILE_DELETE;
      CHECK_OK(pm_manifest_entries_push(&d, &e, &err), &err);
      md.live[k] = 0;
    }
    size_t nadd = 1 + rnd(&seed) % (size_t)cfg->files_per_commit;
    for (size_t i = 0; i < nadd; i++) {
      size_t k = model_new_file(&md, rnd(&seed) % (size_t)cfg->partitions);
      CHECK_OK(pm_manifest_entries_push(&d, &md.files[k], &err), &err);
    }
    pm_manifest_file_metas_clear(&delta);
    pm_manifest_file_metas_init(&delta);
    CHECK_OK(pm_manifest_write_rolling(pm_fs_local(), &pf, d.items, d.n, &o, &delta, &err), &err);
    pm_manifest_entries_clear(&d);
    /* base + delta = the model */
    size_t nall = base.n + delta.n;
    pm_manifest_file_meta *all = malloc((nall + 1) * sizeof *all);
    if (base.n) memcpy(all, base.items, base.n * sizeof *all);
    if (delta.n) memcpy(all + base.n, delta.items, delta.n * sizeof *all);
    size_t left = 0;
    if (!check_live_set(dir, all, nall, &md, &left)) {
      CHECK_MSG(0, "commit %zu: live file set differs from the model", c);
      bad = 1;
    }
    CHECK_MSG(left == 0, "commit %zu: %zu DELETEs without their ADD", c, left);
    free(all);
  }
  /* merging keeps the list short: never more than ~ (files / target) + merge-min-count */
  CHECK_MSG(max_base <= (size_t)cfg->min_count + 60, "base list grew to %zu manifests", max_base);
  pm_manifest_file_metas_clear(&base);
  pm_manifest_file_metas_clear(&delta);
  model_free(&md);
  rm_rf(dir);
  free(dir);
  gen_free(&g);
}

static void test_merge_model(void) {
  int full = 0, minor = 0;
  /* small target: groups roll often; full compaction from 40 KB of must-change manifests */
  merge_cfg a = {4 * 1024, 40 * 1024, 6, 5, 7u, 4};
  run_model(&a, 200, &full, &minor);
  merge_cfg b = {16 * 1024, 1 << 30, 3, 3, 11u, 3}; /* minor only */
  run_model(&b, 120, &full, &minor);
  merge_cfg c = {2 * 1024, 8 * 1024, 4, 30, 13u, 1}; /* frequent full compaction, one partition */
  run_model(&c, 150, &full, &minor);
  CHECK(full && minor);
}

/* Writes a manifest with the given entries, returns its meta (copied to out). */
static void write_one(pm_path_factory *pf, const pm_manifest_merge_options *o, const pm_manifest_entry *e, size_t n,
                      pm_manifest_file_metas *out) {
  pm_error err = {0};
  pm_manifest_merge_options big = *o;
  big.target_file_size = INT64_MAX;
  CHECK_OK(pm_manifest_write_rolling(pm_fs_local(), pf, e, n, &big, out, &err), &err);
}

static void test_merge_policy(void) {
  gen g;
  gen_init(&g, 1);
  char *dir = make_table_dir();
  pm_path_factory pf;
  pm_path_factory_init(&pf, pm_fs_local(), dir);
  pm_manifest_merge_options o = small_opts(&g, 1 << 20);
  o.full_compaction_size = 1 << 30;
  o.merge_min_count = 3;
  model md;
  model_init(&md, g.ptype);
  pm_error err = {0};
  pm_manifest_file_metas in;
  pm_manifest_file_metas_init(&in);
  /* m0: ADD f0 f1 (partition 1); m1: ADD f2 (partition 2); m2: DELETE f0, ADD f3 */
  size_t f0 = model_new_file(&md, 1), f1 = model_new_file(&md, 1);
  (void)f1;
  write_one(&pf, &o, &md.files[0], 2, &in);
  size_t f2 = model_new_file(&md, 2);
  write_one(&pf, &o, &md.files[f2], 1, &in);
  size_t f3 = model_new_file(&md, 1);
  pm_manifest_entry m2[2] = {md.files[f0], md.files[f3]};
  m2[0].kind = PM_FILE_DELETE;
  md.live[f0] = 0;
  write_one(&pf, &o, m2, 2, &in);
  /* 3 small manifests, merge-min-count 4: the list stays as it is, nothing written */
  o.merge_min_count = 4;
  pm_manifest_file_metas out;
  pm_manifest_file_metas_init(&out);
  char **nf = NULL;
  size_t nn = 0;
  CHECK_OK(pm_manifest_merge(pm_fs_local(), &pf, in.items, in.n, &o, &out, &nf, &nn, &err), &err);
  CHECK(out.n == 3 && nn == 0 && !strcmp(out.items[1].file_name, in.items[1].file_name));
  pm_free_names(nf, nn);
  pm_manifest_file_metas_clear(&out);
  /* merge-min-count 3: one merged manifest, the ADD/DELETE pair of f0 cancelled */
  o.merge_min_count = 3;
  pm_manifest_file_metas_init(&out);
  CHECK_OK(pm_manifest_merge(pm_fs_local(), &pf, in.items, in.n, &o, &out, &nf, &nn, &err), &err);
  CHECK(out.n == 1 && nn == 1);
  if (out.n == 1) CHECK(out.items[0].num_added_files == 3 && out.items[0].num_deleted_files == 0);
  check_metas_match_files(dir, out.items, out.n);
  size_t left = 0;
  CHECK(check_live_set(dir, out.items, out.n, &md, &left) && left == 0);
  pm_free_names(nf, nn);
  pm_manifest_file_metas_clear(&out);
  /* groups: target = size of m0 + m1 -> {m0, m1} merged (the group reached the target),
   * tail {m2} alone below merge-min-count stays, with its unmatched DELETE of f0 */
  o.target_file_size = in.items[0].file_size + in.items[1].file_size;
  pm_manifest_file_metas_init(&out);
  CHECK_OK(pm_manifest_merge(pm_fs_local(), &pf, in.items, in.n, &o, &out, &nf, &nn, &err), &err);
  CHECK(out.n == 2 && nn == 1);
  if (out.n == 2) {
    CHECK(out.items[0].num_added_files == 3 && out.items[0].num_deleted_files == 0);
    CHECK(!strcmp(out.items[1].file_name, in.items[2].file_name));
  }
  CHECK(check_live_set(dir, out.items, out.n, &md, &left) && left == 0);
  pm_free_names(nf, nn);
  pm_manifest_file_metas_clear(&out);
  /* a group where the ADD is in an earlier group: {m0}, {m1, m2} with target = size(m0):
   * the DELETE of f0 in the second group has no ADD there and is kept */
  o.target_file_size = in.items[0].file_size;
  o.merge_min_count = 2;
  pm_manifest_file_metas_init(&out);
  CHECK_OK(pm_manifest_merge(pm_fs_local(), &pf, in.items, in.n, &o, &out, &nf, &nn, &err), &err);
  CHECK(out.n == 2 && nn == 1);
  if (out.n == 2) {
    CHECK(!strcmp(out.items[0].file_name, in.items[0].file_name)); /* a single candidate stays */
    CHECK(out.items[1].num_added_files == 2 && out.items[1].num_deleted_files == 1);
  }
  CHECK(check_live_set(dir, out.items, out.n, &md, &left) && left == 0);
  pm_free_names(nf, nn);
  pm_manifest_file_metas_clear(&out);
  /* full compaction: threshold 1 byte; m1 (partition 2, no deletes, >= target) is not touched,
   * the rest is rewritten without the pair and without any DELETE */
  o.target_file_size = in.items[1].file_size;
  o.full_compaction_size = 1;
  pm_manifest_file_metas_init(&out);
  CHECK_OK(pm_manifest_merge(pm_fs_local(), &pf, in.items, in.n, &o, &out, &nf, &nn, &err), &err);
  CHECK(nn == 1 && out.n == 2);
  if (out.n == 2) {
    CHECK(!strcmp(out.items[0].file_name, in.items[1].file_name));
    CHECK(out.items[1].num_added_files == 2 && out.items[1].num_deleted_files == 0);
  }
  check_metas_match_files(dir, out.items, out.n);
  CHECK(check_live_set(dir, out.items, out.n, &md, &left) && left == 0);
  pm_free_names(nf, nn);
  pm_manifest_file_metas_clear(&out);
  /* bad options */
  o.target_file_size = 0;
  pm_manifest_file_metas_init(&out);
  CHECK_EQ_INT(pm_manifest_merge(pm_fs_local(), &pf, in.items, in.n, &o, &out, &nf, &nn, &err),
               PAIMON_ERR_INVALID_ARGUMENT);
  pm_manifest_file_metas_clear(&out);
  pm_manifest_file_metas_clear(&in);
  model_free(&md);
  rm_rf(dir);
  free(dir);
  gen_free(&g);
}

/* A merge failing at any read / create / write / fsync / publish: an error, the input files untouched,
 * and new_files lists exactly the new files visible (complete manifests). */
static void test_merge_faults(void) {
  gen g;
  gen_init(&g, 1);
  pm_error err = {0};
  pm_fs *ffs = NULL;
  CHECK_OK(pm_fault_fs_new(pm_fs_local(), &ffs, &err), &err);
  if (!ffs) return;
  char *dir = make_table_dir();
  pm_path_factory pf;
  pm_path_factory_init(&pf, pm_fs_local(), dir);
  pm_manifest_merge_options o = small_opts(&g, 40 * 1024);
  o.merge_min_count = 2;
  model md;
  model_init(&md, g.ptype);
  pm_manifest_file_metas in;
  pm_manifest_file_metas_init(&in);
  for (int m = 0; m < 12; m++) { /* 12 manifests of 60 files, some deleting earlier files */
    pm_manifest_entry e[64];
    size_t n = 0;
    if (m > 0)
      for (size_t k = (size_t)(m - 1) * 60; k < (size_t)(m - 1) * 60 + 4; k++) {
        e[n] = md.files[k];
        e[n++].kind = PM_FILE_DELETE;
        md.live[k] = 0;
      }
    for (int i = 0; i < 60; i++) {
      size_t k = model_new_file(&md, (size_t)m % 3); /* (may move md.files) */
      e[n++] = md.files[k];
    }
    write_one(&pf, &o, e, n, &in);
  }
  char **before = NULL;
  size_t n_before = list_manifests(dir, &before);
  const pm_fault_op ops[] = {PM_FAULT_OP_OPEN, PM_FAULT_OP_READ, PM_FAULT_OP_CREATE, PM_FAULT_OP_WRITE,
                             PM_FAULT_OP_FSYNC, PM_FAULT_OP_CREATE_IF_ABSENT};
  for (int full = 0; full < 2; full++) {
    o.full_compaction_size = full ? 1 : (int64_t)1 << 40;
    pm_path_factory fpf;
    pm_path_factory_init(&fpf, ffs, dir);
    pm_fault_fs_disarm(ffs);
    pm_manifest_file_metas out;
    pm_manifest_file_metas_init(&out);
    char **nf = NULL;
    size_t nn = 0;
    CHECK_OK(pm_manifest_merge(ffs, &fpf, in.items, in.n, &o, &out, &nf, &nn, &err), &err);
    uint64_t counts[6];
    for (int k = 0; k < 6; k++) counts[k] = pm_fault_fs_count(ffs, ops[k]);
    CHECK_MSG(nn >= 1 && out.n < in.n, "full %d: %zu new, %zu -> %zu manifests", full, nn, in.n, out.n);
    size_t left = 0;
    CHECK(check_live_set(dir, out.items, out.n, &md, &left));
    for (size_t i = 0; i < nn; i++) CHECK(remove(nf[i]) == 0);
    pm_free_names(nf, nn);
    pm_manifest_file_metas_clear(&out);
    int runs = 0;
    for (int k = 0; k < 6; k++) {
      uint64_t step = counts[k] > 40 ? counts[k] / 20 : 1; /* reads are many: sample them */
      for (uint64_t nth = 1; nth <= counts[k]; nth += step) {
        pm_manifest_file_metas_init(&out);
        pm_fault_rule rule = {ops[k], nth, 1, PM_FAULT_ERROR, 0};
        pm_fault_fs_arm(ffs, &rule);
        int rc = pm_manifest_merge(ffs, &fpf, in.items, in.n, &o, &out, &nf, &nn, &err);
        pm_fault_fs_disarm(ffs);
        CHECK_MSG(rc == PAIMON_ERR_IO, "%s #%llu: rc %d (%s)", pm_fault_op_name(ops[k]), (unsigned long long)nth, rc,
                  err.message);
        CHECK_EQ_INT(out.n, 0);
        char **now = NULL;
        size_t n_now = list_manifests(dir, &now);
        CHECK_MSG(n_now == n_before + nn, "%s #%llu: %zu files, %zu before, %zu reported new", pm_fault_op_name(ops[k]),
                  (unsigned long long)nth, n_now, n_before, nn);
        for (size_t i = 0; i < nn; i++) { /* complete manifests */
          pm_manifest_entries v;
          pm_manifest_entries_init(&v);
          CHECK_OK(pm_manifest_read(pm_fs_local(), nf[i], NULL, NULL, &v, &err), &err);
          pm_manifest_entries_clear(&v);
          CHECK(remove(nf[i]) == 0);
        }
        pm_free_names(nf, nn);
        pm_free_names(now, n_now);
        pm_manifest_file_metas_clear(&out);
        runs++;
      }
    }
    CHECK(runs >= 10);
  }
  /* the input is untouched and still describes the model */
  size_t left = 0;
  CHECK(check_live_set(dir, in.items, in.n, &md, &left));
  check_metas_match_files(dir, in.items, in.n);
  pm_free_names(before, n_before);
  pm_manifest_file_metas_clear(&in);
  model_free(&md);
  pm_fs_unref(ffs);
  rm_rf(dir);
  free(dir);
  gen_free(&g);
}

/* ---------------- writer schemas = Java 2.0.0's (paimon-table's reference files) ---------------- */

/* The writer schema of an Avro file must equal (as JSON) the "schema" of a reference file;
 * the header is compact (no blanks) and the codec zstandard. */
static void check_schema_is(const char *avro_path, const char *reference) {
  char ref[512];
  snprintf(ref, sizeof ref, "%s/tools/js/reference/%s", PAIMON_SHARED_DIR, reference);
  json_error_t je;
  json_t *rj = json_load_file(ref, 0, &je);
  CHECK_MSG(rj != NULL, "%s: %s", ref, je.text);
  pm_error err = {0};
  pm_avro_reader *r = NULL;
  CHECK_OK(pm_avro_reader_open_path(avro_path, &r, &err), &err);
  if (!rj || !r) {
    json_decref(rj);
    pm_avro_reader_close(r);
    return;
  }
  size_t len = 0;
  const char *js = pm_avro_reader_schema_json(r, &len);
  json_t *ours = json_loadb(js, len, 0, &je);
  CHECK_MSG(ours && json_equal(ours, json_object_get(rj, "schema")), "%s: writer schema is not %s", avro_path, reference);
  CHECK_MSG(!memchr(js, ' ', len) && !memchr(js, '\n', len), "%s: header schema not compact", avro_path);
  CHECK_EQ_STR(pm_avro_reader_codec_name(r), "zstandard");
  json_decref(ours);
  json_decref(rj);
  pm_avro_reader_close(r);
}

static void test_writer_schemas(void) {
  gen g;
  gen_init(&g, 20);
  char *dir = make_table_dir();
  pm_path_factory pf;
  pm_path_factory_init(&pf, pm_fs_local(), dir);
  pm_manifest_merge_options o = small_opts(&g, 8 << 20);
  o.write.codec = PM_CODEC_ZSTD;
  pm_manifest_file_metas out;
  pm_manifest_file_metas_init(&out);
  pm_error err = {0};
  CHECK_OK(pm_manifest_write_rolling(pm_fs_local(), &pf, g.e, g.n, &o, &out, &err), &err);
  char path[512];
  if (out.n) {
    manifest_path(dir, out.items[0].file_name, path, sizeof path);
    check_schema_is(path, "manifest.v1.3.json"); /* 2.0.0: 20 _FILE fields ending _FIRST_ROW_ID, _WRITE_COLS */
  }
  char *lp = pm_path_factory_new_manifest_list(&pf);
  CHECK_OK(pm_manifest_list_write(pm_fs_local(), lp, out.items, out.n, &o.write, NULL, &err), &err);
  check_schema_is(lp, "manifest-list.v1.4.json");
  free(lp);
  pm_index_manifest_entry ie;
  memset(&ie, 0, sizeof ie);
  ie.kind = PM_FILE_ADD;
  ie.partition = g.e[1].partition;
  ie.index_file.index_type = PM_INDEX_TYPE_HASH;
  ie.index_file.file_name = "index-0b7e4d8e-2c4f-4f0a-8d7e-3f6a9b2c1d0e-0";
  ie.index_file.file_size = 8;
  ie.index_file.row_count = 2;
  ie.index_file.dv_ranges_is_null = 1;
  char *ip = pm_path_factory_new_index_file(&pf);
  char *slash = strrchr(ip, '/');
  char ipath[600];
  snprintf(ipath, sizeof ipath, "%s/manifest/index-manifest-%s", dir, slash + 7);
  CHECK_OK(pm_index_manifest_write(pm_fs_local(), ipath, &ie, 1, &o.write, NULL, &err), &err);
  check_schema_is(ipath, "index-manifest.v2.0-spec.json");
  free(ip);
  pm_manifest_file_metas_clear(&out);
  rm_rf(dir);
  free(dir);
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
  RUN_TEST(test_writer_schemas);
  RUN_TEST(test_rolling_faults);
  RUN_TEST(test_merge_policy);
  RUN_TEST(test_merge_model);
  RUN_TEST(test_merge_faults);
  TEST_MAIN_END();
}
