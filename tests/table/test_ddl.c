/*
 * table/ddl.h and meta/schema_build.h below the public API: Java's create-time
 * validation (each refusal INVALID_ARGUMENT naming the column/key/option, the
 * warehouse untouched), Java's normalisation (primary-key / partition
 * options become keys, primary-key.nullable, table-default.* catalog
 * options), HashMap option order with bucket collisions, the column-list
 * parser, and create table on a fault-injecting fs: every failing operation
 * leaves no table behind (schema-0 is complete or absent).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "io/fs_fault.h"
#include "meta/schema_build.h"
#include "table/ddl.h"

static char wh[256];

static pm_catalog *open_catalog(pm_fs *fs, const char *extra_key, const char *extra_value) {
  pm_options o;
  pm_options_init(&o);
  pm_error err = {0};
  pm_options_set(&o, "warehouse", wh, &err);
  if (extra_key) pm_options_set(&o, extra_key, extra_value, &err);
  pm_catalog *c = NULL;
  CHECK_OK(pm_catalog_open_with_fs(fs ? fs : pm_fs_local(), &o, &c, &err), &err);
  pm_options_clear(&o);
  return c;
}

static char *tree(void) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "cd '%s' && find . | sort", wh);
  FILE *p = popen(cmd, "r");
  char *buf = calloc(1, 1 << 16);
  if (p && buf) {
    size_t n = fread(buf, 1, (1 << 16) - 1, p);
    buf[n] = 0;
  }
  if (p) pclose(p);
  return buf;
}

static void spec_columns(pm_schema_spec *s, const char *cols) {
  pm_error err = {0};
  pm_schema_spec_init(s);
  CHECK_OK(pm_schema_spec_add_columns_sql(s, cols, &err), &err);
}

static void test_column_list_parser(void) {
  pm_data_field *f = NULL;
  size_t n = 0;
  pm_error err = {0};
  CHECK_OK(pm_dtype_parse_fields("Id INT NOT NULL, `my col` STRING COMMENT 'it''s', r ROW<X INT 'c', y MAP<INT, "
                                 "ARRAY<STRING>>> NOT NULL, d DEC(5), t TIMESTAMP(6) WITH LOCAL TIME ZONE",
                                 &f, &n, &err),
           &err);
  CHECK_EQ_INT(n, 5);
  if (n == 5) {
    CHECK_EQ_STR(f[0].name, "Id"); /* case kept */
    CHECK(!f[0].type->nullable);
    CHECK_EQ_STR(f[1].name, "my col");
    CHECK_EQ_STR(f[1].description, "it's");
    char *r = pm_dtype_to_cstring(f[2].type);
    CHECK_EQ_STR(r, "ROW<`X` INT 'c', `y` MAP<INT, ARRAY<STRING>>> NOT NULL");
    free(r);
    CHECK_EQ_INT(f[2].type->fields[0].id, -1);
    char *d = pm_dtype_to_cstring(f[3].type), *t = pm_dtype_to_cstring(f[4].type);
    CHECK_EQ_STR(d, "DECIMAL(5, 0)");
    CHECK_EQ_STR(t, "TIMESTAMP(6) WITH LOCAL TIME ZONE");
    free(d);
    free(t);
  }
  for (size_t i = 0; i < n; i++) pm_data_field_clear(&f[i]);
  free(f);
  const char *bad[] = {"a INT,", "a", "a INT b", "a ARRAY<INT", "a MAP<INT>", "a ROW<x>", "a INT COMMENT x", "a FOO"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    f = NULL;
    n = 0;
    int rc = pm_dtype_parse_fields(bad[i], &f, &n, &err);
    CHECK_MSG(rc != 0, "'%s' accepted", bad[i]);
    CHECK(f == NULL && n == 0);
  }
}

static void test_java_hash_order(void) {
  pm_options o;
  pm_options_init(&o);
  pm_error err = {0};
  /* manifest.format and file-index.read.enabled share a bucket of a 16-slot HashMap: insertion order
   * decides between them; bucket (slot 0) goes first, file.format (11) after both (10) */
  const char *in[] = {"file.format", "file-index.read.enabled", "bucket", "manifest.format"};
  for (int i = 0; i < 4; i++) pm_options_set(&o, in[i], "x", &err);
  CHECK_OK(pm_options_java_order(&o, &err), &err);
  const char *want[] = {"bucket", "file-index.read.enabled", "manifest.format", "file.format"};
  for (int i = 0; i < 4; i++) CHECK_EQ_STR(o.keys[i], want[i]);
  pm_options_clear(&o);
  /* 13 entries: the map has grown to 32 slots: bucket moves from slot 0 to 16, after manifest.format (10) */
  pm_options_init(&o);
  const char *many[] = {"a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "b1", "file.format",
                        "manifest.format", "bucket"};
  for (int i = 0; i < 13; i++) pm_options_set(&o, many[i], "x", &err);
  CHECK_OK(pm_options_java_order(&o, &err), &err);
  int bk = -1, mf = -1;
  for (size_t i = 0; i < o.n; i++) {
    if (!strcmp(o.keys[i], "bucket")) bk = (int)i;
    if (!strcmp(o.keys[i], "manifest.format")) mf = (int)i;
  }
  CHECK(mf >= 0 && bk > mf);
  pm_options_clear(&o);
}

