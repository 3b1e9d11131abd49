/* The generic side of the file-system seam (io/fs.h): reference counting,
 * sorting listings, exists on top of stat, whole-file helpers. */
#include "io/fs.h"

#include <stdlib.h>
#include <string.h>

#include "io/fs_impl.h"

int pm_fs_new(const pm_fs_ops *ops, void *state, pm_fs **out, pm_error *err) {
  *out = NULL;
  pm_fs *fs = calloc(1, sizeof *fs);
  if (!fs) return PM_NOMEM(err);
  fs->ops = ops;
  fs->state = state;
  atomic_init(&fs->refs, 1);
  *out = fs;
  return 0;
}

pm_fs *pm_fs_ref(pm_fs *fs) {
  if (fs && atomic_load(&fs->refs) >= 0) atomic_fetch_add(&fs->refs, 1);
  return fs;
}

void pm_fs_unref(pm_fs *fs) {
  if (!fs || atomic_load(&fs->refs) < 0) return;
  if (atomic_fetch_sub(&fs->refs, 1) != 1) return;
  if (fs->ops->destroy) fs->ops->destroy(fs);
  free(fs);
}

const char *pm_fs_name(const pm_fs *fs) { return fs->ops->name; }

int pm_fs_open(pm_fs *fs, const char *path, pm_file **out, pm_error *err) {
  *out = NULL;
  return fs->ops->open(fs, path, out, err);
}

int pm_fs_create(pm_fs *fs, const char *path, pm_out_file **out, pm_error *err) {
  *out = NULL;
  return fs->ops->create(fs, path, out, err);
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int pm_fs_list(pm_fs *fs, const char *dir, const char *prefix, char ***names, size_t *count, pm_error *err) {
  *names = NULL;
  *count = 0;
  if (prefix && !*prefix) prefix = NULL;
  PM_TRY(fs->ops->list(fs, dir, prefix, names, count, err));
  if (*count > 1) qsort(*names, *count, sizeof **names, cmp_names);
  return 0;
}

int pm_fs_stat(pm_fs *fs, const char *path, pm_file_stat *st, pm_error *err) {
  memset(st, 0, sizeof *st);
  return fs->ops->stat(fs, path, st, err);
}

int pm_fs_exists(pm_fs *fs, const char *path, int *exists, pm_error *err) {
  pm_file_stat st;
  pm_error e2;
  *exists = 0;
  int rc = pm_fs_stat(fs, path, &st, &e2);
  if (rc == 0) *exists = 1;
  else if (rc != PAIMON_ERR_NOT_FOUND) return pm_errorf(err, rc, "%s", e2.message);
  return 0;
}

int pm_fs_delete(pm_fs *fs, const char *path, pm_error *err) { return fs->ops->remove(fs, path, err); }
int pm_fs_mkdirs(pm_fs *fs, const char *path, pm_error *err) { return fs->ops->mkdirs(fs, path, err); }
int pm_fs_rename(pm_fs *fs, const char *from, const char *to, pm_error *err) {
  return fs->ops->rename(fs, from, to, err);
}

int pm_fs_read_file(pm_fs *fs, const char *path, pm_buf *out, size_t limit, pm_error *err) {
  if (limit == 0) limit = (size_t)1 << 30;
  pm_file *f;
  PM_TRY(pm_fs_open(fs, path, &f, err));
  uint64_t size = pm_file_size(f);
  int rc = 0;
  if (size > limit) {
    rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: file of %llu bytes exceeds limit %zu", path,
                   (unsigned long long)size, limit);
  } else if (pm_buf_reserve(out, (size_t)size + 1)) {
    rc = PM_NOMEM(err);
  } else {
    rc = pm_file_read_at(f, 0, out->data + out->len, (size_t)size, err);
    if (rc == 0) {
      out->len += (size_t)size;
      out->data[out->len] = 0; /* convenient for text parsers; not counted in len */
    }
  }
  pm_file_close(f);
  return rc;
}

int pm_fs_write_file(pm_fs *fs, const char *path, const void *data, size_t len, pm_out_mode mode, pm_error *err) {
  pm_out_file *f;
  PM_TRY(pm_fs_create(fs, path, &f, err));
  int rc = pm_out_write(f, data, len, err);
  if (rc) {
    pm_out_abort(f);
    return rc;
  }
  return pm_out_commit(f, mode, err);
}

void pm_free_names(char **names, size_t count) {
  if (!names) return;
  for (size_t i = 0; i < count; i++) free(names[i]);
  free(names);
}
