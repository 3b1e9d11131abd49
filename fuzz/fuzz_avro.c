/* libFuzzer target: an Avro object container from memory, read every way we
 * read them (generic decode + JSON, skip, field resolution), must never crash. */
#include <stddef.h>
#include <stdint.h>

#include "format/avro/avro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pm_error err;
  pm_file *f;
  if (pm_file_from_memory(data, size, "fuzz.avro", &f, &err)) return 0;
  pm_avro_reader *r;
  if (pm_avro_reader_open(f, &r, &err) == 0) {
    const pm_avro_schema *root = pm_avro_reader_schema(r);
    static const char *const names[] = {"_FILE", "_KIND", "_BUCKET", "_FILE_NAME"};
    pm_avro_record_map map = {0};
    int have_map = pm_avro_record_map_init(&map, root, names, 4, "fuzz", &err) == 0;
    pm_buf json;
    pm_buf_init(&json);
    for (int blocks = 0; blocks < 64; blocks++) {
      pm_avro_cursor cur;
      int64_t n;
      if (pm_avro_reader_next_block(r, &cur, &n, &err) || n == 0) break;
      pm_avro_cursor skip = cur;
      for (int64_t i = 0; i < n && !pm_avro_cursor_failed(&skip); i++) pm_avro_skip(&skip, root);
      if (have_map) { /* fast path shaped like the manifest decoder */
        pm_avro_cursor fast = cur;
        for (int64_t i = 0; i < n && !pm_avro_cursor_failed(&fast); i++) {
          if (root->type == PM_AVRO_UNION && pm_avro_read_union_of(&fast, root) < 0) break;
          for (size_t w = 0; w < map.writer_count; w++) {
            int32_t slot = map.slot_of_writer_field[w];
            const pm_avro_field_ref *ref = slot >= 0 ? &map.wanted[slot] : NULL;
            if (ref && ref->value_type->type == PM_AVRO_INT && !pm_avro_read_null_of(&fast, ref))
              (void)pm_avro_read_int(&fast);
            else
              pm_avro_skip(&fast, map.record->fields[w].type);
          }
        }
        if (pm_avro_cursor_failed(&fast)) (void)pm_avro_reader_cursor_error(r, &fast, "fuzz", &err);
      }
      for (int64_t i = 0; i < n; i++) {
        pm_avro_value v;
        int rc = pm_avro_decode_value(&cur, root, &v, &err);
        if (!rc) {
          json.len = 0;
          (void)pm_avro_value_to_json(&v, &json, &err);
        }
        pm_avro_value_clear(&v);
        if (rc) break;
      }
    }
    pm_buf_free(&json);
    pm_avro_record_map_free(&map);
    pm_avro_reader_close(r);
  }
  pm_file_close(f);
  return 0;
}
