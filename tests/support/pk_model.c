/* The primary-key table model of the write tests (pk_model.h). */
#include "support/pk_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ values */

static char *dupstr(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (!d) abort();
  memcpy(d, s, n);
  return d;
}

/* Values owned by the model: s malloc'd (cast away const). */
static void vfree(pkm_value *v) {
  free((char *)v->s);
  *v = pkm_null();
}

static void vset(pkm_value *dst, const pkm_value *src) {
  if (dst == src) return;
  pkm_value n = *src;
  if (!n.null && n.s) n.s = dupstr(n.s);
  if (n.null) n = pkm_null();
  vfree(dst);
  *dst = n;
}

static int vcmp(pkm_type t, const pkm_value *a, const pkm_value *b) {
  if (a->null || b->null) return a->null && b->null ? 0 : a->null ? -1 : 1;
  if (t == PKM_STRING) return strcmp(a->s, b->s);
  return a->i < b->i ? -1 : a->i > b->i;
}

static int is_retract(int k) { return k == PKM_UPDATE_BEFORE || k == PKM_DELETE; }

/* ------------------------------------------------------------ records and merge functions */

typedef struct rec {
  int kind;
  pkm_value *v;
} rec;

/* One merge function's state over a key's records (Java's merge function
 * between reset and getResult, plus the first record for the single-record rule). */
typedef struct acc {
  int n;
  rec first;
  int kind;
  pkm_value *row;
  unsigned char *init; /* first_value / first_non_null_value initialized */
  int meet_insert, cur_delete, filled, has_first;
} acc;

typedef struct entry {
  char *key;
  acc read; /* level 2: the flushed records */
  acc pend; /* level 1: rows of the current flush */
} entry;

struct pkm_model {
  pkm_config cfg;
  pkm_column *cols;
  pkm_seq_group *groups;
  entry *e;
  size_t n, cap;
  size_t *ht; /* entry index + 1 */
  size_t ht_cap;
  size_t *pending; /* entries with rows in the current flush */
  size_t n_pending, cap_pending;
  char err[512];
};

static pkm_value *row_new(size_t n) {
  pkm_value *r = calloc(n + 1, sizeof *r);
  if (!r) abort();
  for (size_t i = 0; i < n; i++) r[i] = pkm_null();
  return r;
}

static void row_free(pkm_value *r, size_t n) {
  if (!r) return;
  for (size_t i = 0; i < n; i++) vfree(&r[i]);
  free(r);
}

static void row_set(pkm_value *dst, const pkm_value *src, size_t n) {
  for (size_t i = 0; i < n; i++) vset(&dst[i], &src[i]);
}

static void acc_reset(const pkm_model *m, acc *a) {
  size_t nc = m->cfg.n_cols;
  row_free(a->row, nc);
  row_free(a->first.v, nc);
  free(a->init);
  memset(a, 0, sizeof *a);
}

static void acc_init(const pkm_model *m, acc *a) {
  memset(a, 0, sizeof *a);
  a->row = row_new(m->cfg.n_cols);
  a->first.v = row_new(m->cfg.n_cols);
  a->init = calloc(m->cfg.n_cols + 1, 1);
  if (!a->init) abort();
}

static int fail(pkm_model *m, const char *fmt, const char *name) {
  snprintf(m->err, sizeof m->err, fmt, name);
  return -1;
}

/* Java's FieldAggregator.retract support. */
static int can_retract(pkm_agg f) {
  return f == PKM_AGG_SUM || f == PKM_AGG_LAST_VALUE || f == PKM_AGG_LAST_NON_NULL_VALUE || f == PKM_AGG_DEFAULT;
}

