/* libFuzzer target: manifest / manifest-list / index-manifest decoding (Avro or ORC),
 * the BinaryRows inside them, deletion vectors and wire records from the same bytes.
 * Must never crash, leak or read out of bounds. */
#include <stddef.h>
#include <stdint.h>

#include "data/binary_row.h"
#include "meta/deletion_vector.h"
#include "meta/manifest.h"
#include "meta/split.h"
#include "meta/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int keep_even(void *ctx, const pm_entry_head *h) {
  (void)ctx;
  return (h->bucket & 1) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pm_error err;
  pm_manifest_entries e;
  pm_manifest_entries_init(&e);
  if (pm_manifest_decode(data, size, "fuzz", NULL, NULL, &e, &err) == 0) {
    /* walk every BinaryRow as a row of BIGINTs / strings: bounds checks only */
    pm_data_type str = {.root = PM_DT_VARCHAR, .nullable = 1, .length = PM_DT_MAX_LENGTH};
    for (size_t i = 0; i < e.n; i++) {
      pm_binary_row row;
      if (pm_binary_row_open_serialized(e.items[i].partition.data, e.items[i].partition.len, "p", &row, &err) == 0) {
        for (int32_t k = 0; k < row.arity && k < 64; k++) {
          pm_value v;
          (void)pm_binary_row_get(&row, k, &str, &v, &err);
        }
      }
    }
    pm_buf b;
    pm_buf_init(&b);
    (void)pm_manifest_encode(e.items, e.n, NULL, &b, &err);
    pm_buf_free(&b);
  }
  pm_manifest_entries_clear(&e);
  pm_manifest_entries_init(&e);
  (void)pm_manifest_decode(data, size, "fuzz", keep_even, NULL, &e, &err);
  pm_manifest_entries_clear(&e);

  pm_manifest_file_metas l;
  pm_manifest_file_metas_init(&l);
  (void)pm_manifest_list_decode(data, size, "fuzz", &l, &err);
  pm_manifest_file_metas_clear(&l);

  pm_index_entries x;
  pm_index_entries_init(&x);
  (void)pm_index_manifest_decode(data, size, "fuzz", &x, &err);
  pm_index_entries_clear(&x);

  pm_deletion_vector *dv = NULL;
  if (pm_dv_decode(data, size, -1, "fuzz", &dv, &err) == 0) pm_dv_free(dv);

  pm_data_split *s = NULL;
  if (pm_data_split_decode(data, size, &s, &err) == 0) pm_data_split_free(s);
  pm_split *sp = NULL;
  if (pm_split_decode(data, size, &sp, &err) == 0) pm_split_free(sp);
  for (int cv = 2; cv <= 5; cv++) {
    pm_manifest_committable *c = NULL;
    if (pm_committable_decode(data, size, cv, "fuzz", &c, &err) == 0) pm_committable_free(c);
  }
  return 0;
}
