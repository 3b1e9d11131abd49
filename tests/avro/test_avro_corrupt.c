/* Bad input: every failure must be a clean error naming the file (never a crash,
 * a huge allocation or an endless loop). Run under ASan/UBSan in CI. */
#include <unistd.h>

#include "format/avro/avro.h"
#include "harness.h"

static const char *SCHEMA =
    "{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"},"
    "{\"name\":\"name\",\"type\":\"string\"},{\"name\":\"tags\",\"type\":{\"type\":\"array\",\"items\":\"string\"}},"
    "{\"name\":\"opt\",\"type\":[\"null\",\"double\"]}]}";

static char tmpdir[256];

/* Writes a small multi-block file with the codec and loads its bytes into out. */
static void make_file(pm_codec codec, int records, pm_buf *out) {
  char path[512];
  snprintf(path, sizeof path, "%s/f.avro", tmpdir);
  pm_error err;
  pm_avro_writer_options opt = {0};
  opt.codec = codec;
  opt.block_size = 100;
  pm_avro_writer *w;
  CHECK_OK(pm_avro_writer_open(path, SCHEMA, &opt, &w, &err), &err);
  for (int k = 0; k < records; k++) {
    pm_avro_encoder *e = pm_avro_writer_encoder(w);
    pm_avro_put_long(e, k);
    char name[32];
    snprintf(name, sizeof name, "name-%d-xxxxxxxxxxxx", k);
    pm_avro_put_string(e, name);
    pm_avro_put_block_count(e, 2);
    pm_avro_put_string(e, "a");
    pm_avro_put_string(e, "bb");
    pm_avro_put_block_end(e);
    pm_avro_put_union(e, 1);
    pm_avro_put_double(e, k * 0.5);
    CHECK_OK(pm_avro_writer_end_record(w, &err), &err);
  }
  CHECK_OK(pm_avro_writer_commit(w, NULL, &err), &err);
  out->len = 0;
  CHECK_OK(pm_read_file(path, out, 0, &err), &err);
  unlink(path);
}

/* Reads everything generically; returns 0 or the error code, records counted. */
static int read_all(const uint8_t *data, size_t len, int64_t *records, pm_error *err) {
  pm_file *f;
  PM_TRY(pm_file_from_memory(data, len, "mem.avro", &f, err));
  pm_avro_reader *r;
  int rc = pm_avro_reader_open(f, &r, err);
  *records = 0;
  if (!rc) {
    for (;;) {
      pm_avro_cursor cur;
      int64_t n;
      rc = pm_avro_reader_next_block(r, &cur, &n, err);
      if (rc || n == 0) break;
      pm_avro_cursor skip = cur;
      for (int64_t i = 0; i < n; i++) pm_avro_skip(&skip, pm_avro_reader_schema(r));
      for (int64_t i = 0; i < n && !rc; i++) {
        pm_avro_value v;
        rc = pm_avro_decode_value(&cur, pm_avro_reader_schema(r), &v, err);
        pm_avro_value_clear(&v);
        if (rc && pm_avro_cursor_failed(&cur)) rc = pm_avro_reader_cursor_error(r, &cur, "record", err);
        if (!rc) (*records)++;
      }
      if (rc) break;
    }
    pm_avro_reader_close(r);
  }
  pm_file_close(f);
  return rc;
}

static void test_valid_baseline(void) {
  pm_codec codecs[] = {PM_CODEC_NONE, PM_CODEC_DEFLATE, PM_CODEC_SNAPPY, PM_CODEC_ZSTD};
  for (int c = 0; c < 4; c++) {
    pm_buf b;
    pm_buf_init(&b);
    make_file(codecs[c], 40, &b);
    pm_error err;
    int64_t n;
    CHECK_OK(read_all(b.data, b.len, &n, &err), &err);
    CHECK_EQ_INT(n, 40);
    pm_buf_free(&b);
  }
}

