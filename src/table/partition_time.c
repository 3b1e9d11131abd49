/* Partition times (partition_time.h): Java's PartitionTimeExtractor over a subset of
 * DateTimeFormatter patterns. */
#include "table/partition_time.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meta/core_options.h"
#include "util/civil.h"

int pm_local_time_cmp(pm_local_time a, pm_local_time b) {
  if (a.seconds != b.seconds) return a.seconds < b.seconds ? -1 : 1;
  if (a.nanos != b.nanos) return a.nanos < b.nanos ? -1 : 1;
  return 0;
}

pm_local_time pm_local_time_of_millis(int64_t ms) {
  pm_local_time t;
  t.seconds = pm_floor_div(ms, 1000);
  t.nanos = (int32_t)(pm_floor_mod(ms, 1000) * 1000000);
  return t;
}

/* ------------------------------------------------------------ formatter */

typedef enum field { F_YEAR_OF_ERA, F_YEAR, F_MONTH, F_DAY, F_HOUR, F_MINUTE, F_SECOND, F_NANO, F_N } field;

typedef struct item {
  int lit;       /* 1: literal text */
  char *text;    /* literal */
  field f;
  int min, max;  /* digits */
  int reduced;   /* "yy": two digits, base 2000 */
  int reserved;  /* digits the following fixed-width numbers take (adjacent parsing) */
} item;

struct pm_ptime_format {
  int lenient_default; /* no pattern: Java's default formatter */
  item *items;
  size_t n;
};

static int add_item(pm_ptime_format *f, const item *it, pm_error *err) {
  item *ni = realloc(f->items, (f->n + 1) * sizeof *ni);
  if (!ni) return PM_NOMEM(err);
  f->items = ni;
  f->items[f->n++] = *it;
  return 0;
}

static int add_literal(pm_ptime_format *f, const char *s, size_t len, pm_error *err) {
  item it;
  memset(&it, 0, sizeof it);
  it.lit = 1;
  it.text = malloc(len + 1);
  if (!it.text) return PM_NOMEM(err);
  memcpy(it.text, s, len);
  it.text[len] = 0;
  int rc = add_item(f, &it, err);
  if (rc) free(it.text);
  return rc;
}

void pm_ptime_format_free(pm_ptime_format *f) {
  if (!f) return;
  for (size_t i = 0; i < f->n; i++) free(f->items[i].text);
  free(f->items);
  free(f);
}

static int compile_letter(pm_ptime_format *f, char c, int count, const char *pattern, pm_error *err) {
  const char *key = pm_core_option_key(PM_CO_PARTITION_TIMESTAMP_FORMATTER);
  item it;
  memset(&it, 0, sizeof it);
  switch (c) {
    case 'y':
    case 'u':
      it.f = c == 'y' ? F_YEAR_OF_ERA : F_YEAR;
      if (count == 2) {
        it.min = it.max = 2;
        it.reduced = 1;
      } else {
        it.min = count; /* y: 1..19, yyy: 3..19, yyyy: 4..19 digits */
        it.max = 19;
      }
      break;
    case 'M':
    case 'd':
    case 'H':
    case 'm':
    case 's':
      it.f = c == 'M' ? F_MONTH : c == 'd' ? F_DAY : c == 'H' ? F_HOUR : c == 'm' ? F_MINUTE : F_SECOND;
      if (count > 2) {
        if (c == 'M')
          return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                           "option '%s': '%s': month names (MMM) are not supported (use M or MM)", key, pattern);
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option '%s': '%s': too many pattern letters '%c'", key,
                         pattern, c);
      }
      it.min = count == 2 ? 2 : 1;
      it.max = count == 2 ? 2 : 19;
      break;
    case 'S':
      it.f = F_NANO;
      if (count > 9)
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option '%s': '%s': more than 9 fraction letters 'S'", key,
                         pattern);
      it.min = it.max = count;
      break;
    default:
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                       "option '%s': '%s': pattern letter '%c' is not supported (supported: y u M d H m s S, "
                       "quoted text and punctuation)",
                       key, pattern, c);
  }
  return add_item(f, &it, err);
}

