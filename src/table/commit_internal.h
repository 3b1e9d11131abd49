/*
 * Internals shared by the committer's files: commit.c (changes from
 * messages, the retry loop, snapshot building and publication),
 * commit_conflict.c (conflict detection, SEMANTICS.md 7.6) and
 * commit_overwrite.c (overwrite / truncate / drop partitions, 7.7).
 *
 * Entry vectors hold shallow copies: their strings and byte arrays point
 * into the committable's arena or into a container that outlives the vector.
 */
#ifndef PM_TABLE_COMMIT_INTERNAL_H
#define PM_TABLE_COMMIT_INTERNAL_H

#include <stdatomic.h>

#include "data/types.h"
#include "meta/manifest.h"
#include "meta/path_factory.h"
#include "meta/snapshot.h"
#include "table/commit.h"

typedef struct pm_entry_vec {
  pm_manifest_entry *v;
  size_t n, cap;
} pm_entry_vec;

typedef struct pm_index_vec {
  pm_index_manifest_entry *v;
  size_t n, cap;
} pm_index_vec;

int pm_entry_vec_push(pm_entry_vec *vec, const pm_manifest_entry *e, pm_error *err); /* shallow */
void pm_entry_vec_free(pm_entry_vec *vec);
int pm_index_vec_push(pm_index_vec *vec, const pm_index_manifest_entry *e, pm_error *err); /* shallow */
void pm_index_vec_free(pm_index_vec *vec);

/* The changes of one snapshot: data entries, changelog entries, index entries. */
typedef struct pm_commit_changes {
  pm_entry_vec table, changelog;
  pm_index_vec index;
} pm_commit_changes;

void pm_commit_changes_free(pm_commit_changes *ch);
int pm_commit_changes_empty(const pm_commit_changes *ch);

/* The changes of a committable, split as Java's ManifestEntryChanges does. */
typedef struct pm_commit_collected {
  pm_commit_changes append, compact;
} pm_commit_collected;

int pm_commit_collect(const pm_commit *c, const pm_manifest_committable *m, pm_commit_collected *out, pm_error *err);
void pm_commit_collected_free(pm_commit_collected *cc);

struct pm_commit {
  pm_table *t; /* retained */
  char *user;
  int streaming;
  pm_options props;
  int64_t watermark;
  int has_watermark;
  const char *operation;     /* static string or NULL: the next snapshots' "operation" */
  pm_data_type *partition_type; /* ROW of the partition columns (owned) */
  pm_path_factory pf;
  atomic_int_fast64_t index_manifests; /* counter of index-manifest names */
  /* The last call ended with an unknown outcome: a new call for the same
   * identifier and kind first looks for that snapshot (published at most once). */
  int pending;
  int64_t pending_identifier, pending_latest;
  char pending_kind[16];
};

/* Computes the changes of one attempt against latest (NULL = empty table).
 * out is empty on entry; what it points to lives until the next call or the
 * provider's cleanup. */
typedef struct pm_commit_provider {
  int (*provide)(void *ctx, pm_commit *c, const pm_snapshot *latest, pm_commit_changes *out, pm_error *err);
  void *ctx;
} pm_commit_provider;

/* One logical commit of `kind` ("APPEND", "COMPACT", "OVERWRITE") through the
 * retry loop. detect: run conflict detection. *snapshot_id = the snapshot. */
int pm_commit_try(pm_commit *c, const pm_commit_provider *p, int64_t identifier, const pm_manifest_committable *m,
                  const char *kind, int detect, int64_t *snapshot_id, pm_error *err);

/* ---- conflict detection (commit_conflict.c) ---- */

/* Checks the delta ch->table against the live files of latest in the changed
 * partitions (SEMANTICS 7.6 steps 1-5); PAIMON_ERR_CONFLICT naming the file or
 * partition. discard_duplicates: delta entries whose identity is already live
 * are dropped from ch->table first (commit.discard-duplicate-files). Java runs
 * the whole check whenever either is asked for. */
int pm_commit_check_conflicts(pm_commit *c, const pm_snapshot *latest, pm_commit_changes *ch, const char *kind,
                              int discard_duplicates, pm_error *err);

/* ---- partitions (commit_overwrite.c) ---- */

/* *match = 1 when the partition row (manifest form) matches any of specs[0..n). */
int pm_commit_spec_match(const pm_commit *c, const pm_partition_spec *specs, size_t n, pm_bytes partition,
                         int *match, pm_error *err);
/* Readable "{k=v, ...}" of a partition row for messages; malloc'd (NULL when out of memory). */
char *pm_commit_partition_text(const pm_commit *c, pm_bytes partition);

#endif
