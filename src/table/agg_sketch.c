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
    /* SingleItemSketch.otherCheckForSingleItem: compact family with flags ordered|compact|read-only
     * and not empty, or the single-item flag */
    bool single = (family == 3 && (flags & 0x1F) == 0x1A) || (flags & 0x20);
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
 * hll_sketch: Java Paimon's HllSketchUtil.union(a, b) (DataSketches 4.2.0):
 *   HllSketch.heapify(a); Union.heapify(b) = new Union(lgMaxK = b's lgK) updated with b;
 *   union.update(a); union.getResult(HLL_4).toCompactByteArray().
 * The union gadget is an HLL_8 sketch that starts as an empty coupon LIST. What we replay:
 *  - coupon LIST (8 slots, filled in order) -> coupon hash SET (2^5.. 2^(lgK-3) slots, open
 *    addressing: probe = coupon & mask, stride = ((coupon & 2^26-1) >>> lgArr) | 1, grows past
 *    3/4 full) -> HLL when the list fills with lgK < 8 or the set passes 3/4 at its largest size.
 *    Promotion to HLL re-inserts the coupons in table order and sets the HIP accumulator to the
 *    coupon estimate (cubic interpolation over CouponMapping's tables).
 *  - HLL_8 coupon updates keep HIP and KxQ registers incrementally:
 *    hip += k / (kxq0 + kxq1); kxq -= 2^-old; kxq += 2^-new (kxq1 holds values >= 32).
 *  - Union.unionImpl's cases: LIST/SET sources are fed coupon by coupon; an HLL source is copied
 *    (or downsampled) to HLL_8 and the gadget's coupons are fed into it, or max-merged into an HLL
 *    gadget (folding larger lgK, downsampling the gadget for a smaller lgK), which sets the
 *    out-of-order flag (and zeroes HIP).
 *  - getResult(HLL_4): coupon modes keep their coupons (compact form lists them in table order);
 *    HLL converts to HLL_4: curMin = minimum value, nibbles = value - curMin, values >= curMin+15
 *    in an aux hash map (LG_AUX_ARR_INTS sizes, probe = slot & mask, stride = (slot >>> lg) | 1,
 *    grows past 3/4), KxQ recomputed in slot order, HIP and out-of-order copied.
 * Only the registers' values, HIP and the out-of-order flag of an HLL-mode input influence the
 * output besides the coupon tables, so HLL_4/6/8 inputs are decoded to plain slot values.
 * ============================================================================================= */

enum { HLL_LIST = 0, HLL_SET = 1, HLL_HLL = 2 };
enum { HLL_4 = 0, HLL_6 = 1, HLL_8 = 2 };
#define HLL_KEY_MASK_26 ((1u << 26) - 1)

static const int hll_lg_aux_arr_ints[22] = {0, 2, 2, 2, 2, 2, 2, 3, 3, 3, 4, 4, 5, 5, 6, 7, 8, 9, 10, 11, 12, 13};

typedef struct hll_state {
  int lgk;
  int mode;
  int tgt;
  /* coupon modes */
  int lg_arr;
  int count;
  uint32_t *arr; /* 1 << lg_arr coupons, 0 = empty; owned */
  /* HLL mode (values of all slots, HLL_8 registers) */
  uint8_t *vals; /* 1 << lgk; owned */
  double hip, kxq0, kxq1;
  int num_zero;
  bool ooo, rebuild;
} hll_state;

static void hll_free(hll_state *h) {
  free(h->arr);
  free(h->vals);
  memset(h, 0, sizeof *h);
}

static double hll_inv_pow2(int e) {
  uint64_t bits = (uint64_t)(1023 - e) << 52;
  double d;
  memcpy(&d, &bits, sizeof d);
  return d;
}

/* ---- coupon estimate (CubicInterpolation.usingXAndYTables over CouponMapping) ---- */
static const double hll_coupon_x[40] = {
    0.0, 1.0, 20.0, 400.0, 8000.0, 160000.0, 300000.0, 600000.0, 900000.0, 1200000.0,
    1500000.0, 1800000.0, 2100000.0, 2400000.0, 2700000.0, 3000000.0, 3300000.0, 3600000.0, 3900000.0, 4200000.0,
    4500000.0, 4800000.0, 5100000.0, 5400000.0, 5700000.0, 6000000.0, 6300000.0, 6600000.0, 6900000.0, 7200000.0,
    7500000.0, 7800000.0, 8100000.0, 8400000.0, 8700000.0, 9000000.0, 9300000.0, 9600000.0, 9900000.0, 10200000.0};
static const double hll_coupon_y[40] = {
    0.0000000000000000, 1.0000000000000000, 20.0000009437402611, 400.0003963713384110,
    8000.1589294602090376, 160063.6067763759638183, 300223.7071597663452849, 600895.5933856170158833,
    902016.8065120954997838, 1203588.4983199508860707, 1505611.8245524743106216, 1808087.9449319066479802,
    2111018.0231759352609515, 2414403.2270142501220107, 2718244.7282051891088486, 3022543.7025524540804327,
    3327301.3299219091422856, 3632518.7942584538832307, 3938197.2836029687896371, 4244337.9901093561202288,
    4550942.1100616492331028, 4858010.8438911894336343, 5165545.3961938973516226, 5473546.9757476449012756,
    5782016.7955296505242586, 6090956.0727340159937739, 6400366.0287892958149314, 6710247.8893762007355690,
    7020602.8844453142955899, 7331432.2482349723577499, 7642737.2192891482263803, 7954519.0404754765331745,
    8266778.9590033423155546, 8579518.2264420464634895, 8892738.0987390466034412, 9206439.8362383283674717,
    9520624.7036988288164139, 9835293.9703129194676876, 10150448.9097250290215015, 10466090.8000503256917000};

static double hll_cubic(const double *xs, const double *ys, double x) {
  /* Lagrange form through 4 points, evaluated term by term as DataSketches does */
  double x0 = xs[0], x1 = xs[1], x2 = xs[2], x3 = xs[3];
  double l0n = (x - x1) * (x - x2) * (x - x3);
  double l1n = (x - x0) * (x - x2) * (x - x3);
  double l2n = (x - x0) * (x - x1) * (x - x3);
  double l3n = (x - x0) * (x - x1) * (x - x2);
  double l0d = (x0 - x1) * (x0 - x2) * (x0 - x3);
  double l1d = (x1 - x0) * (x1 - x2) * (x1 - x3);
  double l2d = (x2 - x0) * (x2 - x1) * (x2 - x3);
  double l3d = (x3 - x0) * (x3 - x1) * (x3 - x2);
  double t0 = (ys[0] * l0n) / l0d;
  double t1 = (ys[1] * l1n) / l1d;
  double t2 = (ys[2] * l2n) / l2d;
  double t3 = (ys[3] * l3n) / l3d;
  return t0 + t1 + t2 + t3;
}

static double hll_coupon_estimate(int count) {
  double x = count;
  const int n = 40;
  double est;
  if (x == hll_coupon_x[n - 1]) {
    est = hll_coupon_y[n - 1];
  } else {
    /* straddle: largest left with x[left] <= x < x[left+1], by the same bisection */
    int left = 0, right = n - 1;
    while (left + 1 != right) {
      int mid = left + (right - left) / 2;
      if (hll_coupon_x[mid] <= x) left = mid;
      else right = mid;
    }
    int off = left == 0 ? 0 : left == n - 2 ? left - 2 : left - 1;
    est = hll_cubic(hll_coupon_x + off, hll_coupon_y + off, x);
  }
  return est > x ? est : x;
}

/* ---- HLL_8 registers ---- */

static int hll_new_hll8(hll_state *h, int lgk) {
  memset(h, 0, sizeof *h);
  h->lgk = lgk;
  h->mode = HLL_HLL;
  h->tgt = HLL_8;
  h->vals = calloc((size_t)1 << lgk, 1);
  if (!h->vals) return PAIMON_ERR_NOMEM;
  h->kxq0 = (double)(1 << lgk);
  h->kxq1 = 0;
  h->num_zero = 1 << lgk;
  return 0;
}

/* Hll8Array.updateSlotWithKxQ */
static void hll8_update(hll_state *h, uint32_t slot, int v) {
  int old = h->vals[slot];
  if (v <= old) return;
  h->vals[slot] = (uint8_t)v;
  double k0 = h->kxq0, k1 = h->kxq1;
  h->hip += (double)(1 << h->lgk) / (k0 + k1);
  if (old < 32) k0 -= hll_inv_pow2(old);
  else k1 -= hll_inv_pow2(old);
  if (v < 32) k0 += hll_inv_pow2(v);
  else k1 += hll_inv_pow2(v);
  h->kxq0 = k0;
  h->kxq1 = k1;
  if (old == 0) h->num_zero--;
}

static void hll8_coupon(hll_state *h, uint32_t coupon) {
  hll8_update(h, coupon & ((1u << h->lgk) - 1), (int)(coupon >> 26));
}

/* HllArray.putOutOfOrder */
static void hll_put_ooo(hll_state *h, bool ooo) {
  if (ooo) h->hip = 0;
  h->ooo = ooo;
}

/* Conversions.convertToHll8 / Hll8 copy (values already decoded): an HLL_8 copy of src. */
static int hll_copy_as_hll8(const hll_state *src, hll_state *dst) {
  int rc = hll_new_hll8(dst, src->lgk);
  if (rc) return rc;
  if (src->tgt == HLL_8) {
    memcpy(dst->vals, src->vals, (size_t)1 << src->lgk);
    dst->hip = src->hip;
    dst->kxq0 = src->kxq0;
    dst->kxq1 = src->kxq1;
    dst->num_zero = src->num_zero;
    dst->ooo = src->ooo;
    dst->rebuild = src->rebuild;
    return 0;
  }
  hll_put_ooo(dst, src->ooo);
  uint32_t k = 1u << src->lgk;
  for (uint32_t i = 0; i < k; i++)
    if (src->vals[i]) hll8_update(dst, i, src->vals[i]);
  dst->hip = src->hip;
  dst->rebuild = false;
  return 0;
}

/* Union.downsample: HLL_8 of lgK tgt_lgk fed with cand's (slot, value) pairs in slot order. */
static int hll_downsample(const hll_state *cand, int tgt_lgk, hll_state *dst) {
  int rc = hll_new_hll8(dst, tgt_lgk);
  if (rc) return rc;
  uint32_t k = 1u << cand->lgk, mask = (1u << tgt_lgk) - 1;
  for (uint32_t i = 0; i < k; i++)
    if (cand->vals[i]) hll8_update(dst, i & mask, cand->vals[i]);
  dst->hip = cand->hip;
  hll_put_ooo(dst, cand->ooo);
  dst->rebuild = false;
  return 0;
}

/* ---- coupon LIST / SET ---- */

/* AbstractCoupons.find: index of coupon, or ~index of the empty slot to use; -2^31 = table full */
static int64_t hll_find(const uint32_t *arr, int lg_arr, uint32_t coupon) {
  uint32_t mask = (1u << lg_arr) - 1, probe = coupon & mask, start = probe;
  do {
    uint32_t at = arr[probe];
    if (at == 0) return ~(int64_t)probe;
    if (at == coupon) return probe;
    uint32_t stride = ((coupon & HLL_KEY_MASK_26) >> lg_arr) | 1;
    probe = (probe + stride) & mask;
  } while (probe != start);
  return INT64_MIN;
}

static int hll_promote_to_hll(hll_state *h) {
  hll_state n;
  int rc = hll_new_hll8(&n, h->lgk);
  if (rc) return rc;
  uint32_t len = 1u << h->lg_arr;
  for (uint32_t i = 0; i < len; i++)
    if (h->arr[i]) hll8_coupon(&n, h->arr[i]);
  n.hip = hll_coupon_estimate(h->count);
  n.ooo = false;
  hll_free(h);
  *h = n;
  return 0;
}

static int hll_set_insert(hll_state *h, uint32_t coupon, bool *promote);

static int hll_list_to_set(hll_state *h) {
  uint32_t *old = h->arr;
  int count = h->count;
  h->arr = calloc(32, sizeof *h->arr);
  if (!h->arr) {
    h->arr = old;
    return PAIMON_ERR_NOMEM;
  }
  h->mode = HLL_SET;
  h->lg_arr = 5;
  h->count = 0;
  int rc = 0;
  bool promote = false;
  for (int i = 0; i < count && !rc; i++) rc = hll_set_insert(h, old[i], &promote); /* cannot promote with 8 */
  free(old);
  return rc;
}

/* CouponHashSet.couponUpdate without the promotion (reported through *promote). */
static int hll_set_insert(hll_state *h, uint32_t coupon, bool *promote) {
  int64_t idx = hll_find(h->arr, h->lg_arr, coupon);
  if (idx == INT64_MIN) return PAIMON_ERR_CORRUPT;
  if (idx >= 0) return 0;
  h->arr[~idx] = coupon;
  h->count++;
  if (4 * h->count > 3 * (1 << h->lg_arr)) {
    if (h->lg_arr == h->lgk - 3) {
      *promote = true;
      return 0;
    }
    int lg = h->lg_arr + 1;
    uint32_t *grown = calloc((size_t)1 << lg, sizeof *grown);
    if (!grown) return PAIMON_ERR_NOMEM;
    for (uint32_t i = 0; i < (1u << h->lg_arr); i++) {
      if (!h->arr[i]) continue;
      int64_t at = hll_find(grown, lg, h->arr[i]);
      if (at >= 0 || at == INT64_MIN) {
        free(grown);
        return PAIMON_ERR_CORRUPT;
      }
      grown[~at] = h->arr[i];
    }
    free(h->arr);
    h->arr = grown;
    h->lg_arr = lg;
  }
  return 0;
}

/* HllSketch.couponUpdate on any mode of an HLL_8 gadget. */
static int hll_coupon_update(hll_state *h, uint32_t coupon) {
  if ((coupon >> 26) == 0) return 0;
  if (h->mode == HLL_HLL) {
    hll8_coupon(h, coupon);
    return 0;
  }
  if (h->mode == HLL_LIST) {
    for (int i = 0; i < 8; i++) {
      if (h->arr[i] == 0) {
        h->arr[i] = coupon;
        h->count++;
        if (h->count >= 8) return h->lgk < 8 ? hll_promote_to_hll(h) : hll_list_to_set(h);
        return 0;
      }
      if (h->arr[i] == coupon) return 0;
    }
    return PAIMON_ERR_CORRUPT;
  }
  bool promote = false;
  int rc = hll_set_insert(h, coupon, &promote);
  if (!rc && promote) rc = hll_promote_to_hll(h);
  return rc;
}

/* Feeds every coupon of a LIST/SET (table order) into dst. */
static int hll_merge_coupons(const hll_state *src, hll_state *dst) {
  uint32_t len = 1u << src->lg_arr;
  for (uint32_t i = 0; i < len; i++)
    if (src->arr[i]) PM_TRY(hll_coupon_update(dst, src->arr[i]));
  return 0;
}

/* ---- parsing ---- */

static int hll_bad(pm_error *err, const char *which, const char *what, size_t off) {
  return pm_errorf(err, PAIMON_ERR_CORRUPT, "hll_sketch: %s value is not an HLL sketch: %s (offset %zu)", which, what,
                   off);
}

static int hll_parse(const uint8_t *p, size_t len, const char *which, hll_state *h, pm_error *err) {
  memset(h, 0, sizeof *h);
  if (len < 8) return hll_bad(err, which, "shorter than the 8-byte preamble", len);
  int pre_ints = p[0] & 0x3F, ser_ver = p[1], family = p[2], lgk = p[3], lg_arr = p[4], flags = p[5];
  int mode = p[7] & 3, tgt = (p[7] >> 2) & 3;
  if (family != 7) return hll_bad(err, which, "family is not HLL (7)", 2);
  if (ser_ver != 1) return hll_bad(err, which, "serialization version is not 1", 1);
  if ((size_t)pre_ints * 4 > len) return hll_bad(err, which, "truncated preamble", len);
  if (mode == 3 || tgt == 3) return hll_bad(err, which, "bad mode byte", 7);
  if ((mode == HLL_LIST && pre_ints != 2) || (mode == HLL_SET && pre_ints != 3) || (mode == HLL_HLL && pre_ints != 10))
    return hll_bad(err, which, "preamble size does not match the mode", 0);
  if (lgk < 4 || lgk > 21) return hll_bad(err, which, "lgK out of range 4..21", 3);
  h->lgk = lgk;
  h->mode = mode;
  h->tgt = tgt;
  uint32_t k = 1u << lgk;
  bool compact = flags & 8;
  if (mode == HLL_LIST) {
    int count = p[6];
    if (count > 8) return hll_bad(err, which, "list count above 8", 6);
    if (8 + (size_t)count * 4 > len) return hll_bad(err, which, "truncated coupon list", len);
    h->lg_arr = 3;
    h->arr = calloc(8, sizeof *h->arr);
    if (!h->arr) return PM_NOMEM(err);
    for (int i = 0; i < count; i++) {
      uint32_t c = (uint32_t)sk_le(p + 8 + 4 * i, 4);
      if ((c >> 26) == 0) return hll_bad(err, which, "coupon without value", 8 + 4 * (size_t)i);
      h->arr[i] = c;
    }
    h->count = count;
    return 0;
  }
  if (mode == HLL_SET) {
    if (len < 12) return hll_bad(err, which, "truncated set preamble", len);
    if (lgk < 8) return hll_bad(err, which, "coupon set with lgK below 8", 3);
    int32_t count = (int32_t)sk_le(p + 8, 4);
    if (count < 0 || (size_t)count > (len - 12) / 4) return hll_bad(err, which, "bad coupon set count", 8);
    h->lg_arr = 5;
    h->arr = calloc(32, sizeof *h->arr);
    if (!h->arr) return PM_NOMEM(err);
    if (compact) {
      for (int32_t i = 0; i < count; i++) {
        uint32_t c = (uint32_t)sk_le(p + 12 + 4 * (size_t)i, 4);
        if ((c >> 26) == 0) return hll_bad(err, which, "coupon without value", 12 + 4 * (size_t)i);
        bool promote = false;
        int rc = hll_set_insert(h, c, &promote);
        if (rc == PAIMON_ERR_NOMEM) return PM_NOMEM(err);
        if (rc || promote) return hll_bad(err, which, "more coupons than a coupon set holds", 8);
      }
      return 0;
    }
    if (lg_arr < 5 || lg_arr > lgk - 3) return hll_bad(err, which, "bad coupon set size", 4);
    size_t n = (size_t)1 << lg_arr;
    if (n > (len - 12) / 4) return hll_bad(err, which, "truncated coupon set", len);
    free(h->arr);
    h->arr = calloc(n, sizeof *h->arr);
    if (!h->arr) return PM_NOMEM(err);
    h->lg_arr = lg_arr;
    int32_t present = 0;
    for (size_t i = 0; i < n; i++) h->arr[i] = (uint32_t)sk_le(p + 12 + 4 * i, 4);
    for (size_t i = 0; i < n; i++) {
      if (!h->arr[i]) continue;
      if ((h->arr[i] >> 26) == 0 || hll_find(h->arr, lg_arr, h->arr[i]) != (int64_t)i)
        return hll_bad(err, which, "coupon set table is inconsistent", 12 + 4 * i);
      present++;
    }
    if (present != count) return hll_bad(err, which, "coupon set count does not match its table", 8);
    h->count = count;
    return 0;
  }
  /* HLL mode */
  size_t arr_bytes = tgt == HLL_4 ? k / 2 : tgt == HLL_6 ? ((k * 3) >> 2) + 1 : k;
  if (40 + arr_bytes > len) return hll_bad(err, which, "truncated register array", len);
  h->vals = malloc(k);
  if (!h->vals) return PM_NOMEM(err);
  h->ooo = flags & 16;
  h->rebuild = flags & 32;
  int cur_min = p[6];
  uint64_t bits;
  bits = sk_le(p + 8, 8);
  memcpy(&h->hip, &bits, 8);
  bits = sk_le(p + 16, 8);
  memcpy(&h->kxq0, &bits, 8);
  bits = sk_le(p + 24, 8);
  memcpy(&h->kxq1, &bits, 8);
  h->num_zero = (int32_t)sk_le(p + 32, 4);
  const uint8_t *a = p + 40;
  if (tgt == HLL_8) {
    for (uint32_t i = 0; i < k; i++) {
      if (a[i] > 63) return hll_bad(err, which, "register value above 63", 40 + i);
      h->vals[i] = a[i];
    }
  } else if (tgt == HLL_6) {
    for (uint32_t i = 0; i < k; i++) {
      uint32_t bit = i * 6, two = a[bit >> 3] | (uint32_t)a[(bit >> 3) + 1] << 8;
      h->vals[i] = (uint8_t)((two >> (bit & 7)) & 0x3F);
    }
  } else {
    /* aux values by slot (-1 = none) */
    int32_t aux_count = (int32_t)sk_le(p + 36, 4);
    int8_t *aux = malloc(k);
    if (!aux) return PM_NOMEM(err);
    memset(aux, -1, k);
    size_t aux_start = 40 + arr_bytes;
    int rc = 0;
    if (aux_count > 0) {
      size_t entries = compact ? (size_t)aux_count : (lg_arr <= 26 ? (size_t)1 << lg_arr : SIZE_MAX);
      if (entries > (len - aux_start) / 4) rc = hll_bad(err, which, "truncated aux table", len);
      for (size_t i = 0; !rc && i < entries; i++) {
        uint32_t pair = (uint32_t)sk_le(p + aux_start + 4 * i, 4);
        if (pair == 0 && !compact) continue;
        uint32_t slot = pair & HLL_KEY_MASK_26 & (k - 1);
        if (aux[slot] >= 0) rc = hll_bad(err, which, "aux table names a slot twice", aux_start + 4 * i);
        aux[slot] = (int8_t)(pair >> 26);
      }
    }
    for (uint32_t i = 0; !rc && i < k; i++) {
      int nib = (a[i >> 1] >> ((i & 1) * 4)) & 0xF;
      int v = nib == 15 ? aux[i] : nib + cur_min;
      if (v < 0) rc = hll_bad(err, which, "aux slot missing from the aux table", 40 + (i >> 1));
      else if (v > 63) rc = hll_bad(err, which, "register value above 63", 40 + (i >> 1));
      else h->vals[i] = (uint8_t)v;
    }
    free(aux);
    if (rc) return rc;
  }
  return 0;
}

static bool hll_is_empty(const hll_state *h) { return h->mode != HLL_HLL && h->count == 0; }

/* Union.unionImpl with a heap HLL_8 gadget. */
static int hll_union_update(hll_state *g, int lg_max_k, hll_state *src) {
  if (hll_is_empty(src)) return 0;
  if (src->mode == HLL_LIST) return hll_merge_coupons(src, g);
  bool g_empty = hll_is_empty(g);
  if (src->mode == HLL_SET) {
    if (g_empty && src->lgk == g->lgk) {
      /* copyAs(HLL_8): the same table */
      hll_free(g);
      *g = *src;
      g->tgt = HLL_8;
      memset(src, 0, sizeof *src);
      return 0;
    }
    return hll_merge_coupons(src, g);
  }
  hll_state n;
  int rc;
  if (g_empty || g->mode != HLL_HLL) {
    /* gadget empty / LIST / SET: copy (or downsample) the source, then feed the gadget's coupons */
    rc = src->lgk > lg_max_k ? hll_downsample(src, lg_max_k, &n) : hll_copy_as_hll8(src, &n);
    if (!rc && !g_empty) rc = hll_merge_coupons(g, &n);
  } else if (src->lgk < g->lgk) {
    rc = hll_downsample(g, src->lgk, &n);
    if (!rc) {
      for (uint32_t i = 0; i < (1u << src->lgk); i++)
        if (src->vals[i] > n.vals[i]) n.vals[i] = src->vals[i];
      n.rebuild = true;
      hll_put_ooo(&n, true);
    }
  } else {
    /* forward merge into the gadget, folding a larger source */
    uint32_t mask = (1u << g->lgk) - 1;
    for (uint32_t i = 0; i < (1u << src->lgk); i++)
      if (src->vals[i] > g->vals[i & mask]) g->vals[i & mask] = src->vals[i];
    g->rebuild = true;
    hll_put_ooo(g, true);
    return 0;
  }
  if (rc) {
    hll_free(&n);
    return rc;
  }
  hll_free(g);
  *g = n;
  return 0;
}

/* getResult(HLL_4).toCompactByteArray() */
static int hll_write_result(const hll_state *g, pm_buf *out) {
  uint8_t pre[40];
  memset(pre, 0, sizeof pre);
  pre[1] = 1;
  pre[2] = 7;
  pre[3] = (uint8_t)g->lgk;
  if (g->mode != HLL_HLL) {
    bool set = g->mode == HLL_SET;
    pre[0] = set ? 3 : 2;
    pre[4] = (uint8_t)g->lg_arr;
    pre[5] = (uint8_t)((g->count == 0 ? 4 : 0) | 8); /* empty?, compact */
    pre[7] = (uint8_t)g->mode;                        /* target HLL_4 = 0 */
    if (set) sk_put_le(pre + 8, (uint32_t)g->count, 4);
    else pre[6] = (uint8_t)g->count;
    PM_TRY(pm_buf_append(out, pre, set ? 12 : 8));
    uint32_t len = 1u << g->lg_arr;
    for (uint32_t i = 0; i < len; i++)
      if (g->arr[i]) PM_TRY(sk_append_le(out, g->arr[i], 4));
    return 0;
  }
  uint32_t k = 1u << g->lgk;
  int cur_min = 64, num_at_cur_min = 0;
  for (uint32_t i = 0; i < k; i++) {
    int v = g->vals[i];
    if (v > cur_min) continue;
    if (v < cur_min) {
      cur_min = v;
      num_at_cur_min = 1;
    } else {
      num_at_cur_min++;
    }
  }
  /* aux hash map, built in slot order like Conversions.convertToHll4 */
  int lg_aux = hll_lg_aux_arr_ints[g->lgk], aux_count = 0;
  uint32_t *aux = NULL;
  double kxq0 = (double)k, kxq1 = 0;
  size_t nib_start = out->len + 40;
  PM_TRY(pm_buf_append(out, pre, 40));
  PM_TRY(pm_buf_append_zeros(out, k / 2));
  int rc = 0;
  for (uint32_t i = 0; i < k && !rc; i++) {
    int v = g->vals[i];
    if (!v) continue;
    kxq0 -= 1.0;
    if (v < 32) kxq0 += hll_inv_pow2(v);
    else kxq1 += hll_inv_pow2(v);
    int nib;
    if (v >= cur_min + 15) {
      nib = 15;
      if (!aux) {
        aux = calloc((size_t)1 << lg_aux, sizeof *aux);
        if (!aux) {
          rc = PAIMON_ERR_NOMEM;
          break;
        }
      }
      uint32_t amask = (1u << lg_aux) - 1, probe = i & amask;
      while (aux[probe]) probe = (probe + ((i >> lg_aux) | 1)) & amask;
      aux[probe] = ((uint32_t)v << 26) | i;
      aux_count++;
      if (4 * aux_count > 3 * (1 << lg_aux)) {
        int lg = lg_aux + 1;
        uint32_t *grown = calloc((size_t)1 << lg, sizeof *grown);
        if (!grown) {
          rc = PAIMON_ERR_NOMEM;
          break;
        }
        uint32_t gmask = (1u << lg) - 1;
        for (uint32_t j = 0; j < (1u << lg_aux); j++) {
          if (!aux[j]) continue;
          uint32_t slot = aux[j] & (k - 1), q = slot & gmask;
          while (grown[q]) q = (q + ((slot >> lg) | 1)) & gmask;
          grown[q] = aux[j];
        }
        free(aux);
        aux = grown;
        lg_aux = lg;
      }
    } else {
      nib = v - cur_min;
    }
    out->data[nib_start + i / 2] |= (uint8_t)(nib << ((i & 1) * 4));
  }
  if (!rc) {
    uint8_t *h = out->data + nib_start - 40;
    h[0] = 10;
    h[1] = 1;
    h[2] = 7;
    h[3] = (uint8_t)g->lgk;
    h[4] = aux ? (uint8_t)lg_aux : 0;
    h[5] = (uint8_t)(8 | (g->ooo ? 16 : 0)); /* compact, out-of-order */
    h[6] = (uint8_t)cur_min;
    h[7] = HLL_HLL; /* target HLL_4 = 0 */
    uint64_t bits;
    memcpy(&bits, &g->hip, 8);
    sk_put_le(h + 8, bits, 8);
    memcpy(&bits, &kxq0, 8);
    sk_put_le(h + 16, bits, 8);
    memcpy(&bits, &kxq1, 8);
    sk_put_le(h + 24, bits, 8);
    sk_put_le(h + 32, (uint32_t)num_at_cur_min, 4);
    sk_put_le(h + 36, (uint32_t)aux_count, 4);
    for (uint32_t j = 0; aux && j < (1u << lg_aux) && !rc; j++)
      if (aux[j]) rc = sk_append_le(out, aux[j], 4);
  }
  free(aux);
  return rc;
}

int pm_agg_hll_merge(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len, pm_buf *out, pm_error *err) {
  hll_state sa, sb, gadget;
  memset(&gadget, 0, sizeof gadget);
  int rc = hll_parse(a, a_len, "first", &sa, err);
  if (rc) {
    hll_free(&sa);
    return rc;
  }
  if (sa.mode == HLL_HLL && sa.tgt == HLL_8 && sa.rebuild) {
    /* HllSketch.heapify(a) runs Union.checkRebuildCurMinNumKxQ on HLL_8 images (b is heapified
     * without it); its KxQ sums add 2^-v - 1 per non-zero slot, in slot order. */
    double k0 = (double)(1 << sa.lgk), k1 = 0;
    for (uint32_t i = 0; i < (1u << sa.lgk); i++) {
      int v = sa.vals[i];
      if (v > 0) {
        if (v < 32) k0 += hll_inv_pow2(v) - 1.0;
        else k1 += hll_inv_pow2(v) - 1.0;
      }
    }
    sa.kxq0 = k0;
    sa.kxq1 = k1;
    sa.rebuild = false;
  }
  rc = hll_parse(b, b_len, "second", &sb, err);
  if (!rc) {
    /* new Union(b's lgK): an empty HLL_8 coupon list */
    int lg_max_k = sb.lgk;
    gadget.lgk = lg_max_k;
    gadget.mode = HLL_LIST;
    gadget.tgt = HLL_8;
    gadget.lg_arr = 3;
    gadget.arr = calloc(8, sizeof *gadget.arr);
    if (!gadget.arr) rc = PAIMON_ERR_NOMEM;
    if (!rc) rc = hll_union_update(&gadget, lg_max_k, &sb);
    if (!rc) rc = hll_union_update(&gadget, lg_max_k, &sa);
    if (!rc) rc = hll_write_result(&gadget, out);
    if (rc == PAIMON_ERR_NOMEM) rc = PM_NOMEM(err);
    else if (rc) rc = pm_errorf(err, rc, "hll_sketch: coupon table overflow while merging (corrupt input)");
  }
  hll_free(&sa);
  hll_free(&sb);
  hll_free(&gadget);
  return rc;
}
