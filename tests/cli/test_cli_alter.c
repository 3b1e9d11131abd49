/*
 * paimon table alter DB.T ACTION on a copy of a Java-written table: every action, --help on
 * each, usage errors (exit 2), refusals (exit 1, no schema file written); after the alters
 * `paimon table read --format jsonl` and paimon-table read --schema-id N both return the
 * fixture's rows under the new schema, and paimon-table check passes.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "support/cli_run.h"
#include "support/oracle_table.h"

#define CLI PAIMON_BINARY_DIR "/paimon"
#define FIX_TABLE "parquet/append_table_with_alter_table.db/append_table_with_alter_table"
#define FIX_EXPECTED "parquet__append_table_with_alter_table__snapshot-2.json"

static char wh[256], table_dir[512];

static int cli(const char *args, char **out) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "%s -w '%s' %s 2>/tmp/pm_cli_alter_err_%d", CLI, wh, args, (int)getpid());
  return run(cmd, out);
}

static char *last_stderr(void) {
  char p[64];
  snprintf(p, sizeof p, "/tmp/pm_cli_alter_err_%d", (int)getpid());
  FILE *f = fopen(p, "r");
  char *buf = calloc(1, 8192);
  if (f && buf) {
    size_t n = fread(buf, 1, 8191, f);
    buf[n] = 0;
  }
  if (f) fclose(f);
  return buf;
}

static int ok(const char *args) {
  char *out = NULL;
  int rc = cli(args, &out);
  free(out);
  if (rc != 0) {
    char *e = last_stderr();
    fprintf(stderr, "paimon %s: exit %d: %s\n", args, rc, e ? e : "");
    free(e);
  }
  return rc == 0;
}

/* Exit code of the command; *msg (may be NULL) gets stderr. */
static int code(const char *args, char **msg) {
  char *out = NULL;
  int rc = cli(args, &out);
  free(out);
  if (msg) *msg = last_stderr();
  return rc;
}

static int n_schemas(void) {
  char cmd[700];
  snprintf(cmd, sizeof cmd, "ls '%s/schema' | grep -c '^schema-'", table_dir);
  char *out = NULL;
  run(cmd, &out);
  int n = out ? atoi(out) : 0;
  free(out);
  return n;
}

static json_t *latest_schema(void) {
  char p[700];
  snprintf(p, sizeof p, "%s/schema/schema-%d", table_dir, n_schemas() - 1);
  json_error_t je;
  return json_load_file(p, 0, &je);
}

static const json_t *schema_field(const json_t *s, const char *name) {
  size_t i;
  json_t *f;
  json_array_foreach(json_object_get(s, "fields"), i, f) if (!strcmp(json_string_value(json_object_get(f, "name")), name)) return f;
  return NULL;
}

static void test_help_and_usage(void) {
  char *out = NULL;
  CHECK_EQ_INT(cli("table alter --help", &out), 0);
  CHECK(out && strstr(out, "add-column") && strstr(out, "update-comment") && strstr(out, "move-column"));
  free(out);
  const char *actions[] = {"add-column", "drop-column", "rename-column", "update-column-type",
                           "update-column-nullability", "update-column-comment", "move-column", "set-option",
                           "remove-option", "update-comment"};
  for (size_t i = 0; i < sizeof actions / sizeof actions[0]; i++) {
    char args[256];
    snprintf(args, sizeof args, "table alter db.t %s --help", actions[i]);
    CHECK_EQ_INT(cli(args, &out), 0);
    CHECK_MSG(out && strstr(out, actions[i]) && strstr(out, "usage:"), "%s --help: %s", actions[i], out ? out : "");
    free(out);
  }
  CHECK(strstr(CLI, "paimon") != NULL);
  CHECK_EQ_INT(cli("--help", &out), 0);
  CHECK(out && strstr(out, "table alter"));
  free(out);
  int before = n_schemas();
  char *msg = NULL;
  CHECK_EQ_INT(code("table alter db.t frobnicate x", &msg), 2);
  CHECK(msg && strstr(msg, "frobnicate"));
  free(msg);
  CHECK_EQ_INT(code("table alter db.t", NULL), 2);
  CHECK_EQ_INT(code("table alter db.t drop-column", NULL), 2);
  CHECK_EQ_INT(code("table alter db.t rename-column a", NULL), 2);
  CHECK_EQ_INT(code("table alter db.t set-option novalue", NULL), 2);
  CHECK_EQ_INT(code("table alter db.t update-column-nullability a maybe", NULL), 2);
  CHECK_EQ_INT(code("table alter db.t add-column \"x INT COMMENT 'open\"", &msg), 2);
  CHECK(msg && strstr(msg, "cannot parse column"));
  free(msg);
  CHECK_EQ_INT(code("table alter db.t add-column 'x INT' --after", NULL), 2);
  CHECK_EQ_INT(code("table alter db.t add-column x", NULL), 2);
  CHECK_EQ_INT(n_schemas(), before);
}

