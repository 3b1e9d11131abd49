/* Bucket hashing: MurmurHash3-x86-32 "hashByWords", seed 42 (FORMAT.md 6.1-6.2). */
#include "data/bucket.h"

static inline uint32_t rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

int32_t pm_bucket_hash(const uint8_t *row, size_t len) {
  uint32_t h = 42;
  size_t words = len / 4;
  for (size_t i = 0; i < words; i++) {
    const uint8_t *p = row + 4 * i;
    uint32_t k = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
    k *= 0xcc9e2d51u;
    k = rotl32(k, 15);
    k *= 0x1b873593u;
    h ^= k;
    h = rotl32(h, 13);
    h = h * 5 + 0xe6546b64u;
  }
  h ^= (uint32_t)len;
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return (int32_t)h;
}

int32_t pm_bucket_of_hash(int32_t hash, int32_t n) {
  int32_t r = hash % n; /* C99 truncates toward zero like Java */
  return r < 0 ? -r : r;
}

int32_t pm_bucket_mod(int64_t value, int32_t n) {
  int64_t r = value % n;
  if (r < 0) r += n;
  return (int32_t)r;
}
