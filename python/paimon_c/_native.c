/*
 * paimon_c._native: a thin CPython extension over libpaimon's public API
 * (the headers under include/paimon only). Every C handle lives in a `Handle` object that
 * frees it on close() or, as a last resort, when collected; a handle made
 * from another keeps that one alive (a read builder keeps its table, a plan
 * split its plan). The GIL is released around every call that does I/O or
 * decoding. The pure-Python layer (paimon_c/__init__.py) gives the public
 * class names; errors are raised as the classes it registers per status code.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

#include "_native.h"

/* ------------------------------------------------------------ handles */

typedef struct {
  PyObject_HEAD void *ptr;
  int kind;
  PyObject *owner; /* keeps the handle this one was made from alive */
} Handle;

static PyTypeObject *HandleType;
static PyObject *g_errors; /* (message, code) -> exception, set by _register_errors */

static const char *const KIND_NAMES[H_KIND_COUNT] = {
    "?", "catalog", "table", "read builder", "plan", "split", "split", "stream", "write builder",
    "write", "commit messages", "commit", "stream scan"};

static void stream_free(struct ArrowArrayStream *s) {
  if (!s) return;
  if (s->release) s->release(s);
  free(s);
}

static void handle_release(Handle *h) {
  void *p = h->ptr;
  h->ptr = NULL;
  if (p) {
    switch (h->kind) {
      case H_CATALOG: paimon_catalog_free(p); break;
      case H_TABLE: paimon_table_free(p); break;
      case H_READ_BUILDER: paimon_read_builder_free(p); break;
      case H_PLAN: paimon_plan_free(p); break;
      case H_SPLIT: paimon_split_free(p); break;
      case H_PLAN_SPLIT: break;
      case H_STREAM: stream_free(p); break;
      case H_WRITE_BUILDER: paimon_write_builder_free(p); break;
      case H_WRITE: paimon_table_write_free(p); break;
      case H_MESSAGES: paimon_commit_messages_free(p); break;
      case H_COMMIT: paimon_table_commit_free(p); break;
      case H_STREAM_SCAN: paimon_stream_scan_free(p); break;
      default: break;
    }
  }
  Py_CLEAR(h->owner);
}

static void handle_dealloc(PyObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  handle_release((Handle *)self);
  freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
  f(self);
  Py_DECREF(tp);
}

static PyObject *handle_close(PyObject *self, PyObject *unused) {
  handle_release((Handle *)self);
  Py_RETURN_NONE;
}

static PyObject *handle_closed(PyObject *self, PyObject *unused) { return PyBool_FromLong(((Handle *)self)->ptr == NULL); }

static PyMethodDef handle_methods[] = {{"close", handle_close, METH_NOARGS, "Free the C handle now."},
                                       {"closed", handle_closed, METH_NOARGS, "True once freed."},
                                       {NULL, NULL, 0, NULL}};

static PyType_Slot handle_slots[] = {{Py_tp_dealloc, (void *)handle_dealloc},
                                     {Py_tp_methods, handle_methods},
                                     {Py_tp_doc, (void *)"An owned libpaimon handle."},
                                     {0, NULL}};

static PyType_Spec handle_spec = {"paimon_c._native.Handle", sizeof(Handle), 0, Py_TPFLAGS_DEFAULT, handle_slots};

/* Wraps ptr (never NULL) as a new Handle; frees ptr if the wrapper cannot be made. */
static PyObject *wrap(void *ptr, int kind, PyObject *owner) {
  allocfunc alloc = (allocfunc)PyType_GetSlot(HandleType, Py_tp_alloc);
  Handle *h = (Handle *)alloc(HandleType, 0);
  if (!h) {
    Handle tmp = {0};
    tmp.ptr = ptr;
    tmp.kind = kind;
    handle_release(&tmp);
    return NULL;
  }
  h->ptr = ptr;
  h->kind = kind;
  h->owner = owner;
  Py_XINCREF(owner);
  return (PyObject *)h;
}

/* The pointer of a live handle of `kind` (H_SPLIT also accepts plan splits), else NULL + TypeError/ValueError. */
static void *get(PyObject *o, int kind) {
  if (!PyObject_TypeCheck(o, HandleType)) {
    PyErr_Format(PyExc_TypeError, "expected a %s handle", KIND_NAMES[kind]);
    return NULL;
  }
  Handle *h = (Handle *)o;
  if (h->kind != kind && !(kind == H_SPLIT && h->kind == H_PLAN_SPLIT)) {
    PyErr_Format(PyExc_TypeError, "expected a %s handle, got a %s handle", KIND_NAMES[kind], KIND_NAMES[h->kind]);
    return NULL;
  }
  if (!h->ptr) {
    PyErr_Format(PyExc_ValueError, "the %s is closed", KIND_NAMES[kind]);
    return NULL;
  }
  return h->ptr;
}

#define GET(var, type, obj, kind)    \
  type *var = get((obj), (kind));    \
  if (!var) return NULL

/* ------------------------------------------------------------- errors */

static PyObject *raise_err(paimon_status st, const paimon_error *err) {
  const char *msg = err->message[0] ? err->message : paimon_status_name(st);
  if (!g_errors) {
    PyErr_Format(PyExc_RuntimeError, "%s (%s)", msg, paimon_status_name(st));
    return NULL;
  }
  PyObject *exc = PyObject_CallFunction(g_errors, "si", msg, (int)st);
  if (exc) {
    PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
    Py_DECREF(exc);
  }
  return NULL;
}

/* Registers the Python factory (message, code) -> exception instance. */
static PyObject *register_errors(PyObject *self, PyObject *arg) {
  if (!PyCallable_Check(arg)) return PyErr_Format(PyExc_TypeError, "expected a callable");
  Py_XDECREF(g_errors);
  g_errors = arg;
  Py_INCREF(arg);
  Py_RETURN_NONE;
}

#define CALL(expr)                        \
  do {                                    \
    paimon_status st_;                    \
    Py_BEGIN_ALLOW_THREADS st_ = (expr);  \
    Py_END_ALLOW_THREADS if (st_) return raise_err(st_, &err); \
  } while (0)

/* ------------------------------------------------- argument helpers */

/* UTF-8 of a str (valid while *hold lives). */
static const char *utf8(PyObject *o, PyObject **hold) {
  *hold = NULL;
  if (!PyUnicode_Check(o)) {
    PyErr_Format(PyExc_TypeError, "expected str, got %s", Py_TYPE(o) == NULL ? "?" : "another type");
    return NULL;
  }
  *hold = PyUnicode_AsUTF8String(o);
  return *hold ? PyBytes_AsString(*hold) : NULL;
}

/* String list/tuple (or None) as a C array; holds are collected in *holds (a list). */
typedef struct {
  const char **v;
  size_t n;
  PyObject *holds;
} strv;

static void strv_free(strv *s) {
  free(s->v);
  Py_XDECREF(s->holds);
  memset(s, 0, sizeof *s);
}

static int strv_from(PyObject *seq, strv *out) {
  memset(out, 0, sizeof *out);
  if (seq == Py_None) return 0;
  PyObject *fast = PySequence_Tuple(seq);
  if (!fast) return -1;
  Py_ssize_t n = PyTuple_Size(fast);
  out->v = calloc((size_t)n + 1, sizeof *out->v);
  out->holds = PyList_New(0);
  if (!out->v || !out->holds) {
    Py_DECREF(fast);
    strv_free(out);
    PyErr_NoMemory();
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *hold;
    const char *s = utf8(PyTuple_GetItem(fast, i), &hold);
    if (!s || PyList_Append(out->holds, hold)) {
      Py_XDECREF(hold);
      Py_DECREF(fast);
      strv_free(out);
      return -1;
    }
    Py_DECREF(hold);
    out->v[i] = s;
  }
  out->n = (size_t)n;
  Py_DECREF(fast);
  return 0;
}

/* A dict of str -> str (or None) as paimon_option[]. */
typedef struct {
  paimon_option *v;
  size_t n;
  PyObject *holds;
} optv;

static void optv_free(optv *o) {
  free(o->v);
  Py_XDECREF(o->holds);
  memset(o, 0, sizeof *o);
}

