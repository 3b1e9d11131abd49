/* Append write end to end through the public API: IN.parquet is read into
 * memory (paimon_file_open), then RUNS times (after a warm-up) a new table is
 * created under WAREHOUSE and every batch is written (1 thread, zstd) and
 * committed; the write + prepare_commit + commit is timed. With PARTS > 0 a
 * column p = row % PARTS (INT) is added to the data and the table is
 * partitioned by it. With STREAM_ROWS > 0 a streaming writer writes the
 * first 4 batches (4 x 65536 rows) over and over, with fresh PRNG values on
 * every pass after the first (scramble: the input does not repeat), until
 * STREAM_ROWS rows and commits once; peak RSS is reported (ru_maxrss).
 *   bench_write_table IN.parquet WAREHOUSE [RUNS] [PARTS] [STREAM_ROWS]
 * BENCH_KEEP=1 keeps the last table written (to inspect or check it).
 * Output: {"bench":"table-write",...,"min_ms":X,"rows":N,"max_rss_mb":M} */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "paimon/paimon.h"

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int fail(const paimon_error *e) {
  fprintf(stderr, "bench_write_table: %s\n", e->message);
  return 1;
}

/* ---- a struct batch with one more child "p" (INT32, row % parts) ---- */

typedef struct ext_private {
  struct ArrowArray inner; /* the original batch (its children are borrowed by the new one) */
  const void *p_buffers[2];
  int32_t *p_values;
  struct ArrowArray p_child;
  struct ArrowArray **children;
  const void *buffers[1];
} ext_private;

static void p_child_release(struct ArrowArray *a) { a->release = NULL; }

static void ext_release(struct ArrowArray *a) {
  ext_private *x = a->private_data;
  x->inner.release(&x->inner);
  free(x->p_values);
  free(x->children);
  free(x);
  a->release = NULL;
}

static int add_partition_column(struct ArrowArray *batch, int64_t first_row, int parts) {
  ext_private *x = calloc(1, sizeof *x);
  if (!x) return -1;
  x->inner = *batch;
  int64_t n = batch->length;
  x->p_values = malloc((size_t)(n ? n : 1) * sizeof *x->p_values);
  x->children = calloc((size_t)batch->n_children + 1, sizeof *x->children);
  if (!x->p_values || !x->children) return -1;
  for (int64_t i = 0; i < n; i++) x->p_values[i] = (int32_t)((first_row + i) % parts);
  x->p_buffers[0] = NULL;
  x->p_buffers[1] = x->p_values;
  x->p_child = (struct ArrowArray){.length = n, .n_buffers = 2, .buffers = x->p_buffers, .release = p_child_release};
  for (int64_t i = 0; i < batch->n_children; i++) x->children[i] = batch->children[i];
  x->children[batch->n_children] = &x->p_child;
  x->buffers[0] = NULL;
  *batch = (struct ArrowArray){.length = n,
                               .offset = 0,
                               .n_buffers = 1,
                               .n_children = x->inner.n_children + 1,
                               .buffers = x->buffers,
                               .children = x->children,
                               .release = ext_release,
                               .private_data = x};
  return 0;
}

/* ---- schema with "p" appended ---- */

static void ext_schema_release(struct ArrowSchema *s) {
  struct ArrowSchema *inner = s->private_data;
  inner->release(inner);
  free(s->children[s->n_children - 1]);
  free(s->children);
  free(inner);
  s->release = NULL;
}

static void leaf_release(struct ArrowSchema *s) { s->release = NULL; }

static int add_partition_field(struct ArrowSchema *s) {
  struct ArrowSchema *inner = malloc(sizeof *inner);
  struct ArrowSchema **ch = calloc((size_t)s->n_children + 1, sizeof *ch);
  struct ArrowSchema *p = calloc(1, sizeof *p);
  if (!inner || !ch || !p) return -1;
  *inner = *s;
  for (int64_t i = 0; i < s->n_children; i++) ch[i] = s->children[i];
  *p = (struct ArrowSchema){.format = "i", .name = "p", .flags = ARROW_FLAG_NULLABLE, .release = leaf_release};
  ch[s->n_children] = p;
  s->children = ch;
  s->n_children++;
  s->private_data = inner;
  s->release = ext_schema_release;
  return 0;
}

typedef struct data {
  struct ArrowSchema schema;
  struct ArrowArray *batches;
  size_t n;
  int64_t rows;
} data;

