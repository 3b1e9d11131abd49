/*
 * Spilled sorted runs of the primary-key write buffer (write-buffer-spillable,
 * as Java's BinaryExternalSortBuffer): when the in-memory buffer is full its
 * sorted, merged records go to a local temporary file instead of a level-0
 * file; at flush the runs are k-way merged (table/merge.h) into level-0 files.
 *
 * A run file is a private, local format (never part of a table): a sequence
 * of blocks, each one merge batch serialised buffer by buffer and compressed
 * with spill-compression (zstd, lz4, none). Blocks hold about block_bytes of
 * Arrow data so that reading one block per run keeps the merge's memory at
 * fan-in x block size.
 *
 * Files live in a directory of their own, <tmp>/paimon-spill-<uuid>, created
 * on the first spill and removed (with every file left) by pm_spill_free.
 * All I/O goes through a pm_fs (the local fs; tests pass a fault fs).
 */
#ifndef PM_TABLE_KV_SPILL_H
#define PM_TABLE_KV_SPILL_H

#include <stdint.h>

#include "arrow/type.h"
#include "io/fs.h"
#include "table/merge.h"
#include "util/buf.h"
#include "util/compress.h"
#include "util/error.h"

typedef struct pm_spill {
  pm_fs *fs;            /* referenced */
  char *root;           /* the temp directory's parent */
  char *dir;            /* root/paimon-spill-<uuid>, NULL until created */
  char uuid[40];
  int codec;            /* pm_codec */
  int level;            /* zstd level */
  uint64_t block_bytes; /* target Arrow bytes per block */
  int64_t counter;
  uint64_t disk_bytes;  /* bytes of the live run files */
  int64_t runs_written; /* totals, for tests and benchmarks */
  uint64_t bytes_written;
  int64_t live_files;
  pm_codec_ctx codec_ctx; /* reused by the run writers and readers (one thread) */
} pm_spill;

/* One run file. */
typedef struct pm_spill_run {
  char *path;
  uint64_t bytes;
  int64_t rows;
} pm_spill_run;

/* Sets up sp: fs (NULL = the local fs), tmp_root (NULL: $TMPDIR, else /tmp),
 * compression = spill-compression value (zstd, lz4, none; lzo is
 * PAIMON_ERR_UNSUPPORTED), zstd level, block size. Creates nothing yet. */
int pm_spill_init(pm_spill *sp, pm_fs *fs, const char *tmp_root, const char *compression, int level,
                  uint64_t block_bytes, pm_error *err);
/* Deletes every file and the directory left (best effort), frees sp. */
void pm_spill_free(pm_spill *sp);

/* Streaming run writer: batches of type `layout` in key order. */
typedef struct pm_spill_writer pm_spill_writer;
int pm_spill_writer_open(pm_spill *sp, const pm_type *layout, pm_spill_writer **out, pm_error *err);
int pm_spill_writer_add(pm_spill_writer *wr, const struct ArrowArray *batch, pm_error *err);
/* Rows per block for batches like `batch` (from its bytes per row, >= 16), and
 * one batch written as one block as it is: a writer that cuts its batches to
 * that size saves pm_spill_writer_add the copy of each block. */
int64_t pm_spill_block_rows(const pm_spill_writer *wr, const struct ArrowArray *batch);
int pm_spill_writer_add_block(pm_spill_writer *wr, const struct ArrowArray *batch, pm_error *err);
/* Completes the file into *run (path owned by the caller: pm_spill_run_drop). Frees wr, also on failure. */
int pm_spill_writer_close(pm_spill_writer *wr, pm_spill_run *run, pm_error *err);
/* Deletes the partial file, frees wr (NULL ok). */
void pm_spill_writer_abort(pm_spill_writer *wr);

/* A merge source reading run (borrowed; the file stays until pm_spill_run_drop). */
int pm_spill_source(pm_spill *sp, const pm_type *layout, const pm_spill_run *run, pm_merge_source *out, pm_error *err);
/* Deletes the run's file and frees its path. */
void pm_spill_run_drop(pm_spill *sp, pm_spill_run *run);

/* Serialisation of one array of type t (exposed for tests): appends to out;
 * pm_spill_decode reads it back from [*pos, len) advancing *pos. */
int pm_spill_encode(const pm_type *t, const struct ArrowArray *a, pm_buf *out, pm_error *err);
int pm_spill_decode(const pm_type *t, const uint8_t *data, size_t len, size_t *pos, struct ArrowArray *out,
                    pm_error *err);

#endif
