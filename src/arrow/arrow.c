#include "arrow/arrow.h"

#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/str.h"

typedef struct schema_private {
  char *format;
  char *name;
  char *metadata;
} schema_private;

static void schema_release(struct ArrowSchema *s) {
  if (!s || !s->release) return;
  for (int64_t i = 0; i < s->n_children; i++) {
    struct ArrowSchema *c = s->children[i];
    if (c) {
      if (c->release) c->release(c);
      free(c);
    }
  }
  free(s->children);
  if (s->dictionary) {
    if (s->dictionary->release) s->dictionary->release(s->dictionary);
    free(s->dictionary);
  }
  schema_private *p = s->private_data;
  if (p) {
    free(p->format);
    free(p->name);
    free(p->metadata);
    free(p);
  }
  s->release = NULL;
}

int pm_schema_init(struct ArrowSchema *s, const char *format, const char *name, int64_t flags, int64_t n_children,
                   pm_error *err) {
  memset(s, 0, sizeof *s);
  schema_private *p = calloc(1, sizeof *p);
  if (!p) return PM_NOMEM(err);
  s->private_data = p;
  s->release = schema_release;
  p->format = pm_strdup(format);
  p->name = name ? pm_strdup(name) : NULL;
  if (!p->format || (name && !p->name)) goto nomem;
  s->format = p->format;
  s->name = p->name;
  s->flags = flags;
  if (n_children > 0) {
    s->children = calloc((size_t)n_children, sizeof *s->children);
    if (!s->children) goto nomem;
    s->n_children = n_children;
    for (int64_t i = 0; i < n_children; i++) {
      s->children[i] = calloc(1, sizeof(struct ArrowSchema));
      if (!s->children[i]) goto nomem;
    }
  }
  return 0;
nomem:
  schema_release(s);
  return PM_NOMEM(err);
}

int pm_schema_init_dictionary(struct ArrowSchema *s, pm_error *err) {
  s->dictionary = calloc(1, sizeof *s->dictionary);
  return s->dictionary ? 0 : PM_NOMEM(err);
}

static void put_i32(char **p, int32_t v) {
  memcpy(*p, &v, 4);
  *p += 4;
}

int pm_schema_set_metadata(struct ArrowSchema *s, int n, const char *const *keys, const char *const *values,
                           pm_error *err) {
  schema_private *p = s->private_data;
  size_t size = 4;
  for (int i = 0; i < n; i++) size += 8 + strlen(keys[i]) + strlen(values[i]);
  char *m = malloc(size);
  if (!m) return PM_NOMEM(err);
  char *w = m;
  put_i32(&w, n);
  for (int i = 0; i < n; i++) {
    int32_t kl = (int32_t)strlen(keys[i]), vl = (int32_t)strlen(values[i]);
    put_i32(&w, kl);
    memcpy(w, keys[i], (size_t)kl);
    w += kl;
    put_i32(&w, vl);
    memcpy(w, values[i], (size_t)vl);
    w += vl;
  }
  free(p->metadata);
  p->metadata = m;
  s->metadata = m;
  return 0;
}

char *pm_schema_metadata_get(const struct ArrowSchema *s, const char *key) {
  if (!s->metadata) return NULL;
  const char *r = s->metadata;
  int32_t n;
  memcpy(&n, r, 4);
  r += 4;
  size_t klen = strlen(key);
  for (int32_t i = 0; i < n; i++) {
    int32_t kl, vl;
    memcpy(&kl, r, 4);
    r += 4;
    const char *k = r;
    r += kl;
    memcpy(&vl, r, 4);
    r += 4;
    if ((size_t)kl == klen && memcmp(k, key, klen) == 0) {
      char *v = malloc((size_t)vl + 1);
      if (!v) return NULL;
      memcpy(v, r, (size_t)vl);
      v[vl] = 0;
      return v;
    }
    r += vl;
  }
  return NULL;
}

static size_t metadata_size(const char *m) {
  if (!m) return 0;
  const char *r = m;
  int32_t n;
  memcpy(&n, r, 4);
  r += 4;
  for (int32_t i = 0; i < n; i++) {
    int32_t l;
    memcpy(&l, r, 4);
    r += 4 + l;
    memcpy(&l, r, 4);
    r += 4 + l;
  }
  return (size_t)(r - m);
}

