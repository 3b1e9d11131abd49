/* ORC files we write read back identically, through DuckDB: data of every
 * flat type and nested data is written with our ORC writer, read with our ORC
 * reader, written as Parquet with our Parquet writer, and DuckDB's canonical
 * dump of that file must equal the hand-written expected rows of the Parquet
 * writer tests (parquet/test_write_*.h), column by column. */
#include <jansson.h>

#include "format/orc/orc_reader.h"
#include "format/orc/orc_writer.h"
#include "format/parquet/parquet_writer.h"
#include "support/test_write_flat_data.h"
#include "support/test_write_nested_data.h"

/* Columns of the flat data ORC can hold with the same canonical value (ORC has
 * no TIME, fixed-size binary or unsigned types; timestamps come back as ns,
 * which the canonical form does not distinguish). Column 6 is left out: it is
 * a non-nullable field whose validity bitmap marks a null, which the Parquet
 * writer ignores (REQUIRED) and the ORC writer keeps. */
static const int orc_columns[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 14, 15, 16, 17, 18, 19, 20, 21, 22, 24};
#define N_ORC_COLUMNS (int)(sizeof orc_columns / sizeof orc_columns[0])

/* Nested columns ORC holds (all but the fixed-size list, which ORC has no type for). */
static const int orc_nested_columns[] = {0, 1, 2, 3, 5};
#define N_ORC_NESTED_COLUMNS (int)(sizeof orc_nested_columns / sizeof orc_nested_columns[0])

/* Moves the chosen children of (s, a) into a new struct (s2, a2). */
static void project(struct ArrowSchema *s, struct ArrowArray *a, const int *cols, int n, struct ArrowSchema *s2,
                    struct ArrowArray *a2) {
  pm_error err;
  if (pm_schema_init(s2, "+s", NULL, 0, n, &err) || pm_array_init(a2, a->length, 1, n, &err)) abort();
  for (int i = 0; i < n; i++) {
    if (pm_schema_copy(s->children[cols[i]], s2->children[i], &err)) abort();
    pm_array_move(a->children[cols[i]], a2->children[i]);
  }
}

/* ORC -> our reader -> our Parquet writer. Returns 0 on success. */
static int orc_to_parquet(const char *orc_path, const char *pq_path) {
  pm_error err;
  pm_file *f;
  if (pm_file_open(orc_path, &f, &err)) return fprintf(stderr, "%s\n", err.message), 1;
  pm_orc_read_options ro;
  pm_orc_read_options_init(&ro);
  pm_orc_reader *r;
  if (pm_orc_reader_open(f, &ro, &r, &err)) {
    fprintf(stderr, "%s\n", err.message);
    pm_file_close(f);
    return 1;
  }
  struct ArrowSchema s;
  int rc = pm_orc_reader_schema(r, &s, &err);
  pm_pq_writer *w = NULL;
  if (!rc) rc = pm_pq_writer_open(pq_path, &s, NULL, &w, &err);
  while (!rc) {
    struct ArrowArray a;
    rc = pm_orc_reader_next(r, &a, &err);
    if (rc || !a.release) break;
    rc = pm_pq_writer_write(w, &a, &err);
    a.release(&a);
  }
  if (!rc) rc = pm_pq_writer_close(w, &err);
  if (rc) fprintf(stderr, "%s\n", err.message);
  pm_pq_writer_free(w);
  if (s.release) s.release(&s);
  pm_orc_reader_close(r);
  pm_file_close(f);
  return rc;
}

static int write_orc(const char *path, const struct ArrowSchema *s, const struct ArrowArray *a, pm_codec codec) {
  pm_error err;
  pm_orc_writer_options o;
  pm_orc_writer_options_init(&o);
  o.codec = codec;
  pm_orc_writer *w;
  if (pm_orc_writer_open(path, s, &o, &w, &err)) return fprintf(stderr, "%s\n", err.message), 1;
  if (pm_orc_writer_write(w, a, &err)) {
    fprintf(stderr, "%s\n", err.message);
    pm_orc_writer_abort(w);
    return 1;
  }
  if (pm_orc_writer_close(w, &err)) return fprintf(stderr, "%s\n", err.message), 1;
  return 0;
}

