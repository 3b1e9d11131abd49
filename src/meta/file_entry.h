/*
 * Identity of a data-file manifest entry and the ADD/DELETE merge rule over
 * it (Java's FileEntry.Identifier and FileEntry.mergeEntries; SEMANTICS.md
 * 4.3, 7.6): identity = (partition, bucket, level, file name, extra files,
 * embedded index, external path).
 *
 * pm_entry_merge folds a sequence of entries into identity -> state:
 *   ADD    of an identity already held (ADD or DELETE) -> PAIMON_ERR_CONFLICT
 *          ("added twice"); otherwise the identity becomes ADD;
 *   DELETE of an identity held -> it is removed; otherwise it is kept as a
 *          DELETE (a file deleted that was never added here).
 * Memory: the merge holds pointers to the entries it was given (borrowed:
 * they must outlive it), never copies.
 */
#ifndef PM_META_FILE_ENTRY_H
#define PM_META_FILE_ENTRY_H

#include <stddef.h>
#include <stdint.h>

#include "meta/manifest.h"
#include "util/error.h"

uint64_t pm_file_entry_hash(const pm_manifest_entry *e);
/* 1 when a and b have the same identity (kind is not compared). */
int pm_file_entry_same(const pm_manifest_entry *a, const pm_manifest_entry *b);

typedef struct pm_entry_merge_slot {
  const pm_manifest_entry *e; /* NULL = empty slot */
  int8_t state;               /* PM_FILE_ADD, PM_FILE_DELETE, or -1 = removed (tombstone) */
} pm_entry_merge_slot;

typedef struct pm_entry_merge {
  pm_entry_merge_slot *slots;
  size_t cap, used; /* used counts slots ever filled (tombstones included) */
} pm_entry_merge;

/* expected: a size hint (entries that will be added). */
int pm_entry_merge_init(pm_entry_merge *m, size_t expected, pm_error *err);
void pm_entry_merge_free(pm_entry_merge *m);
/* Applies one entry as above; the conflict message names the file and `what` (e.g. the table). */
int pm_entry_merge_apply(pm_entry_merge *m, const pm_manifest_entry *e, const char *what, pm_error *err);
/* The state of e's identity: PM_FILE_ADD, PM_FILE_DELETE, or -1 when not held. */
int pm_entry_merge_state(const pm_entry_merge *m, const pm_manifest_entry *e);
/* The entry held for e's identity (the last ADD applied, or the DELETE kept), NULL when none. In
 * Java's order (LinkedHashMap) the survivors of a merged sequence are the entries, in sequence
 * order, that are held for their own identity: pm_entry_merge_held(m, &e[i]) == &e[i]. */
const pm_manifest_entry *pm_entry_merge_held(const pm_entry_merge *m, const pm_manifest_entry *e);
/* The first identity left as DELETE (NULL when none): a delete of a file not present. */
const pm_manifest_entry *pm_entry_merge_first_delete(const pm_entry_merge *m);

#endif
