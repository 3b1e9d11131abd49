/* The CLI is a client of the public API only (issue 9): every #include of a
 * file under src/cli names a public header (paimon/...), a CLI-local header
 * (cli/... or a file next to it) or a system header (one that is not a file
 * of src/ or include/). Internal headers (arrow/, util/, format/, print/,
 * table/, ...) fail the test, with either quote style. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

#define SRC PAIMON_SOURCE_DIR "/src"

static int file_exists(const char *dir, const char *name) {
  char p[4096];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* 1 when `name` (the text between the delimiters) may be included from a CLI
 * file in directory `dir`; quoted = "..." form. */
static int allowed(const char *dir, const char *name, int quoted) {
  if (!strncmp(name, "paimon/", 7)) return file_exists(PAIMON_SOURCE_DIR "/include", name);
  if (!strncmp(name, "cli/", 4)) return file_exists(SRC, name);
  if (strstr(name, "..")) return 0;
  if (quoted) return file_exists(dir, name) && !file_exists(SRC, name); /* a file next to it, not src/X */
  /* <...>: a system header unless it resolves to a header of the tree (-I src, -I include). */
  return !file_exists(SRC, name) && !file_exists(PAIMON_SOURCE_DIR "/include", name);
}

static int n_files, n_includes, n_public;

/* Checks the #include lines of one file; returns the number of bad ones. */
static int check_file(const char *dir, const char *path) {
  FILE *f = fopen(path, "r");
  CHECK_MSG(f != NULL, "cannot open %s", path);
  if (!f) return 1;
  n_files++;
  char line[4096];
  int bad = 0, lineno = 0;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    const char *p = line;
    while (*p == ' ' || *p == '\t') p++;
    if (*p != '#') continue;
    p++;
    while (*p == ' ' || *p == '\t') p++;
    if (strncmp(p, "include", 7)) continue;
    p += 7;
    while (*p == ' ' || *p == '\t') p++;
    char close = *p == '<' ? '>' : *p == '"' ? '"' : 0;
    const char *end = close ? strchr(p + 1, close) : NULL;
    if (!end) {
      fprintf(stderr, "%s:%d: unparsed #include: %s", path, lineno, line);
      bad++;
      continue;
    }
    char name[1024];
    snprintf(name, sizeof name, "%.*s", (int)(end - p - 1), p + 1);
    n_includes++;
    n_public += !strncmp(name, "paimon/", 7);
    if (!allowed(dir, name, close == '"')) {
      fprintf(stderr, "%s:%d: non-public header %c%s%c\n", path, lineno, *p, name, close);
      bad++;
    }
  }
  fclose(f);
  return bad;
}

static int walk(const char *dir) {
  DIR *d = opendir(dir);
  CHECK_MSG(d != NULL, "cannot list %s", dir);
  if (!d) return 1;
  int bad = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(p, &st) != 0) continue;
    size_t n = strlen(e->d_name);
    if (S_ISDIR(st.st_mode)) bad += walk(p);
    else if (n > 2 && (!strcmp(e->d_name + n - 2, ".c") || !strcmp(e->d_name + n - 2, ".h"))) bad += check_file(dir, p);
  }
  closedir(d);
  return bad;
}

static void test_classifier(void) {
  const char *cli = SRC "/cli";
  CHECK(allowed(cli, "paimon/paimon.h", 1));
  CHECK(allowed(cli, "paimon/file.h", 0));
  CHECK(allowed(cli, "cli/cli.h", 1));
  CHECK(allowed(cli, "stdio.h", 0));
  CHECK(allowed(cli, "sys/stat.h", 0));
  CHECK(!allowed(cli, "arrow/arrow.h", 1));
  CHECK(!allowed(cli, "arrow/arrow.h", 0));
  CHECK(!allowed(cli, "util/buf.h", 1));
  CHECK(!allowed(cli, "print/print.h", 1));
  CHECK(!allowed(cli, "format/parquet/parquet_reader.h", 1));
  CHECK(!allowed(cli, "paimon/no_such_header.h", 1));
  CHECK(!allowed(cli, "../util/error.h", 1));
}

static void test_cli_includes_public_only(void) {
  int bad = walk(SRC "/cli");
  CHECK_EQ_INT(bad, 0);
  CHECK(n_files >= 10);    /* the walk saw the CLI */
  CHECK(n_includes >= 50);
  CHECK(n_public >= 10);   /* and its public headers */
}

int main(void) {
  RUN_TEST(test_classifier);
  RUN_TEST(test_cli_includes_public_only);
  TEST_MAIN_END();
}
