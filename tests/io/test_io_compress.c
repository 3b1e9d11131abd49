#include "harness.h"
#include "util/compress.h"
#include "io/file.h"

#include <unistd.h>

static void roundtrip(pm_codec c) {
  pm_error err;
  uint8_t src[10000];
  for (size_t i = 0; i < sizeof src; i++) src[i] = (uint8_t)((i * 7) % 13 + (i / 1000));
  pm_buf comp, out;
  pm_buf_init(&comp);
  pm_buf_init(&out);
  CHECK_OK(pm_compress(c, 0, src, sizeof src, &comp, &err), &err);
  uint8_t dst[sizeof src];
  CHECK_OK(pm_decompress(c, comp.data, comp.len, dst, sizeof dst, &err), &err);
  CHECK(memcmp(src, dst, sizeof src) == 0);
  if (c != PM_CODEC_LZ4_RAW && c != PM_CODEC_LZ4_HADOOP) {
    CHECK_OK(pm_decompress_unknown(c, comp.data, comp.len, &out, 0, &err), &err);
    CHECK_EQ_INT(out.len, sizeof src);
    CHECK(out.len == sizeof src && memcmp(out.data, src, sizeof src) == 0);
    /* A too-small limit is refused, not allocated. */
    out.len = 0;
    CHECK(pm_decompress_unknown(c, comp.data, comp.len, &out, 100, &err) != 0);
    /* A truncated stream is an error, not a short result. */
    out.len = 0;
    if (c != PM_CODEC_NONE) CHECK(pm_decompress_unknown(c, comp.data, comp.len / 2, &out, 0, &err) != 0);
  }
  /* Corrupt input must fail cleanly. */
  if (c != PM_CODEC_NONE && comp.len > 8) {
    for (size_t i = 0; i < comp.len; i++) comp.data[i] ^= 0x5a;
    (void)pm_decompress(c, comp.data, comp.len, dst, sizeof dst, &err);
    CHECK(pm_decompress(c, comp.data, comp.len / 2, dst, sizeof dst, &err) != 0);
  }
  pm_buf_free(&comp);
  pm_buf_free(&out);
}

static void test_codecs(void) {
  pm_codec all[] = {PM_CODEC_NONE, PM_CODEC_SNAPPY, PM_CODEC_GZIP, PM_CODEC_ZLIB, PM_CODEC_DEFLATE,
                    PM_CODEC_ZSTD, PM_CODEC_LZ4_RAW, PM_CODEC_LZ4_HADOOP};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) roundtrip(all[i]);
}

static void test_atomic_file(void) {
  pm_error err;
  char dir[] = "/tmp/pm_test_XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char path[256];
  snprintf(path, sizeof path, "%s/a/b/file.bin", dir);
  char sub[256];
  snprintf(sub, sizeof sub, "%s/a/b", dir);
  CHECK_OK(pm_mkdirs(sub, &err), &err);
  pm_out_file *o;
  CHECK_OK(pm_out_open(path, &o, &err), &err);
  CHECK_OK(pm_out_write(o, "hello", 5, &err), &err);
  CHECK(!pm_path_exists(path)); /* invisible until commit */
  CHECK_OK(pm_out_commit(o, 1, &err), &err);
  CHECK(pm_path_exists(path));
  CHECK_EQ_INT(pm_write_file(path, "x", 1, 1, &err), PAIMON_ERR_CONFLICT);
  pm_buf b;
  pm_buf_init(&b);
  CHECK_OK(pm_read_file(path, &b, 0, &err), &err);
  CHECK(b.len == 5 && memcmp(b.data, "hello", 5) == 0);
  pm_buf_free(&b);
  char **names;
  size_t n;
  CHECK_OK(pm_list_dir(sub, &names, &n, &err), &err);
  CHECK_EQ_INT(n, 1); /* no temporary left behind */
  pm_free_names(names, n);
  pm_file *f;
  CHECK_OK(pm_file_open(path, &f, &err), &err);
  char tmp[8];
  CHECK_EQ_INT(pm_file_read_at(f, 3, tmp, 5, &err), PAIMON_ERR_CORRUPT);
  CHECK(strstr(err.message, "file.bin") != NULL);
  pm_file_close(f);
  unlink(path);
  CHECK_EQ_INT(pm_file_open(path, &f, &err), PAIMON_ERR_NOT_FOUND);
}

/* A reused codec context gives the same bytes as a fresh one for blocks of
 * several sizes and levels, decodes them back, and still reports corrupt input
 * (and keeps working after it). */
static void test_codec_ctx(void) {
  pm_error err;
  static uint8_t src[300000];
  for (size_t i = 0; i < sizeof src; i++) src[i] = (uint8_t)("0123456789abcdef"[(i * 2654435761u >> 7) & 15]);
  static uint8_t dst[sizeof src];
  const pm_codec codecs[] = {PM_CODEC_ZSTD, PM_CODEC_LZ4_RAW, PM_CODEC_SNAPPY, PM_CODEC_NONE};
  const size_t sizes[] = {0, 1, 4096, 131072, 17, sizeof src};
  for (size_t c = 0; c < sizeof codecs / sizeof *codecs; c++) {
    pm_codec_ctx cx = {0};
    for (size_t r = 0; r < 2; r++)
      for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        size_t n = sizes[k];
        int level = (int)(k % 3);
        pm_buf a, b;
        pm_buf_init(&a);
        pm_buf_init(&b);
        CHECK_OK(pm_compress(codecs[c], level, src, n, &a, &err), &err);
        CHECK_OK(pm_compress_ctx(&cx, codecs[c], level, src, n, &b, &err), &err);
        CHECK(a.len == b.len && (a.len == 0 || memcmp(a.data, b.data, a.len) == 0));
        memset(dst, 0, sizeof dst);
        CHECK_OK(pm_decompress_ctx(&cx, codecs[c], b.data, b.len, dst, n, &err), &err);
        CHECK(n == 0 || memcmp(dst, src, n) == 0);
        if (codecs[c] == PM_CODEC_ZSTD && n > 100) {
          CHECK(pm_decompress_ctx(&cx, codecs[c], b.data, b.len / 2, dst, n, &err) != 0);
          CHECK(err.code == PAIMON_ERR_CORRUPT);
          CHECK(pm_decompress_ctx(&cx, codecs[c], b.data, b.len, dst, n - 1, &err) != 0);
        }
        pm_buf_free(&a);
        pm_buf_free(&b);
      }
    pm_codec_ctx_free(&cx);
    CHECK(cx.zc == NULL && cx.zd == NULL);
    pm_codec_ctx_free(&cx);
  }
  pm_codec_ctx_free(NULL);
}

int main(void) {
  RUN_TEST(test_codecs);
  RUN_TEST(test_codec_ctx);
  RUN_TEST(test_atomic_file);
  TEST_MAIN_END();
}
