/* Filter predicates: construction, typed literals, stats and row evaluation, text parser. */
#include "data/predicate.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arrow/arrow.h"
#include "arrow/type.h"
#include "util/utf8.h"
#include "util/civil.h"

/* Tree depth the evaluators accept (the parser's nesting limit plus the
 * and/or levels between parentheses). */
#define PRED_MAX_DEPTH (4 * PM_PRED_MAX_NESTING)

__extension__ typedef __int128 pred_i128;

/* ------------------------------------------------------------------ values */

static int kind_is_string(pm_dtype_root k) { return k == PM_DT_CHAR || k == PM_DT_VARCHAR; }
static int vk_is_bytes(pm_value_kind k) { return k == PM_V_STRING || k == PM_V_BINARY; }
static int vk_is_num(pm_value_kind k) {
  return k == PM_V_BOOL || k == PM_V_INT || k == PM_V_FLOAT || k == PM_V_DOUBLE;
}
static int vk_is_float(pm_value_kind k) { return k == PM_V_FLOAT || k == PM_V_DOUBLE; }

static pm_value null_value(void) {
  pm_value v;
  memset(&v, 0, sizeof v);
  v.kind = PM_V_NULL;
  return v;
}

/* Java Double.compare: NaN greatest and equal to itself, -0.0 < 0.0. */
static int java_double_compare(double a, double b) {
  if (a < b) return -1;
  if (a > b) return 1;
  int64_t ba, bb;
  memcpy(&ba, &a, 8);
  memcpy(&bb, &b, 8);
  if (isnan(a)) ba = 0x7ff8000000000000LL;
  if (isnan(b)) bb = 0x7ff8000000000000LL;
  return ba < bb ? -1 : (ba > bb ? 1 : 0);
}

int pm_pred_value_compare(const pm_value *a, const pm_value *b) {
  if (vk_is_bytes(a->kind)) {
    size_t n = a->u.bytes.len < b->u.bytes.len ? a->u.bytes.len : b->u.bytes.len;
    int c = n ? memcmp(a->u.bytes.data, b->u.bytes.data, n) : 0;
    if (c) return c < 0 ? -1 : 1;
    return a->u.bytes.len < b->u.bytes.len ? -1 : (a->u.bytes.len > b->u.bytes.len ? 1 : 0);
  }
  if (vk_is_float(a->kind) || vk_is_float(b->kind)) {
    double x = vk_is_float(a->kind) ? a->u.f64 : (double)a->u.i64;
    double y = vk_is_float(b->kind) ? b->u.f64 : (double)b->u.i64;
    return java_double_compare(x, y);
  }
  if (a->kind == PM_V_DECIMAL) {
    if (a->u.dec.hi != b->u.dec.hi) return a->u.dec.hi < b->u.dec.hi ? -1 : 1;
    return a->u.dec.lo < b->u.dec.lo ? -1 : (a->u.dec.lo > b->u.dec.lo ? 1 : 0);
  }
  if (a->kind == PM_V_TIMESTAMP) {
    if (a->u.ts.millis != b->u.ts.millis) return a->u.ts.millis < b->u.ts.millis ? -1 : 1;
    return a->u.ts.nanos < b->u.ts.nanos ? -1 : (a->u.ts.nanos > b->u.ts.nanos ? 1 : 0);
  }
  return a->u.i64 < b->u.i64 ? -1 : (a->u.i64 > b->u.i64 ? 1 : 0);
}

/* Values of two kinds can be compared only within one class. */
static int kinds_comparable(pm_value_kind a, pm_value_kind b) {
  if (vk_is_num(a) || vk_is_num(b)) return vk_is_num(a) && vk_is_num(b);
  if (vk_is_bytes(a) || vk_is_bytes(b)) return vk_is_bytes(a) && vk_is_bytes(b);
  return a == b && (a == PM_V_DECIMAL || a == PM_V_TIMESTAMP);
}

/* -------------------------------------------------------- literal typing */

/* "YYYY-MM-DD" prefix with a real calendar date; returns chars consumed or 0. */
static size_t parse_date_prefix(const char *s, size_t n, int64_t *days) {
  int y, mo, d, used = 0;
  char buf[64];
  if (n >= sizeof buf) n = sizeof buf - 1;
  memcpy(buf, s, n);
  buf[n] = 0;
  if (!isdigit((unsigned char)buf[0]) && buf[0] != '-') return 0;
  if (sscanf(buf, "%d-%d-%d%n", &y, &mo, &d, &used) != 3 || mo < 1 || mo > 12 || d < 1 || d > 31) return 0;
  *days = pm_days_from_civil(y, mo, d);
  int64_t ry;
  int rm, rd;
  pm_civil_from_days(*days, &ry, &rm, &rd);
  if (rm != mo || rd != d) return 0; /* 2023-02-30 */
  return (size_t)used;
}

/* "HH:MM[:SS[.f{1,9}]]": millis of day + nanos of milli. Returns chars consumed or 0. */
static size_t parse_time_prefix(const char *s, size_t n, int64_t *millis, int32_t *nanos) {
  size_t i = 0;
  int h = 0, m = 0, sec = 0;
  int64_t frac = 0;
  int digits = 0;
  if (n < 5 || !isdigit((unsigned char)s[0]) || !isdigit((unsigned char)s[1]) || s[2] != ':' ||
      !isdigit((unsigned char)s[3]) || !isdigit((unsigned char)s[4]))
    return 0;
  h = (s[0] - '0') * 10 + (s[1] - '0');
  m = (s[3] - '0') * 10 + (s[4] - '0');
  i = 5;
  if (i + 2 < n + 0 && s[i] == ':' && isdigit((unsigned char)s[i + 1]) && isdigit((unsigned char)s[i + 2])) {
    sec = (s[i + 1] - '0') * 10 + (s[i + 2] - '0');
    i += 3;
    if (i < n && s[i] == '.') {
      i++;
      while (i < n && isdigit((unsigned char)s[i])) {
        if (digits < 9) {
          frac = frac * 10 + (s[i] - '0');
          digits++;
        }
        i++;
      }
      if (digits == 0) return 0;
    }
  }
  if (h > 23 || m > 59 || sec > 59) return 0;
  while (digits < 9) {
    frac *= 10;
    digits++;
  }
  *millis = ((int64_t)h * 3600 + m * 60 + sec) * 1000 + frac / 1000000;
  *nanos = (int32_t)(frac % 1000000);
  return i;
}

/* Parses a date or date-time string as a wall-clock instant (UTC). */
int pm_parse_timestamp_text(const char *s, size_t n, int64_t *millis, int32_t *nanos);
int pm_parse_timestamp_text(const char *s, size_t n, int64_t *millis, int32_t *nanos) {
  int64_t days = 0, ms = 0;
  int32_t ns = 0;
  size_t used = parse_date_prefix(s, n, &days);
  if (!used) return -1;
  if (used < n) {
    if (s[used] != ' ' && s[used] != 'T') return -1;
    size_t t = parse_time_prefix(s + used + 1, n - used - 1, &ms, &ns);
    if (!t || used + 1 + t != n) return -1;
  }
  *millis = days * 86400000LL + ms;
  *nanos = ns;
  return 0;
}

int pm_parse_timestamp_zoned(const char *s, size_t n, int64_t *millis, int32_t *nanos, int *zoned, int32_t *offset) {
  *zoned = 0;
  *offset = 0;
  if (!pm_parse_timestamp_text(s, n, millis, nanos)) return 0;
  /* The zone starts at the last 'Z', 'z', '+', ' UTC' or a '-' after the time. */
  size_t z = n;
  if (n >= 4 && !memcmp(s + n - 4, " UTC", 4)) z = n - 4;
  else if (n && (s[n - 1] == 'Z' || s[n - 1] == 'z')) z = n - 1;
  else {
    for (size_t i = n; i > 11; i--)
      if (s[i - 1] == '+' || s[i - 1] == '-') {
        z = i - 1;
        break;
      }
    if (z == n) return -1;
    if (pm_tz_parse_offset(s + z, n - z, offset)) return -1;
  }
  size_t end = z;
  if (end && s[end - 1] == ' ') end--;
  if (end < 16 || pm_parse_timestamp_text(s, end, millis, nanos)) return -1; /* a time must be given */
  *zoned = 1;
  return 0;
}

/* Parses a decimal text into unscaled at `scale`. */
static int parse_decimal_text(const char *s, size_t n, int32_t scale, int64_t *out) {
  size_t i = 0;
  int neg = 0, frac_digits = 0, seen_dot = 0, any = 0;
  pred_i128 v = 0;
  if (i < n && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
  for (; i < n; i++) {
    if (s[i] == '.' && !seen_dot) {
      seen_dot = 1;
      continue;
    }
    if (!isdigit((unsigned char)s[i])) return -1;
    any = 1;
    if (seen_dot) {
      if (frac_digits >= scale) {
        if (s[i] != '0') return -2; /* would lose precision */
        continue;
      }
      frac_digits++;
    }
    v = v * 10 + (s[i] - '0');
    if (v > (pred_i128)INT64_MAX) return -3;
  }
  if (!any) return -1;
  for (; frac_digits < scale; frac_digits++) {
    v *= 10;
    if (v > (pred_i128)INT64_MAX) return -3;
  }
  *out = (int64_t)(neg ? -v : v);
  return 0;
}

static const char *root_name(pm_dtype_root r) { return pm_dtype_root_name(r); }

/* The column's type as the schema spells it ("DECIMAL(10, 2)"), without NOT NULL. */
static void col_type_text(const pm_pred_column *col, char *buf, size_t cap) {
  char *t = pm_dtype_to_cstring(col->type);
  if (!t) {
    snprintf(buf, cap, "%s", root_name(col->type->root));
    return;
  }
  size_t n = strlen(t);
  if (n > 9 && !strcmp(t + n - 9, " NOT NULL")) t[n - 9] = 0;
  snprintf(buf, cap, "%s", t);
  free(t);
}
/* Plain text of a decimal whose unscaled value fits 64 bits (else "<decimal>"). */
static void format_decimal(const pm_decimal *d, char *buf, size_t cap) {
  int64_t v = (int64_t)d->lo;
  if (!((d->hi == 0 && v >= 0) || (d->hi == -1 && v < 0))) {
    snprintf(buf, cap, "<decimal>");
    return;
  }
  uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  char digits[32];
  int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)mag);
  int sc = d->scale > 0 && d->scale < 30 ? d->scale : 0;
  char out[64];
  size_t k = 0;
  if (v < 0) out[k++] = '-';
  if (n <= sc) {
    out[k++] = '0';
    out[k++] = '.';
    for (int i = n; i < sc; i++) out[k++] = '0';
    memcpy(out + k, digits, (size_t)n);
    k += (size_t)n;
  } else {
    memcpy(out + k, digits, (size_t)(n - sc));
    k += (size_t)(n - sc);
    if (sc) {
      out[k++] = '.';
      memcpy(out + k, digits + n - sc, (size_t)sc);
      k += (size_t)sc;
    }
  }
  out[k] = 0;
  snprintf(buf, cap, "%s", out);
}

