/* Unit tests of the writer's encoders: Thrift compact protocol bytes, the
 * RLE/bit-packing hybrid (known byte strings and a randomized round trip
 * through a straightforward reference decoder), and the dictionary builder. */
#include "format/parquet/parquet_encode.h"
#include "format/parquet/thrift_write.h"
#include "harness.h"

static int bytes_eq(const pm_buf *b, const uint8_t *want, size_t n) {
  if (b->len != n || memcmp(b->data, want, n) != 0) {
    fprintf(stderr, "got  ");
    for (size_t i = 0; i < b->len; i++) fprintf(stderr, "%02x ", b->data[i]);
    fprintf(stderr, "\nwant ");
    for (size_t i = 0; i < n; i++) fprintf(stderr, "%02x ", want[i]);
    fprintf(stderr, "\n");
    return 0;
  }
  return 1;
}

static void test_thrift(void) {
  pm_buf b;
  pm_buf_init(&b);
  pm_tw t;
  pm_tw_init(&t, &b);
  pm_tw_struct_begin(&t);
  pm_tw_field_i32(&t, 1, 5);
  pm_tw_field_i64(&t, 2, -1);
  pm_tw_field_binary(&t, 20, "ab", 2); /* delta 18: long form header */
  pm_tw_field_bool(&t, 21, 1);
  pm_tw_field_list_begin(&t, 22, PM_TW_I32, 3);
  pm_tw_i32(&t, 1);
  pm_tw_i32(&t, -1);
  pm_tw_i32(&t, 300);
  pm_tw_field_struct_begin(&t, 23);
  pm_tw_field_i32(&t, 1, 0);
  pm_tw_struct_end(&t);
  pm_tw_field_i16(&t, 24, -2);
  pm_tw_field_i8(&t, 25, 8);
  pm_tw_field_list_begin(&t, 26, PM_TW_BOOL_TRUE, 2);
  pm_tw_bool_elem(&t, 1);
  pm_tw_bool_elem(&t, 0);
  pm_tw_struct_end(&t);
  pm_error err;
  CHECK_OK(pm_tw_finish(&t, &err), &err);
  static const uint8_t want[] = {0x15, 0x0a, 0x16, 0x01, 0x08, 0x28, 0x02, 'a', 'b', 0x11, 0x19, 0x35, 0x02, 0x01,
                                 0xd8, 0x04, 0x1c, 0x15, 0x00, 0x00, 0x14, 0x03, 0x13, 0x08, 0x19, 0x21, 0x01, 0x02,
                                 0x00};
  CHECK(bytes_eq(&b, want, sizeof want));
  /* long list header */
  b.len = 0;
  pm_tw_init(&t, &b);
  pm_tw_list_begin(&t, PM_TW_I64, 20);
  static const uint8_t want2[] = {0xf6, 0x14};
  CHECK(bytes_eq(&b, want2, sizeof want2));
  /* unbalanced struct end is reported */
  b.len = 0;
  pm_tw_init(&t, &b);
  pm_tw_struct_end(&t);
  CHECK(pm_tw_finish(&t, &err) != 0);
  pm_buf_free(&b);
}

static void test_rle_known(void) {
  pm_error err;
  pm_buf b;
  pm_buf_init(&b);
  uint32_t three_ones[3] = {1, 1, 1};
  CHECK_OK(pm_pq_enc_rle_u32(three_ones, 3, 1, &b, &err), &err);
  static const uint8_t w1[] = {0x03, 0x07}; /* as parquet-mr writes three defined values */
  CHECK(bytes_eq(&b, w1, sizeof w1));
  b.len = 0;
  uint32_t tens[10] = {5, 5, 5, 5, 5, 5, 5, 5, 5, 5};
  CHECK_OK(pm_pq_enc_rle_u32(tens, 10, 3, &b, &err), &err);
  static const uint8_t w2[] = {0x14, 0x05};
  CHECK(bytes_eq(&b, w2, sizeof w2));
  b.len = 0;
  uint32_t mixed[23];
  for (int i = 0; i < 23; i++) mixed[i] = i < 3 ? 1 : 2;
  CHECK_OK(pm_pq_enc_rle_u32(mixed, 23, 2, &b, &err), &err);
  static const uint8_t w3[] = {0x03, 0x95, 0xaa, 0x1e, 0x02};
  CHECK(bytes_eq(&b, w3, sizeof w3));
  b.len = 0;
  uint16_t lv[4] = {300, 0, 300, 1};
  CHECK_OK(pm_pq_enc_rle_u16(lv, 4, 9, &b, &err), &err);
  /* one bit-packed group of 8 9-bit values (4 zero-padded): 9 bytes */
  CHECK_EQ_INT(b.len, 10);
  CHECK_EQ_INT(b.data[0], 0x03);
  CHECK_EQ_INT(b.data[1], 300 & 0xff);
  CHECK_EQ_INT(pm_pq_enc_bit_width(0), 0);
  CHECK_EQ_INT(pm_pq_enc_bit_width(1), 1);
  CHECK_EQ_INT(pm_pq_enc_bit_width(255), 8);
  CHECK_EQ_INT(pm_pq_enc_bit_width(256), 9);
  pm_buf_free(&b);
}

