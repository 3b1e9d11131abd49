/*
 * System tables through the public read path (issue 10 #1): a system-table
 * handle (paimon_catalog_get_system_table) takes projections, predicates,
 * filters and limits like a data table; the filter is exact and unknown
 * columns fail. Checked on every system table against its unfiltered rows.
 */
#include <time.h>

#include "harness.h"
#include "paimon/paimon.h"

#define WH PM_SHARED("fixtures/warehouse/parquet")

static paimon_error err;
static paimon_catalog *cat;

static const char *const SYSTEM_TABLES[] = {"snapshots", "schemas",  "options",  "files",
                                            "partitions", "tags", "branches", "manifests"};

/* A read result: column names and rows of cells as text (NULL cell = SQL NULL). */
typedef struct result {
  int rc;
  size_t n_cols;
  char *names[32];
  char formats[32][16];
  size_t n_rows;
  char **cells; /* n_rows * n_cols */
} result;

static void result_free(result *r) {
  for (size_t i = 0; i < r->n_cols; i++) free(r->names[i]);
  for (size_t i = 0; i < r->n_rows * r->n_cols; i++) free(r->cells[i]);
  free(r->cells);
  memset(r, 0, sizeof *r);
}

static char *cell_text(const struct ArrowSchema *sc, const struct ArrowArray *a, int64_t i) {
  int64_t j = a->offset + i;
  const uint8_t *valid = a->buffers[0];
  if (valid && !((valid[j >> 3] >> (j & 7)) & 1)) return NULL;
  char buf[64];
  if (!strcmp(sc->format, "l") || !strncmp(sc->format, "ts", 2)) {
    snprintf(buf, sizeof buf, "%lld", (long long)((const int64_t *)a->buffers[1])[j]);
  } else if (!strcmp(sc->format, "i")) {
    snprintf(buf, sizeof buf, "%d", (int)((const int32_t *)a->buffers[1])[j]);
  } else if (!strcmp(sc->format, "u")) {
    const int32_t *off = a->buffers[1];
    const char *data = a->buffers[2];
    size_t len = (size_t)(off[j + 1] - off[j]);
    char *s = malloc(len + 1);
    memcpy(s, data + off[j], len);
    s[len] = 0;
    return s;
  } else {
    snprintf(buf, sizeof buf, "?%s", sc->format);
  }
  return strdup(buf);
}

/* Reads system table `sys` of pk_09 through a builder with the given settings. */
static result read_sys(const char *ident, const paimon_option *opts, size_t n_opts, const char *const *cols,
                       size_t n_cols, const char *where, int64_t limit) {
  result r;
  memset(&r, 0, sizeof r);
  paimon_table *t = NULL;
  paimon_read_builder *rb = NULL;
  paimon_plan *plan = NULL;
  struct ArrowArrayStream s;
  memset(&s, 0, sizeof s);
  r.rc = paimon_catalog_get_system_table(cat, ident, &t, &err);
  if (!r.rc) r.rc = paimon_read_builder_new(t, opts, n_opts, &rb, &err);
  if (!r.rc && n_cols) r.rc = paimon_read_builder_with_projection(rb, cols, n_cols, &err);
  if (!r.rc && where) {
    paimon_predicate *p = NULL;
    r.rc = paimon_predicate_parse(rb, where, &p, &err);
    if (!r.rc) r.rc = paimon_read_builder_with_filter(rb, p, &err);
  }
  if (!r.rc && limit >= 0) paimon_read_builder_with_limit(rb, limit);
  if (!r.rc) r.rc = paimon_read_builder_plan(rb, &plan, &err);
  if (!r.rc) CHECK_EQ_INT(paimon_plan_num_splits(plan), 0);
  if (!r.rc) r.rc = paimon_read_plan(rb, plan, &s, &err);
  /* the stream outlives its builder, plan and table */
  paimon_plan_free(plan);
  paimon_read_builder_free(rb);
  paimon_table_free(t);
  if (r.rc) return r;
  struct ArrowSchema sc;
  CHECK(s.get_schema(&s, &sc) == 0);
  r.n_cols = (size_t)sc.n_children;
  for (size_t c = 0; c < r.n_cols && c < 32; c++) {
    r.names[c] = strdup(sc.children[c]->name);
    snprintf(r.formats[c], sizeof r.formats[c], "%s", sc.children[c]->format);
  }
  struct ArrowArray b;
  while (s.get_next(&s, &b) == 0 && b.release) {
    CHECK_EQ_INT(b.n_children, (int64_t)r.n_cols);
    r.cells = realloc(r.cells, (r.n_rows + (size_t)b.length) * r.n_cols * sizeof *r.cells + 1);
    for (int64_t i = 0; i < b.length; i++, r.n_rows++)
      for (size_t c = 0; c < r.n_cols; c++) r.cells[r.n_rows * r.n_cols + c] = cell_text(sc.children[c], b.children[c], i);
    b.release(&b);
  }
  sc.release(&sc);
  s.release(&s);
  return r;
}

