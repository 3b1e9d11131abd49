/*
 * Java DataOutput-style wire formats shared by splits and commit messages
 * (SEMANTICS.md 10): big-endian primitives, modified-UTF-8 strings, DataFileMeta
 * and IndexFileMeta as BinaryRows, CommitMessage (versions 0.7-layout, 2..13)
 * and ManifestCommittable (versions 2..5).
 *
 * Memory: decoded objects live in the arena of their top-level container
 * (pm_manifest_committable->arena, or an arena the caller passes).
 */
#ifndef PM_META_WIRE_H
#define PM_META_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "meta/arena.h"
#include "meta/manifest.h"
#include "util/buf.h"
#include "util/error.h"

/* ---- primitive reader (errors are sticky, check failed once) ---- */
typedef struct pm_wire_reader {
  const uint8_t *p, *end, *base;
  const char *name; /* for messages */
  const char *why;  /* first failure reason, NULL while ok */
  size_t fail_off;
} pm_wire_reader;

void pm_wire_reader_init(pm_wire_reader *r, const uint8_t *data, size_t len, const char *name);
int8_t pm_wire_i8(pm_wire_reader *r);
int32_t pm_wire_i32(pm_wire_reader *r);
int64_t pm_wire_i64(pm_wire_reader *r);
int pm_wire_bool(pm_wire_reader *r);
/* Java readUTF: returns an arena copy (NUL-terminated, standard UTF-8), NULL on failure. */
const char *pm_wire_utf(pm_wire_reader *r, pm_arena *a);
/* int32 length + that many bytes (view). */
const uint8_t *pm_wire_bytes(pm_wire_reader *r, size_t *len);
void pm_wire_fail(pm_wire_reader *r, const char *why);
/* Turns a failed reader into a PAIMON_ERR_CORRUPT error naming the offset. */
int pm_wire_error(const pm_wire_reader *r, pm_error *err);

/* ---- primitive writer ---- */
void pm_wire_put_i8(pm_buf *b, int8_t v, int *bad);
void pm_wire_put_i32(pm_buf *b, int32_t v, int *bad);
void pm_wire_put_i64(pm_buf *b, int64_t v, int *bad);
void pm_wire_put_utf(pm_buf *b, const char *s, int *bad); /* fails (bad) over 65535 encoded bytes */

/* ---- rows ---- */
/* Partition as a "schemaless row": int32 (4 + n), int32 arity, n row bytes.
 * Decoded/encoded from/to the manifest form (int32 BE arity + row bytes). */
int pm_wire_read_partition(pm_wire_reader *r, pm_arena *a, pm_bytes *partition);
void pm_wire_put_partition(pm_buf *b, pm_bytes partition, int *bad);

/* DataFileMeta row (int32 length + BinaryRow of `arity` fields, 13..21). */
int pm_wire_read_file_meta(pm_wire_reader *r, int32_t arity, pm_arena *a, pm_data_file_meta *out, pm_error *err);
int pm_wire_put_file_meta(pm_buf *b, const pm_data_file_meta *f, int32_t arity, pm_error *err);
/* IndexFileMeta row: arity 4..7, dv_fields 3 or 4, gi_fields 5 or 6. */
int pm_wire_read_index_meta(pm_wire_reader *r, int32_t arity, int32_t dv_fields, int32_t gi_fields, pm_arena *a,
                            pm_index_file_meta *out, pm_error *err);
int pm_wire_put_index_meta(pm_buf *b, const pm_index_file_meta *m, int32_t arity, int32_t dv_fields,
                           int32_t gi_fields, pm_error *err);

/* ---- CommitMessage / ManifestCommittable ---- */

typedef struct pm_file_list {
  pm_data_file_meta *items;
  size_t n;
} pm_file_list;

typedef struct pm_index_list {
  pm_index_file_meta *items;
  size_t n;
} pm_index_list;

typedef struct pm_commit_message {
  pm_bytes partition; /* manifest form */
  int32_t bucket;
  int32_t total_buckets;
  int has_total_buckets;
  /* data increment */
  pm_file_list new_files, deleted_files, changelog_files;
  pm_index_list new_index_files, deleted_index_files;
  /* compact increment */
  pm_file_list compact_before, compact_after, compact_changelog;
  pm_index_list compact_new_index_files, compact_deleted_index_files;
} pm_commit_message;

#define PM_COMMIT_MESSAGE_VERSION 13
#define PM_MANIFEST_COMMITTABLE_VERSION 5
/* Pseudo version for Paimon 0.7 messages (their bytes say 2). */
#define PM_COMMIT_MESSAGE_VERSION_07 (-7)

/* One message of the given serializer version (2..13 or PM_COMMIT_MESSAGE_VERSION_07). */
int pm_commit_message_read(pm_wire_reader *r, int version, pm_arena *a, pm_commit_message *out, pm_error *err);
int pm_commit_message_write(pm_buf *b, const pm_commit_message *m, int version, pm_error *err);

typedef struct pm_manifest_committable {
  int64_t identifier;
  int64_t watermark;
  int has_watermark;
  int32_t *log_offset_buckets; /* committable versions <= 4 (legacy) */
  int64_t *log_offsets;
  size_t n_log_offsets;
  const char **property_keys; /* versions >= 4, wire order */
  const char **property_values;
  size_t n_properties;
  int32_t message_version;    /* as on the wire (2 for 0.7-layout messages) */
  int messages_are_07;        /* decoded with the Paimon 0.7 layout */
  pm_commit_message *messages;
  size_t n_messages;
  pm_arena arena;
} pm_manifest_committable;

/* Decodes with the committable version the caller knows (2..5; it is not on the wire). */
int pm_committable_decode(const uint8_t *data, size_t len, int committable_version, const char *name,
                          pm_manifest_committable **out, pm_error *err);
/* Encodes with committable version 5 and message version 13 (what Java writes today). */
int pm_committable_encode(const pm_manifest_committable *c, pm_buf *out, pm_error *err);
void pm_committable_free(pm_manifest_committable *c); /* NULL ok */

#endif
