/* Table commit (write.h): commit, overwrite, abort, truncate, recovery. */
#include "api/api_write_internal.h"


paimon_status paimon_write_builder_new_commit(const paimon_write_builder *wb, paimon_table_commit **out,
                                              paimon_error *err) {
  CHECK_ARG(wb && out, "NULL argument");
  *out = NULL;
  paimon_table_commit *c = calloc(1, sizeof *c);
  if (!c) return (paimon_status)PM_NOMEM(err);
  c->streaming = wb->streaming;
  c->overwrite = wb->overwrite;
  int rc = 0;
  if (wb->spec.n) {
    paimon_option *o = malloc(wb->spec.n * sizeof *o);
    if (!o) rc = PM_NOMEM(err);
    for (size_t i = 0; o && i < wb->spec.n; i++) o[i] = (paimon_option){wb->spec.keys[i], wb->spec.values[i]};
    if (o) rc = pm_api_spec_copy(wb->t, o, wb->spec.n, &c->spec, err);
    free(o);
  }
  if (!rc && wb->into.n) {
    paimon_option *o = malloc(wb->into.n * sizeof *o);
    if (!o) rc = PM_NOMEM(err);
    for (size_t i = 0; o && i < wb->into.n; i++) o[i] = (paimon_option){wb->into.keys[i], wb->into.values[i]};
    if (o) rc = pm_api_spec_copy(wb->t, o, wb->into.n, &c->into, err);
    free(o);
  }
  pm_table *t = wb->spec.n ? wb->t_static : wb->t;
  if (!rc) rc = pm_commit_open(t, wb->commit_user, wb->streaming, &c->c, err);
  if (rc) {
    paimon_table_commit_free(c);
    return (paimon_status)rc;
  }
  c->commit_user = strdup(wb->commit_user);
  if (!c->commit_user) {
    paimon_table_commit_free(c);
    return (paimon_status)PM_NOMEM(err);
  }
  c->t = pm_table_retain(t);
  c->signal = pm_write_signal_retain(wb->signal);
  *out = c;
  return PAIMON_OK;
}

void paimon_table_commit_free(paimon_table_commit *c) {
  if (!c) return;
  pm_commit_free(c->c);
  pm_table_free(c->t);
  pm_write_signal_release(c->signal);
  pm_api_spec_free(&c->spec);
  pm_api_spec_free(&c->into);
  free(c->commit_user);
  free(c);
}

paimon_status paimon_table_commit_with_properties(paimon_table_commit *c, const paimon_option *properties, size_t n,
                                                  paimon_error *err) {
  CHECK_ARG(c && (properties || !n), "NULL argument");
  pm_options o;
  PM_TRY(pm_api_to_options(properties, n, &o, err));
  int rc = pm_commit_set_properties(c->c, &o, err);
  pm_options_clear(&o);
  return (paimon_status)rc;
}

void paimon_table_commit_with_watermark(paimon_table_commit *c, int64_t watermark) {
  if (c) pm_commit_set_watermark(c->c, watermark);
}

paimon_status paimon_table_commit_with_row_id_check(paimon_table_commit *c, int mode, int64_t from_snapshot,
                                                    paimon_error *err) {
  CHECK_ARG(c, "NULL argument");
  _Static_assert(PAIMON_ROW_ID_CHECK_DML == PM_ROWID_CHECK_DML &&
                     PAIMON_ROW_ID_CHECK_MATERIALIZE_DV == PM_ROWID_CHECK_MATERIALIZE_DV &&
                     PAIMON_ROW_ID_CHECK_OFF == PM_ROWID_CHECK_OFF,
                 "row id check modes");
  int rc = pm_commit_set_rowid_check(c->c, mode, from_snapshot, err);
  if (!rc) c->rowid_check_set = mode != PAIMON_ROW_ID_CHECK_OFF;
  return (paimon_status)rc;
}

/* Batch commits happen once per committer (Java's BatchTableCommit). */
static int check_batch(paimon_table_commit *c, int64_t identifier, pm_error *err) {
  if (c->streaming) return 0;
  if (c->committed)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "this batch committer already committed (a batch commit happens once: make a new one)");
  if (identifier != PAIMON_BATCH_COMMIT_IDENTIFIER)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "a batch committer commits with PAIMON_BATCH_COMMIT_IDENTIFIER, not %lld", (long long)identifier);
  return 0;
}

static void done(paimon_table_commit *c, int rc) {
  /* A batch committer is spent once something may have been published. */
  if (!c->streaming && (rc == 0 || rc == PAIMON_ERR_UNKNOWN_OUTCOME)) c->committed = 1;
}

paimon_status paimon_table_commit_compaction_dropped(const paimon_table_commit *c) {
  return c ? (paimon_status)pm_commit_compaction_dropped(c->c) : PAIMON_OK;
}

