/*
 * Arrow values as SQLite values: integers, floats and strings natively, booleans as 0/1,
 * DECIMAL as exact text, DATE / TIME / TIMESTAMP as ISO text (SQLite's date functions read
 * it; zoned timestamps end in "Z"), binary as blobs, ARRAY / MAP / ROW as JSON text (maps as
 * arrays of [key, value] pairs, rows as objects, as `paimon table read` prints them).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/psql.h"

/* ------------------------------------------------------------------------ buffer */

void psql_buf_put(psql_buf *b, const char *s, size_t n) {
  if (b->oom) return;
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 64;
    while (cap < b->len + n + 1) cap *= 2;
    char *d = realloc(b->data, cap);
    if (!d) {
      b->oom = 1;
      return;
    }
    b->data = d;
    b->cap = cap;
  }
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = 0;
}

void psql_buf_puts(psql_buf *b, const char *s) { psql_buf_put(b, s, strlen(s)); }

void psql_buf_printf(psql_buf *b, const char *fmt, ...) {
  char tmp[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n < sizeof tmp) {
    psql_buf_put(b, tmp, (size_t)n);
    return;
  }
  char *big = malloc((size_t)n + 1);
  if (!big) {
    b->oom = 1;
    return;
  }
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  psql_buf_put(b, big, (size_t)n);
  free(big);
}

void psql_buf_free(psql_buf *b) {
  free(b->data);
  memset(b, 0, sizeof *b);
}

void psql_buf_ident(psql_buf *b, const char *s) {
  psql_buf_put(b, "\"", 1);
  for (const char *p = s; *p; p++) {
    if (*p == '"') psql_buf_put(b, "\"", 1);
    psql_buf_put(b, p, 1);
  }
  psql_buf_put(b, "\"", 1);
}

/* ------------------------------------------------------------------------- types */

static char *dupstr(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s);
  char *d = malloc(n + 1);
  if (d) memcpy(d, s, n + 1);
  return d;
}

void psql_type_free(psql_type *t) {
  if (!t) return;
  for (int i = 0; i < t->n_children; i++) psql_type_free(&t->children[i]);
  free(t->children);
  free(t->name);
  memset(t, 0, sizeof *t);
}

static int unit_of(char c) { return c == 's' ? 0 : c == 'm' ? 1 : c == 'u' ? 2 : 3; }

static int parse(const struct ArrowSchema *s, psql_type *t, int depth, char **err) {
  memset(t, 0, sizeof *t);
  t->digits = -1;
  if (depth > 64) {
    *err = sqlite3_mprintf("Arrow type nested too deeply");
    return SQLITE_ERROR;
  }
  const char *f = s->format ? s->format : "";
  t->name = dupstr(s->name ? s->name : "");
  t->kind = '?';
  switch (f[0]) {
    case 'n': t->kind = 'n'; break;
    case 'b': t->kind = 'b'; break;
    case 'c': t->kind = 'i', t->bytes = 1; break;
    case 'C': t->kind = 'u', t->bytes = 1; break;
    case 's': t->kind = 'i', t->bytes = 2; break;
    case 'S': t->kind = 'u', t->bytes = 2; break;
    case 'i': t->kind = 'i', t->bytes = 4; break;
    case 'I': t->kind = 'u', t->bytes = 4; break;
    case 'l': t->kind = 'i', t->bytes = 8; break;
    case 'L': t->kind = 'u', t->bytes = 8; break;
    case 'f': t->kind = 'f'; break;
    case 'g': t->kind = 'g'; break;
    case 'u': t->kind = 's'; break;
    case 'U': t->kind = 'S'; break;
    case 'z': t->kind = 'y'; break;
    case 'Z': t->kind = 'Y'; break;
    case 'w':
      if (f[1] == ':') t->kind = 'w', t->bytes = atoi(f + 2);
      break;
    case 'd': {
      int p = 0, sc = 0, bits = 128;
      if (sscanf(f, "d:%d,%d,%d", &p, &sc, &bits) >= 2 && bits == 128) t->kind = 'd', t->precision = p, t->scale = sc;
      break;
    }
    case 't':
      if (f[1] == 'd') t->kind = f[2] == 'D' ? 'D' : 'M';
      else if (f[1] == 't') t->kind = 't', t->unit = unit_of(f[2]);
      else if (f[1] == 's') t->kind = 'T', t->unit = unit_of(f[2]), t->zoned = f[3] == ':' && f[4] != 0;
      break;
    case '+':
      if (f[1] == 'l') t->kind = 'l';
      else if (f[1] == 'L') t->kind = 'L';
      else if (f[1] == 'w' && f[2] == ':') t->kind = 'W', t->bytes = atoi(f + 3);
      else if (f[1] == 's') t->kind = 'r';
      else if (f[1] == 'm') t->kind = 'm';
      break;
    default: break;
  }
  if (s->dictionary) t->kind = '?'; /* libpaimon's reads do not dictionary-encode */
  if (s->n_children > 0) {
    t->children = calloc((size_t)s->n_children, sizeof *t->children);
    if (!t->children) return SQLITE_NOMEM;
    t->n_children = (int)s->n_children;
    for (int i = 0; i < t->n_children; i++) {
      int rc = parse(s->children[i], &t->children[i], depth + 1, err);
      if (rc) return rc;
    }
  }
  return SQLITE_OK;
}