/* What a caller literal is, for error messages: "'abc'", "42", "true",
 * "DATE '1970-01-02'", "a byte string of 3 bytes". */
static void describe_literal(const pm_literal *lit, char *buf, size_t cap) {
  char tmp[64];
  switch (lit->kind) {
    case PM_LIT_NULL: snprintf(buf, cap, "NULL"); return;
    case PM_LIT_BOOL: snprintf(buf, cap, "%s", lit->i ? "true" : "false"); return;
    case PM_LIT_INT: snprintf(buf, cap, "%lld", (long long)lit->i); return;
    case PM_LIT_DOUBLE:
      if (lit->s) snprintf(buf, cap, "%.*s", (int)(lit->len < 60 ? lit->len : 60), lit->s);
      else snprintf(buf, cap, "%.17g", lit->d);
      return;
    case PM_LIT_STRING:
      if (lit->len > 60) snprintf(buf, cap, "'%.60s...'", lit->s);
      else snprintf(buf, cap, "'%.*s'", (int)lit->len, lit->s ? lit->s : "");
      return;
    case PM_LIT_BYTES: snprintf(buf, cap, "a byte string of %zu bytes", lit->len); return;
    case PM_LIT_DECIMAL: {
      pm_decimal d = {(uint64_t)lit->i, lit->i < 0 ? -1 : 0, 38, lit->scale};
      format_decimal(&d, tmp, sizeof tmp);
      snprintf(buf, cap, "%s", tmp);
      return;
    }
    case PM_LIT_DATE: {
      int64_t y;
      int m, d;
      pm_civil_from_days(lit->i, &y, &m, &d);
      snprintf(buf, cap, "DATE '%04lld-%02d-%02d'", (long long)y, m, d);
      return;
    }
    case PM_LIT_TIME: {
      int64_t ms = lit->i;
      snprintf(buf, cap, "TIME '%02lld:%02lld:%02lld.%03lld'", (long long)(ms / 3600000), (long long)(ms / 60000 % 60),
               (long long)(ms / 1000 % 60), (long long)(ms % 1000));
      return;
    }
    case PM_LIT_TIMESTAMP: {
      int64_t days = pm_floor_div(lit->i, 86400000LL), ms = lit->i - days * 86400000LL, y;
      int m, d;
      pm_civil_from_days(days, &y, &m, &d);
      snprintf(buf, cap, "TIMESTAMP '%04lld-%02d-%02d %02lld:%02lld:%02lld.%03lld'", (long long)y, m, d,
               (long long)(ms / 3600000), (long long)(ms / 60000 % 60), (long long)(ms / 1000 % 60),
               (long long)(ms % 1000));
      return;
    }
  }
  snprintf(buf, cap, "a literal of unknown kind %d", (int)lit->kind);
}

/* "a BOOLEAN", "an integer", ... for "why it does not fit". */
static const char *literal_kind_text(pm_literal_kind k) {
  switch (k) {
    case PM_LIT_NULL: return "NULL";
    case PM_LIT_BOOL: return "a boolean";
    case PM_LIT_INT: return "an integer";
    case PM_LIT_DOUBLE: return "a floating-point number";
    case PM_LIT_STRING: return "a string";
    case PM_LIT_BYTES: return "a byte string";
    case PM_LIT_DECIMAL: return "a decimal number";
    case PM_LIT_DATE: return "a date";
    case PM_LIT_TIME: return "a time of day";
    case PM_LIT_TIMESTAMP: return "a timestamp";
  }
  return "an unknown kind of literal";
}

/* "'1970-13-45' is not a valid DATE for column 'f12'" */
static int not_valid(const pm_literal *lit, const pm_pred_column *col, pm_error *err) {
  char v[96], t[96];
  describe_literal(lit, v, sizeof v);
  col_type_text(col, t, sizeof t);
  return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s is not a valid %s for column '%s'", v, t,
                   col->name ? col->name : "?");
}

/* "true does not fit column 'f1' of type INT: a boolean is not a number" */
static int does_not_fit(const pm_literal *lit, const pm_pred_column *col, const char *why, pm_error *err) {
  char v[96], t[96], w[160];
  describe_literal(lit, v, sizeof v);
  col_type_text(col, t, sizeof t);
  if (!why) {
    snprintf(w, sizeof w, "%s cannot be compared with %s", literal_kind_text(lit->kind), t);
    why = w;
  }
  return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s does not fit column '%s' of type %s: %s", v,
                   col->name ? col->name : "?", t, why);
}

/* Epoch millis of a wall-clock time in zone tz (NULL = UTC). */
static int64_t wall_to_instant(const pm_tz *tz, int64_t wall_millis) {
  int64_t secs = pm_floor_div(wall_millis, 1000);
  return wall_millis + (pm_tz_local_to_utc(tz, secs) - secs) * 1000;
}
/* Wall-clock millis in zone tz of an instant. */
static int64_t instant_to_wall(const pm_tz *tz, int64_t millis) {
  return millis + (int64_t)pm_tz_offset_at_utc(tz, pm_floor_div(millis, 1000)) * 1000;
}

int pm_literal_to_value(const pm_literal *lit, const pm_pred_column *col, pm_value *out, uint8_t **owned,
                        pm_error *err) {
  return pm_literal_to_value_tz(lit, col, NULL, out, owned, err);
}

int pm_literal_to_value_tz(const pm_literal *lit, const pm_pred_column *col, const pm_tz *tz, pm_value *out,
                           uint8_t **owned, pm_error *err) {
  pm_dtype_root k = col->type->root;
  memset(out, 0, sizeof *out);
  *owned = NULL;
  out->kind = PM_V_NULL;
  if (lit->kind == PM_LIT_NULL) return 0;
  const char *cn = col->name ? col->name : "?";
#define MISMATCH() does_not_fit(lit, col, NULL, err)
#define INVALID() not_valid(lit, col, err)
  switch (k) {
    case PM_DT_BOOLEAN:
      if (lit->kind == PM_LIT_BOOL || lit->kind == PM_LIT_INT) {
        if (lit->i != 0 && lit->i != 1) return does_not_fit(lit, col, "a BOOLEAN is true, false, 1 or 0", err);
        out->kind = PM_V_BOOL;
        out->u.i64 = lit->i;
        return 0;
      }
      if (lit->kind == PM_LIT_STRING) {
        out->kind = PM_V_BOOL;
        if (lit->len == 4 && !strncasecmp(lit->s, "true", 4)) out->u.i64 = 1;
        else if (lit->len == 5 && !strncasecmp(lit->s, "false", 5)) out->u.i64 = 0;
        else return INVALID();
        return 0;
      }
      return MISMATCH();
    case PM_DT_TINYINT:
    case PM_DT_SMALLINT:
    case PM_DT_INT:
    case PM_DT_BIGINT: {
      int64_t v;
      if (lit->kind == PM_LIT_INT) v = lit->i;
      else if (lit->kind == PM_LIT_DOUBLE && lit->d == floor(lit->d) && fabs(lit->d) < 9.2e18) v = (int64_t)lit->d;
      else if (lit->kind == PM_LIT_DOUBLE) return does_not_fit(lit, col, "the column holds whole numbers", err);
      else if (lit->kind == PM_LIT_STRING) {
        char buf[32], *end;
        if (lit->len == 0 || lit->len >= sizeof buf) return INVALID();
        memcpy(buf, lit->s, lit->len);
        buf[lit->len] = 0;
        errno = 0;
        v = strtoll(buf, &end, 10);
        if (*end || errno) return INVALID();
      } else
        return MISMATCH();
      int64_t lo = k == PM_DT_TINYINT ? INT8_MIN : k == PM_DT_SMALLINT ? INT16_MIN : k == PM_DT_INT ? INT32_MIN : INT64_MIN;
      int64_t hi = k == PM_DT_TINYINT ? INT8_MAX : k == PM_DT_SMALLINT ? INT16_MAX : k == PM_DT_INT ? INT32_MAX : INT64_MAX;
      if (v < lo || v > hi)
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                         "literal %lld is out of range for column '%s' of type %s (%lld to %lld)", (long long)v, cn,
                         root_name(k), (long long)lo, (long long)hi);
      out->kind = PM_V_INT;
      out->u.i64 = v;
      return 0;
    }
    case PM_DT_FLOAT:
    case PM_DT_DOUBLE:
      out->kind = k == PM_DT_FLOAT ? PM_V_FLOAT : PM_V_DOUBLE;
      if (lit->kind == PM_LIT_DOUBLE) out->u.f64 = lit->d;
      else if (lit->kind == PM_LIT_INT) out->u.f64 = (double)lit->i;
      else if (lit->kind == PM_LIT_STRING) {
        char buf[64], *end;
        if (lit->len == 0 || lit->len >= sizeof buf) return INVALID();
        memcpy(buf, lit->s, lit->len);
        buf[lit->len] = 0;
        out->u.f64 = strtod(buf, &end);
        if (*end) return INVALID();
      } else
        return MISMATCH();
      if (k == PM_DT_FLOAT) out->u.f64 = (double)(float)out->u.f64;
      return 0;
    case PM_DT_DECIMAL: {
      int64_t unscaled;
      int32_t scale = col->type->scale;
      if (lit->kind == PM_LIT_INT || lit->kind == PM_LIT_DECIMAL) {
        int32_t ls = lit->kind == PM_LIT_DECIMAL ? lit->scale : 0;
        pred_i128 v = lit->i;
        while (ls < scale) {
          v *= 10;
          ls++;
          if (v > (pred_i128)INT64_MAX || v < (pred_i128)INT64_MIN)
            return does_not_fit(lit, col, "too many digits", err);
        }
        while (ls > scale) {
          if (v % 10) return does_not_fit(lit, col, "more fraction digits than the column's scale", err);
          v /= 10;
          ls--;
        }
        unscaled = (int64_t)v;
      } else if (lit->kind == PM_LIT_DOUBLE) {
        double v = lit->d * pow(10.0, scale);
        if (!(fabs(v) < 9.2e18)) return does_not_fit(lit, col, "too many digits", err);
        unscaled = (int64_t)llround(v);
      } else if (lit->kind == PM_LIT_STRING) {
        int r = parse_decimal_text(lit->s, lit->len, scale, &unscaled);
        if (r == -2) return does_not_fit(lit, col, "more fraction digits than the column's scale", err);
        if (r == -3) return does_not_fit(lit, col, "too many digits", err);
        if (r) return INVALID();
      } else
        return MISMATCH();
      out->kind = PM_V_DECIMAL;
      out->u.dec.lo = (uint64_t)unscaled;
      out->u.dec.hi = unscaled < 0 ? -1 : 0;
      out->u.dec.precision = col->type->precision;
      out->u.dec.scale = scale;
      return 0;
    }
    case PM_DT_CHAR:
    case PM_DT_VARCHAR:
    case PM_DT_BINARY:
    case PM_DT_VARBINARY:
    case PM_DT_BLOB:
      if (lit->kind != PM_LIT_STRING && lit->kind != PM_LIT_BYTES) return MISMATCH();
      if (lit->kind == PM_LIT_BYTES && kind_is_string(k)) return does_not_fit(lit, col, "bytes are not text", err);
      *owned = malloc(lit->len ? lit->len : 1);
      if (!*owned) return PM_NOMEM(err);
      if (lit->len) memcpy(*owned, lit->s, lit->len);
      out->kind = kind_is_string(k) ? PM_V_STRING : PM_V_BINARY;
      out->u.bytes.data = *owned;
      out->u.bytes.len = lit->len;
      return 0;
    case PM_DT_DATE:
      if (lit->kind == PM_LIT_DATE || lit->kind == PM_LIT_INT) {
        out->kind = PM_V_INT;
        out->u.i64 = lit->i;
        return 0;
      }
      if (lit->kind == PM_LIT_STRING) {
        int64_t days;
        if (parse_date_prefix(lit->s, lit->len, &days) != lit->len) return INVALID();
        out->kind = PM_V_INT;
        out->u.i64 = days;
        return 0;
      }
      return MISMATCH();
    case PM_DT_TIME:
      if (lit->kind == PM_LIT_TIME || lit->kind == PM_LIT_INT) {
        out->kind = PM_V_INT;
        out->u.i64 = lit->i;
        return 0;
      }
      if (lit->kind == PM_LIT_STRING) {
        int64_t ms;
        int32_t ns;
        if (parse_time_prefix(lit->s, lit->len, &ms, &ns) != lit->len) return INVALID();
        out->kind = PM_V_INT;
        out->u.i64 = ms;
        return 0;
      }
      return MISMATCH();
    case PM_DT_TIMESTAMP:
    case PM_DT_TIMESTAMP_LTZ: {
      /* LTZ values are instants (epoch millis UTC); TIMESTAMP values are wall clocks. */
      int ltz = k == PM_DT_TIMESTAMP_LTZ;
      out->kind = PM_V_TIMESTAMP;
      if (lit->kind == PM_LIT_TIMESTAMP) { /* epoch millis: the instant (LTZ) or the wall clock */
        if (lit->nanos < 0 || lit->nanos > 999999)
          return does_not_fit(lit, col, "nanoseconds of the millisecond must be 0 to 999999", err);
        out->u.ts.millis = lit->i;
        out->u.ts.nanos = lit->nanos;
        return 0;
      }
      if (lit->kind == PM_LIT_DATE) { /* midnight (in the session zone for LTZ) */
        out->u.ts.millis = ltz ? wall_to_instant(tz, lit->i * 86400000LL) : lit->i * 86400000LL;
        return 0;
      }
      if (lit->kind == PM_LIT_STRING) {
        int64_t wall;
        int32_t ns, off;
        int zoned;
        if (pm_parse_timestamp_zoned(lit->s, lit->len, &wall, &ns, &zoned, &off)) {
          out->kind = PM_V_NULL;
          return INVALID();
        }
        int64_t instant = zoned ? wall - (int64_t)off * 1000 : 0;
        if (ltz) out->u.ts.millis = zoned ? instant : wall_to_instant(tz, wall);
        else out->u.ts.millis = zoned ? instant_to_wall(tz, instant) : wall;
        out->u.ts.nanos = ns;
        return 0;
      }
      out->kind = PM_V_NULL;
      if (lit->kind == PM_LIT_INT || lit->kind == PM_LIT_DOUBLE || lit->kind == PM_LIT_DECIMAL)
        return does_not_fit(lit, col,
                            "a number is not a timestamp (write a timestamp such as '1970-01-01 00:00:03', "
                            "'1970-01-01T00:00:03Z' or TIMESTAMP '1970-01-01 00:00:03')",
                            err);
      return MISMATCH();
    }
    default: {
      char t[96];
      col_type_text(col, t, sizeof t);
      return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "column '%s' of type %s cannot be used in a predicate", cn, t);
    }
  }
