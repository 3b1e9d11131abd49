/* libFuzzer target: reads a Parquet file from memory completely (all
 * columns), then again with row ranges and a predicate (pruning paths).
 * Any input must give a clean error or data, never a crash or a leak. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "arrow/arrow.h"
#include "format/parquet/parquet_reader.h"

static void read_all(const uint8_t *data, size_t size, const pm_pq_read_options *opt) {
  pm_error err;
  pm_file *f;
  if (pm_file_from_memory(data, size, "fuzz.parquet", &f, &err)) return;
  pm_pq_reader *r;
  if (pm_pq_reader_open(f, opt, &r, &err)) return; /* the reader owns f */
  struct ArrowSchema s;
  if (pm_pq_reader_schema(r, &s, &err) == 0) pm_schema_release(&s);
  for (int batches = 0; batches < 1000; batches++) {
    struct ArrowArray a;
    if (pm_pq_reader_next(r, &a, &err) || !a.release) break;
    a.release(&a);
  }
  pm_pq_column_stats st;
  const struct pm_pq_meta *m = pm_pq_reader_meta(r);
  (void)m;
  pm_pq_reader_column_stats(r, 0, &st, &err);
  pm_pq_reader_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pm_pq_read_options opt;
  pm_pq_read_options_init(&opt);
  opt.batch_rows = 100;
  read_all(data, size, &opt);

  pm_pq_row_range ranges[] = {{1, 3}, {50, 120}, {1000, 1001}};
  pm_fmt_literal lit = {PM_FMT_LIT_INT64, 5, 0, NULL, 0};
  pm_fmt_predicate pred = {NULL, 1, PM_FMT_OP_GE, &lit, 1};
  opt.row_ranges = ranges;
  opt.n_row_ranges = 3;
  opt.predicates = &pred;
  opt.n_predicates = 1;
  opt.verify_crc = 1;
  opt.batch_rows = 7;
  read_all(data, size, &opt);
  return 0;
}
