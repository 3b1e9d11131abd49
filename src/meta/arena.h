/*
 * Bump allocator for metadata objects: one manifest's strings, byte arrays
 * and lists live in a few large chunks freed together, so decoding does not
 * malloc per field.
 *
 * An arena may share a pm_mem_cache with others (one planning pass): its
 * freed full-size chunks (and large buffers from pm_big_alloc) go to the
 * cache and are reused by the next arena, so decoding manifest after
 * manifest does not make the kernel fault in and zero fresh pages each time.
 * Without a cache, memory goes straight back to malloc. No global state.
 */
#ifndef PM_META_ARENA_H
#define PM_META_ARENA_H

#include <stddef.h>
#include <stdint.h>

typedef struct pm_arena_chunk pm_arena_chunk;
typedef struct pm_mem_cache pm_mem_cache;

typedef struct pm_arena {
  pm_arena_chunk *head; /* current chunk (list of chunks, newest first) */
  uint8_t *ptr;         /* next free byte in head */
  uint8_t *end;         /* end of head */
  size_t total;         /* bytes reserved in all chunks */
  pm_mem_cache *cache;  /* optional, one reference held (pm_arena_use_cache) */
} pm_arena;

void pm_arena_init(pm_arena *a);
/* Attaches a cache (NULL detaches) to an arena that holds no chunks yet; the
 * arena holds a reference until pm_arena_free. */
void pm_arena_use_cache(pm_arena *a, pm_mem_cache *cache);
/* Frees every chunk (full-size ones to the cache, if any) and drops the cache
 * reference; the arena can be reused afterwards (without a cache). */
void pm_arena_free(pm_arena *a);
/* Allocates n bytes aligned to 8. Returns NULL on OOM (never for n == 0: returns a valid pointer). */
void *pm_arena_alloc(pm_arena *a, size_t n);
/* Copies n bytes (NULL on OOM). */
void *pm_arena_memdup(pm_arena *a, const void *src, size_t n);
/* Copies n bytes and appends a NUL (NULL on OOM). */
char *pm_arena_strndup(pm_arena *a, const char *src, size_t n);
char *pm_arena_strdup(pm_arena *a, const char *src);

/* A bounded, thread-safe cache of freed chunks and large buffers, shared by
 * the arenas and containers of one planning pass. Reference-counted:
 * pm_mem_cache_new returns one reference (the creator's), every arena using
 * it holds one; the cached memory returns to the system when the last
 * reference is released. NULL on OOM. */
pm_mem_cache *pm_mem_cache_new(size_t max_bytes);
void pm_mem_cache_release(pm_mem_cache *c); /* NULL ok */

/* A planning pass keeps at most this much memory for reuse. */
#define PM_MEM_CACHE_DEFAULT_BYTES ((size_t)64 << 20)
/* Buffers at least this large go through the cache. */
#define PM_BIG_MIN_BYTES ((size_t)1 << 20)

/* A large growable buffer (e.g. an entry array) of at least n bytes, reused
 * from cache c when it has one (contents undefined; c may be NULL); *got =
 * its real size (0 on OOM, then NULL). Release it with pm_big_free(c, p,
 * *got) only, never free(); c must still be referenced by the caller. */
void *pm_big_alloc(pm_mem_cache *c, size_t n, size_t *got);
void pm_big_free(pm_mem_cache *c, void *p, size_t size); /* NULL p ok */

#endif
