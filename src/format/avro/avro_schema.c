/* Avro writer schema JSON -> pm_avro_schema tree; field resolution by name. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "format/avro/avro.h"

struct pm_avro_schema_tree {
  json_t *json;             /* root JSON, nodes borrow from it */
  const pm_avro_schema *root;
  void **allocs;            /* every allocation of the tree, freed together */
  size_t alloc_count, alloc_cap;
  /* named types, for references */
  char **names;
  pm_avro_schema **named;
  size_t name_count, name_cap;
  const char *what;
  pm_error *err;
};

const char *pm_avro_type_name(pm_avro_type t) {
  switch (t) {
    case PM_AVRO_NULL: return "null";
    case PM_AVRO_BOOLEAN: return "boolean";
    case PM_AVRO_INT: return "int";
    case PM_AVRO_LONG: return "long";
    case PM_AVRO_FLOAT: return "float";
    case PM_AVRO_DOUBLE: return "double";
    case PM_AVRO_BYTES: return "bytes";
    case PM_AVRO_STRING: return "string";
    case PM_AVRO_RECORD: return "record";
    case PM_AVRO_ENUM: return "enum";
    case PM_AVRO_ARRAY: return "array";
    case PM_AVRO_MAP: return "map";
    case PM_AVRO_UNION: return "union";
    case PM_AVRO_FIXED: return "fixed";
  }
  return "unknown";
}

static void *tree_alloc(pm_avro_schema_tree *t, size_t size) {
  if (t->alloc_count == t->alloc_cap) {
    size_t cap = t->alloc_cap ? t->alloc_cap * 2 : 32;
    void **a = realloc(t->allocs, cap * sizeof *a);
    if (!a) return NULL;
    t->allocs = a;
    t->alloc_cap = cap;
  }
  void *p = calloc(1, size ? size : 1);
  if (p) t->allocs[t->alloc_count++] = p;
  return p;
}

static char *tree_strdup(pm_avro_schema_tree *t, const char *s) {
  size_t n = strlen(s);
  char *p = tree_alloc(t, n + 1);
  if (p) memcpy(p, s, n + 1);
  return p;
}

static int nomem(pm_avro_schema_tree *t) { return PM_NOMEM(t->err); }

static int bad(pm_avro_schema_tree *t, const char *msg, const char *detail) {
  return pm_errorf(t->err, PAIMON_ERR_CORRUPT, "%s: invalid Avro schema: %s%s%s", t->what, msg,
                   detail ? " " : "", detail ? detail : "");
}

static int primitive_type(const char *name, pm_avro_type *out) {
  static const struct {
    const char *name;
    pm_avro_type type;
  } prims[] = {{"null", PM_AVRO_NULL},     {"boolean", PM_AVRO_BOOLEAN}, {"int", PM_AVRO_INT},
               {"long", PM_AVRO_LONG},     {"float", PM_AVRO_FLOAT},     {"double", PM_AVRO_DOUBLE},
               {"bytes", PM_AVRO_BYTES},   {"string", PM_AVRO_STRING}};
  for (size_t i = 0; i < sizeof prims / sizeof prims[0]; i++)
    if (!strcmp(name, prims[i].name)) {
      *out = prims[i].type;
      return 1;
    }
  return 0;
}

static int64_t primitive_width(pm_avro_type t) {
  switch (t) {
    case PM_AVRO_NULL: return 0;
    case PM_AVRO_BOOLEAN: return 1;
    case PM_AVRO_FLOAT: return 4;
    case PM_AVRO_DOUBLE: return 8;
    default: return -1;
  }
}

static int is_varint_type(pm_avro_type t) { return t == PM_AVRO_INT || t == PM_AVRO_LONG || t == PM_AVRO_ENUM; }
static int is_bytes_type(pm_avro_type t) { return t == PM_AVRO_BYTES || t == PM_AVRO_STRING; }