int pm_ptime_format_compile(const char *pattern, pm_ptime_format **out, pm_error *err) {
  *out = NULL;
  pm_ptime_format *f = calloc(1, sizeof *f);
  if (!f) return PM_NOMEM(err);
  if (!pattern) {
    f->lenient_default = 1;
    *out = f;
    return 0;
  }
  const char *key = pm_core_option_key(PM_CO_PARTITION_TIMESTAMP_FORMATTER);
  int rc = 0;
  for (const char *p = pattern; *p && !rc;) {
    char c = *p;
    if (isalpha((unsigned char)c)) {
      int count = 0;
      while (p[count] == c) count++;
      rc = compile_letter(f, c, count, pattern, err);
      p += count;
    } else if (c == '\'') {
      p++;
      char buf[256];
      size_t len = 0;
      if (*p == '\'') { /* '' = a quote */
        buf[len++] = '\'';
        p++;
      } else {
        for (;;) {
          if (!*p) {
            rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option '%s': '%s': unterminated quote", key, pattern);
            break;
          }
          if (*p == '\'' && p[1] == '\'') {
            if (len < sizeof buf) buf[len++] = '\'';
            p += 2;
          } else if (*p == '\'') {
            p++;
            break;
          } else {
            if (len < sizeof buf) buf[len++] = *p;
            p++;
          }
        }
      }
      if (!rc && len) rc = add_literal(f, buf, len, err);
    } else if (c == '[' || c == ']' || c == '{' || c == '}' || c == '#') {
      rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option '%s': '%s': '%c' is not supported", key, pattern, c);
    } else {
      rc = add_literal(f, p, 1, err);
      p++;
    }
  }
  /* adjacent value parsing: a variable-width number leaves the digits of the fixed-width
   * numbers right after it to them */
  for (size_t i = 0; !rc && i < f->n; i++) {
    item *it = &f->items[i];
    if (it->lit || it->min == it->max) continue;
    int res = 0;
    for (size_t j = i + 1; j < f->n && !f->items[j].lit && f->items[j].min == f->items[j].max; j++)
      res += f->items[j].max;
    it->reserved = res;
  }
  if (rc) {
    pm_ptime_format_free(f);
    return rc;
  }
  *out = f;
  return 0;
}

/* ------------------------------------------------------------ parsing */

static int ndigits(const char *s, int cap) {
  int n = 0;
  while (n < cap && s[n] >= '0' && s[n] <= '9') n++;
  return n;
}

static int64_t digits_value(const char *s, int n) {
  int64_t v = 0;
  for (int i = 0; i < n; i++) v = v * 10 + (s[i] - '0');
  return v;
}

static int month_length(int64_t y, int m) {
  static const int L[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 ? 28 + leap : L[m - 1];
}

#define YEAR_MAX 999999999LL

static int not_parsed(const char *text, const char *why, pm_error *err) {
  if (!err) return PAIMON_ERR_INVALID_ARGUMENT;
  return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "partition time '%s' cannot be parsed: %s", text, why);
}

/* Java's default formatter: y{1,10}-M{1,2}-d{1,2}[ H{1,2}:m{1,2}:s{1,2}[.S{1,9}]], LENIENT. */
static int parse_default(const char *text, pm_local_time *out, pm_error *err) {
  const char *p = text;
  int64_t v[6] = {0, 0, 0, 0, 0, 0};
  int64_t nano = 0;
  static const int maxw[3] = {10, 2, 2};
  for (int i = 0; i < 3; i++) {
    int n = ndigits(p, maxw[i]);
    if (!n) return not_parsed(text, "expected a number", err);
    v[i] = digits_value(p, n);
    p += n;
    if (i < 2) {
      if (*p != '-') return not_parsed(text, "expected '-'", err);
      p++;
    }
  }
  if (*p == ' ') { /* the optional time: all or nothing */
    const char *q = p + 1;
    int64_t tv[3];
    int ok = 1;
    for (int i = 0; i < 3 && ok; i++) {
      int n = ndigits(q, 2);
      if (!n) ok = 0;
      else {
        tv[i] = digits_value(q, n);
        q += n;
        if (i < 2) {
          if (*q == ':') q++;
          else ok = 0;
        }
      }
    }
    if (ok) {
      v[3] = tv[0];
      v[4] = tv[1];
      v[5] = tv[2];
      p = q;
      if (*p == '.') {
        int n = ndigits(p + 1, 9);
        if (n) {
          nano = digits_value(p + 1, n);
          for (int k = n; k < 9; k++) nano *= 10;
          p += 1 + n;
        }
      }
    }
  }
  if (*p) return not_parsed(text, "unparsed text at the end", err);
  if (v[0] > YEAR_MAX) return not_parsed(text, "year out of range", err);
  /* LENIENT: LocalDate.of(y, 1, 1).plusMonths(m - 1).plusDays(d - 1), time overflow adds days */
  int64_t months = v[0] * 12 + (v[1] - 1);
  int64_t y = pm_floor_div(months, 12);
  int m = (int)pm_floor_mod(months, 12) + 1;
  int64_t days = pm_days_from_civil(y, m, 1) + (v[2] - 1);
  out->seconds = days * 86400 + v[3] * 3600 + v[4] * 60 + v[5];
  out->nanos = (int32_t)nano;
  return 0;
}

