#include "table/evolution.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/file.h"
#include "util/buf.h"
#include "util/civil.h"

/* ======================================================================
 * Calendar helpers (proleptic Gregorian, as java.time)
 * ====================================================================== */

static int format_date(int64_t days, char *buf, size_t cap) {
  int64_t y;
  int m, d;
  pm_civil_from_days(days, &y, &m, &d);
  if (y >= 0 && y <= 9999) return snprintf(buf, cap, "%04lld-%02d-%02d", (long long)y, m, d);
  return snprintf(buf, cap, "%+05lld-%02d-%02d", (long long)y, m, d);
}

/* "yyyy-MM-dd HH:mm:ss[.fraction without trailing zeros]" */
static int format_timestamp(int64_t sec, int32_t nano, char *buf, size_t cap) {
  int64_t days = pm_floor_div(sec, 86400), sod = pm_floor_mod(sec, 86400);
  int n = format_date(days, buf, cap);
  if (n < 0 || (size_t)n >= cap) return n;
  n += snprintf(buf + n, cap - (size_t)n, " %02d:%02d:%02d", (int)(sod / 3600), (int)(sod / 60 % 60), (int)(sod % 60));
  if (nano > 0 && (size_t)n < cap) {
    char f[16];
    snprintf(f, sizeof f, "%09d", (int)nano);
    int len = 9;
    while (len > 0 && f[len - 1] == '0') len--;
    f[len] = 0;
    n += snprintf(buf + n, cap - (size_t)n, ".%s", f);
  }
  return n;
}

/* Parses "yyyy-MM-dd" optionally followed by [ T]HH:mm[:ss[.f{1,9}]]. Returns 0 on success. */
static int parse_datetime(const char *s, size_t n, int64_t *sec, int32_t *nano, int *has_time) {
  char buf[64];
  while (n && isspace((unsigned char)*s)) s++, n--;
  while (n && isspace((unsigned char)s[n - 1])) n--;
  if (n == 0 || n >= sizeof buf) return -1;
  memcpy(buf, s, n);
  buf[n] = 0;
  const char *p = buf;
  int neg = 0;
  if (*p == '-' || *p == '+') neg = *p++ == '-';
  char *e;
  long long y = strtoll(p, &e, 10);
  if (e == p || *e != '-') return -1;
  p = e + 1;
  long mo = strtol(p, &e, 10);
  if (e == p || *e != '-' || mo < 1 || mo > 12) return -1;
  p = e + 1;
  long d = strtol(p, &e, 10);
  if (e == p || d < 1 || d > 31) return -1;
  p = e;
  if (neg) y = -y;
  int64_t days = pm_days_from_civil(y, (int)mo, (int)d);
  long hh = 0, mi = 0, ss = 0;
  int32_t ns = 0;
  *has_time = 0;
  if (*p == ' ' || *p == 'T') {
    *has_time = 1;
    p++;
    hh = strtol(p, &e, 10);
    if (e == p || *e != ':' || hh > 23 || hh < 0) return -1;
    p = e + 1;
    mi = strtol(p, &e, 10);
    if (e == p || mi > 59 || mi < 0) return -1;
    p = e;
    if (*p == ':') {
      p++;
      ss = strtol(p, &e, 10);
      if (e == p || ss > 59 || ss < 0) return -1;
      p = e;
      if (*p == '.') {
        p++;
        int digits = 0;
        while (isdigit((unsigned char)*p)) {
          if (digits < 9) ns = ns * 10 + (*p - '0');
          digits++;
          p++;
        }
        if (!digits) return -1;
        for (int i = digits; i < 9; i++) ns *= 10;
      }
    }
  }
  if (*p) return -1;
  *sec = days * 86400 + hh * 3600 + mi * 60 + ss;
  *nano = ns;
  return 0;
}

/* ======================================================================
 * Values
 * ====================================================================== */

typedef enum cat { C_OTHER, C_BOOL, C_INT, C_FLOAT, C_DEC, C_STR, C_BIN, C_DATE, C_TS, C_LTZ, C_TIME } cat;

static cat cat_of(const pm_type *t) {
  switch (t->id) {
    case PM_T_BOOL: return C_BOOL;
    case PM_T_INT8:
    case PM_T_UINT8:
    case PM_T_INT16:
    case PM_T_UINT16:
    case PM_T_INT32:
    case PM_T_UINT32:
    case PM_T_INT64:
    case PM_T_UINT64: return C_INT;
    case PM_T_FLOAT:
    case PM_T_DOUBLE: return C_FLOAT;
    case PM_T_DECIMAL128: return C_DEC;
    case PM_T_UTF8:
    case PM_T_LARGE_UTF8: return C_STR;
    case PM_T_BINARY:
    case PM_T_LARGE_BINARY:
    case PM_T_FIXED_BINARY: return C_BIN;
    case PM_T_DATE32:
    case PM_T_DATE64: return C_DATE;
    case PM_T_TIMESTAMP: return t->tz ? C_LTZ : C_TS;
    case PM_T_TIME32:
    case PM_T_TIME64: return C_TIME;
    default: return C_OTHER;
  }
}

typedef __int128 i128;

typedef struct val {
  int null;
  int64_t i;      /* INT, DATE (days), TIME (nanos of day), BOOL */
  double d;       /* FLOAT */
  i128 dec;       /* DEC unscaled */
  int32_t scale;  /* DEC */
  const uint8_t *p; /* STR/BIN */
  size_t n;
  int64_t sec;    /* TS (local) / LTZ (UTC) */
  int32_t nano;
  char tmp[96];   /* storage for formatted strings */
} val;

