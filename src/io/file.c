/* pm_file / pm_out_file on top of a file system's vtables (io/fs_impl.h),
 * memory files and sinks, and the path-only wrappers over the local fs. */
#include "io/file.h"

#include <stdlib.h>
#include <string.h>

#include "io/fs_impl.h"
#include "util/str.h"

/* ---- input files ---- */

int pm_file_wrap(const pm_file_ops *ops, void *impl, const char *path, uint64_t size, pm_file **out,
                 pm_error *err) {
  *out = NULL;
  pm_file *f = calloc(1, sizeof *f);
  char *p = pm_strdup(path);
  if (!f || !p) {
    free(f);
    free(p);
    pm_file tmp = {.ops = ops, .impl = impl};
    ops->close(&tmp);
    return PM_NOMEM(err);
  }
  f->ops = ops;
  f->impl = impl;
  f->size = size;
  f->path = p;
  *out = f;
  return 0;
}

int pm_file_from_memory(const void *data, size_t len, const char *name, pm_file **out, pm_error *err) {
  *out = NULL;
  pm_file *f = calloc(1, sizeof *f);
  char *p = pm_strdup(name ? name : "<memory>");
  if (!f || !p) {
    free(f);
    free(p);
    return PM_NOMEM(err);
  }
  f->mem = data;
  f->size = len;
  f->path = p;
  *out = f;
  return 0;
}

void pm_file_close(pm_file *f) {
  if (!f) return;
  if (f->ops) f->ops->close(f);
  free(f->win);
  free(f->path);
  free(f);
}

uint64_t pm_file_size(const pm_file *f) { return f->size; }
const char *pm_file_path(const pm_file *f) { return f->path; }
const uint8_t *pm_file_memory(const pm_file *f) { return f->ops ? NULL : f->mem; }

static int read_direct(pm_file *f, uint64_t off, void *dst, size_t len, pm_error *err);

static int in_window(const pm_file *f, uint64_t off, size_t len) {
  return f->win && off >= f->win_off && len <= f->win_len && off - f->win_off <= f->win_len - len;
}

int pm_file_read_at(pm_file *f, uint64_t off, void *dst, size_t len, pm_error *err) {
  if (off > f->size || len > f->size - off)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: read of %zu bytes at offset %llu is past the end (size %llu)",
                     f->path, len, (unsigned long long)off, (unsigned long long)f->size);
  if (len == 0) return 0;
  if (!f->ops) {
    memcpy(dst, f->mem + off, len);
    return 0;
  }
  if (in_window(f, off, len)) {
    memcpy(dst, f->win + (off - f->win_off), len);
    return 0;
  }
  return read_direct(f, off, dst, len, err);
}

static int read_direct(pm_file *f, uint64_t off, void *dst, size_t len, pm_error *err) {
  uint8_t *d = dst;
  while (len > 0) {
    size_t got = 0;
    PM_TRY(f->ops->read(f, off, d, len, &got, err));
    if (got == 0)
      return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: file shrank while reading at offset %llu", f->path,
                       (unsigned long long)off);
    if (got > len) got = len;
    d += got;
    off += got;
    len -= got;
  }
  return 0;
}

/* A range read one by one: no vectored read, empty, out of bounds (for the message) or in the window. */
static int plain_range(const pm_file *f, const pm_read_range *r) {
  return !f->ops || !f->ops->read_ranges || r->off > f->size || r->len > f->size - r->off || r->len == 0 ||
         in_window(f, r->off, r->len);
}

int pm_file_read_ranges(pm_file *f, const pm_read_range *ranges, size_t n, pm_error *err) {
  int direct = f->ops && f->ops->read_ranges;
  size_t rest = 0; /* ranges left for the file system's vectored read */
  for (size_t i = 0; i < n; i++) {
    const pm_read_range *r = &ranges[i];
    if (plain_range(f, r))
      PM_TRY(pm_file_read_at(f, r->off, r->dst, r->len, err)); /* or its bounds error */
    else
      rest++;
  }
  if (!direct || !rest) return 0;
  if (rest == n) return f->ops->read_ranges(f, ranges, n, err);
  pm_read_range *left = malloc(rest * sizeof *left);
  if (!left) return PM_NOMEM(err);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (!plain_range(f, &ranges[i])) left[k++] = ranges[i];
  int rc = f->ops->read_ranges(f, left, k, err);
  free(left);
  return rc;
}

int pm_file_prefetch(pm_file *f, uint64_t off, size_t len, pm_error *err) {
  if (!f->ops || off >= f->size) return 0;
  if (len > f->size - off) len = (size_t)(f->size - off);
  if (len == 0 || in_window(f, off, len)) return 0;
  free(f->win);
  f->win = NULL;
  f->win_len = 0;
  uint8_t *w = malloc(len);
  if (!w) return PM_NOMEM(err);
  int rc = read_direct(f, off, w, len, err);
  if (rc) {
    free(w);
    return rc;
  }
  f->win = w;
  f->win_off = off;
  f->win_len = len;
  return 0;
}

/* ---- the output sink ---- */

