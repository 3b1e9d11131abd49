/*
 * The primary-key table writer (SEMANTICS 1.2-1.3, 2.1-2.3, 3.1-3.2): rows in
 * (each with a row kind), per (partition, bucket) a write buffer that
 * assigns sequence numbers in arrival order, sorts by key and applies the
 * table's merge engine (table/merge_table.h, the read side's merge), and
 * flushes level-0 files in Java's key/value layout:
 *   _KEY_<k>... (trimmed primary key), _SEQUENCE_NUMBER, _VALUE_KIND, the
 *   table's columns
 * with DataFileMeta as Java's KeyValueDataFileWriter makes it: min/max key
 * (BinaryRow of the trimmed key), key stats (full width; truncate(128) or
 * fields._KEY_<k>.stats-mode, Avro: the general mode), value stats as the
 * append writer's, min/max sequence number, delete row count (-U/-D rows),
 * level 0, file source APPEND.
 *
 * Buckets: fixed (`bucket` = N; bucket key = `bucket-key` or the trimmed
 * primary key); dynamic (`bucket` = -1, the primary key covers the partition
 * keys: hash index, table/kv_bucket.h); cross-partition (`bucket` = -1, a
 * partition key outside the primary key: key index, table/kv_bucket_cross.h).
 * Sequence numbers continue after the bucket's maximum among
 * the live files of the latest snapshot (unless ignore_previous_files).
 * A buffer flushes at prepare, or when the buffered rows of all buckets
 * exceed `write-buffer-size` (the largest bucket's buffer first). Files
 * roll at `target-file-size`.
 *
 * Row kinds: every row of pm_kv_write_arrow gets `kind` (PM_ROWKIND_*), or,
 * when a row-kind column is named, that column's value (integers 0..3 or
 * strings +I/-U/+U/-D, INSERT/.../DELETE, 0..3;
 * the column is not written). `ignore-delete` drops -U/-D input rows,
 * `ignore-update-before` drops -U rows.
 *
 * Compaction (kv_compact.h, kv_compact_write.c, kv_compact_async.c): each
 * bucket keeps its LSM levels (kv_levels.h, restored from the latest
 * snapshot); after every flush the universal strategy may pick a unit,
 * which runs in the background on the table's executor (`threads`; one
 * compaction at a time per writer, at most one per bucket, as Java's
 * MergeTreeCompactManager; inline with threads = 1) while writes go on.
 * A flush collects the bucket's finished compaction and triggers the next;
 * it waits for the one in flight when the bucket has more than
 * num-sorted-run.stop-trigger sorted runs (back-pressure).
 * pm_kv_write_compact asks for one (full or not); full-compaction.delta-commits
 * forces full compactions at prepare; write-only turns compaction off.
 * Prepare waits for compactions in flight as Java's prepareCommit(wait)
 * (batch writers always; see prepare_waits in kv_write.c) and collects the
 * finished ones. Results go out in prepare's compact increments
 * (compact_before / compact_after), committed as a COMPACT snapshot after
 * the APPEND one. A failed background compaction deletes its outputs and
 * fails the writer at the next write / prepare / compact call with its
 * error (naming the file); free cancels and discards compactions in flight.
 *
 * Postpone buckets (`bucket` = -2, kv_postpone.c): rows go unsorted and
 * unmerged into bucket-postpone files (sequence -1, Avro, stats none, Java's
 * data-u-<user>-s-<id>-w- prefix); pm_kv_write_compact assigns them real
 * buckets (postpone.default-bucket-num or the partition's count) through
 * real-bucket writers, committed as compact increments at prepare.
 *
 * Not yet: data-file.thin-mode, external paths (PAIMON_ERR_UNSUPPORTED at open).
 *
 * Failure: as the append writer (write.h): after an error inside write or
 * prepare the writer is failed; free deletes files never handed out.
 */
#ifndef PM_TABLE_KV_WRITE_H
#define PM_TABLE_KV_WRITE_H

#include <stdint.h>

#include "meta/wire.h"
#include "paimon/arrow_c.h"
#include "table/commit.h"
#include "table/kv_compact.h"
#include "table/table.h"
#include "table/write.h"
#include "util/error.h"

typedef struct pm_kv_write pm_kv_write;

/* A writer for primary-key table t (retained). cfg may be NULL. */
int pm_kv_write_open(pm_table *t, const pm_write_config *cfg, pm_kv_write **out, pm_error *err);
/* Writes one batch (borrowed); rows without a row-kind column get `kind`. */
int pm_kv_write_arrow(pm_kv_write *w, const struct ArrowSchema *s, const struct ArrowArray *a, int kind,
                      pm_error *err);
/* Flushes every buffer; one message per (partition, bucket) with new files. */
int pm_kv_write_prepare(pm_kv_write *w, int64_t identifier, pm_manifest_committable **out, pm_error *err);
int64_t pm_kv_write_rows(const pm_kv_write *w);
/* Spill files (write-buffer-spillable) go to tmp_dir (NULL: $TMPDIR, else
 * /tmp) through fs (NULL: the local fs; tests pass a fault fs). Before the
 * first spill only. */
int pm_kv_write_spill_to(pm_kv_write *w, const char *tmp_dir, pm_fs *fs, pm_error *err);
/* Runs spilled, their bytes, run files alive now. */
void pm_kv_write_spill_stats(const pm_kv_write *w, int64_t *runs, uint64_t *bytes, int64_t *live);
/* Names the int8 input column holding each row's kind (copied; NULL: none). */
int pm_kv_write_row_kind_column(pm_kv_write *w, const char *column, pm_error *err);
/* Compacts (Java's TableWrite.compact) bucket req->bucket (-1: every bucket)
 * of every partition req selects (spec: values in text form,
 * partition.default-name = null; filter; see pm_compact_request, progress
 * after each bucket) among the latest snapshot's live files
 * and this writer's buckets: the bucket's buffer is flushed, then a full
 * compaction (req->full) or the universal strategy's pick runs. The results
 * are in the next prepare's compact increments. write-only tables: nothing. */
int pm_kv_write_compact(pm_kv_write *w, const pm_compact_request *req, pm_error *err);
/* Totals of the compaction results handed out by prepare so far (tasks = units run). */
void pm_kv_write_compact_stats(const pm_kv_write *w, pm_kv_compact_stats *out);
void pm_kv_write_free(pm_kv_write *w); /* NULL ok */
/* The write builder's signal (write.h; retained): when it changes the
 * writer refreshes its levels before its next call (pm_kv_write_refresh). */
void pm_kv_write_watch(pm_kv_write *w, pm_write_signal *s);
/* Tests only (process-wide, read by later opens): every collection of a
 * background compaction waits for it, so compactions still run on the
 * executor but in the order an inline (threads = 1) writer runs them. */
void pm_kv_write_test_wait_compactions(int on);

#endif
