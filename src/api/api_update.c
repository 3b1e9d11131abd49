/* Row-id column updates of data-evolution tables (update.h; table/rowid_update.h). */
#include "api/api_write_internal.h"
#include "arrow/stream.h"
#include "paimon/update.h"
#include "table/rowid_update.h"

struct paimon_table_update {
  pm_rowid_update *u;
  int streaming;
  int prepared;    /* batch: prepare_commit done */
  int64_t last_id; /* stream: last prepared identifier */
  int has_last_id;
};

paimon_status paimon_write_builder_new_update_by_row_id(const paimon_write_builder *wb, const char *const *columns,
                                                        size_t n, paimon_table_update **out, paimon_error *err) {
  CHECK_ARG(wb && out && (columns || !n), "NULL argument");
  *out = NULL;
  if (wb->overwrite)
    return (paimon_status)pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                                    "update by _ROW_ID: the write builder is an overwrite builder");
  paimon_table_update *u = calloc(1, sizeof *u);
  if (!u) return (paimon_status)PM_NOMEM(err);
  pm_write_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.commit_user = wb->commit_user;
  cfg.streaming = wb->streaming;
  int rc = pm_rowid_update_open(wb->t, &cfg, columns, n, &u->u, err);
  if (rc) {
    free(u);
    return (paimon_status)rc;
  }
  u->streaming = wb->streaming;
  *out = u;
  return PAIMON_OK;
}

static int check_open(const paimon_table_update *u, pm_error *err) {
  if (u->prepared)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "this batch updater's prepare_commit was already called (a batch update commits once: make a new "
                     "updater)");
  return 0;
}

paimon_status paimon_table_update_columns(paimon_table_update *u, const struct ArrowSchema *schema,
                                          const struct ArrowArray *batch, paimon_error *err) {
  CHECK_ARG(u && schema && batch, "NULL argument");
  CHECK_ARG(schema->release && batch->release, "released schema or batch");
  PM_TRY(check_open(u, err));
  return (paimon_status)pm_rowid_update_write(u->u, schema, batch, err);
}

static int drain_batch(void *ctx, const struct ArrowSchema *schema, const struct ArrowArray *batch, pm_error *err) {
  return pm_rowid_update_write((pm_rowid_update *)ctx, schema, batch, err);
}

paimon_status paimon_table_update_stream(paimon_table_update *u, struct ArrowArrayStream *stream, paimon_error *err) {
  if (!u || !stream || !stream->release) {
    if (stream && stream->release) stream->release(stream);
    return (paimon_status)pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: NULL argument or released stream",
                                    __func__);
  }
  int rc = check_open(u, err);
  if (rc) {
    stream->release(stream);
    return (paimon_status)rc;
  }
  return (paimon_status)pm_stream_drain(stream, drain_batch, u->u, err);
}

paimon_status paimon_table_update_prepare_commit(paimon_table_update *u, int64_t commit_identifier,
                                                 paimon_commit_messages **out, paimon_error *err) {
  CHECK_ARG(u && out, "NULL argument");
  *out = NULL;
  PM_TRY(check_open(u, err));
  PM_TRY(pm_api_check_commit_identifier("updater", u->streaming, u->has_last_id, u->last_id, commit_identifier,
                                        err));
  pm_manifest_committable *c = NULL;
  int64_t from = 0;
  PM_TRY(pm_rowid_update_prepare(u->u, commit_identifier, &c, &from, err));
  if (!u->streaming) u->prepared = 1;
  u->last_id = commit_identifier;
  u->has_last_id = 1;
  PM_TRY(pm_api_messages_wrap(c, out, err));
  (*out)->check_from_snapshot = from;
  return PAIMON_OK;
}

int64_t paimon_table_update_rows(const paimon_table_update *u) { return u ? pm_rowid_update_rows(u->u) : 0; }

void paimon_table_update_free(paimon_table_update *u) {
  if (!u) return;
  pm_rowid_update_free(u->u);
  free(u);
}
