/*
 * Compatibility: every value we decode must equal what DuckDB reads
 * (`parquet-dump FILE --canon`), for files written by DuckDB (parquet-gen,
 * all codecs, page v1/v2, several row groups) and for every Java-written
 * fixture file. Also checks projection, row ranges and batch positions.
 */
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arrow/arrow.h"
#include "format/parquet/parquet_meta.h"
#include "format/parquet/parquet_reader.h"
#include "harness.h"

#define TOOLS PM_SHARED("tools")

static char tmpdir[256];
static int oracle_ok = 0;

static int run(const char *cmd) {
  int rc = system(cmd);
  return rc;
}

/* Runs shell commands with up to `jobs` at a time (the oracle tools are slow to start). */
static int run_parallel(char **cmds, int n, int jobs) {
  int running = 0, failed = 0, next = 0;
  while (next < n || running > 0) {
    while (next < n && running < jobs) {
      pid_t pid = fork();
      if (pid == 0) {
        execl("/bin/sh", "sh", "-c", cmds[next], (char *)NULL);
        _exit(127);
      }
      if (pid < 0) return -1;
      running++;
      next++;
    }
    int st;
    if (wait(&st) > 0) {
      running--;
      if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) failed++;
    } else {
      break;
    }
  }
  return failed;
}

/* ---- canonical JSON of Arrow values (the form of js/common.mjs) ---- */

static json_t *hexstr(const uint8_t *p, size_t n) {
  char *s = malloc(2 * n + 3);
  s[0] = '0';
  s[1] = 'x';
  for (size_t i = 0; i < n; i++) sprintf(s + 2 + 2 * i, "%02x", p[i]);
  s[2 + 2 * n] = 0;
  json_t *j = json_string(s);
  free(s);
  return j;
}

static json_t *decimal_json(const uint8_t *p, int scale) {
  __int128 v;
  memcpy(&v, p, 16);
  int neg = v < 0;
  unsigned __int128 u = neg ? (unsigned __int128)(-(v + 1)) + 1 : (unsigned __int128)v;
  char digits[64];
  int n = 0;
  do {
    digits[n++] = (char)('0' + (int)(u % 10));
    u /= 10;
  } while (u);
  while (n <= scale) digits[n++] = '0';
  char out[80];
  int k = 0;
  if (neg) out[k++] = '-';
  for (int i = n - 1; i >= 0; i--) {
    out[k++] = digits[i];
    if (i == scale && scale > 0) out[k++] = '.';
  }
  out[k] = 0;
  return json_string(out);
}

static json_t *double_json(double d) {
  if (isnan(d)) return json_string("NaN");
  if (isinf(d)) return json_string(d > 0 ? "Infinity" : "-Infinity");
  return json_real(d);
}

static json_t *value_json(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i) {
  int64_t j = i + a->offset;
  const uint8_t *valid = a->buffers[0];
  if (a->null_count && valid && !pm_bit_get(valid, j)) return json_null();
  const char *f = s->format;
  const void *b1 = a->n_buffers > 1 ? a->buffers[1] : NULL;
  switch (f[0]) {
    case 'b': return json_boolean(pm_bit_get(b1, j));
    case 'c': return json_integer(((const int8_t *)b1)[j]);
    case 'C': return json_integer(((const uint8_t *)b1)[j]);
    case 's': return json_integer(((const int16_t *)b1)[j]);
    case 'S': return json_integer(((const uint16_t *)b1)[j]);
    case 'i': return json_integer(((const int32_t *)b1)[j]);
    case 'I': return json_integer(((const uint32_t *)b1)[j]);
    case 'l': return json_integer(((const int64_t *)b1)[j]);
    case 'L': return json_integer((json_int_t)((const uint64_t *)b1)[j]);
    case 'f': return double_json(((const float *)b1)[j]);
    case 'g': return double_json(((const double *)b1)[j]);
    case 'u': {
      const int32_t *o = b1;
      return json_stringn((const char *)a->buffers[2] + o[j], (size_t)(o[j + 1] - o[j]));
    }
    case 'z': {
      const int32_t *o = b1;
      return hexstr((const uint8_t *)a->buffers[2] + o[j], (size_t)(o[j + 1] - o[j]));
    }
    case 'w': {
      int w = atoi(f + 2);
      return hexstr((const uint8_t *)b1 + (size_t)j * (size_t)w, (size_t)w);
    }
    case 'd': {
      const char *comma = strchr(f, ',');
      return decimal_json((const uint8_t *)b1 + 16 * j, atoi(comma + 1));
    }
    case 't': {
      if (f[1] == 'd') return json_integer(((const int32_t *)b1)[j]);
      if (f[1] == 't') {
        if (f[2] == 'm') return json_integer((json_int_t)((const int32_t *)b1)[j] * 1000000);
        int64_t v = ((const int64_t *)b1)[j];
        return json_integer(f[2] == 'u' ? v * 1000 : v);
      }
      int64_t v = ((const int64_t *)b1)[j];
      int64_t mul = f[2] == 'm' ? 1000000 : f[2] == 'u' ? 1000 : f[2] == 's' ? 1000000000 : 1;
      return json_integer(v * mul);
    }
    case '+': {
      if (f[1] == 's') {
        json_t *o = json_object();
        for (int64_t c = 0; c < s->n_children; c++)
          json_object_set_new(o, s->children[c]->name, value_json(s->children[c], a->children[c], j));
        return o;
      }
      const int32_t *off = b1;
      json_t *arr = json_array();
      for (int32_t k = off[j]; k < off[j + 1]; k++) {
        if (f[1] == 'm') {
          const struct ArrowSchema *es = s->children[0];
          const struct ArrowArray *ea = a->children[0];
          json_t *pair = json_array();
          json_array_append_new(pair, value_json(es->children[0], ea->children[0], k + ea->offset));
          json_array_append_new(pair, value_json(es->children[1], ea->children[1], k + ea->offset));
          json_array_append_new(arr, pair);
        } else {
          json_array_append_new(arr, value_json(s->children[0], a->children[0], k));
        }
      }
      return arr;
    }
  }
  return json_string("?unsupported");
}

