/* Batch / incremental scan planning (SEMANTICS.md §4, §6.1). */
#include "table/scan.h"

#include "meta/arena.h"
#include "meta/fileindex.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "data/binary_row.h"
#include "data/bucket.h"
#include "io/file.h"
#include "meta/file_entry.h"

#define MAX_BUCKET_KEY_COMBINATIONS 1024
#define DEFAULT_TARGET_SIZE (128LL * 1024 * 1024)
#define DEFAULT_OPEN_FILE_COST (4LL * 1024 * 1024)

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static const char *branch_arg(const pm_table *t) { return strcmp(t->branch, "main") ? t->branch : NULL; }
/* The snapshot manager of t's branch (a compound literal: valid in the enclosing block). */
#define SNAPS(t) (&(pm_snapshot_manager){(t)->fs, (t)->root, branch_arg(t)})

void pm_plan_free(pm_plan *p) {
  if (!p) return;
  for (size_t i = 0; i < p->n_splits; i++) pm_data_split_free(p->splits[i]);
  free(p->splits);
  for (size_t i = 0; i < p->n_incremental_splits; i++) pm_split_free(p->incremental_splits[i]);
  free(p->incremental_splits);
  free(p->fallback_branch);
  free(p);
}

/* ------------------------------------------------------ time parsing */

int pm_parse_local_timestamp(const char *text, int64_t *millis, pm_error *err) {
  int64_t wall;
  int32_t nanos, offset;
  int zoned;
  if (pm_parse_timestamp_zoned(text, strlen(text), &wall, &nanos, &zoned, &offset))
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "bad timestamp '%s' (expected YYYY-MM-DD[ HH:MM:SS[.fff]] in local time, or with a zone as "
                     "printed: 2024-01-01T10:00:00Z, 2024-01-01 18:00:00+08:00)",
                     text);
  if (zoned) {
    *millis = wall - (int64_t)offset * 1000;
    return 0;
  }
  pm_tz *tz = NULL;
  PM_TRY(pm_tz_load_local(&tz, err));
  int64_t secs = wall >= 0 ? wall / 1000 : -((-wall + 999) / 1000);
  *millis = pm_tz_local_to_utc(tz, secs) * 1000 + (wall - secs * 1000);
  pm_tz_free(tz);
  return 0;
}

/* ------------------------------------------------------ snapshot selection */

static int parse_i64(const char *key, const char *s, int64_t *out, pm_error *err) {
  char *end;
  if (!s || !*s) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option %s is empty", key);
  long long v = strtoll(s, &end, 10);
  if (*end) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option %s = '%s' is not an integer", key, s);
  *out = v;
  return 0;
}

static int all_digits(const char *s) {
  if (!*s) return 0;
  for (; *s; s++)
    if (!isdigit((unsigned char)*s)) return 0;
  return 1;
}

static int read_snapshot_checked(pm_table *t, int64_t id, const char *what, pm_snapshot **out, pm_error *err) {
  int rc = pm_snapshot_read(SNAPS(t), id, out, err);
  if (rc == PAIMON_ERR_NOT_FOUND && what) {
    int64_t e = 0, l = 0;
    pm_error e2 = {0};
    pm_snapshot_earliest_id(SNAPS(t), &e, &e2);
    pm_snapshot_latest_id(SNAPS(t), &l, &e2);
    if (l == 0)
      return pm_errorf(err, PAIMON_ERR_NOT_FOUND, "%s: snapshot %lld does not exist (table %s.%s has no snapshot)",
                       what, (long long)id, t->database, t->name);
    if (id >= e && id <= l) { /* a gap: the file of an id inside the range is gone */
      char *path = pm_snapshot_path(SNAPS(t), id);
      rc = pm_errorf(err, PAIMON_ERR_NOT_FOUND,
                     "%s: snapshot %lld does not exist (its file %s is missing: expired or deleted; the table's "
                     "snapshots range over [%lld, %lld])",
                     what, (long long)id, path ? path : "?", (long long)e, (long long)l);
      free(path);
      return rc;
    }
    return pm_errorf(err, PAIMON_ERR_NOT_FOUND, "%s: snapshot %lld is out of the available range [%lld, %lld]", what,
                     (long long)id, (long long)e, (long long)l);
  }
  return rc;
}

static int snapshot_by_watermark(pm_table *t, int64_t wm, const char *what, pm_snapshot **out, pm_error *err) {
  PM_TRY(pm_snapshot_read_by_watermark(SNAPS(t), wm, out, err));
  if (!*out) return pm_errorf(err, PAIMON_ERR_NOT_FOUND, "%s: no snapshot has a watermark >= %lld", what, (long long)wm);
  return 0;
}

static int snapshot_by_tag(pm_table *t, const char *tag, const char *what, pm_snapshot **out, pm_error *err) {
  int rc = pm_tag_read(SNAPS(t), tag, out, err);
  if (rc == PAIMON_ERR_NOT_FOUND)
    return pm_errorf(err, PAIMON_ERR_NOT_FOUND, "%s: tag '%s' does not exist in table %s.%s", what, tag, t->database,
                     t->name);
  return rc;
}

static int snapshot_by_time(pm_table *t, int64_t ts, const char *what, pm_snapshot **out, pm_error *err) {
  PM_TRY(pm_snapshot_read_at_or_before(SNAPS(t), ts, out, err));
  if (!*out)
    return pm_errorf(err, PAIMON_ERR_NOT_FOUND, "%s: no snapshot was committed at or before %lld ms (table %s.%s)",
                     what, (long long)ts, t->database, t->name);
  return 0;
}

int pm_scan_creation_mode(const pm_table *t) {
  const char *mode = t->co.set[PM_CO_SCAN_MODE] ? t->co.scan_mode : "default";
  if (!strcmp(mode, "from-creation-timestamp")) return 1;
  return !strcmp(mode, "default") && t->co.set[PM_CO_SCAN_CREATION_TIME_MILLIS] &&
         !t->co.set[PM_CO_SCAN_TIMESTAMP_MILLIS] && !t->co.set[PM_CO_SCAN_TIMESTAMP] &&
         !t->co.set[PM_CO_SCAN_SNAPSHOT_ID] && !t->co.set[PM_CO_SCAN_TAG_NAME] && !t->co.set[PM_CO_SCAN_WATERMARK] &&
         !t->co.set[PM_CO_SCAN_FILE_CREATION_TIME_MILLIS];
}

int pm_scan_creation_start(pm_table *t, int64_t *start, pm_error *err) {
  *start = 0;
  if (!t->co.set[PM_CO_SCAN_CREATION_TIME_MILLIS])
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "scan.mode = from-creation-timestamp needs scan.creation-time-millis");
  int64_t ts = t->co.scan_creation_time_millis, e = 0;
  PM_TRY(pm_snapshot_earliest_id(SNAPS(t), &e, err));
  if (!e) return 0;
  pm_snapshot *first = NULL, *prev = NULL;
  PM_TRY(pm_snapshot_read(SNAPS(t), e, &first, err));
  int too_early = first->time_millis >= ts;
  pm_snapshot_free(first);
  if (too_early) return 0;
  PM_TRY(pm_snapshot_read_at_or_before(SNAPS(t), ts - 1, &prev, err));
  int exists = 0;
  int rc = prev ? pm_snapshot_exists(SNAPS(t), prev->id + 1, &exists, err) : 0;
  if (!rc && exists) *start = prev->id + 1;
  pm_snapshot_free(prev);
  return rc;
}

int pm_scan_resolve_snapshot(pm_table *t, pm_snapshot **out, pm_error *err) {
  *out = NULL;
  static const pm_co_id selectors[] = {PM_CO_SCAN_SNAPSHOT_ID,      PM_CO_SCAN_TAG_NAME,  PM_CO_SCAN_WATERMARK,
                                       PM_CO_SCAN_TIMESTAMP_MILLIS, PM_CO_SCAN_TIMESTAMP, PM_CO_SCAN_VERSION};
  pm_co_id set[6];
  size_t n_set = 0;
  for (size_t i = 0; i < 6; i++)
    if (t->co.set[selectors[i]]) set[n_set++] = selectors[i];
  if (n_set > 1)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "only one time-travel selector may be set, got %s and %s",
                     pm_core_option_given_key(&t->co, set[0]), pm_core_option_given_key(&t->co, set[1]));
  const char *mode = t->co.set[PM_CO_SCAN_MODE] ? t->co.scan_mode : NULL;
  char what[256];
  if (n_set == 0 && pm_scan_creation_mode(t)) { /* Java: from-snapshot, else the latest by file creation time */
    int64_t start = 0;
    PM_TRY(pm_scan_creation_start(t, &start, err));
    snprintf(what, sizeof what, "scan.creation-time-millis = %lld", (long long)t->co.scan_creation_time_millis);
    if (start) return read_snapshot_checked(t, start, what, out, err);
    int rc = pm_snapshot_read_latest_checked(SNAPS(t), out, err);
    if (rc == PAIMON_ERR_NOT_FOUND) pm_error_prefix(err, "table %s.%s: ", t->database, t->name);
    return rc;
  }
  if (n_set == 1) {
    const char *key = pm_core_option_given_key(&t->co, set[0]), *val = pm_core_option_text(&t->co, set[0]);
    snprintf(what, sizeof what, "%s = '%s'", key, val);
    int64_t v;
    if (set[0] == PM_CO_SCAN_SNAPSHOT_ID) return read_snapshot_checked(t, t->co.scan_snapshot_id, what, out, err);
    if (set[0] == PM_CO_SCAN_TAG_NAME) return snapshot_by_tag(t, val, what, out, err);
    if (set[0] == PM_CO_SCAN_WATERMARK) return snapshot_by_watermark(t, t->co.scan_watermark, what, out, err);
    if (set[0] == PM_CO_SCAN_TIMESTAMP_MILLIS) return snapshot_by_time(t, t->co.scan_timestamp_millis, what, out, err);
    if (set[0] == PM_CO_SCAN_TIMESTAMP) {
      PM_TRY(pm_parse_local_timestamp(val, &v, err));
      return snapshot_by_time(t, v, what, out, err);
    }
    /* scan.version: tag, then watermark-N, then snapshot id */
    int tag_exists = 0;
    PM_TRY(pm_tag_exists(SNAPS(t), val, &tag_exists, err));
    if (tag_exists) return snapshot_by_tag(t, val, what, out, err);
    if (!strncmp(val, "watermark-", 10) && all_digits(val + 10)) {
      PM_TRY(parse_i64(key, val + 10, &v, err));
      return snapshot_by_watermark(t, v, what, out, err);
    }
    if (all_digits(val)) {
      PM_TRY(parse_i64(key, val, &v, err));
      return read_snapshot_checked(t, v, what, out, err);
    }
    return pm_errorf(err, PAIMON_ERR_NOT_FOUND, "%s: no tag of that name and not a snapshot id or watermark-N", what);
  }
  if (mode && (!strcmp(mode, "from-snapshot") || !strcmp(mode, "from-snapshot-full") ||
               !strcmp(mode, "from-timestamp")))
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "scan.mode = %s needs a scan.snapshot-id / scan.timestamp option",
                     mode);
  if (mode && !strcmp(mode, "compacted-full")) {
    PM_TRY(pm_snapshot_read_latest_of_kind(SNAPS(t), "COMPACT", out, err));
    if (*out) return 0;
  } else if (mode && strcmp(mode, "default") && strcmp(mode, "latest-full") && strcmp(mode, "latest") &&
             strcmp(mode, "full") && strcmp(mode, "incremental") && strcmp(mode, "latest-delta") &&
             strcmp(mode, "from-file-creation-time")) {
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "scan.mode = %s is not supported for batch scans", mode);
  }
  int rc = pm_snapshot_read_latest_checked(SNAPS(t), out, err);
  if (rc == PAIMON_ERR_NOT_FOUND) pm_error_prefix(err, "table %s.%s: ", t->database, t->name);
  return rc;
}

/* ------------------------------------------------------ partition helpers */

int pm_scan_partition_type(const pm_table *t, pm_data_type **out, pm_error *err) {
  *out = NULL;
  pm_data_type *row = NULL;
  PM_TRY(pm_dtype_new(PM_DT_ROW, 1, &row, err));
  if (t->n_partition_keys) {
    row->fields = calloc(t->n_partition_keys, sizeof *row->fields);
    if (!row->fields) {
      pm_dtype_free(row);
      return PM_NOMEM(err);
    }
    row->n_fields = t->n_partition_keys;
    for (size_t i = 0; i < t->n_partition_keys; i++) {
      int idx = pm_schema_field_index(t->schema, t->partition_keys[i]);
      if (idx < 0) {
        pm_dtype_free(row);
        return pm_errorf(err, PAIMON_ERR_CORRUPT, "table %s.%s: partition key '%s' is not a field", t->database,
                         t->name, t->partition_keys[i]);
      }
      int rc = pm_data_field_copy(&t->schema->fields[idx], &row->fields[i], err);
      if (rc) {
        pm_dtype_free(row);
        return rc;
      }
    }
  }
  *out = row;
  return 0;
}

/* Java Double.toString / Float.toString: shortest digits that round-trip,
 * "1.0" style between 1e-3 and 1e7, "1.0E10" style outside. */
static void java_double_string(double d, int is_float, char *buf, size_t cap) {
  if (isnan(d)) {
    snprintf(buf, cap, "NaN");
    return;
  }
  if (isinf(d)) {
    snprintf(buf, cap, d > 0 ? "Infinity" : "-Infinity");
    return;
  }
  if (d == 0) {
    snprintf(buf, cap, signbit(d) ? "-0.0" : "0.0");
    return;
  }
  char digits[40];
  int prec;
  for (prec = 1; prec <= 17; prec++) {
    snprintf(digits, sizeof digits, "%.*e", prec - 1, d);
    if (is_float ? (float)strtod(digits, NULL) == (float)d : strtod(digits, NULL) == d) break;
  }
  /* digits = [-]D.DDDDe[+-]XX */
  int neg = digits[0] == '-';
  const char *m = digits + neg;
  char *e = strchr(m, 'e');
  int exp10 = atoi(e + 1);
  char mant[32];
  size_t mn = 0;
  for (const char *q = m; q < e; q++)
    if (*q != '.') mant[mn++] = *q;
  while (mn > 1 && mant[mn - 1] == '0') mn--;
  mant[mn] = 0;
  double ad = fabs(d);
  size_t k = 0;
  if (neg) k += (size_t)snprintf(buf + k, cap - k, "-");
  if (ad >= 1e-3 && ad < 1e7) {
    if (exp10 >= 0) {
      for (int i = 0; i <= exp10; i++) k += (size_t)snprintf(buf + k, cap - k, "%c", (size_t)i < mn ? mant[i] : '0');
      k += (size_t)snprintf(buf + k, cap - k, ".");
      if ((size_t)exp10 + 1 < mn) snprintf(buf + k, cap - k, "%s", mant + exp10 + 1);
      else snprintf(buf + k, cap - k, "0");
    } else {
      k += (size_t)snprintf(buf + k, cap - k, "0.");
      for (int i = 0; i < -exp10 - 1; i++) k += (size_t)snprintf(buf + k, cap - k, "0");
      snprintf(buf + k, cap - k, "%s", mant);
    }
  } else {
    snprintf(buf + k, cap - k, "%c.%sE%d", mant[0], mn > 1 ? mant + 1 : "0", exp10);
  }
}

