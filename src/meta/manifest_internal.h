/* Private glue between the Avro and ORC manifest decoders (not a public API). */
#ifndef PM_META_MANIFEST_INTERNAL_H
#define PM_META_MANIFEST_INTERNAL_H

#include "meta/manifest.h"

typedef struct pm_avro_view {
  const uint8_t *ptr;
  size_t len;
} pm_avro_view;

/* Append an object whose memory already lives in the container's arena (no copy). */
int pm_manifest_entries_append_owned(pm_manifest_entries *v, const pm_manifest_entry *e, pm_error *err);
int pm_manifest_file_metas_append_owned(pm_manifest_file_metas *v, const pm_manifest_file_meta *e, pm_error *err);
int pm_index_entries_append_owned(pm_index_entries *v, const pm_index_manifest_entry *e, pm_error *err);

/* ORC manifests (detected by the "ORC" magic). */
int pm_manifest_decode_orc(const uint8_t *data, size_t len, const char *name, pm_entry_filter_fn filter,
                           void *filter_ctx, pm_manifest_entries *out, pm_error *err);
int pm_manifest_list_decode_orc(const uint8_t *data, size_t len, const char *name, pm_manifest_file_metas *out,
                                pm_error *err);
int pm_index_manifest_decode_orc(const uint8_t *data, size_t len, const char *name, pm_index_entries *out,
                                 pm_error *err);

#endif
