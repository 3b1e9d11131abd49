/*
 * Human-readable descriptions of an ORC file, as `paimon orc schema` and
 * `paimon orc meta` print them: the type tree (column ids, names, kinds,
 * attributes), and the footer (rows, compression, versions, user metadata,
 * file statistics, per stripe: offsets, lengths, encodings, statistics).
 */
#ifndef PM_FORMAT_ORC_DESCRIBE_H
#define PM_FORMAT_ORC_DESCRIBE_H

#include <stddef.h>

#include "util/error.h"

/* meta = 0: the types; 1: the footer. columns (may be NULL) must name
 * top-level columns (an unknown one is an error, as when reading). *text
 * (NUL-terminated, *len bytes) is owned by the caller (free()); when the
 * footer fails part way (a stripe's encodings unreadable) it holds what was
 * described before and the error is returned too. */
int pm_orc_describe(const char *path, const char *const *columns, size_t n_columns, int meta, char **text,
                    size_t *len, pm_error *err);

#endif
