/* Helpers for the Parquet writer tests: tiny Arrow builders and the oracle
 * tools (parquet-check, parquet-dump --canon) run on written files. */
#ifndef PM_TEST_WRITE_UTIL_H
#define PM_TEST_WRITE_UTIL_H

#include <stdarg.h>
#include <unistd.h>

#include "arrow/arrow.h"
#include "format/parquet/parquet_writer.h"
#include "harness.h"
#include "util/buf.h"

/* ---- schema ---- */
static inline struct ArrowSchema *tw_schema(struct ArrowSchema *s, const char *fmt, const char *name, int nullable,
                                     int nchild) {
  pm_error err;
  if (pm_schema_init(s, fmt, name, nullable ? ARROW_FLAG_NULLABLE : 0, nchild, &err)) abort();
  return s;
}

static inline void tw_field_id(struct ArrowSchema *s, int id) {
  char v[32];
  snprintf(v, sizeof v, "%d", id);
  const char *k[1] = {"PARQUET:field_id"};
  const char *vv[1] = {v};
  pm_error err;
  if (pm_schema_set_metadata(s, 1, k, vv, &err)) abort();
}

/* ---- arrays ---- */
/* valid: NULL = all valid, else a string of '1'/'0' of length n. */
static inline void tw_validity(struct ArrowArray *a, int64_t n, const char *valid) {
  if (!valid) return;
  uint8_t *bits = pm_aligned_alloc((size_t)(n + 7) / 8 + 1);
  memset(bits, 0, (size_t)(n + 7) / 8 + 1);
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; i++) {
    if (valid[i] == '1') pm_bit_set(bits, i);
    else nulls++;
  }
  pm_array_set_buffer(a, 0, bits);
  a->null_count = nulls;
}

static inline void tw_prim(struct ArrowArray *a, int64_t n, const void *values, size_t width, const char *valid) {
  pm_error err;
  if (pm_array_init(a, n, 2, 0, &err)) abort();
  void *d = pm_aligned_alloc(n * width + 1);
  memcpy(d, values, n * width);
  pm_array_set_buffer(a, 1, d);
  tw_validity(a, n, valid);
}

static inline void tw_bool(struct ArrowArray *a, int64_t n, const int *values, const char *valid) {
  pm_error err;
  if (pm_array_init(a, n, 2, 0, &err)) abort();
  uint8_t *bits = pm_aligned_alloc((size_t)(n + 7) / 8 + 1);
  memset(bits, 0, (size_t)(n + 7) / 8 + 1);
  for (int64_t i = 0; i < n; i++)
    if (values[i]) pm_bit_set(bits, i);
  pm_array_set_buffer(a, 1, bits);
  tw_validity(a, n, valid);
}

/* strings: vals[i] NULL = null; lens may be NULL (strlen). */
static inline void tw_str(struct ArrowArray *a, int64_t n, const char *const *vals, const size_t *lens) {
  pm_error err;
  if (pm_array_init(a, n, 3, 0, &err)) abort();
  int32_t *off = pm_aligned_alloc((size_t)(n + 1) * 4);
  size_t total = 0;
  for (int64_t i = 0; i < n; i++) total += vals[i] ? (lens ? lens[i] : strlen(vals[i])) : 0;
  uint8_t *data = pm_aligned_alloc(total + 1);
  char *valid = malloc((size_t)n + 1);
  size_t pos = 0;
  off[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    size_t l = vals[i] ? (lens ? lens[i] : strlen(vals[i])) : 0;
    if (l) memcpy(data + pos, vals[i], l);
    pos += l;
    off[i + 1] = (int32_t)pos;
    valid[i] = vals[i] ? '1' : '0';
  }
  valid[n] = 0;
  pm_array_set_buffer(a, 1, off);
  pm_array_set_buffer(a, 2, data);
  tw_validity(a, n, valid);
  free(valid);
}

