/*
 * The LSM levels of one (partition, bucket) of a primary-key table
 * (SEMANTICS 3.1, Java's mergetree/Levels): the bucket's live data files by
 * level, and the sorted runs the compaction strategy sees.
 *
 *   level 0      every file is its own sorted run, newest first: by
 *                max_sequence_number descending, then min_sequence_number
 *                ascending, then creation time ascending, then file name;
 *   level 1..max one sorted run per non-empty level, its files ordered by
 *                min key (their key ranges do not overlap).
 *
 * Runs (pm_kv_levels_runs): the level-0 runs newest first, then each
 * non-empty level >= 1 in ascending order. "Sorted runs" =
 * number of level-0 files + number of non-empty levels >= 1.
 *
 * Files are restored from a snapshot's live entries of the bucket
 * (pm_kv_levels_restore) and changed as flushes and compactions go
 * (pm_kv_levels_update: remove `before`, add `after`; a file is identified by
 * its name and level). The level count is max(num-levels, highest restored
 * level + 1).
 *
 * Keys: min_key / max_key are BinaryRows of the trimmed primary key
 * (manifest form); each file carries them decoded (pm_kv_lfile.min/.max,
 * n_keys values) for ordering and overlap tests (pm_kv_key_cmp: nulls
 * first, Java's order per type).
 *
 * Memory: the levels own deep copies of every file meta (their own arena;
 * files removed by updates are reclaimed when the arena is rebuilt, after
 * enough removals). Pointers returned (files, runs) stay valid until the next
 * update or restore; file pointers (pm_kv_lfile *) also across updates that
 * only add files (the arena is rebuilt only by updates that remove some),
 * and adding level-0 files never touches the levels above 0.
 *
 * Users: the writer's compaction (kv_compact*.c) and lookup compaction /
 * deletion vectors (kv_lookup*.c) read levels through this interface.
 */
#ifndef PM_TABLE_KV_LEVELS_H
#define PM_TABLE_KV_LEVELS_H

#include <stddef.h>
#include <stdint.h>

#include "data/binary_row.h"
#include "meta/arena.h"
#include "meta/manifest.h"
#include "util/error.h"

typedef struct pm_kv_lfile {
  pm_data_file_meta meta; /* deep copy (levels' arena) */
  pm_value *min, *max;    /* decoded min / max key (n_keys values each, levels' arena) */
} pm_kv_lfile;

typedef struct pm_kv_level {
  pm_kv_lfile **files; /* level 0: newest first; else by min key */
  size_t n, cap;
  int64_t size;        /* sum of file sizes */
} pm_kv_level;

typedef struct pm_kv_levels {
  int n_keys;
  const pm_data_type *const *key_types; /* borrowed */
  int n_levels;                         /* levels 0..n_levels-1 */
  pm_kv_level *levels;
  pm_arena arena;
  size_t n_dead; /* file copies in the arena no longer referenced */
} pm_kv_levels;

/* One sorted run: files of one level-0 file or of one whole level >= 1. */
typedef struct pm_kv_run {
  int level;
  pm_kv_lfile *const *files;
  size_t n;
  int64_t size; /* total file bytes */
} pm_kv_run;

/* Empty levels (n_levels >= 1) over key types (borrowed, must outlive l). */
int pm_kv_levels_init(pm_kv_levels *l, int n_keys, const pm_data_type *const *key_types, int n_levels,
                      pm_error *err);
void pm_kv_levels_free(pm_kv_levels *l); /* zeroed ok */

/* Adds files[0..n) (copied), growing the level count to hold their levels. */
int pm_kv_levels_restore(pm_kv_levels *l, const pm_data_file_meta *const *files, size_t n, pm_error *err);
/* Removes before[0..nb) (by name and level; PAIMON_ERR_INVALID_ARGUMENT when one is
 * not there, levels unchanged) and adds after[0..na) (copied). */
int pm_kv_levels_update(pm_kv_levels *l, const pm_data_file_meta *before, size_t nb, const pm_data_file_meta *after,
                        size_t na, pm_error *err);

int pm_kv_levels_max_level(const pm_kv_levels *l);
size_t pm_kv_levels_sorted_runs(const pm_kv_levels *l);
/* Highest level holding a file, -1 when the levels are empty. */
int pm_kv_levels_highest_nonempty(const pm_kv_levels *l);
size_t pm_kv_levels_file_count(const pm_kv_levels *l);
int64_t pm_kv_levels_total_size(const pm_kv_levels *l);
/* The runs in strategy order into *runs (malloc'd, caller frees; NULL when
 * there are none), *n their count. */
int pm_kv_levels_runs(const pm_kv_levels *l, pm_kv_run **runs, size_t *n, pm_error *err);

/* Key comparison of decoded keys (n values each; nulls first). */
int pm_kv_key_cmp(int n_keys, const pm_value *a, const pm_value *b);
/* Decodes a key BinaryRow (manifest form) into out[0..n_keys); values point into `key`. */
int pm_kv_key_decode(int n_keys, const pm_data_type *const *key_types, pm_bytes key, pm_value *out,
                     pm_error *err);

#endif