static const int64_t unit_per_sec[4] = {1, 1000, 1000000, 1000000000};

static int64_t int_at(const struct ArrowArray *a, pm_type_id id, int64_t i) {
  const void *b = a->buffers[1];
  int64_t j = a->offset + i;
  switch (id) {
    case PM_T_INT8: return ((const int8_t *)b)[j];
    case PM_T_UINT8: return ((const uint8_t *)b)[j];
    case PM_T_INT16: return ((const int16_t *)b)[j];
    case PM_T_UINT16: return ((const uint16_t *)b)[j];
    case PM_T_INT32:
    case PM_T_DATE32:
    case PM_T_TIME32: return ((const int32_t *)b)[j];
    case PM_T_UINT32: return ((const uint32_t *)b)[j];
    default: return ((const int64_t *)b)[j];
  }
}

static void get_val(const struct ArrowArray *a, const pm_type *t, int64_t i, val *v) {
  v->null = !pm_array_is_valid(a, i);
  if (v->null) return;
  int64_t j = a->offset + i;
  switch (t->id) {
    case PM_T_BOOL: v->i = pm_bit_get(a->buffers[1], j); break;
    case PM_T_FLOAT: v->d = ((const float *)a->buffers[1])[j]; break;
    case PM_T_DOUBLE: v->d = ((const double *)a->buffers[1])[j]; break;
    case PM_T_DECIMAL128: {
      i128 x;
      memcpy(&x, (const uint8_t *)a->buffers[1] + 16 * j, 16);
      v->dec = x;
      v->scale = t->scale;
      break;
    }
    case PM_T_UTF8:
    case PM_T_BINARY: {
      const int32_t *o = a->buffers[1];
      v->p = (const uint8_t *)a->buffers[2] + o[j];
      v->n = (size_t)(o[j + 1] - o[j]);
      break;
    }
    case PM_T_LARGE_UTF8:
    case PM_T_LARGE_BINARY: {
      const int64_t *o = a->buffers[1];
      v->p = (const uint8_t *)a->buffers[2] + o[j];
      v->n = (size_t)(o[j + 1] - o[j]);
      break;
    }
    case PM_T_FIXED_BINARY:
      v->p = (const uint8_t *)a->buffers[1] + (size_t)t->width * (size_t)j;
      v->n = (size_t)t->width;
      break;
    case PM_T_DATE64: v->i = pm_floor_div(((const int64_t *)a->buffers[1])[j], 86400000); break;
    case PM_T_TIME32:
    case PM_T_TIME64: {
      int64_t x = int_at(a, t->id, i);
      v->i = x * (1000000000 / unit_per_sec[t->unit & 3]);
      break;
    }
    case PM_T_TIMESTAMP: {
      int64_t x = ((const int64_t *)a->buffers[1])[j], per = unit_per_sec[t->unit & 3];
      v->sec = pm_floor_div(x, per);
      v->nano = (int32_t)(pm_floor_mod(x, per) * (1000000000 / per));
      break;
    }
    default: v->i = int_at(a, t->id, i); break;
  }
}

/* ---- output column builder ---- */

typedef struct colb {
  const pm_type *t;
  int64_t n;
  uint8_t *valid;
  uint8_t *data;   /* fixed width values (or bool bits) */
  void *offsets;   /* varbin */
  pm_buf vdata;
  int64_t null_count;
} colb;

static int colb_init(colb *b, const pm_type *t, int64_t n, pm_error *err) {
  memset(b, 0, sizeof *b);
  b->t = t;
  b->n = n;
  pm_buf_init(&b->vdata);
  size_t nb = (size_t)(n + 8) / 8;
  b->valid = pm_aligned_alloc(nb);
  if (!b->valid) return PM_NOMEM(err);
  memset(b->valid, 0, nb);
  if (t->id == PM_T_BOOL) {
    b->data = pm_aligned_alloc(nb);
    if (b->data) memset(b->data, 0, nb);
  } else if (pm_type_is_varbin(t->id)) {
    size_t w = pm_type_is_large(t->id) ? 8 : 4;
    b->offsets = pm_aligned_alloc(((size_t)n + 1) * w);
    if (b->offsets) memset(b->offsets, 0, ((size_t)n + 1) * w);
    b->data = (uint8_t *)b->offsets; /* marks success */
  } else {
    size_t w = (size_t)pm_type_byte_width(t);
    if (!w) return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "cast to this Arrow type is not supported");
    b->data = pm_aligned_alloc((size_t)n * w + 1);
    if (b->data) memset(b->data, 0, (size_t)n * w + 1);
  }
  if (!b->data) return PM_NOMEM(err);
  return 0;
}

static void colb_free(colb *b) {
  pm_aligned_free(b->valid);
  if (b->offsets) pm_aligned_free(b->offsets);
  else pm_aligned_free(b->data);
  pm_buf_free(&b->vdata);
}

static void set_offset(colb *b, int64_t i) {
  if (pm_type_is_large(b->t->id)) ((int64_t *)b->offsets)[i + 1] = (int64_t)b->vdata.len;
  else ((int32_t *)b->offsets)[i + 1] = (int32_t)b->vdata.len;
}

static void colb_null(colb *b, int64_t i) {
  b->null_count++;
  if (b->offsets) set_offset(b, i);
}

static int colb_bytes(colb *b, int64_t i, const void *p, size_t n, pm_error *err) {
  if (!pm_type_is_large(b->t->id) && b->vdata.len + n > INT32_MAX)
    return pm_errorf(err, PAIMON_ERR_NOMEM, "cast: string column exceeds 2 GiB in one batch");
  if (pm_buf_append(&b->vdata, p, n)) return PM_NOMEM(err);
  pm_bit_set(b->valid, i);
  set_offset(b, i);
  return 0;
}

