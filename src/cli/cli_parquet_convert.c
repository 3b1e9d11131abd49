/* paimon parquet convert IN OUT: re-encode a Parquet file with our reader and
 * writer (Java Paimon layout), optionally changing codec and row groups. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "paimon/file.h"

int cli_parquet_convert(int argc, char **argv);

static int convert_usage(FILE *out) {
  fputs("usage: paimon parquet convert IN.parquet OUT.parquet [--codec zstd|snappy|lz4|gzip|none] [--level N]\n"
        "                                [--row-group-rows N] [--row-group-bytes N] [--page-rows N]\n"
        "                                [--page-bytes N] [--page-v2] [--no-dictionary] [--no-crc]\n"
        "  --level: 1..22 for zstd, 1..9 for gzip (0 = the codec's default); counts are >= 1;\n"
        "  OUT must not be IN.\n",
        out);
  return out == stdout ? 0 : 2;
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
  paimon_file_write_options o;
  paimon_file_write_options_init(&o);
  o.format = "parquet";
  int gzip = 0;
  if (cli_wants_help(argc, argv)) return convert_usage(stdout);
  int level_set = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    uint64_t n = 0;
    int counted = !strcmp(a, "--row-group-rows") || !strcmp(a, "--row-group-bytes") || !strcmp(a, "--page-rows") ||
                  !strcmp(a, "--page-bytes");
    if ((!strcmp(a, "--codec") || !strcmp(a, "--level") || counted) && !v) {
      fprintf(stderr, "paimon parquet convert: %s needs a value\n", a);
      return 2;
    }
    if (!strcmp(a, "--codec")) {
      gzip = 0;
      if (!strcmp(v, "zstd")) o.compression = "zstd";
      else if (!strcmp(v, "snappy")) o.compression = "snappy";
      else if (!strcmp(v, "lz4") || !strcmp(v, "lz4_raw")) o.compression = "lz4";
      else if (!strcmp(v, "gzip")) o.compression = "gzip", gzip = 1;
      else if (!strcmp(v, "none") || !strcmp(v, "uncompressed")) o.compression = "none";
      else {
        fprintf(stderr, "paimon parquet convert: invalid value for --codec: '%s' (zstd, snappy, lz4, gzip, none)\n",
                v);
        return 2;
      }
      i++;
    } else if (!strcmp(a, "--level")) {
      if (parse_u64(v, &n) || n > 22) {
        fprintf(stderr, "paimon parquet convert: invalid value for --level: '%s' (0..22)\n", v);
        return 2;
      }
      o.compression_level = (int)n;
      level_set = 1;
      i++;
    } else if (counted) {
      if (parse_u64(v, &n) || n == 0) {
        fprintf(stderr, "paimon parquet convert: invalid value for %s: '%s' (an integer >= 1)\n", a, v);
        return 2;
      }
      if (n > (uint64_t)INT64_MAX) n = (uint64_t)INT64_MAX;
      if (!strcmp(a, "--row-group-rows")) o.row_group_rows = (int64_t)n;
      else if (!strcmp(a, "--row-group-bytes")) o.row_group_bytes = (int64_t)n;
      else if (!strcmp(a, "--page-rows")) o.page_rows = (int64_t)n;
      else o.page_bytes = (int64_t)n;
      i++;
    } else if (!strcmp(a, "--page-v2")) {
      o.data_page_v2 = 1;
    } else if (!strcmp(a, "--no-dictionary")) {
      o.no_dictionary = 1;
    } else if (!strcmp(a, "--no-crc")) {
      o.no_page_crc = 1;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "paimon parquet convert: unknown option '%s'\n", a);
      return convert_usage(stderr);
    } else if (!in) {
      in = a;
    } else if (!out) {
      out = a;
    } else {
      fprintf(stderr, "paimon parquet convert: unexpected argument '%s'\n", a);
      return convert_usage(stderr);
    }
  }
  if (level_set && o.compression_level > 9 && gzip) {
    fprintf(stderr, "paimon parquet convert: invalid value for --level: '%d' (0..9 for gzip)\n", o.compression_level);
    return 2;
  }
  if (in && out && cli_same_file(in, out)) {
    fprintf(stderr, "paimon parquet convert: OUT '%s' is the input file (write to another path)\n", out);
    return 2;
  }
  if (!in || !out) return convert_usage(stderr);

  paimon_error err;
  memset(&err, 0, sizeof err);
  struct ArrowArrayStream r;
  paimon_file_read_options ro;
  paimon_file_read_options_init(&ro);
  ro.format = "parquet";
  int rc = (int)paimon_file_open(in, &ro, &r, &err);
  paimon_file_write_result res;
  if (!rc) rc = (int)paimon_file_write_with_result(out, &o, &r, &res, &err); /* consumes r; no OUT on failure */
  if (!rc) {
    printf("%s: %lld rows, %d row groups, %llu bytes\n", out, (long long)res.rows, (int)res.row_groups,
           (unsigned long long)res.file_size);
  } else {
    fprintf(stderr, "paimon parquet convert: %s\n", err.message);
  }
  return rc ? 1 : 0;
}
