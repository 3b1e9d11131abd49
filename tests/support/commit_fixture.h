/*
 * Helpers for the committer tests: a scratch table (schema-0 written by hand:
 * id INT NOT NULL, name STRING[, dt STRING partition key]), real Parquet data
 * files (all columns, value stats as Java's default truncate(16))
 * made with the format writer, commit messages built by hand, and the
 * readers that check the result: our own (scan + read) and the independent
 * oracle (../shared/tools/paimon-table read / check).
 */
#ifndef PM_TESTS_COMMIT_FIXTURE_H
#define PM_TESTS_COMMIT_FIXTURE_H

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "arrow/arrow.h"
#include "data/binary_row.h"
#include "format/format.h"
#include "harness.h"
#include "meta/path_factory.h"
#include "meta/stats.h"
#include "meta/wire.h"
#include "support/test_write_util.h"
#include "table/commit.h"
#include "table/read.h"
#include "table/scan.h"
#include "table/table.h"

/* ---- the table ---- */

/* Creates dir/schema/schema-0. partitioned: adds "dt STRING" as partition key.
 * extra_options: "\"k\" : \"v\", ..." JSON members (may be NULL). */
static inline void cf_make_table(const char *dir, int partitioned, const char *extra_options) {
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s/schema'", dir, dir);
  if (system(cmd) != 0) abort();
  char path[2100];
  snprintf(path, sizeof path, "%s/schema/schema-0", dir);
  FILE *f = fopen(path, "w");
  if (!f) abort();
  fprintf(f,
          "{\n  \"version\" : 3,\n  \"id\" : 0,\n  \"fields\" : [ {\n    \"id\" : 0,\n    \"name\" : \"id\",\n"
          "    \"type\" : \"INT NOT NULL\"\n  }, {\n    \"id\" : 1,\n    \"name\" : \"name\",\n    \"type\" : \"STRING\"\n"
          "  }%s ],\n  \"highestFieldId\" : %d,\n  \"partitionKeys\" : [ %s ],\n  \"primaryKeys\" : [ ],\n"
          "  \"options\" : {\n    \"bucket\" : \"-1\"%s%s\n  },\n  \"timeMillis\" : 1733000000000\n}",
          partitioned ? ", {\n    \"id\" : 2,\n    \"name\" : \"dt\",\n    \"type\" : \"STRING\"\n  }" : "",
          partitioned ? 2 : 1, partitioned ? "\"dt\"" : "", extra_options ? ",\n    " : "",
          extra_options ? extra_options : "");
  fclose(f);
}

static inline pm_table *cf_open(const char *dir, pm_fs *fs) {
  pm_table *t = NULL;
  pm_error err;
  memset(&err, 0, sizeof err);
  if (pm_table_open_fs(fs ? fs : pm_fs_local(), dir, "default", "t", NULL, NULL, NULL, &t, &err)) {
    fprintf(stderr, "open %s: %s\n", dir, err.message);
    abort();
  }
  return t;
}

/* Partition row (manifest form) of dt = value (NULL = null); unpartitioned: the empty row. */
static inline pm_bytes cf_partition(pm_arena *a, const char *dt, int partitioned) {
  pm_bytes b = {PM_EMPTY_ROW_BYTES, 12};
  if (!partitioned) return b;
  pm_binary_row_writer w;
  pm_error err;
  pm_buf out;
  pm_buf_init(&out);
  if (pm_row_writer_init(&w, 1, &err)) abort();
  if (dt) {
    if (pm_row_writer_write_bytes(&w, 0, (const uint8_t *)dt, strlen(dt), &err)) abort();
  } else if (pm_row_writer_set_null_fixed(&w, 0)) {
    abort();
  }
  if (pm_row_writer_finish(&w, 1, &out, &err)) abort();
  pm_row_writer_free(&w);
  b.data = pm_arena_memdup(a, out.data, out.len);
  b.len = out.len;
  pm_buf_free(&out);
  return b;
}

static inline int64_t cf_local_millis(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  struct tm tm;
  time_t s = ts.tv_sec;
  localtime_r(&s, &tm);
  return ((int64_t)s + tm.tm_gmtoff) * 1000 + ts.tv_nsec / 1000000;
}

/* Writes a Parquet data file of rows (ids[i], names[i]) into the bucket
 * directory of (dt, bucket 0) and fills *f (strings in a). cols (unpartitioned
 * tables only, else 3): 1 = only the id column, 2 = only name (a data-evolution
 * column update: _WRITE_COLS lists it, value stats of that column), 3 = all. */
