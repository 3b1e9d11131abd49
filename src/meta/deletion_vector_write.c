/* A bucket's deletion vectors as Java's BucketedDvMaintainer (deletion_vector_write.h). */
#include "meta/deletion_vector_write.h"

#include <stdlib.h>
#include <string.h>

#include "meta/java_hashmap.h"

typedef struct dv_entry {
  char *name;
  pm_deletion_vector *dv;
} dv_entry;

struct pm_dv_maintainer {
  int bitmap64;
  int modified;
  pm_jmap order; /* Java's HashMap key order */
  dv_entry *items;
  size_t n, cap;
};

int pm_dv_maintainer_new(int bitmap64, pm_dv_maintainer **out, pm_error *err) {
  pm_dv_maintainer *m = calloc(1, sizeof *m);
  if (!m) return PM_NOMEM(err);
  m->bitmap64 = bitmap64 ? 1 : 0;
  pm_jmap_init(&m->order);
  *out = m;
  return 0;
}

void pm_dv_maintainer_free(pm_dv_maintainer *m) {
  if (!m) return;
  for (size_t i = 0; i < m->n; i++) {
    free(m->items[i].name);
    pm_dv_free(m->items[i].dv);
  }
  free(m->items);
  pm_jmap_clear(&m->order);
  free(m);
}

static ptrdiff_t find(const pm_dv_maintainer *m, const char *name) {
  for (size_t i = 0; i < m->n; i++)
    if (!strcmp(m->items[i].name, name)) return (ptrdiff_t)i;
  return -1;
}

/* Sets name's vector (taking dv), replacing an existing one. */
static int set_dv(pm_dv_maintainer *m, const char *name, pm_deletion_vector *dv, pm_error *err) {
  ptrdiff_t i = find(m, name);
  if (i >= 0) {
    pm_dv_free(m->items[i].dv);
    m->items[i].dv = dv;
    return 0;
  }
  if (m->n == m->cap) {
    size_t cap = m->cap ? 2 * m->cap : 8;
    dv_entry *ni = realloc(m->items, cap * sizeof *ni);
    if (!ni) {
      pm_dv_free(dv);
      return PM_NOMEM(err);
    }
    m->items = ni;
    m->cap = cap;
  }
  char *copy = strdup(name);
  if (!copy) {
    pm_dv_free(dv);
    return PM_NOMEM(err);
  }
  m->items[m->n].name = copy;
  m->items[m->n].dv = dv;
  m->n++;
  return 0;
}

int pm_dv_maintainer_restore(pm_fs *fs, const pm_index_file_meta *files, const char *const *paths, size_t n,
                             int bitmap64, pm_dv_maintainer **out, pm_error *err) {
  *out = NULL;
  pm_dv_maintainer *m = NULL;
  PM_TRY(pm_dv_maintainer_new(bitmap64, &m, err));
  pm_jmap all; /* readAllDeletionVectors: new HashMap, putAll of each file's map */
  pm_jmap_init(&all);
  int rc = 0;
  for (size_t f = 0; !rc && f < n; f++) {
    const pm_index_file_meta *im = &files[f];
    if (!im->index_type || strcmp(im->index_type, PM_INDEX_TYPE_DV) != 0)
      rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: not a deletion vector index file (%s)", paths[f],
                     im->index_type ? im->index_type : "no type");
    if (!rc && im->dv_ranges_is_null)
      rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: deletion vector index entry without dv ranges", paths[f]);
    pm_jmap per_file;
    pm_jmap_init(&per_file);
    for (int32_t r = 0; !rc && r < im->n_dv_ranges; r++) {
      const pm_dv_range *dr = &im->dv_ranges[r];
      pm_deletion_vector *dv = NULL;
      rc = pm_dv_read(fs, paths[f], dr->offset, dr->length, &dv, err);
      if (!rc) rc = set_dv(m, dr->data_file_name, dv, err);
      if (!rc) rc = pm_jmap_put(&per_file, dr->data_file_name, err);
    }
    if (!rc) rc = pm_jmap_put_all(&all, &per_file, err);
    pm_jmap_clear(&per_file);
  }
  if (!rc) rc = pm_jmap_copy(&all, &m->order, err); /* new HashMap<>(restored) */
  pm_jmap_clear(&all);
  if (rc) {
    pm_dv_maintainer_free(m);
    return rc;
  }
  *out = m;
  return 0;
}