paimon_status paimon_table_commit_commit(paimon_table_commit *c, const paimon_commit_messages *m,
                                         int64_t commit_identifier, int64_t *snapshot_id, paimon_error *err) {
  CHECK_ARG(c && m, "NULL argument");
  if (snapshot_id) *snapshot_id = -1;
  PM_TRY(check_batch(c, commit_identifier, err));
  pm_manifest_committable view;
  PM_TRY(pm_api_messages_view(m, commit_identifier, &view, err));
  pm_partition_spec into = {(const char *const *)c->into.keys, (const char *const *)c->into.values, c->into.n};
  int rc = pm_commit_check_in_partition(c->c, &into, &view, err);
  /* row-id updates (update.h): the DML row-id check from their planning snapshot */
  int auto_check = !rc && !c->rowid_check_set && m->check_from_snapshot > 0;
  if (auto_check) rc = pm_commit_set_rowid_check(c->c, PM_ROWID_CHECK_DML, m->check_from_snapshot, err);
  if (!rc && c->overwrite) {
    pm_partition_spec spec = {(const char *const *)c->spec.keys, (const char *const *)c->spec.values, c->spec.n};
    rc = pm_commit_overwrite(c->c, c->spec.n ? &spec : NULL, &view, snapshot_id, err);
  } else if (!rc) {
    rc = pm_commit_append(c->c, &view, 0, snapshot_id, err);
  }
  if (auto_check) pm_commit_set_rowid_check(c->c, PM_ROWID_CHECK_OFF, 0, NULL);
  pm_api_view_free(&view);
  /* the builder's writers refresh their levels (table/write.h pm_write_signal) */
  if (rc == PAIMON_ERR_CONFLICT || c->overwrite || pm_commit_compaction_dropped(c->c)) pm_write_signal_bump(c->signal);
  done(c, rc); /* the committer ran the maintenance (table/commit.h) */
  return (paimon_status)rc;
}

paimon_status paimon_table_commit_abort(paimon_table_commit *c, const paimon_commit_messages *m, paimon_error *err) {
  CHECK_ARG(c && m, "NULL argument");
  pm_manifest_committable view;
  PM_TRY(pm_api_messages_view(m, PAIMON_BATCH_COMMIT_IDENTIFIER, &view, err));
  int rc = pm_commit_abort(c->t, &view, err);
  pm_api_view_free(&view);
  return (paimon_status)rc;
}

paimon_status paimon_table_commit_truncate_table(paimon_table_commit *c, int64_t commit_identifier,
                                                 int64_t *snapshot_id, paimon_error *err) {
  CHECK_ARG(c, "NULL argument");
  if (snapshot_id) *snapshot_id = -1;
  PM_TRY(check_batch(c, commit_identifier, err));
  int rc = pm_commit_drop_partitions(c->c, NULL, 0, commit_identifier, snapshot_id, err);
  pm_write_signal_bump(c->signal); /* the builder's writers re-read the truncated buckets */
  done(c, rc);
  return (paimon_status)rc;
}

paimon_status paimon_table_commit_truncate_partitions(paimon_table_commit *c, const paimon_option *const *specs,
                                                      const size_t *n_fields, size_t n_specs,
                                                      int64_t commit_identifier, int64_t *snapshot_id,
                                                      paimon_error *err) {
  CHECK_ARG(c && (n_specs == 0 || (specs && n_fields)), "NULL argument");
  CHECK_ARG(n_specs > 0, "no partition spec (truncate_table truncates the whole table)");
  if (snapshot_id) *snapshot_id = -1;
  PM_TRY(check_batch(c, commit_identifier, err));
  pm_api_spec *copies = calloc(n_specs, sizeof *copies);
  pm_partition_spec *ps = calloc(n_specs, sizeof *ps);
  int rc = copies && ps ? 0 : PM_NOMEM(err);
  for (size_t i = 0; !rc && i < n_specs; i++) {
    if (!n_fields[i]) rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "partition spec %zu is empty", i);
    if (!rc) rc = pm_api_spec_copy(c->t, specs[i], n_fields[i], &copies[i], err);
    if (!rc) ps[i] = (pm_partition_spec){(const char *const *)copies[i].keys, (const char *const *)copies[i].values,
                                         copies[i].n};
  }
  if (!rc) {
    rc = pm_commit_drop_partitions(c->c, ps, n_specs, commit_identifier, snapshot_id, err);
    pm_write_signal_bump(c->signal);
    done(c, rc);
  }
  for (size_t i = 0; copies && i < n_specs; i++) pm_api_spec_free(&copies[i]);
  free(copies);
  free(ps);
  return (paimon_status)rc;
}

paimon_status paimon_table_commit_filter_committed(paimon_table_commit *c, const int64_t *identifiers, size_t n,
                                                   int *committed, paimon_error *err) {
  CHECK_ARG(c && (n == 0 || (identifiers && committed)), "NULL argument");
  return (paimon_status)pm_commit_filter_committed(c->c, identifiers, n, committed, err);
}
