/* Our raw Snappy decoder (util/snappy_decode.c) against three independent
 * references: libsnappy's compressor and decompressor (many data shapes and
 * sizes), byte streams built by hand from the format description, and a
 * random element-stream generator whose expected output is produced while
 * generating. Malformed input (truncations, flips, bad offsets/lengths/varints)
 * must be rejected without any out-of-bounds access (run under ASan too). */
#include <snappy-c.h>

#include "harness.h"
#include "util/compress.h"
#include "util/snappy_decode.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}
static size_t rnd_below(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

/* Decodes into a buffer of exactly `capacity` bytes (so ASan sees any overrun). */
static int decode(const uint8_t *src, size_t len, size_t capacity, uint8_t **out, size_t *produced) {
  uint8_t *dst = malloc(capacity ? capacity : 1);
  int rc = pm_snappy_decompress(src, len, capacity ? dst : NULL, capacity, produced);
  *out = dst;
  return rc;
}

/* Compresses data with libsnappy; our decoder must return it unchanged and
 * agree with libsnappy's decoder. */
static void roundtrip(const uint8_t *data, size_t n, const char *what) {
  size_t clen = snappy_max_compressed_length(n);
  char *comp = malloc(clen);
  CHECK(snappy_compress((const char *)data, n, comp, &clen) == SNAPPY_OK);
  size_t declared = 0, pre = 0;
  CHECK_EQ_INT(pm_snappy_uncompressed_length((const uint8_t *)comp, clen, &declared, &pre), PM_SNAPPY_OK);
  CHECK_EQ_INT(declared, n);
  uint8_t *out;
  size_t produced = 0;
  int rc = decode((const uint8_t *)comp, clen, n, &out, &produced);
  CHECK_MSG(rc == PM_SNAPPY_OK && produced == n && (n == 0 || memcmp(out, data, n) == 0), "%s, %zu bytes: rc %d",
            what, n, rc);
  free(out);
  if (n > 0) { /* one byte too small a destination */
    rc = decode((const uint8_t *)comp, clen, n - 1, &out, &produced);
    CHECK_EQ_INT(rc, PM_SNAPPY_TOO_SMALL);
    free(out);
  }
  free(comp);
}

typedef void (*fill_fn)(uint8_t *p, size_t n, size_t param);

static void fill_random(uint8_t *p, size_t n, size_t param) {
  for (size_t i = 0; i < n; i++) p[i] = (uint8_t)rnd();
}
static void fill_zero(uint8_t *p, size_t n, size_t param) { memset(p, 0, n); }
static void fill_runs(uint8_t *p, size_t n, size_t param) {
  for (size_t i = 0; i < n;) {
    size_t run = 1 + rnd_below(param);
    uint8_t b = (uint8_t)rnd();
    for (size_t k = 0; k < run && i < n; k++) p[i++] = b;
  }
}
/* A random pattern of `param` bytes repeated (copies with offset = param). */
static void fill_period(uint8_t *p, size_t n, size_t param) {
  for (size_t i = 0; i < n; i++) p[i] = i < param ? (uint8_t)rnd() : p[i - param];
}
static void fill_words(uint8_t *p, size_t n, size_t param) {
  static const char *const words[] = {"paimon", "lake", "house", "table", "snapshot", "manifest", "bucket",
                                      "a", "of", "the", "parquet", "orc", "avro", " ", ",", "\n"};
  for (size_t i = 0; i < n;) {
    const char *w = words[rnd_below(16)];
    for (size_t k = 0; w[k] && i < n; k++) p[i++] = (uint8_t)w[k];
  }
}
static void fill_int64_seq(uint8_t *p, size_t n, size_t param) {
  for (size_t i = 0; i < n; i++) p[i] = (uint8_t)((i / 8 * (param + 1)) >> (8 * (i % 8)));
}
/* Random literals mixed with copies of earlier data at random distances. */
static void fill_mixed(uint8_t *p, size_t n, size_t param) {
  for (size_t i = 0; i < n;) {
    size_t len = 1 + rnd_below(param);
    if (i > 0 && rnd() % 2) {
      size_t dist = 1 + rnd_below(i < 70000 ? i : 70000);
      for (size_t k = 0; k < len && i < n; k++, i++) p[i] = p[i - dist];
    } else {
      for (size_t k = 0; k < len && i < n; k++) p[i++] = (uint8_t)rnd();
    }
  }
}

static void test_libsnappy_roundtrip(void) {
  static const size_t sizes[] = {0, 1, 2, 3, 4, 5, 15, 16, 17, 60, 61, 63, 64, 65, 71, 72, 73, 79, 80, 81,
                                 100, 255, 256, 1000, 4095, 4096, 65535, 65536, 65537, 100003};
  struct {
    fill_fn fn;
    size_t param;
    const char *name;
  } shapes[] = {{fill_random, 0, "random"},       {fill_zero, 0, "zeros"},         {fill_runs, 5, "short runs"},
                {fill_runs, 300, "long runs"},    {fill_words, 0, "words"},        {fill_int64_seq, 0, "int64 seq"},
                {fill_int64_seq, 999, "int64 x"}, {fill_mixed, 20, "mixed short"}, {fill_mixed, 200, "mixed long"}};
  size_t max = 100003;
  uint8_t *buf = malloc(max);
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
      uint8_t *data = buf + max - sizes[z]; /* data ends at the allocation's end */
      shapes[s].fn(data, sizes[z], shapes[s].param);
      roundtrip(data, sizes[z], shapes[s].name);
    }
  for (size_t period = 1; period <= 70; period++) {
    size_t n = 200 + rnd_below(3000);
    fill_period(buf, n, period);
    roundtrip(buf, n, "period");
  }
  free(buf);
  size_t big = (size_t)1 << 20;
  buf = malloc(big);
  fill_words(buf, big, 0);
  roundtrip(buf, big, "1 MB words");
  fill_random(buf, big, 0);
  roundtrip(buf, big, "1 MB random");
  fill_mixed(buf, big, 64);
  roundtrip(buf, big, "1 MB mixed");
  free(buf);
}

