/*
 * changelog-producer = lookup and merge-engine = first-row on primary-key
 * tables (SEMANTICS 2.4, 3.6; issue 12 §2): the writer's lookup compaction
 * (level-0 files forced up at every flush) produces the changelog of the
 * level-0 records against the values already in the table, committed in the
 * COMPACT snapshot's changelog manifest list.
 * Model (independent of the library): a key -> row map; the expected
 * changelog of a commit (one flush) is, per key the commit touched,
 * before = the model's row before the commit, after = after it: +I after
 * (no before, after present), -D before (before, no after), -U before +
 * +U after (both). After every commit: our reader = the model (and, at the
 * end, and with PAIMON_LONG_TESTS=1 also at the middle commit, paimon-table
 * read = the model and paimon-table check passes), the latest snapshot is COMPACT with
 * changelogRecordCount = the expected changelog, our incremental changelog
 * read of the commit = the expected changelog, and all changelog files read
 * by DuckDB = every commit's expected changelog. Variants: several levels
 * (small files, lookups into higher levels), deletion vectors, first-row
 * (only +I for new keys; later rows of a key are ignored), first-row without
 * changelog, row-deduplicate. Other engines and sequence.field:
 * test_write_pk_lookup_engines.c; lookup options: test_write_pk_lookup_modes.c.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/api_internal.h"
#include "arrow/arrow.h"
#include "arrow/json_read.h"
#include "arrow/type.h"
#include "harness.h"
#include "paimon/write.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/oracle_table.h"
#include "support/oracle_write.h"
#include "support/pk_write.h"

static char wh[256];

#include "support/pk_changelog.h"

/* ------------------------------------------------------------ tests */

static void test_lookup_changelog(void) {
  const char *opts[] = {"changelog-producer=lookup"};
  run_case(&(cl_case){"lk", opts, 1, 0, 1, 6, 40, 30, 1, 1, 0, 0});
}

/* small files and a low trigger: several levels, lookups into levels above the output */
static void test_lookup_changelog_levels(void) {
  const char *opts[] = {"changelog-producer=lookup", "target-file-size=2 kb", "num-sorted-run.compaction-trigger=3",
                        "file.format=parquet"};
  run_case(&(cl_case){"lkl", opts, 4, 0, 1, 6, 200, 300, 2, 7, 0, 0});
}

static void test_lookup_changelog_dv(void) {
  const char *opts[] = {"changelog-producer=lookup", "deletion-vectors.enabled=true", "target-file-size=2 kb",
                        "num-sorted-run.compaction-trigger=3"};
  run_case(&(cl_case){"lkdv", opts, 4, 0, 1, 6, 200, 300, 2, 11, 0, 0});
}

static void test_first_row(void) {
  const char *opts[] = {"merge-engine=first-row", "target-file-size=2 kb", "num-sorted-run.compaction-trigger=3"};
  run_case(&(cl_case){"fr", opts, 3, 1, 0, 5, 150, 300, 2, 5, 0, 0});
}

static void test_first_row_lookup_changelog(void) {
  const char *opts[] = {"merge-engine=first-row", "changelog-producer=lookup", "target-file-size=2 kb",
                        "num-sorted-run.compaction-trigger=3"};
  run_case(&(cl_case){"frl", opts, 4, 1, 1, 5, 150, 300, 2, 9, 0, 0});
}

/* changelog-producer.row-deduplicate: an upsert leaving the row as it was logs nothing */
static void test_lookup_row_dedup(void) {
  const char *opts[] = {"changelog-producer=lookup", "changelog-producer.row-deduplicate=true",
                        "target-file-size=2 kb", "num-sorted-run.compaction-trigger=3"};
  run_case(&(cl_case){"lkdd", opts, 4, 0, 1, 5, 150, 60, 1, 19, 0, 1});
}

int main(void) {
  snprintf(wh, sizeof wh, "/tmp/pm_write_pk_lookup_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  RUN_TEST(test_lookup_changelog);
  RUN_TEST(test_lookup_changelog_levels);
  RUN_TEST(test_lookup_changelog_dv);
  RUN_TEST(test_first_row);
  RUN_TEST(test_first_row_lookup_changelog);
  RUN_TEST(test_lookup_row_dedup);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && system(cmd)) return 1;
  TEST_MAIN_END();
}
