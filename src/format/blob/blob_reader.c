/* Blob file reader (layout in blob.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow.h"
#include "arrow/type.h"
#include "format/blob/blob.h"
#include "io/coalesce.h"

struct pm_blob_reader {
  pm_file *f;
  const char *path;
  int64_t n;        /* values */
  int64_t *starts;  /* per value: its record's offset, -1 for a null */
  int64_t *lens;    /* per value: its record's length */
  int64_t next;
  uint64_t max_gap, max_block;
  int64_t batch_rows;
  struct ArrowSchema schema;
};
typedef pm_blob_reader blob_file;

void pm_blob_reader_close(pm_blob_reader *b) {
  if (!b) return;
  pm_file_close(b->f);
  free(b->starts);
  free(b->lens);
  pm_schema_release(&b->schema);
  free(b);
}

int pm_blob_reader_open(pm_file *file, const char *column, int32_t field_id, int64_t batch_rows,
                        pm_blob_reader **out, pm_error *err) {
  *out = NULL;
  blob_file *b = calloc(1, sizeof *b);
  if (!b) {
    pm_file_close(file);
    return PM_NOMEM(err);
  }
  b->f = file;
  const char *path = pm_file_path(file) ? pm_file_path(file) : "(memory)";
  b->path = path;
  b->batch_rows = batch_rows > 0 ? batch_rows : 16384;
  b->max_gap = PM_COALESCE_MAX_GAP_DEFAULT;
  b->max_block = PM_COALESCE_MAX_BLOCK_DEFAULT;
  uint8_t *idx = NULL;
  int rc = 0;
  uint64_t size = pm_file_size(b->f);
  uint8_t tail[5];
  if (!rc && size < 5) rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: blob file of %llu bytes is too short", path, (unsigned long long)size);
  if (!rc) rc = pm_file_read_at(b->f, size - 5, tail, 5, err);
  int32_t ilen = 0;
  if (!rc) {
    memcpy(&ilen, tail, 4); /* little endian on every supported host */
    if (tail[4] != 1)
      rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: blob file version %d at offset %llu", path, tail[4],
                     (unsigned long long)(size - 1));
    else if (ilen < 0 || (uint64_t)ilen > size - 5)
      rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: blob index length %d at offset %llu", path, (int)ilen,
                     (unsigned long long)(size - 5));
  }
  if (!rc) {
    idx = malloc((size_t)ilen + 1);
    if (!idx) rc = PM_NOMEM(err);
  }
  if (!rc) rc = pm_file_read_at(b->f, size - 5 - (uint64_t)ilen, idx, (size_t)ilen, err);
  size_t cap = 0;
  int64_t prev = 0, off = 0, data_end = (int64_t)size - 5 - ilen;
  for (size_t p = 0; !rc && p < (size_t)ilen;) {
    uint64_t v = 0;
    int shift = 0;
    while (p < (size_t)ilen && shift < 64) {
      uint8_t byte = idx[p++];
      v |= (uint64_t)(byte & 0x7f) << shift;
      shift += 7;
      if (!(byte & 0x80)) break;
    }
    int64_t z = (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
    int64_t len = b->n == 0 ? z : prev + z;
    int null = len == -1 || len == -2; /* Java's NULL_LENGTH / PLACE_HOLDER_LENGTH */
    if (!null && (len < 16 || len > data_end - off)) {
      rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: blob record %lld has length %lld (index at offset %llu)", path,
                     (long long)b->n, (long long)len, (unsigned long long)(size - 5 - (uint64_t)ilen));
      break;
    }
    if ((size_t)b->n + 2 > cap) {
      cap = cap ? cap * 2 : 64;
      int64_t *ns = realloc(b->starts, cap * sizeof *ns);
      if (ns) b->starts = ns;
      int64_t *nl = ns ? realloc(b->lens, cap * sizeof *nl) : NULL;
      if (nl) b->lens = nl;
      if (!ns || !nl) {
        rc = PM_NOMEM(err);
        break;
      }
    }
    b->starts[b->n] = null ? -1 : off;
    b->lens[b->n++] = null ? 0 : len;
    if (!null) off += len;
    prev = len;
  }
  if (!rc && off != data_end)
    rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: blob records use %lld bytes, the data region has %lld", path,
                   (long long)off, (long long)data_end);
  free(idx);
  if (!rc && !b->starts) {
    b->starts = malloc(sizeof *b->starts);
    b->lens = malloc(sizeof *b->lens);
    if (!b->starts || !b->lens) rc = PM_NOMEM(err);
  }
  if (!rc) rc = pm_schema_init(&b->schema, "+s", "", 0, 1, err);
  if (!rc) {
    pm_schema_release(b->schema.children[0]);
    rc = pm_schema_init(b->schema.children[0], "z", column, ARROW_FLAG_NULLABLE, 0, err);
    char idbuf[16];
    snprintf(idbuf, sizeof idbuf, "%d", (int)field_id);
    const char *k[1] = {"PARQUET:field_id"}, *v[1] = {idbuf};
    if (!rc) rc = pm_schema_set_metadata(b->schema.children[0], 1, k, v, err);
  }
  if (rc) {
    pm_blob_reader_close(b);
    return rc;
  }
  *out = b;
  return 0;
}

