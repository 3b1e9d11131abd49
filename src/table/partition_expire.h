/*
 * Partition expiry (issue 13 §2; Java's NormalPartitionExpire with the
 * values-time / update-time PartitionExpireStrategy).
 *
 * Options (t->co): partition.expiration-time (unset: no expiry),
 * partition.expiration-check-interval, partition.expiration-strategy
 * ("values-time": the time extracted from the partition values by
 * partition.timestamp-pattern / partition.timestamp-formatter, see
 * table/partition_time.h; "update-time": the newest creation time of the
 * partition's live files), partition.expiration-max-num,
 * partition.expiration-batch-size, end-input.check-partition-expire.
 *
 * A partition of the latest snapshot is expired when its time is before
 * now - expiration-time (local date-times, as Java's LocalDateTime.now()).
 * Values that do not parse as a time (or a null value the pattern uses) keep
 * the partition (Java logs a warning). Expired partitions are sorted by their
 * values joined with ',' and the first max-num are dropped, in batches of
 * batch-size (all at once when unset), each batch one OVERWRITE snapshot that
 * deletes every live file of those partitions (Java's dropPartitions; the
 * files stay on disk until snapshot expiry). Crash-safety and retries are the
 * committer's (table/commit.h).
 *
 * Layer: table.
 */
#ifndef PM_TABLE_PARTITION_EXPIRE_H
#define PM_TABLE_PARTITION_EXPIRE_H

#include <stddef.h>
#include <stdint.h>

#include "table/commit.h"
#include "table/table.h"
#include "util/error.h"

typedef enum pm_pexpire_strategy { PM_PEXPIRE_VALUES_TIME, PM_PEXPIRE_UPDATE_TIME } pm_pexpire_strategy;

typedef struct pm_pexpire_config {
  int enabled;                 /* partition.expiration-time set (and the table is partitioned) */
  int64_t expiration_ms;
  int64_t check_interval_ms;
  pm_pexpire_strategy strategy;
  const char *formatter, *pattern; /* borrowed from the table's options; NULL = unset */
  int32_t max_num;
  int32_t batch_size;          /* 0 = one batch */
  int end_input_check;
} pm_pexpire_config;

/* Reads t's options (an unknown strategy is INVALID_ARGUMENT naming the key). */
int pm_pexpire_config_from_table(const pm_table *t, pm_pexpire_config *c, pm_error *err);

/* One expired partition. */
typedef struct pm_pexpired {
  pm_bytes partition; /* manifest form (owned) */
  char **values;      /* text of each partition key's value (NULL = null), owned */
  char *spec;         /* "k1=v1, k2=v2" (Java's procedure output), owned */
} pm_pexpired;

typedef struct pm_pexpired_list {
  pm_pexpired *items;
  size_t n;
  size_t candidates; /* partitions of the latest snapshot */
} pm_pexpired_list;
void pm_pexpired_list_clear(pm_pexpired_list *l);

/* The partitions of t's latest snapshot expired at local time now_local_ms (ms since
 * 1970-01-01T00:00 local; 0 = the current time), sorted and limited to max_num. */
int pm_partition_expire_plan(pm_table *t, const pm_pexpire_config *c, int64_t now_local_ms, pm_pexpired_list *out,
                             pm_error *err);

/* Plans, then (dry_run = 0) drops the expired partitions through commit (the caller's
 * committer: its user; identifier as given). out (may be NULL) gets the list. *snapshot_id
 * (may be NULL) = the last snapshot written, -1 when none. Nothing expired: nothing committed. */
int pm_partition_expire_run(pm_table *t, pm_commit *commit, const pm_pexpire_config *c, int64_t now_local_ms,
                            int64_t identifier, int dry_run, pm_pexpired_list *out, int64_t *snapshot_id,
                            pm_error *err);

/* Java's check-interval gate of automatic expiry after commits (one per committer). */
typedef struct pm_pexpire_gate {
  int initialized;
  int64_t last_check_ms; /* local ms */
} pm_pexpire_gate;
/* 1 when an automatic run is due now (and records the check): interval 0, or now after
 * last_check + interval (last_check starts at a random point within one interval before
 * the first call, as Java), or end_input_check with the batch identifier. */
int pm_pexpire_gate_due(pm_pexpire_gate *g, const pm_pexpire_config *c, int64_t now_local_ms, int64_t identifier);

/* Automatic expiry after a successful commit of a committer (Java's TableCommitImpl
 * maintain): nothing unless partition.expiration-time is set, the table is not write-only
 * and the gate says a check is due; then pm_partition_expire_run through a committer of
 * commit_user (copied) with the commit's identifier. *snapshot_id (may be NULL): the last
 * snapshot it wrote, -1 when none. */
int pm_partition_expire_after_commit(pm_table *t, pm_pexpire_gate *g, const char *commit_user, int streaming,
                                     int64_t identifier, int64_t *snapshot_id, pm_error *err);

/* The current local time in ms since 1970-01-01T00:00 local. */
int64_t pm_pexpire_local_now_ms(void);

#endif
