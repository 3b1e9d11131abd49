/* Automatic tag creation and expiry after commits (see tag_auto.h). */
#include "table/tag_auto.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/fs.h"
#include "meta/tag.h"
#include "table/expire.h"

#define DAY_MS 86400000LL
#define HOUR_MS 3600000LL

/* ------------------------------------------------------------ local date-times */

/* A LocalDateTime is kept as milliseconds since 1970-01-01T00:00 of its own calendar ("naive"). */

static int64_t days_from_civil(int64_t y, int m, int d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, int *m, int *d) {
  z += 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  *d = (int)(doy - (153 * mp + 2) / 5 + 1);
  *m = (int)(mp < 10 ? mp + 3 : mp - 9);
  *y = yoe + era * 400 + (*m <= 2);
}

static int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

typedef struct fields {
  int64_t year;
  int month, day, hour, minute;
} fields;

static void to_fields(int64_t naive, fields *f) {
  int64_t days = floor_div(naive, DAY_MS), rest = naive - days * DAY_MS;
  civil_from_days(days, &f->year, &f->month, &f->day);
  f->hour = (int)(rest / HOUR_MS);
  f->minute = (int)(rest % HOUR_MS / 60000);
}

/* Offset of zone (NULL: the local zone at utc_ms) in ms. */
static int zone_offset(const char *key, const char *zone, int64_t utc_ms, int64_t *off, pm_error *err) {
  *off = 0;
  if (!zone) {
    time_t s = (time_t)floor_div(utc_ms, 1000);
    struct tm tm;
    if (!localtime_r(&s, &tm)) return pm_errorf(err, PAIMON_ERR_IO, "%s: localtime failed", key);
    *off = (int64_t)tm.tm_gmtoff * 1000;
    return 0;
  }
  const char *p = zone;
  if (!strncmp(p, "UTC", 3) || !strncmp(p, "GMT", 3)) p += 3;
  else if (!strncmp(p, "UT", 2)) p += 2;
  else if (!strcmp(p, "Z")) p++;
  if (!*p) return 0;
  int sign = *p == '+' ? 1 : *p == '-' ? -1 : 0;
  int h = 0, m = 0, n = 0;
  if (sign) {
    p++;
    while (isdigit((unsigned char)*p) && n < 2) h = h * 10 + (*p++ - '0'), n++;
    if (*p == ':') p++;
    int k = 0;
    while (isdigit((unsigned char)*p) && k < 2) m = m * 10 + (*p++ - '0'), k++;
    if (k == 1) n = 0;
  }
  if (!sign || !n || *p || h > 18 || m > 59)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "option '%s': time zone '%s' is not supported (use UTC, GMT or a fixed offset such as +08:00)",
                     key, zone);
  *off = sign * ((int64_t)h * HOUR_MS + (int64_t)m * 60000);
  return 0;
}

/* ------------------------------------------------------------ tag periods */

typedef struct period {
  int64_t ms;
  const char *pattern; /* y: 4-digit year, M d H m: 2 digits; anything else literal */
  int daily;           /* Java's daily handler parses the part before the first blank */
} period;

static void format_tag(const period *p, int64_t naive, char *out, size_t cap) {
  fields f;
  to_fields(naive, &f);
  size_t n = 0;
  for (const char *c = p->pattern; *c && n + 5 < cap; c++) {
    switch (*c) {
      case 'y': n += (size_t)snprintf(out + n, cap - n, "%04" PRId64, f.year); break;
      case 'M': n += (size_t)snprintf(out + n, cap - n, "%02d", f.month); break;
      case 'd': n += (size_t)snprintf(out + n, cap - n, "%02d", f.day); break;
      case 'H': n += (size_t)snprintf(out + n, cap - n, "%02d", f.hour); break;
      case 'm': n += (size_t)snprintf(out + n, cap - n, "%02d", f.minute); break;
      default: out[n++] = *c; out[n] = 0;
    }
  }
  out[n] = 0;
}

static int digits(const char **s, int n, int *v) {
  *v = 0;
  for (int i = 0; i < n; i++) {
    if (!isdigit((unsigned char)(*s)[i])) return -1;
    *v = *v * 10 + ((*s)[i] - '0');
  }
  *s += n;
  return 0;
}

