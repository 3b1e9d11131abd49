/*
 * Parquet value and level encoders used by the writer: the RLE/bit-packing
 * hybrid (levels, dictionary indices), PLAIN helpers, and the dictionary
 * builder (open-addressing hash table over the dictionary page bytes).
 *
 * All functions append to caller-owned pm_buf objects and return 0 or
 * PAIMON_ERR_NOMEM (with a message when err is given).
 */
#ifndef PM_PARQUET_PARQUET_ENCODE_H
#define PM_PARQUET_PARQUET_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/error.h"

/* Number of bits needed to represent max_value (0 for 0). */
int pm_pq_enc_bit_width(uint64_t max_value);

/* Appends the RLE/bit-packing hybrid encoding of n values (each < 2^bit_width,
 * bit_width 0..32) without any length prefix or bit-width byte. Runs of 8 or
 * more equal values become RLE runs, the rest bit-packed groups of 8 (the last
 * group zero-padded), as parquet-mr and arrow write them. */
int pm_pq_enc_rle_u32(const uint32_t *vals, size_t n, int bit_width, pm_buf *out, pm_error *err);
int pm_pq_enc_rle_u16(const uint16_t *vals, size_t n, int bit_width, pm_buf *out, pm_error *err);
/* Same bytes as pm_pq_enc_rle_u32 of n copies of value. */
int pm_pq_enc_rle_repeat(uint32_t value, size_t n, int bit_width, pm_buf *out, pm_error *err);

/* Appends n bits as Parquet PLAIN booleans (LSB first), continuing a partial
 * byte: *bit_pos is the number of bits already used in out's last byte (0..7). */
int pm_pq_enc_bool_append(pm_buf *out, int *bit_pos, int value, pm_error *err);

/* ---- dictionary builder ---------------------------------------------------- */

/* One BYTE_ARRAY value (borrowed bytes). */
typedef struct pm_pq_enc_ba {
  const uint8_t *p;
  size_t len;
} pm_pq_enc_ba;

typedef struct pm_pq_enc_dict {
  size_t width;         /* fixed value width in bytes; 0 = BYTE_ARRAY (length-prefixed) */
  pm_buf page;          /* PLAIN encoding of the entries: the dictionary page body */
  uint32_t count;       /* number of entries */
  uint64_t *entry_off;  /* BYTE_ARRAY: offset in page of each entry's 4-byte length */
  size_t entry_cap;
  /* Open addressing with linear probing, load factor <= 1/2. Slot layout by
   * width: 4 -> {u32 key, u32 index+1}; 8 -> {u64 key, u64 index+1} (keys
   * inline: one cache line per probe); others -> {u32 index+1, u32 hash tag}.
   * index+1 == 0 marks an empty slot. */
  void *table;
  size_t mask;          /* slot count - 1 (power of two) */
  int shift;            /* 64 - log2(slot count): home slot = hash >> shift */
} pm_pq_enc_dict;

/* width: 4/8/12/N for fixed-size values, 0 for byte arrays. */
void pm_pq_enc_dict_init(pm_pq_enc_dict *d, size_t width);
void pm_pq_enc_dict_free(pm_pq_enc_dict *d);
/* Forgets all entries (keeps the page memory; a hash table grown past its
 * initial size is freed, so the next dictionary starts small and grows). */
void pm_pq_enc_dict_reset(pm_pq_enc_dict *d);
/* Frees the lookup structures (hash table, entry offsets) of a dictionary
 * that takes no more values until the next reset; page and count stay. */
void pm_pq_enc_dict_drop_index(pm_pq_enc_dict *d);
/* Heap bytes held: page capacity, entry offsets, hash table. */
uint64_t pm_pq_enc_dict_memory(const pm_pq_enc_dict *d);
/* Looks value up, adding it if new; *index receives its dictionary index.
 * len is ignored for fixed-width dictionaries. */
int pm_pq_enc_dict_put(pm_pq_enc_dict *d, const void *value, size_t len, uint32_t *index, pm_error *err);
/* Batch forms: n values, indices to idx[0..n). put_fixed takes n values of
 * d->width bytes each, packed; put_ba byte arrays (d->width == 0). Same
 * result as n calls of pm_pq_enc_dict_put. */
int pm_pq_enc_dict_put_fixed(pm_pq_enc_dict *d, const uint8_t *vals, size_t n, uint32_t *idx, pm_error *err);
int pm_pq_enc_dict_put_ba(pm_pq_enc_dict *d, const pm_pq_enc_ba *vals, size_t n, uint32_t *idx, pm_error *err);

/* A fast 64-bit hash of bytes (not cryptographic). */
uint64_t pm_pq_enc_hash_bytes(const void *p, size_t n);

#endif
