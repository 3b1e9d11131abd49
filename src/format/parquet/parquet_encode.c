#include "format/parquet/parquet_encode.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int pm_pq_enc_bit_width(uint64_t v) {
  int w = 0;
  while (v) {
    w++;
    v >>= 1;
  }
  return w;
}

static int nomem(pm_error *err) { return err ? PM_NOMEM(err) : PAIMON_ERR_NOMEM; }

static uint8_t *put_varint(uint8_t *p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  *p++ = (uint8_t)v;
  return p;
}

/* Literal (bit-packed) groups are capped at 63 groups per run so the run
 * header stays one byte, as parquet-mr does. */
#define MAX_LITERAL_GROUPS 63

static inline void store_le32(uint8_t *p, uint32_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
#else
  memcpy(p, &v, 4);
#endif
}

/* Packs `groups` groups of 8 values of bw bits (LSB first) at p; returns the
 * end. Bits gather in a 64-bit accumulator flushed 4 bytes at a time; the
 * last store of each group may write up to 4 bytes past the end (callers
 * reserve that slack, later output overwrites it). */
#define DEFINE_PACK(T)                                                              \
  static uint8_t *pack_groups_##T(uint8_t *p, const T *v, size_t groups, int bw) {  \
    for (size_t g = 0; g < groups; g++, v += 8) {                                   \
      uint64_t acc = 0;                                                             \
      int bits = 0;                                                                 \
      for (int i = 0; i < 8; i++) {                                                 \
        acc |= (uint64_t)v[i] << bits;                                              \
        bits += bw;                                                                 \
        if (bits >= 32) {                                                           \
          store_le32(p, (uint32_t)acc);                                             \
          p += 4;                                                                   \
          acc >>= 32;                                                               \
          bits -= 32;                                                               \
        }                                                                           \
      }                                                                             \
      store_le32(p, (uint32_t)acc);                                                 \
      p += bits / 8; /* 8*bw bits per group: a whole number of bytes */             \
    }                                                                               \
    return p;                                                                       \
  }

/* Appends n values as bit-packed runs of at most 63 groups; the last group is
 * zero-padded. */
#define DEFINE_EMIT_LITERALS(T)                                                        \
  static int emit_literals_##T(const T *lit, size_t n, int bw, pm_buf *out) {          \
    size_t i = 0;                                                                      \
    while (i < n) {                                                                    \
      size_t take = n - i;                                                             \
      if (take > MAX_LITERAL_GROUPS * 8) take = MAX_LITERAL_GROUPS * 8;                \
      size_t groups = (take + 7) / 8, full = take / 8;                                 \
      if (pm_buf_reserve(out, 10 + groups * (size_t)bw + 8)) return PAIMON_ERR_NOMEM; \
      uint8_t *p = put_varint(out->data + out->len, (groups << 1) | 1);                \
      p = pack_groups_##T(p, lit + i, full, bw);                                       \
      if (full < groups) {                                                             \
        T pad[8] = {0};                                                                \
        memcpy(pad, lit + i + full * 8, (take - full * 8) * sizeof(T));                \
        p = pack_groups_##T(p, pad, 1, bw);                                            \
      }                                                                                \
      out->len = (size_t)(p - out->data);                                             \
      i += take;                                                                       \
    }                                                                                  \
    return 0;                                                                          \
  }

static int emit_rle(uint32_t value, size_t count, int bw, pm_buf *out) {
  int vbytes = (bw + 7) / 8;
  if (pm_buf_reserve(out, 10 + 4)) return PAIMON_ERR_NOMEM;
  uint8_t *p = put_varint(out->data + out->len, (uint64_t)count << 1);
  for (int b = 0; b < vbytes; b++) *p++ = (uint8_t)(value >> (8 * b));
  out->len = (size_t)(p - out->data);
  return 0;
}

/* Length of the run of values equal to v[i] starting at i; long runs are
 * compared 8 bytes at a time. */
