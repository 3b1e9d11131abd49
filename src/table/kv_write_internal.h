/*
 * Inside the primary-key writer (kv_write*.c): the writer and its
 * (partition, bucket) buffers.
 */
#ifndef PM_TABLE_KV_WRITE_INTERNAL_H
#define PM_TABLE_KV_WRITE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "format/format.h"
#include "meta/arena.h"
#include "meta/manifest.h"
#include "meta/split.h"
#include "meta/stats.h"
#include "util/buf.h"
#include "table/kv_compact.h"
#include "table/kv_dv.h"
#include "table/kv_levels.h"
#include "table/kv_spill.h"
#include "table/kv_write.h"
#include "table/merge_table.h"
#include "table/write_slots.h"

/* Data files written and not handed out yet: metas (strings in the writer's
 * arena) and their paths (malloc'd; deleted by the writer's free). */
typedef struct pm_kv_files {
  pm_data_file_meta *items;
  char **paths;
  size_t n, cap;
} pm_kv_files;

/* One (partition, bucket) writer: its write buffer, its closed files and its
 * LSM levels (kv_levels.h) with the compaction results since the last prepare. */
typedef struct pm_kvslot {
  uint8_t *part; /* partition row, manifest form */
  size_t part_len;
  int32_t bucket;
  char *bucket_dir;
  int64_t next_seq;
  struct ArrowArray *chunks; /* buffered rows, each in the merge layout (table columns, seq, kind) */
  size_t n_chunks, cap_chunks;
  uint64_t bytes;            /* their estimated size */
  pm_spill_run *runs;        /* spilled sorted runs (kv_write_spill.c), oldest first */
  size_t n_runs, cap_runs;
  pm_kv_files out;           /* new level-0 files, not handed out */
  pm_kv_files cl;            /* changelog files (changelog-producer = input), not handed out */
  int has_levels;            /* levels restored (compaction on) */
  int no_trigger;            /* flushing for a requested compaction: no strategy pick */
  pm_kv_levels levels;
  pm_kv_files compact_after; /* compaction outputs (paths NULL for upgrades: the file is not ours) */
  pm_kv_files compact_cl;    /* changelog files of compactions (changelog-producer = lookup), not handed out */
  pm_data_file_meta *compact_before; /* files compacted away (writer's arena) */
  size_t n_before, cap_before;
  pm_kv_picker picker;       /* per bucket, as Java's strategy (early full compaction state) */
  struct pm_kv_ctask *task;  /* the bucket's compaction submitted and not collected yet (at most one, as Java) */
  int forced;                /* task is a requested compaction (pm_kv_compact_slot): prepare waits for it */
  pm_dv_maintainer *dv;      /* deletion-vector tables: the bucket's vectors (kv_dv.h), else NULL */
  int64_t *rows;             /* routing scratch */
  size_t n_rows, cap_rows;
} pm_kvslot;

/* changelog-producer = input: how changelog files are written (kv_changelog.c):
 * changelog-file.format / .compression / .stats-mode, else as the data files. */
typedef struct pm_kv_changelog {
  const pm_format *fmt;
  pm_format_write_options wo;
  struct ArrowSchema file_schema;
  pm_stats_mode *key_modes, *value_modes;
  const char *prefix; /* changelog-file.prefix */
  int at_flush;       /* changelog-producer = input: written at every flush */
} pm_kv_changelog;

