/* Table write (write.h): Arrow batches and streams into the writer, prepare_commit. */
#include "api/api_write_internal.h"
#include "arrow/stream.h"
#include "table/commit.h"
#include "table/kv_compact.h"
#include "table/write.h"

struct paimon_table_write {
  pm_table_write *w;
  int streaming;
  int prepared;    /* batch: prepare_commit done */
  int64_t last_id; /* stream: last prepared identifier */
  int has_last_id;
};

/* ---------------------------------------------------------------- write */

paimon_status paimon_write_builder_new_write(const paimon_write_builder *wb, paimon_table_write **out,
                                             paimon_error *err) {
  CHECK_ARG(wb && out, "NULL argument");
  *out = NULL;
  paimon_table_write *w = calloc(1, sizeof *w);
  if (!w) return (paimon_status)PM_NOMEM(err);
  pm_write_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.commit_user = wb->commit_user;
  cfg.streaming = wb->streaming;
  cfg.ignore_previous_files = wb->overwrite;
  int rc = pm_table_write_open(wb->t, &cfg, &w->w, err);
  if (rc) {
    free(w);
    return (paimon_status)rc;
  }
  w->streaming = wb->streaming;
  pm_table_write_watch(w->w, wb->signal);
  *out = w;
  return PAIMON_OK;
}

struct pm_table_write *pm_api_table_write(paimon_table_write *w) { return w ? w->w : NULL; }

static int check_open(const paimon_table_write *w, pm_error *err) {
  if (w->prepared)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "this batch writer's prepare_commit was already called (a batch write commits once: make a new "
                     "writer)");
  return 0;
}

paimon_status paimon_table_write_arrow(paimon_table_write *w, const struct ArrowSchema *schema,
                                       const struct ArrowArray *batch, paimon_error *err) {
  CHECK_ARG(w && schema && batch, "NULL argument");
  CHECK_ARG(schema->release && batch->release, "released schema or batch");
  PM_TRY(check_open(w, err));
  return (paimon_status)pm_table_write_arrow(w->w, schema, batch, err);
}

paimon_status paimon_table_write_arrow_kind(paimon_table_write *w, const struct ArrowSchema *schema,
                                            const struct ArrowArray *batch, int row_kind, paimon_error *err) {
  CHECK_ARG(w && schema && batch, "NULL argument");
  CHECK_ARG(schema->release && batch->release, "released schema or batch");
  CHECK_ARG(row_kind >= 0 && row_kind <= 3, "row_kind is not 0..3");
  PM_TRY(check_open(w, err));
  return (paimon_status)pm_table_write_arrow_kind(w->w, schema, batch, row_kind, err);
}

paimon_status paimon_table_write_compact(paimon_table_write *w, const paimon_option *partition_spec, size_t n,
                                         int32_t bucket, int full_compaction, paimon_error *err) {
  CHECK_ARG(w && (partition_spec || !n), "NULL argument");
  PM_TRY(check_open(w, err));
  const char **keys = calloc(n + 1, sizeof *keys), **values = calloc(n + 1, sizeof *values);
  if (!keys || !values) {
    free(keys);
    free(values);
    return (paimon_status)PM_NOMEM(err);
  }
  for (size_t i = 0; i < n; i++) {
    keys[i] = partition_spec[i].key;
    values[i] = partition_spec[i].value;
  }
  pm_partition_spec spec = {keys, values, n};
  int rc = 0;
  for (size_t i = 0; i < n && !rc; i++)
    if (!keys[i]) rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: partition spec key %zu is NULL", __func__, i);
  if (!rc) rc = pm_table_write_compact(w->w, &spec, bucket, full_compaction != 0, err);
  free(keys);
  free(values);
  return (paimon_status)rc;
}

void paimon_table_write_compact_metrics(const paimon_table_write *w, paimon_compact_metrics *out) {
  if (!out) return;
  memset(out, 0, sizeof *out);
  pm_kv_compact_stats st;
  if (!w || !pm_table_write_compact_stats(w->w, &st)) return;
  out->tasks = st.tasks;
  out->files_removed = st.files_removed;
  out->files_added = st.files_added;
  out->rows_written = st.rows_written;
  out->bytes_written = st.bytes_written;
}

paimon_status paimon_table_write_with_row_kind_column(paimon_table_write *w, const char *column, paimon_error *err) {
  CHECK_ARG(w, "NULL argument");
  return (paimon_status)pm_table_write_row_kind_column(w->w, column, err);
}

static int drain_batch(void *ctx, const struct ArrowSchema *schema, const struct ArrowArray *batch, pm_error *err) {
  return pm_table_write_arrow((pm_table_write *)ctx, schema, batch, err);
}

paimon_status paimon_table_write_stream(paimon_table_write *w, struct ArrowArrayStream *stream, paimon_error *err) {
  if (!w || !stream || !stream->release) {
    if (stream && stream->release) stream->release(stream);
    return (paimon_status)pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: NULL argument or released stream",
                                    __func__);
  }
  int rc = check_open(w, err);
  if (rc) {
    stream->release(stream);
    return (paimon_status)rc;
  }
  return (paimon_status)pm_stream_drain(stream, drain_batch, w->w, err);
}

paimon_status paimon_table_write_prepare_commit(paimon_table_write *w, int64_t commit_identifier,
                                                paimon_commit_messages **out, paimon_error *err) {
  CHECK_ARG(w && out, "NULL argument");
  *out = NULL;
  PM_TRY(check_open(w, err));
  PM_TRY(pm_api_check_commit_identifier("writer", w->streaming, w->has_last_id, w->last_id, commit_identifier,
                                        err));
  pm_manifest_committable *c = NULL;
  PM_TRY(pm_table_write_prepare(w->w, commit_identifier, &c, err));
  if (!w->streaming) w->prepared = 1;
  w->last_id = commit_identifier;
  w->has_last_id = 1;
  return (paimon_status)pm_api_messages_wrap(c, out, err);
}

void paimon_table_write_free(paimon_table_write *w) {
  if (!w) return;
  pm_table_write_free(w->w);
  free(w);
}