/* Java's toString of a partition value (legacy naming, FORMAT.md 1.2). */
static int value_text(const pm_value *v, const pm_data_type *type, int legacy, char *buf, size_t cap) {
  switch (v->kind) {
    case PM_V_BOOL: snprintf(buf, cap, "%s", v->u.i64 ? "true" : "false"); return 0;
    case PM_V_INT:
      if (type->root == PM_DT_DATE && !legacy) {
        int64_t z = v->u.i64 + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
        unsigned doe = (unsigned)(z - era * 146097);
        unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
        int64_t y = (int64_t)yoe + era * 400;
        unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
        unsigned d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
        snprintf(buf, cap, "%04lld-%02u-%02u", (long long)(y + (m <= 2)), m, d);
      } else {
        snprintf(buf, cap, "%lld", (long long)v->u.i64);
      }
      return 0;
    case PM_V_FLOAT:
    case PM_V_DOUBLE: java_double_string(v->u.f64, v->kind == PM_V_FLOAT, buf, cap); return 0;
    case PM_V_DECIMAL: pm_decimal_to_string(&v->u.dec, buf, cap); return 0;
    case PM_V_STRING:
    case PM_V_BINARY: snprintf(buf, cap, "%.*s", (int)v->u.bytes.len, (const char *)v->u.bytes.data); return 0;
    case PM_V_TIMESTAMP: {
      int64_t secs = v->u.ts.millis >= 0 ? v->u.ts.millis / 1000 : -((-v->u.ts.millis + 999) / 1000);
      int64_t ms = v->u.ts.millis - secs * 1000;
      time_t tt = (time_t)secs;
      struct tm tm;
      gmtime_r(&tt, &tm);
      if (!legacy) {
        /* CAST(ts AS STRING): seconds always, 9-digit fraction without trailing
         * zeros but never shorter than the type's precision */
        size_t k = strftime(buf, cap, "%Y-%m-%d %H:%M:%S", &tm);
        char frac[16];
        snprintf(frac, sizeof frac, "%03lld%06d", (long long)ms, v->u.ts.nanos);
        int keep = 9;
        while (keep > 0 && frac[keep - 1] == '0') keep--;
        if (keep < type->precision) keep = type->precision;
        if (keep > 9) keep = 9;
        if (keep > 0) snprintf(buf + k, cap - k, ".%.*s", keep, frac);
        return 0;
      }
      size_t k = strftime(buf, cap, "%Y-%m-%dT%H:%M", &tm);
      if (tm.tm_sec || ms || v->u.ts.nanos) k += (size_t)snprintf(buf + k, cap - k, ":%02d", tm.tm_sec);
      if (ms || v->u.ts.nanos) {
        if (v->u.ts.nanos == 0) snprintf(buf + k, cap - k, ".%03lld", (long long)ms);
        else if (v->u.ts.nanos % 1000 == 0) snprintf(buf + k, cap - k, ".%03lld%03d", (long long)ms, v->u.ts.nanos / 1000);
        else snprintf(buf + k, cap - k, ".%03lld%06d", (long long)ms, v->u.ts.nanos);
      }
      return 0;
    }
    default: snprintf(buf, cap, "?"); return 0;
  }
}

static int is_blank(const char *s) {
  for (; *s; s++)
    if (!isspace((unsigned char)*s)) return 0;
  return 1;
}

static int partition_render(const pm_table *t, const uint8_t *partition, size_t len, int as_dir, char **out,
                            pm_error *err) {
  *out = NULL;
  pm_buf b;
  pm_buf_init(&b);
  int rc = 0;
  pm_binary_row row;
  if (!as_dir) rc = pm_buf_push_u8(&b, '{') ? PM_NOMEM(err) : 0;
  if (!rc && t->n_partition_keys) rc = pm_binary_row_open_serialized(partition, len, "_PARTITION", &row, err);
  if (!rc && t->n_partition_keys && row.arity != (int32_t)t->n_partition_keys)
    rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "partition row has %d fields, table %s.%s has %zu partition keys",
                   (int)row.arity, t->database, t->name, t->n_partition_keys);
  for (size_t i = 0; !rc && i < t->n_partition_keys; i++) {
    int idx = pm_schema_field_index(t->schema, t->partition_keys[i]);
    if (idx < 0) {
      rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "partition key '%s' is not a field", t->partition_keys[i]);
      break;
    }
    const pm_data_type *type = t->schema->fields[idx].type;
    pm_value v;
    rc = pm_binary_row_get(&row, (int32_t)i, type, &v, err);
    if (rc) break;
    char text[256];
    const char *val;
    if (v.kind == PM_V_NULL) val = as_dir ? t->partition_default_name : "null";
    else {
      value_text(&v, type, t->partition_legacy_name, text, sizeof text);
      val = (as_dir && is_blank(text)) ? t->partition_default_name : text;
    }
    char *ek = NULL, *ev = NULL;
    if (as_dir) {
      rc = pm_partition_escape(t->partition_keys[i], &ek, err);
      if (!rc) rc = pm_partition_escape(val, &ev, err);
    }
    if (!rc) {
      const char *sep = i ? (as_dir ? "/" : ", ") : "";
      if (pm_buf_append(&b, sep, strlen(sep)) || pm_buf_append(&b, as_dir ? ek : t->partition_keys[i], strlen(as_dir ? ek : t->partition_keys[i])) ||
          pm_buf_push_u8(&b, '=') || pm_buf_append(&b, as_dir ? ev : val, strlen(as_dir ? ev : val)))
        rc = PM_NOMEM(err);
    }
    free(ek);
    free(ev);
  }
  if (!rc && !as_dir && pm_buf_push_u8(&b, '}')) rc = PM_NOMEM(err);
  if (!rc && pm_buf_push_u8(&b, 0)) rc = PM_NOMEM(err);
  if (!rc) {
    *out = strdup((const char *)b.data);
    if (!*out) rc = PM_NOMEM(err);
  }
  pm_buf_free(&b);
  return rc;
}

int pm_scan_partition_dir(const pm_table *t, const uint8_t *partition, size_t len, char **out, pm_error *err) {
  return partition_render(t, partition, len, 1, out, err);
}
int pm_scan_partition_string(const pm_table *t, const uint8_t *partition, size_t len, char **out, pm_error *err) {
  return partition_render(t, partition, len, 0, out, err);
}

int pm_scan_partition_field(const pm_table *t, const uint8_t *partition, size_t len, size_t i, pm_value *v,
                            const pm_data_type **type, char *text, size_t cap, pm_error *err) {
  if (i >= t->n_partition_keys)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "partition field %zu: table %s.%s has %zu partition keys", i,
                     t->database, t->name, t->n_partition_keys);
  pm_binary_row row;
  PM_TRY(pm_binary_row_open_serialized(partition, len, "_PARTITION", &row, err));
  if (row.arity != (int32_t)t->n_partition_keys)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "partition row has %d fields, table %s.%s has %zu partition keys",
                     (int)row.arity, t->database, t->name, t->n_partition_keys);
  int idx = pm_schema_field_index(t->schema, t->partition_keys[i]);
  if (idx < 0) return pm_errorf(err, PAIMON_ERR_CORRUPT, "partition key '%s' is not a field", t->partition_keys[i]);
  *type = t->schema->fields[idx].type;
  PM_TRY(pm_binary_row_get(&row, (int32_t)i, *type, v, err));
  if (v->kind == PM_V_NULL) snprintf(text, cap, "null");
  else value_text(v, *type, t->partition_legacy_name, text, cap);
  return 0;
}

/* ------------------------------------------------------ planning context */

typedef struct scan_ctx {
  pm_table *t;
  const pm_predicate *filter;
  pm_data_type *partition_type;   /* ROW of partition fields */
  pm_predicate *partition_pred;   /* remapped to partition row positions, NULL = none */
  int has_data_filter;            /* filter has conjuncts on non-partition columns */
  pm_predicate *key_pred;         /* PK tables: remapped to trimmed-key positions */
  pm_data_type **key_types;       /* trimmed key field types (borrowed from t->schema) */
  size_t n_key;
  int32_t *bucket_hashes;         /* bucket pruning: hashes of the possible bucket-key rows */
  size_t n_bucket_hashes;
  int bucket_filter;              /* 1 when bucket_hashes applies */
  int bucket_mod;                 /* bucket-function.type = mod: bucket_hashes hold no hashes, mod_values do */
  int64_t *mod_values;
  int exclude_level0;
  int level_min;                  /* streaming full plans: files below this level are skipped (0 = none) */
  int real_buckets_only;          /* postpone tables: bucket -2 files are invisible to batch reads */
  int value_filter_per_file;
  int value_filter_whole_bucket;
  uint8_t *needed;                /* per t->schema field: referenced by the filter (stats decoded) */
  pm_scan_explain *ex;
} scan_ctx;

static void scan_ctx_clear(scan_ctx *c) {
  pm_dtype_free(c->partition_type);
  pm_pred_free(c->partition_pred);
  pm_pred_free(c->key_pred);
  free(c->key_types);
  free(c->bucket_hashes);
  free(c->mod_values);
  free(c->needed);
}

static void mark_needed(const pm_predicate *p, uint8_t *needed, size_t n) {
  if (p->n_children == 0 && p->field_index >= 0 && (size_t)p->field_index < n) needed[p->field_index] = 1;
  for (size_t i = 0; i < p->n_children; i++) mark_needed(p->children[i], needed, n);
}

/* Literal sets per bucket-key column from =/IN conjuncts (or ORs of =). */
static int literal_set_for(const pm_predicate *p, int32_t field, const pm_value **vals, size_t *n, size_t cap) {
  if (p->op == PM_PRED_EQUAL && p->field_index == field) {
    if (*n >= cap || p->literals[0].kind == PM_V_NULL) return 0;
    vals[(*n)++] = &p->literals[0];
    return 1;
  }
  if (p->op == PM_PRED_IN && p->field_index == field) {
    for (size_t i = 0; i < p->n_literals; i++) {
      if (p->literals[i].kind == PM_V_NULL) continue;
      if (*n >= cap) return 0;
      vals[(*n)++] = &p->literals[i];
    }
    return 1;
  }
  if (p->op == PM_PRED_OR) {
    for (size_t i = 0; i < p->n_children; i++)
      if (!literal_set_for(p->children[i], field, vals, n, cap)) return 0;
    return 1;
  }
  return 0;
}

static int setup_bucket_filter(scan_ctx *c, pm_error *err) {
  pm_table *t = c->t;
  if (!c->filter || t->bucket_mode != PM_BUCKET_FIXED || !t->n_bucket_keys || t->n_bucket_keys > 8) return 0;
  int mod = t->co.bucket_function == PM_BUCKET_FN_MOD;
  if (t->co.bucket_function != PM_BUCKET_FN_DEFAULT && !mod) return 0;
  if (mod && t->n_bucket_keys != 1) return 0;
  size_t nc = pm_pred_conjuncts(c->filter, NULL, 0);
  const pm_predicate **cj = calloc(nc, sizeof *cj);
  if (!cj) return PM_NOMEM(err);
  pm_pred_conjuncts(c->filter, cj, nc);
  const pm_value *sets[8][64];
  size_t counts[8] = {0};
  const pm_data_type *types[8];
  size_t combos = 1;
  int ok = 1;
  for (size_t k = 0; k < t->n_bucket_keys && ok; k++) {
    int idx = pm_schema_field_index(t->schema, t->bucket_keys[k]);
    if (idx < 0) {
      ok = 0;
      break;
    }
    types[k] = t->schema->fields[idx].type;
    int found = 0;
    for (size_t i = 0; i < nc && !found; i++) {
      size_t n = 0;
      if (literal_set_for(cj[i], idx, sets[k], &n, 64) && n > 0) {
        counts[k] = n;
        found = 1;
      }
    }
    if (!found) ok = 0;
    else combos *= counts[k];
    if (combos > MAX_BUCKET_KEY_COMBINATIONS) ok = 0;
  }
  free(cj);
  if (!ok) return 0;
  if (mod) { /* floorMod(value, n) of a single integer key */
    pm_dtype_root r = types[0]->root;
    if (r != PM_DT_TINYINT && r != PM_DT_SMALLINT && r != PM_DT_INT && r != PM_DT_BIGINT) return 0;
    c->mod_values = calloc(counts[0], sizeof *c->mod_values);
    if (!c->mod_values) return PM_NOMEM(err);
    for (size_t i = 0; i < counts[0]; i++) c->mod_values[i] = sets[0][i]->u.i64;
    c->n_bucket_hashes = counts[0];
    c->bucket_mod = 1;
    c->bucket_filter = 1;
    return 0;
  }
  c->bucket_hashes = calloc(combos, sizeof *c->bucket_hashes);
  if (!c->bucket_hashes) return PM_NOMEM(err);
  size_t pos[8] = {0};
  for (size_t m = 0; m < combos; m++) {
    pm_binary_row_writer w;
    PM_TRY(pm_row_writer_init(&w, (int32_t)t->n_bucket_keys, err));
    int rc = 0;
    for (size_t k = 0; k < t->n_bucket_keys && !rc; k++)
      rc = pm_row_writer_write(&w, (int32_t)k, types[k], sets[k][pos[k]], err);
    pm_buf row;
    pm_buf_init(&row);
    if (!rc) rc = pm_row_writer_finish(&w, 0, &row, err);
    pm_row_writer_free(&w);
    if (rc) {
      pm_buf_free(&row);
      return rc;
    }
    c->bucket_hashes[c->n_bucket_hashes++] = pm_bucket_hash(row.data, row.len);
    pm_buf_free(&row);
    for (size_t k = 0; k < t->n_bucket_keys; k++) {
      if (++pos[k] < counts[k]) break;
      pos[k] = 0;
    }
  }
  c->bucket_filter = 1;
  return 0;
}

static int bucket_allowed(const scan_ctx *c, int32_t bucket, int32_t total_buckets) {
  if (!c->bucket_filter || total_buckets <= 0) return 1;
  if (c->bucket_mod) {
    for (size_t i = 0; i < c->n_bucket_hashes; i++)
      if (pm_bucket_mod(c->mod_values[i], total_buckets) == bucket) return 1;
    return 0;
  }
  for (size_t i = 0; i < c->n_bucket_hashes; i++)
    if (pm_bucket_of_hash(c->bucket_hashes[i], total_buckets) == bucket) return 1;
  return 0;
}

