/* File index options (Java's FileIndexOptions) and the per-data-file index
 * writer (Java's DataFileIndexWriter): one builder per (column, index type),
 * fed from Arrow batches, serialized into the FileIndexFormat container in
 * the order Java's nested HashMaps give (see pm_java_hash_order). */
#include <stdlib.h>
#include <string.h>

#include "meta/core_options.h"
#include "meta/fileindex.h"
#include "meta/java_hashmap.h"

#define COLUMNS_SUFFIX ".columns"

typedef struct fcol {
  char *name;
  char **types; /* insertion order */
  size_t n_types;
  pm_fidx_opts *opts; /* per type */
} fcol;

typedef struct fopts {
  fcol *cols; /* insertion order into Java's indexTypeOptions */
  size_t n;
} fopts;

static void fopts_clear(fopts *f) {
  for (size_t i = 0; i < f->n; i++) {
    for (size_t t = 0; t < f->cols[i].n_types; t++) {
      free(f->cols[i].types[t]);
      free(f->cols[i].opts[t].keys);
      free(f->cols[i].opts[t].values);
    }
    free(f->cols[i].types);
    free(f->cols[i].opts);
    free(f->cols[i].name);
  }
  free(f->cols);
  memset(f, 0, sizeof *f);
}

static char *dupn(const char *s, size_t n) {
  char *d = malloc(n + 1);
  if (d) {
    memcpy(d, s, n);
    d[n] = 0;
  }
  return d;
}

static int add_col_type(fopts *f, const char *name, size_t nl, const char *type, size_t tl, pm_error *err) {
  fcol *c = NULL;
  for (size_t i = 0; i < f->n; i++)
    if (strlen(f->cols[i].name) == nl && !memcmp(f->cols[i].name, name, nl)) c = &f->cols[i];
  if (!c) {
    fcol *nc = realloc(f->cols, (f->n + 1) * sizeof *nc);
    if (!nc) return PM_NOMEM(err);
    f->cols = nc;
    c = &f->cols[f->n];
    memset(c, 0, sizeof *c);
    if (!(c->name = dupn(name, nl))) return PM_NOMEM(err);
    f->n++;
  }
  for (size_t t = 0; t < c->n_types; t++)
    if (strlen(c->types[t]) == tl && !memcmp(c->types[t], type, tl)) return 0;
  char **nt = realloc(c->types, (c->n_types + 1) * sizeof *nt);
  if (!nt) return PM_NOMEM(err);
  c->types = nt;
  pm_fidx_opts *no = realloc(c->opts, (c->n_types + 1) * sizeof *no);
  if (!no) return PM_NOMEM(err);
  c->opts = no;
  memset(&c->opts[c->n_types], 0, sizeof c->opts[0]);
  if (!(c->types[c->n_types] = dupn(type, tl))) return PM_NOMEM(err);
  c->n_types++;
  return 0;
}

/* Keys of opts in the order Java's HashMap of them iterates. */
static int option_order(const pm_options *opts, const char ***out, pm_error *err) {
  pm_jmap m;
  pm_jmap_init(&m);
  int rc = 0;
  for (size_t i = 0; !rc && i < opts->n; i++) rc = pm_jmap_put(&m, opts->keys[i], err);
  if (!rc) rc = pm_jmap_order(&m, out, err);
  if (rc) {
    pm_jmap_clear(&m);
    return rc;
  }
  /* the order's pointers point into m: copy them to the caller's options */
  for (size_t i = 0; i < m.n; i++)
    for (size_t k = 0; k < opts->n; k++)
      if (!strcmp((*out)[i], opts->keys[k])) {
        (*out)[i] = opts->keys[k];
        break;
      }
  size_t n = m.n;
  pm_jmap_clear(&m);
  (void)n;
  return 0;
}

static int opts_add(pm_fidx_opts *o, const char *k, const char *v, pm_error *err) {
  const char **nk = realloc(o->keys, (o->n + 1) * sizeof *nk);
  if (!nk) return PM_NOMEM(err);
  o->keys = nk;
  const char **nv = realloc(o->values, (o->n + 1) * sizeof *nv);
  if (!nv) return PM_NOMEM(err);
  o->values = nv;
  o->keys[o->n] = k;
  o->values[o->n] = v;
  o->n++;
  return 0;
}

