/*
 * Deletion-vector index writing on primary-key tables (kv_dv.h; SEMANTICS
 * 8.2-8.3) into copies of a Java-written DV table
 * (parquet/pk_table_with_dv_cardinality, 2 buckets, one DV index file each):
 * bucket 0's maintainer restored from the latest snapshot's index manifest,
 * a row of a live level>0 file deleted, the bucket's new DV index file
 * (old + new vectors) written and committed as the compact increment's new
 * index file: a COMPACT snapshot whose index manifest replaced bucket 0's DV
 * entry and kept bucket 1's; paimon-table check passes, paimon-table read
 * and our reader = the fixture rows minus the deleted row (its key found by
 * DuckDB at that file position). Twice in a row (the second restores our
 * own file). Crashes (fork + the fault fs stopping at fs operations of the
 * DV write + commit; 6 stops, every operation with PAIMON_LONG_TESTS=1)
 * leave a table passing `check --after-crash` and reading as before or
 * after; an injected I/O error (every 4th operation; all in long mode) leaves
 * it as before, or committed once. (check --allow-old: the fixture's own
 * manifests are of Java 1.0/1.1.)
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "support/fixture_copy.h"
#include "io/fs_fault.h"
#include "meta/snapshot.h"
#include "table/commit.h"
#include "table/kv_dv.h"
#include "table/partition.h"
#include "table/read.h"
#include "table/scan.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/oracle_table.h"

#define FIXTURE "fixtures/warehouse/parquet/pk_table_with_dv_cardinality.db/pk_table_with_dv_cardinality"

static char wh[256];

static void copy_fixture(const char *dst) {
  CHECK(fc_copy_tree(PM_SHARED(FIXTURE), dst) == 0);
}

/* A level>0 live file of bucket 0 and its first row position without a DV. */
typedef struct victim {
  char file[256];
  int64_t pos;
  char key[512]; /* f0 of that row (DuckDB) */
} victim;

static int find_victim(const char *root, victim *v) {
  pm_error err = {0};
  pm_table *t = NULL;
  CHECK_OK(pm_table_open_path(root, "d", "t", NULL, NULL, NULL, &t, &err), &err);
  if (!t) return 0;
  pm_snapshot_manager sm = pm_table_snapshots(t);
  pm_snapshot *s = NULL;
  CHECK_OK(pm_snapshot_read_latest_checked(&sm, &s, &err), &err);
  pm_manifest_entries live;
  pm_manifest_entries_init(&live);
  CHECK_OK(pm_scan_live_files(t, s, NULL, &live, &err), &err);
  pm_index_entries idx;
  CHECK_OK(pm_kv_dv_index_entries(t, s, &idx, &err), &err);
  int found = 0;
  for (size_t i = 0; i < live.n && !found; i++) {
    const pm_manifest_entry *e = &live.items[i];
    if (e->bucket != 0 || e->file.level == 0 || e->file.row_count < 1) continue;
    char *pdir = NULL, *bdir = NULL;
    CHECK_OK(pm_partition_path(t, e->partition, &pdir, &err), &err);
    CHECK_OK(pm_table_bucket_path(t, pdir, 0, &bdir, &err), &err);
    pm_dv_maintainer *m = NULL;
    CHECK_OK(pm_kv_dv_restore(t, &idx, e->partition, 0, bdir, &m, &err), &err);
    const pm_deletion_vector *dv = m ? pm_dv_maintainer_get(m, e->file.file_name) : NULL;
    for (int64_t p = 0; p < e->file.row_count && !found; p++) {
      if (dv && pm_dv_is_deleted(dv, p)) continue;
      snprintf(v->file, sizeof v->file, "%s", e->file.file_name);
      v->pos = p;
      char q[2048], *out = NULL;
      snprintf(q, sizeof q,
               "%s/tools/duckdb-sql \"SELECT f0 FROM read_parquet('%s/%s', file_row_number=true) WHERE "
               "file_row_number = %lld\"",
               PAIMON_SHARED_DIR, bdir, e->file.file_name, (long long)p);
      if (ot_shell(q, &out) == 0 && out) {
        json_t *j = json_loads(out, 0, NULL);
        const char *f0 = j ? json_string_value(json_object_get(j, "f0")) : NULL;
        if (f0) {
          snprintf(v->key, sizeof v->key, "%s", f0);
          found = 1;
        }
        json_decref(j);
      }
      free(out);
    }
    pm_dv_maintainer_free(m);
    free(pdir);
    free(bdir);
  }
  pm_index_entries_clear(&idx);
  pm_manifest_entries_clear(&live);
  pm_snapshot_free(s);
  pm_table_free(t);
  return found;
}