/* max_batches > 0: keep only the first ones (stream mode repeats them: small input, honest RSS). */
static int load(const char *path, int parts, size_t max_batches, data *d, paimon_error *err) {
  memset(d, 0, sizeof *d);
  paimon_file_read_options o;
  paimon_file_read_options_init(&o);
  o.batch_rows = 65536;
  struct ArrowArrayStream s;
  if (paimon_file_open(path, &o, &s, err)) return 1;
  if (s.get_schema(&s, &d->schema)) return 1;
  size_t cap = 64;
  d->batches = malloc(cap * sizeof *d->batches);
  for (;;) {
    if (d->n == cap) d->batches = realloc(d->batches, (cap *= 2) * sizeof *d->batches);
    if (s.get_next(&s, &d->batches[d->n])) {
      snprintf(err->message, sizeof err->message, "%s", s.get_last_error(&s));
      return 1;
    }
    if (!d->batches[d->n].release) break;
    if (max_batches && d->n == max_batches) {
      d->batches[d->n].release(&d->batches[d->n]);
      break;
    }
    if (parts > 0 && add_partition_column(&d->batches[d->n], d->rows, parts)) return 1;
    d->rows += d->batches[d->n].length;
    d->n++;
  }
  s.release(&s);
  if (parts > 0 && add_partition_field(&d->schema)) return 1;
  return 0;
}

static int create_table(paimon_catalog *cat, const char *id, const data *d, int parts, paimon_error *err) {
  paimon_schema_builder *b = NULL;
  int rc = paimon_schema_builder_from_arrow(&d->schema, &b, err);
  const char *pk[1] = {"p"};
  if (!rc && parts > 0) rc = paimon_schema_builder_partition_keys(b, pk, 1, err);
  if (!rc) rc = paimon_schema_builder_option(b, "file.compression", "zstd", err);
  if (!rc) rc = paimon_schema_builder_option(b, "threads", "1", err);
  if (!rc) rc = paimon_catalog_create_table(cat, id, b, 0, err);
  paimon_schema_builder_free(b);
  return rc;
}

/* Stream mode input that does not repeat: before every pass after the first
 * over the kept batches, their fixed-width value columns get fresh values of
 * a deterministic PRNG (splitmix64 of pass, batch, column, row) and the
 * first 4 bytes of ASCII strings fresh letters, so dictionaries, statistics
 * and compression see new data as a real 20M-row stream would (the partition
 * column p is left alone). */
static uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

static void scramble(const struct ArrowSchema *s, struct ArrowArray *a, uint64_t seed) {
  for (int64_t k = 0; k < s->n_children && k < a->n_children; k++) {
    const struct ArrowSchema *cs = s->children[k];
    struct ArrowArray *c = a->children[k];
    if ((cs->name && !strcmp(cs->name, "p")) || c->n_buffers < 2 || !c->buffers[1]) continue;
    const char *f = cs->format;
    int w = !strcmp(f, "l") || !strcmp(f, "g") || !strncmp(f, "ts", 2) ? 8
            : !strcmp(f, "i") || !strcmp(f, "f") || !strcmp(f, "tdD") ? 4
            : !strcmp(f, "s") ? 2
            : !strcmp(f, "c") ? 1
            : !strncmp(f, "d:", 2) ? 16 : 0;
    int64_t p0 = c->offset, n = c->length;
    uint64_t base = mix64(seed * 1000003u + (uint64_t)k);
    if (w) {
      uint8_t *v = (uint8_t *)(uintptr_t)c->buffers[1];
      for (int64_t i = 0; i < n; i++) {
        uint64_t r = mix64(base + (uint64_t)i);
        if (!strcmp(f, "g")) {
          double x = (double)(r >> 11) / 9007199254740992.0 * 1e6;
          memcpy(v + (p0 + i) * 8, &x, 8);
        } else if (!strcmp(f, "f")) {
          float x = (float)((double)(r >> 40) / 16777216.0 * 1e4);
          memcpy(v + (p0 + i) * 4, &x, 4);
        } else if (w == 16) {
          int64_t lo = (int64_t)(r % 1000000000000ULL), hi = 0;
          memcpy(v + (p0 + i) * 16, &lo, 8);
          memcpy(v + (p0 + i) * 16 + 8, &hi, 8);
        } else if (!strcmp(f, "tdD")) {
          int32_t x = (int32_t)(r % 40000);
          memcpy(v + (p0 + i) * 4, &x, 4);
        } else if (!strncmp(f, "ts", 2)) {
          int64_t x = (int64_t)(r % 2000000000000000ULL);
          memcpy(v + (p0 + i) * 8, &x, 8);
        } else {
          memcpy(v + (p0 + i) * w, &r, (size_t)w); /* little-endian low bytes */
        }
      }
    } else if ((!strcmp(f, "u") || !strcmp(f, "z")) && c->n_buffers == 3 && c->buffers[2]) {
      const int32_t *off = c->buffers[1];
      uint8_t *d = (uint8_t *)(uintptr_t)c->buffers[2];
      for (int64_t i = 0; i < n; i++) {
        int32_t b = off[p0 + i], e = off[p0 + i + 1];
        if (e - b < 4 || (d[b] | d[b + 1] | d[b + 2] | d[b + 3]) & 0x80) continue;
        uint64_t r = mix64(base + (uint64_t)i);
        for (int j = 0; j < 4; j++) d[b + j] = (uint8_t)('a' + (r >> (8 * j)) % 26);
      }
    }
  }
}

