/*
 * Bad input never crashes: hand-built Parquet files with one defect each
 * must fail with an error naming the file and the problem; truncations and
 * byte flips of a real file must fail cleanly or decode.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow.h"
#include "format/parquet/parquet_reader.h"
#include "harness.h"
#include "util/buf.h"
#include "util/compress.h"

/* ---- a tiny thrift compact writer ---- */
typedef struct tw {
  uint8_t b[8192];
  size_t n;
  int16_t last[32];
  int depth;
} tw;

static void put(tw *w, uint8_t x) { w->b[w->n++] = x; }
static void uvar(tw *w, uint64_t v) {
  while (v >= 0x80) {
    put(w, (uint8_t)(v | 0x80));
    v >>= 7;
  }
  put(w, (uint8_t)v);
}
static void zz(tw *w, int64_t v) { uvar(w, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63)); }
static void fh(tw *w, int16_t id, int type) {
  int16_t d = (int16_t)(id - w->last[w->depth]);
  if (d > 0 && d <= 15) put(w, (uint8_t)(d << 4 | type));
  else {
    put(w, (uint8_t)type);
    zz(w, id);
  }
  w->last[w->depth] = id;
}
static void f_i32(tw *w, int16_t id, int64_t v) { fh(w, id, 5), zz(w, v); }
static void f_i64(tw *w, int16_t id, int64_t v) { fh(w, id, 6), zz(w, v); }
static void f_bin(tw *w, int16_t id, const char *s) {
  fh(w, id, 8);
  uvar(w, strlen(s));
  memcpy(w->b + w->n, s, strlen(s));
  w->n += strlen(s);
}
static void s_begin(tw *w) { w->last[++w->depth] = 0; }
static void s_end(tw *w) {
  put(w, 0);
  w->depth--;
}
static void f_struct(tw *w, int16_t id) {
  fh(w, id, 12);
  s_begin(w);
}
static void f_list(tw *w, int16_t id, int etype, uint32_t n) {
  fh(w, id, 9);
  if (n < 15) put(w, (uint8_t)(n << 4 | etype));
  else {
    put(w, (uint8_t)(0xf0 | etype));
    uvar(w, n);
  }
}

/* ---- file builder ---- */
typedef struct spec {
  int optional;          /* column x optional (def levels) */
  int codec;             /* parquet codec id */
  int use_dict;          /* dictionary page + RLE_DICTIONARY data page */
  uint8_t dict_index;    /* index written for every value */
  int bad_page_size;     /* data page compressed size too large */
  int bad_levels;        /* def level RLE data truncated */
  int garbage_compressed; /* compressed data is garbage */
  int schema_depth;      /* > 0: nest the column in this many groups */
  int huge_list;         /* schema list with a huge count */
  int64_t num_rows;
} spec;

static size_t page_header(uint8_t *out, int type, int32_t usize, int32_t csize, int32_t nvals, int enc) {
  tw w;
  memset(&w, 0, sizeof w);
  s_begin(&w);
  f_i32(&w, 1, type);
  f_i32(&w, 2, usize);
  f_i32(&w, 3, csize);
  if (type == 2) {
    f_struct(&w, 7);
    f_i32(&w, 1, nvals);
    f_i32(&w, 2, enc);
    s_end(&w);
  } else {
    f_struct(&w, 5);
    f_i32(&w, 1, nvals);
    f_i32(&w, 2, enc);
    f_i32(&w, 3, 3);
    f_i32(&w, 4, 3);
    s_end(&w);
  }
  s_end(&w);
  memcpy(out, w.b, w.n);
  return w.n;
}

