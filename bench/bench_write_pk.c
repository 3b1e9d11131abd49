/* Primary-key table writes through the public API (issue 12 §5), 1 thread, Parquet (zstd):
 *   bench_write_pk java WAREHOUSE [ROWS]
 *     Java's TableWriterBenchmark shape: INT key k (random 0..2^31-1) + 20 STRING columns of 10
 *     random hex chars, primary key k, bucket 1, ROWS rows (default 3M) written and committed
 *     once; prints rows/s and the ratio to Java's published 64.8K rows/s (parquet_write).
 *   bench_write_pk upsert WAREHOUSE [ROWS] [KEYS] [COMMITS]
 *     upserts: ROWS rows (default 10M) over KEYS random keys (default 1M) into 4 buckets, the
 *     same row shape, COMMITS commits (default 10); prints rows/s and the write amplification
 *     (bytes of every file the table holds afterwards / bytes of the Arrow input).
 * Input batches (65536 rows) are generated before the clock starts: value columns from a pool
 * of 8 batches, keys fresh per batch. Output: one JSON line. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench_util.h"
#include "paimon/paimon.h"

#define N_VALUES 20
#define BATCH 65536
#define POOL 8

/* CPU time (user + system) of this process: the verdict on a shared machine. */
static double cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int fail(const paimon_error *e) {
  fprintf(stderr, "bench_write_pk: %s\n", e->message);
  return 1;
}

/* ---- Arrow data ---- */

typedef struct col {
  struct ArrowArray a;
  const void *bufs[3];
  void *mem[2];
} col;

static void col_release(struct ArrowArray *a) { a->release = NULL; }
static void no_release(struct ArrowArray *a) { a->release = NULL; }

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static void hex_column(col *c, int64_t n) {
  int32_t *off = malloc((size_t)(n + 1) * 4);
  char *data = malloc((size_t)n * 10);
  static const char hex[] = "0123456789abcdef";
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
  c->a = (struct ArrowArray){.length = n, .n_buffers = 3, .buffers = c->bufs, .release = col_release};
}

/* The key column of one batch (random below key_range). */
static void key_column(col *c, int64_t n, uint64_t key_range) {
  int32_t *k = malloc((size_t)n * 4);
  for (int64_t i = 0; i < n; i++) k[i] = (int32_t)(next_rand() % key_range);
  c->mem[0] = k;
  c->mem[1] = NULL;
  c->bufs[0] = NULL;
  c->bufs[1] = k;
  c->a = (struct ArrowArray){.length = n, .n_buffers = 2, .buffers = c->bufs, .release = col_release};
}

typedef struct batch {
  struct ArrowArray a;
  struct ArrowArray *children[1 + N_VALUES];
  const void *bufs[1];
} batch;

static void child_release(struct ArrowSchema *s) { s->release = NULL; }

static void schema_release(struct ArrowSchema *s) {
  for (int64_t i = 0; i < s->n_children; i++) free(s->children[i]);
  free(s->children);
  s->release = NULL;
}

static void make_schema(struct ArrowSchema *s) {
  static char names[1 + N_VALUES][8];
  struct ArrowSchema **ch = calloc(1 + N_VALUES, sizeof *ch);
  for (int i = 0; i <= N_VALUES; i++) {
    ch[i] = calloc(1, sizeof **ch);
    if (i) snprintf(names[i], sizeof names[i], "f%d", i);
    else snprintf(names[i], sizeof names[i], "k");
    *ch[i] = (struct ArrowSchema){.format = i ? "u" : "i", .name = names[i], .flags = i ? ARROW_FLAG_NULLABLE : 0,
                                  .release = child_release};
  }
  *s = (struct ArrowSchema){.format = "+s", .name = "", .n_children = 1 + N_VALUES, .children = ch,
                            .release = schema_release};
}

static const char *write_buffer; /* spill mode: write-buffer-size */

