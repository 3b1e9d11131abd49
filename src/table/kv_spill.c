/* Spilled sorted runs (kv_spill.h): run files of compressed serialised merge batches. */
#include "table/kv_spill.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arrow/arrow.h"
#include "arrow/compute.h"
#include "io/file.h"
#include "util/compress.h"
#include "util/random.h"

#define BLOCK_MAGIC 0x4b4c4253u /* "SBLK" little-endian */
#define HEADER_BYTES 32

/* ------------------------------------------------------------ serialisation */

static int put64(pm_buf *b, uint64_t v) { return pm_buf_append(b, &v, sizeof v); }

/* Bytes of buffer i of node a (type t) covering slots [0, offset + length). */
static uint64_t buffer_bytes(const pm_type *t, const struct ArrowArray *a, int64_t i) {
  uint64_t end = (uint64_t)(a->offset + a->length);
  if (!a->buffers[i]) return 0;
  if (i == 0) return (end + 7) / 8; /* validity */
  switch (t->id) {
    case PM_T_BOOL: return (end + 7) / 8;
    case PM_T_UTF8:
    case PM_T_BINARY:
      if (i == 1) return (end + 1) * 4;
      return (uint64_t)((const int32_t *)a->buffers[1])[end];
    case PM_T_LARGE_UTF8:
    case PM_T_LARGE_BINARY:
      if (i == 1) return (end + 1) * 8;
      return (uint64_t)((const int64_t *)a->buffers[1])[end];
    case PM_T_LIST:
    case PM_T_MAP: return (end + 1) * 4;
    case PM_T_LARGE_LIST: return (end + 1) * 8;
    default: return end * (uint64_t)pm_type_byte_width(t);
  }
}

static int encode_node(const pm_type *t, const struct ArrowArray *a, pm_buf *out, int depth, pm_error *err) {
  if (depth > PM_ARROW_MAX_DEPTH) return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "spill: nesting too deep");
  if (t->dict || a->dictionary)
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "spill: dictionary-encoded column '%s' cannot be spilled",
                     t->name ? t->name : "");
  int nb = pm_type_n_buffers(t->id);
  if (a->n_buffers != nb || a->n_children != t->n_children)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "spill: column '%s' does not match its type",
                     t->name ? t->name : "");
  if (put64(out, (uint64_t)a->length) || put64(out, (uint64_t)a->null_count) || put64(out, (uint64_t)a->offset))
    return PM_NOMEM(err);
  for (int i = 0; i < nb; i++) {
    uint64_t n = buffer_bytes(t, a, i);
    uint64_t tag = a->buffers[i] ? n : UINT64_MAX; /* UINT64_MAX: absent */
    if (put64(out, tag) || (n && pm_buf_append(out, a->buffers[i], (size_t)n))) return PM_NOMEM(err);
    if (n % 8 && pm_buf_append_zeros(out, (size_t)(8 - n % 8))) return PM_NOMEM(err);
  }
  for (int64_t c = 0; c < t->n_children; c++)
    PM_TRY(encode_node(&t->children[c], a->children[c], out, depth + 1, err));
  return 0;
}

int pm_spill_encode(const pm_type *t, const struct ArrowArray *a, pm_buf *out, pm_error *err) {
  return encode_node(t, a, out, 0, err);
}

static int get64(const uint8_t *d, size_t len, size_t *pos, uint64_t *v, pm_error *err) {
  if (len - *pos < 8) return pm_errorf(err, PAIMON_ERR_CORRUPT, "spill block: truncated at byte %zu", *pos);
  memcpy(v, d + *pos, 8);
  *pos += 8;
  return 0;
}

