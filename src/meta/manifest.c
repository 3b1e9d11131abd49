/* Manifest / manifest-list / index-manifest decoding and encoding (FORMAT.md 4). */
#include "meta/manifest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/avro/avro.h"
#include "io/file.h"
#include "meta/manifest_internal.h"

const uint8_t PM_EMPTY_ROW_BYTES[12] = {0};

/* ------------------------------------------------------------------ */
/* containers                                                         */

/* Item arrays come from pm_big_alloc: with a cache attached to the
 * container's arena (pm_manifest_entries_use_cache), big ones are reused
 * across containers (no fresh page faults per manifest). Growth is 4x, or
 * to what a block needs. */
#define DEFINE_VEC(T, prefix)                                                       \
  void prefix##_init(T *v) { memset(v, 0, sizeof(*v)); }                            \
  void prefix##_use_cache(T *v, pm_mem_cache *c) { pm_arena_use_cache(&v->arena, c); } \
  void prefix##_clear(T *v) {                                                       \
    pm_big_free(v->arena.cache, v->items, v->cap * sizeof(v->items[0]));            \
    pm_arena_free(&v->arena);                                                       \
    memset(v, 0, sizeof(*v));                                                       \
  }                                                                                 \
  static int prefix##_reserve_as(T *v, size_t extra, int exact, pm_error *err) {    \
    if (extra <= v->cap - v->n) return 0;                                           \
    if (extra > SIZE_MAX / 2 / sizeof(v->items[0]) - v->n) return PM_NOMEM(err);    \
    size_t nc = exact ? 0 : v->cap ? v->cap * 4 : 256;                              \
    if (nc < v->n + extra) nc = v->n + extra;                                       \
    if (nc > SIZE_MAX / sizeof(v->items[0])) return PM_NOMEM(err);                  \
    size_t got = 0;                                                                 \
    void *p = pm_big_alloc(v->arena.cache, nc * sizeof(v->items[0]), &got);         \
    if (!p) return PM_NOMEM(err);                                                   \
    if (v->n) memcpy(p, v->items, v->n * sizeof(v->items[0]));                      \
    pm_big_free(v->arena.cache, v->items, v->cap * sizeof(v->items[0]));            \
    v->items = p;                                                                   \
    v->cap = got / sizeof(v->items[0]);                                             \
    return 0;                                                                       \
  }                                                                                 \
  static inline int prefix##_grow(T *v, pm_error *err) {                            \
    return v->n < v->cap ? 0 : prefix##_reserve_as(v, 1, 0, err);                   \
  }

DEFINE_VEC(pm_manifest_entries, pm_manifest_entries)
DEFINE_VEC(pm_manifest_file_metas, pm_manifest_file_metas)
DEFINE_VEC(pm_index_entries, pm_index_entries)

int pm_manifest_entries_append_owned(pm_manifest_entries *v, const pm_manifest_entry *e, pm_error *err) {
  PM_TRY(pm_manifest_entries_grow(v, err));
  v->items[v->n++] = *e;
  return 0;
}
int pm_manifest_file_metas_append_owned(pm_manifest_file_metas *v, const pm_manifest_file_meta *e, pm_error *err) {
  PM_TRY(pm_manifest_file_metas_grow(v, err));
  v->items[v->n++] = *e;
  return 0;
}
int pm_index_entries_append_owned(pm_index_entries *v, const pm_index_manifest_entry *e, pm_error *err) {
  PM_TRY(pm_index_entries_grow(v, err));
  v->items[v->n++] = *e;
  return 0;
}

static int is_orc(const uint8_t *data, size_t len) { return len >= 3 && memcmp(data, "ORC", 3) == 0; }

void pm_simple_stats_empty(pm_simple_stats *s) {
  memset(s, 0, sizeof(*s));
  s->min_values.data = PM_EMPTY_ROW_BYTES;
  s->min_values.len = 12;
  s->max_values.data = PM_EMPTY_ROW_BYTES;
  s->max_values.len = 12;
}

/* ------------------------------------------------------------------ */
/* decoding helpers                                                   */

typedef struct decoder {
  pm_avro_reader *r;
  pm_avro_cursor cur;
  pm_arena *arena;
  pm_error *err;
  int oom;
} decoder;

static const char *arena_str(decoder *d, pm_avro_bytes b) {
  char *s = pm_arena_strndup(d->arena, (const char *)b.ptr, b.len);
  if (!s) d->oom = 1;
  return s;
}

static pm_bytes arena_bytes(decoder *d, pm_avro_bytes b) {
  pm_bytes r = {NULL, b.len};
  /* the empty row (unpartitioned tables, append-table keys and key stats) is shared, not copied */
  if (b.len == 12 && memcmp(b.ptr, PM_EMPTY_ROW_BYTES, 12) == 0) {
    r.data = PM_EMPTY_ROW_BYTES;
    return r;
  }
  r.data = pm_arena_memdup(d->arena, b.ptr, b.len);
  if (!r.data) d->oom = 1;
  return r;
}

/* Length (1..8) of the varint at p when it ends within the 8 bytes there
 * (caller ensures end - p >= 8), else 0. Skipping needs only lengths. A byte
 * loop on purpose: branch prediction runs ahead of it, while a branch-free
 * word scan puts every item's load on one dependency chain (measured slower). */
static inline size_t varint_len8(const uint8_t *p) {
  for (size_t i = 0; i < 8; i++)
    if (p[i] < 0x80) return i + 1;
  return 0;
}

/* Skips one varint (the checked decoder when it is long or near the end). */
static inline void skip_varint(pm_avro_cursor *c) {
  if (c->end - c->pos >= 8) {
    size_t n = varint_len8(c->pos);
    if (n) {
      c->pos += n;
      return;
    }
  }
  (void)pm_avro__varint(c);
}

/* Reads a nullable value header of a field: returns 1 when null. */
static inline int field_null(pm_avro_cursor *c, const pm_avro_field_ref *ref) { return pm_avro_read_null_of(c, ref); }

/* Reads an array value (items may be ["null", T]) into an arena array of
 * int64 (PM_NULL_COUNT_UNKNOWN for null items). */
/* Makes room in an arena array for bn more items after n (old items copied).
 * Returns non-zero after failing the cursor (too long, or out of memory). */
static int arena_grow(decoder *d, pm_avro_cursor *c, void **vals, int64_t n, int64_t bn, int64_t *cap, size_t size) {
  if (n + bn > INT32_MAX) {
    pm_avro_cursor_fail(c, "array too long");
    return 1;
  }
  if (n + bn <= *cap) return 0;
  void *nv = pm_arena_alloc(d->arena, (size_t)(n + bn) * size);
  if (!nv) {
    d->oom = 1;
    pm_avro_cursor_fail(c, "out of memory");
    return 1;
  }
  if (n) memcpy(nv, *vals, (size_t)n * size);
  *vals = nv;
  *cap = n + bn;
  return 0;
}

static int64_t *read_long_items(decoder *d, pm_avro_cursor *c, int32_t inull, int32_t *count);

static int64_t *read_long_array(decoder *d, pm_avro_cursor *c, const pm_avro_schema *arr, int32_t *count) {
  int32_t inull = -1;
  pm_avro_unwrap_nullable(arr->items, &inull);
  return read_long_items(d, c, inull, count);
}

