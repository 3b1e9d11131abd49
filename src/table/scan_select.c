/* Row positions, row ranges and shards on planned splits (scan_select.h). */
#include "table/scan_select.h"

#include <stdlib.h>
#include <string.h>

void pm_scan_selection_clear(pm_scan_selection *s) {
  if (!s) return;
  free(s->row_ranges);
  memset(s, 0, sizeof *s);
}

int pm_scan_selection_active(const pm_scan_selection *s) {
  return s && (s->positions != PM_POSITIONS_NONE || s->has_row_ranges || s->has_bucket_shard);
}

static const char *table_name(const pm_table *t, char *buf, size_t cap) {
  snprintf(buf, cap, "%s.%s", t->database, t->name);
  return buf;
}

static int positions_allowed(const pm_table *t, const char *what, pm_error *err) {
  char nb[512];
  if (pm_table_has_pk(t))
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED,
                     "%s: table %s has a primary key: row positions select rows of append and data-evolution tables "
                     "only (use the bucket shard, with_shard, on primary-key tables)",
                     what, table_name(t, nb, sizeof nb));
  return 0;
}

static int exclusive(const pm_scan_selection *s, const char *what, pm_error *err) {
  if (s->positions == PM_POSITIONS_SLICE)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "%s: the scan already selects the row-position slice [%lld, %lld); a slice and a shard are "
                     "mutually exclusive",
                     what, (long long)s->start, (long long)s->end);
  if (s->positions == PM_POSITIONS_SHARD)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "%s: the scan already selects row-position shard %lld of %lld; a slice and a shard are mutually "
                     "exclusive",
                     what, (long long)s->index, (long long)s->count);
  return 0;
}

int pm_scan_selection_set_slice(const pm_table *t, pm_scan_selection *s, int64_t start, int64_t end, pm_error *err) {
  static const char what[] = "with_row_position_slice";
  if (start < 0)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: start %lld is negative (positions count from 0)", what,
                     (long long)start);
  if (start >= end)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: start %lld must be less than end %lld (a half-open range)",
                     what, (long long)start, (long long)end);
  PM_TRY(exclusive(s, what, err));
  PM_TRY(positions_allowed(t, what, err));
  s->positions = PM_POSITIONS_SLICE;
  s->start = start;
  s->end = end;
  return 0;
}

static int check_shard(const char *what, int64_t index, int64_t count, pm_error *err) {
  if (count <= 0)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: shard count %lld must be positive", what, (long long)count);
  if (index < 0 || index >= count)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: shard index %lld is out of range [0, %lld)", what,
                     (long long)index, (long long)count);
  return 0;
}

int pm_scan_selection_set_shard(const pm_table *t, pm_scan_selection *s, int64_t index, int64_t count,
                                pm_error *err) {
  static const char what[] = "with_row_position_shard";
  PM_TRY(check_shard(what, index, count, err));
  PM_TRY(exclusive(s, what, err));
  PM_TRY(positions_allowed(t, what, err));
  s->positions = PM_POSITIONS_SHARD;
  s->index = index;
  s->count = count;
  return 0;
}

int pm_scan_selection_set_row_ranges(const pm_table *t, pm_scan_selection *s, const int64_t *ranges, size_t n,
                                     pm_error *err) {
  static const char what[] = "with_row_ranges";
  char nb[512];
  for (size_t i = 0; i < n; i++) {
    if (ranges[2 * i] < 0)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: range %zu (%lld, %lld): from is negative", what, i,
                       (long long)ranges[2 * i], (long long)ranges[2 * i + 1]);
    if (ranges[2 * i] > ranges[2 * i + 1])
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                       "%s: range %zu (%lld, %lld): from must not exceed to (ranges are inclusive)", what, i,
                       (long long)ranges[2 * i], (long long)ranges[2 * i + 1]);
  }
  if (pm_table_has_pk(t) || !t->row_tracking)
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED,
                     "%s: table %s has no row ids (row ranges select rows of row-tracking and data-evolution tables: "
                     "row-tracking.enabled = true, no primary key)",
                     what, table_name(t, nb, sizeof nb));
  int64_t *v = malloc(n * 2 * sizeof *v + 16);
  if (!v) return PM_NOMEM(err);
  if (n) memcpy(v, ranges, n * 2 * sizeof *v);
  free(s->row_ranges);
  s->row_ranges = v;
  s->n_row_ranges = pm_row_ranges_normalize(v, n);
  s->has_row_ranges = 1;
  return 0;
}