/* The tag's time (naive ms), or -1 when the name is not an automatic tag of this period. */
static int64_t parse_tag(const period *p, const char *name) {
  char buf[64];
  snprintf(buf, sizeof buf, "%s", name);
  if (p->daily) {
    char *sp = strchr(buf, ' ');
    if (sp) *sp = 0;
  }
  const char *s = buf;
  int y = 0, mo = 1, d = 1, h = 0, mi = 0;
  for (const char *c = p->pattern; *c; c++) {
    int r = 0;
    switch (*c) {
      case 'y': r = digits(&s, 4, &y); break;
      case 'M': r = digits(&s, 2, &mo); break;
      case 'd': r = digits(&s, 2, &d); break;
      case 'H': r = digits(&s, 2, &h); break;
      case 'm': r = digits(&s, 2, &mi); break;
      default: r = *s == *c ? (s++, 0) : -1;
    }
    if (r) return -1;
  }
  if (*s || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59) return -1;
  int64_t days = days_from_civil(y, mo, d);
  int64_t yy;
  int m2, d2;
  civil_from_days(days, &yy, &m2, &d2);
  if (m2 != mo || d2 != d) return -1; /* STRICT: no February 30 */
  return days * DAY_MS + h * HOUR_MS + mi * 60000LL;
}

static const char *opt(const pm_table *t, pm_co_id id) { return pm_options_get(&t->options, pm_core_option_key(id)); }

static int opt_dur(const pm_table *t, pm_co_id id, int64_t *ms, pm_error *err) {
  const char *v = opt(t, id);
  *ms = -1;
  return v ? pm_parse_duration_ms(pm_core_option_key(id), v, ms, err) : 0;
}

static int opt_int(const pm_table *t, pm_co_id id, int64_t *out, pm_error *err) {
  const char *v = opt(t, id);
  *out = -1;
  return v ? pm_parse_int64(pm_core_option_key(id), v, out, err) : 0;
}

static int opt_bool(const pm_table *t, pm_co_id id, int dflt, int *out, pm_error *err) {
  const char *v = opt(t, id);
  *out = dflt;
  return v ? pm_parse_bool(pm_core_option_key(id), v, out, err) : 0;
}

static int make_period(const pm_table *t, period *p, pm_error *err) {
  memset(p, 0, sizeof *p);
  int64_t dur = -1;
  PM_TRY(opt_dur(t, PM_CO_TAG_CREATION_PERIOD_DURATION, &dur, err));
  if (dur >= 0) {
    if (dur <= 0)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option '%s' must be positive",
                       pm_core_option_key(PM_CO_TAG_CREATION_PERIOD_DURATION));
    p->ms = dur;
    p->pattern = "yMdHm"; /* yyyyMMddHHmm */
    return 0;
  }
  static const char *const periods[] = {"daily", "hourly", "two-hours", NULL};
  static const char *const formatters[] = {"with_dashes", "without_dashes", "without_dashes_and_spaces", NULL};
  const char *pv = opt(t, PM_CO_TAG_CREATION_PERIOD), *fv = opt(t, PM_CO_TAG_PERIOD_FORMATTER);
  int pk = 0, fk = 0;
  if (pv) PM_TRY(pm_parse_enum(pm_core_option_key(PM_CO_TAG_CREATION_PERIOD), pv, periods, &pk, err));
  if (fv) PM_TRY(pm_parse_enum(pm_core_option_key(PM_CO_TAG_PERIOD_FORMATTER), fv, formatters, &fk, err));
  if (pk == 0) {
    p->ms = DAY_MS;
    p->pattern = fk == 0 ? "y-M-d" : "yMd";
    p->daily = 1;
  } else if (pk == 1) {
    p->ms = HOUR_MS;
    p->pattern = fk == 0 ? "y-M-d H" : fk == 1 ? "yMd H" : "yMdH";
  } else {
    p->ms = 2 * HOUR_MS;
    p->pattern = "y-M-d H";
  }
  return 0;
}

/* ------------------------------------------------------------ tags */

typedef struct named {
  char *name;
  int64_t key; /* time or snapshot id */
} named;