#undef MISMATCH
#undef INVALID
}

/* --------------------------------------------------------- construction */

static pm_predicate *pred_alloc(pm_pred_op op) {
  pm_predicate *p = calloc(1, sizeof *p);
  if (p) {
    p->op = op;
    p->field_index = -1;
    p->field_id = -1;
  }
  return p;
}

void pm_pred_free(pm_predicate *p) {
  if (!p) return;
  for (size_t i = 0; i < p->n_children; i++) pm_pred_free(p->children[i]);
  free(p->children);
  for (size_t i = 0; i < p->n_literals; i++)
    if (vk_is_bytes(p->literals[i].kind)) free((void *)p->literals[i].u.bytes.data);
  free(p->literals);
  free(p->in_sorted);
  free(p->field_name);
  free(p);
}

#define IN_SORT_MIN 8 /* below this many literals a linear scan is as fast */

static int in_cmp(const void *a, const void *b) { return pm_pred_value_compare(a, b); }

/* Builds p->in_sorted for an IN / NOT IN leaf whose non-null literals are all of one kind
 * (all bytes, or one scalar kind: a total order, Java's Double.compare for floats). */
static int build_in_index(pm_predicate *p, pm_error *err) {
  if ((p->op != PM_PRED_IN && p->op != PM_PRED_NOT_IN) || p->n_literals < IN_SORT_MIN) return 0;
  pm_value_kind k = PM_V_NULL;
  size_t n = 0;
  for (size_t i = 0; i < p->n_literals; i++) {
    pm_value_kind lk = p->literals[i].kind;
    if (lk == PM_V_NULL) continue;
    if (k == PM_V_NULL) k = lk;
    else if (lk != k && !(vk_is_bytes(lk) && vk_is_bytes(k))) return 0;
    n++;
  }
  pm_value *v = malloc((n ? n : 1) * sizeof *v);
  if (!v) return PM_NOMEM(err);
  n = 0;
  for (size_t i = 0; i < p->n_literals; i++)
    if (p->literals[i].kind != PM_V_NULL) v[n++] = p->literals[i];
    else p->in_has_null = 1;
  qsort(v, n, sizeof *v, in_cmp);
  p->in_sorted = v;
  p->n_in_sorted = n;
  return 0;
}

static int in_sorted_has(const pm_predicate *p, const pm_value *v) {
  size_t lo = 0, hi = p->n_in_sorted;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = pm_pred_value_compare(&p->in_sorted[mid], v);
    if (c == 0) return 1;
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return 0;
}

/* The string functions and their negations. */
static int op_is_string_fn(pm_pred_op op) {
  return op == PM_PRED_STARTS_WITH || op == PM_PRED_ENDS_WITH || op == PM_PRED_CONTAINS || op == PM_PRED_LIKE ||
         op == PM_PRED_NOT_STARTS_WITH || op == PM_PRED_NOT_ENDS_WITH || op == PM_PRED_NOT_CONTAINS ||
         op == PM_PRED_NOT_LIKE;
}

static int op_is_leaf(pm_pred_op op) {
  return op != PM_PRED_AND && op != PM_PRED_OR && op != PM_PRED_ALWAYS_TRUE && op != PM_PRED_ALWAYS_FALSE;
}

const char *pm_pred_op_name(pm_pred_op op) {
  static const char *names[] = {"and",         "or",          "equal",          "notEqual",   "lessThan",
                                "lessOrEqual", "greaterThan", "greaterOrEqual", "isNull",     "isNotNull",
                                "in",          "notIn",       "startsWith",     "endsWith",   "contains",
                                "like",        "alwaysTrue",  "alwaysFalse",    "notLike",    "notStartsWith",
                                "notEndsWith", "notContains"};
  return (unsigned)op < sizeof names / sizeof names[0] ? names[op] : "?";
}

int pm_pred_leaf(pm_pred_op op, const pm_pred_column *col, const pm_literal *lits, size_t n, pm_predicate **out,
                 pm_error *err) {
  return pm_pred_leaf_tz(op, col, lits, n, NULL, out, err);
}

int pm_pred_leaf_tz(pm_pred_op op, const pm_pred_column *col, const pm_literal *lits, size_t n, const pm_tz *tz,
                    pm_predicate **out, pm_error *err) {
  *out = NULL;
  if (!op_is_leaf(op) || !col || !col->type)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "predicate %s is not a leaf or has no column", pm_pred_op_name(op));
  const char *cn = col->name ? col->name : "?";
  size_t want_min = 1, want_max = 1;
  if (op == PM_PRED_IS_NULL || op == PM_PRED_IS_NOT_NULL) want_min = want_max = 0;
  if (op == PM_PRED_IN || op == PM_PRED_NOT_IN) want_max = (size_t)-1;
  if (n < want_min || n > want_max)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "predicate %s on '%s' takes %s literal(s), got %zu",
                     pm_pred_op_name(op), cn, want_max == 0 ? "no" : want_max == 1 ? "one" : "at least one", n);
  pm_dtype_root k = col->type->root;
  if (pm_dtype_is_nested(k))
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "predicate %s on nested column '%s' is not supported",
                     pm_pred_op_name(op), cn);
  if (op_is_string_fn(op) && !kind_is_string(k))
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "predicate %s needs a string column, '%s' is %s",
                     pm_pred_op_name(op), cn, root_name(k));
  pm_predicate *p = pred_alloc(op);
  if (!p) return PM_NOMEM(err);
  p->field_name = strdup(cn);
  p->field_index = col->index;
  p->field_id = col->field_id;
  p->kind = k;
  p->precision = col->type->precision;
  p->scale = col->type->scale;
  if (!p->field_name || (n && !(p->literals = calloc(n, sizeof *p->literals)))) {
    pm_pred_free(p);
    return PM_NOMEM(err);
  }
  for (size_t i = 0; i < n; i++) {
    uint8_t *owned = NULL;
    int rc = pm_literal_to_value_tz(&lits[i], col, tz, &p->literals[i], &owned, err);
    if (rc) {
      pm_pred_free(p);
      return rc;
    }
    p->n_literals = i + 1;
  }
  int brc = build_in_index(p, err);
  if (brc) {
    pm_pred_free(p);
    return brc;
  }
  if ((op == PM_PRED_LIKE || op == PM_PRED_NOT_LIKE) && p->literals[0].kind != PM_V_NULL) {
    if (pm_like_match((const uint8_t *)"", 0, p->literals[0].u.bytes.data, p->literals[0].u.bytes.len) < 0) {
      pm_pred_free(p);
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "LIKE pattern on '%s' has an invalid escape", cn);
    }
  }
  *out = p;
  return 0;
}

