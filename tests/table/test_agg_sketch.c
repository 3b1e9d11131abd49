/* Tests of the binary aggregate functions rbm64 / theta_sketch / hll_sketch (table/agg_sketch.h).
 * No Java is available offline, so expected bytes are derived by hand from the Java sources
 * (derivations in the comments) and larger cases check properties: decoded content, idempotence,
 * agreement between merge orders where Java's result is order independent. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "table/agg_sketch.h"

typedef int (*merge_fn)(const uint8_t *, size_t, const uint8_t *, size_t, pm_buf *, pm_error *);

/* ---- byte stream builder ---- */
typedef struct bytes {
  uint8_t d[1 << 16];
  size_t n;
} bytes;

static void put(bytes *b, uint64_t v, int width) {
  for (int i = 0; i < width; i++) b->d[b->n++] = (uint8_t)(v >> (8 * i));
}
static void put_be(bytes *b, uint64_t v, int width) {
  for (int i = width - 1; i >= 0; i--) b->d[b->n++] = (uint8_t)(v >> (8 * i));
}
static void put_raw(bytes *b, const void *p, size_t n) {
  memcpy(b->d + b->n, p, n);
  b->n += n;
}

static void hexdiff(const uint8_t *got, size_t got_len, const uint8_t *want, size_t want_len) {
  size_t i = 0;
  while (i < got_len && i < want_len && got[i] == want[i]) i++;
  fprintf(stderr, "  lengths got %zu want %zu, first difference at %zu\n", got_len, want_len, i);
  for (size_t j = i > 8 ? i - 8 : 0; j < i + 16 && (j < got_len || j < want_len); j++)
    fprintf(stderr, "  [%zu] got %02x want %02x\n", j, j < got_len ? got[j] : 0xAAu, j < want_len ? want[j] : 0xAAu);
}

static int merge_expect(merge_fn fn, const bytes *a, const bytes *b, const bytes *want) {
  pm_buf out;
  pm_buf_init(&out);
  pm_error err = {0};
  int rc = fn(a->d, a->n, b->d, b->n, &out, &err);
  int ok = rc == 0 && out.len == want->n && memcmp(out.data, want->d, want->n) == 0;
  if (rc) fprintf(stderr, "  merge failed: %s\n", err.message);
  else if (!ok) hexdiff(out.data, out.len, want->d, want->n);
  pm_buf_free(&out);
  return ok;
}

/* =============================================================================================
 * rbm64 (Roaring64Bitmap 1.2.1 legacy ART serialization; layout described in agg_sketch.c)
 * ============================================================================================= */

/* Java RoaringBitmap64.bitmapOf(v) for a single value: Roaring64Bitmap.add makes an
 * ArrayContainer {low16} under a root leaf; runOptimize keeps it an array (2 bytes <= 6 bytes
 * as a run). keySize 1, one container slot (capacity 1), containerSize 1, indices (0, 0). */
static void rbm_single(bytes *b, uint64_t v) {
  b->n = 0;
  put(b, 1, 1);              /* not empty */
  put(b, 1, 8);              /* keySize */
  put(b, 4, 1);              /* leaf */
  put(b, 0, 2);              /* count */
  put(b, 0, 1);              /* prefix length */
  put_be(b, v >> 16, 6);     /* high 48 bits, big-endian */
  put(b, 0, 8);              /* container index */
  put(b, 1, 4);              /* one first level */
  put(b, 0xFE, 1);           /* not trimmed */
  put(b, 1, 4);              /* capacity 1 */
  put(b, 1, 1);              /* present */
  put(b, 2, 1);              /* array */
  put(b, 1, 4);              /* cardinality */
  put(b, v & 0xFFFF, 2);
  put(b, 1, 8);              /* containerSize */
  put(b, 0, 4);              /* firstLevelIdx */
  put(b, 0, 4);              /* secondLevelIdx */
}

/* ---- an independent decoder of the content, for property checks ---- */
typedef struct rbm_leaf {
  uint64_t high;
  uint32_t idx;
} rbm_leaf;

static size_t dec_off;
static int dec_node(const uint8_t *p, size_t n, rbm_leaf *leaves, int *nleaves) {
  if (dec_off + 4 > n) return -1;
  int type = p[dec_off], count = p[dec_off + 1] | p[dec_off + 2] << 8, plen = p[dec_off + 3];
  dec_off += 4 + (size_t)plen;
  if (type == 4) {
    uint64_t high = 0;
    for (int i = 0; i < 6; i++) high = high << 8 | p[dec_off + (size_t)i];
    leaves[*nleaves].high = high;
    leaves[*nleaves].idx = (uint32_t)(p[dec_off + 6] | p[dec_off + 7] << 8 | p[dec_off + 8] << 16);
    (*nleaves)++;
    dec_off += 14;
    return 0;
  }
  static const int body[] = {4, 16, 256, 32};
  dec_off += (size_t)body[type];
  for (int i = 0; i < count; i++)
    if (dec_node(p, n, leaves, nleaves)) return -1;
  return 0;
}

static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

/* Decodes all values (ascending) into vals; returns the count or -1. */
static long rbm_decode(const uint8_t *p, size_t n, uint64_t *vals, long max) {
  static rbm_leaf leaves[4096];
  static long slot_start[4096];
  if (n == 1 && p[0] == 0) return 0;
  int nleaves = 0;
  dec_off = 9;
  if (dec_node(p, n, leaves, &nleaves)) return -1;
  dec_off += 5; /* levels, trim mark */
  uint32_t cap = rd32(p + dec_off);
  dec_off += 4;
  for (uint32_t s = 0; s < cap; s++) {
    if (p[dec_off++] == 0) {
      slot_start[s] = -1;
      continue;
    }
    slot_start[s] = (long)dec_off;
    int type = p[dec_off];
    uint32_t card = rd32(p + dec_off + 1);
    dec_off += 5;
    if (type == 0) dec_off += 2 + 4 * (size_t)(p[dec_off] | p[dec_off + 1] << 8);
    else if (type == 1) dec_off += 8192;
    else dec_off += 2 * (size_t)card;
  }
  long count = 0;
  for (int i = 0; i < nleaves; i++) {
    const uint8_t *c = p + slot_start[leaves[i].idx];
    int type = c[0];
    uint32_t card = rd32(c + 1);
    c += 5;
    uint64_t base = leaves[i].high << 16;
    if (type == 2) {
      for (uint32_t k = 0; k < card && count < max; k++) vals[count++] = base | (uint64_t)(c[2 * k] | c[2 * k + 1] << 8);
    } else if (type == 1) {
      for (uint32_t v = 0; v < 65536 && count < max; v++)
        if ((c[v >> 3] >> (v & 7)) & 1) vals[count++] = base | v;
    } else {
      int runs = c[0] | c[1] << 8;
      for (int r = 0; r < runs; r++) {
        uint32_t s = (uint32_t)(c[2 + 4 * r] | c[3 + 4 * r] << 8), l = (uint32_t)(c[4 + 4 * r] | c[5 + 4 * r] << 8);
        for (uint32_t v = s; v <= s + l && count < max; v++) vals[count++] = base | v;
      }
    }
  }
  return count;
}

