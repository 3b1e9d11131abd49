/* Arrow input of the table writer: columns matched to the table by name
 * (at every ROW level), type and NOT NULL checks, zero-copy views in table
 * order, single values of routing columns, slices and size estimates. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow.h"
#include "arrow/builder.h"
#include "arrow/validate.h"
#include "arrow/view.h"
#include "table/write_internal.h"
#include "util/buf.h"

/* ------------------------------------------------------------ views */

/* A view node: a copy of a source node (same buffers) with its own children
 * array; owned children are released with it, borrowed ones are not. */
typedef struct view_priv {
  struct ArrowArray **children;
  uint8_t *owned;
  int64_t n;
  struct ArrowArray keep; /* released with the view (a slice's source), or released */
  struct ArrowArray plain; /* the input converted to plain layouts (arrow/view.h), or released */
  const void *no_validity[1]; /* buffers of a top-level view: rows are never null */
} view_priv;

static void view_release(struct ArrowArray *a) {
  if (!a || !a->release) return;
  view_priv *p = a->private_data;
  if (p) {
    for (int64_t i = 0; i < p->n; i++) {
      if (p->owned[i] && p->children[i]) {
        if (p->children[i]->release) p->children[i]->release(p->children[i]);
        free(p->children[i]);
      }
    }
    free(p->children);
    free(p->owned);
    if (p->keep.release) p->keep.release(&p->keep);
    if (p->plain.release) p->plain.release(&p->plain);
    free(p);
  }
  a->release = NULL;
}

/* *out = shallow copy of src with n_children empty child slots (to fill). */
static int view_init(struct ArrowArray *out, const struct ArrowArray *src, int64_t n_children, pm_error *err) {
  *out = *src;
  out->n_children = n_children;
  out->dictionary = src->dictionary;
  view_priv *p = calloc(1, sizeof *p);
  if (p) {
    p->children = calloc((size_t)n_children + 1, sizeof *p->children);
    p->owned = calloc((size_t)n_children + 1, 1);
    p->n = n_children;
  }
  if (!p || !p->children || !p->owned) {
    if (p) {
      free(p->children);
      free(p->owned);
      free(p);
    }
    out->release = NULL;
    return PM_NOMEM(err);
  }
  out->children = p->children;
  out->private_data = p;
  out->release = view_release;
  return 0;
}

static void view_set_child(struct ArrowArray *v, int64_t i, struct ArrowArray *child, int owned) {
  view_priv *p = v->private_data;
  p->children[i] = child;
  p->owned[i] = (uint8_t)owned;
}

static int64_t count_nulls(const struct ArrowArray *a, int64_t start, int64_t len) {
  if (a->n_buffers < 1 || !a->buffers[0]) return 0;
  if (a->null_count == 0) return 0;
  const uint8_t *v = a->buffers[0];
  int64_t n = 0;
  for (int64_t i = 0; i < len; i++) n += !pm_bit_get(v, a->offset + start + i);
  return n;
}

/* Heap view of rows [start, start+len) of one column (children borrowed). */
static int column_slice(const struct ArrowArray *c, int64_t start, int64_t len, struct ArrowArray **out,
                        pm_error *err) {
  struct ArrowArray *v = malloc(sizeof *v);
  if (!v) return PM_NOMEM(err);
  int rc = view_init(v, c, c->n_children, err);
  if (rc) {
    free(v);
    return rc;
  }
  for (int64_t i = 0; i < c->n_children; i++) view_set_child(v, i, c->children[i], 0);
  v->offset = c->offset + start;
  v->length = len;
  v->null_count = (start == 0 && len == c->length) ? c->null_count : count_nulls(c, start, len);
  *out = v;
  return 0;
}