static int setup_ctx(scan_ctx *c, pm_table *t, const pm_predicate *filter, int incremental, pm_scan_explain *ex,
                     pm_error *err) {
  memset(c, 0, sizeof *c);
  c->t = t;
  c->filter = filter;
  c->ex = ex;
  PM_TRY(pm_scan_partition_type(t, &c->partition_type, err));
  size_t nf = t->schema->n_fields;
  int32_t *map = malloc((nf ? nf : 1) * sizeof *map);
  if (!map) return PM_NOMEM(err);
  int rc = 0;
  if (filter) {
    /* partition predicate */
    for (size_t i = 0; i < nf; i++) map[i] = -1;
    for (size_t k = 0; k < t->n_partition_keys; k++) {
      int idx = pm_schema_field_index(t->schema, t->partition_keys[k]);
      if (idx >= 0) map[idx] = (int32_t)k;
    }
    rc = pm_pred_extract(filter, map, nf, &c->partition_pred, err);
    /* is there anything beyond partition conjuncts? */
    size_t nc = pm_pred_conjuncts(filter, NULL, 0);
    const pm_predicate **cj = calloc(nc ? nc : 1, sizeof *cj);
    if (!cj && !rc) rc = PM_NOMEM(err);
    if (cj) {
      pm_pred_conjuncts(filter, cj, nc);
      for (size_t i = 0; i < nc; i++)
        if (cj[i]->op != PM_PRED_ALWAYS_TRUE && !pm_pred_only_fields(cj[i], map, nf)) c->has_data_filter = 1;
      free(cj);
    }
    /* key predicate */
    if (!rc && pm_table_has_pk(t) && t->n_trimmed_primary_keys) {
      for (size_t i = 0; i < nf; i++) map[i] = -1;
      for (size_t k = 0; k < t->n_trimmed_primary_keys; k++) {
        int idx = pm_schema_field_index(t->schema, t->trimmed_primary_keys[k]);
        if (idx >= 0) map[idx] = (int32_t)k;
      }
      rc = pm_pred_extract(filter, map, nf, &c->key_pred, err);
    }
  }
  if (!rc && pm_table_has_pk(t)) {
    c->n_key = t->n_trimmed_primary_keys;
    c->key_types = calloc(c->n_key ? c->n_key : 1, sizeof *c->key_types);
    if (!c->key_types) rc = PM_NOMEM(err);
    for (size_t k = 0; !rc && k < c->n_key; k++) {
      int idx = pm_schema_field_index(t->schema, t->trimmed_primary_keys[k]);
      if (idx < 0) rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "primary key '%s' is not a field", t->trimmed_primary_keys[k]);
      else c->key_types[k] = t->schema->fields[idx].type;
    }
  }
  free(map);
  if (!rc && filter) {
    c->needed = calloc(nf ? nf : 1, 1);
    if (!c->needed) rc = PM_NOMEM(err);
    else mark_needed(filter, c->needed, nf);
  }
  if (!rc) rc = setup_bucket_filter(c, err);
  if (rc) return rc;
  if (t->bucket_mode == PM_BUCKET_POSTPONE && !incremental) {
    c->real_buckets_only = !t->co.postpone_merge_on_read;
  }
  if (pm_table_has_pk(t) && !incremental) {
    c->exclude_level0 = (t->deletion_vectors && !t->dv_merge_on_read) || t->merge_engine == PM_MERGE_FIRST_ROW;
    if (c->has_data_filter) {
      if (c->exclude_level0) c->value_filter_per_file = 1;
      else if (t->merge_engine != PM_MERGE_PARTIAL_UPDATE && t->merge_engine != PM_MERGE_AGGREGATION)
        c->value_filter_whole_bucket = 1;
    }
  } else if (!pm_table_has_pk(t) && c->has_data_filter && !t->data_evolution) {
    c->value_filter_per_file = 1;
  }
  return 0;
}

/* ------------------------------------------------------ stats decoding */

/* Decodes SimpleStats over `n` columns of types[] into cols[]; returns 0 or
 * an error; a stats row of the wrong arity leaves the columns unknown. */
static int decode_stats(const pm_simple_stats *st, const pm_data_type *const *types, size_t n, pm_col_stats *cols,
                        pm_error *err) {
  for (size_t i = 0; i < n; i++) {
    memset(&cols[i], 0, sizeof cols[i]);
    cols[i].min.kind = cols[i].max.kind = PM_V_NULL;
    cols[i].null_count = -1;
  }
  pm_binary_row mn, mx;
  if (!st->min_values.len || !st->max_values.len) return 0;
  PM_TRY(pm_binary_row_open_serialized(st->min_values.data, st->min_values.len, "_MIN_VALUES", &mn, err));
  PM_TRY(pm_binary_row_open_serialized(st->max_values.data, st->max_values.len, "_MAX_VALUES", &mx, err));
  if (mn.arity != (int32_t)n || mx.arity != (int32_t)n) return 0;
  for (size_t i = 0; i < n; i++) {
    if (!types[i]) continue;
    PM_TRY(pm_binary_row_get(&mn, (int32_t)i, types[i], &cols[i].min, err));
    PM_TRY(pm_binary_row_get(&mx, (int32_t)i, types[i], &cols[i].max, err));
    if (!st->null_counts_is_null && (int32_t)i < st->n_null_counts && st->null_counts[i] != PM_NULL_COUNT_UNKNOWN)
      cols[i].null_count = st->null_counts[i];
  }
  return 0;
}

/* Manifest-level partition pruning: 1 = may contain matches. */
static int manifest_partition_may_match(scan_ctx *c, const pm_manifest_file_meta *m, pm_error *err) {
  if (!c->partition_pred || !c->t->n_partition_keys) return 1;
  size_t n = c->partition_type->n_fields;
  pm_col_stats cols[64];
  const pm_col_stats *ptrs[64];
  const pm_data_type *types[64];
  if (n > 64) return 1;
  for (size_t i = 0; i < n; i++) types[i] = c->partition_type->fields[i].type;
  pm_error e2 = {0};
  if (decode_stats(&m->partition_stats, types, n, cols, &e2)) return 1; /* hints only: never fail on them */
  for (size_t i = 0; i < n; i++) ptrs[i] = &cols[i];
  (void)err;
  return pm_pred_test_stats(c->partition_pred, m->num_added_files + m->num_deleted_files, ptrs, n);
}

/* Value stats of a file mapped onto t->schema fields: cols_out[i] points at
 * stats for field i, NULL when the file's schema lacks the field (all null),
 * or at an "unknown" entry. */
static int file_value_stats(scan_ctx *c, const pm_data_file_meta *f, pm_col_stats *storage,
                            const pm_col_stats **cols_out, pm_error *err) {
  pm_table *t = c->t;
  size_t nf = t->schema->n_fields;
  const pm_table_schema *fs = NULL;
  PM_TRY(pm_table_schema_by_id(t, f->schema_id, &fs, err));
  /* stats column names */
  size_t ns;
  const char **names = NULL;
  int by_file_fields = 0;
  if (!f->value_stats_cols.is_null) {
    ns = (size_t)f->value_stats_cols.n;
    names = f->value_stats_cols.items;
  } else if (!f->write_cols.is_null) {
    ns = (size_t)f->write_cols.n;
    names = f->write_cols.items;
  } else {
    ns = fs->n_fields;
    by_file_fields = 1;
  }
  pm_col_stats *unknown = &storage[nf];
  memset(unknown, 0, sizeof *unknown);
  unknown->min.kind = unknown->max.kind = PM_V_NULL;
  unknown->null_count = -1;
  for (size_t i = 0; i < nf; i++) {
    int32_t id = t->schema->fields[i].id;
    cols_out[i] = pm_schema_field_index_by_id(fs, id) >= 0 ? unknown : NULL;
  }
  const pm_data_type **types = calloc(ns ? ns : 1, sizeof *types);
  pm_col_stats *st = calloc(ns ? ns : 1, sizeof *st);
  int32_t *target = calloc(ns ? ns : 1, sizeof *target);
  int rc = (!types || !st || !target) ? PM_NOMEM(err) : 0;
  for (size_t i = 0; !rc && i < ns; i++) {
    int fi = by_file_fields ? (int)i : pm_schema_field_index(fs, names[i]);
    target[i] = -1;
    if (fi < 0) continue;
    const pm_data_field *ff = &fs->fields[fi];
    int ci = pm_schema_field_index_by_id(t->schema, ff->id);
    if (ci < 0 || (c->needed && !c->needed[ci])) continue; /* only decode what the filter uses */
    types[i] = ff->type;
    /* a changed type makes old stats unsafe for pruning */
    if (ff->type->root != t->schema->fields[ci].type->root ||
        (ff->type->root == PM_DT_DECIMAL && ff->type->scale != t->schema->fields[ci].type->scale))
      continue;
    if (pm_dtype_is_nested(ff->type->root)) continue;
    target[i] = ci;
  }
  if (!rc) rc = decode_stats(&f->value_stats, types, ns, st, err);
  for (size_t i = 0; !rc && i < ns; i++)
    if (target[i] >= 0) {
      storage[target[i]] = st[i];
      cols_out[target[i]] = &storage[target[i]];
    }
  free(types);
  free(st);
  free(target);
  return rc;
}

/* 1 if the file may hold rows matching the whole filter (value stats). */
static int file_value_may_match(scan_ctx *c, const pm_data_file_meta *f, pm_error *err, int *out) {
  size_t nf = c->t->schema->n_fields;
  pm_col_stats *storage = calloc(nf + 1, sizeof *storage);
  const pm_col_stats **cols = calloc(nf ? nf : 1, sizeof *cols);
  int rc = (!storage || !cols) ? PM_NOMEM(err) : 0;
  if (!rc) rc = file_value_stats(c, f, storage, cols, err);
  if (!rc) *out = pm_pred_test_stats(c->filter, f->row_count, cols, nf);
  free(storage);
  free(cols);
  return rc;
}

/* Java's testFileIndex: the file's embedded index (file-index.*) against the filter, columns
 * named as the file's schema names them. */
static int file_index_may_match(scan_ctx *c, const pm_data_file_meta *f, pm_error *err, int *out) {
  *out = 1;
  if (!f->has_embedded_index || !f->embedded_index.len) return 0;
  pm_table *t = c->t;
  const pm_table_schema *fs = NULL;
  PM_TRY(pm_table_schema_by_id(t, f->schema_id, &fs, err));
  size_t nf = t->schema->n_fields;
  pm_fidx_col *cols = calloc(nf ? nf : 1, sizeof *cols);
  if (!cols) return PM_NOMEM(err);
  for (size_t i = 0; i < nf; i++) {
    int fi = pm_schema_field_index_by_id(fs, t->schema->fields[i].id);
    if (fi >= 0) {
      cols[i].name = fs->fields[fi].name;
      cols[i].type = fs->fields[fi].type;
    }
  }
  pm_fidx ix;
  int rc = pm_fidx_open_safe(f->embedded_index.data, f->embedded_index.len, f->file_name, &ix, err);
  if (!rc) rc = pm_fidx_test(&ix, c->filter, cols, nf, f->row_count, out, err);
  pm_fidx_clear(&ix);
  free(cols);
  return rc;
}

static int file_key_may_match(scan_ctx *c, const pm_data_file_meta *f, pm_error *err, int *out) {
  *out = 1;
  if (!c->key_pred || c->n_key == 0 || c->n_key > 64) return 0;
  pm_col_stats cols[64];
  const pm_col_stats *ptrs[64];
  PM_TRY(decode_stats(&f->key_stats, (const pm_data_type *const *)c->key_types, c->n_key, cols, err));
  for (size_t i = 0; i < c->n_key; i++) ptrs[i] = &cols[i];
  *out = pm_pred_test_stats(c->key_pred, f->row_count, ptrs, c->n_key);
  return 0;
}

/* ------------------------------------------------------ manifest reading */

typedef struct entry_filter_ctx {
  scan_ctx *c;
  size_t pruned_partition, pruned_bucket, pruned_level, total;
  const uint8_t *last_part; /* cache of the last partition's verdict (copy) */
  size_t last_len;
  uint8_t last_buf[256];
  int last_ok;
  int apply_level;
} entry_filter_ctx;

static int partition_matches(entry_filter_ctx *fc, const uint8_t *part, size_t len) {
  scan_ctx *c = fc->c;
  if (!c->partition_pred) return 1;
  if (fc->last_part && fc->last_len == len && !memcmp(fc->last_buf, part, len)) return fc->last_ok;
  size_t n = c->partition_type->n_fields;
  pm_value vals[64];
  int ok = 1;
  pm_binary_row row;
  pm_error e2 = {0};
  if (n <= 64 && !pm_binary_row_open_serialized(part, len, "_PARTITION", &row, &e2) && row.arity == (int32_t)n) {
    int bad = 0;
    for (size_t i = 0; i < n && !bad; i++)
      bad = pm_binary_row_get(&row, (int32_t)i, c->partition_type->fields[i].type, &vals[i], &e2);
    if (!bad) ok = pm_pred_eval_values(c->partition_pred, vals, n);
  }
  if (len <= sizeof fc->last_buf) {
    memcpy(fc->last_buf, part, len);
    fc->last_part = fc->last_buf;
    fc->last_len = len;
    fc->last_ok = ok;
  }
  return ok;
}

static int entry_filter(void *ctx, const pm_entry_head *h) {
  entry_filter_ctx *fc = ctx;
  fc->total++;
  if (fc->apply_level && ((fc->c->exclude_level0 && h->level == 0) || h->level < fc->c->level_min)) {
    fc->pruned_level++;
    return 0;
  }
  if (!bucket_allowed(fc->c, h->bucket, h->total_buckets) || (fc->c->real_buckets_only && h->bucket < 0)) {
    fc->pruned_bucket++;
    return 0;
  }
  if (!partition_matches(fc, h->partition, h->partition_len)) {
    fc->pruned_partition++;
    return 0;
  }
  return 1;
}

typedef struct manifest_job {
  pm_fs *fs; /* the table's (borrowed) */
  char *path;
  pm_manifest_entries entries;
  entry_filter_ctx fc;
  int rc;
  pm_error err;
} manifest_job;

static void job_run(void *ctx, size_t i) {
  manifest_job *j = &((manifest_job *)ctx)[i];
  j->rc = pm_manifest_read(j->fs, j->path, entry_filter, &j->fc, &j->entries, &j->err);
}

int pm_scan_manifest_error(const pm_table *t, const char *path, int rc, pm_error *err) {
  pm_file_stat st;
  pm_error e2 = {0};
  if (rc != PAIMON_ERR_CORRUPT || !path || pm_fs_stat(t->fs, path, &st, &e2) != 0 || st.size != 0) return rc;
  const char *fmt = t->co.manifest_format;
  return pm_errorf(err, PAIMON_ERR_CORRUPT,
                   "%s: manifest file is empty (0 bytes); table %s.%s expects manifest.format '%s'", path,
                   t->database, t->name, fmt ? fmt : "avro");
}

/* Threads pay off only for enough work: a thread's start and join cost about
 * what decoding WORK_PER_THREAD / 10 manifest entries costs, and each manifest
 * file costs about WORK_PER_FILE entries before its first entry (open, read,
 * header). `work` = entries (num_added + num_deleted of the metas) + files x
 * WORK_PER_FILE; the reading threads stay at most scan.manifest.parallelism. */
#define WORK_PER_FILE 64
#define WORK_PER_THREAD 2048

static int run_jobs(pm_table *t, manifest_job *jobs, size_t n, uint64_t work, pm_error *err) {
  int64_t par = t->co.scan_manifest_parallelism;
  if (par < 1) par = 1;
  if (par > 16) par = 16;
  uint64_t useful = 1 + work / WORK_PER_THREAD;
  if ((uint64_t)par > useful) par = (int64_t)useful;
  pm_executor ex = pm_table_executor(t);
  pm_executor_for(&ex, n, (int)par, job_run, jobs);
  for (size_t i = 0; i < n; i++)
    if (jobs[i].rc) {
      if (err) *err = jobs[i].err;
      return pm_scan_manifest_error(t, jobs[i].path, jobs[i].rc, err);
    }
  return 0;
}

