/*
 * The opt-in string_view read mode: every batch read with string_view = 1
 * must hold the same rows as the default mode (whose output test_read_compat
 * checks against DuckDB), with BYTE_ARRAY columns as valid Arrow
 * string-view / binary-view arrays ("vu"/"vz"). The views are decoded back
 * to bytes here, independently of the reader, following the Arrow layout:
 * 16-byte views (int32 length; <= 12 bytes inline and zero padded, else a
 * 4-byte prefix, int32 buffer index, int32 offset), variadic buffers and a
 * last buffer of int64 variadic sizes. View batches are all kept until the
 * reader is closed, so views that outlive the reader and later dictionaries
 * are checked too.
 * Files: our writer (nulls, page v1/v2, dictionary, PLAIN, dictionary
 * fallback mid-chunk, several codecs), parquet-gen (DuckDB-written) strings,
 * wide and nested files, and the Java-written fixtures; with row ranges and
 * small batches.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "arrow/arrow.h"
#include "format/parquet/parquet_reader.h"
#include "format/parquet/parquet_writer.h"
#include "harness.h"

#define TOOLS PM_SHARED("tools")

static char tmpdir[256];
static int files_compared = 0;
static int64_t views_checked = 0;
static int64_t long_views = 0;

static int bit(const void *bits, int64_t i) {
  return !bits || ((((const uint8_t *)bits)[i >> 3] >> (i & 7)) & 1);
}

/* Compares one default-mode array with its string_view counterpart. */
static void compare_array(const char *where, const struct ArrowSchema *ps, const struct ArrowArray *pa,
                          const struct ArrowSchema *vs, const struct ArrowArray *va) {
  CHECK_EQ_INT(va->length, pa->length);
  CHECK_EQ_INT(va->null_count, pa->null_count);
  CHECK_EQ_INT(va->offset, 0);
  CHECK_EQ_INT(va->n_children, pa->n_children);
  int is_view = !strcmp(vs->format, "vu") || !strcmp(vs->format, "vz");
  if (!is_view) {
    CHECK_EQ_STR(vs->format, ps->format);
    if (va->n_children != pa->n_children || vs->n_children != ps->n_children) return;
    for (int64_t i = 0; i < va->n_children; i++)
      compare_array(where, ps->children[i], pa->children[i], vs->children[i], va->children[i]);
    return;
  }
  CHECK_EQ_STR(ps->format, !strcmp(vs->format, "vu") ? "u" : "z");
  CHECK(va->n_buffers >= 3);
  if (va->n_buffers < 3 || va->length != pa->length) return;
  int64_t nvar = va->n_buffers - 3;
  const int64_t *sizes = va->buffers[va->n_buffers - 1];
  CHECK(sizes != NULL);
  for (int64_t b = 0; b < nvar; b++) CHECK(va->buffers[2 + b] != NULL && sizes[b] >= 0);
  const uint8_t *views = va->buffers[1];
  const int32_t *offs = pa->buffers[1];
  const uint8_t *bytes = pa->buffers[2];
  int bad = 0;
  for (int64_t i = 0; i < va->length && bad < 5; i++) {
    int pv = bit(pa->buffers[0], i), vv = bit(va->buffers[0], i);
    if (pv != vv) {
      CHECK_MSG(0, "%s: row %lld validity differs", where, (long long)i);
      bad++;
      continue;
    }
    if (!pv) continue;
    const uint8_t *v = views + i * 16;
    int32_t len;
    memcpy(&len, v, 4);
    int32_t want_len = offs[i + 1] - offs[i];
    const uint8_t *want = bytes + offs[i];
    const uint8_t *got;
    if (len < 0) {
      CHECK_MSG(0, "%s: row %lld negative view length", where, (long long)i);
      bad++;
      continue;
    }
    if (len <= 12) {
      for (int k = len; k < 12; k++)
        if (v[4 + k]) {
          CHECK_MSG(0, "%s: row %lld inline view not zero padded", where, (long long)i);
          bad++;
          break;
        }
      got = v + 4;
    } else {
      int32_t bi, off;
      memcpy(&bi, v + 8, 4);
      memcpy(&off, v + 12, 4);
      if (bi < 0 || bi >= nvar || off < 0 || (int64_t)off + len > sizes[bi]) {
        CHECK_MSG(0, "%s: row %lld view outside its buffer (buffer %d of %lld, offset %d, length %d)", where,
                  (long long)i, bi, (long long)nvar, off, len);
        bad++;
        continue;
      }
      got = (const uint8_t *)va->buffers[2 + bi] + off;
      if (memcmp(v + 4, got, 4) != 0) {
        CHECK_MSG(0, "%s: row %lld view prefix differs from its data", where, (long long)i);
        bad++;
      }
      long_views++;
    }
    views_checked++;
    if (len != want_len || memcmp(got, want, (size_t)len) != 0) {
      CHECK_MSG(0, "%s: row %lld value differs (length %d vs %d)", where, (long long)i, len, want_len);
      bad++;
    }
  }
}