static int int96_tolerance = 0;

static int same(json_t *exp, json_t *got) {
  if (json_is_integer(exp) && json_is_integer(got)) {
    long long a = json_integer_value(exp), b = json_integer_value(got);
    if (int96_tolerance) return llabs(a - b) < 1000;
    return a == b;
  }
  if (json_is_number(exp) && json_is_number(got)) return json_number_value(exp) == json_number_value(got);
  if (json_is_array(exp) && json_is_array(got)) {
    if (json_array_size(exp) != json_array_size(got)) return 0;
    for (size_t i = 0; i < json_array_size(exp); i++)
      if (!same(json_array_get(exp, i), json_array_get(got, i))) return 0;
    return 1;
  }
  if (json_is_object(exp) && json_is_object(got)) {
    if (json_object_size(exp) != json_object_size(got)) return 0;
    const char *k;
    json_t *v;
    json_object_foreach(exp, k, v) {
      json_t *g = json_object_get(got, k);
      if (!g || !same(v, g)) return 0;
    }
    return 1;
  }
  return json_equal(exp, got);
}

/* Reads the file with our reader (optionally in small batches) and compares
 * every row with the oracle's canonical rows. */
static void compare_file(const char *path, const char *canon, int64_t batch_rows) {
  FILE *p = fopen(canon, "r");
  CHECK(p != NULL);
  if (!p) return;
  pm_error err;
  pm_pq_read_options opt;
  pm_pq_read_options_init(&opt);
  opt.batch_rows = batch_rows;
  pm_pq_reader *r = NULL;
  int rc = pm_pq_reader_open_path(path, &opt, &r, &err);
  CHECK_MSG(rc == 0, "%s: %s", path, err.message);
  if (rc) {
    fclose(p);
    return;
  }
  struct ArrowSchema s;
  CHECK_OK(pm_pq_reader_schema(r, &s, &err), &err);
  const pm_pq_meta *m = pm_pq_reader_meta(r);
  int *int96 = calloc((size_t)s.n_children + 1, sizeof(int));
  for (int64_t c = 0; c < s.n_children; c++) {
    const pm_pq_node *n = m->root->children[c];
    int96[c] = n->leaf >= 0 && n->elem->type == PM_PQ_INT96;
  }
  char *line = NULL;
  size_t cap = 0;
  int64_t row = 0;
  int mismatches = 0;
  for (;;) {
    struct ArrowArray a;
    rc = pm_pq_reader_next(r, &a, &err);
    CHECK_MSG(rc == 0, "%s: %s", path, err.message);
    if (rc || !a.release) break;
    for (int64_t i = 0; i < a.length; i++, row++) {
      ssize_t n = getline(&line, &cap, p);
      if (n <= 0) {
        CHECK_MSG(0, "%s: we have more rows than DuckDB (row %lld)", path, (long long)row);
        mismatches = 99;
        break;
      }
      json_error_t je;
      json_t *exp = json_loads(line, JSON_DECODE_ANY, &je);
      CHECK_MSG(exp && json_is_array(exp), "%s: oracle line unparsable: %s", path, line);
      for (int64_t c = 0; exp && c < s.n_children && mismatches < 5; c++) {
        json_t *got = value_json(s.children[c], a.children[c], i);
        int96_tolerance = int96[c];
        if (!same(json_array_get(exp, (size_t)c), got)) {
          char *gs = json_dumps(got, JSON_ENCODE_ANY), *es = json_dumps(json_array_get(exp, (size_t)c), JSON_ENCODE_ANY);
          CHECK_MSG(0, "%s row %lld column %s: expected %s, got %s", path, (long long)row, s.children[c]->name, es, gs);
          free(gs);
          free(es);
          mismatches++;
        }
        int96_tolerance = 0;
        json_decref(got);
      }
      json_decref(exp);
    }
    a.release(&a);
    if (mismatches >= 5) break;
  }
  if (mismatches == 0 && rc == 0) {
    ssize_t n = getline(&line, &cap, p);
    CHECK_MSG(n <= 0, "%s: DuckDB has more rows than we read (%lld)", path, (long long)row);
    CHECK_EQ_INT(row, pm_pq_reader_num_rows(r));
  }
  while (getline(&line, &cap, p) > 0) {
  }
  free(line);
  fclose(p);
  free(int96);
  pm_schema_release(&s);
  pm_pq_reader_close(r);
}

