#include "arrow/type.h"
#include "util/str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parses a non-negative decimal integer; *end points past it. -1 on error/overflow. */
static int64_t parse_uint(const char *s, const char **end) {
  int64_t v = 0;
  const char *p = s;
  if (*p < '0' || *p > '9') return -1;
  while (*p >= '0' && *p <= '9') {
    v = v * 10 + (*p - '0');
    if (v > INT32_MAX) return -1;
    p++;
  }
  *end = p;
  return v;
}

int pm_type_parse_format(const char *f, pm_type *t, const char *path, pm_error *err) {
  memset(t, 0, sizeof *t);
  if (!f) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: missing format string", path);
  const char *bad = "malformed";
  if (f[0] && !f[1]) {
    switch (f[0]) {
      case 'n': t->id = PM_T_NULL; return 0;
      case 'b': t->id = PM_T_BOOL; return 0;
      case 'c': t->id = PM_T_INT8; return 0;
      case 'C': t->id = PM_T_UINT8; return 0;
      case 's': t->id = PM_T_INT16; return 0;
      case 'S': t->id = PM_T_UINT16; return 0;
      case 'i': t->id = PM_T_INT32; return 0;
      case 'I': t->id = PM_T_UINT32; return 0;
      case 'l': t->id = PM_T_INT64; return 0;
      case 'L': t->id = PM_T_UINT64; return 0;
      case 'e': t->id = PM_T_HALF_FLOAT; return 0;
      case 'f': t->id = PM_T_FLOAT; return 0;
      case 'g': t->id = PM_T_DOUBLE; return 0;
      case 'u': t->id = PM_T_UTF8; return 0;
      case 'U': t->id = PM_T_LARGE_UTF8; return 0;
      case 'z': t->id = PM_T_BINARY; return 0;
      case 'Z': t->id = PM_T_LARGE_BINARY; return 0;
      default: break;
    }
  } else if (f[0] == 'd' && f[1] == ':') {
    const char *p = f + 2, *e;
    int64_t prec = parse_uint(p, &e);
    if (prec < 0 || *e != ',') goto fail;
    p = e + 1;
    int neg = 0;
    if (*p == '-') {
      neg = 1;
      p++;
    }
    int64_t scale = parse_uint(p, &e);
    if (scale < 0) goto fail;
    if (*e == ',') {
      const char *e2;
      int64_t bw = parse_uint(e + 1, &e2);
      if (bw != 128 || *e2) {
        bad = "unsupported";
        if (bw == 256 && !*e2) goto unsupported;
        goto fail;
      }
    } else if (*e) {
      goto fail;
    }
    if (prec < 1 || prec > 38) {
      bad = "precision out of range 1..38 in";
      goto fail;
    }
    t->id = PM_T_DECIMAL128;
    t->precision = (int32_t)prec;
    t->scale = (int32_t)(neg ? -scale : scale);
    if (t->scale < -38) {
      bad = "scale below -38 in";
      goto fail;
    }
    if (t->scale > t->precision) {
      bad = "scale greater than precision in";
      goto fail;
    }
    return 0;
  } else if (f[0] == 'w' && f[1] == ':') {
    const char *e;
    int64_t w = parse_uint(f + 2, &e);
    if (w < 0 || *e) goto fail;
    t->id = PM_T_FIXED_BINARY;
    t->width = (int32_t)w;
    return 0;
  } else if (f[0] == 't') {
    if (f[1] == 'd' && f[2] && !f[3]) {
      if (f[2] == 'D') { t->id = PM_T_DATE32; return 0; }
      if (f[2] == 'm') { t->id = PM_T_DATE64; return 0; }
    } else if (f[1] == 't' && f[2] && !f[3]) {
      switch (f[2]) {
        case 's': t->id = PM_T_TIME32; t->unit = PM_UNIT_S; return 0;
        case 'm': t->id = PM_T_TIME32; t->unit = PM_UNIT_MS; return 0;
        case 'u': t->id = PM_T_TIME64; t->unit = PM_UNIT_US; return 0;
        case 'n': t->id = PM_T_TIME64; t->unit = PM_UNIT_NS; return 0;
        default: break;
      }
    } else if (f[1] == 's' && f[2] && f[3] == ':') {
      switch (f[2]) {
        case 's': t->unit = PM_UNIT_S; break;
        case 'm': t->unit = PM_UNIT_MS; break;
        case 'u': t->unit = PM_UNIT_US; break;
        case 'n': t->unit = PM_UNIT_NS; break;
        default: goto fail;
      }
      t->id = PM_T_TIMESTAMP;
      if (f[4]) {
        t->tz = pm_strdup(f + 4);
        if (!t->tz) return PM_NOMEM(err);
      }
      return 0;
    }
    bad = "unsupported";
    goto unsupported;
  } else if (f[0] == '+') {
    if (f[1] && !f[2]) {
      switch (f[1]) {
        case 'l': t->id = PM_T_LIST; return 0;
        case 'L': t->id = PM_T_LARGE_LIST; return 0;
        case 's': t->id = PM_T_STRUCT; return 0;
        case 'm': t->id = PM_T_MAP; return 0;
        default: break;
      }
    } else if (f[1] == 'w' && f[2] == ':') {
      const char *e;
      int64_t w = parse_uint(f + 3, &e);
      if (w < 0 || *e) goto fail;
      t->id = PM_T_FIXED_LIST;
      t->width = (int32_t)w;
      return 0;
    }
    goto unsupported;
  }
  if (f[0] == 'v' || f[0] == 'e' || f[0] == 'r') goto unsupported;
fail:
  return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: %s format string \"%.64s\"", path, bad, f);