static void test_rbm64_single_values(void) {
  bytes a, b, want;
  pm_error err = {0};
  /* {1} | {2}: same key, ArrayContainer.ior keeps an array {1,2} (2 values: 4 bytes, as a run 6
   * bytes, so runOptimize keeps the array). */
  rbm_single(&a, 1);
  rbm_single(&b, 2);
  rbm_single(&want, 1);
  want.d[want.n - 16 - 2 - 4] = 2; /* cardinality */
  want.n -= 16 + 2;
  put(&want, 1, 2);
  put(&want, 2, 2);
  put(&want, 1, 8);
  put(&want, 0, 4);
  put(&want, 0, 4);
  CHECK(merge_expect(pm_agg_rbm64_merge, &a, &b, &want));

  /* {1} | {1}: unchanged */
  rbm_single(&want, 1);
  CHECK(merge_expect(pm_agg_rbm64_merge, &a, &a, &want));

  /* {1} | {2^32}: keys 000000000000 and 000000010000 share 3 bytes: the root leaf splits into a
   * Node4 with prefix 00 00 00 and children under bytes 00 and 01 (int key 0x00010000, written
   * little-endian: 00 00 01 00). The new container goes to slot 1; the slot array grows from 1 to
   * max(1 + 1/2, 2) = 2. keySize 2. */
  rbm_single(&b, 1ull << 32);
  want.n = 0;
  put(&want, 1, 1);
  put(&want, 2, 8);
  put(&want, 0, 1), put(&want, 2, 2), put(&want, 3, 1), put(&want, 0, 3);
  put_raw(&want, "\x00\x00\x01\x00", 4);
  put(&want, 4, 1), put(&want, 0, 3), put_be(&want, 0, 6), put(&want, 0, 8);
  put(&want, 4, 1), put(&want, 0, 3), put_be(&want, 0x10000, 6), put(&want, 1, 8);
  put(&want, 1, 4), put(&want, 0xFE, 1), put(&want, 2, 4);
  put(&want, 1, 1), put(&want, 2, 1), put(&want, 1, 4), put(&want, 1, 2);
  put(&want, 1, 1), put(&want, 2, 1), put(&want, 1, 4), put(&want, 0, 2);
  put(&want, 2, 8), put(&want, 0, 4), put(&want, 1, 4);
  CHECK(merge_expect(pm_agg_rbm64_merge, &a, &b, &want));

  /* empty | {1} = {1} (Java: empty tag 0, then or() adds the container and the leaf) */
  bytes empty = {.n = 1};
  empty.d[0] = 0;
  rbm_single(&want, 1);
  CHECK(merge_expect(pm_agg_rbm64_merge, &empty, &a, &want));
  CHECK(merge_expect(pm_agg_rbm64_merge, &a, &empty, &want));
  want.n = 1;
  want.d[0] = 0;
  CHECK(merge_expect(pm_agg_rbm64_merge, &empty, &empty, &want));

  /* {1,2,3} | {4,5,6}: arrays of 3 (6 bytes, not more than a 6-byte run: stays array); the union
   * {1..6} is 12 bytes as an array, 6 as one run, so runOptimize writes run (start 1, length-1 5),
   * cardinality 6. Build a = {1,2,3} by merging single values, as Java's aggregator would. */
  pm_buf acc, next;
  pm_buf_init(&acc);
  pm_buf_init(&next);
  rbm_single(&a, 1);
  pm_buf_append(&acc, a.d, a.n);
  for (uint64_t v = 2; v <= 3; v++) {
    rbm_single(&b, v);
    next.len = 0;
    CHECK_OK(pm_agg_rbm64_merge(acc.data, acc.len, b.d, b.n, &next, &err), &err);
    pm_buf t = acc;
    acc = next;
    next = t;
  }
  bytes b3;
  rbm_single(&b3, 4);
  b3.n -= 16 + 2 + 4; /* rewrite the container as array {4,5,6} */
  put(&b3, 3, 4), put(&b3, 4, 2), put(&b3, 5, 2), put(&b3, 6, 2);
  put(&b3, 1, 8), put(&b3, 0, 4), put(&b3, 0, 4);
  rbm_single(&want, 0);
  want.n -= 16 + 2 + 4 + 1;
  put(&want, 0, 1), put(&want, 6, 4), put(&want, 1, 2), put(&want, 1, 2), put(&want, 5, 2);
  put(&want, 1, 8), put(&want, 0, 4), put(&want, 0, 4);
  memcpy(a.d, acc.data, acc.len);
  a.n = acc.len;
  CHECK(merge_expect(pm_agg_rbm64_merge, &a, &b3, &want));
  pm_buf_free(&acc);
  pm_buf_free(&next);
}

/* Folds single-value bitmaps of vals[0..n) into one, as Java's aggregator does row by row. */
static int rbm_fold(const uint64_t *vals, int n, pm_buf *acc) {
  pm_buf next;
  pm_buf_init(&next);
  pm_error err = {0};
  bytes b;
  acc->len = 0;
  pm_buf_push_u8(acc, 0);
  for (int i = 0; i < n; i++) {
    rbm_single(&b, vals[i]);
    next.len = 0;
    if (pm_agg_rbm64_merge(acc->data, acc->len, b.d, b.n, &next, &err)) {
      fprintf(stderr, "  fold failed: %s\n", err.message);
      pm_buf_free(&next);
      return -1;
    }
    pm_buf t = *acc;
    *acc = next;
    next = t;
  }
  pm_buf_free(&next);
  return 0;
}