/* Reference decoder of the hybrid encoding (slow and simple). */
static int ref_decode(const uint8_t *p, size_t len, int bw, uint32_t *out, size_t n) {
  size_t pos = 0, got = 0;
  while (got < n) {
    uint64_t h = 0;
    int sh = 0;
    for (;;) {
      if (pos >= len) return -1;
      uint8_t c = p[pos++];
      h |= (uint64_t)(c & 0x7f) << sh;
      sh += 7;
      if (!(c & 0x80)) break;
    }
    if (h & 1) {
      size_t cnt = (size_t)(h >> 1) * 8;
      for (size_t i = 0; i < cnt; i++) {
        uint32_t v = 0;
        for (int k = 0; k < bw; k++) {
          size_t bit = i * (size_t)bw + (size_t)k;
          if (pos + bit / 8 >= len) return -1;
          v |= (uint32_t)((p[pos + bit / 8] >> (bit % 8)) & 1) << k;
        }
        if (got < n) out[got++] = v;
      }
      pos += cnt * (size_t)bw / 8;
    } else {
      size_t cnt = (size_t)(h >> 1);
      uint32_t v = 0;
      for (int k = 0; k < (bw + 7) / 8; k++) {
        if (pos >= len) return -1;
        v |= (uint32_t)p[pos++] << (8 * k);
      }
      for (size_t i = 0; i < cnt && got < n; i++) out[got++] = v;
    }
  }
  return 0;
}

static void test_rle_random(void) {
  pm_error err;
  pm_buf b;
  pm_buf_init(&b);
  uint64_t seed = 12345;
  enum { N = 5000 };
  uint32_t *v = malloc(N * sizeof *v), *d = malloc(N * sizeof *d);
  for (int round = 0; round < 200; round++) {
    int bw = round % 33;
    size_t n = 1 + (size_t)(round * 37) % N;
    uint32_t mask = bw == 32 ? 0xffffffffu : ((1u << bw) - 1);
    for (size_t i = 0; i < n; i++) {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      uint32_t r = (uint32_t)(seed >> 33);
      /* runs of repeated values mixed with noise */
      v[i] = (i > 0 && (r % 4) != 0) ? v[i - 1] : (uint32_t)(seed >> 17) & mask;
    }
    b.len = 0;
    CHECK_OK(pm_pq_enc_rle_u32(v, n, bw, &b, &err), &err);
    memset(d, 0xee, n * sizeof *d);
    int ok = ref_decode(b.data, b.len, bw, d, n) == 0 && memcmp(v, d, n * sizeof *v) == 0;
    CHECK_MSG(ok, "round %d bw %d n %zu", round, bw, n);
  }
  free(v);
  free(d);
  pm_buf_free(&b);
}