/* Would the merge function refuse this row? (checked before anything changes) */
static int refuses(pkm_model *m, int kind) {
  const pkm_config *c = &m->cfg;
  if (!is_retract(kind)) return 0;
  switch (c->engine) {
    case PKM_FIRST_ROW:
      return c->ignore_delete ? 0 : fail(m, "%s: first-row can not accept DELETE/UPDATE_BEFORE records", "first-row");
    case PKM_PARTIAL_UPDATE:
      if (c->ignore_delete || c->n_groups || c->remove_record_on_delete) break;
      return fail(m, "%s: partial update can not accept delete records by default", "partial-update");
    case PKM_AGGREGATION:
      if (c->remove_record_on_delete && kind == PKM_DELETE) break;
      for (size_t i = c->n_keys; i < c->n_cols; i++)
        if (!m->cols[i].ignore_retract && !can_retract(m->cols[i].agg))
          return fail(m, "column %s: the aggregate function does not support retraction", m->cols[i].name);
      break;
    default: break;
  }
  if (c->engine == PKM_PARTIAL_UPDATE && c->n_groups)
    for (size_t i = c->n_keys; i < c->n_cols; i++)
      if (m->cols[i].seq_group >= 0 && m->cols[i].agg != PKM_AGG_DEFAULT && !can_retract(m->cols[i].agg))
        return fail(m, "column %s: the aggregate function does not support retraction", m->cols[i].name);
  return 0;
}

static void agg_value(const pkm_model *m, acc *a, size_t i, pkm_agg f, const pkm_value *in, int retract) {
  pkm_value *cur = &a->row[i];
  pkm_type t = m->cols[i].type;
  if (retract && m->cols[i].ignore_retract) return;
  switch (f) {
    case PKM_AGG_SUM:
      if (cur->null || in->null) {
        if (cur->null && !in->null) *cur = pkm_int(retract ? -in->i : in->i);
        return;
      }
      cur->i = retract ? cur->i - in->i : cur->i + in->i;
      return;
    case PKM_AGG_PRODUCT:
      if (cur->null || in->null) {
        if (cur->null) vset(cur, in);
        return;
      }
      cur->i *= in->i;
      return;
    case PKM_AGG_MAX:
    case PKM_AGG_MIN:
      if (cur->null || in->null) {
        if (cur->null) vset(cur, in);
        return;
      }
      if (f == PKM_AGG_MAX ? vcmp(t, cur, in) < 0 : vcmp(t, cur, in) > 0) vset(cur, in);
      return;
    case PKM_AGG_LAST_VALUE:
      if (retract) vfree(cur);
      else vset(cur, in);
      return;
    case PKM_AGG_FIRST_VALUE:
      if (!a->init[i]) {
        a->init[i] = 1;
        vset(cur, in);
      }
      return;
    case PKM_AGG_FIRST_NON_NULL_VALUE:
      if (!a->init[i] && !in->null) {
        a->init[i] = 1;
        vset(cur, in);
      }
      return;
    case PKM_AGG_LISTAGG: {
      if (in->null || !*in->s) return;
      if (cur->null || !*cur->s) {
        vset(cur, in);
        return;
      }
      size_t n = strlen(cur->s) + strlen(in->s) + 2;
      char *s = malloc(n);
      if (!s) abort();
      snprintf(s, n, "%s,%s", cur->s, in->s);
      free((char *)cur->s);
      cur->s = s;
      return;
    }
    case PKM_AGG_DEFAULT:
    case PKM_AGG_LAST_NON_NULL_VALUE:
      if (retract) {
        if (!in->null) vfree(cur);
      } else if (!in->null) {
        vset(cur, in);
      }
      return;
  }
}

/* Partial-update with sequence groups (Java's updateWithSequenceGroup / retractWithSequenceGroup). */
static void seq_group_add(const pkm_model *m, acc *a, int kind, const pkm_value *v) {
  size_t nc = m->cfg.n_cols;
  int retract = is_retract(kind);
  unsigned char *done = calloc(nc + 1, 1);
  if (!done) abort();
  for (size_t i = 0; i < nc; i++) {
    const pkm_column *c = &m->cols[i];
    if (c->seq_group < 0) {
      if (retract) continue;
      if (c->agg == PKM_AGG_SUM) agg_value(m, a, i, c->agg, &v[i], 0);
      else if (!v[i].null) vset(&a->row[i], &v[i]);
      continue;
    }
    const pkm_seq_group *g = &m->groups[c->seq_group];
    size_t oc = (size_t)g->order_col;
    if (done[i]) continue;
    if (v[oc].null) { /* an empty sequence group: the record does not touch it */
      done[oc] = 1;
      continue;
    }
    int newer = vcmp(m->cols[oc].type, &v[oc], &a->row[oc]) >= 0;
    if (newer && i == oc) {
      if (retract && kind == PKM_DELETE && g->remove_on_delete) {
        a->cur_delete = 1;
        row_set(a->row, v, nc);
        free(done);
        return;
      }
      vset(&a->row[oc], &v[oc]);
      done[oc] = 1;
      continue;
    }
    pkm_agg f = c->agg;
    if (newer) {
      if (retract) {
        if (f == PKM_AGG_DEFAULT) vfree(&a->row[i]);
        else agg_value(m, a, i, f, &v[i], 1);
      } else {
        if (f == PKM_AGG_DEFAULT) vset(&a->row[i], &v[i]);
        else agg_value(m, a, i, f, &v[i], 0);
      }
    } else if (f != PKM_AGG_DEFAULT) {
      agg_value(m, a, i, f, &v[i], retract); /* aggReversed = agg for sum */
    }
  }
  free(done);
}

