/*
 * Allocation and release of Arrow C Data Interface structures.
 *
 * Every ArrowSchema/ArrowArray produced by libpaimon is made with these
 * functions, so release semantics are uniform: releasing a parent releases
 * each child whose release callback is still set (a consumer may move a
 * child out by copying it and clearing the original's release), then frees
 * the child structs, the owned buffers and the parent's private data.
 */
#ifndef PM_ARROW_ARROW_H
#define PM_ARROW_ARROW_H

#include <stdint.h>

#include "paimon/arrow_c.h"
#include "util/error.h"

/* Initialises *s with copies of format and name (name may be NULL) and
 * n_children zeroed child structs (s->children[i] is allocated, release NULL):
 * fill each with pm_schema_init. On failure *s is left released (release NULL). */
int pm_schema_init(struct ArrowSchema *s, const char *format, const char *name, int64_t flags, int64_t n_children,
                   pm_error *err);
/* Replaces metadata with n key/value string pairs (encoded as the ABI says). */
int pm_schema_set_metadata(struct ArrowSchema *s, int n, const char *const *keys, const char *const *values,
                           pm_error *err);
/* Looks up a metadata value; returns a malloc'd copy or NULL if absent. */
char *pm_schema_metadata_get(const struct ArrowSchema *s, const char *key);
/* Deep copy (dictionary included). dst is owned by the caller. */
int pm_schema_copy(const struct ArrowSchema *src, struct ArrowSchema *dst, pm_error *err);
/* Releases s if set (safe to call on released / zeroed structs). */
void pm_schema_release(struct ArrowSchema *s);

/* Initialises *a: length, n_buffers NULL buffers, n_children zeroed child
 * structs. null_count starts at 0, offset 0. */
int pm_array_init(struct ArrowArray *a, int64_t length, int64_t n_buffers, int64_t n_children, pm_error *err);
/* Gives buffer i to the array: data must come from pm_aligned_alloc (or be
 * NULL); the array frees it on release. Replaces (and frees) a previous one. */
void pm_array_set_buffer(struct ArrowArray *a, int64_t i, void *data);
/* Allocates a zeroed dictionary struct for a (to be filled with pm_array_init). */
int pm_array_alloc_dictionary(struct ArrowArray *a, pm_error *err);
/* Keeps `owner` alive as long as the array: free_fn(owner) runs on release.
 * Lets buffers point into a shared block (e.g. a decoded page) without copies. */
void pm_array_set_owner(struct ArrowArray *a, void *owner, void (*free_fn)(void *));
void pm_array_release(struct ArrowArray *a);

int pm_schema_init_dictionary(struct ArrowSchema *s, pm_error *err); /* allocates zeroed s->dictionary */

/* Moves src into dst (src becomes released). */
static inline void pm_array_move(struct ArrowArray *src, struct ArrowArray *dst) {
  *dst = *src;
  src->release = 0;
}
static inline void pm_schema_move(struct ArrowSchema *src, struct ArrowSchema *dst) {
  *dst = *src;
  src->release = 0;
}

/* Validity bitmap helpers (LSB order). */
static inline int pm_bit_get(const uint8_t *bits, int64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }
static inline void pm_bit_set(uint8_t *bits, int64_t i) { bits[i >> 3] |= (uint8_t)(1u << (i & 7)); }
static inline void pm_bit_clear(uint8_t *bits, int64_t i) { bits[i >> 3] &= (uint8_t)~(1u << (i & 7)); }

#endif
