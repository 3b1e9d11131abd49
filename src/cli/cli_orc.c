/* paimon orc schema|meta|cat|scan|convert */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arrow/arrow.h"
#include "cli/print/print.h"
#include "cli/cli.h"
#include "cli/cli_output.h"
#include "format/orc/orc_reader.h"
#include "io/file.h"
#include "paimon/file.h"

static void orc_usage(FILE *f) {
  fputs("usage: paimon orc schema FILE\n"
        "       paimon orc meta FILE\n"
        "       paimon orc cat FILE [--select a,b] [--limit N] [--format table|jsonl|csv]\n"
        "           [--max-width N | --no-truncate]   (format: table on a terminal, else jsonl)\n"
        "       paimon orc scan FILE [--select a,b] [--runs N]\n"
        "       paimon orc convert IN OUT [--codec zstd|zlib|snappy|lz4|none]\n"
        "         (IN or OUT ending in .parquet is read/written as Parquet, else ORC)\n",
        f);
}

static int fail(const char *what, const pm_error *err) {
  fprintf(stderr, "paimon orc %s: %s\n", what, err->message);
  return 1;
}

/* Splits "a,b,c" into a malloc'd array of pointers into a malloc'd copy. */
static char **split_list(const char *s, size_t *n, char **storage) {
  *storage = strdup(s);
  if (!*storage) return NULL;
  size_t cap = 1;
  for (const char *p = s; *p; p++) cap += *p == ',';
  char **out = calloc(cap, sizeof *out);
  if (!out) return NULL;
  *n = 0;
  for (char *tok = strtok(*storage, ","); tok; tok = strtok(NULL, ",")) out[(*n)++] = tok;
  return out;
}

static void print_indent(int depth) {
  for (int i = 0; i < depth; i++) fputs("  ", stdout);
}

static void print_type(const pm_orc_reader *r, uint32_t id, int depth) {
  const pm_orc_column_info *c = pm_orc_reader_column(r, id);
  print_indent(depth);
  printf("%u %s%s%s", id, c->name[0] ? c->name : "", c->name[0] ? ": " : "", pm_orc_kind_name(c->kind));
  if (c->kind == PM_ORC_DECIMAL) printf("(%u,%u)", c->precision, c->scale);
  if (c->kind == PM_ORC_CHAR || c->kind == PM_ORC_VARCHAR) printf("(%u)", c->max_length);
  size_t na = pm_orc_reader_column_attribute_count(r, id);
  for (size_t i = 0; i < na; i++) {
    const char *k, *v;
    pm_orc_reader_column_attribute(r, id, i, &k, &v);
    printf(" %s=%s", k, v);
  }
  putchar('\n');
  for (uint32_t i = 0; i < c->n_children; i++) print_type(r, c->children[i], depth + 1);
}

static void print_stats(const pm_orc_column_stats *s) {
  printf("values=%llu", (unsigned long long)s->num_values);
  if (s->has_null >= 0) printf(" has_null=%s", s->has_null ? "true" : "false");
  if (s->null_count >= 0) printf(" nulls=%lld", (long long)s->null_count);
  if (s->has_int) printf(" min=%lld max=%lld", (long long)s->min_int, (long long)s->max_int);
  if (s->has_double) printf(" min=%.17g max=%.17g", s->min_double, s->max_double);
  if (s->has_bytes) printf(" min=\"%.*s\" max=\"%.*s\"", (int)s->min_len, s->min_bytes, (int)s->max_len, s->max_bytes);
  if (s->has_decimal) printf(" min=%s max=%s", s->min_decimal, s->max_decimal);
  if (s->has_timestamp)
    printf(" min_ms=%lld(+%dns) max_ms=%lld(+%dns)", (long long)s->min_ts_millis, (int)s->min_ts_nanos,
           (long long)s->max_ts_millis, (int)s->max_ts_nanos);
}