int pm_pred_compound(pm_pred_op op, pm_predicate **children, size_t n, pm_predicate **out, pm_error *err) {
  *out = NULL;
  if ((op != PM_PRED_AND && op != PM_PRED_OR) || n == 0) {
    for (size_t i = 0; i < n; i++) pm_pred_free(children[i]);
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "compound predicate needs and/or with at least one child");
  }
  pm_predicate *p = pred_alloc(op);
  if (p) p->children = malloc(n * sizeof *p->children);
  if (!p || !p->children) {
    free(p);
    for (size_t i = 0; i < n; i++) pm_pred_free(children[i]);
    return PM_NOMEM(err);
  }
  for (size_t i = 0; i < n; i++) {
    if (!children[i]) {
      for (size_t j = 0; j < n; j++) pm_pred_free(children[j]);
      free(p->children);
      free(p);
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "compound predicate with a NULL child");
    }
    p->children[i] = children[i];
  }
  p->n_children = n;
  *out = p;
  return 0;
}

int pm_pred_const(int value, pm_predicate **out, pm_error *err) {
  *out = pred_alloc(value ? PM_PRED_ALWAYS_TRUE : PM_PRED_ALWAYS_FALSE);
  return *out ? 0 : PM_NOMEM(err);
}

int pm_pred_copy(const pm_predicate *p, pm_predicate **out, pm_error *err) {
  *out = NULL;
  pm_predicate *c = pred_alloc(p->op);
  if (!c) return PM_NOMEM(err);
  c->field_index = p->field_index;
  c->field_id = p->field_id;
  c->kind = p->kind;
  c->precision = p->precision;
  c->scale = p->scale;
  if (p->field_name && !(c->field_name = strdup(p->field_name))) goto nomem;
  if (p->n_literals) {
    if (!(c->literals = calloc(p->n_literals, sizeof *c->literals))) goto nomem;
    for (size_t i = 0; i < p->n_literals; i++) {
      c->literals[i] = p->literals[i];
      if (vk_is_bytes(p->literals[i].kind)) {
        size_t n = p->literals[i].u.bytes.len;
        c->literals[i].kind = PM_V_NULL; /* not owned until copied */
        uint8_t *b = malloc(n ? n : 1);
        if (!b) goto nomem;
        if (n) memcpy(b, p->literals[i].u.bytes.data, n);
        c->literals[i].kind = p->literals[i].kind;
        c->literals[i].u.bytes.data = b;
      }
      c->n_literals = i + 1;
    }
  }
  if (p->in_sorted) {
    int brc = build_in_index(c, err);
    if (brc) {
      pm_pred_free(c);
      return brc;
    }
  }
  if (p->n_children) {
    if (!(c->children = calloc(p->n_children, sizeof *c->children))) goto nomem;
    for (size_t i = 0; i < p->n_children; i++) {
      int rc = pm_pred_copy(p->children[i], &c->children[i], err);
      if (rc) {
        pm_pred_free(c);
        return rc;
      }
      c->n_children = i + 1;
    }
  }
  *out = c;
  return 0;
nomem:
  pm_pred_free(c);
  return PM_NOMEM(err);
}

int pm_pred_negate(const pm_predicate *p, pm_predicate **out, pm_error *err) {
  *out = NULL;
  pm_pred_op neg;
  switch (p->op) {
    case PM_PRED_AND:
    case PM_PRED_OR: {
      pm_predicate **kids = calloc(p->n_children, sizeof *kids);
      if (!kids) return PM_NOMEM(err);
      for (size_t i = 0; i < p->n_children; i++) {
        int rc = pm_pred_negate(p->children[i], &kids[i], err);
        if (rc) {
          for (size_t j = 0; j < i; j++) pm_pred_free(kids[j]);
          free(kids);
          return rc;
        }
      }
      int rc = pm_pred_compound(p->op == PM_PRED_AND ? PM_PRED_OR : PM_PRED_AND, kids, p->n_children, out, err);
      free(kids);
      return rc;
    }
    case PM_PRED_EQUAL: neg = PM_PRED_NOT_EQUAL; break;
    case PM_PRED_NOT_EQUAL: neg = PM_PRED_EQUAL; break;
    case PM_PRED_LESS_THAN: neg = PM_PRED_GREATER_OR_EQUAL; break;
    case PM_PRED_GREATER_OR_EQUAL: neg = PM_PRED_LESS_THAN; break;
    case PM_PRED_LESS_OR_EQUAL: neg = PM_PRED_GREATER_THAN; break;
    case PM_PRED_GREATER_THAN: neg = PM_PRED_LESS_OR_EQUAL; break;
    case PM_PRED_IS_NULL: neg = PM_PRED_IS_NOT_NULL; break;
    case PM_PRED_IS_NOT_NULL: neg = PM_PRED_IS_NULL; break;
    case PM_PRED_IN: neg = PM_PRED_NOT_IN; break;
    case PM_PRED_NOT_IN: neg = PM_PRED_IN; break;
    case PM_PRED_LIKE: neg = PM_PRED_NOT_LIKE; break;
    case PM_PRED_NOT_LIKE: neg = PM_PRED_LIKE; break;
    case PM_PRED_STARTS_WITH: neg = PM_PRED_NOT_STARTS_WITH; break;
    case PM_PRED_NOT_STARTS_WITH: neg = PM_PRED_STARTS_WITH; break;
    case PM_PRED_ENDS_WITH: neg = PM_PRED_NOT_ENDS_WITH; break;
    case PM_PRED_NOT_ENDS_WITH: neg = PM_PRED_ENDS_WITH; break;
    case PM_PRED_CONTAINS: neg = PM_PRED_NOT_CONTAINS; break;
    case PM_PRED_NOT_CONTAINS: neg = PM_PRED_CONTAINS; break;
    case PM_PRED_ALWAYS_TRUE: return pm_pred_const(0, out, err);
    case PM_PRED_ALWAYS_FALSE: return pm_pred_const(1, out, err);
    default:
      return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "NOT over %s('%s') is not supported", pm_pred_op_name(p->op),
                       p->field_name ? p->field_name : "?");
  }
  int rc = pm_pred_copy(p, out, err);
  if (!rc) (*out)->op = neg;
  return rc;
}

size_t pm_pred_conjuncts(const pm_predicate *p, const pm_predicate **out, size_t cap) {
  if (p->op != PM_PRED_AND) {
    if (cap) out[0] = p;
    return 1;
  }
  size_t n = 0;
  for (size_t i = 0; i < p->n_children; i++) {
    const pm_predicate *tmp[1];
    size_t room = n < cap ? cap - n : 0;
    if (p->children[i]->op == PM_PRED_AND) {
      n += pm_pred_conjuncts(p->children[i], room ? out + n : tmp, room);
    } else {
      if (n < cap) out[n] = p->children[i];
      n++;
    }
  }
  return n;
}

int pm_pred_only_fields(const pm_predicate *p, const int32_t *map, size_t n_map) {
  if (op_is_leaf(p->op)) return p->field_index >= 0 && (size_t)p->field_index < n_map && map[p->field_index] >= 0;
  for (size_t i = 0; i < p->n_children; i++)
    if (!pm_pred_only_fields(p->children[i], map, n_map)) return 0;
  return 1;
}

static void remap_in_place(pm_predicate *p, const int32_t *map) {
  if (op_is_leaf(p->op)) p->field_index = map[p->field_index];
  for (size_t i = 0; i < p->n_children; i++) remap_in_place(p->children[i], map);
}

int pm_pred_remap(const pm_predicate *p, const int32_t *map, size_t n_map, pm_predicate **out, pm_error *err) {
  *out = NULL;
  if (!pm_pred_only_fields(p, map, n_map))
    return pm_errorf(err, PAIMON_ERR_INTERNAL, "predicate refers to a field outside the mapping");
  PM_TRY(pm_pred_copy(p, out, err));
  remap_in_place(*out, map);
  return 0;
}

int pm_pred_extract(const pm_predicate *p, const int32_t *map, size_t n_map, pm_predicate **out, pm_error *err) {
  *out = NULL;
  size_t n = pm_pred_conjuncts(p, NULL, 0);
  const pm_predicate **cj = calloc(n, sizeof *cj);
  pm_predicate **kept = calloc(n, sizeof *kept);
  if (!cj || !kept) {
    free(cj);
    free(kept);
    return PM_NOMEM(err);
  }
  pm_pred_conjuncts(p, cj, n);
  size_t k = 0;
  int rc = 0;
  for (size_t i = 0; i < n && !rc; i++) {
    if (cj[i]->op == PM_PRED_ALWAYS_TRUE || !pm_pred_only_fields(cj[i], map, n_map)) continue;
    rc = pm_pred_remap(cj[i], map, n_map, &kept[k], err);
    if (!rc) k++;
  }
  if (!rc && k == 1) *out = kept[0];
  else if (!rc && k > 1) rc = pm_pred_compound(PM_PRED_AND, kept, k, out, err);
  else
    for (size_t i = 0; i < k; i++) pm_pred_free(kept[i]);
  free(cj);
  free(kept);
  return rc;
}

/* ------------------------------------------------------------- printing */

static int append_str(pm_buf *b, const char *s) { return pm_buf_append(b, s, strlen(s)); }

