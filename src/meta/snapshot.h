/*
 * Snapshot files `snapshot/snapshot-<id>` (FORMAT.md 3), their LATEST /
 * EARLIEST hints, tags `tag/tag-<name>` (3.5) and snapshot lookup.
 *
 * Where: a pm_snapshot_manager value {fs, table root, branch} (as Java's
 * SnapshotManager and TagManager); branch NULL/""/"main" = main branch.
 * Every file is read and written through fs.
 */
#ifndef PM_META_SNAPSHOT_H
#define PM_META_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "meta/schema.h"
#include "util/buf.h"
#include "util/error.h"

#define PM_BATCH_COMMIT_IDENTIFIER INT64_MAX /* 9223372036854775807 */

/* Optional numeric keys carry a has_ flag (0 = key absent or JSON null).
 * Optional strings are NULL when absent. All strings are owned. */
typedef struct pm_snapshot {
  int32_t version;   /* "version" (3); missing ⇒ 1 */
  char *uuid;        /* "uuid" */
  int64_t id;        /* "id" */
  int64_t schema_id; /* "schemaId" */
  char *base_manifest_list;
  int64_t base_manifest_list_size;
  int has_base_manifest_list_size;
  char *delta_manifest_list;
  int64_t delta_manifest_list_size;
  int has_delta_manifest_list_size;
  char *changelog_manifest_list;
  int64_t changelog_manifest_list_size;
  int has_changelog_manifest_list_size;
  char *index_manifest;
  char *commit_user;
  char *writer_version;
  int64_t commit_identifier;
  char *commit_kind; /* "APPEND", "COMPACT", "OVERWRITE", "ANALYZE" */
  int64_t time_millis;
  int64_t total_record_count;
  int has_total_record_count;
  int64_t delta_record_count;
  int has_delta_record_count;
  int64_t changelog_record_count;
  int has_changelog_record_count;
  int64_t watermark;
  int has_watermark;
  char *statistics;
  pm_options properties; /* empty when absent */
  int64_t next_row_id;
  int has_next_row_id;
  char *operation;
  /* Tag files only (3.5): raw JSON text of "tagCreateTime" (a Jackson
   * LocalDateTime array) and "tagTimeRetained" (decimal seconds), NULL when absent. */
  char *tag_create_time_json;
  char *tag_time_retained_json;
  /* Written by some Java versions after nextRowId (table-wide totals). */
  int64_t total_file_size;
  int has_total_file_size;
  int64_t total_data_files;
  int has_total_data_files;
} pm_snapshot;

/* Parses snapshot (or tag / long-lived changelog) JSON. *out owned: pm_snapshot_free. */
int pm_snapshot_parse(const char *json, size_t len, const char *path, pm_snapshot **out, pm_error *err);
/* Serializes like Java master (Jackson pretty printer, key order of FORMAT.md 3.1,
 * absent keys omitted; tag fields appended when set). Appends to out. */
int pm_snapshot_to_json(const pm_snapshot *s, pm_buf *out, pm_error *err);
void pm_snapshot_free(pm_snapshot *s); /* NULL ok */
int pm_snapshot_copy(const pm_snapshot *src, pm_snapshot **out, pm_error *err);
/* A zeroed snapshot with version 3 (caller fills it). */
int pm_snapshot_new(pm_snapshot **out, pm_error *err);

/* The snapshot, hint and tag files of one branch of a table. A small value: every pointer is
 * borrowed (must outlive the uses); build one with pm_snapshot_manager_of. */
typedef struct pm_snapshot_manager {
  pm_fs *fs;
  const char *table_root;
  const char *branch; /* NULL / "" / "main" = main */
} pm_snapshot_manager;

static inline pm_snapshot_manager pm_snapshot_manager_of(pm_fs *fs, const char *table_root, const char *branch) {
  pm_snapshot_manager m = {fs, table_root, branch};
  return m;
}