static size_t build(const spec *s, uint8_t *file) {
  size_t n = 0;
  memcpy(file, "PAR1", 4);
  n = 4;
  const int nv = 4;
  int64_t dict_off = -1, data_off;
  pm_error err;
  if (s->use_dict) {
    int32_t dv[2] = {10, 20};
    dict_off = (int64_t)n;
    uint8_t dc[64];
    size_t dl = 8;
    memcpy(dc, dv, 8);
    if (s->codec == 1) {
      pm_buf out;
      pm_buf_init(&out);
      if (pm_compress(PM_CODEC_SNAPPY, 0, (const uint8_t *)dv, 8, &out, &err) == 0) {
        memcpy(dc, out.data, out.len);
        dl = out.len;
      }
      pm_buf_free(&out);
    }
    n += page_header(file + n, 2, 8, (int32_t)dl, 2, 0);
    memcpy(file + n, dc, dl);
    n += dl;
  }
  /* data page body */
  uint8_t body[256];
  size_t bl = 0;
  if (s->optional) {
    /* def levels: RLE, 4 x 1 */
    uint8_t lv[] = {4 << 1, 1};
    uint32_t l = s->bad_levels ? 40 : 2;
    memcpy(body + bl, &l, 4);
    bl += 4;
    memcpy(body + bl, lv, 2);
    bl += 2;
  }
  if (s->use_dict) {
    body[bl++] = 2;         /* bit width */
    body[bl++] = nv << 1;   /* RLE run of nv */
    body[bl++] = s->dict_index;
  } else {
    for (int i = 0; i < nv; i++) {
      int32_t v = i * 7;
      memcpy(body + bl, &v, 4);
      bl += 4;
    }
  }
  uint8_t comp[512];
  size_t cl = bl;
  memcpy(comp, body, bl);
  if (s->codec == 1) {
    pm_buf out;
    pm_buf_init(&out);
    if (pm_compress(PM_CODEC_SNAPPY, 0, body, bl, &out, &err) == 0) {
      memcpy(comp, out.data, out.len);
      cl = out.len;
    }
    pm_buf_free(&out);
    if (s->garbage_compressed) memset(comp, 0xff, cl);
  }
  data_off = (int64_t)n;
  n += page_header(file + n, 0, (int32_t)bl, (int32_t)cl + (s->bad_page_size ? 1000 : 0), nv,
                   s->use_dict ? 8 : 0);
  memcpy(file + n, comp, cl);
  n += cl;
  int64_t chunk_start = dict_off >= 0 ? dict_off : data_off;
  int64_t chunk_len = (int64_t)n - chunk_start;
  /* footer */
  tw w;
  memset(&w, 0, sizeof w);
  s_begin(&w);
  f_i32(&w, 1, 1);
  int depth = s->schema_depth;
  f_list(&w, 2, 12, s->huge_list ? 100000 : (uint32_t)(2 + depth));
  s_begin(&w);
  f_bin(&w, 4, "schema");
  f_i32(&w, 5, 1);
  s_end(&w);
  for (int d = 0; d < depth; d++) {
    s_begin(&w);
    f_i32(&w, 3, 0);
    f_bin(&w, 4, "g");
    f_i32(&w, 5, 1);
    s_end(&w);
  }
  s_begin(&w);
  f_i32(&w, 1, 1);
  f_i32(&w, 3, s->optional ? 1 : 0);
  f_bin(&w, 4, "x");
  s_end(&w);
  f_i64(&w, 3, s->num_rows ? s->num_rows : nv);
  f_list(&w, 4, 12, 1);
  s_begin(&w);
  f_list(&w, 1, 12, 1);
  s_begin(&w);
  f_i64(&w, 2, chunk_start);
  f_struct(&w, 3);
  f_i32(&w, 1, 1);
  f_list(&w, 2, 5, 1);
  zz(&w, 0);
  f_list(&w, 3, 8, 1);
  uvar(&w, 1);
  put(&w, 'x');
  f_i32(&w, 4, s->codec);
  f_i64(&w, 5, nv);
  f_i64(&w, 6, chunk_len);
  f_i64(&w, 7, chunk_len);
  f_i64(&w, 9, data_off);
  if (dict_off >= 0) f_i64(&w, 11, dict_off);
  s_end(&w);
  s_end(&w);
  f_i64(&w, 2, 100);
  f_i64(&w, 3, s->num_rows ? s->num_rows : nv);
  s_end(&w);
  s_end(&w);
  memcpy(file + n, w.b, w.n);
  n += w.n;
  uint32_t fl = (uint32_t)w.n;
  memcpy(file + n, &fl, 4);
  n += 4;
  memcpy(file + n, "PAR1", 4);
  n += 4;
  return n;
}

/* Reads every batch; returns the status, err holds the message. */
static int read_all(const uint8_t *data, size_t len, int64_t *rows, int32_t *first, pm_error *err) {
  pm_file *f;
  int rc = pm_file_from_memory(data, len, "bad.parquet", &f, err);
  if (rc) return rc;
  pm_pq_reader *r;
  rc = pm_pq_reader_open(f, NULL, &r, err);
  if (rc) return rc;
  *rows = 0;
  for (;;) {
    struct ArrowArray a;
    rc = pm_pq_reader_next(r, &a, err);
    if (rc || !a.release) break;
    if (*rows == 0 && first && a.children[0]->n_buffers == 2 && a.children[0]->buffers[1])
      *first = ((const int32_t *)a.children[0]->buffers[1])[1];
    *rows += a.length;
    a.release(&a);
  }
  pm_pq_reader_close(r);
  return rc;
}

static uint8_t file[16384];