struct pm_kv_write {
  pm_table *t;
  int ignore_previous;
  char *row_kind_column;       /* NULL: none */
  const pm_format *fmt;
  pm_format_write_options wo;
  const pm_data_field *fields; /* the table's columns */
  size_t nf;
  pm_type type;                /* struct of the table's columns (take) */
  struct ArrowSchema layout_schema; /* table columns + _SEQUENCE_NUMBER + _VALUE_KIND */
  pm_type layout;
  pm_table_merge tm;           /* merge configuration over layout (keeps retracts) */
  size_t nk;                   /* trimmed primary key */
  pm_data_field *key_fields;   /* _KEY_<k> fields (names owned), for the key stats */
  pm_stats_mode *key_modes, *value_modes;
  int dense;
  struct ArrowSchema file_schema; /* _KEY_..., _SEQUENCE_NUMBER, _VALUE_KIND, columns (field ids) */
  size_t n_part;
  int *part_col;
  const pm_data_type **part_types;
  size_t n_bkey;
  int *bkey_col;
  const pm_data_type **bkey_types;
  uint64_t target;             /* target-file-size */
  uint64_t closed_fed, closed_bytes; /* in-memory bytes fed / file bytes of closed files (pm_write_size_ratio) */
  uint64_t buffer_limit;       /* write-buffer-size */
  uint64_t buffered;           /* bytes in all slots' buffers */
  pm_kvslot **slots;
  size_t n_slots, cap_slots;
  pm_slot_map slot_map;        /* (partition, bucket) -> slots[i] */
  pm_binary_row_writer bkey_rw; /* bucket key rows (reused) */
  struct pm_kv_buckets *buckets; /* dynamic buckets (kv_bucket.h), NULL otherwise */
  struct pm_kv_cross *cross;     /* cross-partition updates (kv_bucket_cross.h), NULL otherwise */
  char uuid[40];
  atomic_llong file_counter;   /* file names (flushes and background compactions) */
  int restored;
  pm_manifest_entries previous;
  pm_arena arena;
  int64_t rows_written;
  /* compaction (kv_compact_write.c) */
  int compaction;              /* 0 with write-only */
  int n_levels;                /* num-levels, else compaction-trigger + 1 */
  int64_t min_file_size;       /* target-file-size * compaction.small-file-ratio: smaller files are rewritten */
  pm_kv_compact_stats stats;   /* totals of the compactions run */
  int failed;
  pm_error fail;
  /* background compaction (kv_compact_async.c): one executor job per writer
   * runs the queued bucket compactions one after another, as Java's single
   * compaction thread of a writer */
  int streaming;               /* stream writer: prepare waits only as Java's prepareCommit(false) does */
  int wait_always;             /* tests: every collection waits (background runs, synchronous order) */
  pthread_mutex_t cmu;         /* guards the queue, drainer state and the tasks' done flags */
  pthread_cond_t ccv;          /* a task finished / the drainer stopped */
  int has_cmu;
  struct pm_kv_ctask *q_head, *q_tail; /* queued, not started */
  int draining;                /* a drainer job is running (or about to) */
  struct pm_task *drain_job;   /* the last drainer's executor handle (waited before the next) */
  atomic_int task_failed;      /* a finished task failed: the next call surfaces it */
  pm_write_signal *signal;     /* the builder's (write.h): a change = refresh the levels */
  uint64_t signal_seen;
  pm_kv_changelog *changelog; /* changelog-producer = input / lookup, else NULL */
  int lookup;                  /* lookup compaction (changelog lookup, deletion vectors, first-row; SEMANTICS 3.6) */
  int lookup_cl;               /* changelog-producer = lookup: compactions of level-0 files write changelog */
  int full_cl;                 /* changelog-producer = full-compaction: compactions to the max level write changelog */
  /* write-buffer-spillable (kv_write_spill.c) */
  int spillable;
  pm_spill spill;              /* temp directory, codec; set up at open when spillable */
  int fan_in;                  /* local-sort.max-num-file-handles */
  uint64_t max_disk;           /* write-buffer-spill.max-disk-size */
  uint64_t spill_block;        /* spill block bytes */
  /* deletion vectors (deletion-vectors.enabled): lookup compaction marks the
   * superseded rows of higher levels (kv_dv_lookup.c) */
  int dv;
  pm_index_entries dv_index;   /* index entries of the snapshot `previous` came from */
  pm_path_factory dv_pf;       /* names of new DV index files */
  int has_dv_pf;
  /* postpone buckets (bucket = -2, kv_postpone.c) */
  int postpone;
  char *commit_user;           /* postpone: the writer's commit user (file names, compaction writers) */
  char *file_prefix;           /* data files' prefix, NULL: data-file.prefix */
  struct pm_kv_postpone *pp;   /* postpone compaction not handed out yet, NULL: none */
  int retract_validated;       /* postpone: the first retract went through the merge function */
  int postpone_rewrite;        /* a postpone compaction's real-bucket writer: no full-compaction.delta-commits
                                  at prepare (Java's compact action writes with a plain TableWriteImpl) */
};

/* kv_write.c: the live files of the latest snapshot into w->previous (once;
 * nothing with ignore_previous_files), and the slot of (partition, bucket),
 * created (and restored) on first use. */
int pm_kv_restore_previous(pm_kv_write *w, pm_error *err);
int pm_kv_slot_get(pm_kv_write *w, const uint8_t *part, size_t part_len, int32_t bucket, pm_kvslot **out,
                   pm_error *err);

