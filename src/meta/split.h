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

#endif
