/* Jackson-style JSON output and checked JSON access. */
#include "meta/json_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int puts_buf(pm_buf *b, const char *s) { return pm_buf_append(b, s, strlen(s)); }

static int indent(pm_buf *b, int level) {
  PM_TRY(pm_buf_push_u8(b, '\n'));
  for (int i = 0; i < level; i++) PM_TRY(pm_buf_append(b, "  ", 2));
  return 0;
}

static int put_string(pm_buf *b, const char *s, size_t n) {
  PM_TRY(pm_buf_push_u8(b, '"'));
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    char esc[8];
    if (c == '"' || c == '\\') {
      esc[0] = '\\';
      esc[1] = (char)c;
      PM_TRY(pm_buf_append(b, esc, 2));
    } else if (c < 0x20) {
      const char *short_esc = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : c == '\b' ? "\\b" : c == '\f' ? "\\f" : NULL;
      if (short_esc) {
        PM_TRY(puts_buf(b, short_esc));
      } else {
        snprintf(esc, sizeof esc, "\\u%04X", c);
        PM_TRY(puts_buf(b, esc));
      }
    } else {
      PM_TRY(pm_buf_push_u8(b, c));
    }
  }
  return pm_buf_push_u8(b, '"');
}

static int pretty(const json_t *j, pm_buf *b, int level, int depth) {
  if (depth > 128) return PAIMON_ERR_INVALID_ARGUMENT;
  char tmp[64];
  switch (json_typeof(j)) {
    case JSON_OBJECT: {
      if (json_object_size(j) == 0) return puts_buf(b, "{ }");
      PM_TRY(pm_buf_push_u8(b, '{'));
      const char *key;
      json_t *v;
      int first = 1;
      json_object_foreach((json_t *)j, key, v) {
        if (!first) PM_TRY(pm_buf_push_u8(b, ','));
        first = 0;
        PM_TRY(indent(b, level + 1));
        PM_TRY(put_string(b, key, strlen(key)));
        PM_TRY(puts_buf(b, " : "));
        PM_TRY(pretty(v, b, level + 1, depth + 1));
      }
      PM_TRY(indent(b, level));
      return pm_buf_push_u8(b, '}');
    }
    case JSON_ARRAY: {
      if (json_array_size(j) == 0) return puts_buf(b, "[ ]");
      PM_TRY(puts_buf(b, "[ "));
      for (size_t i = 0; i < json_array_size(j); i++) {
        if (i) PM_TRY(puts_buf(b, ", "));
        PM_TRY(pretty(json_array_get(j, i), b, level, depth + 1));
      }
      return puts_buf(b, " ]");
    }
    case JSON_STRING: return put_string(b, json_string_value(j), json_string_length(j));
    case JSON_INTEGER:
      snprintf(tmp, sizeof tmp, "%lld", (long long)json_integer_value(j));
      return puts_buf(b, tmp);
    case JSON_REAL: {
      double d = json_real_value(j);
      if (d == floor(d) && fabs(d) < 1e15) snprintf(tmp, sizeof tmp, "%.1f", d);
      else snprintf(tmp, sizeof tmp, "%.17g", d);
      return puts_buf(b, tmp);
    }
    case JSON_TRUE: return puts_buf(b, "true");
    case JSON_FALSE: return puts_buf(b, "false");
    default: return puts_buf(b, "null");
  }
}

int pm_json_pretty(const json_t *j, pm_buf *out, pm_error *err) {
  int rc = pretty(j, out, 0, 0);
  if (rc == PAIMON_ERR_NOMEM) return PM_NOMEM(err);
  if (rc) return pm_errorf(err, rc, "JSON nested too deeply");
  return 0;
}

int pm_json_parse(const char *text, size_t len, const char *path, json_t **out, pm_error *err) {
  json_error_t je;
  json_t *j = json_loadb(text, len, JSON_DECODE_ANY, &je);
  if (!j) return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: bad JSON at line %d column %d: %s", path, je.line, je.column, je.text);
  *out = j;
  return 0;
}

int pm_json_get_int64(const json_t *o, const char *key, const char *path, int64_t *v, int *present, pm_error *err) {
  const json_t *x = json_object_get(o, key);
  *present = 0;
  if (!x || json_is_null(x)) return 0;
  if (!json_is_integer(x)) return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: key \"%s\" is not an integer", path, key);
  *v = (int64_t)json_integer_value(x);
  *present = 1;
  return 0;
}

int pm_json_get_str(const json_t *o, const char *key, const char *path, const char **v, pm_error *err) {
  const json_t *x = json_object_get(o, key);
  *v = NULL;
  if (!x || json_is_null(x)) return 0;
  if (!json_is_string(x)) return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: key \"%s\" is not a string", path, key);
  *v = json_string_value(x);
  return 0;
}

int pm_json_req_int64(const json_t *o, const char *key, const char *path, int64_t *v, pm_error *err) {
  int present;
  PM_TRY(pm_json_get_int64(o, key, path, v, &present, err));
  if (!present) return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: required key \"%s\" missing", path, key);
  return 0;
}

int pm_json_req_str(const json_t *o, const char *key, const char *path, const char **v, pm_error *err) {
  PM_TRY(pm_json_get_str(o, key, path, v, err));
  if (!*v) return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: required key \"%s\" missing", path, key);
  return 0;
}
