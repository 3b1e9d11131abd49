/* Parquet writer vs a Java-written fixture: the same rows written by our
 * writer must produce the same schema elements, encodings, statistics and
 * column indexes (byte for byte) as parquet-mr 1.15.1 under Paimon wrote, and
 * the same rows through DuckDB. */
#include "format/parquet/parquet_meta.h"
#include "io/file.h"
#include "test_write_util.h"

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

  pm_file *fo = NULL, *fj = NULL;
  pm_pq_meta *mo = NULL, *mj = NULL;
  CHECK_OK(pm_file_open(p, &fo, &err), &err);
  CHECK_OK(pm_file_open(JAVA_FILE, &fj, &err), &err);
  if (fo) CHECK_OK(pm_pq_meta_read(fo, &mo, &err), &err);
  if (fj) CHECK_OK(pm_pq_meta_read(fj, &mj, &err), &err);
  if (mo && mj) {
    CHECK_EQ_INT(mo->version, mj->version);
    CHECK_EQ_INT(mo->n_schema, mj->n_schema);
    for (uint32_t i = 0; i < mo->n_schema && i < mj->n_schema; i++) {
      const pm_pq_schema_elem *x = &mo->schema[i], *y = &mj->schema[i];
      CHECK_EQ_STR(x->name, y->name);
      CHECK_MSG(x->has_type == y->has_type && x->type == y->type, "%s type", y->name);
      CHECK_MSG(x->has_repetition == y->has_repetition && x->repetition == y->repetition, "%s repetition", y->name);
      CHECK_MSG(x->has_converted == y->has_converted && x->converted == y->converted, "%s converted", y->name);
      CHECK_MSG(x->has_field_id == y->has_field_id && x->field_id == y->field_id, "%s field id", y->name);
      CHECK_MSG(memcmp(&x->logical, &y->logical, sizeof x->logical) == 0, "%s logical type", y->name);
    }
    CHECK_EQ_INT(mo->n_row_groups, 1);
    CHECK_EQ_INT(mj->n_row_groups, 1);
    pm_buf bo, bj;
    pm_buf_init(&bo);
    pm_buf_init(&bj);
    for (uint32_t c = 0; c < 8 && mo->n_row_groups && mj->n_row_groups; c++) {
      const pm_pq_column_chunk *x = &mo->row_groups[0].columns[c], *y = &mj->row_groups[0].columns[c];
      const char *name = y->path_in_schema[0];
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
      if (x->has_column_index && y->has_column_index) {
        CHECK(read_range(p, x->column_index_offset, x->column_index_length, &bo) == 0);
        CHECK(read_range(JAVA_FILE, y->column_index_offset, y->column_index_length, &bj) == 0);
        CHECK_MSG(bo.len == bj.len && memcmp(bo.data, bj.data, bo.len) == 0, "%s column index bytes differ", name);
      }
    }
    pm_buf_free(&bo);
    pm_buf_free(&bj);
  }
  pm_pq_meta_free(mo);
  pm_pq_meta_free(mj);
  pm_file_close(fo);
  pm_file_close(fj);

  CHECK(tw_check(p));
  char *want = tw_dump(JAVA_FILE, "--canon");
  CHECK(want != NULL);
  if (want) CHECK(tw_canon_equals(p, want));
  free(want);
}

int main(void) {
  RUN_TEST(test_same_as_java);
  tw_cleanup();
  TEST_MAIN_END();
}
