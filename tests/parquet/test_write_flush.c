/* Parquet writer under a memory bound: pm_pq_writer_flush (what a table
 * write spread over many partitions calls when a writer's share of the
 * budget is used up) ends the row group and gives the writer's buffers
 * back; pm_pq_writer_buffered counts what is allocated. A column whose
 * dictionary was given up in one chunk starts the file's later chunks PLAIN;
 * a column whose dictionary pays keeps it in every row group. Checked by the
 * oracles (parquet-check, parquet-dump --meta / --canon). */
#include "support/test_write_util.h"

#define ROWS 21000
#define SLICE 700
#define SLICES_PER_GROUP 3

static const char *text_of(int64_t i, char *buf) {
  snprintf(buf, 32, "t%03d", (int)(i % 300));
  return buf;
}

static void build(struct ArrowSchema *s, struct ArrowArray *a) {
  pm_error err;
  tw_schema(s, "+s", NULL, 0, 3);
  tw_schema(s->children[0], "l", "id", 0, 0);
  tw_schema(s->children[1], "i", "k", 0, 0);
  tw_schema(s->children[2], "u", "s", 1, 0);
  if (pm_array_init(a, ROWS, 1, 3, &err)) abort();
  int64_t *ids = malloc(ROWS * 8);
  int32_t *ks = malloc(ROWS * 4);
  const char **sv = malloc(ROWS * sizeof *sv);
  char (*sbuf)[32] = malloc((size_t)ROWS * 32);
  for (int64_t i = 0; i < ROWS; i++) {
    ids[i] = (int64_t)((uint64_t)i * 0x9E3779B97F4A7C15ULL >> 1); /* distinct: no dictionary pays */
    ks[i] = (int32_t)(i % 50);
    sv[i] = i % 13 == 0 ? NULL : text_of(i, sbuf[i]);
  }
  tw_prim(a->children[0], ROWS, ids, 8, NULL);
  tw_prim(a->children[1], ROWS, ks, 4, NULL);
  tw_str(a->children[2], ROWS, sv, NULL);
  free(ids);
  free(ks);
  free(sv);
  free(sbuf);
}

static char *expected_rows(void) {
  pm_buf b;
  pm_buf_init(&b);
  char line[160], t[32];
  for (int64_t i = 0; i < ROWS; i++) {
    int64_t id = (int64_t)((uint64_t)i * 0x9E3779B97F4A7C15ULL >> 1);
    int n;
    if (i % 13 == 0) n = snprintf(line, sizeof line, "[%lld,%d,null]\n", (long long)id, (int)(i % 50));
    else n = snprintf(line, sizeof line, "[%lld,%d,\"%s\"]\n", (long long)id, (int)(i % 50), text_of(i, t));
    pm_buf_append(&b, line, (size_t)n);
  }
  pm_buf_push_u8(&b, 0);
  char *r = malloc(b.len);
  memcpy(r, b.data, b.len);
  pm_buf_free(&b);
  return r;
}

/* Lines of `meta` naming column `path` and containing `needle`. */
static int count_chunks(const char *meta, const char *path, const char *needle) {
  char key[64];
  snprintf(key, sizeof key, "\"path_in_schema\":\"%s\"", path);
  int n = 0;
  for (const char *l = meta; l && *l;) {
    const char *e = strchr(l, '\n');
    size_t len = e ? (size_t)(e - l) : strlen(l);
    char *line = malloc(len + 1);
    memcpy(line, l, len);
    line[len] = 0;
    if (strstr(line, key) && strstr(line, needle)) n++;
    free(line);
    l = e ? e + 1 : NULL;
  }
  return n;
}

static void test_flush_releases_and_keeps_rows(void) {
  struct ArrowSchema s;
  struct ArrowArray a;
  build(&s, &a);
  pm_error err;
  pm_pq_writer *w = NULL;
  const char *p = tw_path("flush.parquet");
  CHECK_OK(pm_pq_writer_open(p, &s, NULL, &w, &err), &err);
  if (!w) return;
  uint64_t most = 0, after_max = 0, first_slice[2] = {0, 0};
  int slices = 0;
  for (int64_t done = 0; done < ROWS; done += SLICE) {
    struct ArrowArray part = a;
    part.offset = done;
    part.length = ROWS - done < SLICE ? ROWS - done : SLICE;
    CHECK_OK(pm_pq_writer_write(w, &part, &err), &err);
    uint64_t held = pm_pq_writer_buffered(w);
    if (held > most) most = held;
    if (slices % SLICES_PER_GROUP == 0 && slices / SLICES_PER_GROUP < 2) first_slice[slices / SLICES_PER_GROUP] = held;
    if (++slices % SLICES_PER_GROUP == 0) {
      CHECK_OK(pm_pq_writer_flush(w, &err), &err);
      uint64_t left = pm_pq_writer_buffered(w);
      if (left > after_max) after_max = left;
    }
  }
  /* a row group's buffers (dictionaries, pages, compression context) are held before the flush and given back by it */
  CHECK_MSG(most > 32768, "buffered peak %llu", (unsigned long long)most);
  CHECK_MSG(after_max < 1024, "buffered after flush %llu", (unsigned long long)after_max);
  /* row group 1 builds no dictionary for id (its values and indices, its hash table): it holds less */
  CHECK_MSG(first_slice[1] + 2048 < first_slice[0], "first slice of row groups 0/1: %llu / %llu",
            (unsigned long long)first_slice[0], (unsigned long long)first_slice[1]);
  CHECK_OK(pm_pq_writer_close(w, &err), &err);
  const pm_pq_write_result *r = pm_pq_writer_result(w);
  CHECK(r && r->num_rows == ROWS && r->num_row_groups == ROWS / (SLICE * SLICES_PER_GROUP));
  pm_pq_writer_free(w);
  pm_schema_release(&s);
  pm_array_release(&a);

  CHECK(tw_check(p));
  char *meta = tw_dump(p, "--meta");
  CHECK(meta != NULL);
  if (meta) {
    int groups = ROWS / (SLICE * SLICES_PER_GROUP);
    /* id: distinct values, the dictionary given up in row group 0 and not built again */
    CHECK_EQ_INT(count_chunks(meta, "id", "\"encodings\":\"PLAIN, BIT_PACKED\""), groups);
    /* k and s: few distinct values, dictionary-encoded in every row group */
    CHECK_EQ_INT(count_chunks(meta, "k", "PLAIN_DICTIONARY"), groups);
    CHECK_EQ_INT(count_chunks(meta, "s", "PLAIN_DICTIONARY"), groups);
    free(meta);
  }
  char *want = expected_rows();
  CHECK(tw_canon_equals(p, want));
  free(want);
}

int main(void) {
  RUN_TEST(test_flush_releases_and_keeps_rows);
  tw_cleanup();
  TEST_MAIN_END();
}
