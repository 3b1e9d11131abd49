#define _GNU_SOURCE
#include "io/file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct pm_file {
  int fd; /* -1 for memory files */
  const uint8_t *mem;
  uint64_t size;
  char *path;
};

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

int pm_file_open(const char *path, pm_file **out, pm_error *err) {
  *out = NULL;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return pm_errorf(err, errno == ENOENT ? PAIMON_ERR_NOT_FOUND : PAIMON_ERR_IO, "%s: cannot open: %s", path,
                     strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    return pm_errorf(err, PAIMON_ERR_IO, "%s: cannot stat: %s", path, strerror(e));
  }
  if (S_ISDIR(st.st_mode)) {
    close(fd);
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: is a directory", path);
  }
  pm_file *f = calloc(1, sizeof *f);
  char *p = dup_str(path);
  if (!f || !p) {
    free(f);
    free(p);
    close(fd);
    return PM_NOMEM(err);
  }
  f->fd = fd;
  f->size = (uint64_t)st.st_size;
  f->path = p;
  *out = f;
  return 0;
}

int pm_file_from_memory(const void *data, size_t len, const char *name, pm_file **out, pm_error *err) {
  *out = NULL;
  pm_file *f = calloc(1, sizeof *f);
  char *p = dup_str(name ? name : "<memory>");
  if (!f || !p) {
    free(f);
    free(p);
    return PM_NOMEM(err);
  }
  f->fd = -1;
  f->mem = data;
  f->size = len;
  f->path = p;
  *out = f;
  return 0;
}

void pm_file_close(pm_file *f) {
  if (!f) return;
  if (f->fd >= 0) close(f->fd);
  free(f->path);
  free(f);
}

uint64_t pm_file_size(const pm_file *f) { return f->size; }
const char *pm_file_path(const pm_file *f) { return f->path; }
const uint8_t *pm_file_memory(const pm_file *f) { return f->fd < 0 ? f->mem : NULL; }

int pm_file_read_at(pm_file *f, uint64_t off, void *dst, size_t len, pm_error *err) {
  if (off > f->size || len > f->size - off)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: read of %zu bytes at offset %llu is past the end (size %llu)",
                     f->path, len, (unsigned long long)off, (unsigned long long)f->size);
  if (len == 0) return 0;
  if (f->fd < 0) {
    memcpy(dst, f->mem + off, len);
    return 0;
  }
  uint8_t *d = dst;
  while (len > 0) {
    ssize_t n = pread(f->fd, d, len, (off_t)off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return pm_errorf(err, PAIMON_ERR_IO, "%s: read at offset %llu failed: %s", f->path, (unsigned long long)off,
                       strerror(errno));
    }
    if (n == 0)
      return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: file shrank while reading at offset %llu", f->path,
                       (unsigned long long)off);
    d += n;
    off += (uint64_t)n;
    len -= (size_t)n;
  }
  return 0;
}

int pm_read_file(const char *path, pm_buf *out, size_t limit, pm_error *err) {
  if (limit == 0) limit = (size_t)1 << 30;
  pm_file *f;
  PM_TRY(pm_file_open(path, &f, err));
  int rc = 0;
  if (f->size > limit) {
    rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: file of %llu bytes exceeds limit %zu", path,
                   (unsigned long long)f->size, limit);
  } else if (pm_buf_reserve(out, (size_t)f->size + 1)) {
    rc = PM_NOMEM(err);
  } else {
    rc = pm_file_read_at(f, 0, out->data + out->len, (size_t)f->size, err);
    if (rc == 0) {
      out->len += (size_t)f->size;
      out->data[out->len] = 0; /* convenient for text parsers; not counted in len */
    }
  }
  pm_file_close(f);
  return rc;
}

int pm_path_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int pm_list_dir(const char *path, char ***names, size_t *count, pm_error *err) {
  *names = NULL;
  *count = 0;
  DIR *d = opendir(path);
  if (!d)
    return pm_errorf(err, errno == ENOENT ? PAIMON_ERR_NOT_FOUND : PAIMON_ERR_IO, "%s: cannot list: %s", path,
                     strerror(errno));
  char **v = NULL;
  size_t n = 0, cap = 0;
  struct dirent *e;
  int rc = 0;
  while ((e = readdir(d)) != NULL) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
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
    if (!(v[n] = dup_str(e->d_name))) {
      rc = PM_NOMEM(err);
      break;
    }
    n++;
  }
  closedir(d);
  if (rc) {
    pm_free_names(v, n);
    return rc;
  }
  if (n) qsort(v, n, sizeof *v, cmp_names);
  *names = v;
  *count = n;
  return 0;
}