static void free_jobs(manifest_job *jobs, size_t n) {
  if (!jobs) return;
  for (size_t i = 0; i < n; i++) {
    free(jobs[i].path);
    pm_manifest_entries_clear(&jobs[i].entries);
  }
  free(jobs);
}

/* Identity of a manifest entry (FORMAT 4.7). */
typedef struct id_set {
  const pm_manifest_entry **slots;
  size_t cap;
} id_set;

static int id_set_init(id_set *s, size_t n, pm_error *err) {
  s->cap = 16;
  while (s->cap < n * 2 + 1) s->cap *= 2;
  s->slots = calloc(s->cap, sizeof *s->slots);
  return s->slots ? 0 : PM_NOMEM(err);
}
static void id_set_add(id_set *s, const pm_manifest_entry *e) {
  size_t i = pm_file_entry_hash(e) & (s->cap - 1);
  while (s->slots[i]) {
    if (pm_file_entry_same(s->slots[i], e)) return;
    i = (i + 1) & (s->cap - 1);
  }
  s->slots[i] = e;
}
static int id_set_has(const id_set *s, const pm_manifest_entry *e) {
  size_t i = pm_file_entry_hash(e) & (s->cap - 1);
  while (s->slots[i]) {
    if (pm_file_entry_same(s->slots[i], e)) return 1;
    i = (i + 1) & (s->cap - 1);
  }
  return 0;
}

/* Reads the manifest lists of a snapshot (base + delta, or one list) with
 * manifest pruning, then the manifests in parallel. jobs/n_jobs own the entries. */
static int read_manifests(scan_ctx *c, const char *const *lists, size_t n_lists, int apply_level,
                          manifest_job **jobs_out, size_t *n_jobs_out, pm_error *err) {
  pm_table *t = c->t;
  *jobs_out = NULL;
  *n_jobs_out = 0;
  pm_manifest_file_metas metas;
  pm_manifest_file_metas_init(&metas);
  int rc = 0;
  for (size_t i = 0; i < n_lists && !rc; i++) {
    if (!lists[i]) continue;
    char sub[1024];
    snprintf(sub, sizeof sub, "manifest/%s", lists[i]);
    char *p = pm_table_root_path(t, sub);
    if (!p) rc = PM_NOMEM(err);
    else rc = pm_scan_manifest_error(t, p, pm_manifest_list_read(t->fs, p, &metas, err), err);
    free(p);
    c->ex->manifest_lists_read++;
  }
  manifest_job *jobs = NULL;
  size_t nj = 0;
  uint64_t work = 0; /* for run_jobs */
  /* The jobs' containers share freed memory while this pass decodes; the
   * cache goes away with the last container (arena.h). */
  pm_mem_cache *cache = NULL;
  if (!rc && metas.n) {
    jobs = calloc(metas.n, sizeof *jobs);
    cache = pm_mem_cache_new(PM_MEM_CACHE_DEFAULT_BYTES);
    if (!jobs || !cache) rc = PM_NOMEM(err);
  }
  /* bucket range pruning uses the table's current bucket count */
  for (size_t i = 0; !rc && i < metas.n; i++) {
    const pm_manifest_file_meta *m = &metas.items[i];
    c->ex->manifests_total++;
    if (m->num_added_files == 0 && m->num_deleted_files == 0) {
      c->ex->manifests_skipped_no_adds++;
      continue;
    }
    if (!manifest_partition_may_match(c, m, err)) {
      c->ex->manifests_pruned_partition++;
      continue;
    }
    if (c->bucket_filter && m->has_bucket_range && t->bucket > 0) {
      int any = 0;
      for (int32_t b = m->min_bucket; b <= m->max_bucket && b < t->bucket && !any; b++)
        any = bucket_allowed(c, b, t->bucket);
      if (!any) {
        c->ex->manifests_pruned_bucket++;
        continue;
      }
    }
    if (apply_level && c->real_buckets_only && m->has_bucket_range && m->max_bucket < 0) {
      c->ex->manifests_pruned_bucket++;
      continue;
    }
    if (apply_level && c->exclude_level0 && m->has_level_range && m->max_level == 0) {
      c->ex->manifests_pruned_level++;
      continue;
    }
    char sub[1024];
    snprintf(sub, sizeof sub, "manifest/%s", m->file_name);
    manifest_job *j = &jobs[nj];
    j->fs = t->fs;
    j->path = pm_table_root_path(t, sub);
    if (!j->path) {
      rc = PM_NOMEM(err);
      break;
    }
    work += (uint64_t)(m->num_added_files > 0 ? m->num_added_files : 0) +
            (uint64_t)(m->num_deleted_files > 0 ? m->num_deleted_files : 0) + WORK_PER_FILE;
    pm_manifest_entries_init(&j->entries);
    pm_manifest_entries_use_cache(&j->entries, cache);
    j->fc.c = c;
    j->fc.apply_level = apply_level;
    nj++;
  }
  pm_manifest_file_metas_clear(&metas);
  pm_mem_cache_release(cache);
  if (!rc && nj) rc = run_jobs(t, jobs, nj, work, err);
  for (size_t i = 0; i < nj; i++) {
    c->ex->manifests_read++;
    c->ex->entries_total += jobs[i].fc.total;
    c->ex->entries_pruned_partition += jobs[i].fc.pruned_partition;
    c->ex->entries_pruned_bucket += jobs[i].fc.pruned_bucket;
    c->ex->entries_pruned_level += jobs[i].fc.pruned_level;
  }
  if (rc) {
    free_jobs(jobs, nj);
    return rc;
  }
  *jobs_out = jobs;
  *n_jobs_out = nj;
  return 0;
}

/* ADDs minus DELETEs, in manifest order: pointers into the jobs' entries. */
static int merge_entries(scan_ctx *c, manifest_job *jobs, size_t nj, const pm_manifest_entry ***live,
                         size_t *n_live, pm_error *err) {
  size_t total = 0, deletes = 0;
  for (size_t i = 0; i < nj; i++) {
    total += jobs[i].entries.n;
    for (size_t k = 0; k < jobs[i].entries.n; k++) deletes += jobs[i].entries.items[k].kind == PM_FILE_DELETE;
  }
  *live = NULL;
  *n_live = 0;
  const pm_manifest_entry **out = calloc(total ? total : 1, sizeof *out);
  if (!out) return PM_NOMEM(err);
  id_set del = {0};
  if (deletes && id_set_init(&del, deletes, err)) {
    free(out);
    return PAIMON_ERR_NOMEM;
  }
  for (size_t i = 0; deletes && i < nj; i++)
    for (size_t k = 0; k < jobs[i].entries.n; k++)
      if (jobs[i].entries.items[k].kind == PM_FILE_DELETE) id_set_add(&del, &jobs[i].entries.items[k]);
  size_t n = 0;
  for (size_t i = 0; i < nj; i++)
    for (size_t k = 0; k < jobs[i].entries.n; k++) {
      const pm_manifest_entry *e = &jobs[i].entries.items[k];
      if (e->kind != PM_FILE_ADD) continue;
      if (deletes && id_set_has(&del, e)) {
        c->ex->entries_deleted++;
        continue;
      }
      out[n++] = e;
    }
  c->ex->entries_deleted += deletes;
  free(del.slots);
  *live = out;
  *n_live = n;
  return 0;
}

/* ------------------------------------------------------ deletion vectors */

typedef struct dv_item {
  const pm_index_manifest_entry *entry;
  const pm_dv_range *range;
} dv_item;

typedef struct dv_index {
  pm_index_entries entries;
  dv_item *items;
  size_t n;
} dv_index;

static int dv_cmp_key(const pm_bytes *pa, int32_t ba, const char *fa, const pm_bytes *pb, int32_t bb, const char *fb) {
  if (pa->len != pb->len) return pa->len < pb->len ? -1 : 1;
  int c = pa->len ? memcmp(pa->data, pb->data, pa->len) : 0;
  if (c) return c;
  if (ba != bb) return ba < bb ? -1 : 1;
  return strcmp(fa, fb);
}
static int dv_item_cmp(const void *x, const void *y) {
  const dv_item *a = x, *b = y;
  return dv_cmp_key(&a->entry->partition, a->entry->bucket, a->range->data_file_name, &b->entry->partition,
                    b->entry->bucket, b->range->data_file_name);
}

static int load_dv_index(pm_table *t, const pm_snapshot *snap, dv_index *dv, pm_error *err) {
  memset(dv, 0, sizeof *dv);
  pm_index_entries_init(&dv->entries);
  if (!t->deletion_vectors || !snap->index_manifest) return 0;
  char sub[1024];
  snprintf(sub, sizeof sub, "manifest/%s", snap->index_manifest);
  char *p = pm_table_root_path(t, sub);
  if (!p) return PM_NOMEM(err);
  int rc = pm_scan_manifest_error(t, p, pm_index_manifest_read(t->fs, p, &dv->entries, err), err);
  free(p);
  if (rc) return rc;
  size_t n = 0;
  for (size_t i = 0; i < dv->entries.n; i++) {
    const pm_index_manifest_entry *e = &dv->entries.items[i];
    if (e->kind == PM_FILE_ADD && e->index_file.index_type && !strcmp(e->index_file.index_type, PM_INDEX_TYPE_DV) &&
        !e->index_file.dv_ranges_is_null)
      n += (size_t)e->index_file.n_dv_ranges;
  }
  dv->items = calloc(n ? n : 1, sizeof *dv->items);
  if (!dv->items) return PM_NOMEM(err);
  for (size_t i = 0; i < dv->entries.n; i++) {
    const pm_index_manifest_entry *e = &dv->entries.items[i];
    if (e->kind != PM_FILE_ADD || !e->index_file.index_type || strcmp(e->index_file.index_type, PM_INDEX_TYPE_DV) ||
        e->index_file.dv_ranges_is_null)
      continue;
    for (int32_t k = 0; k < e->index_file.n_dv_ranges; k++) {
      dv->items[dv->n].entry = e;
      dv->items[dv->n].range = &e->index_file.dv_ranges[k];
      dv->n++;
    }
  }
  qsort(dv->items, dv->n, sizeof *dv->items, dv_item_cmp);
  return 0;
}

static const dv_item *dv_find(const dv_index *dv, const pm_bytes *part, int32_t bucket, const char *file) {
  size_t lo = 0, hi = dv->n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    const dv_item *it = &dv->items[mid];
    int c = dv_cmp_key(&it->entry->partition, it->entry->bucket, it->range->data_file_name, part, bucket, file);
    if (c == 0) return it;
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return NULL;
}

static void dv_index_clear(dv_index *dv) {
  free(dv->items);
  pm_index_entries_clear(&dv->entries);
}

/* ------------------------------------------------------ split building */

typedef struct split_opts {
  int64_t target;
  int64_t open_cost;
  int64_t snapshot_id;
  int streaming;
} split_opts;

typedef struct plan_builder {
  pm_data_split **splits;
  size_t n, cap;
} plan_builder;

static int pb_push(plan_builder *pb, pm_data_split *s, pm_error *err) {
  if (pb->n == pb->cap) {
    size_t nc = pb->cap ? pb->cap * 2 : 16;
    pm_data_split **ns = realloc(pb->splits, nc * sizeof *ns);
    if (!ns) {
      pm_data_split_free(s);
      return PM_NOMEM(err);
    }
    pb->splits = ns;
    pb->cap = nc;
  }
  pb->splits[pb->n++] = s;
  return 0;
}

static int make_split(pm_table *t, const split_opts *so, const pm_manifest_entry *const *files, size_t n,
                      const char *bucket_path, const dv_index *dv, int raw, plan_builder *pb, pm_error *err) {
  pm_data_split *s = NULL;
  PM_TRY(pm_data_split_new(&s, err));
  const pm_manifest_entry *first = files[0];
  s->snapshot_id = so->snapshot_id;
  s->partition.data = pm_arena_memdup(&s->arena, first->partition.data, first->partition.len);
  s->partition.len = first->partition.len;
  s->bucket = first->bucket;
  s->bucket_path = pm_arena_strdup(&s->arena, bucket_path);
  s->total_buckets = first->total_buckets;
  s->has_total_buckets = 1;
  s->is_streaming = so->streaming;
  s->raw_convertible = raw;
  s->data_files = pm_arena_alloc(&s->arena, n * sizeof *s->data_files);
  if (!s->bucket_path || !s->data_files || (first->partition.len && !s->partition.data)) {
    pm_data_split_free(s);
    return PM_NOMEM(err);
  }
  for (size_t i = 0; i < n; i++) {
    int rc = pm_data_file_meta_copy(&files[i]->file, &s->data_files[i], &s->arena, err);
    if (rc) {
      pm_data_split_free(s);
      return rc;
    }
  }
  s->n_data_files = n;
  if (t->deletion_vectors && dv) {
    s->deletion_files = pm_arena_alloc(&s->arena, n * sizeof *s->deletion_files);
    if (!s->deletion_files) {
      pm_data_split_free(s);
      return PM_NOMEM(err);
    }
    for (size_t i = 0; i < n; i++) {
      pm_deletion_file *df = &s->deletion_files[i];
      memset(df, 0, sizeof *df);
      df->cardinality = -1;
      const dv_item *it = dv_find(dv, &files[i]->partition, files[i]->bucket, files[i]->file.file_name);
      if (!it) continue;
      char *path = NULL;
      int rc = pm_table_index_file_path(t, bucket_path, it->entry->index_file.file_name,
                                        it->entry->index_file.external_path, &path, err);
      if (rc) {
        pm_data_split_free(s);
        return rc;
      }
      df->path = pm_arena_strdup(&s->arena, path);
      free(path);
      if (!df->path) {
        pm_data_split_free(s);
        return PM_NOMEM(err);
      }
      df->offset = it->range->offset;
      df->length = it->range->length;
      df->cardinality = it->range->has_cardinality ? it->range->cardinality : -1;
    }
  }
  return pb_push(pb, s, err);
}

static int cmp_min_seq(const void *x, const void *y) {
  const pm_manifest_entry *a = *(const pm_manifest_entry *const *)x, *b = *(const pm_manifest_entry *const *)y;
  if (a->file.min_sequence_number != b->file.min_sequence_number)
    return a->file.min_sequence_number < b->file.min_sequence_number ? -1 : 1;
  return strcmp(a->file.file_name, b->file.file_name);
}

static int cmp_first_row_id(const void *x, const void *y) {
  const pm_manifest_entry *a = *(const pm_manifest_entry *const *)x, *b = *(const pm_manifest_entry *const *)y;
  int64_t fa = a->file.has_first_row_id ? a->file.first_row_id : INT64_MAX;
  int64_t fb = b->file.has_first_row_id ? b->file.first_row_id : INT64_MAX;
  if (fa != fb) return fa < fb ? -1 : 1;
  return cmp_min_seq(x, y);
}

/* Key comparison of BinaryRow keys (serialized form), nulls first. */
typedef struct key_cmp_ctx {
  pm_data_type **types;
  size_t n;
} key_cmp_ctx;

