/* Binary aggregate functions rbm64, theta_sketch, hll_sketch (see agg_sketch.h). */
#include "table/agg_sketch.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------
 * Little helpers: bounded reader and little-endian writers.
 * ------------------------------------------------------------------------------------------- */

typedef struct sk_reader {
  const uint8_t *p;
  size_t len;
  size_t off;
  const char *which; /* "first" or "second" value, for messages */
} sk_reader;

static bool sk_has(const sk_reader *r, size_t n) { return n <= r->len - r->off; }

static uint64_t sk_le(const uint8_t *p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}

static void sk_put_le(uint8_t *p, uint64_t v, int n) {
  for (int i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static int sk_append_le(pm_buf *out, uint64_t v, int n) {
  uint8_t tmp[8];
  sk_put_le(tmp, v, n);
  return pm_buf_append(out, tmp, (size_t)n);
}

static int sk_popcount64(uint64_t x) {
  /* portable bit count (no -mpopcnt on the build) */
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
  return (int)((x * 0x0101010101010101ull) >> 56);
}

/* =============================================================================================
 * rbm64: Java Paimon's RoaringBitmap64 wraps org.roaringbitmap.longlong.Roaring64Bitmap
 * (RoaringBitmap 1.2.1) and serializes it with Roaring64Bitmap.serialize(DataOutput) after
 * runOptimize(). That is NOT the portable 64-bit spec: it is the library's own layout of its
 * adaptive radix tree (ART) over the high 48 bits plus a two-level container store:
 *
 *   u8 tag (0 = empty bitmap, nothing follows; any other value = not empty)
 *   i64le keySize (number of keys ever inserted minus removed)
 *   ART nodes in pre-order, children in ascending key order. Each node:
 *     u8 type (0 Node4, 1 Node16, 2 Node48, 3 Node256, 4 Leaf), i16le count, i8 prefixLength,
 *     prefix bytes, then the body:
 *       Node4   4 bytes: key bytes of positions 3,2,1,0 (the int key written little-endian)
 *       Node16  16 bytes: positions 7..0 then 15..8 (two longs written little-endian)
 *       Node48  256 bytes: child slot (or 0xFF) per key byte; key k at byte 8*(k/8)+7-(k%8)
 *       Node256 32 bytes: four little-endian 64-bit masks of present key bytes
 *       Leaf    6 bytes high-48 key (big-endian), i64le container index (first<<32 | second)
 *   containers: i32le firstLevelSize, per first level: u8 trim mark (written 0xFE), i32le
 *     capacity, per slot: 0 (empty) or 1, u8 type (0 run, 1 bitmap, 2 array), i32le cardinality,
 *     data (run: u16le nbrruns + nbrruns*(u16le start, u16le length-1); bitmap: 1024 u64le;
 *     array: cardinality u16le); then i64le containerSize, i32le firstLevelIdx, i32le
 *     secondLevelIdx.
 *
 * The output depends on the tree shape and the container store layout (capacities grow 1.5x,
 * empty slots are written), so the merge replays Java's algorithms on a parsed copy of `a`:
 * Roaring64Bitmap.or inserts b's missing keys in ascending order (Art.insert, Node*.insert,
 * Containers.addContainer) and ORs shared containers with Container.ior, whose result type
 * (array/bitmap/run) we reproduce; then runOptimize converts array/bitmap containers to run
 * containers when smaller (run containers stay run containers).
 * ============================================================================================= */

enum { RB_RUN = 0, RB_BITMAP = 1, RB_ARRAY = 2 };
enum { RB_N4 = 0, RB_N16 = 1, RB_N48 = 2, RB_N256 = 3, RB_LEAF = 4 };
#define RB_KEY_BYTES 6
#define RB_WORDS 1024
#define RB_MAX_CONTAINERS (1u << 30)

typedef struct rb_container {
  bool present;
  uint8_t type;
  uint32_t card; /* array: value count; bitmap: cardinality; run: sum of run lengths */
  uint32_t n;    /* array: value count; run: number of runs */
  uint16_t *vals; /* array values, or run (start, length-1) pairs; owned */
  uint64_t *words; /* bitmap words; owned */
} rb_container;

typedef struct rb_node rb_node;
struct rb_node {
  uint8_t type;
  int16_t count; /* as Java keeps it: number of children (leaves: whatever was stored) */
  uint8_t prefix_len;
  uint8_t prefix[RB_KEY_BYTES];
  /* Node4/Node16: key bytes by position, including stale bytes past count (Java writes them). */
  uint8_t raw_keys[16];
  /* Node48: child slot per key byte (0xFF = none). */
  uint8_t *slot_of_key;
  /* Inner nodes: children sorted by key byte. */
  uint16_t nchild, cap_child;
  uint8_t *child_key;
  rb_node **child;
  /* Leaf */
  uint8_t key[RB_KEY_BYTES];
  uint64_t container_idx;
};

typedef struct rb_bitmap {
  bool empty;
  int64_t key_size;
  rb_node *root;
  /* Containers (only first level 0 is ever used by Java below 2^31 containers). */
  uint32_t cap;
  rb_container *slots;
  int64_t container_size;
  int32_t first_level_idx;
  int32_t second_level_idx;
  uint32_t nleaves;
} rb_bitmap;

static void rb_node_free(rb_node *n) {
  if (!n) return;
  for (uint16_t i = 0; i < n->nchild; i++) rb_node_free(n->child[i]);
  free(n->child);
  free(n->child_key);
  free(n->slot_of_key);
  free(n);
}

static void rb_container_clear(rb_container *c) {
  free(c->vals);
  free(c->words);
  memset(c, 0, sizeof *c);
}

static void rb_bitmap_free(rb_bitmap *bm) {
  rb_node_free(bm->root);
  if (bm->slots) {
    for (uint32_t i = 0; i < bm->cap; i++) rb_container_clear(&bm->slots[i]);
    free(bm->slots);
  }
  memset(bm, 0, sizeof *bm);
}

static int rb_corrupt(pm_error *err, const sk_reader *r, const char *what, size_t off) {
  return pm_errorf(err, PAIMON_ERR_CORRUPT,
                   "rbm64: %s value is not a serialized Roaring64Bitmap: %s at offset %zu (length %zu)", r->which,
                   what, off, r->len);
}

static int rb_need(sk_reader *r, size_t n, const char *field, pm_error *err) {
  if (!sk_has(r, n)) return rb_corrupt(err, r, field, r->off);
  return 0;
}

static rb_node *rb_node_new(uint8_t type) {
  rb_node *n = calloc(1, sizeof *n);
  if (!n) return NULL;
  n->type = type;
  if (type == RB_N48) {
    n->slot_of_key = malloc(256);
    if (!n->slot_of_key) {
      free(n);
      return NULL;
    }
    memset(n->slot_of_key, 0xFF, 256);
  }
  return n;
}

static int rb_child_reserve(rb_node *n, uint32_t need) {
  if (need <= n->cap_child) return 0;
  uint32_t cap = n->cap_child ? n->cap_child * 2u : 4u;
  if (cap < need) cap = need;
  if (cap > 256) cap = 256;
  uint8_t *k = realloc(n->child_key, cap);
  if (!k) return PAIMON_ERR_NOMEM;
  n->child_key = k;
  rb_node **c = realloc(n->child, cap * sizeof *c);
  if (!c) return PAIMON_ERR_NOMEM;
  n->child = c;
  n->cap_child = (uint16_t)cap;
  return 0;
}

/* Reads one ART node (and its subtree). depth = key bytes consumed above it, path = those bytes. */
static int rb_read_node(sk_reader *r, int depth, uint8_t *path, rb_bitmap *bm, rb_node **out, pm_error *err) {
  size_t start = r->off;
  PM_TRY(rb_need(r, 4, "ART node header", err));
  uint8_t type = r->p[r->off];
  int16_t count = (int16_t)sk_le(r->p + r->off + 1, 2);
  int8_t prefix_len = (int8_t)r->p[r->off + 3];
  r->off += 4;
  if (type > RB_LEAF) return rb_corrupt(err, r, "unknown ART node type", start);
  if (prefix_len < 0 || prefix_len > RB_KEY_BYTES) return rb_corrupt(err, r, "bad ART prefix length", start + 3);
  if (type != RB_LEAF && depth + prefix_len >= RB_KEY_BYTES)
    return rb_corrupt(err, r, "ART inner node deeper than the 48-bit key", start);
  PM_TRY(rb_need(r, (size_t)prefix_len, "ART prefix", err));
  rb_node *n = rb_node_new(type);
  if (!n) return PM_NOMEM(err);
  *out = n;
  n->count = count;
  n->prefix_len = (uint8_t)prefix_len;
  memcpy(n->prefix, r->p + r->off, (size_t)prefix_len);
  r->off += (size_t)prefix_len;

  if (type == RB_LEAF) {
    PM_TRY(rb_need(r, RB_KEY_BYTES + 8, "ART leaf", err));
    memcpy(n->key, r->p + r->off, RB_KEY_BYTES);
    n->container_idx = sk_le(r->p + r->off + RB_KEY_BYTES, 8);
    r->off += RB_KEY_BYTES + 8;
    if (memcmp(n->key, path, (size_t)depth) != 0) return rb_corrupt(err, r, "ART leaf key does not match its path", start);
    bm->nleaves++;
    return 0;
  }

  /* Inner node: memorize the prefix into the path, then read key bytes of the children. */
  memcpy(path + depth, n->prefix, (size_t)prefix_len);
  int child_depth = depth + prefix_len; /* index of the child's key byte */
  uint8_t keys[256];
  int nkeys = 0;
  if (type == RB_N4 || type == RB_N16) {
    int width = type == RB_N4 ? 4 : 16;
    PM_TRY(rb_need(r, (size_t)width, "ART node keys", err));
    const uint8_t *d = r->p + r->off;
    if (type == RB_N4) {
      for (int j = 0; j < 4; j++) n->raw_keys[j] = d[3 - j];
    } else {
      for (int j = 0; j < 8; j++) {
        n->raw_keys[j] = d[7 - j];
        n->raw_keys[8 + j] = d[15 - j];
      }
    }
    r->off += (size_t)width;
    if (count < 1 || count > width) return rb_corrupt(err, r, "bad ART node child count", start + 1);
    for (int j = 0; j < count; j++) {
      if (j > 0 && n->raw_keys[j] <= n->raw_keys[j - 1]) return rb_corrupt(err, r, "ART node keys not ascending", start);
      keys[nkeys++] = n->raw_keys[j];
    }
  } else if (type == RB_N48) {
    PM_TRY(rb_need(r, 256, "ART Node48 index", err));
    const uint8_t *d = r->p + r->off;
    bool used[48] = {false};
    for (int k = 0; k < 256; k++) {
      uint8_t s = d[8 * (k >> 3) + 7 - (k & 7)];
      n->slot_of_key[k] = s;
      if (s == 0xFF) continue;
      if (s >= 48 || used[s]) return rb_corrupt(err, r, "bad ART Node48 child slot", r->off);
      used[s] = true;
      keys[nkeys++] = (uint8_t)k;
    }
    r->off += 256;
    if (count != nkeys || nkeys < 1) return rb_corrupt(err, r, "ART Node48 count does not match its index", start + 1);
  } else {
    PM_TRY(rb_need(r, 32, "ART Node256 mask", err));
    for (int k = 0; k < 256; k++) {
      uint64_t w = sk_le(r->p + r->off + 8 * (k >> 6), 8);
      if ((w >> (k & 63)) & 1) keys[nkeys++] = (uint8_t)k;
    }
    r->off += 32;
    if (count != nkeys || nkeys < 1) return rb_corrupt(err, r, "ART Node256 count does not match its mask", start + 1);
  }
  if (rb_child_reserve(n, (uint32_t)nkeys)) return PM_NOMEM(err);
  for (int j = 0; j < nkeys; j++) {
    path[child_depth] = keys[j];
    n->child_key[j] = keys[j];
    n->child[j] = NULL;
    n->nchild = (uint16_t)(j + 1);
    PM_TRY(rb_read_node(r, child_depth + 1, path, bm, &n->child[j], err));
  }
  return 0;
}

static int rb_read_container(sk_reader *r, rb_container *c, pm_error *err) {
  size_t start = r->off;
  PM_TRY(rb_need(r, 5, "container header", err));
  uint8_t type = r->p[r->off];
  uint32_t card = (uint32_t)sk_le(r->p + r->off + 1, 4);
  r->off += 5;
  c->present = true;
  c->type = type;
  if (type == RB_RUN) {
    PM_TRY(rb_need(r, 2, "run container size", err));
    uint32_t nruns = (uint32_t)sk_le(r->p + r->off, 2);
    r->off += 2;
    PM_TRY(rb_need(r, (size_t)nruns * 4, "run container runs", err));
    c->vals = malloc((size_t)nruns * 4 + 4);
    if (!c->vals) return PM_NOMEM(err);
    int64_t prev_end = -2, total = 0;
    for (uint32_t i = 0; i < nruns; i++) {
      uint16_t s = (uint16_t)sk_le(r->p + r->off, 2), l = (uint16_t)sk_le(r->p + r->off + 2, 2);
      r->off += 4;
      if ((int64_t)s <= prev_end || (uint32_t)s + l > 65535u)
        return rb_corrupt(err, r, "run container runs overlap or overflow", r->off - 4);
      prev_end = (int64_t)s + l;
      total += (int64_t)l + 1;
      c->vals[2 * i] = s;
      c->vals[2 * i + 1] = l;
    }
    c->n = nruns;
    c->card = (uint32_t)total; /* Java recomputes it from the runs; the stored value is unused */
  } else if (type == RB_BITMAP) {
    PM_TRY(rb_need(r, RB_WORDS * 8, "bitmap container", err));
    c->words = malloc(RB_WORDS * 8);
    if (!c->words) return PM_NOMEM(err);
    uint32_t pop = 0;
    for (int i = 0; i < RB_WORDS; i++) {
      c->words[i] = sk_le(r->p + r->off + 8 * i, 8);
      pop += (uint32_t)sk_popcount64(c->words[i]);
    }
    r->off += RB_WORDS * 8;
    if (pop != card) return rb_corrupt(err, r, "bitmap container cardinality does not match its bits", start + 1);
    c->card = card;
  } else if (type == RB_ARRAY) {
    if (card > 65536) return rb_corrupt(err, r, "array container cardinality too large", start + 1);
    PM_TRY(rb_need(r, (size_t)card * 2, "array container values", err));
    c->vals = malloc((size_t)card * 2 + 2);
    if (!c->vals) return PM_NOMEM(err);
    for (uint32_t i = 0; i < card; i++) {
      c->vals[i] = (uint16_t)sk_le(r->p + r->off + 2 * i, 2);
      if (i > 0 && c->vals[i] <= c->vals[i - 1]) return rb_corrupt(err, r, "array container values not ascending", r->off + 2 * i);
    }
    r->off += (size_t)card * 2;
    c->n = card;
    c->card = card;
  } else {
    return rb_corrupt(err, r, "unknown container type", start);
  }
  return 0;
}

/* Checks that every leaf names a distinct present container. */
static int rb_check_leaves(rb_node *n, rb_bitmap *bm, uint8_t *seen, const char *which, pm_error *err) {
  if (n->type == RB_LEAF) {
    uint64_t idx = n->container_idx;
    if ((idx >> 32) != 0 || (uint32_t)idx >= bm->cap || !bm->slots[(uint32_t)idx].present || seen[(uint32_t)idx])
      return pm_errorf(err, PAIMON_ERR_CORRUPT,
                       "rbm64: %s value is not a serialized Roaring64Bitmap: ART leaf names container %llu which is "
                       "missing or shared", which, (unsigned long long)idx);
    seen[(uint32_t)idx] = 1;
    return 0;
  }
  for (uint16_t i = 0; i < n->nchild; i++) PM_TRY(rb_check_leaves(n->child[i], bm, seen, which, err));
  return 0;
}

static int rb_parse(const uint8_t *p, size_t len, const char *which, rb_bitmap *bm, pm_error *err) {
  memset(bm, 0, sizeof *bm);
  bm->first_level_idx = -1;
  sk_reader r = {p, len, 0, which};
  PM_TRY(rb_need(&r, 1, "empty tag", err));
  if (p[0] == 0) {
    bm->empty = true;
    return 0; /* Java reads nothing more (trailing bytes are ignored, as in Java) */
  }
  r.off = 1;
  PM_TRY(rb_need(&r, 8, "ART key count", err));
  bm->key_size = (int64_t)sk_le(p + 1, 8);
  r.off += 8;
  uint8_t path[RB_KEY_BYTES];
  PM_TRY(rb_read_node(&r, 0, path, bm, &bm->root, err));

  PM_TRY(rb_need(&r, 4, "container levels", err));
  int32_t levels = (int32_t)sk_le(p + r.off, 4);
  if (levels != 1) return rb_corrupt(err, &r, "container store must have one level", r.off);
  r.off += 4;
  PM_TRY(rb_need(&r, 5, "container level header", err));
  uint32_t cap = (uint32_t)sk_le(p + r.off + 1, 4);
  r.off += 5;
  /* Each slot takes at least one byte, so the capacity is bounded by the input. */
  if (cap > r.len - r.off || cap > RB_MAX_CONTAINERS) return rb_corrupt(err, &r, "container capacity exceeds the value", r.off - 4);
  bm->slots = calloc(cap ? cap : 1, sizeof *bm->slots);
  if (!bm->slots) return PM_NOMEM(err);
  bm->cap = cap;
  int64_t present = 0, last_present = -1;
  for (uint32_t i = 0; i < cap; i++) {
    PM_TRY(rb_need(&r, 1, "container null mark", err));
    uint8_t mark = p[r.off++];
    if (mark == 0) continue;
    if (mark != 1) return rb_corrupt(err, &r, "bad container null mark", r.off - 1);
    PM_TRY(rb_read_container(&r, &bm->slots[i], err));
    present++;
    last_present = i;
  }
  PM_TRY(rb_need(&r, 16, "container store trailer", err));
  bm->container_size = (int64_t)sk_le(p + r.off, 8);
  bm->first_level_idx = (int32_t)sk_le(p + r.off + 8, 4);
  bm->second_level_idx = (int32_t)sk_le(p + r.off + 12, 4);
  if (bm->container_size != present || bm->container_size != (int64_t)bm->nleaves)
    return rb_corrupt(err, &r, "container count does not match the containers and keys", r.off);
  if (bm->first_level_idx != 0 || bm->second_level_idx < last_present || (uint32_t)bm->second_level_idx >= cap)
    return rb_corrupt(err, &r, "container store position out of range", r.off + 8);
  r.off += 16;
  uint8_t *seen = calloc(cap ? cap : 1, 1);
  if (!seen) return PM_NOMEM(err);
  int rc = rb_check_leaves(bm->root, bm, seen, which, err);
  free(seen);
  return rc;
}

/* ---- containers ---- */

static void rb_to_bits(const rb_container *c, uint64_t *bits) {
  memset(bits, 0, RB_WORDS * 8);
  if (c->type == RB_BITMAP) {
    memcpy(bits, c->words, RB_WORDS * 8);
  } else if (c->type == RB_ARRAY) {
    for (uint32_t i = 0; i < c->n; i++) bits[c->vals[i] >> 6] |= 1ull << (c->vals[i] & 63);
  } else {
    for (uint32_t i = 0; i < c->n; i++) {
      uint32_t s = c->vals[2 * i], e = s + c->vals[2 * i + 1] + 1; /* [s, e) */
      while (s < e) {
        uint32_t w = s >> 6, hi = (w + 1) * 64 < e ? (w + 1) * 64 : e;
        uint64_t m = (hi - s == 64) ? ~0ull : (((1ull << (hi - s)) - 1) << (s & 63));
        bits[w] |= m;
        s = hi;
      }
    }
  }
}

static uint32_t rb_bits_card(const uint64_t *bits) {
  uint32_t n = 0;
  for (int i = 0; i < RB_WORDS; i++) n += (uint32_t)sk_popcount64(bits[i]);
  return n;
}

static uint32_t rb_bits_runs(const uint64_t *bits) {
  uint32_t runs = 0;
  int prev = 0;
  for (int i = 0; i < RB_WORDS; i++) {
    uint64_t w = bits[i];
    /* run starts: bit set whose predecessor is clear */
    uint64_t starts = w & ~((w << 1) | (uint64_t)prev);
    runs += (uint32_t)sk_popcount64(starts);
    prev = (int)(w >> 63);
  }
  return runs;
}

/* First position >= from whose bit equals `set` (65536 if none). */
static uint32_t rb_next_bit(const uint64_t *bits, uint32_t from, int set) {
  while (from < 65536) {
    uint64_t w = set ? bits[from >> 6] : ~bits[from >> 6];
    w &= ~0ull << (from & 63);
    if (w) return (from & ~63u) + (uint32_t)__builtin_ctzll(w);
    from = (from & ~63u) + 64;
  }
  return 65536;
}

/* Replaces c's content with `bits` in the given representation. */
static int rb_from_bits(rb_container *c, const uint64_t *bits, uint8_t type) {
  uint32_t card = rb_bits_card(bits);
  rb_container nc = {.present = true, .type = type, .card = card};
  if (type == RB_BITMAP) {
    nc.words = malloc(RB_WORDS * 8);
    if (!nc.words) return PAIMON_ERR_NOMEM;
    memcpy(nc.words, bits, RB_WORDS * 8);
  } else if (type == RB_ARRAY) {
    nc.vals = malloc((size_t)card * 2 + 2);
    if (!nc.vals) return PAIMON_ERR_NOMEM;
    for (uint32_t w = 0; w < RB_WORDS; w++)
      for (uint64_t x = bits[w]; x; x &= x - 1) nc.vals[nc.n++] = (uint16_t)(w * 64 + (uint32_t)__builtin_ctzll(x));
  } else {
    uint32_t runs = rb_bits_runs(bits);
    nc.vals = malloc((size_t)runs * 4 + 4);
    if (!nc.vals) return PAIMON_ERR_NOMEM;
    uint32_t v = 0;
    while (v < 65536) {
      uint32_t s = rb_next_bit(bits, v, 1);
      if (s >= 65536) break;
      v = rb_next_bit(bits, s, 0);
      nc.vals[2 * nc.n] = (uint16_t)s;
      nc.vals[2 * nc.n + 1] = (uint16_t)(v - 1 - s);
      nc.n++;
    }
  }
  rb_container_clear(c);
  *c = nc;
  return 0;
}

/* Type that RunContainer.toEfficientContainer picks for a run container holding these bits. */
static uint8_t rb_efficient_type(uint32_t card, uint32_t runs) {
  uint32_t run_size = 2 + 4 * runs, array_size = 2 * card + 2;
  uint32_t min = array_size < 8192 ? array_size : 8192;
  if (run_size <= min) return RB_RUN;
  return card <= 4096 ? RB_ARRAY : RB_BITMAP;
}

static bool rb_is_full_run(const rb_container *c) {
  return c->type == RB_RUN && c->n == 1 && c->vals[0] == 0 && c->vals[1] == 0xFFFF;
}

/* a = a.ior(b) with the result type Java's Container.ior produces. */
static int rb_container_or(rb_container *a, const rb_container *b, uint64_t *bits, uint64_t *tmp) {
  rb_to_bits(a, bits);
  rb_to_bits(b, tmp);
  for (int i = 0; i < RB_WORDS; i++) bits[i] |= tmp[i];
  uint32_t card = rb_bits_card(bits);
  bool full = card == 65536;
  uint8_t type;
  if (a->type == RB_ARRAY && b->type == RB_ARRAY) {
    /* ArrayContainer.ior: stays an array unless the summed cardinalities pass 4096, then a
     * lazily ORed bitmap repaired back to array / full run / bitmap. */
    if (a->card + b->card <= 4096) type = RB_ARRAY;
    else type = card <= 4096 ? RB_ARRAY : (full ? RB_RUN : RB_BITMAP);
  } else if (a->type == RB_BITMAP && b->type == RB_ARRAY) {
    type = RB_BITMAP; /* BitmapContainer.ior(ArrayContainer) never converts */
  } else if (a->type == RB_BITMAP || b->type == RB_BITMAP) {
    /* bitmap|bitmap, bitmap|run, array|bitmap, run|bitmap: bitmap, or the full run container */
    type = full ? RB_RUN : RB_BITMAP;
    if (a->type == RB_RUN && rb_is_full_run(a)) return 0;
  } else {
    /* run|run, run|array, array|run: RunContainer.toEfficientContainer of the merged runs */
    if (a->type == RB_RUN && rb_is_full_run(a)) return 0;
    type = rb_efficient_type(card, rb_bits_runs(bits));
  }
  return rb_from_bits(a, bits, type);
}

static int rb_container_clone(rb_container *dst, const rb_container *src) {
  *dst = *src;
  dst->vals = NULL;
  dst->words = NULL;
  if (src->vals) {
    size_t n = src->type == RB_RUN ? (size_t)src->n * 4 : (size_t)src->n * 2;
    dst->vals = malloc(n + 4);
    if (!dst->vals) return PAIMON_ERR_NOMEM;
    memcpy(dst->vals, src->vals, n);
  }
  if (src->words) {
    dst->words = malloc(RB_WORDS * 8);
    if (!dst->words) return PAIMON_ERR_NOMEM;
    memcpy(dst->words, src->words, RB_WORDS * 8);
  }
  return 0;
}

/* Containers.addContainer: next slot, growing the slot array by 1.5x as java.util does. */
static int rb_add_container(rb_bitmap *bm, rb_container *c, uint64_t *idx) {
  uint32_t slot;
  if (bm->first_level_idx == -1) {
    free(bm->slots);
    bm->slots = calloc(1, sizeof *bm->slots);
    if (!bm->slots) return PAIMON_ERR_NOMEM;
    bm->cap = 1;
    bm->first_level_idx = 0;
    bm->second_level_idx = 0;
    slot = 0;
  } else {
    slot = (uint32_t)++bm->second_level_idx;
  }
  if (slot + 1 > bm->cap) {
    uint64_t ncap = (uint64_t)bm->cap + (bm->cap >> 1);
    if (ncap < slot + 1) ncap = slot + 1;
    if (ncap > RB_MAX_CONTAINERS) return PAIMON_ERR_NOMEM;
    rb_container *ns = realloc(bm->slots, ncap * sizeof *ns);
    if (!ns) return PAIMON_ERR_NOMEM;
    memset(ns + bm->cap, 0, (ncap - bm->cap) * sizeof *ns);
    bm->slots = ns;
    bm->cap = (uint32_t)ncap;
  }
  bm->slots[slot] = *c;
  memset(c, 0, sizeof *c);
  bm->container_size++;
  *idx = slot;
  return 0;
}

/* ---- ART ---- */

static rb_node *rb_find(rb_node *n, const uint8_t *key) {
  int depth = 0;
  while (n) {
    if (n->type == RB_LEAF) return memcmp(n->key, key, RB_KEY_BYTES) == 0 ? n : NULL;
    if (memcmp(n->prefix, key + depth, n->prefix_len) != 0) return NULL;
    depth += n->prefix_len;
    rb_node *next = NULL;
    for (uint16_t i = 0; i < n->nchild; i++)
      if (n->child_key[i] == key[depth]) next = n->child[i];
    n = next;
    depth++;
  }
  return NULL;
}

static rb_node *rb_new_leaf(const uint8_t *key, uint64_t idx) {
  rb_node *l = rb_node_new(RB_LEAF);
  if (!l) return NULL;
  memcpy(l->key, key, RB_KEY_BYTES);
  l->container_idx = idx;
  return l;
}

/* Adds child under key byte k to a Node4/16/48/256, growing the node type as Java does.
 * Java's Node4/Node16 sort their key bytes by insertion (sortSmallByteArray); Node16->Node48
 * gives child i slot i; Node48 takes slot `count` or the first free one. */
static int rb_insert_child(rb_node *n, rb_node *child, uint8_t k) {
  if (n->type == RB_N4 && n->count >= 4) {
    /* Node16 with firstV = key << 32: positions 0..3 = Node4's bytes, the rest zero */
    n->type = RB_N16;
    memset(n->raw_keys + 4, 0, 12);
  } else if (n->type == RB_N16 && n->count >= 16) {
    n->type = RB_N48;
    n->slot_of_key = malloc(256);
    if (!n->slot_of_key) return PAIMON_ERR_NOMEM;
    memset(n->slot_of_key, 0xFF, 256);
    for (int i = 0; i < 16; i++) n->slot_of_key[n->raw_keys[i]] = (uint8_t)i;
  } else if (n->type == RB_N48 && n->count >= 48) {
    n->type = RB_N256;
    free(n->slot_of_key);
    n->slot_of_key = NULL;
  }
  if (n->type == RB_N4 || n->type == RB_N16) {
    int c = n->count;
    n->raw_keys[c] = k;
    /* insertion sort of positions 0..c (only the new byte moves) */
    for (int j = c; j > 0 && n->raw_keys[j - 1] > n->raw_keys[j]; j--) {
      uint8_t t = n->raw_keys[j];
      n->raw_keys[j] = n->raw_keys[j - 1];
      n->raw_keys[j - 1] = t;
    }
  } else if (n->type == RB_N48) {
    bool used[48] = {false};
    for (int i = 0; i < 256; i++)
      if (n->slot_of_key[i] != 0xFF) used[n->slot_of_key[i]] = true;
    int pos = n->count;
    if (used[pos]) {
      pos = 0;
      while (used[pos]) pos++;
    }
    n->slot_of_key[k] = (uint8_t)pos;
  }
  n->count++;
  if (rb_child_reserve(n, (uint32_t)n->nchild + 1)) return PAIMON_ERR_NOMEM;
  uint16_t at = 0;
  while (at < n->nchild && n->child_key[at] < k) at++;
  memmove(n->child_key + at + 1, n->child_key + at, (size_t)(n->nchild - at));
  memmove(n->child + at + 1, n->child + at, (size_t)(n->nchild - at) * sizeof *n->child);
  n->child_key[at] = k;
  n->child[at] = child;
  n->nchild++;
  return 0;
}

/* Art.insert: returns the node that replaces `n` at its place (n itself or a new Node4). */
static int rb_insert(rb_node *n, const uint8_t *key, int depth, uint64_t idx, rb_node **result) {
  if (!n) {
    *result = rb_new_leaf(key, idx);
    return *result ? 0 : PAIMON_ERR_NOMEM;
  }
  if (n->type == RB_LEAF) {
    int common = 0;
    while (depth + common < RB_KEY_BYTES && n->key[depth + common] == key[depth + common]) common++;
    if (depth + common >= RB_KEY_BYTES) return PAIMON_ERR_INTERNAL; /* key already present */
    n->prefix_len = 0; /* Java resets the leaf's prefix when it splits it */
    rb_node *n4 = rb_node_new(RB_N4);
    rb_node *leaf = rb_new_leaf(key, idx);
    if (!n4 || !leaf) {
      free(n4);
      free(leaf);
      return PAIMON_ERR_NOMEM;
    }
    n4->prefix_len = (uint8_t)common;
    memcpy(n4->prefix, key + depth, (size_t)common);
    int rc = rb_insert_child(n4, n, n->key[depth + common]);
    if (!rc) rc = rb_insert_child(n4, leaf, key[depth + common]);
    if (rc) {
      if (n4->nchild > 0) n4->nchild = 0; /* n belongs to the caller */
      rb_node_free(n4);
      free(leaf);
      return rc;
    }
    *result = n4;
    return 0;
  }
  if (n->prefix_len > 0) {
    int mismatch = 0;
    while (mismatch < n->prefix_len && n->prefix[mismatch] == key[depth + mismatch]) mismatch++;
    if (mismatch != n->prefix_len) {
      rb_node *n4 = rb_node_new(RB_N4);
      rb_node *leaf = rb_new_leaf(key, idx);
      if (!n4 || !leaf) {
        free(n4);
        free(leaf);
        return PAIMON_ERR_NOMEM;
      }
      n4->prefix_len = (uint8_t)mismatch;
      memcpy(n4->prefix, n->prefix, (size_t)mismatch);
      uint8_t split_byte = n->prefix[mismatch];
      int rc = rb_insert_child(n4, n, split_byte);
      if (rc) {
        n4->nchild = 0;
        rb_node_free(n4);
        free(leaf);
        return rc;
      }
      uint8_t rest = (uint8_t)(n->prefix_len - (mismatch + 1));
      memmove(n->prefix, n->prefix + mismatch + 1, rest);
      n->prefix_len = rest;
      rc = rb_insert_child(n4, leaf, key[depth + mismatch]);
      if (rc) {
        free(leaf);
        *result = n4; /* n is inside n4 now; the caller frees the tree */
        return rc;
      }
      *result = n4;
      return 0;
    }
    depth += n->prefix_len;
  }
  for (uint16_t i = 0; i < n->nchild; i++) {
    if (n->child_key[i] == key[depth]) {
      rb_node *fresh = NULL;
      int rc = rb_insert(n->child[i], key, depth + 1, idx, &fresh);
      if (fresh) n->child[i] = fresh;
      *result = n;
      return rc;
    }
  }
  rb_node *leaf = rb_new_leaf(key, idx);
  if (!leaf) return PAIMON_ERR_NOMEM;
  int rc = rb_insert_child(n, leaf, key[depth]);
  if (rc) free(leaf);
  *result = n;
  return rc;
}

/* ---- serialization ---- */

static int rb_write_node(pm_buf *out, const rb_node *n) {
  uint8_t hdr[4 + RB_KEY_BYTES];
  hdr[0] = n->type;
  sk_put_le(hdr + 1, (uint16_t)n->count, 2);
  hdr[3] = n->prefix_len;
  memcpy(hdr + 4, n->prefix, n->prefix_len);
  PM_TRY(pm_buf_append(out, hdr, 4 + (size_t)n->prefix_len));
  if (n->type == RB_LEAF) {
    PM_TRY(pm_buf_append(out, n->key, RB_KEY_BYTES));
    return sk_append_le(out, n->container_idx, 8);
  }
  uint8_t body[256];
  size_t body_len;
  if (n->type == RB_N4) {
    for (int j = 0; j < 4; j++) body[j] = n->raw_keys[3 - j];
    body_len = 4;
  } else if (n->type == RB_N16) {
    for (int j = 0; j < 8; j++) {
      body[j] = n->raw_keys[7 - j];
      body[8 + j] = n->raw_keys[15 - j];
    }
    body_len = 16;
  } else if (n->type == RB_N48) {
    for (int k = 0; k < 256; k++) body[8 * (k >> 3) + 7 - (k & 7)] = n->slot_of_key[k];
    body_len = 256;
  } else {
    uint64_t mask[4] = {0, 0, 0, 0};
    for (uint16_t i = 0; i < n->nchild; i++) mask[n->child_key[i] >> 6] |= 1ull << (n->child_key[i] & 63);
    for (int i = 0; i < 4; i++) sk_put_le(body + 8 * i, mask[i], 8);
    body_len = 32;
  }
  PM_TRY(pm_buf_append(out, body, body_len));
  for (uint16_t i = 0; i < n->nchild; i++) PM_TRY(rb_write_node(out, n->child[i]));
  return 0;
}

/* Writes one container after Roaring64Bitmap.runOptimize(): arrays and bitmaps become run
 * containers when that is strictly smaller; run containers are kept as they are. */
static int rb_write_container(pm_buf *out, rb_container *c, uint64_t *bits) {
  if (c->type != RB_RUN) {
    uint32_t runs = 0;
    if (c->type == RB_ARRAY) {
      for (uint32_t i = 0; i < c->n; i++) runs += i == 0 || c->vals[i] != c->vals[i - 1] + 1;
    } else {
      runs = rb_bits_runs(c->words);
    }
    uint32_t run_size = 2 + 4 * runs;
    uint32_t size = c->type == RB_ARRAY ? 2 * c->card : 8192;
    if (size > run_size) {
      rb_to_bits(c, bits);
      PM_TRY(rb_from_bits(c, bits, RB_RUN));
    }
  }
  uint8_t hdr[6] = {1, c->type};
  sk_put_le(hdr + 2, c->card, 4);
  PM_TRY(pm_buf_append(out, hdr, 6));
  if (c->type == RB_RUN) {
    PM_TRY(sk_append_le(out, c->n, 2));
    for (uint32_t i = 0; i < 2 * c->n; i++) PM_TRY(sk_append_le(out, c->vals[i], 2));
  } else if (c->type == RB_ARRAY) {
    for (uint32_t i = 0; i < c->n; i++) PM_TRY(sk_append_le(out, c->vals[i], 2));
  } else {
    for (int i = 0; i < RB_WORDS; i++) PM_TRY(sk_append_le(out, c->words[i], 8));
  }
  return 0;
}

static int rb_write(pm_buf *out, rb_bitmap *bm, uint64_t *bits) {
  if (!bm->root) return pm_buf_push_u8(out, 0);
  PM_TRY(pm_buf_push_u8(out, 1));
  PM_TRY(sk_append_le(out, (uint64_t)bm->key_size, 8));
  PM_TRY(rb_write_node(out, bm->root));
  PM_TRY(sk_append_le(out, 1, 4));
  PM_TRY(pm_buf_push_u8(out, 0xFE));
  PM_TRY(sk_append_le(out, bm->cap, 4));
  for (uint32_t i = 0; i < bm->cap; i++) {
    if (!bm->slots[i].present) PM_TRY(pm_buf_push_u8(out, 0));
    else PM_TRY(rb_write_container(out, &bm->slots[i], bits));
  }
  PM_TRY(sk_append_le(out, (uint64_t)bm->container_size, 8));
  PM_TRY(sk_append_le(out, (uint32_t)bm->first_level_idx, 4));
  return sk_append_le(out, (uint32_t)bm->second_level_idx, 4);
}

/* Roaring64Bitmap.or(b): b's keys in ascending order; shared keys OR their containers, missing
 * keys get a copy of b's container appended to a's store and a new ART leaf. */
static int rb_or_node(rb_bitmap *a, const rb_bitmap *b, const rb_node *n, uint64_t *bits, uint64_t *tmp) {
  if (n->type != RB_LEAF) {
    for (uint16_t i = 0; i < n->nchild; i++) PM_TRY(rb_or_node(a, b, n->child[i], bits, tmp));
    return 0;
  }
  const rb_container *bc = &b->slots[(uint32_t)n->container_idx];
  rb_node *hit = rb_find(a->root, n->key);
  if (hit) return rb_container_or(&a->slots[(uint32_t)hit->container_idx], bc, bits, tmp);
  rb_container copy;
  PM_TRY(rb_container_clone(&copy, bc));
  uint64_t idx;
  int rc = rb_add_container(a, &copy, &idx);
  if (rc) {
    rb_container_clear(&copy);
    return rc;
  }
  rb_node *fresh = NULL;
  rc = rb_insert(a->root, n->key, 0, idx, &fresh);
  if (fresh) a->root = fresh;
  a->key_size++;
  return rc;
}

int pm_agg_rbm64_merge(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len, pm_buf *out, pm_error *err) {
  rb_bitmap ba, bb;
  uint64_t *bits = malloc(2 * RB_WORDS * 8);
  if (!bits) return PM_NOMEM(err);
  int rc = rb_parse(a, a_len, "first", &ba, err);
  if (!rc) {
    rc = rb_parse(b, b_len, "second", &bb, err);
    if (!rc) {
      if (bb.root) rc = rb_or_node(&ba, &bb, bb.root, bits, bits + RB_WORDS);
      if (!rc) rc = rb_write(out, &ba, bits);
      if (rc && rc != PAIMON_ERR_CORRUPT) rc = pm_errorf(err, rc, "rbm64: merge failed (%s)", paimon_status_name(rc));
    }
    rb_bitmap_free(&bb);
  }
  rb_bitmap_free(&ba);
  free(bits);
  return rc;
}

/* =============================================================================================
 * theta_sketch: Java Paimon's ThetaSketch.union (paimon-common) builds a default union
 * (Sketches.setOperationBuilder().buildUnion(): nominal entries 4096, seed 9001, p = 1.0), calls
 * Union.union(Memory) with a then b, and serializes getResult() (an ordered CompactSketch) with
 * toByteArray() (serial version 3). DataSketches 4.2.0, UnionImpl:
 *  - inputs shorter than 16 bytes are ignored (the empty compact sketch is 8 bytes);
 *  - serVer 3: family must be Alpha/QuickSelect/Compact (1..3); preLongs 1 = single item (if its
 *    flags say ordered+compact+read-only, not empty, or the single-item flag is set) or empty;
 *    preLongs 2 = exact mode (curCount at 8; 0 entries = ignored), preLongs 3 = with thetaLong at
 *    16; seed hashes must match for preLongs >= 2; the union theta becomes min(thetas); ordered
 *    inputs stop at the first hash >= that theta, unordered/hash-table inputs skip hashes <= 0 or
 *    >= theta; a negative hash that reaches the gadget is an error in Java.
 *  - the gadget is a QuickSelect hash table of k = 4096 whose rebuilds keep the k smallest
 *    hashes. Whatever the rebuild timing, getResult ends with theta = min(input thetas,
 *    (k+1)-th smallest distinct hash if there are more than k) and the hashes below it, sorted.
 *  - componentsToCompact: no hashes and theta 1.0 (or nothing seen at all) -> the 8-byte empty
 *    sketch; one hash and theta 1.0 -> the 16-byte SingleItemSketch; else preLongs 2 (theta 1.0)
 *    or 3, flags read-only|compact|ordered, curCount, p = 1.0f, [theta], hashes.
 * Serial versions 1, 2 (pre-2015 sketches) and 4 (compressed) are reported as unsupported.
 * ============================================================================================= */

#define TH_K 4096
#define TH_SEED_HASH 0x93CC /* computeSeedHash(9001): low 16 bits of MurmurHash3_x64_128({9001}, 0) */
#define TH_MAX_THETA INT64_MAX

typedef struct th_union {
  int64_t theta;      /* unionThetaLong_ */
  bool union_empty;   /* unionEmpty_ */
  bool gadget_empty;  /* the gadget's empty flag: cleared by any hash reaching it */
  int64_t *hashes;    /* candidate hashes (may repeat) */
  size_t n, cap;
} th_union;

static int th_add(th_union *u, int64_t h) {
  u->gadget_empty = false;
  if (h == 0) return 0; /* the gadget rejects 0 silently */
  if (u->n == u->cap) {
    size_t cap = u->cap ? u->cap * 2 : 64;
    int64_t *p = realloc(u->hashes, cap * sizeof *p);
    if (!p) return PAIMON_ERR_NOMEM;
    u->hashes = p;
    u->cap = cap;
  }
  u->hashes[u->n++] = h;
  return 0;
}

static int th_bad(pm_error *err, const char *which, const char *what, size_t off) {
  return pm_errorf(err, PAIMON_ERR_CORRUPT, "theta_sketch: %s value is not a theta sketch: %s (offset %zu)", which,
                   what, off);
}

static int th_union_value(th_union *u, const uint8_t *p, size_t len, const char *which, pm_error *err) {
  if (len < 16) return 0; /* Java: "empty or garbage", ignored */
  int pre_longs = p[0] & 0x3F, ser_ver = p[1], family = p[2], flags = p[5];
  if (ser_ver == 1 || ser_ver == 2 || ser_ver == 4)
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED,
                     "theta_sketch: %s value has serialization version %d (only version 3 is supported)", which,
                     ser_ver);
  if (ser_ver != 3) return th_bad(err, which, "unknown serialization version", 1);
  if (family < 1 || family > 3) return th_bad(err, which, "family is not Alpha, QuickSelect or Compact", 2);
  if (pre_longs == 1) {
    bool single = (flags & 0x1F) == 0x1A || (flags & 0x20);
    if (!single) return 0; /* empty */
    int64_t h = (int64_t)sk_le(p + 8, 8);
    if (h < 0) return th_bad(err, which, "negative hash", 8);
    return th_add(u, h) ? PM_NOMEM(err) : 0;
  }
  if (sk_le(p + 6, 2) != TH_SEED_HASH)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "theta_sketch: %s value has seed hash 0x%04X, expected 0x%04X (seed 9001)",
                     which, (unsigned)sk_le(p + 6, 2), TH_SEED_HASH);
  int32_t cur_count = (int32_t)sk_le(p + 8, 4);
  int64_t theta_in = TH_MAX_THETA;
  if (pre_longs == 2) {
    if (cur_count == 0) return 0;
  } else {
    if (pre_longs == 0) return th_bad(err, which, "preamble longs 0", 0);
    if (len < 24) return th_bad(err, which, "truncated before theta", len);
    theta_in = (int64_t)sk_le(p + 16, 8);
    if (theta_in <= 0) return th_bad(err, which, "theta is not positive", 16);
  }
  if (theta_in < u->theta) u->theta = theta_in;
  u->union_empty = false;
  size_t base = (size_t)pre_longs * 8;
  if (flags & 0x10) { /* ordered, hence compact: early stop at the first hash >= theta */
    int64_t prev = INT64_MIN;
    for (int32_t i = 0; i < cur_count; i++) {
      size_t off = base + (size_t)i * 8;
      if (off + 8 > len) return th_bad(err, which, "truncated hash array", off);
      int64_t h = (int64_t)sk_le(p + off, 8);
      if (h >= u->theta) break;
      if (h < 0) return th_bad(err, which, "negative hash", off);
      if (h <= prev) return th_bad(err, which, "ordered sketch with hashes out of order", off);
      prev = h;
      if (th_add(u, h)) return PM_NOMEM(err);
    }
  } else {
    size_t size;
    if (flags & 0x08) {
      size = cur_count > 0 ? (size_t)cur_count : 0;
    } else {
      int lg_arr = p[4];
      if (lg_arr > 26) return th_bad(err, which, "hash table size too large", 4);
      size = (size_t)1 << lg_arr;
    }
    if (size > (len - base) / 8 || base > len) return th_bad(err, which, "truncated hash array", len);
    for (size_t i = 0; i < size; i++) {
      int64_t h = (int64_t)sk_le(p + base + i * 8, 8);
      if (h <= 0 || h >= u->theta) continue;
      if (th_add(u, h)) return PM_NOMEM(err);
    }
  }
  return 0;
}