/* kv_write_file.c: sorts, merges and writes the slot's buffer as level-0
 * files (metas into s->out), then tells pm_kv_flushed; the buffer is emptied. */
int pm_kv_flush(pm_kv_write *w, pm_kvslot *s, pm_error *err);
/* kv_write_file.c: *out = the slot's buffer sorted by key and merged per key
 * (changelog files written first with changelog-producer = input); the
 * buffer is emptied. */
int pm_kv_sort_merge(pm_kv_write *w, pm_kvslot *s, struct ArrowArray *out, pm_error *err);
/* The same, sorted (stable: a key's records in sequence order) but not merged. */
int pm_kv_sort(pm_kv_write *w, pm_kvslot *s, struct ArrowArray *out, pm_error *err);
/* The same, unmerged, written piece by piece into run writer wr (memory: the
 * buffer + its sort permutation + a piece); the buffer is emptied (also on failure). */
int pm_kv_sort_spill(pm_kv_write *w, pm_kvslot *s, pm_spill_writer *wr, pm_error *err);
/* kv_write_file.c: the single integer key of merge batch b as int64 into
 * k[0, b->length); 0 (k untouched) when the key is not one non-null integer
 * column. The sort and merge fast path. */
int pm_kv_int_keys(const pm_kv_write *w, const struct ArrowArray *b, int64_t *k);
/* kv_write_file.c: the selection rows[0, n) of input batch b (table columns) in key order,
 * stably, when the key is one non-null integer column: *sorted (the rows) and *perm (their
 * positions in rows) malloc'd; both NULL otherwise. A buffer chunk taken in this order
 * keeps each column's later gathers (the flush or spill sort of the buffer, whose
 * chunks are then merged rather than shuffled) within a few moving windows of memory. */
int pm_kv_presort(const pm_kv_write *w, const struct ArrowArray *b, const int64_t *rows, int64_t n, size_t **perm,
                  int64_t **sorted, pm_error *err);
/* kv_write_spill.c: spills the slot's buffer as a sorted run of its raw
 * records (a local temp file, as Java's external sort buffer: merged only at
 * flush, all records of a key at once); the buffer is emptied. */
int pm_kv_spill_slot(pm_kv_write *w, pm_kvslot *s, pm_error *err);
/* kv_write_spill.c: the slot's runs and buffer k-way merged (intermediate
 * merges above local-sort.max-num-file-handles) into level-0 files (metas
 * into s->out); the runs are deleted. */
int pm_kv_flush_spilled(pm_kv_write *w, pm_kvslot *s, pm_error *err);
/* kv_write_spill.c: deletes the slot's runs. */
void pm_kv_slot_drop_runs(pm_kv_write *w, pm_kvslot *s);
/* kv_write_file.c: writes the rows of batch b (merge layout, sorted by key)
 * as level-0 files rolling at target-file-size: data files (changelog 0,
 * into s->out) or changelog files (1, into s->cl). */
int pm_kv_write_rolling(pm_kv_write *w, pm_kvslot *s, const struct ArrowArray *b, int changelog, pm_error *err);

/* The rolling key/value file writer shared by flushes, changelog files,
 * spilled-run merges and compaction: batches in the merge layout (table
 * columns, _SEQUENCE_NUMBER, _VALUE_KIND) in key order go into files under
 * `dir` at `level` with file source `source` (PM_SOURCE_APPEND /
 * PM_SOURCE_COMPACT), data files or (changelog = 1) changelog files (their
 * format, options and prefix), a new file once the rows written reach
 * target-file-size (in-memory estimate). Each closed file's meta (Java's
 * KeyValueDataFileWriter: min/max key = first/last row, key and value stats,
 * sequence range, delete row count) and path are appended to *out.
 * Counters: files, rows_total, bytes (file bytes) of the closed files. */
typedef struct pm_kv_roll {
  pm_kv_write *w;
  const char *dir;
  int32_t level;
  int8_t source;
  pm_kv_files *out;
  const pm_format *fmt;
  const pm_format_write_options *wo;
  const struct ArrowSchema *schema;
  const pm_stats_mode *key_modes, *value_modes;
  const char *prefix;
  /* where closed files' metas live and what they teach about compression
   * (pm_kv_roll_init: the writer's arena and counters; a background
   * compaction points them at its own) */
  pm_arena *arena;
  uint64_t *fed_acc, *bytes_acc;
  /* current file */
  pm_format_writer *fw;
  char name[256];
  char *path;
  struct pm_wdec *dec; /* write_internal.h */
  pm_bytes min_key;    /* writer's arena */
  pm_buf max_row;
  int64_t rows, lo, hi, deletes;
  double fed;
  /* totals */
  int64_t files, rows_total, bytes;
} pm_kv_roll;