/* One skip step for simple types (fixed width, varint, bytes, nullable varint/bytes); 0 if not simple. */
static int simple_op(const pm_avro_schema *ft, pm_avro_skip_op *op) {
  memset(op, 0, sizeof *op);
  op->node = ft;
  if (ft->fixed_width >= 0 && ft->fixed_width <= UINT32_MAX) {
    op->kind = PM_AVRO_SKIP_FIXED;
    op->n = (uint32_t)ft->fixed_width;
  } else if (is_varint_type(ft->type)) {
    op->kind = PM_AVRO_SKIP_VARINT;
  } else if (is_bytes_type(ft->type)) {
    op->kind = PM_AVRO_SKIP_BYTES;
  } else if (ft->type == PM_AVRO_UNION && ft->branch_count == 2 && ft->null_branch >= 0 &&
             is_varint_type(ft->branches[1 - ft->null_branch]->type)) {
    op->kind = PM_AVRO_SKIP_OPT_VARINT;
    op->null_branch = (uint8_t)ft->null_branch;
  } else if (ft->type == PM_AVRO_UNION && ft->branch_count == 2 && ft->null_branch >= 0 &&
             is_bytes_type(ft->branches[1 - ft->null_branch]->type)) {
    op->kind = PM_AVRO_SKIP_OPT_BYTES;
    op->null_branch = (uint8_t)ft->null_branch;
  } else {
    return 0;
  }
  return 1;
}

/* Full name of a named type: "name" with dots is already full; else ns + "." + name. */
static char *full_name(pm_avro_schema_tree *t, const char *name, const char *ns) {
  if (strchr(name, '.') || !ns || !*ns) return tree_strdup(t, name);
  size_t a = strlen(ns), b = strlen(name);
  char *p = tree_alloc(t, a + b + 2);
  if (!p) return NULL;
  memcpy(p, ns, a);
  p[a] = '.';
  memcpy(p + a + 1, name, b + 1);
  return p;
}

static pm_avro_schema *lookup_named(pm_avro_schema_tree *t, const char *full) {
  for (size_t i = 0; i < t->name_count; i++)
    if (!strcmp(t->names[i], full)) return t->named[i];
  return NULL;
}

static int register_named(pm_avro_schema_tree *t, pm_avro_schema *node) {
  if (lookup_named(t, node->name)) return bad(t, "type defined twice:", node->name);
  if (t->name_count == t->name_cap) {
    size_t cap = t->name_cap ? t->name_cap * 2 : 16;
    char **n = realloc(t->names, cap * sizeof *n);
    if (!n) return nomem(t);
    t->names = n;
    pm_avro_schema **s = realloc(t->named, cap * sizeof *s);
    if (!s) return nomem(t);
    t->named = s;
    t->name_cap = cap;
  }
  t->names[t->name_count] = (char *)node->name;
  t->named[t->name_count++] = node;
  return 0;
}

/* Namespace part of a full name ("a.b.c" -> "a.b"), as a tree string; NULL for none. */
static const char *namespace_of(pm_avro_schema_tree *t, const char *full) {
  const char *dot = strrchr(full, '.');
  if (!dot) return "";
  size_t n = (size_t)(dot - full);
  char *p = tree_alloc(t, n + 1);
  if (p) memcpy(p, full, n);
  return p;
}

static int parse_node(pm_avro_schema_tree *t, json_t *j, const char *ns, int depth, const pm_avro_schema **out);

static int reference(pm_avro_schema_tree *t, json_t *j, const char *name, const char *ns, const pm_avro_schema **out) {
  pm_avro_type prim;
  if (primitive_type(name, &prim)) {
    pm_avro_schema *node = tree_alloc(t, sizeof *node);
    if (!node) return nomem(t);
    node->type = prim;
    node->json = j;
    node->null_branch = -1;
    node->fixed_width = primitive_width(prim);
    *out = node;
    return 0;
  }
  pm_avro_schema *found = NULL;
  if (!strchr(name, '.') && ns && *ns) {
    char *full = full_name(t, name, ns);
    if (!full) return nomem(t);
    found = lookup_named(t, full);
  }
  if (!found) found = lookup_named(t, name);
  if (!found) return bad(t, "unknown type", name);
  *out = found;
  return 0;
}