void pm_blob_reader_set_coalesce(pm_blob_reader *r, uint64_t max_gap, uint64_t max_block) {
  r->max_gap = max_gap;
  r->max_block = max_block;
}

/* A batch: the payloads of its non-null values (record minus magic and length / CRC trailer) read
 * as coalesced ranges straight into the value buffer. */
int pm_blob_reader_next(pm_blob_reader *b, struct ArrowArray *out, pm_error *err) {
  memset(out, 0, sizeof *out);
  if (b->next >= b->n) return 0;
  int64_t k = b->n - b->next < b->batch_rows ? b->n - b->next : b->batch_rows;
  const int64_t *st = b->starts + b->next, *ln = b->lens + b->next;
  uint64_t total = 0;
  int64_t nulls = 0;
  for (int64_t i = 0; i < k; i++) {
    if (st[i] < 0) nulls++;
    else total += (uint64_t)(ln[i] - 16);
  }
  int rc = total > INT32_MAX ? pm_errorf(err, PAIMON_ERR_NOMEM, "%s: blob batch exceeds 2 GiB", b->path) : 0;
  int32_t *offs = rc ? NULL : pm_aligned_alloc(((size_t)k + 1) * 4);
  uint8_t *data = rc ? NULL : pm_aligned_alloc((size_t)total + 1);
  uint8_t *valid = nulls && !rc ? pm_aligned_alloc((size_t)(k + 7) / 8 + 1) : NULL;
  pm_read_range *rr = rc ? NULL : malloc(((size_t)(k - nulls) + 1) * sizeof *rr);
  if (!rc && (!offs || !data || !rr || (nulls && !valid))) rc = PM_NOMEM(err);
  size_t nr = 0, w = 0;
  if (!rc) {
    offs[0] = 0;
    if (valid) memset(valid, 0, (size_t)(k + 7) / 8);
    for (int64_t i = 0; i < k; i++) {
      if (st[i] >= 0) {
        size_t dl = (size_t)(ln[i] - 16);
        rr[nr].off = (uint64_t)st[i] + 4;
        rr[nr].len = dl;
        rr[nr++].dst = data + w;
        w += dl;
        if (valid) valid[i / 8] |= (uint8_t)(1u << (i % 8));
      }
      offs[i + 1] = (int32_t)w;
    }
    rc = pm_file_read_coalesced(b->f, rr, nr, b->max_gap, b->max_block, NULL, err);
  }
  free(rr);
  if (!rc) rc = pm_array_init(out, k, 1, 1, err);
  if (!rc) {
    rc = pm_array_init(out->children[0], k, 3, 0, err);
    if (rc) pm_array_release(out);
  }
  if (rc) {
    pm_aligned_free(offs);
    pm_aligned_free(data);
    pm_aligned_free(valid);
    return rc;
  }
  if (valid) {
    pm_array_set_buffer(out->children[0], 0, valid);
    out->children[0]->null_count = nulls;
  }
  pm_array_set_buffer(out->children[0], 1, offs);
  pm_array_set_buffer(out->children[0], 2, data);
  b->next += k;
  return 0;
}

int64_t pm_blob_reader_num_rows(const pm_blob_reader *r) { return r->n; }

int pm_blob_reader_schema(const pm_blob_reader *r, struct ArrowSchema *out, pm_error *err) {
  return pm_schema_copy(&r->schema, out, err);
}
