/* Public C API: table maintenance (paimon/cleanup.h). */
#include "api/api_internal.h"
#include "paimon/cleanup.h"
#include "table/orphan_clean.h"

paimon_status paimon_table_remove_orphan_files(const paimon_table *table, int64_t older_than_millis, int dry_run,
                                               paimon_file_fn on_file, paimon_progress_fn progress, void *ctx,
                                               paimon_orphan_result *out, paimon_error *err) {
  if (out) memset(out, 0, sizeof *out);
  CHECK_ARG(table && table->t, "NULL table");
  CHECK_ARG(!table->system_table, "a system table has no files of its own");
  if (older_than_millis < 0) return (paimon_status)pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                                                             "older_than %lld is before the epoch",
                                                             (long long)older_than_millis);
  pm_orphan_options o;
  memset(&o, 0, sizeof o);
  o.older_than_millis = older_than_millis;
  o.dry_run = dry_run;
  o.on_file = on_file;
  o.progress = progress;
  o.ctx = ctx;
  pm_orphan_result r;
  int rc = pm_orphan_clean(table->t, &o, 0, &r, err);
  if (out) {
    out->files = r.files;
    out->bytes = r.bytes;
    out->delete_failed = r.delete_failed;
    out->candidates = r.candidates;
  }
  return (paimon_status)rc;
}
