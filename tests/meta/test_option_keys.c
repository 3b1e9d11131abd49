/* No literal option key outside meta/core_options.c: scans the library sources (src/, except
 * core_options.c, the CLI and the SQLite module (src/sql), clients of the public API) for
 *   - option getter calls (pm_options_get*, pm_table_option) given a string literal, and
 *   - any string literal equal to a key core_options.h declares (keys holding '.' or '-', so
 *     that words like "bucket" used as Avro field names do not count; "primary-key" is also an
 *     aggregate function name).
 * A hit names the file and line. */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <regex.h>

#include "harness.h"
#include "meta/core_options.h"

static regex_t call_re;
static int hits;

/* "primary-key" is also the name of an aggregate function (merge.c). */
static int is_checked_key(const char *k) {
  return (strchr(k, '.') || strchr(k, '-')) && strcmp(k, "primary-key") != 0;
}

static void scan_line(const char *path, int lineno, const char *line) {
  if (!regexec(&call_re, line, 0, NULL, 0)) {
    fprintf(stderr, "%s:%d: option getter with a literal key: %s", path, lineno, line);
    hits++;
  }
  for (int id = 0; id < PM_CO_N; id++) {
    const char *k = pm_core_option_key((pm_co_id)id);
    if (!is_checked_key(k)) continue;
    char lit[256];
    snprintf(lit, sizeof lit, "\"%s\"", k);
    if (strstr(line, lit)) {
      fprintf(stderr, "%s:%d: literal option key %s: %s", path, lineno, lit, line);
      hits++;
    }
  }
}

static int visit(const char *path, const struct stat *st, int kind, struct FTW *ftw) {
  (void)st;
  (void)ftw;
  size_t l = strlen(path);
  if (kind != FTW_F || l < 2 || (strcmp(path + l - 2, ".c") && strcmp(path + l - 2, ".h"))) return 0;
  if (strstr(path, "/src/meta/core_options.") || strstr(path, "/src/cli/") || strstr(path, "/src/sql/")) return 0;
  FILE *f = fopen(path, "r");
  CHECK(f != NULL);
  if (!f) return 0;
  char line[4096];
  int n = 0;
  while (fgets(line, sizeof line, f)) scan_line(path, ++n, line);
  fclose(f);
  return 0;
}

static void test_no_literal_keys(void) {
  CHECK(regcomp(&call_re, "(pm_options_get[a-z0-9_]*|pm_table_option)[[:space:]]*\\([^;]*\"", REG_EXTENDED) == 0);
  CHECK(nftw(PAIMON_SOURCE_DIR "/src", visit, 16, FTW_PHYS) == 0);
  CHECK_EQ_INT(hits, 0);
  regfree(&call_re);
}

/* The scanner finds what it looks for (guards against a test that can never fail). */
static void test_scanner_detects(void) {
  CHECK(regcomp(&call_re, "(pm_options_get[a-z0-9_]*|pm_table_option)[[:space:]]*\\([^;]*\"", REG_EXTENDED) == 0);
  hits = 0;
  scan_line("x.c", 1, "  v = pm_options_get_int(&t->options, \"read.batch-size\", 1, &x, err);\n");
  CHECK_EQ_INT(hits, 2);
  hits = 0;
  scan_line("x.c", 2, "  const char *s = pm_table_option(t, key);\n");
  scan_line("x.c", 3, "  if (!strcmp(k, \"bucket\")) return;\n");
  CHECK_EQ_INT(hits, 0);
  scan_line("x.c", 4, "  if (!strcmp(k, \"scan.snapshot-id\")) return;\n");
  CHECK_EQ_INT(hits, 1);
  hits = 0;
  regfree(&call_re);
}

int main(void) {
  RUN_TEST(test_scanner_detects);
  RUN_TEST(test_no_literal_keys);
  TEST_MAIN_END();
}