static int compare_keys(const key_cmp_ctx *k, const pm_bytes *a, const pm_bytes *b) {
  pm_binary_row ra, rb;
  pm_error e = {0};
  if (pm_binary_row_open_serialized(a->data, a->len, "_MIN_KEY", &ra, &e) ||
      pm_binary_row_open_serialized(b->data, b->len, "_MAX_KEY", &rb, &e))
    return 0;
  for (size_t i = 0; i < k->n && (int32_t)i < ra.arity && (int32_t)i < rb.arity; i++) {
    pm_value va, vb;
    if (pm_binary_row_get(&ra, (int32_t)i, k->types[i], &va, &e) || pm_binary_row_get(&rb, (int32_t)i, k->types[i], &vb, &e))
      return 0;
    if (va.kind == PM_V_NULL || vb.kind == PM_V_NULL) {
      if (va.kind != vb.kind) return va.kind == PM_V_NULL ? -1 : 1;
      continue;
    }
    int c = pm_value_compare(&va, &vb);
    if (c) return c < 0 ? -1 : 1;
  }
  return 0;
}


/* insertion-friendly merge sort with a context (qsort has none in C11) */
static void sort_by_keys(const key_cmp_ctx *k, const pm_manifest_entry **v, size_t n, const pm_manifest_entry **tmp) {
  if (n < 2) return;
  size_t h = n / 2;
  sort_by_keys(k, v, h, tmp);
  sort_by_keys(k, v + h, n - h, tmp);
  size_t i = 0, j = h, o = 0;
  while (i < h && j < n) {
    int c = compare_keys(k, &v[i]->file.min_key, &v[j]->file.min_key);
    if (c == 0) c = compare_keys(k, &v[i]->file.max_key, &v[j]->file.max_key);
    tmp[o++] = c <= 0 ? v[i++] : v[j++];
  }
  while (i < h) tmp[o++] = v[i++];
  while (j < n) tmp[o++] = v[j++];
  memcpy(v, tmp, n * sizeof *v);
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* Packs items [0, n) with weights into bins; emits split per bin. groups[i]
 * = start index of item i's files in files[], group_len[i] = count. */
static int pack_groups(pm_table *t, const split_opts *so, const pm_manifest_entry **files, const size_t *gstart,
                       const size_t *glen, const int64_t *weight, size_t ng, const char *bucket_path,
                       const dv_index *dv, int raw_mode, plan_builder *pb, pm_error *err) {
  /* raw_mode: 1 = every split raw, 0 = raw iff one group of one file without deletes, 2 = raw iff all groups single */
  size_t bin_start = 0;
  int64_t bin_w = 0;
  for (size_t g = 0; g <= ng; g++) {
    int close = g == ng || (g > bin_start && bin_w + weight[g] > so->target);
    if (close && g > bin_start) {
      size_t f0 = gstart[bin_start], nf = 0;
      int all_single = 1;
      for (size_t k = bin_start; k < g; k++) {
        nf += glen[k];
        if (glen[k] != 1) all_single = 0;
      }
      int raw;
      if (raw_mode == 1) raw = 1;
      else if (raw_mode == 2) raw = all_single;
      else raw = nf == 1 && files[f0]->file.has_delete_row_count && files[f0]->file.delete_row_count == 0;
      PM_TRY(make_split(t, so, files + f0, nf, bucket_path, dv, raw, pb, err));
      bin_start = g;
      bin_w = 0;
    }
    if (g < ng) bin_w += weight[g];
  }
  return 0;
}

/* Splits of one (partition, bucket). files is modifiable (sorted in place). */
static int split_bucket(scan_ctx *c, const split_opts *so, const pm_manifest_entry **files, size_t n,
                        const dv_index *dv, plan_builder *pb, pm_error *err) {
  pm_table *t = c->t;
  char *pdir = NULL, *bpath = NULL;
  int rc = pm_scan_partition_dir(t, files[0]->partition.data, files[0]->partition.len, &pdir, err);
  if (!rc) rc = pm_table_bucket_path(t, pdir, files[0]->bucket, &bpath, err);
  free(pdir);
  if (rc) return rc;
  size_t *gstart = calloc(n, sizeof *gstart), *glen = calloc(n, sizeof *glen);
  int64_t *w = calloc(n, sizeof *w);
  const pm_manifest_entry **tmp = calloc(n, sizeof *tmp);
  if (!gstart || !glen || !w || !tmp) rc = PM_NOMEM(err);
  size_t ng = 0;
  if (!rc && so->streaming && pm_table_has_pk(t)) {
    rc = make_split(t, so, files, n, bpath, dv, 1, pb, err);
  } else if (!rc && so->streaming && t->bucket_mode == PM_BUCKET_FIXED) {
    /* Java AppendOnlySplitGenerator.splitForStreaming: one split per bucket (unaware: as batch) */
    qsort(files, n, sizeof *files, cmp_min_seq);
    rc = make_split(t, so, files, n, bpath, dv, 1, pb, err);
  } else if (!rc && !pm_table_has_pk(t) && t->data_evolution) {
    qsort(files, n, sizeof *files, cmp_first_row_id);
    int64_t end = -1;
    for (size_t i = 0; i < n; i++) {
      const pm_data_file_meta *f = &files[i]->file;
      int64_t s = f->has_first_row_id ? f->first_row_id : -1;
      int blob = strlen(f->file_name) > 5 && !strcmp(f->file_name + strlen(f->file_name) - 5, ".blob");
      int64_t fw = blob ? so->open_cost : f->file_size;
      if (ng == 0 || s < 0 || s > end) {
        gstart[ng] = i;
        glen[ng] = 0;
        w[ng] = 0;
        ng++;
        end = -1;
      }
      glen[ng - 1]++;
      w[ng - 1] += fw;
      if (s >= 0 && s + f->row_count - 1 > end) end = s + f->row_count - 1;
    }
    for (size_t g = 0; g < ng; g++) w[g] = max64(w[g], so->open_cost);
    rc = pack_groups(t, so, files, gstart, glen, w, ng, bpath, dv, 2, pb, err);
  } else if (!rc && !pm_table_has_pk(t)) {
    qsort(files, n, sizeof *files, cmp_min_seq);
    for (size_t i = 0; i < n; i++) {
      gstart[i] = i;
      glen[i] = 1;
      w[i] = max64(files[i]->file.file_size, so->open_cost);
    }
    rc = pack_groups(t, so, files, gstart, glen, w, n, bpath, dv, 1, pb, err);
  } else if (!rc) {
    int raw_all = 1, same_level = 1;
    for (size_t i = 0; i < n; i++) {
      if (files[i]->file.level == 0 || (files[i]->file.has_delete_row_count && files[i]->file.delete_row_count != 0))
        raw_all = 0;
      if (files[i]->file.level != files[0]->file.level) same_level = 0;
    }
    if (raw_all && (t->deletion_vectors || t->merge_engine == PM_MERGE_FIRST_ROW || same_level)) {
      qsort(files, n, sizeof *files, cmp_min_seq);
      for (size_t i = 0; i < n; i++) {
        gstart[i] = i;
        glen[i] = 1;
        w[i] = max64(files[i]->file.file_size, so->open_cost);
      }
      rc = pack_groups(t, so, files, gstart, glen, w, n, bpath, dv, 1, pb, err);
    } else {
      key_cmp_ctx kc = {c->key_types, c->n_key};
      sort_by_keys(&kc, files, n, tmp);
      const pm_bytes *bound = NULL;
      for (size_t i = 0; i < n; i++) {
        if (ng == 0 || compare_keys(&kc, &files[i]->file.min_key, bound) > 0) {
          gstart[ng] = i;
          glen[ng] = 0;
          w[ng] = 0;
          ng++;
          bound = &files[i]->file.max_key;
        }
        glen[ng - 1]++;
        w[ng - 1] += files[i]->file.file_size;
        if (compare_keys(&kc, &files[i]->file.max_key, bound) > 0) bound = &files[i]->file.max_key;
      }
      for (size_t g = 0; g < ng; g++) w[g] = max64(w[g], so->open_cost);
      rc = pack_groups(t, so, files, gstart, glen, w, ng, bpath, dv, 0, pb, err);
    }
  }
  free(gstart);
  free(glen);
  free(w);
  free(tmp);
  free(bpath);
  return rc;
}

static int cmp_group(const void *x, const void *y) {
  const pm_manifest_entry *a = *(const pm_manifest_entry *const *)x, *b = *(const pm_manifest_entry *const *)y;
  if (a->partition.len != b->partition.len) return a->partition.len < b->partition.len ? -1 : 1;
  int c = a->partition.len ? memcmp(a->partition.data, b->partition.data, a->partition.len) : 0;
  if (c) return c;
  if (a->bucket != b->bucket) return a->bucket < b->bucket ? -1 : 1;
  return 0;
}

static int same_group(const pm_manifest_entry *a, const pm_manifest_entry *b) { return cmp_group(&a, &b) == 0; }

/* Stats pruning over the live files (in place); returns the new count. */
static int prune_by_stats(scan_ctx *c, const pm_manifest_entry **files, size_t *n, pm_error *err) {
  size_t k = 0;
  for (size_t i = 0; i < *n; i++) {
    const pm_manifest_entry *e = files[i];
    int ok = 1;
    if (c->key_pred) {
      PM_TRY(file_key_may_match(c, &e->file, err, &ok));
      if (!ok) {
        c->ex->files_pruned_key_stats++;
        continue;
      }
    }
    if (c->value_filter_per_file && c->filter) {
      PM_TRY(file_value_may_match(c, &e->file, err, &ok));
      if (!ok) {
        c->ex->files_pruned_value_stats++;
        continue;
      }
      /* append tables, and primary-key tables with deletion vectors (Java's KeyValueFileStoreScan) */
      if (c->t->co.file_index_read_enabled && (!pm_table_has_pk(c->t) || c->t->deletion_vectors)) {
        PM_TRY(file_index_may_match(c, &e->file, err, &ok));
        if (!ok) {
          c->ex->files_pruned_file_index++;
          continue;
        }
      }
    }
    files[k++] = e;
  }
  *n = k;
  if (!c->value_filter_whole_bucket || !c->filter) return 0;
  /* PK without per-file safety: keep a bucket if any of its files may match */
  qsort(files, *n, sizeof *files, cmp_group);
  size_t out = 0;
  for (size_t i = 0; i < *n;) {
    size_t j = i;
    int same_level = 1;
    while (j < *n && same_group(files[i], files[j])) {
      if (files[j]->file.level != files[i]->file.level) same_level = 0;
      j++;
    }
    if (j - i == 1 || (same_level && files[i]->file.level > 0)) {
      /* no two files share a key: each file can be judged alone */
      for (size_t m = i; m < j; m++) {
        int ok = 1;
        PM_TRY(file_value_may_match(c, &files[m]->file, err, &ok));
        if (ok) files[out++] = files[m];
        else c->ex->files_pruned_value_stats++;
      }
    } else {
      int any = 0;
      for (size_t m = i; m < j && !any; m++) PM_TRY(file_value_may_match(c, &files[m]->file, err, &any));
      if (any)
        for (size_t m = i; m < j; m++) files[out++] = files[m];
      else
        c->ex->files_pruned_bucket_stats += j - i;
    }
    i = j;
  }
  *n = out;
  return 0;
}

static int build_splits(scan_ctx *c, const split_opts *so, const pm_manifest_entry **files, size_t n,
                        const dv_index *dv, plan_builder *pb, pm_error *err) {
  qsort(files, n, sizeof *files, cmp_group);
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && same_group(files[i], files[j])) j++;
    PM_TRY(split_bucket(c, so, files + i, j - i, dv, pb, err));
    i = j;
  }
  return 0;
}

static int read_split_sizes(pm_table *t, split_opts *so, pm_error *err) {
  (void)err;
  so->target = t->co.split_target_size;
  so->open_cost = t->co.split_open_file_cost;
  if (so->target <= 0) so->target = DEFAULT_TARGET_SIZE;
  if (so->open_cost < 0) so->open_cost = 0;
  return 0;
}

static int64_t merged_row_count(const pm_data_split *s) {
  if (!s->raw_convertible) return -1;
  int64_t total = 0;
  for (size_t i = 0; i < s->n_data_files; i++) {
    int64_t card = 0;
    if (s->deletion_files && s->deletion_files[i].path) {
      if (s->deletion_files[i].cardinality < 0) return -1;
      card = s->deletion_files[i].cardinality;
    }
    total += s->data_files[i].row_count - card;
  }
  return total;
}

static void apply_limit(plan_builder *pb, int64_t limit, pm_scan_explain *ex) {
  if (limit < 0) return;
  int64_t acc = 0;
  size_t keep = 0;
  for (size_t i = 0; i < pb->n; i++) {
    if (limit == 0 || acc >= limit) break;
    keep = i + 1;
    int64_t m = merged_row_count(pb->splits[i]);
    if (m > 0) acc += m;
  }
  for (size_t i = keep; i < pb->n; i++) pm_data_split_free(pb->splits[i]);
  ex->splits_pruned_limit += pb->n - keep;
  pb->n = keep;
}

/* ------------------------------------------------------ batch planning */

/* §4.8 manifest-phase limit for PK tables: buckets whose files cannot
 * overlap (one file, or all at one level > 0) and hold no retracts contribute
 * files until `limit` rows are reached; then later buckets are dropped.
 * Overlapping buckets are kept whole and do not count. */
static void pk_limit_pushdown(scan_ctx *c, const pm_manifest_entry **files, size_t *n, int64_t limit) {
  pm_table *t = c->t;
  if (limit < 0 || !pm_table_has_pk(t) || t->deletion_vectors || t->merge_engine == PM_MERGE_PARTIAL_UPDATE ||
      t->merge_engine == PM_MERGE_AGGREGATION || c->has_data_filter)
    return;
  qsort(files, *n, sizeof *files, cmp_group);
  size_t out = 0;
  int64_t acc = 0;
  for (size_t i = 0; i < *n;) {
    size_t j = i;
    int same_level = 1, retracts = 0;
    while (j < *n && same_group(files[i], files[j])) {
      if (files[j]->file.level != files[i]->file.level) same_level = 0;
      if (!files[j]->file.has_delete_row_count || files[j]->file.delete_row_count > 0) retracts = 1;
      j++;
    }
    int no_overlap = (j - i == 1) || (same_level && files[i]->file.level > 0);
    if (!no_overlap || retracts) {
      for (size_t k = i; k < j; k++) files[out++] = files[k];
    } else if (acc < limit) {
      for (size_t k = i; k < j && acc < limit; k++) {
        files[out++] = files[k];
        acc += files[k]->file.row_count;
      }
    } else {
      c->ex->files_pruned_limit += j - i;
    }
    i = j;
  }
  *n = out;
}

/* Every schema id the data files refer to must exist: a damaged table fails at
 * planning with the manifest and the missing schema file named, not mid-read. */
static int check_schema_ids(pm_table *t, manifest_job *jobs, size_t nj, pm_error *err) {
  int64_t seen[16];
  size_t n_seen = 0;
  for (size_t j = 0; j < nj; j++)
    for (size_t k = 0; k < jobs[j].entries.n; k++) {
      const pm_manifest_entry *e = &jobs[j].entries.items[k];
      if (e->kind != PM_FILE_ADD) continue;
      int64_t id = e->file.schema_id;
      int known = 0;
      for (size_t i = 0; i < n_seen && !known; i++) known = seen[i] == id;
      if (known) continue;
      const pm_table_schema *s = NULL;
      int rc = pm_table_schema_by_id(t, id, &s, err);
      if (rc == PAIMON_ERR_NOT_FOUND) {
        char msg[PAIMON_ERROR_MESSAGE_SIZE];
        snprintf(msg, sizeof msg, "%s", err ? err->message : "");
        return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: data file %s refers to an unknown schema: %s", jobs[j].path,
                         e->file.file_name, msg);
      }
      if (rc) return rc;
      if (n_seen < sizeof seen / sizeof seen[0]) seen[n_seen++] = id;
    }
  return 0;
}

