/* Deletion vectors: 32-bit (RoaringBitmap portable) and 64-bit (Roaring64 portable) records (FORMAT.md 7.3). */
#include "meta/deletion_vector.h"

#include <roaring/roaring.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "io/file.h"
#include "meta/arena.h"
#include "meta/manifest.h"

struct pm_deletion_vector {
  int bitmap64;
  roaring_bitmap_t *bm32;   /* 32-bit vectors */
  uint32_t *keys;           /* 64-bit vectors: high 32 bits, ascending */
  roaring_bitmap_t **maps;  /* low 32 bits per key */
  size_t n, cap;
};

#define DV_MAX_BYTES (512u << 20)

static uint32_t be32(const uint8_t *p) {
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static void put_be32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

int pm_dv_new(int bitmap64, pm_deletion_vector **out, pm_error *err) {
  pm_deletion_vector *dv = calloc(1, sizeof(*dv));
  if (!dv) return PM_NOMEM(err);
  dv->bitmap64 = bitmap64 ? 1 : 0;
  if (!bitmap64) {
    dv->bm32 = roaring_bitmap_create();
    if (!dv->bm32) {
      free(dv);
      return PM_NOMEM(err);
    }
  }
  *out = dv;
  return 0;
}

void pm_dv_free(pm_deletion_vector *dv) {
  if (!dv) return;
  if (dv->bm32) roaring_bitmap_free(dv->bm32);
  for (size_t i = 0; i < dv->n; i++) roaring_bitmap_free(dv->maps[i]);
  free(dv->keys);
  free(dv->maps);
  free(dv);
}

int pm_dv_is_bitmap64(const pm_deletion_vector *dv) { return dv->bitmap64; }

/* Index of key in a 64-bit vector, or -(insertion point)-1. */
static ptrdiff_t find_key(const pm_deletion_vector *dv, uint32_t key) {
  size_t lo = 0, hi = dv->n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (dv->keys[mid] < key) lo = mid + 1;
    else if (dv->keys[mid] > key) hi = mid;
    else return (ptrdiff_t)mid;
  }
  return -(ptrdiff_t)lo - 1;
}

/* Bitmap of key, created when absent. NULL on OOM. */
static roaring_bitmap_t *map_for_key(pm_deletion_vector *dv, uint32_t key) {
  ptrdiff_t i = find_key(dv, key);
  if (i >= 0) return dv->maps[i];
  size_t at = (size_t)(-i - 1);
  if (dv->n == dv->cap) {
    size_t nc = dv->cap ? dv->cap * 2 : 4;
    uint32_t *nk = realloc(dv->keys, nc * sizeof(uint32_t));
    if (!nk) return NULL;
    dv->keys = nk;
    roaring_bitmap_t **nm = realloc(dv->maps, nc * sizeof(roaring_bitmap_t *));
    if (!nm) return NULL;
    dv->maps = nm;
    dv->cap = nc;
  }
  roaring_bitmap_t *b = roaring_bitmap_create();
  if (!b) return NULL;
  memmove(dv->keys + at + 1, dv->keys + at, (dv->n - at) * sizeof(uint32_t));
  memmove(dv->maps + at + 1, dv->maps + at, (dv->n - at) * sizeof(roaring_bitmap_t *));
  dv->keys[at] = key;
  dv->maps[at] = b;
  dv->n++;
  return b;
}

int pm_dv_add(pm_deletion_vector *dv, int64_t position, pm_error *err) {
  if (position < 0) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "negative row position %lld", (long long)position);
  if (!dv->bitmap64) {
    if (position > INT32_MAX)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "row position %lld does not fit a 32-bit deletion vector",
                       (long long)position);
    roaring_bitmap_add(dv->bm32, (uint32_t)position);
    return 0;
  }
  roaring_bitmap_t *b = map_for_key(dv, (uint32_t)((uint64_t)position >> 32));
  if (!b) return PM_NOMEM(err);
  roaring_bitmap_add(b, (uint32_t)position);
  return 0;
}

int pm_dv_is_deleted(const pm_deletion_vector *dv, int64_t position) {
  if (position < 0) return 0;
  if (!dv->bitmap64) return position <= UINT32_MAX && roaring_bitmap_contains(dv->bm32, (uint32_t)position);
  ptrdiff_t i = find_key(dv, (uint32_t)((uint64_t)position >> 32));
  return i >= 0 && roaring_bitmap_contains(dv->maps[i], (uint32_t)position);
}