static void test_normalisation(void) {
  pm_error err = {0};
  pm_schema_spec s;
  spec_columns(&s, "a INT, b STRING, p STRING");
  CHECK_OK(pm_options_set(&s.options, "primary-key", "a, b", &err), &err);
  CHECK_OK(pm_options_set(&s.options, "partition", "p", &err), &err);
  pm_table_schema *t = NULL;
  CHECK_OK(pm_schema_spec_build(&s, 42, &t, &err), &err);
  if (t) {
    CHECK(t->n_primary_keys == 2 && !strcmp(t->primary_keys[1], "b"));
    CHECK(t->n_partition_keys == 1 && !strcmp(t->partition_keys[0], "p"));
    CHECK(pm_options_get(&t->options, "primary-key") == NULL && pm_options_get(&t->options, "partition") == NULL);
    CHECK(!t->fields[0].type->nullable && !t->fields[1].type->nullable && t->fields[2].type->nullable);
    CHECK_EQ_INT(t->time_millis, 42);
    CHECK_EQ_INT(t->highest_field_id, 2);
  }
  pm_schema_free(t);
  pm_schema_spec_clear(&s);
  /* primary-key.nullable=true keeps the declared nullability */
  spec_columns(&s, "a INT, b INT");
  const char *pk[] = {"a"};
  CHECK_OK(pm_schema_spec_set_primary_key(&s, pk, 1, &err), &err);
  CHECK_OK(pm_options_set(&s.options, "primary-key.nullable", "true", &err), &err);
  t = NULL;
  CHECK_OK(pm_schema_spec_build(&s, 1, &t, &err), &err);
  CHECK(t && t->fields[0].type->nullable);
  pm_schema_free(t);
  pm_schema_spec_clear(&s);
}