/* Same with the items' null branch known (-1: items are not nullable). */
static int64_t *read_long_items(decoder *d, pm_avro_cursor *c, int32_t inull, int32_t *count) {
  const uint8_t null_byte = inull == 0 ? 0x00 : 0x02, value_byte = inull == 0 ? 0x02 : 0x00;
  int64_t *vals = NULL;
  int64_t n = 0, cap = 0;
  for (;;) {
    int64_t bn = pm_avro_read_block_count(c, NULL);
    if (bn <= 0) break;
    void *grown = vals;
    if (arena_grow(d, c, &grown, n, bn, &cap, sizeof *vals)) break;
    vals = grown;
    for (int64_t i = 0; i < bn; i++) {
      const uint8_t *p = c->pos; /* one-byte fast paths as in skip_long_items */
      if (c->end - p >= 2) {
        if (inull < 0) {
          if (p[0] < 0x80) {
            vals[n++] = (int64_t)(p[0] >> 1) ^ -(int64_t)(p[0] & 1);
            c->pos = p + 1;
            continue;
          }
        } else if (p[0] == null_byte) {
          vals[n++] = PM_NULL_COUNT_UNKNOWN;
          c->pos = p + 1;
          continue;
        } else if (p[0] == value_byte && p[1] < 0x80) {
          vals[n++] = (int64_t)(p[1] >> 1) ^ -(int64_t)(p[1] & 1);
          c->pos = p + 2;
          continue;
        }
      }
      if (inull >= 0) {
        int32_t b = pm_avro_read_union(c);
        if (b == inull) {
          vals[n++] = PM_NULL_COUNT_UNKNOWN;
          continue;
        }
      }
      vals[n++] = pm_avro_read_long(c);
    }
  }
  *count = (int32_t)n;
  return vals;
}

static int32_t *read_int_array(decoder *d, pm_avro_cursor *c, const pm_avro_schema *arr, int32_t *count) {
  int32_t cnt = 0;
  int64_t *l = read_long_array(d, c, arr, &cnt);
  int32_t *v = cnt ? pm_arena_alloc(d->arena, (size_t)cnt * sizeof(int32_t)) : NULL;
  if (cnt && !v) d->oom = 1;
  for (int32_t i = 0; v && i < cnt; i++) v[i] = (int32_t)l[i];
  *count = cnt;
  return v;
}

static pm_str_list read_str_array(decoder *d, pm_avro_cursor *c, const pm_avro_schema *arr) {
  pm_str_list out = {NULL, 0, 0};
  int32_t inull = -1;
  pm_avro_unwrap_nullable(arr->items, &inull);
  const char **vals = NULL;
  int64_t n = 0, cap = 0;
  for (;;) {
    int64_t bn = pm_avro_read_block_count(c, NULL);
    if (bn <= 0) break;
    if (n + bn > INT32_MAX) {
      pm_avro_cursor_fail(c, "array too long");
      break;
    }
    if (n + bn > cap) {
      int64_t nc = n + bn;
      const char **nv = pm_arena_alloc(d->arena, (size_t)nc * sizeof(char *));
      if (!nv) {
        d->oom = 1;
        pm_avro_cursor_fail(c, "out of memory");
        break;
      }
      if (n) memcpy(nv, vals, (size_t)n * sizeof(char *));
      vals = nv;
      cap = nc;
    }
    for (int64_t i = 0; i < bn; i++) {
      if (inull >= 0 && pm_avro_read_union(c) == inull) {
        vals[n++] = NULL;
        continue;
      }
      vals[n++] = arena_str(d, pm_avro_read_string(c));
    }
  }
  out.items = vals;
  out.n = (int32_t)n;
  return out;
}

/* Resolved layout of a SimpleStats record. */
typedef struct stats_map {
  pm_avro_record_map m;
} stats_map;

static const char *const STATS_FIELDS[] = {"_MIN_VALUES", "_MAX_VALUES", "_NULL_COUNTS"};

static int stats_map_init(stats_map *s, const pm_avro_field_ref *ref, const char *what, pm_error *err) {
  memset(s, 0, sizeof(*s));
  if (!ref->value_type) return 0;
  return pm_avro_record_map_init(&s->m, ref->value_type, STATS_FIELDS, 3, what, err);
}

/* Raw (view) form of SimpleStats: the null-count array is re-read on materialization. */
typedef struct raw_stats {
  pm_avro_bytes min, max;
  const uint8_t *nc_pos; /* NULL = null array */
  const pm_avro_schema *nc_type;
  int32_t nc_null_branch; /* items' null branch when known (standard layout), else -2 */
  int present;
  int nc_read;            /* null counts already read into nc_vals (entries that are kept anyway) */
  int32_t nc_n;
  int64_t *nc_vals;
} raw_stats;

/* Skips an array whose items are long or ["null", long] (null counts, sequences) quickly;
 * falls back to the generic skip for anything else. */
static void skip_long_items(pm_avro_cursor *c, int32_t inull);

static void skip_long_array(pm_avro_cursor *c, const pm_avro_schema *arr) {
  int32_t inull = -1;
  const pm_avro_schema *it = pm_avro_unwrap_nullable(arr->items, &inull);
  if (it->type != PM_AVRO_LONG && it->type != PM_AVRO_INT) {
    pm_avro_skip(c, arr);
    return;
  }
  skip_long_items(c, inull);
}

/* Skips an array of long/int items whose null branch is inull (-1: not nullable). */
static void skip_long_items(pm_avro_cursor *c, int32_t inull) {
  for (;;) {
    int64_t bs;
    int64_t bn = pm_avro_read_block_count(c, &bs);
    if (bn <= 0) return;
    if (bs >= 0) {
      pm_avro_skip_raw(c, (size_t)bs);
      continue;
    }
    /* fast path away from the block end: a null item is its branch byte, a
     * value is the branch byte and a varint (lengths only, local pointer) */
    const uint8_t null_byte = inull == 0 ? 0x00 : 0x02, value_byte = inull == 0 ? 0x02 : 0x00;
    const uint8_t *p = c->pos, *end = c->end;
    for (int64_t i = 0; i < bn; i++) {
      if (end - p >= 9) {
        if (inull < 0) {
          size_t len = varint_len8(p);
          if (len) {
            p += len;
            continue;
          }
        } else if (p[0] == null_byte) {
          p++;
          continue;
        } else if (p[0] == value_byte) {
          size_t len = varint_len8(p + 1);
          if (len) {
            p += 1 + len;
            continue;
          }
        }
      }
      c->pos = p;
      if (!(inull >= 0 && pm_avro_read_union(c) == inull)) (void)pm_avro_read_long(c);
      p = c->pos;
    }
    c->pos = p;
  }
}

/* Arrays are usually empty: one zero byte. */
static inline void skip_array(pm_avro_cursor *c, const pm_avro_schema *arr) {
  if (c->pos < c->end && *c->pos == 0) {
    c->pos++;
    return;
  }
  pm_avro_skip(c, arr);
}