int pm_write_slice(const struct ArrowArray *a, int64_t start, int64_t len, struct ArrowArray *out, pm_error *err) {
  if (start < 0 || len < 0 || start + len > a->length)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "slice [%lld, +%lld) outside a batch of %lld rows",
                     (long long)start, (long long)len, (long long)a->length);
  PM_TRY(view_init(out, a, a->n_children, err));
  view_priv *p = out->private_data;
  out->buffers = p->no_validity;
  out->n_buffers = 1;
  out->offset = 0;
  out->length = len;
  out->null_count = 0;
  for (int64_t i = 0; i < a->n_children; i++) {
    struct ArrowArray *c = NULL;
    int rc = column_slice(a->children[i], a->offset + start, len, &c, err);
    if (rc) {
      out->release(out);
      return rc;
    }
    view_set_child(out, i, c, 1);
  }
  return 0;
}

/* ------------------------------------------------------------ type checks */

static const char *path_of(pm_buf *b) { return b->len ? (const char *)b->data : "?"; }

static int path_push(pm_buf *b, const char *name, size_t *mark, pm_error *err) {
  *mark = b->len;
  if (b->len && b->data[b->len - 1] == 0) b->len--;
  if (b->len && pm_buf_push_u8(b, '.')) return PM_NOMEM(err);
  if (pm_buf_append(b, name, strlen(name)) || pm_buf_push_u8(b, 0)) return PM_NOMEM(err);
  return 0;
}
static void path_pop(pm_buf *b, size_t mark) {
  b->len = mark;
  if (mark) b->data[mark - 1] = 0; /* keep the previous path NUL-terminated */
}

static pm_time_unit ts_unit(int32_t precision) {
  return precision <= 3 ? PM_UNIT_MS : precision <= 6 ? PM_UNIT_US : PM_UNIT_NS;
}

static int atomic_fits(const pm_data_type *t, const pm_type *in) {
  switch (t->root) {
    case PM_DT_BOOLEAN: return in->id == PM_T_BOOL;
    case PM_DT_TINYINT: return in->id == PM_T_INT8;
    case PM_DT_SMALLINT: return in->id == PM_T_INT16;
    case PM_DT_INT: return in->id == PM_T_INT32;
    case PM_DT_BIGINT: return in->id == PM_T_INT64;
    case PM_DT_FLOAT: return in->id == PM_T_FLOAT;
    case PM_DT_DOUBLE: return in->id == PM_T_DOUBLE;
    case PM_DT_DECIMAL:
      return in->id == PM_T_DECIMAL128 && in->scale == t->scale && in->precision <= t->precision;
    case PM_DT_CHAR:
    case PM_DT_VARCHAR: return in->id == PM_T_UTF8;
    case PM_DT_BINARY:
    case PM_DT_VARBINARY:
    case PM_DT_GEOMETRY:
    case PM_DT_GEOGRAPHY: return in->id == PM_T_BINARY;
    case PM_DT_DATE: return in->id == PM_T_DATE32;
    case PM_DT_TIME: return in->id == PM_T_TIME32 && in->unit == PM_UNIT_MS;
    case PM_DT_TIMESTAMP: return in->id == PM_T_TIMESTAMP && in->unit == ts_unit(t->precision) && !in->tz;
    case PM_DT_TIMESTAMP_LTZ: return in->id == PM_T_TIMESTAMP && in->unit == ts_unit(t->precision) && in->tz;
    default: return 0;
  }
}

static int type_error(const pm_data_type *t, const struct ArrowSchema *s, pm_buf *path, pm_error *err) {
  char want[48];
  char *tt = pm_dtype_to_cstring(t);
  pm_dtype_arrow_format(t, want, sizeof want);
  int rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "column '%s': Arrow type '%s' does not fit the table type %s (expected Arrow '%s')",
                     path_of(path), s->format ? s->format : "?", tt ? tt : "?", want);
  free(tt);
  return rc;
}

