#include "util/buf.h"

#include <stdlib.h>

#define PM_ALIGN 64

void *pm_aligned_alloc(size_t size) {
  if (size == 0) size = PM_ALIGN;
  if (size > SIZE_MAX - PM_ALIGN) return NULL;
  void *p = NULL;
  if (posix_memalign(&p, PM_ALIGN, size) != 0) return NULL;
  return p;
}

void *pm_aligned_realloc(void *p, size_t old_size, size_t new_size) {
  void *q = pm_aligned_alloc(new_size);
  if (!q) return NULL;
  if (p) {
    memcpy(q, p, old_size < new_size ? old_size : new_size);
    free(p);
  }
  return q;
}

void pm_aligned_free(void *p) { free(p); }

void pm_buf_init(pm_buf *b) {
  b->data = NULL;
  b->len = 0;
  b->cap = 0;
}

void pm_buf_free(pm_buf *b) {
  pm_aligned_free(b->data);
  pm_buf_init(b);
}

int pm_buf_reserve(pm_buf *b, size_t extra) {
  if (extra > SIZE_MAX - b->len) return PAIMON_ERR_NOMEM;
  size_t need = b->len + extra;
  if (need <= b->cap) return 0;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < need) {
    if (cap > SIZE_MAX / 2) {
      cap = need;
      break;
    }
    cap *= 2;
  }
  uint8_t *d = pm_aligned_realloc(b->data, b->len, cap);
  if (!d) return PAIMON_ERR_NOMEM;
  b->data = d;
  b->cap = cap;
  return 0;
}

int pm_buf_append(pm_buf *b, const void *src, size_t n) {
  if (n == 0) return 0;
  if (pm_buf_reserve(b, n)) return PAIMON_ERR_NOMEM;
  memcpy(b->data + b->len, src, n);
  b->len += n;
  return 0;
}

int pm_buf_append_zeros(pm_buf *b, size_t n) {
  if (n == 0) return 0;
  if (pm_buf_reserve(b, n)) return PAIMON_ERR_NOMEM;
  memset(b->data + b->len, 0, n);
  b->len += n;
  return 0;
}

uint8_t *pm_buf_detach(pm_buf *b, size_t *len) {
  uint8_t *d = b->data;
  if (len) *len = b->len;
  pm_buf_init(b);
  return d;
}
