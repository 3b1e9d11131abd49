/* Routing of a batch's rows to (partition, bucket) writers, column-wise:
 * the partition key columns are hashed one column at a time, rows are
 * grouped by equal raw key values (a per-batch hash table; runs of equal
 * keys take a fast path), and the partition BinaryRow is encoded once per
 * group, not once per row. Rows with equal raw values encode to equal
 * partition rows, and slots are looked up by the encoded bytes, so groups
 * that encode alike (e.g. two NaN payloads) still share one slot. Fixed
 * buckets: the bucket key BinaryRow of every row is built in one reused
 * row writer (no allocation per row). */
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow.h"
#include "arrow/type.h"
#include "data/bucket.h"
#include "table/partition.h"
#include "table/write_internal.h"

#define NULL_MARK 0x6e756c6c6b657921ull

static inline uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v;
  h *= 0xff51afd7ed558ccdull;
  return h ^ (h >> 32);
}

/* Raw value width of an atomic key type as the table's Arrow form holds it:
 * bytes per value, 0 for bits (BOOLEAN), -1 for offsets + bytes, -2 unknown. */
static int key_width(const pm_data_type *t) {
  switch (t->root) {
    case PM_DT_BOOLEAN: return 0;
    case PM_DT_TINYINT: return 1;
    case PM_DT_SMALLINT: return 2;
    case PM_DT_INT: case PM_DT_DATE: case PM_DT_TIME: case PM_DT_FLOAT: return 4;
    case PM_DT_BIGINT: case PM_DT_DOUBLE: case PM_DT_TIMESTAMP: case PM_DT_TIMESTAMP_LTZ: return 8;
    case PM_DT_DECIMAL: return 16;
    case PM_DT_CHAR: case PM_DT_VARCHAR: case PM_DT_BINARY: case PM_DT_VARBINARY: case PM_DT_GEOMETRY:
    case PM_DT_GEOGRAPHY: return -1;
    default: return -2;
  }
}

static uint64_t bytes_hash(const uint8_t *p, size_t n) {
  uint64_t h = 0x736f6d6570736575ull ^ n;
  while (n >= 8) {
    uint64_t v;
    memcpy(&v, p, 8);
    h = mix(h, v);
    p += 8;
    n -= 8;
  }
  uint64_t v = 0;
  memcpy(&v, p, n);
  return mix(h, v);
}

static void hash_column(const pm_data_type *t, const struct ArrowArray *a, int64_t n, uint64_t *h) {
  const uint8_t *valid = a->n_buffers > 0 && a->null_count != 0 ? a->buffers[0] : NULL;
  const uint8_t *d = a->buffers[1];
  int64_t o = a->offset;
  int wd = key_width(t);
  for (int64_t i = 0; i < n; i++) {
    uint64_t v;
    int64_t k = o + i;
    if (valid && !pm_bit_get(valid, k)) {
      v = NULL_MARK;
    } else {
      switch (wd) {
        case 0: v = (uint64_t)pm_bit_get(d, k); break;
        case 1: v = d[k]; break;
        case 2: { uint16_t x; memcpy(&x, d + 2 * k, 2); v = x; break; }
        case 4: { uint32_t x; memcpy(&x, d + 4 * k, 4); v = x; break; }
        case 8: memcpy(&v, d + 8 * k, 8); break;
        case 16: { uint64_t x[2]; memcpy(x, d + 16 * k, 16); v = x[0] ^ (x[1] * 0x9e3779b97f4a7c15ull); break; }
        default: {
          const int32_t *off = (const int32_t *)(const void *)d;
          v = bytes_hash((const uint8_t *)a->buffers[2] + off[k], (size_t)(off[k + 1] - off[k]));
          break;
        }
      }
    }
    h[i] = mix(h[i], v);
  }
}

/* Raw values of rows r1 and r2 of the key columns equal (nulls equal nulls). */
static int keys_equal(const pm_table_write *w, const struct ArrowArray *b, int64_t r1, int64_t r2) {
  for (size_t c = 0; c < w->n_part; c++) {
    const struct ArrowArray *a = b->children[w->part_col[c]];
    int v1 = pm_array_is_valid(a, r1), v2 = pm_array_is_valid(a, r2);
    if (v1 != v2) return 0;
    if (!v1) continue;
    const uint8_t *d = a->buffers[1];
    int64_t k1 = a->offset + r1, k2 = a->offset + r2;
    int wd = key_width(w->part_types[c]);
    if (wd == 0) {
      if (pm_bit_get(d, k1) != pm_bit_get(d, k2)) return 0;
    } else if (wd > 0) {
      if (memcmp(d + (size_t)wd * (size_t)k1, d + (size_t)wd * (size_t)k2, (size_t)wd)) return 0;
    } else {
      const int32_t *off = (const int32_t *)(const void *)d;
      const uint8_t *s = a->buffers[2];
      int32_t l1 = off[k1 + 1] - off[k1], l2 = off[k2 + 1] - off[k2];
      if (l1 != l2 || memcmp(s + off[k1], s + off[k2], (size_t)l1)) return 0;
    }
  }
  return 1;
}

