#define _XOPEN_SOURCE 700
/* Every schema / snapshot / tag file of the fixture warehouses parses, and our writer
 * reproduces the same JSON content (schemas: byte-identical to Java's output). */
#include <ftw.h>
#include <math.h>

#include "harness.h"
#include "io/file.h"
#include "meta/json_util.h"
#include "meta/schema.h"
#include "meta/snapshot.h"

static int n_schema, n_schema_bytes_equal, n_snapshot, n_snapshot_bytes_equal;

/* Drops keys whose value is null and the legacy keys Java master no longer writes. */
static void normalize_snapshot(json_t *o) {
  const char *k;
  json_t *v;
  void *tmp;
  json_object_foreach_safe(o, tmp, k, v) {
    if (json_is_null(v) || strcmp(k, "logOffsets") == 0) json_object_del(o, k);
    else if (strcmp(k, "properties") == 0 && json_object_size(v) == 0) json_object_del(o, k);
  }
}

static void check_schema_file(const char *path) {
  pm_buf b;
  pm_buf_init(&b);
  pm_error err = {0};
  CHECK_OK(pm_read_file(path, &b, 0, &err), &err);
  pm_table_schema *s = NULL;
  CHECK_OK(pm_schema_parse((const char *)b.data, b.len, path, &s, &err), &err);
  if (s) {
    n_schema++;
    pm_buf out;
    pm_buf_init(&out);
    CHECK_OK(pm_schema_to_json(s, &out, &err), &err);
    if (out.len == b.len && memcmp(out.data, b.data, b.len) == 0) n_schema_bytes_equal++;
    json_t *a = json_loadb((const char *)b.data, b.len, 0, NULL), *c = json_loadb((const char *)out.data, out.len, 0, NULL);
    CHECK_MSG(a && c && json_equal(a, c), "schema content differs: %s\n%.*s", path, (int)out.len, (const char *)out.data);
    json_decref(a);
    json_decref(c);
    pm_buf_free(&out);
    pm_schema_free(s);
  }
  pm_buf_free(&b);
}

static void check_snapshot_file(const char *path) {
  pm_buf b;
  pm_buf_init(&b);
  pm_error err = {0};
  CHECK_OK(pm_read_file(path, &b, 0, &err), &err);
  pm_snapshot *s = NULL;
  CHECK_OK(pm_snapshot_parse((const char *)b.data, b.len, path, &s, &err), &err);
  if (s) {
    n_snapshot++;
    pm_buf out;
    pm_buf_init(&out);
    CHECK_OK(pm_snapshot_to_json(s, &out, &err), &err);
    if (out.len == b.len && memcmp(out.data, b.data, b.len) == 0) n_snapshot_bytes_equal++;
    json_t *a = json_loadb((const char *)b.data, b.len, 0, NULL), *c = json_loadb((const char *)out.data, out.len, 0, NULL);
    normalize_snapshot(a);
    CHECK_MSG(a && c && json_equal(a, c), "snapshot content differs: %s", path);
    json_decref(a);
    json_decref(c);
    pm_buf_free(&out);
    pm_snapshot_free(s);
  }
  pm_buf_free(&b);
}

static int visit(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  if (flag != FTW_F) return 0;
  const char *base = path + ftw->base;
  const char *parent_end = path + ftw->base - 1;
  int in_schema = ftw->base >= 7 && strncmp(parent_end - 6, "schema/", 7) == 0;
  int in_snapshot = ftw->base >= 9 && strncmp(parent_end - 8, "snapshot/", 9) == 0;
  int in_tag = ftw->base >= 4 && strncmp(parent_end - 3, "tag/", 4) == 0;
  if (in_schema && strncmp(base, "schema-", 7) == 0) check_schema_file(path);
  if ((in_snapshot && strncmp(base, "snapshot-", 9) == 0) || (in_tag && strncmp(base, "tag-", 4) == 0))
    check_snapshot_file(path);
  return 0;
}

static void test_all_fixture_files(void) {
  CHECK(nftw(PM_SHARED("fixtures/warehouse"), visit, 16, FTW_PHYS) == 0);
  fprintf(stderr, "schemas: %d parsed, %d byte-identical; snapshots/tags: %d parsed, %d byte-identical\n", n_schema,
          n_schema_bytes_equal, n_snapshot, n_snapshot_bytes_equal);
  CHECK(n_schema > 70);
  CHECK(n_snapshot > 150);
  CHECK_EQ_INT(n_schema_bytes_equal, n_schema);
}

