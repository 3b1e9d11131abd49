/* libFuzzer target: an ORC file from memory, opened, inspected (metadata,
 * statistics, encodings) and read fully, also with small batches, a
 * predicate and row ranges; must never crash or leak. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "arrow/arrow.h"
#include "format/orc/orc_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void read_all(pm_file *f, const pm_orc_read_options *o) {
  pm_error err;
  pm_orc_reader *r;
  if (pm_orc_reader_open(f, o, &r, &err)) return;
  struct ArrowSchema s;
  if (pm_orc_reader_schema(r, &s, &err) == 0) s.release(&s);
  size_t nc = pm_orc_reader_num_columns(r);
  for (size_t c = 0; c < nc; c++) {
    pm_orc_column_stats st;
    (void)pm_orc_reader_file_stats(r, c, &st, &err);
    for (size_t si = 0; si < pm_orc_reader_num_stripes(r) && si < 4; si++)
      (void)pm_orc_reader_stripe_stats(r, si, c, &st, &err);
  }
  pm_orc_encoding *enc = calloc(nc ? nc : 1, sizeof *enc);
  if (enc && pm_orc_reader_num_stripes(r) > 0) (void)pm_orc_reader_stripe_encodings(r, 0, enc, NULL, &err);
  free(enc);
  for (int batches = 0; batches < 10000; batches++) {
    struct ArrowArray a;
    if (pm_orc_reader_next(r, &a, &err) || !a.release) break;
    a.release(&a);
  }
  pm_orc_reader_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pm_error err;
  pm_file *f;
  if (pm_file_from_memory(data, size, "fuzz.orc", &f, &err)) return 0;
  read_all(f, NULL);
  pm_orc_read_options o;
  pm_orc_read_options_init(&o);
  o.batch_size = 3;
  int64_t ranges[] = {1, 4, 7, 9};
  o.row_ranges = ranges;
  o.n_row_ranges = 2;
  read_all(f, &o);
  pm_fmt_predicate p = {0};
  pm_fmt_literal lit = {PM_FMT_LIT_INT64, 10, 0, NULL, 0};
  p.field_id = 0;
  p.op = PM_FMT_OP_GT;
  p.values = &lit;
  p.n_values = 1;
  pm_orc_read_options_init(&o);
  o.predicates = &p;
  o.n_predicates = 1;
  read_all(f, &o);
  pm_file_close(f);
  return 0;
}
