#include "format/parquet/parquet_encode.h"

#include <stdlib.h>
#include <string.h>

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

/* Packs groups of 8 values (count a multiple of 8, padded by the caller) at p. */
static uint8_t *pack_groups(uint8_t *p, const uint32_t *v, size_t count, int bw) {
  uint64_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < count; i++) {
    acc |= (uint64_t)v[i] << bits;
    bits += bw;
    while (bits >= 8) {
      *p++ = (uint8_t)acc;
      acc >>= 8;
      bits -= 8;
    }
  }
  return p; /* count*bw is a multiple of 8, so nothing remains */
}

static int emit_literals(const uint32_t *lit, size_t n, int bw, pm_buf *out) {
  /* n values, emitted in runs of at most 63 groups, last group zero-padded. */
  size_t i = 0;
  while (i < n) {
    size_t take = n - i;
    if (take > MAX_LITERAL_GROUPS * 8) take = MAX_LITERAL_GROUPS * 8;
    size_t groups = (take + 7) / 8;
    uint32_t pad[8];
    if (pm_buf_reserve(out, 10 + groups * (size_t)bw)) return PAIMON_ERR_NOMEM;
    uint8_t *p = put_varint(out->data + out->len, (groups << 1) | 1);
    size_t full = take / 8 * 8;
    p = pack_groups(p, lit + i, full, bw);
    if (full < take) {
      memset(pad, 0, sizeof pad);
      memcpy(pad, lit + i + full, (take - full) * sizeof(uint32_t));
      p = pack_groups(p, pad, 8, bw);
    }
    out->len = (size_t)(p - out->data);
    i += take;
  }
  return 0;
}

static int emit_rle(uint32_t value, size_t count, int bw, pm_buf *out) {
  int vbytes = (bw + 7) / 8;
  if (pm_buf_reserve(out, 10 + 4)) return PAIMON_ERR_NOMEM;
  uint8_t *p = put_varint(out->data + out->len, (uint64_t)count << 1);
  for (int b = 0; b < vbytes; b++) *p++ = (uint8_t)(value >> (8 * b));
  out->len = (size_t)(p - out->data);
  return 0;
}

/* Core loop shared by the u16/u32 entry points: `get(i)` reads value i. The
 * literal buffer holds values waiting to be bit-packed; a run of >= 8 equal
 * values first tops the literal buffer up to a whole group, then the rest of
 * the run becomes an RLE run if it is still >= 8 long. */
#define RLE_ENCODE_BODY(GET)                                                          \
  size_t lit_n = 0, lit_cap = 0;                                                      \
  uint32_t *lit = NULL;                                                               \
  int rc = 0;                                                                         \
  size_t i = 0;                                                                       \
  while (i < n) {                                                                     \
    uint32_t v = GET(i);                                                              \
    size_t j = i + 1;                                                                 \
    while (j < n && GET(j) == v) j++;                                                 \
    size_t run = j - i;                                                               \
    if (run >= 8 && lit_n % 8) {                                                      \
      size_t fill = 8 - lit_n % 8;                                                    \
      if (run - fill >= 8) {                                                          \
        if (lit_n + fill > lit_cap) goto grow_##GET;                                  \
        for (size_t k = 0; k < fill; k++) lit[lit_n++] = v;                           \
        run -= fill;                                                                  \
        i += fill;                                                                    \
      }                                                                               \
    }                                                                                 \
    if (run >= 8 && lit_n % 8 == 0) {                                                 \
      if (lit_n) {                                                                    \
        if ((rc = emit_literals(lit, lit_n, bit_width, out))) break;                  \
        lit_n = 0;                                                                    \
      }                                                                               \
      if ((rc = emit_rle(v, run, bit_width, out))) break;                             \
      i = j;                                                                          \
      continue;                                                                       \
    }                                                                                 \
    if (lit_n + run > lit_cap) goto grow_##GET;                                       \
    for (size_t k = 0; k < run; k++) lit[lit_n++] = v;                                \
    i = j;                                                                            \
    continue;                                                                         \
  grow_##GET : {                                                                      \
    size_t nc = lit_cap ? lit_cap * 2 : 1024;                                         \
    while (nc < lit_n + run + 8) nc *= 2;                                             \
    uint32_t *nl = realloc(lit, nc * sizeof *nl);                                     \
    if (!nl) {                                                                        \
      rc = PAIMON_ERR_NOMEM;                                                          \
      break;                                                                          \
    }                                                                                 \
    lit = nl;                                                                         \
    lit_cap = nc;                                                                     \
  }                                                                                   \
  }                                                                                   \
  if (!rc && lit_n) rc = emit_literals(lit, lit_n, bit_width, out);                   \
  free(lit);                                                                          \
  return rc ? nomem(err) : 0;

#define GET_U32(k) vals[k]
#define GET_U16(k) ((uint32_t)vals[k])

int pm_pq_enc_rle_u32(const uint32_t *vals, size_t n, int bit_width, pm_buf *out, pm_error *err) {
  RLE_ENCODE_BODY(GET_U32)
}

