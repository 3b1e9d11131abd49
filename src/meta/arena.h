/*
 * Bump allocator for metadata objects: one manifest's strings, byte arrays
 * and lists live in a few large chunks freed together, so decoding does not
 * malloc per field.
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
/* Frees every chunk; the arena can be reused afterwards. */
void pm_arena_free(pm_arena *a);
/* Allocates n bytes aligned to 8. Returns NULL on OOM (never for n == 0: returns a valid pointer). */
void *pm_arena_alloc(pm_arena *a, size_t n);
/* Copies n bytes (NULL on OOM). */
void *pm_arena_memdup(pm_arena *a, const void *src, size_t n);
/* Copies n bytes and appends a NUL (NULL on OOM). */
char *pm_arena_strndup(pm_arena *a, const char *src, size_t n);
char *pm_arena_strdup(pm_arena *a, const char *src);

#endif
