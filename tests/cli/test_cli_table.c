/* `paimon db|table ...` run as a process; rows compared with the expected-result JSON files. */
#include <jansson.h>
#include <sys/wait.h>

#include "harness.h"
#include "support/cli_run.h"

#define PAIMON PAIMON_BINARY_DIR "/paimon"
#define WH PM_SHARED("fixtures/warehouse/parquet")

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Canonical text of a JSON row (array) with doubles rounded, so that 16.1 == 16.100000000000001. */
static void canon(json_t *v, char *buf, size_t cap) {
  size_t k = 0;
  for (size_t i = 0; i < json_array_size(v) && k < cap; i++) {
    json_t *x = json_array_get(v, i);
    if (json_is_real(x)) k += (size_t)snprintf(buf + k, cap - k, "%.6g|", json_real_value(x));
    else if (json_is_integer(x)) k += (size_t)snprintf(buf + k, cap - k, "%lld|", (long long)json_integer_value(x));
    else if (json_is_string(x)) k += (size_t)snprintf(buf + k, cap - k, "%s|", json_string_value(x));
    else if (json_is_null(x)) k += (size_t)snprintf(buf + k, cap - k, "null|");
    else k += (size_t)snprintf(buf + k, cap - k, "?|");
  }
}

/* Compares jsonl output (objects keyed by `cols`) with the expected rows (multiset). */
static int same_rows(const char *jsonl, const char *expected_file, const char *const *cols, size_t ncols) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", PM_SHARED("fixtures/expected"), expected_file);
  json_error_t je;
  json_t *ex = json_load_file(path, 0, &je);
  if (!ex) return 0;
  json_t *rows = json_object_get(ex, "rows");
  size_t n = json_array_size(rows);
  char **want = calloc(n + 1, sizeof *want), **got = calloc(n + 64, sizeof *got);
  for (size_t i = 0; i < n; i++) {
    want[i] = malloc(2048);
    canon(json_array_get(rows, i), want[i], 2048);
  }
  size_t g = 0;
  int ok = 1;
  const char *line = jsonl;
  while (*line) {
    const char *nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) : strlen(line);
    if (len) {
      json_t *obj = json_loadb(line, len, 0, &je);
      if (!obj || g >= n + 63) {
        ok = 0;
        json_decref(obj);
        break;
      }
      /* keys must be the selected columns in order */
      size_t ki = 0;
      const char *key;
      json_t *val;
      json_t *arr = json_array();
      json_object_foreach(obj, key, val) {
        if (ki >= ncols || strcmp(key, cols[ki])) ok = 0;
        ki++;
        json_array_append(arr, val);
      }
      if (ki != ncols) ok = 0;
      got[g] = malloc(2048);
      canon(arr, got[g], 2048);
      g++;
      json_decref(arr);
      json_decref(obj);
    }
    line += len + (nl ? 1 : 0);
  }
  if (ok && g == n) {
    qsort(want, n, sizeof *want, cmp_str);
    qsort(got, g, sizeof *got, cmp_str);
    for (size_t i = 0; i < n; i++)
      if (strcmp(want[i], got[i])) ok = 0;
  } else {
    ok = 0;
  }
  for (size_t i = 0; i < n; i++) free(want[i]);
  for (size_t i = 0; i < g; i++) free(got[i]);
  free(want);
  free(got);
  json_decref(ex);
  return ok;
}

static void test_db_commands(void) {
  char *out = NULL;
  CHECK_EQ_INT(run(PAIMON " -w " WH " db list", &out), 0);
  CHECK(strstr(out, "pk_09\n") != NULL);
  free(out);
  CHECK_EQ_INT(run(PAIMON " -w " WH " db list-tables pk_09", &out), 0);
  CHECK_EQ_STR(out, "pk_09\n");
  free(out);
  CHECK_EQ_INT(run(PAIMON " -w " WH " db list-tables nope 2>/dev/null", &out), 1);
  free(out);
  CHECK_EQ_INT(run("PAIMON_WAREHOUSE= " PAIMON " db list 2>/dev/null", &out), 2);
  free(out);
}

