/*
 * Inside the table writer (write*.c): matching Arrow input to the table's
 * columns, reading single values of the routing columns, and zero-copy
 * views of batches.
 */
#ifndef PM_TABLE_WRITE_INTERNAL_H
#define PM_TABLE_WRITE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "arrow/type.h"
#include "data/binary_row.h"
#include "data/types.h"
#include "paimon/arrow_c.h"
#include "util/error.h"

/*
 * Matches one input batch (struct array `a` of schema `s`, both borrowed) to
 * the table columns `fields` by name, at every level of ROW nesting, and
 * builds *out: a struct array with exactly the table's columns in table
 * order, offset 0, whose leaves share the input's buffers (the input must
 * outlive *out) and whose missing nullable columns are nulls. Accepted Arrow
 * types per Paimon type are listed in write.h. Fails with
 * PAIMON_ERR_INVALID_ARGUMENT naming the column (dotted path) for an unknown
 * column, a missing NOT NULL column, a type that does not fit, or a null in
 * a NOT NULL column (at any nesting level, where the parent value exists).
 * *out owned by the caller (out->release).
 */
int pm_write_match(const pm_data_field *fields, size_t n_fields, const struct ArrowSchema *s,
                   const struct ArrowArray *a, struct ArrowArray *out, pm_error *err);
/* pm_write_match of a batch that our own table reader produced (compaction):
 * its layout is valid by construction and its values are copied as stored (as
 * Java's rewrite copies them), so it is not validated again. */
int pm_write_match_read(const pm_data_field *fields, size_t n_fields, const struct ArrowSchema *s,
                        const struct ArrowArray *a, struct ArrowArray *out, pm_error *err);

/* Value of row i (logical, honours offsets) of array `a` holding atomic
 * Paimon type `t` as the table schema's Arrow form (pm_dtype_arrow_format).
 * Strings/binaries point into the array. Nested types: PAIMON_ERR_UNSUPPORTED. */
int pm_write_value_at(const pm_data_type *t, const struct ArrowArray *a, int64_t i, pm_value *out, pm_error *err);

/* Rows [start, start+len) of a struct batch with offset 0 as a new struct
 * array whose children are shallow views (sharing buffers) of the columns.
 * `a` must outlive *out. */
int pm_write_slice(const struct ArrowArray *a, int64_t start, int64_t len, struct ArrowArray *out, pm_error *err);

/* Approximate in-memory bytes of rows [0, a->length) (buffers reachable from
 * lengths and offsets; used to estimate file sizes for rolling). */
uint64_t pm_write_batch_bytes(const struct ArrowArray *a, const pm_data_field *fields, size_t n);

/* Bytes on disk per in-memory byte fed, learned from the writer's closed files (closed_bytes
 * of file size for closed_fed bytes fed), 1 until 1 MiB was fed, within [0.001, 1]. Files roll
 * when fed * ratio reaches target-file-size, so they approach it on disk, as Java's writers
 * roll on the file's size. */
static inline double pm_write_size_ratio(uint64_t closed_fed, uint64_t closed_bytes) {
  double r = closed_fed >= (1u << 20) ? (double)closed_bytes / (double)closed_fed : 1.0;
  return r > 1 ? 1 : r < 0.001 ? 0.001 : r;
}

/* ------------------------------------------------------------ the writer */

#include "format/format.h"
#include "meta/arena.h"
#include "meta/manifest.h"
#include "meta/stats.h"
#include "table/kv_compact.h"
#include "table/write.h"
#include "table/write_slots.h"

/* Rolling at target-file-size on the open file's size, as Java's rolling writers do: the size
 * the format writer fw reports (Parquet: written + buffered pages, encoded), else fed * ratio
 * (fw NULL: no file open yet, 0). *per_byte: file bytes per in-memory byte to expect of the rows
 * still to come: this file's own so far once 1 MiB was fed to it and its size is known, else
 * ratio (pm_write_size_ratio). */
static inline double pm_write_roll_size(const pm_format_writer *fw, double fed, double ratio, double *per_byte) {
  uint64_t size;
  *per_byte = ratio;
  if (!fw || !pm_format_writer_data_size(fw, &size)) return fed * ratio;
  if (fed >= (double)(1u << 20)) {
    double r = (double)size / fed;
    *per_byte = r > 1 ? 1 : r < 0.001 ? 0.001 : r;
  }
  return (double)size;
}

/* Min / max of one DECIMAL column of the open file (the formats report none),
 * or of a FLOAT / DOUBLE column in Java's total order (Double.compare: NaN
 * greatest, -0.0 < 0.0; the formats skip NaN). */
typedef struct pm_wdec {
  int has;
  pm_decimal min, max;
  double fmin, fmax;
} pm_wdec;