#define DEFINE_RUN_LEN(T)                                                    \
  static inline size_t run_len_##T(const T *v, size_t i, size_t n) {        \
    T x = v[i];                                                              \
    size_t j = i + 1;                                                        \
    if (j + 8 / sizeof(T) <= n && v[j] == x) {                               \
      uint64_t pat = 0;                                                      \
      for (size_t k = 0; k < 8 / sizeof(T); k++) memcpy((uint8_t *)&pat + k * sizeof(T), &x, sizeof(T)); \
      while (j + 8 / sizeof(T) <= n) {                                       \
        uint64_t w;                                                          \
        memcpy(&w, v + j, 8);                                                \
        if (w != pat) break;                                                 \
        j += 8 / sizeof(T);                                                  \
      }                                                                      \
    }                                                                        \
    while (j < n && v[j] == x) j++;                                          \
    return j - i;                                                            \
  }

/* The encoder: a run of >= 8 equal values first tops the pending literals up
 * to a whole group, then the rest of the run becomes an RLE run if it is
 * still >= 8 long (as parquet-mr). Pending literals are always the input
 * range [i - lit_n, i), so they are packed straight from the input. */
#define DEFINE_RLE(T, NAME)                                                           \
  DEFINE_PACK(T)                                                                      \
  DEFINE_EMIT_LITERALS(T)                                                             \
  DEFINE_RUN_LEN(T)                                                                   \
  int NAME(const T *vals, size_t n, int bit_width, pm_buf *out, pm_error *err) {      \
    size_t lit_n = 0, i = 0;                                                          \
    while (i < n) {                                                                   \
      size_t run = run_len_##T(vals, i, n), j = i + run;                              \
      if (run >= 8 && lit_n % 8) {                                                    \
        size_t fill = 8 - lit_n % 8;                                                  \
        if (run - fill >= 8) {                                                        \
          lit_n += fill;                                                              \
          run -= fill;                                                                \
          i += fill;                                                                  \
        }                                                                             \
      }                                                                               \
      if (run >= 8 && lit_n % 8 == 0) {                                               \
        if (lit_n && emit_literals_##T(vals + i - lit_n, lit_n, bit_width, out))      \
          return nomem(err);                                                          \
        lit_n = 0;                                                                    \
        if (emit_rle((uint32_t)vals[i], run, bit_width, out)) return nomem(err);      \
        i = j;                                                                        \
        continue;                                                                     \
      }                                                                               \
      lit_n += run;                                                                   \
      i = j;                                                                          \
    }                                                                                 \
    if (lit_n && emit_literals_##T(vals + n - lit_n, lit_n, bit_width, out)) return nomem(err); \
    return 0;                                                                         \
  }

DEFINE_RLE(uint32_t, pm_pq_enc_rle_u32)
DEFINE_RLE(uint16_t, pm_pq_enc_rle_u16)

int pm_pq_enc_rle_repeat(uint32_t value, size_t n, int bit_width, pm_buf *out, pm_error *err) {
  if (n >= 8) return emit_rle(value, n, bit_width, out) ? nomem(err) : 0;
  if (n == 0) return 0;
  uint32_t lit[8];
  for (size_t i = 0; i < n; i++) lit[i] = value;
  return emit_literals_uint32_t(lit, n, bit_width, out) ? nomem(err) : 0;
}

int pm_pq_enc_bool_append(pm_buf *out, int *bit_pos, int value, pm_error *err) {
  if (*bit_pos == 0) {
    if (pm_buf_push_u8(out, 0)) return nomem(err);
  }
  if (value) out->data[out->len - 1] |= (uint8_t)(1u << *bit_pos);
  *bit_pos = (*bit_pos + 1) & 7;
  return 0;
}

/* ---- hashing ---------------------------------------------------------------- */

static inline uint64_t load64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

static inline uint32_t load32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

/* 64x64->128 multiply folded to 64 bits: one multiplication mixes all input bits. */
static inline uint64_t mum(uint64_t a, uint64_t b) {
#ifdef __SIZEOF_INT128__
  __uint128_t r = (__uint128_t)a * b;
  return (uint64_t)r ^ (uint64_t)(r >> 64);
#else
  uint64_t x = (a ^ (b >> 29)) * 0xd6e8feb86659fd93ULL;
  x ^= x >> 32;
  x = (x ^ b) * 0x9e3779b97f4a7c15ULL;
  return x ^ (x >> 29);
#endif
}

#define HK0 0xa0761d6478bd642fULL
#define HK1 0xe7037ed1a0b428dbULL
#define HK2 0x8ebc6af09c88c6e3ULL

/* Short inputs (the common dictionary case) are read with at most two
 * overlapping loads; longer ones fold 16 bytes per multiplication. */
uint64_t pm_pq_enc_hash_bytes(const void *data, size_t n) {
  const uint8_t *p = data;
  uint64_t a, b, seed = HK2;
  if (n <= 16) {
    if (n >= 8) {
      a = load64(p);
      b = load64(p + n - 8);
    } else if (n >= 4) {
      a = load32(p);
      b = load32(p + n - 4);
    } else if (n) {
      a = ((uint64_t)p[0] << 16) | ((uint64_t)p[n >> 1] << 8) | p[n - 1];
      b = 0;
    } else {
      a = b = 0;
    }
  } else {
    const uint8_t *q = p;
    size_t left = n;
    while (left > 16) {
      seed = mum(load64(q) ^ HK1, load64(q + 8) ^ seed);
      q += 16;
      left -= 16;
    }
    a = load64(p + n - 16);
    b = load64(p + n - 8);
  }
  return mum(HK1 ^ (uint64_t)n, mum(a ^ HK1, b ^ seed));
}

/* Fibonacci hashing of fixed-width keys: the top bits of the product depend
 * on every key bit, and the home slot takes the top bits. */
#define FIB 0x9e3779b97f4a7c15ULL

/* ---- dictionary ---------------------------------------------------------------- */

/* Open addressing, linear probing, home slot = top bits of the 64-bit hash.
 * Width 4 and 8 keep the key in the slot (a probe touches one cache line);
 * other widths and byte arrays keep the hash's high 32 bits as a tag, so
 * most mismatches never read the entry and a rehash needs no entry bytes. */
typedef struct slot4 {
  uint32_t key, idx1;
} slot4;
typedef struct slot8 {
  uint64_t key, idx1;
} slot8;
typedef struct slotb {
  uint32_t idx1, tag;
} slotb;

#define DICT_MIN_SLOTS 1024
/* Values are hashed a block ahead and their home slots prefetched: large
 * tables miss the cache on nearly every probe. */
#define DICT_BLOCK 32

static size_t slot_size(const pm_pq_enc_dict *d) {
  return d->width == 4 ? sizeof(slot4) : d->width == 8 ? sizeof(slot8) : sizeof(slotb);
}

/* Zeroed table memory. Tables of several MiB are touched at random: on
 * 2 MiB-aligned memory advised for huge pages that costs a few page faults
 * instead of one per 4 KiB. */
#define HUGE_ALIGN ((size_t)2 << 20)
static void *table_alloc(size_t bytes) {
#ifdef MADV_HUGEPAGE
  if (bytes >= HUGE_ALIGN) {
    void *p = NULL;
    if (posix_memalign(&p, HUGE_ALIGN, bytes) != 0) return NULL;
    madvise(p, bytes, MADV_HUGEPAGE); /* advice only: failure is harmless */
    memset(p, 0, bytes);
    return p;
  }
#endif
  return calloc(1, bytes);
}

void pm_pq_enc_dict_init(pm_pq_enc_dict *d, size_t width) {
  memset(d, 0, sizeof *d);
  d->width = width;
  pm_buf_init(&d->page);
}

void pm_pq_enc_dict_free(pm_pq_enc_dict *d) {
  pm_buf_free(&d->page);
  free(d->entry_off);
  free(d->table);
  memset(d, 0, sizeof *d);
}

void pm_pq_enc_dict_reset(pm_pq_enc_dict *d) {
  d->page.len = 0;
  d->count = 0;
  if (d->table && d->mask + 1 > DICT_MIN_SLOTS) {
    /* a grown table goes back: the next chunk's dictionary starts small again */
    free(d->table);
    d->table = NULL;
    d->mask = 0;
    d->shift = 0;
  } else if (d->table) {
    memset(d->table, 0, (d->mask + 1) * slot_size(d));
  }
}

void pm_pq_enc_dict_drop_index(pm_pq_enc_dict *d) {
  free(d->table);
  d->table = NULL;
  d->mask = 0;
  d->shift = 0;
  free(d->entry_off);
  d->entry_off = NULL;
  d->entry_cap = 0;
}

uint64_t pm_pq_enc_dict_memory(const pm_pq_enc_dict *d) {
  uint64_t n = d->page.cap + (uint64_t)d->entry_cap * sizeof *d->entry_off;
  if (d->table) n += (uint64_t)(d->mask + 1) * slot_size(d);
  return n;
}

static const uint8_t *entry_ptr(const pm_pq_enc_dict *d, uint32_t idx, size_t *len) {
  if (d->width) {
    *len = d->width;
    return d->page.data + (size_t)idx * d->width;
  }
  uint64_t off = d->entry_off[idx];
  uint32_t l;
  memcpy(&l, d->page.data + off, 4);
  *len = l;
  return d->page.data + off + 4;
}

static inline uint64_t fixed_hash(const pm_pq_enc_dict *d, const uint8_t *v) {
  if (d->width == 4) return (uint64_t)load32(v) * FIB;
  if (d->width == 8) return load64(v) * FIB;
  return pm_pq_enc_hash_bytes(v, d->width);
}

/* Replaces the table by one of new_slots slots holding every entry. The old
 * table is walked in slot order: a slot's new home is twice its old home (or
 * one more), so the writes run nearly sequentially. */
static int rehash(pm_pq_enc_dict *d, size_t new_slots) {
  if (new_slots > SIZE_MAX / slot_size(d)) return PAIMON_ERR_NOMEM;
  void *table = table_alloc(new_slots * slot_size(d));
  if (!table) return PAIMON_ERR_NOMEM;
  size_t mask = new_slots - 1, old_n = d->table ? d->mask + 1 : 0;
  int shift = 64;
  for (size_t k = new_slots; k > 1; k >>= 1) shift--;
  if (d->width == 4) {
    slot4 *t = table;
    const slot4 *o = d->table;
    for (size_t k = 0; k < old_n; k++) {
      if (!o[k].idx1) continue;
      size_t s = (size_t)(((uint64_t)o[k].key * FIB) >> shift);
      while (t[s].idx1) s = (s + 1) & mask;
      t[s] = o[k];
    }
  } else if (d->width == 8) {
    slot8 *t = table;
    const slot8 *o = d->table;
    for (size_t k = 0; k < old_n; k++) {
      if (!o[k].idx1) continue;
      size_t s = (size_t)((o[k].key * FIB) >> shift);
      while (t[s].idx1) s = (s + 1) & mask;
      t[s] = o[k];
    }
  } else {
    slotb *t = table;
    const slotb *o = d->table;
    for (size_t k = 0; k < old_n; k++) {
      if (!o[k].idx1) continue;
      size_t s;
      if (shift >= 32) {
        s = (size_t)(o[k].tag >> (shift - 32));
      } else { /* more than 2^32 slots: the tag lacks home bits */
        size_t len;
        const uint8_t *p = entry_ptr(d, o[k].idx1 - 1, &len);
        s = (size_t)(pm_pq_enc_hash_bytes(p, len) >> shift);
      }
      while (t[s].idx1) s = (s + 1) & mask;
      t[s] = o[k];
    }
  }
  free(d->table);
  d->table = table;
  d->mask = mask;
  d->shift = shift;
  return 0;
}

static int ensure_table(pm_pq_enc_dict *d, pm_error *err) {
  if (!d->table && rehash(d, DICT_MIN_SLOTS)) return nomem(err);
  return 0;
}

static int too_many(pm_error *err) { return pm_errorf(err, PAIMON_ERR_INTERNAL, "dictionary too large"); }

/* Called after each insert: keeps the load factor at most 1/2. */
static inline int maybe_grow(pm_pq_enc_dict *d, pm_error *err) {
  if ((size_t)d->count * 2 > d->mask + 1 && rehash(d, (d->mask + 1) * 2)) return nomem(err);
  return 0;
}

/* Hashes values [b0, b0+bn) into hs and prefetches their home slots. */
#define HASH_BLOCK(HASH_EXPR)                                                 \
  for (size_t j = 0; j < bn; j++) {                                           \
    size_t k = b0 + j;                                                        \
    hs[j] = (HASH_EXPR);                                                      \
    __builtin_prefetch((const char *)d->table + (size_t)(hs[j] >> d->shift) * ssz); \
  }

/* Probe loop for slots with inline keys; a value equal to the previous one
 * (runs) reuses its index. */
#define PUT_INLINE_KEYS(SLOT_T, KEY_T, LOAD, W)                                  \
  {                                                                             \
    KEY_T prev_key = 0;                                                         \
    uint32_t prev_idx = UINT32_MAX;                                             \
    for (size_t b0 = 0; b0 < n; b0 += DICT_BLOCK) {                             \
      size_t bn = n - b0 < DICT_BLOCK ? n - b0 : DICT_BLOCK;                    \
      HASH_BLOCK((uint64_t)LOAD(vals + (size_t)(W) * k) * FIB)                  \
      SLOT_T *t = d->table;                                                     \
      for (size_t j = 0; j < bn; j++) {                                         \
        size_t k = b0 + j;                                                      \
        KEY_T key = LOAD(vals + (size_t)(W) * k);                               \
        if (key == prev_key && prev_idx != UINT32_MAX) {                        \
          idx[k] = prev_idx;                                                    \
          continue;                                                             \
        }                                                                       \
        size_t s = (size_t)(hs[j] >> d->shift);                                 \
        uint32_t e;                                                             \
        for (;;) {                                                              \
          e = (uint32_t)t[s].idx1;                                              \
          if (!e) {                                                             \
            if (d->count >= UINT32_MAX - 1) return too_many(err);               \
            memcpy(d->page.data + d->page.len, &key, (W));                      \
            d->page.len += (W);                                                 \
            t[s].key = key;                                                     \
            t[s].idx1 = e = ++d->count;                                         \
            if (maybe_grow(d, err)) return PAIMON_ERR_NOMEM;                    \
            t = d->table;                                                       \
            break;                                                              \
          }                                                                     \
          if (t[s].key == key) break;                                           \
          s = (s + 1) & d->mask;                                                \
        }                                                                       \
        idx[k] = prev_idx = e - 1;                                              \
        prev_key = key;                                                         \
      }                                                                         \
    }                                                                           \
    return 0;                                                                   \
  }

static inline int eq_fixed(const uint8_t *a, const uint8_t *b, size_t w) {
  if (w == 16) return load64(a) == load64(b) && load64(a + 8) == load64(b + 8);
  if (w == 12) return load64(a) == load64(b) && load32(a + 8) == load32(b + 8);
  return memcmp(a, b, w) == 0;
}

int pm_pq_enc_dict_put_fixed(pm_pq_enc_dict *d, const uint8_t *vals, size_t n, uint32_t *idx, pm_error *err) {
  if (n == 0) return 0;
  PM_TRY(ensure_table(d, err));
  size_t w = d->width, ssz = slot_size(d);
  if (n > SIZE_MAX / w || pm_buf_reserve(&d->page, n * w)) return nomem(err); /* room for every insert below */
  uint64_t hs[DICT_BLOCK];
  if (w == 4) PUT_INLINE_KEYS(slot4, uint32_t, load32, 4)
  if (w == 8) PUT_INLINE_KEYS(slot8, uint64_t, load64, 8)
  for (size_t b0 = 0; b0 < n; b0 += DICT_BLOCK) {
    size_t bn = n - b0 < DICT_BLOCK ? n - b0 : DICT_BLOCK;
    HASH_BLOCK(fixed_hash(d, vals + w * k))
    slotb *t = d->table;
    for (size_t j = 0; j < bn; j++) {
      size_t k = b0 + j;
      const uint8_t *v = vals + w * k;
      uint32_t tag = (uint32_t)(hs[j] >> 32), e;
      size_t s = (size_t)(hs[j] >> d->shift);
      for (;;) {
        e = t[s].idx1;
        if (!e) {
          if (d->count >= UINT32_MAX - 1) return too_many(err);
          memcpy(d->page.data + d->page.len, v, w);
          d->page.len += w;
          t[s].idx1 = e = ++d->count;
          t[s].tag = tag;
          if (maybe_grow(d, err)) return PAIMON_ERR_NOMEM;
          t = d->table;
          break;
        }
        if (t[s].tag == tag && eq_fixed(d->page.data + (size_t)(e - 1) * w, v, w)) break;
        s = (s + 1) & d->mask;
      }
      idx[k] = e - 1;
    }
  }
  return 0;
}

int pm_pq_enc_dict_put_ba(pm_pq_enc_dict *d, const pm_pq_enc_ba *vals, size_t n, uint32_t *idx, pm_error *err) {
  if (n == 0) return 0;
  PM_TRY(ensure_table(d, err));
  size_t ssz = sizeof(slotb);
  uint64_t hs[DICT_BLOCK];
  for (size_t b0 = 0; b0 < n; b0 += DICT_BLOCK) {
    size_t bn = n - b0 < DICT_BLOCK ? n - b0 : DICT_BLOCK;
    HASH_BLOCK(pm_pq_enc_hash_bytes(vals[k].p, vals[k].len))
    slotb *t = d->table;
    for (size_t j = 0; j < bn; j++) {
      size_t k = b0 + j;
      const uint8_t *v = vals[k].p;
      size_t len = vals[k].len;
      uint32_t tag = (uint32_t)(hs[j] >> 32), e;
      size_t s = (size_t)(hs[j] >> d->shift);
      for (;;) {
        e = t[s].idx1;
        if (!e) break;
        if (t[s].tag == tag) {
          uint64_t off = d->entry_off[e - 1];
          if (load32(d->page.data + off) == len && (len == 0 || memcmp(d->page.data + off + 4, v, len) == 0)) break;
        }
        s = (s + 1) & d->mask;
      }
      if (!e) {
        if (d->count >= UINT32_MAX - 1) return too_many(err);
        if (len > UINT32_MAX) return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "byte array value of %zu bytes", len);
        if (d->count == d->entry_cap) {
          size_t nc = d->entry_cap ? d->entry_cap * 2 : 256;
          uint64_t *no = realloc(d->entry_off, nc * sizeof *no);
          if (!no) return nomem(err);
          d->entry_off = no;
          d->entry_cap = nc;
        }
        if (pm_buf_reserve(&d->page, 4 + len)) return nomem(err);
        uint32_t l32 = (uint32_t)len;
        d->entry_off[d->count] = d->page.len;
        memcpy(d->page.data + d->page.len, &l32, 4);
        if (len) memcpy(d->page.data + d->page.len + 4, v, len);
        d->page.len += 4 + len;
        t[s].idx1 = e = ++d->count;
        t[s].tag = tag;
        if (maybe_grow(d, err)) return PAIMON_ERR_NOMEM;
        t = d->table;
      }
      idx[k] = e - 1;
    }
  }
  return 0;
}

int pm_pq_enc_dict_put(pm_pq_enc_dict *d, const void *value, size_t len, uint32_t *index, pm_error *err) {
  if (d->width) return pm_pq_enc_dict_put_fixed(d, value, 1, index, err);
  pm_pq_enc_ba v = {value, len};
  return pm_pq_enc_dict_put_ba(d, &v, 1, index, err);
}