#define PK09 PM_SHARED("fixtures/warehouse/parquet/pk_09.db/pk_09")

static void test_pk09(void) {
  pm_error err = {0};
  pm_table_schema *s = NULL;
  CHECK_OK(pm_schema_read_latest(&(pm_schema_manager){pm_fs_local(), PK09, NULL}, &s, &err), &err);
  if (!s) return;
  CHECK_EQ_INT(s->n_fields, 4);
  CHECK_EQ_STR(s->fields[0].name, "f0");
  CHECK_EQ_INT(s->fields[0].type->root, PM_DT_VARCHAR);
  CHECK_EQ_INT(s->fields[0].type->nullable, 0);
  int32_t bucket = 0;
  CHECK_OK(pm_schema_bucket(s, &bucket, &err), &err);
  CHECK_EQ_INT(bucket, 2);
  int dv = 0;
  CHECK_OK(pm_options_get_bool(&s->options, PM_OPT_DV_ENABLED, 0, &dv, &err), &err);
  CHECK_EQ_INT(dv, 1);
  CHECK_EQ_STR(pm_schema_file_format(s), "parquet");
  CHECK_EQ_STR(pm_options_get_str(&s->options, PM_OPT_PARTITION_DEFAULT_NAME, PM_DEFAULT_PARTITION_NAME),
               "__DEFAULT_PARTITION__");
  const char **tk = NULL;
  size_t ntk = 0;
  CHECK_OK(pm_schema_trimmed_primary_keys(s, &tk, &ntk, &err), &err);
  CHECK(ntk == 2 && !strcmp(tk[0], "f0") && !strcmp(tk[1], "f2"));
  free(tk);
  char **bk = NULL;
  size_t nbk = 0;
  CHECK_OK(pm_schema_bucket_keys(s, &bk, &nbk, &err), &err);
  CHECK(nbk == 1 && !strcmp(bk[0], "f2"));
  pm_free_strings(bk, nbk);
  pm_schema_free(s);

  int64_t latest = 0, earliest = 0;
  CHECK_OK(pm_snapshot_latest_id(&(pm_snapshot_manager){pm_fs_local(), PK09, NULL}, &latest, &err), &err);
  CHECK_OK(pm_snapshot_earliest_id(&(pm_snapshot_manager){pm_fs_local(), PK09, NULL}, &earliest, &err), &err);
  CHECK_EQ_INT(latest, 8);
  CHECK_EQ_INT(earliest, 1);
  pm_snapshot *snap = NULL;
  CHECK_OK(pm_snapshot_read_latest(&(pm_snapshot_manager){pm_fs_local(), PK09, NULL}, &snap, &err), &err);
  if (snap) {
    CHECK_EQ_INT(snap->id, 8);
    pm_snapshot *at = NULL;
    CHECK_OK(pm_snapshot_read_at_or_before(&(pm_snapshot_manager){pm_fs_local(), PK09, NULL}, snap->time_millis, &at, &err), &err);
    CHECK(at && at->id == 8);
    pm_snapshot_free(at);
    at = NULL;
    CHECK_OK(pm_snapshot_read_at_or_before(&(pm_snapshot_manager){pm_fs_local(), PK09, NULL}, 0, &at, &err), &err);
    CHECK(at == NULL);
    pm_snapshot_free(snap);
  }
  CHECK_EQ_INT(pm_snapshot_read(&(pm_snapshot_manager){pm_fs_local(), PK09, NULL}, 99, &snap, &err), PAIMON_ERR_NOT_FOUND);
}

