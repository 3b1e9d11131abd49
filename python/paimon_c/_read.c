/*
 * paimon_c._native, part 2: read builders, predicates, plans, splits, Arrow streams and
 * stream scans (see _native.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "_native.h"

/* ------------------------------------------------------- read builder */

static PyObject *read_builder_new(PyObject *self, PyObject *args) {
  PyObject *h, *opts;
  if (!PyArg_ParseTuple(args, "OO", &h, &opts)) return NULL;
  GET(t, paimon_table, h, H_TABLE);
  optv o;
  if (pc_optv_from(opts, &o)) return NULL;
  paimon_read_builder *rb = NULL;
  paimon_error err;
  paimon_status st;
  Py_BEGIN_ALLOW_THREADS st = paimon_read_builder_new(t, o.v, o.n, &rb, &err);
  Py_END_ALLOW_THREADS pc_optv_free(&o);
  if (st) return pc_raise(st, &err);
  return pc_wrap(rb, H_READ_BUILDER, h);
}

static PyObject *rb_projection(PyObject *self, PyObject *args) {
  PyObject *h, *cols;
  if (!PyArg_ParseTuple(args, "OO", &h, &cols)) return NULL;
  GET(rb, paimon_read_builder, h, H_READ_BUILDER);
  strv s;
  if (pc_strv_from(cols, &s)) return NULL;
  paimon_error err;
  paimon_status st = paimon_read_builder_with_projection(rb, s.v, s.n, &err);
  pc_strv_free(&s);
  if (st) return pc_raise(st, &err);
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
  const char *m = pc_utf8(PyTuple_GetItem(node, 0), &hold);
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
    const char *field = pc_utf8(PyTuple_GetItem(node, 1), &hold);
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
    pc_raise(st, &err);
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
  if (st) return pc_raise(st, &err);
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
  if (st) return pc_raise(st, &err);
  Py_RETURN_NONE;
}

static PyObject *rb_plan(PyObject *self, PyObject *args) {
  PyObject *h;
  if (!PyArg_ParseTuple(args, "O", &h)) return NULL;
  GET(rb, paimon_read_builder, h, H_READ_BUILDER);
  paimon_plan *plan = NULL;
  paimon_error err;
  CALL(paimon_read_builder_plan(rb, &plan, &err));
  return pc_wrap(plan, H_PLAN, h);
}

static PyObject *plan_splits(PyObject *self, PyObject *args) {
  PyObject *h;
  if (!PyArg_ParseTuple(args, "O", &h)) return NULL;
  GET(plan, paimon_plan, h, H_PLAN);
  size_t n = paimon_plan_num_splits(plan);
  PyObject *l = PyList_New(0);
  for (size_t i = 0; l && i < n; i++) {
    PyObject *s = pc_wrap((void *)paimon_plan_split(plan, i), H_PLAN_SPLIT, h);
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
  return pc_wrap(s, H_SPLIT, NULL);
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
    v[i] = pc_get(PyTuple_GetItem(tup, i), H_SPLIT);
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
    return pc_raise(st, &err);
  }
  return pc_wrap(s, H_STREAM, NULL);
}

static PyObject *stream_error(struct ArrowArrayStream *s, int rc, const char *what) {
  const char *m = s->get_last_error ? s->get_last_error(s) : NULL;
  paimon_error err;
  err.code = PAIMON_ERR_IO;
  snprintf(err.message, sizeof err.message, "%s: %s", what, m ? m : strerror(rc));
  /* the library's messages start with the status kind when they know it: map the errno */
  paimon_status st = rc == EINVAL ? PAIMON_ERR_INVALID_ARGUMENT : rc == ENOMEM ? PAIMON_ERR_NOMEM : PAIMON_ERR_IO;
  if (m && (strstr(m, "corrupt") || strstr(m, "CORRUPT"))) st = PAIMON_ERR_CORRUPT;
  return pc_raise(st, &err);
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
  pc_stream_free(s);
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
  pc_handle_release((Handle *)h);
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
    return pc_raise(st, &err);
  }
  PyObject *cap = PyCapsule_New(schema, "arrow_schema", schema_capsule_free);
  if (!cap) {
    schema->release(schema);
    free(schema);
  }
  return cap;
}

/* --------------------------------------------------------- stream scan */

static PyObject *stream_scan_new(PyObject *self, PyObject *args) {
  PyObject *h;
  if (!PyArg_ParseTuple(args, "O", &h)) return NULL;
  GET(rb, paimon_read_builder, h, H_READ_BUILDER);
  paimon_stream_scan *s = NULL;
  paimon_error err;
  CALL(paimon_stream_scan_new(rb, &s, &err));
  return pc_wrap(s, H_STREAM_SCAN, h);
}