/* Postpone tables (Java): batch scans read real buckets only (AbstractBatchTableScan; our
 * postpone.merge-on-read batch reads aside), stream scans when a changelog producer is set
 * (DataTableStreamScan). */
static int stream_real_buckets_only(const pm_table *t) {
  return t->bucket_mode == PM_BUCKET_POSTPONE && t->changelog_producer != PM_CHANGELOG_NONE;
}

static int plan_snapshot_levels(pm_table *t, const pm_predicate *filter, const pm_snapshot *snap, int64_t limit,
                                int level_min, int stream, pm_scan_explain *ex, plan_builder *pb, pm_error *err) {
  scan_ctx c;
  int rc = setup_ctx(&c, t, filter, 0, ex, err);
  c.level_min = level_min;
  if (stream) c.real_buckets_only = stream_real_buckets_only(t);
  manifest_job *jobs = NULL;
  size_t nj = 0;
  const pm_manifest_entry **live = NULL;
  size_t n_live = 0;
  dv_index dv;
  memset(&dv, 0, sizeof dv);
  pm_index_entries_init(&dv.entries);
  if (!rc) {
    const char *lists[2] = {snap->base_manifest_list, snap->delta_manifest_list};
    rc = read_manifests(&c, lists, 2, 1, &jobs, &nj, err);
  }
  if (!rc) rc = merge_entries(&c, jobs, nj, &live, &n_live, err);
  if (!rc) rc = check_schema_ids(t, jobs, nj, err);
  if (!rc) {
    ex->files_live += n_live;
    rc = prune_by_stats(&c, live, &n_live, err);
  }
  int by_creation = t->co.set[PM_CO_SCAN_FILE_CREATION_TIME_MILLIS];
  int64_t min_time = t->co.scan_file_creation_time_millis;
  if (!rc && !by_creation && pm_scan_creation_mode(t)) { /* no starting snapshot: filter by file creation time */
    int64_t start = 0;
    rc = pm_scan_creation_start(t, &start, err);
    by_creation = !rc && start != snap->id;
    min_time = t->co.scan_creation_time_millis;
  }
  if (!rc && by_creation) {
    size_t k = 0;
    for (size_t i = 0; !rc && i < n_live; i++)
      if (!live[i]->file.has_creation_time || live[i]->file.creation_time_millis >= min_time) live[k++] = live[i];
    n_live = k;
  }
  if (!rc) pk_limit_pushdown(&c, live, &n_live, limit);
  if (!rc) rc = load_dv_index(t, snap, &dv, err);
  split_opts so = {0};
  if (!rc) rc = read_split_sizes(t, &so, err);
  so.snapshot_id = snap->id;
  if (!rc) rc = build_splits(&c, &so, live, n_live, &dv, pb, err);
  dv_index_clear(&dv);
  free(live);
  free_jobs(jobs, nj);
  scan_ctx_clear(&c);
  return rc;
}

static int plan_snapshot(pm_table *t, const pm_predicate *filter, const pm_snapshot *snap, int64_t limit,
                         pm_scan_explain *ex, plan_builder *pb, pm_error *err) {
  return plan_snapshot_levels(t, filter, snap, limit, 0, 0, ex, pb, err);
}

int pm_scan_live_files(pm_table *t, const pm_snapshot *snap, const pm_predicate *filter, pm_manifest_entries *out,
                       pm_error *err) {
  pm_scan_explain ex;
  memset(&ex, 0, sizeof ex);
  scan_ctx c;
  int rc = setup_ctx(&c, t, filter, 1, &ex, err);
  c.bucket_filter = 0;
  manifest_job *jobs = NULL;
  size_t nj = 0;
  const pm_manifest_entry **live = NULL;
  size_t n_live = 0;
  if (!rc) {
    const char *lists[2] = {snap->base_manifest_list, snap->delta_manifest_list};
    rc = read_manifests(&c, lists, 2, 0, &jobs, &nj, err);
  }
  if (!rc) rc = merge_entries(&c, jobs, nj, &live, &n_live, err);
  for (size_t i = 0; !rc && i < n_live; i++) rc = pm_manifest_entries_push(out, live[i], err);
  free(live);
  free_jobs(jobs, nj);
  scan_ctx_clear(&c);
  return rc;
}

static int partition_in_entries(const pm_manifest_entries *v, const pm_bytes *part) {
  for (size_t i = 0; i < v->n; i++)
    if (v->items[i].partition.len == part->len &&
        (!part->len || !memcmp(v->items[i].partition.data, part->data, part->len)))
      return 1;
  return 0;
}

/* Adds the splits of the scan.fallback-branch table whose partitions main (snapshot main_snap) does not have. */
static int plan_fallback(pm_table *t, const pm_predicate *filter, const pm_snapshot *main_snap,
                         pm_scan_explain *ex, plan_builder *pb, pm_error *err) {
  pm_manifest_entries main_live;
  pm_manifest_entries_init(&main_live);
  if (main_snap) PM_TRY(pm_scan_live_files(t, main_snap, filter, &main_live, err));
  pm_table *bt = NULL; /* the scan.fallback-branch table, borrowed from t */
  int rc = pm_table_fallback(t, &bt, err);
  if (rc) {
    pm_manifest_entries_clear(&main_live);
    return rc;
  }
  pm_snapshot *snap = NULL;
  int64_t latest = 0;
  pm_snapshot_manager fsm = pm_table_snapshots(bt);
  rc = pm_snapshot_latest_id(&fsm, &latest, err);
  if (!rc && latest > 0) rc = pm_snapshot_read(&fsm, latest, &snap, err);
  /* The filter is bound to main's schema; only reuse it when the field lists agree. */
  const pm_predicate *bf = filter;
  if (bf && bt->schema->n_fields != t->schema->n_fields) bf = NULL;
  for (size_t i = 0; bf && i < t->schema->n_fields; i++)
    if (bt->schema->fields[i].id != t->schema->fields[i].id ||
        strcmp(bt->schema->fields[i].name, t->schema->fields[i].name) ||
        bt->schema->fields[i].type->root != t->schema->fields[i].type->root)
      bf = NULL; /* different layout: plan the branch unfiltered (the reader still filters rows) */
  plan_builder other = {0};
  pm_scan_explain ex2;
  memset(&ex2, 0, sizeof ex2);
  if (!rc && snap) rc = plan_snapshot(bt, bf, snap, -1, &ex2, &other, err);
  for (size_t i = 0; i < other.n; i++) {
    if (!rc && !partition_in_entries(&main_live, &other.splits[i]->partition)) {
      rc = pb_push(pb, other.splits[i], err);
      if (!rc) ex->fallback_splits++;
      other.splits[i] = NULL;
    }
    pm_data_split_free(other.splits[i]);
  }
  free(other.splits);
  pm_snapshot_free(snap);
  pm_manifest_entries_clear(&main_live);
  return rc;
}

/* ------------------------------------------------------ incremental */

static int split_pair(const char *key, const char *val, char **a, char **b, pm_error *err) {
  const char *comma = strchr(val, ',');
  if (!comma) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option %s = '%s': expected 'start,end'", key, val);
  *a = strndup(val, (size_t)(comma - val));
  *b = strdup(comma + 1);
  if (!*a || !*b) {
    free(*a);
    free(*b);
    return PM_NOMEM(err);
  }
  for (char *p = *a + strlen(*a); p > *a && isspace((unsigned char)p[-1]);) *--p = 0;
  char *q = *b;
  while (isspace((unsigned char)*q)) q++;
  memmove(*b, q, strlen(q) + 1);
  return 0;
}

static int parse_time_bound(const char *s, int64_t *ms, pm_error *err) {
  if (all_digits(s)) return parse_i64(pm_core_option_key(PM_CO_INCREMENTAL_BETWEEN_TIMESTAMP), s, ms, err);
  return pm_parse_local_timestamp(s, ms, err);
}

/* What an incremental scan reads. */
typedef enum incr_kind {
  INCR_NONE = 0,  /* not an incremental scan */
  INCR_DELTA,     /* delta / changelog manifests of (start, end] (empty when start == end) */
  INCR_DIFF,      /* full file sets of `before` and `after` compared (§5.4) */
  INCR_FULL       /* a batch read of `after` (diff by timestamps starting before snapshot 1) */
} incr_kind;

typedef struct incr_spec {
  incr_kind kind;
  int64_t start, end; /* INCR_DELTA */
  int changelog;      /* INCR_DELTA */
  pm_snapshot *before, *after; /* INCR_DIFF / INCR_FULL: owned */
} incr_spec;

static void incr_spec_clear(incr_spec *s) {
  pm_snapshot_free(s->before);
  pm_snapshot_free(s->after);
  memset(s, 0, sizeof *s);
}

/* Tag lookup that distinguishes "no such tag" (*out = NULL, 0) from damage. */
static int tag_if_exists(pm_table *t, const char *name, pm_snapshot **out, pm_error *err) {
  *out = NULL;
  if (!*name || strchr(name, '/')) return 0;
  pm_error e2;
  pm_error_clear(&e2);
  int rc = pm_tag_read(SNAPS(t), name, out, &e2);
  if (rc == PAIMON_ERR_NOT_FOUND) {
    *out = NULL;
    return 0;
  }
  if (rc) *err = e2;
  return rc;
}

/* Diff between snapshot ids start (exclusive) and end: both must exist. */
static int diff_by_ids(pm_table *t, const char *ib, int64_t start, int64_t end, incr_spec *sp, pm_error *err) {
  char what[256];
  snprintf(what, sizeof what, "incremental-between = '%s' (diff)", ib);
  PM_TRY(read_snapshot_checked(t, start, what, &sp->before, err));
  PM_TRY(read_snapshot_checked(t, end, what, &sp->after, err));
  sp->kind = INCR_DIFF;
  return 0;
}

static int resolve_between_ids(pm_table *t, const char *ib, const char *a, const char *b, int diff_mode,
                               int64_t earliest, int64_t latest, incr_spec *sp, pm_error *err) {
  pm_snapshot *ta = NULL, *tb = NULL;
  int rc = tag_if_exists(t, a, &ta, err);
  if (!rc) rc = tag_if_exists(t, b, &tb, err);
  if (!rc && ta && tb) {
    /* two tags: diff between the tagged snapshots unless tag-to-snapshot asks for the delta path */
    int to_snapshot = t->co.incremental_tag_to_snapshot;
    if (!rc && to_snapshot) {
      if (diff_mode)
        rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED,
                       "incremental-between = '%s': incremental-between-scan-mode = diff is not supported with "
                       "incremental-between-tag-to-snapshot = true",
                       ib);
      sp->start = ta->id;
      sp->end = tb->id;
      if (!rc && (sp->start < earliest - 1 || sp->end > latest))
        rc = pm_errorf(err, PAIMON_ERR_NOT_FOUND,
                       "incremental-between = '%s': tag snapshots (%lld, %lld] are outside the available snapshots "
                       "[%lld, %lld]",
                       ib, (long long)sp->start, (long long)sp->end, (long long)earliest, (long long)latest);
      if (!rc && sp->end < sp->start) sp->end = sp->start;
      if (!rc) sp->kind = INCR_DELTA;
    } else if (!rc) {
      if (tb->id < ta->id) {
        rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                       "incremental-between = '%s': tag end '%s' (snapshot %lld) is before tag start '%s' (snapshot "
                       "%lld)",
                       ib, b, (long long)tb->id, a, (long long)ta->id);
      } else if (tb->id == ta->id) {
        sp->kind = INCR_DELTA;
        sp->start = sp->end = tb->id;
      } else {
        sp->kind = INCR_DIFF;
        sp->before = ta;
        sp->after = tb;
        ta = tb = NULL;
      }
    }
    pm_snapshot_free(ta);
    pm_snapshot_free(tb);
    return rc;
  }
  pm_snapshot_free(ta);
  pm_snapshot_free(tb);
  if (rc) return rc;
  if (!all_digits(a) || !all_digits(b))
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "incremental-between = '%s': '%s' and '%s' are not two tags of table %s.%s nor two snapshot ids",
                     ib, a, b, t->database, t->name);
  PM_TRY(parse_i64(pm_core_option_key(PM_CO_INCREMENTAL_BETWEEN), a, &sp->start, err));
  PM_TRY(parse_i64(pm_core_option_key(PM_CO_INCREMENTAL_BETWEEN), b, &sp->end, err));
  if (sp->end < sp->start)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "incremental-between = '%s': end %lld is before start %lld", ib,
                     (long long)sp->end, (long long)sp->start);
  sp->kind = INCR_DELTA;
  if (latest == 0 || sp->start == sp->end) {
    sp->end = sp->start; /* empty */
    return 0;
  }
  if (diff_mode) return diff_by_ids(t, ib, sp->start, sp->end, sp, err);
  if (sp->start < earliest - 1 || sp->end > latest)
    return pm_errorf(err, PAIMON_ERR_NOT_FOUND,
                     "incremental-between = '%s': range (%lld, %lld] is outside the available snapshots [%lld, %lld]",
                     ib, (long long)sp->start, (long long)sp->end, (long long)earliest, (long long)latest);
  return 0;
}

/* Diff between timestamps (Java IncrementalDiffStartingScanner.betweenTimestamps). */
static int resolve_diff_timestamps(pm_table *t, const char *ibt, int64_t ts0, int64_t ts1, int64_t earliest,
                                   int64_t latest, incr_spec *sp, pm_error *err) {
  sp->kind = INCR_DELTA; /* empty unless set below */
  if (ts1 < ts0)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "incremental-between-timestamp = '%s': end %lld is before start %lld", ibt, (long long)ts1,
                     (long long)ts0);
  if (latest == 0 || ts0 == ts1) return 0;
  pm_snapshot *first = NULL, *last = NULL;
  int rc = pm_snapshot_read(SNAPS(t), earliest, &first, err);
  if (!rc) rc = pm_snapshot_read(SNAPS(t), latest, &last, err);
  if (!rc && !(ts0 > last->time_millis || ts1 < first->time_millis)) {
    rc = pm_snapshot_read_at_or_before(SNAPS(t), ts0, &sp->before, err);
    if (!rc) rc = pm_snapshot_read_at_or_before(SNAPS(t), ts1, &sp->after, err);
    if (!rc && !sp->after) {
      sp->after = last;
      last = NULL;
    }
    if (!rc && !sp->before) {
      /* before the first snapshot: everything up to `after` (a batch read when nothing was expired) */
      if (first->id == 1) {
        sp->kind = INCR_FULL;
      } else {
        sp->before = first;
        first = NULL;
      }
    }
    if (!rc && sp->before) sp->kind = INCR_DIFF;
  }
  pm_snapshot_free(first);
  pm_snapshot_free(last);
  return rc;
}