static void test_options(void) {
  pm_options o;
  pm_options_init(&o);
  pm_error err = {0};
  CHECK_OK(pm_options_set(&o, "a", "8 mb", &err), &err);
  CHECK_OK(pm_options_set(&o, "b", "2MiB", &err), &err);
  CHECK_OK(pm_options_set(&o, "c", "10 s", &err), &err);
  CHECK_OK(pm_options_set(&o, "d", "TRUE", &err), &err);
  CHECK_OK(pm_options_set(&o, "e", "x1", &err), &err);
  int64_t v;
  CHECK_OK(pm_options_get_size(&o, "a", 0, &v, &err), &err);
  CHECK_EQ_INT(v, 8 << 20);
  CHECK_OK(pm_options_get_size(&o, "b", 0, &v, &err), &err);
  CHECK_EQ_INT(v, 2 << 20);
  CHECK_OK(pm_options_get_duration_ms(&o, "c", 0, &v, &err), &err);
  CHECK_EQ_INT(v, 10000);
  CHECK_OK(pm_options_get_size(&o, "zz", 77, &v, &err), &err);
  CHECK_EQ_INT(v, 77);
  int bv;
  CHECK_OK(pm_options_get_bool(&o, "d", 0, &bv, &err), &err);
  CHECK_EQ_INT(bv, 1);
  CHECK_EQ_INT(pm_options_get_int64(&o, "e", 0, &v, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "'e'") != NULL);
  CHECK_OK(pm_options_set(&o, "a", "1", &err), &err);
  CHECK_EQ_STR(pm_options_get(&o, "a"), "1");
  CHECK_EQ_INT(o.n, 5);
  pm_options_clear(&o);
}

static void test_bad_input(void) {
  pm_error err = {0};
  pm_table_schema *s = NULL;
  const char *bad_json = "{ \"id\" : 0, \"fields\" : [ ";
  CHECK_EQ_INT(pm_schema_parse(bad_json, strlen(bad_json), "schema-x", &s, &err), PAIMON_ERR_CORRUPT);
  CHECK(strstr(err.message, "schema-x") != NULL);
  const char *unknown = "{\"id\":0,\"fields\":[{\"id\":0,\"name\":\"a\",\"type\":\"FANCYINT\"}]}";
  CHECK_EQ_INT(pm_schema_parse(unknown, strlen(unknown), "schema-y", &s, &err), PAIMON_ERR_UNSUPPORTED);
  CHECK(strstr(err.message, "FANCYINT") != NULL && strstr(err.message, "'a'") != NULL);
  const char *badkey = "{\"id\":0,\"fields\":[],\"primaryKeys\":[\"nope\"]}";
  CHECK_EQ_INT(pm_schema_parse(badkey, strlen(badkey), "schema-z", &s, &err), PAIMON_ERR_CORRUPT);
  pm_snapshot *sn = NULL;
  /* optional keys of newer writers round-trip, unknown keys are ignored */
  const char *full =
      "{\"version\":3,\"uuid\":\"u-1\",\"id\":7,\"schemaId\":2,\"baseManifestList\":\"b\",\"deltaManifestList\":\"d\","
      "\"commitUser\":\"me\",\"writerVersion\":\"w\",\"commitIdentifier\":9,\"commitKind\":\"APPEND\",\"timeMillis\":5,"
      "\"totalRecordCount\":3,\"deltaRecordCount\":3,\"watermark\":-9,\"properties\":{\"k\":\"v\"},\"nextRowId\":11,"
      "\"totalFileSize\":100,\"totalDataFiles\":4,\"operation\":\"WRITE\",\"futureKey\":[1,2]}";
  CHECK_OK(pm_snapshot_parse(full, strlen(full), "full", &sn, &err), &err);
  if (sn) {
    CHECK(sn->has_total_file_size && sn->total_file_size == 100 && sn->has_total_data_files && sn->total_data_files == 4);
    CHECK(sn->has_watermark && sn->watermark == -9 && !strcmp(sn->operation, "WRITE") && !strcmp(sn->uuid, "u-1"));
    pm_buf out;
    pm_buf_init(&out);
    CHECK_OK(pm_snapshot_to_json(sn, &out, &err), &err);
    json_t *a = json_loads(full, 0, NULL), *c = json_loadb((const char *)out.data, out.len, 0, NULL);
    json_object_del(a, "futureKey");
    CHECK(a && c && json_equal(a, c));
    json_decref(a);
    json_decref(c);
    pm_buf_free(&out);
    pm_snapshot_free(sn);
    sn = NULL;
  }
  /* tag with retention (FORMAT.md 3.5): fields kept, duration text exact, written last */
  const char *tag = "{\n  \"version\" : 3,\n  \"id\" : 2,\n  \"schemaId\" : 0,\n  \"baseManifestList\" : \"b\",\n"
                    "  \"deltaManifestList\" : \"d\",\n  \"commitUser\" : \"u\",\n  \"commitIdentifier\" : 1,\n"
                    "  \"commitKind\" : \"APPEND\",\n  \"timeMillis\" : 1,\n  \"totalRecordCount\" : 0,\n"
                    "  \"deltaRecordCount\" : 0,\n  \"tagCreateTime\" : [ 2024, 6, 25, 10, 30, 45, 123456000 ],\n"
                    "  \"tagTimeRetained\" : 86400.000000000\n}";
  CHECK_OK(pm_snapshot_parse(tag, strlen(tag), "tag-t", &sn, &err), &err);
  if (sn) {
    CHECK_EQ_STR(sn->tag_time_retained_json, "86400.000000000");
    pm_buf out;
    pm_buf_init(&out);
    CHECK_OK(pm_snapshot_to_json(sn, &out, &err), &err);
    CHECK_MSG(out.len == strlen(tag) && !memcmp(out.data, tag, out.len), "tag JSON differs:\n%.*s", (int)out.len, (const char *)out.data);
    pm_buf_free(&out);
    pm_snapshot_free(sn);
    sn = NULL;
  }
  const char *nosnap = "{\"version\":3,\"id\":1}";
  CHECK_EQ_INT(pm_snapshot_parse(nosnap, strlen(nosnap), "snapshot-1", &sn, &err), PAIMON_ERR_CORRUPT);
  CHECK(strstr(err.message, "schemaId") != NULL);
}

