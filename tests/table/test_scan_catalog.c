/* Catalog listing, identifiers, table handles and path helpers on the fixture warehouse. */
#include "harness.h"
#include "io/file.h"
#include "data/binary_row.h"
#include "meta/schema.h"
#include "table/catalog.h"
#include "table/scan.h"
#include <unistd.h>

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

/* Partition directory names as Java renders them (FORMAT.md 1.2): legacy toString of the
 * values, default name for null / blank strings, escaping. */
static void test_partition_dirs(void) {
  pm_error err = {0};
  char root[256];
  snprintf(root, sizeof root, "/tmp/pm_scan_catalog_%d/db.db/t", (int)getpid());
  const char *json =
      "{\"version\":3,\"id\":0,\"fields\":[{\"id\":0,\"name\":\"d\",\"type\":\"DOUBLE\"},"
      "{\"id\":1,\"name\":\"s\",\"type\":\"STRING\"},{\"id\":2,\"name\":\"x\",\"type\":\"INT\"}],"
      "\"highestFieldId\":2,\"partitionKeys\":[\"d\",\"s\"],\"primaryKeys\":[],\"options\":{},\"timeMillis\":0}";
  pm_table_schema *schema = NULL;
  CHECK_OK(pm_schema_parse(json, strlen(json), "test", &schema, &err), &err);
  if (schema) CHECK_OK(pm_schema_write(&(pm_schema_manager){pm_fs_local(), root, NULL}, schema, &err), &err);
  pm_table *t = NULL;
  CHECK_OK(pm_table_open_path(root, NULL, NULL, NULL, NULL, NULL, &t, &err), &err);
  static const struct {
    double d;
    const char *s;
    const char *want;
  } cases[] = {{1.0, "a/b", "d=1.0/s=a%2Fb"},       {1e10, "x=y", "d=1.0E10/s=x%3Dy"},
               {0.1, " ", "d=0.1/s=__DEFAULT_PARTITION__"}, {-2.5, NULL, "d=-2.5/s=__DEFAULT_PARTITION__"},
               {1e-4, "", "d=1.0E-4/s=__DEFAULT_PARTITION__"}, {12345678.9, "ok", "d=1.23456789E7/s=ok"}};
  for (size_t i = 0; t && i < sizeof cases / sizeof cases[0]; i++) {
    pm_binary_row_writer w;
    pm_row_writer_init(&w, 2, &err);
    pm_value v = {.kind = PM_V_DOUBLE};
    v.u.f64 = cases[i].d;
    pm_row_writer_write(&w, 0, schema->fields[0].type, &v, &err);
    pm_value sv = {.kind = cases[i].s ? PM_V_STRING : PM_V_NULL};
    if (cases[i].s) {
      sv.u.bytes.data = (const uint8_t *)cases[i].s;
      sv.u.bytes.len = strlen(cases[i].s);
    }
    pm_row_writer_write(&w, 1, schema->fields[1].type, &sv, &err);
    pm_buf b;
    pm_buf_init(&b);
    CHECK_OK(pm_row_writer_finish(&w, 1, &b, &err), &err);
    pm_row_writer_free(&w);
    char *dir = NULL;
    CHECK_OK(pm_scan_partition_dir(t, b.data, b.len, &dir, &err), &err);
    CHECK_EQ_STR(dir, cases[i].want);
    free(dir);
    pm_buf_free(&b);
  }
  pm_table_free(t);
  pm_schema_free(schema);
  /* TIMESTAMP and DATE, legacy names (LocalDateTime.toString, days) and CAST(AS STRING) names */
  for (int legacy = 1; legacy >= 0; legacy--) {
    snprintf(root, sizeof root, "/tmp/pm_scan_catalog_%d/db.db/ts%d", (int)getpid(), legacy);
    char tj[1024];
    snprintf(tj, sizeof tj,
             "{\"version\":3,\"id\":0,\"fields\":[{\"id\":0,\"name\":\"ts\",\"type\":\"TIMESTAMP(3)\"},"
             "{\"id\":1,\"name\":\"dt\",\"type\":\"DATE\"}],\"highestFieldId\":1,\"partitionKeys\":[\"ts\",\"dt\"],"
             "\"primaryKeys\":[],\"options\":{\"partition.legacy-name\":\"%s\"},\"timeMillis\":0}",
             legacy ? "true" : "false");
    schema = NULL;
    t = NULL;
    CHECK_OK(pm_schema_parse(tj, strlen(tj), "test", &schema, &err), &err);
    if (schema) CHECK_OK(pm_schema_write(&(pm_schema_manager){pm_fs_local(), root, NULL}, schema, &err), &err);
    CHECK_OK(pm_table_open_path(root, NULL, NULL, NULL, NULL, NULL, &t, &err), &err);
    static const int64_t millis[2] = {1704164640000LL, 1704164645120LL}; /* 2024-01-02 03:04[:05.12] */
    static const char *want[2][2] = {{"ts=2024-01-02 03%3A04%3A00.000/dt=2024-01-02",
                                      "ts=2024-01-02 03%3A04%3A05.120/dt=2024-01-02"},
                                     {"ts=2024-01-02T03%3A04/dt=19724", "ts=2024-01-02T03%3A04%3A05.120/dt=19724"}};
    for (int i = 0; t && i < 2; i++) {
      pm_binary_row_writer w;
      pm_row_writer_init(&w, 2, &err);
      pm_value v = {.kind = PM_V_TIMESTAMP};
      v.u.ts.millis = millis[i];
      pm_row_writer_write(&w, 0, schema->fields[0].type, &v, &err);
      pm_value dv = {.kind = PM_V_INT};
      dv.u.i64 = 19724;
      pm_row_writer_write(&w, 1, schema->fields[1].type, &dv, &err);
      pm_buf b;
      pm_buf_init(&b);
      CHECK_OK(pm_row_writer_finish(&w, 1, &b, &err), &err);
      pm_row_writer_free(&w);
      char *dir = NULL;
      CHECK_OK(pm_scan_partition_dir(t, b.data, b.len, &dir, &err), &err);
      CHECK_EQ_STR(dir, want[legacy][i]);
      free(dir);
      pm_buf_free(&b);
    }
    pm_table_free(t);
    pm_schema_free(schema);
  }
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf /tmp/pm_scan_catalog_%d", (int)getpid());
  CHECK_EQ_INT(system(cmd), 0);
}

int main(void) {
  RUN_TEST(test_listing);
  RUN_TEST(test_identifiers);
  RUN_TEST(test_get_table);
  RUN_TEST(test_path_rewrite);
  RUN_TEST(test_partition_dirs);
  TEST_MAIN_END();
}