void pm_kv_roll_init(pm_kv_roll *r, pm_kv_write *w, const char *dir, int32_t level, int8_t source, int changelog,
                     pm_kv_files *out);
/* PAIMON_ERR_INTERNAL when a compaction task (pm_kv_in_task) left the writer's
 * arena or counters in r: its own must be set after pm_kv_roll_init. */
int pm_kv_roll_write(pm_kv_roll *r, const struct ArrowArray *m, pm_error *err);
/* 1 while the calling thread runs a compaction task of w (pm_kv_ctask_run). */
int pm_kv_in_task(const pm_kv_write *w);
/* Closes the current file (if any). */
int pm_kv_roll_finish(pm_kv_roll *r, pm_error *err);
/* Discards the current file (closed files stay in *out). */
void pm_kv_roll_abort(pm_kv_roll *r);

/* ---- compaction in the writer (kv_compact_write.c) ---- */

/* Sets up the slot's levels from the writer's restored live files (all files
 * of the slot's partition and bucket) unless compaction is off (write-only). */
int pm_kv_levels_setup(pm_kv_write *w, pm_kvslot *s, pm_error *err);
/* After a flush wrote files[0..n) at level 0: into the levels, then a compaction
 * when the strategy picks one (run to completion before returning). */
int pm_kv_flushed(pm_kv_write *w, pm_kvslot *s, const pm_data_file_meta *files, size_t n, pm_error *err);
/* Java's compact(full): flushes the slot's buffer, waits for its compaction in
 * flight, then submits a full compaction or the strategy's pick (prepare
 * waits for it). */
int pm_kv_compact_slot(pm_kv_write *w, pm_kvslot *s, int full, pm_error *err);

/* ---- background compaction (kv_compact_async.c; Java's MergeTreeCompactManager
 * with the writer's compaction executor) ----
 * A task = one picked unit of one bucket (at most one per bucket between
 * submit and collection). It runs on the writer's drainer job (the library
 * executor, table/table.h pm_table_executor; inline when the executor is
 * single-threaded or full) and sees: its input files and the levels above
 * its output (unchanged until it is collected: the writer only adds
 * level-0 files meanwhile), the bucket's deletion vectors (only the task
 * touches them until collected: prepare waits for deletion-vector buckets),
 * and a private arena / compression counters / the atomic file counter.
 * The writer collects results in its own thread: levels updated, compact
 * increment recorded (kv_compact_write.c). A failed or cancelled task
 * deletes its outputs; its error (naming the file) fails the writer at
 * collection. */
typedef struct pm_kv_ctask {
  pm_kv_write *w;
  pm_kvslot *s;
  struct pm_kv_ctask *next; /* the writer's queue */
  int done;                 /* the run finished (under w->cmu) */
  atomic_int cancel;        /* stop at the next batch: the run fails, its outputs deleted */
  int rc;                   /* the run's status and error (read once done) */
  pm_error err;
} pm_kv_ctask;
/* kv_compact_write.c: runs the task's unit (worker or inline). */
void pm_kv_ctask_run(pm_kv_ctask *ct);
/* kv_compact_write.c: applies a finished task's result to its slot (levels,
 * compact increment, stats) and frees it; a failed task: its error. */
int pm_kv_ctask_apply(pm_kv_write *w, pm_kv_ctask *ct, pm_error *err);
/* kv_compact_write.c: frees a task (deleting its outputs when not applied). */
void pm_kv_ctask_free(pm_kv_write *w, pm_kv_ctask *ct);
/* Queues ct as s->task and starts the drainer when idle (inline when it cannot). */
int pm_kv_compact_submit(pm_kv_write *w, pm_kvslot *s, pm_kv_ctask *ct, pm_error *err);
/* Collects the slot's task when finished, or waits for it when blocking. */
int pm_kv_compact_collect(pm_kv_write *w, pm_kvslot *s, int blocking, pm_error *err);
/* 1 when the task's result is ready. */
int pm_kv_ctask_done(pm_kv_write *w, const pm_kv_ctask *ct);
/* Tasks queued or running are cancelled (queued ones dropped, the running
 * one stops at its next batch), waited for and discarded; at free. */