static int append_value(pm_buf *b, const pm_value *v) {
  char tmp[96];
  if (v->kind == PM_V_NULL) return append_str(b, "NULL");
  if (vk_is_bytes(v->kind)) {
    PM_TRY(pm_buf_push_u8(b, '\''));
    for (size_t i = 0; i < v->u.bytes.len; i++) {
      if (v->u.bytes.data[i] == '\'') PM_TRY(pm_buf_push_u8(b, '\''));
      PM_TRY(pm_buf_push_u8(b, v->u.bytes.data[i]));
    }
    return pm_buf_push_u8(b, '\'');
  }
  if (vk_is_float(v->kind)) snprintf(tmp, sizeof tmp, "%.17g", v->u.f64);
  else if (v->kind == PM_V_BOOL) snprintf(tmp, sizeof tmp, "%s", v->u.i64 ? "true" : "false");
  else if (v->kind == PM_V_TIMESTAMP)
    snprintf(tmp, sizeof tmp, "%lld.%06d", (long long)v->u.ts.millis, (int)v->u.ts.nanos);
  else if (v->kind == PM_V_DECIMAL) format_decimal(&v->u.dec, tmp, sizeof tmp);
  else snprintf(tmp, sizeof tmp, "%lld", (long long)v->u.i64);
  return append_str(b, tmp);
}

int pm_pred_to_string(const pm_predicate *p, pm_buf *out, pm_error *err) {
  static const char *ops[] = {"", "", " = ", " <> ", " < ", " <= ", " > ", " >= ", " IS NULL", " IS NOT NULL",
                              " IN (", " NOT IN (", " STARTS WITH ", " ENDS WITH ", " CONTAINS ", " LIKE ",
                              "", "", " NOT LIKE ", " NOT STARTS WITH ", " NOT ENDS WITH ", " NOT CONTAINS "};
  int rc = 0;
  if (p->op == PM_PRED_ALWAYS_TRUE) rc = append_str(out, "TRUE");
  else if (p->op == PM_PRED_ALWAYS_FALSE) rc = append_str(out, "FALSE");
  else if (p->op == PM_PRED_AND || p->op == PM_PRED_OR) {
    rc = pm_buf_push_u8(out, '(');
    for (size_t i = 0; i < p->n_children && !rc; i++) {
      if (i) rc = append_str(out, p->op == PM_PRED_AND ? " AND " : " OR ");
      if (!rc) rc = pm_pred_to_string(p->children[i], out, err);
    }
    if (!rc) rc = pm_buf_push_u8(out, ')');
  } else {
    rc = append_str(out, p->field_name ? p->field_name : "?");
    if (!rc) rc = append_str(out, ops[p->op]);
    for (size_t i = 0; i < p->n_literals && !rc; i++) {
      if (i) rc = append_str(out, ", ");
      if (!rc) rc = append_value(out, &p->literals[i]);
    }
    if (!rc && (p->op == PM_PRED_IN || p->op == PM_PRED_NOT_IN)) rc = pm_buf_push_u8(out, ')');
  }
  return rc ? PM_NOMEM(err) : 0;
}

/* ----------------------------------------------------------------- LIKE */

int pm_like_match(const uint8_t *s, size_t n, const uint8_t *pat, size_t pn) {
  /* Iterative glob with one backtrack point (the last %), which is enough
   * for patterns made of %, _ and literal characters. */
  size_t si = 0, pi = 0, star_p = (size_t)-1, star_s = 0;
  for (size_t i = 0; i < pn; i++) /* validate escapes first */
    if (pat[i] == '\\') {
      if (i + 1 >= pn || (pat[i + 1] != '%' && pat[i + 1] != '_' && pat[i + 1] != '\\')) return -1;
      i++;
    }
  while (si < n) {
    if (pi < pn && pat[pi] == '%') {
      star_p = ++pi;
      star_s = si;
      continue;
    }
    if (pi < pn && pat[pi] == '_') {
      si += pm_utf8_lead_len(s[si]);
      if (si > n) si = n;
      pi++;
      continue;
    }
    if (pi < pn) {
      size_t q = pi;
      if (pat[q] == '\\') q++;
      if (s[si] == pat[q]) {
        si++;
        pi = q + 1;
        continue;
      }
    }
    if (star_p != (size_t)-1) {
      star_s++;
      si = star_s;
      pi = star_p;
      continue;
    }
    return 0;
  }
  while (pi < pn && pat[pi] == '%') pi++;
  return pi == pn;
}

/* ---------------------------------------------------------- row truth */

static int bytes_starts(const pm_value *v, const pm_value *p) {
  size_t vl = v->u.bytes.len, pl = p->u.bytes.len;
  return vl >= pl && (pl == 0 || memcmp(v->u.bytes.data, p->u.bytes.data, pl) == 0);
}
static int bytes_ends(const pm_value *v, const pm_value *p) {
  size_t vl = v->u.bytes.len, pl = p->u.bytes.len;
  return vl >= pl && (pl == 0 || memcmp(v->u.bytes.data + vl - pl, p->u.bytes.data, pl) == 0);
}
static int bytes_contains(const pm_value *v, const pm_value *p) {
  size_t vl = v->u.bytes.len, pl = p->u.bytes.len;
  if (pl == 0) return 1;
  if (vl < pl) return 0;
  for (size_t i = 0; i + pl <= vl; i++)
    if (memcmp(v->u.bytes.data + i, p->u.bytes.data, pl) == 0) return 1;
  return 0;
}

/* Truth of a leaf for one (possibly null) field value. */
static int leaf_test(const pm_predicate *p, const pm_value *v) {
  switch (p->op) {
    case PM_PRED_IS_NULL: return v->kind == PM_V_NULL;
    case PM_PRED_IS_NOT_NULL: return v->kind != PM_V_NULL;
    default: break;
  }
  if (v->kind == PM_V_NULL) return 0;
  if (p->in_sorted && (p->op == PM_PRED_IN || p->op == PM_PRED_NOT_IN)) {
    if (p->op == PM_PRED_NOT_IN && p->in_has_null) return 0;
    return in_sorted_has(p, v) == (p->op == PM_PRED_IN);
  }
  if (p->op == PM_PRED_IN) {
    for (size_t i = 0; i < p->n_literals; i++)
      if (p->literals[i].kind != PM_V_NULL && pm_pred_value_compare(v, &p->literals[i]) == 0) return 1;
    return 0;
  }
  if (p->op == PM_PRED_NOT_IN) {
    for (size_t i = 0; i < p->n_literals; i++)
      if (p->literals[i].kind == PM_V_NULL || pm_pred_value_compare(v, &p->literals[i]) == 0) return 0;
    return 1;
  }
  const pm_value *l = &p->literals[0];
  if (l->kind == PM_V_NULL) return 0;
  int c;
  switch (p->op) {
    case PM_PRED_EQUAL: return pm_pred_value_compare(v, l) == 0;
    case PM_PRED_NOT_EQUAL: return pm_pred_value_compare(v, l) != 0;
    case PM_PRED_LESS_THAN: return pm_pred_value_compare(v, l) < 0;
    case PM_PRED_LESS_OR_EQUAL: return pm_pred_value_compare(v, l) <= 0;
    case PM_PRED_GREATER_THAN: return pm_pred_value_compare(v, l) > 0;
    case PM_PRED_GREATER_OR_EQUAL: return pm_pred_value_compare(v, l) >= 0;
    case PM_PRED_STARTS_WITH: return bytes_starts(v, l);
    case PM_PRED_ENDS_WITH: return bytes_ends(v, l);
    case PM_PRED_CONTAINS: return bytes_contains(v, l);
    case PM_PRED_LIKE:
      c = pm_like_match(v->u.bytes.data, v->u.bytes.len, l->u.bytes.data, l->u.bytes.len);
      return c > 0;
    case PM_PRED_NOT_STARTS_WITH: return !bytes_starts(v, l);
    case PM_PRED_NOT_ENDS_WITH: return !bytes_ends(v, l);
    case PM_PRED_NOT_CONTAINS: return !bytes_contains(v, l);
    case PM_PRED_NOT_LIKE:
      c = pm_like_match(v->u.bytes.data, v->u.bytes.len, l->u.bytes.data, l->u.bytes.len);
      return c == 0;
    default: return 0;
  }
}

int pm_pred_eval_values(const pm_predicate *p, const pm_value *values, size_t n_values) {
  switch (p->op) {
    case PM_PRED_ALWAYS_TRUE: return 1;
    case PM_PRED_ALWAYS_FALSE: return 0;
    case PM_PRED_AND:
      for (size_t i = 0; i < p->n_children; i++)
        if (!pm_pred_eval_values(p->children[i], values, n_values)) return 0;
      return 1;
    case PM_PRED_OR:
      for (size_t i = 0; i < p->n_children; i++)
        if (pm_pred_eval_values(p->children[i], values, n_values)) return 1;
      return 0;
    default: {
      pm_value nullv = null_value();
      const pm_value *v = (p->field_index >= 0 && (size_t)p->field_index < n_values) ? &values[p->field_index] : &nullv;
      if (v->kind != PM_V_NULL && p->n_literals && p->literals[0].kind != PM_V_NULL &&
          !kinds_comparable(v->kind, p->literals[0].kind))
        return 0;
      return leaf_test(p, v);
    }
  }
}

/* ---------------------------------------------------------- stats test */

static int leaf_test_stats(const pm_predicate *p, int64_t row_count, const pm_col_stats *st) {
  pm_col_stats absent;
  if (!st) { /* column absent from the file: all null */
    absent.min = null_value();
    absent.max = null_value();
    absent.null_count = row_count;
    st = &absent;
  }
  int64_t nc = st->null_count;
  int nc_known = nc >= 0 && row_count >= 0;
  const pm_value *mn = &st->min, *mx = &st->max;
  if (p->op == PM_PRED_IS_NULL) return !nc_known || nc > 0;
  if (p->op == PM_PRED_IS_NOT_NULL) return !nc_known || nc < row_count;
  if ((!nc_known || nc != row_count) && (mn->kind == PM_V_NULL || mx->kind == PM_V_NULL)) return 1;
  if (nc_known && nc == row_count) return 0; /* all null: no binary leaf / in can match */
  if (mn->kind == PM_V_NULL || mx->kind == PM_V_NULL) return 1;
  for (size_t i = 0; i < p->n_literals; i++)
    if (p->literals[i].kind != PM_V_NULL &&
        (!kinds_comparable(mn->kind, p->literals[i].kind) || !kinds_comparable(mx->kind, p->literals[i].kind)))
      return 1;
  if (p->op == PM_PRED_IN) {
    for (size_t i = 0; i < p->n_literals; i++) {
      const pm_value *l = &p->literals[i];
      if (l->kind != PM_V_NULL && pm_pred_value_compare(mn, l) <= 0 && pm_pred_value_compare(l, mx) <= 0) return 1;
    }
    return 0;
  }
  if (p->op == PM_PRED_NOT_IN) {
    for (size_t i = 0; i < p->n_literals; i++) {
      const pm_value *l = &p->literals[i];
      if (l->kind == PM_V_NULL) return 0;
      if (pm_pred_value_compare(mn, l) == 0 && pm_pred_value_compare(mx, l) == 0) return 0;
    }
    return 1;
  }
  const pm_value *l = &p->literals[0];
  if (l->kind == PM_V_NULL) return 0;
  switch (p->op) {
    case PM_PRED_EQUAL: return pm_pred_value_compare(mn, l) <= 0 && pm_pred_value_compare(l, mx) <= 0;
    case PM_PRED_NOT_EQUAL: return !(pm_pred_value_compare(mn, l) == 0 && pm_pred_value_compare(mx, l) == 0);
    case PM_PRED_LESS_THAN: return pm_pred_value_compare(l, mn) > 0;
    case PM_PRED_LESS_OR_EQUAL: return pm_pred_value_compare(l, mn) >= 0;
    case PM_PRED_GREATER_THAN: return pm_pred_value_compare(l, mx) < 0;
    case PM_PRED_GREATER_OR_EQUAL: return pm_pred_value_compare(l, mx) <= 0;
    case PM_PRED_STARTS_WITH:
      return (bytes_starts(mn, l) || pm_pred_value_compare(mn, l) <= 0) &&
             (bytes_starts(mx, l) || pm_pred_value_compare(mx, l) >= 0);
    default: return 1;
  }
}