/* A heap all-null array of type t with `len` rows. */
static int null_array(const pm_data_type *t, const char *name, int64_t len, struct ArrowArray **out, pm_error *err) {
  pm_data_field f = {.id = 0, .name = (char *)name, .type = (pm_data_type *)t};
  struct ArrowSchema s;
  PM_TRY(pm_dfield_to_arrow(&f, &s, err));
  /* nulls below a null parent are never read; the builder needs nullable nodes */
  pm_builder *b = NULL;
  pm_type ty;
  memset(&ty, 0, sizeof ty);
  int rc = pm_type_from_schema(&s, &ty, err);
  s.release(&s);
  if (rc) return rc;
  struct ArrowArray *a = calloc(1, sizeof *a);
  if (!a) rc = PM_NOMEM(err);
  if (!rc) rc = pm_builder_new(&ty, &b, err);
  if (!rc) rc = pm_builder_append_nulls(b, len, err);
  if (!rc) rc = pm_builder_finish(b, a, err);
  pm_builder_free(b);
  pm_type_free(&ty);
  if (rc) {
    free(a);
    return rc;
  }
  *out = a;
  return 0;
}

static int build_node(const pm_data_type *t, const pm_type *in, const struct ArrowSchema *s,
                      const struct ArrowArray *a, pm_buf *path, int depth, struct ArrowArray **out, int *owned,
                      pm_error *err);

/* The struct view of a ROW (or the top-level batch: fields = the table's). */
static int build_struct(const pm_data_field *fields, size_t n, const pm_type *in, const struct ArrowSchema *s,
                        const struct ArrowArray *a, int top, pm_buf *path, int depth, struct ArrowArray *view,
                        pm_error *err) {
  /* every input field must be a table field (names unique) */
  for (int64_t k = 0; k < in->n_children; k++) {
    const char *nm = s->children[k]->name ? s->children[k]->name : "";
    size_t i;
    for (i = 0; i < n; i++)
      if (!strcmp(fields[i].name, nm)) break;
    size_t mark;
    PM_TRY(path_push(path, nm, &mark, err));
    if (i == n) {
      int rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "column '%s' is not a column of the table",
                         path_of(path));
      path_pop(path, mark);
      return rc;
    }
    for (int64_t j = 0; j < k; j++)
      if (s->children[j]->name && !strcmp(s->children[j]->name, nm)) {
        int rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "column '%s' appears twice in the input", path_of(path));
        path_pop(path, mark);
        return rc;
      }
    path_pop(path, mark);
  }
  PM_TRY(view_init(view, a, (int64_t)n, err));
  if (top) {
    view->null_count = 0; /* rows of a batch are never null */
    view->buffers = ((view_priv *)view->private_data)->no_validity;
    view->n_buffers = 1;
  }
  int rc = 0;
  for (size_t i = 0; !rc && i < n; i++) {
    int64_t k;
    for (k = 0; k < in->n_children; k++)
      if (s->children[k]->name && !strcmp(s->children[k]->name, fields[i].name)) break;
    size_t mark;
    rc = path_push(path, fields[i].name, &mark, err);
    if (rc) break;
    if (k < in->n_children && in->children[k].id == PM_T_NULL) k = in->n_children; /* a null column: as missing */
    struct ArrowArray *child = NULL;
    int owned = 0;
    if (k == in->n_children) {
      if (!fields[i].type->nullable)
        rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "column '%s' is NOT NULL but missing from the input",
                       path_of(path));
      else
        rc = null_array(fields[i].type, fields[i].name, a->offset + a->length, &child, err);
      owned = 1;
    } else {
      rc = build_node(fields[i].type, &in->children[k], s->children[k], a->children[k], path, depth + 1, &child,
                      &owned, err);
    }
    path_pop(path, mark);
    if (!rc) view_set_child(view, (int64_t)i, child, owned);
  }
  if (rc) view->release(view);
  return rc;
}