static int optv_from(PyObject *dict, optv *out) {
  memset(out, 0, sizeof *out);
  if (dict == Py_None) return 0;
  if (!PyDict_Check(dict)) {
    PyErr_SetString(PyExc_TypeError, "options must be a dict of str to str");
    return -1;
  }
  Py_ssize_t n = PyDict_Size(dict), pos = 0, i = 0;
  out->v = calloc((size_t)n + 1, sizeof *out->v);
  out->holds = PyList_New(0);
  if (!out->v || !out->holds) {
    optv_free(out);
    PyErr_NoMemory();
    return -1;
  }
  PyObject *k, *v;
  while (PyDict_Next(dict, &pos, &k, &v)) {
    PyObject *hk, *hv = NULL;
    const char *ks = utf8(k, &hk);
    const char *vs = ks ? utf8(v, &hv) : NULL;
    if (!vs || PyList_Append(out->holds, hk) || PyList_Append(out->holds, hv)) {
      Py_XDECREF(hk);
      Py_XDECREF(hv);
      optv_free(out);
      return -1;
    }
    Py_DECREF(hk);
    Py_DECREF(hv);
    out->v[i].key = ks;
    out->v[i].value = vs;
    i++;
  }
  out->n = (size_t)i;
  return 0;
}

static PyObject *strings_to_list(char **names, size_t n) {
  PyObject *l = PyList_New(0);
  for (size_t i = 0; l && i < n; i++) {
    PyObject *s = PyUnicode_FromString(names[i]);
    if (!s || PyList_Append(l, s)) Py_CLEAR(l);
    Py_XDECREF(s);
  }
  paimon_free_strings(names, n);
  return l;
}

/* ------------------------------------------------------------ catalog */

static PyObject *catalog_open(PyObject *self, PyObject *args) {
  PyObject *opts;
  if (!PyArg_ParseTuple(args, "O", &opts)) return NULL;
  optv o;
  if (optv_from(opts, &o)) return NULL;
  paimon_catalog *c = NULL;
  paimon_error err;
  paimon_status st;
  Py_BEGIN_ALLOW_THREADS st = paimon_catalog_open(o.v, o.n, &c, &err);
  Py_END_ALLOW_THREADS optv_free(&o);
  if (st) return raise_err(st, &err);
  return wrap(c, H_CATALOG, NULL);
}

static PyObject *catalog_list_databases(PyObject *self, PyObject *args) {
  PyObject *h;
  if (!PyArg_ParseTuple(args, "O", &h)) return NULL;
  GET(c, paimon_catalog, h, H_CATALOG);
  char **names = NULL;
  size_t n = 0;
  paimon_error err;
  CALL(paimon_catalog_list_databases(c, &names, &n, &err));
  return strings_to_list(names, n);
}

static PyObject *catalog_list_tables(PyObject *self, PyObject *args) {
  PyObject *h;
  const char *db;
  if (!PyArg_ParseTuple(args, "Os", &h, &db)) return NULL;
  GET(c, paimon_catalog, h, H_CATALOG);
  char **names = NULL;
  size_t n = 0;
  paimon_error err;
  CALL(paimon_catalog_list_tables(c, db, &names, &n, &err));
  return strings_to_list(names, n);
}

static PyObject *catalog_create_database(PyObject *self, PyObject *args) {
  PyObject *h, *props;
  const char *name;
  int ignore;
  if (!PyArg_ParseTuple(args, "OsOp", &h, &name, &props, &ignore)) return NULL;
  GET(c, paimon_catalog, h, H_CATALOG);
  optv o;
  if (optv_from(props, &o)) return NULL;
  paimon_error err;
  paimon_status st;
  Py_BEGIN_ALLOW_THREADS st = paimon_catalog_create_database(c, name, o.v, o.n, ignore, &err);
  Py_END_ALLOW_THREADS optv_free(&o);
  if (st) return raise_err(st, &err);
  Py_RETURN_NONE;
}

static PyObject *catalog_drop_database(PyObject *self, PyObject *args) {
  PyObject *h;
  const char *name;
  int cascade, ignore;
  if (!PyArg_ParseTuple(args, "Ospp", &h, &name, &cascade, &ignore)) return NULL;
  GET(c, paimon_catalog, h, H_CATALOG);
  paimon_error err;
  CALL(paimon_catalog_drop_database(c, name, cascade, ignore, &err));
  Py_RETURN_NONE;
}

static PyObject *catalog_get_table(PyObject *self, PyObject *args) {
  PyObject *h;
  const char *ident;
  int system = 0;
  if (!PyArg_ParseTuple(args, "Os|p", &h, &ident, &system)) return NULL;
  GET(c, paimon_catalog, h, H_CATALOG);
  paimon_table *t = NULL;
  paimon_error err;
  if (system)
    CALL(paimon_catalog_get_system_table(c, ident, &t, &err));
  else
    CALL(paimon_catalog_get_table(c, ident, &t, &err));
  return wrap(t, H_TABLE, h);
}

static PyObject *catalog_create_table(PyObject *self, PyObject *args) {
  PyObject *h;
  const char *ident;
  const char *json;
  Py_ssize_t json_len;
  int ignore;
  if (!PyArg_ParseTuple(args, "Oss#p", &h, &ident, &json, &json_len, &ignore)) return NULL;
  GET(c, paimon_catalog, h, H_CATALOG);
  paimon_schema_builder *b = NULL;
  paimon_error err;
  CALL(paimon_schema_builder_from_json(json, (size_t)json_len, &b, &err));
  paimon_status st;
  Py_BEGIN_ALLOW_THREADS st = paimon_catalog_create_table(c, ident, b, ignore, &err);
  Py_END_ALLOW_THREADS paimon_schema_builder_free(b);
  if (st) return raise_err(st, &err);
  Py_RETURN_NONE;
}

static PyObject *catalog_drop_table(PyObject *self, PyObject *args) {
  PyObject *h;
  const char *ident;
  int ignore;
  if (!PyArg_ParseTuple(args, "Osp", &h, &ident, &ignore)) return NULL;
  GET(c, paimon_catalog, h, H_CATALOG);
  paimon_error err;
  CALL(paimon_catalog_drop_table(c, ident, ignore, &err));
  Py_RETURN_NONE;
}

static PyObject *catalog_rename_table(PyObject *self, PyObject *args) {
  PyObject *h;
  const char *from, *to;
  int ignore;
  if (!PyArg_ParseTuple(args, "Ossp", &h, &from, &to, &ignore)) return NULL;
  GET(c, paimon_catalog, h, H_CATALOG);
  paimon_error err;
  CALL(paimon_catalog_rename_table(c, from, to, ignore, &err));
  Py_RETURN_NONE;
}

/* Schema changes: a list of tuples (op, args...):
 * ("add_column", name, type, comment|None, position 0/1/2, reference|None), ("drop_column", name),
 * ("rename_column", name, new), ("update_column_type", name, type), ("update_column_nullability", name, bool),
 * ("update_column_comment", name, comment), ("set_option", k, v), ("remove_option", k), ("update_comment", c). */
