/* `paimon sql` (--help, options, formats, errors naming the statement's position) and Debian's
 * Python sqlite3 module loading build/libpaimon_sqlite.so (/usr/bin/python3, not pyenv's). */
#include <unistd.h>

#include "sql/sql_fixture.h"
#include "support/cli_run.h"

#define CLI PAIMON_BINARY_DIR "/paimon"
#define WH PM_SHARED("fixtures/warehouse/parquet")

static int cli(const char *args, char **out) {
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", CLI, args);
  return run(cmd, out);
}

int main(void) {
  char *out = NULL;
  CHECK_EQ_INT(cli("sql --help", &out), 0);
  CHECK(out && strstr(out, "usage: paimon [-w WAREHOUSE] sql"));
  free(out);
  CHECK_EQ_INT(cli("sql --bogus", &out), 2);
  CHECK(out && strstr(out, "unknown option --bogus"));
  free(out);
  CHECK_EQ_INT(cli("sql -e 'SELECT 1' /nonexistent.sql", &out), 2);
  free(out);
  /* the error names the statement's line and column */
  CHECK_EQ_INT(cli("sql -e 'SELECT 1 AS a;\n  SELEC 2;'", &out), 1);
  CHECK_MSG(out && strstr(out, "paimon sql: -e line 2, column 3:") && strstr(out, "syntax error"), "%s", out);
  free(out);
  /* formats; expected rows of pk_09 snapshot 8 (fixtures/expected/parquet__pk_09__snapshot-8.json) */
  sf_case c;
  CHECK(sf_case_load(&c, PM_SHARED("fixtures/expected/parquet__pk_09__snapshot-8.json")) == 0);
  size_t want = json_array_size(c.want);
  char args[4096];
  snprintf(args, sizeof args,
           "sql --format csv -e \"SELECT paimon_attach('warehouse=%s', 'database=pk_09') AS n; "
           "SELECT count(*) AS c FROM pk_09.pk_09; SELECT f1, f0 FROM pk_09.pk_09 WHERE f0 = 'Alice'\"", WH);
  CHECK_EQ_INT(cli(args, &out), 0);
  char expect[256];
  snprintf(expect, sizeof expect, "n\n1\nc\n%zu\nf1,f0\n10,Alice\n", want);
  CHECK_MSG(out && !strcmp(out, expect), "%s", out);
  free(out);
  snprintf(args, sizeof args,
           "sql --format table -e \"SELECT paimon_attach('warehouse=%s', 'database=pk_09') AS n; "
           "SELECT f1, f0 FROM pk_09.pk_09 WHERE f0 = 'Alice'\"", WH);
  CHECK_EQ_INT(cli(args, &out), 0);
  CHECK_MSG(out && strstr(out, "f1 | f0") && strstr(out, "10 | Alice"), "%s", out);
  free(out);
  /* -w with more databases than SQLite attaches (34 > 10): each is attached when a statement
   * first names it (bare or quoted), silently; a name inside a string literal attaches nothing
   * (main, pk_09, append_09 are the schemas at the end; append_09 has 11 rows at snapshot 5,
   * fixtures/expected/parquet__append_09__snapshot-5.json) */
  snprintf(args, sizeof args,
           "-w '%s' sql --format csv -e \"SELECT 1 AS one; SELECT count(*) AS c FROM pk_09.pk_09; "
           "SELECT count(*) AS a FROM \\\"append_09\\\" . append_09; "
           "SELECT count(*) AS s FROM pragma_database_list WHERE name <> 'append_10.x'\"", WH);
  CHECK_EQ_INT(cli(args, &out), 0);
  snprintf(expect, sizeof expect, "one\n1\nc\n%zu\na\n11\ns\n3\n", want);
  CHECK_MSG(out && !strcmp(out, expect), "%s", out);
  free(out);
  snprintf(args, sizeof args, "-w '%s' sql -e 'SELECT * FROM no_such_db.t'", WH);
  CHECK_EQ_INT(cli(args, &out), 1);
  CHECK_MSG(out && strstr(out, "no such table: no_such_db.t"), "%s", out);
  free(out);
  /* statements from stdin and from a file */
  char path[] = "/tmp/sql_cli_XXXXXX";
  int fd = mkstemp(path);
  FILE *f = fdopen(fd, "w");
  fprintf(f, "-- a comment\nSELECT 40 + 2 AS x;\nSELECT 'a,b' AS s;\n");
  fclose(f);
  snprintf(args, sizeof args, "sql --format csv %s", path);
  CHECK_EQ_INT(cli(args, &out), 0);
  CHECK_MSG(out && !strcmp(out, "x\n42\ns\n\"a,b\"\n"), "%s", out);
  free(out);
  snprintf(args, sizeof args, "sql --format jsonl < %s", path);
  CHECK_EQ_INT(cli(args, &out), 0);
  CHECK_MSG(out && !strcmp(out, "{\"x\":42}\n{\"s\":\"a,b\"}\n"), "%s", out);
  free(out);
  unlink(path);
  /* Debian's python3 sqlite3 module loads the extension and queries */
  if (access("/usr/bin/python3", X_OK) == 0) {
    snprintf(args, sizeof args,
             SF_FOREIGN_ENV "/usr/bin/python3 -c \"import sqlite3; c = sqlite3.connect(':memory:'); c.enable_load_extension(True); "
             "c.load_extension('%s'); c.execute(\\\"SELECT paimon_attach('warehouse=%s', 'database=pk_09')\\\"); "
             "print(c.execute('SELECT count(*), count(DISTINCT f0) FROM pk_09.pk_09').fetchone())\" 2>&1",
             SF_EXT, WH);
    CHECK_EQ_INT(run(args, &out), 0);
    snprintf(expect, sizeof expect, "(%zu, %zu)\n", want, want);
    CHECK_MSG(out && !strcmp(out, expect), "python: %s", out);
    free(out);
  }
  sf_case_free(&c);
  fprintf(stderr, "%d checks, %d failures\n", pm_test_checks, pm_test_failures);
  return pm_test_failures != 0;
}