static int parse_name(pm_avro_schema_tree *t, json_t *j, const char *ns, pm_avro_schema *node, const char **inner_ns) {
  const char *name = json_string_value(json_object_get(j, "name"));
  if (!name || !*name) return bad(t, "named type without a name:", pm_avro_type_name(node->type));
  const char *own_ns = json_string_value(json_object_get(j, "namespace"));
  node->name = full_name(t, name, own_ns ? own_ns : ns);
  if (!node->name) return nomem(t);
  *inner_ns = namespace_of(t, node->name);
  if (!*inner_ns) return nomem(t);
  return register_named(t, node);
}

static int parse_record(pm_avro_schema_tree *t, json_t *j, const char *ns, int depth, pm_avro_schema *node) {
  const char *inner_ns;
  PM_TRY(parse_name(t, j, ns, node, &inner_ns));
  json_t *fields = json_object_get(j, "fields");
  if (!json_is_array(fields)) return bad(t, "record without a fields array:", node->name);
  size_t n = json_array_size(fields);
  pm_avro_field *f = tree_alloc(t, n * sizeof *f);
  if (!f) return nomem(t);
  node->fields = f;
  node->field_count = n;
  node->fixed_width = -1; /* while parsing: recursive references are variable width */
  int64_t width = 0;
  for (size_t i = 0; i < n; i++) {
    json_t *fj = json_array_get(fields, i);
    const char *fname = json_string_value(json_object_get(fj, "name"));
    if (!json_is_object(fj) || !fname) return bad(t, "record field without a name in", node->name);
    for (size_t k = 0; k < i; k++)
      if (!strcmp(f[k].name, fname)) return bad(t, "duplicate field name", fname);
    f[i].name = fname;
    json_t *ft = json_object_get(fj, "type");
    if (!ft) return bad(t, "field without a type:", fname);
    f[i].has_default = json_object_get(fj, "default") != NULL;
    PM_TRY(parse_node(t, ft, inner_ns, depth + 1, &f[i].type));
    if (width >= 0) width = f[i].type->fixed_width < 0 ? -1 : width + f[i].type->fixed_width;
    if (width > INT32_MAX) width = -1;
  }
  node->fixed_width = width;
  return 0;
}

