#include <stdint.h>
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

static int by_i64(const void *ctx, size_t a, size_t b) {
  const int64_t *k = ctx;
  return (k[a] > k[b]) - (k[a] < k[b]);
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

/* The radix sort gives exactly the comparison sort's order (stable), over
 * negative, huge and repeated keys, with idx not starting as the identity. */
static void test_i64_matches_comparison_sort(void) {
  size_t sizes[] = {0, 1, 2, 17, 1000, 70000};
  uint64_t x = 88172645463325252ull;
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    size_t n = sizes[s];
    int64_t *keys = malloc((n + 1) * sizeof *keys);
    size_t *a = malloc((n + 1) * sizeof *a), *b = malloc((n + 1) * sizeof *b);
    for (int mode = 0; mode < 5; mode++) {
      for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        keys[i] = mode == 0   ? (int64_t)(x % 5) - 2
                  : mode == 1 ? (int64_t)x
                  : mode == 2 ? (int64_t)(int32_t)x
                  : mode == 3 ? (int64_t)(n - i)
                              : (x & 1 ? INT64_MIN : INT64_MAX);
        a[i] = b[i] = (i * 7919) % (n ? n : 1); /* a permutation when n is not a multiple of 7919 */
      }
      CHECK_EQ_INT(pm_sort_indices_i64(a, n, keys), 0);
      CHECK_EQ_INT(pm_sort_indices(b, n, by_i64, keys), 0);
      int same = 1;
      for (size_t i = 0; i < n; i++) same &= a[i] == b[i];
      CHECK(same);
    }
    free(keys);
    free(a);
    free(b);
  }
}

int main(void) {
  RUN_TEST(test_sizes_and_stability);
  RUN_TEST(test_i64_matches_comparison_sort);
  TEST_MAIN_END();
}
