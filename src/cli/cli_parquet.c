/* paimon parquet schema|meta|cat|scan|convert */
#include <errno.h>
#include <inttypes.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/cli_output.h"
#include "paimon/file.h"
#include "paimon/print.h"

/* Supplied by the writer (src/cli/cli_parquet_convert.c); this weak stub is used until then. */
int cli_parquet_convert(int argc, char **argv);

__attribute__((weak)) int cli_parquet_convert(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "paimon parquet convert: not implemented\n");
  return 2;
}

static void usage(FILE *out) {
  fputs("usage: paimon parquet schema FILE\n"
        "       paimon parquet meta FILE\n"
        "       paimon parquet cat FILE [--select a,b] [--limit N] [--format table|jsonl|csv]\n"
        "           [--max-width N | --no-truncate]   (format: table on a terminal, else jsonl)\n"
        "       paimon parquet scan FILE [--select a,b] [--runs N] [--string-view]\n"
        "       paimon parquet convert ...\n",
        out);
}

static int fail(const paimon_error *err) {
  fprintf(stderr, "paimon parquet: %s\n", err->message);
  return 1;
}

/* Splits "a,b,c" into a malloc'd array of pointers into a malloc'd copy. */
static char **split_list(const char *s, size_t *n, char **storage) {
  *storage = strdup(s);
  if (!*storage) return NULL;
  size_t cap = 1;
  for (const char *p = s; *p; p++) cap += *p == ',';
  char **v = calloc(cap, sizeof(char *));
  if (!v) return NULL;
  size_t k = 0;
  char *save = NULL;
  for (char *tok = strtok_r(*storage, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) v[k++] = tok;
  *n = k;
  return v;
}

/* parquet schema / meta: the library's description of the file (paimon_file_describe). */
static int cmd_describe(const char *path, paimon_file_describe_kind what) {
  paimon_error err;
  paimon_file_read_options o;
  paimon_file_read_options_init(&o);
  o.format = "parquet";
  char *text = NULL;
  if (paimon_file_describe(path, &o, what, &text, &err)) return fail(&err);
  fputs(text, stdout);
  paimon_free_string(text);
  return 0;
}

typedef struct cat_args {
  const char *path;
  const char *select;
  long long limit;
  int runs;
  int string_view; /* scan: decode strings as Arrow string views */
  cli_output out;
} cat_args;

static int parse_args(int argc, char **argv, cat_args *a, int allow_cat) {
  memset(a, 0, sizeof *a);
  a->limit = -1;
  a->runs = 1;
  cli_output_init(&a->out);
  for (int i = 2; i < argc; i++) {
    const char *s = argv[i];
    if (!strcmp(s, "--select") && i + 1 < argc) {
      a->select = argv[++i];
    } else if (allow_cat && !strcmp(s, "--limit") && i + 1 < argc) {
      char *end;
      errno = 0;
      a->limit = strtoll(argv[++i], &end, 10);
      if (!*argv[i] || *end || a->limit < 0 || errno == ERANGE) {
        fprintf(stderr, "paimon parquet: invalid --limit '%s'\n", argv[i]);
        return 2;
      }
    } else if (!allow_cat && !strcmp(s, "--runs") && i + 1 < argc) {
      a->runs = atoi(argv[++i]);
      if (a->runs < 1 || a->runs > 1000) {
        fprintf(stderr, "paimon parquet: invalid --runs '%s'\n", argv[i]);
        return 2;
      }
    } else if (!allow_cat && !strcmp(s, "--string-view")) {
      a->string_view = 1;
    } else if (allow_cat && (!strcmp(s, "--format") || !strcmp(s, "--max-width") || !strcmp(s, "--no-truncate"))) {
      if (cli_output_arg(&a->out, "parquet cat", argc, argv, &i) <= 0) return 2;
    } else if (s[0] == '-' && s[1]) {
      fprintf(stderr, "paimon parquet: unknown option %s\n", s);
      return 2;
    } else if (!a->path) {
      a->path = s;
    } else {
      fprintf(stderr, "paimon parquet: unexpected argument %s\n", s);
      return 2;
    }
  }
  if (!a->path) {
    usage(stderr);
    return 2;
  }
  return 0;
}

/* Opens the file as a stream (paimon/file.h) with --select, --limit and --string-view. */
static int open_with(const cat_args *a, struct ArrowArrayStream *s, paimon_error *err) {
  paimon_file_read_options opt;
  paimon_file_read_options_init(&opt);
  opt.format = "parquet";
  opt.string_view = a->string_view;
  opt.limit = a->limit;
  char **names = NULL, *storage = NULL;
  size_t n = 0;
  if (a->select) {
    names = split_list(a->select, &n, &storage);
    if (!names) {
      free(storage);
      return cli_errorf(err, PAIMON_ERR_NOMEM, "out of memory");
    }
    opt.columns = (const char *const *)names;
    opt.n_columns = n;
  }
  int rc = (int)paimon_file_open(a->path, &opt, s, err);
  free(names);
  free(storage);
  return rc;
}

static int stream_error(struct ArrowArrayStream *s, paimon_error *err) {
  const char *m = s->get_last_error(s);
  return cli_errorf(err, PAIMON_ERR_IO, "%s", m ? m : "read failed");
}

static int cmd_cat(int argc, char **argv) {
  cat_args a;
  int rc = parse_args(argc, argv, &a, 1);
  if (rc) return rc;
  paimon_error err;
  struct ArrowArrayStream r;
  if (open_with(&a, &r, &err)) return fail(&err);
  struct ArrowSchema schema;
  if (r.get_schema(&r, &schema)) {
    stream_error(&r, &err);
    r.release(&r);
    return fail(&err);
  }
  paimon_print_options po;
  memset(&po, 0, sizeof po);
  cli_output_apply(&a.out, &po);
  paimon_printer *pr = NULL;
  rc = paimon_printer_new(&schema, &po, &pr, &err);
  while (rc == 0) {
    struct ArrowArray batch;
    rc = r.get_next(&r, &batch) ? stream_error(&r, &err) : 0;
    if (rc || !batch.release) break;
    rc = paimon_printer_print(pr, &batch, stdout, &err);
    batch.release(&batch);
  }
  if (rc == 0) rc = paimon_printer_finish(pr, stdout, &err);
  fflush(stdout);
  paimon_printer_free(pr);
  schema.release(&schema);
  r.release(&r);
  return rc ? fail(&err) : 0;
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Decodes every selected column completely and discards it. With --runs N
 * the scan repeats and the fastest run is reported. */
static int cmd_scan(int argc, char **argv) {
  cat_args a;
  int rc = parse_args(argc, argv, &a, 0);
  if (rc) return rc;
  double best = -1;
  int64_t rows = 0;
  for (int run = 0; run < a.runs; run++) {
    double t0 = now_ms();
    paimon_error err;
    struct ArrowArrayStream r;
    if (open_with(&a, &r, &err)) return fail(&err);
    rows = 0;
    for (;;) {
      struct ArrowArray batch;
      rc = r.get_next(&r, &batch) ? stream_error(&r, &err) : 0;
      if (rc || !batch.release) break;
      rows += batch.length;
      batch.release(&batch);
    }
    r.release(&r);
    if (rc) return fail(&err);
    double ms = now_ms() - t0;
    if (best < 0 || ms < best) best = ms;
  }
  printf("rows=%lld elapsed_ms=%.3f\n", (long long)rows, best);
  return 0;
}

int cli_parquet_main(int argc, char **argv) {
#ifdef __GLIBC__
  /* Batches allocate and free large buffers repeatedly: keep them in the heap
   * instead of mmap/munmap (and page faults) for every batch. */
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
  if (argc >= 2 && !strcmp(argv[1], "convert")) return cli_parquet_convert(argc - 1, argv + 1); /* own --help */
  if (argc < 2 || cli_wants_help(argc, argv)) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const char *sub = argv[1];
  if (!strcmp(sub, "schema") || !strcmp(sub, "meta")) {
    if (argc != 3) {
      usage(stderr);
      return 2;
    }
    return cmd_describe(argv[2], !strcmp(sub, "schema") ? PAIMON_FILE_DESCRIBE_SCHEMA : PAIMON_FILE_DESCRIBE_META);
  }
  if (!strcmp(sub, "cat")) return cmd_cat(argc, argv);
  if (!strcmp(sub, "scan")) return cmd_scan(argc, argv);
  fprintf(stderr, "paimon parquet: unknown subcommand '%s'\n", sub);
  usage(stderr);
  return 2;
}
