#include "arrow/print.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------- low-level formatters ---------- */

static int fmt_u64(uint64_t v, char *buf) {
  char tmp[24];
  int n = 0;
  do {
    tmp[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  for (int i = 0; i < n; i++) buf[i] = tmp[n - 1 - i];
  return n;
}

static int fmt_i64(int64_t v, char *buf) {
  if (v < 0) {
    buf[0] = '-';
    return 1 + fmt_u64((uint64_t)0 - (uint64_t)v, buf + 1);
  }
  return fmt_u64((uint64_t)v, buf);
}

/* Zero-padded to `width` digits. */
static int fmt_pad(uint64_t v, int width, char *buf) {
  for (int i = width - 1; i >= 0; i--) {
    buf[i] = (char)('0' + v % 10);
    v /= 10;
  }
  return width;
}

static int fmt_nonfinite(double v, char *buf) {
  const char *s = isnan(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity";
  size_t n = strlen(s);
  memcpy(buf, s, n);
  return (int)n;
}

/* Writes r / 10^k in positional notation (k fraction digits). */
static int fmt_scaled(int neg, unsigned __int128 r, int k, char *buf) {
  int n = 0;
  if (neg) buf[n++] = '-';
  char digits[48];
  int nd = 0;
  if ((r >> 64) == 0) { /* 64-bit division is much cheaper than 128-bit */
    uint64_t r64 = (uint64_t)r;
    do {
      digits[nd++] = (char)('0' + (int)(r64 % 10));
      r64 /= 10;
    } while (r64);
  } else {
    do {
      digits[nd++] = (char)('0' + (int)(r % 10));
      r /= 10;
    } while (r);
  }
  /* digits[] holds the least significant digit first. */
  if (nd <= k) {
    buf[n++] = '0';
    buf[n++] = '.';
    for (int i = nd; i < k; i++) buf[n++] = '0';
    for (int i = nd - 1; i >= 0; i--) buf[n++] = digits[i];
    return n;
  }
  for (int i = nd - 1; i >= k; i--) buf[n++] = digits[i];
  if (k) {
    buf[n++] = '.';
    for (int i = k - 1; i >= 0; i--) buf[n++] = digits[i];
  }
  return n;
}

/* Exact shortest positional form for binary floating point values of
 * moderate magnitude (1e-4 <= |v| < 1e15). The value is m * 2^-exp2neg with
 * an integer significand m of `bits` bits. For k = 0, 1, ... the candidate
 * r = round(v * 10^k) is accepted when r / 10^k lies inside v's rounding
 * interval (round-half-even, narrower below a power of two), i.e. when a
 * correct parser maps the printed text back to v. All arithmetic is exact
 * in 128 bits. Returns 0 when the value is outside the handled range. */
static int shortest_fixed(double v, int bits, char *buf) {
  double a = fabs(v);
  int neg = signbit(v) != 0;
  if (a == 0) {
    if (neg) { /* "-0" would read back as the integer 0 in most JSON parsers */
      memcpy(buf, "-0.0", 4);
      return 4;
    }
    buf[0] = '0';
    return 1;
  }
  if (!(a < 1e15) || a < 1e-4) return 0;
  int e2;
  double fr = frexp(a, &e2); /* a = fr * 2^e2, fr in [0.5, 1) */
  uint64_t m = (uint64_t)ldexp(fr, bits); /* exact: a has at most `bits` significant bits */
  int s = bits - e2;                       /* a = m * 2^-s */
  if (s <= 0) return fmt_scaled(neg, (unsigned __int128)m << -s, 0, buf); /* an integer */
  int boundary = m == ((uint64_t)1 << (bits - 1));
  unsigned __int128 p = 1;
  for (int k = 0; k <= 22; k++, p *= 10) {
    unsigned __int128 mp = (unsigned __int128)m * p;
    if (mp >> 125) return 0; /* keep 2*m*p and r << (s+1) within 128 bits */
    unsigned __int128 r = (mp + ((unsigned __int128)1 << (s - 1))) >> s;
    unsigned __int128 rs = r << (s + 1), two_mp = mp << 1;
    int below = rs < two_mp;
    unsigned __int128 diff = below ? two_mp - rs : rs - two_mp;
    int ok = (below && boundary) ? 2 * diff <= p : (diff < p || (diff == p && (m & 1) == 0));
    if (ok) return fmt_scaled(neg, r, k, buf);
  }
  return 0;
}

int pm_format_double(double v, char *buf) {
  if (!isfinite(v)) return fmt_nonfinite(v, buf);
  int fast = shortest_fixed(v, 53, buf);
  if (fast) return fast;
  /* Any decimal of <= 15 significant digits survives a double round trip,
   * so %.15g is the shortest whenever it round-trips; else try 16, then 17. */
  /* Subnormals have fewer significant bits: search from 1 digit. */
  for (int prec = fabs(v) < DBL_MIN ? 1 : 15; prec <= 17; prec++) {
    int n = snprintf(buf, 40, "%.*g", prec, v);
    if (prec == 17 || strtod(buf, NULL) == v) return n;
  }
  return 0;
}

int pm_format_float(float v, char *buf) {
  if (!isfinite(v)) return fmt_nonfinite(v, buf);
  int fast = shortest_fixed((double)v, 24, buf);
  if (fast) return fast;
  for (int prec = fabsf(v) < FLT_MIN ? 1 : 6; prec <= 9; prec++) {
    int n = snprintf(buf, 40, "%.*g", prec, (double)v);
    if (prec == 9 || strtof(buf, NULL) == v) return n;
  }
  return 0;
}

int pm_format_decimal128(const uint8_t bytes[16], int32_t scale, char *buf) {
  uint64_t lo, hi;
  memcpy(&lo, bytes, 8);
  memcpy(&hi, bytes + 8, 8);
  unsigned __int128 u = ((unsigned __int128)hi << 64) | lo;
  int neg = (hi >> 63) != 0;
  if (neg) u = (unsigned __int128)0 - u;
  char digits[48];
  int nd = 0;
  if ((u >> 64) == 0) {
    uint64_t s = (uint64_t)u;
    do {
      digits[nd++] = (char)('0' + s % 10);
      s /= 10;
    } while (s);
  } else {
    do {
      digits[nd++] = (char)('0' + (int)(u % 10));
      u /= 10;
    } while (u);
  }
  /* digits[] is little-endian (least significant first). */
  int n = 0;
  if (neg) buf[n++] = '-';
  if (scale <= 0) {
    for (int i = nd - 1; i >= 0; i--) buf[n++] = digits[i];
    if (!(nd == 1 && digits[0] == '0'))
      for (int i = 0; i < -scale && i < 38; i++) buf[n++] = '0'; /* parser limits scale to >= -38 */
    return n;
  }
  if (nd <= scale) {
    buf[n++] = '0';
    buf[n++] = '.';
    for (int i = 0; i < scale - nd; i++) buf[n++] = '0';
    for (int i = nd - 1; i >= 0; i--) buf[n++] = digits[i];
  } else {
    for (int i = nd - 1; i >= scale; i--) buf[n++] = digits[i];
    buf[n++] = '.';
    for (int i = scale - 1; i >= 0; i--) buf[n++] = digits[i];
  }
  return n;
}

/* Floor division and the matching non-negative remainder (b > 0), without
 * overflow even for INT64_MIN. */
static int64_t floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if (a % b < 0) q--;
  return q;
}
static int64_t floormod(int64_t a, int64_t b) {
  int64_t r = a % b;
  return r < 0 ? r + b : r;
}

/* Days since 1970-01-01 to proleptic Gregorian y/m/d (H. Hinnant's algorithm). */
static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d) {
  z += 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  unsigned doe = (unsigned)(z - era * 146097);
  unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t yy = (int64_t)yoe + era * 400;
  unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = yy + (*m <= 2);
}

int pm_format_date(int64_t days, char *buf) {
  int64_t y;
  unsigned m, d;
  if (days > INT64_MAX / 2 || days < INT64_MIN / 2) days = 0; /* cannot occur for real units */
  civil_from_days(days, &y, &m, &d);
  int n = 0;
  if (y < 0) {
    buf[n++] = '-';
    uint64_t ay = (uint64_t)0 - (uint64_t)y;
    n += ay < 10000 ? fmt_pad(ay, 4, buf + n) : fmt_u64(ay, buf + n);
  } else if (y > 9999) {
    buf[n++] = '+';
    n += fmt_u64((uint64_t)y, buf + n);
  } else {
    n += fmt_pad((uint64_t)y, 4, buf + n);
  }
  buf[n++] = '-';
  n += fmt_pad(m, 2, buf + n);
  buf[n++] = '-';
  n += fmt_pad(d, 2, buf + n);
  return n;
}

static const int64_t unit_div[4] = {1, 1000, 1000000, 1000000000};
static const int unit_digits[4] = {0, 3, 6, 9};
static const uint64_t pow10_u[10] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000};

