/* The commit half of the public write API (write.h) on messages that need no
 * writer: Java's ManifestCommittable bytes through serialize / deserialize
 * (the current wire sample re-encodes byte-identically), empty stream and
 * batch commits, filter_committed, truncate, the once-only batch commit,
 * partition-spec validation, and UNKNOWN_OUTCOME from a commit whose snapshot
 * publication fails (retried with the same user: published once). */
#include <sys/stat.h>

#include "api/api_internal.h"
#include "harness.h"
#include "io/fs_fault.h"
#include "meta/wire.h"
#include "paimon/write.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/oracle_table.h"

static char wh[256];

static void make_table(const char *name) {
  char path[512], cmd[700];
  snprintf(path, sizeof path, "%s/d.db/%s/schema", wh, name);
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path);
  CHECK_EQ_INT(system(cmd), 0);
  strcat(path, "/schema-0");
  FILE *f = fopen(path, "wb");
  if (!f) return;
  fputs("{\"version\":3,\"id\":0,\"fields\":[{\"id\":0,\"name\":\"id\",\"type\":\"BIGINT NOT NULL\"},"
        "{\"id\":1,\"name\":\"p\",\"type\":\"STRING\"}],\"highestFieldId\":1,\"partitionKeys\":[\"p\"],"
        "\"primaryKeys\":[],\"options\":{},\"timeMillis\":1700000000000}",
        f);
  fclose(f);
}

static const char *table_dir(const char *name) {
  static char d[512];
  snprintf(d, sizeof d, "%s/d.db/%s", wh, name);
  return d;
}

static paimon_table *get_table(paimon_catalog **cat, const char *name) {
  paimon_error err = {0};
  paimon_option o[] = {{"warehouse", wh}};
  char id[128];
  snprintf(id, sizeof id, "d.%s", name);
  paimon_table *t = NULL;
  CHECK_OK(paimon_catalog_open(o, 1, cat, &err), &err);
  if (*cat) CHECK_OK(paimon_catalog_get_table(*cat, id, &t, &err), &err);
  return t;
}

/* Messages without any message (what a writer that wrote nothing prepares). */
static paimon_commit_messages *empty_messages(int64_t identifier) {
  pm_manifest_committable c;
  memset(&c, 0, sizeof c);
  c.identifier = identifier;
  c.message_version = PM_COMMIT_MESSAGE_VERSION;
  pm_buf b;
  pm_buf_init(&b);
  paimon_error err = {0};
  paimon_commit_messages *m = NULL;
  CHECK(pm_committable_encode(&c, &b, &err) == 0);
  CHECK_OK(paimon_commit_messages_deserialize(b.data, b.len, 5, &m, NULL, &err), &err);
  pm_buf_free(&b);
  return m;
}

