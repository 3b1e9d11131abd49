#include <stdlib.h>

#include "harness.h"
#include "util/sort.h"

typedef struct item {
  int key;
  int seq; /* original position, to check stability */
} item;

static int by_key(const void *ctx, size_t a, size_t b) {
  const item *it = ctx;
  return (it[a].key > it[b].key) - (it[a].key < it[b].key);
}

static void check_sorted(const item *it, const size_t *idx, size_t n) {
  int ok = 1;
  char *seen = calloc(n + 1, 1);
  for (size_t i = 0; i < n; i++) {
    if (idx[i] >= n || seen[idx[i]]) ok = 0;
    else seen[idx[i]] = 1;
    if (i && ok) {
      const item *p = &it[idx[i - 1]], *q = &it[idx[i]];
      if (p->key > q->key || (p->key == q->key && p->seq > q->seq)) ok = 0;
    }
  }
  free(seen);
  CHECK(ok);
}

static void test_sizes_and_stability(void) {
  size_t sizes[] = {0, 1, 2, 15, 16, 17, 31, 33, 100, 1000, 4099};
  unsigned seed = 12345;
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    size_t n = sizes[s];
    item *it = malloc((n + 1) * sizeof *it);
    size_t *idx = malloc((n + 1) * sizeof *idx);
    for (int mode = 0; mode < 4; mode++) {
      for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        int r = (int)(seed >> 16);
        it[i].key = mode == 0 ? r % 7 : mode == 1 ? (int)i : mode == 2 ? (int)(n - i) : r;
        it[i].seq = (int)i;
        idx[i] = i;
      }
      CHECK_EQ_INT(pm_sort_indices(idx, n, by_key, it), 0);
      check_sorted(it, idx, n);
    }
    free(it);
    free(idx);
  }
}

int main(void) {
  RUN_TEST(test_sizes_and_stability);
  TEST_MAIN_END();
}