/* ------------------------------------------------ hand-built streams ---- */

typedef struct stream {
  uint8_t bytes[1 << 20];
  size_t len;
} stream;

static void put(stream *s, const void *p, size_t n) {
  if (n > sizeof s->bytes - s->len) abort();
  memcpy(s->bytes + s->len, p, n);
  s->len += n;
}
static void put_byte(stream *s, unsigned b) {
  uint8_t v = (uint8_t)b;
  put(s, &v, 1);
}
static void put_le(stream *s, uint32_t v, int bytes) {
  for (int i = 0; i < bytes; i++) put_byte(s, (v >> (8 * i)) & 0xff);
}
static void put_varint(stream *s, uint32_t v) {
  while (v >= 0x80) {
    put_byte(s, (v & 0x7f) | 0x80);
    v >>= 7;
  }
  put_byte(s, v);
}
/* Literal with `len_bytes` = 0 (length in the tag, len <= 60) or 1..4 length bytes. */
static void put_literal(stream *s, const void *p, uint32_t len, int len_bytes) {
  if (len_bytes == 0) {
    put_byte(s, (len - 1) << 2);
  } else {
    put_byte(s, (uint32_t)(59 + len_bytes) << 2);
    put_le(s, len - 1, len_bytes);
  }
  put(s, p, len);
}
/* Copy of kind 1 (1-byte offset), 2 or 4. */
static void put_copy(stream *s, int kind, uint32_t offset, uint32_t len) {
  if (kind == 1) {
    put_byte(s, 1 | ((len - 4) << 2) | ((offset >> 8) << 5));
    put_byte(s, offset & 0xff);
  } else {
    put_byte(s, (unsigned)(kind == 2 ? 2 : 3) | ((len - 1) << 2));
    put_le(s, offset, kind == 2 ? 2 : 4);
  }
}