static int decode_node(const pm_type *t, const uint8_t *d, size_t len, size_t *pos, struct ArrowArray *out, int depth,
                       pm_error *err) {
  if (depth > PM_ARROW_MAX_DEPTH) return pm_errorf(err, PAIMON_ERR_CORRUPT, "spill block: nesting too deep");
  uint64_t length = 0, nulls = 0, offset = 0;
  PM_TRY(get64(d, len, pos, &length, err));
  PM_TRY(get64(d, len, pos, &nulls, err));
  PM_TRY(get64(d, len, pos, &offset, err));
  int nb = pm_type_n_buffers(t->id);
  PM_TRY(pm_array_init(out, (int64_t)length, nb, t->n_children, err));
  out->null_count = (int64_t)nulls;
  out->offset = (int64_t)offset;
  int rc = 0;
  for (int i = 0; !rc && i < nb; i++) {
    uint64_t n = 0;
    rc = get64(d, len, pos, &n, err);
    if (rc || n == UINT64_MAX) continue;
    uint64_t padded = (n + 7) / 8 * 8;
    if (padded > len - *pos) {
      rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "spill block: buffer of %llu bytes past the end", (unsigned long long)n);
      break;
    }
    void *buf = pm_aligned_alloc(n ? (size_t)n : 1);
    if (!buf) {
      rc = PM_NOMEM(err);
      break;
    }
    if (n) memcpy(buf, d + *pos, (size_t)n);
    pm_array_set_buffer(out, i, buf);
    *pos += (size_t)padded;
  }
  for (int64_t c = 0; !rc && c < t->n_children; c++)
    rc = decode_node(&t->children[c], d, len, pos, out->children[c], depth + 1, err);
  if (rc) pm_array_release(out);
  return rc;
}

int pm_spill_decode(const pm_type *t, const uint8_t *data, size_t len, size_t *pos, struct ArrowArray *out,
                    pm_error *err) {
  return decode_node(t, data, len, pos, out, 0, err);
}

/* ------------------------------------------------------------ the spill directory */

int pm_spill_init(pm_spill *sp, pm_fs *fs, const char *tmp_root, const char *compression, int level,
                  uint64_t block_bytes, pm_error *err) {
  memset(sp, 0, sizeof *sp);
  const char *c = compression ? compression : "zstd";
  if (!strcasecmp(c, "zstd")) sp->codec = PM_CODEC_ZSTD;
  else if (!strcasecmp(c, "lz4")) sp->codec = PM_CODEC_LZ4_RAW;
  else if (!strcasecmp(c, "none")) sp->codec = PM_CODEC_NONE;
  else if (!strcasecmp(c, "lzo"))
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "option 'spill-compression' = '%s' is not supported (zstd, lz4, none)",
                     c);
  else
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option 'spill-compression' = '%s': not one of zstd, lz4, lzo, none",
                     c);
  sp->level = level;
  sp->block_bytes = block_bytes ? block_bytes : 64 << 10;
  if (!tmp_root || !*tmp_root) tmp_root = getenv("TMPDIR");
  if (!tmp_root || !*tmp_root) tmp_root = "/tmp";
  sp->root = strdup(tmp_root);
  if (!sp->root) return PM_NOMEM(err);
  sp->fs = pm_fs_ref(fs ? fs : pm_fs_local());
  pm_uuid_random(sp->uuid);
  return 0;
}

static int spill_dir(pm_spill *sp, pm_error *err) {
  if (sp->dir) return 0;
  size_t n = strlen(sp->root) + strlen(sp->uuid) + 32;
  char *d = malloc(n);
  if (!d) return PM_NOMEM(err);
  snprintf(d, n, "%s/paimon-spill-%s", sp->root, sp->uuid);
  int rc = pm_fs_mkdirs(sp->fs, d, err);
  if (rc) {
    free(d);
    return pm_error_prefix(err, "write buffer spill: temporary directory: ");
  }
  sp->dir = d;
  return 0;
}

void pm_spill_run_drop(pm_spill *sp, pm_spill_run *run) {
  if (!run->path) return;
  pm_error e;
  pm_fs_delete(sp->fs, run->path, &e);
  free(run->path);
  run->path = NULL;
  sp->disk_bytes -= run->bytes < sp->disk_bytes ? run->bytes : sp->disk_bytes;
  sp->live_files--;
  run->bytes = 0;
}

void pm_spill_free(pm_spill *sp) {
  if (!sp || !sp->fs) return;
  if (sp->dir) {
    char **names = NULL;
    size_t n = 0;
    pm_error e;
    if (!pm_fs_list(sp->fs, sp->dir, NULL, &names, &n, &e)) {
      size_t dl = strlen(sp->dir);
      for (size_t i = 0; i < n; i++) {
        char *p = malloc(dl + strlen(names[i]) + 2);
        if (!p) continue;
        sprintf(p, "%s/%s", sp->dir, names[i]);
        pm_fs_delete(sp->fs, p, &e);
        free(p);
      }
      pm_free_names(names, n);
    }
    pm_fs_delete(sp->fs, sp->dir, &e);
  }
  free(sp->dir);
  free(sp->root);
  pm_fs_unref(sp->fs);
  pm_codec_ctx_free(&sp->codec_ctx);
  memset(sp, 0, sizeof *sp);
}

/* ------------------------------------------------------------ writing */