static void scan_stats(pm_avro_cursor *c, const stats_map *s, raw_stats *out) {
  memset(out, 0, sizeof(*out));
  out->present = 1;
  out->nc_null_branch = -2;
  const pm_avro_record_map *m = &s->m;
  for (size_t f = 0; f < m->writer_count; f++) {
    int32_t slot = m->slot_of_writer_field[f];
    const pm_avro_schema *t = m->record->fields[f].type;
    if (slot < 0) {
      pm_avro_skip(c, t);
      continue;
    }
    const pm_avro_field_ref *ref = &m->wanted[slot];
    if (field_null(c, ref)) continue;
    switch (slot) {
      case 0: out->min = pm_avro_read_bytes(c); break;
      case 1: out->max = pm_avro_read_bytes(c); break;
      case 2:
        out->nc_pos = c->pos;
        out->nc_type = ref->value_type;
        if (ref->value_type->type != PM_AVRO_ARRAY) pm_avro_cursor_fail(c, "_NULL_COUNTS is not an array");
        else skip_long_array(c, ref->value_type);
        break;
    }
  }
}

/* seen again when b has the same bytes as that already copied value (key
 * stats of a one-column primary key equal the min/max keys; consecutive
 * entries of one partition): no second copy. Compared with the copy, never
 * with an earlier view (the block buffer is reused). */
static pm_bytes arena_bytes_shared(decoder *d, pm_avro_bytes b, pm_bytes seen) {
  if (seen.data && b.len == seen.len && (b.len == 0 || memcmp(b.ptr, seen.data, b.len) == 0)) return seen;
  return arena_bytes(d, b);
}

/* seen_* (may be NULL): already copied min/max values that the stats may repeat. */
static void materialize_stats_shared(decoder *d, const raw_stats *r, pm_simple_stats *out, const uint8_t *block_end,
                                     const pm_bytes *seen) {
  if (!r->present) {
    pm_simple_stats_empty(out);
    return;
  }
  memset(out, 0, sizeof(*out));
  if (seen) {
    out->min_values = arena_bytes_shared(d, r->min, seen[0]);
    out->max_values = arena_bytes_shared(d, r->max, seen[1]);
  } else {
    out->min_values = arena_bytes(d, r->min);
    out->max_values = arena_bytes(d, r->max);
  }
  if (!r->nc_pos) {
    out->null_counts_is_null = 1;
    return;
  }
  if (r->nc_read) {
    out->null_counts = r->nc_vals;
    out->n_null_counts = r->nc_n;
    return;
  }
  pm_avro_cursor c;
  pm_avro_cursor_init(&c, r->nc_pos, (size_t)(block_end - r->nc_pos));
  out->null_counts = r->nc_null_branch >= -1 ? read_long_items(d, &c, r->nc_null_branch, &out->n_null_counts)
                                             : read_long_array(d, &c, r->nc_type, &out->n_null_counts);
}

static void materialize_stats(decoder *d, const raw_stats *r, pm_simple_stats *out, const uint8_t *block_end) {
  materialize_stats_shared(d, r, out, block_end, NULL);
}

/* Reads SimpleStats directly (manifest list). */
static void read_stats(decoder *d, pm_avro_cursor *c, const stats_map *s, pm_simple_stats *out) {
  raw_stats r;
  scan_stats(c, s, &r);
  if (pm_avro_cursor_failed(c)) {
    memset(out, 0, sizeof(*out));
    return;
  }
  materialize_stats(d, &r, out, c->end);
}

static int open_reader(const uint8_t *data, size_t len, const char *name, pm_file **f, pm_avro_reader **r,
                       pm_error *err) {
  if (len == 0) return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: manifest file is empty (0 bytes)", name);
  PM_TRY(pm_file_from_memory(data, len, name, f, err));
  int rc = pm_avro_reader_open(*f, r, err);
  if (rc) {
    pm_file_close(*f);
    *f = NULL;
  }
  return rc;
}

/* Reads a whole file into memory then calls fn. */
typedef int (*decode_fn)(const uint8_t *, size_t, const char *, void *, pm_error *);

static int read_whole(pm_fs *fs, const char *path, pm_buf *b, pm_error *err) {
  pm_buf_init(b);
  return pm_fs_read_file(fs, path, b, 0, err);
}

/* ------------------------------------------------------------------ */
/* manifest entries                                                   */

enum { T_VERSION, T_KIND, T_PARTITION, T_BUCKET, T_TOTAL_BUCKETS, T_FILE, T_COUNT };
static const char *const TOP_FIELDS[T_COUNT] = {"_VERSION", "_KIND", "_PARTITION", "_BUCKET", "_TOTAL_BUCKETS", "_FILE"};

enum {
  F_FILE_NAME, F_FILE_SIZE, F_ROW_COUNT, F_MIN_KEY, F_MAX_KEY, F_KEY_STATS, F_VALUE_STATS, F_MIN_SEQ, F_MAX_SEQ,
  F_SCHEMA_ID, F_LEVEL, F_EXTRA_FILES, F_CREATION_TIME, F_DELETE_ROW_COUNT, F_EMBEDDED_INDEX, F_FILE_SOURCE,
  F_VALUE_STATS_COLS, F_EXTERNAL_PATH, F_FIRST_ROW_ID, F_WRITE_COLS, F_WRITE_COLS_SEQ, F_COUNT
};
static const char *const FILE_FIELDS[F_COUNT] = {
    "_FILE_NAME", "_FILE_SIZE", "_ROW_COUNT", "_MIN_KEY", "_MAX_KEY", "_KEY_STATS", "_VALUE_STATS",
    "_MIN_SEQUENCE_NUMBER", "_MAX_SEQUENCE_NUMBER", "_SCHEMA_ID", "_LEVEL", "_EXTRA_FILES", "_CREATION_TIME",
    "_DELETE_ROW_COUNT", "_EMBEDDED_FILE_INDEX", "_FILE_SOURCE", "_VALUE_STATS_COLS", "_EXTERNAL_PATH",
    "_FIRST_ROW_ID", "_WRITE_COLS", "_WRITE_COLS_SEQUENCES"};

typedef struct raw_file {
  pm_avro_bytes file_name, min_key, max_key, embedded, external_path;
  int has_embedded, has_external_path;
  int64_t file_size, row_count, min_seq, max_seq, schema_id, creation, delete_rows, first_row_id;
  int has_creation, has_delete_rows, has_first_row_id;
  int32_t level;
  int32_t file_source;
  raw_stats key_stats, value_stats;
  const uint8_t *arr_pos[4]; /* extra files, value stats cols, write cols, write cols seq (NULL = null) */
  const pm_avro_schema *arr_type[4];
} raw_file;

typedef struct manifest_layout {
  pm_avro_record_map top, file;
  stats_map key_stats, value_stats;
  int32_t top_null_branch;
  int fast;             /* writer schema is a prefix of Java's current layout: straight-line decoding */
  size_t n_file_fields; /* fast path: number of _FILE fields in the file (12..21) */
} manifest_layout;

/* Expected Avro types of the _FILE fields in Java's order (after union unwrapping). */
static const pm_avro_type FILE_TYPES[F_COUNT] = {
    PM_AVRO_STRING, PM_AVRO_LONG, PM_AVRO_LONG, PM_AVRO_BYTES, PM_AVRO_BYTES, PM_AVRO_RECORD, PM_AVRO_RECORD,
    PM_AVRO_LONG, PM_AVRO_LONG, PM_AVRO_LONG, PM_AVRO_INT, PM_AVRO_ARRAY, PM_AVRO_LONG, PM_AVRO_LONG,
    PM_AVRO_BYTES, PM_AVRO_INT, PM_AVRO_ARRAY, PM_AVRO_STRING, PM_AVRO_LONG, PM_AVRO_ARRAY, PM_AVRO_ARRAY};
