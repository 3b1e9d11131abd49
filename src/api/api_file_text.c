/* Public C API: descriptions and JSON records of single files (paimon/file.h:
 * paimon_file_describe, paimon_file_records_*). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/api_internal.h"
#include "format/avro/avro.h"
#include "format/orc/orc_describe.h"
#include "format/parquet/parquet_describe.h"
#include "paimon/file.h"
#include "print/avro_json.h"

enum { K_PARQUET = PM_API_FILE_PARQUET, K_ORC = PM_API_FILE_ORC, K_AVRO = PM_API_FILE_AVRO };

static int avro_schema_text(const char *path, char **text, pm_error *err) {
  pm_avro_reader *r;
  PM_TRY(pm_avro_reader_open_path(path, &r, err));
  size_t len;
  const char *json = pm_avro_reader_schema_json(r, &len);
  *text = malloc(len + 2);
  int rc = 0;
  if (!*text) rc = PM_NOMEM(err);
  else {
    memcpy(*text, json, len);
    (*text)[len] = '\n';
    (*text)[len + 1] = 0;
  }
  pm_avro_reader_close(r);
  return rc;
}

paimon_status paimon_file_describe(const char *path, const paimon_file_read_options *o,
                                   paimon_file_describe_kind what, char **text, paimon_error *err) {
  if (text) *text = NULL;
  if (!path || !text)
    return (paimon_status)pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "paimon_file_describe: NULL argument");
  if (what != PAIMON_FILE_DESCRIBE_SCHEMA && what != PAIMON_FILE_DESCRIBE_META)
    return (paimon_status)pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "paimon_file_describe: unknown kind %d",
                                    (int)what);
  int kind;
  PM_TRY(pm_api_file_kind(path, o ? o->format : NULL, &kind, err));
  int meta = what == PAIMON_FILE_DESCRIBE_META;
  size_t len = 0;
  if (kind == K_PARQUET) return (paimon_status)pm_pq_describe(path, meta, text, &len, err);
  if (kind == K_ORC)
    return (paimon_status)pm_orc_describe(path, o ? o->columns : NULL, o && o->columns ? o->n_columns : 0, meta,
                                          text, &len, err);
  if (meta)
    return (paimon_status)pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: no metadata description for Avro files", path);
  return (paimon_status)avro_schema_text(path, text, err);
}

struct paimon_file_records {
  pm_avro_json *j;
};

paimon_status paimon_file_records_open(const char *path, const paimon_file_read_options *o,
                                       paimon_file_records **out, paimon_error *err) {
  if (out) *out = NULL;
  if (!path || !out)
    return (paimon_status)pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "paimon_file_records_open: NULL argument");
  if (o && o->format && strcasecmp(o->format, "avro"))
    return (paimon_status)pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: records as JSON are for Avro files, not '%s'",
                                    path, o->format);
  paimon_file_records *r = calloc(1, sizeof *r);
  if (!r) return (paimon_status)PM_NOMEM(err);
  int rc = pm_avro_json_open(path, o ? o->columns : NULL, o && o->columns ? o->n_columns : 0,
                             o && o->limit >= 0 ? o->limit : -1, &r->j, err);
  if (rc) {
    free(r);
    return (paimon_status)rc;
  }
  *out = r;
  return PAIMON_OK;
}

paimon_status paimon_file_records_next(paimon_file_records *r, const char **json, size_t *len, paimon_error *err) {
  if (json) *json = NULL;
  if (len) *len = 0;
  if (!r || !json || !len)
    return (paimon_status)pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "paimon_file_records_next: NULL argument");
  return (paimon_status)pm_avro_json_next(r->j, json, len, err);
}

void paimon_file_records_close(paimon_file_records *r) {
  if (!r) return;
  pm_avro_json_close(r->j);
  free(r);
}
