/* Generates minimal valid Paimon tables for the table-read benchmarks, with
 * our own writers only: Parquet data files (format/parquet writer), one
 * manifest (meta manifest encoder), manifest lists, schema-0 and snapshot-1
 * (meta JSON writers, which also write the LATEST hint).
 *
 *   gen_table WAREHOUSE append NAME ROWS FILES
 *       append table default.NAME, bucket -1 (unaware, everything in bucket-0),
 *       columns id BIGINT NOT NULL, category INT, price DOUBLE, name STRING,
 *       ts TIMESTAMP(3); ROWS rows spread evenly over FILES files, id = 0..ROWS-1.
 *   gen_table WAREHOUSE pk NAME ROWS_PER_RUN RUNS
 *       primary-key table default.NAME (PK id, bucket 1, deduplicate), columns
 *       id BIGINT NOT NULL, v1 INT, v2 DOUBLE, name STRING; RUNS level-0 files,
 *       each a sorted run over the whole key range with interleaved keys:
 *       run r holds keys r, r+RUNS, r+2*RUNS, ... (SEMANTICS.md 1.2 layout:
 *       _KEY_id, _SEQUENCE_NUMBER, _VALUE_KIND, then the table columns).
 *
 * Data are deterministic. The table directory must not exist yet. Prints one
 * JSON line describing what was written. */
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "arrow/arrow.h"
#include "arrow/builder.h"
#include "bench_util.h"
#include "data/binary_row.h"
#include "data/types.h"
#include "format/parquet/parquet_writer.h"
#include "io/file.h"
#include "meta/manifest.h"
#include "meta/schema.h"
#include "meta/snapshot.h"

#define BATCH_ROWS 65536
#define KEY_FIELD_ID_OFFSET 1073741823
#define BASE_MILLIS 1735689600000LL /* 2025-01-01T00:00:00 */

static const char *APPEND_SCHEMA =
    "{\"version\":3,\"id\":0,\"fields\":["
    "{\"id\":0,\"name\":\"id\",\"type\":\"BIGINT NOT NULL\"},"
    "{\"id\":1,\"name\":\"category\",\"type\":\"INT\"},"
    "{\"id\":2,\"name\":\"price\",\"type\":\"DOUBLE\"},"
    "{\"id\":3,\"name\":\"name\",\"type\":\"STRING\"},"
    "{\"id\":4,\"name\":\"ts\",\"type\":\"TIMESTAMP(3)\"}],"
    "\"highestFieldId\":4,\"partitionKeys\":[],\"primaryKeys\":[],"
    "\"options\":{\"bucket\":\"-1\",\"file.format\":\"parquet\"},\"timeMillis\":1735689600000}";

static const char *PK_SCHEMA =
    "{\"version\":3,\"id\":0,\"fields\":["
    "{\"id\":0,\"name\":\"id\",\"type\":\"BIGINT NOT NULL\"},"
    "{\"id\":1,\"name\":\"v1\",\"type\":\"INT\"},"
    "{\"id\":2,\"name\":\"v2\",\"type\":\"DOUBLE\"},"
    "{\"id\":3,\"name\":\"name\",\"type\":\"STRING\"}],"
    "\"highestFieldId\":3,\"partitionKeys\":[],\"primaryKeys\":[\"id\"],"
    "\"options\":{\"bucket\":\"1\",\"file.format\":\"parquet\"},\"timeMillis\":1735689600000}";

/* Serialized BinaryRow (arity prefix) of the given values, copied into arena. */
static int row_bytes(const pm_data_field *fields, const pm_value *vals, int32_t n, pm_arena *arena, pm_bytes *out,
                     pm_error *err) {
  pm_binary_row_writer w;
  PM_TRY(pm_row_writer_init(&w, n, err));
  int rc = 0;
  for (int32_t i = 0; !rc && i < n; i++) rc = pm_row_writer_write(&w, i, fields[i].type, &vals[i], err);
  pm_buf b;
  pm_buf_init(&b);
  if (!rc) rc = pm_row_writer_finish(&w, 1, &b, err);
  pm_row_writer_free(&w);
  if (!rc) {
    out->data = pm_arena_memdup(arena, b.data, b.len);
    out->len = b.len;
    if (!out->data) rc = PM_NOMEM(err);
  }
  pm_buf_free(&b);
  return rc;
}

/* Stats value of one Parquet leaf as the Paimon type wants it (Java takes
 * Parquet footer stats; strings longer than 16 bytes would be truncated, ours
 * are shorter, so longer ones just become null). */