static const pm_avro_type TOP_TYPES[T_COUNT] = {PM_AVRO_INT, PM_AVRO_INT, PM_AVRO_BYTES, PM_AVRO_INT, PM_AVRO_INT,
                                                PM_AVRO_RECORD};

static int stats_is_standard(const stats_map *s) {
  const pm_avro_record_map *m = &s->m;
  if (!m->record || m->writer_count != 3) return 0;
  for (int i = 0; i < 3; i++)
    if (m->slot_of_writer_field[i] != i) return 0;
  if (m->wanted[0].null_branch != -1 || m->wanted[1].null_branch != -1 || m->wanted[2].null_branch != 0) return 0;
  if (m->wanted[0].value_type->type != PM_AVRO_BYTES || m->wanted[1].value_type->type != PM_AVRO_BYTES) return 0;
  const pm_avro_schema *arr = m->wanted[2].value_type;
  if (arr->type != PM_AVRO_ARRAY) return 0;
  int32_t nb = -1;
  const pm_avro_schema *it = pm_avro_unwrap_nullable(arr->items, &nb);
  return nb == 0 && it->type == PM_AVRO_LONG;
}

static int layout_is_fast(const manifest_layout *l) {
  if (l->top_null_branch >= 0 || l->top.writer_count != T_COUNT) return 0;
  for (size_t i = 0; i < T_COUNT; i++) {
    const pm_avro_field_ref *r = &l->top.wanted[i];
    if (l->top.slot_of_writer_field[i] != (int32_t)i || r->null_branch != -1 || r->value_type->type != TOP_TYPES[i])
      return 0;
  }
  size_t k = l->file.writer_count;
  if (k < 12 || k > F_COUNT) return 0;
  for (size_t i = 0; i < k; i++) {
    const pm_avro_field_ref *r = &l->file.wanted[i];
    if (l->file.slot_of_writer_field[i] != (int32_t)i || r->value_type->type != FILE_TYPES[i]) return 0;
    if (r->null_branch != (i < 12 ? -1 : 0)) return 0;
    if (FILE_TYPES[i] == PM_AVRO_ARRAY) {
      const pm_avro_schema *it = r->value_type->items;
      if (it->type != (i == F_WRITE_COLS_SEQ ? PM_AVRO_LONG : PM_AVRO_STRING)) return 0;
    }
  }
  return stats_is_standard(&l->key_stats) && stats_is_standard(&l->value_stats);
}

/* keep (may be NULL): decoder of an entry that will be materialized, so the
 * null counts are read right away instead of skipped and read again. */
static inline void fast_stats(pm_avro_cursor *c, const stats_map *s, raw_stats *st, decoder *keep) {
  st->present = 1;
  st->min = pm_avro_read_bytes(c);
  st->max = pm_avro_read_bytes(c);
  st->nc_type = s->m.wanted[2].value_type;
  st->nc_null_branch = 0; /* standard stats: items ["null", "long"] */
  if (pm_avro_read_union(c) == 0) {
    st->nc_pos = NULL;
  } else {
    st->nc_pos = c->pos;
    if (keep) st->nc_vals = read_long_items(keep, c, 0, &st->nc_n);
    else skip_long_items(c, 0);
  }
  st->nc_read = keep != NULL;
}

/* Straight-line decoding of a _FILE record laid out exactly as Java writes it. */
static void scan_file_fast(pm_avro_cursor *c, const manifest_layout *l, raw_file *rf, decoder *keep) {
  const pm_avro_field_ref *w = l->file.wanted;
  size_t k = l->n_file_fields;
  rf->file_name = pm_avro_read_string(c);
  rf->file_size = pm_avro_read_long(c);
  rf->row_count = pm_avro_read_long(c);
  rf->min_key = pm_avro_read_bytes(c);
  rf->max_key = pm_avro_read_bytes(c);
  fast_stats(c, &l->key_stats, &rf->key_stats, keep);
  fast_stats(c, &l->value_stats, &rf->value_stats, keep);
  rf->min_seq = pm_avro_read_long(c);
  rf->max_seq = pm_avro_read_long(c);
  rf->schema_id = pm_avro_read_long(c);
  rf->level = pm_avro_read_int(c);
  rf->arr_pos[0] = c->pos;
  rf->arr_type[0] = w[F_EXTRA_FILES].value_type;
  skip_array(c, rf->arr_type[0]);
  rf->has_creation = rf->has_delete_rows = rf->has_embedded = rf->has_external_path = rf->has_first_row_id = 0;
  rf->creation = rf->delete_rows = rf->first_row_id = 0;
  rf->file_source = -1;
  rf->arr_pos[1] = rf->arr_pos[2] = rf->arr_pos[3] = NULL;
  for (size_t i = 12; i < k; i++) {
    if (pm_avro_read_union(c) == 0) continue;
    switch (i) {
      case F_CREATION_TIME: rf->creation = pm_avro_read_long(c); rf->has_creation = 1; break;
      case F_DELETE_ROW_COUNT: rf->delete_rows = pm_avro_read_long(c); rf->has_delete_rows = 1; break;
      case F_EMBEDDED_INDEX: rf->embedded = pm_avro_read_bytes(c); rf->has_embedded = 1; break;
      case F_FILE_SOURCE: rf->file_source = pm_avro_read_int(c); break;
      case F_EXTERNAL_PATH: rf->external_path = pm_avro_read_string(c); rf->has_external_path = 1; break;
      case F_FIRST_ROW_ID: rf->first_row_id = pm_avro_read_long(c); rf->has_first_row_id = 1; break;
      case F_VALUE_STATS_COLS:
      case F_WRITE_COLS:
      case F_WRITE_COLS_SEQ: {
        int a = i == F_VALUE_STATS_COLS ? 1 : i == F_WRITE_COLS ? 2 : 3;
        rf->arr_pos[a] = c->pos;
        rf->arr_type[a] = w[i].value_type;
        if (a == 3) skip_long_array(c, rf->arr_type[a]);
        else skip_array(c, rf->arr_type[a]);
        break;
      }
      default: pm_avro_cursor_fail(c, "unexpected field"); break;
    }
  }
}

static inline void skip_bytes(pm_avro_cursor *c) { (void)pm_avro_read_bytes(c); }

/* Skips a _FILE record of the fast layout without keeping anything (entries
 * rejected by a head filter): same bytes as scan_file_fast, less work. */
static void skip_file_fast(pm_avro_cursor *c, const manifest_layout *l) {
  const pm_avro_field_ref *w = l->file.wanted;
  size_t k = l->n_file_fields;
  skip_bytes(c); /* _FILE_NAME */
  skip_varint(c);
  skip_varint(c);
  skip_bytes(c); /* keys */
  skip_bytes(c);
  for (int s = 0; s < 2; s++) { /* key stats, value stats */
    skip_bytes(c);
    skip_bytes(c);
    if (pm_avro_read_union(c) != 0) skip_long_items(c, 0);
  }
  skip_varint(c); /* sequence numbers, schema id, level */
  skip_varint(c);
  skip_varint(c);
  skip_varint(c);
  skip_array(c, w[F_EXTRA_FILES].value_type);
  for (size_t i = 12; i < k; i++) {
    if (pm_avro_read_union(c) == 0) continue;
    switch (FILE_TYPES[i]) {
      case PM_AVRO_LONG:
      case PM_AVRO_INT: skip_varint(c); break;
      case PM_AVRO_BYTES:
      case PM_AVRO_STRING: skip_bytes(c); break;
      default:
        if (i == F_WRITE_COLS_SEQ) skip_long_items(c, -1);
        else skip_array(c, w[i].value_type);
        break;
    }
  }
}