static int cmp_named(const void *a, const void *b) {
  const named *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return strcmp(x->name, y->name);
}

/* Tags (automatic ones of period p when p != NULL) with their snapshot ids, sorted by id. */
static int tags_by_id(const pm_snapshot_manager *m, const period *p, named **out, size_t *n_out, pm_error *err) {
  *out = NULL;
  *n_out = 0;
  char **names = NULL;
  size_t n = 0;
  PM_TRY(pm_tag_list(m, &names, &n, err));
  named *v = n ? calloc(n, sizeof *v) : NULL;
  int rc = n && !v ? PM_NOMEM(err) : 0;
  size_t k = 0;
  for (size_t i = 0; !rc && i < n; i++) {
    if (p && parse_tag(p, names[i]) < 0) continue;
    pm_snapshot *s = NULL;
    rc = pm_tag_read(m, names[i], &s, err);
    if (rc == PAIMON_ERR_NOT_FOUND) { /* deleted meanwhile */
      pm_error_clear(err);
      rc = 0;
      continue;
    }
    if (rc) break;
    v[k].key = s->id;
    v[k].name = names[i];
    names[i] = NULL;
    k++;
    pm_snapshot_free(s);
  }
  pm_free_names(names, n);
  if (rc) {
    for (size_t i = 0; i < k; i++) free(v[i].name);
    free(v);
    return rc;
  }
  qsort(v, k, sizeof *v, cmp_named);
  *out = v;
  *n_out = k;
  return 0;
}

static void free_named(named *v, size_t n) {
  for (size_t i = 0; i < n; i++) free(v[i].name);
  free(v);
}

/* Java's TagManager.deleteTag with its TagDeletion: the tag file, then the files only it held
 * (table/expire.h pm_tag_delete_clean). A tag gone meanwhile is fine. */
static int delete_tag(pm_table *t, const char *name, int *deleted, pm_error *err) {
  int rc = pm_tag_delete_clean(t, name, NULL, err);
  if (rc == PAIMON_ERR_NOT_FOUND) {
    pm_error_clear(err);
    return 0;
  }
  if (!rc || rc == PAIMON_ERR_IO) (*deleted)++; /* IO: the tag is gone, some of its files stayed */
  return rc;
}

/* Deletes the oldest tags (by snapshot id) beyond max. */
static int retain_max(pm_table *t, const pm_snapshot_manager *m, const period *p, int64_t max, int *deleted,
                      pm_error *err) {
  if (max < 0) return 0;
  named *v = NULL;
  size_t n = 0;
  PM_TRY(tags_by_id(m, p, &v, &n, err));
  int rc = 0;
  for (size_t i = 0; !rc && (int64_t)(n - i) > max; i++) rc = delete_tag(t, v[i].name, deleted, err);
  free_named(v, n);
  return rc;
}

/* ------------------------------------------------------------ TagAutoCreation */

typedef struct creation {
  pm_table *t;
  pm_snapshot_manager m;
  period p;
  int watermark; /* time from the watermark (else the commit time) */
  const char *zone, *zone_key;
  int64_t delay, retained, max;
  int completion;
  int has_next;
  int64_t next_tag; /* naive ms */
} creation;

static int try_create(creation *c, const pm_snapshot *s, int *created, int *deleted, pm_error *err) {
  int64_t instant;
  if (c->watermark) {
    if (!s->has_watermark || s->watermark == INT64_MIN) return 0;
    instant = s->watermark;
  } else {
    instant = s->time_millis;
  }
  int64_t off = 0;
  PM_TRY(zone_offset(c->zone_key, c->zone, instant, &off, err));
  int64_t time = instant + off;
  if (c->has_next && time - c->delay < c->next_tag + c->p.ms) return 0;
  int64_t this_tag = floor_div(time, c->p.ms) * c->p.ms - c->p.ms;
  if (c->completion && c->has_next) this_tag = c->next_tag;
  char name[64];
  format_tag(&c->p, this_tag, name, sizeof name);
  int made = 0;
  PM_TRY(pm_tag_create_from(&c->m, name, s, c->retained, 1, &made, err));
  *created += made;
  c->next_tag = this_tag + c->p.ms;
  c->has_next = 1;
  return retain_max(c->t, &c->m, &c->p, c->max, deleted, err);
}

