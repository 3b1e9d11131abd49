/*
 * Avro object container files (Paimon manifest lists, manifests, index manifests).
 *
 * Four parts:
 *   1. Schema tree: the writer schema JSON parsed into pm_avro_schema nodes.
 *   2. Reader: streams a container block by block (codecs null, deflate,
 *      snappy with CRC check, zstandard) and hands out a pm_avro_cursor over
 *      the decompressed bytes of one block.
 *   3. Cursor: static inline zero-copy decoding of Avro binary values plus
 *      pm_avro_skip() for any schema node, and pm_avro_record_map to resolve
 *      the fields a caller wants by name (files of every Paimon version read
 *      alike: missing fields, extra fields, fields wrapped in ["null", T]).
 *      A generic slow path (pm_avro_value) decodes a whole value into a tree.
 *   4. Writer: pm_avro_encoder helpers mirroring the cursor, and a container
 *      writer that flushes compressed blocks at a size threshold and makes the
 *      file visible only on pm_avro_writer_commit.
 *
 * Typical fast read loop (errors are sticky on the cursor, check once per record):
 *
 *   pm_avro_reader *r;  PM_TRY(pm_avro_reader_open_path(path, &r, err));
 *   const pm_avro_schema *top = pm_avro_reader_schema(r);     // record, or ["null", record] before 0.9
 *   static const char *const want[] = {"_KIND", "_BUCKET", "_FILE"};
 *   pm_avro_record_map map;  rc = pm_avro_record_map_init(&map, top, want, 3, path, err);
 *   pm_avro_cursor cur; int64_t n;
 *   while ((rc = pm_avro_reader_next_block(r, &cur, &n, err)) == 0 && n > 0) {
 *     for (int64_t i = 0; i < n; i++) {
 *       if (top->type == PM_AVRO_UNION && pm_avro_read_union_of(&cur, top) == top->null_branch) ...null row...
 *       for (size_t f = 0; f < map.writer_count; f++) {
 *         int32_t slot = map.slot_of_writer_field[f];
 *         if (slot < 0) { pm_avro_skip(&cur, map.record->fields[f].type); continue; }   // unknown/unwanted
 *         const pm_avro_field_ref *ref = &map.wanted[slot];
 *         if (filter rejected the entry) { pm_avro_skip(&cur, ref->type); continue; }  // whole _FILE, no decode
 *         if (pm_avro_read_null_of(&cur, ref)) continue;                             // ["null",T] holding null
 *         ... decode ref->value_type: pm_avro_read_int/long/bytes(&cur), or a nested
 *             record with its own pm_avro_record_map over ref->value_type ...
 *       }
 *       if (pm_avro_cursor_failed(&cur))
 *         return pm_avro_reader_cursor_error(r, &cur, "manifest entry", err);
 *     }
 *   }
 *   pm_avro_record_map_free(&map); pm_avro_reader_close(r);
 *
 * Wanted fields missing from the file have writer_index -1 (treat as null).
 * A record map depends only on the writer schema: callers may cache it per
 * schema JSON text (pm_avro_reader_schema_json) across files.
 * Speed (bench, one core, manifest entries with 6-column stats, zstd, incl.
 * decompression): ~4.4M entries/s decoding all _FILE scalars, ~5.5M/s skipping.
 */
#ifndef PM_FORMAT_AVRO_AVRO_H
#define PM_FORMAT_AVRO_AVRO_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "io/file.h"
#include "util/buf.h"
#include "util/compress.h"
#include "util/error.h"

/* ------------------------------------------------------------------------- */
/* 1. Schema                                                                  */
/* ------------------------------------------------------------------------- */

typedef enum pm_avro_type {
  PM_AVRO_NULL = 0,
  PM_AVRO_BOOLEAN,
  PM_AVRO_INT,
  PM_AVRO_LONG,
  PM_AVRO_FLOAT,
  PM_AVRO_DOUBLE,
  PM_AVRO_BYTES,
  PM_AVRO_STRING,
  PM_AVRO_RECORD,
  PM_AVRO_ENUM,
  PM_AVRO_ARRAY,
  PM_AVRO_MAP,
  PM_AVRO_UNION,
  PM_AVRO_FIXED
} pm_avro_type;