/* The file a slot is writing. */
typedef struct pm_wfile {
  pm_format_writer *fw;
  char *path;     /* local path */
  char *name;     /* file name */
  char *external; /* stored external path, NULL when in the table */
  int64_t rows;
  uint64_t fed;   /* Arrow bytes written */
  int64_t min_seq;
  pm_wdec *dec;   /* per column (n_fields) */
  struct pm_fidx_writer *fidx; /* the file's index (file-index.*.columns), NULL without */
} pm_wfile;

/* One (partition, bucket) writer. */
typedef struct pm_wslot {
  uint8_t *part; /* partition row, manifest form */
  size_t part_len;
  int32_t bucket;
  char *bucket_dir; /* local directory */
  char *rel_dir;    /* [<path-directory>/][<partition>/]bucket-<b> (external roots) */
  int64_t next_seq;
  int64_t ext_pos;  /* round-robin position */
  pm_wfile *open;
  uint64_t last_use;
  pm_data_file_meta *files; /* closed, not handed out (strings in the writer's arena) */
  char **file_paths;        /* their local paths */
  size_t n_files, cap_files;
  char **index_paths;       /* local paths of their "<file>.index" files (file indexes) */
  size_t n_index_paths;
  int64_t *rows;            /* routing scratch: row indices of the current batch */
  size_t n_rows, cap_rows;
  uint64_t batch;           /* the last batch (pm_table_write.batch_no) that routed rows here */
} pm_wslot;

/* One append compaction task's result, not handed out yet (append_compact.c):
 * the files it removes (metas in the writer's arena) and the slot holding the
 * files it wrote (not in the slot map). */
typedef struct pm_wcompact {
  pm_data_file_meta *before;
  size_t n_before;
  pm_wslot *out;
  /* deletion vectors: index files written (metas in the writer's arena, local
   * paths malloc'd) and index files the result removes */
  pm_index_file_meta *new_index;
  char **new_index_paths;
  size_t n_new_index;
  pm_index_file_meta *deleted_index;
  size_t n_deleted_index;
} pm_wcompact;

/* (group, bucket) -> slot, fixed buckets (write_route.c). */
typedef struct pm_route_combo {
  uint64_t key;
  pm_wslot *slot;
} pm_route_combo;

/* Per-batch routing scratch, reused across batches (write_route.c). */
typedef struct pm_route_scratch {
  uint64_t *hash; /* per row: hash of the partition key values */
  int32_t *gid;   /* per row: group of equal partition key values */
  size_t cap_hash, cap_gid;
  int32_t *ht;    /* group index + 1, open addressing by hash */
  size_t ht_cap;
  int64_t *rep;   /* per group: its first row */
  uint64_t *ghash;
  pm_wslot **gslot; /* per group: the slot (unaware buckets) */
  size_t n_groups, cap_groups;
  pm_route_combo *cmap;
  size_t n_combos, cmap_cap;
  pm_wslot **touched; /* slots with rows in this batch, first-row order */
  size_t n_touched, cap_touched;
  pm_value *vals;     /* n_part */
} pm_route_scratch;

struct pm_table_write {
  struct pm_kv_write *kv;      /* primary-key tables: everything is delegated (table/kv_write.h) */
  pm_table *t;
  int streaming, ignore_previous;
  char *commit_user;
  const pm_format *fmt;
  pm_format_write_options wo;
  const pm_data_field *fields; /* the table's columns (t->schema), or the write columns */
  size_t n_fields;
  pm_data_field *own_fields;   /* write columns (cfg->write_cols): fields, owned; NULL otherwise */
  struct ArrowSchema schema;   /* the files' schema (field ids) */
  pm_type type;                /* parsed schema, for take */
  pm_stats_mode *modes;        /* per column */
  int dense;
  int nested_none;             /* nested columns get no stats (parquet, orc) */
  size_t n_part;
  int *part_col;               /* column index per partition key */
  const pm_data_type **part_types;
  size_t n_bkey;
  int *bkey_col;
  const pm_data_type **bkey_types;
  int fixed;                   /* fixed buckets */
  int seq_per_file;            /* row tracking / data evolution: every file from 0 */
  uint64_t target;             /* target-file-size */
  int64_t max_open, n_open;
  uint64_t mem_budget;         /* bytes the open files may buffer together (write-buffer-size / 2) */
  uint64_t tick;
  uint64_t closed_fed, closed_bytes; /* for the compression estimate */
  pm_wslot **slots;
  size_t n_slots, cap_slots;
  pm_slot_map slot_map;        /* (partition, bucket) -> slots[i] */
  char uuid[40];
  int64_t file_counter;
  char **ext_roots;  /* external roots (stored form, no trailing '/') */
  size_t n_ext;
  int ext_strategy;  /* pm_external_path_strategy in effect */
  int64_t *ext_weights, ext_weight_total; /* weight-robin */
  int restored;      /* previous files scanned */
  pm_manifest_entries previous;
  pm_arena arena;    /* metas of files not handed out yet */
  int64_t rows_written;
  uint64_t batch_no;       /* batches routed so far */
  pm_route_scratch route;
  pm_wcompact *compacts;         /* append compaction results (append_compact.c) */
  size_t n_compacts, cap_compacts;
  pm_kv_compact_stats cstats;    /* what prepare handed out of them */
  int failed;
  pm_error fail;
};

