#include "arrow/json_read.h"
#include "util/civil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------- text parsers ---------- */

static int digits_n(const char **p, int n, int64_t *v) {
  int64_t x = 0;
  for (int i = 0; i < n; i++) {
    char c = (*p)[i];
    if (c < '0' || c > '9') return -1;
    x = x * 10 + (c - '0');
  }
  *p += n;
  *v = x;
  return 0;
}

static int is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

static int parse_date_prefix(const char **pp, int64_t *days) {
  const char *p = *pp;
  int neg = 0;
  if (*p == '-' || *p == '+') {
    neg = *p == '-';
    p++;
  }
  int64_t y = 0;
  int nd = 0;
  while (*p >= '0' && *p <= '9' && nd < 12) {
    y = y * 10 + (*p - '0');
    p++;
    nd++;
  }
  if (nd < 4 || *p != '-') return -1;
  p++;
  int64_t m, d;
  if (digits_n(&p, 2, &m) || *p != '-') return -1;
  p++;
  if (digits_n(&p, 2, &d)) return -1;
  if (neg) y = -y;
  static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12 || d < 1 || d > mdays[m - 1] + (m == 2 && is_leap(y))) return -1;
  *days = pm_days_from_civil(y, m, d);
  *pp = p;
  return 0;
}

int pm_parse_date(const char *s, int64_t *days) {
  const char *p = s;
  if (parse_date_prefix(&p, days) || *p) return -1;
  return 0;
}

static const int64_t unit_scale[4] = {1, 1000, 1000000, 1000000000};

/* HH:MM:SS[.f] -> value in unit; *pp advanced past it. */
static int parse_hms(const char **pp, pm_time_unit unit, int64_t *value) {
  const char *p = *pp;
  int64_t h, mi, se;
  if (digits_n(&p, 2, &h) || *p++ != ':' || digits_n(&p, 2, &mi) || *p++ != ':' || digits_n(&p, 2, &se)) return -1;
  if (h > 23 || mi > 59 || se > 59) return -1;
  int64_t frac = 0;
  int unit_digits = (int)unit * 3;
  if (*p == '.') {
    p++;
    int n = 0;
    while (*p >= '0' && *p <= '9') {
      if (n < unit_digits)
        frac = frac * 10 + (*p - '0');
      else if (*p != '0')
        return -1; /* more precision than the unit holds */
      n++;
      p++;
    }
    if (n == 0) return -1;
    for (; n < unit_digits; n++) frac *= 10;
  }
  *value = ((h * 60 + mi) * 60 + se) * unit_scale[unit] + frac;
  *pp = p;
  return 0;
}

int pm_parse_time(const char *s, pm_time_unit unit, int64_t *value) {
  const char *p = s;
  if (parse_hms(&p, unit & 3, value) || *p) return -1;
  return 0;
}

int pm_parse_timestamp(const char *s, pm_time_unit unit, int64_t *value, int *zoned) {
  const char *p = s;
  int64_t days, tod;
  unit &= 3;
  if (parse_date_prefix(&p, &days)) return -1;
  if (*p != 'T' && *p != ' ') return -1;
  p++;
  if (parse_hms(&p, unit, &tod)) return -1;
  *zoned = 0;
  if (*p == 'Z') {
    *zoned = 1;
    p++;
  }
  if (*p) return -1;
  int64_t per_day = 86400 * unit_scale[unit];
  if (days >= 0) {
    if (days > INT64_MAX / per_day) return -1;
    int64_t base = days * per_day;
    if (tod > INT64_MAX - base) return -1;
    *value = base + tod;
    return 0;
  }
  /* Negative days: (days + 1) * per_day stays in range one day longer, and
   * tod - per_day is negative, so the last day before INT64_MIN still fits. */
  if (days + 1 < INT64_MIN / per_day) return -1;
  int64_t base = (days + 1) * per_day, rest = tod - per_day;
  if (base < INT64_MIN - rest) return -1;
  *value = base + rest;
  return 0;
}

