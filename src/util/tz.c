#include "util/tz.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pm_tz {
  int32_t fixed_offset; /* used when n_trans == 0 */
  size_t n_trans;
  int64_t *trans_utc; /* transition instants (UTC seconds), ascending */
  int32_t *trans_off; /* offset in effect from trans_utc[i] on */
  int32_t first_off;  /* offset before the first transition */
  int utc;            /* every offset is 0 */
};

#define TZIF_MAX_BYTES (1 << 20)

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static int64_t be64(const uint8_t *p) { return (int64_t)((uint64_t)be32(p) << 32 | be32(p + 4)); }

void pm_tz_free(pm_tz *tz) {
  if (!tz) return;
  free(tz->trans_utc);
  free(tz->trans_off);
  free(tz);
}

static int new_tz(pm_tz **out, pm_error *err) {
  *out = calloc(1, sizeof **out);
  return *out ? 0 : PM_NOMEM(err);
}

static void finish(pm_tz *tz) {
  int utc = tz->fixed_offset == 0 && tz->first_off == 0;
  for (size_t i = 0; i < tz->n_trans && utc; i++) utc = tz->trans_off[i] == 0;
  tz->utc = utc;
}

int pm_tz_parse_offset(const char *s, size_t n, int32_t *seconds) {
  if (n == 1 && (s[0] == 'Z' || s[0] == 'z')) {
    *seconds = 0;
    return 0;
  }
  if (n < 2 || (s[0] != '+' && s[0] != '-')) return -1;
  int sign = s[0] == '-' ? -1 : 1;
  size_t i = 1;
  int h = 0, m = 0, nd = 0;
  while (i < n && isdigit((unsigned char)s[i]) && nd < 2) h = h * 10 + (s[i++] - '0'), nd++;
  if (!nd) return -1;
  if (i < n && s[i] == ':') {
    i++;
    if (n - i != 2) return -1;
  }
  nd = 0;
  while (i < n && isdigit((unsigned char)s[i]) && nd < 2) m = m * 10 + (s[i++] - '0'), nd++;
  if (i != n || nd == 1 || h > 18 || m > 59) return -1;
  *seconds = sign * (h * 3600 + m * 60);
  return 0;
}

int pm_tz_from_tzif(const uint8_t *d, size_t n, const char *path, pm_tz **out, pm_error *err) {
  *out = NULL;
  int v2 = 0;
  for (int pass = 0; pass < 2; pass++) {
    if (n < 44 || memcmp(d, "TZif", 4) != 0)
      return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: not a TZif file (bad magic)", path);
    if (pass == 0) v2 = d[4] >= '2';
    uint32_t isutcnt = be32(d + 20), isstdcnt = be32(d + 24), leapcnt = be32(d + 28);
    uint32_t timecnt = be32(d + 32), typecnt = be32(d + 36), charcnt = be32(d + 40);
    size_t tsz = pass == 0 ? 4 : 8;
    if (timecnt > 100000 || typecnt > 256 || typecnt == 0 || charcnt > 100000 || leapcnt > 10000 || isutcnt > 256 ||
        isstdcnt > 256)
      return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: implausible TZif counts", path);
    size_t body = timecnt * tsz + timecnt + typecnt * 6 + charcnt + leapcnt * (tsz + 4) + isstdcnt + isutcnt;
    if (body > n - 44) return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: TZif truncated", path);
    if (pass == 0 && v2) {
      d += 44 + body;
      n -= 44 + body;
      continue;
    }
    const uint8_t *times = d + 44, *idx = times + timecnt * tsz, *types = idx + timecnt;
    pm_tz *tz;
    PM_TRY(new_tz(&tz, err));
    tz->trans_utc = malloc((timecnt ? timecnt : 1) * sizeof(int64_t));
    tz->trans_off = malloc((timecnt ? timecnt : 1) * sizeof(int32_t));
    if (!tz->trans_utc || !tz->trans_off) {
      pm_tz_free(tz);
      return PM_NOMEM(err);
    }
    /* Offset before the first transition: time type 0 (RFC 8536 3.2). */
    tz->first_off = (int32_t)be32(types);
    for (uint32_t i = 0; i < timecnt; i++) {
      tz->trans_utc[i] = tsz == 8 ? be64(times + 8 * i) : (int64_t)(int32_t)be32(times + 4 * i);
      uint8_t ti = idx[i];
      if (ti >= typecnt) {
        pm_tz_free(tz);
        return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: TZif type index out of range", path);
      }
      tz->trans_off[i] = (int32_t)be32(types + 6 * ti);
    }
    tz->n_trans = timecnt;
    tz->fixed_offset = tz->first_off;
    finish(tz);
    *out = tz;
    return 0;
  }
  return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: TZif has no data", path);
}

/* Reads a TZif file; a missing or unreadable file is PAIMON_ERR_NOT_FOUND. */
static int load_file(const char *path, pm_tz **out, pm_error *err) {
  *out = NULL;
  FILE *f = fopen(path, "rb");
  if (!f) return pm_errorf(err, PAIMON_ERR_NOT_FOUND, "%s: not readable", path);
  uint8_t *buf = malloc(TZIF_MAX_BYTES);
  if (!buf) {
    fclose(f);
    return PM_NOMEM(err);
  }
  size_t len = fread(buf, 1, TZIF_MAX_BYTES, f);
  int bad = ferror(f);
  fclose(f);
  int rc = bad ? pm_errorf(err, PAIMON_ERR_NOT_FOUND, "%s: not readable", path)
               : pm_tz_from_tzif(buf, len, path, out, err);
  free(buf);
  return rc;
}

