/* Coalesced range reads (io/coalesce.h). */
#include <stdlib.h>
#include <string.h>

#include "io/coalesce.h"

typedef struct ord_item {
  uint64_t off;
  size_t idx;
} ord_item;

static int by_offset(const void *a, const void *b) {
  const ord_item *x = a, *y = b;
  if (x->off != y->off) return x->off < y->off ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* ord = indices of the non-empty ranges by offset (stable). */
static void sort_ranges(const pm_read_range *r, size_t n, ord_item *tmp, size_t *ord) {
  size_t m = 0;
  int sorted = 1;
  for (size_t i = 0; i < n; i++) {
    if (!r[i].len) continue;
    if (m && r[i].off < tmp[m - 1].off) sorted = 0;
    tmp[m].off = r[i].off;
    tmp[m++].idx = i;
  }
  if (!sorted) qsort(tmp, m, sizeof *tmp, by_offset);
  for (size_t i = 0; i < m; i++) ord[i] = tmp[i].idx;
}

int pm_file_read_coalesced(pm_file *f, const pm_read_range *r, size_t n, uint64_t max_gap, uint64_t max_block,
                           size_t *reads, pm_error *err) {
  if (reads) *reads = 0;
  size_t m = 0;
  for (size_t i = 0; i < n; i++) m += r[i].len > 0;
  if (!m) return 0;
  size_t *ord = malloc(m * sizeof *ord);
  ord_item *items = malloc(m * sizeof *items);
  pm_read_range *merged = malloc(m * sizeof *merged);
  size_t *first = malloc((m + 1) * sizeof *first); /* group g: ord[first[g], first[g + 1]) */
  uint8_t **tmp = calloc(m, sizeof *tmp);
  int rc = (ord && items && merged && first && tmp) ? 0 : PM_NOMEM(err);
  size_t g = 0, k = 0;
  if (!rc) {
    sort_ranges(r, n, items, ord); /* empty ranges need no bytes */
    while (k < m) {
      const pm_read_range *a = &r[ord[k]];
      uint64_t start = a->off, end = a->off + a->len;
      first[g] = k++;
      while (k < m) {
        const pm_read_range *b = &r[ord[k]];
        uint64_t e = b->off + b->len > end ? b->off + b->len : end;
        if (b->off > end && b->off - end > max_gap) break;
        if (e - start > max_block) break;
        end = e;
        k++;
      }
      merged[g].off = start;
      merged[g].len = (size_t)(end - start);
      if (k - first[g] == 1) {
        merged[g].dst = a->dst; /* a lone range reads in place */
      } else {
        tmp[g] = malloc(merged[g].len);
        if (!tmp[g]) {
          rc = PM_NOMEM(err);
          break;
        }
        merged[g].dst = tmp[g];
      }
      g++;
    }
    first[g] = k;
  }
  if (!rc) rc = pm_file_read_ranges(f, merged, g, err);
  for (size_t x = 0; !rc && x < g; x++) {
    if (!tmp[x]) continue;
    for (size_t y = first[x]; y < first[x + 1]; y++) {
      const pm_read_range *a = &r[ord[y]];
      memcpy(a->dst, tmp[x] + (a->off - merged[x].off), a->len);
    }
  }
  if (!rc && reads) *reads = g;
  for (size_t x = 0; tmp && x < m; x++) free(tmp[x]);
  free(tmp);
  free(first);
  free(merged);
  free(ord);
  free(items);
  return rc;
}
