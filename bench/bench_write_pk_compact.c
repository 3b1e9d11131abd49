/* Compaction throughput of a primary-key table (issue 12 §5), 1 thread, Parquet zstd:
 *   bench_write_pk_compact WAREHOUSE [RUN_ROWS] [KEYS] [RUNS]
 * writes RUNS commits (default 4) of RUN_ROWS rows each (default 1M) over KEYS random keys
 * (default 1M) with write-only = true, so the table holds RUNS overlapping sorted runs in
 * bucket 0; then times one full compaction (paimon_table_write_compact + commit) and reports
 * the MB/s of the files it wrote. In the same run it times a plain Parquet write
 * (paimon_file_write, zstd level 1 as Paimon's default) of as many rows of the same shape and
 * value generator, and reports compaction MB/s / raw MB/s (goal >= 0.7), by wall time and by
 * process CPU time (the verdict on a loaded machine).
 * Row shape as Java's TableWriterBenchmark: INT key k + 20 STRING columns of 10 hex chars;
 * value columns come from a pool of 8 batches of 65536 rows, keys are fresh per batch; all
 * input is generated before a clock starts. Output: one JSON line. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "paimon/file.h"
#include "paimon/paimon.h"
#include "paimon/write.h"

#define N_VALUES 20
#define BATCH 65536
#define POOL 8

static double cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int fail(const char *what, const paimon_error *e) {
  fprintf(stderr, "bench_write_pk_compact: %s: %s\n", what, e->message);
  return 1;
}

typedef struct col {
  struct ArrowArray a;
  const void *bufs[3];
  void *mem[2];
} col;

static void no_release(struct ArrowArray *a) { a->release = NULL; }
static void schema_child_release(struct ArrowSchema *s) { s->release = NULL; }

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_rand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static void strings_column(col *c, int64_t n) {
  static const char hex[] = "0123456789abcdef";
  int32_t *off = malloc((size_t)(n + 1) * sizeof *off);
  char *data = malloc((size_t)n * 10);
  for (int64_t i = 0; i < n; i++) {
    off[i] = (int32_t)(i * 10);
    uint64_t r = next_rand();
    for (int j = 0; j < 10; j++) data[i * 10 + j] = hex[(r >> (4 * j)) & 15];
  }
  off[n] = (int32_t)(n * 10);
  c->mem[0] = off;
  c->mem[1] = data;
  c->bufs[0] = NULL;
  c->bufs[1] = off;
  c->bufs[2] = data;
  c->a = (struct ArrowArray){.length = n, .n_buffers = 3, .buffers = c->bufs, .release = no_release};
}

static void key_column(col *c, int64_t n, uint64_t range) {
  int32_t *k = malloc((size_t)n * sizeof *k);
  for (int64_t i = 0; i < n; i++) k[i] = (int32_t)(next_rand() % range);
  c->mem[0] = k;
  c->mem[1] = NULL;
  c->bufs[0] = NULL;
  c->bufs[1] = k;
  c->a = (struct ArrowArray){.length = n, .n_buffers = 2, .buffers = c->bufs, .release = no_release};
}

/* One batch: its key column and pointers to a pool batch's value columns. */
typedef struct batch {
  struct ArrowArray a;
  struct ArrowArray *children[1 + N_VALUES];
  const void *bufs[1];
  col key;
} batch;

static struct ArrowSchema child_schemas[1 + N_VALUES];
static struct ArrowSchema *child_ptrs[1 + N_VALUES];
static char names[1 + N_VALUES][8];

static void schema_release(struct ArrowSchema *s) { s->release = NULL; }

static void make_schema(struct ArrowSchema *s) {
  for (int i = 0; i <= N_VALUES; i++) {
    if (i) snprintf(names[i], sizeof names[i], "f%d", i);
    else snprintf(names[i], sizeof names[i], "k");
    child_schemas[i] = (struct ArrowSchema){.format = i ? "u" : "i", .name = names[i],
                                            .flags = i ? ARROW_FLAG_NULLABLE : 0, .release = schema_child_release};
    child_ptrs[i] = &child_schemas[i];
  }
  *s = (struct ArrowSchema){.format = "+s", .name = "", .n_children = 1 + N_VALUES, .children = child_ptrs,
                            .release = schema_release};
}

static col pool[POOL][N_VALUES];

static void make_batch(batch *b, int64_t index, int64_t n, uint64_t keys) {
  key_column(&b->key, n, keys);
  b->children[0] = &b->key.a;
  for (int v = 0; v < N_VALUES; v++) b->children[1 + v] = &pool[index % POOL][v].a;
  b->bufs[0] = NULL;
  b->a = (struct ArrowArray){.length = n, .n_buffers = 1, .n_children = 1 + N_VALUES, .buffers = b->bufs,
                             .children = b->children, .release = no_release};
}

