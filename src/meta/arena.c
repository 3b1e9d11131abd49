/* Bump allocator (see arena.h). */
#include "meta/arena.h"

#include <pthread.h>
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

/* Process-wide cache of freed full-size chunks and large buffers. Decoding a
 * big manifest touches tens of MB; handing those pages back to the kernel and
 * faulting fresh zeroed ones for the next manifest cost more than decoding
 * (page faults were ~40% of the time). Bounded by PM_ARENA_CACHE_BYTES. */
#define BIG_SLOTS 4
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static pm_arena_chunk *cache_chunks; /* all of size MAX_CHUNK */
static size_t cache_bytes;
static struct {
  void *p;
  size_t size;
} cache_big[BIG_SLOTS];

static pm_arena_chunk *cache_take_chunk(void) {
  pthread_mutex_lock(&cache_lock);
  pm_arena_chunk *c = cache_chunks;
  if (c) {
    cache_chunks = c->next;
    cache_bytes -= CHUNK_HDR + c->size;
  }
  pthread_mutex_unlock(&cache_lock);
  return c;
}

/* Returns the chunks of list that did not fit the cache. */
static pm_arena_chunk *cache_give_chunks(pm_arena_chunk *list) {
  pm_arena_chunk *rest = NULL;
  pthread_mutex_lock(&cache_lock);
  while (list) {
    pm_arena_chunk *n = list->next;
    if (list->size == MAX_CHUNK && cache_bytes + CHUNK_HDR + MAX_CHUNK <= PM_ARENA_CACHE_BYTES) {
      list->next = cache_chunks;
      cache_chunks = list;
      cache_bytes += CHUNK_HDR + MAX_CHUNK;
    } else {
      list->next = rest;
      rest = list;
    }
    list = n;
  }
  pthread_mutex_unlock(&cache_lock);
  return rest;
}

void pm_arena_init(pm_arena *a) { memset(a, 0, sizeof(*a)); }

void pm_arena_free(pm_arena *a) {
  pm_arena_chunk *c = cache_give_chunks(a->head);
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
    if (sz > MAX_CHUNK) sz = MAX_CHUNK; /* moderate chunks: reusable through the cache */
    if (sz < need) sz = need;
    if (sz > SIZE_MAX - CHUNK_HDR) return NULL;
    pm_arena_chunk *c = sz == MAX_CHUNK ? cache_take_chunk() : NULL;
    if (!c) {
      c = malloc(CHUNK_HDR + sz);
      if (!c) return NULL;
      c->size = sz;
    }
    c->next = a->head;
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

void *pm_big_alloc(size_t n, size_t *got) {
  if (n >= PM_BIG_MIN_BYTES) {
    void *p = NULL;
    size_t best = 0;
    pthread_mutex_lock(&cache_lock);
    int pick = -1;
    for (int i = 0; i < BIG_SLOTS; i++) /* smallest cached buffer that fits */
      if (cache_big[i].p && cache_big[i].size >= n && (pick < 0 || cache_big[i].size < best)) {
        pick = i;
        best = cache_big[i].size;
      }
    if (pick >= 0) {
      p = cache_big[pick].p;
      cache_big[pick].p = NULL;
      cache_bytes -= best;
    }
    pthread_mutex_unlock(&cache_lock);
    if (p) {
      *got = best;
      return p;
    }
  }
  void *p = malloc(n ? n : 1);
  *got = p ? n : 0;
  return p;
}

void pm_big_free(void *p, size_t size) {
  if (!p) return;
  if (size >= PM_BIG_MIN_BYTES) {
    pthread_mutex_lock(&cache_lock);
    int slot = -1;
    for (int i = 0; i < BIG_SLOTS && slot < 0; i++)
      if (!cache_big[i].p) slot = i;
    if (slot >= 0 && cache_bytes + size <= PM_ARENA_CACHE_BYTES) {
      cache_big[slot].p = p;
      cache_big[slot].size = size;
      cache_bytes += size;
      p = NULL;
    }
    pthread_mutex_unlock(&cache_lock);
  }
  free(p);
}

void pm_arena_cache_trim(void) {
  pthread_mutex_lock(&cache_lock);
  pm_arena_chunk *c = cache_chunks;
  cache_chunks = NULL;
  void *big[BIG_SLOTS];
  for (int i = 0; i < BIG_SLOTS; i++) {
    big[i] = cache_big[i].p;
    cache_big[i].p = NULL;
  }
  cache_bytes = 0;
  pthread_mutex_unlock(&cache_lock);
  while (c) {
    pm_arena_chunk *n = c->next;
    free(c);
    c = n;
  }
  for (int i = 0; i < BIG_SLOTS; i++) free(big[i]);
}
