/* Low-level value formatters of the printers' value encoding. */
#include "print/format.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pm_format_u64(uint64_t v, char *buf) {
  char tmp[24];
  int n = 0;
  do {
    tmp[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  for (int i = 0; i < n; i++) buf[i] = tmp[n - 1 - i];
  return n;
}

int pm_format_i64(int64_t v, char *buf) {
  if (v < 0) {
    buf[0] = '-';
    return 1 + pm_format_u64((uint64_t)0 - (uint64_t)v, buf + 1);
  }
  return pm_format_u64((uint64_t)v, buf);
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
int64_t pm_floordiv(int64_t a, int64_t b) {
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
    n += ay < 10000 ? fmt_pad(ay, 4, buf + n) : pm_format_u64(ay, buf + n);
  } else if (y > 9999) {
    buf[n++] = '+';
    n += pm_format_u64((uint64_t)y, buf + n);
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
    n += pm_format_u64((uint64_t)(secs / 3600), buf + n);
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
  int64_t secs = pm_floordiv(value, div);
  uint64_t frac = (uint64_t)floormod(value, div);
  int64_t days = pm_floordiv(secs, 86400);
  int64_t sod = floormod(secs, 86400);
  int n = pm_format_date(days, buf);
  buf[n++] = 'T';
  n += fmt_hms(sod, buf + n);
  n += fmt_fraction(frac, unit, fraction_digits, buf + n);
  if (zoned) buf[n++] = 'Z';
  return n;
}