typedef struct file_list {
  char **paths;
  int n;
} file_list;

static void walk(const char *dir, file_list *fl) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  char **names = NULL;
  size_t n = 0;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    names = realloc(names, (n + 1) * sizeof *names);
    names[n++] = strdup(e->d_name);
  }
  closedir(d);
  for (size_t i = 0; i < n; i++) {
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
      walk(path, fl);
    } else {
      size_t l = strlen(path);
      if (l > 8 && !strcmp(path + l - 8, ".parquet")) {
        fl->paths = realloc(fl->paths, (size_t)(fl->n + 1) * sizeof(char *));
        fl->paths[fl->n++] = strdup(path);
      }
    }
    free(names[i]);
  }
  free(names);
}

/* Dumps every file with the oracle (in parallel), then compares. */
static void compare_files(char **paths, int n, const int64_t *batch_rows) {
  char **cmds = calloc((size_t)n + 1, sizeof(char *));
  char **canon = calloc((size_t)n + 1, sizeof(char *));
  for (int i = 0; i < n; i++) {
    canon[i] = malloc(strlen(tmpdir) + 32);
    sprintf(canon[i], "%s/canon-%d.jsonl", tmpdir, i);
    cmds[i] = malloc(strlen(paths[i]) + strlen(canon[i]) + 256);
    sprintf(cmds[i], "%s/parquet-dump '%s' --canon > '%s'", TOOLS, paths[i], canon[i]);
  }
  CHECK_EQ_INT(run_parallel(cmds, n, 6), 0);
  for (int i = 0; i < n; i++) {
    compare_file(paths[i], canon[i], batch_rows ? batch_rows[i] : 65536);
    unlink(canon[i]);
    free(canon[i]);
    free(cmds[i]);
  }
  free(canon);
  free(cmds);
}

static void test_fixtures(void) {
  if (!oracle_ok) return;
  file_list fl = {NULL, 0};
  walk(PM_SHARED("fixtures"), &fl);
  compare_files(fl.paths, fl.n, NULL);
  fprintf(stderr, "compared %d fixture files with DuckDB\n", fl.n);
  CHECK(fl.n > 0);
  for (int i = 0; i < fl.n; i++) free(fl.paths[i]);
  free(fl.paths);
}

static void test_generated(void) {
  if (!oracle_ok) return;
  static const char *schemas[] = {"narrow", "wide", "strings", "nested"};
  static const char *codecs[] = {"zstd", "snappy", "none", "gzip", "lz4"};
  char *cmds[64], *paths[64];
  int64_t batch[64];
  int n = 0;
  for (int s = 0; s < 4; s++) {
    for (int c = 0; c < 5; c++) {
      for (int v2 = 0; v2 < 2; v2++) {
        if (v2 && c > 1 && s != 1) continue; /* keep runtime small */
        paths[n] = malloc(512);
        cmds[n] = malloc(1024);
        snprintf(paths[n], 512, "%s/%s-%s%s.parquet", tmpdir, schemas[s], codecs[c], v2 ? "-v2" : "");
        snprintf(cmds[n], 1024, "%s/parquet-gen %s --rows 2500 --codec %s --schema %s --row-group-size 1000%s >/dev/null 2>&1",
                 TOOLS, paths[n], codecs[c], schemas[s], v2 ? " --page-v2" : "");
        batch[n] = c == 0 ? 700 : 65536; /* small batches cross page and row group boundaries */
        n++;
      }
    }
  }
  CHECK_EQ_INT(run_parallel(cmds, n, 6), 0);
  compare_files(paths, n, batch);
  for (int i = 0; i < n; i++) {
    free(cmds[i]);
    free(paths[i]);
  }
}

