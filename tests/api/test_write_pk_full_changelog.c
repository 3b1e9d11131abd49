/*
 * changelog-producer = full-compaction on primary-key tables (SEMANTICS 2.4;
 * issue 12 §2; Java's FullChangelogMergeTreeCompactRewriter and
 * FullChangelogMergeFunctionWrapper): changelog only from compactions to the
 * max level, per key of the files below it against its record at the max
 * level; full compactions at every batch commit, or every
 * full-compaction.delta-commits streaming commits. The model
 * (support/pk_changelog.h): the expected changelog of a full compaction is
 * the transition of every key touched since the previous one; commits
 * without a full compaction have no changelog. Both readers = the model,
 * paimon-table check passes, our changelog read and DuckDB on the changelog
 * files = the model's transitions.
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

static void test_full_changelog_batch(void) {
  const char *opts[] = {"changelog-producer=full-compaction"};
  run_case(&(cl_case){"fc", opts, 1, 0, 1, 5, 60, 40, 1, 3, 0, 0});
}

/* streaming commits 1..7, a full compaction (and changelog) at 2, 4, 6 */
static void test_full_changelog_delta_commits(void) {
  const char *opts[] = {"changelog-producer=full-compaction", "full-compaction.delta-commits=2"};
  run_case(&(cl_case){"fcd", opts, 2, 0, 1, 7, 80, 60, 1, 13, 2, 0});
}

/* unset delta-commits with streaming commits: a full compaction at every commit */
static void test_full_changelog_streaming_default(void) {
  const char *opts[] = {"changelog-producer=full-compaction", "changelog-file.prefix=changelog-fc-"};
  run_case(&(cl_case){"fcs", opts, 2, 0, 1, 4, 60, 40, 1, 17, 1, 0});
}

/* changelog-producer.row-deduplicate: a key upserted back to its value at the last full compaction logs nothing */
static void test_full_changelog_row_dedup(void) {
  const char *opts[] = {"changelog-producer=full-compaction", "changelog-producer.row-deduplicate=true"};
  run_case(&(cl_case){"fcdd", opts, 2, 0, 1, 4, 100, 40, 1, 23, 0, 1});
}

static void test_full_changelog_refusals(void) {
  const char *a[] = {"changelog-producer=full-compaction", "deletion-vectors.enabled=true"};
  refused("rfdv", a, 2, "deletion vectors");
}

int main(void) {
  snprintf(wh, sizeof wh, "/tmp/pm_write_pk_fullcl_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  RUN_TEST(test_full_changelog_batch);
  RUN_TEST(test_full_changelog_delta_commits);
  RUN_TEST(test_full_changelog_streaming_default);
  RUN_TEST(test_full_changelog_row_dedup);
  RUN_TEST(test_full_changelog_refusals);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && system(cmd)) return 1;
  TEST_MAIN_END();
}