int pm_parse_decimal128(const char *s, int32_t precision, int32_t scale, uint8_t out[16]) {
  const char *p = s;
  int neg = 0;
  if (*p == '-' || *p == '+') {
    neg = *p == '-';
    p++;
  }
  unsigned __int128 v = 0;
  int ndig = 0, frac = 0, seen_point = 0, any = 0;
  for (; *p; p++) {
    if (*p == '.') {
      if (seen_point) return -1;
      seen_point = 1;
      continue;
    }
    if (*p < '0' || *p > '9') return -1;
    any = 1;
    if (seen_point) {
      if (frac >= scale) {
        if (*p != '0') return -1; /* would need rounding */
        continue;
      }
      frac++;
    }
    if (v == 0 && *p == '0' && !seen_point) continue; /* leading zeros */
    if (++ndig > 38) return -1;
    v = v * 10 + (unsigned)(*p - '0');
  }
  if (!any) return -1;
  for (; frac < scale; frac++) {
    v *= 10;
    if (++ndig > 38) return -1;
  }
  unsigned __int128 lim = 1;
  for (int i = 0; i < precision; i++) lim *= 10;
  if (v >= lim) return -1;
  if (neg) v = (unsigned __int128)0 - v;
  uint64_t lo = (uint64_t)v, hi = (uint64_t)(v >> 64);
  memcpy(out, &lo, 8);
  memcpy(out + 8, &hi, 8);
  return 0;
}

static int b64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

/* Decodes base64 (padding optional) into a malloc'd buffer. */
static int b64_decode(const char *s, size_t n, uint8_t **out, size_t *out_len) {
  while (n > 0 && s[n - 1] == '=') n--;
  uint8_t *o = malloc(n * 3 / 4 + 3);
  if (!o) return PAIMON_ERR_NOMEM;
  size_t w = 0;
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < n; i++) {
    int v = b64_value(s[i]);
    if (v < 0) {
      free(o);
      return PAIMON_ERR_INVALID_ARGUMENT;
    }
    acc = (acc << 6) | (uint32_t)v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      o[w++] = (uint8_t)(acc >> bits);
    }
  }
  if (bits >= 6) { /* a single dangling character cannot encode a byte */
    free(o);
    return PAIMON_ERR_INVALID_ARGUMENT;
  }
  *out = o;
  *out_len = w;
  return 0;
}

/* ---------- JSON to builder ---------- */

static int bad(const pm_builder *b, const json_t *v, const char *why, pm_error *err) {
  char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
  const pm_type *t = pm_builder_type(b);
  char f[64];
  pm_type_format(t, f, sizeof f);
  int rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: %s: %.80s (type \"%s\")", t->name ? t->name : "<value>",
                     why, text ? text : "?", f);
  free(text);
  return rc;
}

static int append_json(pm_builder *b, const json_t *v, int depth, pm_error *err);

