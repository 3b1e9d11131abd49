/*
 * Sorting with a caller context (C11 qsort has none, and qsort_r differs
 * between platforms): a stable merge sort of an index array, so sorts that
 * need per-call state stay thread-safe without globals.
 */
#ifndef PM_UTIL_SORT_H
#define PM_UTIL_SORT_H

#include <stddef.h>
#include <stdint.h>

/* Returns <0, 0 or >0 as element a orders before, with or after element b. */
typedef int (*pm_index_cmp_fn)(const void *ctx, size_t a, size_t b);

/* Sorts idx[0..n) by cmp, stably (equal elements keep their order). Returns
 * 0, or -1 when the scratch buffer cannot be allocated (idx unchanged). */
int pm_sort_indices(size_t *idx, size_t n, pm_index_cmp_fn cmp, const void *ctx);

/* Sorts idx[0..n) by the signed 64-bit keys[idx[i]], stably (an LSD radix
 * sort: the same order pm_sort_indices gives with a key comparison). keys is
 * indexed by the values held in idx. Returns 0, or -1 when scratch memory
 * cannot be allocated (idx unchanged). */
int pm_sort_indices_i64(size_t *idx, size_t n, const int64_t *keys);

#endif
