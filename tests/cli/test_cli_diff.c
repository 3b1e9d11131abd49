/*
 * `paimon table read|explain` with incremental diff options, run as a process.
 *
 * Evidence: the fixtures' expected full results of two snapshots of the
 * Java-written table pk_table_scan_and_read_mor. The diff (s1, s2] is the rows
 * of s2 whose key (f0, f1, f2) is absent from s1 or whose values differ; with
 * --row-kind also a retraction of every key of s1 absent from s2 (compared by
 * key only: Java's -D carries the values of the record that removed it). The
 * table is copied to a temp warehouse, where tag files (the snapshot JSON under
 * tag/tag-<name>) are added.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "support/cli_run.h"

#define PAIMON PAIMON_BINARY_DIR "/paimon"
#define WH PM_SHARED("fixtures/warehouse/parquet")
#define NAME "pk_table_scan_and_read_mor"
#define IDENT NAME "." NAME

static char tmp_root[256];

static int run_paimon(const char *args, char **out) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "%s -w '%s' %s", PAIMON, tmp_root, args);
  return run(cmd, out);
}

static json_t *expected_rows(int snap) {
  char path[1024];
  snprintf(path, sizeof path, "%s/parquet__%s__snapshot-%d.json", PM_SHARED("fixtures/expected"), NAME, snap);
  json_error_t je;
  json_t *f = json_load_file(path, 0, &je);
  if (!f) {
    fprintf(stderr, "cannot load %s: %s\n", path, je.text);
    return NULL;
  }
  json_t *rows = json_incref(json_object_get(f, "rows"));
  json_decref(f);
  return rows;
}

static int same_key(const json_t *a, const json_t *b) {
  for (size_t k = 0; k < 3; k++)
    if (!json_equal(json_array_get(a, k), json_array_get(b, k))) return 0;
  return 1;
}

/* Canonical text of a row: "kind|f0|f1|f2|f3"; a retraction keeps its key only. */
static char *canon(const char *kind, const json_t *row) {
  char buf[1024];
  size_t k = (size_t)snprintf(buf, sizeof buf, "%s|", kind);
  size_t n = !strcmp(kind, "-") ? 3 : json_array_size(row);
  for (size_t i = 0; i < n && k < sizeof buf; i++) {
    json_t *x = json_array_get(row, i);
    if (json_is_real(x)) k += (size_t)snprintf(buf + k, sizeof buf - k, "%.6g|", json_real_value(x));
    else if (json_is_integer(x)) k += (size_t)snprintf(buf + k, sizeof buf - k, "%lld|", (long long)json_integer_value(x));
    else if (json_is_string(x)) k += (size_t)snprintf(buf + k, sizeof buf - k, "%s|", json_string_value(x));
    else k += (size_t)snprintf(buf + k, sizeof buf - k, "null|");
  }
  return strdup(buf);
}

typedef struct rows {
  char **v;
  size_t n;
} rows;

static void rows_add(rows *r, char *s) {
  r->v = realloc(r->v, (r->n + 1) * sizeof *r->v);
  r->v[r->n++] = s;
}
static void rows_free(rows *r) {
  for (size_t i = 0; i < r->n; i++) free(r->v[i]);
  free(r->v);
}
static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The expected diff (s1, s2]; kinds "+" / "-" only when with_row_kind (else "+"). */
static void expected_diff(const json_t *s1, const json_t *s2, int with_row_kind, rows *out) {
  for (size_t i = 0; i < json_array_size(s2); i++) {
    const json_t *r2 = json_array_get(s2, i), *r1 = NULL;
    for (size_t j = 0; j < json_array_size(s1) && !r1; j++)
      if (same_key(json_array_get(s1, j), r2)) r1 = json_array_get(s1, j);
    if (!r1 || !json_equal((json_t *)r1, (json_t *)r2)) rows_add(out, canon("+", r2));
  }
  for (size_t j = 0; with_row_kind && j < json_array_size(s1); j++) {
    int found = 0;
    for (size_t i = 0; i < json_array_size(s2) && !found; i++) found = same_key(json_array_get(s1, j), json_array_get(s2, i));
    if (!found) rows_add(out, canon("-", json_array_get(s1, j)));
  }
}

/* Parses jsonl output (objects with [_row_kind,] f0..f3 in this order). */
static int parse_output(const char *text, int with_row_kind, rows *out) {
  static const char *const cols[] = {"_row_kind", "f0", "f1", "f2", "f3"};
  const char *const *want = with_row_kind ? cols : cols + 1;
  size_t n_want = with_row_kind ? 5 : 4;
  const char *line = text;
  while (*line) {
    const char *nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) : strlen(line);
    if (len) {
      json_error_t je;
      json_t *obj = json_loadb(line, len, 0, &je);
      if (!obj || json_object_size(obj) != n_want) {
        json_decref(obj);
        return -1;
      }
      size_t ki = 0;
      const char *key;
      json_t *val;
      int ok = 1;
      json_object_foreach(obj, key, val) { ok &= ki < n_want && !strcmp(key, want[ki++]); }
      json_t *row = json_array();
      for (size_t c = with_row_kind ? 1 : 0; c < n_want; c++) json_array_append(row, json_object_get(obj, want[c]));
      const char *k = with_row_kind ? json_string_value(json_object_get(obj, "_row_kind")) : "+I";
      int add = k && (!strcmp(k, "+I") || !strcmp(k, "+U"));
      if (ok) rows_add(out, canon(add ? "+" : "-", row));
      json_decref(row);
      json_decref(obj);
      if (!ok) return -1;
    }
    line += len + (nl ? 1 : 0);
  }
  return 0;
}

