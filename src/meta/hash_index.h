/* HASH index files of dynamic-bucket tables (FORMAT.md 7.2): a plain sequence
 * of int32 big-endian key hashes, no header or footer. */
#ifndef PM_META_HASH_INDEX_H
#define PM_META_HASH_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "io/fs.h"
#include "util/buf.h"
#include "util/error.h"

/* Decodes the hashes; *hashes is malloc'd (free()), NULL when n == 0. A size
 * that is not a multiple of 4 is PAIMON_ERR_CORRUPT naming `name`. */
int pm_hash_index_decode(const uint8_t *data, size_t len, const char *name, int32_t **hashes, size_t *n, pm_error *err);
/* Reads a HASH index file. */
int pm_hash_index_read(pm_fs *fs, const char *path, int32_t **hashes, size_t *n, pm_error *err);
/* Appends the encoding of n hashes (in the given order). */
int pm_hash_index_encode(const int32_t *hashes, size_t n, pm_buf *out, pm_error *err);

/* hash_index_write.c: writes hashes[0, n) as a HASH index file at path
 * (its directory dir is created), published create-if-absent (an existing
 * name is PAIMON_ERR_CONFLICT); *size = the file's bytes (4 n). */
int pm_hash_index_write(pm_fs *fs, const char *dir, const char *path, const int32_t *hashes, size_t n,
                        int64_t *size, pm_error *err);

#endif