/* Grows array p (capacity cap) to hold need elements. */
#define RESERVE(p, cap, need, err)                                  \
  do {                                                              \
    if ((need) > (cap)) {                                           \
      size_t c_ = (cap) ? (cap) : 64;                               \
      while (c_ < (need)) c_ *= 2;                                  \
      void *n_ = realloc((p), c_ * sizeof *(p));                    \
      if (!n_) return PM_NOMEM(err);                                \
      (p) = n_;                                                     \
      (cap) = c_;                                                   \
    }                                                               \
  } while (0)

/* The partition row of row r (manifest form) into part. */
static int encode_partition(pm_table_write *w, const struct ArrowArray *b, int64_t r, pm_buf *part, pm_error *err) {
  pm_value *vals = w->route.vals;
  part->len = 0;
  for (size_t i = 0; i < w->n_part; i++)
    PM_TRY(pm_write_value_at(w->part_types[i], b->children[w->part_col[i]], r, &vals[i], err));
  return pm_partition_row_encode(w->part_types, vals, w->n_part, part, err);
}

static int bucket_of(pm_table_write *w, const struct ArrowArray *b, int64_t r, pm_binary_row_writer *rw,
                     int32_t *bucket, pm_error *err) {
  int32_t hash;
  PM_TRY(pm_write_key_hash(w->bkey_types, w->bkey_col, w->n_bkey, b, r, rw, &hash, err));
  *bucket = pm_bucket_of_hash(hash, w->t->bucket);
  return 0;
}

static int push_row(pm_wslot *s, int64_t r, pm_error *err) {
  if (s->n_rows == s->cap_rows) {
    size_t cap = s->cap_rows ? 2 * s->cap_rows : 1024;
    int64_t *nr = realloc(s->rows, cap * sizeof *nr);
    if (!nr) return PM_NOMEM(err);
    s->rows = nr;
    s->cap_rows = cap;
  }
  s->rows[s->n_rows++] = r;
  return 0;
}

static int touch(pm_table_write *w, pm_wslot *s, pm_error *err) {
  pm_route_scratch *x = &w->route;
  if (!s->n_rows) {
    RESERVE(x->touched, x->cap_touched, x->n_touched + 1, err);
    x->touched[x->n_touched++] = s;
    s->batch = w->batch_no;
  }
  return 0;
}

/* Groups of equal partition key values: gid per row, representative rows. */
static int group_rows(pm_table_write *w, const struct ArrowArray *b, pm_error *err) {
  pm_route_scratch *x = &w->route;
  int64_t n = b->length;
  RESERVE(x->hash, x->cap_hash, (size_t)n, err);
  RESERVE(x->gid, x->cap_gid, (size_t)n, err);
  for (int64_t i = 0; i < n; i++) x->hash[i] = 0x243f6a8885a308d3ull;
  for (size_t c = 0; c < w->n_part; c++) hash_column(w->part_types[c], b->children[w->part_col[c]], n, x->hash);
  x->n_groups = 0;
  RESERVE(x->ht, x->ht_cap, 64, err);
  memset(x->ht, 0, x->ht_cap * sizeof *x->ht);
  for (int64_t r = 0; r < n; r++) {
    uint64_t h = x->hash[r];
    if (r && h == x->hash[r - 1] && keys_equal(w, b, r, x->rep[x->gid[r - 1]])) {
      x->gid[r] = x->gid[r - 1];
      continue;
    }
    size_t mask = x->ht_cap - 1, p = (size_t)h & mask;
    int32_t g = -1;
    for (; x->ht[p]; p = (p + 1) & mask) {
      int32_t e = x->ht[p] - 1;
      if (x->ghash[e] == h && keys_equal(w, b, r, x->rep[e])) {
        g = e;
        break;
      }
    }
    if (g < 0) {
      if (x->n_groups == x->cap_groups) {
        size_t nc = x->cap_groups ? 2 * x->cap_groups : 64;
        int64_t *nr = realloc(x->rep, nc * sizeof *nr);
        if (nr) x->rep = nr;
        uint64_t *nh = nr ? realloc(x->ghash, nc * sizeof *nh) : NULL;
        if (nh) x->ghash = nh;
        pm_wslot **ns = nh ? realloc(x->gslot, nc * sizeof *ns) : NULL;
        if (!ns) return PM_NOMEM(err);
        x->gslot = ns;
        x->cap_groups = nc;
      }
      g = (int32_t)x->n_groups++;
      x->rep[g] = r;
      x->ghash[g] = h;
      x->gslot[g] = NULL;
      x->ht[p] = g + 1;
      if (x->n_groups * 2 > x->ht_cap) { /* rehash */
        size_t nc = x->ht_cap * 2;
        int32_t *nt = calloc(nc, sizeof *nt);
        if (!nt) return PM_NOMEM(err);
        for (size_t k = 0; k < x->n_groups; k++) {
          size_t q = (size_t)x->ghash[k] & (nc - 1);
          while (nt[q]) q = (q + 1) & (nc - 1);
          nt[q] = (int32_t)k + 1;
        }
        free(x->ht);
        x->ht = nt;
        x->ht_cap = nc;
      }
    }
    x->gid[r] = g;
  }
  return 0;
}