int psql_type_from_schema(const struct ArrowSchema *s, psql_type *out, char **err) {
  int rc = parse(s, out, 0, err);
  if (rc) psql_type_free(out);
  return rc;
}

const char *psql_type_decl(const psql_type *t) {
  switch (t->kind) {
    case 'b':
    case 'i':
    case 'u': return "INTEGER";
    case 'f':
    case 'g': return "REAL";
    case 'y':
    case 'Y':
    case 'w': return "BLOB";
    default: return "TEXT";
  }
}

int psql_paimon_type_digits(const char *ty) {
  if (!ty) return -1;
  const char *p = NULL;
  if (!strncmp(ty, "TIMESTAMP", 9)) p = ty + 9;
  else if (!strncmp(ty, "TIME", 4)) p = ty + 4;
  else return -1;
  while (*p == '_' || (*p >= 'A' && *p <= 'Z')) p++; /* TIMESTAMP_LTZ */
  if (*p == '(') return atoi(p + 1);
  return !strncmp(ty, "TIMESTAMP", 9) ? 6 : 0;
}

/* -------------------------------------------------------------------- raw access */

static int is_null(const struct ArrowArray *a, int64_t row) {
  if (a->n_buffers < 1 || !a->buffers[0] || a->null_count == 0) return 0;
  int64_t i = a->offset + row;
  return !((((const uint8_t *)a->buffers[0])[i >> 3] >> (i & 7)) & 1);
}

static int64_t get_int(const psql_type *t, const struct ArrowArray *a, int64_t row) {
  int64_t i = a->offset + row;
  const void *v = a->buffers[1];
  switch (t->bytes) {
    case 1: return t->kind == 'i' ? (int64_t)((const int8_t *)v)[i] : (int64_t)((const uint8_t *)v)[i];
    case 2: return t->kind == 'i' ? (int64_t)((const int16_t *)v)[i] : (int64_t)((const uint16_t *)v)[i];
    case 4: return t->kind == 'i' ? (int64_t)((const int32_t *)v)[i] : (int64_t)((const uint32_t *)v)[i];
    default: return ((const int64_t *)v)[i];
  }
}

static int get_bool(const struct ArrowArray *a, int64_t row) {
  int64_t i = a->offset + row;
  return (((const uint8_t *)a->buffers[1])[i >> 3] >> (i & 7)) & 1;
}

/* Variable-width value: pointer and length. */
static const char *get_var(const psql_type *t, const struct ArrowArray *a, int64_t row, size_t *len) {
  int64_t i = a->offset + row;
  if (t->kind == 'w') {
    *len = (size_t)t->bytes;
    return (const char *)a->buffers[1] + i * t->bytes;
  }
  int64_t s, e;
  if (t->kind == 'S' || t->kind == 'Y') {
    s = ((const int64_t *)a->buffers[1])[i];
    e = ((const int64_t *)a->buffers[1])[i + 1];
  } else {
    s = ((const int32_t *)a->buffers[1])[i];
    e = ((const int32_t *)a->buffers[1])[i + 1];
  }
  *len = (size_t)(e - s);
  return (const char *)a->buffers[2] + s;
}