static void test_rbm64_node_growth(void) {
  /* Values k<<16 for k = 0..5: six keys 00 00 00 00 00 0k. Derivation from Art.insert:
   * k=1 splits the root leaf into a Node4 with prefix 00*5; k=2,3 fill it (raw keys 0,1,2,3);
   * k=4 grows it to a Node16 (firstV = Node4 key << 32, so positions 4..15 start at zero) and
   * k=5 lands at position 5. Node16 body: positions 7..0 then 15..8. Container slots grow
   * 1,2,3,4,6 (java.util growth old + old/2, at least the needed size); six array containers {0}.
   * secondLevelIdx 5, containerSize 6, keySize 6. */
  uint64_t vals[20];
  for (int k = 0; k < 6; k++) vals[k] = (uint64_t)k << 16;
  pm_buf acc;
  pm_buf_init(&acc);
  CHECK(rbm_fold(vals, 6, &acc) == 0);
  bytes want = {.n = 0};
  put(&want, 1, 1), put(&want, 6, 8);
  put(&want, 1, 1), put(&want, 6, 2), put(&want, 5, 1), put(&want, 0, 5);
  put_raw(&want, "\x00\x00\x05\x04\x03\x02\x01\x00", 8), put(&want, 0, 8);
  for (int k = 0; k < 6; k++) put(&want, 4, 1), put(&want, 0, 3), put_be(&want, (uint64_t)k, 6), put(&want, (uint64_t)k, 8);
  put(&want, 1, 4), put(&want, 0xFE, 1), put(&want, 6, 4);
  for (int k = 0; k < 6; k++) put(&want, 1, 1), put(&want, 2, 1), put(&want, 1, 4), put(&want, 0, 2);
  put(&want, 6, 8), put(&want, 0, 4), put(&want, 5, 4);
  CHECK(acc.len == want.n && memcmp(acc.data, want.d, want.n) == 0);
  if (acc.len != want.n || memcmp(acc.data, want.d, want.n) != 0) hexdiff(acc.data, acc.len, want.d, want.n);

  /* 17 keys: the 17th grows the Node16 to a Node48 where child i takes slot i and the new key 16
   * takes slot 16 (Node48.insert uses slot `count`). Index byte of key k sits at
   * 8*(k/8) + 7 - k%8; empty entries are 0xFF. Slot capacities 1,2,3,4,6,9,13,19. */
  for (int k = 0; k < 17; k++) vals[k] = (uint64_t)k << 16;
  CHECK(rbm_fold(vals, 17, &acc) == 0);
  want.n = 0;
  put(&want, 1, 1), put(&want, 17, 8);
  put(&want, 2, 1), put(&want, 17, 2), put(&want, 5, 1), put(&want, 0, 5);
  uint8_t index[256];
  memset(index, 0xFF, sizeof index);
  for (int k = 0; k < 17; k++) index[8 * (k / 8) + 7 - k % 8] = (uint8_t)k;
  put_raw(&want, index, 256);
  for (int k = 0; k < 17; k++) put(&want, 4, 1), put(&want, 0, 3), put_be(&want, (uint64_t)k, 6), put(&want, (uint64_t)k, 8);
  put(&want, 1, 4), put(&want, 0xFE, 1), put(&want, 19, 4);
  for (int k = 0; k < 17; k++) put(&want, 1, 1), put(&want, 2, 1), put(&want, 1, 4), put(&want, 0, 2);
  put(&want, 0, 2);
  put(&want, 17, 8), put(&want, 0, 4), put(&want, 16, 4);
  CHECK(acc.len == want.n && memcmp(acc.data, want.d, want.n) == 0);
  if (acc.len != want.n || memcmp(acc.data, want.d, want.n) != 0) hexdiff(acc.data, acc.len, want.d, want.n);
  pm_buf_free(&acc);
}

static int cmp_u64(const void *x, const void *y) {
  uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
  return a < b ? -1 : a > b;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

static void test_rbm64_random_content(void) {
  /* Random values spread over a few high keys (so ART nodes of several kinds and all container
   * types appear); decoded content of the fold must be the sorted distinct input. */
  enum { N = 1000 };
  static uint64_t vals[N], got[N + 10];
  for (int round = 0; round < 3; round++) {
    int n = 0;
    for (int i = 0; i < N; i++) {
      uint64_t high = rng() % (round == 0 ? 3 : round == 1 ? 60 : 300);
      uint64_t low = round == 0 ? (rng() % 9000) : (rng() & 0xFFFF);
      high = round == 2 ? (high * 0x10001ull) : high;
      vals[n++] = (high << 16) | low;
    }
    pm_buf acc;
    pm_buf_init(&acc);
    CHECK(rbm_fold(vals, n, &acc) == 0);
    qsort(vals, (size_t)n, sizeof vals[0], cmp_u64);
    int distinct = 0;
    for (int i = 0; i < n; i++)
      if (i == 0 || vals[i] != vals[i - 1]) vals[distinct++] = vals[i];
    long m = rbm_decode(acc.data, acc.len, got, N + 10);
    CHECK_EQ_INT(m, distinct);
    CHECK(m == distinct && memcmp(got, vals, sizeof(uint64_t) * (size_t)distinct) == 0);

    /* x | x == x and x | empty == x (Java's output of an already optimized bitmap) */
    pm_buf out;
    pm_buf_init(&out);
    pm_error err = {0};
    CHECK_OK(pm_agg_rbm64_merge(acc.data, acc.len, acc.data, acc.len, &out, &err), &err);
    CHECK(out.len == acc.len && memcmp(out.data, acc.data, acc.len) == 0);
    out.len = 0;
    uint8_t empty = 0;
    CHECK_OK(pm_agg_rbm64_merge(acc.data, acc.len, &empty, 1, &out, &err), &err);
    CHECK(out.len == acc.len && memcmp(out.data, acc.data, acc.len) == 0);
    pm_buf_free(&out);
    pm_buf_free(&acc);
  }
}

static void test_rbm64_container_types(void) {
  /* bitmap | array: even values 0..9998 (5000, a bitmap: 10000 bytes as array, 20002 as runs) OR
   * {1}: BitmapContainer.ior(ArrayContainer) keeps a bitmap; 4999 runs (0..2 then singles) are
   * larger than 8192 bytes, so the bitmap stays. Built by folding, then checked by decoding. */
  static uint64_t vals[10000], got[10001];
  int n = 0;
  for (int v = 0; v < 10000; v += 2) vals[n++] = (uint64_t)v;
  pm_buf acc, out;
  pm_buf_init(&acc);
  pm_buf_init(&out);
  CHECK(rbm_fold(vals, n, &acc) == 0);
  /* the container (the only one) must be a bitmap: type byte after "01" null mark */
  size_t cont = 1 + 8 + 18 + 4 + 1 + 4;
  CHECK(acc.len > cont + 2 && acc.data[cont] == 1 && acc.data[cont + 1] == 1);
  bytes one;
  rbm_single(&one, 1);
  pm_error err = {0};
  CHECK_OK(pm_agg_rbm64_merge(acc.data, acc.len, one.d, one.n, &out, &err), &err);
  CHECK(out.len == acc.len && out.data[cont + 1] == 1);
  CHECK_EQ_INT(rbm_decode(out.data, out.len, got, 7000), 5001);
  /* Filling the odd values 1..9999 too makes 0..9999 one run: runOptimize writes a run container
   * (6 bytes) with cardinality 10000. */
  for (int v = 1; v < 10000; v += 2) vals[n++] = (uint64_t)v;
  CHECK(rbm_fold(vals, n, &acc) == 0);
  const uint8_t want_tail[] = {1, 0, 0x10, 0x27, 0, 0, 1, 0, 0, 0, 0x0F, 0x27};
  CHECK(acc.len == cont + sizeof want_tail + 16 && memcmp(acc.data + cont, want_tail, sizeof want_tail) == 0);
  pm_buf_free(&acc);
  pm_buf_free(&out);
}

static void test_rbm64_malformed(void) {
  /* Every truncation and every single-byte change of valid values must give 0 or an error,
   * never a crash (ASan build), and errors name the function. */
  static uint64_t vals[200];
  for (int i = 0; i < 200; i++) vals[i] = ((uint64_t)(i % 20) << 16) | (uint64_t)(i * 7);
  pm_buf acc, out;
  pm_buf_init(&acc);
  pm_buf_init(&out);
  CHECK(rbm_fold(vals, 200, &acc) == 0);
  bytes one;
  rbm_single(&one, 12345);
  pm_error err = {0};
  int errors = 0;
  for (size_t cut = 0; cut < acc.len; cut++) {
    out.len = 0;
    int rc = pm_agg_rbm64_merge(acc.data, cut, one.d, one.n, &out, &err);
    if (cut > 1) CHECK(rc == PAIMON_ERR_CORRUPT);
    if (rc) {
      errors++;
      CHECK(strncmp(err.message, "rbm64: ", 7) == 0);
    }
    out.len = 0;
    rc = pm_agg_rbm64_merge(one.d, one.n, acc.data, cut, &out, &err);
    if (cut > 1) CHECK(rc == PAIMON_ERR_CORRUPT);
  }
  CHECK(errors > 0);
  uint8_t *copy = malloc(acc.len);
  for (size_t i = 0; i < acc.len; i++) {
    for (int flip = 0; flip < 3; flip++) {
      memcpy(copy, acc.data, acc.len);
      copy[i] = flip == 0 ? (uint8_t)(copy[i] ^ 0xFF) : flip == 1 ? (uint8_t)(copy[i] + 1) : 0x7F;
      out.len = 0;
      int rc = pm_agg_rbm64_merge(copy, acc.len, acc.data, acc.len, &out, &err);
      CHECK(rc == 0 || rc == PAIMON_ERR_CORRUPT);
      out.len = 0;
      rc = pm_agg_rbm64_merge(acc.data, acc.len, copy, acc.len, &out, &err);
      CHECK(rc == 0 || rc == PAIMON_ERR_CORRUPT);
    }
  }
  free(copy);
  pm_buf_free(&acc);
  pm_buf_free(&out);
}


/* =============================================================================================
 * theta_sketch (DataSketches 4.2.0 compact sketches, serial version 3)
 * ============================================================================================= */

/* MurmurHash3_x64_128 of one long, as DataSketches' MurmurHash3.hash(long[]{v}, seed)[0]. */
static uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
static uint64_t fmix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  k ^= k >> 33;
  return k;
}
static uint64_t murmur_long(uint64_t v, uint64_t seed) {
  uint64_t h1 = seed, h2 = seed, k1 = v;
  k1 *= 0x87c37b91114253d5ull;
  k1 = rotl64(k1, 31);
  k1 *= 0x4cf5ad432745937full;
  h1 ^= k1;
  h1 ^= 8;
  h2 ^= 8;
  h1 += h2;
  h2 += h1;
  h1 = fmix64(h1);
  h2 = fmix64(h2);
  h1 += h2;
  return h1;
}
/* UpdateSketch.update(long): hash >>> 1 with seed 9001 */
static int64_t theta_hash(int64_t v) { return (int64_t)(murmur_long((uint64_t)v, 9001) >> 1); }

