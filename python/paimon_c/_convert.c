/*
 * Arrow C data (struct batches) to Python values, as pyarrow's to_pylist()
 * gives them: int, float, bool, str, bytes, decimal.Decimal, datetime.date,
 * datetime.time, datetime.datetime (aware in UTC for zoned timestamps),
 * lists, dicts for structs and lists of (key, value) tuples for maps.
 * Nanosecond timestamps whose value is not a whole microsecond become
 * paimon_c.Timestamp (a datetime subclass with a `nanosecond` attribute).
 */
#include <stdlib.h>
#include <string.h>

#include "_native.h"

enum {
  K_NULL,
  K_BOOL,
  K_I8,
  K_U8,
  K_I16,
  K_U16,
  K_I32,
  K_U32,
  K_I64,
  K_U64,
  K_F32,
  K_F64,
  K_STR,
  K_LSTR,
  K_BIN,
  K_LBIN,
  K_FBIN,
  K_DEC,
  K_DATE32,
  K_DATE64,
  K_TIME32,
  K_TIME64,
  K_TS,
  K_LIST,
  K_LLIST,
  K_FLIST,
  K_STRUCT,
  K_MAP
};

typedef struct conv {
  int kind;
  int unit;  /* 0 s, 1 ms, 2 us, 3 ns */
  int width; /* fixed binary / fixed list size */
  int scale; /* decimal */
  int zoned; /* timestamp with a time zone */
  PyObject *name;
  struct conv *children;
  int64_t n_children;
} conv;

static PyObject *g_decimal, *g_date_fromordinal, *g_datetime, *g_time, *g_utc, *g_nano_factory;

int pc_convert_init(void) {
  if (g_datetime) return 0;
  PyObject *dm = PyImport_ImportModule("decimal");
  PyObject *dt = dm ? PyImport_ImportModule("datetime") : NULL;
  PyObject *pc = dt ? PyImport_ImportModule("paimon_c._values") : NULL;
  int rc = -1;
  if (pc) {
    PyObject *date = PyObject_GetAttrString(dt, "date");
    PyObject *tz = PyObject_GetAttrString(dt, "timezone");
    g_decimal = PyObject_GetAttrString(dm, "Decimal");
    g_date_fromordinal = date ? PyObject_GetAttrString(date, "fromordinal") : NULL;
    g_datetime = PyObject_GetAttrString(dt, "datetime");
    g_time = PyObject_GetAttrString(dt, "time");
    g_utc = tz ? PyObject_GetAttrString(tz, "utc") : NULL;
    g_nano_factory = PyObject_GetAttrString(pc, "_nano_timestamp");
    Py_XDECREF(date);
    Py_XDECREF(tz);
    if (g_decimal && g_date_fromordinal && g_datetime && g_time && g_utc && g_nano_factory) rc = 0;
  }
  Py_XDECREF(dm);
  Py_XDECREF(dt);
  Py_XDECREF(pc);
  return rc;
}

static void conv_free(conv *c) {
  if (!c) return;
  for (int64_t i = 0; i < c->n_children; i++) conv_free(&c->children[i]);
  free(c->children);
  Py_XDECREF(c->name);
  c->children = NULL;
  c->name = NULL;
}

static int unit_of(char u) { return u == 's' ? 0 : u == 'm' ? 1 : u == 'u' ? 2 : u == 'n' ? 3 : -1; }