int pm_dv_maintainer_delete(pm_dv_maintainer *m, const char *data_file, int64_t position, pm_error *err) {
  ptrdiff_t i = find(m, data_file);
  if (i < 0) {
    pm_deletion_vector *dv = NULL;
    PM_TRY(pm_dv_new(m->bitmap64, &dv, err));
    PM_TRY(set_dv(m, data_file, dv, err));
    PM_TRY(pm_jmap_compute_if_absent(&m->order, data_file, err));
    i = (ptrdiff_t)m->n - 1;
  }
  pm_deletion_vector *dv = m->items[i].dv;
  if (pm_dv_is_deleted(dv, position)) return 0;
  PM_TRY(pm_dv_add(dv, position, err));
  m->modified = 1;
  return 0;
}

void pm_dv_maintainer_remove(pm_dv_maintainer *m, const char *data_file) {
  ptrdiff_t i = find(m, data_file);
  if (i < 0) return;
  free(m->items[i].name);
  pm_dv_free(m->items[i].dv);
  m->items[i] = m->items[--m->n];
  pm_jmap_remove(&m->order, data_file);
  m->modified = 1;
}

const pm_deletion_vector *pm_dv_maintainer_get(const pm_dv_maintainer *m, const char *data_file) {
  ptrdiff_t i = find(m, data_file);
  return i < 0 ? NULL : m->items[i].dv;
}

size_t pm_dv_maintainer_count(const pm_dv_maintainer *m) { return m->n; }
int pm_dv_maintainer_modified(const pm_dv_maintainer *m) { return m->modified; }

int pm_dv_maintainer_encode(const pm_dv_maintainer *m, const char *file_name, pm_buf *image, pm_arena *arena,
                            pm_index_file_meta *meta, pm_error *err) {
  const char **order = NULL;
  PM_TRY(pm_jmap_order(&m->order, &order, err));
  size_t n = m->order.n;
  const pm_deletion_vector **dvs = malloc((n ? n : 1) * sizeof *dvs);
  int rc = dvs ? 0 : PM_NOMEM(err);
  for (size_t i = 0; !rc && i < n; i++) {
    ptrdiff_t k = find(m, order[i]);
    if (k < 0) rc = pm_errorf(err, PAIMON_ERR_INTERNAL, "deletion vector of %s missing", order[i]);
    else dvs[i] = m->items[k].dv;
  }
  if (!rc) rc = pm_dv_index_file_encode(file_name, (const char *const *)order, (const pm_deletion_vector *const *)dvs, n,
                                       image, arena, meta, err);
  free(dvs);
  free(order);
  return rc;
}

int pm_dv_maintainer_write(pm_dv_maintainer *m, pm_fs *fs, const char *path, pm_arena *arena,
                           pm_index_file_meta *meta, int *written, pm_error *err) {
  *written = 0;
  if (!m->modified) return 0;
  const char *slash = strrchr(path, '/');
  const char *name = slash ? slash + 1 : path;
  pm_buf image;
  pm_buf_init(&image);
  int rc = pm_dv_maintainer_encode(m, name, &image, arena, meta, err);
  /* Java's DeletionFileWriter overwrites; the name is new (uuid + counter) */
  if (!rc) rc = pm_fs_write_file(fs, path, image.data, image.len, PM_OUT_OVERWRITE, err);
  pm_buf_free(&image);
  if (rc) return rc;
  m->modified = 0;
  *written = 1;
  return 0;
}
