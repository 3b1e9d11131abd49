/*
 * Primary-key tables with deletion vectors (issue 12 §2; SEMANTICS 3.6, 8):
 * the writer runs lookup compaction at every commit (level-0 files forced
 * up), marks the superseded rows of higher levels in the buckets' deletion
 * vectors instead of rewriting them, writes one DV index file per changed
 * bucket and commits it with the COMPACT snapshot, whose index manifest
 * replaces the bucket's previous DV entry.
 *
 * After every commit: our reader and `paimon-table read` equal the model
 * (tests/support/pk_model.h, deduplicate), `paimon-table check` passes, no
 * level-0 file is live, and the deletion vectors decoded independently
 * (avro-dump of the index manifest, the DV blobs of FORMAT.md 7.3 decoded
 * with CRoaring, the data files' rows by parquet-dump) mark exactly the
 * superseded rows: the rows they leave are the model, one per key.
 * A copy of a Java-written DV table takes new commits the same way.
 * Injected I/O errors at the DV index file write fail the prepare with the
 * fault's message and publish nothing.
 */
#include <jansson.h>
#include <roaring/roaring.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/api_internal.h"
#include "harness.h"
#include "io/fs_fault.h"
#include "meta/snapshot.h"
#include "paimon/write.h"
#include "table/scan.h"
#include "table/table.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/oracle_crash.h"
#include "support/oracle_table.h"
#include "support/oracle_write.h"
#include "support/pk_model.h"
#include "support/pk_write.h"

static char wh[256];

static const char *const COLS[] = {"id:i:notnull", "v:u", "n:l"};
static const pkm_column MCOLS[] = {{"id", PKM_INT, 0, 0, -1}, {"v", PKM_STRING, 0, 0, -1}, {"n", PKM_INT, 0, 0, -1}};

static paimon_table *make_table(paimon_catalog *cat, const char *name, const char *const *extra, size_t n_extra) {
  const char *opts[16] = {"primary-key=id", "bucket=2", "deletion-vectors.enabled=true"};
  size_t n = 3;
  for (size_t i = 0; i < n_extra && n < 16; i++) opts[n++] = extra[i];
  paimon_error err = {0};
  CHECK_OK(ow_create_table(cat, "d", name, "id INT NOT NULL, v STRING, n BIGINT", NULL, opts, n, 0, &err), &err);
  char id[128];
  snprintf(id, sizeof id, "d.%s", name);
  return pkw_get_table(cat, id);
}

/* ------------------------------------------------------------ independent DV check */

static json_t *tool_lines(const char *cmd) {
  char *out = NULL;
  int rc = ot_shell(cmd, &out);
  CHECK_MSG(rc == 0, "%s: exit %d", cmd, rc);
  json_t *rows = out ? ot_parse_lines(out, NULL) : NULL;
  free(out);
  return rows;
}

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

typedef struct dvfile {
  char name[256];
  roaring_bitmap_t *bm;
} dvfile;

/* The live files of the latest snapshot (our manifest scan), the DV ranges of its index
 * manifest (avro-dump) decoded from the index files, and the live rows each file keeps
 * (parquet-dump minus the DV positions): those rows must be the model, one per key.
 * Returns the number of deleted positions. */
