/*
 * Compaction of a primary-key bucket (SEMANTICS 3.3-3.5, 3.7; Java's
 * UniversalCompaction, EarlyFullCompaction, CompactStrategy,
 * MergeTreeCompactManager, MergeTreeCompactTask, MergeTreeCompactRewriter).
 *
 * Picking (kv_compact_pick.c) works on the bucket's sorted runs
 * (kv_levels.h) reduced to (level, size) and always picks a prefix of them:
 * a unit is "the first n_runs runs, written to out_level".
 *
 *   universal pick, in order:
 *     0. early full compaction (compaction.optimization-interval,
 *        compaction.total-size-threshold, compaction.incremental-size-threshold;
 *        only with more than one run): all runs to the max level;
 *     1. size amplification (runs >= num-sorted-run.compaction-trigger):
 *        sum(all but the oldest) * 100 > compaction.max-size-amplification-percent
 *        * size(oldest) -> all runs to the max level;
 *     2. size ratio (runs >= trigger): from the newest run on, absorb the next
 *        run while size(candidate) * (100 + compaction.size-ratio) / 100 >=
 *        size(next), or, once triggered, while the next run is at level 0 or 1;
 *     3. run count (runs > trigger): the same starting with runs - trigger + 1.
 *   output level: the max level when the unit takes every run, else the level
 *   of the first run left out minus one; a unit never outputs to level 0 (it
 *   absorbs runs until one of level > 0, whose level it takes).
 *   full pick (a full compaction request): all runs to the max level; a
 *   single run already at the max level only with force_rewrite_all (all its
 *   files rewritten), else nothing.
 *   A unit that is one file already at its output level is dropped
 *   (pm_kv_unit_useful).
 */
#ifndef PM_TABLE_KV_COMPACT_H
#define PM_TABLE_KV_COMPACT_H

#include <stddef.h>
#include <stdint.h>

#include "table/kv_levels.h"
#include "util/error.h"

/* A run as the picker sees it. */
typedef struct pm_kv_run_info {
  int level;
  int64_t size;
  size_t n_files;
} pm_kv_run_info;

typedef struct pm_kv_unit {
  int out_level;
  size_t n_runs;    /* the first n_runs runs */
  int file_rewrite; /* full pick of a single max-level run: rewrite its files one by one */
} pm_kv_unit;

typedef struct pm_kv_picker {
  int trigger;          /* num-sorted-run.compaction-trigger */
  int max_size_amp;     /* compaction.max-size-amplification-percent */
  int size_ratio;       /* compaction.size-ratio */
  int64_t opt_interval_ms;     /* compaction.optimization-interval, < 0: none */
  int64_t total_threshold;     /* compaction.total-size-threshold, < 0: none */
  int64_t incr_threshold;      /* compaction.incremental-size-threshold, < 0: none */
  int has_last_full;
  int64_t last_full_ms;        /* last full compaction (EarlyFullCompaction state) */
  int lookup_interval;         /* lookup-compact = gentle: force level 0 up every this many empty picks, else 0 */
  int lookup_count;            /* empty picks since the last forced one (ForceUpLevel0Compaction's counter) */
  int offpeak_start, offpeak_end; /* compaction.offpeak.start/end.hour (local time), -1 or equal: none */
  int offpeak_ratio;           /* compaction.offpeak-ratio: added to size_ratio in those hours */
} pm_kv_picker;

/* Picker state with the given options (early full compaction disabled when
 * the three thresholds are < 0); last_full_ms < 0: no full compaction known. */
void pm_kv_picker_init(pm_kv_picker *p, int trigger, int max_size_amp, int size_ratio, int64_t opt_interval_ms,
                       int64_t total_threshold, int64_t incr_threshold, int64_t last_full_ms);
/* Universal pick at time now_ms: 1 and *u filled, or 0 (nothing to do). */
int pm_kv_pick(pm_kv_picker *p, int n_levels, const pm_kv_run_info *runs, size_t n, int64_t now_ms, pm_kv_unit *u);
/* Java's ForceUpLevel0Compaction fallback: the level-0 runs (if any) with a forced
 * size-ratio pick (absorbing following runs as the ratio allows). 1 and *u, or 0. */
int pm_kv_pick_force_l0(pm_kv_picker *p, int n_levels, const pm_kv_run_info *runs, size_t n, int64_t now_ms,
                        pm_kv_unit *u);
/* Java's ForceUpLevel0Compaction for lookup tables: the universal pick, else
 * the level-0 force pick (lookup-compact = radical), or with
 * p->lookup_interval > 0 (gentle) that force pick only at every
 * lookup_interval-th call the universal pick left empty. 1 and *u, or 0. */
int pm_kv_pick_lookup(pm_kv_picker *p, int n_levels, const pm_kv_run_info *runs, size_t n, int64_t now_ms,
                      pm_kv_unit *u);
/* Full compaction pick: 1 and *u, or 0. */
int pm_kv_pick_full(int n_levels, const pm_kv_run_info *runs, size_t n, int force_rewrite_all, pm_kv_unit *u);
/* 0 when the unit is empty or one file already at its output level. */
int pm_kv_unit_useful(const pm_kv_unit *u, const pm_kv_run_info *runs);
/* Java's dropDelete: out_level != 0 and (out_level >= highest non-empty level or deletion vectors). */
int pm_kv_drop_delete(int out_level, int highest_nonempty, int deletion_vectors);

/* What compactions did (the reference compact builder's metrics). */
typedef struct pm_kv_compact_stats {
  int64_t tasks;         /* units run */
  int64_t files_removed; /* compact-before files */
  int64_t files_added;   /* compact-after files (upgrades included) */
  int64_t rows_written, bytes_written; /* by rewrites */
  int64_t upgrades;
} pm_kv_compact_stats;

#endif