unsupported:
  return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: unsupported Arrow format string \"%.64s\"", path, f);
}

void pm_type_free(pm_type *t) {
  if (!t) return;
  for (int64_t i = 0; i < t->n_children; i++) pm_type_free(&t->children[i]);
  free(t->children);
  if (t->dict) {
    pm_type_free(t->dict);
    free(t->dict);
  }
  free(t->tz);
  free(t->name);
  memset(t, 0, sizeof *t);
}

static int expected_children(pm_type_id id) {
  switch (id) {
    case PM_T_LIST:
    case PM_T_LARGE_LIST:
    case PM_T_FIXED_LIST:
    case PM_T_MAP: return 1;
    case PM_T_STRUCT: return -1; /* any */
    default: return 0;
  }
}

static int from_schema(const struct ArrowSchema *s, pm_type *out, char *path, size_t path_len, int depth,
                       pm_error *err) {
  if (depth > PM_ARROW_MAX_DEPTH)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: nesting deeper than %d", path, PM_ARROW_MAX_DEPTH);
  if (!s || !s->release)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: schema is NULL or released", path);
  pm_type idx;
  PM_TRY(pm_type_parse_format(s->format, &idx, path, err));
  if (s->dictionary) {
    /* This node is the index type; the value type lives in dict. */
    if (idx.id < PM_T_INT8 || idx.id > PM_T_UINT64) {
      pm_type_free(&idx);
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: dictionary index type \"%s\" is not an integer", path,
                       s->format);
    }
    idx.dict = calloc(1, sizeof *idx.dict);
    if (!idx.dict) {
      pm_type_free(&idx);
      return PM_NOMEM(err);
    }
    int rc = from_schema(s->dictionary, idx.dict, path, path_len, depth + 1, err);
    if (rc) {
      pm_type_free(&idx);
      return rc;
    }
  }
  *out = idx;
  out->nullable = (s->flags & ARROW_FLAG_NULLABLE) != 0;
  if (s->name) {
    out->name = pm_strdup(s->name);
    if (!out->name) goto nomem;
  }
  int want = expected_children(out->id);
  if (s->n_children < 0 || (want >= 0 && s->n_children != want)) {
    int rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: type \"%s\" has %lld children, expected %d", path,
                       s->format, (long long)s->n_children, want);
    pm_type_free(out);
    return rc;
  }
  if (s->n_children > 0) {
    if (!s->children) {
      pm_type_free(out);
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: children pointer is NULL", path);
    }
    out->children = calloc((size_t)s->n_children, sizeof *out->children);
    if (!out->children) goto nomem;
    out->n_children = s->n_children;
    size_t base = strlen(path);
    for (int64_t i = 0; i < s->n_children; i++) {
      const struct ArrowSchema *c = s->children[i];
      if (c && c->name && c->name[0])
        snprintf(path + base, path_len - base, ".%s", c->name);
      else
        snprintf(path + base, path_len - base, ".[%lld]", (long long)i);
      int rc = from_schema(c, &out->children[i], path, path_len, depth + 1, err);
      path[base] = 0;
      if (rc) {
        pm_type_free(out);
        return rc;
      }
    }
  }
  if (out->id == PM_T_MAP) {
    const pm_type *e = &out->children[0];
    if (e->id != PM_T_STRUCT || e->n_children != 2) {
      pm_type_free(out);
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: map entries must be a struct of 2 fields", path);
    }
  }
  return 0;