/* Limits applied to untrusted input. */
#define PM_AVRO_MAX_SCHEMA_DEPTH 64          /* nesting of schema JSON */
#define PM_AVRO_MAX_VALUE_DEPTH 128          /* nesting of decoded values (recursive types) */
#define PM_AVRO_MAX_BLOCK_BYTES (256u << 20) /* compressed or decompressed block size */
#define PM_AVRO_MAX_HEADER_BYTES (16u << 20) /* header (metadata map) size */
/* Items that encode to zero bytes (array<null>, empty records) cost no input,
 * so one array may hold at most this many (bounds work per input byte). */
#define PM_AVRO_MAX_ZERO_WIDTH_ITEMS 1024

typedef struct pm_avro_schema pm_avro_schema;

typedef struct pm_avro_field {
  const char *name;
  const pm_avro_schema *type;
  int has_default; /* the field declares "default" (value not kept) */
} pm_avro_field;

/* One schema node. Nodes are owned by their pm_avro_schema_tree and are
 * immutable after parsing. A named type referenced by name later in the schema
 * is the SAME node (so recursive types make the graph cyclic: walkers must bound depth). */
struct pm_avro_schema {
  pm_avro_type type;
  const char *name;         /* full name of record/enum/fixed ("ns.name"), else NULL */
  const char *logical_type; /* "logicalType" attribute or NULL (e.g. "decimal", "timestamp-millis", "date") */
  int32_t precision, scale; /* decimal attributes (0 when absent) */
  struct json_t *json;      /* this node's JSON (jansson, borrowed, lives as long as the tree): other attributes */

  /* PM_AVRO_RECORD */
  size_t field_count;
  const pm_avro_field *fields;
  /* PM_AVRO_ENUM */
  size_t symbol_count;
  const char *const *symbols;
  /* PM_AVRO_ARRAY: items; PM_AVRO_MAP: values */
  const pm_avro_schema *items;
  /* PM_AVRO_UNION */
  size_t branch_count;
  const pm_avro_schema *const *branches;
  int32_t null_branch;  /* union: index of the "null" branch, -1 if none */
  /* PM_AVRO_FIXED */
  size_t fixed_size;

  /* Encoded size in bytes when every value of this node has the same size
   * (null 0, boolean 1, float 4, double 8, fixed N, records of such fields), else -1.
   * pm_avro_skip uses it to jump over such values in one step. */
  int64_t fixed_width;
  /* Internal skip program. PM_AVRO_RECORD: skips one value of the record
   * (nested records inlined, nullable primitives as single steps).
   * PM_AVRO_ARRAY / PM_AVRO_MAP: skips one item / entry when the items are
   * simple (else NULL). */
  const struct pm_avro_skip_op *skip_ops;
  size_t skip_op_count;
};

/* One step of a record's skip program (internal to pm_avro_skip). */
typedef enum pm_avro_skip_kind {
  PM_AVRO_SKIP_FIXED = 0,  /* n bytes */
  PM_AVRO_SKIP_VARINT,     /* int, long, enum */
  PM_AVRO_SKIP_BYTES,      /* bytes, string */
  PM_AVRO_SKIP_OPT_VARINT, /* ["null", int|long|enum] (null at null_branch) */
  PM_AVRO_SKIP_OPT_BYTES,  /* ["null", bytes|string] */
  PM_AVRO_SKIP_NODE        /* anything else: skip a value of node */
} pm_avro_skip_kind;
typedef struct pm_avro_skip_op {
  uint8_t kind;
  uint8_t null_branch;
  uint32_t n;
  const pm_avro_schema *node;
} pm_avro_skip_op;

typedef struct pm_avro_schema_tree pm_avro_schema_tree;

/* Parses a writer schema JSON text (len bytes, need not be NUL-terminated).
 * `what` names the source in error messages (file path). Nesting deeper than
 * PM_AVRO_MAX_SCHEMA_DEPTH, unknown type names, duplicate names, and malformed
 * records/enums/unions are PAIMON_ERR_CORRUPT. *out is owned by the caller: pm_avro_schema_free. */