int pm_scan_selection_set_bucket_shard(const pm_table *t, pm_scan_selection *s, int64_t index, int64_t count,
                                       pm_error *err) {
  static const char what[] = "with_shard";
  PM_TRY(check_shard(what, index, count, err));
  if (!pm_table_has_pk(t)) {
    PM_TRY(pm_scan_selection_set_shard(t, s, index, count, err));
    s->via_with_shard = 1;
    return 0;
  }
  if (s->has_bucket_shard)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: the scan already selects bucket shard %lld of %lld", what,
                     (long long)s->bucket_index, (long long)s->bucket_count);
  s->has_bucket_shard = 1;
  s->bucket_index = index;
  s->bucket_count = count;
  return 0;
}

/* ---------------------------------------------------------------- apply */

/* One unit of positions: a file (append tables) or a row-id group (data evolution). */
typedef struct unit {
  int64_t lo;   /* first row id (row tracking), else unused */
  int64_t rows; /* positions it counts */
} unit;

typedef struct split_units {
  size_t *order;   /* file indices in position order */
  size_t *group;   /* per order slot: its unit */
  unit *units;
  size_t n_units;
  int by_row_id; /* the split's selection is in row ids (pm_data_split_selects_row_ids) */
} split_units;

static void split_units_free(split_units *u) {
  free(u->order);
  free(u->group);
  free(u->units);
}

static int cmp_first_row_id(const void *ctx, size_t a, size_t b) {
  const pm_data_split *sp = ctx;
  int64_t fa = sp->data_files[a].first_row_id, fb = sp->data_files[b].first_row_id;
  return fa < fb ? -1 : fa > fb ? 1 : (a < b ? -1 : a > b);
}

static void sort_by_row_id(const pm_data_split *sp, size_t *v, size_t n) {
  /* insertion sort: splits hold few files and it keeps equal ids in split order */
  for (size_t i = 1; i < n; i++) {
    size_t x = v[i], j = i;
    while (j > 0 && cmp_first_row_id(sp, v[j - 1], x) > 0) v[j] = v[j - 1], j--;
    v[j] = x;
  }
}

static int build_units(const pm_table *t, const pm_scan_selection *s, const pm_data_split *sp, split_units *u,
                       pm_error *err) {
  size_t n = sp->n_data_files;
  memset(u, 0, sizeof *u);
  u->order = malloc((n + 1) * sizeof *u->order);
  u->group = malloc((n + 1) * sizeof *u->group);
  u->units = malloc((n + 1) * sizeof *u->units);
  if (!u->order || !u->group || !u->units) return PM_NOMEM(err);
  for (size_t i = 0; i < n; i++) u->order[i] = i;
  u->by_row_id = pm_data_split_selects_row_ids(sp, t->row_tracking && !pm_table_has_pk(t));
  if (!u->by_row_id && (t->data_evolution || (s && s->has_row_ranges))) {
    for (size_t i = 0; i < n; i++)
      if (!sp->data_files[i].has_first_row_id)
        return pm_errorf(err, PAIMON_ERR_UNSUPPORTED,
                         "%s: data file without a first row id (written before row tracking assigned ids): row "
                         "ranges and data-evolution row positions need the row ids of its manifest entry",
                         sp->data_files[i].file_name);
  }
  if (t->data_evolution) {
    sort_by_row_id(sp, u->order, n);
    for (size_t i = 0; i < n;) {
      const pm_data_file_meta *f = &sp->data_files[u->order[i]];
      int64_t lo = f->first_row_id, hi = lo + f->row_count;
      size_t j = i + 1;
      while (j < n && sp->data_files[u->order[j]].first_row_id < hi) {
        const pm_data_file_meta *m = &sp->data_files[u->order[j]];
        if (m->first_row_id + m->row_count > hi) hi = m->first_row_id + m->row_count;
        j++;
      }
      for (size_t k = i; k < j; k++) u->group[k] = u->n_units;
      u->units[u->n_units].lo = lo;
      u->units[u->n_units].rows = hi - lo;
      u->n_units++;
      i = j;
    }
  } else {
    for (size_t i = 0; i < n; i++) {
      u->group[i] = i;
      u->units[i].lo = sp->data_files[i].has_first_row_id ? sp->data_files[i].first_row_id : 0;
      u->units[i].rows = sp->data_files[i].row_count;
    }
    u->n_units = n;
  }
  return 0;
}