static int conv_build(conv *c, const struct ArrowSchema *s) {
  memset(c, 0, sizeof *c);
  const char *f = s->format ? s->format : "";
  c->name = PyUnicode_FromString(s->name ? s->name : "");
  if (!c->name) return -1;
  size_t fl = strlen(f);
  int ok = 1;
  if (fl == 1) {
    switch (f[0]) {
      case 'n': c->kind = K_NULL; break;
      case 'b': c->kind = K_BOOL; break;
      case 'c': c->kind = K_I8; break;
      case 'C': c->kind = K_U8; break;
      case 's': c->kind = K_I16; break;
      case 'S': c->kind = K_U16; break;
      case 'i': c->kind = K_I32; break;
      case 'I': c->kind = K_U32; break;
      case 'l': c->kind = K_I64; break;
      case 'L': c->kind = K_U64; break;
      case 'f': c->kind = K_F32; break;
      case 'g': c->kind = K_F64; break;
      case 'u': c->kind = K_STR; break;
      case 'U': c->kind = K_LSTR; break;
      case 'z': c->kind = K_BIN; break;
      case 'Z': c->kind = K_LBIN; break;
      default: ok = 0;
    }
  } else if (!strncmp(f, "w:", 2)) {
    c->kind = K_FBIN;
    c->width = atoi(f + 2);
  } else if (!strncmp(f, "d:", 2)) {
    const char *comma = strchr(f, ',');
    c->kind = K_DEC;
    c->scale = comma ? atoi(comma + 1) : 0;
    if (comma && strchr(comma + 1, ',') && atoi(strchr(comma + 1, ',') + 1) != 128) ok = 0;
  } else if (!strcmp(f, "tdD")) {
    c->kind = K_DATE32;
  } else if (!strcmp(f, "tdm")) {
    c->kind = K_DATE64;
  } else if (fl == 3 && !strncmp(f, "tt", 2) && unit_of(f[2]) >= 0) {
    c->unit = unit_of(f[2]);
    c->kind = c->unit <= 1 ? K_TIME32 : K_TIME64;
  } else if (fl >= 4 && !strncmp(f, "ts", 2) && f[3] == ':' && unit_of(f[2]) >= 0) {
    c->kind = K_TS;
    c->unit = unit_of(f[2]);
    c->zoned = f[4] != 0;
  } else if (!strcmp(f, "+l") || !strcmp(f, "+L") || !strcmp(f, "+m") || !strcmp(f, "+s") || !strncmp(f, "+w:", 3)) {
    c->kind = !strcmp(f, "+l")   ? K_LIST
              : !strcmp(f, "+L") ? K_LLIST
              : !strcmp(f, "+m") ? K_MAP
              : !strcmp(f, "+s") ? K_STRUCT
                                 : K_FLIST;
    if (c->kind == K_FLIST) c->width = atoi(f + 3);
    if (s->n_children < 0 || (c->kind != K_STRUCT && s->n_children != 1)) ok = 0;
    if (ok && s->n_children > 0) {
      c->children = calloc((size_t)s->n_children, sizeof *c->children);
      if (!c->children) {
        PyErr_NoMemory();
        return -1;
      }
      c->n_children = s->n_children;
      for (int64_t i = 0; i < s->n_children; i++)
        if (conv_build(&c->children[i], s->children[i])) return -1;
      if (c->kind == K_MAP && (c->children[0].kind != K_STRUCT || c->children[0].n_children != 2)) ok = 0;
    }
  } else {
    ok = 0;
  }
  if (!ok) {
    PyErr_Format(PyExc_NotImplementedError, "column '%s': Arrow format '%s' is not supported by to_pylist",
                 s->name ? s->name : "", f);
    return -1;
  }
  return 0;
}

static int bit_at(const void *buf, int64_t i) { return (((const uint8_t *)buf)[i >> 3] >> (i & 7)) & 1; }

static PyObject *none(void) { Py_RETURN_NONE; }

/* days since 1970-01-01 to civil date (proleptic Gregorian). */
static void civil(int64_t z, int *y, int *m, int *d) {
  z += 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t yy = yoe + era * 400;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  *d = (int)(doy - (153 * mp + 2) / 5 + 1);
  *m = (int)(mp < 10 ? mp + 3 : mp - 9);
  *y = (int)(yy + (*m <= 2));
}

static int64_t floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

