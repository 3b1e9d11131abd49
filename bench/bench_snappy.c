/* Snappy block decompression speed: libsnappy vs our decoder (util/snappy_decode.c).
 *   bench_snappy FILE [RUNS] [CHUNK_KB]
 * A Parquet FILE: its snappy pages (per column). Any other FILE: cut into
 * CHUNK_KB chunks (default 64, 256 and 1024) compressed with libsnappy.
 * Both decoders run interleaved; reports the best of RUNS in process CPU time
 * as MB/s of uncompressed output, and checks both outputs are identical. */
#include <snappy-c.h>
#include <string.h>

#include "bench_util.h"
#include "format/parquet/parquet_meta.h"
#include "format/parquet/parquet_types.h"
#include "io/file.h"
#include "util/snappy_decode.h"

typedef struct block {
  const uint8_t *src;
  size_t src_len, raw_len;
} block;

typedef struct block_set {
  char name[128];
  block *blocks;
  size_t n, cap;
  size_t raw_total, src_total;
  uint8_t *owned; /* compressed chunks (non-Parquet input) */
} block_set;

static double cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void add_block(block_set *s, const uint8_t *src, size_t src_len, size_t raw_len) {
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 64;
    s->blocks = realloc(s->blocks, s->cap * sizeof *s->blocks);
    if (!s->blocks) abort();
  }
  s->blocks[s->n++] = (block){src, src_len, raw_len};
  s->raw_total += raw_len;
  s->src_total += src_len;
}

/* Every snappy-compressed page of every column chunk, one set per column. */
static int parquet_sets(const uint8_t *data, size_t size, block_set **sets_out, int *n_sets) {
  pm_error err;
  pm_file *f;
  pm_pq_meta *m;
  if (pm_file_from_memory(data, size, "bench", &f, &err) || pm_pq_meta_read(f, &m, &err)) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  block_set *sets = calloc((size_t)m->n_leaves, sizeof *sets);
  for (int leaf = 0; leaf < m->n_leaves; leaf++) snprintf(sets[leaf].name, sizeof sets[leaf].name, "%s", m->leaves[leaf].path);
  for (uint32_t g = 0; g < m->n_row_groups; g++)
    for (uint32_t c = 0; c < m->row_groups[g].n_columns && (int)c < m->n_leaves; c++) {
      const pm_pq_column_chunk *cc = &m->row_groups[g].columns[c];
      if (cc->codec != PM_PQ_CODEC_SNAPPY) continue;
      int64_t start = cc->has_dictionary_page_offset && cc->dictionary_page_offset > 0 &&
                              cc->dictionary_page_offset < cc->data_page_offset
                          ? cc->dictionary_page_offset
                          : cc->data_page_offset;
      int64_t end = start + cc->total_compressed_size;
      if (start < 0 || end > (int64_t)size) continue;
      for (int64_t pos = start; pos < end;) {
        pm_pq_page_header h;
        size_t used;
        if (pm_pq_page_header_parse(data + pos, (size_t)(end - pos), (uint64_t)pos, "bench", &h, &used, &err)) break;
        pos += (int64_t)used;
        if (h.compressed_size < 0 || h.compressed_size > end - pos) break;
        const uint8_t *body = data + pos;
        size_t body_len = (size_t)h.compressed_size, raw_len = (size_t)h.uncompressed_size;
        if (h.type == PM_PQ_PAGE_DATA_V2) { /* levels are stored uncompressed before the values */
          size_t levels = (size_t)h.def_len + (size_t)h.rep_len;
          if (!h.is_compressed || levels > body_len || levels > raw_len) levels = body_len + 1;
          if (levels <= body_len) add_block(&sets[c], body + levels, body_len - levels, raw_len - levels);
        } else if (h.type == PM_PQ_PAGE_DATA || h.type == PM_PQ_PAGE_DICTIONARY) {
          add_block(&sets[c], body, body_len, raw_len);
        }
        pos += h.compressed_size;
      }
    }
  *n_sets = m->n_leaves;
  *sets_out = sets;
  pm_pq_meta_free(m);
  pm_file_close(f);
  return 0;
}

static void chunk_set(block_set *s, const uint8_t *data, size_t size, size_t chunk) {
  snprintf(s->name, sizeof s->name, "chunks of %zu KB", chunk >> 10);
  size_t n = (size + chunk - 1) / chunk;
  s->owned = malloc(n * snappy_max_compressed_length(chunk) + 1);
  uint8_t *w = s->owned;
  for (size_t off = 0; off < size; off += chunk) {
    size_t len = size - off < chunk ? size - off : chunk;
    size_t clen = snappy_max_compressed_length(len);
    if (snappy_compress((const char *)data + off, len, (char *)w, &clen) != SNAPPY_OK) abort();
    add_block(s, w, clen, len);
    w += clen;
  }
}

