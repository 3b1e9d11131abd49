/* Blob files (format/blob): the Java-written fixture file reads as its two
 * values, the writer reproduces it byte for byte, corrupt tails are clear errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arrow/arrow.h"
#include "arrow/builder.h"
#include "format/blob/blob.h"
#include "harness.h"
#include "io/coalesce.h"
#include "io/fs_fault.h"
#include "util/buf.h"

#define BLOB_FIXTURE                                                                                      \
  PM_SHARED("fixtures/warehouse/parquet/blob_data_evolution_with_dense_stats.db/"                        \
            "blob_data_evolution_with_dense_stats/bucket-0/data-d007a81e-4682-42da-b458-eb0423a64511-1.blob")

static pm_error err;

static void test_read_fixture(void) {
  pm_file *f;
  CHECK_OK(pm_file_open(BLOB_FIXTURE, &f, &err), &err);
  pm_blob_reader *r = NULL;
  CHECK_OK(pm_blob_reader_open(f, "picture", 3, 1, &r, &err), &err);
  if (!r) return;
  CHECK_EQ_INT(pm_blob_reader_num_rows(r), 2);
  struct ArrowSchema s;
  CHECK_OK(pm_blob_reader_schema(r, &s, &err), &err);
  CHECK_EQ_INT(s.n_children, 1);
  CHECK_EQ_STR(s.children[0]->format, "z");
  CHECK_EQ_STR(s.children[0]->name, "picture");
  char *id = pm_schema_metadata_get(s.children[0], "PARQUET:field_id");
  CHECK_EQ_STR(id, "3");
  free(id);
  pm_schema_release(&s);
  static const char *want[2] = {"Lily", "Alice"};
  for (int i = 0; i < 2; i++) { /* batch_rows 1: one value per batch */
    struct ArrowArray a;
    CHECK_OK(pm_blob_reader_next(r, &a, &err), &err);
    CHECK(a.release && a.length == 1);
    if (!a.release) break;
    const int32_t *off = a.children[0]->buffers[1];
    CHECK_EQ_INT(off[1] - off[0], strlen(want[i]));
    CHECK(!memcmp((const char *)a.children[0]->buffers[2] + off[0], want[i], strlen(want[i])));
    a.release(&a);
  }
  struct ArrowArray end;
  CHECK_OK(pm_blob_reader_next(r, &end, &err), &err);
  CHECK(end.release == NULL);
  pm_blob_reader_close(r);
}

/* The writer lays the values out exactly as Java did (magic, lengths, CRCs, index, version). */
static void test_writer_matches_java(void) {
  char dir[] = "/tmp/pm_blob_XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char path[256];
  snprintf(path, sizeof path, "%s/x.blob", dir);
  pm_blob_writer *w;
  CHECK_OK(pm_blob_writer_open(path, &w, &err), &err);
  struct ArrowSchema s;
  CHECK_OK(pm_schema_init(&s, "z", "v", ARROW_FLAG_NULLABLE, 0, &err), &err);
  pm_builder *b;
  CHECK_OK(pm_builder_new_from_schema(&s, &b, &err), &err);
  CHECK_OK(pm_builder_append_str(b, "Lily", &err), &err);
  CHECK_OK(pm_builder_append_str(b, "Alice", &err), &err);
  struct ArrowArray a;
  CHECK_OK(pm_builder_finish(b, &a, &err), &err);
  pm_builder_free(b);
  CHECK_OK(pm_blob_writer_write(w, &a, "z", &err), &err);
  uint64_t size = 0;
  CHECK_OK(pm_blob_writer_close(w, &size, &err), &err);
  a.release(&a);
  pm_schema_release(&s);
  pm_buf got, want;
  pm_buf_init(&got);
  pm_buf_init(&want);
  CHECK_OK(pm_read_file(path, &got, 0, &err), &err);
  CHECK_OK(pm_read_file(BLOB_FIXTURE, &want, 0, &err), &err);
  CHECK_EQ_INT(size, want.len);
  CHECK(got.len == want.len && !memcmp(got.data, want.data, want.len));
  pm_buf_free(&got);
  pm_buf_free(&want);
  unlink(path);
  rmdir(dir);
}