#define PM_OUT_FLUSH_SIZE (1u << 20)

int pm_out_wrap(const pm_out_ops *ops, void *impl, const char *path, pm_out_file **out, pm_error *err) {
  *out = NULL;
  pm_out_file *f = calloc(1, sizeof *f);
  char *p = pm_strdup(path);
  if (!f || !p) {
    free(f);
    free(p);
    pm_out_file tmp = {.ops = ops, .impl = impl};
    ops->discard(&tmp);
    ops->release(&tmp);
    return PM_NOMEM(err);
  }
  f->ops = ops;
  f->impl = impl;
  f->path = p;
  pm_buf_init(&f->pending);
  *out = f;
  return 0;
}

static int out_flush(pm_out_file *f, pm_error *err) {
  if (f->pending.len == 0) return 0;
  int rc = f->ops->write(f, f->pending.data, f->pending.len, err);
  f->pending.len = 0;
  return rc;
}

int pm_out_write(pm_out_file *f, const void *data, size_t len, pm_error *err) {
  if (len >= PM_OUT_FLUSH_SIZE) { /* large blocks skip the copy */
    PM_TRY(out_flush(f, err));
    f->pos += len;
    return f->ops->write(f, data, len, err);
  }
  if (pm_buf_append(&f->pending, data, len)) return PM_NOMEM(err);
  f->pos += len;
  if (f->pending.len >= PM_OUT_FLUSH_SIZE) return out_flush(f, err);
  return 0;
}

int pm_out_drain(pm_out_file *f, pm_error *err) {
  int rc = out_flush(f, err);
  pm_buf_free(&f->pending);
  pm_buf_init(&f->pending);
  return rc;
}

uint64_t pm_out_pos(const pm_out_file *f) { return f->pos; }
const char *pm_out_path(const pm_out_file *f) { return f->path; }

static void out_free(pm_out_file *f) {
  f->ops->release(f);
  pm_buf_free(&f->pending);
  free(f->path);
  free(f);
}

int pm_out_commit(pm_out_file *f, int mode, pm_error *err) {
  int rc = out_flush(f, err);
  if (rc == 0) rc = f->ops->sync(f, err);
  if (rc == 0) rc = f->ops->publish(f, mode ? PM_OUT_CREATE_IF_ABSENT : PM_OUT_OVERWRITE, err);
  if (rc) f->ops->discard(f);
  out_free(f);
  return rc;
}

void pm_out_abort(pm_out_file *f) {
  if (!f) return;
  f->ops->discard(f);
  out_free(f);
}

/* Memory sink: bytes go straight to the destination; a discard cuts it back to where it began. */
typedef struct mem_sink {
  pm_buf *dst;
  size_t start;
} mem_sink;

static int mem_write(pm_out_file *f, const void *data, size_t len, pm_error *err) {
  mem_sink *m = f->impl;
  return pm_buf_append(m->dst, data, len) ? PM_NOMEM(err) : 0;
}
static int mem_sync(pm_out_file *f, pm_error *err) { return 0; }
static int mem_publish(pm_out_file *f, pm_out_mode mode, pm_error *err) { return 0; }
static void mem_discard(pm_out_file *f) {
  mem_sink *m = f->impl;
  m->dst->len = m->start;
}
static void mem_release(pm_out_file *f) { free(f->impl); }
static const pm_out_ops MEM_OUT_OPS = {mem_write, mem_sync, mem_publish, mem_discard, mem_release};

int pm_out_open_buf(pm_buf *dst, const char *name, pm_out_file **out, pm_error *err) {
  *out = NULL;
  mem_sink *m = calloc(1, sizeof *m);
  if (!m) return PM_NOMEM(err);
  m->dst = dst;
  m->start = dst->len;
  return pm_out_wrap(&MEM_OUT_OPS, m, name ? name : "<memory>", out, err);
}

/* ---- path-only wrappers ---- */

int pm_file_open(const char *path, pm_file **out, pm_error *err) { return pm_fs_open(pm_fs_local(), path, out, err); }

int pm_read_file(const char *path, pm_buf *out, size_t limit, pm_error *err) {
  return pm_fs_read_file(pm_fs_local(), path, out, limit, err);
}

int pm_path_exists(const char *path) {
  int e = 0;
  pm_error err;
  return pm_fs_exists(pm_fs_local(), path, &e, &err) == 0 && e;
}

int pm_list_dir(const char *path, char ***names, size_t *count, pm_error *err) {
  return pm_fs_list(pm_fs_local(), path, NULL, names, count, err);
}

int pm_mkdirs(const char *path, pm_error *err) { return pm_fs_mkdirs(pm_fs_local(), path, err); }

int pm_out_open(const char *path, pm_out_file **out, pm_error *err) {
  return pm_fs_create(pm_fs_local(), path, out, err);
}

int pm_write_file(const char *path, const void *data, size_t len, int no_overwrite, pm_error *err) {
  return pm_fs_write_file(pm_fs_local(), path, data, len, no_overwrite ? PM_OUT_CREATE_IF_ABSENT : PM_OUT_OVERWRITE,
                          err);
}