int pm_ptime_parse(const pm_ptime_format *f, const char *text, pm_local_time *out, pm_error *err) {
  if (f->lenient_default) return parse_default(text, out, err);
  int64_t val[F_N];
  int have[F_N];
  memset(have, 0, sizeof have);
  const char *p = text;
  for (size_t i = 0; i < f->n; i++) {
    const item *it = &f->items[i];
    if (it->lit) {
      size_t l = strlen(it->text);
      if (strncmp(p, it->text, l)) return not_parsed(text, "the text does not match the formatter", err);
      p += l;
      continue;
    }
    int avail = ndigits(p, it->max + it->reserved);
    int take = it->min == it->max ? it->min : avail - it->reserved;
    if (take > it->max) take = it->max;
    if (take < it->min || avail < take) return not_parsed(text, "expected more digits", err);
    int64_t v = digits_value(p, take);
    if (it->f == F_NANO)
      for (int k = take; k < 9; k++) v *= 10;
    if (it->reduced) v += 2000;
    if (have[it->f] && val[it->f] != v) return not_parsed(text, "conflicting values", err);
    val[it->f] = v;
    have[it->f] = 1;
    p += take;
  }
  if (*p) return not_parsed(text, "unparsed text at the end", err);
  /* SMART resolution */
  int64_t year;
  if (have[F_YEAR]) year = val[F_YEAR];
  else if (have[F_YEAR_OF_ERA]) {
    if (val[F_YEAR_OF_ERA] < 1) return not_parsed(text, "year of era out of range", err);
    year = val[F_YEAR_OF_ERA];
  } else {
    return not_parsed(text, "the formatter gives no year", err);
  }
  if (!have[F_MONTH] || !have[F_DAY]) return not_parsed(text, "the formatter gives no month or day", err);
  if (year > YEAR_MAX) return not_parsed(text, "year out of range", err);
  int64_t mo = val[F_MONTH], d = val[F_DAY];
  if (mo < 1 || mo > 12) return not_parsed(text, "month out of range", err);
  if (d < 1 || d > 31) return not_parsed(text, "day of month out of range", err);
  int ml = month_length(year, (int)mo);
  if (d > ml) d = ml;
  int64_t days = pm_days_from_civil(year, (int)mo, (int)d);
  int64_t secs = 0, nanos = 0;
  /* a time of day only when hour (with minute before second before nano) is there; else midnight */
  int time = have[F_HOUR] && !(!have[F_MINUTE] && (have[F_SECOND] || have[F_NANO])) &&
             !(have[F_MINUTE] && !have[F_SECOND] && have[F_NANO]);
  if (have[F_HOUR] && val[F_HOUR] > 24) return not_parsed(text, "hour out of range", err);
  if (have[F_MINUTE] && val[F_MINUTE] > 59) return not_parsed(text, "minute out of range", err);
  if (have[F_SECOND] && val[F_SECOND] > 59) return not_parsed(text, "second out of range", err);
  if (time) {
    int64_t h = val[F_HOUR], mi = have[F_MINUTE] ? val[F_MINUTE] : 0, s = have[F_SECOND] ? val[F_SECOND] : 0;
    nanos = have[F_NANO] ? val[F_NANO] : 0;
    if (h == 24) {
      if (mi || s || nanos) return not_parsed(text, "hour out of range", err);
      days++; /* SMART: 24:00 is the next day's midnight */
      h = 0;
    }
    secs = h * 3600 + mi * 60 + s;
  } else if (have[F_HOUR] && val[F_HOUR] == 24) {
    return not_parsed(text, "hour out of range", err);
  }
  out->seconds = days * 86400 + secs;
  out->nanos = (int32_t)nanos;
  return 0;
}

/* ------------------------------------------------------------ pattern */

int pm_ptime_text(const char *pattern, const char *const *keys, const char *const *values, size_t n, char **out,
                  pm_error *err) {
  *out = NULL;
  if (!pattern) {
    if (!n || !values[0]) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "the first partition value is null");
    *out = strdup(values[0]);
    return *out ? 0 : PM_NOMEM(err);
  }
  /* keys by length, longest first (stable) */
  size_t *order = malloc((n ? n : 1) * sizeof *order);
  if (!order) return PM_NOMEM(err);
  for (size_t i = 0; i < n; i++) order[i] = i;
  for (size_t i = 1; i < n; i++)
    for (size_t j = i; j > 0 && strlen(keys[order[j]]) > strlen(keys[order[j - 1]]); j--) {
      size_t t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  size_t cap = strlen(pattern) + 64, len = 0;
  char *b = malloc(cap);
  int rc = b ? 0 : PM_NOMEM(err);
  for (const char *p = pattern; !rc && *p;) {
    const char *add = p;
    size_t addn = 1, adv = 1;
    if (*p == '$' && p[1]) {
      for (size_t k = 0; k < n; k++) {
        const char *key = keys[order[k]];
        size_t kl = strlen(key);
        if (!strncmp(p + 1, key, kl)) {
          if (!values[order[k]]) {
            rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "partition value of '%s' is null", key);
            break;
          }
          add = values[order[k]];
          addn = strlen(add);
          adv = 1 + kl;
          break;
        }
      }
    }
    if (rc) break;
    if (len + addn + 1 > cap) {
      cap = (len + addn + 1) * 2;
      char *nb = realloc(b, cap);
      if (!nb) {
        rc = PM_NOMEM(err);
        break;
      }
      b = nb;
    }
    memcpy(b + len, add, addn);
    len += addn;
    p += adv;
  }
  free(order);
  if (rc) {
    free(b);
    return rc;
  }
  b[len] = 0;
  *out = b;
  return 0;
}
