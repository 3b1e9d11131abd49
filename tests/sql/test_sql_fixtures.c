/* Every expected-result file of the fixtures read through SELECT over the `paimon` SQLite module
 * equals the expectation: through SQLite's C API loading build/libpaimon_sqlite.so, through
 * Debian's sqlite3 shell with .load, and through `paimon sql --format jsonl`. */
#include <dirent.h>
#include <unistd.h>

#include "sql/sql_fixture.h"
#include "support/cli_run.h"

static int by_api(const sf_case *c, json_t *rows, char *msg, size_t cap) {
  sqlite3 *db = NULL;
  int rc = sqlite3_open(":memory:", &db);
  char *err = NULL;
  if (!rc) rc = sqlite3_enable_load_extension(db, 1);
  if (!rc) rc = sqlite3_load_extension(db, SF_EXT, NULL, &err);
  char sql[20000];
  snprintf(sql, sizeof sql, "SELECT paimon_attach(%s)", c->attach);
  if (!rc) rc = sqlite3_exec(db, sql, NULL, NULL, &err);
  sqlite3_stmt *st = NULL;
  if (!rc) rc = sqlite3_prepare_v2(db, c->query, -1, &st, NULL);
  while (!rc) {
    int s = sqlite3_step(st);
    if (s == SQLITE_DONE) break;
    if (s != SQLITE_ROW) {
      rc = s;
      break;
    }
    if (sf_add_row(c, (const char *)sqlite3_column_text(st, 0), rows)) {
      snprintf(msg, cap, "bad row %s", (const char *)sqlite3_column_text(st, 0));
      rc = -1;
    }
  }
  if (rc > 0) snprintf(msg, cap, "%s", err ? err : sqlite3_errmsg(db));
  sqlite3_finalize(st);
  sqlite3_free(err);
  sqlite3_close(db);
  return rc;
}

static int by_shell(const sf_case *c, json_t *rows, char *msg, size_t cap) {
  char script[] = "/tmp/sql_fixture_XXXXXX";
  int fd = mkstemp(script);
  if (fd < 0) return -1;
  FILE *f = fdopen(fd, "w");
  fprintf(f, ".bail on\n.load %s\n.output /dev/null\nSELECT paimon_attach(%s);\n.output stdout\n.mode list\n.headers off\n%s;\n",
          SF_EXT, c->attach, c->query);
  fclose(f);
  char cmd[512], *out = NULL;
  snprintf(cmd, sizeof cmd, SF_FOREIGN_ENV "sqlite3 -batch :memory: < %s 2>&1", script);
  int rc = run(cmd, &out);
  unlink(script);
  if (rc) snprintf(msg, cap, "sqlite3 exit %d: %.500s", rc, out ? out : "");
  for (char *line = out; !rc && line && *line;) {
    char *nl = strchr(line, '\n');
    if (nl) *nl = 0;
    if (*line && sf_add_row(c, line, rows)) {
      snprintf(msg, cap, "bad line %.500s", line);
      rc = -1;
    }
    line = nl ? nl + 1 : NULL;
  }
  free(out);
  return rc;
}

static int by_cli(const sf_case *c, json_t *rows, char *msg, size_t cap) {
  char script[] = "/tmp/sql_fixture_XXXXXX";
  int fd = mkstemp(script);
  if (fd < 0) return -1;
  FILE *f = fdopen(fd, "w");
  fprintf(f, "SELECT paimon_attach(%s) AS attached;\n%s;\n", c->attach, c->query);
  fclose(f);
  char cmd[512], *out = NULL;
  snprintf(cmd, sizeof cmd, "%s/paimon sql --format jsonl %s 2>&1", PAIMON_BINARY_DIR, script);
  int rc = run(cmd, &out);
  unlink(script);
  if (rc) snprintf(msg, cap, "paimon sql exit %d: %.500s", rc, out ? out : "");
  for (char *line = out; !rc && line && *line;) {
    char *nl = strchr(line, '\n');
    if (nl) *nl = 0;
    json_error_t je;
    json_t *o = *line ? json_loads(line, 0, &je) : NULL;
    json_t *r = json_object_size(o) == 1 ? json_object_iter_value(json_object_iter(o)) : NULL;
    if (*line && !json_object_get(o, "attached") && (!json_is_string(r) || sf_add_row(c, json_string_value(r), rows))) {
      snprintf(msg, cap, "bad line %.500s", line);
      rc = -1;
    }
    json_decref(o);
    line = nl ? nl + 1 : NULL;
  }
  free(out);
  return rc;
}

int main(void) {
  DIR *d = opendir(PM_SHARED("fixtures/expected"));
  CHECK(d != NULL);
  if (!d) return 1;
  struct dirent *de;
  int n = 0, shell_ok = system("sqlite3 -version >/dev/null 2>&1") == 0;
  if (!shell_ok) fprintf(stderr, "sqlite3 shell missing: shell path skipped\n");
  while ((de = readdir(d))) {
    size_t l = strlen(de->d_name);
    if (l < 6 || strcmp(de->d_name + l - 5, ".json")) continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", PM_SHARED("fixtures/expected"), de->d_name);
    sf_case c;
    CHECK_MSG(sf_case_load(&c, path) == 0, "%s", de->d_name);
    static const char *const WAYS[] = {"C API", "paimon sql", "sqlite3 shell"};
    for (int way = 0; way < 2 + shell_ok; way++) {
      json_t *rows = json_array();
      char msg[8192] = "";
      int rc = way == 0 ? by_api(&c, rows, msg, sizeof msg)
               : way == 1 ? by_cli(&c, rows, msg, sizeof msg)
                          : by_shell(&c, rows, msg, sizeof msg);
      CHECK_MSG(rc == 0, "%s (%s): %s; query %s", de->d_name, WAYS[way], msg, c.query);
      if (rc == 0) {
        int ok = fxc_rows_match(c.want, rows, c.kinds, msg, sizeof msg);
        CHECK_MSG(ok, "%s (%s): %s", de->d_name, WAYS[way], msg);
      }
      json_decref(rows);
    }
    sf_case_free(&c);
    n++;
  }
  closedir(d);
  CHECK(n >= 90);
  fprintf(stderr, "%d expected files, %d checks, %d failures\n", n, pm_test_checks, pm_test_failures);
  return pm_test_failures != 0;
}