static int cmd_meta(pm_orc_reader *r, pm_error *err) {
  printf("rows: %llu\n", (unsigned long long)pm_orc_reader_num_rows(r));
  printf("compression: %s (block size %llu)\n", pm_orc_reader_compression_name(r),
         (unsigned long long)pm_orc_reader_compression_block_size(r));
  printf("writer version: %u\n", pm_orc_reader_writer_version(r));
  printf("software version: %s\n", pm_orc_reader_software_version(r));
  printf("row index stride: %u\n", pm_orc_reader_row_index_stride(r));
  size_t nm = pm_orc_reader_user_metadata_count(r);
  for (size_t i = 0; i < nm; i++) {
    const char *k;
    const uint8_t *v;
    size_t vl;
    pm_orc_reader_user_metadata(r, i, &k, &v, &vl);
    printf("metadata: %s (%zu bytes)\n", k, vl);
  }
  puts("types:");
  print_type(r, 0, 1);
  size_t nc = pm_orc_reader_num_columns(r);
  puts("file statistics:");
  for (size_t c = 0; c < nc; c++) {
    pm_orc_column_stats s;
    if (pm_orc_reader_file_stats(r, c, &s, err) != 0) continue;
    printf("  column %zu: ", c);
    print_stats(&s);
    putchar('\n');
  }
  size_t ns = pm_orc_reader_num_stripes(r);
  pm_orc_encoding *enc = calloc(nc ? nc : 1, sizeof *enc);
  uint32_t *dsz = calloc(nc ? nc : 1, sizeof *dsz);
  if (!enc || !dsz) {
    free(enc);
    free(dsz);
    return PM_NOMEM(err);
  }
  for (size_t i = 0; i < ns; i++) {
    const pm_orc_stripe_info *s = pm_orc_reader_stripe(r, i);
    printf("stripe %zu: offset=%llu index=%llu data=%llu footer=%llu rows=%llu\n", i, (unsigned long long)s->offset,
           (unsigned long long)s->index_length, (unsigned long long)s->data_length,
           (unsigned long long)s->footer_length, (unsigned long long)s->num_rows);
    if (pm_orc_reader_stripe_encodings(r, i, enc, dsz, err) == 0) {
      printf("  encodings:");
      for (size_t c = 0; c < nc; c++) {
        printf(" %zu:%s", c, pm_orc_encoding_name(enc[c]));
        if (enc[c] == PM_ORC_ENC_DICTIONARY || enc[c] == PM_ORC_ENC_DICTIONARY_V2) printf("[%u]", dsz[c]);
      }
      putchar('\n');
    } else {
      free(enc);
      free(dsz);
      return err->code;
    }
    for (size_t c = 0; c < nc; c++) {
      pm_orc_column_stats st;
      if (pm_orc_reader_stripe_stats(r, i, c, &st, err) != 0) break;
      printf("  column %zu: ", c);
      print_stats(&st);
      putchar('\n');
    }
  }
  free(enc);
  free(dsz);
  pm_error_clear(err);
  return 0;
}

static int stream_error(struct ArrowArrayStream *s, pm_error *err) {
  const char *m = s->get_last_error(s);
  return pm_errorf(err, PAIMON_ERR_IO, "%s", m ? m : "read failed");
}

/* Opens path as a stream (paimon/file.h) in format fmt with --select and --limit. */
static int open_stream(const char *path, const char *fmt, const char *select, long long limit,
                       struct ArrowArrayStream *s, pm_error *err) {
  char **cols = NULL, *storage = NULL;
  size_t ncols = 0;
  if (select && !(cols = split_list(select, &ncols, &storage))) {
    free(storage);
    return PM_NOMEM(err);
  }
  paimon_file_read_options o;
  paimon_file_read_options_init(&o);
  o.format = fmt;
  o.columns = (const char *const *)cols;
  o.n_columns = ncols;
  o.limit = limit;
  int rc = (int)paimon_file_open(path, &o, s, err);
  free(cols);
  free(storage);
  return rc;
}

/* Decodes every selected column completely and discards it; with runs > 1
 * the scan repeats and the fastest run is reported (as paimon parquet scan). */
static int cmd_scan(const char *path, const char *select, int runs, pm_error *err) {
  double best = -1;
  long long rows = 0;
  int rc = 0;
  for (int run = 0; run < runs && rc == 0; run++) {
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct ArrowArrayStream s;
    rc = open_stream(path, "orc", select, -1, &s, err);
    rows = 0;
    while (!rc) {
      struct ArrowArray a;
      if ((rc = s.get_next(&s, &a) ? stream_error(&s, err) : 0) || !a.release) break;
      rows += a.length;
      a.release(&a);
    }
    if (s.release) s.release(&s);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    if (best < 0 || ms < best) best = ms;
  }
  if (rc == 0) printf("rows=%lld elapsed_ms=%.3f\n", rows, best);
  return rc;
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* ORC or Parquet in, ORC or Parquet out (chosen by the .parquet suffix). */
static int cmd_convert(const char *in, const char *out, const char *codec_name, pm_error *err) {
  const char *codec = codec_name ? codec_name : "zstd";
  if (strcmp(codec, "zstd") && strcmp(codec, "zlib") && strcmp(codec, "snappy") && strcmp(codec, "lz4") &&
      strcmp(codec, "none"))
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "unknown codec %s", codec_name);
  struct ArrowArrayStream s;
  PM_TRY(open_stream(in, ends_with(in, ".parquet") ? "parquet" : "orc", NULL, -1, &s, err));
  paimon_file_write_options wo;
  paimon_file_write_options_init(&wo);
  wo.format = ends_with(out, ".parquet") ? "parquet" : "orc";
  wo.compression = codec; /* zlib: ORC's ZLIB, Parquet's GZIP */
  return (int)paimon_file_write(out, &wo, &s, NULL, err); /* consumes s */
}