/* Reads path in both modes with the same options and compares all batches. */
static void compare_modes(const char *path, int64_t batch_rows, const pm_pq_row_range *ranges, size_t n_ranges) {
  pm_error err;
  pm_pq_read_options opt;
  pm_pq_read_options_init(&opt);
  opt.batch_rows = batch_rows;
  opt.row_ranges = ranges;
  opt.n_row_ranges = n_ranges;
  opt.string_view = 1;
  pm_pq_reader *r;
  if (pm_pq_reader_open_path(path, &opt, &r, &err)) {
    CHECK_MSG(0, "%s: %s", path, err.message);
    return;
  }
  struct ArrowSchema vs, ps;
  CHECK_OK(pm_pq_reader_schema(r, &vs, &err), &err);
  size_t n = 0, cap = 16;
  struct ArrowArray *vb = malloc(cap * sizeof *vb);
  for (;;) {
    if (n == cap) vb = realloc(vb, (cap *= 2) * sizeof *vb);
    int rc = pm_pq_reader_next(r, &vb[n], &err);
    CHECK_MSG(rc == 0, "%s: %s", path, err.message);
    if (rc || !vb[n].release) break;
    n++;
  }
  pm_pq_reader_close(r); /* the view batches must stay valid on their own */

  opt.string_view = 0;
  CHECK_OK(pm_pq_reader_open_path(path, &opt, &r, &err), &err);
  CHECK_OK(pm_pq_reader_schema(r, &ps, &err), &err);
  size_t i = 0;
  for (;; i++) {
    struct ArrowArray pa;
    int rc = pm_pq_reader_next(r, &pa, &err);
    CHECK_MSG(rc == 0, "%s: %s", path, err.message);
    if (rc || !pa.release) break;
    CHECK_MSG(i < n, "%s: default mode has more batches", path);
    if (i < n) {
      char where[600];
      snprintf(where, sizeof where, "%s batch %zu", path, i);
      compare_array(where, &ps, &pa, &vs, &vb[i]);
    }
    pa.release(&pa);
  }
  CHECK_EQ_INT(i, n);
  pm_pq_reader_close(r);
  for (size_t k = 0; k < n; k++) vb[k].release(&vb[k]);
  free(vb);
  pm_schema_release(&vs);
  pm_schema_release(&ps);
  files_compared++;
}

/* ---- files written by our writer: nulls, fallback, pages ---- */

static int write_strings_file(const char *path, const pm_pq_write_options *wo, int64_t rows) {
  struct ArrowSchema s;
  pm_error err;
  if (pm_schema_init(&s, "+s", "", 0, 2, &err)) return 1;
  pm_schema_init(s.children[0], "u", "s", ARROW_FLAG_NULLABLE, 0, &err);
  pm_schema_init(s.children[1], "z", "b", ARROW_FLAG_NULLABLE, 0, &err);
  struct ArrowArray a;
  pm_array_init(&a, rows, 1, 2, &err);
  for (int c = 0; c < 2; c++) {
    struct ArrowArray *ch = a.children[c];
    pm_array_init(ch, rows, 3, 0, &err);
    uint8_t *valid = pm_aligned_alloc((size_t)rows / 8 + 8);
    int32_t *offs = pm_aligned_alloc((size_t)(rows + 1) * 4);
    char *data = pm_aligned_alloc((size_t)rows * 48 + 16);
    memset(valid, 0, (size_t)rows / 8 + 8);
    int32_t pos = 0;
    int64_t nulls = 0;
    offs[0] = 0;
    for (int64_t i = 0; i < rows; i++) {
      int is_null = (i % 7 == 3) || (c == 1 && i % 11 == 0);
      if (!is_null) {
        valid[i >> 3] |= (uint8_t)(1u << (i & 7));
        /* first rows repeat a few values (dictionary); later ones are unique
         * and overflow the dictionary page (fallback to PLAIN mid-chunk) */
        int64_t key = i < rows / 3 ? i % 40 : i;
        int len = (int)((key * 7) % 30);
        for (int k = 0; k < len; k++) data[pos + k] = (char)('a' + (key + k) % 26);
        if (c == 1 && len > 0) data[pos] = (char)(key & 0xff); /* binary: any byte */
        pos += len;
      } else {
        nulls++;
      }
      offs[i + 1] = pos;
    }
    ch->null_count = nulls;
    pm_array_set_buffer(ch, 0, valid);
    pm_array_set_buffer(ch, 1, offs);
    pm_array_set_buffer(ch, 2, data);
  }
  pm_pq_writer *w;
  int rc = pm_pq_writer_open(path, &s, wo, &w, &err);
  if (!rc) rc = pm_pq_writer_write(w, &a, &err);
  if (!rc) rc = pm_pq_writer_close(w, &err);
  if (rc) fprintf(stderr, "write %s: %s\n", path, err.message);
  pm_pq_writer_free(w);
  a.release(&a);
  s.release(&s);
  return rc;
}