void pm_kv_compact_cancel_all(pm_kv_write *w);
/* Java's writer restore after a dropped compaction: tasks discarded, the
 * latest snapshot's live files re-read, each slot's levels (and deletion
 * vectors) rebuilt from them plus its level-0 files not handed out yet; its
 * compaction results not handed out are deleted; sequence numbers never go
 * back. Buffers stay. */
int pm_kv_write_refresh(pm_kv_write *w, pm_error *err);
/* kv_compact_write.c: the slot's part of it (w->previous already re-read). */
int pm_kv_slot_refresh(pm_kv_write *w, pm_kvslot *s, pm_error *err);
/* At the start of write / prepare / compact: refresh when the signal changed. */
int pm_kv_write_check_signal(pm_kv_write *w, pm_error *err);
/* Sets up w's compaction queue (open). */
int pm_kv_compact_async_init(pm_kv_write *w, pm_error *err);
void pm_kv_compact_async_free(pm_kv_write *w);
/* The flush tail of Java's MergeTreeWriter: collect the slot's task (waiting
 * when the bucket has more than num-sorted-run.stop-trigger sorted runs:
 * back-pressure), then trigger the strategy. */
int pm_kv_compact_sync_trigger(pm_kv_write *w, pm_kvslot *s, pm_error *err);
/* kv_compact_write.c: the strategy's (or a full) pick for the slot, submitted;
 * nothing when a task is in flight (not full) or nothing is picked. */
int pm_kv_compact_trigger(pm_kv_write *w, pm_kvslot *s, int full, pm_error *err);
void pm_kv_slot_compact_free(pm_kv_write *w, pm_kvslot *s);
/* Counts the slot's compact increment into w->stats as prepare hands it out. */
void pm_kv_compact_handed(pm_kv_write *w, const pm_kvslot *s);

/* kv_compact_write.c: the merge read of a slot's files[0..n) as compaction
 * reads them: one split over the files with the bucket's current deletion
 * vectors (taken at open), the table's merge engine with retracts kept,
 * columns = table columns + _SEQUENCE_NUMBER with the row kind (read layout:
 * _row_kind, table columns, _SEQUENCE_NUMBER), parallelism 1. n = 0: st
 * stays released (nothing to read). Close always (also after a failed open). */
typedef struct pm_kv_merge_read {
  pm_data_split split; /* borrowed by the stream */
  const char **cols;
  struct ArrowArrayStream st;
} pm_kv_merge_read;
int pm_kv_merge_read_open(pm_kv_write *w, pm_kvslot *s, pm_kv_lfile *const *files, size_t n, pm_kv_merge_read *r,
                          pm_error *err);
/* The same over files[0..n) and extra[0..n_extra) (files without deletion
 * vectors), merged as a lookup compaction when lookup_merge (read.h). */
int pm_kv_merge_read_open_ex(pm_kv_write *w, pm_kvslot *s, pm_kv_lfile *const *files, size_t n,
                             const pm_data_file_meta *extra, size_t n_extra, int lookup_merge, pm_kv_merge_read *r,
                             pm_error *err);
/* kv_compact_write.c: whether a lookup compaction merges the looked-up
 * record of a key with its level-0 records (partial-update, aggregation,
 * deduplicate with sequence.field), or only logs / marks it (deduplicate,
 * first-row). */
int pm_kv_lookup_merges_upper(const pm_kv_write *w);
/* kv_compact_write.c: a read batch b (_row_kind, table columns,
 * _SEQUENCE_NUMBER; its children moved out) as a merge-layout batch (table
 * columns, _SEQUENCE_NUMBER, _VALUE_KIND); retracts left out when
 * drop_delete, rows outside keep_rows (a bitmap, or NULL) too. *out
 * released when nothing is left. */
int pm_kv_to_layout(pm_kv_write *w, struct ArrowArray *b, int drop_delete, const uint8_t *keep_rows,
                    struct ArrowArray *out, pm_error *err);
/* The next batch into *out (released at the end); what = the message on a stream error. */
int pm_kv_merge_read_next(pm_kv_merge_read *r, struct ArrowArray *out, const char *what, pm_error *err);
void pm_kv_merge_read_close(pm_kv_merge_read *r);

/* kv_dv_lookup.c: lookup compaction's deletion vectors for a merge group
 * files[0..n) compacted to out_level (> 0) that holds level-0 files: every
 * key of the group's level-0 files without a live record in the group's
 * other files is looked up in levels out_level+1..max (the first level
 * holding a live row of it) and that row is marked deleted in s->dv, in key
 * order (Java's LookupChangelogMergeFunctionWrapper + LookupLevels with a
 * position processor). Live = not deleted by the file's current vector. */
