/* paimon avro schema FILE | paimon avro cat FILE [--limit N] */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "format/avro/avro.h"

static void avro_usage(FILE *out) {
  fputs("usage: paimon avro schema FILE            print the writer schema JSON\n"
        "       paimon avro cat FILE [--limit N]   print records as JSON lines\n",
        out);
}

static int cat_file(pm_avro_reader *r, long long limit, pm_error *err) {
  const pm_avro_schema *root = pm_avro_reader_schema(r);
  pm_buf line;
  pm_buf_init(&line);
  long long printed = 0;
  int rc = 0;
  while (!rc && (limit < 0 || printed < limit)) {
    pm_avro_cursor cur;
    int64_t n;
    rc = pm_avro_reader_next_block(r, &cur, &n, err);
    if (rc || n == 0) break;
    for (int64_t i = 0; i < n && (limit < 0 || printed < limit); i++) {
      pm_avro_value v;
      rc = pm_avro_decode_value(&cur, root, &v, err);
      if (!rc) {
        line.len = 0;
        rc = pm_avro_value_to_json(&v, &line, err);
      }
      pm_avro_value_clear(&v);
      if (rc) {
        if (pm_avro_cursor_failed(&cur)) rc = pm_avro_reader_cursor_error(r, &cur, "record", err);
        break;
      }
      fwrite(line.data, 1, line.len, stdout);
      fputc('\n', stdout);
      printed++;
    }
  }
  pm_buf_free(&line);
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
  for (int i = 3; i < argc; i++) {
    if (!strcmp(argv[i], "--limit") && i + 1 < argc) {
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
  pm_error err;
  pm_error_clear(&err);
  pm_avro_reader *r;
  int rc = pm_avro_reader_open_path(path, &r, &err);
  if (!rc) {
    if (!strcmp(cmd, "schema")) {
      size_t len;
      const char *json = pm_avro_reader_schema_json(r, &len);
      fwrite(json, 1, len, stdout);
      fputc('\n', stdout);
    } else {
      rc = cat_file(r, limit, &err);
    }
    pm_avro_reader_close(r);
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