static void test_own_files(void) {
  static const pm_codec codecs[] = {PM_CODEC_NONE, PM_CODEC_ZSTD, PM_CODEC_SNAPPY};
  for (int v2 = 0; v2 < 2; v2++) {
    for (int dict = 0; dict < 2; dict++) {
      for (int c = 0; c < 3; c++) {
        pm_pq_write_options wo;
        pm_pq_write_options_default(&wo);
        wo.codec = codecs[c];
        wo.data_page_v2 = v2;
        wo.dictionary = dict;
        wo.dictionary_page_bytes = 4096; /* fallback after the repeated rows */
        wo.page_rows = 700;
        wo.row_group_rows = 2500;
        char path[512];
        snprintf(path, sizeof path, "%s/own-%d-%d-%d.parquet", tmpdir, v2, dict, c);
        CHECK_EQ_INT(write_strings_file(path, &wo, 6000), 0);
        compare_modes(path, 65536, NULL, 0);
        compare_modes(path, 333, NULL, 0);
        pm_pq_row_range rr[3] = {{5, 17}, {690, 1500}, {2400, 5100}};
        compare_modes(path, 500, rr, 3);
      }
    }
  }
}

/* ---- DuckDB-written files ---- */

static void test_generated(void) {
  static const char *schemas[] = {"strings", "wide", "nested"};
  for (int s = 0; s < 3; s++) {
    for (int v2 = 0; v2 < 2; v2++) {
      char path[512], cmd[1200];
      snprintf(path, sizeof path, "%s/gen-%s-%d.parquet", tmpdir, schemas[s], v2);
      snprintf(cmd, sizeof cmd,
               "%s/parquet-gen %s --rows 12000 --codec %s --schema %s --row-group-size 5000%s >/dev/null 2>&1", TOOLS,
               path, v2 ? "zstd" : "snappy", schemas[s], v2 ? " --page-v2" : "");
      if (system(cmd) != 0) {
        fprintf(stderr, "SKIP: parquet-gen unavailable\n");
        return;
      }
      compare_modes(path, 65536, NULL, 0);
      compare_modes(path, 1000, NULL, 0);
      pm_pq_row_range rr[2] = {{3, 4100}, {4999, 11000}};
      compare_modes(path, 2048, rr, 2);
    }
  }
}

static void walk(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(path, &st)) continue;
    size_t l = strlen(path);
    if (S_ISDIR(st.st_mode)) walk(path);
    else if (l > 8 && !strcmp(path + l - 8, ".parquet") && !strstr(path, "corrupt")) compare_modes(path, 65536, NULL, 0);
  }
  closedir(d);
}

static void test_fixtures(void) {
  int before = files_compared;
  walk(PM_SHARED("fixtures"));
  fprintf(stderr, "compared %d fixture files\n", files_compared - before);
}

int main(void) {
  snprintf(tmpdir, sizeof tmpdir, "/tmp/pm_pq_view_XXXXXX");
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }
  RUN_TEST(test_own_files);
  RUN_TEST(test_generated);
  RUN_TEST(test_fixtures);
  fprintf(stderr, "%d files, %lld views checked (%lld long)\n", files_compared, (long long)views_checked,
          (long long)long_views);
  CHECK(long_views > 0);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
  TEST_MAIN_END();
}