static void expect_output(const stream *s, const void *want, size_t want_len, const char *what) {
  uint8_t *out;
  size_t produced = 0;
  int rc = decode(s->bytes, s->len, want_len, &out, &produced);
  CHECK_MSG(rc == PM_SNAPPY_OK && produced == want_len && memcmp(out, want, want_len) == 0, "%s: rc %d (%s)", what,
            rc, pm_snappy_status_text(rc));
  free(out);
  /* libsnappy must agree that the stream is valid and what it means. */
  size_t n = want_len;
  char *lib = malloc(want_len + 1);
  CHECK_MSG(snappy_uncompress((const char *)s->bytes, s->len, lib, &n) == SNAPPY_OK && n == want_len &&
                memcmp(lib, want, want_len) == 0,
            "%s: libsnappy disagrees", what);
  free(lib);
}

static void expect_error(const stream *s, size_t capacity, int want_rc, const char *what) {
  uint8_t *out;
  size_t produced = 0;
  int rc = decode(s->bytes, s->len, capacity, &out, &produced);
  CHECK_MSG(rc == want_rc, "%s: rc %d (%s), want %d", what, rc, pm_snappy_status_text(rc), want_rc);
  free(out);
  if (want_rc != PM_SNAPPY_TOO_SMALL) {
    size_t n = capacity;
    char *lib = malloc(capacity + 1);
    CHECK_MSG(snappy_uncompress((const char *)s->bytes, s->len, lib, &n) != SNAPPY_OK, "%s: libsnappy accepts", what);
    free(lib);
  }
}

static stream S;

static void test_hand_built(void) {
  uint8_t text[100000];
  for (size_t i = 0; i < sizeof text; i++) text[i] = (uint8_t)('a' + (i * 7 + i / 26) % 26);

  S.len = 0;
  put_varint(&S, 0);
  expect_output(&S, "", 0, "empty block");

  S.len = 0;
  put_varint(&S, 5);
  put_literal(&S, "hello", 5, 0);
  expect_output(&S, "hello", 5, "literal in tag");

  /* The format description's example: "xababab" = literal "xab", copy offset 2 length 4. */
  S.len = 0;
  put_varint(&S, 7);
  put_literal(&S, "xab", 3, 0);
  put_copy(&S, 1, 2, 4);
  expect_output(&S, "xababab", 7, "copy-1 overlapping");

  static const uint32_t lit_lens[] = {1, 60, 61, 255, 256, 300, 65536, 70000};
  for (int len_bytes = 1; len_bytes <= 4; len_bytes++)
    for (size_t i = 0; i < sizeof lit_lens / sizeof lit_lens[0]; i++) {
      uint32_t len = lit_lens[i];
      if (len_bytes < 3 && len - 1 >= (1u << (8 * len_bytes))) continue;
      S.len = 0;
      put_varint(&S, len);
      put_literal(&S, text, len, len_bytes);
      expect_output(&S, text, len, "literal with length bytes");
    }

  /* Copy-1 with the offset's high bits in the tag: offset 1500 length 11. */
  S.len = 0;
  put_varint(&S, 1611);
  put_literal(&S, text, 1600, 2);
  put_copy(&S, 1, 1500, 11);
  uint8_t want[2000];
  memcpy(want, text, 1600);
  memcpy(want + 1600, text + 100, 11);
  expect_output(&S, want, 1611, "copy-1 offset 1500");

  /* Copy-2 and copy-4, long runs with small offsets, at the end of the output (exact path). */
  S.len = 0;
  put_varint(&S, 3 + 64 + 10);
  put_literal(&S, "abc", 3, 0);
  put_copy(&S, 2, 3, 64);
  put_copy(&S, 4, 1, 10);
  for (int i = 0; i < 67; i++) want[i] = (uint8_t)"abc"[i % 3];
  memset(want + 67, want[66], 10);
  expect_output(&S, want, 77, "copy-2 and copy-4");

  /* INT64 pages: "1-byte literal, copy 7 from offset 8" per value (decoded
   * as one 8-byte step), broken now and then by other elements, after a
   * prefix of every length 0..16 (the first pairs may reach before the
   * output's start, or only just not). */
  for (size_t prefix = 0; prefix <= 16; prefix++) {
    static uint8_t want64[8 * 3000 + 64];
    S.len = 0;
    size_t n = prefix;
    memcpy(want64, text, prefix);
    size_t total = prefix + 8 * 2000 + 8 * 200;
    put_varint(&S, (uint32_t)total);
    if (prefix) put_literal(&S, text, (uint32_t)prefix, 0);
    for (int v = 0; v < 2200; v++) {
      uint8_t low = (uint8_t)(v * 37);
      if (n < 8 || v % 97 == 0) {
        put_literal(&S, text + 300 + (size_t)v % 50, 8, 0); /* a whole value */
        memcpy(want64 + n, text + 300 + (size_t)v % 50, 8);
      } else if (v % 89 == 0) {
        put_literal(&S, &low, 1, 0);
        put_literal(&S, text + 500, 7, 0); /* literal then literal */
        want64[n] = low;
        memcpy(want64 + n + 1, text + 500, 7);
      } else if (v % 83 == 0) {
        uint8_t two[2] = {low, (uint8_t)(v >> 3)};
        put_literal(&S, two, 2, 0); /* two changing bytes */
        put_copy(&S, 1, 8, 6);
        memcpy(want64 + n, two, 2);
        memcpy(want64 + n + 2, want64 + n + 2 - 8, 6);
      } else {
        put_literal(&S, &low, 1, 0);
        put_copy(&S, 1, 8, 7);
        want64[n] = low;
        memcpy(want64 + n + 1, want64 + n + 1 - 8, 7);
      }
      n += 8;
    }
    CHECK_EQ_INT(n, total);
    char what[64];
    snprintf(what, sizeof what, "INT64-like pairs after %zu bytes", prefix);
    expect_output(&S, want64, n, what);
  }
  /* The same pair at the very start reaches before the output. */
  S.len = 0;
  put_varint(&S, 8 * 1000);
  for (int v = 0; v < 1000; v++) {
    uint8_t low = (uint8_t)v;
    put_literal(&S, &low, 1, 0);
    put_copy(&S, 1, 8, 7);
  }
  expect_error(&S, 8 * 1000, PM_SNAPPY_BAD_OFFSET, "pair before the output's start");
}