static int parse_options(const pm_options *opts, fopts *f, pm_error *err) {
  memset(f, 0, sizeof *f);
  const char *prefix = pm_file_index_option_prefix();
  size_t pl = strlen(prefix), sl = strlen(COLUMNS_SUFFIX);
  const char **order = NULL;
  PM_TRY(option_order(opts, &order, err));
  int rc = 0;
  for (size_t i = 0; !rc && i < opts->n; i++) {
    const char *key = order[i];
    size_t kl = strlen(key);
    if (strncmp(key, prefix, pl) || kl < pl + sl || strcmp(key + kl - sl, COLUMNS_SUFFIX)) continue;
    const char *type = key + pl;
    size_t tl = kl - pl - sl;
    const char *v = pm_options_get(opts, key);
    const char *p = v;
    for (;;) {
      const char *e = strchr(p, ',');
      size_t n = e ? (size_t)(e - p) : strlen(p);
      const char *s = p;
      size_t m = n;
      while (m && (*s == ' ' || *s == '\t')) s++, m--;
      while (m && (s[m - 1] == ' ' || s[m - 1] == '\t')) m--;
      if (!m) {
        rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "Wrong option in %s, should not have empty column", key);
        break;
      }
      rc = add_col_type(f, s, m, type, tl, err);
      if (rc || !e) break;
      p = e + 1;
    }
  }
  /* per-column options: file-index.<type>.<column>.<option> */
  for (size_t i = 0; !rc && i < opts->n; i++) {
    const char *key = opts->keys[i];
    size_t kl = strlen(key);
    if (strncmp(key, prefix, pl) || (kl >= sl && !strcmp(key + kl - sl, COLUMNS_SUFFIX))) continue;
    const char *rest = key + pl;
    const char *d1 = strchr(rest, '.');
    const char *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
    if (d1 && !d2 && d1 != rest && d1[1]) {
      /* file-index.<type>.<option>: a default for every column of that type (the Java that wrote
       * the ORC append_with_bitmap_v1 fixture applied file-index.bitmap.version = 1 so) */
      size_t tl = (size_t)(d1 - rest);
      for (size_t c = 0; !rc && c < f->n; c++)
        for (size_t t = 0; !rc && t < f->cols[c].n_types; t++)
          if (strlen(f->cols[c].types[t]) == tl && !memcmp(f->cols[c].types[t], rest, tl) &&
              !pm_fidx_opt(&f->cols[c].opts[t], d1 + 1))
            rc = opts_add(&f->cols[c].opts[t], d1 + 1, opts->values[i], err);
      continue;
    }
    if (!d1 || !d2 || strchr(d2 + 1, '.') || d1 == rest || d2 == d1 + 1 || !d2[1]) continue; /* Java ignores these */
    size_t tl = (size_t)(d1 - rest), cl = (size_t)(d2 - d1 - 1);
    pm_fidx_opts *o = NULL;
    for (size_t c = 0; c < f->n && !o; c++) {
      if (strlen(f->cols[c].name) != cl || memcmp(f->cols[c].name, d1 + 1, cl)) continue;
      for (size_t t = 0; t < f->cols[c].n_types; t++)
        if (strlen(f->cols[c].types[t]) == tl && !memcmp(f->cols[c].types[t], rest, tl)) o = &f->cols[c].opts[t];
    }
    if (!o) {
      rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "Wrong file index option '%s': column '%.*s' is not declared in '%s%.*s%s'", key, (int)cl, d1 + 1,
                     prefix, (int)tl, rest, COLUMNS_SUFFIX);
      break;
    }
    /* a column-level option overrides a type-level default set before it */
    size_t j = 0;
    while (j < o->n && strcmp(o->keys[j], d2 + 1)) j++;
    if (j < o->n) o->values[j] = opts->values[i];
    else rc = opts_add(o, d2 + 1, opts->values[i], err);
  }
  free(order);
  if (rc) fopts_clear(f);
  return rc;
}

