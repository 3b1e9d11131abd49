/*
 * File access. Readers use pm_file (random access by offset, a real file or
 * a memory region); writers use pm_out_file, which writes a hidden temporary
 * file and only renames it to its final name on pm_out_commit, so a crash
 * never leaves a truncated file under the final name.
 */
#ifndef PM_IO_FILE_H
#define PM_IO_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/error.h"

typedef struct pm_file pm_file;

/* Opens path for reading. *out is owned by the caller: pm_file_close. */
int pm_file_open(const char *path, pm_file **out, pm_error *err);
/* Wraps a caller-owned memory region (must outlive the handle). name is used in messages. */
int pm_file_from_memory(const void *data, size_t len, const char *name, pm_file **out, pm_error *err);
void pm_file_close(pm_file *f); /* NULL ok */
uint64_t pm_file_size(const pm_file *f);
const char *pm_file_path(const pm_file *f);
/* Reads exactly len bytes at off. Reading past the end is PAIMON_ERR_CORRUPT naming the file and offset. */
int pm_file_read_at(pm_file *f, uint64_t off, void *dst, size_t len, pm_error *err);
/* For memory files: a pointer to the bytes (no copy), else NULL. */
const uint8_t *pm_file_memory(const pm_file *f);

/* Reads a whole file into out (appending). Files over limit bytes (0 = 1 GiB) are an error. */
int pm_read_file(const char *path, pm_buf *out, size_t limit, pm_error *err);
/* 1 if path exists, 0 if not. */
int pm_path_exists(const char *path);
/* Lists the names in a directory (no "." or ".."), sorted. *names is an
 * array of malloc'd strings; free with pm_free_names. A missing directory is PAIMON_ERR_NOT_FOUND. */
int pm_list_dir(const char *path, char ***names, size_t *count, pm_error *err);
void pm_free_names(char **names, size_t count);
/* mkdir -p. */
int pm_mkdirs(const char *path, pm_error *err);

typedef struct pm_out_file pm_out_file;

/* Starts writing path (through a temporary file next to it). */
int pm_out_open(const char *path, pm_out_file **out, pm_error *err);
int pm_out_write(pm_out_file *f, const void *data, size_t len, pm_error *err);
uint64_t pm_out_pos(const pm_out_file *f);
/* Flushes, fsyncs and renames into place. If no_overwrite, fails with
 * PAIMON_ERR_CONFLICT when the final name exists (atomic via link()).
 * Frees f in every case. */
int pm_out_commit(pm_out_file *f, int no_overwrite, pm_error *err);
/* Discards the temporary file and frees f. NULL ok. */
void pm_out_abort(pm_out_file *f);
/* Convenience: write a whole file atomically. */
int pm_write_file(const char *path, const void *data, size_t len, int no_overwrite, pm_error *err);

#endif