int pm_pred_test_stats(const pm_predicate *p, int64_t row_count, const pm_col_stats *const *cols, size_t n_cols) {
  switch (p->op) {
    case PM_PRED_ALWAYS_TRUE: return 1;
    case PM_PRED_ALWAYS_FALSE: return 0;
    case PM_PRED_AND:
      for (size_t i = 0; i < p->n_children; i++)
        if (!pm_pred_test_stats(p->children[i], row_count, cols, n_cols)) return 0;
      return 1;
    case PM_PRED_OR:
      for (size_t i = 0; i < p->n_children; i++)
        if (pm_pred_test_stats(p->children[i], row_count, cols, n_cols)) return 1;
      return 0;
    default: {
      const pm_col_stats *st =
          (p->field_index >= 0 && (size_t)p->field_index < n_cols) ? cols[p->field_index] : NULL;
      return leaf_test_stats(p, row_count, st);
    }
  }
}

/* --------------------------------------------------------- Arrow batches */


/* Reads row i of an Arrow array as a pm_value. Returns 0, or -1 for an
 * Arrow type predicates cannot evaluate. */
static int arrow_value(const pm_type *t, const struct ArrowArray *a, int64_t i, pm_value *v) {
  memset(v, 0, sizeof *v);
  v->kind = PM_V_NULL;
  if (!pm_array_is_valid(a, i)) return 0;
  int64_t j = a->offset + i;
  const void *data = a->n_buffers > 1 ? a->buffers[1] : NULL;
  v->kind = PM_V_INT;
  switch (t->id) {
    case PM_T_BOOL: v->kind = PM_V_BOOL; v->u.i64 = pm_bit_get((const uint8_t *)data, j); break;
    case PM_T_INT8: v->u.i64 = ((const int8_t *)data)[j]; break;
    case PM_T_UINT8: v->u.i64 = ((const uint8_t *)data)[j]; break;
    case PM_T_INT16: v->u.i64 = ((const int16_t *)data)[j]; break;
    case PM_T_UINT16: v->u.i64 = ((const uint16_t *)data)[j]; break;
    case PM_T_INT32:
    case PM_T_DATE32: v->u.i64 = ((const int32_t *)data)[j]; break;
    case PM_T_UINT32: v->u.i64 = ((const uint32_t *)data)[j]; break;
    case PM_T_INT64: v->u.i64 = ((const int64_t *)data)[j]; break;
    case PM_T_UINT64: v->u.i64 = (int64_t)((const uint64_t *)data)[j]; break;
    case PM_T_DATE64: v->u.i64 = pm_floor_div(((const int64_t *)data)[j], 86400000LL); break;
    case PM_T_FLOAT: v->kind = PM_V_FLOAT; v->u.f64 = ((const float *)data)[j]; break;
    case PM_T_DOUBLE: v->kind = PM_V_DOUBLE; v->u.f64 = ((const double *)data)[j]; break;
    case PM_T_TIME32: {
      int64_t x = ((const int32_t *)data)[j];
      v->u.i64 = t->unit == PM_UNIT_S ? x * 1000 : x;
      break;
    }
    case PM_T_TIME64: {
      int64_t x = ((const int64_t *)data)[j];
      v->u.i64 = t->unit == PM_UNIT_US ? pm_floor_div(x, 1000) : pm_floor_div(x, 1000000);
      break;
    }
    case PM_T_TIMESTAMP: {
      int64_t x = ((const int64_t *)data)[j], ms = 0;
      int32_t ns = 0;
      switch (t->unit) {
        case PM_UNIT_S: ms = x * 1000; break;
        case PM_UNIT_MS: ms = x; break;
        case PM_UNIT_US:
          ms = pm_floor_div(x, 1000);
          ns = (int32_t)((x - ms * 1000) * 1000);
          break;
        case PM_UNIT_NS:
          ms = pm_floor_div(x, 1000000);
          ns = (int32_t)(x - ms * 1000000);
          break;
      }
      v->kind = PM_V_TIMESTAMP;
      v->u.ts.millis = ms;
      v->u.ts.nanos = ns;
      break;
    }
    case PM_T_DECIMAL128: {
      const uint8_t *p = (const uint8_t *)data + j * 16;
      uint64_t lo, hi;
      memcpy(&lo, p, 8);
      memcpy(&hi, p + 8, 8);
      v->kind = PM_V_DECIMAL;
      v->u.dec.lo = lo;
      v->u.dec.hi = (int64_t)hi;
      v->u.dec.precision = t->precision;
      v->u.dec.scale = t->scale;
      break;
    }
    case PM_T_UTF8:
    case PM_T_BINARY: {
      const int32_t *off = (const int32_t *)data;
      v->kind = t->id == PM_T_UTF8 ? PM_V_STRING : PM_V_BINARY;
      v->u.bytes.data = (const uint8_t *)a->buffers[2] + off[j];
      v->u.bytes.len = (size_t)(off[j + 1] - off[j]);
      break;
    }
    case PM_T_LARGE_UTF8:
    case PM_T_LARGE_BINARY: {
      const int64_t *off = (const int64_t *)data;
      v->kind = t->id == PM_T_LARGE_UTF8 ? PM_V_STRING : PM_V_BINARY;
      v->u.bytes.data = (const uint8_t *)a->buffers[2] + off[j];
      v->u.bytes.len = (size_t)(off[j + 1] - off[j]);
      break;
    }
    case PM_T_FIXED_BINARY:
      v->kind = PM_V_BINARY;
      v->u.bytes.data = (const uint8_t *)data + j * t->width;
      v->u.bytes.len = (size_t)t->width;
      break;
    default: return -1;
  }
  return 0;
}

typedef struct eval_ctx {
  const struct ArrowSchema *schema;
  const struct ArrowArray *batch;
  const int32_t *col_of_field;
  size_t n_map;
  int64_t len;
  size_t nbytes;
  pm_error *err;
} eval_ctx;

static int eval_rec(const eval_ctx *c, const pm_predicate *p, uint8_t *bits, int depth) {
  if (depth > PRED_MAX_DEPTH)
    return pm_errorf(c->err, PAIMON_ERR_INVALID_ARGUMENT, "predicate nested deeper than %d levels", PRED_MAX_DEPTH);
  if (p->op == PM_PRED_ALWAYS_TRUE || p->op == PM_PRED_ALWAYS_FALSE) {
    memset(bits, p->op == PM_PRED_ALWAYS_TRUE ? 0xff : 0, c->nbytes);
    return 0;
  }
  if (p->op == PM_PRED_AND || p->op == PM_PRED_OR) {
    uint8_t *tmp = malloc(c->nbytes ? c->nbytes : 1);
    if (!tmp) return PM_NOMEM(c->err);
    memset(bits, p->op == PM_PRED_AND ? 0xff : 0, c->nbytes);
    for (size_t k = 0; k < p->n_children; k++) {
      int rc = eval_rec(c, p->children[k], tmp, depth + 1);
      if (rc) {
        free(tmp);
        return rc;
      }
      for (size_t b = 0; b < c->nbytes; b++) bits[b] = p->op == PM_PRED_AND ? (bits[b] & tmp[b]) : (bits[b] | tmp[b]);
    }
    free(tmp);
    return 0;
  }
  memset(bits, 0, c->nbytes);
  int32_t col = (p->field_index >= 0 && (size_t)p->field_index < c->n_map) ? c->col_of_field[p->field_index] : -1;
  if (col < 0 || col >= c->batch->n_children || col >= c->schema->n_children) {
    pm_value nullv = null_value();
    if (leaf_test(p, &nullv)) memset(bits, 0xff, c->nbytes);
    return 0;
  }
  const struct ArrowSchema *cs = c->schema->children[col];
  const struct ArrowArray *ca = c->batch->children[col];
  pm_type t;
  memset(&t, 0, sizeof t);
  PM_TRY(pm_type_parse_format(cs->format, &t, p->field_name, c->err));
  if (cs->dictionary) {
    pm_type_free(&t);
    return pm_errorf(c->err, PAIMON_ERR_UNSUPPORTED, "filter on dictionary-encoded column '%s' is not supported",
                     p->field_name);
  }
  int64_t off = c->batch->offset;
  for (int64_t i = 0; i < c->len; i++) {
    pm_value v;
    int bad = arrow_value(&t, ca, off + i, &v);
    if (!bad && v.kind != PM_V_NULL && p->n_literals && p->literals[0].kind != PM_V_NULL &&
        !kinds_comparable(v.kind, p->literals[0].kind))
      bad = 1;
    if (bad) {
      int rc = pm_errorf(c->err, PAIMON_ERR_UNSUPPORTED, "filter on column '%s': Arrow type '%s' does not match %s",
                         p->field_name, cs->format, root_name(p->kind));
      pm_type_free(&t);
      return rc;
    }
    if (leaf_test(p, &v)) pm_bit_set(bits, i);
  }
  pm_type_free(&t);
  return 0;
}

int pm_pred_eval_batch(const pm_predicate *p, const struct ArrowSchema *schema, const struct ArrowArray *batch,
                       const int32_t *col_of_field, size_t n_map, uint8_t *bitmap, pm_error *err) {
  eval_ctx c = {schema, batch, col_of_field, n_map, batch->length, (size_t)((batch->length + 7) / 8), err};
  int rc = eval_rec(&c, p, bitmap, 0);
  if (!rc && (batch->length & 7)) bitmap[c.nbytes - 1] &= (uint8_t)((1u << (batch->length & 7)) - 1);
  return rc;
}