static int fmt_fraction(uint64_t frac, pm_time_unit unit, int digits, char *buf) {
  int ud = unit_digits[unit & 3];
  if (digits < 0) digits = ud;
  if (digits > 9) digits = 9;
  if (digits == 0) return 0;
  uint64_t v = digits <= ud ? frac / pow10_u[ud - digits] : frac * pow10_u[digits - ud];
  buf[0] = '.';
  return 1 + fmt_pad(v, digits, buf + 1);
}

static int fmt_hms(int64_t sod, char *buf) {
  int n = fmt_pad((uint64_t)(sod / 3600), 2, buf);
  buf[n++] = ':';
  n += fmt_pad((uint64_t)(sod / 60 % 60), 2, buf + n);
  buf[n++] = ':';
  n += fmt_pad((uint64_t)(sod % 60), 2, buf + n);
  return n;
}

int pm_format_time(int64_t value, pm_time_unit unit, int fraction_digits, char *buf) {
  int64_t div = unit_div[unit & 3];
  int n = 0;
  if (value < 0) { /* not a valid time of day; keep it readable */
    buf[n++] = '-';
    value = value == INT64_MIN ? INT64_MAX : -value;
  }
  int64_t secs = value / div;
  uint64_t frac = (uint64_t)(value % div);
  if (secs >= 100 * 3600) {
    n += fmt_u64((uint64_t)(secs / 3600), buf + n);
    buf[n++] = ':';
    n += fmt_pad((uint64_t)(secs / 60 % 60), 2, buf + n);
    buf[n++] = ':';
    n += fmt_pad((uint64_t)(secs % 60), 2, buf + n);
  } else {
    n += fmt_hms(secs, buf + n);
  }
  n += fmt_fraction(frac, unit, fraction_digits, buf + n);
  return n;
}