static void test_write_read_back(void) {
  char dir[] = "/tmp/pm_meta_test_XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  pm_error err = {0};
  pm_table_schema *s = NULL;
  CHECK_OK(pm_schema_read_latest(&(pm_schema_manager){pm_fs_local(), PK09, NULL}, &s, &err), &err);
  if (!s) return;
  CHECK_OK(pm_schema_write(&(pm_schema_manager){pm_fs_local(), dir, "b1"}, s, &err), &err);
  CHECK_EQ_INT(pm_schema_write(&(pm_schema_manager){pm_fs_local(), dir, "b1"}, s, &err), PAIMON_ERR_CONFLICT);
  int64_t *ids = NULL;
  size_t n = 0;
  CHECK_OK(pm_schema_list_ids(&(pm_schema_manager){pm_fs_local(), dir, "b1"}, &ids, &n, &err), &err);
  CHECK(n == 1 && ids[0] == 0);
  free(ids);
  char **br = NULL;
  size_t nbr = 0;
  CHECK_OK(pm_branch_list(pm_fs_local(), dir, &br, &nbr, &err), &err);
  CHECK(nbr == 1 && !strcmp(br[0], "b1"));
  pm_free_names(br, nbr);
  pm_snapshot *snap = NULL;
  CHECK_OK(pm_snapshot_read(&(pm_snapshot_manager){pm_fs_local(), PK09, NULL}, 3, &snap, &err), &err);
  if (snap) {
    CHECK_OK(pm_snapshot_commit(&(pm_snapshot_manager){pm_fs_local(), dir, NULL}, snap, &err), &err);
    CHECK_EQ_INT(pm_snapshot_commit(&(pm_snapshot_manager){pm_fs_local(), dir, NULL}, snap, &err), PAIMON_ERR_CONFLICT);
    int64_t latest = 0;
    CHECK_OK(pm_snapshot_latest_id(&(pm_snapshot_manager){pm_fs_local(), dir, NULL}, &latest, &err), &err);
    CHECK_EQ_INT(latest, 3);
    CHECK_OK(pm_tag_write(&(pm_snapshot_manager){pm_fs_local(), dir, NULL}, "t1", snap, &err), &err);
    pm_snapshot *t = NULL;
    CHECK_OK(pm_tag_read(&(pm_snapshot_manager){pm_fs_local(), dir, NULL}, "t1", &t, &err), &err);
    CHECK(t && t->id == 3 && !strcmp(t->commit_user, snap->commit_user));
    pm_snapshot_free(t);
    char **tags = NULL;
    size_t ntags = 0;
    CHECK_OK(pm_tag_list(&(pm_snapshot_manager){pm_fs_local(), dir, NULL}, &tags, &ntags, &err), &err);
    CHECK(ntags == 1 && !strcmp(tags[0], "t1"));
    pm_free_names(tags, ntags);
    pm_snapshot_free(snap);
  }
  pm_schema_free(s);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  CHECK(system(cmd) == 0);
}