nomem:
  pm_type_free(out);
  return PM_NOMEM(err);
}

int pm_type_from_schema(const struct ArrowSchema *schema, pm_type *out, pm_error *err) {
  char path[512];
  snprintf(path, sizeof path, "%s", schema && schema->name && schema->name[0] ? schema->name : "<root>");
  memset(out, 0, sizeof *out);
  return from_schema(schema, out, path, sizeof path, 0, err);
}

int pm_type_init(pm_type *t, pm_type_id id, const char *name, int nullable, int64_t n_children, pm_error *err) {
  memset(t, 0, sizeof *t);
  t->id = id;
  t->nullable = nullable;
  if (name) {
    t->name = pm_strdup(name);
    if (!t->name) return PM_NOMEM(err);
  }
  if (n_children > 0) {
    t->children = calloc((size_t)n_children, sizeof *t->children);
    if (!t->children) {
      pm_type_free(t);
      return PM_NOMEM(err);
    }
    t->n_children = n_children;
  }
  return 0;
}

int pm_type_copy(const pm_type *src, pm_type *dst, pm_error *err) {
  PM_TRY(pm_type_init(dst, src->id, src->name, src->nullable, src->n_children, err));
  dst->unit = src->unit;
  dst->precision = src->precision;
  dst->scale = src->scale;
  dst->width = src->width;
  if (src->tz) {
    dst->tz = pm_strdup(src->tz);
    if (!dst->tz) goto nomem;
  }
  for (int64_t i = 0; i < src->n_children; i++) {
    int rc = pm_type_copy(&src->children[i], &dst->children[i], err);
    if (rc) {
      pm_type_free(dst);
      return rc;
    }
  }
  if (src->dict) {
    dst->dict = calloc(1, sizeof *dst->dict);
    if (!dst->dict) goto nomem;
    int rc = pm_type_copy(src->dict, dst->dict, err);
    if (rc) {
      pm_type_free(dst);
      return rc;
    }
  }
  return 0;
nomem:
  pm_type_free(dst);
  return PM_NOMEM(err);
}

void pm_type_decode_dictionaries(pm_type *t) {
  while (t->dict) {
    pm_type *v = t->dict;
    char *name = t->name;
    int nullable = t->nullable;
    t->name = NULL;
    t->dict = NULL;
    pm_type_free(t); /* the index node (no children) */
    *t = *v;
    free(v);
    free(t->name);
    t->name = name;
    t->nullable = nullable;
  }
  for (int64_t i = 0; i < t->n_children; i++) pm_type_decode_dictionaries(&t->children[i]);
}