int pm_format_timestamp(int64_t value, pm_time_unit unit, int fraction_digits, int zoned, char *buf) {
  int64_t div = unit_div[unit & 3];
  int64_t secs = floordiv(value, div);
  uint64_t frac = (uint64_t)floormod(value, div);
  int64_t days = floordiv(secs, 86400);
  int64_t sod = floormod(secs, 86400);
  int n = pm_format_date(days, buf);
  buf[n++] = 'T';
  n += fmt_hms(sod, buf + n);
  n += fmt_fraction(frac, unit, fraction_digits, buf + n);
  if (zoned) buf[n++] = 'Z';
  return n;
}

/* ---------- strings ---------- */

/* Length of a valid UTF-8 sequence at p (n bytes remain), 0 if invalid. */
static int utf8_seq_len(const uint8_t *p, int64_t n) {
  uint8_t c = p[0];
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return n >= 2 && (p[1] & 0xC0) == 0x80 ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (n < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80) return 0;
    if (c == 0xE0 && p[1] < 0xA0) return 0;
    if (c == 0xED && p[1] > 0x9F) return 0;
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (n < 4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80) return 0;
    if (c == 0xF0 && p[1] < 0x90) return 0;
    if (c == 0xF4 && p[1] > 0x8F) return 0;
    return 4;
  }
  return 0;
}

static const char hex_digits[] = "0123456789abcdef";

/* Appends s as JSON string content (json=1, quotes included) or as raw text
 * with invalid UTF-8 replaced (json=0). */
static int append_string(pm_buf *out, const uint8_t *s, int64_t n, int json) {
  /* Worst case: every byte becomes \u00XX (6) or U+FFFD (6 JSON / 3 raw). */
  if ((uint64_t)n > (SIZE_MAX - 8) / 6) return PAIMON_ERR_NOMEM;
  if (pm_buf_reserve(out, (size_t)n * 6 + 2)) return PAIMON_ERR_NOMEM;
  uint8_t *w = out->data + out->len;
  if (json) *w++ = '"';
  int64_t i = 0;
  while (i < n) {
    uint8_t c = s[i];
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      *w++ = c;
      i++;
      continue;
    }
    if (c >= 0x80) {
      int len = utf8_seq_len(s + i, n - i);
      if (len) {
        memcpy(w, s + i, (size_t)len);
        w += len;
        i += len;
      } else {
        if (json) {
          memcpy(w, "\\ufffd", 6);
          w += 6;
        } else {
          memcpy(w, "\xEF\xBF\xBD", 3);
          w += 3;
        }
        i++;
      }
      continue;
    }
    i++;
    if (!json) {
      *w++ = c;
      continue;
    }
    *w++ = '\\';
    switch (c) {
      case '"': *w++ = '"'; break;
      case '\\': *w++ = '\\'; break;
      case '\n': *w++ = 'n'; break;
      case '\r': *w++ = 'r'; break;
      case '\t': *w++ = 't'; break;
      case '\b': *w++ = 'b'; break;
      case '\f': *w++ = 'f'; break;
      default:
        *w++ = 'u';
        *w++ = '0';
        *w++ = '0';
        *w++ = (uint8_t)hex_digits[c >> 4];
        *w++ = (uint8_t)hex_digits[c & 15];
    }
  }
  if (json) *w++ = '"';
  out->len = (size_t)(w - out->data);
  return 0;
}

static int append_base64(pm_buf *out, const uint8_t *s, int64_t n, int json) {
  static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  if ((uint64_t)n > (SIZE_MAX - 8) / 2) return PAIMON_ERR_NOMEM;
  if (pm_buf_reserve(out, (size_t)(n + 2) / 3 * 4 + 2)) return PAIMON_ERR_NOMEM;
  uint8_t *w = out->data + out->len;
  if (json) *w++ = '"';
  int64_t i = 0;
  for (; i + 3 <= n; i += 3) {
    uint32_t v = (uint32_t)s[i] << 16 | (uint32_t)s[i + 1] << 8 | s[i + 2];
    *w++ = (uint8_t)tbl[v >> 18];
    *w++ = (uint8_t)tbl[(v >> 12) & 63];
    *w++ = (uint8_t)tbl[(v >> 6) & 63];
    *w++ = (uint8_t)tbl[v & 63];
  }
  if (n - i == 1) {
    uint32_t v = (uint32_t)s[i] << 16;
    *w++ = (uint8_t)tbl[v >> 18];
    *w++ = (uint8_t)tbl[(v >> 12) & 63];
    *w++ = '=';
    *w++ = '=';
  } else if (n - i == 2) {
    uint32_t v = (uint32_t)s[i] << 16 | (uint32_t)s[i + 1] << 8;
    *w++ = (uint8_t)tbl[v >> 18];
    *w++ = (uint8_t)tbl[(v >> 12) & 63];
    *w++ = (uint8_t)tbl[(v >> 6) & 63];
    *w++ = '=';
  }
  if (json) *w++ = '"';
  out->len = (size_t)(w - out->data);
  return 0;
}

/* ---------- value writer ---------- */

#define LIT(out, s) pm_buf_append((out), (s), sizeof(s) - 1)

