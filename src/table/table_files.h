/*
 * Every file the state of a table references (issue 13 §2; SEMANTICS.md 7.10):
 * the walker behind orphan file cleanup. For the main branch and every branch
 * (branch/branch-<b>/), it visits each snapshot (snapshot/snapshot-<id>), each
 * tag (tag/tag-<name>, snapshot JSON) and each long-lived changelog
 * (changelog/changelog-<id>), and for each: its manifest lists (base, delta,
 * changelog), their manifests, every data / changelog file named by a manifest
 * entry (ADD or DELETE) with its extra files, the index manifest and its index
 * files (deletion vectors, HASH), and the statistics file. Branches keep their
 * data, manifests and index files under the table root, as Java does.
 * A long-lived changelog's base / delta manifest list or index manifest that is
 * gone is skipped (snapshot expiry deletes those that the changelog does not
 * need, as Java does; Java's orphan cleanup reads them as empty). Of the
 * changelog manifest list of a snapshot or tag only what still exists is
 * reported (a tag's is walked last, after the long-lived changelogs): the expiry
 * of a tagged snapshot (or of its long-lived changelog) deletes its changelog
 * files, manifests and list as Java's does and the tag keeps naming them, and so
 * do a branch's snapshot made from an expired main snapshot and a snapshot a
 * rollback wrote back from such a tag.
 * Consumers (consumer/consumer-<id>) only pin snapshot ids: the snapshots they
 * pin are snapshot files, visited like any other, so they add no file.
 *
 * Streaming: one manifest is held in memory at a time; manifest lists,
 * manifests and index manifests are read once however many snapshots share
 * them (a set of their names is kept). Data files are reported once per
 * manifest entry (a file added and later deleted comes twice).
 *
 * Concurrent expiry: a snapshot, tag or changelog file listed but gone when
 * read is skipped, and so is the rest of it when one of its files is missing
 * while the snapshot file itself is gone by then (expired meanwhile). A missing
 * file of a snapshot that still exists, and every other read error, stops the
 * walk with an error naming the file and its snapshot: a caller deleting files
 * must then delete nothing.
 *
 * Layer: table (reads through t->fs).
 */
#ifndef PM_TABLE_TABLE_FILES_H
#define PM_TABLE_TABLE_FILES_H

#include <stddef.h>
#include <stdint.h>

#include "table/table.h"
#include "util/error.h"

typedef enum pm_table_file_kind {
  PM_TF_SNAPSHOT = 0,   /* snapshot/snapshot-<id> */
  PM_TF_TAG,            /* tag/tag-<name> */
  PM_TF_CHANGELOG_META, /* changelog/changelog-<id> */
  PM_TF_MANIFEST_LIST,  /* manifest/manifest-list-* */
  PM_TF_MANIFEST,       /* manifest/manifest-* */
  PM_TF_INDEX_MANIFEST, /* manifest/index-manifest-* */
  PM_TF_INDEX_FILE,     /* index/index-* (or in the bucket dir / external) */
  PM_TF_STATISTICS,     /* statistics/stat-* */
  PM_TF_DATA_FILE,      /* a data file of a base / delta manifest */
  PM_TF_CHANGELOG_FILE, /* a data file of a changelog manifest */
  PM_TF_EXTRA_FILE      /* an _EXTRA_FILES item (same directory as its data file) */
} pm_table_file_kind;

/* One referenced file. Every pointer is valid during the callback only. */
typedef struct pm_table_file_ref {
  pm_table_file_kind kind;
  const char *path;      /* local path (external paths resolved, rewrites applied) */
  const char *name;      /* last path component */
  int64_t size;          /* bytes as recorded in metadata, -1 unknown */
  int from_delete;       /* data / changelog / extra files: named by a DELETE entry only */
  const char *branch;    /* "main" or the branch name */
  const char *owner;     /* path of the snapshot / tag / changelog file it was reached from */
} pm_table_file_ref;

/* Returns 0 to continue; nonzero stops the walk and is returned (set err). */
typedef int (*pm_table_file_fn)(void *ctx, const pm_table_file_ref *f, pm_error *err);

/* Walks every file referenced by any snapshot, tag or changelog of any branch of
 * t (t may be opened on any branch; every branch is walked). Branches without a
 * schema file are an error (as Java's orphan cleanup refuses them). */
int pm_table_files_walk(pm_table *t, pm_table_file_fn fn, void *ctx, pm_error *err);

/* ---- a set of strings (open addressing; keys copied) ---- */
typedef struct pm_name_set {
  char **slots;
  size_t cap, n;
} pm_name_set;

void pm_name_set_init(pm_name_set *s);
void pm_name_set_clear(pm_name_set *s); /* frees every key */
/* Adds key; *added (may be NULL) = 1 when it was new. */
int pm_name_set_add(pm_name_set *s, const char *key, int *added, pm_error *err);
int pm_name_set_has(const pm_name_set *s, const char *key);

#endif