uint64_t pm_dv_cardinality(const pm_deletion_vector *dv) {
  if (!dv->bitmap64) return roaring_bitmap_get_cardinality(dv->bm32);
  uint64_t c = 0;
  for (size_t i = 0; i < dv->n; i++) c += roaring_bitmap_get_cardinality(dv->maps[i]);
  return c;
}

int pm_dv_positions(const pm_deletion_vector *dv, int64_t **positions, size_t *n, pm_error *err) {
  uint64_t card = pm_dv_cardinality(dv);
  *positions = NULL;
  *n = 0;
  if (card == 0) return 0;
  if (card > SIZE_MAX / 8) return pm_errorf(err, PAIMON_ERR_NOMEM, "deletion vector too large (%llu)", (unsigned long long)card);
  int64_t *out = malloc((size_t)card * sizeof(int64_t));
  uint32_t *tmp = NULL;
  if (!out) return PM_NOMEM(err);
  size_t k = 0;
  size_t nmaps = dv->bitmap64 ? dv->n : 1;
  for (size_t m = 0; m < nmaps; m++) {
    const roaring_bitmap_t *b = dv->bitmap64 ? dv->maps[m] : dv->bm32;
    uint64_t hi = dv->bitmap64 ? (uint64_t)dv->keys[m] << 32 : 0;
    uint64_t c = roaring_bitmap_get_cardinality(b);
    if (!c) continue;
    tmp = malloc((size_t)c * sizeof(uint32_t));
    if (!tmp) {
      free(out);
      return PM_NOMEM(err);
    }
    roaring_bitmap_to_uint32_array(b, tmp);
    for (uint64_t i = 0; i < c; i++) out[k++] = (int64_t)(hi | tmp[i]);
    free(tmp);
  }
  *positions = out;
  *n = k;
  return 0;
}

int pm_dv_kept_ranges(const pm_deletion_vector *dv, int64_t row_count, int64_t **ranges, size_t *n, pm_error *err) {
  int64_t *pos = NULL;
  size_t np = 0;
  *ranges = NULL;
  *n = 0;
  PM_TRY(pm_dv_positions(dv, &pos, &np, err));
  int64_t *out = malloc((np + 1) * 2 * sizeof(int64_t));
  if (!out) {
    free(pos);
    return PM_NOMEM(err);
  }
  size_t k = 0;
  int64_t start = 0;
  for (size_t i = 0; i < np && pos[i] < row_count; i++) {
    if (pos[i] > start) {
      out[2 * k] = start;
      out[2 * k + 1] = pos[i];
      k++;
    }
    start = pos[i] + 1;
  }
  if (start < row_count) {
    out[2 * k] = start;
    out[2 * k + 1] = row_count;
    k++;
  }
  free(pos);
  if (!k) {
    free(out);
    out = NULL;
  }
  *ranges = out;
  *n = k;
  return 0;
}

/* Deserializes one portable 32-bit bitmap from [p, p+len), returning bytes used in *used. */
static roaring_bitmap_t *read_portable(const uint8_t *p, size_t len, size_t *used) {
  size_t sz = roaring_bitmap_portable_deserialize_size((const char *)p, len);
  if (sz == 0 || sz > len) return NULL;
  roaring_bitmap_t *b = roaring_bitmap_portable_deserialize_safe((const char *)p, sz);
  *used = sz;
  return b;
}