static void stat_value(const pm_data_type *t, const pm_pq_write_column_stats *c, int is_max, pm_value *v) {
  memset(v, 0, sizeof *v);
  if (!c->has_min_max) return;
  switch (t->root) {
    case PM_DT_TINYINT:
    case PM_DT_SMALLINT:
    case PM_DT_INT:
    case PM_DT_BIGINT:
      v->kind = PM_V_INT;
      v->u.i64 = is_max ? c->max_i64 : c->min_i64;
      break;
    case PM_DT_DOUBLE:
      v->kind = PM_V_DOUBLE;
      v->u.f64 = is_max ? c->max_f64 : c->min_f64;
      break;
    case PM_DT_TIMESTAMP:
      v->kind = PM_V_TIMESTAMP;
      v->u.ts.millis = is_max ? c->max_i64 : c->min_i64;
      break;
    case PM_DT_VARCHAR: {
      size_t len = is_max ? c->max_len : c->min_len;
      if (len > 16) return;
      v->kind = PM_V_STRING;
      v->u.bytes.data = is_max ? c->max : c->min;
      v->u.bytes.len = len;
      break;
    }
    default:
      break;
  }
}

/* SimpleStats over fields[0..n) whose Parquet leaves are leaves[first..first+n). */
static int file_stats(const pm_data_field *fields, int32_t n, const pm_pq_write_result *res, size_t first,
                      pm_arena *arena, pm_simple_stats *out, pm_error *err) {
  pm_value mins[16], maxs[16];
  if (n > 16 || first + (size_t)n > res->num_columns) return pm_errorf(err, PAIMON_ERR_INTERNAL, "stats columns");
  int64_t *nulls = pm_arena_alloc(arena, sizeof(int64_t) * (size_t)n);
  if (!nulls) return PM_NOMEM(err);
  for (int32_t i = 0; i < n; i++) {
    const pm_pq_write_column_stats *c = &res->columns[first + (size_t)i];
    stat_value(fields[i].type, c, 0, &mins[i]);
    stat_value(fields[i].type, c, 1, &maxs[i]);
    nulls[i] = c->null_count;
  }
  PM_TRY(row_bytes(fields, mins, n, arena, &out->min_values, err));
  PM_TRY(row_bytes(fields, maxs, n, arena, &out->max_values, err));
  out->null_counts = nulls;
  out->n_null_counts = n;
  out->null_counts_is_null = 0;
  return 0;
}

static void entry_defaults(pm_manifest_entry *e, int32_t total_buckets) {
  memset(e, 0, sizeof *e);
  e->kind = PM_FILE_ADD;
  e->partition.data = PM_EMPTY_ROW_BYTES;
  e->partition.len = 12;
  e->bucket = 0;
  e->total_buckets = total_buckets;
  e->file.min_key.data = PM_EMPTY_ROW_BYTES;
  e->file.min_key.len = 12;
  e->file.max_key = e->file.min_key;
  pm_simple_stats_empty(&e->file.key_stats);
  pm_simple_stats_empty(&e->file.value_stats);
  e->file.schema_id = 0;
  e->file.level = 0;
  e->file.has_creation_time = 1;
  e->file.creation_time_millis = BASE_MILLIS;
  e->file.has_delete_row_count = 1;
  e->file.delete_row_count = 0;
  e->file.file_source = PM_SOURCE_APPEND;
  e->file.value_stats_cols.is_null = 1;
  e->file.write_cols.is_null = 1;
  e->file.write_cols_sequences_is_null = 1;
}

