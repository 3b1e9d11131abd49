/* paimon orc schema|meta|cat|scan|convert */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/cli_output.h"
#include "paimon/file.h"
#include "paimon/print.h"

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

static int fail(const char *what, const paimon_error *err) {
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

static int stream_error(struct ArrowArrayStream *s, paimon_error *err) {
  const char *m = s->get_last_error(s);
  return cli_errorf(err, PAIMON_ERR_IO, "%s", m ? m : "read failed");
}

/* Opens path as a stream (paimon/file.h) in format fmt with --select and --limit. */
static int open_stream(const char *path, const char *fmt, const char *select, long long limit,
                       struct ArrowArrayStream *s, paimon_error *err) {
  char **cols = NULL, *storage = NULL;
  size_t ncols = 0;
  if (select && !(cols = split_list(select, &ncols, &storage))) {
    free(storage);
    return cli_errorf(err, PAIMON_ERR_NOMEM, "out of memory");
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
static int cmd_scan(const char *path, const char *select, int runs, paimon_error *err) {
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
static int cmd_convert(const char *in, const char *out, const char *codec_name, paimon_error *err) {
  const char *codec = codec_name ? codec_name : "zstd";
  if (strcmp(codec, "zstd") && strcmp(codec, "zlib") && strcmp(codec, "snappy") && strcmp(codec, "lz4") &&
      strcmp(codec, "none"))
    return cli_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "unknown codec %s", codec_name);
  struct ArrowArrayStream s;
  int rc = open_stream(in, ends_with(in, ".parquet") ? "parquet" : "orc", NULL, -1, &s, err);
  if (rc) return rc;
  paimon_file_write_options wo;
  paimon_file_write_options_init(&wo);
  wo.format = ends_with(out, ".parquet") ? "parquet" : "orc";
  wo.compression = codec; /* zlib: ORC's ZLIB, Parquet's GZIP */
  return (int)paimon_file_write(out, &wo, &s, NULL, err); /* consumes s */
}

/* Prints the rows (--select, --limit) with the shared printer. */
static int cmd_cat(const char *path, const char *select, long long limit, const cli_output *out, paimon_error *err) {
  struct ArrowArrayStream s;
  int rc = open_stream(path, "orc", select, limit, &s, err);
  if (rc) return rc;
  struct ArrowSchema schema;
  memset(&schema, 0, sizeof schema);
  rc = s.get_schema(&s, &schema) ? stream_error(&s, err) : 0;
  paimon_printer *p = NULL;
  if (!rc) {
    paimon_print_options po;
    memset(&po, 0, sizeof po);
    cli_output_apply(out, &po);
    rc = paimon_printer_new(&schema, &po, &p, err);
  }
  while (!rc) {
    struct ArrowArray a;
    if ((rc = s.get_next(&s, &a) ? stream_error(&s, err) : 0) || !a.release) break;
    rc = paimon_printer_print(p, &a, stdout, err);
    a.release(&a);
  }
  if (rc == 0) rc = paimon_printer_finish(p, stdout, err);
  paimon_printer_free(p);
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
  paimon_error err;
  memset(&err, 0, sizeof err);
  if (!strcmp(cmd, "convert") && cli_same_file(file, out_path)) {
    fprintf(stderr, "paimon orc convert: OUT '%s' is the input file (write to another path)\n", out_path);
    return 2;
  }
  if (!strcmp(cmd, "convert")) return cmd_convert(file, out_path, codec_name, &err) ? fail(cmd, &err) : 0;
  if (!strcmp(cmd, "scan")) return cmd_scan(file, select, runs < 1 ? 1 : runs, &err) ? fail(cmd, &err) : 0;
  if (!strcmp(cmd, "cat")) return cmd_cat(file, select, limit, &out, &err) ? fail(cmd, &err) : 0;
  char **cols = NULL, *storage = NULL;
  size_t ncols = 0;
  int exit_code = 0;
  paimon_file_read_options o;
  paimon_file_read_options_init(&o);
  o.format = "orc";
  if (select) {
    cols = split_list(select, &ncols, &storage);
    if (!cols) {
      fprintf(stderr, "paimon orc: out of memory\n");
      free(storage);
      return 1;
    }
    o.columns = (const char *const *)cols;
    o.n_columns = ncols;
  }
  char *text = NULL;
  paimon_status st = paimon_file_describe(file, &o, !strcmp(cmd, "meta") ? PAIMON_FILE_DESCRIBE_META : PAIMON_FILE_DESCRIBE_SCHEMA,
                                          &text, &err);
  if (text) fputs(text, stdout);
  paimon_free_string(text);
  if (st) exit_code = fail(cmd, &err);
  free(cols);
  free(storage);
  return exit_code;
}
