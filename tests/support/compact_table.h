/*
 * Helpers shared by the compaction tests (test_append_compact*.c,
 * test_write_pk_compact.c): the layout of a table's live files in its latest
 * snapshot (our scan), one compaction through the public write API
 * (compact, prepare, commit), the rows both readers return against a model
 * (ours, and `paimon-table read` + `check` as the independent oracle), and
 * the append table the append-compaction tests write (id INT NOT NULL,
 * p STRING, v STRING, n BIGINT; one file per commit).
 */
#ifndef PM_TESTS_COMPACT_TABLE_H
#define PM_TESTS_COMPACT_TABLE_H

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "meta/snapshot.h"
#include "paimon/write.h"
#include "support/oracle_table.h"
#include "support/oracle_write.h"
#include "table/append_compact.h"
#include "table/scan.h"
#include "table/table.h"

/* ------------------------------------------------------------ live files */

/* Which live files a layout counts: NULL = all. */
typedef int (*ct_keep_fn)(pm_table *t, const pm_manifest_entry *e, void *ctx);

typedef struct ct_layout {
  int files, level0, max_level_files, compact_source, deletes;
  int64_t rows;
  int64_t latest_id;
  char latest_kind[16];
} ct_layout;

/* Counts of the live files of dir's latest snapshot that keep accepts
 * (max_level: the level counted in max_level_files). */
static inline ct_layout ct_layout_of(const char *dir, int max_level, ct_keep_fn keep, void *ctx) {
  ct_layout l;
  memset(&l, 0, sizeof l);
  pm_error err;
  pm_table *t = NULL;
  CHECK_OK(pm_table_open_path(dir, NULL, NULL, NULL, NULL, NULL, &t, &err), &err);
  if (!t) return l;
  pm_snapshot_manager sm = pm_table_snapshots(t);
  pm_snapshot *s = NULL;
  CHECK_OK(pm_snapshot_read_latest_checked(&sm, &s, &err), &err);
  pm_manifest_entries e;
  pm_manifest_entries_init(&e);
  if (s) {
    CHECK_OK(pm_scan_live_files(t, s, NULL, &e, &err), &err);
    l.latest_id = s->id;
    snprintf(l.latest_kind, sizeof l.latest_kind, "%s", s->commit_kind ? s->commit_kind : "?");
  }
  for (size_t i = 0; i < e.n; i++) {
    if (keep && !keep(t, &e.items[i], ctx)) continue;
    const pm_data_file_meta *f = &e.items[i].file;
    l.files++;
    l.level0 += f->level == 0;
    l.max_level_files += f->level == max_level;
    l.compact_source += f->file_source == PM_SOURCE_COMPACT;
    l.deletes += (int)f->delete_row_count;
    l.rows += f->row_count;
  }
  pm_manifest_entries_clear(&e);
  pm_snapshot_free(s);
  pm_table_free(t);
  return l;
}

/* A partition (p = value) and bucket (-1 = any) filter for ct_layout_of. */
typedef struct ct_where {
  const char *p;
  int bucket;
} ct_where;

static inline int ct_keep_where(pm_table *t, const pm_manifest_entry *e, void *ctx) {
  const ct_where *w = ctx;
  if (w->bucket >= 0 && e->bucket != w->bucket) return 0;
  if (!w->p) return 1;
  const char *k[] = {"p"}, *v[] = {w->p};
  pm_partition_spec spec = {k, v, 1};
  int match = 0;
  pm_error err;
  CHECK_OK(pm_append_spec_match(t, &spec, e->partition, &match, &err), &err);
  return match;
}

/* Live files of partition p = part (NULL: all) and bucket (-1: all). */
static inline ct_layout ct_files_in(const char *dir, const char *part, int bucket) {
  ct_where w = {part, bucket};
  return ct_layout_of(dir, 0, ct_keep_where, &w);
}

/* ------------------------------------------------------------ synthetic plans */

/* Live entries made up for the planners: names f0, f1, ... */
typedef struct ct_fake {
  pm_manifest_entries live;
  uint8_t parts[4][16];
} ct_fake;

/* Entries with sizes[i] in partition part_of[i] (0..3: distinct one-field rows). */
static inline void ct_fake_init(ct_fake *f, const int64_t *sizes, const int *part_of, size_t n) {
  pm_manifest_entries_init(&f->live);
  f->live.items = calloc(n, sizeof *f->live.items);
  f->live.n = n;
  for (int p = 0; p < 4; p++) {
    /* arity 1 BinaryRow of one INT field: 4 bytes arity, 8 bytes null bits, 8 bytes value */
    memset(f->parts[p], 0, sizeof f->parts[p]);
    f->parts[p][3] = 1;
    f->parts[p][12] = (uint8_t)p;
  }
  for (size_t i = 0; i < n; i++) {
    pm_manifest_entry *e = &f->live.items[i];
    e->kind = 0;
    e->partition.data = f->parts[part_of ? part_of[i] : 0];
    e->partition.len = 16;
    e->bucket = 0;
    e->file.file_size = sizes[i];
    char *name = malloc(32);
    snprintf(name, 32, "f%zu", i);
    e->file.file_name = name;
  }
}

