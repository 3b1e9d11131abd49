/* Append-table compaction (issue 13 §6), 1 thread, Parquet zstd:
 *   bench_write_append_compact WAREHOUSE [FILES] [ROWS_PER_FILE]
 * writes FILES (default 10,000) small files of ROWS_PER_FILE rows (default 1,000) into an
 * unaware-bucket append table (one streaming prepare per file, committed 1,000 files at a time;
 * untimed), then times paimon_table_compact (plan, rewrite, commit: Java's
 * AppendCompactCoordinator bins), and in the same run writes the same rows once into a fresh
 * table of the same schema (one batch commit). Reports compact time / write time (goal <= 1.3),
 * by wall time and by process CPU time (the verdict on a loaded machine). Rows: id BIGINT + 3
 * STRING columns of 10 hex chars from a pool of 16 batches. Output: one JSON line. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "paimon/compact.h"
#include "paimon/paimon.h"
#include "paimon/write.h"

#define N_STR 3
#define POOL 16

static double cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int fail(const char *what, const paimon_error *e) {
  fprintf(stderr, "bench_write_append_compact: %s: %s\n", what, e->message);
  return 1;
}

static void no_release(struct ArrowArray *a) { a->release = NULL; }
static void schema_release(struct ArrowSchema *s) { s->release = NULL; }

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_rand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

typedef struct batch {
  struct ArrowArray a, cols[1 + N_STR];
  struct ArrowArray *children[1 + N_STR];
  const void *bufs[1 + N_STR][3];
  void *mem[1 + 2 * N_STR];
} batch;

static void make_batch(batch *b, int64_t n) {
  int64_t *ids = malloc((size_t)n * sizeof *ids);
  for (int64_t i = 0; i < n; i++) ids[i] = (int64_t)(next_rand() >> 1);
  b->mem[0] = ids;
  b->bufs[0][0] = NULL;
  b->bufs[0][1] = ids;
  b->cols[0] = (struct ArrowArray){.length = n, .n_buffers = 2, .buffers = b->bufs[0], .release = no_release};
  static const char hex[] = "0123456789abcdef";
  for (int c = 0; c < N_STR; c++) {
    int32_t *off = malloc((size_t)(n + 1) * sizeof *off);
    char *data = malloc((size_t)n * 10);
    for (int64_t i = 0; i < n; i++) {
      off[i] = (int32_t)(i * 10);
      uint64_t r = next_rand();
      for (int j = 0; j < 10; j++) data[i * 10 + j] = hex[(r >> (4 * j)) & 15];
    }
    off[n] = (int32_t)(n * 10);
    b->mem[1 + 2 * c] = off;
    b->mem[2 + 2 * c] = data;
    b->bufs[1 + c][0] = NULL;
    b->bufs[1 + c][1] = off;
    b->bufs[1 + c][2] = data;
    b->cols[1 + c] =
        (struct ArrowArray){.length = n, .n_buffers = 3, .buffers = b->bufs[1 + c], .release = no_release};
  }
  for (int c = 0; c <= N_STR; c++) b->children[c] = &b->cols[c];
  static const void *none[1] = {NULL};
  b->a = (struct ArrowArray){.length = n, .n_buffers = 1, .n_children = 1 + N_STR, .buffers = none,
                             .children = b->children, .release = no_release};
}

static struct ArrowSchema kids[1 + N_STR];
static struct ArrowSchema *kid_ptrs[1 + N_STR];
static const char *names[1 + N_STR] = {"id", "s1", "s2", "s3"};

static void make_schema(struct ArrowSchema *s) {
  for (int i = 0; i <= N_STR; i++) {
    kids[i] = (struct ArrowSchema){.format = i ? "u" : "l", .name = names[i], .flags = ARROW_FLAG_NULLABLE,
                                   .release = schema_release};
    kid_ptrs[i] = &kids[i];
  }
  *s = (struct ArrowSchema){.format = "+s", .name = "", .n_children = 1 + N_STR, .children = kid_ptrs,
                            .release = schema_release};
}

static int create_table(paimon_catalog *cat, const char *id, paimon_error *err) {
  paimon_schema_builder *b = NULL;
  int rc = paimon_schema_builder_new(&b, err);
  if (!rc) rc = paimon_schema_builder_column(b, "id", "BIGINT", NULL, err);
  for (int i = 1; !rc && i <= N_STR; i++) rc = paimon_schema_builder_column(b, names[i], "STRING", NULL, err);
  if (!rc) rc = paimon_schema_builder_option(b, "bucket", "-1", err);
  if (!rc) rc = paimon_schema_builder_option(b, "file.format", "parquet", err);
  if (!rc) rc = paimon_schema_builder_option(b, "file.compression", "zstd", err);
  if (!rc) rc = paimon_catalog_create_table(cat, id, b, 0, err);
  paimon_schema_builder_free(b);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: bench_write_append_compact WAREHOUSE [FILES] [ROWS_PER_FILE]\n");
    return 2;
  }
  const char *wh = argv[1];
  int64_t files = argc > 2 ? atoll(argv[2]) : 10000, rows = argc > 3 ? atoll(argv[3]) : 1000;
  if (files < 2 || rows < 1) return 2;
  batch *pool = calloc(POOL, sizeof *pool);
  for (int p = 0; p < POOL; p++) make_batch(&pool[p], rows);
  struct ArrowSchema schema;
  make_schema(&schema);
  paimon_error err = {0};
  paimon_option o[] = {{"warehouse", wh}};
  paimon_catalog *cat = NULL;
  if (paimon_catalog_open(o, 1, &cat, &err)) return fail("catalog", &err);
  if (paimon_catalog_create_database(cat, "bench", NULL, 0, 1, &err)) return fail("database", &err);
  char small_id[64], fresh_id[64];
  int tag = (int)bench_now_ms() % 1000000;
  snprintf(small_id, sizeof small_id, "bench.append_small_%d", tag);
  snprintf(fresh_id, sizeof fresh_id, "bench.append_fresh_%d", tag);
  paimon_table *small = NULL, *fresh = NULL;
  if (create_table(cat, small_id, &err) || create_table(cat, fresh_id, &err)) return fail("create", &err);
  if (paimon_catalog_get_table(cat, small_id, &small, &err) || paimon_catalog_get_table(cat, fresh_id, &fresh, &err))
    return fail("table", &err);

  /* the small files: one streaming prepare each, committed 1,000 at a time (untimed) */
  double s0 = bench_now_ms();
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  paimon_table_commit *c = NULL;
  if (paimon_write_builder_new(small, 1, NULL, 0, &wb, &err) || paimon_write_builder_new_write(wb, &w, &err) ||
      paimon_write_builder_new_commit(wb, &c, &err))
    return fail("small writer", &err);
  paimon_commit_messages *acc = NULL;
  for (int64_t f = 0; f < files; f++) {
    pool[f % POOL].a.release = no_release;
    paimon_commit_messages *m = NULL;
    if (paimon_table_write_arrow(w, &schema, &pool[f % POOL].a, &err) ||
        paimon_table_write_prepare_commit(w, f, &m, &err))
      return fail("small write", &err);
    if (!acc) acc = m;
    else if (paimon_commit_messages_merge(acc, &m, &err)) return fail("merge", &err);
    if ((f + 1) % 1000 == 0 || f + 1 == files) {
      if (paimon_table_commit_commit(c, acc, f, NULL, &err)) return fail("small commit", &err);
      paimon_commit_messages_free(acc);
      acc = NULL;
    }
  }
  paimon_table_commit_free(c);
  paimon_table_write_free(w);
  paimon_write_builder_free(wb);
  double setup_ms = bench_now_ms() - s0;

  /* the compaction */
  paimon_compact_result r;
  double t0 = bench_now_ms(), c0 = cpu_ms();
  if (paimon_table_compact(small, NULL, &r, &err)) return fail("compact", &err);
  double compact_ms = bench_now_ms() - t0, compact_cpu = cpu_ms() - c0;

  /* the same rows written once */
  t0 = bench_now_ms();
  c0 = cpu_ms();
  wb = NULL;
  w = NULL;
  c = NULL;
  paimon_commit_messages *m = NULL;
  if (paimon_write_builder_new(fresh, 0, NULL, 0, &wb, &err) || paimon_write_builder_new_write(wb, &w, &err))
    return fail("fresh writer", &err);
  for (int64_t f = 0; f < files; f++) {
    pool[f % POOL].a.release = no_release;
    if (paimon_table_write_arrow(w, &schema, &pool[f % POOL].a, &err)) return fail("fresh write", &err);
  }
  if (paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, &err) ||
      paimon_write_builder_new_commit(wb, &c, &err) ||
      paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, NULL, &err))
    return fail("fresh commit", &err);
  int64_t fresh_files = paimon_commit_messages_file_count(m);
  double write_ms = bench_now_ms() - t0, write_cpu = cpu_ms() - c0;
  paimon_table_commit_free(c);
  paimon_commit_messages_free(m);
  paimon_table_write_free(w);
  paimon_write_builder_free(wb);

  printf("{\"bench\":\"write-append-compact\",\"files\":%lld,\"rows_per_file\":%lld,\"setup_ms\":%.1f,"
         "\"compact_ms\":%.1f,\"compact_cpu_ms\":%.1f,\"tasks\":%lld,\"files_removed\":%lld,\"files_added\":%lld,"
         "\"rows_written\":%lld,\"bytes_written\":%lld,\"write_ms\":%.1f,\"write_cpu_ms\":%.1f,\"write_files\":%lld,"
         "\"ratio\":%.2f,\"ratio_cpu\":%.2f,\"max_rss_mb\":%.1f}\n",
         (long long)files, (long long)rows, setup_ms, compact_ms, compact_cpu, (long long)r.metrics.tasks,
         (long long)r.metrics.files_removed, (long long)r.metrics.files_added, (long long)r.metrics.rows_written,
         (long long)r.metrics.bytes_written, write_ms, write_cpu, (long long)fresh_files,
         write_ms > 0 ? compact_ms / write_ms : 0.0, write_cpu > 0 ? compact_cpu / write_cpu : 0.0,
         bench_peak_rss_kb() / 1024.0);
  paimon_table_free(small);
  paimon_table_free(fresh);
  paimon_catalog_free(cat);
  for (int p = 0; p < POOL; p++)
    for (int k = 0; k < 1 + 2 * N_STR; k++) free(pool[p].mem[k]);
  free(pool);
  return 0;
}