/* Compares DuckDB's canonical rows of `file` with the chosen columns of `expected`. */
static void check_columns(const char *file, const char *expected, const int *cols, int n_cols) {
  char *got = tw_dump(file, "--canon");
  CHECK(got != NULL);
  if (!got) return;
  const char *e = expected, *g = got;
  int row = 0;
  while (*e) {
    const char *e_end = strchr(e, '\n'), *g_end = strchr(g, '\n');
    CHECK_MSG(g_end != NULL, "%s: DuckDB returned %d rows only:\n%s", file, row, got);
    if (!e_end || !g_end) break;
    json_error_t je;
    json_t *ej = json_loadb(e, (size_t)(e_end - e), 0, &je);
    json_t *gj = json_loadb(g, (size_t)(g_end - g), 0, &je);
    CHECK(ej && gj && json_is_array(gj) && (int)json_array_size(gj) == n_cols);
    for (int i = 0; ej && gj && i < n_cols && i < (int)json_array_size(gj); i++) {
      json_t *ev = json_array_get(ej, (size_t)cols[i]), *gv = json_array_get(gj, (size_t)i);
      /* ORC stores timestamps as seconds + nanos; Java's ORC reader and
       * writer disagree with the instant for values strictly between -1 s and
       * 0 (ORC-763), and we keep Java's bytes: such values are not compared. */
      if (json_is_integer(ev) && cols[i] >= 14 && cols[i] <= 21 && json_integer_value(ev) < 0 &&
          json_integer_value(ev) > -1000000000LL)
        continue;
      int same = json_equal(ev, gv);
      if (!same && json_is_number(ev) && json_is_number(gv)) same = json_number_value(ev) == json_number_value(gv);
      CHECK_MSG(same, "%s row %d column %d: expected %s, DuckDB read %s", file, row, cols[i],
                json_dumps(ev, JSON_ENCODE_ANY), json_dumps(gv, JSON_ENCODE_ANY));
    }
    json_decref(ej);
    json_decref(gj);
    e = e_end + 1;
    g = g_end + 1;
    row++;
  }
  CHECK_MSG(*g == '\0', "%s: DuckDB returned extra rows: %s", file, g);
  free(got);
}

static void test_flat_types(void) {
  pm_codec codecs[] = {PM_CODEC_ZSTD, PM_CODEC_NONE, PM_CODEC_SNAPPY, PM_CODEC_DEFLATE, PM_CODEC_LZ4_RAW};
  for (size_t c = 0; c < sizeof codecs / sizeof codecs[0]; c++) {
    struct ArrowSchema s, s2;
    struct ArrowArray a, a2;
    build_flat(&s, &a);
    project(&s, &a, orc_columns, N_ORC_COLUMNS, &s2, &a2);
    const char *orc = tw_path("flat.orc"), *pq = tw_path("flat_from_orc.parquet");
    CHECK(write_orc(orc, &s2, &a2, codecs[c]) == 0);
    CHECK(orc_to_parquet(orc, pq) == 0);
    check_columns(pq, flat_expected, orc_columns, N_ORC_COLUMNS);
    s.release(&s);
    a.release(&a);
    s2.release(&s2);
    a2.release(&a2);
  }
}

static void test_nested_types(void) {
  pm_codec codecs[] = {PM_CODEC_ZSTD, PM_CODEC_NONE};
  for (size_t c = 0; c < sizeof codecs / sizeof codecs[0]; c++) {
    struct ArrowSchema s, s2;
    struct ArrowArray a, a2;
    build_nested(&s, &a);
    project(&s, &a, orc_nested_columns, N_ORC_NESTED_COLUMNS, &s2, &a2);
    const char *orc = tw_path("nested.orc"), *pq = tw_path("nested_from_orc.parquet");
    CHECK(write_orc(orc, &s2, &a2, codecs[c]) == 0);
    CHECK(orc_to_parquet(orc, pq) == 0);
    check_columns(pq, nested_expected, orc_nested_columns, N_ORC_NESTED_COLUMNS);
    s.release(&s);
    a.release(&a);
    s2.release(&s2);
    a2.release(&a2);
  }
}

int main(void) {
  if (system(PAIMON_SHARED_DIR "/tools/parquet-dump -h >/dev/null 2>&1") == -1) {
    fprintf(stderr, "SKIP: oracle tools unavailable\n");
    return 0;
  }
  RUN_TEST(test_flat_types);
  RUN_TEST(test_nested_types);
  if (!getenv("PM_KEEP")) tw_cleanup();
  TEST_MAIN_END();
}
