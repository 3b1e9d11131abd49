/*
 * libpaimon streaming reads: a stateful scan that yields, plan after plan,
 * what the table's commits added since the previous plan (Java's
 * StreamTableScan; pypaimon's new_stream_scan()).
 *
 *   paimon_option o[] = {{"scan.mode", "latest"}, {"consumer-id", "job1"}};
 *   paimon_read_builder *rb; paimon_read_builder_new(t, o, 2, &rb, &err);
 *   paimon_read_builder_with_row_kind(rb, 1);
 *   paimon_stream_scan *ss; paimon_stream_scan_new(rb, &ss, &err);
 *   for (;;) {
 *     paimon_plan *plan;
 *     paimon_stream_scan_next(ss, stop_requested, NULL, &plan, &err);   (blocks)
 *     if (!plan) break;                        (cancelled, or end of input)
 *     paimon_read_plan(rb, plan, &s, &err); ... read s ...; s.release(&s);
 *     paimon_plan_free(plan);
 *     int64_t next;
 *     if (paimon_stream_scan_checkpoint(ss, &next))
 *       paimon_stream_scan_notify_checkpoint_complete(ss, next, &err);
 *   }
 *   paimon_stream_scan_free(ss); paimon_read_builder_free(rb);
 *
 * Options (the builder's dynamic options over the table's):
 *  - Start, resolved at the first plan: the consumer's saved progress when
 *    "consumer-id" is set and its file exists (unless
 *    "consumer.ignore-progress" = true); else "scan.mode": default /
 *    latest-full (all rows of the latest snapshot, then its successors'
 *    changes), latest (only changes committed after the first plan),
 *    compacted-full (all rows of the latest compaction, then changes),
 *    from-snapshot + scan.snapshot-id (changes from that snapshot on, or the
 *    earliest when it has expired), from-snapshot-full + scan.snapshot-id
 *    (all rows of that snapshot, then changes), from-timestamp +
 *    scan.timestamp-millis / scan.timestamp (changes committed at or after
 *    the time), from-file-creation-time + scan.file-creation-time-millis.
 *    latest-delta, incremental, incremental-between*, scan.tag-name,
 *    scan.watermark and scan.version cannot start a stream
 *    (PAIMON_ERR_INVALID_ARGUMENT from paimon_stream_scan_new).
 *  - Changes: with changelog-producer none the rows of APPEND commits
 *    (compactions and overwrites are skipped; for primary-key tables one
 *    row per key and flush, as written); with any other producer the
 *    changelog (+I, -U, +U, -D) of every commit that has one. Rows keep
 *    their row kind (paimon_read_builder_with_row_kind shows it). Append
 *    tables with "streaming-read-append-overwrite" = true also give the rows
 *    an OVERWRITE commit added.
 *  - "continuous.discovery-interval" (default 10 s): how long
 *    paimon_stream_scan_next sleeps between looks for a new snapshot.
 *  - "scan.bounded.watermark": the input ends before the first snapshot
 *    whose watermark is greater; "streaming.read.snapshot.delay": snapshots
 *    are read only once they are that old.
 *  - "consumer-id" and "consumer.mode" (exactly-once | at-least-once; one
 *    reader records the same progress in both): notify_checkpoint_complete
 *    writes consumer/consumer-<id> ({"nextSnapshot": N}, Java's file), and
 *    snapshot expiry keeps every snapshot >= N until the consumer moves on
 *    (or expires by consumer.expiration-time).
 * A snapshot the scan waits for that has expired is an error
 * (PAIMON_ERR_NOT_FOUND saying so) found on every 16th consecutive plan
 * that does not find it, as Java checks.
 *
 * Lifetimes: the read builder must outlive the scan (plans are read with
 * paimon_read_plan on that builder; the scan copies the builder's filter
 * when made). One scan must not be used by two threads at once.
 */
#ifndef PAIMON_STREAM_H
#define PAIMON_STREAM_H

#include <stdint.h>

#include "paimon/paimon.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct paimon_stream_scan paimon_stream_scan;

/* Makes a stream scan of rb's table with rb's filter and options (validated
 * now: an option that cannot start a stream is PAIMON_ERR_INVALID_ARGUMENT
 * naming it). A system-table builder is PAIMON_ERR_INVALID_ARGUMENT.
 * *out owned by the caller: paimon_stream_scan_free. */
PAIMON_EXPORT paimon_status paimon_stream_scan_new(const paimon_read_builder *rb, paimon_stream_scan **out,
                                                   paimon_error *err);
PAIMON_EXPORT void paimon_stream_scan_free(paimon_stream_scan *scan); /* NULL ok */

/* One planning step: looks at the snapshots once, without waiting. *out is
 * owned by the caller (paimon_plan_free; read it with paimon_read_plan on
 * the scan's builder); it has no splits when nothing new was committed.
 * paimon_plan_snapshot_id gives the snapshot planned. */
PAIMON_EXPORT paimon_status paimon_stream_scan_plan(paimon_stream_scan *scan, paimon_plan **out, paimon_error *err);

/* Cancellation hook of paimon_stream_scan_next: nonzero = stop waiting.
 * Called at least every 100 ms while waiting (from the calling thread). */
typedef int (*paimon_stream_cancel_fn)(void *ctx);

/* Blocking follow: plans until a plan has splits, sleeping
 * continuous.discovery-interval between plans. *out = that plan (owned by
 * the caller), or NULL when cancel (may be NULL: never) returned nonzero or
 * the input ended (paimon_stream_scan_finished). */
PAIMON_EXPORT paimon_status paimon_stream_scan_next(paimon_stream_scan *scan, paimon_stream_cancel_fn cancel,
                                                    void *cancel_ctx, paimon_plan **out, paimon_error *err);

/* 1 when the input ended (scan.bounded.watermark passed); then every plan is empty. */
PAIMON_EXPORT int paimon_stream_scan_finished(const paimon_stream_scan *scan);

/* 1 and *next_snapshot_id = the first snapshot not yet planned (the value
 * to restore from / to acknowledge); 0 before the first plan resolved the start. */
PAIMON_EXPORT int paimon_stream_scan_checkpoint(const paimon_stream_scan *scan, int64_t *next_snapshot_id);

/* Continues from next_snapshot_id (>= 1; as checkpoint gave it) at the next
 * plan; 0 starts over from the start the options name. Negative is
 * PAIMON_ERR_INVALID_ARGUMENT. */
PAIMON_EXPORT paimon_status paimon_stream_scan_restore(paimon_stream_scan *scan, int64_t next_snapshot_id,
                                                       paimon_error *err);

/* 1 and *watermark = the watermark of the last snapshot planned; 0 when it had none. */
PAIMON_EXPORT int paimon_stream_scan_watermark(const paimon_stream_scan *scan, int64_t *watermark);

/* Acknowledges that everything before next_snapshot (a checkpoint value)
 * was processed: with consumer-id set, writes the consumer's file (atomic
 * replace); without, does nothing. 0 does nothing (no checkpoint yet);
 * negative is PAIMON_ERR_INVALID_ARGUMENT. */
PAIMON_EXPORT paimon_status paimon_stream_scan_notify_checkpoint_complete(paimon_stream_scan *scan,
                                                                          int64_t next_snapshot, paimon_error *err);

#ifdef __cplusplus
}
#endif

#endif /* PAIMON_STREAM_H */