static int index_at(const pm_type *t, const struct ArrowArray *a, int64_t p, int64_t *k) {
  const void *d = a->buffers[1];
  switch (t->id) {
    case PM_T_INT8: *k = ((const int8_t *)d)[p]; break;
    case PM_T_UINT8: *k = ((const uint8_t *)d)[p]; break;
    case PM_T_INT16: *k = ((const int16_t *)d)[p]; break;
    case PM_T_UINT16: *k = ((const uint16_t *)d)[p]; break;
    case PM_T_INT32: *k = ((const int32_t *)d)[p]; break;
    case PM_T_UINT32: *k = ((const uint32_t *)d)[p]; break;
    case PM_T_INT64: *k = ((const int64_t *)d)[p]; break;
    case PM_T_UINT64: {
      uint64_t u = ((const uint64_t *)d)[p];
      *k = u > INT64_MAX ? -1 : (int64_t)u;
      break;
    }
    default: return -1;
  }
  return 0;
}

static int write_value(const pm_type *t, const struct ArrowArray *a, int64_t i, int digits, pm_buf *out, int raw,
                       int depth, pm_error *err);

static int nomem(pm_error *err) { return PM_NOMEM(err); }

static int write_list_items(const pm_type *ct, const struct ArrowArray *child, int64_t start, int64_t end, int digits,
                            pm_buf *out, int depth, pm_error *err) {
  if (pm_buf_push_u8(out, '[')) return nomem(err);
  for (int64_t k = start; k < end; k++) {
    if (k > start && pm_buf_push_u8(out, ',')) return nomem(err);
    PM_TRY(write_value(ct, child, k, digits, out, 0, depth + 1, err));
  }
  if (pm_buf_push_u8(out, ']')) return nomem(err);
  return 0;
}