static int cmp_i64(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return a < b ? -1 : a > b;
}

/* Java ThetaSketch.sketchOf(values...) = UpdateSketch (k 4096, QuickSelect) then
 * compact().toByteArray(). Content only depends on the rebuilds: when the table (2^13 slots)
 * holds more than 15/16 of its size (7680), theta becomes the 4097th smallest hash and only the
 * hashes below it stay; later hashes >= theta are rejected. compact() keeps all retained hashes. */
static void theta_sketch_of(bytes *out, int64_t first, int64_t count) {
  static int64_t h[20000];
  size_t n = 0;
  int64_t theta = INT64_MAX;
  for (int64_t v = first; v < first + count; v++) {
    int64_t x = theta_hash(v);
    if (x >= theta) continue; /* distinct values: no 64-bit hash collisions expected */
    h[n++] = x;
    if (n > 7680) {
      qsort(h, n, sizeof h[0], cmp_i64);
      theta = h[4096];
      n = 4096;
    }
  }
  qsort(h, n, sizeof h[0], cmp_i64);
  out->n = 0;
  if (n == 0) {
    put_raw(out, "\x01\x03\x03\x00\x00\x1E\x00\x00", 8);
  } else if (n == 1 && theta == INT64_MAX) {
    put_raw(out, "\x01\x03\x03\x00\x00\x3A\xCC\x93", 8);
    put(out, (uint64_t)h[0], 8);
  } else {
    int pre = theta == INT64_MAX ? 2 : 3;
    put(out, (uint64_t)pre, 1);
    put_raw(out, "\x03\x03\x00\x00\x1A\xCC\x93", 7);
    put(out, n, 4);
    put(out, 0x3F800000u, 4);
    if (pre == 3) put(out, (uint64_t)theta, 8);
    for (size_t i = 0; i < n; i++) put(out, (uint64_t)h[i], 8);
  }
}

static void test_theta_small(void) {
  bytes a, b, want, empty;
  /* Hashes (MurmurHash3 seed 9001, >>> 1) of 1 and 2: 0x05A186BDCB7DF915, 0x1E9D708112FC97C3. */
  CHECK(theta_hash(1) == 0x05A186BDCB7DF915ll && theta_hash(2) == 0x1E9D708112FC97C3ll);
  theta_sketch_of(&a, 1, 1);
  theta_sketch_of(&b, 2, 1);
  theta_sketch_of(&empty, 0, 0);
  /* single item | single item: two hashes, theta 1.0 -> preLongs 2, curCount 2, p 1.0f */
  want.n = 0;
  put_raw(&want, "\x02\x03\x03\x00\x00\x1A\xCC\x93\x02\x00\x00\x00\x00\x00\x80\x3F", 16);
  put(&want, 0x05A186BDCB7DF915ull, 8);
  put(&want, 0x1E9D708112FC97C3ull, 8);
  CHECK(merge_expect(pm_agg_theta_merge, &a, &b, &want));
  CHECK(merge_expect(pm_agg_theta_merge, &b, &a, &want));
  /* x | x = x for a single item: the 16-byte SingleItemSketch (flags 0x3A) */
  want.n = 0;
  put_raw(&want, "\x01\x03\x03\x00\x00\x3A\xCC\x93", 8);
  put(&want, 0x05A186BDCB7DF915ull, 8);
  CHECK(merge_expect(pm_agg_theta_merge, &a, &a, &want));
  CHECK(merge_expect(pm_agg_theta_merge, &a, &empty, &want));
  CHECK(merge_expect(pm_agg_theta_merge, &empty, &a, &want));
  /* empty | empty: EmptyCompactSketch bytes {1, 3, 3, 0, 0, 0x1E, 0, 0} */
  CHECK(merge_expect(pm_agg_theta_merge, &empty, &empty, &empty));
  /* Java ignores inputs shorter than 16 bytes (union(Memory): "empty or garbage") */
  bytes junk = {.n = 3};
  CHECK(merge_expect(pm_agg_theta_merge, &junk, &a, &want));
  /* a one-long preamble of family QuickSelect (2) without the single-item flag is not a single
   * item for Java (otherCheckForSingleItem wants the compact family) and is ignored */
  bytes qs = b;
  qs.d[2] = 2;
  qs.d[5] = 0x1A;
  CHECK(merge_expect(pm_agg_theta_merge, &qs, &a, &want));
  qs.d[5] = 0x3A; /* with the single-item flag it counts */
  bytes both;
  both.n = 0;
  put_raw(&both, "\x02\x03\x03\x00\x00\x1A\xCC\x93\x02\x00\x00\x00\x00\x00\x80\x3F", 16);
  put(&both, 0x05A186BDCB7DF915ull, 8);
  put(&both, 0x1E9D708112FC97C3ull, 8);
  CHECK(merge_expect(pm_agg_theta_merge, &qs, &a, &both));
}