/* A stream over batches[0..n) (borrowed). */
typedef struct stream_state {
  batch *b;
  int64_t n, next;
} stream_state;

static int st_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
  (void)s;
  make_schema(out);
  return 0;
}
static int st_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
  stream_state *st = s->private_data;
  if (st->next >= st->n) {
    out->release = NULL;
    return 0;
  }
  *out = st->b[st->next++].a;
  out->release = no_release;
  return 0;
}
static const char *st_error(struct ArrowArrayStream *s) {
  (void)s;
  return "";
}
static void st_release(struct ArrowArrayStream *s) { s->release = NULL; }

static int create_table(paimon_catalog *cat, const char *id, paimon_error *err) {
  paimon_schema_builder *b = NULL;
  const char *pk[] = {"k"};
  int rc = paimon_schema_builder_new(&b, err);
  if (!rc) rc = paimon_schema_builder_column(b, "k", "INT NOT NULL", NULL, err);
  for (int i = 1; !rc && i <= N_VALUES; i++) {
    char n[8];
    snprintf(n, sizeof n, "f%d", i);
    rc = paimon_schema_builder_column(b, n, "STRING", NULL, err);
  }
  if (!rc) rc = paimon_schema_builder_primary_key(b, pk, 1, err);
  if (!rc) rc = paimon_schema_builder_option(b, "bucket", "1", err);
  if (!rc) rc = paimon_schema_builder_option(b, "file.format", "parquet", err);
  if (!rc) rc = paimon_schema_builder_option(b, "file.compression", "zstd", err);
  if (!rc) rc = paimon_schema_builder_option(b, "write-only", "true", err);
  if (!rc) rc = paimon_catalog_create_table(cat, id, b, 0, err);
  paimon_schema_builder_free(b);
  return rc;
}