static void colb_int(colb *b, int64_t i, int64_t x) {
  pm_bit_set(b->valid, i);
  switch (b->t->id) {
    case PM_T_INT8:
    case PM_T_UINT8: ((uint8_t *)b->data)[i] = (uint8_t)x; break;
    case PM_T_INT16:
    case PM_T_UINT16: ((uint16_t *)b->data)[i] = (uint16_t)x; break;
    case PM_T_INT32:
    case PM_T_UINT32:
    case PM_T_DATE32:
    case PM_T_TIME32: ((uint32_t *)b->data)[i] = (uint32_t)x; break;
    default: ((int64_t *)b->data)[i] = x; break;
  }
}

static int colb_finish(colb *b, struct ArrowArray *out, pm_error *err) {
  int nbuf = pm_type_n_buffers(b->t->id);
  PM_TRY(pm_array_init(out, b->n, nbuf, 0, err));
  out->null_count = b->null_count;
  pm_array_set_buffer(out, 0, b->valid);
  b->valid = NULL;
  if (b->offsets) {
    pm_array_set_buffer(out, 1, b->offsets);
    b->offsets = NULL;
    b->data = NULL;
    size_t len;
    uint8_t *d = pm_buf_detach(&b->vdata, &len);
    if (!d) d = pm_aligned_alloc(1);
    if (!d) {
      pm_array_release(out);
      return PM_NOMEM(err);
    }
    pm_array_set_buffer(out, 2, d);
  } else {
    pm_array_set_buffer(out, 1, b->data);
    b->data = NULL;
  }
  return 0;
}

/* ---- numeric helpers ---- */

static i128 p10(int n) {
  i128 x = 1;
  for (int i = 0; i < n; i++) x *= 10;
  return x;
}

/* Rescales with HALF_UP rounding; returns 0 on overflow of `precision` digits. */
static int dec_rescale(i128 x, int from_scale, int to_scale, int precision, i128 *out) {
  if (to_scale >= from_scale) {
    int k = to_scale - from_scale;
    if (k > 38) return 0;
    i128 f = p10(k), lim = p10(precision);
    if (x > 0 ? x > (lim - 1) / f : x < -(lim - 1) / f) return 0;
    *out = x * f;
  } else {
    int k = from_scale - to_scale;
    if (k > 38) {
      *out = 0;
      return 1;
    }
    i128 f = p10(k), q = x / f, r = x % f;
    if (r < 0) r = -r;
    if (r * 2 >= f) q += x < 0 ? -1 : 1;
    i128 lim = p10(precision);
    if (q >= lim || q <= -lim) return 0;
    *out = q;
  }
  return 1;
}

static int format_decimal(i128 x, int scale, char *buf, size_t cap) {
  char digits[64];
  int n = 0, neg = x < 0;
  unsigned __int128 u = neg ? (unsigned __int128)(-(x + 1)) + 1 : (unsigned __int128)x;
  do {
    digits[n++] = (char)('0' + (int)(u % 10));
    u /= 10;
  } while (u);
  while (n <= scale) digits[n++] = '0';
  size_t w = 0;
  if (neg && w + 1 < cap) buf[w++] = '-';
  for (int i = n - 1; i >= 0; i--) {
    if (w + 2 >= cap) break;
    buf[w++] = digits[i];
    if (i == scale && scale > 0) buf[w++] = '.';
  }
  buf[w] = 0;
  return (int)w;
}

/* Parses a decimal literal into unscaled at `scale` (HALF_UP). 0 on success. */
static int parse_decimal(const uint8_t *s, size_t n, int scale, int precision, i128 *out) {
  while (n && isspace(*s)) s++, n--;
  while (n && isspace(s[n - 1])) n--;
  if (!n) return -1;
  int neg = 0;
  if (*s == '-' || *s == '+') neg = *s++ == '-', n--;
  i128 x = 0;
  int frac = -1, digits = 0;
  int64_t exp = 0;
  size_t i = 0;
  for (; i < n; i++) {
    if (s[i] == '.') {
      if (frac >= 0) return -1;
      frac = 0;
    } else if (isdigit(s[i])) {
      if (digits < 38) {
        x = x * 10 + (s[i] - '0');
        if (frac >= 0) frac++;
        if (x) digits++;
      } else if (frac < 0) {
        return -1;
      }
    } else if (s[i] == 'e' || s[i] == 'E') {
      char b[32];
      size_t m = n - i - 1;
      if (!m || m >= sizeof b) return -1;
      memcpy(b, s + i + 1, m);
      b[m] = 0;
      char *e;
      exp = strtoll(b, &e, 10);
      if (*e || exp > 100 || exp < -100) return -1;
      break;
    } else {
      return -1;
    }
  }
  int cur = (frac < 0 ? 0 : frac) - (int)exp;
  if (neg) x = -x;
  if (cur < 0) {
    if (!dec_rescale(x, 0, -cur, 38, &x)) return -1;
    cur = 0;
  }
  return dec_rescale(x, cur, scale, precision, out) ? 0 : -1;
}