static void test_actions(void) {
  int s0 = n_schemas();
  CHECK(ok("table alter db.t add-column \"n STRING COMMENT 'it''s new'\" --after c"));
  CHECK(ok("table alter db.t add-column '`first col` INT' --first"));
  /* the example as a shell passes it: c2x INT COMMENT x */
  CHECK(ok("table alter db.t add-column 'c2x INT COMMENT ''x''' --after n"));
  json_t *sx = latest_schema();
  const json_t *fx = sx ? schema_field(sx, "c2x") : NULL;
  CHECK(fx && !strcmp(json_string_value(json_object_get(fx, "description")), "x"));
  json_decref(sx);
  CHECK(ok("table alter db.t drop-column c2x"));
  CHECK(ok("table alter db.t rename-column c c2"));
  CHECK(ok("table alter db.t update-column-type k BIGINT"));
  CHECK(ok("table alter db.t update-column-comment a 'the a'"));
  CHECK(ok("table alter db.t set-option snapshot.num-retained.min=5"));
  CHECK(ok("table alter db.t set-option write-buffer-size=64mb"));
  CHECK(ok("table alter db.t remove-option write-buffer-size"));
  CHECK(ok("table alter db.t update-comment 'altered from the CLI'"));
  CHECK(ok("table alter db.t move-column e --after key1"));
  CHECK(ok("table alter db.t drop-column 'first col'"));
  CHECK_EQ_INT(n_schemas(), s0 + 13);
  json_t *s = latest_schema();
  CHECK(s != NULL);
  if (s) {
    const char *order[] = {"key0", "key1", "e", "k", "c2", "n", "d", "a"};
    json_t *fields = json_object_get(s, "fields");
    CHECK_EQ_INT(json_array_size(fields), 8);
    for (size_t i = 0; i < 8 && i < json_array_size(fields); i++)
      CHECK_EQ_STR(json_string_value(json_object_get(json_array_get(fields, i), "name")), order[i]);
    const json_t *n = schema_field(s, "n");
    CHECK(n && !strcmp(json_string_value(json_object_get(n, "description")), "it's new"));
    CHECK(n && json_integer_value(json_object_get(n, "id")) == 9);
    CHECK_EQ_STR(json_string_value(json_object_get(schema_field(s, "k"), "type")), "BIGINT");
    CHECK_EQ_STR(json_string_value(json_object_get(schema_field(s, "a"), "description")), "the a");
    CHECK_EQ_STR(json_string_value(json_object_get(s, "comment")), "altered from the CLI");
    json_t *o = json_object_get(s, "options");
    CHECK_EQ_STR(json_string_value(json_object_get(o, "snapshot.num-retained.min")), "5");
    CHECK(json_object_get(o, "write-buffer-size") == NULL);
    CHECK_EQ_INT(json_integer_value(json_object_get(s, "highestFieldId")), 11);
  }
  json_decref(s);

  /* refusals: exit 1 naming the column / option, nothing written */
  int before = n_schemas();
  char *msg = NULL;
  CHECK_EQ_INT(code("table alter db.t drop-column key0", &msg), 1);
  CHECK_MSG(msg && strstr(msg, "key0"), "%s", msg ? msg : "");
  free(msg);
  CHECK_EQ_INT(code("table alter db.t update-column-nullability a not-null", &msg), 1);
  CHECK_MSG(msg && strstr(msg, "nullable"), "%s", msg ? msg : "");
  free(msg);
  CHECK_EQ_INT(code("table alter db.t set-option merge-engine=first-row", &msg), 1);
  CHECK_MSG(msg && strstr(msg, "merge-engine"), "%s", msg ? msg : "");
  free(msg);
  CHECK_EQ_INT(code("table alter db.t update-column-type a DATE", &msg), 1);
  CHECK_MSG(msg && strstr(msg, "cannot be converted"), "%s", msg ? msg : "");
  free(msg);
  CHECK_EQ_INT(code("table alter db.t add-column 'x NOPE'", &msg), 1);
  CHECK_MSG(msg && strstr(msg, "x"), "%s", msg ? msg : "");
  free(msg);
  CHECK_EQ_INT(code("table alter db.none drop-column a", &msg), 1);
  CHECK_MSG(msg && strstr(msg, "db.none"), "%s", msg ? msg : "");
  free(msg);
  CHECK_EQ_INT(n_schemas(), before);

  /* reads after the alters: our CLI and paimon-table agree with the fixture's rows */
  json_error_t je;
  json_t *e = json_load_file(PAIMON_SHARED_DIR "/fixtures/expected/" FIX_EXPECTED, 0, &je);
  CHECK(e != NULL);
  if (!e) return;
  const char *names[] = {"key0", "key1", "k", "c2", "d", "a", "e"};
  json_t *want = ot_rows_from_arrays(json_object_get(e, "rows"), names, 7);
  size_t i;
  json_t *r;
  json_array_foreach(want, i, r) json_object_set_new(r, "n", json_null());
  char *out = NULL;
  CHECK_EQ_INT(cli("table read db.t --format jsonl", &out), 0);
  size_t bad = 0;
  json_t *ours = out ? ot_parse_lines(out, &bad) : NULL;
  char m[512] = "";
  CHECK_MSG(ours && ot_rows_match(want, ours, m, sizeof m), "paimon table read: %s", m);
  json_decref(ours);
  free(out);
  if (ot_available()) {
    char extra[64];
    snprintf(extra, sizeof extra, "--schema-id %d", n_schemas() - 1);
    CHECK(ot_read_equals(table_dir, extra, want, "paimon-table read after CLI alters"));
    CHECK(ot_check_ok(table_dir, OT_ALLOW_OLD, "after CLI alters"));
  }
  json_decref(want);
  json_decref(e);
}

int main(void) {
  snprintf(wh, sizeof wh, "/tmp/pm_cli_alter_XXXXXX");
  CHECK(mkdtemp(wh) != NULL);
  snprintf(table_dir, sizeof table_dir, "%s/db.db/t", wh);
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s/db.db' && cp -r '%s/fixtures/warehouse/%s' '%s' && chmod -R u+w '%s'", wh,
           PAIMON_SHARED_DIR, FIX_TABLE, table_dir, wh);
  CHECK(system(cmd) == 0);
  RUN_TEST(test_help_and_usage);
  RUN_TEST(test_actions);
  snprintf(cmd, sizeof cmd, "rm -rf '%s' /tmp/pm_cli_alter_err_%d", wh, (int)getpid());
  CHECK(system(cmd) == 0);
  TEST_MAIN_END();
}