static int64_t check_dvs(const char *dir, const json_t *want, const char *what) {
  pm_error e;
  pm_table *t = NULL;
  CHECK_OK(pm_table_open_path(dir, NULL, NULL, NULL, NULL, NULL, &t, &e), &e);
  if (!t) return -1;
  pm_snapshot_manager sm = pm_table_snapshots(t);
  pm_snapshot *s = NULL;
  CHECK_OK(pm_snapshot_read_latest_checked(&sm, &s, &e), &e);
  pm_manifest_entries live;
  pm_manifest_entries_init(&live);
  if (s) CHECK_OK(pm_scan_live_files(t, s, NULL, &live, &e), &e);
  /* the snapshot file's indexManifest, read as JSON */
  char path[2048];
  snprintf(path, sizeof path, "%s/snapshot/snapshot-%lld", dir, s ? (long long)s->id : 0LL);
  json_error_t je;
  json_t *snap = json_load_file(path, 0, &je);
  CHECK_MSG(snap != NULL, "%s: %s", path, je.text);
  const char *im = snap ? json_string_value(json_object_get(snap, "indexManifest")) : NULL;
  dvfile dvs[256];
  size_t n_dvs = 0;
  int64_t deleted = 0;
  if (im) {
    char cmd[2600];
    snprintf(cmd, sizeof cmd, "'%s/tools/avro-dump' '%s/manifest/%s' --records", PAIMON_SHARED_DIR, dir, im);
    json_t *entries = tool_lines(cmd);
    size_t i;
    json_t *en;
    char seen[64][80];
    size_t n_seen = 0;
    json_array_foreach(entries, i, en) {
      if (strcmp(json_string_value(json_object_get(en, "_INDEX_TYPE")), "DELETION_VECTORS")) continue;
      CHECK_EQ_INT(json_integer_value(json_object_get(en, "_KIND")), 0);
      /* one DV index file per (partition, bucket) */
      char key[80];
      snprintf(key, sizeof key, "%s/%lld", json_string_value(json_object_get(en, "_PARTITION")),
               (long long)json_integer_value(json_object_get(en, "_BUCKET")));
      for (size_t k = 0; k < n_seen; k++) CHECK_MSG(strcmp(seen[k], key), "%s: two DV files for %s", what, key);
      if (n_seen < 64) snprintf(seen[n_seen++], 80, "%s", key);
      snprintf(path, sizeof path, "%s/index/%s", dir, json_string_value(json_object_get(en, "_FILE_NAME")));
      FILE *f = fopen(path, "rb");
      CHECK_MSG(f != NULL, "%s: %s missing", what, path);
      if (!f) continue;
      uint8_t *bytes = malloc(1 << 20);
      size_t len = fread(bytes, 1, 1 << 20, f);
      fclose(f);
      CHECK_EQ_INT((long long)len, json_integer_value(json_object_get(en, "_FILE_SIZE")));
      CHECK_EQ_INT(bytes[0], 1); /* version */
      json_t *ranges = json_object_get(en, "_DELETIONS_VECTORS_RANGES");
      CHECK_EQ_INT((long long)json_array_size(ranges), json_integer_value(json_object_get(en, "_ROW_COUNT")));
      size_t j;
      json_t *r;
      json_array_foreach(ranges, j, r) {
        int64_t off = json_integer_value(json_object_get(r, "f1")), dl = json_integer_value(json_object_get(r, "f2"));
        CHECK_MSG(off >= 1 && off + 8 + dl <= (int64_t)len, "%s: range out of the file", what);
        if (off < 1 || off + 8 + dl > (int64_t)len) continue;
        CHECK_EQ_INT(be32(bytes + off), dl);
        CHECK_EQ_INT(be32(bytes + off + 4), 1581511376u); /* 32-bit DV magic */
        roaring_bitmap_t *bm =
            roaring_bitmap_portable_deserialize_safe((const char *)bytes + off + 8, (size_t)(dl - 4));
        CHECK_MSG(bm != NULL, "%s: DV of %s does not decode", what, json_string_value(json_object_get(r, "f0")));
        if (!bm) continue;
        CHECK_EQ_INT((long long)roaring_bitmap_get_cardinality(bm), json_integer_value(json_object_get(r, "_CARDINALITY")));
        deleted += (int64_t)roaring_bitmap_get_cardinality(bm);
        if (n_dvs < 256) {
          snprintf(dvs[n_dvs].name, sizeof dvs[n_dvs].name, "%s", json_string_value(json_object_get(r, "f0")));
          dvs[n_dvs++].bm = bm;
        } else {
          roaring_bitmap_free(bm);
        }
      }
      free(bytes);
    }
    json_decref(entries);
  }
  /* rows kept by the live files */
  json_t *kept = json_array();
  size_t used = 0;
  for (size_t i = 0; i < live.n; i++) {
    const pm_data_file_meta *m = &live.items[i].file;
    CHECK_MSG(m->level > 0, "%s: level-0 file %s is live after the commit", what, m->file_name);
    const roaring_bitmap_t *bm = NULL;
    for (size_t k = 0; k < n_dvs; k++)
      if (!strcmp(dvs[k].name, m->file_name)) bm = dvs[k].bm, used++;
    char cmd[2600];
    snprintf(cmd, sizeof cmd, "'%s/tools/parquet-dump' '%s/bucket-%d/%s'", PAIMON_SHARED_DIR, dir,
             (int)live.items[i].bucket, m->file_name);
    json_t *rows = tool_lines(cmd);
    CHECK_EQ_INT((long long)json_array_size(rows), m->row_count);
    size_t j;
    json_t *r;
    json_array_foreach(rows, j, r) {
      if (bm && roaring_bitmap_contains(bm, (uint32_t)j)) continue;
      int kind = (int)json_integer_value(json_object_get(r, "_VALUE_KIND"));
      CHECK_MSG(kind == 0 || kind == 2, "%s: a live retract in %s", what, m->file_name);
      json_t *row = json_object();
      json_object_set(row, "id", json_object_get(r, "id"));
      json_object_set(row, "v", json_object_get(r, "v"));
      json_object_set(row, "n", json_object_get(r, "n"));
      json_array_append_new(kept, row);
    }
    if (bm) CHECK_MSG(roaring_bitmap_maximum(bm) < (uint32_t)m->row_count, "%s: DV position past the file", what);
    json_decref(rows);
  }
  CHECK_MSG(used == n_dvs, "%s: %zu DVs, %zu of live files", what, n_dvs, used);
  char msg[8192];
  CHECK_MSG(ot_rows_match(want, kept, msg, sizeof msg), "%s: rows the DVs keep: %s", what, msg);
  json_decref(kept);
  for (size_t k = 0; k < n_dvs; k++) roaring_bitmap_free(dvs[k].bm);
  json_decref(snap);
  pm_manifest_entries_clear(&live);
  pm_snapshot_free(s);
  pm_table_free(t);
  return deleted;
}