static void expect_error(const spec *s, const char *what) {
  size_t n = build(s, file);
  pm_error err;
  int64_t rows = 0;
  int rc = read_all(file, n, &rows, NULL, &err);
  CHECK_MSG(rc != 0, "expected an error about '%s'", what);
  if (rc) {
    CHECK_MSG(strstr(err.message, "bad.parquet") != NULL, "message lacks the file name: %s", err.message);
    CHECK_MSG(strstr(err.message, what) != NULL, "message '%s' lacks '%s'", err.message, what);
  }
}

static void test_valid_builds(void) {
  spec s;
  memset(&s, 0, sizeof s);
  size_t n = build(&s, file);
  pm_error err;
  int64_t rows = 0;
  int32_t first = -1;
  CHECK_OK(read_all(file, n, &rows, &first, &err), &err);
  CHECK_EQ_INT(rows, 4);
  CHECK_EQ_INT(first, 7);
  s.use_dict = 1;
  s.dict_index = 1;
  s.optional = 1;
  s.codec = 1;
  n = build(&s, file);
  first = -1;
  CHECK_OK(read_all(file, n, &rows, &first, &err), &err);
  CHECK_EQ_INT(rows, 4);
  CHECK_EQ_INT(first, 20);
}

static void test_defects(void) {
  spec s;
  memset(&s, 0, sizeof s);
  s.bad_page_size = 1;
  expect_error(&s, "beyond the column chunk");
  memset(&s, 0, sizeof s);
  s.use_dict = 1;
  s.dict_index = 3;
  expect_error(&s, "dictionary index out of range");
  memset(&s, 0, sizeof s);
  s.optional = 1;
  s.bad_levels = 1;
  expect_error(&s, "level data length beyond the page");
  memset(&s, 0, sizeof s);
  s.codec = 1;
  s.garbage_compressed = 1;
  expect_error(&s, "page at offset");
  memset(&s, 0, sizeof s);
  s.schema_depth = 200;
  expect_error(&s, "deeper");
  memset(&s, 0, sizeof s);
  s.huge_list = 1;
  expect_error(&s, "list size");
  memset(&s, 0, sizeof s);
  s.num_rows = 10; /* more rows claimed than stored */
  expect_error(&s, "fewer values");
}

static void test_framing(void) {
  spec s;
  memset(&s, 0, sizeof s);
  size_t n = build(&s, file);
  pm_error err;
  int64_t rows;
  /* wrong magic */
  uint8_t copy[16384];
  memcpy(copy, file, n);
  copy[0] = 'X';
  CHECK(read_all(copy, n, &rows, NULL, &err) == PAIMON_ERR_CORRUPT);
  CHECK(strstr(err.message, "magic") != NULL);
  /* footer length beyond the file */
  memcpy(copy, file, n);
  uint32_t big = 1u << 30;
  memcpy(copy + n - 8, &big, 4);
  CHECK(read_all(copy, n, &rows, NULL, &err) == PAIMON_ERR_CORRUPT);
  CHECK(strstr(err.message, "footer length") != NULL);
  /* every truncation fails cleanly */
  for (size_t len = 0; len < n; len++) {
    int rc = read_all(file, len, &rows, NULL, &err);
    CHECK_MSG(rc != 0, "truncated to %zu bytes accepted", len);
    if (rc) CHECK(strstr(err.message, "bad.parquet") != NULL);
  }
}

/* Byte flips in a real file: never crash (ASan/UBSan builds check memory). */
static void test_flips(void) {
  const char *path = PM_SHARED("fixtures/warehouse/append_with_bitmap_multi_stripes.db/append_with_bitmap_multi_stripes/bucket-0/data-multi-row-groups.parquet");
  pm_buf b;
  pm_buf_init(&b);
  pm_error err;
  if (pm_read_file(path, &b, 0, &err)) {
    fprintf(stderr, "skip flips: %s\n", err.message);
    return;
  }
  uint8_t *copy = malloc(b.len);
  uint32_t st = 7;
  int failures = 0, oks = 0;
  for (int iter = 0; iter < 300; iter++) {
    memcpy(copy, b.data, b.len);
    for (int k = 0; k < 3; k++) {
      st = st * 1103515245u + 12345u;
      size_t pos = (st >> 4) % b.len;
      st = st * 1103515245u + 12345u;
      copy[pos] ^= (uint8_t)(1u << ((st >> 8) & 7));
    }
    int64_t rows;
    if (read_all(copy, b.len, &rows, NULL, &err)) failures++;
    else oks++;
  }
  CHECK(failures + oks == 300);
  free(copy);
  pm_buf_free(&b);
}

int main(void) {
  RUN_TEST(test_valid_builds);
  RUN_TEST(test_defects);
  RUN_TEST(test_framing);
  RUN_TEST(test_flips);
  TEST_MAIN_END();
}
