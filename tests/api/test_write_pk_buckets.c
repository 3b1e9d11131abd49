/*
 * Bucket modes of primary-key tables beyond fixed buckets (issue 12 §1):
 * dynamic buckets (`bucket` = -1, the primary key covers the partition key):
 * keys assigned by the hash index (dynamic-bucket.target-row-num,
 * .max-buckets, .initial-buckets / .assigner-parallelism), HASH index files
 * in the index manifest, restored by a new writer (keys written again keep
 * their bucket: no key twice across buckets). After every commit the table
 * passes `paimon-table check`, and `paimon-table read` and our reader equal
 * a model (key -> row, rows applied in order).
 * Cross-partition updates (`bucket` = -1, partition key outside the primary
 * key): the key index rebuilt by each new writer, deduplicate moving keys
 * (-D at the old location), partial-update applying in the existing
 * partition. Randomized runs of both modes over 5 restarted writers.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arrow/arrow.h"
#include "arrow/json_read.h"
#include "arrow/type.h"
#include "harness.h"
#include "paimon/write.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "api/api_internal.h"
#include "io/fs_fault.h"
#include "table/catalog.h"
#include "meta/hash_index.h"
#include "meta/manifest.h"
#include "meta/snapshot.h"
#include "support/oracle_table.h"
#include "support/oracle_write.h"
#include "support/pk_write.h"
#include "table/partition.h"
#include "table/scan.h"

static char wh[256];

static const char *table_dir(const char *name) {
  static char d[512];
  snprintf(d, sizeof d, "%s/d.db/%s", wh, name);
  return d;
}

static paimon_catalog *open_catalog(void) { return pkw_open_catalog(wh); }

static paimon_table *get_table(paimon_catalog *c, const char *name) {
  char id[128];
  snprintf(id, sizeof id, "d.%s", name);
  return pkw_get_table(c, id);
}

/* id INT NOT NULL, pt STRING NOT NULL (partition), v STRING, n BIGINT; primary key given. */
#define TABLE_COLS "id INT NOT NULL, pt STRING NOT NULL, v STRING, n BIGINT"
static const char *const COLS[] = {"id:i:notnull", "pt:u:notnull", "v:u", "n:l"};

static paimon_table *make_table(paimon_catalog *cat, const char *name, const char *pk, const char *const *extra,
                                size_t n_extra) {
  char pkopt[64];
  snprintf(pkopt, sizeof pkopt, "primary-key=%s", pk);
  const char *opts[16] = {pkopt, "bucket=-1"};
  size_t n = 2;
  for (size_t i = 0; i < n_extra && n < 16; i++) opts[n++] = extra[i];
  paimon_error err = {0};
  CHECK_OK(ow_create_table(cat, "d", name, TABLE_COLS, "pt", opts, n, 0, &err), &err);
  return get_table(cat, name);
}

static void batch(const char *jsonl, struct ArrowSchema *s, struct ArrowArray *a) { pkw_batch(COLS, 4, jsonl, s, a); }

typedef pkw_part wpart;

/* One writer (a new writer object over the committed table each call): writes the parts, commits. */
static int write_commit(paimon_table *t, const wpart *parts, size_t n, paimon_error *err) {
  pkw_how how = {COLS, 4, NULL, -1, NULL};
  return pkw_write_commit(t, &how, parts, n, err);
}

/* ------------------------------------------------------------ the model */

static char *model_key(const json_t *row) {
  char *k = malloc(256);
  snprintf(k, 256, "%s/%lld", json_string_value(json_object_get(row, "pt")),
           (long long)json_integer_value(json_object_get(row, "id")));
  return k;
}

/* Deduplicate: adds set the key's row, retracts remove it. */
static void model_apply(json_t *model, const char *jsonl, int kind) {
  size_t bad = 0;
  json_t *rows = ot_parse_lines(jsonl, &bad);
  CHECK(rows != NULL);
  size_t i;
  json_t *r;
  json_array_foreach(rows, i, r) {
    json_t *row = json_deep_copy(r);
    const char *cols[] = {"v", "n"};
    for (int c = 0; c < 2; c++)
      if (!json_object_get(row, cols[c])) json_object_set_new(row, cols[c], json_null());
    char *key = model_key(row);
    if (kind == 1 || kind == 3) {
      json_object_del(model, key);
      json_decref(row);
    } else {
      json_object_set_new(model, key, row);
    }
    free(key);
  }
  json_decref(rows);
}

