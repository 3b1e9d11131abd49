/* meta/path_factory.h: Java's file names (one UUID per factory, a counter per kind from 0). */
#include "harness.h"
#include "meta/path_factory.h"

static void test_names(void) {
  pm_path_factory pf, other;
  pm_path_factory_init(&pf, pm_fs_local(), "/w/db.db/t");
  pm_path_factory_init(&other, pm_fs_local(), "/w/db.db/t");
  CHECK_EQ_INT(strlen(pf.uuid), 36);
  CHECK(strcmp(pf.uuid, other.uuid) != 0);
  char want[256];
  char *p = pm_path_factory_new_manifest(&pf);
  snprintf(want, sizeof want, "/w/db.db/t/manifest/manifest-%s-0", pf.uuid);
  CHECK_EQ_STR(p, want);
  free(p);
  p = pm_path_factory_new_manifest(&pf);
  snprintf(want, sizeof want, "/w/db.db/t/manifest/manifest-%s-1", pf.uuid);
  CHECK_EQ_STR(p, want);
  free(p);
  p = pm_path_factory_new_manifest_list(&pf);
  snprintf(want, sizeof want, "/w/db.db/t/manifest/manifest-list-%s-0", pf.uuid);
  CHECK_EQ_STR(p, want);
  free(p);
  p = pm_path_factory_new_index_file(&pf);
  snprintf(want, sizeof want, "/w/db.db/t/index/index-%s-0", pf.uuid);
  CHECK_EQ_STR(p, want);
  free(p);
  p = pm_path_factory_new_data_file(&pf, "/w/db.db/t/f1=10/bucket-0", "parquet", 0);
  snprintf(want, sizeof want, "/w/db.db/t/f1=10/bucket-0/data-%s-0.parquet", pf.uuid);
  CHECK_EQ_STR(p, want);
  free(p);
  p = pm_path_factory_new_data_file(&pf, "/w/db.db/t/bucket-1", "orc", 1);
  snprintf(want, sizeof want, "/w/db.db/t/bucket-1/changelog-%s-1.orc", pf.uuid);
  CHECK_EQ_STR(p, want);
  free(p);
}

/* data-file.prefix / changelog-file.prefix as the table sets them (NULL: Java's defaults). */
static void test_prefixes(void) {
  pm_path_factory pf;
  pm_path_factory_init(&pf, pm_fs_local(), "/t");
  char want[256];
  pm_path_factory_set_prefixes(&pf, "part-", "cl_");
  char *p = pm_path_factory_new_data_file(&pf, "/t/p=1/bucket-2", "avro", 0);
  snprintf(want, sizeof want, "/t/p=1/bucket-2/part-%s-0.avro", pf.uuid);
  CHECK_EQ_STR(p, want);
  free(p);
  p = pm_path_factory_new_data_file(&pf, "/t/p=1/bucket-2", "avro", 1);
  snprintf(want, sizeof want, "/t/p=1/bucket-2/cl_%s-1.avro", pf.uuid);
  CHECK_EQ_STR(p, want);
  free(p);
  pm_path_factory_set_prefixes(&pf, NULL, NULL);
  p = pm_path_factory_new_data_file(&pf, "/t/bucket-0", "parquet", 0);
  snprintf(want, sizeof want, "/t/bucket-0/data-%s-2.parquet", pf.uuid);
  CHECK_EQ_STR(p, want);
  free(p);
}

int main(void) {
  RUN_TEST(test_names);
  RUN_TEST(test_prefixes);
  TEST_MAIN_END();
}