/* Writes the batches (repeated up to total rows when total > rows) and commits once. */
static int write_commit(paimon_catalog *cat, const char *id, const data *d, int streaming, int64_t total,
                        paimon_error *err) {
  paimon_table *t = NULL;
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  paimon_commit_messages *m = NULL;
  paimon_table_commit *c = NULL;
  int64_t ident = streaming ? 1 : PAIMON_BATCH_COMMIT_IDENTIFIER;
  int rc = paimon_catalog_get_table(cat, id, &t, err);
  if (!rc) rc = paimon_write_builder_new(t, streaming, NULL, 0, &wb, err);
  if (!rc) rc = paimon_write_builder_new_write(wb, &w, err);
  uint64_t pass = 0;
  for (int64_t written = 0; !rc && written < (total > 0 ? total : d->rows); pass++)
    for (size_t i = 0; !rc && i < d->n; i++) {
      if (total > 0 && pass > 0) scramble(&d->schema, &d->batches[i], pass * 64 + i);
      rc = paimon_table_write_arrow(w, &d->schema, &d->batches[i], err);
      written += d->batches[i].length;
      if (total > 0 && written >= total) break;
    }
  if (!rc) rc = paimon_table_write_prepare_commit(w, ident, &m, err);
  if (!rc) rc = paimon_write_builder_new_commit(wb, &c, err);
  if (!rc) rc = paimon_table_commit_commit(c, m, ident, NULL, err);
  paimon_table_commit_free(c);
  paimon_commit_messages_free(m);
  paimon_table_write_free(w);
  paimon_write_builder_free(wb);
  paimon_table_free(t);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s IN.parquet WAREHOUSE [RUNS] [PARTS] [STREAM_ROWS]\n", argv[0]);
    return 2;
  }
  int runs = argc > 3 ? atoi(argv[3]) : 5;
  int parts = argc > 4 ? atoi(argv[4]) : 0;
  int64_t stream_rows = argc > 5 ? atoll(argv[5]) : 0;
  if (runs < 1 || runs > 100) runs = 5;
  paimon_error err;
  memset(&err, 0, sizeof err);
  data d;
  if (load(argv[1], parts, stream_rows > 0 ? 4 : 0, &d, &err)) return fail(&err);
  paimon_option opts[1] = {{"warehouse", argv[2]}};
  paimon_catalog *cat = NULL;
  if (paimon_catalog_open(opts, 1, &cat, &err)) return fail(&err);
  paimon_catalog_create_database(cat, "bench", NULL, 0, 1, &err);
  double best = -1;
  int64_t rows = stream_rows > 0 ? stream_rows : d.rows;
  for (int run = 0; run <= (stream_rows > 0 ? 0 : runs); run++) {
    char id[64];
    snprintf(id, sizeof id, "bench.w_%d_%d", (int)parts, run);
    paimon_catalog_drop_table(cat, id, 1, &err);
    if (create_table(cat, id, &d, parts, &err)) return fail(&err);
    double t0 = now_ms();
    if (write_commit(cat, id, &d, stream_rows > 0, stream_rows, &err)) return fail(&err);
    double ms = now_ms() - t0;
    if ((run || stream_rows > 0) && (best < 0 || ms < best)) best = ms;
    if (!getenv("BENCH_KEEP")) paimon_catalog_drop_table(cat, id, 1, &err); /* BENCH_KEEP=1: left to inspect */
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("{\"bench\":\"table-write\",\"parts\":%d,\"min_ms\":%.3f,\"rows\":%lld,\"max_rss_mb\":%.1f}\n", parts, best,
         (long long)rows, ru.ru_maxrss / 1024.0);
  for (size_t i = 0; i < d.n; i++) d.batches[i].release(&d.batches[i]);
  free(d.batches);
  d.schema.release(&d.schema);
  paimon_catalog_free(cat);
  return 0;
}
