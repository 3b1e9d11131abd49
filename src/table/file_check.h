/*
 * Integrity checks of a data file against its manifest entry (DataFileMeta):
 * a file replaced by another valid file, or truncated, must not read as if
 * nothing happened. Both return PAIMON_ERR_CORRUPT naming the file.
 */
#ifndef PM_TABLE_FILE_CHECK_H
#define PM_TABLE_FILE_CHECK_H

#include <stdint.h>

#include "meta/manifest.h"
#include "util/error.h"

/* The file (size bytes, as opened) has the manifest's fileSize (skipped when
 * the manifest records no size, file_size <= 0). */
int pm_data_file_check_size(const char *path, const pm_data_file_meta *m, uint64_t size, pm_error *err);
/* The file held the manifest's rowCount rows (rows: all rows the format
 * reader returned, read to the end without deletion vectors or pruning). */
int pm_data_file_check_rows(const char *path, const pm_data_file_meta *m, int64_t rows, pm_error *err);

#endif