/* Java Double.toString / Float.toString. */
static int format_java_double(double d, int is_float, char *buf, size_t cap) {
  if (isnan(d)) return snprintf(buf, cap, "NaN");
  if (isinf(d)) return snprintf(buf, cap, d > 0 ? "Infinity" : "-Infinity");
  if (d == 0) return snprintf(buf, cap, signbit(d) ? "-0.0" : "0.0");
  char tmp[64];
  int prec;
  for (prec = 1; prec <= 17; prec++) {
    snprintf(tmp, sizeof tmp, "%.*e", prec - 1, d);
    if (is_float ? (float)strtod(tmp, NULL) == (float)d : strtod(tmp, NULL) == d) break;
  }
  /* tmp = [-]D.DDDDe[+-]XX */
  char digits[32];
  int nd = 0, neg = tmp[0] == '-';
  const char *p = tmp + neg;
  for (; *p && *p != 'e'; p++)
    if (isdigit((unsigned char)*p)) digits[nd++] = *p;
  int exp = atoi(p + 1);
  while (nd > 1 && digits[nd - 1] == '0') nd--;
  digits[nd] = 0;
  size_t w = 0;
  char out[80];
  if (neg) out[w++] = '-';
  if (exp >= -3 && exp < 7) {
    if (exp < 0) {
      out[w++] = '0';
      out[w++] = '.';
      for (int i = -1; i > exp; i--) out[w++] = '0';
      for (int i = 0; i < nd; i++) out[w++] = digits[i];
    } else {
      for (int i = 0; i <= exp; i++) out[w++] = i < nd ? digits[i] : '0';
      out[w++] = '.';
      if (nd > exp + 1)
        for (int i = exp + 1; i < nd; i++) out[w++] = digits[i];
      else
        out[w++] = '0';
    }
    out[w] = 0;
  } else {
    out[w++] = digits[0];
    out[w++] = '.';
    if (nd > 1)
      for (int i = 1; i < nd; i++) out[w++] = digits[i];
    else
      out[w++] = '0';
    w += (size_t)snprintf(out + w, sizeof out - w, "E%d", exp);
  }
  return snprintf(buf, cap, "%s", out);
}

static int parse_long(const uint8_t *s, size_t n, int64_t *out) {
  while (n && isspace(*s)) s++, n--;
  while (n && isspace(s[n - 1])) n--;
  if (!n) return -1;
  int neg = 0;
  size_t i = 0;
  if (s[0] == '-' || s[0] == '+') neg = s[i++] == '-';
  if (i == n) return -1;
  uint64_t x = 0;
  for (; i < n; i++) {
    if (s[i] == '.') {
      /* Java's toLong accepts a fraction made of digits and truncates it. */
      for (size_t j = i + 1; j < n; j++)
        if (!isdigit(s[j])) return -1;
      break;
    }
    if (!isdigit(s[i])) return -1;
    if (x > (UINT64_MAX - 9) / 10) return -1;
    x = x * 10 + (uint64_t)(s[i] - '0');
  }
  if (!neg && x > (uint64_t)INT64_MAX) return -1;
  if (neg && x > (uint64_t)INT64_MAX + 1) return -1;
  *out = neg ? (int64_t)(0 - x) : (int64_t)x;
  return 0;
}

static int64_t int_bits_limit(pm_type_id id, int64_t *min) {
  switch (id) {
    case PM_T_INT8: *min = INT8_MIN; return INT8_MAX;
    case PM_T_INT16: *min = INT16_MIN; return INT16_MAX;
    case PM_T_INT32: *min = INT32_MIN; return INT32_MAX;
    default: *min = INT64_MIN; return INT64_MAX;
  }
}

/* Java (int)/(long) of a double: NaN -> 0, saturating; (byte)/(short) narrow the int result. */
static int64_t java_double_to_int(double d, pm_type_id id) {
  if (isnan(d)) return 0;
  if (id == PM_T_INT64 || id == PM_T_UINT64) {
    if (d >= 9.2233720368547758e18) return INT64_MAX;
    if (d <= -9.2233720368547758e18) return INT64_MIN;
    return (int64_t)d;
  }
  int32_t x;
  if (d >= 2147483647.0) x = INT32_MAX;
  else if (d <= -2147483648.0) x = INT32_MIN;
  else x = (int32_t)d;
  return x;
}

static int str_eq_ci(const uint8_t *p, size_t n, const char *w) {
  size_t m = strlen(w);
  if (n != m) return 0;
  for (size_t i = 0; i < n; i++)
    if (tolower(p[i]) != w[i]) return 0;
  return 1;
}