int pm_type_format(const pm_type *t, char *buf, size_t cap) {
  static const char units[] = "smun";
  const char *simple = NULL;
  switch (t->id) {
    case PM_T_NULL: simple = "n"; break;
    case PM_T_BOOL: simple = "b"; break;
    case PM_T_INT8: simple = "c"; break;
    case PM_T_UINT8: simple = "C"; break;
    case PM_T_INT16: simple = "s"; break;
    case PM_T_UINT16: simple = "S"; break;
    case PM_T_INT32: simple = "i"; break;
    case PM_T_UINT32: simple = "I"; break;
    case PM_T_INT64: simple = "l"; break;
    case PM_T_UINT64: simple = "L"; break;
    case PM_T_HALF_FLOAT: simple = "e"; break;
    case PM_T_FLOAT: simple = "f"; break;
    case PM_T_DOUBLE: simple = "g"; break;
    case PM_T_DATE32: simple = "tdD"; break;
    case PM_T_DATE64: simple = "tdm"; break;
    case PM_T_UTF8: simple = "u"; break;
    case PM_T_LARGE_UTF8: simple = "U"; break;
    case PM_T_BINARY: simple = "z"; break;
    case PM_T_LARGE_BINARY: simple = "Z"; break;
    case PM_T_LIST: simple = "+l"; break;
    case PM_T_LARGE_LIST: simple = "+L"; break;
    case PM_T_STRUCT: simple = "+s"; break;
    case PM_T_MAP: simple = "+m"; break;
    case PM_T_DECIMAL128: return snprintf(buf, cap, "d:%d,%d", (int)t->precision, (int)t->scale);
    case PM_T_FIXED_BINARY: return snprintf(buf, cap, "w:%d", (int)t->width);
    case PM_T_FIXED_LIST: return snprintf(buf, cap, "+w:%d", (int)t->width);
    case PM_T_TIME32:
    case PM_T_TIME64: return snprintf(buf, cap, "tt%c", units[t->unit & 3]);
    case PM_T_TIMESTAMP: return snprintf(buf, cap, "ts%c:%s", units[t->unit & 3], t->tz ? t->tz : "");
  }
  return snprintf(buf, cap, "%s", simple ? simple : "n");
}

int pm_type_to_schema(const pm_type *t, struct ArrowSchema *out, pm_error *err) {
  char fmt[300];
  const pm_type *node = t;
  if (t->dict) {
    /* Index format on this node, value type as dictionary. */
    pm_type_format(t, fmt, sizeof fmt);
  } else {
    pm_type_format(node, fmt, sizeof fmt);
  }
  PM_TRY(pm_schema_init(out, fmt, t->name, t->nullable ? ARROW_FLAG_NULLABLE : 0, t->n_children, err));
  for (int64_t i = 0; i < t->n_children; i++) {
    int rc = pm_type_to_schema(&t->children[i], out->children[i], err);
    if (rc) {
      pm_schema_release(out);
      return rc;
    }
  }
  if (t->dict) {
    int rc = pm_schema_init_dictionary(out, err);
    if (!rc) rc = pm_type_to_schema(t->dict, out->dictionary, err);
    if (rc) {
      pm_schema_release(out);
      return rc;
    }
  }
  return 0;
}

int pm_type_n_buffers(pm_type_id id) {
  switch (id) {
    case PM_T_NULL: return 0;
    case PM_T_UTF8:
    case PM_T_LARGE_UTF8:
    case PM_T_BINARY:
    case PM_T_LARGE_BINARY: return 3;
    case PM_T_FIXED_LIST:
    case PM_T_STRUCT: return 1;
    default: return 2;
  }
}

int pm_type_byte_width(const pm_type *t) {
  switch (t->id) {
    case PM_T_INT8:
    case PM_T_UINT8: return 1;
    case PM_T_INT16:
    case PM_T_UINT16:
    case PM_T_HALF_FLOAT: return 2;
    case PM_T_INT32:
    case PM_T_UINT32:
    case PM_T_FLOAT:
    case PM_T_DATE32:
    case PM_T_TIME32: return 4;
    case PM_T_INT64:
    case PM_T_UINT64:
    case PM_T_DOUBLE:
    case PM_T_DATE64:
    case PM_T_TIME64:
    case PM_T_TIMESTAMP: return 8;
    case PM_T_DECIMAL128: return 16;
    case PM_T_FIXED_BINARY: return t->width;
    default: return 0;
  }
}