/* What an incremental scan reads; sp->kind = INCR_NONE when not incremental. */
static int resolve_incremental(pm_table *t, incr_spec *sp, pm_error *err) {
  memset(sp, 0, sizeof *sp);
  const char *ib = t->co.incremental_between;
  const char *ibt = t->co.incremental_between_timestamp;
  const char *smode = t->co.set[PM_CO_SCAN_MODE] ? t->co.scan_mode : NULL;
  if (!ib && !ibt && smode && !strcmp(smode, "latest-delta")) {
    /* the changes of the latest snapshot only (nothing unless it is an APPEND) */
    int64_t latest = 0;
    PM_TRY(pm_snapshot_latest_id(SNAPS(t), &latest, err));
    sp->start = latest > 0 ? latest - 1 : 0;
    sp->end = latest;
    sp->kind = INCR_DELTA;
    return 0;
  }
  if (!ib && !ibt) return 0;
  if (ib && ibt)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "incremental-between and incremental-between-timestamp cannot both be set");
  pm_incremental_mode mode = t->co.incremental_between_scan_mode; /* validated by core_options */
  int diff_mode = 0;
  if (mode == PM_INCR_MODE_AUTO) sp->changelog = t->changelog_producer != PM_CHANGELOG_NONE;
  else if (mode == PM_INCR_MODE_DELTA) sp->changelog = 0;
  else if (mode == PM_INCR_MODE_CHANGELOG) sp->changelog = 1;
  else diff_mode = 1;
  char *a = NULL, *b = NULL;
  PM_TRY(split_pair(pm_core_option_key(ib ? PM_CO_INCREMENTAL_BETWEEN : PM_CO_INCREMENTAL_BETWEEN_TIMESTAMP), ib ? ib : ibt,
                    &a, &b, err));
  int rc = 0;
  int64_t earliest = 0, latest = 0;
  rc = pm_snapshot_earliest_id(SNAPS(t), &earliest, err);
  if (!rc) rc = pm_snapshot_latest_id(SNAPS(t), &latest, err);
  if (!rc && ib) {
    rc = resolve_between_ids(t, ib, a, b, diff_mode, earliest, latest, sp, err);
  } else if (!rc) {
    int64_t ts0, ts1;
    rc = parse_time_bound(a, &ts0, err);
    if (!rc) rc = parse_time_bound(b, &ts1, err);
    if (!rc && diff_mode) {
      rc = resolve_diff_timestamps(t, ibt, ts0, ts1, earliest, latest, sp, err);
    } else if (!rc) {
      pm_snapshot *s0 = NULL, *s1 = NULL;
      rc = pm_snapshot_read_at_or_before(SNAPS(t), ts0, &s0, err);
      if (!rc) rc = pm_snapshot_read_at_or_before(SNAPS(t), ts1, &s1, err);
      if (!rc) {
        sp->kind = INCR_DELTA;
        sp->start = s0 ? s0->id : earliest - 1;
        sp->end = s1 ? s1->id : earliest - 1;
        if (ts0 >= ts1 || sp->end <= sp->start) sp->end = sp->start;
      }
      pm_snapshot_free(s0);
      pm_snapshot_free(s1);
    }
  }
  free(a);
  free(b);
  if (rc) incr_spec_clear(sp);
  return rc;
}

/* Streaming splits of the ADD entries of manifest lists lists[0..n) (NULL entries are skipped). */
static int plan_lists(pm_table *t, const pm_predicate *filter, const char *const *lists, size_t n_lists,
                      int64_t snapshot_id, int stream, pm_scan_explain *ex, plan_builder *pb, pm_error *err) {
  scan_ctx c;
  int rc = setup_ctx(&c, t, filter, 1, ex, err);
  c.real_buckets_only = stream ? stream_real_buckets_only(t) : t->bucket_mode == PM_BUCKET_POSTPONE;
  manifest_job **all_jobs = NULL;
  size_t *all_n = NULL;
  if (!rc && n_lists) {
    all_jobs = calloc(n_lists, sizeof *all_jobs);
    all_n = calloc(n_lists, sizeof *all_n);
    if (!all_jobs || !all_n) rc = PM_NOMEM(err);
  }
  size_t total = 0;
  for (size_t i = 0; !rc && i < n_lists; i++) {
    if (lists[i]) rc = read_manifests(&c, &lists[i], 1, 0, &all_jobs[i], &all_n[i], err);
    for (size_t k = 0; !rc && k < all_n[i]; k++) total += all_jobs[i][k].entries.n;
  }
  const pm_manifest_entry **files = NULL;
  size_t n = 0;
  if (!rc) {
    files = calloc(total ? total : 1, sizeof *files);
    if (!files) rc = PM_NOMEM(err);
  }
  for (size_t i = 0; !rc && i < n_lists; i++)
    for (size_t k = 0; k < all_n[i]; k++)
      for (size_t e = 0; e < all_jobs[i][k].entries.n; e++)
        if (all_jobs[i][k].entries.items[e].kind == PM_FILE_ADD) files[n++] = &all_jobs[i][k].entries.items[e];
  if (!rc) {
    ex->files_live += n;
    if (c.key_pred) rc = prune_by_stats(&c, files, &n, err);
  }
  split_opts so = {0};
  if (!rc) rc = read_split_sizes(t, &so, err);
  so.snapshot_id = snapshot_id;
  so.streaming = 1;
  if (!rc) rc = build_splits(&c, &so, files, n, NULL, pb, err);
  free(files);
  for (size_t i = 0; i < n_lists && all_jobs; i++) free_jobs(all_jobs[i], all_n[i]);
  free(all_jobs);
  free(all_n);
  scan_ctx_clear(&c);
  return rc;
}

static int plan_incremental(pm_table *t, const pm_predicate *filter, int64_t start, int64_t end, int changelog,
                            pm_scan_explain *ex, plan_builder *pb, pm_error *err) {
  size_t n_snaps = end > start ? (size_t)(end - start) : 0;
  pm_snapshot **snaps = n_snaps ? calloc(n_snaps, sizeof *snaps) : NULL;
  const char **lists = n_snaps ? calloc(n_snaps, sizeof *lists) : NULL;
  int rc = n_snaps && (!snaps || !lists) ? PM_NOMEM(err) : 0;
  for (size_t i = 0; !rc && i < n_snaps; i++) {
    rc = pm_snapshot_read(SNAPS(t), start + 1 + (int64_t)i, &snaps[i], err);
    if (rc) break;
    const char *kind = snaps[i]->commit_kind ? snaps[i]->commit_kind : "";
    if (!changelog && !strcmp(kind, "APPEND")) lists[i] = snaps[i]->delta_manifest_list;
    if (changelog && strcmp(kind, "OVERWRITE")) lists[i] = snaps[i]->changelog_manifest_list;
  }
  if (!rc) rc = plan_lists(t, filter, lists, n_snaps, end, 0, ex, pb, err);
  for (size_t i = 0; i < n_snaps && snaps; i++) pm_snapshot_free(snaps[i]);
  free(snaps);
  free(lists);
  return rc;
}

/* Wraps a plan_builder into a pm_plan of snapshot snap_id (the builder's splits move into it). */
static int plan_from_builder(plan_builder *pb, int64_t snap_id, const char *kind, double t0, pm_plan **out,
                             pm_error *err) {
  pm_plan *plan = calloc(1, sizeof *plan);
  if (!plan) {
    for (size_t i = 0; i < pb->n; i++) pm_data_split_free(pb->splits[i]);
    free(pb->splits);
    return PM_NOMEM(err);
  }
  plan->snapshot_id = snap_id;
  plan->has_snapshot = snap_id > 0;
  plan->splits = pb->splits;
  plan->n_splits = pb->n;
  plan->fallback_start = pb->n;
  snprintf(plan->explain.scan_kind, sizeof plan->explain.scan_kind, "%s", kind);
  plan->explain.snapshot_id = snap_id;
  plan->explain.splits = pb->n;
  for (size_t i = 0; i < pb->n; i++) plan->explain.files_planned += pb->splits[i]->n_data_files;
  plan->explain.millis = now_ms() - t0;
  *out = plan;
  return 0;
}

int pm_scan_plan_stream_full(pm_table *t, const pm_predicate *filter, const pm_snapshot *snap, int level_min,
                             pm_plan **out, pm_error *err) {
  *out = NULL;
  PM_TRY(pm_table_options_ok(t, err));
  double t0 = now_ms();
  plan_builder pb = {0};
  pm_scan_explain ex;
  memset(&ex, 0, sizeof ex);
  int rc = plan_snapshot_levels(t, filter, snap, -1, level_min, 1, &ex, &pb, err);
  if (rc) {
    for (size_t i = 0; i < pb.n; i++) pm_data_split_free(pb.splits[i]);
    free(pb.splits);
    return rc;
  }
  PM_TRY(plan_from_builder(&pb, snap->id, "stream-full", t0, out, err));
  ex.snapshot_id = (*out)->explain.snapshot_id;
  ex.splits = (*out)->explain.splits;
  ex.files_planned = (*out)->explain.files_planned;
  ex.millis = (*out)->explain.millis;
  snprintf(ex.scan_kind, sizeof ex.scan_kind, "stream-full");
  (*out)->explain = ex;
  return 0;
}

int pm_scan_plan_stream_delta(pm_table *t, const pm_predicate *filter, const pm_snapshot *snap, int changelog,
                              pm_plan **out, pm_error *err) {
  *out = NULL;
  PM_TRY(pm_table_options_ok(t, err));
  double t0 = now_ms();
  plan_builder pb = {0};
  pm_scan_explain ex;
  memset(&ex, 0, sizeof ex);
  const char *list = changelog ? snap->changelog_manifest_list : snap->delta_manifest_list;
  int rc = plan_lists(t, filter, &list, 1, snap->id, 1, &ex, &pb, err);
  if (rc) {
    for (size_t i = 0; i < pb.n; i++) pm_data_split_free(pb.splits[i]);
    free(pb.splits);
    return rc;
  }
  PM_TRY(plan_from_builder(&pb, snap->id, changelog ? "stream-changelog" : "stream-delta", t0, out, err));
  ex.snapshot_id = (*out)->explain.snapshot_id;
  ex.splits = (*out)->explain.splits;
  ex.files_planned = (*out)->explain.files_planned;
  ex.millis = (*out)->explain.millis;
  snprintf(ex.scan_kind, sizeof ex.scan_kind, "%s", changelog ? "stream-changelog" : "stream-delta");
  (*out)->explain = ex;
  return 0;
}

/* ------------------------------------------------------ incremental diff */

/* Live files of one side of a diff, sorted by (partition, bucket), and its DVs. */
typedef struct diff_side {
  manifest_job *jobs;
  size_t nj;
  const pm_manifest_entry **live;
  size_t n;
  dv_index dv;
} diff_side;

static void diff_side_clear(diff_side *d) {
  dv_index_clear(&d->dv);
  free(d->live);
  free_jobs(d->jobs, d->nj);
}

static int diff_side_load(scan_ctx *c, const pm_snapshot *snap, diff_side *d, pm_error *err) {
  memset(d, 0, sizeof *d);
  pm_index_entries_init(&d->dv.entries);
  const char *lists[2] = {snap->base_manifest_list, snap->delta_manifest_list};
  PM_TRY(read_manifests(c, lists, 2, 1, &d->jobs, &d->nj, err));
  PM_TRY(merge_entries(c, d->jobs, d->nj, &d->live, &d->n, err));
  PM_TRY(check_schema_ids(c->t, d->jobs, d->nj, err));
  PM_TRY(load_dv_index(c->t, snap, &d->dv, err));
  qsort(d->live, d->n, sizeof *d->live, cmp_group);
  c->ex->files_live += d->n;
  return 0;
}

static int cmp_partition(const pm_manifest_entry *a, const pm_manifest_entry *b) {
  if (a->partition.len != b->partition.len) return a->partition.len < b->partition.len ? -1 : 1;
  return a->partition.len ? memcmp(a->partition.data, b->partition.data, a->partition.len) : 0;
}

/* Total buckets of the first entry of v[i..n) in the same partition that has one; -1 if none. */
static int32_t partition_total_buckets(const pm_manifest_entry *const *v, size_t i, size_t n) {
  for (size_t k = i; k < n && cmp_partition(v[k], v[i]) == 0; k++)
    if (v[k]->total_buckets >= 0) return v[k]->total_buckets;
  return -1;
}

/* Java refuses diffs across a bucket rescale of a partition (TimeTravelUtil). */
static int check_diff_buckets(pm_table *t, const diff_side *b, const diff_side *a, int64_t bid, int64_t aid,
                              pm_error *err) {
  if (t->bucket_mode != PM_BUCKET_FIXED) return 0;
  size_t i = 0, j = 0;
  while (i < b->n && j < a->n) {
    int c = cmp_partition(b->live[i], a->live[j]);
    if (c == 0) {
      int32_t tb = partition_total_buckets(b->live, i, b->n), ta = partition_total_buckets(a->live, j, a->n);
      if (tb >= 0 && ta >= 0 && tb != ta)
        return pm_errorf(err, PAIMON_ERR_UNSUPPORTED,
                         "incremental diff between snapshots %lld and %lld: the bucket number of a partition differs "
                         "(%d, %d), which is not supported in incremental diff queries",
                         (long long)bid, (long long)aid, (int)tb, (int)ta);
    }
    const pm_manifest_entry *p = c <= 0 ? b->live[i] : a->live[j];
    while (i < b->n && cmp_partition(b->live[i], p) == 0) i++;
    while (j < a->n && cmp_partition(a->live[j], p) == 0) j++;
  }
  return 0;
}

/* Copies files (and, with DVs, their deletion files) into the split's arena. */
static int diff_copy_files(pm_table *t, const char *bucket_path, const pm_manifest_entry *const *files, size_t n,
                           const dv_index *dv, pm_arena *arena, pm_data_file_meta **out, pm_deletion_file **out_dv,
                           pm_error *err) {
  *out = pm_arena_alloc(arena, (n + 1) * sizeof **out);
  if (!*out) return PM_NOMEM(err);
  for (size_t i = 0; i < n; i++) PM_TRY(pm_data_file_meta_copy(&files[i]->file, &(*out)[i], arena, err));
  *out_dv = NULL;
  if (!t->deletion_vectors) return 0;
  *out_dv = pm_arena_alloc(arena, (n + 1) * sizeof **out_dv);
  if (!*out_dv) return PM_NOMEM(err);
  for (size_t i = 0; i < n; i++) {
    pm_deletion_file *df = &(*out_dv)[i];
    memset(df, 0, sizeof *df);
    df->cardinality = -1;
    const dv_item *it = dv_find(dv, &files[i]->partition, files[i]->bucket, files[i]->file.file_name);
    if (!it) continue;
    char *path = NULL;
    PM_TRY(pm_table_index_file_path(t, bucket_path, it->entry->index_file.file_name, it->entry->index_file.external_path,
                                    &path, err));
    df->path = pm_arena_strdup(arena, path);
    free(path);
    if (!df->path) return PM_NOMEM(err);
    df->offset = it->range->offset;
    df->length = it->range->length;
    df->cardinality = it->range->has_cardinality ? it->range->cardinality : -1;
  }
  return 0;
}

typedef struct diff_builder {
  pm_split **splits;
  size_t n, cap;
} diff_builder;

