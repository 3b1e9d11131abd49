/* ORC scan speed against our Parquet scan of the same data: converts a
 * Parquet file to ORC once (our Parquet reader -> our ORC writer, ZSTD unless
 * told otherwise), then times full single-threaded scans of both.
 *   bench_orc_scan FILE.parquet [RUNS] [OUT.orc] [codec]
 * Prints one JSON line with both best times and the ratio orc/parquet. */
#include <string.h>
#include <sys/stat.h>

#include "bench_util.h"
#include "format/orc/orc_reader.h"
#include "format/orc/orc_writer.h"
#include "format/parquet/parquet_reader.h"

static int convert(const char *in, const char *out, pm_codec codec) {
  pm_error err;
  pm_pq_reader *r;
  if (pm_pq_reader_open_path(in, NULL, &r, &err)) goto fail;
  struct ArrowSchema s;
  if (pm_pq_reader_schema(r, &s, &err)) goto fail;
  pm_orc_writer_options wo;
  pm_orc_writer_options_init(&wo);
  wo.codec = codec;
  pm_orc_writer *w;
  if (pm_orc_writer_open(out, &s, &wo, &w, &err)) goto fail;
  for (;;) {
    struct ArrowArray a;
    if (pm_pq_reader_next(r, &a, &err)) goto fail;
    if (!a.release) break;
    int rc = pm_orc_writer_write(w, &a, &err);
    a.release(&a);
    if (rc) goto fail;
  }
  if (pm_orc_writer_close(w, &err)) goto fail;
  s.release(&s);
  pm_pq_reader_close(r);
  return 0;
fail:
  fprintf(stderr, "convert: %s\n", err.message);
  return 1;
}

static int scan_orc(const char *path, long long *rows) {
  pm_error err;
  pm_file *f;
  pm_orc_reader *r;
  if (pm_file_open(path, &f, &err) || pm_orc_reader_open(f, NULL, &r, &err)) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  *rows = 0;
  for (;;) {
    struct ArrowArray a;
    if (pm_orc_reader_next(r, &a, &err)) {
      fprintf(stderr, "%s\n", err.message);
      return 1;
    }
    if (!a.release) break;
    *rows += a.length;
    a.release(&a);
  }
  pm_orc_reader_close(r);
  pm_file_close(f);
  return 0;
}

static int scan_parquet(const char *path, long long *rows) {
  pm_error err;
  pm_pq_reader *r;
  if (pm_pq_reader_open_path(path, NULL, &r, &err)) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  *rows = 0;
  for (;;) {
    struct ArrowArray a;
    if (pm_pq_reader_next(r, &a, &err)) {
      fprintf(stderr, "%s\n", err.message);
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
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE.parquet [RUNS] [OUT.orc] [zstd|zlib|snappy|lz4|none]\n", argv[0]);
    return 2;
  }
  int runs = argc > 2 ? atoi(argv[2]) : 5;
  if (runs < 1) runs = 1;
  if (runs > 100) runs = 100;
  char orc[4096];
  if (argc > 3) snprintf(orc, sizeof orc, "%s", argv[3]);
  else snprintf(orc, sizeof orc, "%s.orc", argv[1]);
  pm_codec codec = PM_CODEC_ZSTD;
  if (argc > 4) {
    if (!strcmp(argv[4], "zlib")) codec = PM_CODEC_DEFLATE;
    else if (!strcmp(argv[4], "snappy")) codec = PM_CODEC_SNAPPY;
    else if (!strcmp(argv[4], "lz4")) codec = PM_CODEC_LZ4_RAW;
    else if (!strcmp(argv[4], "none")) codec = PM_CODEC_NONE;
  }
  struct stat st;
  if (stat(orc, &st) != 0 && convert(argv[1], orc, codec)) return 1;
  double to[100], tp[100];
  long long rows_o = 0, rows_p = 0;
  for (int i = 0; i <= runs; i++) {
    double t0 = bench_now_ms();
    if (scan_orc(orc, &rows_o)) return 1;
    double t1 = bench_now_ms();
    if (scan_parquet(argv[1], &rows_p)) return 1;
    double t2 = bench_now_ms();
    if (i) {
      to[i - 1] = t1 - t0;
      tp[i - 1] = t2 - t1;
    }
  }
  double bo = to[0], bp = tp[0];
  for (int i = 1; i < runs; i++) {
    if (to[i] < bo) bo = to[i];
    if (tp[i] < bp) bp = tp[i];
  }
  printf("{\"orc_ms\":%.2f,\"parquet_ms\":%.2f,\"ratio\":%.3f,\"rows\":%lld,\"parquet_rows\":%lld}\n", bo, bp,
         bp > 0 ? bo / bp : 0.0, rows_o, rows_p);
  return rows_o == rows_p ? 0 : 1;
}
