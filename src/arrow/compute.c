#include "arrow/compute.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/bits.h"
#include "arrow/builder.h"

/* The builder decodes dictionary-encoded types itself. */
static const pm_type *output_type(const pm_type *t) { return t; }

int pm_take(const pm_type *type, const struct ArrowArray *src, const int64_t *indices, int64_t n,
            struct ArrowArray *out, pm_error *err) {
  out->release = NULL;
  pm_builder *b;
  PM_TRY(pm_builder_new(output_type(type), &b, err));
  int rc = pm_builder_append_take(b, type, src, indices, n, err);
  if (!rc) rc = pm_builder_finish(b, out, err);
  pm_builder_free(b);
  return rc;
}

int pm_take_multi(const pm_type *type, const struct ArrowArray *const *srcs, int64_t n_srcs, const int32_t *src_index,
                  const int64_t *rows, int64_t n, struct ArrowArray *out, pm_error *err) {
  out->release = NULL;
  pm_builder *b;
  PM_TRY(pm_builder_new(output_type(type), &b, err));
  int rc = pm_builder_reserve(b, n, err);
  int64_t i = 0;
  while (!rc && i < n) {
    int32_t s = src_index[i];
    if (s < 0) {
      rc = pm_builder_append_null(b, err);
      i++;
      continue;
    }
    if (s >= n_srcs || !srcs[s]) {
      rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "take_multi: source %d of row %lld out of range [0, %lld)",
                     (int)s, (long long)i, (long long)n_srcs);
      break;
    }
    int64_t j = i + 1;
    while (j < n && src_index[j] == s && rows[j] == rows[j - 1] + 1) j++;
    if (j - i == 1)
      rc = pm_builder_append_from(b, type, srcs[s], rows[i], err);
    else
      rc = pm_builder_append_range(b, type, srcs[s], rows[i], j - i, err);
    i = j;
  }
  if (!rc) rc = pm_builder_finish(b, out, err);
  pm_builder_free(b);
  return rc;
}

int64_t pm_filter_count(const uint8_t *selection, int64_t selection_offset, int64_t length) {
  return pm_bits_count(selection, selection_offset, length);
}

int pm_filter(const pm_type *type, const struct ArrowArray *src, const uint8_t *selection, int64_t selection_offset,
              struct ArrowArray *out, pm_error *err) {
  out->release = NULL;
  pm_builder *b;
  PM_TRY(pm_builder_new(output_type(type), &b, err));
  int rc = pm_builder_reserve(b, pm_filter_count(selection, selection_offset, src->length), err);
  int64_t i = 0, len = src->length;
  while (!rc && i < len) {
    /* Skip a run of clear bits, then copy the following run of set bits. */
    while (i < len && !pm_bit_get(selection, selection_offset + i)) i++;
    int64_t start = i;
    while (i < len && pm_bit_get(selection, selection_offset + i)) i++;
    if (i > start) rc = pm_builder_append_range(b, type, src, start, i - start, err);
  }
  if (!rc) rc = pm_builder_finish(b, out, err);
  pm_builder_free(b);
  return rc;
}

int pm_concat(const pm_type *type, const struct ArrowArray *const *arrays, int64_t n, struct ArrowArray *out,
              pm_error *err) {
  out->release = NULL;
  pm_builder *b;
  PM_TRY(pm_builder_new(output_type(type), &b, err));
  int64_t total = 0;
  for (int64_t i = 0; i < n; i++) total += arrays[i] ? arrays[i]->length : 0;
  int rc = pm_builder_reserve(b, total, err);
  for (int64_t i = 0; i < n && !rc; i++) {
    if (!arrays[i] || !arrays[i]->release) {
      rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "concat: array %lld is NULL or released", (long long)i);
      break;
    }
    rc = pm_builder_append_range(b, type, arrays[i], 0, arrays[i]->length, err);
  }
  if (!rc) rc = pm_builder_finish(b, out, err);
  pm_builder_free(b);
  return rc;
}

/* ---------- zero-copy slices ---------- */

