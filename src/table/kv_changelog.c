/* Changelog files of the primary-key writer. changelog-producer = lookup:
 * written by compactions of level-0 files (kv_compact_write.c, kv_lookup_cl.c)
 * at the output level, in the same format and naming.
 * changelog-producer = input (SEMANTICS 2.4): at every flush the writer also
 * writes the flushed input records, unmerged, in flush sort order, as level-0
 * changelog files `<changelog-file.prefix><uuid>-<n>.<format>` in the key/value
 * layout (file source APPEND), handed out as the data increment's changelog
 * files. Format, compression and stats mode: changelog-file.format /
 * .compression / .stats-mode, else as the data files (Java's
 * KeyValueFileWriterFactory). The writing itself is kv_write_file.c's. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "table/kv_write_internal.h"

int pm_kv_changelog_open(pm_kv_write *w, pm_error *err) {
  const pm_core_options *co = &w->t->co;
  pm_kv_changelog *c = calloc(1, sizeof *c);
  if (!c) return PM_NOMEM(err);
  w->changelog = c;
  c->at_flush = w->t->changelog_producer == PM_CHANGELOG_INPUT;
  c->prefix = co->changelog_file_prefix ? co->changelog_file_prefix : "changelog-";
  const char *fmt = co->changelog_file_format ? co->changelog_file_format : co->file_format;
  c->fmt = pm_format_by_name(fmt);
  if (!c->fmt || !c->fmt->writer_open || !strcmp(c->fmt->name, "blob"))
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "option '%s' = '%s': not a format this library writes",
                     pm_core_option_key(co->changelog_file_format ? PM_CO_CHANGELOG_FILE_FORMAT : PM_CO_FILE_FORMAT),
                     fmt);
  pm_format_write_options_init(&c->wo);
  c->wo.compression = co->changelog_file_compression ? co->changelog_file_compression : co->file_compression;
  if (c->wo.compression && !strcasecmp(c->wo.compression, "zstd")) c->wo.compression_level = co->file_zstd_level;
  const char *mode = co->changelog_file_stats_mode ? co->changelog_file_stats_mode : co->metadata_stats_mode;
  pm_co_id mode_opt = co->changelog_file_stats_mode ? PM_CO_CHANGELOG_FILE_STATS_MODE : PM_CO_METADATA_STATS_MODE;
  return pm_kv_file_layout(w, c->fmt, mode, mode_opt, &c->file_schema, &c->key_modes, &c->value_modes, err);
}

void pm_kv_changelog_free(pm_kv_changelog *c) {
  if (!c) return;
  if (c->file_schema.release) pm_schema_release(&c->file_schema);
  free(c->key_modes);
  free(c->value_modes);
  free(c);
}
