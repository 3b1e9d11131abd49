/* Parquet writer vs a Java-written fixture: the same rows written by our
 * writer must produce the same schema elements, encodings, statistics and
 * column indexes (byte for byte) as parquet-mr 1.15.1 under Paimon wrote, and
 * the same rows through DuckDB. */
#include "format/parquet/parquet_meta.h"
#include "format/parquet/parquet_reader.h"
#include "io/file.h"
#include "support/test_write_util.h"
#include "util/compress.h"

#define JAVA_FILE                                                                                            \
  PM_SHARED("fixtures/warehouse/parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor/f1=10/" \
            "bucket-0/data-cf759363-12eb-4f9f-9549-965e455e8084-0.parquet")

#define LONG_TEXT \
  "Two roads diverged in a wood, and I took the one less traveled by, And that has made all the difference."

static void build_pk(struct ArrowSchema *s, struct ArrowArray *a) {
  pm_error err;
  tw_schema(s, "+s", NULL, 0, 8);
  if (pm_array_init(a, 2, 1, 8, &err)) abort();
  const char *names[8] = {"_KEY_f0", "_KEY_f2", "_SEQUENCE_NUMBER", "_VALUE_KIND", "f0", "f1", "f2", "f3"};
  const char *fmts[8] = {"u", "i", "l", "c", "u", "i", "i", "g"};
  int ids[8] = {1073741823, 1073741825, 2147483646, 2147483645, 0, 1, 2, 3};
  for (int i = 0; i < 8; i++) {
    tw_schema(s->children[i], fmts[i], names[i], i == 7, 0);
    tw_field_id(s->children[i], ids[i]);
  }
  const char *txt[2] = {"Alice", LONG_TEXT};
  tw_str(a->children[0], 2, txt, NULL);
  int32_t one[2] = {1, 1};
  tw_prim(a->children[1], 2, one, 4, NULL);
  int64_t seq[2] = {2, 0};
  tw_prim(a->children[2], 2, seq, 8, NULL);
  int8_t vk[2] = {2, 0};
  tw_prim(a->children[3], 2, vk, 1, NULL);
  tw_str(a->children[4], 2, txt, NULL);
  int32_t ten[2] = {10, 10};
  tw_prim(a->children[5], 2, ten, 4, NULL);
  tw_prim(a->children[6], 2, one, 4, NULL);
  double f3[2] = {19.1, 11};
  tw_prim(a->children[7], 2, f3, 8, NULL);
}

static int same_bytes(pm_pq_bytes a, pm_pq_bytes b) { return a.len == b.len && (a.len == 0 || memcmp(a.p, b.p, a.len) == 0); }

static int read_range(const char *path, int64_t off, int32_t len, pm_buf *out) {
  pm_error err;
  pm_file *f = NULL;
  if (pm_file_open(path, &f, &err)) return -1;
  out->len = 0;
  int rc = pm_buf_reserve(out, (size_t)len + 1) || pm_file_read_at(f, (uint64_t)off, out->data, (size_t)len, &err);
  if (!rc) out->len = (size_t)len;
  pm_file_close(f);
  return rc;
}

static int enc_set(const pm_pq_column_chunk *c) {
  int m = 0;
  for (uint32_t i = 0; i < c->n_encodings; i++) m |= 1 << c->encodings[i];
  return m;
}

/* One page of a column chunk: header and decompressed body. */
typedef struct page_view {
  pm_pq_page_header h;
  pm_buf body;
} page_view;

