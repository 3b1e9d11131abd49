/* Universal compaction picking (kv_compact.h). */
#include "table/kv_compact.h"

#include <time.h>

void pm_kv_picker_init(pm_kv_picker *p, int trigger, int max_size_amp, int size_ratio, int64_t opt_interval_ms,
                       int64_t total_threshold, int64_t incr_threshold, int64_t last_full_ms) {
  p->trigger = trigger;
  p->max_size_amp = max_size_amp;
  p->size_ratio = size_ratio;
  p->opt_interval_ms = opt_interval_ms;
  p->total_threshold = total_threshold;
  p->incr_threshold = incr_threshold;
  p->has_last_full = last_full_ms >= 0;
  p->last_full_ms = last_full_ms;
  p->lookup_interval = 0;
  p->lookup_count = 0;
  p->offpeak_start = p->offpeak_end = -1;
  p->offpeak_ratio = 0;
}

/* Java's OffPeakHours.currentRatio at the local hour of now_ms. */
static int offpeak_ratio(const pm_kv_picker *p, int64_t now_ms) {
  if (p->offpeak_start < 0 || p->offpeak_end < 0 || p->offpeak_start == p->offpeak_end) return 0;
  time_t secs = (time_t)(now_ms / 1000);
  struct tm tm;
  if (!localtime_r(&secs, &tm)) return 0;
  int h = tm.tm_hour, in;
  if (p->offpeak_start <= p->offpeak_end) in = p->offpeak_start <= h && h < p->offpeak_end;
  else in = h < p->offpeak_end || p->offpeak_start <= h;
  return in ? p->offpeak_ratio : 0;
}

static int early_enabled(const pm_kv_picker *p) {
  return p->opt_interval_ms >= 0 || p->total_threshold >= 0 || p->incr_threshold >= 0;
}

static void full_done(pm_kv_picker *p, int64_t now_ms) {
  if (!early_enabled(p)) return;
  p->has_last_full = 1;
  p->last_full_ms = now_ms;
}

static int all_runs(pm_kv_picker *p, int max_level, size_t n, int64_t now_ms, pm_kv_unit *u) {
  full_done(p, now_ms);
  u->out_level = max_level;
  u->n_runs = n;
  u->file_rewrite = 0;
  return 1;
}

static int early_full(pm_kv_picker *p, int max_level, const pm_kv_run_info *runs, size_t n, int64_t now_ms,
                      pm_kv_unit *u) {
  if (n == 1) return 0;
  if (p->opt_interval_ms >= 0 && (!p->has_last_full || now_ms - p->last_full_ms > p->opt_interval_ms))
    return all_runs(p, max_level, n, now_ms, u);
  if (p->total_threshold >= 0) {
    int64_t total = 0;
    for (size_t i = 0; i < n; i++) total += runs[i].size;
    if (total < p->total_threshold) return all_runs(p, max_level, n, now_ms, u);
  }
  if (p->incr_threshold >= 0) {
    int64_t incr = 0;
    for (size_t i = 0; i < n; i++)
      if (runs[i].level != max_level) incr += runs[i].size;
    if (incr > p->incr_threshold) return all_runs(p, max_level, n, now_ms, u);
  }
  return 0;
}

static int create_unit(pm_kv_picker *p, int max_level, const pm_kv_run_info *runs, size_t n, size_t count,
                       int64_t now_ms, pm_kv_unit *u) {
  int out;
  if (count == n) {
    out = max_level;
  } else {
    out = runs[count].level - 1;
    if (out < 0) out = 0;
  }
  if (out == 0) {
    /* never output to level 0: absorb up to the first run above it */
    for (size_t i = count; i < n; i++) {
      count++;
      if (runs[i].level != 0) {
        out = runs[i].level;
        break;
      }
    }
  }
  if (count == n) {
    full_done(p, now_ms);
    out = max_level;
  }
  u->out_level = out;
  u->n_runs = count;
  u->file_rewrite = 0;
  return 1;
}