static int write_value(const pm_type *t, const struct ArrowArray *a, int64_t i, int digits, pm_buf *out, int raw,
                       int depth, pm_error *err) {
  if (depth > PM_ARROW_MAX_DEPTH) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "print: nesting too deep");
  if (t->id == PM_T_NULL || !pm_array_is_valid(a, i)) {
    if (LIT(out, "null")) return nomem(err);
    return 0;
  }
  int64_t p = a->offset + i;
  if (t->dict) {
    int64_t k;
    if (index_at(t, a, p, &k) || !a->dictionary || k < 0 || k >= a->dictionary->length)
      return pm_errorf(err, PAIMON_ERR_CORRUPT, "print: dictionary index out of range at row %lld", (long long)i);
    return write_value(t->dict, a->dictionary, k, digits, out, raw, depth + 1, err);
  }
  if (pm_buf_reserve(out, 96)) return nomem(err);
  char *w = (char *)out->data + out->len;
  const void *d = a->n_buffers > 1 ? a->buffers[1] : NULL;
  int n = 0;
  switch (t->id) {
    case PM_T_BOOL:
      if (pm_bit_get(d, p)) {
        memcpy(w, "true", 4);
        n = 4;
      } else {
        memcpy(w, "false", 5);
        n = 5;
      }
      break;
    case PM_T_INT8: n = fmt_i64(((const int8_t *)d)[p], w); break;
    case PM_T_UINT8: n = fmt_u64(((const uint8_t *)d)[p], w); break;
    case PM_T_INT16: n = fmt_i64(((const int16_t *)d)[p], w); break;
    case PM_T_UINT16: n = fmt_u64(((const uint16_t *)d)[p], w); break;
    case PM_T_INT32: n = fmt_i64(((const int32_t *)d)[p], w); break;
    case PM_T_UINT32: n = fmt_u64(((const uint32_t *)d)[p], w); break;
    case PM_T_INT64: n = fmt_i64(((const int64_t *)d)[p], w); break;
    case PM_T_UINT64: n = fmt_u64(((const uint64_t *)d)[p], w); break;
    case PM_T_HALF_FLOAT: {
      uint16_t h = ((const uint16_t *)d)[p];
      int e = (h >> 10) & 31, m = h & 1023;
      double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
      if (h & 0x8000) v = -v;
      float fv = (float)v;
      if (!isfinite(fv) && !raw) w[n++] = '"';
      n += pm_format_float(fv, w + n);
      if (!isfinite(fv) && !raw) w[n++] = '"';
      break;
    }
    case PM_T_FLOAT: {
      float v = ((const float *)d)[p];
      if (!isfinite(v) && !raw) w[n++] = '"';
      n += pm_format_float(v, w + n);
      if (!isfinite(v) && !raw) w[n++] = '"';
      break;
    }
    case PM_T_DOUBLE: {
      double v = ((const double *)d)[p];
      if (!isfinite(v) && !raw) w[n++] = '"';
      n += pm_format_double(v, w + n);
      if (!isfinite(v) && !raw) w[n++] = '"';
      break;
    }
    case PM_T_DECIMAL128:
      if (!raw) w[n++] = '"';
      n += pm_format_decimal128((const uint8_t *)d + p * 16, t->scale, w + n);
      if (!raw) w[n++] = '"';
      break;
    case PM_T_DATE32:
    case PM_T_DATE64: {
      int64_t days = t->id == PM_T_DATE32 ? ((const int32_t *)d)[p] : floordiv(((const int64_t *)d)[p], 86400000);
      if (!raw) w[n++] = '"';
      n += pm_format_date(days, w + n);
      if (!raw) w[n++] = '"';
      break;
    }
    case PM_T_TIME32:
    case PM_T_TIME64: {
      int64_t v = t->id == PM_T_TIME32 ? ((const int32_t *)d)[p] : ((const int64_t *)d)[p];
      if (!raw) w[n++] = '"';
      n += pm_format_time(v, t->unit, digits, w + n);
      if (!raw) w[n++] = '"';
      break;
    }
    case PM_T_TIMESTAMP:
      if (!raw) w[n++] = '"';
      n += pm_format_timestamp(((const int64_t *)d)[p], t->unit, digits, t->tz != NULL, w + n);
      if (!raw) w[n++] = '"';
      break;
    case PM_T_UTF8:
    case PM_T_BINARY: {
      const int32_t *off = d;
      const uint8_t *data = a->buffers[2];
      int64_t s = off[p], len = (int64_t)off[p + 1] - s;
      int rc = t->id == PM_T_UTF8 ? append_string(out, data + s, len, !raw) : append_base64(out, data + s, len, !raw);
      return rc ? nomem(err) : 0;
    }
    case PM_T_LARGE_UTF8:
    case PM_T_LARGE_BINARY: {
      const int64_t *off = d;
      const uint8_t *data = a->buffers[2];
      int64_t s = off[p], len = off[p + 1] - s;
      int rc = t->id == PM_T_LARGE_UTF8 ? append_string(out, data + s, len, !raw)
                                        : append_base64(out, data + s, len, !raw);
      return rc ? nomem(err) : 0;
    }
    case PM_T_FIXED_BINARY:
      return append_base64(out, (const uint8_t *)d + p * t->width, t->width, !raw) ? nomem(err) : 0;
    case PM_T_LIST: {
      const int32_t *off = d;
      return write_list_items(&t->children[0], a->children[0], off[p], off[p + 1], digits, out, depth, err);
    }
    case PM_T_LARGE_LIST: {
      const int64_t *off = d;
      return write_list_items(&t->children[0], a->children[0], off[p], off[p + 1], digits, out, depth, err);
    }
    case PM_T_FIXED_LIST:
      return write_list_items(&t->children[0], a->children[0], p * t->width, (p + 1) * t->width, digits, out, depth,
                              err);
    case PM_T_MAP: {
      const int32_t *off = d;
      const pm_type *et = &t->children[0];
      const struct ArrowArray *ea = a->children[0];
      if (pm_buf_push_u8(out, '[')) return nomem(err);
      for (int64_t k = off[p]; k < off[p + 1]; k++) {
        if (k > off[p] && pm_buf_push_u8(out, ',')) return nomem(err);
        int64_t ep = ea->offset + k;
        if (pm_buf_push_u8(out, '[')) return nomem(err);
        PM_TRY(write_value(&et->children[0], ea->children[0], ep, digits, out, 0, depth + 1, err));
        if (pm_buf_push_u8(out, ',')) return nomem(err);
        PM_TRY(write_value(&et->children[1], ea->children[1], ep, digits, out, 0, depth + 1, err));
        if (pm_buf_push_u8(out, ']')) return nomem(err);
      }
      if (pm_buf_push_u8(out, ']')) return nomem(err);
      return 0;
    }
    case PM_T_STRUCT: {
      if (pm_buf_push_u8(out, '{')) return nomem(err);
      for (int64_t c = 0; c < t->n_children; c++) {
        if (c && pm_buf_push_u8(out, ',')) return nomem(err);
        const char *name = t->children[c].name ? t->children[c].name : "";
        if (append_string(out, (const uint8_t *)name, (int64_t)strlen(name), 1) || pm_buf_push_u8(out, ':'))
          return nomem(err);
        PM_TRY(write_value(&t->children[c], a->children[c], p, digits, out, 0, depth + 1, err));
      }
      if (pm_buf_push_u8(out, '}')) return nomem(err);
      return 0;
    }
    case PM_T_NULL: break;
  }
  out->len += (size_t)n;
  return 0;
}

int pm_json_append_value(const pm_type *t, const struct ArrowArray *a, int64_t row, int fraction_digits, pm_buf *out,
                         pm_error *err) {
  return write_value(t, a, row, fraction_digits, out, 0, 0, err);
}

/* ---------- printer ---------- */

struct pm_printer {
  pm_type type; /* struct of columns */
  pm_print_options opts;
  int *digits; /* per column */
  uint8_t **col_names_json; /* "\"name\":" prefixes for JSONL */
  size_t *col_names_len;
  int started; /* header printed */
  int *widths; /* table column widths (code points), fixed by first batch */
  int *right_align;
  pm_buf cell;  /* scratch */
  pm_buf fbuf;  /* FILE staging */
};

void pm_printer_free(pm_printer *p) {
  if (!p) return;
  if (p->col_names_json)
    for (int64_t c = 0; c < p->type.n_children; c++) pm_aligned_free(p->col_names_json[c]);
  free(p->col_names_json);
  free(p->col_names_len);
  free(p->digits);
  free(p->widths);
  free(p->right_align);
  pm_buf_free(&p->cell);
  pm_buf_free(&p->fbuf);
  pm_type_free(&p->type);
  free(p);
}