static void test_dict(void) {
  pm_error err;
  pm_pq_enc_dict d;
  pm_pq_enc_dict_init(&d, 0);
  uint32_t ix;
  const char *words[] = {"a", "bb", "a", "", "bb", "ccc", ""};
  uint32_t want[] = {0, 1, 0, 2, 1, 3, 2};
  for (int i = 0; i < 7; i++) {
    CHECK_OK(pm_pq_enc_dict_put(&d, words[i], strlen(words[i]), &ix, &err), &err);
    CHECK_EQ_INT(ix, want[i]);
  }
  CHECK_EQ_INT(d.count, 4);
  static const uint8_t page[] = {1, 0, 0, 0, 'a', 2, 0, 0, 0, 'b', 'b', 0, 0, 0, 0, 3, 0, 0, 0, 'c', 'c', 'c'};
  CHECK(bytes_eq(&d.page, page, sizeof page));
  /* many entries: growth and rehash keep indices stable */
  char key[32];
  for (int i = 0; i < 20000; i++) {
    int n = snprintf(key, sizeof key, "key-%d", i);
    CHECK_OK(pm_pq_enc_dict_put(&d, key, (size_t)n, &ix, &err), &err);
    if (ix != (uint32_t)(4 + i)) {
      CHECK_EQ_INT(ix, 4 + i);
      break;
    }
  }
  int n = snprintf(key, sizeof key, "key-%d", 777);
  CHECK_OK(pm_pq_enc_dict_put(&d, key, (size_t)n, &ix, &err), &err);
  CHECK_EQ_INT(ix, 4 + 777);
  pm_pq_enc_dict_reset(&d);
  CHECK_OK(pm_pq_enc_dict_put(&d, "zz", 2, &ix, &err), &err);
  CHECK_EQ_INT(ix, 0);
  pm_pq_enc_dict_free(&d);

  pm_pq_enc_dict_init(&d, 8);
  int64_t vals[] = {5, -1, 5, 0, -1};
  uint32_t wi[] = {0, 1, 0, 2, 1};
  for (int i = 0; i < 5; i++) {
    CHECK_OK(pm_pq_enc_dict_put(&d, &vals[i], 8, &ix, &err), &err);
    CHECK_EQ_INT(ix, wi[i]);
  }
  CHECK_EQ_INT(d.page.len, 24);
  pm_pq_enc_dict_free(&d);
}


typedef struct entry_ref {
  const uint8_t *p;
  size_t len;
} entry_ref;

/* pm_pq_enc_rle_repeat writes the same bytes as the general encoder. */
static void test_rle_repeat(void) {
  pm_error err;
  pm_buf a, b;
  pm_buf_init(&a);
  pm_buf_init(&b);
  uint32_t *v = malloc(3000 * sizeof *v);
  const size_t counts[] = {0, 1, 2, 7, 8, 9, 15, 16, 17, 63, 64, 505, 1000, 3000};
  for (int bw = 1; bw <= 32; bw += 3) {
    uint32_t value = bw == 32 ? 0xfedcba98u : (uint32_t)((1u << bw) - 1) / 3;
    for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
      size_t n = counts[ci];
      for (size_t i = 0; i < n; i++) v[i] = value;
      a.len = b.len = 0;
      CHECK_OK(pm_pq_enc_rle_u32(v, n, bw, &a, &err), &err);
      CHECK_OK(pm_pq_enc_rle_repeat(value, n, bw, &b, &err), &err);
      CHECK_MSG(a.len == b.len && (a.len == 0 || memcmp(a.data, b.data, a.len) == 0), "bw %d n %zu", bw, n);
    }
  }
  free(v);
  pm_buf_free(&a);
  pm_buf_free(&b);
}

static int cmp_entry(const void *a, const void *b) {
  const entry_ref *x = a, *y = b;
  size_t m = x->len < y->len ? x->len : y->len;
  int r = m ? memcmp(x->p, y->p, m) : 0;
  if (r) return r;
  return x->len < y->len ? -1 : x->len > y->len;
}

/* Batch puts of many values drawn from a pool (runs, repeats, growth through
 * several rehashes) for every table layout: each value's index names an
 * entry with its bytes, new indices appear in first-occurrence order, and all
 * entries differ. */