static inline void ct_fake_free(ct_fake *f) {
  for (size_t i = 0; i < f->live.n; i++) free((char *)f->live.items[i].file.file_name);
  free(f->live.items);
}

/* The task's files as "f3,f1,..." into buf. */
static inline const char *ct_task_names(const pm_append_compact_task *t, char *buf, size_t cap) {
  size_t k = 0;
  buf[0] = 0;
  for (size_t i = 0; i < t->n_files; i++)
    k += (size_t)snprintf(buf + k, cap - k, "%s%s", i ? "," : "", t->files[i]->file.file_name);
  return buf;
}

/* ------------------------------------------------------------ compaction */

/* paimon_table_write_compact(spec, bucket, full), prepare, commit through the
 * public API; *mt / *snap (may be NULL) get the metrics and the snapshot id.
 * Returns the first failing status. */
static inline int ct_compact(paimon_table *t, const paimon_option *spec, size_t n, int32_t bucket, int full,
                             paimon_compact_metrics *mt, int64_t *snap, paimon_error *err) {
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  paimon_commit_messages *m = NULL;
  paimon_table_commit *c = NULL;
  int rc = paimon_write_builder_new(t, 0, NULL, 0, &wb, err);
  if (!rc) rc = paimon_write_builder_new_write(wb, &w, err);
  if (!rc) rc = paimon_table_write_compact(w, spec, n, bucket, full, err);
  if (!rc) rc = paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, err);
  if (!rc) rc = paimon_write_builder_new_commit(wb, &c, err);
  if (!rc) rc = paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, snap, err);
  if (mt) paimon_table_write_compact_metrics(w, mt);
  paimon_table_commit_free(c);
  paimon_commit_messages_free(m);
  paimon_table_write_free(w);
  paimon_write_builder_free(wb);
  return rc;
}

/* ------------------------------------------------------------ rows */

/* Our reader returns `want`; with use_oracle (and the oracle installed) also
 * `paimon-table read`, and `paimon-table check` passes. */
static inline void ct_check_rows(const paimon_table *t, const char *dir, const json_t *want, int use_oracle,
                                 const char *what) {
  paimon_error err = {0};
  json_t *ours = ow_read_ours(t, &err);
  CHECK_MSG(ours != NULL, "%s: our read: %s", what, err.message);
  if (ours) {
    char msg[8192];
    CHECK_MSG(ot_rows_match(want, ours, msg, sizeof msg), "%s: our reader: %s", what, msg);
  }
  json_decref(ours);
  if (!use_oracle || !ot_available()) return;
  CHECK_MSG(ot_check_ok(dir, 0, what), "%s", what);
  CHECK_MSG(ot_read_equals(dir, NULL, want, what), "%s", what);
}

/* ------------------------------------------------------------ the append table */

/* d.<name> in the warehouse of cat, columns CT_APPEND_COLS, partition keys
 * parts (NULL: none), bucket -1 unless opts set bucket=N (then opts only). */
#define CT_APPEND_COLS "id INT NOT NULL, p STRING, v STRING, n BIGINT"
static inline paimon_table *ct_append_table(paimon_catalog *cat, const char *name, const char *parts,
                                            const char *const *opts, size_t n) {
  const char *all[16] = {"bucket=-1"};
  size_t k = 1;
  for (size_t i = 0; i < n && k < 16; i++) {
    if (!strncmp(opts[i], "bucket=", 7)) k = 0; /* a fixed-bucket table: no default */
    all[k++] = opts[i];
  }
  paimon_error err = {0};
  CHECK_OK(ow_create_table(cat, "d", name, CT_APPEND_COLS, parts, all, k, 0, &err), &err);
  char id[128];
  snprintf(id, sizeof id, "d.%s", name);
  paimon_table *t = NULL;
  CHECK_OK(paimon_catalog_get_table(cat, id, &t, &err), &err);
  return t;
}

/* Rows ids [lo, hi) in partition p as JSON lines (malloc'd). */
static inline char *ct_rows(int lo, int hi, const char *p) {
  size_t cap = (size_t)(hi - lo) * 96 + 16, len = 0;
  char *s = malloc(cap);
  if (!s) abort();
  s[0] = 0;
  for (int i = lo; i < hi; i++)
    len += (size_t)snprintf(s + len, cap - len, "{\"id\":%d,\"p\":\"%s\",\"v\":\"value-%d\",\"n\":%d}\n", i, p, i,
                            i * 7);
  return s;
}

/* One commit (one file per bucket) of ids [lo, hi) in partition p; the rows
 * are added to model (may be NULL). */
static inline void ct_append(paimon_table *t, int lo, int hi, const char *p, json_t *model) {
  char *r = ct_rows(lo, hi, p);
  paimon_error err = {0};
  CHECK_OK(ow_write_commit(t, NULL, 0, 0, r, NULL, 0, 0, NULL, &err), &err);
  if (model) {
    json_t *add = ot_parse_lines(r, NULL);
    CHECK(add != NULL);
    if (add) json_array_extend(model, add);
    json_decref(add);
  }
  free(r);
}

#endif
