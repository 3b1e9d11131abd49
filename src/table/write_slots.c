/* The table writers' shared slot map, slot restore and key hash (write_slots.h). */
#include "table/write_slots.h"

#include <stdlib.h>
#include <string.h>

#include "data/bucket.h"
#include "table/partition.h"
#include "table/scan.h"
#include "table/write_internal.h"

static uint64_t slot_hash(const uint8_t *p, size_t n, int32_t bucket) {
  uint64_t h = 1469598103934665603ull ^ (uint32_t)bucket;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

void pm_slot_map_free(pm_slot_map *m) {
  free(m->ht);
  memset(m, 0, sizeof *m);
}

int64_t pm_slot_map_find(const pm_slot_map *m, const uint8_t *part, size_t part_len, int32_t bucket) {
  if (!m->cap) return -1;
  uint64_t h = slot_hash(part, part_len, bucket);
  for (size_t p = (size_t)h & (m->cap - 1); m->ht[p].pos; p = (p + 1) & (m->cap - 1)) {
    const pm_slot_map_entry *e = &m->ht[p];
    if (e->hash == h && e->bucket == bucket && e->part_len == part_len && !memcmp(e->part, part, part_len))
      return (int64_t)e->pos - 1;
  }
  return -1;
}

static void place(pm_slot_map_entry *ht, size_t cap, const pm_slot_map_entry *e) {
  size_t p = (size_t)e->hash & (cap - 1);
  while (ht[p].pos) p = (p + 1) & (cap - 1);
  ht[p] = *e;
}

int pm_slot_map_add(pm_slot_map *m, const uint8_t *part, size_t part_len, int32_t bucket, size_t pos, pm_error *err) {
  if ((m->n + 1) * 2 > m->cap) {
    size_t cap = m->cap ? 2 * m->cap : 64;
    pm_slot_map_entry *ht = calloc(cap, sizeof *ht);
    if (!ht) return PM_NOMEM(err);
    for (size_t i = 0; i < m->cap; i++)
      if (m->ht[i].pos) place(ht, cap, &m->ht[i]);
    free(m->ht);
    m->ht = ht;
    m->cap = cap;
  }
  pm_slot_map_entry e = {part, part_len, slot_hash(part, part_len, bucket), bucket, pos + 1};
  place(m->ht, m->cap, &e);
  m->n++;
  return 0;
}

int pm_write_previous_files(pm_table *t, int *scanned, pm_manifest_entries *previous, pm_error *err) {
  if (*scanned) return 0;
  *scanned = 1;
  pm_snapshot_manager sm = pm_table_snapshots(t);
  pm_snapshot *latest = NULL;
  PM_TRY(pm_snapshot_read_latest_checked(&sm, &latest, err));
  int rc = latest ? pm_scan_live_files(t, latest, NULL, previous, err) : 0;
  pm_snapshot_free(latest);
  return rc;
}

int pm_write_slot_restore(const pm_table *t, const pm_manifest_entries *previous, const uint8_t *part,
                          size_t part_len, int32_t bucket, int64_t *next_seq, pm_error *err) {
  int64_t max = -1;
  for (size_t i = 0; i < previous->n; i++) {
    const pm_manifest_entry *e = &previous->items[i];
    if (e->partition.len != part_len || (part_len && memcmp(e->partition.data, part, part_len))) continue;
    if (e->total_buckets != t->bucket && e->total_buckets > 0) {
      char *pt = NULL;
      pm_error e2;
      pm_partition_path(t, e->partition, &pt, &e2);
      int rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                         "table %s.%s: partition '%s' was written with %d buckets, the table now has %d: rescale "
                         "it with an overwrite first",
                         t->database, t->name, pt ? pt : "?", (int)e->total_buckets, (int)t->bucket);
      free(pt);
      return rc;
    }
    if (e->bucket == bucket && e->file.max_sequence_number > max) max = e->file.max_sequence_number;
  }
  *next_seq = max + 1;
  return 0;
}

int pm_write_key_hash(const pm_data_type *const *types, const int *cols, size_t n, const struct ArrowArray *b,
                      int64_t r, pm_binary_row_writer *rw, int32_t *hash, pm_error *err) {
  PM_TRY(pm_row_writer_reset(rw, err));
  for (size_t i = 0; i < n; i++) {
    pm_value v;
    PM_TRY(pm_write_value_at(types[i], b->children[cols[i]], r, &v, err));
    PM_TRY(pm_row_writer_write(rw, (int32_t)i, types[i], &v, err));
  }
  *hash = pm_bucket_hash(rw->buf.data, rw->buf.len);
  return 0;
}