/* Restore bucket 0's DVs from the latest snapshot, delete v, write the new DV
 * index file, commit it (COMPACT). fs: the table's file system. */
static int dv_step(pm_fs *fs, const char *root, const victim *v, pm_error *err) {
  pm_table *t = NULL;
  int rc = pm_table_open_fs(fs, root, "d", "t", NULL, NULL, NULL, &t, err);
  if (rc) return rc;
  pm_snapshot_manager sm = pm_table_snapshots(t);
  pm_snapshot *s = NULL;
  pm_index_entries idx;
  pm_index_entries_init(&idx);
  pm_dv_maintainer *m = NULL;
  pm_manifest_committable *c = calloc(1, sizeof *c);
  pm_arena_init(&c->arena);
  c->identifier = PM_BATCH_COMMIT_IDENTIFIER;
  c->message_version = PM_COMMIT_MESSAGE_VERSION;
  c->messages = pm_arena_alloc(&c->arena, sizeof *c->messages);
  memset(c->messages, 0, sizeof *c->messages);
  char *pdir = NULL, *bdir = NULL;
  pm_commit *cm = NULL;
  rc = pm_snapshot_read_latest_checked(&sm, &s, err);
  if (!rc) rc = pm_kv_dv_index_entries(t, s, &idx, err);
  pm_bytes part = {NULL, 0};
  for (size_t i = 0; !rc && i < idx.n; i++)
    if (idx.items[i].bucket == 0) part = idx.items[i].partition;
  if (!rc && !part.data) rc = pm_errorf(err, PAIMON_ERR_INTERNAL, "no DV entry of bucket 0");
  if (!rc) rc = pm_partition_path(t, part, &pdir, err);
  if (!rc) rc = pm_table_bucket_path(t, pdir, 0, &bdir, err);
  if (!rc) rc = pm_kv_dv_restore(t, &idx, part, 0, bdir, &m, err);
  if (!rc) rc = pm_dv_maintainer_delete(m, v->file, v->pos, err);
  pm_index_file_meta *meta = pm_arena_alloc(&c->arena, sizeof *meta);
  int written = 0;
  pm_path_factory pf;
  pm_path_factory_init(&pf, t->fs, t->root);
  if (!rc) rc = pm_kv_dv_write(t, m, &pf, bdir, &c->arena, meta, &written, err);
  if (!rc && !written) rc = pm_errorf(err, PAIMON_ERR_INTERNAL, "nothing written");
  if (!rc) {
    pm_commit_message *msg = &c->messages[c->n_messages++];
    msg->partition.data = pm_arena_memdup(&c->arena, part.data, part.len);
    msg->partition.len = part.len;
    msg->bucket = 0;
    msg->total_buckets = t->bucket;
    msg->has_total_buckets = 1;
    msg->compact_new_index_files.items = meta;
    msg->compact_new_index_files.n = 1;
    rc = pm_commit_open(t, "dv-test", 0, &cm, err);
  }
  int64_t sid = 0;
  if (!rc) rc = pm_commit_append(cm, c, 0, &sid, err);
  if (rc && rc != PAIMON_ERR_UNKNOWN_OUTCOME && c->n_messages) {
    pm_error e2;
    pm_commit_abort(t, c, &e2);
  }
  pm_commit_free(cm);
  free(pdir);
  free(bdir);
  pm_dv_maintainer_free(m);
  pm_index_entries_clear(&idx);
  pm_committable_free(c);
  pm_snapshot_free(s);
  pm_table_free(t);
  return rc;
}