static inline void cf_data_file_cols(pm_table *t, pm_path_factory *pf, pm_arena *a, const char *dt,
                                     const int32_t *ids, const char *const *names, int n, int cols,
                                     pm_data_file_meta *f) {
  pm_error err;
  memset(&err, 0, sizeof err);
  char pdir[256] = "";
  if (t->n_partition_keys) snprintf(pdir, sizeof pdir, "dt=%s", dt ? dt : t->partition_default_name);
  char *bdir = NULL;
  if (pm_table_bucket_path(t, pdir, 0, &bdir, &err)) abort();
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", bdir);
  if (system(cmd) != 0) abort();
  char *path = pm_path_factory_new_data_file(pf, bdir, "parquet", 0);
  int part = t->n_partition_keys > 0;
  if (part && cols != 3) abort();
  int only = cols == 3 ? -1 : cols - 1; /* the one column written, or -1 */
  struct ArrowSchema s;
  tw_schema(&s, "+s", "", 0, only >= 0 ? 1 : part ? 3 : 2);
  if (only >= 0) {
    tw_schema(s.children[0], only ? "u" : "i", only ? "name" : "id", only, 0);
    tw_field_id(s.children[0], only);
  } else {
    tw_schema(s.children[0], "i", "id", 0, 0);
    tw_field_id(s.children[0], 0);
    tw_schema(s.children[1], "u", "name", 1, 0);
    tw_field_id(s.children[1], 1);
  }
  const char **dts = calloc((size_t)n + 1, sizeof *dts);
  for (int i = 0; i < n; i++) dts[i] = dt;
  if (part) {
    tw_schema(s.children[2], "u", "dt", 1, 0);
    tw_field_id(s.children[2], 2);
  }
  struct ArrowArray arr;
  tw_struct(&arr, n, only >= 0 ? 1 : part ? 3 : 2, NULL);
  if (only == 0) tw_prim(arr.children[0], n, ids, 4, NULL);
  if (only == 1) tw_str(arr.children[0], n, names, NULL);
  if (only < 0) {
    tw_prim(arr.children[0], n, ids, 4, NULL);
    tw_str(arr.children[1], n, names, NULL);
  }
  if (part) tw_str(arr.children[2], n, dts, NULL);
  pm_format_writer *w = NULL;
  pm_format_write_result res;
  memset(&res, 0, sizeof res);
  if (pm_format_writer_open(pm_format_by_name("parquet"), path, &s, NULL, &w, &err) ||
      pm_format_writer_write(w, &arr, &err) || pm_format_writer_close(w, &res, &err)) {
    fprintf(stderr, "data file %s: %s\n", path, err.message);
    abort();
  }
  arr.release(&arr);
  s.release(&s);
  memset(f, 0, sizeof *f);
  /* value stats as Java keeps them by default (truncate(16), dense: every column) */
  /* (a column update: of the written column only, as Java's stats follow _WRITE_COLS) */
  pm_stats_collector *sc = NULL;
  if (pm_stats_collector_new(t->schema->fields + (only > 0 ? only : 0), only >= 0 ? 1 : t->schema->n_fields, NULL,
                             &sc, &err))
    abort();
  for (int i = 0; i < n; i++) {
    pm_value v;
    memset(&v, 0, sizeof v);
    v.kind = PM_V_INT;
    v.u.i64 = ids[i];
    if (only <= 0 && pm_stats_collector_add(sc, 0, &v, &err)) abort();
    const char *sv[2] = {names[i], dt};
    for (int k = 0; only != 0 && k < (part ? 2 : 1); k++) {
      memset(&v, 0, sizeof v);
      if (sv[k]) {
        v.kind = PM_V_STRING;
        v.u.bytes.data = (const uint8_t *)sv[k];
        v.u.bytes.len = strlen(sv[k]);
      }
      if (pm_stats_collector_add(sc, only == 1 ? 0 : (size_t)k + 1, &v, &err)) abort();
    }
  }
  if (pm_stats_collector_finish(sc, 1, a, &f->value_stats, &f->value_stats_cols, &err)) abort();
  pm_stats_collector_free(sc);
  free(dts);
  const char *base = strrchr(path, '/') + 1;
  f->file_name = pm_arena_strdup(a, base);
  f->file_size = (int64_t)res.file_size;
  f->row_count = res.row_count;
  f->min_key.data = PM_EMPTY_ROW_BYTES;
  f->min_key.len = 12;
  f->max_key = f->min_key;
  pm_simple_stats_empty(&f->key_stats);
  f->min_sequence_number = 0;
  f->max_sequence_number = n - 1;
  f->schema_id = 0;
  f->level = 0;
  f->creation_time_millis = cf_local_millis();
  f->has_creation_time = 1;
  f->has_delete_row_count = 1;
  f->file_source = PM_SOURCE_APPEND;
  f->write_cols.is_null = 1;
  if (only >= 0) {
    f->write_cols.is_null = 0;
    f->write_cols.n = 1;
    f->write_cols.items = pm_arena_alloc(a, sizeof *f->write_cols.items);
    f->write_cols.items[0] = pm_arena_strdup(a, only ? "name" : "id");
  }
  f->write_cols_sequences_is_null = 1;
  pm_format_write_result_free(&res);
  free(path);
  free(bdir);
}

