/*
 * Bump allocator for metadata objects: one manifest's strings, byte arrays
 * and lists live in a few large chunks freed together, so decoding does not
 * malloc per field.
 *
 * Freed full-size chunks (and large buffers from pm_big_alloc) go to a
 * process-wide cache of at most PM_ARENA_CACHE_BYTES and are reused by the
 * next arena, so decoding manifest after manifest does not make the kernel
 * fault in and zero fresh pages each time. Thread-safe.
 */
#ifndef PM_META_ARENA_H
#define PM_META_ARENA_H

#include <stddef.h>
#include <stdint.h>

typedef struct pm_arena_chunk pm_arena_chunk;

typedef struct pm_arena {
  pm_arena_chunk *head; /* current chunk (list of chunks, newest first) */
  uint8_t *ptr;         /* next free byte in head */
  uint8_t *end;         /* end of head */
  size_t total;         /* bytes reserved in all chunks */
} pm_arena;

void pm_arena_init(pm_arena *a);
/* Frees every chunk (large ones to the cache); the arena can be reused afterwards. */
void pm_arena_free(pm_arena *a);
/* Allocates n bytes aligned to 8. Returns NULL on OOM (never for n == 0: returns a valid pointer). */
void *pm_arena_alloc(pm_arena *a, size_t n);
/* Copies n bytes (NULL on OOM). */
void *pm_arena_memdup(pm_arena *a, const void *src, size_t n);
/* Copies n bytes and appends a NUL (NULL on OOM). */
char *pm_arena_strndup(pm_arena *a, const char *src, size_t n);
char *pm_arena_strdup(pm_arena *a, const char *src);

/* Memory kept for reuse at most (chunks + large buffers). */
#define PM_ARENA_CACHE_BYTES ((size_t)64 << 20)
/* Buffers at least this large go through the cache. */
#define PM_BIG_MIN_BYTES ((size_t)1 << 20)

/* A large growable buffer (e.g. an entry array) of at least n bytes, possibly
 * reused from the cache (contents undefined); *got = its real size (0 on OOM,
 * then NULL). Release it with pm_big_free(p, *got) only, never free(). */
void *pm_big_alloc(size_t n, size_t *got);
void pm_big_free(void *p, size_t size); /* NULL ok */
/* Returns all cached memory to the system (the planner calls it after each plan). */
void pm_arena_cache_trim(void);

#endif