int pm_dv_decode(const uint8_t *data, size_t len, int64_t meta_length, const char *name, pm_deletion_vector **out,
                 pm_error *err) {
  if (!name) name = "deletion vector";
  if (len < 8) return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: deletion vector record shorter than 8 bytes", name);
  uint32_t size = be32(data);
  if (size < 4 || size > DV_MAX_BYTES || (size_t)size + 8 > len)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: deletion vector size %u does not fit in %zu bytes", name, size, len);
  int is64;
  if (be32(data + 4) == (uint32_t)PM_DV_MAGIC32) is64 = 0;
  else if (le32(data + 4) == (uint32_t)PM_DV_MAGIC64) is64 = 1;
  else return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: bad deletion vector magic %08x", name, be32(data + 4));
  if (meta_length >= 0 && meta_length != (is64 ? (int64_t)size + 8 : (int64_t)size))
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: deletion vector size %u does not match the index length %lld", name,
                     size, (long long)meta_length);
  uint32_t crc = (uint32_t)crc32(0L, data + 4, size);
  uint32_t stored = be32(data + 4 + size);
  if (crc != stored)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: deletion vector CRC mismatch (stored %08x, computed %08x)", name,
                     stored, crc);
  const uint8_t *p = data + 8;
  size_t left = size - 4;
  pm_deletion_vector *dv = NULL;
  PM_TRY(pm_dv_new(is64, &dv, err));
  if (!is64) {
    size_t used = 0;
    roaring_bitmap_t *b = read_portable(p, left, &used);
    if (!b || used != left) {
      if (b) roaring_bitmap_free(b);
      pm_dv_free(dv);
      return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: invalid 32-bit roaring bitmap (%zu bytes)", name, left);
    }
    roaring_bitmap_free(dv->bm32);
    dv->bm32 = b;
    *out = dv;
    return 0;
  }
  if (left < 8) {
    pm_dv_free(dv);
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: 64-bit deletion vector without bucket count", name);
  }
  uint64_t count = (uint64_t)le32(p) | ((uint64_t)le32(p + 4) << 32);
  p += 8;
  left -= 8;
  if (count > left / 12) { /* each bucket: 4-byte key + at least 8 bytes of bitmap */
    pm_dv_free(dv);
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: 64-bit deletion vector claims %llu buckets", name, (unsigned long long)count);
  }
  int64_t prev = -1;
  for (uint64_t i = 0; i < count; i++) {
    if (left < 4) break;
    uint32_t key = le32(p);
    p += 4;
    left -= 4;
    size_t used = 0;
    roaring_bitmap_t *b = read_portable(p, left, &used);
    if (!b || (int64_t)key <= prev) {
      if (b) roaring_bitmap_free(b);
      pm_dv_free(dv);
      return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: invalid 64-bit deletion vector bucket %llu", name, (unsigned long long)i);
    }
    prev = key;
    p += used;
    left -= used;
    if (roaring_bitmap_is_empty(b)) {
      roaring_bitmap_free(b);
      continue;
    }
    if (dv->n == dv->cap) {
      size_t nc = dv->cap ? dv->cap * 2 : 4;
      uint32_t *nk = realloc(dv->keys, nc * sizeof(uint32_t));
      roaring_bitmap_t **nm = nk ? realloc(dv->maps, nc * sizeof(roaring_bitmap_t *)) : NULL;
      if (nk) dv->keys = nk;
      if (!nm) {
        roaring_bitmap_free(b);
        pm_dv_free(dv);
        return PM_NOMEM(err);
      }
      dv->maps = nm;
      dv->cap = nc;
    }
    dv->keys[dv->n] = key;
    dv->maps[dv->n] = b;
    dv->n++;
  }
  if (left != 0) {
    pm_dv_free(dv);
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: 64-bit deletion vector has %zu trailing/missing bytes", name, left);
  }
  *out = dv;
  return 0;
}

int pm_dv_read(pm_fs *fs, const char *path, int64_t offset, int64_t length, pm_deletion_vector **out, pm_error *err) {
  if (offset < 0 || length < 0 || length > (int64_t)DV_MAX_BYTES)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: bad deletion vector range (%lld, %lld)", path,
                     (long long)offset, (long long)length);
  pm_file *f = NULL;
  PM_TRY(pm_fs_open(fs, path, &f, err));
  uint8_t head[8];
  int rc = pm_file_read_at(f, (uint64_t)offset, head, 8, err);
  uint8_t *buf = NULL;
  size_t total = 0;
  if (!rc) {
    uint32_t size = be32(head);
    total = (size_t)size + 8;
    if (size > DV_MAX_BYTES || (uint64_t)offset + total > pm_file_size(f))
      rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: deletion vector at offset %lld: size %u past end of file", path,
                     (long long)offset, size);
  }
  if (!rc && !(buf = malloc(total))) rc = PM_NOMEM(err);
  if (!rc) rc = pm_file_read_at(f, (uint64_t)offset, buf, total, err);
  if (!rc) {
    char name[4200];
    snprintf(name, sizeof name, "%s (offset %lld)", path, (long long)offset);
    rc = pm_dv_decode(buf, total, length, name, out, err);
  }
  free(buf);
  pm_file_close(f);
  return rc;
}

