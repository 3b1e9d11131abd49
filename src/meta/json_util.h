/* JSON helpers shared by schema/snapshot/tag files: Jackson-style pretty printing
 * (what Java Paimon writes) and typed field access with clear errors. */
#ifndef PM_META_JSON_UTIL_H
#define PM_META_JSON_UTIL_H

#include <jansson.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/error.h"

/* Appends j formatted like Jackson's DefaultPrettyPrinter: two-space indent,
 * `"key" : value`, arrays inline `[ a, b ]`, empty `[ ]` / `{ }`. Object key
 * order is kept. */
int pm_json_pretty(const json_t *j, pm_buf *out, pm_error *err);
/* Parses a JSON document (limit on size is the caller's). Bad JSON ⇒ CORRUPT naming path, line, column. */
int pm_json_parse(const char *text, size_t len, const char *path, json_t **out, pm_error *err);

/* Typed getters: absent or null ⇒ *present = 0 (return 0); wrong type ⇒ CORRUPT naming path and key. */
int pm_json_get_int64(const json_t *o, const char *key, const char *path, int64_t *v, int *present, pm_error *err);
int pm_json_get_str(const json_t *o, const char *key, const char *path, const char **v, pm_error *err);
/* Required variants ⇒ CORRUPT when absent. */
int pm_json_req_int64(const json_t *o, const char *key, const char *path, int64_t *v, pm_error *err);
int pm_json_req_str(const json_t *o, const char *key, const char *path, const char **v, pm_error *err);

#endif