static void test_table_read(void) {
  static const char *cols[] = {"f0", "f1", "f2", "f3"};
  char *out = NULL;
  CHECK_EQ_INT(run(PAIMON " -w " WH " table read pk_09.pk_09 --format jsonl", &out), 0);
  CHECK_MSG(same_rows(out, "parquet__pk_09__snapshot-8.json", cols, 4), "%s", out);
  free(out);
  CHECK_EQ_INT(run(PAIMON " -w " WH " table read pk_09.pk_09 --snapshot 6 --format jsonl", &out), 0);
  CHECK_MSG(same_rows(out, "parquet__pk_09__snapshot-6.json", cols, 4), "%s", out);
  free(out);
  CHECK_EQ_INT(run(PAIMON " -w " WH " table read pk_09.pk_09 --version 6 --format jsonl", &out), 0);
  CHECK(same_rows(out, "parquet__pk_09__snapshot-6.json", cols, 4));
  free(out);
  /* projection order and filter */
  CHECK_EQ_INT(run(PAIMON " -w " WH " table read pk_09.pk_09 --select f3,f0 --where \"f2 = 0 and f0 like 'A%'\" "
                            "--format jsonl",
                   &out),
               0);
  CHECK_EQ_STR(out, "{\"f3\":16.1,\"f0\":\"Alex\"}\n");
  free(out);
  CHECK_EQ_INT(run(PAIMON " -w " WH " table read pk_09.pk_09 --limit 2 --format csv", &out), 0);
  int lines = 0;
  for (char *p = out; *p; p++) lines += *p == '\n';
  CHECK_EQ_INT(lines, 3); /* header + 2 rows */
  free(out);
  /* branch */
  static const char *bcols[] = {"dt", "name", "amount"};
  (void)bcols;
  CHECK_EQ_INT(run(PAIMON " -w " WH " table read 'append_table_with_rt_branch.append_table_with_rt_branch$branch_rt' "
                            "--format jsonl > /dev/null",
                   &out),
               0);
  free(out);
  /* errors: one line on stderr, exit 1 */
  CHECK_EQ_INT(run(PAIMON " -w " WH " table read pk_09.pk_09 --snapshot 42 2>&1", &out), 1);
  CHECK(strstr(out, "42") != NULL && strchr(out, '\n') == out + strlen(out) - 1);
  free(out);
  CHECK_EQ_INT(run(PAIMON " -w " WH " table read pk_09.pk_09 --where 'f1 = \"x' 2>&1", &out), 1);
  free(out);
  CHECK_EQ_INT(run(PAIMON " -w " WH " table read pk_09.nope 2>&1", &out), 1);
  CHECK(strstr(out, "pk_09.nope") != NULL);
  free(out);
  CHECK_EQ_INT(run(PAIMON " -w " WH " table read pk_09.pk_09 --bogus 2>/dev/null", &out), 2);
  free(out);
}

static void test_table_inspection(void) {
  char *out = NULL;
  CHECK_EQ_INT(run(PAIMON " -w " WH " table get pk_09.pk_09", &out), 0);
  CHECK(strstr(out, "primary keys: f0 f1 f2") != NULL);
  CHECK(strstr(out, "partition keys: f1") != NULL);
  CHECK(strstr(out, "deletion-vectors.enabled") != NULL);
  free(out);
  CHECK_EQ_INT(run(PAIMON " -w " WH " table snapshots pk_09.pk_09 --format csv", &out), 0);
  int lines = 0;
  for (char *p = out; *p; p++) lines += *p == '\n';
  CHECK_EQ_INT(lines, 9); /* header + 8 snapshots */
  free(out);
  CHECK_EQ_INT(run(PAIMON " -w " WH " table files pk_09.pk_09 --format jsonl", &out), 0);
  CHECK(strstr(out, "\"file_path\"") != NULL && strstr(out, ".parquet") != NULL);
  free(out);
  CHECK_EQ_INT(run(PAIMON " -w " WH " table partitions pk_09.pk_09 --format jsonl", &out), 0);
  CHECK(strstr(out, "{f1=10}") != NULL && strstr(out, "{f1=20}") != NULL);
  free(out);
  CHECK_EQ_INT(run(PAIMON " -w " WH " table read 'pk_09.pk_09$options' --format jsonl", &out), 0);
  CHECK(strstr(out, "\"bucket-key\"") != NULL);
  free(out);
  CHECK_EQ_INT(run(PAIMON " -w " WH " table explain pk_09.pk_09 --where 'f1 = 20'", &out), 0);
  CHECK(strstr(out, "snapshot: 8") != NULL && strstr(out, "splits: 1") != NULL);
  free(out);
}

int main(void) {
  RUN_TEST(test_db_commands);
  RUN_TEST(test_table_read);
  RUN_TEST(test_table_inspection);
  TEST_MAIN_END();
}