static int open_mem(const uint8_t *d, size_t n, pm_blob_reader **r) {
  pm_file *f;
  CHECK_OK(pm_file_from_memory(d, n, "bad.blob", &f, &err), &err);
  return pm_blob_reader_open(f, "c", 1, 0, r, &err);
}

static void test_corrupt(void) {
  pm_buf fx;
  pm_buf_init(&fx);
  CHECK_OK(pm_read_file(BLOB_FIXTURE, &fx, 0, &err), &err);
  pm_blob_reader *r = NULL;
  CHECK(open_mem(fx.data, 3, &r) == PAIMON_ERR_CORRUPT); /* shorter than the tail */
  CHECK(strstr(err.message, "bad.blob") && strstr(err.message, "too short"));
  uint8_t *d = malloc(fx.len);
  memcpy(d, fx.data, fx.len);
  d[fx.len - 1] = 2; /* version */
  CHECK(open_mem(d, fx.len, &r) == PAIMON_ERR_UNSUPPORTED);
  CHECK(strstr(err.message, "version 2") != NULL);
  memcpy(d, fx.data, fx.len);
  d[fx.len - 5] = 0x7f; /* index length beyond the file */
  CHECK(open_mem(d, fx.len, &r) == PAIMON_ERR_CORRUPT);
  CHECK(strstr(err.message, "index length") != NULL);
  memcpy(d, fx.data, fx.len);
  d[fx.len - 5 - 2] = 0x7e; /* first record length out of range */
  CHECK(open_mem(d, fx.len, &r) == PAIMON_ERR_CORRUPT);
  CHECK(strstr(err.message, "blob record 0") != NULL);
  free(d);
  pm_buf_free(&fx);
}

/* Reads of a batch through the fault fs (which counts every range it is asked for). */
static int64_t count_reads(pm_fs *ffs, const char *path, uint64_t gap, uint64_t block, int64_t *nulls, int64_t *bad) {
  pm_file *f = NULL;
  CHECK_OK(pm_fs_open(ffs, path, &f, &err), &err);
  pm_blob_reader *r = NULL;
  CHECK_OK(pm_blob_reader_open(f, "v", 1, 0, &r, &err), &err);
  if (!r) return -1;
  pm_blob_reader_set_coalesce(r, gap, block);
  pm_fault_fs_disarm(ffs); /* counts from here: the payload reads only */
  struct ArrowArray a;
  CHECK_OK(pm_blob_reader_next(r, &a, &err), &err);
  int64_t reads = (int64_t)pm_fault_fs_count(ffs, PM_FAULT_OP_READ);
  *nulls = 0;
  *bad = 0;
  if (a.release) {
    CHECK_EQ_INT(a.length, 100);
    const struct ArrowArray *c = a.children[0];
    const int32_t *off = c->buffers[1];
    for (int64_t i = 0; i < a.length; i++) {
      if (!pm_array_is_valid(c, i)) {
        (*nulls)++;
        if (i % 10 != 3) (*bad)++;
        continue;
      }
      int64_t want = i % 7 == 0 ? 0 : 1000 + i;
      if (off[i + 1] - off[i] != want) (*bad)++;
      for (int32_t j = off[i]; j < off[i + 1]; j++)
        if (((const uint8_t *)c->buffers[2])[j] != (uint8_t)(i + j - off[i])) (*bad)++;
    }
    a.release(&a);
  }
  pm_blob_reader_close(r);
  return reads;
}

/* file-io.read-coalesce: 100 values (nulls, empty ones, ~1 KiB ones) read as one range by default,
 * as one range per value with max-gap 0 (records are 16 bytes apart), and in blocks of at most
 * max-block bytes otherwise (a value larger than max-block is still read whole). */
