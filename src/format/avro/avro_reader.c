/* Avro object container reader: header, then one block at a time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "format/avro/avro.h"

struct pm_avro_reader {
  pm_file *file;
  int owns_file;
  char *path;
  uint64_t size;
  uint64_t next_offset;  /* file offset of the next block */
  uint64_t block_offset; /* file offset of the current block */
  const pm_avro_schema_tree *schema; /* from the schema cache (pm_avro_schema_release) */
  char *schema_json;
  size_t schema_len;
  pm_codec codec;
  char *codec_name;
  uint8_t sync[16];
  size_t meta_count;
  char **meta_keys;
  uint8_t **meta_values;
  size_t *meta_lens;
  pm_buf raw;  /* compressed block + sync */
  pm_buf data; /* decompressed block */
  ZSTD_DCtx *zstd; /* reused across blocks */
};

const char *pm_avro_codec_name(pm_codec c) {
  switch (c) {
    case PM_CODEC_NONE: return "null";
    case PM_CODEC_DEFLATE: return "deflate";
    case PM_CODEC_SNAPPY: return "snappy";
    case PM_CODEC_ZSTD: return "zstandard";
    default: return NULL;
  }
}

int pm_avro_codec_from_name(const char *name, pm_codec *out) {
  static const struct {
    const char *name;
    pm_codec codec;
  } names[] = {{"null", PM_CODEC_NONE}, {"deflate", PM_CODEC_DEFLATE}, {"snappy", PM_CODEC_SNAPPY},
               {"zstandard", PM_CODEC_ZSTD}, {"zstd", PM_CODEC_ZSTD}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(name, names[i].name)) {
      *out = names[i].codec;
      return 0;
    }
  return -1;
}

void pm_avro_reader_close(pm_avro_reader *r) {
  if (!r) return;
  if (r->owns_file) pm_file_close(r->file);
  free(r->path);
  pm_avro_schema_release(r->schema);
  free(r->schema_json);
  free(r->codec_name);
  for (size_t i = 0; i < r->meta_count; i++) {
    free(r->meta_keys[i]);
    free(r->meta_values[i]);
  }
  free(r->meta_keys);
  free(r->meta_values);
  free(r->meta_lens);
  pm_buf_free(&r->raw);
  pm_buf_free(&r->data);
  pm_zstd_dctx_give(r->zstd);
  free(r);
}

static int add_meta(pm_avro_reader *r, pm_avro_bytes key, pm_avro_bytes value) {
  size_t n = r->meta_count + 1;
  char **k = realloc(r->meta_keys, n * sizeof *k);
  if (!k) return -1;
  r->meta_keys = k;
  uint8_t **v = realloc(r->meta_values, n * sizeof *v);
  if (!v) return -1;
  r->meta_values = v;
  size_t *l = realloc(r->meta_lens, n * sizeof *l);
  if (!l) return -1;
  r->meta_lens = l;
  char *ks = malloc(key.len + 1);
  uint8_t *vs = malloc(value.len + 1);
  if (!ks || !vs) {
    free(ks);
    free(vs);
    return -1;
  }
  if (key.len) memcpy(ks, key.ptr, key.len);
  ks[key.len] = 0;
  if (value.len) memcpy(vs, value.ptr, value.len);
  vs[value.len] = 0;
  k[r->meta_count] = ks;
  v[r->meta_count] = vs;
  l[r->meta_count] = value.len;
  r->meta_count = n;
  return 0;
}

static void clear_meta(pm_avro_reader *r) {
  for (size_t i = 0; i < r->meta_count; i++) {
    free(r->meta_keys[i]);
    free(r->meta_values[i]);
  }
  r->meta_count = 0;
}

/* Parses the header from the first `len` bytes. Returns 0 ok, 1 when more
 * bytes are needed (cursor ran out), or an error status. */