/* Writes manifest, manifest lists and snapshot 1 for entries (one APPEND commit). */
static int commit(const char *root, const pm_manifest_entry *entries, size_t n, int64_t rows, pm_error *err) {
  char dir[2048], path[2400];
  snprintf(dir, sizeof dir, "%s/manifest", root);
  PM_TRY(pm_mkdirs(dir, err));
  static const char *uuid = "3b0f5c1e-7a2d-4c59-9e11-0d6a5f2b8c40";
  pm_arena arena;
  pm_arena_init(&arena);
  pm_manifest_file_meta meta;
  int64_t size = 0;
  snprintf(path, sizeof path, "%s/manifest-%s-0", dir, uuid);
  int rc = pm_manifest_write(pm_fs_local(), path, entries, n, NULL, 0, NULL, &arena, &meta, err);
  snprintf(path, sizeof path, "%s/manifest-list-%s-0", dir, uuid);
  if (!rc) rc = pm_manifest_list_write(pm_fs_local(), path, NULL, 0, NULL, &size, err);
  int64_t base_size = size;
  snprintf(path, sizeof path, "%s/manifest-list-%s-1", dir, uuid);
  if (!rc) rc = pm_manifest_list_write(pm_fs_local(), path, &meta, 1, NULL, &size, err);
  pm_snapshot *s = NULL;
  if (!rc) rc = pm_snapshot_new(&s, err);
  if (!rc) {
    char name[128];
    s->id = 1;
    s->schema_id = 0;
    snprintf(name, sizeof name, "manifest-list-%s-0", uuid);
    s->base_manifest_list = strdup(name);
    s->base_manifest_list_size = base_size;
    s->has_base_manifest_list_size = 1;
    snprintf(name, sizeof name, "manifest-list-%s-1", uuid);
    s->delta_manifest_list = strdup(name);
    s->delta_manifest_list_size = size;
    s->has_delta_manifest_list_size = 1;
    s->commit_user = strdup("paimon-c-bench");
    s->commit_identifier = PM_BATCH_COMMIT_IDENTIFIER;
    s->commit_kind = strdup("APPEND");
    s->time_millis = BASE_MILLIS;
    s->total_record_count = rows;
    s->has_total_record_count = 1;
    s->delta_record_count = rows;
    s->has_delta_record_count = 1;
    s->changelog_record_count = 0;
    s->has_changelog_record_count = 1;
    if (!s->base_manifest_list || !s->delta_manifest_list || !s->commit_user || !s->commit_kind)
      rc = PM_NOMEM(err);
    if (!rc) rc = pm_snapshot_commit(&(pm_snapshot_manager){pm_fs_local(), root, NULL}, s, err);
  }
  pm_snapshot_free(s);
  pm_arena_free(&arena);
  return rc;
}

/* Writes one Parquet file: rows [0, rows) produced by fill(ctx, builder, row). */
typedef int (*fill_fn)(void *ctx, pm_builder *b, int64_t row, pm_error *err);

static int write_parquet(const char *path, const pm_data_field *fields, size_t n_fields, int64_t rows, fill_fn fill,
                         void *ctx, pm_pq_writer **out_writer, pm_error *err) {
  struct ArrowSchema schema;
  PM_TRY(pm_dfields_to_arrow(fields, n_fields, &schema, err));
  pm_builder *b = NULL;
  pm_pq_writer *w = NULL;
  int rc = pm_builder_new_from_schema(&schema, &b, err);
  if (!rc) rc = pm_pq_writer_open(path, &schema, NULL, &w, err);
  for (int64_t start = 0; !rc && start < rows; start += BATCH_ROWS) {
    int64_t end = start + BATCH_ROWS < rows ? start + BATCH_ROWS : rows;
    for (int64_t r = start; !rc && r < end; r++) {
      rc = fill(ctx, b, r, err);
      if (!rc) rc = pm_builder_append_valid(b, err);
    }
    struct ArrowArray batch;
    if (!rc) rc = pm_builder_finish(b, &batch, err);
    if (!rc) {
      rc = pm_pq_writer_write(w, &batch, err);
      batch.release(&batch);
    }
  }
  if (!rc) rc = pm_pq_writer_close(w, err);
  if (rc) {
    pm_pq_writer_free(w);
    w = NULL;
  }
  *out_writer = w;
  pm_builder_free(b);
  schema.release(&schema);
  return rc;
}

/* ---- append table ---- */

typedef struct append_ctx {
  int64_t first_id;
} append_ctx;

static int fill_append(void *vctx, pm_builder *b, int64_t row, pm_error *err) {
  append_ctx *c = vctx;
  int64_t id = c->first_id + row;
  char name[32];
  PM_TRY(pm_builder_append_int(pm_builder_child(b, 0), id, err));
  if (id % 50 == 7) PM_TRY(pm_builder_append_null(pm_builder_child(b, 1), err));
  else PM_TRY(pm_builder_append_int(pm_builder_child(b, 1), id % 1000, err));
  PM_TRY(pm_builder_append_double(pm_builder_child(b, 2), (double)(id % 10007) * 0.25, err));
  snprintf(name, sizeof name, "name-%" PRId64, (id * 7919) % 100000);
  PM_TRY(pm_builder_append_str(pm_builder_child(b, 3), name, err));
  return pm_builder_append_int(pm_builder_child(b, 4), BASE_MILLIS + id * 1000, err);
}

