/* The format interface (format/format.h): registry, a write/read round trip
 * through the interface for every format (values, statistics, projection by
 * field id, row ranges and positions), the shared pushdown predicate pruning
 * Parquet and ORC alike, and files of 1,500 columns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arrow/arrow.h"
#include "arrow/builder.h"
#include "arrow/type.h"
#include "format/format.h"
#include "harness.h"
#include "util/buf.h"

static char tmpdir[256];
static pm_error err;

static void set_id(struct ArrowSchema *f, int32_t id) {
  char b[16];
  snprintf(b, sizeof b, "%d", (int)id);
  const char *k[1] = {"PARQUET:field_id"}, *v[1] = {b};
  CHECK_OK(pm_schema_set_metadata(f, 1, k, v, &err), &err);
}

static int32_t id_of(const struct ArrowSchema *f) {
  char *v = pm_schema_metadata_get(f, "PARQUET:field_id");
  int32_t id = v ? atoi(v) : -1;
  free(v);
  return id;
}

/* id (l, 1), name (u, 2, null every 7th row), score (g, 3), day (tdD, 4) */
static void make_schema(struct ArrowSchema *s) {
  static const char *fmts[4] = {"l", "u", "g", "tdD"};
  static const char *names[4] = {"id", "name", "score", "day"};
  CHECK_OK(pm_schema_init(s, "+s", "", 0, 4, &err), &err);
  for (int i = 0; i < 4; i++) {
    pm_schema_release(s->children[i]);
    CHECK_OK(pm_schema_init(s->children[i], fmts[i], names[i], ARROW_FLAG_NULLABLE, 0, &err), &err);
    set_id(s->children[i], i + 1);
  }
}

static void make_batch(const struct ArrowSchema *s, int64_t first, int64_t n, struct ArrowArray *out) {
  pm_builder *b;
  CHECK_OK(pm_builder_new_from_schema(s, &b, &err), &err);
  for (int64_t r = first; r < first + n; r++) {
    char name[32];
    snprintf(name, sizeof name, "n%05lld", (long long)r);
    CHECK_OK(pm_builder_append_int(pm_builder_child(b, 0), r, &err), &err);
    if (r % 7 == 0) CHECK_OK(pm_builder_append_null(pm_builder_child(b, 1), &err), &err);
    else CHECK_OK(pm_builder_append_str(pm_builder_child(b, 1), name, &err), &err);
    CHECK_OK(pm_builder_append_double(pm_builder_child(b, 2), (double)r / 4, &err), &err);
    CHECK_OK(pm_builder_append_int(pm_builder_child(b, 3), 19000 + r % 100, &err), &err);
    CHECK_OK(pm_builder_append_valid(b, &err), &err);
  }
  CHECK_OK(pm_builder_finish(b, out, &err), &err);
  pm_builder_free(b);
}

static uint64_t size_of(const char *path) {
  pm_file *f;
  if (pm_file_open(path, &f, &err)) return 0;
  uint64_t n = pm_file_size(f);
  pm_file_close(f);
  return n;
}

static pm_format_reader *open_reader(const pm_format *fmt, const char *path, const pm_format_read_options *o) {
  pm_file *f = NULL;
  pm_format_reader *r = NULL;
  CHECK_OK(pm_file_open(path, &f, &err), &err);
  if (f) CHECK_OK(pm_format_reader_open(fmt, f, o, &r, &err), &err);
  return r;
}

static int child_with_id(const struct ArrowSchema *s, int32_t id) {
  for (int64_t i = 0; i < s->n_children; i++)
    if (id_of(s->children[i]) == id) return (int)i;
  return -1;
}

static void test_registry(void) {
  static const char *names[4] = {"parquet", "orc", "avro", "blob"};
  for (int i = 0; i < 4; i++) {
    const pm_format *f = pm_format_by_name(names[i]);
    CHECK(f != NULL);
    if (f) CHECK_EQ_STR(f->name, names[i]);
  }
  CHECK(pm_format_by_name("ORC") == pm_format_by_name("orc"));
  CHECK(pm_format_by_name("lance") == NULL);
  CHECK(pm_format_for_file("data-1.parquet") == pm_format_by_name("parquet"));
  CHECK(pm_format_for_file("bucket-0/data-x-0.ORC") == pm_format_by_name("orc"));
  CHECK(pm_format_for_file("data-x-0.avro") == pm_format_by_name("avro"));
  CHECK(pm_format_for_file("data-x-1.blob") == pm_format_by_name("blob"));
  CHECK(pm_format_for_file("data-x-1.lance") == NULL);
  CHECK(pm_format_for_file("parquet") == NULL);
}

