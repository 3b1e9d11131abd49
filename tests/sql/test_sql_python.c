/* Python's standard sqlite3 module (Debian's /usr/bin/python3) loads build/libpaimon_sqlite.so
 * and inserts (executemany + commit), queries, deletes, updates and rolls back
 * (tests/sql/sqlite3_dml.py); what it reads back is compared with the expected rows and the
 * table it wrote with the paimon-table oracle (read, check). */
#include <unistd.h>

#include "sql/sql_write_util.h"

int main(void) {
  if (access("/usr/bin/python3", X_OK) != 0 || !ot_available()) {
    fprintf(stderr, "SKIP: /usr/bin/python3 or the paimon-table oracle is missing\n");
    return 0;
  }
  char wh[] = "/tmp/sql_py_XXXXXX";
  CHECK(mkdtemp(wh) != NULL);
  char cmd[1024];
  snprintf(cmd, sizeof cmd, SF_FOREIGN_ENV "/usr/bin/python3 %s/tests/sql/sqlite3_dml.py %s %s 2>&1", PAIMON_SOURCE_DIR,
           SF_EXT, wh);
  char *out = NULL;
  int rc = ot_shell(cmd, &out);
  CHECK_MSG(rc == 0, "python exit %d: %s", rc, out ? out : "");
  const char *want =
      "{\"step\": \"insert\", \"rows\": [[1, \"a\", 1.5], [2, \"b\", null], [3, \"c\\u00e9\", 0.1]]}\n"
      "{\"step\": \"delete\", \"rows\": [[1, \"a\", 1.5], [3, \"c\\u00e9\", 0.1]]}\n"
      "{\"step\": \"update\", \"rows\": [[1, \"A\", 3.0], [3, \"c\\u00e9\", 0.1]]}\n"
      "{\"step\": \"rollback\", \"rows\": [[1, \"A\", 3.0], [3, \"c\\u00e9\", 0.1]]}\n"
      "{\"step\": \"count\", \"n\": 1}\n";
  CHECK_MSG(out && !strcmp(out, want), "python printed:\n%s", out ? out : "");
  free(out);
  char dir[256];
  snprintf(dir, sizeof dir, "%s/db.db/t", wh);
  json_t *rows = sw_json("[{\"id\":1,\"name\":\"A\",\"score\":3.0},{\"id\":3,\"name\":\"c\\u00e9\",\"score\":0.1}]");
  CHECK(ot_read_equals(dir, "", rows, "the table Python wrote"));
  json_decref(rows);
  CHECK(ot_check_ok(dir, 0, "the table Python wrote"));
  CHECK_EQ_INT(sw_data_snapshots(dir), 3); /* insert, delete, update; the rollback none */
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures) CHECK_EQ_INT(system(cmd), 0);
  fprintf(stderr, "%d checks, %d failures\n", pm_test_checks, pm_test_failures);
  return pm_test_failures != 0;
}