static int build_node(const pm_data_type *t, const pm_type *in, const struct ArrowSchema *s,
                      const struct ArrowArray *a, pm_buf *path, int depth, struct ArrowArray **out, int *owned,
                      pm_error *err) {
  if (depth > PM_ARROW_MAX_DEPTH)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "column '%s': nested too deeply", path_of(path));
  if (in->dict)
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "column '%s': dictionary-encoded input is not supported",
                     path_of(path));
  *out = NULL;
  *owned = 0;
  switch (t->root) {
    case PM_DT_ROW: {
      if (in->id != PM_T_STRUCT) return type_error(t, s, path, err);
      struct ArrowArray *v = malloc(sizeof *v);
      if (!v) return PM_NOMEM(err);
      int rc = build_struct(t->fields, t->n_fields, in, s, a, 0, path, depth, v, err);
      if (rc) {
        free(v);
        return rc;
      }
      *out = v;
      *owned = 1;
      return 0;
    }
    case PM_DT_ARRAY:
    case PM_DT_VECTOR:
    case PM_DT_MAP:
    case PM_DT_MULTISET: {
      int ok;
      if (t->root == PM_DT_ARRAY) ok = in->id == PM_T_LIST;
      else if (t->root == PM_DT_VECTOR) ok = in->id == PM_T_FIXED_LIST && in->width == t->length;
      else ok = in->id == PM_T_MAP && in->n_children == 1 && in->children[0].n_children == 2;
      if (!ok) return type_error(t, s, path, err);
      struct ArrowArray *v = malloc(sizeof *v);
      if (!v) return PM_NOMEM(err);
      int rc = view_init(v, a, 1, err);
      if (rc) {
        free(v);
        return rc;
      }
      struct ArrowArray *child = NULL;
      int cown = 0;
      size_t mark;
      if (t->root == PM_DT_ARRAY || t->root == PM_DT_VECTOR) {
        rc = path_push(path, "element", &mark, err);
        if (!rc) {
          rc = build_node(t->element, &in->children[0], s->children[0], a->children[0], path, depth + 1, &child,
                          &cown, err);
          path_pop(path, mark);
        }
      } else {
        /* entries struct: key, value by position */
        const pm_type *ein = &in->children[0];
        const struct ArrowSchema *es = s->children[0];
        const struct ArrowArray *ea = a->children[0];
        struct ArrowArray *ev = malloc(sizeof *ev);
        if (!ev) rc = PM_NOMEM(err);
        if (!rc) rc = view_init(ev, ea, 2, err);
        if (rc) free(ev);
        if (!rc) {
          pm_data_type cnt = {.root = PM_DT_INT, .nullable = 0};
          const pm_data_type *kt = t->root == PM_DT_MAP ? t->key : t->element;
          const pm_data_type *vt = t->root == PM_DT_MAP ? t->value : &cnt;
          for (int j = 0; !rc && j < 2; j++) {
            struct ArrowArray *kv = NULL;
            int kown = 0;
            rc = path_push(path, j ? "value" : "key", &mark, err);
            if (rc) break;
            rc = build_node(j ? vt : kt, &ein->children[j], es->children[j], ea->children[j], path, depth + 1, &kv,
                            &kown, err);
            path_pop(path, mark);
            if (!rc) view_set_child(ev, j, kv, kown);
          }
          if (rc) {
            ev->release(ev);
            free(ev);
          } else {
            child = ev;
            cown = 1;
          }
        }
      }
      if (rc) {
        v->release(v);
        free(v);
        return rc;
      }
      view_set_child(v, 0, child, cown);
      *out = v;
      *owned = 1;
      return 0;
    }
    case PM_DT_VARIANT:
    case PM_DT_BLOB:
      return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "column '%s': writing %s columns is not supported", path_of(path),
                       pm_dtype_root_name(t->root));
    default:
      if (!atomic_fits(t, in)) return type_error(t, s, path, err);
      *out = (struct ArrowArray *)a; /* borrowed leaf */
      *owned = 0;
      return 0;
  }
}

/* ------------------------------------------------------------ NOT NULL */

static int needs_check(const pm_data_type *t) {
  if (!t->nullable) return 1;
  switch (t->root) {
    case PM_DT_ROW:
      for (size_t i = 0; i < t->n_fields; i++)
        if (needs_check(t->fields[i].type)) return 1;
      return 0;
    case PM_DT_ARRAY:
    case PM_DT_VECTOR:
    case PM_DT_MULTISET: return needs_check(t->element);
    case PM_DT_MAP: return needs_check(t->key) || needs_check(t->value);
    default: return 0;
  }
}