#define ROWS 3000

/* Writes ROWS rows in three batches, checks the result, reads every value back. */
static void roundtrip(const char *name) {
  const pm_format *fmt = pm_format_by_name(name);
  char path[512];
  snprintf(path, sizeof path, "%s/rt.%s", tmpdir, name);
  struct ArrowSchema s;
  make_schema(&s);
  pm_format_write_options wo;
  pm_format_write_options_init(&wo);
  pm_format_writer *w = NULL;
  CHECK_OK(pm_format_writer_open(fmt, path, &s, &wo, &w, &err), &err);
  for (int k = 0; w && k < 3; k++) {
    struct ArrowArray b;
    make_batch(&s, k * 1000, 1000, &b);
    CHECK_OK(pm_format_writer_write(w, &b, &err), &err);
    b.release(&b);
  }
  CHECK(access(path, F_OK) != 0); /* not visible before close */
  pm_format_write_result res;
  CHECK_OK(pm_format_writer_close(w, &res, &err), &err);
  CHECK_EQ_INT(res.row_count, ROWS);
  CHECK_EQ_INT(res.file_size, size_of(path));
  CHECK(res.file_size > 0);
  CHECK_EQ_INT(res.n_columns, 4);
  if (res.n_columns == 4) {
    CHECK_EQ_STR(res.columns[0].name, "id");
    CHECK_EQ_INT(res.columns[0].field_id, 1);
    CHECK_EQ_INT(res.columns[0].null_count, 0);
    CHECK(res.columns[0].has_min_max);
    CHECK_EQ_INT(res.columns[0].min.i64, 0);
    CHECK_EQ_INT(res.columns[0].max.i64, ROWS - 1);
    CHECK_EQ_INT(res.columns[1].null_count, (ROWS + 6) / 7);
    CHECK(res.columns[1].has_min_max && res.columns[1].min.len == 6 && !memcmp(res.columns[1].min.bytes, "n00001", 6));
    CHECK(res.columns[1].max.len == 6 && !memcmp(res.columns[1].max.bytes, "n02999", 6));
    CHECK(res.columns[2].min.kind == PM_FMT_LIT_DOUBLE && res.columns[2].max.f64 == (ROWS - 1) / 4.0);
    CHECK_EQ_INT(res.columns[3].min.i64, 19000);
    CHECK_EQ_INT(res.columns[3].max.i64, 19099);
  }
  pm_format_write_result_free(&res);

  /* every column, batches of 512 */
  int32_t ids[4] = {1, 2, 3, 4};
  pm_format_read_options o;
  pm_format_read_options_init(&o);
  o.field_ids = ids;
  o.n_field_ids = 4;
  o.batch_rows = 512;
  o.data_schema = &s;
  pm_format_reader *r = open_reader(fmt, path, &o);
  int64_t rows = 0, bad = 0, batches = 0;
  struct ArrowSchema rs;
  CHECK_OK(pm_format_reader_schema(r, &rs, &err), &err);
  CHECK_EQ_INT(rs.n_children, 4);
  int ci = child_with_id(&rs, 1), cn = child_with_id(&rs, 2), cs = child_with_id(&rs, 3), cd = child_with_id(&rs, 4);
  CHECK(ci >= 0 && cn >= 0 && cs >= 0 && cd >= 0);
  pm_schema_release(&rs);
  for (;;) {
    struct ArrowArray a;
    CHECK_OK(pm_format_reader_next(r, &a, &err), &err);
    if (!a.release) break;
    batches++;
    CHECK(a.length <= 512);
    int64_t np;
    const int64_t *pos = pm_format_reader_positions(r, &np);
    CHECK(pos != NULL && np == a.length);
    for (int64_t i = 0; i < a.length; i++) {
      int64_t row = rows + i;
      const struct ArrowArray *id = a.children[ci], *nm = a.children[cn], *sc = a.children[cs], *dy = a.children[cd];
      if (((const int64_t *)id->buffers[1])[id->offset + i] != row) bad++;
      if (pos && pos[i] != row) bad++;
      if (((const double *)sc->buffers[1])[sc->offset + i] != (double)row / 4) bad++;
      if (((const int32_t *)dy->buffers[1])[dy->offset + i] != 19000 + row % 100) bad++;
      int valid = pm_array_is_valid(nm, i);
      if (valid != (row % 7 != 0)) bad++;
      if (valid) {
        char want[32];
        snprintf(want, sizeof want, "n%05lld", (long long)row);
        const int32_t *off = (const int32_t *)nm->buffers[1] + nm->offset;
        if ((size_t)(off[i + 1] - off[i]) != strlen(want) ||
            memcmp((const char *)nm->buffers[2] + off[i], want, strlen(want)))
          bad++;
      }
    }
    rows += a.length;
    a.release(&a);
  }
  CHECK_MSG(rows == ROWS, "%s: %lld rows", name, (long long)rows);
  CHECK_MSG(bad == 0, "%s: %lld wrong values", name, (long long)bad);
  CHECK(batches >= ROWS / 512);
  pm_format_reader_close(r);

  /* projection by id + row ranges: positions are the kept rows */
  int32_t two[2] = {3, 1};
  int64_t ranges[4] = {10, 20, 2990, 3000};
  pm_format_read_options_init(&o);
  o.field_ids = two;
  o.n_field_ids = 2;
  o.row_ranges = ranges;
  o.n_row_ranges = 2;
  o.batch_rows = 7;
  o.data_schema = &s;
  r = open_reader(fmt, path, &o);
  CHECK_OK(pm_format_reader_schema(r, &rs, &err), &err);
  CHECK_EQ_INT(rs.n_children, 2);
  ci = child_with_id(&rs, 1);
  CHECK(ci >= 0 && child_with_id(&rs, 3) >= 0 && child_with_id(&rs, 2) < 0);
  pm_schema_release(&rs);
  rows = bad = 0;
  for (;;) {
    struct ArrowArray a;
    CHECK_OK(pm_format_reader_next(r, &a, &err), &err);
    if (!a.release) break;
    int64_t np;
    const int64_t *pos = pm_format_reader_positions(r, &np);
    CHECK(pos != NULL && np == a.length);
    for (int64_t i = 0; pos && i < a.length; i++) {
      int64_t k = rows + i, want = k < 10 ? 10 + k : 2990 + (k - 10);
      if (pos[i] != want || ((const int64_t *)a.children[ci]->buffers[1])[a.children[ci]->offset + i] != want) bad++;
    }
    rows += a.length;
    a.release(&a);
  }
  CHECK_MSG(rows == 20, "%s: %lld rows in ranges", name, (long long)rows);
  CHECK_EQ_INT(bad, 0);
  pm_format_reader_close(r);

  /* ranges keeping nothing */
  pm_format_read_options_init(&o);
  o.row_ranges = ranges;
  o.n_row_ranges = 0;
  o.data_schema = &s;
  r = open_reader(fmt, path, &o);
  struct ArrowArray a;
  CHECK_OK(pm_format_reader_next(r, &a, &err), &err);
  CHECK(a.release == NULL);
  pm_format_reader_close(r);
  pm_schema_release(&s);
}

