/* HASH index files (FORMAT.md 7.2). */
#include "meta/hash_index.h"

#include <stdlib.h>

#include "io/file.h"

int pm_hash_index_decode(const uint8_t *data, size_t len, const char *name, int32_t **hashes, size_t *n, pm_error *err) {
  *hashes = NULL;
  *n = 0;
  if (len % 4)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: HASH index size %zu is not a multiple of 4", name ? name : "hash index",
                     len);
  if (!len) return 0;
  int32_t *v = malloc(len);
  if (!v) return PM_NOMEM(err);
  for (size_t i = 0; i < len / 4; i++) {
    const uint8_t *p = data + 4 * i;
    v[i] = (int32_t)(((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3]);
  }
  *hashes = v;
  *n = len / 4;
  return 0;
}

int pm_hash_index_read(pm_fs *fs, const char *path, int32_t **hashes, size_t *n, pm_error *err) {
  pm_buf b;
  pm_buf_init(&b);
  int rc = pm_fs_read_file(fs, path, &b, 0, err);
  if (!rc) rc = pm_hash_index_decode(b.data, b.len, path, hashes, n, err);
  pm_buf_free(&b);
  return rc;
}

int pm_hash_index_encode(const int32_t *hashes, size_t n, pm_buf *out, pm_error *err) {
  if (n > SIZE_MAX / 4 || pm_buf_reserve(out, 4 * n)) return PM_NOMEM(err);
  for (size_t i = 0; i < n; i++) {
    uint32_t h = (uint32_t)hashes[i];
    uint8_t *p = out->data + out->len;
    p[0] = (uint8_t)(h >> 24);
    p[1] = (uint8_t)(h >> 16);
    p[2] = (uint8_t)(h >> 8);
    p[3] = (uint8_t)h;
    out->len += 4;
  }
  return 0;
}
