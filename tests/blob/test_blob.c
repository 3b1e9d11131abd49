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

int main(void) {
  RUN_TEST(test_read_fixture);
  RUN_TEST(test_writer_matches_java);
  RUN_TEST(test_corrupt);
  TEST_MAIN_END();
}