/* Children range of a list / map value. */
static void get_range(const psql_type *t, const struct ArrowArray *a, int64_t row, int64_t *s, int64_t *e) {
  int64_t i = a->offset + row;
  if (t->kind == 'W') {
    *s = i * t->bytes;
    *e = *s + t->bytes;
  } else if (t->kind == 'L') {
    *s = ((const int64_t *)a->buffers[1])[i];
    *e = ((const int64_t *)a->buffers[1])[i + 1];
  } else {
    *s = ((const int32_t *)a->buffers[1])[i];
    *e = ((const int32_t *)a->buffers[1])[i + 1];
  }
}

/* --------------------------------------------------------------------- formatting */

static void fmt_decimal(psql_buf *b, const psql_type *t, const struct ArrowArray *a, int64_t row) {
  const uint8_t *p = (const uint8_t *)a->buffers[1] + (a->offset + row) * 16;
  unsigned __int128 u = 0;
  for (int k = 15; k >= 0; k--) u = (u << 8) | p[k];
  int neg = (p[15] & 0x80) != 0;
  if (neg) u = ~u + 1;
  char digits[48];
  int n = 0;
  do {
    digits[n++] = (char)('0' + (int)(u % 10));
    u /= 10;
  } while (u);
  while (n <= t->scale) digits[n++] = '0';
  if (neg) psql_buf_put(b, "-", 1);
  for (int k = n - 1; k >= 0; k--) {
    if (k == t->scale - 1) psql_buf_put(b, ".", 1);
    psql_buf_put(b, &digits[k], 1);
  }
}

/* Civil date of a day number (days since 1970-01-01), proleptic Gregorian. */
static void civil(int64_t days, int64_t *y, int *m, int *d) {
  days += 719468;
  int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  int64_t doe = days - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  *d = (int)(doy - (153 * mp + 2) / 5 + 1);
  *m = (int)(mp < 10 ? mp + 3 : mp - 9);
  *y = yoe + era * 400 + (*m <= 2);
}

static void fmt_date(psql_buf *b, int64_t days) {
  int64_t y;
  int m, d;
  civil(days, &y, &m, &d);
  if (y >= 0 && y <= 9999) psql_buf_printf(b, "%04lld-%02d-%02d", (long long)y, m, d);
  else psql_buf_printf(b, "%+05lld-%02d-%02d", (long long)y, m, d);
}

static int64_t floordiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

/* HH:MM:SS[.f] of `frac` units (per_sec of them a second) within the day. */
static void fmt_clock(psql_buf *b, int64_t sec_of_day, int64_t frac, int unit, int digits) {
  psql_buf_printf(b, "%02d:%02d:%02d", (int)(sec_of_day / 3600), (int)(sec_of_day / 60 % 60),
                  (int)(sec_of_day % 60));
  int unit_digits = unit * 3;
  if (digits < 0) digits = unit_digits;
  if (digits == 0) return;
  /* frac has unit_digits digits; scale to 9 then cut to `digits` */
  int64_t ns = frac;
  for (int k = unit_digits; k < 9; k++) ns *= 10;
  char f[10];
  snprintf(f, sizeof f, "%09lld", (long long)ns);
  psql_buf_put(b, ".", 1);
  psql_buf_put(b, f, (size_t)(digits > 9 ? 9 : digits));
}

static const int64_t PER_SEC[4] = {1, 1000, 1000000, 1000000000};

static void fmt_timestamp(psql_buf *b, int64_t v, int unit, int zoned, int digits) {
  int64_t per = PER_SEC[unit];
  int64_t secs = floordiv(v, per), frac = v - secs * per;
  int64_t days = floordiv(secs, 86400), sod = secs - days * 86400;
  fmt_date(b, days);
  psql_buf_put(b, "T", 1);
  fmt_clock(b, sod, frac, unit, digits);
  if (zoned) psql_buf_put(b, "Z", 1);
}