static int make_change(PyObject *t, paimon_schema_change **out, paimon_error *err) {
  const char *op, *a = NULL, *b = NULL, *r = NULL, *pref = NULL;
  int pos = 0, flag = 0;
  PyObject *first = PyTuple_Check(t) && PyTuple_Size(t) > 0 ? PyTuple_GetItem(t, 0) : NULL;
  PyObject *hold;
  op = first ? utf8(first, &hold) : NULL;
  if (!op) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "a schema change is a tuple (op, ...)");
    return -1;
  }
  paimon_status st = PAIMON_OK;
  int bad = 0;
  if (!strcmp(op, "add_column")) {
    bad = !PyArg_ParseTuple(t, "sssziz", &op, &a, &b, &r, &pos, &pref);
    if (!bad) st = paimon_schema_change_add_column(a, b, r, (paimon_column_position)pos, pref, out, err);
  } else if (!strcmp(op, "drop_column")) {
    bad = !PyArg_ParseTuple(t, "ss", &op, &a);
    if (!bad) st = paimon_schema_change_drop_column(a, out, err);
  } else if (!strcmp(op, "rename_column")) {
    bad = !PyArg_ParseTuple(t, "sss", &op, &a, &b);
    if (!bad) st = paimon_schema_change_rename_column(a, b, out, err);
  } else if (!strcmp(op, "update_column_type")) {
    bad = !PyArg_ParseTuple(t, "sss", &op, &a, &b);
    if (!bad) st = paimon_schema_change_update_column_type(a, b, out, err);
  } else if (!strcmp(op, "update_column_nullability")) {
    bad = !PyArg_ParseTuple(t, "ssp", &op, &a, &flag);
    if (!bad) st = paimon_schema_change_update_column_nullability(a, flag, out, err);
  } else if (!strcmp(op, "update_column_comment")) {
    bad = !PyArg_ParseTuple(t, "ssz", &op, &a, &b);
    if (!bad) st = paimon_schema_change_update_column_comment(a, b, out, err);
  } else if (!strcmp(op, "update_column_position")) {
    bad = !PyArg_ParseTuple(t, "ssiz", &op, &a, &pos, &r);
    if (!bad) st = paimon_schema_change_update_column_position(a, (paimon_column_position)pos, r, out, err);
  } else if (!strcmp(op, "set_option")) {
    bad = !PyArg_ParseTuple(t, "sss", &op, &a, &b);
    if (!bad) st = paimon_schema_change_set_option(a, b, out, err);
  } else if (!strcmp(op, "remove_option")) {
    bad = !PyArg_ParseTuple(t, "ss", &op, &a);
    if (!bad) st = paimon_schema_change_remove_option(a, out, err);
  } else if (!strcmp(op, "update_comment")) {
    bad = !PyArg_ParseTuple(t, "sz", &op, &a);
    if (!bad) st = paimon_schema_change_update_comment(a, out, err);
  } else {
    PyErr_Format(PyExc_ValueError, "unknown schema change '%s'", op);
    bad = 1;
  }
  Py_XDECREF(hold);
  if (bad) return -1;
  if (st) {
    raise_err(st, err);
    return -1;
  }
  return 0;
}

static PyObject *catalog_alter_table(PyObject *self, PyObject *args) {
  PyObject *h, *changes;
  const char *ident;
  int ignore;
  if (!PyArg_ParseTuple(args, "OsOp", &h, &ident, &changes, &ignore)) return NULL;
  GET(c, paimon_catalog, h, H_CATALOG);
  PyObject *tup = PySequence_Tuple(changes);
  if (!tup) return NULL;
  Py_ssize_t n = PyTuple_Size(tup);
  paimon_schema_change **v = calloc((size_t)n + 1, sizeof *v);
  paimon_error err;
  int ok = v != NULL;
  for (Py_ssize_t i = 0; ok && i < n; i++) ok = !make_change(PyTuple_GetItem(tup, i), &v[i], &err);
  Py_DECREF(tup);
  paimon_status st = PAIMON_OK;
  if (ok) {
    Py_BEGIN_ALLOW_THREADS st = paimon_catalog_alter_table(c, ident, (const paimon_schema_change *const *)v,
                                                            (size_t)n, ignore, &err);
    Py_END_ALLOW_THREADS
  }
  for (Py_ssize_t i = 0; v && i < n; i++) paimon_schema_change_free(v[i]);
  free(v);
  if (!ok) return PyErr_Occurred() ? NULL : PyErr_NoMemory();
  if (st) return raise_err(st, &err);
  Py_RETURN_NONE;
}

static PyObject *catalog_read_system_table(PyObject *self, PyObject *args) {
  PyObject *h;
  const char *ident;
  if (!PyArg_ParseTuple(args, "Os", &h, &ident)) return NULL;
  GET(c, paimon_catalog, h, H_CATALOG);
  struct ArrowArrayStream *s = calloc(1, sizeof *s);
  if (!s) return PyErr_NoMemory();
  paimon_error err;
  paimon_status st;
  Py_BEGIN_ALLOW_THREADS st = paimon_catalog_read_system_table(c, ident, s, &err);
  Py_END_ALLOW_THREADS if (st) {
    free(s);
    return raise_err(st, &err);
  }
  return wrap(s, H_STREAM, NULL);
}

/* -------------------------------------------------------------- table */

static PyObject *table_info(PyObject *self, PyObject *args) {
  PyObject *h;
  if (!PyArg_ParseTuple(args, "O", &h)) return NULL;
  GET(t, paimon_table, h, H_TABLE);
  PyObject *cols = PyList_New(0), *pks = PyList_New(0), *parts = PyList_New(0);
  paimon_error err;
  for (size_t i = 0; cols && i < paimon_table_num_columns(t); i++) {
    char *type = NULL;
    paimon_status st = paimon_table_column_type(t, i, &type, &err);
    if (st) {
      Py_XDECREF(cols);
      Py_XDECREF(pks);
      Py_XDECREF(parts);
      return raise_err(st, &err);
    }
    PyObject *pair = Py_BuildValue("(ss)", paimon_table_column_name(t, i), type);
    paimon_free_string(type);
    if (!pair || PyList_Append(cols, pair)) Py_CLEAR(cols);
    Py_XDECREF(pair);
  }
  for (size_t i = 0; pks && i < paimon_table_num_primary_keys(t); i++) {
    PyObject *s = PyUnicode_FromString(paimon_table_primary_key(t, i));
    if (!s || PyList_Append(pks, s)) Py_CLEAR(pks);
    Py_XDECREF(s);
  }
  for (size_t i = 0; parts && i < paimon_table_num_partition_keys(t); i++) {
    PyObject *s = PyUnicode_FromString(paimon_table_partition_key(t, i));
    if (!s || PyList_Append(parts, s)) Py_CLEAR(parts);
    Py_XDECREF(s);
  }
  if (!cols || !pks || !parts) {
    Py_XDECREF(cols);
    Py_XDECREF(pks);
    Py_XDECREF(parts);
    return NULL;
  }
  return Py_BuildValue("{s:s,s:s,s:N,s:N,s:N,s:L}", "identifier", paimon_table_identifier(t), "branch",
                       paimon_table_branch(t), "columns", cols, "primary_keys", pks, "partition_keys", parts,
                       "schema_id", (long long)paimon_table_schema_id(t));
}

static PyObject *table_option(PyObject *self, PyObject *args) {
  PyObject *h;
  const char *key;
  if (!PyArg_ParseTuple(args, "Os", &h, &key)) return NULL;
  GET(t, paimon_table, h, H_TABLE);
  const char *v = paimon_table_option(t, key);
  if (!v) Py_RETURN_NONE;
  return PyUnicode_FromString(v);
}

static PyObject *table_latest_snapshot_id(PyObject *self, PyObject *args) {
  PyObject *h;
  if (!PyArg_ParseTuple(args, "O", &h)) return NULL;
  GET(t, paimon_table, h, H_TABLE);
  int64_t id = 0;
  paimon_error err;
  CALL(paimon_table_latest_snapshot_id(t, &id, &err));
  return PyLong_FromLongLong(id);
}

static PyObject *table_list_tags(PyObject *self, PyObject *args) {
  PyObject *h;
  if (!PyArg_ParseTuple(args, "O", &h)) return NULL;
  GET(t, paimon_table, h, H_TABLE);
  char **names = NULL;
  size_t n = 0;
  paimon_error err;
  CALL(paimon_table_list_tags(t, &names, &n, &err));
  return strings_to_list(names, n);
}

static PyObject *table_get_tag(PyObject *self, PyObject *args) {
  PyObject *h;
  const char *name;
  if (!PyArg_ParseTuple(args, "Os", &h, &name)) return NULL;
  GET(t, paimon_table, h, H_TABLE);
  int64_t id = 0;
  char *json = NULL;
  paimon_error err;
  CALL(paimon_table_get_tag(t, name, &id, &json, &err));
  PyObject *r = Py_BuildValue("(Ls)", (long long)id, json ? json : "{}");
  paimon_free_string(json);
  return r;
}

static PyObject *table_create_tag(PyObject *self, PyObject *args) {
  PyObject *h;
  const char *name, *retained = NULL;
  long long snap = -1;
  int ignore = 0;
  if (!PyArg_ParseTuple(args, "OsLzp", &h, &name, &snap, &retained, &ignore)) return NULL;
  GET(t, paimon_table, h, H_TABLE);
  paimon_error err;
  CALL(paimon_table_create_tag(t, name, snap, retained, ignore, &err));
  Py_RETURN_NONE;
}

