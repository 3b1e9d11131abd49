/*
 * Postpone buckets (`bucket` = -2; issue 12 §1-2; Java's PostponeBucketWriter,
 * PostponeBucketFileStoreWrite and the compact action's postpone path):
 *   - layout: a write puts its rows, in arrival order and unmerged, into one
 *     file per partition under bucket-postpone: manifest bucket -2, total
 *     buckets -2, level 0, sequence numbers -1 (min = max = -1, and every
 *     record's _SEQUENCE_NUMBER, read back by the oracle's avro-dump), Avro
 *     with stats none, named data-u-<commit user>-s-<write id>-w-<uuid>-<n>.avro,
 *     file source APPEND; batch reads (ours and `paimon-table read`) see
 *     nothing, nor does an incremental read of the APPEND snapshots;
 *   - compaction (paimon_table_compact): several commits of upserts / deletes
 *     in two partitions, invisible until compacted, then one COMPACT snapshot
 *     whose rows equal the model (tests/support/pk_model.h: all pending rows
 *     one flush) for our reader and `paimon-table read`; the partitions get
 *     postpone.default-bucket-num buckets; later writes to those partitions
 *     keep their bucket count while a new partition gets the (altered)
 *     default; without the option postpone.target-row-num-per-bucket decides;
 *     a rerun with nothing pending commits nothing; level-0 real buckets are
 *     compacted (num-sorted-run.compaction-trigger); the CLI `table compact`;
 *     a bucket selection is refused.
 * Every table passes `paimon-table check` (postpone file names allowed:
 * support/postpone_table.h).
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "meta/snapshot.h"
#include "paimon/compact.h"
#include "paimon/ddl.h"
#include "table/scan.h"
#include "table/table.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/cli_run.h"
#include "support/postpone_table.h"

static char wh[256];

static const char *table_dir(const char *name) {
  static char d[512];
  snprintf(d, sizeof d, "%s/d.db/%s", wh, name);
  return d;
}

/* The live entries of dir's latest snapshot into *e (cleared by the caller); its id. */
static int64_t live_entries(const char *dir, pm_manifest_entries *e, char *kind, size_t cap) {
  pm_error err;
  pm_table *t = NULL;
  CHECK_OK(pm_table_open_path(dir, NULL, NULL, NULL, NULL, NULL, &t, &err), &err);
  pm_snapshot_manager sm = pm_table_snapshots(t);
  pm_snapshot *s = NULL;
  CHECK_OK(pm_snapshot_read_latest_checked(&sm, &s, &err), &err);
  int64_t id = s ? s->id : -1;
  if (s) CHECK_OK(pm_scan_live_files(t, s, NULL, e, &err), &err);
  if (kind) snprintf(kind, cap, "%s", s && s->commit_kind ? s->commit_kind : "");
  pm_snapshot_free(s);
  pm_table_free(t);
  return id;
}

static pkm_model *new_model(void) {
  pkm_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.engine = PKM_DEDUPLICATE;
  cfg.n_cols = 4;
  cfg.cols = PP_MODEL_COLS;
  cfg.n_keys = 2;
  return pkm_new(&cfg);
}

/* Ours and (with oracle) `paimon-table read` return the model's rows; check passes. */
static void check_rows(paimon_table *t, const char *dir, const pkm_model *m, int oracle, const char *what) {
  json_t *want = pkm_rows(m);
  paimon_error err = {0};
  json_t *ours = ow_read_ours(t, &err);
  CHECK_MSG(ours != NULL, "%s: %s", what, err.message);
  char msg[8192];
  if (ours) CHECK_MSG(ot_rows_match(want, ours, msg, sizeof msg), "%s: our reader: %s", what, msg);
  json_decref(ours);
  if (oracle && ot_available()) {
    CHECK_MSG(pp_check_ok(dir, 0, what), "%s", what);
    CHECK_MSG(ot_read_equals(dir, NULL, want, what), "%s", what);
  }
  json_decref(want);
}

/* Deterministic upserts / deletes of commit c over keys [0, keys) of partition dt. */
static size_t gen_rows(int c, const char *dt, int keys, int n, pp_row *out, char (*vals)[24]) {
  for (int i = 0; i < n; i++) {
    int id = (c * 7 + i * 5) % keys;
    int kind = (c + i) % 5 == 4 ? PKM_DELETE : (c + i) % 7 == 3 ? PKM_UPDATE_AFTER : PKM_INSERT;
    snprintf(vals[i], sizeof vals[i], "c%d-%d", c, i);
    out[i] = (pp_row){id, dt, i % 6 == 5 ? NULL : vals[i], c * 100 + i, kind};
  }
  return (size_t)n;
}