/* Slot of (group g, bucket) for fixed buckets: a small open-addressing map. */
static int combo_slot(pm_table_write *w, const struct ArrowArray *b, int32_t g, int32_t bucket, pm_buf *part,
                      pm_wslot **out, pm_error *err) {
  pm_route_scratch *x = &w->route;
  uint64_t key = ((uint64_t)(uint32_t)g << 32) | (uint32_t)bucket;
  if (x->n_combos * 2 >= x->cmap_cap) {
    size_t nc = x->cmap_cap ? 2 * x->cmap_cap : 64;
    pm_route_combo *nm = calloc(nc, sizeof *nm);
    if (!nm) return PM_NOMEM(err);
    for (size_t k = 0; k < x->cmap_cap; k++) {
      if (!x->cmap[k].slot) continue;
      size_t q = (size_t)mix(0, x->cmap[k].key) & (nc - 1);
      while (nm[q].slot) q = (q + 1) & (nc - 1);
      nm[q] = x->cmap[k];
    }
    free(x->cmap);
    x->cmap = nm;
    x->cmap_cap = nc;
  }
  size_t mask = x->cmap_cap - 1, p = (size_t)mix(0, key) & mask;
  for (; x->cmap[p].slot; p = (p + 1) & mask)
    if (x->cmap[p].key == key) {
      *out = x->cmap[p].slot;
      return 0;
    }
  PM_TRY(encode_partition(w, b, x->rep[g], part, err));
  PM_TRY(pm_wslot_get(w, part->data, part->len, bucket, out, err));
  x->cmap[p].key = key;
  x->cmap[p].slot = *out;
  x->n_combos++;
  return 0;
}

int pm_write_route(pm_table_write *w, const struct ArrowArray *b, pm_error *err) {
  pm_route_scratch *x = &w->route;
  x->n_touched = 0;
  if (!x->vals && !(x->vals = calloc(w->n_part + 1, sizeof *x->vals))) return PM_NOMEM(err);
  for (size_t c = 0; c < w->n_part; c++)
    if (key_width(w->part_types[c]) == -2 && b->length) {
      pm_value v;
      PM_TRY(pm_write_value_at(w->part_types[c], b->children[w->part_col[c]], 0, &v, err));
    }
  if (!b->length) return 0;
  PM_TRY(group_rows(w, b, err));
  pm_buf part;
  pm_buf_init(&part);
  int rc = 0;
  if (!w->fixed) {
    for (size_t g = 0; !rc && g < x->n_groups; g++) {
      rc = encode_partition(w, b, x->rep[g], &part, err);
      if (!rc) rc = pm_wslot_get(w, part.data, part.len, 0, &x->gslot[g], err);
    }
    for (int64_t r = 0; !rc && r < b->length; r++) {
      pm_wslot *s = x->gslot[x->gid[r]];
      rc = touch(w, s, err);
      if (!rc) rc = push_row(s, r, err);
    }
  } else {
    pm_binary_row_writer rw;
    rc = pm_row_writer_init(&rw, (int32_t)w->n_bkey, err);
    if (rc) {
      pm_buf_free(&part);
      return rc;
    }
    x->n_combos = 0;
    if (x->cmap) memset(x->cmap, 0, x->cmap_cap * sizeof *x->cmap);
    int32_t pg = -1, pb = -1;
    pm_wslot *ps = NULL;
    for (int64_t r = 0; !rc && r < b->length; r++) {
      int32_t bucket;
      rc = bucket_of(w, b, r, &rw, &bucket, err);
      if (rc) break;
      int32_t g = x->gid[r];
      pm_wslot *s = ps;
      if (!s || g != pg || bucket != pb) rc = combo_slot(w, b, g, bucket, &part, &s, err);
      if (rc) break;
      rc = touch(w, s, err);
      if (!rc) rc = push_row(s, r, err);
      pg = g;
      pb = bucket;
      ps = s;
    }
    pm_row_writer_free(&rw);
  }
  pm_buf_free(&part);
  if (rc)
    for (size_t i = 0; i < x->n_touched; i++) x->touched[i]->n_rows = 0;
  return rc;
}

void pm_route_scratch_free(pm_route_scratch *x) {
  free(x->hash);
  free(x->gid);
  free(x->ht);
  free(x->rep);
  free(x->ghash);
  free(x->gslot);
  free(x->cmap);
  free(x->touched);
  free(x->vals);
  memset(x, 0, sizeof *x);
}