static PyObject *table_delete_tag(PyObject *self, PyObject *args) {
  PyObject *h;
  const char *name;
  if (!PyArg_ParseTuple(args, "Os", &h, &name)) return NULL;
  GET(t, paimon_table, h, H_TABLE);
  paimon_error err;
  CALL(paimon_table_delete_tag(t, name, &err));
  Py_RETURN_NONE;
}

static PyObject *table_rollback(PyObject *self, PyObject *args) {
  PyObject *h, *target;
  if (!PyArg_ParseTuple(args, "OO", &h, &target)) return NULL;
  GET(t, paimon_table, h, H_TABLE);
  paimon_error err;
  if (PyUnicode_Check(target)) {
    PyObject *hold;
    const char *name = utf8(target, &hold);
    if (!name) return NULL;
    paimon_status st;
    Py_BEGIN_ALLOW_THREADS st = paimon_table_rollback_to_tag(t, name, &err);
    Py_END_ALLOW_THREADS Py_DECREF(hold);
    if (st) return raise_err(st, &err);
  } else {
    long long id = PyLong_AsLongLong(target);
    if (id == -1 && PyErr_Occurred()) return NULL;
    CALL(paimon_table_rollback_to_snapshot(t, id, &err));
  }
  Py_RETURN_NONE;
}

static PyObject *table_compact(PyObject *self, PyObject *args) {
  PyObject *h, *parts;
  int full;
  const char *user = NULL, *filter = NULL;
  if (!PyArg_ParseTuple(args, "OpOzz", &h, &full, &parts, &user, &filter)) return NULL;
  GET(t, paimon_table, h, H_TABLE);
  paimon_compact_options o;
  paimon_compact_options_init(&o);
  o.full = full;
  o.commit_user = user;
  paimon_error err;
  paimon_read_builder *rb = NULL;
  paimon_predicate *pred = NULL;
  if (filter) {
    CALL(paimon_read_builder_new(t, NULL, 0, &rb, &err));
    paimon_status st = paimon_predicate_parse(rb, filter, &pred, &err);
    if (st) {
      paimon_read_builder_free(rb);
      return raise_err(st, &err);
    }
    o.partition_filter = pred;
  }
  optv spec = {0};
  paimon_partition_spec ps;
  if (parts != Py_None) {
    if (optv_from(parts, &spec)) {
      paimon_predicate_free(pred);
      paimon_read_builder_free(rb);
      return NULL;
    }
    ps.fields = spec.v;
    ps.n = spec.n;
    o.partitions = &ps;
    o.n_partitions = 1;
  }
  paimon_compact_result res;
  memset(&res, 0, sizeof res);
  paimon_status st;
  Py_BEGIN_ALLOW_THREADS st = paimon_table_compact(t, &o, &res, &err);
  Py_END_ALLOW_THREADS optv_free(&spec);
  paimon_predicate_free(pred);
  paimon_read_builder_free(rb);
  if (st) return raise_err(st, &err);
  return Py_BuildValue("{s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L}", "tasks", (long long)res.metrics.tasks,
                       "files_removed", (long long)res.metrics.files_removed, "files_added",
                       (long long)res.metrics.files_added, "rows_written", (long long)res.metrics.rows_written,
                       "bytes_written", (long long)res.metrics.bytes_written, "changelog_files_added",
                       (long long)res.metrics.changelog_files_added, "changelog_rows_written",
                       (long long)res.metrics.changelog_rows_written, "changelog_bytes_written",
                       (long long)res.metrics.changelog_bytes_written, "snapshot_id", (long long)res.snapshot_id);
}

/* ------------------------------------------------------- read builder */

static PyObject *read_builder_new(PyObject *self, PyObject *args) {
  PyObject *h, *opts;
  if (!PyArg_ParseTuple(args, "OO", &h, &opts)) return NULL;
  GET(t, paimon_table, h, H_TABLE);
  optv o;
  if (optv_from(opts, &o)) return NULL;
  paimon_read_builder *rb = NULL;
  paimon_error err;
  paimon_status st;
  Py_BEGIN_ALLOW_THREADS st = paimon_read_builder_new(t, o.v, o.n, &rb, &err);
  Py_END_ALLOW_THREADS optv_free(&o);
  if (st) return raise_err(st, &err);
  return wrap(rb, H_READ_BUILDER, h);
}

static PyObject *rb_projection(PyObject *self, PyObject *args) {
  PyObject *h, *cols;
  if (!PyArg_ParseTuple(args, "OO", &h, &cols)) return NULL;
  GET(rb, paimon_read_builder, h, H_READ_BUILDER);
  strv s;
  if (strv_from(cols, &s)) return NULL;
  paimon_error err;
  paimon_status st = paimon_read_builder_with_projection(rb, s.v, s.n, &err);
  strv_free(&s);
  if (st) return raise_err(st, &err);
  Py_RETURN_NONE;
}

static PyObject *rb_settings(PyObject *self, PyObject *args) {
  PyObject *h;
  long long limit;
  int cs, rk;
  if (!PyArg_ParseTuple(args, "OLpp", &h, &limit, &cs, &rk)) return NULL;
  GET(rb, paimon_read_builder, h, H_READ_BUILDER);
  paimon_read_builder_with_limit(rb, limit);
  paimon_read_builder_with_case_sensitive(rb, cs);
  paimon_read_builder_with_row_kind(rb, rk);
  Py_RETURN_NONE;
}

/* A literal from the Python layer's tagged tuple (kind, i, scale, nanos, d, s). */
static int literal_from(PyObject *t, paimon_literal *lit, PyObject **hold) {
  int kind, scale, nanos;
  long long i;
  double d;
  PyObject *s;
  *hold = NULL;
  if (!PyArg_ParseTuple(t, "iLiidO", &kind, &i, &scale, &nanos, &d, &s)) return -1;
  memset(lit, 0, sizeof *lit);
  lit->kind = (paimon_literal_kind)kind;
  lit->i = i;
  lit->scale = scale;
  lit->nanos = nanos;
  lit->d = d;
  if (s != Py_None) {
    char *p;
    Py_ssize_t n;
    if (PyUnicode_Check(s)) {
      *hold = PyUnicode_AsUTF8String(s);
    } else {
      *hold = s;
      Py_INCREF(s);
    }
    if (!*hold || PyBytes_AsStringAndSize(*hold, &p, &n)) return -1;
    lit->s = p;
    lit->len = (size_t)n;
  }
  return 0;
}

/* Builds a predicate from the Python layer's normalized tree:
 * ("and"|"or", [children]) / ("not", child) / (method, field, [literals]). */