static int parse_header(pm_avro_reader *r, const uint8_t *p, size_t len, int complete, pm_error *err) {
  clear_meta(r);
  if (len < 4 || memcmp(p, "Obj\x01", 4) != 0) {
    if (len < 4 && !complete) return 1;
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: not an Avro object container file (bad magic at offset 0)",
                     r->path);
  }
  pm_avro_cursor c;
  pm_avro_cursor_init(&c, p, len);
  c.pos += 4;
  for (;;) {
    int64_t n = pm_avro_read_block_count(&c, NULL);
    if (c.error || n == 0) break;
    for (int64_t i = 0; i < n && !c.error; i++) {
      pm_avro_bytes k = pm_avro_read_string(&c);
      pm_avro_bytes v = pm_avro_read_bytes(&c);
      if (c.error) break;
      if (add_meta(r, k, v)) return PM_NOMEM(err);
    }
  }
  if (!c.error && pm_avro_cursor_remaining(&c) < 16) pm_avro_cursor_fail(&c, "truncated sync marker");
  if (c.error) {
    if (!complete) return 1;
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: corrupt Avro header at offset %zu: %s", r->path, c.error_offset,
                     c.error);
  }
  memcpy(r->sync, c.pos, 16);
  r->next_offset = (uint64_t)(c.pos - p) + 16;
  return 0;
}

static const uint8_t *find_meta(const pm_avro_reader *r, const char *key, size_t *len) {
  for (size_t i = 0; i < r->meta_count; i++)
    if (!strcmp(r->meta_keys[i], key)) {
      *len = r->meta_lens[i];
      return r->meta_values[i];
    }
  return NULL;
}

static int read_header(pm_avro_reader *r, pm_error *err) {
  /* a small file in one read (the header and the blocks then come from memory) */
  if (r->size <= PM_FILE_PREFETCH_WHOLE) PM_TRY(pm_file_prefetch(r->file, 0, (size_t)r->size, err));
  size_t want = 4096;
  pm_buf head;
  pm_buf_init(&head);
  int rc;
  for (;;) {
    int complete = 0;
    if (want >= r->size) {
      want = (size_t)r->size;
      complete = 1;
    }
    if (want > PM_AVRO_MAX_HEADER_BYTES) {
      want = PM_AVRO_MAX_HEADER_BYTES;
      complete = 1;
    }
    head.len = 0;
    if (pm_buf_reserve(&head, want)) {
      rc = PM_NOMEM(err);
      break;
    }
    rc = pm_file_read_at(r->file, 0, head.data, want, err);
    if (rc) break;
    rc = parse_header(r, head.data, want, complete, err);
    if (rc != 1) break;
    want *= 4;
  }
  pm_buf_free(&head);
  if (rc) return rc;

  size_t len = 0;
  const uint8_t *schema = find_meta(r, "avro.schema", &len);
  if (!schema) return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: Avro header has no avro.schema", r->path);
  r->schema_json = malloc(len + 1);
  if (!r->schema_json) return PM_NOMEM(err);
  memcpy(r->schema_json, schema, len);
  r->schema_json[len] = 0;
  r->schema_len = len;
  PM_TRY(pm_avro_schema_acquire(r->schema_json, len, r->path, &r->schema, err));

  const uint8_t *codec = find_meta(r, "avro.codec", &len);
  r->codec_name = codec ? strndup((const char *)codec, len) : strdup("null");
  if (!r->codec_name) return PM_NOMEM(err);
  if (codec && strlen(r->codec_name) != len)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: avro.codec contains a NUL byte", r->path);
  if (pm_avro_codec_from_name(r->codec_name, &r->codec))
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: unsupported Avro codec '%s'", r->path, r->codec_name);
  return 0;
}

static int open_file(pm_file *f, int owns, pm_avro_reader **out, pm_error *err) {
  *out = NULL;
  pm_avro_reader *r = calloc(1, sizeof *r);
  if (!r) {
    if (owns) pm_file_close(f);
    return PM_NOMEM(err);
  }
  r->file = f;
  r->owns_file = owns;
  pm_buf_init(&r->raw);
  pm_buf_init(&r->data);
  r->path = strdup(pm_file_path(f) ? pm_file_path(f) : "(avro)");
  r->size = pm_file_size(f);
  int rc = r->path ? read_header(r, err) : PM_NOMEM(err);
  if (rc) {
    pm_avro_reader_close(r);
    return rc;
  }
  *out = r;
  return 0;
}

int pm_avro_reader_open(pm_file *f, pm_avro_reader **out, pm_error *err) { return open_file(f, 0, out, err); }

int pm_avro_reader_open_fs(pm_fs *fs, const char *path, pm_avro_reader **out, pm_error *err) {
  *out = NULL;
  pm_file *f;
  PM_TRY(pm_fs_open(fs, path, &f, err));
  return open_file(f, 1, out, err);
}

