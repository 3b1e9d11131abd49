/* Tests of the binary aggregate functions rbm64 / theta_sketch / hll_sketch (table/agg_sketch.h).
 * Three kinds of evidence: byte streams derived by hand from the Java sources (derivations in the
 * comments), property checks on larger inputs (decoded content, estimates, idempotence, order
 * independence where Java's result is order independent, malformed input never crashing), and
 * merge vectors computed by the Java libraries themselves (test_java_vectors, at the end). */
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

/* =============================================================================================
 * Vectors computed by the Java implementations themselves: RoaringBitmap 1.2.1 and Apache
 * DataSketches 4.2.0 (+ datasketches-memory 2.2.0), compiled from their released sources, driven
 * exactly like Paimon does (RoaringBitmap64.deserialize / or / serialize with runOptimize,
 * ThetaSketch.union, HllSketchUtil.union) on randomly built sketches (various nominal entries,
 * p, unordered and hash-table theta images; HLL lgK 4..8, HLL_4/6/8, LIST/SET/HLL modes, compact
 * and updatable images, union results as inputs; roaring bitmaps with removals). Each row is
 * {first value, second value, Java's merged value} in hex; the subset was picked to cover node,
 * container, preamble and mode variants with few bytes.
 * ============================================================================================= */

static const char *const rbm64_java_vectors[][3] = {
    {"00",
     "00",
     "00"},
    {"00",
     "01010000000000000004000000000000050005000000000000000001000000fe01000000010201000000e80301000000"
      "000000000000000000000000",
     "01010000000000000004000000000000050005000000000000000001000000fe01000000010201000000e80301000000"
      "000000000000000000000000"},
    {"01010000000000000004000000000000000000000000000000000001000000fe01000000010201000000ef8e01000000"
      "000000000000000000000000",
     "00",
     "01010000000000000004000000000000000000000000000000000001000000fe01000000010201000000ef8e01000000"
      "000000000000000000000000"},
    {"00",
     "0101000000000000000400000100000000000000010000000000000001000000fe0200000000010201000000eb030100"
      "0000000000000000000001000000",
     "01010000000000000004000000000000000000000000000000000001000000fe01000000010201000000eb0301000000"
      "000000000000000000000000"},
    {"0101000000000000000400000100000000000000010000000000000001000000fe020000000001020200000024000eed"
      "01000000000000000000000001000000",
     "00",
     "0101000000000000000400000100000000000000010000000000000001000000fe020000000001020200000024000eed"
      "01000000000000000000000001000000"},
    {"01010000000000000004000000000000000005000000000000000001000000fe010000000100b80b000001000000b70b"
      "01000000000000000000000000000000",
     "00",
     "01010000000000000004000000000000000005000000000000000001000000fe010000000100b80b000001000000b70b"
      "01000000000000000000000000000000"},
    {"00",
     "010200000000000000000200000000ff0004000000000000000000010000000000000004000000ffff00000000000000"
      "000000000001000000fe020000000102010000005800010201000000730002000000000000000000000001000000",
     "010200000000000000000200000000ff0004000000000000000000000000000000000004000000ffff00000000010000"
      "000000000001000000fe020000000102010000007300010201000000580002000000000000000000000001000000"},
    {"010200000000000000000200000000ff0004000000000000030003000000000000000004000000ffff00000003010000"
      "000000000001000000fe0200000001020100000079000102010000001c0002000000000000000000000001000000",
     "00",
     "010200000000000000000200000000ff0004000000000000030003000000000000000004000000ffff00000003010000"
      "000000000001000000fe0200000001020100000079000102010000001c0002000000000000000000000001000000"},
    {"00",
     "010200000000000000000200000000ff0004000000000000000005010000000000000004000000ffff00000000000000"
      "000000000001000000fe020000000102010000001f000100b80b000001000000b70b0200000000000000000000000100"
      "0000",
     "010200000000000000000200000000ff0004000000000000000005000000000000000004000000ffff00000000010000"
      "000000000001000000fe020000000100b80b000001000000b70b0102010000001f000200000000000000000000000100"
      "0000"},
    {"010500000000000000010500030000000000000a04020100000000000000000004000002000200000000000201000000"
      "000000000400000000000001000105000000000000000400000000000002000203000000000000000400000000000004"
      "00040000000000000000040000000000000a000a040000000000000001000000fe06000000010201000000ecfc010201"
      "000000f30300010201000000eb03010201000000ec03010201000000460005000000000000000000000005000000",
     "00",
     "010500000000000000010500030000000000000a04020100000000000000000004000002000200000000000201000000"
      "000000000400000000000001000105000000000000000400000000000002000203000000000000000400000000000004"
      "00040000000000000000040000000000000a000a040000000000000001000000fe06000000010201000000ecfc010201"
      "000000f30300010201000000eb03010201000000ec03010201000000460005000000000000000000000005000000"},
    {"00",
     "010600000000000000010500030000000000000503020100000000000000000000020001000000020004000000000000"
      "000000010000000000000004000000000000000002000000000000000004000000000000010001030000000000000004"
      "000000000000020002050000000000000004000000000000030003040000000000000004000000000000050005020000"
      "000000000001000000fe0600000001020100000030ae0102040000001c00eb03ee03f003010201000000085901020200"
      "00002d00e6dc010201000000ca69010201000000640006000000000000000000000005000000",
     "010600000000000000010500030000000000000503020100000000000000000000020001000000020004000000000000"
      "000000000000000000000004000000000000000002010000000000000004000000000000010001020000000000000004"
      "000000000000020002030000000000000004000000000000030003040000000000000004000000000000050005050000"
      "000000000001000000fe060000000102040000001c00eb03ee03f00301020100000030ae0102020000002d00e6dc0102"
      "010000006400010201000000ca69010201000000085906000000000000000000000005000000"},
    {"010300000000000000000200030000000000020000020001000000020004000000000000000000010000000000000004"
      "000000000000000002020000000000000004000000000000020002000000000000000001000000fe0300000001020200"
      "0000ea03a3280102010000005b00010201000000eb0303000000000000000000000002000000",
     "012100000000000000000200000000ff00010c000200000c09060504030100000000001614120e0211000100ff0403ff"
      "02100100ff0a0908070605ffff0fff0e0d0c0bffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
      "ffffffffffffffffffffffff040000000000000000001700000000000000040000000000000000010f00000000000000"
      "040000000000000000022000000000000000040000000000000000030300000000000000040000000000000000051300"
      "000000000000040000000000000000061400000000000000040000000000000000090d00000000000000040000000000"
      "0000000a10000000000000000400000000000000000b19000000000000000400000000000000000c0100000000000000"
      "0400000000000000000d02000000000000000400000000000000000e1500000000000000040000000000000000110700"
      "000000000000040000000000000000120900000000000000040000000000000000131200000000000000040000000000"
      "000000140400000000000000040000000000000000161f00000000000000040000000000000100011d00000000000000"
      "040000000000000300030000000000000000040000000000000400041600000000000000040000000000000500051c00"
      "000000000000040000000000000600060600000000000000040000000000000900090b00000000000000040000000000"
      "000c000c1e00000000000000040000000000000e000e0a00000000000000040000000000001200121100000000000000"
      "04000000000000140014050000000000000004000000000000160016080000000000000000030002ff00001302000003"
      "0001000014130804000000ffff000000080c0000000000000004000000ffff00000013180000000000000004000000ff"
      "ff000000141b0000000000000004000000ffff000200021a0000000000000004000000ffff001300130e000000000000"
      "0001000000fe2a000000010201000000e8030102010000002d000102030000006100e826a0d301020100000079000102"
      "010000003221010202000000a64d8ed50102010000008d00010201000000ef030102010000000d0001020100000020b6"
      "0102010000007e470102010000007b0001020100000002f80102020000001600fd610102010000006c2e010201000000"
      "06d9010201000000c8330102020000000300aefd010201000000b4000102010000006000010201000000710001020100"
      "0000a400010201000000d647010201000000c100010201000000a5a5010201000000fa38010201000000070401020100"
      "0000645b010201000000ce7d01020100000047640102010000000b04010201000000dd5c0102010000001f0000000000"
      "000000000021000000000000000000000020000000",
     "012200000000000000000200000000ff00010d0002000009060504030201000000001614120e0c0211000100ff0504ff"
      "03020100ff0b0a09080706ffff10ff0f0e0d0cffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
      "ffffffffffffffffffffffff040000000000000000000100000000000000040000000000000000010300000000000000"
      "040000000000000000020200000000000000040000000000000000030400000000000000040000000000000000050500"
      "000000000000040000000000000000060600000000000000040000000000000000090700000000000000040000000000"
      "0000000a08000000000000000400000000000000000b09000000000000000400000000000000000c0a00000000000000"
      "0400000000000000000d0b000000000000000400000000000000000e0c00000000000000040000000000000000110d00"
      "000000000000040000000000000000120e00000000000000040000000000000000130f00000000000000040000000000"
      "000000141000000000000000040000000000000000161100000000000000040000000000000100011200000000000000"
      "040000000000000200020000000000000000040000000000000300031300000000000000040000000000000400041400"
      "000000000000040000000000000500051500000000000000040000000000000600061600000000000000040000000000"
      "000900091700000000000000040000000000000c000c1800000000000000040000000000000e000e1900000000000000"
      "040000000000001200121a00000000000000040000000000001400141b00000000000000040000000000001600161c00"
      "00000000000000030002ff000013020000030001000014130804000000ffff000000081d0000000000000004000000ff"
      "ff000000131e0000000000000004000000ffff000000141f0000000000000004000000ffff0002000220000000000000"
      "0004000000ffff00130013210000000000000001000000fe2a000000010202000000ea03a3280102020000005b00c100"
      "0102020000001f00eb0301020100000006d9010201000000790001020100000060000102010000007100010202000000"
      "1600fd61010201000000c833010201000000fa380102010000002d000102030000006100e826a0d3010201000000a400"
      "010201000000ef0301020100000020b6010201000000b4000102010000003221010201000000dd5c0102010000004764"
      "010201000000e803010201000000d647010201000000ce7d0102010000008d000102010000007b000102010000000b04"
      "0102010000007e470102020000000300aefd010202000000a64d8ed50102010000000d0001020100000002f801020100"
      "0000a5a5010201000000645b01020100000007040102010000006c2e0000000000000000220000000000000000000000"
      "21000000"},
    {"012300000000000000000200000000ff00021200020000ff04ff030201ff00ff0aff09080706050f0eff0dff0c0bffff"
      "ffff1110ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff010f0001000e0b0907"
      "05020100001817161513110f040000000000000000000900000000000000040000000000000000010c00000000000000"
      "040000000000000000020800000000000000040000000000000000051600000000000000040000000000000000070f00"
      "0000000000000400000000000000000904000000000000000400000000000000000b1500000000000000040000000000"
      "0000000e02000000000000000400000000000000000f0100000000000000040000000000000000110e00000000000000"
      "040000000000000000131700000000000000040000000000000000150600000000000000040000000000000000161800"
      "000000000000040000000000000000171900000000000000040000000000000000181a00000000000000040000000000"
      "000200021b00000000000000040000000000000300030300000000000000040000000000000400040500000000000000"
      "040000000000000600060000000000000000040000000000000800081200000000000000040000000000000900090700"
      "000000000000040000000000000a000a1c00000000000000040000000000000b000b1d00000000000000040000000000"
      "000c000c1400000000000000040000000000000e000e1e00000000000000040000000000001100111100000000000000"
      "040000000000001200120b00000000000000040000000000001400140d00000000000000040000000000001600160a00"
      "000000000000040000000000001700171000000000000000040000000000001b001b1f00000000000000040000000000"
      "001c001c200000000000000000020002ff000000010000020001000000131004000000ffff0000001021000000000000"
      "0004000000ffff00000013130000000000000004000000ffff00010001220000000000000001000000fe2a0000000102"
      "0200000003042ff1010201000000e903010203000000980050c3eefa010201000000eb03010203000000f703f1715ab0"
      "01020100000077ab010203000000ee03fd03a19e010202000000ef03e7190102040000000400f1037817c0ea01020300"
      "00000900940796b50102010000007600010201000000f29a010201000000fee60102010000002889010203000000f803"
      "d0cf74e9010201000000a9290102010000006cc301020100000030d9010201000000ff03010201000000429e01020100"
      "0000dc7601020100000004ca010201000000e8030102010000003900010201000000d8e10102010000006c3201020100"
      "00001af901020300000078313c57a6c8010201000000ed03010201000000eb0301020100000087f60102010000009c44"
      "010201000000a900010201000000ee0301020100000004af0000000000000023000000000000000000000022000000",
     "010400000000000000000300030000000403010000020001000000030204000000000000000002010000000000000004"
      "000000000000000003020000000000000004000000000000010001030000000000000004000000000000030003000000"
      "000000000001000000fe060000000102010000002400010201000000ed03010201000000ea0301020100000008f40000"
      "04000000000000000000000004000000",
     "012500000000000000000200000000ff00021300020000ff04ff0302011200ff0aff09080706050f0eff0dff0c0bffff"
      "ffff1110ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff01100001000b090705"
      "030201001817161513110f0e040000000000000000000900000000000000040000000000000000010c00000000000000"
      "040000000000000000020800000000000000040000000000000000032300000000000000040000000000000000051600"
      "000000000000040000000000000000070f00000000000000040000000000000000090400000000000000040000000000"
      "0000000b15000000000000000400000000000000000e02000000000000000400000000000000000f0100000000000000"
      "040000000000000000110e00000000000000040000000000000000131700000000000000040000000000000000150600"
      "000000000000040000000000000000161800000000000000040000000000000000171900000000000000040000000000"
      "000000181a00000000000000040000000000000100012400000000000000040000000000000200021b00000000000000"
      "040000000000000300030300000000000000040000000000000400040500000000000000040000000000000600060000"
      "000000000000040000000000000800081200000000000000040000000000000900090700000000000000040000000000"
      "000a000a1c00000000000000040000000000000b000b1d00000000000000040000000000000c000c1400000000000000"
      "040000000000000e000e1e00000000000000040000000000001100111100000000000000040000000000001200120b00"
      "000000000000040000000000001400140d00000000000000040000000000001600160a00000000000000040000000000"
      "001700171000000000000000040000000000001b001b1f00000000000000040000000000001c001c2000000000000000"
      "00020002ff000000010000020001000000131004000000ffff00000010210000000000000004000000ffff0000001313"
      "0000000000000004000000ffff00010001220000000000000001000000fe2a00000001020200000003042ff101020100"
      "0000e903010203000000980050c3eefa0102020000002400eb03010203000000f703f1715ab001020100000077ab0102"
      "03000000ee03fd03a19e010202000000ef03e7190102050000000400ed03f1037817c0ea0102030000000900940796b5"
      "0102010000007600010201000000f29a010201000000fee60102010000002889010203000000f803d0cf74e901020100"
      "0000a9290102010000006cc301020100000030d9010201000000ff03010201000000429e010201000000dc7601020100"
      "000004ca010201000000e8030102010000003900010201000000d8e10102010000006c320102010000001af901020300"
      "000078313c57a6c8010201000000ed03010201000000eb0301020100000087f60102010000009c44010201000000a900"
      "010201000000ee0301020100000004af010201000000ea0301020100000008f400000000002500000000000000000000"
      "0024000000"},
    {"017100000000000000000200000000ff00022a0002000001211bff201fff00ff26ff25ff242322ff2827ffffff101dff"
      "ffffffffff1629ffff02ffffffffffffffff031affffffffffffffffffff1905ffffff04ff1cff0706ffffffffffffff"
      "ffffffffff08ffff09ffffffffffffff0a1317ffff11ffffff0cff0b18ff1eff15ffffffffffffffff12ffffff0dffff"
      "ffffffff0effffffffff0fffffffffffffffffffffffffffffffffffff14ffffffffffffffffffffffffffffffffffff"
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff03350001006c31d9be"
      "0460424a34b0268ce10003125a6800000000000000000000000000000400000000000000000207000000000000000400"
      "000000000000000353000000000000000400000000000000000554000000000000000400000000000000000655000000"
      "00000000040000000000000000084b000000000000000400000000000000000c56000000000000000400000000000000"
      "000d5700000000000000040000000000000000105800000000000000040000000000000000131b000000000000000400"
      "00000000000000145900000000000000040000000000000000160600000000000000040000000000000000175a000000"
      "000000000400000000000000001901000000000000000400000000000000001a4d000000000000000400000000000000"
      "001b5b000000000000000400000000000000001c5c000000000000000400000000000000001d5d000000000000000400"
      "000000000000001f0f00000000000000040000000000000000222b000000000000000400000000000000002d52000000"
      "000000000400000000000000002e51000000000000000400000000000000003104000000000000000400000000000000"
      "00360900000000000000040000000000000000393b000000000000000400000000000000003b1d000000000000000400"
      "000000000000003e1400000000000000040000000000000000424500000000000000040000000000000000442d000000"
      "00000000040000000000000000450d000000000000000400000000000000004c0b000000000000000400000000000000"
      "004d40000000000000000400000000000000004f44000000000000000400000000000000005117000000000000000400"
      "000000000000005221000000000000000400000000000000005534000000000000000400000000000000005a2f000000"
      "000000000400000000000000005b50000000000000000400000000000000005f00000000000000000400000000000000"
      "00601200000000000000040000000000000000653a000000000000000400000000000000006603000000000000000400"
      "000000000000006724000000000000000400000000000000007039000000000000000400000000000000007149000000"
      "000000000400000000000000007920000000000000000400000000000000007c26000000000000000400000000000000"
      "008111000000000000000400000000000000008348000000000000000400000000000000008437000000000000000400"
      "000000000000008646000000000000000400000000000000008b1f000000000000000400000000000000008d08000000"
      "000000000400000000000000008e1a00000000000000040000000000000200025e000000000000000400000000000003"
      "00035f00000000000000040000000000000500053f000000000000000400000000000006000660000000000000000400"
      "000000000007000713000000000000000400000000000008000861000000000000000400000000000009000962000000"
      "00000000040000000000000a000a6300000000000000040000000000000c000c6400000000000000040000000000000e"
      "000e6500000000000000040000000000001000104c00000000000000040000000000001100112a000000000000000400"
      "000000000015001566000000000000000400000000000016001667000000000000000400000000000018001868000000"
      "00000000040000000000001900193500000000000000040000000000002500251500000000000000040000000000002b"
      "002b3e00000000000000040000000000002c002c2900000000000000040000000000003000303c000000000000000400"
      "00000000003900394300000000000000040000000000003b003b1600000000000000040000000000003f003f25000000"
      "00000000040000000000004600461c000000000000000400000000000047004723000000000000000400000000000049"
      "00492700000000000000040000000000005600560200000000000000040000000000005900592c000000000000000400"
      "00000000005c005c3600000000000000040000000000005d005d3000000000000000040000000000005e005e19000000"
      "00000000040000000000006000604e000000000000000400000000000062006238000000000000000400000000000063"
      "00630500000000000000040000000000006500652800000000000000040000000000006e006e32000000000000000400"
      "00000000007100711800000000000000040000000000007500752e00000000000000040000000000007a007a0a000000"
      "00000000040000000000008400840e00000000000000040000000000009100913100000000000000010a0002ff007144"
      "39140f0706000000000000008886010a0001003e2b1d1b19180f03000000000000675304000000ffff00000003690000"
      "000000000004000000ffff0000000f410000000000000004000000ffff000000186a0000000000000004000000ffff00"
      "0000196b0000000000000004000000ffff0000001b6c0000000000000004000000ffff0000001d6d0000000000000004"
      "000000ffff0000002b4f0000000000000004000000ffff0000003e100000000000000004000000ffff00000053470000"
      "000000000004000000ffff000000673d0000000000000004000000ffff000600066e0000000000000004000000ffff00"
      "0700071e0000000000000004000000ffff000f000f6f0000000000000004000000ffff00140014700000000000000004"
      "000000ffff00390039420000000000000004000000ffff00440044330000000000000004000000ffff007100714a0000"
      "000000000004000000ffff008600860c0000000000000004000000ffff00880088220000000000000001000000fe8d00"
      "0000010202000000470466c00102020000003c00e9030102010000006a4f010201000000fcf6010202000000b8241e76"
      "0102010000009a15010202000000a600ee0301020200000003902ea3010201000000f003010201000000e4d901020100"
      "0000d3f001020100000090430102010000000a000102010000006a00010201000000c8bf010201000000226a01020200"
      "0000210091000102010000009f7c010201000000d4e2010203000000fc039f78a6be010203000000af00c60064aa0102"
      "020000007000a986010201000000001e010201000000791b010202000000b200e635010201000000ae2e010202000000"
      "0304608201020100000045f301020100000005040102010000007c000102010000000804010201000000cc4201020100"
      "00006950010201000000791c0102010000006e00010202000000140088740102010000009100010201000000aca90102"
      "0100000033000102030000008e00a0000c4001020100000015040102010000000cd20102030000003b045a2f54350102"
      "020000004c0055a3010201000000a50001020100000066000102010000003f000102010000001d040102010000006886"
      "010201000000264501020100000020040102010000003b000102020000008454c090010201000000ded0010201000000"
      "8825010201000000920001020100000074c9010201000000ae590102010000004a000102010000006662010201000000"
      "f53001020100000040d0010201000000a15d010203000000c000fa037946010201000000350401020100000002e30102"
      "01000000f0e801020100000038040102020000001a2679550102010000003c04010201000000de450102010000004c00"
      "01020100000031000102010000009500010201000000787401020400000020008700ca6eb6b001020200000071004304"
      "0102010000001900010201000000c4000102010000004804010201000000e0900102010000004a040102010000004b04"
      "010202000000ea03443101000000010001000000ffff010070110000010000006f11010201000000b600010202000000"
      "0300a300010201000000550001020100000056050102010000008096010201000000aaf9010201000000500001020100"
      "000083000102020000000e001504010201000000b8000102020000007b00a84c0102020000004700f003010201000000"
      "c2d8010201000000fc03010202000000f9030304010203000000f10306042e730102020000004e003f7d010201000000"
      "08000102010000009f00010201000000fd030102010000000204010201000000d837010201000000a500010201000000"
      "484e010201000000fb030102010000005626010202000000ed03a3660000000000000000000000000000000000000000"
      "000000000000000071000000000000000000000070000000",
     "00",
     "017100000000000000000200000000ff00022a0002000001211bff201fff00ff26ff25ff242322ff2827ffffff101dff"
      "ffffffffff1629ffff02ffffffffffffffff031affffffffffffffffffff1905ffffff04ff1cff0706ffffffffffffff"
      "ffffffffff08ffff09ffffffffffffff0a1317ffff11ffffff0cff0b18ff1eff15ffffffffffffffff12ffffff0dffff"
      "ffffffff0effffffffff0fffffffffffffffffffffffffffffffffffff14ffffffffffffffffffffffffffffffffffff"
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff03350001006c31d9be"
      "0460424a34b0268ce10003125a6800000000000000000000000000000400000000000000000207000000000000000400"
      "000000000000000353000000000000000400000000000000000554000000000000000400000000000000000655000000"
      "00000000040000000000000000084b000000000000000400000000000000000c56000000000000000400000000000000"
      "000d5700000000000000040000000000000000105800000000000000040000000000000000131b000000000000000400"
      "00000000000000145900000000000000040000000000000000160600000000000000040000000000000000175a000000"
      "000000000400000000000000001901000000000000000400000000000000001a4d000000000000000400000000000000"
      "001b5b000000000000000400000000000000001c5c000000000000000400000000000000001d5d000000000000000400"
      "000000000000001f0f00000000000000040000000000000000222b000000000000000400000000000000002d52000000"
      "000000000400000000000000002e51000000000000000400000000000000003104000000000000000400000000000000"
      "00360900000000000000040000000000000000393b000000000000000400000000000000003b1d000000000000000400"
      "000000000000003e1400000000000000040000000000000000424500000000000000040000000000000000442d000000"
      "00000000040000000000000000450d000000000000000400000000000000004c0b000000000000000400000000000000"
      "004d40000000000000000400000000000000004f44000000000000000400000000000000005117000000000000000400"
      "000000000000005221000000000000000400000000000000005534000000000000000400000000000000005a2f000000"
      "000000000400000000000000005b50000000000000000400000000000000005f00000000000000000400000000000000"
      "00601200000000000000040000000000000000653a000000000000000400000000000000006603000000000000000400"
      "000000000000006724000000000000000400000000000000007039000000000000000400000000000000007149000000"
      "000000000400000000000000007920000000000000000400000000000000007c26000000000000000400000000000000"
      "008111000000000000000400000000000000008348000000000000000400000000000000008437000000000000000400"
      "000000000000008646000000000000000400000000000000008b1f000000000000000400000000000000008d08000000"
      "000000000400000000000000008e1a00000000000000040000000000000200025e000000000000000400000000000003"
      "00035f00000000000000040000000000000500053f000000000000000400000000000006000660000000000000000400"
      "000000000007000713000000000000000400000000000008000861000000000000000400000000000009000962000000"
      "00000000040000000000000a000a6300000000000000040000000000000c000c6400000000000000040000000000000e"
      "000e6500000000000000040000000000001000104c00000000000000040000000000001100112a000000000000000400"
      "000000000015001566000000000000000400000000000016001667000000000000000400000000000018001868000000"
      "00000000040000000000001900193500000000000000040000000000002500251500000000000000040000000000002b"
      "002b3e00000000000000040000000000002c002c2900000000000000040000000000003000303c000000000000000400"
      "00000000003900394300000000000000040000000000003b003b1600000000000000040000000000003f003f25000000"
      "00000000040000000000004600461c000000000000000400000000000047004723000000000000000400000000000049"
      "00492700000000000000040000000000005600560200000000000000040000000000005900592c000000000000000400"
      "00000000005c005c3600000000000000040000000000005d005d3000000000000000040000000000005e005e19000000"
      "00000000040000000000006000604e000000000000000400000000000062006238000000000000000400000000000063"
      "00630500000000000000040000000000006500652800000000000000040000000000006e006e32000000000000000400"
      "00000000007100711800000000000000040000000000007500752e00000000000000040000000000007a007a0a000000"
      "00000000040000000000008400840e00000000000000040000000000009100913100000000000000010a0002ff007144"
      "39140f0706000000000000008886010a0001003e2b1d1b19180f03000000000000675304000000ffff00000003690000"
      "000000000004000000ffff0000000f410000000000000004000000ffff000000186a0000000000000004000000ffff00"
      "0000196b0000000000000004000000ffff0000001b6c0000000000000004000000ffff0000001d6d0000000000000004"
      "000000ffff0000002b4f0000000000000004000000ffff0000003e100000000000000004000000ffff00000053470000"
      "000000000004000000ffff000000673d0000000000000004000000ffff000600066e0000000000000004000000ffff00"
      "0700071e0000000000000004000000ffff000f000f6f0000000000000004000000ffff00140014700000000000000004"
      "000000ffff00390039420000000000000004000000ffff00440044330000000000000004000000ffff007100714a0000"
      "000000000004000000ffff008600860c0000000000000004000000ffff00880088220000000000000001000000fe8d00"
      "0000010202000000470466c00102020000003c00e9030102010000006a4f010201000000fcf6010202000000b8241e76"
      "0102010000009a15010202000000a600ee0301020200000003902ea3010201000000f003010201000000e4d901020100"
      "0000d3f001020100000090430102010000000a000102010000006a00010201000000c8bf010201000000226a01020200"
      "0000210091000102010000009f7c010201000000d4e2010203000000fc039f78a6be010203000000af00c60064aa0102"
      "020000007000a986010201000000001e010201000000791b010202000000b200e635010201000000ae2e010202000000"
      "0304608201020100000045f301020100000005040102010000007c000102010000000804010201000000cc4201020100"
      "00006950010201000000791c0102010000006e00010202000000140088740102010000009100010201000000aca90102"
      "0100000033000102030000008e00a0000c4001020100000015040102010000000cd20102030000003b045a2f54350102"
      "020000004c0055a3010201000000a50001020100000066000102010000003f000102010000001d040102010000006886"
      "010201000000264501020100000020040102010000003b000102020000008454c090010201000000ded0010201000000"
      "8825010201000000920001020100000074c9010201000000ae590102010000004a000102010000006662010201000000"
      "f53001020100000040d0010201000000a15d010203000000c000fa037946010201000000350401020100000002e30102"
      "01000000f0e801020100000038040102020000001a2679550102010000003c04010201000000de450102010000004c00"
      "01020100000031000102010000009500010201000000787401020400000020008700ca6eb6b001020200000071004304"
      "0102010000001900010201000000c4000102010000004804010201000000e0900102010000004a040102010000004b04"
      "010202000000ea03443101000000010001000000ffff010070110000010000006f11010201000000b600010202000000"
      "0300a300010201000000550001020100000056050102010000008096010201000000aaf9010201000000500001020100"
      "000083000102020000000e001504010201000000b8000102020000007b00a84c0102020000004700f003010201000000"
      "c2d8010201000000fc03010202000000f9030304010203000000f10306042e730102020000004e003f7d010201000000"
      "08000102010000009f00010201000000fd030102010000000204010201000000d837010201000000a500010201000000"
      "484e010201000000fb030102010000005626010202000000ed03a3660000000000000000000000000000000000000000"
      "000000000000000071000000000000000000000070000000"},
    {"00",
     "017100000000000000000200000000ff00033200020000ffdfdeffffef3f000000000000000000000000000000000000"
      "00000000000000022800010012170100ff22ff26021c141fff191aff041d16ff1803ff1006ff15ff211b05ffffff23ff"
      "081307ff250b270a20ff0924ffff0f0e0d0c111effffffffffffffffffffffffffffffffffffffffffffffffffffffff"
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffff040000000000000000006f000000000000000400"
      "00000000000000025500000000000000040000000000000000041f000000000000000400000000000000000500000000"
      "00000000040000000000000000063300000000000000040000000000000000072c000000000000000400000000000000"
      "00093f000000000000000400000000000000000a3d000000000000000400000000000000000c4a000000000000000400"
      "000000000000000d2e000000000000000400000000000000000e42000000000000000400000000000000000f1e000000"
      "00000000040000000000000000102a000000000000000400000000000000001223000000000000000400000000000000"
      "001338000000000000000400000000000000001531000000000000000400000000000000001644000000000000000400"
      "000000000000001703000000000000000400000000000000001911000000000000000400000000000000001a41000000"
      "000000000400000000000000001b51000000000000000400000000000000001d30000000000000000400000000000000"
      "001f0c00000000000000040000000000000000210100000000000000040000000000000000222d000000000000000400"
      "00000000000000231900000000000000040000000000000000255800000000000000040000000000000000285c000000"
      "000000000400000000000000002915000000000000000400000000000000002b50000000000000000400000000000000"
      "002c09000000000000000400000000000000002d70000000000000000400000000000000002e07000000000000000400"
      "000000000000002f6300000000000000040000000000000000304600000000000000040000000000000000312b000000"
      "00000000040000000000000000320e00000000000000040000000000000000331a000000000000000400000000000000"
      "003429000000000000000400000000000000003504000000000000000400000000000001000143000000000000000400"
      "00000000000200024f00000000000000040000000000000300034b00000000000000040000000000000400043b000000"
      "00000000040000000000000500052800000000000000040000000000000600060f000000000000000400000000000007"
      "00076400000000000000040000000000000800081b000000000000000400000000000009000906000000000000000400"
      "00000000000a000a4800000000000000040000000000000b000b3200000000000000040000000000000c000c2f000000"
      "00000000040000000000000e000e3e00000000000000040000000000000f000f08000000000000000400000000000011"
      "001137000000000000000400000000000012001217000000000000000400000000000013001335000000000000000400"
      "00000000001400143a00000000000000040000000000001600161300000000000000040000000000001700174e000000"
      "00000000040000000000001800185d00000000000000040000000000001900193900000000000000040000000000001a"
      "001a1800000000000000040000000000001b001b1d00000000000000040000000000001c001c27000000000000000400"
      "00000000001d001d5600000000000000040000000000001e001e1200000000000000040000000000001f001f6c000000"
      "000000000400000000000020002069000000000000000400000000000021002105000000000000000400000000000022"
      "00225b000000000000000400000000000023002340000000000000000400000000000024002414000000000000000400"
      "000000000025002521000000000000000400000000000026002636000000000000000400000000000027002768000000"
      "00000000040000000000002800282000000000000000040000000000002900296200000000000000040000000000002a"
      "002a6e00000000000000040000000000002b002b0200000000000000040000000000002d002d45000000000000000400"
      "00000000002e002e1000000000000000040000000000002f002f54000000000000000400000000000030003034000000"
      "00000000040000000000003100314d000000000000000400000000000032003222000000000000000400000000000033"
      "00336a00000000000000040000000000003400346600000000000000040000000000003500350d000000000000000109"
      "0002ff00201f1a150b04010000000000000000290110000100110f0e0d08060300352f2b252322191504000000ffff00"
      "0000006d0000000000000004000000ffff000000034c0000000000000004000000ffff000000065f0000000000000004"
      "000000ffff000000080a0000000000000004000000ffff0000000d650000000000000004000000ffff0000000e3c0000"
      "000000000004000000ffff0000000f470000000000000004000000ffff000000110b0000000000000004000000ffff00"
      "0000155a0000000000000004000000ffff000000191c0000000000000004000000ffff00000022490000000000000004"
      "000000ffff000000235e0000000000000004000000ffff00000025520000000000000004000000ffff0000002b600000"
      "000000000004000000ffff0000002f670000000000000004000000ffff00000035590000000000000004000000ffff00"
      "010001570000000000000004000000ffff00040004260000000000000004000000ffff000b000b610000000000000004"
      "000000ffff00150015160000000000000004000000ffff001a001a240000000000000004000000ffff001f001f530000"
      "000000000004000000ffff00200020250000000000000004000000ffff002900296b0000000000000001000000fe8d00"
      "00000102010000007c500102020000005f002343010205000000430017047b04f85f94dc01020100000042ff01020300"
      "0000750060047304010201000000821c010201000000ea05010202000000250062a00102020000005c0484d101020200"
      "00005b007a590102020000002a002949010201000000badb010202000000b700fd030102040000000a004d00af008604"
      "0102030000000a11dabb7abe010201000000f96d010201000000f803010204000000f903291d4c3b7671010202000000"
      "e75f4c920102040000005a00fe035eda47e90102020000001e008c0401020100000000040102020000001e04be600102"
      "010000008e00010202000000ba000304010203000000e25442bf76e20102030000002f00f843ce6a0102020000000604"
      "bb400102010000008f0001020400000008040a6e1ba0adf70102020000000904b00a0102020000000a0424fc01020100"
      "00000b040102020000008704b32d0102020000000d045017010202000000a304e7540102010000000f04010201000000"
      "10040102010000001104010201000000130401020400000058006e007200efd001020200000027046cf5010205000000"
      "8500b5386c3cb670727e0102030000009a04ee1250e50102020000005f00e2a20102050000000e006100be04bf04ac59"
      "01020200000048001c040102030000004e867eb588c301020200000025006e04010203000000186b0e77f8e701020200"
      "000070000e7801020300000041006237859e01020400000088049104b50494a30102030000007f002804338401020300"
      "0000023d328b62f001020200000030c731c90102040000005d0040046c04c4ea01020100000090240102030000003a04"
      "b2049e69010204000000f516ac21d429706b0102010000005eb50102020000007f00821f01020300000041003b04a6c1"
      "0102020000004b006a690102020000008a004104010203000000c000e43044b201020100000024000102030000004c00"
      "729a9ee001020100000016c801020100000057000102020000004b04bd7a01020100000085000102030000003f004d04"
      "fa920102010000007ec70102010000009683010202000000944744860102010000008631010202000000381cbc680102"
      "020000005604c81c0102030000007f00270e9223010201000000570401020100000012630102010000005c0001020100"
      "00006f1f010202000000a2857a9a010202000000050065040102010000005c69010202000000970061b1010202000000"
      "452adcf60102010000006b040102010000006d0401020100000028690102010000007004010201000000bde901020100"
      "000042c20102010000007d0401020100000068de010202000000a704e5b3010203000000810490043425010201000000"
      "af00010202000000ab00800901020100000089f2010201000000a7000102010000003938010201000000e1fd01020100"
      "00009d04010201000000ac28010201000000a1040102010000009e0001020100000076b50102010000000c0001020100"
      "0000b904010201000000b6a9000000000000000000000000000000000000000000000000000000007100000000000000"
      "0000000070000000",
     "017100000000000000000200000000ff00033200020000ffdfdeffffef3f000000000000000000000000000000000000"
      "00000000000000022800010005040302ff01ff000b0a0908ff0706ff11100fff0e0dff0c16ff15ff141312ffffff1aff"
      "191817ff21201f1e1dff1c1bffff272625242322ffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffff0400000000000000000000000000000000000400"
      "000000000000000201000000000000000400000000000000000402000000000000000400000000000000000503000000"
      "000000000400000000000000000604000000000000000400000000000000000705000000000000000400000000000000"
      "000906000000000000000400000000000000000a07000000000000000400000000000000000c08000000000000000400"
      "000000000000000d09000000000000000400000000000000000e0a000000000000000400000000000000000f0b000000"
      "00000000040000000000000000100c00000000000000040000000000000000120d000000000000000400000000000000"
      "00130e00000000000000040000000000000000150f000000000000000400000000000000001610000000000000000400"
      "000000000000001711000000000000000400000000000000001912000000000000000400000000000000001a13000000"
      "000000000400000000000000001b14000000000000000400000000000000001d15000000000000000400000000000000"
      "001f16000000000000000400000000000000002117000000000000000400000000000000002218000000000000000400"
      "00000000000000231900000000000000040000000000000000251a00000000000000040000000000000000281b000000"
      "00000000040000000000000000291c000000000000000400000000000000002b1d000000000000000400000000000000"
      "002c1e000000000000000400000000000000002d1f000000000000000400000000000000002e20000000000000000400"
      "000000000000002f21000000000000000400000000000000003022000000000000000400000000000000003123000000"
      "000000000400000000000000003224000000000000000400000000000000003325000000000000000400000000000000"
      "003426000000000000000400000000000000003527000000000000000400000000000001000128000000000000000400"
      "00000000000200022900000000000000040000000000000300032a00000000000000040000000000000400042b000000"
      "00000000040000000000000500052c00000000000000040000000000000600062d000000000000000400000000000007"
      "00072e00000000000000040000000000000800082f000000000000000400000000000009000930000000000000000400"
      "00000000000a000a3100000000000000040000000000000b000b3200000000000000040000000000000c000c33000000"
      "00000000040000000000000e000e3400000000000000040000000000000f000f35000000000000000400000000000011"
      "001136000000000000000400000000000012001237000000000000000400000000000013001338000000000000000400"
      "00000000001400143900000000000000040000000000001600163a00000000000000040000000000001700173b000000"
      "00000000040000000000001800183c00000000000000040000000000001900193d00000000000000040000000000001a"
      "001a3e00000000000000040000000000001b001b3f00000000000000040000000000001c001c40000000000000000400"
      "00000000001d001d4100000000000000040000000000001e001e4200000000000000040000000000001f001f43000000"
      "000000000400000000000020002044000000000000000400000000000021002145000000000000000400000000000022"
      "002246000000000000000400000000000023002347000000000000000400000000000024002448000000000000000400"
      "00000000002500254900000000000000040000000000002600264a00000000000000040000000000002700274b000000"
      "00000000040000000000002800284c00000000000000040000000000002900294d00000000000000040000000000002a"
      "002a4e00000000000000040000000000002b002b4f00000000000000040000000000002d002d50000000000000000400"
      "00000000002e002e5100000000000000040000000000002f002f52000000000000000400000000000030003053000000"
      "000000000400000000000031003154000000000000000400000000000032003255000000000000000400000000000033"
      "003356000000000000000400000000000034003457000000000000000400000000000035003558000000000000000109"
      "0002ff00201f1a150b04010000000000000000290110000100110f0e0d08060300352f2b252322191504000000ffff00"
      "000000590000000000000004000000ffff000000035a0000000000000004000000ffff000000065b0000000000000004"
      "000000ffff000000085c0000000000000004000000ffff0000000d5d0000000000000004000000ffff0000000e5e0000"
      "000000000004000000ffff0000000f5f0000000000000004000000ffff00000011600000000000000004000000ffff00"
      "000015610000000000000004000000ffff00000019620000000000000004000000ffff00000022630000000000000004"
      "000000ffff00000023640000000000000004000000ffff00000025650000000000000004000000ffff0000002b660000"
      "000000000004000000ffff0000002f670000000000000004000000ffff00000035680000000000000004000000ffff00"
      "010001690000000000000004000000ffff000400046a0000000000000004000000ffff000b000b6b0000000000000004"
      "000000ffff001500156c0000000000000004000000ffff001a001a6d0000000000000004000000ffff001f001f6e0000"
      "000000000004000000ffff002000206f0000000000000004000000ffff00290029700000000000000001000000fe8d00"
      "0000010201000000b904010202000000050065040102020000000a0424fc0102010000007c5001020300000041006237"
      "859e0102020000005f00e2a20102020000004b006a690102020000007f00821f01020100000096830102020000004800"
      "1c0401020100000024000102020000000904b00a0102050000008500b5386c3cb670727e010202000000a304e7540102"
      "040000005d0040046c04c4ea010203000000186b0e77f8e701020100000016c801020100000042ff010204000000f903"
      "291d4c3b7671010203000000c000e43044b2010201000000126301020200000025006e04010202000000b700fd030102"
      "020000005f0023430102050000000e006100be04bf04ac59010203000000e25442bf76e2010202000000452adcf60102"
      "010000007004010201000000000401020100000057040102020000005b007a59010201000000b6a90102020000002500"
      "62a0010201000000af000102020000004b04bd7a0102030000009a04ee1250e50102030000000a11dabb7abe01020300"
      "00002f00f843ce6a01020200000027046cf50102030000007500600473040102030000004c00729a9ee0010203000000"
      "7f00270e922301020200000094474486010204000000f516ac21d429706b01020400000058006e007200efd001020100"
      "0000f96d010202000000ab0080090102020000000604bb40010201000000ea050102030000003f004d04fa9201020200"
      "000070000e780102030000004e867eb588c301020300000041003b04a6c10102020000005c0484d101020200000030c7"
      "31c90102010000008e000102030000007f00280433840102030000003a04b2049e690102040000005a00fe035eda47e9"
      "0102020000005604c81c010201000000bde90102010000009024010202000000ba00030401020400000008040a6e1ba0"
      "adf701020100000013040102010000005c69010202000000e75f4c920102010000009e000102010000009d0401020100"
      "0000821c01020100000028690102020000008a0041040102020000001e008c040102020000008704b32d010203000000"
      "023d328b62f0010201000000e1fd0102010000000b040102030000008104900434250102010000000c00010205000000"
      "430017047b04f85f94dc0102010000005700010201000000f803010202000000a2857a9a01020400000088049104b504"
      "94a3010202000000381cbc680102020000000d045017010201000000ac28010201000000a7000102040000000a004d00"
      "af00860401020100000076b501020100000086310102010000007d040102020000002a00294901020100000089f20102"
      "010000005eb50102010000008500010201000000badb0102010000006d040102010000008f000102010000007ec70102"
      "0100000042c20102010000005c0001020100000068de01020100000039380102010000006b04010202000000970061b1"
      "0102010000001104010202000000a704e5b30102020000001e04be600102010000000f040102010000006f1f01020100"
      "00001004010201000000a104000000000000000000000000000000000000000000000000000000007100000000000000"
      "0000000070000000"},
    {"010200000000000000000200030000000000070004000000000000000003000000000000000004000000000000070000"
      "010000000000000001000000fe0200000001018813000055555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555550000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "00000000000000010201000000000002000000000000000000000001000000",
     "010200000000000000000200020000000001000400000000000000000300000000000000000400000000000100000001"
      "0000000000000001000000fe0200000001020200000001000f2701020100000000000200000000000000000000000100"
      "0000",
     "010300000000000000000200020000000001000002000000000700040000000000000000030000000000000000040000"
      "00000000070000010000000000000004000000000001000000020000000000000001000000fe0300000001018a130000"
      "575555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555"
      "55d500000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000001020100000000000102010000000000"
      "03000000000000000000000002000000"},
};

