/* Write builder (write.h): the table with its write options, the commit user, the overwrite spec. */
#include "api/api_write_internal.h"
#include "util/random.h"

paimon_status paimon_write_builder_new(const paimon_table *table, int streaming, const paimon_option *dynamic_options,
                                       size_t n_options, paimon_write_builder **out, paimon_error *err) {
  CHECK_ARG(table && out, "NULL argument");
  *out = NULL;
  CHECK_ARG(!table->system_table, "a system table cannot be written");
  pm_options dyn;
  PM_TRY(pm_api_to_options(dynamic_options, n_options, &dyn, err));
  paimon_write_builder *wb = calloc(1, sizeof *wb);
  int rc = wb ? 0 : PM_NOMEM(err);
  if (!rc) {
    wb->table = table;
    wb->streaming = streaming ? 1 : 0;
    rc = pm_table_reopen(table->t, NULL, &dyn, &wb->t, err);
  }
  if (!rc && !(wb->signal = pm_write_signal_new())) rc = PM_NOMEM(err);
  pm_options_clear(&dyn);
  if (!rc) rc = pm_table_options_ok(wb->t, err);
  if (!rc) {
    /* Java's CoreOptions.createCommitUser: a random UUID, "<prefix>_<uuid>" with commit.user-prefix. */
    char uuid[PM_UUID_TEXT_SIZE];
    pm_uuid_random(uuid);
    const char *prefix = wb->t->co.commit_user_prefix;
    size_t len = (prefix ? strlen(prefix) + 1 : 0) + sizeof uuid;
    wb->commit_user = malloc(len);
    if (!wb->commit_user) rc = PM_NOMEM(err);
    else snprintf(wb->commit_user, len, "%s%s%s", prefix ? prefix : "", prefix ? "_" : "", uuid);
  }
  if (rc) {
    paimon_write_builder_free(wb);
    return (paimon_status)rc;
  }
  *out = wb;
  return PAIMON_OK;
}

void paimon_write_builder_free(paimon_write_builder *wb) {
  if (!wb) return;
  pm_table_free(wb->t);
  pm_table_free(wb->t_static);
  pm_write_signal_release(wb->signal);
  free(wb->commit_user);
  pm_api_spec_free(&wb->spec);
  pm_api_spec_free(&wb->into);
  free(wb);
}

const char *paimon_write_builder_commit_user(const paimon_write_builder *wb) { return wb ? wb->commit_user : NULL; }

paimon_status paimon_write_builder_with_commit_user(paimon_write_builder *wb, const char *commit_user,
                                                    paimon_error *err) {
  CHECK_ARG(wb && commit_user && *commit_user, "NULL argument or empty commit user");
  char *u = pm_strdup(commit_user);
  if (!u) return (paimon_status)PM_NOMEM(err);
  free(wb->commit_user);
  wb->commit_user = u;
  return PAIMON_OK;
}

paimon_status paimon_write_builder_with_overwrite(paimon_write_builder *wb, const paimon_option *partition_spec,
                                                  size_t n, paimon_error *err) {
  CHECK_ARG(wb, "NULL argument");
  pm_api_spec s;
  PM_TRY(pm_api_spec_copy(wb->t, partition_spec, n, &s, err));
  /* A static spec is exactly the partition replaced (and every row must fall inside it), whatever
   * dynamic-partition-overwrite says: that option is for overwrites without a spec. */
  if (n && !wb->t_static) {
    pm_options o;
    pm_options_init(&o);
    int rc = pm_options_set(&o, pm_core_option_key(PM_CO_DYNAMIC_PARTITION_OVERWRITE), "false", err);
    if (!rc) rc = pm_table_reopen(wb->t, NULL, &o, &wb->t_static, err);
    pm_options_clear(&o);
    if (rc) {
      pm_api_spec_free(&s);
      return (paimon_status)rc;
    }
  }
  pm_api_spec_free(&wb->spec);
  wb->spec = s;
  wb->overwrite = 1;
  return PAIMON_OK;
}

PAIMON_EXPORT paimon_status paimon_write_builder_with_partition(paimon_write_builder *wb,
                                                                const paimon_option *partition_spec, size_t n,
                                                                paimon_error *err) {
  CHECK_ARG(wb && (partition_spec || !n), "NULL argument");
  pm_api_spec s;
  PM_TRY(pm_api_spec_copy(wb->t, partition_spec, n, &s, err));
  pm_api_spec_free(&wb->into);
  wb->into = s;
  return PAIMON_OK;
}