static void check_all(paimon_table *t, const char *dir, const pkm_model *model, const char *what, int dv_check,
                      int64_t *deleted) {
  json_t *want = pkm_rows(model);
  paimon_error err = {0};
  json_t *ours = ow_read_ours(t, &err);
  CHECK_MSG(ours != NULL, "%s: our read: %s", what, err.message);
  char msg[8192];
  if (ours) CHECK_MSG(ot_rows_match(want, ours, msg, sizeof msg), "%s: our reader: %s", what, msg);
  json_decref(ours);
  if (ot_available()) {
    CHECK_MSG(ot_check_ok(dir, 0, what), "%s", what);
    CHECK_MSG(ot_read_equals(dir, NULL, want, what), "%s", what);
    if (dv_check) {
      int64_t d = check_dvs(dir, want, what);
      if (deleted) *deleted = d;
    }
  }
  json_decref(want);
}

/* JSON lines of ids [lo, hi) step `step` with tag; the rows go into the model too (kind). */
static char *make_rows(pkm_model *m, int lo, int hi, int step, const char *tag, int kind) {
  size_t cap = (size_t)(hi - lo + 1) * 64 + 16, len = 0;
  char *s = malloc(cap);
  s[0] = 0;
  for (int i = lo; i < hi; i += step) {
    char v[32];
    snprintf(v, sizeof v, "%s%d", tag, i);
    len += (size_t)snprintf(s + len, cap - len, "{\"id\":%d,\"v\":\"%s\",\"n\":%d}\n", i, v, i * 3);
    pkm_value row[3] = {pkm_int(i), pkm_str(v), pkm_int(i * 3)};
    pkm_add(m, kind, row);
  }
  return s;
}

static const char *latest_kind(const char *dir) {
  static char kind[32];
  ot_snapshot *s = NULL;
  size_t gaps = 0, n = ot_snapshots(dir, &s, &gaps);
  snprintf(kind, sizeof kind, "?");
  if (n) {
    char path[1024];
    snprintf(path, sizeof path, "%s/snapshot/snapshot-%lld", dir, (long long)s[n - 1].id);
    json_t *j = json_load_file(path, 0, NULL);
    if (j) snprintf(kind, sizeof kind, "%s", json_string_value(json_object_get(j, "commitKind")));
    json_decref(j);
  }
  free(s);
  return kind;
}