/* Checks logical rows [b, e) of a (a view in table order). */
static int check_nulls(const pm_data_type *t, const struct ArrowArray *a, int64_t b, int64_t e, pm_buf *path,
                       pm_error *err) {
  if (!t->nullable && a->null_count != 0 && a->n_buffers > 0 && a->buffers[0]) {
    for (int64_t i = b; i < e; i++)
      if (!pm_array_is_valid(a, i))
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "column '%s' is NOT NULL but has a null (value %lld)",
                         path_of(path), (long long)i);
  }
  int rc = 0;
  size_t mark;
  switch (t->root) {
    case PM_DT_ROW:
      for (size_t k = 0; !rc && k < t->n_fields; k++) {
        if (!needs_check(t->fields[k].type)) continue;
        PM_TRY(path_push(path, t->fields[k].name, &mark, err));
        const struct ArrowArray *c = a->children[k];
        if (count_nulls(a, b, e - b) == 0) {
          rc = check_nulls(t->fields[k].type, c, a->offset + b, a->offset + e, path, err);
        } else {
          for (int64_t i = b; !rc && i < e; i++)
            if (pm_array_is_valid(a, i)) rc = check_nulls(t->fields[k].type, c, a->offset + i, a->offset + i + 1, path, err);
        }
        path_pop(path, mark);
      }
      return rc;
    case PM_DT_ARRAY:
    case PM_DT_MAP:
    case PM_DT_MULTISET: {
      int is_map = t->root != PM_DT_ARRAY;
      const pm_data_type *kt = t->root == PM_DT_MAP ? t->key : t->element;
      if (!is_map && !needs_check(t->element)) return 0;
      if (is_map && !needs_check(kt) && !(t->root == PM_DT_MAP && needs_check(t->value))) return 0;
      const int32_t *off = a->buffers[1];
      const struct ArrowArray *c = a->children[0];
      for (int64_t i = b; !rc && i < e; i++) {
        if (!pm_array_is_valid(a, i)) continue;
        int64_t s0 = off[a->offset + i], s1 = off[a->offset + i + 1];
        if (s0 == s1) continue;
        if (!is_map) {
          PM_TRY(path_push(path, "element", &mark, err));
          rc = check_nulls(t->element, c, s0, s1, path, err);
          path_pop(path, mark);
        } else {
          PM_TRY(path_push(path, "key", &mark, err));
          rc = check_nulls(kt, c->children[0], c->offset + s0, c->offset + s1, path, err);
          path_pop(path, mark);
          if (!rc && t->root == PM_DT_MAP) {
            PM_TRY(path_push(path, "value", &mark, err));
            rc = check_nulls(t->value, c->children[1], c->offset + s0, c->offset + s1, path, err);
            path_pop(path, mark);
          }
        }
      }
      return rc;
    }
    case PM_DT_VECTOR: {
      if (!needs_check(t->element)) return 0;
      int64_t w = t->length;
      PM_TRY(path_push(path, "element", &mark, err));
      for (int64_t i = b; !rc && i < e; i++)
        if (pm_array_is_valid(a, i))
          rc = check_nulls(t->element, a->children[0], (a->offset + i) * w, (a->offset + i + 1) * w, path, err);
      path_pop(path, mark);
      return rc;
    }
    default: return 0;
  }
}

/* ------------------------------------------------------------ match */

