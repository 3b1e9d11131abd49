#include "format/orc/orc_tz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t be32(const uint8_t *p) {
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static int64_t be64(const uint8_t *p) { return (int64_t)(((uint64_t)be32(p) << 32) | be32(p + 4)); }

void pm_orc_tz_free(pm_orc_tz *tz) {
  free(tz->times);
  free(tz->offsets);
  tz->times = NULL;
  tz->offsets = NULL;
  tz->n = 0;
}

static int set_utc(pm_orc_tz *tz) {
  tz->utc = 1;
  tz->initial = 0;
  return 1;
}

/* Parses one TZif data block; w = 4 (v1) or 8 (v2+). Returns bytes consumed or 0. */
static size_t parse_block(pm_orc_tz *tz, const uint8_t *d, size_t len, int w, int keep) {
  if (len < 44 || memcmp(d, "TZif", 4) != 0) return 0;
  uint32_t isut = be32(d + 20), isstd = be32(d + 24), leap = be32(d + 28), timecnt = be32(d + 32),
           typecnt = be32(d + 36), charcnt = be32(d + 40);
  if (timecnt > 100000 || typecnt == 0 || typecnt > 256 || leap > 100000 || charcnt > 100000 || isut > 256 ||
      isstd > 256)
    return 0;
  uint64_t need = 44 + (uint64_t)timecnt * (w + 1) + (uint64_t)typecnt * 6 + charcnt + (uint64_t)leap * (w + 4) + isstd + isut;
  if (need > len) return 0;
  if (!keep) return (size_t)need;
  const uint8_t *tt = d + 44, *ix = tt + (size_t)timecnt * w, *ti = ix + timecnt;
  tz->times = malloc((timecnt ? timecnt : 1) * sizeof *tz->times);
  tz->offsets = malloc((timecnt ? timecnt : 1) * sizeof *tz->offsets);
  if (!tz->times || !tz->offsets) return 0;
  for (uint32_t i = 0; i < timecnt; i++) {
    tz->times[i] = w == 8 ? be64(tt + 8 * (size_t)i) : (int64_t)(int32_t)be32(tt + 4 * (size_t)i);
    uint8_t t = ix[i];
    if (t >= typecnt) return 0;
    tz->offsets[i] = (int32_t)be32(ti + 6 * (size_t)t);
  }
  tz->n = timecnt;
  /* Before the first transition: the first non-DST type, else type 0. */
  tz->initial = (int32_t)be32(ti);
  for (uint32_t t = 0; t < typecnt; t++)
    if (ti[6 * t + 4] == 0) {
      tz->initial = (int32_t)be32(ti + 6 * t);
      break;
    }
  return (size_t)need;
}

int pm_orc_tz_load(pm_orc_tz *tz, const char *name) {
  pm_orc_tz_free(tz);
  tz->utc = 0;
  snprintf(tz->name, sizeof tz->name, "%s", name ? name : "");
  if (name && (!strcmp(name, "UTC") || !strcmp(name, "GMT") || !strcmp(name, "Etc/UTC") || !strcmp(name, "Z"))) {
    set_utc(tz);
    return 0;
  }
  if (!name || !*name || strlen(name) >= sizeof tz->name) return set_utc(tz);
  for (const char *p = name; *p; p++) {
    char c = *p;
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '/' || c == '_' ||
          c == '-' || c == '+'))
      return set_utc(tz);
  }
  if (strstr(name, "..") || name[0] == '/') return set_utc(tz);
  const char *dir = getenv("TZDIR");
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : "/usr/share/zoneinfo", name);
  FILE *f = fopen(path, "rb");
  if (!f) return set_utc(tz);
  uint8_t *buf = malloc(1 << 20);
  size_t len = buf ? fread(buf, 1, 1 << 20, f) : 0;
  fclose(f);
  if (!buf) return set_utc(tz);
  size_t used = parse_block(tz, buf, len, 4, buf[4] < '2');
  if (used && buf[4] >= '2') {
    if (!parse_block(tz, buf + used, len - used, 8, 1)) used = 0;
  }
  free(buf);
  if (!used) {
    pm_orc_tz_free(tz);
    return set_utc(tz);
  }
  return 0;
}

int32_t pm_orc_tz_offset(const pm_orc_tz *tz, int64_t t) {
  if (tz->utc) return 0;
  if (tz->n == 0 || t < tz->times[0]) return tz->initial;
  size_t lo = 0, hi = tz->n; /* last index with times[i] <= t */
  while (hi - lo > 1) {
    size_t mid = (lo + hi) / 2;
    if (tz->times[mid] <= t) lo = mid;
    else hi = mid;
  }
  return tz->offsets[lo];
}

int32_t pm_orc_tz_offset_local(const pm_orc_tz *tz, int64_t local) {
  if (tz->utc) return 0;
  int32_t off = pm_orc_tz_offset(tz, local);
  int32_t off2 = pm_orc_tz_offset(tz, local - off);
  return off2;
}
