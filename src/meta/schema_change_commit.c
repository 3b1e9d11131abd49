/* ALTER TABLE publication: schema-<latest+1> by create-if-absent, Java's retry on a lost race. */
#include <stdlib.h>

#include "meta/schema_change.h"
#include "meta/snapshot.h"

int pm_schema_commit_changes(const pm_schema_manager *m, const char *table_name, const pm_schema_change *changes,
                             size_t n, int max_attempts, pm_table_schema **out, pm_error *err) {
  if (out) *out = NULL;
  if (max_attempts <= 0) max_attempts = PM_SCHEMA_COMMIT_ATTEMPTS;
  pm_snapshot_manager sm = pm_snapshot_manager_of(m->fs, m->table_root, m->branch);
  int64_t snap = 0;
  PM_TRY(pm_snapshot_latest_id(&sm, &snap, err));
  for (int attempt = 0;; attempt++) {
    pm_table_schema *old = NULL, *next = NULL;
    int rc = pm_schema_read_latest(m, &old, err);
    if (rc == PAIMON_ERR_NOT_FOUND)
      return pm_errorf(err, PAIMON_ERR_NOT_FOUND, "table %s does not exist (no schema under %s)",
                       table_name ? table_name : m->table_root, m->table_root);
    if (rc) return rc;
    pm_schema_change_ctx ctx = {table_name, snap > 0, 0};
    rc = pm_schema_apply_changes(old, changes, n, &ctx, &next, err);
    pm_schema_free(old);
    if (rc) return rc;
    rc = pm_schema_write(m, next, err);
    if (rc == 0) {
      if (out) *out = next;
      else pm_schema_free(next);
      return 0;
    }
    int64_t id = next->id;
    pm_schema_free(next);
    if (rc != PAIMON_ERR_CONFLICT) return rc;
    if (attempt + 1 >= max_attempts)
      return pm_errorf(err, PAIMON_ERR_CONFLICT,
                       "alter %s: schema-%lld was written by a concurrent change (%d attempt%s); nothing written",
                       table_name ? table_name : m->table_root, (long long)id, attempt + 1, attempt ? "s" : "");
    pm_error_clear(err);
  }
}