static double theta_estimate(const pm_buf *s) {
  if (s->len < 16) return 0;
  if (s->data[0] == 1) return 1;
  uint32_t count = rd32(s->data + 8);
  uint64_t theta = INT64_MAX;
  if (s->data[0] == 3)
    for (int i = 7; i >= 0; i--) theta = i == 7 ? s->data[16 + i] : (theta << 8 | s->data[16 + i]);
  return count / ((double)theta / (double)INT64_MAX);
}

static void test_theta_estimation(void) {
  static bytes a, b, c, e;
  pm_buf out, out2;
  pm_buf_init(&out);
  pm_buf_init(&out2);
  pm_error err = {0};
  /* exact mode: {0..2999} | {1000..3999} = 4000 distinct hashes <= k: preLongs 2, no theta */
  theta_sketch_of(&a, 0, 3000);
  theta_sketch_of(&b, 1000, 3000);
  theta_sketch_of(&c, 0, 4000);
  CHECK(merge_expect(pm_agg_theta_merge, &a, &b, &c));
  /* identity with empty in exact mode */
  theta_sketch_of(&e, 0, 0);
  CHECK(merge_expect(pm_agg_theta_merge, &a, &e, &a));
  /* {0..2999} | {2000..4999} = 5000 distinct > k: theta = the 4097th smallest hash, 4096 kept
   * (union trims to k; the update sketch of 0..4999 keeps all 5000, so compare estimates). */
  theta_sketch_of(&b, 2000, 3000);
  CHECK_OK(pm_agg_theta_merge(a.d, a.n, b.d, b.n, &out, &err), &err);
  CHECK(out.len == 24 + 4096 * 8 && out.data[0] == 3);
  CHECK_EQ_INT(rd32(out.data + 8), 4096);
  double est = theta_estimate(&out);
  CHECK_MSG(est > 5000 * 0.95 && est < 5000 * 1.05, "estimate %.1f", est);
  /* order does not matter for Java's result */
  CHECK_OK(pm_agg_theta_merge(b.d, b.n, a.d, a.n, &out2, &err), &err);
  CHECK(out.len == out2.len && memcmp(out.data, out2.data, out.len) == 0);
  /* estimation-mode inputs: {0..9999} | {5000..14999} ~ 15000 */
  theta_sketch_of(&a, 0, 10000);
  theta_sketch_of(&b, 5000, 10000);
  CHECK(a.d[0] == 3 && b.d[0] == 3);
  out.len = 0;
  CHECK_OK(pm_agg_theta_merge(a.d, a.n, b.d, b.n, &out, &err), &err);
  est = theta_estimate(&out);
  CHECK_MSG(est > 15000 * 0.95 && est < 15000 * 1.05, "estimate %.1f", est);
  CHECK_EQ_INT(rd32(out.data + 8), 4096);
  /* the merged result merged again with one of its inputs is unchanged (idempotent union) */
  out2.len = 0;
  CHECK_OK(pm_agg_theta_merge(out.data, out.len, a.d, a.n, &out2, &err), &err);
  CHECK(out.len == out2.len && memcmp(out.data, out2.data, out.len) == 0);
  pm_buf_free(&out);
  pm_buf_free(&out2);
}

static void test_theta_malformed(void) {
  static bytes a, b, x;
  theta_sketch_of(&a, 0, 300);
  theta_sketch_of(&b, 1, 1);
  pm_buf out;
  pm_buf_init(&out);
  pm_error err = {0};
  /* wrong seed hash */
  x = a;
  x.d[6] ^= 1;
  CHECK(pm_agg_theta_merge(x.d, x.n, b.d, b.n, &out, &err) == PAIMON_ERR_CORRUPT);
  CHECK(strstr(err.message, "theta_sketch: first value") != NULL);
  /* compressed (serial version 4) is reported as unsupported */
  x = a;
  x.d[1] = 4;
  CHECK(pm_agg_theta_merge(b.d, b.n, x.d, x.n, &out, &err) == PAIMON_ERR_UNSUPPORTED);
  CHECK(strstr(err.message, "theta_sketch: second value") != NULL);
  /* union family (4) is rejected as in Java */
  x = a;
  x.d[2] = 4;
  CHECK(pm_agg_theta_merge(x.d, x.n, b.d, b.n, &out, &err) == PAIMON_ERR_CORRUPT);
  /* truncations and byte changes never crash */
  for (size_t cut = 0; cut < a.n; cut++) {
    out.len = 0;
    int rc = pm_agg_theta_merge(a.d, cut, b.d, b.n, &out, &err);
    CHECK(rc == 0 || rc == PAIMON_ERR_CORRUPT);
    if (cut >= 24 && cut < a.n) CHECK(rc == PAIMON_ERR_CORRUPT);
  }
  for (size_t i = 0; i < 64; i++) {
    for (int flip = 0; flip < 4; flip++) {
      x = a;
      x.d[i] = flip == 0 ? (uint8_t)(x.d[i] ^ 0xFF) : flip == 1 ? (uint8_t)(x.d[i] + 1) : flip == 2 ? 0x80 : 0;
      out.len = 0;
      int rc = pm_agg_theta_merge(x.d, x.n, b.d, b.n, &out, &err);
      CHECK(rc == 0 || rc == PAIMON_ERR_CORRUPT || rc == PAIMON_ERR_UNSUPPORTED);
    }
  }
  pm_buf_free(&out);
}

/* =============================================================================================
 * hll_sketch (DataSketches 4.2.0 HLL: coupon LIST / SET images and HLL arrays)
 * ============================================================================================= */

/* Java HllSketch.update(long): MurmurHash3_x64_128({v}, 9001) -> coupon: slot = low 26 bits of
 * h0, value = min(leading zeros of h1, 62) + 1, coupon = value << 26 | slot. */
static uint32_t hll_coupon_of(int64_t v) {
  uint64_t h1 = 9001, h2 = 9001, k1 = (uint64_t)v;
  k1 *= 0x87c37b91114253d5ull;
  k1 = rotl64(k1, 31);
  k1 *= 0x4cf5ad432745937full;
  h1 ^= k1;
  h1 ^= 8;
  h2 ^= 8;
  h1 += h2;
  h2 += h1;
  h1 = fmix64(h1);
  h2 = fmix64(h2);
  h1 += h2;
  h2 += h1;
  int lz = h2 ? __builtin_clzll(h2) : 64;
  uint32_t value = (uint32_t)((lz > 62 ? 62 : lz) + 1);
  return value << 26 | (uint32_t)(h1 & ((1u << 26) - 1));
}

/* Test model of a Java HllSketch below HLL mode: coupons in a LIST (first 8) then a SET (open
 * addressing: probe = coupon & mask, stride = ((coupon & 2^26-1) >> lgArr) | 1; table doubles when
 * more than 3/4 full). toCompactByteArray lists coupons in table order. */