static int parse_object(pm_avro_schema_tree *t, json_t *j, const char *ns, int depth, const pm_avro_schema **out) {
  json_t *type = json_object_get(j, "type");
  if (json_is_array(type) || json_is_object(type)) /* {"type": <schema>} wrapper (tolerated) */
    return parse_node(t, type, ns, depth + 1, out);
  const char *tn = json_string_value(type);
  if (!tn) return bad(t, "object without a type", NULL);
  pm_avro_schema *node = tree_alloc(t, sizeof *node);
  if (!node) return nomem(t);
  node->json = j;
  node->null_branch = -1;
  node->fixed_width = -1;
  node->logical_type = json_string_value(json_object_get(j, "logicalType"));
  json_t *p = json_object_get(j, "precision");
  json_t *s = json_object_get(j, "scale");
  if (json_is_integer(p)) node->precision = (int32_t)json_integer_value(p);
  if (json_is_integer(s)) node->scale = (int32_t)json_integer_value(s);
  pm_avro_type prim;
  if (primitive_type(tn, &prim)) {
    node->type = prim;
    node->fixed_width = primitive_width(prim);
  } else if (!strcmp(tn, "record") || !strcmp(tn, "error")) {
    node->type = PM_AVRO_RECORD;
    PM_TRY(parse_record(t, j, ns, depth, node));
  } else if (!strcmp(tn, "enum")) {
    node->type = PM_AVRO_ENUM;
    const char *inner_ns;
    PM_TRY(parse_name(t, j, ns, node, &inner_ns));
    json_t *syms = json_object_get(j, "symbols");
    if (!json_is_array(syms)) return bad(t, "enum without symbols:", node->name);
    size_t n = json_array_size(syms);
    const char **sv = tree_alloc(t, n * sizeof *sv);
    if (!sv) return nomem(t);
    for (size_t i = 0; i < n; i++) {
      sv[i] = json_string_value(json_array_get(syms, i));
      if (!sv[i]) return bad(t, "enum symbol is not a string in", node->name);
    }
    node->symbols = sv;
    node->symbol_count = n;
  } else if (!strcmp(tn, "fixed")) {
    node->type = PM_AVRO_FIXED;
    const char *inner_ns;
    PM_TRY(parse_name(t, j, ns, node, &inner_ns));
    json_t *size = json_object_get(j, "size");
    if (!json_is_integer(size) || json_integer_value(size) < 0 || json_integer_value(size) > INT32_MAX)
      return bad(t, "fixed without a valid size:", node->name);
    node->fixed_size = (size_t)json_integer_value(size);
    node->fixed_width = (int64_t)node->fixed_size;
  } else if (!strcmp(tn, "array") || !strcmp(tn, "map")) {
    node->type = tn[0] == 'a' ? PM_AVRO_ARRAY : PM_AVRO_MAP;
    json_t *items = json_object_get(j, node->type == PM_AVRO_ARRAY ? "items" : "values");
    if (!items) return bad(t, node->type == PM_AVRO_ARRAY ? "array without items" : "map without values", NULL);
    PM_TRY(parse_node(t, items, ns, depth + 1, &node->items));
    /* Skip program for one item (array) or one entry (map: key, value) when the item is simple. */
    pm_avro_skip_op op;
    if (simple_op(node->items, &op)) {
      pm_avro_skip_op *ops = tree_alloc(t, 2 * sizeof *ops);
      if (!ops) return nomem(t);
      size_t k = 0;
      if (node->type == PM_AVRO_MAP) ops[k++] = (pm_avro_skip_op){PM_AVRO_SKIP_BYTES, 0, 0, NULL};
      ops[k++] = op;
      node->skip_ops = ops;
      node->skip_op_count = k;
    }
  } else {
    /* {"type": "SomeNamedType"}: a reference with attributes. */
    return reference(t, j, tn, ns, out);
  }
  *out = node;
  return 0;
}

static int parse_union(pm_avro_schema_tree *t, json_t *j, const char *ns, int depth, const pm_avro_schema **out) {
  size_t n = json_array_size(j);
  if (n == 0) return bad(t, "empty union", NULL);
  pm_avro_schema *node = tree_alloc(t, sizeof *node);
  const pm_avro_schema **br = tree_alloc(t, n * sizeof *br);
  if (!node || !br) return nomem(t);
  node->type = PM_AVRO_UNION;
  node->json = j;
  node->fixed_width = -1;
  node->null_branch = -1;
  for (size_t i = 0; i < n; i++) {
    PM_TRY(parse_node(t, json_array_get(j, i), ns, depth + 1, &br[i]));
    if (br[i]->type == PM_AVRO_UNION) return bad(t, "union directly inside a union", NULL);
    if (br[i]->type == PM_AVRO_NULL && node->null_branch < 0) node->null_branch = (int32_t)i;
  }
  node->branches = br;
  node->branch_count = n;
  *out = node;
  return 0;
}

static int parse_node(pm_avro_schema_tree *t, json_t *j, const char *ns, int depth, const pm_avro_schema **out) {
  if (depth > PM_AVRO_MAX_SCHEMA_DEPTH)
    return pm_errorf(t->err, PAIMON_ERR_CORRUPT, "%s: Avro schema nested deeper than %d levels", t->what,
                     PM_AVRO_MAX_SCHEMA_DEPTH);
  if (json_is_string(j)) return reference(t, j, json_string_value(j), ns, out);
  if (json_is_object(j)) return parse_object(t, j, ns, depth, out);
  if (json_is_array(j)) return parse_union(t, j, ns, depth, out);
  return bad(t, "a schema must be a string, object or array", NULL);
}

