/*
 * Deletion vectors of primary-key table buckets on the write side
 * (SEMANTICS 8.1-8.3; Java: BucketedDvMaintainer.Factory, CompactDeletionFile,
 * AbstractFileStoreWrite.prepareCommit): a bucket's DV maintainer restored
 * from a snapshot's index manifest (its DELETION_VECTORS entries of that
 * partition and bucket), and the bucket's new DV index file written when its
 * vectors changed: `index-<uuid>-<n>` in <table>/index (or the bucket
 * directory with index-file-in-data-file-dir), handed out as the commit
 * message's compact increment new index file. As Java, the previous DV
 * index file of the bucket is not listed as deleted: the committer's index
 * manifest combination replaces the bucket's DV entry (manifest.h
 * pm_index_manifest_combine), snapshot expiration deletes the old file.
 */
#ifndef PM_TABLE_KV_DV_H
#define PM_TABLE_KV_DV_H

#include "meta/deletion_vector_write.h"
#include "meta/path_factory.h"
#include "meta/snapshot.h"
#include "table/table.h"

/* The index entries of snapshot snap (NULL or without index manifest: none). *out initialised here. */
int pm_kv_dv_index_entries(pm_table *t, const pm_snapshot *snap, pm_index_entries *out, pm_error *err);

/* The maintainer of (partition, bucket) from index entries idx (NULL: empty);
 * bucket_dir locates index files kept in data directories.
 * New vectors use deletion-vectors.bitmap64. */
int pm_kv_dv_restore(pm_table *t, const pm_index_entries *idx, pm_bytes partition, int32_t bucket,
                     const char *bucket_dir, pm_dv_maintainer **out, pm_error *err);

/* Writes the bucket's new DV index file when m changed (*written = 1, meta
 * filled with strings in arena; the file name comes from pf). Nothing when
 * unchanged (*written = 0). On failure nothing is left behind. */
int pm_kv_dv_write(pm_table *t, pm_dv_maintainer *m, pm_path_factory *pf, const char *bucket_dir, pm_arena *arena,
                   pm_index_file_meta *meta, int *written, pm_error *err);

#endif