/* Rows of paimon-table read minus those whose f0 is key. */
static json_t *without(const json_t *rows, const char *key) {
  json_t *out = json_array();
  size_t i;
  json_t *r;
  json_array_foreach((json_t *)rows, i, r) {
    const char *f0 = json_string_value(json_object_get(r, "f0"));
    if (!f0 || strcmp(f0, key) != 0) json_array_append(out, r);
  }
  return out;
}

/* Our reader's rows as JSON (f0 f1 f2 f3), via pm_scan + pm_read_splits. */
static json_t *read_ours(const char *root) {
  pm_error err = {0};
  pm_table *t = NULL;
  CHECK_OK(pm_table_open_path(root, "d", "t", NULL, NULL, NULL, &t, &err), &err);
  if (!t) return NULL;
  pm_plan *plan = NULL;
  struct ArrowArrayStream st;
  memset(&st, 0, sizeof st);
  json_t *rows = json_array();
  int rc = pm_scan_plan(t, NULL, -1, &plan, &err);
  if (!rc) {
    pm_read_options ro;
    pm_read_options_init(&ro);
    rc = pm_read_splits(t, plan->splits, plan->n_splits, &ro, &st, &err);
  }
  CHECK_MSG(rc == 0, "read: %s", err.message);
  while (!rc) {
    struct ArrowArray a;
    if (st.get_next(&st, &a)) {
      CHECK_MSG(0, "read: %s", st.get_last_error(&st));
      break;
    }
    if (!a.release) break;
    for (int64_t i = 0; i < a.length; i++) {
      int64_t r = i + a.offset;
      const struct ArrowArray *c0 = a.children[0], *c1 = a.children[1], *c2 = a.children[2], *c3 = a.children[3];
      const int32_t *off = c0->buffers[1];
      const char *data = c0->buffers[2];
      json_t *row = json_object();
      json_object_set_new(row, "f0", json_stringn(data + off[r + c0->offset], (size_t)(off[r + c0->offset + 1] - off[r + c0->offset])));
      json_object_set_new(row, "f1", json_integer(((const int32_t *)c1->buffers[1])[r + c1->offset]));
      json_object_set_new(row, "f2", json_integer(((const int32_t *)c2->buffers[1])[r + c2->offset]));
      const uint8_t *valid = c3->null_count ? c3->buffers[0] : NULL;
      int64_t k = r + c3->offset;
      if (valid && !(valid[k / 8] >> (k % 8) & 1)) json_object_set_new(row, "f3", json_null());
      else json_object_set_new(row, "f3", json_real(((const double *)c3->buffers[1])[k]));
      json_array_append_new(rows, row);
    }
    a.release(&a);
  }
  if (st.release) st.release(&st);
  pm_plan_free(plan);
  pm_table_free(t);
  return rows;
}

static int rows_equal(const json_t *a, const json_t *b) {
  char msg[4096];
  return a && b && ot_rows_match(a, b, msg, sizeof msg);
}

