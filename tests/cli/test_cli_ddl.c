/*
 * paimon db create|drop and paimon table create|drop|rename: --help on every
 * command, a table from --columns and one from --schema FILE.json (pypaimon's
 * schema JSON) pass paimon-table check and `table get` shows their schema;
 * refusals exit 1 naming the column/key and leave the warehouse unchanged;
 * usage errors exit 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "support/cli_run.h"

#define PAIMON PAIMON_BINARY_DIR "/paimon"

static char wh[256];

static int sh(const char *fmt, const char *arg, char **out) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, fmt, PAIMON, wh, arg ? arg : "");
  return run(cmd, out);
}

/* Listing of every file under the warehouse (to see that a refusal wrote nothing). */
static char *tree(void) {
  char cmd[600], *out = NULL;
  snprintf(cmd, sizeof cmd, "cd '%s' && find . | sort", wh);
  run(cmd, &out);
  return out;
}

static void test_help(void) {
  const char *cmds[] = {"db create", "db drop", "table create", "table drop", "table rename"};
  for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
    char *out = NULL;
    CHECK_EQ_INT(sh("%s -w %s %s --help", cmds[i], &out), 0);
    CHECK_MSG(out && strstr(out, "usage:") && strstr(out, cmds[i]), "%s --help: %s", cmds[i], out ? out : "");
    free(out);
  }
  char *out = NULL;
  CHECK_EQ_INT(sh("%s -w %s table --help", NULL, &out), 0);
  CHECK(out && strstr(out, "table create") && strstr(out, "db drop"));
  free(out);
}

static void test_columns_and_schema_file(void) {
  char *out = NULL;
  CHECK_EQ_INT(sh("%s -w %s db create shop %s", "--option owner=me", &out), 0);
  free(out);
  CHECK_EQ_INT(sh("%s -w %s db create shop%s", "", &out), 1); /* exists */
  free(out);
  CHECK_EQ_INT(sh("%s -w %s db create shop --ignore-if-exists%s", "", &out), 0);
  free(out);
  CHECK_EQ_INT(sh("%s -w %s table create shop.orders --columns %s --primary-key id,dt --partition-keys dt "
                  "--option bucket=2 --comment 'orders table'",
                  "\"id BIGINT, dt STRING, amount DECIMAL(10, 2) COMMENT 'in EUR', tags ARRAY<STRING>, "
                  "attrs MAP<STRING, INT>, who ROW<name STRING, age INT>, at TIMESTAMP(3)\"",
                  &out),
               0);
  free(out);
  CHECK_EQ_INT(sh("%s -w %s table get shop.orders%s", "", &out), 0);
  CHECK_MSG(out && strstr(out, "primary keys: id dt") && strstr(out, "\"INT NOT NULL\"") == NULL &&
                strstr(out, "\"BIGINT NOT NULL\"") && strstr(out, "\"description\":\"in EUR\"") &&
                strstr(out, "{\"bucket\":\"2\"}"),
            "table get: %s", out ? out : "");
  free(out);
  char dir[512], cmd[1200];
  snprintf(dir, sizeof dir, "%s/shop.db/orders", wh);
  snprintf(cmd, sizeof cmd, PAIMON_SHARED_DIR "/tools/paimon-table check '%s'", dir);
  if (access("/usr/bin/node", X_OK) == 0 || access("/usr/local/bin/node", X_OK) == 0) {
    CHECK_EQ_INT(run(cmd, &out), 0);
    CHECK_MSG(out && strstr(out, "OK"), "check: %s", out ? out : "");
    free(out);
  }

  /* --schema FILE.json */
  char json[600];
  snprintf(json, sizeof json, "%s/schema.json", wh);
  FILE *f = fopen(json, "w");
  CHECK(f != NULL);
  if (f) {
    fputs("{\"fields\": [{\"id\": 0, \"name\": \"k\", \"type\": \"INT\"},\n"
          " {\"id\": 1, \"name\": \"v\", \"type\": \"STRING\", \"description\": \"value\"}],\n"
          " \"partitionKeys\": [], \"primaryKeys\": [\"k\"], \"options\": {\"bucket\": \"1\"},\n"
          " \"comment\": \"from json\"}\n",
          f);
    fclose(f);
  }
  CHECK_EQ_INT(sh("%s -w %s table create shop.kv --schema %s", json, &out), 0);
  free(out);
  char s0[600];
  snprintf(s0, sizeof s0, "cat '%s/shop.db/kv/schema/schema-0'", wh);
  CHECK_EQ_INT(run(s0, &out), 0);
  CHECK_MSG(out && strstr(out, "\"type\" : \"INT NOT NULL\"") && strstr(out, "\"comment\" : \"from json\"") &&
                strstr(out, "\"primaryKeys\" : [ \"k\" ]"),
            "schema-0: %s", out ? out : "");
  free(out);
  CHECK_EQ_INT(sh("%s -w %s table create shop.kv --schema %s", json, &out), 1);
  free(out);
  CHECK_EQ_INT(sh("%s -w %s table create shop.kv --ignore-if-exists --schema %s", json, &out), 0);
  free(out);
}