static void check_diff(const char *args, int from, int to, int with_row_kind) {
  json_t *s1 = expected_rows(from), *s2 = expected_rows(to);
  CHECK(s1 && s2);
  char *out = NULL;
  int rc = run_paimon(args, &out);
  CHECK_MSG(rc == 0, "%s: exit %d", args, rc);
  rows want = {0}, got = {0};
  if (s1 && s2) expected_diff(s1, s2, with_row_kind, &want);
  CHECK(want.n > 0);
  CHECK_MSG(parse_output(out, with_row_kind, &got) == 0, "%s: unexpected output %s", args, out);
  qsort(want.v, want.n, sizeof *want.v, cmp_str);
  qsort(got.v, got.n, sizeof *got.v, cmp_str);
  int same = want.n == got.n;
  for (size_t i = 0; same && i < want.n; i++) same = !strcmp(want.v[i], got.v[i]);
  CHECK_MSG(same, "%s: %zu rows, expected %zu:\n%s", args, got.n, want.n, out);
  rows_free(&want);
  rows_free(&got);
  free(out);
  json_decref(s1);
  json_decref(s2);
}

static int setup(void) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "mkdir -p '%s/%s.db' && cp -r '%s/%s.db/%s' '%s/%s.db/' && chmod -R u+w '%s/%s.db' && "
           "cd '%s/%s.db/%s' && mkdir -p tag && cp snapshot/snapshot-2 tag/tag-t2 && "
           "cp snapshot/snapshot-4 tag/tag-t4 && cp snapshot/snapshot-5 tag/tag-t5",
           tmp_root, NAME, WH, NAME, NAME, tmp_root, NAME, tmp_root, NAME, tmp_root, NAME, NAME);
  return system(cmd);
}

static void test_read_diff(void) {
  check_diff("table read " IDENT " --option incremental-between=t2,t5 --format jsonl", 2, 5, 0);
  check_diff("table read " IDENT " --option incremental-between=t2,t5 --row-kind --format jsonl", 2, 5, 1);
  check_diff("table read " IDENT " -o incremental-between=t4,t5 --row-kind --format jsonl", 4, 5, 1);
  check_diff("table read " IDENT " --option incremental-between=2,4 --option incremental-between-scan-mode=diff "
             "--format jsonl",
             2, 4, 0);
  char *out = NULL;
  /* errors: one line on stderr, exit 1 */
  CHECK_EQ_INT(run_paimon("table read " IDENT " --option incremental-between=t2,nosuchtag 2>&1", &out), 1);
  CHECK_MSG(strstr(out, "nosuchtag") != NULL, "%s", out);
  free(out);
}

static void test_explain_diff(void) {
  char *out = NULL;
  CHECK_EQ_INT(run_paimon("table explain " IDENT " --option incremental-between=t2,t5", &out), 0);
  CHECK_MSG(strstr(out, "scan: incremental-diff") != NULL, "%s", out);
  CHECK_MSG(strstr(out, "snapshot: 5") != NULL, "%s", out);
  int split_lines = 0, diff_lines = 0;
  for (const char *p = out; (p = strstr(p, "\nsplit ")) != NULL; p++) {
    split_lines++;
    const char *nl = strchr(p + 1, '\n');
    const char *d = strstr(p + 1, ", diff");
    if (d && (!nl || d < nl)) diff_lines++;
  }
  CHECK(split_lines > 0);
  CHECK_EQ_INT(diff_lines, split_lines);
  free(out);
  /* a plain explain still shows merge/raw splits */
  CHECK_EQ_INT(run_paimon("table explain " IDENT, &out), 0);
  CHECK_MSG(strstr(out, "scan: batch") != NULL && strstr(out, ", diff") == NULL, "%s", out);
  free(out);
}

int main(void) {
  snprintf(tmp_root, sizeof tmp_root, "/tmp/pm_cli_diff_XXXXXX");
  if (!mkdtemp(tmp_root)) {
    perror("mkdtemp");
    return 1;
  }
  int ok = setup() == 0;
  CHECK(ok);
  if (ok) {
    RUN_TEST(test_read_diff);
    RUN_TEST(test_explain_diff);
  }
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmp_root);
  TEST_MAIN_END();
}
