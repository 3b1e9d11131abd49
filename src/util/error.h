/* Internal error helpers on top of the public paimon_error. */
#ifndef PM_UTIL_ERROR_H
#define PM_UTIL_ERROR_H

#include "paimon/error.h"

typedef paimon_error pm_error;

/* Sets *err (if not NULL) to code + formatted message; returns code.
 * Usage: return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: bad magic at offset %lld", path, off); */
int pm_errorf(pm_error *err, paimon_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prepends context to an error already set: "CONTEXT: message" (": " is added
 * unless the context ends with a space, so "file.parquet" and "file.parquet: "
 * give the same); returns its code. Use when a lower layer failed and this
 * layer knows where. A message that already contains the context text is left
 * as is (one path, one prefix). */
int pm_error_prefix(pm_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Clears *err to PAIMON_OK with an empty message. */
void pm_error_clear(pm_error *err);

/* Allocation failure shortcut. */
#define PM_NOMEM(err) pm_errorf((err), PAIMON_ERR_NOMEM, "out of memory at %s:%d", __FILE__, __LINE__)

/* Propagate a non-zero status. */
#define PM_TRY(expr)           \
  do {                         \
    int pm_try_rc_ = (expr);   \
    if (pm_try_rc_ != 0) return pm_try_rc_; \
  } while (0)

#endif