struct pm_spill_writer {
  pm_spill *sp;
  const pm_type *layout;
  pm_out_file *out;
  char *path;
  pm_buf raw, comp;
  int64_t rows;
};

int pm_spill_writer_open(pm_spill *sp, const pm_type *layout, pm_spill_writer **out, pm_error *err) {
  *out = NULL;
  PM_TRY(spill_dir(sp, err));
  pm_spill_writer *wr = calloc(1, sizeof *wr);
  if (!wr) return PM_NOMEM(err);
  wr->sp = sp;
  wr->layout = layout;
  pm_buf_init(&wr->raw);
  pm_buf_init(&wr->comp);
  size_t n = strlen(sp->dir) + 48;
  wr->path = malloc(n);
  if (!wr->path) {
    free(wr);
    return PM_NOMEM(err);
  }
  snprintf(wr->path, n, "%s/run-%lld.spill", sp->dir, (long long)sp->counter++);
  int rc = pm_fs_create(sp->fs, wr->path, &wr->out, err);
  if (rc) {
    pm_error_prefix(err, "write buffer spill: ");
    free(wr->path);
    free(wr);
    return rc;
  }
  *out = wr;
  return 0;
}

static int write_block(pm_spill_writer *wr, const struct ArrowArray *b, pm_error *err) {
  pm_spill *sp = wr->sp;
  wr->raw.len = 0;
  wr->comp.len = 0;
  PM_TRY(pm_spill_encode(wr->layout, b, &wr->raw, err));
  const uint8_t *body = wr->raw.data;
  size_t body_len = wr->raw.len;
  if (sp->codec != PM_CODEC_NONE) {
    PM_TRY(pm_compress_ctx(&sp->codec_ctx, (pm_codec)sp->codec, sp->level, wr->raw.data, wr->raw.len, &wr->comp, err));
    body = wr->comp.data;
    body_len = wr->comp.len;
  }
  uint64_t h[4] = {BLOCK_MAGIC | ((uint64_t)sp->codec << 32), wr->raw.len, body_len, (uint64_t)b->length};
  int rc = pm_out_write(wr->out, h, sizeof h, err);
  if (!rc) rc = pm_out_write(wr->out, body, body_len, err);
  if (rc) return pm_error_prefix(err, "write buffer spill: ");
  wr->rows += b->length;
  return 0;
}

int64_t pm_spill_block_rows(const pm_spill_writer *wr, const struct ArrowArray *batch) {
  int64_t n = batch->length;
  if (!n) return 16;
  /* rows per block from the batch's size */
  uint64_t bytes = 0; /* estimate: the top-level buffers (nested children roughly) */
  for (int64_t c = 0; c < batch->n_children; c++) {
    const struct ArrowArray *ch = batch->children[c];
    for (int64_t i = 0; i < ch->n_buffers; i++) bytes += buffer_bytes(&wr->layout->children[c], ch, i);
    for (int64_t g = 0; g < ch->n_children; g++) bytes += 8 * (uint64_t)ch->children[g]->length; /* nested: rough */
  }
  double bpr = (double)bytes / (double)n + 1;
  int64_t per = (int64_t)((double)wr->sp->block_bytes / bpr);
  return per < 16 ? 16 : per;
}

int pm_spill_writer_add_block(pm_spill_writer *wr, const struct ArrowArray *batch, pm_error *err) {
  return batch->length ? write_block(wr, batch, err) : 0;
}

int pm_spill_writer_add(pm_spill_writer *wr, const struct ArrowArray *batch, pm_error *err) {
  int64_t n = batch->length;
  if (!n) return 0;
  int64_t per = pm_spill_block_rows(wr, batch);
  if (per >= n) return write_block(wr, batch, err);
  for (int64_t a = 0; a < n; a += per) {
    int64_t len = per < n - a ? per : n - a;
    struct ArrowArray t;
    /* a compact copy of the slice, so the block holds only its rows */
    int64_t *idx = malloc((size_t)len * sizeof *idx);
    if (!idx) return PM_NOMEM(err);
    for (int64_t i = 0; i < len; i++) idx[i] = a + i;
    int rc = pm_take(wr->layout, batch, idx, len, &t, err);
    free(idx);
    if (rc) return rc;
    rc = write_block(wr, &t, err);
    pm_array_release(&t);
    if (rc) return rc;
  }
  return 0;
}

static void writer_free(pm_spill_writer *wr) {
  pm_buf_free(&wr->raw);
  pm_buf_free(&wr->comp);
  free(wr->path);
  free(wr);
}

