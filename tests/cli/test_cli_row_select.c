/* `paimon table read / explain` with --row-slice, --row-shard, --shard and --row-ranges on Java-written
 * fixtures: rows as the fixture's expected rows say (append_10 in file order, data_evolution_with_dense_stats
 * by _ROW_ID), shards concatenate to the whole read, and bad values are exit 2 with the option named. */
#include <string.h>

#include "harness.h"
#include "support/cli_run.h"

#define PAIMON PAIMON_BINARY_DIR "/paimon"
#define WH PM_SHARED("fixtures/warehouse/parquet")
#define A10 " table read append_10.append_10 --format csv"
#define DE " table read data_evolution_with_dense_stats.data_evolution_with_dense_stats --select f0,_ROW_ID --format csv"

static void expect(const char *args, int code, const char *want) {
  char cmd[1024], *out = NULL;
  snprintf(cmd, sizeof cmd, PAIMON " -w " WH "%s 2>&1", args);
  int rc = run(cmd, &out);
  CHECK_MSG(rc == code, "%s: exit %d, expected %d: %s", args, rc, code, out ? out : "");
  if (want) CHECK_MSG(out && strstr(out, want), "%s: output %s lacks %s", args, out ? out : "", want);
  free(out);
}

static void test_slices_and_shards(void) {
  /* append_10's expected rows in file order: Alice, Bob, Emily, Tony, Lucy */
  expect(A10 " --row-slice 1:3", 0, "f0,f1,f2,f3\nBob,10,0,12.1\nEmily,10,0,13.1\n");
  expect(A10 " --row-slice 4:100", 0, "f0,f1,f2,f3\nLucy,20,1,14.1\n");
  expect(A10 " --row-shard 0/2", 0, "f0,f1,f2,f3\nAlice,10,1,11.1\nBob,10,0,12.1\nEmily,10,0,13.1\n");
  expect(A10 " --row-shard 1/2", 0, "f0,f1,f2,f3\nTony,10,0,14.1\nLucy,20,1,14.1\n");
  expect(A10 " --shard 1/2", 0, "f0,f1,f2,f3\nTony,10,0,14.1\nLucy,20,1,14.1\n");
  expect(" table explain append_10.append_10 --row-slice 0:1", 0, "split 0: bucket 0, 1 files, 1 rows, raw\n");
}

static void test_row_ranges(void) {
  expect(DE " --row-ranges 1-1", 0, "f0,_ROW_ID\nAlice,1\n");
  expect(DE " --row-ranges 0", 0, "f0,_ROW_ID\nLily,0\n");
  expect(DE " --row-ranges 0-5 --row-slice 1:2", 0, "f0,_ROW_ID\nAlice,1\n");
  expect(DE " --row-ranges ''", 0, "f0,_ROW_ID\n");
}

static void test_errors(void) {
  expect(A10 " --row-slice 3:1", 1, "start 3 must be less than end 1");
  expect(A10 " --row-slice 3", 2, "invalid value for --row-slice: '3'");
  expect(A10 " --row-shard 2/2", 1, "shard index 2 is out of range [0, 2)");
  expect(A10 " --row-shard 0/0", 1, "shard count 0 must be positive");
  expect(A10 " --row-slice 0:1 --row-shard 0/2", 1, "mutually exclusive");
  expect(A10 " --row-ranges 1-2", 1, "has no row ids");
  expect(DE " --row-ranges 1-x", 2, "invalid value for --row-ranges");
  expect(DE " --row-ranges 5-3", 1, "from must not exceed to");
  expect(" table read pk_09.pk_09 --row-slice 0:1", 1, "has a primary key");
  expect(A10 " --row-slice 0:1 --row-slice 1:2", 2, "--row-slice given twice");
  expect(" table files append_10.append_10 --row-slice 0:1", 2, "does not apply");
}

int main(void) {
  RUN_TEST(test_slices_and_shards);
  RUN_TEST(test_row_ranges);
  RUN_TEST(test_errors);
  TEST_MAIN_END();
}