int pm_avro_reader_open_path(const char *path, pm_avro_reader **out, pm_error *err) {
  return pm_avro_reader_open_fs(pm_fs_local(), path, out, err);
}

const pm_avro_schema *pm_avro_reader_schema(const pm_avro_reader *r) { return pm_avro_schema_root(r->schema); }
const char *pm_avro_reader_schema_json(const pm_avro_reader *r, size_t *len) {
  if (len) *len = r->schema_len;
  return r->schema_json;
}
pm_codec pm_avro_reader_codec(const pm_avro_reader *r) { return r->codec; }
const char *pm_avro_reader_codec_name(const pm_avro_reader *r) { return r->codec_name; }
const uint8_t *pm_avro_reader_sync(const pm_avro_reader *r) { return r->sync; }
const char *pm_avro_reader_path(const pm_avro_reader *r) { return r->path; }
size_t pm_avro_reader_meta_count(const pm_avro_reader *r) { return r->meta_count; }
const char *pm_avro_reader_meta_key(const pm_avro_reader *r, size_t i) {
  return i < r->meta_count ? r->meta_keys[i] : NULL;
}
const uint8_t *pm_avro_reader_meta_value(const pm_avro_reader *r, size_t i, size_t *len) {
  if (i >= r->meta_count) return NULL;
  if (len) *len = r->meta_lens[i];
  return r->meta_values[i];
}
uint64_t pm_avro_reader_block_offset(const pm_avro_reader *r) { return r->block_offset; }

/* zstandard block: Java's frames carry no content size, so decode in one shot
 * into a buffer that doubles (up to the block limit) while it is too small.
 * One reused context and no streaming copies: several times faster than
 * a fresh streaming decoder per block. */
static int zstd_block(pm_avro_reader *r, const uint8_t *src, size_t n, pm_error *err) {
  if (!r->zstd && !(r->zstd = pm_zstd_dctx_take())) return PM_NOMEM(err);
  size_t cap = r->data.cap;
  if (cap < 16384) cap = 16384;
  if (n <= PM_AVRO_MAX_BLOCK_BYTES / 8 && cap < 8 * n) cap = 8 * n;
  if (cap > PM_AVRO_MAX_BLOCK_BYTES) cap = PM_AVRO_MAX_BLOCK_BYTES;
  for (;;) {
    r->data.len = 0;
    if (pm_buf_reserve(&r->data, cap)) return PM_NOMEM(err);
    size_t got = ZSTD_decompressDCtx(r->zstd, r->data.data, cap, src, n);
    if (!ZSTD_isError(got)) {
      r->data.len = got;
      return 0;
    }
    if (ZSTD_getErrorCode(got) != ZSTD_error_dstSize_tooSmall)
      return pm_errorf(err, PAIMON_ERR_CORRUPT, "zstd: %s", ZSTD_getErrorName(got));
    if (cap >= PM_AVRO_MAX_BLOCK_BYTES)
      return pm_errorf(err, PAIMON_ERR_CORRUPT, "zstd: block decompresses to more than %u bytes",
                       PM_AVRO_MAX_BLOCK_BYTES);
    cap = cap > PM_AVRO_MAX_BLOCK_BYTES / 2 ? PM_AVRO_MAX_BLOCK_BYTES : cap * 2;
  }
}

