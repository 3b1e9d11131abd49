/* include/paimon/file.h through the public API only: a Java-written Parquet
 * data file read whole, projected and limited; written again as Parquet, ORC
 * and Avro (zstd) and read back value for value; a Java-written Avro data
 * file typed from its writer schema; errors name the file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "paimon/paimon.h"

static paimon_error err;
static char pq_path[1024], avro_path[1024], tmpdir[256];

static int find_file(const char *dir, const char *suffix, char *out, size_t cap) {
  char cmd[1400];
  snprintf(cmd, sizeof cmd, "find %s -name '*%s' -path '*bucket-0*' | sort | head -1", dir, suffix);
  FILE *p = popen(cmd, "r");
  if (!p) return -1;
  if (!fgets(out, (int)cap, p)) out[0] = 0;
  pclose(p);
  out[strcspn(out, "\n")] = 0;
  return out[0] ? 0 : -1;
}

/* Rows of a stream as "f0|f1|f2|f3" lines (string, int32, int32, double children by name). */
typedef struct rows_text {
  char *text;
  size_t len, cap;
  int64_t rows;
} rows_text;

static void put(rows_text *t, const char *s) {
  size_t n = strlen(s);
  if (t->len + n + 1 > t->cap) {
    t->cap = (t->len + n + 1) * 2;
    t->text = realloc(t->text, t->cap);
  }
  memcpy(t->text + t->len, s, n + 1);
  t->len += n;
}

static int is_valid(const struct ArrowArray *a, int64_t i) {
  const uint8_t *v = a->null_count && a->buffers[0] ? a->buffers[0] : NULL;
  int64_t k = a->offset + i;
  return !v || (v[k >> 3] >> (k & 7) & 1);
}

static void collect(struct ArrowArrayStream *s, rows_text *t) {
  memset(t, 0, sizeof *t);
  put(t, "");
  struct ArrowSchema sc;
  CHECK_EQ_INT(s->get_schema(s, &sc), 0);
  int col[4] = {-1, -1, -1, -1};
  static const char *names[4] = {"f0", "f1", "f2", "f3"};
  for (int64_t i = 0; i < sc.n_children; i++)
    for (int k = 0; k < 4; k++)
      if (!strcmp(sc.children[i]->name, names[k])) col[k] = (int)i;
  for (;;) {
    struct ArrowArray a;
    if (s->get_next(s, &a) != 0) {
      CHECK_MSG(0, "get_next: %s", s->get_last_error(s));
      break;
    }
    if (!a.release) break;
    for (int64_t r = 0; r < a.length; r++) {
      char line[256] = "", cell[96];
      for (int k = 0; k < 4; k++) {
        const struct ArrowArray *c = col[k] >= 0 ? a.children[col[k]] : NULL;
        if (!c) strcpy(cell, "-");
        else if (!is_valid(c, r)) strcpy(cell, "null");
        else if (k == 0) {
          const int32_t *off = (const int32_t *)c->buffers[1] + c->offset;
          snprintf(cell, sizeof cell, "%.*s", (int)(off[r + 1] - off[r]), (const char *)c->buffers[2] + off[r]);
        } else if (k == 3) snprintf(cell, sizeof cell, "%.17g", ((const double *)c->buffers[1])[c->offset + r]);
        else snprintf(cell, sizeof cell, "%d", ((const int32_t *)c->buffers[1])[c->offset + r]);
        strcat(line, cell);
        strcat(line, k < 3 ? "|" : "\n");
      }
      put(t, line);
      t->rows++;
    }
    a.release(&a);
  }
  sc.release(&sc);
  s->release(s);
  CHECK(s->release == NULL);
}

static void read_all(const char *path, const paimon_file_read_options *o, rows_text *t) {
  struct ArrowArrayStream s;
  memset(t, 0, sizeof *t);
  if (paimon_file_open(path, o, &s, &err) != PAIMON_OK) {
    CHECK_MSG(0, "%s: %s", path, err.message);
    put(t, "");
    return;
  }
  collect(&s, t);
}

static void test_read_parquet(void) {
  rows_text all, some;
  read_all(pq_path, NULL, &all);
  CHECK(all.rows > 0);
  CHECK(strstr(all.text, "Alice|10|") != NULL);
  struct ArrowSchema sc;
  CHECK_OK(paimon_file_arrow_schema(pq_path, NULL, &sc, &err), &err);
  CHECK_EQ_INT(sc.n_children, 4);
  if (sc.n_children == 4) CHECK_EQ_STR(sc.children[3]->name, "f3");
  sc.release(&sc);
  /* projection in the given order + limit 1: the first row's f3 and f0 */
  paimon_file_read_options o;
  paimon_file_read_options_init(&o);
  const char *cols[2] = {"f3", "f0"};
  o.columns = cols;
  o.n_columns = 2;
  o.limit = 1;
  struct ArrowArrayStream s;
  CHECK_OK(paimon_file_open(pq_path, &o, &s, &err), &err);
  CHECK_EQ_INT(s.get_schema(&s, &sc), 0);
  CHECK_EQ_INT(sc.n_children, 2);
  if (sc.n_children == 2) CHECK_EQ_STR(sc.children[0]->name, "f3");
  sc.release(&sc);
  collect(&s, &some);
  CHECK_EQ_INT(some.rows, 1);
  char first[256];
  snprintf(first, sizeof first, "%s", all.text);
  first[strcspn(first, "\n")] = 0;
  char want[300];
  const char *f0_end = strchr(first, '|');
  const char *f3 = strrchr(first, '|') + 1;
  snprintf(want, sizeof want, "%.*s|-|-|%s\n", (int)(f0_end - first), first, f3);
  CHECK_EQ_STR(some.text, want);
  free(some.text);
  /* batch size */
  paimon_file_read_options_init(&o);
  o.batch_rows = 1;
  read_all(pq_path, &o, &some);
  CHECK_EQ_STR(some.text, all.text);
  free(some.text);
  /* limit 0 */
  paimon_file_read_options_init(&o);
  o.limit = 0;
  read_all(pq_path, &o, &some);
  CHECK_EQ_INT(some.rows, 0);
  free(some.text);
  free(all.text);
}

