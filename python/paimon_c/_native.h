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
#include "paimon/branch.h"
#include "paimon/cleanup.h"
#include "paimon/compact.h"
#include "paimon/expire.h"
#include "paimon/scan_select.h"
#include "paimon/update.h"

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
  H_UPDATE, /* row-id column updater (owner: its write builder) */
  H_KIND_COUNT
};

/* A Python object owning (or, for plan splits, borrowing) one C handle. */
typedef struct {
  PyObject_HEAD void *ptr;
  int kind;
  PyObject *owner; /* keeps the handle this one was made from alive */
} Handle;

extern PyTypeObject *pc_HandleType;

/* Wraps ptr (never NULL) as a new Handle keeping `owner` alive; frees ptr if that fails. */
PyObject *pc_wrap(void *ptr, int kind, PyObject *owner);
/* The pointer of a live handle of `kind` (H_SPLIT also takes plan splits), else NULL + exception. */
void *pc_get(PyObject *o, int kind);
/* Frees the handle's C object now (idempotent). */
void pc_handle_release(Handle *h);
void pc_stream_free(struct ArrowArrayStream *s);
/* Raises the exception registered for status st with err's message; returns NULL. */
PyObject *pc_raise(paimon_status st, const paimon_error *err);
/* UTF-8 of a str, valid while *hold lives (the caller releases *hold). */
const char *pc_utf8(PyObject *o, PyObject **hold);
/* A list of str as a new list, freeing the C array. */
PyObject *pc_strings_to_list(char **names, size_t n);

/* String list/tuple (or None) as a C array; holds are collected in *holds (a list). */
typedef struct {
  const char **v;
  size_t n;
  PyObject *holds;
} strv;

int pc_strv_from(PyObject *seq, strv *out);
void pc_strv_free(strv *s);

/* A dict of str -> str (or None) as paimon_option[]. */
typedef struct {
  paimon_option *v;
  size_t n;
  PyObject *holds;
} optv;

int pc_optv_from(PyObject *dict, optv *out);
void pc_optv_free(optv *o);

#define GET(var, type, obj, kind)    \
  type *var = pc_get((obj), (kind));    \
  if (!var) return NULL

#define CALL(expr)                        \
  do {                                    \
    paimon_status st_;                    \
    Py_BEGIN_ALLOW_THREADS st_ = (expr);  \
    Py_END_ALLOW_THREADS if (st_) return pc_raise(st_, &err); \
  } while (0)

extern PyMethodDef pc_read_methods[];
extern PyMethodDef pc_write_methods[];

/* Arrow batches to Python rows (_convert.c). Returns a new list of dicts
 * (one per row) or NULL with an exception set. */
PyObject *pc_batch_to_rows(const struct ArrowSchema *schema, const struct ArrowArray *batch);
/* Module state needed by the converter (imported lazily). */
int pc_convert_init(void);

#endif
