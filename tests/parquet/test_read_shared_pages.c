/*
 * Batches that point into shared decompressed pages. Plain pages of flat
 * INT32/INT64/FLOAT/DOUBLE values are lent to batches instead of copied out
 * (parquet_reader.c, take_values); such a batch keeps its page alive, and
 * the reader must not reuse a page buffer a batch still points into.
 * Checked here on files of our writer (PLAIN, several codecs, page v1/v2,
 * pages smaller and larger than batches, nulls in some pages only): every
 * value equals the formula it was written from, whether each batch is
 * released at once, or all are kept until after the reader is closed (and
 * later pages are decoded meanwhile); with row ranges too. Buffers are
 * aligned for their type, and slices of one page are seen to be lent
 * (consecutive batches of a page lie back to back in memory). Every
 * Parquet file of the Java-written fixtures prints the same whether its
 * batches are released at once or all kept past the reader's close.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "arrow/arrow.h"
#include "print/print.h"
#include "format/parquet/parquet_reader.h"
#include "format/parquet/parquet_writer.h"
#include "harness.h"

static char tmpdir[256];
static int64_t values_checked = 0;
static int lent_slices = 0;

static int64_t val_l(int64_t r) { return r * 1000003 - 77; }
static int32_t val_i(int64_t r) { return (int32_t)(r * 31 - 5000); }
static int null_i(int64_t r) { return r >= 1000 && r < 1200 && r % 3 == 0; } /* nulls in some pages only */
static double val_d(int64_t r) { return (double)r * 0.5 - 3.25; }
static float val_f(int64_t r) { return (float)r * 0.25f; }

