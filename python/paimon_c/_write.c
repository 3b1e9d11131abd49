/*
 * paimon_c._native, part 3: write builders, writes, commit messages and commits (see _native.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "_native.h"

/* -------------------------------------------------------------- write */

static PyObject *write_builder_new(PyObject *self, PyObject *args) {
  PyObject *h, *opts;
  int streaming;
  if (!PyArg_ParseTuple(args, "OpO", &h, &streaming, &opts)) return NULL;
  GET(t, paimon_table, h, H_TABLE);
  optv o;
  if (pc_optv_from(opts, &o)) return NULL;
  paimon_write_builder *wb = NULL;
  paimon_error err;
  paimon_status st = paimon_write_builder_new(t, streaming, o.v, o.n, &wb, &err);
  pc_optv_free(&o);
  if (st) return pc_raise(st, &err);
  return pc_wrap(wb, H_WRITE_BUILDER, h);
}

static PyObject *wb_commit_user(PyObject *self, PyObject *args) {
  PyObject *h, *user = Py_None;
  if (!PyArg_ParseTuple(args, "O|O", &h, &user)) return NULL;
  GET(wb, paimon_write_builder, h, H_WRITE_BUILDER);
  if (user != Py_None) {
    PyObject *hold;
    const char *u = pc_utf8(user, &hold);
    if (!u) return NULL;
    paimon_error err;
    paimon_status st = paimon_write_builder_with_commit_user(wb, u, &err);
    Py_DECREF(hold);
    if (st) return pc_raise(st, &err);
  }
  return PyUnicode_FromString(paimon_write_builder_commit_user(wb));
}

static PyObject *wb_overwrite(PyObject *self, PyObject *args) {
  PyObject *h, *spec;
  if (!PyArg_ParseTuple(args, "OO", &h, &spec)) return NULL;
  GET(wb, paimon_write_builder, h, H_WRITE_BUILDER);
  optv o;
  if (pc_optv_from(spec, &o)) return NULL;
  paimon_error err;
  paimon_status st = paimon_write_builder_with_overwrite(wb, o.v, o.n, &err);
  pc_optv_free(&o);
  if (st) return pc_raise(st, &err);
  Py_RETURN_NONE;
}

static PyObject *wb_new_write(PyObject *self, PyObject *args) {
  PyObject *h;
  if (!PyArg_ParseTuple(args, "O", &h)) return NULL;
  GET(wb, paimon_write_builder, h, H_WRITE_BUILDER);
  paimon_table_write *w = NULL;
  paimon_error err;
  CALL(paimon_write_builder_new_write(wb, &w, &err));
  return pc_wrap(w, H_WRITE, h);
}

static PyObject *wb_new_commit(PyObject *self, PyObject *args) {
  PyObject *h;
  if (!PyArg_ParseTuple(args, "O", &h)) return NULL;
  GET(wb, paimon_write_builder, h, H_WRITE_BUILDER);
  paimon_table_commit *c = NULL;
  paimon_error err;
  CALL(paimon_write_builder_new_commit(wb, &c, &err));
  return pc_wrap(c, H_COMMIT, h);
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

/* Writes rows given as JSON lines (the `table read --format jsonl` encoding), typed by the table;
 * with a row-kind column each row carries its kind ("+I", "-U", "+U", "-D") in that key. */
static PyObject *write_jsonl(PyObject *self, PyObject *args) {
  PyObject *h, *th;
  const char *data;
  const char *rk = NULL; /* row-kind column of the rows (primary-key tables), or NULL */
  Py_ssize_t len;
  if (!PyArg_ParseTuple(args, "OOy#|z", &h, &th, &data, &len, &rk)) return NULL;
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
    if (rk) {
      st = paimon_table_open_cdc_input(t, NULL, fileno(f), "jsonl", rk, &s, &err);
      if (!st) st = paimon_table_write_with_row_kind_column(w, rk, &err);
      if (!st) st = paimon_table_write_stream(w, &s, &err);
      else if (s.release) s.release(&s);
      paimon_error ignored;
      paimon_table_write_with_row_kind_column(w, NULL, &ignored);
    } else {
      st = paimon_table_open_input_fd(t, fileno(f), "rows", "jsonl", &s, &err);
      if (!st) st = paimon_table_write_stream(w, &s, &err);
    }
  }
  fclose(f);
  Py_END_ALLOW_THREADS if (st) return pc_raise(st, &err);
  Py_RETURN_NONE;
}