static int auto_creation(pm_table *t, int watermark, int *created, int *deleted, pm_error *err) {
  creation c;
  memset(&c, 0, sizeof c);
  c.t = t;
  c.m = pm_table_snapshots(t);
  c.watermark = watermark;
  c.zone_key = pm_core_option_key(watermark ? PM_CO_SINK_WATERMARK_TIME_ZONE : PM_CO_SINK_PROCESS_TIME_ZONE);
  c.zone = opt(t, watermark ? PM_CO_SINK_WATERMARK_TIME_ZONE : PM_CO_SINK_PROCESS_TIME_ZONE);
  if (watermark && !c.zone) c.zone = "UTC";
  PM_TRY(make_period(t, &c.p, err));
  PM_TRY(opt_dur(t, PM_CO_TAG_CREATION_DELAY, &c.delay, err));
  if (c.delay < 0) c.delay = 0;
  if (c.delay >= c.p.ms)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option '%s' must be shorter than the tag period",
                     pm_core_option_key(PM_CO_TAG_CREATION_DELAY));
  PM_TRY(opt_dur(t, PM_CO_TAG_DEFAULT_TIME_RETAINED, &c.retained, err));
  PM_TRY(opt_int(t, PM_CO_TAG_NUM_RETAINED_MAX, &c.max, err));
  PM_TRY(opt_bool(t, PM_CO_TAG_AUTOMATIC_COMPLETION, 0, &c.completion, err));
  /* progress: the newest automatic tag (by its time) */
  char **names = NULL;
  size_t n = 0;
  PM_TRY(pm_tag_list(&c.m, &names, &n, err));
  int64_t best = INT64_MIN;
  const char *best_name = NULL;
  for (size_t i = 0; i < n; i++) {
    int64_t tt = parse_tag(&c.p, names[i]);
    if (tt >= 0 && tt > best) best = tt, best_name = names[i];
  }
  int64_t next = 0;
  int rc = 0;
  if (best_name) {
    pm_snapshot *s = NULL;
    rc = pm_tag_read(&c.m, best_name, &s, err);
    if (!rc) {
      next = s->id + 1;
      c.has_next = 1;
      c.next_tag = best + c.p.ms;
    }
    pm_snapshot_free(s);
  } else {
    rc = pm_snapshot_earliest_id(&c.m, &next, err);
    if (!rc && next <= 0) next = 1;
  }
  pm_free_names(names, n);
  while (!rc) {
    int exists = 0;
    rc = pm_snapshot_exists(&c.m, next, &exists, err);
    if (rc) break;
    if (exists) {
      pm_snapshot *s = NULL;
      rc = pm_snapshot_read(&c.m, next, &s, err);
      if (rc == PAIMON_ERR_NOT_FOUND) { /* expired meanwhile */
        pm_error_clear(err);
        rc = 0;
        continue;
      }
      if (!rc) rc = try_create(&c, s, created, deleted, err);
      pm_snapshot_free(s);
      next++;
    } else {
      int64_t earliest = 0;
      rc = pm_snapshot_earliest_id(&c.m, &earliest, err);
      if (rc || earliest <= next) break;
      next = earliest;
    }
  }
  return rc;
}

/* ------------------------------------------------------------ batch */

static int batch_creation(pm_table *t, int *created, int *deleted, pm_error *err) {
  pm_snapshot_manager m = pm_table_snapshots(t);
  pm_snapshot *s = NULL;
  PM_TRY(pm_snapshot_read_latest(&m, &s, err));
  if (!s) return 0;
  int64_t retained = -1, max = -1, off = 0;
  const char *custom = opt(t, PM_CO_TAG_BATCH_CUSTOMIZED_NAME);
  int rc = opt_dur(t, PM_CO_TAG_DEFAULT_TIME_RETAINED, &retained, err);
  if (!rc) rc = opt_int(t, PM_CO_TAG_NUM_RETAINED_MAX, &max, err);
  if (!rc)
    rc = zone_offset(pm_core_option_key(PM_CO_SINK_PROCESS_TIME_ZONE), opt(t, PM_CO_SINK_PROCESS_TIME_ZONE),
                     s->time_millis, &off, err);
  char name[128];
  if (custom) {
    snprintf(name, sizeof name, "%s", custom);
  } else {
    period day = {DAY_MS, "batch-write-y-M-d", 0};
    format_tag(&day, s->time_millis + off, name, sizeof name);
  }
  int exists = 0;
  if (!rc) rc = pm_tag_exists(&m, name, &exists, err);
  if (!rc && exists) rc = delete_tag(t, name, deleted, err); /* Java replaces it */
  int made = 0;
  if (!rc) rc = pm_tag_create_from(&m, name, s, retained, 0, &made, err);
  *created += made;
  pm_snapshot_free(s);
  if (!rc) rc = retain_max(t, &m, NULL, max, deleted, err);
  return rc;
}