void pm_free_names(char **names, size_t count) {
  if (!names) return;
  for (size_t i = 0; i < count; i++) free(names[i]);
  free(names);
}

int pm_mkdirs(const char *path, pm_error *err) {
  size_t n = strlen(path);
  char *p = malloc(n + 1);
  if (!p) return PM_NOMEM(err);
  memcpy(p, path, n + 1);
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

struct pm_out_file {
  int fd;
  char *path;
  char *tmp_path;
  uint64_t pos;
  pm_buf pending; /* small writes are batched */
};

#define PM_OUT_FLUSH_SIZE (1u << 20)

int pm_out_open(const char *path, pm_out_file **out, pm_error *err) {
  *out = NULL;
  pm_out_file *f = calloc(1, sizeof *f);
  if (!f) return PM_NOMEM(err);
  pm_buf_init(&f->pending);
  f->path = dup_str(path);
  size_t n = strlen(path) + 64;
  f->tmp_path = malloc(n);
  if (!f->path || !f->tmp_path) {
    free(f->path);
    free(f->tmp_path);
    free(f);
    return PM_NOMEM(err);
  }
  /* Hidden name in the same directory so rename() stays atomic. */
  const char *slash = strrchr(path, '/');
  size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  snprintf(f->tmp_path, n, "%.*s.%s.%ld.%ld.tmp", (int)dir_len, path, path + dir_len, (long)getpid(),
           (long)ts.tv_nsec);
  f->fd = open(f->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (f->fd < 0) {
    int rc = pm_errorf(err, PAIMON_ERR_IO, "%s: cannot create: %s", f->tmp_path, strerror(errno));
    free(f->path);
    free(f->tmp_path);
    free(f);
    return rc;
  }
  *out = f;
  return 0;
}

static int out_flush(pm_out_file *f, pm_error *err) {
  size_t off = 0;
  while (off < f->pending.len) {
    ssize_t n = write(f->fd, f->pending.data + off, f->pending.len - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return pm_errorf(err, PAIMON_ERR_IO, "%s: write failed: %s", f->path, strerror(errno));
    }
    off += (size_t)n;
  }
  f->pending.len = 0;
  return 0;
}

int pm_out_write(pm_out_file *f, const void *data, size_t len, pm_error *err) {
  if (pm_buf_append(&f->pending, data, len)) return PM_NOMEM(err);
  f->pos += len;
  if (f->pending.len >= PM_OUT_FLUSH_SIZE) return out_flush(f, err);
  return 0;
}

uint64_t pm_out_pos(const pm_out_file *f) { return f->pos; }

static void out_free(pm_out_file *f) {
  if (f->fd >= 0) close(f->fd);
  pm_buf_free(&f->pending);
  free(f->path);
  free(f->tmp_path);
  free(f);
}

int pm_out_commit(pm_out_file *f, int no_overwrite, pm_error *err) {
  int rc = out_flush(f, err);
  if (rc == 0 && fsync(f->fd) != 0) rc = pm_errorf(err, PAIMON_ERR_IO, "%s: fsync failed: %s", f->path, strerror(errno));
  if (rc == 0 && close(f->fd) != 0) rc = pm_errorf(err, PAIMON_ERR_IO, "%s: close failed: %s", f->path, strerror(errno));
  f->fd = -1;
  if (rc == 0) {
    if (no_overwrite) {
      if (link(f->tmp_path, f->path) != 0)
        rc = pm_errorf(err, errno == EEXIST ? PAIMON_ERR_CONFLICT : PAIMON_ERR_IO, "%s: cannot create: %s", f->path,
                       strerror(errno));
      unlink(f->tmp_path);
    } else if (rename(f->tmp_path, f->path) != 0) {
      rc = pm_errorf(err, PAIMON_ERR_IO, "%s: cannot rename into place: %s", f->path, strerror(errno));
      unlink(f->tmp_path);
    }
  } else {
    unlink(f->tmp_path);
  }
  out_free(f);
  return rc;
}

void pm_out_abort(pm_out_file *f) {
  if (!f) return;
  if (f->fd >= 0) close(f->fd);
  f->fd = -1;
  unlink(f->tmp_path);
  out_free(f);
}

int pm_write_file(const char *path, const void *data, size_t len, int no_overwrite, pm_error *err) {
  pm_out_file *f;
  PM_TRY(pm_out_open(path, &f, err));
  int rc = pm_out_write(f, data, len, err);
  if (rc) {
    pm_out_abort(f);
    return rc;
  }
  return pm_out_commit(f, no_overwrite, err);
}
