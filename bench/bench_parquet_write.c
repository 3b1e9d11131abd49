/* Parquet write throughput: IN is read completely into memory with our
 * reader, then written RUNS times (after a warm-up) with our writer; only the
 * writing is timed. Prints the best time and the output size.
 *   bench_parquet_write IN.parquet OUT.parquet zstd|snappy|gzip|lz4|none [RUNS] [LEVEL] [PAGE_ROWS]
 * LEVEL is the codec level (0 = our default, zstd 1 as Java Paimon; DuckDB's
 * COPY uses zstd level 3). PAGE_ROWS overrides the page row limit (Java's
 * default is 20000; DuckDB cuts pages by size only). */
#include <string.h>
#include <sys/stat.h>

#include "bench_util.h"
#include "format/parquet/parquet_reader.h"
#include "format/parquet/parquet_writer.h"

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s IN OUT CODEC [RUNS]\n", argv[0]);
    return 2;
  }
  int runs = argc > 4 ? atoi(argv[4]) : 5;
  if (runs < 1 || runs > 100) runs = 5;
  pm_codec codec = PM_CODEC_ZSTD;
  if (!strcmp(argv[3], "snappy")) codec = PM_CODEC_SNAPPY;
  else if (!strcmp(argv[3], "gzip")) codec = PM_CODEC_GZIP;
  else if (!strcmp(argv[3], "lz4")) codec = PM_CODEC_LZ4_RAW;
  else if (!strcmp(argv[3], "none")) codec = PM_CODEC_NONE;

  pm_error err;
  pm_pq_read_options ropt;
  pm_pq_read_options_init(&ropt);
  ropt.batch_rows = 65536;
  pm_pq_reader *r;
  if (pm_pq_reader_open_path(argv[1], &ropt, &r, &err)) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  struct ArrowSchema schema;
  if (pm_pq_reader_schema(r, &schema, &err)) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  size_t n = 0, cap = 64;
  struct ArrowArray *batches = malloc(cap * sizeof *batches);
  long long rows = 0;
  for (;;) {
    if (n == cap) batches = realloc(batches, (cap *= 2) * sizeof *batches);
    if (pm_pq_reader_next(r, &batches[n], &err)) {
      fprintf(stderr, "%s\n", err.message);
      return 1;
    }
    if (!batches[n].release) break;
    rows += batches[n].length;
    n++;
  }
  pm_pq_reader_close(r);

  pm_pq_write_options wopt;
  pm_pq_write_options_default(&wopt);
  wopt.codec = codec;
  if (argc > 5) wopt.codec_level = atoi(argv[5]);
  if (argc > 6) wopt.page_rows = (uint64_t)atoll(argv[6]);
  double t[100];
  for (int run = 0; run <= runs; run++) {
    double t0 = bench_now_ms();
    pm_pq_writer *w;
    int rc = pm_pq_writer_open(argv[2], &schema, &wopt, &w, &err);
    for (size_t i = 0; rc == 0 && i < n; i++) rc = pm_pq_writer_write(w, &batches[i], &err);
    if (rc == 0) rc = pm_pq_writer_close(w, &err);
    pm_pq_writer_free(w);
    if (rc) {
      fprintf(stderr, "%s\n", err.message);
      return 1;
    }
    if (run) t[run - 1] = bench_now_ms() - t0;
  }
  for (size_t i = 0; i < n; i++) batches[i].release(&batches[i]);
  free(batches);
  schema.release(&schema);
  bench_report("parquet-write", t, runs, rows);
  return 0;
}
