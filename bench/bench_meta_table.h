/*
 * Bench helper shared by bench_commit and bench_expire: a metadata-only append table (schema-0
 * written by hand, data files referenced but never read) and commit messages of n new files.
 */
#ifndef PM_BENCH_META_TABLE_H
#define PM_BENCH_META_TABLE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "meta/path_factory.h"
#include "meta/wire.h"
#include "table/commit.h"
#include "table/table.h"

static const char BENCH_SCHEMA0[] =
    "{\n  \"version\" : 3,\n  \"id\" : 0,\n  \"fields\" : [ {\n    \"id\" : 0,\n    \"name\" : \"id\",\n"
    "    \"type\" : \"BIGINT NOT NULL\"\n  }, {\n    \"id\" : 1,\n    \"name\" : \"name\",\n    \"type\" : \"STRING\"\n"
    "  } ],\n  \"highestFieldId\" : 1,\n  \"partitionKeys\" : [ ],\n  \"primaryKeys\" : [ ],\n"
    "  \"options\" : {\n    \"bucket\" : \"-1\"\n  },\n  \"timeMillis\" : 1733000000000\n}";

static inline double bench_cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static inline int bench_make_table(const char *dir, pm_error *err) {
  char cmd[2300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s/schema'", dir, dir);
  if (system(cmd) != 0) return pm_errorf(err, PAIMON_ERR_IO, "%s: cannot create", dir);
  char path[2100];
  snprintf(path, sizeof path, "%s/schema/schema-0", dir);
  return pm_fs_write_file(pm_fs_local(), path, BENCH_SCHEMA0, strlen(BENCH_SCHEMA0), PM_OUT_CREATE_IF_ABSENT, err);
}

static inline int bench_open_table(const char *dir, pm_table **t, pm_error *err) {
  return pm_table_open_fs(pm_fs_local(), dir, "default", "t", NULL, NULL, NULL, t, err);
}

/* A committable of n new (referenced, not written) files of 100 rows each. */
static inline pm_manifest_committable *bench_committable(pm_table *t, pm_path_factory *pf, size_t n) {
  pm_manifest_committable *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  pm_arena_init(&c->arena);
  c->identifier = PM_BATCH_COMMIT_IDENTIFIER;
  c->messages = pm_arena_alloc(&c->arena, sizeof *c->messages);
  pm_data_file_meta *files = pm_arena_alloc(&c->arena, n * sizeof *files);
  char *bdir = NULL;
  pm_error err;
  if (!c->messages || !files || pm_table_bucket_path(t, "", 0, &bdir, &err)) {
    pm_committable_free(c);
    return NULL;
  }
  memset(c->messages, 0, sizeof *c->messages);
  memset(files, 0, n * sizeof *files);
  pm_commit_message *m = &c->messages[0];
  c->n_messages = 1;
  m->partition.data = PM_EMPTY_ROW_BYTES;
  m->partition.len = 12;
  m->bucket = 0;
  m->total_buckets = t->bucket;
  m->has_total_buckets = 1;
  m->new_files.items = files;
  m->new_files.n = n;
  for (size_t i = 0; i < n; i++) {
    pm_data_file_meta *f = &files[i];
    char *p = pm_path_factory_new_data_file(pf, bdir, "parquet", 0);
    f->file_name = p ? pm_arena_strdup(&c->arena, strrchr(p, '/') + 1) : NULL;
    free(p);
    f->file_size = 4096;
    f->row_count = 100;
    f->min_key.data = PM_EMPTY_ROW_BYTES;
    f->min_key.len = 12;
    f->max_key = f->min_key;
    pm_simple_stats_empty(&f->key_stats);
    pm_simple_stats_empty(&f->value_stats);
    f->max_sequence_number = 99;
    f->has_creation_time = 1;
    f->creation_time_millis = 1733000000000LL;
    f->has_delete_row_count = 1;
    f->file_source = PM_SOURCE_APPEND;
    f->value_stats_cols.is_null = 1;
    f->write_cols.is_null = 1;
    f->write_cols_sequences_is_null = 1;
  }
  free(bdir);
  return c;
}

#endif