/* ------------------------------------------------------------ layout */

static void test_layout(void) {
  paimon_catalog *cat = pkw_open_catalog(wh);
  paimon_table *t = pp_create(cat, "layout", NULL, 0);
  const char *dir = table_dir("layout");
  paimon_error err = {0};
  pp_row r[] = {{5, "a", "x", 1, PKM_INSERT}, {3, "a", "y", 2, PKM_INSERT}, {9, "b", "z", 3, PKM_INSERT},
                {5, "a", NULL, 4, PKM_UPDATE_AFTER}, {3, "a", "y", 2, PKM_DELETE}, {1, "a", "w", 5, PKM_INSERT}};
  CHECK_OK(pp_write(t, "pp-user", r, 6, NULL, &err), &err);
  pm_manifest_entries e;
  pm_manifest_entries_init(&e);
  char kind[16];
  CHECK_EQ_INT(live_entries(dir, &e, kind, sizeof kind), 1);
  CHECK(!strcmp(kind, "APPEND"));
  CHECK_EQ_INT(e.n, 2);
  char first_prefix[256] = "";
  for (size_t i = 0; i < e.n; i++) {
    const pm_manifest_entry *x = &e.items[i];
    const pm_data_file_meta *f = &x->file;
    CHECK_EQ_INT(x->bucket, -2);
    CHECK_EQ_INT(x->total_buckets, -2);
    CHECK_EQ_INT(f->level, 0);
    CHECK_EQ_INT(f->min_sequence_number, -1);
    CHECK_EQ_INT(f->max_sequence_number, -1);
    CHECK_EQ_INT(f->file_source, PM_SOURCE_APPEND);
    CHECK_MSG(!strncmp(f->file_name, "data-u-pp-user-s-", 17) && pp_is_postpone_name(f->file_name, "pp-user"),
              "name %s", f->file_name);
    const char *dot = strrchr(f->file_name, '.');
    CHECK(dot && !strcmp(dot, ".avro"));
    /* one writer: one prefix (Java's getWriterPrefix) for all its files */
    const char *w = strstr(f->file_name, "-w-");
    if (w && !*first_prefix) snprintf(first_prefix, sizeof first_prefix, "%.*s", (int)(w - f->file_name + 3), f->file_name);
    if (w) CHECK(!strncmp(f->file_name, first_prefix, strlen(first_prefix)));
    CHECK_EQ_INT(f->value_stats_cols.n, 0); /* metadata.stats-mode = none: no column has stats */
    int part_a = f->row_count == 5;
    CHECK_EQ_INT(f->row_count, part_a ? 5 : 1);
    CHECK_EQ_INT(f->delete_row_count, part_a ? 1 : 0);
    char path[1024];
    snprintf(path, sizeof path, "%s/dt=%s/bucket-postpone/%s", dir, part_a ? "a" : "b", f->file_name);
    CHECK_MSG(access(path, F_OK) == 0, "%s", path);
    if (part_a && ot_available()) {
      /* the records in arrival order, unmerged, sequence -1 (the oracle's Avro reader) */
      char cmd[1400];
      snprintf(cmd, sizeof cmd, "%s/tools/avro-dump '%s' --records", PAIMON_SHARED_DIR, path);
      char *out = NULL;
      CHECK_EQ_INT(ot_shell(cmd, &out), 0);
      json_t *recs = out ? ot_parse_lines(out, NULL) : NULL;
      CHECK(recs && json_array_size(recs) == 5);
      static const int ids[] = {5, 3, 5, 3, 1}, kinds[] = {0, 0, 2, 3, 0};
      for (size_t k = 0; recs && k < json_array_size(recs) && k < 5; k++) {
        json_t *o = json_array_get(recs, k);
        CHECK_EQ_INT(json_integer_value(json_object_get(o, "_KEY_id")), ids[k]);
        CHECK_EQ_INT(json_integer_value(json_object_get(o, "_SEQUENCE_NUMBER")), -1);
        CHECK_EQ_INT(json_integer_value(json_object_get(o, "_VALUE_KIND")), kinds[k]);
      }
      json_decref(recs);
      free(out);
    }
  }
  pm_manifest_entries_clear(&e);
  /* invisible to batch reads (ours, the oracle's) and to incremental reads */
  pkm_model *m = new_model();
  check_rows(t, dir, m, 1, "layout: before compaction");
  paimon_option inc[] = {{"incremental-between", "0,1"}};
  json_t *rows = ow_read_ours_opts(t, inc, 1, &err);
  CHECK_MSG(rows && json_array_size(rows) == 0, "incremental read: %s", err.message);
  json_decref(rows);
  pkm_free(m);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* ------------------------------------------------------------ compaction */

static void alter_option(paimon_catalog *cat, const char *ident, const char *k, const char *v) {
  paimon_error err = {0};
  paimon_schema_change *ch = NULL;
  CHECK_OK(paimon_schema_change_set_option(k, v, &ch, &err), &err);
  const paimon_schema_change *const chs[] = {ch};
  CHECK_OK(paimon_catalog_alter_table(cat, ident, chs, 1, 0, &err), &err);
  paimon_schema_change_free(ch);
}

static void partition_buckets(const char *dir, const char *dt, int *total, int *min_b, int *max_b, int *postpone) {
  pm_manifest_entries e;
  pm_manifest_entries_init(&e);
  live_entries(dir, &e, NULL, 0);
  *total = -1;
  *min_b = 1 << 30;
  *max_b = -1;
  *postpone = 0;
  for (size_t i = 0; i < e.n; i++) {
    const pm_manifest_entry *x = &e.items[i];
    /* the partition row (one short string: its bytes inline) holds dt */
    const uint8_t *d = x->partition.data;
    size_t len = x->partition.len, dl = strlen(dt);
    int hit = 0;
    for (size_t k = 0; !hit && k + dl <= len; k++) hit = !memcmp(d + k, dt, dl);
    if (!hit) continue;
    if (x->bucket == -2) {
      (*postpone)++;
      continue;
    }
    CHECK(*total < 0 || *total == x->total_buckets);
    *total = x->total_buckets;
    if (x->bucket < *min_b) *min_b = x->bucket;
    if (x->bucket > *max_b) *max_b = x->bucket;
  }
  pm_manifest_entries_clear(&e);
}

static void test_compact(void) {
  paimon_catalog *cat = pkw_open_catalog(wh);
  const char *opts[] = {"postpone.default-bucket-num=3"};
  paimon_table *t = pp_create(cat, "comp", opts, 1);
  const char *dir = table_dir("comp");
  paimon_error err = {0};
  pkm_model *m = new_model();
  pp_row r[40];
  char vals[40][24];
  for (int c = 0; c < 4; c++) {
    size_t n = gen_rows(c, c % 2 ? "pa" : "pb", 20, 30, r, vals);
    CHECK_OK(pp_write(t, NULL, r, n, m, &err), &err);
    n = gen_rows(c + 10, "pa", 20, 10, r, vals);
    CHECK_OK(pp_write(t, NULL, r, n, m, &err), &err);
  }
  pkm_model *empty = new_model();
  check_rows(t, dir, empty, 0, "compact: before");
  pkm_free(empty);
  /* the compaction: one COMPACT snapshot, the rows of the model */
  paimon_compact_result res;
  CHECK_OK(pp_compact(t, NULL, &res, &err), &err);
  pkm_flush(m);
  CHECK_EQ_INT(res.snapshot_id, 9);
  CHECK_EQ_INT(res.metrics.files_removed, 8); /* 8 commits of one partition each: 8 postpone files */
  CHECK(res.metrics.files_added >= 2 && res.metrics.files_added <= 6);
  CHECK(res.metrics.rows_written > 0 && res.metrics.bytes_written > 0);
  pm_manifest_entries e;
  pm_manifest_entries_init(&e);
  char kind[16];
  CHECK_EQ_INT(live_entries(dir, &e, kind, sizeof kind), 9);
  CHECK(!strcmp(kind, "COMPACT"));
  for (size_t i = 0; i < e.n; i++) {
    CHECK(e.items[i].bucket >= 0 && e.items[i].bucket < 3);
    CHECK_EQ_INT(e.items[i].total_buckets, 3);
    CHECK(e.items[i].file.min_sequence_number >= 0);
  }
  CHECK_EQ_INT(res.metrics.files_added, (int64_t)e.n);
  pm_manifest_entries_clear(&e);
  check_rows(t, dir, m, 0, "compact: first");
  /* nothing pending: no commit */
  CHECK_OK(pp_compact(t, NULL, &res, &err), &err);
  CHECK_EQ_INT(res.snapshot_id, -1);
  CHECK_EQ_INT(res.metrics.files_removed, 0);
  /* existing partitions keep 3 buckets, a new one gets the new default */
  alter_option(cat, "d.comp", "postpone.default-bucket-num", "2");
  paimon_table_free(t);
  t = pkw_get_table(cat, "d.comp");
  for (int c = 4; c < 7; c++) {
    size_t n = gen_rows(c, c == 5 ? "pc" : "pa", 20, 25, r, vals);
    CHECK_OK(pp_write(t, NULL, r, n, m, &err), &err);
  }
  check_rows(t, dir, m, 0, "compact: pending invisible"); /* the model's flushed state only */
  paimon_compact_options o;
  paimon_compact_options_init(&o);
  o.bucket = 1;
  CHECK_EQ_INT(pp_compact(t, &o, &res, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "postpone") != NULL);
  CHECK_OK(pp_compact(t, NULL, &res, &err), &err);
  pkm_flush(m);
  CHECK(res.snapshot_id > 9);
  int total, lo, hi, pending;
  partition_buckets(dir, "pa", &total, &lo, &hi, &pending);
  CHECK_EQ_INT(total, 3);
  CHECK_EQ_INT(pending, 0);
  partition_buckets(dir, "pc", &total, &lo, &hi, &pending);
  CHECK_EQ_INT(total, 2);
  CHECK(lo >= 0 && hi <= 1);
  check_rows(t, dir, m, 1, "compact: second");
  pkm_free(m);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* Without postpone.default-bucket-num: ceil(rows / postpone.target-row-num-per-bucket) buckets;
 * level-0 buckets are compacted at the next run (trigger 1: two runs compact); the CLI runs the same compaction. */
static void test_estimate_and_level0(void) {
  paimon_catalog *cat = pkw_open_catalog(wh);
  const char *opts[] = {"postpone.target-row-num-per-bucket=10", "num-sorted-run.compaction-trigger=1"};
  paimon_table *t = pp_create(cat, "est", opts, 2);
  const char *dir = table_dir("est");
  paimon_error err = {0};
  pkm_model *m = new_model();
  pp_row r[40];
  char vals[40][24];
  size_t n = gen_rows(1, "pe", 40, 25, r, vals);
  CHECK_OK(pp_write(t, NULL, r, n, m, &err), &err);
  paimon_compact_result res;
  CHECK_OK(pp_compact(t, NULL, &res, &err), &err);
  pkm_flush(m);
  int total, lo, hi, pending;
  partition_buckets(dir, "pe", &total, &lo, &hi, &pending);
  CHECK_EQ_INT(total, 3); /* 25 rows, 10 a bucket */
  /* more rows: a level-0 file next to the first one in each bucket: 2 runs > trigger 1 compact */
  n = gen_rows(2, "pe", 40, 25, r, vals);
  CHECK_OK(pp_write(t, NULL, r, n, m, &err), &err);
  /* the CLI: prints the metrics */
  char cmd[1024], *out = NULL;
  snprintf(cmd, sizeof cmd, "'%s' -w '%s' table compact d.est 2>&1", PAIMON_BINARY_DIR "/paimon", wh);
  CHECK_EQ_INT(run(cmd, &out), 0);
  CHECK_MSG(out && strstr(out, "snapshot ") && strstr(out, "files_removed"), "%s", out ? out : "");
  free(out);
  pkm_flush(m);
  pm_manifest_entries e;
  pm_manifest_entries_init(&e);
  live_entries(dir, &e, NULL, 0);
  int level0 = 0;
  for (size_t i = 0; i < e.n; i++) level0 += e.items[i].file.level == 0;
  CHECK_MSG(level0 == 0, "%d level-0 files after the triggered compaction", level0);
  pm_manifest_entries_clear(&e);
  check_rows(t, dir, m, 1, "estimate");
  pkm_free(m);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

int main(void) {
  snprintf(wh, sizeof wh, "/tmp/pm_pk_postpone_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  RUN_TEST(test_layout);
  RUN_TEST(test_compact);
  RUN_TEST(test_estimate_and_level0);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && !getenv("PM_KEEP") && system(cmd)) return 1;
  TEST_MAIN_END();
}