typedef struct hll_model {
  int lgk, lg_arr, count, set;
  uint32_t t[1 << 12];
} hll_model;

static void model_insert_set(hll_model *m, uint32_t c) {
  uint32_t mask = (1u << m->lg_arr) - 1, p = c & mask;
  while (m->t[p] && m->t[p] != c) p = (p + (((c & ((1u << 26) - 1)) >> m->lg_arr) | 1)) & mask;
  if (m->t[p] == c) return;
  m->t[p] = c;
  m->count++;
  if (4 * m->count > 3 * (1 << m->lg_arr)) {
    uint32_t old[1 << 12];
    int n = 1 << m->lg_arr;
    memcpy(old, m->t, sizeof(uint32_t) * (size_t)n);
    memset(m->t, 0, sizeof m->t);
    m->lg_arr++;
    m->count = 0;
    for (int i = 0; i < n; i++)
      if (old[i]) model_insert_set(m, old[i]);
  }
}

static void model_add(hll_model *m, uint32_t c) {
  if (!m->set) {
    for (int i = 0; i < 8; i++) {
      if (m->t[i] == c) return;
      if (m->t[i] == 0) {
        m->t[i] = c;
        if (++m->count == 8) {
          uint32_t list[8];
          memcpy(list, m->t, sizeof list);
          memset(m->t, 0, sizeof m->t);
          m->set = 1;
          m->lg_arr = 5;
          m->count = 0;
          for (int j = 0; j < 8; j++) model_insert_set(m, list[j]);
        }
        return;
      }
    }
  }
  model_insert_set(m, c);
}

static void model_init(hll_model *m, int lgk) {
  memset(m, 0, sizeof *m);
  m->lgk = lgk;
  m->lg_arr = 3;
}

/* compact image, target type HLL_4 (mode byte = cur mode) */
static void model_bytes(const hll_model *m, bytes *out) {
  out->n = 0;
  put(out, m->set ? 3 : 2, 1), put(out, 1, 1), put(out, 7, 1), put(out, (uint64_t)m->lgk, 1);
  put(out, (uint64_t)m->lg_arr, 1), put(out, m->count ? 8 : 12, 1);
  put(out, m->set ? 0 : (uint64_t)m->count, 1), put(out, (uint64_t)m->set, 1);
  if (m->set) put(out, (uint64_t)m->count, 4);
  for (int i = 0; i < (1 << m->lg_arr); i++)
    if (m->t[i]) put(out, m->t[i], 4);
}

static void hll_sketch_of(bytes *out, int lgk, int64_t first, int64_t count) {
  static hll_model m;
  model_init(&m, lgk);
  for (int64_t v = first; v < first + count; v++) model_add(&m, hll_coupon_of(v));
  model_bytes(&m, out);
}

static void test_hll_coupons(void) {
  bytes a, b, want;
  /* {1,2,3} | {3,4}: Union.heapify(b) feeds b's list (c3, c4) into an empty HLL_8 list, then
   * a's coupons are appended unless present: c3 c4 c1 c2; result LIST, target HLL_4. */
  hll_sketch_of(&a, 12, 1, 3);
  hll_sketch_of(&b, 12, 3, 2);
  want.n = 0;
  put_raw(&want, "\x02\x01\x07\x0C\x03\x08\x04\x00", 8);
  put(&want, hll_coupon_of(3), 4), put(&want, hll_coupon_of(4), 4);
  put(&want, hll_coupon_of(1), 4), put(&want, hll_coupon_of(2), 4);
  CHECK(merge_expect(pm_agg_hll_merge, &a, &b, &want));
  /* empty | empty: the empty list image with b's lgK (flags empty|compact = 0x0C) */
  bytes e12, e10;
  hll_sketch_of(&e12, 12, 0, 0);
  hll_sketch_of(&e10, 10, 0, 0);
  CHECK(e12.n == 8 && memcmp(e12.d, "\x02\x01\x07\x0C\x03\x0C\x00\x00", 8) == 0);
  CHECK(merge_expect(pm_agg_hll_merge, &e12, &e10, &e10));
  CHECK(merge_expect(pm_agg_hll_merge, &e12, &a, &a));
  CHECK(merge_expect(pm_agg_hll_merge, &a, &e12, &a));
  /* {1..5} | {6..10}: the gadget list (b's 5, then a's) fills at 8 coupons and becomes a set of
   * 32 slots, filled in list order; the last two coupons follow. Same as the model fed 6..10, 1..5. */
  static hll_model m;
  model_init(&m, 12);
  for (int v = 6; v <= 10; v++) model_add(&m, hll_coupon_of(v));
  for (int v = 1; v <= 5; v++) model_add(&m, hll_coupon_of(v));
  model_bytes(&m, &want);
  hll_sketch_of(&a, 12, 1, 5);
  hll_sketch_of(&b, 12, 6, 5);
  CHECK(want.d[0] == 3 && want.d[4] == 5);
  CHECK(merge_expect(pm_agg_hll_merge, &a, &b, &want));
  /* set | set with growth: 0..199 and 100..299 (lgK 12: sets up to 2^9 slots, 384 coupons).
   * CouponHashSet.heapifySet re-inserts a compact image's coupons (in image order) into a fresh
   * 32-slot set, so table orders can change. b's heapified set is copied as the gadget; a's
   * coupons are then inserted in the order of a's heapified table. */
  hll_sketch_of(&a, 12, 0, 200);
  hll_sketch_of(&b, 12, 100, 200);
  static hll_model ta;
  model_init(&m, 12);
  m.set = 1, m.lg_arr = 5;
  for (size_t off = 12; off < b.n; off += 4) model_add(&m, (uint32_t)rd32(b.d + off));
  model_init(&ta, 12);
  ta.set = 1, ta.lg_arr = 5;
  for (size_t off = 12; off < a.n; off += 4) model_add(&ta, (uint32_t)rd32(a.d + off));
  for (int i = 0; i < (1 << ta.lg_arr); i++)
    if (ta.t[i]) model_add(&m, ta.t[i]);
  model_bytes(&m, &want);
  CHECK_EQ_INT(m.count, 300);
  CHECK(merge_expect(pm_agg_hll_merge, &a, &b, &want));
}

/* HLL_8 image: registers from coupons, HIP/KxQ kept incrementally as HllSketch(lgK, HLL_8) does
 * after promotion (its HIP start is the coupon estimate; any value works for the merge tests). */
typedef struct hll8_model {
  int lgk;
  uint8_t v[1 << 12];
  double hip, kxq0, kxq1;
} hll8_model;

static double inv_pow2(int e) { return 1.0 / (double)(1ull << e); }

static void hll8_model_init(hll8_model *m, int lgk, double hip) {
  memset(m, 0, sizeof *m);
  m->lgk = lgk;
  m->kxq0 = (double)(1 << lgk);
  m->hip = hip;
}