/* Appends [a, b] (inclusive) intersected with the explicit ranges (when any) to out. */
static void push_range(const pm_scan_selection *s, int64_t a, int64_t b, int64_t *out, size_t *n) {
  if (!s->has_row_ranges) {
    out[2 * *n] = a, out[2 * *n + 1] = b;
    (*n)++;
    return;
  }
  for (size_t i = 0; i < s->n_row_ranges; i++) {
    int64_t x = s->row_ranges[2 * i] > a ? s->row_ranges[2 * i] : a;
    int64_t y = s->row_ranges[2 * i + 1] < b ? s->row_ranges[2 * i + 1] : b;
    if (x <= y) out[2 * *n] = x, out[2 * *n + 1] = y, (*n)++;
  }
}

/* Selects the rows of one split; *keep = 0 when none is left. pos: position of its first unit. */
static int select_split(const pm_table *t, const pm_scan_selection *s, pm_data_split *sp, int64_t ps, int64_t pe,
                        int64_t *pos, int *keep, pm_error *err) {
  split_units u;
  int rc = build_units(t, s, sp, &u, err);
  size_t n = sp->n_data_files;
  char *kept_unit = rc ? NULL : calloc(u.n_units + 1, 1);
  int64_t *ranges = rc ? NULL : malloc((u.n_units * (s->n_row_ranges + 1) + 1) * 2 * sizeof *ranges);
  if (!rc && (!kept_unit || !ranges)) rc = PM_NOMEM(err);
  size_t nr = 0;
  int whole = 1; /* every kept unit fully selected, no explicit ranges */
  int64_t local = 0; /* positions of the kept units so far (tables without row ids) */
  for (size_t g = 0; !rc && g < u.n_units; g++) {
    int64_t p0 = *pos, p1 = *pos + u.units[g].rows;
    *pos = p1;
    int64_t a = p0 > ps ? p0 : ps, b = p1 < pe ? p1 : pe; /* selected positions [a, b) */
    if (a >= b) continue;
    a -= p0, b -= p0;
    if (a > 0 || b < u.units[g].rows) whole = 0;
    size_t before = nr;
    if (u.by_row_id) push_range(s, u.units[g].lo + a, u.units[g].lo + b - 1, ranges, &nr);
    else ranges[2 * nr] = local + a, ranges[2 * nr + 1] = local + b - 1, nr++;
    if (nr == before) continue; /* explicit ranges leave nothing of it */
    kept_unit[g] = 1;
    local += u.units[g].rows;
  }
  if (s->has_row_ranges) whole = 0;
  if (!rc) {
    /* keep the files of kept units, in their split order */
    char *kf = calloc(n + 1, 1);
    if (!kf) rc = PM_NOMEM(err);
    for (size_t i = 0; !rc && i < n; i++) kf[u.order[i]] = kept_unit[u.group[i]];
    size_t k = 0;
    for (size_t i = 0; !rc && i < n; i++) {
      if (!kf[i]) continue;
      if (k != i) {
        sp->data_files[k] = sp->data_files[i];
        if (sp->deletion_files) sp->deletion_files[k] = sp->deletion_files[i];
      }
      k++;
    }
    free(kf);
    if (!rc) {
      sp->n_data_files = k;
      *keep = k > 0;
      if (k > 0 && !whole) {
        nr = pm_row_ranges_normalize(ranges, nr);
        rc = pm_data_split_set_row_ranges(sp, ranges, nr, err);
      }
    }
  }
  free(kept_unit);
  free(ranges);
  split_units_free(&u);
  return rc;
}

