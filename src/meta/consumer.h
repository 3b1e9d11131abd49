/*
 * Consumers (issue 13 §3; Java's ConsumerManager): a consumer is a file
 * <branch dir>/consumer/consumer-<id> holding {"nextSnapshot" : N}, the next
 * snapshot a streaming reader will read. Snapshot expiry keeps every
 * snapshot >= the smallest nextSnapshot (unless consumer.changelog-only);
 * consumer.expiration-time removes consumers whose file was not updated for
 * that long.
 *
 * Where: a pm_snapshot_manager {fs, table root, branch} (meta/snapshot.h).
 * Writes are atomic (whole file replaced); ids are any file-name-safe text.
 */
#ifndef PM_META_CONSUMER_H
#define PM_META_CONSUMER_H

#include <stddef.h>
#include <stdint.h>

#include "meta/snapshot.h"
#include "util/error.h"

typedef struct pm_consumer {
  char *id;               /* owned */
  int64_t next_snapshot;  /* "nextSnapshot" */
  int64_t mtime_millis;   /* modification time of the file */
} pm_consumer;

/* <branch dir>/consumer/consumer-<id>, malloc'd. */
char *pm_consumer_path(const pm_snapshot_manager *m, const char *id);
/* Every consumer, sorted by id (*out malloc'd: pm_consumers_free). Missing dir = none.
 * A consumer file removed while listing is skipped; a malformed one is CORRUPT naming it. */
int pm_consumer_list(const pm_snapshot_manager *m, pm_consumer **out, size_t *n, pm_error *err);
void pm_consumers_free(pm_consumer *c, size_t n); /* NULL ok */
/* Reads one consumer's nextSnapshot. Missing = PAIMON_ERR_NOT_FOUND naming the file. */
int pm_consumer_read(const pm_snapshot_manager *m, const char *id, int64_t *next_snapshot, pm_error *err);
/* Smallest nextSnapshot of all consumers; *found = 0 when there is none. */
int pm_consumer_min_next(const pm_snapshot_manager *m, int64_t *min_next, int *found, pm_error *err);
/* Writes (creates or replaces) consumer id with nextSnapshot = next (Java's JSON layout).
 * An id that is empty or holds '/' is INVALID_ARGUMENT. */
int pm_consumer_reset(const pm_snapshot_manager *m, const char *id, int64_t next, pm_error *err);
/* Deletes consumer id; *existed (may be NULL) = 0 when there was none (not an error). */
int pm_consumer_delete(const pm_snapshot_manager *m, const char *id, int *existed, pm_error *err);
/* Deletes every consumer whose file is older than expire_before_ms (mtime < it); *n_deleted
 * (may be NULL) counts them. */
int pm_consumer_expire(const pm_snapshot_manager *m, int64_t expire_before_ms, size_t *n_deleted, pm_error *err);

#endif