static void layout_free(manifest_layout *l) {
  pm_avro_record_map_free(&l->top);
  pm_avro_record_map_free(&l->file);
  pm_avro_record_map_free(&l->key_stats.m);
  pm_avro_record_map_free(&l->value_stats.m);
}

static int manifest_layout_init(manifest_layout *l, pm_avro_reader *r, const char *name, pm_error *err) {
  memset(l, 0, sizeof(*l));
  const pm_avro_schema *root = pm_avro_unwrap_nullable(pm_avro_reader_schema(r), &l->top_null_branch);
  PM_TRY(pm_avro_record_map_init(&l->top, root, TOP_FIELDS, T_COUNT, name, err));
  const pm_avro_field_ref *fref = &l->top.wanted[T_FILE];
  if (!fref->value_type || fref->value_type->type != PM_AVRO_RECORD)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: manifest schema has no _FILE record", name);
  PM_TRY(pm_avro_record_map_init(&l->file, fref->value_type, FILE_FIELDS, F_COUNT, name, err));
  if (l->file.wanted[F_FILE_NAME].writer_index < 0)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: manifest _FILE record has no _FILE_NAME", name);
  PM_TRY(stats_map_init(&l->key_stats, &l->file.wanted[F_KEY_STATS], name, err));
  PM_TRY(stats_map_init(&l->value_stats, &l->file.wanted[F_VALUE_STATS], name, err));
  l->fast = layout_is_fast(l);
  l->n_file_fields = l->file.writer_count;
  return 0;
}

static void scan_file(pm_avro_cursor *c, const manifest_layout *l, raw_file *rf) {
  memset(rf, 0, sizeof(*rf));
  rf->file_source = -1;
  const pm_avro_record_map *m = &l->file;
  for (size_t f = 0; f < m->writer_count; f++) {
    int32_t slot = m->slot_of_writer_field[f];
    if (slot < 0) {
      pm_avro_skip(c, m->record->fields[f].type);
      continue;
    }
    const pm_avro_field_ref *ref = &m->wanted[slot];
    if (field_null(c, ref)) continue;
    switch (slot) {
      case F_FILE_NAME: rf->file_name = pm_avro_read_string(c); break;
      case F_FILE_SIZE: rf->file_size = pm_avro_read_long(c); break;
      case F_ROW_COUNT: rf->row_count = pm_avro_read_long(c); break;
      case F_MIN_KEY: rf->min_key = pm_avro_read_bytes(c); break;
      case F_MAX_KEY: rf->max_key = pm_avro_read_bytes(c); break;
      case F_KEY_STATS: scan_stats(c, &l->key_stats, &rf->key_stats); break;
      case F_VALUE_STATS: scan_stats(c, &l->value_stats, &rf->value_stats); break;
      case F_MIN_SEQ: rf->min_seq = pm_avro_read_long(c); break;
      case F_MAX_SEQ: rf->max_seq = pm_avro_read_long(c); break;
      case F_SCHEMA_ID: rf->schema_id = pm_avro_read_long(c); break;
      case F_LEVEL: rf->level = pm_avro_read_int(c); break;
      case F_CREATION_TIME: rf->creation = pm_avro_read_long(c); rf->has_creation = 1; break;
      case F_DELETE_ROW_COUNT: rf->delete_rows = pm_avro_read_long(c); rf->has_delete_rows = 1; break;
      case F_EMBEDDED_INDEX: rf->embedded = pm_avro_read_bytes(c); rf->has_embedded = 1; break;
      case F_FILE_SOURCE: rf->file_source = pm_avro_read_int(c); break;
      case F_EXTERNAL_PATH: rf->external_path = pm_avro_read_string(c); rf->has_external_path = 1; break;
      case F_FIRST_ROW_ID: rf->first_row_id = pm_avro_read_long(c); rf->has_first_row_id = 1; break;
      case F_EXTRA_FILES:
      case F_VALUE_STATS_COLS:
      case F_WRITE_COLS:
      case F_WRITE_COLS_SEQ: {
        int k = slot == F_EXTRA_FILES ? 0 : slot == F_VALUE_STATS_COLS ? 1 : slot == F_WRITE_COLS ? 2 : 3;
        if (ref->value_type->type != PM_AVRO_ARRAY) {
          pm_avro_cursor_fail(c, "expected an array");
          break;
        }
        rf->arr_pos[k] = c->pos;
        rf->arr_type[k] = ref->value_type;
        if (k == 3) skip_long_array(c, ref->value_type);
        else skip_array(c, ref->value_type);
        break;
      }
    }
  }
}

static void materialize_file(decoder *d, const raw_file *rf, pm_data_file_meta *fm, const uint8_t *block_end) {
  memset(fm, 0, sizeof(*fm));
  fm->file_name = arena_str(d, rf->file_name);
  fm->file_size = rf->file_size;
  fm->row_count = rf->row_count;
  fm->min_key = arena_bytes(d, rf->min_key);
  fm->max_key = arena_bytes(d, rf->max_key);
  pm_bytes keys[2] = {fm->min_key, fm->max_key};
  materialize_stats_shared(d, &rf->key_stats, &fm->key_stats, block_end, keys);
  materialize_stats(d, &rf->value_stats, &fm->value_stats, block_end);
  fm->min_sequence_number = rf->min_seq;
  fm->max_sequence_number = rf->max_seq;
  fm->schema_id = rf->schema_id;
  fm->level = rf->level;
  fm->creation_time_millis = rf->creation;
  fm->has_creation_time = rf->has_creation;
  fm->delete_row_count = rf->delete_rows;
  fm->has_delete_row_count = rf->has_delete_rows;
  if (rf->has_embedded) {
    fm->embedded_index = arena_bytes(d, rf->embedded);
    fm->has_embedded_index = 1;
  }
  fm->file_source = (int8_t)rf->file_source;
  if (rf->has_external_path) fm->external_path = arena_str(d, rf->external_path);
  fm->first_row_id = rf->first_row_id;
  fm->has_first_row_id = rf->has_first_row_id;
  pm_str_list *lists[3] = {&fm->extra_files, &fm->value_stats_cols, &fm->write_cols};
  for (int k = 0; k < 3; k++) {
    if (!rf->arr_pos[k]) {
      lists[k]->is_null = k != 0; /* _EXTRA_FILES is never null: missing = empty */
      continue;
    }
    pm_avro_cursor c;
    pm_avro_cursor_init(&c, rf->arr_pos[k], (size_t)(block_end - rf->arr_pos[k]));
    *lists[k] = read_str_array(d, &c, rf->arr_type[k]);
  }
  if (!rf->arr_pos[3]) {
    fm->write_cols_sequences_is_null = 1;
  } else {
    pm_avro_cursor c;
    pm_avro_cursor_init(&c, rf->arr_pos[3], (size_t)(block_end - rf->arr_pos[3]));
    fm->write_cols_sequences = read_long_array(d, &c, rf->arr_type[3], &fm->n_write_cols_sequences);
  }
}

