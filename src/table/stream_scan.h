/*
 * Streaming scan (SEMANTICS.md §6.2-6.3; Java's DataTableStreamScan with its
 * StartingScanners and FollowUpScanners): a stateful planner over a table
 * that yields, plan after plan, what the snapshots committed since the last
 * plan added.
 *
 * State: the next snapshot id to plan (0 = not started: the next plan runs
 * the starting scanner), the current watermark, end of input.
 *
 * Start (first plan): the consumer's saved nextSnapshot when `consumer-id` is
 * set, `consumer.ignore-progress` is false and its file exists (then as
 * from-snapshot); else `scan.mode` resolved as Java's startupMode():
 *   latest-full / default / full  full plan of the latest snapshot (the one at
 *                                 creation), then follow-ups from it + 1
 *   latest                        follow-ups from latest + 1 (1 when the table
 *                                 had no snapshot at creation)
 *   compacted-full                full plan of the latest COMPACT snapshot (with
 *                                 changelog-producer full-compaction or
 *                                 full-compaction.delta-commits: a full
 *                                 compaction's), else of the latest
 *   from-snapshot (scan.snapshot-id)       follow-ups from max(id, earliest)
 *   from-snapshot-full (scan.snapshot-id)  full plan of max(id, earliest)
 *   from-timestamp (scan.timestamp-millis / scan.timestamp)
 *                                 follow-ups after the latest snapshot older
 *                                 than the time (earliest when none is)
 *   from-file-creation-time (scan.file-creation-time-millis)
 *                                 full plan of the latest snapshot's files
 *                                 created at or after the time
 *   default with scan.snapshot-id / scan.timestamp* / scan.file-creation-time-millis
 *                                 as the modes above (Java's default resolution)
 * Refused (INVALID_ARGUMENT at creation): latest-delta, incremental (and
 * incremental-between*), tags, watermarks and scan.version as the start,
 * from-snapshot[-full] without scan.snapshot-id, from-timestamp without a time,
 * from-file-creation-time without scan.file-creation-time-millis;
 * UNSUPPORTED: from-creation-timestamp.
 * Full plans read merged batch splits; with changelog-producer lookup only
 * levels > 0, with full-compaction only the top level.
 *
 * Follow-ups, per snapshot in id order: `scan.bounded.watermark` ends the
 * input at the first snapshot whose watermark exceeds it;
 * `streaming.read.snapshot.delay` waits for snapshots younger than it;
 * OVERWRITE snapshots of append tables with streaming-read-append-overwrite
 * give their added files, of primary-key tables with streaming-read-overwrite
 * their changes (Java's readChanges: streaming IncrementalSplits, the
 * removed files' rows as -D, then the added files' rows); changelog-producer none reads the delta manifests
 * of APPEND snapshots, any other producer the changelog manifests of every
 * snapshot that has them; everything else is skipped. Splits are streaming
 * DataSplits (primary-key files read raw with their row kinds).
 * A snapshot that does not exist yet gives an empty plan; on every 16th
 * consecutive miss the range is checked as Java's NextSnapshotFetcher does:
 * an expired snapshot (id < earliest) or an id past latest + 1 is an error.
 * With a decoupled changelog lifecycle (changelog.num-retained.* /
 * changelog.time-retained longer than the snapshots'), an expired snapshot
 * is read from its long-lived changelog/changelog-<id> and from-snapshot
 * starts count from the earliest of those, as Java does.
 *
 * Ownership: pm_stream_scan_new takes a reference to t and copies filter.
 */
#ifndef PM_TABLE_STREAM_SCAN_H
#define PM_TABLE_STREAM_SCAN_H

#include <stdint.h>

#include "data/predicate.h"
#include "table/scan.h"
#include "table/table.h"
#include "util/error.h"

typedef struct pm_stream_scan pm_stream_scan;

/* Validates the options (see above) and captures the starting snapshot the mode names. */
int pm_stream_scan_new(pm_table *t, const pm_predicate *filter, pm_stream_scan **out, pm_error *err);
void pm_stream_scan_free(pm_stream_scan *s); /* NULL ok */

/* One planning step: checks the available snapshots once. *out (owned by the caller, pm_plan_free)
 * may hold no splits (nothing new, or the end of input: pm_stream_scan_finished). */
int pm_stream_scan_plan(pm_stream_scan *s, pm_plan **out, pm_error *err);
/* 1 once the bounded watermark was passed (every later plan is empty). */
int pm_stream_scan_finished(const pm_stream_scan *s);
/* 1 and *next = the next snapshot to plan; 0 before the start is resolved. */
int pm_stream_scan_checkpoint(const pm_stream_scan *s, int64_t *next);
/* next > 0: continue from that snapshot; 0: start over with the starting scanner. */
void pm_stream_scan_restore(pm_stream_scan *s, int64_t next);
/* 1 and *wm = the watermark of the last planned snapshot (when it had one). */
int pm_stream_scan_watermark(const pm_stream_scan *s, int64_t *wm);
/* With consumer-id set: writes the consumer file with nextSnapshot = next (next >= 1). Else nothing. */
int pm_stream_scan_notify_checkpoint_complete(pm_stream_scan *s, int64_t next, pm_error *err);
/* continuous.discovery-interval in milliseconds. */
int64_t pm_stream_scan_discovery_interval_ms(const pm_stream_scan *s);

#endif