int pm_fidx_options_declared(const pm_options *opts) {
  const char *prefix = pm_file_index_option_prefix();
  size_t pl = strlen(prefix), sl = strlen(COLUMNS_SUFFIX);
  for (size_t i = 0; i < opts->n; i++) {
    const char *k = opts->keys[i];
    size_t kl = strlen(k);
    if (!strncmp(k, prefix, pl) && kl >= pl + sl && !strcmp(k + kl - sl, COLUMNS_SUFFIX)) return 1;
  }
  return 0;
}

/* ---- the writer ---- */

typedef struct maint {
  size_t field;
  const char *column; /* borrowed from fields */
  const char *type;   /* one of PM_FIDX_* */
  pm_fidx_col_writer *w;
} maint;

struct pm_fidx_writer {
  const pm_data_field *fields;
  maint *m; /* container order */
  size_t n;
};

void pm_fidx_writer_free(pm_fidx_writer *w) {
  if (!w) return;
  for (size_t i = 0; i < w->n; i++)
    if (w->m[i].w) w->m[i].w->ops->free(w->m[i].w);
  free(w->m);
  free(w);
}

static int32_t column_hash(const char *name) {
  /* Arrays.hashCode(new Object[] {name, null, false}) */
  uint32_t h = 31u + (uint32_t)pm_java_string_hash(name);
  h = h * 31u + 0u;
  h = h * 31u + 1237u;
  return (int32_t)h;
}

/* Orders strings names[0..n) (insertion order) as a HashMap<String, ?> iterates them
 * (cia: inserted by computeIfAbsent, else by put). */
static int string_order(const char *const *names, size_t n, int cia, size_t *order, pm_error *err) {
  int32_t *h = malloc((n ? n : 1) * sizeof *h);
  if (!h) return PM_NOMEM(err);
  for (size_t i = 0; i < n; i++) h[i] = pm_java_string_hash(names[i]);
  int rc = pm_java_hash_order(h, n, cia, order, err);
  free(h);
  return rc;
}

typedef struct pair {
  size_t col, type; /* indices into fopts */
} pair;