/* Each refusal: INVALID_ARGUMENT, a message with the given word, nothing written. */
static void test_refusals(void) {
  pm_catalog *c = open_catalog(NULL, NULL, NULL);
  pm_error err = {0};
  CHECK_OK(pm_ddl_create_database(c, "v", NULL, 0, &err), &err);
  struct {
    const char *cols, *pk, *part, *opt_k, *opt_v, *word;
  } cases[] = {
      {"a INT, a INT", NULL, NULL, NULL, NULL, "duplicate column 'a'"},
      {"a INT", "b", NULL, NULL, NULL, "'b'"},
      {"a INT", NULL, "b", NULL, NULL, "'b'"},
      {"a INT, b INT", "a", "a", NULL, NULL, "partition"},
      {"a INT, b INT", "a,a", NULL, NULL, NULL, "twice"},
      {"a INT, b INT", NULL, "b,b", NULL, NULL, "twice"},
      {"a INT, b INT", "a", NULL, "primary-key", "b", "primary key"},
      {"a INT, b INT", NULL, "a", "partition", "b", "partition"},
      {"a INT, b INT", NULL, NULL, "bucket", "0", "bucket"},
      {"a INT, b INT", NULL, NULL, "bucket", "3", "bucket-key"},
      {"a INT, b INT", NULL, NULL, "bucket-key", "b", "bucket-key"},
      {"a INT, b INT", "a", NULL, "bucket-key", "b", "'b'"},
      {"a INT, b INT", NULL, "b", "bucket-key", "b", "partition"},
      {"a INT, b INT", NULL, NULL, "bucket-key", "zz", "'zz'"},
      {"a ARRAY<INT>, b INT", NULL, "a", NULL, NULL, "'a'"},
      {"a ROW<x INT>, b INT", "a", NULL, NULL, NULL, "'a'"},
      {"a INT, b INT", NULL, NULL, "auto-create", "true", "auto-create"},
      {"a INT, b INT", NULL, NULL, "target-file-row-num", "0", "target-file-row-num"},
      {"a INT, b INT", NULL, NULL, "primary-key.nullable", "true", "primary-key.nullable"},
      {"a INT, b INT", NULL, NULL, "sequence.field", "zz", "'zz'"},
      {"a INT, b INT", NULL, NULL, "write-buffer-size", "lots", "write-buffer-size"},
      {"a INT, b INT", NULL, NULL, "snapshot.num-retained.min", "0", "snapshot.num-retained.min"},
      {"a INT, b INT", "a", NULL, "snapshot.num-retained.max", "5", "snapshot.num-retained"},
      {"a INT, _SEQUENCE_NUMBER INT", NULL, NULL, NULL, NULL, "_SEQUENCE_NUMBER"},
      {"a INT, b INT", "a", NULL, "row-tracking.enabled", "true", "row-tracking"},
      {"a INT, b INT", NULL, NULL, "data-evolution.enabled", "true", "row-tracking"},
      {"a INT, b INT", NULL, NULL, "fields.q.aggregate-function", "sum", "'q'"},
      {"a INT, b INT", NULL, NULL, "path", "/elsewhere", "path"},
      {"a INT, b INT", "a", NULL, "merge-engine", "first-row", NULL},
  };
  char *before = tree();
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    pm_schema_spec s;
    spec_columns(&s, cases[i].cols);
    char buf[64];
    const char *items[4];
    size_t n = 0;
    if (cases[i].pk) {
      snprintf(buf, sizeof buf, "%s", cases[i].pk);
      for (char *p = strtok(buf, ","); p; p = strtok(NULL, ",")) items[n++] = p;
      pm_schema_spec_set_primary_key(&s, items, n, &err);
    }
    if (cases[i].part) {
      n = 0;
      snprintf(buf, sizeof buf, "%s", cases[i].part);
      for (char *p = strtok(buf, ","); p; p = strtok(NULL, ",")) items[n++] = p;
      pm_schema_spec_set_partition_keys(&s, items, n, &err);
    }
    if (cases[i].opt_k) pm_options_set(&s.options, cases[i].opt_k, cases[i].opt_v, &err);
    int rc = pm_ddl_create_table(c, "v.t", &s, 0, &err);
    if (!cases[i].word) {
      /* the control case: a valid first-row table is accepted, then dropped */
      CHECK_OK(rc, &err);
      CHECK_OK(pm_ddl_drop_table(c, "v.t", 0, &err), &err);
    } else {
      CHECK_MSG(rc == PAIMON_ERR_INVALID_ARGUMENT, "case %zu (%s): rc %d %s", i, cases[i].word, rc, err.message);
      CHECK_MSG(strstr(err.message, cases[i].word) && strstr(err.message, "v.t"), "case %zu: %s", i, err.message);
    }
    pm_schema_spec_clear(&s);
  }
  char *after = tree();
  CHECK_MSG(before && after && !strcmp(before, after), "warehouse changed:\n%s---\n%s", before, after);
  free(before);
  free(after);
  pm_catalog_free(c);
}

static void test_table_defaults(void) {
  pm_catalog *c = open_catalog(NULL, "table-default.file.format", "orc");
  pm_error err = {0};
  pm_schema_spec s;
  spec_columns(&s, "a INT");
  CHECK_OK(pm_ddl_create_database(c, "td", NULL, 0, &err), &err);
  CHECK_OK(pm_ddl_create_table(c, "td.t1", &s, 0, &err), &err);
  pm_options_set(&s.options, "file.format", "avro", &err);
  CHECK_OK(pm_ddl_create_table(c, "td.t2", &s, 0, &err), &err);
  pm_schema_spec_clear(&s);
  for (int i = 1; i <= 2; i++) {
    char root[512];
    snprintf(root, sizeof root, "%s/td.db/t%d", wh, i);
    pm_schema_manager m = pm_schema_manager_of(pm_fs_local(), root, NULL);
    pm_table_schema *t = NULL;
    CHECK_OK(pm_schema_read(&m, 0, &t, &err), &err);
    CHECK_EQ_STR(t ? pm_options_get(&t->options, "file.format") : NULL, i == 1 ? "orc" : "avro");
    pm_schema_free(t);
  }
  pm_catalog_free(c);
}

