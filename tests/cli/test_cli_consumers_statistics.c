/* `paimon table read DB.T$consumers` and `DB.T$statistics` (issue 13 §3, Java's ConsumersTable and
 * StatisticTable) on a copy of a Java-written fixture table: consumer files and a statistics file
 * laid down by hand in Java's layouts, the latest snapshot pointed at the statistics file; the rows
 * must be the values those files hold (colstat: the colStats map as Java's pretty printer prints
 * the ColStats objects it read: fixed property order, nulls and unknown keys gone). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define PAIMON PAIMON_BINARY_DIR "/paimon"
#define FIXTURE_DB PM_SHARED("fixtures/warehouse/parquet/pk_09.db")

#include "support/cli_run.h"

static char wh[256];

static void write_text(const char *rel, const char *text) {
  char p[1024];
  snprintf(p, sizeof p, "%s/pk_09.db/pk_09/%s", wh, rel);
  FILE *f = fopen(p, "wb");
  CHECK_MSG(f != NULL, "open %s", p);
  if (!f) return;
  fputs(text, f);
  fclose(f);
}

/* jsonl rows of `table read IDENT ARGS --format jsonl` (array), *status the exit code. */
static json_t *read_rows(const char *ident, const char *args, int *status, char **text) {
  char cmd[2048], *out = NULL;
  snprintf(cmd, sizeof cmd, "%s -w %s table read '%s' %s --format jsonl 2>&1", PAIMON, wh, ident, args);
  *status = run(cmd, &out);
  json_t *rows = json_array();
  for (char *line = out; line && *line;) {
    char *nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) : strlen(line);
    json_error_t je;
    json_t *o = len ? json_loadb(line, len, 0, &je) : NULL;
    if (o) json_array_append_new(rows, o);
    line += len + (nl ? 1 : 0);
  }
  if (text) *text = out;
  else free(out);
  return rows;
}

static void test_consumers(void) {
  int st;
  json_t *r = read_rows("pk_09.pk_09$consumers", "", &st, NULL);
  CHECK_EQ_INT(st, 0);
  CHECK_EQ_INT(json_array_size(r), 0);
  json_decref(r);
  char dir[1024];
  snprintf(dir, sizeof dir, "mkdir -p '%s/pk_09.db/pk_09/consumer'", wh);
  CHECK(system(dir) == 0);
  /* Java's ConsumerManager layout (pretty JSON) and a compact one */
  write_text("consumer/consumer-reader_b", "{\n  \"nextSnapshot\" : 7\n}");
  write_text("consumer/consumer-a1", "{\"nextSnapshot\":3}");
  r = read_rows("pk_09.pk_09$consumers", "", &st, NULL);
  CHECK_EQ_INT(st, 0);
  CHECK_EQ_INT(json_array_size(r), 2);
  if (json_array_size(r) == 2) {
    CHECK_EQ_STR(json_string_value(json_object_get(json_array_get(r, 0), "consumer_id")), "a1");
    CHECK_EQ_INT(json_integer_value(json_object_get(json_array_get(r, 0), "next_snapshot_id")), 3);
    CHECK_EQ_STR(json_string_value(json_object_get(json_array_get(r, 1), "consumer_id")), "reader_b");
    CHECK_EQ_INT(json_integer_value(json_object_get(json_array_get(r, 1), "next_snapshot_id")), 7);
  }
  json_decref(r);
  r = read_rows("pk_09.pk_09$consumers", "--select consumer_id --where 'next_snapshot_id > 5'", &st, NULL);
  CHECK_EQ_INT(st, 0);
  CHECK_EQ_INT(json_array_size(r), 1);
  CHECK_EQ_STR(json_string_value(json_object_get(json_array_get(r, 0), "consumer_id")), "reader_b");
  CHECK_EQ_INT(json_object_size(json_array_get(r, 0)), 1);
  json_decref(r);
  /* a damaged consumer file is an error naming it */
  write_text("consumer/consumer-bad", "{\"next\":");
  char *text = NULL;
  r = read_rows("pk_09.pk_09$consumers", "", &st, &text);
  CHECK(st != 0 && text && strstr(text, "consumer-bad"));
  free(text);
  json_decref(r);
  snprintf(dir, sizeof dir, "%s/pk_09.db/pk_09/consumer/consumer-bad", wh);
  CHECK(unlink(dir) == 0);
}

