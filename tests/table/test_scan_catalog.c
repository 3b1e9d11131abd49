/* Catalog listing, identifiers, table handles and path helpers on the fixture warehouse. */
#include "harness.h"
#include "io/file.h"
#include "table/catalog.h"

static pm_catalog *open_catalog(const char *wh) {
  pm_options o;
  pm_options_init(&o);
  pm_error err = {0};
  pm_options_set(&o, "warehouse", wh, &err);
  pm_catalog *c = NULL;
  CHECK_OK(pm_catalog_open(&o, &c, &err), &err);
  pm_options_clear(&o);
  return c;
}

static int has_name(char **names, size_t n, const char *x) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(names[i], x)) return 1;
  return 0;
}

static void test_listing(void) {
  pm_error err = {0};
  pm_catalog *c = open_catalog(PM_SHARED("fixtures/warehouse/parquet"));
  if (!c) return;
  char **names = NULL;
  size_t n = 0;
  CHECK_OK(pm_catalog_list_databases(c, &names, &n, &err), &err);
  CHECK(n >= 30);
  CHECK(has_name(names, n, "pk_09"));
  CHECK(has_name(names, n, "append_09"));
  pm_free_names(names, n);
  CHECK_OK(pm_catalog_list_tables(c, "pk_09", &names, &n, &err), &err);
  CHECK_EQ_INT(n, 1);
  if (n) CHECK_EQ_STR(names[0], "pk_09");
  pm_free_names(names, n);
  /* non-table directories (external/) are not listed */
  CHECK_OK(pm_catalog_list_tables(c, "pk_dv_index_in_data_with_external", &names, &n, &err), &err);
  CHECK_EQ_INT(n, 1);
  pm_free_names(names, n);
  CHECK(pm_catalog_list_tables(c, "nope", &names, &n, &err) == PAIMON_ERR_NOT_FOUND);
  CHECK(strstr(err.message, "nope") != NULL);
  pm_catalog_free(c);

  pm_options o;
  pm_options_init(&o);
  CHECK(pm_catalog_open(&o, &c, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  pm_options_set(&o, "warehouse", "/nonexistent/warehouse", &err);
  CHECK(pm_catalog_open(&o, &c, &err) == PAIMON_ERR_NOT_FOUND);
  pm_options_clear(&o);
}

static void test_identifiers(void) {
  pm_error err = {0};
  pm_identifier id;
  CHECK_OK(pm_identifier_parse("db.t", &id, &err), &err);
  CHECK_EQ_STR(id.database, "db");
  CHECK_EQ_STR(id.table, "t");
  CHECK(id.branch == NULL && id.system_table == NULL);
  pm_identifier_clear(&id);
  CHECK_OK(pm_identifier_parse("db.t$branch_rt$snapshots", &id, &err), &err);
  CHECK_EQ_STR(id.branch, "rt");
  CHECK_EQ_STR(id.system_table, "snapshots");
  pm_identifier_clear(&id);
  CHECK_OK(pm_identifier_parse("t$files", &id, &err), &err);
  CHECK_EQ_STR(id.database, "default");
  CHECK_EQ_STR(id.system_table, "files");
  pm_identifier_clear(&id);
  CHECK(pm_identifier_parse(".t", &id, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(pm_identifier_parse("db.t$a$b", &id, &err) == PAIMON_ERR_INVALID_ARGUMENT);
}

static void test_get_table(void) {
  pm_error err = {0};
  pm_catalog *c = open_catalog(PM_SHARED("fixtures/warehouse/parquet"));
  if (!c) return;
  pm_table *t = NULL;
  CHECK_OK(pm_catalog_get_table(c, "pk_09.pk_09", NULL, &t, &err), &err);
  if (t) {
    CHECK_EQ_STR(t->branch, "main");
    CHECK_EQ_INT(t->n_partition_keys, 1);
    CHECK_EQ_INT(t->n_primary_keys, 3);
    CHECK_EQ_INT(t->n_trimmed_primary_keys, 2);
    CHECK_EQ_STR(t->trimmed_primary_keys[0], "f0");
    CHECK_EQ_INT(t->n_bucket_keys, 1);
    CHECK_EQ_STR(t->bucket_keys[0], "f2");
    CHECK_EQ_INT(t->bucket, 2);
    CHECK(t->bucket_mode == PM_BUCKET_FIXED);
    CHECK(t->deletion_vectors);
    char *p = NULL;
    CHECK_OK(pm_table_bucket_path(t, "f1=10", 1, &p, &err), &err);
    CHECK(p && strstr(p, "pk_09.db/pk_09/f1=10/bucket-1") != NULL && pm_path_exists(p));
    free(p);
    CHECK_OK(pm_table_index_file_path(t, "/x/bucket-0", "index-1", NULL, &p, &err), &err);
    CHECK(p && strstr(p, "pk_09/index/index-1") != NULL);
    free(p);
    const pm_table_schema *s = NULL;
    CHECK_OK(pm_table_schema_by_id(t, 0, &s, &err), &err);
    CHECK(s && s->n_fields == 4);
    CHECK(pm_table_schema_by_id(t, 77, &s, &err) == PAIMON_ERR_NOT_FOUND);
    CHECK(strstr(err.message, "schema-77") != NULL);
    pm_table_free(t);
  }
  CHECK(pm_catalog_get_table(c, "pk_09.missing", NULL, &t, &err) == PAIMON_ERR_NOT_FOUND);
  CHECK(strstr(err.message, "pk_09.missing") != NULL);
  CHECK(pm_catalog_get_table(c, "pk_09.pk_09$branch_nope", NULL, &t, &err) == PAIMON_ERR_NOT_FOUND);
  CHECK(strstr(err.message, "nope") != NULL);
  /* branch table */
  CHECK_OK(pm_catalog_get_table(c, "append_table_with_rt_branch.append_table_with_rt_branch$branch_rt", NULL, &t, &err),
           &err);
  if (t) {
    CHECK_EQ_STR(t->branch, "rt");
    CHECK(strstr(t->meta_root, "branch/branch-rt") != NULL);
    pm_table_free(t);
  }
  pm_catalog_free(c);
}

static void test_path_rewrite(void) {
  pm_error err = {0};
  pm_options o;
  pm_options_init(&o);
  pm_options_set(&o, "warehouse", PM_SHARED("fixtures/warehouse/parquet"), &err);
  pm_options_set(&o, "path-rewrite", "FILE:/tmp/external=/data/ext", &err);
  pm_catalog *c = NULL;
  CHECK_OK(pm_catalog_open(&o, &c, &err), &err);
  pm_options_clear(&o);
  pm_table *t = NULL;
  if (c) CHECK_OK(pm_catalog_get_table(c, "pk_09.pk_09", NULL, &t, &err), &err);
  if (t) {
    char *p = NULL;
    CHECK_OK(pm_table_data_file_path(t, "/b", "f.parquet", "FILE:/tmp/external/f1=10/bucket-0/x.parquet", &p, &err),
             &err);
    CHECK_EQ_STR(p, "/data/ext/f1=10/bucket-0/x.parquet");
    free(p);
    CHECK_OK(pm_table_data_file_path(t, "/b", "f.parquet", NULL, &p, &err), &err);
    CHECK_EQ_STR(p, "/b/f.parquet");
    free(p);
    CHECK_OK(pm_table_resolve_path(t, "file:///abs/y", &p, &err), &err);
    CHECK_EQ_STR(p, "/abs/y");
    free(p);
    char *e = NULL;
    CHECK_OK(pm_partition_escape("a/b=c d", &e, &err), &err);
    CHECK_EQ_STR(e, "a%2Fb%3Dc d");
    free(e);
    pm_table_free(t);
  }
  pm_catalog_free(c);
}

int main(void) {
  RUN_TEST(test_listing);
  RUN_TEST(test_identifiers);
  RUN_TEST(test_get_table);
  RUN_TEST(test_path_rewrite);
  TEST_MAIN_END();
}
