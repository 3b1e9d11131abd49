/* Public C API (include/paimon/branch.h): create / delete / list / fast-forward branches. */
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "meta/branch.h"

static int data_table(const paimon_table *table, const char *fn, pm_error *err) {
  if (!table || !table->t) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: NULL table", fn);
  if (table->system_table)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: '%s' is a system table (branches belong to data tables)",
                     fn, table->identifier ? table->identifier : "?");
  return 0;
}

paimon_status paimon_table_create_branch(const paimon_table *table, const char *name, const char *from_tag,
                                         int64_t snapshot_id, int ignore_if_exists, paimon_error *err) {
  PM_TRY(data_table(table, __func__, err));
  const pm_table *t = table->t;
  return (paimon_status)pm_branch_create(t->fs, t->root, t->branch, name, from_tag, from_tag ? -1 : snapshot_id,
                                         ignore_if_exists, NULL, err);
}

paimon_status paimon_table_delete_branch(const paimon_table *table, const char *name, paimon_error *err) {
  PM_TRY(data_table(table, __func__, err));
  const pm_table *t = table->t;
  const char *fb = t->co.scan_fallback_branch;
  if (fb && name && !strcmp(fb, name))
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "cannot delete branch '%s': it is the table's '%s'; unset that option first", name,
                     pm_core_option_key(PM_CO_SCAN_FALLBACK_BRANCH));
  return (paimon_status)pm_branch_delete(t->fs, t->root, name, err);
}

paimon_status paimon_table_list_branches(const paimon_table *table, char ***names, size_t *n, paimon_error *err) {
  CHECK_ARG(names && n, "NULL argument");
  *names = NULL;
  *n = 0;
  PM_TRY(data_table(table, __func__, err));
  return (paimon_status)pm_branch_list(table->t->fs, table->t->root, names, n, err);
}

paimon_status paimon_table_fast_forward(const paimon_table *table, const char *name, paimon_error *err) {
  PM_TRY(data_table(table, __func__, err));
  const pm_table *t = table->t;
  return (paimon_status)pm_branch_fast_forward(t->fs, t->root, t->branch, name, err);
}