/* ORC manifests (and the generic Avro path) apply both stages on the full head. */
static int both_filters(void *ctx, const pm_entry_head *h) {
  const pm_manifest_filters *fs = ctx;
  if (fs->head_filter && !fs->head_filter(fs->ctx, h)) return 0;
  return !fs->filter || fs->filter(fs->ctx, h);
}

int pm_manifest_decode(const uint8_t *data, size_t len, const char *name, pm_entry_filter_fn filter,
                       void *filter_ctx, pm_manifest_entries *out, pm_error *err) {
  pm_manifest_filters fs = {NULL, filter, filter_ctx};
  return pm_manifest_decode_filtered(data, len, name, &fs, out, err);
}

int pm_manifest_decode_filtered(const uint8_t *data, size_t len, const char *name,
                                const pm_manifest_filters *filters, pm_manifest_entries *out, pm_error *err) {
  static const pm_manifest_filters no_filters = {NULL, NULL, NULL};
  if (!filters) filters = &no_filters;
  pm_entry_filter_fn head_filter = filters->head_filter;
  void *filter_ctx = filters->ctx;
  /* one combined callback wherever the head is only known in full */
  pm_entry_filter_fn filter = head_filter ? both_filters : filters->filter;
  if (head_filter) filter_ctx = (void *)filters;
  if (is_orc(data, len)) return pm_manifest_decode_orc(data, len, name, filter, filter_ctx, out, err);
  pm_file *f = NULL;
  pm_avro_reader *r = NULL;
  PM_TRY(open_reader(data, len, name, &f, &r, err));
  manifest_layout l;
  int rc = manifest_layout_init(&l, r, name, err);
  decoder d = {.r = r, .arena = &out->arena, .err = err};
  int64_t count = 0;
  const size_t n_before = out->n;
  pm_bytes last_partition = {NULL, 0}; /* copy shared by runs of entries in one partition */
  uint64_t first_offset = 0;
  int64_t first_count = 0, blocks = 0;
  while (!rc && (rc = pm_avro_reader_next_block(r, &d.cur, &count, err)) == 0 && count > 0) {
    pm_avro_cursor *c = &d.cur;
    uint64_t offset = pm_avro_reader_block_offset(r);
    if (!filter && blocks == 1 && offset > first_offset && offset < len) {
      /* Size the entry array once for the whole file, guessed from the first
       * block's share of the file (no regrowth copies; untouched pages of an
       * overestimate cost nothing). Bounded: a guess is at most len/8 entries. */
      double guess = (double)first_count * (double)(len - first_offset) / (double)(offset - first_offset);
      guess += guess / 32 + (double)count;
      uint64_t est = guess > (double)(len / 8) ? len / 8 : (uint64_t)guess;
      if (n_before + est > out->n &&
          (rc = pm_manifest_entries_reserve_as(out, n_before + (size_t)est - out->n, 1, err)))
        break;
    }
    if (blocks++ == 0) {
      first_offset = offset;
      first_count = count;
    }
    /* room for the whole block at once (count is bounded by the block's bytes) */
    if (!filter && (rc = pm_manifest_entries_reserve_as(out, (size_t)count, 0, err))) break;
    for (int64_t i = 0; i < count; i++) {
      if (l.top_null_branch >= 0 && pm_avro_read_union(c) == l.top_null_branch) continue;
      int32_t version = 2, kind = 0, bucket = 0, total_buckets = -1;
      pm_avro_bytes partition = {NULL, 0};
      raw_file rf;
      int have_file = 0;
      if (l.fast) {
        version = pm_avro_read_int(c);
        kind = pm_avro_read_int(c);
        partition = pm_avro_read_bytes(c);
        bucket = pm_avro_read_int(c);
        total_buckets = pm_avro_read_int(c);
        if (head_filter && version == 2 && (kind == 0 || kind == 1) && !pm_avro_cursor_failed(c)) {
          pm_entry_head h = {(int8_t)kind, partition.ptr, partition.len, bucket, total_buckets, -1, NULL, 0};
          if (!head_filter(filters->ctx, &h)) {
            skip_file_fast(c, &l); /* (faster than the generic skip program) */
            if (pm_avro_cursor_failed(c)) {
              rc = pm_avro_reader_cursor_error(r, c, "manifest entry", err);
              break;
            }
            continue;
          }
        }
        scan_file_fast(c, &l, &rf, filters->filter ? NULL : &d); /* no later filter: entry is kept */
        have_file = 1;
      } else {
        memset(&rf, 0, sizeof rf);
      }
      for (size_t fi = 0; !l.fast && fi < l.top.writer_count; fi++) {
        int32_t slot = l.top.slot_of_writer_field[fi];
        if (slot < 0) {
          pm_avro_skip(c, l.top.record->fields[fi].type);
          continue;
        }
        const pm_avro_field_ref *ref = &l.top.wanted[slot];
        if (field_null(c, ref)) continue;
        switch (slot) {
          case T_VERSION: version = pm_avro_read_int(c); break;
          case T_KIND: kind = pm_avro_read_int(c); break;
          case T_PARTITION: partition = pm_avro_read_bytes(c); break;
          case T_BUCKET: bucket = pm_avro_read_int(c); break;
          case T_TOTAL_BUCKETS: total_buckets = pm_avro_read_int(c); break;
          case T_FILE: scan_file(c, &l, &rf); have_file = 1; break;
        }
      }
      if (pm_avro_cursor_failed(c)) {
        rc = d.oom ? PM_NOMEM(err) : pm_avro_reader_cursor_error(r, c, "manifest entry", err);
        break;
      }
      if (version != 2) {
        rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: manifest entry _VERSION %d (expected 2) in block at offset %llu",
                       name, version, (unsigned long long)pm_avro_reader_block_offset(r));
        break;
      }
      if (!have_file || (kind != 0 && kind != 1)) {
        rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: manifest entry %lld of block at offset %llu: %s", name,
                       (long long)i, (unsigned long long)pm_avro_reader_block_offset(r),
                       have_file ? "_KIND is not 0 or 1" : "_FILE is null");
        break;
      }
      if (filter) {
        pm_entry_head h = {(int8_t)kind, partition.ptr, partition.len, bucket, total_buckets, rf.level,
                           (const char *)rf.file_name.ptr, rf.file_name.len};
        /* the fast path has run head_filter already */
        if (l.fast && head_filter ? filters->filter && !filters->filter(filters->ctx, &h) : !filter(filter_ctx, &h))
          continue;
      }
      if ((rc = pm_manifest_entries_grow(out, err))) break;
      pm_manifest_entry *e = &out->items[out->n];
      e->kind = (int8_t)kind;
      e->partition = arena_bytes_shared(&d, partition, last_partition);
      last_partition = e->partition;
      e->bucket = bucket;
      e->total_buckets = total_buckets;
      materialize_file(&d, &rf, &e->file, c->end);
      if (d.oom) {
        rc = PM_NOMEM(err);
        break;
      }
      out->n++;
    }
  }
  layout_free(&l);
  pm_avro_reader_close(r);
  pm_file_close(f);
  return rc;
}