static inline void cf_data_file(pm_table *t, pm_path_factory *pf, pm_arena *a, const char *dt, const int32_t *ids,
                                const char *const *names, int n, pm_data_file_meta *f) {
  cf_data_file_cols(t, pf, a, dt, ids, names, n, 3, f);
}

/* A committable with one message per call of cf_add_file (each its own message). */
static inline pm_manifest_committable *cf_committable(int64_t identifier, size_t cap) {
  pm_manifest_committable *c = calloc(1, sizeof *c);
  pm_arena_init(&c->arena);
  c->identifier = identifier;
  c->messages = pm_arena_alloc(&c->arena, (cap ? cap : 1) * sizeof *c->messages);
  memset(c->messages, 0, (cap ? cap : 1) * sizeof *c->messages);
  return c;
}

/* Adds a message with one new data file of rows ids/names in partition dt. Returns the file meta. */
static inline pm_data_file_meta *cf_add_file(pm_manifest_committable *c, pm_table *t, pm_path_factory *pf,
                                             const char *dt, const int32_t *ids, const char *const *names, int n) {
  pm_commit_message *m = &c->messages[c->n_messages++];
  memset(m, 0, sizeof *m);
  m->partition = cf_partition(&c->arena, dt, t->n_partition_keys > 0);
  m->bucket = 0;
  m->total_buckets = t->bucket;
  m->has_total_buckets = 1;
  pm_data_file_meta *f = pm_arena_alloc(&c->arena, sizeof *f);
  cf_data_file(t, pf, &c->arena, dt, ids, names, n, f);
  m->new_files.items = f;
  m->new_files.n = 1;
  return f;
}

/* ---- data-evolution (row-tracking) messages ---- */

/* A new file of rows ids/names (cols as cf_data_file_cols) keeping row ids first_row_id.. (compact: source COMPACT). */
static inline pm_data_file_meta *cf_rowid_file(pm_manifest_committable *m, pm_table *t, pm_path_factory *pf,
                                               const int32_t *ids, const char *const *names, int n, int cols,
                                               int64_t first_row_id, int compact) {
  pm_data_file_meta *f = pm_arena_alloc(&m->arena, sizeof *f);
  cf_data_file_cols(t, pf, &m->arena, NULL, ids, names, n, cols, f);
  f->first_row_id = first_row_id;
  f->has_first_row_id = 1;
  if (compact) f->file_source = PM_SOURCE_COMPACT;
  return f;
}

/* An empty message of the unpartitioned table t (bucket 0). */
static inline pm_commit_message *cf_rowid_message(pm_manifest_committable *m, pm_table *t) {
  pm_commit_message *msg = &m->messages[m->n_messages++];
  memset(msg, 0, sizeof *msg);
  msg->partition = cf_partition(&m->arena, NULL, 0);
  msg->total_buckets = t->bucket;
  msg->has_total_buckets = 1;
  return msg;
}