/* Reads the pages of chunk c of file path (ZSTD or uncompressed). Returns the count, -1 on error. */
static int read_pages(const char *path, const pm_pq_column_chunk *c, page_view *out, int max) {
  pm_error err;
  int64_t start = c->has_dictionary_page_offset ? c->dictionary_page_offset : c->data_page_offset;
  pm_buf chunk;
  pm_buf_init(&chunk);
  if (read_range(path, start, (int32_t)c->total_compressed_size, &chunk)) return -1;
  size_t pos = 0;
  int n = 0;
  while (pos < chunk.len && n < max) {
    page_view *pv = &out[n];
    size_t used = 0;
    if (pm_pq_page_header_parse(chunk.data + pos, chunk.len - pos, (uint64_t)start + pos, path, &pv->h, &used, &err)) {
      fprintf(stderr, "%s\n", err.message);
      n = -1;
      break;
    }
    pos += used;
    pm_buf_init(&pv->body);
    if (pm_buf_reserve(&pv->body, (size_t)pv->h.uncompressed_size + 1) ||
        pm_decompress(c->codec == PM_PQ_CODEC_ZSTD ? PM_CODEC_ZSTD : PM_CODEC_NONE, chunk.data + pos,
                      (size_t)pv->h.compressed_size, pv->body.data, (size_t)pv->h.uncompressed_size, &err)) {
      pm_buf_free(&pv->body);
      n = -1;
      break;
    }
    pv->body.len = (size_t)pv->h.uncompressed_size;
    pos += (size_t)pv->h.compressed_size;
    n++;
  }
  pm_buf_free(&chunk);
  return n;
}

/* Our file must match the Java file: schema elements, per chunk encodings, statistics,
 * page headers and decompressed page bytes, and (when with_page_index) column index bytes. */