int pm_pq_enc_rle_u16(const uint16_t *vals, size_t n, int bit_width, pm_buf *out, pm_error *err) {
  RLE_ENCODE_BODY(GET_U16)
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

static inline uint64_t mix64(uint64_t x) {
  x ^= x >> 32;
  x *= 0xd6e8feb86659fd93ULL;
  x ^= x >> 32;
  x *= 0xd6e8feb86659fd93ULL;
  x ^= x >> 32;
  return x;
}

uint64_t pm_pq_enc_hash_bytes(const void *data, size_t n) {
  const uint8_t *p = data;
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ (n * 0xff51afd7ed558ccdULL);
  while (n >= 8) {
    uint64_t k;
    memcpy(&k, p, 8);
    h = (h ^ mix64(k)) * 0x9e3779b97f4a7c15ULL;
    p += 8;
    n -= 8;
  }
  if (n) {
    uint64_t k = 0;
    memcpy(&k, p, n);
    h = (h ^ mix64(k ^ ((uint64_t)n << 56))) * 0x9e3779b97f4a7c15ULL;
  }
  return mix64(h);
}

static inline uint64_t hash_fixed(const void *v, size_t w) {
  uint64_t k;
  if (w == 4) {
    uint32_t x;
    memcpy(&x, v, 4);
    return mix64(x ^ 0x5bd1e995u);
  }
  if (w == 8) {
    memcpy(&k, v, 8);
    return mix64(k ^ 0x2545f4914f6cdd1dULL);
  }
  return pm_pq_enc_hash_bytes(v, w);
}

/* ---- dictionary ---------------------------------------------------------------- */

void pm_pq_enc_dict_init(pm_pq_enc_dict *d, size_t width) {
  memset(d, 0, sizeof *d);
  d->width = width;
  pm_buf_init(&d->page);
}

void pm_pq_enc_dict_free(pm_pq_enc_dict *d) {
  pm_buf_free(&d->page);
  free(d->entry_off);
  free(d->slots);
  free(d->slot_hash);
  memset(d, 0, sizeof *d);
}

void pm_pq_enc_dict_reset(pm_pq_enc_dict *d) {
  d->page.len = 0;
  d->count = 0;
  if (d->slots) memset(d->slots, 0, (d->mask + 1) * sizeof *d->slots);
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

static int rehash(pm_pq_enc_dict *d, size_t new_slots) {
  uint32_t *slots = calloc(new_slots, sizeof *slots);
  uint32_t *hashes = malloc(new_slots * sizeof *hashes);
  if (!slots || !hashes) {
    free(slots);
    free(hashes);
    return PAIMON_ERR_NOMEM;
  }
  size_t mask = new_slots - 1;
  for (uint32_t e = 0; e < d->count; e++) {
    size_t len;
    const uint8_t *p = entry_ptr(d, e, &len);
    uint64_t h = d->width ? hash_fixed(p, d->width) : pm_pq_enc_hash_bytes(p, len);
    size_t s = (size_t)h & mask;
    while (slots[s]) s = (s + 1) & mask;
    slots[s] = e + 1;
    hashes[s] = (uint32_t)(h >> 32);
  }
  free(d->slots);
  free(d->slot_hash);
  d->slots = slots;
  d->slot_hash = hashes;
  d->mask = mask;
  return 0;
}

int pm_pq_enc_dict_put(pm_pq_enc_dict *d, const void *value, size_t len, uint32_t *index, pm_error *err) {
  if (!d->slots && rehash(d, 1024)) return nomem(err);
  if (d->width) len = d->width;
  uint64_t h = d->width ? hash_fixed(value, d->width) : pm_pq_enc_hash_bytes(value, len);
  uint32_t hi = (uint32_t)(h >> 32);
  size_t s = (size_t)h & d->mask;
  for (;;) {
    uint32_t e = d->slots[s];
    if (!e) break;
    if (d->slot_hash[s] == hi) {
      size_t el;
      const uint8_t *p = entry_ptr(d, e - 1, &el);
      int same;
      if (d->width == 8) {
        uint64_t x, y;
        memcpy(&x, p, 8);
        memcpy(&y, value, 8);
        same = x == y;
      } else if (d->width == 4) {
        uint32_t x, y;
        memcpy(&x, p, 4);
        memcpy(&y, value, 4);
        same = x == y;
      } else {
        same = el == len && memcmp(p, value, len) == 0;
      }
      if (same) {
        *index = e - 1;
        return 0;
      }
    }
    s = (s + 1) & d->mask;
  }
  /* New entry. */
  if (d->count >= UINT32_MAX - 1) return pm_errorf(err, PAIMON_ERR_INTERNAL, "dictionary too large");
  if (d->width) {
    if (pm_buf_append(&d->page, value, len)) return nomem(err);
  } else {
    if (len > UINT32_MAX) return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "byte array value of %zu bytes", len);
    if (d->count == d->entry_cap) {
      size_t nc = d->entry_cap ? d->entry_cap * 2 : 256;
      uint64_t *no = realloc(d->entry_off, nc * sizeof *no);
      if (!no) return nomem(err);
      d->entry_off = no;
      d->entry_cap = nc;
    }
    uint32_t l32 = (uint32_t)len;
    if (pm_buf_reserve(&d->page, 4 + len)) return nomem(err);
    d->entry_off[d->count] = d->page.len;
    memcpy(d->page.data + d->page.len, &l32, 4);
    if (len) memcpy(d->page.data + d->page.len + 4, value, len);
    d->page.len += 4 + len;
  }
  d->slots[s] = d->count + 1;
  d->slot_hash[s] = hi;
  *index = d->count++;
  /* Keep the load factor under 1/2. */
  if ((size_t)d->count * 2 > d->mask + 1) {
    if (rehash(d, (d->mask + 1) * 2)) return nomem(err);
  }
  return 0;
}