int pm_avro_reader_next_block(pm_avro_reader *r, pm_avro_cursor *cur, int64_t *count, pm_error *err) {
  *count = 0;
  pm_avro_cursor_init(cur, NULL, 0);
  for (;;) {
    uint64_t off = r->next_offset;
    r->block_offset = off;
    if (off >= r->size) return 0; /* end of file */
    uint8_t head[20];
    size_t head_len = r->size - off < sizeof head ? (size_t)(r->size - off) : sizeof head;
    PM_TRY(pm_file_read_at(r->file, off, head, head_len, err));
    pm_avro_cursor hc;
    pm_avro_cursor_init(&hc, head, head_len);
    int64_t n = pm_avro_read_long(&hc);
    int64_t size = pm_avro_read_long(&hc);
    if (hc.error)
      return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: truncated or corrupt Avro block header at offset %llu: %s",
                       r->path, (unsigned long long)off, hc.error);
    uint64_t data_off = off + pm_avro_cursor_offset(&hc);
    uint64_t left = r->size - data_off;
    if (n < 0 || size < 0)
      return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: negative Avro block %s at offset %llu", r->path,
                       n < 0 ? "record count" : "byte size", (unsigned long long)off);
    if ((uint64_t)size > left || left - (uint64_t)size < 16)
      return pm_errorf(err, PAIMON_ERR_CORRUPT,
                       "%s: Avro block at offset %llu claims %lld bytes but only %llu remain (truncated file?)",
                       r->path, (unsigned long long)off, (long long)size, (unsigned long long)left);
    if ((uint64_t)size > PM_AVRO_MAX_BLOCK_BYTES)
      return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: Avro block at offset %llu is %lld bytes, over the %u limit",
                       r->path, (unsigned long long)off, (long long)size, PM_AVRO_MAX_BLOCK_BYTES);
    size_t total = (size_t)size + 16;
    const uint8_t *raw = pm_file_memory(r->file);
    if (raw) {
      raw += data_off; /* memory file: no copy */
    } else {
      r->raw.len = 0;
      if (pm_buf_reserve(&r->raw, total)) return PM_NOMEM(err);
      PM_TRY(pm_file_read_at(r->file, data_off, r->raw.data, total, err));
      raw = r->raw.data;
    }
    if (memcmp(raw + size, r->sync, 16) != 0)
      return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: sync marker mismatch after the Avro block at offset %llu",
                       r->path, (unsigned long long)off);
    r->next_offset = data_off + total;

    const uint8_t *data = raw;
    size_t data_len = (size_t)size;
    int rc = 0;
    r->data.len = 0;
    switch (r->codec) {
      case PM_CODEC_NONE:
        break;
      case PM_CODEC_SNAPPY: {
        if (size < 4) {
          rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "snappy block shorter than its CRC");
          break;
        }
        rc = pm_decompress_unknown(PM_CODEC_SNAPPY, raw, (size_t)size - 4, &r->data, PM_AVRO_MAX_BLOCK_BYTES, err);
        if (rc) break;
        const uint8_t *q = raw + size - 4;
        uint32_t want = (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 | (uint32_t)q[2] << 8 | q[3];
        uLong got = crc32(0L, Z_NULL, 0);
        size_t done = 0;
        while (done < r->data.len) { /* crc32 takes uInt lengths */
          size_t step = r->data.len - done > (1u << 30) ? (1u << 30) : r->data.len - done;
          got = crc32(got, r->data.data + done, (uInt)step);
          done += step;
        }
        if ((uint32_t)got != want)
          rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "snappy block CRC mismatch (stored %08x, computed %08x)", want,
                         (unsigned)got);
        data = r->data.data;
        data_len = r->data.len;
        break;
      }
      case PM_CODEC_ZSTD:
        rc = zstd_block(r, raw, (size_t)size, err);
        data = r->data.data;
        data_len = r->data.len;
        break;
      default:
        rc = pm_decompress_unknown(r->codec, raw, (size_t)size, &r->data, PM_AVRO_MAX_BLOCK_BYTES, err);
        data = r->data.data;
        data_len = r->data.len;
        break;
    }
    if (rc)
      return pm_error_prefix(err, "%s: Avro block at offset %llu (codec %s): ", r->path, (unsigned long long)off,
                             r->codec_name);
    /* Bound the record count by the bytes (zero-width records aside), so loops over n stay finite. */
    const pm_avro_schema *root = pm_avro_schema_root(r->schema);
    uint64_t max_records = root->fixed_width == 0 ? (1u << 24) : (uint64_t)data_len;
    if ((uint64_t)n > max_records)
      return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: Avro block at offset %llu claims %lld records in %zu bytes",
                       r->path, (unsigned long long)off, (long long)n, data_len);
    if (n == 0) continue; /* empty block: nothing to hand out */
    pm_avro_cursor_init(cur, data ? data : (const uint8_t *)"", data_len);
    *count = n;
    return 0;
  }
}

int pm_avro_reader_cursor_error(const pm_avro_reader *r, const pm_avro_cursor *cur, const char *field, pm_error *err) {
  size_t at = cur->error ? cur->error_offset : pm_avro_cursor_offset(cur);
  return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: corrupt Avro data in block at file offset %llu, byte %zu of the block%s%s%s: %s",
                   r->path, (unsigned long long)r->block_offset, at, field ? " (field " : "", field ? field : "",
                   field ? ")" : "", cur->error ? cur->error : "invalid value");
}