/* ---- skip programs ---------------------------------------------------- */

typedef struct op_list {
  pm_avro_skip_op *ops;
  size_t count, cap;
} op_list;

static int push_op(op_list *l, uint8_t kind, uint8_t null_branch, uint32_t n, const pm_avro_schema *node) {
  if (kind == PM_AVRO_SKIP_FIXED && l->count && l->ops[l->count - 1].kind == PM_AVRO_SKIP_FIXED &&
      (uint64_t)l->ops[l->count - 1].n + n <= UINT32_MAX) {
    l->ops[l->count - 1].n += n; /* merge neighbouring fixed-width runs */
    return 0;
  }
  if (l->count == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 16;
    pm_avro_skip_op *o = realloc(l->ops, cap * sizeof *o);
    if (!o) return -1;
    l->ops = o;
    l->cap = cap;
  }
  pm_avro_skip_op op = {kind, null_branch, n, node};
  l->ops[l->count++] = op;
  return 0;
}

#define MAX_INLINE_DEPTH 8

/* Appends the steps skipping one value of record rec; nested records are
 * inlined unless recursive (on the stack) or nested too deep. */
static int build_ops(op_list *l, const pm_avro_schema *rec, const pm_avro_schema **stack, int depth) {
  stack[depth] = rec;
  for (size_t i = 0; i < rec->field_count; i++) {
    const pm_avro_schema *ft = rec->fields[i].type;
    int rc;
    pm_avro_skip_op op;
    if (simple_op(ft, &op)) {
      rc = op.kind == PM_AVRO_SKIP_FIXED && op.n == 0 ? 0 : push_op(l, op.kind, op.null_branch, op.n, ft);
    } else if (ft->type == PM_AVRO_RECORD && depth + 1 < MAX_INLINE_DEPTH) {
      int recursive = 0;
      for (int k = 0; k <= depth; k++) recursive |= stack[k] == ft;
      rc = recursive ? push_op(l, PM_AVRO_SKIP_NODE, 0, 0, ft) : build_ops(l, ft, stack, depth + 1);
    } else {
      rc = push_op(l, PM_AVRO_SKIP_NODE, 0, 0, ft);
    }
    if (rc) return rc;
  }
  return 0;
}

static int build_skip_programs(pm_avro_schema_tree *t) {
  for (size_t i = 0; i < t->name_count; i++) {
    pm_avro_schema *rec = t->named[i];
    if (rec->type != PM_AVRO_RECORD) continue;
    op_list l = {0};
    const pm_avro_schema *stack[MAX_INLINE_DEPTH];
    if (build_ops(&l, rec, stack, 0)) {
      free(l.ops);
      return nomem(t);
    }
    pm_avro_skip_op *ops = tree_alloc(t, l.count * sizeof *ops);
    if (!ops) {
      free(l.ops);
      return nomem(t);
    }
    if (l.count) memcpy(ops, l.ops, l.count * sizeof *ops);
    free(l.ops);
    rec->skip_ops = ops;
    rec->skip_op_count = l.count;
  }
  return 0;
}

void pm_avro_schema_free(pm_avro_schema_tree *t) {
  if (!t) return;
  for (size_t i = 0; i < t->alloc_count; i++) free(t->allocs[i]);
  free(t->allocs);
  free(t->names);
  free(t->named);
  if (t->json) json_decref(t->json);
  free(t);
}

/* jansson parses recursively; refuse deep nesting before handing it the text. */
static int json_nesting_ok(const char *s, size_t len, int limit) {
  int depth = 0, in_str = 0;
  for (size_t i = 0; i < len; i++) {
    char c = s[i];
    if (in_str) {
      if (c == '\\') i++;
      else if (c == '"') in_str = 0;
    } else if (c == '"') {
      in_str = 1;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return 0;
    } else if (c == ']' || c == '}') {
      depth--;
    }
  }
  return 1;
}