/* ------------------------------------------------------------ TagTimeExpire */

/* tagCreateTime ([y,m,d,h,mi(,s(,nanos))]) as naive ms; -1 when unparsable. */
static int64_t parse_create_time(const char *json) {
  long long v[7] = {0, 1, 1, 0, 0, 0, 0};
  int k = 0;
  const char *p = json;
  while (*p && *p != '[') p++;
  if (!*p) return -1;
  p++;
  while (*p && k < 7) {
    while (*p == ' ' || *p == ',') p++;
    if (*p == ']') break;
    char *end;
    v[k++] = strtoll(p, &end, 10);
    if (end == p) return -1;
    p = end;
  }
  if (k < 5) return -1;
  return days_from_civil(v[0], (int)v[1], (int)v[2]) * DAY_MS + v[3] * HOUR_MS + v[4] * 60000LL + v[5] * 1000LL +
         v[6] / 1000000;
}

static int time_expire(pm_table *t, int64_t now_ms, int *deleted, pm_error *err) {
  pm_snapshot_manager m = pm_table_snapshots(t);
  char **names = NULL;
  size_t n = 0;
  PM_TRY(pm_tag_list(&m, &names, &n, err));
  int64_t off = 0;
  int rc = n ? zone_offset("tag expiry", NULL, now_ms, &off, err) : 0;
  int64_t now = now_ms + off;
  for (size_t i = 0; !rc && i < n; i++) {
    pm_snapshot *s = NULL;
    rc = pm_tag_read(&m, names[i], &s, err);
    if (rc == PAIMON_ERR_NOT_FOUND) {
      pm_error_clear(err);
      rc = 0;
      continue;
    }
    if (!rc && s->tag_create_time_json && s->tag_time_retained_json) {
      int64_t created = parse_create_time(s->tag_create_time_json);
      double secs = strtod(s->tag_time_retained_json, NULL);
      if (created >= 0 && now > created + (int64_t)(secs * 1000.0)) {
        rc = delete_tag(t, names[i], deleted, err);
      }
    }
    pm_snapshot_free(s);
  }
  pm_free_names(names, n);
  return rc;
}

/* ------------------------------------------------------------ entry */

int pm_tag_auto_run(pm_table *t, int batch_commit, int64_t now_ms, int *created, int *deleted, pm_error *err) {
  int c0 = 0, d0 = 0;
  if (!created) created = &c0;
  if (!deleted) deleted = &d0;
  *created = *deleted = 0;
  static const char *const modes[] = {"none", "process-time", "watermark", "batch", NULL};
  const char *mv = opt(t, PM_CO_TAG_AUTOMATIC_CREATION);
  int mode = 0, expire = 1;
  if (mv) PM_TRY(pm_parse_enum(pm_core_option_key(PM_CO_TAG_AUTOMATIC_CREATION), mv, modes, &mode, err));
  PM_TRY(opt_bool(t, PM_CO_TAG_TIME_EXPIRE_ENABLED, 1, &expire, err));
  int rc = 0;
  if (mode == 1 || mode == 2) rc = auto_creation(t, mode == 2, created, deleted, err);
  else if (mode == 3 && batch_commit) rc = batch_creation(t, created, deleted, err);
  if (!rc && expire) rc = time_expire(t, now_ms, deleted, err);
  if (rc) pm_error_prefix(err, "automatic tags of %s (branch %s): ", t->root, t->branch);
  return rc;
}
