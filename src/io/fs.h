/*
 * The file-system seam. Everything the library reads or writes goes through
 * a pm_fs: a vtable (pm_fs_ops, io/fs_impl.h) plus opaque state. Today there
 * is the local POSIX file system (pm_fs_local) and the fault-injecting
 * wrapper used by tests (io/fs_fault.h); object stores plug in here.
 *
 * Readers: pm_fs_open -> pm_file (random access: size, positional reads,
 * vectored reads of several ranges that an object store can coalesce).
 * Writers: pm_fs_create -> pm_out_file, THE OUTPUT SINK every format writer
 * writes to (pm_out_write + pm_out_pos, io/file.h). The bytes become visible
 * under the final name only on pm_out_commit, never partially; with
 * PM_OUT_CREATE_IF_ABSENT the commit fails with PAIMON_ERR_CONFLICT when the
 * name exists (the commit primitive; a conditional PUT on object stores).
 * The local fs fsyncs the file, publishes it, then fsyncs its directory
 * before reporting success (a failing directory fsync is reported as an
 * error although the file is then visible: durability is not certain).
 *
 * Paths are the strings the table metadata stores (absolute local paths
 * today; "scheme://..." later). Every error message names the path.
 *
 * Ownership: a pm_fs is reference-counted (pm_fs_ref / pm_fs_unref); whoever
 * stores a pm_fs takes a reference. pm_fs_local() is a process-wide static
 * instance (ref/unref are no-ops on it). All operations are thread-safe.
 */
#ifndef PM_IO_FS_H
#define PM_IO_FS_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/error.h"

typedef struct pm_fs pm_fs;
typedef struct pm_file pm_file;         /* an open input file (io/file.h) */
typedef struct pm_out_file pm_out_file; /* the output sink (io/file.h) */

typedef struct pm_file_stat {
  uint64_t size;
  int64_t mtime_millis; /* modification time, ms since the epoch */
  int is_regular;       /* a regular file (readable by pm_fs_open) */
  int is_dir;
} pm_file_stat;

/* One range of a vectored read: len bytes at off into dst. */
typedef struct pm_read_range {
  uint64_t off;
  size_t len;
  void *dst;
} pm_read_range;

/* How pm_out_commit publishes an output file. */
typedef enum pm_out_mode {
  PM_OUT_OVERWRITE = 0,       /* replace an existing file atomically */
  PM_OUT_CREATE_IF_ABSENT = 1 /* PAIMON_ERR_CONFLICT when the name exists */
} pm_out_mode;

/* The process-wide local file system (never freed). */
pm_fs *pm_fs_local(void);
/* Successful fsyncs of files and directories by the local fs in this process (for tests). */
uint64_t pm_fs_local_fsync_count(void);
/* Takes / drops a reference. NULL ok. The fs is destroyed when the last reference goes. */
pm_fs *pm_fs_ref(pm_fs *fs);
void pm_fs_unref(pm_fs *fs);
/* Short name for messages ("local", "fault(local)"). */
const char *pm_fs_name(const pm_fs *fs);

/* Opens path for reading. Missing = PAIMON_ERR_NOT_FOUND; a directory, FIFO,
 * device or socket = PAIMON_ERR_INVALID_ARGUMENT (never blocks). *out: pm_file_close. */
int pm_fs_open(pm_fs *fs, const char *path, pm_file **out, pm_error *err);
/* Starts an output file that appears under path on pm_out_commit (io/file.h).
 * The parent directory must exist (pm_fs_mkdirs). *out: pm_out_commit or pm_out_abort. */
int pm_fs_create(pm_fs *fs, const char *path, pm_out_file **out, pm_error *err);
/* Names in directory dir starting with prefix (NULL = all; no "." / ".."), sorted.
 * *names: pm_free_names. A missing directory is PAIMON_ERR_NOT_FOUND. */
int pm_fs_list(pm_fs *fs, const char *dir, const char *prefix, char ***names, size_t *count, pm_error *err);
/* Missing = PAIMON_ERR_NOT_FOUND (naming the path). */
int pm_fs_stat(pm_fs *fs, const char *path, pm_file_stat *st, pm_error *err);
/* *exists = 1 if path exists, 0 if not; an I/O error other than "not found" is returned. */
int pm_fs_exists(pm_fs *fs, const char *path, int *exists, pm_error *err);
/* Deletes a file or an empty directory. Missing = PAIMON_ERR_NOT_FOUND. */
int pm_fs_delete(pm_fs *fs, const char *path, pm_error *err);
/* mkdir -p (existing directories are fine). */
int pm_fs_mkdirs(pm_fs *fs, const char *path, pm_error *err);
/* Renames from to to (replacing to). Missing from = PAIMON_ERR_NOT_FOUND. */
int pm_fs_rename(pm_fs *fs, const char *from, const char *to, pm_error *err);

/* Reads a whole file into out (appending; a NUL follows, not counted). Files over
 * limit bytes (0 = 1 GiB) are PAIMON_ERR_UNSUPPORTED naming the file. */
int pm_fs_read_file(pm_fs *fs, const char *path, pm_buf *out, size_t limit, pm_error *err);
/* Writes a whole file atomically (create + write + commit). */
int pm_fs_write_file(pm_fs *fs, const char *path, const void *data, size_t len, pm_out_mode mode, pm_error *err);

void pm_free_names(char **names, size_t count); /* NULL ok */

#endif