static void hll8_model_add(hll8_model *m, uint32_t c) {
  int slot = (int)(c & ((1u << m->lgk) - 1)), nv = (int)(c >> 26), old = m->v[slot];
  if (nv <= old) return;
  m->v[slot] = (uint8_t)nv;
  m->hip += (double)(1 << m->lgk) / (m->kxq0 + m->kxq1);
  if (old < 32) m->kxq0 -= inv_pow2(old);
  else m->kxq1 -= inv_pow2(old);
  if (nv < 32) m->kxq0 += inv_pow2(nv);
  else m->kxq1 += inv_pow2(nv);
}

static void put_double(bytes *b, double d) {
  uint64_t x;
  memcpy(&x, &d, 8);
  put(b, x, 8);
}

static void hll8_model_bytes(const hll8_model *m, bytes *out, int ooo) {
  out->n = 0;
  int zeros = 0;
  for (int i = 0; i < (1 << m->lgk); i++) zeros += m->v[i] == 0;
  put(out, 10, 1), put(out, 1, 1), put(out, 7, 1), put(out, (uint64_t)m->lgk, 1), put(out, 0, 1);
  put(out, ooo ? 0x18 : 0x08, 1), put(out, 0, 1), put(out, 2 | 2 << 2, 1);
  put_double(out, m->hip), put_double(out, m->kxq0), put_double(out, m->kxq1);
  put(out, (uint64_t)zeros, 4), put(out, 0, 4);
  put_raw(out, m->v, (size_t)1 << m->lgk);
}

/* Decodes an HLL_4 compact result into slot values; returns 0 on success. */
static int decode_hll4(const pm_buf *r, uint8_t *vals, int *lgk) {
  if (r->len < 40 || r->data[0] != 10 || r->data[7] != 2) return -1;
  *lgk = r->data[3];
  int k = 1 << *lgk, cur_min = r->data[6];
  uint32_t aux_count = rd32(r->data + 36);
  if (r->len != 40 + (size_t)k / 2 + 4 * aux_count) return -1;
  for (int i = 0; i < k; i++) {
    int nib = (r->data[40 + i / 2] >> ((i & 1) * 4)) & 15;
    vals[i] = (uint8_t)(nib + cur_min);
    if (nib == 15) {
      vals[i] = 0xFF;
      for (uint32_t j = 0; j < aux_count; j++) {
        uint32_t pair = rd32(r->data + 40 + k / 2 + 4 * j);
        if ((int)(pair & ((1u << 26) - 1)) == i) vals[i] = (uint8_t)(pair >> 26);
      }
      if (vals[i] == 0xFF) return -1;
    }
  }
  return 0;
}

static double get_double(const uint8_t *p) {
  uint64_t x = 0;
  for (int i = 7; i >= 0; i--) x = x << 8 | p[i];
  double d;
  memcpy(&d, &x, 8);
  return d;
}

static void test_hll_arrays(void) {
  static hll8_model ma, mb;
  static bytes a, b;
  static uint8_t got[1 << 12];
  pm_buf out;
  pm_buf_init(&out);
  pm_error err = {0};
  /* HLL_8 (lgK 10) | HLL_8 (lgK 10), one register forced to 40 so the HLL_4 result needs an aux
   * entry (40 >= curMin + 15) and kxq1 (40 >= 32). Java: b is copied as the gadget, a is merged by
   * register max; the result is out of order (flag 0x10, HIP 0); registers = max; curMin = min. */
  hll8_model_init(&ma, 10, 1234.5);
  hll8_model_init(&mb, 10, 99.0);
  for (int v = 0; v < 3000; v++) hll8_model_add(&ma, hll_coupon_of(v));
  for (int v = 2000; v < 6000; v++) hll8_model_add(&mb, hll_coupon_of(v));
  hll8_model_add(&ma, (40u << 26) | 5);
  hll8_model_bytes(&ma, &a, 0);
  hll8_model_bytes(&mb, &b, 0);
  CHECK_OK(pm_agg_hll_merge(a.d, a.n, b.d, b.n, &out, &err), &err);
  int lgk = 0;
  CHECK(decode_hll4(&out, got, &lgk) == 0 && lgk == 10);
  int cur_min = 64, at_min = 0, mism = 0;
  double kxq0 = 1024, kxq1 = 0;
  for (int i = 0; i < 1024; i++) {
    int want = ma.v[i] > mb.v[i] ? ma.v[i] : mb.v[i];
    mism += got[i] != want;
    if (want < cur_min) cur_min = want, at_min = 0;
    at_min += want == cur_min;
    if (want) {
      kxq0 -= 1.0;
      if (want < 32) kxq0 += inv_pow2(want);
      else kxq1 += inv_pow2(want);
    }
  }
  CHECK_EQ_INT(mism, 0);
  CHECK(out.len > 40 && (out.data[5] & 0x18) == 0x18);
  CHECK(get_double(out.data + 8) == 0.0);
  CHECK(get_double(out.data + 16) == kxq0 && get_double(out.data + 24) == kxq1);
  CHECK_EQ_INT(out.data[6], cur_min);
  CHECK_EQ_INT(rd32(out.data + 32), at_min);
  CHECK(rd32(out.data + 36) >= 1);
  /* Rough cardinality from the registers (HLL raw estimate) ~ 6000. */
  double sum = kxq0 + kxq1;
  double raw = 0.7213 / (1 + 1.079 / 1024) * 1024.0 * 1024.0 / sum;
  CHECK_MSG(raw > 6000 * 0.85 && raw < 6000 * 1.15, "raw estimate %.1f", raw);

  /* lgK 12 source into a lgK 10 union (b): a is downsampled? No: a's lgK (12) > lgMaxK (10) and
   * the gadget is HLL: registers fold (slot & 1023) by max. */
  static hll8_model mc;
  hll8_model_init(&mc, 12, 7.0);
  for (int v = 0; v < 3000; v++) hll8_model_add(&mc, hll_coupon_of(v));
  hll8_model_bytes(&mc, &a, 0);
  out.len = 0;
  CHECK_OK(pm_agg_hll_merge(a.d, a.n, b.d, b.n, &out, &err), &err);
  CHECK(decode_hll4(&out, got, &lgk) == 0 && lgk == 10);
  mism = 0;
  for (int i = 0; i < 1024; i++) {
    int want = mb.v[i];
    for (int j = i; j < 4096; j += 1024)
      if (mc.v[j] > want) want = mc.v[j];
    mism += got[i] != want;
  }
  CHECK_EQ_INT(mism, 0);

  /* HLL_8 a | LIST b: the gadget (b's coupons) is fed into a copy of a with HIP updates; not out
   * of order; HIP = a's HIP plus k/(kxq0+kxq1) per raised register (model of the same steps). */
  hll_sketch_of(&b, 10, 100000, 5);
  hll8_model_bytes(&ma, &a, 0);
  static hll8_model mexp;
  mexp = ma;
  for (int v = 100000; v < 100005; v++) hll8_model_add(&mexp, hll_coupon_of(v));
  out.len = 0;
  CHECK_OK(pm_agg_hll_merge(a.d, a.n, b.d, b.n, &out, &err), &err);
  CHECK(out.len > 40 && (out.data[5] & 0x10) == 0);
  CHECK(get_double(out.data + 8) == mexp.hip);
  CHECK(decode_hll4(&out, got, &lgk) == 0);
  CHECK(memcmp(got, mexp.v, 1024) == 0);

  /* set | set past 384 coupons (lgK 12): the gadget set promotes to HLL_8 (HIP starts at the
   * coupon estimate of 385, then grows per raised register); registers = max per slot over all
   * 400 coupons; in order (no 0x10 flag); HIP close to 400. */
  hll_sketch_of(&a, 12, 0, 200);
  hll_sketch_of(&b, 12, 200, 200);
  out.len = 0;
  CHECK_OK(pm_agg_hll_merge(a.d, a.n, b.d, b.n, &out, &err), &err);
  CHECK(decode_hll4(&out, got, &lgk) == 0 && lgk == 12);
  static uint8_t want_regs[4096];
  memset(want_regs, 0, sizeof want_regs);
  for (int v = 0; v < 400; v++) {
    uint32_t c = hll_coupon_of(v);
    if ((c >> 26) > want_regs[c & 4095]) want_regs[c & 4095] = (uint8_t)(c >> 26);
  }
  CHECK(memcmp(got, want_regs, 4096) == 0);
  CHECK((out.data[5] & 0x10) == 0);
  double hip = get_double(out.data + 8);
  CHECK_MSG(hip > 395 && hip < 405, "hip %.3f", hip);
  pm_buf_free(&out);
}