static PyObject *timestamp_value(const conv *c, int64_t v) {
  static const int64_t per_sec[] = {1, 1000, 1000000, 1000000000};
  int64_t ps = per_sec[c->unit];
  int64_t secs = floordiv(v, ps);
  int64_t sub = v - secs * ps; /* 0 .. ps-1 */
  int64_t nanos = sub * (1000000000 / ps);
  int64_t days = floordiv(secs, 86400);
  int64_t sod = secs - days * 86400;
  int y, m, d;
  civil(days, &y, &m, &d);
  PyObject *dt = PyObject_CallFunction(g_datetime, "iiiiiiiO", y, m, d, (int)(sod / 3600), (int)(sod / 60 % 60),
                                       (int)(sod % 60), (int)(nanos / 1000), c->zoned ? g_utc : Py_None);
  if (dt && nanos % 1000 != 0) {
    PyObject *r = PyObject_CallFunction(g_nano_factory, "Oi", dt, (int)(nanos % 1000));
    Py_DECREF(dt);
    return r;
  }
  return dt;
}

static PyObject *decimal_value(const conv *c, const uint8_t *p) {
  __int128 v;
  memcpy(&v, p, 16);
  int neg = v < 0;
  unsigned __int128 u = neg ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
  char digits[64];
  int n = 0;
  do {
    digits[n++] = (char)('0' + (int)(u % 10));
    u /= 10;
  } while (u);
  char text[96];
  int t = 0;
  if (neg) text[t++] = '-';
  int scale = c->scale > 0 ? c->scale : 0;
  while (n <= scale) digits[n++] = '0';
  for (int i = n - 1; i >= 0; i--) {
    text[t++] = digits[i];
    if (i == scale && scale > 0) text[t++] = '.';
  }
  text[t] = 0;
  return PyObject_CallFunction(g_decimal, "s", text);
}

static PyObject *value(const conv *c, const struct ArrowArray *a, int64_t i);

static PyObject *list_items(const conv *c, const struct ArrowArray *a, int64_t from, int64_t to, int as_pairs) {
  PyObject *out = PyList_New(0);
  if (!out) return NULL;
  const struct ArrowArray *ch = a->children[0];
  for (int64_t k = from; k < to; k++) {
    PyObject *v;
    if (as_pairs) {
      const conv *e = &c->children[0];
      const struct ArrowArray *entries = ch;
      int64_t j = entries->offset + k;
      PyObject *key = value(&e->children[0], entries->children[0], j);
      PyObject *val = key ? value(&e->children[1], entries->children[1], j) : NULL;
      v = val ? PyTuple_Pack(2, key, val) : NULL;
      Py_XDECREF(key);
      Py_XDECREF(val);
    } else {
      v = value(&c->children[0], ch, k);
    }
    if (!v || PyList_Append(out, v)) {
      Py_XDECREF(v);
      Py_DECREF(out);
      return NULL;
    }
    Py_DECREF(v);
  }
  return out;
}

