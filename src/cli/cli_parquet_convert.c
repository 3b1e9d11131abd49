/* paimon parquet convert IN OUT: re-encode a Parquet file with our reader and
 * writer (Java Paimon layout), optionally changing codec and row groups. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow.h"
#include "cli/cli.h"
#include "format/parquet/parquet_reader.h"
#include "format/parquet/parquet_writer.h"

int cli_parquet_convert(int argc, char **argv);

static int convert_usage(void) {
  fputs("usage: paimon parquet convert IN.parquet OUT.parquet [--codec zstd|snappy|lz4|gzip|none] [--level N]\n"
        "                                [--row-group-rows N] [--row-group-bytes N] [--page-rows N]\n"
        "                                [--page-bytes N] [--page-v2] [--no-dictionary] [--no-crc]\n",
        stderr);
  return 2;
}

static int parse_u64(const char *s, uint64_t *out) {
  char *end = NULL;
  unsigned long long v = strtoull(s, &end, 10);
  if (!end || *end || end == s || s[0] == '-') return -1;
  *out = v;
  return 0;
}

int cli_parquet_convert(int argc, char **argv) {
  const char *in = NULL, *out = NULL;
  pm_pq_write_options o;
  pm_pq_write_options_default(&o);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    uint64_t n = 0;
    if (!strcmp(a, "--codec") && v) {
      if (!strcmp(v, "zstd")) o.codec = PM_CODEC_ZSTD;
      else if (!strcmp(v, "snappy")) o.codec = PM_CODEC_SNAPPY;
      else if (!strcmp(v, "lz4") || !strcmp(v, "lz4_raw")) o.codec = PM_CODEC_LZ4_RAW;
      else if (!strcmp(v, "gzip")) o.codec = PM_CODEC_GZIP;
      else if (!strcmp(v, "none") || !strcmp(v, "uncompressed")) o.codec = PM_CODEC_NONE;
      else {
        fprintf(stderr, "paimon parquet convert: unknown codec '%s'\n", v);
        return 2;
      }
      i++;
    } else if (!strcmp(a, "--level") && v && parse_u64(v, &n) == 0 && n <= 22) {
      o.codec_level = (int)n;
      i++;
    } else if (!strcmp(a, "--row-group-rows") && v && parse_u64(v, &n) == 0) {
      o.row_group_rows = n;
      i++;
    } else if (!strcmp(a, "--row-group-bytes") && v && parse_u64(v, &n) == 0 && n > 0) {
      o.row_group_bytes = n;
      i++;
    } else if (!strcmp(a, "--page-rows") && v && parse_u64(v, &n) == 0 && n > 0) {
      o.page_rows = n;
      i++;
    } else if (!strcmp(a, "--page-bytes") && v && parse_u64(v, &n) == 0 && n > 0) {
      o.page_bytes = n;
      i++;
    } else if (!strcmp(a, "--page-v2")) {
      o.data_page_v2 = 1;
    } else if (!strcmp(a, "--no-dictionary")) {
      o.dictionary = 0;
    } else if (!strcmp(a, "--no-crc")) {
      o.page_crc = 0;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "paimon parquet convert: bad option '%s'\n", a);
      return convert_usage();
    } else if (!in) {
      in = a;
    } else if (!out) {
      out = a;
    } else {
      return convert_usage();
    }
  }
  if (!in || !out) return convert_usage();

  pm_error err;
  memset(&err, 0, sizeof err);
  pm_pq_read_options ro;
  pm_pq_read_options_init(&ro);
  pm_pq_reader *r = NULL;
  pm_pq_writer *w = NULL;
  struct ArrowSchema schema;
  memset(&schema, 0, sizeof schema);
  int rc = pm_pq_reader_open_path(in, &ro, &r, &err);
  if (!rc) rc = pm_pq_reader_schema(r, &schema, &err);
  if (!rc) rc = pm_pq_writer_open(out, &schema, &o, &w, &err);
  while (!rc) {
    struct ArrowArray batch;
    memset(&batch, 0, sizeof batch);
    rc = pm_pq_reader_next(r, &batch, &err);
    if (rc || !batch.release) break;
    rc = pm_pq_writer_write(w, &batch, &err);
    batch.release(&batch);
  }
  if (!rc) rc = pm_pq_writer_close(w, &err);
  if (!rc) {
    const pm_pq_write_result *res = pm_pq_writer_result(w);
    printf("%s: %lld rows, %d row groups, %llu bytes\n", out, (long long)res->num_rows, res->num_row_groups,
           (unsigned long long)res->file_size);
  } else {
    fprintf(stderr, "paimon parquet convert: %s\n", err.message);
  }
  pm_pq_writer_free(w); /* discards OUT unless closed successfully */
  if (schema.release) schema.release(&schema);
  pm_pq_reader_close(r);
  return rc ? 1 : 0;
}
