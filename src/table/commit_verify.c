/* The committer's checks that a file system which reported a write done really
 * did it (commit_internal.h "verification"): a dropped write, a publication that
 * never became visible or a hint that was not replaced must not turn into a
 * commit that returns OK while its snapshot references a missing or short file. */
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "table/commit_internal.h"

int pm_commit_verify_sizes(pm_fs *fs, char *const *paths, const int64_t *sizes, size_t n, int *lost,
                           pm_error *err) {
  *lost = 0;
  for (size_t i = 0; i < n; i++) {
    if (sizes[i] < 0) continue;
    pm_file_stat st;
    pm_error e = {0};
    int rc = pm_fs_stat(fs, paths[i], &st, &e);
    if (rc == PAIMON_ERR_NOT_FOUND) {
      *lost = 1;
      return pm_errorf(err, PAIMON_ERR_IO, "%s: the file system reported it written (%" PRId64 " bytes), but it "
                       "is not there; not published", paths[i], sizes[i]);
    }
    if (rc) {
      *err = e;
      return rc;
    }
    if (st.size != (uint64_t)sizes[i]) {
      *lost = 1;
      return pm_errorf(err, PAIMON_ERR_IO, "%s: the file system reported %" PRId64 " bytes written, but the file "
                       "has %" PRIu64 "; not published", paths[i], sizes[i], st.size);
    }
  }
  return 0;
}

int pm_commit_check_published(pm_commit *c, const char *path, int64_t id, const void *ours, size_t len,
                              pm_error *err) {
  pm_fs *fs = c->t->fs;
  pm_buf got;
  pm_buf_init(&got);
  pm_error e = {0};
  int outcome = PM_PUB_UNCERTAIN;
  int rc = pm_fs_read_file(fs, path, &got, 0, &e);
  if (rc == PAIMON_ERR_NOT_FOUND) {
    outcome = PM_PUB_UNSEEN;
    pm_errorf(err, PAIMON_ERR_UNKNOWN_OUTCOME, "%s: the file system reported snapshot %" PRId64 " created, but "
              "reading it back does not find it (it may still appear)", path, id);
  } else if (rc) {
    *err = e;
    pm_error_prefix(err, "snapshot %" PRId64 ": reading it back after publishing", id);
  } else if (got.len == len && (!len || !memcmp(got.data, ours, len))) {
    outcome = PM_PUB_OK;
  } else {
    json_error_t je;
    json_t *other = json_loadb((const char *)got.data, got.len, 0, &je);
    if (other) {
      /* a JSON document that is not ours (whatever our parser makes of it) under a name
       * the file system said we created: its create-if-absent is not what it claims, so
       * ours may still replace it; never touched */
      json_t *user = json_object_get(other, "commitUser");
      outcome = PM_PUB_UNSEEN;
      pm_errorf(err, PAIMON_ERR_UNKNOWN_OUTCOME, "%s: the file system reported snapshot %" PRId64 " created, but "
                "reading it back finds another commit's (user %s)", path, id,
                json_is_string(user) ? json_string_value(user) : "?");
      json_decref(other);
    } else {
      /* Not every byte we wrote arrived: not even JSON, which no committer writes, under a
       * name the file system said we created. Removing it restores the table as it was; only
       * when that is certain is the attempt a clean failure. */
      pm_error de = {0};
      int exists = 1;
      int drc = pm_fs_delete(fs, path, &de);
      if ((!drc || drc == PAIMON_ERR_NOT_FOUND) && !pm_fs_exists(fs, path, &exists, &de) && !exists) {
        outcome = PM_PUB_LOST;
        pm_errorf(err, PAIMON_ERR_IO, "%s: the file system lost bytes of snapshot %" PRId64 " (%zu of %zu arrived); "
                  "the damaged file was removed", path, id, got.len, len);
      } else {
        pm_errorf(err, PAIMON_ERR_IO, "%s: the file system lost bytes of snapshot %" PRId64 " (%zu of %zu arrived) "
                  "and the damaged file could not be removed: %s", path, id, got.len, len,
                  drc ? de.message : "it is still there");
      }
    }
  }
  pm_buf_free(&got);
  return outcome;
}

int pm_commit_hint_reads(pm_fs *fs, const char *path, int64_t id, int or_newer) {
  pm_buf b;
  pm_buf_init(&b);
  pm_error e = {0};
  int ok = 0;
  if (!pm_fs_read_file(fs, path, &b, 64, &e) && b.len > 0) {
    char *end = NULL;
    long long v = strtoll((const char *)b.data, &end, 10);
    ok = end == (const char *)b.data + b.len && (v == id || (or_newer && v > id));
  }
  pm_buf_free(&b);
  return ok;
}