static void compare_with_java(const char *ours, const char *java, int with_page_index) {
  pm_error err;
  pm_file *fo = NULL, *fj = NULL;
  pm_pq_meta *mo = NULL, *mj = NULL;
  CHECK_OK(pm_file_open(ours, &fo, &err), &err);
  CHECK_OK(pm_file_open(java, &fj, &err), &err);
  if (fo) CHECK_OK(pm_pq_meta_read(fo, &mo, &err), &err);
  if (fj) CHECK_OK(pm_pq_meta_read(fj, &mj, &err), &err);
  if (mo && mj) {
    CHECK_EQ_INT(mo->version, mj->version);
    CHECK_EQ_INT(mo->n_schema, mj->n_schema);
    CHECK_EQ_INT(mo->num_rows, mj->num_rows);
    for (uint32_t i = 0; i < mo->n_schema && i < mj->n_schema; i++) {
      const pm_pq_schema_elem *x = &mo->schema[i], *y = &mj->schema[i];
      CHECK_EQ_STR(x->name, y->name);
      CHECK_MSG(x->has_type == y->has_type && x->type == y->type, "%s type", y->name);
      CHECK_MSG(x->type_length == y->type_length, "%s type length", y->name);
      CHECK_MSG(x->has_repetition == y->has_repetition && x->repetition == y->repetition, "%s repetition", y->name);
      CHECK_MSG(x->num_children == y->num_children, "%s children", y->name);
      CHECK_MSG(x->has_converted == y->has_converted && x->converted == y->converted, "%s converted", y->name);
      CHECK_MSG(x->scale == y->scale && x->precision == y->precision, "%s scale/precision", y->name);
      CHECK_MSG(x->has_field_id == y->has_field_id && x->field_id == y->field_id, "%s field id", y->name);
      CHECK_MSG(memcmp(&x->logical, &y->logical, sizeof x->logical) == 0, "%s logical type", y->name);
    }
    CHECK_EQ_INT(mo->n_row_groups, 1);
    CHECK_EQ_INT(mj->n_row_groups, 1);
    pm_buf bo, bj;
    pm_buf_init(&bo);
    pm_buf_init(&bj);
    uint32_t ncol = mo->n_row_groups && mj->n_row_groups ? mj->row_groups[0].n_columns : 0;
    for (uint32_t c = 0; c < ncol && c < mo->row_groups[0].n_columns; c++) {
      const pm_pq_column_chunk *x = &mo->row_groups[0].columns[c], *y = &mj->row_groups[0].columns[c];
      const char *name = y->path_in_schema[y->n_path - 1];
      CHECK_MSG(enc_set(x) == enc_set(y), "%s encodings", name);
      CHECK_MSG(x->has_dictionary_page_offset == y->has_dictionary_page_offset, "%s dictionary", name);
      CHECK_MSG(x->num_values == y->num_values && x->codec == y->codec, "%s values/codec", name);
      const pm_pq_stats *sx = &x->statistics, *sy = &y->statistics;
      CHECK_MSG(x->has_statistics == y->has_statistics, "%s has stats", name);
      CHECK_MSG(sx->has_min == sy->has_min && sx->has_max == sy->has_max && same_bytes(sx->min, sy->min) &&
                    same_bytes(sx->max, sy->max),
                "%s min_value/max_value", name);
      CHECK_MSG(sx->has_min_old == sy->has_min_old && sx->has_max_old == sy->has_max_old &&
                    same_bytes(sx->min_old, sy->min_old) && same_bytes(sx->max_old, sy->max_old),
                "%s deprecated min/max", name);
      CHECK_MSG(sx->has_null_count == sy->has_null_count && sx->null_count == sy->null_count, "%s nulls", name);
      CHECK_MSG(x->has_column_index == y->has_column_index && x->has_offset_index == y->has_offset_index,
                "%s page index presence", name);
      if (with_page_index && x->has_column_index && y->has_column_index) {
        CHECK(read_range(ours, x->column_index_offset, x->column_index_length, &bo) == 0);
        CHECK(read_range(java, y->column_index_offset, y->column_index_length, &bj) == 0);
        CHECK_MSG(bo.len == bj.len && memcmp(bo.data, bj.data, bo.len) == 0, "%s column index bytes differ", name);
      }
      page_view po[8], pj[8];
      int no = read_pages(ours, x, po, 8), nj = read_pages(java, y, pj, 8);
      CHECK_MSG(no == nj && no > 0, "%s: %d pages vs %d", name, no, nj);
      for (int k = 0; k < no && k < nj; k++) {
        const pm_pq_page_header *ho = &po[k].h, *hj = &pj[k].h;
        CHECK_MSG(ho->type == hj->type && ho->num_values == hj->num_values && ho->encoding == hj->encoding &&
                      ho->def_encoding == hj->def_encoding && ho->rep_encoding == hj->rep_encoding &&
                      ho->has_crc == hj->has_crc && ho->uncompressed_size == hj->uncompressed_size,
                  "%s page %d header", name, k);
        CHECK_MSG(po[k].body.len == pj[k].body.len && memcmp(po[k].body.data, pj[k].body.data, po[k].body.len) == 0,
                  "%s page %d bytes differ", name, k);
      }
      for (int k = 0; k < no; k++) pm_buf_free(&po[k].body);
      for (int k = 0; k < nj; k++) pm_buf_free(&pj[k].body);
    }
    pm_buf_free(&bo);
    pm_buf_free(&bj);
  }
  pm_pq_meta_free(mo);
  pm_pq_meta_free(mj);
  pm_file_close(fo);
  pm_file_close(fj);
}

/* Reads `in` with our reader, writes `out` with our writer (defaults). */
static int convert(const char *in, const char *out) {
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_pq_reader *r = NULL;
  pm_pq_writer *w = NULL;
  struct ArrowSchema s;
  memset(&s, 0, sizeof s);
  int rc = pm_pq_reader_open_path(in, NULL, &r, &err);
  if (!rc) rc = pm_pq_reader_schema(r, &s, &err);
  if (!rc) rc = pm_pq_writer_open(out, &s, NULL, &w, &err);
  while (!rc) {
    struct ArrowArray b;
    memset(&b, 0, sizeof b);
    rc = pm_pq_reader_next(r, &b, &err);
    if (rc || !b.release) break;
    rc = pm_pq_writer_write(w, &b, &err);
    b.release(&b);
  }
  if (!rc) rc = pm_pq_writer_close(w, &err);
  if (rc) fprintf(stderr, "convert %s: %s\n", in, err.message);
  pm_pq_writer_free(w);
  if (s.release) s.release(&s);
  pm_pq_reader_close(r);
  return rc;
}