static paimon_predicate *make_pred(const paimon_read_builder *rb, PyObject *node) {
  if (!PyTuple_Check(node) || PyTuple_Size(node) < 2) {
    PyErr_SetString(PyExc_TypeError, "malformed predicate node");
    return NULL;
  }
  PyObject *hold;
  const char *m = utf8(PyTuple_GetItem(node, 0), &hold);
  if (!m) return NULL;
  char method[32];
  snprintf(method, sizeof method, "%s", m);
  Py_DECREF(hold);
  paimon_error err;
  paimon_predicate *out = NULL;
  paimon_status st = PAIMON_OK;
  if (!strcmp(method, "and") || !strcmp(method, "or")) {
    PyObject *kids = PySequence_Tuple(PyTuple_GetItem(node, 1));
    if (!kids) return NULL;
    Py_ssize_t n = PyTuple_Size(kids);
    paimon_predicate **v = calloc((size_t)n + 1, sizeof *v);
    Py_ssize_t made = 0;
    for (; v && made < n; made++) {
      v[made] = make_pred(rb, PyTuple_GetItem(kids, made));
      if (!v[made]) break;
    }
    Py_DECREF(kids);
    if (!v || made < n) {
      for (Py_ssize_t k = 0; v && k < made; k++) paimon_predicate_free(v[k]);
      free(v);
      return PyErr_Occurred() ? NULL : (paimon_predicate *)PyErr_NoMemory();
    }
    st = method[0] == 'a' ? paimon_predicate_and(v, (size_t)n, &out, &err) : paimon_predicate_or(v, (size_t)n, &out, &err);
    free(v);
  } else if (!strcmp(method, "not")) {
    paimon_predicate *child = make_pred(rb, PyTuple_GetItem(node, 1));
    if (!child) return NULL;
    st = paimon_predicate_not(child, &out, &err);
  } else {
    if (PyTuple_Size(node) != 3) {
      PyErr_SetString(PyExc_TypeError, "malformed predicate leaf");
      return NULL;
    }
    const char *field = utf8(PyTuple_GetItem(node, 1), &hold);
    if (!field) return NULL;
    PyObject *lits = PySequence_Tuple(PyTuple_GetItem(node, 2));
    if (!lits) {
      Py_DECREF(hold);
      return NULL;
    }
    Py_ssize_t n = PyTuple_Size(lits);
    paimon_literal *lv = calloc((size_t)n + 1, sizeof *lv);
    PyObject *holds = PyList_New(0);
    int ok = lv && holds;
    for (Py_ssize_t k = 0; ok && k < n; k++) {
      PyObject *lh;
      ok = !literal_from(PyTuple_GetItem(lits, k), &lv[k], &lh);
      if (lh) {
        PyList_Append(holds, lh);
        Py_DECREF(lh);
      }
    }
    int need = -1; /* literals the method needs (-1: any >= 1) */
    static const char *const one[] = {"equal", "notEqual", "lessThan", "lessOrEqual", "greaterThan",
                                      "greaterOrEqual", "startsWith", "endsWith", "contains", "like", NULL};
    for (int k = 0; one[k]; k++)
      if (!strcmp(method, one[k])) need = 1;
    if (!strcmp(method, "isNull") || !strcmp(method, "isNotNull")) need = 0;
    if (!strcmp(method, "between")) need = 2;
    if (ok && need >= 0 && n != need) {
      PyErr_Format(PyExc_ValueError, "predicate '%s' on '%s' takes %d literal(s), got %zd", method, field, need, n);
      ok = 0;
    }
    int is_text = !strcmp(method, "startsWith") || !strcmp(method, "endsWith") || !strcmp(method, "contains") ||
                  !strcmp(method, "like");
    if (ok && is_text && lv[0].kind != PAIMON_LITERAL_STRING) {
      PyErr_Format(PyExc_TypeError, "predicate '%s' on '%s' takes a str literal", method, field);
      ok = 0;
    }
    if (ok) {
      if (!strcmp(method, "equal")) st = paimon_predicate_equal(rb, field, lv[0], &out, &err);
      else if (!strcmp(method, "notEqual")) st = paimon_predicate_not_equal(rb, field, lv[0], &out, &err);
      else if (!strcmp(method, "lessThan")) st = paimon_predicate_less_than(rb, field, lv[0], &out, &err);
      else if (!strcmp(method, "lessOrEqual")) st = paimon_predicate_less_or_equal(rb, field, lv[0], &out, &err);
      else if (!strcmp(method, "greaterThan")) st = paimon_predicate_greater_than(rb, field, lv[0], &out, &err);
      else if (!strcmp(method, "greaterOrEqual"))
        st = paimon_predicate_greater_or_equal(rb, field, lv[0], &out, &err);
      else if (!strcmp(method, "isNull")) st = paimon_predicate_is_null(rb, field, &out, &err);
      else if (!strcmp(method, "isNotNull")) st = paimon_predicate_is_not_null(rb, field, &out, &err);
      else if (!strcmp(method, "in")) st = paimon_predicate_in(rb, field, lv, (size_t)n, &out, &err);
      else if (!strcmp(method, "notIn")) st = paimon_predicate_not_in(rb, field, lv, (size_t)n, &out, &err);
      else if (!strcmp(method, "startsWith")) st = paimon_predicate_starts_with(rb, field, lv[0].s, &out, &err);
      else if (!strcmp(method, "endsWith")) st = paimon_predicate_ends_with(rb, field, lv[0].s, &out, &err);
      else if (!strcmp(method, "contains")) st = paimon_predicate_contains(rb, field, lv[0].s, &out, &err);
      else if (!strcmp(method, "like")) st = paimon_predicate_like(rb, field, lv[0].s, &out, &err);
      else if (!strcmp(method, "between")) st = paimon_predicate_between(rb, field, lv[0], lv[1], &out, &err);
      else {
        PyErr_Format(PyExc_ValueError, "unknown predicate method '%s'", method);
        ok = 0;
      }
    }
    free(lv);
    Py_XDECREF(holds);
    Py_DECREF(lits);
    Py_DECREF(hold);
    if (!ok) return NULL;
  }
  if (st) {
    raise_err(st, &err);
    return NULL;
  }
  return out;
}

static PyObject *rb_filter(PyObject *self, PyObject *args) {
  PyObject *h, *tree;
  if (!PyArg_ParseTuple(args, "OO", &h, &tree)) return NULL;
  GET(rb, paimon_read_builder, h, H_READ_BUILDER);
  paimon_predicate *p = NULL;
  if (tree != Py_None) {
    p = make_pred(rb, tree);
    if (!p) return NULL;
  }
  paimon_error err;
  paimon_status st = paimon_read_builder_with_filter(rb, p, &err);
  if (st) return raise_err(st, &err);
  Py_RETURN_NONE;
}

static PyObject *rb_filter_text(PyObject *self, PyObject *args) {
  PyObject *h;
  const char *text;
  if (!PyArg_ParseTuple(args, "Os", &h, &text)) return NULL;
  GET(rb, paimon_read_builder, h, H_READ_BUILDER);
  paimon_predicate *p = NULL;
  paimon_error err;
  CALL(paimon_predicate_parse(rb, text, &p, &err));
  paimon_status st = paimon_read_builder_with_filter(rb, p, &err);
  if (st) return raise_err(st, &err);
  Py_RETURN_NONE;
}

static PyObject *rb_plan(PyObject *self, PyObject *args) {
  PyObject *h;
  if (!PyArg_ParseTuple(args, "O", &h)) return NULL;
  GET(rb, paimon_read_builder, h, H_READ_BUILDER);
  paimon_plan *plan = NULL;
  paimon_error err;
  CALL(paimon_read_builder_plan(rb, &plan, &err));
  return wrap(plan, H_PLAN, h);
}

static PyObject *plan_splits(PyObject *self, PyObject *args) {
  PyObject *h;
  if (!PyArg_ParseTuple(args, "O", &h)) return NULL;
  GET(plan, paimon_plan, h, H_PLAN);
  size_t n = paimon_plan_num_splits(plan);
  PyObject *l = PyList_New(0);
  for (size_t i = 0; l && i < n; i++) {
    PyObject *s = wrap((void *)paimon_plan_split(plan, i), H_PLAN_SPLIT, h);
    if (!s || PyList_Append(l, s)) Py_CLEAR(l);
    Py_XDECREF(s);
  }
  return l;
}

static PyObject *plan_snapshot_id(PyObject *self, PyObject *args) {
  PyObject *h;
  if (!PyArg_ParseTuple(args, "O", &h)) return NULL;
  GET(plan, paimon_plan, h, H_PLAN);
  int64_t id = 0;
  if (!paimon_plan_snapshot_id(plan, &id)) Py_RETURN_NONE;
  return PyLong_FromLongLong(id);
}

static PyObject *split_info(PyObject *self, PyObject *args) {
  PyObject *h;
  if (!PyArg_ParseTuple(args, "O", &h)) return NULL;
  GET(s, paimon_split, h, H_SPLIT);
  return Py_BuildValue("{s:i,s:n,s:L,s:L,s:O,s:O,s:O}", "bucket", (int)paimon_split_bucket(s), "file_count",
                       (Py_ssize_t)paimon_split_num_files(s), "row_count", (long long)paimon_split_row_count(s),
                       "snapshot_id", (long long)paimon_split_snapshot_id(s), "is_streaming",
                       paimon_split_is_streaming(s) ? Py_True : Py_False, "raw_convertible",
                       paimon_split_raw_convertible(s) ? Py_True : Py_False, "is_incremental",
                       paimon_split_is_incremental(s) ? Py_True : Py_False);
}

