/* The process-wide schema cache (avro.h "Schema cache") and the reused zstd
 * contexts: files with the same writer schema share one parsed tree, other
 * schemas get their own, bad schemas fail as before naming the file, eviction
 * keeps the cache bounded while trees in use stay valid, and readers on
 * several threads decode the same values as one reader alone. */
#include <pthread.h>
#include <unistd.h>

#include "format/avro/avro.h"
#include "harness.h"

static const char *SCHEMA_A =
    "{\"type\":\"record\",\"name\":\"a\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"},"
    "{\"name\":\"name\",\"type\":\"string\"}]}";
static const char *SCHEMA_B =
    "{\"type\":\"record\",\"name\":\"b\",\"fields\":[{\"name\":\"name\",\"type\":\"string\"},"
    "{\"name\":\"id\",\"type\":\"long\"}]}";

static char tmpdir[256];

/* Writes `records` records (id k + base, name "n<k+base>") in schema a or b, zstd, small blocks. */
static void make_file(const char *name, int schema_b, int records, int64_t base, pm_buf *out) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", tmpdir, name);
  pm_error err;
  pm_avro_writer_options opt = {0};
  opt.codec = PM_CODEC_ZSTD;
  opt.block_size = 64;
  pm_avro_writer *w;
  CHECK_OK(pm_avro_writer_open(path, schema_b ? SCHEMA_B : SCHEMA_A, &opt, &w, &err), &err);
  for (int k = 0; k < records; k++) {
    pm_avro_encoder *e = pm_avro_writer_encoder(w);
    char s[32];
    snprintf(s, sizeof s, "n%lld", (long long)(k + base));
    if (schema_b) pm_avro_put_string(e, s);
    pm_avro_put_long(e, k + base);
    if (!schema_b) pm_avro_put_string(e, s);
    CHECK_OK(pm_avro_writer_end_record(w, &err), &err);
  }
  CHECK_OK(pm_avro_writer_commit(w, NULL, &err), &err);
  pm_buf_init(out);
  CHECK_OK(pm_read_file(path, out, 0, &err), &err);
  unlink(path);
}

static int open_mem(const pm_buf *b, const char *name, pm_file **f, pm_avro_reader **r, pm_error *err) {
  PM_TRY(pm_file_from_memory(b->data, b->len, name, f, err));
  int rc = pm_avro_reader_open(*f, r, err);
  if (rc) pm_file_close(*f);
  return rc;
}

/* Decodes every record of r by field name; returns how many match id = k + base, name "n<id>". */
static int64_t count_good(pm_avro_reader *r, int64_t base) {
  static const char *const want[] = {"id", "name"};
  pm_avro_record_map m;
  pm_error err;
  if (pm_avro_record_map_init(&m, pm_avro_reader_schema(r), want, 2, "t", &err)) return -1;
  int64_t good = 0, k = 0, n = 0;
  pm_avro_cursor c;
  while (pm_avro_reader_next_block(r, &c, &n, &err) == 0 && n > 0) {
    for (int64_t i = 0; i < n; i++, k++) {
      int64_t id = -1;
      pm_avro_bytes s = {NULL, 0};
      for (size_t f = 0; f < m.writer_count; f++) {
        if (m.slot_of_writer_field[f] == 0) id = pm_avro_read_long(&c);
        else s = pm_avro_read_string(&c);
      }
      char want_s[32];
      int wl = snprintf(want_s, sizeof want_s, "n%lld", (long long)(k + base));
      if (!pm_avro_cursor_failed(&c) && id == k + base && s.len == (size_t)wl && !memcmp(s.ptr, want_s, s.len)) good++;
    }
  }
  pm_avro_record_map_free(&m);
  return good;
}