/* Converts v (category from, type ft) into the output builder at row i. */
static int convert_put(val *v, const pm_type *ft, cat from, colb *b, int64_t i, const pm_cast_options *opt,
                       pm_error *err) {
  const pm_type *tt = b->t;
  cat to = cat_of(tt);
  const pm_tz *tz = opt ? opt->session_tz : NULL;
  if (v->null) {
    colb_null(b, i);
    return 0;
  }
  char sbuf[128];
  /* Normalise: strings are parsed according to the target. */
  switch (to) {
    case C_STR:
    case C_BIN: {
      const void *p = sbuf;
      size_t n = 0;
      switch (from) {
        case C_STR:
        case C_BIN: p = v->p; n = v->n; break;
        case C_BOOL: n = (size_t)snprintf(sbuf, sizeof sbuf, "%s", v->i ? "true" : "false"); break;
        case C_INT: n = (size_t)snprintf(sbuf, sizeof sbuf, "%lld", (long long)v->i); break;
        case C_FLOAT: n = (size_t)format_java_double(v->d, ft->id == PM_T_FLOAT, sbuf, sizeof sbuf); break;
        case C_DEC: n = (size_t)format_decimal(v->dec, v->scale, sbuf, sizeof sbuf); break;
        case C_DATE: n = (size_t)format_date(v->i, sbuf, sizeof sbuf); break;
        case C_TS: n = (size_t)format_timestamp(v->sec, v->nano, sbuf, sizeof sbuf); break;
        case C_LTZ:
          n = (size_t)format_timestamp(v->sec + pm_tz_offset_at_utc(tz, v->sec), v->nano, sbuf, sizeof sbuf);
          break;
        case C_TIME: {
          int64_t s = v->i / 1000000000;
          int32_t ns = (int32_t)(v->i % 1000000000);
          n = (size_t)format_timestamp(s, ns, sbuf, sizeof sbuf);
          /* drop the date part */
          memmove(sbuf, sbuf + 11, n - 10);
          n -= 11;
          break;
        }
        default: goto unsupported;
      }
      if (tt->id == PM_T_FIXED_BINARY) {
        uint8_t *dst = b->data + (size_t)tt->width * (size_t)i;
        memset(dst, 0, (size_t)tt->width);
        memcpy(dst, p, n < (size_t)tt->width ? n : (size_t)tt->width);
        pm_bit_set(b->valid, i);
        return 0;
      }
      return colb_bytes(b, i, p, n, err);
    }
    case C_BOOL: {
      int x;
      switch (from) {
        case C_BOOL:
        case C_INT: x = v->i != 0; break;
        case C_FLOAT: x = v->d != 0; break;
        case C_DEC: x = v->dec != 0; break;
        case C_STR: {
          const uint8_t *p = v->p;
          size_t n = v->n;
          while (n && isspace(*p)) p++, n--;
          while (n && isspace(p[n - 1])) n--;
          if (str_eq_ci(p, n, "t") || str_eq_ci(p, n, "true") || str_eq_ci(p, n, "y") || str_eq_ci(p, n, "yes") ||
              str_eq_ci(p, n, "1"))
            x = 1;
          else if (str_eq_ci(p, n, "f") || str_eq_ci(p, n, "false") || str_eq_ci(p, n, "n") ||
                   str_eq_ci(p, n, "no") || str_eq_ci(p, n, "0"))
            x = 0;
          else
            return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "cannot cast string \"%.*s\" to BOOLEAN",
                             (int)(v->n > 64 ? 64 : v->n), (const char *)v->p);
          break;
        }
        default: goto unsupported;
      }
      pm_bit_set(b->valid, i);
      if (x) pm_bit_set(b->data, i);
      return 0;
    }
    case C_INT: {
      int64_t x;
      switch (from) {
        case C_BOOL:
        case C_INT: x = v->i; break;
        case C_FLOAT: x = java_double_to_int(v->d, tt->id); break;
        case C_DEC: {
          i128 q = v->dec / p10(v->scale);
          x = (int64_t)q;
          break;
        }
        case C_STR:
          if (parse_long(v->p, v->n, &x))
            return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "cannot cast string \"%.*s\" to an integer",
                             (int)(v->n > 64 ? 64 : v->n), (const char *)v->p);
          {
            int64_t mn, mx = int_bits_limit(tt->id, &mn);
            if (x < mn || x > mx)
              return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "string \"%.*s\" is out of range for the integer type",
                               (int)(v->n > 64 ? 64 : v->n), (const char *)v->p);
          }
          break;
        case C_DATE: x = v->i; break;
        case C_TS: x = pm_tz_local_to_utc(tz, v->sec); break;
        case C_LTZ: x = v->sec; break;
        default: goto unsupported;
      }
      colb_int(b, i, x);
      return 0;
    }
    case C_FLOAT: {
      double x;
      switch (from) {
        case C_BOOL:
        case C_INT: x = (double)v->i; break;
        case C_FLOAT: x = v->d; break;
        case C_DEC: x = (double)v->dec / (double)p10(v->scale); break;
        case C_STR: {
          char t[128];
          size_t n = v->n < sizeof t - 1 ? v->n : sizeof t - 1;
          memcpy(t, v->p, n);
          t[n] = 0;
          char *e;
          x = strtod(t, &e);
          while (*e && isspace((unsigned char)*e)) e++;
          if (e == t || *e)
            return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "cannot cast string \"%s\" to a floating point", t);
          break;
        }
        default: goto unsupported;
      }
      pm_bit_set(b->valid, i);
      if (tt->id == PM_T_FLOAT) ((float *)b->data)[i] = (float)x;
      else ((double *)b->data)[i] = x;
      return 0;
    }
    case C_DEC: {
      i128 x = 0;
      int ok = 1;
      switch (from) {
        case C_BOOL:
        case C_INT: ok = dec_rescale((i128)v->i, 0, tt->scale, tt->precision, &x); break;
        case C_DEC: ok = dec_rescale(v->dec, v->scale, tt->scale, tt->precision, &x); break;
        case C_FLOAT: {
          if (!isfinite(v->d)) {
            ok = 0;
            break;
          }
          char t[64];
          int n = format_java_double(v->d, ft->id == PM_T_FLOAT, t, sizeof t);
          ok = parse_decimal((const uint8_t *)t, (size_t)n, tt->scale, tt->precision, &x) == 0;
          break;
        }
        case C_STR: ok = parse_decimal(v->p, v->n, tt->scale, tt->precision, &x) == 0; break;
        default: goto unsupported;
      }
      if (!ok) { /* Java yields null when the value does not fit */
        colb_null(b, i);
        return 0;
      }
      pm_bit_set(b->valid, i);
      memcpy(b->data + 16 * (size_t)i, &x, 16);
      return 0;
    }
    case C_DATE: {
      int64_t days;
      switch (from) {
        case C_DATE: days = v->i; break;
        case C_TS: days = pm_floor_div(v->sec, 86400); break;
        case C_LTZ: days = pm_floor_div(v->sec + pm_tz_offset_at_utc(tz, v->sec), 86400); break;
        case C_INT: days = v->i; break;
        case C_STR: {
          int64_t s;
          int32_t ns;
          int ht;
          if (parse_datetime((const char *)v->p, v->n, &s, &ns, &ht))
            return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "cannot cast string \"%.*s\" to DATE",
                             (int)(v->n > 64 ? 64 : v->n), (const char *)v->p);
          days = pm_floor_div(s, 86400);
          break;
        }
        default: goto unsupported;
      }
      if (tt->id == PM_T_DATE64) colb_int(b, i, days * 86400000);
      else colb_int(b, i, days);
      return 0;
    }
    case C_TS:
    case C_LTZ: {
      int64_t sec; /* local for C_TS, UTC for C_LTZ */
      int32_t nano = 0;
      switch (from) {
        case C_TS:
          sec = v->sec, nano = v->nano;
          if (to == C_LTZ) sec = pm_tz_local_to_utc(tz, sec);
          break;
        case C_LTZ:
          sec = v->sec, nano = v->nano;
          if (to == C_TS) sec += pm_tz_offset_at_utc(tz, sec);
          break;
        case C_DATE:
          sec = v->i * 86400;
          if (to == C_LTZ) sec = pm_tz_local_to_utc(tz, sec);
          break;
        case C_INT: /* epoch seconds */
          sec = v->i;
          if (to == C_TS) sec += pm_tz_offset_at_utc(tz, sec);
          break;
        case C_STR: {
          int ht;
          if (parse_datetime((const char *)v->p, v->n, &sec, &nano, &ht))
            return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "cannot cast string \"%.*s\" to TIMESTAMP",
                             (int)(v->n > 64 ? 64 : v->n), (const char *)v->p);
          if (to == C_LTZ) sec = pm_tz_local_to_utc(tz, sec);
          break;
        }
        default: goto unsupported;
      }
      int64_t per = unit_per_sec[tt->unit & 3];
      int64_t x = sec * per + nano / (1000000000 / per);
      pm_bit_set(b->valid, i);
      ((int64_t *)b->data)[i] = x;
      return 0;
    }
    case C_TIME: {
      int64_t ns;
      switch (from) {
        case C_TIME: ns = v->i; break;
        case C_TS: ns = pm_floor_mod(v->sec, 86400) * 1000000000 + v->nano; break;
        default: goto unsupported;
      }
      colb_int(b, i, ns / (1000000000 / unit_per_sec[tt->unit & 3]));
      return 0;
    }
    default: break;
  }