static PyObject *split_serialize(PyObject *self, PyObject *args) {
  PyObject *h;
  if (!PyArg_ParseTuple(args, "O", &h)) return NULL;
  GET(s, paimon_split, h, H_SPLIT);
  uint8_t *b = NULL;
  size_t n = 0;
  paimon_error err;
  CALL(paimon_split_serialize(s, &b, &n, &err));
  PyObject *r = PyBytes_FromStringAndSize((const char *)b, (Py_ssize_t)n);
  paimon_free_bytes(b);
  return r;
}

static PyObject *split_deserialize(PyObject *self, PyObject *args) {
  const char *b;
  Py_ssize_t n;
  if (!PyArg_ParseTuple(args, "y#", &b, &n)) return NULL;
  paimon_split *s = NULL;
  paimon_error err;
  CALL(paimon_split_deserialize((const uint8_t *)b, (size_t)n, &s, &err));
  return wrap(s, H_SPLIT, NULL);
}

/* Reads splits (list of split handles) or, with splits None, the whole plan's. */
static PyObject *rb_read(PyObject *self, PyObject *args) {
  PyObject *h, *splits;
  if (!PyArg_ParseTuple(args, "OO", &h, &splits)) return NULL;
  GET(rb, paimon_read_builder, h, H_READ_BUILDER);
  PyObject *tup = PySequence_Tuple(splits);
  if (!tup) return NULL;
  Py_ssize_t n = PyTuple_Size(tup);
  const paimon_split **v = calloc((size_t)n + 1, sizeof *v);
  struct ArrowArrayStream *s = calloc(1, sizeof *s);
  if (!v || !s) {
    free(v);
    free(s);
    Py_DECREF(tup);
    return PyErr_NoMemory();
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    v[i] = get(PyTuple_GetItem(tup, i), H_SPLIT);
    if (!v[i]) {
      free(v);
      free(s);
      Py_DECREF(tup);
      return NULL;
    }
  }
  paimon_error err;
  paimon_status st;
  Py_BEGIN_ALLOW_THREADS st = paimon_table_read_splits(rb, v, (size_t)n, s, &err);
  Py_END_ALLOW_THREADS free(v);
  Py_DECREF(tup);
  if (st) {
    free(s);
    return raise_err(st, &err);
  }
  return wrap(s, H_STREAM, NULL);
}

static PyObject *stream_error(struct ArrowArrayStream *s, int rc, const char *what) {
  const char *m = s->get_last_error ? s->get_last_error(s) : NULL;
  paimon_error err;
  err.code = PAIMON_ERR_IO;
  snprintf(err.message, sizeof err.message, "%s: %s", what, m ? m : strerror(rc));
  /* the library's messages start with the status kind when they know it: map the errno */
  paimon_status st = rc == EINVAL ? PAIMON_ERR_INVALID_ARGUMENT : rc == ENOMEM ? PAIMON_ERR_NOMEM : PAIMON_ERR_IO;
  if (m && (strstr(m, "corrupt") || strstr(m, "CORRUPT"))) st = PAIMON_ERR_CORRUPT;
  return raise_err(st, &err);
}

/* The rows of the stream's next batch as a list of dicts, or None at the end. */
static PyObject *stream_next_rows(PyObject *self, PyObject *args) {
  PyObject *h;
  if (!PyArg_ParseTuple(args, "O", &h)) return NULL;
  GET(s, struct ArrowArrayStream, h, H_STREAM);
  if (!s->release) Py_RETURN_NONE;
  struct ArrowSchema schema;
  memset(&schema, 0, sizeof schema);
  int rc;
  Py_BEGIN_ALLOW_THREADS rc = s->get_schema(s, &schema);
  Py_END_ALLOW_THREADS if (rc) return stream_error(s, rc, "reading the schema");
  PyObject *result = NULL;
  for (;;) {
    struct ArrowArray a;
    memset(&a, 0, sizeof a);
    Py_BEGIN_ALLOW_THREADS rc = s->get_next(s, &a);
    Py_END_ALLOW_THREADS if (rc) {
      stream_error(s, rc, "reading a batch");
      break;
    }
    if (!a.release) {
      Py_INCREF(Py_None);
      result = Py_None;
      break;
    }
    if (a.length == 0) {
      a.release(&a);
      continue;
    }
    result = pc_batch_to_rows(&schema, &a);
    a.release(&a);
    break;
  }
  if (schema.release) schema.release(&schema);
  return result;
}

static void stream_capsule_free(PyObject *cap) {
  struct ArrowArrayStream *s = PyCapsule_GetPointer(cap, "arrow_array_stream");
  stream_free(s);
}

static void schema_capsule_free(PyObject *cap) {
  struct ArrowSchema *s = PyCapsule_GetPointer(cap, "arrow_schema");
  if (s && s->release) s->release(s);
  free(s);
}

/* Moves the stream into a PyCapsule "arrow_array_stream" (the handle becomes closed). */
static PyObject *stream_export(PyObject *self, PyObject *args) {
  PyObject *h;
  if (!PyArg_ParseTuple(args, "O", &h)) return NULL;
  GET(s, struct ArrowArrayStream, h, H_STREAM);
  PyObject *cap = PyCapsule_New(s, "arrow_array_stream", stream_capsule_free);
  if (!cap) return NULL;
  ((Handle *)h)->ptr = NULL;
  handle_release((Handle *)h);
  return cap;
}

static PyObject *stream_schema(PyObject *self, PyObject *args) {
  PyObject *h;
  if (!PyArg_ParseTuple(args, "O", &h)) return NULL;
  GET(s, struct ArrowArrayStream, h, H_STREAM);
  struct ArrowSchema *schema = calloc(1, sizeof *schema);
  if (!schema) return PyErr_NoMemory();
  int rc = s->get_schema(s, schema);
  if (rc) {
    free(schema);
    return stream_error(s, rc, "reading the schema");
  }
  PyObject *cap = PyCapsule_New(schema, "arrow_schema", schema_capsule_free);
  if (!cap) {
    schema->release(schema);
    free(schema);
  }
  return cap;
}

static PyObject *rb_read_schema(PyObject *self, PyObject *args) {
  PyObject *h;
  if (!PyArg_ParseTuple(args, "O", &h)) return NULL;
  GET(rb, paimon_read_builder, h, H_READ_BUILDER);
  struct ArrowSchema *schema = calloc(1, sizeof *schema);
  if (!schema) return PyErr_NoMemory();
  paimon_error err;
  paimon_status st = paimon_read_builder_read_schema(rb, schema, &err);
  if (st) {
    free(schema);
    return raise_err(st, &err);
  }
  PyObject *cap = PyCapsule_New(schema, "arrow_schema", schema_capsule_free);
  if (!cap) {
    schema->release(schema);
    free(schema);
  }
  return cap;
}

/* -------------------------------------------------------------- write */

static PyObject *write_builder_new(PyObject *self, PyObject *args) {
  PyObject *h, *opts;
  int streaming;
  if (!PyArg_ParseTuple(args, "OpO", &h, &streaming, &opts)) return NULL;
  GET(t, paimon_table, h, H_TABLE);
  optv o;
  if (optv_from(opts, &o)) return NULL;
  paimon_write_builder *wb = NULL;
  paimon_error err;
  paimon_status st = paimon_write_builder_new(t, streaming, o.v, o.n, &wb, &err);
  optv_free(&o);
  if (st) return raise_err(st, &err);
  return wrap(wb, H_WRITE_BUILDER, h);
}

static PyObject *wb_commit_user(PyObject *self, PyObject *args) {
  PyObject *h, *user = Py_None;
  if (!PyArg_ParseTuple(args, "O|O", &h, &user)) return NULL;
  GET(wb, paimon_write_builder, h, H_WRITE_BUILDER);
  if (user != Py_None) {
    PyObject *hold;
    const char *u = utf8(user, &hold);
    if (!u) return NULL;
    paimon_error err;
    paimon_status st = paimon_write_builder_with_commit_user(wb, u, &err);
    Py_DECREF(hold);
    if (st) return raise_err(st, &err);
  }
  return PyUnicode_FromString(paimon_write_builder_commit_user(wb));
}

