/* paimon avro schema FILE | paimon avro cat FILE [--select a,b] [--limit N] [--format jsonl] */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/print/format.h"
#include "format/avro/avro.h"

static void avro_usage(FILE *out) {
  fputs("usage: paimon avro schema FILE            print the writer schema JSON\n"
        "       paimon avro cat FILE [--select a,b] [--limit N] [--format jsonl]\n"
        "                                        print records as JSON lines: bytes as base64, maps as\n"
        "                                        [key, value] pairs, unions as their value (as the other cats)\n",
        out);
}

static int put(pm_buf *o, const char *s) { return pm_buf_append(o, s, strlen(s)); }

static int put_str(pm_buf *o, const uint8_t *p, size_t n) {
  int rc = put(o, "\"");
  for (size_t i = 0; i < n && !rc; i++) {
    char esc[8];
    if (p[i] == '"' || p[i] == '\\') {
      esc[0] = '\\';
      esc[1] = (char)p[i];
      rc = pm_buf_append(o, esc, 2);
    } else if (p[i] < 0x20) {
      snprintf(esc, sizeof esc, "\\u%04x", p[i]);
      rc = put(o, esc);
    } else {
      rc = pm_buf_append(o, &p[i], 1);
    }
  }
  return rc || put(o, "\"");
}

static int put_base64(pm_buf *o, const uint8_t *p, size_t n) {
  static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  int rc = put(o, "\"");
  for (size_t i = 0; i < n && !rc; i += 3) {
    uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
    char q[4] = {tab[v >> 18 & 63], tab[v >> 12 & 63], i + 1 < n ? tab[v >> 6 & 63] : '=', i + 2 < n ? tab[v & 63] : '='};
    rc = pm_buf_append(o, q, 4);
  }
  return rc || put(o, "\"");
}

static int put_number(pm_buf *o, double d, int is_float) {
  if (isnan(d)) return put(o, "\"NaN\"");
  if (isinf(d)) return put(o, d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
  char buf[64];
  int n = is_float ? pm_format_float((float)d, buf) : pm_format_double(d, buf);
  return pm_buf_append(o, buf, (size_t)n);
}

/* JSON of a decoded value in the encoding of the other `cat` commands. */
static int put_value(pm_buf *o, const pm_avro_value *v) {
  const pm_avro_schema *s = v->schema;
  char num[32];
  switch (s->type) {
    case PM_AVRO_NULL: return put(o, "null");
    case PM_AVRO_BOOLEAN: return put(o, v->u.boolean ? "true" : "false");
    case PM_AVRO_INT:
    case PM_AVRO_LONG:
      snprintf(num, sizeof num, "%lld", (long long)v->u.l);
      return put(o, num);
    case PM_AVRO_FLOAT: return put_number(o, v->u.f, 1);
    case PM_AVRO_DOUBLE: return put_number(o, v->u.d, 0);
    case PM_AVRO_STRING: return put_str(o, v->bytes, v->len);
    case PM_AVRO_BYTES:
    case PM_AVRO_FIXED: return put_base64(o, v->bytes, v->len);
    case PM_AVRO_ENUM: {
      const char *sym = v->u.l >= 0 && (uint64_t)v->u.l < s->symbol_count ? s->symbols[v->u.l] : "?";
      return put_str(o, (const uint8_t *)sym, strlen(sym));
    }
    case PM_AVRO_RECORD: {
      int rc = put(o, "{");
      for (size_t i = 0; i < v->count && !rc; i++) {
        const char *name = s->fields[i].name;
        rc = (i && put(o, ",")) || put_str(o, (const uint8_t *)name, strlen(name)) || put(o, ":") ||
             put_value(o, &v->items[i]);
      }
      return rc || put(o, "}");
    }
    case PM_AVRO_ARRAY: {
      int rc = put(o, "[");
      for (size_t i = 0; i < v->count && !rc; i++) rc = (i && put(o, ",")) || put_value(o, &v->items[i]);
      return rc || put(o, "]");
    }
    case PM_AVRO_MAP: {
      int rc = put(o, "[");
      for (size_t i = 0; i < v->count && !rc; i++)
        rc = (i && put(o, ",")) || put(o, "[") || put_str(o, (const uint8_t *)v->keys[i], v->key_lens[i]) ||
             put(o, ",") || put_value(o, &v->items[i]) || put(o, "]");
      return rc || put(o, "]");
    }
    case PM_AVRO_UNION: return put(o, "null");
  }
  return put(o, "null");
}

/* Field positions of --select in the top-level record (NULL select: all). */
static int select_fields(const pm_avro_schema *root, const char *select, size_t **idx, size_t *n, pm_error *err) {
  root = pm_avro_unwrap_nullable(root, NULL); /* records written as ["null", record] */
  *idx = NULL;
  *n = 0;
  if (root->type != PM_AVRO_RECORD) {
    if (!select) return 0;
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "--select needs records, the file holds %s values",
                     pm_avro_type_name(root->type));
  }
  size_t cap = root->field_count;
  if (select) {
    cap = 1;
    for (const char *p = select; *p; p++) cap += *p == ',';
  }
  *idx = calloc(cap ? cap : 1, sizeof **idx);
  if (!*idx) return PM_NOMEM(err);
  if (!select) {
    for (size_t i = 0; i < root->field_count; i++) (*idx)[(*n)++] = i;
    return 0;
  }
  const char *p = select;
  while (*p) {
    size_t len = strcspn(p, ",");
    size_t i = 0;
    while (i < root->field_count && (strlen(root->fields[i].name) != len || strncmp(root->fields[i].name, p, len))) i++;
    if (i == root->field_count && len)
      return pm_errorf(err, PAIMON_ERR_NOT_FOUND, "the records have no field '%.*s'", (int)len, p);
    if (len) (*idx)[(*n)++] = i;
    p += len + (p[len] == ',');
  }
  return 0;
}

static int put_row(pm_buf *o, const pm_avro_value *v, const size_t *idx, size_t n, int all) {
  if (v->schema->type != PM_AVRO_RECORD || all) return put_value(o, v);
  int rc = put(o, "{");
  for (size_t k = 0; k < n && !rc; k++) {
    const char *name = v->schema->fields[idx[k]].name;
    rc = (k && put(o, ",")) || put_str(o, (const uint8_t *)name, strlen(name)) || put(o, ":") ||
         put_value(o, &v->items[idx[k]]);
  }
  return rc || put(o, "}");
}

static int cat_file(pm_avro_reader *r, const char *select, long long limit, pm_error *err) {
  const pm_avro_schema *root = pm_avro_reader_schema(r);
  size_t *idx = NULL, n_idx = 0;
  if (select_fields(root, select, &idx, &n_idx, err)) {
    free(idx);
    return err->code;
  }
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
        rc = put_row(&line, &v, idx, n_idx, !select) ? PM_NOMEM(err) : 0;
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
  free(idx);
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
      rc = cat_file(r, select, limit, &err);
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
