/* The local POSIX file system (io/fs.h): pread for reads, a hidden
 * temporary file renamed (or linked, for create-if-absent) into place for
 * writes, fsync of the file and then of its directory before success. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io/fs_impl.h"
#include "util/str.h"

/* fsyncs that succeeded (files and directories), for tests of the durability path. */
static atomic_uint_fast64_t g_fsyncs;
uint64_t pm_fs_local_fsync_count(void) { return atomic_load(&g_fsyncs); }

static int errno_status(int e) { return e == ENOENT || e == ENOTDIR ? PAIMON_ERR_NOT_FOUND : PAIMON_ERR_IO; }

static const char *kind_name(mode_t m) {
  if (S_ISDIR(m)) return "is a directory";
  if (S_ISFIFO(m)) return "is a FIFO, not a regular file";
  if (S_ISCHR(m) || S_ISBLK(m)) return "is a device, not a regular file";
  if (S_ISSOCK(m)) return "is a socket, not a regular file";
  return "is not a regular file";
}

/* fsync of the directory holding path (so a new or renamed entry survives a crash). */
static int sync_parent_dir(const char *path, pm_error *err) {
  const char *slash = strrchr(path, '/');
  char *dir;
  if (!slash) dir = pm_strdup(".");
  else if (slash == path) dir = pm_strdup("/");
  else {
    dir = malloc((size_t)(slash - path) + 1);
    if (dir) {
      memcpy(dir, path, (size_t)(slash - path));
      dir[slash - path] = 0;
    }
  }
  if (!dir) return PM_NOMEM(err);
  int rc = 0;
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    rc = pm_errorf(err, PAIMON_ERR_IO, "%s: cannot open directory for fsync: %s", dir, strerror(errno));
  } else {
    if (fsync(fd) == 0) atomic_fetch_add(&g_fsyncs, 1);
    else if (errno != EINVAL && errno != ENOTSUP)
      rc = pm_errorf(err, PAIMON_ERR_IO, "%s: directory fsync failed: %s", dir, strerror(errno));
    close(fd);
  }
  free(dir);
  return rc;
}

/* ---- input files ---- */

static int local_read(pm_file *f, uint64_t off, void *dst, size_t len, size_t *got, pm_error *err) {
  int fd = (int)(intptr_t)f->impl;
  for (;;) {
    ssize_t n = pread(fd, dst, len, (off_t)off);
    if (n >= 0) {
      *got = (size_t)n;
      return 0;
    }
    if (errno != EINTR)
      return pm_errorf(err, PAIMON_ERR_IO, "%s: read at offset %llu failed: %s", f->path, (unsigned long long)off,
                       strerror(errno));
  }
}

static void local_close(pm_file *f) { close((int)(intptr_t)f->impl); }

static const pm_file_ops LOCAL_FILE_OPS = {local_read, NULL, local_close};