static int is_utc_name(const char *name) {
  return !name || !*name || !strcmp(name, "UTC") || !strcmp(name, "Z") || !strcmp(name, "GMT") ||
         !strcmp(name, "Etc/UTC") || !strcmp(name, "Etc/GMT") || !strcmp(name, "UCT") || !strcmp(name, "Zulu");
}

static int load_fixed(int32_t off, pm_tz **out, pm_error *err) {
  PM_TRY(new_tz(out, err));
  (*out)->fixed_offset = off;
  (*out)->first_off = off;
  finish(*out);
  return 0;
}

int pm_tz_load(const char *name, pm_tz **out, pm_error *err) {
  *out = NULL;
  if (is_utc_name(name)) return load_fixed(0, out, err);
  const char *off = name;
  if (!strncmp(name, "UTC", 3) || !strncmp(name, "GMT", 3)) off = name + 3;
  int32_t secs;
  if (pm_tz_parse_offset(off, strlen(off), &secs) == 0 && off[0] != 'Z' && off[0] != 'z')
    return load_fixed(secs, out, err);
  /* IANA name: no "..", only [A-Za-z0-9/_+-]. */
  for (const char *p = name; *p; p++)
    if (!(isalnum((unsigned char)*p) || *p == '/' || *p == '_' || *p == '+' || *p == '-') || name[0] == '/')
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "invalid time zone name \"%s\"", name);
  char path[512];
  const char *dir = getenv("TZDIR");
  snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : "/usr/share/zoneinfo", name);
  int rc = load_file(path, out, err);
  if (rc == PAIMON_ERR_NOT_FOUND)
    return pm_errorf(err, PAIMON_ERR_NOT_FOUND, "unknown time zone \"%s\" (%s not readable)", name, path);
  return rc;
}

/* POSIX TZ "STDoffset" with no DST part ("CST-8", "<+0330>-3:30"): the offset
 * is west of UTC. 0 or -1. */
static int parse_posix_std(const char *s, int32_t *out) {
  size_t i = 0;
  if (s[0] == '<') {
    while (s[i] && s[i] != '>') i++;
    if (s[i] != '>') return -1;
    i++;
  } else {
    while (isalpha((unsigned char)s[i])) i++;
    if (i < 3) return -1;
  }
  int sign = -1; /* POSIX: positive = west */
  if (s[i] == '+' || s[i] == '-') sign = s[i++] == '-' ? 1 : -1;
  int h = 0, m = 0, sec = 0, nd = 0;
  while (isdigit((unsigned char)s[i]) && nd < 2) h = h * 10 + (s[i++] - '0'), nd++;
  if (!nd) return -1;
  if (s[i] == ':') {
    i++;
    for (nd = 0; isdigit((unsigned char)s[i]) && nd < 2; nd++) m = m * 10 + (s[i++] - '0');
    if (s[i] == ':') {
      i++;
      for (nd = 0; isdigit((unsigned char)s[i]) && nd < 2; nd++) sec = sec * 10 + (s[i++] - '0');
    }
  }
  if (s[i] || h > 24 || m > 59 || sec > 59) return -1;
  *out = sign * (h * 3600 + m * 60 + sec);
  return 0;
}

int pm_tz_load_local(pm_tz **out, pm_error *err) {
  *out = NULL;
  const char *tz = getenv("TZ");
  pm_error ignored;
  pm_error_clear(&ignored);
  int rc;
  if (!tz) {
    rc = load_file("/etc/localtime", out, &ignored);
  } else {
    if (*tz == ':') tz++;
    if (*tz == '/') {
      rc = load_file(tz, out, &ignored);
    } else {
      rc = pm_tz_load(tz, out, &ignored);
      int32_t off;
      if (rc && rc != PAIMON_ERR_NOMEM && parse_posix_std(tz, &off) == 0) rc = load_fixed(off, out, &ignored);
    }
  }
  if (rc == PAIMON_ERR_NOMEM) return pm_errorf(err, rc, "%s", ignored.message);
  if (rc) return load_fixed(0, out, err);
  return 0;
}

int pm_tz_is_utc(const pm_tz *tz) { return !tz || tz->utc; }

int32_t pm_tz_offset_at_utc(const pm_tz *tz, int64_t t) {
  if (!tz || tz->utc) return 0;
  if (tz->n_trans == 0) return tz->fixed_offset;
  if (t < tz->trans_utc[0]) return tz->first_off;
  size_t lo = 0, hi = tz->n_trans; /* last transition <= t */
  while (hi - lo > 1) {
    size_t mid = (lo + hi) / 2;
    if (tz->trans_utc[mid] <= t) lo = mid;
    else hi = mid;
  }
  return tz->trans_off[lo];
}

int64_t pm_tz_local_to_utc(const pm_tz *tz, int64_t local) {
  if (!tz || tz->utc) return local;
  /* Candidate offsets around the local time; prefer the earlier offset (larger offset) in an overlap. */
  int32_t o1 = pm_tz_offset_at_utc(tz, local - 86400), o2 = pm_tz_offset_at_utc(tz, local + 86400);
  int32_t cands[2] = {o1 > o2 ? o1 : o2, o1 > o2 ? o2 : o1};
  for (int i = 0; i < 2; i++)
    if (pm_tz_offset_at_utc(tz, local - cands[i]) == cands[i]) return local - cands[i];
  /* Gap: java.time shifts forward by the gap length, i.e. uses the offset before the gap. */
  return local - (o1 < o2 ? o1 : o2);
}
