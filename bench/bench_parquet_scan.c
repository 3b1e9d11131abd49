/* Full single-threaded scan of a Parquet file with our reader: every selected
 * column decoded into Arrow arrays and discarded. Best of RUNS after a warm-up.
 *   bench_parquet_scan FILE [RUNS] [col,col,...] [--string-view] [--batch-rows N]
 * --string-view (anywhere after FILE) returns strings as Arrow string views;
 * --batch-rows sets the rows per batch (default: the reader's). */
#include <string.h>

#include "bench_util.h"
#include "format/parquet/parquet_reader.h"

static long long batch_rows; /* --batch-rows N; 0 = the reader's default */

static int scan_once(const char *path, const char *const *cols, size_t n_cols, int string_view, long long *rows) {
  pm_error err;
  pm_pq_read_options opt;
  pm_pq_read_options_init(&opt);
  opt.columns = cols;
  opt.n_columns = n_cols;
  opt.string_view = string_view;
  if (batch_rows > 0) opt.batch_rows = batch_rows;
  pm_pq_reader *r;
  if (pm_pq_reader_open_path(path, &opt, &r, &err)) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  *rows = 0;
  for (;;) {
    struct ArrowArray a;
    if (pm_pq_reader_next(r, &a, &err)) {
      fprintf(stderr, "%s\n", err.message);
      pm_pq_reader_close(r);
      return 1;
    }
    if (!a.release) break;
    *rows += a.length;
    a.release(&a);
  }
  pm_pq_reader_close(r);
  return 0;
}

int main(int argc, char **argv) {
  int string_view = 0;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--string-view")) {
      string_view = 1;
      for (int k = i; k + 1 < argc; k++) argv[k] = argv[k + 1];
      argc--;
      i--;
    } else if (!strcmp(argv[i], "--batch-rows") && i + 1 < argc) {
      batch_rows = atoll(argv[i + 1]);
      for (int k = i; k + 2 < argc; k++) argv[k] = argv[k + 2];
      argc -= 2;
      i--;
    }
  }
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE [RUNS] [col,col,...] [--string-view] [--batch-rows N]\n", argv[0]);
    return 2;
  }
  int runs = argc > 2 ? atoi(argv[2]) : 5;
  if (runs < 1) runs = 1;
  const char *cols[256];
  size_t n_cols = 0;
  if (argc > 3) {
    for (char *tok = strtok(argv[3], ","); tok && n_cols < 256; tok = strtok(NULL, ",")) cols[n_cols++] = tok;
  }
  long long rows = 0;
  double t[100];
  if (runs > 100) runs = 100;
  for (int i = 0; i <= runs; i++) {
    double t0 = bench_now_ms();
    if (scan_once(argv[1], n_cols ? cols : NULL, n_cols, string_view, &rows)) return 1;
    if (i) t[i - 1] = bench_now_ms() - t0;
  }
  bench_report("parquet-scan", t, runs, rows);
  return 0;
}
