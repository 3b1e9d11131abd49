/* paimon avro schema FILE | paimon avro cat FILE [--select a,b] [--limit N] [--format jsonl] */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_output.h"
#include "paimon/file.h"

static void avro_usage(FILE *out) {
  fputs("usage: paimon avro schema FILE            print the writer schema JSON\n"
        "       paimon avro cat FILE [--select a,b] [--limit N] [--format jsonl]\n"
        "                                        print records as JSON lines: bytes as base64, maps as\n"
        "                                        [key, value] pairs, unions as their value (as the other cats)\n",
        out);
}

/* Splits "a,b" at commas (empty names kept: the library skips them). *storage and the
 * returned array are malloc'd; NULL on no memory. */
static char **split_names(const char *s, size_t *n, char **storage) {
  *storage = strdup(s);
  size_t cap = 1;
  for (const char *p = s; *p; p++) cap += *p == ',';
  char **v = *storage ? calloc(cap, sizeof *v) : NULL;
  if (!v) return NULL;
  size_t k = 0;
  for (char *p = *storage;;) {
    v[k++] = p;
    char *c = strchr(p, ',');
    if (!c) break;
    *c = 0;
    p = c + 1;
  }
  *n = k;
  return v;
}

static int cat_file(const char *path, const char *select, long long limit, paimon_error *err) {
  paimon_file_read_options o;
  paimon_file_read_options_init(&o);
  o.format = "avro";
  o.limit = limit;
  char **names = NULL, *storage = NULL;
  size_t n = 0;
  if (select) {
    if (!(names = split_names(select, &n, &storage))) {
      free(storage);
      return cli_errorf(err, PAIMON_ERR_NOMEM, "out of memory");
    }
    o.columns = (const char *const *)names;
    o.n_columns = n;
  }
  paimon_file_records *r = NULL;
  int rc = (int)paimon_file_records_open(path, &o, &r, err);
  while (!rc) {
    const char *json;
    size_t len;
    rc = (int)paimon_file_records_next(r, &json, &len, err);
    if (rc || !json) break;
    fwrite(json, 1, len, stdout);
    fputc('\n', stdout);
  }
  paimon_file_records_close(r);
  free(names);
  free(storage);
  return rc;
}

int cli_avro_main(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    avro_usage(stdout);
    return 0;
  }
  if (argc < 3) {
    avro_usage(stderr);
    return 2;
  }
  const char *cmd = argv[1];
  const char *path = argv[2];
  long long limit = -1;
  const char *select = NULL;
  for (int i = 3; i < argc; i++) {
    if (!strcmp(cmd, "cat") && !strcmp(argv[i], "--select") && i + 1 < argc) {
      select = argv[++i];
    } else if (!strcmp(cmd, "cat") && !strcmp(argv[i], "--format") && i + 1 < argc) {
      const char *f = argv[++i];
      if (strcmp(f, "jsonl") && strcmp(f, "json")) {
        fprintf(stderr, "paimon avro cat: invalid value for --format: '%s' (jsonl; csv and table are not "
                        "supported for Avro files yet)\n", f);
        return 2;
      }
    } else if (!strcmp(argv[i], "--limit") && i + 1 < argc) {
      char *end;
      errno = 0;
      limit = strtoll(argv[++i], &end, 10);
      if (!*argv[i] || *end || limit < 0 || errno == ERANGE) {
        fprintf(stderr, "paimon avro: bad --limit '%s'\n", argv[i]);
        return 2;
      }
    } else {
      fprintf(stderr, "paimon avro: unknown argument '%s'\n", argv[i]);
      avro_usage(stderr);
      return 2;
    }
  }
  if (strcmp(cmd, "schema") && strcmp(cmd, "cat")) {
    fprintf(stderr, "paimon avro: unknown command '%s'\n", cmd);
    avro_usage(stderr);
    return 2;
  }
  paimon_error err;
  memset(&err, 0, sizeof err);
  int rc = 0;
  if (!strcmp(cmd, "schema")) {
    paimon_file_read_options o;
    paimon_file_read_options_init(&o);
    o.format = "avro";
    char *text = NULL;
    rc = (int)paimon_file_describe(path, &o, PAIMON_FILE_DESCRIBE_SCHEMA, &text, &err);
    if (text) fputs(text, stdout);
    paimon_free_string(text);
  } else {
    rc = cat_file(path, select, limit, &err);
  }
  if (fflush(stdout) != 0 && !rc) {
    fprintf(stderr, "paimon avro: cannot write output\n");
    return 1;
  }
  if (rc) {
    fprintf(stderr, "paimon: %s\n", err.message);
    return 1;
  }
  return 0;
}
