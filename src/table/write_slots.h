/*
 * What the two table writers (write.c: append tables, kv_write.c:
 * primary-key tables) share about their (partition, bucket) writers:
 *  - the slot map: (partition row bytes, bucket) -> position of the writer's
 *    slot in the writer's own slot array (open addressing; the partition
 *    bytes are borrowed from the slot, which must outlive the map);
 *  - what a new slot restores from the latest snapshot: the live files (one
 *    scan per writer), the bucket's next sequence number and Java's check
 *    that the partition was written with the table's bucket count;
 *  - the hash of a row's key columns (BinaryRow, MurmurHash3 as Java's
 *    BinaryRow.hashCode), which picks fixed buckets and keys dynamic ones.
 */
#ifndef PM_TABLE_WRITE_SLOTS_H
#define PM_TABLE_WRITE_SLOTS_H

#include <stddef.h>
#include <stdint.h>

#include "data/binary_row.h"
#include "data/types.h"
#include "meta/manifest.h"
#include "paimon/arrow_c.h"
#include "table/table.h"
#include "util/error.h"

typedef struct pm_slot_map_entry {
  const uint8_t *part; /* borrowed from the slot */
  size_t part_len;
  uint64_t hash;
  int32_t bucket;
  size_t pos; /* slot position + 1; 0: empty */
} pm_slot_map_entry;

typedef struct pm_slot_map {
  pm_slot_map_entry *ht;
  size_t cap, n;
} pm_slot_map;

void pm_slot_map_free(pm_slot_map *m); /* zeroes it; a zeroed map is empty */
/* Position of the slot of (part, bucket), or -1. */
int64_t pm_slot_map_find(const pm_slot_map *m, const uint8_t *part, size_t part_len, int32_t bucket);
/* Adds (part, bucket) -> pos; part is borrowed (it must live as long as the
 * entry). The key must not be in the map. */
int pm_slot_map_add(pm_slot_map *m, const uint8_t *part, size_t part_len, int32_t bucket, size_t pos, pm_error *err);

/* The live files of t's latest snapshot into *previous, once: the first call
 * (*scanned == 0) scans and sets *scanned; later calls do nothing. */
int pm_write_previous_files(pm_table *t, int *scanned, pm_manifest_entries *previous, pm_error *err);

/* For a new writer of (part, bucket): *next_seq = 1 + the bucket's maximum
 * sequence number among `previous` (0 when none), after Java's check that
 * each previous file of the partition has total_buckets equal to t->bucket
 * (files without a positive count are not checked):
 * PAIMON_ERR_INVALID_ARGUMENT naming the partition otherwise. */
int pm_write_slot_restore(const pm_table *t, const pm_manifest_entries *previous, const uint8_t *part,
                          size_t part_len, int32_t bucket, int64_t *next_seq, pm_error *err);

/* The hash of row r's key columns (types[i] at b->children[cols[i]], n of
 * them) as a BinaryRow, built in rw (reset here; reused across rows). */
int pm_write_key_hash(const pm_data_type *const *types, const int *cols, size_t n, const struct ArrowArray *b,
                      int64_t r, pm_binary_row_writer *rw, int32_t *hash, pm_error *err);

#endif