static const char *const theta_java_vectors[][3] = {
    {"01030300001e0000",
     "01030300001e0000",
     "01030300001e0000"},
    {"01030300001e0000",
     "01030300003acc93433a3c42f921e122",
     "01030300003acc93433a3c42f921e122"},
    {"01030300003acc935faa88784214b828",
     "01030300001e0000",
     "01030300003acc935faa88784214b828"},
    {"01030300003acc93e1518faf6226d179",
     "01030300003acc93b6c646de5d703453",
     "02030300001acc93020000000000803fb6c646de5d703453e1518faf6226d179"},
    {"02030300001acc93020000000000803f8ee856ada8cd6537cf5106c1ec69694b",
     "01030300001e0000",
     "02030300001acc93020000000000803f8ee856ada8cd6537cf5106c1ec69694b"},
    {"01030300001e0000",
     "02030300000acc93030000000000803f00876cb9ec22c43d1503dd342d77463f1c68e8f56c111e5b",
     "02030300001acc93030000000000803f00876cb9ec22c43d1503dd342d77463f1c68e8f56c111e5b"},
    {"02030300000acc93020000000000803f06b92be59c5a041a5fe60260fbcdce45",
     "01030300003acc93f959fb186f59ca60",
     "02030300001acc93030000000000803f06b92be59c5a041a5fe60260fbcdce45f959fb186f59ca60"},
    {"03030300001acc93010000000000803f00000000002feb73235bacea3eee0731",
     "01030300003acc93fdee5ebe76747f3c",
     "03030300001acc93020000000000803f00000000002feb73235bacea3eee0731fdee5ebe76747f3c"},
    {"03030300001acc93000000000000803f0000000040103e2b",
     "02030300001acc93040000000000803fe69b24f94a36a02a0549873ff6a6a03647087d46dbc50f45d9f7b55fff4d5c78",
     "03030300001acc93010000000000803f0000000040103e2be69b24f94a36a02a"},
    {"01030300001e0000",
     "03030300001acc93060000000000803f00000000c036603ea5907be534f96d03e60bc76e49afa50872178b3de56e8b0c"
      "f99a9e6401f2b013240a3efc72c5402154b3de7343f24f24",
     "03030300001acc93060000000000803f00000000c036603ea5907be534f96d03e60bc76e49afa50872178b3de56e8b0c"
      "f99a9e6401f2b013240a3efc72c5402154b3de7343f24f24"},
    {"02030300001acc93070000000000803fe28c7a66b167291cae1e195c3e01e01d939c77d95517002fe324b488b6ddea46"
      "2aad7770278d5c5f363af436b307056c052f8e2247fb4977",
     "03030300001acc93000000000000803f0000000000d8925c",
     "03030300001acc93040000000000803f0000000000d8925ce28c7a66b167291cae1e195c3e01e01d939c77d95517002f"
      "e324b488b6ddea46"},
    {"01030300001e0000",
     "c303020c0704cc93000000000000803fffffffffffffff7f000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "00000000000000000000000000000000000000000000000000000000000000000000000000000000",
     "01030300001e0000"},
    {"c303020c0700cc93020000000000803fffffffffffffff7f000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000061d2083de76e27140000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "00000000000000000000000000000000fd048d301560cc3b00000000000000000000000000000000",
     "01030300003acc930e49d0413fc5514c",
     "02030300001acc93030000000000803f61d2083de76e2714fd048d301560cc3b0e49d0413fc5514c"},
};

