/* `paimon table read --format jsonl` over every expected-result file of the fixtures:
 * same rows (as multisets) in the fixtures' value encoding. Time travel (--snapshot),
 * branches (DB.T$branch_b), system columns (--select _ROW_ID,...), external paths
 * (--option path-rewrite=...) and read options (--option k=v) go through the CLI. */
#include <jansson.h>
#include <sys/wait.h>

#include "harness.h"
#include "support/cli_run.h"

#define PAIMON PAIMON_BINARY_DIR "/paimon"

/* Canonical text: numbers with 6 significant digits (float tolerance), everything else exact. */
typedef struct sbuf {
  char *p;
  size_t n, cap;
} sbuf;
static void put(sbuf *b, const char *s, size_t n) {
  if (b->n + n + 1 > b->cap) {
    b->cap = (b->n + n + 1) * 2;
    b->p = realloc(b->p, b->cap);
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = 0;
}
static void canon_value(const json_t *v, sbuf *b) {
  char tmp[64];
  if (json_is_number(v)) {
    snprintf(tmp, sizeof tmp, "%.6g", json_number_value(v));
    put(b, tmp, strlen(tmp));
  } else if (json_is_string(v)) {
    put(b, "\"", 1);
    put(b, json_string_value(v), json_string_length(v));
    put(b, "\"", 1);
  } else if (json_is_array(v)) {
    put(b, "[", 1);
    for (size_t i = 0; i < json_array_size(v); i++) {
      if (i) put(b, ",", 1);
      canon_value(json_array_get(v, i), b);
    }
    put(b, "]", 1);
  } else if (json_is_object(v)) {
    const char *key;
    json_t *x;
    put(b, "{", 1);
    json_object_foreach((json_t *)v, key, x) {
      put(b, key, strlen(key));
      put(b, ":", 1);
      canon_value(x, b);
      put(b, ",", 1);
    }
    put(b, "}", 1);
  } else if (json_is_true(v)) put(b, "true", 4);
  else if (json_is_false(v)) put(b, "false", 5);
  else put(b, "null", 4);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int check_one(const char *file) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", PM_SHARED("fixtures/expected"), file);
  json_error_t je;
  json_t *ex = json_load_file(path, JSON_DECODE_ANY, &je);
  if (!ex) return 0;
  const char *table = json_string_value(json_object_get(ex, "table"));
  /* warehouse = everything before "<db>.db/<table>" */
  char wh[1024], db[256], name[256];
  const char *slash = strrchr(table, '/');
  const char *dbstart = table;
  for (const char *q = table; q < slash; q++)
    if (*q == '/') dbstart = q + 1;
  snprintf(name, sizeof name, "%s", slash + 1);
  snprintf(db, sizeof db, "%.*s", (int)(slash - dbstart - 3), dbstart);
  if (dbstart == table) snprintf(wh, sizeof wh, "%s", PM_SHARED("fixtures/warehouse"));
  else snprintf(wh, sizeof wh, "%s/%.*s", PM_SHARED("fixtures/warehouse"), (int)(dbstart - table - 1), table);
  json_t *cols = json_object_get(ex, "columns"), *sys = json_object_get(ex, "system_columns");
  char select[2048] = "";
  size_t k = 0;
  for (size_t i = 0; i < json_array_size(cols); i++)
    k += (size_t)snprintf(select + k, sizeof select - k, "%s%s", k ? "," : "", json_string_value(json_array_get(cols, i)));
  for (size_t i = 0; i < json_array_size(sys); i++)
    k += (size_t)snprintf(select + k, sizeof select - k, ",%s", json_string_value(json_array_get(sys, i)));
  char cmd[8192];
  int n = snprintf(cmd, sizeof cmd, "%s -w '%s' table read '%s.%s%s%s' --format jsonl --select '%s'", PAIMON, wh, db,
                   name, json_object_get(ex, "branch") ? "$branch_" : "",
                   json_object_get(ex, "branch") ? json_string_value(json_object_get(ex, "branch")) : "", select);
  json_t *snap = json_object_get(ex, "snapshot");
  if (json_is_integer(snap)) n += snprintf(cmd + n, sizeof cmd - (size_t)n, " --snapshot %lld", (long long)json_integer_value(snap));
  json_t *ro = json_object_get(ex, "read_options");
  const char *key;
  json_t *val;
  json_object_foreach(ro, key, val) {
    if (json_is_string(val))
      n += snprintf(cmd + n, sizeof cmd - (size_t)n, " --option '%s=%s'", key, json_string_value(val));
  }
  if (strstr(table, "with_external"))
    n += snprintf(cmd + n, sizeof cmd - (size_t)n, " --option 'path-rewrite=FILE:/tmp/external=%s/%.*s/external'", wh,
                  (int)(slash - dbstart), dbstart);
  char *out = NULL;
  int rc = run(cmd, &out);
  int ok = rc == 0;
  json_t *rows = json_object_get(ex, "rows");
  size_t nw = json_array_size(rows), ng = 0;
  char **want = calloc(nw + 1, sizeof *want), **got = calloc(nw + 1, sizeof *got);
  for (size_t i = 0; i < nw; i++) {
    sbuf b = {0};
    canon_value(json_array_get(rows, i), &b);
    want[i] = b.p ? b.p : strdup("");
  }
  for (char *line = out; ok && *line;) {
    char *nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) : strlen(line);
    if (len) {
      json_t *obj = json_loadb(line, len, 0, &je);
      if (!obj || ng >= nw) {
        ok = 0;
        json_decref(obj);
        break;
      }
      json_t *arr = json_array();
      const char *kk;
      json_t *vv;
      json_object_foreach(obj, kk, vv) json_array_append(arr, vv);
      sbuf b = {0};
      canon_value(arr, &b);
      got[ng++] = b.p ? b.p : strdup("");
      json_decref(arr);
      json_decref(obj);
    }
    line += len + (nl ? 1 : 0);
  }
  if (ok && ng == nw) {
    qsort(want, nw, sizeof *want, cmp_str);
    qsort(got, ng, sizeof *got, cmp_str);
    for (size_t i = 0; i < nw && ok; i++)
      if (strcmp(want[i], got[i])) {
        fprintf(stderr, "%s: want %s\n  got %s\n", file, want[i], got[i]);
        ok = 0;
      }
  } else if (ok) {
    fprintf(stderr, "%s: %zu rows, want %zu\n", file, ng, nw);
    ok = 0;
  }
  if (!ok && rc) fprintf(stderr, "%s: exit %d: %s\n", file, rc, cmd);
  for (size_t i = 0; i < nw; i++) free(want[i]);
  for (size_t i = 0; i < ng; i++) free(got[i]);
  free(want);
  free(got);
  free(out);
  json_decref(ex);
  return ok;
}

static void test_all_expected(void) {
  char **names = NULL;
  size_t n = 0;
  FILE *p = popen("ls '" PM_SHARED("fixtures/expected") "'", "r");
  char line[1024];
  while (p && fgets(line, sizeof line, p)) {
    line[strcspn(line, "\n")] = 0;
    if (!strstr(line, ".json")) continue;
    names = realloc(names, (n + 1) * sizeof *names);
    names[n++] = strdup(line);
  }
  if (p) pclose(p);
  CHECK(n >= 90);
  for (size_t i = 0; i < n; i++) {
    CHECK_MSG(check_one(names[i]), "%s", names[i]);
    free(names[i]);
  }
  free(names);
}

int main(void) {
  RUN_TEST(test_all_expected);
  TEST_MAIN_END();
}
