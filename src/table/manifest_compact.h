/*
 * Manifest compaction on request (issue 13 §1; Java's compact_manifest procedure,
 * FileStoreCommitImpl.compactManifest): the data manifests of the latest snapshot
 * (base + delta list) are merged as ManifestFileMerger's full compaction
 * (manifest.merge-min-count 1, full-compaction threshold 1 byte: every manifest
 * smaller than manifest.target-file-size or holding DELETE entries is rewritten,
 * DELETE entries cancelled with their ADDs wherever those live) and committed as one
 * COMPACT snapshot with that base list, an empty delta list, no changelog and no data
 * change (same index manifest, statistics, record count, watermark). A merge that
 * changes nothing commits nothing. Commit user "Compact-Manifest-Procedure-Committer_<uuid>"
 * (commit.user-prefix of Java's procedure), identifier Long.MAX_VALUE; retries and
 * crash-safety are the committer's (table/commit.h).
 *
 * Layer: table.
 */
#ifndef PM_TABLE_MANIFEST_COMPACT_H
#define PM_TABLE_MANIFEST_COMPACT_H

#include <stddef.h>
#include <stdint.h>

#include "table/table.h"
#include "util/error.h"

typedef struct pm_manifest_compact_result {
  size_t manifests_before, manifests_after; /* data manifests of the latest snapshot / of the result */
  int64_t snapshot_id;                      /* the COMPACT snapshot, -1 when nothing was committed */
} pm_manifest_compact_result;

int pm_manifest_compact(pm_table *t, pm_manifest_compact_result *r, pm_error *err);

#endif
