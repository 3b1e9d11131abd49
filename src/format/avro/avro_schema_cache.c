/* Process-wide cache of parsed Avro writer schemas (avro.h, "Schema cache").
 *
 * Manifests, manifest lists and index manifests of a table carry the same few
 * writer schemas in every file header; parsing one (jansson + tree + skip
 * programs) costs far more than decoding a small manifest. Trees are immutable
 * after parsing, so one tree serves every reader of the same JSON text, on any
 * thread. Entries are keyed by the exact JSON bytes; at most CACHE_SLOTS trees
 * are kept, the least recently used unreferenced one is evicted. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "format/avro/avro.h"

#define CACHE_SLOTS 16
#define CACHE_MAX_JSON (256u << 10) /* larger schemas are parsed per reader, not kept */

typedef struct cache_slot {
  char *json; /* NULL = free slot */
  size_t len;
  pm_avro_schema_tree *tree;
  size_t refs;       /* readers holding the tree */
  uint64_t last_use; /* clock value of the last acquire */
} cache_slot;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static cache_slot cache[CACHE_SLOTS];
static uint64_t cache_clock;
static uint64_t cache_parses; /* schemas parsed by pm_avro_schema_acquire (hits do not count) */

/* A slot for a new entry: a free one, else the least recently used unreferenced one
 * (emptied), else NULL (every tree is in use). Called with the lock held. */
static cache_slot *slot_for_insert(void) {
  cache_slot *best = NULL;
  for (size_t i = 0; i < CACHE_SLOTS; i++) {
    cache_slot *s = &cache[i];
    if (!s->json) return s;
    if (!s->refs && (!best || s->last_use < best->last_use)) best = s;
  }
  if (best) {
    pm_avro_schema_free(best->tree);
    free(best->json);
    memset(best, 0, sizeof *best);
  }
  return best;
}

static cache_slot *find(const char *json, size_t len) {
  for (size_t i = 0; i < CACHE_SLOTS; i++)
    if (cache[i].json && cache[i].len == len && !memcmp(cache[i].json, json, len)) return &cache[i];
  return NULL;
}

int pm_avro_schema_acquire(const char *json, size_t len, const char *what, const pm_avro_schema_tree **out,
                           pm_error *err) {
  *out = NULL;
  if (len <= CACHE_MAX_JSON) {
    pthread_mutex_lock(&cache_lock);
    cache_slot *s = find(json, len);
    if (s) {
      s->refs++;
      s->last_use = ++cache_clock;
      *out = s->tree;
    }
    pthread_mutex_unlock(&cache_lock);
    if (*out) return 0;
  }
  /* parse outside the lock (errors name `what`, exactly as an uncached parse) */
  pm_avro_schema_tree *t = NULL;
  PM_TRY(pm_avro_schema_parse(json, len, what, &t, err));
  char *copy = len <= CACHE_MAX_JSON ? malloc(len ? len : 1) : NULL;
  if (copy && len) memcpy(copy, json, len);
  pthread_mutex_lock(&cache_lock);
  cache_parses++;
  cache_slot *s = copy ? find(json, len) : NULL;
  if (s) { /* another thread cached the same schema meanwhile: use that one */
    s->refs++;
    s->last_use = ++cache_clock;
    *out = s->tree;
    pthread_mutex_unlock(&cache_lock);
    free(copy);
    pm_avro_schema_free(t);
    return 0;
  }
  s = copy ? slot_for_insert() : NULL;
  if (s) {
    s->json = copy;
    s->len = len;
    s->tree = t;
    s->refs = 1;
    s->last_use = ++cache_clock;
    copy = NULL;
  }
  pthread_mutex_unlock(&cache_lock);
  free(copy); /* not cached (too large, no memory or every slot in use): the reader owns t */
  *out = t;
  return 0;
}

void pm_avro_schema_release(const pm_avro_schema_tree *t) {
  if (!t) return;
  pthread_mutex_lock(&cache_lock);
  for (size_t i = 0; i < CACHE_SLOTS; i++)
    if (cache[i].json && cache[i].tree == t) {
      cache[i].refs--;
      pthread_mutex_unlock(&cache_lock);
      return;
    }
  pthread_mutex_unlock(&cache_lock);
  pm_avro_schema_free((pm_avro_schema_tree *)t); /* an uncached tree */
}

uint64_t pm_avro_schema_cache_parses(void) {
  pthread_mutex_lock(&cache_lock);
  uint64_t n = cache_parses;
  pthread_mutex_unlock(&cache_lock);
  return n;
}