static int append_json(pm_builder *b, const json_t *v, int depth, pm_error *err) {
  if (depth > PM_ARROW_MAX_DEPTH) return bad(b, v, "nesting too deep", err);
  const pm_type *t = pm_builder_type(b);
  if (!v || json_is_null(v)) return pm_builder_append_null(b, err);
  switch (t->id) {
    case PM_T_NULL: return bad(b, v, "expected null", err);
    case PM_T_BOOL:
      if (!json_is_boolean(v)) return bad(b, v, "expected true/false", err);
      return pm_builder_append_bool(b, json_is_true(v), err);
    case PM_T_INT8:
    case PM_T_UINT8:
    case PM_T_INT16:
    case PM_T_UINT16:
    case PM_T_INT32:
    case PM_T_UINT32:
    case PM_T_INT64:
    case PM_T_UINT64: {
      int64_t x;
      if (json_is_integer(v)) {
        x = (int64_t)json_integer_value(v);
      } else if (json_is_real(v) && json_real_value(v) == floor(json_real_value(v)) &&
                 fabs(json_real_value(v)) < 9.2e18) {
        x = (int64_t)json_real_value(v);
      } else {
        return bad(b, v, "expected an integer", err);
      }
      return pm_builder_append_int(b, x, err);
    }
    case PM_T_HALF_FLOAT:
    case PM_T_FLOAT:
    case PM_T_DOUBLE: {
      if (json_is_number(v)) return pm_builder_append_double(b, json_number_value(v), err);
      if (json_is_string(v)) {
        const char *s = json_string_value(v);
        if (!strcmp(s, "NaN")) return pm_builder_append_double(b, NAN, err);
        if (!strcmp(s, "Infinity")) return pm_builder_append_double(b, INFINITY, err);
        if (!strcmp(s, "-Infinity")) return pm_builder_append_double(b, -INFINITY, err);
      }
      return bad(b, v, "expected a number", err);
    }
    case PM_T_DECIMAL128: {
      uint8_t bytes[16];
      char tmp[32];
      const char *s = NULL;
      if (json_is_string(v)) {
        s = json_string_value(v);
      } else if (json_is_integer(v)) {
        snprintf(tmp, sizeof tmp, "%lld", (long long)json_integer_value(v));
        s = tmp;
      }
      if (!s || pm_parse_decimal128(s, t->precision, t->scale, bytes))
        return bad(b, v, "expected a decimal string within precision and scale", err);
      return pm_builder_append_decimal128(b, bytes, err);
    }
    case PM_T_DATE32:
    case PM_T_DATE64: {
      int64_t days;
      if (!json_is_string(v) || pm_parse_date(json_string_value(v), &days))
        return bad(b, v, "expected a date \"YYYY-MM-DD\"", err);
      return pm_builder_append_int(b, t->id == PM_T_DATE32 ? days : days * 86400000, err);
    }
    case PM_T_TIME32:
    case PM_T_TIME64: {
      int64_t x;
      if (!json_is_string(v) || pm_parse_time(json_string_value(v), t->unit, &x))
        return bad(b, v, "expected a time \"HH:MM:SS[.f]\"", err);
      return pm_builder_append_int(b, x, err);
    }
    case PM_T_TIMESTAMP: {
      int64_t x;
      int zoned;
      if (!json_is_string(v) || pm_parse_timestamp(json_string_value(v), t->unit, &x, &zoned))
        return bad(b, v, "expected a timestamp \"YYYY-MM-DDTHH:MM:SS[.f][Z]\"", err);
      return pm_builder_append_int(b, x, err);
    }
    case PM_T_UTF8:
    case PM_T_LARGE_UTF8:
      if (!json_is_string(v)) return bad(b, v, "expected a string", err);
      return pm_builder_append_bytes(b, json_string_value(v), json_string_length(v), err);
    case PM_T_BINARY:
    case PM_T_LARGE_BINARY:
    case PM_T_FIXED_BINARY: {
      uint8_t *bytes;
      size_t n;
      if (!json_is_string(v)) return bad(b, v, "expected a base64 string", err);
      int rc = b64_decode(json_string_value(v), json_string_length(v), &bytes, &n);
      if (rc == PAIMON_ERR_NOMEM) return PM_NOMEM(err);
      if (rc) return bad(b, v, "invalid base64", err);
      rc = pm_builder_append_bytes(b, bytes, n, err);
      free(bytes);
      return rc;
    }
    case PM_T_LIST:
    case PM_T_LARGE_LIST:
    case PM_T_FIXED_LIST: {
      if (!json_is_array(v)) return bad(b, v, "expected an array", err);
      pm_builder *c = pm_builder_child(b, 0);
      size_t n = json_array_size(v);
      if (t->id == PM_T_FIXED_LIST && n != (size_t)t->width) return bad(b, v, "wrong fixed-size list length", err);
      for (size_t i = 0; i < n; i++) PM_TRY(append_json(c, json_array_get(v, i), depth + 1, err));
      return pm_builder_append_valid(b, err);
    }
    case PM_T_MAP: {
      pm_builder *e = pm_builder_child(b, 0);
      pm_builder *k = pm_builder_child(e, 0), *val = pm_builder_child(e, 1);
      if (json_is_object(v)) {
        const char *key;
        json_t *item;
        json_object_foreach((json_t *)v, key, item) {
          /* Object keys are strings; for non-string key types read the key text as a JSON value. */
          pm_type_id kid = pm_builder_type(k)->id;
          json_t *kj = kid == PM_T_UTF8 || kid == PM_T_LARGE_UTF8 ? json_string(key)
                                                                  : json_loads(key, JSON_DECODE_ANY, NULL);
          if (!kj) kj = json_string(key);
          if (!kj) return PM_NOMEM(err);
          int rc = append_json(k, kj, depth + 1, err);
          json_decref(kj);
          PM_TRY(rc);
          PM_TRY(append_json(val, item, depth + 1, err));
          PM_TRY(pm_builder_append_valid(e, err));
        }
        return pm_builder_append_valid(b, err);
      }
      if (!json_is_array(v)) return bad(b, v, "expected an array of [key, value] pairs", err);
      for (size_t i = 0; i < json_array_size(v); i++) {
        const json_t *pair = json_array_get(v, i);
        if (!json_is_array(pair) || json_array_size(pair) != 2) return bad(b, pair, "expected a [key, value] pair", err);
        if (json_is_null(json_array_get(pair, 0))) return bad(b, pair, "map key is null", err);
        PM_TRY(append_json(k, json_array_get(pair, 0), depth + 1, err));
        PM_TRY(append_json(val, json_array_get(pair, 1), depth + 1, err));
        PM_TRY(pm_builder_append_valid(e, err));
      }
      return pm_builder_append_valid(b, err);
    }
    case PM_T_STRUCT: {
      if (json_is_object(v)) {
        for (int64_t i = 0; i < t->n_children; i++) {
          const char *name = t->children[i].name ? t->children[i].name : "";
          PM_TRY(append_json(pm_builder_child(b, i), json_object_get(v, name), depth + 1, err));
        }
      } else if (json_is_array(v) && json_array_size(v) == (size_t)t->n_children) {
        for (int64_t i = 0; i < t->n_children; i++)
          PM_TRY(append_json(pm_builder_child(b, i), json_array_get(v, (size_t)i), depth + 1, err));
      } else {
        return bad(b, v, "expected an object (or an array with one value per field)", err);
      }
      return pm_builder_append_valid(b, err);
    }
  }
  return bad(b, v, "unsupported type", err);
}

