/* Growable byte buffer. Memory is 64-byte aligned so it can become an Arrow buffer. */
#ifndef PM_UTIL_BUF_H
#define PM_UTIL_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/error.h"

typedef struct pm_buf {
  uint8_t *data; /* owned; allocate with pm_aligned_alloc, free with pm_aligned_free */
  size_t len;
  size_t cap;
} pm_buf;

/* 64-byte aligned allocation (Arrow recommends 64). Returns NULL on failure or overflow. */
void *pm_aligned_alloc(size_t size);
void *pm_aligned_realloc(void *p, size_t old_size, size_t new_size);
void pm_aligned_free(void *p);

void pm_buf_init(pm_buf *b);
void pm_buf_free(pm_buf *b);
/* Ensures room for `extra` more bytes. Returns 0 or PAIMON_ERR_NOMEM. */
int pm_buf_reserve(pm_buf *b, size_t extra);
int pm_buf_append(pm_buf *b, const void *src, size_t n);
int pm_buf_append_zeros(pm_buf *b, size_t n);
/* Takes ownership of the bytes out of b (b becomes empty). Caller frees with pm_aligned_free. */
uint8_t *pm_buf_detach(pm_buf *b, size_t *len);

static inline int pm_buf_push_u8(pm_buf *b, uint8_t v) {
  if (b->len == b->cap && pm_buf_reserve(b, 1)) return PAIMON_ERR_NOMEM;
  b->data[b->len++] = v;
  return 0;
}

#endif