static void test_coalesced_reads(void) {
  char dir[] = "/tmp/pm_blob_XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char path[256];
  snprintf(path, sizeof path, "%s/c.blob", dir);
  pm_blob_writer *w;
  CHECK_OK(pm_blob_writer_open(path, &w, &err), &err);
  uint8_t buf[2000];
  int64_t values = 0, payload = 0;
  for (int i = 0; i < 100; i++) {
    if (i % 10 == 3) {
      CHECK_OK(pm_blob_writer_put_null(w, &err), &err);
      continue;
    }
    size_t len = i % 7 == 0 ? 0 : (size_t)(1000 + i);
    for (size_t j = 0; j < len; j++) buf[j] = (uint8_t)(i + j);
    CHECK_OK(pm_blob_writer_put(w, buf, len, &err), &err);
    values++;
    payload += (int64_t)len;
  }
  CHECK_EQ_INT(pm_blob_writer_rows(w), 100);
  CHECK_OK(pm_blob_writer_close(w, NULL, &err), &err);
  pm_fs *ffs = NULL;
  CHECK_OK(pm_fault_fs_new(pm_fs_local(), &ffs, &err), &err);
  int64_t nulls, bad;
  CHECK_EQ_INT(count_reads(ffs, path, PM_COALESCE_MAX_GAP_DEFAULT, PM_COALESCE_MAX_BLOCK_DEFAULT, &nulls, &bad), 1);
  CHECK_EQ_INT(nulls, 10);
  CHECK_EQ_INT(bad, 0);
  int64_t empty = 0;
  for (int i = 0; i < 100; i++) empty += i % 7 == 0 && i % 10 != 3;
  CHECK_EQ_INT(count_reads(ffs, path, 0, PM_COALESCE_MAX_BLOCK_DEFAULT, &nulls, &bad), values - empty);
  CHECK_EQ_INT(bad, 0);
  /* ~1 KiB values, 16 bytes apart: a 4 KiB block holds 3 of them */
  int64_t r4k = count_reads(ffs, path, PM_COALESCE_MAX_GAP_DEFAULT, 4096, &nulls, &bad);
  CHECK(r4k >= (payload + 4095) / 4096 && r4k <= (values - empty + 2) / 3 + 1);
  CHECK_EQ_INT(bad, 0);
  /* max-block below one value: one read per value, never split */
  CHECK_EQ_INT(count_reads(ffs, path, PM_COALESCE_MAX_GAP_DEFAULT, 100, &nulls, &bad), values - empty);
  CHECK_EQ_INT(bad, 0);
  pm_fs_unref(ffs);
  unlink(path);
  rmdir(dir);
}

/* pm_file_read_coalesced on its own: unsorted and overlapping ranges land where asked. */
static void test_coalesce_ranges(void) {
  uint8_t data[4096];
  for (size_t i = 0; i < sizeof data; i++) data[i] = (uint8_t)(i * 7);
  pm_file *f;
  CHECK_OK(pm_file_from_memory(data, sizeof data, "mem", &f, &err), &err);
  uint8_t a[100], b[50], c[10], d[1];
  pm_read_range r[5] = {{3000, sizeof a, a}, {10, sizeof b, b}, {40, sizeof c, c}, {0, 0, d}, {4095, 1, d}};
  size_t reads = 0;
  CHECK_OK(pm_file_read_coalesced(f, r, 5, 1024, 1 << 20, &reads, &err), &err);
  CHECK_EQ_INT(reads, 2); /* [10, 60) and [3000, 4096) */
  CHECK(!memcmp(a, data + 3000, sizeof a) && !memcmp(b, data + 10, sizeof b) && !memcmp(c, data + 40, sizeof c));
  CHECK_EQ_INT(d[0], data[4095]);
  CHECK_OK(pm_file_read_coalesced(f, r, 5, 0, 1 << 20, &reads, &err), &err);
  CHECK_EQ_INT(reads, 3); /* the overlapping pair stays one range */
  pm_read_range bad = {4000, 200, a};
  CHECK(pm_file_read_coalesced(f, &bad, 1, 0, 0, &reads, &err) == PAIMON_ERR_CORRUPT);
  pm_file_close(f);
}

int main(void) {
  RUN_TEST(test_coalesced_reads);
  RUN_TEST(test_coalesce_ranges);
  RUN_TEST(test_read_fixture);
  RUN_TEST(test_writer_matches_java);
  RUN_TEST(test_corrupt);
  TEST_MAIN_END();
}