static PyObject *wb_overwrite(PyObject *self, PyObject *args) {
  PyObject *h, *spec;
  if (!PyArg_ParseTuple(args, "OO", &h, &spec)) return NULL;
  GET(wb, paimon_write_builder, h, H_WRITE_BUILDER);
  optv o;
  if (optv_from(spec, &o)) return NULL;
  paimon_error err;
  paimon_status st = paimon_write_builder_with_overwrite(wb, o.v, o.n, &err);
  optv_free(&o);
  if (st) return raise_err(st, &err);
  Py_RETURN_NONE;
}

static PyObject *wb_new_write(PyObject *self, PyObject *args) {
  PyObject *h;
  if (!PyArg_ParseTuple(args, "O", &h)) return NULL;
  GET(wb, paimon_write_builder, h, H_WRITE_BUILDER);
  paimon_table_write *w = NULL;
  paimon_error err;
  CALL(paimon_write_builder_new_write(wb, &w, &err));
  return wrap(w, H_WRITE, h);
}

static PyObject *wb_new_commit(PyObject *self, PyObject *args) {
  PyObject *h;
  if (!PyArg_ParseTuple(args, "O", &h)) return NULL;
  GET(wb, paimon_write_builder, h, H_WRITE_BUILDER);
  paimon_table_commit *c = NULL;
  paimon_error err;
  CALL(paimon_write_builder_new_commit(wb, &c, &err));
  return wrap(c, H_COMMIT, h);
}

/* Consumes a PyCapsule "arrow_array_stream" (moved out: the capsule's stream is marked released). */
static PyObject *write_stream(PyObject *self, PyObject *args) {
  PyObject *h, *cap;
  if (!PyArg_ParseTuple(args, "OO", &h, &cap)) return NULL;
  GET(w, paimon_table_write, h, H_WRITE);
  struct ArrowArrayStream *src = PyCapsule_GetPointer(cap, "arrow_array_stream");
  if (!src) return NULL;
  if (!src->release) return PyErr_Format(PyExc_ValueError, "the Arrow stream was already consumed");
  struct ArrowArrayStream s = *src;
  src->release = NULL;
  paimon_error err;
  CALL(paimon_table_write_stream(w, &s, &err));
  Py_RETURN_NONE;
}

/* Writes one batch from capsules "arrow_schema" + "arrow_array" (borrowed: their destructors release). */
static PyObject *write_array(PyObject *self, PyObject *args) {
  PyObject *h, *sc, *ac;
  int kind = -1;
  if (!PyArg_ParseTuple(args, "OOO|i", &h, &sc, &ac, &kind)) return NULL;
  GET(w, paimon_table_write, h, H_WRITE);
  struct ArrowSchema *schema = PyCapsule_GetPointer(sc, "arrow_schema");
  struct ArrowArray *array = schema ? PyCapsule_GetPointer(ac, "arrow_array") : NULL;
  if (!array) return NULL;
  paimon_error err;
  if (kind < 0)
    CALL(paimon_table_write_arrow(w, schema, array, &err));
  else
    CALL(paimon_table_write_arrow_kind(w, schema, array, kind, &err));
  Py_RETURN_NONE;
}

/* Writes rows given as JSON lines (the `table read --format jsonl` encoding), typed by the table. */
static PyObject *write_jsonl(PyObject *self, PyObject *args) {
  PyObject *h, *th;
  const char *data;
  Py_ssize_t len;
  if (!PyArg_ParseTuple(args, "OOy#", &h, &th, &data, &len)) return NULL;
  GET(w, paimon_table_write, h, H_WRITE);
  GET(t, paimon_table, th, H_TABLE);
  FILE *f = tmpfile();
  if (!f) return PyErr_SetFromErrno(PyExc_OSError);
  paimon_error err;
  paimon_status st = PAIMON_OK;
  Py_BEGIN_ALLOW_THREADS if (fwrite(data, 1, (size_t)len, f) != (size_t)len || fflush(f) ||
                             lseek(fileno(f), 0, SEEK_SET) != 0) {
    st = PAIMON_ERR_IO;
    snprintf(err.message, sizeof err.message, "cannot stage rows in a temporary file");
  }
  else {
    struct ArrowArrayStream s;
    memset(&s, 0, sizeof s);
    st = paimon_table_open_input_fd(t, fileno(f), "rows", "jsonl", &s, &err);
    if (!st) st = paimon_table_write_stream(w, &s, &err);
  }
  fclose(f);
  Py_END_ALLOW_THREADS if (st) return raise_err(st, &err);
  Py_RETURN_NONE;
}

/* Compaction in the writer (primary-key tables): partition spec dict or None, bucket (-1 all), full. */
static PyObject *write_compact(PyObject *self, PyObject *args) {
  PyObject *h, *spec;
  int bucket, full;
  if (!PyArg_ParseTuple(args, "OOip", &h, &spec, &bucket, &full)) return NULL;
  GET(w, paimon_table_write, h, H_WRITE);
  optv o;
  if (optv_from(spec, &o)) return NULL;
  paimon_error err;
  paimon_status st;
  Py_BEGIN_ALLOW_THREADS st = paimon_table_write_compact(w, o.v, o.n, bucket, full, &err);
  Py_END_ALLOW_THREADS optv_free(&o);
  if (st) return raise_err(st, &err);
  Py_RETURN_NONE;
}

static PyObject *write_prepare_commit(PyObject *self, PyObject *args) {
  PyObject *h;
  long long ident;
  if (!PyArg_ParseTuple(args, "OL", &h, &ident)) return NULL;
  GET(w, paimon_table_write, h, H_WRITE);
  paimon_commit_messages *m = NULL;
  paimon_error err;
  CALL(paimon_table_write_prepare_commit(w, ident, &m, &err));
  return wrap(m, H_MESSAGES, NULL);
}

static PyObject *messages_info(PyObject *self, PyObject *args) {
  PyObject *h;
  if (!PyArg_ParseTuple(args, "O", &h)) return NULL;
  GET(m, paimon_commit_messages, h, H_MESSAGES);
  return Py_BuildValue("(nLL)", (Py_ssize_t)paimon_commit_messages_count(m),
                       (long long)paimon_commit_messages_file_count(m), (long long)paimon_commit_messages_row_count(m));
}

static PyObject *messages_serialize(PyObject *self, PyObject *args) {
  PyObject *h;
  long long ident;
  if (!PyArg_ParseTuple(args, "OL", &h, &ident)) return NULL;
  GET(m, paimon_commit_messages, h, H_MESSAGES);
  uint8_t *b = NULL;
  size_t n = 0;
  paimon_error err;
  CALL(paimon_commit_messages_serialize(m, ident, &b, &n, &err));
  PyObject *r = PyBytes_FromStringAndSize((const char *)b, (Py_ssize_t)n);
  paimon_free_bytes(b);
  return r;
}

static PyObject *messages_deserialize(PyObject *self, PyObject *args) {
  const char *b;
  Py_ssize_t n;
  int version = 5;
  if (!PyArg_ParseTuple(args, "y#|i", &b, &n, &version)) return NULL;
  paimon_commit_messages *m = NULL;
  int64_t ident = 0;
  paimon_error err;
  CALL(paimon_commit_messages_deserialize((const uint8_t *)b, (size_t)n, version, &m, &ident, &err));
  PyObject *hm = wrap(m, H_MESSAGES, NULL);
  if (!hm) return NULL;
  return Py_BuildValue("(NL)", hm, (long long)ident);
}

/* Moves every message of src into dst (src becomes closed). */
static PyObject *messages_merge(PyObject *self, PyObject *args) {
  PyObject *hd, *hs;
  if (!PyArg_ParseTuple(args, "OO", &hd, &hs)) return NULL;
  GET(dst, paimon_commit_messages, hd, H_MESSAGES);
  GET(src, paimon_commit_messages, hs, H_MESSAGES);
  paimon_error err;
  ((Handle *)hs)->ptr = NULL;
  paimon_status st = paimon_commit_messages_merge(dst, &src, &err);
  paimon_commit_messages_free(src);
  if (st) return raise_err(st, &err);
  Py_RETURN_NONE;
}