static void test_shared_tree(void) {
  pm_buf a1, a2, b1;
  uint64_t p0 = pm_avro_schema_cache_parses(); /* first test of the process: an empty cache */
  make_file("a1.avro", 0, 300, 0, &a1);
  CHECK_EQ_INT(pm_avro_schema_cache_parses(), p0 + 1); /* writers take their schema from the cache too */
  make_file("a2.avro", 0, 200, 1000, &a2);
  CHECK_EQ_INT(pm_avro_schema_cache_parses(), p0 + 1);
  make_file("b1.avro", 1, 100, 7, &b1);
  uint64_t p1 = pm_avro_schema_cache_parses();
  CHECK_EQ_INT(p1, p0 + 2); /* another schema: parsed */
  pm_error err;
  pm_file *f1, *f2, *f3;
  pm_avro_reader *r1 = NULL, *r2 = NULL, *r3 = NULL;
  CHECK_OK(open_mem(&a1, "a1.avro", &f1, &r1, &err), &err);
  CHECK_EQ_INT(pm_avro_schema_cache_parses(), p1); /* the header's schema text is the writer's: no parse */
  CHECK_OK(open_mem(&a2, "a2.avro", &f2, &r2, &err), &err);
  CHECK_EQ_INT(pm_avro_schema_cache_parses(), p1);
  CHECK(r1 && r2 && pm_avro_reader_schema(r1) == pm_avro_reader_schema(r2));
  CHECK_OK(open_mem(&b1, "b1.avro", &f3, &r3, &err), &err);
  CHECK_EQ_INT(pm_avro_schema_cache_parses(), p1);
  CHECK(r3 && pm_avro_reader_schema(r3) != pm_avro_reader_schema(r1));
  if (r1 && r2 && r3) {
    CHECK_EQ_INT(count_good(r1, 0), 300);
    CHECK_EQ_INT(count_good(r2, 1000), 200);
    CHECK_EQ_INT(count_good(r3, 7), 100);
    size_t len = 0;
    const char *js = pm_avro_reader_schema_json(r3, &len);
    CHECK(len == strlen(SCHEMA_B) && !memcmp(js, SCHEMA_B, len));
  }
  pm_avro_reader_close(r1);
  pm_avro_reader_close(r2);
  pm_avro_reader_close(r3);
  pm_file_close(f1);
  pm_file_close(f2);
  pm_file_close(f3);
  /* kept after the last reader closed */
  CHECK_OK(open_mem(&a2, "a2.avro", &f2, &r2, &err), &err);
  CHECK_EQ_INT(pm_avro_schema_cache_parses(), p1);
  if (r2) CHECK_EQ_INT(count_good(r2, 1000), 200);
  pm_avro_reader_close(r2);
  pm_file_close(f2);
  pm_buf_free(&a1);
  pm_buf_free(&a2);
  pm_buf_free(&b1);
}

/* A header whose avro.schema is the given text (no blocks). */
static void header_with_schema(const char *schema, pm_buf *out) {
  pm_buf_init(out);
  pm_buf_append(out, "Obj\x01", 4);
  uint8_t v[16];
  size_t n = 0;
  v[n++] = 2; /* one metadata entry */
  pm_buf_append(out, v, n);
  const char *k = "avro.schema";
  size_t kl = strlen(k), sl = strlen(schema);
  uint8_t b = (uint8_t)(kl * 2);
  pm_buf_append(out, &b, 1);
  pm_buf_append(out, k, kl);
  /* zig-zag varint of sl */
  uint64_t z = (uint64_t)sl * 2;
  n = 0;
  while (z >= 0x80) {
    v[n++] = (uint8_t)(z | 0x80);
    z >>= 7;
  }
  v[n++] = (uint8_t)z;
  pm_buf_append(out, v, n);
  pm_buf_append(out, schema, sl);
  b = 0;
  pm_buf_append(out, &b, 1);
  pm_buf_append(out, "0123456789abcdef", 16);
}

static void test_bad_schema_not_cached(void) {
  pm_buf h;
  header_with_schema("{\"type\":\"record\",\"name\":\"x\",\"fields\":[{\"name\":\"f\",\"type\":\"nosuch\"}]}", &h);
  for (int i = 0; i < 2; i++) {
    char name[32];
    snprintf(name, sizeof name, "bad%d.avro", i);
    pm_error err;
    pm_file *f = NULL;
    pm_avro_reader *r = NULL;
    uint64_t p = pm_avro_schema_cache_parses();
    int rc = open_mem(&h, name, &f, &r, &err);
    CHECK_EQ_INT(rc, PAIMON_ERR_CORRUPT);
    CHECK_MSG(rc && strstr(err.message, name) != NULL, "%s", err.message); /* each names its own file */
    CHECK_EQ_INT(pm_avro_schema_cache_parses(), p);
    if (!rc) {
      pm_avro_reader_close(r);
      pm_file_close(f);
    }
  }
  pm_buf_free(&h);
}