int pm_scan_selection_apply(const pm_table *t, const pm_scan_selection *s, pm_plan *plan, pm_error *err) {
  if (!pm_scan_selection_active(s)) return 0;
  if (plan->n_incremental_splits)
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED,
                     "%s.%s: row positions, row ranges and shards do not apply to incremental diff splits", t->database,
                     t->name);
  size_t fb0 = plan->fallback_start, kept = 0, fb_kept = 0;
  int rc = 0;
  if (s->has_bucket_shard) {
    for (size_t i = 0; i < plan->n_splits; i++) {
      pm_data_split *sp = plan->splits[i];
      if (sp->bucket >= 0 && sp->bucket % s->bucket_count == s->bucket_index) {
        plan->splits[kept++] = sp;
        if (i < fb0) fb_kept++;
      } else {
        pm_data_split_free(sp);
      }
    }
    plan->n_splits = kept;
    fb0 = plan->fallback_start = fb_kept;
  }
  if (s->positions != PM_POSITIONS_NONE || s->has_row_ranges) {
    int64_t ps = 0, pe = INT64_MAX;
    if (s->positions == PM_POSITIONS_SLICE) ps = s->start, pe = s->end;
    if (s->positions == PM_POSITIONS_SHARD) {
      int64_t total = 0;
      for (size_t i = 0; !rc && i < plan->n_splits; i++) {
        split_units u;
        rc = build_units(t, NULL, plan->splits[i], &u, err);
        for (size_t g = 0; !rc && g < u.n_units; g++) total += u.units[g].rows;
        split_units_free(&u);
      }
      if (rc) return rc;
      int64_t base = total / s->count, rem = total % s->count;
      if (s->index < rem) ps = s->index * (base + 1), pe = ps + base + 1;
      else ps = rem * (base + 1) + (s->index - rem) * base, pe = ps + base;
    }
    int64_t pos = 0;
    kept = fb_kept = 0;
    for (size_t i = 0; i < plan->n_splits; i++) {
      pm_data_split *sp = plan->splits[i];
      int keep = 0;
      if (!rc) rc = select_split(t, s, sp, ps, pe, &pos, &keep, err);
      if (!rc && keep) {
        plan->splits[kept++] = sp;
        if (i < fb0) fb_kept++;
      } else {
        pm_data_split_free(sp);
      }
    }
    plan->n_splits = kept;
    plan->fallback_start = fb_kept;
    if (rc) return rc;
  }
  if (plan->fallback_start >= plan->n_splits) plan->fallback_start = plan->n_splits;
  plan->explain.splits = plan->n_splits;
  plan->explain.files_planned = 0;
  for (size_t i = 0; i < plan->n_splits; i++) plan->explain.files_planned += plan->splits[i]->n_data_files;
  return 0;
}

/* ---------------------------------------------------------------- streams */

int pm_scan_selection_check_stream(const pm_scan_selection *s, pm_error *err) {
  if (s->has_row_ranges || (s->positions != PM_POSITIONS_NONE && !s->via_with_shard))
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED,
                     "stream scan: row positions and row ranges select rows of batch and incremental scans only "
                     "(streams take with_shard)");
  return 0;
}

static int32_t java_string_hash(const char *str) {
  uint32_t h = 0;
  for (const unsigned char *p = (const unsigned char *)str; *p; p++) h = 31 * h + *p; /* ASCII file names */
  return (int32_t)h;
}

int pm_scan_selection_apply_stream(const pm_table *t, const pm_scan_selection *s, pm_plan *plan, pm_error *err) {
  (void)err;
  int64_t index = s->has_bucket_shard ? s->bucket_index : s->index, count = s->has_bucket_shard ? s->bucket_count : s->count;
  if (!s->has_bucket_shard && !s->via_with_shard) return 0;
  size_t kept = 0;
  for (size_t i = 0; i < plan->n_splits; i++) {
    pm_data_split *sp = plan->splits[i];
    if (pm_table_has_pk(t)) {
      if (sp->bucket >= 0 && sp->bucket % count == index) plan->splits[kept++] = sp;
      else pm_data_split_free(sp);
      continue;
    }
    size_t k = 0;
    for (size_t f = 0; f < sp->n_data_files; f++) {
      int32_t h = java_string_hash(sp->data_files[f].file_name) % (int32_t)count;
      if ((h < 0 ? -h : h) != index) continue;
      if (k != f) {
        sp->data_files[k] = sp->data_files[f];
        if (sp->deletion_files) sp->deletion_files[k] = sp->deletion_files[f];
      }
      k++;
    }
    sp->n_data_files = k;
    if (k) plan->splits[kept++] = sp;
    else pm_data_split_free(sp);
  }
  plan->n_splits = kept;
  plan->fallback_start = kept;
  size_t ik = 0;
  for (size_t i = 0; i < plan->n_incremental_splits; i++) {
    pm_split *x = plan->incremental_splits[i];
    int32_t b = x->incremental.bucket;
    if (b >= 0 && b % count == index) plan->incremental_splits[ik++] = x;
    else pm_split_free(x);
  }
  plan->n_incremental_splits = ik;
  plan->explain.splits = kept + ik;
  return 0;
}