static int build(const fopts *f, const pm_data_field *fields, size_t n_fields, pm_fidx_writer *w, int create,
                 pm_error *err) {
  int rc = 0;
  size_t np = 0;
  for (size_t c = 0; c < f->n; c++) np += f->cols[c].n_types;
  size_t *corder = calloc(f->n ? f->n : 1, sizeof *corder);
  int32_t *ch = calloc(f->n ? f->n : 1, sizeof *ch);
  pair *ins = calloc(np ? np : 1, sizeof *ins);      /* (type, col) insertions into indexMaintainers */
  const char **tnames = calloc(np ? np : 1, sizeof *tnames); /* distinct types, insertion order */
  size_t nt = 0, ni = 0;
  if (!corder || !ch || !ins || !tnames) rc = PM_NOMEM(err);
  for (size_t c = 0; !rc && c < f->n; c++) {
    if (strchr(f->cols[c].name, '[') && f->cols[c].name[strlen(f->cols[c].name) - 1] == ']') {
      rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "file index on map key '%s' is not supported for writing",
                     f->cols[c].name);
      break;
    }
    int fi = -1;
    for (size_t k = 0; k < n_fields; k++)
      if (!strcmp(fields[k].name, f->cols[c].name)) fi = (int)k;
    if (fi < 0) {
      rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s does not exist in column fields (file-index.%s.columns)",
                     f->cols[c].name, f->cols[c].types[0]);
      break;
    }
    for (size_t t = 0; t < f->cols[c].n_types; t++) {
      const char *ty = f->cols[c].types[t];
      if (strcmp(ty, PM_FIDX_BLOOM) && strcmp(ty, PM_FIDX_BITMAP) && strcmp(ty, PM_FIDX_BSI)) {
        rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "file-index.%s.columns: index type '%s' is not supported for "
                       "writing (bloom-filter, bitmap and bsi are)", ty, ty);
        break;
      }
      pm_fidx_col_writer *cw = NULL;
      const pm_data_type *dt = fields[fi].type;
      if (!strcmp(ty, PM_FIDX_BLOOM)) rc = pm_fidx_bloom_writer_new(dt, &f->cols[c].opts[t], fields[fi].name, &cw, err);
      else if (!strcmp(ty, PM_FIDX_BITMAP))
        rc = pm_fidx_bitmap_writer_new(dt, &f->cols[c].opts[t], fields[fi].name, &cw, err);
      else rc = pm_fidx_bsi_writer_new(dt, &f->cols[c].opts[t], fields[fi].name, &cw, err);
      if (cw) cw->ops->free(cw);
      if (rc) break;
    }
    ch[c] = column_hash(f->cols[c].name);
  }
  if (rc || !create) goto done;
  /* 1. iterate indexTypeOptions (HashMap<Column, HashMap<type, Options>>) */
  rc = pm_java_hash_order(ch, f->n, 1, corder, err);
  for (size_t k = 0; !rc && k < f->n; k++) {
    const fcol *c = &f->cols[corder[k]];
    size_t *torder = calloc(c->n_types, sizeof *torder);
    if (!torder) {
      rc = PM_NOMEM(err);
      break;
    }
    rc = string_order((const char *const *)c->types, c->n_types, 1, torder, err);
    for (size_t t = 0; !rc && t < c->n_types; t++) {
      const char *ty = c->types[torder[t]];
      size_t j = 0;
      while (j < nt && strcmp(tnames[j], ty)) j++;
      if (j == nt) tnames[nt++] = ty;
      ins[ni].col = corder[k];
      ins[ni].type = torder[t];
      ni++;
    }
    free(torder);
  }
  /* 2. serializeMaintainers: types in indexMaintainers order, columns in each column2maintainers order;
   * 3. indexMaps (HashMap<column, HashMap<type, bytes>>) then orders both levels again */
  size_t *tord = calloc(nt ? nt : 1, sizeof *tord);
  const char **mcols = calloc(np ? np : 1, sizeof *mcols); /* indexMaps columns, insertion order */
  size_t nmc = 0;
  pair *seq = calloc(np ? np : 1, sizeof *seq); /* (col, type) puts into indexMaps, in order */
  size_t ns = 0;
  if (!rc && (!tord || !mcols || !seq)) rc = PM_NOMEM(err);
  if (!rc) rc = string_order(tnames, nt, 1, tord, err);
  for (size_t k = 0; !rc && k < nt; k++) {
    const char *ty = tnames[tord[k]];
    const char **cn = calloc(np, sizeof *cn);
    pair *cp = calloc(np, sizeof *cp);
    size_t *co = calloc(np, sizeof *co);
    size_t nc = 0;
    if (!cn || !cp || !co) rc = PM_NOMEM(err);
    for (size_t i = 0; !rc && i < ni; i++)
      if (!strcmp(f->cols[ins[i].col].types[ins[i].type], ty)) {
        cn[nc] = f->cols[ins[i].col].name;
        cp[nc++] = ins[i];
      }
    if (!rc) rc = string_order(cn, nc, 0, co, err); /* column2maintainers.put */
    for (size_t i = 0; !rc && i < nc; i++) {
      seq[ns++] = cp[co[i]];
      size_t j = 0;
      while (j < nmc && strcmp(mcols[j], cn[co[i]])) j++;
      if (j == nmc) mcols[nmc++] = cn[co[i]];
    }
    free(cn);
    free(cp);
    free(co);
  }
  size_t *mco = calloc(nmc ? nmc : 1, sizeof *mco);
  w->m = calloc(np ? np : 1, sizeof *w->m);
  if (!rc && (!mco || !w->m)) rc = PM_NOMEM(err);
  if (!rc) rc = string_order(mcols, nmc, 1, mco, err);
  for (size_t k = 0; !rc && k < nmc; k++) {
    const char *cname = mcols[mco[k]];
    const char *tys[3];
    pair ps[3];
    size_t nty = 0;
    for (size_t i = 0; i < ns && nty < 3; i++)
      if (!strcmp(f->cols[seq[i].col].name, cname)) {
        ps[nty] = seq[i];
        tys[nty++] = f->cols[seq[i].col].types[seq[i].type];
      }
    size_t to[3];
    rc = string_order(tys, nty, 0, to, err); /* inner put(type) */
    for (size_t t = 0; !rc && t < nty; t++) {
      const pair *p = &ps[to[t]];
      const fcol *c = &f->cols[p->col];
      int fi = 0;
      for (size_t x = 0; x < n_fields; x++)
        if (!strcmp(fields[x].name, c->name)) fi = (int)x;
      maint *m = &w->m[w->n];
      m->field = (size_t)fi;
      m->column = fields[fi].name;
      const char *ty = c->types[p->type];
      m->type = !strcmp(ty, PM_FIDX_BLOOM) ? PM_FIDX_BLOOM : !strcmp(ty, PM_FIDX_BITMAP) ? PM_FIDX_BITMAP : PM_FIDX_BSI;
      const pm_data_type *dt = fields[fi].type;
      if (!strcmp(m->type, PM_FIDX_BLOOM)) rc = pm_fidx_bloom_writer_new(dt, &c->opts[p->type], m->column, &m->w, err);
      else if (!strcmp(m->type, PM_FIDX_BITMAP)) rc = pm_fidx_bitmap_writer_new(dt, &c->opts[p->type], m->column, &m->w, err);
      else rc = pm_fidx_bsi_writer_new(dt, &c->opts[p->type], m->column, &m->w, err);
      if (!rc) w->n++;
    }
  }
  free(mco);
  free(tord);
  free(mcols);
  free(seq);
