/*
 * Internal header of the paimon_c extension: the handle object shared by
 * _native.c (calls into libpaimon) and _convert.c (Arrow -> Python values).
 * Built against the stable ABI (Py_LIMITED_API, defined by setup.py).
 */
#ifndef PAIMON_C_NATIVE_H
#define PAIMON_C_NATIVE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "paimon/paimon.h"
#include "paimon/compact.h"

/* Kinds of C handle a Handle object owns (or borrows, for plan splits). */
enum {
  H_CATALOG = 1,
  H_TABLE,
  H_READ_BUILDER,
  H_PLAN,
  H_SPLIT,      /* owned: paimon_split_deserialize */
  H_PLAN_SPLIT, /* borrowed from a plan (owner keeps the plan alive) */
  H_STREAM,     /* heap struct ArrowArrayStream */
  H_WRITE_BUILDER,
  H_WRITE,
  H_MESSAGES,
  H_COMMIT,
  H_STREAM_SCAN,
  H_KIND_COUNT
};

/* Arrow batches to Python rows (_convert.c). Returns a new list of dicts
 * (one per row) or NULL with an exception set. */
PyObject *pc_batch_to_rows(const struct ArrowSchema *schema, const struct ArrowArray *batch);
/* Module state needed by the converter (imported lazily). */
int pc_convert_init(void);

#endif
