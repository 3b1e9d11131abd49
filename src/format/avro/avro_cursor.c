/* Out-of-line parts of the Avro cursor: varints near the block end, skipping complex values. */
#include "format/avro/avro.h"

uint64_t pm_avro__varint_slow(pm_avro_cursor *c) {
  const uint8_t *p = c->pos;
  uint64_t v = 0;
  for (int i = 0; i < 10; i++) {
    if (p + i >= c->end) return (uint64_t)pm_avro_cursor_fail(c, "truncated varint");
    uint64_t b = p[i];
    v |= (b & 0x7f) << (7 * i);
    if (b < 0x80) {
      if (i == 9 && b > 1) break;
      c->pos = p + i + 1;
      return v;
    }
  }
  return (uint64_t)pm_avro_cursor_fail(c, "varint longer than 10 bytes");
}

static void skip_value(pm_avro_cursor *c, const pm_avro_schema *s, int depth);

/* Items of an array (values of a map, with keys when is_map). */
static void skip_blocks(pm_avro_cursor *c, const pm_avro_schema *items, int is_map, int depth) {
  for (;;) {
    int64_t size;
    int64_t n = pm_avro_read_block_count(c, &size);
    if (n == 0 || c->error) return;
    if (size >= 0) {
      pm_avro_skip_raw(c, (size_t)size);
      continue;
    }
    if (!is_map && items->fixed_width >= 0) {
      /* n <= remaining bytes, width <= INT32_MAX: no overflow */
      pm_avro_skip_raw(c, (size_t)n * (size_t)items->fixed_width);
      continue;
    }
    for (int64_t i = 0; i < n && !c->error; i++) {
      if (is_map) (void)pm_avro_read_bytes(c);
      skip_value(c, items, depth + 1);
    }
  }
}

static void skip_value(pm_avro_cursor *c, const pm_avro_schema *s, int depth) {
  if (s->fixed_width >= 0) {
    pm_avro_skip_raw(c, (size_t)s->fixed_width);
    return;
  }
  if (depth > PM_AVRO_MAX_VALUE_DEPTH) {
    pm_avro_cursor_fail(c, "value nested too deeply");
    return;
  }
  switch (s->type) {
    case PM_AVRO_INT:
    case PM_AVRO_LONG:
    case PM_AVRO_ENUM:
      (void)pm_avro__varint(c);
      return;
    case PM_AVRO_BYTES:
    case PM_AVRO_STRING:
      (void)pm_avro_read_bytes(c);
      return;
    case PM_AVRO_RECORD:
      for (size_t i = 0; i < s->field_count && !c->error; i++) skip_value(c, s->fields[i].type, depth + 1);
      return;
    case PM_AVRO_ARRAY:
      skip_blocks(c, s->items, 0, depth);
      return;
    case PM_AVRO_MAP:
      skip_blocks(c, s->items, 1, depth);
      return;
    case PM_AVRO_UNION: {
      int32_t b = pm_avro_read_union_of(c, s);
      if (b >= 0) skip_value(c, s->branches[b], depth + 1);
      return;
    }
    default: /* null, boolean, float, double, fixed: fixed width, handled above */
      return;
  }
}

void pm_avro__skip_complex(pm_avro_cursor *c, const pm_avro_schema *s, int depth) { skip_value(c, s, depth); }