static json_t *model_rows(const json_t *model) {
  json_t *out = json_array();
  const char *k;
  json_t *v;
  json_object_foreach((json_t *)model, k, v) json_array_append(out, v);
  return out;
}

static void check_model(paimon_table *t, const char *name, const json_t *model, const char *what) {
  json_t *want = model_rows(model);
  paimon_error err = {0};
  json_t *ours = ow_read_ours(t, &err);
  CHECK_MSG(ours != NULL, "%s: our read: %s", what, err.message);
  if (ours) {
    char msg[8192];
    CHECK_MSG(ot_rows_match(want, ours, msg, sizeof msg), "%s: our reader: %s", what, msg);
  }
  json_decref(ours);
  if (ot_available()) {
    CHECK_MSG(ot_check_ok(table_dir(name), 0, what), "%s", what);
    CHECK_MSG(ot_read_equals(table_dir(name), NULL, want, what), "%s", what);
  }
  json_decref(want);
}

/* JSON lines of rows id = from..to-1 in partition pt, v = tag + id. */
static char *rows_text(const char *pt, int from, int to, const char *tag) {
  size_t cap = (size_t)(to - from + 1) * 96, len = 0;
  char *s = malloc(cap);
  s[0] = 0;
  for (int i = from; i < to; i++)
    len += (size_t)snprintf(s + len, cap - len, "{\"id\":%d,\"pt\":\"%s\",\"v\":\"%s%d\",\"n\":%d}\n", i, pt, tag, i,
                            i * 10);
  return s;
}

/* ------------------------------------------------------------ the hash index */

/* The latest snapshot's HASH index: per "partition-path/bucket" the row count
 * (checked: file size 4 x rows, the file's hashes distinct, every hash in one
 * bucket of its partition only). Also *n_live_buckets = distinct (partition,
 * bucket) of live data files, each having a HASH file. */
static json_t *hash_index(paimon_table *pt, size_t *n_live_buckets) {
  pm_table *t = pt->t;
  pm_error err;
  pm_snapshot_manager sm = pm_table_snapshots(t);
  pm_snapshot *latest = NULL;
  CHECK(pm_snapshot_read_latest_checked(&sm, &latest, &err) == 0);
  json_t *out = json_object();
  json_t *seen = json_object(); /* "partition#hash" -> bucket */
  CHECK(latest != NULL && latest->index_manifest != NULL);
  if (!latest || !latest->index_manifest) {
    pm_snapshot_free(latest);
    json_decref(seen);
    return out;
  }
  char sub[512];
  snprintf(sub, sizeof sub, "manifest/%s", latest->index_manifest);
  char *path = pm_table_root_path(t, sub);
  pm_index_entries ie;
  pm_index_entries_init(&ie);
  CHECK_MSG(pm_index_manifest_read(t->fs, path, &ie, &err) == 0, "%s", err.message);
  free(path);
  for (size_t i = 0; i < ie.n; i++) {
    const pm_index_manifest_entry *e = &ie.items[i];
    CHECK(!strcmp(e->index_file.index_type, "HASH"));
    CHECK_MSG(!strncmp(e->index_file.file_name, "index-", 6), "%s", e->index_file.file_name);
    char *pdir = NULL, *bdir = NULL, *fp = NULL;
    CHECK(pm_partition_path(t, e->partition, &pdir, &err) == 0);
    CHECK(pm_table_bucket_path(t, pdir, e->bucket, &bdir, &err) == 0);
    CHECK(pm_table_index_file_path(t, bdir, e->index_file.file_name, NULL, &fp, &err) == 0);
    int32_t *h = NULL;
    size_t n = 0;
    CHECK_MSG(pm_hash_index_read(t->fs, fp, &h, &n, &err) == 0, "%s", err.message);
    CHECK_EQ_INT((long long)n, (long long)e->index_file.row_count);
    CHECK_EQ_INT((long long)e->index_file.file_size, (long long)(4 * n));
    for (size_t k = 0; k < n; k++) {
      char key[300];
      snprintf(key, sizeof key, "%s#%d", pdir, (int)h[k]);
      CHECK_MSG(json_object_get(seen, key) == NULL, "hash %d twice in partition %s", (int)h[k], pdir);
      json_object_set_new(seen, key, json_integer(e->bucket));
    }
    char k2[300];
    snprintf(k2, sizeof k2, "%s/%d", pdir, (int)e->bucket);
    CHECK_MSG(json_object_get(out, k2) == NULL, "two HASH files for %s", k2);
    json_object_set_new(out, k2, json_integer(e->index_file.row_count));
    free(h);
    free(pdir);
    free(bdir);
    free(fp);
  }
  pm_manifest_entries live;
  pm_manifest_entries_init(&live);
  CHECK(pm_scan_live_files(t, latest, NULL, &live, &err) == 0);
  json_t *lb = json_object();
  for (size_t i = 0; i < live.n; i++) {
    char *pdir = NULL;
    CHECK(pm_partition_path(t, live.items[i].partition, &pdir, &err) == 0);
    char k2[300];
    snprintf(k2, sizeof k2, "%s/%d", pdir, (int)live.items[i].bucket);
    CHECK_EQ_INT(live.items[i].total_buckets, -1);
    CHECK_MSG(json_object_get(out, k2) != NULL, "bucket %s has data files but no HASH index", k2);
    json_object_set_new(lb, k2, json_true());
    free(pdir);
  }
  *n_live_buckets = json_object_size(lb);
  json_decref(lb);
  pm_manifest_entries_clear(&live);
  pm_index_entries_clear(&ie);
  pm_snapshot_free(latest);
  json_decref(seen);
  return out;
}

