#include "arrow/stream.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow.h"

typedef struct stream_private {
  pm_stream_callbacks cb;
  void *state;
  int failed_errno;                      /* sticky error */
  char message[PAIMON_ERROR_MESSAGE_SIZE];
  int has_message;
} stream_private;

int pm_status_to_errno(int status) {
  switch (status) {
    case PAIMON_OK: return 0;
    case PAIMON_ERR_INVALID_ARGUMENT: return EINVAL;
    case PAIMON_ERR_NOT_FOUND: return ENOENT;
    case PAIMON_ERR_UNSUPPORTED: return ENOSYS;
    case PAIMON_ERR_NOMEM: return ENOMEM;
    case PAIMON_ERR_CONFLICT: return EBUSY;
    case PAIMON_ERR_IO:
    case PAIMON_ERR_CORRUPT:
    default: return EIO;
  }
}

int pm_errno_to_status(int errnum) {
  switch (errnum) {
    case 0: return PAIMON_OK;
    case EINVAL: return PAIMON_ERR_INVALID_ARGUMENT;
    case ENOENT: return PAIMON_ERR_NOT_FOUND;
    case ENOSYS:
    case ENOTSUP: return PAIMON_ERR_UNSUPPORTED;
    case ENOMEM: return PAIMON_ERR_NOMEM;
    case EBUSY: return PAIMON_ERR_CONFLICT;
    default: return PAIMON_ERR_IO;
  }
}

static int record(stream_private *p, int rc, const pm_error *e) {
  if (!rc) {
    p->has_message = 0;
    return 0;
  }
  p->failed_errno = pm_status_to_errno(rc);
  snprintf(p->message, sizeof p->message, "%s", e->message[0] ? e->message : paimon_status_name(rc));
  p->has_message = 1;
  return p->failed_errno;
}

static int stream_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
  stream_private *p = s->private_data;
  out->release = NULL;
  if (p->failed_errno) return p->failed_errno;
  pm_error e;
  pm_error_clear(&e);
  int rc = p->cb.get_schema ? p->cb.get_schema(p->state, out, &e)
                            : pm_errorf(&e, PAIMON_ERR_UNSUPPORTED, "stream has no schema callback");
  if (rc && out->release) out->release(out);
  return record(p, rc, &e);
}

static int stream_get_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
  stream_private *p = s->private_data;
  out->release = NULL;
  if (p->failed_errno) return p->failed_errno;
  pm_error e;
  pm_error_clear(&e);
  int rc = p->cb.get_next ? p->cb.get_next(p->state, out, &e)
                          : pm_errorf(&e, PAIMON_ERR_UNSUPPORTED, "stream has no get_next callback");
  if (rc && out->release) out->release(out);
  return record(p, rc, &e);
}

static const char *stream_last_error(struct ArrowArrayStream *s) {
  stream_private *p = s->private_data;
  return p && p->has_message ? p->message : NULL;
}

static void stream_release(struct ArrowArrayStream *s) {
  if (!s || !s->release) return;
  stream_private *p = s->private_data;
  if (p) {
    if (p->cb.release) p->cb.release(p->state);
    free(p);
  }
  /* A released stream has no callbacks (the Arrow C stream interface marks release with NULL). */
  memset(s, 0, sizeof *s);
}

int pm_stream_init(struct ArrowArrayStream *out, const pm_stream_callbacks *cb, void *state, pm_error *err) {
  memset(out, 0, sizeof *out);
  stream_private *p = calloc(1, sizeof *p);
  if (!p) {
    if (cb->release) cb->release(state);
    return PM_NOMEM(err);
  }
  p->cb = *cb;
  p->state = state;
  out->get_schema = stream_get_schema;
  out->get_next = stream_get_next;
  out->get_last_error = stream_last_error;
  out->release = stream_release;
  out->private_data = p;
  return 0;
}

/* ---------- stream from a vector of batches ---------- */

typedef struct vec_state {
  struct ArrowSchema schema;
  struct ArrowArray *batches;
  int64_t n, next;
} vec_state;

static int vec_get_schema(void *st, struct ArrowSchema *out, pm_error *err) {
  vec_state *v = st;
  return pm_schema_copy(&v->schema, out, err);
}

static int vec_get_next(void *st, struct ArrowArray *out, pm_error *err) {
  (void)err;
  vec_state *v = st;
  if (v->next >= v->n) {
    out->release = NULL;
    return 0;
  }
  pm_array_move(&v->batches[v->next++], out);
  return 0;
}