/* Random valid element streams: every tag kind, literal length encoding,
 * offset 1..position and length. The expected output is built alongside. */
static void random_stream(stream *s, uint8_t *want, size_t target, size_t *want_len) {
  size_t pos = 0;
  s->len = 0;
  put_varint(s, (uint32_t)target);
  while (pos < target) {
    size_t room = target - pos;
    int kind = pos == 0 ? 0 : (int)rnd_below(5); /* 0, 3: literal, else copy kind */
    if (kind == 0 || kind == 3) {
      size_t len = 1 + rnd_below(rnd() % 8 ? 20 : 300);
      if (len > room) len = room;
      int len_bytes = len <= 60 && rnd() % 4 ? 0 : len > 256 ? 2 + (int)rnd_below(3) : 1 + (int)rnd_below(4);
      for (size_t k = 0; k < len; k++) want[pos + k] = (uint8_t)rnd();
      put_literal(s, want + pos, (uint32_t)len, len_bytes);
      pos += len;
    } else {
      int copy_kind = kind == 1 ? 1 : kind == 2 ? 2 : 4;
      size_t max_off = copy_kind == 1 ? 2047 : copy_kind == 2 ? 65535 : 1u << 20;
      if (max_off > pos) max_off = pos;
      size_t offset = 1 + (rnd() % 2 ? rnd_below(max_off < 20 ? max_off : 20) : rnd_below(max_off));
      size_t len = copy_kind == 1 ? 4 + rnd_below(8) : 1 + rnd_below(64);
      if (len > room) {
        if (copy_kind == 1 && room < 4) continue;
        len = room;
      }
      put_copy(s, copy_kind, (uint32_t)offset, (uint32_t)len);
      for (size_t k = 0; k < len; k++, pos++) want[pos] = want[pos - offset];
    }
  }
  *want_len = pos;
}

