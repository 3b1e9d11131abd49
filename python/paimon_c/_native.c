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


PyTypeObject *pc_HandleType;
static PyObject *g_errors; /* (message, code) -> exception, set by _register_errors */

static const char *const KIND_NAMES[H_KIND_COUNT] = {
    "?", "catalog", "table", "read builder", "plan", "split", "split", "stream", "write builder",
    "write", "commit messages", "commit", "stream scan", "updater"};

void pc_stream_free(struct ArrowArrayStream *s) {
  if (!s) return;
  if (s->release) s->release(s);
  free(s);
}

void pc_handle_release(Handle *h) {
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
      case H_STREAM: pc_stream_free(p); break;
      case H_WRITE_BUILDER: paimon_write_builder_free(p); break;
      case H_WRITE: paimon_table_write_free(p); break;
      case H_MESSAGES: paimon_commit_messages_free(p); break;
      case H_COMMIT: paimon_table_commit_free(p); break;
      case H_STREAM_SCAN: paimon_stream_scan_free(p); break;
      case H_UPDATE: paimon_table_update_free(p); break;
      default: break;
    }
  }
  Py_CLEAR(h->owner);
}

static void handle_dealloc(PyObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  pc_handle_release((Handle *)self);
  freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
  f(self);
  Py_DECREF(tp);
}