static int write_match(const pm_data_field *fields, size_t n_fields, const struct ArrowSchema *s,
                       const struct ArrowArray *a, int validate, struct ArrowArray *out, pm_error *err) {
  out->release = NULL;
  if (!s || !a || !s->format || !a->release)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "write: the batch or its schema is released or NULL");
  if (strcmp(s->format, "+s"))
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "write: a batch must be a struct array ('+s'), got '%s'",
                     s->format);
  /* large / view / dictionary-encoded kinds: converted to plain layouts first */
  struct ArrowSchema ps;
  struct ArrowArray pa;
  ps.release = NULL;
  pa.release = NULL;
  if (pm_arrow_needs_plain(s)) {
    PM_TRY(pm_arrow_to_plain(s, a, &ps, &pa, err));
    s = &ps;
    a = &pa;
  }
  pm_type in;
  memset(&in, 0, sizeof in);
  int rc = validate ? pm_arrow_validate_ex(s, a, PM_VALIDATE_UTF8, err) : 0;
  if (!rc) rc = pm_type_from_schema(s, &in, err);
  if (rc) {
    if (pa.release) pa.release(&pa);
    if (ps.release) ps.release(&ps);
    return rc;
  }
  pm_buf path;
  pm_buf_init(&path);
  struct ArrowArray view;
  view.release = NULL;
  rc = build_struct(fields, n_fields, &in, s, a, 1, &path, 0, &view, err);
  if (!rc && pa.release) pm_array_move(&pa, &((view_priv *)view.private_data)->plain);
  if (pa.release) pa.release(&pa);
  int sliced = view.offset != 0;
  for (int64_t i = 0; !rc && i < view.n_children; i++) sliced |= view.children[i]->length != view.length;
  if (!rc && sliced) {
    /* offset 0 for the consumers: slice the columns, the slice keeps the view */
    rc = pm_write_slice(&view, 0, view.length, out, err);
    if (!rc) {
      ((view_priv *)out->private_data)->keep = view;
      view.release = NULL;
    }
    if (view.release) view.release(&view);
  } else if (!rc) {
    *out = view;
  }
  for (size_t i = 0; !rc && i < n_fields; i++) {
    if (!needs_check(fields[i].type)) continue;
    size_t mark;
    rc = path_push(&path, fields[i].name, &mark, err);
    if (!rc) rc = check_nulls(fields[i].type, out->children[i], 0, out->length, &path, err);
    path_pop(&path, mark);
  }
  if (rc && out->release) out->release(out);
  pm_buf_free(&path);
  pm_type_free(&in);
  if (ps.release) ps.release(&ps);
  return rc;
}

int pm_write_match(const pm_data_field *fields, size_t n_fields, const struct ArrowSchema *s,
                   const struct ArrowArray *a, struct ArrowArray *out, pm_error *err) {
  return write_match(fields, n_fields, s, a, 1, out, err);
}

int pm_write_match_read(const pm_data_field *fields, size_t n_fields, const struct ArrowSchema *s,
                        const struct ArrowArray *a, struct ArrowArray *out, pm_error *err) {
  return write_match(fields, n_fields, s, a, 0, out, err);
}

/* ------------------------------------------------------------ values */

int pm_write_value_at(const pm_data_type *t, const struct ArrowArray *a, int64_t i, pm_value *out, pm_error *err) {
  memset(out, 0, sizeof *out);
  if (!pm_array_is_valid(a, i)) {
    out->kind = PM_V_NULL;
    return 0;
  }
  int64_t k = a->offset + i;
  const void *d = a->buffers[1];
  switch (t->root) {
    case PM_DT_BOOLEAN:
      out->kind = PM_V_BOOL;
      out->u.i64 = pm_bit_get(d, k);
      return 0;
    case PM_DT_TINYINT: out->kind = PM_V_INT; out->u.i64 = ((const int8_t *)d)[k]; return 0;
    case PM_DT_SMALLINT: out->kind = PM_V_INT; out->u.i64 = ((const int16_t *)d)[k]; return 0;
    case PM_DT_INT:
    case PM_DT_DATE:
    case PM_DT_TIME: out->kind = PM_V_INT; out->u.i64 = ((const int32_t *)d)[k]; return 0;
    case PM_DT_BIGINT: out->kind = PM_V_INT; out->u.i64 = ((const int64_t *)d)[k]; return 0;
    case PM_DT_FLOAT: out->kind = PM_V_FLOAT; out->u.f64 = ((const float *)d)[k]; return 0;
    case PM_DT_DOUBLE: out->kind = PM_V_DOUBLE; out->u.f64 = ((const double *)d)[k]; return 0;
    case PM_DT_DECIMAL: {
      const uint8_t *p = (const uint8_t *)d + k * 16;
      out->kind = PM_V_DECIMAL;
      memcpy(&out->u.dec.lo, p, 8);
      memcpy(&out->u.dec.hi, p + 8, 8);
      out->u.dec.precision = t->precision;
      out->u.dec.scale = t->scale;
      return 0;
    }
    case PM_DT_CHAR:
    case PM_DT_VARCHAR:
    case PM_DT_BINARY:
    case PM_DT_VARBINARY:
    case PM_DT_GEOMETRY:
    case PM_DT_GEOGRAPHY: {
      const int32_t *off = d;
      out->kind = pm_dtype_is_string(t->root) ? PM_V_STRING : PM_V_BINARY;
      out->u.bytes.data = (const uint8_t *)a->buffers[2] + off[k];
      out->u.bytes.len = (size_t)(off[k + 1] - off[k]);
      return 0;
    }
    case PM_DT_TIMESTAMP:
    case PM_DT_TIMESTAMP_LTZ: {
      int64_t v = ((const int64_t *)d)[k];
      int64_t per = t->precision <= 3 ? 1 : t->precision <= 6 ? 1000 : 1000000;
      int64_t ms = v / per, rem = v % per;
      if (rem < 0) {
        rem += per;
        ms--;
      }
      out->kind = PM_V_TIMESTAMP;
      out->u.ts.millis = ms;
      out->u.ts.nanos = (int32_t)(rem * (1000000 / per));
      return 0;
    }
    default:
      return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "a %s column cannot be a partition or bucket key",
                       pm_dtype_root_name(t->root));
  }
}

