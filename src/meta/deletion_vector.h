/*
 * Deletion vectors (FORMAT.md 7.3, SEMANTICS.md 8): the set of deleted row
 * positions of one data file, stored in DV index files as 32-bit (Roaring
 * portable) or 64-bit (Roaring64 portable) bitmaps.
 */
#ifndef PM_META_DELETION_VECTOR_H
#define PM_META_DELETION_VECTOR_H

#include <stddef.h>
#include <stdint.h>

#include "io/fs.h"
#include "util/buf.h"
#include "util/error.h"

#define PM_DV_MAGIC32 1581511376
#define PM_DV_MAGIC64 1681511377
#define PM_DV_INDEX_VERSION 1

typedef struct pm_deletion_vector pm_deletion_vector;

/* Empty vector. bitmap64 selects the serialization written by pm_dv_serialize. */
int pm_dv_new(int bitmap64, pm_deletion_vector **out, pm_error *err);
void pm_dv_free(pm_deletion_vector *dv); /* NULL ok */
int pm_dv_is_bitmap64(const pm_deletion_vector *dv);

/* Decodes one DV record: `data` starts at the record's int32 BE size field
 * (the DeletionVectorMeta offset) and `len` is the bytes available from there.
 * `meta_length` is DeletionVectorMeta.length (or -1 to skip that check).
 * Checks sizes, magic and CRC. name is used in messages. */
int pm_dv_decode(const uint8_t *data, size_t len, int64_t meta_length, const char *name,
                 pm_deletion_vector **out, pm_error *err);
/* Reads the DV at (offset, length) of an index file. */
int pm_dv_read(pm_fs *fs, const char *path, int64_t offset, int64_t length, pm_deletion_vector **out, pm_error *err);

/* Adds a deleted position (positions >= 2^31 need a 64-bit vector). */
int pm_dv_add(pm_deletion_vector *dv, int64_t position, pm_error *err);
int pm_dv_is_deleted(const pm_deletion_vector *dv, int64_t position);
uint64_t pm_dv_cardinality(const pm_deletion_vector *dv);
/* Sorted deleted positions; *positions malloc'd (free()), NULL when n == 0. */
int pm_dv_positions(const pm_deletion_vector *dv, int64_t **positions, size_t *n, pm_error *err);
/* Row ranges NOT deleted within [0, row_count): pairs (start, end_exclusive)
 * in ascending order; *ranges malloc'd with 2 * *n values. */
int pm_dv_kept_ranges(const pm_deletion_vector *dv, int64_t row_count, int64_t **ranges, size_t *n,
                      pm_error *err);

/* Appends one DV record (int32 BE size, magic, bitmap, int32 BE CRC) to out.
 * *meta_length receives the DeletionVectorMeta length value for it. */
int pm_dv_serialize(const pm_deletion_vector *dv, pm_buf *out, int32_t *meta_length, pm_error *err);

/* Builds a whole DV index file (version byte + records in the given order)
 * into out, and fills meta (index type DELETION_VECTORS, file_name copied,
 * file size, row count = n, one dv range per data file with offset, length
 * and cardinality) with strings in arena. */
struct pm_index_file_meta;
struct pm_arena;
int pm_dv_index_file_encode(const char *file_name, const char *const *data_files,
                            const pm_deletion_vector *const *dvs, size_t n, pm_buf *out, struct pm_arena *arena,
                            struct pm_index_file_meta *meta, pm_error *err);

#endif