static void test_random_streams(void) {
  static uint8_t want[1 << 16];
  for (int iter = 0; iter < 400; iter++) {
    size_t target = iter < 100 ? (size_t)iter : 1 + rnd_below(iter < 300 ? 2000 : sizeof want);
    size_t n = 0;
    random_stream(&S, want, target, &n);
    expect_output(&S, want, n, "random element stream");
  }
}

/* ------------------------------------------------------- malformed ------ */

static void check_truncations(const uint8_t *comp, size_t clen, size_t n) {
  for (size_t cut = 0; cut < clen; cut++) {
    uint8_t *in = malloc(cut ? cut : 1);
    memcpy(in, comp, cut);
    uint8_t *out;
    size_t produced;
    int rc = decode(in, cut, n, &out, &produced);
    CHECK_MSG(rc != PM_SNAPPY_OK, "truncation to %zu of %zu bytes accepted", cut, clen);
    free(out);
    free(in);
  }
}

/* Our verdict and output must match libsnappy's on an arbitrary stream. */
static void compare_with_libsnappy(const uint8_t *in, size_t len) {
  size_t lib_n = 0;
  int lib_ok = snappy_uncompressed_length((const char *)in, len, &lib_n) == SNAPPY_OK && lib_n <= (1u << 20);
  size_t capacity = lib_ok ? lib_n : 64;
  char *lib = malloc(capacity + 1);
  size_t got = capacity;
  lib_ok = lib_ok && snappy_uncompress((const char *)in, len, lib, &got) == SNAPPY_OK;
  uint8_t *out;
  size_t produced;
  int rc = decode(in, len, capacity, &out, &produced);
  CHECK_MSG((rc == PM_SNAPPY_OK) == lib_ok, "verdicts differ: ours %d, libsnappy ok %d", rc, lib_ok);
  if (rc == PM_SNAPPY_OK && lib_ok) CHECK(got == produced && memcmp(out, lib, got) == 0);
  free(out);
  free(lib);
}