static int create_table(paimon_catalog *cat, const char *id, int buckets, paimon_error *err) {
  paimon_schema_builder *b = NULL;
  char bk[16];
  snprintf(bk, sizeof bk, "%d", buckets);
  const char *pk[] = {"k"};
  int rc = paimon_schema_builder_new(&b, err);
  if (!rc) rc = paimon_schema_builder_column(b, "k", "INT NOT NULL", NULL, err);
  for (int i = 1; !rc && i <= N_VALUES; i++) {
    char n[8];
    snprintf(n, sizeof n, "f%d", i);
    rc = paimon_schema_builder_column(b, n, "STRING", NULL, err);
  }
  if (!rc) rc = paimon_schema_builder_primary_key(b, pk, 1, err);
  if (!rc) rc = paimon_schema_builder_option(b, "bucket", bk, err);
  if (!rc) rc = paimon_schema_builder_option(b, "file.format", "parquet", err);
  if (!rc) rc = paimon_schema_builder_option(b, "file.compression", "zstd", err);
  if (!rc && write_buffer) rc = paimon_schema_builder_option(b, "write-buffer-size", write_buffer, err);
  if (!rc && write_buffer) rc = paimon_schema_builder_option(b, "write-only", "true", err);
  if (!rc) rc = paimon_catalog_create_table(cat, id, b, 0, err);
  paimon_schema_builder_free(b);
  return rc;
}

