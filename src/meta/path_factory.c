/* New file names of a table (meta/path_factory.h). */
#include "meta/path_factory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pm_path_factory_init(pm_path_factory *pf, pm_fs *fs, const char *table_root) {
  pf->fs = fs;
  pf->table_root = table_root;
  pm_uuid_random(pf->uuid);
  atomic_init(&pf->manifests, 0);
  atomic_init(&pf->manifest_lists, 0);
  atomic_init(&pf->index_files, 0);
  atomic_init(&pf->data_files, 0);
  pf->data_prefix = pf->changelog_prefix = NULL;
}

void pm_path_factory_set_prefixes(pm_path_factory *pf, const char *data_prefix, const char *changelog_prefix) {
  pf->data_prefix = data_prefix;
  pf->changelog_prefix = changelog_prefix;
}

static char *make(const char *dir, const char *sub, const char *prefix, const char *uuid, int64_t n, const char *ext) {
  size_t cap = strlen(dir) + (sub ? strlen(sub) : 0) + strlen(prefix) + (ext ? strlen(ext) : 0) + 80;
  char *p = malloc(cap);
  if (!p) return NULL;
  snprintf(p, cap, "%s%s%s/%s%s-%lld%s%s", dir, sub ? "/" : "", sub ? sub : "", prefix, uuid, (long long)n,
           ext ? "." : "", ext ? ext : "");
  return p;
}

char *pm_path_factory_new_manifest(pm_path_factory *pf) {
  return make(pf->table_root, "manifest", "manifest-", pf->uuid, atomic_fetch_add(&pf->manifests, 1), NULL);
}

char *pm_path_factory_new_manifest_list(pm_path_factory *pf) {
  return make(pf->table_root, "manifest", "manifest-list-", pf->uuid, atomic_fetch_add(&pf->manifest_lists, 1), NULL);
}

char *pm_path_factory_new_index_file(pm_path_factory *pf) {
  return make(pf->table_root, "index", "index-", pf->uuid, atomic_fetch_add(&pf->index_files, 1), NULL);
}

char *pm_path_factory_new_data_file(pm_path_factory *pf, const char *bucket_dir, const char *format, int changelog) {
  const char *prefix = changelog ? (pf->changelog_prefix ? pf->changelog_prefix : "changelog-")
                                 : (pf->data_prefix ? pf->data_prefix : "data-");
  return make(bucket_dir, NULL, prefix, pf->uuid, atomic_fetch_add(&pf->data_files, 1), format);
}