/* A compaction of before[0..n) into one file of rows ids/names starting at row first_row_id. */
static inline pm_data_file_meta *cf_rowid_compaction(pm_manifest_committable *m, pm_table *t, pm_path_factory *pf,
                                                     const pm_data_file_meta *before, size_t n, const int32_t *ids,
                                                     const char *const *names, int rows, int64_t first_row_id) {
  pm_commit_message *msg = cf_rowid_message(m, t);
  pm_data_file_meta *b = pm_arena_alloc(&m->arena, n * sizeof *b);
  memcpy(b, before, n * sizeof *b);
  msg->compact_before.items = b;
  msg->compact_before.n = n;
  msg->compact_after.items = cf_rowid_file(m, t, pf, ids, names, rows, 3, first_row_id, 1);
  msg->compact_after.n = 1;
  return msg->compact_after.items;
}

/* A column update (cols as cf_data_file_cols) of rows first_row_id..: a new file keeping those row ids. */
static inline pm_data_file_meta *cf_rowid_update(pm_manifest_committable *m, pm_table *t, pm_path_factory *pf,
                                                 const int32_t *ids, const char *const *names, int rows, int cols,
                                                 int64_t first_row_id) {
  pm_commit_message *msg = cf_rowid_message(m, t);
  msg->new_files.items = cf_rowid_file(m, t, pf, ids, names, rows, cols, first_row_id, 0);
  msg->new_files.n = 1;
  return msg->new_files.items;
}

/* ---- reading back ---- */

static int cf_line_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Sorted "id|name|dt" lines joined by '\n' (malloc'd), from a list of lines. */
static inline char *cf_join_sorted(char **lines, size_t n) {
  if (n) qsort(lines, n, sizeof *lines, cf_line_cmp);
  pm_buf b;
  pm_buf_init(&b);
  for (size_t i = 0; i < n; i++) {
    pm_buf_append(&b, lines[i], strlen(lines[i]));
    pm_buf_append(&b, "\n", 1);
    free(lines[i]);
  }
  free(lines);
  char *s = malloc(b.len + 1);
  if (b.len) memcpy(s, b.data, b.len);
  s[b.len] = 0;
  pm_buf_free(&b);
  return s;
}

/* Rows of the latest snapshot read by our reader. */
static inline char *cf_read_ours(const char *dir) {
  pm_table *t = cf_open(dir, NULL);
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_plan *plan = NULL;
  struct ArrowArrayStream st;
  memset(&st, 0, sizeof st);
  char **lines = NULL;
  size_t n = 0, cap = 0;
  int rc = pm_scan_plan(t, NULL, -1, &plan, &err);
  if (!rc) {
    pm_read_options ro;
    pm_read_options_init(&ro);
    rc = pm_read_splits(t, plan->splits, plan->n_splits, &ro, &st, &err);
  }
  while (!rc) {
    struct ArrowArray a;
    if (st.get_next(&st, &a)) {
      fprintf(stderr, "read: %s\n", st.get_last_error(&st));
      rc = 1;
      break;
    }
    if (!a.release) break;
    const int32_t *ids = a.children[0]->buffers[1];
    const int32_t *off = a.children[1]->buffers[1];
    const char *data = a.children[1]->buffers[2];
    const int32_t *poff = a.n_children > 2 ? a.children[2]->buffers[1] : NULL;
    const char *pdata = a.n_children > 2 ? a.children[2]->buffers[2] : NULL;
    for (int64_t i = 0; i < a.length; i++) {
      int64_t r = i + a.offset;
      char line[512];
      const uint8_t *pv = a.n_children > 2 ? a.children[2]->buffers[0] : NULL;
      int pnull = a.n_children > 2 && pv && !(pv[(r + a.children[2]->offset) / 8] >> ((r + a.children[2]->offset) % 8) & 1);
      int64_t ri = r + a.children[1]->offset, pi = a.n_children > 2 ? r + a.children[2]->offset : 0;
      snprintf(line, sizeof line, "%d|%.*s|%.*s", ids[r + a.children[0]->offset], (int)(off[ri + 1] - off[ri]),
               data + off[ri], poff && !pnull ? (int)(poff[pi + 1] - poff[pi]) : 4,
               poff && !pnull ? pdata + poff[pi] : (poff ? "null" : ""));
      if (n == cap) lines = realloc(lines, (cap = cap ? cap * 2 : 16) * sizeof *lines);
      lines[n++] = strdup(line);
    }
    a.release(&a);
  }
  if (st.release) st.release(&st);
  pm_plan_free(plan);
  pm_table_free(t);
  if (rc) {
    for (size_t i = 0; i < n; i++) free(lines[i]);
    free(lines);
    return NULL;
  }
  return cf_join_sorted(lines, n);
}

/* Rows of the latest snapshot read by paimon-table (independent reader). */
static inline char *cf_read_oracle(const char *dir) {
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "%s/tools/paimon-table read '%s' 2>&1", PAIMON_SHARED_DIR, dir);
  FILE *p = popen(cmd, "r");
  if (!p) return NULL;
  char **lines = NULL;
  size_t n = 0, cap = 0;
  char buf[4096];
  int bad = 0;
  while (fgets(buf, sizeof buf, p)) {
    json_error_t je;
    json_t *j = json_loads(buf, 0, &je);
    if (!j) {
      fprintf(stderr, "paimon-table read: %s", buf);
      bad = 1;
      continue;
    }
    json_t *dt = json_object_get(j, "dt");
    char line[512];
    snprintf(line, sizeof line, "%d|%s|%s", (int)json_integer_value(json_object_get(j, "id")),
             json_string_value(json_object_get(j, "name")) ? json_string_value(json_object_get(j, "name")) : "",
             dt ? (json_is_null(dt) ? "null" : json_string_value(dt)) : "");
    json_decref(j);
    if (n == cap) lines = realloc(lines, (cap = cap ? cap * 2 : 16) * sizeof *lines);
    lines[n++] = strdup(line);
  }
  if (pclose(p) != 0) bad = 1;
  char *s = cf_join_sorted(lines, n);
  if (bad) {
    free(s);
    return NULL;
  }
  return s;
}