/* Row ranges and projection against the full read. */
static void test_ranges_and_projection(void) {
  if (!oracle_ok) return;
  char path[512];
  snprintf(path, sizeof path, "%s/nested-zstd.parquet", tmpdir);
  pm_error err;
  /* full read as reference */
  pm_pq_reader *r;
  pm_pq_read_options opt;
  pm_pq_read_options_init(&opt);
  CHECK_OK(pm_pq_reader_open_path(path, &opt, &r, &err), &err);
  struct ArrowSchema s;
  CHECK_OK(pm_pq_reader_schema(r, &s, &err), &err);
  json_t *all = json_array();
  for (;;) {
    struct ArrowArray a;
    if (pm_pq_reader_next(r, &a, &err) || !a.release) break;
    for (int64_t i = 0; i < a.length; i++) {
      json_t *row = json_array();
      for (int64_t c = 0; c < s.n_children; c++) json_array_append_new(row, value_json(s.children[c], a.children[c], i));
      json_array_append_new(all, row);
    }
    a.release(&a);
  }
  pm_schema_release(&s);
  pm_pq_reader_close(r);
  CHECK_EQ_INT(json_array_size(all), 2500);

  pm_pq_row_range ranges[] = {{3, 5}, {990, 1010}, {1500, 1501}, {1999, 2400}, {2499, 2600}};
  const char *cols[] = {"m", "id", "arr_st"};
  int col_idx[] = {2, 0, 4};
  pm_pq_read_options_init(&opt);
  opt.row_ranges = ranges;
  opt.n_row_ranges = 5;
  opt.columns = cols;
  opt.n_columns = 3;
  opt.batch_rows = 64;
  CHECK_OK(pm_pq_reader_open_path(path, &opt, &r, &err), &err);
  CHECK_OK(pm_pq_reader_schema(r, &s, &err), &err);
  CHECK_EQ_INT(s.n_children, 3);
  CHECK_EQ_STR(s.children[0]->name, "m");
  CHECK_EQ_STR(s.children[0]->format, "+m");
  int64_t got = 0;
  for (;;) {
    struct ArrowArray a;
    int rc = pm_pq_reader_next(r, &a, &err);
    CHECK_OK(rc, &err);
    if (rc || !a.release) break;
    int64_t np;
    const int64_t *pos = pm_pq_reader_batch_positions(r, &np);
    CHECK_EQ_INT(np, a.length);
    for (int64_t i = 0; i < a.length; i++) {
      json_t *ref = json_array_get(all, (size_t)pos[i]);
      for (int c = 0; c < 3; c++) {
        json_t *v = value_json(s.children[c], a.children[c], i);
        CHECK_MSG(json_equal(v, json_array_get(ref, (size_t)col_idx[c])), "row %lld col %s", (long long)pos[i], cols[c]);
        json_decref(v);
      }
    }
    got += a.length;
    a.release(&a);
  }
  CHECK_EQ_INT(got, 2 + 20 + 1 + 401 + 1);
  pm_schema_release(&s);
  pm_pq_reader_close(r);

  /* many small ranges (deletion-vector style): every third row */
  size_t nr = 834;
  pm_pq_row_range *many = malloc(nr * sizeof *many);
  for (size_t i = 0; i < nr; i++) many[i] = (pm_pq_row_range){(int64_t)i * 3, (int64_t)i * 3 + 1};
  pm_pq_read_options_init(&opt);
  opt.row_ranges = many;
  opt.n_row_ranges = nr;
  opt.batch_rows = 500;
  CHECK_OK(pm_pq_reader_open_path(path, &opt, &r, &err), &err);
  free(many); /* options are copied */
  CHECK_OK(pm_pq_reader_schema(r, &s, &err), &err);
  got = 0;
  int64_t biggest = 0;
  for (;;) {
    struct ArrowArray a;
    int rc = pm_pq_reader_next(r, &a, &err);
    CHECK_OK(rc, &err);
    if (rc || !a.release) break;
    int64_t np;
    const int64_t *pos = pm_pq_reader_batch_positions(r, &np);
    CHECK_EQ_INT(np, a.length);
    if (a.length > biggest) biggest = a.length;
    for (int64_t i = 0; i < a.length; i++) {
      CHECK_EQ_INT(pos[i] % 3, 0);
      json_t *ref = json_array_get(all, (size_t)pos[i]);
      for (int64_t c = 0; c < s.n_children; c++) {
        json_t *v = value_json(s.children[c], a.children[c], i);
        CHECK_MSG(json_equal(v, json_array_get(ref, (size_t)c)), "row %lld col %lld", (long long)pos[i], (long long)c);
        json_decref(v);
      }
    }
    got += a.length;
    a.release(&a);
  }
  CHECK_EQ_INT(got, 834);
  CHECK(biggest > 64); /* batches are not cut at a fixed number of ranges */
  pm_schema_release(&s);
  pm_pq_reader_close(r);
  json_decref(all);
}

