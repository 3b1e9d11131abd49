/* Public C API: snapshot / changelog expiry and consumers (paimon/expire.h). */
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "api/api_write_internal.h"
#include "meta/consumer.h"
#include "paimon/expire.h"
#include "table/expire.h"

void paimon_expire_options_init(paimon_expire_options *o) {
  if (!o) return;
  memset(o, 0, sizeof *o);
  o->retain_max = -1;
  o->retain_min = -1;
  o->older_than_millis = -1;
  o->time_retained_millis = -1;
  o->max_deletes = -1;
  o->changelog_retain_max = -1;
  o->changelog_retain_min = -1;
  o->changelog_time_retained_millis = -1;
}

static int data_table(const paimon_table *table, const char *fn, pm_error *err) {
  if (!table || !table->t) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: NULL table", fn);
  if (table->system_table)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: '%s' is a system table (it has no snapshots of its own)",
                     fn, table->identifier ? table->identifier : "?");
  return 0;
}

/* The table's expiry options overridden by o (NULL: none). */
static int make_config(const paimon_table *table, const paimon_expire_options *o, pm_expire_config *c,
                       pm_error *err) {
  PM_TRY(pm_expire_config_from_options(table->t, c, err));
  if (!o) return 0;
  const pm_core_options *co = &table->t->co;
  if (o->older_than_millis >= 0 && o->time_retained_millis >= 0)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "older_than and time_retained are exclusive");
  c->now_ms = pm_expire_now_ms();
  if (o->retain_max >= 0) c->retain_max = o->retain_max;
  if (o->retain_min >= 0) c->retain_min = o->retain_min;
  if (o->max_deletes >= 0) c->max_deletes = o->max_deletes;
  if (o->time_retained_millis >= 0) c->time_retained_ms = o->time_retained_millis;
  if (o->older_than_millis >= 0) c->time_retained_ms = c->now_ms - o->older_than_millis; /* Java's procedure */
  /* changelog retention: explicit, else the table's, else the (overridden) snapshot retention */
  c->changelog_retain_max = o->changelog_retain_max >= 0 ? o->changelog_retain_max
                            : co->set[PM_CO_CHANGELOG_NUM_RETAINED_MAX] ? co->changelog_num_retained_max
                                                                          : c->retain_max;
  c->changelog_retain_min = o->changelog_retain_min >= 0 ? o->changelog_retain_min
                            : co->set[PM_CO_CHANGELOG_NUM_RETAINED_MIN] ? co->changelog_num_retained_min
                                                                          : c->retain_min;
  c->changelog_time_retained_ms = o->changelog_time_retained_millis >= 0 ? o->changelog_time_retained_millis
                                  : co->set[PM_CO_CHANGELOG_TIME_RETAINED] ? co->changelog_time_retained_ms
                                                                             : c->time_retained_ms;
  c->changelog_decoupled = c->changelog_retain_max > c->retain_max || c->changelog_retain_min > c->retain_min ||
                           c->changelog_time_retained_ms > c->time_retained_ms;
  c->dry_run = o->dry_run != 0;
  if (c->retain_max < c->retain_min)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "retain max (%d) must not be less than retain min (%d)",
                     (int)c->retain_max, (int)c->retain_min);
  if (c->changelog_retain_min < 1)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "changelog retain min must be at least 1, got %d",
                     (int)c->changelog_retain_min);
  if (c->changelog_retain_max < c->changelog_retain_min)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "changelog retain max (%d) must not be less than changelog retain min (%d)",
                     (int)c->changelog_retain_max, (int)c->changelog_retain_min);
  return 0;
}

static void fill_result(const paimon_table *table, const pm_expire_result *r, paimon_expire_result *out) {
  if (!out) return;
  out->snapshots_expired = (uint64_t)r->snapshots_expired;
  out->changelogs_written = (uint64_t)r->changelogs_written;
  out->changelogs_expired = (uint64_t)r->changelogs_expired;
  out->data_files_deleted = (uint64_t)r->files.data_deleted;
  out->meta_files_deleted = (uint64_t)r->files.meta_deleted;
  out->dirs_deleted = (uint64_t)r->files.dirs_deleted;
  out->files_missing = (uint64_t)r->files.missing;
  out->delete_failed = (uint64_t)r->files.failed;
  pm_snapshot_manager sm = pm_table_snapshots(table->t);
  int64_t e = 0;
  pm_error ignored = {0};
  out->earliest_snapshot = pm_snapshot_earliest_id(&sm, &e, &ignored) == 0 && e > 0 ? e : -1;
}

typedef struct progress_bridge {
  paimon_progress_fn f;
  void *ctx;
} progress_bridge;

