/*
 * Result codes and error reports shared by every libpaimon call.
 *
 * Every fallible call returns a paimon_status and takes an optional
 * `paimon_error *err` as its last argument. On failure the call fills *err
 * (when err is not NULL) with the code and a one-line message saying what is
 * wrong and where (file, offset, field). The struct is plain caller-owned
 * memory: no allocation, no global state, safe to use from any thread.
 */
#ifndef PAIMON_ERROR_H
#define PAIMON_ERROR_H

#include "paimon/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum paimon_status {
  PAIMON_OK = 0,
  PAIMON_ERR_INVALID_ARGUMENT = 1, /* the caller passed something unusable */
  PAIMON_ERR_IO = 2,               /* the operating system refused a read/write */
  PAIMON_ERR_CORRUPT = 3,          /* bytes on disk do not follow the format */
  PAIMON_ERR_NOT_FOUND = 4,        /* table, file, snapshot, column... missing */
  PAIMON_ERR_UNSUPPORTED = 5,      /* valid input this version cannot handle */
  PAIMON_ERR_NOMEM = 6,            /* an allocation failed or a limit was hit */
  PAIMON_ERR_CONFLICT = 7,         /* a concurrent change won; nothing of this call was published:
                                      safe to retry (new plan) or to abort */
  PAIMON_ERR_INTERNAL = 8,         /* a bug in libpaimon */
  PAIMON_ERR_UNKNOWN_OUTCOME = 9   /* a commit may or may not have been published (e.g. an I/O
                                      error after the snapshot write began): do NOT abort or delete
                                      its files; retry with the same commit user and identifier,
                                      which publishes it at most once */
} paimon_status;

#define PAIMON_ERROR_MESSAGE_SIZE 1024

typedef struct paimon_error {
  paimon_status code;
  char message[PAIMON_ERROR_MESSAGE_SIZE];
} paimon_error;

/* Static name of a status code, e.g. "CORRUPT". Never NULL. */
PAIMON_EXPORT const char *paimon_status_name(paimon_status code);

#ifdef __cplusplus
}
#endif

#endif /* PAIMON_ERROR_H */