/* write.c: Java's Parquet field ids of the ARRAY elements and MAP keys /
 * values below field schema s (type t, field id fid; depth 0 at the top). */
int pm_write_nested_ids(struct ArrowSchema *s, const pm_data_type *t, int32_t fid, int32_t depth, pm_error *err);
/* write.c: the value-stats mode of each column fields[0, n) of t
 * (metadata.stats-mode, fields.<f>.stats-mode, metadata.stats-keep-first-n-columns;
 * nested_none: nested columns none). *out malloc'd (also on failure). */
int pm_write_stats_modes(const pm_table *t, const pm_data_field *fields, size_t n, int nested_none,
                         pm_stats_mode **out, pm_error *err);
/* The same with default mode def_mode (the value of option def_option, e.g. changelog-file.stats-mode). */
int pm_write_stats_modes_def(const pm_table *t, const pm_data_field *fields, size_t n, int nested_none,
                             const char *def_mode, pm_co_id def_option, pm_stats_mode **out,
                             pm_error *err);

/* Open files at most, also when one batch routes to more slots than
 * write-max-writers-to-spill (write.c make_room). */
#define PM_WRITE_MAX_OPEN_FILES 512

/* write.c: the slot of (partition row, bucket), created on first use. */
int pm_wslot_get(pm_table_write *w, const uint8_t *part, size_t part_len, int32_t bucket, pm_wslot **out,
                 pm_error *err);
/* write.c: a slot of (partition row, bucket) that is not in the slot map
 * (compaction output); pm_wslot_free(w, s, 1) deletes its closed files. */
int pm_wslot_new(pm_table_write *w, const uint8_t *part, size_t part_len, int32_t bucket, pm_wslot **out,
                 pm_error *err);
void pm_wslot_free(pm_table_write *w, pm_wslot *s, int delete_files);
/* write.c: writes rows of b (table schema, offset 0) to s, rolling files at target-file-size. */
int pm_wslot_write(pm_table_write *w, pm_wslot *s, const struct ArrowArray *b, pm_error *err);
/* write_route.c: groups the rows of b (table schema, offset 0) by slot:
 * w->route.touched[0..n_touched) hold the row indices (s->rows, n_rows) in
 * row order; each touched slot's batch = w->batch_no. The caller resets
 * n_rows to 0 after writing. On failure no slot keeps rows. */
int pm_write_route(pm_table_write *w, const struct ArrowArray *b, pm_error *err);
void pm_route_scratch_free(pm_route_scratch *x);

/* write_file.c */
int pm_wfile_open(pm_table_write *w, pm_wslot *s, pm_error *err);
/* Writes batch rows (offset 0, table schema) to the slot's open file. */
int pm_wfile_write(pm_table_write *w, pm_wslot *s, const struct ArrowArray *b, pm_error *err);
/* Closes the slot's open file into s->files. */
int pm_wfile_close(pm_table_write *w, pm_wslot *s, pm_error *err);
void pm_wfile_abort(pm_table_write *w, pm_wslot *s);
/* External roots from the options (none: n = 0), strategy and weights. */
int pm_wfile_external_roots(pm_table_write *w, pm_error *err);
/* Java's entropy-inject directories for a file name: "bbbb/bbbb/bbbb/bbbbbbbb" (23 chars + NUL). */
void pm_write_entropy_dirs(const char *file_name, char out[24]);
int64_t pm_write_local_millis(void);
/* Min / max of the DECIMAL columns fields[i] = b->children[first + i] into dec[i]
 * (the formats report none), and of FLOAT / DOUBLE columns in Java's total
 * order (the formats skip NaN; Java's stats put NaN into max). */
void pm_write_track_decimals(const pm_data_field *fields, size_t n, pm_wdec *dec, const struct ArrowArray *b,
                             int64_t first);
/* SimpleStats of a written file's columns fields[0, n) from the format's
 * column stats cols[0, n_cols) and the tracked decimals dec[0, n), as Java's
 * writers convert them (modes per column; dense / out_cols as
 * pm_stats_collector_finish; out_cols may be NULL). */
int pm_write_stats(const pm_data_field *fields, size_t n, const pm_stats_mode *modes,
                   const pm_format_column_stats *cols, size_t n_cols, const pm_wdec *dec, int dense, pm_arena *arena,
                   pm_simple_stats *out, pm_str_list *out_cols, pm_error *err);

#endif