static int write_file(const char *path, const pm_pq_write_options *wo, int64_t rows) {
  struct ArrowSchema s;
  pm_error err;
  if (pm_schema_init(&s, "+s", "", 0, 4, &err)) return 1;
  pm_schema_init(s.children[0], "l", "l", 0, 0, &err);
  pm_schema_init(s.children[1], "i", "i", ARROW_FLAG_NULLABLE, 0, &err);
  pm_schema_init(s.children[2], "g", "d", 0, 0, &err);
  pm_schema_init(s.children[3], "f", "f", ARROW_FLAG_NULLABLE, 0, &err);
  struct ArrowArray a;
  pm_array_init(&a, rows, 1, 4, &err);
  int64_t *l = pm_aligned_alloc((size_t)rows * 8 + 8);
  int32_t *iv = pm_aligned_alloc((size_t)rows * 4 + 8);
  double *d = pm_aligned_alloc((size_t)rows * 8 + 8);
  float *f = pm_aligned_alloc((size_t)rows * 4 + 8);
  uint8_t *valid = pm_aligned_alloc((size_t)rows / 8 + 8);
  memset(valid, 0, (size_t)rows / 8 + 8);
  int64_t nulls = 0;
  for (int64_t r = 0; r < rows; r++) {
    l[r] = val_l(r);
    d[r] = val_d(r);
    f[r] = val_f(r);
    iv[r] = null_i(r) ? 0 : val_i(r);
    if (null_i(r)) nulls++;
    else valid[r >> 3] |= (uint8_t)(1u << (r & 7));
  }
  void *bufs[4] = {l, iv, d, f};
  for (int c = 0; c < 4; c++) {
    pm_array_init(a.children[c], rows, 2, 0, &err);
    pm_array_set_buffer(a.children[c], 1, bufs[c]);
  }
  pm_array_set_buffer(a.children[1], 0, valid);
  a.children[1]->null_count = nulls;
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

static int bit(const void *bits, int64_t i) { return !bits || ((((const uint8_t *)bits)[i >> 3] >> (i & 7)) & 1); }

/* Checks a batch against the formulas, given the file row of each slot. */
static void check_batch(const char *where, const struct ArrowArray *b, const int64_t *rows) {
  CHECK_EQ_INT(b->n_children, 4);
  if (b->n_children != 4) return;
  const int64_t *l = b->children[0]->buffers[1];
  const int32_t *iv = b->children[1]->buffers[1];
  const double *d = b->children[2]->buffers[1];
  const float *f = b->children[3]->buffers[1];
  CHECK_MSG(((uintptr_t)l & 7) == 0 && ((uintptr_t)iv & 3) == 0 && ((uintptr_t)d & 7) == 0 && ((uintptr_t)f & 3) == 0,
            "%s: value buffers not aligned for their types", where);
  CHECK_EQ_INT(b->children[0]->null_count, 0);
  CHECK_EQ_INT(b->children[3]->null_count, 0);
  int bad = 0;
  for (int64_t k = 0; k < b->length && bad < 5; k++) {
    int64_t r = rows[k];
    int ok = l[k] == val_l(r) && d[k] == val_d(r) && f[k] == val_f(r) &&
             bit(b->children[1]->buffers[0], k) == !null_i(r) && (null_i(r) || iv[k] == val_i(r));
    if (!ok) {
      CHECK_MSG(0, "%s: row %lld (slot %lld) differs", where, (long long)r, (long long)k);
      bad++;
    }
    values_checked++;
  }
}

/* Reads the whole file; keep = hold every batch until after the reader is
 * closed (then check them), else check and release each at once. */
static void read_file(const char *path, int64_t batch_rows, const pm_pq_row_range *ranges, size_t n_ranges, int keep,
                      int64_t expect_rows) {
  pm_error err;
  pm_pq_read_options opt;
  pm_pq_read_options_init(&opt);
  opt.batch_rows = batch_rows;
  opt.row_ranges = ranges;
  opt.n_row_ranges = n_ranges;
  pm_pq_reader *r;
  if (pm_pq_reader_open_path(path, &opt, &r, &err)) {
    CHECK_MSG(0, "%s: %s", path, err.message);
    return;
  }
  size_t n = 0, cap = 16;
  struct ArrowArray *kept = malloc(cap * sizeof *kept);
  int64_t **kept_rows = malloc(cap * sizeof *kept_rows);
  int64_t total = 0;
  const uint8_t *prev_l = NULL;
  int64_t prev_len = 0, prev_last_row = -2;
  for (;;) {
    struct ArrowArray b;
    int rc = pm_pq_reader_next(r, &b, &err);
    CHECK_MSG(rc == 0, "%s: %s", path, err.message);
    if (rc || !b.release) break;
    int64_t np = 0;
    const int64_t *pos = pm_pq_reader_batch_positions(r, &np);
    CHECK_EQ_INT(np, b.length);
    if (np != b.length || !pos) {
      b.release(&b);
      break;
    }
    char where[600];
    snprintf(where, sizeof where, "%s batch %zu (batch_rows %lld, keep %d)", path, n, (long long)batch_rows, keep);
    const uint8_t *lp = b.children[0]->buffers[1];
    if (keep && prev_l && lp == prev_l + prev_len * 8 && pos[0] == prev_last_row + 1) lent_slices++;
    prev_l = lp;
    prev_len = b.length;
    prev_last_row = pos[np - 1];
    total += b.length;
    if (keep) {
      if (n == cap) {
        cap *= 2;
        kept = realloc(kept, cap * sizeof *kept);
        kept_rows = realloc(kept_rows, cap * sizeof *kept_rows);
      }
      kept_rows[n] = malloc((size_t)np * sizeof(int64_t) + 8);
      memcpy(kept_rows[n], pos, (size_t)np * sizeof(int64_t));
      kept[n++] = b;
    } else {
      check_batch(where, &b, pos);
      b.release(&b);
      n++;
    }
  }
  pm_pq_reader_close(r); /* kept batches must stay valid on their own */
  CHECK_EQ_INT(total, expect_rows);
  if (keep) {
    for (size_t k = 0; k < n; k++) {
      char where[600];
      snprintf(where, sizeof where, "%s kept batch %zu (batch_rows %lld)", path, k, (long long)batch_rows);
      check_batch(where, &kept[k], kept_rows[k]);
      kept[k].release(&kept[k]);
      free(kept_rows[k]);
    }
  }
  free(kept);
  free(kept_rows);
}

static void test_shared_pages(void) {
  static const pm_codec codecs[] = {PM_CODEC_ZSTD, PM_CODEC_SNAPPY, PM_CODEC_NONE, PM_CODEC_LZ4_RAW};
  const int64_t rows = 30000;
  for (int v2 = 0; v2 < 2; v2++) {
    for (int c = 0; c < 4; c++) {
      for (int big = 0; big < 2; big++) {
        pm_pq_write_options wo;
        pm_pq_write_options_default(&wo);
        wo.codec = codecs[c];
        wo.data_page_v2 = v2;
        wo.dictionary = 0; /* PLAIN pages: the shared path */
        wo.page_rows = big ? 12000 : 700;
        wo.row_group_rows = big ? 25000 : 2500;
        char path[512];
        snprintf(path, sizeof path, "%s/f-%d-%d-%d.parquet", tmpdir, v2, c, big);
        CHECK_EQ_INT(write_file(path, &wo, rows), 0);
        static const int64_t batches[] = {333, 4096, 100000};
        for (int bi = 0; bi < 3; bi++) {
          read_file(path, batches[bi], NULL, 0, 0, rows);
          read_file(path, batches[bi], NULL, 0, 1, rows);
        }
        pm_pq_row_range rr[3] = {{5, 17}, {690, 1500}, {2400, 26000}};
        read_file(path, 500, rr, 3, 1, 12 + 810 + 23600);
        read_file(path, 500, rr, 3, 0, 12 + 810 + 23600);
      }
    }
  }
  /* dictionary pages interleaved with plain ones (dictionary fallback) */
  pm_pq_write_options wo;
  pm_pq_write_options_default(&wo);
  wo.dictionary_page_bytes = 1024;
  wo.page_rows = 900;
  char path[512];
  snprintf(path, sizeof path, "%s/fallback.parquet", tmpdir);
  CHECK_EQ_INT(write_file(path, &wo, rows), 0);
  read_file(path, 1000, NULL, 0, 1, rows);
  read_file(path, 4096, NULL, 0, 0, rows);

  CHECK_MSG(lent_slices > 0, "no batch pointed into a shared page");
}

/* Prints every batch of a file: each printed and released at once (keep 0),
 * or all kept until the reader is closed and printed then (keep 1). */
static int print_file(const char *path, int64_t batch_rows, int keep, pm_buf *out) {
  pm_error err;
  pm_pq_read_options opt;
  pm_pq_read_options_init(&opt);
  opt.batch_rows = batch_rows;
  pm_pq_reader *r;
  if (pm_pq_reader_open_path(path, &opt, &r, &err)) return 1;
  struct ArrowSchema s;
  if (pm_pq_reader_schema(r, &s, &err)) {
    pm_pq_reader_close(r);
    return 1;
  }
  size_t n = 0, cap = 8;
  struct ArrowArray *kept = malloc(cap * sizeof *kept);
  int rc = 0;
  for (;;) {
    struct ArrowArray b;
    rc = pm_pq_reader_next(r, &b, &err);
    if (rc || !b.release) break;
    if (keep) {
      if (n == cap) kept = realloc(kept, (cap *= 2) * sizeof *kept);
      kept[n++] = b;
    } else {
      rc = pm_print_batch_to_buf(&s, &b, NULL, out, &err);
      b.release(&b);
      if (rc) break;
    }
  }
  pm_pq_reader_close(r);
  for (size_t i = 0; i < n; i++) {
    if (!rc) rc = pm_print_batch_to_buf(&s, &kept[i], NULL, out, &err);
    kept[i].release(&kept[i]);
  }
  free(kept);
  s.release(&s);
  return rc;
}

static int fixture_files = 0;

static void walk_fixtures(const char *dir) {
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
    if (S_ISDIR(st.st_mode)) {
      walk_fixtures(path);
      continue;
    }
    if (l <= 8 || strcmp(path + l - 8, ".parquet") != 0 || strstr(path, "corrupt")) continue;
    static const int64_t batches[] = {7, 1000, 65536};
    for (int bi = 0; bi < 3; bi++) {
      pm_buf once, held;
      pm_buf_init(&once);
      pm_buf_init(&held);
      int a = print_file(path, batches[bi], 0, &once), b = print_file(path, batches[bi], 1, &held);
      CHECK_MSG(a == b, "%s: reading succeeds in one mode only", path);
      CHECK_MSG(once.len == held.len && !memcmp(once.data, held.data, once.len),
                "%s (batch_rows %lld): kept batches print differently", path, (long long)batches[bi]);
      pm_buf_free(&once);
      pm_buf_free(&held);
    }
    fixture_files++;
  }
  closedir(d);
}

static void test_fixtures_kept(void) {
  walk_fixtures(PM_SHARED("fixtures"));
  CHECK(fixture_files > 0);
}

int main(void) {
  snprintf(tmpdir, sizeof tmpdir, "/tmp/pm_shared_pages_XXXXXX");
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }
  RUN_TEST(test_shared_pages);
  RUN_TEST(test_fixtures_kept);
  fprintf(stderr, "%lld values checked, %d lent slices seen, %d fixture files\n", (long long)values_checked,
          lent_slices, fixture_files);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
  TEST_MAIN_END();
}
