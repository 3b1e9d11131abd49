/*
 * Human-readable descriptions of a Parquet file, as `paimon parquet schema`
 * and `paimon parquet meta` print them: the schema tree in parquet-mr's
 * message syntax (logical types, field ids), and the footer (size, version,
 * created_by, key/value metadata cut at 200 bytes, per row group and column
 * chunk: type, codec, encodings, sizes, offsets, statistics).
 */
#ifndef PM_FORMAT_PARQUET_DESCRIBE_H
#define PM_FORMAT_PARQUET_DESCRIBE_H

#include <stddef.h>

#include "util/error.h"

/* meta = 0: the schema; 1: the footer. On success *text (NUL-terminated,
 * *len bytes) is owned by the caller: free(). */
int pm_pq_describe(const char *path, int meta, char **text, size_t *len, pm_error *err);

#endif