static void reset_ids(pm_data_type *t) {
  if (!t) return;
  for (size_t i = 0; i < t->n_fields; i++) {
    t->fields[i].id = -1;
    reset_ids(t->fields[i].type);
  }
  reset_ids(t->element);
  reset_ids(t->key);
  reset_ids(t->value);
}

/* CREATE TABLE numbering (FORMAT.md 2.4) reproduces Java's ids of a nested fixture. */
static void test_field_ids(void) {
  pm_error err = {0};
  pm_table_schema *s = NULL;
  CHECK_OK(pm_schema_read(&(pm_schema_manager){pm_fs_local(), PM_SHARED("fixtures/warehouse/orc/append_table_with_nested_type.db/append_table_with_nested_type"), NULL},
                          0, &s, &err), &err);
  if (!s) return;
  pm_buf before, after;
  pm_buf_init(&before);
  pm_buf_init(&after);
  CHECK_OK(pm_schema_to_json(s, &before, &err), &err);
  for (size_t i = 0; i < s->n_fields; i++) {
    s->fields[i].id = -1;
    reset_ids(s->fields[i].type);
  }
  int32_t hi = 0;
  pm_dfields_assign_ids(s->fields, s->n_fields, 0, &hi);
  CHECK_EQ_INT(hi, 22);
  CHECK_EQ_INT(hi, s->highest_field_id);
  CHECK_OK(pm_schema_to_json(s, &after, &err), &err);
  CHECK(before.len == after.len && !memcmp(before.data, after.data, before.len));
  pm_buf_free(&before);
  pm_buf_free(&after);
  pm_schema_free(s);
}

/* ROW inside ROW: Java's Schema.Builder.column gives the column its id, then ReassignFieldId
 * numbers a nested field's own ROW fields before the field (the visitor evaluates the type
 * argument before RowType.Builder.field draws the id). */
static void test_field_ids_row_in_row(void) {
  pm_error err = {0};
  pm_data_field *f = NULL;
  size_t n = 0;
  CHECK_OK(pm_dtype_parse_fields("x INT, r ROW<a ROW<b INT, b2 INT>, c INT>, m ARRAY<ROW<p ROW<q INT>>>, y INT", &f, &n, &err), &err);
  if (!f) return;
  int32_t hi = 0;
  pm_dfields_assign_ids(f, n, 0, &hi);
  CHECK_EQ_INT(n, 4);
  CHECK_EQ_INT(f[0].id, 0);
  CHECK_EQ_INT(f[1].id, 1);
  pm_data_type *r = f[1].type;
  CHECK_EQ_INT(r->fields[0].type->fields[0].id, 2); /* b */
  CHECK_EQ_INT(r->fields[0].type->fields[1].id, 3); /* b2 */
  CHECK_EQ_INT(r->fields[0].id, 4);                 /* a */
  CHECK_EQ_INT(r->fields[1].id, 5);                 /* c */
  CHECK_EQ_INT(f[2].id, 6);                         /* m */
  pm_data_type *row = f[2].type->element;
  CHECK_EQ_INT(row->fields[0].type->fields[0].id, 7); /* q */
  CHECK_EQ_INT(row->fields[0].id, 8);                 /* p */
  CHECK_EQ_INT(f[3].id, 9);
  CHECK_EQ_INT(hi, 9);
  for (size_t i = 0; i < n; i++) pm_data_field_clear(&f[i]);
  free(f);
}

int main(void) {
  RUN_TEST(test_all_fixture_files);
  RUN_TEST(test_pk09);
  RUN_TEST(test_options);
  RUN_TEST(test_bad_input);
  RUN_TEST(test_write_read_back);
  RUN_TEST(test_field_ids);
  RUN_TEST(test_field_ids_row_in_row);
  TEST_MAIN_END();
}