/* ------------------------------------------------------------ tests */

/* Eight commits of upserts and deletes over 0..160: every commit is APPEND + COMPACT, no
 * level-0 file stays, the DVs keep exactly the model. */
static void test_dv_commits(void) {
  paimon_catalog *cat = pkw_open_catalog(wh);
  paimon_table *t = make_table(cat, "dv", NULL, 0);
  char dir[512];
  snprintf(dir, sizeof dir, "%s/d.db/dv", wh);
  pkm_config cfg = {PKM_DEDUPLICATE, 3, MCOLS, 1, 0, 0, 0, 0, NULL};
  pkm_model *model = pkm_new(&cfg);
  paimon_error err = {0};
  int64_t max_deleted = 0;
  for (int c = 0; c < 8; c++) {
    char tag[8];
    snprintf(tag, sizeof tag, "c%d_", c);
    char *up = make_rows(model, (c * 17) % 90, (c * 17) % 90 + 70, 1 + c % 3, tag, 0);
    char *del = make_rows(model, (c * 29) % 150, (c * 29) % 150 + 12, 4, "x", 3);
    pkm_flush(model);
    pkw_part p[] = {{up, 0}, {del, 3}};
    pkw_how how = {COLS, 3, NULL, -1, NULL};
    CHECK_OK(pkw_write_commit(t, &how, p, 2, &err), &err);
    free(up);
    free(del);
    char what[64];
    snprintf(what, sizeof what, "dv commit %d", c);
    CHECK_EQ_STR(latest_kind(dir), "COMPACT");
    int64_t deleted = 0;
    check_all(t, dir, model, what, 1, &deleted);
    if (deleted > max_deleted) max_deleted = deleted;
  }
  CHECK_MSG(max_deleted > 0, "no deletion vector was ever written");
  fprintf(stderr, "  max %lld deleted positions\n", (long long)max_deleted);
  pkm_free(model);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* Batch of the fault test: upserts of 0..rows (tag) and deletes of 5, 17. */
static paimon_status fault_write(paimon_table *t, const char *tag, int rows, paimon_commit_messages **m,
                                 paimon_error *err) {
  char json[65536];
  size_t len = 0;
  for (int i = 0; i < rows; i++)
    len += (size_t)snprintf(json + len, sizeof json - len, "{\"id\":%d,\"v\":\"%s%d\",\"n\":%d}\n", i, tag, i, i);
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  paimon_status st = paimon_write_builder_new(t, 0, NULL, 0, &wb, err);
  if (!st) st = paimon_write_builder_new_write(wb, &w, err);
  for (int del = 0; !st && del < 2; del++) {
    struct ArrowSchema s;
    struct ArrowArray a;
    pkw_batch(COLS, 3, del ? "{\"id\":5}\n{\"id\":17}\n" : json, &s, &a);
    st = paimon_table_write_arrow_kind(w, &s, &a, del ? PAIMON_ROW_KIND_DELETE : PAIMON_ROW_KIND_INSERT, err);
    a.release(&a);
    s.release(&s);
  }
  if (!st) st = paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, m, err);
  paimon_table_write_free(w);
  paimon_write_builder_free(wb);
  return st;
}

static void model_fault_batch(pkm_model *m, const char *tag, int rows) {
  for (int i = 0; i < rows; i++) {
    char v[32];
    snprintf(v, sizeof v, "%s%d", tag, i);
    pkm_value row[3] = {pkm_int(i), pkm_str(v), pkm_int(i)};
    pkm_add(m, PKM_INSERT, row);
  }
  for (int k = 0; k < 2; k++) {
    pkm_value row[3] = {pkm_int(k ? 17 : 5), pkm_null(), pkm_null()};
    pkm_add(m, PKM_DELETE, row);
  }
  pkm_flush(m);
}