int pm_builder_append_json(pm_builder *b, const json_t *value, pm_error *err) {
  return append_json(b, value, 0, err);
}

int pm_json_lines_to_array(const pm_type *type, const char *text, size_t len, struct ArrowArray *out,
                           pm_error *err) {
  out->release = NULL;
  if (type->id != PM_T_STRUCT)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "json lines: the row type must be a struct");
  pm_builder *b;
  PM_TRY(pm_builder_new(type, &b, err));
  int rc = 0;
  size_t pos = 0;
  int64_t line_no = 0;
  while (!rc && pos < len) {
    const char *start = text + pos;
    const char *nl = memchr(start, '\n', len - pos);
    size_t n = nl ? (size_t)(nl - start) : len - pos;
    pos += n + (nl ? 1 : 0);
    line_no++;
    size_t k = 0;
    while (k < n && (start[k] == ' ' || start[k] == '\t' || start[k] == '\r')) k++;
    if (k == n) continue;
    json_error_t je;
    json_t *v = json_loadb(start, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
    if (!v) {
      rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "json lines: line %lld column %d: %s", (long long)line_no,
                     je.column, je.text);
      break;
    }
    rc = append_json(b, v, 0, err);
    json_decref(v);
    if (rc) pm_error_prefix(err, "json lines: line %lld: ", (long long)line_no);
  }
  if (!rc) rc = pm_builder_finish(b, out, err);
  pm_builder_free(b);
  return rc;
}