static void test_dict_batches(void) {
  pm_error err;
  const size_t widths[] = {4, 8, 12, 16, 0};
  enum { N = 60000, POOL = 9000 };
  uint64_t seed = 99;
  uint8_t *pool = malloc((size_t)POOL * 24);
  size_t *pool_len = malloc(POOL * sizeof *pool_len);
  uint32_t *pick = malloc(N * sizeof *pick), *idx = malloc(N * sizeof *idx);
  uint8_t *packed = malloc((size_t)N * 16);
  pm_pq_enc_ba *bas = malloc(N * sizeof *bas);
  entry_ref *ents = malloc((POOL + 1) * sizeof *ents);
  for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++) {
    size_t w = widths[wi];
    for (int i = 0; i < POOL; i++) {
      for (int b = 0; b < 24; b++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        /* low-entropy bytes so values share prefixes and hash bits */
        pool[(size_t)i * 24 + (size_t)b] = (uint8_t)((seed >> 60) & 3);
      }
      memcpy(pool + (size_t)i * 24, &i, sizeof i); /* distinct */
      pool_len[i] = w ? w : (size_t)(i % 21);      /* byte arrays: 0..20 bytes */
    }
    for (int k = 0; k < N; k++) {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      uint32_t r = (uint32_t)(seed >> 33);
      pick[k] = (k > 0 && r % 3 == 0) ? pick[k - 1] : r % POOL;
    }
    /* (short byte arrays of different pool slots may be equal: they must
     * then share one entry, which the checks below allow) */
    pm_pq_enc_dict d;
    pm_pq_enc_dict_init(&d, w);
    size_t k = 0;
    while (k < N) {
      size_t n = 1 + (size_t)(seed >> 40) % 700;
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      if (n > N - k) n = N - k;
      if (w) {
        for (size_t j = 0; j < n; j++) memcpy(packed + j * w, pool + (size_t)pick[k + j] * 24, w);
        CHECK_OK(pm_pq_enc_dict_put_fixed(&d, packed, n, idx + k, &err), &err);
      } else {
        for (size_t j = 0; j < n; j++) {
          bas[j].p = pool + (size_t)pick[k + j] * 24;
          bas[j].len = pool_len[pick[k + j]];
        }
        CHECK_OK(pm_pq_enc_dict_put_ba(&d, bas, n, idx + k, &err), &err);
      }
      k += n;
    }
    /* entries */
    size_t off = 0;
    int ok = 1;
    for (uint32_t e = 0; e < d.count && ok; e++) {
      if (w) {
        ents[e].p = d.page.data + (size_t)e * w;
        ents[e].len = w;
      } else {
        uint32_t l;
        memcpy(&l, d.page.data + off, 4);
        ents[e].p = d.page.data + off + 4;
        ents[e].len = l;
        off += 4 + l;
      }
    }
    CHECK(w ? d.page.len == (size_t)d.count * w : d.page.len == off);
    uint32_t seen = 0;
    for (int i = 0; i < N && ok; i++) {
      size_t len = w ? w : pool_len[pick[i]];
      const uint8_t *v = pool + (size_t)pick[i] * 24;
      ok = idx[i] < d.count && idx[i] <= seen && ents[idx[i]].len == len && memcmp(ents[idx[i]].p, v, len) == 0;
      if (idx[i] == seen) seen++;
      CHECK_MSG(ok, "width %zu value %d index %u", w, i, idx[i]);
    }
    CHECK_EQ_INT(seen, d.count);
    qsort(ents, d.count, sizeof *ents, cmp_entry);
    for (uint32_t e = 1; e < d.count; e++) {
      if (cmp_entry(&ents[e - 1], &ents[e]) == 0) {
        CHECK_MSG(0, "width %zu: duplicate entry", w);
        break;
      }
    }
    /* after a reset the same values get indices from 0 again */
    pm_pq_enc_dict_reset(&d);
    uint32_t ix;
    CHECK_OK(pm_pq_enc_dict_put(&d, pool + (size_t)pick[5] * 24, w ? w : pool_len[pick[5]], &ix, &err), &err);
    CHECK_EQ_INT(ix, 0);
    CHECK_EQ_INT(d.count, 1);
    pm_pq_enc_dict_free(&d);
  }
  free(pool);
  free(pool_len);
  free(pick);
  free(idx);
  free(packed);
  free(bas);
  free(ents);
}

static void test_bools(void) {
  pm_error err;
  pm_buf b;
  pm_buf_init(&b);
  int bit = 0;
  int vals[10] = {1, 0, 1, 1, 0, 0, 0, 1, 1, 0};
  for (int i = 0; i < 10; i++) CHECK_OK(pm_pq_enc_bool_append(&b, &bit, vals[i], &err), &err);
  static const uint8_t want[] = {0x8d, 0x01};
  CHECK(bytes_eq(&b, want, sizeof want));
  pm_buf_free(&b);
}

int main(void) {
  RUN_TEST(test_thrift);
  RUN_TEST(test_rle_known);
  RUN_TEST(test_rle_random);
  RUN_TEST(test_rle_repeat);
  RUN_TEST(test_dict);
  RUN_TEST(test_dict_batches);
  RUN_TEST(test_bools);
  TEST_MAIN_END();
}