/* list/map: offsets has n+1 entries; one child to fill by the caller (a->children[0]). */
static inline void tw_list(struct ArrowArray *a, int64_t n, const int32_t *offsets, const char *valid) {
  pm_error err;
  if (pm_array_init(a, n, 2, 1, &err)) abort();
  int32_t *off = pm_aligned_alloc((size_t)(n + 1) * 4);
  memcpy(off, offsets, (size_t)(n + 1) * 4);
  pm_array_set_buffer(a, 1, off);
  tw_validity(a, n, valid);
}

static inline void tw_struct(struct ArrowArray *a, int64_t n, int nchild, const char *valid) {
  pm_error err;
  if (pm_array_init(a, n, 1, nchild, &err)) abort();
  tw_validity(a, n, valid);
}

/* ---- oracles ---- */
static char tw_dir[256];
static char tw_last_sha[80]; /* sha256 printed by the last tw_check */
static char tw_last_check[4096]; /* output of the last tw_check */

/* Path of a scratch file; the last 8 results stay valid. */
static inline const char *tw_path(const char *name) {
  static char slots[8][512];
  static int next;
  char *p = slots[next++ % 8];
  if (!tw_dir[0]) {
    snprintf(tw_dir, sizeof tw_dir, "/tmp/pm_test_write_%d", (int)getpid());
    char cmd[300];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", tw_dir);
    if (system(cmd) != 0) abort();
  }
  snprintf(p, sizeof slots[0], "%s/%s", tw_dir, name);
  return p;
}

static inline void tw_cleanup(void) {
  if (tw_dir[0]) {
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tw_dir);
    if (system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
  }
}

/* Runs parquet-check; returns 1 when it says OK. */
static inline int tw_check(const char *file) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "%s/tools/parquet-check '%s' -v > %s/check.out 2>&1", PAIMON_SHARED_DIR, file, tw_dir);
  int rc = system(cmd);
  char out[4096] = {0};
  snprintf(cmd, sizeof cmd, "%s/check.out", tw_dir);
  FILE *f = fopen(cmd, "r");
  if (f) {
    size_t n = fread(out, 1, sizeof out - 1, f);
    out[n] = 0;
    fclose(f);
  }
  snprintf(tw_last_check, sizeof tw_last_check, "%s", out);
  tw_last_sha[0] = 0;
  const char *sh = strstr(out, "sha256=");
  if (sh) {
    size_t k = 0;
    sh += 7;
    while (k + 1 < sizeof tw_last_sha && sh[k] && sh[k] != ' ') {
      tw_last_sha[k] = sh[k];
      k++;
    }
    tw_last_sha[k] = 0;
  }
  if (rc != 0 || strncmp(out, "OK", 2) != 0) {
    fprintf(stderr, "parquet-check %s failed:\n%s\n", file, out);
    return 0;
  }
  return 1;
}

/* Output of `parquet-dump FILE <mode>` (malloc'd). */
static inline char *tw_dump(const char *file, const char *mode) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "%s/tools/parquet-dump '%s' %s 2>&1", PAIMON_SHARED_DIR, file, mode);
  FILE *p = popen(cmd, "r");
  if (!p) return NULL;
  pm_buf b;
  pm_buf_init(&b);
  char tmp[4096];
  size_t n;
  while ((n = fread(tmp, 1, sizeof tmp, p)) > 0) pm_buf_append(&b, tmp, n);
  pclose(p);
  char *s = malloc(b.len + 1);
  if (b.len) memcpy(s, b.data, b.len);
  s[b.len] = 0;
  pm_buf_free(&b);
  return s;
}

/* Checks the canonical rows equal `expected` (lines joined with '\n', trailing newline). */
static inline int tw_canon_equals(const char *file, const char *expected) {
  char *got = tw_dump(file, "--canon");
  int ok = got && strcmp(got, expected) == 0;
  if (!ok) fprintf(stderr, "canon mismatch for %s\n--- expected\n%s--- got\n%s", file, expected, got ? got : "(null)");
  free(got);
  return ok;
}

#endif