done:
  free(corder);
  free(ch);
  free(ins);
  free(tnames);
  return rc;
}

int pm_fidx_options_validate(const pm_options *opts, const pm_data_field *fields, size_t n_fields, pm_error *err) {
  if (!pm_fidx_options_declared(opts)) return 0;
  fopts f;
  PM_TRY(parse_options(opts, &f, err));
  int rc = build(&f, fields, n_fields, NULL, 0, err);
  fopts_clear(&f);
  return rc;
}

int pm_fidx_writer_new(const pm_options *opts, const pm_data_field *fields, size_t n_fields, pm_fidx_writer **out,
                       pm_error *err) {
  *out = NULL;
  if (!pm_fidx_options_declared(opts)) return 0;
  fopts f;
  PM_TRY(parse_options(opts, &f, err));
  pm_fidx_writer *w = calloc(1, sizeof *w);
  int rc = w ? 0 : PM_NOMEM(err);
  if (!rc) {
    w->fields = fields;
    rc = build(&f, fields, n_fields, w, 1, err);
  }
  fopts_clear(&f);
  if (rc) {
    pm_fidx_writer_free(w);
    return rc;
  }
  *out = w;
  return 0;
}

/* ---- Arrow values ---- */

static int bit_at(const uint8_t *bits, int64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b) && ((a < 0) != (b < 0))) q--;
  return q;
}