static void test_malformed(void) {
  /* Every truncation of a few valid streams. */
  uint8_t data[6000];
  fill_mixed(data, sizeof data, 30);
  size_t clen = snappy_max_compressed_length(sizeof data);
  char *comp = malloc(clen);
  CHECK(snappy_compress((const char *)data, sizeof data, comp, &clen) == SNAPPY_OK);
  check_truncations((const uint8_t *)comp, clen, sizeof data);
  /* Random byte flips, compared with libsnappy's verdict. */
  uint8_t *mut = malloc(clen);
  for (int iter = 0; iter < 3000; iter++) {
    memcpy(mut, comp, clen);
    int flips = 1 + (int)rnd_below(3);
    for (int f = 0; f < flips; f++) {
      size_t at = rnd_below(iter % 4 == 0 ? 6 : clen); /* often in the preamble/first tags */
      mut[at] ^= (uint8_t)(1u << rnd_below(8));
    }
    compare_with_libsnappy(mut, clen);
  }
  free(mut);
  free(comp);

  size_t n = 0;
  static uint8_t want[1 << 16];
  random_stream(&S, want, 300, &n);
  check_truncations(S.bytes, S.len, n);

  /* Offset 0 (exact path and fast path). */
  S.len = 0;
  put_varint(&S, 5);
  put_literal(&S, "a", 1, 0);
  put_copy(&S, 1, 0, 4);
  expect_error(&S, 5, PM_SNAPPY_BAD_OFFSET, "offset 0");
  S.len = 0;
  put_varint(&S, 2000);
  put_literal(&S, want, 1000, 2);
  put_copy(&S, 2, 0, 10);
  put_literal(&S, want, 990, 2);
  expect_error(&S, 2000, PM_SNAPPY_BAD_OFFSET, "offset 0 in the fast loop");

  /* Offset reaching before the output start, by one. */
  for (int kind = 1; kind <= 4; kind *= 2) {
    S.len = 0;
    put_varint(&S, 7);
    put_literal(&S, "abc", 3, 0);
    put_copy(&S, kind, 4, 4);
    expect_error(&S, 7, PM_SNAPPY_BAD_OFFSET, "offset past start");
    S.len = 0;
    put_varint(&S, 2000);
    put_literal(&S, want, 1000, 2);
    put_copy(&S, kind, 1001, 10);
    put_literal(&S, want, 990, 2);
    expect_error(&S, 2000, PM_SNAPPY_BAD_OFFSET, "offset past start in the fast loop");
  }
  S.len = 0;
  put_varint(&S, 2000);
  put_literal(&S, want, 1000, 2);
  put_copy(&S, 4, 0xffffffffu, 10);
  put_literal(&S, want, 990, 2);
  expect_error(&S, 2000, PM_SNAPPY_BAD_OFFSET, "offset 2^32-1");

  /* Lengths past the declared end. */
  S.len = 0;
  put_varint(&S, 5);
  put_literal(&S, "abcdef", 6, 0);
  expect_error(&S, 6, PM_SNAPPY_OVERRUN, "literal past the declared length");
  S.len = 0;
  put_varint(&S, 8);
  put_literal(&S, "abcd", 4, 0);
  put_copy(&S, 2, 4, 5);
  expect_error(&S, 9, PM_SNAPPY_OVERRUN, "copy past the declared length");
  S.len = 0;
  put_varint(&S, 2000);
  put_literal(&S, want, 1000, 2);
  put_literal(&S, want, 1001, 2);
  expect_error(&S, 2001, PM_SNAPPY_OVERRUN, "long literal past the declared length");
  S.len = 0;
  put_varint(&S, 3);
  put_literal(&S, "abc", 3, 0);
  put_literal(&S, "d", 1, 0);
  expect_error(&S, 4, PM_SNAPPY_OVERRUN, "trailing element");

  /* Literals past the input end. */
  S.len = 0;
  put_varint(&S, 10);
  put_literal(&S, "abcdefghij", 10, 0);
  S.len -= 5;
  expect_error(&S, 10, PM_SNAPPY_TRUNCATED, "literal past the input end");
  S.len = 0;
  put_varint(&S, 2000);
  put_literal(&S, want, 1000, 2);
  put_byte(&S, 63 << 2);
  put_le(&S, 0xffffffffu, 4);
  put(&S, want, 200);
  expect_error(&S, 2000, PM_SNAPPY_TRUNCATED, "4 GiB literal");
  S.len = 0;
  put_varint(&S, 100);
  put_byte(&S, 62 << 2);
  put_byte(&S, 1);
  expect_error(&S, 100, PM_SNAPPY_TRUNCATED, "literal length bytes cut");
  S.len = 0;
  put_varint(&S, 100);
  put_literal(&S, "abcd", 4, 0);
  put_byte(&S, 3);
  put_byte(&S, 1);
  expect_error(&S, 100, PM_SNAPPY_TRUNCATED, "copy-4 offset cut");

  /* Output shorter than declared. */
  S.len = 0;
  put_varint(&S, 6);
  put_literal(&S, "abcde", 5, 0);
  expect_error(&S, 6, PM_SNAPPY_SHORT, "short output");

  /* Bad preambles. */
  static const uint8_t too_long[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
  static const uint8_t too_big[] = {0xff, 0xff, 0xff, 0xff, 0x10};
  static const uint8_t cut[] = {0x80};
  size_t v = 0;
  CHECK_EQ_INT(pm_snappy_uncompressed_length(too_long, sizeof too_long, &v, NULL), PM_SNAPPY_BAD_PREAMBLE);
  CHECK_EQ_INT(pm_snappy_uncompressed_length(too_big, sizeof too_big, &v, NULL), PM_SNAPPY_BAD_PREAMBLE);
  CHECK_EQ_INT(pm_snappy_uncompressed_length(cut, sizeof cut, &v, NULL), PM_SNAPPY_BAD_PREAMBLE);
  CHECK_EQ_INT(pm_snappy_uncompressed_length(cut, 0, &v, NULL), PM_SNAPPY_BAD_PREAMBLE);
  static const uint8_t max32[] = {0xff, 0xff, 0xff, 0xff, 0x0f};
  size_t pre = 0;
  CHECK_EQ_INT(pm_snappy_uncompressed_length(max32, sizeof max32, &v, &pre), PM_SNAPPY_OK);
  CHECK(v == 0xffffffffu && pre == 5);
  size_t produced;
  CHECK_EQ_INT(pm_snappy_decompress(too_big, sizeof too_big, NULL, 0, &produced), PM_SNAPPY_BAD_PREAMBLE);
  CHECK_EQ_INT(pm_snappy_decompress(cut, 0, NULL, 0, &produced), PM_SNAPPY_BAD_PREAMBLE);
  CHECK_EQ_INT(pm_snappy_decompress(max32, sizeof max32, NULL, 0, &produced), PM_SNAPPY_TOO_SMALL);
  compare_with_libsnappy(too_long, sizeof too_long);
  compare_with_libsnappy(too_big, sizeof too_big);
  compare_with_libsnappy(max32, sizeof max32);

  /* Random garbage and mutated random streams, compared with libsnappy. */
  uint8_t junk[300];
  for (int iter = 0; iter < 3000; iter++) {
    size_t len = rnd_below(sizeof junk);
    for (size_t i = 0; i < len; i++) junk[i] = (uint8_t)rnd();
    if (len) junk[0] &= 0x7f; /* a small declared length, so decoding gets going */
    compare_with_libsnappy(junk, len);
  }
  for (int iter = 0; iter < 1000; iter++) {
    random_stream(&S, want, 1 + rnd_below(3000), &n);
    S.bytes[rnd_below(S.len)] ^= (uint8_t)(1u << rnd_below(8));
    compare_with_libsnappy(S.bytes, S.len);
  }
}

/* pm_decompress / pm_decompress_unknown route snappy blocks to our decoder. */
static void test_codec_entry_points(void) {
  uint8_t data[5000];
  fill_mixed(data, sizeof data, 40);
  pm_buf comp, out;
  pm_buf_init(&comp);
  pm_buf_init(&out);
  pm_error err;
  CHECK_OK(pm_compress(PM_CODEC_SNAPPY, 0, data, sizeof data, &comp, &err), &err);
  uint8_t dst[5000];
  CHECK_OK(pm_decompress(PM_CODEC_SNAPPY, comp.data, comp.len, dst, sizeof dst, &err), &err);
  CHECK(memcmp(dst, data, sizeof data) == 0);
  CHECK_OK(pm_decompress_unknown(PM_CODEC_SNAPPY, comp.data, comp.len, &out, 0, &err), &err);
  CHECK(out.len == sizeof data && memcmp(out.data, data, sizeof data) == 0);

  CHECK_EQ_INT(pm_decompress(PM_CODEC_SNAPPY, comp.data, comp.len, dst, sizeof dst - 1, &err), PAIMON_ERR_CORRUPT);
  CHECK(strncmp(err.message, "snappy: bad block header", 24) == 0);
  CHECK_EQ_INT(pm_decompress(PM_CODEC_SNAPPY, comp.data, comp.len - 1, dst, sizeof dst, &err), PAIMON_ERR_CORRUPT);
  CHECK(strncmp(err.message, "snappy: corrupt compressed block", 32) == 0);
  out.len = 0;
  CHECK_EQ_INT(pm_decompress_unknown(PM_CODEC_SNAPPY, comp.data, comp.len - 1, &out, 0, &err), PAIMON_ERR_CORRUPT);
  CHECK(strncmp(err.message, "snappy: corrupt compressed block", 32) == 0);
  CHECK_EQ_INT(pm_decompress_unknown(PM_CODEC_SNAPPY, comp.data, comp.len, &out, 4999, &err), PAIMON_ERR_CORRUPT);
  CHECK(strstr(err.message, "over limit") != NULL);
  pm_buf_free(&comp);
  pm_buf_free(&out);
}

int main(void) {
  RUN_TEST(test_libsnappy_roundtrip);
  RUN_TEST(test_hand_built);
  RUN_TEST(test_random_streams);
  RUN_TEST(test_malformed);
  RUN_TEST(test_codec_entry_points);
  TEST_MAIN_END();
}
