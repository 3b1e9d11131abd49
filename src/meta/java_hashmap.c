/* java.util.HashMap iteration order model (see java_hashmap.h). */
#include "meta/java_hashmap.h"

#include <stdlib.h>
#include <string.h>

int32_t pm_java_string_hash(const char *s) {
  uint32_t h = 0;
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    uint32_t cp;
    if (*p < 0x80) cp = *p++;
    else if ((*p & 0xE0) == 0xC0 && p[1]) cp = ((uint32_t)(*p & 0x1F) << 6) | (p[1] & 0x3F), p += 2;
    else if ((*p & 0xF0) == 0xE0 && p[1] && p[2])
      cp = ((uint32_t)(*p & 0x0F) << 12) | ((uint32_t)(p[1] & 0x3F) << 6) | (p[2] & 0x3F), p += 3;
    else if ((*p & 0xF8) == 0xF0 && p[1] && p[2] && p[3])
      cp = ((uint32_t)(*p & 0x07) << 18) | ((uint32_t)(p[1] & 0x3F) << 12) | ((uint32_t)(p[2] & 0x3F) << 6) |
           (p[3] & 0x3F),
      p += 4;
    else cp = 0xFFFD, p++; /* invalid UTF-8: Java decodes it as U+FFFD */
    if (cp >= 0x10000) {
      cp -= 0x10000;
      h = 31 * h + (0xD800 + (cp >> 10));
      h = 31 * h + (0xDC00 + (cp & 0x3FF));
    } else {
      h = 31 * h + cp;
    }
  }
  return (int32_t)h;
}

static uint32_t bucket_of(const char *k, uint32_t table) {
  uint32_t h = (uint32_t)pm_java_string_hash(k);
  h ^= h >> 16;
  return h & (table - 1);
}

void pm_jmap_init(pm_jmap *m) { memset(m, 0, sizeof *m); }

void pm_jmap_clear(pm_jmap *m) {
  for (size_t i = 0; i < m->n; i++) free(m->keys[i]);
  free(m->keys);
  memset(m, 0, sizeof *m);
}

static ssize_t find(const pm_jmap *m, const char *key) {
  for (size_t i = 0; i < m->n; i++)
    if (!strcmp(m->keys[i], key)) return (ssize_t)i;
  return -1;
}

/* HashMap.resize(): the first allocation takes the threshold a copy constructor set (or 16). */
static void resize(pm_jmap *m) {
  if (m->table == 0) {
    m->table = m->threshold ? m->threshold : 16;
  } else {
    m->table *= 2;
  }
  m->threshold = (uint32_t)((float)m->table * 0.75f);
}

int pm_jmap_put(pm_jmap *m, const char *key, pm_error *err) {
  if (find(m, key) >= 0) return 0;
  if (m->table == 0) resize(m);
  if (m->n == m->cap_keys) {
    size_t nc = m->cap_keys ? m->cap_keys * 2 : 16;
    char **nk = realloc(m->keys, nc * sizeof *nk);
    if (!nk) return PM_NOMEM(err);
    m->keys = nk;
    m->cap_keys = nc;
  }
  if (!(m->keys[m->n] = strdup(key))) return PM_NOMEM(err);
  m->n++;
  if (m->n > m->threshold) resize(m);
  return 0;
}

void pm_jmap_remove(pm_jmap *m, const char *key) {
  ssize_t i = find(m, key);
  if (i < 0) return;
  free(m->keys[i]);
  memmove(m->keys + i, m->keys + i + 1, (m->n - (size_t)i - 1) * sizeof *m->keys);
  m->n--;
}

static uint32_t table_size_for(uint32_t c) {
  uint32_t n = 1;
  while (n < c && n < (1u << 30)) n <<= 1;
  return n;
}

int pm_jmap_copy(const pm_jmap *src, pm_jmap *dst, pm_error *err) {
  pm_jmap_init(dst);
  if (src->n == 0) return 0;
  float ft = (float)src->n / 0.75f + 1.0f;
  dst->threshold = table_size_for((uint32_t)ft);
  const char **order;
  int rc = pm_jmap_order(src, &order, err);
  for (size_t i = 0; !rc && i < src->n; i++) rc = pm_jmap_put(dst, order[i], err);
  free(order);
  if (rc) pm_jmap_clear(dst);
  return rc;
}

int pm_jmap_order(const pm_jmap *m, const char ***out, pm_error *err) {
  *out = malloc((m->n ? m->n : 1) * sizeof **out);
  if (!*out) return PM_NOMEM(err);
  /* stable: buckets ascending, insertion order within a bucket */
  size_t w = 0;
  uint32_t table = m->table ? m->table : 16;
  uint32_t *b = malloc((m->n ? m->n : 1) * sizeof *b);
  if (!b) {
    free(*out);
    *out = NULL;
    return PM_NOMEM(err);
  }
  for (size_t i = 0; i < m->n; i++) b[i] = bucket_of(m->keys[i], table);
  for (size_t i = 0; i < m->n; i++) {
    /* insertion sort by bucket keeps equal buckets in insertion order */
    size_t j = w;
    while (j > 0 && bucket_of((*out)[j - 1], table) > b[i]) {
      (*out)[j] = (*out)[j - 1];
      j--;
    }
    (*out)[j] = m->keys[i];
    w++;
  }
  free(b);
  return 0;
}

int pm_jmap_put_all(pm_jmap *dst, const pm_jmap *src, pm_error *err) {
  if (src->n == 0) return 0;
  if (dst->table == 0) {
    uint32_t t = table_size_for((uint32_t)((float)src->n / 0.75f + 1.0f));
    if (t > dst->threshold) dst->threshold = t;
  } else {
    while (src->n > dst->threshold && dst->table < (1u << 30)) resize(dst);
  }
  const char **order;
  PM_TRY(pm_jmap_order(src, &order, err));
  int rc = 0;
  for (size_t i = 0; !rc && i < src->n; i++) rc = pm_jmap_put(dst, order[i], err);
  free(order);
  return rc;
}

int pm_jmap_compute_if_absent(pm_jmap *m, const char *key, pm_error *err) {
  if (find(m, key) >= 0) return 0;
  if (m->table == 0 || m->n > m->threshold) resize(m);
  if (m->n == m->cap_keys) {
    size_t nc = m->cap_keys ? m->cap_keys * 2 : 16;
    char **nk = realloc(m->keys, nc * sizeof *nk);
    if (!nk) return PM_NOMEM(err);
    m->keys = nk;
    m->cap_keys = nc;
  }
  if (!(m->keys[m->n] = strdup(key))) return PM_NOMEM(err);
  m->n++;
  return 0;
}
