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

#endif