int pm_manifest_read_filtered(pm_fs *fs, const char *path, const pm_manifest_filters *filters, pm_manifest_entries *out,
                              pm_error *err) {
  pm_buf b;
  int rc = read_whole(fs, path, &b, err);
  if (!rc) rc = pm_manifest_decode_filtered(b.data, b.len, path, filters, out, err);
  pm_buf_free(&b);
  return rc;
}

int pm_manifest_read(pm_fs *fs, const char *path, pm_entry_filter_fn filter, void *filter_ctx, pm_manifest_entries *out,
                     pm_error *err) {
  pm_buf b;
  int rc = read_whole(fs, path, &b, err);
  if (!rc) rc = pm_manifest_decode(b.data, b.len, path, filter, filter_ctx, out, err);
  pm_buf_free(&b);
  return rc;
}

/* ------------------------------------------------------------------ */
/* manifest list                                                      */

enum { L_VERSION, L_FILE_NAME, L_FILE_SIZE, L_ADDED, L_DELETED, L_PSTATS, L_SCHEMA_ID, L_MIN_BUCKET, L_MAX_BUCKET,
       L_MIN_LEVEL, L_MAX_LEVEL, L_MIN_ROW_ID, L_MAX_ROW_ID, L_COUNT };
static const char *const LIST_FIELDS[L_COUNT] = {
    "_VERSION", "_FILE_NAME", "_FILE_SIZE", "_NUM_ADDED_FILES", "_NUM_DELETED_FILES", "_PARTITION_STATS",
    "_SCHEMA_ID", "_MIN_BUCKET", "_MAX_BUCKET", "_MIN_LEVEL", "_MAX_LEVEL", "_MIN_ROW_ID", "_MAX_ROW_ID"};

int pm_manifest_list_decode(const uint8_t *data, size_t len, const char *name, pm_manifest_file_metas *out,
                            pm_error *err) {
  if (is_orc(data, len)) return pm_manifest_list_decode_orc(data, len, name, out, err);
  pm_file *f = NULL;
  pm_avro_reader *r = NULL;
  PM_TRY(open_reader(data, len, name, &f, &r, err));
  int32_t top_null = -1;
  const pm_avro_schema *root = pm_avro_unwrap_nullable(pm_avro_reader_schema(r), &top_null);
  pm_avro_record_map m;
  memset(&m, 0, sizeof m);
  stats_map sm;
  memset(&sm, 0, sizeof sm);
  int rc = pm_avro_record_map_init(&m, root, LIST_FIELDS, L_COUNT, name, err);
  if (!rc) rc = stats_map_init(&sm, &m.wanted[L_PSTATS], name, err);
  decoder d = {.r = r, .arena = &out->arena, .err = err};
  int64_t count = 0;
  while (!rc && (rc = pm_avro_reader_next_block(r, &d.cur, &count, err)) == 0 && count > 0) {
    pm_avro_cursor *c = &d.cur;
    for (int64_t i = 0; i < count; i++) {
      if (top_null >= 0 && pm_avro_read_union(c) == top_null) continue;
      if ((rc = pm_manifest_file_metas_grow(out, err))) break;
      pm_manifest_file_meta *e = &out->items[out->n];
      memset(e, 0, sizeof(*e));
      pm_simple_stats_empty(&e->partition_stats);
      int hb[6] = {0};
      for (size_t fi = 0; fi < m.writer_count; fi++) {
        int32_t slot = m.slot_of_writer_field[fi];
        if (slot < 0) {
          pm_avro_skip(c, m.record->fields[fi].type);
          continue;
        }
        if (field_null(c, &m.wanted[slot])) continue;
        switch (slot) {
          case L_VERSION: (void)pm_avro_read_int(c); break;
          case L_FILE_NAME: e->file_name = arena_str(&d, pm_avro_read_string(c)); break;
          case L_FILE_SIZE: e->file_size = pm_avro_read_long(c); break;
          case L_ADDED: e->num_added_files = pm_avro_read_long(c); break;
          case L_DELETED: e->num_deleted_files = pm_avro_read_long(c); break;
          case L_PSTATS: read_stats(&d, c, &sm, &e->partition_stats); break;
          case L_SCHEMA_ID: e->schema_id = pm_avro_read_long(c); break;
          case L_MIN_BUCKET: e->min_bucket = pm_avro_read_int(c); hb[0] = 1; break;
          case L_MAX_BUCKET: e->max_bucket = pm_avro_read_int(c); hb[1] = 1; break;
          case L_MIN_LEVEL: e->min_level = pm_avro_read_int(c); hb[2] = 1; break;
          case L_MAX_LEVEL: e->max_level = pm_avro_read_int(c); hb[3] = 1; break;
          case L_MIN_ROW_ID: e->min_row_id = pm_avro_read_long(c); hb[4] = 1; break;
          case L_MAX_ROW_ID: e->max_row_id = pm_avro_read_long(c); hb[5] = 1; break;
        }
      }
      e->has_bucket_range = hb[0] && hb[1];
      e->has_level_range = hb[2] && hb[3];
      e->has_row_id_range = hb[4] && hb[5];
      if (pm_avro_cursor_failed(c)) {
        rc = pm_avro_reader_cursor_error(r, c, "manifest list entry", err);
        break;
      }
      if (!e->file_name) {
        rc = d.oom ? PM_NOMEM(err) : pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: manifest list entry without _FILE_NAME", name);
        break;
      }
      if (d.oom) {
        rc = PM_NOMEM(err);
        break;
      }
      out->n++;
    }
  }
  pm_avro_record_map_free(&m);
  pm_avro_record_map_free(&sm.m);
  pm_avro_reader_close(r);
  pm_file_close(f);
  return rc;
}

int pm_manifest_list_read(pm_fs *fs, const char *path, pm_manifest_file_metas *out, pm_error *err) {
  pm_buf b;
  int rc = read_whole(fs, path, &b, err);
  if (!rc) rc = pm_manifest_list_decode(b.data, b.len, path, out, err);
  pm_buf_free(&b);
  return rc;
}

/* ------------------------------------------------------------------ */
/* index manifest                                                     */

enum { I_VERSION, I_KIND, I_PARTITION, I_BUCKET, I_INDEX_TYPE, I_FILE_NAME, I_FILE_SIZE, I_ROW_COUNT, I_DV_RANGES,
       I_EXTERNAL_PATH, I_GLOBAL_INDEX, I_COUNT };
static const char *const INDEX_FIELDS[I_COUNT] = {"_VERSION", "_KIND", "_PARTITION", "_BUCKET", "_INDEX_TYPE",
                                                  "_FILE_NAME", "_FILE_SIZE", "_ROW_COUNT",
                                                  "_DELETIONS_VECTORS_RANGES", "_EXTERNAL_PATH", "_GLOBAL_INDEX"};
static const char *const DV_FIELDS[4] = {"f0", "f1", "f2", "_CARDINALITY"};
static const char *const GI_FIELDS[6] = {"_ROW_RANGE_START", "_ROW_RANGE_END", "_INDEX_FIELD_ID",
                                         "_EXTRA_FIELD_IDS", "_INDEX_META", "_SOURCE_META"};