/* 40 distinct schemas: at most 16 are kept, the oldest is parsed again; trees in use stay valid. */
static void test_eviction(void) {
  enum { N = 40 };
  pm_buf files[N];
  pm_file *fs[N];
  pm_avro_reader *rs[N];
  pm_error err;
  for (int i = 0; i < N; i++) {
    char schema[256], path[512];
    snprintf(schema, sizeof schema,
             "{\"type\":\"record\",\"name\":\"e%d\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"},"
             "{\"name\":\"name\",\"type\":\"string\"}]}",
             i);
    snprintf(path, sizeof path, "%s/e%d.avro", tmpdir, i);
    pm_avro_writer_options opt = {0};
    opt.codec = PM_CODEC_ZSTD;
    pm_avro_writer *w;
    CHECK_OK(pm_avro_writer_open(path, schema, &opt, &w, &err), &err);
    for (int k = 0; k < 5; k++) {
      char s[32];
      snprintf(s, sizeof s, "n%d", k + i);
      pm_avro_put_long(pm_avro_writer_encoder(w), k + i);
      pm_avro_put_string(pm_avro_writer_encoder(w), s);
      CHECK_OK(pm_avro_writer_end_record(w, &err), &err);
    }
    CHECK_OK(pm_avro_writer_commit(w, NULL, &err), &err);
    pm_buf_init(&files[i]);
    CHECK_OK(pm_read_file(path, &files[i], 0, &err), &err);
    unlink(path);
  }
  /* all open at once: more schemas in use than slots */
  uint64_t p0 = pm_avro_schema_cache_parses();
  for (int i = 0; i < N; i++) CHECK_OK(open_mem(&files[i], "e.avro", &fs[i], &rs[i], &err), &err);
  CHECK_EQ_INT(pm_avro_schema_cache_parses(), p0 + N);
  for (int i = 0; i < N; i++) CHECK_EQ_INT(count_good(rs[i], i), 5);
  for (int i = 0; i < N; i++) {
    pm_avro_reader_close(rs[i]);
    pm_file_close(fs[i]);
  }
  /* one after the other: the last ones are cached, the first ones were evicted */
  for (int i = 0; i < N; i++) {
    CHECK_OK(open_mem(&files[i], "e.avro", &fs[i], &rs[i], &err), &err);
    pm_avro_reader_close(rs[i]);
    pm_file_close(fs[i]);
  }
  uint64_t p1 = pm_avro_schema_cache_parses();
  CHECK_OK(open_mem(&files[N - 1], "e.avro", &fs[0], &rs[0], &err), &err);
  CHECK_EQ_INT(pm_avro_schema_cache_parses(), p1); /* most recent: cached */
  pm_avro_reader_close(rs[0]);
  pm_file_close(fs[0]);
  CHECK_OK(open_mem(&files[0], "e.avro", &fs[0], &rs[0], &err), &err);
  CHECK_EQ_INT(pm_avro_schema_cache_parses(), p1 + 1); /* oldest: evicted, parsed again */
  pm_avro_reader_close(rs[0]);
  pm_file_close(fs[0]);
  for (int i = 0; i < N; i++) pm_buf_free(&files[i]);
}

typedef struct thread_arg {
  const pm_buf *a, *b;
  int64_t good;
} thread_arg;

static void *reader_thread(void *p) {
  thread_arg *t = p;
  for (int i = 0; i < 50; i++) {
    const pm_buf *b = i % 2 ? t->b : t->a;
    pm_error err;
    pm_file *f;
    pm_avro_reader *r;
    if (open_mem(b, "t.avro", &f, &r, &err)) continue;
    t->good += count_good(r, i % 2 ? 7 : 0);
    pm_avro_reader_close(r);
    pm_file_close(f);
  }
  return NULL;
}

static void test_threads(void) {
  pm_buf a, b;
  make_file("ta.avro", 0, 300, 0, &a);
  make_file("tb.avro", 1, 100, 7, &b);
  pthread_t th[4];
  thread_arg args[4];
  for (int i = 0; i < 4; i++) {
    args[i] = (thread_arg){&a, &b, 0};
    CHECK(pthread_create(&th[i], NULL, reader_thread, &args[i]) == 0);
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(th[i], NULL);
    CHECK_EQ_INT(args[i].good, 25 * 300 + 25 * 100);
  }
  pm_buf_free(&a);
  pm_buf_free(&b);
}

int main(void) {
  snprintf(tmpdir, sizeof tmpdir, "/dev/shm/pm_avro_cache_XXXXXX");
  if (!mkdtemp(tmpdir)) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/pm_avro_cache_XXXXXX");
    if (!mkdtemp(tmpdir)) return 1;
  }
  RUN_TEST(test_shared_tree);
  RUN_TEST(test_bad_schema_not_cached);
  RUN_TEST(test_eviction);
  RUN_TEST(test_threads);
  rmdir(tmpdir);
  TEST_MAIN_END();
}
