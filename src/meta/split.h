/*
 * DataSplit: the unit of a batch read (one partition + bucket, its data files
 * and their deletion files), and its Java-compatible binary serialization
 * (SEMANTICS.md 10.2; read versions 1..9, write version 9 byte-identically).
 *
 * Memory: a pm_data_split owns an arena; every string / byte array / file
 * meta it points to lives in split->arena (fill it with pm_arena_* and the
 * pm_*_copy helpers of meta/manifest.h). pm_data_split_free releases all.
 */
#ifndef PM_META_SPLIT_H
#define PM_META_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "meta/arena.h"
#include "meta/manifest.h"
#include "util/buf.h"
#include "util/error.h"

#define PM_DATA_SPLIT_MAGIC ((int64_t)0xDEC3D2302C19EC66ULL)
#define PM_DATA_SPLIT_VERSION 9

typedef struct pm_data_split {
  int64_t snapshot_id;
  pm_bytes partition;       /* int32 BE arity + BinaryRow bytes (manifest form) */
  int32_t bucket;
  const char *bucket_path;  /* bucket directory (table root included) */
  int32_t total_buckets;
  int has_total_buckets;
  pm_data_file_meta *data_files; /* n_data_files, in arena */
  size_t n_data_files;
  /* NULL = no deletion-file list; else n_data_files entries, an entry with
   * path == NULL means "no deletion vector for that file". */
  pm_deletion_file *deletion_files;
  int is_streaming;
  int raw_convertible;
  /* Row selection (scan row positions / row ranges): has_row_ranges = 0 reads
   * every row; else n_row_ranges inclusive pairs (from, to), sorted and
   * disjoint (n = 0: no row): row ids on row-tracking tables whose files all
   * have first row ids (pm_data_split_selects_row_ids), else positions local
   * to this split (its files' rows, in file order). Not part of the
   * DataSplit encoding: a split with a selection travels as an IndexedSplit
   * (SplitSerializer type 3). In arena. */
  int has_row_ranges;
  int64_t *row_ranges;
  size_t n_row_ranges;
  pm_arena arena;
} pm_data_split;

/* Allocates an empty split (zeroed, arena initialised). */
int pm_data_split_new(pm_data_split **out, pm_error *err);
void pm_data_split_free(pm_data_split *s); /* NULL ok */

/* Decodes a DataSplit record (magic+version, or version 1 without magic).
 * *out owned by caller. */
int pm_data_split_decode(const uint8_t *data, size_t len, pm_data_split **out, pm_error *err);
/* Same, also returning the bytes consumed and the version found. */
int pm_data_split_decode_prefix(const uint8_t *data, size_t len, pm_data_split **out, size_t *consumed,
                                int *version, pm_error *err);
/* Encodes version 9 (appended to out). */
int pm_data_split_encode(const pm_data_split *s, pm_buf *out, pm_error *err);
/* Sets the row selection (n inclusive pairs copied into the arena, sorted and
 * disjoint as given). */
int pm_data_split_set_row_ranges(pm_data_split *s, const int64_t *ranges, size_t n, pm_error *err);
/* Whether s's row selection is in row ids: on a row-tracking table (row_tracking)
 * when every file of s has a first row id; else it is in positions local to s. */
int pm_data_split_selects_row_ids(const pm_data_split *s, int row_tracking);
/* Sorts n inclusive pairs (from, to) in place and joins overlapping or adjacent
 * ones; returns the new count. */
size_t pm_row_ranges_normalize(int64_t *ranges, size_t n);
/* A deep copy (selection included). *out owned by the caller. */
int pm_data_split_copy(const pm_data_split *src, pm_data_split **out, pm_error *err);

/* ---- SplitSerializer: type-tagged split records ("SPLIT_V1") ---- */

#define PM_SPLIT_MAGIC ((int64_t)0x53504C49545F5631LL)
#define PM_INDEXED_SPLIT_MAGIC ((int64_t)-938472394838495695LL)

typedef enum pm_split_type {
  PM_SPLIT_DATA = 1,
  PM_SPLIT_INCREMENTAL = 2,
  PM_SPLIT_INDEXED = 3,
  PM_SPLIT_CHAIN = 4,
  PM_SPLIT_QUERY_AUTH = 5,
  PM_SPLIT_FALLBACK_DATA = 6,
  PM_SPLIT_FALLBACK = 7
} pm_split_type;

/* IncrementalSplit (version 2): before/after file sets of one bucket. */
typedef struct pm_incremental_split {
  int64_t snapshot_id;
  pm_bytes partition; /* manifest form */
  int32_t bucket;
  int32_t total_buckets;
  pm_data_file_meta *before_files;
  size_t n_before_files;
  pm_deletion_file *before_deletion_files; /* NULL = no list, else n_before_files entries */
  pm_data_file_meta *after_files;
  size_t n_after_files;
  pm_deletion_file *after_deletion_files;
  int is_streaming;
} pm_incremental_split;

typedef struct pm_split {
  pm_split_type type;
  pm_data_split *data;            /* DATA, INDEXED, FALLBACK_DATA (owned) */
  int is_fallback;                /* FALLBACK_DATA */
  int64_t *row_ranges;            /* INDEXED: n_row_ranges pairs (from, to), in arena */
  size_t n_row_ranges;
  float *scores;                  /* INDEXED: NULL when absent */
  size_t n_scores;
  pm_incremental_split incremental; /* INCREMENTAL (memory in arena) */
  /* CHAIN (version 3): files of several branches/buckets of one logical partition */
  pm_bytes logical_partition;
  pm_data_file_meta *chain_files;
  size_t n_chain_files;
  const char **bucket_path_keys, **bucket_path_values; /* file -> bucket path, wire order */
  size_t n_bucket_paths;
  const char **branch_keys, **branch_values;           /* file -> branch, wire order */
  size_t n_branches;
  pm_deletion_file *chain_deletion_files;              /* NULL = no list */
  /* QUERY_AUTH and FALLBACK wrap another split (owned) */
  struct pm_split *inner;
  int has_auth;                                        /* QUERY_AUTH */
  int has_auth_filter;
  const char **auth_filter;                            /* NULL items = null strings */
  size_t n_auth_filter;
  int has_masks;
  const char **mask_keys, **mask_values;               /* column masking, sorted by key */
  size_t n_masks;
  pm_arena arena;
} pm_split;

/* Decodes one SplitSerializer record. Unsupported types are PAIMON_ERR_UNSUPPORTED. */
int pm_split_decode(const uint8_t *data, size_t len, pm_split **out, pm_error *err);
/* Encodes it as Java's current SplitSerializer does (appended to out). */
int pm_split_encode(const pm_split *s, pm_buf *out, pm_error *err);
void pm_split_free(pm_split *s); /* NULL ok */

#endif
