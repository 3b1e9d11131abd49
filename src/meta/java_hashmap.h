/*
 * The iteration order of a java.util.HashMap<String, ?>, modelled: Java
 * writes a schema's options in the order its HashMap iterates them, which
 * depends on the String hash codes, the table capacity and, within a bucket,
 * the order of insertion into that map instance (resizes keep it). The model
 * tracks only the keys; callers keep the values.
 */
#ifndef PM_META_JAVA_HASHMAP_H
#define PM_META_JAVA_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

typedef struct pm_jmap {
  char **keys; /* owned, in insertion order */
  size_t n, cap_keys;
  uint32_t table; /* table capacity; 0 = not allocated yet */
  uint32_t threshold;
} pm_jmap;

/* Java's String.hashCode of a UTF-8 string (over UTF-16 code units). */
int32_t pm_java_string_hash(const char *s);

void pm_jmap_init(pm_jmap *m); /* new HashMap<>() */
void pm_jmap_clear(pm_jmap *m);
int pm_jmap_put(pm_jmap *m, const char *key, pm_error *err); /* no-op when present */
void pm_jmap_remove(pm_jmap *m, const char *key);
/* new HashMap<>(src): dst is initialised. */
int pm_jmap_copy(const pm_jmap *src, pm_jmap *dst, pm_error *err);
/* HashMap.putAll(src) into dst (pre-sizes an empty dst as the copy constructor,
 * grows a non-empty one until src fits its threshold), src's order. */
int pm_jmap_put_all(pm_jmap *dst, const pm_jmap *src, pm_error *err);
/* HashMap.computeIfAbsent inserting key: resizes before inserting (when the
 * size is over the threshold), never after. No-op when present. */
int pm_jmap_compute_if_absent(pm_jmap *m, const char *key, pm_error *err);
/* Keys in iteration order: *out is a malloc'd array of pointers into m (free(*out) only). */
int pm_jmap_order(const pm_jmap *m, const char ***out, pm_error *err);

#endif
