/* Avro records as JSON lines (avro_json.h). */
#include "print/avro_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/avro/avro.h"
#include "print/format.h"
#include "util/buf.h"

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

/* Field positions of the selected names in the top-level record (names NULL: all; empty names skipped). */
static int select_fields(const pm_avro_schema *root, const char *const *names, size_t n_names, size_t **idx, size_t *n,
                         pm_error *err) {
  root = pm_avro_unwrap_nullable(root, NULL); /* records written as ["null", record] */
  *idx = NULL;
  *n = 0;
  if (root->type != PM_AVRO_RECORD) {
    if (!names) return 0;
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "--select needs records, the file holds %s values",
                     pm_avro_type_name(root->type));
  }
  size_t cap = names ? n_names : root->field_count;
  *idx = calloc(cap ? cap : 1, sizeof **idx);
  if (!*idx) return PM_NOMEM(err);
  if (!names) {
    for (size_t i = 0; i < root->field_count; i++) (*idx)[(*n)++] = i;
    return 0;
  }
  for (size_t k = 0; k < n_names; k++) {
    const char *p = names[k] ? names[k] : "";
    if (!*p) continue;
    size_t i = 0;
    while (i < root->field_count && strcmp(root->fields[i].name, p)) i++;
    if (i == root->field_count) return pm_errorf(err, PAIMON_ERR_NOT_FOUND, "the records have no field '%s'", p);
    (*idx)[(*n)++] = i;
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

struct pm_avro_json {
  pm_avro_reader *r;
  size_t *idx, n_idx;
  int all;
  int64_t limit, emitted;
  pm_avro_cursor cur;
  int64_t left; /* records left in the current block */
  pm_buf line;
};

int pm_avro_json_open(const char *path, const char *const *names, size_t n_names, int64_t limit, pm_avro_json **out,
                      pm_error *err) {
  *out = NULL;
  pm_avro_json *j = calloc(1, sizeof *j);
  if (!j) return PM_NOMEM(err);
  pm_buf_init(&j->line);
  j->limit = limit;
  j->all = !names;
  int rc = pm_avro_reader_open_path(path, &j->r, err);
  if (!rc) rc = select_fields(pm_avro_reader_schema(j->r), names, n_names, &j->idx, &j->n_idx, err);
  if (rc) {
    pm_avro_json_close(j);
    return rc;
  }
  *out = j;
  return 0;
}

int pm_avro_json_next(pm_avro_json *j, const char **line, size_t *len, pm_error *err) {
  *line = NULL;
  *len = 0;
  if (j->limit >= 0 && j->emitted >= j->limit) return 0;
  while (j->left == 0) {
    int64_t n;
    PM_TRY(pm_avro_reader_next_block(j->r, &j->cur, &n, err));
    if (n == 0) return 0;
    j->left = n;
  }
  pm_avro_value v;
  int rc = pm_avro_decode_value(&j->cur, pm_avro_reader_schema(j->r), &v, err);
  if (!rc) {
    j->line.len = 0;
    rc = put_row(&j->line, &v, j->idx, j->n_idx, j->all) ? PM_NOMEM(err) : 0;
  }
  pm_avro_value_clear(&v);
  if (rc) {
    if (pm_avro_cursor_failed(&j->cur)) rc = pm_avro_reader_cursor_error(j->r, &j->cur, "record", err);
    return rc;
  }
  j->left--;
  j->emitted++;
  if (pm_buf_push_u8(&j->line, 0)) return PM_NOMEM(err);
  j->line.len--;
  *line = (const char *)j->line.data;
  *len = j->line.len;
  return 0;
}

void pm_avro_json_close(pm_avro_json *j) {
  if (!j) return;
  if (j->r) pm_avro_reader_close(j->r);
  free(j->idx);
  pm_buf_free(&j->line);
  free(j);
}