static void fn_add(const pkm_model *m, acc *a, int kind, const pkm_value *v) {
  const pkm_config *c = &m->cfg;
  size_t nc = c->n_cols;
  if (a->n++ == 0) {
    a->first.kind = kind;
    row_set(a->first.v, v, nc);
  }
  switch (c->engine) {
    case PKM_DEDUPLICATE:
      a->kind = kind;
      row_set(a->row, v, nc);
      return;
    case PKM_FIRST_ROW:
      if (is_retract(kind)) return; /* ignore-delete (refuses() otherwise) */
      if (!a->has_first) {
        a->has_first = 1;
        a->kind = kind;
        row_set(a->row, v, nc);
      }
      return;
    case PKM_PARTIAL_UPDATE:
      a->cur_delete = 0;
      if (is_retract(kind)) {
        if (!a->filled) {
          row_set(a->row, v, nc);
          a->filled = 1;
        }
        if (c->ignore_delete) return;
        if (c->n_groups) {
          seq_group_add(m, a, kind, v);
          return;
        }
        if (c->remove_record_on_delete && kind == PKM_DELETE) {
          a->cur_delete = 1;
          row_set(a->row, v, nc);
        }
        return;
      }
      if (c->n_groups) {
        seq_group_add(m, a, kind, v);
      } else {
        for (size_t i = 0; i < nc; i++)
          if (!v[i].null) vset(&a->row[i], &v[i]);
      }
      a->meet_insert = 1;
      a->filled = 1;
      return;
    case PKM_AGGREGATION:
      a->cur_delete = c->remove_record_on_delete && kind == PKM_DELETE;
      if (a->cur_delete) {
        row_set(a->row, v, nc);
        return;
      }
      for (size_t i = 0; i < nc; i++) {
        if (i < c->n_keys) vset(&a->row[i], &v[i]);
        else agg_value(m, a, i, m->cols[i].agg, &v[i], is_retract(kind));
      }
      return;
  }
}

/* The merged record: 1 and *kind / *vals (owned by a), or 0 when there is none. */
static int fn_result(const pkm_model *m, const acc *a, int *kind, const pkm_value **vals) {
  if (a->n == 0) return 0;
  if (a->n == 1) { /* ReducerMergeFunctionWrapper: a single record as it is */
    *kind = a->first.kind;
    *vals = a->first.v;
    return 1;
  }
  *vals = a->row;
  switch (m->cfg.engine) {
    case PKM_DEDUPLICATE: *kind = a->kind; return 1;
    case PKM_FIRST_ROW:
      *kind = a->kind;
      return a->has_first;
    case PKM_PARTIAL_UPDATE: *kind = a->cur_delete || !a->meet_insert ? PKM_DELETE : PKM_INSERT; return 1;
    case PKM_AGGREGATION: *kind = a->cur_delete ? PKM_DELETE : PKM_INSERT; return 1;
  }
  return 0;
}

/* ------------------------------------------------------------ the map */