/* Compaction in the writer (primary-key tables): partition spec dict or None, bucket (-1 all), full. */
static PyObject *write_compact(PyObject *self, PyObject *args) {
  PyObject *h, *spec;
  int bucket, full;
  if (!PyArg_ParseTuple(args, "OOip", &h, &spec, &bucket, &full)) return NULL;
  GET(w, paimon_table_write, h, H_WRITE);
  optv o;
  if (pc_optv_from(spec, &o)) return NULL;
  paimon_error err;
  paimon_status st;
  Py_BEGIN_ALLOW_THREADS st = paimon_table_write_compact(w, o.v, o.n, bucket, full, &err);
  Py_END_ALLOW_THREADS pc_optv_free(&o);
  if (st) return pc_raise(st, &err);
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
  return pc_wrap(m, H_MESSAGES, NULL);
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
  PyObject *hm = pc_wrap(m, H_MESSAGES, NULL);
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
  if (st) return pc_raise(st, &err);
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
    if (pc_optv_from(props, &o)) return NULL;
    paimon_status st = paimon_table_commit_with_properties(c, o.v, o.n, &err);
    pc_optv_free(&o);
    if (st) return pc_raise(st, &err);
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
    if (pc_optv_from(PyTuple_GetItem(tup, made), &ov[made])) {
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
  for (Py_ssize_t i = 0; ov && i < made; i++) pc_optv_free(&ov[i]);
  free(ov);
  free(pv);
  free(nv);
  if (!ok) return PyErr_Occurred() ? NULL : PyErr_NoMemory();
  if (st) return pc_raise(st, &err);
  return PyLong_FromLongLong(snap);
}

/* ------------------------------------------------- row-id column updates (paimon/update.h) */

static PyObject *wb_new_update(PyObject *self, PyObject *args) {
  PyObject *h, *cols;
  if (!PyArg_ParseTuple(args, "OO", &h, &cols)) return NULL;
  GET(wb, paimon_write_builder, h, H_WRITE_BUILDER);
  strv s;
  if (pc_strv_from(cols, &s)) return NULL;
  paimon_table_update *u = NULL;
  paimon_error err;
  paimon_status st = paimon_write_builder_new_update_by_row_id(wb, s.v, s.n, &u, &err);
  pc_strv_free(&s);
  if (st) return pc_raise(st, &err);
  return pc_wrap(u, H_UPDATE, h);
}

/* One input of an updater: a PyCapsule "arrow_array_stream" (moved out), capsules "arrow_schema" +
 * "arrow_array" (borrowed), or JSON lines (bytes) holding _ROW_ID and the updated columns. */
static PyObject *update_input(PyObject *self, PyObject *args) {
  PyObject *h, *th, *a, *b = NULL;
  if (!PyArg_ParseTuple(args, "OOO|O", &h, &th, &a, &b)) return NULL;
  GET(u, paimon_table_update, h, H_UPDATE);
  paimon_error err;
  if (b) {
    struct ArrowSchema *schema = PyCapsule_GetPointer(a, "arrow_schema");
    struct ArrowArray *array = schema ? PyCapsule_GetPointer(b, "arrow_array") : NULL;
    if (!array) return NULL;
    CALL(paimon_table_update_columns(u, schema, array, &err));
    Py_RETURN_NONE;
  }
  if (PyBytes_Check(a)) {
    GET(t, paimon_table, th, H_TABLE);
    char *data;
    Py_ssize_t len;
    if (PyBytes_AsStringAndSize(a, &data, &len)) return NULL;
    FILE *f = tmpfile();
    if (!f) return PyErr_SetFromErrno(PyExc_OSError);
    paimon_status st = PAIMON_OK;
    Py_BEGIN_ALLOW_THREADS if (fwrite(data, 1, (size_t)len, f) != (size_t)len || fflush(f) ||
                               lseek(fileno(f), 0, SEEK_SET) != 0) {
      st = PAIMON_ERR_IO;
      snprintf(err.message, sizeof err.message, "cannot stage rows in a temporary file");
    }
    else {
      struct ArrowArrayStream s;
      memset(&s, 0, sizeof s);
      st = paimon_table_open_cdc_input(t, NULL, fileno(f), "jsonl", "_ROW_ID", &s, &err);
      if (!st) st = paimon_table_update_stream(u, &s, &err);
    }
    fclose(f);
    Py_END_ALLOW_THREADS if (st) return pc_raise(st, &err);
    Py_RETURN_NONE;
  }
  struct ArrowArrayStream *src = PyCapsule_GetPointer(a, "arrow_array_stream");
  if (!src) return NULL;
  if (!src->release) return PyErr_Format(PyExc_ValueError, "the Arrow stream was already consumed");
  struct ArrowArrayStream s = *src;
  src->release = NULL;
  CALL(paimon_table_update_stream(u, &s, &err));
  Py_RETURN_NONE;
}

static PyObject *update_prepare_commit(PyObject *self, PyObject *args) {
  PyObject *h;
  long long ident;
  if (!PyArg_ParseTuple(args, "OL", &h, &ident)) return NULL;
  GET(u, paimon_table_update, h, H_UPDATE);
  paimon_commit_messages *m = NULL;
  paimon_error err;
  CALL(paimon_table_update_prepare_commit(u, ident, &m, &err));
  return pc_wrap(m, H_MESSAGES, NULL);
}

static PyObject *update_rows(PyObject *self, PyObject *args) {
  PyObject *h;
  if (!PyArg_ParseTuple(args, "O", &h)) return NULL;
  GET(u, paimon_table_update, h, H_UPDATE);
  return PyLong_FromLongLong((long long)paimon_table_update_rows(u));
}

PyMethodDef pc_write_methods[] = {
    {"wb_new_update", wb_new_update, METH_VARARGS, NULL},
    {"update_input", update_input, METH_VARARGS, NULL},
    {"update_prepare_commit", update_prepare_commit, METH_VARARGS, NULL},
    {"update_rows", update_rows, METH_VARARGS, NULL},
    {"write_builder_new", write_builder_new, METH_VARARGS, NULL},
    {"wb_commit_user", wb_commit_user, METH_VARARGS, NULL},
    {"wb_overwrite", wb_overwrite, METH_VARARGS, NULL},
    {"wb_new_write", wb_new_write, METH_VARARGS, NULL},
    {"wb_new_commit", wb_new_commit, METH_VARARGS, NULL},
    {"write_stream", write_stream, METH_VARARGS, NULL},
    {"write_array", write_array, METH_VARARGS, NULL},
    {"write_jsonl", write_jsonl, METH_VARARGS, NULL},
    {"write_compact", write_compact, METH_VARARGS, NULL},
    {"write_prepare_commit", write_prepare_commit, METH_VARARGS, NULL},
    {"messages_info", messages_info, METH_VARARGS, NULL},
    {"messages_serialize", messages_serialize, METH_VARARGS, NULL},
    {"messages_deserialize", messages_deserialize, METH_VARARGS, NULL},
    {"messages_merge", messages_merge, METH_VARARGS, NULL},
    {"commit_commit", commit_commit, METH_VARARGS, NULL},
    {"commit_abort", commit_abort, METH_VARARGS, NULL},
    {"commit_truncate", commit_truncate, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};