static void test_dv_commit(void) {
  if (!ot_available()) {
    fprintf(stderr, "SKIP: oracle tools unavailable\n");
    return;
  }
  char root[600];
  snprintf(root, sizeof root, "%s/d.db/t", wh);
  copy_fixture(root);
  int rc = 0;
  char *e = NULL;
  json_t *before = ot_read(root, NULL, &rc, &e);
  free(e);
  CHECK(before && json_array_size(before) >= 5);
  json_t *ours0 = read_ours(root);
  CHECK(rows_equal(before, ours0));
  json_decref(ours0);
  json_t *want = json_deep_copy(before);
  for (int step = 0; step < 2; step++) {
    victim v;
    CHECK(find_victim(root, &v));
    pm_error err = {0};
    CHECK_OK(dv_step(pm_fs_local(), root, &v, &err), &err);
    json_t *next = without(want, v.key);
    CHECK_EQ_INT(json_array_size(next), json_array_size(want) - 1);
    json_decref(want);
    want = next;
    char what[64];
    snprintf(what, sizeof what, "DV step %d", step + 1);
    CHECK_MSG(ot_check_ok(root, OT_ALLOW_OLD, what), "%s", what);
    CHECK_MSG(ot_read_equals(root, NULL, want, what), "%s", what);
    json_t *ours = read_ours(root);
    CHECK_MSG(rows_equal(want, ours), "%s: our reader", what);
    json_decref(ours);
    /* COMPACT snapshot; index manifest: bucket 0 replaced (old + new vectors), bucket 1 kept */
    pm_table *t = NULL;
    CHECK_OK(pm_table_open_path(root, "d", "t", NULL, NULL, NULL, &t, &err), &err);
    pm_snapshot_manager sm = pm_table_snapshots(t);
    pm_snapshot *s = NULL;
    CHECK_OK(pm_snapshot_read_latest_checked(&sm, &s, &err), &err);
    CHECK(s && !strcmp(s->commit_kind, "COMPACT"));
    pm_index_entries idx;
    CHECK_OK(pm_kv_dv_index_entries(t, s, &idx, &err), &err);
    CHECK_EQ_INT(idx.n, 2);
    for (size_t i = 0; i < idx.n; i++) {
      const pm_index_file_meta *im = &idx.items[i].index_file;
      if (idx.items[i].bucket == 0) {
        CHECK(strstr(im->file_name, "62372b7b") == NULL);
        int has = 0;
        int64_t total = 0;
        for (int32_t r = 0; r < im->n_dv_ranges; r++) {
          has |= !strcmp(im->dv_ranges[r].data_file_name, v.file);
          total += im->dv_ranges[r].cardinality;
        }
        CHECK(has && total == 2 + step);
      } else {
        CHECK_EQ_STR(im->file_name, "index-62372b7b-d1cf-4dde-a162-c9d9d35006b4-1");
      }
    }
    pm_index_entries_clear(&idx);
    pm_snapshot_free(s);
    pm_table_free(t);
  }
  json_decref(want);
  json_decref(before);
}

/* Counts the fs operations of one DV step, per kind. */
static void count_ops(const char *root, const victim *v, uint64_t counts[PM_FAULT_OP_COUNT]) {
  pm_error err = {0};
  pm_fs *ff = NULL;
  CHECK_OK(pm_fault_fs_new(pm_fs_local(), &ff, &err), &err);
  pm_fault_fs_disarm(ff);
  CHECK_OK(dv_step(ff, root, v, &err), &err);
  for (int k = 0; k < PM_FAULT_OP_COUNT; k++) counts[k] = pm_fault_fs_count(ff, (pm_fault_op)k);
  pm_fs_unref(ff);
}

