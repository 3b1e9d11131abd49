/*
 * Open files of the file-system seam (io/fs.h).
 *
 * pm_file: an input file opened through a pm_fs (or a memory region):
 * size, positional reads (exact length: short reads of the file system are
 * retried here), vectored reads.
 *
 * pm_out_file: THE OUTPUT SINK. Format writers (Parquet, ORC, Avro) and
 * metadata writers write to a pm_out_file through pm_out_write, asking
 * pm_out_pos for offsets; whoever created the sink commits or aborts it.
 * Bytes become visible under the final name only on pm_out_commit (a crash
 * never leaves a truncated file under the final name).
 *
 * The path-only entry points below (pm_file_open, pm_read_file, pm_out_open,
 * ...) are thin wrappers over pm_fs_local() for code that has no fs at hand
 * (the CLI's file tools, tests, benchmarks); table code uses the table's fs.
 */
#ifndef PM_IO_FILE_H
#define PM_IO_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "io/fs.h"
#include "util/buf.h"
#include "util/error.h"

/* ---- input files ---- */

/* Wraps a caller-owned memory region (must outlive the handle). name is used in messages. */
int pm_file_from_memory(const void *data, size_t len, const char *name, pm_file **out, pm_error *err);
void pm_file_close(pm_file *f); /* NULL ok */
uint64_t pm_file_size(const pm_file *f);
const char *pm_file_path(const pm_file *f);
/* Reads exactly len bytes at off. Reading past the end is PAIMON_ERR_CORRUPT naming the file and offset;
 * an I/O error names the file and offset. Thread-safe on one handle (positional). */
int pm_file_read_at(pm_file *f, uint64_t off, void *dst, size_t len, pm_error *err);
/* Reads n ranges exactly (each as pm_file_read_at would; the file system may coalesce them). */
int pm_file_read_ranges(pm_file *f, const pm_read_range *ranges, size_t n, pm_error *err);
/* For memory files: a pointer to the bytes (no copy), else NULL. */
const uint8_t *pm_file_memory(const pm_file *f);
/* Reads [off, off + len) (clipped to the file) in one read and keeps it: later reads that lie
 * inside it are copied from memory instead of going to the file system. For small files and
 * footers, where a reader would otherwise make several small reads of one region. Replaces an
 * earlier prefetch; the memory (len bytes, so callers bound it) is freed by pm_file_close. No-op
 * for memory files. Not concurrently with other calls on the same handle. */
int pm_file_prefetch(pm_file *f, uint64_t off, size_t len, pm_error *err);
/* Format readers read files up to this size whole with pm_file_prefetch when they open them
 * (footer, stripes or chunks then come from memory: one read per file). */
#define PM_FILE_PREFETCH_WHOLE ((size_t)256 << 10)

/* ---- the output sink ---- */

/* Appends len bytes (batched; errors may surface on a later write or on commit). */
int pm_out_write(pm_out_file *f, const void *data, size_t len, pm_error *err);
/* Writes the batched bytes and gives their buffer's memory back (a writer that
 * stays open but idle, one of many, holds no write buffer). */
int pm_out_drain(pm_out_file *f, pm_error *err);
/* Bytes written so far = offset of the next byte. */
uint64_t pm_out_pos(const pm_out_file *f);
/* Final name of the sink (for messages). */
const char *pm_out_path(const pm_out_file *f);
/* Flushes, fsyncs and publishes under the final name; mode is a pm_out_mode
 * (0 = overwrite, 1 = PM_OUT_CREATE_IF_ABSENT: PAIMON_ERR_CONFLICT when the name
 * exists). Frees f in every case (nothing is left behind on failure). */
int pm_out_commit(pm_out_file *f, int mode, pm_error *err);
/* Discards everything written and frees f. NULL ok. */
void pm_out_abort(pm_out_file *f);
/* A sink into memory: the bytes are appended to *dst (caller-owned, must outlive the sink;
 * complete after commit, mode is ignored); abort cuts *dst back to its length at open.
 * name is used in messages. */
int pm_out_open_buf(pm_buf *dst, const char *name, pm_out_file **out, pm_error *err);

/* ---- path-only wrappers over pm_fs_local() ---- */

/* Opens path for reading (pm_fs_open on the local fs). */
int pm_file_open(const char *path, pm_file **out, pm_error *err);
/* Reads a whole file into out (appending). Files over limit bytes (0 = 1 GiB) are an error. */
int pm_read_file(const char *path, pm_buf *out, size_t limit, pm_error *err);
/* 1 if path exists, 0 if not. */
int pm_path_exists(const char *path);
/* Lists the names in a directory (no "." or ".."), sorted. *names is an
 * array of malloc'd strings; free with pm_free_names. A missing directory is PAIMON_ERR_NOT_FOUND. */
int pm_list_dir(const char *path, char ***names, size_t *count, pm_error *err);
/* mkdir -p. */
int pm_mkdirs(const char *path, pm_error *err);
/* Starts writing path (through a temporary file next to it). */
int pm_out_open(const char *path, pm_out_file **out, pm_error *err);
/* Convenience: write a whole file atomically (no_overwrite = PM_OUT_CREATE_IF_ABSENT). */
int pm_write_file(const char *path, const void *data, size_t len, int no_overwrite, pm_error *err);

#endif