static int gen_append(const char *root, int64_t rows, int files, pm_error *err) {
  pm_table_schema *schema = NULL;
  PM_TRY(pm_schema_parse(APPEND_SCHEMA, strlen(APPEND_SCHEMA), "append schema", &schema, err));
  int rc = pm_schema_write(&(pm_schema_manager){pm_fs_local(), root, NULL}, schema, err);
  char dir[2048], path[2400];
  snprintf(dir, sizeof dir, "%s/bucket-0", root);
  if (!rc) rc = pm_mkdirs(dir, err);
  pm_manifest_entry *entries = calloc((size_t)files, sizeof *entries);
  pm_arena arena;
  pm_arena_init(&arena);
  if (!entries) rc = PM_NOMEM(err);
  int64_t first = 0;
  for (int f = 0; !rc && f < files; f++) {
    int64_t n = rows / files + (f < rows % files ? 1 : 0);
    char name[128];
    snprintf(name, sizeof name, "data-6c1d2e4f-8a9b-4c3d-b2e1-%012d-0.parquet", f);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    append_ctx ctx = {first};
    pm_pq_writer *w = NULL;
    rc = write_parquet(path, schema->fields, schema->n_fields, n, fill_append, &ctx, &w, err);
    if (rc) break;
    const pm_pq_write_result *res = pm_pq_writer_result(w);
    pm_manifest_entry *e = &entries[f];
    entry_defaults(e, -1);
    e->file.file_name = pm_arena_strdup(&arena, name);
    e->file.file_size = (int64_t)res->file_size;
    e->file.row_count = n;
    /* bucket-unaware writers number each write session from 0 */
    e->file.min_sequence_number = 0;
    e->file.max_sequence_number = n - 1;
    rc = file_stats(schema->fields, (int32_t)schema->n_fields, res, 0, &arena, &e->file.value_stats, err);
    pm_pq_writer_free(w);
    first += n;
  }
  if (!rc) rc = commit(root, entries, (size_t)files, rows, err);
  if (!rc) printf("{\"generated\":\"%s\",\"kind\":\"append\",\"rows\":%" PRId64 ",\"files\":%d}\n", root, rows, files);
  pm_arena_free(&arena);
  free(entries);
  pm_schema_free(schema);
  return rc;
}

/* ---- primary-key table ---- */

typedef struct pk_ctx {
  int run, runs;
  int64_t rows_per_run;
} pk_ctx;

static int64_t pk_key(const pk_ctx *c, int64_t row) { return row * c->runs + c->run; }

static int fill_pk(void *vctx, pm_builder *b, int64_t row, pm_error *err) {
  pk_ctx *c = vctx;
  int64_t key = pk_key(c, row);
  char name[32];
  PM_TRY(pm_builder_append_int(pm_builder_child(b, 0), key, err));                               /* _KEY_id */
  PM_TRY(pm_builder_append_int(pm_builder_child(b, 1), c->run * c->rows_per_run + row, err));  /* seq */
  PM_TRY(pm_builder_append_int(pm_builder_child(b, 2), 0, err));                                 /* +I */
  PM_TRY(pm_builder_append_int(pm_builder_child(b, 3), key, err));                               /* id */
  if (key % 50 == 7) PM_TRY(pm_builder_append_null(pm_builder_child(b, 4), err));
  else PM_TRY(pm_builder_append_int(pm_builder_child(b, 4), key % 1000, err));
  PM_TRY(pm_builder_append_double(pm_builder_child(b, 5), (double)key * 0.5, err));
  snprintf(name, sizeof name, "n-%" PRId64, (key * 7919) % 50000);
  return pm_builder_append_str(pm_builder_child(b, 6), name, err);
}

static int new_field(pm_data_field *f, int32_t id, const char *name, const char *type, pm_error *err) {
  memset(f, 0, sizeof *f);
  f->id = id;
  f->name = strdup(name);
  if (!f->name) return PM_NOMEM(err);
  return pm_dtype_parse(type, &f->type, err);
}

