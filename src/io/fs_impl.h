/*
 * The implementor's side of the file-system seam (io/fs.h): the vtables a
 * file system fills in and the structs the generic layer (io/fs.c,
 * io/file.c) wraps around them. Only file-system implementations include
 * this header; users stay on io/fs.h and io/file.h.
 *
 * The generic layer does the parts every implementation would repeat:
 * bounds checks and retrying short reads (pm_file_read_at), write
 * batching and position tracking (pm_out_write / pm_out_pos), sorting
 * listings, "exists" on top of stat, whole-file helpers.
 */
#ifndef PM_IO_FS_IMPL_H
#define PM_IO_FS_IMPL_H

#include <stdatomic.h>

#include "io/file.h"
#include "io/fs.h"

typedef struct pm_file_ops {
  /* Reads up to len (> 0) bytes at off (off < size) into dst; *got = bytes read,
   * which may be fewer than len (the caller retries); 0 means end of file. */
  int (*read)(pm_file *f, uint64_t off, void *dst, size_t len, size_t *got, pm_error *err);
  /* Optional: reads every range exactly (ranges are within the file, checked by the caller;
   * a len may be 0; an object store coalesces nearby ranges. NULL = one pm_file_read_at per range. */
  int (*read_ranges)(pm_file *f, const pm_read_range *ranges, size_t n, pm_error *err);
  /* Releases f->impl (not f itself, not f->path). */
  void (*close)(pm_file *f);
} pm_file_ops;

struct pm_file {
  const pm_file_ops *ops; /* NULL for memory files (pm_file_from_memory) */
  void *impl;
  const uint8_t *mem; /* memory files only */
  uint64_t size;      /* fixed at open */
  char *path;
  uint8_t *win;       /* pm_file_prefetch's bytes [win_off, win_off + win_len), owned */
  uint64_t win_off;
  size_t win_len;
};

/* Wraps an implementation's open file: *out owns path (copied) and impl (released by ops->close,
 * also when this fails). */
int pm_file_wrap(const pm_file_ops *ops, void *impl, const char *path, uint64_t size, pm_file **out,
                 pm_error *err);

typedef struct pm_out_ops {
  /* Writes all len bytes (appending). */
  int (*write)(pm_out_file *f, const void *data, size_t len, pm_error *err);
  /* Makes the written bytes durable (fsync). */
  int (*sync)(pm_out_file *f, pm_error *err);
  /* Makes the file visible under f->path (mode as in io/fs.h). Called once, after sync. */
  int (*publish)(pm_out_file *f, pm_out_mode mode, pm_error *err);
  /* Removes whatever was not published (temporary file). Called after a failure or on abort. */
  void (*discard)(pm_out_file *f);
  /* Releases f->impl (always called last). */
  void (*release)(pm_out_file *f);
} pm_out_ops;

struct pm_out_file {
  const pm_out_ops *ops;
  void *impl;
  char *path;      /* final name */
  uint64_t pos;    /* bytes written so far (including pending) */
  pm_buf pending;  /* small writes are batched here */
};

/* Wraps an implementation's output file (path copied). On failure impl is released. */
int pm_out_wrap(const pm_out_ops *ops, void *impl, const char *path, pm_out_file **out, pm_error *err);

typedef struct pm_fs_ops {
  const char *name;
  int (*open)(pm_fs *fs, const char *path, pm_file **out, pm_error *err);
  int (*create)(pm_fs *fs, const char *path, pm_out_file **out, pm_error *err);
  /* Unsorted names in dir starting with prefix (NULL = all), without "." and "..". */
  int (*list)(pm_fs *fs, const char *dir, const char *prefix, char ***names, size_t *count, pm_error *err);
  int (*stat)(pm_fs *fs, const char *path, pm_file_stat *st, pm_error *err);
  int (*remove)(pm_fs *fs, const char *path, pm_error *err);
  int (*mkdirs)(pm_fs *fs, const char *path, pm_error *err);
  int (*rename)(pm_fs *fs, const char *from, const char *to, pm_error *err);
  /* Releases fs->state when the last reference goes (NULL: nothing to free). */
  void (*destroy)(pm_fs *fs);
} pm_fs_ops;

struct pm_fs {
  const pm_fs_ops *ops;
  void *state;
  atomic_int refs; /* < 0: static instance, never freed */
};

/* A new fs with one reference. On failure state is NOT destroyed (the caller still owns it). */
int pm_fs_new(const pm_fs_ops *ops, void *state, pm_fs **out, pm_error *err);

#endif
