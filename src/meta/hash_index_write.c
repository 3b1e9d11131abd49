/* Writing HASH index files (FORMAT.md 7.2, Java's HashIndexFile.write). */
#include "meta/hash_index.h"

int pm_hash_index_write(pm_fs *fs, const char *dir, const char *path, const int32_t *hashes, size_t n,
                        int64_t *size, pm_error *err) {
  pm_buf b;
  pm_buf_init(&b);
  int rc = pm_hash_index_encode(hashes, n, &b, err);
  if (!rc) rc = pm_fs_mkdirs(fs, dir, err);
  if (!rc) rc = pm_fs_write_file(fs, path, b.data, b.len, PM_OUT_CREATE_IF_ABSENT, err);
  if (!rc) *size = (int64_t)b.len;
  pm_buf_free(&b);
  return rc;
}