static int max_field_index(const pm_predicate *p) {
  int m = op_is_leaf(p->op) ? p->field_index : -1;
  for (size_t i = 0; i < p->n_children; i++) {
    int x = max_field_index(p->children[i]);
    if (x > m) m = x;
  }
  return m;
}

static void fill_name_map(const pm_predicate *p, const struct ArrowSchema *schema, int cs, int32_t *map) {
  if (op_is_leaf(p->op) && p->field_index >= 0) {
    map[p->field_index] = -1;
    for (int64_t i = 0; i < schema->n_children; i++) {
      const char *n = schema->children[i]->name;
      if (n && (cs ? !strcmp(n, p->field_name) : !strcasecmp(n, p->field_name))) {
        map[p->field_index] = (int32_t)i;
        break;
      }
    }
  }
  for (size_t i = 0; i < p->n_children; i++) fill_name_map(p->children[i], schema, cs, map);
}

int pm_pred_eval_batch_by_name(const pm_predicate *p, const struct ArrowSchema *schema,
                               const struct ArrowArray *batch, int case_sensitive, uint8_t *bitmap, pm_error *err) {
  int m = max_field_index(p);
  size_t n = (size_t)(m + 1);
  int32_t *map = malloc((n ? n : 1) * sizeof *map);
  if (!map) return PM_NOMEM(err);
  for (size_t i = 0; i < n; i++) map[i] = -1;
  fill_name_map(p, schema, case_sensitive, map);
  int rc = pm_pred_eval_batch(p, schema, batch, map, n, bitmap, err);
  free(map);
  return rc;
}

/* --------------------------------------------------------------- parser */

typedef enum tok_kind { TK_END, TK_IDENT, TK_NUMBER, TK_STRING, TK_OP, TK_LPAREN, TK_RPAREN, TK_COMMA } tok_kind;

typedef struct parser {
  const char *src;
  size_t pos;
  tok_kind kind;
  const char *tok;
  size_t tok_len;
  char *str; /* unescaped string literal (owned) */
  size_t str_len;
  const pm_pred_column *cols;
  size_t n_cols;
  int cs;
  const pm_tz *tz;
  pm_error *err;
} parser;

static int next_token(parser *ps) {
  const char *s = ps->src;
  while (s[ps->pos] && isspace((unsigned char)s[ps->pos])) ps->pos++;
  size_t st = ps->pos;
  char ch = s[st];
  ps->tok = s + st;
  free(ps->str);
  ps->str = NULL;
  if (!ch) {
    ps->kind = TK_END;
    ps->tok_len = 0;
    return 0;
  }
  if (ch == '(' || ch == ')' || ch == ',') {
    ps->kind = ch == '(' ? TK_LPAREN : ch == ')' ? TK_RPAREN : TK_COMMA;
    ps->tok_len = 1;
    ps->pos++;
    return 0;
  }
  if (ch == '\'') {
    size_t n = strlen(s + st);
    char *buf = malloc(n + 1);
    size_t k = 0, i = st + 1;
    if (!buf) return PM_NOMEM(ps->err);
    for (;;) {
      if (!s[i]) {
        free(buf);
        return pm_errorf(ps->err, PAIMON_ERR_INVALID_ARGUMENT, "filter: unterminated string at offset %zu", st);
      }
      if (s[i] == '\'') {
        if (s[i + 1] == '\'') {
          buf[k++] = '\'';
          i += 2;
          continue;
        }
        i++;
        break;
      }
      buf[k++] = s[i++];
    }
    buf[k] = 0;
    ps->str = buf;
    ps->str_len = k;
    ps->kind = TK_STRING;
    ps->pos = i;
    ps->tok_len = i - st;
    return 0;
  }
  if (isdigit((unsigned char)ch) || ((ch == '-' || ch == '+' || ch == '.') && (isdigit((unsigned char)s[st + 1]) || s[st + 1] == '.'))) {
    size_t i = st + 1;
    while (isalnum((unsigned char)s[i]) || s[i] == '.' ||
           ((s[i] == '-' || s[i] == '+') && (s[i - 1] == 'e' || s[i - 1] == 'E')))
      i++;
    ps->kind = TK_NUMBER;
    ps->tok_len = i - st;
    ps->pos = i;
    return 0;
  }
  if (isalpha((unsigned char)ch) || ch == '_' || ch == '`' || ch == '"') {
    size_t i = st;
    if (ch == '`' || ch == '"') {
      i++;
      while (s[i] && s[i] != ch) i++;
      if (!s[i]) return pm_errorf(ps->err, PAIMON_ERR_INVALID_ARGUMENT, "filter: unterminated quoted name at offset %zu", st);
      ps->str = strndup(s + st + 1, i - st - 1);
      if (!ps->str) return PM_NOMEM(ps->err);
      ps->str_len = i - st - 1;
      i++;
    } else {
      while (isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '.' || s[i] == '$') i++;
    }
    ps->kind = TK_IDENT;
    ps->tok_len = i - st;
    ps->pos = i;
    return 0;
  }
  static const char *ops[] = {"<=", ">=", "<>", "!=", "==", "=", "<", ">"};
  for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
    size_t l = strlen(ops[k]);
    if (!strncmp(s + st, ops[k], l)) {
      ps->kind = TK_OP;
      ps->tok_len = l;
      ps->pos += l;
      return 0;
    }
  }
  return pm_errorf(ps->err, PAIMON_ERR_INVALID_ARGUMENT, "filter: unexpected character '%c' at offset %zu", ch, st);
}

static int tok_is_kw(const parser *ps, const char *kw) {
  return ps->kind == TK_IDENT && !ps->str && ps->tok_len == strlen(kw) && !strncasecmp(ps->tok, kw, ps->tok_len);
}

static int parse_or(parser *ps, pm_predicate **out, int depth);

static int parse_literal(parser *ps, pm_literal *lit, char **hold) {
  memset(lit, 0, sizeof *lit);
  *hold = NULL;
  if (ps->kind == TK_STRING) {
    lit->kind = PM_LIT_STRING;
    *hold = ps->str;
    ps->str = NULL;
    lit->s = *hold;
    lit->len = ps->str_len;
  } else if (ps->kind == TK_NUMBER) {
    char *t = strndup(ps->tok, ps->tok_len);
    if (!t) return PM_NOMEM(ps->err);
    char *end;
    int is_int = !strpbrk(t, ".eE");
    if (is_int) {
      lit->kind = PM_LIT_INT;
      lit->i = strtoll(t, &end, 10);
    } else {
      /* Keep the text too so DECIMAL columns get exact values. */
      lit->kind = PM_LIT_DOUBLE;
      lit->d = strtod(t, &end);
    }
    if (*end) {
      free(t);
      return pm_errorf(ps->err, PAIMON_ERR_INVALID_ARGUMENT, "filter: bad number '%.*s'", (int)ps->tok_len, ps->tok);
    }
    *hold = t;
    lit->s = t;
    lit->len = strlen(t);
  } else if (tok_is_kw(ps, "date") || tok_is_kw(ps, "timestamp")) {
    /* DATE 'YYYY-MM-DD' / TIMESTAMP 'YYYY-MM-DD HH:MM:SS[.f][zone]' */
    int is_date = tok_is_kw(ps, "date");
    size_t at = (size_t)(ps->tok - ps->src);
    PM_TRY(next_token(ps));
    if (ps->kind != TK_STRING)
      return pm_errorf(ps->err, PAIMON_ERR_INVALID_ARGUMENT, "filter: expected a quoted value after %s at offset %zu",
                       is_date ? "DATE" : "TIMESTAMP", at);
    int64_t v = 0, ms;
    int32_t ns, off;
    int zoned;
    int bad = is_date ? parse_date_prefix(ps->str, ps->str_len, &v) != ps->str_len || !ps->str_len
                      : pm_parse_timestamp_zoned(ps->str, ps->str_len, &ms, &ns, &zoned, &off) != 0;
    if (bad)
      return pm_errorf(ps->err, PAIMON_ERR_INVALID_ARGUMENT, "filter: %s '%.*s' at offset %zu is not a valid %s%s",
                       is_date ? "DATE" : "TIMESTAMP", (int)(ps->str_len > 60 ? 60 : ps->str_len), ps->str, at,
                       is_date ? "date (YYYY-MM-DD)" : "timestamp (YYYY-MM-DD HH:MM:SS[.fff], optionally with Z or ",
                       is_date ? "" : "an offset such as +08:00)");
    if (is_date) {
      lit->kind = PM_LIT_DATE;
      lit->i = v;
    } else { /* typed by the column like text (zone-less: the session zone for LTZ columns) */
      lit->kind = PM_LIT_STRING;
      *hold = ps->str;
      ps->str = NULL;
      lit->s = *hold;
      lit->len = ps->str_len;
    }
  } else if (tok_is_kw(ps, "true") || tok_is_kw(ps, "false")) {
    lit->kind = PM_LIT_BOOL;
    lit->i = tok_is_kw(ps, "true");
  } else if (tok_is_kw(ps, "null")) {
    lit->kind = PM_LIT_NULL;
  } else {
    return pm_errorf(ps->err, PAIMON_ERR_INVALID_ARGUMENT, "filter: expected a literal at offset %zu",
                     (size_t)(ps->tok - ps->src));
  }
  int rc = next_token(ps);
  if (rc) { /* the caller only owns *hold on success */
    free(*hold);
    *hold = NULL;
  }
  return rc;
}

/* Numeric text literals for DECIMAL columns are converted from text (exact). */
static void fix_literal_for_column(pm_literal *lit, const pm_pred_column *col) {
  if (lit->kind == PM_LIT_DOUBLE && col->type->root == PM_DT_DECIMAL && lit->s) lit->kind = PM_LIT_STRING;
}

static int find_column(parser *ps, const pm_pred_column **out) {
  const char *name = ps->str ? ps->str : ps->tok;
  size_t len = ps->str ? ps->str_len : ps->tok_len;
  for (size_t i = 0; i < ps->n_cols; i++) {
    const char *n = ps->cols[i].name;
    if (strlen(n) == len && (ps->cs ? !strncmp(n, name, len) : !strncasecmp(n, name, len))) {
      *out = &ps->cols[i];
      return 0;
    }
  }
  const char *dot = ps->str ? NULL : memchr(name, '.', len);
  for (size_t i = 0; dot && i < ps->n_cols; i++) {
    const char *n = ps->cols[i].name;
    size_t pl = (size_t)(dot - name);
    if (strlen(n) == pl && (ps->cs ? !strncmp(n, name, pl) : !strncasecmp(n, name, pl)))
      return pm_errorf(ps->err, PAIMON_ERR_UNSUPPORTED,
                       "filter: '%.*s' is a field of the %s column '%s': filters on nested fields are not supported",
                       (int)len, name, root_name(ps->cols[i].type->root), n);
  }
  return pm_errorf(ps->err, PAIMON_ERR_NOT_FOUND, "filter: unknown column '%.*s'", (int)len, name);
}