static const char *const hll_java_vectors[][3] = {
    {"02010705030c0004",
     "02010705030c0000",
     "02010705030c0000"},
    {"02010704030c0000",
     "02010705030c0000",
     "02010705030c0000"},
    {"02010706030c0008",
     "02010705030c0004",
     "02010705030c0000"},
    {"02010706030802041544b607ede83d05",
     "02010708030c0008",
     "02010708030802001544b607ede83d05"},
    {"02010704030400080000000000000000000000000000000000000000000000000000000000000000",
     "02010704030c0008",
     "02010704030c0000"},
    {"0201070d030c0000",
     "02010705030400040000000000000000000000000000000000000000000000000000000000000000",
     "02010705030c0000"},
    {"0201070603080308c339f41b5a341b060e7f0705",
     "0201070403080508cbd33d04a2a64b0ad37fd60de4da0e06c4f8930a",
     "0a01070400080002adaaaa0400002040000000000008284000000000000000000a000000000000000062020000110001"},
    {"02010704030803002bcffb054aea791413fb8a0c",
     "0201070803080600ab717f04cce773094fda990764fb380549b943059e423e07",
     "03010708050800010900000064fb380549b943054aea7914ab717f04cce773094fda990713fb8a0c2bcffb059e423e07"},
    {"0a010704000801028bd1912faba64e400000000000c00340000000000000000002000000000000001022225421303245",
     "02010708030c0004",
     "0a010704000801028bd1912faba64e400000000000c00340000000000000000002000000000000001022225421303245"},
    {"02010704030c0008",
     "0a0107040008050219cc8fa696e09a40000000000010be3f000000000000000001000000000000005353742322331210",
     "0a0107040008050219cc8fa696e09a40000000000010be3f000000000000000001000000000000005353742322331210"},
    {"02010706030801089ae3260c",
     "0301070e0508000108000000058a1013e6912907454c7c06abe1eb06517ff10b2be9b107b5f2e708fd7d1e0d",
     "0301070e0508000109000000058a1013e6912907454c7c06abe1eb06517ff10b2be9b107b5f2e7089ae3260cfd7d1e0d"},
    {"0a010704000000062e84619c643dd440000000000090823f000000000000000000000000000000008aa328cac2308de2"
      "28cfa22c00",
     "02010705030c0004",
     "0a01070400080a022e84619c643dd440000000000090823f000000000000000007000000000000004000102203041510"},
    {"0a010705001804020000000000000000000000000098dd3f000000000000000002000000000000002034115535743313"
      "4114633415023423",
     "02010704030c0000",
     "0a0107040018050200000000000000000000000000e0bb3f000000000000000001000000000000003023524424632312"},
    {"0201070703080204f697f50790c17b06",
     "0a010704001806020000000000000000000000000048b73f000000000000000002000000000000005351033117031211",
     "0a010704001806020000000000000000000000000048b73f000000000000000002000000000000005351033117031211"},
    {"0a0107040000000ac9ba808d130b8a40000000000030cd3f000000000000000000000000000000000a0b070905050407"
      "0706060609060807",
     "02010706030c0000",
     "0a01070400080402c9ba808d130b8a40000000000030cd3f000000000000000001000000000000007653113023222534"},
    {"02010706030c0008",
     "0a0107040000000a803476a457d39540000000000060bf3f000000000000000000000000000000000709050b0a070808"
      "0907080607080607",
     "0a01070400080502803476a457d39540000000000060bf3f000000000000000001000000000000004260253324133221"},
    {"0201070903080108eee05905",
     "0301070d0508000909000000212201074297a004862e140d476612056d114709130c2b05333cd3053595a40bfd565a05",
     "0301070d050800010a000000212201074297a004862e140d476612056d114709eee05905130c2b05333cd3053595a40b"
      "fd565a05"},
    {"020107090308010437bd6b04",
     "0a01070400000006f35b1a16ddeaae400000000000a4a33f000000000000000000000000000000004a7224c8732809b2"
      "200aa32c00",
     "0a01070400080702f35b1a16ddeaae400000000000a4a33f000000000000000002000000000000002320813012145343"},
    {"0301070b0508000109000000a178140ca4b75606a5203e09c7c3230b0b4424058f7dfe0855fb7e12394f43163ea9950a",
     "02010704030806087579e70597c661045c6ca909862d500d7290320a86b58804",
     "0a01070400080002c62d6c1ffd3e33400000000000601e40000000000000000005000000000000003002412350100222"},
    {"0301070805080005090000004363d40787e4cc04e9a3fc0470261904f1ccb00572ff15093513f40499e0c0057e965e0f",
     "0201070403000108b732900a00000000000000000000000000000000000000000000000000000000",
     "0a01070400080002585555afaaaa22400000000000402640000000000000000008000000000000001112102010000003"},
    {"0a01070600000006d061e68cb79926400000000001444c40000000000000000036000000000000000000004000000020"
      "0000000000300000000002500000000000003c000000000000c0000000000001000000000002100000",
     "02010708030400040000000000000000000000000000000000000000000000000000000000000000",
     "0a01070602080002d061e68cb79926400000000001444c40000000000000000036000000010000000000100000020000"
      "000300000205000000f000000000300000000100000002012300003c"},
    {"0a010706000000061caee824ef724340000000000026454000000000000000002100000000000000001004c030000000"
      "0c02100042100080300842100000101004000000000000300c02000000001845000043100401000800",
     "030107090508000509000000a67f340f2673b2044abe8e050db6ce16323a830bb560e705bb1271199d9fb7049ff33613",
     "0a0107060008000272a8df372634484000000000001c434000000000000000001c000000000000000011300300315201"
      "120120231201104104000003003302000062150013610120"},
    {"0a0107070308030291dda2256c6ea24000000000814b144000000000000000000d000000010000001017123432151232"
      "6350004034101122141342131201212312203213321141134513330301428323211331233241f4302114213602533713"
      "72234235043114225d000048",
     "0a0107050018050200000000000000000000000000a4cd3f000000000000000001000000000000001824261350232751"
      "3472243222231221",
     "0a0107050018050200000000000000000000000020f4c73f000000000000000001000000000000002825261450336751"
      "547224332223d221"},
    {"0a0107050000000aadaaaa04000020400000000000c83c4000000000000000001b000000000000000000000000010001"
      "000000000000000000000000000000010005000200000000",
     "0a01070703080202d9c73c2420959e4000000000019f1640000000000000000001000000010000003138124343332532"
      "2231326365424233241451222455143424441531321231135444361302333113534531474431f6424242826334147135"
      "14945346354913325d000048",
     "0a0107050018050200000000000000000000000010b0d33f000000000000000003000000000000002115533011224202"
      "216222343216d310"},
};

