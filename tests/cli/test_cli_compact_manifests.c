/* `paimon table compact-manifests` and `paimon table expire-partitions` on copies of Java-written
 * fixture tables (issue 13): after the compaction paimon-table check passes, every snapshot
 * (paimon-table read, recorded before) reads as before and the new COMPACT snapshot reads as
 * the one before it; a second run has nothing to do; usage, refusals and exit codes. */
#include "harness.h"
#include "support/cli_fixture.h"

static void compact_fixture(const char *table, int n_snapshots) {
  cf_fixture f;
  CHECK(cf_setup(&f, "pm_cli_cm", table) == 0);
  CHECK_EQ_INT(cf_record_snapshots(&f, 1, n_snapshots), 0);
  char args[512], *out = NULL;
  snprintf(args, sizeof args, "table compact-manifests %s", f.ident);
  CHECK_EQ_INT(cf_cli(&f, args, &out), 0);
  char want[64];
  snprintf(want, sizeof want, "snapshot %d", n_snapshots + 1);
  CHECK_MSG(out && strstr(out, "manifests ") && strstr(out, want), "%s: %s", table, out ? out : "");
  free(out);
  CHECK(ot_check_ok(f.dir, OT_ALLOW_OLD, table));
  CHECK_EQ_INT(cf_snapshots_differ(&f, NULL, 1, n_snapshots, table), 0);
  snprintf(args, sizeof args, "--snapshot %d", n_snapshots + 1);
  CHECK(ot_read_equals(f.dir, args, f.rows[n_snapshots], "the COMPACT snapshot"));
  snprintf(args, sizeof args, "table compact-manifests %s", f.ident);
  CHECK_EQ_INT(cf_cli(&f, args, &out), 0);
  CHECK_MSG(out && strstr(out, "Nothing to compact."), "%s", out ? out : "");
  free(out);
  CHECK_EQ_INT(cf_teardown(&f, !pm_test_failures), 0);
}

static void test_compact_pk(void) { compact_fixture("pk_09", 8); }
static void test_compact_append(void) { compact_fixture("append_table_with_alter_table", 2); }

static void test_usage_and_refusals(void) {
  cf_fixture f;
  CHECK(cf_setup(&f, "pm_cli_cm", "pk_09") == 0);
  char *out = NULL;
  CHECK_EQ_INT(cf_cli(&f, "table expire-partitions --help", &out), 0);
  CHECK(out && strstr(out, "--expiration-time") && strstr(out, "--max-expires"));
  free(out);
  CHECK_EQ_INT(cf_cli(&f, "table compact-manifests --help", &out), 0);
  CHECK(out && strstr(out, "usage:"));
  free(out);
  CHECK_EQ_INT(cf_cli(&f, "table expire-partitions pk_09.pk_09 --bogus", &out), 2);
  free(out);
  CHECK_EQ_INT(cf_cli(&f, "table expire-partitions pk_09.pk_09 --max-expires 0 --expiration-time '1 d'", &out), 2);
  free(out);
  CHECK_EQ_INT(cf_cli(&f, "table expire-partitions", &out), 2);
  free(out);
  CHECK_EQ_INT(cf_cli(&f, "table compact-manifests", &out), 2);
  free(out);
  /* no expiration time anywhere: an error naming the option */
  CHECK_EQ_INT(cf_cli(&f, "table expire-partitions pk_09.pk_09", &out), 1);
  CHECK(out && strstr(out, "partition.expiration-time"));
  free(out);
  /* integer partition values are no time: nothing expires, nothing is committed */
  CHECK_EQ_INT(cf_cli(&f, "table expire-partitions pk_09.pk_09 --expiration-time '1 d'", &out), 0);
  CHECK(out && strstr(out, "No expired partitions."));
  free(out);
  CHECK(!cf_exists(&f, "snapshot/snapshot-9"));
  /* update-time: the fixture's files were written long ago; a dry run lists them, commits nothing */
  CHECK_EQ_INT(cf_cli(&f, "table expire-partitions pk_09.pk_09 --expiration-time '1 d' --expire-strategy update-time "
                          "--dry-run", &out), 0);
  CHECK_MSG(out && strstr(out, "f1="), "%s", out ? out : "");
  free(out);
  CHECK(!cf_exists(&f, "snapshot/snapshot-9"));
  CHECK_EQ_INT(cf_teardown(&f, !pm_test_failures), 0);
}

int main(void) {
  if (!ot_available()) TEST_MAIN_END();
  RUN_TEST(test_compact_pk);
  RUN_TEST(test_compact_append);
  RUN_TEST(test_usage_and_refusals);
  TEST_MAIN_END();
}