static void run_set(const block_set *s, int runs) {
  if (!s->n) return;
  size_t max_raw = 0;
  for (size_t i = 0; i < s->n; i++)
    if (s->blocks[i].raw_len > max_raw) max_raw = s->blocks[i].raw_len;
  uint8_t *a = malloc(max_raw + 1), *b = malloc(max_raw + 1);
  /* Correctness first: both decoders must produce the same bytes. */
  for (size_t i = 0; i < s->n; i++) {
    const block *k = &s->blocks[i];
    size_t n = max_raw, produced = 0;
    int lib = snappy_uncompress((const char *)k->src, k->src_len, (char *)a, &n);
    int ours = pm_snappy_decompress(k->src, k->src_len, b, max_raw, &produced);
    if (lib != SNAPPY_OK || ours != PM_SNAPPY_OK || n != produced || memcmp(a, b, n) != 0) {
      fprintf(stderr, "%s: block %zu: decoders disagree (lib %d, ours %d: %s)\n", s->name, i, lib, ours,
              pm_snappy_status_text(ours));
      exit(1);
    }
  }
  double best_lib = 1e30, best_ours = 1e30;
  for (int r = 0; r < runs; r++) {
    double t0 = cpu_ms();
    for (size_t i = 0; i < s->n; i++) {
      size_t n = max_raw;
      snappy_uncompress((const char *)s->blocks[i].src, s->blocks[i].src_len, (char *)a, &n);
    }
    double t1 = cpu_ms();
    for (size_t i = 0; i < s->n; i++) {
      size_t produced;
      pm_snappy_decompress(s->blocks[i].src, s->blocks[i].src_len, b, max_raw, &produced);
    }
    double t2 = cpu_ms();
    if (t1 - t0 < best_lib) best_lib = t1 - t0;
    if (t2 - t1 < best_ours) best_ours = t2 - t1;
  }
  double mb = s->raw_total / 1e6;
  printf("{\"set\":\"%s\",\"blocks\":%zu,\"raw_bytes\":%zu,\"ratio\":%.3f,\"libsnappy_ms\":%.3f,\"ours_ms\":%.3f,"
         "\"libsnappy_mb_s\":%.0f,\"ours_mb_s\":%.0f,\"speedup\":%.2f}\n",
         s->name, s->n, s->raw_total, s->raw_total ? (double)s->src_total / s->raw_total : 0.0, best_lib, best_ours,
         best_lib > 0 ? mb / (best_lib / 1e3) : 0.0, best_ours > 0 ? mb / (best_ours / 1e3) : 0.0,
         best_ours > 0 ? best_lib / best_ours : 0.0);
  free(a);
  free(b);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE [RUNS] [CHUNK_KB]\n", argv[0]);
    return 2;
  }
  int runs = argc > 2 ? atoi(argv[2]) : 10;
  if (runs < 1) runs = 1;
  pm_buf file;
  pm_buf_init(&file);
  pm_error err;
  if (pm_read_file(argv[1], &file, 0, &err)) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  block_set *sets = NULL;
  int n_sets = 0;
  if (file.len >= 8 && !memcmp(file.data, "PAR1", 4) && !memcmp(file.data + file.len - 4, "PAR1", 4)) {
    if (parquet_sets(file.data, file.len, &sets, &n_sets)) return 1;
    block_set all = {.name = "all columns"};
    for (int i = 0; i < n_sets; i++)
      for (size_t k = 0; k < sets[i].n; k++) add_block(&all, sets[i].blocks[k].src, sets[i].blocks[k].src_len, sets[i].blocks[k].raw_len);
    for (int i = 0; i < n_sets; i++) run_set(&sets[i], runs);
    run_set(&all, runs);
    free(all.blocks);
  } else {
    static const size_t default_kb[] = {64, 256, 1024};
    size_t chunk_kb = argc > 3 ? (size_t)atol(argv[3]) : 0;
    n_sets = chunk_kb ? 1 : 3;
    sets = calloc((size_t)n_sets, sizeof *sets);
    for (int i = 0; i < n_sets; i++) {
      chunk_set(&sets[i], file.data, file.len, (chunk_kb ? chunk_kb : default_kb[i]) << 10);
      run_set(&sets[i], runs);
    }
  }
  for (int i = 0; i < n_sets; i++) {
    free(sets[i].blocks);
    free(sets[i].owned);
  }
  free(sets);
  pm_buf_free(&file);
  return 0;
}