static void fmt_time(psql_buf *b, const psql_type *t, const struct ArrowArray *a, int64_t row, int digits) {
  int64_t i = a->offset + row;
  int64_t v = t->unit <= 1 ? ((const int32_t *)a->buffers[1])[i] : ((const int64_t *)a->buffers[1])[i];
  int64_t per = PER_SEC[t->unit];
  fmt_clock(b, floordiv(v, per), v - floordiv(v, per) * per, t->unit, digits);
}

static void fmt_double(psql_buf *b, double d) {
  if (isnan(d)) {
    psql_buf_puts(b, "\"NaN\"");
    return;
  }
  if (isinf(d)) {
    psql_buf_puts(b, d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    return;
  }
  char s[40];
  for (int p = 1; p <= 17; p++) {
    snprintf(s, sizeof s, "%.*g", p, d);
    if (strtod(s, NULL) == d) break;
  }
  psql_buf_puts(b, s);
}

static void json_string(psql_buf *b, const char *s, size_t n) {
  psql_buf_put(b, "\"", 1);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      char e[2] = {'\\', (char)c};
      psql_buf_put(b, e, 2);
    } else if (c < 0x20) {
      psql_buf_printf(b, "\\u%04x", c);
    } else {
      psql_buf_put(b, (const char *)&s[i], 1);
    }
  }
  psql_buf_put(b, "\"", 1);
}

static void base64(psql_buf *b, const uint8_t *p, size_t n) {
  static const char T[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
    char o[4] = {T[v >> 18 & 63], T[v >> 12 & 63], i + 1 < n ? T[v >> 6 & 63] : '=', i + 2 < n ? T[v & 63] : '='};
    psql_buf_put(b, o, 4);
  }
}

/* One value as JSON (nested values). */
static void json_value(psql_buf *b, const psql_type *t, const struct ArrowArray *a, int64_t row, int digits) {
  if (t->kind == 'n' || t->kind == '?' || is_null(a, row)) {
    psql_buf_puts(b, "null");
    return;
  }
  switch (t->kind) {
    case 'b': psql_buf_puts(b, get_bool(a, row) ? "true" : "false"); return;
    case 'i': psql_buf_printf(b, "%lld", (long long)get_int(t, a, row)); return;
    case 'u':
      if (t->bytes == 8) psql_buf_printf(b, "%llu", (unsigned long long)(uint64_t)get_int(t, a, row));
      else psql_buf_printf(b, "%lld", (long long)get_int(t, a, row));
      return;
    case 'f': fmt_double(b, (double)((const float *)a->buffers[1])[a->offset + row]); return;
    case 'g': fmt_double(b, ((const double *)a->buffers[1])[a->offset + row]); return;
    case 's':
    case 'S': {
      size_t n;
      const char *s = get_var(t, a, row, &n);
      json_string(b, s, n);
      return;
    }
    case 'y':
    case 'Y':
    case 'w': {
      size_t n;
      const char *s = get_var(t, a, row, &n);
      psql_buf_put(b, "\"", 1);
      base64(b, (const uint8_t *)s, n);
      psql_buf_put(b, "\"", 1);
      return;
    }
    case 'l':
    case 'L':
    case 'W': {
      int64_t s, e;
      get_range(t, a, row, &s, &e);
      psql_buf_put(b, "[", 1);
      for (int64_t k = s; k < e; k++) {
        if (k > s) psql_buf_put(b, ",", 1);
        json_value(b, &t->children[0], a->children[0], k, -1);
      }
      psql_buf_put(b, "]", 1);
      return;
    }
    case 'm': {
      int64_t s, e;
      get_range(t, a, row, &s, &e);
      const psql_type *kv = &t->children[0];
      const struct ArrowArray *ka = a->children[0];
      psql_buf_put(b, "[", 1);
      for (int64_t k = s; k < e; k++) {
        if (k > s) psql_buf_put(b, ",", 1);
        psql_buf_put(b, "[", 1);
        json_value(b, &kv->children[0], ka->children[0], ka->offset + k, -1);
        psql_buf_put(b, ",", 1);
        json_value(b, &kv->children[1], ka->children[1], ka->offset + k, -1);
        psql_buf_put(b, "]", 1);
      }
      psql_buf_put(b, "]", 1);
      return;
    }
    case 'r':
      psql_buf_put(b, "{", 1);
      for (int c = 0; c < t->n_children; c++) {
        if (c) psql_buf_put(b, ",", 1);
        json_string(b, t->children[c].name, strlen(t->children[c].name));
        psql_buf_put(b, ":", 1);
        json_value(b, &t->children[c], a->children[c], a->offset + row, -1);
      }
      psql_buf_put(b, "}", 1);
      return;
    default: break;
  }
  /* decimal and temporal values as JSON strings */
  psql_buf_put(b, "\"", 1);
  switch (t->kind) {
    case 'd': fmt_decimal(b, t, a, row); break;
    case 'D': fmt_date(b, ((const int32_t *)a->buffers[1])[a->offset + row]); break;
    case 'M': fmt_date(b, floordiv(((const int64_t *)a->buffers[1])[a->offset + row], 86400000)); break;
    case 't': fmt_time(b, t, a, row, digits); break;
    case 'T': fmt_timestamp(b, ((const int64_t *)a->buffers[1])[a->offset + row], t->unit, t->zoned, digits); break;
    default: break;
  }
  psql_buf_put(b, "\"", 1);
}