static void test_wire_sample_round_trip(void) {
  pm_buf b;
  pm_buf_init(&b);
  paimon_error err = {0};
  CHECK_OK(pm_read_file(PM_SHARED("fixtures/wire/manifest-committable-v13-v5"), &b, 1 << 20, &err), &err);
  paimon_commit_messages *m = NULL;
  int64_t id = 0;
  CHECK_OK(paimon_commit_messages_deserialize(b.data, b.len, 5, &m, &id, &err), &err);
  CHECK(paimon_commit_messages_count(m) > 0);
  CHECK(paimon_commit_messages_file_count(m) > 0);
  uint8_t *bytes = NULL;
  size_t len = 0;
  CHECK_OK(paimon_commit_messages_serialize(m, id, &bytes, &len, &err), &err);
  CHECK_EQ_INT(len, b.len);
  CHECK(bytes && len == b.len && !memcmp(bytes, b.data, len));
  /* Merging two copies doubles the messages; they serialize as one committable. */
  paimon_commit_messages *m2 = NULL;
  CHECK_OK(paimon_commit_messages_deserialize(b.data, b.len, 5, &m2, NULL, &err), &err);
  size_t n = paimon_commit_messages_count(m);
  int64_t files = paimon_commit_messages_file_count(m), rows = paimon_commit_messages_row_count(m);
  CHECK_OK(paimon_commit_messages_merge(m, &m2, &err), &err);
  CHECK(m2 == NULL);
  CHECK_EQ_INT(paimon_commit_messages_count(m), 2 * n);
  CHECK_EQ_INT(paimon_commit_messages_file_count(m), 2 * files);
  CHECK_EQ_INT(paimon_commit_messages_row_count(m), 2 * rows);
  uint8_t *bytes2 = NULL;
  size_t len2 = 0;
  CHECK_OK(paimon_commit_messages_serialize(m, 42, &bytes2, &len2, &err), &err);
  paimon_commit_messages *m3 = NULL;
  int64_t id3 = 0;
  CHECK_OK(paimon_commit_messages_deserialize(bytes2, len2, 5, &m3, &id3, &err), &err);
  CHECK_EQ_INT(id3, 42);
  CHECK_EQ_INT(paimon_commit_messages_count(m3), 2 * n);
  /* Older committable versions decode too; bad input is an error naming the bytes. */
  paimon_commit_messages *old = NULL;
  pm_buf ob;
  pm_buf_init(&ob);
  CHECK_OK(pm_read_file(PM_SHARED("fixtures/wire/manifest-committable-v11"), &ob, 1 << 20, &err), &err);
  CHECK_OK(paimon_commit_messages_deserialize(ob.data, ob.len, 4, &old, NULL, &err), &err);
  CHECK(paimon_commit_messages_count(old) > 0);
  CHECK_EQ_INT(paimon_commit_messages_deserialize(b.data, b.len / 2, 5, &m2, NULL, &err), PAIMON_ERR_CORRUPT);
  CHECK(strstr(err.message, "commit messages") != NULL);
  CHECK_EQ_INT(paimon_commit_messages_deserialize(b.data, b.len, 1, &m2, NULL, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(paimon_commit_messages_merge(m, &m, &err), PAIMON_ERR_INVALID_ARGUMENT);
  paimon_commit_messages_free(old);
  pm_buf_free(&ob);
  paimon_commit_messages_free(m3);
  paimon_free_bytes(bytes2);
  paimon_free_bytes(bytes);
  paimon_commit_messages_free(m);
  pm_buf_free(&b);
}

static void test_builder(void) {
  make_table("b");
  paimon_catalog *cat = NULL;
  paimon_table *t = get_table(&cat, "b");
  if (!t) return;
  paimon_error err = {0};
  paimon_write_builder *wb = NULL, *wb2 = NULL;
  CHECK_OK(paimon_write_builder_new(t, 0, NULL, 0, &wb, &err), &err);
  CHECK_OK(paimon_write_builder_new(t, 0, NULL, 0, &wb2, &err), &err);
  const char *u = paimon_write_builder_commit_user(wb);
  /* Java's UUID.randomUUID().toString(): version 4, IETF variant; distinct per builder. */
  CHECK(u && strlen(u) == 36 && u[8] == '-' && u[13] == '-' && u[14] == '4' && strchr("89ab", u[19]));
  CHECK(strcmp(u, paimon_write_builder_commit_user(wb2)) != 0);
  CHECK_OK(paimon_write_builder_with_commit_user(wb, "job-7", &err), &err);
  CHECK_EQ_STR(paimon_write_builder_commit_user(wb), "job-7");
  CHECK_EQ_INT(paimon_write_builder_with_commit_user(wb, "", &err), PAIMON_ERR_INVALID_ARGUMENT);
  paimon_write_builder_free(wb);
  paimon_write_builder_free(wb2);
  paimon_option prefix[] = {{"commit.user-prefix", "etl"}};
  CHECK_OK(paimon_write_builder_new(t, 1, prefix, 1, &wb, &err), &err);
  u = paimon_write_builder_commit_user(wb);
  CHECK(u && strlen(u) == 40 && !strncmp(u, "etl_", 4));
  /* Overwrite specs name partition keys only, once each. */
  paimon_option bad[] = {{"id", "1"}}, twice[] = {{"p", "a"}, {"p", "b"}}, good[] = {{"p", "a"}};
  CHECK_EQ_INT(paimon_write_builder_with_overwrite(wb, bad, 1, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "'id'") && strstr(err.message, "partition key"));
  CHECK_EQ_INT(paimon_write_builder_with_overwrite(wb, twice, 2, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_OK(paimon_write_builder_with_overwrite(wb, good, 1, &err), &err);
  paimon_write_builder_free(wb);
  /* A bad option value fails the builder, naming the key. */
  paimon_option badopt[] = {{"commit.max-retries", "many"}};
  CHECK_EQ_INT(paimon_write_builder_new(t, 0, badopt, 1, &wb, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(wb == NULL);
  CHECK_MSG(strstr(err.message, "commit.max-retries") != NULL, "%s", err.message);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

static void test_empty_commits_and_recovery(void) {
  make_table("e");
  paimon_catalog *cat = NULL;
  paimon_table *t = get_table(&cat, "e");
  if (!t) return;
  paimon_error err = {0};
  /* Batch: an empty commit writes no snapshot, and a batch committer commits once. */
  paimon_write_builder *wb = NULL;
  paimon_table_commit *c = NULL;
  paimon_commit_messages *m = empty_messages(PAIMON_BATCH_COMMIT_IDENTIFIER);
  int64_t snap = -2;
  CHECK_OK(paimon_write_builder_new(t, 0, NULL, 0, &wb, &err), &err);
  CHECK_OK(paimon_write_builder_new_commit(wb, &c, &err), &err);
  CHECK_EQ_INT(paimon_table_commit_commit(c, m, 5, &snap, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_OK(paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, &snap, &err), &err);
  CHECK_EQ_INT(snap, -1);
  CHECK_EQ_INT(paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, &snap, &err),
               PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "once") != NULL);
  paimon_table_commit_free(c);
  paimon_write_builder_free(wb);
  paimon_commit_messages_free(m);
  ot_snapshot *sn = NULL;
  CHECK_EQ_INT(ot_snapshots(table_dir("e"), &sn, NULL), 0);
  free(sn);
  /* Stream: empty commits record their identifiers; a restarted job with the same user finds them. */
  CHECK_OK(paimon_write_builder_new(t, 1, NULL, 0, &wb, &err), &err);
  CHECK_OK(paimon_write_builder_with_commit_user(wb, "stream-user", &err), &err);
  CHECK_OK(paimon_write_builder_new_commit(wb, &c, &err), &err);
  paimon_option props[] = {{"checkpoint", "yes"}};
  CHECK_OK(paimon_table_commit_with_properties(c, props, 1, &err), &err);
  paimon_table_commit_with_watermark(c, 777);
  for (int64_t id = 1; id <= 3; id++) {
    m = empty_messages(id);
    CHECK_OK(paimon_table_commit_commit(c, m, id, &snap, &err), &err);
    CHECK_EQ_INT(snap, id);
    paimon_commit_messages_free(m);
  }
  paimon_table_commit_free(c);
  paimon_write_builder_free(wb);
  size_t n = ot_snapshots(table_dir("e"), &sn, NULL);
  CHECK_EQ_INT(n, 3);
  for (size_t i = 0; i < n; i++) {
    CHECK_EQ_STR(sn[i].commit_user, "stream-user");
    CHECK_EQ_INT(sn[i].commit_identifier, (long long)i + 1);
  }
  free(sn);
  char cmd[700], *text = NULL;
  snprintf(cmd, sizeof cmd, "cat '%s/snapshot/snapshot-3'", table_dir("e"));
  CHECK_EQ_INT(ot_shell(cmd, &text), 0);
  CHECK_MSG(text && strstr(text, "\"watermark\" : 777") && strstr(text, "\"checkpoint\" : \"yes\""), "%s",
            text ? text : "");
  free(text);
  CHECK_OK(paimon_write_builder_new(t, 1, NULL, 0, &wb, &err), &err);
  CHECK_OK(paimon_write_builder_with_commit_user(wb, "stream-user", &err), &err);
  CHECK_OK(paimon_write_builder_new_commit(wb, &c, &err), &err);
  int64_t ids[] = {2, 3, 4};
  int committed[3] = {0, 0, 1};
  CHECK_OK(paimon_table_commit_filter_committed(c, ids, 3, committed, &err), &err);
  CHECK(committed[0] == 1 && committed[1] == 1 && committed[2] == 0);
  paimon_table_commit_free(c);
  paimon_write_builder_free(wb);
  /* Another user has committed nothing. */
  CHECK_OK(paimon_write_builder_new(t, 1, NULL, 0, &wb, &err), &err);
  CHECK_OK(paimon_write_builder_new_commit(wb, &c, &err), &err);
  CHECK_OK(paimon_table_commit_filter_committed(c, ids, 3, committed, &err), &err);
  CHECK(!committed[0] && !committed[1] && !committed[2]);
  /* Truncate the table and a partition (both OVERWRITE snapshots). */
  CHECK_OK(paimon_table_commit_truncate_table(c, 10, &snap, &err), &err);
  CHECK_EQ_INT(snap, 4);
  paimon_option spec[] = {{"p", "a"}}, badspec[] = {{"nope", "a"}};
  const paimon_option *specs[] = {spec}, *badspecs[] = {badspec};
  size_t nf[] = {1};
  CHECK_EQ_INT(paimon_table_commit_truncate_partitions(c, badspecs, nf, 1, 11, &snap, &err),
               PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "'nope'") != NULL);
  CHECK_EQ_INT(paimon_table_commit_truncate_partitions(c, specs, nf, 0, 11, &snap, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_OK(paimon_table_commit_truncate_partitions(c, specs, nf, 1, 11, &snap, &err), &err);
  CHECK_EQ_INT(snap, 5);
  paimon_table_commit_free(c);
  paimon_write_builder_free(wb);
  n = ot_snapshots(table_dir("e"), &sn, NULL);
  CHECK_EQ_INT(n, 5);
  if (n == 5) {
    CHECK_EQ_STR(sn[3].commit_kind, "OVERWRITE");
    CHECK_EQ_STR(sn[4].commit_kind, "OVERWRITE");
  }
  free(sn);
  if (ot_available()) CHECK(ot_check_ok(table_dir("e"), 0, "empty commits and truncations"));
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

static void test_unknown_outcome(void) {
  make_table("u");
  pm_error err = {0};
  pm_fs *fault = NULL;
  CHECK(pm_fault_fs_new(pm_fs_local(), &fault, &err) == 0);
  pm_options o;
  pm_options_init(&o);
  pm_options_set(&o, "warehouse", wh, &err);
  paimon_catalog *cat = calloc(1, sizeof *cat);
  CHECK_MSG(pm_catalog_open_with_fs(fault, &o, &cat->c, &err) == 0, "%s", err.message);
  pm_options_clear(&o);
  paimon_table *t = NULL;
  CHECK_OK(paimon_catalog_get_table(cat, "d.u", &t, &err), &err);
  if (t) {
    paimon_option no_retry[] = {{"commit.max-retries", "0"}};
    paimon_write_builder *wb = NULL;
    paimon_table_commit *c = NULL;
    paimon_commit_messages *m0 = empty_messages(1), *m = empty_messages(2);
    int64_t snap = -2;
    CHECK_OK(paimon_write_builder_new(t, 1, no_retry, 1, &wb, &err), &err);
    CHECK_OK(paimon_write_builder_new_commit(wb, &c, &err), &err);
    /* Count the publications of one commit: the snapshot is the last. */
    pm_fault_fs_disarm(fault);
    CHECK_OK(paimon_table_commit_commit(c, m0, 1, &snap, &err), &err);
    CHECK_EQ_INT(snap, 1);
    uint64_t n = pm_fault_fs_count(fault, PM_FAULT_OP_CREATE_IF_ABSENT);
    CHECK(n >= 1);
    pm_fault_rule rule = {PM_FAULT_OP_CREATE_IF_ABSENT, n, 1, PM_FAULT_ERROR, 0};
    pm_fault_fs_arm(fault, &rule);
    int rc = paimon_table_commit_commit(c, m, 2, &snap, &err);
    CHECK_MSG(rc == PAIMON_ERR_UNKNOWN_OUTCOME, "rc %d: %s", rc, err.message);
    CHECK(pm_fault_fs_injected(fault) >= 1);
    pm_fault_fs_disarm(fault);
    /* Retried with the same user and identifier (a new committer, as after a restart): published once. */
    paimon_table_commit_free(c);
    CHECK_OK(paimon_write_builder_new_commit(wb, &c, &err), &err);
    CHECK_OK(paimon_table_commit_commit(c, m, 2, &snap, &err), &err);
    CHECK_EQ_INT(snap, 2);
    paimon_table_commit_free(c);
    paimon_write_builder_free(wb);
    paimon_commit_messages_free(m);
    paimon_commit_messages_free(m0);
    ot_snapshot *sn = NULL;
    CHECK_EQ_INT(ot_snapshots(table_dir("u"), &sn, NULL), 2);
    free(sn);
    if (ot_available()) CHECK(ot_check_ok(table_dir("u"), OT_AFTER_CRASH, "after an unknown outcome"));
  }
  paimon_table_free(t);
  paimon_catalog_free(cat);
  pm_fs_unref(fault);
}

int main(void) {
  snprintf(wh, sizeof wh, "/tmp/pm_api_commit_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  RUN_TEST(test_wire_sample_round_trip);
  RUN_TEST(test_builder);
  RUN_TEST(test_empty_commits_and_recovery);
  RUN_TEST(test_unknown_outcome);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && system(cmd)) return 1;
  TEST_MAIN_END();
}
