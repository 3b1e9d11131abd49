#include "format/orc/orc_writer.h"

#include <string.h>

void pm_orc_writer_options_init(pm_orc_writer_options *o) {
  memset(o, 0, sizeof *o);
  o->codec = PM_CODEC_ZSTD;
}

int pm_orc_writer_open(const char *path, const struct ArrowSchema *schema, const pm_orc_writer_options *options,
                       pm_orc_writer **out, pm_error *err) {
  (void)schema;
  (void)options;
  *out = NULL;
  return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: ORC writing is not implemented yet", path);
}
int pm_orc_writer_write(pm_orc_writer *w, const struct ArrowArray *batch, pm_error *err) {
  (void)w;
  (void)batch;
  return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "ORC writing is not implemented yet");
}
int pm_orc_writer_close(pm_orc_writer *w, pm_error *err) {
  (void)w;
  return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "ORC writing is not implemented yet");
}
void pm_orc_writer_abort(pm_orc_writer *w) { (void)w; }
uint64_t pm_orc_writer_num_rows(const pm_orc_writer *w) {
  (void)w;
  return 0;
}
uint64_t pm_orc_writer_bytes_written(const pm_orc_writer *w) {
  (void)w;
  return 0;
}