/* Prints the rows (--select, --limit) with the shared printer. */
static int cmd_cat(const char *path, const char *select, long long limit, const cli_output *out, pm_error *err) {
  struct ArrowArrayStream s;
  PM_TRY(open_stream(path, "orc", select, limit, &s, err));
  struct ArrowSchema schema;
  memset(&schema, 0, sizeof schema);
  int rc = s.get_schema(&s, &schema) ? stream_error(&s, err) : 0;
  pm_printer *p = NULL;
  if (!rc) {
    pm_print_options po;
    memset(&po, 0, sizeof po);
    cli_output_apply(out, &po);
    rc = pm_printer_new(&schema, &po, &p, err);
  }
  while (!rc) {
    struct ArrowArray a;
    if ((rc = s.get_next(&s, &a) ? stream_error(&s, err) : 0) || !a.release) break;
    rc = pm_printer_print(p, &a, stdout, err);
    a.release(&a);
  }
  if (rc == 0) rc = pm_printer_finish_file(p, stdout, err);
  pm_printer_free(p);
  if (schema.release) schema.release(&schema);
  s.release(&s);
  return rc;
}

int cli_orc_main(int argc, char **argv) {
  if (argc < 2 || cli_wants_help(argc, argv)) {
    orc_usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const char *cmd = argv[1];
  const char *file = NULL, *out_path = NULL, *select = NULL, *codec_name = NULL;
  long long limit = -1;
  int runs = 1;
  cli_output out;
  cli_output_init(&out);
  int out_opts = 0;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--select") && i + 1 < argc) select = argv[++i];
    else if (!strcmp(argv[i], "--limit") && i + 1 < argc) {
      char *end;
      errno = 0;
      limit = strtoll(argv[++i], &end, 10);
      if (!*argv[i] || *end || limit < 0 || errno == ERANGE) {
        fprintf(stderr, "paimon orc: invalid value for --limit: '%s' (an integer >= 0)\n", argv[i]);
        return 2;
      }
    } else if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
      char *end;
      long v = strtol(argv[++i], &end, 10);
      if (!*argv[i] || *end || v < 1 || v > 1000) {
        fprintf(stderr, "paimon orc: invalid value for --runs: '%s' (1..1000)\n", argv[i]);
        return 2;
      }
      runs = (int)v;
    }
    else if (!strcmp(argv[i], "--format") || !strcmp(argv[i], "--max-width") || !strcmp(argv[i], "--no-truncate")) {
      if (cli_output_arg(&out, "orc cat", argc, argv, &i) <= 0) return 2;
      out_opts = 1;
    }
    else if (!strcmp(argv[i], "--codec") && i + 1 < argc) codec_name = argv[++i];
    else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "paimon orc: unknown option %s\n", argv[i]);
      orc_usage(stderr);
      return 2;
    } else if (!file) file = argv[i];
    else if (!out_path) out_path = argv[i];
    else {
      orc_usage(stderr);
      return 2;
    }
  }
  if (!file || (strcmp(cmd, "schema") && strcmp(cmd, "meta") && strcmp(cmd, "cat") && strcmp(cmd, "scan") &&
                strcmp(cmd, "convert")) ||
      (!strcmp(cmd, "convert") && !out_path)) {
    orc_usage(stderr);
    return 2;
  }
  if (out_opts && strcmp(cmd, "cat")) {
    fprintf(stderr, "paimon orc %s: --format, --max-width and --no-truncate apply to orc cat only\n", cmd);
    return 2;
  }
  pm_error err;
  pm_error_clear(&err);
  if (!strcmp(cmd, "convert") && cli_same_file(file, out_path)) {
    fprintf(stderr, "paimon orc convert: OUT '%s' is the input file (write to another path)\n", out_path);
    return 2;
  }
  if (!strcmp(cmd, "convert")) return cmd_convert(file, out_path, codec_name, &err) ? fail(cmd, &err) : 0;
  if (!strcmp(cmd, "scan")) return cmd_scan(file, select, runs < 1 ? 1 : runs, &err) ? fail(cmd, &err) : 0;
  if (!strcmp(cmd, "cat")) return cmd_cat(file, select, limit, &out, &err) ? fail(cmd, &err) : 0;
  pm_file *f = NULL;
  pm_orc_reader *r = NULL;
  char **cols = NULL, *storage = NULL;
  size_t ncols = 0;
  int rc = 0, exit_code = 0;
  if ((rc = pm_file_open(file, &f, &err))) {
    exit_code = fail(cmd, &err);
    goto done;
  }
  pm_orc_read_options o;
  pm_orc_read_options_init(&o);
  if (select) {
    cols = split_list(select, &ncols, &storage);
    if (!cols) {
      fprintf(stderr, "paimon orc: out of memory\n");
      exit_code = 1;
      goto done;
    }
    o.columns = (const char *const *)cols;
    o.n_columns = ncols;
  }
  if ((rc = pm_orc_reader_open(f, &o, &r, &err))) {
    exit_code = fail(cmd, &err);
    goto done;
  }
  if (!strcmp(cmd, "meta")) {
    if (cmd_meta(r, &err)) exit_code = fail(cmd, &err);
    goto done;
  }
  print_type(r, 0, 0); /* schema */
done:
  pm_orc_reader_close(r);
  pm_file_close(f);
  free(cols);
  free(storage);
  return exit_code;
}