static void vec_release(void *st) {
  vec_state *v = st;
  for (int64_t i = v->next; i < v->n; i++) pm_array_release(&v->batches[i]);
  free(v->batches);
  pm_schema_release(&v->schema);
  free(v);
}

int pm_stream_from_batches(struct ArrowSchema *schema, struct ArrowArray *batches, int64_t n,
                           struct ArrowArrayStream *out, pm_error *err) {
  out->release = NULL;
  vec_state *v = calloc(1, sizeof *v);
  if (!v || (n > 0 && !(v->batches = malloc((size_t)n * sizeof *v->batches)))) {
    free(v);
    return PM_NOMEM(err);
  }
  pm_schema_move(schema, &v->schema);
  for (int64_t i = 0; i < n; i++) pm_array_move(&batches[i], &v->batches[i]);
  v->n = n;
  pm_stream_callbacks cb = {vec_get_schema, vec_get_next, vec_release};
  return pm_stream_init(out, &cb, v, err);
}

/* ---------- consumer helpers ---------- */

static int consumer_error(struct ArrowArrayStream *s, int errnum, const char *what, pm_error *err) {
  const char *msg = s->get_last_error ? s->get_last_error(s) : NULL;
  /* the producer's message already says what failed where: pass it on as is
   * (nested streams would otherwise repeat "stream get_next: " per level) */
  if (msg && *msg) return pm_errorf(err, pm_errno_to_status(errnum), "%s", msg);
  return pm_errorf(err, pm_errno_to_status(errnum), "%s: %s", what, strerror(errnum));
}

int pm_stream_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out, pm_error *err) {
  out->release = NULL;
  if (!s || !s->release) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "stream is released");
  int e = s->get_schema(s, out);
  return e ? consumer_error(s, e, "stream get_schema", err) : 0;
}

int pm_stream_get_next(struct ArrowArrayStream *s, struct ArrowArray *out, pm_error *err) {
  out->release = NULL;
  if (!s || !s->release) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "stream is released");
  int e = s->get_next(s, out);
  return e ? consumer_error(s, e, "stream get_next", err) : 0;
}

void pm_batch_vec_init(pm_batch_vec *v) { memset(v, 0, sizeof *v); }

int pm_batch_vec_push(pm_batch_vec *v, struct ArrowArray *batch, pm_error *err) {
  if (v->n == v->cap) {
    int64_t cap = v->cap ? v->cap * 2 : 8;
    struct ArrowArray *nb = realloc(v->batches, (size_t)cap * sizeof *nb);
    if (!nb) return PM_NOMEM(err);
    v->batches = nb;
    v->cap = cap;
  }
  pm_array_move(batch, &v->batches[v->n++]);
  return 0;
}

int64_t pm_batch_vec_rows(const pm_batch_vec *v) {
  int64_t rows = 0;
  for (int64_t i = 0; i < v->n; i++) rows += v->batches[i].length;
  return rows;
}

void pm_batch_vec_free(pm_batch_vec *v) {
  for (int64_t i = 0; i < v->n; i++) pm_array_release(&v->batches[i]);
  free(v->batches);
  pm_schema_release(&v->schema);
  pm_batch_vec_init(v);
}

int pm_stream_collect(struct ArrowArrayStream *s, pm_batch_vec *out, pm_error *err) {
  pm_batch_vec_init(out);
  int rc = pm_stream_get_schema(s, &out->schema, err);
  while (!rc) {
    struct ArrowArray batch;
    rc = pm_stream_get_next(s, &batch, err);
    if (rc || !batch.release) break;
    rc = pm_batch_vec_push(out, &batch, err);
    if (rc) pm_array_release(&batch);
  }
  if (rc) pm_batch_vec_free(out);
  return rc;
}

int pm_stream_drain(struct ArrowArrayStream *s, pm_stream_batch_fn fn, void *ctx, pm_error *err) {
  struct ArrowSchema schema;
  memset(&schema, 0, sizeof schema);
  int rc = pm_stream_get_schema(s, &schema, err);
  while (!rc) {
    struct ArrowArray batch;
    memset(&batch, 0, sizeof batch);
    rc = pm_stream_get_next(s, &batch, err);
    if (rc || !batch.release) break;
    if (batch.length > 0) rc = fn(ctx, &schema, &batch, err);
    batch.release(&batch);
  }
  if (schema.release) schema.release(&schema);
  s->release(s);
  return rc;
}