static size_t hex_to_bytes(const char *h, uint8_t *out) {
  size_t n = strlen(h) / 2;
  for (size_t i = 0; i < n; i++) {
    unsigned v = 0;
    for (int j = 0; j < 2; j++) {
      char c = h[2 * i + (size_t)j];
      v = v * 16 + (unsigned)(c <= '9' ? c - '0' : c - 'a' + 10);
    }
    out[i] = (uint8_t)v;
  }
  return n;
}

static void check_java_vectors(merge_fn fn, const char *const (*vec)[3], size_t n) {
  static bytes a, b, want;
  for (size_t i = 0; i < n; i++) {
    a.n = hex_to_bytes(vec[i][0], a.d);
    b.n = hex_to_bytes(vec[i][1], b.d);
    want.n = hex_to_bytes(vec[i][2], want.d);
    int ok = merge_expect(fn, &a, &b, &want);
    CHECK_MSG(ok, "Java vector %zu", i);
  }
}

static void test_java_vectors(void) {
  check_java_vectors(pm_agg_rbm64_merge, rbm64_java_vectors, sizeof rbm64_java_vectors / sizeof rbm64_java_vectors[0]);
  check_java_vectors(pm_agg_theta_merge, theta_java_vectors, sizeof theta_java_vectors / sizeof theta_java_vectors[0]);
  check_java_vectors(pm_agg_hll_merge, hll_java_vectors, sizeof hll_java_vectors / sizeof hll_java_vectors[0]);
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
  RUN_TEST(test_java_vectors);
  TEST_MAIN_END();
}