int pm_schema_copy(const struct ArrowSchema *src, struct ArrowSchema *dst, pm_error *err) {
  PM_TRY(pm_schema_init(dst, src->format, src->name, src->flags, src->n_children, err));
  if (src->metadata) {
    size_t n = metadata_size(src->metadata);
    schema_private *p = dst->private_data;
    p->metadata = malloc(n);
    if (!p->metadata) goto nomem;
    memcpy(p->metadata, src->metadata, n);
    dst->metadata = p->metadata;
  }
  for (int64_t i = 0; i < src->n_children; i++) {
    int rc = pm_schema_copy(src->children[i], dst->children[i], err);
    if (rc) {
      schema_release(dst);
      return rc;
    }
  }
  if (src->dictionary) {
    if (pm_schema_init_dictionary(dst, err)) goto nomem;
    int rc = pm_schema_copy(src->dictionary, dst->dictionary, err);
    if (rc) {
      schema_release(dst);
      return rc;
    }
  }
  return 0;
nomem:
  schema_release(dst);
  return PM_NOMEM(err);
}

void pm_schema_release(struct ArrowSchema *s) {
  if (s && s->release) s->release(s);
}

typedef struct array_private {
  void **owned; /* n_buffers pointers from pm_aligned_alloc */
  void *owner;
  void (*owner_free)(void *);
} array_private;

static void array_release(struct ArrowArray *a) {
  if (!a || !a->release) return;
  for (int64_t i = 0; i < a->n_children; i++) {
    struct ArrowArray *c = a->children[i];
    if (c) {
      if (c->release) c->release(c);
      free(c);
    }
  }
  free(a->children);
  if (a->dictionary) {
    if (a->dictionary->release) a->dictionary->release(a->dictionary);
    free(a->dictionary);
  }
  array_private *p = a->private_data;
  if (p) {
    if (p->owned)
      for (int64_t i = 0; i < a->n_buffers; i++) pm_aligned_free(p->owned[i]);
    free(p->owned);
    if (p->owner_free) p->owner_free(p->owner);
    free(p);
  }
  free((void *)a->buffers);
  a->release = NULL;
}

int pm_array_init(struct ArrowArray *a, int64_t length, int64_t n_buffers, int64_t n_children, pm_error *err) {
  memset(a, 0, sizeof *a);
  array_private *p = calloc(1, sizeof *p);
  if (!p) return PM_NOMEM(err);
  a->private_data = p;
  a->release = array_release;
  a->length = length;
  if (n_buffers > 0) {
    a->buffers = calloc((size_t)n_buffers, sizeof(void *));
    p->owned = calloc((size_t)n_buffers, sizeof(void *));
    if (!a->buffers || !p->owned) goto nomem;
    a->n_buffers = n_buffers;
  }
  if (n_children > 0) {
    a->children = calloc((size_t)n_children, sizeof *a->children);
    if (!a->children) goto nomem;
    a->n_children = n_children;
    for (int64_t i = 0; i < n_children; i++) {
      a->children[i] = calloc(1, sizeof(struct ArrowArray));
      if (!a->children[i]) goto nomem;
    }
  }
  return 0;
nomem:
  array_release(a);
  return PM_NOMEM(err);
}

void pm_array_set_buffer(struct ArrowArray *a, int64_t i, void *data) {
  array_private *p = a->private_data;
  if (p->owned[i] && p->owned[i] != data) pm_aligned_free(p->owned[i]);
  p->owned[i] = data;
  a->buffers[i] = data;
}

int pm_array_alloc_dictionary(struct ArrowArray *a, pm_error *err) {
  a->dictionary = calloc(1, sizeof *a->dictionary);
  return a->dictionary ? 0 : PM_NOMEM(err);
}

void pm_array_set_owner(struct ArrowArray *a, void *owner, void (*free_fn)(void *)) {
  array_private *p = a->private_data;
  if (p->owner_free) p->owner_free(p->owner);
  p->owner = owner;
  p->owner_free = free_fn;
}

void pm_array_release(struct ArrowArray *a) {
  if (a && a->release) a->release(a);
}