int pm_spill_writer_close(pm_spill_writer *wr, pm_spill_run *run, pm_error *err) {
  memset(run, 0, sizeof *run);
  uint64_t bytes = pm_out_pos(wr->out);
  int rc = pm_out_commit(wr->out, PM_OUT_OVERWRITE, err);
  wr->out = NULL;
  if (rc) {
    pm_error_prefix(err, "write buffer spill: ");
    writer_free(wr);
    return rc;
  }
  run->path = wr->path;
  wr->path = NULL;
  run->bytes = bytes;
  run->rows = wr->rows;
  wr->sp->disk_bytes += bytes;
  wr->sp->bytes_written += bytes;
  wr->sp->runs_written++;
  wr->sp->live_files++;
  writer_free(wr);
  return 0;
}

void pm_spill_writer_abort(pm_spill_writer *wr) {
  if (!wr) return;
  pm_out_abort(wr->out);
  writer_free(wr);
}

/* ------------------------------------------------------------ reading */

typedef struct run_reader {
  pm_spill *sp;
  const pm_type *layout;
  pm_file *f;
  uint64_t pos, size;
  pm_buf comp, raw;
} run_reader;

static int run_next(void *ctx, struct ArrowArray *out, pm_error *err) {
  run_reader *r = ctx;
  memset(out, 0, sizeof *out);
  if (r->pos >= r->size) return 0;
  uint64_t h[4];
  if (r->size - r->pos < sizeof h)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "write buffer spill: %s: truncated block header", pm_file_path(r->f));
  if (pm_file_read_at(r->f, r->pos, h, sizeof h, err)) return pm_error_prefix(err, "write buffer spill: ");
  if ((uint32_t)h[0] != BLOCK_MAGIC || (int)(h[0] >> 32) != r->sp->codec || h[2] > r->size - r->pos - sizeof h)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "write buffer spill: %s: bad block at offset %llu", pm_file_path(r->f),
                     (unsigned long long)r->pos);
  uint64_t raw_len = h[1], body_len = h[2];
  r->comp.len = 0;
  r->raw.len = 0;
  pm_buf *body = r->sp->codec == PM_CODEC_NONE ? &r->raw : &r->comp;
  if (pm_buf_reserve(body, (size_t)body_len + 1)) return PM_NOMEM(err);
  if (pm_file_read_at(r->f, r->pos + sizeof h, body->data, (size_t)body_len, err))
    return pm_error_prefix(err, "write buffer spill: ");
  body->len = (size_t)body_len;
  if (r->sp->codec != PM_CODEC_NONE) {
    if (pm_buf_reserve(&r->raw, (size_t)raw_len + 1)) return PM_NOMEM(err);
    int rc = pm_decompress_ctx(&r->sp->codec_ctx, (pm_codec)r->sp->codec, r->comp.data, r->comp.len, r->raw.data, (size_t)raw_len, err);
    if (rc) return pm_error_prefix(err, "write buffer spill: %s: ", pm_file_path(r->f));
    r->raw.len = (size_t)raw_len;
  } else if (raw_len != body_len) {
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "write buffer spill: %s: bad block length", pm_file_path(r->f));
  }
  size_t p = 0;
  int rc = pm_spill_decode(r->layout, r->raw.data, r->raw.len, &p, out, err);
  if (rc) return pm_error_prefix(err, "write buffer spill: %s: ", pm_file_path(r->f));
  r->pos += sizeof h + body_len;
  return 0;
}

static void run_close(void *ctx) {
  run_reader *r = ctx;
  if (!r) return;
  pm_file_close(r->f);
  pm_buf_free(&r->comp);
  pm_buf_free(&r->raw);
  free(r);
}

int pm_spill_source(pm_spill *sp, const pm_type *layout, const pm_spill_run *run, pm_merge_source *out, pm_error *err) {
  memset(out, 0, sizeof *out);
  run_reader *r = calloc(1, sizeof *r);
  if (!r) return PM_NOMEM(err);
  r->sp = sp;
  r->layout = layout;
  pm_buf_init(&r->comp);
  pm_buf_init(&r->raw);
  int rc = pm_fs_open(sp->fs, run->path, &r->f, err);
  if (rc) {
    free(r);
    return pm_error_prefix(err, "write buffer spill: ");
  }
  r->size = pm_file_size(r->f);
  out->ctx = r;
  out->next = run_next;
  out->close = run_close;
  return 0;
}