void psql_result_value(sqlite3_context *ctx, const psql_type *t, const struct ArrowArray *a, int64_t row) {
  if (t->kind == 'n' || t->kind == '?' || is_null(a, row)) {
    sqlite3_result_null(ctx);
    return;
  }
  switch (t->kind) {
    case 'b': sqlite3_result_int(ctx, get_bool(a, row)); return;
    case 'i': sqlite3_result_int64(ctx, get_int(t, a, row)); return;
    case 'u': {
      int64_t v = get_int(t, a, row);
      if (t->bytes == 8 && v < 0) sqlite3_result_double(ctx, (double)(uint64_t)v);
      else sqlite3_result_int64(ctx, v);
      return;
    }
    case 'f': sqlite3_result_double(ctx, (double)((const float *)a->buffers[1])[a->offset + row]); return;
    case 'g': sqlite3_result_double(ctx, ((const double *)a->buffers[1])[a->offset + row]); return;
    case 's':
    case 'S': {
      size_t n;
      const char *s = get_var(t, a, row, &n);
      sqlite3_result_text64(ctx, s, n, SQLITE_TRANSIENT, SQLITE_UTF8);
      return;
    }
    case 'y':
    case 'Y':
    case 'w': {
      size_t n;
      const char *s = get_var(t, a, row, &n);
      sqlite3_result_blob64(ctx, s, n, SQLITE_TRANSIENT);
      return;
    }
    default: break;
  }
  psql_buf b = {0};
  if (t->kind == 'l' || t->kind == 'L' || t->kind == 'W' || t->kind == 'm' || t->kind == 'r') {
    json_value(&b, t, a, row, -1);
  } else {
    switch (t->kind) {
      case 'd': fmt_decimal(&b, t, a, row); break;
      case 'D': fmt_date(&b, ((const int32_t *)a->buffers[1])[a->offset + row]); break;
      case 'M': fmt_date(&b, floordiv(((const int64_t *)a->buffers[1])[a->offset + row], 86400000)); break;
      case 't': fmt_time(&b, t, a, row, t->digits); break;
      case 'T':
        fmt_timestamp(&b, ((const int64_t *)a->buffers[1])[a->offset + row], t->unit, t->zoned, t->digits);
        break;
      default: break;
    }
  }
  if (b.oom) {
    psql_buf_free(&b);
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (!b.data) {
    sqlite3_result_text(ctx, "", 0, SQLITE_STATIC);
    return;
  }
  sqlite3_result_text64(ctx, b.data, b.len, free, SQLITE_UTF8);
}

void psql_json_cell(psql_buf *b, const psql_type *t, const struct ArrowArray *a, int64_t row) {
  json_value(b, t, a, row, t->digits);
}

void psql_json_string(psql_buf *b, const char *s, size_t n) { json_string(b, s, n); }

void psql_json_double(psql_buf *b, double d) { fmt_double(b, d); }