static paimon_status commit_messages(paimon_table *t, paimon_commit_messages *m, paimon_error *err) {
  paimon_write_builder *wb = NULL;
  paimon_table_commit *c = NULL;
  paimon_status st = paimon_write_builder_new(t, 0, NULL, 0, &wb, err);
  if (!st) st = paimon_write_builder_new_commit(wb, &c, err);
  if (!st) st = paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, NULL, err);
  paimon_table_commit_free(c);
  paimon_write_builder_free(wb);
  return st;
}

/* The DV index files are the last files a prepare creates (one per changed bucket; a small batch
 * over a large level, so the forced level-0 compaction upgrades instead of absorbing it): an injected
 * error at the last create / write / publish of the prepare fails it with the fault's message,
 * nothing is published, the table reads as before; the same batch then commits. */
static void test_dv_write_faults(void) {
  char root[512];
  snprintf(root, sizeof root, "%s/faults", wh);
  CHECK(oc_mkdirs(root) == 0);
  pm_error e;
  pm_error_clear(&e);
  pm_fs *fs = NULL;
  CHECK_OK(pm_fault_fs_new(pm_fs_local(), &fs, &e), &e);
  pm_options o;
  pm_options_init(&o);
  pm_options_set(&o, "warehouse", root, &e);
  paimon_catalog *cat = calloc(1, sizeof *cat);
  CHECK_OK(pm_catalog_open_with_fs(fs, &o, &cat->c, &e), &e);
  pm_options_clear(&o);
  paimon_table *t = make_table(cat, "f", NULL, 0);
  char dir[600];
  snprintf(dir, sizeof dir, "%s/d.db/f", root);
  pkm_config cfg = {PKM_DEDUPLICATE, 3, MCOLS, 1, 0, 0, 0, 0, NULL};
  pkm_model *model = pkm_new(&cfg);
  paimon_error err = {0};
  paimon_commit_messages *m = NULL;
  CHECK_OK(fault_write(t, "a", 600, &m, &err), &err);
  CHECK_OK(commit_messages(t, m, &err), &err);
  paimon_commit_messages_free(m);
  model_fault_batch(model, "a", 600);
  /* a dry run counts the prepare's operations (its files then removed by an abort) */
  pm_fault_rule never = {PM_FAULT_OP_OPEN, UINT64_MAX, 1, PM_FAULT_ERROR, 0};
  pm_fault_fs_arm(fs, &never);
  m = NULL;
  CHECK_OK(fault_write(t, "b", 30, &m, &err), &err);
  uint64_t n_create = pm_fault_fs_count(fs, PM_FAULT_OP_CREATE), n_write = pm_fault_fs_count(fs, PM_FAULT_OP_WRITE),
           n_publish = pm_fault_fs_count(fs, PM_FAULT_OP_PUBLISH);
  pm_fault_fs_disarm(fs);
  {
    paimon_write_builder *wb = NULL;
    paimon_table_commit *c = NULL;
    CHECK_OK(paimon_write_builder_new(t, 0, NULL, 0, &wb, &err), &err);
    CHECK_OK(paimon_write_builder_new_commit(wb, &c, &err), &err);
    CHECK_OK(paimon_table_commit_abort(c, m, &err), &err);
    paimon_table_commit_free(c);
    paimon_write_builder_free(wb);
  }
  paimon_commit_messages_free(m);
  int64_t before = latest_kind(dir)[0] ? 0 : 0;
  ot_snapshot *snaps = NULL;
  size_t gaps = 0, n_before = ot_snapshots(dir, &snaps, &gaps);
  free(snaps);
  (void)before;
  pm_fault_rule rules[3] = {{PM_FAULT_OP_CREATE, n_create, 1, PM_FAULT_ERROR, 0},
                            {PM_FAULT_OP_WRITE, n_write, 1, PM_FAULT_ERROR, 0},
                            {PM_FAULT_OP_PUBLISH, n_publish, 1, PM_FAULT_ERROR, 0}};
  for (int r = 0; r < 3; r++) {
    char what[96];
    snprintf(what, sizeof what, "fault at the DV index %s #%llu", pm_fault_op_name(rules[r].op),
             (unsigned long long)rules[r].nth);
    pm_fault_fs_arm(fs, &rules[r]);
    m = NULL;
    paimon_error fe = {0};
    paimon_status st = fault_write(t, "b", 30, &m, &fe);
    CHECK_MSG(pm_fault_fs_injected(fs) == 1, "%s: not injected", what);
    pm_fault_fs_disarm(fs);
    CHECK_MSG(st == PAIMON_ERR_IO, "%s: status %d", what, (int)st);
    CHECK_MSG(strstr(fe.message, "injected") && strstr(fe.message, "/index/index-") &&
                  strstr(fe.message, "deletion vectors"),
              "%s: message %s", what, fe.message);
    CHECK(m == NULL);
    paimon_commit_messages_free(m);
    snaps = NULL;
    CHECK_EQ_INT((long long)ot_snapshots(dir, &snaps, &gaps), (long long)n_before);
    free(snaps);
    check_all(t, dir, model, what, 1, NULL);
  }
  m = NULL;
  CHECK_OK(fault_write(t, "b", 30, &m, &err), &err);
  CHECK_OK(commit_messages(t, m, &err), &err);
  paimon_commit_messages_free(m);
  model_fault_batch(model, "b", 30);
  int64_t deleted = 0;
  check_all(t, dir, model, "after the faults", 1, &deleted);
  CHECK(deleted > 0);
  pkm_free(model);
  paimon_table_free(t);
  paimon_catalog_free(cat);
  pm_fs_unref(fs);
}