/* Value of row i (absolute index into the child's buffers) of an array of type t. */
static void arrow_value(const pm_data_type *t, const struct ArrowArray *a, int64_t i, pm_value *v) {
  memset(v, 0, sizeof *v);
  if (a->null_count != 0 && a->buffers[0] && !bit_at(a->buffers[0], i)) {
    v->kind = PM_V_NULL;
    return;
  }
  const void *d = a->buffers[1];
  switch (t->root) {
    case PM_DT_BOOLEAN: v->kind = PM_V_BOOL; v->u.i64 = bit_at(d, i); break;
    case PM_DT_TINYINT: v->kind = PM_V_INT; v->u.i64 = ((const int8_t *)d)[i]; break;
    case PM_DT_SMALLINT: v->kind = PM_V_INT; v->u.i64 = ((const int16_t *)d)[i]; break;
    case PM_DT_INT: case PM_DT_DATE: case PM_DT_TIME: v->kind = PM_V_INT; v->u.i64 = ((const int32_t *)d)[i]; break;
    case PM_DT_BIGINT: v->kind = PM_V_INT; v->u.i64 = ((const int64_t *)d)[i]; break;
    case PM_DT_FLOAT: v->kind = PM_V_FLOAT; v->u.f64 = ((const float *)d)[i]; break;
    case PM_DT_DOUBLE: v->kind = PM_V_DOUBLE; v->u.f64 = ((const double *)d)[i]; break;
    case PM_DT_CHAR: case PM_DT_VARCHAR: case PM_DT_BINARY: case PM_DT_VARBINARY: {
      const int32_t *off = d;
      v->kind = (t->root == PM_DT_CHAR || t->root == PM_DT_VARCHAR) ? PM_V_STRING : PM_V_BINARY;
      v->u.bytes.data = (const uint8_t *)a->buffers[2] + off[i];
      v->u.bytes.len = (size_t)(off[i + 1] - off[i]);
      break;
    }
    case PM_DT_TIMESTAMP: case PM_DT_TIMESTAMP_LTZ: {
      int64_t x = ((const int64_t *)d)[i];
      int64_t per = t->precision <= 3 ? 1 : t->precision <= 6 ? 1000 : 1000000;
      v->kind = PM_V_TIMESTAMP;
      v->u.ts.millis = floor_div(x, per);
      v->u.ts.nanos = (int32_t)((x - v->u.ts.millis * per) * (1000000 / per));
      break;
    }
    case PM_DT_DECIMAL: {
      const uint8_t *p = (const uint8_t *)d + 16 * i;
      uint64_t lo = 0, hi = 0;
      for (int k = 7; k >= 0; k--) lo = (lo << 8) | p[k];
      for (int k = 15; k >= 8; k--) hi = (hi << 8) | p[k];
      v->kind = PM_V_DECIMAL;
      v->u.dec.lo = lo;
      v->u.dec.hi = (int64_t)hi;
      v->u.dec.precision = t->precision;
      v->u.dec.scale = t->scale;
      break;
    }
    default: v->kind = PM_V_NULL; break;
  }
}

int pm_fidx_writer_add(pm_fidx_writer *w, const struct ArrowSchema *schema, const struct ArrowArray *batch,
                       size_t first_child, pm_error *err) {
  if (!w) return 0;
  for (size_t k = 0; k < w->n; k++) {
    size_t ci = first_child + w->m[k].field;
    if ((int64_t)ci >= batch->n_children || (schema && (int64_t)ci >= schema->n_children))
      return pm_errorf(err, PAIMON_ERR_INTERNAL, "file index: batch lacks column '%s'", w->m[k].column);
    if (schema) {
      char buf[32];
      const char *want = pm_dtype_arrow_format(w->fields[w->m[k].field].type, buf, sizeof buf);
      if (strcmp(schema->children[ci]->format, want))
        return pm_errorf(err, PAIMON_ERR_INTERNAL, "file index: column '%s' arrives as Arrow '%s', not '%s'",
                         w->m[k].column, schema->children[ci]->format, want);
    }
  }
  for (int64_t r = 0; r < batch->length; r++) {
    for (size_t k = 0; k < w->n; k++) {
      const struct ArrowArray *c = batch->children[first_child + w->m[k].field];
      pm_value v;
      arrow_value(w->fields[w->m[k].field].type, c, c->offset + batch->offset + r, &v);
      PM_TRY(w->m[k].w->ops->add(w->m[k].w, &v, err));
    }
  }
  return 0;
}