/* Predicates prune row groups by statistics; surviving rows include the matches. */
static void test_predicates(void) {
  if (!oracle_ok) return;
  char path[512];
  snprintf(path, sizeof path, "%s/narrow-zstd.parquet", tmpdir);
  pm_error err;
  pm_fmt_literal lit = {PM_FMT_LIT_INT64, 1200, 0, NULL, 0};
  pm_fmt_predicate pred = {"id", -1, PM_FMT_OP_EQ, &lit, 1};
  pm_pq_read_options opt;
  pm_pq_read_options_init(&opt);
  opt.predicates = &pred;
  opt.n_predicates = 1;
  pm_pq_reader *r;
  CHECK_OK(pm_pq_reader_open_path(path, &opt, &r, &err), &err);
  int64_t rows = 0, found = 0;
  for (;;) {
    struct ArrowArray a;
    if (pm_pq_reader_next(r, &a, &err) || !a.release) break;
    const int64_t *ids = a.children[0]->buffers[1];
    for (int64_t i = 0; i < a.length; i++) found += ids[i] == 1200;
    rows += a.length;
    a.release(&a);
  }
  CHECK_EQ_INT(found, 1);
  const pm_pq_meta *m = pm_pq_reader_meta(r);
  int64_t expect_rows = 0; /* rows of the row groups whose id range holds 1200 */
  for (uint32_t g = 0; g < m->n_row_groups; g++) {
    int64_t mn, mx;
    memcpy(&mn, m->row_groups[g].columns[0].statistics.min.p, 8);
    memcpy(&mx, m->row_groups[g].columns[0].statistics.max.p, 8);
    if (mn <= 1200 && 1200 <= mx) expect_rows += m->row_groups[g].num_rows;
  }
  CHECK(m->n_row_groups > 1);
  CHECK_EQ_INT(rows, expect_rows);
  pm_pq_reader_close(r);

  /* a predicate no row group satisfies reads nothing */
  pm_fmt_literal big = {PM_FMT_LIT_INT64, 1000000, 0, NULL, 0};
  pm_fmt_predicate gt = {"id", -1, PM_FMT_OP_GT, &big, 1};
  opt.predicates = &gt;
  CHECK_OK(pm_pq_reader_open_path(path, &opt, &r, &err), &err);
  struct ArrowArray a;
  CHECK_OK(pm_pq_reader_next(r, &a, &err), &err);
  CHECK(a.release == NULL);
  pm_pq_column_stats st;
  CHECK_OK(pm_pq_reader_column_stats(r, 0, &st, &err), &err);
  CHECK(st.has_min_max);
  CHECK_EQ_INT(st.min.i64, 0);
  CHECK_EQ_INT(st.max.i64, 2499);
  pm_pq_reader_close(r);
}

int main(void) {
  snprintf(tmpdir, sizeof tmpdir, "/tmp/pm_pq_compat_XXXXXX");
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }
  char cmd[512];
  snprintf(cmd, sizeof cmd, "%s/parquet-gen %s/probe.parquet --rows 10 --codec none >/dev/null 2>&1", TOOLS, tmpdir);
  oracle_ok = run(cmd) == 0;
  if (!oracle_ok) fprintf(stderr, "SKIP: oracle tools (node) unavailable; compatibility cases skipped\n");
  RUN_TEST(test_generated);
  RUN_TEST(test_ranges_and_projection);
  RUN_TEST(test_predicates);
  RUN_TEST(test_fixtures);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  run(cmd);
  TEST_MAIN_END();
}