/* <branch dir>/snapshot/snapshot-<id>, malloc'd. */
char *pm_snapshot_path(const pm_snapshot_manager *m, int64_t id);
/* Reads one snapshot. Missing ⇒ PAIMON_ERR_NOT_FOUND. */
int pm_snapshot_read(const pm_snapshot_manager *m, int64_t id, pm_snapshot **out, pm_error *err);
/* 1 when snapshot-<id> exists (an I/O error other than "not found" is returned). */
int pm_snapshot_exists(const pm_snapshot_manager *m, int64_t id, int *exists, pm_error *err);
/* Sorted ids of all `snapshot-<digits>` files (*ids malloc'd, free()). Missing dir ⇒ 0 ids. */
int pm_snapshot_list_ids(const pm_snapshot_manager *m, int64_t **ids, size_t *n, pm_error *err);
/* Latest / earliest id via the hints, falling back to listing (3.3).
 * *id = 0 when the table has no snapshot (returns 0). */
int pm_snapshot_latest_id(const pm_snapshot_manager *m, int64_t *id, pm_error *err);
int pm_snapshot_earliest_id(const pm_snapshot_manager *m, int64_t *id, pm_error *err);
/* Latest snapshot; *out = NULL (return 0) when there is none. */
int pm_snapshot_read_latest(const pm_snapshot_manager *m, pm_snapshot **out, pm_error *err);
/* Latest snapshot whose timeMillis <= ts (Java earlierOrEqualTimeMills);
 * *out = NULL (return 0) when none qualifies. */
int pm_snapshot_read_at_or_before(const pm_snapshot_manager *m, int64_t ts_millis, pm_snapshot **out,
                                  pm_error *err);

/* The latest snapshot as a scan picks it (Java trusts snapshot/LATEST when the snapshot after
 * it does not exist): a hint naming a snapshot that is missing, while the next one is missing
 * too, is a damaged table, PAIMON_ERR_NOT_FOUND naming both files (never a silent older read);
 * so is a LATEST that exists but cannot be read (the I/O error, naming it).
 * *out = NULL (return 0) when the table has no snapshot. */
int pm_snapshot_read_latest_checked(const pm_snapshot_manager *m, pm_snapshot **out, pm_error *err);
/* The earliest snapshot whose watermark >= wm (Java laterOrEqualWatermark); *out = NULL when none. */
int pm_snapshot_read_by_watermark(const pm_snapshot_manager *m, int64_t wm, pm_snapshot **out, pm_error *err);
/* The latest snapshot whose commitKind is kind (e.g. "COMPACT"); *out = NULL when none. */
int pm_snapshot_read_latest_of_kind(const pm_snapshot_manager *m, const char *kind, pm_snapshot **out,
                                    pm_error *err);

/* Atomically creates snapshot-<s->id> (create-if-absent: PAIMON_ERR_CONFLICT
 * when it exists), then best-effort rewrites LATEST (and EARLIEST when missing). */
int pm_snapshot_commit(const pm_snapshot_manager *m, const pm_snapshot *s, pm_error *err);
/* Overwrites snapshot/LATEST or snapshot/EARLIEST (name = "LATEST"/"EARLIEST") with the decimal id. */
int pm_snapshot_write_hint(const pm_snapshot_manager *m, const char *name, int64_t id, pm_error *err);

/* ---- tags ---- */
/* <branch dir>/tag/tag-<name>, malloc'd. */
char *pm_tag_path(const pm_snapshot_manager *m, const char *tag);
/* Reads a tag as a snapshot (tag fields filled when present). Missing ⇒ NOT_FOUND. */
int pm_tag_read(const pm_snapshot_manager *m, const char *tag, pm_snapshot **out, pm_error *err);
/* 1 when the tag exists (an I/O error other than "not found" is returned). */
int pm_tag_exists(const pm_snapshot_manager *m, const char *tag, int *exists, pm_error *err);
/* Tag names (without "tag-"), sorted; pm_free_names. Missing dir ⇒ 0 names. */
int pm_tag_list(const pm_snapshot_manager *m, char ***names, size_t *n, pm_error *err);
/* Writes tag/tag-<name> (overwrite) with the snapshot JSON. */
int pm_tag_write(const pm_snapshot_manager *m, const char *tag, const pm_snapshot *s, pm_error *err);

#endif
