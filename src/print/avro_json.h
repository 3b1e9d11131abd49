/*
 * Avro container files as JSON lines, any writer schema, in the value
 * encoding of the printers (print.h): records as objects, bytes and fixed as
 * base64, enums as their symbol, maps as [key, value] pairs, unions as their
 * value, NaN/Infinity as strings. What `paimon avro cat` prints.
 */
#ifndef PM_PRINT_H_AVRO_JSON_H
#define PM_PRINT_H_AVRO_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

typedef struct pm_avro_json pm_avro_json;

/* names (may be NULL: every field) selects top-level record fields, in the
 * order given (empty names skipped; an unknown one is NOT_FOUND; a file whose
 * values are not records is INVALID_ARGUMENT when names is given). limit < 0:
 * every record. *out: pm_avro_json_close. */
int pm_avro_json_open(const char *path, const char *const *names, size_t n_names, int64_t limit, pm_avro_json **out,
                      pm_error *err);
/* The next record's JSON text (no newline; NUL-terminated; valid until the
 * next call or close), or *line = NULL at the end. */
int pm_avro_json_next(pm_avro_json *j, const char **line, size_t *len, pm_error *err);
void pm_avro_json_close(pm_avro_json *j);

#endif
