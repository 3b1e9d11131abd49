/* Bump allocator (see arena.h). */
#include "meta/arena.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

struct pm_arena_chunk {
  pm_arena_chunk *next;
  size_t size;
  /* data follows, 8-aligned */
};

#define CHUNK_HDR ((sizeof(pm_arena_chunk) + 15) & ~(size_t)15)
#define MIN_CHUNK (64 * 1024)
#define HUGE_PAGE ((size_t)2 << 20)
#define MAX_CHUNK (HUGE_PAGE - CHUNK_HDR)

/* A cache of freed full-size chunks and large buffers, shared by the arenas
 * and containers of one planning pass. Decoding a big manifest touches tens
 * of MB; handing those pages back to the kernel and faulting fresh zeroed
 * ones for the next manifest cost more than decoding (page faults were ~40%
 * of the time). Bounded by max_bytes; reference-counted so whoever frees the
 * last container returns the memory; a mutex because the planner decodes
 * manifests on several threads. */
#define BIG_SLOTS 4
struct pm_mem_cache {
  pthread_mutex_t lock;
  size_t refs;
  size_t max_bytes;
  size_t bytes;
  pm_arena_chunk *chunks; /* all of size MAX_CHUNK */
  struct {
    void *p;
    size_t size;
  } big[BIG_SLOTS];
};

pm_mem_cache *pm_mem_cache_new(size_t max_bytes) {
  pm_mem_cache *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  if (pthread_mutex_init(&c->lock, NULL)) {
    free(c);
    return NULL;
  }
  c->refs = 1;
  c->max_bytes = max_bytes;
  return c;
}

static void cache_retain(pm_mem_cache *c) {
  pthread_mutex_lock(&c->lock);
  c->refs++;
  pthread_mutex_unlock(&c->lock);
}

void pm_mem_cache_release(pm_mem_cache *c) {
  if (!c) return;
  pthread_mutex_lock(&c->lock);
  size_t left = --c->refs;
  pthread_mutex_unlock(&c->lock);
  if (left) return;
  while (c->chunks) {
    pm_arena_chunk *n = c->chunks->next;
    free(c->chunks);
    c->chunks = n;
  }
  for (int i = 0; i < BIG_SLOTS; i++) free(c->big[i].p);
  pthread_mutex_destroy(&c->lock);
  free(c);
}

static pm_arena_chunk *cache_take_chunk(pm_mem_cache *c) {
  if (!c) return NULL;
  pthread_mutex_lock(&c->lock);
  pm_arena_chunk *k = c->chunks;
  if (k) {
    c->chunks = k->next;
    c->bytes -= CHUNK_HDR + k->size;
  }
  pthread_mutex_unlock(&c->lock);
  return k;
}

/* Returns the chunks of list that did not fit the cache. */
static pm_arena_chunk *cache_give_chunks(pm_mem_cache *c, pm_arena_chunk *list) {
  if (!c) return list;
  pm_arena_chunk *rest = NULL;
  pthread_mutex_lock(&c->lock);
  while (list) {
    pm_arena_chunk *n = list->next;
    if (list->size == MAX_CHUNK && c->bytes + CHUNK_HDR + MAX_CHUNK <= c->max_bytes) {
      list->next = c->chunks;
      c->chunks = list;
      c->bytes += CHUNK_HDR + MAX_CHUNK;
    } else {
      list->next = rest;
      rest = list;
    }
    list = n;
  }
  pthread_mutex_unlock(&c->lock);
  return rest;
}

void pm_arena_init(pm_arena *a) { memset(a, 0, sizeof(*a)); }

void pm_arena_use_cache(pm_arena *a, pm_mem_cache *cache) {
  if (cache) cache_retain(cache);
  pm_mem_cache_release(a->cache);
  a->cache = cache;
}

void pm_arena_free(pm_arena *a) {
  pm_arena_chunk *c = cache_give_chunks(a->cache, a->head);
  pm_mem_cache_release(a->cache);
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
    pm_arena_chunk *c = sz == MAX_CHUNK ? cache_take_chunk(a->cache) : NULL;
    if (!c) {
      if (sz == MAX_CHUNK) {
        /* one aligned huge page: one fault instead of 512 where the kernel
         * backs it with a huge page (decoded manifests fill many of these) */
        c = aligned_alloc(HUGE_PAGE, HUGE_PAGE);
#ifdef MADV_HUGEPAGE
        if (c) madvise(c, HUGE_PAGE, MADV_HUGEPAGE);
#endif
      } else {
        c = malloc(CHUNK_HDR + sz);
      }
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

void *pm_big_alloc(pm_mem_cache *c, size_t n, size_t *got) {
  if (c && n >= PM_BIG_MIN_BYTES) {
    void *p = NULL;
    size_t best = 0;
    pthread_mutex_lock(&c->lock);
    int pick = -1;
    for (int i = 0; i < BIG_SLOTS; i++) /* smallest cached buffer that fits */
      if (c->big[i].p && c->big[i].size >= n && (pick < 0 || c->big[i].size < best)) {
        pick = i;
        best = c->big[i].size;
      }
    if (pick >= 0) {
      p = c->big[pick].p;
      c->big[pick].p = NULL;
      c->bytes -= best;
    }
    pthread_mutex_unlock(&c->lock);
    if (p) {
      *got = best;
      return p;
    }
  }
  void *p = malloc(n ? n : 1);
  *got = p ? n : 0;
  return p;
}

void pm_big_free(pm_mem_cache *c, void *p, size_t size) {
  if (!p) return;
  if (c && size >= PM_BIG_MIN_BYTES) {
    pthread_mutex_lock(&c->lock);
    int slot = -1;
    for (int i = 0; i < BIG_SLOTS && slot < 0; i++)
      if (!c->big[i].p) slot = i;
    if (slot >= 0 && c->bytes + size <= c->max_bytes) {
      c->big[slot].p = p;
      c->big[slot].size = size;
      c->bytes += size;
      p = NULL;
    }
    pthread_mutex_unlock(&c->lock);
  }
  free(p);
}