static void on_progress(void *ctx, const char *phase, int64_t done, int64_t total) {
  progress_bridge *b = ctx;
  b->f(b->ctx, phase, done > 0 ? (uint64_t)done : 0, total > 0 ? (uint64_t)total : 0);
}

paimon_status paimon_table_expire_snapshots(const paimon_table *table, const paimon_expire_options *o,
                                            paimon_progress_fn progress, void *ctx, paimon_expire_result *out,
                                            paimon_error *err) {
  if (out) memset(out, 0, sizeof *out);
  PM_TRY(data_table(table, __func__, err));
  pm_expire_config c;
  PM_TRY(make_config(table, o, &c, err));
  pm_expire_result r;
  memset(&r, 0, sizeof r);
  progress_bridge b = {progress, ctx};
  int rc = pm_expire_snapshots(table->t, &c, progress ? on_progress : NULL, &b, &r, err);
  fill_result(table, &r, out);
  return (paimon_status)rc;
}

paimon_status paimon_table_expire_changelogs(const paimon_table *table, const paimon_expire_options *o,
                                             paimon_expire_result *out, paimon_error *err) {
  if (out) memset(out, 0, sizeof *out);
  PM_TRY(data_table(table, __func__, err));
  pm_expire_config c;
  PM_TRY(make_config(table, o, &c, err));
  pm_expire_result r;
  memset(&r, 0, sizeof r);
  int rc = pm_expire_changelogs(table->t, &c, &r, err);
  fill_result(table, &r, out);
  return (paimon_status)rc;
}

paimon_status paimon_table_commit_expire_result(const paimon_table_commit *c, paimon_expire_result *out,
                                               paimon_error *err) {
  if (out) memset(out, 0, sizeof *out);
  CHECK_ARG(c && c->c, "NULL committer");
  pm_expire_result r;
  memset(&r, 0, sizeof r);
  pm_error e = {0};
  int rc = pm_commit_expire_status(c->c, &r, &e);
  paimon_table tbl;
  memset(&tbl, 0, sizeof tbl);
  tbl.t = c->t;
  fill_result(&tbl, &r, out);
  if (rc && err) *err = e;
  return (paimon_status)rc;
}

/* ------------------------------------------------------------------ consumers */

paimon_status paimon_table_list_consumers(const paimon_table *table, paimon_consumer **out, size_t *n,
                                          paimon_error *err) {
  CHECK_ARG(out && n, "NULL argument");
  *out = NULL;
  *n = 0;
  PM_TRY(data_table(table, __func__, err));
  pm_snapshot_manager sm = pm_table_snapshots(table->t);
  pm_consumer *cs = NULL;
  size_t k = 0;
  PM_TRY(pm_consumer_list(&sm, &cs, &k, err));
  if (!k) {
    pm_consumers_free(cs, k);
    return PAIMON_OK;
  }
  paimon_consumer *v = calloc(k, sizeof *v);
  if (!v) {
    pm_consumers_free(cs, k);
    return (paimon_status)PM_NOMEM(err);
  }
  for (size_t i = 0; i < k; i++) {
    v[i].id = cs[i].id; /* moved */
    cs[i].id = NULL;
    v[i].next_snapshot = cs[i].next_snapshot;
    v[i].modified_millis = cs[i].mtime_millis;
  }
  pm_consumers_free(cs, k);
  *out = v;
  *n = k;
  return PAIMON_OK;
}

void paimon_consumers_free(paimon_consumer *c, size_t n) {
  if (!c) return;
  for (size_t i = 0; i < n; i++) free(c[i].id);
  free(c);
}

paimon_status paimon_table_reset_consumer(const paimon_table *table, const char *id, int64_t next_snapshot,
                                          paimon_error *err) {
  PM_TRY(data_table(table, __func__, err));
  CHECK_ARG(id, "NULL consumer id");
  pm_snapshot_manager sm = pm_table_snapshots(table->t);
  int exists = 0;
  PM_TRY(pm_snapshot_exists(&sm, next_snapshot, &exists, err));
  if (!exists)
    return (paimon_status)pm_errorf(err, PAIMON_ERR_NOT_FOUND, "snapshot %lld of %s doesn't exist",
                                    (long long)next_snapshot, table->t->root);
  return (paimon_status)pm_consumer_reset(&sm, id, next_snapshot, err);
}

paimon_status paimon_table_delete_consumer(const paimon_table *table, const char *id, paimon_error *err) {
  PM_TRY(data_table(table, __func__, err));
  CHECK_ARG(id, "NULL consumer id");
  pm_snapshot_manager sm = pm_table_snapshots(table->t);
  int existed = 0;
  PM_TRY(pm_consumer_delete(&sm, id, &existed, err));
  if (!existed) return (paimon_status)pm_errorf(err, PAIMON_ERR_NOT_FOUND, "consumer '%s' doesn't exist", id);
  return PAIMON_OK;
}