static int is_numeric(pm_type_id id) {
  return (id >= PM_T_INT8 && id <= PM_T_DOUBLE) || id == PM_T_DECIMAL128;
}

int pm_printer_new(const struct ArrowSchema *schema, const pm_print_options *opts, pm_printer **out, pm_error *err) {
  *out = NULL;
  pm_printer *p = calloc(1, sizeof *p);
  if (!p) return PM_NOMEM(err);
  pm_buf_init(&p->cell);
  pm_buf_init(&p->fbuf);
  int rc = pm_type_from_schema(schema, &p->type, err);
  if (rc) {
    free(p);
    return rc;
  }
  if (p->type.id != PM_T_STRUCT || p->type.dict) {
    pm_printer_free(p);
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "print: batch schema must be a struct (\"+s\"), got \"%s\"",
                     schema->format);
  }
  if (opts) p->opts = *opts;
  p->opts.fraction_digits = NULL;
  if (p->opts.max_cell_width <= 0) p->opts.max_cell_width = 40;
  if (p->opts.max_cell_width < 4) p->opts.max_cell_width = 4;
  size_t nc = (size_t)p->type.n_children;
  p->digits = calloc(nc + 1, sizeof *p->digits);
  p->col_names_json = calloc(nc + 1, sizeof *p->col_names_json);
  p->col_names_len = calloc(nc + 1, sizeof *p->col_names_len);
  p->widths = calloc(nc + 1, sizeof *p->widths);
  p->right_align = calloc(nc + 1, sizeof *p->right_align);
  if (!p->digits || !p->col_names_json || !p->col_names_len || !p->widths || !p->right_align) goto nomem;
  for (size_t c = 0; c < nc; c++) {
    p->digits[c] = opts && opts->fraction_digits && (int)c < opts->n_fraction_digits && opts->fraction_digits[c] >= 0
                       ? opts->fraction_digits[c]
                       : -1;
    const pm_type *ct = &p->type.children[c];
    p->right_align[c] = is_numeric(ct->dict ? ct->dict->id : ct->id);
    pm_buf nb;
    pm_buf_init(&nb);
    const char *name = ct->name ? ct->name : "";
    if ((c && pm_buf_push_u8(&nb, ',')) || append_string(&nb, (const uint8_t *)name, (int64_t)strlen(name), 1) ||
        pm_buf_push_u8(&nb, ':')) {
      pm_buf_free(&nb);
      goto nomem;
    }
    p->col_names_len[c] = nb.len;
    p->col_names_json[c] = pm_buf_detach(&nb, NULL);
  }
  *out = p;
  return 0;
nomem:
  pm_printer_free(p);
  return PM_NOMEM(err);
}

static int check_batch(pm_printer *p, const struct ArrowArray *b, pm_error *err) {
  if (!b || !b->release) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "print: batch is NULL or released");
  if (b->n_children != p->type.n_children)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "print: batch has %lld columns, schema has %lld",
                     (long long)b->n_children, (long long)p->type.n_children);
  for (int64_t c = 0; c < b->n_children; c++)
    if (!b->children[c] || b->children[c]->length < b->offset + b->length)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "print: column %lld (%s) is shorter than the batch",
                       (long long)c, p->type.children[c].name ? p->type.children[c].name : "");
  return 0;
}

static int write_jsonl(pm_printer *p, const struct ArrowArray *b, pm_buf *out, pm_error *err) {
  int64_t nc = p->type.n_children;
  for (int64_t r = 0; r < b->length; r++) {
    int64_t pr = b->offset + r;
    if (!pm_array_is_valid(b, r)) {
      if (LIT(out, "null\n")) return nomem(err);
      continue;
    }
    if (pm_buf_push_u8(out, '{')) return nomem(err);
    for (int64_t c = 0; c < nc; c++) {
      if (pm_buf_append(out, p->col_names_json[c], p->col_names_len[c])) return nomem(err);
      PM_TRY(write_value(&p->type.children[c], b->children[c], pr, p->digits[c], out, 0, 1, err));
    }
    if (LIT(out, "}\n")) return nomem(err);
  }
  return 0;
}

static int csv_field(pm_buf *out, const uint8_t *s, size_t n, int force_quote) {
  int quote = force_quote;
  for (size_t i = 0; i < n && !quote; i++)
    if (s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r') quote = 1;
  if (!quote) return pm_buf_append(out, s, n);
  if (pm_buf_reserve(out, n * 2 + 2)) return PAIMON_ERR_NOMEM;
  uint8_t *w = out->data + out->len;
  *w++ = '"';
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '"') *w++ = '"';
    *w++ = s[i];
  }
  *w++ = '"';
  out->len = (size_t)(w - out->data);
  return 0;
}

static int write_header_csv(pm_printer *p, pm_buf *out, pm_error *err) {
  for (int64_t c = 0; c < p->type.n_children; c++) {
    const char *name = p->type.children[c].name ? p->type.children[c].name : "";
    if ((c && pm_buf_push_u8(out, ',')) || csv_field(out, (const uint8_t *)name, strlen(name), 0))
      return nomem(err);
  }
  if (pm_buf_push_u8(out, '\n')) return nomem(err);
  return 0;
}