static int gen_pk(const char *root, int64_t rows_per_run, int runs, pm_error *err) {
  pm_table_schema *schema = NULL;
  PM_TRY(pm_schema_parse(PK_SCHEMA, strlen(PK_SCHEMA), "pk schema", &schema, err));
  int rc = pm_schema_write(&(pm_schema_manager){pm_fs_local(), root, NULL}, schema, err);
  /* physical file schema: _KEY_id, _SEQUENCE_NUMBER, _VALUE_KIND, table columns */
  pm_data_field file_fields[7];
  size_t n_file_fields = 0;
  memset(file_fields, 0, sizeof file_fields);
  if (!rc) rc = new_field(&file_fields[n_file_fields++], KEY_FIELD_ID_OFFSET + 0, "_KEY_id", "BIGINT NOT NULL", err);
  if (!rc) rc = new_field(&file_fields[n_file_fields++], 2147483646, "_SEQUENCE_NUMBER", "BIGINT NOT NULL", err);
  if (!rc) rc = new_field(&file_fields[n_file_fields++], 2147483645, "_VALUE_KIND", "TINYINT NOT NULL", err);
  for (size_t i = 0; !rc && i < schema->n_fields; i++)
    rc = pm_data_field_copy(&schema->fields[i], &file_fields[n_file_fields++], err);
  char dir[2048], path[2400];
  snprintf(dir, sizeof dir, "%s/bucket-0", root);
  if (!rc) rc = pm_mkdirs(dir, err);
  pm_manifest_entry *entries = calloc((size_t)runs, sizeof *entries);
  pm_arena arena;
  pm_arena_init(&arena);
  if (!entries) rc = PM_NOMEM(err);
  for (int r = 0; !rc && r < runs; r++) {
    char name[128];
    snprintf(name, sizeof name, "data-a41f0c6e-2b7d-4e18-9c35-%012d-0.parquet", r);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    pk_ctx ctx = {r, runs, rows_per_run};
    pm_pq_writer *w = NULL;
    rc = write_parquet(path, file_fields, n_file_fields, rows_per_run, fill_pk, &ctx, &w, err);
    if (rc) break;
    const pm_pq_write_result *res = pm_pq_writer_result(w);
    pm_manifest_entry *e = &entries[r];
    entry_defaults(e, 1);
    e->file.file_name = pm_arena_strdup(&arena, name);
    e->file.file_size = (int64_t)res->file_size;
    e->file.row_count = rows_per_run;
    e->file.min_sequence_number = r * rows_per_run;
    e->file.max_sequence_number = r * rows_per_run + rows_per_run - 1;
    pm_value kmin = {.kind = PM_V_INT, .u.i64 = pk_key(&ctx, 0)};
    pm_value kmax = {.kind = PM_V_INT, .u.i64 = pk_key(&ctx, rows_per_run - 1)};
    rc = row_bytes(&schema->fields[0], &kmin, 1, &arena, &e->file.min_key, err);
    if (!rc) rc = row_bytes(&schema->fields[0], &kmax, 1, &arena, &e->file.max_key, err);
    if (!rc) rc = file_stats(&file_fields[0], 1, res, 0, &arena, &e->file.key_stats, err);
    if (!rc) rc = file_stats(schema->fields, (int32_t)schema->n_fields, res, 3, &arena, &e->file.value_stats, err);
    pm_pq_writer_free(w);
  }
  if (!rc) rc = commit(root, entries, (size_t)runs, rows_per_run * runs, err);
  if (!rc)
    printf("{\"generated\":\"%s\",\"kind\":\"pk\",\"rows\":%" PRId64 ",\"files\":%d}\n", root, rows_per_run * runs,
           runs);
  for (size_t i = 0; i < n_file_fields; i++) pm_data_field_clear(&file_fields[i]);
  pm_arena_free(&arena);
  free(entries);
  pm_schema_free(schema);
  return rc;
}

int main(int argc, char **argv) {
  if (argc != 6 || (strcmp(argv[2], "append") && strcmp(argv[2], "pk"))) {
    fprintf(stderr,
            "usage: %s WAREHOUSE append NAME ROWS FILES\n"
            "       %s WAREHOUSE pk NAME ROWS_PER_RUN RUNS\n",
            argv[0], argv[0]);
    return 2;
  }
  int64_t rows = strtoll(argv[4], NULL, 10);
  int files = atoi(argv[5]);
  if (rows < 1 || files < 1 || files > 4096 || (argv[2][0] == 'a' && rows < files)) {
    fprintf(stderr, "gen_table: bad ROWS/FILES\n");
    return 2;
  }
  char root[1024];
  snprintf(root, sizeof root, "%s/default.db/%s", argv[1], argv[3]);
  if (pm_path_exists(root)) {
    fprintf(stderr, "gen_table: %s exists\n", root);
    return 1;
  }
  pm_error err = {0};
  double t0 = bench_now_ms();
  int rc = argv[2][0] == 'a' ? gen_append(root, rows, files, &err) : gen_pk(root, rows, files, &err);
  if (rc) {
    fprintf(stderr, "gen_table: %s\n", err.message);
    return 1;
  }
  fprintf(stderr, "gen_table: %s in %.0f ms\n", root, bench_now_ms() - t0);
  return 0;
}
