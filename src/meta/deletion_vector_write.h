/*
 * Writing deletion vectors (SEMANTICS 8.1-8.2, FORMAT.md 7.3): the deletion
 * vectors of one bucket as Java's BucketedDvMaintainer keeps them (a map
 * data file name -> DV restored from the bucket's DV index files), changed by
 * new deletions / removals, and written as ONE new DV index file holding all
 * of the bucket's DVs (the committer's index manifest then replaces the
 * bucket's previous DV entry, manifest.h pm_index_manifest_combine).
 *
 * Order of the DVs in a written file: the iteration order of Java's
 * HashMap<String, DeletionVector> after the same operations (java_hashmap.h:
 * restore = per file a new map filled in dvRanges order, putAll into a new
 * map, copied; deletions = computeIfAbsent; removals = remove), so a file
 * Java would write from the same history has the same bytes. Known gap:
 * HashMap's treeify-resize (8+ names in one bin of a table < 64) is not
 * modelled.
 *
 * Ownership: a maintainer owns its vectors; pm_dv_maintainer_get borrows.
 */
#ifndef PM_META_DELETION_VECTOR_WRITE_H
#define PM_META_DELETION_VECTOR_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "io/fs.h"
#include "meta/arena.h"
#include "meta/deletion_vector.h"
#include "meta/manifest.h"
#include "util/buf.h"
#include "util/error.h"

typedef struct pm_dv_maintainer pm_dv_maintainer;

/* An empty maintainer; bitmap64 (deletion-vectors.bitmap64) for new vectors. */
int pm_dv_maintainer_new(int bitmap64, pm_dv_maintainer **out, pm_error *err);
/* Restores from the bucket's DV index files: files[i] (IndexFileMeta with dv
 * ranges) stored at paths[i]. A data file named twice keeps the later DV. */
int pm_dv_maintainer_restore(pm_fs *fs, const pm_index_file_meta *files, const char *const *paths, size_t n,
                             int bitmap64, pm_dv_maintainer **out, pm_error *err);
void pm_dv_maintainer_free(pm_dv_maintainer *m); /* NULL ok */

/* Marks row `position` of data_file deleted (notifyNewDeletion); the
 * maintainer is modified only when the position was not deleted yet. */
int pm_dv_maintainer_delete(pm_dv_maintainer *m, const char *data_file, int64_t position, pm_error *err);
/* Drops data_file's vector (removeDeletionVectorOf, e.g. a compacted-away file). */
void pm_dv_maintainer_remove(pm_dv_maintainer *m, const char *data_file);
/* data_file's vector or NULL (borrowed until the next change). */
const pm_deletion_vector *pm_dv_maintainer_get(const pm_dv_maintainer *m, const char *data_file);
size_t pm_dv_maintainer_count(const pm_dv_maintainer *m);
int pm_dv_maintainer_modified(const pm_dv_maintainer *m);

/* The DV index file of all current vectors in Java's order: its bytes
 * appended to image, meta filled (strings in arena; file name copied). */
int pm_dv_maintainer_encode(const pm_dv_maintainer *m, const char *file_name, pm_buf *image, pm_arena *arena,
                            pm_index_file_meta *meta, pm_error *err);

/* writeDeletionVectorsIndex: when modified, writes the index file `path`
 * (file name = its last component) through fs, visible only when complete,
 * fills meta and clears the modified flag; *written = 1. Unmodified:
 * *written = 0 and nothing is written. On failure nothing is left at path
 * and the maintainer stays modified. */
int pm_dv_maintainer_write(pm_dv_maintainer *m, pm_fs *fs, const char *path, pm_arena *arena,
                           pm_index_file_meta *meta, int *written, pm_error *err);

#endif