/* paimon-table check (strict, or --after-crash: orphan files allowed): 1 when OK;
 * prints the output otherwise. */
static inline int cf_check_mode(const char *dir, int after_crash) {
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "%s/tools/paimon-table check '%s'%s -q 2>&1", PAIMON_SHARED_DIR, dir,
           after_crash ? " --after-crash" : "");
  FILE *p = popen(cmd, "r");
  if (!p) return 0;
  char out[16384];
  size_t len = fread(out, 1, sizeof out - 1, p);
  out[len] = 0;
  int rc = pclose(p);
  if (rc != 0 || strncmp(out, "OK", 2) != 0) {
    fprintf(stderr, "paimon-table check%s %s:\n%s\n", after_crash ? " --after-crash" : "", dir, out);
    return 0;
  }
  return 1;
}

static inline int cf_check(const char *dir) { return cf_check_mode(dir, 0); }
static inline int cf_check_after_crash(const char *dir) { return cf_check_mode(dir, 1); }

/* Number of files under dir/sub (recursively) whose name matches the shell pattern; -1 on failure. */
static inline int cf_count_files(const char *dir, const char *sub, const char *pattern) {
  char cmd[1400];
  snprintf(cmd, sizeof cmd, "find '%s/%s' -type f -name '%s' | wc -l", dir, sub, pattern);
  FILE *f = popen(cmd, "r");
  int n = -1;
  if (f) {
    if (fscanf(f, "%d", &n) != 1) n = -1;
    pclose(f);
  }
  return n;
}

/* Both readers return exactly `expected` (sorted "id|name|dt" lines). */
static inline int cf_rows_are(const char *dir, const char *expected) {
  char *ours = cf_read_ours(dir), *oracle = cf_read_oracle(dir);
  int ok = ours && oracle && !strcmp(ours, expected) && !strcmp(oracle, expected);
  if (!ok)
    fprintf(stderr, "rows of %s\n--- expected\n%s--- ours\n%s--- paimon-table\n%s", dir, expected,
            ours ? ours : "(error)\n", oracle ? oracle : "(error)\n");
  free(ours);
  free(oracle);
  return ok;
}

static inline pm_snapshot *cf_snapshot(const char *dir, int64_t id) {
  pm_snapshot_manager sm = pm_snapshot_manager_of(pm_fs_local(), dir, NULL);
  pm_snapshot *s = NULL;
  pm_error err;
  if (pm_snapshot_read(&sm, id, &s, &err)) return NULL;
  return s;
}

static inline int64_t cf_latest_id(const char *dir) {
  pm_snapshot_manager sm = pm_snapshot_manager_of(pm_fs_local(), dir, NULL);
  int64_t id = 0;
  pm_error err;
  if (pm_snapshot_latest_id(&sm, &id, &err)) return -1;
  return id;
}

static inline char *cf_read_text(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  char *buf = calloc(1, 65536);
  size_t n = fread(buf, 1, 65535, f);
  buf[n] = 0;
  fclose(f);
  return buf;
}

#endif