static void test_refusals_leave_warehouse_unchanged(void) {
  char *before = tree(), *out = NULL;
  /* each refusal and a word its message must contain */
  const char *bad[][2] = {
      {"--columns 'a INT, a STRING'", "'a'"},                          /* duplicate column */
      {"--columns 'a INT' --primary-key b", "'b'"},                    /* key not a column */
      {"--columns 'a INT' --partition-keys a --primary-key a", "partition"}, /* PK = partition key */
      {"--columns 'a INT, b INT' --option bucket=2", "bucket-key"},    /* bucketed append without bucket-key */
      {"--columns 'a INT, b INT' --option bucket-key=b", "bucket-key"}, /* bucket-key with bucket -1 */
      {"--columns 'a INT, b INT' --option bucket=abc", "bucket"},      /* invalid value */
      {"--columns 'a INT, m MAP<INT, INT>' --primary-key m", "'m'"},   /* nested key */
      {"--columns 'a INT, _KEY_a INT'", "_KEY_a"},                     /* reserved prefix */
      {"--columns 'a INT' --option merge-engine=nope", "merge-engine"}, /* invalid enum */
      {"--columns 'a INT' --option changelog-producer=input", "changelog-producer"}, /* without PK */
      {"--columns 'a INT, b FOO'", "FOO"},                             /* unknown type */
      {"--columns 'a INT' --option fields.zz.aggregate-function=sum", "zz"},
      {"--columns 'a INT' --option primary-key=a --primary-key a", "primary"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s -w %s table create shop.bad %s 2>&1", PAIMON, wh, bad[i][0]);
    CHECK_MSG(run(cmd, &out) == 1, "%s: %s", bad[i][0], out ? out : "");
    CHECK_MSG(out && strstr(out, "paimon: ") && strstr(out, bad[i][1]), "%s: %s", bad[i][0], out ? out : "");
    free(out);
  }
  CHECK_EQ_INT(sh("%s -w %s table create 'shop.x$snapshots' --columns %s", "'a INT'", &out), 1);
  free(out);
  CHECK_EQ_INT(sh("%s -w %s table create nodb.x --columns %s", "'a INT'", &out), 1);
  free(out);
  char *after = tree();
  CHECK_MSG(before && after && !strcmp(before, after), "warehouse changed:\n%s\n---\n%s", before, after);
  free(before);
  free(after);
  /* usage errors */
  CHECK_EQ_INT(sh("%s -w %s table create shop.y%s", "", &out), 2);
  free(out);
  CHECK_EQ_INT(sh("%s -w %s table create shop.y --columns 'a INT' --schema x.json%s", "", &out), 2);
  free(out);
  CHECK_EQ_INT(sh("%s -w %s db drop shop --bogus%s", "", &out), 2);
  free(out);
}

static void test_drop_rename(void) {
  char *out = NULL;
  CHECK_EQ_INT(sh("%s -w %s table rename shop.kv shop.kv2%s", "", &out), 0);
  free(out);
  CHECK_EQ_INT(sh("%s -w %s table rename shop.kv2 shop.orders%s", "", &out), 1); /* target exists */
  free(out);
  CHECK_EQ_INT(sh("%s -w %s db list-tables shop%s", "", &out), 0);
  CHECK_MSG(out && !strcmp(out, "kv2\norders\n"), "tables: %s", out ? out : "");
  free(out);
  CHECK_EQ_INT(sh("%s -w %s table drop shop.kv2%s", "", &out), 0);
  free(out);
  CHECK_EQ_INT(sh("%s -w %s table drop shop.kv2%s", "", &out), 1);
  free(out);
  CHECK_EQ_INT(sh("%s -w %s db drop shop%s", "", &out), 1); /* not empty */
  free(out);
  CHECK_EQ_INT(sh("%s -w %s db drop shop --cascade%s", "", &out), 0);
  free(out);
  CHECK_EQ_INT(sh("%s -w %s db drop shop --ignore-if-not-exists%s", "", &out), 0);
  free(out);
  CHECK_EQ_INT(sh("%s -w %s db list%s", "", &out), 0);
  CHECK_MSG(out && !strstr(out, "shop"), "db list: %s", out ? out : "");
  free(out);
}

int main(void) {
  snprintf(wh, sizeof wh, "/tmp/pm_cli_ddl_%d", (int)getpid());
  char cmd[600], *out = NULL;
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", wh, wh);
  CHECK(run(cmd, &out) == 0);
  free(out);
  RUN_TEST(test_help);
  RUN_TEST(test_columns_and_schema_file);
  RUN_TEST(test_refusals_leave_warehouse_unchanged);
  RUN_TEST(test_drop_rename);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures) {
    CHECK(run(cmd, &out) == 0);
    free(out);
  }
  TEST_MAIN_END();
}
