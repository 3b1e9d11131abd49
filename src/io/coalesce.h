/*
 * Coalesced range reads (pypaimon's "Coalesced BLOB reads"): ranges of one
 * file whose gap to the previous one is at most max_gap are read together
 * as one range, as long as the merged range stays within max_block bytes;
 * a single range larger than max_block is read whole (never split). The
 * merged ranges go to the file system in one vectored read
 * (pm_file_read_ranges), so an object store sees few, larger requests.
 * Options: file-io.read-coalesce.max-gap / .max-block (1 MiB / 8 MiB).
 */
#ifndef PM_IO_COALESCE_H
#define PM_IO_COALESCE_H

#include <stddef.h>
#include <stdint.h>

#include "io/file.h"

#define PM_COALESCE_MAX_GAP_DEFAULT ((uint64_t)1 << 20)
#define PM_COALESCE_MAX_BLOCK_DEFAULT ((uint64_t)8 << 20)

/* Reads every range of r[0, n) exactly (any order, may overlap, len 0 ok).
 * *reads (may be NULL) = the ranges issued to the file system. */
int pm_file_read_coalesced(pm_file *f, const pm_read_range *r, size_t n, uint64_t max_gap, uint64_t max_block,
                           size_t *reads, pm_error *err);

#endif