static void test_roundtrip_parquet(void) { roundtrip("parquet"); }
static void test_roundtrip_orc(void) { roundtrip("orc"); }
static void test_roundtrip_avro(void) { roundtrip("avro"); }

/* Blob files hold one binary column; the data schema names it. */
static void test_roundtrip_blob(void) {
  const pm_format *fmt = pm_format_by_name("blob");
  char path[512];
  snprintf(path, sizeof path, "%s/rt.blob", tmpdir);
  struct ArrowSchema s;
  CHECK_OK(pm_schema_init(&s, "+s", "", 0, 1, &err), &err);
  pm_schema_release(s.children[0]);
  CHECK_OK(pm_schema_init(s.children[0], "z", "pic", ARROW_FLAG_NULLABLE, 0, &err), &err);
  set_id(s.children[0], 9);
  pm_format_writer *w = NULL;
  CHECK_OK(pm_format_writer_open(fmt, path, &s, NULL, &w, &err), &err);
  pm_builder *b;
  CHECK_OK(pm_builder_new_from_schema(&s, &b, &err), &err);
  for (int i = 0; i < 100; i++) {
    char v[300];
    memset(v, 'a' + i % 26, sizeof v);
    CHECK_OK(pm_builder_append_bytes(pm_builder_child(b, 0), v, (size_t)(i * 3), &err), &err);
    CHECK_OK(pm_builder_append_valid(b, &err), &err);
  }
  struct ArrowArray batch;
  CHECK_OK(pm_builder_finish(b, &batch, &err), &err);
  pm_builder_free(b);
  CHECK_OK(pm_format_writer_write(w, &batch, &err), &err);
  pm_format_write_result res;
  CHECK_OK(pm_format_writer_close(w, &res, &err), &err);
  CHECK_EQ_INT(res.row_count, 100);
  CHECK_EQ_INT(res.file_size, size_of(path));
  CHECK_EQ_INT(res.n_columns, 1);
  CHECK_EQ_INT(res.columns[0].null_count, 0);
  CHECK_EQ_INT(res.columns[0].field_id, 9);
  pm_format_write_result_free(&res);

  pm_format_read_options o;
  pm_format_read_options_init(&o);
  o.data_schema = &s;
  o.batch_rows = 30;
  pm_format_reader *r = open_reader(fmt, path, &o);
  struct ArrowSchema rs;
  CHECK_OK(pm_format_reader_schema(r, &rs, &err), &err);
  CHECK_EQ_INT(rs.n_children, 1);
  CHECK_EQ_STR(rs.children[0]->name, "pic");
  CHECK_EQ_INT(id_of(rs.children[0]), 9);
  pm_schema_release(&rs);
  int64_t rows = 0, bad = 0;
  for (;;) {
    struct ArrowArray a;
    CHECK_OK(pm_format_reader_next(r, &a, &err), &err);
    if (!a.release) break;
    const struct ArrowArray *c = a.children[0];
    const int32_t *off = (const int32_t *)c->buffers[1] + c->offset;
    for (int64_t i = 0; i < a.length; i++) {
      int64_t k = rows + i;
      if (off[i + 1] - off[i] != k * 3) bad++;
      for (int32_t j = off[i]; j < off[i + 1]; j++)
        if (((const char *)c->buffers[2])[j] != 'a' + k % 26) bad++;
    }
    rows += a.length;
    a.release(&a);
  }
  CHECK_EQ_INT(rows, 100);
  CHECK_EQ_INT(bad, 0);
  pm_format_reader_close(r);

  /* nulls are stored as Java does (index length -1, no record) and read back as nulls */
  CHECK_OK(pm_format_writer_open(fmt, path, &s, NULL, &w, &err), &err);
  batch.children[0]->null_count = -1;
  uint8_t *validity = calloc(16, 1);
  validity[0] = 0xFE;
  memset(validity + 1, 0xFF, 15);
  const void *old = batch.children[0]->buffers[0];
  batch.children[0]->buffers[0] = validity;
  CHECK_OK(pm_format_writer_write(w, &batch, &err), &err);
  batch.children[0]->buffers[0] = old;
  free(validity);
  CHECK_OK(pm_format_writer_close(w, &res, &err), &err);
  pm_format_write_result_free(&res);
  r = open_reader(fmt, path, &o);
  rows = 0, bad = 0;
  for (;;) {
    struct ArrowArray a;
    CHECK_OK(pm_format_reader_next(r, &a, &err), &err);
    if (!a.release) break;
    const struct ArrowArray *c = a.children[0];
    const int32_t *off = (const int32_t *)c->buffers[1] + c->offset;
    for (int64_t i = 0; i < a.length; i++) {
      int64_t k = rows + i;
      if (pm_array_is_valid(c, i) != (k != 0)) bad++;
      if (k && off[i + 1] - off[i] != k * 3) bad++;
    }
    rows += a.length;
    a.release(&a);
  }
  CHECK_EQ_INT(rows, 100);
  CHECK_EQ_INT(bad, 0);
  pm_format_reader_close(r);
  batch.release(&batch);
  /* a blob file holds exactly one column */
  struct ArrowSchema two;
  make_schema(&two);
  CHECK(pm_format_writer_open(fmt, path, &two, NULL, &w, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  pm_schema_release(&two);
  pm_schema_release(&s);
}

/* The same pm_fmt_predicate prunes Parquet row groups and ORC stripes/row groups. */
static void test_shared_predicate(void) {
  static const char *names[2] = {"parquet", "orc"};
  for (int f = 0; f < 2; f++) {
    const pm_format *fmt = pm_format_by_name(names[f]);
    char path[512];
    snprintf(path, sizeof path, "%s/rt.%s", tmpdir, names[f]); /* written by the round trip */
    pm_fmt_literal big = {PM_FMT_LIT_INT64, 5000, 0, NULL, 0}, five = {PM_FMT_LIT_INT64, 5, 0, NULL, 0};
    pm_fmt_literal zz = {PM_FMT_LIT_BYTES, 0, 0, (const uint8_t *)"zz", 2};
    struct {
      pm_fmt_predicate p;
      int64_t rows;
    } cases[] = {
        {{NULL, 1, PM_FMT_OP_GT, &big, 1}, 0},     /* by field id: pruned */
        {{"id", -1, PM_FMT_OP_GE, &big, 1}, 0},    /* by name */
        {{NULL, 1, PM_FMT_OP_EQ, &five, 1}, ROWS}, /* may match: everything is read, rows are not filtered */
        {{NULL, 2, PM_FMT_OP_GT, &zz, 1}, 0},      /* strings */
        {{NULL, 1, PM_FMT_OP_IS_NULL, NULL, 0}, 0},
        {{NULL, 77, PM_FMT_OP_EQ, &five, 1}, ROWS}, /* an id the file does not have never prunes */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
      pm_format_read_options o;
      pm_format_read_options_init(&o);
      int32_t ids[1] = {1};
      o.field_ids = ids;
      o.n_field_ids = 1;
      o.predicates = &cases[i].p;
      o.n_predicates = 1;
      pm_format_reader *r = open_reader(fmt, path, &o);
      int64_t rows = 0;
      for (;;) {
        struct ArrowArray a;
        CHECK_OK(pm_format_reader_next(r, &a, &err), &err);
        if (!a.release) break;
        rows += a.length;
        int64_t np;
        /* ORC prunes without reporting which rows: positions are unavailable with predicates */
        const int64_t *pos = pm_format_reader_positions(r, &np);
        CHECK(f == 0 ? pos != NULL : pos == NULL);
        a.release(&a);
      }
      CHECK_MSG(rows == cases[i].rows, "%s case %zu: %lld rows", names[f], i, (long long)rows);
      pm_format_reader_close(r);
    }
  }
}

#define WIDE 1500

/* 1,500 columns (ids 1..1500) through the interface: all of them, and a projection past 1024. */
static void test_wide(void) {
  static const char *names[3] = {"parquet", "orc", "avro"};
  struct ArrowSchema s;
  CHECK_OK(pm_schema_init(&s, "+s", "", 0, WIDE, &err), &err);
  for (int c = 0; c < WIDE; c++) {
    char nm[16];
    snprintf(nm, sizeof nm, "c%d", c);
    pm_schema_release(s.children[c]);
    CHECK_OK(pm_schema_init(s.children[c], "l", nm, ARROW_FLAG_NULLABLE, 0, &err), &err);
    set_id(s.children[c], c + 1);
  }
  pm_builder *b;
  CHECK_OK(pm_builder_new_from_schema(&s, &b, &err), &err);
  for (int r = 0; r < 10; r++) {
    for (int c = 0; c < WIDE; c++) CHECK_OK(pm_builder_append_int(pm_builder_child(b, c), r * WIDE + c, &err), &err);
    CHECK_OK(pm_builder_append_valid(b, &err), &err);
  }
  struct ArrowArray batch;
  CHECK_OK(pm_builder_finish(b, &batch, &err), &err);
  pm_builder_free(b);
  int32_t *ids = malloc(WIDE * sizeof *ids);
  for (int c = 0; c < WIDE; c++) ids[c] = c + 1;
  for (int f = 0; f < 3; f++) {
    const pm_format *fmt = pm_format_by_name(names[f]);
    char path[512];
    snprintf(path, sizeof path, "%s/wide.%s", tmpdir, names[f]);
    pm_format_writer *w = NULL;
    CHECK_OK(pm_format_writer_open(fmt, path, &s, NULL, &w, &err), &err);
    CHECK_OK(pm_format_writer_write(w, &batch, &err), &err);
    pm_format_write_result res;
    CHECK_OK(pm_format_writer_close(w, &res, &err), &err);
    CHECK_EQ_INT(res.n_columns, WIDE);
    CHECK_EQ_INT(res.columns[WIDE - 1].max.i64, 9 * WIDE + WIDE - 1);
    pm_format_write_result_free(&res);
    for (int pass = 0; pass < 2; pass++) {
      int32_t few[3] = {1500, 1025, 2};
      pm_format_read_options o;
      pm_format_read_options_init(&o);
      o.field_ids = pass ? few : ids;
      o.n_field_ids = pass ? 3 : WIDE;
      o.data_schema = &s;
      pm_format_reader *r = open_reader(fmt, path, &o);
      struct ArrowSchema rs;
      CHECK_OK(pm_format_reader_schema(r, &rs, &err), &err);
      CHECK_EQ_INT(rs.n_children, pass ? 3 : WIDE);
      int64_t rows = 0, bad = 0;
      for (;;) {
        struct ArrowArray a;
        CHECK_OK(pm_format_reader_next(r, &a, &err), &err);
        if (!a.release) break;
        for (int64_t k = 0; k < rs.n_children; k++) {
          int32_t c = id_of(rs.children[k]) - 1;
          const struct ArrowArray *col = a.children[k];
          for (int64_t i = 0; i < a.length; i++)
            if (((const int64_t *)col->buffers[1])[col->offset + i] != (rows + i) * WIDE + c) bad++;
        }
        rows += a.length;
        a.release(&a);
      }
      pm_schema_release(&rs);
      CHECK_MSG(rows == 10, "%s pass %d: %lld rows", names[f], pass, (long long)rows);
      CHECK_MSG(bad == 0, "%s pass %d: %lld wrong values", names[f], pass, (long long)bad);
      pm_format_reader_close(r);
    }
  }
  free(ids);
  batch.release(&batch);
  pm_schema_release(&s);
}

static void test_errors(void) {
  char path[512];
  snprintf(path, sizeof path, "%s/bad.parquet", tmpdir);
  struct ArrowSchema s;
  CHECK_OK(pm_schema_init(&s, "l", "x", 0, 0, &err), &err);
  pm_format_writer *w = NULL;
  CHECK(pm_format_writer_open(pm_format_by_name("parquet"), path, &s, NULL, &w, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  pm_schema_release(&s);
  make_schema(&s);
  pm_format_write_options wo;
  pm_format_write_options_init(&wo);
  wo.compression = "brotli-9000";
  CHECK(pm_format_writer_open(pm_format_by_name("orc"), path, &s, &wo, &w, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "brotli-9000") != NULL);
  /* a blob file without a data schema naming its column */
  pm_file *f;
  CHECK_OK(pm_file_from_memory("x", 1, "mem.blob", &f, &err), &err);
  pm_format_reader *r = NULL;
  CHECK(pm_format_reader_open(pm_format_by_name("blob"), f, NULL, &r, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  /* a truncated file is an error naming it, never a crash */
  static const char *fmts[3] = {"parquet", "orc", "avro"};
  for (int i = 0; i < 3; i++) {
    CHECK_OK(pm_file_from_memory("PAR1xxxxPAR1", 12, "short-file", &f, &err), &err);
    pm_format_read_options o;
    pm_format_read_options_init(&o);
    o.data_schema = &s;
    CHECK(pm_format_reader_open(pm_format_by_name(fmts[i]), f, &o, &r, &err) != 0);
    CHECK_MSG(strstr(err.message, "short-file") != NULL, "%s: %s", fmts[i], err.message);
  }
  pm_schema_release(&s);
}

/* The writers write to an output sink (io/file.h): a memory sink for every format, read back
 * from the bytes; a failing open gives the sink back (aborted: nothing left in the buffer). */
static void test_sink(void) {
  static const char *names[3] = {"parquet", "orc", "avro"};
  for (int i = 0; i < 3; i++) {
    const pm_format *fmt = pm_format_by_name(names[i]);
    pm_buf bytes;
    pm_buf_init(&bytes);
    pm_out_file *sink = NULL;
    CHECK_OK(pm_out_open_buf(&bytes, "mem-sink", &sink, &err), &err);
    struct ArrowSchema s;
    make_schema(&s);
    pm_format_write_options wo;
    pm_format_write_options_init(&wo);
    wo.row_group_rows = 1000; /* Parquet: three row groups */
    pm_format_writer *w = NULL;
    CHECK_OK(pm_format_writer_open(fmt, sink, &s, &wo, &w, &err), &err);
    for (int k = 0; w && k < 3; k++) {
      struct ArrowArray b;
      make_batch(&s, k * 1000, 1000, &b);
      CHECK_OK(pm_format_writer_write(w, &b, &err), &err);
      b.release(&b);
    }
    pm_format_write_result res;
    CHECK_OK(pm_format_writer_close(w, &res, &err), &err);
    CHECK_EQ_INT(res.row_count, ROWS);
    CHECK_MSG(res.file_size == bytes.len && bytes.len > 0, "%s: size %llu, %zu bytes", names[i],
              (unsigned long long)res.file_size, bytes.len);
    pm_format_write_result_free(&res);
    pm_file *f = NULL;
    CHECK_OK(pm_file_from_memory(bytes.data, bytes.len, "mem-sink", &f, &err), &err);
    pm_format_read_options o;
    pm_format_read_options_init(&o);
    o.data_schema = &s;
    pm_format_reader *r = NULL;
    CHECK_OK(pm_format_reader_open(fmt, f, &o, &r, &err), &err);
    int64_t rows = 0, bad = 0;
    for (;;) {
      struct ArrowArray a;
      CHECK_OK(pm_format_reader_next(r, &a, &err), &err);
      if (!a.release) break;
      for (int64_t j = 0; j < a.length; j++)
        if (((const int64_t *)a.children[0]->buffers[1])[a.children[0]->offset + j] != rows + j) bad++;
      rows += a.length;
      a.release(&a);
    }
    CHECK_MSG(rows == ROWS && bad == 0, "%s: %lld rows, %lld wrong", names[i], (long long)rows, (long long)bad);
    pm_format_reader_close(r);
    /* an unknown codec: the sink is aborted by the failing open */
    size_t before = bytes.len;
    CHECK_OK(pm_out_open_buf(&bytes, "mem-sink-2", &sink, &err), &err);
    CHECK_OK(pm_out_write(sink, "junk", 4, &err), &err);
    wo.compression = "brotli-9000";
    CHECK(pm_format_writer_open(fmt, sink, &s, &wo, &w, &err) == PAIMON_ERR_INVALID_ARGUMENT);
    CHECK(w == NULL);
    CHECK_EQ_INT(bytes.len, before);
    pm_schema_release(&s);
    pm_buf_free(&bytes);
  }
  /* the path form still works (thin wrapper) */
  char path[512];
  snprintf(path, sizeof path, "%s/path-form.parquet", tmpdir);
  struct ArrowSchema s;
  make_schema(&s);
  pm_format_writer *w = NULL;
  CHECK_OK(pm_format_writer_open_path(pm_format_by_name("parquet"), path, &s, NULL, &w, &err), &err);
  pm_format_write_result res;
  CHECK_OK(pm_format_writer_close(w, &res, &err), &err);
  CHECK_EQ_INT(res.file_size, size_of(path));
  pm_format_write_result_free(&res);
  pm_schema_release(&s);
}

int main(void) {
  snprintf(tmpdir, sizeof tmpdir, "%s/pm_format_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(tmpdir)) return 1;
  RUN_TEST(test_registry);
  RUN_TEST(test_roundtrip_parquet);
  RUN_TEST(test_roundtrip_orc);
  RUN_TEST(test_roundtrip_avro);
  RUN_TEST(test_roundtrip_blob);
  RUN_TEST(test_shared_predicate);
  RUN_TEST(test_wide);
  RUN_TEST(test_errors);
  RUN_TEST(test_sink);
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
  TEST_MAIN_END();
}