static PyObject *value(const conv *c, const struct ArrowArray *a, int64_t i) {
  int64_t j = a->offset + i;
  if (c->kind == K_NULL) return none();
  if (a->null_count != 0 && a->n_buffers > 0 && a->buffers[0] && !bit_at(a->buffers[0], j)) return none();
  const void *b1 = a->n_buffers > 1 ? a->buffers[1] : NULL;
  switch (c->kind) {
    case K_BOOL: return PyBool_FromLong(bit_at(b1, j));
    case K_I8: return PyLong_FromLong(((const int8_t *)b1)[j]);
    case K_U8: return PyLong_FromLong(((const uint8_t *)b1)[j]);
    case K_I16: return PyLong_FromLong(((const int16_t *)b1)[j]);
    case K_U16: return PyLong_FromLong(((const uint16_t *)b1)[j]);
    case K_I32: return PyLong_FromLong(((const int32_t *)b1)[j]);
    case K_U32: return PyLong_FromUnsignedLong(((const uint32_t *)b1)[j]);
    case K_I64: return PyLong_FromLongLong(((const int64_t *)b1)[j]);
    case K_U64: return PyLong_FromUnsignedLongLong(((const uint64_t *)b1)[j]);
    case K_F32: return PyFloat_FromDouble(((const float *)b1)[j]);
    case K_F64: return PyFloat_FromDouble(((const double *)b1)[j]);
    case K_STR:
    case K_BIN: {
      const int32_t *off = b1;
      const char *data = (const char *)a->buffers[2];
      if (c->kind == K_STR) return PyUnicode_DecodeUTF8(data + off[j], off[j + 1] - off[j], "replace");
      return PyBytes_FromStringAndSize(data + off[j], off[j + 1] - off[j]);
    }
    case K_LSTR:
    case K_LBIN: {
      const int64_t *off = b1;
      const char *data = (const char *)a->buffers[2];
      if (c->kind == K_LSTR) return PyUnicode_DecodeUTF8(data + off[j], (Py_ssize_t)(off[j + 1] - off[j]), "replace");
      return PyBytes_FromStringAndSize(data + off[j], (Py_ssize_t)(off[j + 1] - off[j]));
    }
    case K_FBIN: return PyBytes_FromStringAndSize((const char *)b1 + (int64_t)c->width * j, c->width);
    case K_DEC: return decimal_value(c, (const uint8_t *)b1 + 16 * j);
    case K_DATE32: return PyObject_CallFunction(g_date_fromordinal, "L", (long long)((const int32_t *)b1)[j] + 719163);
    case K_DATE64:
      return PyObject_CallFunction(g_date_fromordinal, "L",
                                   (long long)floordiv(((const int64_t *)b1)[j], 86400000) + 719163);
    case K_TIME32:
    case K_TIME64: {
      static const int64_t per_sec[] = {1, 1000, 1000000, 1000000000};
      int64_t v = c->kind == K_TIME32 ? ((const int32_t *)b1)[j] : ((const int64_t *)b1)[j];
      int64_t ps = per_sec[c->unit];
      int64_t secs = floordiv(v, ps), us = (v - secs * ps) * 1000000 / ps;
      return PyObject_CallFunction(g_time, "iiii", (int)(secs / 3600 % 24), (int)(secs / 60 % 60), (int)(secs % 60),
                                   (int)us);
    }
    case K_TS: return timestamp_value(c, ((const int64_t *)b1)[j]);
    case K_LIST:
    case K_MAP: {
      const int32_t *off = b1;
      return list_items(c, a, off[j], off[j + 1], c->kind == K_MAP);
    }
    case K_LLIST: {
      const int64_t *off = b1;
      return list_items(c, a, off[j], off[j + 1], 0);
    }
    case K_FLIST: return list_items(c, a, (int64_t)c->width * j, (int64_t)c->width * (j + 1), 0);
    case K_STRUCT: {
      PyObject *d = PyDict_New();
      for (int64_t k = 0; d && k < c->n_children; k++) {
        PyObject *v = value(&c->children[k], a->children[k], j);
        if (!v || PyDict_SetItem(d, c->children[k].name, v)) {
          Py_XDECREF(v);
          Py_DECREF(d);
          return NULL;
        }
        Py_DECREF(v);
      }
      return d;
    }
    default: PyErr_SetString(PyExc_SystemError, "paimon_c: unhandled Arrow kind"); return NULL;
  }
}

PyObject *pc_batch_to_rows(const struct ArrowSchema *schema, const struct ArrowArray *batch) {
  if (pc_convert_init()) return NULL;
  conv top;
  if (conv_build(&top, schema)) {
    conv_free(&top);
    return NULL;
  }
  if (top.kind != K_STRUCT || batch->n_children != top.n_children) {
    conv_free(&top);
    PyErr_SetString(PyExc_ValueError, "paimon_c: a record batch must be a struct array matching its schema");
    return NULL;
  }
  PyObject *rows = PyList_New(0);
  for (int64_t r = 0; rows && r < batch->length; r++) {
    PyObject *d = PyDict_New();
    int64_t j = batch->offset + r;
    for (int64_t k = 0; d && k < top.n_children; k++) {
      PyObject *v = value(&top.children[k], batch->children[k], j);
      if (!v || PyDict_SetItem(d, top.children[k].name, v)) {
        Py_XDECREF(v);
        Py_CLEAR(d);
        break;
      }
      Py_DECREF(v);
    }
    if (!d || PyList_Append(rows, d)) {
      Py_XDECREF(d);
      Py_CLEAR(rows);
      break;
    }
    Py_DECREF(d);
  }
  conv_free(&top);
  return rows;
}
