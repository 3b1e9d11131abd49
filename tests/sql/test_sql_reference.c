/* The SQL examples of reference 002 ("SQL Context", "Reading a Table: read via SQL", "Writing to
 * a Table: write via SQL", the SQL parts of "Complete Example") run through `paimon sql` in
 * SQLite's syntax: SQLite names have two parts (db.t, no catalog prefix), CREATE SCHEMA is
 * paimon_create_database(), CREATE TABLE is CREATE VIRTUAL TABLE ... USING paimon(...),
 * register_catalog is paimon_attach('warehouse=...'). The CLI's rows are compared with the
 * expected text, and each table the statements wrote is judged by the paimon-table oracle
 * (read: the same rows; check: shaped as Java writes it). The Python side runs the same examples
 * through SQLContext (python/tests/test_reference_examples.py). */
#include "sql/sql_write_util.h"
#include "support/cli_run.h"

#define CLI PAIMON_BINARY_DIR "/paimon"

static char WH[256];

/* Runs `paimon sql --format jsonl` over the statements in file path; *out gets stdout + stderr. */
static int sql_file(const char *stmts, char **out) {
  char path[512];
  snprintf(path, sizeof path, "%s/stmts.sql", WH);
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (!f) return -1;
  fprintf(f, "SELECT paimon_attach('warehouse=%s') AS attached;\n%s", WH, stmts);
  fclose(f);
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "'%s' sql --format jsonl '%s' 2>&1", CLI, path);
  int rc = run(cmd, out);
  unlink(path);
  return rc;
}

static void oracle_table(const char *rel, const char *want_rows) {
  char dir[512];
  snprintf(dir, sizeof dir, "%s/%s", WH, rel);
  json_t *want = sw_json(want_rows);
  CHECK(ot_read_equals(dir, "", want, rel));
  CHECK(ot_check_ok(dir, 0, rel));
  json_decref(want);
}

int main(void) {
  snprintf(WH, sizeof WH, "/tmp/sql_reference_XXXXXX");
  CHECK(mkdtemp(WH) != NULL);
  char *out = NULL;
  /* SQL Context: DDL and DML, then the query */
  CHECK_EQ_INT(sql_file("SELECT paimon_create_database('my_db') AS created;\n"
                        "CREATE VIRTUAL TABLE my_db.t USING paimon(id INT, name STRING);\n"
                        "INSERT INTO my_db.t VALUES (1, 'alice'), (2, 'bob');\n"
                        "SELECT * FROM my_db.t ORDER BY id;\n",
                        &out),
               0);
  CHECK_MSG(out && !strcmp(out, "{\"attached\":0}\n{\"created\":1}\n{\"id\":1,\"name\":\"alice\"}\n"
                                "{\"id\":2,\"name\":\"bob\"}\n"),
            "SQL Context: %s", out);
  free(out);
  oracle_table("my_db.db/t", "[{\"id\":1,\"name\":\"alice\"},{\"id\":2,\"name\":\"bob\"}]");
  /* Writing to a Table (write via SQL) into default.my_table, then Reading a Table (read via
   * SQL), in a second process: the attach sees both databases */
  CHECK_EQ_INT(sql_file("SELECT paimon_create_database('default') AS created;\n"
                        "CREATE VIRTUAL TABLE \"default\".my_table USING paimon(id INT, name STRING);\n"
                        "INSERT INTO \"default\".my_table VALUES (1, 'alice'), (2, 'bob');\n",
                        &out),
               0);
  CHECK_MSG(out && !strcmp(out, "{\"attached\":1}\n{\"created\":1}\n"), "write via SQL: %s", out);
  free(out);
  CHECK_EQ_INT(sql_file("SELECT id, name FROM \"default\".my_table ORDER BY id;\n", &out), 0);
  CHECK_MSG(out && !strcmp(out, "{\"attached\":2}\n{\"id\":1,\"name\":\"alice\"}\n{\"id\":2,\"name\":\"bob\"}\n"),
            "read via SQL: %s", out);
  free(out);
  oracle_table("default.db/my_table", "[{\"id\":1,\"name\":\"alice\"},{\"id\":2,\"name\":\"bob\"}]");
  /* Complete Example, SQL parts: 1. the database and table, (2. rows written; here by SQL in one
   * transaction: one commit), 4. read via SQL ordered by id */
  CHECK_EQ_INT(sql_file("SELECT paimon_create_database('wdb') AS created;\n"
                        "CREATE VIRTUAL TABLE wdb.t USING paimon(id INT, name STRING);\n"
                        "BEGIN; INSERT INTO wdb.t VALUES (3, 'carol'); INSERT INTO wdb.t VALUES (1, 'alice'), "
                        "(2, 'bob'); COMMIT;\n"
                        "SELECT id, name FROM wdb.t WHERE id > 0 ORDER BY id;\n",
                        &out),
               0);
  CHECK_MSG(out && !strcmp(out, "{\"attached\":2}\n{\"created\":1}\n{\"id\":1,\"name\":\"alice\"}\n"
                                "{\"id\":2,\"name\":\"bob\"}\n{\"id\":3,\"name\":\"carol\"}\n"),
            "Complete Example: %s", out);
  free(out);
  oracle_table("wdb.db/t", "[{\"id\":1,\"name\":\"alice\"},{\"id\":2,\"name\":\"bob\"},{\"id\":3,\"name\":\"carol\"}]");
  {
    char dir[512];
    snprintf(dir, sizeof dir, "%s/wdb.db/t", WH);
    CHECK_EQ_INT(sw_latest(dir, NULL, 0), 1); /* the transaction is one commit */
  }
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", WH);
  if (!pm_test_failures) CHECK(system(cmd) == 0);
  fprintf(stderr, "%d checks, %d failures\n", pm_test_checks, pm_test_failures);
  return pm_test_failures != 0;
}