static long long count_of(const json_t *idx, const char *key) {
  const json_t *v = json_object_get(idx, key);
  return v ? (long long)json_integer_value(v) : -1;
}

/* ------------------------------------------------------------ tests */

/* target-row-num 4: 10 keys of pt=a fill buckets 0,1 and 2 (4, 4, 2), 3 keys
 * of pt=b bucket 0; a new writer updates old keys (same buckets), adds new
 * ones (bucket 2 of a, then 3), deletes some. */
static void test_dynamic_restore(void) {
  paimon_catalog *cat = open_catalog();
  const char *opts[] = {"dynamic-bucket.target-row-num=4"};
  paimon_table *t = make_table(cat, "dyn", "pt,id", opts, 1);
  json_t *model = json_object();
  paimon_error err = {0};
  char *a1 = rows_text("a", 0, 10, "a"), *b1 = rows_text("b", 100, 103, "b");
  wpart p1[] = {{a1, 0}, {b1, 0}};
  CHECK_OK(write_commit(t, p1, 2, &err), &err);
  model_apply(model, a1, 0);
  model_apply(model, b1, 0);
  check_model(t, "dyn", model, "commit 1");
  size_t nlb = 0;
  json_t *idx = hash_index(t, &nlb);
  CHECK_EQ_INT(count_of(idx, "pt=a/0"), 4);
  CHECK_EQ_INT(count_of(idx, "pt=a/1"), 4);
  CHECK_EQ_INT(count_of(idx, "pt=a/2"), 2);
  CHECK_EQ_INT(count_of(idx, "pt=b/0"), 3);
  CHECK_EQ_INT((long long)json_object_size(idx), 4);
  CHECK_EQ_INT((long long)nlb, 4);
  json_decref(idx);
  /* 2: a new writer: all old keys of a updated (reversed order), 3 new keys, a delete in b */
  char *a2 = rows_text("a", 0, 13, "a2-");
  const char *d2 = "{\"id\":101,\"pt\":\"b\"}\n";
  wpart p2[] = {{a2, 2}, {d2, 3}};
  CHECK_OK(write_commit(t, p2, 2, &err), &err);
  model_apply(model, a2, 2);
  model_apply(model, d2, 3);
  check_model(t, "dyn", model, "commit 2 (restarted writer, old keys updated)");
  idx = hash_index(t, &nlb);
  CHECK_EQ_INT(count_of(idx, "pt=a/0"), 4);
  CHECK_EQ_INT(count_of(idx, "pt=a/1"), 4);
  CHECK_EQ_INT(count_of(idx, "pt=a/2"), 4);
  CHECK_EQ_INT(count_of(idx, "pt=a/3"), 1);
  CHECK_EQ_INT(count_of(idx, "pt=b/0"), 3); /* deleted keys stay in the index, as in Java */
  json_decref(idx);
  /* 3: a third writer re-inserts the deleted key and updates a subset: no new HASH file for b/0 needed */
  const char *b3 = "{\"id\":101,\"pt\":\"b\",\"v\":\"back\",\"n\":1}\n{\"id\":5,\"pt\":\"a\",\"v\":\"five\",\"n\":5}\n";
  wpart p3[] = {{b3, 0}};
  CHECK_OK(write_commit(t, p3, 1, &err), &err);
  model_apply(model, b3, 0);
  check_model(t, "dyn", model, "commit 3");
  free(a1);
  free(b1);
  free(a2);
  json_decref(model);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* max-buckets 2 with target 2: 9 keys stay in buckets 0 and 1. */
static void test_dynamic_max_buckets(void) {
  paimon_catalog *cat = open_catalog();
  const char *opts[] = {"dynamic-bucket.target-row-num=2", "dynamic-bucket.max-buckets=2"};
  paimon_table *t = make_table(cat, "dynmax", "pt,id", opts, 2);
  json_t *model = json_object();
  paimon_error err = {0};
  char *a1 = rows_text("a", 0, 9, "x");
  wpart p1[] = {{a1, 0}};
  CHECK_OK(write_commit(t, p1, 1, &err), &err);
  model_apply(model, a1, 0);
  check_model(t, "dynmax", model, "commit 1");
  size_t nlb = 0;
  json_t *idx = hash_index(t, &nlb);
  CHECK_EQ_INT((long long)json_object_size(idx), 2);
  CHECK_EQ_INT(count_of(idx, "pt=a/0") + count_of(idx, "pt=a/1"), 9);
  CHECK(count_of(idx, "pt=a/0") >= 2 && count_of(idx, "pt=a/1") >= 2);
  json_decref(idx);
  /* a restarted writer keeps them */
  char *a2 = rows_text("a", 0, 9, "y");
  wpart p2[] = {{a2, 0}};
  CHECK_OK(write_commit(t, p2, 1, &err), &err);
  model_apply(model, a2, 0);
  check_model(t, "dynmax", model, "commit 2");
  idx = hash_index(t, &nlb);
  CHECK_EQ_INT((long long)json_object_size(idx), 2);
  CHECK_EQ_INT(count_of(idx, "pt=a/0") + count_of(idx, "pt=a/1"), 9);
  json_decref(idx);
  free(a1);
  free(a2);
  json_decref(model);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* initial-buckets 3: three assigners each own buckets b % 3: new keys spread
 * over buckets 0..2 from the start (Java's key -> assigner routing). */
static void test_dynamic_initial_buckets(void) {
  paimon_catalog *cat = open_catalog();
  const char *opts[] = {"dynamic-bucket.initial-buckets=3"};
  paimon_table *t = make_table(cat, "dyninit", "pt,id", opts, 1);
  json_t *model = json_object();
  paimon_error err = {0};
  char *a1 = rows_text("a", 0, 60, "z");
  wpart p1[] = {{a1, 0}};
  CHECK_OK(write_commit(t, p1, 1, &err), &err);
  model_apply(model, a1, 0);
  check_model(t, "dyninit", model, "commit 1");
  size_t nlb = 0;
  json_t *idx = hash_index(t, &nlb);
  CHECK_EQ_INT((long long)json_object_size(idx), 3);
  CHECK_EQ_INT(count_of(idx, "pt=a/0") + count_of(idx, "pt=a/1") + count_of(idx, "pt=a/2"), 60);
  json_decref(idx);
  free(a1);
  json_decref(model);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* ------------------------------------------------------------ cross-partition */

/* Model of a cross-partition table keyed by id alone: deduplicate moves the
 * key (the row replaces the old one, wherever it was); partial-update
 * overlays the non-null values onto the existing row, keeping its partition. */
static void model_apply_cross(json_t *model, const char *jsonl, int kind, int partial) {
  size_t bad = 0;
  json_t *rows = ot_parse_lines(jsonl, &bad);
  CHECK(rows != NULL);
  size_t i;
  json_t *r;
  json_array_foreach(rows, i, r) {
    json_t *row = json_deep_copy(r);
    const char *cols[] = {"v", "n"};
    for (int c = 0; c < 2; c++)
      if (!json_object_get(row, cols[c])) json_object_set_new(row, cols[c], json_null());
    char key[32];
    snprintf(key, sizeof key, "%lld", (long long)json_integer_value(json_object_get(row, "id")));
    json_t *old = json_object_get(model, key);
    if (kind == 1 || kind == 3) {
      if (!partial) json_object_del(model, key);
      json_decref(row);
    } else if (partial && old) {
      for (int c = 0; c < 2; c++) {
        json_t *v = json_object_get(row, cols[c]);
        if (!json_is_null(v)) json_object_set(old, cols[c], v);
      }
      json_decref(row);
    } else {
      json_object_set_new(model, key, row);
    }
  }
  json_decref(rows);
}

/* Deduplicate, primary key id, partition pt outside it, target 3 keys per
 * bucket. Restarted writers (each commit a new writer object) rebuild the key
 * index from the live rows: keys move between partitions (the old location
 * gets a -D), a delete naming another partition deletes the key, keys moved
 * back find their current partition. */
static void test_cross_dedup(void) {
  paimon_catalog *cat = open_catalog();
  const char *opts[] = {"dynamic-bucket.target-row-num=3"};
  paimon_table *t = make_table(cat, "xdedup", "id", opts, 1);
  json_t *model = json_object();
  paimon_error err = {0};
  char *a1 = rows_text("a", 0, 10, "a"), *b1 = rows_text("b", 10, 15, "b");
  wpart p1[] = {{a1, 0}, {b1, 0}};
  CHECK_OK(write_commit(t, p1, 2, &err), &err);
  model_apply_cross(model, a1, 0, 0);
  model_apply_cross(model, b1, 0, 0);
  check_model(t, "xdedup", model, "cross commit 1");
  /* 2: ids 0..4 move to b, 5..6 updated in a, 10 moves to c, 11 deleted in b, 12 deleted naming a */
  char *m2 = rows_text("b", 0, 5, "moved"), *u2 = rows_text("a", 5, 7, "upd"), *c2 = rows_text("c", 10, 11, "c");
  const char *d2 = "{\"id\":11,\"pt\":\"b\"}\n{\"id\":12,\"pt\":\"a\"}\n";
  wpart p2[] = {{m2, 0}, {u2, 2}, {c2, 0}, {d2, 3}};
  CHECK_OK(write_commit(t, p2, 4, &err), &err);
  model_apply_cross(model, m2, 0, 0);
  model_apply_cross(model, u2, 2, 0);
  model_apply_cross(model, c2, 0, 0);
  model_apply_cross(model, d2, 3, 0);
  check_model(t, "xdedup", model, "cross commit 2 (moves, deletes)");
  /* 3: a new writer moves 0..2 back to a, re-inserts 12 in c, moves 10 within one batch twice */
  char *m3 = rows_text("a", 0, 3, "back");
  const char *x3 = "{\"id\":12,\"pt\":\"c\",\"v\":\"again\",\"n\":1}\n{\"id\":10,\"pt\":\"a\",\"v\":\"t1\",\"n\":2}\n"
                   "{\"id\":10,\"pt\":\"b\",\"v\":\"t2\",\"n\":3}\n";
  wpart p3[] = {{m3, 0}, {x3, 0}};
  CHECK_OK(write_commit(t, p3, 2, &err), &err);
  model_apply_cross(model, m3, 0, 0);
  model_apply_cross(model, x3, 0, 0);
  check_model(t, "xdedup", model, "cross commit 3 (moved back)");
  free(a1);
  free(b1);
  free(m2);
  free(u2);
  free(c2);
  free(m3);
  json_decref(model);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* Partial-update: a row naming another partition updates the key where it lives. */
static void test_cross_partial_update(void) {
  paimon_catalog *cat = open_catalog();
  const char *opts[] = {"merge-engine=partial-update", "dynamic-bucket.target-row-num=2"};
  paimon_table *t = make_table(cat, "xpartial", "id", opts, 2);
  json_t *model = json_object();
  paimon_error err = {0};
  char *a1 = rows_text("a", 0, 5, "a");
  wpart p1[] = {{a1, 0}};
  CHECK_OK(write_commit(t, p1, 1, &err), &err);
  model_apply_cross(model, a1, 0, 1);
  check_model(t, "xpartial", model, "partial commit 1");
  const char *u2 = "{\"id\":1,\"pt\":\"b\",\"v\":null,\"n\":111}\n{\"id\":2,\"pt\":\"z\",\"v\":\"two\",\"n\":null}\n"
                   "{\"id\":7,\"pt\":\"b\",\"v\":\"seven\",\"n\":7}\n";
  wpart p2[] = {{u2, 0}};
  CHECK_OK(write_commit(t, p2, 1, &err), &err);
  model_apply_cross(model, u2, 0, 1);
  check_model(t, "xpartial", model, "partial commit 2 (updates in the existing partition)");
  free(a1);
  json_decref(model);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* ------------------------------------------------------------ randomized */

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t next_rand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)(rng >> 11);
}

/* 5 commits (each a new writer) of random upserts and deletes over 400 keys
 * in 3 partitions, target 16 keys per bucket: dynamic (key = (pt, id)) or
 * cross-partition (key = id: a key's partition changes at random). Our
 * reader = model after every commit; paimon-table check + read after the
 * last. */
static void random_run(const char *name, int cross) {
  paimon_catalog *cat = open_catalog();
  const char *opts[] = {"dynamic-bucket.target-row-num=16"};
  paimon_table *t = make_table(cat, name, cross ? "id" : "pt,id", opts, 1);
  json_t *model = json_object();
  paimon_error err = {0};
  const char *pts[] = {"p0", "p1", "p2"};
  for (int c = 0; c < 5; c++) {
    size_t cap = 1 << 16;
    char *ups = malloc(cap), *dels = malloc(cap);
    size_t nu = 0, nd = 0;
    ups[0] = dels[0] = 0;
    for (int i = 0; i < 300; i++) {
      int id = (int)(next_rand() % 400);
      const char *pt = pts[next_rand() % 3];
      if (next_rand() % 5 == 0)
        nd += (size_t)snprintf(dels + nd, cap - nd, "{\"id\":%d,\"pt\":\"%s\"}\n", id, pt);
      else
        nu += (size_t)snprintf(ups + nu, cap - nu, "{\"id\":%d,\"pt\":\"%s\",\"v\":\"c%d-%d\",\"n\":%d}\n", id, pt, c,
                               i, i);
    }
    wpart parts[2] = {{ups, 0}, {dels, 3}};
    CHECK_OK(write_commit(t, parts, nd ? 2 : 1, &err), &err);
    if (cross) {
      model_apply_cross(model, ups, 0, 0);
      if (nd) model_apply_cross(model, dels, 3, 0);
    } else {
      model_apply(model, ups, 0);
      if (nd) model_apply(model, dels, 3);
    }
    json_t *want = model_rows(model);
    json_t *ours = ow_read_ours(t, &err);
    CHECK_MSG(ours != NULL, "%s", err.message);
    char msg[8192];
    if (ours) CHECK_MSG(ot_rows_match(want, ours, msg, sizeof msg), "%s commit %d: %s", name, c, msg);
    json_decref(ours);
    json_decref(want);
    free(ups);
    free(dels);
  }
  check_model(t, name, model, "random run, last commit");
  if (!cross) {
    size_t nlb = 0;
    json_t *idx = hash_index(t, &nlb);
    const char *k;
    json_t *v;
    json_object_foreach(idx, k, v) CHECK_MSG(json_integer_value(v) <= 16, "bucket %s holds %lld keys", k,
                                             (long long)json_integer_value(v));
    json_decref(idx);
  }
  json_decref(model);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

static void test_random_dynamic(void) { random_run("rdyn", 0); }
static void test_random_cross(void) { random_run("rcross", 1); }

/* ------------------------------------------------------------ faults */

/* Every HASH index file in <table>/index is one some snapshot's index manifest lists. */
static void no_stray_index_files(paimon_table *pt, const char *what) {
  pm_table *t = pt->t;
  pm_error err;
  pm_snapshot_manager sm = pm_table_snapshots(t);
  pm_snapshot *latest = NULL;
  CHECK(pm_snapshot_read_latest_checked(&sm, &latest, &err) == 0 && latest);
  json_t *known = json_object();
  for (int64_t id = 1; latest && id <= latest->id; id++) {
    pm_snapshot *sn = NULL;
    if (pm_snapshot_read(&sm, id, &sn, &err) || !sn) continue;
    if (sn->index_manifest) {
      char sub[512];
      snprintf(sub, sizeof sub, "manifest/%s", sn->index_manifest);
      char *path = pm_table_root_path(t, sub);
      pm_index_entries ie;
      pm_index_entries_init(&ie);
      CHECK(pm_index_manifest_read(t->fs, path, &ie, &err) == 0);
      for (size_t i = 0; i < ie.n; i++) json_object_set_new(known, ie.items[i].index_file.file_name, json_true());
      pm_index_entries_clear(&ie);
      free(path);
    }
    pm_snapshot_free(sn);
  }
  pm_snapshot_free(latest);
  char *dir = pm_table_root_path(t, "index");
  char **names = NULL;
  size_t n = 0;
  if (pm_fs_list(pm_fs_local(), dir, NULL, &names, &n, &err) == 0)
    for (size_t i = 0; i < n; i++) CHECK_MSG(json_object_get(known, names[i]) != NULL, "%s: stray index file %s", what, names[i]);
  pm_free_names(names, n);
  free(dir);
  json_decref(known);
}

/* Injected I/O errors at the fs operations of a dynamic-bucket write + prepare
 * that restores the hash index (opens/reads of the index manifest and HASH
 * files) and writes new HASH files: the write fails naming the fault, the
 * writer removes what it wrote, the table reads as the committed model; a
 * clean retry commits. */
static void test_dynamic_faults(void) {
  char fwh[300];
  snprintf(fwh, sizeof fwh, "%s/fault", wh);
  pm_error e;
  pm_error_clear(&e);
  pm_fs *fs = NULL;
  CHECK_OK(pm_fault_fs_new(pm_fs_local(), &fs, &e), &e);
  CHECK_OK(pm_fs_mkdirs(pm_fs_local(), fwh, &e), &e);
  pm_options o;
  pm_options_init(&o);
  pm_options_set(&o, "warehouse", fwh, &e);
  paimon_catalog *cat = calloc(1, sizeof *cat);
  CHECK_OK(pm_catalog_open_with_fs(fs, &o, &cat->c, &e), &e);
  pm_options_clear(&o);
  const char *opts[] = {"primary-key=pt,id", "bucket=-1", "dynamic-bucket.target-row-num=2"};
  paimon_error err = {0};
  CHECK_OK(ow_create_table(cat, "d", "f", TABLE_COLS, "pt", opts, 3, 0, &err), &err);
  paimon_table *t = get_table(cat, "f");
  json_t *model = json_object();
  char *a1 = rows_text("a", 0, 5, "a");
  wpart p1[] = {{a1, 0}};
  CHECK_OK(write_commit(t, p1, 1, &err), &err);
  model_apply(model, a1, 0);
  /* count the operations of write + prepare (the retry batch: old keys + 2 new in a, 1 in b) */
  char *a2 = rows_text("a", 3, 7, "f"), *b2 = rows_text("b", 0, 1, "f");
  wpart p2[] = {{a2, 0}, {b2, 0}};
  unsigned long long counts[PM_FAULT_OP_COUNT] = {0};
  {
    paimon_write_builder *wb = NULL;
    paimon_table_write *w = NULL;
    paimon_commit_messages *m = NULL;
    CHECK_OK(paimon_write_builder_new(t, 0, NULL, 0, &wb, &err), &err);
    pm_fault_fs_disarm(fs);
    pm_fault_rule never = {PM_FAULT_OP_OPEN, UINT64_MAX, 1, PM_FAULT_ERROR, 0};
    pm_fault_fs_arm(fs, &never);
    CHECK_OK(paimon_write_builder_new_write(wb, &w, &err), &err);
    for (int i = 0; i < 2; i++) {
      struct ArrowSchema s;
      struct ArrowArray a;
      batch(p2[i].jsonl, &s, &a);
      CHECK_OK(paimon_table_write_arrow_kind(w, &s, &a, 0, &err), &err);
      a.release(&a);
      s.release(&s);
    }
    CHECK_OK(paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, &err), &err);
    for (int op = 0; op < PM_FAULT_OP_COUNT; op++) counts[op] = pm_fault_fs_count(fs, (pm_fault_op)op);
    pm_fault_fs_disarm(fs);
    paimon_table_commit *c = NULL;
    CHECK_OK(paimon_write_builder_new_commit(wb, &c, &err), &err);
    CHECK_OK(paimon_table_commit_abort(c, m, &err), &err); /* its data and index files removed */
    paimon_table_commit_free(c);
    paimon_commit_messages_free(m);
    paimon_table_write_free(w);
    paimon_write_builder_free(wb);
  }
  const pm_fault_op ops[] = {PM_FAULT_OP_OPEN, PM_FAULT_OP_READ, PM_FAULT_OP_CREATE, PM_FAULT_OP_WRITE,
                             PM_FAULT_OP_PUBLISH, PM_FAULT_OP_CREATE_IF_ABSENT, PM_FAULT_OP_MKDIRS};
  int cases = 0, failed = 0;
  for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
    unsigned long long c = counts[ops[k]], stride = c > 4 ? c / 4 : 1;
    for (unsigned long long n = 1; n <= c; n += stride) {
      pm_fault_rule r = {ops[k], n, 1, PM_FAULT_ERROR, 0};
      paimon_write_builder *wb = NULL;
      paimon_table_write *w = NULL;
      paimon_commit_messages *m = NULL;
      CHECK_OK(paimon_write_builder_new(t, 0, NULL, 0, &wb, &err), &err);
      pm_fault_fs_arm(fs, &r);
      paimon_status st = paimon_write_builder_new_write(wb, &w, &err);
      for (int i = 0; !st && i < 2; i++) {
        struct ArrowSchema s;
        struct ArrowArray a;
        batch(p2[i].jsonl, &s, &a);
        st = paimon_table_write_arrow_kind(w, &s, &a, 0, &err);
        a.release(&a);
        s.release(&s);
      }
      if (!st) st = paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, &err);
      paimon_table_write_free(w);
      pm_fault_fs_disarm(fs);
      cases++;
      if (st) {
        failed++;
        CHECK_MSG(strstr(err.message, "injected") != NULL, "%s #%llu: %s", pm_fault_op_name(ops[k]), n, err.message);
      } else {
        paimon_table_commit *c = NULL;
        CHECK_OK(paimon_write_builder_new_commit(wb, &c, &err), &err);
        CHECK_OK(paimon_table_commit_abort(c, m, &err), &err);
        paimon_table_commit_free(c);
      }
      paimon_commit_messages_free(m);
      paimon_write_builder_free(wb);
    }
  }
  fprintf(stderr, "  dynamic-bucket write + prepare: %d fault cases, %d failed writes\n", cases, failed);
  CHECK(failed > 0);
  check_model(t, "../fault/d.db/f", model, "after the faults");
  /* a clean retry */
  CHECK_OK(write_commit(t, p2, 2, &err), &err);
  model_apply(model, a2, 0);
  model_apply(model, b2, 0);
  check_model(t, "../fault/d.db/f", model, "retry after the faults");
  no_stray_index_files(t, "after the faults");
  free(a1);
  free(a2);
  free(b2);
  json_decref(model);
  paimon_table_free(t);
  paimon_catalog_free(cat);
  pm_fs_unref(fs);
}

int main(void) {
  snprintf(wh, sizeof wh, "/tmp/pm_write_pk_buckets_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  RUN_TEST(test_dynamic_restore);
  RUN_TEST(test_dynamic_max_buckets);
  RUN_TEST(test_dynamic_initial_buckets);
  RUN_TEST(test_cross_dedup);
  RUN_TEST(test_cross_partial_update);
  RUN_TEST(test_random_dynamic);
  RUN_TEST(test_random_cross);
  RUN_TEST(test_dynamic_faults);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && system(cmd)) return 1;
  TEST_MAIN_END();
}
