/*
 * Append-table compaction (SEMANTICS 3.8; Java's AppendCompactCoordinator,
 * AppendCompactTask, BaseAppendFileStoreWrite.compactRewrite).
 *
 * Unaware-bucket tables (bucket -1), one coordinator round over the latest
 * snapshot (as Spark's compact procedure runs it):
 *   - candidates: live files smaller than target-file-size *
 *     compaction.small-file-ratio, in the snapshot's order, of the partitions
 *     the spec selects, at most compaction.file-num-limit of them;
 *   - per partition (order of first appearance) the candidates sorted by
 *     size are packed into bins, each file weighing its size +
 *     source.split.open-file-cost: a bin with > 1 file whose weight reaches
 *     2 * target-file-size is a task; what is left is a task when it has at
 *     least compaction.min.file-num files. (Java's ageing of leftovers needs
 *     several rounds of a streaming coordinator: not in one round.)
 *   - a task rewrites its files, in the snapshot's order (rows keep their
 *     order), into new level-0 files of source COMPACT through the append
 *     writer's files (format, compression, stats, rolling at
 *     target-file-size, external paths), schema = the table's current one,
 *     sequence numbers counting on from the first input's minimum; the
 *     result is one commit message (bucket 0) with compact-before /
 *     compact-after, handed out by the writer's next prepare and committed
 *     as a COMPACT snapshot, whose conflict check fails the commit when a
 *     concurrent change (an overwrite) removed an input file.
 * Fixed-bucket tables: per bucket, see pm_append_compact_plan_bucketed.
 * Deletion vectors (AppendCompactTask / BucketedAppendCompactManager with a
 * DV maintainer): the rewrite drops the deleted rows; unaware buckets: every
 * index file holding a vector of a rewritten file is removed in the same
 * commit and the vectors of its other files are written into a new index
 * file (one file, not rolled at deletion-vector.index-file.target-size);
 * fixed buckets: the bucket's index file is rewritten without the vectors
 * of the rewritten files (the commit replaces the bucket's entry).
 * Data-evolution tables (row-tracking + data-evolution; Java's
 * DataEvolutionCompactCoordinator / DataEvolutionNormalCompactTask): see
 * pm_append_compact_plan_de; a task's files are merge-read as one split
 * (per row-id range each column from the newest file that has it) and
 * written as ONE file (no rolling) of the table's columns (writeCols null),
 * source COMPACT, first row id = the task's first, sequence numbers = min /
 * max of the inputs: row ids are kept (position = row id - first row id),
 * _SEQUENCE_NUMBER becomes the file's max. Refused (PAIMON_ERR_UNSUPPORTED)
 * for now: BLOB columns, a task whose files have deletion vectors, and row
 * tracking without data evolution.
 */
#ifndef PM_TABLE_APPEND_COMPACT_H
#define PM_TABLE_APPEND_COMPACT_H

#include <stddef.h>
#include <stdint.h>

#include "meta/manifest.h"
#include "meta/wire.h"
#include "table/commit.h"
#include "table/table.h"
#include "table/write.h"
#include "util/error.h"

typedef struct pm_append_compact_opts {
  int64_t target_file_size;     /* target-file-size */
  int64_t compaction_file_size; /* target-file-size * compaction.small-file-ratio */
  int64_t open_file_cost;       /* source.split.open-file-cost */
  int64_t min_file_num;         /* compaction.min.file-num */
  int64_t file_num_limit;       /* compaction.file-num-limit */
  int force_rewrite_all;        /* compaction.force-rewrite-all-files (fixed buckets, full) */
  double delete_ratio;          /* compaction.delete-ratio-threshold (deletion vectors) */
} pm_append_compact_opts;

void pm_append_compact_opts_init(const pm_table *t, pm_append_compact_opts *o);

/* One task: files of one (partition, bucket), in rewrite order (borrowed
 * from the live entries the plan was made of). */
typedef struct pm_append_compact_task {
  pm_bytes partition;
  int32_t bucket;
  const pm_manifest_entry **files;
  size_t n_files;
} pm_append_compact_task;

typedef struct pm_append_compact_plan {
  pm_append_compact_task *tasks;
  size_t n_tasks, cap_tasks;
} pm_append_compact_plan;

void pm_append_compact_plan_free(pm_append_compact_plan *p);
/* Appends a task of n files to p (files allocated, n_files = n, the rest
 * zero) for the planner to fill: *out points into p (valid until the next
 * push). */
int pm_append_compact_plan_push(pm_append_compact_plan *p, size_t n, pm_append_compact_task **out, pm_error *err);

/* 1 in *match when partition row `part` (manifest form) matches the spec
 * (NULL / n = 0: every partition; values in the text form reads print). */
int pm_append_spec_match(const pm_table *t, const pm_partition_spec *spec, pm_bytes part, int *match, pm_error *err);