int pm_avro_schema_parse(const char *json, size_t len, const char *what, pm_avro_schema_tree **out, pm_error *err);
const pm_avro_schema *pm_avro_schema_root(const pm_avro_schema_tree *t);
void pm_avro_schema_free(pm_avro_schema_tree *t); /* NULL ok */

/* Schema cache (process-wide, thread-safe; avro_schema_cache.c). The files of a
 * table share a few writer schemas, so readers take the parsed tree of a
 * header's schema JSON from here: the same bytes give the same immutable tree
 * (parsed once; a parse error is returned as pm_avro_schema_parse returns it,
 * naming `what`, and nothing is cached). *out stays valid until
 * pm_avro_schema_release; it may be shared by other readers and threads and
 * must not be modified. At most a few trees are kept (least recently used
 * unreferenced ones are evicted). */
int pm_avro_schema_acquire(const char *json, size_t len, const char *what, const pm_avro_schema_tree **out,
                           pm_error *err);
void pm_avro_schema_release(const pm_avro_schema_tree *t); /* NULL ok */
/* Schemas parsed by pm_avro_schema_acquire so far (cache misses; for tests). */
uint64_t pm_avro_schema_cache_parses(void);

/* Name of a type: "null", "int", "record", ... */
const char *pm_avro_type_name(pm_avro_type t);

/* If s is a two-branch union with a "null" branch (["null",T] or [T,"null"]),
 * returns T and sets *null_branch to the null branch index (0 or 1); otherwise
 * returns s and sets *null_branch to -1. null_branch may be NULL. */
const pm_avro_schema *pm_avro_unwrap_nullable(const pm_avro_schema *s, int32_t *null_branch);

/* Index of the field called name in a record node, or -1. */
int32_t pm_avro_field_index(const pm_avro_schema *record, const char *name);

/* ------------------------------------------------------------------------- */
/* 2. Cursor (hot path, all inline)                                           */
/* ------------------------------------------------------------------------- */

/* A read position inside one block's decompressed bytes. Errors are sticky:
 * the first failure records a reason and its position, moves pos to end, and
 * every later read returns 0 / empty. Check pm_avro_cursor_failed() once per
 * record (or before trusting a value for anything else than more decoding).
 * Views (pm_avro_bytes) point into the block buffer: valid until the next
 * pm_avro_reader_next_block / pm_avro_reader_close. */
typedef struct pm_avro_cursor {
  const uint8_t *pos;
  const uint8_t *end;
  const uint8_t *base;      /* start of the block's bytes (offsets in messages) */
  const char *error;        /* NULL while ok, else a static reason */
  size_t error_offset;      /* offset of the failure from base */
} pm_avro_cursor;

typedef struct pm_avro_bytes {
  const uint8_t *ptr;
  size_t len;
} pm_avro_bytes;

/* Starts a cursor over a caller-owned byte range (the reader does this for blocks). */
static inline void pm_avro_cursor_init(pm_avro_cursor *c, const uint8_t *data, size_t len) {
  if (!data) data = (const uint8_t *)""; /* NULL + 0 is undefined behaviour */
  c->pos = data;
  c->end = data + len;
  c->base = data;
  c->error = NULL;
  c->error_offset = 0;
}

static inline int pm_avro_cursor_failed(const pm_avro_cursor *c) { return c->error != NULL; }
static inline size_t pm_avro_cursor_offset(const pm_avro_cursor *c) { return (size_t)(c->pos - c->base); }
static inline size_t pm_avro_cursor_remaining(const pm_avro_cursor *c) { return (size_t)(c->end - c->pos); }
static inline int pm_avro_cursor_at_end(const pm_avro_cursor *c) { return c->pos >= c->end; }

/* Marks the cursor failed (keeps the first reason). Returns 0 for convenience. */
static inline int pm_avro_cursor_fail(pm_avro_cursor *c, const char *reason) {
  if (!c->error) {
    c->error = reason;
    c->error_offset = (size_t)(c->pos - c->base);
  }
  c->pos = c->end;
  return 0;
}

uint64_t pm_avro__varint_slow(pm_avro_cursor *c); /* bounds-checked path near the block end */

