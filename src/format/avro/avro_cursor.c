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
static void skip_blocks(pm_avro_cursor *c, const pm_avro_schema *container, int depth) {
  const pm_avro_schema *items = container->items;
  int is_map = container->type == PM_AVRO_MAP;
  int64_t zero_width_items = 0;
  for (;;) {
    int64_t size;
    int64_t n = pm_avro_read_block_count(c, &size);
    if (n == 0 || c->error) return;
    if (items->fixed_width == 0 && !is_map && (zero_width_items += n) > PM_AVRO_MAX_ZERO_WIDTH_ITEMS) {
      pm_avro_cursor_fail(c, "too many zero-size array items");
      return;
    }
    if (size >= 0) {
      pm_avro_skip_raw(c, (size_t)size);
      continue;
    }
    if (!is_map && items->fixed_width >= 0) {
      /* n <= remaining bytes, width <= INT32_MAX: no overflow */
      pm_avro_skip_raw(c, (size_t)n * (size_t)items->fixed_width);
      continue;
    }
    if (container->skip_ops) { /* simple items: one program step (two for maps) each */
      for (int64_t i = 0; i < n && !c->error; i++)
        pm_avro__skip_ops(c, container->skip_ops, container->skip_op_count, depth + 1);
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
      pm_avro__skip_ops(c, s->skip_ops, s->skip_op_count, depth + 1);
      return;
    case PM_AVRO_ARRAY:
      skip_blocks(c, s, depth);
      return;
    case PM_AVRO_MAP:
      skip_blocks(c, s, depth);
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

/* Runs a record's skip program on a local pointer (no stores per step). */
void pm_avro__skip_ops(pm_avro_cursor *c, const pm_avro_skip_op *op, size_t n, int depth) {
  const uint8_t *p = c->pos, *end = c->end;
  if (depth > PM_AVRO_MAX_VALUE_DEPTH) {
    pm_avro_cursor_fail(c, "value nested too deeply");
    return;
  }
  for (const pm_avro_skip_op *last = op + n; op < last; op++) {
    uint64_t len;
    switch (op->kind) {
      case PM_AVRO_SKIP_FIXED:
        if ((size_t)(end - p) < op->n) goto truncated;
        p += op->n;
        continue;
      case PM_AVRO_SKIP_OPT_VARINT:
      case PM_AVRO_SKIP_OPT_BYTES:
        /* branch index 0 or 1 is one zig-zag byte: 0x00 or 0x02 */
        if (p >= end) goto truncated;
        if (*p & ~2u) goto bad_branch;
        if ((*p++ >> 1) == op->null_branch) continue;
        if (op->kind == PM_AVRO_SKIP_OPT_BYTES) goto bytes;
        /* fall through */
      case PM_AVRO_SKIP_VARINT:
        if (end - p >= 10) {
          const uint8_t *q = p;
          while (*q & 0x80 && q - p < 9) q++;
          if (*q & 0x80) goto bad_varint;
          p = q + 1;
        } else {
          c->pos = p;
          (void)pm_avro__varint_slow(c);
          if (c->error) return;
          p = c->pos;
        }
        continue;
      case PM_AVRO_SKIP_BYTES:
      bytes:
        c->pos = p;
        len = pm_avro__varint(c);
        if (c->error) return;
        p = c->pos;
        if (len & 1 || (len >> 1) > (uint64_t)(end - p)) { /* odd zig-zag = negative length */
          c->pos = p;
          pm_avro_cursor_fail(c, len & 1 ? "negative bytes/string length" : "bytes/string length past end of block");
          return;
        }
        p += len >> 1;
        continue;
      default:
        c->pos = p;
        skip_value(c, op->node, depth + 1);
        if (c->error) return;
        p = c->pos;
        continue;
    }
  }
  c->pos = p;
  return;
truncated:
  c->pos = p;
  pm_avro_cursor_fail(c, "value past end of block");
  return;
bad_branch:
  c->pos = p;
  pm_avro_cursor_fail(c, "union branch index out of range");
  return;
bad_varint:
  c->pos = p;
  pm_avro_cursor_fail(c, "varint longer than 10 bytes");
}

void pm_avro__skip_complex(pm_avro_cursor *c, const pm_avro_schema *s, int depth) { skip_value(c, s, depth); }