/* Renders a cell as raw text into p->cell (cleared first). Returns 1 in *is_null for nulls. */
static int render_cell(pm_printer *p, int64_t c, const struct ArrowArray *col, int64_t row, int *is_null,
                       pm_error *err) {
  p->cell.len = 0;
  const pm_type *t = &p->type.children[c];
  *is_null = t->id == PM_T_NULL || !pm_array_is_valid(col, row);
  if (*is_null) return 0;
  return write_value(t, col, row, p->digits[c], &p->cell, 1, 1, err);
}

static int write_csv(pm_printer *p, const struct ArrowArray *b, pm_buf *out, pm_error *err) {
  int64_t nc = p->type.n_children;
  if (!p->started) {
    p->started = 1;
    if (!p->opts.no_header) PM_TRY(write_header_csv(p, out, err));
  }
  for (int64_t r = 0; r < b->length; r++) {
    int64_t pr = b->offset + r;
    int row_valid = pm_array_is_valid(b, r); /* a null top-level row prints as all-null fields */
    for (int64_t c = 0; c < nc; c++) {
      if (c && pm_buf_push_u8(out, ',')) return nomem(err);
      if (!row_valid) continue;
      int is_null;
      PM_TRY(render_cell(p, c, b->children[c], pr, &is_null, err));
      if (is_null) continue;
      pm_type_id id = p->type.children[c].dict ? p->type.children[c].dict->id : p->type.children[c].id;
      int empty_string = p->cell.len == 0 && (id == PM_T_UTF8 || id == PM_T_LARGE_UTF8);
      if (csv_field(out, p->cell.data, p->cell.len, empty_string)) return nomem(err);
    }
    if (pm_buf_push_u8(out, '\n')) return nomem(err);
  }
  return 0;
}

/* Number of UTF-8 code points (continuation bytes not counted). */
static int utf8_width(const uint8_t *s, size_t n) {
  int w = 0;
  for (size_t i = 0; i < n; i++) w += (s[i] & 0xC0) != 0x80;
  return w;
}

/* Byte length of the first `cps` code points. */
static size_t utf8_prefix(const uint8_t *s, size_t n, int cps) {
  size_t i = 0;
  int seen = 0;
  while (i < n) {
    if ((s[i] & 0xC0) != 0x80) {
      if (seen == cps) break;
      seen++;
    }
    i++;
  }
  return i;
}

/* Appends a table cell of w code points: control characters shown as
 * spaces, truncated to `width` (with "..."), padded to `width`. */
static int table_cell(pm_buf *out, const uint8_t *s, size_t n, int w, int width, int right) {
  int trunc = w > width;
  size_t keep = n;
  int shown = w;
  if (trunc) {
    int cps = width - 3 < 0 ? 0 : width - 3;
    keep = utf8_prefix(s, n, cps);
    shown = cps + 3;
  }
  int pad = width > shown ? width - shown : 0;
  if (pm_buf_reserve(out, keep + (size_t)pad + 8)) return PAIMON_ERR_NOMEM;
  uint8_t *o = out->data + out->len;
  if (right) {
    memset(o, ' ', (size_t)pad);
    o += pad;
  }
  for (size_t i = 0; i < keep; i++) o[i] = s[i] < 0x20 ? ' ' : s[i];
  o += keep;
  if (trunc) {
    memcpy(o, "...", 3);
    o += 3;
  }
  if (!right) {
    memset(o, ' ', (size_t)pad);
    o += pad;
  }
  out->len = (size_t)(o - out->data);
  return 0;
}

static int write_table(pm_printer *p, const struct ArrowArray *b, pm_buf *out, pm_error *err) {
  int64_t nc = p->type.n_children;
  int max = p->opts.max_cell_width;
  /* Cell texts of this batch in one buffer, with end offsets and widths per cell. */
  pm_buf texts;
  pm_buf_init(&texts);
  size_t ncells = (size_t)b->length * (size_t)(nc ? nc : 1);
  size_t *ends = malloc((ncells + 1) * sizeof *ends);
  int *cw = malloc((ncells + 1) * sizeof *cw);
  int rc = 0;
  if (!ends || !cw) goto oom;
  size_t k = 0;
  for (int64_t r = 0; r < b->length; r++) {
    int64_t pr = b->offset + r;
    int row_valid = pm_array_is_valid(b, r);
    for (int64_t c = 0; c < nc; c++, k++) {
      size_t start = texts.len;
      const pm_type *t = &p->type.children[c];
      const struct ArrowArray *col = b->children[c];
      if (!row_valid || t->id == PM_T_NULL || !pm_array_is_valid(col, pr)) {
        if (LIT(&texts, "null")) goto oom;
      } else if ((rc = write_value(t, col, pr, p->digits[c], &texts, 1, 1, err))) {
        goto done;
      }
      ends[k] = texts.len;
      cw[k] = utf8_width(texts.data + start, texts.len - start);
    }
  }
  if (!p->started) {
    p->started = 1;
    for (int64_t c = 0; c < nc; c++) {
      const char *name = p->type.children[c].name ? p->type.children[c].name : "";
      int w = utf8_width((const uint8_t *)name, strlen(name));
      for (int64_t r = 0; r < b->length; r++) {
        int x = cw[(size_t)r * (size_t)nc + (size_t)c];
        if (x > w) w = x;
      }
      p->widths[c] = w > max ? max : w;
      if (p->widths[c] < 1) p->widths[c] = 1;
    }
    if (!p->opts.no_header) {
      for (int64_t c = 0; c < nc; c++) {
        const char *name = p->type.children[c].name ? p->type.children[c].name : "";
        int last_left = c == nc - 1 && !p->right_align[c];
        int nw = utf8_width((const uint8_t *)name, strlen(name));
        int width = last_left ? (nw < p->widths[c] ? nw : p->widths[c]) : p->widths[c];
        if ((c && LIT(out, " | ")) ||
            table_cell(out, (const uint8_t *)name, strlen(name), nw, width, p->right_align[c]))
          goto oom;
      }
      if (pm_buf_push_u8(out, '\n')) goto oom;
      for (int64_t c = 0; c < nc; c++) {
        if (c && LIT(out, "-+-")) goto oom;
        for (int i = 0; i < p->widths[c]; i++)
          if (pm_buf_push_u8(out, '-')) goto oom;
      }
      if (pm_buf_push_u8(out, '\n')) goto oom;
    }
  }
  k = 0;
  for (int64_t r = 0; r < b->length; r++) {
    for (int64_t c = 0; c < nc; c++, k++) {
      size_t s = k ? ends[k - 1] : 0;
      if (c && LIT(out, " | ")) goto oom;
      /* The last column is not padded when left-aligned: no trailing blanks. */
      int width = p->widths[c];
      if (c == nc - 1 && !p->right_align[c] && cw[k] < width) width = cw[k];
      if (table_cell(out, texts.data + s, ends[k] - s, cw[k], width, p->right_align[c])) goto oom;
    }
    if (pm_buf_push_u8(out, '\n')) goto oom;
  }
  goto done;
oom:
  rc = nomem(err);
done:
  free(ends);
  free(cw);
  pm_buf_free(&texts);
  return rc;
}