unsupported:
  return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "cast between these types is not supported");
}

static int types_equal(const pm_type *a, const pm_type *b) {
  if (a->id != b->id) return 0;
  if (a->id == PM_T_TIMESTAMP && ((a->tz != NULL) != (b->tz != NULL) || a->unit != b->unit)) return 0;
  if ((a->id == PM_T_TIME32 || a->id == PM_T_TIME64) && a->unit != b->unit) return 0;
  if (a->id == PM_T_DECIMAL128 && (a->precision != b->precision || a->scale != b->scale)) return 0;
  if ((a->id == PM_T_FIXED_BINARY || a->id == PM_T_FIXED_LIST) && a->width != b->width) return 0;
  if ((a->dict != NULL) != (b->dict != NULL)) return 0;
  if (a->n_children != b->n_children) return 0;
  for (int64_t i = 0; i < a->n_children; i++)
    if (!types_equal(&a->children[i], &b->children[i])) return 0;
  return 1;
}

int pm_cast_supported(const pm_type *from, const pm_type *to) {
  if (types_equal(from, to)) return 1;
  cat f = cat_of(from), t = cat_of(to);
  if (f == C_OTHER || t == C_OTHER || from->dict || to->dict) return 0;
  if (t == C_STR || t == C_BIN) return 1;
  switch (t) {
    case C_BOOL: return f == C_BOOL || f == C_INT || f == C_FLOAT || f == C_DEC || f == C_STR;
    case C_INT: return f == C_BOOL || f == C_INT || f == C_FLOAT || f == C_DEC || f == C_STR || f == C_DATE || f == C_TS || f == C_LTZ;
    case C_FLOAT: return f == C_BOOL || f == C_INT || f == C_FLOAT || f == C_DEC || f == C_STR;
    case C_DEC: return f == C_BOOL || f == C_INT || f == C_FLOAT || f == C_DEC || f == C_STR;
    case C_DATE: return f == C_DATE || f == C_TS || f == C_LTZ || f == C_INT || f == C_STR;
    case C_TS:
    case C_LTZ: return f == C_TS || f == C_LTZ || f == C_DATE || f == C_INT || f == C_STR;
    case C_TIME: return f == C_TIME || f == C_TS;
    default: return 0;
  }
}

int pm_cast_array(const struct ArrowArray *src, const pm_type *from, const pm_type *to, const pm_cast_options *opt,
                  struct ArrowArray *out, pm_error *err) {
  if (!pm_cast_supported(from, to) || cat_of(from) == C_OTHER || cat_of(to) == C_OTHER)
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "cast from Arrow type %d to %d is not supported", (int)from->id,
                     (int)to->id);
  colb b;
  int rc = colb_init(&b, to, src->length, err);
  if (rc) {
    colb_free(&b);
    return rc;
  }
  cat fc = cat_of(from);
  val v;
  for (int64_t i = 0; i < src->length; i++) {
    memset(&v, 0, offsetof(val, tmp));
    get_val(src, from, i, &v);
    rc = convert_put(&v, from, fc, &b, i, opt, err);
    if (rc) {
      colb_free(&b);
      return rc;
    }
  }
  rc = colb_finish(&b, out, err);
  colb_free(&b);
  return rc;
}

