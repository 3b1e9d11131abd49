/*
 * Inside the primary-key writer (kv_write*.c): the writer and its
 * (partition, bucket) buffers.
 */
#ifndef PM_TABLE_KV_WRITE_INTERNAL_H
#define PM_TABLE_KV_WRITE_INTERNAL_H

#include "format/format.h"
#include "meta/arena.h"
#include "meta/manifest.h"
#include "meta/stats.h"
#include "table/kv_write.h"
#include "table/merge_table.h"

/* One (partition, bucket) writer: its write buffer and its closed files. */
typedef struct pm_kvslot {
  uint8_t *part; /* partition row, manifest form */
  size_t part_len;
  int32_t bucket;
  char *bucket_dir;
  int64_t next_seq;
  struct ArrowArray *chunks; /* buffered rows, each in the merge layout (table columns, seq, kind) */
  size_t n_chunks, cap_chunks;
  uint64_t bytes;            /* their estimated size */
  pm_data_file_meta *files;  /* closed, not handed out (strings in the writer's arena) */
  char **file_paths;
  size_t n_files, cap_files;
  pm_data_file_meta *cl_files; /* changelog files (changelog-producer = input), as files */
  char **cl_paths;
  size_t n_cl_files, cap_cl_files;
  int64_t *rows;             /* routing scratch */
  size_t n_rows, cap_rows;
} pm_kvslot;

/* changelog-producer = input: how changelog files are written (kv_changelog.c):
 * changelog-file.format / .compression / .stats-mode, else as the data files. */
typedef struct pm_kv_changelog {
  const pm_format *fmt;
  pm_format_write_options wo;
  struct ArrowSchema file_schema;
  pm_stats_mode *key_modes, *value_modes;
  const char *prefix; /* changelog-file.prefix */
} pm_kv_changelog;

struct pm_kv_write {
  pm_table *t;
  int ignore_previous;
  char *row_kind_column;       /* NULL: none */
  const pm_format *fmt;
  pm_format_write_options wo;
  const pm_data_field *fields; /* the table's columns */
  size_t nf;
  pm_type type;                /* struct of the table's columns (take) */
  struct ArrowSchema layout_schema; /* table columns + _SEQUENCE_NUMBER + _VALUE_KIND */
  pm_type layout;
  pm_table_merge tm;           /* merge configuration over layout (keeps retracts) */
  size_t nk;                   /* trimmed primary key */
  pm_data_field *key_fields;   /* _KEY_<k> fields (names owned), for the key stats */
  pm_stats_mode *key_modes, *value_modes;
  int dense;
  struct ArrowSchema file_schema; /* _KEY_..., _SEQUENCE_NUMBER, _VALUE_KIND, columns (field ids) */
  size_t n_part;
  int *part_col;
  const pm_data_type **part_types;
  size_t n_bkey;
  int *bkey_col;
  const pm_data_type **bkey_types;
  uint64_t target;             /* target-file-size */
  uint64_t buffer_limit;       /* write-buffer-size */
  uint64_t buffered;           /* bytes in all slots' buffers */
  pm_kvslot **slots;
  size_t n_slots, cap_slots;
  size_t *ht;                  /* slot index + 1, open addressing */
  size_t ht_cap;
  char uuid[40];
  int64_t file_counter;
  int restored;
  pm_manifest_entries previous;
  pm_arena arena;
  int64_t rows_written;
  int failed;
  pm_error fail;
  pm_kv_changelog *changelog; /* NULL unless changelog-producer = input */
};

/* kv_write_file.c: sorts, merges and writes the slot's buffer as level-0
 * files (metas into s->files); the buffer is emptied. */
int pm_kv_flush(pm_kv_write *w, pm_kvslot *s, pm_error *err);
/* kv_write_file.c: writes the rows of batch b (merge layout, sorted by key)
 * as files rolling at target-file-size: data files (changelog 0, metas into
 * s->files) or changelog files (1, into s->cl_files). */
int pm_kv_write_rolling(pm_kv_write *w, pm_kvslot *s, const struct ArrowArray *b, int changelog, pm_error *err);

/* kv_write.c: the files' schema (_KEY_..., _SEQUENCE_NUMBER, _VALUE_KIND,
 * columns; fs initialised here) and key / value stats modes (malloc'd, also
 * on failure) for files of format fmt with default stats mode def_mode (the
 * value of option def_option). */
int pm_kv_file_layout(pm_kv_write *w, const pm_format *fmt, const char *def_mode, pm_co_id def_option,
                      struct ArrowSchema *fs, pm_stats_mode **key_modes, pm_stats_mode **value_modes, pm_error *err);

/* kv_changelog.c: w->changelog for changelog-producer = input. */
int pm_kv_changelog_open(pm_kv_write *w, pm_error *err);
void pm_kv_changelog_free(pm_kv_changelog *c); /* NULL ok */

#endif