static uint64_t dir_bytes(const char *path) {
  uint64_t total = 0;
  DIR *d = opendir(path);
  struct dirent *de;
  while (d && (de = readdir(d)) != NULL) {
    if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", path, de->d_name);
    struct stat st;
    if (lstat(p, &st)) continue;
    if (S_ISDIR(st.st_mode)) total += dir_bytes(p);
    else total += (uint64_t)st.st_size;
  }
  if (d) closedir(d);
  return total;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: bench_write_pk java|upsert|spill WAREHOUSE [ROWS] [KEYS] [COMMITS | WRITE-BUFFER-SIZE]\n");
    return 2;
  }
  int upsert = !strcmp(argv[1], "upsert");
  /* spill: ROWS (10M) over KEYS (= ROWS) random keys, bucket 1, one commit, write-buffer-size
   * (16 mb): the buffer spills (write-buffer-spillable); one value pool and keys made per batch
   * as written, so the peak RSS is the writer's (+ the ~18 MB pool) */
  int spill = !strcmp(argv[1], "spill");
  const char *wh = argv[2];
  int64_t rows = argc > 3 ? atoll(argv[3]) : upsert || spill ? 10000000 : 3000000;
  uint64_t keys = argc > 4 ? (uint64_t)atoll(argv[4]) : upsert ? 1000000 : spill ? (uint64_t)rows : 2147483647u;
  int commits = upsert ? (argc > 5 ? atoi(argv[5]) : 10) : 1;
  if (spill) write_buffer = argc > 5 ? argv[5] : "16 mb";
  int buckets = upsert ? 4 : 1;
  if (commits < 1) commits = 1;
  /* input: value pool + keys per batch */
  static col pool[POOL][N_VALUES];
  int n_pool = spill ? 1 : POOL;
  int64_t n_batches = (rows + BATCH - 1) / BATCH;
  for (int p = 0; p < n_pool; p++)
    for (int v = 0; v < N_VALUES; v++) hex_column(&pool[p][v], BATCH);
  col *kc = calloc((size_t)n_batches, sizeof *kc);
  batch *bs = calloc((size_t)n_batches, sizeof *bs);
  uint64_t input_bytes = 0;
  for (int64_t b = 0; b < n_batches; b++) {
    int64_t n = b == n_batches - 1 ? rows - b * BATCH : BATCH;
    if (!spill) key_column(&kc[b], n, keys);
    else kc[b].a.length = n;
    bs[b].children[0] = &kc[b].a;
    for (int v = 0; v < N_VALUES; v++) {
      bs[b].children[1 + v] = &pool[b % n_pool][v].a;
      input_bytes += (uint64_t)n * (10 + 4);
    }
    input_bytes += (uint64_t)n * 4;
    bs[b].bufs[0] = NULL;
    bs[b].a = (struct ArrowArray){.length = n, .n_buffers = 1, .n_children = 1 + N_VALUES, .buffers = bs[b].bufs,
                                  .children = bs[b].children, .release = no_release};
  }
  struct ArrowSchema schema;
  make_schema(&schema);
  paimon_error err = {0};
  paimon_option o[] = {{"warehouse", wh}};
  paimon_catalog *cat = NULL;
  paimon_table *t = NULL;
  char id[64];
  snprintf(id, sizeof id, "bench.pk_%s_%d", argv[1], (int)(bench_now_ms()) % 1000000);
  if (paimon_catalog_open(o, 1, &cat, &err)) return fail(&err);
  if (paimon_catalog_create_database(cat, "bench", NULL, 0, 1, &err)) return fail(&err);
  if (create_table(cat, id, buckets, &err)) return fail(&err);
  if (paimon_catalog_get_table(cat, id, &t, &err)) return fail(&err);
  double t0 = bench_now_ms(), c0 = cpu_ms();
  int64_t per_commit = (n_batches + commits - 1) / commits, b = 0;
  for (int c = 0; c < commits && b < n_batches; c++) {
    paimon_write_builder *wb = NULL;
    paimon_table_write *w = NULL;
    paimon_commit_messages *m = NULL;
    paimon_table_commit *tc = NULL;
    int rc = paimon_write_builder_new(t, 0, NULL, 0, &wb, &err);
    if (!rc) rc = paimon_write_builder_new_write(wb, &w, &err);
    for (int64_t i = 0; !rc && i < per_commit && b < n_batches; i++, b++) {
      bs[b].a.release = no_release;
      if (spill) key_column(&kc[b], kc[b].a.length, keys);
      rc = paimon_table_write_arrow(w, &schema, &bs[b].a, &err);
      if (spill) {
        free(kc[b].mem[0]);
        kc[b].mem[0] = NULL;
      }
    }
    if (!rc) rc = paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, &err);
    if (!rc) rc = paimon_write_builder_new_commit(wb, &tc, &err);
    if (!rc) rc = paimon_table_commit_commit(tc, m, PAIMON_BATCH_COMMIT_IDENTIFIER, NULL, &err);
    paimon_table_commit_free(tc);
    paimon_commit_messages_free(m);
    paimon_table_write_free(w);
    paimon_write_builder_free(wb);
    if (rc) return fail(&err);
  }
  double ms = bench_now_ms() - t0, cpu = cpu_ms() - c0;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/bench.db/%s", wh, strchr(id, '.') + 1);
  uint64_t written = dir_bytes(dir);
  double rps = rows / (ms / 1e3);
  printf("{\"bench\":\"write-pk-%s\",\"rows\":%lld,\"keys\":%llu,\"buckets\":%d,\"commits\":%d,\"ms\":%.1f,"
         "\"rows_per_s\":%.0f,\"java_ratio\":%.2f,\"input_bytes\":%llu,\"table_bytes\":%llu,\"write_amp\":%.3f,"
         "\"cpu_ms\":%.1f,\"rows_per_cpu_s\":%.0f,\"java_ratio_cpu\":%.2f,\"max_rss_mb\":%.1f}\n",
         argv[1], (long long)rows, (unsigned long long)keys, buckets, commits, ms, rps, rps / 64800.0,
         (unsigned long long)input_bytes, (unsigned long long)written, (double)written / (double)input_bytes,
         cpu, rows / (cpu / 1e3), rows / (cpu / 1e3) / 64800.0, bench_peak_rss_kb() / 1024.0);
  paimon_table_free(t);
  paimon_catalog_free(cat);
  schema.release(&schema);
  for (int64_t i = 0; i < n_batches; i++) free(kc[i].mem[0]);
  for (int p = 0; p < n_pool; p++)
    for (int v = 0; v < N_VALUES; v++) {
      free(pool[p][v].mem[0]);
      free(pool[p][v].mem[1]);
    }
  free(kc);
  free(bs);
  return 0;
}