struct pm_shared_array {
  atomic_long refs;
  struct ArrowArray array;
};

static void shared_unref(pm_shared_array *s) {
  if (atomic_fetch_sub(&s->refs, 1) == 1) {
    if (s->array.release) s->array.release(&s->array);
    free(s);
  }
}

int pm_shared_array_new(struct ArrowArray *src, pm_shared_array **out, pm_error *err) {
  *out = NULL;
  if (!src || !src->release) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "slice: source is released");
  pm_shared_array *s = calloc(1, sizeof *s);
  if (!s) return PM_NOMEM(err);
  atomic_init(&s->refs, 1);
  s->array = *src;
  src->release = NULL;
  *out = s;
  return 0;
}

const struct ArrowArray *pm_shared_array_get(const pm_shared_array *s) { return &s->array; }

void pm_shared_array_release(pm_shared_array *s) {
  if (s) shared_unref(s);
}

/* A view node: its own buffers/children arrays, pointing at the shared data. */
static void view_release(struct ArrowArray *a) {
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
  free((void *)a->buffers);
  shared_unref(a->private_data);
  a->release = NULL;
}

static int make_view(pm_shared_array *s, const struct ArrowArray *src, struct ArrowArray *v, int depth,
                     pm_error *err) {
  if (depth > PM_ARROW_MAX_DEPTH) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "slice: nesting too deep");
  memset(v, 0, sizeof *v);
  v->length = src->length;
  v->offset = src->offset;
  v->null_count = src->null_count;
  atomic_fetch_add(&s->refs, 1);
  v->private_data = s;
  v->release = view_release;
  if (src->n_buffers > 0) {
    v->buffers = malloc((size_t)src->n_buffers * sizeof *v->buffers);
    if (!v->buffers) goto nomem;
    memcpy((void *)v->buffers, src->buffers, (size_t)src->n_buffers * sizeof *v->buffers);
    v->n_buffers = src->n_buffers;
  }
  if (src->n_children > 0) {
    v->children = calloc((size_t)src->n_children, sizeof *v->children);
    if (!v->children) goto nomem;
    v->n_children = src->n_children;
    for (int64_t i = 0; i < src->n_children; i++) {
      v->children[i] = calloc(1, sizeof **v->children);
      if (!v->children[i]) goto nomem;
      int rc = make_view(s, src->children[i], v->children[i], depth + 1, err);
      if (rc) {
        view_release(v);
        return rc;
      }
    }
  }
  if (src->dictionary) {
    v->dictionary = calloc(1, sizeof *v->dictionary);
    if (!v->dictionary) goto nomem;
    int rc = make_view(s, src->dictionary, v->dictionary, depth + 1, err);
    if (rc) {
      view_release(v);
      return rc;
    }
  }
  return 0;
nomem:
  view_release(v);
  return PM_NOMEM(err);
}

int pm_shared_array_slice(pm_shared_array *s, int64_t start, int64_t length, struct ArrowArray *out, pm_error *err) {
  out->release = NULL;
  const struct ArrowArray *src = &s->array;
  if (start < 0 || length < 0 || start > src->length || length > src->length - start)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "slice: rows [%lld, +%lld) outside array of length %lld",
                     (long long)start, (long long)length, (long long)src->length);
  PM_TRY(make_view(s, src, out, 0, err));
  out->offset = src->offset + start;
  out->length = length;
  const uint8_t *validity = src->n_buffers > 0 ? src->buffers[0] : NULL;
  if (!validity || src->null_count == 0)
    out->null_count = validity ? 0 : (src->n_buffers == 0 ? length : 0);
  else
    out->null_count = length - pm_bits_count(validity, out->offset, length);
  return 0;
}

int pm_slice(struct ArrowArray *src, int64_t start, int64_t length, struct ArrowArray *out, pm_error *err) {
  pm_shared_array *s;
  PM_TRY(pm_shared_array_new(src, &s, err));
  int rc = pm_shared_array_slice(s, start, length, out, err);
  pm_shared_array_release(s);
  return rc;
}