static void read_dv_ranges(decoder *d, pm_avro_cursor *c, const pm_avro_schema *arr, const pm_avro_record_map *dvm,
                           pm_index_file_meta *im) {
  int32_t inull = -1;
  pm_avro_unwrap_nullable(arr->items, &inull);
  pm_dv_range *vals = NULL;
  int64_t n = 0, cap = 0;
  for (;;) {
    int64_t bn = pm_avro_read_block_count(c, NULL);
    if (bn <= 0) break;
    void *grown = vals;
    if (arena_grow(d, c, &grown, n, bn, &cap, sizeof *vals)) break;
    vals = grown;
    for (int64_t i = 0; i < bn; i++) {
      if (inull >= 0 && pm_avro_read_union(c) == inull) continue; /* null item: dropped */
      pm_dv_range *v = &vals[n++];
      memset(v, 0, sizeof(*v));
      for (size_t fi = 0; fi < dvm->writer_count; fi++) {
        int32_t slot = dvm->slot_of_writer_field[fi];
        if (slot < 0) {
          pm_avro_skip(c, dvm->record->fields[fi].type);
          continue;
        }
        if (field_null(c, &dvm->wanted[slot])) continue;
        switch (slot) {
          case 0: v->data_file_name = arena_str(d, pm_avro_read_string(c)); break;
          case 1: v->offset = pm_avro_read_int(c); break;
          case 2: v->length = pm_avro_read_int(c); break;
          case 3: v->cardinality = pm_avro_read_long(c); v->has_cardinality = 1; break;
        }
      }
    }
  }
  im->dv_ranges = vals;
  im->n_dv_ranges = (int32_t)n;
}

int pm_index_manifest_decode(const uint8_t *data, size_t len, const char *name, pm_index_entries *out,
                             pm_error *err) {
  if (is_orc(data, len)) return pm_index_manifest_decode_orc(data, len, name, out, err);
  pm_file *f = NULL;
  pm_avro_reader *r = NULL;
  PM_TRY(open_reader(data, len, name, &f, &r, err));
  int32_t top_null = -1;
  const pm_avro_schema *root = pm_avro_unwrap_nullable(pm_avro_reader_schema(r), &top_null);
  pm_avro_record_map m, dvm, gim;
  memset(&m, 0, sizeof m);
  memset(&dvm, 0, sizeof dvm);
  memset(&gim, 0, sizeof gim);
  int rc = pm_avro_record_map_init(&m, root, INDEX_FIELDS, I_COUNT, name, err);
  if (!rc && m.wanted[I_DV_RANGES].value_type) {
    const pm_avro_schema *arr = m.wanted[I_DV_RANGES].value_type;
    if (arr->type != PM_AVRO_ARRAY) rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: _DELETIONS_VECTORS_RANGES is not an array", name);
    else rc = pm_avro_record_map_init(&dvm, pm_avro_unwrap_nullable(arr->items, NULL), DV_FIELDS, 4, name, err);
  }
  if (!rc && m.wanted[I_GLOBAL_INDEX].value_type)
    rc = pm_avro_record_map_init(&gim, m.wanted[I_GLOBAL_INDEX].value_type, GI_FIELDS, 6, name, err);
  decoder d = {.r = r, .arena = &out->arena, .err = err};
  int64_t count = 0;
  while (!rc && (rc = pm_avro_reader_next_block(r, &d.cur, &count, err)) == 0 && count > 0) {
    pm_avro_cursor *c = &d.cur;
    for (int64_t i = 0; i < count; i++) {
      if (top_null >= 0 && pm_avro_read_union(c) == top_null) continue;
      if ((rc = pm_index_entries_grow(out, err))) break;
      pm_index_manifest_entry *e = &out->items[out->n];
      memset(e, 0, sizeof(*e));
      pm_index_file_meta *im = &e->index_file;
      im->dv_ranges_is_null = 1;
      for (size_t fi = 0; fi < m.writer_count; fi++) {
        int32_t slot = m.slot_of_writer_field[fi];
        if (slot < 0) {
          pm_avro_skip(c, m.record->fields[fi].type);
          continue;
        }
        if (field_null(c, &m.wanted[slot])) continue;
        switch (slot) {
          case I_VERSION: (void)pm_avro_read_int(c); break;
          case I_KIND: e->kind = (int8_t)pm_avro_read_int(c); break;
          case I_PARTITION: e->partition = arena_bytes(&d, pm_avro_read_bytes(c)); break;
          case I_BUCKET: e->bucket = pm_avro_read_int(c); break;
          case I_INDEX_TYPE: im->index_type = arena_str(&d, pm_avro_read_string(c)); break;
          case I_FILE_NAME: im->file_name = arena_str(&d, pm_avro_read_string(c)); break;
          case I_FILE_SIZE: im->file_size = pm_avro_read_long(c); break;
          case I_ROW_COUNT: im->row_count = pm_avro_read_long(c); break;
          case I_DV_RANGES:
            im->dv_ranges_is_null = 0;
            read_dv_ranges(&d, c, m.wanted[I_DV_RANGES].value_type, &dvm, im);
            break;
          case I_EXTERNAL_PATH: im->external_path = arena_str(&d, pm_avro_read_string(c)); break;
          case I_GLOBAL_INDEX: {
            pm_global_index_meta *g = &im->global_index;
            im->has_global_index = 1;
            g->extra_field_ids_is_null = 1;
            for (size_t gi = 0; gi < gim.writer_count; gi++) {
              int32_t s2 = gim.slot_of_writer_field[gi];
              if (s2 < 0) {
                pm_avro_skip(c, gim.record->fields[gi].type);
                continue;
              }
              if (field_null(c, &gim.wanted[s2])) continue;
              switch (s2) {
                case 0: g->row_range_start = pm_avro_read_long(c); break;
                case 1: g->row_range_end = pm_avro_read_long(c); break;
                case 2: g->index_field_id = pm_avro_read_int(c); break;
                case 3:
                  g->extra_field_ids_is_null = 0;
                  if (gim.wanted[3].value_type->type != PM_AVRO_ARRAY) pm_avro_cursor_fail(c, "expected an array");
                  else g->extra_field_ids = read_int_array(&d, c, gim.wanted[3].value_type, &g->n_extra_field_ids);
                  break;
                case 4: g->index_meta = arena_bytes(&d, pm_avro_read_bytes(c)); g->has_index_meta = 1; break;
                case 5: g->source_meta = arena_bytes(&d, pm_avro_read_bytes(c)); g->has_source_meta = 1; break;
              }
            }
            break;
          }
        }
      }
      if (pm_avro_cursor_failed(c)) {
        rc = pm_avro_reader_cursor_error(r, c, "index manifest entry", err);
        break;
      }
      if (d.oom) {
        rc = PM_NOMEM(err);
        break;
      }
      if (!im->file_name || !im->index_type) {
        rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: index manifest entry without _FILE_NAME/_INDEX_TYPE", name);
        break;
      }
      out->n++;
    }
  }
  pm_avro_record_map_free(&m);
  pm_avro_record_map_free(&dvm);
  pm_avro_record_map_free(&gim);
  pm_avro_reader_close(r);
  pm_file_close(f);
  return rc;
}

int pm_index_manifest_read(pm_fs *fs, const char *path, pm_index_entries *out, pm_error *err) {
  pm_buf b;
  int rc = read_whole(fs, path, &b, err);
  if (!rc) rc = pm_index_manifest_decode(b.data, b.len, path, out, err);
  pm_buf_free(&b);
  return rc;
}