/* The coordinator's plan (above) of the live files `live` (ADD entries of
 * one snapshot) in the partitions req selects (NULL: all; its bucket and
 * full are not used by the planners). *out borrows live. */
int pm_append_compact_plan_unaware(const pm_table *t, const pm_manifest_entries *live, const pm_compact_request *req,
                                   const pm_append_compact_opts *o, pm_append_compact_plan *out, pm_error *err);

/* Fixed-bucket tables (Java's BucketedAppendCompactManager, as the
 * dedicated compaction runs it: one compaction per bucket and call). Per
 * (partition, bucket) of the spec (bucket >= 0: only that bucket), its live
 * files ordered by min sequence number:
 *   - minor (pickCompactBefore): a window slides over the queue, taking files
 *     until it holds compaction.min.file-num files (a task) and dropping its
 *     oldest file whenever its size reaches 2 * target-file-size; none when
 *     the queue runs out;
 *   - full (FullCompactTask): nothing with fewer than 3 files (unless the
 *     table has deletion vectors or compaction.force-rewrite-all-files);
 *     leading files >= the small-file threshold without a vector are skipped;
 *     the rest is one task when the table has deletion vectors, or when its
 *     small files outnumber its big ones and it has >= 3 files.
 * dv_of (NULL: the table has no deletion vectors) tells whether a file has a
 * vector. *out borrows live. */
typedef struct pm_append_dv_info {
  const char *index_file; /* name of the DV index file holding the vector */
  int64_t cardinality;    /* deleted rows, -1 = unknown */
} pm_append_dv_info;
/* 1 and *out filled when entry e has a deletion vector, else 0. */
typedef int (*pm_append_dv_fn)(void *ctx, const pm_manifest_entry *e, pm_append_dv_info *out);

int pm_append_compact_plan_bucketed(const pm_table *t, const pm_manifest_entries *live, const pm_compact_request *req,
                                    int32_t bucket, int full, const pm_append_compact_opts *o, pm_append_dv_fn dv_of,
                                    void *dv_ctx, pm_append_compact_plan *out, pm_error *err);

/* The unaware-bucket plan of a table with deletion vectors (dv_of, as
 * above): candidates are also the files whose vector deletes more than
 * compaction.delete-ratio-threshold of their rows (or an unknown number);
 * per partition the candidates with vectors are grouped by their index file
 * (a group never splits: its index file is rewritten by one task), groups
 * packed by total size into bins (weight as above), the last bin always a
 * task; the candidates without vectors are packed as above when there are
 * at least two. */
int pm_append_compact_plan_unaware_dv(const pm_table *t, const pm_manifest_entries *live, const pm_compact_request *req,
                                      const pm_append_compact_opts *o, pm_append_dv_fn dv_of, void *dv_ctx,
                                      pm_append_compact_plan *out, pm_error *err);

/* Data-evolution tables: per partition (order of first appearance) the
 * normal data files (not .blob / vector-store files) of the spec, split into
 * runs of continuous row ids (adjacent ranges join); per run the row-id
 * groups (files of one range: a base file and column files) in row-id order
 * go into a bin weighing sum(max(file size, source.split.open-file-cost)):
 * a group heavier than target-file-size ends the bin and is a bin of its
 * own; a bin heavier than target-file-size ends; every run ends its bin.
 * A bin with at least compaction.min.file-num files is a task (files: its
 * groups in row-id order, each in the snapshot's order). Files of one group
 * with different ranges are PAIMON_ERR_CORRUPT. *out borrows live. */
int pm_append_compact_plan_de(const pm_table *t, const pm_manifest_entries *live, const pm_compact_request *req,
                              const pm_append_compact_opts *o, pm_append_compact_plan *out, pm_error *err);

/* Runs one task in writer w (an append writer): its result waits in w for the
 * next prepare; on failure its files are deleted and w is unchanged. */
int pm_append_compact_run_task(pm_table_write *w, const pm_append_compact_task *task, pm_error *err);

/* pm_table_write_compact of an append writer: plans over the latest snapshot
 * and runs every task (bucket > 0 selects nothing of an unaware table; full
 * plans as minor, as Java's coordinator). A failed task fails the call; the
 * results of earlier tasks stay in w (deleted by pm_table_write_free unless
 * handed out). */
int pm_append_compact(pm_table_write *w, const pm_compact_request *req, pm_error *err);

/* Results waiting in w; prepare writes one message each into c (c->messages
 * has room), then pm_append_compact_handed counts and releases them. */
size_t pm_append_compact_pending(const pm_table_write *w);
int pm_append_compact_messages(pm_table_write *w, pm_manifest_committable *c, pm_error *err);
void pm_append_compact_handed(pm_table_write *w);
/* Deletes the files of results not handed out (pm_table_write_free). */
void pm_append_compact_free(pm_table_write *w);

#endif