static int local_open(pm_fs *fs, const char *path, pm_file **out, pm_error *err) {
  /* O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below. */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    int e = errno;
    return pm_errorf(err, errno_status(e), "%s: cannot open: %s", path, strerror(e));
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    return pm_errorf(err, PAIMON_ERR_IO, "%s: cannot stat: %s", path, strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: %s", path, kind_name(st.st_mode));
  }
  int fl = fcntl(fd, F_GETFL);
  if (fl >= 0) (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  return pm_file_wrap(&LOCAL_FILE_OPS, (void *)(intptr_t)fd, path, (uint64_t)st.st_size, out, err);
}

/* ---- output files ---- */

typedef struct local_out {
  int fd;
  char *tmp_path;
} local_out;

static int lo_write(pm_out_file *f, const void *data, size_t len, pm_error *err) {
  local_out *o = f->impl;
  const uint8_t *p = data;
  while (len > 0) {
    ssize_t n = write(o->fd, p, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return pm_errorf(err, PAIMON_ERR_IO, "%s: write failed: %s", f->path, strerror(errno));
    }
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

static int lo_sync(pm_out_file *f, pm_error *err) {
  local_out *o = f->impl;
  if (fsync(o->fd) != 0) return pm_errorf(err, PAIMON_ERR_IO, "%s: fsync failed: %s", f->path, strerror(errno));
  atomic_fetch_add(&g_fsyncs, 1);
  return 0;
}

static int lo_publish(pm_out_file *f, pm_out_mode mode, pm_error *err) {
  local_out *o = f->impl;
  int fd = o->fd;
  o->fd = -1;
  if (close(fd) != 0) return pm_errorf(err, PAIMON_ERR_IO, "%s: close failed: %s", f->path, strerror(errno));
  if (mode == PM_OUT_CREATE_IF_ABSENT) {
    /* link() fails with EEXIST atomically: the commit primitive */
    if (link(o->tmp_path, f->path) != 0) {
      int e = errno;
      return pm_errorf(err, e == EEXIST ? PAIMON_ERR_CONFLICT : PAIMON_ERR_IO, "%s: cannot create: %s", f->path,
                       strerror(e));
    }
    unlink(o->tmp_path);
  } else if (rename(o->tmp_path, f->path) != 0) {
    return pm_errorf(err, PAIMON_ERR_IO, "%s: cannot rename into place: %s", f->path, strerror(errno));
  }
  free(o->tmp_path);
  o->tmp_path = NULL; /* published: nothing to discard */
  return sync_parent_dir(f->path, err);
}

static void lo_discard(pm_out_file *f) {
  local_out *o = f->impl;
  if (o->fd >= 0) close(o->fd);
  o->fd = -1;
  if (o->tmp_path) unlink(o->tmp_path);
}

static void lo_release(pm_out_file *f) {
  local_out *o = f->impl;
  if (!o) return;
  if (o->fd >= 0) close(o->fd);
  free(o->tmp_path);
  free(o);
}

static const pm_out_ops LOCAL_OUT_OPS = {lo_write, lo_sync, lo_publish, lo_discard, lo_release};

static int local_create(pm_fs *fs, const char *path, pm_out_file **out, pm_error *err) {
  local_out *o = calloc(1, sizeof *o);
  size_t n = strlen(path) + 64;
  char *tmp = malloc(n);
  if (!o || !tmp) {
    free(o);
    free(tmp);
    return PM_NOMEM(err);
  }
  /* Hidden name in the same directory so rename() / link() stay atomic. */
  static _Atomic unsigned long seq;
  const char *slash = strrchr(path, '/');
  size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  snprintf(tmp, n, "%.*s.%s.%ld.%ld.%lu.tmp", (int)dir_len, path, path + dir_len, (long)getpid(), (long)ts.tv_nsec,
           (unsigned long)seq++);
  o->fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (o->fd < 0) {
    int e = errno;
    int rc = pm_errorf(err, errno_status(e), "%s: cannot create: %s", tmp, strerror(e));
    free(tmp);
    free(o);
    return rc;
  }
  o->tmp_path = tmp;
  return pm_out_wrap(&LOCAL_OUT_OPS, o, path, out, err);
}

/* ---- directories and names ---- */

static int local_list(pm_fs *fs, const char *dir, const char *prefix, char ***names, size_t *count, pm_error *err) {
  DIR *d = opendir(dir);
  if (!d) {
    int e = errno;
    return pm_errorf(err, errno_status(e), "%s: cannot list: %s", dir, strerror(e));
  }
  size_t plen = prefix ? strlen(prefix) : 0;
  char **v = NULL;
  size_t n = 0, cap = 0;
  struct dirent *e;
  int rc = 0;
  errno = 0;
  while ((e = readdir(d)) != NULL) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    if (plen && strncmp(e->d_name, prefix, plen) != 0) continue;
    if (n == cap) {
      size_t nc = cap ? cap * 2 : 16;
      char **nv = realloc(v, nc * sizeof *nv);
      if (!nv) {
        rc = PM_NOMEM(err);
        break;
      }
      v = nv;
      cap = nc;
    }
    if (!(v[n] = pm_strdup(e->d_name))) {
      rc = PM_NOMEM(err);
      break;
    }
    n++;
    errno = 0;
  }
  if (!rc && errno != 0) rc = pm_errorf(err, PAIMON_ERR_IO, "%s: cannot list: %s", dir, strerror(errno));
  closedir(d);
  if (rc) {
    pm_free_names(v, n);
    return rc;
  }
  *names = v;
  *count = n;
  return 0;
}

static int local_stat(pm_fs *fs, const char *path, pm_file_stat *out, pm_error *err) {
  struct stat st;
  if (stat(path, &st) != 0) {
    int e = errno;
    return pm_errorf(err, errno_status(e), "%s: cannot stat: %s", path, strerror(e));
  }
  out->size = (uint64_t)st.st_size;
  out->mtime_millis = (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
  out->is_regular = S_ISREG(st.st_mode) != 0;
  out->is_dir = S_ISDIR(st.st_mode) != 0;
  return 0;
}

static int local_remove(pm_fs *fs, const char *path, pm_error *err) {
  if (unlink(path) == 0) return 0;
  int e = errno;
  if ((e == EISDIR || e == EPERM) && rmdir(path) == 0) return 0;
  if (e == EISDIR || e == EPERM) e = errno;
  return pm_errorf(err, errno_status(e), "%s: cannot delete: %s", path, strerror(e));
}

static int local_mkdirs(pm_fs *fs, const char *path, pm_error *err) {
  size_t n = strlen(path);
  char *p = pm_strdup(path);
  if (!p) return PM_NOMEM(err);
  for (size_t i = 1; i <= n; i++) {
    if (p[i] == '/' || p[i] == '\0') {
      char c = p[i];
      p[i] = '\0';
      if (mkdir(p, 0777) != 0 && errno != EEXIST) {
        int e = errno;
        int rc = pm_errorf(err, PAIMON_ERR_IO, "%s: cannot create directory: %s", p, strerror(e));
        free(p);
        return rc;
      }
      p[i] = c;
    }
  }
  free(p);
  return 0;
}

static int local_rename(pm_fs *fs, const char *from, const char *to, pm_error *err) {
  if (rename(from, to) != 0) {
    int e = errno;
    return pm_errorf(err, errno_status(e), "%s: cannot rename to %s: %s", from, to, strerror(e));
  }
  return sync_parent_dir(to, err);
}

static const pm_fs_ops LOCAL_FS_OPS = {
    "local", local_open, local_create, local_list, local_stat, local_remove, local_mkdirs, local_rename, NULL,
};

static pm_fs LOCAL_FS = {&LOCAL_FS_OPS, NULL, -1};

pm_fs *pm_fs_local(void) { return &LOCAL_FS; }