static char *key_text(const pkm_model *m, const pkm_value *row) {
  size_t cap = 64, n = 0;
  char *k = malloc(cap);
  if (!k) abort();
  for (size_t i = 0; i < m->cfg.n_keys; i++) {
    char tmp[32];
    const char *s = tmp;
    if (row[i].null) s = "\x01N";
    else if (m->cols[i].type == PKM_STRING) s = row[i].s;
    else snprintf(tmp, sizeof tmp, "%lld", (long long)row[i].i);
    size_t l = strlen(s);
    while (n + l + 2 > cap) {
      cap *= 2;
      if (!(k = realloc(k, cap))) abort();
    }
    memcpy(k + n, s, l);
    n += l;
    k[n++] = '\x02';
  }
  k[n] = 0;
  return k;
}

static uint64_t hash_text(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

static void ht_rebuild(pkm_model *m, size_t cap) {
  free(m->ht);
  m->ht = calloc(cap, sizeof *m->ht);
  if (!m->ht) abort();
  m->ht_cap = cap;
  for (size_t i = 0; i < m->n; i++) {
    size_t h = (size_t)hash_text(m->e[i].key) & (cap - 1);
    while (m->ht[h]) h = (h + 1) & (cap - 1);
    m->ht[h] = i + 1;
  }
}

/* The entry of the key text (created when create; NULL otherwise). Takes key. */
static entry *lookup(pkm_model *m, char *key, int create) {
  if ((m->n + 1) * 2 > m->ht_cap) ht_rebuild(m, m->ht_cap ? m->ht_cap * 2 : 1024);
  size_t h = (size_t)hash_text(key) & (m->ht_cap - 1);
  while (m->ht[h]) {
    entry *e = &m->e[m->ht[h] - 1];
    if (!strcmp(e->key, key)) {
      free(key);
      return e;
    }
    h = (h + 1) & (m->ht_cap - 1);
  }
  if (!create) {
    free(key);
    return NULL;
  }
  if (m->n == m->cap) {
    m->cap = m->cap ? 2 * m->cap : 1024;
    if (!(m->e = realloc(m->e, m->cap * sizeof *m->e))) abort();
  }
  entry *e = &m->e[m->n++];
  e->key = key;
  acc_init(m, &e->read);
  acc_init(m, &e->pend);
  m->ht[h] = m->n;
  return e;
}

/* ------------------------------------------------------------ API */

pkm_model *pkm_new(const pkm_config *cfg) {
  pkm_model *m = calloc(1, sizeof *m);
  if (!m) abort();
  m->cfg = *cfg;
  m->cols = calloc(cfg->n_cols + 1, sizeof *m->cols);
  m->groups = calloc(cfg->n_groups + 1, sizeof *m->groups);
  if (!m->cols || !m->groups) abort();
  for (size_t i = 0; i < cfg->n_cols; i++) {
    m->cols[i] = cfg->cols[i];
    m->cols[i].name = dupstr(cfg->cols[i].name);
    if (cfg->engine != PKM_PARTIAL_UPDATE || !cfg->n_groups) m->cols[i].seq_group = -1;
  }
  if (cfg->n_groups) memcpy(m->groups, cfg->groups, cfg->n_groups * sizeof *m->groups);
  m->cfg.cols = m->cols;
  m->cfg.groups = m->groups;
  return m;
}

static void acc_copy(const pkm_model *m, acc *dst, const acc *src) {
  acc_init(m, dst);
  size_t nc = m->cfg.n_cols;
  pkm_value *row = dst->row, *fv = dst->first.v;
  unsigned char *init = dst->init;
  *dst = *src;
  dst->row = row;
  dst->first.v = fv;
  dst->init = init;
  row_set(dst->row, src->row, nc);
  row_set(dst->first.v, src->first.v, nc);
  memcpy(dst->init, src->init, nc);
}

pkm_model *pkm_clone(const pkm_model *m) {
  pkm_model *c = pkm_new(&m->cfg);
  c->cap = m->n ? m->n : 1;
  if (!(c->e = calloc(c->cap, sizeof *c->e))) abort();
  for (size_t i = 0; i < m->n; i++) {
    c->e[i].key = dupstr(m->e[i].key);
    acc_copy(m, &c->e[i].read, &m->e[i].read);
    acc_copy(m, &c->e[i].pend, &m->e[i].pend);
  }
  c->n = m->n;
  ht_rebuild(c, m->ht_cap ? m->ht_cap : 1024);
  if (m->n_pending) {
    c->cap_pending = m->n_pending;
    if (!(c->pending = malloc(m->n_pending * sizeof *c->pending))) abort();
    memcpy(c->pending, m->pending, m->n_pending * sizeof *c->pending);
    c->n_pending = m->n_pending;
  }
  return c;
}

void pkm_free(pkm_model *m) {
  if (!m) return;
  for (size_t i = 0; i < m->n; i++) {
    free(m->e[i].key);
    acc_reset(m, &m->e[i].read);
    acc_reset(m, &m->e[i].pend);
  }
  free(m->e);
  free(m->ht);
  free(m->pending);
  for (size_t i = 0; i < m->cfg.n_cols; i++) free((char *)m->cols[i].name);
  free(m->cols);
  free(m->groups);
  free(m);
}

int pkm_add(pkm_model *m, int kind, const pkm_value *row) {
  const pkm_config *c = &m->cfg;
  if ((c->ignore_delete && is_retract(kind)) || (c->ignore_update_before && kind == PKM_UPDATE_BEFORE)) return 0;
  if (refuses(m, kind)) return -1;
  entry *e = lookup(m, key_text(m, row), 1);
  if (e->pend.n == 0) {
    if (m->n_pending == m->cap_pending) {
      m->cap_pending = m->cap_pending ? 2 * m->cap_pending : 1024;
      if (!(m->pending = realloc(m->pending, m->cap_pending * sizeof *m->pending))) abort();
    }
    m->pending[m->n_pending++] = (size_t)(e - m->e);
  }
  fn_add(m, &e->pend, kind, row);
  return 0;
}

void pkm_flush(pkm_model *m) {
  for (size_t p = 0; p < m->n_pending; p++) {
    entry *e = &m->e[m->pending[p]];
    int kind;
    const pkm_value *vals;
    if (fn_result(m, &e->pend, &kind, &vals)) fn_add(m, &e->read, kind, vals);
    acc_reset(m, &e->pend);
    acc_init(m, &e->pend);
  }
  m->n_pending = 0;
}

void pkm_discard(pkm_model *m) {
  for (size_t p = 0; p < m->n_pending; p++) {
    entry *e = &m->e[m->pending[p]];
    acc_reset(m, &e->pend);
    acc_init(m, &e->pend);
  }
  m->n_pending = 0;
}

void pkm_compact(pkm_model *m, int drop_retracts) {
  pkm_flush(m);
  size_t nc = m->cfg.n_cols;
  pkm_value *tmp = row_new(nc);
  for (size_t i = 0; i < m->n; i++) {
    entry *e = &m->e[i];
    int kind;
    const pkm_value *vals;
    int has = fn_result(m, &e->read, &kind, &vals);
    if (has) row_set(tmp, vals, nc);
    acc_reset(m, &e->read);
    acc_init(m, &e->read);
    if (has && !(drop_retracts && is_retract(kind))) fn_add(m, &e->read, kind, tmp);
  }
  row_free(tmp, nc);
}

static int visible(const pkm_model *m, const entry *e, const pkm_value **vals) {
  int kind;
  return fn_result(m, &e->read, &kind, vals) && !is_retract(kind);
}

json_t *pkm_rows(const pkm_model *m) {
  json_t *out = json_array();
  for (size_t i = 0; i < m->n; i++) {
    const pkm_value *v;
    if (!visible(m, &m->e[i], &v)) continue;
    json_t *o = json_object();
    for (size_t c = 0; c < m->cfg.n_cols; c++) {
      json_t *j = v[c].null ? json_null() : m->cols[c].type == PKM_STRING ? json_string(v[c].s) : json_integer(v[c].i);
      json_object_set_new(o, m->cols[c].name, j);
    }
    json_array_append_new(out, o);
  }
  return out;
}

size_t pkm_count(const pkm_model *m) {
  size_t n = 0;
  for (size_t i = 0; i < m->n; i++) {
    const pkm_value *v;
    n += (size_t)visible(m, &m->e[i], &v);
  }
  return n;
}

const pkm_value *pkm_get(const pkm_model *m, const pkm_value *key) {
  entry *e = lookup((pkm_model *)m, key_text(m, key), 0);
  const pkm_value *v;
  return e && visible(m, e, &v) ? v : NULL;
}

const char *pkm_last_error(const pkm_model *m) { return m->err; }
