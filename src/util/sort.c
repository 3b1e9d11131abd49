/* Stable index sort with a context (see sort.h). */
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

/* Short runs: insertion sort (stable: moves only past strictly greater). */
#define INSERTION_RUN 16

int pm_sort_indices(size_t *idx, size_t n, pm_index_cmp_fn cmp, const void *ctx) {
  if (n < 2) return 0;
  for (size_t lo = 0; lo < n; lo += INSERTION_RUN) {
    size_t hi = lo + INSERTION_RUN < n ? lo + INSERTION_RUN : n;
    for (size_t i = lo + 1; i < hi; i++) {
      size_t v = idx[i], j = i;
      while (j > lo && cmp(ctx, idx[j - 1], v) > 0) {
        idx[j] = idx[j - 1];
        j--;
      }
      idx[j] = v;
    }
  }
  if (n <= INSERTION_RUN) return 0;
  size_t *tmp = malloc(n * sizeof *tmp);
  if (!tmp) return -1;
  size_t *src = idx, *dst = tmp;
  for (size_t width = INSERTION_RUN; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      size_t mid = lo + width < n ? lo + width : n;
      size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
      size_t a = lo, b = mid, o = lo;
      while (a < mid && b < hi) dst[o++] = cmp(ctx, src[b], src[a]) < 0 ? src[b++] : src[a++];
      while (a < mid) dst[o++] = src[a++];
      while (b < hi) dst[o++] = src[b++];
    }
    size_t *t = src;
    src = dst;
    dst = t;
  }
  if (src != idx) memcpy(idx, src, n * sizeof *idx);
  free(tmp);
  return 0;
}

/* LSD radix sort over 8-bit digits of the key with its sign bit flipped (so
 * unsigned digit order is signed key order); digits every key shares are
 * skipped. Each pass is a stable counting sort of (digit-key, index) pairs. */
typedef struct radix_item {
  uint64_t key;
  size_t idx;
} radix_item;

int pm_sort_indices_i64(size_t *idx, size_t n, const int64_t *keys) {
  if (n < 2) return 0;
  radix_item *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
  size_t(*count)[256] = calloc(8, sizeof *count);
  if (!a || !b || !count) {
    free(a);
    free(b);
    free(count);
    return -1;
  }
  for (size_t i = 0; i < n; i++) {
    uint64_t k = (uint64_t)keys[idx[i]] ^ ((uint64_t)1 << 63);
    a[i].key = k;
    a[i].idx = idx[i];
    for (int d = 0; d < 8; d++) count[d][(k >> (8 * d)) & 255]++;
  }
  for (int d = 0; d < 8; d++) {
    size_t *c = count[d];
    if (c[(a[0].key >> (8 * d)) & 255] == n) continue; /* every key has this digit */
    size_t sum = 0;
    for (int v = 0; v < 256; v++) {
      size_t t = c[v];
      c[v] = sum;
      sum += t;
    }
    for (size_t i = 0; i < n; i++) b[c[(a[i].key >> (8 * d)) & 255]++] = a[i];
    radix_item *t = a;
    a = b;
    b = t;
  }
  for (size_t i = 0; i < n; i++) idx[i] = a[i].idx;
  free(a);
  free(b);
  free(count);
  return 0;
}
