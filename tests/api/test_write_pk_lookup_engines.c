/*
 * changelog-producer = lookup with partial-update, aggregation and
 * deduplicate with sequence.field (issue 12 §2; Java's
 * LookupChangelogMergeFunctionWrapper, LookupMergeFunction,
 * LookupMergeTreeCompactRewriter): the lookup compaction of level-0 records
 * merges them with the key's record found in the group or in the levels
 * above its output, in sequence order, and logs the transition from that
 * record to the merged one. Random commits checked against a model after
 * each (support/pk_engine_case.h); the DV variants: test_write_pk_dv_engines.c.
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
#include "support/pk_engine_case.h"

static void test_partial_update(void) {
  const char *opts[] = {"changelog-producer=lookup", "merge-engine=partial-update", "target-file-size=2 kb",
                        "num-sorted-run.compaction-trigger=3"};
  ec_run("lkpu", EC_PARTIAL, opts, 4, 1, 6, 150, 300, 41);
}

static void test_aggregation(void) {
  const char *opts[] = {"changelog-producer=lookup",      "merge-engine=aggregation",
                        "fields.n.aggregate-function=sum", "fields.v.aggregate-function=max",
                        "fields.v.ignore-retract=true",    "target-file-size=2 kb",
                        "num-sorted-run.compaction-trigger=3"};
  ec_run("lkagg", EC_AGG, opts, 7, 1, 6, 150, 300, 43);
}

static void test_sequence_field(void) {
  const char *opts[] = {"changelog-producer=lookup", "sequence.field=n", "target-file-size=2 kb",
                        "num-sorted-run.compaction-trigger=3"};
  ec_run("lkseq", EC_SEQ, opts, 4, 1, 6, 150, 300, 47);
}

/* force-lookup: lookup compaction without changelog (Java's LookupStrategy.needLookup), as the
 * reader's lookup rule (only the newest level > 0 record merges) expects */
static void test_force_lookup(void) {
  const char *opts[] = {"force-lookup=true", "merge-engine=partial-update", "target-file-size=2 kb",
                        "num-sorted-run.compaction-trigger=3"};
  ec_run("flpu", EC_PARTIAL, opts, 4, 0, 5, 150, 300, 53);
}

int main(void) {
  snprintf(wh, sizeof wh, "/tmp/pm_write_pk_lookup_eng_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  RUN_TEST(test_partial_update);
  RUN_TEST(test_aggregation);
  RUN_TEST(test_sequence_field);
  RUN_TEST(test_force_lookup);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && system(cmd)) return 1;
  TEST_MAIN_END();
}
