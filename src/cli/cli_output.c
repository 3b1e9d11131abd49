/* Output options of the row-printing commands; stdout write errors. */
#include "cli/cli_output.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

void cli_output_init(cli_output *o) { memset(o, 0, sizeof *o); }

static int parse_format(const char *s, paimon_print_format *out) {
  if (!strcmp(s, "table")) *out = PAIMON_PRINT_TABLE;
  else if (!strcmp(s, "jsonl") || !strcmp(s, "json")) *out = PAIMON_PRINT_JSONL;
  else if (!strcmp(s, "csv")) *out = PAIMON_PRINT_CSV;
  else return -1;
  return 0;
}

int cli_output_arg(cli_output *o, const char *cmd, int argc, char **argv, int *i) {
  const char *arg = argv[*i];
  if (!strcmp(arg, "--no-truncate")) {
    o->max_width = PAIMON_PRINT_NO_TRUNCATE;
    return 1;
  }
  int is_format = !strcmp(arg, "--format"), is_width = !strcmp(arg, "--max-width");
  if (!is_format && !is_width) return 0;
  if (*i + 1 >= argc) {
    fprintf(stderr, "paimon %s: %s needs a value\n", cmd, arg);
    return -1;
  }
  const char *val = argv[++*i];
  if (is_format) {
    if (parse_format(val, &o->format)) {
      fprintf(stderr, "paimon %s: invalid value '%s' for --format (table, jsonl or csv)\n", cmd, val);
      return -1;
    }
    o->format_set = 1;
    return 1;
  }
  char *end = NULL;
  errno = 0;
  long n = strtol(val, &end, 10);
  if (!*val || *end || errno || n < 4 || n > 1000000) {
    fprintf(stderr, "paimon %s: invalid value '%s' for --max-width (an integer from 4)\n", cmd, val);
    return -1;
  }
  o->max_width = (int)n;
  return 1;
}

static int terminal_width(void) {
  const char *cols = getenv("COLUMNS");
  if (cols && *cols) {
    char *end = NULL;
    long n = strtol(cols, &end, 10);
    if (!*end && n > 0 && n < 100000) return (int)n;
  }
  struct winsize ws;
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 0;
}

void cli_output_apply(const cli_output *o, paimon_print_options *po) {
  po->format = o->format_set ? o->format : isatty(STDOUT_FILENO) ? PAIMON_PRINT_TABLE : PAIMON_PRINT_JSONL;
  po->max_cell_width = o->max_width;
  po->term_width = po->format == PAIMON_PRINT_TABLE ? terminal_width() : 0;
}

int cli_stdout_check(void) {
  errno = 0;
  if (fflush(stdout) == 0 && !ferror(stdout)) return 0;
  int e = errno;
  fprintf(stderr, "paimon: cannot write output: %s\n", e ? strerror(e) : "write error");
  return 1;
}

int cli_errorf(paimon_error *err, paimon_status code, const char *fmt, ...) {
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    err->code = code;
  }
  return (int)code;
}

static int stream_error(struct ArrowArrayStream *s, int e, const char *what, paimon_error *err) {
  const char *msg = s->get_last_error ? s->get_last_error(s) : NULL;
  paimon_status code = e == ENOMEM ? PAIMON_ERR_NOMEM : e == EINVAL ? PAIMON_ERR_INVALID_ARGUMENT : PAIMON_ERR_IO;
  if (msg && *msg) return cli_errorf(err, code, "%s", msg);
  return cli_errorf(err, code, "%s: %s", what, strerror(e));
}

int cli_stream_schema(struct ArrowArrayStream *s, struct ArrowSchema *out, paimon_error *err) {
  out->release = NULL;
  if (!s || !s->release) return cli_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "stream is released");
  int e = s->get_schema(s, out);
  return e ? stream_error(s, e, "stream get_schema", err) : 0;
}

int cli_stream_next(struct ArrowArrayStream *s, struct ArrowArray *out, paimon_error *err) {
  out->release = NULL;
  if (!s || !s->release) return cli_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "stream is released");
  int e = s->get_next(s, out);
  return e ? stream_error(s, e, "stream get_next", err) : 0;
}
