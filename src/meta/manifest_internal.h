/* Private glue between the Avro and ORC manifest decoders (not a public API). */
#ifndef PM_META_MANIFEST_INTERNAL_H
#define PM_META_MANIFEST_INTERNAL_H

#include "format/avro/avro.h"
#include "meta/manifest.h"

typedef struct pm_avro_view {
  const uint8_t *ptr;
  size_t len;
} pm_avro_view;

/* ORC manifests (detected by the "ORC" magic). */
int pm_manifest_decode_orc(const uint8_t *data, size_t len, const char *name, pm_entry_filter_fn filter,
                           void *filter_ctx, pm_manifest_entries *out, pm_error *err);
int pm_manifest_list_decode_orc(const uint8_t *data, size_t len, const char *name, pm_manifest_file_metas *out,
                                pm_error *err);
int pm_index_manifest_decode_orc(const uint8_t *data, size_t len, const char *name, pm_index_entries *out,
                                 pm_error *err);

/* ---- manifest writing pieces (manifest_write.c), for the rolling writer (manifest_merge.c) ---- */

/* 1 when entries need Java master's manifest schema (an entry with write_cols_sequences), else 0 (2.0.0). */
int pm_manifest_needs_master_schema(const pm_manifest_entry *entries, size_t n);
/* The manifest writer schema: Java 2.0.0's (master = 0) or master's (1). */
const char *pm_manifest_schema_json(int master);
/* Encodes one manifest entry record in that schema. */
void pm_manifest_put_entry(pm_avro_encoder *e, const pm_manifest_entry *me, int master_schema);
/* Avro writer options for manifest files (codec, level, sync; create_if_absent publishing). */
void pm_manifest_avro_options(const pm_manifest_write_opts *opts, int create_if_absent, pm_avro_writer_options *ao);
/* The manifest-list row of a manifest holding entries (n may be 0: default_schema_id). Strings in arena. */
int pm_manifest_meta_fill(const pm_manifest_entry *entries, size_t n, const pm_data_type *partition_type,
                          int64_t default_schema_id, const char *file_name, int64_t file_size, pm_arena *arena,
                          pm_manifest_file_meta *meta, pm_error *err);

/* ---- ORC manifest files (manifest_orc_write.c), manifest.format = orc ---- */

typedef enum pm_manifest_file_kind { PM_MFK_MANIFEST, PM_MFK_LIST, PM_MFK_INDEX } pm_manifest_file_kind;
typedef struct pm_manifest_orc pm_manifest_orc;
/* Starts an ORC manifest (entries; master = master's _WRITE_COLS_SEQUENCES too), manifest list
 * or index manifest on sink (owned from the call on: finish commits it, with
 * PM_OUT_CREATE_IF_ABSENT when create_if_absent, abort discards it). */
int pm_manifest_orc_open(pm_out_file *sink, pm_manifest_file_kind kind, int master, const pm_manifest_write_opts *o,
                         int create_if_absent, pm_manifest_orc **out, pm_error *err);
/* Adds one pm_manifest_entry / pm_manifest_file_meta / pm_index_manifest_entry (by kind).
 * *batch_done (may be NULL) = 1 when this row completed a batch handed to the ORC writer:
 * the moment Java checks the rolling size. */
int pm_manifest_orc_add(pm_manifest_orc *m, const void *item, int *batch_done, pm_error *err);
/* Java's rolling size estimate (file position + buffered / 5). */
uint64_t pm_manifest_orc_estimated_size(const pm_manifest_orc *m);
/* Writes the rest, publishes, gives the file size (may be NULL) and frees m (in every case). */
int pm_manifest_orc_finish(pm_manifest_orc *m, uint64_t *size, pm_error *err);
void pm_manifest_orc_abort(pm_manifest_orc *m);
/* A whole file of n items (item_size bytes apart) on sink (owned). */
int pm_manifest_orc_write_all(pm_out_file *sink, pm_manifest_file_kind kind, const void *items, size_t item_size,
                              size_t n, const pm_manifest_write_opts *o, int create_if_absent, uint64_t *size,
                              pm_error *err);

#endif