static int th_cmp(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return a < b ? -1 : a > b;
}

int pm_agg_theta_merge(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len, pm_buf *out, pm_error *err) {
  th_union u = {.theta = TH_MAX_THETA, .union_empty = true, .gadget_empty = true};
  int rc = th_union_value(&u, a, a_len, "first", err);
  if (!rc) rc = th_union_value(&u, b, b_len, "second", err);
  if (rc) {
    free(u.hashes);
    return rc;
  }
  /* distinct hashes, ascending */
  if (u.n > 1) qsort(u.hashes, u.n, sizeof *u.hashes, th_cmp);
  size_t distinct = 0;
  for (size_t i = 0; i < u.n; i++)
    if (distinct == 0 || u.hashes[i] != u.hashes[distinct - 1]) u.hashes[distinct++] = u.hashes[i];
  int64_t theta = u.theta;
  if (distinct > TH_K && u.hashes[TH_K] < theta) theta = u.hashes[TH_K];
  size_t count = 0;
  while (count < distinct && u.hashes[count] < theta) count++;

  bool empty = (u.gadget_empty && u.union_empty) || (count == 0 && theta == TH_MAX_THETA);
  bool single = count == 1 && theta == TH_MAX_THETA;
  uint8_t pre[24] = {0, 3, 3, 0, 0, 0, 0, 0};
  if (empty) {
    pre[0] = 1;
    pre[5] = 0x1E; /* read-only, empty, compact, ordered; seed hash 0 */
    rc = pm_buf_append(out, pre, 8);
  } else if (single) {
    pre[0] = 1;
    pre[5] = 0x3A; /* read-only, compact, ordered, single item */
    sk_put_le(pre + 6, TH_SEED_HASH, 2);
    sk_put_le(pre + 8, (uint64_t)u.hashes[0], 8);
    rc = pm_buf_append(out, pre, 16);
  } else {
    int pre_longs = theta < TH_MAX_THETA ? 3 : 2;
    pre[0] = (uint8_t)pre_longs;
    pre[5] = 0x1A; /* read-only, compact, ordered */
    sk_put_le(pre + 6, TH_SEED_HASH, 2);
    sk_put_le(pre + 8, count, 4);
    sk_put_le(pre + 12, 0x3F800000u, 4); /* p = 1.0f */
    sk_put_le(pre + 16, (uint64_t)theta, 8);
    rc = pm_buf_append(out, pre, (size_t)pre_longs * 8);
    if (!rc) rc = pm_buf_reserve(out, count * 8);
    for (size_t i = 0; !rc && i < count; i++) {
      sk_put_le(out->data + out->len, (uint64_t)u.hashes[i], 8);
      out->len += 8;
    }
  }
  free(u.hashes);
  if (rc) return PM_NOMEM(err);
  return 0;
}

/* =============================================================================================
 * hll_sketch: Java Paimon's HllSketchUtil.union heapifies a as an HllSketch, b as a Union (lgMaxK =
 * b's lgK, HLL_8 gadget), updates the union with a and writes getResult(HLL_4).toCompactByteArray().
 * Reproducing those bytes needs the coupon list / coupon hash set tables (their slot order is
 * serialized), the HLL_4 aux hash map, downsampling and the HIP / KxQ doubles; not done yet.
 * ============================================================================================= */

int pm_agg_hll_merge(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len, pm_buf *out, pm_error *err) {
  return pm_errorf(err, PAIMON_ERR_UNSUPPORTED,
                   "hll_sketch: merging DataSketches HLL sketches is not supported yet (Java merges with "
                   "org.apache.datasketches.hll.Union and writes an HLL_4 compact sketch)");
}