/* ======================================================================
 * Null arrays
 * ====================================================================== */

int pm_make_null_array(const pm_type *t, int64_t length, struct ArrowArray *out, pm_error *err) {
  if (length < 0) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "negative length");
  int nbuf = pm_type_n_buffers(t->id);
  int64_t nchild = t->n_children;
  PM_TRY(pm_array_init(out, length, nbuf, nchild, err));
  out->null_count = length;
  if (t->id == PM_T_NULL) return 0;
  size_t nb = (size_t)(length + 8) / 8;
  uint8_t *valid = pm_aligned_alloc(nb);
  if (!valid) goto nomem;
  memset(valid, 0, nb);
  pm_array_set_buffer(out, 0, valid);
  size_t sz = 0;
  int64_t child_len = 0;
  switch (t->id) {
    case PM_T_STRUCT: child_len = length; break;
    case PM_T_FIXED_LIST: child_len = length * t->width; break;
    case PM_T_LIST:
    case PM_T_MAP:
    case PM_T_UTF8:
    case PM_T_BINARY: sz = ((size_t)length + 1) * 4; break;
    case PM_T_LARGE_LIST:
    case PM_T_LARGE_UTF8:
    case PM_T_LARGE_BINARY: sz = ((size_t)length + 1) * 8; break;
    case PM_T_BOOL: sz = nb; break;
    default: sz = (size_t)length * (size_t)pm_type_byte_width(t) + 1; break;
  }
  if (nbuf >= 2) {
    uint8_t *d = pm_aligned_alloc(sz ? sz : 1);
    if (!d) goto nomem;
    memset(d, 0, sz ? sz : 1);
    pm_array_set_buffer(out, 1, d);
  }
  if (nbuf == 3) {
    uint8_t *d = pm_aligned_alloc(1);
    if (!d) goto nomem;
    pm_array_set_buffer(out, 2, d);
  }
  for (int64_t c = 0; c < nchild; c++) {
    int64_t cl = (t->id == PM_T_LIST || t->id == PM_T_LARGE_LIST || t->id == PM_T_MAP) ? 0 : child_len;
    int rc = pm_make_null_array(&t->children[c], cl, out->children[c], err);
    if (rc) {
      pm_array_release(out);
      return rc;
    }
  }
  return 0;
nomem:
  pm_array_release(out);
  return PM_NOMEM(err);
}

/* ======================================================================
 * Field-id mapping
 * ====================================================================== */

int32_t pm_arrow_field_id(const struct ArrowSchema *f) {
  char *v = pm_schema_metadata_get(f, "PARQUET:field_id");
  if (!v) return -1;
  char *e;
  long x = strtol(v, &e, 10);
  int32_t id = (*v && !*e && x >= 0 && x <= INT32_MAX) ? (int32_t)x : -1;
  free(v);
  return id;
}

void pm_evo_mapping_free(pm_evo_mapping *m) {
  if (!m) return;
  if (m->nested)
    for (int64_t f = 0; f < m->n_fields; f++) {
      if (m->nested[f]) {
        pm_evo_mapping_free(m->nested[f]);
        free(m->nested[f]);
      }
      free(m->nested_fields[f]);
    }
  free(m->nested);
  free(m->nested_fields);
  free(m->source);
  free(m->needs_cast);
  if (m->file_types)
    for (int64_t i = 0; i < m->n_file_children; i++) pm_type_free(&m->file_types[i]);
  free(m->file_types);
  free(m->file_name);
  memset(m, 0, sizeof *m);
}

int pm_evo_mapping_init(pm_evo_mapping *m, const struct ArrowSchema *fs, const pm_evo_field *fields, int64_t n_fields,
                        pm_evo_name_to_id name_to_id, void *name_ctx, const pm_cast_options *cast,
                        const char *file_name, pm_error *err) {
  return pm_evo_mapping_init2(m, fs, fields, n_fields, name_to_id, NULL, name_ctx, cast, file_name, err);
}