static PyObject *handle_close(PyObject *self, PyObject *unused) {
  pc_handle_release((Handle *)self);
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
PyObject *pc_wrap(void *ptr, int kind, PyObject *owner) {
  allocfunc alloc = (allocfunc)PyType_GetSlot(pc_HandleType, Py_tp_alloc);
  Handle *h = (Handle *)alloc(pc_HandleType, 0);
  if (!h) {
    Handle tmp = {0};
    tmp.ptr = ptr;
    tmp.kind = kind;
    pc_handle_release(&tmp);
    return NULL;
  }
  h->ptr = ptr;
  h->kind = kind;
  h->owner = owner;
  Py_XINCREF(owner);
  return (PyObject *)h;
}

/* The pointer of a live handle of `kind` (H_SPLIT also accepts plan splits), else NULL + TypeError/ValueError. */
void *pc_get(PyObject *o, int kind) {
  if (!PyObject_TypeCheck(o, pc_HandleType)) {
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


/* ------------------------------------------------------------- errors */

PyObject *pc_raise(paimon_status st, const paimon_error *err) {
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


/* ------------------------------------------------- argument helpers */

/* UTF-8 of a str (valid while *hold lives). */
const char *pc_utf8(PyObject *o, PyObject **hold) {
  *hold = NULL;
  if (!PyUnicode_Check(o)) {
    PyErr_Format(PyExc_TypeError, "expected str, got %s", Py_TYPE(o) == NULL ? "?" : "another type");
    return NULL;
  }
  *hold = PyUnicode_AsUTF8String(o);
  return *hold ? PyBytes_AsString(*hold) : NULL;
}


void pc_strv_free(strv *s) {
  free(s->v);
  Py_XDECREF(s->holds);
  memset(s, 0, sizeof *s);
}

int pc_strv_from(PyObject *seq, strv *out) {
  memset(out, 0, sizeof *out);
  if (seq == Py_None) return 0;
  PyObject *fast = PySequence_Tuple(seq);
  if (!fast) return -1;
  Py_ssize_t n = PyTuple_Size(fast);
  out->v = calloc((size_t)n + 1, sizeof *out->v);
  out->holds = PyList_New(0);
  if (!out->v || !out->holds) {
    Py_DECREF(fast);
    pc_strv_free(out);
    PyErr_NoMemory();
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *hold;
    const char *s = pc_utf8(PyTuple_GetItem(fast, i), &hold);
    if (!s || PyList_Append(out->holds, hold)) {
      Py_XDECREF(hold);
      Py_DECREF(fast);
      pc_strv_free(out);
      return -1;
    }
    Py_DECREF(hold);
    out->v[i] = s;
  }
  out->n = (size_t)n;
  Py_DECREF(fast);
  return 0;
}


void pc_optv_free(optv *o) {
  free(o->v);
  Py_XDECREF(o->holds);
  memset(o, 0, sizeof *o);
}

int pc_optv_from(PyObject *dict, optv *out) {
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
    pc_optv_free(out);
    PyErr_NoMemory();
    return -1;
  }
  PyObject *k, *v;
  while (PyDict_Next(dict, &pos, &k, &v)) {
    PyObject *hk, *hv = NULL;
    const char *ks = pc_utf8(k, &hk);
    const char *vs = ks ? pc_utf8(v, &hv) : NULL;
    if (!vs || PyList_Append(out->holds, hk) || PyList_Append(out->holds, hv)) {
      Py_XDECREF(hk);
      Py_XDECREF(hv);
      pc_optv_free(out);
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

PyObject *pc_strings_to_list(char **names, size_t n) {
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
  if (pc_optv_from(opts, &o)) return NULL;
  paimon_catalog *c = NULL;
  paimon_error err;
  paimon_status st;
  Py_BEGIN_ALLOW_THREADS st = paimon_catalog_open(o.v, o.n, &c, &err);
  Py_END_ALLOW_THREADS pc_optv_free(&o);
  if (st) return pc_raise(st, &err);
  return pc_wrap(c, H_CATALOG, NULL);
}

static PyObject *catalog_list_databases(PyObject *self, PyObject *args) {
  PyObject *h;
  if (!PyArg_ParseTuple(args, "O", &h)) return NULL;
  GET(c, paimon_catalog, h, H_CATALOG);
  char **names = NULL;
  size_t n = 0;
  paimon_error err;
  CALL(paimon_catalog_list_databases(c, &names, &n, &err));
  return pc_strings_to_list(names, n);
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
  return pc_strings_to_list(names, n);
}

static PyObject *catalog_create_database(PyObject *self, PyObject *args) {
  PyObject *h, *props;
  const char *name;
  int ignore;
  if (!PyArg_ParseTuple(args, "OsOp", &h, &name, &props, &ignore)) return NULL;
  GET(c, paimon_catalog, h, H_CATALOG);
  optv o;
  if (pc_optv_from(props, &o)) return NULL;
  paimon_error err;
  paimon_status st;
  Py_BEGIN_ALLOW_THREADS st = paimon_catalog_create_database(c, name, o.v, o.n, ignore, &err);
  Py_END_ALLOW_THREADS pc_optv_free(&o);
  if (st) return pc_raise(st, &err);
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
  return pc_wrap(t, H_TABLE, h);
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
  if (st) return pc_raise(st, &err);
  Py_RETURN_NONE;
}

/* Creates a table from an Arrow schema capsule ("arrow_schema", only read) plus keys, options, comment. */
static PyObject *catalog_create_table_arrow(PyObject *self, PyObject *args) {
  PyObject *h, *cap, *pks, *parts, *opts;
  const char *ident, *comment;
  int ignore;
  if (!PyArg_ParseTuple(args, "OsOOOOzp", &h, &ident, &cap, &pks, &parts, &opts, &comment, &ignore)) return NULL;
  GET(c, paimon_catalog, h, H_CATALOG);
  const struct ArrowSchema *schema = PyCapsule_GetPointer(cap, "arrow_schema");
  if (!schema) return NULL;
  strv pk, pa;
  optv o;
  if (pc_strv_from(pks, &pk)) return NULL;
  if (pc_strv_from(parts, &pa)) {
    pc_strv_free(&pk);
    return NULL;
  }
  if (pc_optv_from(opts, &o)) {
    pc_strv_free(&pk);
    pc_strv_free(&pa);
    return NULL;
  }
  paimon_schema_builder *b = NULL;
  paimon_error err;
  paimon_status st = paimon_schema_builder_from_arrow(schema, &b, &err);
  if (!st && pk.n) st = paimon_schema_builder_primary_key(b, pk.v, pk.n, &err);
  if (!st && pa.n) st = paimon_schema_builder_partition_keys(b, pa.v, pa.n, &err);
  for (size_t i = 0; !st && i < o.n; i++) st = paimon_schema_builder_option(b, o.v[i].key, o.v[i].value, &err);
  if (!st && comment) st = paimon_schema_builder_comment(b, comment, &err);
  if (!st) {
    Py_BEGIN_ALLOW_THREADS st = paimon_catalog_create_table(c, ident, b, ignore, &err);
    Py_END_ALLOW_THREADS
  }
  paimon_schema_builder_free(b);
  pc_strv_free(&pk);
  pc_strv_free(&pa);
  pc_optv_free(&o);
  if (st) return pc_raise(st, &err);
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
  op = first ? pc_utf8(first, &hold) : NULL;
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
    pc_raise(st, err);
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
  if (st) return pc_raise(st, &err);
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
    return pc_raise(st, &err);
  }
  return pc_wrap(s, H_STREAM, NULL);
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
      return pc_raise(st, &err);
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
  return pc_strings_to_list(names, n);
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
    const char *name = pc_utf8(target, &hold);
    if (!name) return NULL;
    paimon_status st;
    Py_BEGIN_ALLOW_THREADS st = paimon_table_rollback_to_tag(t, name, &err);
    Py_END_ALLOW_THREADS Py_DECREF(hold);
    if (st) return pc_raise(st, &err);
  } else {
    long long id = PyLong_AsLongLong(target);
    if (id == -1 && PyErr_Occurred()) return NULL;
    CALL(paimon_table_rollback_to_snapshot(t, id, &err));
  }
  Py_RETURN_NONE;
}

static PyObject *table_expire_snapshots(PyObject *self, PyObject *args) {
  PyObject *h;
  int retain_max, retain_min, dry_run;
  long long older_than;
  if (!PyArg_ParseTuple(args, "OiiLp", &h, &retain_max, &retain_min, &older_than, &dry_run)) return NULL;
  GET(t, paimon_table, h, H_TABLE);
  paimon_expire_options o;
  paimon_expire_options_init(&o);
  o.retain_max = retain_max;
  o.retain_min = retain_min;
  o.older_than_millis = older_than;
  o.dry_run = dry_run;
  paimon_expire_result r;
  memset(&r, 0, sizeof r);
  paimon_error err;
  CALL(paimon_table_expire_snapshots(t, &o, NULL, NULL, &r, &err));
  return Py_BuildValue("{s:K,s:K,s:K,s:K,s:L}", "snapshots_expired", (unsigned long long)r.snapshots_expired,
                       "data_files_deleted", (unsigned long long)r.data_files_deleted, "meta_files_deleted",
                       (unsigned long long)r.meta_files_deleted, "delete_failed", (unsigned long long)r.delete_failed,
                       "earliest_snapshot", (long long)r.earliest_snapshot);
}

static PyObject *table_remove_orphan_files(PyObject *self, PyObject *args) {
  PyObject *h;
  long long older_than;
  int dry_run;
  if (!PyArg_ParseTuple(args, "OLp", &h, &older_than, &dry_run)) return NULL;
  GET(t, paimon_table, h, H_TABLE);
  paimon_orphan_result r;
  memset(&r, 0, sizeof r);
  paimon_error err;
  CALL(paimon_table_remove_orphan_files(t, older_than, dry_run, NULL, NULL, NULL, &r, &err));
  return Py_BuildValue("{s:K,s:K,s:K,s:K}", "files", (unsigned long long)r.files, "bytes",
                       (unsigned long long)r.bytes, "delete_failed", (unsigned long long)r.delete_failed,
                       "candidates", (unsigned long long)r.candidates);
}

static PyObject *table_create_branch(PyObject *self, PyObject *args) {
  PyObject *h;
  const char *name, *tag;
  long long snap;
  int ignore;
  if (!PyArg_ParseTuple(args, "OszLp", &h, &name, &tag, &snap, &ignore)) return NULL;
  GET(t, paimon_table, h, H_TABLE);
  paimon_error err;
  CALL(paimon_table_create_branch(t, name, tag, snap, ignore, &err));
  Py_RETURN_NONE;
}

static PyObject *table_branch_op(PyObject *self, PyObject *args) {
  PyObject *h;
  const char *op, *name;
  if (!PyArg_ParseTuple(args, "Oss", &h, &op, &name)) return NULL;
  GET(t, paimon_table, h, H_TABLE);
  paimon_error err;
  if (!strcmp(op, "delete"))
    CALL(paimon_table_delete_branch(t, name, &err));
  else if (!strcmp(op, "fast_forward"))
    CALL(paimon_table_fast_forward(t, name, &err));
  else
    return PyErr_Format(PyExc_ValueError, "unknown branch operation '%s'", op);
  Py_RETURN_NONE;
}

static PyObject *table_list_branches(PyObject *self, PyObject *args) {
  PyObject *h;
  if (!PyArg_ParseTuple(args, "O", &h)) return NULL;
  GET(t, paimon_table, h, H_TABLE);
  char **names = NULL;
  size_t n = 0;
  paimon_error err;
  CALL(paimon_table_list_branches(t, &names, &n, &err));
  return pc_strings_to_list(names, n);
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
      return pc_raise(st, &err);
    }
    o.partition_filter = pred;
  }
  optv spec = {0};
  paimon_partition_spec ps;
  if (parts != Py_None) {
    if (pc_optv_from(parts, &spec)) {
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
  Py_END_ALLOW_THREADS pc_optv_free(&spec);
  paimon_predicate_free(pred);
  paimon_read_builder_free(rb);
  if (st) return pc_raise(st, &err);
  return Py_BuildValue("{s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L}", "tasks", (long long)res.metrics.tasks,
                       "files_removed", (long long)res.metrics.files_removed, "files_added",
                       (long long)res.metrics.files_added, "rows_written", (long long)res.metrics.rows_written,
                       "bytes_written", (long long)res.metrics.bytes_written, "changelog_files_added",
                       (long long)res.metrics.changelog_files_added, "changelog_rows_written",
                       (long long)res.metrics.changelog_rows_written, "changelog_bytes_written",
                       (long long)res.metrics.changelog_bytes_written, "snapshot_id", (long long)res.snapshot_id);
}

static PyObject *version(PyObject *self, PyObject *unused) { return PyUnicode_FromString(paimon_version()); }

static PyMethodDef methods[] = {
    {"version", version, METH_NOARGS, "libpaimon version"},
    {"_register_errors", register_errors, METH_O, "the exception factory (message, code)"},
    {"catalog_open", catalog_open, METH_VARARGS, NULL},
    {"catalog_list_databases", catalog_list_databases, METH_VARARGS, NULL},
    {"catalog_list_tables", catalog_list_tables, METH_VARARGS, NULL},
    {"catalog_create_database", catalog_create_database, METH_VARARGS, NULL},
    {"catalog_drop_database", catalog_drop_database, METH_VARARGS, NULL},
    {"catalog_get_table", catalog_get_table, METH_VARARGS, NULL},
    {"catalog_create_table", catalog_create_table, METH_VARARGS, NULL},
    {"catalog_create_table_arrow", catalog_create_table_arrow, METH_VARARGS, NULL},
    {"catalog_drop_table", catalog_drop_table, METH_VARARGS, NULL},
    {"catalog_rename_table", catalog_rename_table, METH_VARARGS, NULL},
    {"catalog_alter_table", catalog_alter_table, METH_VARARGS, NULL},
    {"catalog_read_system_table", catalog_read_system_table, METH_VARARGS, NULL},
    {"table_info", table_info, METH_VARARGS, NULL},
    {"table_option", table_option, METH_VARARGS, NULL},
    {"table_latest_snapshot_id", table_latest_snapshot_id, METH_VARARGS, NULL},
    {"table_list_tags", table_list_tags, METH_VARARGS, NULL},
    {"table_get_tag", table_get_tag, METH_VARARGS, NULL},
    {"table_create_tag", table_create_tag, METH_VARARGS, NULL},
    {"table_delete_tag", table_delete_tag, METH_VARARGS, NULL},
    {"table_rollback", table_rollback, METH_VARARGS, NULL},
    {"table_compact", table_compact, METH_VARARGS, NULL},
    {"table_expire_snapshots", table_expire_snapshots, METH_VARARGS, NULL},
    {"table_remove_orphan_files", table_remove_orphan_files, METH_VARARGS, NULL},
    {"table_create_branch", table_create_branch, METH_VARARGS, NULL},
    {"table_branch_op", table_branch_op, METH_VARARGS, NULL},
    {"table_list_branches", table_list_branches, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "paimon_c._native", "libpaimon binding", -1, methods,
                                       NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__native(void) {
  PyObject *m = PyModule_Create(&moduledef);
  if (!m) return NULL;
  pc_HandleType = (PyTypeObject *)PyType_FromSpec(&handle_spec);
  if (!pc_HandleType) {
    Py_DECREF(m);
    return NULL;
  }
  Py_INCREF(pc_HandleType);
  if (PyModule_AddObject(m, "Handle", (PyObject *)pc_HandleType)) {
    Py_DECREF(pc_HandleType);
    Py_DECREF(m);
    return NULL;
  }
  if (PyModule_AddFunctions(m, pc_read_methods) || PyModule_AddFunctions(m, pc_write_methods)) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