static void test_write_read_back(void) {
  static const char *formats[3] = {"parquet", "orc", "avro"};
  rows_text want;
  read_all(pq_path, NULL, &want);
  for (int i = 0; i < 3; i++) {
    char out[512];
    snprintf(out, sizeof out, "%s/copy.%s", tmpdir, formats[i]);
    struct ArrowArrayStream in;
    CHECK_OK(paimon_file_open(pq_path, NULL, &in, &err), &err);
    paimon_file_write_options wo;
    paimon_file_write_options_init(&wo);
    wo.format = formats[i];
    wo.compression = "zstd";
    wo.row_group_rows = 2;
    int64_t rows = -1;
    CHECK_OK(paimon_file_write(out, &wo, &in, &rows, &err), &err);
    CHECK(in.release == NULL);
    CHECK_EQ_INT(rows, want.rows);
    rows_text got;
    read_all(out, NULL, &got);
    CHECK_MSG(!strcmp(got.text, want.text), "%s: read back differs:\n%s\nvs\n%s", formats[i], got.text, want.text);
    free(got.text);
  }
  /* a failing write leaves nothing behind and still releases the stream */
  char bad[512];
  snprintf(bad, sizeof bad, "%s/bad.orc", tmpdir);
  struct ArrowArrayStream in;
  CHECK_OK(paimon_file_open(pq_path, NULL, &in, &err), &err);
  paimon_file_write_options wo;
  paimon_file_write_options_init(&wo);
  wo.format = "orc";
  wo.compression = "brotli-9000";
  CHECK(paimon_file_write(bad, &wo, &in, NULL, &err) != PAIMON_OK);
  CHECK(strstr(err.message, "brotli-9000") != NULL);
  CHECK(in.release == NULL);
  CHECK(access(bad, F_OK) != 0);
  free(want.text);
}

static void test_read_avro_fixture(void) {
  struct ArrowSchema sc;
  CHECK_OK(paimon_file_arrow_schema(avro_path, NULL, &sc, &err), &err);
  CHECK(sc.n_children > 0);
  int64_t n_children = sc.n_children;
  sc.release(&sc);
  struct ArrowArrayStream s;
  CHECK_OK(paimon_file_open(avro_path, NULL, &s, &err), &err);
  int64_t rows = 0;
  for (;;) {
    struct ArrowArray a;
    CHECK_EQ_INT(s.get_next(&s, &a), 0);
    if (!a.release) break;
    CHECK_EQ_INT(a.n_children, n_children);
    rows += a.length;
    a.release(&a);
  }
  s.release(&s);
  CHECK(rows > 0);
}

static void test_errors(void) {
  struct ArrowArrayStream s;
  CHECK(paimon_file_open("/nonexistent/x.parquet", NULL, &s, &err) == PAIMON_ERR_NOT_FOUND);
  CHECK(strstr(err.message, "/nonexistent/x.parquet") != NULL);
  CHECK(paimon_file_open("/tmp/x.unknown", NULL, &s, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "x.unknown") != NULL);
  paimon_file_read_options o;
  paimon_file_read_options_init(&o);
  const char *cols[1] = {"nope"};
  o.columns = cols;
  o.n_columns = 1;
  CHECK(paimon_file_open(pq_path, &o, &s, &err) == PAIMON_ERR_NOT_FOUND);
  CHECK(paimon_file_open(avro_path, &o, &s, &err) == PAIMON_ERR_NOT_FOUND);
  CHECK(strstr(err.message, "nope") != NULL);
  o.columns = NULL;
  o.format = "orc"; /* a Parquet file read as ORC: an error naming it */
  CHECK(paimon_file_open(pq_path, &o, &s, &err) != PAIMON_OK);
  CHECK(strstr(err.message, pq_path) != NULL);
}

int main(void) {
  if (find_file(PM_SHARED("fixtures/warehouse/parquet/append_09.db"), ".parquet", pq_path,
                sizeof pq_path) ||
      find_file(PM_SHARED("fixtures/warehouse/avro"), ".avro", avro_path, sizeof avro_path)) {
    fprintf(stderr, "fixtures not found\n");
    return 1;
  }
  snprintf(tmpdir, sizeof tmpdir, "%s/pm_api_file_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(tmpdir)) return 1;
  RUN_TEST(test_read_parquet);
  RUN_TEST(test_write_read_back);
  RUN_TEST(test_read_avro_fixture);
  RUN_TEST(test_errors);
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
  TEST_MAIN_END();
}