static void test_hll4_image(void) {
  /* A hand-made HLL_4 image (lgK 4): registers 2,3,2,4,5,2,2,20,3,3,2,2,6,2,2,7; curMin 2 (eight
   * slots at it), nibbles = value - 2 except slot 7 (20 >= 2 + 15) which holds the aux token 15 and
   * the compact aux pair 20 << 26 | 7 (aux table of 2^2 slots for lgK 4, byte 4 = 2). KxQ0 is
   * 16 - 1 + 2^-v per register in slot order, KxQ1 0, HIP 17.25. Merged with an empty lgK-4
   * sketch, Java copies it to HLL_8 and converts back to HLL_4 the same way: the bytes come back. */
  static const int regs[16] = {2, 3, 2, 4, 5, 2, 2, 20, 3, 3, 2, 2, 6, 2, 2, 7};
  bytes a, e, b;
  double kxq0 = 16;
  for (int i = 0; i < 16; i++) kxq0 = kxq0 - 1.0 + inv_pow2(regs[i]);
  a.n = 0;
  put(&a, 10, 1), put(&a, 1, 1), put(&a, 7, 1), put(&a, 4, 1), put(&a, 2, 1), put(&a, 8, 1), put(&a, 2, 1), put(&a, 2, 1);
  put_double(&a, 17.25), put_double(&a, kxq0), put_double(&a, 0.0);
  put(&a, 8, 4), put(&a, 1, 4);
  for (int i = 0; i < 16; i += 2) {
    int lo = regs[i] - 2 >= 15 ? 15 : regs[i] - 2, hi = regs[i + 1] - 2 >= 15 ? 15 : regs[i + 1] - 2;
    put(&a, (uint64_t)(lo | hi << 4), 1);
  }
  put(&a, (20u << 26) | 7, 4);
  hll_sketch_of(&e, 4, 0, 0);
  CHECK(merge_expect(pm_agg_hll_merge, &a, &e, &a));
  CHECK(merge_expect(pm_agg_hll_merge, &e, &a, &a));
  /* The same registers as an HLL_6 image (6-bit little-endian packing, 13 bytes for 16 slots;
   * curMin byte 0, stored KxQ ignored by the conversion): same HLL_4 result. */
  bytes six = {.n = 0};
  put(&six, 10, 1), put(&six, 1, 1), put(&six, 7, 1), put(&six, 4, 1), put(&six, 0, 1), put(&six, 8, 1), put(&six, 0, 1), put(&six, 2 | 1 << 2, 1);
  put_double(&six, 17.25), put_double(&six, 3.0), put_double(&six, 0.0);
  put(&six, 0, 4), put(&six, 0, 4);
  uint8_t packed[13] = {0};
  for (int i = 0; i < 16; i++) {
    int bit = i * 6;
    unsigned two = (unsigned)regs[i] << (bit & 7);
    packed[bit >> 3] |= (uint8_t)two;
    packed[(bit >> 3) + 1] |= (uint8_t)(two >> 8);
  }
  put_raw(&six, packed, 13);
  CHECK(merge_expect(pm_agg_hll_merge, &six, &e, &a));
  /* HLL_4 | same HLL_4: registers unchanged, but the union marks it out of order (flag 0x10) and
   * zeroes HIP. */
  b = a;
  b.d[5] = 8 | 16;
  memset(b.d + 8, 0, 8);
  CHECK(merge_expect(pm_agg_hll_merge, &a, &a, &b));
}

static void test_hll_malformed(void) {
  static bytes a, b, x;
  static hll8_model m;
  hll_sketch_of(&a, 12, 0, 200);
  hll8_model_init(&m, 8, 1.0);
  for (int v = 0; v < 500; v++) hll8_model_add(&m, hll_coupon_of(v));
  hll8_model_bytes(&m, &b, 0);
  pm_buf out;
  pm_buf_init(&out);
  pm_error err = {0};
  for (int which = 0; which < 2; which++) {
    const bytes *v = which ? &b : &a;
    for (size_t cut = 0; cut < v->n; cut++) {
      out.len = 0;
      int rc = pm_agg_hll_merge(v->d, cut, a.d, a.n, &out, &err);
      CHECK(rc == PAIMON_ERR_CORRUPT);
      if (rc) CHECK(strncmp(err.message, "hll_sketch: first value", 23) == 0);
    }
    for (size_t i = 0; i < v->n; i += (i < 64 ? 1 : 7)) {
      for (int flip = 0; flip < 3; flip++) {
        x = *v;
        x.d[i] = flip == 0 ? (uint8_t)(x.d[i] ^ 0xFF) : flip == 1 ? (uint8_t)(x.d[i] + 1) : 0;
        out.len = 0;
        int rc = pm_agg_hll_merge(x.d, x.n, b.d, b.n, &out, &err);
        CHECK(rc == 0 || rc == PAIMON_ERR_CORRUPT);
        out.len = 0;
        rc = pm_agg_hll_merge(a.d, a.n, x.d, x.n, &out, &err);
        CHECK(rc == 0 || rc == PAIMON_ERR_CORRUPT);
      }
    }
  }
  pm_buf_free(&out);
}

int main(void) {
  RUN_TEST(test_rbm64_single_values);
  RUN_TEST(test_rbm64_node_growth);
  RUN_TEST(test_rbm64_random_content);
  RUN_TEST(test_rbm64_container_types);
  RUN_TEST(test_rbm64_malformed);
  RUN_TEST(test_theta_small);
  RUN_TEST(test_theta_estimation);
  RUN_TEST(test_theta_malformed);
  RUN_TEST(test_hll_coupons);
  RUN_TEST(test_hll_arrays);
  RUN_TEST(test_hll4_image);
  RUN_TEST(test_hll_malformed);
  TEST_MAIN_END();
}
