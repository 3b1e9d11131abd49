/* Manifest compaction on request (manifest_compact.h). */
#include "table/manifest_compact.h"

#include <stdio.h>
#include <string.h>

#include "util/random.h"
#include "table/commit_internal.h"

#define COMPACT_MANIFEST_USER "Compact-Manifest-Procedure-Committer" /* Java's procedure */

static int provide_nothing(void *ctx, pm_commit *c, const pm_snapshot *latest, pm_commit_changes *out,
                           pm_error *err) {
  (void)ctx;
  (void)c;
  (void)latest;
  (void)out;
  (void)err;
  return 0;
}

int pm_manifest_compact(pm_table *t, pm_manifest_compact_result *r, pm_error *err) {
  memset(r, 0, sizeof *r);
  r->snapshot_id = -1;
  char uuid[PM_UUID_TEXT_SIZE], user[sizeof COMPACT_MANIFEST_USER + PM_UUID_TEXT_SIZE + 1];
  pm_uuid_random(uuid);
  snprintf(user, sizeof user, "%s_%s", COMPACT_MANIFEST_USER, uuid);
  pm_commit *c = NULL;
  PM_TRY(pm_commit_open(t, user, 0, &c, err));
  c->manifests_full = 1;
  pm_commit_provider p = {provide_nothing, NULL};
  int64_t sid = -1;
  int rc = pm_commit_try(c, &p, PM_BATCH_COMMIT_IDENTIFIER, NULL, "COMPACT", 0, &sid, err);
  r->manifests_before = c->manifests_before;
  r->manifests_after = c->manifests_noop ? c->manifests_before : c->manifests_after;
  if (!rc) r->snapshot_id = sid;
  pm_commit_free(c);
  return rc;
}