static const char *cell(const result *r, size_t row, size_t col) { return r->cells[row * r->n_cols + col]; }
static int same(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

/* The example of the issue: --select snapshot_id,commit_kind --where "commit_kind = 'COMPACT'". */
static void test_select_where_snapshots(void) {
  result all = read_sys("pk_09.pk_09$snapshots", NULL, 0, NULL, 0, NULL, -1);
  CHECK_OK(all.rc, &err);
  CHECK_EQ_INT(all.n_rows, 8);
  size_t compacts = 0;
  for (size_t i = 0; i < all.n_rows; i++) compacts += same(cell(&all, i, 4), "COMPACT");
  CHECK(compacts > 0 && compacts < all.n_rows);
  const char *cols[] = {"snapshot_id", "commit_kind"};
  result r = read_sys("pk_09.pk_09$snapshots", NULL, 0, cols, 2, "commit_kind = 'COMPACT'", -1);
  CHECK_OK(r.rc, &err);
  CHECK_EQ_INT(r.n_cols, 2);
  if (r.n_cols == 2) {
    CHECK_EQ_STR(r.names[0], "snapshot_id");
    CHECK_EQ_STR(r.names[1], "commit_kind");
  }
  CHECK_EQ_INT(r.n_rows, compacts);
  for (size_t i = 0, k = 0; r.n_cols == 2 && i < all.n_rows; i++) {
    if (!same(cell(&all, i, 4), "COMPACT")) continue;
    CHECK(k < r.n_rows && same(cell(&r, k, 0), cell(&all, i, 0)) && same(cell(&r, k, 1), "COMPACT"));
    k++;
  }
  result_free(&r);
  /* limit, and a range filter on a BIGINT column */
  r = read_sys("pk_09.pk_09$snapshots", NULL, 0, cols, 2, "snapshot_id > 2 and snapshot_id <= 5", 2);
  CHECK_OK(r.rc, &err);
  CHECK_EQ_INT(r.n_rows, 2);
  if (r.n_rows == 2) {
    CHECK_EQ_STR(cell(&r, 0, 0), "3");
    CHECK_EQ_STR(cell(&r, 1, 0), "4");
  }
  result_free(&r);
  result_free(&all);
}

static void test_unknown_columns_fail(void) {
  for (size_t k = 0; k < sizeof SYSTEM_TABLES / sizeof SYSTEM_TABLES[0]; k++) {
    char ident[128];
    snprintf(ident, sizeof ident, "pk_09.pk_09$%s", SYSTEM_TABLES[k]);
    const char *bad[] = {"nosuchcol"};
    result r = read_sys(ident, NULL, 0, bad, 1, NULL, -1);
    CHECK_MSG(r.rc == PAIMON_ERR_NOT_FOUND && strstr(err.message, "nosuchcol"), "%s: %d %s", ident, r.rc,
              err.message);
    result_free(&r);
    r = read_sys(ident, NULL, 0, NULL, 0, "nosuchcol = 1", -1);
    CHECK_MSG(r.rc != 0 && strstr(err.message, "nosuchcol"), "%s: %d %s", ident, r.rc, err.message);
    result_free(&r);
    /* a data column of pk_09 is no column of its system tables */
    const char *data_col[] = {"f0"};
    r = read_sys(ident, NULL, 0, data_col, 1, NULL, -1);
    CHECK_EQ_INT(r.rc, PAIMON_ERR_NOT_FOUND);
    result_free(&r);
  }
  paimon_table *t = NULL;
  CHECK(paimon_catalog_get_system_table(cat, "pk_09.pk_09$nope", &t, &err) == PAIMON_ERR_NOT_FOUND);
  CHECK(paimon_catalog_get_system_table(cat, "pk_09.pk_09", &t, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(t == NULL);
}

/* Every system table, every column: projection keeps the values, `c is null`,
 * `c is not null` and `c = <value of some row>` select exactly the matching rows. */
static void exact_on(const char *ident) {
  result all = read_sys(ident, NULL, 0, NULL, 0, NULL, -1);
  CHECK_MSG(all.rc == 0, "%s: %s", ident, err.message);
  if (all.rc) return;
  /* the handle reads what paimon_catalog_read_system_table reads */
  struct ArrowArrayStream s;
  CHECK_OK(paimon_catalog_read_system_table(cat, ident, &s, &err), &err);
  int64_t n = 0;
  struct ArrowArray b;
  while (s.release && s.get_next(&s, &b) == 0 && b.release) {
    n += b.length;
    b.release(&b);
  }
  if (s.release) s.release(&s);
  CHECK_EQ_INT(n, all.n_rows);
  for (size_t c = 0; c < all.n_cols; c++) {
    const char *name = all.names[c];
    const char *cols[] = {name, all.names[0]};
    result p = read_sys(ident, NULL, 0, cols, 2, NULL, -1);
    CHECK_OK(p.rc, &err);
    CHECK(p.n_cols == 2 && p.n_rows == all.n_rows);
    for (size_t i = 0; p.n_cols == 2 && i < p.n_rows && i < all.n_rows; i++)
      CHECK(same(cell(&p, i, 0), cell(&all, i, c)) && same(cell(&p, i, 1), cell(&all, i, 0)));
    result_free(&p);
    for (int neg = 0; neg < 2; neg++) {
      char where[256];
      snprintf(where, sizeof where, "%s is %snull", name, neg ? "not " : "");
      result f = read_sys(ident, NULL, 0, NULL, 0, where, -1);
      CHECK_MSG(f.rc == 0, "%s %s: %s", ident, where, err.message);
      size_t want = 0;
      for (size_t i = 0; i < all.n_rows; i++) want += (cell(&all, i, c) == NULL) != neg;
      CHECK_MSG(f.n_rows == want, "%s %s: %zu rows, want %zu", ident, where, f.n_rows, want);
      result_free(&f);
    }
    /* equality with the value of the last non-null row (strings and integers) */
    const char *v = NULL;
    for (size_t i = 0; i < all.n_rows; i++)
      if (cell(&all, i, c)) v = cell(&all, i, c);
    int is_str = !strcmp(all.formats[c], "u"), is_int = !strcmp(all.formats[c], "l") || !strcmp(all.formats[c], "i");
    if (!v || (!is_str && !is_int)) continue;
    size_t len = strlen(v);
    char *where = malloc(2 * len + strlen(name) + 16);
    char *w = where + sprintf(where, "%s = %s", name, is_str ? "'" : "");
    for (const char *q = v; *q; q++) {
      if (*q == '\'' && is_str) *w++ = '\'';
      *w++ = *q;
    }
    strcpy(w, is_str ? "'" : "");
    result f = read_sys(ident, NULL, 0, NULL, 0, where, -1);
    CHECK_MSG(f.rc == 0, "%s %s: %s", ident, where, err.message);
    size_t k = 0;
    for (size_t i = 0; i < all.n_rows; i++) {
      if (!same(cell(&all, i, c), v)) continue;
      CHECK(k < f.n_rows && same(cell(&f, k, 0), cell(&all, i, 0)));
      k++;
    }
    CHECK_MSG(f.n_rows == k, "%s %s: %zu rows, want %zu", ident, where, f.n_rows, k);
    result_free(&f);
    free(where);
  }
  result_free(&all);
}

static void test_exact_on_every_system_table(void) {
  for (size_t k = 0; k < sizeof SYSTEM_TABLES / sizeof SYSTEM_TABLES[0]; k++) {
    char ident[128];
    snprintf(ident, sizeof ident, "pk_09.pk_09$%s", SYSTEM_TABLES[k]);
    exact_on(ident);
    snprintf(ident, sizeof ident, "append_09.append_09$%s", SYSTEM_TABLES[k]);
    exact_on(ident);
  }
  exact_on("append_table_with_rt_branch.append_table_with_rt_branch$branches");
}

/* Dynamic options still apply: $files at snapshot 1, filtered. */
static void test_time_travel_with_filter(void) {
  paimon_option s1[] = {{"scan.snapshot-id", "1"}};
  const char *cols[] = {"record_count", "bucket"};
  result all = read_sys("pk_09.pk_09$files", s1, 1, cols, 2, NULL, -1);
  CHECK_OK(all.rc, &err);
  int64_t sum = 0;
  for (size_t i = 0; i < all.n_rows; i++) sum += atoll(cell(&all, i, 0));
  CHECK_EQ_INT(sum, 9); /* snapshot-1 of pk_09: totalRecordCount 9 */
  result f = read_sys("pk_09.pk_09$files", s1, 1, cols, 2, "bucket = 0", -1);
  CHECK_OK(f.rc, &err);
  size_t want = 0;
  for (size_t i = 0; i < all.n_rows; i++) want += same(cell(&all, i, 1), "0");
  CHECK_EQ_INT(f.n_rows, want);
  for (size_t i = 0; i < f.n_rows; i++) CHECK_EQ_STR(cell(&f, i, 1), "0");
  result_free(&f);
  result_free(&all);
}

static void test_handle_properties(void) {
  paimon_table *t = NULL;
  CHECK_OK(paimon_catalog_get_system_table(cat, "pk_09.pk_09$snapshots", &t, &err), &err);
  if (!t) return;
  CHECK_EQ_STR(paimon_table_identifier(t), "pk_09.pk_09$snapshots");
  CHECK_EQ_INT(paimon_table_num_primary_keys(t), 0);
  CHECK_EQ_INT(paimon_table_num_partition_keys(t), 0);
  struct ArrowSchema sc;
  CHECK_OK(paimon_table_arrow_schema(t, &sc, &err), &err);
  CHECK_EQ_INT(sc.n_children, 14);
  if (sc.n_children == 14) {
    CHECK_EQ_STR(sc.children[0]->name, "snapshot_id");
    CHECK(!strncmp(sc.children[5]->format, "tsm:", 4)); /* milliseconds (an instant: "tsm:UTC") */
  }
  sc.release(&sc);
  paimon_read_builder *rb = NULL;
  CHECK_OK(paimon_read_builder_new(t, NULL, 0, &rb, &err), &err);
  /* case-insensitive names, as for data tables */
  paimon_read_builder_with_case_sensitive(rb, 0);
  const char *cols[] = {"COMMIT_KIND"};
  CHECK_OK(paimon_read_builder_with_projection(rb, cols, 1, &err), &err);
  CHECK_OK(paimon_read_builder_read_schema(rb, &sc, &err), &err);
  CHECK(sc.n_children == 1 && !strcmp(sc.children[0]->name, "commit_kind"));
  sc.release(&sc);
  /* system columns of data tables and row kinds do not apply */
  const char *rid[] = {"_ROW_ID"};
  CHECK_EQ_INT(paimon_read_builder_with_projection(rb, rid, 1, &err), PAIMON_ERR_NOT_FOUND);
  paimon_read_builder_with_row_kind(rb, 1);
  paimon_plan *plan = NULL;
  CHECK_OK(paimon_read_builder_plan(rb, &plan, &err), &err);
  struct ArrowArrayStream s;
  CHECK_EQ_INT(paimon_read_plan(rb, plan, &s, &err), PAIMON_ERR_INVALID_ARGUMENT);
  paimon_plan_free(plan);
  paimon_read_builder_free(rb);
  paimon_table_free(t);
}

int main(void) {
  paimon_option o[] = {{"warehouse", WH}};
  CHECK_OK(paimon_catalog_open(o, 1, &cat, &err), &err);
  if (!cat) TEST_MAIN_END();
  RUN_TEST(test_select_where_snapshots);
  RUN_TEST(test_unknown_columns_fail);
  RUN_TEST(test_exact_on_every_system_table);
  RUN_TEST(test_time_travel_with_filter);
  RUN_TEST(test_handle_properties);
  paimon_catalog_free(cat);
  TEST_MAIN_END();
}