static int size_ratio_pick(pm_kv_picker *p, int max_level, const pm_kv_run_info *runs, size_t n, size_t count,
                           int forced, int64_t now_ms, pm_kv_unit *u) {
  int64_t size = 0;
  for (size_t i = 0; i < count; i++) size += runs[i].size;
  int triggered = forced || count > 1;
  double ratio = (double)p->size_ratio + (double)offpeak_ratio(p, now_ms);
  for (size_t i = count; i < n; i++) {
    double grown = (double)size * (100.0 + ratio) / 100.0;
    if (grown < (double)runs[i].size && (!triggered || runs[i].level > 1)) break;
    size += runs[i].size;
    count++;
    triggered = 1;
  }
  return triggered ? create_unit(p, max_level, runs, n, count, now_ms, u) : 0;
}

int pm_kv_pick(pm_kv_picker *p, int n_levels, const pm_kv_run_info *runs, size_t n, int64_t now_ms, pm_kv_unit *u) {
  int max_level = n_levels - 1;
  if (!n) return 0;
  if (early_enabled(p) && early_full(p, max_level, runs, n, now_ms, u)) return 1;
  if (n >= (size_t)p->trigger) {
    /* size amplification */
    int64_t candidate = 0;
    for (size_t i = 0; i + 1 < n; i++) candidate += runs[i].size;
    if ((double)candidate * 100.0 > (double)p->max_size_amp * (double)runs[n - 1].size)
      return all_runs(p, max_level, n, now_ms, u);
    /* size ratio */
    if (size_ratio_pick(p, max_level, runs, n, 1, 0, now_ms, u)) return 1;
  }
  if (n > (size_t)p->trigger) return size_ratio_pick(p, max_level, runs, n, n - (size_t)p->trigger + 1, 0, now_ms, u);
  return 0;
}

int pm_kv_pick_force_l0(pm_kv_picker *p, int n_levels, const pm_kv_run_info *runs, size_t n, int64_t now_ms,
                        pm_kv_unit *u) {
  size_t count = 0;
  while (count < n && runs[count].level == 0) count++;
  return count ? size_ratio_pick(p, n_levels - 1, runs, n, count, 1, now_ms, u) : 0;
}

int pm_kv_pick_lookup(pm_kv_picker *p, int n_levels, const pm_kv_run_info *runs, size_t n, int64_t now_ms,
                      pm_kv_unit *u) {
  if (pm_kv_pick(p, n_levels, runs, n, now_ms, u)) return 1;
  if (p->lookup_interval > 0) { /* gentle: the counter runs whether or not level 0 holds files */
    if (++p->lookup_count < p->lookup_interval) return 0;
    p->lookup_count = 0;
  }
  return pm_kv_pick_force_l0(p, n_levels, runs, n, now_ms, u);
}

int pm_kv_pick_full(int n_levels, const pm_kv_run_info *runs, size_t n, int force_rewrite_all, pm_kv_unit *u) {
  int max_level = n_levels - 1;
  if (!n) return 0;
  if (n == 1 && runs[0].level == max_level) {
    if (!force_rewrite_all) return 0;
    u->out_level = max_level;
    u->n_runs = 1;
    u->file_rewrite = 1;
    return 1;
  }
  u->out_level = max_level;
  u->n_runs = n;
  u->file_rewrite = 0;
  return 1;
}

int pm_kv_unit_useful(const pm_kv_unit *u, const pm_kv_run_info *runs) {
  size_t files = 0;
  for (size_t i = 0; i < u->n_runs; i++) files += runs[i].n_files;
  if (!files) return 0;
  if (files == 1 && !u->file_rewrite) {
    for (size_t i = 0; i < u->n_runs; i++)
      if (runs[i].n_files) return runs[i].level != u->out_level;
  }
  return 1;
}

int pm_kv_drop_delete(int out_level, int highest_nonempty, int deletion_vectors) {
  return out_level != 0 && (out_level >= highest_nonempty || deletion_vectors);
}