static PyObject *stream_scan_plan(PyObject *self, PyObject *args) {
  PyObject *h;
  if (!PyArg_ParseTuple(args, "O", &h)) return NULL;
  GET(s, paimon_stream_scan, h, H_STREAM_SCAN);
  paimon_plan *plan = NULL;
  paimon_error err;
  CALL(paimon_stream_scan_plan(s, &plan, &err));
  if (!plan) Py_RETURN_NONE;
  return pc_wrap(plan, H_PLAN, ((Handle *)h)->owner);
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

/* Row selection (paimon/scan_select.h): what 's' slice [a, b), 'p' position shard a of b,
 * 'b' shard a of b (primary-key tables by bucket). Checked at once. */
static PyObject *rb_select(PyObject *self, PyObject *args) {
  PyObject *h;
  int what;
  long long a, b;
  if (!PyArg_ParseTuple(args, "OCLL", &h, &what, &a, &b)) return NULL;
  GET(rb, paimon_read_builder, h, H_READ_BUILDER);
  paimon_error err;
  paimon_status st = what == 's'   ? paimon_read_builder_with_row_position_slice(rb, a, b, &err)
                     : what == 'p' ? paimon_read_builder_with_row_position_shard(rb, a, b, &err)
                                   : paimon_read_builder_with_shard(rb, a, b, &err);
  if (st) return pc_raise(st, &err);
  Py_RETURN_NONE;
}

/* Inclusive _ROW_ID ranges: a sequence of (from, to) pairs (empty: no row). */
static PyObject *rb_row_ranges(PyObject *self, PyObject *args) {
  PyObject *h, *seq;
  if (!PyArg_ParseTuple(args, "OO", &h, &seq)) return NULL;
  GET(rb, paimon_read_builder, h, H_READ_BUILDER);
  PyObject *tup = PySequence_Tuple(seq);
  if (!tup) return NULL;
  Py_ssize_t n = PyTuple_Size(tup);
  int64_t *v = malloc(((size_t)n * 2 + 1) * sizeof *v);
  if (!v) {
    Py_DECREF(tup);
    return PyErr_NoMemory();
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    long long from, to;
    PyObject *pair = PySequence_Tuple(PyTuple_GetItem(tup, i));
    int ok = pair && PyTuple_Size(pair) == 2;
    if (ok) {
      from = PyLong_AsLongLong(PyTuple_GetItem(pair, 0));
      to = PyLong_AsLongLong(PyTuple_GetItem(pair, 1));
      ok = !PyErr_Occurred();
    }
    Py_XDECREF(pair);
    if (!ok) {
      if (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "with_row_ranges: range %zd is not a (from, to) pair of int", i);
      }
      free(v);
      Py_DECREF(tup);
      return NULL;
    }
    v[2 * i] = from;
    v[2 * i + 1] = to;
  }
  Py_DECREF(tup);
  paimon_error err;
  paimon_status st = paimon_read_builder_with_row_ranges(rb, v, (size_t)n, &err);
  free(v);
  if (st) return pc_raise(st, &err);
  Py_RETURN_NONE;
}

/* The split's row selection as a list of inclusive (from, to) pairs, or None (all rows). */
static PyObject *split_row_ranges(PyObject *self, PyObject *args) {
  PyObject *h;
  if (!PyArg_ParseTuple(args, "O", &h)) return NULL;
  GET(s, paimon_split, h, H_SPLIT);
  const int64_t *r = NULL;
  size_t n = 0;
  if (!paimon_split_row_ranges(s, &r, &n)) Py_RETURN_NONE;
  PyObject *l = PyList_New(0);
  for (size_t i = 0; l && i < n; i++) {
    PyObject *p = Py_BuildValue("(LL)", (long long)r[2 * i], (long long)r[2 * i + 1]);
    if (!p || PyList_Append(l, p)) Py_CLEAR(l);
    Py_XDECREF(p);
  }
  return l;
}

PyMethodDef pc_read_methods[] = {
    {"rb_select", rb_select, METH_VARARGS, NULL},
    {"rb_row_ranges", rb_row_ranges, METH_VARARGS, NULL},
    {"split_row_ranges", split_row_ranges, METH_VARARGS, NULL},
    {"read_builder_new", read_builder_new, METH_VARARGS, NULL},
    {"rb_projection", rb_projection, METH_VARARGS, NULL},
    {"rb_settings", rb_settings, METH_VARARGS, NULL},
    {"rb_filter", rb_filter, METH_VARARGS, NULL},
    {"rb_filter_text", rb_filter_text, METH_VARARGS, NULL},
    {"rb_plan", rb_plan, METH_VARARGS, NULL},
    {"rb_read", rb_read, METH_VARARGS, NULL},
    {"rb_read_schema", rb_read_schema, METH_VARARGS, NULL},
    {"plan_splits", plan_splits, METH_VARARGS, NULL},
    {"plan_snapshot_id", plan_snapshot_id, METH_VARARGS, NULL},
    {"split_info", split_info, METH_VARARGS, NULL},
    {"split_serialize", split_serialize, METH_VARARGS, NULL},
    {"split_deserialize", split_deserialize, METH_VARARGS, NULL},
    {"stream_next_rows", stream_next_rows, METH_VARARGS, NULL},
    {"stream_export", stream_export, METH_VARARGS, NULL},
    {"stream_schema", stream_schema, METH_VARARGS, NULL},
    {"stream_scan_new", stream_scan_new, METH_VARARGS, NULL},
    {"stream_scan_plan", stream_scan_plan, METH_VARARGS, NULL},
    {"stream_scan_checkpoint", stream_scan_checkpoint, METH_VARARGS, NULL},
    {"stream_scan_restore", stream_scan_restore, METH_VARARGS, NULL},
    {"stream_scan_notify", stream_scan_notify, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};
