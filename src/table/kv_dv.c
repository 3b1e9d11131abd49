/* Deletion vectors of primary-key buckets on the write side (kv_dv.h). */
#include "table/kv_dv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/fs.h"

int pm_kv_dv_index_entries(pm_table *t, const pm_snapshot *snap, pm_index_entries *out, pm_error *err) {
  pm_index_entries_init(out);
  if (!snap || !snap->index_manifest) return 0;
  char sub[1024];
  snprintf(sub, sizeof sub, "manifest/%s", snap->index_manifest);
  char *p = pm_table_root_path(t, sub);
  if (!p) return PM_NOMEM(err);
  int rc = pm_index_manifest_read(t->fs, p, out, err);
  if (rc) pm_error_prefix(err, "index manifest %s", p);
  free(p);
  return rc;
}

int pm_kv_dv_restore(pm_table *t, const pm_index_entries *idx, pm_bytes partition, int32_t bucket,
                     const char *bucket_dir, pm_dv_maintainer **out, pm_error *err) {
  *out = NULL;
  size_t n = 0;
  for (size_t i = 0; idx && i < idx->n; i++) {
    const pm_index_manifest_entry *e = &idx->items[i];
    n += e->bucket == bucket && e->partition.len == partition.len &&
         (!partition.len || !memcmp(e->partition.data, partition.data, partition.len)) && e->index_file.index_type &&
         !strcmp(e->index_file.index_type, PM_INDEX_TYPE_DV);
  }
  pm_index_file_meta *files = calloc(n + 1, sizeof *files);
  char **paths = calloc(n + 1, sizeof *paths);
  int rc = files && paths ? 0 : PM_NOMEM(err);
  size_t k = 0;
  for (size_t i = 0; !rc && idx && i < idx->n; i++) {
    const pm_index_manifest_entry *e = &idx->items[i];
    if (e->bucket != bucket || e->partition.len != partition.len ||
        (partition.len && memcmp(e->partition.data, partition.data, partition.len)) || !e->index_file.index_type ||
        strcmp(e->index_file.index_type, PM_INDEX_TYPE_DV) != 0)
      continue;
    files[k] = e->index_file;
    rc = pm_table_index_file_path(t, bucket_dir, e->index_file.file_name, e->index_file.external_path, &paths[k], err);
    k++;
  }
  if (!rc) rc = pm_dv_maintainer_restore(t->fs, files, (const char *const *)paths, k, t->co.dv_bitmap64, out, err);
  for (size_t i = 0; paths && i < k; i++) free(paths[i]);
  free(paths);
  free(files);
  return rc;
}

int pm_kv_dv_write(pm_table *t, pm_dv_maintainer *m, pm_path_factory *pf, const char *bucket_dir, pm_arena *arena,
                   pm_index_file_meta *meta, int *written, pm_error *err) {
  *written = 0;
  if (!pm_dv_maintainer_modified(m)) return 0;
  char *fresh = pm_path_factory_new_index_file(pf);
  if (!fresh) return PM_NOMEM(err);
  const char *slash = strrchr(fresh, '/');
  char *path = NULL;
  int rc = pm_table_index_file_path(t, bucket_dir, slash ? slash + 1 : fresh, NULL, &path, err);
  free(fresh);
  if (rc) return rc;
  char *dir = strdup(path);
  if (!dir) rc = PM_NOMEM(err);
  char *ds = dir ? strrchr(dir, '/') : NULL;
  if (ds) *ds = 0;
  if (!rc && ds) rc = pm_fs_mkdirs(t->fs, dir, err);
  free(dir);
  if (!rc) rc = pm_dv_maintainer_write(m, t->fs, path, arena, meta, written, err);
  if (rc) {
    pm_error e2;
    pm_fs_delete(t->fs, path, &e2); /* a publish the fs reported failed may still have happened */
  }
  free(path);
  return rc;
}
