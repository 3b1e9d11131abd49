/* Bucket hashing (FORMAT.md 6): Paimon's MurmurHash3 "hashByWords" over BinaryRow bytes. */
#ifndef PM_DATA_BUCKET_H
#define PM_DATA_BUCKET_H

#include <stddef.h>
#include <stdint.h>

/* Hash of BinaryRow bytes WITHOUT the arity prefix (len must be a multiple of 4;
 * a trailing partial word is ignored, which never happens for real rows). */
int32_t pm_bucket_hash(const uint8_t *row, size_t len);
/* abs(hash % n) with Java semantics; n > 0. */
int32_t pm_bucket_of_hash(int32_t hash, int32_t n);
/* floorMod(value, n) for bucket-function.type = mod. */
int32_t pm_bucket_mod(int64_t value, int32_t n);

#endif