/* Java's DataOutput.writeUTF (modified UTF-8). */
static int put_utf(pm_buf *o, const char *s, pm_error *err) {
  pm_buf t = {0};
  const uint8_t *p = (const uint8_t *)s;
  int rc = 0;
  while (*p && !rc) {
    if ((*p & 0xF8) == 0xF0 && p[1] && p[2] && p[3]) {
      uint32_t cp = ((uint32_t)(*p & 7) << 18) | ((uint32_t)(p[1] & 0x3F) << 12) | ((uint32_t)(p[2] & 0x3F) << 6) |
                    (p[3] & 0x3F);
      cp -= 0x10000;
      uint32_t hs = 0xD800 + (cp >> 10), ls = 0xDC00 + (cp & 0x3FF);
      uint8_t b[6] = {(uint8_t)(0xE0 | (hs >> 12)), (uint8_t)(0x80 | ((hs >> 6) & 0x3F)), (uint8_t)(0x80 | (hs & 0x3F)),
                      (uint8_t)(0xE0 | (ls >> 12)), (uint8_t)(0x80 | ((ls >> 6) & 0x3F)), (uint8_t)(0x80 | (ls & 0x3F))};
      if (pm_buf_append(&t, b, 6)) rc = PM_NOMEM(err);
      p += 4;
    } else {
      if (pm_buf_append(&t, p, 1)) rc = PM_NOMEM(err);
      p++;
    }
  }
  if (!rc && t.len > 65535) rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "file index: name '%s' is too long", s);
  uint8_t l[2] = {(uint8_t)(t.len >> 8), (uint8_t)t.len};
  if (!rc && (pm_buf_append(o, l, 2) || pm_buf_append(o, t.data, t.len))) rc = PM_NOMEM(err);
  pm_buf_free(&t);
  return rc;
}

static int put32(pm_buf *o, int64_t v) {
  uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
  return pm_buf_append(o, b, 4);
}

int pm_fidx_writer_finish(pm_fidx_writer *w, pm_buf *out, pm_error *err) {
  pm_buf body = {0}, names = {0}, head = {0};
  size_t *start = calloc(w->n ? w->n : 1, sizeof *start), *len = calloc(w->n ? w->n : 1, sizeof *len);
  int rc = (start && len) ? 0 : PM_NOMEM(err);
  for (size_t k = 0; !rc && k < w->n; k++) {
    start[k] = body.len;
    rc = w->m[k].w->ops->finish(w->m[k].w, &body, err);
    len[k] = body.len - start[k];
  }
  /* columns are consecutive in w->m */
  size_t ncols = 0;
  for (size_t k = 0; !rc && k < w->n; k++) {
    int first = k == 0 || strcmp(w->m[k].column, w->m[k - 1].column);
    if (first) {
      ncols++;
      rc = put_utf(&names, w->m[k].column, err);
    }
    if (!rc) rc = put_utf(&names, w->m[k].type, err);
  }
  int64_t head_len = 8 + 4 + 4 + 4 + (int64_t)w->n * 8 + (int64_t)ncols * 4 + 4 + (int64_t)names.len;
  if (!rc && head_len + (int64_t)body.len > INT32_MAX) rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "file index over 2 GiB");
  if (!rc) {
    uint8_t magic[8] = {0x00, 0x05, 0x4e, 0x4e, 0xd0, 0x1a, 0x35, 0xae};
    /* 1493475289347502 = 0x00054E4ED01A35AE */
    if (pm_buf_append(&head, magic, 8) || put32(&head, 1) || put32(&head, head_len) || put32(&head, (int64_t)ncols))
      rc = PM_NOMEM(err);
  }
  for (size_t k = 0; !rc && k < w->n;) {
    size_t e = k;
    while (e < w->n && !strcmp(w->m[e].column, w->m[k].column)) e++;
    rc = put_utf(&head, w->m[k].column, err);
    if (!rc && put32(&head, (int64_t)(e - k))) rc = PM_NOMEM(err);
    for (size_t j = k; !rc && j < e; j++) {
      rc = put_utf(&head, w->m[j].type, err);
      if (!rc && (put32(&head, (int64_t)start[j] + head_len) || put32(&head, (int64_t)len[j]))) rc = PM_NOMEM(err);
    }
    k = e;
  }
  if (!rc && put32(&head, 0)) rc = PM_NOMEM(err);
  if (!rc && (int64_t)head.len != head_len) rc = pm_errorf(err, PAIMON_ERR_INTERNAL, "file index header length");
  if (!rc && (pm_buf_append(out, head.data, head.len) || pm_buf_append(out, body.data, body.len))) rc = PM_NOMEM(err);
  pm_buf_free(&body);
  pm_buf_free(&names);
  pm_buf_free(&head);
  free(start);
  free(len);
  return rc;
}