/* Raw unsigned varint (up to 10 bytes). */
static inline uint64_t pm_avro__varint(pm_avro_cursor *c) {
  const uint8_t *p = c->pos;
  if (__builtin_expect(c->end - p >= 10, 1)) {
    uint64_t b = p[0];
    if (b < 0x80) {
      c->pos = p + 1;
      return b;
    }
    uint64_t v = b & 0x7f;
    for (int i = 1; i < 10; i++) {
      b = p[i];
      v |= (b & 0x7f) << (7 * i);
      if (b < 0x80) {
        if (i == 9 && b > 1) break; /* more than 64 bits */
        c->pos = p + i + 1;
        return v;
      }
    }
    return (uint64_t)pm_avro_cursor_fail(c, "varint longer than 10 bytes");
  }
  return pm_avro__varint_slow(c);
}

/* Avro long: zig-zag varint. */
static inline int64_t pm_avro_read_long(pm_avro_cursor *c) {
  uint64_t u = pm_avro__varint(c);
  return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

/* Avro int: zig-zag varint that must fit 32 bits. */
static inline int32_t pm_avro_read_int(pm_avro_cursor *c) {
  int64_t v = pm_avro_read_long(c);
  if (__builtin_expect(v < INT32_MIN || v > INT32_MAX, 0)) return pm_avro_cursor_fail(c, "int out of 32-bit range");
  return (int32_t)v;
}

static inline int pm_avro_read_boolean(pm_avro_cursor *c) {
  if (__builtin_expect(c->pos >= c->end, 0)) return pm_avro_cursor_fail(c, "truncated boolean");
  uint8_t b = *c->pos++;
  if (__builtin_expect(b > 1, 0)) return pm_avro_cursor_fail(c, "boolean byte not 0 or 1");
  return b;
}

static inline float pm_avro_read_float(pm_avro_cursor *c) {
  if (__builtin_expect(c->end - c->pos < 4, 0)) return (float)pm_avro_cursor_fail(c, "truncated float");
  uint32_t u = (uint32_t)c->pos[0] | (uint32_t)c->pos[1] << 8 | (uint32_t)c->pos[2] << 16 | (uint32_t)c->pos[3] << 24;
  c->pos += 4;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static inline double pm_avro_read_double(pm_avro_cursor *c) {
  if (__builtin_expect(c->end - c->pos < 8, 0)) return (double)pm_avro_cursor_fail(c, "truncated double");
  uint64_t u = 0;
  for (int i = 7; i >= 0; i--) u = u << 8 | c->pos[i];
  c->pos += 8;
  double d;
  memcpy(&d, &u, 8);
  return d;
}

/* bytes or string: zero-copy view into the block. A negative length or one
 * past the end of the block fails the cursor and returns an empty view. */
static inline pm_avro_bytes pm_avro_read_bytes(pm_avro_cursor *c) {
  pm_avro_bytes v = {c->pos, 0};
  int64_t n = pm_avro_read_long(c);
  if (__builtin_expect(n < 0 || (uint64_t)n > (uint64_t)(c->end - c->pos), 0)) {
    if (!c->error) c->pos = v.ptr; /* report the value's offset */
    pm_avro_cursor_fail(c, n < 0 ? "negative bytes/string length" : "bytes/string length past end of block");
    v.ptr = c->end;
    return v;
  }
  v.ptr = c->pos;
  v.len = (size_t)n;
  c->pos += n;
  return v;
}
#define pm_avro_read_string pm_avro_read_bytes

/* fixed(size): view of the next size bytes. */
static inline pm_avro_bytes pm_avro_read_fixed(pm_avro_cursor *c, size_t size) {
  pm_avro_bytes v = {c->pos, 0};
  if (__builtin_expect((size_t)(c->end - c->pos) < size, 0)) {
    pm_avro_cursor_fail(c, "truncated fixed");
    v.ptr = c->end;
    return v;
  }
  v.len = size;
  c->pos += size;
  return v;
}

/* Union branch index (unchecked against the union: use pm_avro_read_union_of
 * to check it). Returns -1 and fails on a negative or over-int index. */
static inline int32_t pm_avro_read_union(pm_avro_cursor *c) {
  int64_t b = pm_avro_read_long(c);
  if (__builtin_expect(b < 0 || b > INT32_MAX, 0)) {
    pm_avro_cursor_fail(c, "bad union branch index");
    return -1;
  }
  return (int32_t)b;
}

/* Union branch index checked against the union node u; returns -1 on failure. */
static inline int32_t pm_avro_read_union_of(pm_avro_cursor *c, const pm_avro_schema *u) {
  int32_t b = pm_avro_read_union(c);
  if (__builtin_expect(b >= 0 && (size_t)b >= u->branch_count, 0)) {
    pm_avro_cursor_fail(c, "union branch index out of range");
    return -1;
  }
  return b;
}

/* Enum symbol index (unchecked; compare with schema->symbol_count). */
static inline int32_t pm_avro_read_enum(pm_avro_cursor *c) { return pm_avro_read_int(c); }

/* Array/map block header. Returns the number of items in the next block
 * (0 = end of the array/map). For a negative count on disk the absolute value
 * is returned and *byte_size (if not NULL) receives the block's byte size,
 * which allows skipping the block with pm_avro_skip_raw; otherwise *byte_size = -1.
 * A count larger than the bytes left in the block fails the cursor (every item
 * takes at least one byte in anything Paimon writes; this bounds loops and
 * allocations on corrupt input). */
static inline int64_t pm_avro_read_block_count(pm_avro_cursor *c, int64_t *byte_size) {
  int64_t n = pm_avro_read_long(c);
  if (byte_size) *byte_size = -1;
  if (n < 0) {
    if (n == INT64_MIN) return pm_avro_cursor_fail(c, "bad array/map block count");
    n = -n;
    int64_t size = pm_avro_read_long(c);
    if (size < 0 || (uint64_t)size > (uint64_t)(c->end - c->pos))
      return pm_avro_cursor_fail(c, "array/map block byte size past end of block");
    if (byte_size) *byte_size = size;
  }
  if (__builtin_expect((uint64_t)n > (uint64_t)(c->end - c->pos), 0))
    return pm_avro_cursor_fail(c, "array/map block count larger than the remaining bytes");
  return n;
}

/* Skips n raw bytes. */
static inline void pm_avro_skip_raw(pm_avro_cursor *c, size_t n) {
  if (__builtin_expect((size_t)(c->end - c->pos) < n, 0)) {
    pm_avro_cursor_fail(c, "value past end of block");
    return;
  }
  c->pos += n;
}

/* Skips one value of schema s (any type; uses byte sizes of array/map blocks
 * when present and fixed_width shortcuts). Bounded by PM_AVRO_MAX_VALUE_DEPTH. */
void pm_avro__skip_complex(pm_avro_cursor *c, const pm_avro_schema *s, int depth);
void pm_avro__skip_ops(pm_avro_cursor *c, const pm_avro_skip_op *op, size_t n, int depth);
static inline void pm_avro_skip(pm_avro_cursor *c, const pm_avro_schema *s) {
  if (s->fixed_width >= 0) {
    pm_avro_skip_raw(c, (size_t)s->fixed_width);
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
      pm_avro__skip_ops(c, s->skip_ops, s->skip_op_count, 0);
      return;
    default:
      pm_avro__skip_complex(c, s, 0);
  }
}

/* ------------------------------------------------------------------------- */
/* 3. Field resolution by name                                                */
/* ------------------------------------------------------------------------- */

typedef struct pm_avro_field_ref {
  int32_t writer_index;              /* index in record->fields, -1 if the file lacks the field */
  const pm_avro_schema *type;        /* writer type of the field (may be a union), NULL if missing */
  const pm_avro_schema *value_type;  /* type with a ["null",T]/[T,"null"] union unwrapped, NULL if missing */
  int32_t null_branch;               /* null branch index when type is such a union, else -1 */
} pm_avro_field_ref;

/* Maps the fields a caller wants (by name) onto a writer record. The record
 * may itself be a ["null", record] union (it is unwrapped). */
typedef struct pm_avro_record_map {
  const pm_avro_schema *record;   /* the (unwrapped) writer record */
  size_t wanted_count;
  pm_avro_field_ref *wanted;      /* [wanted_count], in the caller's order */
  size_t writer_count;            /* == record->field_count */
  int32_t *slot_of_writer_field;  /* [writer_count]: index into wanted, or -1 = skip this field */
} pm_avro_record_map;

/* Fills *m (caller-owned struct; arrays owned by it: pm_avro_record_map_free).
 * A schema that is not a record is PAIMON_ERR_CORRUPT naming `what`. Duplicate
 * wanted names map the writer field to the first of them. */
int pm_avro_record_map_init(pm_avro_record_map *m, const pm_avro_schema *record, const char *const *names,
                            size_t count, const char *what, pm_error *err);
void pm_avro_record_map_free(pm_avro_record_map *m); /* safe on a zeroed or freed map */

/* Reads the union branch of a field ref and says whether the value is null:
 * returns 1 if the value is null (nothing more to read), 0 if a value of
 * ref->value_type follows. Not-nullable fields read nothing and return 0. */
static inline int pm_avro_read_null_of(pm_avro_cursor *c, const pm_avro_field_ref *ref) {
  if (ref->null_branch < 0) return 0;
  int32_t b = pm_avro_read_union(c);
  if (__builtin_expect(b > 1, 0)) {
    pm_avro_cursor_fail(c, "union branch index out of range");
    return 1;
  }
  return b == ref->null_branch;
}

/* ------------------------------------------------------------------------- */
/* 4. Container reader                                                        */
/* ------------------------------------------------------------------------- */

typedef struct pm_avro_reader pm_avro_reader;

/* Reads and checks the header (magic, metadata, schema, codec, sync). The
 * reader borrows f (must outlive it). *out is owned by the caller: pm_avro_reader_close. */
int pm_avro_reader_open(pm_file *f, pm_avro_reader **out, pm_error *err);
/* Same, opening (and owning) the file at path (through fs; the path form uses the local fs). */
int pm_avro_reader_open_path(const char *path, pm_avro_reader **out, pm_error *err);
int pm_avro_reader_open_fs(pm_fs *fs, const char *path, pm_avro_reader **out, pm_error *err);
void pm_avro_reader_close(pm_avro_reader *r); /* NULL ok */

const pm_avro_schema *pm_avro_reader_schema(const pm_avro_reader *r); /* owned by r */
/* Writer schema JSON exactly as stored in the header (not NUL-terminated in the file; we add one). */
const char *pm_avro_reader_schema_json(const pm_avro_reader *r, size_t *len);
pm_codec pm_avro_reader_codec(const pm_avro_reader *r);        /* NONE, DEFLATE, SNAPPY or ZSTD */
const char *pm_avro_reader_codec_name(const pm_avro_reader *r); /* as in the header, "null" if absent */
const uint8_t *pm_avro_reader_sync(const pm_avro_reader *r);   /* 16 bytes */
const char *pm_avro_reader_path(const pm_avro_reader *r);
/* Header metadata: number of entries and the i-th key/value (value not NUL-terminated). */
size_t pm_avro_reader_meta_count(const pm_avro_reader *r);
const char *pm_avro_reader_meta_key(const pm_avro_reader *r, size_t i);
const uint8_t *pm_avro_reader_meta_value(const pm_avro_reader *r, size_t i, size_t *len);

/* Advances to the next block: reads its count and size, checks the sync
 * marker after it, decompresses (snappy CRC verified) and points *cur at its
 * bytes. *count = number of records in the block; 0 means end of file (and
 * *cur is empty). The bytes stay valid until the next call or close.
 * Errors name the file and the block's file offset. */
int pm_avro_reader_next_block(pm_avro_reader *r, pm_avro_cursor *cur, int64_t *count, pm_error *err);
/* File offset of the current block (its count varint), for messages. */
uint64_t pm_avro_reader_block_offset(const pm_avro_reader *r);

/* Turns a failed cursor into an error: "<file>: corrupt Avro data in block at
 * file offset N, byte M of the block (<field>): <reason>". Returns PAIMON_ERR_CORRUPT.
 * field may be NULL. Also usable when the cursor has not failed but the caller
 * found a value it rejects (then reason "invalid value"). */
int pm_avro_reader_cursor_error(const pm_avro_reader *r, const pm_avro_cursor *cur, const char *field, pm_error *err);

/* ------------------------------------------------------------------------- */
/* 5. Generic value tree (slow path: CLI, tests)                              */
/* ------------------------------------------------------------------------- */

typedef struct pm_avro_value pm_avro_value;
struct pm_avro_value {
  const pm_avro_schema *schema;   /* writer node of this value (the chosen branch for unions) */
  const pm_avro_schema *declared; /* node it was decoded with: the union itself for union values */
  int32_t branch;                 /* union branch taken when declared is a union, else -1 */
  union {
    int boolean;
    int64_t l;                  /* int, long, enum index */
    float f;
    double d;
  } u;
  uint8_t *bytes;               /* bytes/string/fixed (NUL-terminated copy), owned */
  size_t len;
  size_t count;                 /* record: field_count; array/map: items */
  pm_avro_value *items;         /* record fields / array items / map values, owned */
  char **keys;                  /* map keys (NUL-terminated), owned */
  size_t *key_lens;
};

/* Decodes one value of schema s into *out (caller-owned struct; free its
 * contents with pm_avro_value_clear). Data errors fail the cursor (check it). */
int pm_avro_decode_value(pm_avro_cursor *c, const pm_avro_schema *s, pm_avro_value *out, pm_error *err);
void pm_avro_value_clear(pm_avro_value *v);

/* Appends v as JSON in avro-dump's form: longs exact, bytes/fixed "0x<hex>",
 * floats shortest round-trip text ("NaN"/"Infinity" as strings), unions with a
 * single non-null branch unwrapped (else {"<branch name>": value}), maps as
 * objects, enums as symbol strings. */
int pm_avro_value_to_json(const pm_avro_value *v, pm_buf *out, pm_error *err);

/* ------------------------------------------------------------------------- */
/* 6. Encoder and container writer                                            */
/* ------------------------------------------------------------------------- */

/* Growable output for Avro binary encoding. Allocation failure is sticky
 * (failed = 1); the writer reports it at pm_avro_writer_end_record. */
typedef struct pm_avro_encoder {
  pm_buf buf;
  int failed;
} pm_avro_encoder;

static inline void pm_avro_put_raw(pm_avro_encoder *e, const void *p, size_t n) {
  if (e->failed) return;
  if (pm_buf_append(&e->buf, p, n)) e->failed = 1;
}

static inline void pm_avro_put_long(pm_avro_encoder *e, int64_t v) {
  if (e->failed || (e->buf.cap - e->buf.len < 10 && pm_buf_reserve(&e->buf, 10))) {
    e->failed = 1;
    return;
  }
  uint64_t u = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
  uint8_t *p = e->buf.data + e->buf.len;
  while (u >= 0x80) {
    *p++ = (uint8_t)(u | 0x80);
    u >>= 7;
  }
  *p++ = (uint8_t)u;
  e->buf.len = (size_t)(p - e->buf.data);
}
static inline void pm_avro_put_int(pm_avro_encoder *e, int32_t v) { pm_avro_put_long(e, v); }
static inline void pm_avro_put_boolean(pm_avro_encoder *e, int v) {
  uint8_t b = v ? 1 : 0;
  pm_avro_put_raw(e, &b, 1);
}
static inline void pm_avro_put_float(pm_avro_encoder *e, float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  uint8_t b[4] = {(uint8_t)u, (uint8_t)(u >> 8), (uint8_t)(u >> 16), (uint8_t)(u >> 24)};
  pm_avro_put_raw(e, b, 4);
}
static inline void pm_avro_put_double(pm_avro_encoder *e, double d) {
  uint64_t u;
  memcpy(&u, &d, 8);
  uint8_t b[8];
  for (int i = 0; i < 8; i++) b[i] = (uint8_t)(u >> (8 * i));
  pm_avro_put_raw(e, b, 8);
}
/* bytes and string: length + raw bytes. */
static inline void pm_avro_put_bytes(pm_avro_encoder *e, const void *p, size_t n) {
  pm_avro_put_long(e, (int64_t)n);
  pm_avro_put_raw(e, p, n);
}
static inline void pm_avro_put_string(pm_avro_encoder *e, const char *s) { pm_avro_put_bytes(e, s, strlen(s)); }
static inline void pm_avro_put_fixed(pm_avro_encoder *e, const void *p, size_t n) { pm_avro_put_raw(e, p, n); }
static inline void pm_avro_put_union(pm_avro_encoder *e, int32_t branch) { pm_avro_put_long(e, branch); }
static inline void pm_avro_put_enum(pm_avro_encoder *e, int32_t index) { pm_avro_put_long(e, index); }
/* Arrays and maps: put_block_count(n) then n items (maps: key string then
 * value), repeated; then put_block_end(). An empty array is just put_block_end(). */
static inline void pm_avro_put_block_count(pm_avro_encoder *e, int64_t n) { pm_avro_put_long(e, n); }
static inline void pm_avro_put_block_end(pm_avro_encoder *e) { pm_avro_put_long(e, 0); }

/* Encodes a generic value (as produced by pm_avro_decode_value) of schema s.
 * The value's shape must match s (union values carry their branch). */
int pm_avro_encode_value(pm_avro_encoder *e, const pm_avro_schema *s, const pm_avro_value *v, pm_error *err);

typedef struct pm_avro_writer_options {
  pm_codec codec;         /* PM_CODEC_ZSTD (default as in Java Paimon), NONE, DEFLATE or SNAPPY */
  int level;              /* codec level, 0 = default (zstd 1 as Paimon's file.compression.zstd-level) */
  size_t block_size;      /* flush a block once this many uncompressed bytes are buffered; 0 = 64000 (Avro's default) */
  const uint8_t *sync;    /* 16 bytes, NULL = random */
  int no_overwrite;       /* commit fails with PAIMON_ERR_CONFLICT if the file exists */
} pm_avro_writer_options;

typedef struct pm_avro_writer pm_avro_writer;

/* THE Avro object-container writer (data files and manifests). Starts a
 * container on an output sink (io/file.h; invisible until commit) with the
 * given writer schema JSON (parsed to validate; stored in the header byte for
 * byte as given). The writer owns the sink from the call on (also when it
 * fails): commit commits it (create-if-absent when opt->no_overwrite), abort
 * discards it. opt may be NULL (defaults). *out is owned by the caller:
 * exactly one of pm_avro_writer_commit / pm_avro_writer_abort frees it. */
int pm_avro_writer_open_sink(pm_out_file *sink, const char *schema_json, const pm_avro_writer_options *opt,
                             pm_avro_writer **out, pm_error *err);
/* Convenience: pm_avro_writer_open_sink on a new sink for path on the local fs. */
int pm_avro_writer_open(const char *path, const char *schema_json, const pm_avro_writer_options *opt,
                        pm_avro_writer **out, pm_error *err);
const pm_avro_schema *pm_avro_writer_schema(const pm_avro_writer *w); /* owned by w */
/* Encoder for the current record: append exactly one record's encoding, then
 * call pm_avro_writer_end_record (which may flush a block). */
pm_avro_encoder *pm_avro_writer_encoder(pm_avro_writer *w);
int pm_avro_writer_end_record(pm_avro_writer *w, pm_error *err);
/* Convenience: encode a generic value as one record. */
int pm_avro_writer_append_value(pm_avro_writer *w, const pm_avro_value *v, pm_error *err);
uint64_t pm_avro_writer_record_count(const pm_avro_writer *w);
/* Flushes the last block, syncs and renames the file into place; frees w.
 * *file_size (may be NULL) receives the final size (Paimon records it in manifests). */
int pm_avro_writer_commit(pm_avro_writer *w, uint64_t *file_size, pm_error *err);
void pm_avro_writer_abort(pm_avro_writer *w); /* NULL ok; discards the file */

/* Avro codec names ("null", "deflate", "snappy", "zstandard") <-> pm_codec. */
const char *pm_avro_codec_name(pm_codec c);
int pm_avro_codec_from_name(const char *name, pm_codec *out);

#endif
