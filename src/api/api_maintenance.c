/* Public C API: partition expiry and manifest compaction (paimon/maintenance.h). */
#include "api/api_internal.h"
#include "api/api_write_internal.h"
#include "meta/core_options.h"
#include "paimon/maintenance.h"
#include "table/commit.h"
#include "table/manifest_compact.h"
#include "table/partition_expire.h"
#include "util/random.h"

/* The procedure's arguments as dynamic options (Java's ProcedureUtils.fillInPartitionOptions:
 * the check interval is 0 for a dedicated run). */
static int expire_options(const paimon_expire_partitions_options *o, pm_options *dyn, pm_error *err) {
  pm_options_init(dyn);
  char num[32];
  int rc = pm_options_set(dyn, pm_core_option_key(PM_CO_PARTITION_EXPIRATION_CHECK_INTERVAL), "0", err);
  if (!rc && o && o->expiration_time && *o->expiration_time)
    rc = pm_options_set(dyn, pm_core_option_key(PM_CO_PARTITION_EXPIRATION_TIME), o->expiration_time, err);
  if (!rc && o && o->timestamp_formatter && *o->timestamp_formatter)
    rc = pm_options_set(dyn, pm_core_option_key(PM_CO_PARTITION_TIMESTAMP_FORMATTER), o->timestamp_formatter, err);
  if (!rc && o && o->timestamp_pattern && *o->timestamp_pattern)
    rc = pm_options_set(dyn, pm_core_option_key(PM_CO_PARTITION_TIMESTAMP_PATTERN), o->timestamp_pattern, err);
  if (!rc && o && o->expire_strategy && *o->expire_strategy)
    rc = pm_options_set(dyn, pm_core_option_key(PM_CO_PARTITION_EXPIRATION_STRATEGY), o->expire_strategy, err);
  if (!rc && o && o->max_expires < 0)
    rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "max_expires %d is negative", (int)o->max_expires);
  if (!rc && o && o->max_expires > 0) {
    snprintf(num, sizeof num, "%d", (int)o->max_expires);
    rc = pm_options_set(dyn, pm_core_option_key(PM_CO_PARTITION_EXPIRATION_MAX_NUM), num, err);
  }
  if (rc) pm_options_clear(dyn);
  return rc;
}

paimon_status paimon_table_expire_partitions(const paimon_table *table, const paimon_expire_partitions_options *opts,
                                             paimon_partition_fn on_partition, void *ctx,
                                             paimon_expire_partitions_result *out, paimon_error *err) {
  if (out) {
    memset(out, 0, sizeof *out);
    out->snapshot_id = -1;
  }
  CHECK_ARG(table && table->t, "NULL table");
  CHECK_ARG(!table->system_table, "a system table has no partitions of its own");
  pm_options dyn;
  PM_TRY(expire_options(opts, &dyn, err));
  pm_table *t = NULL;
  int rc = pm_table_reopen(table->t, table->t->branch, &dyn, &t, err);
  pm_options_clear(&dyn);
  if (rc) return (paimon_status)rc;
  pm_pexpire_config c;
  rc = pm_pexpire_config_from_table(t, &c, err);
  if (!rc && !t->n_partition_keys)
    rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "table %s.%s is not partitioned: no partition to expire",
                   t->database, t->name);
  if (!rc && !c.enabled)
    rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "no expiration time: give one or set table option '%s'",
                   pm_core_option_key(PM_CO_PARTITION_EXPIRATION_TIME));
  pm_commit *commit = NULL;
  /* Java's procedure commits as user "", which our committer refuses: a random one, as a batch
   * write builder makes (with commit.user-prefix) */
  char uuid[PM_UUID_TEXT_SIZE], user[PM_UUID_TEXT_SIZE + 256];
  pm_uuid_random(uuid);
  const char *prefix = t->co.commit_user_prefix;
  snprintf(user, sizeof user, "%.200s%s%s", prefix ? prefix : "", prefix ? "_" : "", uuid);
  if (!rc && !(opts && opts->dry_run)) rc = pm_commit_open(t, user, 0, &commit, err);
  pm_pexpired_list l;
  memset(&l, 0, sizeof l);
  int64_t sid = -1;
  if (!rc)
    rc = pm_partition_expire_run(t, commit, &c, 0, PM_BATCH_COMMIT_IDENTIFIER, opts && opts->dry_run, &l, &sid, err);
  if (out) {
    out->expired = l.n;
    out->partitions = l.candidates;
    out->snapshot_id = sid;
  }
  for (size_t i = 0; !rc && on_partition && i < l.n; i++) on_partition(ctx, l.items[i].spec);
  pm_pexpired_list_clear(&l);
  pm_commit_free(commit);
  pm_table_free(t);
  return (paimon_status)rc;
}

paimon_status paimon_table_commit_maintenance_status(const paimon_table_commit *c, paimon_error *err) {
  if (!c || !c->c) return PAIMON_OK;
  pm_error e = {0};
  int rc = pm_commit_maintenance_status(c->c, &e);
  if (rc && err) *err = e;
  return (paimon_status)rc;
}

paimon_status paimon_table_compact_manifests(const paimon_table *table, paimon_compact_manifests_result *out,
                                             paimon_error *err) {
  if (out) {
    memset(out, 0, sizeof *out);
    out->snapshot_id = -1;
  }
  CHECK_ARG(table && table->t, "NULL table");
  CHECK_ARG(!table->system_table, "a system table has no manifests of its own");
  pm_manifest_compact_result r;
  int rc = pm_manifest_compact(table->t, &r, err);
  if (out) {
    out->manifests_before = r.manifests_before;
    out->manifests_after = r.manifests_after;
    out->snapshot_id = r.snapshot_id;
  }
  return (paimon_status)rc;
}