int pm_evo_mapping_init2(pm_evo_mapping *m, const struct ArrowSchema *fs, const pm_evo_field *fields,
                         int64_t n_fields, pm_evo_name_to_id name_to_id, pm_evo_fix_type fix, void *name_ctx,
                         const pm_cast_options *cast, const char *file_name, pm_error *err) {
  memset(m, 0, sizeof *m);
  m->fields = fields;
  m->n_fields = n_fields;
  if (cast) m->cast = *cast;
  m->file_name = strdup(file_name ? file_name : "<file>");
  m->source = malloc(((size_t)n_fields + 1) * sizeof *m->source);
  m->needs_cast = calloc((size_t)n_fields + 1, sizeof *m->needs_cast);
  m->n_file_children = fs->n_children;
  m->file_types = calloc((size_t)fs->n_children + 1, sizeof *m->file_types);
  int32_t *ids = malloc(((size_t)fs->n_children + 1) * sizeof *ids);
  if (!m->file_name || !m->source || !m->needs_cast || !m->file_types || !ids) {
    free(ids);
    pm_evo_mapping_free(m);
    return PM_NOMEM(err);
  }
  int rc = 0;
  for (int64_t c = 0; c < fs->n_children && !rc; c++) {
    rc = pm_type_from_schema(fs->children[c], &m->file_types[c], err);
    ids[c] = pm_arrow_field_id(fs->children[c]);
    if (ids[c] < 0 && name_to_id && fs->children[c]->name) ids[c] = name_to_id(name_ctx, fs->children[c]->name);
    if (!rc && fix && ids[c] >= 0) rc = fix(name_ctx, ids[c], &m->file_types[c], err);
  }
  for (int64_t f = 0; f < n_fields && !rc; f++) {
    m->source[f] = -1;
    for (int64_t c = 0; c < fs->n_children; c++)
      if (ids[c] == fields[f].id) {
        m->source[f] = c;
        break;
      }
    if (m->source[f] < 0) continue;
    const pm_type *ft = &m->file_types[m->source[f]];
    if (!types_equal(ft, fields[f].type) && ft->id == PM_T_STRUCT && fields[f].type->id == PM_T_STRUCT &&
        fields[f].schema && fields[f].schema->n_children == fields[f].type->n_children) {
      /* ROW evolved member by member (added / dropped / renamed / retyped nested fields) */
      if (!m->nested) {
        m->nested = calloc((size_t)n_fields + 1, sizeof *m->nested);
        m->nested_fields = calloc((size_t)n_fields + 1, sizeof *m->nested_fields);
        if (!m->nested || !m->nested_fields) {
          rc = PM_NOMEM(err);
          break;
        }
      }
      int64_t nc = fields[f].type->n_children;
      pm_evo_field *nf = calloc((size_t)nc + 1, sizeof *nf);
      m->nested_fields[f] = nf;
      m->nested[f] = calloc(1, sizeof **m->nested);
      if (!nf || !m->nested[f]) {
        rc = PM_NOMEM(err);
        break;
      }
      for (int64_t k = 0; k < nc; k++) {
        nf[k].id = pm_arrow_field_id(fields[f].schema->children[k]);
        nf[k].name = fields[f].type->children[k].name;
        nf[k].type = &fields[f].type->children[k];
        nf[k].schema = fields[f].schema->children[k];
      }
      rc = pm_evo_mapping_init2(m->nested[f], fs->children[m->source[f]], nf, nc, NULL, NULL, NULL, cast, file_name,
                                err);
      if (rc) {
        free(m->nested[f]);
        m->nested[f] = NULL;
        break;
      }
      m->needs_cast[f] = 2;
      continue;
    }
    if (!types_equal(ft, fields[f].type)) {
      if (!pm_cast_supported(ft, fields[f].type))
        rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: column \"%s\" (field id %d) cannot be cast to the read type",
                       m->file_name, fields[f].name ? fields[f].name : "?", (int)fields[f].id);
      m->needs_cast[f] = 1;
    }
  }
  free(ids);
  if (rc) pm_evo_mapping_free(m);
  return rc;
}

/* Maps the children of struct `in` (offset 0) into out; copies in's validity when keep_nulls. */
static int evo_apply_struct(const pm_evo_mapping *m, struct ArrowArray *in, struct ArrowArray *out, int keep_nulls,
                            pm_error *err);

int pm_evo_apply(const pm_evo_mapping *m, struct ArrowArray *in, struct ArrowArray *out, pm_error *err) {
  if (in->offset != 0 || in->null_count != 0) {
    /* Struct-level nulls/offsets never occur in file batches; refuse rather than misread. */
    pm_array_release(in);
    return pm_errorf(err, PAIMON_ERR_INTERNAL, "%s: unexpected offset/nulls on a file batch", m->file_name);
  }
  return evo_apply_struct(m, in, out, 0, err);
}

static int evo_apply_struct(const pm_evo_mapping *m, struct ArrowArray *in, struct ArrowArray *out, int keep_nulls,
                            pm_error *err) {
  int rc = pm_array_init(out, in->length, 1, m->n_fields, err);
  if (rc) {
    pm_array_release(in);
    return rc;
  }
  if (in->offset != 0) {
    rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: sliced ROW column cannot be evolved", m->file_name);
    goto done;
  }
  if (keep_nulls && in->null_count != 0 && in->n_buffers > 0 && in->buffers[0]) {
    size_t nb = (size_t)(in->length + 7) / 8;
    uint8_t *v = pm_aligned_alloc(nb + 1);
    if (!v) {
      rc = PM_NOMEM(err);
      goto done;
    }
    memcpy(v, in->buffers[0], nb);
    pm_array_set_buffer(out, 0, v);
    out->null_count = in->null_count;
  }
  for (int64_t f = 0; f < m->n_fields && !rc; f++) {
    int64_t s = m->source[f];
    struct ArrowArray *dst = out->children[f];
    if (s < 0) {
      rc = pm_make_null_array(m->fields[f].type, in->length, dst, err);
    } else if (!m->needs_cast[f] && in->children[s]->release) {
      pm_array_move(in->children[s], dst);
    } else if (!m->needs_cast[f]) {
      rc = pm_errorf(err, PAIMON_ERR_INTERNAL, "%s: column %lld used twice", m->file_name, (long long)s);
    } else if (m->needs_cast[f] == 2 && in->children[s]->release) {
      struct ArrowArray child;
      pm_array_move(in->children[s], &child);
      rc = evo_apply_struct(m->nested[f], &child, dst, 1, err);
    } else {
      rc = pm_cast_array(in->children[s], &m->file_types[s], m->fields[f].type, &m->cast, dst, err);
      if (rc)
        pm_error_prefix(err, "%s: column \"%s\": ", m->file_name, m->fields[f].name ? m->fields[f].name : "?");
    }
  }
done:
  pm_array_release(in);
  if (rc) pm_array_release(out);
  return rc;
}
