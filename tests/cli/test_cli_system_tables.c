/* `paimon table read DB.T$<system table>` with --select / --where / --limit (issue 10 #1):
 * applied exactly, unknown columns fail, run as a process. */
#include <jansson.h>
#include <sys/wait.h>

#include "harness.h"

#define PAIMON PAIMON_BINARY_DIR "/paimon"
#define WH PM_SHARED("fixtures/warehouse/parquet")

#include "support/cli_run.h"

/* jsonl lines of `table read IDENT ARGS --format jsonl` as JSON objects (array), or NULL on failure. */
static json_t *read_jsonl(const char *ident, const char *args, int *status) {
  char cmd[2048], *out = NULL;
  snprintf(cmd, sizeof cmd, "%s -w %s table read '%s' %s --format jsonl 2>&1", PAIMON, WH, ident, args);
  *status = run(cmd, &out);
  json_t *rows = json_array();
  for (char *line = out; *line;) {
    char *nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) : strlen(line);
    json_error_t je;
    json_t *o = len ? json_loadb(line, len, 0, &je) : NULL;
    if (len && !o) fprintf(stderr, "not jsonl: %.*s\n", (int)len, line);
    if (o) json_array_append_new(rows, o);
    line += len + (nl ? 1 : 0);
  }
  free(out);
  return rows;
}

static size_t n_keys(json_t *o) { return json_object_size(o); }

/* The example, and a filter naming no column. */
static void test_snapshots_select_where(void) {
  int st;
  json_t *all = read_jsonl("pk_09.pk_09$snapshots", "", &st);
  CHECK_EQ_INT(st, 0);
  size_t compacts = 0;
  for (size_t i = 0; i < json_array_size(all); i++) {
    const char *k = json_string_value(json_object_get(json_array_get(all, i), "commit_kind"));
    compacts += k && !strcmp(k, "COMPACT");
  }
  CHECK(json_array_size(all) == 8 && compacts > 0 && compacts < 8);
  json_t *r = read_jsonl("pk_09.pk_09$snapshots", "--select snapshot_id,commit_kind --where \"commit_kind = 'COMPACT'\"",
                         &st);
  CHECK_EQ_INT(st, 0);
  CHECK_EQ_INT(json_array_size(r), compacts);
  for (size_t i = 0; i < json_array_size(r); i++) {
    json_t *o = json_array_get(r, i);
    CHECK_EQ_INT(n_keys(o), 2);
    CHECK_EQ_STR(json_string_value(json_object_get(o, "commit_kind")), "COMPACT");
    CHECK(json_is_integer(json_object_get(o, "snapshot_id")));
  }
  json_decref(r);
  json_decref(all);
  char cmd[1024], *out = NULL;
  snprintf(cmd, sizeof cmd, "%s -w %s table read 'pk_09.pk_09$snapshots' --where 'nosuchcol = 1' 2>&1", PAIMON, WH);
  st = run(cmd, &out);
  CHECK(st != 0 && strstr(out, "nosuchcol") != NULL);
  free(out);
  snprintf(cmd, sizeof cmd, "%s -w %s table read 'pk_09.pk_09$options' --select nosuchcol 2>&1", PAIMON, WH);
  st = run(cmd, &out);
  CHECK(st != 0 && strstr(out, "nosuchcol") != NULL);
  free(out);
}

/* Every system table takes --select, --where and --limit. */
static void test_every_system_table(void) {
  static const char *const tables[][3] = {
      {"snapshots", "schema_id", "snapshot_id > 3"},     {"schemas", "schema_id", "schema_id >= 0"},
      {"options", "value", "key like '%'"},               {"files", "file_path", "level > 0"},
      {"partitions", "record_count", "file_count > 1"},   {"tags", "tag_name", "snapshot_id > 0"},
      {"branches", "branch_name", "branch_name is null"}, {"manifests", "file_size", "num_deleted_files > 0"}};
  for (size_t k = 0; k < sizeof tables / sizeof tables[0]; k++) {
    char ident[128], args[512];
    snprintf(ident, sizeof ident, "pk_09.pk_09$%s", tables[k][0]);
    int st;
    json_t *all = read_jsonl(ident, "", &st);
    CHECK_EQ_INT(st, 0);
    snprintf(args, sizeof args, "--select %s --where \"%s\"", tables[k][1], tables[k][2]);
    json_t *r = read_jsonl(ident, args, &st);
    CHECK_MSG(st == 0, "%s %s", ident, args);
    CHECK_MSG(json_array_size(r) <= json_array_size(all), "%s", ident);
    for (size_t i = 0; i < json_array_size(r); i++) CHECK_EQ_INT(n_keys(json_array_get(r, i)), 1);
    json_decref(r);
    snprintf(args, sizeof args, "--select %s --limit 1", tables[k][1]);
    r = read_jsonl(ident, args, &st);
    CHECK_EQ_INT(st, 0);
    CHECK_EQ_INT(json_array_size(r), json_array_size(all) ? 1 : 0);
    json_decref(r);
    json_decref(all);
  }
  /* exact: level > 0 keeps exactly the files above level 0 */
  int st;
  json_t *all = read_jsonl("pk_09.pk_09$files", "--select level", &st);
  json_t *r = read_jsonl("pk_09.pk_09$files", "--select level --where 'level > 0'", &st);
  size_t want = 0;
  for (size_t i = 0; i < json_array_size(all); i++)
    want += json_integer_value(json_object_get(json_array_get(all, i), "level")) > 0;
  CHECK(want > 0);
  CHECK_EQ_INT(json_array_size(r), want);
  json_decref(r);
  json_decref(all);
}

/* Time travel still applies to $files together with a filter. */
static void test_files_time_travel(void) {
  int st;
  json_t *r = read_jsonl("pk_09.pk_09$files", "--snapshot 1 --select record_count,bucket --where 'bucket = 0'", &st);
  CHECK_EQ_INT(st, 0);
  CHECK(json_array_size(r) > 0);
  for (size_t i = 0; i < json_array_size(r); i++)
    CHECK_EQ_INT(json_integer_value(json_object_get(json_array_get(r, i), "bucket")), 0);
  json_decref(r);
}

int main(void) {
  RUN_TEST(test_snapshots_select_where);
  RUN_TEST(test_every_system_table);
  RUN_TEST(test_files_time_travel);
  TEST_MAIN_END();
}