static const char STATS_FILE[] =
    "{\n  \"snapshotId\" : 8,\n  \"schemaId\" : 0,\n  \"mergedRecordCount\" : 12,\n  \"mergedRecordSize\" : 3456,\n"
    "  \"colStats\" : {\n    \"k\" : {\n      \"colId\" : 0,\n      \"distinctCount\" : 5,\n      \"min\" : \"1\",\n"
    "      \"max\" : \"9\",\n      \"nullCount\" : 0,\n      \"avgLen\" : 8,\n      \"maxLen\" : 8\n    },\n"
    "    \"b_name\" : {\"maxLen\" : 3, \"colId\" : 1, \"nullCount\" : 2, \"min\" : null, \"futureKey\" : 1,\n"
    "      \"max\" : \"z\\\"q\"}\n  }\n}";
/* what Java's StatisticTable prints for colStats of the file above */
static const char COLSTAT[] = "{\n  \"k\" : {\n    \"colId\" : 0,\n    \"distinctCount\" : 5,\n    \"min\" : \"1\",\n"
                              "    \"max\" : \"9\",\n    \"nullCount\" : 0,\n    \"avgLen\" : 8,\n    \"maxLen\" : 8\n"
                              "  },\n  \"b_name\" : {\n    \"colId\" : 1,\n    \"max\" : \"z\\\"q\",\n"
                              "    \"nullCount\" : 2,\n    \"maxLen\" : 3\n  }\n}";

static void test_statistics(void) {
  int st;
  json_t *r = read_rows("pk_09.pk_09$statistics", "", &st, NULL);
  CHECK_EQ_INT(st, 0);
  CHECK_EQ_INT(json_array_size(r), 0); /* no snapshot has statistics */
  json_decref(r);
  char dir[1024];
  snprintf(dir, sizeof dir, "mkdir -p '%s/pk_09.db/pk_09/statistics'", wh);
  CHECK(system(dir) == 0);
  write_text("statistics/stat-0c1f2d3e-test-0", STATS_FILE);
  /* point the latest snapshot at it (as an ANALYZE commit would) */
  char snap[1024];
  snprintf(snap, sizeof snap, "%s/pk_09.db/pk_09/snapshot/snapshot-8", wh);
  json_error_t je;
  json_t *s = json_load_file(snap, 0, &je);
  CHECK(s != NULL);
  if (!s) return;
  json_object_set_new(s, "statistics", json_string("stat-0c1f2d3e-test-0"));
  CHECK(json_dump_file(s, snap, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0);
  json_decref(s);
  r = read_rows("pk_09.pk_09$statistics", "", &st, NULL);
  CHECK_EQ_INT(st, 0);
  CHECK_EQ_INT(json_array_size(r), 1);
  json_t *row = json_array_get(r, 0);
  CHECK_EQ_INT(json_integer_value(json_object_get(row, "snapshot_id")), 8);
  CHECK_EQ_INT(json_integer_value(json_object_get(row, "schema_id")), 0);
  CHECK_EQ_INT(json_integer_value(json_object_get(row, "mergedRecordCount")), 12);
  CHECK_EQ_INT(json_integer_value(json_object_get(row, "mergedRecordSize")), 3456);
  CHECK_EQ_STR(json_string_value(json_object_get(row, "colstat")), COLSTAT);
  json_decref(r);
  /* time travel to a snapshot without statistics: no row */
  r = read_rows("pk_09.pk_09$statistics", "--option scan.snapshot-id=7", &st, NULL);
  CHECK_EQ_INT(st, 0);
  CHECK_EQ_INT(json_array_size(r), 0);
  json_decref(r);
  /* the statistics file gone: an error naming it */
  char p[1024], *text = NULL;
  snprintf(p, sizeof p, "%s/pk_09.db/pk_09/statistics/stat-0c1f2d3e-test-0", wh);
  unlink(p);
  r = read_rows("pk_09.pk_09$statistics", "", &st, &text);
  CHECK(st != 0 && text && strstr(text, "stat-0c1f2d3e-test-0"));
  free(text);
  json_decref(r);
}

int main(void) {
  snprintf(wh, sizeof wh, "/tmp/pm_cli_sysmaint_%d", (int)getpid());
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s' && cp -r '%s' '%s/'", wh, wh, FIXTURE_DB, wh);
  CHECK(system(cmd) == 0);
  snprintf(cmd, sizeof cmd, "chmod -R u+w '%s'", wh);
  CHECK(system(cmd) == 0);
  RUN_TEST(test_consumers);
  RUN_TEST(test_statistics);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  CHECK(system(cmd) == 0);
  TEST_MAIN_END();
}