/* ------------------------------------------------------------ sizes */

static uint64_t node_bytes(const pm_data_type *t, const struct ArrowArray *a, int64_t b, int64_t e) {
  if (e <= b) return 0;
  uint64_t n = (uint64_t)(e - b);
  switch (t->root) {
    case PM_DT_BOOLEAN: return (n + 7) / 8;
    case PM_DT_TINYINT: return n;
    case PM_DT_SMALLINT: return 2 * n;
    case PM_DT_INT: case PM_DT_DATE: case PM_DT_TIME: case PM_DT_FLOAT: return 4 * n;
    case PM_DT_DECIMAL: return t->precision <= 9 ? 4 * n : t->precision <= 18 ? 8 * n : 16 * n;
    case PM_DT_CHAR: case PM_DT_VARCHAR: case PM_DT_BINARY: case PM_DT_VARBINARY: case PM_DT_GEOMETRY:
    case PM_DT_GEOGRAPHY: {
      const int32_t *off = a->buffers[1];
      return 4 * n + (uint64_t)(off[a->offset + e] - off[a->offset + b]);
    }
    case PM_DT_ROW: {
      uint64_t s = 0;
      for (size_t k = 0; k < t->n_fields; k++) s += node_bytes(t->fields[k].type, a->children[k], a->offset + b, a->offset + e);
      return s;
    }
    case PM_DT_ARRAY: {
      const int32_t *off = a->buffers[1];
      return 4 * n + node_bytes(t->element, a->children[0], off[a->offset + b], off[a->offset + e]);
    }
    case PM_DT_MAP:
    case PM_DT_MULTISET: {
      const int32_t *off = a->buffers[1];
      const struct ArrowArray *c = a->children[0];
      int64_t s0 = c->offset + off[a->offset + b], s1 = c->offset + off[a->offset + e];
      pm_data_type cnt = {.root = PM_DT_INT, .nullable = 0};
      return 4 * n + node_bytes(t->root == PM_DT_MAP ? t->key : t->element, c->children[0], s0, s1) +
             node_bytes(t->root == PM_DT_MAP ? t->value : &cnt, c->children[1], s0, s1);
    }
    case PM_DT_VECTOR:
      return node_bytes(t->element, a->children[0], (a->offset + b) * t->length, (a->offset + e) * t->length);
    default: return 8 * n;
  }
}

uint64_t pm_write_batch_bytes(const struct ArrowArray *a, const pm_data_field *fields, size_t n) {
  uint64_t s = 0;
  for (size_t i = 0; i < n && (int64_t)i < a->n_children; i++)
    s += node_bytes(fields[i].type, a->children[i], 0, a->length);
  return s;
}