/* One commit through a batch writer; compact: run a full compaction first (write-only off). */
static int commit_once(paimon_table *t, struct ArrowSchema *schema, batch *bs, int64_t n, int compact,
                       paimon_compact_metrics *mt, paimon_error *err) {
  paimon_option dyn[] = {{"write-only", "false"}};
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  paimon_commit_messages *m = NULL;
  paimon_table_commit *c = NULL;
  int rc = paimon_write_builder_new(t, 0, dyn, compact ? 1 : 0, &wb, err);
  if (!rc) rc = paimon_write_builder_new_write(wb, &w, err);
  for (int64_t i = 0; !rc && i < n; i++) {
    bs[i].a.release = no_release;
    rc = paimon_table_write_arrow(w, schema, &bs[i].a, err);
  }
  if (!rc && compact) rc = paimon_table_write_compact(w, NULL, 0, -1, 1, err);
  if (!rc) rc = paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, err);
  if (!rc) rc = paimon_write_builder_new_commit(wb, &c, err);
  if (!rc) rc = paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, NULL, err);
  if (!rc && mt) paimon_table_write_compact_metrics(w, mt);
  paimon_table_commit_free(c);
  paimon_commit_messages_free(m);
  paimon_table_write_free(w);
  paimon_write_builder_free(wb);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: bench_write_pk_compact WAREHOUSE [RUN_ROWS] [KEYS] [RUNS]\n");
    return 2;
  }
  const char *wh = argv[1];
  int64_t run_rows = argc > 2 ? atoll(argv[2]) : 1000000;
  uint64_t keys = argc > 3 ? (uint64_t)atoll(argv[3]) : 1000000;
  int runs = argc > 4 ? atoi(argv[4]) : 4;
  if (run_rows < 1 || keys < 1 || runs < 1) return 2;
  for (int p = 0; p < POOL; p++)
    for (int v = 0; v < N_VALUES; v++) strings_column(&pool[p][v], BATCH);
  int64_t per_run = (run_rows + BATCH - 1) / BATCH;
  struct ArrowSchema schema;
  make_schema(&schema);
  paimon_error err = {0};
  paimon_option o[] = {{"warehouse", wh}};
  paimon_catalog *cat = NULL;
  paimon_table *t = NULL;
  if (paimon_catalog_open(o, 1, &cat, &err)) return fail("catalog", &err);
  if (paimon_catalog_create_database(cat, "bench", NULL, 0, 1, &err)) return fail("database", &err);
  char id[64];
  snprintf(id, sizeof id, "bench.pk_compact_%d", (int)bench_now_ms() % 1000000);
  if (create_table(cat, id, &err)) return fail("create", &err);
  if (paimon_catalog_get_table(cat, id, &t, &err)) return fail("table", &err);

  /* the sorted runs: one write-only commit each */
  batch *bs = calloc((size_t)per_run, sizeof *bs);
  int64_t index = 0;
  for (int r = 0; r < runs; r++) {
    for (int64_t i = 0; i < per_run; i++, index++) {
      int64_t n = i == per_run - 1 ? run_rows - i * BATCH : BATCH;
      make_batch(&bs[i], index, n, keys);
    }
    int rc = commit_once(t, &schema, bs, per_run, 0, NULL, &err);
    for (int64_t i = 0; i < per_run; i++) free(bs[i].key.mem[0]);
    if (rc) return fail("write", &err);
  }

  /* the full compaction */
  paimon_compact_metrics mt;
  memset(&mt, 0, sizeof mt);
  double t0 = bench_now_ms(), c0 = cpu_ms();
  if (commit_once(t, &schema, NULL, 0, 1, &mt, &err)) return fail("compact", &err);
  double compact_ms = bench_now_ms() - t0, compact_cpu = cpu_ms() - c0;
  double compact_mbs = mt.bytes_written / 1e6 / (compact_ms / 1e3);

  /* the raw Parquet write of as many rows of the same shape */
  int64_t raw_rows = mt.rows_written > 0 ? mt.rows_written : run_rows;
  int64_t nb = (raw_rows + BATCH - 1) / BATCH;
  batch *rb = calloc((size_t)nb, sizeof *rb);
  for (int64_t i = 0; i < nb; i++) make_batch(&rb[i], i, i == nb - 1 ? raw_rows - i * BATCH : BATCH, keys);
  char path[4096];
  snprintf(path, sizeof path, "%s/raw-%s.parquet", wh, strchr(id, '.') + 1);
  paimon_file_write_options wo;
  paimon_file_write_options_init(&wo);
  wo.format = "parquet";
  wo.compression = "zstd";
  wo.compression_level = 1;
  stream_state st = {rb, nb, 0};
  struct ArrowArrayStream s = {.get_schema = st_schema, .get_next = st_next, .get_last_error = st_error,
                               .release = st_release, .private_data = &st};
  paimon_file_write_result res;
  t0 = bench_now_ms();
  c0 = cpu_ms();
  if (paimon_file_write_with_result(path, &wo, &s, &res, &err)) return fail("raw write", &err);
  double raw_ms = bench_now_ms() - t0, raw_cpu = cpu_ms() - c0;
  double raw_mbs = res.file_size / 1e6 / (raw_ms / 1e3);
  double compact_mbs_cpu = mt.bytes_written / 1e6 / (compact_cpu / 1e3), raw_mbs_cpu = res.file_size / 1e6 / (raw_cpu / 1e3);
  remove(path);
  printf("{\"bench\":\"write-pk-compact\",\"runs\":%d,\"run_rows\":%lld,\"keys\":%llu,\"compact_ms\":%.1f,"
         "\"tasks\":%lld,\"files_removed\":%lld,\"files_added\":%lld,\"rows_written\":%lld,\"bytes_written\":%lld,"
         "\"compact_mb_s\":%.1f,\"raw_ms\":%.1f,\"raw_rows\":%lld,\"raw_bytes\":%lld,\"raw_mb_s\":%.1f,"
         "\"ratio\":%.2f,\"compact_cpu_ms\":%.1f,\"raw_cpu_ms\":%.1f,\"ratio_cpu\":%.2f,\"max_rss_mb\":%.1f}\n",
         runs, (long long)run_rows, (unsigned long long)keys, compact_ms, (long long)mt.tasks,
         (long long)mt.files_removed, (long long)mt.files_added, (long long)mt.rows_written,
         (long long)mt.bytes_written, compact_mbs, raw_ms, (long long)raw_rows, (long long)res.file_size, raw_mbs,
         raw_mbs > 0 ? compact_mbs / raw_mbs : 0.0, compact_cpu, raw_cpu,
         raw_mbs_cpu > 0 ? compact_mbs_cpu / raw_mbs_cpu : 0.0, bench_peak_rss_kb() / 1024.0);
  for (int64_t i = 0; i < nb; i++) free(rb[i].key.mem[0]);
  free(rb);
  free(bs);
  paimon_table_free(t);
  paimon_catalog_free(cat);
  for (int p = 0; p < POOL; p++)
    for (int v = 0; v < N_VALUES; v++) {
      free(pool[p][v].mem[0]);
      free(pool[p][v].mem[1]);
    }
  return 0;
}
