#include "util/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *paimon_status_name(paimon_status code) {
  switch (code) {
    case PAIMON_OK: return "OK";
    case PAIMON_ERR_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case PAIMON_ERR_IO: return "IO";
    case PAIMON_ERR_CORRUPT: return "CORRUPT";
    case PAIMON_ERR_NOT_FOUND: return "NOT_FOUND";
    case PAIMON_ERR_UNSUPPORTED: return "UNSUPPORTED";
    case PAIMON_ERR_NOMEM: return "NOMEM";
    case PAIMON_ERR_CONFLICT: return "CONFLICT";
    case PAIMON_ERR_INTERNAL: return "INTERNAL";
    case PAIMON_ERR_UNKNOWN_OUTCOME: return "UNKNOWN_OUTCOME";
  }
  return "UNKNOWN";
}

int pm_errorf(pm_error *err, paimon_status code, const char *fmt, ...) {
  if (err) {
    err->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  }
  return (int)code;
}

int pm_error_prefix(pm_error *err, const char *fmt, ...) {
  if (!err) return PAIMON_ERR_INTERNAL;
  char prefix[PAIMON_ERROR_MESSAGE_SIZE];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  if (n < 0) return (int)err->code;
  size_t plen = (size_t)n < sizeof prefix ? (size_t)n : sizeof prefix - 1;
  if (plen && strstr(err->message, prefix)) return (int)err->code; /* context already given */
  if (plen && prefix[plen - 1] != ' ' && plen + 2 < sizeof prefix) { /* "context: message" */
    prefix[plen++] = ':';
    prefix[plen++] = ' ';
    prefix[plen] = '\0';
  }
  size_t cap = sizeof err->message;
  if (plen >= cap) plen = cap - 1;
  size_t olen = strnlen(err->message, cap - 1);
  if (plen + olen > cap - 1) olen = cap - 1 - plen;
  memmove(err->message + plen, err->message, olen);
  memcpy(err->message, prefix, plen);
  err->message[plen + olen] = '\0';
  return (int)err->code;
}

void pm_error_clear(pm_error *err) {
  if (err) {
    err->code = PAIMON_OK;
    err->message[0] = '\0';
  }
}