static PyObject *commit_commit(PyObject *self, PyObject *args) {
  PyObject *h, *hm, *props;
  long long ident;
  if (!PyArg_ParseTuple(args, "OOLO", &h, &hm, &ident, &props)) return NULL;
  GET(c, paimon_table_commit, h, H_COMMIT);
  GET(m, paimon_commit_messages, hm, H_MESSAGES);
  paimon_error err;
  if (props != Py_None) {
    optv o;
    if (optv_from(props, &o)) return NULL;
    paimon_status st = paimon_table_commit_with_properties(c, o.v, o.n, &err);
    optv_free(&o);
    if (st) return raise_err(st, &err);
  }
  int64_t snap = -1;
  CALL(paimon_table_commit_commit(c, m, ident, &snap, &err));
  return PyLong_FromLongLong(snap);
}

static PyObject *commit_abort(PyObject *self, PyObject *args) {
  PyObject *h, *hm;
  if (!PyArg_ParseTuple(args, "OO", &h, &hm)) return NULL;
  GET(c, paimon_table_commit, h, H_COMMIT);
  GET(m, paimon_commit_messages, hm, H_MESSAGES);
  paimon_error err;
  CALL(paimon_table_commit_abort(c, m, &err));
  Py_RETURN_NONE;
}

static PyObject *commit_truncate(PyObject *self, PyObject *args) {
  PyObject *h, *specs;
  long long ident;
  if (!PyArg_ParseTuple(args, "OOL", &h, &specs, &ident)) return NULL;
  GET(c, paimon_table_commit, h, H_COMMIT);
  paimon_error err;
  int64_t snap = -1;
  if (specs == Py_None) {
    CALL(paimon_table_commit_truncate_table(c, ident, &snap, &err));
    return PyLong_FromLongLong(snap);
  }
  PyObject *tup = PySequence_Tuple(specs);
  if (!tup) return NULL;
  Py_ssize_t n = PyTuple_Size(tup);
  optv *ov = calloc((size_t)n + 1, sizeof *ov);
  const paimon_option **pv = calloc((size_t)n + 1, sizeof *pv);
  size_t *nv = calloc((size_t)n + 1, sizeof *nv);
  int ok = ov && pv && nv;
  Py_ssize_t made = 0;
  for (; ok && made < n; made++) {
    if (optv_from(PyTuple_GetItem(tup, made), &ov[made])) {
      ok = 0;
      break;
    }
    pv[made] = ov[made].v;
    nv[made] = ov[made].n;
  }
  Py_DECREF(tup);
  paimon_status st = PAIMON_OK;
  if (ok) {
    Py_BEGIN_ALLOW_THREADS st = paimon_table_commit_truncate_partitions(c, pv, nv, (size_t)n, ident, &snap, &err);
    Py_END_ALLOW_THREADS
  }
  for (Py_ssize_t i = 0; ov && i < made; i++) optv_free(&ov[i]);
  free(ov);
  free(pv);
  free(nv);
  if (!ok) return PyErr_Occurred() ? NULL : PyErr_NoMemory();
  if (st) return raise_err(st, &err);
  return PyLong_FromLongLong(snap);
}

/* --------------------------------------------------------- stream scan */

static PyObject *stream_scan_new(PyObject *self, PyObject *args) {
  PyObject *h;
  if (!PyArg_ParseTuple(args, "O", &h)) return NULL;
  GET(rb, paimon_read_builder, h, H_READ_BUILDER);
  paimon_stream_scan *s = NULL;
  paimon_error err;
  CALL(paimon_stream_scan_new(rb, &s, &err));
  return wrap(s, H_STREAM_SCAN, h);
}

static PyObject *stream_scan_plan(PyObject *self, PyObject *args) {
  PyObject *h;
  if (!PyArg_ParseTuple(args, "O", &h)) return NULL;
  GET(s, paimon_stream_scan, h, H_STREAM_SCAN);
  paimon_plan *plan = NULL;
  paimon_error err;
  CALL(paimon_stream_scan_plan(s, &plan, &err));
  if (!plan) Py_RETURN_NONE;
  return wrap(plan, H_PLAN, ((Handle *)h)->owner);
}

static PyObject *stream_scan_checkpoint(PyObject *self, PyObject *args) {
  PyObject *h;
  if (!PyArg_ParseTuple(args, "O", &h)) return NULL;
  GET(s, paimon_stream_scan, h, H_STREAM_SCAN);
  int64_t next = 0;
  if (!paimon_stream_scan_checkpoint(s, &next)) Py_RETURN_NONE;
  return PyLong_FromLongLong(next);
}

static PyObject *stream_scan_restore(PyObject *self, PyObject *args) {
  PyObject *h;
  long long next;
  if (!PyArg_ParseTuple(args, "OL", &h, &next)) return NULL;
  GET(s, paimon_stream_scan, h, H_STREAM_SCAN);
  paimon_error err;
  CALL(paimon_stream_scan_restore(s, next, &err));
  Py_RETURN_NONE;
}

static PyObject *stream_scan_notify(PyObject *self, PyObject *args) {
  PyObject *h;
  long long next;
  if (!PyArg_ParseTuple(args, "OL", &h, &next)) return NULL;
  GET(s, paimon_stream_scan, h, H_STREAM_SCAN);
  paimon_error err;
  CALL(paimon_stream_scan_notify_checkpoint_complete(s, next, &err));
  Py_RETURN_NONE;
}

static PyObject *version(PyObject *self, PyObject *unused) { return PyUnicode_FromString(paimon_version()); }

#define M(name, doc) {#name, name, METH_VARARGS, doc}
static PyMethodDef methods[] = {
    {"version", version, METH_NOARGS, "libpaimon version"},
    {"_register_errors", register_errors, METH_O, "the exception factory (message, code)"},
    M(catalog_open, ""),
    M(catalog_list_databases, ""),
    M(catalog_list_tables, ""),
    M(catalog_create_database, ""),
    M(catalog_drop_database, ""),
    M(catalog_get_table, ""),
    M(catalog_create_table, ""),
    M(catalog_drop_table, ""),
    M(catalog_rename_table, ""),
    M(catalog_alter_table, ""),
    M(catalog_read_system_table, ""),
    M(table_info, ""),
    M(table_option, ""),
    M(table_latest_snapshot_id, ""),
    M(table_list_tags, ""),
    M(table_get_tag, ""),
    M(table_create_tag, ""),
    M(table_delete_tag, ""),
    M(table_rollback, ""),
    M(table_compact, ""),
    M(read_builder_new, ""),
    M(rb_projection, ""),
    M(rb_settings, ""),
    M(rb_filter, ""),
    M(rb_filter_text, ""),
    M(rb_plan, ""),
    M(rb_read, ""),
    M(rb_read_schema, ""),
    M(plan_splits, ""),
    M(plan_snapshot_id, ""),
    M(split_info, ""),
    M(split_serialize, ""),
    M(split_deserialize, ""),
    M(stream_next_rows, ""),
    M(stream_export, ""),
    M(stream_schema, ""),
    M(write_builder_new, ""),
    M(wb_commit_user, ""),
    M(wb_overwrite, ""),
    M(wb_new_write, ""),
    M(wb_new_commit, ""),
    M(write_stream, ""),
    M(write_array, ""),
    M(write_jsonl, ""),
    M(write_compact, ""),
    M(write_prepare_commit, ""),
    M(messages_info, ""),
    M(messages_serialize, ""),
    M(messages_deserialize, ""),
    M(messages_merge, ""),
    M(commit_commit, ""),
    M(commit_abort, ""),
    M(commit_truncate, ""),
    M(stream_scan_new, ""),
    M(stream_scan_plan, ""),
    M(stream_scan_checkpoint, ""),
    M(stream_scan_restore, ""),
    M(stream_scan_notify, ""),
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "paimon_c._native", "libpaimon binding", -1, methods,
                                       NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__native(void) {
  PyObject *m = PyModule_Create(&moduledef);
  if (!m) return NULL;
  HandleType = (PyTypeObject *)PyType_FromSpec(&handle_spec);
  if (!HandleType) {
    Py_DECREF(m);
    return NULL;
  }
  Py_INCREF(HandleType);
  if (PyModule_AddObject(m, "Handle", (PyObject *)HandleType)) {
    Py_DECREF(HandleType);
    Py_DECREF(m);
    return NULL;
  }
  PyModule_AddIntConstant(m, "BATCH_COMMIT_IDENTIFIER_HI", 0);
  return m;
}