int pm_dv_serialize(const pm_deletion_vector *dv, pm_buf *out, int32_t *meta_length, pm_error *err) {
  size_t start = out->len;
  if (pm_buf_append_zeros(out, 8)) return PM_NOMEM(err); /* size + magic, filled below */
  if (!dv->bitmap64) {
    roaring_bitmap_t *copy = roaring_bitmap_copy(dv->bm32);
    if (!copy) return PM_NOMEM(err);
    roaring_bitmap_run_optimize(copy); /* Java run-optimizes before writing */
    size_t sz = roaring_bitmap_portable_size_in_bytes(copy);
    if (pm_buf_reserve(out, sz)) {
      roaring_bitmap_free(copy);
      return PM_NOMEM(err);
    }
    roaring_bitmap_portable_serialize(copy, (char *)out->data + out->len);
    out->len += sz;
    roaring_bitmap_free(copy);
  } else {
    uint32_t max_key = dv->n ? dv->keys[dv->n - 1] : 0;
    uint64_t count = dv->n ? (uint64_t)max_key + 1 : 0;
    uint8_t c8[8];
    for (int i = 0; i < 8; i++) c8[i] = (uint8_t)(count >> (8 * i));
    if (pm_buf_append(out, c8, 8)) return PM_NOMEM(err);
    size_t mi = 0;
    for (uint64_t k = 0; k < count; k++) { /* Java writes every key 0..max, empty ones included */
      uint8_t k4[4] = {(uint8_t)k, (uint8_t)(k >> 8), (uint8_t)(k >> 16), (uint8_t)(k >> 24)};
      if (pm_buf_append(out, k4, 4)) return PM_NOMEM(err);
      roaring_bitmap_t *b = (mi < dv->n && dv->keys[mi] == k) ? roaring_bitmap_copy(dv->maps[mi++]) : roaring_bitmap_create();
      if (!b) return PM_NOMEM(err);
      roaring_bitmap_run_optimize(b);
      size_t sz = roaring_bitmap_portable_size_in_bytes(b);
      if (pm_buf_reserve(out, sz)) {
        roaring_bitmap_free(b);
        return PM_NOMEM(err);
      }
      roaring_bitmap_portable_serialize(b, (char *)out->data + out->len);
      out->len += sz;
      roaring_bitmap_free(b);
    }
  }
  size_t size = out->len - start - 4; /* magic + bitmap */
  if (size > DV_MAX_BYTES) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "deletion vector too large");
  put_be32(out->data + start, (uint32_t)size);
  if (!dv->bitmap64) {
    put_be32(out->data + start + 4, (uint32_t)PM_DV_MAGIC32);
  } else {
    uint32_t m = (uint32_t)PM_DV_MAGIC64;
    uint8_t *p = out->data + start + 4;
    p[0] = (uint8_t)m;
    p[1] = (uint8_t)(m >> 8);
    p[2] = (uint8_t)(m >> 16);
    p[3] = (uint8_t)(m >> 24);
  }
  uint32_t crc = (uint32_t)crc32(0L, out->data + start + 4, (uInt)size);
  uint8_t c4[4];
  put_be32(c4, crc);
  if (pm_buf_append(out, c4, 4)) return PM_NOMEM(err);
  if (meta_length) *meta_length = dv->bitmap64 ? (int32_t)(size + 8) : (int32_t)size;
  return 0;
}

int pm_dv_index_file_encode(const char *file_name, const char *const *data_files, const pm_deletion_vector *const *dvs,
                            size_t n, pm_buf *out, pm_arena *arena, pm_index_file_meta *meta, pm_error *err) {
  if (n > INT32_MAX) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "too many deletion vectors");
  size_t start = out->len;
  if (pm_buf_push_u8(out, PM_DV_INDEX_VERSION)) return PM_NOMEM(err);
  memset(meta, 0, sizeof(*meta));
  meta->index_type = pm_arena_strdup(arena, PM_INDEX_TYPE_DV);
  meta->file_name = pm_arena_strdup(arena, file_name);
  meta->dv_ranges = n ? pm_arena_alloc(arena, n * sizeof(pm_dv_range)) : NULL;
  if (!meta->index_type || !meta->file_name || (n && !meta->dv_ranges)) return PM_NOMEM(err);
  for (size_t i = 0; i < n; i++) {
    size_t off = out->len - start;
    if (off > INT32_MAX) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "deletion vector index file over 2 GiB");
    int32_t len = 0;
    PM_TRY(pm_dv_serialize(dvs[i], out, &len, err));
    pm_dv_range *r = &meta->dv_ranges[i];
    memset(r, 0, sizeof(*r));
    r->data_file_name = pm_arena_strdup(arena, data_files[i]);
    if (!r->data_file_name) return PM_NOMEM(err);
    r->offset = (int32_t)off;
    r->length = len;
    r->cardinality = (int64_t)pm_dv_cardinality(dvs[i]);
    r->has_cardinality = 1;
  }
  meta->n_dv_ranges = (int32_t)n;
  meta->file_size = (int64_t)(out->len - start);
  meta->row_count = (int64_t)n;
  return 0;
}
