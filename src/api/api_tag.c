/* Public C API (include/paimon/tag.h): create / delete / rename / list / get tags. */
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "meta/core_options.h"
#include "meta/tag.h"
#include "table/expire.h"
#include "table/rollback.h"

static int tag_manager(const paimon_table *table, const char *fn, pm_snapshot_manager *m, pm_error *err) {
  if (!table || !table->t) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: NULL table", fn);
  if (table->system_table)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: '%s' is a system table (tags belong to data tables)", fn,
                     table->identifier ? table->identifier : "?");
  *m = pm_snapshot_manager_of(table->t->fs, table->t->root, table->t->branch);
  return 0;
}

paimon_status paimon_table_create_tag(const paimon_table *table, const char *name, int64_t snapshot_id,
                                      const char *time_retained, int ignore_if_exists, paimon_error *err) {
  pm_snapshot_manager m;
  PM_TRY(tag_manager(table, __func__, &m, err));
  int64_t ms = -1;
  const char *key = "time_retained";
  if (!time_retained) {
    key = pm_core_option_key(PM_CO_TAG_DEFAULT_TIME_RETAINED);
    time_retained = pm_options_get(&table->t->options, key);
  }
  if (time_retained) PM_TRY(pm_parse_duration_ms(key, time_retained, &ms, err));
  return (paimon_status)pm_tag_create(&m, name, snapshot_id, ms, ignore_if_exists, NULL, err);
}

paimon_status paimon_table_delete_tag(const paimon_table *table, const char *name, paimon_error *err) {
  pm_snapshot_manager m;
  PM_TRY(tag_manager(table, __func__, &m, err));
  PM_TRY(pm_tag_validate_name(name, "tag name", err));
  int rc = pm_tag_delete_clean(table->t, name, NULL, err);
  if (rc == PAIMON_ERR_NOT_FOUND) {
    pm_error_clear(err);
    rc = pm_errorf(err, PAIMON_ERR_NOT_FOUND, "tag '%s' doesn't exist", name);
  }
  return (paimon_status)rc;
}

paimon_status paimon_table_rename_tag(const paimon_table *table, const char *from, const char *to,
                                      paimon_error *err) {
  pm_snapshot_manager m;
  PM_TRY(tag_manager(table, __func__, &m, err));
  return (paimon_status)pm_tag_rename(&m, from, to, err);
}

paimon_status paimon_table_list_tags(const paimon_table *table, char ***names, size_t *n, paimon_error *err) {
  CHECK_ARG(names && n, "NULL argument");
  *names = NULL;
  *n = 0;
  pm_snapshot_manager m;
  PM_TRY(tag_manager(table, __func__, &m, err));
  return (paimon_status)pm_tag_list(&m, names, n, err);
}

paimon_status paimon_table_get_tag(const paimon_table *table, const char *name, int64_t *snapshot_id, char **json,
                                   paimon_error *err) {
  if (json) *json = NULL;
  pm_snapshot_manager m;
  PM_TRY(tag_manager(table, __func__, &m, err));
  PM_TRY(pm_tag_validate_name(name, "tag name", err));
  pm_snapshot *s = NULL;
  int rc = pm_tag_read(&m, name, &s, err);
  if (rc == PAIMON_ERR_NOT_FOUND) {
    pm_error_clear(err);
    rc = pm_errorf(err, PAIMON_ERR_NOT_FOUND, "tag '%s' doesn't exist", name);
  }
  if (!rc && snapshot_id) *snapshot_id = s->id;
  if (!rc && json) {
    char *path = pm_tag_path(&m, name);
    pm_buf b;
    pm_buf_init(&b);
    rc = path ? pm_fs_read_file(m.fs, path, &b, 0, err) : PM_NOMEM(err);
    if (!rc) {
      *json = strdup(b.data ? (const char *)b.data : "");
      if (!*json) rc = PM_NOMEM(err);
    }
    pm_buf_free(&b);
    free(path);
  }
  pm_snapshot_free(s);
  return (paimon_status)rc;
}

paimon_status paimon_table_rollback_to_snapshot(const paimon_table *table, int64_t snapshot_id, paimon_error *err) {
  pm_snapshot_manager m;
  PM_TRY(tag_manager(table, __func__, &m, err));
  return (paimon_status)pm_rollback_to_snapshot(&m, snapshot_id, err);
}

paimon_status paimon_table_rollback_to_tag(const paimon_table *table, const char *name, paimon_error *err) {
  pm_snapshot_manager m;
  PM_TRY(tag_manager(table, __func__, &m, err));
  return (paimon_status)pm_rollback_to_tag(&m, name, err);
}

paimon_status paimon_table_rollback_to_timestamp(const paimon_table *table, int64_t ts_millis, paimon_error *err) {
  pm_snapshot_manager m;
  PM_TRY(tag_manager(table, __func__, &m, err));
  return (paimon_status)pm_rollback_to_timestamp(&m, ts_millis, err);
}
