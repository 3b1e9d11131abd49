/* Bump allocator (see arena.h). */
#include "meta/arena.h"

#include <stdlib.h>
#include <string.h>

struct pm_arena_chunk {
  pm_arena_chunk *next;
  size_t size;
  /* data follows, 8-aligned */
};

#define CHUNK_HDR ((sizeof(pm_arena_chunk) + 15) & ~(size_t)15)
#define MIN_CHUNK (64 * 1024)
#define MAX_CHUNK (1024 * 1024)

void pm_arena_init(pm_arena *a) { memset(a, 0, sizeof(*a)); }

void pm_arena_free(pm_arena *a) {
  pm_arena_chunk *c = a->head;
  while (c) {
    pm_arena_chunk *n = c->next;
    free(c);
    c = n;
  }
  memset(a, 0, sizeof(*a));
}

void *pm_arena_alloc(pm_arena *a, size_t n) {
  size_t need = (n + 7) & ~(size_t)7;
  if (need < n) return NULL;
  if (!a->ptr || (size_t)(a->end - a->ptr) < need) {
    size_t sz = a->total < MIN_CHUNK ? MIN_CHUNK : a->total; /* grow geometrically */
    if (sz > MAX_CHUNK) sz = MAX_CHUNK; /* moderate chunks: malloc keeps them for reuse after free */
    if (sz < need) sz = need;
    if (sz > SIZE_MAX - CHUNK_HDR) return NULL;
    pm_arena_chunk *c = malloc(CHUNK_HDR + sz);
    if (!c) return NULL;
    c->next = a->head;
    c->size = sz;
    a->head = c;
    a->ptr = (uint8_t *)c + CHUNK_HDR;
    a->end = a->ptr + sz;
    a->total += sz;
  }
  void *p = a->ptr;
  a->ptr += need;
  return p;
}

void *pm_arena_memdup(pm_arena *a, const void *src, size_t n) {
  void *p = pm_arena_alloc(a, n);
  if (p && n) memcpy(p, src, n);
  return p;
}

char *pm_arena_strndup(pm_arena *a, const char *src, size_t n) {
  char *p = pm_arena_alloc(a, n + 1);
  if (!p) return NULL;
  if (n) memcpy(p, src, n);
  p[n] = 0;
  return p;
}

char *pm_arena_strdup(pm_arena *a, const char *src) { return pm_arena_strndup(a, src, strlen(src)); }
