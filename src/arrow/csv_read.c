/* CSV records to Arrow values (csv_read.h). */
#include "arrow/csv_read.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/json_read.h"

void pm_csv_record_init(pm_csv_record *r) {
  memset(r, 0, sizeof *r);
  pm_buf_init(&r->buf);
}

void pm_csv_record_free(pm_csv_record *r) {
  free(r->off);
  free(r->len);
  free(r->quoted);
  pm_buf_free(&r->buf);
  memset(r, 0, sizeof *r);
}

size_t pm_csv_record_span(const char *text, size_t len, int at_end) {
  int in_quote = 0;
  for (size_t i = 0; i < len; i++) {
    char c = text[i];
    if (c == '"') in_quote = !in_quote; /* "" inside quotes toggles twice */
    else if (c == '\n' && !in_quote) return i + 1;
  }
  return at_end ? len : 0;
}

static int push_field(pm_csv_record *r, size_t off, int quoted, pm_error *err) {
  if (r->n == r->cap) {
    size_t cap = r->cap ? r->cap * 2 : 16;
    size_t *o = realloc(r->off, cap * sizeof *o);
    if (!o) return PM_NOMEM(err);
    r->off = o;
    size_t *l = realloc(r->len, cap * sizeof *l);
    if (!l) return PM_NOMEM(err);
    r->len = l;
    uint8_t *q = realloc(r->quoted, cap);
    if (!q) return PM_NOMEM(err);
    r->quoted = q;
    r->cap = cap;
  }
  r->off[r->n] = off;
  r->len[r->n] = r->buf.len - off;
  r->quoted[r->n] = (uint8_t)quoted;
  r->n++;
  return 0;
}

int pm_csv_parse_record(const char *text, size_t len, pm_csv_record *r, pm_error *err) {
  r->n = 0;
  r->buf.len = 0;
  if (len && text[len - 1] == '\n') len--;
  if (len && text[len - 1] == '\r') len--;
  size_t i = 0;
  for (;;) {
    size_t start = r->buf.len;
    int quoted = 0;
    if (i < len && text[i] == '"') {
      quoted = 1;
      i++;
      for (;;) {
        if (i >= len) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "field %zu: unterminated quote", r->n + 1);
        if (text[i] == '"') {
          if (i + 1 < len && text[i + 1] == '"') {
            if (pm_buf_push_u8(&r->buf, '"')) return PM_NOMEM(err);
            i += 2;
            continue;
          }
          i++;
          break;
        }
        if (pm_buf_push_u8(&r->buf, (uint8_t)text[i])) return PM_NOMEM(err);
        i++;
      }
      if (i < len && text[i] != ',')
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "field %zu: text after the closing quote", r->n + 1);
    } else {
      size_t j = i;
      while (j < len && text[j] != ',') {
        if (text[j] == '"')
          return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "field %zu: quote inside an unquoted field", r->n + 1);
        j++;
      }
      if (pm_buf_append(&r->buf, text + i, j - i)) return PM_NOMEM(err);
      i = j;
    }
    PM_TRY(push_field(r, start, quoted, err));
    if (i >= len) break;
    i++; /* the ',' */
  }
  if (pm_buf_push_u8(&r->buf, 0)) return PM_NOMEM(err); /* cells stay NUL-free views; terminator for strtod-like use */
  return 0;
}

/* Types whose CSV text is the JSON string form of the value. */
static int text_typed(pm_type_id id) {
  switch (id) {
    case PM_T_DECIMAL128:
    case PM_T_DATE32:
    case PM_T_DATE64:
    case PM_T_TIME32:
    case PM_T_TIME64:
    case PM_T_TIMESTAMP:
    case PM_T_UTF8:
    case PM_T_LARGE_UTF8:
    case PM_T_BINARY:
    case PM_T_LARGE_BINARY:
    case PM_T_FIXED_BINARY: return 1;
    default: return 0;
  }
}

int pm_csv_append_field(pm_builder *b, const pm_csv_record *r, size_t i, pm_error *err) {
  if (i >= r->n || (!r->quoted[i] && r->len[i] == 0)) return pm_builder_append_null(b, err);
  const pm_type *t = pm_builder_type(b);
  const char *s = (const char *)r->buf.data + r->off[i];
  size_t n = r->len[i];
  if (t->id == PM_T_UTF8 || t->id == PM_T_LARGE_UTF8) return pm_builder_append_bytes(b, s, n, err);
  json_t *v = NULL;
  int is_float = t->id == PM_T_FLOAT || t->id == PM_T_DOUBLE || t->id == PM_T_HALF_FLOAT;
  if (text_typed(t->id) || (is_float && (s[0] == 'N' || s[0] == 'I' || (s[0] == '-' && n > 1 && s[1] == 'I')))) {
    v = json_stringn_nocheck(s, n);
    if (!v) return PM_NOMEM(err);
  } else {
    json_error_t je;
    v = json_loadb(s, n, JSON_DECODE_ANY, &je);
    if (!v)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "field '%s': '%.*s' is not a valid value (%s)",
                       t->name ? t->name : "", (int)(n > 64 ? 64 : n), s, je.text);
  }
  int rc = pm_builder_append_json(b, v, err);
  json_decref(v);
  return rc;
}