static void test_same_as_java(void) {
  struct ArrowSchema s;
  struct ArrowArray a;
  build_pk(&s, &a);
  pm_error err;
  pm_pq_writer *w = NULL;
  const char *p = tw_path("pk.parquet");
  CHECK_OK(pm_pq_writer_open(p, &s, NULL, &w, &err), &err);
  if (!w) return;
  CHECK_OK(pm_pq_writer_write(w, &a, &err), &err);
  CHECK_OK(pm_pq_writer_close(w, &err), &err);
  pm_pq_writer_free(w);
  pm_schema_release(&s);
  pm_array_release(&a);
  compare_with_java(p, JAVA_FILE, 1);
  CHECK(tw_check(p));
  char *want = tw_dump(JAVA_FILE, "--canon");
  CHECK(want != NULL);
  if (want) CHECK(tw_canon_equals(p, want));
  free(want);
}

/* Java files read by our reader and written again: identical pages and metadata. */
static void test_rewrite_java_files(void) {
  static const struct { const char *file; int page_index; } cases[] = {
      /* parquet-mr 1.15.1: timestamps of every precision, with and without time zone, INT96 dictionary */
      {PM_SHARED("fixtures/warehouse/parquet/append_with_multiple_ts_precision_and_timezone.db/"
                 "append_with_multiple_ts_precision_and_timezone/bucket-0/data-9b8abdde-df4d-4655-bb4c-ffda164ef9d4-0.parquet"),
       1},
      /* parquet-mr 1.13.1 (column index without histograms): all scalar types, MAP<ARRAY<FLOAT>, ROW> */
      {PM_SHARED("fixtures/warehouse/parquet/parquet_append_table.db/parquet_append_table/bucket-0/"
                 "data-9ea62f34-1dca-49c1-bf7a-d37303d8fb76-1.parquet"),
       0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char name[32];
    snprintf(name, sizeof name, "rewrite%zu.parquet", i);
    const char *p = tw_path(name);
    if (convert(cases[i].file, p)) {
      CHECK(0);
      continue;
    }
    compare_with_java(p, cases[i].file, cases[i].page_index);
  }
}

/* Every parquet-mr file among the fixtures, re-written: same metadata and page bytes. */
static int n_java_files;

static void walk(const char *dir) {
  pm_error err;
  char **names = NULL;
  size_t n = 0;
  if (pm_list_dir(dir, &names, &n, &err)) return;
  for (size_t i = 0; i < n; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    size_t l = strlen(names[i]);
    if (l > 8 && strcmp(names[i] + l - 8, ".parquet") == 0) {
      pm_file *f = NULL;
      pm_pq_meta *m = NULL;
      int v115 = -1;
      if (pm_file_open(path, &f, &err) == 0 && pm_pq_meta_read(f, &m, &err) == 0 && m->created_by) {
        if (strncmp(m->created_by, "parquet-mr version 1.15", 23) == 0) v115 = 1;
        else if (strncmp(m->created_by, "parquet-mr version 1.13", 23) == 0) v115 = 0;
      }
      pm_pq_meta_free(m);
      pm_file_close(f);
      if (v115 < 0) continue;
      const char *out = tw_path("all.parquet");
      int before = pm_test_failures;
      CHECK_MSG(convert(path, out) == 0, "%s", path);
      compare_with_java(out, path, v115); /* 1.13.1 column indexes have no histograms */
      if (pm_test_failures != before) fprintf(stderr, "differs: %s\n", path);
      n_java_files++;
    } else if (!strchr(names[i], '.') || strstr(names[i], ".db")) {
      walk(path);
    }
  }
  pm_free_names(names, n);
}

static void test_all_java_fixtures(void) {
  walk(PM_SHARED("fixtures/warehouse/parquet"));
  CHECK_MSG(n_java_files >= 60, "only %d parquet-mr files found", n_java_files);
}

int main(void) {
  RUN_TEST(test_same_as_java);
  RUN_TEST(test_rewrite_java_files);
  RUN_TEST(test_all_java_fixtures);
  tw_cleanup();
  TEST_MAIN_END();
}