/* Every operation of a create table fails in turn: the call fails, and no table (no schema-0) exists. */
static void test_faults(void) {
  pm_error err = {0};
  pm_fs *fs = NULL;
  CHECK_OK(pm_fault_fs_new(pm_fs_local(), &fs, &err), &err);
  pm_catalog *c = open_catalog(fs, NULL, NULL);
  CHECK_OK(pm_ddl_create_database(c, "f", NULL, 0, &err), &err);
  pm_schema_spec s;
  spec_columns(&s, "a INT, b STRING");
  pm_fault_fs_disarm(fs);
  CHECK_OK(pm_ddl_create_table(c, "f.probe", &s, 0, &err), &err);
  uint64_t counts[PM_FAULT_OP_COUNT];
  for (int op = 0; op < PM_FAULT_OP_COUNT; op++) counts[op] = pm_fault_fs_count(fs, (pm_fault_op)op);
  int injected = 0;
  for (int op = 0; op < PM_FAULT_OP_COUNT; op++) {
    for (uint64_t nth = 1; nth <= counts[op]; nth++) {
      pm_fault_rule r = {(pm_fault_op)op, nth, 1, PM_FAULT_ERROR, 0};
      char ident[64];
      snprintf(ident, sizeof ident, "f.t_%d_%llu", op, (unsigned long long)nth);
      pm_fault_fs_arm(fs, &r);
      int rc = pm_ddl_create_table(c, ident, &s, 0, &err);
      injected += pm_fault_fs_injected(fs) > 0;
      pm_fault_fs_disarm(fs);
      CHECK_MSG(rc != 0, "%s #%llu: create succeeded", pm_fault_op_name((pm_fault_op)op), (unsigned long long)nth);
      char p[600];
      snprintf(p, sizeof p, "%s/f.db/%s/schema/schema-0", wh, ident + 2);
      CHECK_MSG(access(p, F_OK) != 0, "%s #%llu: schema-0 visible after failure", pm_fault_op_name((pm_fault_op)op),
                (unsigned long long)nth);
      /* retrying works */
      CHECK_OK(pm_ddl_create_table(c, ident, &s, 0, &err), &err);
    }
  }
  CHECK(injected >= 4);
  pm_schema_spec_clear(&s);
  pm_catalog_free(c);
  pm_fs_unref(fs);
}

/* Drop table deletes the data-file.external-paths roots named by any schema of the table
 * (main and branches) with it, as Java's AbstractCatalog.dropTable; other directories stay. */
static void test_drop_external_paths(void) {
  pm_catalog *c = open_catalog(NULL, NULL, NULL);
  pm_error err = {0};
  char opt[800], cmd[5000], root[300];
  snprintf(opt, sizeof opt, "file://%s/ext1,file://%s/ext2/", wh, wh);
  pm_schema_spec s;
  spec_columns(&s, "a INT");
  pm_options_set(&s.options, "data-file.external-paths", opt, &err);
  pm_options_set(&s.options, "data-file.external-paths.strategy", "round-robin", &err);
  CHECK_OK(pm_ddl_create_database(c, "x", NULL, 0, &err), &err);
  CHECK_OK(pm_ddl_create_table(c, "x.t", &s, 0, &err), &err);
  pm_schema_spec_clear(&s);
  snprintf(root, sizeof root, "%s/x.db/t", wh);
  /* a branch whose schema names ext3; files in every root; an unrelated directory */
  snprintf(cmd, sizeof cmd,
           "mkdir -p '%s/branch/branch-b1/schema' && sed 's#/ext1,#/ext3,#' '%s/schema/schema-0' > "
           "'%s/branch/branch-b1/schema/schema-0' && grep -q ext3 '%s/branch/branch-b1/schema/schema-0' && "
           "for d in ext1 ext2 ext3 other; do mkdir -p '%s'/$d/bucket-0 && echo x > '%s'/$d/bucket-0/data-1.parquet; done",
           root, root, root, root, wh, wh);
  CHECK(system(cmd) == 0);
  CHECK_OK(pm_ddl_drop_table(c, "x.t", 0, &err), &err);
  const char *gone[] = {"x.db/t", "ext1", "ext2", "ext3"};
  for (size_t i = 0; i < 4; i++) {
    char p[700];
    snprintf(p, sizeof p, "%s/%s", wh, gone[i]);
    CHECK_MSG(access(p, F_OK) != 0, "%s still there after drop table", p);
  }
  char other[700];
  snprintf(other, sizeof other, "%s/other/bucket-0/data-1.parquet", wh);
  CHECK_MSG(access(other, F_OK) == 0, "%s deleted by drop table", other);
  /* a table without external paths: only its directory */
  spec_columns(&s, "a INT");
  CHECK_OK(pm_ddl_create_table(c, "x.t2", &s, 0, &err), &err);
  pm_schema_spec_clear(&s);
  CHECK_OK(pm_ddl_drop_table(c, "x.t2", 0, &err), &err);
  CHECK(access(other, F_OK) == 0);
  pm_catalog_free(c);
}

int main(void) {
  snprintf(wh, sizeof wh, "/tmp/pm_table_ddl_%d", (int)getpid());
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", wh, wh);
  CHECK(system(cmd) == 0);
  RUN_TEST(test_column_list_parser);
  RUN_TEST(test_java_hash_order);
  RUN_TEST(test_normalisation);
  RUN_TEST(test_refusals);
  RUN_TEST(test_table_defaults);
  RUN_TEST(test_faults);
  RUN_TEST(test_drop_external_paths);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures) CHECK(system(cmd) == 0);
  TEST_MAIN_END();
}