int pm_avro_schema_parse(const char *json, size_t len, const char *what, pm_avro_schema_tree **out, pm_error *err) {
  *out = NULL;
  if (!what) what = "avro schema";
  /* Each schema level costs at most two JSON levels (union array + object, or object + fields array + field). */
  if (!json_nesting_ok(json, len, 3 * PM_AVRO_MAX_SCHEMA_DEPTH + 4))
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: Avro schema nested deeper than %d levels", what,
                     PM_AVRO_MAX_SCHEMA_DEPTH);
  json_error_t jerr;
  json_t *root = json_loadb(json, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
  if (!root)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: Avro schema is not valid JSON: %s (position %d)", what, jerr.text,
                     jerr.position);
  pm_avro_schema_tree *t = calloc(1, sizeof *t);
  if (!t) {
    json_decref(root);
    return PM_NOMEM(err);
  }
  t->json = root;
  t->what = what;
  t->err = err;
  int rc = parse_node(t, root, "", 0, &t->root);
  if (!rc) rc = build_skip_programs(t);
  t->err = NULL;
  t->what = NULL; /* borrowed from the caller: a kept tree must not point at it */
  if (rc) {
    pm_avro_schema_free(t);
    return rc;
  }
  *out = t;
  return 0;
}

const pm_avro_schema *pm_avro_schema_root(const pm_avro_schema_tree *t) { return t->root; }

const pm_avro_schema *pm_avro_unwrap_nullable(const pm_avro_schema *s, int32_t *null_branch) {
  if (s && s->type == PM_AVRO_UNION && s->branch_count == 2 && s->null_branch >= 0) {
    if (null_branch) *null_branch = s->null_branch;
    return s->branches[1 - s->null_branch];
  }
  if (null_branch) *null_branch = -1;
  return s;
}

int32_t pm_avro_field_index(const pm_avro_schema *record, const char *name) {
  if (!record || record->type != PM_AVRO_RECORD) return -1;
  for (size_t i = 0; i < record->field_count; i++)
    if (!strcmp(record->fields[i].name, name)) return (int32_t)i;
  return -1;
}

void pm_avro_record_map_free(pm_avro_record_map *m) {
  if (!m) return;
  free(m->wanted);
  free(m->slot_of_writer_field);
  memset(m, 0, sizeof *m);
}

int pm_avro_record_map_init(pm_avro_record_map *m, const pm_avro_schema *record, const char *const *names,
                            size_t count, const char *what, pm_error *err) {
  memset(m, 0, sizeof *m);
  const pm_avro_schema *rec = pm_avro_unwrap_nullable(record, NULL);
  if (!rec || rec->type != PM_AVRO_RECORD)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: expected an Avro record, found %s", what ? what : "avro",
                     rec ? pm_avro_type_name(rec->type) : "nothing");
  m->record = rec;
  m->wanted_count = count;
  m->writer_count = rec->field_count;
  m->wanted = calloc(count ? count : 1, sizeof *m->wanted);
  m->slot_of_writer_field = malloc((rec->field_count ? rec->field_count : 1) * sizeof *m->slot_of_writer_field);
  if (!m->wanted || !m->slot_of_writer_field) {
    pm_avro_record_map_free(m);
    return PM_NOMEM(err);
  }
  for (size_t i = 0; i < rec->field_count; i++) m->slot_of_writer_field[i] = -1;
  for (size_t k = 0; k < count; k++) {
    pm_avro_field_ref *ref = &m->wanted[k];
    ref->writer_index = -1;
    ref->null_branch = -1;
    int32_t idx = pm_avro_field_index(rec, names[k]);
    if (idx < 0) continue;
    ref->writer_index = idx;
    ref->type = rec->fields[idx].type;
    ref->value_type = pm_avro_unwrap_nullable(ref->type, &ref->null_branch);
    if (m->slot_of_writer_field[idx] < 0) m->slot_of_writer_field[idx] = (int32_t)k;
  }
  return 0;
}