int pm_kv_dv_lookup(pm_kv_write *w, pm_kvslot *s, pm_kv_lfile *const *files, size_t n, int out_level,
                    pm_error *err);

/* kv_lookup_cl.c: the old values of the level-0 keys of a merge group
 * files[0..n) compacted to out_level > 0 (changelog-producer = lookup,
 * first-row): in the group's level > 0 files, else in levels out_level+1..max.
 * Build it before pm_kv_dv_lookup marks the rows it finds. With full (a
 * compaction to the max level, changelog-producer = full-compaction): the
 * keys of the group's files below the max level and their old values in
 * the group's max-level files (Java's FullChangelogMergeFunctionWrapper). */
typedef struct pm_kv_before pm_kv_before;
int pm_kv_before_build(pm_kv_write *w, pm_kvslot *s, pm_kv_lfile *const *files, size_t n, int out_level, int full,
                       pm_kv_before **out, pm_error *err);
/* For a merged batch of the group (read layout: _row_kind, table columns,
 * _SEQUENCE_NUMBER): *cl = its changelog rows in the read layout with
 * *cl_kinds their row kinds (malloc'd; cl released and kinds NULL when there
 * is none); keep (when not NULL, a bitmap of after->length bits) = the rows
 * the compaction writes (first-row drops keys already in higher levels). */
int pm_kv_before_apply(pm_kv_before *b, const struct ArrowArray *after, uint8_t *keep, struct ArrowArray *cl,
                       int8_t **cl_kinds, pm_error *err);
void pm_kv_before_free(pm_kv_before *b); /* NULL ok */
/* Lookup compaction of partial-update / aggregation / sequence.field
 * (Java's LookupChangelogMergeFunctionWrapper inserting the looked-up record
 * into LookupMergeFunction): the before records of the keys found in levels
 * above the output (UPPER) written as temporary data files in the bucket, one
 * rolling file set per level at that level, so that the group's merge read
 * over them and the group's files merges each such key's level-0 records
 * with its looked-up record in sequence order. Metas and paths appended to
 * *out (the caller deletes the files after the read), their strings in
 * `arena`, the compression learned in *fed_acc / *bytes_acc (pm_kv_roll): a
 * background compaction passes its own, never the writer's. */
int pm_kv_before_upper_files(pm_kv_before *b, pm_arena *arena, uint64_t *fed_acc, uint64_t *bytes_acc, pm_kv_files *out,
                             pm_error *err);

/* kv_write.c: the files' schema (_KEY_..., _SEQUENCE_NUMBER, _VALUE_KIND,
 * columns; fs initialised here) and key / value stats modes (malloc'd, also
 * on failure) for files of format fmt with default stats mode def_mode (the
 * value of option def_option). */
int pm_kv_file_layout(pm_kv_write *w, const pm_format *fmt, const char *def_mode, pm_co_id def_option,
                      struct ArrowSchema *fs, pm_stats_mode **key_modes, pm_stats_mode **value_modes, pm_error *err);

/* kv_postpone.c (postpone buckets): the files' format, stats modes and name
 * prefix at open; a slot's buffer written in arrival order as level-0 files;
 * the compaction assigning real buckets (pm_kv_write_compact) and its
 * compact increments appended to the committable at prepare. */
typedef struct pm_kv_postpone pm_kv_postpone;
int pm_kv_postpone_open(pm_kv_write *w, const pm_write_config *cfg, pm_error *err);
int pm_kv_postpone_flush(pm_kv_write *w, pm_kvslot *s, pm_error *err);
int pm_kv_postpone_validate(pm_kv_write *w, const struct ArrowArray *b, const int8_t *kinds, const uint8_t *keep,
                            pm_error *err);
int pm_kv_postpone_compact(pm_kv_write *w, const pm_compact_request *req, pm_error *err);
int pm_kv_postpone_prepare(pm_kv_write *w, int64_t identifier, pm_manifest_committable *c, pm_error *err);
void pm_kv_postpone_free(pm_kv_postpone *pp); /* NULL ok */

/* kv_changelog.c: w->changelog for changelog-producer = input. */
int pm_kv_changelog_open(pm_kv_write *w, pm_error *err);
void pm_kv_changelog_free(pm_kv_changelog *c); /* NULL ok */

#endif