static void test_wrong_magic(void) {
  pm_buf b;
  pm_buf_init(&b);
  make_file(PM_CODEC_NONE, 3, &b);
  pm_error err;
  int64_t n;
  b.data[3] = 2;
  CHECK(read_all(b.data, b.len, &n, &err) == PAIMON_ERR_CORRUPT);
  CHECK(strstr(err.message, "mem.avro") && strstr(err.message, "magic"));
  CHECK(read_all(b.data, 0, &n, &err) == PAIMON_ERR_CORRUPT);
  CHECK(read_all((const uint8_t *)"ORC", 3, &n, &err) == PAIMON_ERR_CORRUPT);
  pm_buf_free(&b);
  /* a real path too */
  pm_avro_reader *r;
  CHECK(pm_avro_reader_open_path("/nonexistent/x.avro", &r, &err) != 0);
}

static size_t find_bytes(const pm_buf *b, const uint8_t *needle, size_t n, size_t from) {
  for (size_t i = from; i + n <= b->len; i++)
    if (!memcmp(b->data + i, needle, n)) return i;
  return (size_t)-1;
}

/* Bytes up to the end of the header's sync marker (= the file's last 16 bytes). */
static size_t header_size(const pm_buf *b) {
  size_t at = find_bytes(b, b->data + b->len - 16, 16, 0);
  return at == (size_t)-1 ? 0 : at + 16;
}

/* Truncation at every length: clean error, or success with fewer records only
 * when the cut falls exactly between blocks. */
static void test_truncated_everywhere(void) {
  pm_codec codecs[] = {PM_CODEC_NONE, PM_CODEC_SNAPPY, PM_CODEC_ZSTD, PM_CODEC_DEFLATE};
  for (int c = 0; c < 4; c++) {
    pm_buf b;
    pm_buf_init(&b);
    make_file(codecs[c], 12, &b);
    size_t ok = 0;
    size_t header_end = header_size(&b);
    /* every byte of the blocks for codec null; cuts inside compressed blocks all hit the same check */
    size_t block_step = codecs[c] == PM_CODEC_NONE ? 1 : 5;
    for (size_t len = 0; len < b.len; len += len < header_end ? 7 : block_step) {
      uint8_t *copy = malloc(len ? len : 1); /* exact size so ASan sees overreads */
      memcpy(copy, b.data, len);
      pm_error err;
      int64_t n = 0;
      int rc = read_all(copy, len, &n, &err);
      if (rc == 0) {
        ok++;
        CHECK(n < 12);
      } else {
        CHECK_EQ_INT(rc, PAIMON_ERR_CORRUPT);
        CHECK_MSG(strstr(err.message, "mem.avro") != NULL, "message without file name: %s", err.message);
      }
      free(copy);
    }
    CHECK(ok < 20); /* block boundaries only */
    if (codecs[c] == PM_CODEC_NONE) CHECK(ok > 0);
    pm_buf_free(&b);
  }
}


static void test_bad_sync(void) {
  pm_buf b;
  pm_buf_init(&b);
  make_file(PM_CODEC_ZSTD, 20, &b);
  /* The sync marker is the last 16 bytes; its second occurrence ends block 1. */
  uint8_t sync[16];
  memcpy(sync, b.data + b.len - 16, 16);
  size_t first = find_bytes(&b, sync, 16, 0);
  size_t second = find_bytes(&b, sync, 16, first + 16);
  CHECK(second != (size_t)-1 && second < b.len - 16);
  b.data[second + 5] ^= 0xff;
  pm_error err;
  int64_t n;
  CHECK(read_all(b.data, b.len, &n, &err) == PAIMON_ERR_CORRUPT);
  CHECK(strstr(err.message, "sync marker") && strstr(err.message, "offset"));
  pm_buf_free(&b);
}