/* One IncrementalSplit for a (partition, bucket): before[0..nb) and after[0..na),
 * files present on both sides removed from both (as Java's deduplicate). */
static int diff_bucket_split(pm_table *t, int64_t snapshot_id, const pm_manifest_entry **before, size_t nb,
                             const pm_manifest_entry **after, size_t na, const diff_side *sb, const diff_side *sa,
                             int streaming, diff_builder *db, pm_error *err) {
  const pm_manifest_entry *first = na ? after[0] : before[0];
  int32_t total = first->total_buckets;
  /* deduplicate (quadratic only in the files of one bucket; buckets are small) */
  size_t kb = 0, ka = na;
  uint8_t *common_after = calloc(na + 1, 1);
  if (!common_after) return PM_NOMEM(err);
  for (size_t i = 0; i < nb; i++) {
    int common = 0;
    for (size_t j = 0; j < na && !common; j++)
      if (!common_after[j] && pm_file_entry_same(before[i], after[j])) common = 1, common_after[j] = 1;
    if (!common) before[kb++] = before[i];
  }
  ka = 0;
  for (size_t j = 0; j < na; j++)
    if (!common_after[j]) after[ka++] = after[j];
  free(common_after);

  char *pdir = NULL, *bpath = NULL;
  int rc = pm_scan_partition_dir(t, first->partition.data, first->partition.len, &pdir, err);
  if (!rc) rc = pm_table_bucket_path(t, pdir, first->bucket, &bpath, err);
  free(pdir);
  pm_split *s = NULL;
  if (!rc && !(s = calloc(1, sizeof *s))) rc = PM_NOMEM(err);
  if (!rc) {
    pm_arena_init(&s->arena);
    s->type = PM_SPLIT_INCREMENTAL;
    pm_incremental_split *x = &s->incremental;
    x->snapshot_id = snapshot_id;
    x->partition.len = first->partition.len;
    /* len + 1 bytes (never empty), copying only the len the entry holds */
    uint8_t *pd = pm_arena_alloc(&s->arena, first->partition.len + 1);
    if (pd && first->partition.len) memcpy(pd, first->partition.data, first->partition.len);
    x->partition.data = pd;
    x->bucket = first->bucket;
    x->total_buckets = total;
    x->is_streaming = streaming;
    if (!x->partition.data) rc = PM_NOMEM(err);
    if (!rc)
      rc = diff_copy_files(t, bpath, before, kb, &sb->dv, &s->arena, &x->before_files, &x->before_deletion_files, err);
    if (!rc) x->n_before_files = kb;
    if (!rc)
      rc = diff_copy_files(t, bpath, after, ka, &sa->dv, &s->arena, &x->after_files, &x->after_deletion_files, err);
    if (!rc) x->n_after_files = ka;
    if (!rc && streaming) x->before_deletion_files = x->after_deletion_files = NULL; /* as Java: none */
  }
  free(bpath);
  if (!rc && db->n == db->cap) {
    size_t nc = db->cap ? db->cap * 2 : 16;
    pm_split **ns = realloc(db->splits, nc * sizeof *ns);
    if (!ns) rc = PM_NOMEM(err);
    else db->splits = ns, db->cap = nc;
  }
  if (rc) {
    pm_split_free(s);
    return rc;
  }
  db->splits[db->n++] = s;
  return 0;
}

/* IncrementalSplits comparing the full file sets of `before` and `after`
 * (Java SnapshotReaderImpl.readIncrementalDiff): partition and bucket
 * pruning apply to both sides; no stats pruning (the reader filters rows). */
static int plan_diff(pm_table *t, const pm_predicate *filter, const pm_snapshot *before, const pm_snapshot *after,
                     pm_scan_explain *ex, diff_builder *db, pm_error *err) {
  scan_ctx c;
  diff_side sb, sa;
  memset(&sb, 0, sizeof sb);
  memset(&sa, 0, sizeof sa);
  pm_index_entries_init(&sb.dv.entries);
  pm_index_entries_init(&sa.dv.entries);
  int rc = setup_ctx(&c, t, filter, 0, ex, err);
  if (!rc) rc = diff_side_load(&c, before, &sb, err);
  if (!rc) rc = diff_side_load(&c, after, &sa, err);
  if (!rc) rc = check_diff_buckets(t, &sb, &sa, before->id, after->id, err);
  size_t i = 0, j = 0;
  while (!rc && (i < sb.n || j < sa.n)) {
    int cg = i >= sb.n ? 1 : j >= sa.n ? -1 : cmp_group(&sb.live[i], &sa.live[j]);
    size_t ie = i, je = j;
    if (cg <= 0)
      while (ie < sb.n && same_group(sb.live[ie], sb.live[i])) ie++;
    if (cg >= 0)
      while (je < sa.n && same_group(sa.live[je], sa.live[j])) je++;
    rc = diff_bucket_split(t, after->id, sb.live + i, ie - i, sa.live + j, je - j, &sb, &sa, 0, db, err);
    i = ie;
    j = je;
  }
  diff_side_clear(&sb);
  diff_side_clear(&sa);
  scan_ctx_clear(&c);
  return rc;
}

/* Java SnapshotReaderImpl.readChanges (streaming OVERWRITE of a primary-key table): the DELETE
 * entries of snap's delta are the before files, its ADD entries the after files, one streaming
 * IncrementalSplit per (partition, bucket), files on both sides dropped. */
int pm_scan_plan_stream_changes(pm_table *t, const pm_predicate *filter, const pm_snapshot *snap, pm_plan **out,
                                pm_error *err) {
  *out = NULL;
  PM_TRY(pm_table_options_ok(t, err));
  double t0 = now_ms();
  pm_plan *plan = calloc(1, sizeof *plan);
  if (!plan) return PM_NOMEM(err);
  scan_ctx c;
  diff_side empty;
  memset(&empty, 0, sizeof empty);
  pm_index_entries_init(&empty.dv.entries);
  diff_builder db = {0};
  manifest_job *jobs = NULL;
  size_t nj = 0, total = 0, nb = 0, na = 0;
  const pm_manifest_entry **before = NULL, **after = NULL;
  int rc = setup_ctx(&c, t, filter, 1, &plan->explain, err);
  const char *list = snap->delta_manifest_list;
  if (!rc && list) rc = read_manifests(&c, &list, 1, 0, &jobs, &nj, err);
  for (size_t k = 0; !rc && k < nj; k++) total += jobs[k].entries.n;
  if (!rc) {
    before = calloc(total + 1, sizeof *before);
    after = calloc(total + 1, sizeof *after);
    if (!before || !after) rc = PM_NOMEM(err);
  }
  for (size_t k = 0; !rc && k < nj; k++)
    for (size_t e = 0; e < jobs[k].entries.n; e++) {
      const pm_manifest_entry *me = &jobs[k].entries.items[e];
      if (me->kind == PM_FILE_ADD) after[na++] = me;
      else before[nb++] = me;
    }
  if (!rc) {
    qsort(before, nb, sizeof *before, cmp_group);
    qsort(after, na, sizeof *after, cmp_group);
  }
  size_t i = 0, j = 0;
  while (!rc && (i < nb || j < na)) {
    int cg = i >= nb ? 1 : j >= na ? -1 : cmp_group(&before[i], &after[j]);
    size_t ie = i, je = j;
    if (cg <= 0)
      while (ie < nb && same_group(before[ie], before[i])) ie++;
    if (cg >= 0)
      while (je < na && same_group(after[je], after[j])) je++;
    rc = diff_bucket_split(t, snap->id, before + i, ie - i, after + j, je - j, &empty, &empty, 1, &db, err);
    i = ie;
    j = je;
  }
  free(before);
  free(after);
  free_jobs(jobs, nj);
  scan_ctx_clear(&c);
  diff_side_clear(&empty);
  if (rc) {
    for (size_t k = 0; k < db.n; k++) pm_split_free(db.splits[k]);
    free(db.splits);
    free(plan);
    return rc;
  }
  plan->snapshot_id = snap->id;
  plan->has_snapshot = 1;
  plan->incremental_splits = db.splits;
  plan->n_incremental_splits = db.n;
  snprintf(plan->explain.scan_kind, sizeof plan->explain.scan_kind, "stream-overwrite-changes");
  plan->explain.snapshot_id = snap->id;
  plan->explain.splits = db.n;
  for (size_t k = 0; k < db.n; k++)
    plan->explain.files_planned += db.splits[k]->incremental.n_before_files + db.splits[k]->incremental.n_after_files;
  plan->explain.millis = now_ms() - t0;
  *out = plan;
  return 0;
}

/* ------------------------------------------------------ entry point */

static int has_non_partition_filter(const pm_table *t, const pm_predicate *filter) {
  size_t nf = t->schema->n_fields;
  int32_t map[256];
  if (nf > 256) return 1;
  for (size_t i = 0; i < nf; i++) map[i] = -1;
  for (size_t k = 0; k < t->n_partition_keys; k++) {
    int idx = pm_schema_field_index(t->schema, t->partition_keys[k]);
    if (idx >= 0) map[idx] = (int32_t)k;
  }
  return !pm_pred_only_fields(filter, map, nf);
}

int pm_scan_plan(pm_table *t, const pm_predicate *filter, int64_t limit, pm_plan **out, pm_error *err) {
  return pm_scan_plan_ex(t, filter, limit, 0, out, err);
}

int pm_scan_plan_ex(pm_table *t, const pm_predicate *filter, int64_t limit, int accept_incremental_splits,
                    pm_plan **out, pm_error *err) {
  *out = NULL;
  PM_TRY(pm_table_options_ok(t, err));
  double t0 = now_ms();
  pm_plan *plan = calloc(1, sizeof *plan);
  if (!plan) return PM_NOMEM(err);
  plan_builder pb = {0};
  diff_builder db = {0};
  incr_spec sp;
  int rc = resolve_incremental(t, &sp, err);
  if (!rc && sp.kind == INCR_DIFF && !accept_incremental_splits)
    rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED,
                   "%s.%s: this incremental query has diff semantics (incremental-between-scan-mode = diff, or two "
                   "tags) and plans IncrementalSplits, which this caller cannot read",
                   t->database, t->name);
  if (!rc && sp.kind == INCR_DELTA) {
    snprintf(plan->explain.scan_kind, sizeof plan->explain.scan_kind, "%s",
             sp.changelog ? "incremental-changelog" : "incremental-delta");
    rc = plan_incremental(t, filter, sp.start, sp.end, sp.changelog, &plan->explain, &pb, err);
    plan->snapshot_id = sp.end;
    plan->has_snapshot = sp.end > 0;
  } else if (!rc && sp.kind == INCR_DIFF) {
    snprintf(plan->explain.scan_kind, sizeof plan->explain.scan_kind, "incremental-diff");
    rc = plan_diff(t, filter, sp.before, sp.after, &plan->explain, &db, err);
    plan->snapshot_id = sp.after->id;
    plan->has_snapshot = 1;
  } else if (!rc && sp.kind == INCR_FULL) {
    snprintf(plan->explain.scan_kind, sizeof plan->explain.scan_kind, "batch");
    plan->snapshot_id = sp.after->id;
    plan->has_snapshot = 1;
    rc = plan_snapshot(t, filter, sp.after, -1, &plan->explain, &pb, err);
  } else if (!rc) {
    pm_snapshot *snap = NULL;
    rc = pm_scan_resolve_snapshot(t, &snap, err);
    if (!rc && snap) {
      snprintf(plan->explain.scan_kind, sizeof plan->explain.scan_kind, "batch");
      plan->snapshot_id = snap->id;
      plan->has_snapshot = 1;
      rc = plan_snapshot(t, filter, snap, limit, &plan->explain, &pb, err);
    } else if (!rc) {
      snprintf(plan->explain.scan_kind, sizeof plan->explain.scan_kind, "empty");
    }
    const char *fb = t->co.scan_fallback_branch;
    plan->fallback_start = pb.n;
    if (!rc && fb && *fb && !strcmp(t->branch, "main") && strcmp(fb, "main")) {
      rc = plan_fallback(t, filter, snap, &plan->explain, &pb, err);
      if (!rc && pb.n > plan->fallback_start && !(plan->fallback_branch = strdup(fb))) rc = PM_NOMEM(err);
    }
    pm_snapshot_free(snap);
  }
  incr_spec_clear(&sp);
  if (!rc && !(filter && has_non_partition_filter(t, filter))) apply_limit(&pb, limit, &plan->explain);
  if (rc) {
    for (size_t i = 0; i < pb.n; i++) pm_data_split_free(pb.splits[i]);
    free(pb.splits);
    for (size_t i = 0; i < db.n; i++) pm_split_free(db.splits[i]);
    free(db.splits);
    free(plan->fallback_branch);
    free(plan);
    return rc;
  }
  plan->splits = pb.splits;
  plan->n_splits = pb.n;
  plan->incremental_splits = db.splits;
  plan->n_incremental_splits = db.n;
  if (!plan->fallback_branch || plan->fallback_start > pb.n) plan->fallback_start = pb.n;
  plan->explain.snapshot_id = plan->snapshot_id;
  plan->explain.splits = pb.n;
  for (size_t i = 0; i < pb.n; i++) plan->explain.files_planned += pb.splits[i]->n_data_files;
  plan->explain.splits += db.n;
  for (size_t i = 0; i < db.n; i++)
    plan->explain.files_planned += db.splits[i]->incremental.n_before_files + db.splits[i]->incremental.n_after_files;
  plan->explain.millis = now_ms() - t0;
  *out = plan;
  return 0;
}

int pm_scan_explain_format(const pm_scan_explain *e, pm_buf *out, pm_error *err) {
  char buf[4096];
  int n = snprintf(buf, sizeof buf,
                   "scan: %s\n"
                   "snapshot: %lld\n"
                   "manifest lists read: %zu\n"
                   "manifests: %zu listed, %zu read, %zu pruned by partition stats, %zu pruned by bucket range, "
                   "%zu pruned by level, %zu empty\n"
                   "entries: %zu read, %zu pruned by partition, %zu pruned by bucket, %zu pruned by level, "
                   "%zu deleted\n"
                   "files: %zu live, %zu pruned by key stats, %zu pruned by value stats, %zu pruned with their bucket, "
                   "%zu pruned by file index, %zu pruned by limit, %zu planned\n"
                   "splits: %zu (%zu dropped by limit, %zu from fallback branch)\n"
                   "planning time: %.3f ms\n",
                   e->scan_kind, (long long)e->snapshot_id, e->manifest_lists_read, e->manifests_total,
                   e->manifests_read, e->manifests_pruned_partition, e->manifests_pruned_bucket,
                   e->manifests_pruned_level, e->manifests_skipped_no_adds, e->entries_total,
                   e->entries_pruned_partition, e->entries_pruned_bucket, e->entries_pruned_level,
                   e->entries_deleted, e->files_live, e->files_pruned_key_stats, e->files_pruned_value_stats,
                   e->files_pruned_bucket_stats, e->files_pruned_file_index, e->files_pruned_limit, e->files_planned, e->splits, e->splits_pruned_limit,
                   e->fallback_splits, e->millis);
  if (n < 0) return pm_errorf(err, PAIMON_ERR_INTERNAL, "explain formatting failed");
  return pm_buf_append(out, buf, strlen(buf)) ? PM_NOMEM(err) : 0;
}