/* A copy of a Java-written DV table (partitioned, 2 buckets, bucket key f2): two commits of
 * updates, deletes and new keys; each commit is COMPACT with one DV file per changed bucket in
 * the index manifest; both readers = the fixture's rows + the changes; check OK. */
static void test_java_dv_table(void) {
  char root[512], cmd[2048];
  snprintf(root, sizeof root, "%s/java", wh);
  const char *db = "pk_dv_index_not_in_data_no_external", *tb = db;
  snprintf(cmd, sizeof cmd, "mkdir -p '%s/%s.db' && cp -r '%s/fixtures/warehouse/parquet/%s.db/%s' '%s/%s.db/' && "
           "chmod -R u+w '%s'", root, db, PAIMON_SHARED_DIR, db, tb, root, db, root);
  CHECK_EQ_INT(system(cmd), 0);
  char dir[1024], ident[256];
  snprintf(dir, sizeof dir, "%s/%s.db/%s", root, db, tb);
  snprintf(ident, sizeof ident, "%s.%s", db, tb);
  paimon_catalog *cat = pkw_open_catalog(root);
  paimon_table *t = pkw_get_table(cat, ident);
  paimon_error err = {0};
  json_t *old = ow_read_ours(t, &err);
  CHECK_MSG(old != NULL, "%s", err.message);
  if (ot_available()) CHECK(ot_read_equals(dir, NULL, old, "java dv table as found"));
  json_t *model = json_object();
  size_t i;
  json_t *r;
  char key[512];
#define FIXKEY(row)                                                                                       \
  snprintf(key, sizeof key, "%s/%lld/%lld", json_string_value(json_object_get(row, "f0")),                \
           (long long)json_integer_value(json_object_get(row, "f1")), (long long)json_integer_value(json_object_get(row, "f2")))
  json_array_foreach(old, i, r) {
    FIXKEY(r);
    json_object_set(model, key, r);
  }
  static const char *const FCOLS[] = {"f0:u:notnull", "f1:i:notnull", "f2:i:notnull", "f3:g"};
  const char *ups[2] = {"{\"f0\":\"Alice\",\"f1\":10,\"f2\":1,\"f3\":99.5}\n{\"f0\":\"Bob\",\"f1\":10,\"f2\":0,\"f3\":1.5}\n"
                        "{\"f0\":\"Zed\",\"f1\":20,\"f2\":1,\"f3\":null}\n",
                        "{\"f0\":\"Alice\",\"f1\":10,\"f2\":1,\"f3\":-2.0}\n{\"f0\":\"Lucy\",\"f1\":20,\"f2\":1,\"f3\":7.25}\n"
                        "{\"f0\":\"Yan\",\"f1\":30,\"f2\":0,\"f3\":3.5}\n"};
  const char *dels[2] = {"{\"f0\":\"Emily\",\"f1\":10,\"f2\":0,\"f3\":null}\n", "{\"f0\":\"Paul\",\"f1\":20,\"f2\":1,\"f3\":null}\n"};
  for (int round = 0; round < 2; round++) {
    pkw_part p[] = {{ups[round], 0}, {dels[round], 3}};
    pkw_how how = {FCOLS, 4, NULL, -1, NULL};
    CHECK_OK(pkw_write_commit(t, &how, p, 2, &err), &err);
    json_t *add = ot_parse_lines(ups[round], NULL);
    json_array_foreach(add, i, r) {
      FIXKEY(r);
      json_object_set(model, key, r);
    }
    json_decref(add);
    json_t *del = ot_parse_lines(dels[round], NULL);
    json_array_foreach(del, i, r) {
      FIXKEY(r);
      json_object_del(model, key);
    }
    json_decref(del);
    json_t *want = json_array();
    const char *k;
    json_t *v;
    json_object_foreach(model, k, v) json_array_append(want, v);
    char what[64];
    snprintf(what, sizeof what, "java dv table round %d", round);
    json_t *ours = ow_read_ours(t, &err);
    char msg[8192];
    CHECK_MSG(ours && ot_rows_match(want, ours, msg, sizeof msg), "%s: %s", what, ours ? msg : err.message);
    json_decref(ours);
    CHECK_EQ_STR(latest_kind(dir), "COMPACT");
    if (ot_available()) {
      /* the fixture's own Parquet files (older Java) name their root "schema"; ours are checked above */
      static const char *const old_java[] = {"Parquet root name \"schema\" (Java: paimon_schema)"};
      CHECK_MSG(ot_check_ok(dir, OT_ALLOW_OLD, what) || ot_check_ok_allowing(dir, OT_ALLOW_OLD, old_java, 1, what), "%s",
                what);
      CHECK(ot_read_equals(dir, NULL, want, what));
      /* the index manifest: one DV file per (partition, bucket), every one present */
      char path[1200];
      snprintf(path, sizeof path, "%s/snapshot/LATEST", dir);
      ot_snapshot *snaps = NULL;
      size_t gaps = 0, n = ot_snapshots(dir, &snaps, &gaps);
      snprintf(path, sizeof path, "%s/snapshot/snapshot-%lld", dir, n ? (long long)snaps[n - 1].id : 0LL);
      free(snaps);
      json_t *snap = json_load_file(path, 0, NULL);
      const char *im = json_string_value(json_object_get(snap, "indexManifest"));
      CHECK(im != NULL);
      snprintf(cmd, sizeof cmd, "'%s/tools/avro-dump' '%s/manifest/%s' --records", PAIMON_SHARED_DIR, dir, im ? im : "?");
      json_t *entries = tool_lines(cmd);
      char seen[16][80];
      size_t n_seen = 0, j;
      json_t *en;
      json_array_foreach(entries, j, en) {
        char bk[80];
        snprintf(bk, sizeof bk, "%s/%lld", json_string_value(json_object_get(en, "_PARTITION")),
                 (long long)json_integer_value(json_object_get(en, "_BUCKET")));
        for (size_t q = 0; q < n_seen; q++) CHECK_MSG(strcmp(seen[q], bk), "%s: two DV files for %s", what, bk);
        if (n_seen < 16) snprintf(seen[n_seen++], 80, "%s", bk);
        snprintf(path, sizeof path, "%s/index/%s", dir, json_string_value(json_object_get(en, "_FILE_NAME")));
        CHECK_MSG(access(path, R_OK) == 0, "%s: %s missing", what, path);
      }
      CHECK(n_seen >= 1);
      json_decref(entries);
      json_decref(snap);
    }
    json_decref(want);
  }
#undef FIXKEY
  json_decref(old);
  json_decref(model);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

int main(void) {
  snprintf(wh, sizeof wh, "/tmp/pm_write_pk_dv_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  RUN_TEST(test_dv_commits);
  RUN_TEST(test_dv_write_faults);
  RUN_TEST(test_java_dv_table);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && !getenv("PM_KEEP") && system(cmd)) return 1;
  TEST_MAIN_END();
}