/* A hand-made container: header with SCHEMA, codec null, then given block bytes. */
static void build(pm_buf *out, const char *schema, const char *codec, const uint8_t *blocks, size_t n) {
  static const uint8_t sync[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  pm_avro_encoder e = {{0}, 0};
  pm_buf_init(&e.buf);
  pm_avro_put_raw(&e, "Obj\x01", 4);
  pm_avro_put_block_count(&e, codec ? 2 : 1);
  pm_avro_put_string(&e, "avro.schema");
  pm_avro_put_string(&e, schema);
  if (codec) {
    pm_avro_put_string(&e, "avro.codec");
    pm_avro_put_string(&e, codec);
  }
  pm_avro_put_block_end(&e);
  pm_avro_put_raw(&e, sync, 16);
  pm_avro_put_raw(&e, blocks, n);
  *out = e.buf;
}

static void append_block(pm_buf *b, int64_t count, const uint8_t *data, size_t n) {
  static const uint8_t sync[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  pm_avro_encoder e = {*b, 0};
  pm_avro_put_long(&e, count);
  pm_avro_put_long(&e, (int64_t)n);
  pm_avro_put_raw(&e, data, n);
  pm_avro_put_raw(&e, sync, 16);
  *b = e.buf;
}

static int read_built(pm_buf *b, pm_error *err) {
  int64_t n;
  return read_all(b->data, b->len, &n, err);
}

static void test_huge_lengths_and_counts(void) {
  pm_error err;
  pm_buf b;
  /* block byte size far past the end of the file */
  build(&b, "\"long\"", NULL, NULL, 0);
  append_block(&b, 1, (const uint8_t *)"\x02", 1);
  b.len -= 19; /* drop the whole block again */
  {
    pm_avro_encoder e = {b, 0};
    pm_avro_put_long(&e, 1);
    pm_avro_put_long(&e, INT64_MAX);
    b = e.buf;
  }
  CHECK(read_built(&b, &err) == PAIMON_ERR_CORRUPT && strstr(err.message, "remain"));
  pm_buf_free(&b);

  /* record count far beyond the block's bytes */
  build(&b, "\"long\"", NULL, NULL, 0);
  append_block(&b, (int64_t)1 << 60, (const uint8_t *)"\x02", 1);
  CHECK(read_built(&b, &err) == PAIMON_ERR_CORRUPT && strstr(err.message, "records"));
  pm_buf_free(&b);
  /* ... also for a zero-width schema (null) */
  build(&b, "\"null\"", NULL, NULL, 0);
  append_block(&b, INT64_MAX, NULL, 0);
  CHECK(read_built(&b, &err) == PAIMON_ERR_CORRUPT);
  pm_buf_free(&b);
  /* negative count */
  build(&b, "\"long\"", NULL, NULL, 0);
  append_block(&b, -1, (const uint8_t *)"\x02", 1);
  CHECK(read_built(&b, &err) == PAIMON_ERR_CORRUPT);
  pm_buf_free(&b);

  /* string length huge inside a record, names field and offset */
  build(&b, SCHEMA, "null", NULL, 0);
  {
    uint8_t rec[] = {0x02, 0xfe, 0xff, 0xff, 0xff, 0x0f, 'x'};
    append_block(&b, 1, rec, sizeof rec);
  }
  CHECK(read_built(&b, &err) == PAIMON_ERR_CORRUPT);
  CHECK_MSG(strstr(err.message, "length past end") && strstr(err.message, "byte 1 of the block"), "%s", err.message);
  pm_buf_free(&b);

  /* array count huge, negative count with bad byte size, 11-byte varint, bad union */
  const struct {
    uint8_t bytes[16];
    size_t n;
    const char *expect;
  } cases[] = {
      {{0x02, 0x02, 'a', 0xfe, 0xff, 0xff, 0xff, 0x0f, 0, 0}, 10, "count larger"},
      {{0x02, 0x02, 'a', 0x01, 0xfe, 0xff, 0x0f, 0x02, 'x', 0}, 10, "byte size past end"},
      {{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0, 0}, 13, "varint"},
      {{0x02, 0x02, 'a', 0x00, 0x06}, 5, "union branch"},
      {{0x02, 0x02, 'a', 0x00, 0x02, 1, 2}, 7, "truncated double"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    build(&b, SCHEMA, "null", NULL, 0);
    append_block(&b, 1, cases[i].bytes, cases[i].n);
    CHECK(read_built(&b, &err) == PAIMON_ERR_CORRUPT);
    CHECK_MSG(strstr(err.message, cases[i].expect) && strstr(err.message, "mem.avro"), "case %zu: %s", i,
              err.message);
    pm_buf_free(&b);
  }

  /* header: metadata map count huge; schema missing; unknown codec */
  {
    pm_avro_encoder e = {{0}, 0};
    pm_buf_init(&e.buf);
    pm_avro_put_raw(&e, "Obj\x01", 4);
    pm_avro_put_long(&e, INT64_MAX / 2);
    pm_avro_put_raw(&e, "junkjunkjunkjunkjunkjunk", 24);
    CHECK(read_built(&e.buf, &err) == PAIMON_ERR_CORRUPT && strstr(err.message, "header"));
    pm_buf_free(&e.buf);
  }
  {
    pm_avro_encoder e = {{0}, 0};
    pm_buf_init(&e.buf);
    pm_avro_put_raw(&e, "Obj\x01", 4);
    pm_avro_put_block_end(&e);
    pm_avro_put_raw(&e, "0123456789abcdef", 16);
    CHECK(read_built(&e.buf, &err) == PAIMON_ERR_CORRUPT && strstr(err.message, "avro.schema"));
    pm_buf_free(&e.buf);
  }
  build(&b, "\"long\"", "brotli", NULL, 0);
  CHECK(read_built(&b, &err) == PAIMON_ERR_UNSUPPORTED && strstr(err.message, "brotli"));
  pm_buf_free(&b);
}

static void test_corrupt_compressed_blocks(void) {
  pm_codec codecs[] = {PM_CODEC_ZSTD, PM_CODEC_DEFLATE, PM_CODEC_SNAPPY};
  for (int c = 0; c < 3; c++) {
    pm_buf b;
    pm_buf_init(&b);
    make_file(codecs[c], 12, &b);
    /* Flip every byte in turn (each on a fresh copy): never a crash, and data
     * corruption is caught by the codec, the CRC, or the decoder's checks. */
    size_t failures = 0, tried = 0;
    size_t header_end = header_size(&b);
    for (size_t i = 0; i < b.len; i += i < header_end ? 7 : 1, tried++) { /* every byte of the blocks */
      uint8_t *copy = malloc(b.len);
      memcpy(copy, b.data, b.len);
      copy[i] ^= 0x55;
      pm_error err;
      int64_t n;
      if (read_all(copy, b.len, &n, &err)) failures++;
      free(copy);
    }
    CHECK(failures > tried / 2);
    pm_buf_free(&b);
  }
}

static void test_snappy_crc_mismatch(void) {
  pm_buf b;
  pm_buf_init(&b);
  make_file(PM_CODEC_SNAPPY, 5, &b);
  /* single block? make_file flushes at 100 bytes: the first block ends before the 2nd sync */
  uint8_t sync[16];
  memcpy(sync, b.data + b.len - 16, 16);
  size_t first = find_bytes(&b, sync, 16, 0);
  size_t second = find_bytes(&b, sync, 16, first + 16);
  b.data[second - 1] ^= 0x01; /* last CRC byte of block 1 */
  pm_error err;
  int64_t n;
  CHECK(read_all(b.data, b.len, &n, &err) == PAIMON_ERR_CORRUPT);
  CHECK_MSG(strstr(err.message, "CRC mismatch") && strstr(err.message, "mem.avro") && strstr(err.message, "offset"),
            "%s", err.message);
  pm_buf_free(&b);
}

static void test_schema_bombs(void) {
  pm_error err;
  pm_avro_schema_tree *t;
  /* deep arrays: 100000 levels must fail fast, not blow the stack */
  size_t depth = 100000;
  pm_buf s;
  pm_buf_init(&s);
  for (size_t i = 0; i < depth; i++) pm_buf_append(&s, "{\"type\":\"array\",\"items\":", 24);
  pm_buf_append(&s, "\"int\"", 5);
  for (size_t i = 0; i < depth; i++) pm_buf_push_u8(&s, '}');
  CHECK(pm_avro_schema_parse((char *)s.data, s.len, "bomb", &t, &err) == PAIMON_ERR_CORRUPT);
  CHECK(strstr(err.message, "nested") != NULL);
  /* exactly at the limit is fine, one more is not */
  for (int extra = 0; extra < 2; extra++) {
    s.len = 0;
    int d = PM_AVRO_MAX_SCHEMA_DEPTH + extra;
    for (int i = 0; i < d; i++) pm_buf_append(&s, "{\"type\":\"array\",\"items\":", 24);
    pm_buf_append(&s, "\"int\"", 5);
    for (int i = 0; i < d; i++) pm_buf_push_u8(&s, '}');
    int rc = pm_avro_schema_parse((char *)s.data, s.len, "deep", &t, &err);
    CHECK_EQ_INT(rc, extra ? PAIMON_ERR_CORRUPT : 0);
    pm_avro_schema_free(rc ? NULL : t);
  }
  /* nested unions / brackets bomb */
  s.len = 0;
  for (size_t i = 0; i < depth; i++) pm_buf_push_u8(&s, '[');
  CHECK(pm_avro_schema_parse((char *)s.data, s.len, "bomb", &t, &err) == PAIMON_ERR_CORRUPT);
  pm_buf_free(&s);
  /* a nesting bomb in a file header is reported with the file name */
  pm_buf b;
  pm_buf_init(&b);
  pm_buf_init(&s);
  for (size_t i = 0; i < 5000; i++) pm_buf_append(&s, "[{\"type\":\"array\",\"items\":", 25);
  pm_buf_push_u8(&s, 0);
  build(&b, (char *)s.data, NULL, NULL, 0);
  CHECK(read_built(&b, &err) == PAIMON_ERR_CORRUPT && strstr(err.message, "mem.avro"));
  pm_buf_free(&b);
  pm_buf_free(&s);
  /* malformed schemas */
  const char *bad[] = {"", "{", "42", "\"nosuchtype\"", "{\"type\":\"record\",\"name\":\"r\"}",
                       "{\"type\":\"record\",\"fields\":[]}", "[]", "[\"int\",[\"long\"]]",
                       "{\"type\":\"enum\",\"name\":\"e\",\"symbols\":[1]}", "{\"type\":\"fixed\",\"name\":\"f\",\"size\":-1}",
                       "{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"},{\"name\":\"a\",\"type\":\"int\"}]}",
                       "[{\"type\":\"fixed\",\"name\":\"f\",\"size\":1},{\"type\":\"fixed\",\"name\":\"f\",\"size\":2}]"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int rc = pm_avro_schema_parse(bad[i], strlen(bad[i]), "bad", &t, &err);
    CHECK_MSG(rc == PAIMON_ERR_CORRUPT, "schema %zu accepted: %s", i, bad[i]);
    if (!rc) pm_avro_schema_free(t);
  }
}

/* Recursive schema + self-nesting data: depth bounded, no stack overflow. */
static void test_recursive_value_bomb(void) {
  const char *schema = "{\"type\":\"record\",\"name\":\"n\",\"fields\":[{\"name\":\"next\",\"type\":[\"null\",\"n\"]}]}";
  pm_buf data;
  pm_buf_init(&data);
  for (int i = 0; i < 100000; i++) pm_buf_push_u8(&data, 0x02); /* branch 1 forever */
  pm_buf_push_u8(&data, 0x00);
  pm_buf b;
  build(&b, schema, "null", NULL, 0);
  append_block(&b, 1, data.data, data.len);
  pm_error err;
  CHECK(read_built(&b, &err) == PAIMON_ERR_CORRUPT && strstr(err.message, "nested too deeply"));
  pm_buf_free(&b);
  pm_buf_free(&data);
}

/* array<null>: items cost no bytes, so their number is capped. */
static void test_zero_width_items(void) {
  uint8_t data[1200] = {0};
  data[0] = 0xd0, data[1] = 0x0f; /* 1000 items */
  data[2] = 0xd0, data[3] = 0x0f; /* 1000 more */
  pm_buf b;
  build(&b, "{\"type\":\"array\",\"items\":\"null\"}", "null", NULL, 0);
  append_block(&b, 1, data, sizeof data);
  pm_error err;
  CHECK(read_built(&b, &err) == PAIMON_ERR_CORRUPT && strstr(err.message, "zero-size"));
  pm_buf_free(&b);
  data[2] = 0; /* 1000 items only: fine */
  build(&b, "{\"type\":\"array\",\"items\":\"null\"}", "null", NULL, 0);
  append_block(&b, 1, data, sizeof data);
  CHECK_OK(read_built(&b, &err), &err);
  pm_buf_free(&b);
}

static void test_cursor_primitives(void) {
  pm_avro_cursor c;
  const uint8_t ints[] = {0x00, 0x01, 0x02, 0x7f, 0x80, 0x01, 0xfe, 0xff, 0xff, 0xff, 0x0f,
                          0xff, 0xff, 0xff, 0xff, 0x0f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
  pm_avro_cursor_init(&c, ints, sizeof ints);
  CHECK_EQ_INT(pm_avro_read_long(&c), 0);
  CHECK_EQ_INT(pm_avro_read_long(&c), -1);
  CHECK_EQ_INT(pm_avro_read_long(&c), 1);
  CHECK_EQ_INT(pm_avro_read_long(&c), -64);
  CHECK_EQ_INT(pm_avro_read_long(&c), 64);
  CHECK_EQ_INT(pm_avro_read_int(&c), INT32_MAX);
  CHECK_EQ_INT(pm_avro_read_int(&c), INT32_MIN);
  CHECK(pm_avro_read_long(&c) == INT64_MIN);
  CHECK(!pm_avro_cursor_failed(&c) && pm_avro_cursor_at_end(&c));
  /* int out of range, and sticky failure */
  const uint8_t big[] = {0x80, 0x80, 0x80, 0x80, 0x10, 0x02};
  pm_avro_cursor_init(&c, big, sizeof big);
  (void)pm_avro_read_int(&c);
  CHECK(pm_avro_cursor_failed(&c) && strstr(c.error, "int"));
  CHECK_EQ_INT(pm_avro_read_long(&c), 0);
  CHECK(strstr(c.error, "int") != NULL); /* first reason kept */
  /* boolean 2, truncated float */
  pm_avro_cursor_init(&c, (const uint8_t *)"\x02", 1);
  (void)pm_avro_read_boolean(&c);
  CHECK(pm_avro_cursor_failed(&c));
  pm_avro_cursor_init(&c, (const uint8_t *)"\x00\x00", 2);
  (void)pm_avro_read_float(&c);
  CHECK(pm_avro_cursor_failed(&c));
  /* varint running off the end (slow path) */
  pm_avro_cursor_init(&c, (const uint8_t *)"\x80\x80", 2);
  (void)pm_avro_read_long(&c);
  CHECK(pm_avro_cursor_failed(&c) && strstr(c.error, "truncated varint"));
}

int main(void) {
  /* tmpfs when available: commits fsync, which is slow on a busy disk */
  snprintf(tmpdir, sizeof tmpdir, "/dev/shm/pm_avro_corrupt_XXXXXX");
  if (!mkdtemp(tmpdir)) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/pm_avro_corrupt_XXXXXX");
    if (!mkdtemp(tmpdir)) return 1;
  }
  RUN_TEST(test_valid_baseline);
  RUN_TEST(test_wrong_magic);
  RUN_TEST(test_truncated_everywhere);
  RUN_TEST(test_bad_sync);
  RUN_TEST(test_huge_lengths_and_counts);
  RUN_TEST(test_corrupt_compressed_blocks);
  RUN_TEST(test_snappy_crc_mismatch);
  RUN_TEST(test_schema_bombs);
  RUN_TEST(test_recursive_value_bomb);
  RUN_TEST(test_zero_width_items);
  RUN_TEST(test_cursor_primitives);
  rmdir(tmpdir);
  TEST_MAIN_END();
}