int pm_printer_write(pm_printer *p, const struct ArrowArray *batch, pm_buf *out, pm_error *err) {
  PM_TRY(check_batch(p, batch, err));
  switch (p->opts.format) {
    case PM_PRINT_JSONL: return write_jsonl(p, batch, out, err);
    case PM_PRINT_CSV: return write_csv(p, batch, out, err);
    case PM_PRINT_TABLE: return write_table(p, batch, out, err);
  }
  return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "print: unknown output format %d", (int)p->opts.format);
}

static int flush_file(pm_buf *b, FILE *f, pm_error *err) {
  if (b->len && fwrite(b->data, 1, b->len, f) != b->len) {
    b->len = 0;
    return pm_errorf(err, PAIMON_ERR_IO, "print: write failed");
  }
  b->len = 0;
  return 0;
}

int pm_printer_print(pm_printer *p, const struct ArrowArray *batch, FILE *f, pm_error *err) {
  PM_TRY(check_batch(p, batch, err));
  if (p->opts.format == PM_PRINT_TABLE) {
    PM_TRY(write_table(p, batch, &p->fbuf, err));
    return flush_file(&p->fbuf, f, err);
  }
  /* Chunk rows so the staging buffer stays around 1 MiB. */
  struct ArrowArray view = *batch;
  const int64_t chunk = 4096;
  for (int64_t r = 0; r < batch->length; r += chunk) {
    view.offset = batch->offset + r;
    view.length = batch->length - r < chunk ? batch->length - r : chunk;
    int rc = p->opts.format == PM_PRINT_CSV ? write_csv(p, &view, &p->fbuf, err) : write_jsonl(p, &view, &p->fbuf, err);
    if (rc) {
      p->fbuf.len = 0;
      return rc;
    }
    if (p->fbuf.len >= (1u << 20)) PM_TRY(flush_file(&p->fbuf, f, err));
  }
  return flush_file(&p->fbuf, f, err);
}

int pm_printer_finish(pm_printer *p, pm_buf *out, pm_error *err) {
  if (p->started || p->opts.format == PM_PRINT_JSONL || p->opts.no_header) return 0;
  p->started = 1;
  if (p->opts.format == PM_PRINT_CSV) return write_header_csv(p, out, err);
  for (int64_t c = 0; c < p->type.n_children; c++) {
    const char *name = p->type.children[c].name ? p->type.children[c].name : "";
    if ((c && LIT(out, " | ")) || pm_buf_append(out, name, strlen(name))) return nomem(err);
  }
  if (pm_buf_push_u8(out, '\n')) return nomem(err);
  return 0;
}

int pm_printer_finish_file(pm_printer *p, FILE *f, pm_error *err) {
  PM_TRY(pm_printer_finish(p, &p->fbuf, err));
  return flush_file(&p->fbuf, f, err);
}

int pm_print_batch(const struct ArrowSchema *schema, const struct ArrowArray *batch, const pm_print_options *opts,
                   FILE *f, pm_error *err) {
  pm_printer *p;
  PM_TRY(pm_printer_new(schema, opts, &p, err));
  int rc = pm_printer_print(p, batch, f, err);
  pm_printer_free(p);
  return rc;
}

int pm_print_batch_to_buf(const struct ArrowSchema *schema, const struct ArrowArray *batch,
                          const pm_print_options *opts, pm_buf *out, pm_error *err) {
  pm_printer *p;
  PM_TRY(pm_printer_new(schema, opts, &p, err));
  int rc = pm_printer_write(p, batch, out, err);
  pm_printer_free(p);
  return rc;
}
