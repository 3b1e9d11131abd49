/*
 * ArrowArrayStream helpers.
 *
 * Producer side: pm_stream_init wraps three callbacks and a private state
 * into a spec-conforming stream. The wrapper
 *   - converts pm status codes to errno values (EINVAL, EIO, ENOMEM, ENOSYS),
 *   - keeps the message of the last error for get_last_error (NULL when the
 *     last call succeeded; the pointer stays valid until the next call or
 *     release),
 *   - after an error, answers every further get_schema/get_next with the same
 *     error (the state is not called again),
 *   - signals end of stream with out->release == NULL, and keeps doing so,
 *   - calls release(state) exactly once from the stream's release.
 *
 * Consumer side: pm_stream_get_schema / pm_stream_get_next turn a stream's
 * errno + get_last_error into a pm status and message.
 */
#ifndef PM_ARROW_STREAM_H
#define PM_ARROW_STREAM_H

#include <stdint.h>

#include "paimon/arrow_c.h"
#include "util/error.h"

typedef struct pm_stream_callbacks {
  /* Writes a new schema (owned by the caller of get_schema). */
  int (*get_schema)(void *state, struct ArrowSchema *out, pm_error *err);
  /* Writes the next batch, or sets out->release = NULL at end of stream. */
  int (*get_next)(void *state, struct ArrowArray *out, pm_error *err);
  /* Frees the state (may be NULL). */
  void (*release)(void *state);
} pm_stream_callbacks;

/* On failure *out is left released and release(state) has been called. */
int pm_stream_init(struct ArrowArrayStream *out, const pm_stream_callbacks *cb, void *state, pm_error *err);

/* errno value for a status (0 for PAIMON_OK) and back. */
int pm_status_to_errno(int status);
int pm_errno_to_status(int errnum);

/* Stream that yields n batches (moved in: *schema and batches[i] become
 * released; the batches array itself stays the caller's). */
int pm_stream_from_batches(struct ArrowSchema *schema, struct ArrowArray *batches, int64_t n,
                           struct ArrowArrayStream *out, pm_error *err);

/* Consumer helpers. */
int pm_stream_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out, pm_error *err);
/* Returns 0 with out->release == NULL at end of stream. */
int pm_stream_get_next(struct ArrowArrayStream *s, struct ArrowArray *out, pm_error *err);

/* A vector of batches with their schema. */
typedef struct pm_batch_vec {
  struct ArrowSchema schema;
  struct ArrowArray *batches;
  int64_t n;
  int64_t cap;
} pm_batch_vec;

void pm_batch_vec_init(pm_batch_vec *v);
/* Moves *batch in (it becomes released). */
int pm_batch_vec_push(pm_batch_vec *v, struct ArrowArray *batch, pm_error *err);
int64_t pm_batch_vec_rows(const pm_batch_vec *v);
void pm_batch_vec_free(pm_batch_vec *v);
/* Reads the schema and every batch of s into *out (initialised here). The
 * stream is not released (the caller still owns it). Empty batches are kept. */
int pm_stream_collect(struct ArrowArrayStream *s, pm_batch_vec *out, pm_error *err);

/* Calls fn(ctx, schema, batch, err) for every non-empty batch of s in order (each batch
 * released after its call), stopping at the first non-zero return or stream error, which
 * is returned. The stream is released in every case (the caller gives it up), so a
 * consumer of a caller's stream needs no cleanup path of its own. */
typedef int (*pm_stream_batch_fn)(void *ctx, const struct ArrowSchema *schema, const struct ArrowArray *batch,
                                  pm_error *err);
int pm_stream_drain(struct ArrowArrayStream *s, pm_stream_batch_fn fn, void *ctx, pm_error *err);

#endif