static void test_dv_crash_and_faults(void) {
  if (!ot_available()) {
    fprintf(stderr, "SKIP: oracle tools unavailable\n");
    return;
  }
  char root[600], work[600];
  snprintf(root, sizeof root, "%s/d.db/base", wh);
  snprintf(work, sizeof work, "%s/d.db/t2", wh);
  copy_fixture(root);
  victim v;
  CHECK(find_victim(root, &v));
  int rc = 0;
  char *e = NULL;
  json_t *before = ot_read(root, NULL, &rc, &e);
  free(e);
  json_t *after = without(before, v.key);
  copy_fixture(work);
  uint64_t counts[PM_FAULT_OP_COUNT];
  count_ops(work, &v, counts);
  const char *lng = getenv("PAIMON_LONG_TESTS");
  int long_mode = lng && *lng && strcmp(lng, "0") != 0;
  /* stops: every (kind, n) in long mode; else 6 spread over the kinds */
  typedef struct stop {
    pm_fault_op op;
    uint64_t nth;
  } stop;
  stop stops[512];
  size_t n_stops = 0, total = 0;
  for (int k = 0; k < PM_FAULT_OP_COUNT; k++) total += counts[k];
  size_t stride = long_mode || total <= 6 ? 1 : (total + 5) / 6, idx = 0;
  for (int k = 0; k < PM_FAULT_OP_COUNT; k++)
    for (uint64_t n = 1; n <= counts[k] && n_stops < 512; n++, idx++)
      if (idx % stride == 0) stops[n_stops++] = (stop){(pm_fault_op)k, n};
  fprintf(stderr, "DV step: %zu fs operations, %zu crash stops\n", total, n_stops);
  CHECK(total >= 8);
  size_t n_after = 0;
  for (size_t i = 0; i < n_stops; i++) {
    copy_fixture(work);
    pid_t pid = fork();
    if (pid == 0) {
      pm_error err = {0};
      pm_fs *ff = NULL;
      if (pm_fault_fs_new(pm_fs_local(), &ff, &err)) _exit(3);
      pm_fault_rule r = {stops[i].op, stops[i].nth, 1, PM_FAULT_EXIT, 42};
      pm_fault_fs_arm(ff, &r);
      int st = dv_step(ff, work, &v, &err);
      _exit(st ? 2 : 0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 42, "stop %s #%llu: exit status %d",
              pm_fault_op_name(stops[i].op), (unsigned long long)stops[i].nth, status);
    char what[96];
    snprintf(what, sizeof what, "crash at %s #%llu", pm_fault_op_name(stops[i].op), (unsigned long long)stops[i].nth);
    static const char *const stale_hint[] = {"snapshot/LATEST: says "}; /* crash between snapshot and hint */
    CHECK_MSG(ot_check_ok_allowing(work, OT_AFTER_CRASH | OT_ALLOW_OLD, stale_hint, 1, what), "%s", what);
    json_t *ours = read_ours(work);
    int is_before = rows_equal(before, ours), is_after = rows_equal(after, ours);
    CHECK_MSG(is_before || is_after, "%s: rows are neither before nor after", what);
    n_after += is_after;
    json_decref(ours);
    /* the step run again on the crashed table publishes it (once) */
    if (is_before) {
      pm_error err = {0};
      CHECK_OK(dv_step(pm_fs_local(), work, &v, &err), &err);
      ours = read_ours(work);
      CHECK_MSG(rows_equal(after, ours), "%s: retried", what);
      json_decref(ours);
    }
  }
  fprintf(stderr, "%zu of %zu stops had published the DV commit\n", n_after, n_stops);
  /* injected I/O errors at every operation: failed = as before; OK / unknown outcome = after */
  size_t n_err = 0, op_i = 0;
  for (int k = 0; k < PM_FAULT_OP_COUNT; k++)
    for (uint64_t n = 1; n <= counts[k]; n++) {
      if (!long_mode && op_i++ % 4 != 0) continue;
      copy_fixture(work);
      pm_error err = {0};
      pm_fs *ff = NULL;
      CHECK_OK(pm_fault_fs_new(pm_fs_local(), &ff, &err), &err);
      pm_fault_rule r = {(pm_fault_op)k, n, 1, PM_FAULT_ERROR, 0};
      pm_fault_fs_arm(ff, &r);
      int st = dv_step(ff, work, &v, &err);
      pm_fs_unref(ff);
      json_t *ours = read_ours(work);
      int ok = st == 0 || st == PAIMON_ERR_UNKNOWN_OUTCOME ? rows_equal(after, ours) || st == PAIMON_ERR_UNKNOWN_OUTCOME
                                                           : rows_equal(before, ours);
      CHECK_MSG(ok, "I/O error at %s #%llu: status %d (%s), rows wrong", pm_fault_op_name((pm_fault_op)k),
                (unsigned long long)n, st, err.message);
      if (st && st != PAIMON_ERR_UNKNOWN_OUTCOME)
        CHECK_MSG(strstr(err.message, "injected") != NULL, "%s", err.message);
      n_err += st != 0;
      json_decref(ours);
    }
  fprintf(stderr, "%zu injected I/O errors failed the step\n", n_err);
  CHECK(ot_check_ok(work, OT_AFTER_CRASH | OT_ALLOW_OLD, "after the fault runs"));
  json_decref(before);
  json_decref(after);
}

int main(void) {
  snprintf(wh, sizeof wh, "/tmp/pm_kv_dv_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  RUN_TEST(test_dv_commit);
  RUN_TEST(test_dv_crash_and_faults);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && system(cmd)) return 1;
  TEST_MAIN_END();
}
