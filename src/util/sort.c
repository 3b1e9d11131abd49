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