static int make_leaf(parser *ps, pm_pred_op op, const pm_pred_column *col, pm_literal *lits, size_t n,
                     pm_predicate **out) {
  for (size_t i = 0; i < n; i++) fix_literal_for_column(&lits[i], col);
  return pm_pred_leaf_tz(op, col, lits, n, ps->tz, out, ps->err);
}

static int parse_predicate_atom(parser *ps, pm_predicate **out, int depth) {
  *out = NULL;
  if (depth > PM_PRED_MAX_NESTING)
    return pm_errorf(ps->err, PAIMON_ERR_INVALID_ARGUMENT,
                     "filter: nested deeper than %d levels of parentheses and NOT at offset %zu", PM_PRED_MAX_NESTING,
                     (size_t)(ps->tok - ps->src));
  if (tok_is_kw(ps, "not")) {
    PM_TRY(next_token(ps));
    pm_predicate *inner = NULL;
    PM_TRY(parse_predicate_atom(ps, &inner, depth + 1));
    int rc = pm_pred_negate(inner, out, ps->err);
    pm_pred_free(inner);
    return rc;
  }
  if (ps->kind == TK_LPAREN) {
    PM_TRY(next_token(ps));
    PM_TRY(parse_or(ps, out, depth + 1));
    if (ps->kind != TK_RPAREN) {
      pm_pred_free(*out);
      *out = NULL;
      return pm_errorf(ps->err, PAIMON_ERR_INVALID_ARGUMENT, "filter: expected ')' at offset %zu",
                       (size_t)(ps->tok - ps->src));
    }
    int rc = next_token(ps);
    if (rc) {
      pm_pred_free(*out);
      *out = NULL;
    }
    return rc;
  }
  if (ps->kind != TK_IDENT)
    return pm_errorf(ps->err, PAIMON_ERR_INVALID_ARGUMENT, "filter: expected a column name at offset %zu",
                     (size_t)(ps->tok - ps->src));
  const pm_pred_column *col = NULL;
  PM_TRY(find_column(ps, &col));
  PM_TRY(next_token(ps));
  int negate = 0;
  if (tok_is_kw(ps, "is")) {
    PM_TRY(next_token(ps));
    if (tok_is_kw(ps, "not")) {
      negate = 1;
      PM_TRY(next_token(ps));
    }
    if (!tok_is_kw(ps, "null")) return pm_errorf(ps->err, PAIMON_ERR_INVALID_ARGUMENT, "filter: expected NULL after IS");
    PM_TRY(next_token(ps));
    return make_leaf(ps, negate ? PM_PRED_IS_NOT_NULL : PM_PRED_IS_NULL, col, NULL, 0, out);
  }
  if (tok_is_kw(ps, "not")) {
    negate = 1;
    PM_TRY(next_token(ps));
  }
  if (tok_is_kw(ps, "in")) {
    PM_TRY(next_token(ps));
    if (ps->kind != TK_LPAREN) return pm_errorf(ps->err, PAIMON_ERR_INVALID_ARGUMENT, "filter: expected '(' after IN");
    PM_TRY(next_token(ps));
    size_t n = 0, cap = 8;
    pm_literal *lits = malloc(cap * sizeof *lits);
    char **holds = malloc(cap * sizeof *holds);
    int rc = (!lits || !holds) ? PM_NOMEM(ps->err) : 0;
    while (!rc) {
      if (n == cap) {
        cap *= 2;
        pm_literal *nl = realloc(lits, cap * sizeof *lits);
        if (nl) lits = nl;
        char **nh = nl ? realloc(holds, cap * sizeof *holds) : NULL;
        if (nh) holds = nh;
        if (!nl || !nh) {
          rc = PM_NOMEM(ps->err);
          break;
        }
      }
      rc = parse_literal(ps, &lits[n], &holds[n]);
      if (rc) break;
      n++;
      if (ps->kind == TK_COMMA) {
        rc = next_token(ps);
        continue;
      }
      if (ps->kind == TK_RPAREN) {
        rc = next_token(ps);
        break;
      }
      rc = pm_errorf(ps->err, PAIMON_ERR_INVALID_ARGUMENT, "filter: expected ',' or ')' in IN list");
    }
    if (!rc) rc = make_leaf(ps, negate ? PM_PRED_NOT_IN : PM_PRED_IN, col, lits, n, out);
    for (size_t i = 0; i < n; i++) free(holds[i]);
    free(lits);
    free(holds);
    return rc;
  }
  if (tok_is_kw(ps, "like")) {
    PM_TRY(next_token(ps));
    pm_literal lit;
    char *hold;
    PM_TRY(parse_literal(ps, &lit, &hold));
    int rc = make_leaf(ps, negate ? PM_PRED_NOT_LIKE : PM_PRED_LIKE, col, &lit, 1, out);
    free(hold);
    return rc;
  }
  if (tok_is_kw(ps, "between")) {
    PM_TRY(next_token(ps));
    pm_literal a, b;
    char *ha = NULL, *hb = NULL;
    int rc = parse_literal(ps, &a, &ha);
    if (!rc && !tok_is_kw(ps, "and")) rc = pm_errorf(ps->err, PAIMON_ERR_INVALID_ARGUMENT, "filter: expected AND in BETWEEN");
    if (!rc) rc = next_token(ps);
    if (!rc) rc = parse_literal(ps, &b, &hb);
    pm_predicate *kids[2] = {NULL, NULL};
    if (!rc) rc = make_leaf(ps, negate ? PM_PRED_LESS_THAN : PM_PRED_GREATER_OR_EQUAL, col, &a, 1, &kids[0]);
    if (!rc) rc = make_leaf(ps, negate ? PM_PRED_GREATER_THAN : PM_PRED_LESS_OR_EQUAL, col, &b, 1, &kids[1]);
    if (!rc) rc = pm_pred_compound(negate ? PM_PRED_OR : PM_PRED_AND, kids, 2, out, ps->err);
    else {
      pm_pred_free(kids[0]);
      pm_pred_free(kids[1]);
    }
    free(ha);
    free(hb);
    return rc;
  }
  if (negate) return pm_errorf(ps->err, PAIMON_ERR_INVALID_ARGUMENT, "filter: expected IN, LIKE or BETWEEN after NOT");
  if (ps->kind != TK_OP)
    return pm_errorf(ps->err, PAIMON_ERR_INVALID_ARGUMENT, "filter: expected an operator after '%s' at offset %zu",
                     col->name, (size_t)(ps->tok - ps->src));
  pm_pred_op op;
  if (ps->tok_len == 1 && ps->tok[0] == '=') op = PM_PRED_EQUAL;
  else if (!strncmp(ps->tok, "==", 2)) op = PM_PRED_EQUAL;
  else if (!strncmp(ps->tok, "<>", 2) || !strncmp(ps->tok, "!=", 2)) op = PM_PRED_NOT_EQUAL;
  else if (!strncmp(ps->tok, "<=", 2)) op = PM_PRED_LESS_OR_EQUAL;
  else if (!strncmp(ps->tok, ">=", 2)) op = PM_PRED_GREATER_OR_EQUAL;
  else if (ps->tok[0] == '<') op = PM_PRED_LESS_THAN;
  else op = PM_PRED_GREATER_THAN;
  PM_TRY(next_token(ps));
  pm_literal lit;
  char *hold;
  PM_TRY(parse_literal(ps, &lit, &hold));
  int rc = make_leaf(ps, op, col, &lit, 1, out);
  free(hold);
  return rc;
}

static int parse_chain(parser *ps, pm_predicate **out, int depth, int is_or) {
  *out = NULL;
  size_t n = 0, cap = 4;
  pm_predicate **kids = malloc(cap * sizeof *kids);
  if (!kids) return PM_NOMEM(ps->err);
  int rc = 0;
  for (;;) {
    pm_predicate *k = NULL;
    rc = is_or ? parse_chain(ps, &k, depth, 0) : parse_predicate_atom(ps, &k, depth);
    if (rc) break;
    if (n == cap) {
      pm_predicate **nk = realloc(kids, cap * 2 * sizeof *kids);
      if (!nk) {
        pm_pred_free(k);
        rc = PM_NOMEM(ps->err);
        break;
      }
      kids = nk;
      cap *= 2;
    }
    kids[n++] = k;
    if (tok_is_kw(ps, is_or ? "or" : "and")) {
      rc = next_token(ps);
      if (rc) break;
      continue;
    }
    break;
  }
  if (rc) {
    for (size_t i = 0; i < n; i++) pm_pred_free(kids[i]);
  } else if (n == 1) {
    *out = kids[0];
  } else {
    rc = pm_pred_compound(is_or ? PM_PRED_OR : PM_PRED_AND, kids, n, out, ps->err);
  }
  free(kids);
  return rc;
}

static int parse_or(parser *ps, pm_predicate **out, int depth) { return parse_chain(ps, out, depth, 1); }

int pm_pred_parse(const char *text, const pm_pred_column *cols, size_t n_cols, int case_sensitive,
                  pm_predicate **out, pm_error *err) {
  return pm_pred_parse_tz(text, cols, n_cols, case_sensitive, NULL, out, err);
}

int pm_pred_parse_tz(const char *text, const pm_pred_column *cols, size_t n_cols, int case_sensitive,
                     const pm_tz *tz, pm_predicate **out, pm_error *err) {
  *out = NULL;
  parser ps;
  memset(&ps, 0, sizeof ps);
  ps.src = text;
  ps.cols = cols;
  ps.n_cols = n_cols;
  ps.cs = case_sensitive;
  ps.tz = tz;
  ps.err = err;
  int rc = next_token(&ps);
  if (!rc && ps.kind == TK_END) rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "filter: empty expression");
  if (!rc) rc = parse_or(&ps, out, 0);
  if (!rc && ps.kind != TK_END) {
    rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "filter: unexpected '%.*s' at offset %zu", (int)ps.tok_len, ps.tok,
                   (size_t)(ps.tok - ps.src));
    pm_pred_free(*out);
    *out = NULL;
  }
  free(ps.str);
  return rc;
}
