/*
 * Test helper: a writable copy of a read-only directory tree (a Java-written
 * fixture table or warehouse under ../shared/fixtures, or a table a test set
 * up once and copies per case). The fixtures are never written in place.
 */
#ifndef PM_TEST_SUPPORT_FIXTURE_COPY_H
#define PM_TEST_SUPPORT_FIXTURE_COPY_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Replaces dst by a copy of the directory src (dst's parent is created) and
 * makes the copy writable. Paths must not contain a single quote. Returns 0
 * on success, -1 when a path is too long or a command failed. */
static inline int fc_copy_tree(const char *src, const char *dst) {
  if (strchr(src, '\'') || strchr(dst, '\'')) return -1;
  size_t need = 4 * strlen(dst) + strlen(src) + 96;
  char *cmd = malloc(need);
  if (!cmd) return -1;
  int n = snprintf(cmd, need, "rm -rf '%s' && mkdir -p \"$(dirname '%s')\" && cp -r '%s' '%s' && chmod -R u+w '%s'",
                   dst, dst, src, dst, dst);
  int rc = (n < 0 || (size_t)n >= need) ? -1 : (system(cmd) == 0 ? 0 : -1);
  free(cmd);
  return rc;
}

/* fc_copy_tree of PAIMON_SHARED_DIR/fixtures/warehouse/<rel> (e.g.
 * "parquet/append_09.db/append_09") to dst. */
static inline int fc_copy_fixture(const char *rel, const char *dst) {
  size_t need = strlen(PAIMON_SHARED_DIR) + strlen(rel) + 32;
  char *src = malloc(need);
  if (!src) return -1;
  snprintf(src, need, "%s/fixtures/warehouse/%s", PAIMON_SHARED_DIR, rel);
  int rc = fc_copy_tree(src, dst);
  free(src);
  return rc;
}

/* Replaces dst by a copy of src keeping the files' modification times (cp -rp: tests whose
 * operation looks at file ages, e.g. orphan cleanup's older-than). 0 or -1 as fc_copy_tree. */
static inline int fc_copy_tree_keep_times(const char *src, const char *dst) {
  if (strchr(src, '\'') || strchr(dst, '\'')) return -1;
  size_t need = 2 * strlen(dst) + strlen(src) + 48;
  char *cmd = malloc(need);
  if (!cmd) return -1;
  int n = snprintf(cmd, need, "rm -rf '%s' && cp -rp '%s' '%s'", dst, src, dst);
  int rc = (n < 0 || (size_t)n >= need) ? -1 : (system(cmd) == 0 ? 0 : -1);
  free(cmd);
  return rc;
}

/* A fingerprint of the tree under dir to compare its states: "md5  ./relative/path" lines, sorted
 * by path (skip_hidden: without files whose name starts with '.', e.g. checksum side files).
 * Malloc'd (free), NULL when dir's path holds a single quote or memory ran out; at most 1 MiB. */
static inline char *fc_tree_digest(const char *dir, int skip_hidden) {
  if (strchr(dir, '\'')) return NULL;
  size_t need = strlen(dir) + 96;
  char *cmd = malloc(need);
  char *s = calloc(1, 1 << 20);
  if (!cmd || !s) {
    free(cmd);
    free(s);
    return NULL;
  }
  snprintf(cmd, need, "cd '%s' && find . -type f %s| sort | xargs md5sum", dir, skip_hidden ? "! -name '.*' " : "");
  FILE *p = popen(cmd, "r");
  size_t n = p ? fread(s, 1, (1 << 20) - 1, p) : 0;
  s[n] = 0;
  if (p) pclose(p);
  free(cmd);
  return s;
}

#endif
